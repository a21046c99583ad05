"""Ray casts against balls, boxes, convex polygons and half-spaces.

Expected values come from hand computations or from independent methods:
shapely 2.x segment intersection in 2D, an exact quadratic solved per circle
with ``math``, ray/rectangle crossings of each box face solved as a linear
system in 3D, and dense sampling plus bisection with an exact point-in-sphere
test. Cases within 1e-9 of grazing are left out of the randomized
comparisons, where the reference and the kernel may legitimately disagree.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, MultiPoint, Point, Polygon
from shapely.geometry.polygon import orient

from collideworld.geometry.raycast import (
    RayHits,
    raycast_ball,
    raycast_box,
    raycast_halfspace,
    raycast_polygon,
)
from collideworld.geometry.rotation import rotation_matrix_2d, rotation_matrix_3d

S2 = math.sqrt(2.0)
INF = math.inf


def one(result: RayHits, i: int = 0) -> tuple[bool, float, list[float]]:
    return bool(result.hit[i]), float(result.distance[i]), result.normal[i].tolist()


def assert_miss(result: RayHits, i: int = 0) -> None:
    assert not result.hit[i]
    assert result.distance[i] == INF
    assert np.all(np.isfinite(result.normal[i]))


def assert_hit(result: RayHits, distance: float, normal, i: int = 0, atol: float = 1e-12) -> None:
    assert result.hit[i]
    assert result.distance[i] == pytest.approx(distance, abs=atol)
    np.testing.assert_allclose(result.normal[i], normal, atol=1e-12)


# --- balls, by hand ---------------------------------------------------------------


def test_ball_head_on_hits_at_known_distance():
    r = raycast_ball([-5.0, 0.0], [1.0, 0.0], INF, [[0.0, 0.0]], [1.0])
    assert_hit(r, 4.0, [-1.0, 0.0])


def test_ball_offset_ray_hits_at_chord_start():
    # y = 0.6 meets the unit circle at x = -0.8.
    r = raycast_ball([-5.0, 0.6], [1.0, 0.0], INF, [[0.0, 0.0]], [1.0])
    assert_hit(r, 4.2, [-0.8, 0.6])


def test_sphere_head_on_and_translated():
    r = raycast_ball([3.0, -2.0, 10.0], [0.0, 0.0, -1.0], INF, [[3.0, -2.0, 1.0]], [2.0])
    assert_hit(r, 7.0, [0.0, 0.0, 1.0])


def test_ball_tangent_ray_hits():
    r = raycast_ball([-5.0, 1.0], [1.0, 0.0], INF, [[0.0, 0.0]], [1.0])
    assert_hit(r, 5.0, [0.0, 1.0])
    # Oblique tangent: direction (0.6, 0.8) touches the unit circle at
    # (0.8, -0.6), which is perpendicular to it; start 5 back from there.
    # The inputs round, and a line inside by delta cuts a half chord of
    # sqrt(2 delta): an ulp-sized delta moves the entry by ~1e-8.
    r = raycast_ball([0.8 - 3.0, -0.6 - 4.0], [0.6, 0.8], INF, [[0.0, 0.0]], [1.0])
    assert r.hit[0]
    assert r.distance[0] == pytest.approx(5.0, abs=1e-7)
    np.testing.assert_allclose(r.normal[0], [0.8, -0.6], atol=1e-7)


def test_ball_near_tangent_miss():
    assert_miss(raycast_ball([-5.0, 1.0 + 1e-6], [1.0, 0.0], INF, [[0.0, 0.0]], [1.0]))


def test_ball_origin_inside_or_on_boundary_hits_at_zero():
    r = raycast_ball([0.3, 0.0], [0.0, 1.0], INF, [[0.0, 0.0]], [1.0])
    assert one(r) == (True, 0.0, [0.0, -1.0])
    # On the boundary and heading away still counts (closed shape).
    r = raycast_ball([1.0, 0.0], [1.0, 0.0], INF, [[0.0, 0.0]], [1.0])
    assert one(r) == (True, 0.0, [-1.0, 0.0])


def test_ball_behind_origin_misses():
    assert_miss(raycast_ball([5.0, 0.0], [1.0, 0.0], INF, [[0.0, 0.0]], [1.0]))


def test_ball_max_distance_is_inclusive():
    args = ([-5.0, 0.0], [1.0, 0.0])
    assert_hit(raycast_ball(*args, 4.0, [[0.0, 0.0]], [1.0]), 4.0, [-1.0, 0.0])
    assert_miss(raycast_ball(*args, 3.999, [[0.0, 0.0]], [1.0]))
    assert_hit(raycast_ball(*args, 0.0, [[-5.5, 0.0]], [1.0]), 0.0, [-1.0, 0.0])


def test_ball_batch_mixes_hits_and_misses():
    centers = [[0.0, 0.0], [0.0, 5.0], [10.0, 0.0], [-10.0, 0.0]]
    r = raycast_ball([-5.0, 0.0], [1.0, 0.0], 20.0, centers, [1.0, 1.0, 2.0, 1.0])
    np.testing.assert_array_equal(r.hit, [True, False, True, False])
    np.testing.assert_allclose(r.distance, [4.0, INF, 13.0, INF])
    np.testing.assert_array_equal(r.normal[[1, 3]], 0.0)


# --- boxes, by hand -----------------------------------------------------------------


def test_box_axis_aligned_face_hit():
    r = raycast_box([-5.0, 0.0], [1.0, 0.0], INF, [[0.0, 0.0]], [np.eye(2)], [[1.0, 2.0]])
    assert_hit(r, 4.0, [-1.0, 0.0])


def test_box_rotated_45_degrees_by_hand():
    # Axes u = (1, 1)/sqrt2 (half 2) and v = (-1, 1)/sqrt2 (half 1), centred
    # at (3, -2). Along y = -2 the point (3 + x, -2) has v-coordinate
    # -x/sqrt2, so the ray enters through the +v face at x = -sqrt2 (the u
    # slab allows |x| <= 2 sqrt2): distance 8 - sqrt2, normal +v.
    rot = rotation_matrix_2d(np.pi / 4)[None]
    r = raycast_box([-5.0, -2.0], [1.0, 0.0], INF, [[3.0, -2.0]], rot, [[2.0, 1.0]])
    assert_hit(r, 8.0 - S2, [-1 / S2, 1 / S2], atol=1e-12)


def test_box_rotated_45_degrees_diagonal_ray():
    # Same box frame centred at 0, ray along -u from (10, 10): enters the +u
    # face at u = 2, i.e. 10 sqrt2 - 2 from the origin.
    rot = rotation_matrix_2d(np.pi / 4)[None]
    d = np.array([-1.0, -1.0]) / S2
    r = raycast_box([10.0, 10.0], d, INF, [[0.0, 0.0]], rot, [[2.0, 1.0]])
    assert_hit(r, 10 * S2 - 2.0, [1 / S2, 1 / S2], atol=1e-12)


def test_box_3d_face_hit_and_rotated():
    r = raycast_box([0.0, 0.0, 10.0], [0.0, 0.0, -1.0], INF, [[0.0, 0.0, 0.0]],
                    [np.eye(3)], [[1.0, 2.0, 3.0]])
    assert_hit(r, 7.0, [0.0, 0.0, 1.0])
    # 45 degrees about z: along x the footprint is the diamond |x| + |y| <= sqrt2
    # (half extents 1, 1 in x, y), so y = 0.5 enters at x = -(sqrt2 - 0.5).
    q = [math.cos(np.pi / 8), 0.0, 0.0, math.sin(np.pi / 8)]
    rot = rotation_matrix_3d(q)[None]
    r = raycast_box([-5.0, 0.5, 0.2], [1.0, 0.0, 0.0], INF, [[0.0, 0.0, 0.0]], rot, [[1.0, 1.0, 3.0]])
    assert_hit(r, 5.5 - S2, [-1 / S2, 1 / S2, 0.0], atol=1e-12)


def test_box_parallel_to_slab_inside_hits_outside_misses_without_nan():
    eye = [np.eye(2)]
    with np.errstate(all="raise"):
        inside = raycast_box([-5.0, 0.5], [1.0, 0.0], INF, [[0.0, 0.0]], eye, [[1.0, 1.0]])
        outside = raycast_box([-5.0, 1.5], [1.0, 0.0], INF, [[0.0, 0.0]], eye, [[1.0, 1.0]])
        vertical = raycast_box([0.5, 5.0], [0.0, -1.0], INF, [[0.0, 0.0]], eye, [[1.0, 1.0]])
    assert_hit(inside, 4.0, [-1.0, 0.0])
    assert_miss(outside)
    assert_hit(vertical, 4.0, [0.0, 1.0])


def test_box_ray_along_face_grazes():
    # y = 1 runs along the top face: the closed box is touched from x = -1.
    r = raycast_box([-5.0, 1.0], [1.0, 0.0], INF, [[0.0, 0.0]], [np.eye(2)], [[1.0, 1.0]])
    assert_hit(r, 4.0, [-1.0, 0.0])
    # Rotating by 90 degrees leaves ~6e-17 in the matrix: still a graze.
    rot = rotation_matrix_2d(np.pi / 2)[None]
    r = raycast_box([1e6 - 5.0, 1e6 + 1.0], [1.0, 0.0], INF, [[1e6, 1e6]], rot, [[1.0, 1.0]])
    assert r.hit[0]
    assert r.distance[0] == pytest.approx(4.0, abs=1e-6)
    assert np.all(np.isfinite(r.normal))


def test_box_ray_grazing_corner_hits():
    # Unit box at 45 degrees is the diamond |x| + |y| <= sqrt2 with its top
    # corner at (0, sqrt2); the horizontal ray through it only touches it.
    rot = rotation_matrix_2d(np.pi / 4)[None]
    r = raycast_box([-5.0, S2], [1.0, 0.0], INF, [[0.0, 0.0]], rot, [[1.0, 1.0]])
    assert r.hit[0]
    assert r.distance[0] == pytest.approx(5.0, abs=1e-9)
    np.testing.assert_allclose(r.normal[0], [-1 / S2, 1 / S2], atol=1e-9)
    assert_miss(raycast_box([-5.0, S2 + 1e-6], [1.0, 0.0], INF, [[0.0, 0.0]], rot, [[1.0, 1.0]]))


def test_box_3d_ray_grazing_edge_hits():
    # Along the edge y = 1, z = 1 of the cube [-1, 1]^3.
    r = raycast_box([-5.0, 1.0, 1.0], [1.0, 0.0, 0.0], INF, [[0.0, 0.0, 0.0]],
                    [np.eye(3)], [[1.0, 1.0, 1.0]])
    assert_hit(r, 4.0, [-1.0, 0.0, 0.0])


def test_box_origin_inside_and_max_distance():
    eye = [np.eye(2)]
    r = raycast_box([0.2, -0.3], [0.0, 1.0], INF, [[0.0, 0.0]], eye, [[1.0, 1.0]])
    assert one(r) == (True, 0.0, [0.0, -1.0])
    assert_hit(raycast_box([-5.0, 0.0], [1.0, 0.0], 4.0, [[0.0, 0.0]], eye, [[1.0, 1.0]]), 4.0, [-1.0, 0.0])
    assert_miss(raycast_box([-5.0, 0.0], [1.0, 0.0], 3.999, [[0.0, 0.0]], eye, [[1.0, 1.0]]))
    assert_miss(raycast_box([5.0, 0.0], [1.0, 0.0], INF, [[0.0, 0.0]], eye, [[1.0, 1.0]]))


# --- polygons, by hand --------------------------------------------------------------

TRIANGLE = [[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]]


def test_polygon_triangle_by_hand():
    # Hypotenuse x + y = 4 meets the diagonal from (5, 5) at (2, 2).
    d = np.array([-1.0, -1.0]) / S2
    assert_hit(raycast_polygon([5.0, 5.0], d, INF, [TRIANGLE]), 3 * S2, [1 / S2, 1 / S2])
    assert_hit(raycast_polygon([-1.0, 1.0], [1.0, 0.0], INF, [TRIANGLE]), 1.0, [-1.0, 0.0])
    assert_hit(raycast_polygon([1.0, -3.0], [0.0, 1.0], INF, [TRIANGLE]), 3.0, [0.0, -1.0])
    assert_miss(raycast_polygon([5.0, 5.0], -d, INF, [TRIANGLE]))


def test_polygon_padding_is_ignored():
    padded = TRIANGLE + [[0.0, 4.0], [0.0, 4.0]]
    square = [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0]]
    d = np.array([-1.0, -1.0]) / S2
    r = raycast_polygon([5.0, 5.0], d, INF, [padded, square])
    assert_hit(r, 3 * S2, [1 / S2, 1 / S2], i=0)
    # The square is entered at its (1, 1) corner, 4 sqrt2 along the diagonal.
    assert r.hit[1] and r.distance[1] == pytest.approx(4 * S2, abs=1e-12)


def test_polygon_grazes_vertex_and_slides_along_edge():
    assert_hit(raycast_polygon([-1.0, 4.0], [1.0, 0.0], INF, [TRIANGLE]), 1.0, [-1.0, 0.0])
    # Along the bottom edge y = 0: enters through the left edge at x = 0.
    assert_hit(raycast_polygon([-1.0, 0.0], [1.0, 0.0], INF, [TRIANGLE]), 1.0, [-1.0, 0.0])
    with np.errstate(all="raise"):
        assert_miss(raycast_polygon([-1.0, -0.1], [1.0, 0.0], INF, [TRIANGLE]))
        assert_miss(raycast_polygon([-1.0, 4.0 + 1e-6], [1.0, 0.0], INF, [TRIANGLE]))


def test_polygon_origin_inside_and_max_distance():
    r = raycast_polygon([1.0, 1.0], [0.6, 0.8], INF, [TRIANGLE])
    assert one(r) == (True, 0.0, [-0.6, -0.8])
    assert_hit(raycast_polygon([-1.0, 1.0], [1.0, 0.0], 1.0, [TRIANGLE]), 1.0, [-1.0, 0.0])
    assert_miss(raycast_polygon([-1.0, 1.0], [1.0, 0.0], 0.999, [TRIANGLE]))


# --- half-spaces, by hand -----------------------------------------------------------


def test_halfspace_plane_by_hand():
    n, off = [[0.0, 0.0, 1.0]], [1.0]
    assert_hit(raycast_halfspace([0.0, 0.0, 5.0], [0.0, 0.0, -1.0], INF, n, off), 4.0, [0.0, 0.0, 1.0])
    # Oblique: falls 0.8 per unit, 4 to fall.
    assert_hit(raycast_halfspace([0.0, 0.0, 5.0], [0.6, 0.0, -0.8], INF, n, off), 5.0, [0.0, 0.0, 1.0])
    assert_miss(raycast_halfspace([0.0, 0.0, 5.0], [0.6, 0.0, -0.8], 4.9, n, off))
    with np.errstate(all="raise"):
        assert_miss(raycast_halfspace([0.0, 0.0, 5.0], [1.0, 0.0, 0.0], INF, n, off))
        inside = raycast_halfspace([0.0, 0.0, -5.0], [1.0, 0.0, 0.0], INF, n, off)
    assert one(inside) == (True, 0.0, [-1.0, 0.0, 0.0])
    assert_miss(raycast_halfspace([0.0, 0.0, 5.0], [0.0, 0.0, 1.0], INF, n, off))
    on_boundary = raycast_halfspace([0.0, 0.0, 1.0], [0.0, 0.0, 1.0], INF, n, off)
    assert one(on_boundary) == (True, 0.0, [0.0, 0.0, -1.0])


def test_halfspace_half_plane_2d():
    # x - y <= 0 (normal (1, -1)/sqrt2); from (3, 0) going -x it enters at x = 0.
    r = raycast_halfspace([3.0, 0.0], [-1.0, 0.0], INF, [[1 / S2, -1 / S2]], [0.0])
    assert_hit(r, 3.0, [1 / S2, -1 / S2])


# --- randomized comparisons in 2D against shapely -------------------------------------

GRAZE = 1e-9
SEGMENT_FOR_INF = 200.0


def random_ray(rng: np.random.Generator, dim: int) -> tuple[np.ndarray, np.ndarray, float]:
    origin = rng.uniform(-10.0, 10.0, dim)
    d = rng.normal(size=dim)
    d /= np.linalg.norm(d)
    max_distance = INF if rng.random() < 0.3 else float(rng.uniform(0.0, 25.0))
    return origin, d, max_distance


def aim(rng: np.random.Generator, origin: np.ndarray, centers: np.ndarray) -> np.ndarray:
    """Unit direction from ``origin`` towards near a random centre, so hits are common."""
    target = centers[rng.integers(len(centers))] + rng.uniform(-1.0, 1.0, origin.shape)
    return (target - origin) / np.linalg.norm(target - origin)


def random_convex_polygons(rng: np.random.Generator, n: int, k_max: int) -> tuple[np.ndarray, list[Polygon]]:
    polys = []
    for _ in range(n):
        center = rng.uniform(-8.0, 8.0, 2)
        pts = center + rng.uniform(-3.0, 3.0, (rng.integers(3, k_max + 1), 2))
        hull = MultiPoint(pts).convex_hull
        if hull.geom_type != "Polygon" or hull.area < 1e-3:
            hull = Point(center).buffer(1.0, quad_segs=2)
        polys.append(orient(hull, 1.0))
    rings = [np.asarray(p.exterior.coords)[:-1] for p in polys]
    k = max(len(r) for r in rings)
    verts = np.stack([np.concatenate([r, np.repeat(r[-1:], k - len(r), axis=0)]) for r in rings])
    return verts, polys


def shapely_reference(origin, d, max_distance, poly: Polygon):
    """(skip, hit, distance, hit point) for a ray against a shapely polygon."""
    length = SEGMENT_FOR_INF if math.isinf(max_distance) else max_distance
    end = origin + d * length
    segment = LineString([origin, end]) if length > 0 else Point(origin)
    boundary = poly.exterior
    if (shapely.distance(Point(origin), boundary) <= GRAZE
            or shapely.distance(Point(end), boundary) <= GRAZE):
        return True, None, None, None
    gap = shapely.distance(segment, poly)
    if 0.0 < gap <= GRAZE:
        return True, None, None, None
    inter = shapely.intersection(segment, poly)
    if inter.is_empty:
        return False, False, INF, None
    if length > 0 and inter.length <= GRAZE:
        return True, None, None, None
    coords = shapely.get_coordinates(inter)
    t = float(np.min((coords - origin) @ d))
    return False, True, max(t, 0.0), origin + max(t, 0.0) * d


def edge_normals_through(point, poly: Polygon) -> list[np.ndarray]:
    """Outward unit normals of the polygon edges within GRAZE-ish of ``point``."""
    ring = np.asarray(poly.exterior.coords)
    out = []
    for a, b in zip(ring[:-1], ring[1:], strict=True):
        if shapely.distance(Point(point), LineString([a, b])) <= 1e-8:
            e = b - a
            out.append(np.array([e[1], -e[0]]) / np.hypot(*e))
    return out


def check_against_polygons(result: RayHits, origin, d, max_distance, polys) -> int:
    checked = 0
    for i, poly in enumerate(polys):
        skip, hit, distance, point = shapely_reference(origin, d, max_distance, poly)
        if skip:
            continue
        checked += 1
        assert bool(result.hit[i]) == hit, (i, origin, d, max_distance, poly.wkt)
        if not hit:
            assert result.distance[i] == INF
            continue
        assert result.distance[i] == pytest.approx(distance, abs=1e-9)
        if distance == 0.0:
            np.testing.assert_array_equal(result.normal[i], -d)
        else:
            normals = edge_normals_through(point, poly)
            assert any(np.allclose(result.normal[i], nrm, atol=1e-9) for nrm in normals), (
                i, result.normal[i], normals)
    return checked


def test_polygon_matches_shapely():
    rng = np.random.default_rng(20240611)
    checked = hits = 0
    for _ in range(40):
        verts, polys = random_convex_polygons(rng, 25, 8)
        origin, d, max_distance = random_ray(rng, 2)
        if rng.random() < 0.5:
            d = aim(rng, origin, verts.mean(axis=1))
        r = raycast_polygon(origin, d, max_distance, verts)
        checked += check_against_polygons(r, origin, d, max_distance, polys)
        hits += int(r.hit.sum())
    assert checked > 900 and hits > 100


def test_box_2d_matches_shapely():
    rng = np.random.default_rng(7)
    signs = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=float)
    checked = hits = 0
    for _ in range(40):
        n = 25
        center = rng.uniform(-8.0, 8.0, (n, 2))
        half = rng.uniform(0.1, 3.0, (n, 2))
        angle = rng.uniform(-np.pi, np.pi, n)
        # A quarter of the boxes are axis-aligned so directions along the
        # axes give exact zeros in the box frame.
        angle[rng.random(n) < 0.25] = 0.0
        rot = rotation_matrix_2d(angle)
        corners = center[:, None, :] + np.einsum("nij,nkj->nki", rot, signs[None] * half[:, None, :])
        polys = [Polygon(c) for c in corners]
        origin, d, max_distance = random_ray(rng, 2)
        if rng.random() < 0.5:
            d = aim(rng, origin, center)
        elif rng.random() < 0.5:
            d = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]][rng.integers(4)])
        r = raycast_box(origin, d, max_distance, center, rot, half)
        assert not np.isnan(r.distance).any() and not np.isnan(r.normal).any()
        checked += check_against_polygons(r, origin, d, max_distance, polys)
        hits += int(r.hit.sum())
    assert checked > 900 and hits > 100


def circle_reference(origin, d, max_distance, center, radius):
    """(skip, hit, distance) from shapely's segment distance and a plain quadratic."""
    length = SEGMENT_FOR_INF if math.isinf(max_distance) else max_distance
    end = origin + d * length
    segment = LineString([origin, end]) if length > 0 else Point(origin)
    gap = shapely.distance(Point(center), segment) - radius
    from_origin = math.dist(origin, center) - radius
    from_end = math.dist(end, center) - radius
    if min(abs(gap), abs(from_origin), abs(from_end)) <= GRAZE:
        return True, None, None
    if gap > 0:
        return False, False, INF
    if from_origin <= 0:
        return False, True, 0.0
    # |o + t d - c|^2 = r^2 with |d| = 1: t^2 + 2 b t + c = 0.
    m = origin - center
    b = float(m @ d)
    c = float(m @ m) - radius * radius
    return False, True, -b - math.sqrt(b * b - c)


def test_circle_matches_shapely_and_quadratic():
    rng = np.random.default_rng(99)
    checked = hits = 0
    for _ in range(40):
        n = 25
        center = rng.uniform(-8.0, 8.0, (n, 2))
        radius = rng.uniform(0.1, 4.0, n)
        origin, d, max_distance = random_ray(rng, 2)
        if rng.random() < 0.5:
            d = aim(rng, origin, center)
        r = raycast_ball(origin, d, max_distance, center, radius)
        for i in range(n):
            skip, hit, distance = circle_reference(origin, d, max_distance, center[i], radius[i])
            if skip:
                continue
            checked += 1
            assert bool(r.hit[i]) == hit
            if not hit:
                assert r.distance[i] == INF
                continue
            hits += 1
            assert r.distance[i] == pytest.approx(distance, abs=1e-9)
            expected = -d if distance == 0.0 else (origin + distance * d - center[i]) / radius[i]
            np.testing.assert_allclose(r.normal[i], expected, atol=1e-9)
    assert checked > 900 and hits > 100


# --- randomized comparisons in 3D -------------------------------------------------------


def box_faces_reference(origin, d, max_distance, center, rot, half):
    """(skip, hit, distance, normal) from ray/rectangle crossings of the six faces.

    Each face ``c + s h_i a_i + u h_j a_j + w h_k a_k`` with ``|u|, |w| <= 1``
    is crossed where ``o + t d`` equals it: a 3x3 linear system in (t, u, w).
    The ray enters through the face with the smallest t among those it
    crosses heading inwards.
    """
    length = SEGMENT_FOR_INF if math.isinf(max_distance) else max_distance
    local = rot.T @ (origin - center)
    margin = np.min(half - np.abs(local))
    if abs(margin) <= GRAZE:
        return True, None, None, None
    if margin > 0:
        return False, True, 0.0, -d
    best = (INF, None)
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        for s in (1.0, -1.0):
            outward = s * rot[:, i]
            if outward @ d >= -1e-9:  # leaving or parallel: never the entry face of a clean hit
                continue
            a = np.column_stack([d, -half[j] * rot[:, j], -half[k] * rot[:, k]])
            t, u, w = np.linalg.solve(a, center + s * half[i] * rot[:, i] - origin)
            if max(abs(u), abs(w)) > 1.0 + 1e-6 or t < -1e-6:
                continue
            if max(abs(u), abs(w)) >= 1.0 - 1e-6:
                return True, None, None, None  # through an edge: ambiguous normal
            if abs(t - length) <= GRAZE:
                return True, None, None, None
            if t < best[0]:
                best = (t, outward)
    t, normal = best
    if t > length:
        return False, False, INF, None
    return False, True, t, normal


def test_box_3d_matches_face_crossings():
    rng = np.random.default_rng(3)
    checked = hits = 0
    for _ in range(30):
        n = 20
        center = rng.uniform(-6.0, 6.0, (n, 3))
        half = rng.uniform(0.1, 3.0, (n, 3))
        q = rng.normal(size=(n, 4))
        q[rng.random(n) < 0.25] = [1.0, 0.0, 0.0, 0.0]
        rot = rotation_matrix_3d(q)
        origin, d, max_distance = random_ray(rng, 3)
        d = aim(rng, origin, center)
        r = raycast_box(origin, d, max_distance, center, rot, half)
        for i in range(n):
            skip, hit, distance, normal = box_faces_reference(origin, d, max_distance, center[i], rot[i], half[i])
            if skip:
                continue
            checked += 1
            assert bool(r.hit[i]) == hit, i
            if hit:
                hits += 1
                assert r.distance[i] == pytest.approx(distance, abs=1e-9)
                np.testing.assert_allclose(r.normal[i], normal, atol=1e-9)
    assert checked > 500 and hits > 40


def sphere_sampling_reference(origin, d, max_distance, center, radius, spacing=1e-3):
    """(skip, hit, distance): dense samples with an exact inside test, then bisection.

    Sampling finds every stretch of the ray inside the sphere longer than
    ``spacing``; cases where the chord can be shorter (the line passes within
    1e-2 of the surface, or the segment ends within 1e-2 of it) are skipped.
    """
    length = SEGMENT_FOR_INF if math.isinf(max_distance) else max_distance
    m = origin - center
    closest_t = min(max(-(m @ d), 0.0), length)
    nearest = np.linalg.norm(m + closest_t * d)
    end = np.linalg.norm(m + length * d)
    if abs(nearest - radius) < 1e-2 or abs(end - radius) < 1e-2:
        return True, None, None

    def inside(t):
        p = origin + np.multiply.outer(t, d) - center
        return np.einsum("...d,...d->...", p, p) <= radius * radius

    ts = np.linspace(0.0, length, int(length / spacing) + 2)
    flags = inside(ts)
    if not flags.any():
        return False, False, INF
    first = int(np.argmax(flags))
    if first == 0:
        return False, True, 0.0
    lo, hi = ts[first - 1], ts[first]
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if inside(mid):
            hi = mid
        else:
            lo = mid
    return False, True, hi


def test_sphere_matches_sampling_and_bisection():
    rng = np.random.default_rng(11)
    checked = hits = 0
    for _ in range(12):
        n = 15
        center = rng.uniform(-5.0, 5.0, (n, 3))
        radius = rng.uniform(0.3, 4.0, n)
        origin, d, max_distance = random_ray(rng, 3)
        d = aim(rng, origin, center)
        r = raycast_ball(origin, d, max_distance, center, radius)
        for i in range(n):
            skip, hit, distance = sphere_sampling_reference(origin, d, max_distance, center[i], radius[i])
            if skip:
                continue
            checked += 1
            assert bool(r.hit[i]) == hit, i
            if hit:
                hits += 1
                assert r.distance[i] == pytest.approx(distance, abs=1e-9)
    assert checked > 100 and hits > 10


# --- properties ---------------------------------------------------------------------------


def _random_batches(rng: np.random.Generator, n: int):
    """One random ray per kernel and a batch of N shapes for it."""
    o2, d2, m2 = random_ray(rng, 2)
    o3, d3, m3 = random_ray(rng, 3)
    verts, _ = random_convex_polygons(rng, n, 7)
    nrm = rng.normal(size=(n, 3))
    nrm /= np.linalg.norm(nrm, axis=1, keepdims=True)
    return {
        "ball_2d": (raycast_ball, (o2, d2, m2, rng.uniform(-8, 8, (n, 2)), rng.uniform(0.1, 4, n))),
        "ball_3d": (raycast_ball, (o3, d3, m3, rng.uniform(-8, 8, (n, 3)), rng.uniform(0.1, 4, n))),
        "box_2d": (raycast_box, (o2, d2, m2, rng.uniform(-8, 8, (n, 2)),
                                 rotation_matrix_2d(rng.uniform(-4, 4, n)), rng.uniform(0.1, 3, (n, 2)))),
        "box_3d": (raycast_box, (o3, d3, m3, rng.uniform(-8, 8, (n, 3)),
                                 rotation_matrix_3d(rng.normal(size=(n, 4))), rng.uniform(0.1, 3, (n, 3)))),
        "polygon": (raycast_polygon, (o2, d2, m2, verts)),
        "halfspace_3d": (raycast_halfspace, (o3, d3, m3, nrm, rng.uniform(-8, 8, n))),
    }


@pytest.mark.parametrize("kind", ["ball_2d", "ball_3d", "box_2d", "box_3d", "polygon", "halfspace_3d"])
def test_scalar_batch_equivalence(kind):
    rng = np.random.default_rng(5)
    for _ in range(5):
        fn, (o, d, m, *shapes) = _random_batches(rng, 60)[kind]
        batch = fn(o, d, m, *shapes)
        for i in range(len(shapes[0])):
            single = fn(o, d, m, *(s[i:i + 1] for s in shapes))
            assert bool(single.hit[0]) == bool(batch.hit[i])
            assert single.distance[0] == batch.distance[i]
            np.testing.assert_array_equal(single.normal[0], batch.normal[i])


@pytest.mark.parametrize("kind", ["ball_2d", "ball_3d", "box_2d", "box_3d", "polygon", "halfspace_3d"])
def test_result_invariants(kind):
    rng = np.random.default_rng(6)
    for _ in range(20):
        fn, (o, d, m, *shapes) = _random_batches(rng, 50)[kind]
        r = fn(o, d, m, *shapes)
        assert r.hit.dtype == bool and r.hit.shape == (50,)
        assert r.distance.shape == (50,) and r.normal.shape == (50, len(o))
        assert not np.isnan(r.distance).any() and np.isfinite(r.normal).all()
        assert np.all(r.distance[r.hit] >= 0) and np.all(r.distance[r.hit] <= m)
        assert np.all(r.distance[~r.hit] == INF) and np.all(r.normal[~r.hit] == 0)
        np.testing.assert_allclose(np.linalg.norm(r.normal[r.hit], axis=1), 1.0, atol=1e-12)
        # A surface hit faces the ray; a start inside reports -direction.
        facing = r.normal[r.hit] @ d
        assert np.all(facing <= 1e-12)


def test_empty_batch():
    r = raycast_polygon([0.0, 0.0], [1.0, 0.0], INF, np.zeros((0, 3, 2)))
    assert r.hit.shape == (0,) and r.normal.shape == (0, 2)
    r = raycast_box([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], INF, np.zeros((0, 3)), np.zeros((0, 3, 3)), np.zeros((0, 3)))
    assert r.distance.shape == (0,)


# --- grazing, randomized ------------------------------------------------------------------


def test_ray_sliding_along_polygon_edge_enters_at_its_first_vertex():
    # A ray along edge k, starting s before vertex k, touches the polygon
    # first at vertex k, through edge k - 1. Rounding leaves the ray ~1e-16
    # on either side of edge k's line: it must still be a hit at s.
    rng = np.random.default_rng(12)
    checked = 0
    for _ in range(30):
        verts, polys = random_convex_polygons(rng, 1, 8)
        ring = np.asarray(polys[0].exterior.coords)[:-1]
        for k in range(len(ring)):
            a, b, prev = ring[k], ring[(k + 1) % len(ring)], ring[k - 1]
            if np.linalg.norm(b - a) < 0.5:
                continue
            d = (b - a) / np.linalg.norm(b - a)
            s = float(rng.uniform(0.5, 3.0))
            r = raycast_polygon(a - s * d, d, INF, verts)
            e = a - prev
            entered = np.array([e[1], -e[0]]) / np.hypot(*e)
            # When rounding leaves the ray just outside edge k, the entry is
            # the one into the polygon grown by the touching tolerance
            # (<= 1.5e-11 at these coordinates), earlier by tol / |n . d|.
            assert_hit(r, s, entered, atol=1e-9 + 1.5e-11 / abs(entered @ d))
            checked += 1
    assert checked > 60


def test_ray_sliding_along_rotated_box_face_enters_at_its_corner():
    rng = np.random.default_rng(13)
    for dim in (2, 3):
        for _ in range(100):
            center = rng.uniform(-50.0, 50.0, dim)
            half = rng.uniform(0.5, 3.0, dim)
            rot = (rotation_matrix_2d(rng.uniform(-np.pi, np.pi)) if dim == 2
                   else rotation_matrix_3d(rng.normal(size=4)))
            # Along box axis 0 on the face +axis 1 (and, in 3D, inside the
            # face in axis 2): enters through the -axis 0 face.
            local = np.zeros(dim)
            local[0] = -half[0]
            local[1] = half[1]
            if dim == 3:
                local[2] = rng.uniform(-0.5, 0.5) * half[2]
            corner = center + rot @ local
            s = float(rng.uniform(0.5, 3.0))
            r = raycast_box(corner - s * rot[:, 0], rot[:, 0], INF, center[None], rot[None], half[None])
            assert_hit(r, s, -rot[:, 0], atol=1e-9)


def test_tangent_rays_hit_despite_rounding():
    # Tangent at p = c + r u, direction perpendicular to u, starting s back.
    # Rounding puts the line an ulp or so inside or outside; a line inside
    # by delta cuts a half chord sqrt(2 r delta), hence the 1e-6 tolerance.
    rng = np.random.default_rng(14)
    for dim in (2, 3):
        for _ in range(200):
            center = rng.uniform(-20.0, 20.0, dim)
            radius = float(rng.uniform(0.2, 4.0))
            u = rng.normal(size=dim)
            u /= np.linalg.norm(u)
            d = rng.normal(size=dim)
            d -= (d @ u) * u
            d /= np.linalg.norm(d)
            s = float(rng.uniform(0.5, 10.0))
            origin = center + radius * u - s * d
            r = raycast_ball(origin, d, INF, center[None], np.array([radius]))
            assert r.hit[0]
            assert r.distance[0] == pytest.approx(s, abs=1e-6)
            np.testing.assert_allclose(r.normal[0], u, atol=1e-6)
