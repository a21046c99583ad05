"""The compiled backend's one-call paths: single and batched queries, raycast, collide() and collide_many().

Each compiled one-call path is checked against references that do not use it:

* the numpy backend's path (a probe store and the grouped narrowphase), the
  reference the compiled loop must agree with bit for bit;
* brute force (``collide()`` against every body, the ray kernels on every slot);
* hand-computed touching cases (points on edges and corners, shapes exactly
  touching), where the answer is known exactly.

Worlds mix kinds the one-call loop settles (balls, boxes, simple polygons,
half-planes) with kinds it leaves to the numpy path (capsules, concave
polygons), use filters, and have bodies moved since the last step.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from collideworld import (
    Box,
    Capsule,
    Circle,
    ConvexHull,
    HalfPlane,
    InvalidArgumentError,
    InvalidPoseError,
    Plane,
    Polygon,
    Sphere,
    World,
    collide,
    collide_many,
)
from collideworld.bodies import Kind
from collideworld.poses import plain_position

from .test_queries_batched import brute_rays, brute_shape

U32 = 0xFFFFFFFF
collide_module = sys.modules["collideworld.collide"]


def _mixed_world(backend, seed, n=400, span=40.0, kinds=("box", "circle", "poly", "concave", "capsule"),
                 plane=True):
    rng = np.random.default_rng(seed)
    w = World(2, backend=backend)
    for i in range(n):
        kind = kinds[int(rng.integers(len(kinds)))]
        size = rng.uniform(0.3, 1.2) if rng.random() > 0.02 else rng.uniform(4.0, 8.0)
        if kind == "box":
            shape = Box((size, float(rng.uniform(0.2, 1.2))))
        elif kind == "circle":
            shape = Circle(size)
        elif kind == "poly":
            a = np.sort(rng.uniform(0, 2 * np.pi, int(rng.integers(3, 8)))) + np.arange(3)[0]
            a += np.arange(len(a)) * 1e-3
            shape = Polygon((size * np.c_[np.cos(a), np.sin(a)]).tolist())
        elif kind == "concave":
            shape = Polygon([[0, 0], [2 * size, 0], [2 * size, size], [size, size], [size, 2 * size], [0, 2 * size]])
        else:
            shape = Capsule((0.0, 0.0), (size, 0.0), 0.3)
        w.add(shape, rng.uniform(0, span, 2), angle=float(rng.uniform(-np.pi, np.pi)), id=i,
              category=int(rng.choice([1, 1, 2])), mask=int(rng.choice([U32, U32, 1, 2])))
    if plane:
        w.add(HalfPlane((0.0, 1.0), 0.5), id="ground", category=1)
    w.step()
    # part of the bodies moved since the step: their stored fat boxes are stale
    for i in rng.choice(n, n // 4, replace=False).tolist():
        w.move(i, rng.uniform(0, span, 2), angle=float(rng.uniform(-np.pi, np.pi)))
    return w


def _pair_of_worlds(seed, **kw):
    return _mixed_world("compiled", seed, **kw), _mixed_world("numpy", seed, **kw)


PROBES = [Box((0.7, 0.3)), Circle(0.6), Polygon([(0, 0), (1, 0), (0.3, 0.8)]),
          Polygon([(0, 0), (2, 0), (2, 2), (1, 1), (0, 2)]), Capsule((0, 0), (1, 0), 0.3)]


def test_kind_codes_agree():
    from collideworld.compiled import queries as cq
    from collideworld.geometry.compiled import contact_slots as cs

    assert (cq.HALFSPACE, cq.BALL, cq.BOX, cq.POLYGON) == (Kind.HALFSPACE, Kind.BALL, Kind.BOX, Kind.POLYGON)
    assert (cs.HALFSPACE, cs.BALL, cs.BOX, cs.POLYGON) == (cq.HALFSPACE, cq.BALL, cq.BOX, cq.POLYGON)
    assert cq.NO_HIT == sys.modules["collideworld.queries"]._NO_HIT
    for dim in (2, 3):  # the named places of the single queries' results in the scratch
        point_work, ray_work = cq.scratch(dim)
        assert ray_work[cq.RAY_ROWS].shape == (cq.SINGLE_CAPACITY, 2 + 2 * dim)
        assert [point_work[k].shape for k in (cq.POINT_HITS, cq.POINT_OTHERS, cq.POINT_COUNTS)] == [
            (cq.SINGLE_CAPACITY,), (cq.SINGLE_CAPACITY,), (2,)]
        assert all(point_work[k].dtype == np.int64 for k in (cq.POINT_HITS, cq.POINT_OTHERS, cq.POINT_COUNTS))
        # one stamp-tag counter for both (a point and a ray query never reuse each other's tags)
        assert point_work[16] is ray_work[9] and point_work[16].tolist() == [-2]


@pytest.mark.parametrize("count", [1, 2, 63, 64, 65, 200])
@pytest.mark.parametrize("kind", ["circle", "capsule", "mixed"])
def test_point_met_by_more_bodies_than_the_scratch_holds(count, kind):
    # ``count`` bodies stacked over one spot (the single point query's scratch holds 64 hits and 64
    # capsules to settle apart): every one is reported, in add order, like the numpy path and a hand check
    rng = np.random.default_rng(count)
    worlds = [World(2, backend=b) for b in ("compiled", "numpy")]
    expected = []
    for i in range(count):
        as_capsule = kind == "capsule" or (kind == "mixed" and i % 2)
        c = rng.uniform(-0.2, 0.2, 2)
        for w in worlds:
            w.add(Capsule((-1.0, 0.0), (1.0, 0.0), 0.5) if as_capsule else Circle(1.0), c, id=f"b{i}")
        # by hand: the spot (0, 0) is within 0.29 of every centre, inside radius 1 and half-width 0.5
        expected.append(f"b{i}")
    for w in worlds:
        w.add(Circle(0.5), (5.0, 5.0), id="far")  # a body the spot misses
    wc, wn = worlds
    for spot in ((0.0, 0.0), np.zeros(2)):
        assert wc.query_point(spot) == wn.query_point(spot) == expected
    assert wc.query_point((5.0, 5.25)) == ["far"]
    assert wc.query_point((9.0, 9.0)) == []
    assert wc.query_aabb((-0.1, -0.1), (0.1, 0.1)) == expected


@pytest.mark.parametrize("seed", [0, 1])
def test_points_and_boxes_match_numpy_path_and_brute_force(seed):
    wc, wn = _pair_of_worlds(seed)
    rng = np.random.default_rng(100 + seed)
    pts = rng.uniform(-2, 42, (2000, 2))
    for mask in (U32, 1, 2):
        a, b = wc.query_points(pts, mask=mask), wn.query_points(pts, mask=mask)
        assert a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist()
    for k in range(60):
        p = pts[k]
        got = wc.query_point(p)
        assert got == wn.query_point(p) == wc.query_point(tuple(p.tolist())) == wc.query_point(p.tolist())
        assert got == brute_shape(wc, Circle(1e-300), (p, None)) or got == brute_shape(wc, Circle(1e-300), p)
        lo, hi = p - rng.uniform(0, 1, 2), p + rng.uniform(0, 2, 2)
        box = wc.query_aabb(lo, hi)
        assert box == wn.query_aabb(lo, hi)
        assert box == brute_shape(wc, Box(tuple(0.5 * (hi - lo))), (0.5 * (lo + hi), 0.0))


@pytest.mark.parametrize("probe", PROBES, ids=lambda s: type(s).__name__ + str(getattr(s, "is_convex", "")))
def test_shapes_match_numpy_path_and_brute_force(probe):
    wc, wn = _pair_of_worlds(7)
    rng = np.random.default_rng(8)
    pts = rng.uniform(-2, 42, (1500, 2))
    ang = rng.uniform(-np.pi, np.pi, 1500)
    for cat, mask in ((U32, U32), (1, 2), (2, U32)):
        a = wc.query_shapes(probe, pts, ang, category=cat, mask=mask)
        b = wn.query_shapes(probe, pts, ang, category=cat, mask=mask)
        assert a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist()
    for k in range(40):
        got = wc.query_shape(probe, pts[k], angle=float(ang[k]))
        assert got == wn.query_shape(probe, pts[k], angle=float(ang[k]))
        assert got == brute_shape(wc, probe, (pts[k], float(ang[k])))
        # the batch of one, and the single call, agree
        rows, ids = wc.query_shapes(probe, pts[k:k + 1], ang[k:k + 1])
        assert ids.tolist() == got and set(rows.tolist()) <= {0}


def test_touching_counts_on_edges_and_corners():
    # axis-aligned boxes of half 0.5 on a lattice of spacing 2: box "i,j" spans [2i - 0.5, 2i + 0.5] x ...
    for backend in ("compiled", "numpy"):
        w = World(2, backend=backend)
        w.add_many(Box((0.5, 0.5)), [[2.0 * i, 2.0 * j] for i in range(5) for j in range(5)],
                   ids=[f"{i},{j}" for i in range(5) for j in range(5)])
        w.step()
        assert w.query_point((4.5, 4.0)) == ["2,2"]               # on an edge
        assert w.query_point((4.5, 4.5)) == ["2,2"]               # on a corner
        assert w.query_point((4.5 + 1e-9, 4.0)) == []             # just off it
        pts, ids = w.query_points([[0.5, 0.5], [1.0, 1.0], [7.5, 8.0]])
        assert pts.tolist() == [0, 2] and ids.tolist() == ["0,0", "4,4"]
        # a box whose face meets the lattice box's face exactly (x = 2.5): depth 0, in contact
        assert w.query_shape(Box((0.25, 0.25)), (2.75, 2.0)) == ["1,1"]
        assert w.query_shape(Box((0.25, 0.25)), (2.75 + 1e-9, 2.0)) == []
        # a disc 0.5 from two boxes' faces touches both
        assert w.query_shape(Circle(0.5), (1.0, 2.0)) == ["0,1", "1,1"]
        # corner to corner: each of the four boxes around the query shares a corner point with it
        assert w.query_aabb((0.5, 0.5), (1.5, 1.5)) == ["0,0", "0,1", "1,0", "1,1"]


def test_raycast_one_call_matches_brute_force_and_numpy():
    for plane in (False, True):
        wc, wn = _pair_of_worlds(11, kinds=("box", "circle"), plane=plane)
        assert wc._index.refresh() is not None
        rng = np.random.default_rng(12)
        for k in range(300):
            o = rng.uniform(-5, 45, 2)
            d = rng.normal(size=2)
            if k % 7 == 0:
                d[1] = 0.0
            limit = [3.0, 20.0, math.inf][k % 3]
            mask = [U32, 1, 2][k % 3]
            a, b = wc.raycast(o, d, limit, mask=mask), wn.raycast(o, d, limit, mask=mask)
            assert [h.id for h in a] == [h.id for h in b]
            for x, y in zip(a, b, strict=True):
                assert x.distance == y.distance
                assert x.normal.tolist() == y.normal.tolist() and x.point.tolist() == y.point.tolist()
            want = brute_rays(wc, o, d, limit, mask=mask)
            assert {h.id: h.distance for h in a} == pytest.approx(want, rel=1e-12, abs=1e-12)
            assert [h.distance for h in a] == sorted(h.distance for h in a)


@pytest.mark.parametrize("count", [63, 64, 65, 150])
def test_raycast_through_more_bodies_than_the_scratch_holds(count):
    # a row of ``count`` unit discs at x = 3, 6, 9, ...: the ray along +x enters disc k at 3 (k + 1) - 1
    # (by hand); the single ray's scratch holds 64 hits, beyond that the general path answers
    w = World(2, backend="compiled")
    w.add_many(Circle(1.0), [[3.0 * (k + 1), 0.0] for k in range(count)], ids=[f"d{k}" for k in range(count)])
    w.add(Box((1.0, 1.0)), (0.0, 9.0), id="off the ray")
    hits = w.raycast((0.0, 0.0), (1.0, 0.0))
    assert [h.id for h in hits] == [f"d{k}" for k in range(count)]
    assert [h.distance for h in hits] == [3.0 * (k + 1) - 1.0 for k in range(count)]
    assert all(h.point.tolist() == [h.distance, 0.0] and h.normal.tolist() == [-1.0, 0.0] for h in hits)
    # the hits are the caller's: the next query (which reuses the scratch) does not change them
    first = [(h.point.tolist(), h.normal.tolist()) for h in hits]
    assert [h.id for h in w.raycast((0.0, 9.0 - 5.0), (0.0, 1.0))] == ["off the ray"]
    assert [(h.point.tolist(), h.normal.tolist()) for h in hits] == first


def test_raycast_hits_a_box_face_exactly_and_grazes_an_edge():
    w = World(2, backend="compiled")
    w.add(Box((1.0, 1.0)), (5.0, 0.0), id="box")
    w.add(Circle(1.0), (5.0, 5.0), id="disc")
    [hit] = w.raycast((0.0, 0.0), (1.0, 0.0))
    assert (hit.id, hit.distance, hit.normal.tolist()) == ("box", 4.0, [-1.0, 0.0])
    # along the box's top face (y = 1): touching counts
    assert [h.id for h in w.raycast((0.0, 1.0), (1.0, 0.0))] == ["box"]
    assert w.raycast((0.0, 1.0 + 1e-9), (1.0, 0.0), 3.0) == []
    [hit] = w.raycast((5.0, 9.0), (0.0, -1.0), 3.5)
    assert (hit.id, hit.distance) == ("disc", 3.0)


@pytest.mark.parametrize("dim", [2, 3])
def test_one_call_queries_3d_and_2d_balls_boxes(dim):
    rng = np.random.default_rng(21 + dim)
    worlds = []
    for backend in ("compiled", "numpy"):
        w = World(dim, backend=backend)
        r2 = np.random.default_rng(5)
        for i in range(300):
            pos = r2.uniform(0, 20, dim)
            if r2.random() < 0.5:
                shape = Circle(float(r2.uniform(0.2, 1))) if dim == 2 else Sphere(float(r2.uniform(0.2, 1)))
            else:
                shape = Box(tuple(r2.uniform(0.2, 1, dim).tolist()))
            if dim == 2:
                w.add(shape, pos, angle=float(r2.uniform(-3, 3)), id=i)
            else:
                q = r2.normal(size=4)
                w.add(shape, pos, quaternion=q / np.linalg.norm(q), id=i)
        w.add(HalfPlane((0.0, 1.0), 1.0) if dim == 2 else Plane((0.0, 0.0, 1.0), 1.0), id="floor")
        worlds.append(w)
    wc, wn = worlds
    probe = Box((0.5,) * dim)
    for _ in range(60):
        p = rng.uniform(-1, 21, dim)
        rot = {"angle": float(rng.uniform(-3, 3))} if dim == 2 else {"quaternion": rng.normal(size=4)}
        rot = rot if dim == 2 else {"quaternion": rot["quaternion"] / np.linalg.norm(rot["quaternion"])}
        assert wc.query_point(p) == wn.query_point(p)
        assert wc.query_shape(probe, p, **rot) == wn.query_shape(probe, p, **rot)
        pose = (p, rot.get("angle", rot.get("quaternion")))
        assert wc.query_shape(probe, p, **rot) == brute_shape(wc, probe, pose)
        assert wc.query_aabb(p, p + 1.0) == wn.query_aabb(p, p + 1.0)
        d = rng.normal(size=dim)
        a, b = wc.raycast(p, d, 8.0), wn.raycast(p, d, 8.0)
        # the compiled casts follow the numpy kernels' arithmetic in the ray's frame; in 3D that frame's
        # rotation rounds differently (cast_rows' basis), so distances agree to rounding there
        assert [h.id for h in a] == [h.id for h in b]
        assert [h.distance for h in a] == pytest.approx([h.distance for h in b], rel=1e-12, abs=1e-12)
        for x, y in zip(a, b, strict=True):  # every component of the normal and the point (3D: z too)
            assert x.normal.shape == x.point.shape == (dim,)
            np.testing.assert_allclose(x.normal, y.normal, rtol=0, atol=1e-12)
            np.testing.assert_allclose(x.point, y.point, rtol=0, atol=1e-9)
        assert {h.id: h.distance for h in a} == pytest.approx(brute_rays(wc, p, d, 8.0), rel=1e-12, abs=1e-12)


# -- collide() and collide_many() -------------------------------------------------------------

SHAPES_2D = [Box((1.0, 0.5)), Circle(0.7), Polygon([(0, 0), (1, 0), (0.3, 0.8)]), HalfPlane((0.6, 0.8), 0.5),
             Polygon([(0, 0), (2, 0), (2, 2), (1, 1), (0, 2)]), Capsule((0, 0), (1, 0), 0.3)]
SHAPES_3D = [Box((1.0, 0.5, 0.3)), Sphere(0.7), Plane((0.0, 0.6, 0.8), 0.5)]


def _pose(rng, shape, form):
    if shape.is_infinite:
        return None
    p = tuple(rng.uniform(-1.5, 1.5, shape.dim).tolist())
    if form == 0:
        return p
    if form == 1:
        return (p, None)
    if shape.dim == 2:
        return (p, float(rng.uniform(-3, 3)))
    q = rng.normal(size=4)
    return (p, tuple((q / np.linalg.norm(q)).tolist()))


@pytest.mark.parametrize("dim", [2, 3])
def test_collide_one_call_bits_equal_the_store_path(dim):
    shapes = SHAPES_2D if dim == 2 else SHAPES_3D
    rng = np.random.default_rng(31 + dim)
    hits = 0
    for k in range(1500):
        sa, sb = shapes[rng.integers(len(shapes))], shapes[rng.integers(len(shapes))]
        pa, pb = _pose(rng, sa, k % 3), _pose(rng, sb, (k // 3) % 3)
        got = collide(sa, pa, sb, pb, backend="compiled")
        ref = collide_module._collide_store(sa, pa, sb, pb, "compiled")
        slow = collide(sa, pa, sb, pb, backend="numpy")
        assert (got is None) == (ref is None) == (slow is None)
        if got is None:
            continue
        hits += 1
        assert got.normal.tolist() == ref.normal.tolist() and got.depth == ref.depth
        assert got.normal == pytest.approx(slow.normal, abs=1e-12) and got.depth == pytest.approx(slow.depth, abs=1e-12)
        # the contact points, computed when read, are the store path's
        assert got.points.tolist() == ref.points.tolist()
        assert got.separations.tolist() == ref.separations.tolist()
        assert got.point_ids.tolist() == ref.point_ids.tolist()
    assert hits > 300


def test_collide_touching_and_result_type():
    # exactly touching faces: contact of depth 0 (hand-computed: 1 + 0.5 = 1.5 apart)
    r = collide(Box((1.0, 1.0)), ((0.0, 0.0), 0.0), Box((0.5, 0.5)), ((1.5, 0.0), 0.0), backend="compiled")
    assert r is not None and r.depth == 0.0 and r.normal.tolist() == [1.0, 0.0]
    assert collide(Box((1.0, 1.0)), (0.0, 0.0), Box((0.5, 0.5)), (1.5 + 1e-9, 0.0), backend="compiled") is None
    r = collide(Circle(3.0), (0, 0), Circle(3.0), ((3, 4), 0.0), backend="compiled")
    assert (r.normal.tolist(), r.depth) == ([0.6, 0.8], 1.0)
    assert repr(r).startswith("ContactResult(") and r.points.round(12).tolist() == [[1.5, 2.0]]


def test_plain_quaternion_fast_path_has_the_numpy_paths_bits():
    """collide()'s Python-float quaternion path against check_quaternion and the
    renormalisation of rotation_matrix_3d (what the World stores), bit for bit, on
    quaternions off unit length by up to the tolerance, as tuples, lists and ints."""
    from collideworld.poses import QUATERNION_NORM_TOL, check_quaternion

    rng = np.random.default_rng(5)
    q = rng.normal(size=(20000, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    q *= 1.0 + rng.uniform(-0.99, 0.99, size=(len(q), 1)) * QUATERNION_NORM_TOL
    values = [tuple(r) for r in q.tolist()] + [list(r) for r in q[:100].tolist()]
    values += [(1, 0, 0, 0), [0, 0, 0, -1], (0.5, 0.5, 0.5, 0.5), (0, 0.6, 0.8, 0)]
    for value in values:
        ref = check_quaternion(value)[None]
        ref = (ref / np.linalg.norm(ref, axis=-1, keepdims=True))[0]
        got = np.array(collide_module._plain_quaternion(value))
        assert got.view(np.uint64).tolist() == ref.view(np.uint64).tolist(), value
    # not plain, or not unit: left to the numpy path, which decides and raises
    for value in [(0, 0, 0, 2), (1.0, float("nan"), 0.0, 0.0), (1.0, 0.0, 0.0), (True, 0, 0, 0),
                  np.array([1.0, 0, 0, 0]), (1.0, 0.0, 0.0, 0.0, 0.0)]:
        assert collide_module._plain_quaternion(value) is None


@pytest.mark.parametrize("pose", [((0.0, 0.0, 0.0), (0, 0, 0, 2)), ((0.0, 0.0, 0.0), (1.0, float("inf"), 0.0, 0.0)),
                                  ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0))])
def test_collide_bad_quaternions_still_refused(pose):
    with pytest.raises(InvalidPoseError, match="quaternion|finite"):
        collide(Box((1.0, 1.0, 1.0)), (0.0, 0.0, 0.0), Box((1.0, 1.0, 1.0)), pose, backend="compiled")


@pytest.mark.parametrize("pose, message", [
    (((0.0, float("nan")), 0.0), "finite"),
    (((0.0, 0.0), True), "angle"),
    (((0.0, 0.0), "a"), "angle"),
    ((0.0, 0.0, 0.0), "pose_b"),
    (((0.0, 1e200), 0.0), "magnitude"),
])
def test_collide_bad_poses_still_refused(pose, message):
    with pytest.raises(InvalidPoseError, match=message):
        collide(Box((1.0, 1.0)), (0.0, 0.0), Box((1.0, 1.0)), pose, backend="compiled")


@pytest.mark.parametrize("dim", [2, 3])
def test_collide_many_one_call_bits_equal_the_store_path(dim, monkeypatch):
    shapes = SHAPES_2D[:4] if dim == 2 else SHAPES_3D
    rng = np.random.default_rng(41 + dim)
    n = 3000
    sa = [shapes[i] for i in rng.integers(len(shapes), size=n)]
    sb = [shapes[i] for i in rng.integers(len(shapes), size=n)]
    pa, pb = rng.uniform(-1.5, 1.5, (n, dim)), rng.uniform(-1.5, 1.5, (n, dim))
    if dim == 2:
        rot_a, rot_b = rng.uniform(-3, 3, n), 0.3
    else:
        rot_a = rng.normal(size=(n, 4))
        rot_a /= np.linalg.norm(rot_a, axis=1)[:, None]
        rot_b = None
    got = collide_many(sa, (pa, rot_a), sb, (pb, rot_b), backend="compiled")
    monkeypatch.setattr(collide_module, "_one_call_shape", lambda s: None)   # the store path
    ref = collide_many(sa, (pa, rot_a), sb, (pb, rot_b), backend="compiled")
    monkeypatch.undo()
    assert got.hit.tolist() == ref.hit.tolist() and got.hit.sum() > 500
    h = got.hit
    assert got.normal[h].tolist() == ref.normal[h].tolist() and got.depth[h].tolist() == ref.depth[h].tolist()
    # and pair by pair, what collide() says
    for k in range(0, n, 97):
        r = collide(sa[k], None if sa[k].is_infinite else (pa[k], rot_a[k]), sb[k],
                    None if sb[k].is_infinite else (pb[k], rot_b), backend="numpy")
        assert (r is not None) == bool(got.hit[k])
        if r is not None:
            assert got.depth[k] == pytest.approx(r.depth, abs=1e-12)


def test_collide_many_with_kinds_left_to_the_store_path():
    # capsules and hulls were copied without their segment and hull row before (a capsule was a ball)
    a = [Capsule((0, 0), (1, 0), 0.3), Box((0.5, 0.5))]
    got = collide_many(a, np.array([[0.0, 0.0], [0.0, 0.0]]), Circle(0.5), np.array([[1.5, 0.0], [1.0, 0.0]]),
                       backend="compiled")
    # capsule core (0,0)-(1,0) radius 0.3 vs circle at (1.5, 0) radius 0.5: 0.5 apart, overlap 0.3
    assert got.hit.tolist() == [True, True]
    assert got.depth.tolist() == pytest.approx([0.3, 0.0], abs=1e-12)
    # a hull (the cube [-1, 1]^3) against a sphere of radius 0.5 at x = 1.4: overlap 0.1 along +x
    cube = ConvexHull([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
    got = collide_many(cube, np.zeros((2, 3)), Sphere(0.5), np.array([[1.4, 0.0, 0.0], [0.0, 0.0, 1.6]]))
    assert got.hit.tolist() == [True, False]
    assert got.depth[0] == pytest.approx(0.1, abs=1e-12) and got.normal[0].tolist() == pytest.approx([1, 0, 0])


def test_plain_position_accepts_only_what_check_position_accepts():
    assert plain_position((1, 2.5), 2) == (1.0, 2.5)
    assert plain_position(np.array([1.0, 2.0, 3.0]), 3) == (1.0, 2.0, 3.0)
    # numpy float64 scalars (what indexing a float array gives) are plain floats; other numpy scalars not
    got = plain_position((np.float64(1.5), 2.0), 2)
    assert got == (1.5, 2.0) and all(type(v) is float for v in got)
    for bad in [(1, 2, 3), (True, 1.0), (np.float32(1.0), 2.0), (np.int64(1), 2.0), (np.float64("nan"), 1.0),
                (np.float64(1e151), 0.0), ("1", 2), (math.nan, 0), (math.inf, 0),
                (1e151, 0), (10 ** 400, 0), np.array([1, 2]), np.array([1.0, 2.0], dtype=np.float32), [1.0],
                np.array([[1.0, 2.0]]), np.array([[1.0], [2.0]]), np.array(1.0), np.zeros(0), np.zeros(3),
                np.array([1.0, 2.0], dtype=">f8"), np.array([np.nan, 1.0]), np.array([1e151, 1.0])]:
        assert plain_position(bad, 2) is None, bad
    assert plain_position(np.array([[1.0, 2.0]])[0], 2) == (1.0, 2.0)  # a row of a 2D array
    assert plain_position(np.array([1.0, 5.0, 2.0])[::2], 2) == (1.0, 2.0)  # a strided view


# -- the compiled grid, patched in place -------------------------------------------------------

def test_grid_patch_answers_like_brute_force():
    from collideworld.spatial import GridIndex

    rng = np.random.default_rng(51)
    n = 400
    lo = rng.uniform(0, 50, (n, 2))
    hi = lo + rng.uniform(0.1, 1.5, (n, 2))
    alive = np.ones(n, dtype=bool)
    g = GridIndex(lo.copy(), hi.copy(), np.arange(n), "compiled", spare=2)
    for _ in range(60):
        rows = rng.choice(n, int(rng.integers(1, 40)), replace=False)
        new_lo = rng.uniform(0, 50, (len(rows), 2))
        # sizes up to 6: some larger than a cell go to the big list
        new_hi = new_lo + rng.uniform(0.1, 6.0 if rng.random() < 0.2 else 1.5, (len(rows), 2))
        keep = rng.random(len(rows)) < 0.9
        if not g.patch(rows, new_lo, new_hi, keep):
            break  # the grid asks for a rebuild: what it holds so far was checked
        lo[rows], hi[rows], alive[rows] = new_lo, new_hi, keep
        g._check()
        q_lo = rng.uniform(-2, 52, (200, 2))
        q_hi = q_lo + rng.uniform(0, 3, (200, 2))
        qi, h = g.query_boxes(q_lo, q_hi)
        got = set(zip(qi.tolist(), h.tolist(), strict=True))
        meets = alive[None, :] & (lo[None] <= q_hi[:, None]).all(axis=2) & (q_lo[:, None] <= hi[None]).all(axis=2)
        assert got == set(zip(*np.nonzero(meets), strict=True))
        o = rng.uniform(0, 50, (50, 2))
        d = rng.normal(size=(50, 2))
        d /= np.linalg.norm(d, axis=1)[:, None]
        si, sh = g.query_segments(o, d, np.full(50, 20.0))
        from collideworld.spatial.grid import segment_meets_boxes
        want = {(i, int(j)) for i in range(50)
                for j in np.flatnonzero(alive & segment_meets_boxes(o[i], d[i], 20.0, lo, hi))}
        assert set(zip(si.tolist(), sh.tolist(), strict=True)) == want


@pytest.mark.parametrize("seed", [0, 1])
def test_patched_world_queries_match_rebuilt_numpy_world(seed):
    rng = np.random.default_rng(60 + seed)
    ws = [World(2, backend=b) for b in ("compiled", "numpy")]
    shapes = [Box((0.5, 0.3)), Circle(0.4), Polygon([(0, 0), (1, 0), (0.3, 0.8)]), Box((3.0, 0.2)),
              Capsule((0, 0), (1, 0), 0.2)]
    next_id, ids = 0, []
    patched = 0
    for _ in range(120):
        op = int(rng.integers(5))
        if op == 0 or len(ids) < 1200:
            k = int(rng.integers(1, 50))
            new = list(range(next_id, next_id + k))
            next_id += k
            shape, pos = shapes[int(rng.integers(len(shapes)))], rng.uniform(0, 60, (k, 2))
            for w in ws:
                w.add_many(shape, pos, ids=new)
            ids += new
        elif op == 1:
            gone = [ids[i] for i in rng.choice(len(ids), int(rng.integers(1, 30)), replace=False)]
            for w in ws:
                w.remove_many(gone)
            ids = [i for i in ids if i not in set(gone)]
        elif op == 2:
            sel = [ids[i] for i in rng.choice(len(ids), int(rng.integers(1, 100)), replace=False)]
            pos = rng.uniform(0, 60, (len(sel), 2))
            for w in ws:
                w.move_many(sel, pos)
        elif op == 3:
            for w in ws:
                w.step()
        else:
            i, shape = ids[int(rng.integers(len(ids)))], shapes[int(rng.integers(len(shapes)))]
            for w in ws:
                w.set_shape(i, shape)
        before = ws[0]._index._changes
        pts = rng.uniform(-2, 62, (300, 2))
        a, b = ws[0].query_points(pts), ws[1].query_points(pts)
        patched += ws[0]._index._changes > before
        assert a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist()
        o, d = rng.uniform(0, 60, 2), rng.normal(size=2)
        assert [h.id for h in ws[0].raycast(o, d, 30.0)] == [h.id for h in ws[1].raycast(o, d, 30.0)]
        dirs = np.tile(d, (300, 1))
        assert ws[0].raycast_many(pts, dirs, 20.0).id.tolist() == ws[1].raycast_many(pts, dirs, 20.0).id.tolist()
        ws[0]._index._grid._check()
    assert patched > 20   # the compiled grid was patched, not only rebuilt


# -- raycast(all_hits=False): the nearest hit, the compiled walk stopping early -------------------

def _assert_first_is_nearest(w, o, d, limit, mask=U32):
    every = w.raycast(o, d, limit, mask=mask)
    first = w.raycast(o, d, limit, all_hits=False, mask=mask)
    assert len(first) == min(1, len(every))
    if first:
        # the same hit as the whole list's head, bit for bit
        assert first[0].id == every[0].id and first[0].distance == every[0].distance
        assert first[0].point.tolist() == every[0].point.tolist()
        assert first[0].normal.tolist() == every[0].normal.tolist()
    want = brute_rays(w, o, d, limit, mask=mask)  # every body tested, no grid
    if not want:
        assert first == []
    else:
        nearest = min(want.values())
        assert first[0].distance == pytest.approx(nearest, rel=1e-12, abs=1e-12)
        assert want[first[0].id] == pytest.approx(nearest, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("backend", ["compiled", "numpy"])
@pytest.mark.parametrize("kinds,plane", [(("box", "circle"), False), (("box", "circle"), True),
                                         (("box", "circle", "poly", "capsule"), False)])
def test_raycast_first_hit_is_the_nearest(backend, kinds, plane):
    w = _mixed_world(backend, 21, kinds=kinds, plane=plane)
    rng = np.random.default_rng(22)
    for k in range(150):
        o = rng.uniform(-5, 45, 2)
        d = rng.normal(size=2)
        if k % 5 == 0:
            d[k % 2] = 0.0
        _assert_first_is_nearest(w, o, d, [3.0, 20.0, math.inf][k % 3], mask=[U32, 1, 2][k % 4 % 3])


def test_raycast_first_hit_on_cell_walls_and_ties():
    # rays along the grid's cell walls and through its corners, boxes with faces on the walls, and
    # bodies at equal distances (the nearest is then the one added first): compiled == the whole list's
    # head, and the numpy backend agrees
    worlds = [World(2, backend=b) for b in ("compiled", "numpy")]
    rng = np.random.default_rng(5)
    for i in range(300):
        h = float(rng.choice([0.5, 1.0, 2.0]))
        c = rng.integers(-10, 10, 2).astype(float) * h  # faces on multiples of h
        for w in worlds:
            w.add(Box((h, h)) if i % 3 else Circle(h), c, id=i)
    for w in worlds:
        w.add(Box((1.0, 1.0)), (3.0, 3.0), id="twin a")
        w.add(Box((1.0, 1.0)), (3.0, 3.0), id="twin b")  # the same box: the same distances
    wc, wn = worlds
    cell = wc._index.refresh().cell
    rays = [((-30.0, k * cell), (1.0, 0.0)) for k in range(-3, 4)]
    rays += [((k * cell, -30.0), (0.0, 1.0)) for k in range(-3, 4)]
    rays += [((-30.0, -30.0), (1.0, 1.0)), ((30.0, -30.0), (-1.0, 1.0)), ((3.0, -20.0), (0.0, 1.0)),
             ((-20.0, 3.0), (1.0, 0.0)), ((3.0, 3.0), (1.0, 0.0))]
    for o, d in rays:
        for limit in (math.inf, 25.0):
            for w in worlds:
                _assert_first_is_nearest(w, o, d, limit)
            a = wc.raycast(o, d, limit, all_hits=False)
            b = wn.raycast(o, d, limit, all_hits=False)
            assert [h.id for h in a] == [h.id for h in b]
    for backend in ("compiled", "numpy"):
        for order in (["b", "a"], ["a", "b"]):
            w = World(2, backend=backend)
            for name in order:  # two boxes in one place: both met at distance 9 (by hand)
                w.add(Box((1.0, 1.0)), (10.0, 0.0), id=name)
            w.add_many(Circle(0.5), [[-20.0 + 3 * k, 5.0] for k in range(20)])  # more grid, off the ray
            [hit] = w.raycast((0.0, 0.0), (1.0, 0.0), all_hits=False)
            assert (hit.id, hit.distance) == (order[0], 9.0)


def test_raycast_all_hits_must_be_a_bool():
    w = World(2)
    w.add(Circle(1.0), (3.0, 0.0))
    with pytest.raises(InvalidArgumentError, match=r"all_hits must be True or False, got 'no'"):
        w.raycast((0, 0), (1, 0), all_hits="no")
    assert [h.distance for h in w.raycast((0, 0), (1, 0), all_hits=np.bool_(False))] == [2.0]


@pytest.mark.parametrize("backend", ["compiled", "numpy"])
def test_raycast_first_hit_looks_past_a_far_hit_found_early(backend, monkeypatch):
    # A thin slanted box A has its box in cells 0 and 1 of the grid, but the ray along y = c/2 meets it
    # only at x = 1.2 c (cell 1); a small disc B at x = 1.05 c (cell 1 only) is nearer. The walk meets A
    # in cell 0 first: the nearest is B all the same (by hand: B's left edge is at 1.03 c).
    # (Boxes registered as they are, without the compiled grid's slack, so that A lies in those cells.)
    from collideworld import queries

    monkeypatch.setattr(queries, "SLACK", 0.0)
    background = [[100.0 + 2.0 * (k % 40), 2.0 * (k // 40)] for k in range(800)]
    probe = World(2, backend=backend)
    probe.add_many(Circle(0.5), background)
    c = probe._index.refresh().cell
    y0 = 0.5 * c
    p, q = np.array([0.7 * c, y0 + 0.5 * c]), np.array([1.5 * c, y0 - 0.3 * c])
    length = float(np.linalg.norm(q - p))
    w = World(2, backend=backend)  # (bodies added to a built grid wait on its list of big boxes)
    w.add_many(Circle(0.5), background)
    w.add(Box((length / 2, 0.005 * c)), (p + q) / 2, angle=math.atan2(*(q - p)[::-1]), id="A")
    w.add(Circle(0.02 * c), (1.05 * c, y0), id="B")
    grid = w._index.refresh()
    assert grid.cell == c and len(grid.big) == 0  # in the cells the geometry was placed on
    hits = w.raycast((0.1 * c, y0), (1.0, 0.0))
    assert [h.id for h in hits] == ["B", "A"]
    [first] = w.raycast((0.1 * c, y0), (1.0, 0.0), all_hits=False)
    assert first.id == "B" and first.distance == pytest.approx(1.03 * c - 0.1 * c, rel=1e-12)


@pytest.mark.parametrize("dim", [2, 3])
def test_one_call_raycast_rows_match_numpy_in_every_component(dim):
    # balls and boxes only, no half-space: the single ray takes the one-call walk (_ray_one), whose
    # rows [slot, distance, point, normal] are checked here component by component (3D: z too),
    # after other queries left other rows in the scratch, against the numpy backend's casts
    rng = np.random.default_rng(40 + dim)
    worlds = []
    for backend in ("compiled", "numpy"):
        w = World(dim, backend=backend)
        r2 = np.random.default_rng(6)
        for i in range(200):
            pos = r2.uniform(0, 15, dim)
            q = r2.normal(size=4)
            turn = {"angle": float(r2.uniform(-3, 3))} if dim == 2 else {"quaternion": q / np.linalg.norm(q)}
            if i % 2:
                w.add(Circle(0.6) if dim == 2 else Sphere(0.6), pos, id=i)
            else:
                w.add(Box(tuple(r2.uniform(0.2, 1, dim).tolist())), pos, id=i, **turn)
        worlds.append(w)
    wc, wn = worlds
    met = 0
    for _ in range(150):
        p, d = rng.uniform(-1, 16, dim), rng.normal(size=dim)
        for first in (False, True):
            a, b = wc.raycast(p, d, 10.0, all_hits=not first), wn.raycast(p, d, 10.0, all_hits=not first)
            assert [h.id for h in a] == [h.id for h in b]
            for x, y in zip(a, b, strict=True):
                assert x.normal.shape == x.point.shape == (dim,)
                np.testing.assert_allclose(x.normal, y.normal, rtol=0, atol=1e-12)
                np.testing.assert_allclose(x.point, y.point, rtol=0, atol=1e-9)
                assert x.distance == pytest.approx(y.distance, rel=1e-12, abs=1e-12)
                met += abs(x.normal[-1]) > 0.1  # normals with a last component that matters
    assert met > 20
