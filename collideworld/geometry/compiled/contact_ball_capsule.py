"""Compiled twin of ``geometry/contact_ball_capsule.py``: balls against capsules."""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..result import ContactArrays
from ..tolerance import SQUARES_UNDERFLOW
from .capsule_support import clip01, dot_row, dot_scaled, length_row, perpendicular_row, unit_for_row
from .kernel_support import as_rows, contact_outputs, finish_row, touch_rule

__all__ = ["contact_ball_capsule"]


@njit(cache=True)
def _rows(c: NDArray[np.float64], ra: NDArray[np.float64], p0: NDArray[np.float64], p1: NDArray[np.float64],
          rb: NDArray[np.float64], rule: tuple[float, float],
          hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    dim = c.shape[1]
    d = np.empty(dim)
    m = np.empty(dim)
    w = np.empty(dim)
    perp = np.empty(dim)
    for i in range(c.shape[0]):
        for k in range(dim):
            d[k] = p1[i, k] - p0[i, k]
            m[k] = c[i, k] - p0[i, k]
        dd = dot_row(d, d, dim)
        t = clip01(dot_row(m, d, dim) / dd) if dd > 0.0 else 0.0
        if dd < SQUARES_UNDERFLOW:
            # d's squares underflowed: t again with d and m scaled alike (the numpy twin's rescue)
            big = 0.0
            for k in range(dim):
                big = max(big, max(abs(m[k]), abs(d[k])))
            unit = unit_for_row(big)
            uu = dot_scaled(d, d, unit, dim)
            t = clip01(dot_scaled(m, d, unit, dim) / uu) if uu > 0.0 else 0.0
        for k in range(dim):
            w[k] = p0[i, k] + t * d[k] - c[i, k]
        dist = length_row(w, dim)
        if dist > 0.0:
            for k in range(dim):
                normal[i, k] = w[k] / dist + 0.0
        else:
            perpendicular_row(d, dim, perp)
            for k in range(dim):
                normal[i, k] = perp[k]
        scale = max(abs(ra[i]), abs(rb[i]))
        for k in range(dim):
            scale = max(scale, max(abs(c[i, k]), max(abs(p0[i, k]), abs(p1[i, k]))))
        finish_row(ra[i] + rb[i] - dist, scale, rule, i, hit, depth)


def contact_ball_capsule(center: NDArray[np.float64], radius_a: NDArray[np.float64], p0: NDArray[np.float64],
                         p1: NDArray[np.float64], radius_b: NDArray[np.float64]) -> ContactArrays:
    """Balls (a) against capsules (b); the twin of the numpy ``contact_ball_capsule``.

    Parameters
    ----------
    center : ndarray, shape (N, D)
    radius_a : ndarray, shape (N,)
    p0, p1 : ndarray, shape (N, D)
    radius_b : ndarray, shape (N,)

    Returns
    -------
    ContactArrays

    Examples
    --------
    >>> import numpy as np
    >>> c = contact_ball_capsule(np.array([[1.0, 1.5]]), np.array([1.0]), np.array([[0.0, 0.0]]),
    ...                          np.array([[4.0, 0.0]]), np.array([1.0]))
    >>> bool(c.hit[0]), c.normal[0].tolist(), float(c.depth[0])
    (True, [0.0, -1.0], 0.5)
    """
    c = as_rows(center)
    out = contact_outputs(c.shape[0], c.shape[1])
    _rows(c, as_rows(radius_a), as_rows(p0), as_rows(p1), as_rows(radius_b), touch_rule(), *out)
    return out


#: The row loop itself, for compiled callers that build their rows in place (the one-call path of
#: ``contact_pair``); the same routine the batched call above runs.
rows = _rows
