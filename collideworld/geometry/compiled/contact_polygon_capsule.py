"""Compiled twin of ``geometry/contact_polygon_capsule.py``: convex polygons against capsules (2D)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..result import ContactArrays
from ..tolerance import SQUARES_RESCALE, TINY_SCALE
from .capsule_support import closest_segment_segment_row, dot_row
from .kernel_support import as_rows, contact_outputs, finish_row, touch_rule

__all__ = ["contact_polygon_capsule"]


@njit(cache=True)
def _rows(verts: NDArray[np.float64], p0: NDArray[np.float64], p1: NDArray[np.float64], rad: NDArray[np.float64],
          rule: tuple[float, float],
          hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    kk = verts.shape[1]
    v = np.empty((kk, 2))
    e = np.empty((kk, 2))
    u = np.empty((kk, 2))
    ok = np.empty(kk, dtype=np.bool_)
    d = np.empty(2)
    w = np.empty(2)
    zero = np.zeros(2)
    r = np.empty(2)
    g = np.empty(2)
    best_g = np.empty(2)
    sat_n = np.empty(2)
    vk = np.empty(2)
    ek = np.empty(2)
    for i in range(verts.shape[0]):
        scale = max(max(max(abs(p0[i, 0]), abs(p0[i, 1])), max(abs(p1[i, 0]), abs(p1[i, 1]))), abs(rad[i]))
        for k in range(kk):
            scale = max(scale, max(abs(verts[i, k, 0]), abs(verts[i, k, 1])))
        # the numpy twin's rescue of a tiny pair: offsets scaled up exactly
        unit = SQUARES_RESCALE if scale < TINY_SCALE else 1.0
        for k in range(kk):
            v[k, 0] = (verts[i, k, 0] - p0[i, 0]) * unit
            v[k, 1] = (verts[i, k, 1] - p0[i, 1]) * unit
        for k in range(kk):
            nxt = k + 1 if k + 1 < kk else 0
            e[k, 0] = v[nxt, 0] - v[k, 0]
            e[k, 1] = v[nxt, 1] - v[k, 1]
            elen = math.sqrt(e[k, 0] * e[k, 0] + e[k, 1] * e[k, 1])
            ok[k] = elen > 0.0
            safe = elen if ok[k] else 1.0
            u[k, 0] = e[k, 1] / safe
            u[k, 1] = -e[k, 0] / safe
        d[0] = (p1[i, 0] - p0[i, 0]) * unit
        d[1] = (p1[i, 1] - p0[i, 1]) * unit
        # -- SAT
        best = np.inf
        kb = 0
        for k in range(kk):
            over = ((v[k, 0] * u[k, 0] + v[k, 1] * u[k, 1]) - min(0.0, d[0] * u[k, 0] + d[1] * u[k, 1])
                    if ok[k] else np.inf)
            if over < best:
                best = over
                kb = k
        sat_n[0] = u[kb, 0]
        sat_n[1] = u[kb, 1]
        dlen = math.sqrt(dot_row(d, d, 2))
        seg_ok = dlen > 0.0
        dsafe = dlen if seg_ok else 1.0
        w[0] = -d[1] / dsafe
        w[1] = d[0] / dsafe
        pmax = -np.inf
        pmin = np.inf
        for k in range(kk):
            pr = v[k, 0] * w[0] + v[k, 1] * w[1]
            pmax = max(pmax, pr)
            pmin = min(pmin, pr)
        if seg_ok and pmax < best:
            best = pmax
            sat_n[0] = w[0]
            sat_n[1] = w[1]
        if seg_ok and -pmin < best:
            best = -pmin
            sat_n[0] = -w[0]
            sat_n[1] = -w[1]
        inside = best >= 0.0
        # -- apart: the closest points on the polygon's edges
        best2 = np.inf
        j = 0
        sj = 0.0
        tj = 0.0
        for k in range(kk):
            # scratch copies, not the views v[k], e[k]: a view costs reference counting per use
            vk[0] = v[k, 0]
            vk[1] = v[k, 1]
            ek[0] = e[k, 0]
            ek[1] = e[k, 1]
            s, t = closest_segment_segment_row(vk, ek, zero, d, r, 2)
            g[0] = t * d[0] - (v[k, 0] + s * e[k, 0])
            g[1] = t * d[1] - (v[k, 1] + s * e[k, 1])
            dist2 = dot_row(g, g, 2)
            if dist2 < best2:
                best2 = dist2
                j = k
                sj = s
                tj = t
                best_g[0] = g[0]
                best_g[1] = g[1]
        dist = math.sqrt(best2)
        if inside:
            normal[i, 0] = sat_n[0]
            normal[i, 1] = sat_n[1]
            signed = rad[i] + best / unit
        else:
            signed = rad[i] - dist / unit
            if sj > 0.0 and sj < 1.0 and ok[j]:
                normal[i, 0] = u[j, 0]
                normal[i, 1] = u[j, 1]
            elif tj > 0.0 and tj < 1.0 and seg_ok:
                flip = dot_row(w, best_g, 2) < 0.0
                normal[i, 0] = -w[0] if flip else w[0]
                normal[i, 1] = -w[1] if flip else w[1]
            elif dist > 0.0:
                normal[i, 0] = best_g[0] / dist
                normal[i, 1] = best_g[1] / dist
            else:
                normal[i, 0] = sat_n[0]
                normal[i, 1] = sat_n[1]
        normal[i, 0] = normal[i, 0] + 0.0
        normal[i, 1] = normal[i, 1] + 0.0
        finish_row(signed, scale, rule, i, hit, depth)


def contact_polygon_capsule(vertices: NDArray[np.float64], p0: NDArray[np.float64], p1: NDArray[np.float64],
                            radius: NDArray[np.float64]) -> ContactArrays:
    """Convex polygons (a) against capsules (b); the twin of the numpy ``contact_polygon_capsule``.

    Parameters
    ----------
    vertices : ndarray, shape (N, K, 2)
        Counter-clockwise, padded by repeating the last vertex.
    p0, p1 : ndarray, shape (N, 2)
    radius : ndarray, shape (N,)

    Returns
    -------
    ContactArrays

    Examples
    --------
    >>> import numpy as np
    >>> sq = np.array([[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]])
    >>> c = contact_polygon_capsule(sq, np.array([[-1.0, 1.1]]), np.array([[2.0, 1.1]]), np.array([0.25]))
    >>> c.hit.tolist(), np.round(c.depth, 12).tolist(), c.normal[0].tolist()
    ([True], [0.15], [0.0, 1.0])
    """
    vs = as_rows(vertices)
    out = contact_outputs(vs.shape[0], 2)
    _rows(vs, as_rows(p0), as_rows(p1), as_rows(radius), touch_rule(), *out)
    return out


#: The row loop itself, for compiled callers that build their rows in place (the one-call path of
#: ``contact_pair``); the same routine the batched call above runs.
rows = _rows
