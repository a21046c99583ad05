"""Compiled twin of ``geometry/manifold_ball_capsule.py``."""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..manifold_capsule_support import SEGMENT_CODE
from ..manifold_support import FEATURE_SLOP, ManifoldArrays
from .kernel_support import as_rows
from .manifold_support import manifold_outputs

__all__ = ["manifold_ball_capsule"]


@njit(cache=True)
def _rows(c: NDArray[np.float64], r: NDArray[np.float64], p0: NDArray[np.float64], p1: NDArray[np.float64],
          normal: NDArray[np.float64], depth: NDArray[np.float64], points: NDArray[np.float64],
          seps: NDArray[np.float64], ids: NDArray[np.int64], count: NDArray[np.int64]) -> None:
    dim = normal.shape[1]
    for i in range(normal.shape[0]):
        along = -((p1[i, 0] - p0[i, 0]) * normal[i, 0] + (p1[i, 1] - p0[i, 1]) * normal[i, 1])
        ee = (p1[i, 0] - p0[i, 0]) * (p1[i, 0] - p0[i, 0]) + (p1[i, 1] - p0[i, 1]) * (p1[i, 1] - p0[i, 1])
        if dim == 3:
            along = along - (p1[i, 2] - p0[i, 2]) * normal[i, 2]
            ee = ee + (p1[i, 2] - p0[i, 2]) * (p1[i, 2] - p0[i, 2])
        length = math.sqrt(ee)
        if length > 0.0 and abs(along) <= FEATURE_SLOP * length:
            code = SEGMENT_CODE
        else:
            code = 1 if along > 0.0 else 0
        sep = -depth[i]
        for d in range(dim):
            pa = c[i, d] + r[i] * normal[i, d]
            points[i, 0, d] = pa + 0.5 * sep * normal[i, d]
        seps[i, 0] = sep
        ids[i, 0] = code
        count[i] = 1


def manifold_ball_capsule(center: NDArray[np.float64], radius: NDArray[np.float64], p0: NDArray[np.float64],
                          p1: NDArray[np.float64], radius_b: NDArray[np.float64], normal: NDArray[np.float64],
                          depth: NDArray[np.float64]) -> ManifoldArrays:
    """Twin of the numpy ``manifold_ball_capsule``.

    Parameters
    ----------
    center : ndarray, shape (N, D)
    radius : ndarray, shape (N,)
    p0, p1 : ndarray, shape (N, D)
    radius_b : ndarray, shape (N,)
    normal : ndarray, shape (N, D)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    >>> import numpy as np
    >>> m = manifold_ball_capsule(np.array([[0.0, 2.0]]), np.ones(1), np.array([[-1.0, 0.7]]),
    ...                           np.array([[1.0, 0.7]]), np.array([0.5]), np.array([[0.0, -1.0]]), np.array([0.2]))
    >>> m.separations[0, 0].tolist(), m.ids[0, 0].tolist()
    (-0.2, 8192)
    """
    n = as_rows(normal)
    out = manifold_outputs(n.shape[0], n.shape[1])
    _rows(as_rows(center), as_rows(radius), as_rows(p0), as_rows(p1), n, as_rows(depth), *out)
    return out
