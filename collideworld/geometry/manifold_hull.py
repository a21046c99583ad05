"""Contact points of convex hulls (b) against half-spaces, spheres, boxes and hulls (a), 3D.

The method of :mod:`~collideworld.geometry.manifold_support` (Gregorius, GDC
2015), with a hull's touching feature in place of a box's::

    feature of a hull along d = its vertices v lying flat with the highest one,
        top: the segment top -> v tilted from the plane across d by at most
        the tilt slop, d . (top - v) <= FEATURE_SLOP |top - v| (0.57 degrees,
        the rule of polygons and boxes): the face, edge or vertex furthest
        along d; at most MAX_FEATURE of them, the highest kept, as a loop
        ordered by angle in the plane perpendicular to the contact normal and
        cut to its convex outline there
    region = the intersection of a's and b's features seen along n: corners of
        each inside the other, and crossings of their edges (Sutherland-Hodgman's
        output, found as Ericson RTCD 5.x's point and segment tests)
    each corner: the points of both shapes over it (a hull's own surface, from
        its face planes), halfway; separation n . (p_b - p_a)
    keep at most 4: deepest, farthest, largest triangle, largest added area

Each point is then within half its own |separation| of both shapes (p_a is
on a, p_b on b, and p_b - p_a is along n), up to rounding and the 1e-9 of
the pair's size the clip allows "on the other feature".

A capsule (or segment) against a hull is its core segment's feature (both
ends while it lies within the tilt slop, else its end furthest along n, as
:func:`segment_feature_3d` gives it) clipped against the hull's feature the
same way, then moved out by the radius (:func:`round_manifold`): a capsule
lying on a face gives the two ends of the part over the face, one standing
on it one point, one lying across an edge the point where the cores cross.

Ids: a hull's vertex is its index in the hull, an edge :func:`edge_code` of its
two vertices, a face ``FACE_CODE | face number``; a box's as in
:func:`box_feature_3d`; a segment's as in
:mod:`~collideworld.geometry.manifold_capsule_support` (0, 1, or
``SEGMENT_CODE``); a half-space or sphere is feature 0.

The compiled twins are in ``geometry/compiled/manifold_hull.py`` (same
names; the same points, separations and ids).

NOTE: the vertices within the slop need not make one flat face (a curved
patch, both sides of a very thin plate): the clip then works on the convex
outline of the patch seen along n, and the points lie on the hull's surface
over it, so a corner of the outline that is not the highest vertex gets the
surface's height there, and a vertex inside the outline gives no point.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .manifold_capsule_support import round_manifold, segment_feature_3d
from .manifold_support import (
    FACE_CODE,
    FEATURE_SLOP,
    ManifoldArrays,
    box_feature_3d,
    edge_code,
    feature_ids,
    height_on,
    kept_points,
    manifold_single_point,
    plane_basis,
    points_in_slots,
    reduce_to_four,
    segment_distance_2d,
)

__all__ = ["MAX_FEATURE", "hull_feature", "manifold_halfspace_hull", "manifold_ball_hull", "manifold_box_hull",
           "manifold_capsule_hull", "manifold_hull_hull"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

#: Most vertices of a hull's touching feature kept (the highest along the direction).
MAX_FEATURE = 8


def hull_feature(verts: F64, normals: F64, direction: F64, convex: bool = True
                 ) -> tuple[F64, I64, I64, F64, I64]:
    """The touching feature of hulls along ``direction``, as a loop of up to :data:`MAX_FEATURE` vertices.

    Parameters
    ----------
    verts : ndarray, shape (N, V, 3)
        World vertices (padding repeats the last one).
    normals : ndarray, shape (N, F, 3)
        World face normals.
    direction : ndarray, shape (N, 3)
        Unit directions.
    convex : bool, optional
        Drop the vertices inside the others' outline seen along the
        direction (:func:`_convex_loop`), so the loop is convex: what the
        clip of two features needs. False keeps them all (a plane's points
        are the vertices themselves, the deepest among them).

    Returns
    -------
    loop : ndarray, shape (N, MAX_FEATURE, 3)
        The feature's vertices ordered by angle about their centroid (seen
        along ``direction``), padded by repeating the last one.
    vertex_ids : ndarray of int64, shape (N, MAX_FEATURE)
        Their indices in the hull.
    count : ndarray of int64, shape (N,)
        Vertices in the feature: 1 vertex, 2 edge, 3 or more face.
    face_normal : ndarray, shape (N, 3)
        The face normal most aligned with ``direction`` (a face feature's plane).
    code : ndarray of int64, shape (N,)
        Feature code of the whole feature (``FACE_CODE | face`` for a face).

    Examples
    --------
    The cube [-1, 1]^3 along -z: its bottom face, four corners.

    >>> import itertools
    >>> import numpy as np
    >>> from collideworld import ConvexHull
    >>> cube = ConvexHull(list(itertools.product((-1, 1), repeat=3)))
    >>> loop, ids, count, fn, code = hull_feature(np.asarray(cube.vertices)[None], np.asarray(cube.normals)[None],
    ...                                           np.array([[0.0, 0.0, -1.0]]))
    >>> int(count[0]), sorted(loop[0, :4, 2].tolist()), fn[0].tolist()
    (4, [-1.0, -1.0, -1.0, -1.0], [0.0, 0.0, -1.0])
    """
    n, v, _ = verts.shape
    rows = np.arange(n)
    k = min(MAX_FEATURE, v)
    # written out per component: the compiled twin adds in the same order, so both pick the same vertices
    height = (verts[:, :, 0] * direction[:, None, 0] + verts[:, :, 1] * direction[:, None, 1]
              + verts[:, :, 2] * direction[:, None, 2])
    top = np.argmax(height, axis=1)
    drop = height[rows, top][:, None] - height
    padding = np.zeros((n, v), dtype=bool)
    padding[:, 1:] = (verts[:, 1:] == verts[:, :-1]).all(axis=2)
    # the documented tilt slop, measured from the top vertex as for polygons (support_ends_2d) and
    # boxes (box_feature_3d): v joins while the segment top -> v is tilted from the plane across d by
    # at most asin(FEATURE_SLOP) = 0.57 degrees; a slop in units of the hull's size would admit
    # edges tilted by degrees on a small face of a big hull
    rel = verts - verts[rows, top][:, None, :]
    reach = np.sqrt(rel[:, :, 0] * rel[:, :, 0] + rel[:, :, 1] * rel[:, :, 1] + rel[:, :, 2] * rel[:, :, 2])
    within = (drop <= FEATURE_SLOP * reach) & ~padding
    within[rows, top] = True
    # the highest k of them (the top first)
    order = np.argsort(np.where(within, drop, np.inf), axis=1, kind="stable")[:, :k]
    count = np.minimum(within.sum(axis=1), k).astype(np.int64)
    live = np.arange(k)[None, :] < count[:, None]
    order = np.where(live, order, order[:, :1])
    pts = verts[rows[:, None], order]
    # angular order about the centroid, in the plane across the direction
    t1, t2 = plane_basis(direction)
    centroid = np.where(live[..., None], pts, 0.0).sum(axis=1) / count[:, None]
    off = pts - centroid[:, None, :]
    angle = np.arctan2((off * t2[:, None, :]).sum(-1), (off * t1[:, None, :]).sum(-1))
    angle = np.where(live, angle, np.inf)
    sort = np.argsort(angle, axis=1, kind="stable")
    order = np.take_along_axis(order, sort, axis=1)
    if convex:
        order, count = _convex_loop(order, count, np.take_along_axis((off * t1[:, None, :]).sum(-1), sort, axis=1),
                                    np.take_along_axis((off * t2[:, None, :]).sum(-1), sort, axis=1))
        live = np.arange(k)[None, :] < count[:, None]
    order = np.where(live, order, np.take_along_axis(order, (count - 1)[:, None], axis=1))
    loop = verts[rows[:, None], order]
    face = np.argmax(np.einsum("nfd,nd->nf", normals, direction), axis=1)
    face_normal = normals[rows, face] + 0.0
    code = np.where(count >= 3, FACE_CODE | face,
                    edge_code(order[:, 0], np.where(count >= 2, order[:, 1], order[:, 0])))
    if k < MAX_FEATURE:  # tiny hulls: pad the loop to the common width
        extra = MAX_FEATURE - k
        loop = np.concatenate([loop, np.repeat(loop[:, -1:], extra, axis=1)], axis=1)
        order = np.concatenate([order, np.repeat(order[:, -1:], extra, axis=1)], axis=1)
    return loop, order.astype(np.int64), count, face_normal, code.astype(np.int64)


def _convex_loop(order: I64, count: I64, x: F64, y: F64) -> tuple[I64, I64]:
    """A loop ordered by angle about an inner point, cut to its convex outline: (order, count).

    Vertices within the slop may come from several faces (a curved patch,
    both sides of a thin plate), and ordered by angle they make a star, not
    a convex polygon: a point over the feature but outside the star's kernel
    then fails the clip's inside test, and a pair can lose every candidate.
    A vertex of the convex outline is never reflex in such a star, so
    dropping a reflex (or straight) vertex at a time, the first one, leaves
    the outline (Graham's scan about an inner point); at least three stay.
    ``x``, ``y`` (N, K) are the loop's coordinates across the direction.
    """
    n, k = order.shape
    idx = np.arange(k)[None, :]
    rows = np.arange(n)[:, None]
    for _ in range(k - 3):
        prev = np.where(idx == 0, count[:, None] - 1, idx - 1)
        nxt = np.where(idx + 1 < count[:, None], idx + 1, 0)
        px, py = x[rows, prev], y[rows, prev]
        nx, ny = x[rows, nxt], y[rows, nxt]
        turn = (x - px) * (ny - y) - (y - py) * (nx - x)
        reflex = (idx < count[:, None]) & (turn <= 0) & (count[:, None] > 3)
        drop: NDArray[np.bool_] = np.asarray(reflex.any(axis=1))
        if not drop.any():
            break
        first = np.argmax(reflex, axis=1)
        src = np.minimum(idx + ((idx >= first[:, None]) & drop[:, None]), k - 1)
        order = np.take_along_axis(order, src, axis=1)
        x = np.take_along_axis(x, src, axis=1)
        y = np.take_along_axis(y, src, axis=1)
        count = count - drop
    return order, count


def _surface_over(base: F64, verts: F64, normals: F64, loop: F64, count: I64, direction: F64, eps: F64) -> F64:
    """The hull's own surface over each point: ``base`` (N, M, 3) moved along ``direction`` (N, 3) onto it.

    The furthest point of the hull along ``direction`` on the line through
    ``base``: the least of the face planes' bounds on it, ``(D_j - f_j . p)
    / (f_j . d)`` over the faces facing d (the hull is the intersection of
    its face half-spaces ``f_j . x <= D_j``). The feature's vertices may come
    from several faces (a curved patch within the slop, both sides of a thin
    plate), so one face's plane through a corner can put the point well off
    the hull; this puts it on the hull, so the midpoint of the two shapes'
    points lies within half its separation of both.

    The bounds are measured from the height of the hull's highest point
    along d, where every face the line crosses below it binds; a face the
    line misses by at most ``eps`` there (a candidate accepted within
    ``eps`` of the feature's outline, beside a face parallel to d) is
    skipped, which leaves the point at most ``eps`` outside that face
    instead of dividing by its tiny ``f . d``. The point is kept no lower
    than the feature's lowest corner: the hull's surface over the feature's
    outline is that high, by convexity.
    """
    d0, d1, d2 = direction[:, None, 0], direction[:, None, 1], direction[:, None, 2]
    # face offsets D_j: the highest vertex along each face normal
    offsets = (normals[:, :, None, 0] * verts[:, None, :, 0] + normals[:, :, None, 1] * verts[:, None, :, 1]
               + normals[:, :, None, 2] * verts[:, None, :, 2]).max(axis=2)
    # the hull's highest point along d (the loop may have lost it, inside its outline) and its lowest corner
    top = (verts[:, :, 0] * d0 + verts[:, :, 1] * d1 + verts[:, :, 2] * d2).max(axis=1)
    height = loop[:, :, 0] * d0 + loop[:, :, 1] * d1 + loop[:, :, 2] * d2
    live = np.arange(loop.shape[1])[None, :] < count[:, None]
    band = top - np.where(live, height, np.inf).min(axis=1)
    t0 = top[:, None] - (base[..., 0] * d0 + base[..., 1] * d1 + base[..., 2] * d2)
    p = base + t0[..., None] * direction[:, None, :]
    c = normals[:, :, 0] * d0 + normals[:, :, 1] * d1 + normals[:, :, 2] * d2
    r = offsets[:, None, :] - (p[..., None, 0] * normals[:, None, :, 0] + p[..., None, 1] * normals[:, None, :, 1]
                               + p[..., None, 2] * normals[:, None, :, 2])
    binds = (c[:, None, :] > 0) & (r < -eps[:, None, None])
    t = np.where(binds, r / np.where(binds, c[:, None, :], 1.0), 0.0).min(axis=2, initial=0.0)
    t = np.maximum(t, -band[:, None])
    out: F64 = p + t[..., None] * direction[:, None, :]
    return out


def _box_loop(center: F64, rotation: F64, half: F64, direction: F64) -> tuple[F64, I64, I64, F64, I64]:
    """A box's feature (:func:`box_feature_3d`) as a hull feature loop: 1, 2 or 4 corners."""
    corners, ids, free, face_normal, code = box_feature_3d(center, rotation, half, direction)
    count = np.where(free == 2, 4, np.where(free == 1, 2, 1)).astype(np.int64)
    pad = MAX_FEATURE - 4
    loop = np.concatenate([corners, np.repeat(corners[:, 3:], pad, axis=1)], axis=1)
    loop_ids = np.concatenate([ids, np.repeat(ids[:, 3:], pad, axis=1)], axis=1)
    # an edge's loop [v0, v1, v1, v0] and a vertex's: the live corners come first
    return loop, loop_ids, count, face_normal, code


def _segment_loop(p0: F64, p1: F64, direction: F64) -> tuple[F64, I64, I64, F64, I64]:
    """A segment's feature (:func:`segment_feature_3d`) as a hull feature loop: 2 ends or 1."""
    ends, ids, free, face_normal, code = segment_feature_3d(p0, p1, direction)
    count = np.where(free == 1, 2, 1).astype(np.int64)
    pad = MAX_FEATURE - 4
    # [p0, p1, p1, p0] or one end four times: the live ends come first
    loop = np.concatenate([ends, np.repeat(ends[:, 3:], pad, axis=1)], axis=1)
    loop_ids = np.concatenate([ids, np.repeat(ids[:, 3:], pad, axis=1)], axis=1)
    return loop, loop_ids, count, face_normal, code


def _inside(q: F64, loop: F64, count: I64, eps: F64) -> NDArray[np.bool_]:
    """Points q (N, M, 2) over the projected features (N, K, 2) with ``count`` live corners (or within eps)."""
    k = loop.shape[1]
    idx = np.arange(k)
    nxt = np.where(idx[None, :] + 1 < count[:, None], idx[None, :] + 1, 0)
    p0 = loop
    p1 = np.take_along_axis(loop, nxt[..., None], axis=1)
    live_edge = (idx[None, :] < count[:, None]) & ((idx[None, :] < 1) | (count[:, None] >= 3))
    dist = np.full(q.shape[:2], np.inf)
    neg = np.zeros(q.shape[:2], dtype=bool)
    pos = np.zeros(q.shape[:2], dtype=bool)
    for j in range(k):
        a, b = p0[:, None, j], p1[:, None, j]
        d = segment_distance_2d(q, a, b)
        live = live_edge[:, j][:, None]
        dist = np.where(live, np.minimum(dist, d), dist)
        e = b - a
        cross = e[..., 0] * (q[..., 1] - a[..., 1]) - e[..., 1] * (q[..., 0] - a[..., 0])
        neg |= live & (cross < 0)
        pos |= live & (cross > 0)
    face = (count >= 3)[:, None]
    out: NDArray[np.bool_] = (face & ~(neg & pos)) | (dist <= eps[:, None])
    return out


def _free(count: I64) -> I64:
    """A loop's live corners as the free dimensions of its feature (2 face, 1 edge, 0 vertex), as
    :func:`~collideworld.geometry.manifold_support._height_on` takes them."""
    out: I64 = np.where(count >= 3, 2, np.where(count == 2, 1, 0))
    return out


def manifold_loops_3d(feature_a: tuple[F64, I64, I64, F64, I64], feature_b: tuple[F64, I64, I64, F64, I64],
                      normal: F64, scale: F64, shift_a: int = 0, shift_b: int = 0,
                      grazing: bool = True, hull_a: tuple[F64, F64] | None = None,
                      hull_b: tuple[F64, F64] | None = None) -> ManifoldArrays:
    """Contact points of N pairs of features given as loops (what :func:`hull_feature` returns).

    Candidates: a's corners over b's feature, b's over a's, and the crossings
    of their edges, all seen along ``n``; each becomes the midpoint of the
    two features' points over it, and more than four are reduced to the four
    of largest area. No candidate (the normal only grazes): one point,
    between the two features' first corners.

    Parameters
    ----------
    feature_a, feature_b : tuple
        a's feature along ``+n``, b's along ``-n``.
    normal : ndarray, shape (N, 3)
    scale : ndarray, shape (N,)
        Size of the pair: "on the other feature" within 1e-9 of it.
    shift_a, shift_b : int, optional
        Unused (reserved for part numbers of compound shapes).
    grazing : bool, optional
        False: a pair with no candidate keeps no point (count 0), for the
        caller to place its own.
    hull_a, hull_b : tuple of ndarray, optional
        ``(verts (N, V, 3), face normals (N, F, 3))`` of a side that is a
        hull: its points are then its own surface over each candidate
        (:func:`_surface_over`), not the plane of one face, since a hull's
        feature within the slop need not be flat.

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    A cube-shaped hull resting on a bigger one touches at its four bottom corners:

    >>> import itertools
    >>> import numpy as np
    >>> from collideworld import ConvexHull
    >>> big = ConvexHull([(5 * x, 5 * y, z) for x, y, z in itertools.product((-1, 1), repeat=3)])
    >>> cube = ConvexHull(list(itertools.product((-1, 1), repeat=3)))
    >>> up = np.array([[0.0, 0.0, 1.0]])
    >>> fa = hull_feature(np.asarray(big.vertices)[None], np.asarray(big.normals)[None], up)
    >>> fb = hull_feature(np.asarray(cube.vertices)[None] + [0, 0, 2], np.asarray(cube.normals)[None], -up)
    >>> m = manifold_loops_3d(fa, fb, up, np.array([5.0]))
    >>> int(m.count[0]), sorted(m.points[0].tolist())
    (4, [[-1.0, -1.0, 1.0], [-1.0, 1.0, 1.0], [1.0, -1.0, 1.0], [1.0, 1.0, 1.0]])
    """
    la3, ida, ca, fna, codea = feature_a
    lb3, idb, cb, fnb, codeb = feature_b
    n, k, _ = la3.shape
    t1, t2 = plane_basis(normal)
    origin = la3[:, 0]

    def project(p: F64) -> F64:
        rel = p - origin[:, None, :]
        return np.stack([(rel * t1[:, None, :]).sum(-1), (rel * t2[:, None, :]).sum(-1)], axis=-1)

    la, lb = project(la3), project(lb3)
    eps = 1e-9 * scale
    idx = np.arange(k)[None, :]
    live_a, live_b = idx < ca[:, None], idx < cb[:, None]
    # 1) a's corners over b's feature, 2) b's over a's
    in_a = live_a & _inside(la, lb, cb, eps)
    pb1 = height_on(la3, la, lb3, lb, _free(cb), fnb, normal)
    id1 = feature_ids(ida, np.broadcast_to(codeb[:, None], (n, k)))
    in_b = live_b & _inside(lb, la, ca, eps)
    pa2 = height_on(lb3, lb, la3, la, _free(ca), fna, normal)
    id2 = feature_ids(np.broadcast_to(codea[:, None], (n, k)), idb)
    # 3) crossings of a's edge i (corner i to the next live one) with b's edge j
    nxt_a = np.where(idx + 1 < ca[:, None], idx + 1, 0)
    nxt_b = np.where(idx + 1 < cb[:, None], idx + 1, 0)
    ea_live = live_a & ((idx < 1) | (ca[:, None] >= 3)) & (ca[:, None] >= 2)
    eb_live = live_b & ((idx < 1) | (cb[:, None] >= 3)) & (cb[:, None] >= 2)
    a0 = la[:, :, None, :]
    a1 = np.take_along_axis(la, nxt_a[..., None], axis=1)[:, :, None, :]
    b0 = lb[:, None, :, :]
    b1 = np.take_along_axis(lb, nxt_b[..., None], axis=1)[:, None, :, :]
    da, db = a1 - a0, b1 - b0
    w = b0 - a0
    den = da[..., 0] * db[..., 1] - da[..., 1] * db[..., 0]
    ok_den = np.abs(den) > 1e-12 * np.sqrt((da * da).sum(-1) * (db * db).sum(-1))
    safe = np.where(ok_den, den, 1.0)
    s = (w[..., 0] * db[..., 1] - w[..., 1] * db[..., 0]) / safe
    u = (w[..., 0] * da[..., 1] - w[..., 1] * da[..., 0]) / safe
    in_x = ok_den & (s > 0) & (s < 1) & (u > 0) & (u < 1) & ea_live[:, :, None] & eb_live[:, None, :]
    A0 = la3[:, :, None, :]
    A1 = np.take_along_axis(la3, nxt_a[..., None], axis=1)[:, :, None, :]
    B0 = lb3[:, None, :, :]
    B1 = np.take_along_axis(lb3, nxt_b[..., None], axis=1)[:, None, :, :]
    pa3 = (A0 + s[..., None] * (A1 - A0)).reshape(n, k * k, 3)
    pb3 = (B0 + u[..., None] * (B1 - B0)).reshape(n, k * k, 3)
    ea_code = edge_code(ida, np.take_along_axis(ida, nxt_a, axis=1))
    eb_code = edge_code(idb, np.take_along_axis(idb, nxt_b, axis=1))
    id3 = feature_ids(np.broadcast_to(ea_code[:, :, None], (n, k, k)),
                      np.broadcast_to(eb_code[:, None, :], (n, k, k))).reshape(n, k * k)

    valid = np.concatenate([in_a, in_b, in_x.reshape(n, k * k)], axis=1)
    pa = np.concatenate([la3, pa2, pa3], axis=1)
    pb = np.concatenate([pb1, lb3, pb3], axis=1)
    ids = np.concatenate([id1, id2, id3], axis=1)
    # the valid candidates packed to the front (most are not): the duplicate check below is
    # quadratic in their number, not in the 2K + K^2 candidates
    m = max(4, int(valid.sum(axis=1).max(initial=0)))  # reduce_to_four reads at least 4
    front = np.argsort(~valid, axis=1, kind="stable")[:, :m]
    valid = np.take_along_axis(valid, front, axis=1)
    pa = np.take_along_axis(pa, front[..., None], axis=1)
    pb = np.take_along_axis(pb, front[..., None], axis=1)
    ids = np.take_along_axis(ids, front, axis=1)
    if hull_a is not None:
        pa = _surface_over(pa, *hull_a, la3, ca, normal, eps)
    if hull_b is not None:
        pb = _surface_over(pb, *hull_b, lb3, cb, -normal, eps)
    point = 0.5 * (pa + pb)
    sep = ((pb - pa) * normal[:, None, :]).sum(-1)
    out, count = points_in_slots(point, sep, ids, kept_points(project(point), sep, valid, eps))
    none = count == 0
    if grazing and none.any():
        pa0, pb0 = la3[none, 0], lb3[none, 0]
        sep0 = ((pb0 - pa0) * normal[none]).sum(-1)
        out.points[none, 0] = 0.5 * (pa0 + pb0)
        out.separations[none, 0] = sep0
        out.ids[none, 0] = feature_ids(codea[none], codeb[none])
        count[none] = 1
    out.count[:] = count
    return out


def _scale(*arrays: F64) -> F64:
    scale = np.zeros(len(arrays[0]))
    for a in arrays:
        scale = np.maximum(scale, np.abs(a).reshape(len(a), -1).max(axis=1, initial=0.0))
    return scale


def manifold_halfspace_hull(plane_normal: F64, offset: F64, verts: F64, normals: F64, normal: F64,
                            depth: F64) -> ManifoldArrays:
    """Contact points of half-spaces (a) against hulls (b): the hull's lowest feature, each vertex halfway down.

    Parameters
    ----------
    plane_normal : ndarray, shape (N, 3)
    offset : ndarray, shape (N,)
    verts : ndarray, shape (N, V, 3)
        The hulls' world vertices.
    normals : ndarray, shape (N, F, 3)
        Their world face normals.
    normal : ndarray, shape (N, 3)
        Contact normals (the plane normals).
    depth : ndarray, shape (N,)
        Unused (each vertex's separation is measured).

    Returns
    -------
    ManifoldArrays
        Ids ``0 << 32 | vertex index``; more than four vertices are reduced to the four of largest area.

    Examples
    --------
    A cube-shaped hull resting on the floor z <= 0 touches at its four bottom corners:

    >>> import itertools
    >>> import numpy as np
    >>> from collideworld import ConvexHull
    >>> cube = ConvexHull(list(itertools.product((-1, 1), repeat=3)))
    >>> up = np.array([[0.0, 0.0, 1.0]])
    >>> m = manifold_halfspace_hull(up, np.zeros(1), np.asarray(cube.vertices)[None] + [0, 0, 1],
    ...                             np.asarray(cube.normals)[None], up, np.zeros(1))
    >>> int(m.count[0]), sorted(m.points[0].tolist())
    (4, [[-1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [1.0, -1.0, 0.0], [1.0, 1.0, 0.0]])
    """
    loop, ids, count, _, _ = hull_feature(verts, normals, -normal, convex=False)
    sep = np.einsum("nkd,nd->nk", loop, plane_normal) - offset[:, None]
    points = loop - 0.5 * sep[..., None] * normal[:, None, :]
    t1, t2 = plane_basis(normal)
    q = np.stack([(points * t1[:, None, :]).sum(-1), (points * t2[:, None, :]).sum(-1)], axis=-1)
    valid = np.arange(loop.shape[1])[None, :] < count[:, None]
    out, count = points_in_slots(points, sep, ids, reduce_to_four(q, sep, valid))
    out.count[:] = count
    return out


def manifold_ball_hull(center: F64, radius: F64, verts: F64, normals: F64, normal: F64,
                       depth: F64) -> ManifoldArrays:
    """One point per pair: halfway between the sphere's deepest point and the hull's surface.

    Parameters
    ----------
    center : ndarray, shape (N, 3)
    radius : ndarray, shape (N,)
    verts, normals : ndarray
        The hulls, as in :func:`manifold_halfspace_hull`.
    normal : ndarray, shape (N, 3)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays
        Separation ``-depth``; id ``0 << 32 | the hull's feature along -n``.

    Examples
    --------
    >>> import itertools
    >>> import numpy as np
    >>> from collideworld import ConvexHull
    >>> cube = ConvexHull(list(itertools.product((-1, 1), repeat=3)))
    >>> m = manifold_ball_hull(np.array([[0.0, 0.0, 1.5]]), np.ones(1), np.asarray(cube.vertices)[None],
    ...                        np.asarray(cube.normals)[None], np.array([[0.0, 0.0, -1.0]]), np.array([0.5]))
    >>> m.points[0, 0].tolist(), float(m.separations[0, 0])
    ([0.0, 0.0, 0.75], -0.5)
    """
    code = hull_feature(verts, normals, -normal)[4]
    return manifold_single_point(center + radius[:, None] * normal, normal, -depth, code)


def manifold_box_hull(center: F64, rotation: F64, half: F64, verts: F64, normals: F64, normal: F64,
                      depth: F64) -> ManifoldArrays:
    """Contact points of oriented boxes (a) against hulls (b): their features clipped along n.

    Parameters
    ----------
    center : ndarray, shape (N, 3)
    rotation : ndarray, shape (N, 3, 3)
    half : ndarray, shape (N, 3)
    verts, normals : ndarray
        The hulls, as in :func:`manifold_halfspace_hull`.
    normal : ndarray, shape (N, 3)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    A cube-shaped hull on a 10 x 10 slab, over its edge at x = 5 by half its width:

    >>> import itertools
    >>> import numpy as np
    >>> from collideworld import ConvexHull
    >>> cube = ConvexHull(list(itertools.product((-1, 1), repeat=3)))
    >>> m = manifold_box_hull(np.zeros((1, 3)), np.eye(3)[None], np.array([[5.0, 5.0, 1.0]]),
    ...                       np.asarray(cube.vertices)[None] + [5, 0, 2], np.asarray(cube.normals)[None],
    ...                       np.array([[0.0, 0.0, 1.0]]), np.zeros(1))
    >>> int(m.count[0]), sorted(m.points[0].tolist())
    (4, [[4.0, -1.0, 1.0], [4.0, 1.0, 1.0], [5.0, -1.0, 1.0], [5.0, 1.0, 1.0]])
    """
    fa = _box_loop(center, rotation, half, normal)
    fb = hull_feature(verts, normals, -normal)
    return manifold_loops_3d(fa, fb, normal, np.maximum(_scale(center, half), _scale(verts)), hull_b=(verts, normals))


def manifold_capsule_hull(p0: F64, p1: F64, radius: F64, verts: F64, normals: F64, normal: F64,
                          depth: F64) -> ManifoldArrays:
    """Contact points of capsules or segments (a) against hulls (b): the core segment clipped, then grown.

    Up to two points per pair: a segment has at most two ends over the
    hull's feature, and crosses the edges of a face at most twice.

    Parameters
    ----------
    p0, p1 : ndarray, shape (N, 3)
        The capsules' core segments.
    radius : ndarray, shape (N,)
        Their radii (0 for a segment).
    verts, normals : ndarray
        The hulls, as in :func:`manifold_halfspace_hull`.
    normal : ndarray, shape (N, 3)
        Contact normals, from the capsule to the hull.
    depth : ndarray, shape (N,)
        Contact depths: used only where the features do not overlap seen
        along n (the contact is not between them: a deep one, whose normal
        came from elsewhere), which get one point as a sphere at the
        segment's first feature corner would (:func:`manifold_ball_hull`).

    Returns
    -------
    ManifoldArrays
        Ids ``segment feature << 32 | hull feature``.

    Examples
    --------
    A capsule of radius 0.5 lying under a cube-shaped hull, across its
    bottom face's edge at x = -1: the points are under x = -1 and x = 1.

    >>> import itertools
    >>> import numpy as np
    >>> from collideworld import ConvexHull
    >>> cube = ConvexHull(list(itertools.product((-1, 1), repeat=3)))
    >>> m = manifold_capsule_hull(np.array([[-3.0, 0.0, -1.5]]), np.array([[1.0, 0.0, -1.5]]), np.array([0.5]),
    ...                           np.asarray(cube.vertices)[None], np.asarray(cube.normals)[None],
    ...                           np.array([[0.0, 0.0, 1.0]]), np.zeros(1))
    >>> int(m.count[0]), sorted(m.points[0, :2].tolist())
    (2, [[-1.0, 0.0, -1.0], [1.0, 0.0, -1.0]])
    """
    fa = _segment_loop(p0, p1, normal)
    fb = hull_feature(verts, normals, -normal)
    m = manifold_loops_3d(fa, fb, normal, np.maximum(_scale(p0, p1, radius), _scale(verts)), grazing=False,
                          hull_b=(verts, normals))
    # no overlap seen along n: the first corners' midpoint (the other kernels' choice) may lie
    # far off the capsule, so the point under the core's corner as for a sphere of radius r,
    # which is within depth / 2 of the capsule (written before the radius shift below)
    none = np.flatnonzero(m.count == 0)
    if len(none):
        sep0 = radius[none] - depth[none]
        m.points[none, 0] = fa[0][none, 0] + (0.5 * sep0)[:, None] * normal[none]
        m.separations[none, 0] = sep0
        m.ids[none, 0] = feature_ids(fa[4][none], fb[4][none])
        m.count[none] = 1
    return round_manifold(m, normal, radius, 0.0)


def manifold_hull_hull(verts_a: F64, normals_a: F64, verts_b: F64, normals_b: F64, normal: F64,
                       depth: F64) -> ManifoldArrays:
    """Contact points of hulls (a) against hulls (b): reference and incident features clipped along n.

    Parameters
    ----------
    verts_a, normals_a : ndarray
        Hulls a, as in :func:`manifold_halfspace_hull`.
    verts_b, normals_b : ndarray
        Hulls b.
    normal : ndarray, shape (N, 3)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    A cube-shaped hull resting on another, turned 45 degrees about z: the
    touching region is an octagon, reduced to four of its corners.

    >>> import itertools
    >>> import numpy as np
    >>> from collideworld import ConvexHull
    >>> cube = ConvexHull(list(itertools.product((-1, 1), repeat=3)))
    >>> v = np.asarray(cube.vertices)
    >>> c, s = np.cos(np.pi / 4), np.sin(np.pi / 4)
    >>> turned = v @ np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]).T + [0, 0, 2]
    >>> m = manifold_hull_hull(v[None], np.asarray(cube.normals)[None], turned[None],
    ...                        np.asarray(cube.normals)[None] @ np.array([[c, s, 0], [-s, c, 0], [0, 0, 1]]),
    ...                        np.array([[0.0, 0.0, 1.0]]), np.zeros(1))
    >>> int(m.count[0]), np.round(m.points[0, :, 2], 12).tolist()
    (4, [1.0, 1.0, 1.0, 1.0])
    """
    fa = hull_feature(verts_a, normals_a, normal)
    fb = hull_feature(verts_b, normals_b, -normal)
    return manifold_loops_3d(fa, fb, normal, np.maximum(_scale(verts_a), _scale(verts_b)),
                             hull_a=(verts_a, normals_a), hull_b=(verts_b, normals_b))
