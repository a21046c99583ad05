"""Compiled twin of ``geometry/contact_ball_ball.py``: balls against balls (2D and 3D)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

from ..result import ContactArrays
from ..tolerance import SQUARES_RESCALE, SQUARES_UNDERFLOW
from .kernel_support import as_rows, contact_outputs, einsum_sum, finish_row, touch_rule

__all__ = ["contact_ball_ball", "row"]


@njit(cache=True)
def row(ca: NDArray[np.float64], ra: NDArray[np.float64], a: int,
         cb: NDArray[np.float64], rb: NDArray[np.float64], b: int, rule: tuple[float, float], i: int,
         hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    """Row ``i`` of the output: ball ``a`` (rows of ``ca``, ``ra``) against ball ``b``."""
    dim = ca.shape[1]
    scale = max(abs(ra[a]), abs(rb[b]))
    for k in range(dim):
        scale = max(scale, abs(ca[a, k]), abs(cb[b, k]))
    d0 = cb[b, 0] - ca[a, 0]
    d1 = cb[b, 1] - ca[a, 1]
    d2 = cb[b, dim - 1] - ca[a, dim - 1]
    dd = einsum_sum(d0 * d0, d1 * d1, d2 * d2, dim)
    if dd < SQUARES_UNDERFLOW:
        # the squares underflowed: again scaled up exactly (the numpy twin's rescue)
        d0, d1, d2 = d0 * SQUARES_RESCALE, d1 * SQUARES_RESCALE, d2 * SQUARES_RESCALE
        dist = math.sqrt(einsum_sum(d0 * d0, d1 * d1, d2 * d2, dim)) / SQUARES_RESCALE
    else:
        dist = math.sqrt(dd)
    # concentric (or so close that the distance underflows): every
    # direction is an MTD; like the numpy twin, the first axis, and the
    # other components left as the (zero or subnormal) differences
    safe = dist if dist > 0.0 else 1.0
    for k in range(dim):
        normal[i, k] = (cb[b, k] - ca[a, k]) / safe + 0.0
    if not dist > 0.0:
        normal[i, 0] = 1.0
    finish_row(ra[a] + rb[b] - dist, scale, rule, i, hit, depth)


@njit(cache=True)
def _rows(ca: NDArray[np.float64], ra: NDArray[np.float64], cb: NDArray[np.float64], rb: NDArray[np.float64],
          rule: tuple[float, float],
          hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    # strided views of the rows (x[..., ::1]), as every compiled caller passes them: one layout,
    # one compile of row (see contact_slots)
    v_ca, v_ra, v_cb, v_rb = ca[..., ::1], ra[..., ::1], cb[..., ::1], rb[..., ::1]
    for i in range(ca.shape[0]):
        row(v_ca, v_ra, i, v_cb, v_rb, i, rule, i, hit, normal, depth)


def contact_ball_ball(
    center_a: ArrayLike, radius_a: ArrayLike, center_b: ArrayLike, radius_b: ArrayLike
) -> ContactArrays:
    """Contacts between N pairs of balls; the twin of the numpy ``contact_ball_ball``.

    Parameters
    ----------
    center_a, center_b : array_like, shape (N, D)
    radius_a, radius_b : array_like, shape (N,)

    Returns
    -------
    ContactArrays
        ``normal`` (N, D) is the unit vector from centre a to centre b (the
        first axis for concentric balls); ``depth`` is
        ``radius_a + radius_b - distance``.

    Examples
    --------
    >>> c = contact_ball_ball([[0.0, 0.0]], [1.0], [[3.0, 4.0]], [4.0])
    >>> bool(c.hit[0]), c.normal[0].tolist(), float(c.depth[0])
    (True, [0.6, 0.8], 0.0)
    """
    ca = as_rows(center_a)
    out = contact_outputs(ca.shape[0], ca.shape[1])
    _rows(ca, as_rows(radius_a), as_rows(center_b), as_rows(radius_b), touch_rule(), *out)
    return out
