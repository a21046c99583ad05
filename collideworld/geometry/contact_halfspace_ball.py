"""Contacts between a half-space and a ball (circle or sphere), 2D or 3D.

A half-space is the solid ``normal . p <= offset``. A ball meets it iff its
lowest point along ``normal``, ``normal . c - r``, is in the solid; the
depth is how far that point is inside and the ball escapes along
``+normal``, the contact normal from the half-space (a) towards the ball
(b). That is the exact minimum translation distance for any convex shape,
since moving along any other unit direction ``u`` raises ``normal . p`` by
only ``normal . u < 1`` per unit.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .kernel_support import finish_halfspace
from .result import ContactArrays

__all__ = ["contact_halfspace_ball"]


def contact_halfspace_ball(normal: NDArray[np.float64], offset: NDArray[np.float64],
                           center: NDArray[np.float64], radius: NDArray[np.float64]) -> ContactArrays:
    """Half-spaces (a) against balls (b): circles in 2D, spheres in 3D.

    Parameters
    ----------
    normal : ndarray, shape (N, D)
        Unit outward normals of the half-spaces.
    offset : ndarray, shape (N,)
    center : ndarray, shape (N, D)
    radius : ndarray, shape (N,)

    Returns
    -------
    ContactArrays
        ``normal`` (N, D) is the half-space's normal; ``depth`` (N,) is
        ``offset - (n.c - r)``.

    Examples
    --------
    >>> import numpy as np
    >>> r = contact_halfspace_ball(np.array([[0.0, 1.0]]), np.array([0.0]),
    ...                            np.array([[5.0, 1.0]]), np.array([1.0]))
    >>> bool(r.hit[0]), float(r.depth[0])
    (True, 0.0)
    """
    lowest = np.einsum("nd,nd->n", normal, center) - radius
    scale = np.maximum(np.abs(offset), np.max(np.abs(center), axis=-1, initial=0.0) + radius)
    return finish_halfspace(normal, offset, lowest, scale)
