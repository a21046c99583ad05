"""``distance_many`` (issue 28): every row is ``distance()``'s answer for its pair, bit for bit, and agrees
with independent oracles: shapely's distance (2D), python-fcl's ``fcl.distance`` and ``fcl.collide`` (3D),
and the closed form of two balls (``|c_b - c_a| - r_a - r_b``)."""

from __future__ import annotations

import fcl
import numpy as np
import pytest
import shapely
from scipy.spatial.transform import Rotation

from collideworld import Box, Capsule, Circle, Plane, Sphere, distance, distance_many
from collideworld.collide import ShapeArray
from collideworld.errors import InvalidArgumentError, InvalidPoseError, InvalidShapeError, UnsupportedPairError

from .batch_pairs import pairs, pose, unit_exact


def _assert_rows_equal_scalar(res, shapes_a, pos_a, rot_a, shapes_b, pos_b, rot_b, max_distance=np.inf):
    dim = pos_a.shape[1]
    overlapping = apart = 0
    for k in range(len(pos_a)):
        sa = shapes_a[k] if isinstance(shapes_a, list) else shapes_a.shape(k)
        sb = shapes_b[k] if isinstance(shapes_b, list) else shapes_b.shape(k)
        r = distance(sa, pose(sa, dim, pos_a[k], rot_a[k]), sb, pose(sb, dim, pos_b[k], rot_b[k]), max_distance)
        if r is None:
            assert res.distance[k] == np.inf, k
            assert np.isnan(res.point_a[k]).all() and np.isnan(res.normal[k]).all(), k
            continue
        assert res.distance[k] == r.distance, (k, sa, sb)
        for got, want in ((res.point_a[k], r.point_a), (res.point_b[k], r.point_b), (res.normal[k], r.normal)):
            np.testing.assert_array_equal(got, want, err_msg=f"row {k}: {sa} / {sb}")
        overlapping += r.distance <= 0
        apart += r.distance > 0
    return overlapping, apart


@pytest.mark.parametrize("dim", [2, 3])
def test_rows_equal_scalar_distance_every_kind(dim):
    # 300 pairs cycling through every pair of kinds (balls, boxes, polygons / hulls, capsules, half-spaces)
    shapes_a, pos_a, rot_a, shapes_b, pos_b, rot_b = pairs(dim, 300, seed=10 + dim)
    res = distance_many(shapes_a, (pos_a, rot_a), shapes_b, (pos_b, rot_b), backend="compiled")
    overlapping, apart = _assert_rows_equal_scalar(res, shapes_a, pos_a, rot_a, shapes_b, pos_b, rot_b)
    assert overlapping > 30 and apart > 100


@pytest.mark.parametrize("dim", [2, 3])
def test_numpy_backend_equals_scalar(dim):
    shapes_a, pos_a, rot_a, shapes_b, pos_b, rot_b = pairs(dim, 50, seed=20 + dim)
    res = distance_many(shapes_a, (pos_a, rot_a), shapes_b, (pos_b, rot_b), backend="numpy")
    overlapping, apart = _assert_rows_equal_scalar(res, shapes_a, pos_a, rot_a, shapes_b, pos_b, rot_b)
    assert overlapping > 3 and apart > 20


@pytest.mark.parametrize("dim", [2, 3])
def test_max_distance_rows_are_inf_where_scalar_gives_none(dim):
    shapes_a, pos_a, rot_a, shapes_b, pos_b, rot_b = pairs(dim, 100, seed=30 + dim)
    res = distance_many(shapes_a, (pos_a, rot_a), shapes_b, (pos_b, rot_b), max_distance=1.0)
    _assert_rows_equal_scalar(res, shapes_a, pos_a, rot_a, shapes_b, pos_b, rot_b, max_distance=1.0)
    assert np.isinf(res.distance).sum() > 10


@pytest.mark.parametrize("dim", [2, 3])
def test_shape_arrays_equal_scalar_and_closed_form(dim):
    rng = np.random.default_rng(40 + dim)
    n = 300
    ra, rb = rng.uniform(0.1, 1.0, n), rng.uniform(0.1, 1.0, n)
    he = rng.uniform(0.1, 1.0, (n, dim))
    pos_a, pos_b = rng.uniform(-2, 2, (n, dim)), rng.uniform(-2, 2, (n, dim))
    if dim == 2:
        rot_a, rot_b = rng.uniform(-7, 7, n), rng.uniform(-7, 7, n)
    else:
        rot_a = np.array([unit_exact(rng) for _ in range(n)])
        rot_b = np.array([unit_exact(rng) for _ in range(n)])
    balls = (ShapeArray.circles if dim == 2 else ShapeArray.spheres)
    # boxes against balls: row by row against distance() on the same shapes as objects
    res = distance_many(ShapeArray.boxes(he), (pos_a, rot_a), balls(rb), (pos_b, rot_b))
    overlapping, apart = _assert_rows_equal_scalar(res, ShapeArray.boxes(he), pos_a, rot_a, balls(rb), pos_b, rot_b)
    assert overlapping > 15 and apart > 30
    # balls against balls: the closed form
    res = distance_many(balls(ra), pos_a, balls(rb), pos_b)
    _assert_rows_equal_scalar(res, balls(ra), pos_a, np.zeros(n) if dim == 2 else np.tile([1.0, 0, 0, 0], (n, 1)),
                              balls(rb), pos_b, np.zeros(n) if dim == 2 else np.tile([1.0, 0, 0, 0], (n, 1)))
    gap = np.linalg.norm(pos_b - pos_a, axis=1)
    np.testing.assert_allclose(res.distance, gap - ra - rb, rtol=0, atol=1e-12)
    direction = (pos_b - pos_a) / gap[:, None]
    np.testing.assert_allclose(res.normal, direction, atol=1e-12)
    np.testing.assert_allclose(res.point_a, pos_a + ra[:, None] * direction, atol=1e-12)
    np.testing.assert_allclose(res.point_b, pos_b - rb[:, None] * direction, atol=1e-12)


def _core_2d(s, pos, angle):
    """The shape's core in shapely (a point, segment or polygon) and the radius around it."""
    c, si = np.cos(angle), np.sin(angle)
    rot = np.array([[c, -si], [si, c]])
    if isinstance(s, Circle):
        return shapely.Point(pos), s.radius
    if isinstance(s, Capsule):
        return shapely.LineString([rot @ np.array(s.p0) + pos, rot @ np.array(s.p1) + pos]), s.radius
    if isinstance(s, Box):
        hx, hy = s.half_extents
        local = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
    else:
        local = np.asarray(s.parts[0])
    return shapely.Polygon(local @ rot.T + pos), 0.0


def test_2d_agrees_with_shapely():
    shapes_a, pos_a, rot_a, shapes_b, pos_b, rot_b = pairs(2, 300, seed=50)
    res = distance_many(shapes_a, (pos_a, rot_a), shapes_b, (pos_b, rot_b))
    checked_apart = checked_overlap = 0
    for k in range(300):
        if shapes_a[k].is_infinite or shapes_b[k].is_infinite:
            continue
        ga, rad_a = _core_2d(shapes_a[k], pos_a[k], rot_a[k])
        gb, rad_b = _core_2d(shapes_b[k], pos_b[k], rot_b[k])
        expected = ga.distance(gb) - rad_a - rad_b
        if expected > 1e-9:
            assert res.distance[k] == pytest.approx(expected, abs=1e-9), k
            checked_apart += 1
        elif expected < -1e-9:
            assert res.distance[k] < 0, k
            checked_overlap += 1
    assert checked_apart > 80 and checked_overlap > 20


def _fcl_object(s, pos, quat):
    if isinstance(s, Sphere):
        geom = fcl.Sphere(s.radius)
    else:
        geom = fcl.Box(*(2 * np.asarray(s.half_extents)))
    rot = Rotation.from_quat([*quat[1:], quat[0]]).as_matrix()
    return fcl.CollisionObject(geom, fcl.Transform(rot, np.asarray(pos, float)))


def test_3d_agrees_with_fcl():
    rng = np.random.default_rng(60)
    n = 300
    # spheres and boxes: fcl's GJK on a capsule stops up to 1e-5 short of the distance (a ternary search
    # along the capsule's segment agreed with collideworld to 1e-15 on the rows checked), too loose here
    kinds = [Sphere(0.7), Box((0.9, 0.4, 0.6)), Box((0.3, 1.1, 0.5))]
    shapes_a = [kinds[int(i)] for i in rng.integers(0, 3, n)]
    shapes_b = [kinds[int(i)] for i in rng.integers(0, 3, n)]
    pos_a, pos_b = rng.uniform(-1.2, 1.2, (n, 3)), rng.uniform(-1.2, 1.2, (n, 3))
    rot_a = np.array([unit_exact(rng) for _ in range(n)])
    rot_b = np.array([unit_exact(rng) for _ in range(n)])
    res = distance_many(shapes_a, (pos_a, rot_a), shapes_b, (pos_b, rot_b))
    apart = overlap = 0
    for k in range(n):
        oa = _fcl_object(shapes_a[k], pos_a[k], rot_a[k])
        ob = _fcl_object(shapes_b[k], pos_b[k], rot_b[k])
        expected = fcl.distance(oa, ob, fcl.DistanceRequest(), fcl.DistanceResult())
        if expected > 1e-6:
            assert res.distance[k] == pytest.approx(expected, rel=1e-6, abs=1e-9), k
            apart += 1
        else:
            hit = fcl.collide(oa, ob, fcl.CollisionRequest(), fcl.CollisionResult())
            if hit:
                assert res.distance[k] <= 1e-9, k
                overlap += 1
    assert apart > 60 and overlap > 60


def test_bad_input_names_the_argument_and_row():
    shapes = [Circle(1.0)] * 5
    pos = np.zeros((5, 2))
    bad = pos.copy()
    bad[3, 1] = np.nan
    with pytest.raises(InvalidPoseError, match=r"(?s)poses_b positions must be finite.*first at index \(3, 1\)"):
        distance_many(shapes, pos, shapes, bad)
    with pytest.raises(InvalidPoseError, match=r"poses_a angles must have shape \(5,\)"):
        distance_many(shapes, (pos, np.zeros(4)), shapes, pos)
    with pytest.raises(UnsupportedPairError, match=r"shapes_a\[2\] must be a collideworld shape, got 'disc'"):
        distance_many([Circle(1.0), Circle(1.0), "disc", Circle(1.0), Circle(1.0)], pos, shapes, pos)
    with pytest.raises(UnsupportedPairError, match="one length"):
        distance_many(shapes, pos, shapes[:4], pos)
    with pytest.raises(UnsupportedPairError, match="one dimension"):
        distance_many(shapes, pos, Sphere(1.0), pos)
    with pytest.raises(InvalidShapeError, match=r"Box half_extents\[1, 0\] must be > 0"):
        distance_many(ShapeArray.boxes([[1.0, 1.0], [-1.0, 1.0]]), pos[:2], Circle(1.0), pos[:2])
    with pytest.raises(InvalidArgumentError, match="max_distance"):
        distance_many(shapes, pos, shapes, pos, max_distance=-1.0)


def test_empty_and_one_pair():
    res = distance_many(Circle(1.0), np.zeros((0, 2)), Circle(1.0), np.zeros((0, 2)))
    assert res.distance.shape == (0,) and res.point_a.shape == (0, 2)
    res = distance_many(Box((1, 1)), [0.0, 0.0], Circle(1.0), [[4.0, 0.0]])
    assert res.distance.tolist() == [2.0] and res.point_b.tolist() == [[3.0, 0.0]]


@pytest.mark.parametrize("dim", [2, 3])
def test_overlapping_primitive_rows_need_no_scalar_call(dim, monkeypatch):
    # balls, boxes, convex polygons and capsules: touching and overlapping rows are finished in compiled
    # calls (no per-row distance()), with distance()'s bits
    from collideworld import proximity

    shapes_a, pos_a, rot_a, shapes_b, pos_b, rot_b = pairs(dim, 200, seed=110 + dim, spread=1.2)
    keep = [k for k in range(200) if not (shapes_a[k].is_infinite or shapes_b[k].is_infinite)
            and shapes_a[k].kind != "convex_hull" and shapes_b[k].kind != "convex_hull"]
    sa, sb = [shapes_a[k] for k in keep], [shapes_b[k] for k in keep]
    pa, ra, pb, rb = pos_a[keep], rot_a[keep], pos_b[keep], rot_b[keep]
    want = [distance(x, pose(x, dim, pa[k], ra[k]), y, pose(y, dim, pb[k], rb[k])) for k, (x, y) in
            enumerate(zip(sa, sb, strict=True))]

    def refuse(*args, **kwargs):
        raise AssertionError("distance() called row by row")

    monkeypatch.setattr(proximity, "distance", refuse)
    res = distance_many(sa, (pa, ra), sb, (pb, rb), backend="compiled")
    assert sum(w.distance < 0 for w in want) > 20
    for k, w in enumerate(want):
        assert res.distance[k] == w.distance, k
        np.testing.assert_array_equal(res.point_a[k], w.point_a)
        np.testing.assert_array_equal(res.point_b[k], w.point_b)
        np.testing.assert_array_equal(res.normal[k], w.normal)


def test_concave_polygons_and_compounds_equal_scalar():
    # several convex pieces a side: the deepest piece pair is distance()'s own search, row by row
    from collideworld import Compound, Polygon

    rng = np.random.default_rng(130)
    ell = Polygon([(0.0, 0.0), (2.0, 0.0), (2.0, 0.5), (0.5, 0.5), (0.5, 2.0), (0.0, 2.0)])
    pair = Compound([(Circle(0.4), (-0.5, 0.0), 0.0), (Box((0.3, 0.2)), (0.5, 0.0), 0.7)])
    n = 120
    shapes_a = [ell if k % 2 else pair for k in range(n)]
    shapes_b = [[Circle(0.5), Box((0.6, 0.3)), ell][k % 3] for k in range(n)]
    pos_a, pos_b = rng.uniform(-2, 2, (n, 2)), rng.uniform(-2, 2, (n, 2))
    rot_a, rot_b = rng.uniform(-4, 4, n), rng.uniform(-4, 4, n)
    res = distance_many(shapes_a, (pos_a, rot_a), shapes_b, (pos_b, rot_b))
    overlapping, apart = _assert_rows_equal_scalar(res, shapes_a, pos_a, rot_a, shapes_b, pos_b, rot_b)
    assert overlapping > 15 and apart > 30


def test_half_space_side_takes_none_poses():
    # as in the scalar calls, a plane has no pose: a side of planes only may say None. By hand: the solid
    # z <= -2 and unit spheres centred at z = 3 (bottom at z = 2): gap 4, normal -z from the sphere
    res = distance_many(ShapeArray.spheres([1.0, 1.0]), [[0.0, 0.0, 3.0], [5.0, 1.0, 3.0]],
                        Plane((0.0, 0.0, 1.0), -2.0), None)
    assert res.distance.tolist() == [4.0, 4.0]
    np.testing.assert_array_equal(res.normal, [[0.0, 0.0, -1.0]] * 2)
    with pytest.raises(InvalidPoseError, match="poses_b"):
        distance_many(Sphere(1.0), [[0.0, 0.0, 3.0]], Sphere(1.0), None)


def _signatures_loaded():
    """Every collideworld numba dispatcher's signatures (compiled now or loaded from numba's cache)."""
    import sys

    from numba.core.registry import CPUDispatcher

    seen = {}
    for name, module in list(sys.modules.items()):
        if name.startswith("collideworld") and module is not None:
            for attr, value in vars(module).items():
                if isinstance(value, CPUDispatcher):
                    seen[f"{name}.{attr}"] = set(value.signatures)
    return seen


@pytest.mark.parametrize("dim", [2, 3])
def test_the_background_build_leaves_no_batched_call_to_compile(dim):
    # issue 27's rule: once the builder's "collide, distance, time of impact" step has run (it is how the
    # background build fills the cache), a batched call over every kind needs no kernel signature the step
    # did not already compile or load (a new one would compile in the foreground on a fresh cache)
    from collideworld import collide_many, time_of_impact_many
    from collideworld.build import full_build_steps

    for label, step in full_build_steps(dims=(dim,)):
        if "collide, distance, time of impact" in label:
            step()
    before = _signatures_loaded()
    shapes_a, pos_a, rot_a, shapes_b, pos_b, rot_b = pairs(dim, 120, seed=70 + dim)
    boxes = ShapeArray.boxes(np.abs(pos_a) + 0.25)
    for side_a, side_b in ((shapes_a, shapes_b), (boxes, shapes_b[0])):
        collide_many(side_a, (pos_a, rot_a), side_b, (pos_b, rot_b), backend="compiled")
        distance_many(side_a, (pos_a, rot_a), side_b, (pos_b, rot_b), backend="compiled")
        time_of_impact_many(side_a, (pos_a, rot_a), (pos_b, rot_a), side_b, (pos_b, rot_b), (pos_a, rot_b),
                            backend="compiled")
    after = _signatures_loaded()
    new = {name: sorted(map(str, sigs - before.get(name, set()))) for name, sigs in after.items()}
    leftover = {name: sigs for name, sigs in new.items() if sigs}
    assert not leftover, "\n".join(f"{name}: {sigs}" for name, sigs in sorted(leftover.items()))
