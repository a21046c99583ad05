"""Contacts between a ball (circle or sphere) and a capsule (or segment).

The Minkowski difference of a ball and a capsule is the capsule's segment,
shifted by minus the ball's centre, grown by both radii; the origin's
distance to it is the distance ``d`` from the ball's centre ``c`` to the
segment (at the closest point ``q``, Ericson RTCD §5.1.2), so the exact
minimum translation distance is ``r_a + r_b - d`` along ``(q - c) / d``.
When the centre lies on the segment every direction perpendicular to the
segment is an MTD: :func:`~.capsule_support.perpendicular` picks one.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .capsule_support import dot, length, perpendicular, unit_for
from .kernel_support import finish, pair_scale
from .result import ContactArrays
from .tolerance import SQUARES_UNDERFLOW

__all__ = ["contact_ball_capsule"]


def contact_ball_capsule(center: NDArray[np.float64], radius_a: NDArray[np.float64], p0: NDArray[np.float64],
                         p1: NDArray[np.float64], radius_b: NDArray[np.float64]) -> ContactArrays:
    """Balls (a) against capsules (b), 2D or 3D.

    Parameters
    ----------
    center : ndarray, shape (N, D)
    radius_a : ndarray, shape (N,)
    p0, p1 : ndarray, shape (N, D)
        World end points of the capsules' core segments.
    radius_b : ndarray, shape (N,)
        ``>= 0`` (0 for a segment).

    Returns
    -------
    ContactArrays
        ``normal`` from the ball's centre towards the closest point of the
        segment; ``depth = radius_a + radius_b - distance``.

    Examples
    --------
    A unit circle at (1, 1.5) over the segment from (0, 0) to (4, 0) with
    radius 1 overlaps it by 0.5, pushing the capsule down:

    >>> import numpy as np
    >>> c = contact_ball_capsule(np.array([[1.0, 1.5]]), np.array([1.0]), np.array([[0.0, 0.0]]),
    ...                          np.array([[4.0, 0.0]]), np.array([1.0]))
    >>> bool(c.hit[0]), c.normal[0].tolist(), float(c.depth[0])
    (True, [0.0, -1.0], 0.5)
    """
    d = p1 - p0
    dd = dot(d, d)
    t = np.where(dd > 0.0, np.clip(dot(center - p0, d) / np.where(dd > 0.0, dd, 1.0), 0.0, 1.0), 0.0)
    short = dd < SQUARES_UNDERFLOW
    if short.any():
        # d's squares underflowed (a core shorter than ~1e-150): t again with
        # d and the centre's offset scaled alike by the power of two that
        # brings their largest component to [0.5, 1) (exact; t unchanged)
        m = center[short] - p0[short]
        ds = d[short]
        big = np.maximum(np.abs(m), np.abs(ds)).max(axis=1)
        unit = unit_for(big)[:, None]
        m, ds = m * unit, ds * unit
        uu = dot(ds, ds)
        ok = uu > 0.0
        t[short] = np.where(ok, np.clip(dot(m, ds) / np.where(ok, uu, 1.0), 0.0, 1.0), 0.0)
    w = p0 + t[:, None] * d - center
    dist = length(w)
    apart = dist > 0.0
    normal = np.where(apart[:, None], w / np.where(apart, dist, 1.0)[:, None], perpendicular(d))
    scale = pair_scale(center, p0, p1, radius_a, radius_b)
    return finish(radius_a + radius_b - dist, normal, scale)
