"""Compiled twin of ``geometry/manifold_ball_ball.py``."""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..manifold_support import ManifoldArrays
from .kernel_support import as_rows
from .manifold_support import manifold_outputs

__all__ = ["manifold_ball_ball"]


@njit(cache=True)
def _rows(ca: NDArray[np.float64], ra: NDArray[np.float64], normal: NDArray[np.float64], depth: NDArray[np.float64],
          points: NDArray[np.float64], seps: NDArray[np.float64], ids: NDArray[np.int64],
          count: NDArray[np.int64]) -> None:
    for i in range(ca.shape[0]):
        sep = -depth[i]
        for d in range(ca.shape[1]):
            pa = ca[i, d] + ra[i] * normal[i, d]
            points[i, 0, d] = pa + 0.5 * sep * normal[i, d]
        seps[i, 0] = sep
        ids[i, 0] = 0
        count[i] = 1


def manifold_ball_ball(center_a: NDArray[np.float64], radius_a: NDArray[np.float64],
                       center_b: NDArray[np.float64], radius_b: NDArray[np.float64],
                       normal: NDArray[np.float64], depth: NDArray[np.float64]) -> ManifoldArrays:
    """Twin of the numpy ``manifold_ball_ball``: one point per pair.

    Parameters
    ----------
    center_a, center_b : ndarray, shape (N, D)
    radius_a, radius_b : ndarray, shape (N,)
    normal : ndarray, shape (N, D)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    >>> import numpy as np
    >>> m = manifold_ball_ball(np.zeros((1, 2)), np.ones(1), np.array([[1.5, 0.0]]), np.ones(1),
    ...                        np.array([[1.0, 0.0]]), np.array([0.5]))
    >>> m.points[0, 0].tolist(), m.separations[0, 0].tolist()
    ([0.75, 0.0], -0.5)
    """
    n = as_rows(normal)
    out = manifold_outputs(n.shape[0], n.shape[1])
    _rows(as_rows(center_a), as_rows(radius_a), n, as_rows(depth), *out)
    return out
