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

__all__ = ["aabb_ball", "aabb_box", "aabb_points", "slot_bounds"]

# Kind codes of collideworld.bodies.Kind (this package may not import it; a test checks they agree).
BALL, BOX, CAPSULE = 1, 2, 4


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


@njit(cache=True)
def _slot_bounds(slots: NDArray[np.int64], kind: NDArray[np.int8], position: NDArray[np.float64],
                 rotation: NDArray[np.float64], radius: NDArray[np.float64], half: NDArray[np.float64],
                 seg0: NDArray[np.float64], seg1: NDArray[np.float64], rounding: NDArray[np.float64],
                 lo: NDArray[np.float64], hi: NDArray[np.float64], other: NDArray[np.bool_]) -> None:
    dim = position.shape[1]
    for i in range(slots.shape[0]):
        s = slots[i]
        k = kind[s]
        if k == BALL:
            for a in range(dim):
                lo[i, a] = position[s, a] - radius[s]
                hi[i, a] = position[s, a] + radius[s]
        elif k == BOX:
            for a in range(dim):
                extent = einsum_sum(abs(rotation[s, a, 0]) * half[s, 0], abs(rotation[s, a, 1]) * half[s, 1],
                                    abs(rotation[s, a, dim - 1]) * half[s, dim - 1], dim)
                lo[i, a] = position[s, a] - extent
                hi[i, a] = position[s, a] + extent
        elif k == CAPSULE:
            for a in range(dim):
                e0 = position[s, a]
                e1 = position[s, a]
                for c in range(dim):
                    e0 += rotation[s, a, c] * seg0[s, c]
                    e1 += rotation[s, a, c] * seg1[s, c]
                lo[i, a] = min(e0, e1) - radius[s]
                hi[i, a] = max(e0, e1) + radius[s]
        else:
            other[i] = True
            continue
        other[i] = False
        for a in range(dim):
            lo[i, a] -= rounding[s]
            hi[i, a] += rounding[s]


def slot_bounds(slots: NDArray[np.int64], kind: NDArray[np.int8], position: NDArray[np.float64],
                rotation: NDArray[np.float64], radius: NDArray[np.float64], half: NDArray[np.float64],
                seg0: NDArray[np.float64], seg1: NDArray[np.float64],
                rounding: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """Tight world boxes of the balls, boxes and capsules among store slots ``slots``, read from the columns.

    ``BodyStore.aabbs`` for those kinds (grown by the rounding radius) in one
    loop, to rounding (a capsule's end points summed in another order than
    numpy's einsum); ``other`` flags the rows of any other kind, left unset.

    Examples
    --------
    >>> import numpy as np
    >>> kind = np.array([1, 4], dtype=np.int8)
    >>> pos, rot = np.array([[1.0, 2.0], [0.0, 0.0]]), np.tile(np.eye(2), (2, 1, 1))
    >>> lo, hi, other = slot_bounds(np.array([0, 1]), kind, pos, rot, np.array([0.5, 0.25]), np.zeros((2, 2)),
    ...                             np.array([[0.0, 0.0], [-1.0, 0.0]]), np.array([[0.0, 0.0], [1.0, 0.0]]),
    ...                             np.zeros(2))
    >>> lo.tolist(), hi.tolist(), other.tolist()
    ([[0.5, 1.5], [-1.25, -0.25]], [[1.5, 2.5], [1.25, 0.25]], [False, False])
    """
    n, dim = len(slots), position.shape[1]
    lo = np.empty((n, dim))
    hi = np.empty((n, dim))
    other = np.empty(n, dtype=np.bool_)
    if n:
        _slot_bounds(np.ascontiguousarray(slots, dtype=np.int64), kind, position, rotation, radius, half, seg0,
                     seg1, rounding, lo, hi, other)
    return lo, hi, other
