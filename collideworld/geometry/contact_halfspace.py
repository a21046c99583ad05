"""Half-spaces (2D half-planes, 3D planes) against every other shape kind.

A half-space is the solid ``normal . p <= offset``. A shape meets it iff the
shape's lowest point along ``normal`` (its *n-vertex*) is in the solid:
``min_{p in shape} normal . p <= offset``. The penetration depth is how far
that point is inside, ``offset - min(normal . p)``, and the shape escapes by
moving along ``+normal``, which is therefore the contact normal from the
half-space (a) towards the shape (b). That is the exact minimum translation
distance for any convex shape, since moving along any other unit direction
``u`` raises ``normal . p`` by only ``normal . u < 1`` per unit.

Dimension-generic: every kernel here works for D = 2 and D = 3.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .result import ContactArrays
from .tolerance import touch_tolerance

__all__ = [
    "contact_halfspace_ball",
    "contact_halfspace_box",
    "contact_halfspace_points",
    "contact_halfspace_halfspace",
    "lowest_box_support",
]


def _finish(normal: NDArray[np.float64], offset: NDArray[np.float64],
            lowest: NDArray[np.float64], scale: NDArray[np.float64]) -> ContactArrays:
    signed = offset - lowest
    hit = signed >= -touch_tolerance(scale)
    depth = np.where(hit, np.maximum(signed, 0.0), signed)
    return ContactArrays(hit, np.array(normal, dtype=np.float64, copy=True), depth)


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
    return _finish(normal, offset, lowest, scale)


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
    return _finish(normal, offset, lowest, scale)


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
    return _finish(normal, offset, lowest, scale)


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
