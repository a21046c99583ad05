"""Compiled twin of ``geometry/contact_halfspace_polygon.py``: half-spaces against point sets.

A convex hull's lowest point along the half-space normal is its lowest
vertex; for a polygon outline that holds concave or not.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..result import ContactArrays
from .kernel_support import as_rows, contact_outputs, einsum_sum, finish_row, touch_rule

__all__ = ["contact_halfspace_points", "row_planes"]


@njit(cache=True)
def _rows(n: NDArray[np.float64], off: NDArray[np.float64], v: NDArray[np.float64],
          rule: tuple[float, float],
          hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    dim = n.shape[1]
    for i in range(n.shape[0]):
        lowest = np.inf
        reach = 0.0
        for j in range(v.shape[1]):
            for k in range(dim):
                reach = max(reach, abs(v[i, j, k]))
            along = einsum_sum(v[i, j, 0] * n[i, 0], v[i, j, 1] * n[i, 1], v[i, j, dim - 1] * n[i, dim - 1], dim)
            lowest = min(lowest, along)
        for k in range(dim):
            normal[i, k] = n[i, k]
        a = abs(off[i])
        finish_row(off[i] - lowest, a if a >= reach else reach, rule, i, hit, depth)


@njit(cache=True)
def row_planes(n: NDArray[np.float64], off: NDArray[np.float64], a: int,
                px: NDArray[np.float64], py: NDArray[np.float64], b: int, kk: int, rule: tuple[float, float], i: int,
                hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    """Row ``i`` of the output: half-plane ``a`` against the 2D points in column ``b`` of (K, N) planes.

    The arithmetic of :func:`_rows` in 2D, vertex by vertex in the same
    order, for the posed planes the narrowphase keeps per slot (padding by
    repeating the last vertex changes neither the lowest point nor the reach,
    so only the first ``kk`` vertices are read).
    """
    lowest = np.inf
    reach = 0.0
    for j in range(kk):
        reach = max(reach, abs(px[j, b]))
        reach = max(reach, abs(py[j, b]))
        along = einsum_sum(px[j, b] * n[a, 0], py[j, b] * n[a, 1], py[j, b] * n[a, 1], 2)
        lowest = min(lowest, along)
    normal[i, 0] = n[a, 0]
    normal[i, 1] = n[a, 1]
    o = abs(off[a])
    finish_row(off[a] - lowest, o if o >= reach else reach, rule, i, hit, depth)


def contact_halfspace_points(normal: NDArray[np.float64], offset: NDArray[np.float64],
                             vertices: NDArray[np.float64]) -> ContactArrays:
    """Half-spaces (a) against hulls of point sets (b); the twin of the numpy ``contact_halfspace_points``.

    Parameters
    ----------
    normal : ndarray, shape (N, D)
    offset : ndarray, shape (N,)
    vertices : ndarray, shape (N, K, D)
        World-space vertices (padding by repetition is harmless here).

    Returns
    -------
    ContactArrays
        ``normal`` (N, D) is the half-space's normal; ``depth`` (N,) is
        ``offset`` minus the lowest vertex along it.

    Examples
    --------
    Against the floor ``y <= 0``: a triangle whose lowest corner is at
    y = -0.5 sinks 0.5 into it; raised to y = 0.25 it is 0.25 above.

    >>> import numpy as np
    >>> tris = np.array([[[0.0, -0.5], [2.0, 1.0], [-1.0, 1.0]], [[0.0, 0.25], [2.0, 1.0], [-1.0, 1.0]]])
    >>> c = contact_halfspace_points(np.array([[0.0, 1.0]] * 2), np.array([0.0, 0.0]), tris)
    >>> c.hit.tolist(), c.normal[0].tolist(), c.depth.tolist()
    ([True, False], [0.0, 1.0], [0.5, -0.25])
    """
    n = as_rows(normal)
    out = contact_outputs(n.shape[0], n.shape[1])
    _rows(n, as_rows(offset), as_rows(vertices), touch_rule(), *out)
    return out
