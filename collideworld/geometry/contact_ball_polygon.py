"""Contacts between a circle and a convex polygon, 2D.

The depth is the exact minimum translation distance (MTD): the radius minus
the signed distance from the circle's centre to the polygon (distance
outside, minus the distance to the boundary inside), because the Minkowski
difference of the pair is the polygon dilated by the radius. The closest
point is the point-to-segment test of Ericson, *Real-Time Collision
Detection*, §5.1.2, extended to the centre-inside case. Batched over N
pairs; the normal points from the circle (a) towards the polygon (b).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .kernel_support import coordinate_planes, finish, pair_scale, plane_scale
from .result import ContactArrays

__all__ = ["contact_ball_polygon", "contact_ball_polygon_planes"]


def contact_ball_polygon(
    center_a: ArrayLike, radius_a: ArrayLike, vertices_b: ArrayLike
) -> ContactArrays:
    """Contacts between N circles (a) and N convex polygons (b), 2D.

    Outside the polygon the closest boundary point sets depth and normal.
    A centre inside has to leave through the nearest edge line (for a convex
    polygon the distance from an interior point to the boundary is the
    smallest distance to an edge line): depth is the radius plus that
    distance and the normal is the edge's inward normal.

    Parameters
    ----------
    center_a : array_like, shape (N, 2)
    radius_a : array_like, shape (N,)
    vertices_b : array_like, shape (N, K, 2)
        Counter-clockwise convex polygons, padded to K by repeating the last
        vertex; zero-length edges are ignored.

    Returns
    -------
    ContactArrays
        ``normal`` (N, 2) from the circle towards the polygon.

    Notes
    -----
    O(N K) time and memory. Ties go to the lowest edge index.

    Examples
    --------
    >>> square = [[[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]]
    >>> c = contact_ball_polygon([[0.0, 0.5]], [0.25], square)
    >>> bool(c.hit[0]), c.normal[0].tolist(), float(c.depth[0])
    (True, [0.0, -1.0], 0.75)
    """
    c = np.asarray(center_a, dtype=np.float64)
    r = np.asarray(radius_a, dtype=np.float64)
    px, py = coordinate_planes(np.asarray(vertices_b, dtype=np.float64))
    return contact_ball_polygon_planes(c, r, px, py)


def contact_ball_polygon_planes(
    center_a: NDArray[np.float64], radius_a: NDArray[np.float64], px: NDArray[np.float64], py: NDArray[np.float64]
) -> ContactArrays:
    """:func:`contact_ball_polygon` with the polygons given as (K, N) coordinate planes.

    Parameters
    ----------
    center_a : ndarray, shape (N, 2)
    radius_a : ndarray, shape (N,)
    px, py : ndarray, shape (K, N)
        x and y of the polygons' vertices, vertex-major: column n is pair
        n's polygon, counter-clockwise and padded as in
        :func:`contact_ball_polygon`.

    Returns
    -------
    ContactArrays
        ``normal`` (N, 2) from the circle towards the polygon.

    Examples
    --------
    The square -1..1: a radius-0.25 circle at (0, 0.5) is 0.5 inside the top
    edge (depth 0.25 + 0.5), and a radius-1.5 circle at (2, 0) is 1 right of
    the square (depth 1.5 - 1).

    >>> import numpy as np
    >>> square = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    >>> px, py = np.stack([square, square]).transpose(2, 1, 0)  # each (4, 2)
    >>> c = contact_ball_polygon_planes(np.array([[0.0, 0.5], [2.0, 0.0]]), np.array([0.25, 1.5]), px, py)
    >>> c.hit.tolist(), c.normal.tolist(), c.depth.tolist()
    ([True, True], [[0.0, -1.0], [-1.0, 0.0]], [0.75, 0.5])
    """
    c, r = center_a, radius_a
    cols = np.arange(len(r))

    # Vertices relative to the centre: distances then come out of small
    # differences, not of large world coordinates.
    x = px - c[:, 0]
    y = py - c[:, 1]
    ex = np.empty_like(x)
    np.subtract(x[1:], x[:-1], out=ex[:-1])
    np.subtract(x[0], x[-1], out=ex[-1])
    ey = np.empty_like(y)
    np.subtract(y[1:], y[:-1], out=ey[:-1])
    np.subtract(y[0], y[-1], out=ey[-1])
    len2 = ex * ex + ey * ey
    valid = len2 > 0
    safe_len2 = np.where(valid, len2, 1.0)
    length = np.sqrt(safe_len2)

    # Signed distance from the centre to each edge line, positive on the
    # inner (left) side of a counter-clockwise edge.
    inner = np.where(valid, (ey * x - ex * y) / length, np.inf)
    edge = np.argmin(inner, axis=0)
    inner_min = inner[edge, cols]

    # Closest point on each edge segment; a zero-length edge degenerates to
    # its vertex, which also belongs to the boundary, so it needs no mask.
    t = np.clip(-(x * ex + y * ey) / safe_len2, 0.0, 1.0)
    qx = x + t * ex
    qy = y + t * ey
    dist2 = qx * qx + qy * qy
    near = np.argmin(dist2, axis=0)
    dist = np.sqrt(dist2[near, cols])
    # A polygon far smaller than the rounding of its world coordinates can
    # have every vertex rounded onto one point: with no edge it has no inside,
    # and it is that point (within the contact at distance 0, any direction).
    point = ~valid.any(axis=0)
    # A centre outside by less than the rounding of its own coordinates can
    # land exactly on the boundary; the inside branch handles it with the
    # same depth (r + 0) and a well-defined normal.
    outside = ((inner_min < 0) | point) & (dist > 0)

    safe_dist = np.where(outside, dist, 1.0)
    edge_len = length[edge, cols]
    normal = np.stack(
        [
            np.where(outside, qx[near, cols] / safe_dist, np.where(point, 1.0, -ey[edge, cols] / edge_len)),
            np.where(outside, qy[near, cols] / safe_dist, np.where(point, 0.0, ex[edge, cols] / edge_len)),
        ],
        axis=1,
    )
    signed = np.where(outside, r - dist, np.where(point, r, r + inner_min))
    scale = np.maximum(pair_scale(c, r), plane_scale(px, py))
    return finish(signed, normal, scale)
