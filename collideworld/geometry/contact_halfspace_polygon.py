"""Contacts between a half-space and a convex polygon (any convex point hull).

A half-space is the solid ``normal . p <= offset``. The convex hull of a
point set meets it iff its lowest vertex along ``normal`` is in the solid:
the depth is how far that vertex is inside and the shape escapes along
``+normal``, the contact normal from the half-space (a) towards the polygon
(b) and the exact minimum translation distance. Dimension-generic.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .kernel_support import finish_halfspace
from .result import ContactArrays

__all__ = ["contact_halfspace_points"]


def contact_halfspace_points(normal: NDArray[np.float64], offset: NDArray[np.float64],
                             vertices: NDArray[np.float64]) -> ContactArrays:
    """Half-spaces (a) against convex hulls of point sets (b), e.g. convex polygons.

    Parameters
    ----------
    normal : ndarray, shape (N, D)
    offset : ndarray, shape (N,)
    vertices : ndarray, shape (N, K, D)
        World-space vertices (padding by repetition is harmless here).

    Returns
    -------
    ContactArrays
        ``normal`` (N, D) is the half-space's normal; ``depth`` (N,) is
        ``offset`` minus the lowest vertex along it.

    Examples
    --------
    Against the floor ``y <= 0``: a triangle whose lowest corner is at
    y = -0.5 sinks 0.5 into it; raised to y = 0.25 it is 0.25 above.

    >>> import numpy as np
    >>> tris = np.array([[[0.0, -0.5], [2.0, 1.0], [-1.0, 1.0]], [[0.0, 0.25], [2.0, 1.0], [-1.0, 1.0]]])
    >>> c = contact_halfspace_points(np.array([[0.0, 1.0]] * 2), np.array([0.0, 0.0]), tris)
    >>> c.hit.tolist(), c.normal[0].tolist(), c.depth.tolist()
    ([True, False], [0.0, 1.0], [0.5, -0.25])
    """
    lowest = np.min(np.einsum("nkd,nd->nk", vertices, normal), axis=1)
    scale = np.maximum(np.abs(offset), np.max(np.abs(vertices), axis=(1, 2)))
    return finish_halfspace(normal, offset, lowest, scale)
