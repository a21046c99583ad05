"""Contact points of two oriented rectangles: the ends of their touching segment."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .kernel_support import box_vertices_2d
from .manifold_support import ManifoldArrays, manifold_convex_2d

__all__ = ["manifold_box_box_2d"]


def manifold_box_box_2d(center_a: NDArray[np.float64], rotation_a: NDArray[np.float64], half_a: NDArray[np.float64],
                        center_b: NDArray[np.float64], rotation_b: NDArray[np.float64], half_b: NDArray[np.float64],
                        normal: NDArray[np.float64], depth: NDArray[np.float64]) -> ManifoldArrays:
    """Up to two points per pair (:func:`~collideworld.geometry.manifold_support.manifold_convex_2d`).

    Parameters
    ----------
    center_a, center_b : ndarray, shape (N, 2)
    rotation_a, rotation_b : ndarray, shape (N, 2, 2)
    half_a, half_b : ndarray, shape (N, 2)
    normal : ndarray, shape (N, 2)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays
        Corners numbered as in ``box_vertices_2d``.

    Examples
    --------
    A 2x2 box sunk 0.5 into a 4x2 box below it, shifted right by 2:

    >>> import numpy as np
    >>> eye = np.eye(2)[None]
    >>> m = manifold_box_box_2d(np.zeros((1, 2)), eye, np.array([[2.0, 1.0]]), np.array([[2.0, 1.5]]), eye,
    ...                         np.ones((1, 2)), np.array([[0.0, 1.0]]), np.array([0.5]))
    >>> m.points[0].tolist(), m.separations[0].tolist()
    ([[2.0, 0.75], [1.0, 0.75]], [-0.5, -0.5])
    """
    return manifold_convex_2d(box_vertices_2d(center_a, rotation_a, half_a),
                              box_vertices_2d(center_b, rotation_b, half_b), normal)
