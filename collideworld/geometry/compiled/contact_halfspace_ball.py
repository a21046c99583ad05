"""Compiled twin of ``geometry/contact_halfspace_ball.py``: half-spaces against balls.

The ball's lowest point along the half-space normal is ``n.c - r``; the depth
is how far that point is inside, ``offset - (n.c - r)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..result import ContactArrays
from .kernel_support import as_rows, contact_outputs, einsum_sum, finish_row, touch_rule

__all__ = ["contact_halfspace_ball", "row"]


@njit(cache=True)
def row(n: NDArray[np.float64], off: NDArray[np.float64], a: int,
         c: NDArray[np.float64], r: NDArray[np.float64], b: int, rule: tuple[float, float], i: int,
         hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    """Row ``i`` of the output: half-space ``a`` (rows of ``n``, ``off``) against ball ``b``."""
    dim = n.shape[1]
    reach = abs(c[b, 0])
    for k in range(1, dim):
        reach = max(reach, abs(c[b, k]))
    along = einsum_sum(n[a, 0] * c[b, 0], n[a, 1] * c[b, 1], n[a, dim - 1] * c[b, dim - 1], dim)
    for k in range(dim):
        normal[i, k] = n[a, k]
    lowest = along - r[b]
    reach = reach + r[b]
    o = abs(off[a])
    finish_row(off[a] - lowest, o if o >= reach else reach, rule, i, hit, depth)


@njit(cache=True)
def _rows(n: NDArray[np.float64], off: NDArray[np.float64], c: NDArray[np.float64], r: NDArray[np.float64],
          rule: tuple[float, float],
          hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    # strided views of the rows (x[..., ::1]), as every compiled caller passes them: one layout,
    # one compile of row (see contact_slots)
    v_c, v_r = c[..., ::1], r[..., ::1]
    for i in range(n.shape[0]):
        row(n, off, i, v_c, v_r, i, rule, i, hit, normal, depth)


def contact_halfspace_ball(normal: NDArray[np.float64], offset: NDArray[np.float64],
                           center: NDArray[np.float64], radius: NDArray[np.float64]) -> ContactArrays:
    """Half-spaces (a) against balls (b); the twin of the numpy ``contact_halfspace_ball``.

    Parameters
    ----------
    normal : ndarray, shape (N, D)
        Unit outward normals of the half-spaces.
    offset : ndarray, shape (N,)
    center : ndarray, shape (N, D)
    radius : ndarray, shape (N,)

    Returns
    -------
    ContactArrays
        ``normal`` (N, D) is the half-space's normal; ``depth`` (N,) is
        ``offset - (n.c - r)``.

    Examples
    --------
    A unit circle resting on the floor ``y <= 0`` touches it:

    >>> import numpy as np
    >>> r = contact_halfspace_ball(np.array([[0.0, 1.0]]), np.array([0.0]),
    ...                            np.array([[5.0, 1.0]]), np.array([1.0]))
    >>> bool(r.hit[0]), float(r.depth[0])
    (True, 0.0)
    """
    n = as_rows(normal)
    out = contact_outputs(n.shape[0], n.shape[1])
    _rows(n, as_rows(offset), as_rows(center), as_rows(radius), touch_rule(), *out)
    return out
