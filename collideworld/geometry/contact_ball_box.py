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
from .tolerance import SQUARES_RESCALE, SQUARES_UNDERFLOW, touch_tolerance

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
    O(N D^2) time. The centre counts as on the boundary when it is within
    ``touch_tolerance(scale)`` of it (``scale`` the pair's largest coordinate
    or size). Then, and inside, the normal is a face's: faces within that
    tolerance of the nearest are tied and the lowest axis wins (x, then y,
    then z), so a ball centred on a box's edge or corner gets the same face
    on every pose; a centre within the tolerance of that axis's mid-plane
    sends the box towards the axis's negative side.

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
    dd = sum(o * o for o in outside_by)
    dist = np.sqrt(dd)
    tiny = dd < SQUARES_UNDERFLOW
    if tiny.any():
        # the squares underflowed (a scene scaled below ~1e-154): measure
        # again scaled up by a power of two, exactly
        dist[tiny] = np.sqrt(sum((o[tiny] * SQUARES_RESCALE) ** 2 for o in outside_by)) / SQUARES_RESCALE
    scale = pair_scale(ca, cb, r, h)
    # Rounding in the box frame is a few ulps of the pair's scale, so the
    # centre's position is only known to within the touching tolerance:
    # closer than that to the boundary, it is on it, and the normal comes
    # from the face rule below rather than from the direction of the
    # rounding noise (which flips with the pose's last bits on a corner).
    tol = touch_tolerance(scale)
    outside = dist > tol

    # Centre inside (or on the boundary): leave through the nearest face.
    # Faces within the tolerance of the nearest count as tied and the lowest
    # axis wins (a fixed order, as FCL's face order), so a centre on an edge
    # or corner picks the same face on every pose and on both backends.
    gaps = [h[:, i] - np.abs(x) for i, x in enumerate(local)]
    inner_gap = gaps[0]
    for g in gaps[1:]:
        inner_gap = np.minimum(inner_gap, g)
    limit = inner_gap + tol
    face = np.where(gaps[0] <= limit, 0, 1)
    if dim == 3:
        face = np.where((face == 1) & ~(gaps[1] <= limit), 2, face)

    # Outside, the closest point is unique and the normal points at it.
    # Inside, the ball sits on the +axis side when local >= 0, so the box
    # must move towards -axis for that face to clear it; a centre within the
    # tolerance of the mid-plane counts as on the + side.
    safe = np.where(outside, dist, 1.0)
    local_normal = [
        np.where(outside, -o / safe, np.where(face == i, np.where(x >= -tol, -1.0, 1.0), 0.0))
        for i, (x, o) in enumerate(zip(local, outside_by, strict=True))
    ]
    normal = np.stack([sum(rot[:, j, i] * local_normal[i] for i in axes) for j in axes], axis=1)
    signed = np.where(dist > 0, r - dist, r + inner_gap)
    return finish(signed, normal, scale)
