"""Contact points of a half-space (a) and a ball (b), 2D or 3D: one point, the ball's lowest."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .manifold_support import ManifoldArrays, manifold_single_point

__all__ = ["manifold_halfspace_ball"]


def manifold_halfspace_ball(plane_normal: NDArray[np.float64], offset: NDArray[np.float64],
                            center: NDArray[np.float64], radius: NDArray[np.float64],
                            normal: NDArray[np.float64], depth: NDArray[np.float64]) -> ManifoldArrays:
    """One contact point per pair: halfway between the ball's lowest point and the boundary.

    Parameters
    ----------
    plane_normal : ndarray, shape (N, D)
    offset : ndarray, shape (N,)
    center : ndarray, shape (N, D)
    radius : ndarray, shape (N,)
    normal : ndarray, shape (N, D)
        The pairs' contact normals (the plane normals).
    depth : ndarray, shape (N,)
        The pairs' depths (unused: the separation is measured again here).

    Returns
    -------
    ManifoldArrays
        Id 0 (the plane's face, the ball).

    Examples
    --------
    A unit sphere centred 0.5 above the floor z <= 0 sinks 0.5 into it:

    >>> import numpy as np
    >>> up = np.array([[0.0, 0.0, 1.0]])
    >>> m = manifold_halfspace_ball(up, np.zeros(1), np.array([[1.0, 2.0, 0.5]]), np.ones(1), up, np.array([0.5]))
    >>> m.points[0, 0].tolist(), m.separations[0, 0].tolist(), int(m.count[0])
    ([1.0, 2.0, -0.25], -0.5, 1)
    """
    lowest = center - radius[:, None] * normal
    sep = np.einsum("nd,nd->n", lowest, plane_normal) - offset
    # the boundary's point under the ball is a's touching point
    return manifold_single_point(lowest - sep[:, None] * normal, normal, sep, np.zeros(len(sep), dtype=np.int64))
