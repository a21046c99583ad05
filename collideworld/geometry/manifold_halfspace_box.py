"""Contact points of a half-space (a) and an oriented box (b), 2D or 3D.

The box's touching feature along ``-n`` (its lowest face, edge or vertex,
within the tilt slop of :mod:`~collideworld.geometry.manifold_support`)
gives the points: its corners, each halfway to the boundary.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .kernel_support import box_vertices_2d
from .manifold_support import ManifoldArrays, box_feature_3d, empty_manifold, halfspace_points_2d

__all__ = ["manifold_halfspace_box"]


def manifold_halfspace_box(plane_normal: NDArray[np.float64], offset: NDArray[np.float64],
                           center: NDArray[np.float64], rotation: NDArray[np.float64], half: NDArray[np.float64],
                           normal: NDArray[np.float64], depth: NDArray[np.float64]) -> ManifoldArrays:
    """Contact points of half-spaces against boxes: 2 (2D) or 4 (3D) for a box lying flat.

    Parameters
    ----------
    plane_normal : ndarray, shape (N, D)
    offset : ndarray, shape (N,)
    center : ndarray, shape (N, D)
    rotation : ndarray, shape (N, D, D)
    half : ndarray, shape (N, D)
    normal : ndarray, shape (N, D)
        Contact normals (the plane normals).
    depth : ndarray, shape (N,)
        Unused (each corner's separation is measured).

    Returns
    -------
    ManifoldArrays
        Ids ``0 << 32 | corner`` (2D: corner as in ``box_vertices_2d``; 3D:
        bit i set for the + side of axis i).

    Examples
    --------
    A 2x2x2 cube resting on the floor z <= 0 touches at its four bottom corners:

    >>> import numpy as np
    >>> up = np.array([[0.0, 0.0, 1.0]])
    >>> m = manifold_halfspace_box(up, np.zeros(1), np.array([[0.0, 0.0, 1.0]]), np.eye(3)[None], np.ones((1, 3)),
    ...                            up, np.zeros(1))
    >>> int(m.count[0]), m.points[0].tolist(), m.ids[0].tolist()
    (4, [[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [1.0, 1.0, 0.0], [-1.0, 1.0, 0.0]], [0, 1, 3, 2])
    """
    n, dim = normal.shape
    if dim == 2:
        return halfspace_points_2d(plane_normal, offset, box_vertices_2d(center, rotation, half))
    corners, ids, free, _, _ = box_feature_3d(center, rotation, half, -normal)
    out = empty_manifold(n, 3)
    live = np.stack([np.ones(n, bool), free >= 1, free == 2, free == 2], axis=1)
    sep = np.einsum("nkd,nd->nk", corners, plane_normal) - offset[:, None]
    points = corners - 0.5 * sep[:, :, None] * normal[:, None, :]
    out.points[live] = points[live]
    out.separations[live] = sep[live]
    out.ids[live] = ids[live]
    out.count[:] = live.sum(axis=1)
    return out
