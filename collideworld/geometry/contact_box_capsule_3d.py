"""Contacts between an oriented box and a capsule (or segment), 3D.

In the box's frame the squared distance from the segment point ``x(t) =
p0 + t d`` to the box is ``f(t) = sum_i max(|x_i(t)| - h_i, 0)^2``: convex
and piecewise quadratic, with its pieces joined where some ``x_i(t) = +-h_i``
(at most six such ``t``). Outline::

    sort t in {0, 1} and the six breakpoints clamped to [0, 1]
    for each of the seven intervals:   which faces' slabs x is outside of (fixed inside one)
                                       minimise that quadratic, clamped to the interval
    d = the least of the seven minima (the exact segment-box distance)
    if d > 0:   depth = r - d, along the line from the box point to the segment point
    else:       SAT over the box axes and da x e_i (the face normals of the
                zonotope box - segment): depth = r + least overlap

The SAT step is exact for the same reason as in ``contact_box_box_3d``: the
Minkowski difference of a box and a segment is a zonotope whose face normals
are exactly the cross products of its generators ``e_1, e_2, e_3, d``. Axes
``d x e_i`` of zero length (a segment along a box edge, or a point) are
skipped: those faces do not exist.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .capsule_support import dot
from .kernel_support import finish, pair_scale
from .result import ContactArrays
from .tolerance import SQUARES_RESCALE, TINY_SCALE

__all__ = ["contact_box_capsule_3d"]

F64 = NDArray[np.float64]


def _to_local(center: F64, rotation: F64, p: F64) -> F64:
    """``R^T (p - c)`` per row, component by component."""
    x = p - center
    return np.stack([rotation[:, 0, i] * x[:, 0] + rotation[:, 1, i] * x[:, 1] + rotation[:, 2, i] * x[:, 2]
                     for i in range(3)], axis=1)


def _to_world(rotation: F64, v: F64) -> F64:
    """``R v`` per row, component by component."""
    return np.stack([rotation[:, i, 0] * v[:, 0] + rotation[:, i, 1] * v[:, 1] + rotation[:, i, 2] * v[:, 2]
                     for i in range(3)], axis=1)


def contact_box_capsule_3d(center: F64, rotation: F64, half: F64, p0: F64, p1: F64, radius: F64) -> ContactArrays:
    """Oriented boxes (a) against capsules (b), 3D.

    Parameters
    ----------
    center : ndarray, shape (N, 3)
    rotation : ndarray, shape (N, 3, 3)
        Local-to-world rotations of the boxes.
    half : ndarray, shape (N, 3)
    p0, p1 : ndarray, shape (N, 3)
        World end points of the capsules' core segments.
    radius : ndarray, shape (N,)
        ``>= 0`` (0 for a segment).

    Returns
    -------
    ContactArrays
        ``normal`` from the box towards the capsule; ``depth`` the exact MTD where hit.

    Examples
    --------
    A unit cube (half extents 1) against a capsule of radius 0.5 passing
    over it along x at height 1.25 (edge-on, 0.25 deep); then one standing
    on its top corner (1, 1, 1), 0.5 above it along the diagonal direction:

    >>> import numpy as np
    >>> eye = np.eye(3)[None].repeat(2, 0)
    >>> top = 1 + 0.5 / np.sqrt(3)
    >>> c = contact_box_capsule_3d(np.zeros((2, 3)), eye, np.ones((2, 3)),
    ...                            np.array([[-3.0, 0.0, 1.25], [top, top, top]]),
    ...                            np.array([[3.0, 0.0, 1.25], [top + 1, top + 1, top + 1]]), np.array([0.5, 0.5]))
    >>> c.hit.tolist(), np.round(c.depth, 12).tolist(), c.normal[0].tolist()
    ([True, True], [0.25, 0.0], [0.0, 0.0, 1.0])
    """
    n = center.shape[0]
    rows = np.arange(n)
    q0 = _to_local(center, rotation, p0)
    q1 = _to_local(center, rotation, p1)
    d = q1 - q0
    big = np.maximum(np.maximum(np.abs(q0), np.abs(q1)), half)
    size = np.maximum(np.maximum(big[:, 0], big[:, 1]), big[:, 2])
    # rows whose box-frame coordinates and half extents are all tiny are
    # scaled up first (exact): the piecewise quadratic's squares would underflow
    tiny = size < TINY_SCALE
    scale = pair_scale(center, half, p0, p1, radius)
    unit = None
    if tiny.any():
        unit = np.where(tiny, SQUARES_RESCALE, 1.0)
        q0, q1, d, half = q0 * unit[:, None], q1 * unit[:, None], d * unit[:, None], half * unit[:, None]
    # -- the exact distance, by the pieces of f(t)
    cuts = [np.zeros(n), np.ones(n)]
    for i in range(3):
        moving = d[:, i] != 0.0
        safe = np.where(moving, d[:, i], 1.0)
        for sign in (-1.0, 1.0):
            cuts.append(np.where(moving, np.clip((sign * half[:, i] - q0[:, i]) / safe, 0.0, 1.0), 0.0))
    ts = np.sort(np.stack(cuts, axis=1), axis=1)
    lo = ts[:, :-1]
    hi = ts[:, 1:]
    mid = (lo + hi) * 0.5
    num = np.zeros_like(mid)
    den = np.zeros_like(mid)
    for i in range(3):
        x = q0[:, i, None] + mid * d[:, i, None]
        above = x > half[:, i, None]
        below = x < -half[:, i, None]
        # on this piece the term is (x_i(t) - s h_i)^2 with s the side it is outside of
        target = np.where(above, half[:, i, None], -half[:, i, None])
        active = above | below
        num = num - np.where(active, (q0[:, i, None] - target) * d[:, i, None], 0.0)
        den = den + np.where(active, d[:, i, None] * d[:, i, None], 0.0)
    # a piece with no outside slab lies in the box: its midpoint is at distance 0 (its
    # ends, on the breakpoints, may round to just outside)
    t_best = np.where(den > 0.0, np.clip(num / np.where(den > 0.0, den, 1.0), lo, hi), mid)
    dist2 = np.zeros_like(t_best)
    for i in range(3):
        x = q0[:, i, None] + t_best * d[:, i, None]
        g = x - np.clip(x, -half[:, i, None], half[:, i, None])
        dist2 = dist2 + g * g
    j = np.argmin(dist2, axis=1)
    t = t_best[rows, j]
    x = q0 + t[:, None] * d
    gap = x - np.clip(x, -half, half)
    dist = np.sqrt(dot(gap, gap))
    apart = dist > 0.0
    apart_normal = gap / np.where(apart, dist, 1.0)[:, None]
    # -- inside: SAT over the zonotope's face normals
    best = np.full(n, np.inf)
    sat_normal = np.zeros((n, 3))
    sat_normal[:, 0] = 1.0
    zero = np.zeros(n)
    axes = [np.eye(3)[i][None].repeat(n, 0) for i in range(3)]
    axes += [np.stack([zero, d[:, 2], -d[:, 1]], axis=1),
             np.stack([-d[:, 2], zero, d[:, 0]], axis=1),
             np.stack([d[:, 1], -d[:, 0], zero], axis=1)]
    for axis in axes:
        length = np.sqrt(dot(axis, axis))
        ok = length > 0.0
        u = axis / np.where(ok, length, 1.0)[:, None]
        reach = np.abs(u[:, 0]) * half[:, 0] + np.abs(u[:, 1]) * half[:, 1] + np.abs(u[:, 2]) * half[:, 2]
        s0 = dot(q0, u)
        s1 = dot(q1, u)
        for over, sign in ((reach - np.minimum(s0, s1), 1.0), (reach + np.maximum(s0, s1), -1.0)):
            better = ok & (over < best)
            best = np.where(better, over, best)
            sat_normal = np.where(better[:, None], sign * u, sat_normal)
    if unit is not None:
        dist, best = dist / unit, best / unit
    signed = np.where(apart, radius - dist, radius + best)
    normal = _to_world(rotation, np.where(apart[:, None], apart_normal, sat_normal))
    return finish(signed, normal, scale)
