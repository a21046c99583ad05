"""Queries through the spatial index, single and batched, against references that test every body.

References, independent of the grid and of the candidate search:

* brute force: every live body against the query with ``collide()`` (shapes)
  or the narrowphase's ray kernels on every slot (rays);
* the oracle (tests/oracle.py: shapely in 2D, closed forms and an LP in 3D)
  for points and shapes, skipping bodies within 1e-9 of touching.

Worlds hold a few hundred bodies of mixed kinds and sizes (some large enough
for the grid's "big" list), a half-plane or plane, random filters; part of
them moved after the last step, so their stored fat boxes are stale.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from collideworld import Box, Circle, CollideWorldError, HalfPlane, Plane, Polygon, Sphere, World, collide
from collideworld.narrowphase import raycast_slots

from . import oracle

BACKENDS = ["numpy", "compiled"]
U32 = 0xFFFFFFFF


def _polygon(rng, r):
    k = int(rng.integers(3, 8))
    ang = np.sort(rng.uniform(0, 2 * np.pi, k))
    ang += np.arange(k) * 1e-3
    return (r * np.c_[np.cos(ang), np.sin(ang)]).tolist()


def _concave(r):
    return [[0, 0], [2 * r, 0], [2 * r, r], [r, r], [r, 2 * r], [0, 2 * r]]


def make_world(dim, backend, seed, n=200, span=40.0):
    """A random world plus its description as oracle data: {id: (kind, params, pos, rot)}."""
    rng = np.random.default_rng(seed)
    w = World(dim, backend=backend)
    spec = {}
    for i in range(n):
        big = rng.random() < 0.02
        size = rng.uniform(3.0, 8.0) if big else rng.uniform(0.2, 1.2)
        pos = rng.uniform(0, span, dim)
        cat = int(rng.choice([1, 1, 2]))
        mask = int(rng.choice([U32, U32, 1, 2]))
        kind = rng.choice(["ball", "box", "poly", "concave"] if dim == 2 else ["ball", "box"])
        if dim == 2:
            rot = float(rng.uniform(-np.pi, np.pi))
            if kind == "ball":
                shape, data = Circle(size), ("circle", size)
            elif kind == "box":
                h = (size, float(rng.uniform(0.2, 1.2)))
                shape, data = Box(h), ("box", h)
            elif kind == "poly":
                verts = _polygon(rng, size)
                shape, data = Polygon(verts), ("polygon", verts)
            else:
                verts = _concave(size)
                shape, data = Polygon(verts), ("polygon", verts)
            w.add(shape, pos, angle=rot, id=i, category=cat, mask=mask)
        else:
            q = rng.normal(size=4)
            rot = q / np.linalg.norm(q)
            if kind == "ball":
                shape, data = Sphere(size), ("sphere", size)
            else:
                h = tuple(float(x) for x in rng.uniform(0.2, 1.2, 3))
                h = (size,) + h[1:]
                shape, data = Box(h), ("box", h)
            w.add(shape, pos, quaternion=rot, id=i, category=cat, mask=mask)
        spec[i] = (data[0], data[1], pos, rot, cat, mask)
    if dim == 2:
        w.add(HalfPlane((0.0, 1.0), 0.5), id="ground", category=1)
        spec["ground"] = ("halfplane", ((0.0, 1.0), 0.5), None, None, 1, U32)
    else:
        w.add(Plane((0.0, 0.0, 1.0), 0.5), id="ground", category=1)
        spec["ground"] = ("plane", ((0.0, 0.0, 1.0), 0.5), None, None, 1, U32)
    return w, spec, rng


def move_some(w, spec, rng, frac=0.3, span=40.0):
    """Move a fraction of the finite bodies far (out of their fat boxes) without stepping."""
    dim = w.dim
    ids = [i for i in spec if i != "ground"]
    chosen = rng.choice(ids, int(len(ids) * frac), replace=False).tolist()
    for i in chosen:
        kind, params, _, rot, cat, mask = spec[i]
        pos = rng.uniform(0, span, dim)
        w.move(i, pos)
        spec[i] = (kind, params, pos, rot, cat, mask)
    return chosen


def passes(spec_entry, category, mask):
    cat, msk = spec_entry[4], spec_entry[5]
    return bool(cat & mask) and bool(category & msk)


def brute_shape(w, shape, pose, category=U32, mask=U32):
    """Ids, in add order, of the bodies ``collide()`` says the posed shape touches: every body tested."""
    out = []
    for i in w.ids():
        b = w.body(i)
        if not (b.category & mask and category & b.mask):
            continue
        bpose = None if b.shape.is_infinite else (b.position, b.angle if w.dim == 2 else b.quaternion)
        if collide(b.shape, bpose, shape, pose) is not None:
            out.append(i)
    return out


def _reach(kind, params):
    """Radius about the origin of a shape given as oracle data (inf for planes)."""
    if kind in ("circle", "sphere"):
        return float(params)
    if kind == "box":
        return float(np.linalg.norm(params))
    if kind == "polygon":
        return float(np.linalg.norm(np.asarray(params, float), axis=1).max())
    return math.inf


def oracle_judge(spec, query_geom, category=U32, mask=U32, centre=None, reach=math.inf):
    """(ids that must be reported, ids that may go either way) by the oracle.

    ``centre``/``reach``: a ball holding the query; bodies whose bounding balls
    are clearly apart from it are settled without the (slow, in 3D) oracle.
    """
    must, either = set(), set()
    for i, (kind, params, pos, rot, _, _) in spec.items():
        if not passes(spec[i], category, mask):
            continue
        if centre is not None and pos is not None and \
                np.linalg.norm(np.asarray(pos) - centre) > _reach(kind, params) + reach + 1e-6:
            continue
        g = oracle.geometry(kind, params, pos, rot)
        touching, ambiguous = oracle.pair_touching(g, query_geom)
        if ambiguous:
            either.add(i)
        elif touching:
            must.add(i)
    return must, either


def check_against_oracle(got, must, either):
    got = set(got)
    assert must <= got, f"missed {must - got}"
    assert got <= must | either, f"extra {got - must - either}"


def point_geom(dim, p):
    return ("circle" if dim == 2 else "sphere", np.asarray(p, float), 0.0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("moved", [False, True])
def test_query_point_and_points(backend, dim, moved):
    w, spec, rng = make_world(dim, backend, seed=dim * 7 + moved)
    w.step()
    if moved:
        move_some(w, spec, rng)
    pts = rng.uniform(-2, 42, (120, dim))
    # points on bodies' centres and right on a box corner: near-touching cases
    pts[:20] = [spec[i][2] for i in range(20)]
    idx, ids = w.query_points(pts)
    assert np.all(np.diff(idx) >= 0)
    for k, p in enumerate(pts):
        single = w.query_point(p)
        assert ids[idx == k].tolist() == single
        must, either = oracle_judge(spec, point_geom(dim, p), centre=p, reach=0.0)
        check_against_oracle(single, must, either)
    w.validate()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", [2, 3])
def test_query_points_filters(backend, dim):
    w, spec, rng = make_world(dim, backend, seed=11)
    pts = rng.uniform(-2, 42, (200, dim))
    for category, mask in ((1, U32), (2, 1), (U32, 2), (1, 0)):
        idx, ids = w.query_points(pts, category=category, mask=mask)
        for k, p in enumerate(pts):
            must, either = oracle_judge(spec, point_geom(dim, p), category, mask, centre=p, reach=0.0)
            check_against_oracle(ids[idx == k].tolist(), must, either)


def _probe_2d(rng):
    choice = rng.integers(0, 4)
    if choice == 0:
        r = float(rng.uniform(0.3, 2.0))
        return Circle(r), ("circle", r)
    if choice == 1:
        h = tuple(float(x) for x in rng.uniform(0.3, 2.0, 2))
        return Box(h), ("box", h)
    if choice == 2:
        v = _polygon(rng, float(rng.uniform(0.5, 2.0)))
        return Polygon(v), ("polygon", v)
    v = _concave(float(rng.uniform(0.5, 1.5)))
    return Polygon(v), ("polygon", v)


def _probe_3d(rng):
    if rng.random() < 0.5:
        r = float(rng.uniform(0.3, 2.0))
        return Sphere(r), ("sphere", r)
    h = tuple(float(x) for x in rng.uniform(0.3, 2.0, 3))
    return Box(h), ("box", h)


def _rotation(rng, dim):
    if dim == 2:
        return float(rng.uniform(-np.pi, np.pi))
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("moved", [False, True])
def test_query_shape_against_brute_force_and_oracle(backend, dim, moved):
    w, spec, rng = make_world(dim, backend, seed=100 + dim * 3 + moved)
    w.step()
    if moved:
        move_some(w, spec, rng)
    for _ in range(15):
        shape, data = (_probe_2d if dim == 2 else _probe_3d)(rng)
        pos, rot = rng.uniform(-2, 42, dim), _rotation(rng, dim)
        got = (w.query_shape(shape, pos, angle=rot) if dim == 2 else w.query_shape(shape, pos, quaternion=rot))
        assert got == brute_shape(w, shape, (pos, rot))
        must, either = oracle_judge(spec, oracle.geometry(data[0], data[1], pos, rot), centre=pos,
                                    reach=_reach(*data))
        check_against_oracle(got, must, either)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", [2, 3])
def test_query_shapes_batch_equals_singles(backend, dim):
    w, spec, rng = make_world(dim, backend, seed=200 + dim)
    w.step()
    move_some(w, spec, rng, frac=0.1)
    shape, _ = (_probe_2d if dim == 2 else _probe_3d)(rng)
    m = 60
    pos = rng.uniform(-2, 42, (m, dim))
    rots = [_rotation(rng, dim) for _ in range(m)]
    if dim == 2:
        idx, ids = w.query_shapes(shape, pos, angles=rots, category=1, mask=U32)
    else:
        idx, ids = w.query_shapes(shape, pos, quaternions=np.array(rots), category=1, mask=U32)
    for k in range(m):
        single = (w.query_shape(shape, pos[k], angle=rots[k], category=1) if dim == 2
                  else w.query_shape(shape, pos[k], quaternion=rots[k], category=1))
        assert ids[idx == k].tolist() == single
        if k % 4 == 0:
            assert single == brute_shape(w, shape, (pos[k], rots[k]), category=1)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", [2, 3])
def test_query_aabb_against_oracle(backend, dim):
    w, spec, rng = make_world(dim, backend, seed=300 + dim)
    w.step()
    move_some(w, spec, rng)
    for _ in range(20):
        lo = rng.uniform(-2, 40, dim)
        hi = lo + rng.uniform(0, 6, dim)
        got = w.query_aabb(lo, hi)
        h = tuple((hi - lo) / 2)
        g = oracle.geometry("box", h, (lo + hi) / 2, 0.0 if dim == 2 else np.array([1.0, 0, 0, 0]))
        must, either = oracle_judge(spec, g, centre=(lo + hi) / 2, reach=float(np.linalg.norm(hi - lo) / 2))
        check_against_oracle(got, must, either)


def brute_rays(w, origin, direction, max_distance, category=U32, mask=U32):
    """(id, distance) of every hit, testing every live body with the ray kernels."""
    st = w._store
    live = st.body_slots()  # a concave polygon's pieces are part slots: its body casts against all of them
    ok = ((st.category[live] & np.uint32(mask)) != 0) & ((np.uint32(category) & st.mask[live]) != 0)
    live = live[ok]
    d = np.asarray(direction, float) / np.linalg.norm(direction)
    dist, _ = raycast_slots(st, live, np.asarray(origin, float), d, max_distance)
    hit = np.isfinite(dist)
    return {st.ids[s]: float(t) for s, t in zip(live[hit], dist[hit], strict=True)}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("moved", [False, True])
def test_raycast_against_brute_force(backend, dim, moved):
    w, spec, rng = make_world(dim, backend, seed=400 + dim * 2 + moved)
    w.step()
    if moved:
        move_some(w, spec, rng)
    for k in range(40):
        o = rng.uniform(-5, 45, dim)
        d = rng.normal(size=dim)
        if k % 5 == 0:
            d[1:] = 0.0  # along an axis
        limit = math.inf if k % 2 else float(rng.uniform(1, 20))
        hits = w.raycast(o, d, limit)
        want = brute_rays(w, o, d, limit)
        got = {h.id: h.distance for h in hits}
        # the compiled backend casts balls and boxes with its own loops: the same arithmetic, to rounding
        assert got.keys() == want.keys()
        for i in got:
            assert got[i] == pytest.approx(want[i], rel=1e-12, abs=1e-12)
        assert [h.distance for h in hits] == sorted(h.distance for h in hits)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("moved", [False, True])
def test_raycast_many_against_brute_force(backend, dim, moved):
    w, spec, rng = make_world(dim, backend, seed=500 + dim * 2 + moved)
    w.step()
    if moved:
        move_some(w, spec, rng)
    m = 80
    o = rng.uniform(-5, 45, (m, dim))
    o[:10] = [spec[i][2] for i in range(10)]  # starting inside a body
    d = rng.normal(size=(m, dim))
    d[10:20, 1:] = 0.0
    for limit in (math.inf, 7.5):
        first = w.raycast_many(o, d, limit, category=1)
        every = w.raycast_many(o, d, limit, all_hits=True, category=1)
        assert np.all(np.diff(first.ray) > 0)
        for k in range(m):
            want = brute_rays(w, o[k], d[k], limit, category=1)
            rows = np.flatnonzero(every.ray == k)
            got = dict(zip(every.id[rows].tolist(), every.distance[rows].tolist(), strict=True))
            # each ray is cast in its own frame: distances agree to rounding
            assert got.keys() == want.keys()
            for i in got:
                assert got[i] == pytest.approx(want[i], rel=1e-9, abs=1e-9)
            row = np.flatnonzero(first.ray == k)
            if not want:
                assert len(row) == 0
                continue
            (r,) = row
            best = min(want.values())
            assert first.distance[r] == pytest.approx(best, rel=1e-9, abs=1e-9)
            assert want[first.id[r]] <= best + 1e-9
            unit = d[k] / np.linalg.norm(d[k])
            np.testing.assert_allclose(first.point[r], o[k] + unit * first.distance[r], atol=1e-9)
            assert np.linalg.norm(first.normal[r]) == pytest.approx(1.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_raycast_many_normals_match_single(backend):
    w, spec, rng = make_world(2, backend, seed=600)
    w.step()
    o = rng.uniform(-5, 45, (60, 2))
    d = rng.normal(size=(60, 2))
    many = w.raycast_many(o, d, all_hits=True)
    for k in range(60):
        single = w.raycast(o[k], d[k])
        rows = np.flatnonzero(many.ray == k)
        assert [h.id for h in single] == many.id[rows].tolist() or \
            np.allclose([h.distance for h in single], many.distance[rows], atol=1e-9)
        for h, r in zip(single, rows, strict=True):
            np.testing.assert_allclose(many.normal[r], h.normal, atol=1e-9)
            np.testing.assert_allclose(many.point[r], h.point, atol=1e-9)


@pytest.mark.parametrize("backend", BACKENDS)
def test_index_follows_changes(backend):
    # add, move, remove, compact, set_shape, move a plane: each query sees the world as it is now
    w = World(2, backend=backend)
    w.add_many(Circle(0.5), np.c_[np.arange(100.0) * 2, np.zeros(100)])
    assert w.query_point((10.0, 0.0)) == [5]
    w.move(5, (500.0, 500.0))
    assert w.query_point((10.0, 0.0)) == [] and w.query_point((500.0, 500.2)) == [5]
    w.step()
    assert w.query_point((500.0, 500.2)) == [5]
    w.remove(5)
    assert w.query_point((500.0, 500.2)) == []
    w.add(Box((1.0, 1.0)), (10.0, 0.0), id="crate")
    assert w.query_point((10.9, 0.9)) == ["crate"]
    w.set_shape("crate", Circle(0.2))
    assert w.query_point((10.9, 0.9)) == []
    w.remove_many(list(range(0, 100, 2)))
    w.compact()
    assert w.query_point((2.0, 0.0)) == [1] and w.query_point((4.0, 0.0)) == []
    w.add(HalfPlane((0.0, 1.0), -3.0), id="floor")
    assert w.query_point((0.0, -3.0)) == ["floor"]
    w.move("floor", offset=-10.0)
    assert w.query_point((0.0, -3.0)) == []
    assert [h.id for h in w.raycast((2.0, 5.0), (0.0, -1.0))] == [1, "floor"]
    w.validate()


def test_backends_agree():
    a, _, rng = make_world(2, "numpy", seed=700)
    b, _, _ = make_world(2, "compiled", seed=700)
    pts = rng.uniform(-2, 42, (300, 2))
    ra, rb = a.query_points(pts), b.query_points(pts)
    assert ra[0].tolist() == rb[0].tolist() and ra[1].tolist() == rb[1].tolist()
    d = rng.normal(size=(300, 2))
    ha, hb = a.raycast_many(pts, d), b.raycast_many(pts, d)
    assert ha.id.tolist() == hb.id.tolist()
    np.testing.assert_allclose(ha.distance, hb.distance, rtol=1e-12)


# -- bad input ---------------------------------------------------------------------------------

BAD_CALLS = [
    ("query_points", ([1.0, 2.0],), {}),
    ("query_points", ([[1.0, 2.0, 3.0]],), {}),
    ("query_points", ([[1.0, float("nan")]],), {}),
    ("query_points", ([[0.0, 0.0]],), {"category": -1}),
    ("query_points", ([[0.0, 0.0]],), {"mask": 1.5}),
    ("query_shapes", (Circle(1.0), [[0.0, 0.0]]), {"angles": [0.0, 1.0]}),
    ("query_shapes", (Circle(1.0), [[0.0, 0.0]]), {"quaternions": [[1.0, 0, 0, 0]]}),
    ("query_shapes", (Sphere(1.0), [[0.0, 0.0]]), {}),
    ("query_shapes", (HalfPlane((0.0, 1.0), 0.0), [[0.0, 0.0]]), {}),
    ("query_shapes", ("circle", [[0.0, 0.0]]), {}),
    ("raycast_many", ([[0.0, 0.0]], [[0.0, 0.0]]), {}),
    ("raycast_many", ([[0.0, 0.0]], [[1.0, 0.0], [1.0, 0.0]]), {}),
    ("raycast_many", ([[0.0, 0.0]], [[1.0, 0.0]]), {"max_distance": -1.0}),
    ("raycast_many", ([[0.0, 0.0]], [[1.0, 0.0]]), {"max_distance": float("nan")}),
    ("raycast_many", ([[0.0, 0.0]], [[1.0, 0.0]]), {"all_hits": "yes"}),
    ("raycast_many", ([[0.0, 0.0]], [[float("inf"), 0.0]]), {}),
]


@pytest.mark.parametrize("name,args,kwargs", BAD_CALLS)
def test_bad_input_raises_and_changes_nothing(name, args, kwargs):
    w = World(2)
    w.add_many(Circle(0.5), np.c_[np.arange(50.0), np.zeros(50)])
    w.step()
    before = (w.ids(), w.poses(w.ids())[0].copy(), w._store.version)
    with pytest.raises(CollideWorldError):
        getattr(w, name)(*args, **kwargs)
    assert (w.ids(), w._store.version) == (before[0], before[2])
    np.testing.assert_array_equal(w.poses(w.ids())[0], before[1])
    assert w.query_points([[3.0, 0.0]])[1].tolist() == [3]


def test_empty_batches_and_world():
    w = World(3)
    idx, ids = w.query_points(np.zeros((0, 3)))
    assert idx.shape == (0,) and ids.shape == (0,)
    h = w.raycast_many(np.zeros((2, 3)), [[1.0, 0, 0], [0, 0, 1.0]])
    assert h.ray.shape == (0,) and h.point.shape == (0, 3)
    assert w.query_shapes(Sphere(1.0), np.zeros((0, 3)))[0].shape == (0,)
    w.add(Plane((0.0, 0.0, 1.0), 0.0), id="ground")
    h = w.raycast_many([[0.0, 0, 5]], [[0.0, 0, -1]])
    assert h.id.tolist() == ["ground"] and h.distance.tolist() == [5.0]


@pytest.mark.parametrize("dim", [2, 3])
def test_raycast_many_compiled_walk_matches_numpy(dim):
    # balls and boxes only (no polygons): the compiled backend's first hits come from one
    # walk per ray that stops early; the numpy backend's from stretches of exact casts
    rng = np.random.default_rng(40 + dim)
    worlds = []
    for backend in BACKENDS:
        w = World(dim, backend=backend)
        r = np.random.default_rng(41 + dim)
        n = 400
        pos = r.uniform(0, 40, (n, dim))
        w.add_many(Circle(0.6) if dim == 2 else Sphere(0.6), pos[: n // 2])
        w.add_many(Box((0.5,) * dim), pos[n // 2:], **({"angles": r.uniform(-3, 3, n // 2)} if dim == 2 else {}))
        w.add(Box((6.0,) * dim), np.full(dim, 20.0), id="tower")  # on the big list
        # near-touching: boxes edge to edge along x, rays along their shared faces
        for k in range(6):
            w.add(Box((0.5,) * dim), np.r_[50.0 + k, np.zeros(dim - 1)], id=f"row{k}")
        w.add(HalfPlane((0.0, 1.0), -2.0) if dim == 2 else Plane((0.0, 0.0, 1.0), -2.0), id="floor")
        w.step()
        w.move_many(list(range(0, 50)), pos[:50] + 3.0)  # stale boxes
        worlds.append(w)
    m = 300
    o = rng.uniform(-5, 45, (m, dim))
    d = rng.normal(size=(m, dim))
    o[:10] = np.r_[45.0, 0.5, np.zeros(dim - 2)][:dim]
    d[:10] = np.r_[1.0, np.zeros(dim - 1)]
    o[10:20] = np.r_[45.0, -0.5, np.zeros(dim - 2)][:dim]
    d[10:20] = np.r_[1.0, np.zeros(dim - 1)]
    for k in range(0, m, 15):  # single rays: every hit, compiled casts against numpy's kernels
        ha, hb = (w.raycast(o[k], d[k], 30.0) for w in worlds)
        assert [h.id for h in ha] == [h.id for h in hb]
        np.testing.assert_allclose([h.distance for h in ha], [h.distance for h in hb], rtol=1e-12, atol=1e-12)
        for x, y in zip(ha, hb, strict=True):
            np.testing.assert_allclose(x.normal, y.normal, atol=1e-12)
    for limit in (math.inf, 6.0):
        a, b = (w.raycast_many(o, d, limit) for w in worlds)
        assert a.ray.tolist() == b.ray.tolist() and a.id.tolist() == b.id.tolist()
        np.testing.assert_allclose(a.distance, b.distance, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(a.normal, b.normal, atol=1e-12)
        for k in range(0, m, 7):
            want = brute_rays(worlds[1], o[k], d[k], limit)
            row = np.flatnonzero(b.ray == k)
            assert len(row) == (1 if want else 0)
            if want:
                assert b.distance[row[0]] == pytest.approx(min(want.values()), abs=1e-9)
