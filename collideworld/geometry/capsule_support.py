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

__all__ = ["dot", "closest_segment_segment", "perpendicular"]

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
    length = np.sqrt(dot(out, out))
    ok = length > 0.0
    out = out / np.where(ok, length, 1.0)[:, None]
    out[~ok] = 0.0
    out[~ok, 0] = 1.0
    return out + 0.0  # no -0.0 components
