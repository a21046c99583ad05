"""Compiled twin of ``geometry/manifold_halfspace_capsule.py``."""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..manifold_support import FEATURE_SLOP, ManifoldArrays
from .kernel_support import as_rows
from .manifold_support import manifold_outputs

__all__ = ["manifold_halfspace_capsule"]


@njit(cache=True)
def _dot(u: NDArray[np.float64], v: NDArray[np.float64]) -> float:
    acc: float = u[0] * v[0] + u[1] * v[1]
    if u.shape[0] == 3:
        acc = acc + u[2] * v[2]
    return acc


@njit(cache=True)
def _rows(pn: NDArray[np.float64], off: NDArray[np.float64], p0: NDArray[np.float64], p1: NDArray[np.float64],
          radius: NDArray[np.float64], normal: NDArray[np.float64], points: NDArray[np.float64],
          seps: NDArray[np.float64], ids: NDArray[np.int64], count: NDArray[np.int64]) -> None:
    dim = normal.shape[1]
    e = np.empty(dim)
    for i in range(normal.shape[0]):
        for d in range(dim):
            e[d] = p1[i, d] - p0[i, d]
        along = -_dot(e, normal[i])
        length = math.sqrt(_dot(e, e))
        whole = length > 0.0 and abs(along) <= FEATURE_SLOP * length
        first = 0 if (whole or along <= 0.0) else 1
        used = 2 if whole else 1
        for slot in range(used):
            end = first if slot == 0 else 1
            p = p1[i] if end == 1 else p0[i]
            sep = _dot(p, pn[i]) - off[i] - radius[i]
            for d in range(dim):
                surface = p[d] - radius[i] * normal[i, d]
                points[i, slot, d] = surface - 0.5 * sep * normal[i, d]
            seps[i, slot] = sep
            ids[i, slot] = end
        count[i] = used


def manifold_halfspace_capsule(plane_normal: NDArray[np.float64], offset: NDArray[np.float64],
                               p0: NDArray[np.float64], p1: NDArray[np.float64], radius: NDArray[np.float64],
                               normal: NDArray[np.float64], depth: NDArray[np.float64]) -> ManifoldArrays:
    """Twin of the numpy ``manifold_halfspace_capsule``.

    Parameters
    ----------
    plane_normal : ndarray, shape (N, D)
    offset : ndarray, shape (N,)
    p0, p1 : ndarray, shape (N, D)
    radius : ndarray, shape (N,)
    normal : ndarray, shape (N, D)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    >>> import numpy as np
    >>> up = np.array([[0.0, 1.0]])
    >>> m = manifold_halfspace_capsule(up, np.zeros(1), np.array([[-1.0, 0.4]]), np.array([[1.0, 0.4]]),
    ...                                np.array([0.5]), up, np.array([0.1]))
    >>> m.count.tolist(), m.ids[0].tolist()
    ([2], [0, 1])
    """
    n = as_rows(normal)
    out = manifold_outputs(n.shape[0], n.shape[1])
    _rows(as_rows(plane_normal), as_rows(offset), as_rows(p0), as_rows(p1), as_rows(radius), n, *out)
    return out
