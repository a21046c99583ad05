"""Contact points of a convex polygon (a) and a capsule or segment (b), 2D: up to two."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .manifold_capsule_support import round_manifold, segment_vertices
from .manifold_support import ManifoldArrays, manifold_convex_2d

__all__ = ["manifold_polygon_capsule"]


def manifold_polygon_capsule(verts: NDArray[np.float64], p0: NDArray[np.float64], p1: NDArray[np.float64],
                             radius: NDArray[np.float64], normal: NDArray[np.float64], depth: NDArray[np.float64],
                             part: NDArray[np.int64] | int = 0) -> ManifoldArrays:
    """The polygon's feature along ``+n`` clipped against the core segment's along ``-n``, then grown by r.

    Parameters
    ----------
    verts : ndarray, shape (N, K, 2)
        Convex, counter-clockwise.
    p0, p1 : ndarray, shape (N, 2)
    radius : ndarray, shape (N,)
    normal : ndarray, shape (N, 2)
    depth : ndarray, shape (N,)
    part : int or ndarray of int64, shape (N,)
        Convex part number of a concave polygon, written into the ids.

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    A segment lying on a triangle's top edge (y = 1, x from -2 to 2), from
    x = 1 to x = 3: it touches from x = 1 to x = 2.

    >>> import numpy as np
    >>> tri = np.array([[[-2.0, 1.0], [0.0, -1.0], [2.0, 1.0]]])
    >>> m = manifold_polygon_capsule(tri, np.array([[1.0, 1.0]]), np.array([[3.0, 1.0]]), np.zeros(1),
    ...                              np.array([[0.0, 1.0]]), np.zeros(1))
    >>> sorted(m.points[0].tolist())
    [[1.0, 1.0], [2.0, 1.0]]
    """
    m = manifold_convex_2d(np.asarray(verts, dtype=np.float64), segment_vertices(p0, p1), normal, part, 0)
    return round_manifold(m, normal, 0.0, radius)
