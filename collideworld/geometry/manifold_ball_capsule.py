"""Contact points of a ball (a) and a capsule or segment (b), 2D or 3D: one point.

The ball's deepest point ``c + r n`` is a's touching point, b's is ``depth``
back along the normal; the id names the segment's feature along ``-n``
(the whole segment within the tilt slop, else the nearer end).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .capsule_support import dot
from .manifold_capsule_support import SEGMENT_CODE
from .manifold_support import FEATURE_SLOP, ManifoldArrays, manifold_single_point

__all__ = ["manifold_ball_capsule"]


def manifold_ball_capsule(center: NDArray[np.float64], radius: NDArray[np.float64], p0: NDArray[np.float64],
                          p1: NDArray[np.float64], radius_b: NDArray[np.float64], normal: NDArray[np.float64],
                          depth: NDArray[np.float64]) -> ManifoldArrays:
    """One point per pair, halfway between the ball's and the capsule's touching points.

    Parameters
    ----------
    center : ndarray, shape (N, D)
    radius : ndarray, shape (N,)
    p0, p1 : ndarray, shape (N, D)
    radius_b : ndarray, shape (N,)
    normal : ndarray, shape (N, D)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays
        Separation ``-depth``; id ``0 << 32 | segment feature``.

    Examples
    --------
    A unit circle resting on a flat capsule of radius 0.5 sunk 0.2 into it:

    >>> import numpy as np
    >>> m = manifold_ball_capsule(np.array([[0.0, 2.0]]), np.ones(1), np.array([[-1.0, 0.7]]),
    ...                           np.array([[1.0, 0.7]]), np.array([0.5]), np.array([[0.0, -1.0]]), np.array([0.2]))
    >>> np.round(m.points[0, 0], 12).tolist(), m.separations[0, 0].tolist(), m.ids[0, 0].tolist()
    ([0.0, 1.1], -0.2, 8192)
    """
    e = p1 - p0
    along = -dot(e, normal)
    length = np.sqrt(dot(e, e))
    whole = (length > 0.0) & (np.abs(along) <= FEATURE_SLOP * length)
    code = np.where(whole, SEGMENT_CODE, np.where(along > 0.0, 1, 0)).astype(np.int64)
    return manifold_single_point(center + radius[:, None] * normal, normal, -depth, code)
