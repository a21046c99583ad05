"""Compiled twin of ``geometry/manifold_box_box_3d.py``."""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..manifold_support import ManifoldArrays
from .kernel_support import as_rows
from .manifold_support import box_feature_row, features_3d_row, manifold_outputs

__all__ = ["manifold_box_box_3d"]


@njit(cache=True)
def _rows(ca: NDArray[np.float64], ra: NDArray[np.float64], ha: NDArray[np.float64], cb: NDArray[np.float64],
          rb: NDArray[np.float64], hb: NDArray[np.float64], normal: NDArray[np.float64],
          points: NDArray[np.float64], seps: NDArray[np.float64], ids: NDArray[np.int64],
          count: NDArray[np.int64]) -> None:
    fa = np.empty((4, 3))
    fb = np.empty((4, 3))
    ida = np.empty(4, dtype=np.int64)
    idb = np.empty(4, dtype=np.int64)
    fna = np.empty(3)
    fnb = np.empty(3)
    cand = np.empty((24, 6))
    flt = np.empty((12, 3))
    flags = np.empty((2, 24), dtype=np.bool_)
    cid = np.empty(28, dtype=np.int64)
    for i in range(ca.shape[0]):
        n = normal[i]
        fra, codea = box_feature_row(ca[i], ra[i], ha[i], n[0], n[1], n[2], fa, ida, fna)
        frb, codeb = box_feature_row(cb[i], rb[i], hb[i], -n[0], -n[1], -n[2], fb, idb, fnb)
        scale = 0.0
        for d in range(3):
            scale = max(scale, abs(ca[i, d]), abs(cb[i, d]), ha[i, d], hb[i, d])
        features_3d_row(fa, ida, fra, fna, codea, fb, idb, frb, fnb, codeb, n, scale, i, cand, flt, flags, cid,
                        points, seps, ids, count)


def manifold_box_box_3d(center_a: NDArray[np.float64], rotation_a: NDArray[np.float64], half_a: NDArray[np.float64],
                        center_b: NDArray[np.float64], rotation_b: NDArray[np.float64], half_b: NDArray[np.float64],
                        normal: NDArray[np.float64], depth: NDArray[np.float64]) -> ManifoldArrays:
    """Twin of the numpy ``manifold_box_box_3d``.

    Parameters
    ----------
    center_a, center_b : ndarray, shape (N, 3)
    rotation_a, rotation_b : ndarray, shape (N, 3, 3)
    half_a, half_b : ndarray, shape (N, 3)
    normal : ndarray, shape (N, 3)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    >>> import numpy as np
    >>> eye = np.eye(3)[None]
    >>> m = manifold_box_box_3d(np.zeros((1, 3)), eye, np.array([[5.0, 5.0, 1.0]]), np.array([[4.75, 0.0, 1.5]]),
    ...                         eye, np.full((1, 3), 0.5), np.array([[0.0, 0.0, 1.0]]), np.zeros(1))
    >>> int(m.count[0]), sorted(m.points[0].tolist())
    (4, [[4.25, -0.5, 1.0], [4.25, 0.5, 1.0], [5.0, -0.5, 1.0], [5.0, 0.5, 1.0]])
    """
    n = as_rows(normal)
    out = manifold_outputs(n.shape[0], 3)
    _rows(as_rows(center_a), as_rows(rotation_a), as_rows(half_a), as_rows(center_b), as_rows(rotation_b),
          as_rows(half_b), n, *out)
    return out
