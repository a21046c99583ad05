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

from .kernel_support import finish, pair_scale
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

    # Written out per component: for 2x2 blocks, einsum and reductions over
    # short trailing axes cost several times more than these (N,) products.
    # Axis i of a is column i of its rotation; likewise for b.
    a0x, a0y, a1x, a1y = ra[:, 0, 0], ra[:, 1, 0], ra[:, 0, 1], ra[:, 1, 1]
    b0x, b0y, b1x, b1y = rb[:, 0, 0], rb[:, 1, 0], rb[:, 0, 1], rb[:, 1, 1]
    ha0, ha1, hb0, hb1 = ha[:, 0], ha[:, 1], hb[:, 0], hb[:, 1]

    # Everything is measured relative to a's centre, so large world offsets
    # cancel before any product is rounded.
    dx, dy = cb[:, 0] - ca[:, 0], cb[:, 1] - ca[:, 1]
    # |cos| of the angle between axis i of a and axis j of b: the projected
    # radius of a box on an axis of the other is a sum of these times its
    # half extents. At multiples of 90 degrees the "zero" entries are ~1e-17,
    # which perturbs the radii by ~1e-17 * half: far inside the touching
    # tolerance.
    c00 = np.abs(a0x * b0x + a0y * b0y)
    c01 = np.abs(a0x * b1x + a0y * b1y)
    c10 = np.abs(a1x * b0x + a1y * b0y)
    c11 = np.abs(a1x * b1x + a1y * b1y)
    along = np.stack(
        [a0x * dx + a0y * dy, a1x * dx + a1y * dy, b0x * dx + b0y * dy, b1x * dx + b1y * dy]
    )
    overlap = np.stack(
        [
            ha0 + c00 * hb0 + c01 * hb1,
            ha1 + c10 * hb0 + c11 * hb1,
            c00 * ha0 + c10 * ha1 + hb0,
            c01 * ha0 + c11 * ha1 + hb1,
        ]
    ) - np.abs(along)

    k = np.argmin(overlap, axis=0)
    cols = np.arange(len(k))
    sign = np.where(along[k, cols] < 0, -1.0, 1.0)
    axis_x = np.stack([a0x, a1x, b0x, b1x])[k, cols]
    axis_y = np.stack([a0y, a1y, b0y, b1y])[k, cols]
    normal = np.stack([axis_x * sign, axis_y * sign], axis=1)
    scale = pair_scale(ca, cb, ha, hb)
    return finish(overlap[k, cols], normal, scale)
