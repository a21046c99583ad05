"""Rays in worlds holding every shape kind: compiled answers against the numpy backend and brute force.

Every ray query (``raycast`` all hits and first hit, ``raycast_many`` first
and all hits, with filters, with one limit or one per ray) in worlds of
every kind (2D: circles, boxes, convex and concave polygons, capsules,
segments, compounds, a half-plane; 3D: spheres, boxes, capsules, segments,
hulls, compounds, a plane). References:

* brute force: the narrowphase's ray kernel of each body over every live
  body, without the index (``raycast_slots``), filtered and sorted by
  distance then add order;
* shapely (2D): the first point where the ray's segment meets each body's
  polygonised outline (circles and capsules as fine polygons), to the
  polygonisation's tolerance.

And the compiled backend must answer them without the numpy path, for the
whole query or for some of its bodies (``collideworld.queries.numpy_path_counts``).
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString

from collideworld import (
    Box,
    Capsule,
    Circle,
    Compound,
    ConvexHull,
    HalfPlane,
    InvalidArgumentError,
    Plane,
    Polygon,
    Segment,
    Sphere,
    World,
)
from collideworld.narrowphase import raycast_slots
from collideworld.queries import numpy_path_counts

U32 = 0xFFFFFFFF
KINDS_2D = ["circle", "box", "poly", "concave", "capsule", "segment", "compound"]
KINDS_3D = ["sphere", "box", "capsule", "segment", "hull", "compound"]
SPAN = {2: 30.0, 3: 12.0}


def _shape(rng, kind, dim):
    s = float(rng.uniform(0.3, 1.5))
    if kind in ("circle", "sphere"):
        return Circle(s) if dim == 2 else Sphere(s)
    if kind == "box":
        return Box(tuple(rng.uniform(0.2, 1.5, dim)))
    if kind == "poly":
        k = int(rng.integers(3, 8))
        ang = np.sort(rng.uniform(0, 2 * np.pi, k)) + np.arange(k) * 1e-3
        return Polygon((s * np.c_[np.cos(ang), np.sin(ang)]).tolist())
    if kind == "concave":
        return Polygon([[0, 0], [2 * s, 0], [2 * s, s], [s, s], [s, 2 * s], [0, 2 * s]])
    if kind == "capsule":
        return Capsule(tuple(-rng.uniform(0.2, 1, dim)), tuple(rng.uniform(0.2, 1, dim)), s / 2)
    if kind == "segment":
        return Segment(tuple(-rng.uniform(0.2, 1, dim)), tuple(rng.uniform(0.2, 1, dim)))
    if kind == "hull":
        return ConvexHull(rng.normal(size=(12, 3)) * s)
    part = Circle(s / 2) if dim == 2 else Sphere(s / 2)
    return Compound([(part, (0.0,) * dim), (Box((s / 2,) * dim), (s,) + (0.0,) * (dim - 1)),
                     (Capsule((0.0,) * dim, (0.0, s) + (0.0,) * (dim - 2), s / 4), (-s,) + (0.0,) * (dim - 1))])


def make_world(dim, backend, seed, n=160, far=False):
    """Every kind, random poses and filters, a half-plane / plane; ``far``: the other kinds far from the rays
    (and no half-plane)."""
    rng = np.random.default_rng(seed)
    span = SPAN[dim]
    w = World(dim, backend=backend)
    kinds = KINDS_2D if dim == 2 else KINDS_3D
    for i in range(n):
        kind = kinds[i % len(kinds)]
        pos = rng.uniform(0, span, dim)
        if far and kind not in ("circle", "sphere", "box"):
            pos = pos + 1000.0
        cat = int(rng.choice([1, 1, 2]))
        mask = int(rng.choice([U32, U32, 1, 2]))
        if dim == 2:
            w.add(_shape(rng, kind, dim), pos, angle=float(rng.uniform(-np.pi, np.pi)), id=i, category=cat,
                  mask=mask)
        else:
            q = rng.normal(size=4)
            w.add(_shape(rng, kind, dim), pos, quaternion=q / np.linalg.norm(q), id=i, category=cat, mask=mask)
    if far:
        return w, rng
    if dim == 2:
        w.add(HalfPlane((0.0, 1.0), -2.0), id="ground", category=1)
    else:
        w.add(Plane((0.0, 0.0, 1.0), -2.0), id="ground", category=1)
    return w, rng


def _rays(rng, dim, m):
    span = SPAN[dim]
    o = rng.uniform(-5, span + 5, (m, dim))
    target = rng.uniform(0, span, (m, dim))
    d = target - o
    d /= np.linalg.norm(d, axis=1)[:, None]
    return o, d


def brute(w, o, d, limit, category=U32, mask=U32):
    """(id, distance, normal) of every hit, every live body cast by its own kernel, no index."""
    st = w._store
    live = st.body_slots()
    dist, normal = raycast_slots(st, live, np.asarray(o, float), np.asarray(d, float), limit)
    ok = np.isfinite(dist) & (((st.category[live] & mask) != 0) & ((category & st.mask[live]) != 0))
    live, dist, normal = live[ok], dist[ok], normal[ok]
    order = np.lexsort((st.serial[live], dist))
    return [(st.ids[live[k]], float(dist[k]), normal[k]) for k in order]


def _same(hits, want, atol=1e-9):
    assert [h[0] for h in hits] == [h[0] for h in want]
    for h, x in zip(hits, want, strict=True):
        assert abs(h[1] - x[1]) <= atol * max(1.0, abs(x[1]))
        assert np.allclose(h[2], x[2], atol=1e-7)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_single_rays_every_kind_agree_with_numpy_and_brute_force(dim, seed):
    wc, rng = make_world(dim, "compiled", seed)
    wn, _ = make_world(dim, "numpy", seed)
    o, d = _rays(rng, dim, 40)
    numpy_path_counts(reset=True)
    checked = 0
    for k in range(len(o)):
        limit = float(rng.choice([np.inf, 12.0]))
        cat, msk = [(U32, U32), (1, U32), (U32, 2)][k % 3]
        want = brute(wc, o[k], d[k], limit, cat, msk)
        for w in (wc, wn):
            every = [(h.id, h.distance, h.normal) for h in w.raycast(o[k], d[k], limit, category=cat, mask=msk)]
            _same(every, want)
            first = [(h.id, h.distance, h.normal) for h in w.raycast(o[k], d[k], limit, all_hits=False,
                                                                     category=cat, mask=msk)]
            _same(first, want[:1])
        checked += len(want)
    assert checked > 60
    assert numpy_path_counts() == {}


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("per_ray", [False, True])
def test_raycast_many_every_kind_agrees_with_numpy_and_brute_force(dim, per_ray):
    wc, rng = make_world(dim, "compiled", 7 + dim)
    wn, _ = make_world(dim, "numpy", 7 + dim)
    o, d = _rays(rng, dim, 300)
    limit = rng.choice([np.inf, 5.0, 15.0, 0.0], len(o)) if per_ray else 14.0
    numpy_path_counts(reset=True)
    for cat, msk in [(U32, U32), (1, U32), (U32, 2)]:
        for w in (wc, wn):
            first = w.raycast_many(o, d, limit, category=cat, mask=msk)
            every = w.raycast_many(o, d, limit, all_hits=True, category=cat, mask=msk)
            n_first = 0
            for k in range(len(o)):
                lim = float(limit[k]) if per_ray else limit
                want = brute(wc, o[k], d[k], lim, cat, msk)
                rows = np.flatnonzero(every.ray == k)
                # each ray is cast in its own frame: distances agree to rounding
                _same([(every.id[r], every.distance[r], every.normal[r]) for r in rows], want, atol=1e-7)
                rows = np.flatnonzero(first.ray == k)
                _same([(first.id[r], first.distance[r], first.normal[r]) for r in rows], want[:1], atol=1e-7)
                n_first += len(want) > 0
            assert n_first > 50
    assert numpy_path_counts() == {}


@pytest.mark.parametrize("dim", [2, 3])
def test_far_bodies_of_other_kinds_leave_rays_compiled(dim):
    """Far (or filtered out) polygons, capsules, hulls and compounds: the rays stay on the compiled path."""
    w, rng = make_world(dim, "compiled", 3, far=True)
    o, d = _rays(rng, dim, 30)
    numpy_path_counts(reset=True)
    for k in range(len(o)):
        _same([(h.id, h.distance, h.normal) for h in w.raycast(o[k], d[k], 200.0)], brute(w, o[k], d[k], 200.0))
    w.raycast_many(o, d, 200.0)
    w.raycast_many(o, d, 200.0, all_hits=True)
    assert numpy_path_counts() == {}


def _outline(w, i):
    """Body ``i`` of a 2D world as a shapely geometry (circles and capsules as 256-gons)."""
    b = w.body(i)
    if b.shape.is_infinite:
        return None
    sh, p, a = b.shape, np.asarray(b.position, float), float(b.angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])

    def posed(local):
        return shapely.Polygon(np.asarray(local, float) @ rot.T + p)

    if isinstance(sh, Circle):
        return shapely.Point(p).buffer(sh.radius, 64)
    if isinstance(sh, Box):
        hx, hy = sh.half_extents
        return posed([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
    if isinstance(sh, Polygon):
        return posed(sh.vertices)
    if isinstance(sh, (Capsule, Segment)):
        seg = LineString(np.array([sh.p0, sh.p1], float) @ rot.T + p)
        return seg if sh.radius == 0 else seg.buffer(sh.radius, 64)
    return None


def test_2d_first_hits_agree_with_shapely():
    """2D: the distance to the first hit of each body agrees with shapely's intersection of the ray's segment."""
    w, rng = make_world(2, "compiled", 11)
    o, d = _rays(rng, 2, 60)
    agree = 0
    for k in range(len(o)):
        for h in w.raycast(o[k], d[k], 60.0):
            g = _outline(w, h.id)
            if g is None:
                continue
            seg = LineString([o[k], o[k] + 60.0 * d[k]])
            cut = seg.intersection(g)
            assert not cut.is_empty
            pts = np.array(shapely.get_coordinates(cut))
            t = float(((pts - o[k]) @ d[k]).min())
            # a 256-gon is inside the circle by r (1 - cos(pi / 256)) < 1e-4 r
            assert abs(max(t, 0.0) - h.distance) < 2e-3 * (1 + abs(t))
            agree += 1
    assert agree > 50


def test_scratch_codes_agree():
    from collideworld import queries as q
    from collideworld.compiled import queries as cq

    assert (q._RAY_OTHERS, q._RAY_OTHER_COUNT) == (cq.RAY_OTHERS, cq.RAY_OTHER_COUNT)


def _loop_reference(w, o, d, limits, all_hits):
    rows = []
    for k in range(len(o)):
        h = w.raycast_many(o[k:k + 1], d[k:k + 1], float(limits[k]), all_hits=all_hits)
        rows += [(k, i, t) for i, t in zip(h.id.tolist(), h.distance.tolist(), strict=True)]
    return rows


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
@pytest.mark.parametrize("dim", [2, 3])
def test_per_ray_max_distance_equals_a_loop_of_single_limits(backend, dim):
    w, rng = make_world(dim, backend, 21 + dim)
    o, d = _rays(rng, dim, 150)
    limits = rng.choice([0.0, 2.0, 7.5, 20.0, np.inf], len(o))
    for all_hits in (False, True):
        h = w.raycast_many(o, d, limits, all_hits=all_hits)
        got = list(zip(h.ray.tolist(), h.id.tolist(), h.distance.tolist(), strict=True))
        want = _loop_reference(w, o, d, limits, all_hits)
        assert [g[:2] for g in got] == [x[:2] for x in want]
        assert np.allclose([g[2] for g in got], [x[2] for x in want], rtol=0, atol=1e-9)
        assert all(t <= limits[k] for k, _, t in got)
        assert len(got) > 30


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
@pytest.mark.parametrize("bad, says", [
    (np.ones(3), "shape (3,)"),
    (np.ones((4, 1)), "shape (4, 1)"),
    ([1.0, -1.0, 2.0, 3.0], "max_distance[1] = -1.0"),
    ([1.0, 2.0, np.nan, 3.0], "max_distance[2] = nan"),
    (["a", "b", "c", "d"], "got ['a'"),
    (np.array([True, False, True, True]), "booleans"),
])
def test_per_ray_max_distance_bad_inputs(backend, bad, says):
    w = World(2, backend=backend)
    w.add(Circle(1.0), (5.0, 0.0), id="c")
    before = (w.ids(), w._store.version)
    with pytest.raises(InvalidArgumentError) as err:
        w.raycast_many(np.zeros((4, 2)), np.tile([1.0, 0.0], (4, 1)), bad)
    assert says in str(err.value)
    assert (w.ids(), w._store.version) == before
    assert w.raycast_many(np.zeros((4, 2)), np.tile([1.0, 0.0], (4, 1)), [3.0, 4.0, np.inf, 10]).ray.tolist() == [
        1, 2, 3]


@pytest.mark.parametrize("dim", [2, 3])
def test_compiled_capsule_rows_agree_with_raycast_capsule(dim):
    """The compiled capsule cast (the rays' settle of capsules and segments) against the numpy kernel, row by row:
    random capsules and segments, rays aimed at their ends, sides and past them, origins inside, limits."""
    from collideworld.geometry.raycast import raycast_capsule
    from collideworld.spatial.compiled import cast_capsule_rows

    rng = np.random.default_rng(40 + dim)
    n = 3000
    p0 = rng.uniform(-3, 3, (n, dim))
    p1 = p0 + rng.uniform(-2, 2, (n, dim)) * (rng.random(n) > 0.05)[:, None]  # some with p0 == p1
    radius = rng.uniform(0.0, 1.0, n) * (rng.random(n) > 0.3)  # 30 % segments
    target = p0 + rng.uniform(0, 1, n)[:, None] * (p1 - p0) + rng.normal(0, 0.7, (n, dim))
    o = rng.uniform(-8, 8, (n, dim))
    o[::10] = target[::10]  # origins near or inside
    d = target - o + (np.linalg.norm(target - o, axis=1) == 0)[:, None]
    d /= np.linalg.norm(d, axis=1)[:, None]
    limit = rng.choice([np.inf, 3.0, 0.0], n)
    dist, normal = cast_capsule_rows(p0, p1, radius, o, d, limit)
    hits = 0
    for k in range(n):
        r = raycast_capsule(o[k], d[k], limit[k], p0[k:k + 1], p1[k:k + 1], radius[k:k + 1])
        want = r.distance[0] if r.hit[0] else np.inf
        assert (dist[k] == np.inf) == (want == np.inf), k
        if want < np.inf:
            assert abs(dist[k] - want) <= 1e-12 * max(1.0, abs(want)), k
            assert np.allclose(normal[k], r.normal[0], atol=1e-12), k
            hits += 1
    assert hits > n // 10


def test_compiled_polygon_rows_agree_with_raycast_polygon():
    """The compiled convex polygon cast against the numpy kernel, row by row: random convex polygons (some with
    repeated vertices), rays aimed at them, grazing their vertices and edges, origins inside, limits."""
    from collideworld.geometry.raycast import raycast_polygon
    from collideworld.spatial.compiled import cast_polygon_rows

    rng = np.random.default_rng(77)
    n, kmax = 3000, 7
    verts = np.empty((n, kmax, 2))
    for k in range(n):
        m = int(rng.integers(3, kmax + 1))
        ang = np.sort(rng.uniform(0, 2 * np.pi, m)) + np.arange(m) * 1e-3
        v = rng.uniform(-4, 4, 2) + rng.uniform(0.2, 2) * np.c_[np.cos(ang), np.sin(ang)]
        verts[k] = np.concatenate([v, np.repeat(v[-1:], kmax - m, axis=0)])
    target = verts[np.arange(n), rng.integers(0, kmax, n)] + rng.normal(0, 0.3, (n, 2)) * (rng.random(n) > 0.2)[:,
                                                                                                                 None]
    o = rng.uniform(-9, 9, (n, 2))
    o[::10] = verts[::10].mean(axis=1)  # inside
    d = target - o + (np.linalg.norm(target - o, axis=1) == 0)[:, None]
    d /= np.linalg.norm(d, axis=1)[:, None]
    limit = rng.choice([np.inf, 4.0, 0.0], n)
    dist, normal = cast_polygon_rows(verts, o, d, limit)
    hits = 0
    for k in range(n):
        r = raycast_polygon(o[k], d[k], limit[k], verts[k:k + 1])
        want = r.distance[0] if r.hit[0] else np.inf
        assert (dist[k] == np.inf) == (want == np.inf), k
        if want < np.inf:
            assert abs(dist[k] - want) <= 1e-12 * max(1.0, abs(want)), k
            assert np.allclose(normal[k], r.normal[0], atol=1e-12), k
            hits += 1
    assert hits > n // 4


def _rows_agree(dist, normal, numpy_rows):
    hits = 0
    for k, r in enumerate(numpy_rows):
        want = r.distance[0] if r.hit[0] else np.inf
        assert (dist[k] == np.inf) == (want == np.inf), k
        if want < np.inf:
            assert abs(dist[k] - want) <= 1e-12 * max(1.0, abs(want)), k
            assert np.allclose(normal[k], r.normal[0], atol=1e-12), k
            hits += 1
    return hits


def test_compiled_hull_rows_agree_with_raycast_hull():
    """The compiled hull cast against the numpy kernel, row by row: random 20-point hulls at random poses."""
    from collideworld.bodies import BodyStore
    from collideworld.geometry.raycast import raycast_hull
    from collideworld.spatial.compiled import cast_hull_rows

    rng = np.random.default_rng(5)
    n = 600
    store = BodyStore(3)
    s = store.allocate(n)
    store.set_shapes(s, [ConvexHull(rng.normal(size=(20, 3))) for _ in range(n)])
    q = rng.normal(size=(n, 4))
    store.set_poses(s, rng.uniform(-5, 5, (n, 3)), quaternion=q / np.linalg.norm(q, axis=1)[:, None])
    h = store.hull[s]
    c, rot = store.position[s], store.rotation[s]
    nrm, off, reach = store.hulls.normals[h], store.hulls.offsets[h], store.hulls.reach[h]
    o = rng.uniform(-9, 9, (n, 3))
    o[::10] = c[::10]
    d = c + rng.normal(0, 1.0, (n, 3)) - o
    d /= np.linalg.norm(d, axis=1)[:, None]
    limit = rng.choice([np.inf, 6.0, 0.0], n)
    dist, normal = cast_hull_rows(c, rot, nrm, off, reach, o, d, limit)
    rows = [raycast_hull(o[k], d[k], limit[k], c[k:k + 1], rot[k:k + 1], nrm[k:k + 1], off[k:k + 1],
                         reach[k:k + 1]) for k in range(n)]
    assert _rows_agree(dist, normal, rows) > n // 4


@pytest.mark.parametrize("dim", [2, 3])
def test_compiled_halfspace_rows_agree_with_raycast_halfspace(dim):
    from collideworld.geometry.raycast import raycast_halfspace
    from collideworld.spatial.compiled import cast_halfspace_rows

    rng = np.random.default_rng(9 + dim)
    n = 2000
    nrm = rng.normal(size=(n, dim))
    nrm[::7, 1:] = 0.0  # axis-aligned: rays along the boundary below
    nrm /= np.linalg.norm(nrm, axis=1)[:, None]
    off = rng.uniform(-3, 3, n)
    o = rng.uniform(-6, 6, (n, dim))
    d = rng.normal(size=(n, dim))
    d[::7, 0] = 0.0  # parallel to the axis-aligned boundaries
    d /= np.linalg.norm(d, axis=1)[:, None]
    limit = rng.choice([np.inf, 2.0, 0.0], n)
    dist, normal = cast_halfspace_rows(nrm, off, o, d, limit)
    rows = [raycast_halfspace(o[k], d[k], limit[k], nrm[k:k + 1], off[k:k + 1]) for k in range(n)]
    assert _rows_agree(dist, normal, rows) > n // 4
