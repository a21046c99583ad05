"""Compiled twin of ``geometry/manifold_box_capsule.py``."""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..kernel_support import box_vertices_2d
from ..manifold_capsule_support import segment_vertices
from ..manifold_support import ManifoldArrays
from .kernel_support import as_rows
from .manifold_capsule_support import round_row, segment_feature_row
from .manifold_support import box_feature_row, convex_2d_row, features_3d_row, manifold_outputs

__all__ = ["manifold_box_capsule"]


@njit(cache=True)
def _rows_2d(va: NDArray[np.float64], vb: NDArray[np.float64], radius: NDArray[np.float64],
             normal: NDArray[np.float64], points: NDArray[np.float64], seps: NDArray[np.float64],
             ids: NDArray[np.int64], count: NDArray[np.int64]) -> None:
    for i in range(normal.shape[0]):
        # part 0 as np.int64, not a literal: one compile of convex_2d_row serves every caller
        convex_2d_row(va[i], vb[i], normal[i, 0], normal[i, 1], np.int64(0), np.int64(0), i, points, seps, ids, count)
        round_row(i, normal, 0.0, radius[i], points, seps, count)


@njit(cache=True)
def _rows_3d(c: NDArray[np.float64], r: NDArray[np.float64], h: NDArray[np.float64], p0: NDArray[np.float64],
             p1: NDArray[np.float64], radius: NDArray[np.float64], normal: NDArray[np.float64],
             points: NDArray[np.float64], seps: NDArray[np.float64], ids: NDArray[np.int64],
             count: NDArray[np.int64]) -> None:
    fa = np.empty((4, 3))
    fb = np.empty((4, 3))
    ida = np.empty(4, dtype=np.int64)
    idb = np.empty(4, dtype=np.int64)
    fna = np.empty(3)
    cand = np.empty((24, 6))
    flt = np.empty((12, 3))
    flags = np.empty((2, 24), dtype=np.bool_)
    cid = np.empty(28, dtype=np.int64)
    for i in range(normal.shape[0]):
        n = normal[i]
        fra, codea = box_feature_row(c[i], r[i], h[i], n[0], n[1], n[2], fa, ida, fna)
        frb, codeb = segment_feature_row(p0[i], p1[i], -n[0], -n[1], -n[2], fb, idb)
        scale = 0.0
        for d in range(3):
            scale = max(scale, abs(c[i, d]))
        for d in range(3):
            scale = max(scale, h[i, d])
        for d in range(3):
            scale = max(scale, abs(p0[i, d]), abs(p1[i, d]))
        scale = max(scale, radius[i])
        features_3d_row(fa, ida, fra, fna, codea, fb, idb, frb, n, codeb, n, scale, i, cand, flt, flags, cid,
                        points, seps, ids, count)
        round_row(i, normal, 0.0, radius[i], points, seps, count)


def manifold_box_capsule(center: NDArray[np.float64], rotation: NDArray[np.float64], half: NDArray[np.float64],
                         p0: NDArray[np.float64], p1: NDArray[np.float64], radius: NDArray[np.float64],
                         normal: NDArray[np.float64], depth: NDArray[np.float64]) -> ManifoldArrays:
    """Twin of the numpy ``manifold_box_capsule``.

    Parameters
    ----------
    center : ndarray, shape (N, D)
    rotation : ndarray, shape (N, D, D)
    half : ndarray, shape (N, D)
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
    >>> m = manifold_box_capsule(np.zeros((1, 3)), np.eye(3)[None], np.ones((1, 3)), np.array([[0.5, 0.0, 1.25]]),
    ...                          np.array([[3.0, 0.0, 1.25]]), np.array([0.25]), np.array([[0.0, 0.0, 1.0]]),
    ...                          np.zeros(1))
    >>> int(m.count[0]), sorted(m.points[0, :2].tolist())
    (2, [[0.5, 0.0, 1.0], [1.0, 0.0, 1.0]])
    """
    n = as_rows(normal)
    out = manifold_outputs(n.shape[0], n.shape[1])
    if n.shape[1] == 2:
        _rows_2d(as_rows(box_vertices_2d(center, rotation, half)), as_rows(segment_vertices(p0, p1)),
                 as_rows(radius), n, *out)
    else:
        _rows_3d(as_rows(center), as_rows(rotation), as_rows(half), as_rows(p0), as_rows(p1), as_rows(radius), n,
                 *out)
    return out
