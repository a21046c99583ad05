"""Contacts and distances of 3D convex shapes given by support mappings: GJK, then EPA.

Cylinders and cones have curved rims, so they are neither polytopes nor
polytopes grown by a radius, the two forms the other 3D kernels use. Every
convex shape is, however, its *support mapping* ``s(d)`` (a point of the
shape farthest along ``d``; Gilbert, Johnson & Keerthi 1988; van den Bergen,
*Collision Detection in Interactive 3D Environments*, ch. 4), and GJK and
EPA need nothing else. One row here is one shape: a kind code, a world pose
and up to 8 parameters (:data:`SUPPORT_PARAMS`):

=====  ==========  ======================================================
code   shape       parameters
=====  ==========  ======================================================
1      ball        radius
2      box         half extents (3)
4      capsule     local p0 (3), local p1 (3), radius
5      hull        first row and count of its world vertices in ``verts``
7      cylinder    radius, half height (around local z, centred)
8      cone        radius, half height (base at -h, apex at +h)
=====  ==========  ======================================================

(the codes are :class:`collideworld.bodies.Kind`'s). Outline of
:func:`support_contact`, for shapes A and B and their Minkowski difference
D = A - B::

    GJK on D (Ericson, Real-Time Collision Detection 9.5; van den Bergen 2003):
        v = point of the simplex nearest the origin; w = s_D(-v)
        lower = max(lower, v.w / |v|)   # a proved lower bound of the distance
        stop when |v| - lower <= 1e-13 |D|, or the simplex holds the origin
    if lower > 0 (up to the touching tolerance): apart; gap = |v|, normal -v/|v|
    else EPA (van den Bergen 2001) from GJK's simplex, blown up to a
    polytope holding the origin: split the face nearest the origin by the
    support point along its normal until that point is within EPA_TOL |D|
    of the face; depth = the face's distance, normal = its normal.

GJK and EPA on curved shapes converge to a tolerance, not exactly:
GJK's gap is within ``1e-13 |D|`` above the true gap (``|D|`` the
coordinates' magnitude) and its lower bound is always a proved bound, so a
touching pair is never missed; EPA's depth is within :data:`EPA_TOL` ``|D|``
(1e-9) below the true depth (the polytope lies inside D).

All functions are numba-compatible Python, compiled with ``@njit(cache=True)``
when numba imports (as :mod:`collideworld.geometry.gjk`), so the numpy and
the compiled backends run the same code and give the same bits.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from .gjk import gjk_pieces
from .kernel_support import finish, finish_halfspace
from .result import ContactArrays

__all__ = ["SUPPORT_PARAMS", "EPA_TOL", "support_point", "support_contact", "support_contact_scratch", "epa_scratch",
           "support_rows", "halfspace_rows",
           "contact_support", "contact_halfspace_support", "support_witnesses", "lowest_points"]

F = TypeVar("F", bound=Callable[..., Any])
F64 = NDArray[np.float64]

try:
    _numba: Any = importlib.import_module("numba")
except ImportError:  # the same source then runs as plain Python
    _numba = None

#: Parameters per support row.
SUPPORT_PARAMS = 8
#: EPA stops when the support point along the nearest face's normal is within this much
#: (relative to the pair's coordinates) of the face.
EPA_TOL = 1e-12
_GJK_TOL = 1e-13
#: Widest interval [proved lower bound, |v|] of the cores' GJK distance (relative to the pair's size)
#: taken as their distance; GJK on a point a hair from a curved rim can stall wider than this.
_CORE_TOL = 1e-12
_EPA_VERTS = 160
#: A contact test stops GJK once it proves a gap wider than this (relative to the pair's size): far
#: above the touching tolerance (``tolerance.REL_TOUCH_TOL``), so such a pair is a miss either way.
_APART = 1e-9
_EPA_FACES = 640


def _jit(fn: F) -> F:
    if _numba is None:
        return fn
    compiled: F = _numba.njit(cache=True)(fn)
    return compiled


@_jit
def support_point(code: int, pos: F64, rot: F64, prm: F64, verts: F64, dx: float, dy: float, dz: float,
                  out: F64) -> None:
    """World point of the shape farthest along ``(dx, dy, dz)``, into ``out`` (3,).

    Examples
    --------
    An upright cylinder of radius 1 and half height 2 at the origin, along (1, 0, 1):

    >>> import numpy as np
    >>> out = np.zeros(3)
    >>> prm = np.array([1.0, 2.0, 0, 0, 0, 0, 0, 0])
    >>> support_point(7, np.zeros(3), np.eye(3), prm, np.zeros((1, 3)), 1.0, 0.0, 1.0, out)
    >>> out.tolist()
    [1.0, 0.0, 2.0]
    """
    if code == 5:  # hull: its world vertices
        first = int(prm[0])
        best = -math.inf
        k = first
        for i in range(first, first + int(prm[1])):
            s = verts[i, 0] * dx + verts[i, 1] * dy + verts[i, 2] * dz
            if s > best:
                best = s
                k = i
        out[0] = verts[k, 0]
        out[1] = verts[k, 1]
        out[2] = verts[k, 2]
        return
    # the direction in the local frame: R^T d
    lx = rot[0, 0] * dx + rot[1, 0] * dy + rot[2, 0] * dz
    ly = rot[0, 1] * dx + rot[1, 1] * dy + rot[2, 1] * dz
    lz = rot[0, 2] * dx + rot[1, 2] * dy + rot[2, 2] * dz
    px = 0.0
    py = 0.0
    pz = 0.0
    if code == 1:
        n = math.sqrt(lx * lx + ly * ly + lz * lz)
        if n > 0.0:
            px = prm[0] * lx / n
            py = prm[0] * ly / n
            pz = prm[0] * lz / n
        else:
            px = prm[0]
    elif code == 2:
        px = prm[0] if lx >= 0.0 else -prm[0]
        py = prm[1] if ly >= 0.0 else -prm[1]
        pz = prm[2] if lz >= 0.0 else -prm[2]
    elif code == 4:
        if lx * (prm[3] - prm[0]) + ly * (prm[4] - prm[1]) + lz * (prm[5] - prm[2]) > 0.0:
            px, py, pz = prm[3], prm[4], prm[5]
        else:
            px, py, pz = prm[0], prm[1], prm[2]
        n = math.sqrt(lx * lx + ly * ly + lz * lz)
        if n > 0.0:
            px += prm[6] * lx / n
            py += prm[6] * ly / n
            pz += prm[6] * lz / n
    else:
        r = prm[0]
        h = prm[1]
        q = math.hypot(lx, ly)
        # the rim point of a disc of radius r farthest along (lx, ly): r (lx, ly) / q
        rx = r * lx / q if q > 0.0 else 0.0
        ry = r * ly / q if q > 0.0 else 0.0
        if code == 7:  # cylinder: the disc swept from z = -h to z = +h
            px = rx
            py = ry
            pz = h if lz >= 0.0 else -h
        else:  # cone: the hull of the base disc at z = -h and the apex (0, 0, h)
            if lz * h >= r * q - lz * h:
                pz = h
            else:
                px = rx
                py = ry
                pz = -h
    out[0] = rot[0, 0] * px + rot[0, 1] * py + rot[0, 2] * pz + pos[0]
    out[1] = rot[1, 0] * px + rot[1, 1] * py + rot[1, 2] * pz + pos[1]
    out[2] = rot[2, 0] * px + rot[2, 1] * py + rot[2, 2] * pz + pos[2]


@_jit
def _support_pair(ca: int, pa: F64, ra: F64, qa: F64, cb: int, pb: F64, rb: F64, qb: F64, verts: F64,
                  dx: float, dy: float, dz: float, wa: F64, wb: F64) -> None:
    """``wa = s_A(d)``, ``wb = s_B(-d)``: the two halves of D's support point ``wa - wb`` along d."""
    support_point(ca, pa, ra, qa, verts, dx, dy, dz, wa)
    support_point(cb, pb, rb, qb, verts, -dx, -dy, -dz, wb)


@_jit
def _closest_on_simplex(sim: F64, m: int, lam: F64) -> int:
    """Barycentric weights ``lam`` of the simplex point nearest the origin; returns the mask of the vertices used.

    ``sim`` rows 0..m-1 are the vertices (m <= 4). Tries every face (vertex,
    edge, triangle, and the tetrahedron itself when it holds the origin) and
    keeps the nearest projection with non-negative weights (Ericson 9.5.2's
    subsets, without Johnson's recursion). Returns 0 if none qualified.
    """
    best = math.inf
    used = 0
    for mask in range(1, 1 << m):
        idx0 = -1
        idx1 = -1
        idx2 = -1
        idx3 = -1
        k = 0
        for j in range(m):
            if (mask >> j) & 1:
                if k == 0:
                    idx0 = j
                elif k == 1:
                    idx1 = j
                elif k == 2:
                    idx2 = j
                else:
                    idx3 = j
                k += 1
        w0 = 0.0
        w1 = 0.0
        w2 = 0.0
        if k == 1:
            w0 = 1.0
        elif k == 2:
            ex = sim[idx1, 0] - sim[idx0, 0]
            ey = sim[idx1, 1] - sim[idx0, 1]
            ez = sim[idx1, 2] - sim[idx0, 2]
            ee = ex * ex + ey * ey + ez * ez
            if not ee > 0.0:
                continue
            t = -(sim[idx0, 0] * ex + sim[idx0, 1] * ey + sim[idx0, 2] * ez) / ee
            if not (t > 0.0 and t < 1.0):
                continue
            w0 = 1.0 - t
            w1 = t
        elif k == 3:
            # solve for the projection of the origin onto the plane of a, b, c (Cramer on the Gram matrix)
            abx = sim[idx1, 0] - sim[idx0, 0]
            aby = sim[idx1, 1] - sim[idx0, 1]
            abz = sim[idx1, 2] - sim[idx0, 2]
            acx = sim[idx2, 0] - sim[idx0, 0]
            acy = sim[idx2, 1] - sim[idx0, 1]
            acz = sim[idx2, 2] - sim[idx0, 2]
            ax = sim[idx0, 0]
            ay = sim[idx0, 1]
            az = sim[idx0, 2]
            d00 = abx * abx + aby * aby + abz * abz
            d01 = abx * acx + aby * acy + abz * acz
            d11 = acx * acx + acy * acy + acz * acz
            r0 = -(ax * abx + ay * aby + az * abz)
            r1 = -(ax * acx + ay * acy + az * acz)
            det = d00 * d11 - d01 * d01
            if not det > 1e-300:
                continue
            u = (r0 * d11 - r1 * d01) / det
            v = (r1 * d00 - r0 * d01) / det
            if not (u > 0.0 and v > 0.0 and u + v < 1.0):
                continue
            w0 = 1.0 - u - v
            w1 = u
            w2 = v
        else:
            # the tetrahedron: the origin's barycentric coordinates by signed volumes
            vol = _det3(sim, idx0, idx1, idx2, idx3)
            if vol == 0.0:
                continue
            # (k == 4 only when m == 4: idx0..idx3 are 0..3)
            b0 = _det3_origin(sim, 0) / vol
            b1 = _det3_origin(sim, 1) / vol
            b2 = _det3_origin(sim, 2) / vol
            b3 = _det3_origin(sim, 3) / vol
            if not (b0 > 0.0 and b1 > 0.0 and b2 > 0.0 and b3 > 0.0):
                continue
            for i in range(4):
                lam[i] = 0.0
            lam[0] = b0
            lam[1] = b1
            lam[2] = b2
            lam[3] = b3
            return 15
        px = 0.0
        py = 0.0
        pz = 0.0
        for j in range(k):
            ij = idx0 if j == 0 else (idx1 if j == 1 else idx2)
            wj = w0 if j == 0 else (w1 if j == 1 else w2)
            px += wj * sim[ij, 0]
            py += wj * sim[ij, 1]
            pz += wj * sim[ij, 2]
        dd = px * px + py * py + pz * pz
        if dd < best:
            best = dd
            used = mask
            for i in range(4):
                lam[i] = 0.0
            lam[idx0] = w0
            if k > 1:
                lam[idx1] = w1
            if k > 2:
                lam[idx2] = w2
    return used


@_jit
def _det3(p: F64, i: int, j: int, k: int, m: int) -> float:
    """det[p_j - p_i, p_k - p_i, p_m - p_i]: six times the signed volume of tetrahedron i, j, k, m."""
    ax = p[j, 0] - p[i, 0]
    ay = p[j, 1] - p[i, 1]
    az = p[j, 2] - p[i, 2]
    bx = p[k, 0] - p[i, 0]
    by = p[k, 1] - p[i, 1]
    bz = p[k, 2] - p[i, 2]
    cx = p[m, 0] - p[i, 0]
    cy = p[m, 1] - p[i, 1]
    cz = p[m, 2] - p[i, 2]
    return float(ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx))


@_jit
def _det3_origin(p: F64, slot: int) -> float:
    """``_det3`` of tetrahedron p[0..3] with vertex ``slot`` replaced by the origin."""
    # _det3 with row ``slot`` read as zeros, operation for operation (no copy: this runs in GJK's inner loop)
    ox = 0.0 if slot == 0 else p[0, 0]
    oy = 0.0 if slot == 0 else p[0, 1]
    oz = 0.0 if slot == 0 else p[0, 2]
    ax = (0.0 if slot == 1 else p[1, 0]) - ox
    ay = (0.0 if slot == 1 else p[1, 1]) - oy
    az = (0.0 if slot == 1 else p[1, 2]) - oz
    bx = (0.0 if slot == 2 else p[2, 0]) - ox
    by = (0.0 if slot == 2 else p[2, 1]) - oy
    bz = (0.0 if slot == 2 else p[2, 2]) - oz
    cx = (0.0 if slot == 3 else p[3, 0]) - ox
    cy = (0.0 if slot == 3 else p[3, 1]) - oy
    cz = (0.0 if slot == 3 else p[3, 2]) - oz
    return float(ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx))


@_jit
def _gjk(ca: int, pa: F64, ra: F64, qa: F64, cb: int, pb: F64, rb: F64, qb: F64, verts: F64, scale: float,
         sim: F64, sa: F64, sb: F64, lam: F64, res: F64, start: int, stop_above: float) -> int:
    """GJK distance of A and B. Returns the simplex size m (4: it holds the origin).

    ``stop_above``: stop as soon as the proved lower bound exceeds it (all a contact test
    needs of a pair that far apart; ``res`` then holds that bound and the simplex's v).

    ``res[0]`` = |v| (an upper bound of the distance), ``res[1]`` = the best
    lower bound met, ``res[2:5]`` = v = a - b, ``res[5:8]`` and ``res[8:11]``
    the witness points on A and B. ``sim``, ``sa``, ``sb`` (4, 3) hold the simplex
    of D and its A and B halves.
    """
    wa = np.empty(3)
    wb = np.empty(3)
    # a first direction: from B's position to A's (any nonzero one works)
    dx = pa[0] - pb[0]
    dy = pa[1] - pb[1]
    dz = pa[2] - pb[2]
    if start > 0:  # a restart: another first direction, so the descent takes another path
        dx = 1.0 if start == 1 else 0.3
        dy = 0.7 if start == 2 else -0.2
        dz = 0.5 if start == 3 else 0.1
    if dx == 0.0 and dy == 0.0 and dz == 0.0:
        dx = 1.0
    _support_pair(ca, pa, ra, qa, cb, pb, rb, qb, verts, -dx, -dy, -dz, wa, wb)
    for i in range(3):
        sa[0, i] = wa[i]
        sb[0, i] = wb[i]
        sim[0, i] = wa[i] - wb[i]
    m = 1
    lam[0] = 1.0
    vx = sim[0, 0]
    vy = sim[0, 1]
    vz = sim[0, 2]
    vv = vx * vx + vy * vy + vz * vz
    lower = 0.0
    for _ in range(200):
        if vv == 0.0:
            break
        vlen = math.sqrt(vv)
        _support_pair(ca, pa, ra, qa, cb, pb, rb, qb, verts, -vx, -vy, -vz, wa, wb)
        wx = wa[0] - wb[0]
        wy = wa[1] - wb[1]
        wz = wa[2] - wb[2]
        vw = vx * wx + vy * wy + vz * wz
        if vw / vlen > lower:
            lower = vw / vlen
        if vlen - lower <= _GJK_TOL * scale or lower > stop_above:
            break
        # the new support point must not already be in the simplex (no progress possible)
        dup = False
        for j in range(m):
            if sim[j, 0] == wx and sim[j, 1] == wy and sim[j, 2] == wz:
                dup = True
        if dup:
            break
        for i in range(3):
            sa[m, i] = wa[i]
            sb[m, i] = wb[i]
        sim[m, 0] = wx
        sim[m, 1] = wy
        sim[m, 2] = wz
        mask = _closest_on_simplex(sim, m + 1, lam)
        if mask == 0:
            break
        if mask == 15:  # the tetrahedron holds the origin
            m = 4
            vv = 0.0
            break
        k = 0
        for j in range(m + 1):
            if (mask >> j) & 1:
                lam[k] = lam[j]
                for i in range(3):
                    sim[k, i] = sim[j, i]
                    sa[k, i] = sa[j, i]
                    sb[k, i] = sb[j, i]
                k += 1
        nx = 0.0
        ny = 0.0
        nz = 0.0
        for j in range(k):
            nx += lam[j] * sim[j, 0]
            ny += lam[j] * sim[j, 1]
            nz += lam[j] * sim[j, 2]
        nn = nx * nx + ny * ny + nz * nz
        m = k
        if not nn < vv:  # rounding stalled the descent
            vx, vy, vz, vv = nx, ny, nz, min(nn, vv)
            break
        vx, vy, vz, vv = nx, ny, nz, nn
    res[0] = math.sqrt(vv)
    res[1] = lower
    res[2] = vx
    res[3] = vy
    res[4] = vz
    for i in range(3):
        a = 0.0
        b = 0.0
        for j in range(min(m, 4)):
            a += lam[j] * sa[j, i]
            b += lam[j] * sb[j, i]
        res[5 + i] = a
        res[8 + i] = b
    return m


@_jit
def _epa_add_face(P: F64, F_: NDArray[np.int64], FN: F64, nf: int, i: int, j: int, k: int, cx: float, cy: float,
                  cz: float) -> int:
    """Append face (i, j, k) oriented away from the interior point c; returns the new face count (-1: degenerate)."""
    ax = P[j, 0] - P[i, 0]
    ay = P[j, 1] - P[i, 1]
    az = P[j, 2] - P[i, 2]
    bx = P[k, 0] - P[i, 0]
    by = P[k, 1] - P[i, 1]
    bz = P[k, 2] - P[i, 2]
    nx = ay * bz - az * by
    ny = az * bx - ax * bz
    nz = ax * by - ay * bx
    ln = math.sqrt(nx * nx + ny * ny + nz * nz)
    if not ln > 0.0 or nf >= F_.shape[0]:
        return -1
    nx /= ln
    ny /= ln
    nz /= ln
    if nx * (P[i, 0] - cx) + ny * (P[i, 1] - cy) + nz * (P[i, 2] - cz) < 0.0:
        nx = -nx
        ny = -ny
        nz = -nz
        j, k = k, j
    F_[nf, 0] = i
    F_[nf, 1] = j
    F_[nf, 2] = k
    F_[nf, 3] = 1
    FN[nf, 0] = nx
    FN[nf, 1] = ny
    FN[nf, 2] = nz
    FN[nf, 3] = nx * P[i, 0] + ny * P[i, 1] + nz * P[i, 2]
    return nf + 1


@_jit
def _epa(ca: int, pa: F64, ra: F64, qa: F64, cb: int, pb: F64, rb: F64, qb: F64, verts: F64, scale: float,
         sim: F64, sa: F64, sb: F64, m: int, res: F64, P: F64, PA: F64, PB: F64, F_: NDArray[np.int64], FN: F64,
         edges: NDArray[np.int64]) -> None:
    """Penetration of A and B from GJK's simplex (origin in D): ``res[0]`` depth, ``res[2:5]`` normal A -> B,
    ``res[5:8]``, ``res[8:11]`` the deepest points of A and B along it.

    ``P``, ``PA``, ``PB`` (_EPA_VERTS, 3), ``F_`` (_EPA_FACES, 4), ``FN`` (_EPA_FACES, 4) and ``edges``
    (3 _EPA_FACES, 2) are scratch (:func:`epa_scratch`), made once per batch: each face row is
    written in full when it is added, so nothing needs clearing between pairs.
    """
    wa = np.empty(3)
    wb = np.empty(3)
    for j in range(m):
        for i in range(3):
            P[j, i] = sim[j, i]
            PA[j, i] = sa[j, i]
            PB[j, i] = sb[j, i]
    nv = m
    eps = 1e-12 * scale
    # blow a point, segment or triangle holding the origin up to a solid (van den Bergen 2001 §4.3)
    if nv == 1:
        for axis in range(3):
            d = np.zeros(3)
            d[axis] = 1.0
            _support_pair(ca, pa, ra, qa, cb, pb, rb, qb, verts, d[0], d[1], d[2], wa, wb)
            gx = wa[0] - wb[0] - P[0, 0]
            gy = wa[1] - wb[1] - P[0, 1]
            gz = wa[2] - wb[2] - P[0, 2]
            if math.sqrt(gx * gx + gy * gy + gz * gz) > eps:
                for i in range(3):
                    PA[1, i] = wa[i]
                    PB[1, i] = wb[i]
                    P[1, i] = wa[i] - wb[i]
                nv = 2
                break
    if nv == 2:
        ux = P[1, 0] - P[0, 0]
        uy = P[1, 1] - P[0, 1]
        uz = P[1, 2] - P[0, 2]
        # a direction across the segment: its cross product with the axis it is least along
        ax_ = abs(ux)
        ay_ = abs(uy)
        az_ = abs(uz)
        ex, ey, ez = (1.0, 0.0, 0.0) if ax_ <= ay_ and ax_ <= az_ else ((0.0, 1.0, 0.0) if ay_ <= az_ else
                                                                       (0.0, 0.0, 1.0))
        px = uy * ez - uz * ey
        py = uz * ex - ux * ez
        pz = ux * ey - uy * ex
        for sgn in (1.0, -1.0):
            _support_pair(ca, pa, ra, qa, cb, pb, rb, qb, verts, sgn * px, sgn * py, sgn * pz, wa, wb)
            tx = wa[0] - wb[0] - P[0, 0]
            ty = wa[1] - wb[1] - P[0, 1]
            tz = wa[2] - wb[2] - P[0, 2]
            cx = uy * tz - uz * ty
            cy = uz * tx - ux * tz
            cz = ux * ty - uy * tx
            if math.sqrt(cx * cx + cy * cy + cz * cz) > eps * math.sqrt(ux * ux + uy * uy + uz * uz):
                for i in range(3):
                    PA[2, i] = wa[i]
                    PB[2, i] = wb[i]
                    P[2, i] = wa[i] - wb[i]
                nv = 3
                break
    # the triangle's normal, kept for the flat answer below (P[0:3] do not change once nv is 3)
    nx = 0.0
    ny = 0.0
    nz = 0.0
    ln = 0.0
    if nv == 3:
        ux = P[1, 0] - P[0, 0]
        uy = P[1, 1] - P[0, 1]
        uz = P[1, 2] - P[0, 2]
        tx = P[2, 0] - P[0, 0]
        ty = P[2, 1] - P[0, 1]
        tz = P[2, 2] - P[0, 2]
        nx = uy * tz - uz * ty
        ny = uz * tx - ux * tz
        nz = ux * ty - uy * tx
        ln = math.sqrt(nx * nx + ny * ny + nz * nz)
        # the triangle holds the origin: a tetrahedron with D's support point on the side of the
        # triangle's plane that reaches farther holds it too (on its face: EPA starts from there)
        best_h = eps * ln
        for sgn in (1.0, -1.0):
            _support_pair(ca, pa, ra, qa, cb, pb, rb, qb, verts, sgn * nx, sgn * ny, sgn * nz, wa, wb)
            h = sgn * (nx * (wa[0] - wb[0] - P[0, 0]) + ny * (wa[1] - wb[1] - P[0, 1])
                       + nz * (wa[2] - wb[2] - P[0, 2]))
            if h > best_h:
                best_h = h
                for i in range(3):
                    PA[3, i] = wa[i]
                    PB[3, i] = wb[i]
                    P[3, i] = wa[i] - wb[i]
                nv = 4
    if nv < 4:
        # D is flat here: the origin is on its boundary; touching, depth 0, across the flat side
        res[0] = 0.0
        if nv == 3:
            res[2] = nx / ln
            res[3] = ny / ln
            res[4] = nz / ln
        else:
            res[2] = 1.0
            res[3] = 0.0
            res[4] = 0.0
        for i in range(3):
            res[5 + i] = PA[0, i]
            res[8 + i] = PB[0, i]
        return
    cx = 0.0
    cy = 0.0
    cz = 0.0
    for j in range(nv):
        cx += P[j, 0] / nv
        cy += P[j, 1] / nv
        cz += P[j, 2] / nv
    nf = 0
    # the scratch holds the previous pair's faces: clear the row read when no face could be made
    for c in range(4):
        F_[0, c] = 0
        FN[0, c] = 0.0
    for t in range(4):
        nf = _epa_add_face(P, F_, FN, nf, (t + 1) % 4, (t + 2) % 4, (t + 3) % 4, cx, cy, cz)
    # the nearest face met last, copied out: the compaction below may overwrite its row
    bi = np.zeros(3, dtype=np.int64)
    bn = np.zeros(4)
    for c in range(4):
        bn[c] = FN[0, c]
        if c < 3:
            bi[c] = F_[0, c]
    prev = -math.inf
    for _ in range(_EPA_VERTS):
        if nf < 0:
            break
        best = -1
        bd = math.inf
        for f in range(nf):
            if FN[f, 3] < bd:
                bd = FN[f, 3]
                best = f
        # The polytope only grows, so its nearest face never comes nearer (van den Bergen 2001 §4.3):
        # a nearer one means rounding broke it (a new point within rounding of the faces it should
        # see, 1e-11 of the size into a converging run, makes a horizon that is not a loop). The
        # last face before that is the answer; the run after it was noise.
        if best < 0 or bd < prev:
            break
        prev = bd
        for c in range(4):
            bn[c] = FN[best, c]
            if c < 3:
                bi[c] = F_[best, c]
        nx = FN[best, 0]
        ny = FN[best, 1]
        nz = FN[best, 2]
        _support_pair(ca, pa, ra, qa, cb, pb, rb, qb, verts, nx, ny, nz, wa, wb)
        wx = wa[0] - wb[0]
        wy = wa[1] - wb[1]
        wz = wa[2] - wb[2]
        if nx * wx + ny * wy + nz * wz - bd <= EPA_TOL * scale or nv >= _EPA_VERTS:
            break
        for i in range(3):
            PA[nv, i] = wa[i]
            PB[nv, i] = wb[i]
        P[nv, 0] = wx
        P[nv, 1] = wy
        P[nv, 2] = wz
        # remove the faces the new point sees (their unshared edges are the horizon) and close up the
        # rest in order, so every scan reads live faces only (the dead ones were most of them)
        ne = 0
        live = 0
        for f in range(nf):
            if not (FN[f, 0] * wx + FN[f, 1] * wy + FN[f, 2] * wz - FN[f, 3]) > eps:
                if live != f:
                    for c in range(4):
                        F_[live, c] = F_[f, c]
                        FN[live, c] = FN[f, c]
                live += 1
            else:
                for e in range(3):
                    a = F_[f, e]
                    b = F_[f, (e + 1) % 3]
                    shared = -1
                    for q in range(ne):
                        if edges[q, 0] == b and edges[q, 1] == a:
                            shared = q
                    if shared >= 0:
                        ne -= 1
                        edges[shared, 0] = edges[ne, 0]
                        edges[shared, 1] = edges[ne, 1]
                    else:
                        edges[ne, 0] = a
                        edges[ne, 1] = b
                        ne += 1
        nf = live
        if ne < 3:
            break
        nv += 1
        for q in range(ne):
            nf = _epa_add_face(P, F_, FN, nf, edges[q, 0], edges[q, 1], nv - 1, cx, cy, cz)
            if nf < 0:
                break
    nx = bn[0]
    ny = bn[1]
    nz = bn[2]
    depth = bn[3]
    # barycentric weights of the origin's projection onto the face, for the witness points
    i0 = bi[0]
    i1 = bi[1]
    i2 = bi[2]
    tri = np.empty((3, 3))
    for i in range(3):
        tri[0, i] = P[i0, i] - depth * bn[i]
        tri[1, i] = P[i1, i] - depth * bn[i]
        tri[2, i] = P[i2, i] - depth * bn[i]
    lam = np.zeros(4)
    mask = _closest_on_simplex(tri, 3, lam)
    if mask == 0:
        lam[0] = 1.0
        lam[1] = 0.0
        lam[2] = 0.0
    full = lam  # indexed by the face's vertex 0, 1, 2
    res[0] = max(depth, 0.0)
    res[2] = nx
    res[3] = ny
    res[4] = nz
    for i in range(3):
        res[5 + i] = full[0] * PA[i0, i] + full[1] * PA[i1, i] + full[2] * PA[i2, i]
        res[8 + i] = full[0] * PB[i0, i] + full[1] * PB[i1, i] + full[2] * PB[i2, i]


@_jit
def _core_rows(code: int, pos: F64, rot: F64, prm: F64, verts: F64, world: F64, first: int) -> tuple[int, int, float]:
    """Write a shape's core as a :mod:`~collideworld.geometry.gjk` piece into ``world[first:]``.

    Returns (row count, piece kind, radius): a ball is its centre grown by its
    radius, a capsule its segment grown by its, a box its 8 corners, a hull its
    vertices, a cylinder or cone gjk's curved piece (kinds 2, 3; radius 0).
    """
    n = 0
    kind = 0
    radius = 0.0
    if code == 5:
        f0 = int(prm[0])
        n = int(prm[1])
        for k in range(n):
            for i in range(3):
                world[first + k, i] = verts[f0 + k, i]
        return n, 0, 0.0
    loc = np.zeros((8, 3))
    if code == 1:
        n = 1
        radius = prm[0]
    elif code == 2:
        n = 8
        for k in range(8):
            loc[k, 0] = prm[0] if k & 1 else -prm[0]
            loc[k, 1] = prm[1] if k & 2 else -prm[1]
            loc[k, 2] = prm[2] if k & 4 else -prm[2]
    elif code == 4:
        n = 2
        for i in range(3):
            loc[0, i] = prm[i]
            loc[1, i] = prm[3 + i]
        radius = prm[6]
    else:
        n = 3
        kind = 2 if code == 7 else 3
        loc[0, 2] = -prm[1]
        loc[1, 2] = prm[1]
        loc[2, 0] = prm[0]
        loc[2, 2] = -prm[1]
    for k in range(n):
        for i in range(3):
            world[first + k, i] = rot[i, 0] * loc[k, 0] + rot[i, 1] * loc[k, 1] + rot[i, 2] * loc[k, 2] + pos[i]
    return n, kind, radius


@_jit
def epa_scratch() -> tuple[F64, F64, F64, NDArray[np.int64], F64, NDArray[np.int64]]:
    """EPA's polytope arrays (see :func:`_epa`), made once per batch of pairs rather than once per pair."""
    return (np.empty((_EPA_VERTS, 3)), np.empty((_EPA_VERTS, 3)), np.empty((_EPA_VERTS, 3)),
            np.zeros((_EPA_FACES, 4), dtype=np.int64), np.zeros((_EPA_FACES, 4)),
            np.empty((3 * _EPA_FACES, 2), dtype=np.int64))


@_jit
def support_contact(ca: int, pa: F64, ra: F64, qa: F64, cb: int, pb: F64, rb: F64, qb: F64, verts: F64,
                    scale: float, res: F64) -> float:
    """Signed depth of shapes A and B (> 0: overlap, < 0: minus the gap).

    ``res`` (11,): ``res[2:5]`` the unit normal from A to B, ``res[5:8]`` and
    ``res[8:11]`` the closest (apart) or deepest (overlapping) points of A
    and B. The cores (a ball's centre, a capsule's segment, the rest
    themselves) go to the package's GJK (``gjk.gjk_pieces``, which proves a
    gap or stops); where they are apart, the shapes' distance or depth is
    theirs less both radii (exact); where the cores overlap, GJK and EPA on
    the cores from this module's GJK simplex, the radii added back.
    """
    P, PA, PB, F_, FN, edges = epa_scratch()
    only = ca < 0  # False, computed: a literal False would be a second compile of the kernel
    return support_contact_scratch(ca, pa, ra, qa, cb, pb, rb, qb, verts, scale, res, only, P, PA, PB, F_, FN, edges)


@_jit
def support_contact_scratch(ca: int, pa: F64, ra: F64, qa: F64, cb: int, pb: F64, rb: F64, qb: F64, verts: F64,
                     scale: float, res: F64, contact_only: bool, P: F64, PA: F64, PB: F64, F_: NDArray[np.int64],
                     FN: F64, edges: NDArray[np.int64]) -> float:
    """:func:`support_contact` with EPA's scratch given (:func:`epa_scratch`).

    ``contact_only``: a pair GJK proves apart by more than :data:`_APART` of its size returns
    minus that proved lower bound of its gap (and the normal of GJK's last v) at once, instead of
    GJK's converged gap: the touching rule's answer is the same (a miss), and on curved shapes
    GJK's convergence to 1e-13 of the size (linear, so tens of iterations) is most of a miss's cost.
    """
    sim = np.empty((4, 3))
    sa = np.empty((4, 3))
    sb = np.empty((4, 3))
    lam = np.zeros(4)
    # the shapes with no radius (not a ball or capsule) are their own cores
    bare = ca != 1 and ca != 4 and cb != 1 and cb != 4
    overlap = False
    m = 0
    if contact_only:
        apart = _APART * scale
        m = _gjk(ca, pa, ra, qa, cb, pb, rb, qb, verts, scale, sim, sa, sb, lam, res, np.int64(0), apart)
        if m < 4 and res[1] > apart and res[0] > 0.0:
            for i in range(3):
                res[2 + i] = -res[2 + i] / res[0]
            res[0] = res[1]
            return float(-res[1])
        # a tetrahedron around the origin on bare shapes: the cores overlap, and this GJK is the
        # core GJK below, call for call (the stop above never fires on an overlapping pair)
        overlap = m == 4 and bare
    if not overlap:
        signed = _core_contact(ca, pa, ra, qa, cb, pb, rb, qb, verts, scale, res)
        if signed == signed:  # settled on the cores (NaN: not settled)
            return signed
    return _core_epa(ca, pa, ra, qa, cb, pb, rb, qb, verts, scale, res, sim, sa, sb, lam, m, overlap,
                     P, PA, PB, F_, FN, edges)


@_jit
def _core_contact(ca: int, pa: F64, ra: F64, qa: F64, cb: int, pb: F64, rb: F64, qb: F64, verts: F64, scale: float,
                  res: F64) -> float:
    """The cores' GJK (``gjk.gjk_pieces``): their signed distance less both radii when it proves them
    apart closely enough, else NaN (GJK and EPA on the cores decide)."""
    na = 8 if ca != 5 else int(qa[1])
    nb = 8 if cb != 5 else int(qb[1])
    world = np.empty((na + nb, 3))
    ws = np.zeros((16, 4))
    out = np.zeros(9)
    ka_n, ka_k, ka_r = _core_rows(ca, pa, ra, qa, verts, world, 0)
    kb_n, kb_k, kb_r = _core_rows(cb, pb, rb, qb, verts, world, ka_n)
    core = gjk_pieces(world, np.int64(0), ka_n, ka_k, ka_n, kb_n, kb_k, ws, out)
    rsum = ka_r + kb_r
    # Cores proved apart: the shapes' signed distance is the cores' less both radii, exact (a ball
    # is its centre grown by its radius, a capsule its segment: the margin split of van den Bergen
    # 2003, 4.3.2, as Bullet's and FCL's margins), whether the shapes themselves are apart or overlap.
    # The cores' GJK distance is only as good as its stop: within [ws[14, 1], core] (the proved
    # lower bound and |v|); when that interval is wider than _CORE_TOL (GJK stalled on a curved
    # rim a hair from a point core), EPA on the cores below decides instead.
    if core > 0.0 and ws[14, 0] == 1.0 and (rsum == 0.0 or core - ws[14, 1] <= _CORE_TOL * scale):
        for i in range(3):
            res[2 + i] = out[6 + i]
            res[5 + i] = out[i] + ka_r * out[6 + i]
            res[8 + i] = out[3 + i] - kb_r * out[6 + i]
        res[0] = core - rsum
        return rsum - core
    return math.nan


@_jit
def _core_epa(ca: int, pa: F64, ra: F64, qa: F64, cb: int, pb: F64, rb: F64, qb: F64, verts: F64, scale: float,
              res: F64, sim: F64, sa: F64, sb: F64, lam: F64, m: int, ready: bool, P: F64, PA: F64, PB: F64,
              F_: NDArray[np.int64], FN: F64, edges: NDArray[np.int64]) -> float:
    """GJK and EPA on the cores; ``ready``: the first GJK already ran (simplex in ``sim``, size ``m``)."""
    ka_r = qa[0] if ca == 1 else (qa[6] if ca == 4 else 0.0)
    kb_r = qb[0] if cb == 1 else (qb[6] if cb == 4 else 0.0)
    rsum = ka_r + kb_r
    # The cores overlap (or GJK could not settle their gap): GJK and EPA on the cores themselves
    # (radii dropped: a point or a segment instead of a ball or a capsule), the radii added back.
    # EPA on a whole ball against a cylinder's rim meets a doubly curved Minkowski difference (a
    # torus) whose polytope needs more vertices than EPA has to get within its tolerance; on the
    # cores only the cylinder or cone itself is curved.
    qa_c = qa.copy()
    qb_c = qb.copy()
    _drop_radius(ca, qa_c)
    _drop_radius(cb, qb_c)
    if not ready:
        m = _gjk(ca, pa, ra, qa_c, cb, pb, rb, qb_c, verts, scale, sim, sa, sb, lam, res, np.int64(0), math.inf)
    # GJK may stop with the origin on a face of its simplex (a triangle or less): EPA grown from
    # such a flat start can settle on a wrong face, so GJK restarts from other first directions,
    # which end in a tetrahedron around the origin when the shapes overlap by more than rounding
    for start in range(1, 4):
        if m == 4 or res[1] > 1e-14 * scale:
            break
        m = _gjk(ca, pa, ra, qa_c, cb, pb, rb, qb_c, verts, scale, sim, sa, sb, lam, res, start, math.inf)
    gap = res[0]
    lower = res[1]
    if lower > 1e-14 * scale and m < 4 and gap > 0.0:
        # cores apart by lower..gap: the shapes by that less the radii (lower: never a missed touch)
        for i in range(3):
            res[2 + i] = -res[2 + i] / gap
        for i in range(3):
            res[5 + i] += ka_r * res[2 + i]
            res[8 + i] -= kb_r * res[2 + i]
        res[0] = lower - rsum
        return float(rsum - lower)
    # EPA's answer is checked: its depth must be D's support along its normal (within its
    # tolerance), else it settled on a face inside D; then EPA runs again from GJK's other starts
    # and the least checked depth is kept
    best = math.inf
    keep = np.zeros(11)
    wa = np.empty(3)
    wb = np.empty(3)
    for start in range(4):
        if start > 0:
            m = _gjk(ca, pa, ra, qa_c, cb, pb, rb, qb_c, verts, scale, sim, sa, sb, lam, res, start, math.inf)
            if m < 4:
                continue
        _epa(ca, pa, ra, qa_c, cb, pb, rb, qb_c, verts, scale, sim, sa, sb, m, res, P, PA, PB, F_, FN, edges)
        _support_pair(ca, pa, ra, qa_c, cb, pb, rb, qb_c, verts, res[2], res[3], res[4], wa, wb)
        reach = res[2] * (wa[0] - wb[0]) + res[3] * (wa[1] - wb[1]) + res[4] * (wa[2] - wb[2])
        if reach - res[0] <= 1e-9 * scale and res[0] < best:
            best = res[0]
            for i in range(11):
                keep[i] = res[i]
            break
        if start == 0:
            for i in range(11):
                keep[i] = res[i]  # unchecked, kept only if no start gives a checked answer
    for i in range(11):
        res[i] = keep[i]
    for i in range(3):
        res[5 + i] += ka_r * res[2 + i]
        res[8 + i] -= kb_r * res[2 + i]
    res[0] += rsum
    return float(res[0])


@_jit
def _drop_radius(code: int, prm: F64) -> None:
    """A ball's or capsule's parameters made its core's (radius 0); other shapes have no radius."""
    if code == 1:
        prm[0] = 0.0
    elif code == 4:
        prm[6] = 0.0


@_jit
def support_rows(ca: NDArray[np.int64], pa: F64, ra: F64, qa: F64, cb: NDArray[np.int64], pb: F64, rb: F64,
                 qb: F64, verts: F64, scale: F64, signed: F64, normal: F64, points: F64,
                 contact_only: bool = False) -> None:
    """:func:`support_contact` for every row: ``signed`` (N,), ``normal`` (N, 3), ``points`` (N, 6).

    ``contact_only``: a pair clearly apart gets a proved lower bound of its gap (minus it in
    ``signed``), not the gap itself: all the touching rule needs (see :func:`support_contact_scratch`).
    """
    res = np.zeros(11)
    P, PA, PB, F_, FN, edges = epa_scratch()
    for r in range(ca.shape[0]):
        signed[r] = support_contact_scratch(ca[r], pa[r], ra[r], qa[r], cb[r], pb[r], rb[r], qb[r], verts, scale[r],
                                            res, contact_only, P, PA, PB, F_, FN, edges)
        for i in range(3):
            normal[r, i] = res[2 + i]
            points[r, i] = res[5 + i]
            points[r, 3 + i] = res[8 + i]


@_jit
def halfspace_rows(normal: F64, offset: F64, cb: NDArray[np.int64], pb: F64, rb: F64, qb: F64, verts: F64,
                   signed: F64, lowest: F64) -> None:
    """A half-space ``n.x <= offset`` against shapes B: ``signed = offset - n.s_B(-n)``, ``lowest`` = s_B(-n)."""
    out = np.empty(3)
    for r in range(cb.shape[0]):
        nx = normal[r, 0]
        ny = normal[r, 1]
        nz = normal[r, 2]
        support_point(cb[r], pb[r], rb[r], qb[r], verts, -nx, -ny, -nz, out)
        signed[r] = offset[r] - (nx * out[0] + ny * out[1] + nz * out[2])
        lowest[r, 0] = out[0]
        lowest[r, 1] = out[1]
        lowest[r, 2] = out[2]


def contact_support(ca: NDArray[np.int64], pa: F64, ra: F64, qa: F64, cb: NDArray[np.int64], pb: F64, rb: F64,
                    qb: F64, verts: F64, scale: F64) -> ContactArrays:
    """Contacts of N pairs of finite 3D shapes given as support rows (see the module's table).

    Parameters
    ----------
    ca, cb : ndarray of int64, shape (N,)
        Kind codes.
    pa, pb : ndarray, shape (N, 3)
        World positions.
    ra, rb : ndarray, shape (N, 3, 3)
        Local-to-world rotations.
    qa, qb : ndarray, shape (N, 8)
        Parameters.
    verts : ndarray, shape (M, 3)
        World vertices of the hull rows.
    scale : ndarray, shape (N,)
        Coordinate magnitude of each pair: the touching tolerance and EPA's are relative to it.

    Returns
    -------
    ContactArrays
        The normal from a to b; depth within ``EPA_TOL * scale`` below the true depth where hit; where
        apart, minus a proved lower bound of the gap (the gap itself within ``1e-9 * scale``).

    Examples
    --------
    A unit sphere at the origin and an upright cylinder (radius 1, half height 1) centred at
    (1.5, 0, 0) overlap by 0.5 along +x; moved to (2.5, 0, 0) they are 0.5 apart, a miss:

    >>> import numpy as np
    >>> one = np.ones(2, dtype=np.int64)
    >>> q = np.zeros((2, 8)); q[:, 0] = 1.0; q[:, 1] = 1.0
    >>> c = contact_support(one, np.zeros((2, 3)), np.stack([np.eye(3)] * 2), q, 7 * one,
    ...                     np.array([[1.5, 0, 0], [2.5, 0, 0]]), np.stack([np.eye(3)] * 2), q, np.zeros((1, 3)),
    ...                     np.full(2, 4.0))
    >>> c.hit.tolist(), np.round(c.depth[:1], 9).tolist(), (np.round(c.normal[0], 5) + 0.0).tolist()  # EPA: ~1e-6
    ([True, False], [0.5], [1.0, 0.0, 0.0])
    >>> bool(-0.5 <= c.depth[1] < 0.0)  # the miss: minus a proved lower bound of its gap (GJK stopped early)
    True
    """
    n = len(ca)
    signed = np.empty(n)
    normal = np.empty((n, 3))
    points = np.empty((n, 6))
    support_rows(np.ascontiguousarray(ca, dtype=np.int64), pa, ra, qa, np.ascontiguousarray(cb, dtype=np.int64),
                 pb, rb, qb, np.ascontiguousarray(verts, dtype=np.float64), np.asarray(scale, dtype=np.float64),
                 signed, normal, points, True)
    return finish(signed, normal, scale)


def contact_halfspace_support(normal: F64, offset: F64, cb: NDArray[np.int64], pb: F64, rb: F64, qb: F64,
                              verts: F64, scale: F64) -> ContactArrays:
    """Half-spaces ``normal . x <= offset`` against finite 3D shapes given as support rows.

    The closed form: b's support point along ``-normal`` is its lowest point,
    ``depth = offset - normal . s_b(-normal)``, exact for every shape here.

    Examples
    --------
    The floor z <= 0 and an upright cone (radius 1, half height 1) centred at z = 0.75:
    its base at z = -0.25 is 0.25 deep.

    >>> import numpy as np
    >>> q = np.zeros((1, 8)); q[0, :2] = 1.0
    >>> c = contact_halfspace_support(np.array([[0.0, 0, 1]]), np.zeros(1), np.array([8]),
    ...                               np.array([[0, 0, 0.75]]), np.eye(3)[None], q, np.zeros((1, 3)), np.ones(1))
    >>> c.hit.tolist(), c.depth.tolist()
    ([True], [0.25])
    """
    n = len(cb)
    signed = np.empty(n)
    lowest = np.empty((n, 3))
    halfspace_rows(np.ascontiguousarray(normal, dtype=np.float64), np.asarray(offset, dtype=np.float64),
                   np.ascontiguousarray(cb, dtype=np.int64), pb, rb, qb, np.ascontiguousarray(verts, dtype=np.float64),
                   signed, lowest)
    return finish_halfspace(normal, offset, offset - signed, scale)


def support_witnesses(ca: NDArray[np.int64], pa: F64, ra: F64, qa: F64, cb: NDArray[np.int64], pb: F64, rb: F64,
                      qb: F64, verts: F64, scale: F64) -> tuple[F64, F64, F64]:
    """(signed depth (N,), normal (N, 3), points (N, 6)): :func:`contact_support` before the touching rule,
    with the closest (apart) or deepest (overlapping) points of a (``[:, :3]``) and b (``[:, 3:]``).

    Examples
    --------
    A unit sphere 0.5 deep in the side of an upright cylinder (radius 1, half height 1) at (1.5, 0, 0):
    the sphere's deepest point is (1, 0, 0), the cylinder's (0.5, 0, 0).

    >>> import numpy as np
    >>> q = np.zeros((1, 8)); q[0, :2] = 1.0
    >>> signed, normal, points = support_witnesses(np.array([1]), np.zeros((1, 3)), np.eye(3)[None], q,
    ...                                            np.array([7]), np.array([[1.5, 0, 0]]), np.eye(3)[None], q,
    ...                                            np.zeros((1, 3)), np.full(1, 4.0))
    >>> np.round(signed, 9).tolist(), (np.round(points, 6) + 0.0).tolist()
    ([0.5], [[1.0, 0.0, 0.0, 0.5, 0.0, 0.0]])
    """
    n = len(ca)
    signed = np.empty(n)
    normal = np.empty((n, 3))
    points = np.empty((n, 6))
    support_rows(np.ascontiguousarray(ca, dtype=np.int64), pa, ra, qa, np.ascontiguousarray(cb, dtype=np.int64),
                 pb, rb, qb, np.ascontiguousarray(verts, dtype=np.float64), np.asarray(scale, dtype=np.float64),
                 signed, normal, points, False)
    return signed, normal, points


def lowest_points(normal: F64, cb: NDArray[np.int64], pb: F64, rb: F64, qb: F64, verts: F64) -> F64:
    """Each shape's point farthest along ``-normal`` (N, 3): where it reaches deepest into a half-space.

    Examples
    --------
    An upright cone (radius 1, half height 1) at the origin: lowest along +z is its base (a point of
    the base disc: its centre), lowest along -z its apex.

    >>> import numpy as np
    >>> q = np.zeros((2, 8)); q[:, :2] = 1.0
    >>> lowest_points(np.array([[0.0, 0, 1], [0, 0, -1]]), np.array([8, 8]), np.zeros((2, 3)),
    ...               np.stack([np.eye(3)] * 2), q, np.zeros((1, 3))).tolist()
    [[0.0, 0.0, -1.0], [0.0, 0.0, 1.0]]
    """
    signed = np.empty(len(cb))
    lowest = np.empty((len(cb), 3))
    halfspace_rows(np.ascontiguousarray(normal, dtype=np.float64), np.zeros(len(cb)),
                   np.ascontiguousarray(cb, dtype=np.int64), pb, rb, qb, np.ascontiguousarray(verts, dtype=np.float64),
                   signed, lowest)
    return lowest
