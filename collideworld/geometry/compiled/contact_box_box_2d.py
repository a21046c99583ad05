"""Compiled twin of ``geometry/contact_box_box_2d.py``: oriented rectangles, by separating axes.

The four box axes are the edge normals of the Minkowski difference, so the
smallest overlap along them is the exact minimum translation distance
(Gottschalk, Lin and Manocha 1996; Ericson, *Real-Time Collision Detection*,
§4.4.1, restricted to 2D).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

from ..result import ContactArrays
from .kernel_support import as_rows, contact_outputs, finish_row, touch_rule

__all__ = ["contact_box_box_2d", "row"]


@njit(cache=True)
def row(ca: NDArray[np.float64], ra: NDArray[np.float64], ha: NDArray[np.float64], a: int,
         cb: NDArray[np.float64], rb: NDArray[np.float64], hb: NDArray[np.float64], b: int,
         rule: tuple[float, float], i: int,
         hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    """Row ``i`` of the output: box ``a`` (rows of ``ca``, ``ra``, ``ha``) against box ``b``."""
    a0x, a0y, a1x, a1y = ra[a, 0, 0], ra[a, 1, 0], ra[a, 0, 1], ra[a, 1, 1]
    b0x, b0y, b1x, b1y = rb[b, 0, 0], rb[b, 1, 0], rb[b, 0, 1], rb[b, 1, 1]
    ha0, ha1, hb0, hb1 = ha[a, 0], ha[a, 1], hb[b, 0], hb[b, 1]
    # relative to a's centre, so large world offsets cancel first
    dx, dy = cb[b, 0] - ca[a, 0], cb[b, 1] - ca[a, 1]
    c00 = abs(a0x * b0x + a0y * b0y)
    c01 = abs(a0x * b1x + a0y * b1y)
    c10 = abs(a1x * b0x + a1y * b0y)
    c11 = abs(a1x * b1x + a1y * b1y)
    # the four candidate axes in order (a's, then b's): the first
    # smallest overlap wins, as numpy's argmin picks it
    along = a0x * dx + a0y * dy
    best = ha0 + c00 * hb0 + c01 * hb1 - abs(along)
    nx, ny, s = a0x, a0y, along
    along = a1x * dx + a1y * dy
    overlap = ha1 + c10 * hb0 + c11 * hb1 - abs(along)
    if overlap < best:
        best, nx, ny, s = overlap, a1x, a1y, along
    along = b0x * dx + b0y * dy
    overlap = c00 * ha0 + c10 * ha1 + hb0 - abs(along)
    if overlap < best:
        best, nx, ny, s = overlap, b0x, b0y, along
    along = b1x * dx + b1y * dy
    overlap = c01 * ha0 + c11 * ha1 + hb1 - abs(along)
    if overlap < best:
        best, nx, ny, s = overlap, b1x, b1y, along
    sign = -1.0 if s < 0 else 1.0
    normal[i, 0] = nx * sign + 0.0
    normal[i, 1] = ny * sign + 0.0
    scale = max(abs(ca[a, 0]), abs(ca[a, 1]), abs(cb[b, 0]), abs(cb[b, 1]),
                abs(ha0), abs(ha1), abs(hb0), abs(hb1))
    finish_row(best, scale, rule, i, hit, depth)


@njit(cache=True)
def _rows(ca: NDArray[np.float64], ra: NDArray[np.float64], ha: NDArray[np.float64],
          cb: NDArray[np.float64], rb: NDArray[np.float64], hb: NDArray[np.float64],
          rule: tuple[float, float],
          hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    # strided views of the rows (x[..., ::1]), as every compiled caller passes them: one layout,
    # one compile of row (see contact_slots)
    v_ca, v_ra, v_ha = ca[..., ::1], ra[..., ::1], ha[..., ::1]
    v_cb, v_rb, v_hb = cb[..., ::1], rb[..., ::1], hb[..., ::1]
    for i in range(ca.shape[0]):
        row(v_ca, v_ra, v_ha, i, v_cb, v_rb, v_hb, i, rule, i, hit, normal, depth)


def contact_box_box_2d(
    center_a: ArrayLike,
    rotation_a: ArrayLike,
    half_a: ArrayLike,
    center_b: ArrayLike,
    rotation_b: ArrayLike,
    half_b: ArrayLike,
) -> ContactArrays:
    """Contacts between N pairs of oriented rectangles; the twin of the numpy ``contact_box_box_2d``.

    Parameters
    ----------
    center_a, center_b : array_like, shape (N, 2)
    rotation_a, rotation_b : array_like, shape (N, 2, 2)
        Local-to-world rotations (columns are the box axes).
    half_a, half_b : array_like, shape (N, 2)
        Half extents.

    Returns
    -------
    ContactArrays
        ``normal`` (N, 2) is one of the four box axes, pointing from a towards
        b; ``depth`` the smallest overlap over those axes.

    Examples
    --------
    >>> eye = [[[1.0, 0.0], [0.0, 1.0]]]
    >>> c = contact_box_box_2d([[0.0, 0.0]], eye, [[1.0, 1.0]],
    ...                        [[1.5, 0.2]], eye, [[1.0, 1.0]])
    >>> bool(c.hit[0]), c.normal[0].tolist(), float(c.depth[0])
    (True, [1.0, 0.0], 0.5)
    """
    ca = as_rows(center_a)
    out = contact_outputs(ca.shape[0], 2)
    _rows(ca, as_rows(rotation_a), as_rows(half_a), as_rows(center_b), as_rows(rotation_b), as_rows(half_b),
          touch_rule(), *out)
    return out
