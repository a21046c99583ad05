"""The compiled batched walks (two passes, buckets and rows loaded ahead) against the numpy backend and brute force.

The compiled ``query_points`` / ``query_shapes`` gather every probe's grid
candidates first, then test them, loading the buckets of the probes a few
places ahead (``compiled.queries._AHEAD``) and the rows of the candidates a
few places ahead; ``raycast_many`` loads the buckets of the first cells of
the rays a few places ahead. Those loads are hints only: these tests check
that the answers (pairs and their order) are those of the numpy backend,
whose queries share no code with these walks, and of brute force, for
batches shorter and longer than the look-ahead, with probes over one cell,
several cells and more cells than a walk takes (a scan), bodies on the
grid's big list, half-spaces, bodies the compiled tests leave to the numpy
path (capsules, concave polygons), filters, points right on box faces and
corners, and bodies moved, added and removed between batches (the grid
patched from the store's change journal).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

from collideworld import Box, Capsule, Circle, HalfPlane, Plane, Polygon, Sphere, World, collide
from collideworld.compiled.queries import _AHEAD
from collideworld.narrowphase import raycast_slots
from collideworld.queries import _probe_hits, box_probes
from collideworld.spatial.compiled import prefetch

U32 = 0xFFFFFFFF
#: batch sizes about the look-ahead distances (the first and second stages start, or never do)
SIZES = [1, _AHEAD - 1, _AHEAD, _AHEAD + 1, 2 * _AHEAD, 2 * _AHEAD + 1, 150]


def _worlds(dim, seed, n=300):
    """The same random world on both backends: unit boxes on a lattice (faces touching), balls, boxes, a big box."""
    rng = np.random.default_rng(seed)
    out = []
    for backend in ("numpy", "compiled"):
        w = World(dim, backend=backend)
        r = np.random.default_rng(seed)
        for i in range(n):
            pos = r.uniform(0, 30, dim)
            cat = int(r.choice([1, 1, 2]))
            mask = int(r.choice([U32, U32, 1]))
            size = float(r.uniform(0.2, 1.2))
            if i % 3 == 0:
                shape = Circle(size) if dim == 2 else Sphere(size)
            else:
                shape = Box((size, float(r.uniform(0.2, 1.2))) if dim == 2 else (size, 0.4, 0.7))
            q = r.normal(size=4)
            turn = {"angle": float(r.uniform(-3, 3))} if dim == 2 else {"quaternion": q / np.linalg.norm(q)}
            w.add(shape, pos, id=i, category=cat, mask=mask, **turn)
        # axis-aligned unit boxes face to face along x at y = 40: points on their faces and corners touch two
        for k in range(8):
            w.add(Box((0.5,) * dim), np.r_[10.0 + k, 40.0, np.zeros(dim - 2)], id=f"row{k}")
        w.add(Box((7.0,) * dim), np.full(dim, 15.0), id="tower")  # larger than a cell: the big list
        w.add(HalfPlane((0.0, 1.0), -1.0) if dim == 2 else Plane((0.0, 0.0, 1.0), -1.0), id="floor")
        if dim == 2:  # kinds the compiled tests hand to the numpy path
            w.add(Capsule((0.0, 0.0), (2.0, 0.0), 0.4), (5.0, 5.0), angle=0.3, id="capsule")
            w.add(Polygon([[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2]]), (20.0, 8.0), id="concave")
        w.step()
        out.append(w)
    return out, rng


def _change(worlds, rng, dim, round_):
    """The same moves, additions and removals on every world (no step: the index is patched from the journal)."""
    movers = rng.choice(100, 12, replace=False).tolist()
    to = rng.uniform(0, 30, (12, dim))
    gone = [200 + round_]
    new = rng.uniform(0, 30, (3, dim))
    for w in worlds:
        w.move_many(movers, to)
        w.remove(gone[0])
        w.add_many(Box((0.6,) * dim), new, ids=[f"new{round_}.{k}" for k in range(3)])


def _points(worlds, rng, dim, m):
    pts = rng.uniform(-2, 32, (m, dim))
    # on the faces and corners of the lattice boxes (near-touching), and on body centres
    face = np.r_[10.5, 40.0, np.zeros(dim - 2)]
    corner = np.r_[11.5, 40.5, np.full(dim - 2, 0.5)]
    specials = [face, corner, np.nextafter(face, -np.inf), worlds[0].body(3).position]
    for k, p in enumerate(specials[:m]):
        pts[k] = p
    return pts


def _brute_point(w, p):
    """Ids, in add order, of every body containing ``p``: numpy's narrowphase on every live body, no grid."""
    st = w._store
    live = np.flatnonzero((st.kind >= 0) & (st.owner < 0))
    probe = box_probes(w.dim, np.asarray(p, float)[None], np.zeros((1, w.dim)), True)
    hit = _probe_hits(st, probe, 1, np.zeros(len(live), dtype=np.int64), live, "numpy")
    found = live[hit]
    return st.ids[found[np.argsort(st.serial[found])]].tolist()


@pytest.mark.parametrize("dim", [2, 3])
def test_query_points_batches_match_numpy_and_brute_force(dim):
    worlds, rng = _worlds(dim, seed=10 + dim)
    for round_ in range(3):
        if round_:
            _change(worlds, rng, dim, round_)
        for m in SIZES:
            pts = _points(worlds, rng, dim, m)
            for category, mask in ((U32, U32), (1, 1)):
                (ia, na), (ib, nb) = (w.query_points(pts, category=category, mask=mask) for w in worlds)
                assert ia.tolist() == ib.tolist() and na.tolist() == nb.tolist()
        pts = _points(worlds, rng, dim, 40)
        idx, ids = worlds[1].query_points(pts)
        for k in range(0, 40, 3):
            assert ids[idx == k].tolist() == _brute_point(worlds[1], pts[k])


def _probes(dim):
    if dim == 2:
        return [Circle(0.7), Box((0.5, 0.3)), Polygon([[0, 0], [1.5, 0], [0.4, 1.2]]), Box((60.0, 60.0))]
    return [Sphere(0.7), Box((0.5, 0.3, 0.9)), Box((60.0, 60.0, 60.0))]


@pytest.mark.parametrize("dim", [2, 3])
def test_query_shapes_batches_match_numpy_and_brute_force(dim):
    # the last probe covers more cells than a walk takes: the compiled kernel scans every box instead
    worlds, rng = _worlds(dim, seed=20 + dim)
    for round_ in range(2):
        if round_:
            _change(worlds, rng, dim, round_)
        for shape in _probes(dim):
            for m in SIZES:
                pos = _points(worlds, rng, dim, m)
                if dim == 2:
                    turn = {"angles": rng.uniform(-3, 3, m)}
                else:
                    q = rng.normal(size=(m, 4))
                    turn = {"quaternions": q / np.linalg.norm(q, axis=1)[:, None]}
                (ia, na), (ib, nb) = (w.query_shapes(shape, pos, **turn) for w in worlds)
                assert ia.tolist() == ib.tolist() and na.tolist() == nb.tolist()
                if m == _AHEAD + 1:
                    rots = turn["angles"] if dim == 2 else turn["quaternions"]
                    for k in range(0, m, 4):
                        want = [i for i in worlds[1].ids()
                                if _touches(worlds[1], i, shape, pos[k], rots[k])]
                        assert nb[ib == k].tolist() == want


def _touches(w, i, shape, pos, rot):
    b = w.body(i)
    pose = None if b.shape.is_infinite else (b.position, b.angle if w.dim == 2 else b.quaternion)
    return collide(b.shape, pose, shape, (pos, rot)) is not None


def _brute_first(w, o, d, limit):
    """(id, distance) of the nearest hit (ties: the body added first) over every live body, or None."""
    st = w._store
    live = np.flatnonzero(st.kind >= 0)
    live = live[st.owner[live] < 0]
    dist, _ = raycast_slots(st, live, np.asarray(o, float), d / np.linalg.norm(d), limit)
    hit = np.flatnonzero(np.isfinite(dist))
    if not len(hit):
        return None
    best = min(hit.tolist(), key=lambda k: (dist[k], st.serial[live[k]]))
    return st.ids[live[best]], float(dist[best])


@pytest.mark.parametrize("dim", [2, 3])
def test_raycast_many_batches_match_numpy_and_brute_force(dim):
    # balls and boxes only: the compiled first hits walk the grid (a capsule would send them to numpy's path)
    worlds, rng = _worlds(dim, seed=30 + dim)
    for w in worlds:
        if dim == 2:
            w.remove("capsule")
            w.remove("concave")
    for round_ in range(3):
        if round_:
            _change(worlds, rng, dim, round_)
        for m in SIZES:
            o = rng.uniform(-10, 40, (m, dim))
            d = rng.normal(size=(m, dim))
            o[: m // 3] = np.r_[5.0, 40.5, np.zeros(dim - 2)]  # along the lattice boxes' shared top faces
            d[: m // 3] = np.r_[1.0, np.zeros(dim - 1)]
            d[m // 3: m // 2, 1:] = 0.0  # along x: no crossing of y (or z) walls
            o[-1] = np.full(dim, -1e3)  # from far outside the grid's bounds
            for limit in (math.inf, 4.0):
                a, b = (w.raycast_many(o, d, limit) for w in worlds)
                assert a.ray.tolist() == b.ray.tolist() and a.id.tolist() == b.id.tolist()
                np.testing.assert_allclose(a.distance, b.distance, rtol=1e-12, atol=1e-12)
                np.testing.assert_allclose(a.normal, b.normal, atol=1e-12)
                if m == 2 * _AHEAD + 1:
                    for k in range(m):
                        want = _brute_first(worlds[1], o[k], d[k], limit)
                        row = np.flatnonzero(b.ray == k)
                        assert len(row) == (want is not None)
                        if want is not None:
                            assert b.distance[row[0]] == pytest.approx(want[1], abs=1e-9)


@pytest.mark.parametrize("dim", [2, 3])
def test_raycast_many_never_hits_a_removed_body(dim):
    # A removed body's slot keeps its geometry and filter bits (only its kind, id and serial are reset), and
    # its bucket entries become free (-1) with empty boxes. The slab test passes an empty box when no
    # component of the direction is 0, and entry -1 read as a row is the last slot: with the removed body
    # there, the compiled first hits once reported it (id None) where the numpy backend saw nothing.
    rng = np.random.default_rng(60 + dim)
    worlds = []
    for backend in ("numpy", "compiled"):
        w = World(dim, backend=backend)
        r = np.random.default_rng(61 + dim)
        w.add_many(Box((0.5,) * dim), r.uniform(10, 30, (40, dim)))
        st = w._store
        w.add_many(Box((0.5,) * dim), r.uniform(10, 30, (st.capacity - st.count - 1, dim)))
        w.add(Box((0.5,) * dim), np.full(dim, 50.0), id="last")
        assert st.ids[st.capacity - 1] == "last"  # in the last slot
        w.step()
        w.remove("last")
        worlds.append(w)
    o = rng.uniform(5, 35, (60, dim))
    d = np.full(dim, 50.0) - o  # every ray towards where "last" was
    d[:, 0] += 1e-3  # (and no direction component 0)
    a, b = (w.raycast_many(o, d, 100.0) for w in worlds)
    assert None not in b.id.tolist()
    assert a.ray.tolist() == b.ray.tolist() and a.id.tolist() == b.id.tolist()
    np.testing.assert_allclose(a.distance, b.distance, rtol=1e-12, atol=1e-12)
    for k in range(0, 60, 6):
        want = _brute_first(worlds[1], o[k], d[k], 100.0)
        assert b.id[b.ray == k].tolist() == ([] if want is None else [want[0]])


@njit
def _sum_prefetched(a, b, c):
    # every row of 1-D, 2-D, 3-D and strided arrays, and the next row past each (a hint never faults)
    total = 0.0
    for i in range(a.shape[0] + 1):
        prefetch(a, i)
        prefetch(b, i)
        prefetch(c, i)
        if i < a.shape[0]:
            total += a[i] + b[i, 0] + c[i, 1, 1]
    return total


def test_prefetch_is_a_hint():
    a = np.arange(5.0)
    b = np.arange(30.0).reshape(5, 6)[:, ::2]  # strided rows
    c = np.arange(40.0).reshape(5, 2, 4)
    assert _sum_prefetched(a, b, c) == float(a.sum() + b[:, 0].sum() + c[:, 1, 1].sum())
