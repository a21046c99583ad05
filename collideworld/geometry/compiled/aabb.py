"""Compiled twins of ``geometry/aabb.py``: world AABBs of posed shapes, one loop over rows.

Every function returns ``(lo, hi)``, each (N, D), tight (no margin), with the
arithmetic of its numpy twin.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..aabb import Bounds
from .kernel_support import as_rows, einsum_sum

__all__ = ["aabb_ball", "aabb_box", "aabb_points"]


@njit(cache=True)
def _ball_rows(c: NDArray[np.float64], r: NDArray[np.float64], lo: NDArray[np.float64],
               hi: NDArray[np.float64]) -> None:
    for i in range(c.shape[0]):
        for k in range(c.shape[1]):
            lo[i, k] = c[i, k] - r[i]
            hi[i, k] = c[i, k] + r[i]


@njit(cache=True)
def _box_rows(c: NDArray[np.float64], rot: NDArray[np.float64], h: NDArray[np.float64],
              lo: NDArray[np.float64], hi: NDArray[np.float64]) -> None:
    dim = c.shape[1]
    for i in range(c.shape[0]):
        for k in range(dim):
            # half-width along world axis k: sum_j |R_kj| h_j
            extent = einsum_sum(abs(rot[i, k, 0]) * h[i, 0], abs(rot[i, k, 1]) * h[i, 1],
                                abs(rot[i, k, dim - 1]) * h[i, dim - 1], dim)
            lo[i, k] = c[i, k] - extent
            hi[i, k] = c[i, k] + extent


@njit(cache=True)
def _points_rows(p: NDArray[np.float64], lo: NDArray[np.float64], hi: NDArray[np.float64]) -> None:
    for i in range(p.shape[0]):
        for k in range(p.shape[2]):
            a = b = p[i, 0, k]
            for j in range(1, p.shape[1]):
                a = min(a, p[i, j, k])
                b = max(b, p[i, j, k])
            lo[i, k] = a
            hi[i, k] = b


def aabb_ball(center: NDArray[np.float64], radius: NDArray[np.float64]) -> Bounds:
    """Bounds of balls, ``center -+ radius``; the twin of the numpy ``aabb_ball``.

    Parameters
    ----------
    center : ndarray, shape (N, D)
    radius : ndarray, shape (N,)

    Returns
    -------
    lo, hi : ndarray, shape (N, D)

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi = aabb_ball(np.array([[0.0, 0.0], [2.0, 1.0]]), np.array([1.0, 0.5]))
    >>> lo.tolist(), hi.tolist()
    ([[-1.0, -1.0], [1.5, 0.5]], [[1.0, 1.0], [2.5, 1.5]])
    """
    c = as_rows(center)
    lo, hi = np.empty(c.shape), np.empty(c.shape)
    _ball_rows(c, as_rows(radius), lo, hi)
    return lo, hi


def aabb_box(center: NDArray[np.float64], rotation: NDArray[np.float64],
             half: NDArray[np.float64]) -> Bounds:
    """Bounds of oriented boxes, half-width ``sum_j |R_ij| h_j``; the twin of the numpy ``aabb_box``.

    Parameters
    ----------
    center : ndarray, shape (N, D)
    rotation : ndarray, shape (N, D, D)
        Local-to-world rotations (columns are the box axes).
    half : ndarray, shape (N, D)
        Half extents.

    Returns
    -------
    lo, hi : ndarray, shape (N, D)

    Examples
    --------
    Half extents (2, 1): unrotated at (5, 0) the box spans 3..7 by -1..1; a
    quarter turn at the origin swaps the extents to 1 wide and 2 tall.

    >>> import numpy as np
    >>> eye, quarter = [[1.0, 0.0], [0.0, 1.0]], [[0.0, -1.0], [1.0, 0.0]]
    >>> lo, hi = aabb_box(np.array([[5.0, 0.0], [0.0, 0.0]]), np.array([eye, quarter]),
    ...                   np.array([[2.0, 1.0], [2.0, 1.0]]))
    >>> lo.tolist(), hi.tolist()
    ([[3.0, -1.0], [-1.0, -2.0]], [[7.0, 1.0], [1.0, 2.0]])
    """
    c = as_rows(center)
    lo, hi = np.empty(c.shape), np.empty(c.shape)
    _box_rows(c, as_rows(rotation), as_rows(half), lo, hi)
    return lo, hi


def aabb_points(points: NDArray[np.float64]) -> Bounds:
    """Bounds of point sets; the twin of the numpy ``aabb_points``.

    Parameters
    ----------
    points : ndarray, shape (N, K, D)
        K points per set (padding by repetition is harmless here).

    Returns
    -------
    lo, hi : ndarray, shape (N, D)

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi = aabb_points(np.array([[[0.0, 0.0], [2.0, 0.0], [1.0, 3.0]]]))
    >>> lo.tolist(), hi.tolist()
    ([[0.0, 0.0]], [[2.0, 3.0]])
    """
    p = as_rows(points)
    shape = (p.shape[0], p.shape[2])
    lo, hi = np.empty(shape), np.empty(shape)
    _points_rows(p, lo, hi)
    return lo, hi
