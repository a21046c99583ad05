"""Compiled twin of ``geometry/manifold_polygon_polygon.py``."""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..manifold_support import ManifoldArrays
from .kernel_support import as_rows
from .manifold_support import convex_2d_row, manifold_outputs

__all__ = ["manifold_polygon_polygon"]


@njit(cache=True)
def _rows(va: NDArray[np.float64], vb: NDArray[np.float64], normal: NDArray[np.float64], part_a: NDArray[np.int64],
          part_b: NDArray[np.int64], points: NDArray[np.float64], seps: NDArray[np.float64],
          ids: NDArray[np.int64], count: NDArray[np.int64]) -> None:
    for i in range(normal.shape[0]):
        convex_2d_row(va[i], vb[i], normal[i, 0], normal[i, 1], part_a[i], part_b[i], i, points, seps, ids, count)


def _parts(part: NDArray[np.int64] | int, n: int) -> NDArray[np.int64]:
    out: NDArray[np.int64] = np.broadcast_to(np.asarray(part, dtype=np.int64), (n,)).copy()
    return out


def manifold_polygon_polygon(verts_a: NDArray[np.float64], verts_b: NDArray[np.float64],
                             normal: NDArray[np.float64], depth: NDArray[np.float64],
                             part_a: NDArray[np.int64] | int = 0, part_b: NDArray[np.int64] | int = 0
                             ) -> ManifoldArrays:
    """Twin of the numpy ``manifold_polygon_polygon``.

    Parameters
    ----------
    verts_a, verts_b : ndarray, shape (N, Ka, 2), (N, Kb, 2)
    normal : ndarray, shape (N, 2)
    depth : ndarray, shape (N,)
    part_a, part_b : int or ndarray of int64, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    >>> import numpy as np
    >>> sq = np.array([[[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]])
    >>> tri = np.array([[[0.0, 0.5], [1.0, 2.0], [-1.0, 2.0]]])
    >>> m = manifold_polygon_polygon(sq, tri, np.array([[0.0, 1.0]]), np.array([0.5]))
    >>> int(m.count[0]), m.points[0, 0].tolist()
    (1, [0.0, 0.75])
    """
    n = as_rows(normal)
    out = manifold_outputs(n.shape[0], 2)
    _rows(as_rows(verts_a), as_rows(verts_b), n, _parts(part_a, n.shape[0]), _parts(part_b, n.shape[0]), *out)
    return out
