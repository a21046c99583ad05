"""Contacts between two half-spaces (2D half-planes, 3D planes).

A half-space is the solid ``normal . p <= offset``. Two half-spaces always
meet unless their normals are opposite and the slabs they bound are apart;
only opposite half-spaces have a finite minimum translation distance.
Dimension-generic: works for D = 2 and D = 3.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .result import ContactArrays
from .tolerance import touch_tolerance

__all__ = ["contact_halfspace_halfspace"]


def contact_halfspace_halfspace(normal_a: NDArray[np.float64], offset_a: NDArray[np.float64],
                                normal_b: NDArray[np.float64], offset_b: NDArray[np.float64]) -> ContactArrays:
    """Two half-spaces.

    Two half-spaces always meet unless their normals are opposite and the
    slabs are apart (``offset_a + offset_b < 0``). When they are opposite and
    meet, b escapes by moving along ``normal_a`` by ``offset_a + offset_b``;
    otherwise no translation separates them and the depth is ``inf``.

    Parameters
    ----------
    normal_a, normal_b : ndarray, shape (N, D)
    offset_a, offset_b : ndarray, shape (N,)

    Returns
    -------
    ContactArrays
        ``normal`` (N, D) is ``normal_a``; ``depth`` (N,) may be ``inf``.

    Examples
    --------
    The floor ``y <= 0`` against ``-y <= 0.5`` (that is ``y >= -0.5``): a
    slab 0.5 thick. Against the wall ``x <= 0`` no translation separates
    them.

    >>> import numpy as np
    >>> c = contact_halfspace_halfspace(np.array([[0.0, 1.0]] * 2), np.array([0.0, 0.0]),
    ...                                 np.array([[0.0, -1.0], [1.0, 0.0]]), np.array([0.5, 0.0]))
    >>> c.hit.tolist(), c.normal[0].tolist(), c.depth.tolist()
    ([True, True], [0.0, 1.0], [0.5, inf])
    """
    cos = np.einsum("nd,nd->n", normal_a, normal_b)
    scale = np.maximum(np.abs(offset_a), np.abs(offset_b))
    opposite = cos <= -1.0 + 1e-12
    slab = offset_a + offset_b
    hit = ~opposite | (slab >= -touch_tolerance(scale))
    depth = np.where(opposite, np.where(hit, np.maximum(slab, 0.0), slab), np.inf)
    return ContactArrays(hit, np.array(normal_a, dtype=np.float64, copy=True), depth)
