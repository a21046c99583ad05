"""Contact points of a half-space (a) and a capsule or segment (b), 2D or 3D.

The segment's touching feature along ``-n`` (both ends while it lies within
the tilt slop of flat, else its lower end; see
:mod:`~collideworld.geometry.manifold_capsule_support`) gives the points:
each end moved ``r`` down onto the capsule's surface, then halfway to the
boundary.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .capsule_support import dot
from .manifold_support import FEATURE_SLOP, ManifoldArrays, empty_manifold

__all__ = ["manifold_halfspace_capsule"]


def manifold_halfspace_capsule(plane_normal: NDArray[np.float64], offset: NDArray[np.float64],
                               p0: NDArray[np.float64], p1: NDArray[np.float64], radius: NDArray[np.float64],
                               normal: NDArray[np.float64], depth: NDArray[np.float64]) -> ManifoldArrays:
    """Contact points of half-spaces against capsules: 2 for a capsule lying flat, else 1.

    Parameters
    ----------
    plane_normal : ndarray, shape (N, D)
    offset : ndarray, shape (N,)
    p0, p1 : ndarray, shape (N, D)
        World ends of the core segments.
    radius : ndarray, shape (N,)
    normal : ndarray, shape (N, D)
        Contact normals (the plane normals).
    depth : ndarray, shape (N,)
        Unused (each end's separation is measured).

    Returns
    -------
    ManifoldArrays
        Ids ``0 << 32 | end`` (0 for ``p0``, 1 for ``p1``).

    Examples
    --------
    A capsule of radius 0.5 lying on the floor y <= 0, sunk 0.1, touches
    under both ends:

    >>> import numpy as np
    >>> up = np.array([[0.0, 1.0]])
    >>> m = manifold_halfspace_capsule(up, np.zeros(1), np.array([[-1.0, 0.4]]), np.array([[1.0, 0.4]]),
    ...                                np.array([0.5]), up, np.array([0.1]))
    >>> np.round(m.points[0], 12).tolist(), np.round(m.separations[0], 12).tolist(), m.ids[0].tolist()
    ([[-1.0, -0.05], [1.0, -0.05]], [-0.1, -0.1], [0, 1])
    """
    n, dim = normal.shape
    e = p1 - p0
    along = -dot(e, normal)
    length = np.sqrt(dot(e, e))
    whole = (length > 0.0) & (np.abs(along) <= FEATURE_SLOP * length)
    # the lower end along -n; both while the segment lies within the slop of flat
    first = np.where(whole | (along <= 0.0), 0, 1).astype(np.int64)
    out = empty_manifold(n, dim)
    for slot, (end, use) in enumerate(((first, np.ones(n, dtype=bool)), (np.ones(n, dtype=np.int64), whole))):
        p = np.where((end == 1)[:, None], p1, p0)
        sep = dot(p, plane_normal) - offset - radius
        surface = p - radius[:, None] * normal
        out.points[use, slot] = (surface - 0.5 * sep[:, None] * normal)[use]
        out.separations[use, slot] = sep[use]
        out.ids[use, slot] = end[use]
    out.count[:] = np.where(whole, 2, 1)
    return out
