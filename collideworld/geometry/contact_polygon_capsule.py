"""Contacts between a convex polygon (or 2D box) and a capsule (or segment), 2D.

The Minkowski difference of a convex polygon ``P`` and a capsule is ``P``
minus the core segment ``S``, a convex polygon whose edge normals are
``P``'s and the two perpendiculars of ``S``, grown by the radius ``r``.
Outline::

    SAT over P's edge normals and S's perpendiculars   (Ericson RTCD §5.2.1)
    if no axis separates S from P:        depth = r + least overlap, along its axis
    else:                                 d = least distance of S to P's edges (§5.1.9)
                                          depth = r - d, along the closest points' line

Both are exact minimum translation distances: inside, the origin's distance
to the boundary of a convex polygon is its least distance to an edge line;
outside, the closest points of ``S`` and ``P`` lie on some edge of ``P``.
As in ``contact_capsule_capsule``, a near-touching normal comes from the
feature (the polygon edge's normal, the segment's perpendicular) rather
than from two rounded closest points. Polygons are counter-clockwise and
padded by repeating their last vertex; the zero-length edges that makes
take part in neither step.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .capsule_support import closest_segment_segment, dot
from .kernel_support import finish, pair_scale
from .result import ContactArrays
from .tolerance import SQUARES_RESCALE, TINY_SCALE

__all__ = ["contact_polygon_capsule"]

F64 = NDArray[np.float64]


def contact_polygon_capsule(vertices: F64, p0: F64, p1: F64, radius: F64) -> ContactArrays:
    """Convex polygons (a) against capsules (b), 2D.

    Parameters
    ----------
    vertices : ndarray, shape (N, K, 2)
        Counter-clockwise convex polygons in world coordinates, padded by
        repeating the last vertex.
    p0, p1 : ndarray, shape (N, 2)
        World end points of the capsules' core segments.
    radius : ndarray, shape (N,)
        ``>= 0`` (0 for a segment).

    Returns
    -------
    ContactArrays
        ``normal`` from the polygon towards the capsule; ``depth`` the exact MTD where hit.

    Examples
    --------
    The unit square [0, 1]^2 against a capsule of radius 0.25 lying along
    y = 1.5: 0.25 away; lowered to y = 1.1, it overlaps by 0.15, pushed up:

    >>> import numpy as np
    >>> sq = np.array([[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]] * 2)
    >>> c = contact_polygon_capsule(sq, np.array([[-1.0, 1.5], [-1.0, 1.1]]), np.array([[2.0, 1.5], [2.0, 1.1]]),
    ...                             np.array([0.25, 0.25]))
    >>> c.hit.tolist(), np.round(c.depth, 12).tolist(), c.normal[1].tolist()
    ([False, True], [-0.25, 0.15], [0.0, 1.0])
    """
    n, k, _ = vertices.shape
    # relative to the segment's start: the segment is 0..d
    v = vertices - p0[:, None, :]
    d = p1 - p0
    scale = pair_scale(vertices, p0, p1, radius)
    # a pair whose coordinates are all under TINY_SCALE (~4e-121) is measured
    # with its offsets scaled up by a power of two (exact): the squared
    # lengths and products below would underflow
    tiny = scale < TINY_SCALE
    unit = None
    if tiny.any():
        unit = np.where(tiny, SQUARES_RESCALE, 1.0)
        v, d = v * unit[:, None, None], d * unit[:, None]
    e = np.roll(v, -1, axis=1) - v
    elen = np.sqrt(dot(e, e))
    edge_ok = elen > 0.0
    safe = np.where(edge_ok, elen, 1.0)
    u = np.stack([e[..., 1] / safe, -e[..., 0] / safe], axis=-1)  # outward, for counter-clockwise
    # -- SAT: move the capsule along +u_k by max_P u - min_S u
    over = np.where(edge_ok, dot(v, u) - np.minimum(0.0, dot(d[:, None, :], u)), np.inf)
    k_best = np.argmin(over, axis=1)
    rows = np.arange(n)
    best = over[rows, k_best]
    normal = u[rows, k_best]
    dlen = np.sqrt(dot(d, d))
    seg_ok = dlen > 0.0
    w = np.stack([-d[:, 1], d[:, 0]], axis=1) / np.where(seg_ok, dlen, 1.0)[:, None]
    proj = dot(v, w[:, None, :])
    for over_w, sign in ((proj.max(axis=1), 1.0), (-proj.min(axis=1), -1.0)):
        better = seg_ok & (over_w < best)
        best = np.where(better, over_w, best)
        normal = np.where(better[:, None], sign * w, normal)
    inside = best >= 0.0
    # -- apart: the closest points lie on some edge of the polygon
    dd = np.broadcast_to(d[:, None, :], v.shape)
    zero = np.zeros_like(v)
    s, t = closest_segment_segment(v, e, zero, dd)
    gap = t[..., None] * dd - (v + s[..., None] * e)
    dist2 = dot(gap, gap)
    j = np.argmin(dist2, axis=1)
    g = gap[rows, j]
    sj = s[rows, j]
    tj = t[rows, j]
    dist = np.sqrt(dist2[rows, j])
    g_unit = g / np.where(dist > 0.0, dist, 1.0)[:, None]
    on_edge = (sj > 0.0) & (sj < 1.0) & edge_ok[rows, j]
    on_segment = (tj > 0.0) & (tj < 1.0) & seg_ok
    w_signed = np.where((dot(w, g) < 0.0)[:, None], -w, w)
    # closest points that coincide (a rounding away from the SAT's verdict): the SAT's axis
    g_unit = np.where((dist > 0.0)[:, None], g_unit, normal)
    apart_normal = np.where(on_edge[:, None], u[rows, j], np.where(on_segment[:, None], w_signed, g_unit))
    if unit is not None:
        best, dist = best / unit, dist / unit
    signed = np.where(inside, radius + best, radius - dist)
    normal = np.where(inside[:, None], normal, apart_normal)
    return finish(signed, normal, scale)
