"""Compiled twin of ``geometry/contact_box_box_3d.py``: oriented boxes in 3D, by separating axes.

The 15 axes of Gottschalk, Lin and Manocha 1996 (Ericson, *Real-Time
Collision Detection*, §4.4.1): a's 3 face normals, b's 3, and the 9 cross
products of an edge of a with an edge of b. Per row::

    face axes in a's frame: R = R_a^T R_b, t = R_a^T (c_b - c_a)
    edge axes L = a_i x b_j in world coordinates; nearly parallel ones (sin < 0.5)
        recomputed with error-free products; parallel ones skipped; normalised
    separation(L) = |d . L| - r_a(L) - r_b(L), both radii along that same L
    s = first largest separation; normal = its axis, signed from a to b

``R`` and the two 3-vectors live in scratch arrays allocated once per call and
reused by every row; each edge axis is built, measured and dropped.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

from ..result import ContactArrays
from .kernel_support import as_rows, contact_outputs, finish_row, touch_rule

__all__ = ["contact_box_box_3d", "row"]

#: As in the numpy twin: edge-pair axes shorter than this are skipped (parallel edges).
_PARALLEL_SIN = 1e-16

#: Dekker's splitter for float64 (2^27 + 1), as in the numpy twin.
_SPLIT = 134217729.0


@njit(cache=True)
def _cross_term(a1: float, b2: float, a2: float, b1: float, accurate: bool) -> float:
    """``a1 b2 - a2 b1``; with ``accurate``, from Dekker's TwoProduct as the numpy twin's ``_cross_accurately``."""
    if not accurate:
        return a1 * b2 - a2 * b1
    p = a1 * b2
    t = _SPLIT * a1
    a_hi = t - (t - a1)
    a_lo = a1 - a_hi
    t = _SPLIT * b2
    b_hi = t - (t - b2)
    b_lo = b2 - b_hi
    ep = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    q = a2 * b1
    t = _SPLIT * a2
    a_hi = t - (t - a2)
    a_lo = a2 - a_hi
    t = _SPLIT * b1
    b_hi = t - (t - b1)
    b_lo = b1 - b_hi
    eq = ((a_hi * b_hi - q) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    return (p - q) + (ep - eq)


@njit(cache=True)
def row(ca: NDArray[np.float64], rot_a: NDArray[np.float64], ha: NDArray[np.float64], a: int,
         cb: NDArray[np.float64], rot_b: NDArray[np.float64], hb: NDArray[np.float64], b: int,
         rule: tuple[float, float], out: int, r: NDArray[np.float64], t: NDArray[np.float64],
         t_b: NDArray[np.float64], hit: NDArray[np.bool_], normal: NDArray[np.float64],
         depth: NDArray[np.float64]) -> None:
    """Row ``out`` of the output: box ``a`` (rows of ``ca``, ``rot_a``, ``ha``) against box ``b``.

    ``r`` (3, 3), ``t`` and ``t_b`` (3,) are scratch, allocated once by the caller.
    """
    d0, d1, d2 = cb[b, 0] - ca[a, 0], cb[b, 1] - ca[a, 1], cb[b, 2] - ca[a, 2]
    for p in range(3):
        for q in range(3):
            # rounded as the numpy twin's component-major rows round it: ((x0 + x1) + x2), no fused
            # multiply-adds (an ulp here decides pairs at the touching tolerance's edge)
            r[p, q] = (rot_a[a, 0, p] * rot_b[b, 0, q] + rot_a[a, 1, p] * rot_b[b, 1, q]
                       + rot_a[a, 2, p] * rot_b[b, 2, q])
        # the centres' difference first: exact or correctly rounded, so a
        # pair far from the origin loses nothing here
        t[p] = rot_a[a, 0, p] * d0 + rot_a[a, 1, p] * d1 + rot_a[a, 2, p] * d2
    for q in range(3):
        t_b[q] = r[0, q] * t[0] + r[1, q] * t[1] + r[2, q] * t[2]

    # a's faces, b's faces, then the edge pairs a_i x b_j (6 + 3 i + j);
    # the first largest separation wins
    best = -np.inf
    axis = 0
    lx = ly = lz = along = 0.0
    for p in range(3):
        sep = abs(t[p]) - (ha[a, p] + (abs(r[p, 0]) * hb[b, 0] + abs(r[p, 1]) * hb[b, 1] + abs(r[p, 2]) * hb[b, 2]))
        if p == 0 or sep > best:
            best, axis = sep, p
    for q in range(3):
        sep = abs(t_b[q]) - (abs(r[0, q]) * ha[a, 0] + abs(r[1, q]) * ha[a, 1] + abs(r[2, q]) * ha[a, 2]
                             + hb[b, q])
        if sep > best:
            best, axis = sep, 3 + q
    for i in range(3):
        a0, a1, a2 = rot_a[a, 0, i], rot_a[a, 1, i], rot_a[a, 2, i]
        for j in range(3):
            b0, b1, b2 = rot_b[b, 0, j], rot_b[b, 1, j], rot_b[b, 2, j]
            x = _cross_term(a1, b2, a2, b1, False)
            y = _cross_term(a2, b0, a0, b2, False)
            z = _cross_term(a0, b1, a1, b0, False)
            sine2 = x * x + y * y + z * z
            if sine2 < 0.25:  # nearly parallel edges: the rounded cross product's direction is noise
                x = _cross_term(a1, b2, a2, b1, True)
                y = _cross_term(a2, b0, a0, b2, True)
                z = _cross_term(a0, b1, a1, b0, True)
                sine2 = x * x + y * y + z * z
            sine = math.sqrt(sine2)
            if not sine > _PARALLEL_SIN:  # parallel edges: the face axes cover them
                continue
            x, y, z = x / sine, y / sine, z / sine
            proj = x * d0 + y * d1 + z * d2
            reach = 0.0
            for k in range(3):
                reach += abs(x * rot_a[a, 0, k] + y * rot_a[a, 1, k] + z * rot_a[a, 2, k]) * ha[a, k]
            for k in range(3):
                reach += abs(x * rot_b[b, 0, k] + y * rot_b[b, 1, k] + z * rot_b[b, 2, k]) * hb[b, k]
            sep = abs(proj) - reach
            if sep > best:
                best, axis = sep, 6 + 3 * i + j
                lx, ly, lz, along = x, y, z, proj

    # the winning axis in world coordinates, signed to point from a to b
    if axis < 3:
        lx, ly, lz, along = rot_a[a, 0, axis], rot_a[a, 1, axis], rot_a[a, 2, axis], t[axis]
    elif axis < 6:
        q = axis - 3
        lx, ly, lz, along = rot_b[b, 0, q], rot_b[b, 1, q], rot_b[b, 2, q], t_b[q]
    sign = -1.0 if along < 0.0 else 1.0
    normal[out, 0] = lx * sign + 0.0
    normal[out, 1] = ly * sign + 0.0
    normal[out, 2] = lz * sign + 0.0
    scale = 0.0
    for p in range(3):
        scale = max(scale, abs(ca[a, p]), abs(cb[b, p]), abs(ha[a, p]), abs(hb[b, p]))
    finish_row(-best, scale, rule, out, hit, depth)


@njit(cache=True)
def _rows(ca: NDArray[np.float64], rot_a: NDArray[np.float64], ha: NDArray[np.float64],
          cb: NDArray[np.float64], rot_b: NDArray[np.float64], hb: NDArray[np.float64],
          rule: tuple[float, float],
          hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    r = np.empty((3, 3))
    t = np.empty(3)
    t_b = np.empty(3)
    # strided views of the rows (x[..., ::1]), as every compiled caller passes them: one layout,
    # one compile of row (see contact_slots)
    v_ca, v_rot_a, v_ha = ca[..., ::1], rot_a[..., ::1], ha[..., ::1]
    v_cb, v_rot_b, v_hb = cb[..., ::1], rot_b[..., ::1], hb[..., ::1]
    for n in range(ca.shape[0]):
        row(v_ca, v_rot_a, v_ha, n, v_cb, v_rot_b, v_hb, n, rule, n, r, t, t_b, hit, normal, depth)


def contact_box_box_3d(
    center_a: ArrayLike,
    rotation_a: ArrayLike,
    half_a: ArrayLike,
    center_b: ArrayLike,
    rotation_b: ArrayLike,
    half_b: ArrayLike,
) -> ContactArrays:
    """Contact between pairs of oriented boxes in 3D; the twin of the numpy ``contact_box_box_3d``.

    Parameters
    ----------
    center_a, center_b : array_like, shape (..., 3)
        Box centres in world coordinates.
    rotation_a, rotation_b : array_like, shape (..., 3, 3)
        Rotations, local to world; columns are the box axes.
    half_a, half_b : array_like, shape (..., 3)
        Half extents along the box's own axes, ``>= 0``.

    The leading shapes broadcast together; with N pairs they are ``(N,)``,
    and a single pair may be given without a leading axis.

    Returns
    -------
    ContactArrays
        ``hit`` (...,) bool; ``normal`` (..., 3), unit, from a towards b;
        ``depth`` (...,), ``>= 0`` where ``hit``, elsewhere minus the largest
        axis separation. Ties go to a's faces, then b's, then edge pairs.

    Examples
    --------
    >>> import numpy as np
    >>> eye = np.eye(3)
    >>> c = contact_box_box_3d([0, 0, 0], eye, [1, 1, 1], [1.5, 0, 0], eye, [1, 1, 1])
    >>> bool(c.hit), c.normal.tolist(), float(c.depth)
    (True, [1.0, 0.0, 0.0], 0.5)
    """
    args = [as_rows(x) for x in (center_a, rotation_a, half_a, center_b, rotation_b, half_b)]
    tails = [(3,), (3, 3), (3,), (3,), (3, 3), (3,)]
    lead = np.broadcast_shapes(*(x.shape[:x.ndim - len(tail)] for x, tail in zip(args, tails, strict=True)))
    ca, ra, ha, cb, rb, hb = (as_rows(np.broadcast_to(x, lead + tail).reshape((-1,) + tail))
                              for x, tail in zip(args, tails, strict=True))
    out = contact_outputs(ca.shape[0], 3)
    _rows(ca, ra, ha, cb, rb, hb, touch_rule(), *out)
    return ContactArrays(out.hit.reshape(lead), out.normal.reshape(lead + (3,)), out.depth.reshape(lead))
