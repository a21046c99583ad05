"""Compiled twins of ``geometry/manifold_hull.py``: hull contact points one pair at a time.

The same steps as the numpy twin (see its notes), per row, with every
scratch array allocated once per call: the hull's feature along a direction
(:func:`_feature_row`), then the clip of two feature loops seen along the
normal (:func:`_loops_row`), reduced to four points by the row routine the
box manifolds use.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..manifold_hull import MAX_FEATURE
from ..manifold_support import FACE_CODE, FEATURE_SLOP, ManifoldArrays
from .kernel_support import as_rows
from .manifold_capsule_support import round_row, segment_feature_row
from .manifold_support import (
    box_feature_row,
    edge_code_row,
    edge_crossing_row,
    height_on,
    kept_points_row,
    manifold_outputs,
    points_in_slots_row,
    reduce_row,
    segment_distance,
    store_row,
)

__all__ = ["manifold_halfspace_hull", "manifold_ball_hull", "manifold_box_hull", "manifold_capsule_hull",
           "manifold_hull_hull"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

K = MAX_FEATURE
#: Candidates of a clip: each loop's corners over the other, and every pair of edges crossing.
M = 2 * K + K * K


@njit(cache=True)
def _basis(x: float, y: float, z: float, t1: F64, t2: F64) -> None:
    """Two unit vectors completing (x, y, z) to an orthonormal frame (the numpy twin's ``_plane_basis``)."""
    s = -1.0 if z < 0 else 1.0
    a = -1.0 / (s + z)
    b = x * y * a
    t1[0], t1[1], t1[2] = 1.0 + s * x * x * a, s * b, -s * x
    t2[0], t2[1], t2[2] = b, s + y * y * a, -y


@njit(cache=True)
def _feature_row(verts: F64, normals: F64, dx: float, dy: float, dz: float, loop: F64, lids: I64, fn: F64,
                 drop: F64, order: I64, angle: F64, t1: F64, t2: F64, xy: F64,
                 convex: bool | np.bool_ = True) -> tuple[int, int]:
    """The hull's touching feature along d: (count, code); ``loop`` (K, 3), ``lids`` (K,), ``fn`` (3,) filled.

    ``drop`` (V,), ``order`` (V,), ``angle`` (K,), ``t1``, ``t2`` (3,), ``xy`` (K, 2) are scratch;
    ``convex`` as the numpy twin's (its ``_convex_loop``).
    """
    nv = verts.shape[0]
    top = 0
    high = -math.inf
    for k in range(nv):
        h = verts[k, 0] * dx + verts[k, 1] * dy + verts[k, 2] * dz
        if h > high:
            high = h
            top = k
    for k in range(nv):
        h = verts[k, 0] * dx + verts[k, 1] * dy + verts[k, 2] * dz
        dr = high - h
        padding = k > 0 and verts[k, 0] == verts[k - 1, 0] and verts[k, 1] == verts[k - 1, 1] \
            and verts[k, 2] == verts[k - 1, 2]
        # the tilt slop from the top vertex (0.57 degrees), as the numpy twin
        rx = verts[k, 0] - verts[top, 0]
        ry = verts[k, 1] - verts[top, 1]
        rz = verts[k, 2] - verts[top, 2]
        reach = math.sqrt(rx * rx + ry * ry + rz * rz)
        within = k == top or (dr <= FEATURE_SLOP * reach and not padding)
        drop[k] = dr if within else math.inf
    # the (at most K) smallest drops, ties by index (the numpy twin's stable argsort)
    count = 0
    for k in range(nv):
        if drop[k] < math.inf:
            count += 1
    count = min(count, K)
    for k in range(nv):
        order[k] = k
    for j in range(count):
        best = j
        for k in range(j + 1, nv):
            if drop[order[k]] < drop[order[best]] or (drop[order[k]] == drop[order[best]]
                                                      and order[k] < order[best]):
                best = k
        order[j], order[best] = order[best], order[j]
    # angular order about the centroid, across d
    _basis(dx, dy, dz, t1, t2)
    cx = 0.0
    cy = 0.0
    cz = 0.0
    for j in range(count):
        cx += verts[order[j], 0]
        cy += verts[order[j], 1]
        cz += verts[order[j], 2]
    cx /= count
    cy /= count
    cz /= count
    for j in range(count):
        ox = verts[order[j], 0] - cx
        oy = verts[order[j], 1] - cy
        oz = verts[order[j], 2] - cz
        angle[j] = math.atan2(ox * t2[0] + oy * t2[1] + oz * t2[2], ox * t1[0] + oy * t1[1] + oz * t1[2])
    for j in range(1, count):  # insertion sort: stable
        a = angle[j]
        o = order[j]
        m = j - 1
        while m >= 0 and angle[m] > a:
            angle[m + 1] = angle[m]
            order[m + 1] = order[m]
            m -= 1
        angle[m + 1] = a
        order[m + 1] = o
    if convex:  # the convex outline: drop the first reflex (or straight) vertex at a time, keep 3
        for j in range(count):
            ox = verts[order[j], 0] - cx
            oy = verts[order[j], 1] - cy
            oz = verts[order[j], 2] - cz
            xy[j, 0] = ox * t1[0] + oy * t1[1] + oz * t1[2]
            xy[j, 1] = ox * t2[0] + oy * t2[1] + oz * t2[2]
        for _ in range(K - 3):
            if count <= 3:
                break
            first = -1
            for j in range(count):
                pj = j - 1 if j > 0 else count - 1
                nj = j + 1 if j + 1 < count else 0
                turn = (xy[j, 0] - xy[pj, 0]) * (xy[nj, 1] - xy[j, 1]) - (xy[j, 1] - xy[pj, 1]) * (xy[nj, 0] - xy[j, 0])
                if turn <= 0:
                    first = j
                    break
            if first < 0:
                break
            for j in range(first, count - 1):
                order[j] = order[j + 1]
                xy[j, 0] = xy[j + 1, 0]
                xy[j, 1] = xy[j + 1, 1]
            count -= 1
    for j in range(K):
        src = order[j] if j < count else order[count - 1]
        lids[j] = src
        for d in range(3):
            loop[j, d] = verts[src, d]
    face = 0
    best_dot = -math.inf
    for f in range(normals.shape[0]):
        c = normals[f, 0] * dx + normals[f, 1] * dy + normals[f, 2] * dz
        if c > best_dot:
            best_dot = c
            face = f
    for d in range(3):
        fn[d] = normals[face, d] + 0.0
    if count >= 3:
        return count, FACE_CODE | face
    return count, edge_code_row(lids[0], lids[1] if count >= 2 else lids[0])


@njit(cache=True)
def _inside(qx: float, qy: float, loop: F64, count: int, eps: float) -> bool:
    """q over the projected loop with ``count`` live corners (or within eps of it)."""
    dist = math.inf
    pos = False
    neg = False
    edges = count if count >= 3 else 1
    for k in range(edges):
        m = k + 1 if k + 1 < count else 0
        dist = min(dist, segment_distance(qx, qy, loop[k, 0], loop[k, 1], loop[m, 0], loop[m, 1]))
        ex = loop[m, 0] - loop[k, 0]
        ey = loop[m, 1] - loop[k, 1]
        cr = ex * (qy - loop[k, 1]) - ey * (qx - loop[k, 0])
        neg = neg or cr < 0
        pos = pos or cr > 0
    return (count >= 3 and not (neg and pos)) or dist <= eps


@njit(cache=True)
def _surface_prep(verts: F64, normals: F64, loop: F64, cnt: int, dx: float, dy: float, dz: float,
                  offsets: F64) -> tuple[float, float]:
    """The numpy twin's ``_surface_over`` set-up: face offsets into ``offsets`` (F,), and (top, band) along d."""
    nv = verts.shape[0]
    for f in range(normals.shape[0]):
        best = -math.inf
        for v in range(nv):
            best = max(best, normals[f, 0] * verts[v, 0] + normals[f, 1] * verts[v, 1] + normals[f, 2] * verts[v, 2])
        offsets[f] = best
    top = -math.inf
    for v in range(nv):
        top = max(top, verts[v, 0] * dx + verts[v, 1] * dy + verts[v, 2] * dz)
    low = math.inf
    for j in range(cnt):
        low = min(low, loop[j, 0] * dx + loop[j, 1] * dy + loop[j, 2] * dz)
    return top, top - low


@njit(cache=True)
def _surface_row(p: F64, normals: F64, offsets: F64, dx: float, dy: float, dz: float, top: float, band: float,
                 eps: float) -> None:
    """Move p (3,) along d onto the hull's own surface (the numpy twin's ``_surface_over``, one point)."""
    t0 = top - (p[0] * dx + p[1] * dy + p[2] * dz)
    q0 = p[0] + t0 * dx
    q1 = p[1] + t0 * dy
    q2 = p[2] + t0 * dz
    t = 0.0
    for f in range(normals.shape[0]):
        c = normals[f, 0] * dx + normals[f, 1] * dy + normals[f, 2] * dz
        if c > 0:
            r = offsets[f] - (q0 * normals[f, 0] + q1 * normals[f, 1] + q2 * normals[f, 2])
            if r < -eps:
                t = min(t, r / c)
    t = max(t, -band)
    p[0] = q0 + t * dx
    p[1] = q1 + t * dy
    p[2] = q2 + t * dz


@njit(cache=True)
def _loops_row(ca: F64, ida: I64, cnt_a: int, fna: F64, codea: int, cb: F64, idb: I64, cnt_b: int, fnb: F64,
               codeb: int, n: F64, scale: float, i: int, cand: F64, flt: F64, flags: NDArray[np.bool_],
               cid: I64, points: F64, seps: F64, ids: I64, count: I64, grazing: bool | np.bool_,
               hull_a: bool | np.bool_, va: F64, na: F64, hull_b: bool | np.bool_, vb: F64, nb: F64,
               offs: F64) -> None:
    """Row i of the numpy twin's ``manifold_loops_3d``.

    ``hull_a`` / ``hull_b``: that side is the hull ``va, na`` / ``vb, nb``
    (its points lifted onto its own surface, :func:`_surface_row`).
    Scratch: ``cand`` (M, 6), ``flt`` (4 + 2K, 3), ``flags`` (2, M), ``cid`` (M + 4,), ``offs`` (2, F).
    """
    t1, t2, pa, pb = flt[0], flt[1], flt[2], flt[3]
    la, lb = flt[4:4 + K, :2], flt[4 + K:4 + 2 * K, :2]
    _basis(n[0], n[1], n[2], t1, t2)
    o = ca[0]
    for k in range(K):
        r0, r1, r2 = ca[k, 0] - o[0], ca[k, 1] - o[1], ca[k, 2] - o[2]
        la[k, 0] = r0 * t1[0] + r1 * t1[1] + r2 * t1[2]
        la[k, 1] = r0 * t2[0] + r1 * t2[1] + r2 * t2[2]
        r0, r1, r2 = cb[k, 0] - o[0], cb[k, 1] - o[1], cb[k, 2] - o[2]
        lb[k, 0] = r0 * t1[0] + r1 * t1[1] + r2 * t1[2]
        lb[k, 1] = r0 * t2[0] + r1 * t2[1] + r2 * t2[2]
    eps = 1e-9 * scale
    # the live corners as their features' free dimensions (2 face, 1 edge, 0 vertex), as height_on takes them
    free_a = np.int64(2 if cnt_a >= 3 else (1 if cnt_a == 2 else 0))
    free_b = np.int64(2 if cnt_b >= 3 else (1 if cnt_b == 2 else 0))
    valid, keep = flags[0], flags[1]
    n0, n1, n2 = n[0], n[1], n[2]
    top_a, band_a, top_b, band_b = 0.0, 0.0, 0.0, 0.0
    if hull_a:
        top_a, band_a = _surface_prep(va, na, ca, cnt_a, n0, n1, n2, offs[0])
    if hull_b:
        top_b, band_b = _surface_prep(vb, nb, cb, cnt_b, -n0, -n1, -n2, offs[1])
    for k in range(K):
        valid[k] = k < cnt_a and _inside(la[k, 0], la[k, 1], lb, cnt_b, eps)
        height_on(ca[k], la[k, 0], la[k, 1], cb, lb, free_b, fnb, n, pb)
        for c in range(3):
            pa[c] = ca[k, c]
        if valid[k] and hull_a:
            _surface_row(pa, na, offs[0], n0, n1, n2, top_a, band_a, eps)
        if valid[k] and hull_b:
            _surface_row(pb, nb, offs[1], -n0, -n1, -n2, top_b, band_b, eps)
        store_row(cand, k, pa, pb, n)
        cid[k] = (np.int64(ida[k]) << 32) | codeb
        valid[K + k] = k < cnt_b and _inside(lb[k, 0], lb[k, 1], la, cnt_a, eps)
        height_on(cb[k], lb[k, 0], lb[k, 1], ca, la, free_a, fna, n, pa)
        for c in range(3):
            pb[c] = cb[k, c]
        if valid[K + k] and hull_a:
            _surface_row(pa, na, offs[0], n0, n1, n2, top_a, band_a, eps)
        if valid[K + k] and hull_b:
            _surface_row(pb, nb, offs[1], -n0, -n1, -n2, top_b, band_b, eps)
        store_row(cand, K + k, pa, pb, n)
        cid[K + k] = (np.int64(codea) << 32) | idb[k]
    for ei in range(K):
        ea_live = ei < cnt_a and (ei < 1 or cnt_a >= 3) and cnt_a >= 2
        ni = ei + 1 if ei + 1 < cnt_a else 0
        for ej in range(K):
            eb_live = ej < cnt_b and (ej < 1 or cnt_b >= 3) and cnt_b >= 2
            nj = ej + 1 if ej + 1 < cnt_b else 0
            slot = 2 * K + K * ei + ej
            edge_crossing_row(la, lb, ca, cb, ida, idb, ei, ni, ej, nj, ea_live and eb_live, slot, n,
                              pa, pb, cand, valid, cid)
            if valid[slot] and (hull_a or hull_b):
                if hull_a:
                    _surface_row(pa, na, offs[0], n0, n1, n2, top_a, band_a, eps)
                if hull_b:
                    _surface_row(pb, nb, offs[1], -n0, -n1, -n2, top_b, band_b, eps)
                store_row(cand, slot, pa, pb, n)
    for k in range(M):
        r0, r1, r2 = cand[k, 0] - o[0], cand[k, 1] - o[1], cand[k, 2] - o[2]
        cand[k, 3] = r0 * t1[0] + r1 * t1[1] + r2 * t1[2]
        cand[k, 4] = r0 * t2[0] + r1 * t2[1] + r2 * t2[2]
    used = kept_points_row(cand, valid, keep, cid, eps, i, points, seps, ids)
    if used == 0 and grazing:  # the normal grazes the features: one point between the first corners
        for d in range(3):
            points[i, 0, d] = 0.5 * (ca[0, d] + cb[0, d])
        seps[i, 0] = (cb[0, 0] - ca[0, 0]) * n[0] + (cb[0, 1] - ca[0, 1]) * n[1] + (cb[0, 2] - ca[0, 2]) * n[2]
        ids[i, 0] = (np.int64(codea) << 32) | codeb
        used = 1
    count[i] = used


@njit(cache=True)
def _row_scale(x: F64) -> float:
    s = 0.0
    for v in x.ravel():
        s = max(s, abs(v))
    return s


@njit(cache=True)
def _halfspace_rows(pn: F64, offset: F64, verts: F64, normals: F64, normal: F64, points: F64, seps: F64, ids: I64,
                    count: I64) -> None:
    nv = verts.shape[1]
    loop = np.empty((K, 3))
    lids = np.empty(K, dtype=np.int64)
    fn = np.empty(3)
    drop = np.empty(nv)
    order = np.empty(nv, dtype=np.int64)
    angle = np.empty(K)
    t1 = np.empty(3)
    t2 = np.empty(3)
    xy = np.empty((K, 2))
    cand = np.empty((K, 6))
    keep = np.empty(K, dtype=np.bool_)
    chosen = np.empty(4, dtype=np.int64)
    for i in range(normal.shape[0]):
        n = normal[i]
        cnt, _ = _feature_row(verts[i], normals[i], -n[0], -n[1], -n[2], loop, lids, fn, drop, order, angle, t1, t2,
                              xy, np.bool_(False))  # a plane's points are the vertices themselves
        _basis(n[0], n[1], n[2], t1, t2)
        for k in range(K):
            sep = loop[k, 0] * pn[i, 0] + loop[k, 1] * pn[i, 1] + loop[k, 2] * pn[i, 2] - offset[i]
            for d in range(3):
                cand[k, d] = loop[k, d] - 0.5 * sep * n[d]
            cand[k, 3] = cand[k, 0] * t1[0] + cand[k, 1] * t1[1] + cand[k, 2] * t1[2]
            cand[k, 4] = cand[k, 0] * t2[0] + cand[k, 1] * t2[1] + cand[k, 2] * t2[2]
            cand[k, 5] = sep
            keep[k] = k < cnt
        reduce_row(cand, keep, chosen)
        count[i] = points_in_slots_row(cand, chosen, lids, i, points, seps, ids)


@njit(cache=True)
def _ball_rows(center: F64, radius: F64, verts: F64, normals: F64, normal: F64, depth: F64, points: F64,
               seps: F64, ids: I64, count: I64) -> None:
    nv = verts.shape[1]
    loop = np.empty((K, 3))
    lids = np.empty(K, dtype=np.int64)
    fn = np.empty(3)
    drop = np.empty(nv)
    order = np.empty(nv, dtype=np.int64)
    angle = np.empty(K)
    t1 = np.empty(3)
    t2 = np.empty(3)
    xy = np.empty((K, 2))
    for i in range(normal.shape[0]):
        n = normal[i]
        _, code = _feature_row(verts[i], normals[i], -n[0], -n[1], -n[2], loop, lids, fn, drop, order, angle,
                               t1, t2, xy, np.bool_(True))
        for d in range(3):
            points[i, 0, d] = (center[i, d] + radius[i] * n[d]) + 0.5 * -depth[i] * n[d]
        seps[i, 0] = -depth[i]
        ids[i, 0] = code
        count[i] = 1


@njit(cache=True)
def _loops_scratch(nv: int, nf: int) -> tuple[F64, F64, I64, I64, F64, F64, F64, I64, F64, F64, F64, F64, I64, F64,
                                             F64, NDArray[np.bool_], I64, F64, F64]:
    """Scratch arrays of one manifold call against hulls of up to ``nv`` vertices and ``nf`` faces, reused by every row.

    ``(loop_a, loop_b, lid_a, lid_b, fn_a, fn_b)``: both features' loops, ids
    and normals; ``(drop, order, angle, t1, t2)``: :func:`_feature_row`'s
    work; a 4-point feature of side a and its ids; ``(cand, flt, flags,
    cid)``: :func:`_loops_row`'s clipping work; ``xy`` (K, 2) the outline's
    work; ``offs`` (2, nf) the face offsets of :func:`_surface_row`.
    """
    return (np.empty((K, 3)), np.empty((K, 3)), np.empty(K, dtype=np.int64), np.empty(K, dtype=np.int64),
            np.empty(3), np.empty(3), np.empty(nv), np.empty(nv, dtype=np.int64), np.empty(K), np.empty(3),
            np.empty(3), np.empty((4, 3)), np.empty(4, dtype=np.int64), np.empty((M, 6)),
            np.empty((4 + 2 * K, 3)), np.empty((2, M), dtype=np.bool_), np.empty(M + 4, dtype=np.int64),
            np.empty((K, 2)), np.empty((2, max(nf, 1))))


@njit(cache=True)
def _pair_rows(box: bool, ca: F64, ra: F64, ha: F64, va: F64, na: F64, vb: F64, nb: F64, normal: F64,
               points: F64, seps: F64, ids: I64, count: I64) -> None:
    nv = max(va.shape[1], vb.shape[1])
    (loop_a, loop_b, lid_a, lid_b, fn_a, fn_b, drop, order, angle, t1, t2, box4, box_ids, cand, flt, flags,
     cid, xy, offs) = _loops_scratch(nv, max(na.shape[1], nb.shape[1]))
    for i in range(normal.shape[0]):
        n = normal[i]
        if box:
            free, code_a = box_feature_row(ca[i], ra[i], ha[i], n[0], n[1], n[2], box4, box_ids, fn_a)
            cnt_a = 4 if free == 2 else (2 if free == 1 else 1)
            for k in range(K):
                src = min(k, 3)
                lid_a[k] = box_ids[src]
                for d in range(3):
                    loop_a[k, d] = box4[src, d]
            scale = max(_row_scale(ca[i]), _row_scale(ha[i]))
        else:
            cnt_a, code_a = _feature_row(va[i], na[i], n[0], n[1], n[2], loop_a, lid_a, fn_a, drop, order, angle,
                                         t1, t2, xy, np.bool_(True))
            scale = _row_scale(va[i])
        cnt_b, code_b = _feature_row(vb[i], nb[i], -n[0], -n[1], -n[2], loop_b, lid_b, fn_b, drop, order, angle,
                                     t1, t2, xy, np.bool_(True))
        scale = max(scale, _row_scale(vb[i]))
        # np.bool_: a constant argument (or an omitted default) is typed as its literal value,
        # and numba would compile _loops_row once for each
        _loops_row(loop_a, lid_a, cnt_a, fn_a, code_a, loop_b, lid_b, cnt_b, fn_b, code_b, n, scale, i, cand, flt,
                   flags, cid, points, seps, ids, count, np.bool_(True), np.bool_(not box), va[i], na[i],
                   np.bool_(True), vb[i], nb[i], offs)


@njit(cache=True)
def _capsule_rows(p0: F64, p1: F64, radius: F64, vb: F64, nb: F64, normal: F64, depth: F64, points: F64,
                  seps: F64, ids: I64, count: I64) -> None:
    nv = vb.shape[1]
    (loop_a, loop_b, lid_a, lid_b, fn_a, fn_b, drop, order, angle, t1, t2, ends, end_ids, cand, flt, flags,
     cid, xy, offs) = _loops_scratch(nv, nb.shape[1])
    for i in range(normal.shape[0]):
        n = normal[i]
        free, code_a = segment_feature_row(p0[i], p1[i], n[0], n[1], n[2], ends, end_ids)
        cnt_a = 2 if free == 1 else 1
        for k in range(K):
            src = min(k, 3)
            lid_a[k] = end_ids[src]
            for d in range(3):
                loop_a[k, d] = ends[src, d]
        for d in range(3):
            fn_a[d] = n[d]
        scale = max(_row_scale(p0[i]), _row_scale(p1[i]), abs(radius[i]), _row_scale(vb[i]))
        cnt_b, code_b = _feature_row(vb[i], nb[i], -n[0], -n[1], -n[2], loop_b, lid_b, fn_b, drop, order, angle,
                                     t1, t2, xy, np.bool_(True))
        _loops_row(loop_a, lid_a, cnt_a, fn_a, code_a, loop_b, lid_b, cnt_b, fn_b, code_b, n, scale, i, cand, flt,
                   flags, cid, points, seps, ids, count, np.bool_(False),  # not literals: see _pair_rows
                   np.bool_(False), vb[i], nb[i], np.bool_(True), vb[i], nb[i], offs)
        if count[i] == 0:  # no overlap seen along n: as the numpy twin, a sphere's point under the corner
            sep0 = radius[i] - depth[i]
            for d in range(3):
                points[i, 0, d] = loop_a[0, d] + (0.5 * sep0) * n[d]
            seps[i, 0] = sep0
            ids[i, 0] = (np.int64(code_a) << 32) | code_b
            count[i] = 1
        round_row(i, normal, radius[i], 0.0, points, seps, count)


def manifold_halfspace_hull(plane_normal: F64, offset: F64, verts: F64, normals: F64, normal: F64,
                            depth: F64) -> ManifoldArrays:
    """Twin of the numpy ``manifold_halfspace_hull``.

    Parameters
    ----------
    plane_normal : ndarray, shape (N, 3)
    offset : ndarray, shape (N,)
    verts : ndarray, shape (N, V, 3)
    normals : ndarray, shape (N, F, 3)
    normal : ndarray, shape (N, 3)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
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
    n = as_rows(normal)
    out = manifold_outputs(n.shape[0], 3)
    _halfspace_rows(as_rows(plane_normal), as_rows(offset), as_rows(verts), as_rows(normals), n, *out)
    return out


def manifold_ball_hull(center: F64, radius: F64, verts: F64, normals: F64, normal: F64,
                       depth: F64) -> ManifoldArrays:
    """Twin of the numpy ``manifold_ball_hull``.

    Parameters
    ----------
    center : ndarray, shape (N, 3)
    radius : ndarray, shape (N,)
    verts, normals : ndarray
        The hulls.
    normal : ndarray, shape (N, 3)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays

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
    n = as_rows(normal)
    out = manifold_outputs(n.shape[0], 3)
    _ball_rows(as_rows(center), as_rows(radius), as_rows(verts), as_rows(normals), n, as_rows(depth), *out)
    return out


def manifold_box_hull(center: F64, rotation: F64, half: F64, verts: F64, normals: F64, normal: F64,
                      depth: F64) -> ManifoldArrays:
    """Twin of the numpy ``manifold_box_hull``.

    Parameters
    ----------
    center : ndarray, shape (N, 3)
    rotation : ndarray, shape (N, 3, 3)
    half : ndarray, shape (N, 3)
    verts, normals : ndarray
        The hulls.
    normal : ndarray, shape (N, 3)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
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
    n = as_rows(normal)
    out = manifold_outputs(n.shape[0], 3)
    v = as_rows(verts)
    _pair_rows(True, as_rows(center), as_rows(rotation), as_rows(half), v, as_rows(normals), v, as_rows(normals), n,
               *out)
    return out


def manifold_capsule_hull(p0: F64, p1: F64, radius: F64, verts: F64, normals: F64, normal: F64,
                          depth: F64) -> ManifoldArrays:
    """Twin of the numpy ``manifold_capsule_hull``.

    Parameters
    ----------
    p0, p1 : ndarray, shape (N, 3)
    radius : ndarray, shape (N,)
    verts, normals : ndarray
        The hulls.
    normal : ndarray, shape (N, 3)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
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
    n = as_rows(normal)
    out = manifold_outputs(n.shape[0], 3)
    _capsule_rows(as_rows(p0), as_rows(p1), as_rows(radius), as_rows(verts), as_rows(normals), n, as_rows(depth),
                  *out)
    return out


def manifold_hull_hull(verts_a: F64, normals_a: F64, verts_b: F64, normals_b: F64, normal: F64,
                       depth: F64) -> ManifoldArrays:
    """Twin of the numpy ``manifold_hull_hull``.

    Parameters
    ----------
    verts_a, normals_a : ndarray
        Hulls a.
    verts_b, normals_b : ndarray
        Hulls b.
    normal : ndarray, shape (N, 3)
    depth : ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    >>> import itertools
    >>> import numpy as np
    >>> from collideworld import ConvexHull
    >>> cube = ConvexHull(list(itertools.product((-1, 1), repeat=3)))
    >>> v, f = np.asarray(cube.vertices)[None], np.asarray(cube.normals)[None]
    >>> m = manifold_hull_hull(v, f, v + [0, 0, 1.9], f, np.array([[0.0, 0.0, 1.0]]), np.array([0.1]))
    >>> int(m.count[0]), sorted(m.points[0].tolist())
    (4, [[-1.0, -1.0, 0.95], [-1.0, 1.0, 0.95], [1.0, -1.0, 0.95], [1.0, 1.0, 0.95]])
    """
    n = as_rows(normal)
    out = manifold_outputs(n.shape[0], 3)
    empty = np.zeros((n.shape[0], 3))
    _pair_rows(False, empty, np.zeros((n.shape[0], 3, 3)), empty, as_rows(verts_a), as_rows(normals_a),
               as_rows(verts_b), as_rows(normals_b), n, *out)
    return out
