"""Compiled twin of ``geometry/manifold_halfspace_ball.py``."""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..manifold_support import ManifoldArrays
from .kernel_support import as_rows
from .manifold_support import manifold_outputs

__all__ = ["manifold_halfspace_ball"]


@njit(cache=True)
def _rows(pn: NDArray[np.float64], off: NDArray[np.float64], c: NDArray[np.float64], r: NDArray[np.float64],
          normal: NDArray[np.float64], points: NDArray[np.float64], seps: NDArray[np.float64],
          ids: NDArray[np.int64], count: NDArray[np.int64]) -> None:
    dim = c.shape[1]
    low = np.empty(dim)
    for i in range(c.shape[0]):
        for d in range(dim):
            low[d] = c[i, d] - r[i] * normal[i, d]
        sep = low[0] * pn[i, 0]
        for d in range(1, dim):
            sep += low[d] * pn[i, d]
        sep -= off[i]
        for d in range(dim):
            pa = low[d] - sep * normal[i, d]
            points[i, 0, d] = pa + 0.5 * sep * normal[i, d]
        seps[i, 0] = sep
        ids[i, 0] = 0
        count[i] = 1


def manifold_halfspace_ball(plane_normal: NDArray[np.float64], offset: NDArray[np.float64],
                            center: NDArray[np.float64], radius: NDArray[np.float64],
                            normal: NDArray[np.float64], depth: NDArray[np.float64]) -> ManifoldArrays:
    """Twin of the numpy ``manifold_halfspace_ball``.

    Parameters
    ----------
    plane_normal : ndarray, shape (N, D)
    offset : ndarray, shape (N,)
    center : ndarray, shape (N, D)
    radius : ndarray, shape (N,)
    normal : ndarray, shape (N, D)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    >>> import numpy as np
    >>> up = np.array([[0.0, 0.0, 1.0]])
    >>> m = manifold_halfspace_ball(up, np.zeros(1), np.array([[1.0, 2.0, 0.5]]), np.ones(1), up, np.array([0.5]))
    >>> m.points[0, 0].tolist(), m.separations[0, 0].tolist()
    ([1.0, 2.0, -0.25], -0.5)
    """
    n = as_rows(normal)
    out = manifold_outputs(n.shape[0], n.shape[1])
    _rows(as_rows(plane_normal), as_rows(offset), as_rows(center), as_rows(radius), n, *out)
    return out
