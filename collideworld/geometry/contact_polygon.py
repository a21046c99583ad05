"""Contacts between convex polygons (and boxes taken as polygons), 2D.

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

from .contact_ball import _coordinate_planes, _finish, _pair_scale, _plane_scale
from .result import ContactArrays

__all__ = ["box_vertices_2d", "box_planes_2d", "contact_box_polygon", "contact_box_convex_planes",
           "contact_convex_planes", "contact_polygon_polygon"]

# Corner signs in counter-clockwise order for a right-handed box frame.
_CORNER_SIGNS = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])


def box_vertices_2d(center: ArrayLike, rotation: ArrayLike, half: ArrayLike) -> NDArray[np.float64]:
    """World-frame corners of N oriented rectangles, counter-clockwise.

    Parameters
    ----------
    center : array_like, shape (N, 2)
    rotation : array_like, shape (N, 2, 2)
        Proper rotations (determinant +1), which keep the order
        counter-clockwise.
    half : array_like, shape (N, 2)
        Half extents.

    Returns
    -------
    ndarray, shape (N, 4, 2)
        Corners at local ``(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)``.

    Examples
    --------
    >>> box_vertices_2d([[1.0, 0.0]], [[[1.0, 0.0], [0.0, 1.0]]], [[1.0, 0.5]]).tolist()
    [[[0.0, -0.5], [2.0, -0.5], [2.0, 0.5], [0.0, 0.5]]]
    """
    c = np.asarray(center, dtype=np.float64)
    r = np.asarray(rotation, dtype=np.float64)
    h = np.asarray(half, dtype=np.float64)
    # Per component rather than einsum: a batch of 2x2 products is several
    # times faster as (N, 4) elementwise arithmetic.
    lx = _CORNER_SIGNS[None, :, 0] * h[:, 0, None]
    ly = _CORNER_SIGNS[None, :, 1] * h[:, 1, None]
    x = c[:, 0, None] + r[:, 0, 0, None] * lx + r[:, 0, 1, None] * ly
    y = c[:, 1, None] + r[:, 1, 0, None] * lx + r[:, 1, 1, None] * ly
    return np.stack([x, y], axis=-1)


def _next_minus(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``roll(x, -1, axis=0) - x``: each vertex's edge vector, for (K, N) planes."""
    out = np.empty_like(x)
    np.subtract(x[1:], x[:-1], out=out[:-1])
    np.subtract(x[0], x[-1], out=out[-1])
    return out


def _edge_normals(
    x: NDArray[np.float64], y: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """Unit outward normals of counter-clockwise polygons given as (K, N) planes.

    Edge k runs from vertex k to vertex k + 1 (cyclically). A zero-length
    edge (padding, or a repeated vertex) has no direction: its entry is
    ``(0, 0)`` and ``valid`` is False there. Any nonzero edge,
    however short, is kept: a badly rounded normal is still a direction,
    and every direction gives an upper bound of the depth, never a wrong one.

    Returns
    -------
    nx, ny : ndarray, shape (K, N)
    valid : ndarray of bool, shape (K, N)
    """
    ex = _next_minus(x)
    ey = _next_minus(y)
    len2 = ex * ex
    len2 += ey * ey
    valid = len2 > 0
    # zero-length edges divide 0 by 1: a (0, 0) "normal" no caller selects
    # (their gaps are infinite); adding the bool leaves valid lengths exact
    length = np.sqrt(len2 + ~valid)
    ny = ex / length
    np.negative(ny, out=ny)
    return ey / length, ny, valid


def _gaps(
    x: NDArray[np.float64], y: NDArray[np.float64], ox: NDArray[np.float64], oy: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """How far polygon o must move along each outward edge normal n of polygon p to clear it.

    ``gap = max_p p.n - min_o o.n``; the support of p along its own edge
    normal is that edge's first vertex, so only o needs a full projection.
    Zero-length edges get an infinite gap.

    Parameters
    ----------
    x, y : ndarray, shape (Kp, N)
        Polygon p.
    ox, oy : ndarray, shape (Ko, N)
        Polygon o.

    Returns
    -------
    gap, nx, ny : ndarray, shape (Kp, N)
    """
    nx, ny, valid = _edge_normals(x, y)
    # One of o's vertices at a time (a loop over K, not over pairs): the
    # (Kp, Ko, N) broadcast would be several times slower, out of cache.
    # Scratch buffers are reused so each step is two products, a sum and a
    # minimum over warm memory.
    lowest = nx * ox[0]
    lowest += ny * oy[0]
    t1 = np.empty_like(lowest)
    t2 = np.empty_like(lowest)
    for j in range(1, ox.shape[0]):
        np.multiply(nx, ox[j], out=t1)
        np.multiply(ny, oy[j], out=t2)
        t1 += t2
        np.minimum(lowest, t1, out=lowest)
    np.multiply(x, nx, out=t1)
    np.multiply(y, ny, out=t2)
    t1 += t2
    t1 -= lowest
    t1[~valid] = np.inf
    return t1, nx, ny


def _first_argmin(values: NDArray[np.float64]) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """Row of the first minimum of each column of a (K, N) array, and that minimum.

    numpy's ``argmin`` over a short leading axis costs several times a
    plain ``min`` over it; K comparisons against the minimum are cheaper.
    """
    low = values.min(axis=0)
    k = np.full(values.shape[1], values.shape[0] - 1, dtype=np.intp)
    for r in range(values.shape[0] - 2, -1, -1):
        k[values[r] == low] = r
    return k, low


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
    scale = _plane_scale(ax, ay, bx, by)

    # A common origin near the pair keeps large world offsets out of the
    # products below; translation changes none of the gaps.
    ox, oy = ax[0].copy(), ay[0].copy()
    ax, ay, bx, by = ax - ox, ay - oy, bx - ox, by - oy

    gap_a, nxa, nya = _gaps(ax, ay, bx, by)
    # Along b's outward normal m, a clears b; b clears a by moving along -m.
    gap_b, nxb, nyb = _gaps(bx, by, ax, ay)
    gap = np.concatenate([gap_a, gap_b])
    dx = np.concatenate([nxa, -nxb])
    dy = np.concatenate([nya, -nyb])

    k, signed = _first_argmin(gap)
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
    return _finish(signed, normal, scale)


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
    ax, ay = _coordinate_planes(np.asarray(vertices_a, dtype=np.float64))
    bx, by = _coordinate_planes(np.asarray(vertices_b, dtype=np.float64))
    return contact_convex_planes(ax, ay, bx, by)


def box_planes_2d(
    center: NDArray[np.float64], rotation: NDArray[np.float64], half: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """:func:`box_vertices_2d` as x and y planes, each (4, N), with the same arithmetic.

    Parameters
    ----------
    center : ndarray, shape (N, 2)
    rotation : ndarray, shape (N, 2, 2)
        Proper rotations (determinant +1).
    half : ndarray, shape (N, 2)
        Half extents.

    Returns
    -------
    x, y : ndarray, shape (4, N)
        Corner coordinates, vertex-major: column n holds box n's corners in
        the counter-clockwise order of :func:`box_vertices_2d`.

    Examples
    --------
    A box at (1, 0) with half extents (1, 0.5) spans 0..2 by -0.5..0.5.

    >>> import numpy as np
    >>> x, y = box_planes_2d(np.array([[1.0, 0.0]]), np.array([[[1.0, 0.0], [0.0, 1.0]]]), np.array([[1.0, 0.5]]))
    >>> x[:, 0].tolist(), y[:, 0].tolist()
    ([0.0, 2.0, 2.0, 0.0], [-0.5, -0.5, 0.5, 0.5])
    """
    lx = _CORNER_SIGNS[:, 0, None] * half[:, 0]
    ly = _CORNER_SIGNS[:, 1, None] * half[:, 1]
    x = center[:, 0] + rotation[:, 0, 0] * lx + rotation[:, 0, 1] * ly
    y = center[:, 1] + rotation[:, 1, 0] * lx + rotation[:, 1, 1] * ly
    return x, y


def contact_box_convex_planes(
    center_a: NDArray[np.float64], rotation_a: NDArray[np.float64], half_a: NDArray[np.float64],
    bx: NDArray[np.float64], by: NDArray[np.float64],
) -> ContactArrays:
    """:func:`contact_box_polygon` with the polygons given as (K, N) coordinate planes.

    The same separating axes as :func:`contact_convex_planes` on the box's
    corners, but the box's four normals are its axes, known without
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
    scale = np.maximum(_pair_scale(center_a, half_a), _plane_scale(bx, by))

    # b relative to the box centre: large world offsets cancel first
    dx = bx - cx
    dy = by - cy
    pu = dx * ux + dy * uy
    pv = dx * vx + dy * vy
    # a's edges in corner order (-hu,-hv), (hu,-hv), (hu,hv), (-hu,hv): outward
    # normals -v, +u, +v, -u; gap = max_a a.n - min_b b.n
    gap_a = np.stack([hv + pv.max(axis=0), hu - pu.min(axis=0), hv - pv.min(axis=0), hu + pu.max(axis=0)])
    # b's outward normals m: a clears b by moving along m, so b leaves along -m
    mx, my, valid = _edge_normals(dx, dy)
    reach = np.abs(ux * mx + uy * my) * hu + np.abs(vx * mx + vy * my) * hv
    gap_b = np.where(valid, dx * mx + dy * my + reach, np.inf)
    gap = np.concatenate([gap_a, gap_b])

    k, signed = _first_argmin(gap)
    from_b = k >= 4
    kb = np.where(from_b, k - 4, 0)
    cols = np.arange(len(scale))
    # box normal k: -v, +u, +v, -u
    box_x = np.where(k == 1, ux, np.where(k == 3, -ux, np.where(k == 0, -vx, vx)))
    box_y = np.where(k == 1, uy, np.where(k == 3, -uy, np.where(k == 0, -vy, vy)))
    normal = np.stack([np.where(from_b, -mx[kb, cols], box_x), np.where(from_b, -my[kb, cols], box_y)], axis=1)
    return _finish(signed, normal, scale)


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
        As :func:`contact_polygon_polygon` with a taken as the polygon of
        its corners (:func:`box_vertices_2d`): ``normal`` (N, 2) from the box
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
    bx, by = _coordinate_planes(np.asarray(vertices_b, dtype=np.float64))
    return contact_box_convex_planes(np.asarray(center_a, dtype=np.float64), np.asarray(rotation_a, dtype=np.float64),
                                     np.asarray(half_a, dtype=np.float64), bx, by)
