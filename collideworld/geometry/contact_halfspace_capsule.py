"""Contacts between a half-space and a capsule (or segment), 2D or 3D.

The lowest point of a capsule along the half-space normal ``n`` is its
lower end point less the radius, ``min(n.p0, n.p1) - r``: the support of a
segment grown by a ball. As for every convex shape against a half-space,
the depth of that point is the exact minimum translation distance, along
``+n`` (see ``contact_halfspace_ball``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .capsule_support import dot
from .kernel_support import finish_halfspace, pair_scale
from .result import ContactArrays

__all__ = ["contact_halfspace_capsule"]


def contact_halfspace_capsule(normal: NDArray[np.float64], offset: NDArray[np.float64], p0: NDArray[np.float64],
                              p1: NDArray[np.float64], radius: NDArray[np.float64]) -> ContactArrays:
    """Half-spaces (a) against capsules (b).

    Parameters
    ----------
    normal : ndarray, shape (N, D)
        Unit outward normals of the half-spaces.
    offset : ndarray, shape (N,)
    p0, p1 : ndarray, shape (N, D)
        World end points of the capsules' core segments.
    radius : ndarray, shape (N,)
        ``>= 0`` (0 for a segment).

    Returns
    -------
    ContactArrays
        ``normal`` is the half-space's; ``depth`` is ``offset - (min(n.p0, n.p1) - r)``.

    Examples
    --------
    The ground ``y <= 0`` against a capsule lying from (0, 1) to (2, 0.5) with radius 1:

    >>> import numpy as np
    >>> c = contact_halfspace_capsule(np.array([[0.0, 1.0]]), np.zeros(1), np.array([[0.0, 1.0]]),
    ...                               np.array([[2.0, 0.5]]), np.array([1.0]))
    >>> bool(c.hit[0]), float(c.depth[0])
    (True, 0.5)
    """
    lowest = np.minimum(dot(normal, p0), dot(normal, p1)) - radius
    scale = np.maximum(np.abs(offset), pair_scale(p0, p1) + radius)
    return finish_halfspace(normal, offset, lowest, scale)
