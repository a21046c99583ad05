"""Contact points of an oriented box (a) and a capsule or segment (b), 2D or 3D.

The box's feature along ``+n`` is clipped against the core segment's along
``-n`` (:mod:`~collideworld.geometry.manifold_capsule_support`): a capsule
lying across a box face gives the two ends of the part over the face, one
standing on it gives one point.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .kernel_support import box_vertices_2d
from .manifold_capsule_support import round_manifold, segment_feature_3d, segment_vertices
from .manifold_support import ManifoldArrays, box_feature_3d, manifold_convex_2d, manifold_features_3d

__all__ = ["manifold_box_capsule"]


def manifold_box_capsule(center: NDArray[np.float64], rotation: NDArray[np.float64], half: NDArray[np.float64],
                         p0: NDArray[np.float64], p1: NDArray[np.float64], radius: NDArray[np.float64],
                         normal: NDArray[np.float64], depth: NDArray[np.float64]) -> ManifoldArrays:
    """Up to two points per pair (the segment has at most two ends over the box's feature).

    Parameters
    ----------
    center : ndarray, shape (N, D)
    rotation : ndarray, shape (N, D, D)
    half : ndarray, shape (N, D)
    p0, p1 : ndarray, shape (N, D)
    radius : ndarray, shape (N,)
    normal : ndarray, shape (N, D)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays
        Box features numbered as in ``box_vertices_2d`` (2D) or
        ``box_feature_3d`` (3D); segment features as in
        :mod:`~collideworld.geometry.manifold_capsule_support`.

    Examples
    --------
    A capsule of radius 0.25 lying across the top face of a unit cube,
    hanging over its edge at x = 1: the points are over x = 0.5 and x = 1.

    >>> import numpy as np
    >>> m = manifold_box_capsule(np.zeros((1, 3)), np.eye(3)[None], np.ones((1, 3)), np.array([[0.5, 0.0, 1.25]]),
    ...                          np.array([[3.0, 0.0, 1.25]]), np.array([0.25]), np.array([[0.0, 0.0, 1.0]]),
    ...                          np.zeros(1))
    >>> int(m.count[0]), sorted(m.points[0, :2].tolist())
    (2, [[0.5, 0.0, 1.0], [1.0, 0.0, 1.0]])
    """
    if normal.shape[1] == 2:
        m = manifold_convex_2d(box_vertices_2d(center, rotation, half), segment_vertices(p0, p1), normal)
    else:
        fa = box_feature_3d(center, rotation, half, normal)
        fb = segment_feature_3d(p0, p1, -normal)
        m = manifold_features_3d(fa, fb, normal, _scale(center, half, p0, p1, radius))
    return round_manifold(m, normal, 0.0, radius)


def _scale(center: NDArray[np.float64], half: NDArray[np.float64], p0: NDArray[np.float64],
           p1: NDArray[np.float64], radius: NDArray[np.float64]) -> NDArray[np.float64]:
    """Size of each pair (the largest coordinate or extent), for the clip's tolerance."""
    out: NDArray[np.float64] = np.maximum.reduce([np.abs(center).max(axis=1), half.max(axis=1),
                                                  np.abs(p0).max(axis=1), np.abs(p1).max(axis=1), radius])
    return out
