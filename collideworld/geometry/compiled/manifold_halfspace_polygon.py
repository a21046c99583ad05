"""Compiled twin of ``geometry/manifold_halfspace_polygon.py``."""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..manifold_support import ManifoldArrays
from .kernel_support import as_rows
from .manifold_support import halfspace_points_row, manifold_outputs

__all__ = ["manifold_halfspace_points"]


@njit(cache=True)
def _rows(pn: NDArray[np.float64], off: NDArray[np.float64], v: NDArray[np.float64], normal: NDArray[np.float64],
          points: NDArray[np.float64], seps: NDArray[np.float64], ids: NDArray[np.int64],
          count: NDArray[np.int64]) -> None:
    for i in range(v.shape[0]):
        halfspace_points_row(pn[i, 0], pn[i, 1], off[i], v[i], normal[i, 0], normal[i, 1], i, points, seps, ids, count)


def manifold_halfspace_points(plane_normal: NDArray[np.float64], offset: NDArray[np.float64],
                              verts: NDArray[np.float64], normal: NDArray[np.float64],
                              depth: NDArray[np.float64]) -> ManifoldArrays:
    """Twin of the numpy ``manifold_halfspace_points``.

    Parameters
    ----------
    plane_normal : ndarray, shape (N, 2)
    offset : ndarray, shape (N,)
    verts : ndarray, shape (N, K, 2)
    normal : ndarray, shape (N, 2)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    >>> import numpy as np
    >>> tri = np.array([[[0.0, 0.0], [4.0, 0.0], [2.0, 1.0]]])
    >>> m = manifold_halfspace_points(np.array([[0.0, 1.0]]), np.zeros(1), tri, np.array([[0.0, 1.0]]), np.zeros(1))
    >>> m.points[0].tolist(), m.ids[0].tolist()
    ([[0.0, 0.0], [4.0, 0.0]], [0, 1])
    """
    n = as_rows(normal)
    out = manifold_outputs(n.shape[0], 2)
    _rows(as_rows(plane_normal), as_rows(offset), as_rows(verts), n, *out)
    return out
