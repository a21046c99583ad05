"""Compiled twin of ``geometry/contact_box_capsule_3d.py``: oriented boxes against capsules (3D)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..result import ContactArrays
from ..tolerance import SQUARES_RESCALE, TINY_SCALE
from .capsule_support import clip01, dot_row
from .kernel_support import as_rows, contact_outputs, finish_row, touch_rule

__all__ = ["contact_box_capsule_3d"]


@njit(cache=True)
def _rows(c: NDArray[np.float64], rot: NDArray[np.float64], h: NDArray[np.float64], p0: NDArray[np.float64],
          p1: NDArray[np.float64], rad: NDArray[np.float64], rule: tuple[float, float],
          hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    q0 = np.empty(3)
    q1 = np.empty(3)
    d = np.empty(3)
    x = np.empty(3)
    ts = np.empty(8)
    gap = np.empty(3)
    u = np.empty(3)
    local_n = np.empty(3)
    sat_n = np.empty(3)
    hh = np.empty(3)
    for i in range(c.shape[0]):
        x0 = p0[i, 0] - c[i, 0]
        x1 = p0[i, 1] - c[i, 1]
        x2 = p0[i, 2] - c[i, 2]
        y0 = p1[i, 0] - c[i, 0]
        y1 = p1[i, 1] - c[i, 1]
        y2 = p1[i, 2] - c[i, 2]
        for k in range(3):
            q0[k] = rot[i, 0, k] * x0 + rot[i, 1, k] * x1 + rot[i, 2, k] * x2
            q1[k] = rot[i, 0, k] * y0 + rot[i, 1, k] * y1 + rot[i, 2, k] * y2
            d[k] = q1[k] - q0[k]
        # the numpy twin's rescue of tiny rows: all scaled up exactly
        size = 0.0
        for k in range(3):
            hh[k] = h[i, k]
            size = max(size, max(max(abs(q0[k]), abs(q1[k])), hh[k]))
        unit = SQUARES_RESCALE if size < TINY_SCALE else 1.0
        if size < TINY_SCALE:
            for k in range(3):
                q0[k] *= unit
                q1[k] *= unit
                d[k] *= unit
                hh[k] *= unit
        # -- the exact distance, by the pieces of f(t)
        ts[0] = 0.0
        ts[1] = 1.0
        m = 2
        for k in range(3):
            for sign in (-1.0, 1.0):
                ts[m] = clip01((sign * hh[k] - q0[k]) / d[k]) if d[k] != 0.0 else 0.0
                m += 1
        for a in range(1, 8):  # insertion sort of eight values
            val = ts[a]
            b = a - 1
            while b >= 0 and ts[b] > val:
                ts[b + 1] = ts[b]
                b -= 1
            ts[b + 1] = val
        best2 = np.inf
        t = 0.0
        for j in range(7):
            lo = ts[j]
            hi = ts[j + 1]
            mid = (lo + hi) * 0.5
            num = 0.0
            den = 0.0
            for k in range(3):
                xm = q0[k] + mid * d[k]
                above = xm > hh[k]
                below = xm < -hh[k]
                target = hh[k] if above else -hh[k]
                if above or below:
                    num = num - (q0[k] - target) * d[k]
                    den = den + d[k] * d[k]
            tb = min(max(num / den, lo), hi) if den > 0.0 else mid
            dist2 = 0.0
            for k in range(3):
                xk = q0[k] + tb * d[k]
                g = xk - min(max(xk, -hh[k]), hh[k])
                dist2 = dist2 + g * g
            if dist2 < best2:
                best2 = dist2
                t = tb
        for k in range(3):
            x[k] = q0[k] + t * d[k]
            gap[k] = x[k] - min(max(x[k], -hh[k]), hh[k])
        dist = math.sqrt(dot_row(gap, gap, 3))
        if dist > 0.0:
            for k in range(3):
                local_n[k] = gap[k] / dist
            signed = rad[i] - dist / unit
        else:
            # -- inside: SAT over the zonotope's face normals
            best = np.inf
            sat_n[0] = 1.0
            sat_n[1] = 0.0
            sat_n[2] = 0.0
            for a in range(6):
                if a < 3:
                    u[0] = 1.0 if a == 0 else 0.0
                    u[1] = 1.0 if a == 1 else 0.0
                    u[2] = 1.0 if a == 2 else 0.0
                elif a == 3:
                    u[0] = 0.0
                    u[1] = d[2]
                    u[2] = -d[1]
                elif a == 4:
                    u[0] = -d[2]
                    u[1] = 0.0
                    u[2] = d[0]
                else:
                    u[0] = d[1]
                    u[1] = -d[0]
                    u[2] = 0.0
                length = math.sqrt(dot_row(u, u, 3))
                ok = length > 0.0
                safe = length if ok else 1.0
                for k in range(3):
                    u[k] = u[k] / safe
                reach = abs(u[0]) * hh[0] + abs(u[1]) * hh[1] + abs(u[2]) * hh[2]
                s0 = dot_row(q0, u, 3)
                s1 = dot_row(q1, u, 3)
                plus = reach - min(s0, s1)
                minus = reach + max(s0, s1)
                if ok and plus < best:
                    best = plus
                    for k in range(3):
                        sat_n[k] = u[k]
                if ok and minus < best:
                    best = minus
                    for k in range(3):
                        sat_n[k] = -u[k]
            for k in range(3):
                local_n[k] = sat_n[k]
            signed = rad[i] + best / unit
        for k in range(3):
            normal[i, k] = (rot[i, k, 0] * local_n[0] + rot[i, k, 1] * local_n[1] + rot[i, k, 2] * local_n[2]) + 0.0
        scale = abs(rad[i])
        for k in range(3):
            scale = max(scale, max(max(abs(c[i, k]), abs(h[i, k])), max(abs(p0[i, k]), abs(p1[i, k]))))
        finish_row(signed, scale, rule, i, hit, depth)


def contact_box_capsule_3d(center: NDArray[np.float64], rotation: NDArray[np.float64], half: NDArray[np.float64],
                           p0: NDArray[np.float64], p1: NDArray[np.float64],
                           radius: NDArray[np.float64]) -> ContactArrays:
    """Oriented boxes (a) against capsules (b); the twin of the numpy ``contact_box_capsule_3d``.

    Parameters
    ----------
    center : ndarray, shape (N, 3)
    rotation : ndarray, shape (N, 3, 3)
    half : ndarray, shape (N, 3)
    p0, p1 : ndarray, shape (N, 3)
    radius : ndarray, shape (N,)

    Returns
    -------
    ContactArrays

    Examples
    --------
    >>> import numpy as np
    >>> c = contact_box_capsule_3d(np.zeros((1, 3)), np.eye(3)[None], np.ones((1, 3)), np.array([[-3.0, 0.0, 1.25]]),
    ...                            np.array([[3.0, 0.0, 1.25]]), np.array([0.5]))
    >>> c.hit.tolist(), np.round(c.depth, 12).tolist(), c.normal[0].tolist()
    ([True], [0.25], [0.0, 0.0, 1.0])
    """
    cs = as_rows(center)
    out = contact_outputs(cs.shape[0], 3)
    _rows(cs, as_rows(rotation), as_rows(half), as_rows(p0), as_rows(p1), as_rows(radius), touch_rule(), *out)
    return out


#: The row loop itself, for compiled callers that build their rows in place (the one-call path of
#: ``contact_pair``); the same routine the batched call above runs.
rows = _rows
