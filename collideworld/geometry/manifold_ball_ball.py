"""Contact points of two balls, 2D or 3D: one point, between the surfaces on the normal."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .manifold_support import ManifoldArrays, manifold_single_point

__all__ = ["manifold_ball_ball"]


def manifold_ball_ball(center_a: NDArray[np.float64], radius_a: NDArray[np.float64],
                       center_b: NDArray[np.float64], radius_b: NDArray[np.float64],
                       normal: NDArray[np.float64], depth: NDArray[np.float64]) -> ManifoldArrays:
    """One point per pair, halfway between ``c_a + r_a n`` and ``c_b - r_b n``.

    Parameters
    ----------
    center_a, center_b : ndarray, shape (N, D)
    radius_a, radius_b : ndarray, shape (N,)
    normal : ndarray, shape (N, D)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays
        Separation ``-depth``; id 0.

    Examples
    --------
    >>> import numpy as np
    >>> m = manifold_ball_ball(np.zeros((1, 2)), np.ones(1), np.array([[1.5, 0.0]]), np.ones(1),
    ...                        np.array([[1.0, 0.0]]), np.array([0.5]))
    >>> m.points[0, 0].tolist(), m.separations[0, 0].tolist()
    ([0.75, 0.0], -0.5)
    """
    pa = center_a + radius_a[:, None] * normal
    return manifold_single_point(pa, normal, -depth, np.zeros(len(depth), dtype=np.int64))
