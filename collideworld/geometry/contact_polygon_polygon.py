"""Contacts between two convex polygons, 2D.

Separating-axis test over every edge normal of both polygons. With ``M`` the
Minkowski difference ``A - B`` and ``h`` a support function, b must move by
``h_M(n) = max_a a.n - min_b b.n`` along a unit ``n`` to clear a in that
direction. The edges of ``M`` are the edges of ``A`` and of ``-B``, so::

    for each outward normal n of A:      gap(n)  = h_A(n) - min_b b.n
    for each outward normal m of B:      gap(-m) = h_B(m) - min_a a.m
    depth, normal = min gap, its direction (n, or -m)

When the polygons overlap, ``h_M`` is positive and, between two adjacent
edge normals of ``M``, equal to ``v . n`` for one vertex ``v`` of ``M``: a
positive cosine, concave in the angle, whose minimum over the arc lies at an
end. So the minimum over these candidates is the exact minimum translation
distance, not only a separation test (Ericson, *Real-Time Collision
Detection*, §5.2.1 on the separating-axis test).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .kernel_support import coordinate_planes, finish, first_argmin, gaps, plane_scale
from .result import ContactArrays

__all__ = ["contact_convex_planes", "contact_polygon_polygon"]


def contact_convex_planes(
    ax: NDArray[np.float64], ay: NDArray[np.float64], bx: NDArray[np.float64], by: NDArray[np.float64]
) -> ContactArrays:
    """:func:`contact_polygon_polygon` on polygons given as coordinate planes.

    Parameters
    ----------
    ax, ay : ndarray, shape (Ka, N)
        x and y of polygon a's vertices, vertex-major (the layout the
        kernels reduce over fastest).
    bx, by : ndarray, shape (Kb, N)

    Returns
    -------
    ContactArrays
        As :func:`contact_polygon_polygon`: ``normal`` (N, 2) from a
        towards b, ``depth`` (N,).

    Examples
    --------
    The square 0..2 against a triangle whose leftmost edge is at x = 1.5:
    they overlap by 0.5 along x. Moved 2 to the right, the triangle is 1.5
    clear of the square.

    >>> import numpy as np
    >>> square = np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]])
    >>> tri = np.array([[1.5, 0.5], [3.0, 1.0], [1.5, 1.5]])
    >>> ax, ay = np.stack([square, square]).transpose(2, 1, 0)  # each (4, 2)
    >>> bx, by = np.stack([tri, tri + [2.0, 0.0]]).transpose(2, 1, 0)  # each (3, 2)
    >>> c = contact_convex_planes(ax, ay, bx, by)
    >>> c.hit.tolist(), c.normal[0].tolist(), c.depth.tolist()
    ([True, False], [1.0, 0.0], [0.5, -1.5])
    """
    scale = plane_scale(ax, ay, bx, by)

    # A common origin near the pair keeps large world offsets out of the
    # products below; translation changes none of the gaps.
    ox, oy = ax[0].copy(), ay[0].copy()
    ax, ay, bx, by = ax - ox, ay - oy, bx - ox, by - oy

    gap_a, nxa, nya = gaps(ax, ay, bx, by)
    # Along b's outward normal m, a clears b; b clears a by moving along -m.
    gap_b, nxb, nyb = gaps(bx, by, ax, ay)
    gap = np.concatenate([gap_a, gap_b])
    dx = np.concatenate([nxa, -nxb])
    dy = np.concatenate([nya, -nyb])

    k, signed = first_argmin(gap)
    cols = np.arange(len(scale))
    normal = np.stack([dx[k, cols], dy[k, cols]], axis=1)
    # Polygons far smaller than the rounding of their world coordinates can
    # have every vertex rounded onto one point. Without edges on either side
    # there is no axis to test (every gap is inf): two points, whose
    # separation is their distance.
    points = np.isinf(signed)
    if points.any():
        px, py = bx[0, points] - ax[0, points], by[0, points] - ay[0, points]
        dist = np.hypot(px, py)
        apart = dist > 0
        safe = np.where(apart, dist, 1.0)
        normal[points] = np.stack([np.where(apart, px / safe, 1.0), np.where(apart, py / safe, 0.0)], axis=1)
        signed[points] = -dist
    return finish(signed, normal, scale)


def contact_polygon_polygon(vertices_a: ArrayLike, vertices_b: ArrayLike) -> ContactArrays:
    """Contacts between N pairs of convex polygons.

    Parameters
    ----------
    vertices_a : array_like, shape (N, Ka, 2)
    vertices_b : array_like, shape (N, Kb, 2)
        Counter-clockwise convex polygons, each padded to its array's K by
        repeating its last vertex; zero-length edges are ignored.

    Returns
    -------
    ContactArrays
        ``normal`` (N, 2) is an outward edge normal of a, or an inward edge
        normal of b, pointing from a towards b. Where the pair is apart,
        ``-depth`` is the widest gap along an edge normal, a lower bound of
        the distance.

    Notes
    -----
    O(N Ka Kb) time and memory. Ties go to a's edges before b's, then to the
    lowest edge index.

    Examples
    --------
    >>> a = [[[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]]]
    >>> b = [[[1.5, 0.5], [3.0, 1.0], [1.5, 1.5], [1.5, 1.5]]]  # padded
    >>> c = contact_polygon_polygon(a, b)
    >>> bool(c.hit[0]), c.normal[0].tolist(), float(c.depth[0])
    (True, [1.0, 0.0], 0.5)
    """
    ax, ay = coordinate_planes(np.asarray(vertices_a, dtype=np.float64))
    bx, by = coordinate_planes(np.asarray(vertices_b, dtype=np.float64))
    return contact_convex_planes(ax, ay, bx, by)
