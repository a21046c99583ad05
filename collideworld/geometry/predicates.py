"""Point and segment predicates, batched: is this point inside, do these cross?

Every predicate takes arrays of many queries and broadcasts over leading
axes, so one point and one shape go through the same code as a million.
Shapes are closed sets: a point on the boundary is inside and segments that
only touch intersect. "On the boundary" is decided with the one touching
rule of :mod:`collideworld.geometry.tolerance`: a distance of at most
``touch_tolerance(scale)`` counts as zero, where ``scale`` is the largest
absolute coordinate of that query. Every predicate takes an optional
keyword ``tol`` (absolute distance, broadcast against the queries) to
override that default, e.g. to share one tolerance across a whole polygon.

The sign of a cross product is only trusted when it exceeds ``tol`` times
the length of the edge it is measured against, i.e. when the point is
farther than ``tol`` from the edge's line; below that the point is treated as
on the line, and the decision falls to a distance test.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .tolerance import touch_tolerance

__all__ = [
    "box_corners",
    "point_in_box",
    "point_in_convex_polygon",
    "point_in_polygon",
    "point_in_triangle",
    "point_segment_distance",
    "segments_intersect",
]

# Bound on the number of (point, edge) pairs held in memory at once by
# point_in_polygon; 2**20 pairs keep each temporary array at ~8 MB.
_PAIR_CHUNK = 1 << 20


def _f64(x: ArrayLike) -> NDArray[np.float64]:
    return np.asarray(x, dtype=np.float64)


def _cross(u: NDArray[np.float64], v: NDArray[np.float64]) -> NDArray[np.float64]:
    return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]


def _orient(a: NDArray[np.float64], b: NDArray[np.float64], c: NDArray[np.float64]) -> NDArray[np.float64]:
    """Twice the signed area of (a, b, c): > 0 when c is left of a -> b."""
    return _cross(b - a, c - a)


def _scale(*arrays: NDArray[np.float64]) -> NDArray[np.float64]:
    """Largest absolute coordinate per query (reduces the last axis of each)."""
    out: NDArray[np.float64] = np.max(np.abs(arrays[0]), axis=-1)
    for a in arrays[1:]:
        out = np.maximum(out, np.max(np.abs(a), axis=-1))
    return out


def _tolerance(tol: ArrayLike | None, *arrays: NDArray[np.float64]) -> NDArray[np.float64]:
    if tol is None:
        return touch_tolerance(_scale(*arrays))
    return _f64(tol)


def _side(d: NDArray[np.float64], length: NDArray[np.float64], tol: NDArray[np.float64]) -> NDArray[np.int8]:
    """-1, 0, +1: which side of a line a point is, 0 within ``tol`` of it.

    ``d`` is the cross product against an edge of ``length``, so
    ``d / length`` is the signed distance; comparing ``|d|`` with
    ``tol * length`` avoids the division (and a zero-length edge puts every
    point "on" its line, which the callers' distance tests then settle).
    """
    margin = tol * length
    return (d > margin).astype(np.int8) - (d < -margin).astype(np.int8)


def point_segment_distance(points: ArrayLike, a: ArrayLike, b: ArrayLike) -> NDArray[np.float64]:
    """Euclidean distance from points to closed segments ``a``-``b``.

    Parameters
    ----------
    points, a, b : array_like, shape (..., D)
        Broadcast against each other. A segment with ``a == b`` is a point.

    Returns
    -------
    ndarray of float64, shape (...)

    Examples
    --------
    Against the segment (0, 0)-(4, 0): (2, 3) is 3 above its middle; (7, 4)
    and (-3, 4) are 5 from its end points.

    >>> point_segment_distance([[2, 3], [7, 4], [-3, 4]], [0, 0], [4, 0])
    array([3., 5., 5.])
    """
    p, a, b = _f64(points), _f64(a), _f64(b)
    ab = b - a
    ap = p - a
    len2 = np.sum(ab * ab, axis=-1)
    # A zero-length segment is its endpoint: t = 0 instead of 0/0.
    safe = np.where(len2 > 0, len2, 1.0)
    t = np.clip(np.sum(ap * ab, axis=-1) / safe, 0.0, 1.0)
    closest = a + t[..., None] * ab
    dist: NDArray[np.float64] = np.linalg.norm(p - closest, axis=-1)
    return dist


def point_in_triangle(
    points: ArrayLike, a: ArrayLike, b: ArrayLike, c: ArrayLike, *, tol: ArrayLike | None = None
) -> NDArray[np.bool_]:
    """Whether points lie in closed triangles ``(a, b, c)`` of either winding.

    Parameters
    ----------
    points, a, b, c : array_like, shape (..., 2)
        Broadcast against each other.
    tol : array_like, shape (...), optional
        Distance under which a point counts as on an edge; default
        ``touch_tolerance`` of the largest coordinate of each query.

    Returns
    -------
    ndarray of bool, shape (...)
        True inside or on an edge. A degenerate (collinear) triangle is the
        segment it covers.

    Examples
    --------
    >>> point_in_triangle([[0.5, 0.5], [2.0, 0.0]], [0, 0], [1, 0], [0, 1])
    array([ True, False])
    """
    p, a, b, c = _f64(points), _f64(a), _f64(b), _f64(c)
    t = _tolerance(tol, p, a, b, c)
    s_ab = _side(_orient(a, b, p), np.linalg.norm(b - a, axis=-1), t)
    s_bc = _side(_orient(b, c, p), np.linalg.norm(c - b, axis=-1), t)
    s_ca = _side(_orient(c, a, p), np.linalg.norm(a - c, axis=-1), t)
    # Inside for either winding = never strictly on both sides.
    has_neg = (s_ab < 0) | (s_bc < 0) | (s_ca < 0)
    has_pos = (s_ab > 0) | (s_bc > 0) | (s_ca > 0)
    # A collinear triangle puts every point on its line "on all three edges";
    # the bounding box then limits it to the covered segment. For a proper
    # triangle the box test is implied by the side tests.
    lo = np.minimum(np.minimum(a, b), c) - t[..., None]
    hi = np.maximum(np.maximum(a, b), c) + t[..., None]
    in_box: NDArray[np.bool_] = np.all((p >= lo) & (p <= hi), axis=-1)
    return ~(has_neg & has_pos) & in_box


def point_in_convex_polygon(
    points: ArrayLike, vertices: ArrayLike, *, tol: ArrayLike | None = None
) -> NDArray[np.bool_]:
    """Whether points lie in closed convex polygons.

    Parameters
    ----------
    points : array_like, shape (..., 2)
    vertices : array_like, shape (..., K, 2)
        Convex polygons in either winding; leading axes broadcast against
        those of ``points`` (so ``(N, 2)`` points against one ``(K, 2)``
        polygon, or ``(N, 2)`` against ``(N, K, 2)`` pairwise). Repeated
        vertices (zero-length edges, e.g. padding) are ignored. NOTE: a
        degenerate polygon (all vertices collinear) acts as its whole
        line, not its segment; the shape constructors never produce one.
    tol : array_like, shape (...), optional
        Distance under which a point counts as on an edge.

    Returns
    -------
    ndarray of bool, shape (...)

    Notes
    -----
    O(K) per point: the point must not be strictly outside any edge.

    Examples
    --------
    >>> square = [[0, 0], [2, 0], [2, 2], [0, 2]]
    >>> point_in_convex_polygon([[1, 1], [2, 1], [3, 1]], square)  # inside, on an edge, outside
    array([ True,  True, False])
    """
    p, v = _f64(points), _f64(vertices)
    if tol is None:
        # scale over the polygon's vertices as well as the point
        t = touch_tolerance(np.maximum(np.max(np.abs(p), axis=-1), np.max(np.abs(v), axis=(-2, -1))))
    else:
        t = _f64(tol)
    nxt = np.roll(v, -1, axis=-2)
    # Winding from the shoelace sum, so either orientation works; +1 for a
    # degenerate polygon, which then behaves like a CCW one. The sum is taken
    # relative to the first vertex: on absolute coordinates far from the
    # origin its terms are huge and cancel to noise, or to 0.
    rel, rel_nxt = v - v[..., :1, :], nxt - v[..., :1, :]
    area2 = np.sum(_cross(rel, rel_nxt), axis=-1)
    winding = np.where(area2 < 0, -1, 1)
    d = _orient(v, nxt, p[..., None, :]) * winding[..., None]
    length = np.linalg.norm(nxt - v, axis=-1)
    outside = d < -(t[..., None] * length)
    any_outside: NDArray[np.bool_] = np.any(outside, axis=-1)
    return ~any_outside


def point_in_polygon(points: ArrayLike, vertices: ArrayLike, *, tol: ArrayLike | None = None) -> NDArray[np.bool_]:
    """Whether points lie in one closed simple polygon (convex or not).

    Parameters
    ----------
    points : array_like, shape (..., 2)
    vertices : array_like, shape (K, 2)
        A simple polygon in either winding; repeated and collinear vertices
        are fine.
    tol : float, optional
        Distance under which a point counts as on an edge; default
        ``touch_tolerance`` of the largest coordinate of the polygon and the
        points.

    Returns
    -------
    ndarray of bool, shape (...)

    Notes
    -----
    Even-odd ray crossing (a ray towards +x; O(K) per point), with a separate
    point-to-edge distance test so that points on the boundary, where the
    crossing count is decided by rounding, are inside. Each edge is
    half-open in y (``min(y) <= y < max(y)`` crossings only), so a ray
    through a vertex counts it once and horizontal edges never count.

    Examples
    --------
    An L-shaped polygon: a point in its upper arm, one in the missing
    corner, one on the inner edge ``x = 1``.

    >>> l_shape = [[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2]]
    >>> point_in_polygon([[0.5, 1.5], [1.5, 1.5], [1.0, 1.5]], l_shape)
    array([ True, False,  True])
    """
    p, v = _f64(points), _f64(vertices)
    shape = p.shape[:-1]
    flat = p.reshape(-1, 2)
    a = v
    b = np.roll(v, -1, axis=0)
    if tol is None:
        scale = max(float(np.max(np.abs(v), initial=0.0)), float(np.max(np.abs(flat), initial=0.0)))
        t = float(touch_tolerance(scale))
    else:
        t = float(_f64(tol))
    out = np.empty(flat.shape[0], dtype=bool)
    step = max(1, _PAIR_CHUNK // max(1, len(v)))
    ay, by = a[:, 1], b[:, 1]
    straddle_lo = np.minimum(ay, by)
    straddle_hi = np.maximum(ay, by)
    dy = by - ay
    safe_dy = np.where(dy != 0, dy, 1.0)
    for start in range(0, flat.shape[0], step):
        q = flat[start:start + step, None, :]
        qx, qy = q[..., 0], q[..., 1]
        straddles = (straddle_lo <= qy) & (qy < straddle_hi)
        x_cross = a[:, 0] + (qy - ay) * (b[:, 0] - a[:, 0]) / safe_dy
        crossings = np.count_nonzero(straddles & (qx < x_cross), axis=-1)
        on_edge = np.any(point_segment_distance(q, a, b) <= t, axis=-1)
        out[start:start + step] = (crossings % 2 == 1) | on_edge
    return out.reshape(shape)


def segments_intersect(
    p1: ArrayLike, p2: ArrayLike, q1: ArrayLike, q2: ArrayLike, *, tol: ArrayLike | None = None
) -> NDArray[np.bool_]:
    """Whether closed segments ``p1``-``p2`` and ``q1``-``q2`` share a point.

    Parameters
    ----------
    p1, p2, q1, q2 : array_like, shape (..., 2)
        Broadcast against each other. A zero-length segment is a point.
    tol : array_like, shape (...), optional
        Gap under which segments count as touching.

    Returns
    -------
    ndarray of bool, shape (...)
        (a numpy bool for scalar inputs). True for a proper crossing, an endpoint touching the other segment,
        and collinear overlap.

    Notes
    -----
    Two segments either cross properly (each one's endpoints strictly on
    opposite sides of the other's line) or, if they do not, their distance
    is the smallest of the four endpoint-to-segment distances. So "proper
    crossing or some endpoint within ``tol`` of the other segment" decides
    every case (touching, collinear overlap, degenerate segments) with one
    rule, and no special collinear branch.

    Examples
    --------
    >>> bool(segments_intersect([0, 0], [2, 0], [1, 0], [1, 1]))  # T-junction
    True
    """
    p1, p2, q1, q2 = _f64(p1), _f64(p2), _f64(q1), _f64(q2)
    t = _tolerance(tol, p1, p2, q1, q2)
    len_p = np.linalg.norm(p2 - p1, axis=-1)
    len_q = np.linalg.norm(q2 - q1, axis=-1)
    s1 = _side(_orient(q1, q2, p1), len_q, t)
    s2 = _side(_orient(q1, q2, p2), len_q, t)
    s3 = _side(_orient(p1, p2, q1), len_p, t)
    s4 = _side(_orient(p1, p2, q2), len_p, t)
    proper = (s1 * s2 < 0) & (s3 * s4 < 0)
    gap = np.minimum(
        np.minimum(point_segment_distance(p1, q1, q2), point_segment_distance(p2, q1, q2)),
        np.minimum(point_segment_distance(q1, p1, p2), point_segment_distance(q2, p1, p2)),
    )
    return proper | (gap <= t)


def point_in_box(
    points: ArrayLike, center: ArrayLike, rotation: ArrayLike, half: ArrayLike, *, tol: ArrayLike | None = None
) -> NDArray[np.bool_]:
    """Whether points lie in closed oriented boxes (2D or 3D).

    Parameters
    ----------
    points : array_like, shape (..., D)
    center : array_like, shape (..., D)
    rotation : array_like, shape (..., D, D)
        Local-to-world rotations; columns are the box axes.
    half : array_like, shape (..., D)
        Half extents along the box axes.
    tol : array_like, shape (...), optional
        Distance outside a face that still counts as on it.

    Returns
    -------
    ndarray of bool, shape (...)

    Examples
    --------
    >>> bool(point_in_box([1.0, 2.0], [0, 0], np.eye(2), [1, 2]))  # a corner
    True
    """
    p, c, r, h = _f64(points), _f64(center), _f64(rotation), _f64(half)
    t = _tolerance(tol, p, c, h)
    # R is orthonormal, so world -> local is R^T (p - c).
    local = np.einsum("...ji,...j->...i", r, p - c)
    inside: NDArray[np.bool_] = np.all(np.abs(local) <= h + t[..., None], axis=-1)
    return inside


def box_corners(center: ArrayLike, rotation: ArrayLike, half: ArrayLike) -> NDArray[np.float64]:
    """World-space corners of oriented boxes.

    Parameters
    ----------
    center : array_like, shape (..., D)
    rotation : array_like, shape (..., D, D)
    half : array_like, shape (..., D)
        D is 2 or 3.

    Returns
    -------
    ndarray of float64, shape (..., 2**D, D)
        Corner ``k`` sits at ``+half[i]`` along local axis ``i`` when bit
        ``i`` of ``k`` is set and at ``-half[i]`` otherwise, so in 2D the
        order is (-,-), (+,-), (-,+), (+,+) (not a polygon order).

    Examples
    --------
    >>> box_corners([0, 0], np.eye(2), [1, 2])
    array([[-1., -2.],
           [ 1., -2.],
           [-1.,  2.],
           [ 1.,  2.]])
    """
    c, r, h = _f64(center), _f64(rotation), _f64(half)
    d = c.shape[-1]
    k = np.arange(2**d)
    signs = np.where((k[:, None] >> np.arange(d)) & 1, 1.0, -1.0)  # (2**D, D)
    local = signs * h[..., None, :]  # (..., 2**D, D)
    offsets: NDArray[np.float64] = np.einsum("...ij,...kj->...ki", r, local)
    return c[..., None, :] + offsets
