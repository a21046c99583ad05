"""Contacts of triangles (of meshes and heightfields) with the 3D kinds, and the no-snag rule.

A triangle is a flat convex polytope: three vertices, one face normal (the
SAT of :func:`~collideworld.geometry.contact_hull.contact_polytopes` tries
each axis both ways, so +n and -n are one axis) and three edges. Every
finite 3D kind met by a triangle is a polytope grown by a radius (a sphere a
point, a capsule a segment, a box or hull itself), so one call to
``contact_polytopes`` serves every pair; the SAT is exact for flat
polytopes too (the face normals of the Minkowski difference are still among
the axes tried: Ericson, RTCD 5.2.1).

The no-snag rule (Bullet's btInternalEdgeUtility; Jolt's "active edges"):
an edge shared by two coplanar triangles is *inactive* (precomputed by the
shape, ``TriangleMesh.active``). A contact whose normal is not the face
normal comes from an edge or a vertex of the triangle, the triangle's
extreme feature towards the other shape; where that edge is inactive (a
vertex: both its edges are), the normal is replaced by the face normal
(turned towards the other shape) and the depth is measured along it. A body
sliding over a flat mesh thus never catches on a seam.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .capsule_support import closest_segment_segment, dot
from .contact_halfspace_polygon import contact_halfspace_points
from .contact_hull import contact_polytopes, sat_polytopes
from .kernel_support import finish, pair_scale
from .result import ContactArrays

__all__ = ["triangle_polytope", "contact_polytope_triangle", "contact_halfspace_triangle",
           "contact_triangle_triangle", "no_snag", "closest_point_triangle", "closest_segment_triangle"]

F64 = NDArray[np.float64]

#: |cos| of the angle between a contact normal and a face normal above which the contact is a face contact.
FACE_COS = 1.0 - 1e-9
#: A SAT axis separating a pair by more than this fraction of its scale decides a miss without GJK.
SAT_REJECT = 1e-9


def triangle_polytope(tri: F64) -> tuple[F64, F64]:
    """(unit face normal (N, 1, 3), edge vectors (N, 3, 3)) of triangles (N, 3, 3); edge k runs vertex k -> k + 1.

    Examples
    --------
    >>> import numpy as np
    >>> n, e = triangle_polytope(np.array([[[0.0, 0, 0], [1.0, 0, 0], [0.0, 1.0, 0]]]))
    >>> n.tolist(), e[0, 0].tolist()
    ([[[0.0, 0.0, 1.0]]], [1.0, 0.0, 0.0])
    """
    edges = np.roll(tri, -1, axis=1) - tri
    cross = np.cross(edges[:, 0], -edges[:, 2])
    normal = cross / np.linalg.norm(cross, axis=1)[:, None] + 0.0  # (+0.0: no -0.0 components)
    return normal[:, None, :], edges


def closest_point_triangle(p: F64, tri: F64) -> F64:
    """The closest points (N, 3) of triangles ``tri`` (N, 3, 3) to points ``p`` (N, 3).

    The Voronoi regions of the triangle's features, tried in the order of
    Ericson, *Real-Time Collision Detection*, 5.1.5 (vertex a, vertex b, edge
    ab, vertex c, edge ac, edge bc, the face), each decided by signs of dot
    products of the edges with ``p`` minus a vertex; the first region that
    holds ``p`` gives the point. The compiled twin takes the same steps.

    Examples
    --------
    >>> import numpy as np
    >>> tri = np.array([[[0.0, 0, 0], [2.0, 0, 0], [0.0, 2.0, 0]]] * 3)
    >>> closest_point_triangle(np.array([[0.5, 0.5, 3.0], [-1.0, -1.0, 1.0], [2.0, 2.0, 0.0]]), tri).tolist()
    [[0.5, 0.5, 0.0], [0.0, 0.0, 0.0], [1.0, 1.0, 0.0]]
    """
    return _closest_regions(p, tri)[0]


def _closest_regions(p: F64, tri: F64) -> tuple[F64, NDArray[np.bool_]]:
    """:func:`closest_point_triangle`, and whether each point is in the face's region (over the inside)."""
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    ab, ac = b - a, c - a
    ap, bp, cp = p - a, p - b, p - c
    d1, d2 = dot(ab, ap), dot(ac, ap)
    d3, d4 = dot(ab, bp), dot(ac, bp)
    d5, d6 = dot(ab, cp), dot(ac, cp)
    va, vb, vc = d3 * d6 - d5 * d4, d5 * d2 - d1 * d6, d1 * d4 - d3 * d2
    in_a = (d1 <= 0.0) & (d2 <= 0.0)
    in_b = (d3 >= 0.0) & (d4 <= d3)
    in_ab = (vc <= 0.0) & (d1 >= 0.0) & (d3 <= 0.0)
    in_c = (d6 >= 0.0) & (d5 <= d6)
    in_ac = (vb <= 0.0) & (d2 >= 0.0) & (d6 <= 0.0)
    in_bc = (va <= 0.0) & (d4 - d3 >= 0.0) & (d5 - d6 >= 0.0)
    # the divisors of the regions not taken may be 0: 1.0 in their place (the value is discarded)
    face_sum = va + vb + vc
    inv = 1.0 / np.where(face_sum != 0.0, face_sum, 1.0)
    q = a + ab * (vb * inv)[:, None] + ac * (vc * inv)[:, None]
    den = (d4 - d3) + (d5 - d6)
    q = np.where(in_bc[:, None], b + (c - b) * ((d4 - d3) / np.where(in_bc, den, 1.0))[:, None], q)
    den = d2 - d6
    q = np.where(in_ac[:, None], a + ac * (d2 / np.where(in_ac, den, 1.0))[:, None], q)
    q = np.where(in_c[:, None], c, q)
    den = d1 - d3
    q = np.where(in_ab[:, None], a + ab * (d1 / np.where(in_ab, den, 1.0))[:, None], q)
    q = np.where(in_b[:, None], b, q)
    out: F64 = np.where(in_a[:, None], a, q)
    return out, ~(in_a | in_b | in_ab | in_c | in_ac | in_bc)


def closest_segment_triangle(p0: F64, p1: F64, tri: F64) -> tuple[F64, F64]:
    """Closest points ``(on the segments, on the triangles)``, each (N, 3), of segments p0-p1 and triangles (N, 3, 3).

    The candidates, in this order, the first nearest kept: each end against
    the triangle (:func:`closest_point_triangle`), the segment against each
    edge (``capsule_support.closest_segment_segment``), and where the ends
    lie strictly on opposite sides of the triangle's plane, the segment's
    crossing point against the triangle (0 apart when it crosses inside).
    A segment meeting the triangle meets it at an edge, an end, or through
    the face; otherwise the closest pair has an end or an edge point on it
    (Ericson, RTCD 5.1.10): so the least of these is the distance.

    Examples
    --------
    >>> import numpy as np
    >>> tri = np.array([[[0.0, 0, 0], [2.0, 0, 0], [0.0, 2.0, 0]]] * 2)
    >>> p, q = closest_segment_triangle(np.array([[0.5, 0.5, 1.0], [3.0, 3.0, -1.0]]),
    ...                                 np.array([[0.5, 0.5, -1.0], [3.0, 3.0, 1.0]]), tri)
    >>> p.tolist(), q.tolist()
    ([[0.5, 0.5, 0.0], [3.0, 3.0, 0.0]], [[0.5, 0.5, 0.0], [1.0, 1.0, 0.0]])
    """
    p, q, _ = _segment_regions(p0, p1, tri)
    return p, q


def _segment_regions(p0: F64, p1: F64, tri: F64) -> tuple[F64, F64, NDArray[np.bool_]]:
    """:func:`closest_segment_triangle`, and whether the point on the triangle is in the face's region."""
    seg = p1 - p0
    best_p = p0
    best_q, best_face = _closest_regions(p0, tri)
    best = dot(best_q - best_p, best_q - best_p)
    no = np.zeros(len(p0), dtype=bool)

    def keep(pc: F64, qc: F64, face: NDArray[np.bool_]) -> None:
        nonlocal best_p, best_q, best, best_face
        d = dot(qc - pc, qc - pc)
        take = d < best
        best = np.where(take, d, best)
        best_p = np.where(take[:, None], pc, best_p)
        best_q = np.where(take[:, None], qc, best_q)
        best_face = np.where(take, face, best_face)

    keep(p1, *_closest_regions(p1, tri))
    for k in range(3):
        e0 = tri[:, k]
        de = tri[:, (k + 1) % 3] - e0
        s, t = closest_segment_segment(p0, seg, e0, de)
        keep(p0 + seg * s[:, None], e0 + de * t[:, None], no)
    ab, ac = tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
    n = np.cross(ab, ac)
    h0, h1 = dot(p0 - tri[:, 0], n), dot(p1 - tri[:, 0], n)
    cross = ((h0 < 0.0) & (h1 > 0.0)) | ((h0 > 0.0) & (h1 < 0.0))
    if cross.any():
        x = p0 + seg * (h0 / np.where(cross, h0 - h1, 1.0))[:, None]
        qx, fx = _closest_regions(x, tri)
        d = dot(qx - x, qx - x)
        take = cross & (d < best)
        best_p = np.where(take[:, None], x, best_p)
        best_q = np.where(take[:, None], qx, best_q)
        best_face = np.where(take, fx, best_face)
    return best_p, best_q, best_face


def _closed_form(verts: F64, radius: F64, tri: F64, face: F64, best: F64, axis: F64, scale: F64,
                 rows: NDArray[np.int64]) -> tuple[F64, F64]:
    """Signed depths and normals of the sphere (one vertex) or capsule (two) ``rows`` by the closest points.

    Where the closest points are more than 1e-9 of the scale apart: depth
    ``r - d`` along them (exact, as GJK's converged answer would be). Else
    the SAT's axis, with its exact penetration where the cores overlap, or
    depth ``r - d``, or the SAT's gap where that proves a wider one (as
    ``contact_hull.contact_polytopes``). A sphere's centre in
    the triangle's plane (or a capsule's segment) overlaps it on the one
    face axis whether or not it meets the triangle, so the closed form, not
    the SAT, decides those rows too.
    """
    v, t, fn = verts[rows], tri[rows], face[rows]
    if verts.shape[1] == 1:
        p = v[:, 0]
        q, in_face = _closest_regions(p, t)
    else:
        p, q, in_face = _segment_regions(v[:, 0], v[:, 1], t)
    diff = q - p
    dist = np.sqrt(dot(diff, diff))
    # over the face the pair is apart along the face normal: its height, and the unit normal itself
    # (not the difference of two rounded points, a few ulps off the normal)
    height = dot(p - t[:, 0], fn)
    dist = np.where(in_face, np.abs(height), dist)
    diff = np.where(in_face[:, None], fn * np.where(height > 0.0, -1.0, 1.0)[:, None], diff)
    dist_div = np.where(in_face, 1.0, dist)
    sc = scale[rows]
    r = radius[rows]
    apart = dist > 1e-9 * sc
    signed = r - dist
    certified = r + best[rows]
    # touching or crossing: the SAT's exact penetration where the cores overlap, else its gap where
    # that proves a wider one
    signed = np.where(~apart & ((best[rows] >= 0.0) | (certified < signed - 2e-13 * sc)), certified, signed)
    normal = np.where(apart[:, None], diff / np.where(apart, dist_div, 1.0)[:, None], axis[rows])
    return signed, normal + 0.0


def no_snag(res: ContactArrays, tri: F64, active: NDArray[np.bool_], verts: F64, radius: F64) -> ContactArrays:
    """Apply the no-snag rule to contacts of shapes (a: polytopes ``verts`` grown by ``radius``) with triangles (b).

    Parameters
    ----------
    res : ContactArrays
        The contacts, normal from a towards the triangle.
    tri : ndarray, shape (N, 3, 3)
        The triangles' world vertices.
    active : ndarray of bool, shape (N, 3)
        Edge k's flag (vertex k to k + 1).
    verts : ndarray, shape (N, K, 3)
    radius : ndarray, shape (N,)

    Returns
    -------
    ContactArrays
        Rows whose normal came from an inactive edge or vertex get the face
        normal and the depth along it; the hit decisions are unchanged.

    Examples
    --------
    A unit sphere over the inner edge x = 1 of a flat strip, its centre 0.2
    beyond it and 0.9 up: the edge's own normal leans over; with the edge
    inactive the contact gets the face normal and the depth along it, 0.1.

    >>> import numpy as np
    >>> tri = np.array([[[0.0, 0, 0], [1.0, 0, 0], [1.0, 1.0, 0]]])
    >>> c = np.array([[1.2, 0.5, 0.9]])
    >>> gap = np.hypot(0.2, 0.9)
    >>> res = ContactArrays(np.array([True]), -(c - [1.0, 0.5, 0.0]) / gap, np.array([1.0 - gap]))
    >>> out = no_snag(res, tri, np.array([[True, False, True]]), c[:, None, :], np.ones(1))
    >>> out.normal.tolist(), round(float(out.depth[0]), 12)
    ([[0.0, 0.0, -1.0]], 0.1)
    """
    hit, normal, depth = res
    fn = triangle_polytope(tri)[0][:, 0, :]
    toward = -normal  # from the triangle towards a
    cos = np.einsum("ni,ni->n", fn, toward)
    rows = np.flatnonzero(hit & (np.abs(cos) < FACE_COS) & ~active.all(axis=1))
    if not len(rows):
        return res
    t, m = tri[rows], toward[rows]
    height = np.einsum("nki,ni->nk", t, m)
    scale = np.abs(t).max(axis=(1, 2)) + np.abs(verts[rows]).max(axis=(1, 2)) + radius[rows]
    on = height >= height.max(axis=1)[:, None] - 1e-9 * scale[:, None]
    nxt = np.roll(on, -1, axis=1)
    act = active[rows]
    prev_act = np.roll(act, 1, axis=1)  # vertex k lies on edges k - 1 and k
    count = on.sum(axis=1)
    edge_feature = on & nxt  # edge k is the feature (both its ends extreme)
    edge_active = (edge_feature & act).any(axis=1)
    vertex_active = (on & (act | prev_act)).any(axis=1)
    keep = np.where(count == 2, edge_active, np.where(count == 1, vertex_active, True))
    fix = ~keep
    if not fix.any():
        return res
    r = rows[fix]
    c = cos[r]
    # the side a lies on: the sign of the original normal's face component, else a's centre
    centre = verts[r].mean(axis=1) - tri[r].mean(axis=1)
    side = np.where(c != 0.0, np.sign(c), np.where(np.einsum("ni,ni->n", centre, fn[r]) < 0.0, -1.0, 1.0))
    face = fn[r] * side[:, None]
    lowest = np.einsum("nki,ni->nk", verts[r], face).min(axis=1) - radius[r]
    new_depth = np.maximum(np.einsum("ni,ni->n", tri[r, 0], face) - lowest, 0.0)
    normal = normal.copy()
    depth = depth.copy()
    normal[r] = -face + 0.0
    depth[r] = new_depth
    return ContactArrays(hit, normal, depth)


def _round_core(verts: F64, normals: F64, edges: F64) -> bool:
    """Whether the rows are spheres (a point) or capsules (a segment): no faces, one vertex or two."""
    return bool(normals.shape[1] == 0 and (verts.shape[1] == 1 and edges.shape[1] == 0
                                           or verts.shape[1] == 2 and edges.shape[1] == 1))


def contact_polytope_triangle(verts: F64, normals: F64, edges: F64, radius: F64, tri: F64,
                              active: NDArray[np.bool_]) -> ContactArrays:
    """Contacts of N grown polytopes (a, as ``contact_polytopes`` takes them) with N triangles (b).

    Examples
    --------
    A unit sphere 0.75 above a triangle's inner point sinks 0.25 into it; the
    normal (a towards b) points down:

    >>> import numpy as np
    >>> tri = np.array([[[0.0, 0, 0], [2.0, 0, 0], [0.0, 2.0, 0]]])
    >>> c = contact_polytope_triangle(np.array([[[0.5, 0.5, 0.75]]]), np.zeros((1, 0, 3)), np.zeros((1, 0, 3)),
    ...                               np.ones(1), tri, np.ones((1, 3), dtype=bool))
    >>> bool(c.hit[0]), round(float(c.depth[0]), 12), c.normal[0].tolist()
    (True, 0.25, [0.0, 0.0, -1.0])
    """
    face, tedges = triangle_polytope(tri)
    # the SAT first (13 axes for a box, the face normal alone for a sphere): where the cores overlap
    # it gives the exact penetration (what contact_polytopes' SAT would), and where an axis separates
    # the shapes by more than 1e-9 of their scale the pair misses whatever GJK would say (a separating
    # axis is a lower bound of the distance, far beyond the touching tolerance); GJK only for the rest
    ref = verts[:, :1, :]
    best, axis = sat_polytopes(verts - ref, normals, edges, tri - ref, face, tedges)
    scale = pair_scale(verts, tri, radius)
    certified = radius + best
    signed = certified
    rest = np.flatnonzero(~((best >= 0.0) | (certified < -SAT_REJECT * scale)))
    if _round_core(verts, normals, edges):
        # a sphere or a capsule: the closest points in closed form instead of GJK, and also where the
        # SAT's axes (all parallel to the face normal for a core in the triangle's plane) say overlap
        rows = np.flatnonzero(certified >= -SAT_REJECT * scale)
        if len(rows):
            signed = signed.copy()
            axis = axis.copy()
            signed[rows], axis[rows] = _closed_form(verts, radius, tri, face[:, 0], best, axis, scale, rows)
        return no_snag(finish(signed, axis, scale), tri, active, verts, radius)
    res = finish(certified, axis, scale)
    if len(rest):
        sub = contact_polytopes(verts[rest], normals[rest], edges[rest], radius[rest], tri[rest], face[rest],
                                tedges[rest], np.zeros(len(rest)))
        res.hit[rest], res.normal[rest], res.depth[rest] = sub
    return no_snag(res, tri, active, verts, radius)


def contact_halfspace_triangle(normal: F64, offset: F64, tri: F64) -> ContactArrays:
    """Half-spaces (a) against triangles (b): the lowest vertex (a plane has no inner edges to snag on).

    Examples
    --------
    >>> import numpy as np
    >>> c = contact_halfspace_triangle(np.array([[0.0, 0, 1]]), np.zeros(1),
    ...                                np.array([[[0.0, 0, -0.5], [1.0, 0, 1], [0.0, 1, 1]]]))
    >>> bool(c.hit[0]), float(c.depth[0])
    (True, 0.5)
    """
    return contact_halfspace_points(normal, offset, tri)


def contact_triangle_triangle(tri_a: F64, active_a: NDArray[np.bool_], tri_b: F64,
                              active_b: NDArray[np.bool_]) -> ContactArrays:
    """Contacts of N pairs of triangles (mesh against mesh); the no-snag rule applies on both sides.

    Examples
    --------
    Two triangles crossing like the blades of scissors touch; moved 1 apart, they do not; two
    triangles in one plane 0.4 apart do not either:

    >>> import numpy as np
    >>> a = np.array([[[-1.0, -1, 0], [1.0, -1, 0], [0.0, 1, 0]]] * 2)
    >>> b = np.array([[[0.0, 0, -0.5], [0.0, 0, 0.5], [0.0, 2, 0]], [[0.0, 0, 0.5], [0.0, 0, 1.5], [0.0, 2, 1]]])
    >>> act = np.ones((2, 3), dtype=bool)
    >>> contact_triangle_triangle(a, act, b, act).hit.tolist()
    [True, False]
    >>> flat = np.array([[[0.0, 0, 0], [1.0, 0, 0], [0.0, 1, 0]]])
    >>> contact_triangle_triangle(flat, act[:1], flat + [1.4, 0.0, 0.0], act[:1]).hit.tolist()
    [False]
    """
    n = len(tri_a)
    face_a, edges_a = triangle_polytope(tri_a)
    # two triangles in one plane: every edge x edge axis is the plane's normal, on which they overlap by 0
    # wherever they lie in it; their in-plane edge normals (the 2D SAT's axes: plane normal x each edge of
    # either) are added as axes of a. An axis more never lowers the least overlap below the true one (the
    # overlap along any direction is at least the penetration), so other pairs keep their answers.
    inplane = np.cross(face_a, np.concatenate([edges_a, np.roll(tri_b, -1, axis=1) - tri_b], axis=1))
    length = np.linalg.norm(inplane, axis=2, keepdims=True)
    inplane = inplane / np.where(length > 0.0, length, 1.0)
    axes = np.concatenate([face_a, inplane], axis=1)
    res = contact_polytope_triangle(tri_a, axes, edges_a, np.zeros(n), tri_b, active_b)
    flipped = no_snag(ContactArrays(res.hit, -res.normal, res.depth), tri_a, active_a, tri_b, np.zeros(n))
    return ContactArrays(flipped.hit, -flipped.normal + 0.0, flipped.depth)
