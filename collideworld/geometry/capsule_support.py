"""Segment pieces shared by the capsule kernels (``contact_*_capsule`` modules).

A capsule is a segment grown by a radius, so every capsule kernel reduces to
a question about its core segment: the closest points of two segments
(Ericson, *Real-Time Collision Detection*, §5.1.9), the separating axes of a
segment against a convex polygon or box, a direction perpendicular to a
segment. Dot products are written out component by component, in a fixed
order, so that the compiled twins in
:mod:`collideworld.geometry.compiled.capsule_support` round exactly the same way.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .tolerance import SQUARES_OVERFLOW, SQUARES_UNDERFLOW

# closest_segment_segment multiplies squared lengths in pairs: rows whose
# squared sizes fall outside this band (lengths past ~1e-45 or ~1e45) are
# scaled by a power of two first, exactly, so that no product overflows
# (capsules of 1e80 and more) or underflows (below ~1e-80), and scaling a
# scene changes no answer.
_SIZE_LOW = 2.0 ** -300
_SIZE_HIGH = 2.0 ** 300

__all__ = ["dot", "closest_segment_segment", "length", "perpendicular", "unit_for"]

F64 = NDArray[np.float64]


def dot(u: F64, v: F64) -> F64:
    """Row-wise dot products ``u . v`` of (..., D) arrays, summed left to right.

    Parameters
    ----------
    u, v : ndarray, shape (..., D)

    Returns
    -------
    ndarray, shape (...)

    Examples
    --------
    >>> import numpy as np
    >>> dot(np.array([[1.0, 2.0, 3.0]]), np.array([[4.0, 5.0, 6.0]])).tolist()
    [32.0]
    """
    acc: F64 = u[..., 0] * v[..., 0] + u[..., 1] * v[..., 1]
    if u.shape[-1] == 3:
        acc = acc + u[..., 2] * v[..., 2]
    return acc


def unit_for(big: F64) -> F64:
    """The power of two that brings ``big`` (>= 0) to [0.5, 1), at most 2**1023 (``big`` may be subnormal).

    Multiplying by it is exact, so a row scaled by it rounds as the
    unscaled row would if no square under- or overflowed.

    Examples
    --------
    >>> import numpy as np
    >>> unit_for(np.array([3.0, 0.0, 5e-324])).tolist() == [0.25, 1.0, 2.0 ** 1023]
    True
    """
    return np.ldexp(1.0, np.minimum(-np.frexp(big)[1], 1023))


def closest_segment_segment(p0: F64, dp: F64, q0: F64, dq: F64) -> tuple[F64, F64]:
    """Parameters ``(s, t)`` of the closest points ``p0 + s dp`` and ``q0 + t dq`` of two segments.

    Ericson, *Real-Time Collision Detection*, §5.1.9: minimise over the
    unit square; first the unconstrained ``s`` of the infinite lines clamped
    to [0, 1], then the best ``t`` for it, and if that ``t`` had to be
    clamped, the best ``s`` for the clamped ``t``. A segment of zero length
    (a point) takes parameter 0. Parallel segments (``denom <= 0``, in
    rounding too) start from ``s = 0``; the clamped refits then still land on
    a closest pair, which is not unique there.

    Parameters
    ----------
    p0, dp, q0, dq : ndarray, shape (..., D)
        Start points and direction vectors (end minus start).

    Returns
    -------
    s, t : ndarray, shape (...)
        In [0, 1].

    Examples
    --------
    The x axis from 0 to 2 and the vertical segment at x = 1 from y = 1 to 3
    are closest at (1, 0) and (1, 1):

    >>> import numpy as np
    >>> s, t = closest_segment_segment(np.array([[0.0, 0.0]]), np.array([[2.0, 0.0]]),
    ...                                np.array([[1.0, 1.0]]), np.array([[0.0, 2.0]]))
    >>> s.tolist(), t.tolist()
    ([0.5], [0.0])
    """
    r = p0 - q0
    a = dot(dp, dp)
    e = dot(dq, dq)
    size = a + e + dot(r, r)
    wild = ~((size >= _SIZE_LOW) & (size <= _SIZE_HIGH))
    if wild.any():
        # s and t do not change when the three vectors are scaled alike; the
        # power of two that brings their largest component to [0.5, 1)
        # scales them exactly (size itself may have underflowed to 0)
        big = np.maximum(np.maximum(np.abs(r), np.abs(dp)), np.abs(dq)).max(axis=-1)
        unit = np.where(wild, unit_for(big), 1.0)[..., None]
        r, dp, dq = r * unit, dp * unit, dq * unit
        a = dot(dp, dp)
        e = dot(dq, dq)
    f = dot(dq, r)
    c = dot(dp, r)
    b = dot(dp, dq)
    denom = a * e - b * b
    a_ok = a > 0.0
    e_ok = e > 0.0
    a_safe = np.where(a_ok, a, 1.0)
    e_safe = np.where(e_ok, e, 1.0)
    s = np.where(denom > 0.0, np.clip((b * f - c * e) / np.where(denom > 0.0, denom, 1.0), 0.0, 1.0), 0.0)
    t = (b * s + f) / e_safe
    low = t < 0.0
    high = t > 1.0
    s = np.where(low, np.clip(-c / a_safe, 0.0, 1.0), np.where(high, np.clip((b - c) / a_safe, 0.0, 1.0), s))
    t = np.clip(t, 0.0, 1.0)
    # degenerate segments (points): the closed forms of Ericson's first branches
    only_q = ~a_ok & e_ok
    only_p = a_ok & ~e_ok
    s = np.where(a_ok & e_ok, s, np.where(only_p, np.clip(-c / a_safe, 0.0, 1.0), 0.0))
    t = np.where(a_ok & e_ok, t, np.where(only_q, np.clip(f / e_safe, 0.0, 1.0), 0.0))
    return s, t


def length(v: F64) -> F64:
    """Euclidean lengths of the rows of ``v`` (..., D), without underflow.

    ``sqrt(v . v)``; where the squares underflowed (rows shorter than
    ~1e-150, as in a scene scaled down that far) or overflowed (a cross
    product of two vectors over ~1e77), measured again with the row scaled
    by the power of two that brings its largest component to [0.5, 1)
    (exact), and scaled back.

    Examples
    --------
    >>> import numpy as np
    >>> length(np.array([[3.0, 4.0], [3e-200, 4e-200]])).tolist() == [5.0, 5e-200]
    True
    """
    with np.errstate(over="ignore"):
        vv = dot(v, v)
    out: F64 = np.sqrt(vv)
    wild = ~((vv >= SQUARES_UNDERFLOW) & (vv <= SQUARES_OVERFLOW))  # zero rows too: they stay zero
    if wild.any():
        w = v[wild]
        big = np.abs(w).max(axis=-1)
        unit = unit_for(big)[..., None]
        w = w * unit
        out[wild] = np.sqrt(dot(w, w)) / unit[..., 0]
    return out


def perpendicular(d: F64) -> F64:
    """A unit vector perpendicular to each row of ``d`` (the first axis for a zero row).

    2D: ``d`` turned a quarter counter-clockwise. 3D: ``d`` crossed with the
    coordinate axis it is least aligned with.

    Parameters
    ----------
    d : ndarray, shape (N, D)

    Returns
    -------
    ndarray, shape (N, D)

    Examples
    --------
    >>> import numpy as np
    >>> perpendicular(np.array([[2.0, 0.0], [0.0, 0.0]])).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    n = d.shape[0]
    out = np.zeros_like(d)
    if d.shape[1] == 2:
        out[:, 0] = -d[:, 1]
        out[:, 1] = d[:, 0]
    else:
        ad = np.abs(d)
        k = np.argmin(ad, axis=1)  # first least component: the axis to cross with
        ex = np.zeros_like(d)
        ex[np.arange(n), k] = 1.0
        out[:, 0] = d[:, 1] * ex[:, 2] - d[:, 2] * ex[:, 1]
        out[:, 1] = d[:, 2] * ex[:, 0] - d[:, 0] * ex[:, 2]
        out[:, 2] = d[:, 0] * ex[:, 1] - d[:, 1] * ex[:, 0]
    size = length(out)
    ok = size > 0.0
    out = out / np.where(ok, size, 1.0)[:, None]
    out[~ok] = 0.0
    out[~ok, 0] = 1.0
    return out + 0.0  # no -0.0 components
