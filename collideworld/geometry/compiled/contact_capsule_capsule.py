"""Compiled twin of ``geometry/contact_capsule_capsule.py``: capsules against capsules (2D and 3D)."""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..contact_capsule_capsule import PARALLEL_SIN2
from ..result import ContactArrays
from .capsule_support import closest_segment_segment_row, dot_row, length_row, perpendicular_row
from .kernel_support import as_rows, contact_outputs, finish_row, touch_rule

__all__ = ["contact_capsule_capsule"]


# Called functions, not inline="always": numba's IR inlining pasted _unit_into 7 times (4 inside _sat_2d)
# into _rows, the largest compile of a full build (11.8 s -> 7.1 s CPU, measured under load; the same
# bits, and LLVM still inlines the small calls)
@njit(cache=True)
def _unit_into(x: float, y: float, z: float, dim: int, out: NDArray[np.float64]) -> bool:
    """``(x, y[, z])`` scaled to unit length into ``out``; False (and zeros) for a zero vector."""
    out[0] = x
    out[1] = y
    if dim == 3:
        out[2] = z
    length = length_row(out, dim)
    ok = length > 0.0
    safe = length if ok else 1.0
    for k in range(dim):
        out[k] = out[k] / safe
    return ok


@njit(cache=True)
def _sat_2d(da: NDArray[np.float64], e0: NDArray[np.float64], e1: NDArray[np.float64],
            u: NDArray[np.float64], normal: NDArray[np.float64]) -> tuple[float, bool]:
    """Least overlap over the four axes, as the numpy ``_sat_2d``; writes its normal."""
    db0 = e1[0] - e0[0]
    db1 = e1[1] - e0[1]
    best = np.inf
    normal[0] = 1.0
    normal[1] = 0.0
    any_axis = False
    for j in range(4):
        if j == 0:
            ok = _unit_into(-da[1], da[0], 0.0, 2, u)
        elif j == 1:
            ok = _unit_into(-db1, db0, 0.0, 2, u)
        elif j == 2:
            ok = _unit_into(da[0], da[1], 0.0, 2, u)
        else:
            ok = _unit_into(db0, db1, 0.0, 2, u)
        pa1 = dot_row(da, u, 2)
        pb0 = dot_row(e0, u, 2)
        pb1 = dot_row(e1, u, 2)
        plus = max(0.0, pa1) - min(pb0, pb1)
        minus = max(pb0, pb1) - min(0.0, pa1)
        if ok and plus < best:
            best = plus
            normal[0] = u[0]
            normal[1] = u[1]
        if ok and minus < best:
            best = minus
            normal[0] = -u[0]
            normal[1] = -u[1]
        any_axis = any_axis or ok
    return best, any_axis


@njit(cache=True)
def _rows(a0: NDArray[np.float64], a1: NDArray[np.float64], ra: NDArray[np.float64], b0: NDArray[np.float64],
          b1: NDArray[np.float64], rb: NDArray[np.float64], rule: tuple[float, float],
          hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    dim = a0.shape[1]
    da = np.empty(dim)
    db = np.empty(dim)
    w = np.empty(dim)
    r = np.empty(dim)
    feat = np.empty(dim)
    other = np.empty(dim)
    fallback = np.empty(dim)
    e0 = np.empty(dim)
    e1 = np.empty(dim)
    u = np.empty(dim)
    sat_n = np.empty(dim)
    pa = np.empty(dim)
    pb = np.empty(dim)
    ua = np.empty(dim)
    ub = np.empty(dim)
    la = 0.0
    lb = 0.0
    for i in range(a0.shape[0]):
        radius = ra[i] + rb[i]
        for k in range(dim):
            da[k] = a1[i, k] - a0[i, k]
            db[k] = b1[i, k] - b0[i, k]
            pa[k] = a0[i, k]  # scratch copies: a view a0[i] costs reference counting per row
            pb[k] = b0[i, k]
        s, t = closest_segment_segment_row(pa, da, pb, db, r, dim)
        for k in range(dim):
            w[k] = (b0[i, k] + t * db[k]) - (a0[i, k] + s * da[k])
        dist = length_row(w, dim)
        safe = dist if dist > 0.0 else 1.0
        inner_a = s > 0.0 and s < 1.0
        inner_b = t > 0.0 and t < 1.0
        ok_c = False
        if dim == 2:
            ok_a = _unit_into(-da[1], da[0], 0.0, 2, feat)
            ok_b = _unit_into(-db[1], db[0], 0.0, 2, other)
            use_feature = (inner_a and ok_a) or (inner_b and ok_b)
            if not (inner_a and ok_a):
                if inner_b and ok_b:
                    feat[0] = other[0]
                    feat[1] = other[1]
                else:
                    feat[0] = w[0] / safe
                    feat[1] = w[1] / safe
        else:
            cx = da[1] * db[2] - da[2] * db[1]
            cy = da[2] * db[0] - da[0] * db[2]
            cz = da[0] * db[1] - da[1] * db[0]
            ok_c = _unit_into(cx, cy, cz, 3, feat)
            # nearly parallel cores: the cross product is rounding noise (see the numpy kernel)
            # (measured on the unit directions, as the numpy kernel: no product of squares)
            la = length_row(da, 3)
            lb = length_row(db, 3)
            sa = la if la > 0.0 else 1.0
            sb = lb if lb > 0.0 else 1.0
            for k in range(3):
                ua[k] = da[k] / sa
                ub[k] = db[k] / sb
            ux = ua[1] * ub[2] - ua[2] * ub[1]
            uy = ua[2] * ub[0] - ua[0] * ub[2]
            uz = ua[0] * ub[1] - ua[1] * ub[0]
            ok_c = ok_c and ux * ux + uy * uy + uz * uz > PARALLEL_SIN2
            use_feature = inner_a and inner_b and ok_c
        if dot_row(feat, w, dim) < 0.0:
            for k in range(dim):
                feat[k] = -feat[k]
        perpendicular_row(da if dot_row(da, da, dim) > 0.0 else db, dim, fallback)
        if dim == 3 and ok_c:
            for k in range(dim):
                fallback[k] = feat[k]
        for k in range(dim):
            if use_feature:
                normal[i, k] = feat[k]
            elif dist > 0.0:
                normal[i, k] = w[k] / safe
            else:
                normal[i, k] = fallback[k]
        if dim == 3 and not ok_c:
            # parallel cores overlapping along the axis: only w's part across the axis is the gap
            pb0 = (b0[i, 0] - a0[i, 0]) * ua[0] + (b0[i, 1] - a0[i, 1]) * ua[1] + (b0[i, 2] - a0[i, 2]) * ua[2]
            pb1 = (b1[i, 0] - a0[i, 0]) * ua[0] + (b1[i, 1] - a0[i, 1]) * ua[1] + (b1[i, 2] - a0[i, 2]) * ua[2]
            if la > 0.0 and lb > 0.0 and max(pb0, pb1) >= 0.0 and min(pb0, pb1) <= la:
                along = dot_row(w, ua, 3)
                for k in range(3):
                    u[k] = w[k] - along * ua[k]
                gap = length_row(u, 3)
                for k in range(3):
                    normal[i, k] = u[k] / gap if gap > 0.0 else fallback[k]
                dist = gap
        signed = radius - dist
        if dim == 2:
            for k in range(2):
                e0[k] = b0[i, k] - a0[i, k]
                e1[k] = b1[i, k] - a0[i, k]
            over, any_axis = _sat_2d(da, e0, e1, u, sat_n)
            if any_axis and over >= 0.0:
                signed = radius + over
                normal[i, 0] = sat_n[0]
                normal[i, 1] = sat_n[1]
        for k in range(dim):
            normal[i, k] = normal[i, k] + 0.0
        scale = max(abs(ra[i]), abs(rb[i]))
        for k in range(dim):
            scale = max(scale, max(max(abs(a0[i, k]), abs(a1[i, k])), max(abs(b0[i, k]), abs(b1[i, k]))))
        finish_row(signed, scale, rule, i, hit, depth)


def contact_capsule_capsule(a0: NDArray[np.float64], a1: NDArray[np.float64], radius_a: NDArray[np.float64],
                            b0: NDArray[np.float64], b1: NDArray[np.float64],
                            radius_b: NDArray[np.float64]) -> ContactArrays:
    """Capsules (a) against capsules (b); the twin of the numpy ``contact_capsule_capsule``.

    Parameters
    ----------
    a0, a1, b0, b1 : ndarray, shape (N, D)
    radius_a, radius_b : ndarray, shape (N,)

    Returns
    -------
    ContactArrays

    Examples
    --------
    >>> import numpy as np
    >>> r = np.array([0.5])
    >>> c = contact_capsule_capsule(np.array([[-1.0, 0.0]]), np.array([[1.0, 0.0]]), r,
    ...                             np.array([[0.0, -1.0]]), np.array([[0.0, 1.0]]), r)
    >>> c.hit.tolist(), c.depth.tolist()
    ([True], [2.0])
    """
    a = as_rows(a0)
    out = contact_outputs(a.shape[0], a.shape[1])
    _rows(a, as_rows(a1), as_rows(radius_a), as_rows(b0), as_rows(b1), as_rows(radius_b), touch_rule(), *out)
    return out
