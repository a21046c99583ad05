"""Contacts between two capsules (or segments), 2D or 3D.

The Minkowski difference of two capsules is the difference ``P`` of their
core segments (a parallelogram, flat in 3D) grown by ``r = r_a + r_b``. The
exact minimum translation distance follows from where the origin is:

- outside ``P``: ``r - d``, with ``d`` the distance of the two segments
  (closest points by Ericson RTCD §5.1.9), along the line of the closest
  points;
- inside ``P`` (the segments cross; only possible with area in 2D):
  ``r`` plus the origin's distance to the boundary of ``P``, which is the
  least overlap over ``P``'s edge normals, the perpendiculars of both
  segments (plus both directions, for parallel segments whose ``P`` is
  itself a segment). Any other direction overlaps more, so a superset of
  axes changes nothing;
- in 3D ``P`` has no interior: crossing segments give ``r`` along the
  common perpendicular ``da x db``.

The normal of a near-touching pair is taken from the feature rather than
from the difference of two rounded closest points: the perpendicular of a
segment whose interior is closest (2D), the common perpendicular when both
interiors are (3D); only end point against end point uses the difference,
of two input points.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .capsule_support import closest_segment_segment, dot, length, perpendicular
from .kernel_support import finish, pair_scale
from .result import ContactArrays

__all__ = ["contact_capsule_capsule", "PARALLEL_SIN2"]

F64 = NDArray[np.float64]

#: Cores whose angle has ``sin^2`` at most this are treated as parallel (3D): the cross
#: product's direction errs by ~eps / sin, the parallel answer by ~sin; 1e-16 balances them.
PARALLEL_SIN2 = 1e-16


def _unit(v: F64) -> tuple[F64, NDArray[np.bool_]]:
    """Rows of ``v`` scaled to unit length, and which rows were non-zero (zero rows stay zero)."""
    size = length(v)
    ok = size > 0.0
    return v / np.where(ok, size, 1.0)[:, None], ok


def _sat_2d(da: F64, e0: F64, e1: F64) -> tuple[F64, F64, NDArray[np.bool_]]:
    """Least overlap of two 2D segments over the axes that can separate them.

    Coordinates relative to a0: segment a is 0..da, segment b is e0..e1.
    Returns ``(overlap (N,), normal (N, 2), any_axis (N,))``: moving b by
    ``overlap`` along ``normal`` separates them; a negative overlap means
    the axis separates them already.
    """
    n = da.shape[0]
    db = e1 - e0
    best = np.full(n, np.inf)
    normal = np.zeros((n, 2))
    normal[:, 0] = 1.0
    any_axis = np.zeros(n, dtype=bool)
    perp_a = np.stack([-da[:, 1], da[:, 0]], axis=1)
    perp_b = np.stack([-db[:, 1], db[:, 0]], axis=1)
    zero = np.zeros(n)
    for axis in (perp_a, perp_b, da, db):
        u, ok = _unit(axis)
        pa1 = dot(da, u)
        pb0 = dot(e0, u)
        pb1 = dot(e1, u)
        plus = np.maximum(zero, pa1) - np.minimum(pb0, pb1)  # move b along +u
        minus = np.maximum(pb0, pb1) - np.minimum(zero, pa1)  # move b along -u
        for over, sign in ((plus, 1.0), (minus, -1.0)):
            better = ok & (over < best)
            best = np.where(better, over, best)
            normal = np.where(better[:, None], sign * u, normal)
        any_axis |= ok
    return best, normal, any_axis


def contact_capsule_capsule(a0: F64, a1: F64, radius_a: F64, b0: F64, b1: F64, radius_b: F64) -> ContactArrays:
    """Capsules (a) against capsules (b), 2D or 3D; segments are capsules of radius 0.

    Parameters
    ----------
    a0, a1, b0, b1 : ndarray, shape (N, D)
        World end points of the core segments.
    radius_a, radius_b : ndarray, shape (N,)
        ``>= 0``.

    Returns
    -------
    ContactArrays
        ``normal`` from a towards b; ``depth`` the exact MTD where hit.

    Examples
    --------
    Two 2D capsules of radius 0.5 crossing at right angles at the origin:
    the shallowest way out moves b by 0.5 + 0.5 + 1 = 2 (to the end of a's
    segment or of its own); apart by 1 along y, they just touch:

    >>> import numpy as np
    >>> r = np.array([0.5, 0.5])
    >>> c = contact_capsule_capsule(np.array([[-1.0, 0.0], [-1.0, 0.0]]), np.array([[1.0, 0.0], [1.0, 0.0]]), r,
    ...                             np.array([[0.0, -1.0], [-1.0, 1.0]]), np.array([[0.0, 1.0], [1.0, 1.0]]), r)
    >>> c.hit.tolist(), c.depth.tolist(), c.normal[1].tolist()
    ([True, True], [2.0, 0.0], [0.0, 1.0])
    """
    n, dim = a0.shape
    radius = radius_a + radius_b
    da = a1 - a0
    db = b1 - b0
    s, t = closest_segment_segment(a0, da, b0, db)
    c1 = a0 + s[:, None] * da
    c2 = b0 + t[:, None] * db
    w = c2 - c1
    dist = length(w)
    w_unit = w / np.where(dist > 0.0, dist, 1.0)[:, None]
    inner_a = (s > 0.0) & (s < 1.0)
    inner_b = (t > 0.0) & (t < 1.0)
    if dim == 2:
        perp_a, ok_a = _unit(np.stack([-da[:, 1], da[:, 0]], axis=1))
        perp_b, ok_b = _unit(np.stack([-db[:, 1], db[:, 0]], axis=1))
        feature = np.where((inner_a & ok_a)[:, None], perp_a, np.where((inner_b & ok_b)[:, None], perp_b, w_unit))
        use_feature = (inner_a & ok_a) | (inner_b & ok_b)
    else:
        cross = np.stack([da[:, 1] * db[:, 2] - da[:, 2] * db[:, 1],
                          da[:, 2] * db[:, 0] - da[:, 0] * db[:, 2],
                          da[:, 0] * db[:, 1] - da[:, 1] * db[:, 0]], axis=1)
        feature, ok_c = _unit(cross)
        # Nearly parallel cores (sin^2 of their angle under PARALLEL_SIN2): da x db is then
        # rounding noise (its components err by ~eps |da||db|), and so is its direction. The
        # angle is measured on the unit directions: |da|^2 |db|^2 under- or overflows within
        # the coordinate limits.
        ua, ok_a = _unit(da)
        ub, ok_b = _unit(db)
        cu = np.stack([ua[:, 1] * ub[:, 2] - ua[:, 2] * ub[:, 1],
                       ua[:, 2] * ub[:, 0] - ua[:, 0] * ub[:, 2],
                       ua[:, 0] * ub[:, 1] - ua[:, 1] * ub[:, 0]], axis=1)
        ok_c &= dot(cu, cu) > PARALLEL_SIN2
        use_feature = inner_a & inner_b & ok_c
    # the feature's direction, turned to point from a to b (kept as is when w vanishes)
    flip = dot(feature, w) < 0.0
    feature = np.where(flip[:, None], -feature, feature)
    fallback = perpendicular(np.where((dot(da, da) > 0.0)[:, None], da, db))
    if dim == 3:
        fallback = np.where(ok_c[:, None], feature, fallback)
    normal = np.where(use_feature[:, None], feature, np.where((dist > 0.0)[:, None], w_unit, fallback))
    if dim == 3:
        # Parallel cores whose projections on the axis overlap: the closest points are a
        # perpendicular pair, but Ericson's parameters are not unique there and rounding
        # leaves w an axial component (all of w when the cores meet). Only w's part across
        # the axis is the gap; when that is zero every perpendicular is an MTD direction.
        # (Along the unit axis ua, so that no product of two lengths under- or overflows.)
        la = length(da)
        pb0 = dot(b0 - a0, ua)
        pb1 = dot(b1 - a0, ua)
        parallel = ~ok_c & ok_a & ok_b & (np.maximum(pb0, pb1) >= 0.0) & (np.minimum(pb0, pb1) <= la)
        across = w - dot(w, ua)[:, None] * ua
        gap = length(across)
        across_unit = across / np.where(gap > 0.0, gap, 1.0)[:, None]
        normal = np.where(parallel[:, None], np.where((gap > 0.0)[:, None], across_unit, fallback), normal)
        dist = np.where(parallel, gap, dist)
    signed = radius - dist
    if dim == 2:
        over, sat_normal, any_axis = _sat_2d(da, b0 - a0, b1 - a0)
        crossing = any_axis & (over >= 0.0)
        signed = np.where(crossing, radius + over, signed)
        normal = np.where(crossing[:, None], sat_normal, normal)
    return finish(signed, normal, pair_scale(a0, a1, b0, b1, radius_a, radius_b))
