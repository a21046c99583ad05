"""Contacts between a ball (circle or sphere) and an oriented box, 2D or 3D.

The depth is the exact minimum translation distance (MTD): the radius minus
the signed distance from the ball's centre to the box (distance outside,
minus the distance to the boundary inside), because the Minkowski difference
of the pair is the box dilated by the radius. The closest point is the
point-to-OBB test of Ericson, *Real-Time Collision Detection*, §5.1.4,
extended to the centre-inside case. Batched over N pairs; the normal points
from the ball (a) towards the box (b).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .kernel_support import finish, pair_scale
from .result import ContactArrays

__all__ = ["contact_ball_box"]


def contact_ball_box(
    center_a: ArrayLike,
    radius_a: ArrayLike,
    center_b: ArrayLike,
    rotation_b: ArrayLike,
    half_b: ArrayLike,
) -> ContactArrays:
    """Contacts between N balls (a) and N oriented boxes (b), in 2D or 3D.

    The ball's centre is taken into the box frame, where clamping it to the
    half extents gives the closest point of the box. A centre inside the box
    has to leave through the nearest face: depth is the radius plus the
    distance to that face and the normal is that face's inward normal (the
    box moves away from the ball through that face).

    Parameters
    ----------
    center_a : array_like, shape (N, D)
    radius_a : array_like, shape (N,)
    center_b : array_like, shape (N, D)
    rotation_b : array_like, shape (N, D, D)
        Local-to-world rotations of the boxes (columns are the box axes).
    half_b : array_like, shape (N, D)
        Half extents of the boxes.

    Returns
    -------
    ContactArrays
        ``normal`` (N, D) from the ball towards the box.

    Notes
    -----
    O(N D^2) time. Ties between equally near faces go to the lowest axis; a
    centre exactly on a mid-plane of the box sends the box towards that
    axis's negative side.

    Examples
    --------
    >>> eye = [[[1.0, 0.0], [0.0, 1.0]]]
    >>> c = contact_ball_box([[2.0, 0.0]], [1.0], [[0.0, 0.0]], eye, [[1.0, 1.0]])
    >>> bool(c.hit[0]), c.normal[0].tolist(), float(c.depth[0])
    (True, [-1.0, 0.0], 0.0)
    """
    ca = np.asarray(center_a, dtype=np.float64)
    r = np.asarray(radius_a, dtype=np.float64)
    cb = np.asarray(center_b, dtype=np.float64)
    rot = np.asarray(rotation_b, dtype=np.float64)
    h = np.asarray(half_b, dtype=np.float64)
    dim = ca.shape[1]
    axes = range(dim)  # loops below run over the D axes, never over pairs

    # Working in the box frame turns the box into an axis-aligned one centred
    # on the origin, and subtracting the centres first keeps large world
    # offsets out of the rounding.
    d = ca - cb
    local = [sum(rot[:, j, i] * d[:, j] for j in axes) for i in axes]
    outside_by = [x - np.clip(x, -h[:, i], h[:, i]) for i, x in enumerate(local)]
    dist = np.sqrt(sum(o * o for o in outside_by))
    outside = dist > 0

    # Centre inside (or on the boundary): leave through the nearest face,
    # the first one on ties.
    inner_gap = h[:, 0] - np.abs(local[0])
    face = np.zeros(len(r), dtype=np.intp)
    for i in axes[1:]:
        gap = h[:, i] - np.abs(local[i])
        closer = gap < inner_gap
        inner_gap = np.where(closer, gap, inner_gap)
        face[closer] = i

    # Outside, the closest point is unique and the normal points at it.
    # Inside, the ball sits on the +axis side when local >= 0, so the box
    # must move towards -axis for that face to clear it.
    safe = np.where(outside, dist, 1.0)
    local_normal = [
        np.where(outside, -o / safe, np.where(face == i, np.where(x >= 0, -1.0, 1.0), 0.0))
        for i, (x, o) in enumerate(zip(local, outside_by, strict=True))
    ]
    normal = np.stack([sum(rot[:, j, i] * local_normal[i] for i in axes) for j in axes], axis=1)
    signed = np.where(outside, r - dist, r + inner_gap)
    scale = pair_scale(ca, cb, r, h)
    return finish(signed, normal, scale)
