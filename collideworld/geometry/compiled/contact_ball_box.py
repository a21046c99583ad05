"""Compiled twin of ``geometry/contact_ball_box.py``: balls against oriented boxes (2D and 3D).

Ericson, *Real-Time Collision Detection*, §5.1.4: the ball's centre in the
box frame, clamped to the half extents, is the closest point of the box; a
centre inside leaves through the nearest face.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

from ..result import ContactArrays
from ..tolerance import SQUARES_RESCALE, SQUARES_UNDERFLOW
from .kernel_support import as_rows, contact_outputs, finish_row, touch_rule

__all__ = ["contact_ball_box", "row"]


@njit(cache=True)
def row(ca: NDArray[np.float64], r: NDArray[np.float64], a: int,
         cb: NDArray[np.float64], rot: NDArray[np.float64], h: NDArray[np.float64], b: int,
         rule: tuple[float, float], i: int,
         hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    """Row ``i`` of the output: ball ``a`` (rows of ``ca``, ``r``) against box ``b``."""
    dim = ca.shape[1]
    # the centre in the box frame, and how far it is outside each slab;
    # fixed-size scalars (D <= 3) rather than per-row arrays
    l0 = l1 = l2 = 0.0
    o0 = o1 = o2 = 0.0
    dist2 = 0.0
    scale = abs(r[a])
    for ax in range(dim):
        x = rot[b, 0, ax] * (ca[a, 0] - cb[b, 0])
        for k in range(1, dim):
            x += rot[b, k, ax] * (ca[a, k] - cb[b, k])
        lo = -h[b, ax]
        clipped = min(max(x, lo), h[b, ax])
        o = x - clipped
        dist2 = o * o if ax == 0 else dist2 + o * o
        if ax == 0:
            l0, o0 = x, o
        elif ax == 1:
            l1, o1 = x, o
        else:
            l2, o2 = x, o
        scale = max(scale, abs(ca[a, ax]), abs(cb[b, ax]), abs(h[b, ax]))
    if dist2 < SQUARES_UNDERFLOW:
        # the squares underflowed: again scaled up exactly (the numpy twin's rescue)
        u0, u1, u2 = o0 * SQUARES_RESCALE, o1 * SQUARES_RESCALE, o2 * SQUARES_RESCALE
        dist2 = u0 * u0
        if dim > 1:
            dist2 += u1 * u1
        if dim > 2:
            dist2 += u2 * u2
        dist = math.sqrt(dist2) / SQUARES_RESCALE
    else:
        dist = math.sqrt(dist2)
    # within the touching tolerance of the boundary the centre is on it, and
    # the face rule below gives the normal (see the numpy twin)
    tol = rule[0] * max(rule[1], scale)
    outside = dist > tol
    # nearest face when inside; faces within tol of the nearest are tied and
    # the lowest axis wins
    g0 = h[b, 0] - abs(l0)
    g1 = h[b, 1] - abs(l1) if dim > 1 else g0
    g2 = h[b, 2] - abs(l2) if dim > 2 else g1
    inner_gap = min(g0, g1, g2)
    if g0 <= inner_gap + tol:
        face = 0
    elif g1 <= inner_gap + tol:
        face = 1
    else:
        face = 2
    for k in range(dim):
        acc = 0.0
        for ax in range(dim):
            la = l0 if ax == 0 else (l1 if ax == 1 else l2)
            if outside:
                oa = o0 if ax == 0 else (o1 if ax == 1 else o2)
                n = -oa / dist
            elif face == ax:
                n = -1.0 if la >= -tol else 1.0
            else:
                n = 0.0
            acc = rot[b, k, ax] * n if ax == 0 else acc + rot[b, k, ax] * n
        normal[i, k] = acc + 0.0
    finish_row(r[a] - dist if dist > 0.0 else r[a] + inner_gap, scale, rule, i, hit, depth)


@njit(cache=True)
def _rows(ca: NDArray[np.float64], r: NDArray[np.float64], cb: NDArray[np.float64], rot: NDArray[np.float64],
          h: NDArray[np.float64], rule: tuple[float, float],
          hit: NDArray[np.bool_], normal: NDArray[np.float64],
          depth: NDArray[np.float64]) -> None:
    # strided views of the rows (x[..., ::1]), as every compiled caller passes them: one layout,
    # one compile of row (see contact_slots)
    v_ca, v_r, v_cb, v_rot, v_h = ca[..., ::1], r[..., ::1], cb[..., ::1], rot[..., ::1], h[..., ::1]
    for i in range(ca.shape[0]):
        row(v_ca, v_r, i, v_cb, v_rot, v_h, i, rule, i, hit, normal, depth)


def contact_ball_box(
    center_a: ArrayLike,
    radius_a: ArrayLike,
    center_b: ArrayLike,
    rotation_b: ArrayLike,
    half_b: ArrayLike,
) -> ContactArrays:
    """Contacts between N balls (a) and N oriented boxes (b); the twin of the numpy ``contact_ball_box``.

    Parameters
    ----------
    center_a : array_like, shape (N, D)
    radius_a : array_like, shape (N,)
    center_b : array_like, shape (N, D)
    rotation_b : array_like, shape (N, D, D)
        Local-to-world rotations of the boxes (columns are the box axes).
    half_b : array_like, shape (N, D)
        Half extents of the boxes.

    Returns
    -------
    ContactArrays
        ``normal`` (N, D) from the ball towards the box.

    Examples
    --------
    >>> eye = [[[1.0, 0.0], [0.0, 1.0]]]
    >>> c = contact_ball_box([[2.0, 0.0]], [1.0], [[0.0, 0.0]], eye, [[1.0, 1.0]])
    >>> bool(c.hit[0]), c.normal[0].tolist(), float(c.depth[0])
    (True, [-1.0, 0.0], 0.0)
    """
    ca = as_rows(center_a)
    out = contact_outputs(ca.shape[0], ca.shape[1])
    _rows(ca, as_rows(radius_a), as_rows(center_b), as_rows(rotation_b), as_rows(half_b), touch_rule(), *out)
    return out
