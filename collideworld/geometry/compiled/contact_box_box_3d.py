"""Compiled twin of ``geometry/contact_box_box_3d.py``: oriented boxes in 3D, by separating axes.

The 15 axes of Gottschalk, Lin and Manocha 1996 (Ericson, *Real-Time
Collision Detection*, §4.4.1): a's 3 face normals, b's 3, and the 9 cross
products of an edge of a with an edge of b. Per row::

    express b in a's frame once: R = R_a^T R_b, t = R_a^T (c_b - c_a)
    separation(L) = |t . L| - r_a(L) - r_b(L) for each axis L (edge pairs normalised,
                    skipped when the edges are parallel)
    s = first largest separation; normal = its axis, signed from a to b, back in world frame

The 3x3 ``R`` and the two 3-vectors live in scratch arrays allocated once per
call, reused by every row.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

from ..result import ContactArrays
from .kernel_support import as_rows, contact_outputs, einsum_sum, finish_row, fma, touch_rule

__all__ = ["contact_box_box_3d"]

#: As in the numpy twin: Ericson's parallel-edge guard on the edge-pair radii.
_COS_EPS = 16.0 * np.finfo(np.float64).eps

#: As in the numpy twin: edge pairs whose sine is at or below this are skipped.
_PARALLEL_SIN = 1e-12


@njit(cache=True)
def _rows(ca: NDArray[np.float64], rot_a: NDArray[np.float64], ha: NDArray[np.float64],
          cb: NDArray[np.float64], rot_b: NDArray[np.float64], hb: NDArray[np.float64],
          rule: tuple[float, float],
          hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    r = np.empty((3, 3))
    t = np.empty(3)
    t_b = np.empty(3)
    local = np.empty(3)
    for i in range(ca.shape[0]):
        for p in range(3):
            for q in range(3):
                # rounded as numpy's matmul rounds it (fused multiply-adds)
                r[p, q] = fma(rot_a[i, 2, p], rot_b[i, 2, q],
                              fma(rot_a[i, 1, p], rot_b[i, 1, q], rot_a[i, 0, p] * rot_b[i, 0, q]))
            # the centres' difference first: exact or correctly rounded, so a
            # pair far from the origin loses nothing here
            t[p] = rot_a[i, 0, p] * (cb[i, 0] - ca[i, 0]) + rot_a[i, 1, p] * (cb[i, 1] - ca[i, 1]) \
                + rot_a[i, 2, p] * (cb[i, 2] - ca[i, 2])
        for q in range(3):
            t_b[q] = r[0, q] * t[0] + r[1, q] * t[1] + r[2, q] * t[2]

        # a's faces, b's faces, then the edge pairs e_i x f_j (k = 3 i + j);
        # the first largest separation wins
        best = -np.inf
        axis = 0
        for p in range(3):
            ra = abs(t[p]) - (ha[i, p] + einsum_sum(abs(r[p, 0]) * hb[i, 0], abs(r[p, 1]) * hb[i, 1],
                                                    abs(r[p, 2]) * hb[i, 2], 3))
            if ra > best or p == 0:
                best, axis = ra, p
        for q in range(3):
            sep = abs(t_b[q]) - (abs(r[0, q]) * ha[i, 0] + abs(r[1, q]) * ha[i, 1] + abs(r[2, q]) * ha[i, 2]
                                 + hb[i, q])
            if sep > best:
                best, axis = sep, 3 + q
        for k in range(9):
            a, b = k // 3, k % 3
            a1, a2 = (a + 1) % 3, (a + 2) % 3
            b1, b2 = (b + 1) % 3, (b + 2) % 3
            # e_a x f_b has components -R[a2, b] at a1 and R[a1, b] at a2
            sine = math.sqrt(r[a1, b] * r[a1, b] + r[a2, b] * r[a2, b])
            if not sine > _PARALLEL_SIN:  # parallel edges: the face axes cover them
                continue
            proj = t[a2] * r[a1, b] - t[a1] * r[a2, b]
            rad_a = ha[i, a1] * (abs(r[a2, b]) + _COS_EPS) + ha[i, a2] * (abs(r[a1, b]) + _COS_EPS)
            rad_b = hb[i, b1] * (abs(r[a, b2]) + _COS_EPS) + hb[i, b2] * (abs(r[a, b1]) + _COS_EPS)
            sep = (abs(proj) - rad_a - rad_b) / sine
            if sep > best:
                best, axis = sep, 6 + k

        # the winning axis in a's frame, signed to point from a to b
        if axis < 3:
            local[0] = local[1] = local[2] = 0.0
            local[axis] = 1.0
            along = t[axis]
        elif axis < 6:
            for p in range(3):
                local[p] = r[p, axis - 3]
            along = t_b[axis - 3]
        else:
            k = axis - 6
            a, b = k // 3, k % 3
            a1, a2 = (a + 1) % 3, (a + 2) % 3
            sine = math.sqrt(r[a1, b] * r[a1, b] + r[a2, b] * r[a2, b])
            local[a] = 0.0
            local[a1] = -r[a2, b] / sine
            local[a2] = r[a1, b] / sine
            along = t[a2] * r[a1, b] - t[a1] * r[a2, b]
        sign = -1.0 if along < 0.0 else 1.0
        for p in range(3):
            local[p] *= sign
        for p in range(3):
            normal[i, p] = einsum_sum(rot_a[i, p, 0] * local[0], rot_a[i, p, 1] * local[1],
                                      rot_a[i, p, 2] * local[2], 3) + 0.0
        scale = 0.0
        for p in range(3):
            scale = max(scale, abs(ca[i, p]), abs(cb[i, p]), abs(ha[i, p]), abs(hb[i, p]))
        finish_row(-best, scale, rule, i, hit, depth)


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
