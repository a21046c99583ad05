"""Contacts of a ball (circle or sphere) with a ball, a box or a convex polygon.

Every kernel is batched over N pairs, with no Python loop over pairs, and
returns a :class:`~collideworld.geometry.result.ContactArrays` whose normal
points from shape a (the ball) towards shape b: moving b by ``normal * depth``
leaves the two closed shapes touching.

The depth is the exact minimum translation distance (MTD). For a ball of
radius ``r`` it is ``r`` minus the signed distance from the ball's centre to
the other shape (distance outside, minus the distance to the boundary
inside), because the Minkowski difference of the pair is the other shape
dilated by ``r``. The ball-box and ball-polygon kernels are the closest-point
tests of Ericson, *Real-Time Collision Detection*, §5.1.4 (point to OBB) and
§5.1.2 (point to segment), extended to the centre-inside case.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .result import ContactArrays
from .tolerance import touch_tolerance

__all__ = ["contact_ball_ball", "contact_ball_box", "contact_ball_polygon", "contact_ball_polygon_planes"]


def _pair_scale(*arrays: NDArray[np.float64]) -> NDArray[np.float64]:
    """Largest absolute value per pair over every array, shape (N,).

    Each array has shape (N, ...); the touching tolerance of a pair is
    relative to the magnitude of the coordinates that pair's rounding comes
    from.
    """
    scale = np.zeros(arrays[0].shape[0])
    for a in arrays:
        flat = a.reshape(a.shape[0], int(np.prod(a.shape[1:])))  # -1 fails when N = 0
        # Column by column: numpy reduces a short last axis ~20x slower than
        # it takes an elementwise maximum of a few (N,) columns.
        for j in range(flat.shape[1]):
            scale = np.maximum(scale, np.abs(flat[:, j]))
    return scale


def _coordinate_planes(
    vertices: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Split polygon vertices (N, K, 2) into x and y planes, each (K, N).

    Kernels over polygons reduce over the vertex axis; numpy does that fast
    over a leading contiguous axis and slowly over a short trailing one.
    """
    planes = np.ascontiguousarray(vertices.transpose(2, 1, 0))
    return planes[0], planes[1]


def _plane_scale(*planes: NDArray[np.float64]) -> NDArray[np.float64]:
    """Largest absolute coordinate per pair over (K, N) planes, shape (N,)."""
    scale: NDArray[np.float64] = np.max([np.abs(p).max(axis=0) for p in planes], axis=0)
    return scale


def _finish(
    signed: NDArray[np.float64], normal: NDArray[np.float64], scale: NDArray[np.float64]
) -> ContactArrays:
    """Apply the touching rule to signed depths and package the result.

    Parameters
    ----------
    signed : ndarray, shape (N,)
        Signed depth: positive when penetrating, minus the gap (or a lower
        bound of it) when apart.
    normal : ndarray, shape (N, D)
    scale : ndarray, shape (N,)
        Coordinate magnitude of each pair, for :func:`touch_tolerance`.
    """
    hit = signed >= -touch_tolerance(scale)
    # Touching within tolerance may come out slightly negative; a hit never
    # reports a negative depth.
    depth = np.where(hit, np.maximum(signed, 0.0), signed)
    # Adding 0.0 turns -0.0 into 0.0: equal contacts then print and hash alike.
    return ContactArrays(hit, normal + 0.0, depth)


def contact_ball_ball(
    center_a: ArrayLike, radius_a: ArrayLike, center_b: ArrayLike, radius_b: ArrayLike
) -> ContactArrays:
    """Contacts between N pairs of balls (circles in 2D, spheres in 3D).

    Parameters
    ----------
    center_a, center_b : array_like, shape (N, D)
    radius_a, radius_b : array_like, shape (N,)

    Returns
    -------
    ContactArrays
        ``normal`` (N, D) is the unit vector from centre a to centre b; for
        concentric balls every direction is an MTD and the first axis is
        returned. ``depth`` is ``radius_a + radius_b - distance``.

    Notes
    -----
    O(N D) time.

    Examples
    --------
    >>> c = contact_ball_ball([[0.0, 0.0]], [1.0], [[3.0, 4.0]], [4.0])
    >>> bool(c.hit[0]), c.normal[0].tolist(), float(c.depth[0])
    (True, [0.6, 0.8], 0.0)
    """
    ca = np.asarray(center_a, dtype=np.float64)
    cb = np.asarray(center_b, dtype=np.float64)
    ra = np.asarray(radius_a, dtype=np.float64)
    rb = np.asarray(radius_b, dtype=np.float64)
    d = cb - ca
    dist = np.sqrt(np.einsum("ni,ni->n", d, d))
    apart = dist > 0
    normal = d / np.where(apart, dist, 1.0)[:, None]
    normal[:, 0] = np.where(apart, normal[:, 0], 1.0)
    scale = _pair_scale(ca, cb, ra, rb)
    return _finish(ra + rb - dist, normal, scale)


def contact_ball_box(
    center_a: ArrayLike,
    radius_a: ArrayLike,
    center_b: ArrayLike,
    rotation_b: ArrayLike,
    half_b: ArrayLike,
) -> ContactArrays:
    """Contacts between N balls (a) and N oriented boxes (b), in 2D or 3D.

    The ball's centre is taken into the box frame, where clamping it to the
    half extents gives the closest point of the box. A centre inside the box
    has to leave through the nearest face: depth is the radius plus the
    distance to that face and the normal is that face's inward normal (the
    box moves away from the ball through that face).

    Parameters
    ----------
    center_a : array_like, shape (N, D)
    radius_a : array_like, shape (N,)
    center_b : array_like, shape (N, D)
    rotation_b : array_like, shape (N, D, D)
        Local-to-world rotations of the boxes (columns are the box axes).
    half_b : array_like, shape (N, D)
        Half extents of the boxes.

    Returns
    -------
    ContactArrays
        ``normal`` (N, D) from the ball towards the box.

    Notes
    -----
    O(N D^2) time. Ties between equally near faces go to the lowest axis; a
    centre exactly on a mid-plane of the box sends the box towards that
    axis's negative side.

    Examples
    --------
    >>> eye = [[[1.0, 0.0], [0.0, 1.0]]]
    >>> c = contact_ball_box([[2.0, 0.0]], [1.0], [[0.0, 0.0]], eye, [[1.0, 1.0]])
    >>> bool(c.hit[0]), c.normal[0].tolist(), float(c.depth[0])
    (True, [-1.0, 0.0], 0.0)
    """
    ca = np.asarray(center_a, dtype=np.float64)
    r = np.asarray(radius_a, dtype=np.float64)
    cb = np.asarray(center_b, dtype=np.float64)
    rot = np.asarray(rotation_b, dtype=np.float64)
    h = np.asarray(half_b, dtype=np.float64)
    dim = ca.shape[1]
    axes = range(dim)  # loops below run over the D axes, never over pairs

    # Working in the box frame turns the box into an axis-aligned one centred
    # on the origin, and subtracting the centres first keeps large world
    # offsets out of the rounding.
    d = ca - cb
    local = [sum(rot[:, j, i] * d[:, j] for j in axes) for i in axes]
    outside_by = [x - np.clip(x, -h[:, i], h[:, i]) for i, x in enumerate(local)]
    dist = np.sqrt(sum(o * o for o in outside_by))
    outside = dist > 0

    # Centre inside (or on the boundary): leave through the nearest face,
    # the first one on ties.
    inner_gap = h[:, 0] - np.abs(local[0])
    face = np.zeros(len(r), dtype=np.intp)
    for i in axes[1:]:
        gap = h[:, i] - np.abs(local[i])
        closer = gap < inner_gap
        inner_gap = np.where(closer, gap, inner_gap)
        face[closer] = i

    # Outside, the closest point is unique and the normal points at it.
    # Inside, the ball sits on the +axis side when local >= 0, so the box
    # must move towards -axis for that face to clear it.
    safe = np.where(outside, dist, 1.0)
    local_normal = [
        np.where(outside, -o / safe, np.where(face == i, np.where(x >= 0, -1.0, 1.0), 0.0))
        for i, (x, o) in enumerate(zip(local, outside_by, strict=True))
    ]
    normal = np.stack([sum(rot[:, j, i] * local_normal[i] for i in axes) for j in axes], axis=1)
    signed = np.where(outside, r - dist, r + inner_gap)
    scale = _pair_scale(ca, cb, r, h)
    return _finish(signed, normal, scale)


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
    px, py = _coordinate_planes(np.asarray(vertices_b, dtype=np.float64))
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
    scale = np.maximum(_pair_scale(c, r), _plane_scale(px, py))
    return _finish(signed, normal, scale)
