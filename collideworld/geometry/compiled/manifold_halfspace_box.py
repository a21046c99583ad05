"""Compiled twin of ``geometry/manifold_halfspace_box.py``."""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..manifold_support import ManifoldArrays
from .kernel_support import as_rows
from .manifold_support import box_feature_row, halfspace_points_row, manifold_outputs

__all__ = ["manifold_halfspace_box"]


@njit(cache=True)
def _rows(pn: NDArray[np.float64], off: NDArray[np.float64], c: NDArray[np.float64], r: NDArray[np.float64],
          h: NDArray[np.float64], normal: NDArray[np.float64], points: NDArray[np.float64],
          seps: NDArray[np.float64], ids: NDArray[np.int64], count: NDArray[np.int64]) -> None:
    dim = c.shape[1]
    corners = np.empty((4, dim))
    cids = np.empty(4, dtype=np.int64)
    fn = np.empty(3)
    signs = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    for i in range(c.shape[0]):
        if dim == 2:
            for k in range(4):
                lx, ly = signs[k, 0] * h[i, 0], signs[k, 1] * h[i, 1]
                corners[k, 0] = c[i, 0] + r[i, 0, 0] * lx + r[i, 0, 1] * ly
                corners[k, 1] = c[i, 1] + r[i, 1, 0] * lx + r[i, 1, 1] * ly
            halfspace_points_row(pn[i, 0], pn[i, 1], off[i], corners, normal[i, 0], normal[i, 1], i,
                                 points, seps, ids, count)
            continue
        free, _ = box_feature_row(c[i], r[i], h[i], -normal[i, 0], -normal[i, 1], -normal[i, 2], corners, cids, fn)
        used = 0
        for k in range(4):
            if not (k == 0 or (k == 1 and free >= 1) or (k >= 2 and free == 2)):
                continue
            sep = corners[k, 0] * pn[i, 0] + corners[k, 1] * pn[i, 1] + corners[k, 2] * pn[i, 2] - off[i]
            for d in range(3):
                points[i, used, d] = corners[k, d] - 0.5 * sep * normal[i, d]
            seps[i, used] = sep
            ids[i, used] = cids[k]
            used += 1
        count[i] = used


def manifold_halfspace_box(plane_normal: NDArray[np.float64], offset: NDArray[np.float64],
                           center: NDArray[np.float64], rotation: NDArray[np.float64], half: NDArray[np.float64],
                           normal: NDArray[np.float64], depth: NDArray[np.float64]) -> ManifoldArrays:
    """Twin of the numpy ``manifold_halfspace_box``.

    Parameters
    ----------
    plane_normal : ndarray, shape (N, D)
    offset : ndarray, shape (N,)
    center : ndarray, shape (N, D)
    rotation : ndarray, shape (N, D, D)
    half : ndarray, shape (N, D)
    normal : ndarray, shape (N, D)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    >>> import numpy as np
    >>> up = np.array([[0.0, 0.0, 1.0]])
    >>> m = manifold_halfspace_box(up, np.zeros(1), np.array([[0.0, 0.0, 1.0]]), np.eye(3)[None], np.ones((1, 3)),
    ...                            up, np.zeros(1))
    >>> int(m.count[0]), m.ids[0].tolist()
    (4, [0, 1, 3, 2])
    """
    n = as_rows(normal)
    out = manifold_outputs(n.shape[0], n.shape[1])
    _rows(as_rows(plane_normal), as_rows(offset), as_rows(center), as_rows(rotation), as_rows(half), n, *out)
    return out
