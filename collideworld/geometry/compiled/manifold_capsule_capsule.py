"""Compiled twin of ``geometry/manifold_capsule_capsule.py``."""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..manifold_capsule_support import segment_vertices
from ..manifold_support import ManifoldArrays
from .kernel_support import as_rows
from .manifold_capsule_support import round_row, segment_feature_row
from .manifold_support import convex_2d_row, features_3d_row, manifold_outputs

__all__ = ["manifold_capsule_capsule"]


@njit(cache=True)
def _rows_2d(va: NDArray[np.float64], vb: NDArray[np.float64], ra: NDArray[np.float64], rb: NDArray[np.float64],
             normal: NDArray[np.float64], points: NDArray[np.float64], seps: NDArray[np.float64],
             ids: NDArray[np.int64], count: NDArray[np.int64]) -> None:
    for i in range(normal.shape[0]):
        # part 0 as np.int64, not a literal: one compile of convex_2d_row serves every caller
        convex_2d_row(va[i], vb[i], normal[i, 0], normal[i, 1], np.int64(0), np.int64(0), i, points, seps, ids, count)
        round_row(i, normal, ra[i], rb[i], points, seps, count)


@njit(cache=True)
def _rows_3d(a0: NDArray[np.float64], a1: NDArray[np.float64], ra: NDArray[np.float64], b0: NDArray[np.float64],
             b1: NDArray[np.float64], rb: NDArray[np.float64], normal: NDArray[np.float64],
             points: NDArray[np.float64], seps: NDArray[np.float64], ids: NDArray[np.int64],
             count: NDArray[np.int64]) -> None:
    fa = np.empty((4, 3))
    fb = np.empty((4, 3))
    ida = np.empty(4, dtype=np.int64)
    idb = np.empty(4, dtype=np.int64)
    cand = np.empty((24, 6))
    flt = np.empty((12, 3))
    flags = np.empty((2, 24), dtype=np.bool_)
    cid = np.empty(28, dtype=np.int64)
    for i in range(normal.shape[0]):
        n = normal[i]
        fra, codea = segment_feature_row(a0[i], a1[i], n[0], n[1], n[2], fa, ida)
        frb, codeb = segment_feature_row(b0[i], b1[i], -n[0], -n[1], -n[2], fb, idb)
        scale = 0.0
        for d in range(3):
            scale = max(scale, abs(a0[i, d]))
        for d in range(3):
            scale = max(scale, abs(a1[i, d]))
        for d in range(3):
            scale = max(scale, abs(b0[i, d]))
        for d in range(3):
            scale = max(scale, abs(b1[i, d]))
        scale = max(scale, ra[i], rb[i])
        features_3d_row(fa, ida, fra, n, codea, fb, idb, frb, n, codeb, n, scale, i, cand, flt, flags, cid,
                        points, seps, ids, count)
        round_row(i, normal, ra[i], rb[i], points, seps, count)


def manifold_capsule_capsule(a0: NDArray[np.float64], a1: NDArray[np.float64], radius_a: NDArray[np.float64],
                             b0: NDArray[np.float64], b1: NDArray[np.float64], radius_b: NDArray[np.float64],
                             normal: NDArray[np.float64], depth: NDArray[np.float64]) -> ManifoldArrays:
    """Twin of the numpy ``manifold_capsule_capsule``.

    Parameters
    ----------
    a0, a1, b0, b1 : ndarray, shape (N, D)
    radius_a, radius_b : ndarray, shape (N,)
    normal : ndarray, shape (N, D)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    >>> import numpy as np
    >>> r = np.array([0.5])
    >>> m = manifold_capsule_capsule(np.array([[0.0, 0.0, 0.0]]), np.array([[2.0, 0.0, 0.0]]), r,
    ...                              np.array([[1.0, 0.0, 1.0]]), np.array([[4.0, 0.0, 1.0]]), r,
    ...                              np.array([[0.0, 0.0, 1.0]]), np.zeros(1))
    >>> int(m.count[0]), sorted(m.points[0, :2].tolist())
    (2, [[1.0, 0.0, 0.5], [2.0, 0.0, 0.5]])
    """
    n = as_rows(normal)
    out = manifold_outputs(n.shape[0], n.shape[1])
    if n.shape[1] == 2:
        _rows_2d(as_rows(segment_vertices(a0, a1)), as_rows(segment_vertices(b0, b1)), as_rows(radius_a),
                 as_rows(radius_b), n, *out)
    else:
        _rows_3d(as_rows(a0), as_rows(a1), as_rows(radius_a), as_rows(b0), as_rows(b1), as_rows(radius_b), n, *out)
    return out
