"""Contact points of a half-plane (a) and a polygon's vertices (b).

The lowest vertices of the polygon's outline (within the tilt slop) are the
touching feature; its two ends along the boundary are the points. For a
concave polygon that is the outline's lowest run, however many teeth rest
on the line: the two outermost.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .manifold_support import ManifoldArrays, halfspace_points_2d

__all__ = ["manifold_halfspace_points"]


def manifold_halfspace_points(plane_normal: NDArray[np.float64], offset: NDArray[np.float64],
                              verts: NDArray[np.float64], normal: NDArray[np.float64],
                              depth: NDArray[np.float64]) -> ManifoldArrays:
    """Contact points of half-planes against vertex sets (polygon outlines).

    Parameters
    ----------
    plane_normal : ndarray, shape (N, 2)
    offset : ndarray, shape (N,)
    verts : ndarray, shape (N, K, 2)
    normal : ndarray, shape (N, 2)
        Contact normals (the plane normals).
    depth : ndarray, shape (N,)
        Unused.

    Returns
    -------
    ManifoldArrays
        Ids ``0 << 32 | vertex``.

    Examples
    --------
    A triangle standing on its long side on the floor y <= 0:

    >>> import numpy as np
    >>> tri = np.array([[[0.0, 0.0], [4.0, 0.0], [2.0, 1.0]]])
    >>> m = manifold_halfspace_points(np.array([[0.0, 1.0]]), np.zeros(1), tri, np.array([[0.0, 1.0]]), np.zeros(1))
    >>> m.points[0].tolist(), m.ids[0].tolist()
    ([[0.0, 0.0], [4.0, 0.0]], [0, 1])
    """
    return halfspace_points_2d(plane_normal, offset, np.asarray(verts, dtype=np.float64))
