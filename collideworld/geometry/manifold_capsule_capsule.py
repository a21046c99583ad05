"""Contact points of two capsules or segments, 2D or 3D: up to two.

Each core segment's feature (the whole segment within the tilt slop of
lying across the normal, else its nearer end) is clipped against the
other's, then grown by the radii
(:mod:`~collideworld.geometry.manifold_capsule_support`): crossed capsules
touch at one point, parallel ones at the two ends of their overlap.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .manifold_capsule_support import round_manifold, segment_feature_3d, segment_vertices
from .manifold_support import ManifoldArrays, manifold_convex_2d, manifold_features_3d

__all__ = ["manifold_capsule_capsule"]


def manifold_capsule_capsule(a0: NDArray[np.float64], a1: NDArray[np.float64], radius_a: NDArray[np.float64],
                             b0: NDArray[np.float64], b1: NDArray[np.float64], radius_b: NDArray[np.float64],
                             normal: NDArray[np.float64], depth: NDArray[np.float64]) -> ManifoldArrays:
    """Up to two points per pair.

    Parameters
    ----------
    a0, a1, b0, b1 : ndarray, shape (N, D)
        World ends of the core segments.
    radius_a, radius_b : ndarray, shape (N,)
    normal : ndarray, shape (N, D)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    Two parallel capsules of radius 0.5, one resting on the other, their
    cores overlapping from x = 1 to x = 2:

    >>> import numpy as np
    >>> r = np.array([0.5])
    >>> m = manifold_capsule_capsule(np.array([[0.0, 0.0, 0.0]]), np.array([[2.0, 0.0, 0.0]]), r,
    ...                              np.array([[1.0, 0.0, 1.0]]), np.array([[4.0, 0.0, 1.0]]), r,
    ...                              np.array([[0.0, 0.0, 1.0]]), np.zeros(1))
    >>> int(m.count[0]), sorted(m.points[0, :2].tolist())
    (2, [[1.0, 0.0, 0.5], [2.0, 0.0, 0.5]])
    """
    if normal.shape[1] == 2:
        m = manifold_convex_2d(segment_vertices(a0, a1), segment_vertices(b0, b1), normal)
    else:
        scale = np.maximum.reduce([np.abs(a0).max(axis=1), np.abs(a1).max(axis=1), np.abs(b0).max(axis=1),
                                   np.abs(b1).max(axis=1), radius_a, radius_b])
        m = manifold_features_3d(segment_feature_3d(a0, a1, normal), segment_feature_3d(b0, b1, -normal), normal,
                                 scale)
    return round_manifold(m, normal, radius_a, radius_b)
