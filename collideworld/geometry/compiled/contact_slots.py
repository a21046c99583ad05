"""Compiled narrowphase dispatch: every kind pair in one loop over pairs of rows (slots).

The numpy narrowphase (:func:`collideworld.narrowphase.contact_pairs`) groups
the pairs by kind pair, gathers each group's columns with ``take`` and makes
one kernel call per group: a few hundred array calls per step, whatever the
number of pairs. This loop does the same work pair by pair: it reads the
columns directly by row, applies the same bounding-ball reject, puts the pair
in canonical order (half-space < ball < box < polygon), calls the same
per-row routine the batched twin calls (``row`` of each
``compiled/contact_<a>_<b>.py``) and flips the normal of a swapped pair, so
every pair gets the bits of the grouped compiled path. Per pair::

    reject when the bounding balls are apart (with the touching slack)
    a polygon that is not simple (concave, or more than 8 vertices)? -> other
    swap so that kind(a) <= kind(b); the row routine of (kind a, kind b)
    flip the normal back if swapped; + 0.0 turns -0.0 into 0.0

Pairs flagged ``other`` are left for the grouped path (polygons split into
parts). The numpy twin of this loop is the grouped dispatcher itself.

From :data:`PARALLEL_PAIRS` pairs on, and once threads were asked for
(:func:`collideworld.set_threads`), the loop runs in ranges of rows spread
over threads (``prange``; :mod:`.threads` says when and on how many). Each
row reads only its own inputs and writes only its own outputs, so the
results are the same bit for bit on any number of threads.

NOTE: numba's on-disk cache of :func:`contact_rows` is checked against this
file only, not against the row routines it calls in the other modules. After
editing a ``row`` there, delete the cache
(``find collideworld -name '*.nbi' -delete -o -name '*.nbc' -delete``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from ...threads import loop_threads, on_threads, timed_loop
from ..result import ContactArrays
from ..tolerance import SQUARES_UNDERFLOW
from . import contact_ball_ball as _bb
from . import contact_ball_box as _bx
from . import contact_ball_polygon as _bp
from . import contact_box_box_2d as _xx2
from . import contact_box_box_3d as _xx3
from . import contact_box_polygon as _xp
from . import contact_halfspace_ball as _hb
from . import contact_halfspace_box as _hx
from . import contact_halfspace_halfspace as _hh
from . import contact_halfspace_polygon as _hp
from . import contact_polygon_polygon as _pp
from .kernel_support import touch_rule

__all__ = ["contact_slots"]

# Kind codes of collideworld.bodies.Kind (this package may not import it; a test checks they agree).
HALFSPACE, BALL, BOX, POLYGON = 0, 1, 2, 3

#: Pairs from which the loop runs on several threads (see :mod:`.threads`).
PARALLEL_PAIRS = 2048
#: Ranges of pairs per thread in the parallel build.
CHUNKS_PER_THREAD = 4

_ball_ball = _bb.row
_ball_box = _bx.row
_ball_polygon = _bp.row
_box_box_2d = _xx2.row
_box_box_3d = _xx3.row
_box_polygon = _xp.row
_halfspace_ball = _hb.row
_halfspace_box = _hx.row
_halfspace_halfspace = _hh.row
_halfspace_points = _hp.row_planes
_polygon_polygon = _pp.row


@njit(cache=True)
def _contact_range(start: int, stop: int, ia: NDArray[np.int64], ib: NDArray[np.int64], kind: NDArray[np.int8],
                   simple: NDArray[np.bool_], position: NDArray[np.float64], rotation: NDArray[np.float64],
                   radius: NDArray[np.float64], half: NDArray[np.float64], plane_normal: NDArray[np.float64],
                   plane_offset: NDArray[np.float64], bound_radius: NDArray[np.float64],
                   world_x: NDArray[np.float64], world_y: NDArray[np.float64], poly: NDArray[np.int64],
                   simple_n: NDArray[np.int64], reject: bool, rule: tuple[float, float], hit: NDArray[np.bool_],
                   normal: NDArray[np.float64], depth: NDArray[np.float64], other: NDArray[np.bool_]) -> None:
    """Rows ``start`` to ``stop`` of the loop: each writes only its own row of the outputs."""
    dim = position.shape[1]
    rel = rule[0]
    # The row routines get strided ('A') views of the columns (x[..., ::1]: numba types any stepped
    # slice as strided), as the compiled queries pass their packed rows and every other caller
    # passes: numba compiles a routine once per array layout it meets, so one layout is one compile
    pos_v, rot_v, rad_v, half_v = position[..., ::1], rotation[..., ::1], radius[..., ::1], half[..., ::1]
    world_x, world_y = world_x[..., ::1], world_y[..., ::1]  # (the posed polygon vertices too)
    # scratch of the 3D box-box routine, one set per range (so per thread)
    r = np.empty((3, 3))
    t = np.empty(3)
    t_b = np.empty(3)
    for i in range(start, stop):
        a = ia[i]
        b = ib[i]
        if reject:
            # the bounding-ball reject of the numpy dispatcher, operation for operation
            reach = bound_radius[a] + bound_radius[b]
            g = position[a, 0] - position[b, 0]
            size = abs(position[a, 0])
            spread = abs(g)
            dist2 = g * g
            for d in range(1, dim):
                g = position[a, d] - position[b, d]
                size = max(size, abs(position[a, d]))
                spread = max(spread, abs(g))
                dist2 += g * g
            slack = 2.0 * (rel * abs(size + spread + reach))
            limit = reach * (1 + 1e-9) + slack
            # (squares that underflowed decide nothing: the numpy dispatcher's rule)
            if not (dist2 <= limit * limit or limit * limit < SQUARES_UNDERFLOW):
                hit[i] = False
                normal[i, 0] = 1.0
                for d in range(1, dim):
                    normal[i, d] = 0.0
                depth[i] = -np.inf
                continue
        ka = kind[a]
        kb = kind[b]
        # kinds past POLYGON (capsules, hulls) and polygons that are not simple take the grouped path
        if ka > POLYGON or kb > POLYGON or (ka == POLYGON and not simple[a]) or (kb == POLYGON and not simple[b]):
            other[i] = True
            continue
        swap = ka > kb
        if swap:
            a, b, ka, kb = b, a, kb, ka
        if ka == HALFSPACE:
            if kb == HALFSPACE:
                _halfspace_halfspace(plane_normal, plane_offset, a, plane_normal, plane_offset, b, rule, i,
                                     hit, normal, depth)
            elif kb == BALL:
                _halfspace_ball(plane_normal, plane_offset, a, pos_v, rad_v, b, rule, i, hit, normal, depth)
            elif kb == BOX:
                _halfspace_box(plane_normal, plane_offset, a, pos_v, rot_v, half_v, b, rule, i,
                               hit, normal, depth)
            else:
                _halfspace_points(plane_normal, plane_offset, a, world_x, world_y, b, simple_n[poly[b]], rule, i,
                                  hit, normal, depth)
        elif ka == BALL:
            if kb == BALL:
                _ball_ball(pos_v, rad_v, a, pos_v, rad_v, b, rule, i, hit, normal, depth)
            elif kb == BOX:
                _ball_box(pos_v, rad_v, a, pos_v, rot_v, half_v, b, rule, i, hit, normal, depth)
            else:
                _ball_polygon(pos_v, rad_v, a, world_x, world_y, b, simple_n[poly[b]], rule, i,
                              hit, normal, depth)
        elif ka == BOX:
            if kb == BOX:
                if dim == 2:
                    _box_box_2d(pos_v, rot_v, half_v, a, pos_v, rot_v, half_v, b, rule, i,
                                hit, normal, depth)
                else:
                    _box_box_3d(pos_v, rot_v, half_v, a, pos_v, rot_v, half_v, b, rule, i, r, t, t_b,
                                hit, normal, depth)
            else:
                _box_polygon(pos_v, rot_v, half_v, a, world_x, world_y, b, simple_n[poly[b]], rule, i,
                             hit, normal, depth)
        else:
            _polygon_polygon(world_x, world_y, a, simple_n[poly[a]], world_x, world_y, b, simple_n[poly[b]], rule, i,
                             hit, normal, depth)
        # as the numpy dispatcher: normal * (-1 or 1) + 0.0
        sign = -1.0 if swap else 1.0
        for d in range(dim):
            normal[i, d] = normal[i, d] * sign + 0.0


@njit(cache=True)
def contact_rows(ia: NDArray[np.int64], ib: NDArray[np.int64], kind: NDArray[np.int8], simple: NDArray[np.bool_],
                  position: NDArray[np.float64], rotation: NDArray[np.float64], radius: NDArray[np.float64],
                  half: NDArray[np.float64], plane_normal: NDArray[np.float64], plane_offset: NDArray[np.float64],
                  bound_radius: NDArray[np.float64], world_x: NDArray[np.float64], world_y: NDArray[np.float64],
                  poly: NDArray[np.int64], simple_n: NDArray[np.int64], reject: bool, rule: tuple[float, float],
                  hit: NDArray[np.bool_], normal: NDArray[np.float64],
                  depth: NDArray[np.float64], other: NDArray[np.bool_]) -> None:
    """The whole loop on one thread (for compiled callers; :func:`contact_slots` calls the range directly)."""
    # np.int64: a literal 0 would compile the whole range loop a second time (Literal[int](0))
    _contact_range(np.int64(0), ia.shape[0], ia, ib, kind, simple, position, rotation, radius, half, plane_normal,
                   plane_offset, bound_radius, world_x, world_y, poly, simple_n, reject, rule, hit, normal, depth,
                   other)


def _contact_chunks(ia: NDArray[np.int64], ib: NDArray[np.int64], kind: NDArray[np.int8], simple: NDArray[np.bool_],
                    position: NDArray[np.float64], rotation: NDArray[np.float64], radius: NDArray[np.float64],
                    half: NDArray[np.float64], plane_normal: NDArray[np.float64], plane_offset: NDArray[np.float64],
                    bound_radius: NDArray[np.float64], world_x: NDArray[np.float64], world_y: NDArray[np.float64],
                    poly: NDArray[np.int64], simple_n: NDArray[np.int64], reject: bool, rule: tuple[float, float],
                    hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64],
                    other: NDArray[np.bool_], chunks: int) -> None:
    """The loop in ``chunks`` ranges of rows, spread over threads by ``prange`` (parallel build below).

    Every row depends on its own inputs only and is written in place, so the
    results are those of :func:`contact_rows`, bit for bit, however the
    ranges fall on threads.
    """
    n = ia.shape[0]
    size = (n + chunks - 1) // chunks
    for c in prange(chunks):
        _contact_range(min(n, c * size), min(n, (c + 1) * size), ia, ib, kind, simple, position, rotation, radius,
                       half, plane_normal, plane_offset, bound_radius, world_x, world_y, poly, simple_n, reject,
                       rule, hit, normal, depth, other)


_contact_chunks_parallel = njit(cache=True, parallel=True)(_contact_chunks)


def contact_slots(ia: NDArray[np.int64], ib: NDArray[np.int64], kind: NDArray[np.int8], simple: NDArray[np.bool_],
                  position: NDArray[np.float64], rotation: NDArray[np.float64], radius: NDArray[np.float64],
                  half: NDArray[np.float64], plane_normal: NDArray[np.float64], plane_offset: NDArray[np.float64],
                  bound_radius: NDArray[np.float64], world_x: NDArray[np.float64], world_y: NDArray[np.float64],
                  poly: NDArray[np.int64], simple_n: NDArray[np.int64],
                  reject: bool = True) -> tuple[ContactArrays, NDArray[np.bool_]]:
    """Contacts of rows ``ia[k]`` and ``ib[k]`` of per-body columns, every kind pair in one loop.

    Parameters
    ----------
    ia, ib : ndarray of int64, shape (N,)
        Rows (slots) of the columns below.
    kind : ndarray of int8, shape (S,)
        0 half-space, 1 ball, 2 box, 3 polygon.
    simple : ndarray of bool, shape (S,)
        Polygons whose posed vertices are in ``world_x``, ``world_y``.
    position : ndarray, shape (S, D)
    rotation : ndarray, shape (S, D, D)
    radius : ndarray, shape (S,)
    half : ndarray, shape (S, D)
    plane_normal : ndarray, shape (S, D)
    plane_offset : ndarray, shape (S,)
    bound_radius : ndarray, shape (S,)
        Radius about ``position`` holding the shape (``inf`` for half-spaces).
    world_x, world_y : ndarray, shape (K, S)
        Posed vertices of simple polygons, padded by repeating the last one
        ((K, 0) arrays in 3D).
    poly : ndarray of int64, shape (S,)
        Polygon shape index of each row (any value for other kinds).
    simple_n : ndarray of int64, shape (P,)
        Vertices of simple polygon shape ``p`` that are its own: columns from
        ``simple_n[p]`` on repeat the last one, and are not read.
    reject : bool, optional
        Settle pairs whose bounding balls are apart without a kernel (hit
        False, normal along the first axis, depth ``-inf``), as
        :func:`collideworld.narrowphase.contact_pairs` does.

    Returns
    -------
    ContactArrays
        ``hit`` (N,), ``normal`` (N, D) from ``ia`` towards ``ib``, ``depth`` (N,);
        unspecified on the rows flagged ``other``.
    other : ndarray of bool, shape (N,)
        Pairs with a polygon that is not simple: left to the grouped path.

    Examples
    --------
    A unit circle at the origin and a 1x1 box (half extents 0.5) at (1.25, 0)
    overlap by 0.25 along +x; asked the other way round, the normal flips:

    >>> import numpy as np
    >>> eye = np.eye(2)[None].repeat(2, 0)
    >>> cols = (np.array([1, 2], dtype=np.int8), np.zeros(2, dtype=bool), np.array([[0.0, 0.0], [1.25, 0.0]]),
    ...         eye, np.array([1.0, 0.0]), np.array([[0.0, 0.0], [0.5, 0.5]]), np.zeros((2, 2)), np.zeros(2),
    ...         np.array([1.0, 0.5 ** 0.5]), np.zeros((8, 2)), np.zeros((8, 2)), np.full(2, -1),
    ...         np.zeros(0, dtype=np.int64))
    >>> res, other = contact_slots(np.array([0, 1]), np.array([1, 0]), *cols)
    >>> res.hit.tolist(), res.normal.tolist(), res.depth.tolist(), other.tolist()
    ([True, True], [[1.0, 0.0], [-1.0, 0.0]], [0.25, 0.25], [False, False])
    """
    n = len(ia)
    dim = position.shape[1]
    out = ContactArrays(np.empty(n, dtype=np.bool_), np.empty((n, dim)), np.empty(n))
    other = np.zeros(n, dtype=np.bool_)
    args = (np.require(ia, np.int64, ["C", "W"]), np.require(ib, np.int64, ["C", "W"]), kind, simple,
            position, rotation, radius, half, plane_normal, plane_offset, bound_radius, world_x, world_y,
            poly, simple_n, bool(reject), touch_rule(), out.hit, out.normal, out.depth, other)
    # the parallel build only while it measures faster here (threads.loop_threads): both give the same bits
    threads = loop_threads("contact_slots", n, PARALLEL_PAIRS)
    with timed_loop("contact_slots", n, threads, PARALLEL_PAIRS):
        if threads == 1:
            # the range itself, not contact_rows: a compiled caller re-optimises the
            # whole linked loop, seconds of compile that a step does not need
            _contact_range(0, n, *args)
        else:
            # a few ranges per thread: pairs differ in cost (a ball pair against a polygon pair)
            with on_threads(threads):
                _contact_chunks_parallel(*args, CHUNKS_PER_THREAD * threads)
    return out, other
