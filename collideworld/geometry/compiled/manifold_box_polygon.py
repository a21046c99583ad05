"""Compiled twin of ``geometry/manifold_box_polygon.py``."""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..kernel_support import box_vertices_2d
from ..manifold_support import ManifoldArrays
from .kernel_support import as_rows
from .manifold_support import convex_2d_row, manifold_outputs

__all__ = ["manifold_box_polygon"]


@njit(cache=True)
def _rows(va: NDArray[np.float64], vb: NDArray[np.float64], normal: NDArray[np.float64], part_a: NDArray[np.int64],
          part_b: NDArray[np.int64], points: NDArray[np.float64], seps: NDArray[np.float64],
          ids: NDArray[np.int64], count: NDArray[np.int64]) -> None:
    for i in range(normal.shape[0]):
        convex_2d_row(va[i], vb[i], normal[i, 0], normal[i, 1], part_a[i], part_b[i], i, points, seps, ids, count)


def _parts(part: NDArray[np.int64] | int, n: int) -> NDArray[np.int64]:
    out: NDArray[np.int64] = np.broadcast_to(np.asarray(part, dtype=np.int64), (n,)).copy()
    return out


def _corners(c: NDArray[np.float64], r: NDArray[np.float64], h: NDArray[np.float64]) -> NDArray[np.float64]:
    return as_rows(box_vertices_2d(c, r, h))


def manifold_box_polygon(center: NDArray[np.float64], rotation: NDArray[np.float64], half: NDArray[np.float64],
                         verts: NDArray[np.float64], normal: NDArray[np.float64], depth: NDArray[np.float64],
                         part: NDArray[np.int64] | int = 0) -> ManifoldArrays:
    """Twin of the numpy ``manifold_box_polygon``.

    Parameters
    ----------
    center : ndarray, shape (N, 2)
    rotation : ndarray, shape (N, 2, 2)
    half : ndarray, shape (N, 2)
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
    >>> tri = np.array([[[-3.0, 2.0], [3.0, 2.0], [0.0, 5.0]]])
    >>> m = manifold_box_polygon(np.array([[2.5, 1.0]]), np.eye(2)[None], np.ones((1, 2)), tri,
    ...                          np.array([[0.0, 1.0]]), np.zeros(1))
    >>> m.points[0].tolist()
    [[3.0, 2.0], [1.5, 2.0]]
    """
    n = as_rows(normal)
    m = n.shape[0]
    out = manifold_outputs(m, 2)
    _rows(_corners(center, rotation, half), as_rows(verts), n, _parts(0, m), _parts(part, m), *out)
    return out
