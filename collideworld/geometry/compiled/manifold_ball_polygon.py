"""Compiled twin of ``geometry/manifold_ball_polygon.py``."""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..manifold_support import ManifoldArrays
from .kernel_support import as_rows
from .manifold_support import edge_code_row, manifold_outputs, support_ends_row

__all__ = ["manifold_ball_polygon"]


@njit(cache=True)
def _rows(ca: NDArray[np.float64], ra: NDArray[np.float64], v: NDArray[np.float64], normal: NDArray[np.float64],
          depth: NDArray[np.float64], part: NDArray[np.int64], points: NDArray[np.float64],
          seps: NDArray[np.float64], ids: NDArray[np.int64], count: NDArray[np.int64]) -> None:
    for i in range(v.shape[0]):
        lo, hi = support_ends_row(v[i], -normal[i, 0], -normal[i, 1])
        sep = -depth[i]
        for d in range(2):
            pa = ca[i, d] + ra[i] * normal[i, d]
            points[i, 0, d] = pa + 0.5 * sep * normal[i, d]
        seps[i, 0] = sep
        ids[i, 0] = edge_code_row(lo, hi) | ((part[i] & 0x7F) << 24)
        count[i] = 1


def manifold_ball_polygon(center: NDArray[np.float64], radius: NDArray[np.float64], verts: NDArray[np.float64],
                          normal: NDArray[np.float64], depth: NDArray[np.float64],
                          part: NDArray[np.int64] | int = 0) -> ManifoldArrays:
    """Twin of the numpy ``manifold_ball_polygon``.

    Parameters
    ----------
    center : ndarray, shape (N, 2)
    radius : ndarray, shape (N,)
    verts : ndarray, shape (N, K, 2)
    normal : ndarray, shape (N, 2)
    depth : ndarray, shape (N,)
    part : int or ndarray of int64, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    >>> import numpy as np
    >>> tri = np.array([[[1.0, -1.0], [3.0, 0.0], [1.0, 1.0]]])
    >>> m = manifold_ball_polygon(np.zeros((1, 2)), np.ones(1), tri, np.array([[1.0, 0.0]]), np.zeros(1))
    >>> m.points[0, 0].tolist()
    [1.0, 0.0]
    """
    n = as_rows(normal)
    out = manifold_outputs(n.shape[0], 2)
    parts = np.broadcast_to(np.asarray(part, dtype=np.int64), (n.shape[0],)).copy()
    _rows(as_rows(center), as_rows(radius), as_rows(verts), n, as_rows(depth), parts, *out)
    return out
