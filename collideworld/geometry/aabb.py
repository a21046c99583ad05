"""World-space axis-aligned bounding boxes of posed shapes, batched per kind.

Every function returns ``(lo, hi)``, each of shape (N, D). Boxes are tight
(no margin); the world adds its own margin and the touching tolerance.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["Bounds", "aabb_ball", "aabb_box", "aabb_points", "max_over_columns", "min_over_columns"]

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


def max_over_columns(a: NDArray[np.float64], axis: int = -1) -> NDArray[np.float64]:
    """``a.max(axis)`` for a short axis, as a chain of elementwise maxima.

    numpy reduces along a short axis (2-16 entries) an order of magnitude
    slower than it applies ``np.maximum`` to whole columns.
    """
    a = np.moveaxis(a, axis, 0)
    if a.shape[0] > 16:
        reduced: NDArray[np.float64] = a.max(axis=0)
        return reduced
    out: NDArray[np.float64] = a[0].copy()
    for col in a[1:]:
        np.maximum(out, col, out=out)
    return out


def min_over_columns(a: NDArray[np.float64], axis: int = -1) -> NDArray[np.float64]:
    """``a.min(axis)`` for a short axis; see :func:`max_over_columns`."""
    a = np.moveaxis(a, axis, 0)
    if a.shape[0] > 16:
        reduced: NDArray[np.float64] = a.min(axis=0)
        return reduced
    out: NDArray[np.float64] = a[0].copy()
    for col in a[1:]:
        np.minimum(out, col, out=out)
    return out


def aabb_points(points: NDArray[np.float64]) -> Bounds:
    """Bounds of point sets (polygon vertices in world space), ``points`` (N, K, D)."""
    return min_over_columns(points, axis=1), max_over_columns(points, axis=1)
