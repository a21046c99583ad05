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
from .kernel_support import as_rows, contact_outputs, einsum_sum, touch_rule

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


#: EPA's limits (scratch sizes): past any of them the row falls back to the SAT.
_EPA_VERTS = 128
_EPA_FACES = 1024
_EPA_EDGES = 256


@njit(cache=True)
def _support_gap(world: F64, na: int, nb: int, x: float, y: float, z: float, w: F64) -> float:
    """``h(d) = max_a d.a - min_b d.b`` (the support of A - B along d); ``w`` receives that point of A - B."""
    ia = 0
    top = -math.inf
    for k in range(na):
        s = world[k, 0] * x + world[k, 1] * y + world[k, 2] * z
        if s > top:
            top = s
            ia = k
    ib = na
    low = math.inf
    for k in range(na, na + nb):
        s = world[k, 0] * x + world[k, 1] * y + world[k, 2] * z
        if s < low:
            low = s
            ib = k
    for d in range(3):
        w[d] = world[ia, d] - world[ib, d]
    return top - low


@njit(cache=True)
def _epa_face(pv: F64, fi: I64, fd: F64, f: int, a: int, b: int, c: int, eps: float) -> bool:
    """Face ``f`` := triangle (a, b, c) of the polytope, counter-clockwise from outside; False if degenerate."""
    ux = pv[b, 0] - pv[a, 0]
    uy = pv[b, 1] - pv[a, 1]
    uz = pv[b, 2] - pv[a, 2]
    vx = pv[c, 0] - pv[a, 0]
    vy = pv[c, 1] - pv[a, 1]
    vz = pv[c, 2] - pv[a, 2]
    nx = uy * vz - uz * vy
    ny = uz * vx - ux * vz
    nz = ux * vy - uy * vx
    length = math.sqrt(nx * nx + ny * ny + nz * nz)
    if not length > 1e-20 * (ux * ux + uy * uy + uz * uz + vx * vx + vy * vy + vz * vz):
        return False
    nx /= length
    ny /= length
    nz /= length
    dist = nx * pv[a, 0] + ny * pv[a, 1] + nz * pv[a, 2]
    if dist < -eps:  # the origin outside the polytope: rounding broke it
        return False
    fi[f, 0] = a
    fi[f, 1] = b
    fi[f, 2] = c
    fd[f, 0] = nx
    fd[f, 1] = ny
    fd[f, 2] = nz
    fd[f, 3] = dist
    return True


@njit(cache=True)
def _epa(world: F64, na: int, nb: int, ws: F64, scale: float, pv: F64, fi: I64, fd: F64,
         hz: I64, out: F64) -> bool:
    """Penetration of overlapping polytopes by the expanding polytope algorithm; False: give up (use the SAT).

    Van den Bergen 2001 (§4.3.7 of *Collision Detection in Interactive 3D
    Environments*); Ericson RTCD §9.5.3 outlines it. Starts from GJK's final
    tetrahedron (``ws[0:4, :3]``, NaN when GJK ended on a smaller simplex)::

        repeat:
            f = the face of the polytope nearest the origin (normal n, distance d)
            s = h(n), the support of A - B along n (a new vertex w)
            stop when s - d <= 1e-13 * scale: the MTD lies in [d, s]; answer s along n
            remove the faces w sees; close the hole with the horizon's edges and w

    Every vertex is a support point, so the polytope lies inside A - B and its
    nearest face is a lower bound; ``h(n)`` is the overlap along n, so the
    answer is what the SAT would measure on that axis. A degenerate
    tetrahedron or face, the origin outside a face, a repeated vertex or a full
    scratch array make it give up, and the caller runs the SAT instead.
    ``out`` (4,) receives (depth, normal); the normal is from a towards b.
    """
    eps = 1e-13 * scale
    for k in range(4):
        for d in range(3):
            pv[k, d] = ws[k, d]
    ux = pv[1, 0] - pv[0, 0]
    uy = pv[1, 1] - pv[0, 1]
    uz = pv[1, 2] - pv[0, 2]
    vx = pv[2, 0] - pv[0, 0]
    vy = pv[2, 1] - pv[0, 1]
    vz = pv[2, 2] - pv[0, 2]
    tx = pv[3, 0] - pv[0, 0]
    ty = pv[3, 1] - pv[0, 1]
    tz = pv[3, 2] - pv[0, 2]
    det = (uy * vz - uz * vy) * tx + (uz * vx - ux * vz) * ty + (ux * vy - uy * vx) * tz
    size = max(ux * ux + uy * uy + uz * uz, vx * vx + vy * vy + vz * vz, tx * tx + ty * ty + tz * tz)
    if not abs(det) > 1e-12 * size * math.sqrt(size):  # NaN (no tetrahedron) lands here too
        return False
    # outward faces of a positively oriented tetrahedron (det > 0: p3 on the + side of (p0, p1, p2))
    p1, p2 = (1, 2) if det > 0.0 else (2, 1)
    # np.int64(...): a bare constant argument is typed as that literal value, and
    # numba would compile _epa_face once more for every distinct constant
    f0, f1, f2, f3 = np.int64(0), np.int64(1), np.int64(2), np.int64(3)
    if not (_epa_face(pv, fi, fd, f0, f0, p2, p1, eps) and _epa_face(pv, fi, fd, f1, f0, p1, f3, eps)
            and _epa_face(pv, fi, fd, f2, f0, f3, p2, eps) and _epa_face(pv, fi, fd, f3, p1, p2, f3, eps)):
        return False
    nv = 4
    nf = 4
    w = out[1:4]
    for _ in range(_EPA_VERTS):
        best = -1
        low = math.inf
        for f in range(nf):
            if fi[f, 0] >= 0 and fd[f, 3] < low:
                low = fd[f, 3]
                best = f
        if best < 0:
            return False
        nx = fd[best, 0]
        ny = fd[best, 1]
        nz = fd[best, 2]
        s = _support_gap(world, na, nb, nx, ny, nz, w)
        if s - low <= eps:
            out[0] = s
            out[1] = nx
            out[2] = ny
            out[3] = nz
            return True
        if nv == _EPA_VERTS:
            return False
        for k in range(nv):
            if pv[k, 0] == w[0] and pv[k, 1] == w[1] and pv[k, 2] == w[2]:
                return False  # no new support point although the gap is open: rounding
        for d in range(3):
            pv[nv, d] = w[d]
        # faces seen from w go; their edges not shared by two of them form the horizon
        nh = 0
        for f in range(nf):
            if fi[f, 0] < 0:
                continue
            a = fi[f, 0]
            if (fd[f, 0] * (pv[nv, 0] - pv[a, 0]) + fd[f, 1] * (pv[nv, 1] - pv[a, 1])
                    + fd[f, 2] * (pv[nv, 2] - pv[a, 2])) <= 0.0:
                continue
            for e in range(3):
                i = fi[f, e]
                j = fi[f, (e + 1) % 3]
                found = -1
                for h in range(nh):
                    if hz[h, 0] == j and hz[h, 1] == i:
                        found = h
                        break
                if found >= 0:
                    nh -= 1
                    hz[found, 0] = hz[nh, 0]
                    hz[found, 1] = hz[nh, 1]
                elif nh == _EPA_EDGES:
                    return False
                else:
                    hz[nh, 0] = i
                    hz[nh, 1] = j
                    nh += 1
            fi[f, 0] = -1
        if nh < 3 or nf + nh > _EPA_FACES:
            return False
        for h in range(nh):
            if not _epa_face(pv, fi, fd, nf, hz[h, 0], hz[h, 1], nv, eps):
                return False
            nf += 1
        nv += 1
    return False


@njit(cache=True)
def _polish(world: F64, na: int, nb: int, fna: F64, nfa: int, fnb: F64, nfb: int, scale: float, out: F64) -> None:
    """Replace EPA's normal ``out[1:4]`` (and depth ``out[0]``) by the exact axis of the face it converged to.

    EPA's normal is the cross product of three support points: right to about
    1e-10 on thin triangles. The face of A - B it found is a face of a, a face
    of b, or spanned by an edge of each; its exact axis is the face's own
    normal (the one most aligned with EPA's) or the cross product of the two
    support edges (each side's two vertices furthest along the normal). Each
    candidate is measured by projecting every vertex, so the overlap kept is a
    true overlap, never below the MTD; a candidate replaces EPA's axis when it
    overlaps no more than EPA's answer (plus EPA's tolerance).
    """
    nx = out[1]
    ny = out[2]
    nz = out[3]
    limit = out[0] + 1e-13 * scale
    best = math.inf
    bx = nx
    by = ny
    bz = nz
    for side in range(3):
        lx = 0.0
        ly = 0.0
        lz = 0.0
        aligned = -math.inf
        if side == 0:
            for f in range(nfa):
                c = fna[f, 0] * nx + fna[f, 1] * ny + fna[f, 2] * nz
                if c > aligned:
                    aligned = c
                    lx = fna[f, 0]
                    ly = fna[f, 1]
                    lz = fna[f, 2]
        elif side == 1:
            for f in range(nfb):
                c = -(fnb[f, 0] * nx + fnb[f, 1] * ny + fnb[f, 2] * nz)
                if c > aligned:
                    aligned = c
                    lx = -fnb[f, 0]
                    ly = -fnb[f, 1]
                    lz = -fnb[f, 2]
        elif na >= 2 and nb >= 2:
            # the two vertices of a furthest along n, and of b furthest along -n
            i1 = i2 = 0
            t1 = t2 = -math.inf
            for k in range(na):
                t = world[k, 0] * nx + world[k, 1] * ny + world[k, 2] * nz
                if t > t1:
                    t2, i2 = t1, i1
                    t1, i1 = t, k
                elif t > t2:
                    t2, i2 = t, k
            j1 = j2 = na
            t1 = t2 = -math.inf
            for k in range(na, na + nb):
                t = -(world[k, 0] * nx + world[k, 1] * ny + world[k, 2] * nz)
                if t > t1:
                    t2, j2 = t1, j1
                    t1, j1 = t, k
                elif t > t2:
                    t2, j2 = t, k
            ex = world[i2, 0] - world[i1, 0]
            ey = world[i2, 1] - world[i1, 1]
            ez = world[i2, 2] - world[i1, 2]
            fx = world[j2, 0] - world[j1, 0]
            fy = world[j2, 1] - world[j1, 1]
            fz = world[j2, 2] - world[j1, 2]
            lx = ey * fz - ez * fy
            ly = ez * fx - ex * fz
            lz = ex * fy - ey * fx
            length = math.sqrt(lx * lx + ly * ly + lz * lz)
            if length > 0.0:
                lx /= length
                ly /= length
                lz /= length
                aligned = lx * nx + ly * ny + lz * nz
                if aligned < 0.0:
                    lx = -lx
                    ly = -ly
                    lz = -lz
                    aligned = -aligned
        if not aligned > 1.0 - 1e-6:
            continue
        over, sign = _project_overlap(world, na, nb, lx, ly, lz)
        if over < best and over <= limit:
            best = over
            bx = sign * lx
            by = sign * ly
            bz = sign * lz
    if best < math.inf:
        out[0] = best
        out[1] = bx
        out[2] = by
        out[3] = bz


@njit(cache=True)
def _polytope_row(va: F64, nva: int, fna: F64, fva: I64, nfa: int, eea: I64, efa: I64, nea: int,
                  segment_a: bool | np.bool_, ra: float,
                  vb: F64, nvb: int, fnb: F64, fvb: I64, nfb: int, eeb: I64, efb: I64, neb: int,
                  rb: float, rule: tuple[float, float], i: int, world: F64, ws: F64, gout: F64, eb: F64, eb_start: I64,
                  use_epa: bool, pv: F64, fi: I64, fd: F64, hz: I64, eout: F64,
                  hit: NDArray[np.bool_], normal: F64, depth: F64) -> None:
    """Row ``i``: polytope a (``nva`` vertices ``va``, faces, edges; grown by ``ra``) against b.

    A polytope is its vertices (V, 3), unit face normals (F, 3) with a vertex
    of each face (F,), and edges as vertex pairs (E, 2) with the two faces
    beside each (E, 2); ``segment_a``: a's one edge is a bare segment (no
    faces), pruned against b's edges by its great circle. ``world`` (at least
    ``nva + nvb``, 3), ``ws`` (16, 4), ``gout`` (9,), ``eb`` (at least ``neb``, 12) and
    ``eb_start`` (at least ``neb``,) are scratch.
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
    for k in range(4):  # rows GJK leaves unwritten stay NaN: EPA then sees no tetrahedron
        for d in range(3):
            ws[k, d] = math.nan
    dist = gjk_closest(world, np.int64(0), nva, nva, nvb, ws, gout)  # not a literal 0: see _ball_rows
    if ws[14, 0] == 0.0:  # no proof of a gap (GJK stopped by rounding): the SAT decides, as in the numpy twin
        dist = 0.0
    nx = 1.0
    ny = 0.0
    nz = 0.0
    if dist > 0.0:  # GJK's own unit direction, as the numpy twin
        nx = gout[6]
        ny = gout[7]
        nz = gout[8]
    signed = radius - dist
    sat = dist <= 1e-9 * scale
    if sat and use_epa and dist == 0.0 and _epa(world, nva, nvb, ws, scale, pv, fi, fd, hz, eout):
        sat = False
        _polish(world, nva, nvb, fna, nfa, fnb, nfb, scale, eout)
        signed = radius + eout[0]
        nx = eout[1]
        ny = eout[2]
        nz = eout[3]
        # within 1e-9 of the size of touching, the hit is the SAT's to decide, as in the numpy
        # twin: a GJK stopped short of a small gap hands EPA an origin that is not inside
        if not eout[0] > 1e-9 * scale:
            sat = True
            signed = radius - dist
    if sat:
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
        # b's edges once per row, packed (padding dropped): the negated arc c = -m1, d = -m2 of
        # the Gauss map of -B, d x c, the edge vector and its first vertex
        m = 0
        for jb in range(neb):
            b0 = eeb[jb, 0]
            b1 = eeb[jb, 1]
            if b0 == b1:
                continue
            cx = -fnb[efb[jb, 0], 0]
            cy = -fnb[efb[jb, 0], 1]
            cz = -fnb[efb[jb, 0], 2]
            dx = -fnb[efb[jb, 1], 0]
            dy = -fnb[efb[jb, 1], 1]
            dz = -fnb[efb[jb, 1], 2]
            eb[m, 0] = cx
            eb[m, 1] = cy
            eb[m, 2] = cz
            eb[m, 3] = dx
            eb[m, 4] = dy
            eb[m, 5] = dz
            eb[m, 6] = dy * cz - dz * cy
            eb[m, 7] = dz * cx - dx * cz
            eb[m, 8] = dx * cy - dy * cx
            eb[m, 9] = world[nva + b1, 0] - world[nva + b0, 0]
            eb[m, 10] = world[nva + b1, 1] - world[nva + b0, 1]
            eb[m, 11] = world[nva + b1, 2] - world[nva + b0, 2]
            eb_start[m] = nva + b0
            m += 1
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
            # a's arc (n1 -> n2) on the Gauss map, and q = n2 x n1; a bare segment's
            # Gauss image is the great circle normal to it, so q is the segment itself
            p1x = p1y = p1z = p2x = p2y = p2z = 0.0
            qx = ex
            qy = ey
            qz = ez
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
            for jb in range(m):
                # first test: b's arc crosses the great circle of a's (most pairs stop here)
                cba = eb[jb, 0] * qx + eb[jb, 1] * qy + eb[jb, 2] * qz
                dba = eb[jb, 3] * qx + eb[jb, 4] * qy + eb[jb, 5] * qz
                if not cba * dba < 0.0:
                    continue
                if not segment_a:
                    adc = p1x * eb[jb, 6] + p1y * eb[jb, 7] + p1z * eb[jb, 8]
                    bdc = p2x * eb[jb, 6] + p2y * eb[jb, 7] + p2z * eb[jb, 8]
                    if not (adc * bdc < 0.0 and cba * bdc > 0.0):
                        continue
                fx = eb[jb, 9]
                fy = eb[jb, 10]
                fz = eb[jb, 11]
                k0 = eb_start[jb]
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
                    # out of a = into b's negated arc: L . (c + d) > 0
                    if lx * (eb[jb, 0] + eb[jb, 3]) + ly * (eb[jb, 1] + eb[jb, 4]) + lz * (eb[jb, 2] + eb[jb, 5]) < 0.0:
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
        # overlapping: the least overlap; apart, a separating axis proves a gap at least
        # that wide (GJK's answer is a lower bound too), counted as the numpy twin counts it
        if best >= 0.0 or radius + best < signed - 2e-13 * scale:
            signed = radius + best
        # the SAT's axis either way (GJK's direction is noise a few ulps from touching), as the numpy twin
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
def _polytope_scratch(n_edges: int) -> tuple[F64, F64, F64, I64, F64, I64, F64, I64, F64]:
    """Scratch arrays of :func:`_polytope_row`, allocated once per call and reused by every row.

    ``(ws, gout, eb, eb_start, pv, fi, fd, hz, eout)``: GJK's workspace and
    output, the edge buffer for ``n_edges`` edges of side b and its starts,
    and EPA's vertices, faces, face data, horizon and output.
    """
    return (np.zeros((16, 4)), np.zeros(9), np.empty((max(1, n_edges), 12)),
            np.empty(max(1, n_edges), dtype=np.int64), np.empty((_EPA_VERTS, 3)),
            np.empty((_EPA_FACES, 3), dtype=np.int64), np.empty((_EPA_FACES, 4)),
            np.empty((_EPA_EDGES, 2), dtype=np.int64), np.empty(4))


@njit(cache=True)
def _ball_rows(center: F64, radius: F64, verts: F64, normals: F64, fv: I64, ee: I64, ef: I64,
               rule: tuple[float, float], use_epa: bool, hit: NDArray[np.bool_], normal: F64, depth: F64) -> None:
    world = np.empty((1 + verts.shape[1], 3))
    ws, gout, eb, eb_start, pv, fi, fd, hz, eout = _polytope_scratch(ee.shape[1])
    nofaces = np.zeros((1, 3))
    # Counts as np.int64 and tables as writable copies: a constant argument is typed as
    # its literal value and a global array as read-only, and numba would compile
    # _polytope_row (GJK, EPA and all, seconds each) once more for each such variant.
    no_face, no_index, none = _NO_FACE.copy(), _NO_INDEX.copy(), np.int64(0)
    for i in range(center.shape[0]):
        _polytope_row(center[i:i + 1], np.int64(1), nofaces, no_face, none, no_index, no_index, none, np.bool_(False),
                      radius[i],
                      verts[i], verts.shape[1], normals[i], fv[i], normals.shape[1], ee[i], ef[i], ee.shape[1], 0.0,
                      rule, i, world, ws, gout, eb, eb_start, use_epa, pv, fi, fd, hz, eout, hit, normal, depth)


@njit(cache=True)
def _box_rows(center: F64, rotation: F64, half: F64, verts: F64, normals: F64, fv: I64, ee: I64, ef: I64,
              rule: tuple[float, float], use_epa: bool, hit: NDArray[np.bool_], normal: F64, depth: F64) -> None:
    world = np.empty((8 + verts.shape[1], 3))
    ws, gout, eb, eb_start, pv, fi, fd, hz, eout = _polytope_scratch(ee.shape[1])
    corners = np.empty((8, 3))
    faces = np.empty((6, 3))
    # writable copies, as in _ball_rows
    face_vertex, edges, edge_faces = _BOX_FACE_VERTEX.copy(), _BOX_EDGES.copy(), _BOX_EDGE_FACES.copy()
    for i in range(center.shape[0]):
        r = rotation[i]
        for c in range(8):
            sx = half[i, 0] if c & 4 else -half[i, 0]
            sy = half[i, 1] if c & 2 else -half[i, 1]
            sz = half[i, 2] if c & 1 else -half[i, 2]
            for d in range(3):
                # summed as the numpy twin's einsum sums (the same corners, to the bit)
                corners[c, d] = center[i, d] + einsum_sum(r[d, 0] * sx, r[d, 1] * sy, r[d, 2] * sz, 3)
        for k in range(3):
            for d in range(3):
                faces[2 * k, d] = r[d, k]
                faces[2 * k + 1, d] = -r[d, k]
        _polytope_row(corners, np.int64(8), faces, face_vertex, np.int64(6), edges, edge_faces, np.int64(12),
                      np.bool_(False), 0.0,
                      verts[i], verts.shape[1], normals[i], fv[i], normals.shape[1], ee[i], ef[i], ee.shape[1], 0.0,
                      rule, i, world, ws, gout, eb, eb_start, use_epa, pv, fi, fd, hz, eout, hit, normal, depth)


@njit(cache=True)
def _capsule_rows(p0: F64, p1: F64, radius: F64, verts: F64, normals: F64, fv: I64, ee: I64, ef: I64,
                  rule: tuple[float, float], use_epa: bool, hit: NDArray[np.bool_], normal: F64, depth: F64) -> None:
    world = np.empty((2 + verts.shape[1], 3))
    ws, gout, eb, eb_start, pv, fi, fd, hz, eout = _polytope_scratch(ee.shape[1])
    seg = np.empty((2, 3))
    nofaces = np.zeros((1, 3))
    # writable copies and a non-literal 0, as in _ball_rows
    no_face, edge, no_index, none = _NO_FACE.copy(), _SEGMENT_EDGE.copy(), _NO_INDEX.copy(), np.int64(0)
    for i in range(p0.shape[0]):
        for d in range(3):
            seg[0, d] = p0[i, d]
            seg[1, d] = p1[i, d]
        _polytope_row(seg, np.int64(2), nofaces, no_face, none, edge, no_index, np.int64(1), np.bool_(True), radius[i],
                      verts[i], verts.shape[1], normals[i], fv[i], normals.shape[1], ee[i], ef[i], ee.shape[1], 0.0,
                      rule, i, world, ws, gout, eb, eb_start, use_epa, pv, fi, fd, hz, eout, hit, normal, depth)


@njit(cache=True)
def _hull_rows(va: F64, na: F64, fva: I64, eea: I64, efa: I64, vb: F64, nb: F64, fvb: I64, eeb: I64, efb: I64,
               rule: tuple[float, float], use_epa: bool, hit: NDArray[np.bool_], normal: F64, depth: F64) -> None:
    world = np.empty((va.shape[1] + vb.shape[1], 3))
    ws, gout, eb, eb_start, pv, fi, fd, hz, eout = _polytope_scratch(eeb.shape[1])
    for i in range(va.shape[0]):
        _polytope_row(va[i], va.shape[1], na[i], fva[i], na.shape[1], eea[i], efa[i], eea.shape[1],
                      np.bool_(False), 0.0,
                      vb[i], vb.shape[1], nb[i], fvb[i], nb.shape[1], eeb[i], efb[i], eeb.shape[1], 0.0,
                      rule, i, world, ws, gout, eb, eb_start, use_epa, pv, fi, fd, hz, eout, hit, normal, depth)


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
               _ints(edge_faces), touch_rule(), True, *out)
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
              _ints(edge_ends), _ints(edge_faces), touch_rule(), True, *out)
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
                  _ints(edge_ends), _ints(edge_faces), touch_rule(), True, *out)
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
               touch_rule(), True, *out)
    return out


#: The row loops themselves, for compiled callers that build one-row arrays in place (the compiled
#: queries' exact tests, ``collideworld.compiled.queries``); the routines the batched calls above run.
ball_rows = _ball_rows
box_rows = _box_rows
