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

from .kernel_support import coordinate_planes, finish, first_argmin, pair_scale, plane_scale
from .result import ContactArrays
from .tolerance import SQUARES_RESCALE, TINY_SCALE

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

    # Vertices relative to the centre. A vertex within a few units of the
    # centre comes out exact (Sterbenz), so the closest-vertex direction
    # below is exact even when the circle all but touches that vertex.
    x = px - c[:, 0]
    y = py - c[:, 1]
    scale = np.maximum(pair_scale(c, r), plane_scale(px, py))
    # A pair whose coordinates are all under TINY_SCALE (~4e-121) is measured with
    # its offsets scaled up by a power of two (exact): the squares and
    # products below would underflow, and a scaled scene must decide alike.
    tiny = scale < TINY_SCALE
    unit = None
    if tiny.any():
        unit = np.where(tiny, SQUARES_RESCALE, 1.0)
        x, y = x * unit, y * unit
    xn = np.concatenate([x[1:], x[:1]])  # the end vertex of each edge
    yn = np.concatenate([y[1:], y[:1]])
    ex = xn - x
    ey = yn - y
    len2 = ex * ex + ey * ey
    valid = len2 > 0
    length = np.sqrt(len2 + ~valid)  # zero-length edges divide by 1; adding the bool keeps others exact

    # Signed distance from the centre to each edge line, positive on the
    # inner (left) side of a counter-clockwise edge: e x x, written as the
    # cross product x x xn of the two endpoints (equal in exact arithmetic).
    # Its rounding is a few ulps of |x| |xn|, so the nearer the centre is to
    # a vertex, the finer it gets: near a vertex the edge and vertex
    # distances compared below are both accurate to ulps of the distance
    # itself, not of the edge's size.
    inner = x * yn
    inner -= y * xn
    inner /= length
    inner[~valid] = np.inf
    edge, inner_min = first_argmin(inner)

    # Distance from the centre to each edge segment (Ericson, RTCD, §5.1.2),
    # without a rounded foot point: the line distance and, when the centre is
    # behind the start vertex (x.e > 0) or beyond the end vertex (xn.e < 0),
    # how far along the edge it overshoots, combined by Pythagoras. Both parts
    # are accurate to a few ulps of the distance itself.
    u_start = x * ex
    u_start += y * ey
    u_end = xn * ex
    u_end += yn * ey
    along = np.maximum(u_start, -u_end)
    np.maximum(along, 0.0, out=along)
    along /= length
    dist2 = inner * inner
    dist2 += along * along
    # For a point outside a convex polygon the nearest segment holds the
    # nearest point. Ties (a vertex and its edge at equal distance) go to the
    # lowest edge; either gives the same depth and a normal in the vertex's
    # normal cone.
    near, near2 = first_argmin(dist2)
    # The nearest segment's nearest feature, as Box2D's circle-polygon
    # manifold picks it: 0 the start vertex, 1 the end vertex, 2 the edge.
    near_feature = np.where(u_start[near, cols] >= 0, 0, np.where(u_end[near, cols] <= 0, 1, 2))
    # A polygon far smaller than the rounding of its world coordinates can
    # have every vertex rounded onto one point: with no edge it has no inside,
    # and it is that point (within the contact at distance 0, any direction).
    point = ~valid.any(axis=0)
    # (there, every segment distance is inf: the distance is the vertex's)
    dist = np.sqrt(np.where(point, x[0] * x[0] + y[0] * y[0], near2))
    # A centre on the boundary (distance 0) takes the inside branch: same
    # depth (r + 0), and the edge's normal is well defined.
    outside = ((inner_min < 0) | point) & (dist > 0)

    # Outside, the normal comes from the nearest feature: towards the vertex
    # (an exact difference over its exact length), or the edge's inward
    # normal, never the direction of a rounded foot point, which is noise
    # when the centre is within rounding of the edge. Inside, the circle
    # leaves through the nearest edge line, along that edge's inward normal.
    from_edge = np.where(outside & (near_feature == 2), near, edge)
    at_vertex = outside & (near_feature < 2)
    vertex = np.where(near_feature == 0, near, (near + 1) % len(x))
    vertex_x = x[vertex, cols]
    vertex_y = y[vertex, cols]
    safe_dist = np.where(at_vertex, np.sqrt(vertex_x * vertex_x + vertex_y * vertex_y), 1.0)
    edge_len = length[from_edge, cols]
    normal = np.stack(
        [
            np.where(at_vertex, vertex_x / safe_dist, np.where(point, 1.0, -ey[from_edge, cols] / edge_len)),
            np.where(at_vertex, vertex_y / safe_dist, np.where(point, 0.0, ex[from_edge, cols] / edge_len)),
        ],
        axis=1,
    )
    if unit is not None:
        dist, inner_min = dist / unit, inner_min / unit
    signed = np.where(outside, r - dist, np.where(point, r, r + inner_min))
    return finish(signed, normal, scale)
