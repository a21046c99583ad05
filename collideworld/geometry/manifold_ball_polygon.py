"""Contact points of a circle (a) and a convex polygon (b): one point."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .manifold_support import ManifoldArrays, edge_code, manifold_single_point, support_ends_2d

__all__ = ["manifold_ball_polygon"]


def manifold_ball_polygon(center: NDArray[np.float64], radius: NDArray[np.float64], verts: NDArray[np.float64],
                          normal: NDArray[np.float64], depth: NDArray[np.float64],
                          part: NDArray[np.int64] | int = 0) -> ManifoldArrays:
    """One point per pair, halfway between the circle's and the polygon's touching points.

    Parameters
    ----------
    center : ndarray, shape (N, 2)
    radius : ndarray, shape (N,)
    verts : ndarray, shape (N, K, 2)
        Convex, counter-clockwise (padding repeats allowed).
    normal : ndarray, shape (N, 2)
    depth : ndarray, shape (N,)
    part : int or ndarray of int64, shape (N,)
        Convex part number of a concave polygon, written into the id.

    Returns
    -------
    ManifoldArrays
        Separation ``-depth``; id ``0 << 32 | polygon feature`` (its edge or
        vertex along ``-n``).

    Examples
    --------
    >>> import numpy as np
    >>> tri = np.array([[[1.0, -1.0], [3.0, 0.0], [1.0, 1.0]]])
    >>> m = manifold_ball_polygon(np.zeros((1, 2)), np.ones(1), tri, np.array([[1.0, 0.0]]), np.zeros(1))
    >>> m.points[0, 0].tolist(), int(m.ids[0, 0]) == (2 + 1) << 12  # the edge from vertex 0 to vertex 2
    ([1.0, 0.0], True)
    """
    pa = center + radius[:, None] * normal
    lo, hi = support_ends_2d(np.asarray(verts, dtype=np.float64), -normal)
    code = edge_code(lo, hi) | (np.asarray(part, dtype=np.int64) & 0x7F) << 24
    return manifold_single_point(pa, normal, -depth, code)
