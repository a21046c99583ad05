"""Compiled twin of ``geometry/manifold_ball_box.py``."""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..manifold_support import ManifoldArrays
from .kernel_support import as_rows
from .manifold_support import box_feature_row, edge_code_row, manifold_outputs, support_ends_row

__all__ = ["manifold_ball_box"]


@njit(cache=True)
def _rows(ca: NDArray[np.float64], ra: NDArray[np.float64], c: NDArray[np.float64], r: NDArray[np.float64],
          h: NDArray[np.float64], normal: NDArray[np.float64], depth: NDArray[np.float64],
          points: NDArray[np.float64], seps: NDArray[np.float64], ids: NDArray[np.int64],
          count: NDArray[np.int64]) -> None:
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
            lo, hi = support_ends_row(corners, -normal[i, 0], -normal[i, 1])
            code = edge_code_row(lo, hi)
        else:
            _, code = box_feature_row(c[i], r[i], h[i], -normal[i, 0], -normal[i, 1], -normal[i, 2], corners, cids, fn)
        sep = -depth[i]
        for d in range(dim):
            pa = ca[i, d] + ra[i] * normal[i, d]
            points[i, 0, d] = pa + 0.5 * sep * normal[i, d]
        seps[i, 0] = sep
        ids[i, 0] = code
        count[i] = 1


def manifold_ball_box(center_a: NDArray[np.float64], radius_a: NDArray[np.float64],
                      center_b: NDArray[np.float64], rotation_b: NDArray[np.float64], half_b: NDArray[np.float64],
                      normal: NDArray[np.float64], depth: NDArray[np.float64]) -> ManifoldArrays:
    """Twin of the numpy ``manifold_ball_box``.

    Parameters
    ----------
    center_a : ndarray, shape (N, D)
    radius_a : ndarray, shape (N,)
    center_b : ndarray, shape (N, D)
    rotation_b : ndarray, shape (N, D, D)
    half_b : ndarray, shape (N, D)
    normal : ndarray, shape (N, D)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    >>> import numpy as np
    >>> m = manifold_ball_box(np.zeros((1, 2)), np.ones(1), np.array([[1.25, 0.0]]), np.eye(2)[None],
    ...                       np.array([[0.5, 0.5]]), np.array([[1.0, 0.0]]), np.array([0.25]))
    >>> m.points[0, 0].tolist(), m.separations[0, 0].tolist()
    ([0.875, 0.0], -0.25)
    """
    n = as_rows(normal)
    out = manifold_outputs(n.shape[0], n.shape[1])
    _rows(as_rows(center_a), as_rows(radius_a), as_rows(center_b), as_rows(rotation_b), as_rows(half_b), n,
          as_rows(depth), *out)
    return out
