"""Compiled twins of ``geometry/capsule_support.py``: segment pieces, one row at a time.

Each function rounds exactly as its numpy twin does on one row (the same
operations in the same order), so the capsule kernels of both backends
decide near-touching pairs alike. They take 1-D scratch arrays of length
``dim`` and are inlined: the kernels copy rows into scratch rather than pass
views like ``a[i]``, because every view costs numba's reference counting
(measured ~350 ns per row against ~4 ns without).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..tolerance import SQUARES_OVERFLOW, SQUARES_UNDERFLOW

__all__ = ["dot_row", "clip01", "closest_segment_segment_row", "dot_scaled", "length_row", "perpendicular_row",
           "row_max_abs", "unit_for_row"]

# the numpy twin's band (capsule_support._SIZE_LOW, _SIZE_HIGH)
_SIZE_LOW = 2.0 ** -300
_SIZE_HIGH = 2.0 ** 300


@njit(cache=True, inline="always")
def dot_row(u: NDArray[np.float64], v: NDArray[np.float64], dim: int) -> float:
    """``u . v`` summed left to right, as ``capsule_support.dot``.

    Examples
    --------
    >>> import numpy as np
    >>> dot_row(np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0]), 3)
    32.0
    """
    acc: float = u[0] * v[0] + u[1] * v[1]
    if dim == 3:
        acc = acc + u[2] * v[2]
    return acc


@njit(cache=True, inline="always")
def unit_for_row(big: float) -> float:
    """The numpy ``unit_for`` of one value: the power of two bringing ``big`` to [0.5, 1), at most 2**1023.

    Examples
    --------
    >>> unit_for_row(3.0), unit_for_row(0.0), unit_for_row(5e-324) == 2.0 ** 1023
    (0.25, 1.0, True)
    """
    return math.ldexp(1.0, min(-math.frexp(big)[1], 1023))


@njit(cache=True, inline="always")
def dot_scaled(u: NDArray[np.float64], v: NDArray[np.float64], unit: float, dim: int) -> float:
    """``(u * unit) . (v * unit)`` rounded as numpy's ``dot`` of the scaled rows."""
    acc: float = (u[0] * unit) * (v[0] * unit) + (u[1] * unit) * (v[1] * unit)
    if dim == 3:
        acc = acc + (u[2] * unit) * (v[2] * unit)
    return acc


@njit(cache=True, inline="always")
def length_row(v: NDArray[np.float64], dim: int) -> float:
    """``|v|`` as the numpy ``capsule_support.length``: measured again scaled where the squares under- or overflowed.

    Examples
    --------
    >>> import numpy as np
    >>> length_row(np.array([3e-200, 4e-200]), 2) == 5e-200
    True
    """
    vv = dot_row(v, v, dim)
    if vv >= SQUARES_UNDERFLOW and vv <= SQUARES_OVERFLOW:
        return math.sqrt(vv)
    big = 0.0
    for k in range(dim):
        big = max(big, abs(v[k]))
    unit = unit_for_row(big)
    return math.sqrt(dot_scaled(v, v, unit, dim)) / unit


@njit(cache=True, inline="always")
def clip01(x: float) -> float:
    """``np.clip(x, 0, 1)`` for a float.

    Examples
    --------
    >>> clip01(-2.0), clip01(0.25), clip01(7.0)
    (0.0, 0.25, 1.0)
    """
    return min(max(x, 0.0), 1.0)


@njit(cache=True, inline="always")
def closest_segment_segment_row(p0: NDArray[np.float64], dp: NDArray[np.float64], q0: NDArray[np.float64],
                                dq: NDArray[np.float64], r: NDArray[np.float64], dim: int) -> tuple[float, float]:
    """``(s, t)`` of the closest points of one pair of segments (Ericson RTCD §5.1.9).

    ``r`` is scratch space of length ``dim``. See the numpy
    ``closest_segment_segment`` for the cases.

    Examples
    --------
    >>> import numpy as np
    >>> closest_segment_segment_row(np.array([0.0, 0.0]), np.array([2.0, 0.0]), np.array([1.0, 1.0]),
    ...                             np.array([0.0, 2.0]), np.zeros(2), 2)
    (0.5, 0.0)
    """
    for k in range(dim):
        r[k] = p0[k] - q0[k]
    a = dot_row(dp, dp, dim)
    e = dot_row(dq, dq, dim)
    size = a + e + dot_row(r, r, dim)
    if size >= _SIZE_LOW and size <= _SIZE_HIGH:
        f = dot_row(dq, r, dim)
        c = dot_row(dp, r, dim)
        b = dot_row(dp, dq, dim)
    else:
        # all three scaled by the power of two that brings the largest
        # component to [0.5, 1), as the numpy twin (exact; s and t unchanged)
        big = 0.0
        for k in range(dim):
            big = max(big, max(max(abs(r[k]), abs(dp[k])), abs(dq[k])))
        unit = unit_for_row(big)
        a = dot_scaled(dp, dp, unit, dim)
        e = dot_scaled(dq, dq, unit, dim)
        f = dot_scaled(dq, r, unit, dim)
        c = dot_scaled(dp, r, unit, dim)
        b = dot_scaled(dp, dq, unit, dim)
    if a > 0.0 and e > 0.0:
        denom = a * e - b * b
        s = clip01((b * f - c * e) / denom) if denom > 0.0 else 0.0
        t = (b * s + f) / e
        if t < 0.0:
            return clip01(-c / a), 0.0
        if t > 1.0:
            return clip01((b - c) / a), 1.0
        return s, t
    if a > 0.0:
        return clip01(-c / a), 0.0
    if e > 0.0:
        return 0.0, clip01(f / e)
    return 0.0, 0.0


@njit(cache=True, inline="always")
def perpendicular_row(d: NDArray[np.float64], dim: int, out: NDArray[np.float64]) -> None:
    """Write a unit vector perpendicular to ``d`` into ``out``, as ``capsule_support.perpendicular``.

    Examples
    --------
    >>> import numpy as np
    >>> out = np.zeros(2)
    >>> perpendicular_row(np.array([2.0, 0.0]), 2, out)
    >>> out.tolist()
    [0.0, 1.0]
    """
    if dim == 2:
        out[0] = -d[1]
        out[1] = d[0]
    else:
        k = 0
        for j in range(1, 3):
            if abs(d[j]) < abs(d[k]):
                k = j
        e0 = 1.0 if k == 0 else 0.0
        e1 = 1.0 if k == 1 else 0.0
        e2 = 1.0 if k == 2 else 0.0
        out[0] = d[1] * e2 - d[2] * e1
        out[1] = d[2] * e0 - d[0] * e2
        out[2] = d[0] * e1 - d[1] * e0
    length = length_row(out, dim)
    if length > 0.0:
        for j in range(dim):
            out[j] = out[j] / length + 0.0
    else:
        for j in range(dim):
            out[j] = 0.0
        out[0] = 1.0


@njit(cache=True, inline="always")
def row_max_abs(a: NDArray[np.float64], scale: float) -> float:
    """``max(scale, max |a|)`` over a 1-D row, for the touching rule's scale.

    Examples
    --------
    >>> import numpy as np
    >>> row_max_abs(np.array([1.0, -3.0]), 2.0)
    3.0
    """
    for k in range(a.shape[0]):
        scale = max(scale, abs(a[k]))
    return scale
