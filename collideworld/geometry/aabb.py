"""World-space axis-aligned bounding boxes of posed shapes, batched per kind.

Every function returns ``(lo, hi)``, each of shape (N, D). Boxes are tight
(no margin); the world adds its own margin and the touching tolerance.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["Bounds", "aabb_ball", "aabb_box", "aabb_capsule", "aabb_cylinder", "aabb_points", "max_over_columns",
           "min_over_columns"]

Bounds = tuple[NDArray[np.float64], NDArray[np.float64]]


def aabb_ball(center: NDArray[np.float64], radius: NDArray[np.float64]) -> Bounds:
    """Bounds of balls: ``center -+ radius`` on every axis.

    Parameters
    ----------
    center : ndarray, shape (N, D)
    radius : ndarray, shape (N,)

    Returns
    -------
    lo, hi : ndarray, shape (N, D)

    Examples
    --------
    A unit circle at the origin spans -1..1; a radius-0.5 circle at (2, 1)
    spans 1.5..2.5 in x and 0.5..1.5 in y.

    >>> import numpy as np
    >>> lo, hi = aabb_ball(np.array([[0.0, 0.0], [2.0, 1.0]]), np.array([1.0, 0.5]))
    >>> lo.tolist(), hi.tolist()
    ([[-1.0, -1.0], [1.5, 0.5]], [[1.0, 1.0], [2.5, 1.5]])
    """
    r = radius[:, None]
    return center - r, center + r


def aabb_box(center: NDArray[np.float64], rotation: NDArray[np.float64],
             half: NDArray[np.float64]) -> Bounds:
    """Bounds of oriented boxes: the half-width along world axis i is ``sum_j |R_ij| h_j``.

    Parameters
    ----------
    center : ndarray, shape (N, D)
    rotation : ndarray, shape (N, D, D)
        Local-to-world rotations (columns are the box axes).
    half : ndarray, shape (N, D)
        Half extents.

    Returns
    -------
    lo, hi : ndarray, shape (N, D)

    Examples
    --------
    Half extents (2, 1): unrotated at (5, 0) the box spans 3..7 by -1..1; a
    quarter turn at the origin swaps the extents to 1 wide and 2 tall.

    >>> import numpy as np
    >>> eye, quarter = [[1.0, 0.0], [0.0, 1.0]], [[0.0, -1.0], [1.0, 0.0]]
    >>> lo, hi = aabb_box(np.array([[5.0, 0.0], [0.0, 0.0]]), np.array([eye, quarter]),
    ...                   np.array([[2.0, 1.0], [2.0, 1.0]]))
    >>> lo.tolist(), hi.tolist()
    ([[3.0, -1.0], [-1.0, -2.0]], [[7.0, 1.0], [1.0, 2.0]])
    """
    extent = np.einsum("nij,nj->ni", np.abs(rotation), half)
    return center - extent, center + extent


def max_over_columns(a: NDArray[np.float64], axis: int = -1) -> NDArray[np.float64]:
    """``a.max(axis)`` for a short axis, as a chain of elementwise maxima.

    numpy reduces along a short axis (2-16 entries) an order of magnitude
    slower than it applies ``np.maximum`` to whole columns.

    Parameters
    ----------
    a : ndarray, shape (..., K, ...)
        K entries along ``axis``; longer axes fall back to ``a.max(axis)``.
    axis : int, optional
        The axis to reduce; the last by default.

    Returns
    -------
    ndarray
        ``a``'s shape without ``axis``, e.g. (N,) for an (N, K) ``a``.

    Examples
    --------
    The largest entry of each row, then of each column:

    >>> import numpy as np
    >>> a = np.array([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]])
    >>> max_over_columns(a).tolist(), max_over_columns(a, axis=0).tolist()
    ([5.0, 4.0], [4.0, 5.0, 3.0])
    """
    a = np.moveaxis(a, axis, 0)
    if a.shape[0] > 16:
        reduced: NDArray[np.float64] = a.max(axis=0)
        return reduced
    out: NDArray[np.float64] = a[0].copy()
    for col in a[1:]:
        np.maximum(out, col, out=out)
    return out


def min_over_columns(a: NDArray[np.float64], axis: int = -1) -> NDArray[np.float64]:
    """``a.min(axis)`` for a short axis; see :func:`max_over_columns`.

    Parameters
    ----------
    a : ndarray, shape (..., K, ...)
        K entries along ``axis``; longer axes fall back to ``a.min(axis)``.
    axis : int, optional
        The axis to reduce; the last by default.

    Returns
    -------
    ndarray
        ``a``'s shape without ``axis``, e.g. (N,) for an (N, K) ``a``.

    Examples
    --------
    The smallest entry of each row, then of each column:

    >>> import numpy as np
    >>> a = np.array([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]])
    >>> min_over_columns(a).tolist(), min_over_columns(a, axis=0).tolist()
    ([1.0, 0.0], [1.0, 0.0, 2.0])
    """
    a = np.moveaxis(a, axis, 0)
    if a.shape[0] > 16:
        reduced: NDArray[np.float64] = a.min(axis=0)
        return reduced
    out: NDArray[np.float64] = a[0].copy()
    for col in a[1:]:
        np.minimum(out, col, out=out)
    return out


def aabb_points(points: NDArray[np.float64]) -> Bounds:
    """Bounds of point sets (polygon vertices in world space).

    Parameters
    ----------
    points : ndarray, shape (N, K, D)
        K points per set (padding by repetition is harmless here).

    Returns
    -------
    lo, hi : ndarray, shape (N, D)

    Examples
    --------
    The triangle (0, 0), (2, 0), (1, 3) spans 0..2 in x and 0..3 in y.

    >>> import numpy as np
    >>> lo, hi = aabb_points(np.array([[[0.0, 0.0], [2.0, 0.0], [1.0, 3.0]]]))
    >>> lo.tolist(), hi.tolist()
    ([[0.0, 0.0]], [[2.0, 3.0]])
    """
    return min_over_columns(points, axis=1), max_over_columns(points, axis=1)


def aabb_capsule(p0: NDArray[np.float64], p1: NDArray[np.float64], radius: NDArray[np.float64]) -> Bounds:
    """Bounds of capsules (segments when the radius is 0): the end points' box grown by the radius.

    Parameters
    ----------
    p0, p1 : ndarray, shape (N, D)
        World end points of the core segments.
    radius : ndarray, shape (N,)

    Returns
    -------
    lo, hi : ndarray, shape (N, D)

    Examples
    --------
    The capsule from (0, 0) to (2, 1) of radius 0.5 spans -0.5..2.5 by -0.5..1.5:

    >>> import numpy as np
    >>> lo, hi = aabb_capsule(np.array([[0.0, 0.0]]), np.array([[2.0, 1.0]]), np.array([0.5]))
    >>> lo.tolist(), hi.tolist()
    ([[-0.5, -0.5]], [[2.5, 1.5]])
    """
    r = radius[:, None]
    return np.minimum(p0, p1) - r, np.maximum(p0, p1) + r


def aabb_cylinder(center: NDArray[np.float64], rotation: NDArray[np.float64], radius: NDArray[np.float64],
                  half_height: NDArray[np.float64], cone: NDArray[np.bool_] | None = None) -> Bounds:
    """Tight bounds of cylinders (or, where ``cone``, cones) around their local z axes (3D).

    A disc of radius r with unit axis a reaches ``r sqrt(1 - a_i^2)`` along world axis i
    (the disc's support). A cylinder's box is its two end discs'; a cone's the base
    disc's (at ``-h a``) and its apex (``+h a``).

    Parameters
    ----------
    center : ndarray, shape (N, 3)
    rotation : ndarray, shape (N, 3, 3)
        Local-to-world rotations; the local z axis is column 2.
    radius, half_height : ndarray, shape (N,)
    cone : ndarray of bool, shape (N,), optional
        Rows that are cones (base at ``-half_height``, apex at ``+half_height``).

    Returns
    -------
    lo, hi : ndarray, shape (N, 3)

    Examples
    --------
    An upright cylinder of radius 1 and half height 2, and the cone of the same sizes:

    >>> import numpy as np
    >>> args = (np.zeros((2, 3)), np.stack([np.eye(3)] * 2), np.ones(2), np.full(2, 2.0))
    >>> lo, hi = aabb_cylinder(*args, cone=np.array([False, True]))
    >>> lo.tolist(), hi.tolist()
    ([[-1.0, -1.0, -2.0], [-1.0, -1.0, -2.0]], [[1.0, 1.0, 2.0], [1.0, 1.0, 2.0]])
    """
    axis = rotation[:, :, 2]
    disc = radius[:, None] * np.sqrt(np.maximum(0.0, 1.0 - axis * axis))
    tip = half_height[:, None] * axis
    base = center - tip
    top = center + tip
    lo = np.minimum(base - disc, top - disc)
    hi = np.maximum(base + disc, top + disc)
    if cone is not None and cone.any():
        lo[cone] = np.minimum(base[cone] - disc[cone], top[cone])
        hi[cone] = np.maximum(base[cone] + disc[cone], top[cone])
    return lo, hi
