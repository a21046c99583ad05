"""Contacts between oriented rectangles (2D boxes).

Separating-axis test (Gottschalk, Lin and Manocha 1996; Ericson, *Real-Time
Collision Detection*, §4.4.1) restricted to 2D, where the only candidate
axes are the two edge directions of each box::

    d = centre_b - centre_a
    for each axis u in (a's two axes, b's two axes):
        overlap(u) = radius_a(u) + radius_b(u) - |u . d|
    depth, axis = min overlap, its axis
    normal = axis, signed so that it points from a towards b

Those four axes (with both signs) are the edge normals of the Minkowski
difference of the two rectangles, so the smallest overlap is not only a
separation test but the exact minimum translation distance.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .contact_ball import _finish, _pair_scale
from .result import ContactArrays

__all__ = ["contact_box_box_2d"]


def contact_box_box_2d(
    center_a: ArrayLike,
    rotation_a: ArrayLike,
    half_a: ArrayLike,
    center_b: ArrayLike,
    rotation_b: ArrayLike,
    half_b: ArrayLike,
) -> ContactArrays:
    """Contacts between N pairs of oriented rectangles.

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
        b; ``depth`` the smallest overlap over those axes. Where the pair is
        apart, ``-depth`` is the widest gap along a box axis, a lower bound of
        the distance.

    Notes
    -----
    O(N) time. Ties go to a's axes before b's and to the first axis of each
    box; centres level along the chosen axis give its positive direction.

    Examples
    --------
    >>> eye = [[[1.0, 0.0], [0.0, 1.0]]]
    >>> c = contact_box_box_2d([[0.0, 0.0]], eye, [[1.0, 1.0]],
    ...                        [[1.5, 0.2]], eye, [[1.0, 1.0]])
    >>> bool(c.hit[0]), c.normal[0].tolist(), float(c.depth[0])
    (True, [1.0, 0.0], 0.5)
    """
    ca = np.asarray(center_a, dtype=np.float64)
    ra = np.asarray(rotation_a, dtype=np.float64)
    ha = np.asarray(half_a, dtype=np.float64)
    cb = np.asarray(center_b, dtype=np.float64)
    rb = np.asarray(rotation_b, dtype=np.float64)
    hb = np.asarray(half_b, dtype=np.float64)
    n = ca.shape[0]

    # Everything is measured relative to a's centre, so large world offsets
    # cancel before any product is rounded.
    d = cb - ca
    # cross[i, j] = (axis i of a) . (axis j of b); the projected radius of a
    # box on an axis of the other is a sum of these times its half extents.
    # At multiples of 90 degrees the "zero" entries are ~1e-17, not 0, which
    # perturbs the radii by ~1e-17 * half: far inside the touching tolerance.
    cross = np.abs(np.einsum("nki,nkj->nij", ra, rb))
    d_in_a = np.einsum("nki,nk->ni", ra, d)
    d_in_b = np.einsum("nkj,nk->nj", rb, d)
    overlap_a = ha + np.einsum("nij,nj->ni", cross, hb) - np.abs(d_in_a)
    overlap_b = np.einsum("nij,ni->nj", cross, ha) + hb - np.abs(d_in_b)
    overlap = np.concatenate([overlap_a, overlap_b], axis=1)
    along = np.concatenate([d_in_a, d_in_b], axis=1)
    axes = np.concatenate([ra, rb], axis=2)  # (N, 2, 4): column k is axis k

    k = np.argmin(overlap, axis=1)
    rows = np.arange(n)
    sign = np.where(along[rows, k] < 0, -1.0, 1.0)
    normal = axes[rows, :, k] * sign[:, None]
    scale = _pair_scale(ca, cb, ha, hb)
    return _finish(overlap[rows, k], normal, scale)
