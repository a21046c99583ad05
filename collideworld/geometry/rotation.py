"""Rotations: 2D angles and 3D unit quaternions to matrices, batched.

Convention: a rotation matrix ``R`` maps body-local coordinates to world
coordinates, ``world = R @ local + position``; its columns are the body's
local axes expressed in the world frame. Quaternions are ``[w, x, y, z]``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "rotation_matrix_2d",
    "rotation_matrix_3d",
    "quaternion_from_matrix",
    "rotate_points",
]


def rotation_matrix_2d(angle: ArrayLike) -> NDArray[np.float64]:
    """Counter-clockwise rotation matrices for angles in radians.

    Parameters
    ----------
    angle : array_like, shape (...)

    Returns
    -------
    ndarray, shape (..., 2, 2)

    Examples
    --------
    >>> rotation_matrix_2d(0.0)
    array([[ 1., -0.],
           [ 0.,  1.]])
    """
    a = np.asarray(angle, dtype=np.float64)
    c, s = np.cos(a), np.sin(a)
    out = np.empty(a.shape + (2, 2))
    out[..., 0, 0] = c
    out[..., 0, 1] = -s
    out[..., 1, 0] = s
    out[..., 1, 1] = c
    return out


def rotation_matrix_3d(quaternion: ArrayLike) -> NDArray[np.float64]:
    """Rotation matrices for unit quaternions ``[w, x, y, z]``.

    The quaternion is normalised first, so a quaternion that is unit to
    within rounding gives an orthonormal matrix to within rounding.

    Parameters
    ----------
    quaternion : array_like, shape (..., 4)

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Examples
    --------
    ``[0, 0, 0, 1]`` is a half turn about z: ``(x, y, z) -> (-x, -y, z)``.

    >>> rotation_matrix_3d([0.0, 0.0, 0.0, 1.0]).tolist()
    [[-1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    q = np.asarray(quaternion, dtype=np.float64)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    out = np.empty(q.shape[:-1] + (3, 3))
    out[..., 0, 0] = 1 - 2 * (y * y + z * z)
    out[..., 0, 1] = 2 * (x * y - w * z)
    out[..., 0, 2] = 2 * (x * z + w * y)
    out[..., 1, 0] = 2 * (x * y + w * z)
    out[..., 1, 1] = 1 - 2 * (x * x + z * z)
    out[..., 1, 2] = 2 * (y * z - w * x)
    out[..., 2, 0] = 2 * (x * z - w * y)
    out[..., 2, 1] = 2 * (y * z + w * x)
    out[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return out


def quaternion_from_matrix(matrix: ArrayLike) -> NDArray[np.float64]:
    """Unit quaternions ``[w, x, y, z]`` (with ``w >= 0``) for rotation matrices.

    Uses the largest-diagonal branch (Shepperd's method) so it stays accurate
    for rotations near 180 degrees, where ``w`` is close to zero.

    Parameters
    ----------
    matrix : array_like, shape (..., 3, 3)
        Proper rotation matrices (orthonormal, determinant +1); not checked here.

    Returns
    -------
    ndarray, shape (..., 4)

    Examples
    --------
    The identity and a half turn about x (``w = cos 90deg = 0``):

    >>> quaternion_from_matrix([np.eye(3), np.diag([1.0, -1.0, -1.0])]).tolist()
    [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]
    """
    m = np.asarray(matrix, dtype=np.float64)
    shape = m.shape[:-2]
    m = m.reshape(-1, 3, 3)
    tr = m[:, 0, 0] + m[:, 1, 1] + m[:, 2, 2]
    cand = np.stack([tr, m[:, 0, 0], m[:, 1, 1], m[:, 2, 2]], axis=1)
    branch = np.argmax(cand, axis=1)
    q = np.empty((m.shape[0], 4))
    for b in range(4):  # four branches, not a loop over bodies
        sel = branch == b
        if not np.any(sel):
            continue
        r = m[sel]
        if b == 0:
            s = np.sqrt(1.0 + tr[sel]) * 2
            q[sel] = np.stack([0.25 * s, (r[:, 2, 1] - r[:, 1, 2]) / s,
                               (r[:, 0, 2] - r[:, 2, 0]) / s, (r[:, 1, 0] - r[:, 0, 1]) / s], axis=1)
        elif b == 1:
            s = np.sqrt(1.0 + r[:, 0, 0] - r[:, 1, 1] - r[:, 2, 2]) * 2
            q[sel] = np.stack([(r[:, 2, 1] - r[:, 1, 2]) / s, 0.25 * s,
                               (r[:, 0, 1] + r[:, 1, 0]) / s, (r[:, 0, 2] + r[:, 2, 0]) / s], axis=1)
        elif b == 2:
            s = np.sqrt(1.0 + r[:, 1, 1] - r[:, 0, 0] - r[:, 2, 2]) * 2
            q[sel] = np.stack([(r[:, 0, 2] - r[:, 2, 0]) / s, (r[:, 0, 1] + r[:, 1, 0]) / s,
                               0.25 * s, (r[:, 1, 2] + r[:, 2, 1]) / s], axis=1)
        else:
            s = np.sqrt(1.0 + r[:, 2, 2] - r[:, 0, 0] - r[:, 1, 1]) * 2
            q[sel] = np.stack([(r[:, 1, 0] - r[:, 0, 1]) / s, (r[:, 0, 2] + r[:, 2, 0]) / s,
                               (r[:, 1, 2] + r[:, 2, 1]) / s, 0.25 * s], axis=1)
    q[q[:, 0] < 0] *= -1
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return q.reshape(shape + (4,))


def rotate_points(rotation: ArrayLike, points: ArrayLike) -> NDArray[np.float64]:
    """Apply rotations to points: ``out[..., k, :] = R[...] @ points[..., k, :]``.

    Parameters
    ----------
    rotation : array_like, shape (..., D, D)
    points : array_like, shape (..., K, D)

    Returns
    -------
    ndarray, shape (..., K, D)

    Examples
    --------
    A quarter turn counter-clockwise takes (1, 0) to (0, 1) and (3, 4) to
    (-4, 3):

    >>> rotate_points([[0.0, -1.0], [1.0, 0.0]], [[1.0, 0.0], [3.0, 4.0]]).tolist()
    [[0.0, 1.0], [-4.0, 3.0]]
    """
    r = np.asarray(rotation, dtype=np.float64)
    p = np.asarray(points, dtype=np.float64)
    rotated: NDArray[np.float64] = np.einsum("...ij,...kj->...ki", r, p)
    return rotated
