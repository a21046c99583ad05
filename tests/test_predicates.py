"""Point and segment predicates against shapely, scipy and hand calculation.

Touching counts as inside everywhere, so every test has exact boundary
cases on small integer or dyadic coordinates (where shapely's predicates
are exact too), plus random batches compared with an independent method.
"""

from __future__ import annotations

import itertools

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import Delaunay
from scipy.spatial.transform import Rotation

from collideworld.geometry.predicates import (
    box_corners,
    point_in_box,
    point_in_convex_polygon,
    point_in_polygon,
    point_in_triangle,
    point_segment_distance,
    segments_intersect,
)
from collideworld.geometry.rotation import rotation_matrix_2d, rotation_matrix_3d

from .strategies import skyline_polygons, star_polygon_arrays, unit_quaternions

U_SHAPE = np.array([(0, 0), (3, 0), (3, 3), (2, 3), (2, 1), (1, 1), (1, 3), (0, 3)], dtype=float)


def _covers(vertices, points) -> np.ndarray:
    return shapely.covers(shapely.Polygon(vertices), shapely.points(np.asarray(points, dtype=float)))


def _boundary_points(v: np.ndarray) -> np.ndarray:
    """Vertices and edge midpoints (exact for integer vertices)."""
    return np.vstack([v, 0.5 * (v + np.roll(v, -1, axis=0))])


def _grid(lo: float, hi: float, step: float) -> np.ndarray:
    g = np.arange(lo, hi + step / 2, step)
    return np.array(list(itertools.product(g, g)))


# ---------------------------------------------------------------- point_in_triangle


def test_point_in_triangle_hand_values():
    a, b, c = [0, 0], [4, 0], [0, 4]
    pts = [[1, 1], [0, 0], [2, 0], [2, 2], [2.5, 2], [-1e-3, 1], [5, 5]]
    expected = [True, True, True, True, False, False, False]
    assert point_in_triangle(pts, a, b, c).tolist() == expected
    assert point_in_triangle(pts, a, c, b).tolist() == expected  # clockwise


def test_point_in_triangle_scalar_form():
    assert point_in_triangle([1, 1], [0, 0], [4, 0], [0, 4]).shape == ()
    assert bool(point_in_triangle((1.0, 1.0), (0, 0), (4, 0), (0, 4)))


def test_point_in_triangle_degenerate_is_its_segment():
    a, b, c = [0, 0], [1, 1], [2, 2]
    pts = [[0.5, 0.5], [2, 2], [3, 3], [-1, -1], [1, 0]]
    assert point_in_triangle(pts, a, b, c).tolist() == [True, True, False, False, False]


def test_point_in_triangle_matches_shapely():
    rng = np.random.default_rng(0)
    tri = rng.uniform(-10, 10, (500, 3, 2))
    pts = tri.mean(axis=1) + rng.uniform(-5, 5, (500, 2))
    expected = [shapely.Polygon(t).covers(shapely.Point(p)) for t, p in zip(tri, pts, strict=True)]
    got = point_in_triangle(pts, tri[:, 0], tri[:, 1], tri[:, 2])
    assert got.tolist() == expected
    assert 50 < sum(expected) < 450


def test_point_in_triangle_boundary_of_integer_triangles():
    rng = np.random.default_rng(1)
    for _ in range(100):
        t = rng.integers(-8, 8, (3, 2)).astype(float)
        if shapely.Polygon(t).area == 0:
            continue
        pts = np.vstack([_boundary_points(t), _grid(-8, 8, 1.0)])
        got = point_in_triangle(pts, t[0], t[1], t[2])
        assert got.tolist() == _covers(t, pts).tolist()


# ---------------------------------------------------------------- point_in_convex_polygon


def _random_convex(rng, k=12):
    pts = rng.normal(size=(k, 2)) * rng.uniform(0.5, 5) + rng.uniform(-10, 10, 2)
    return np.asarray(shapely.MultiPoint(pts).convex_hull.exterior.coords)[:-1]


def test_point_in_convex_polygon_matches_shapely():
    rng = np.random.default_rng(2)
    for _ in range(50):
        v = _random_convex(rng)
        pts = rng.uniform(-15, 15, (300, 2))
        expected = _covers(v, pts)
        assert point_in_convex_polygon(pts, v).tolist() == expected.tolist()
        assert point_in_convex_polygon(pts, v[::-1]).tolist() == expected.tolist()


@settings(max_examples=60, deadline=None)
@given(st.integers(-10**9, 10**9), st.integers(-10**9, 10**9), st.booleans())
def test_point_in_convex_polygon_far_from_origin(dx, dy, clockwise):
    # integer shifts of half-integer points are exact in float64, so the
    # answer near the origin (checked against shapely) must not change
    v = np.array([(0, 0), (4, 0), (4, 1), (0, 4)], dtype=float)
    v = v[::-1] if clockwise else v
    pts = _grid(-1, 5, 0.5)
    expected = _covers(v, pts)
    shift = np.array([dx, dy], dtype=float)
    assert point_in_convex_polygon(pts + shift, v + shift).tolist() == expected.tolist()


def test_point_in_convex_polygon_boundary_and_padding():
    square = np.array([(0, 0), (2, 0), (2, 2), (0, 2)], dtype=float)
    padded = np.vstack([square, square[-1:], square[-1:]])  # kernel convention
    pts = np.vstack([_boundary_points(square), [[1, 1], [2.5, 1], [1, -0.5], [3, 3]]])
    expected = [True] * 8 + [True, False, False, False]
    assert point_in_convex_polygon(pts, square).tolist() == expected
    assert point_in_convex_polygon(pts, padded).tolist() == expected


def test_point_in_convex_polygon_pairwise_batch():
    rng = np.random.default_rng(3)
    polys = [_random_convex(rng, 8) for _ in range(40)]
    k = max(len(p) for p in polys)
    batch = np.array([np.vstack([p, np.repeat(p[-1:], k - len(p), axis=0)]) for p in polys])
    pts = rng.uniform(-12, 12, (40, 2))
    expected = [bool(_covers(p, [q])[0]) for p, q in zip(polys, pts, strict=True)]
    assert point_in_convex_polygon(pts, batch).tolist() == expected


# ---------------------------------------------------------------- point_in_polygon


def test_point_in_polygon_u_shape_by_hand():
    pts = [[0.5, 2], [1.5, 2], [1.5, 1], [1.5, 0.5], [2.5, 3], [1, 2], [3.5, 1], [1.5, 3]]
    expected = [True, False, True, True, True, True, False, False]
    assert point_in_polygon(pts, U_SHAPE).tolist() == expected
    assert point_in_polygon(pts, U_SHAPE[::-1]).tolist() == expected


def test_point_in_polygon_rays_through_vertices():
    # Integer queries on integer polygons put the +x ray exactly through
    # vertices and along horizontal edges: the half-open rule must count
    # each crossing once.
    rng = np.random.default_rng(4)
    pts = _grid(-1, 4, 0.5)
    checked = 0
    for name, v in [("U", U_SHAPE)] + [(i, None) for i in range(30)]:
        if v is None:
            v = np.array(rng.permutation(_grid(0, 3, 1.0))[: int(rng.integers(4, 9))])
            if not shapely.Polygon(v).is_valid:
                continue
        allpts = np.vstack([pts, _boundary_points(v)])
        assert point_in_polygon(allpts, v).tolist() == _covers(v, allpts).tolist(), name
        checked += 1
    assert checked > 5


def test_point_in_polygon_random_star_polygons_match_shapely():
    rng = np.random.default_rng(5)
    for _ in range(40):
        k = int(rng.integers(3, 40))
        theta = np.sort(rng.uniform(0, 2 * np.pi, k)) * 0.5 + np.linspace(0, np.pi, k, endpoint=False)
        v = rng.uniform(0.2, 4, k)[:, None] * np.c_[np.cos(theta), np.sin(theta)]
        if not shapely.Polygon(v).is_valid:
            continue
        pts = rng.uniform(-4, 4, (400, 2))
        assert point_in_polygon(pts, v).tolist() == _covers(v, pts).tolist()


def test_point_in_polygon_keeps_leading_shape_and_repeats():
    v = np.vstack([U_SHAPE, U_SHAPE[:1], U_SHAPE[:1]])  # repeats, closing copy
    pts = np.array([[[0.5, 2], [1.5, 2]], [[1, 2], [9, 9]]])
    got = point_in_polygon(pts, v)
    assert got.shape == (2, 2)
    assert got.tolist() == [[True, False], [True, False]]
    assert point_in_polygon([0.5, 2.0], v).shape == ()


def test_point_in_polygon_large_batch_is_chunked_consistently():
    v = np.array([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)], dtype=float)
    rng = np.random.default_rng(6)
    pts = rng.uniform(-1, 3, (300_000, 2))
    got = point_in_polygon(pts, v)
    # L shape by hand: the 2x2 square minus the open top-right unit square
    expected = (np.all((pts >= 0) & (pts <= 2), axis=1)) & ~((pts[:, 0] > 1) & (pts[:, 1] > 1))
    assert np.array_equal(got, expected)


@settings(max_examples=60, deadline=None)
@given(skyline_polygons(), st.integers(-10**6, 10**6), st.integers(-10**6, 10**6))
def test_point_in_polygon_translation_invariance(v, dx, dy):
    pts = _grid(-6, 16, 0.5)
    base = point_in_polygon(pts, v)
    assert base.tolist() == _covers(v, pts).tolist()
    # integer shifts of half-integer points are exact in float64
    shift = np.array([dx, dy], dtype=float)
    assert np.array_equal(point_in_polygon(pts + shift, v + shift), base)


@settings(max_examples=40, deadline=None)
@given(star_polygon_arrays(max_vertices=20), st.integers(0, 2**32 - 1))
def test_point_in_polygon_agrees_with_convex_test_on_convex_hulls(v, seed):
    hull = np.asarray(shapely.Polygon(v).convex_hull.exterior.coords)[:-1]
    pts = np.random.default_rng(seed).uniform(-60, 60, (200, 2))
    assert np.array_equal(point_in_polygon(pts, hull), point_in_convex_polygon(pts, hull))
    assert point_in_polygon(pts, v).tolist() == _covers(v, pts).tolist()


# ---------------------------------------------------------------- segments


def _shapely_segment(p, q):
    if np.array_equal(p, q):
        return shapely.Point(p)
    return shapely.LineString([p, q])


def test_segments_intersect_hand_cases():
    cases = [
        # (p1, p2, q1, q2, expected)
        ((0, 0), (2, 2), (0, 2), (2, 0), True),  # X
        ((0, 0), (2, 0), (1, 0), (1, 1), True),  # T
        ((0, 0), (1, 0), (1, 0), (2, 5), True),  # endpoints meet
        ((0, 0), (2, 0), (1, 0), (3, 0), True),  # collinear overlap
        ((0, 0), (1, 0), (1, 0), (2, 0), True),  # collinear, touching ends
        ((0, 0), (1, 0), (2, 0), (3, 0), False),  # collinear, apart
        ((0, 0), (1, 0), (0, 1), (1, 1), False),  # parallel
        ((0, 0), (1, 1), (2, 0), (1.5, 1), False),  # lines cross outside
        ((1, 1), (1, 1), (0, 0), (2, 2), True),  # point on segment
        ((1, 1), (1, 1), (0, 0), (2, 0), False),  # point off segment
        ((1, 1), (1, 1), (1, 1), (1, 1), True),  # same point
    ]
    for p1, p2, q1, q2, expected in cases:
        assert bool(segments_intersect(p1, p2, q1, q2)) is expected, (p1, p2, q1, q2)
        assert bool(segments_intersect(q1, q2, p1, p2)) is expected  # symmetry
        assert bool(segments_intersect(p2, p1, q2, q1)) is expected  # direction


def test_segments_intersect_integer_grid_matches_shapely():
    # Many touching, collinear and degenerate cases: exact on integers.
    rng = np.random.default_rng(7)
    s = rng.integers(0, 4, (4000, 4, 2)).astype(float)
    got = segments_intersect(s[:, 0], s[:, 1], s[:, 2], s[:, 3])
    expected = [
        _shapely_segment(a, b).intersects(_shapely_segment(c, d)) for a, b, c, d in s
    ]
    assert got.tolist() == expected


def test_segments_intersect_random_matches_shapely():
    rng = np.random.default_rng(8)
    s = rng.uniform(-5, 5, (3000, 4, 2))
    got = segments_intersect(s[:, 0], s[:, 1], s[:, 2], s[:, 3])
    expected = shapely.intersects(shapely.linestrings(s[:, :2]), shapely.linestrings(s[:, 2:]))
    assert got.tolist() == expected.tolist()
    assert 300 < expected.sum() < 2700


def test_segments_intersect_broadcasts_one_against_many():
    q1 = np.array([[0.0, -1.0], [5.0, -1.0], [1.0, 0.0]])
    q2 = np.array([[0.0, 1.0], [5.0, 1.0], [3.0, 0.0]])
    assert segments_intersect([-1, 0], [2, 0], q1, q2).tolist() == [True, False, True]


def test_point_segment_distance_hand_values():
    d = point_segment_distance([[0, 1], [3, 4], [-3, -4], [1, 0]], [0, 0], [2, 0])
    assert d.tolist() == [1.0, np.hypot(1, 4), 5.0, 0.0]
    assert float(point_segment_distance([3, 4], [0, 0], [0, 0])) == 5.0


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(-20, 20), min_size=8, max_size=8),
    st.integers(-10**6, 10**6),
    st.integers(-10**6, 10**6),
)
def test_segments_intersect_translation_invariance(c, dx, dy):
    s = np.array(c, dtype=float).reshape(4, 2)
    t = s + [dx, dy]
    expected = _shapely_segment(s[0], s[1]).intersects(_shapely_segment(s[2], s[3]))
    assert bool(segments_intersect(*s)) is expected
    assert bool(segments_intersect(*t)) is expected


# ---------------------------------------------------------------- boxes


def test_box_corners_axis_aligned_by_hand():
    c = box_corners([[1.0, 2.0]], np.eye(2)[None], [[3.0, 4.0]])
    assert c.shape == (1, 4, 2)
    assert {tuple(p) for p in c[0]} == {(-2, -2), (4, -2), (-2, 6), (4, 6)}
    c3 = box_corners(np.zeros((1, 3)), np.eye(3)[None], [[1.0, 2.0, 3.0]])
    assert c3.shape == (1, 8, 3)
    assert {tuple(p) for p in c3[0]} == set(itertools.product((-1, 1), (-2, 2), (-3, 3)))


def test_box_corners_rotated_2d_matches_shapely_box():
    rng = np.random.default_rng(9)
    n = 50
    center = rng.uniform(-10, 10, (n, 2))
    half = rng.uniform(0.1, 3, (n, 2))
    angle = rng.uniform(-np.pi, np.pi, n)
    corners = box_corners(center, rotation_matrix_2d(angle), half)
    for i in range(n):
        ref = shapely.affinity.rotate(
            shapely.box(*(center[i] - half[i]), *(center[i] + half[i])), angle[i], use_radians=True
        )
        hull = shapely.MultiPoint(corners[i]).convex_hull
        assert hull.symmetric_difference(ref).area < 1e-9
        assert np.allclose(np.linalg.norm(corners[i] - center[i], axis=1), np.linalg.norm(half[i]))


def test_point_in_box_2d_matches_shapely():
    rng = np.random.default_rng(10)
    n = 2000
    center = rng.uniform(-5, 5, (n, 2))
    half = rng.uniform(0.2, 3, (n, 2))
    angle = rng.uniform(-np.pi, np.pi, n)
    pts = center + rng.uniform(-4, 4, (n, 2))
    got = point_in_box(pts, center, rotation_matrix_2d(angle), half)
    boxes = [
        shapely.affinity.rotate(shapely.box(*(c - h), *(c + h)), a, origin=tuple(c), use_radians=True)
        for c, h, a in zip(center, half, angle, strict=True)
    ]
    expected = shapely.covers(np.array(boxes), shapely.points(pts))
    assert got.tolist() == expected.tolist()
    assert 200 < expected.sum() < 1800


def test_point_in_box_3d_matches_delaunay():
    rng = np.random.default_rng(11)
    for _ in range(20):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        r = rotation_matrix_3d(q)
        c, h = rng.uniform(-5, 5, 3), rng.uniform(0.2, 2, 3)
        # corners from scipy's rotation (quaternion as [x, y, z, w]), not from collideworld
        signs = np.array(list(itertools.product([-1, 1], repeat=3)), dtype=float)
        hull = Delaunay(c + Rotation.from_quat([*q[1:], q[0]]).apply(signs * h))
        pts = c + rng.uniform(-3, 3, (500, 3))
        expected = hull.find_simplex(pts) >= 0
        assert point_in_box(pts, c, r, h).tolist() == expected.tolist()


def test_point_in_box_boundary_counts():
    r = rotation_matrix_2d(np.pi / 2)  # exact 0/1 entries only up to rounding
    c, h = np.array([1.0, 1.0]), np.array([2.0, 1.0])
    corners = box_corners(c, r, h)
    assert point_in_box(corners, c, r, h).all()  # rounding-level offsets still touch
    # rotated by 90 degrees: x extent is 1, y extent is 2
    assert point_in_box([[2.0, 3.0], [0.0, -1.0], [2.001, 1.0], [1.0, 3.001]], c, r, h).tolist() == [
        True, True, False, False,
    ]
    # faces and corners of a 3D box
    h3 = np.array([1.0, 2.0, 3.0])
    pts = np.array(list(itertools.product((-1, 0, 1), (-2, 0, 2), (-3, 0, 3))), dtype=float)
    assert point_in_box(pts, np.zeros(3), np.eye(3), h3).all()
    assert not point_in_box(pts * 1.001 + [1e-3, 0, 0], np.zeros(3), np.eye(3), h3).all()


@settings(max_examples=60, deadline=None)
@given(unit_quaternions(), st.lists(st.floats(-0.999, 0.999), min_size=3, max_size=3),
       st.integers(-1000, 1000))
def test_point_in_box_3d_local_points(q, u, shift):
    # Points built forward from local coordinates u (|u| < 1 inside, scaled
    # by 1.5 outside on the largest axis): the test must invert the pose.
    r = rotation_matrix_3d(q)
    h = np.array([0.5, 1.0, 2.0])
    c = np.full(3, float(shift))
    u = np.array(u)
    inside = c + r @ (u * h)
    far = u.copy()
    far[np.argmax(np.abs(far))] = 1.5 * np.sign(far[np.argmax(np.abs(far))] or 1.0)
    outside = c + r @ (far * h)
    assert bool(point_in_box(inside, c, r, h))
    assert not bool(point_in_box(outside, c, r, h))
