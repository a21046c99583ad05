"""Compiled twin of ``geometry/contact_triangle.py``: grown polytopes against triangles, with the no-snag rule.

One loop over rows does what the numpy twin does in whole-array steps, in
the same order, with no allocation per row::

    SAT: a's face normals and the triangle's (both ways), then every
        (edge of a) x (edge of the triangle), each axis measured by projecting
        every vertex of both sides (a triangle is flat: its edges' arcs on the
        Gauss map are half circles, so no edge pair is pruned)
    a sphere or a capsule (a point or a segment grown by r), unless an axis
        separates it by more than r + SAT_REJECT * scale: d = the distance of
        the closest points in closed form (closest_point_triangle,
        closest_segment_triangle, the numpy twin's), then as GJK's d below
    if the cores overlap (least overlap >= 0): depth = r + overlap, along its axis
    elif an axis separates them by more than r + SAT_REJECT * scale: a miss
        (a separating axis is a lower bound of the gap), depth r + overlap
    else d = GJK distance of the polytope and the triangle (geometry/gjk.gjk_closest,
        the routine the numpy twin's driver calls: the same bits)
        if d > 1e-9 * scale: depth = r - d, along GJK's direction
        else the SAT's axis, its gap if that proves a wider one
    the touching rule; then the no-snag rule (Bullet's btInternalEdgeUtility):
        a normal that is not the face normal and comes from an inactive edge
        or vertex becomes the face normal, depth measured along it

The projections are sums of three products taken left to right where numpy's
batched matrix products may round differently, so the twins agree to rounding
(about 1e-15 of the pair's size), as the other compiled hull kernels do.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..gjk import gjk_closest
from ..result import ContactArrays
from .capsule_support import closest_segment_segment_row
from .kernel_support import as_rows, contact_outputs, touch_rule

__all__ = ["contact_polytope_triangle", "contact_triangle_rows", "contact_triangle_slots"]

F64 = NDArray[np.float64]

#: |cos| of the angle between a contact normal and a face normal above which the contact is a face contact
#: (the numpy twin's FACE_COS).
FACE_COS = 1.0 - 1e-9
#: A SAT axis separating a pair by more than this fraction of its scale decides a miss without GJK
#: (the numpy twin's SAT_REJECT).
SAT_REJECT = 1e-9


@njit(cache=True)
def _try_axis(x: float, y: float, z: float, pts: F64, na: int, nb: int, best: F64) -> None:
    """The overlaps of a and b along the unit axis (x, y, z), one way and the other, into ``best[4:6]``.

    ``pts`` holds a's ``na`` vertices, then b's ``nb`` (relative to a's first vertex).
    """
    amax, amin, bmax, bmin = -np.inf, np.inf, -np.inf, np.inf
    for k in range(na):
        p = x * pts[k, 0] + y * pts[k, 1] + z * pts[k, 2]
        amax = max(amax, p)
        amin = min(amin, p)
    for k in range(na, na + nb):
        p = x * pts[k, 0] + y * pts[k, 1] + z * pts[k, 2]
        bmax = max(bmax, p)
        bmin = min(bmin, p)
    best[4] = amax - bmin
    best[5] = bmax - amin


@njit(cache=True)
def _sat_row(pts: F64, na: int, normals: F64, nfa: int, edges: F64, nea: int, face: F64, tedge: F64,
             best: F64, cand: F64) -> None:
    """The least overlap over the SAT axes (``best[0]``) and its normal (``best[1:4]``), in numpy's axis order.

    numpy (contact_hull._sat) tries a group of axes one way, keeps the first least overlap if it
    beats the best so far (strictly), then the other way, then the next group: the same here.
    Each axis is projected once for both ways (``cand`` (M, 6), M >= the larger group: the unit
    axis, its overlap one way and the other, and 1.0 where the axis exists). Each of a's edges
    is made unit once for its three crosses, and each axis once for its projection and ``cand``
    (the same divisions as numpy's _unit_rows, done fewer times: the same bits).
    """
    best[0] = np.inf
    best[1], best[2], best[3] = 1.0, 0.0, 0.0
    ax, ay, az, la = 0.0, 0.0, 0.0, 0.0
    # the face group: a's normals, then the triangle's; then the edge group (a's edges x the triangle's)
    for group in range(2):
        count = nfa + 1 if group == 0 else nea * 3
        for m in range(count):
            cand[m, 5] = 0.0
            if group == 0:
                if m < nfa:
                    x, y, z = normals[m, 0], normals[m, 1], normals[m, 2]
                else:
                    x, y, z = face[0], face[1], face[2]
            else:
                i, j = m // 3, m % 3
                if j == 0:
                    # unit edges first, as numpy's _unit_rows
                    ax, ay, az = edges[i, 0], edges[i, 1], edges[i, 2]
                    la = math.sqrt(ax * ax + ay * ay + az * az)
                    if la > 0.0:
                        ax, ay, az = ax / la, ay / la, az / la
                if not la > 0.0:
                    continue
                bx, by, bz = tedge[j, 0], tedge[j, 1], tedge[j, 2]
                x = ay * bz - az * by
                y = az * bx - ax * bz
                z = ax * by - ay * bx
            length = math.sqrt(x * x + y * y + z * z)
            if not length > 0.0:
                continue
            x, y, z = x / length, y / length, z / length
            _try_axis(x, y, z, pts, na, 3, best)
            cand[m, 0], cand[m, 1], cand[m, 2] = x, y, z
            cand[m, 3], cand[m, 4], cand[m, 5] = best[4], best[5], 1.0
        for way in range(2):
            sign = 1.0 if way == 0 else -1.0
            low, lx, ly, lz = np.inf, 0.0, 0.0, 0.0
            for m in range(count):
                if cand[m, 5] == 0.0:
                    continue
                over = cand[m, 3] if way == 0 else cand[m, 4]
                if over < low:
                    low = over
                    lx, ly, lz = cand[m, 0], cand[m, 1], cand[m, 2]
            if low < best[0]:
                best[0] = low
                best[1], best[2], best[3] = sign * lx, sign * ly, sign * lz


@njit(cache=True)
def _closest_point_triangle(px: float, py: float, pz: float, tri: F64, q: F64) -> bool:
    """The closest point of triangle ``tri`` (3, 3) to (px, py, pz) into ``q`` (numpy twin: closest_point_triangle);
    whether it is in the face's region.

    Ericson's Voronoi regions (RTCD 5.1.5) in the numpy twin's order, the same sums.
    """
    ax, ay, az = tri[0, 0], tri[0, 1], tri[0, 2]
    bx, by, bz = tri[1, 0], tri[1, 1], tri[1, 2]
    cx, cy, cz = tri[2, 0], tri[2, 1], tri[2, 2]
    abx, aby, abz = bx - ax, by - ay, bz - az
    acx, acy, acz = cx - ax, cy - ay, cz - az
    apx, apy, apz = px - ax, py - ay, pz - az
    bpx, bpy, bpz = px - bx, py - by, pz - bz
    cpx, cpy, cpz = px - cx, py - cy, pz - cz
    d1 = abx * apx + aby * apy + abz * apz
    d2 = acx * apx + acy * apy + acz * apz
    d3 = abx * bpx + aby * bpy + abz * bpz
    d4 = acx * bpx + acy * bpy + acz * bpz
    d5 = abx * cpx + aby * cpy + abz * cpz
    d6 = acx * cpx + acy * cpy + acz * cpz
    va, vb, vc = d3 * d6 - d5 * d4, d5 * d2 - d1 * d6, d1 * d4 - d3 * d2
    if d1 <= 0.0 and d2 <= 0.0:
        q[0], q[1], q[2] = ax, ay, az
    elif d3 >= 0.0 and d4 <= d3:
        q[0], q[1], q[2] = bx, by, bz
    elif vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        v = d1 / (d1 - d3)
        q[0], q[1], q[2] = ax + abx * v, ay + aby * v, az + abz * v
    elif d6 >= 0.0 and d5 <= d6:
        q[0], q[1], q[2] = cx, cy, cz
    elif vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        w = d2 / (d2 - d6)
        q[0], q[1], q[2] = ax + acx * w, ay + acy * w, az + acz * w
    elif va <= 0.0 and d4 - d3 >= 0.0 and d5 - d6 >= 0.0:
        w = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        q[0], q[1], q[2] = bx + (cx - bx) * w, by + (cy - by) * w, bz + (cz - bz) * w
    else:
        face_sum = va + vb + vc
        inv = 1.0 / (face_sum if face_sum != 0.0 else 1.0)
        v, w = vb * inv, vc * inv
        q[0], q[1], q[2] = ax + abx * v + acx * w, ay + aby * v + acy * w, az + abz * v + acz * w
        return True
    return False


@njit(cache=True)
def _keep_nearer(ws: F64, p: int, q: int, face: bool) -> None:
    """Rows ``p``, ``q`` of ``ws`` (a point on the segment, one on the triangle) replace the best pair
    (rows 6, 7; squared distance ``ws[8, 0]``, 1.0 in ``ws[8, 1]`` where ``q`` is over the face) where
    strictly nearer."""
    dx, dy, dz = ws[q, 0] - ws[p, 0], ws[q, 1] - ws[p, 1], ws[q, 2] - ws[p, 2]
    d = dx * dx + dy * dy + dz * dz
    if d < ws[8, 0]:
        ws[8, 0] = d
        ws[8, 1] = 1.0 if face else 0.0
        for k in range(3):
            ws[6, k] = ws[p, k]
            ws[7, k] = ws[q, k]


@njit(cache=True)
def _closest_segment_triangle(verts: F64, tri: F64, ws: F64) -> None:
    """Closest points of segment ``verts[0]``-``verts[1]`` and ``tri`` into ``ws[6]`` (segment) and ``ws[7]``.

    The numpy twin's closest_segment_triangle: the ends, the three edges, the
    plane crossing, in that order, the first nearest kept. ``ws`` (16, 4) is
    scratch (rows 0-8).
    """
    for k in range(3):
        ws[0, k] = verts[0, k]
        ws[1, k] = verts[1, k] - verts[0, k]
    f = _closest_point_triangle(verts[0, 0], verts[0, 1], verts[0, 2], tri, ws[7])
    for k in range(3):
        ws[6, k] = verts[0, k]
    dx, dy, dz = ws[7, 0] - ws[6, 0], ws[7, 1] - ws[6, 1], ws[7, 2] - ws[6, 2]
    ws[8, 0] = dx * dx + dy * dy + dz * dz
    ws[8, 1] = 1.0 if f else 0.0
    f = _closest_point_triangle(verts[1, 0], verts[1, 1], verts[1, 2], tri, ws[5])
    for k in range(3):
        ws[4, k] = verts[1, k]
    _keep_nearer(ws, 4, 5, f)
    for e in range(3):
        for k in range(3):
            ws[2, k] = tri[e, k]
            ws[3, k] = tri[(e + 1) % 3, k] - tri[e, k]
        s, t = closest_segment_segment_row(ws[0], ws[1], ws[2], ws[3], ws[9], 3)
        for k in range(3):
            ws[4, k] = ws[0, k] + ws[1, k] * s
            ws[5, k] = ws[2, k] + ws[3, k] * t
        _keep_nearer(ws, 4, 5, False)
    abx, aby, abz = tri[1, 0] - tri[0, 0], tri[1, 1] - tri[0, 1], tri[1, 2] - tri[0, 2]
    acx, acy, acz = tri[2, 0] - tri[0, 0], tri[2, 1] - tri[0, 1], tri[2, 2] - tri[0, 2]
    nx = aby * acz - abz * acy
    ny = abz * acx - abx * acz
    nz = abx * acy - aby * acx
    h0 = (verts[0, 0] - tri[0, 0]) * nx + (verts[0, 1] - tri[0, 1]) * ny + (verts[0, 2] - tri[0, 2]) * nz
    h1 = (verts[1, 0] - tri[0, 0]) * nx + (verts[1, 1] - tri[0, 1]) * ny + (verts[1, 2] - tri[0, 2]) * nz
    if (h0 < 0.0 and h1 > 0.0) or (h0 > 0.0 and h1 < 0.0):
        u = h0 / (h0 - h1)
        for k in range(3):
            ws[4, k] = ws[0, k] + ws[1, k] * u
        f = _closest_point_triangle(ws[4, 0], ws[4, 1], ws[4, 2], tri, ws[5])
        _keep_nearer(ws, 4, 5, f)


@njit(cache=True)
def _row(verts: F64, na: int, normals: F64, nfa: int, edges: F64, nea: int, radius: float, tri: F64,
         active: NDArray[np.bool_], rel: float, floor: float, pts: F64, ws: F64, out: F64, face: F64, tedge: F64,
         best: F64, height: F64, res: F64, cand: F64) -> bool:
    """One pair: polytope ``verts[:na]`` (faces ``normals[:nfa]``, edges ``edges[:nea]``) grown by ``radius``
    against triangle ``tri`` (3, 3) with edge flags ``active``; the hit, and ``res`` = (normal, depth).

    ``pts`` (na + 3, 3), ``ws``, ``out``, ``face``, ``tedge``, ``best``, ``height`` and ``cand``
    (max(nfa + 1, 3 nea), 6) are scratch.
    """
    # the triangle's unit face normal and unit edges (edge k: vertex k -> k + 1), as triangle_polytope
    for k in range(3):
        for d in range(3):
            tedge[k, d] = tri[(k + 1) % 3, d] - tri[k, d]
    e0x, e0y, e0z = tedge[0, 0], tedge[0, 1], tedge[0, 2]
    e2x, e2y, e2z = -tedge[2, 0], -tedge[2, 1], -tedge[2, 2]
    cx = e0y * e2z - e0z * e2y
    cy = e0z * e2x - e0x * e2z
    cz = e0x * e2y - e0y * e2x
    cl = math.sqrt(cx * cx + cy * cy + cz * cz)
    face[0], face[1], face[2] = cx / cl + 0.0, cy / cl + 0.0, cz / cl + 0.0
    scale = radius
    for k in range(na):
        for d in range(3):
            scale = max(scale, abs(verts[k, d]))
            pts[k, d] = verts[k, d] - verts[0, d]
    tscale = 0.0
    for k in range(3):
        for d in range(3):
            tscale = max(tscale, abs(tri[k, d]))
            pts[na + k, d] = tri[k, d] - verts[0, d]
    scale = max(scale, tscale)
    for k in range(3):
        ln = math.sqrt(tedge[k, 0] * tedge[k, 0] + tedge[k, 1] * tedge[k, 1] + tedge[k, 2] * tedge[k, 2])
        for d in range(3):
            tedge[k, d] = tedge[k, d] / ln
    # the SAT first (numpy twin: contact_polytope_triangle): the cores overlap, or an axis separates
    # the pair by more than SAT_REJECT of its scale (a miss, whatever GJK says), and GJK is not needed
    _sat_row(pts, na, normals, nfa, edges, nea, face, tedge, best, cand)
    certified: float = radius + best[0]
    nx, ny, nz = best[1], best[2], best[3]
    signed = certified
    round_core = nfa == 0 and ((na == 1 and nea == 0) or (na == 2 and nea == 1))
    if round_core and certified >= -SAT_REJECT * scale:
        # a sphere or a capsule: the closest points in closed form, not GJK (numpy twin: _closed_form)
        if na == 1:
            for k in range(3):
                ws[6, k] = verts[0, k]
            in_face = _closest_point_triangle(verts[0, 0], verts[0, 1], verts[0, 2], tri, ws[7])
        else:
            _closest_segment_triangle(verts, tri, ws)
            in_face = ws[8, 1] == 1.0
        dx, dy, dz = ws[7, 0] - ws[6, 0], ws[7, 1] - ws[6, 1], ws[7, 2] - ws[6, 2]
        dist = math.sqrt(dx * dx + dy * dy + dz * dz)
        div = dist
        if in_face:
            # over the face: the height along the unit face normal (numpy twin: _closed_form)
            up = ((ws[6, 0] - tri[0, 0]) * face[0] + (ws[6, 1] - tri[0, 1]) * face[1]
                  + (ws[6, 2] - tri[0, 2]) * face[2])
            dist = abs(up)
            div = 1.0
            sg = -1.0 if up > 0.0 else 1.0
            dx, dy, dz = face[0] * sg, face[1] * sg, face[2] * sg
        signed = radius - dist
        if dist > 1e-9 * scale:
            nx, ny, nz = dx / div, dy / div, dz / div
        elif best[0] >= 0.0 or certified < signed - 2e-13 * scale:
            signed = certified
    elif not round_core and best[0] < 0.0 and certified >= -SAT_REJECT * scale:
        dist = gjk_closest(pts, np.int64(0), na, na, np.int64(3), ws, out)  # no literals: one compile
        if ws[14, 0] == 0.0:  # no proof of a gap (GJK stopped by rounding): the SAT decides
            dist = 0.0
        signed = radius - dist
        if dist > 1e-9 * scale:
            nx, ny, nz = out[6], out[7], out[8]
        # a separating axis proves a gap at least that wide (see contact_hull.contact_polytopes)
        elif certified < signed - 2e-13 * scale:
            signed = certified
    h = signed >= -(rel * max(floor, scale))
    dep = max(signed, 0.0) if h else signed
    nx, ny, nz = nx + 0.0, ny + 0.0, nz + 0.0
    # the no-snag rule (numpy twin: contact_triangle.no_snag)
    tx, ty, tz = -nx, -ny, -nz
    cos = face[0] * tx + face[1] * ty + face[2] * tz
    if h and abs(cos) < FACE_COS and not (active[0] and active[1] and active[2]):
        vscale = 0.0
        for k in range(3):
            height[k] = tri[k, 0] * tx + tri[k, 1] * ty + tri[k, 2] * tz
        for k in range(na):
            for d in range(3):
                vscale = max(vscale, abs(verts[k, d]))
        top = max(height[0], max(height[1], height[2]))
        sc = tscale + vscale + radius
        on0 = height[0] >= top - 1e-9 * sc
        on1 = height[1] >= top - 1e-9 * sc
        on2 = height[2] >= top - 1e-9 * sc
        count = int(on0) + int(on1) + int(on2)
        a0, a1, a2 = active[0], active[1], active[2]
        keep = True
        if count == 2:
            keep = (on0 and on1 and a0) or (on1 and on2 and a1) or (on2 and on0 and a2)
        elif count == 1:
            keep = (on0 and (a0 or a2)) or (on1 and (a1 or a0)) or (on2 and (a2 or a1))
        if not keep:
            side = 1.0
            if cos != 0.0:
                side = 1.0 if cos > 0.0 else -1.0
            else:
                mx, my, mz = 0.0, 0.0, 0.0
                for k in range(na):
                    mx += verts[k, 0]
                    my += verts[k, 1]
                    mz += verts[k, 2]
                ux = tri[0, 0] + tri[1, 0] + tri[2, 0]
                uy = tri[0, 1] + tri[1, 1] + tri[2, 1]
                uz = tri[0, 2] + tri[1, 2] + tri[2, 2]
                gx, gy, gz = mx / na - ux / 3, my / na - uy / 3, mz / na - uz / 3
                if gx * face[0] + gy * face[1] + gz * face[2] < 0.0:
                    side = -1.0
            fx, fy, fz = face[0] * side, face[1] * side, face[2] * side
            lowest = np.inf
            for k in range(na):
                lowest = min(lowest, verts[k, 0] * fx + verts[k, 1] * fy + verts[k, 2] * fz)
            lowest -= radius
            dep = max(tri[0, 0] * fx + tri[0, 1] * fy + tri[0, 2] * fz - lowest, 0.0)
            nx, ny, nz = -fx + 0.0, -fy + 0.0, -fz + 0.0
    res[0], res[1], res[2], res[3] = nx, ny, nz, dep
    return h


@njit(cache=True)
def _rows(verts: F64, normals: F64, edges: F64, radius: F64, tri: F64, active: NDArray[np.bool_],
          rel: float, floor: float, hit: NDArray[np.bool_], normal: F64, depth: F64) -> None:
    n, na = verts.shape[0], verts.shape[1]
    nfa, nea = normals.shape[1], edges.shape[1]
    pts = np.empty((na + 3, 3))
    ws = np.zeros((16, 4))
    out = np.zeros(9)
    face = np.empty(3)
    tedge = np.empty((3, 3))
    best = np.empty(6)
    height = np.empty(3)
    res = np.empty(4)
    cand = np.empty((max(nfa + 1, 3 * nea), 6))
    for r in range(n):
        hit[r] = _row(verts[r], na, normals[r], nfa, edges[r], nea, radius[r], tri[r], active[r], rel, floor, pts,
                      ws, out, face, tedge, best, height, res, cand)
        normal[r, 0], normal[r, 1], normal[r, 2] = res[0], res[1], res[2]
        depth[r] = res[3]


# Kind codes of collideworld.bodies.Kind (this package may not import it; a test checks they agree).
BALL, BOX, CAPSULE, TRIANGLE = 1, 2, 4, 13


@njit(cache=True)
def _slot_rows(rows: NDArray[np.int64], ia: NDArray[np.int64], ib: NDArray[np.int64], kind: NDArray[np.int8],
               position: F64, rotation: F64, radius: F64, half: F64, seg0: F64, seg1: F64, tri: F64,
               tri_active: NDArray[np.bool_], rel: float, floor: float, hit: NDArray[np.bool_], normal: F64,
               depth: F64, other: NDArray[np.bool_]) -> None:
    pts = np.empty((11, 3))
    ws = np.zeros((16, 4))
    out = np.zeros(9)
    face = np.empty(3)
    tedge = np.empty((3, 3))
    best = np.empty(6)
    height = np.empty(3)
    res = np.empty(4)
    verts = np.empty((8, 3))
    axes = np.empty((3, 3))
    seg = np.empty((1, 3))
    world = np.empty((3, 3))
    cand = np.empty((9, 6))  # a box's 3 x 3 edge axes at most
    for i in range(rows.shape[0]):
        # pair rows[i] of ia, ib, written in place in the outputs (the caller's rows, no gather or scatter)
        n = rows[i]
        a, b = ia[n], ib[n]
        swap = kind[a] == TRIANGLE
        if swap:
            a, b = b, a
        ka = kind[a]
        if kind[b] != TRIANGLE or not (ka == BALL or ka == BOX or ka == CAPSULE):
            other[i] = True
            continue
        other[i] = False
        # the triangle's world vertices, as BodyStore.triangle_rows: R v + p
        for k in range(3):
            for d in range(3):
                world[k, d] = (tri[b, k, 0] * rotation[b, d, 0] + tri[b, k, 1] * rotation[b, d, 1]
                               + tri[b, k, 2] * rotation[b, d, 2]) + position[b, d]
        r = 0.0
        if ka == BALL:
            for d in range(3):
                verts[0, d] = position[a, d]
            na, nfa, nea, r = 1, 0, 0, radius[a]
        elif ka == BOX:
            # corner c has bit 2 (x), 1 (y), 0 (z) set on the + side (narrowphase._BOX_CORNERS' order)
            for c in range(8):
                sx = half[a, 0] if c & 4 else -half[a, 0]
                sy = half[a, 1] if c & 2 else -half[a, 1]
                sz = half[a, 2] if c & 1 else -half[a, 2]
                for d in range(3):
                    verts[c, d] = position[a, d] + (rotation[a, d, 0] * sx + rotation[a, d, 1] * sy
                                                    + rotation[a, d, 2] * sz)
            for k in range(3):
                for d in range(3):
                    axes[k, d] = rotation[a, d, k]
            na, nfa, nea = 8, 3, 3
        else:
            for d in range(3):
                verts[0, d] = position[a, d] + (rotation[a, d, 0] * seg0[a, 0] + rotation[a, d, 1] * seg0[a, 1]
                                                + rotation[a, d, 2] * seg0[a, 2])
                verts[1, d] = position[a, d] + (rotation[a, d, 0] * seg1[a, 0] + rotation[a, d, 1] * seg1[a, 1]
                                                + rotation[a, d, 2] * seg1[a, 2])
                seg[0, d] = verts[1, d] - verts[0, d]
            na, nfa, nea, r = 2, 0, 1, radius[a]
        h = _row(verts, na, axes, nfa, seg if ka == CAPSULE else axes, nea, r, world, tri_active[b], rel, floor,
                 pts, ws, out, face, tedge, best, height, res, cand)
        hit[n] = h
        sign = -1.0 if swap else 1.0
        normal[n, 0], normal[n, 1], normal[n, 2] = sign * res[0] + 0.0, sign * res[1] + 0.0, sign * res[2] + 0.0
        depth[n] = res[3]


def contact_triangle_slots(ia: NDArray[np.int64], ib: NDArray[np.int64], kind: NDArray[np.int8], position: F64,
                           rotation: F64, radius: F64, half: F64, seg0: F64, seg1: F64, tri: F64,
                           tri_active: NDArray[np.bool_]) -> tuple[ContactArrays, NDArray[np.bool_]]:
    """Pairs of store slots with a triangle part slot on one side and a ball, box or capsule on the other.

    The compiled narrowphase's path for mesh and heightfield contacts: the
    columns read by slot (no gathering), each pair through the row routine
    of :func:`contact_polytope_triangle`, the normal from ``ia`` towards
    ``ib``. Returns the contacts and ``other``: the pairs of any other kinds,
    left for the grouped path (their rows of the contacts unspecified).

    Examples
    --------
    A unit sphere 0.75 above a mesh's one triangle sinks 0.25 into it:

    >>> import numpy as np
    >>> from collideworld import Sphere, TriangleMesh
    >>> from collideworld.bodies import BodyStore
    >>> store = BodyStore(3)
    >>> s = store.allocate(2)
    >>> store.set_shapes(s, [Sphere(1.0), TriangleMesh([(0, 0, 0), (2, 0, 0), (0, 2, 0)], [(0, 1, 2)])])
    >>> store.set_poses(s, np.array([[0.5, 0.5, 0.75], [0.0, 0.0, 0.0]]), quaternion=np.tile([1.0, 0, 0, 0], (2, 1)))
    >>> tri = store.part_slots[store.parts_at[s[1]]]
    >>> res, other = contact_triangle_slots(s[:1], np.array([tri]), store.kind, store.position, store.rotation,
    ...                                     store.radius, store.half, store.seg0, store.seg1, store.tri,
    ...                                     store.tri_active)
    >>> bool(res.hit[0]), round(float(res.depth[0]), 12), res.normal[0].tolist(), other.tolist()
    (True, 0.25, [0.0, 0.0, -1.0], [False])
    """
    n = len(ia)
    res = contact_outputs(n, 3)
    other = contact_triangle_rows(np.arange(n), ia, ib, kind, position, rotation, radius, half, seg0, seg1, tri,
                                  tri_active, res.hit, res.normal, res.depth)
    return res, other


def contact_triangle_rows(rows: NDArray[np.int64], ia: NDArray[np.int64], ib: NDArray[np.int64],
                          kind: NDArray[np.int8], position: F64, rotation: F64, radius: F64, half: F64, seg0: F64,
                          seg1: F64, tri: F64, tri_active: NDArray[np.bool_], hit: NDArray[np.bool_], normal: F64,
                          depth: F64) -> NDArray[np.bool_]:
    """:func:`contact_triangle_slots` on pairs ``rows`` of ``ia``, ``ib``, written in place in rows ``rows`` of
    ``hit``, ``normal``, ``depth`` (the narrowphase's outputs: no gather of the pairs, no scatter of the
    answers); returns ``other`` (len(rows),), the pairs left to the grouped path (their rows untouched).

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Sphere, TriangleMesh
    >>> from collideworld.bodies import BodyStore
    >>> store = BodyStore(3)
    >>> s = store.allocate(3)
    >>> store.set_shapes(s, [Sphere(1.0), Sphere(1.0), TriangleMesh([(0, 0, 0), (2, 0, 0), (0, 2, 0)], [(0, 1, 2)])])
    >>> store.set_poses(s, np.array([[0.5, 0.5, 0.75], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]),
    ...                 quaternion=np.tile([1.0, 0, 0, 0], (3, 1)))
    >>> tri = store.part_slots[store.parts_at[s[2]]]
    >>> hit, normal, depth = np.zeros(2, dtype=bool), np.zeros((2, 3)), np.zeros(2)
    >>> other = contact_triangle_rows(np.array([1]), np.array([s[0], s[0]]), np.array([s[1], tri]), store.kind,
    ...                               store.position, store.rotation, store.radius, store.half, store.seg0,
    ...                               store.seg1, store.tri, store.tri_active, hit, normal, depth)
    >>> other.tolist(), hit.tolist(), depth.round(12).tolist()
    ([False], [False, True], [0.0, 0.25])
    """
    other = np.empty(len(rows), dtype=np.bool_)
    if len(rows):
        rel, floor = touch_rule()
        _slot_rows(np.ascontiguousarray(rows, dtype=np.int64), np.ascontiguousarray(ia, dtype=np.int64),
                   np.ascontiguousarray(ib, dtype=np.int64), kind, position, rotation, radius, half, seg0, seg1,
                   tri, tri_active, rel, floor, hit, normal, depth, other)
    return other


def contact_polytope_triangle(verts: F64, normals: F64, edges: F64, radius: F64, tri: F64,
                              active: NDArray[np.bool_]) -> ContactArrays:
    """Contacts of N grown polytopes (a) with N triangles (b); the numpy twin's arguments and results.

    Examples
    --------
    >>> import numpy as np
    >>> tri = np.array([[[0.0, 0, 0], [2.0, 0, 0], [0.0, 2.0, 0]]])
    >>> c = contact_polytope_triangle(np.array([[[0.5, 0.5, 0.75]]]), np.zeros((1, 0, 3)), np.zeros((1, 0, 3)),
    ...                               np.ones(1), tri, np.ones((1, 3), dtype=bool))
    >>> bool(c.hit[0]), round(float(c.depth[0]), 12), c.normal[0].tolist()
    (True, 0.25, [0.0, 0.0, -1.0])
    """
    n = len(tri)
    out = contact_outputs(n, 3)
    if n:
        rel, floor = touch_rule()
        _rows(as_rows(verts), as_rows(normals), as_rows(edges), as_rows(radius), as_rows(tri),
              np.ascontiguousarray(active, dtype=np.bool_), rel, floor, out.hit, out.normal, out.depth)
    return out
