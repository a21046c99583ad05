"""collideworld.distance against independent oracles (issue 13).

2D: shapely's ``distance`` and ``shapely.ops.nearest_points`` on the posed
outlines (circles as points, their radius subtracted); exact rational
arithmetic (``fractions.Fraction``) for polygons with rational vertices.
3D: python-fcl's ``fcl.distance`` with nearest points. Overlapping:
``distance == -collide().depth`` with collide's normal.
"""

from __future__ import annotations

import math
from fractions import Fraction

import fcl
import numpy as np
import pytest
import shapely
import shapely.ops
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

import collideworld as cw
from collideworld import Box, Circle, HalfPlane, Plane, Polygon, Sphere, collide, distance
from collideworld.errors import CollideWorldError, InvalidArgumentError, InvalidPoseError, UnsupportedPairError
from collideworld.geometry import gjk

from .oracle import geometry
from .strategies import angles, make_shape, shape_data

near = st.floats(-4.0, 4.0, allow_nan=False)


def _outline(kind, params, position, angle):
    """shapely geometry of a posed 2D shape and the radius to subtract (circles are points)."""
    if kind == "circle":
        return shapely.Point(position), float(params)
    return geometry(kind, params, position, angle)[1], 0.0


def _on_shape(point, kind, params, position, angle):
    """Distance of a world point to the posed shape (0 inside), by shapely."""
    g, r = _outline(kind, params, position, angle)
    return max(0.0, g.distance(shapely.Point(point)) - r)


# -- 2D against shapely ------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(shape_data(2), shape_data(2), near, near, near, near, angles, angles)
def test_distance_matches_shapely_2d(da, db, xa, ya, xb, yb, ta, tb):
    ga, ra = _outline(*da, (xa, ya), ta)
    gb, rb = _outline(*db, (xb, yb), tb)
    expected = ga.distance(gb) - ra - rb
    if expected <= 1e-9:  # overlapping: judged against collide() below
        return
    res = distance(make_shape(*da), ((xa, ya), ta), make_shape(*db), ((xb, yb), tb))
    assert res is not None
    assert res.distance == pytest.approx(expected, rel=1e-9, abs=1e-12)
    # the points lie on their shapes, the normal joins them, and they are as far apart as reported
    assert _on_shape(res.point_a, *da, (xa, ya), ta) <= 1e-9
    assert _on_shape(res.point_b, *db, (xb, yb), tb) <= 1e-9
    assert np.linalg.norm(res.point_b - res.point_a) == pytest.approx(expected, rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(res.point_b - res.point_a, res.distance * res.normal, atol=1e-9)
    # shapely's nearest points give the same separation (the points themselves need not be unique)
    pa, pb = shapely.ops.nearest_points(ga, gb)
    assert math.dist(pa.coords[0], pb.coords[0]) - ra - rb == pytest.approx(res.distance, rel=1e-9, abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(shape_data(2), shape_data(2), near, near, near, near, angles, angles)
def test_overlapping_distance_is_minus_collide_depth(da, db, xa, ya, xb, yb, ta, tb):
    sa, sb = make_shape(*da), make_shape(*db)
    pose_a, pose_b = ((xa, ya), ta), ((xb, yb), tb)
    c = collide(sa, pose_a, sb, pose_b)
    res = distance(sa, pose_a, sb, pose_b)
    if c is None:
        assert res is not None and res.distance >= 0.0
        return
    assert res.distance == -c.depth
    np.testing.assert_array_equal(res.normal, c.normal)
    np.testing.assert_allclose(res.point_b - res.point_a, res.distance * res.normal, atol=1e-9)
    # deepest points: each on its own shape; for convex shapes, a's point is a's extreme point
    # along the normal and b's is b's extreme point against it (shapely's vertices, or the centre
    # plus the radius, give the extremes)
    assert _on_shape(res.point_a, *da, pose_a[0], ta) <= 1e-9
    assert _on_shape(res.point_b, *db, pose_b[0], tb) <= 1e-9
    if da[0] != "polygon" and db[0] != "polygon":
        assert res.point_a @ res.normal == pytest.approx(_support(*da, pose_a[0], ta, res.normal), abs=1e-9)
        assert res.point_b @ -res.normal == pytest.approx(_support(*db, pose_b[0], tb, -res.normal), abs=1e-9)


def _support(kind, params, position, angle, direction):
    g, r = _outline(kind, params, position, angle)
    return max(np.asarray(g.exterior.coords if kind != "circle" else g.coords) @ direction) + r


@settings(max_examples=200, deadline=None)
@given(shape_data(2), shape_data(2), near, near, near, near, angles, angles)
def test_symmetry(da, db, xa, ya, xb, yb, ta, tb):
    sa, sb = make_shape(*da), make_shape(*db)
    ab = distance(sa, ((xa, ya), ta), sb, ((xb, yb), tb))
    ba = distance(sb, ((xb, yb), tb), sa, ((xa, ya), ta))
    assert ab.distance == pytest.approx(ba.distance, rel=1e-12, abs=1e-12)
    if ab.distance > 1e-9:  # apart: the closest points swap (when unique; check the separation instead)
        np.testing.assert_allclose(ab.normal, -ba.normal, atol=1e-9)
    elif ab.distance < 0:
        # overlapping, the normal is collide's; where collide's flips (not at coincident centres,
        # where any direction will do), so does distance's, and the deepest points swap
        ca = collide(sa, ((xa, ya), ta), sb, ((xb, yb), tb))
        cb = collide(sb, ((xb, yb), tb), sa, ((xa, ya), ta))
        if np.allclose(ca.normal, -cb.normal, atol=1e-12):
            np.testing.assert_allclose(ab.normal, -ba.normal, atol=1e-12)



def _sq_point_segment(p, a, b):
    ab = (b[0] - a[0], b[1] - a[1])
    ap = (p[0] - a[0], p[1] - a[1])
    t = (ab[0] * ap[0] + ab[1] * ap[1]) / (ab[0] ** 2 + ab[1] ** 2)
    t = min(max(t, Fraction(0)), Fraction(1))
    d = (ap[0] - t * ab[0], ap[1] - t * ab[1])
    return d[0] ** 2 + d[1] ** 2


def test_polygon_distance_exact_in_rationals():
    """Disjoint convex polygons with rational vertices: the squared distance is the rational
    minimum over vertex-edge pairs, computed exactly."""
    rng = np.random.default_rng(13)
    checked = 0
    while checked < 150:
        k = int(rng.integers(3, 7))
        ang = np.sort(rng.uniform(0, 2 * np.pi, k))
        if np.max(np.diff(np.r_[ang, ang[0] + 2 * np.pi])) >= np.pi * 0.9:
            continue
        pa = [(Fraction(int(round(40 * math.cos(a))), 16), Fraction(int(round(40 * math.sin(a))), 16)) for a in ang]
        shift = (Fraction(int(rng.integers(-200, 200)), 16), Fraction(int(rng.integers(-200, 200)), 16))
        pb = [(x + shift[0], y + shift[1]) for x, y in pa]
        if len(set(pa)) < len(pa):
            continue
        try:
            a, b = Polygon([tuple(map(float, v)) for v in pa]), Polygon([tuple(map(float, v)) for v in pb])
        except CollideWorldError:
            continue
        if not a.is_convex or shapely.Polygon(a.vertices).intersects(shapely.Polygon(b.vertices)):
            continue
        exact = min(min(_sq_point_segment(p, poly[i], poly[(i + 1) % len(poly)]) for p in other
                        for i in range(len(poly))) for poly, other in ((pa, pb), (pb, pa)))
        res = distance(a, ((0, 0), 0.0), b, ((0, 0), 0.0))
        assert res.distance ** 2 == pytest.approx(float(exact), rel=1e-12)
        checked += 1


def test_hand_cases():
    # box corner to circle: the nearest point of the box is its corner (1, 1)
    r = distance(Box((1, 1)), ((0, 0), 0.0), Circle(1.0), ((4, 5), 0.0))
    assert r.distance == pytest.approx(5.0 - 1.0, rel=1e-15)
    np.testing.assert_allclose(r.point_a, [1, 1], atol=1e-15)
    np.testing.assert_allclose(r.point_b, [4 - 0.6, 5 - 0.8], atol=1e-15)
    # exactly touching boxes: 0, not negative
    r = distance(Box((1, 1)), ((0, 0), 0.0), Box((1, 1)), ((2, 0.5), 0.0))
    assert r.distance == 0.0 and r.normal.tolist() == [1.0, 0.0]
    # a box rotated 45 degrees: its corner at sqrt(2) reaches towards a half-plane x >= 3
    r = distance(HalfPlane((-1, 0), -3), None, Box((1, 1)), ((0, 0), math.pi / 4))
    assert r.distance == pytest.approx(3 - math.sqrt(2), rel=1e-14)
    np.testing.assert_allclose(r.normal, [-1, 0], atol=0)  # from the half-plane x >= 3 towards the box
    np.testing.assert_allclose(r.point_a, [3, 0], atol=1e-14)
    np.testing.assert_allclose(r.point_b, [math.sqrt(2), 0], atol=1e-14)
    # a sphere 2 above the ground plane z <= 0
    r = distance(Sphere(1.0), ((0, 0, 3), (1, 0, 0, 0)), Plane((0, 0, 1), 0), None)
    assert r.distance == 2.0
    assert r.normal.tolist() == [0.0, 0.0, -1.0]
    assert r.point_a.tolist() == [0.0, 0.0, 2.0] and r.point_b.tolist() == [0.0, 0.0, 0.0]


def test_concave_polygon_is_minimum_over_pieces():
    # a U opening upwards, a circle sitting in the notch
    u = Polygon([(0, 0), (6, 0), (6, 5), (4, 5), (4, 2), (2, 2), (2, 5), (0, 5)])
    assert len(u.parts) >= 2
    r = distance(u, ((0, 0), 0.0), Circle(0.5), ((3, 3.5), 0.0))
    # nearest: the notch floor at y = 2 (1.5 - 0.5 = 1) and the notch walls at x = 2, 4 (1 - 0.5 = 0.5)
    assert r.distance == pytest.approx(0.5, rel=1e-14)
    assert abs(r.normal[0]) == pytest.approx(1.0)
    expected = shapely.Polygon(u.vertices).distance(shapely.Point(3, 3.5)) - 0.5
    assert r.distance == pytest.approx(expected, rel=1e-12)


def test_planes_against_each_other():
    # slab: x <= 1 and x >= 4 are 3 apart; x <= 1 and x >= 0 overlap by 1
    r = distance(HalfPlane((1, 0), 1), None, HalfPlane((-1, 0), -4), None)
    assert r.distance == 3.0 and r.normal.tolist() == [1.0, 0.0]
    np.testing.assert_allclose(r.point_b - r.point_a, [3, 0])
    r = distance(HalfPlane((1, 0), 1), None, HalfPlane((-1, 0), 0), None)
    assert r.distance == -collide(HalfPlane((1, 0), 1), None, HalfPlane((-1, 0), 0), None).depth == -1.0
    assert distance(HalfPlane((1, 0), 1), None, HalfPlane((-1, 0), -4), None, max_distance=2.0) is None


def test_max_distance():
    a, b = Circle(1.0), Circle(1.0)
    assert distance(a, ((0, 0), 0), b, ((5, 0), 0), max_distance=2.9) is None
    assert distance(a, ((0, 0), 0), b, ((5, 0), 0), max_distance=3.0).distance == 3.0
    assert distance(a, ((0, 0), 0), b, ((1, 0), 0), max_distance=0.0).distance == -1.0


# -- 3D against python-fcl --------------------------------------------------------------

def _fcl_object(kind, params, position, quaternion):
    geom = fcl.Sphere(params) if kind == "sphere" else fcl.Box(*(2 * np.asarray(params)))
    rot = Rotation.from_quat([*quaternion[1:], quaternion[0]]).as_matrix()
    return fcl.CollisionObject(geom, fcl.Transform(rot, np.asarray(position, float)))


@pytest.mark.parametrize("seed", range(4))
def test_distance_matches_fcl_3d(seed):
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(120):
        shapes = []
        for _side in range(2):
            if rng.random() < 0.3:
                shapes.append(("sphere", float(rng.uniform(0.2, 2))))
            else:
                shapes.append(("box", tuple(rng.uniform(0.2, 2, 3))))
        poses = [(rng.uniform(-4, 4, 3), Rotation.random(random_state=rng).as_quat()[[3, 0, 1, 2]]) for _ in range(2)]
        objs = [_fcl_object(*s, *p) for s, p in zip(shapes, poses, strict=True)]
        req = fcl.DistanceRequest(enable_nearest_points=True)
        out = fcl.DistanceResult()
        expected = fcl.distance(objs[0], objs[1], req, out)
        if expected <= 1e-6:
            continue
        cws = [make_shape(*s) for s in shapes]
        res = distance(cws[0], poses[0], cws[1], poses[1])
        assert res.distance == pytest.approx(expected, rel=1e-6, abs=1e-9)
        fcl_sep = np.linalg.norm(np.asarray(out.nearest_points[1]) - np.asarray(out.nearest_points[0]))
        assert np.linalg.norm(res.point_b - res.point_a) == pytest.approx(fcl_sep, rel=1e-6, abs=1e-9)
        np.testing.assert_allclose(res.point_b - res.point_a, res.distance * res.normal, atol=1e-9)
        checked += 1
    assert checked > 50


def test_overlapping_3d_equals_collide():
    rng = np.random.default_rng(5)
    n = 0
    for _ in range(200):
        a = Box(tuple(rng.uniform(0.3, 2, 3)))
        b = Box(tuple(rng.uniform(0.3, 2, 3))) if rng.random() < 0.7 else Sphere(float(rng.uniform(0.3, 2)))
        pa = (rng.uniform(-1, 1, 3), Rotation.random(random_state=rng).as_quat()[[3, 0, 1, 2]])
        pb = (rng.uniform(-1, 1, 3), Rotation.random(random_state=rng).as_quat()[[3, 0, 1, 2]])
        c = collide(a, pa, b, pb)
        if c is None:
            continue
        r = distance(a, pa, b, pb)
        assert r.distance == -c.depth
        np.testing.assert_array_equal(r.normal, c.normal)
        np.testing.assert_allclose(r.point_b - r.point_a, r.distance * r.normal, atol=1e-9)
        n += 1
    assert n > 100


def test_rotation_matrix_and_quaternion_poses_agree():
    q = Rotation.from_euler("xyz", [0.3, -0.2, 1.1])
    a = distance(Box((1, 2, 3)), ((0, 0, 0), q.as_quat()[[3, 0, 1, 2]]), Sphere(1), ((6, 1, 0), (1, 0, 0, 0)))
    b = distance(Box((1, 2, 3)), ((0, 0, 0), q.as_matrix()), Sphere(1), ((6, 1, 0), (1, 0, 0, 0)))
    assert a.distance == pytest.approx(b.distance, rel=1e-12)


# -- bad input ----------------------------------------------------------------------------

@pytest.mark.parametrize("call, error", [
    (lambda: distance(Circle(1), ((np.nan, 0), 0), Circle(1), ((0, 0), 0)), InvalidPoseError),
    (lambda: distance(Circle(1), ((0, 0), np.nan), Circle(1), ((0, 0), 0)), InvalidPoseError),
    (lambda: distance(Circle(1), ((0, 0), 0), Sphere(1), ((0, 0, 0), (1, 0, 0, 0))), UnsupportedPairError),
    (lambda: distance(Circle(1), ((0, 0), 0), Circle(1), ((0, 0), 0), max_distance=-1), InvalidArgumentError),
    (lambda: distance(Circle(1), ((0, 0), 0), Circle(1), ((0, 0), 0), max_distance=np.nan), InvalidArgumentError),
    (lambda: distance(HalfPlane((0, 1), 0), ((0, 0), 0), Circle(1), ((0, 0), 0)), InvalidPoseError),
    (lambda: distance("circle", ((0, 0), 0), Circle(1), ((0, 0), 0)), UnsupportedPairError),
    (lambda: distance(Sphere(1), ((0, 0, 0), (2, 0, 0, 0)), Sphere(1), ((0, 0, 0), (1, 0, 0, 0))),
     InvalidPoseError),
])
def test_bad_input_is_a_clear_error(call, error):
    with pytest.raises(error) as info:
        call()
    assert isinstance(info.value, CollideWorldError)
    assert "got" in str(info.value) or "cannot" in str(info.value)


def test_exported():
    assert cw.distance is distance and cw.DistanceResult is type(distance(Circle(1), ((0, 0), 0), Circle(1),
                                                                        ((3, 0), 0)))


# -- compiled kernel against its Python twin ---------------------------------------------

def _random_pieces(rng, near_touching):
    a = rng.normal(size=(int(rng.integers(1, 9)), 3))
    b = rng.normal(size=(int(rng.integers(1, 9)), 3))
    if rng.random() < 0.5:
        a[:, 2] = 0
        b[:, 2] = 0
    b += rng.normal(size=3) * 3
    if near_touching:  # slide b along the x axis until the hulls' x ranges just meet
        b[:, 0] += a[:, 0].max() - b[:, 0].min()
    return a, b


@pytest.mark.parametrize("near_touching", [False, True])
def test_compiled_matches_python_twin(near_touching):
    rng = np.random.default_rng(17)
    twin = gjk.python_twin("shape_distance")
    for _ in range(300):
        a, b = _random_pieces(rng, near_touching)
        world = np.concatenate([a, b])
        pf, pc = np.array([0, len(a)]), np.array([len(a), len(b)])
        rad = rng.uniform(0, 0.5, 2) * (rng.random() < 0.5)
        res = []
        for fn in (gjk.shape_distance, twin):
            out = np.zeros(11)
            d = fn(world, pf, pc, rad, np.zeros(2, dtype=np.int64), 0, 1, 1, 1, np.zeros((16, 4)), out, np.zeros(11))
            res.append((d, out))
        assert res[0][0] == pytest.approx(res[1][0], rel=1e-12, abs=1e-14)
        np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-9, atol=1e-12)
