"""Single raycasts (``World.raycast``) in worlds of every kind the batched first-hit walk casts (issue 28).

The compiled single-ray kernel (``compiled.queries._ray_one``) casts
capsules, segments, simple polygons and compounds of these (a world's
concave polygon is one) itself, as ``raycast_many``'s walk does, so a
raycast in such a world leaves nothing to Python: ``queries.cast_left`` is
never called (counted here by a wrapper). Worlds: 2D circles, boxes, convex
polygons, concave L, capsules, segments, compounds (two circles; circle, box
and capsule; two convex polygons), a half-plane; 3D spheres, boxes,
capsules, segments, compounds, a plane. References:

* brute force: each live body's numpy ray kernel (``raycast_slots``), no
  index, filtered and sorted by distance then add order;
* shapely (2D): where the ray's segment first meets each body's outline
  (circles and capsules as 256-gons, compounds as the union of their parts);
* the numpy backend (same ids in the same order, distances, normals and
  points to rounding);
* ``cast_left`` on the body hit (the path these bodies took before): the same
  bits.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString

import collideworld.queries as cq
from collideworld import Box, Capsule, Circle, Compound, HalfPlane, Plane, Polygon, Segment, Sphere, World
from collideworld.narrowphase import raycast_slots

U32 = 0xFFFFFFFF
KINDS = {2: ["circle", "box", "poly", "concave", "capsule", "segment", "pair", "mixed", "polys"],
         3: ["sphere", "box", "capsule", "segment", "pair", "mixed"]}
SPAN = {2: 30.0, 3: 12.0}
L_SHAPE = [[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2]]


def _shape(rng, kind, dim):
    s = float(rng.uniform(0.3, 1.5))
    zero = (0.0,) * dim
    along = (s,) + (0.0,) * (dim - 1)
    ball = Circle if dim == 2 else Sphere
    if kind in ("circle", "sphere"):
        return ball(s)
    if kind == "box":
        return Box(tuple(rng.uniform(0.2, 1.5, dim)))
    if kind == "poly":
        k = int(rng.integers(3, 8))
        ang = np.sort(rng.uniform(0, 2 * np.pi, k)) + np.arange(k) * 1e-3
        return Polygon((s * np.c_[np.cos(ang), np.sin(ang)]).tolist())
    if kind == "concave":
        return Polygon((s * np.array(L_SHAPE, float)).tolist())
    if kind == "capsule":
        return Capsule(tuple(-rng.uniform(0.2, 1, dim)), tuple(rng.uniform(0.2, 1, dim)), s / 2)
    if kind == "segment":
        return Segment(tuple(-rng.uniform(0.2, 1, dim)), tuple(rng.uniform(0.2, 1, dim)))
    if kind == "pair":  # the RTS frame's units: two circles
        return Compound([(ball(s / 2), zero), (ball(s / 3), along)])
    if kind == "mixed":
        return Compound([(ball(s / 2), zero), (Box((s / 2,) * dim), along),
                         (Capsule(zero, (0.0, s) + (0.0,) * (dim - 2), s / 4), tuple(-c for c in along))])
    # two convex polygons, one turned (a compound's concave part is a polygon that is not simple: left to
    # cast_left by the batched walk and the single kernel alike)
    tri = Polygon((s * np.array([[0, 0], [2, 0], [0.5, 1.5]])).tolist())
    quad = Polygon((s * np.array([[0, 0], [1, -0.2], [1.3, 1], [-0.1, 0.8]])).tolist())
    return Compound([(tri, (0.0, 0.0)), (quad, (2.5 * s, 0.0), 1.0)])


def make_world(dim, backend, seed, n=180):
    rng = np.random.default_rng(seed)
    w = World(dim, backend=backend)
    kinds = KINDS[dim]
    for i in range(n):
        pos = rng.uniform(0, SPAN[dim], dim)
        cat = int(rng.choice([1, 1, 2]))
        mask = int(rng.choice([U32, U32, 1, 2]))
        shape = _shape(rng, kinds[i % len(kinds)], dim)
        if dim == 2:
            w.add(shape, pos, angle=float(rng.uniform(-np.pi, np.pi)), id=i, category=cat, mask=mask)
        else:
            q = rng.normal(size=4)
            w.add(shape, pos, quaternion=q / np.linalg.norm(q), id=i, category=cat, mask=mask)
    w.add(HalfPlane((0.0, 1.0), -2.0) if dim == 2 else Plane((0.0, 0.0, 1.0), -2.0), id="ground", category=1)
    return w, rng


def _rays(rng, dim, m, w=None):
    """Random rays across the world; with ``w``, every third aimed at a random body's position (through
    the thin segments too)."""
    o = rng.uniform(-5, SPAN[dim] + 5, (m, dim))
    target = rng.uniform(0, SPAN[dim], (m, dim))
    if w is not None:
        at = np.arange(0, m, 3)
        st = w._store
        slots = rng.choice(st.body_slots(), len(at))
        target[at] = st.position[slots]
        caps = np.flatnonzero(st.kind[slots] == 4)  # capsules and segments: the middle of their axis
        p0, p1, _ = st.capsule_rows(slots[caps])
        target[at[caps]] = 0.5 * (p0 + p1)
    d = target - o
    return o, d / np.linalg.norm(d, axis=1)[:, None]


def brute(w, o, d, limit, category=U32, mask=U32):
    """(id, distance, normal, point) of every hit: every live body cast by its numpy kernel, no index."""
    st = w._store
    live = st.body_slots()
    dist, normal = raycast_slots(st, live, np.asarray(o, float), np.asarray(d, float), limit)
    ok = np.isfinite(dist) & ((st.category[live] & mask) != 0) & ((category & st.mask[live]) != 0)
    live, dist, normal = live[ok], dist[ok], normal[ok]
    order = np.lexsort((st.serial[live], dist))
    return [(st.ids[live[k]], float(dist[k]), normal[k], o + d * dist[k]) for k in order]


def _same(hits, want, atol=1e-9):
    assert [h.id for h in hits] == [x[0] for x in want]
    for h, (_, dist, normal, point) in zip(hits, want, strict=True):
        assert abs(h.distance - dist) <= atol * max(1.0, abs(dist))
        assert np.allclose(h.normal, normal, atol=1e-7)
        assert np.allclose(h.point, point, atol=1e-7 * max(1.0, abs(dist)))


@pytest.fixture
def left_casts(monkeypatch):
    """How many bodies went to ``queries.cast_left`` (the Python-side casts of what the kernel left)."""
    count = [0]
    original = cq.cast_left

    def counting(store, slots, *args):
        count[0] += len(slots)
        return original(store, slots, *args)

    monkeypatch.setattr(cq, "cast_left", counting)
    return count


@pytest.mark.parametrize("dim", [2, 3])
def test_single_rays_cast_every_walk_kind_in_the_kernel(dim, left_casts):
    """First hit and every hit agree with brute force and the numpy backend, nothing is cast in Python."""
    wc, rng = make_world(dim, "compiled", 20 + dim)
    wn, _ = make_world(dim, "numpy", 20 + dim)
    o, d = _rays(rng, dim, 240, wc)
    cq.numpy_path_counts(reset=True)
    hit_kinds = set()
    n_first = n_every = 0
    for k in range(len(o)):
        limit = float(rng.choice([np.inf, 12.0]))
        cat, msk = [(U32, U32), (U32, U32), (1, U32), (U32, 2)][k % 4]
        want = brute(wc, o[k], d[k], limit, cat, msk)
        every = wc.raycast(o[k], d[k], limit, category=cat, mask=msk)
        first = wc.raycast(o[k], d[k], limit, all_hits=False, category=cat, mask=msk)
        _same(every, want)
        _same(first, want[:1])
        for w_hits, n_hits in ((every, wn.raycast(o[k], d[k], limit, category=cat, mask=msk)),
                               (first, wn.raycast(o[k], d[k], limit, all_hits=False, category=cat, mask=msk))):
            _same(w_hits, [(h.id, h.distance, h.normal, h.point) for h in n_hits])
        n_first += len(first)
        n_every += len(every)
        hit_kinds.update(KINDS[dim][h.id % len(KINDS[dim])] if h.id != "ground" else "ground" for h in every)
    assert n_first > 120 and n_every > 300
    assert hit_kinds == set(KINDS[dim]) | {"ground"}
    assert left_casts[0] == 0
    assert cq.numpy_path_counts() == {}


@pytest.mark.parametrize("dim", [2, 3])
def test_single_rays_same_bits_as_cast_left(dim):
    """Each hit's distance and normal are cast_left's for that body (the path before): the same bits."""
    w, rng = make_world(dim, "compiled", 40 + dim)
    st = w._store
    o, d = _rays(rng, dim, 150)
    slot_of = {i: s for s, i in zip(st.body_slots().tolist(), [st.ids[s] for s in st.body_slots()], strict=True)}
    checked = 0
    for k in range(len(o)):
        hits = w.raycast(o[k], d[k], 40.0)
        if not hits:
            continue
        slots = np.array([slot_of[h.id] for h in hits], dtype=np.int64)
        m = len(slots)
        # the unit direction as World.raycast makes it (Python floats, summed in axis order)
        dv = d[k].tolist()
        length = math.sqrt(sum(c * c for c in dv))
        unit = np.array([c / length for c in dv])
        dist, normal = cq.cast_left(st, slots, np.tile(o[k], (m, 1)), np.tile(unit, (m, 1)), np.full(m, 40.0),
                                    "raycast")
        assert [h.distance for h in hits] == dist.tolist()
        assert np.array_equal(np.array([h.normal for h in hits]), normal)
        checked += m
    assert checked > 200


def _outline(w, i):
    """Body ``i`` of a 2D world as a shapely geometry (circles and capsules as 256-gons, compounds as unions)."""
    b = w.body(i)
    if b.shape.is_infinite:
        return None
    return _posed(b.shape, np.asarray(b.position, float), float(b.angle))


def _posed(sh, p, a):
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    if isinstance(sh, Compound):
        return shapely.union_all([_posed(part, p + rot @ np.asarray(at, float), a + float(turn))
                                  for part, at, turn in sh.parts])
    if isinstance(sh, Circle):
        return shapely.Point(p).buffer(sh.radius, 64)
    if isinstance(sh, Box):
        hx, hy = sh.half_extents
        return shapely.Polygon(np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]]) @ rot.T + p)
    if isinstance(sh, Polygon):
        return shapely.Polygon(np.asarray(sh.vertices, float) @ rot.T + p)
    seg = LineString(np.array([sh.p0, sh.p1], float) @ rot.T + p)
    return seg if sh.radius == 0 else seg.buffer(sh.radius, 64)


def test_2d_single_first_hits_agree_with_shapely(left_casts):
    """2D: the first hit's distance is where shapely's intersection of the ray's segment with the outline starts,
    and no body's outline meets the segment nearer (by more than the polygonisation's tolerance)."""
    w, rng = make_world(2, "compiled", 61)
    outlines = [_outline(w, i) for i in range(180)]
    o, d = _rays(rng, 2, 200)
    agree = 0
    for k in range(len(o)):
        hits = w.raycast(o[k], d[k], 60.0, all_hits=False)
        if not hits or hits[0].id == "ground":
            continue
        seg = LineString([o[k], o[k] + 60.0 * d[k]])
        near = np.inf
        for g in outlines:
            cut = seg.intersection(g)
            if not cut.is_empty:
                t = float(((shapely.get_coordinates(cut) - o[k]) @ d[k]).min())
                near = min(near, max(t, 0.0))
        # a 256-gon lies inside its circle by r (1 - cos(pi / 256)) < 1e-4 r
        assert abs(near - hits[0].distance) < 2e-3 * (1 + near)
        agree += 1
    assert agree > 100
    assert left_casts[0] == 0


@pytest.mark.parametrize("dim", [2, 3])
def test_masked_out_compounds_and_polygons_cost_no_cast(dim, left_casts):
    """Circles among compounds, L polygons and capsules the query's mask leaves out: only the circles answer."""
    rng = np.random.default_rng(5)
    w = World(dim, backend="compiled")
    kinds = KINDS[dim]
    for i in range(300):
        kind = "circle" if i % 2 else kinds[2 + i % (len(kinds) - 2)]
        if kind == "circle" and dim == 3:
            kind = "sphere"
        w.add(_shape(rng, kind, dim), rng.uniform(0, SPAN[dim], dim), id=i, category=1 if i % 2 else 2)
    o, d = _rays(rng, dim, 100)
    for k in range(len(o)):
        for all_hits in (True, False):
            got = w.raycast(o[k], d[k], all_hits=all_hits, mask=1)
            want = brute(w, o[k], d[k], np.inf, mask=1)
            _same(got, want if all_hits else want[:1])
            assert all(h.id % 2 for h in got)
    assert left_casts[0] == 0
