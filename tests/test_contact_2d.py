"""Ball, box and convex-polygon contact kernels against independent oracles.

Expected values never come from collideworld. Shapes are built here from
their own cos/sin; shapely 2 (GEOS) decides 2D intersection, numpy distances
decide ball-ball, and scipy's bounded least squares gives the 3D ball-box
distance. Depth and normal are checked through what they mean: moving b by
``normal * depth`` (plus or minus 1e-7) just separates the pair, and the
support function of the Minkowski difference, ``h(u) = max_a a.u - min_b b.u``
(how far b must move along ``u`` to clear a), is never below ``depth`` in any
direction and equals it along ``normal``.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import lsq_linear
from scipy.spatial.transform import Rotation

from collideworld.geometry.contact_ball_ball import contact_ball_ball
from collideworld.geometry.contact_ball_box import contact_ball_box
from collideworld.geometry.contact_ball_polygon import contact_ball_polygon
from collideworld.geometry.contact_box_box_2d import contact_box_box_2d
from collideworld.geometry.contact_box_polygon import contact_box_polygon
from collideworld.geometry.contact_polygon_polygon import contact_polygon_polygon
from collideworld.geometry.kernel_support import box_vertices_2d

from .strategies import angles, balls, boxes_2d, convex_polygons_2d, coords

# Random pairs whose oracle margin is this close to zero are left to the
# hand-made touching cases: there, either answer is defensible.
AMBIGUOUS = 1e-9
# Bounded least squares is iterative; its distances are good to ~1e-12, not ulps.
AMBIGUOUS_LSQ = 1e-8
STEP = 1e-7

# --- independent geometry ---------------------------------------------------
# A shape is ("ball", (center, radius)), ("points", (vertices,)) for a
# polygon, or ("box3", (center, rotation, half)) for a 3D box; arrays lead
# with the batch axis.


def rot2(angle):
    """(N, 2, 2) counter-clockwise rotations from cos/sin."""
    c, s = np.cos(angle), np.sin(angle)
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)


def corners_2d(center, angle, half):
    """(N, 4, 2) counter-clockwise corners of oriented rectangles."""
    c, s = np.cos(angle)[:, None], np.sin(angle)[:, None]
    hx, hy = half[:, :1], half[:, 1:]
    ux, uy = np.c_[c, s][:, None, :], np.c_[-s, c][:, None, :]
    sx = np.array([-1.0, 1.0, 1.0, -1.0])[None, :, None]
    sy = np.array([-1.0, -1.0, 1.0, 1.0])[None, :, None]
    return center[:, None, :] + sx * hx[:, :, None] * ux + sy * hy[:, :, None] * uy


def corners_3d(center, rotation, half):
    """(N, 8, 3) corners of oriented 3D boxes."""
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    return center[:, None, :] + np.einsum("nij,nkj->nki", rotation, signs[None] * half[:, None, :])


def random_polygons(rng, n, kmax=7, scale=1.0):
    """(N, kmax, 2) convex CCW polygons on random ellipses, padded by repeats."""
    phi = np.sort(rng.uniform(0, 2 * np.pi, (n, kmax)), axis=1)
    ax = rng.uniform(0.2, 2.0, (n, 1)) * scale
    ay = rng.uniform(0.2, 2.0, (n, 1)) * scale
    local = np.stack([ax * np.cos(phi), ay * np.sin(phi)], -1)
    verts = np.einsum("nij,nkj->nki", rot2(rng.uniform(-np.pi, np.pi, n)), local)
    verts += rng.uniform(-2, 2, (n, 1, 2))
    count = rng.integers(3, kmax + 1, n)
    idx = np.minimum(np.arange(kmax)[None, :], count[:, None] - 1)
    return np.take_along_axis(verts, idx[..., None], axis=1)


def random_boxes_2d(rng, n):
    center = rng.uniform(-3, 3, (n, 2))
    angle = rng.uniform(-np.pi, np.pi, n)
    half = rng.uniform(0.1, 2.0, (n, 2))
    half[rng.random(n) < 0.1, 1] = 1e-3  # thin boxes
    return center, angle, half


def take(shape, idx):
    return shape[0], tuple(a[idx] for a in shape[1])


def shift(shape, offset):
    kind, arrays = shape
    if kind == "points":
        return kind, (arrays[0] + offset[:, None, :],)
    return kind, (arrays[0] + offset,) + arrays[1:]


def points_of(shape):
    kind, arrays = shape
    return corners_3d(*arrays) if kind == "box3" else arrays[0]


def support(shape, dirs):
    """``max_{x in shape} x . u`` for dirs (N, M, D), shape (N, M)."""
    kind, arrays = shape
    if kind == "ball":
        center, radius = arrays
        return np.einsum("nd,nmd->nm", center, dirs) + radius[:, None]
    return np.einsum("nkd,nmd->nmk", points_of(shape), dirs).max(axis=2)


def penetration_along(a, b, dirs):
    """How far b must move along each unit direction to clear a, (N, M)."""
    return support(a, dirs) + support(b, -dirs)


def _lsq_distance(point, center, rotation, half):
    out = np.empty(len(point))
    for i in range(len(point)):
        target = point[i] - center[i]
        res = lsq_linear(rotation[i], target, bounds=(-half[i], half[i]), method="bvls", tol=1e-14)
        out[i] = np.linalg.norm(rotation[i] @ res.x - target)
    return out


def margin(a, b):
    """Signed oracle margin: > 0 apart (the gap), <= 0 overlapping, (N,)."""
    (ka, pa), (kb, pb) = a, b
    if ka == "ball" and kb == "ball":
        return np.linalg.norm(pb[0] - pa[0], axis=1) - pa[1] - pb[1]
    if ka == "ball" and kb == "box3":
        return _lsq_distance(pa[0], *pb) - pa[1]
    if ka == "ball":
        return shapely.distance(shapely.points(pa[0]), shapely.polygons(pb[0])) - pa[1]
    pa, pb = shapely.polygons(pa[0]), shapely.polygons(pb[0])
    gap = shapely.distance(pa, pb)
    return np.where(gap > 0, gap, -shapely.area(shapely.intersection(pa, pb)))


def intersects(a, b):
    if a[0] == "points" and b[0] == "points":
        return shapely.intersects(shapely.polygons(a[1][0]), shapely.polygons(b[1][0]))
    return margin(a, b) <= 0


def unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def edge_normals(shape):
    """Outward edge normals (N, K, 2) of a polygon; zero-length edges get (1, 0)."""
    v = shape[1][0]
    e = np.roll(v, -1, axis=1) - v
    n = np.stack([e[..., 1], -e[..., 0]], -1)
    length = np.linalg.norm(n, axis=-1, keepdims=True)
    return np.where(length > 0, n / np.where(length > 0, length, 1.0), [1.0, 0.0])


# --- random batches ----------------------------------------------------------


def make_batch(kind, n, seed=0):
    """``(kernel, args, shape_a, shape_b)`` for n random pairs of one kind."""
    rng = np.random.default_rng([seed, KINDS.index(kind)])
    if kind in ("ball_ball_2d", "ball_ball_3d"):
        dim = 2 if kind.endswith("2d") else 3
        ca, cb = rng.uniform(-3, 3, (n, dim)), rng.uniform(-3, 3, (n, dim))
        ra, rb = rng.uniform(0.1, 3, n), rng.uniform(0.1, 3, n)
        return contact_ball_ball, (ca, ra, cb, rb), ("ball", (ca, ra)), ("ball", (cb, rb))
    if kind == "ball_box_2d":
        ca, ra = rng.uniform(-4, 4, (n, 2)), rng.uniform(0.1, 2, n)
        cb, tb, hb = random_boxes_2d(rng, n)
        args = (ca, ra, cb, rot2(tb), hb)
        return contact_ball_box, args, ("ball", (ca, ra)), ("points", (corners_2d(cb, tb, hb),))
    if kind == "ball_box_3d":
        ca, ra = rng.uniform(-2, 2, (n, 3)), rng.uniform(0.1, 2, n)
        cb, hb = rng.uniform(-2, 2, (n, 3)), rng.uniform(0.1, 2, (n, 3))
        rb = Rotation.random(n, random_state=seed).as_matrix()
        return contact_ball_box, (ca, ra, cb, rb, hb), ("ball", (ca, ra)), ("box3", (cb, rb, hb))
    if kind == "ball_polygon":
        ca, ra = rng.uniform(-3, 3, (n, 2)), rng.uniform(0.1, 2, n)
        vb = random_polygons(rng, n)
        return contact_ball_polygon, (ca, ra, vb), ("ball", (ca, ra)), ("points", (vb,))
    if kind == "box_box_2d":
        (ca, ta, ha), (cb, tb, hb) = random_boxes_2d(rng, n), random_boxes_2d(rng, n)
        args = (ca, rot2(ta), ha, cb, rot2(tb), hb)
        a, b = corners_2d(ca, ta, ha), corners_2d(cb, tb, hb)
        return contact_box_box_2d, args, ("points", (a,)), ("points", (b,))
    if kind == "polygon_polygon":
        va, vb = random_polygons(rng, n, 7), random_polygons(rng, n, 5)
        return contact_polygon_polygon, (va, vb), ("points", (va,)), ("points", (vb,))
    if kind == "box_polygon":
        ca, ta, ha = random_boxes_2d(rng, n)
        vb = random_polygons(rng, n)
        args = (ca, rot2(ta), ha, vb)
        return contact_box_polygon, args, ("points", (corners_2d(ca, ta, ha),)), ("points", (vb,))
    raise AssertionError(kind)


KINDS = [
    "ball_ball_2d",
    "ball_ball_3d",
    "ball_box_2d",
    "ball_box_3d",
    "ball_polygon",
    "box_box_2d",
    "polygon_polygon",
    "box_polygon",
]
SIZE = {"ball_box_3d": 400}
DEFAULT_SIZE = 4000


def batch(kind):
    return make_batch(kind, SIZE.get(kind, DEFAULT_SIZE))


# --- differential tests against the oracles -------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_hit_matches_oracle(kind):
    kernel, args, a, b = batch(kind)
    got = kernel(*args)
    m = margin(a, b)
    clear = np.abs(m) > (AMBIGUOUS_LSQ if kind == "ball_box_3d" else AMBIGUOUS)
    assert clear.mean() > 0.95
    assert 0.2 < np.mean(m <= 0) < 0.8, "the batch should mix hits and misses"
    np.testing.assert_array_equal(got.hit[clear], m[clear] <= 0)
    # Apart, -depth is the gap or a lower bound of it.
    apart = clear & (m > 0)
    assert np.all(-got.depth[apart] <= m[apart] + 1e-9)


@pytest.mark.parametrize("kind", KINDS)
def test_moving_b_by_depth_separates(kind):
    kernel, args, a, b = batch(kind)
    got = kernel(*args)
    idx = np.flatnonzero(got.hit & (got.depth > 1e-6))
    assert len(idx) > 50
    a, b = take(a, idx), take(b, idx)
    normal, depth = got.normal[idx], got.depth[idx, None]
    assert not np.any(intersects(a, shift(b, normal * (depth + STEP))))
    assert np.all(intersects(a, shift(b, normal * (depth - STEP))))


@pytest.mark.parametrize("kind", KINDS)
def test_depth_is_minimal_over_directions(kind):
    kernel, args, a, b = batch(kind)
    got = kernel(*args)
    idx = np.flatnonzero(got.hit)
    a, b = take(a, idx), take(b, idx)
    normal, depth = got.normal[idx], got.depth[idx]
    along = penetration_along(a, b, normal[:, None, :])[:, 0]
    np.testing.assert_allclose(along, depth, rtol=0, atol=1e-9)

    rng = np.random.default_rng(1)
    dirs = [unit(rng.normal(size=(len(idx), 64, normal.shape[1])))]
    for shape in (a, b):  # the candidate axes of an exact answer
        if shape[0] == "points":
            dirs += [edge_normals(shape), -edge_normals(shape)]
        elif shape[0] == "box3":
            axes = np.swapaxes(shape[1][1], 1, 2)
            dirs += [axes, -axes]
    assert np.all(penetration_along(a, b, np.concatenate(dirs, axis=1)).min(axis=1) >= depth - 1e-9)


@pytest.mark.parametrize("kind", KINDS)
def test_normals_are_unit_and_finite(kind):
    kernel, args, _, _ = batch(kind)
    got = kernel(*args)
    n = len(args[0])
    assert got.hit.dtype == bool and got.hit.shape == (n,)
    assert got.normal.shape == (n, args[0].shape[-1]) and got.depth.shape == (n,)
    assert np.all(np.isfinite(got.normal)) and np.all(np.isfinite(got.depth))
    np.testing.assert_allclose(np.linalg.norm(got.normal, axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.all(got.depth[got.hit] >= 0)
    assert np.all(got.depth[~got.hit] < 0)


@pytest.mark.parametrize("kind", KINDS)
def test_single_pair_matches_batch(kind):
    kernel, args, _, _ = make_batch(kind, 60, seed=2)
    whole = kernel(*args)
    for i in range(60):
        one = kernel(*(x[i : i + 1] for x in args))
        assert one.hit[0] == whole.hit[i]
        np.testing.assert_allclose(one.normal[0], whole.normal[i], rtol=0, atol=1e-12)
        np.testing.assert_allclose(one.depth[0], whole.depth[i], rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", KINDS)
def test_empty_batch(kind):
    kernel, args, _, _ = make_batch(kind, 3)
    got = kernel(*(x[:0] for x in args))
    assert got.hit.shape == (0,) and got.hit.dtype == bool
    assert got.normal.shape == (0, args[0].shape[-1])
    assert got.depth.shape == (0,)


# --- hand-made cases ---------------------------------------------------------

EYE2 = np.eye(2)[None]


def one(*rows):
    return [np.asarray([r], dtype=float) for r in rows]


def assert_contact(c, hit, normal=None, depth=None, atol=1e-12):
    assert bool(c.hit[0]) is hit
    if normal is not None:
        np.testing.assert_allclose(c.normal[0], normal, rtol=0, atol=atol)
    if depth is not None:
        assert c.depth[0] == pytest.approx(depth, rel=1e-12, abs=atol)


def test_ball_ball_touching_exactly():
    assert_contact(contact_ball_ball(*one([0, 0], 1, [3, 4], 4)), True, [0.6, 0.8], 0.0)
    assert_contact(
        contact_ball_ball(*one([0, 0, 0], 1, [1, 2, 2], 2)), True, [1 / 3, 2 / 3, 2 / 3], 0.0
    )


def test_ball_ball_gap_beyond_tolerance_misses():
    c = contact_ball_ball(*one([0, 0], 1, [2 + 1e-9, 0], 1))
    assert_contact(c, False, [1, 0])
    assert c.depth[0] == pytest.approx(-1e-9, rel=1e-6)


def test_ball_ball_concentric_picks_first_axis():
    assert_contact(contact_ball_ball(*one([1, 2], 1, [1, 2], 0.5)), True, [1, 0], 1.5)
    assert_contact(contact_ball_ball(*one([1, 2, 3], 1, [1, 2, 3], 2)), True, [1, 0, 0], 3.0)


def test_ball_ball_large_offset_touching():
    assert_contact(
        contact_ball_ball(*one([1e6, -1e6], 1, [1e6 + 3, -1e6 + 4], 4)), True, [0.6, 0.8], 0.0
    )
    assert_contact(contact_ball_ball(*one([1e6, -1e6], 1, [1e6 + 3, -1e6 + 4], 3.999)), False)


def test_ball_box_touching_edge_exactly():
    assert_contact(
        contact_ball_box(*one([2, 0], 1, [0, 0]), EYE2, *one([1, 1])), True, [-1, 0], 0.0
    )
    # A 2 x 1 box turned a quarter turn by cos/sin, whose zero is 6e-17.
    c = contact_ball_box(*one([2, 0], 1, [0, 0]), rot2(np.array([np.pi / 2])), *one([2, 1]))
    assert_contact(c, True, [-1, 0], 0.0)


def test_ball_box_touching_corner_exactly():
    assert_contact(
        contact_ball_box(*one([4, 5], 5, [0, 0]), EYE2, *one([1, 1])), True, [-0.6, -0.8], 0.0
    )
    c = contact_ball_box(*one([3, 3, 2], 3, [0, 0, 0]), np.eye(3)[None], *one([1, 1, 1]))
    assert_contact(c, True, [-2 / 3, -2 / 3, -1 / 3], 0.0)


def test_ball_box_gap_beyond_tolerance_misses():
    assert_contact(contact_ball_box(*one([2 + 1e-9, 0], 1, [0, 0]), EYE2, *one([1, 1])), False)


def test_ball_centre_inside_box_leaves_through_nearest_face():
    # Face gaps 1.5 (x) and 0.75 (y); the ball is on the +y side.
    c = contact_ball_box(*one([0.5, 0.25], 0.5, [0, 0]), EYE2, *one([2, 1]))
    assert_contact(c, True, [0, -1], 1.25)
    c = contact_ball_box(*one([-1.5, 0.2], 0.1, [0, 0]), EYE2, *one([2, 1]))
    assert_contact(c, True, [1, 0], 0.6)
    c = contact_ball_box(*one([0.1, -0.2, 0.95], 0.5, [0, 0, 0]), np.eye(3)[None], *one([1, 1, 1]))
    assert_contact(c, True, [0, 0, -1], 0.55)


def test_ball_centre_inside_rotated_box():
    # Box turned by 30 degrees; the centre sits 0.2 inside its local +x face.
    rot = rot2(np.array([np.pi / 6]))
    centre = np.array([[5.0, -1.0]]) + rot[0] @ [0.8, 0.1]
    c = contact_ball_box(centre, [0.3], [[5.0, -1.0]], rot, [[1.0, 0.5]])
    assert_contact(c, True, -rot[0][:, 0], 0.5)


def test_ball_box_large_offset_touching():
    c = contact_ball_box(
        *one([1e6 + 3, 1e6], 1, [1e6, 1e6]), rot2(np.array([np.pi / 2])), *one([1, 2])
    )
    assert_contact(c, True, [-1, 0], 0.0)
    c = contact_ball_box(
        *one([1e6 + 3.001, 1e6], 1, [1e6, 1e6]), rot2(np.array([np.pi / 2])), *one([1, 2])
    )
    assert_contact(c, False)


TRIANGLE = np.array([[[0.0, 0.0], [4.0, 0.0], [0.0, 3.0]]])


def test_ball_polygon_touching_edge_and_vertex_exactly():
    assert_contact(contact_ball_polygon(*one([2, -1], 1), TRIANGLE), True, [0, 1], 0.0)
    assert_contact(contact_ball_polygon(*one([7, -4], 5), TRIANGLE), True, [-0.6, 0.8], 0.0)
    assert_contact(contact_ball_polygon(*one([7, -4], 4.999), TRIANGLE), False)


def test_ball_centre_inside_polygon_leaves_through_nearest_edge():
    # Edge-line distances: 0.5 (bottom), 1 (left), 1.4 (hypotenuse).
    assert_contact(contact_ball_polygon(*one([1, 0.5], 0.25), TRIANGLE), True, [0, 1], 0.75)
    # 0.08 inside the hypotenuse 3x + 4y = 12.
    assert_contact(contact_ball_polygon(*one([2, 1.4], 0.5), TRIANGLE), True, [-0.6, -0.8], 0.58)


def test_padded_polygon_equals_unpadded():
    padded = np.concatenate([TRIANGLE, np.repeat(TRIANGLE[:, -1:], 3, axis=1)], axis=1)
    # Inside, near the repeated last vertex, outside it, far, touching.
    centres = np.array([[1, 0.5], [-0.5, 3.2], [0.1, 2.9], [5, 5], [2, -1]], float)
    radii = np.array([0.25, 0.4, 0.05, 1.0, 1.0])
    pairs = [
        (
            contact_ball_polygon(centres, radii, np.repeat(padded, 5, axis=0)),
            contact_ball_polygon(centres, radii, np.repeat(TRIANGLE, 5, axis=0)),
        ),
    ]
    square = corners_2d(np.array([[0.5, 2.5]]), np.zeros(1), np.ones((1, 2)))
    square_padded = np.concatenate([square, square[:, -1:]], axis=1)
    pairs.append(
        (contact_polygon_polygon(padded, square_padded), contact_polygon_polygon(TRIANGLE, square))
    )
    pairs.append(
        (contact_polygon_polygon(square_padded, padded), contact_polygon_polygon(square, TRIANGLE))
    )
    for got, ref in pairs:
        np.testing.assert_array_equal(got.hit, ref.hit)
        np.testing.assert_allclose(got.normal, ref.normal, rtol=0, atol=1e-15)
        np.testing.assert_allclose(got.depth, ref.depth, rtol=0, atol=1e-15)


def test_box_box_edge_to_edge_touching():
    c = contact_box_box_2d(*one([0, 0]), EYE2, *one([1, 1]), *one([2, 0.5]), EYE2, *one([1, 1]))
    assert_contact(c, True, [1, 0], 0.0)


def test_box_box_corner_to_corner_touching():
    c = contact_box_box_2d(*one([0, 0]), EYE2, *one([1, 1]), *one([2, 2]), EYE2, *one([1, 1]))
    assert_contact(c, True, depth=0.0)
    assert c.normal[0].tolist() in ([1.0, 0.0], [0.0, 1.0])


def test_box_box_gap_beyond_tolerance_misses():
    c = contact_box_box_2d(
        *one([0, 0]), EYE2, *one([1, 1]), *one([2 + 1e-9, 0]), EYE2, *one([1, 1])
    )
    assert_contact(c, False)
    assert c.depth[0] == pytest.approx(-1e-9, rel=1e-6)


def test_box_box_rotated_corner_touching_edge():
    # A square turned 45 degrees has a corner at (sqrt 2, 0).
    diamond = rot2(np.array([np.pi / 4]))
    c = contact_box_box_2d(
        *one([0, 0]), diamond, *one([1, 1]), *one([np.sqrt(2) + 1, 0]), EYE2, *one([1, 1])
    )
    assert_contact(c, True, [1, 0], 0.0)


def test_box_inside_box():
    big, small = one([5, 5]), one([1, 1])
    c = contact_box_box_2d(*one([0, 0]), EYE2, *big, *one([1, 0]), EYE2, *small)
    assert_contact(c, True, [1, 0], 5.0)
    c = contact_box_box_2d(*one([1, 0]), EYE2, *small, *one([0, 0]), EYE2, *big)
    assert_contact(c, True, [-1, 0], 5.0)


def test_identical_boxes_push_apart_along_the_short_side():
    rot = rot2(np.array([np.pi / 6]))
    c = contact_box_box_2d(*one([3, 1]), rot, *one([2, 1]), *one([3, 1]), rot, *one([2, 1]))
    assert_contact(c, True, depth=2.0)
    assert abs(c.normal[0] @ rot[0][:, 1]) == pytest.approx(1.0, abs=1e-12)


def test_thin_boxes():
    thin = one([1, 5e-4])
    touching = contact_box_box_2d(*one([0, 0]), EYE2, *thin, *one([0.5, 1e-3]), EYE2, *thin)
    assert_contact(touching, True, [0, 1], 0.0)
    overlapping = contact_box_box_2d(*one([0, 0]), EYE2, *thin, *one([0.5, 9e-4]), EYE2, *thin)
    assert_contact(overlapping, True, [0, 1], 1e-4)
    apart = contact_box_box_2d(*one([0, 0]), EYE2, *thin, *one([0.5, 1e-3 + 1e-9]), EYE2, *thin)
    assert_contact(apart, False)


def test_large_offset_touching_boxes_and_polygons():
    # Box a: 1 x 2 half extents turned a quarter turn, so 2 x 1 in the world.
    quarter = rot2(np.array([np.pi / 2]))
    a = (*one([1e6, 1e6]), quarter, *one([1, 2]))
    for dx, hit in ((3.0, True), (3.001, False)):
        b = (*one([1e6 + dx, 1e6 + 0.5]), EYE2, *one([1, 1]))
        want = ([1, 0], 0.0) if hit else (None, None)
        # Corners at 1e6 are rounded to ~1e-10, which is what the touching
        # tolerance (1e-12 * 1e6) absorbs.
        assert_contact(contact_box_box_2d(*a, *b), hit, *want, atol=1e-9)
        vb = corners_2d(b[0], np.zeros(1), b[2])
        assert_contact(contact_box_polygon(*a, vb), hit, *want, atol=1e-9)
        va = corners_2d(a[0], np.array([np.pi / 2]), a[2])
        assert_contact(contact_polygon_polygon(va, vb), hit, *want, atol=1e-9)


def test_polygon_inside_polygon():
    outer = corners_2d(np.zeros((1, 2)), np.zeros(1), np.array([[5.0, 5.0]]))
    inner = TRIANGLE + [1.0, 0.0]
    c = contact_polygon_polygon(outer, inner)
    # Support differences: +x: 5 - 1 = 4, -x: 5 + 5 = 10, +y: 5 - 0 = 5, -y: 5 + 3 = 8.
    assert_contact(c, True, [1, 0], 4.0)


def test_identical_polygons():
    c = contact_polygon_polygon(TRIANGLE, TRIANGLE)
    # The narrowest width of the 3-4-5 triangle is its height over the hypotenuse.
    assert_contact(c, True, depth=2.4)
    assert abs(c.normal[0] @ [0.6, 0.8]) == pytest.approx(1.0, abs=1e-12)


def test_polygon_vertex_touching_edge():
    below = np.array([[[1.0, -2.0], [3.0, -2.0], [2.0, 0.0]]])  # apex touches the bottom edge
    assert_contact(contact_polygon_polygon(TRIANGLE, below), True, [0, -1], 0.0)
    assert_contact(contact_polygon_polygon(TRIANGLE, below - [0.0, 1e-9]), False)


def test_box_polygon_touching_edge_and_corner():
    # The square [4, 6] x [0, 2] has its corner on the triangle's vertex (4, 0).
    corner = contact_box_polygon(*one([5, 1]), EYE2, *one([1, 1]), TRIANGLE)
    assert_contact(corner, True, [-1, 0], 0.0)
    # The square [-2, 0] x [0.5, 2.5] lies along the triangle's left edge.
    edge = contact_box_polygon(*one([-1, 1.5]), EYE2, *one([1, 1]), TRIANGLE)
    assert_contact(edge, True, [1, 0], 0.0)
    apart = contact_box_polygon(*one([-1 - 1e-9, 1.5]), EYE2, *one([1, 1]), TRIANGLE)
    assert_contact(apart, False)


def test_box_vertices_2d_are_the_ccw_corners():
    rng = np.random.default_rng(3)
    center, angle, half = random_boxes_2d(rng, 50)
    got = box_vertices_2d(center, rot2(angle), half)
    np.testing.assert_allclose(got, corners_2d(center, angle, half), rtol=0, atol=1e-12)
    x, y = got[..., 0], got[..., 1]
    area = 0.5 * np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1)
    np.testing.assert_allclose(area, 4 * half[:, 0] * half[:, 1], rtol=1e-12)


# --- properties (hypothesis) ---------------------------------------------------
# Ties between equally deep axes make the normal a free choice, so where a
# normal differs from the expected one it must still be an MTD direction of
# that configuration: penetration along it equals the depth.


def as_pair(kind, sa, sb):
    """(kernel, args, shape_a, shape_b) for one pair drawn by hypothesis."""
    if kind.startswith("ball_ball"):
        (ca, ra), (cb, rb) = sa, sb
        args = tuple(np.asarray([x], float) for x in (ca, ra, cb, rb))
        return contact_ball_ball, args, ("ball", args[:2]), ("ball", args[2:])
    if kind == "box_box_2d":
        (ca, ta, ha), (cb, tb, hb) = sa, sb
        ca, ta, ha, cb, tb, hb = (np.asarray([x], float) for x in (ca, ta, ha, cb, tb, hb))
        args = (ca, rot2(ta), ha, cb, rot2(tb), hb)
        return (
            contact_box_box_2d,
            args,
            ("points", (corners_2d(ca, ta, ha),)),
            ("points", (corners_2d(cb, tb, hb),)),
        )
    va, vb = np.asarray([sa]), np.asarray([sb])
    return contact_polygon_polygon, (va, vb), ("points", (va,)), ("points", (vb,))


SHAPES = {
    "ball_ball_2d": balls(2),
    "ball_ball_3d": balls(3),
    "box_box_2d": boxes_2d(),
    "polygon_polygon": convex_polygons_2d(),
}


def assert_same_contact(got, want_normal, want_depth, hit, a, b, scale=1.0):
    """Same hit and depth; the normal is ``want_normal`` or another MTD direction."""
    if got.hit[0] != hit:
        # Only a pair touching to within rounding may change sides.
        assert abs(got.depth[0]) <= 1e-9 * scale and abs(want_depth) <= 1e-9 * scale
        return
    if not hit:
        return
    assert got.depth[0] == pytest.approx(want_depth, abs=1e-9 * scale)
    if not np.allclose(got.normal[0], want_normal, rtol=0, atol=1e-7):
        along = penetration_along(a, b, got.normal[:, None, :])[0, 0]
        assert along == pytest.approx(got.depth[0], abs=1e-9 * scale)


@pytest.mark.parametrize("kind", list(SHAPES))
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_symmetry(kind, data):
    sa, sb = data.draw(SHAPES[kind]), data.draw(SHAPES[kind])
    kernel, args, _, _ = as_pair(kind, sa, sb)
    ab = kernel(*args)
    kernel, args, first, second = as_pair(kind, sb, sa)
    ba = kernel(*args)
    assert_same_contact(ba, -ab.normal[0], ab.depth[0], bool(ab.hit[0]), first, second)


def translate(kind, shape, t):
    if kind.startswith("ball_ball"):
        return shape[0] + t[: len(shape[0])], shape[1]
    if kind == "box_box_2d":
        return shape[0] + t, shape[1], shape[2]
    return shape + t


def rotate(kind, shape, phi):
    r = rot2(np.array([phi]))[0]
    if kind.startswith("ball_ball"):
        c = shape[0].copy()
        c[:2] = r @ c[:2]
        return c, shape[1]
    if kind == "box_box_2d":
        return r @ shape[0], shape[1] + phi, shape[2]
    return shape @ r.T


@pytest.mark.parametrize("kind", list(SHAPES))
@settings(max_examples=100, deadline=None)
@given(data=st.data(), tx=coords, ty=coords, tz=coords)
def test_translation_invariance(kind, data, tx, ty, tz):
    sa, sb = data.draw(SHAPES[kind]), data.draw(SHAPES[kind])
    t = np.array([tx, ty, tz])[: 3 if kind == "ball_ball_3d" else 2]
    kernel, args, _, _ = as_pair(kind, sa, sb)
    ref = kernel(*args)
    kernel, args, a, b = as_pair(kind, translate(kind, sa, t), translate(kind, sb, t))
    got = kernel(*args)
    assert_same_contact(got, ref.normal[0], ref.depth[0], bool(ref.hit[0]), a, b, scale=60.0)


@pytest.mark.parametrize("kind", list(SHAPES))
@settings(max_examples=100, deadline=None)
@given(data=st.data(), phi=angles)
def test_rotation_invariance(kind, data, phi):
    sa, sb = data.draw(SHAPES[kind]), data.draw(SHAPES[kind])
    kernel, args, _, _ = as_pair(kind, sa, sb)
    ref = kernel(*args)
    kernel, args, a, b = as_pair(kind, rotate(kind, sa, phi), rotate(kind, sb, phi))
    got = kernel(*args)
    want = ref.normal[0].copy()
    want[:2] = rot2(np.array([phi]))[0] @ want[:2]
    assert_same_contact(got, want, ref.depth[0], bool(ref.hit[0]), a, b, scale=60.0)
