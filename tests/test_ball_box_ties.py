"""Ball centred on a box's corner, edge or centre: the documented tie rule picks the normal.

A centre on a corner (or an edge, or the centre of a cube) is equally deep
along several box axes, so several face normals are minimum translation
directions. The kernels break the tie by a fixed order: the lowest axis
(x, then y, then z) among the faces within the touching tolerance of the
nearest, with the box sent towards that axis's negative side when the
centre is on the axis's + side or within the tolerance of its mid-plane.

The expected normal is worked out here by hand from that rule and from a
rotation matrix built independently from the pose (the quaternion formula,
or cos/sin in 2D), for seeded random boxes, radii, rotations and
translations, each also nudged by a few ulps in every pose number: the
answer must not move with the pose's last bits, and both backends must give
the same bytes.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from collideworld import Box, Circle, Sphere, collide_many


def _quat_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrices (N, 3, 3) of unit quaternions [w, x, y, z] (N, 4), the textbook formula."""
    q = q / np.linalg.norm(q, axis=1)[:, None]
    w, x, y, z = q.T
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], axis=1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], axis=1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=1),
    ], axis=1)


def _angle_matrix(t: np.ndarray) -> np.ndarray:
    c, s = np.cos(t), np.sin(t)
    return np.stack([np.stack([c, -s], axis=1), np.stack([s, c], axis=1)], axis=1)


def _nudge(rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    """``x`` moved by 0 to 3 ulps up or down, independently per number."""
    out = x.copy()
    steps = rng.integers(-3, 4, size=x.shape)
    for k in range(1, 4):
        out = np.where(steps >= k, np.nextafter(out, np.inf), out)
        out = np.where(steps <= -k, np.nextafter(out, -np.inf), out)
    return out


def _placements(dim: int) -> list[tuple[float, ...]]:
    """Box-frame centres as fractions of the half extents: every corner, every edge (3D), the centre."""
    signs = list(itertools.product((-1.0, 1.0), repeat=dim))
    out = [tuple(s) for s in signs]  # corners: every axis tied
    if dim == 3:
        for free in range(3):  # edges: the two other axes tied
            for s in itertools.product((-1.0, 1.0), repeat=2):
                p = list(s)
                p.insert(free, 0.37)
                out.append(tuple(p))
    return out


def _expected(frac: np.ndarray, half: np.ndarray, rot: np.ndarray) -> np.ndarray:
    """The tie rule by hand: the lowest axis among those where the centre is deepest."""
    gap = half - np.abs(frac * half)  # exact: 0 on the faces the centre lies on
    out = np.empty((len(frac), rot.shape[1]))
    for n in range(len(frac)):
        face = int(np.flatnonzero(gap[n] == gap[n].min())[0])
        side = -1.0 if frac[n, face] >= 0 else 1.0
        out[n] = side * rot[n][:, face]
    return out


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("seed", range(4))
def test_ball_on_box_corner_and_edge_takes_lowest_tied_axis(dim: int, seed: int) -> None:
    rng = np.random.default_rng(1000 * dim + seed)
    places = np.array(_placements(dim))
    reps = 60
    frac = np.repeat(places, reps, axis=0)
    n = len(frac)
    half = rng.uniform(0.2, 3.0, size=dim)
    radius = float(rng.uniform(0.1, 2.0))
    scale = 10.0 ** rng.integers(-3, 4)
    half = half * scale
    radius *= scale
    box_pos = rng.uniform(-50, 50, size=(n, dim)) * scale
    if dim == 2:
        angle = _nudge(rng, rng.uniform(-np.pi, np.pi, size=n))
        rot = _angle_matrix(angle)
        pose_b = (_nudge(rng, box_pos), angle)
        ball = Circle(radius)
    else:
        quat = rng.normal(size=(n, 4))
        quat = _nudge(rng, quat / np.linalg.norm(quat, axis=1)[:, None])
        rot = _quat_matrix(quat)
        pose_b = (_nudge(rng, box_pos), quat)
        ball = Sphere(radius)
    # the ball's centre on the feature, in world coordinates (rounded: a few
    # ulps off the feature, on either side, which is what must not matter)
    centre = box_pos + np.einsum("nij,nj->ni", rot, frac * half)
    box = Box(tuple(half.tolist()))
    want = _expected(frac, half, rot)
    got = {b: collide_many(ball, centre, box, pose_b, backend=b) for b in ("numpy", "compiled")}
    for b, c in got.items():
        assert c.hit.all(), b
        np.testing.assert_allclose(c.depth, radius, rtol=1e-9, err_msg=b)
        wrong = np.flatnonzero(np.abs(c.normal - want).max(axis=1) > 1e-9)
        assert len(wrong) == 0, (b, len(wrong), n, frac[wrong[:3]], c.normal[wrong[:3]], want[wrong[:3]])
    assert np.array_equal(got["numpy"].normal, got["compiled"].normal)


@pytest.mark.parametrize("dim", [2, 3])
def test_ball_at_cube_centre_takes_first_axis_negative_side(dim: int) -> None:
    """Every axis tied and the centre on every mid-plane (to rounding): -x of the box, on every pose."""
    rng = np.random.default_rng(77 + dim)
    n = 300
    h = 0.75
    pos = rng.uniform(-20, 20, size=(n, dim))
    if dim == 2:
        angle = _nudge(rng, rng.uniform(-np.pi, np.pi, size=n))
        rot, pose_b, ball = _angle_matrix(angle), (_nudge(rng, pos), angle), Circle(0.5)
    else:
        quat = rng.normal(size=(n, 4))
        quat = _nudge(rng, quat / np.linalg.norm(quat, axis=1)[:, None])
        rot, pose_b, ball = _quat_matrix(quat), (_nudge(rng, pos), quat), Sphere(0.5)
    want = -rot[:, :, 0]
    got = {b: collide_many(ball, pos, Box((h,) * dim), pose_b, backend=b) for b in ("numpy", "compiled")}
    for b, c in got.items():
        np.testing.assert_allclose(c.depth, 0.5 + h, rtol=1e-12, err_msg=b)
        np.testing.assert_allclose(c.normal, want, atol=1e-9, err_msg=b)
    assert np.array_equal(got["numpy"].normal, got["compiled"].normal)
