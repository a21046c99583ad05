"""Compiled twin of ``geometry/manifold_polygon_capsule.py``."""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..manifold_capsule_support import segment_vertices
from ..manifold_support import ManifoldArrays
from .kernel_support import as_rows
from .manifold_capsule_support import round_row
from .manifold_support import convex_2d_row, manifold_outputs

__all__ = ["manifold_polygon_capsule"]


@njit(cache=True)
def _rows(va: NDArray[np.float64], vb: NDArray[np.float64], radius: NDArray[np.float64],
          normal: NDArray[np.float64], part: NDArray[np.int64], points: NDArray[np.float64],
          seps: NDArray[np.float64], ids: NDArray[np.int64], count: NDArray[np.int64]) -> None:
    for i in range(normal.shape[0]):
        # part 0 as np.int64, not a literal: one compile of convex_2d_row serves every caller
        convex_2d_row(va[i], vb[i], normal[i, 0], normal[i, 1], part[i], np.int64(0), i, points, seps, ids, count)
        round_row(i, normal, 0.0, radius[i], points, seps, count)


def manifold_polygon_capsule(verts: NDArray[np.float64], p0: NDArray[np.float64], p1: NDArray[np.float64],
                             radius: NDArray[np.float64], normal: NDArray[np.float64], depth: NDArray[np.float64],
                             part: NDArray[np.int64] | int = 0) -> ManifoldArrays:
    """Twin of the numpy ``manifold_polygon_capsule``.

    Parameters
    ----------
    verts : ndarray, shape (N, K, 2)
    p0, p1 : ndarray, shape (N, 2)
    radius : ndarray, shape (N,)
    normal : ndarray, shape (N, 2)
    depth : ndarray, shape (N,)
    part : int or ndarray of int64, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    >>> import numpy as np
    >>> tri = np.array([[[-2.0, 1.0], [0.0, -1.0], [2.0, 1.0]]])
    >>> m = manifold_polygon_capsule(tri, np.array([[1.0, 1.0]]), np.array([[3.0, 1.0]]), np.zeros(1),
    ...                              np.array([[0.0, 1.0]]), np.zeros(1))
    >>> sorted(m.points[0].tolist())
    [[1.0, 1.0], [2.0, 1.0]]
    """
    n = as_rows(normal)
    out = manifold_outputs(n.shape[0], 2)
    parts = np.broadcast_to(np.asarray(part, dtype=np.int64), (n.shape[0],)).copy()
    _rows(as_rows(verts), as_rows(segment_vertices(p0, p1)), as_rows(radius), n, parts, *out)
    return out
