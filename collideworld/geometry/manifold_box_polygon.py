"""Contact points of an oriented rectangle (a) and a convex polygon (b): up to two."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .kernel_support import box_vertices_2d
from .manifold_support import ManifoldArrays, manifold_convex_2d

__all__ = ["manifold_box_polygon"]


def manifold_box_polygon(center: NDArray[np.float64], rotation: NDArray[np.float64], half: NDArray[np.float64],
                         verts: NDArray[np.float64], normal: NDArray[np.float64], depth: NDArray[np.float64],
                         part: NDArray[np.int64] | int = 0) -> ManifoldArrays:
    """Up to two points per pair (:func:`~collideworld.geometry.manifold_support.manifold_convex_2d`).

    Parameters
    ----------
    center : ndarray, shape (N, 2)
    rotation : ndarray, shape (N, 2, 2)
    half : ndarray, shape (N, 2)
    verts : ndarray, shape (N, K, 2)
        Convex, counter-clockwise.
    normal : ndarray, shape (N, 2)
    depth : ndarray, shape (N,)
    part : int or ndarray of int64, shape (N,)
        Convex part number of a concave polygon, written into the ids.

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    A 2x2 box resting across the top edge of a wide triangle:

    >>> import numpy as np
    >>> tri = np.array([[[-3.0, 2.0], [3.0, 2.0], [0.0, 5.0]]])
    >>> m = manifold_box_polygon(np.array([[2.5, 1.0]]), np.eye(2)[None], np.ones((1, 2)), tri,
    ...                          np.array([[0.0, 1.0]]), np.zeros(1))
    >>> m.points[0].tolist()
    [[3.0, 2.0], [1.5, 2.0]]
    """
    return manifold_convex_2d(box_vertices_2d(center, rotation, half), np.asarray(verts, dtype=np.float64), normal,
                              0, part)
