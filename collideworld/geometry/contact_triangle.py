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

from .contact_halfspace_polygon import contact_halfspace_points
from .contact_hull import contact_polytopes, sat_polytopes
from .kernel_support import finish, pair_scale
from .result import ContactArrays

__all__ = ["triangle_polytope", "contact_polytope_triangle", "contact_halfspace_triangle",
           "contact_triangle_triangle", "no_snag"]

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
    res = finish(certified, axis, scale)
    rest = np.flatnonzero(~((best >= 0.0) | (certified < -SAT_REJECT * scale)))
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
    Two triangles crossing like the blades of scissors touch; moved 1 apart, they do not:

    >>> import numpy as np
    >>> a = np.array([[[-1.0, -1, 0], [1.0, -1, 0], [0.0, 1, 0]]] * 2)
    >>> b = np.array([[[0.0, 0, -0.5], [0.0, 0, 0.5], [0.0, 2, 0]], [[0.0, 0, 0.5], [0.0, 0, 1.5], [0.0, 2, 1]]])
    >>> act = np.ones((2, 3), dtype=bool)
    >>> contact_triangle_triangle(a, act, b, act).hit.tolist()
    [True, False]
    """
    n = len(tri_a)
    face_a, edges_a = triangle_polytope(tri_a)
    res = contact_polytope_triangle(tri_a, face_a, edges_a, np.zeros(n), tri_b, active_b)
    flipped = no_snag(ContactArrays(res.hit, -res.normal, res.depth), tri_a, active_a, tri_b, np.zeros(n))
    return ContactArrays(flipped.hit, -flipped.normal + 0.0, flipped.depth)
