"""Contact points of two convex polygons: up to two."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .manifold_support import ManifoldArrays, manifold_convex_2d

__all__ = ["manifold_polygon_polygon"]


def manifold_polygon_polygon(verts_a: NDArray[np.float64], verts_b: NDArray[np.float64],
                             normal: NDArray[np.float64], depth: NDArray[np.float64],
                             part_a: NDArray[np.int64] | int = 0, part_b: NDArray[np.int64] | int = 0
                             ) -> ManifoldArrays:
    """Up to two points per pair (:func:`~collideworld.geometry.manifold_support.manifold_convex_2d`).

    Parameters
    ----------
    verts_a, verts_b : ndarray, shape (N, Ka, 2), (N, Kb, 2)
        Convex, counter-clockwise.
    normal : ndarray, shape (N, 2)
    depth : ndarray, shape (N,)
    part_a, part_b : int or ndarray of int64, shape (N,)
        Convex part numbers of concave polygons, written into the ids.

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    A triangle's vertex pokes 0.5 into a square's top edge: one point.

    >>> import numpy as np
    >>> sq = np.array([[[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]])
    >>> tri = np.array([[[0.0, 0.5], [1.0, 2.0], [-1.0, 2.0]]])
    >>> m = manifold_polygon_polygon(sq, tri, np.array([[0.0, 1.0]]), np.array([0.5]))
    >>> int(m.count[0]), m.points[0, 0].tolist(), m.separations[0, 0].tolist()
    (1, [0.0, 0.75], -0.5)
    """
    return manifold_convex_2d(np.asarray(verts_a, dtype=np.float64), np.asarray(verts_b, dtype=np.float64), normal,
                              part_a, part_b)
