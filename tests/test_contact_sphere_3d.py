"""3D uses of the ball kernels (sphere-sphere, sphere-box) against independent methods.

Sphere-sphere is checked against the distance of the centres. Sphere-box is
checked against a brute-force signed distance from a point to a box built
from the box's 8 world corners: outside, the nearest of the candidate
points on its 6 faces, 12 edges and 8 vertices (the closest point of a
convex polytope lies in the relative interior of one of its features, where
it is the projection onto that feature's plane or line); inside, the nearest
face plane. The kernel instead clamps the centre in the box frame.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from collideworld.geometry.contact_ball_ball import contact_ball_ball
from collideworld.geometry.contact_ball_box import contact_ball_box

from .strategies import rotations_3d

AMBIGUOUS = 1e-9
_SIGNS = np.array(list(itertools.product([-1.0, 1.0], repeat=3)))


def _corner_index(signs):
    return int(np.flatnonzero(np.all(_SIGNS == signs, axis=1))[0])


def _features():
    """Corner indices of the 6 faces (q0, q0 + e1, q0 + e2) and 12 edges."""
    faces, edges = [], []
    for axis in range(3):
        u, v = [k for k in range(3) if k != axis]
        for side in (-1.0, 1.0):
            base = np.full(3, -1.0)
            base[axis] = side
            one_u, one_v = base.copy(), base.copy()
            one_u[u], one_v[v] = 1.0, 1.0
            faces.append((_corner_index(base), _corner_index(one_u), _corner_index(one_v)))
    for i, j in itertools.combinations(range(8), 2):
        if np.sum(_SIGNS[i] != _SIGNS[j]) == 1:
            edges.append((i, j))
    return np.array(faces), np.array(edges)


_FACES, _EDGES = _features()


def signed_distance_point_box(points, center, rotation, half):
    """Signed distance (N,) from points (N, 3) to boxes: positive outside,
    minus the distance to the boundary inside. Built from world corners."""
    corners = center[:, None, :] + np.einsum("nij,nkj->nki", rotation, _SIGNS * half[:, None, :])
    p = points[:, None, :]
    q0, q1, q2 = (corners[:, _FACES[:, m]] for m in range(3))
    e1, e2 = q1 - q0, q2 - q0
    # Faces: project on the plane, keep the projection if it lies on the face.
    s = np.einsum("nfd,nfd->nf", p - q0, e1) / np.einsum("nfd,nfd->nf", e1, e1)
    t = np.einsum("nfd,nfd->nf", p - q0, e2) / np.einsum("nfd,nfd->nf", e2, e2)
    on_face = (s >= 0) & (s <= 1) & (t >= 0) & (t <= 1)
    foot = q0 + s[..., None] * e1 + t[..., None] * e2
    face_d = np.where(on_face, np.linalg.norm(p - foot, axis=-1), np.inf)
    # Edges: the segment's nearest point.
    a, b = corners[:, _EDGES[:, 0]], corners[:, _EDGES[:, 1]]
    ab = b - a
    u = np.clip(np.einsum("ned,ned->ne", p - a, ab) / np.einsum("ned,ned->ne", ab, ab), 0, 1)
    edge_d = np.linalg.norm(p - (a + u[..., None] * ab), axis=-1)
    vert_d = np.linalg.norm(p - corners, axis=-1)
    outside_d = np.min(np.concatenate([face_d, edge_d, vert_d], axis=1), axis=1)
    # Face planes with outward normals, for the inside test and depth.
    normal = np.cross(e1, e2)
    normal /= np.linalg.norm(normal, axis=-1, keepdims=True)
    centroid = corners.mean(axis=1)[:, None, :]
    normal *= np.sign(np.einsum("nfd,nfd->nf", q0 - centroid, normal))[..., None]
    plane = np.einsum("nfd,nfd->nf", p - q0, normal)
    inside = np.all(plane <= 0, axis=1)
    return np.where(inside, np.max(plane, axis=1), outside_d)


def make_boxes(rng, n, spread=1.6):
    center = rng.uniform(-5, 5, (n, 3))
    rotation = Rotation.random(n, random_state=rng).as_matrix()
    half = rng.uniform(0.05, 1.5, (n, 3))
    spheres = center + rng.uniform(-spread, spread, (n, 3))
    radius = rng.uniform(0.01, 1.0, n)
    return spheres, radius, center, rotation, half


# --- sphere-box -----------------------------------------------------------


@pytest.fixture(scope="module")
def sphere_box_batch():
    rng = np.random.default_rng(2024)
    args = make_boxes(rng, 6000)
    sd = signed_distance_point_box(args[0], *args[2:])
    return args, sd, contact_ball_box(*args)


def test_sphere_box_hit_and_depth_match_brute_force(sphere_box_batch):
    (_, radius, *_), sd, c = sphere_box_batch
    expected_depth = radius - sd
    clear = np.abs(expected_depth) > AMBIGUOUS
    expected_hit = expected_depth > 0
    assert 0.2 < expected_hit.mean() < 0.8
    assert np.any(sd < 0)  # some centres inside their box
    np.testing.assert_array_equal(c.hit[clear], expected_hit[clear])
    np.testing.assert_allclose(c.depth[c.hit], np.maximum(expected_depth[c.hit], 0), atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(c.normal, axis=1), 1.0, atol=1e-12)


def test_sphere_box_moving_box_by_depth_along_normal_just_separates(sphere_box_batch):
    (centre, radius, center_b, rotation_b, half_b), _, c = sphere_box_batch
    sel = c.hit & (c.depth > 1e-6)
    assert sel.sum() > 1000
    for delta, separated in ((1e-7, True), (-1e-7, False)):
        moved = center_b[sel] + (c.depth[sel] + delta)[:, None] * c.normal[sel]
        sd = signed_distance_point_box(centre[sel], moved, rotation_b[sel], half_b[sel])
        assert np.all((sd > radius[sel]) == separated), delta


def test_sphere_box_centre_inside():
    eye = np.eye(3)[None]
    c = contact_ball_box([[0.5, 0.0, 0.0]], [0.25], [[0.0, 0.0, 0.0]], eye, [[1.0, 1.0, 1.0]])
    # The box leaves towards -x: 0.5 to the face, then the radius.
    assert c.hit[0] and c.depth[0] == pytest.approx(0.75, abs=1e-15)
    np.testing.assert_array_equal(c.normal[0], [-1.0, 0.0, 0.0])
    # Centre at the box centre of a flat box: out through the thin side.
    c = contact_ball_box([[0.0, 0.0, 0.0]], [0.1], [[0.0, 0.0, 0.0]], eye, [[1.0, 0.3, 2.0]])
    assert c.hit[0] and c.depth[0] == pytest.approx(0.4, abs=1e-15)
    assert abs(c.normal[0, 1]) == 1.0


@pytest.mark.parametrize(
    "centre, radius, normal",
    [
        ([1.5, 0.2, -0.3], 0.5, [-1.0, 0.0, 0.0]),                      # face
        ([2.0, 2.0, 0.5], math.sqrt(2), [-math.sqrt(0.5), -math.sqrt(0.5), 0.0]),  # edge
        ([-2.0, 2.0, -2.0], math.sqrt(3), [1 / math.sqrt(3), -1 / math.sqrt(3), 1 / math.sqrt(3)]),  # corner
    ],
    ids=["face", "edge", "corner"],
)
def test_sphere_box_touching(centre, radius, normal):
    eye = np.eye(3)[None]
    c = contact_ball_box([centre], [radius], [[0.0, 0.0, 0.0]], eye, [[1.0, 1.0, 1.0]])
    assert c.hit[0] and c.depth[0] < 1e-12
    np.testing.assert_allclose(c.normal[0], normal, atol=1e-12)
    c = contact_ball_box([centre], [radius - 1e-9], [[0.0, 0.0, 0.0]], eye, [[1.0, 1.0, 1.0]])
    assert not c.hit[0]


def test_sphere_box_touching_turned_box_and_large_offsets():
    r = Rotation.random(random_state=3).as_matrix()
    centre_b = np.array([[0.3, -0.4, 0.5]])
    for offset in (0.0, 1e6):
        cb = centre_b + offset
        on_face = cb + r @ [1.0 + 0.5, 0.2, -0.7]
        c = contact_ball_box(on_face, [0.5], cb, r[None], [[1.0, 2.0, 3.0]])
        assert c.hit[0] and c.depth[0] < 1e-9
        np.testing.assert_allclose(c.normal[0], -r[:, 0], atol=1e-9)
    c = contact_ball_box(centre_b + r @ [1.5 + 1e-9, 0.2, -0.7], [0.5], centre_b, r[None], [[1.0, 2.0, 3.0]])
    assert not c.hit[0]
    # 2e-9 is below touch_tolerance(1e6) = 1e-8: touching; 1e-7 is not.
    far = centre_b + 1e6
    c = contact_ball_box(far + [1.5 + 2e-9, 0, 0], [0.5], far, np.eye(3)[None], [[1.0, 2.0, 3.0]])
    assert c.hit[0]
    c = contact_ball_box(far + [1.5 + 1e-7, 0, 0], [0.5], far, np.eye(3)[None], [[1.0, 2.0, 3.0]])
    assert not c.hit[0]


def test_sphere_thin_box():
    eye = np.eye(3)[None]
    plate = [[1.0, 1.0, 1e-3]]
    c = contact_ball_box([[0.2, 0.1, 1e-3 + 0.25]], [0.25], [[0.0, 0.0, 0.0]], eye, plate)
    assert c.hit[0] and c.depth[0] < 1e-15
    np.testing.assert_array_equal(c.normal[0], [0.0, 0.0, -1.0])
    c = contact_ball_box([[0.2, 0.1, 1e-3 + 0.25 + 1e-9]], [0.25], [[0.0, 0.0, 0.0]], eye, plate)
    assert not c.hit[0]


@settings(max_examples=100, deadline=None)
@given(rotations_3d(), st.tuples(*[st.floats(-1e3, 1e3)] * 3))
def test_sphere_box_rigid_motion_invariance(q, shift):
    rng = np.random.default_rng(0)
    args = make_boxes(rng, 40)
    before = contact_ball_box(*args)
    v = np.array(shift)
    centre, radius, cb, rb, hb = args
    after = contact_ball_box(centre @ q.T + v, radius, cb @ q.T + v, q @ rb, hb)
    clear = np.abs(before.depth) > AMBIGUOUS
    np.testing.assert_array_equal(before.hit[clear], after.hit[clear])
    np.testing.assert_allclose(before.depth, after.depth, atol=1e-9)
    # Centres exactly on a box's mid-plane would make the normal a tie; random
    # centres never are, so the normals turn with the scene.
    np.testing.assert_allclose(before.normal @ q.T, after.normal, atol=1e-8)


# --- sphere-sphere --------------------------------------------------------


def test_sphere_sphere_matches_centre_distance():
    rng = np.random.default_rng(11)
    n = 5000
    ca, cb = rng.uniform(-3, 3, (n, 3)), rng.uniform(-3, 3, (n, 3))
    ra, rb = rng.uniform(0.05, 2.5, n), rng.uniform(0.05, 2.5, n)
    c = contact_ball_ball(ca, ra, cb, rb)
    dist = np.array([math.dist(p, q) for p, q in zip(ca, cb, strict=True)])
    expected = ra + rb - dist
    clear = np.abs(expected) > AMBIGUOUS
    assert 0.2 < (expected > 0).mean() < 0.8
    np.testing.assert_array_equal(c.hit[clear], (expected > 0)[clear])
    np.testing.assert_allclose(c.depth[c.hit], np.maximum(expected[c.hit], 0), atol=1e-12)
    # Moving b by depth +- 1e-7 along the normal just separates / still overlaps.
    sel = c.hit & (c.depth > 1e-6)
    for delta, separated in ((1e-7, True), (-1e-7, False)):
        moved = cb[sel] + (c.depth[sel] + delta)[:, None] * c.normal[sel]
        gap = np.linalg.norm(moved - ca[sel], axis=1) - ra[sel] - rb[sel]
        assert np.all((gap > 0) == separated)


def test_sphere_sphere_touching_exact():
    c = contact_ball_ball([[0.0, 0.0, 0.0]], [1.0], [[3.0, 0.0, 4.0]], [4.0])
    assert c.hit[0] and c.depth[0] == 0.0
    np.testing.assert_allclose(c.normal[0], [0.6, 0.0, 0.8], atol=1e-15)
    c = contact_ball_ball([[0.0, 0.0, 0.0]], [1.0], [[3.0, 0.0, 4.0 + 1e-9]], [4.0])
    assert not c.hit[0]
    far = np.array([[1e6, -1e6, 1e6]])
    c = contact_ball_ball(far, [1.0], far + [0.0, 0.0, 2.0], [1.0])
    assert c.hit[0] and c.depth[0] == 0.0


def test_sphere_sphere_concentric():
    c = contact_ball_ball([[1.0, 2.0, 3.0]], [0.5], [[1.0, 2.0, 3.0]], [0.25])
    assert c.hit[0] and c.depth[0] == 0.75
    assert np.linalg.norm(c.normal[0]) == pytest.approx(1.0)


def test_sphere_sphere_inside_another():
    c = contact_ball_ball([[0.0, 0.0, 0.0]], [2.0], [[0.0, 0.5, 0.0]], [0.5])
    # b must travel 2 - 0.5 + 0.5 = 2 along +y to leave a.
    assert c.hit[0] and c.depth[0] == 2.0
    np.testing.assert_array_equal(c.normal[0], [0.0, 1.0, 0.0])


def test_oracle_signed_distance_on_known_points():
    """The brute-force oracle itself, on points with known distances."""
    eye = np.eye(3)[None].repeat(5, axis=0)
    pts = np.array([[2.0, 0, 0], [2, 2, 0], [2, 2, 2], [0.5, 0, 0], [0, 0, 0]])
    sd = signed_distance_point_box(pts, np.zeros((5, 3)), eye, np.ones((5, 3)))
    np.testing.assert_allclose(sd, [1, math.sqrt(2), math.sqrt(3), -0.5, -1], atol=1e-15)
