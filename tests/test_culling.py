"""Tests of box-versus-plane classification against the boxes' corners.

The expected side is computed from the 4 (2D) or 8 (3D) corners of each
box, built here from centre, rotation and half extents: all corners
strictly outside the solid ``n . p <= offset`` means OUTSIDE, all inside it
means INSIDE, anything else INTERSECTING. Random cases within 1e-9 of a
plane are left to the hand-made exact ones.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from collideworld.culling import (
    INSIDE,
    INTERSECTING,
    OUTSIDE,
    Side,
    classify_aabb_plane,
    classify_box_plane,
    classify_box_planes,
    frustum_planes,
    frustum_planes_from_matrix,
)
from collideworld.errors import CollideWorldError, InvalidArgumentError

from .strategies import rotations_3d

AMBIGUOUS = 1e-9


def corner_signs(dim):
    return np.array(list(itertools.product([-1.0, 1.0], repeat=dim)))


def box_corners(center, rotation, half):
    """Corners (N, 2**D, D); rotation None means axis-aligned."""
    local = corner_signs(center.shape[1])[None] * half[:, None, :]
    if rotation is None:
        return center[:, None, :] + local
    return center[:, None, :] + np.einsum("nij,nkj->nki", rotation, local)


def side_from_values(values):
    """Expected side from the signed values (..., K) of n . corner - offset,
    and whether any corner is too close to the plane to judge."""
    expected = np.where(np.all(values > 0, axis=-1), OUTSIDE,
                        np.where(np.all(values <= 0, axis=-1), INSIDE, INTERSECTING))
    return expected, np.any(np.abs(values) < AMBIGUOUS, axis=-1)


def random_rotations(rng, n, dim):
    if dim == 2:
        a = rng.uniform(-math.pi, math.pi, n)
        return np.stack([np.stack([np.cos(a), -np.sin(a)], -1),
                         np.stack([np.sin(a), np.cos(a)], -1)], -2)
    return Rotation.random(n, random_state=rng).as_matrix()


def random_unit(rng, shape):
    v = rng.normal(size=shape)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


# --- single plane ---------------------------------------------------------


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("oriented", [True, False])
@pytest.mark.parametrize("per_box_plane", [True, False])
def test_classify_box_plane_matches_corners(dim, oriented, per_box_plane):
    rng = np.random.default_rng(dim * 10 + oriented * 2 + per_box_plane)
    n = 4000
    center = rng.uniform(-3, 3, (n, dim))
    half = rng.uniform(0.05, 2.0, (n, dim))
    rotation = random_rotations(rng, n, dim) if oriented else None
    if per_box_plane:
        normal, offset = random_unit(rng, (n, dim)), rng.uniform(-2, 2, n)
    else:
        normal, offset = random_unit(rng, (dim,)), 0.7
    values = np.einsum("nkd,nd->nk", box_corners(center, rotation, half),
                       np.broadcast_to(normal, (n, dim))) - np.reshape(offset, (-1, 1))
    expected, ambiguous = side_from_values(values)
    got = classify_box_plane(center, rotation, half, normal, offset)
    assert got.shape == (n,)
    assert {OUTSIDE, INSIDE, INTERSECTING} <= set(expected.tolist())
    np.testing.assert_array_equal(got[~ambiguous], expected[~ambiguous])


@pytest.mark.parametrize("dim", [2, 3])
def test_classify_aabb_plane_matches_corners(dim):
    rng = np.random.default_rng(40 + dim)
    n = 4000
    lo = rng.uniform(-3, 3, (n, dim))
    hi = lo + rng.uniform(0.0, 3.0, (n, dim))
    normal, offset = random_unit(rng, (n, dim)), rng.uniform(-2, 2, n)
    # Corners straight from lo and hi: every choice of lo or hi per axis.
    picks = corner_signs(dim) > 0
    pts = np.where(picks[None], hi[:, None, :], lo[:, None, :])
    values = np.einsum("nkd,nd->nk", pts, normal) - offset[:, None]
    expected, ambiguous = side_from_values(values)
    got = classify_aabb_plane(lo, hi, normal, offset)
    np.testing.assert_array_equal(got[~ambiguous], expected[~ambiguous])


def test_touching_from_outside_is_intersecting():
    # The solid is x <= 0; the unit box [0, 1]^3 touches it at the face x = 0.
    normal = [1.0, 0.0, 0.0]
    assert classify_aabb_plane([[0, 0, 0]], [[1, 1, 1]], normal, 0.0)[0] == INTERSECTING
    assert classify_aabb_plane([[1e-9, 0, 0]], [[1, 1, 1]], normal, 0.0)[0] == OUTSIDE
    assert classify_box_plane([[0.5, 0.5, 0.5]], None, [[0.5] * 3], normal, 0.0)[0] == INTERSECTING
    # Corner contact: a square turned 45 degrees resting on the line y = 0.
    turned = [[[math.sqrt(0.5), -math.sqrt(0.5)], [math.sqrt(0.5), math.sqrt(0.5)]]]
    up = [0.0, 1.0]
    assert classify_box_plane([[0.3, math.sqrt(2)]], turned, [[1, 1]], up, 0.0)[0] == INTERSECTING
    assert classify_box_plane([[0.3, math.sqrt(2) + 1e-9]], turned, [[1, 1]], up, 0.0)[0] == OUTSIDE
    # Edge contact of a 3D box turned about z with the plane x = 1e6, far out.
    r = Rotation.from_rotvec([0, 0, math.pi / 4]).as_matrix()[None]
    x_axis = [1.0, 0.0, 0.0]
    touching = [[1e6 + math.sqrt(2), 5.0, -3.0]]
    assert classify_box_plane(touching, r, [[1, 1, 1]], x_axis, 1e6)[0] == INTERSECTING
    beyond = [[1e6 + math.sqrt(2) + 1e-4, 5.0, -3.0]]
    assert classify_box_plane(beyond, r, [[1, 1, 1]], x_axis, 1e6)[0] == OUTSIDE
    # The same box seen from the other side of the plane lies in the solid.
    assert classify_box_plane(touching, r, [[1, 1, 1]], [-1.0, 0.0, 0.0], -1e6)[0] == INSIDE


def test_touching_from_inside_is_inside():
    normal = [1.0, 0.0, 0.0]
    assert classify_aabb_plane([[-1, 0, 0]], [[0, 1, 1]], normal, 0.0)[0] == INSIDE
    assert classify_aabb_plane([[-1, 0, 0]], [[1e-9, 1, 1]], normal, 0.0)[0] == INTERSECTING
    assert classify_box_plane([[-0.5, 0.5]], None, [[0.5, 0.5]], [1.0, 0.0], 0.0)[0] == INSIDE


def test_flat_box_on_the_plane_is_inside():
    # A box of zero thickness lying in the plane belongs to the closed solid.
    assert classify_aabb_plane([[0, -1, -1]], [[0, 1, 1]], [1.0, 0, 0], 0.0)[0] == INSIDE


def test_side_codes():
    assert OUTSIDE < INTERSECTING < INSIDE
    assert Side(classify_aabb_plane([[2, 2]], [[3, 3]], [1.0, 0.0], 0.0)[0]) is Side.OUTSIDE
    assert classify_aabb_plane([[2, 2]], [[3, 3]], [1.0, 0.0], 0.0).dtype == np.int8


def test_empty_batches():
    assert classify_box_plane(np.zeros((0, 3)), None, np.zeros((0, 3)), [1.0, 0, 0], 0.0).shape == (0,)
    assert classify_box_plane(np.zeros((0, 2)), np.zeros((0, 2, 2)), np.zeros((0, 2)),
                              [1.0, 0], 0.0).shape == (0,)
    assert classify_aabb_plane(np.zeros((0, 3)), np.zeros((0, 3)), [1.0, 0, 0], 0.0).shape == (0,)
    normals, offsets = frustum_planes([0, 0, 0], [0, 0, -1], [0, 1, 0], 1.0, 1.5, 0.1, 10.0)
    assert classify_box_planes(np.zeros((0, 3)), None, np.zeros((0, 3)), normals, offsets).shape == (0,)


@settings(max_examples=100, deadline=None)
@given(rotations_3d(), st.floats(-5, 5), st.floats(0.1, 2.0))
def test_rotation_of_box_and_plane_together_keeps_side(q, offset, size):
    """Turning the box and the plane normal by the same rotation keeps the side."""
    center = np.array([[0.4, -0.2, 0.9]])
    rotation = Rotation.from_rotvec([0.1, 0.5, -0.3]).as_matrix()[None]
    half = np.array([[size, 0.5, 1.0]])
    normal = np.array([0.0, 0.6, 0.8])
    before = classify_box_plane(center, rotation, half, normal, offset)
    after = classify_box_plane(center @ q.T, q @ rotation, half, q @ normal, offset)
    values = box_corners(center, rotation, half)[0] @ normal - offset
    if np.min(np.abs(values)) > AMBIGUOUS:
        assert before[0] == after[0]


# --- plane sets and frustums ---------------------------------------------


def in_frustum_by_camera_coords(points, eye, forward, up, fov_y, aspect, near, far):
    """Independent frustum membership: into camera coordinates, then compare
    the depth with near/far and |x|, |y| with depth * tan(half angle)."""
    f = np.asarray(forward, float) / np.linalg.norm(forward)
    right = np.cross(f, up)
    right /= np.linalg.norm(right)
    true_up = np.cross(right, f)
    rel = points - np.asarray(eye, float)
    depth, x, y = rel @ f, rel @ right, rel @ true_up
    ty = math.tan(fov_y / 2)
    return (depth >= near) & (depth <= far) & (np.abs(y) <= depth * ty) & (np.abs(x) <= depth * ty * aspect)


def test_frustum_planes_match_camera_coordinates():
    rng = np.random.default_rng(5)
    eye, forward, up = np.array([1.0, 2.0, -3.0]), np.array([0.3, -0.2, 1.0]), np.array([0.0, 1.0, 0.0])
    args = (eye, forward, up, 1.1, 1.6, 0.5, 20.0)
    normals, offsets = frustum_planes(*args)
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, atol=1e-15)
    points = eye + rng.uniform(-25, 25, (20000, 3))
    expected = in_frustum_by_camera_coords(points, *args)
    values = points @ normals.T - offsets
    clear = np.min(np.abs(values), axis=1) > AMBIGUOUS
    assert 0.01 < expected.mean() < 0.5
    np.testing.assert_array_equal(np.all(values <= 0, axis=1)[clear], expected[clear])


def test_frustum_planes_of_a_standard_camera():
    # Looking down -z with a 90 degree field of view and aspect 1: the
    # frustum is 1 <= -z <= 10, |x| <= -z, |y| <= -z.
    normals, offsets = frustum_planes([0, 0, 0], [0, 0, -1], [0, 1, 0], math.pi / 2, 1.0, 1.0, 10.0)
    s = math.sqrt(0.5)
    expected = np.array([[0, 0, 1], [0, 0, -1], [-s, 0, s], [s, 0, s], [0, -s, s], [0, s, s]])
    np.testing.assert_allclose(normals, expected, atol=1e-15)
    np.testing.assert_allclose(offsets, [-1, 10, 0, 0, 0, 0], atol=1e-15)


@pytest.mark.parametrize("oriented", [True, False])
def test_classify_box_planes_matches_corners_per_plane(oriented):
    rng = np.random.default_rng(77 + oriented)
    args = ([0.0, 1.0, 0.0], [1.0, -0.1, 0.2], [0.0, 1.0, 0.0], 0.9, 1.3, 0.5, 15.0)
    normals, offsets = frustum_planes(*args)
    n = 4000
    center = np.array(args[0]) + rng.uniform(-12, 18, (n, 3)) * [1, 0.5, 0.5]
    half = rng.uniform(0.05, 2.0, (n, 3))
    rotation = random_rotations(rng, n, 3) if oriented else None
    values = np.einsum("nkd,pd->npk", box_corners(center, rotation, half), normals) - offsets[None, :, None]
    per_plane, ambiguous = side_from_values(values)
    expected = per_plane.min(axis=1)
    got = classify_box_planes(center, rotation, half, normals, offsets)
    clear = ~ambiguous.any(axis=1)
    assert {OUTSIDE, INSIDE, INTERSECTING} <= set(expected.tolist())
    np.testing.assert_array_equal(got[clear], expected[clear])
    # Agrees with one plane at a time.
    single = np.stack([classify_box_plane(center, rotation, half, normals[p], offsets[p])
                       for p in range(6)], axis=1)
    np.testing.assert_array_equal(got, single.min(axis=1))


def test_classify_box_planes_2d_region():
    # The square |x|, |y| <= 1 as four half-planes.
    normals = np.array([[1.0, 0], [-1, 0], [0, 1], [0, -1]])
    offsets = np.ones(4)
    centers = np.array([[0, 0], [1.5, 0], [2.5, 0], [2.0, 0.0], [0.5, 0.5]])
    half = np.array([[0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [1.0, 0.2], [0.5, 0.5]])
    got = classify_box_planes(centers, None, half, normals, offsets)
    np.testing.assert_array_equal(got, [INSIDE, INTERSECTING, OUTSIDE, INTERSECTING, INSIDE])


def test_box_beyond_a_frustum_corner_is_conservatively_intersecting():
    # The quadrant x <= 0, y <= 0 and a square turned 45 degrees into the
    # diamond |x - 0.6| + |y - 0.6| <= sqrt(0.5) ~ 0.707. Its point nearest
    # the quadrant would be the corner (0, 0), at 1.2 > 0.707: the diamond is
    # outside the quadrant, yet it crosses both x = 0 and y = 0.
    normals = np.array([[1.0, 0.0], [0.0, 1.0]])
    offsets = np.zeros(2)
    turned = Rotation.from_rotvec([0, 0, math.pi / 4]).as_matrix()[None, :2, :2]
    # A diamond centred at (0.6, 0.6) with corners reaching x = 0.6 - 0.707.
    got = classify_box_planes([[0.6, 0.6]], turned, [[0.5, 0.5]], normals, offsets)
    assert got[0] == INTERSECTING
    corners = box_corners(np.array([[0.6, 0.6]]), turned, np.array([[0.5, 0.5]]))[0]
    assert np.any(corners[:, 0] < 0) and np.any(corners[:, 1] < 0)
    assert abs(0 - 0.6) + abs(0 - 0.6) > math.sqrt(0.5)


def test_no_planes_means_inside():
    got = classify_box_planes([[0.0, 0.0, 0.0]], None, [[1.0, 1.0, 1.0]], np.zeros((0, 3)), np.zeros(0))
    np.testing.assert_array_equal(got, [INSIDE])


@pytest.mark.parametrize("args, message", [
    (([0, 0, 0], [0, 0, 1], [0, 0, 2], 1.0, 1.0, 1.0, 10.0), "parallel"),
    (([0, 0, 0], [0, 0, 0], [0, 0, 1], 1.0, 1.0, 1.0, 10.0), "forward must be non-zero"),
    (([0, 0, 0], [1, 0, 0], [0, 0, 1], -1.0, 1.0, 1.0, 10.0), "fov_y"),
    (([0, 0, 0], [1, 0, 0], [0, 0, 1], 4.0, 1.0, 1.0, 10.0), "fov_y"),
    (([0, 0, 0], [1, 0, 0], [0, 0, 1], 1.0, 0.0, 1.0, 10.0), "aspect"),
    (([0, 0, 0], [1, 0, 0], [0, 0, 1], 1.0, 1.0, 10.0, 1.0), "near < far"),
    (([0, 0, np.nan], [1, 0, 0], [0, 0, 1], 1.0, 1.0, 1.0, 10.0), "eye"),
])
def test_frustum_planes_rejects_degenerate_cameras(args, message):
    with pytest.raises(InvalidArgumentError, match=message):
        frustum_planes(*args)


@pytest.mark.parametrize("normal", [[0, 0, 0], [np.nan, 0, 1], [np.inf, 0, 0]])
def test_classify_rejects_planes_without_a_direction(normal):
    with pytest.raises(InvalidArgumentError, match="non-zero"):
        classify_box_plane([[0, 0, 0]], None, [[1, 1, 1]], normal, 0.0)
    with pytest.raises(InvalidArgumentError, match="non-zero"):
        classify_aabb_plane([[0, 0, 0]], [[1, 1, 1]], normal, 0.0)
    with pytest.raises(InvalidArgumentError, match="non-zero"):
        classify_box_planes([[0, 0, 0]], None, [[1, 1, 1]], [normal], [0.0])


# --- classify_box_planes: poses as the World takes them, and validation (issue 16) ----------


def test_classify_box_planes_takes_quaternions_and_angles_like_matrices():
    rng = np.random.default_rng(16)
    n = 2000
    normals, offsets = frustum_planes([0.0, 1.0, 0.0], [1.0, -0.1, 0.2], [0.0, 1.0, 0.0], 0.9, 1.3, 0.5, 15.0)
    center = rng.uniform(-12, 18, (n, 3)) * [1, 0.5, 0.5]
    half = rng.uniform(0.05, 2.0, (n, 3))
    rot = Rotation.random(n, random_state=rng)
    xyzw = rot.as_quat()
    wxyz = np.c_[xyzw[:, 3], xyzw[:, :3]]
    values = np.einsum("nkd,pd->npk", box_corners(center, rot.as_matrix(), half), normals) - offsets[None, :, None]
    per_plane, ambiguous = side_from_values(values)
    clear = ~ambiguous.any(axis=1)
    for rotation in (wxyz, rot.as_matrix()):
        got = classify_box_planes(center, rotation, half, normals, offsets)
        np.testing.assert_array_equal(got[clear], per_plane.min(axis=1)[clear])
    # 2D: angles, one per box or one for all, give the matrices' answer
    angle = rng.uniform(-np.pi, np.pi, n)
    mats = np.stack([np.stack([np.cos(angle), -np.sin(angle)], 1), np.stack([np.sin(angle), np.cos(angle)], 1)], 1)
    sq_normals, sq_offsets = np.array([[1.0, 0], [-1, 0], [0, 1], [0, -1]]), np.full(4, 3.0)
    c2, h2 = center[:, :2] * 0.3, half[:, :2]
    values = np.einsum("nkd,pd->npk", box_corners(c2, mats, h2), sq_normals) - sq_offsets[None, :, None]
    per_plane, ambiguous = side_from_values(values)
    clear = ~ambiguous.any(axis=1)
    got = classify_box_planes(c2, angle, h2, sq_normals, sq_offsets)
    np.testing.assert_array_equal(got[clear], per_plane.min(axis=1)[clear])
    assert (classify_box_planes(c2, 0.0, h2, sq_normals, sq_offsets)
            == classify_box_planes(c2, None, h2, sq_normals, sq_offsets)).all()


BOX = ([[0.0, 0.0, 0.0]], None, [[1.0, 1.0, 1.0]], [[1.0, 0.0, 0.0]], [2.0])


@pytest.mark.parametrize("which, value, message", [
    (0, [0.0, 0.0, 0.0], r"center must have shape \(N, 2\) or \(N, 3\), got shape \(3,\)"),
    (0, [[0.0, 0.0, 0.0, 0.0]], r"got shape \(1, 4\)"),
    (0, [[np.nan, 0.0, 0.0]], "center"),
    (0, [["a", 0.0, 0.0]], "center"),
    (2, [[1.0, 1.0]], r"half must have shape \(1, 3\)"),
    (2, [[1.0, -1.0, 1.0]], r"half extents must be finite and >= 0, got \[-1.0\]"),
    (1, [[2.0, 0.0, 0.0, 0.0]], "unit quaternion"),
    (1, [[[1.0, 0, 0], [0, 1, 0], [0, 0, -1]]], "determinant"),
    (1, [[1.0, 0.0, 0.0]], r"rotation must be None, \(N, 4\) quaternions .* got shape \(1, 3\)"),
    (3, [[1.0, 0.0]], r"normals must have shape \(P, 3\) for 3D boxes, got shape \(1, 2\)"),
    (3, [[0.0, 0.0, 0.0]], "non-zero"),
    (4, [2.0, 3.0], r"offsets must be 1 finite numbers .* got shape \(2,\)"),
    (4, [np.inf], "offsets"),
])
def test_classify_box_planes_rejects_bad_input_saying_what_it_got(which, value, message):
    args = list(BOX)
    args[which] = value
    with pytest.raises(CollideWorldError, match=message) as info:
        classify_box_planes(*args)
    assert isinstance(info.value, ValueError)


def test_classify_box_planes_rejects_a_2d_matrix_that_is_not_a_rotation():
    with pytest.raises(InvalidArgumentError, match="2x2 rotation matrix"):
        classify_box_planes([[0.0, 0.0]], [[[1.0, 0.0], [0.0, -1.0]]], [[1.0, 1.0]], [[1.0, 0.0]], [2.0])


# --- frustum_planes_from_matrix (Gribb-Hartmann) --------------------------------------------


def look_at(eye, forward, up):
    """An OpenGL view matrix (gluLookAt), built here with numpy."""
    f = np.asarray(forward, float) / np.linalg.norm(forward)
    r = np.cross(f, up)
    r /= np.linalg.norm(r)
    u = np.cross(r, f)
    view = np.eye(4)
    view[0, :3], view[1, :3], view[2, :3] = r, u, -f
    view[:3, 3] = -view[:3, :3] @ np.asarray(eye, float)
    return view


def perspective(fov_y, aspect, near, far, zero_to_one=False):
    """gluPerspective, or its depth-[0, 1] variant (glm::perspectiveRH_ZO)."""
    f = 1.0 / math.tan(fov_y / 2)
    p = np.zeros((4, 4))
    p[0, 0], p[1, 1], p[3, 2] = f / aspect, f, -1.0
    if zero_to_one:
        p[2, 2], p[2, 3] = far / (near - far), far * near / (near - far)
    else:
        p[2, 2], p[2, 3] = (far + near) / (near - far), 2 * far * near / (near - far)
    return p


@pytest.mark.parametrize("zero_to_one", [False, True])
@pytest.mark.parametrize("camera", [
    ([1.0, 2.0, -3.0], [0.3, -0.2, 1.0], [0.0, 1.0, 0.0], 1.1, 1.6, 0.5, 20.0),
    ([0.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0], math.pi / 2, 1.0, 1.0, 10.0),
    ([-40.0, 7.0, 12.0], [1.0, 1.0, 1.0], [0.0, 0.0, 1.0], 0.4, 2.5, 0.1, 500.0),
])
def test_frustum_planes_from_matrix_match_frustum_planes(camera, zero_to_one):
    eye, forward, up, fov_y, aspect, near, far = camera
    want_n, want_d = frustum_planes(*camera)
    got_n, got_d = frustum_planes_from_matrix(perspective(fov_y, aspect, near, far, zero_to_one)
                                              @ look_at(eye, forward, up), depth_zero_to_one=zero_to_one)
    np.testing.assert_allclose(got_n, want_n, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got_d, want_d, rtol=0, atol=1e-12 * max(1.0, np.abs(eye).max()) * far)
    rng = np.random.default_rng(3)
    center = np.asarray(eye) + rng.uniform(-far, far, (3000, 3))
    half = rng.uniform(0.05, 2.0, (3000, 3))
    a = classify_box_planes(center, None, half, got_n, got_d)
    b = classify_box_planes(center, None, half, want_n, want_d)
    assert (a == b).mean() > 0.999 and {OUTSIDE, INSIDE, INTERSECTING} <= set(b.tolist())


@pytest.mark.parametrize("matrix, message", [
    (np.eye(3), r"finite 4x4 matrix, got shape \(3, 3\)"),
    (np.full((4, 4), np.nan), "finite 4x4"),
    (np.zeros((4, 4)), "near plane no direction"),
])
def test_frustum_planes_from_matrix_rejects_bad_matrices(matrix, message):
    with pytest.raises(InvalidArgumentError, match=message):
        frustum_planes_from_matrix(matrix)


# --- frustum_planes(view_projection): the matrix form of frustum_planes ----------------------


@pytest.mark.parametrize("zero_to_one", [False, True])
@pytest.mark.parametrize("camera", [
    ([1.0, 2.0, -3.0], [0.3, -0.2, 1.0], [0.0, 1.0, 0.0], 1.1, 1.6, 0.5, 20.0),
    ([-40.0, 7.0, 12.0], [1.0, 1.0, 1.0], [0.0, 0.0, 1.0], 0.4, 2.5, 0.1, 500.0),
])
def test_frustum_planes_takes_a_view_projection_matrix(camera, zero_to_one):
    # The oracle is the parameter form; the matrix is built here (gluPerspective @ gluLookAt).
    eye, forward, up, fov_y, aspect, near, far = camera
    want_n, want_d = frustum_planes(*camera)
    matrix = perspective(fov_y, aspect, near, far, zero_to_one) @ look_at(eye, forward, up)
    atol_d = 1e-12 * max(1.0, np.abs(eye).max()) * far
    for got_n, got_d in (frustum_planes(matrix, depth_zero_to_one=zero_to_one),
                         frustum_planes(view_projection=matrix.tolist(), depth_zero_to_one=zero_to_one)):
        np.testing.assert_allclose(got_n, want_n, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got_d, want_d, rtol=0, atol=atol_d)
    # and exactly what the named matrix function gives
    same = frustum_planes_from_matrix(matrix, depth_zero_to_one=zero_to_one)
    got = frustum_planes(matrix, depth_zero_to_one=zero_to_one)
    assert np.array_equal(got[0], same[0]) and np.array_equal(got[1], same[1])


def test_frustum_planes_matrix_form_is_checked():
    camera = ([0.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0], 1.0, 1.0, 1.0, 10.0)
    matrix = perspective(1.0, 1.0, 1.0, 10.0) @ look_at(*camera[:3])
    with pytest.raises(InvalidArgumentError, match="not both"):
        frustum_planes(*camera, view_projection=matrix)
    with pytest.raises(InvalidArgumentError, match="not both"):
        frustum_planes(matrix, camera[1], view_projection=matrix)
    with pytest.raises(InvalidArgumentError, match="up, fov_y, aspect, near, far missing"):
        frustum_planes(camera[0], camera[1])
    with pytest.raises(InvalidArgumentError, match="eye, forward, up, fov_y, aspect, near, far missing"):
        frustum_planes()
    with pytest.raises(InvalidArgumentError, match="finite 4x4 matrix, got shape \\(3, 3\\)"):
        frustum_planes(view_projection=np.eye(3))
    with pytest.raises(InvalidArgumentError, match="depth_zero_to_one applies to a view_projection"):
        frustum_planes(*camera, depth_zero_to_one=True)
    with pytest.raises(InvalidArgumentError, match="near plane no direction"):
        frustum_planes(np.zeros((4, 4)))
