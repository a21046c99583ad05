"""When do two moving shapes first touch: conservative advancement, plus the batched trajectory check.

Shapes are packed as in :mod:`collideworld.geometry.gjk` (pieces of local
vertices grown by a radius); a shape ``s`` owns the vertices
``svfirst[s] .. svfirst[s] + svcount[s] - 1`` and the pieces
``sfirst[s] .. sfirst[s] + scount[s] - 1``; ``reach[s]`` bounds the distance of
any of its points from its body origin. Poses are rows of 8 (see
:func:`~collideworld.geometry.gjk.pose_at`).

Conservative advancement (Mirtich 1996; Ericson §9.5.4 for the distance,
Box2D's ``b2TimeOfImpact`` for the same contract)::

    t = 0
    repeat:
        d, n = distance and normal (a -> b) at time t
        if d <= touch tolerance: return t
        B = |(v_b - v_a) . n| + |omega_a| reach_a + |omega_b| reach_b
        t += d / B            # no point can close the gap along n faster than B
        if t > 1: return no touch

Why it cannot miss: along the fixed direction ``n`` the gap between the
shapes' projections starts at ``d`` and, since every point moves along ``n``
at most ``|v . n| + |omega| * reach``, shrinks at most at rate ``B``; the
projections must meet before the shapes can, so no touch happens before
``t + d / B``, however thin the shapes or fast the motion. A concave
polygon is several pieces, each pair with its own gap and normal: the step
is the smallest ``d / B`` over the pairs (the nearest pair's alone could
overshoot a pair that closes faster along its own normal).

Advancement converges slowly when rotation dominates ``B`` (each step
shrinks the remaining time by the factor ``1 - closing speed / B``). Once two
steps have been made, a secant step on the distance proposes a time; if the
shapes touch there, the first touch lies between the last safe time and it,
and bisection pins it down to rounding, moving its lower end only over
stretches the gaps at both ends prove free of touches (the gap changes at
most at the rate ``|v_b - v_a| + |omega_a| reach_a + |omega_b| reach_b``).
When that proof fails, the bracket may hold a touch that ends again (a
spinning stick passing through a ball), and plain advancement takes over.

A gap below ``1e-12`` of the motion's extent (``|v_b - v_a| + |omega_a|
reach_a + |omega_b| reach_b``, the farthest any point moves relative to the
other shape) counts as a touch; it bounds the number of steps a near miss
takes.

Fast spins: ``B`` grows with the spin, so a shape turning many times near
another takes a step per fraction of a turn. A second bound needs no spin
of its own: a lies within ``reach_a`` of its origin ``o_a``, so the gap is
at least ``dist(o_a, b) - reach_a``, and that closes no faster than
``|v_b - v_a| + |omega_b| reach_b`` (``o_a`` only translates; every point of
b moves at most that fast relative to it); likewise with a and b swapped.
Each iteration steps by the largest of the three safe steps. A shape
spinning in place beside one that stays out of its swept disc is thus
decided at once, however many turns it makes.

NOTE: after ``MAX_ADVANCE_STEPS`` steps without reaching a touch or the end
of the motion (a near miss grazing for very many turns), the kernel returns
``UNDECIDED`` instead of a time: it reports no touch it has not verified,
and callers say so (:class:`~collideworld.errors.UndecidedError`).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from .gjk import (
    angular_speed,
    gjk_closest,
    gjk_pieces,
    piece_distance,
    pose_at,
    posed_distance,
    shape_distance,
    transform_shape,
    twin_jit,
)
from .tolerance import NEAR_MISS, REL_TOUCH_TOL

__all__ = ["toi_shapes", "toi_impact", "trajectory_kernel", "distance_rows", "toi_rows", "distance_pairs", "toi_pairs",
           "deepest_pairs", "poses_at", "TOUCH", "MAX_ADVANCE_STEPS", "NEAR_MISS",
           "UNDECIDED", "FAR", "MEASURED", "SCALAR", "SCALAR_T"]

#: Conservative-advancement steps before giving up: the answer is then UNDECIDED, never a touch.
MAX_ADVANCE_STEPS = 100_000

#: What :func:`toi_shapes` returns when it ran out of steps (no touch found, none ruled out).
UNDECIDED = -2.0



@twin_jit
def _distance_at(t: float, verts: NDArray[np.float64], pfirst: NDArray[np.int64], pcount: NDArray[np.int64],
                 prad: NDArray[np.float64], pplane: NDArray[np.int64], svfirst: NDArray[np.int64],
                 svcount: NDArray[np.int64], sfirst: NDArray[np.int64], scount: NDArray[np.int64], a: int, b: int,
                 pa0: NDArray[np.float64], pa1: NDArray[np.float64], pb0: NDArray[np.float64],
                 pb1: NDArray[np.float64], dim: int, world: NDArray[np.float64], ws: NDArray[np.float64],
                 out: NDArray[np.float64], tmp: NDArray[np.float64], pose: NDArray[np.float64],
                 rot: NDArray[np.float64]) -> float:
    pose_at(pa0, pa1, t, dim, pose)
    transform_shape(verts, svfirst[a], svcount[a], pose, dim, rot, world)
    pose_at(pb0, pb1, t, dim, pose)
    transform_shape(verts, svfirst[b], svcount[b], pose, dim, rot, world)
    return shape_distance(world, pfirst, pcount, prad, pplane, sfirst[a], scount[a], sfirst[b], scount[b],
                          ws, out, tmp)


@twin_jit
def _safe_step(world: NDArray[np.float64], pfirst: NDArray[np.int64], pcount: NDArray[np.int64],
               prad: NDArray[np.float64], pplane: NDArray[np.int64], a_first: int, a_count: int, b_first: int,
               b_count: int, vx: float, vy: float, vz: float, spin: float, ws: NDArray[np.float64],
               tmp: NDArray[np.float64]) -> float:
    """Smallest ``gap / closing-speed bound`` over the piece pairs (vertices already in ``world``)."""
    step = math.inf
    for ia in range(a_first, a_first + a_count):
        for ib in range(b_first, b_first + b_count):
            d = piece_distance(world, pfirst, pcount, prad, pplane, ia, ib, ws, tmp)
            bound = abs(vx * tmp[6] + vy * tmp[7] + vz * tmp[8]) + spin
            if bound > 0.0:
                step = min(step, max(d, 0.0) / bound)
    return step


@twin_jit
def _point_to_shape(world: NDArray[np.float64], pfirst: NDArray[np.int64], pcount: NDArray[np.int64],
                    prad: NDArray[np.float64], pplane: NDArray[np.int64], first: int, count: int, px: float,
                    py: float, pz: float, scratch: NDArray[np.float64], ws: NDArray[np.float64],
                    tmp: NDArray[np.float64]) -> float:
    """Distance from the point ``(px, py, pz)`` to the pieces ``first .. first + count - 1`` (0 inside).

    ``scratch`` holds the point and one piece's vertices at a time (rows
    ``1 + max piece size``), for :func:`~collideworld.geometry.gjk.gjk_closest`.
    """
    best = math.inf
    scratch[0, 0] = px
    scratch[0, 1] = py
    scratch[0, 2] = pz
    for ip in range(first, first + count):
        v0 = pfirst[ip]
        if pplane[ip] == 1:  # a half-space: its normal row and offset
            d = world[v0, 0] * px + world[v0, 1] * py + world[v0, 2] * pz - prad[ip]
        else:
            for k in range(pcount[ip]):
                for i in range(3):
                    scratch[1 + k, i] = world[v0 + k, i]
            # np.int64, not literals: with them numba compiles the callee a second time (~2 s of CPU)
            zero, one = np.int64(0), np.int64(1)
            d = gjk_pieces(scratch, zero, one, zero, one, pcount[ip], pplane[ip], ws, tmp) - prad[ip]
        best = min(best, d)
    return max(best, 0.0)


@twin_jit
def _origin_step(world: NDArray[np.float64], pfirst: NDArray[np.int64], pcount: NDArray[np.int64],
                 prad: NDArray[np.float64], pplane: NDArray[np.int64], first: int, count: int,
                 origin: NDArray[np.float64], reach_own: float, rate: float, scratch: NDArray[np.float64],
                 ws: NDArray[np.float64], tmp: NDArray[np.float64]) -> float:
    """Safe step from one shape's origin: ``(dist(origin, other) - own reach) / rate``; 0 if none."""
    lower = _point_to_shape(world, pfirst, pcount, prad, pplane, first, count, origin[0], origin[1], origin[2],
                            scratch, ws, tmp) - reach_own
    if not lower > 0.0:
        return 0.0
    if not rate > 0.0:
        return math.inf
    return lower / rate


@twin_jit
def toi_shapes(verts: NDArray[np.float64], pfirst: NDArray[np.int64], pcount: NDArray[np.int64],
               prad: NDArray[np.float64], pplane: NDArray[np.int64], svfirst: NDArray[np.int64],
               svcount: NDArray[np.int64], sfirst: NDArray[np.int64], scount: NDArray[np.int64],
               reach: NDArray[np.float64], a: int, b: int, pa0: NDArray[np.float64], pa1: NDArray[np.float64],
               pb0: NDArray[np.float64], pb1: NDArray[np.float64], dim: int, tol: float,
               world: NDArray[np.float64], ws: NDArray[np.float64], out: NDArray[np.float64],
               tmp: NDArray[np.float64], pose: NDArray[np.float64], rot: NDArray[np.float64]) -> float:
    """First time in [0, 1] at which shapes ``a`` and ``b`` touch, -1.0 if they never do, or ``UNDECIDED``.

    ``a`` moves from pose ``pa0`` to ``pa1``, ``b`` from ``pb0`` to ``pb1``.
    On a touch, ``out`` (11,) holds the closest points and normal at that
    time, as :func:`~collideworld.geometry.gjk.shape_distance` gives them.
    ``tol`` is the touching tolerance of the pair.

    Examples
    --------
    A unit circle moving from x = 0 to x = 10 meets a unit circle resting at
    x = 5 when their centres are 2 apart, at x = 3, i.e. t = 0.3:

    >>> import numpy as np
    >>> verts = np.zeros((2, 3))
    >>> ones, zeros = np.ones(2, dtype=np.int64), np.zeros(2, dtype=np.int64)
    >>> first = np.arange(2)
    >>> still = np.array([5.0, 0, 0, 1, 0, 0, 0, 0])
    >>> start, end = np.array([0.0, 0, 0, 1, 0, 0, 0, 0]), np.array([10.0, 0, 0, 1, 0, 0, 0, 0])
    >>> out = np.zeros(11)
    >>> t = toi_shapes(verts, first, ones, np.ones(2), zeros, first, ones, first, ones, np.ones(2), 0, 1,
    ...                start, end, still, still, 2, 1e-14, np.zeros((2, 3)), np.zeros((16, 4)), out,
    ...                np.zeros(11), np.zeros(8), np.zeros((3, 3)))
    >>> round(t, 12), out[6:9].tolist()
    (0.3, [1.0, 0.0, 0.0])
    """
    vx = (pb1[0] - pb0[0]) - (pa1[0] - pa0[0])
    vy = (pb1[1] - pb0[1]) - (pa1[1] - pa0[1])
    vz = (pb1[2] - pb0[2]) - (pa1[2] - pa0[2])
    spin = angular_speed(pa0, pa1, dim) * reach[a] + angular_speed(pb0, pb1, dim) * reach[b]
    speed = math.sqrt(vx * vx + vy * vy + vz * vz)
    extent = speed + spin
    spin_a = angular_speed(pa0, pa1, dim) * reach[a]
    spin_b = angular_speed(pb0, pb1, dim) * reach[b]
    biggest = 1
    for ip in range(sfirst[a], sfirst[a] + scount[a]):
        biggest = max(biggest, pcount[ip])
    for ip in range(sfirst[b], sfirst[b] + scount[b]):
        biggest = max(biggest, pcount[ip])
    scratch = np.empty((biggest + 1, 3))
    origin = np.empty(8)
    t = 0.0
    secant = True
    t_prev = -1.0
    d_prev = math.inf
    for it in range(MAX_ADVANCE_STEPS):
        d = _distance_at(t, verts, pfirst, pcount, prad, pplane, svfirst, svcount, sfirst, scount, a, b,
                         pa0, pa1, pb0, pb1, dim, world, ws, out, tmp, pose, rot)
        if d <= tol or d <= NEAR_MISS * extent:
            return t
        bound = abs(vx * out[6] + vy * out[7] + vz * out[8]) + spin
        if scount[a] * scount[b] > 1:
            # several piece pairs: each may close at its own rate along its own
            # normal, so the safe step is the smallest over the pairs
            step = _safe_step(world, pfirst, pcount, prad, pplane, sfirst[a], scount[a], sfirst[b], scount[b],
                              vx, vy, vz, spin, ws, tmp)
        elif bound > 0.0:
            step = d / bound
        else:
            step = math.inf
        if spin > 0.0 and step < math.inf:
            # the origin bounds (module docstring), worth their GJK calls only when spin inflates B
            if pplane[sfirst[a]] != 1:
                pose_at(pa0, pa1, t, dim, origin)
                step = max(step, _origin_step(world, pfirst, pcount, prad, pplane, sfirst[b], scount[b], origin,
                                              reach[a], speed + spin_b, scratch, ws, tmp))
            if pplane[sfirst[b]] != 1:
                pose_at(pb0, pb1, t, dim, origin)
                step = max(step, _origin_step(world, pfirst, pcount, prad, pplane, sfirst[a], scount[a], origin,
                                              reach[b], speed + spin_a, scratch, ws, tmp))
        if step == math.inf:
            return -1.0  # nothing moves towards anything: the gap stays
        if secant and it >= 1 and d_prev > d:
            # secant probe: where the distance would reach 0 if it kept falling as it did
            ts = t + d * (t - t_prev) / (d_prev - d)
            if t < ts <= 1.0:
                ds = _distance_at(ts, verts, pfirst, pcount, prad, pplane, svfirst, svcount, sfirst, scount, a, b,
                                  pa0, pa1, pb0, pb1, dim, world, ws, out, tmp, pose, rot)
                if ds <= tol:
                    # Bisection keeps [t, lo] proved free of touches: an apart mid moves lo only
                    # when the cones d(lo) - E (s - lo) and d(mid) - E (mid - s) stay above tol
                    # over [lo, mid] (E = extent bounds how fast the gap can fall or rise). A
                    # plain "apart, so lo = mid" skipped whole touches: a spinning stick passing
                    # through a ball, then reported on its next pass.
                    lo = t
                    d_lo = d
                    hi = ts
                    proved = True
                    for _ in range(200):
                        mid = 0.5 * (lo + hi)
                        if mid <= lo or mid >= hi:
                            break
                        dm = _distance_at(mid, verts, pfirst, pcount, prad, pplane, svfirst, svcount, sfirst,
                                          scount, a, b, pa0, pa1, pb0, pb1, dim, world, ws, out, tmp, pose, rot)
                        if dm <= tol:
                            hi = mid
                        elif d_lo + dm - extent * (mid - lo) > 2.0 * tol:
                            lo = mid
                            d_lo = dm
                        else:
                            proved = False
                            break
                    if proved:
                        _distance_at(hi, verts, pfirst, pcount, prad, pplane, svfirst, svcount, sfirst, scount, a,
                                     b, pa0, pa1, pb0, pb1, dim, world, ws, out, tmp, pose, rot)
                        return hi
                    # the bracket may hide a pass in and out of touch: advance conservatively from here on
                    secant = False
        t_prev = t
        d_prev = d
        t = t + step
        if t > 1.0:
            return -1.0
    # NOTE: only a near miss grazing for a very long time gets here. No touch was
    # found before t and none ruled out after it: say so rather than guess.
    return UNDECIDED


@twin_jit
def toi_impact(verts: NDArray[np.float64], pfirst: NDArray[np.int64], pcount: NDArray[np.int64],
               prad: NDArray[np.float64], pplane: NDArray[np.int64], svfirst: NDArray[np.int64],
               svcount: NDArray[np.int64], sfirst: NDArray[np.int64], scount: NDArray[np.int64],
               reach: NDArray[np.float64], a0: tuple[float, ...], a1: tuple[float, ...], b0: tuple[float, ...],
               b1: tuple[float, ...], dim: int,
               reach_tol: float) -> tuple[float, float, NDArray[np.float64], NDArray[np.float64],
                                          NDArray[np.float64], NDArray[np.float64]]:
    """:func:`toi_shapes` of packed shapes 0 and 1, then the distance at the touch: the scalar
    :func:`collideworld.time_of_impact` in one call, with its own scratch.

    ``a0``, ``a1``, ``b0``, ``b1``: the start and end poses' kernel rows (8 floats each); ``reach_tol``
    the reach the touching tolerance adds to the largest pose coordinate (``time_of_impact``'s
    ``max(reach_a, reach_b) + plane_scale``). Returns ``(t, gap, out, world, pose_a, pose_b)``: ``t`` as
    :func:`toi_shapes` returns it (at that tolerance); when
    ``t >= 0``, the poses (8,) at ``min(t, 1)`` (:func:`~collideworld.geometry.gjk.pose_at`) and ``gap``,
    ``out`` (11,) and ``world`` of :func:`~collideworld.geometry.gjk.posed_distance` there (what
    ``impact_at`` computes); else ``gap`` is 0 and the rest unspecified.

    Examples
    --------
    >>> import numpy as np
    >>> verts, first = np.zeros((2, 3)), np.arange(2)
    >>> ones, zeros = np.ones(2, dtype=np.int64), np.zeros(2, dtype=np.int64)
    >>> still = (5.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0)
    >>> start, end = (0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0), (10.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0)
    >>> t, gap, out, world, pose_a, pose_b = toi_impact(verts, first, ones, np.ones(2), zeros, first, ones, first, ones,
    ...                                                 np.ones(2), start, end, still, still, 2, 1.0)
    >>> round(t, 12), round(float(pose_a[0]), 12), out[6:9].tolist()
    (0.3, 3.0, [1.0, 0.0, 0.0])
    """
    pa0, pa1, pb0, pb1 = np.empty(8), np.empty(8), np.empty(8), np.empty(8)
    top = 0.0
    for i in range(8):
        pa0[i], pa1[i], pb0[i], pb1[i] = a0[i], a1[i], b0[i], b1[i]
    for i in range(3):  # time_of_impact's tolerance: the largest coordinate of the four poses, plus the reach
        top = max(top, abs(a0[i]))
    for i in range(3):
        top = max(top, abs(a1[i]))
    for i in range(3):
        top = max(top, abs(b0[i]))
    for i in range(3):
        top = max(top, abs(b1[i]))
    tol = REL_TOUCH_TOL * abs(top + reach_tol)
    n = verts.shape[0]
    world = np.zeros((n, 3))
    out = np.zeros(11)
    pose_a = np.zeros(8)
    pose_b = np.zeros(8)
    t = toi_shapes(verts, pfirst, pcount, prad, pplane, svfirst, svcount, sfirst, scount, reach, 0, 1, pa0, pa1,
                   pb0, pb1, dim, tol, world, np.zeros((16, 4)), out, np.zeros(11), np.zeros(8), np.zeros((3, 3)))
    gap = 0.0
    if t >= 0.0:
        # the touch's poses and distance on fresh arrays, as impact_at computes them
        at = min(t, 1.0)
        pose_at(pa0, pa1, at, dim, pose_a)
        pose_at(pb0, pb1, at, dim, pose_b)
        out = np.zeros(11)
        world = np.zeros((n, 3))
        gap = posed_distance(verts, pfirst, pcount, prad, pplane, svfirst, svcount, sfirst, scount, pose_a, pose_b,
                             dim, world, out)
    return t, gap, out, world, pose_a, pose_b


@twin_jit
def _lower_bound(verts: NDArray[np.float64], pplane: NDArray[np.int64], prad: NDArray[np.float64],
                 svfirst: NDArray[np.int64], sfirst: NDArray[np.int64], reach: NDArray[np.float64], s: int,
                 ps: NDArray[np.float64], po: NDArray[np.float64], reach_s: float) -> float:
    """A lower bound of the distance of the moving shape (at ``ps``) to obstacle ``s`` (at ``po``)."""
    if pplane[sfirst[s]] == 1:
        v = svfirst[s]
        return float(verts[v, 0] * ps[0] + verts[v, 1] * ps[1] + verts[v, 2] * ps[2] - prad[sfirst[s]] - reach_s)
    dx = po[0] - ps[0]
    dy = po[1] - ps[1]
    dz = po[2] - ps[2]
    return float(math.sqrt(dx * dx + dy * dy + dz * dz) - reach[s] - reach_s)


@twin_jit
def _approach(verts: NDArray[np.float64], pplane: NDArray[np.int64], svfirst: NDArray[np.int64],
              sfirst: NDArray[np.int64], s: int, ps0: NDArray[np.float64], ps1: NDArray[np.float64],
              po0: NDArray[np.float64], po1: NDArray[np.float64]) -> float:
    """How much :func:`_lower_bound` can fall over one interval (rotation does not move bounding discs)."""
    if pplane[sfirst[s]] == 1:
        v = svfirst[s]
        return float(abs(verts[v, 0] * (ps1[0] - ps0[0]) + verts[v, 1] * (ps1[1] - ps0[1])
                         + verts[v, 2] * (ps1[2] - ps0[2])))
    dx = (po1[0] - po0[0]) - (ps1[0] - ps0[0])
    dy = (po1[1] - po0[1]) - (ps1[1] - ps0[1])
    dz = (po1[2] - po0[2]) - (ps1[2] - ps0[2])
    return math.sqrt(dx * dx + dy * dy + dz * dz)


@twin_jit
def _pair_tol(ps: NDArray[np.float64], po: NDArray[np.float64], reach_s: float, reach_o: float,
              offset: float) -> float:
    """The touching tolerance (``REL_TOUCH_TOL`` relative, no floor) for coordinates of this pair's magnitude."""
    scale = abs(offset) + reach_s + reach_o
    for i in range(3):
        scale = max(scale, abs(ps[i]) + reach_s, abs(po[i]) + reach_o)
    return REL_TOUCH_TOL * scale


@twin_jit
def trajectory_kernel(verts: NDArray[np.float64], pfirst: NDArray[np.int64], pcount: NDArray[np.int64],
                      prad: NDArray[np.float64], pplane: NDArray[np.int64], svfirst: NDArray[np.int64],
                      svcount: NDArray[np.int64], sfirst: NDArray[np.int64], scount: NDArray[np.int64],
                      reach: NDArray[np.float64], poses: NDArray[np.float64], obstacle_poses: NDArray[np.float64],
                      dim: int, continuous: bool, clearance: NDArray[np.float64],
                      nearest: NDArray[np.int64]) -> tuple[int, float, int]:
    """First touch of shape 0 along ``poses`` (T, 8) with shapes ``1..M`` along ``obstacle_poses`` (T, M, 8).

    Writes ``clearance[k]`` (the smallest gap to any obstacle at step ``k``,
    0 when touching) and ``nearest[k]`` (that obstacle), and returns
    ``(step, t, obstacle)`` of the first touch, ``(-1, nan, -1)`` for none.
    Discretely, the first step at which some obstacle touches (the lowest
    index if several), with ``t = 0``; with ``continuous``, the first touch
    while moving from step ``k`` to ``k + 1`` (poses interpolated as in
    :func:`toi_shapes`), if earlier; ``(k, UNDECIDED, j)`` when
    :func:`toi_shapes` could not decide obstacle ``j`` over that interval.

    Obstacles whose bounding discs (balls) are farther than the best gap so
    far are skipped without running GJK.

    Examples
    --------
    A unit circle driving along x past a unit circle at (5, 3), then into one
    at (9, 0):

    >>> import numpy as np
    >>> verts = np.zeros((3, 3))
    >>> ones, first = np.ones(3, dtype=np.int64), np.arange(3)
    >>> poses = np.zeros((5, 8)); poses[:, 0] = [0, 2, 4, 6, 8]; poses[:, 3] = 1
    >>> obstacles = np.zeros((5, 2, 8)); obstacles[:, :, 3] = 1
    >>> obstacles[:, 0, :2] = (5, 3); obstacles[:, 1, 0] = 9
    >>> clearance, nearest = np.zeros(5), np.zeros(5, dtype=np.int64)
    >>> trajectory_kernel(verts, first, ones, np.ones(3), 0 * ones, first, ones, first, ones, np.ones(3),
    ...                   poses, obstacles, 2, True, clearance, nearest)
    (3, 0.5, 1)
    >>> clearance.round(6).tolist(), nearest.tolist()
    ([3.830952, 2.242641, 1.162278, 1.0, 0.0], [0, 0, 0, 1, 1])
    """
    n_steps = poses.shape[0]
    m = obstacle_poses.shape[1]
    world = np.empty_like(verts)
    ws = np.zeros((16, 4))
    out = np.zeros(11)
    tmp = np.zeros(11)
    pose = np.zeros(8)
    rot = np.zeros((3, 3))
    reach_s = reach[0]
    hit_step = -1
    hit_obstacle = -1
    for k in range(n_steps):
        ps = poses[k]
        transform_shape(verts, svfirst[0], svcount[0], ps, dim, rot, world)
        # seed the best gap with the obstacle whose bounding ball is nearest
        seed = -1
        seed_lb = math.inf
        for j in range(m):
            lb = _lower_bound(verts, pplane, prad, svfirst, sfirst, reach, j + 1, ps, obstacle_poses[k, j], reach_s)
            if lb < seed_lb:
                seed_lb = lb
                seed = j
        best = math.inf
        best_j = -1
        touch = -1
        for step in range(m + 1):
            j = seed if step == 0 else step - 1
            if (step == 0 and seed < 0) or (step > 0 and j == seed):
                continue
            po = obstacle_poses[k, j]
            s = j + 1
            tol = _pair_tol(ps, po, reach_s, reach[s], prad[sfirst[s]] if pplane[sfirst[s]] == 1 else 0.0)
            lb = _lower_bound(verts, pplane, prad, svfirst, sfirst, reach, s, ps, po, reach_s)
            if lb >= best and lb > tol:
                continue
            transform_shape(verts, svfirst[s], svcount[s], po, dim, rot, world)
            d = shape_distance(world, pfirst, pcount, prad, pplane, sfirst[0], scount[0], sfirst[s], scount[s],
                               ws, out, tmp)
            if d <= tol:
                d = 0.0
                if touch < 0 or j < touch:
                    touch = j
            if d < best or (d == best and j < best_j):
                best = d
                best_j = j
        clearance[k] = best
        nearest[k] = best_j
        if touch >= 0 and hit_step < 0:
            hit_step = k
            hit_obstacle = touch
    if not continuous:
        return hit_step, (0.0 if hit_step >= 0 else math.nan), hit_obstacle
    last = hit_step if hit_step >= 0 else n_steps - 1
    for k in range(last):
        best_t = math.inf
        best_j = -1
        for j in range(m):
            s = j + 1
            ps0 = poses[k]
            ps1 = poses[k + 1]
            po0 = obstacle_poses[k, j]
            po1 = obstacle_poses[k + 1, j]
            tol = _pair_tol(ps0, po0, reach_s, reach[s], prad[sfirst[s]] if pplane[sfirst[s]] == 1 else 0.0)
            lb = _lower_bound(verts, pplane, prad, svfirst, sfirst, reach, s, ps0, po0, reach_s)
            if lb - _approach(verts, pplane, svfirst, sfirst, s, ps0, ps1, po0, po1) > tol:
                continue
            t = toi_shapes(verts, pfirst, pcount, prad, pplane, svfirst, svcount, sfirst, scount, reach, 0, s,
                           ps0, ps1, po0, po1, dim, tol, world, ws, out, tmp, pose, rot)
            if t == UNDECIDED:  # neither a touch nor none: the caller must not guess
                return k, UNDECIDED, j
            if t >= 0.0 and t < best_t:
                best_t = t
                best_j = j
        if best_j >= 0:
            if best_t >= 1.0:  # touching exactly at the next step's pose
                return k + 1, 0.0, best_j
            return k, best_t, best_j
    return hit_step, (0.0 if hit_step >= 0 else math.nan), hit_obstacle


# -- one query shape against many bodies (the world's nearest / within / cast queries) ----------------
#
# The shapes are one packed table (the bodies' shapes and, at index ``q``, the query's); ``shape_of[i]``
# and ``rows[i]`` are body i's shape and pose row. Each row is measured exactly as the scalar
# ``proximity.distance`` / ``time_of_impact`` measure that pair (the same transforms, piece order and
# tolerance arithmetic), so the bits agree; the cases those functions settle with more than GJK
# (touching or overlapping pairs: collide()'s depth; a witness gap below GJK's) are flagged for them.

#: ``distance_rows`` status: farther than the limit
FAR = 0
#: ``distance_rows`` status: apart, measured (``out`` holds the row)
MEASURED = 1
#: ``distance_rows`` status / ``toi_rows`` time: left to the scalar function
SCALAR = 2
SCALAR_T = -3.0
#: ``distance_pairs`` status: GJK calls them touching (``out`` holds its row; collide() decides the rest)
TOUCH = 3


@twin_jit
def distance_rows(verts: NDArray[np.float64], pfirst: NDArray[np.int64], pcount: NDArray[np.int64],
                  prad: NDArray[np.float64], pplane: NDArray[np.int64], svfirst: NDArray[np.int64],
                  svcount: NDArray[np.int64], sfirst: NDArray[np.int64], scount: NDArray[np.int64],
                  reach: NDArray[np.float64], shape_of: NDArray[np.int64], rows: NDArray[np.float64], q: int,
                  qrow: NDArray[np.float64], dim: int, max_distance: float, status: NDArray[np.int64],
                  out: NDArray[np.float64]) -> None:
    """Distance from each body (shape ``a``) to the query shape ``q`` (shape ``b``), as ``proximity.distance``.

    ``status[i]``: ``FAR`` (gap over ``max_distance``), ``MEASURED`` (``out[i]``: gap, point on the
    body (3), point on the query (3), normal body -> query (3)) or ``SCALAR`` (touching, overlapping,
    both half-spaces, or GJK's witness points closer than its gap: ``proximity.distance`` decides).

    Examples
    --------
    A unit circle (shape 0) at x = 5 and a circle of radius 2 (the query, shape 1) at the origin:

    >>> import numpy as np
    >>> one, first = np.ones(2, dtype=np.int64), np.arange(2)
    >>> status, out = np.zeros(1, dtype=np.int64), np.zeros((1, 10))
    >>> row = np.array([[5.0, 0, 0, 1, 0, 0, 0, 0]])
    >>> distance_rows(np.zeros((2, 3)), first, one, np.array([1.0, 2.0]), 0 * one, first, one, first, one,
    ...               np.array([1.0, 2.0]), np.zeros(1, dtype=np.int64), row, 1, np.array([0.0, 0, 0, 1, 0, 0, 0, 0]),
    ...               2, np.inf, status, out)
    >>> int(status[0]), out[0, :4].tolist()
    (1, [2.0, 4.0, 0.0, 0.0])
    """
    world = np.zeros((len(verts), 3))
    ws = np.zeros((16, 4))
    tmp = np.zeros(11)
    o = np.zeros(11)
    rot = np.zeros((3, 3))
    transform_shape(verts, svfirst[q], svcount[q], qrow, dim, rot, world)
    qlast = sfirst[q] + scount[q] - 1
    q_plane = pplane[qlast] == 1
    scale_b = max(abs(qrow[0]), abs(qrow[1]), abs(qrow[2])) + reach[q]
    for i in range(len(shape_of)):
        a = shape_of[i]
        af = sfirst[a]
        a_plane = pplane[af] == 1
        if a_plane and q_plane:
            status[i] = SCALAR
            continue
        row = rows[i]
        transform_shape(verts, svfirst[a], svcount[a], row, dim, rot, world)
        gap = shape_distance(world, pfirst, pcount, prad, pplane, af, scount[a], sfirst[q], scount[q], ws, o, tmp)
        plane_scale = max(abs(prad[af]) if a_plane else 0.0, abs(prad[qlast]) if q_plane else 0.0)
        scale = max(max(abs(row[0]), abs(row[1]), abs(row[2])) + reach[a], scale_b, plane_scale)
        tol = REL_TOUCH_TOL * abs(scale)
        if not gap > tol:
            status[i] = SCALAR
            continue
        e2 = (o[3] - o[0]) * (o[3] - o[0]) + (o[4] - o[1]) * (o[4] - o[1])
        e = math.sqrt(e2 + (o[5] - o[2]) * (o[5] - o[2])) if dim == 3 else math.sqrt(e2)
        # distance() checks the witness points' own gap (numpy's sqrt(span @ span), within an ulp or two of
        # e) against gap - tol, correcting the gap only below that: only a witness gap near or below it is
        # left to distance() (rounding makes e a hair under gap for two balls, every time)
        if not (e >= gap or e - (gap - tol) > 1e-14 * e):
            status[i] = SCALAR
            continue
        if gap > max_distance:
            status[i] = FAR
            continue
        status[i] = MEASURED
        out[i, 0] = gap
        for k in range(9):
            out[i, 1 + k] = o[k]


@twin_jit
def toi_rows(verts: NDArray[np.float64], pfirst: NDArray[np.int64], pcount: NDArray[np.int64],
             prad: NDArray[np.float64], pplane: NDArray[np.int64], svfirst: NDArray[np.int64],
             svcount: NDArray[np.int64], sfirst: NDArray[np.int64], scount: NDArray[np.int64],
             reach: NDArray[np.float64], q: int, a0: NDArray[np.float64], a1: NDArray[np.float64],
             shape_of: NDArray[np.int64], rows: NDArray[np.float64], dim: int, t_out: NDArray[np.float64]) -> None:
    """First touch of the query shape ``q`` moving from ``a0`` to ``a1`` with each resting body, as ``time_of_impact``.

    ``t_out[i]``: the time in [0, 1], -1.0 for no touch, ``UNDECIDED``, or ``SCALAR_T`` (a half-space
    query against a half-space: ``proximity.time_of_impact`` decides).

    Examples
    --------
    A unit circle (the query, shape 1) from x = 0 to x = 10 against a unit circle resting at x = 5:

    >>> import numpy as np
    >>> one, first = np.ones(2, dtype=np.int64), np.arange(2)
    >>> t = np.zeros(1)
    >>> toi_rows(np.zeros((2, 3)), first, one, np.ones(2), 0 * one, first, one, first, one, np.ones(2), 1,
    ...          np.array([0.0, 0, 0, 1, 0, 0, 0, 0]), np.array([10.0, 0, 0, 1, 0, 0, 0, 0]),
    ...          np.zeros(1, dtype=np.int64), np.array([[5.0, 0, 0, 1, 0, 0, 0, 0]]), 2, t)
    >>> round(float(t[0]), 12)
    0.3
    """
    world = np.zeros((len(verts), 3))
    ws = np.zeros((16, 4))
    out = np.zeros(11)
    tmp = np.zeros(11)
    pose = np.zeros(8)
    rot = np.zeros((3, 3))
    # the largest coordinate of the moving shape's two poses (proximity's _tolerance)
    scale_a = max(max(abs(a0[0]), abs(a0[1]), abs(a0[2])), max(abs(a1[0]), abs(a1[1]), abs(a1[2])))
    q_plane = pplane[sfirst[q] + scount[q] - 1] == 1
    for i in range(len(shape_of)):
        b = shape_of[i]
        blast = sfirst[b] + scount[b] - 1
        b_plane = pplane[blast] == 1
        if q_plane:
            t_out[i] = SCALAR_T
            continue
        row = rows[i]
        r = max(reach[q], reach[b]) + (abs(prad[blast]) if b_plane else 0.0)
        scale = max(scale_a, max(abs(row[0]), abs(row[1]), abs(row[2]))) + r
        tol = REL_TOUCH_TOL * abs(scale)
        t_out[i] = toi_shapes(verts, pfirst, pcount, prad, pplane, svfirst, svcount, sfirst, scount, reach, q, b,
                              a0, a1, row, row, dim, tol, world, ws, out, tmp, pose, rot)


# -- many pairs, each its own two shapes (distance_many / time_of_impact_many) ----------------------
#
# Pair i is shape ``shape_a[i]`` at ``rows_a[i]`` against ``shape_b[i]`` at ``rows_b[i]``, both from one
# packed table (a's and b's entries distinct, so the two never share the vertex rows of ``world``).
# Each pair is measured as the scalar ``proximity.distance`` / ``time_of_impact`` measures it (the
# same transforms, piece order and tolerance arithmetic), so the bits agree; what those settle with
# more than GJK is flagged for them, as in :func:`distance_rows` and :func:`toi_rows`.


@twin_jit
def distance_pairs(verts: NDArray[np.float64], pfirst: NDArray[np.int64], pcount: NDArray[np.int64],
                   prad: NDArray[np.float64], pplane: NDArray[np.int64], svfirst: NDArray[np.int64],
                   svcount: NDArray[np.int64], sfirst: NDArray[np.int64], scount: NDArray[np.int64],
                   reach: NDArray[np.float64], shape_a: NDArray[np.int64], rows_a: NDArray[np.float64],
                   shape_b: NDArray[np.int64], rows_b: NDArray[np.float64], dim: int, max_distance: float,
                   status: NDArray[np.int64], out: NDArray[np.float64]) -> None:
    """Distance of each pair, ``shape_a[i]`` at ``rows_a[i]`` to ``shape_b[i]`` at ``rows_b[i]``, as ``distance()``.

    ``status[i]`` and ``out[i]`` (10,) as in :func:`distance_rows`: ``FAR``, ``MEASURED`` (gap, point
    on a (3), point on b (3), normal a -> b (3)), ``TOUCH`` (GJK's gap within the touching tolerance:
    ``out[i]`` holds its row, and collide() decides the rest, see :func:`deepest_pairs`) or ``SCALAR``
    (two half-spaces, or GJK's witness points closer than its gap: ``proximity.distance`` decides).

    Examples
    --------
    A unit circle (shape 0) at the origin and a circle of radius 2 (shape 1) at x = 5:

    >>> import numpy as np
    >>> one, first = np.ones(2, dtype=np.int64), np.arange(2)
    >>> status, out = np.zeros(1, dtype=np.int64), np.zeros((1, 10))
    >>> ra, rb = np.array([[0.0, 0, 0, 1, 0, 0, 0, 0]]), np.array([[5.0, 0, 0, 1, 0, 0, 0, 0]])
    >>> distance_pairs(np.zeros((2, 3)), first, one, np.array([1.0, 2.0]), 0 * one, first, one, first, one,
    ...                np.array([1.0, 2.0]), np.zeros(1, dtype=np.int64), ra, np.ones(1, dtype=np.int64), rb, 2,
    ...                np.inf, status, out)
    >>> int(status[0]), out[0, :4].tolist()
    (1, [2.0, 1.0, 0.0, 0.0])
    """
    world = np.zeros((len(verts), 3))
    ws = np.zeros((16, 4))
    tmp = np.zeros(11)
    o = np.zeros(11)
    rot = np.zeros((3, 3))
    for i in range(len(shape_a)):
        a = shape_a[i]
        b = shape_b[i]
        af = sfirst[a]
        blast = sfirst[b] + scount[b] - 1
        a_plane = pplane[af] == 1
        b_plane = pplane[blast] == 1
        if a_plane and b_plane:
            status[i] = SCALAR
            continue
        ra = rows_a[i]
        rb = rows_b[i]
        transform_shape(verts, svfirst[a], svcount[a], ra, dim, rot, world)
        transform_shape(verts, svfirst[b], svcount[b], rb, dim, rot, world)
        gap = shape_distance(world, pfirst, pcount, prad, pplane, af, scount[a], sfirst[b], scount[b], ws, o, tmp)
        plane_scale = max(abs(prad[af]) if a_plane else 0.0, abs(prad[blast]) if b_plane else 0.0)
        scale = max(max(abs(ra[0]), abs(ra[1]), abs(ra[2])) + reach[a],
                    max(abs(rb[0]), abs(rb[1]), abs(rb[2])) + reach[b], plane_scale)
        tol = REL_TOUCH_TOL * abs(scale)
        if not gap > tol:
            # touching or overlapping: GJK's row kept for deepest_pairs, once collide() has spoken
            status[i] = TOUCH
            out[i, 0] = gap
            for k in range(9):
                out[i, 1 + k] = o[k]
            continue
        e2 = (o[3] - o[0]) * (o[3] - o[0]) + (o[4] - o[1]) * (o[4] - o[1])
        e = math.sqrt(e2 + (o[5] - o[2]) * (o[5] - o[2])) if dim == 3 else math.sqrt(e2)
        # as in distance_rows: a witness gap near or below gap - tol is left to distance()
        if not (e >= gap or e - (gap - tol) > 1e-14 * e):
            status[i] = SCALAR
            continue
        if gap > max_distance:
            status[i] = FAR
            continue
        status[i] = MEASURED
        out[i, 0] = gap
        for k in range(9):
            out[i, 1 + k] = o[k]


@twin_jit
def toi_pairs(verts: NDArray[np.float64], pfirst: NDArray[np.int64], pcount: NDArray[np.int64],
              prad: NDArray[np.float64], pplane: NDArray[np.int64], svfirst: NDArray[np.int64],
              svcount: NDArray[np.int64], sfirst: NDArray[np.int64], scount: NDArray[np.int64],
              reach: NDArray[np.float64], shape_a: NDArray[np.int64], a0: NDArray[np.float64],
              a1: NDArray[np.float64], shape_b: NDArray[np.int64], b0: NDArray[np.float64], b1: NDArray[np.float64],
              dim: int, t_out: NDArray[np.float64]) -> None:
    """First touch of each pair, ``shape_a[i]`` moving from ``a0[i]`` to ``a1[i]`` and ``shape_b[i]`` from ``b0[i]``
    to ``b1[i]``, as ``proximity.time_of_impact``.

    ``t_out[i]``: the time in [0, 1], -1.0 for no touch, ``UNDECIDED``, or ``SCALAR_T`` (a half-space on
    side a: ``time_of_impact`` swaps the sides or, for two, decides itself). The tolerance is
    ``time_of_impact``'s: the largest coordinate of the four poses plus the larger reach plus a
    half-space's offset.

    Examples
    --------
    A unit circle (shape 0) from x = 0 to x = 10 against a unit circle (shape 1) resting at x = 5:

    >>> import numpy as np
    >>> one, first = np.ones(2, dtype=np.int64), np.arange(2)
    >>> t = np.zeros(1)
    >>> rest = np.array([[5.0, 0, 0, 1, 0, 0, 0, 0]])
    >>> toi_pairs(np.zeros((2, 3)), first, one, np.ones(2), 0 * one, first, one, first, one, np.ones(2),
    ...           np.zeros(1, dtype=np.int64), np.array([[0.0, 0, 0, 1, 0, 0, 0, 0]]),
    ...           np.array([[10.0, 0, 0, 1, 0, 0, 0, 0]]), np.ones(1, dtype=np.int64), rest, rest, 2, t)
    >>> round(float(t[0]), 12)
    0.3
    """
    world = np.zeros((len(verts), 3))
    ws = np.zeros((16, 4))
    out = np.zeros(11)
    tmp = np.zeros(11)
    pose = np.zeros(8)
    rot = np.zeros((3, 3))
    for i in range(len(shape_a)):
        a = shape_a[i]
        b = shape_b[i]
        if pplane[sfirst[a] + scount[a] - 1] == 1:
            t_out[i] = SCALAR_T
            continue
        blast = sfirst[b] + scount[b] - 1
        top = 0.0
        for r in (a0[i], a1[i], b0[i], b1[i]):
            top = max(top, abs(r[0]), abs(r[1]), abs(r[2]))
        reach_ab = max(reach[a], reach[b]) + (abs(prad[blast]) if pplane[blast] == 1 else 0.0)
        tol = REL_TOUCH_TOL * abs(top + reach_ab)
        t_out[i] = toi_shapes(verts, pfirst, pcount, prad, pplane, svfirst, svcount, sfirst, scount, reach, a, b,
                              a0[i], a1[i], b0[i], b1[i], dim, tol, world, ws, out, tmp, pose, rot)


@twin_jit
def poses_at(r0: NDArray[np.float64], r1: NDArray[np.float64], t: NDArray[np.float64], dim: int,
             out: NDArray[np.float64]) -> None:
    """``out[i]``: the pose row a fraction ``min(t[i], 1)`` of the way from ``r0[i]`` to ``r1[i]`` (``pose_at``).

    Examples
    --------
    >>> import numpy as np
    >>> out = np.zeros((1, 8))
    >>> poses_at(np.zeros((1, 8)), np.array([[4.0, 0, 0, 1, 0, 0, 0, 2.0]]), np.array([0.25]), 2, out)
    >>> out[0, [0, 7]].tolist()
    [1.0, 0.5]
    """
    for i in range(len(t)):
        pose_at(r0[i], r1[i], min(t[i], 1.0), dim, out[i])


@twin_jit
def deepest_pairs(verts: NDArray[np.float64], pfirst: NDArray[np.int64], pcount: NDArray[np.int64],
                  prad: NDArray[np.float64], pplane: NDArray[np.int64], svfirst: NDArray[np.int64],
                  svcount: NDArray[np.int64], sfirst: NDArray[np.int64], reach: NDArray[np.float64],
                  shape_a: NDArray[np.int64], rows_a: NDArray[np.float64], shape_b: NDArray[np.int64],
                  rows_b: NDArray[np.float64], dim: int, gjk_out: NDArray[np.float64], hit: NDArray[np.bool_],
                  normal: NDArray[np.float64], depth: NDArray[np.float64], out: NDArray[np.float64]) -> None:
    """``distance()``'s answer for pairs GJK found touching (``TOUCH`` rows of :func:`distance_pairs`), given
    collide()'s ``hit``, ``normal`` (N, D) and ``depth`` for each; every shape one convex piece.

    ``out[i]`` (10,): distance, point on a (3), point on b (3), normal (3). As ``proximity.distance``:
    no contact, GJK's row (its gap at least 0); touching, gap 0 with collide's normal (both points at
    their midpoint when GJK has no normal); overlapping, ``-depth`` and the deepest points: GJK between
    a's extreme feature along the normal and b's extreme feature along minus the normal moved back by
    the depth (the feature: the vertices within ``1e-9 max(1, scale)`` of the extreme, grown by the
    piece's radius), the same arithmetic as ``proximity._deepest_points``, so the same bits.

    Examples
    --------
    Unit circles (shapes 0 and 1) with centres 1.5 apart overlap by 0.5:

    >>> import numpy as np
    >>> one, first = np.ones(2, dtype=np.int64), np.arange(2)
    >>> ra, rb = np.array([[0.0, 0, 0, 1, 0, 0, 0, 0]]), np.array([[1.5, 0, 0, 1, 0, 0, 0, 0]])
    >>> out = np.zeros((1, 10))
    >>> deepest_pairs(np.zeros((2, 3)), first, one, np.ones(2), 0 * one, first, one, first, np.ones(2),
    ...               np.zeros(1, dtype=np.int64), ra, np.ones(1, dtype=np.int64), rb, 2, np.zeros((1, 10)),
    ...               np.ones(1, dtype=np.bool_), np.array([[1.0, 0.0]]), np.array([0.5]), out)
    >>> out[0, :7].tolist()
    [-0.5, 1.0, 0.0, 0.0, 0.5, 0.0, 0.0]
    """
    world = np.zeros((len(verts), 3))
    ws = np.zeros((16, 4))
    tmp = np.zeros(11)
    rot = np.zeros((3, 3))
    for i in range(len(shape_a)):
        g = gjk_out[i]
        if not hit[i]:
            out[i, 0] = max(g[0], 0.0)
            for k in range(9):
                out[i, 1 + k] = g[1 + k]
            continue
        for k in range(3):
            out[i, 7 + k] = normal[i, k] if k < dim else 0.0
        if depth[i] == 0.0:
            out[i, 0] = 0.0
            flat = True
            for k in range(dim):
                if g[7 + k] != 0.0:
                    flat = False
            for k in range(3):
                if flat:
                    mid = 0.5 * (g[1 + k] + g[4 + k])
                    out[i, 1 + k] = mid
                    out[i, 4 + k] = mid
                else:
                    out[i, 1 + k] = g[1 + k]
                    out[i, 4 + k] = g[4 + k]
            continue
        out[i, 0] = -depth[i]
        a = shape_a[i]
        b = shape_b[i]
        ia = sfirst[a]
        ib = sfirst[b]
        if pplane[ia] == 1 or pplane[ib] == 1:
            # against a half-space, GJK's closed form already gives the deepest vertex and its foot
            for k in range(6):
                out[i, 1 + k] = g[1 + k]
            continue
        ra = rows_a[i]
        rb = rows_b[i]
        transform_shape(verts, svfirst[a], svcount[a], ra, dim, rot, world)
        transform_shape(verts, svfirst[b], svcount[b], rb, dim, rot, world)
        scale = max(max(abs(ra[0]), abs(ra[1]), abs(ra[2])) + reach[a],
                    max(abs(rb[0]), abs(rb[1]), abs(rb[2])) + reach[b], 0.0)
        slack = 1e-9 * max(1.0, scale)
        nx = normal[i, 0]
        ny = normal[i, 1]
        nz = normal[i, 2] if dim == 3 else 0.0
        pts = np.empty((pcount[ia] + pcount[ib], 3))
        m = 0
        for side in range(2):
            piece = ia if side == 0 else ib
            sx, sy, sz = (nx, ny, nz) if side == 0 else (-nx, -ny, -nz)
            shift = 0.0 if side == 0 else depth[i]
            v0 = pfirst[piece]
            top = -math.inf
            for v in range(v0, v0 + pcount[piece]):
                top = max(top, world[v, 0] * sx + world[v, 1] * sy + world[v, 2] * sz)
            floor = top - slack
            r = prad[piece]
            first = m
            for v in range(v0, v0 + pcount[piece]):
                if world[v, 0] * sx + world[v, 1] * sy + world[v, 2] * sz >= floor:
                    pts[m, 0] = (world[v, 0] + r * sx) - shift * sx
                    pts[m, 1] = (world[v, 1] + r * sy) - shift * sy
                    pts[m, 2] = (world[v, 2] + r * sz) - shift * sz
                    m += 1
            if side == 0:
                na = m - first
        gjk_closest(pts, np.int64(0), np.int64(na), np.int64(na), np.int64(m - na), ws, tmp)
        for k in range(dim):
            out[i, 1 + k] = tmp[k]
        out[i, 4] = tmp[3] - depth[i] * nx
        out[i, 5] = tmp[4] - depth[i] * ny
        if dim == 3:
            out[i, 6] = tmp[5] - depth[i] * nz
