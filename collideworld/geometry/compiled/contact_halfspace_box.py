"""Compiled twin of ``geometry/contact_halfspace_box.py``: half-spaces against oriented boxes.

The box's lowest point along the half-space normal ``n`` is
``n.c - sum_i |n . axis_i| h_i`` (Ericson, *Real-Time Collision Detection*,
§5.2.3, the box's projected radius).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..result import ContactArrays
from .kernel_support import as_rows, contact_outputs, einsum_sum, finish_row, touch_rule

__all__ = ["contact_halfspace_box", "row"]


@njit(cache=True)
def row(n: NDArray[np.float64], off: NDArray[np.float64], a: int,
         c: NDArray[np.float64], rot: NDArray[np.float64], h: NDArray[np.float64], b: int,
         rule: tuple[float, float], i: int,
         hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    """Row ``i`` of the output: half-space ``a`` (rows of ``n``, ``off``) against box ``b``."""
    dim = n.shape[1]
    # the box's projected radius: n in the box frame (n . column ax of the
    # rotation), weighted by the half extents; scalars, D <= 3
    t0 = t1 = t2 = 0.0
    for ax in range(dim):
        along = rot[b, 0, ax] * n[a, 0]
        for k in range(1, dim):
            along += rot[b, k, ax] * n[a, k]
        term = abs(along) * h[b, ax]
        if ax == 0:
            t0 = term
        elif ax == 1:
            t1 = term
        else:
            t2 = term
    radius = einsum_sum(t0, t1, t2, dim)
    centre = einsum_sum(n[a, 0] * c[b, 0], n[a, 1] * c[b, 1], n[a, dim - 1] * c[b, dim - 1], dim)
    reach = abs(c[b, 0])
    half = h[b, 0]
    for k in range(1, dim):
        reach = max(reach, abs(c[b, k]))
        half = max(half, h[b, k])
    for k in range(dim):
        normal[i, k] = n[a, k]
    reach = max(reach, 0.0) + max(half, 0.0)
    a0 = abs(off[a])
    finish_row(off[a] - (centre - radius), a0 if a0 >= reach else reach, rule, i, hit, depth)


@njit(cache=True)
def _rows(n: NDArray[np.float64], off: NDArray[np.float64], c: NDArray[np.float64], rot: NDArray[np.float64],
          h: NDArray[np.float64], rule: tuple[float, float],
          hit: NDArray[np.bool_], normal: NDArray[np.float64],
          depth: NDArray[np.float64]) -> None:
    # strided views of the rows (x[..., ::1]), as every compiled caller passes them: one layout,
    # one compile of row (see contact_slots)
    v_c, v_rot, v_h = c[..., ::1], rot[..., ::1], h[..., ::1]
    for i in range(n.shape[0]):
        row(n, off, i, v_c, v_rot, v_h, i, rule, i, hit, normal, depth)


def contact_halfspace_box(normal: NDArray[np.float64], offset: NDArray[np.float64],
                          center: NDArray[np.float64], rotation: NDArray[np.float64],
                          half: NDArray[np.float64]) -> ContactArrays:
    """Half-spaces (a) against oriented boxes (b); the twin of the numpy ``contact_halfspace_box``.

    Parameters
    ----------
    normal : ndarray, shape (N, D)
    offset : ndarray, shape (N,)
    center : ndarray, shape (N, D)
    rotation : ndarray, shape (N, D, D)
    half : ndarray, shape (N, D)

    Returns
    -------
    ContactArrays
        ``normal`` (N, D) is the half-space's normal; ``depth`` (N,) is
        ``offset`` minus the box's lowest point along it.

    Examples
    --------
    Against the floor ``y <= 0``: a box with half extents (1, 1) centred at
    height 0.5 sinks 0.5 into it; a (2, 0.5) box turned a quarter turn at
    height 3 reaches down to 1, 1 above the floor.

    >>> import numpy as np
    >>> eye, quarter = [[1.0, 0.0], [0.0, 1.0]], [[0.0, -1.0], [1.0, 0.0]]
    >>> c = contact_halfspace_box(np.array([[0.0, 1.0]] * 2), np.array([0.0, 0.0]), np.array([[0.0, 0.5], [0.0, 3.0]]),
    ...                           np.array([eye, quarter]), np.array([[1.0, 1.0], [2.0, 0.5]]))
    >>> c.hit.tolist(), c.normal[0].tolist(), c.depth.tolist()
    ([True, False], [0.0, 1.0], [0.5, -1.0])
    """
    n = as_rows(normal)
    out = contact_outputs(n.shape[0], n.shape[1])
    _rows(n, as_rows(offset), as_rows(center), as_rows(rotation), as_rows(half), touch_rule(), *out)
    return out
