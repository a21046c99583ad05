"""Contacts between two balls (circles in 2D, spheres in 3D).

The Minkowski difference of two balls is a ball of radius ``r_a + r_b``
centred on ``c_b - c_a``, so the depth is ``r_a + r_b - |c_b - c_a|`` and the
normal is the direction from centre a to centre b: the exact minimum
translation distance (MTD). Batched over N pairs, with no Python loop over
pairs; the normal points from a towards b.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .kernel_support import finish, pair_scale
from .result import ContactArrays
from .tolerance import SQUARES_RESCALE, SQUARES_UNDERFLOW

__all__ = ["contact_ball_ball"]


def contact_ball_ball(
    center_a: ArrayLike, radius_a: ArrayLike, center_b: ArrayLike, radius_b: ArrayLike
) -> ContactArrays:
    """Contacts between N pairs of balls (circles in 2D, spheres in 3D).

    Parameters
    ----------
    center_a, center_b : array_like, shape (N, D)
    radius_a, radius_b : array_like, shape (N,)

    Returns
    -------
    ContactArrays
        ``normal`` (N, D) is the unit vector from centre a to centre b; for
        concentric balls every direction is an MTD and the first axis is
        returned. ``depth`` is ``radius_a + radius_b - distance``.

    Notes
    -----
    O(N D) time.

    Examples
    --------
    >>> c = contact_ball_ball([[0.0, 0.0]], [1.0], [[3.0, 4.0]], [4.0])
    >>> bool(c.hit[0]), c.normal[0].tolist(), float(c.depth[0])
    (True, [0.6, 0.8], 0.0)
    """
    ca = np.asarray(center_a, dtype=np.float64)
    cb = np.asarray(center_b, dtype=np.float64)
    ra = np.asarray(radius_a, dtype=np.float64)
    rb = np.asarray(radius_b, dtype=np.float64)
    d = cb - ca
    dd = np.einsum("ni,ni->n", d, d)
    dist = np.sqrt(dd)
    tiny = dd < SQUARES_UNDERFLOW
    if tiny.any():
        # the squares underflowed (a scene scaled below ~1e-154): measure
        # again scaled up by a power of two, exactly, so that scaling a scene
        # changes no decision
        up = d[tiny] * SQUARES_RESCALE
        dist[tiny] = np.sqrt(np.einsum("ni,ni->n", up, up)) / SQUARES_RESCALE
    apart = dist > 0
    normal = d / np.where(apart, dist, 1.0)[:, None]
    normal[:, 0] = np.where(apart, normal[:, 0], 1.0)
    scale = pair_scale(ca, cb, ra, rb)
    return finish(ra + rb - dist, normal, scale)
