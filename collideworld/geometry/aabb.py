"""World-space axis-aligned bounding boxes of posed shapes, batched per kind.

Every function returns ``(lo, hi)``, each of shape (N, D). Boxes are tight
(no margin); the world adds its own margin and the touching tolerance.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["aabb_ball", "aabb_box", "aabb_points"]

Bounds = tuple[NDArray[np.float64], NDArray[np.float64]]


def aabb_ball(center: NDArray[np.float64], radius: NDArray[np.float64]) -> Bounds:
    """Bounds of balls. ``center`` (N, D), ``radius`` (N,)."""
    r = radius[:, None]
    return center - r, center + r


def aabb_box(center: NDArray[np.float64], rotation: NDArray[np.float64],
             half: NDArray[np.float64]) -> Bounds:
    """Bounds of oriented boxes: the half-width along world axis i is ``sum_j |R_ij| h_j``.

    ``center`` (N, D), ``rotation`` (N, D, D), ``half`` (N, D).
    """
    extent = np.einsum("nij,nj->ni", np.abs(rotation), half)
    return center - extent, center + extent


def aabb_points(points: NDArray[np.float64]) -> Bounds:
    """Bounds of point sets (polygon vertices in world space), ``points`` (N, K, D)."""
    return points.min(axis=1), points.max(axis=1)
