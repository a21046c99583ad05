"""Compiled twin of ``geometry/contact_halfspace_capsule.py``: half-spaces against capsules."""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..result import ContactArrays
from .kernel_support import as_rows, contact_outputs, finish_row, touch_rule

__all__ = ["contact_halfspace_capsule"]


@njit(cache=True)
def _rows(n: NDArray[np.float64], off: NDArray[np.float64], p0: NDArray[np.float64], p1: NDArray[np.float64],
          r: NDArray[np.float64], rule: tuple[float, float],
          hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    dim = n.shape[1]
    for i in range(n.shape[0]):
        # indexed, not through row views (each view costs numba's reference counting)
        d0 = n[i, 0] * p0[i, 0] + n[i, 1] * p0[i, 1]
        d1 = n[i, 0] * p1[i, 0] + n[i, 1] * p1[i, 1]
        reach = max(max(abs(p0[i, 0]), abs(p0[i, 1])), max(abs(p1[i, 0]), abs(p1[i, 1])))
        if dim == 3:
            d0 = d0 + n[i, 2] * p0[i, 2]
            d1 = d1 + n[i, 2] * p1[i, 2]
            reach = max(reach, max(abs(p0[i, 2]), abs(p1[i, 2])))
        lowest = min(d0, d1) - r[i]
        reach = reach + r[i]
        a = abs(off[i])
        for k in range(dim):
            normal[i, k] = n[i, k]
        finish_row(off[i] - lowest, a if a >= reach else reach, rule, i, hit, depth)


def contact_halfspace_capsule(normal: NDArray[np.float64], offset: NDArray[np.float64], p0: NDArray[np.float64],
                              p1: NDArray[np.float64], radius: NDArray[np.float64]) -> ContactArrays:
    """Half-spaces (a) against capsules (b); the twin of the numpy ``contact_halfspace_capsule``.

    Parameters
    ----------
    normal : ndarray, shape (N, D)
    offset : ndarray, shape (N,)
    p0, p1 : ndarray, shape (N, D)
    radius : ndarray, shape (N,)

    Returns
    -------
    ContactArrays

    Examples
    --------
    >>> import numpy as np
    >>> c = contact_halfspace_capsule(np.array([[0.0, 1.0]]), np.zeros(1), np.array([[0.0, 1.0]]),
    ...                               np.array([[2.0, 0.5]]), np.array([1.0]))
    >>> bool(c.hit[0]), float(c.depth[0])
    (True, 0.5)
    """
    n = as_rows(normal)
    out = contact_outputs(n.shape[0], n.shape[1])
    _rows(n, as_rows(offset), as_rows(p0), as_rows(p1), as_rows(radius), touch_rule(), *out)
    return out


#: The row loop itself, for compiled callers that build their rows in place (the one-call path of
#: ``contact_pair``); the same routine the batched call above runs.
rows = _rows
