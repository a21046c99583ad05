"""Contacts between an oriented rectangle (2D box) and a convex polygon.

The separating-axis test of :mod:`~collideworld.geometry.contact_polygon_polygon`
with the box taken as the polygon of its corners, but with the box's four
edge normals read off its rotation and its support along any direction
computed in closed form. The smallest gap over the candidate axes is the
exact minimum translation distance (Ericson, *Real-Time Collision
Detection*, §5.2.1).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .kernel_support import coordinate_planes, edge_normals, finish, first_argmin, pair_scale, plane_scale
from .result import ContactArrays

__all__ = ["contact_box_convex_planes", "contact_box_polygon"]


def contact_box_convex_planes(
    center_a: NDArray[np.float64], rotation_a: NDArray[np.float64], half_a: NDArray[np.float64],
    bx: NDArray[np.float64], by: NDArray[np.float64],
) -> ContactArrays:
    """:func:`contact_box_polygon` with the polygons given as (K, N) coordinate planes.

    The same separating axes as
    :func:`~collideworld.geometry.contact_polygon_polygon.contact_convex_planes`
    on the box's corners, but the box's four normals are its axes, known without
    computing edges, and its support along any direction is
    ``hu |u.m| + hv |v.m|``: two projections of b's vertices and two
    reductions replace a loop over b's vertices per box edge.

    Parameters
    ----------
    center_a : ndarray, shape (N, 2)
    rotation_a : ndarray, shape (N, 2, 2)
        Proper rotations (determinant +1).
    half_a : ndarray, shape (N, 2)
        Half extents.
    bx, by : ndarray, shape (K, N)
        x and y of the polygons' vertices, vertex-major: column n is pair
        n's polygon, counter-clockwise and padded as in
        :func:`contact_box_polygon`.

    Returns
    -------
    ContactArrays
        As :func:`contact_box_polygon`: ``normal`` (N, 2) from the box
        towards the polygon, ``depth`` (N,).

    Examples
    --------
    A triangle whose leftmost edge is at x = 1.5, against a box with half
    extents (1, 1): centred at (1, 1) the box reaches x = 2, an overlap of
    0.5; centred at (-1, 1) it reaches x = 0, 1.5 short.

    >>> import numpy as np
    >>> tri = np.array([[1.5, 0.5], [3.0, 1.0], [1.5, 1.5]])
    >>> bx, by = np.stack([tri, tri]).transpose(2, 1, 0)  # each (3, 2)
    >>> eye = [[1.0, 0.0], [0.0, 1.0]]
    >>> c = contact_box_convex_planes(np.array([[1.0, 1.0], [-1.0, 1.0]]), np.array([eye, eye]),
    ...                               np.array([[1.0, 1.0], [1.0, 1.0]]), bx, by)
    >>> c.hit.tolist(), c.normal[0].tolist(), c.depth.tolist()
    ([True, False], [1.0, 0.0], [0.5, -1.5])
    """
    cx, cy = center_a[:, 0], center_a[:, 1]
    ux, uy = rotation_a[:, 0, 0], rotation_a[:, 1, 0]
    vx, vy = rotation_a[:, 0, 1], rotation_a[:, 1, 1]
    hu, hv = half_a[:, 0], half_a[:, 1]
    scale = np.maximum(pair_scale(center_a, half_a), plane_scale(bx, by))

    # b relative to the box centre: large world offsets cancel first
    dx = bx - cx
    dy = by - cy
    pu = dx * ux + dy * uy
    pv = dx * vx + dy * vy
    # a's edges in corner order (-hu,-hv), (hu,-hv), (hu,hv), (-hu,hv): outward
    # normals -v, +u, +v, -u; gap = max_a a.n - min_b b.n
    gap_a = np.stack([hv + pv.max(axis=0), hu - pu.min(axis=0), hv - pv.min(axis=0), hu + pu.max(axis=0)])
    # b's outward normals m: a clears b by moving along m, so b leaves along -m
    mx, my, valid = edge_normals(dx, dy)
    reach = np.abs(ux * mx + uy * my) * hu + np.abs(vx * mx + vy * my) * hv
    gap_b = np.where(valid, dx * mx + dy * my + reach, np.inf)
    gap = np.concatenate([gap_a, gap_b])

    k, signed = first_argmin(gap)
    from_b = k >= 4
    kb = np.where(from_b, k - 4, 0)
    cols = np.arange(len(scale))
    # box normal k: -v, +u, +v, -u
    box_x = np.where(k == 1, ux, np.where(k == 3, -ux, np.where(k == 0, -vx, vx)))
    box_y = np.where(k == 1, uy, np.where(k == 3, -uy, np.where(k == 0, -vy, vy)))
    normal = np.stack([np.where(from_b, -mx[kb, cols], box_x), np.where(from_b, -my[kb, cols], box_y)], axis=1)
    return finish(signed, normal, scale)


def contact_box_polygon(
    center_a: ArrayLike, rotation_a: ArrayLike, half_a: ArrayLike, vertices_b: ArrayLike
) -> ContactArrays:
    """Contacts between N oriented rectangles (a) and N convex polygons (b).

    Parameters
    ----------
    center_a : array_like, shape (N, 2)
    rotation_a : array_like, shape (N, 2, 2)
    half_a : array_like, shape (N, 2)
    vertices_b : array_like, shape (N, K, 2)
        Counter-clockwise convex polygons, padded by repeating the last vertex.

    Returns
    -------
    ContactArrays
        As :func:`~collideworld.geometry.contact_polygon_polygon.contact_polygon_polygon` with a taken as the polygon of
        its corners (``kernel_support.box_vertices_2d``): ``normal`` (N, 2) from the box
        towards the polygon, ``depth`` (N,); ties go to the box's edges
        first, in corner order.

    Examples
    --------
    A box centred at (1, 1) with half extents (1, 1) reaches x = 2; the
    triangle's leftmost edge is at x = 1.5, so they overlap by 0.5 along x.

    >>> eye = [[1.0, 0.0], [0.0, 1.0]]
    >>> tri = [[1.5, 0.5], [3.0, 1.0], [1.5, 1.5]]
    >>> c = contact_box_polygon([[1.0, 1.0]], [eye], [[1.0, 1.0]], [tri])
    >>> bool(c.hit[0]), c.normal[0].tolist(), float(c.depth[0])
    (True, [1.0, 0.0], 0.5)
    """
    bx, by = coordinate_planes(np.asarray(vertices_b, dtype=np.float64))
    return contact_box_convex_planes(np.asarray(center_a, dtype=np.float64), np.asarray(rotation_a, dtype=np.float64),
                                     np.asarray(half_a, dtype=np.float64), bx, by)
