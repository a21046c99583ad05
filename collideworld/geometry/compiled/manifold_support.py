"""Compiled twin of ``geometry/manifold_support.py``: the manifold pieces, one row at a time.

Each ``*_row`` function does for one pair what its numpy twin does for all
rows at once, with the same arithmetic in the same order, so the two
backends give the same points, separations and ids (tests/test_manifolds.py).

NOTE: like ``kernel_support.py``, numba's cache of a kernel does not notice
edits here; delete the ``.nbi``/``.nbc`` files after editing.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..manifold_support import FACE_CODE, FEATURE_SLOP, ManifoldArrays, empty_manifold

__all__ = ["box_feature_row", "convex_2d_row", "edge_code_row", "features_3d_row", "halfspace_points_row",
           "manifold_outputs", "support_ends_row"]


def manifold_outputs(n: int, dim: int) -> ManifoldArrays:
    """Output arrays for N rows, every slot unused (NaN, -1, count 0).

    Examples
    --------
    >>> manifold_outputs(3, 2).ids.shape
    (3, 2)
    """
    return empty_manifold(n, dim)


@njit(cache=True)
def edge_code_row(i: int, j: int) -> int:
    """Feature code of the segment between vertices i and j (the vertex's when equal)."""
    lo = min(i, j) & 0xFFF
    hi = max(i, j) & 0xFFF
    if i == j:
        return lo
    return lo | ((hi + 1) << 12)


@njit(cache=True)
def support_ends_row(v: NDArray[np.float64], dx: float, dy: float) -> tuple[int, int]:
    """Ends (lo, hi) of the touching feature of vertices v (K, 2) along (dx, dy)."""
    k = v.shape[0]
    top = 0
    best = v[0, 0] * dx + v[0, 1] * dy
    for j in range(1, k):
        h = v[j, 0] * dx + v[j, 1] * dy
        if h > best:
            best = h
            top = j
    tx, ty = -dy, dx
    lo = -1
    hi = -1
    tlo = math.inf
    thi = -math.inf
    for j in range(k):
        h = v[j, 0] * dx + v[j, 1] * dy
        rx = v[j, 0] - v[top, 0]
        ry = v[j, 1] - v[top, 1]
        if best - h <= FEATURE_SLOP * math.hypot(rx, ry):
            t = v[j, 0] * tx + v[j, 1] * ty
            if t < tlo:
                tlo = t
                lo = j
            if t > thi:
                thi = t
                hi = j
    return lo, hi


@njit(cache=True)
def _on_segment(p0x: float, p0y: float, p1x: float, p1y: float, t0: float, t1: float,
                t: float) -> tuple[float, float]:
    span = t1 - t0
    s = (t - t0) / span if span > 0 else 0.0
    s = min(max(s, 0.0), 1.0)
    return p0x + s * (p1x - p0x), p0y + s * (p1y - p0y)


@njit(cache=True)
def convex_2d_row(va: NDArray[np.float64], vb: NDArray[np.float64], nx: float, ny: float, part_a: int,
                  part_b: int, i: int, points: NDArray[np.float64], seps: NDArray[np.float64],
                  ids: NDArray[np.int64], count: NDArray[np.int64]) -> None:
    """Row i of ``manifold_convex_2d``."""
    lo_a, hi_a = support_ends_row(va, nx, ny)
    lo_b, hi_b = support_ends_row(vb, -nx, -ny)
    tx, ty = -ny, nx
    a0x, a0y, a1x, a1y = va[lo_a, 0], va[lo_a, 1], va[hi_a, 0], va[hi_a, 1]
    b0x, b0y, b1x, b1y = vb[hi_b, 0], vb[hi_b, 1], vb[lo_b, 0], vb[lo_b, 1]
    ib_lo, ib_hi = hi_b, lo_b
    ta0 = a0x * tx + a0y * ty
    ta1 = a1x * tx + a1y * ty
    tb0 = b0x * tx + b0y * ty
    tb1 = b1x * tx + b1y * ty
    pa_bits = (part_a & 0x7F) << 24
    pb_bits = (part_b & 0x7F) << 24
    code_fa = edge_code_row(lo_a, hi_a) | pa_bits
    code_fb = edge_code_row(lo_b, hi_b) | pb_bits
    lo = max(ta0, tb0)
    hi = min(ta1, tb1)
    width = max(ta1 - ta0, tb1 - tb0)
    two = (hi - lo) > 1e-9 * width
    empty = lo > hi
    mid = 0.5 * (lo + hi)
    used = 2 if (two and not empty) else 1
    for slot in range(used):
        if slot == 0:
            t_end = lo if two else mid
            a_end = ta0 >= tb0
            b_end = tb0 >= ta0
            ia, ib = lo_a, ib_lo
        else:
            t_end = hi
            a_end = ta1 <= tb1
            b_end = tb1 <= ta1
            ia, ib = hi_a, ib_hi
        pax, pay = _on_segment(a0x, a0y, a1x, a1y, ta0, ta1, t_end)
        pbx, pby = _on_segment(b0x, b0y, b1x, b1y, tb0, tb1, t_end)
        ca = ((ia & 0xFFF) | pa_bits) if (a_end and not empty) else code_fa
        cb = ((ib & 0xFFF) | pb_bits) if (b_end and not empty) else code_fb
        points[i, slot, 0] = 0.5 * (pax + pbx)
        points[i, slot, 1] = 0.5 * (pay + pby)
        seps[i, slot] = (pbx - pax) * nx + (pby - pay) * ny
        ids[i, slot] = (ca << 32) | cb
    count[i] = used


@njit(cache=True)
def halfspace_points_row(pnx: float, pny: float, offset: float, v: NDArray[np.float64], nx: float, ny: float,
                         i: int, points: NDArray[np.float64], seps: NDArray[np.float64], ids: NDArray[np.int64],
                         count: NDArray[np.int64]) -> None:
    """Row i of ``halfspace_points_2d`` (plane normal (pnx, pny), contact normal (nx, ny))."""
    lo, hi = support_ends_row(v, -nx, -ny)
    used = 2 if lo != hi else 1
    for slot in range(used):
        j = lo if slot == 0 else hi
        px, py = v[j, 0], v[j, 1]
        sep = px * pnx + py * pny - offset
        points[i, slot, 0] = px - 0.5 * sep * nx
        points[i, slot, 1] = py - 0.5 * sep * ny
        seps[i, slot] = sep
        ids[i, slot] = j
    count[i] = used


_PATTERN = np.array([[-1.0, 1.0, 1.0, -1.0], [-1.0, -1.0, 1.0, 1.0]])


@njit(cache=True)
def box_feature_row(c: NDArray[np.float64], r: NDArray[np.float64], h: NDArray[np.float64], d0: float, d1: float,
                    d2: float, corners: NDArray[np.float64], cids: NDArray[np.int64],
                    fnormal: NDArray[np.float64]) -> tuple[int, int]:
    """``box_feature_3d`` for one box: fills corners (4, 3), cids (4,), fnormal (3,); returns (free, code).

    Scalars only inside: no allocation per call.
    """
    along0 = r[0, 0] * d0 + r[1, 0] * d1 + r[2, 0] * d2
    along1 = r[0, 1] * d0 + r[1, 1] * d1 + r[2, 1] * d2
    along2 = r[0, 2] * d0 + r[1, 2] * d1 + r[2, 2] * d2
    along = (along0, along1, along2)
    rank0 = 0 if abs(along0) <= FEATURE_SLOP else -1
    nfree = 1 if rank0 == 0 else 0
    rank1 = nfree if abs(along1) <= FEATURE_SLOP else -1
    nfree += 1 if rank1 >= 0 else 0
    rank2 = nfree if abs(along2) <= FEATURE_SLOP else -1
    nfree += 1 if rank2 >= 0 else 0
    rank = (rank0, rank1, rank2)
    for k in range(4):
        cid = 0
        l0 = l1 = l2 = 0.0
        for a in range(3):
            if rank[a] >= 0:
                s = _PATTERN[min(rank[a], 1), k]
            else:
                s = -1.0 if along[a] < 0 else 1.0
            if a == 0:
                l0 = s * h[0]
            elif a == 1:
                l1 = s * h[1]
            else:
                l2 = s * h[2]
            if s > 0:
                cid += 1 << a
        cids[k] = cid
        for a in range(3):
            corners[k, a] = c[a] + (r[a, 0] * l0 + r[a, 1] * l1 + r[a, 2] * l2)
    fixed = 0
    best = -math.inf
    for a in range(3):
        v = -1.0 if rank[a] >= 0 else abs(along[a])
        if v > best:
            best = v
            fixed = a
    sgn = -1.0 if along[fixed] < 0 else 1.0
    for a in range(3):
        fnormal[a] = r[a, fixed] * sgn + 0.0
    if nfree == 2:
        code = FACE_CODE | (2 * fixed + (1 if sgn > 0 else 0))
    else:
        code = edge_code_row(cids[0], cids[1])
    return nfree, code


@njit(cache=True)
def _project(p: NDArray[np.float64], o: NDArray[np.float64], t1: NDArray[np.float64],
             t2: NDArray[np.float64]) -> tuple[float, float]:
    r0, r1, r2 = p[0] - o[0], p[1] - o[1], p[2] - o[2]
    return r0 * t1[0] + r1 * t1[1] + r2 * t1[2], r0 * t2[0] + r1 * t2[1] + r2 * t2[2]


@njit(cache=True)
def segment_distance(qx: float, qy: float, p0x: float, p0y: float, p1x: float, p1y: float) -> float:
    ex, ey = p1x - p0x, p1y - p0y
    ee = ex * ex + ey * ey
    s = ((qx - p0x) * ex + (qy - p0y) * ey) / (ee if ee > 0 else 1.0)
    s = min(max(s, 0.0), 1.0)
    dx = qx - (p0x + s * ex)
    dy = qy - (p0y + s * ey)
    return math.sqrt(dx * dx + dy * dy)


@njit(cache=True)
def _inside(qx: float, qy: float, loop: NDArray[np.float64], is_face: bool, eps: float) -> bool:
    dist = math.inf
    pos = True
    neg = True
    for k in range(4):
        m = (k + 1) % 4
        dist = min(dist, segment_distance(qx, qy, loop[k, 0], loop[k, 1], loop[m, 0], loop[m, 1]))
        ex, ey = loop[m, 0] - loop[k, 0], loop[m, 1] - loop[k, 1]
        cr = ex * (qy - loop[k, 1]) - ey * (qx - loop[k, 0])
        pos = pos and cr >= 0
        neg = neg and cr <= 0
    return (is_face and (pos or neg)) or dist <= eps


@njit(cache=True)
def height_on(q3: NDArray[np.float64], qx: float, qy: float, corners: NDArray[np.float64],
               loop: NDArray[np.float64], free: int, fn: NDArray[np.float64], n: NDArray[np.float64],
               out: NDArray[np.float64]) -> None:
    if free == 2:
        num = (corners[0, 0] - q3[0]) * fn[0] + (corners[0, 1] - q3[1]) * fn[1] + (corners[0, 2] - q3[2]) * fn[2]
        den = fn[0] * n[0] + fn[1] * n[1] + fn[2] * n[2]
        hh = num / den if den != 0 else 0.0  # a face across n (the numpy twin's inf divisor): no move
        for a in range(3):
            out[a] = q3[a] + hh * n[a]
    elif free == 1:
        ex, ey = loop[1, 0] - loop[0, 0], loop[1, 1] - loop[0, 1]
        ee = ex * ex + ey * ey
        s = ((qx - loop[0, 0]) * ex + (qy - loop[0, 1]) * ey) / (ee if ee > 0 else 1.0)
        s = min(max(s, 0.0), 1.0)
        for a in range(3):
            out[a] = corners[0, a] + s * (corners[1, a] - corners[0, a])
    else:
        for a in range(3):
            out[a] = corners[0, a]


@njit(cache=True)
def kept_points_row(cand: NDArray[np.float64], valid: NDArray[np.bool_], keep: NDArray[np.bool_],
                    cid: NDArray[np.int64], eps: float, i: int, points: NDArray[np.float64],
                    seps: NDArray[np.float64], ids: NDArray[np.int64]) -> int:
    """Write row i's contact points from its M candidates; return how many (0 to 4).

    A candidate at the same place as an earlier valid one (within ``eps``
    across the normal, ``cand[:, 3:5]``; judged on the validity before
    dropping) is dropped, more than four are reduced to four
    (:func:`reduce_row`), and the kept ones go to slots 0, 1, ... of row i.
    ``keep`` (M,) is scratch; ``cid`` holds the M candidates' ids, then 4
    slots of scratch.
    """
    m = valid.shape[0]
    for k in range(m):
        keep[k] = valid[k]
    for k in range(m):
        if not valid[k]:
            continue
        for j in range(k):
            if valid[j]:
                dx, dy = cand[k, 3] - cand[j, 3], cand[k, 4] - cand[j, 4]
                if math.sqrt(dx * dx + dy * dy) <= eps:
                    keep[k] = False
                    break
    chosen = cid[m:]
    reduce_row(cand, keep, chosen)
    return points_in_slots_row(cand, chosen, cid, i, points, seps, ids)


@njit(cache=True)
def points_in_slots_row(cand: NDArray[np.float64], chosen: NDArray[np.int64], cid: NDArray[np.int64], i: int,
                        points: NDArray[np.float64], seps: NDArray[np.float64], ids: NDArray[np.int64]) -> int:
    """Write the candidates ``chosen`` (4 slots, -1 for none) to slots 0, 1, ... of row i; return how many.

    ``cand[:, :3]`` the points, ``cand[:, 5]`` their separations, ``cid``
    their ids (the compiled twin of ``manifold_support._points_in_slots``).
    """
    used = 0
    for slot in range(4):
        c = chosen[slot]
        if c < 0:
            continue
        for d in range(3):
            points[i, slot, d] = cand[c, d]
        seps[i, slot] = cand[c, 5]
        ids[i, slot] = cid[c]
        used += 1
    return used


@njit(cache=True)
def features_3d_row(ca: NDArray[np.float64], ida: NDArray[np.int64], fra: int, fna: NDArray[np.float64], codea: int,
                    cb: NDArray[np.float64], idb: NDArray[np.int64], frb: int, fnb: NDArray[np.float64], codeb: int,
                    n: NDArray[np.float64], scale: float, i: int, cand: NDArray[np.float64],
                    flt: NDArray[np.float64], flags: NDArray[np.bool_], cid: NDArray[np.int64],
                    points: NDArray[np.float64], seps: NDArray[np.float64], ids: NDArray[np.int64],
                    count: NDArray[np.int64]) -> None:
    """Row i of ``manifold_features_3d``.

    Scratch reused across rows (no allocation per pair): ``cand`` (24, 6),
    ``flt`` (12, 3), ``flags`` (2, 24), ``cid`` (28,).
    """
    x, y, z = n[0], n[1], n[2]
    s = -1.0 if z < 0 else 1.0
    a = -1.0 / (s + z)
    b = x * y * a
    t1, t2, pa, pb = flt[0], flt[1], flt[2], flt[3]
    la, lb = flt[4:8, :2], flt[8:12, :2]
    t1[0], t1[1], t1[2] = 1.0 + s * x * x * a, s * b, -s * x
    t2[0], t2[1], t2[2] = b, s + y * y * a, -y
    o = ca[0]
    for k in range(4):
        la[k, 0], la[k, 1] = _project(ca[k], o, t1, t2)
        lb[k, 0], lb[k, 1] = _project(cb[k], o, t1, t2)
    eps = 1e-9 * scale
    valid, keep = flags[0], flags[1]
    # cand columns: point (3), projected point (2), separation
    for k in range(4):
        live_a = k == 0 or (k == 1 and fra >= 1) or (k >= 2 and fra == 2)
        live_b = k == 0 or (k == 1 and frb >= 1) or (k >= 2 and frb == 2)
        # 1) a's corner k over b's feature
        valid[k] = live_a and _inside(la[k, 0], la[k, 1], lb, frb == 2, eps)
        height_on(ca[k], la[k, 0], la[k, 1], cb, lb, frb, fnb, n, pb)
        for c in range(3):
            pa[c] = ca[k, c]
        store_row(cand, k, pa, pb, n)
        cid[k] = (np.int64(ida[k]) << 32) | codeb
        # 2) b's corner k over a's feature
        valid[4 + k] = live_b and _inside(lb[k, 0], lb[k, 1], la, fra == 2, eps)
        height_on(cb[k], lb[k, 0], lb[k, 1], ca, la, fra, fna, n, pa)
        for c in range(3):
            pb[c] = cb[k, c]
        store_row(cand, 4 + k, pa, pb, n)
        cid[4 + k] = (np.int64(codea) << 32) | idb[k]
    # 3) edge crossings
    for ei in range(4):
        ea_live = (ei == 0 and fra >= 1) or fra == 2
        ni = (ei + 1) % 4
        for ej in range(4):
            eb_live = (ej == 0 and frb >= 1) or frb == 2
            nj = (ej + 1) % 4
            edge_crossing_row(la, lb, ca, cb, ida, idb, ei, ni, ej, nj, ea_live and eb_live, 8 + 4 * ei + ej, n,
                              pa, pb, cand, valid, cid)
    for k in range(valid.shape[0]):
        cand[k, 3], cand[k, 4] = _project(cand[k, :3], o, t1, t2)
    used = kept_points_row(cand, valid, keep, cid, eps, i, points, seps, ids)
    if used == 0:  # the normal grazes the features: one point between their nearest points
        side, k, j, t = _nearest_row(la, fra, lb, frb)
        nj = (j + 1) % 4
        for d in range(3):
            if side == 0:
                pa[d] = ca[k, d]
                pb[d] = cb[j, d] + t * (cb[nj, d] - cb[j, d])
            else:
                pa[d] = ca[j, d] + t * (ca[nj, d] - ca[j, d])
                pb[d] = cb[k, d]
        sep = (pb[0] - pa[0]) * n[0] + (pb[1] - pa[1]) * n[1] + (pb[2] - pa[2]) * n[2]
        for d in range(3):
            points[i, 0, d] = 0.5 * (pa[d] + pb[d])
        seps[i, 0] = sep
        if side == 0:
            ids[i, 0] = (np.int64(ida[k]) << 32) | edge_code_row(idb[j], idb[nj])
        else:
            ids[i, 0] = (np.int64(edge_code_row(ida[j], ida[nj])) << 32) | idb[k]
        used = 1
    count[i] = used


@njit(cache=True)
def _nearest_row(la: NDArray[np.float64], fra: int, lb: NDArray[np.float64], frb: int) -> tuple[int, int, int, float]:
    """Row form of ``_nearest_features``: (side, corner, edge, parameter) of the first nearest pair."""
    best = math.inf
    out_side, out_k, out_j, out_t = 0, 0, 0, 0.0
    for side in range(2):
        lq, fq, le, fe = (la, fra, lb, frb) if side == 0 else (lb, frb, la, fra)
        for k in range(4):
            if not (k == 0 or (k == 1 and fq >= 1) or (k >= 2 and fq == 2)):
                continue
            for j in range(4):
                if not (j == 0 or fe == 2):
                    continue
                nj = (j + 1) % 4
                ex, ey = le[nj, 0] - le[j, 0], le[nj, 1] - le[j, 1]
                ee = ex * ex + ey * ey
                t = ((lq[k, 0] - le[j, 0]) * ex + (lq[k, 1] - le[j, 1]) * ey) / ee if ee > 0 else 0.0
                t = min(max(t, 0.0), 1.0)
                dx = lq[k, 0] - (le[j, 0] + t * ex)
                dy = lq[k, 1] - (le[j, 1] + t * ey)
                d2 = dx * dx + dy * dy
                if d2 < best:
                    best = d2
                    out_side, out_k, out_j, out_t = side, k, j, t
    return out_side, out_k, out_j, out_t


@njit(cache=True)
def store_row(cand: NDArray[np.float64], k: int, pa: NDArray[np.float64], pb: NDArray[np.float64],
           n: NDArray[np.float64]) -> None:
    for c in range(3):
        cand[k, c] = 0.5 * (pa[c] + pb[c])
    cand[k, 5] = (pb[0] - pa[0]) * n[0] + (pb[1] - pa[1]) * n[1] + (pb[2] - pa[2]) * n[2]


@njit(cache=True)
def edge_crossing_row(la: NDArray[np.float64], lb: NDArray[np.float64], ca: NDArray[np.float64],
                      cb: NDArray[np.float64], ida: NDArray[np.int64], idb: NDArray[np.int64], ei: int, ni: int,
                      ej: int, nj: int, live: bool, slot: int, n: NDArray[np.float64], pa: NDArray[np.float64],
                      pb: NDArray[np.float64], cand: NDArray[np.float64], valid: NDArray[np.bool_],
                      cid: NDArray[np.int64]) -> None:
    """Candidate ``slot``: where edge ei-ni of feature a crosses edge ej-nj of feature b, seen along n.

    ``la``/``lb`` are the features' corners in the plane across the normal,
    ``ca``/``cb`` the same corners in 3D; the crossing is valid strictly
    inside both edges, when the edges are not parallel and ``live``.
    """
    dax, day = la[ni, 0] - la[ei, 0], la[ni, 1] - la[ei, 1]
    dbx, dby = lb[nj, 0] - lb[ej, 0], lb[nj, 1] - lb[ej, 1]
    wx, wy = lb[ej, 0] - la[ei, 0], lb[ej, 1] - la[ei, 1]
    den = dax * dby - day * dbx
    ok = abs(den) > 1e-12 * math.sqrt((dax * dax + day * day) * (dbx * dbx + dby * dby))
    safe = den if ok else 1.0
    ss = (wx * dby - wy * dbx) / safe
    uu = (wx * day - wy * dax) / safe
    valid[slot] = ok and ss > 0 and ss < 1 and uu > 0 and uu < 1 and live
    for c in range(3):
        pa[c] = ca[ei, c] + ss * (ca[ni, c] - ca[ei, c])
        pb[c] = cb[ej, c] + uu * (cb[nj, c] - cb[ej, c])
    store_row(cand, slot, pa, pb, n)
    cid[slot] = (np.int64(edge_code_row(ida[ei], ida[ni])) << 32) | edge_code_row(idb[ej], idb[nj])


@njit(cache=True)
def reduce_row(cand: NDArray[np.float64], valid: NDArray[np.bool_], chosen: NDArray[np.int64]) -> None:
    for k in range(4):
        chosen[k] = -1
    nvalid = 0
    for k in range(valid.shape[0]):
        if valid[k]:
            if nvalid < 4:
                chosen[nvalid] = k
            nvalid += 1
    if nvalid <= 4:
        return
    p1 = -1
    best = math.inf
    for k in range(valid.shape[0]):
        if valid[k] and cand[k, 5] < best:
            best = cand[k, 5]
            p1 = k
    p2 = -1
    best = -math.inf
    for k in range(valid.shape[0]):
        if valid[k]:
            d2 = (cand[k, 3] - cand[p1, 3]) ** 2 + (cand[k, 4] - cand[p1, 4]) ** 2
            if d2 > best:
                best = d2
                p2 = k
    ex, ey = cand[p2, 3] - cand[p1, 3], cand[p2, 4] - cand[p1, 4]
    p3 = -1
    best = -math.inf
    a3 = 0.0
    for k in range(valid.shape[0]):
        if valid[k]:
            ar = ex * (cand[k, 4] - cand[p1, 4]) - ey * (cand[k, 3] - cand[p1, 3])
            if abs(ar) > best:
                best = abs(ar)
                p3 = k
                a3 = ar
    flip = -1.0 if a3 < 0 else 1.0
    tri = (p1, p2, p3)
    p4 = -1
    best = -math.inf
    for k in range(valid.shape[0]):
        if not valid[k] or k == p1 or k == p2 or k == p3:
            continue
        added = 0.0
        for e in range(3):
            i0, i1 = tri[e], tri[(e + 1) % 3]
            fx, fy = cand[i1, 3] - cand[i0, 3], cand[i1, 4] - cand[i0, 4]
            cr = (fx * (cand[k, 4] - cand[i0, 4]) - fy * (cand[k, 3] - cand[i0, 3])) * flip
            added += max(0.0, -cr)
        if added > best:
            best = added
            p4 = k
    chosen[0], chosen[1], chosen[2], chosen[3] = p1, p2, p3, p4
