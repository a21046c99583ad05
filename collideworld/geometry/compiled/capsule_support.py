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

__all__ = ["dot_row", "clip01", "closest_segment_segment_row", "perpendicular_row", "row_max_abs"]


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
    f = dot_row(dq, r, dim)
    c = dot_row(dp, r, dim)
    b = dot_row(dp, dq, dim)
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
    length = math.sqrt(dot_row(out, out, dim))
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
