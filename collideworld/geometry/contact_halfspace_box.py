"""Contacts between a half-space and an oriented box, 2D or 3D.

A half-space is the solid ``normal . p <= offset``. A box meets it iff the
box's lowest point along ``normal`` (its *n-vertex*,
:func:`lowest_box_support`) is in the solid: the depth is how far that
point is inside and the box escapes along ``+normal``, the contact normal
from the half-space (a) towards the box (b). That is the exact minimum
translation distance for any convex shape, since moving along any other
unit direction ``u`` raises ``normal . p`` by only ``normal . u < 1`` per
unit.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .kernel_support import finish_halfspace
from .result import ContactArrays

__all__ = ["contact_halfspace_box", "lowest_box_support"]


def lowest_box_support(normal: NDArray[np.float64], center: NDArray[np.float64],
                       rotation: NDArray[np.float64] | None,
                       half: NDArray[np.float64]) -> NDArray[np.float64]:
    """``min normal . p`` over oriented boxes: ``n.c - sum_i |n . axis_i| h_i``.

    Parameters
    ----------
    normal : ndarray, shape (N, D)
    center : ndarray, shape (N, D)
    rotation : ndarray, shape (N, D, D), or None for axis-aligned boxes
    half : ndarray, shape (N, D)

    Returns
    -------
    ndarray, shape (N,)

    Examples
    --------
    Along +y, a box at height 2 with half extents (1, 0.5) reaches down to
    1.5; a quarter turn stands it on its long side, down to 1. Without a
    rotation the box is axis-aligned.

    >>> import numpy as np
    >>> eye, quarter = [[1.0, 0.0], [0.0, 1.0]], [[0.0, -1.0], [1.0, 0.0]]
    >>> n, c, h = np.array([[0.0, 1.0]] * 2), np.array([[0.0, 2.0]] * 2), np.array([[1.0, 0.5]] * 2)
    >>> lowest_box_support(n, c, np.array([eye, quarter]), h).tolist()
    [1.5, 1.0]
    >>> lowest_box_support(n, c, None, h).tolist()
    [1.5, 1.5]
    """
    if rotation is None:
        along_axes = normal
    else:
        # n expressed in the box frame: R^T n, i.e. n . column_i
        along_axes = np.einsum("nji,nj->ni", rotation, normal)
    radius: NDArray[np.float64] = np.einsum("ni,ni->n", np.abs(along_axes), half)
    centre_along: NDArray[np.float64] = np.einsum("nd,nd->n", normal, center)
    return centre_along - radius


def contact_halfspace_box(normal: NDArray[np.float64], offset: NDArray[np.float64],
                          center: NDArray[np.float64], rotation: NDArray[np.float64],
                          half: NDArray[np.float64]) -> ContactArrays:
    """Half-spaces (a) against oriented boxes (b), D = 2 or 3.

    Parameters
    ----------
    normal : ndarray, shape (N, D)
    offset : ndarray, shape (N,)
    center : ndarray, shape (N, D)
    rotation : ndarray, shape (N, D, D)
    half : ndarray, shape (N, D)

    Returns
    -------
    ContactArrays
        ``normal`` (N, D) is the half-space's normal; ``depth`` (N,) is
        ``offset`` minus :func:`lowest_box_support`.

    Examples
    --------
    Against the floor ``y <= 0``: a box with half extents (1, 1) centred at
    height 0.5 sinks 0.5 into it; a (2, 0.5) box turned a quarter turn at
    height 3 reaches down to 1, 1 above the floor.

    >>> import numpy as np
    >>> eye, quarter = [[1.0, 0.0], [0.0, 1.0]], [[0.0, -1.0], [1.0, 0.0]]
    >>> c = contact_halfspace_box(np.array([[0.0, 1.0]] * 2), np.array([0.0, 0.0]), np.array([[0.0, 0.5], [0.0, 3.0]]),
    ...                           np.array([eye, quarter]), np.array([[1.0, 1.0], [2.0, 0.5]]))
    >>> c.hit.tolist(), c.normal[0].tolist(), c.depth.tolist()
    ([True, False], [0.0, 1.0], [0.5, -1.0])
    """
    lowest = lowest_box_support(normal, center, rotation, half)
    scale = np.maximum(np.abs(offset),
                       np.max(np.abs(center), axis=-1, initial=0.0) + np.max(half, axis=-1, initial=0.0))
    return finish_halfspace(normal, offset, lowest, scale)
