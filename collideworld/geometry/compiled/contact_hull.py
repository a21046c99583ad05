"""Compiled twins of ``geometry/contact_hull.py``: spheres, boxes, capsules and hulls against convex hulls.

As in the numpy twin, each shape is a convex polytope grown by a radius (a
sphere a point, a capsule a segment, a box or hull with radius 0), and one
row routine, :func:`_polytope_row`, serves every pair. Per row::

    d = GJK distance of the two polytopes (geometry/gjk.gjk_closest)
    if d > 1e-9 * scale:  depth = r_a + r_b - d, along the closest points' line
    else, SAT over the faces of the Minkowski difference A - B:
        a's faces:   overlap = n . (a vertex of the face) - min over b of n . v
        b's faces:   overlap = m . (a vertex of the face) - min over a of m . v   (normal -m)
        edge pairs that span a face (Gregorius, "The Separating Axis Test
        between Convex Polyhedra", GDC 2013: their arcs cross on the Gauss
        map; for a capsule's segment, b's edge arc crosses the segment's
        great circle), axis L = e_a x e_b pointing out of a's edge:
                     overlap = L . (point of e_a - point of e_b) / |L|
        depth = r_a + r_b + least overlap, along its axis

The overlaps are closed forms (one dot product per axis), not projections of
every vertex: for a face of A - B the supports of both polytopes are the
features that made it. Only nearly parallel edge pairs (sine below 1e-3, where
the cross product's direction is too rough for the closed form) are measured
by projecting every vertex, both ways, as the numpy twin measures every axis.
That is why the twins agree to rounding (about 1e-15 of the pair's size), not
to the bit. Cost per overlapping hull pair: O(F_a V_b + F_b V_a + E_a E_b)
arithmetic and no allocation (numpy: the same counts, but as (N, M, V) temporaries).

NOTE: numba's on-disk cache of these kernels does not notice edits to
:mod:`collideworld.geometry.gjk`; delete ``*.nbi`` / ``*.nbc`` after editing it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..gjk import gjk_closest
from ..result import ContactArrays
from .kernel_support import as_rows, contact_outputs, touch_rule

__all__ = ["contact_ball_hull", "contact_box_hull", "contact_capsule_hull", "contact_hull_hull"]

I64 = NDArray[np.int64]
F64 = NDArray[np.float64]

# A box as a polytope. Corner c has bit 2 (x), 1 (y), 0 (z) set on the + side
# of that axis (the order of the numpy twin's corners); face 2k is +axis k,
# face 2k + 1 is -axis k.
_BOX_FACE_VERTEX = np.array([4, 0, 2, 0, 1, 0], dtype=np.int64)
_BOX_EDGES = np.zeros((12, 2), dtype=np.int64)
_BOX_EDGE_FACES = np.zeros((12, 2), dtype=np.int64)
for _k in range(3):
    _j, _l = (_k + 1) % 3, (_k + 2) % 3
    for _q, (_sj, _sl) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
        _lo = (_sj << (2 - _j)) | (_sl << (2 - _l))
        _BOX_EDGES[4 * _k + _q] = (_lo, _lo | (1 << (2 - _k)))
        _BOX_EDGE_FACES[4 * _k + _q] = (2 * _j + (1 - _sj), 2 * _l + (1 - _sl))
_SEGMENT_EDGE = np.array([[0, 1]], dtype=np.int64)
_NO_INDEX = np.zeros((1, 2), dtype=np.int64)
_NO_FACE = np.zeros(1, dtype=np.int64)

#: Below this squared sine, an edge pair's axis is measured by projecting every vertex.
_ROUGH_SIN2 = 1e-6


@njit(cache=True)
def _project_overlap(world: F64, na: int, nb: int, lx: float, ly: float, lz: float) -> tuple[float, float]:
    """(least overlap along +-L, its sign: +1 when b lies along +L) by projecting every vertex."""
    amax = -math.inf
    amin = math.inf
    for k in range(na):
        s = world[k, 0] * lx + world[k, 1] * ly + world[k, 2] * lz
        amax = max(amax, s)
        amin = min(amin, s)
    bmax = -math.inf
    bmin = math.inf
    for k in range(na, na + nb):
        s = world[k, 0] * lx + world[k, 1] * ly + world[k, 2] * lz
        bmax = max(bmax, s)
        bmin = min(bmin, s)
    up = amax - bmin
    down = bmax - amin
    if down < up:
        return down, -1.0
    return up, 1.0


@njit(cache=True)
def _polytope_row(va: F64, nva: int, fna: F64, fva: I64, nfa: int, eea: I64, efa: I64, nea: int, segment_a: bool,
                  ra: float, vb: F64, nvb: int, fnb: F64, fvb: I64, nfb: int, eeb: I64, efb: I64, neb: int,
                  rb: float, rule: tuple[float, float], i: int, world: F64, ws: F64, gout: F64,
                  hit: NDArray[np.bool_], normal: F64, depth: F64) -> None:
    """Row ``i``: polytope a (``nva`` vertices ``va``, faces, edges; grown by ``ra``) against b.

    A polytope is its vertices (V, 3), unit face normals (F, 3) with a vertex
    of each face (F,), and edges as vertex pairs (E, 2) with the two faces
    beside each (E, 2); ``segment_a``: a's one edge is a bare segment (no
    faces), pruned against b's edges by its great circle. ``world`` (at least
    ``nva + nvb``, 3), ``ws`` (16, 4) and ``gout`` (9,) are scratch.
    """
    # everything relative to a's first vertex, as the numpy twin (rounding then scales with the pair)
    ox = va[0, 0]
    oy = va[0, 1]
    oz = va[0, 2]
    scale = max(abs(ra), abs(rb))
    for k in range(nva):
        world[k, 0] = va[k, 0] - ox
        world[k, 1] = va[k, 1] - oy
        world[k, 2] = va[k, 2] - oz
        scale = max(scale, abs(va[k, 0]), abs(va[k, 1]), abs(va[k, 2]))
    for k in range(nvb):
        world[nva + k, 0] = vb[k, 0] - ox
        world[nva + k, 1] = vb[k, 1] - oy
        world[nva + k, 2] = vb[k, 2] - oz
        scale = max(scale, abs(vb[k, 0]), abs(vb[k, 1]), abs(vb[k, 2]))
    radius = ra + rb
    dist = gjk_closest(world, 0, nva, nva, nvb, ws, gout)
    nx = 1.0
    ny = 0.0
    nz = 0.0
    if dist > 0.0:
        nx = (gout[3] - gout[0]) / dist
        ny = (gout[4] - gout[1]) / dist
        nz = (gout[5] - gout[2]) / dist
    signed = radius - dist
    if dist <= 1e-9 * scale:
        best = math.inf
        bx = 1.0
        by = 0.0
        bz = 0.0
        # a's faces: b lies along +n
        for f in range(nfa):
            fx = fna[f, 0]
            fy = fna[f, 1]
            fz = fna[f, 2]
            v = fva[f]
            top = fx * world[v, 0] + fy * world[v, 1] + fz * world[v, 2]
            low = math.inf
            for k in range(nva, nva + nvb):
                low = min(low, fx * world[k, 0] + fy * world[k, 1] + fz * world[k, 2])
            over = top - low
            if over < best:
                best = over
                bx = fx
                by = fy
                bz = fz
        # b's faces: a lies along +m, so the normal from a to b is -m
        for f in range(nfb):
            fx = fnb[f, 0]
            fy = fnb[f, 1]
            fz = fnb[f, 2]
            v = nva + fvb[f]
            top = fx * world[v, 0] + fy * world[v, 1] + fz * world[v, 2]
            low = math.inf
            for k in range(nva):
                low = min(low, fx * world[k, 0] + fy * world[k, 1] + fz * world[k, 2])
            over = top - low
            if over < best:
                best = over
                bx = -fx
                by = -fy
                bz = -fz
        # edge pairs
        for ia in range(nea):
            a0 = eea[ia, 0]
            a1 = eea[ia, 1]
            if a0 == a1:
                continue
            ex = world[a1, 0] - world[a0, 0]
            ey = world[a1, 1] - world[a0, 1]
            ez = world[a1, 2] - world[a0, 2]
            ee = ex * ex + ey * ey + ez * ez
            if not ee > 0.0:
                continue
            # a's arc (n1 -> n2) on the Gauss map, and b x a = n2 x n1
            p1x = p1y = p1z = p2x = p2y = p2z = 0.0
            qx = qy = qz = 0.0
            if not segment_a:
                p1x = fna[efa[ia, 0], 0]
                p1y = fna[efa[ia, 0], 1]
                p1z = fna[efa[ia, 0], 2]
                p2x = fna[efa[ia, 1], 0]
                p2y = fna[efa[ia, 1], 1]
                p2z = fna[efa[ia, 1], 2]
                qx = p2y * p1z - p2z * p1y
                qy = p2z * p1x - p2x * p1z
                qz = p2x * p1y - p2y * p1x
            for jb in range(neb):
                b0 = eeb[jb, 0]
                b1 = eeb[jb, 1]
                if b0 == b1:
                    continue
                # b's arc, negated (the Gauss map of -B): c = -m1, d = -m2
                cx = -fnb[efb[jb, 0], 0]
                cy = -fnb[efb[jb, 0], 1]
                cz = -fnb[efb[jb, 0], 2]
                dx = -fnb[efb[jb, 1], 0]
                dy = -fnb[efb[jb, 1], 1]
                dz = -fnb[efb[jb, 1], 2]
                if segment_a:
                    # the segment's Gauss image is the great circle normal to it
                    if not (ex * cx + ey * cy + ez * cz) * (ex * dx + ey * dy + ez * dz) < 0.0:
                        continue
                else:
                    cba = cx * qx + cy * qy + cz * qz
                    dba = dx * qx + dy * qy + dz * qz
                    # d x c
                    rx = dy * cz - dz * cy
                    ry = dz * cx - dx * cz
                    rz = dx * cy - dy * cx
                    adc = p1x * rx + p1y * ry + p1z * rz
                    bdc = p2x * rx + p2y * ry + p2z * rz
                    if not (cba * dba < 0.0 and adc * bdc < 0.0 and cba * bdc > 0.0):
                        continue
                k0 = nva + b0
                k1 = nva + b1
                fx = world[k1, 0] - world[k0, 0]
                fy = world[k1, 1] - world[k0, 1]
                fz = world[k1, 2] - world[k0, 2]
                ff = fx * fx + fy * fy + fz * fz
                lx = ey * fz - ez * fy
                ly = ez * fx - ex * fz
                lz = ex * fy - ey * fx
                ll = lx * lx + ly * ly + lz * lz
                if not ll > 0.0:
                    continue  # parallel edges: their face of A - B is spanned by the faces' normals
                length = math.sqrt(ll)
                lx /= length
                ly /= length
                lz /= length
                if ll < _ROUGH_SIN2 * ee * ff:
                    over, sign = _project_overlap(world, nva, nvb, lx, ly, lz)
                    lx *= sign
                    ly *= sign
                    lz *= sign
                else:
                    # out of a = into b's arc: L . (c + d) > 0
                    if lx * (cx + dx) + ly * (cy + dy) + lz * (cz + dz) < 0.0:
                        lx = -lx
                        ly = -ly
                        lz = -lz
                    over = (lx * (world[a0, 0] - world[k0, 0]) + ly * (world[a0, 1] - world[k0, 1])
                            + lz * (world[a0, 2] - world[k0, 2]))
                if over < best:
                    best = over
                    bx = lx
                    by = ly
                    bz = lz
        if best >= 0.0:
            signed = radius + best
            nx = bx
            ny = by
            nz = bz
    rel, floor = rule
    big = floor if floor >= scale else scale
    touching = signed >= -(rel * big)
    hit[i] = touching
    if touching:
        depth[i] = signed if signed >= 0.0 else 0.0
    else:
        depth[i] = signed
    normal[i, 0] = nx + 0.0
    normal[i, 1] = ny + 0.0
    normal[i, 2] = nz + 0.0


@njit(cache=True)
def _ball_rows(center: F64, radius: F64, verts: F64, normals: F64, fv: I64, ee: I64, ef: I64,
               rule: tuple[float, float], hit: NDArray[np.bool_], normal: F64, depth: F64) -> None:
    world = np.empty((1 + verts.shape[1], 3))
    ws = np.zeros((16, 4))
    gout = np.zeros(9)
    nofaces = np.zeros((1, 3))
    for i in range(center.shape[0]):
        _polytope_row(center[i:i + 1], 1, nofaces, _NO_FACE, 0, _NO_INDEX, _NO_INDEX, 0, False, radius[i],
                      verts[i], verts.shape[1], normals[i], fv[i], normals.shape[1], ee[i], ef[i], ee.shape[1], 0.0,
                      rule, i, world, ws, gout, hit, normal, depth)


@njit(cache=True)
def _box_rows(center: F64, rotation: F64, half: F64, verts: F64, normals: F64, fv: I64, ee: I64, ef: I64,
              rule: tuple[float, float], hit: NDArray[np.bool_], normal: F64, depth: F64) -> None:
    world = np.empty((8 + verts.shape[1], 3))
    ws = np.zeros((16, 4))
    gout = np.zeros(9)
    corners = np.empty((8, 3))
    faces = np.empty((6, 3))
    for i in range(center.shape[0]):
        r = rotation[i]
        for c in range(8):
            sx = half[i, 0] if c & 4 else -half[i, 0]
            sy = half[i, 1] if c & 2 else -half[i, 1]
            sz = half[i, 2] if c & 1 else -half[i, 2]
            for d in range(3):
                corners[c, d] = center[i, d] + (r[d, 0] * sx + r[d, 1] * sy + r[d, 2] * sz)
        for k in range(3):
            for d in range(3):
                faces[2 * k, d] = r[d, k]
                faces[2 * k + 1, d] = -r[d, k]
        _polytope_row(corners, 8, faces, _BOX_FACE_VERTEX, 6, _BOX_EDGES, _BOX_EDGE_FACES, 12, False, 0.0,
                      verts[i], verts.shape[1], normals[i], fv[i], normals.shape[1], ee[i], ef[i], ee.shape[1], 0.0,
                      rule, i, world, ws, gout, hit, normal, depth)


@njit(cache=True)
def _capsule_rows(p0: F64, p1: F64, radius: F64, verts: F64, normals: F64, fv: I64, ee: I64, ef: I64,
                  rule: tuple[float, float], hit: NDArray[np.bool_], normal: F64, depth: F64) -> None:
    world = np.empty((2 + verts.shape[1], 3))
    ws = np.zeros((16, 4))
    gout = np.zeros(9)
    seg = np.empty((2, 3))
    nofaces = np.zeros((1, 3))
    for i in range(p0.shape[0]):
        for d in range(3):
            seg[0, d] = p0[i, d]
            seg[1, d] = p1[i, d]
        _polytope_row(seg, 2, nofaces, _NO_FACE, 0, _SEGMENT_EDGE, _NO_INDEX, 1, True, radius[i],
                      verts[i], verts.shape[1], normals[i], fv[i], normals.shape[1], ee[i], ef[i], ee.shape[1], 0.0,
                      rule, i, world, ws, gout, hit, normal, depth)


@njit(cache=True)
def _hull_rows(va: F64, na: F64, fva: I64, eea: I64, efa: I64, vb: F64, nb: F64, fvb: I64, eeb: I64, efb: I64,
               rule: tuple[float, float], hit: NDArray[np.bool_], normal: F64, depth: F64) -> None:
    world = np.empty((va.shape[1] + vb.shape[1], 3))
    ws = np.zeros((16, 4))
    gout = np.zeros(9)
    for i in range(va.shape[0]):
        _polytope_row(va[i], va.shape[1], na[i], fva[i], na.shape[1], eea[i], efa[i], eea.shape[1], False, 0.0,
                      vb[i], vb.shape[1], nb[i], fvb[i], nb.shape[1], eeb[i], efb[i], eeb.shape[1], 0.0,
                      rule, i, world, ws, gout, hit, normal, depth)


def _ints(x: NDArray[np.int64]) -> I64:
    return np.ascontiguousarray(x, dtype=np.int64)


def contact_ball_hull(center: F64, radius: F64, verts: F64, normals: F64, face_vertex: I64, edge_ends: I64,
                      edge_faces: I64) -> ContactArrays:
    """Twin of the numpy ``contact_ball_hull``.

    Parameters
    ----------
    center : ndarray, shape (N, 3)
    radius : ndarray, shape (N,)
    verts : ndarray, shape (N, V, 3)
    normals : ndarray, shape (N, F, 3)
    face_vertex : ndarray of int64, shape (N, F)
    edge_ends, edge_faces : ndarray of int64, shape (N, E, 2)

    Returns
    -------
    ContactArrays

    Examples
    --------
    >>> import itertools
    >>> import numpy as np
    >>> from collideworld.bodies import BodyStore
    >>> from collideworld import ConvexHull
    >>> store = BodyStore(3)
    >>> s = store.allocate(1)
    >>> store.set_shapes(s, [ConvexHull(list(itertools.product((-1, 1), repeat=3)))])
    >>> store.set_poses(s, np.zeros((1, 3)), quaternion=np.array([[1.0, 0, 0, 0]]))
    >>> c = contact_ball_hull(np.array([[0.0, 0.0, 1.5]]), np.ones(1), *store.hull_arrays(s))
    >>> bool(c.hit[0]), float(c.depth[0]), c.normal[0].tolist()
    (True, 0.5, [0.0, 0.0, -1.0])
    """
    c = as_rows(center)
    out = contact_outputs(c.shape[0], 3)
    _ball_rows(c, as_rows(radius), as_rows(verts), as_rows(normals), _ints(face_vertex), _ints(edge_ends),
               _ints(edge_faces), touch_rule(), *out)
    return out


def contact_box_hull(center: F64, rotation: F64, half: F64, verts: F64, normals: F64, face_vertex: I64,
                     edge_ends: I64, edge_faces: I64) -> ContactArrays:
    """Twin of the numpy ``contact_box_hull``.

    Parameters
    ----------
    center : ndarray, shape (N, 3)
    rotation : ndarray, shape (N, 3, 3)
    half : ndarray, shape (N, 3)
    verts, normals, face_vertex, edge_ends, edge_faces
        The hulls, as in :func:`contact_ball_hull`.

    Returns
    -------
    ContactArrays

    Examples
    --------
    >>> import itertools
    >>> import numpy as np
    >>> from collideworld.bodies import BodyStore
    >>> from collideworld import ConvexHull
    >>> store = BodyStore(3)
    >>> s = store.allocate(1)
    >>> store.set_shapes(s, [ConvexHull(list(itertools.product((-1, 1), repeat=3)))])
    >>> store.set_poses(s, np.zeros((1, 3)), quaternion=np.array([[1.0, 0, 0, 0]]))
    >>> c = contact_box_hull(np.array([[0.0, 0.0, 1.25]]), np.eye(3)[None], np.full((1, 3), 0.5),
    ...                      *store.hull_arrays(s))
    >>> bool(c.hit[0]), float(c.depth[0]), c.normal[0].tolist()
    (True, 0.25, [0.0, 0.0, -1.0])
    """
    c = as_rows(center)
    out = contact_outputs(c.shape[0], 3)
    _box_rows(c, as_rows(rotation), as_rows(half), as_rows(verts), as_rows(normals), _ints(face_vertex),
              _ints(edge_ends), _ints(edge_faces), touch_rule(), *out)
    return out


def contact_capsule_hull(p0: F64, p1: F64, radius: F64, verts: F64, normals: F64, face_vertex: I64,
                         edge_ends: I64, edge_faces: I64) -> ContactArrays:
    """Twin of the numpy ``contact_capsule_hull``.

    Parameters
    ----------
    p0, p1 : ndarray, shape (N, 3)
    radius : ndarray, shape (N,)
    verts, normals, face_vertex, edge_ends, edge_faces
        The hulls, as in :func:`contact_ball_hull`.

    Returns
    -------
    ContactArrays

    Examples
    --------
    >>> import itertools
    >>> import numpy as np
    >>> from collideworld.bodies import BodyStore
    >>> from collideworld import ConvexHull
    >>> store = BodyStore(3)
    >>> s = store.allocate(1)
    >>> store.set_shapes(s, [ConvexHull(list(itertools.product((-1, 1), repeat=3)))])
    >>> store.set_poses(s, np.zeros((1, 3)), quaternion=np.array([[1.0, 0, 0, 0]]))
    >>> c = contact_capsule_hull(np.array([[-3.0, 0, 1.25]]), np.array([[3.0, 0, 1.25]]), np.full(1, 0.5),
    ...                          *store.hull_arrays(s))
    >>> bool(c.hit[0]), float(c.depth[0]), c.normal[0].tolist()
    (True, 0.25, [0.0, 0.0, -1.0])
    """
    a = as_rows(p0)
    out = contact_outputs(a.shape[0], 3)
    _capsule_rows(a, as_rows(p1), as_rows(radius), as_rows(verts), as_rows(normals), _ints(face_vertex),
                  _ints(edge_ends), _ints(edge_faces), touch_rule(), *out)
    return out


def contact_hull_hull(verts_a: F64, normals_a: F64, face_vertex_a: I64, edge_ends_a: I64, edge_faces_a: I64,
                      verts_b: F64, normals_b: F64, face_vertex_b: I64, edge_ends_b: I64,
                      edge_faces_b: I64) -> ContactArrays:
    """Twin of the numpy ``contact_hull_hull``.

    Parameters
    ----------
    verts_a, normals_a, face_vertex_a, edge_ends_a, edge_faces_a
        Hulls a, as in :func:`contact_ball_hull`.
    verts_b, normals_b, face_vertex_b, edge_ends_b, edge_faces_b
        Hulls b.

    Returns
    -------
    ContactArrays

    Examples
    --------
    >>> import itertools
    >>> import numpy as np
    >>> from collideworld.bodies import BodyStore
    >>> from collideworld import ConvexHull
    >>> store = BodyStore(3)
    >>> s = store.allocate(2)
    >>> store.set_shapes(s, [ConvexHull(list(itertools.product((-1, 1), repeat=3)))] * 2)
    >>> store.set_poses(s, np.array([[0.0, 0, 0], [1.5, 0, 0]]), quaternion=np.array([[1.0, 0, 0, 0]] * 2))
    >>> c = contact_hull_hull(*store.hull_arrays(s[:1]), *store.hull_arrays(s[1:]))
    >>> bool(c.hit[0]), float(c.depth[0]), c.normal[0].tolist()
    (True, 0.5, [1.0, 0.0, 0.0])
    """
    va = as_rows(verts_a)
    out = contact_outputs(va.shape[0], 3)
    _hull_rows(va, as_rows(normals_a), _ints(face_vertex_a), _ints(edge_ends_a), _ints(edge_faces_a),
               as_rows(verts_b), as_rows(normals_b), _ints(face_vertex_b), _ints(edge_ends_b), _ints(edge_faces_b),
               touch_rule(), *out)
    return out
