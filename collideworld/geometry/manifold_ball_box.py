"""Contact points of a ball (a) and an oriented box (b), 2D or 3D: one point.

The ball's deepest point ``c + r n`` is a's touching point, b's is ``depth``
back along the normal; the id names the box's face, edge or corner along
``-n`` (within the tilt slop).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .kernel_support import box_vertices_2d
from .manifold_support import ManifoldArrays, box_feature_3d, edge_code, manifold_single_point, support_ends_2d

__all__ = ["manifold_ball_box"]


def manifold_ball_box(center_a: NDArray[np.float64], radius_a: NDArray[np.float64],
                      center_b: NDArray[np.float64], rotation_b: NDArray[np.float64], half_b: NDArray[np.float64],
                      normal: NDArray[np.float64], depth: NDArray[np.float64]) -> ManifoldArrays:
    """One point per pair, halfway between the ball's and the box's touching points.

    Parameters
    ----------
    center_a : ndarray, shape (N, D)
    radius_a : ndarray, shape (N,)
    center_b : ndarray, shape (N, D)
    rotation_b : ndarray, shape (N, D, D)
    half_b : ndarray, shape (N, D)
    normal : ndarray, shape (N, D)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays
        Separation ``-depth``; id ``0 << 32 | box feature``.

    Examples
    --------
    A unit circle at the origin against a box whose left face is at x = 0.75:

    >>> import numpy as np
    >>> m = manifold_ball_box(np.zeros((1, 2)), np.ones(1), np.array([[1.25, 0.0]]), np.eye(2)[None],
    ...                       np.array([[0.5, 0.5]]), np.array([[1.0, 0.0]]), np.array([0.25]))
    >>> m.points[0, 0].tolist(), m.separations[0, 0].tolist()
    ([0.875, 0.0], -0.25)
    """
    pa = center_a + radius_a[:, None] * normal
    if normal.shape[1] == 2:
        lo, hi = support_ends_2d(box_vertices_2d(center_b, rotation_b, half_b), -normal)
        code = edge_code(lo, hi)
    else:
        code = box_feature_3d(center_b, rotation_b, half_b, -normal)[4]
    return manifold_single_point(pa, normal, -depth, code)
