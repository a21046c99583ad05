"""Contact points of two oriented boxes (3D): up to four, spanning the touching region."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .manifold_support import ManifoldArrays, box_feature_3d, manifold_features_3d

__all__ = ["manifold_box_box_3d"]


def manifold_box_box_3d(center_a: NDArray[np.float64], rotation_a: NDArray[np.float64], half_a: NDArray[np.float64],
                        center_b: NDArray[np.float64], rotation_b: NDArray[np.float64], half_b: NDArray[np.float64],
                        normal: NDArray[np.float64], depth: NDArray[np.float64]) -> ManifoldArrays:
    """Clip a's feature along ``+n`` against b's along ``-n`` (face, edge or corner each).

    See :func:`~collideworld.geometry.manifold_support.manifold_features_3d`:
    face on face gives the corners of the overlap (reduced to the four of
    largest area), edge across face two points, edge across edge or a corner
    on a face one.

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
    A unit cube (half extents 0.5) resting on a 10x10x2 slab, over its edge
    at x = 5 by a quarter of its width: the touching square is clipped at x = 5.

    >>> import numpy as np
    >>> eye = np.eye(3)[None]
    >>> m = manifold_box_box_3d(np.zeros((1, 3)), eye, np.array([[5.0, 5.0, 1.0]]), np.array([[4.75, 0.0, 1.5]]),
    ...                         eye, np.full((1, 3), 0.5), np.array([[0.0, 0.0, 1.0]]), np.zeros(1))
    >>> int(m.count[0]), sorted(m.points[0].tolist())
    (4, [[4.25, -0.5, 1.0], [4.25, 0.5, 1.0], [5.0, -0.5, 1.0], [5.0, 0.5, 1.0]])
    """
    fa = box_feature_3d(center_a, rotation_a, half_a, normal)
    fb = box_feature_3d(center_b, rotation_b, half_b, -normal)
    scale = np.maximum(np.abs(center_a).max(axis=1, initial=0.0), np.abs(center_b).max(axis=1, initial=0.0))
    scale = np.maximum(scale, np.maximum(half_a.max(axis=1, initial=0.0), half_b.max(axis=1, initial=0.0)))
    return manifold_features_3d(fa, fb, normal, scale)
