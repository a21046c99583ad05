"""One pair of posed shapes in one compiled call: the fast path of ``collide()``.

``collide()`` used to fill a two-body store and run the narrowphase on it,
about a hundred array calls for one answer. Here the two bodies' columns are
built inside the compiled call, from a few numbers per shape and per pose,
and handed to the loop of :mod:`.contact_slots` (the same bounding-ball
reject, canonical order, row routines and normal flip as a world's step), so
a pair gives the same bits here as in a :class:`~collideworld.world.World`.

Per shape, ``params`` holds ``[radius, hx, hy, hz, nx, ny, nz, offset,
bounding radius]`` and a simple polygon's local vertices (padded by the last
one to 8); per pose, ``[x, y, z, cos, sin]`` in 2D (cosine and sine as numpy
rounds them) or ``[x, y, z, w, qx, qy, qz]`` in 3D (a unit quaternion).
A capsule (or segment, a capsule of radius 0) is kind 4: its local end
points are its ``lx`` (``p0``) and ``ly`` (``p1``) rows, its radius
``params[0]``; its pairs, which the loop of :mod:`.contact_slots` leaves
flagged, go to the capsule kernels' row routines (the ones a world's grouped
path runs) on the same canonical order and world end points. A cylinder or
cone (kinds 7 and 8, 3D: ``params[0]`` its radius, ``params[1:4]`` the
store's half column ``(r, r, half height)``) goes to the support-mapping
loop a world's step runs (:mod:`.support_slots`). Both routines are reached
from one compiled entry point (``_contact_many_rest``), which the Python
wrappers call in place of the primitive loop only for tables holding such a
kind: numba compiles a callee again into every jitted caller, and these are
the largest. Kinds this
loop does not take (hulls, non-simple polygons, rounded shapes) stay with the
store path.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from . import contact_ball_capsule as _bc
from . import contact_box_capsule_3d as _xc3
from . import contact_capsule_capsule as _cc
from . import contact_halfspace_capsule as _hc
from . import contact_polygon_capsule as _pc
from .contact_slots import BALL, BOX, HALFSPACE, POLYGON, contact_rows
from .kernel_support import touch_rule
from .support_slots import support_pair_rows

__all__ = ["contact_pair", "contact_table_pair", "contact_many", "contact_many_posed", "table_rows", "has_rest_kind",
           "pair_entry"]

Floats = NDArray[np.float64]

#: Kind code of capsules and segments (collideworld.bodies.Kind.CAPSULE; this package may not import it).
CAPSULE = 4

_ball_capsule = _bc.rows
_box_capsule_3d = _xc3.rows
_capsule_capsule = _cc.rows
_halfspace_capsule = _hc.rows
_polygon_capsule = _pc.rows

#: the touching rule, read once at the first call (a Python value handed to the kernel, never a numba global)
_RULE: tuple[float, float] | None = None


@njit(cache=True)
def _columns(rows: int, dim: int) -> tuple[Any, ...]:
    return (np.empty(rows, dtype=np.int8), np.empty(rows, dtype=np.bool_), np.empty((rows, dim)),
            np.empty((rows, dim, dim)), np.empty(rows), np.empty((rows, dim)), np.empty((rows, dim)), np.empty(rows),
            np.empty(rows), np.empty((8, rows)), np.empty((8, rows)), np.empty(rows, dtype=np.int64),
            np.empty(rows, dtype=np.int64))


def contact_pair(dim: int, ka: int, na: int, params_a: Floats, lx_a: Floats, ly_a: Floats, pose_a: Floats,
                 kb: int, nb: int, params_b: Floats, lx_b: Floats, ly_b: Floats,
                 pose_b: Floats) -> tuple[bool, float, float, float, float]:
    """Contact of two posed shapes of kinds 0 to 4 (half-space, ball, box, simple polygon, capsule).

    Parameters
    ----------
    dim : {2, 3}
    ka, kb : int
        Kinds (:class:`collideworld.bodies.Kind` codes 0 to 3).
    na, nb : int
        A simple polygon's vertex count (0 for other kinds).
    params_a, params_b : ndarray, shape (9,)
        ``[radius, hx, hy, hz, nx, ny, nz, offset, bounding radius]``.
    lx_a, ly_a, lx_b, ly_b : ndarray, shape (8,)
        A polygon's local vertices, padded by the last one; a capsule's local
        end points ``p0`` (in ``lx``) and ``p1`` (in ``ly``), first D entries
        (any values otherwise).
    pose_a, pose_b : ndarray, shape (7,)
        ``[x, y, z, cos, sin, 0, 0]`` in 2D, ``[x, y, z, w, qx, qy, qz]`` in 3D.

    Returns
    -------
    hit : bool
    nx, ny, nz : float
        The normal from a towards b (``nz`` repeats ``ny`` in 2D).
    depth : float

    Examples
    --------
    Two unit discs whose centres are 1.5 apart overlap by 0.5:

    >>> import numpy as np
    >>> disc = np.array([1.0, 0, 0, 0, 0, 0, 0, 0, 1.0])
    >>> v = np.zeros(8)
    >>> contact_pair(2, 1, 0, disc, v, v, np.array([0.0, 0, 0, 1, 0, 0, 0]),
    ...              1, 0, disc, v, v, np.array([1.5, 0, 0, 1, 0, 0, 0]))
    (True, 1.0, 0.0, 0.0, 0.5)
    """
    # the two rows stacked here, then the table kernel (one compiled entry serves both calls)
    return contact_table_pair(dim, np.array([ka, kb], dtype=np.int64), np.array([na, nb], dtype=np.int64),
                              np.stack([params_a, params_b]).astype(np.float64),
                              np.stack([lx_a[:8], lx_b[:8]]).astype(np.float64),
                              np.stack([ly_a[:8], ly_b[:8]]).astype(np.float64),
                              np.stack([pose_a[:7], pose_b[:7]]).astype(np.float64))


@njit(cache=True)
def _contact_table_pair(dim: int, kinds_t: NDArray[np.int64], n_t: NDArray[np.int64], params: Floats, lx: Floats,
                        ly: Floats, poses: Floats,
                        rule: tuple[float, float]) -> tuple[bool, float, float, float, float]:
    hit = np.empty(1, dtype=np.bool_)
    normal = np.empty((1, dim))
    depth = np.empty(1)
    other = np.zeros(1, dtype=np.bool_)
    _contact_many(dim, kinds_t, n_t, params, lx, ly, np.arange(2), poses, rule, hit, normal, depth, other)
    return hit[0], normal[0, 0], normal[0, 1], normal[0, dim - 1], depth[0]


def has_rest_kind(kinds: NDArray[np.int64]) -> bool:
    """Whether a table holds a kind :func:`_contact_many` leaves flagged (a capsule or segment, a cylinder or
    cone: any kind above the simple polygon's), so that its pairs need :func:`_contact_many_rest`.

    Examples
    --------
    >>> import numpy as np
    >>> has_rest_kind(np.array([1, 2])), has_rest_kind(np.array([2, CAPSULE]))
    (False, True)
    """
    return bool(kinds.max(initial=0) > POLYGON)


def contact_table_pair(dim: int, kinds_t: NDArray[np.int64], n_t: NDArray[np.int64], params: Floats, lx: Floats,
                       ly: Floats, poses: Floats) -> tuple[bool, float, float, float, float]:
    """:func:`contact_pair` on the pair's two-row table, already stacked: the answer :func:`contact_pair` gives.

    ``kinds_t``, ``n_t`` (2,) int64; ``params`` (2, 9), ``lx``, ``ly`` (2, 8) and ``poses`` (2, 7), rows as
    :func:`contact_pair`'s arguments (all C-contiguous and writable: the types :func:`contact_pair` builds, so
    one compiled contact loop serves both). A caller that keeps the table of a pair of shapes makes one array
    per call (the poses) and passes seven arguments, not thirteen (and :func:`pair_entry` skips the
    dispatcher's typing too).

    Examples
    --------
    >>> import numpy as np
    >>> disc = [1.0, 0, 0, 0, 0, 0, 0, 0, 1.0]
    >>> poses = np.array([[0.0, 0, 0, 1, 0, 0, 0], [1.5, 0, 0, 1, 0, 0, 0]])
    >>> contact_table_pair(2, np.array([1, 1]), np.array([0, 0]), np.array([disc, disc]), np.zeros((2, 8)),
    ...                    np.zeros((2, 8)), poses)
    (True, 1.0, 0.0, 0.0, 0.5)
    """
    global _RULE
    if _RULE is None:
        _RULE = touch_rule()
    if has_rest_kind(kinds_t):
        hit, nx, ny, nz, depth = _contact_many_rest(dim, kinds_t, n_t, params, lx, ly, np.arange(2), poses, _RULE,
                                                    np.empty(1, dtype=np.bool_), np.empty((1, dim)), np.empty(1),
                                                    np.empty(1, dtype=np.bool_))
    else:
        hit, nx, ny, nz, depth = _contact_table_pair(dim, kinds_t, n_t, params, lx, ly, poses, _RULE)
    return bool(hit), nx, ny, nz, depth


#: (dim, rest) -> the compiled entry point for collide()'s checked-shape path: see :func:`pair_entry`
_PAIR_ENTRIES: dict[tuple[int, bool], Any] = {}


def pair_entry(dim: int, rest: bool) -> Any:
    """``fn(kinds_t, n_t, params, lx, ly, poses) -> (hit, nx, ny, nz, depth)``: :func:`contact_table_pair`
    for tables of ``dim`` whose kinds :func:`has_rest_kind` says ``rest`` of, through the compiled
    specialisation's entry point.

    A dispatcher call types each argument first (~0.1 us an array): about 1 us of a ~5 us ``collide()``.
    The entry point of the one specialisation unboxes the arguments by its signature without
    checking them, so the caller must pass exactly the types :func:`contact_pair` builds:
    ``kinds_t``, ``n_t`` int64 (2,), ``params`` (2, 9), ``lx``, ``ly`` (2, 8), ``poses`` (2, 7), all
    C-contiguous, writable float64 (collide()'s pair tables are). A pair with a capsule, segment, cylinder
    or cone runs :func:`_contact_many_rest` in the same single call, on scratch rows kept here (the call
    overwrites every entry it reads back, and holds the GIL throughout: no thread meets the scratch
    mid-call). Compiles (or loads from the cache) on the first use of ``(dim, rest)``.

    Examples
    --------
    >>> import numpy as np
    >>> disc = [1.0, 0, 0, 0, 0, 0, 0, 0, 1.0]
    >>> poses = np.array([[0.0, 0, 0, 1, 0, 0, 0], [1.5, 0, 0, 1, 0, 0, 0]])
    >>> fn = pair_entry(2, False)
    >>> fn(np.array([1, 1]), np.array([0, 0]), np.array([disc, disc]), np.zeros((2, 8)), np.zeros((2, 8)), poses)
    (True, 1.0, 0.0, 0.0, 0.5)
    """
    found = _PAIR_ENTRIES.get((dim, rest))
    if found is not None:
        return found
    global _RULE
    if _RULE is None:
        _RULE = touch_rule()
    rule = _RULE
    i, f = np.int64, np.float64
    sample: tuple[Any, ...] = (dim, np.array([1, 1], dtype=i), np.zeros(2, dtype=i), np.zeros((2, 9), dtype=f),
                               np.zeros((2, 8), dtype=f), np.zeros((2, 8), dtype=f), np.zeros((2, 7), dtype=f))
    if rest:
        which, hit, normal, depth, other = (np.arange(2, dtype=i), np.empty(1, dtype=np.bool_), np.empty((1, dim)),
                                            np.empty(1), np.empty(1, dtype=np.bool_))
        args = (*sample[:6], which, sample[6], rule, hit, normal, depth, other)
        entry = _entry_point(_contact_many_rest, args)

        def fn(kinds_t: Any, n_t: Any, params: Any, lx: Any, ly: Any, poses: Any) -> Any:
            return entry(dim, kinds_t, n_t, params, lx, ly, which, poses, rule, hit, normal, depth, other)
    else:
        entry = _entry_point(_contact_table_pair, (*sample, rule))

        def fn(kinds_t: Any, n_t: Any, params: Any, lx: Any, ly: Any, poses: Any) -> Any:
            return entry(dim, kinds_t, n_t, params, lx, ly, poses, rule)
    _PAIR_ENTRIES[(dim, rest)] = fn
    return fn


def _entry_point(disp: Any, args: tuple[Any, ...]) -> Any:
    """The compiled entry point of ``disp``'s specialisation for ``args`` (compiled or loaded by one call)."""
    disp(*args)
    compiled = disp.overloads.get(tuple(disp.typeof_pyval(a) for a in args))
    return disp if compiled is None else compiled.entry_point


@njit(cache=True)
def _table_columns(dim: int, kinds_t: NDArray[np.int64], n_t: NDArray[np.int64], params_t: Floats, lx_t: Floats,
                   ly_t: Floats, which: NDArray[np.int64], poses: Floats) -> tuple[Any, ...]:
    """The store's columns of the bodies ``which`` at ``poses`` (both entry points build them the same way)."""
    rows = which.shape[0]
    (kinds, simple, position, rotation, radius, half, plane_normal, plane_offset, bound_radius, world_x, world_y,
     poly, simple_n) = _columns(rows, dim)
    # one row per body: table shape which[row] at pose poses[row] (written out here: a call per
    # row would pay the reference counts of some twenty arrays, 5x the work itself)
    for row in range(rows):
        w = which[row]
        n_verts = n_t[w]
        kinds[row] = kinds_t[w]
        simple[row] = n_verts > 0
        radius[row] = params_t[w, 0]
        plane_offset[row] = params_t[w, 7]
        bound_radius[row] = params_t[w, 8]
        poly[row] = row
        simple_n[row] = n_verts
        for k in range(dim):
            position[row, k] = poses[row, k]
            half[row, k] = params_t[w, 1 + k]
            plane_normal[row, k] = params_t[w, 4 + k]
        if dim == 2:
            c, s = poses[row, 3], poses[row, 4]
            rotation[row, 0, 0] = c
            rotation[row, 0, 1] = -s
            rotation[row, 1, 0] = s
            rotation[row, 1, 1] = c
            if n_verts > 0:
                # R @ local + t, as BodyStore's posing of simple polygons
                for v in range(world_x.shape[0]):
                    world_x[v, row] = c * lx_t[w, v] + -s * ly_t[w, v] + poses[row, 0]
                    world_y[v, row] = s * lx_t[w, v] + c * ly_t[w, v] + poses[row, 1]
        else:
            # rotation_matrix_3d's entries, operation for operation
            qw, x, y, z = poses[row, 3], poses[row, 4], poses[row, 5], poses[row, 6]
            rotation[row, 0, 0] = 1 - 2 * (y * y + z * z)
            rotation[row, 0, 1] = 2 * (x * y - qw * z)
            rotation[row, 0, 2] = 2 * (x * z + qw * y)
            rotation[row, 1, 0] = 2 * (x * y + qw * z)
            rotation[row, 1, 1] = 1 - 2 * (x * x + z * z)
            rotation[row, 1, 2] = 2 * (y * z - qw * x)
            rotation[row, 2, 0] = 2 * (x * z - qw * y)
            rotation[row, 2, 1] = 2 * (y * z + qw * x)
            rotation[row, 2, 2] = 1 - 2 * (x * x + y * y)
    return (kinds, simple, position, rotation, radius, half, plane_normal, plane_offset, bound_radius, world_x,
            world_y, poly, simple_n)


@njit(cache=True)
def _contact_many(dim: int, kinds_t: NDArray[np.int64], n_t: NDArray[np.int64], params_t: Floats, lx_t: Floats,
                  ly_t: Floats, which: NDArray[np.int64], poses: Floats, rule: tuple[float, float],
                  hit: NDArray[np.bool_], normal: Floats, depth: Floats, other: NDArray[np.bool_]) -> None:
    """The pairs of half-spaces, balls, boxes and simple polygons; pairs with a capsule, segment, cylinder or
    cone are left flagged in ``other`` (zeros on entry): :func:`_contact_many_rest` takes tables with those.

    Those routines (the capsule row kernels, the support-mapping GJK/EPA loop) are not called from here:
    numba links a jitted callee's code into every jitted caller and optimises it again there, and this
    loop has three compiled callers (issue 27: they were ~30 s of ``warm_up()``'s CPU on a cold cache
    though it holds no such shape). One entry point, called for tables holding such a kind, holds them.
    """
    rows = which.shape[0]
    n = rows // 2
    (kinds, simple, position, rotation, radius, half, plane_normal, plane_offset, bound_radius, world_x, world_y,
     poly, simple_n) = _table_columns(dim, kinds_t, n_t, params_t, lx_t, ly_t, which, poses)
    ia = np.arange(n)
    ib = np.arange(n, rows)
    # The vertex planes as strided views and reject as np.bool_: the World's step passes
    # them so (numba types a constant True as a literal), and one compiled contact loop
    # then serves both (a second is seconds more of first-use compile)
    reject: Any = np.bool_(True)
    contact_rows(ia, ib, kinds, simple, position, rotation, radius, half, plane_normal, plane_offset, bound_radius,
                  world_x[:, :rows], world_y[:, :rows], poly, simple_n, reject, rule, hit, normal, depth, other)


@njit(cache=True)
def _contact_many_rest(dim: int, kinds_t: NDArray[np.int64], n_t: NDArray[np.int64], params_t: Floats,
                       lx_t: Floats, ly_t: Floats, which: NDArray[np.int64], poses: Floats, rule: tuple[float, float],
                       hit: NDArray[np.bool_], normal: Floats, depth: Floats,
                       other: NDArray[np.bool_]) -> tuple[bool, float, float, float, float]:
    """:func:`_contact_many` and then the rows it left flagged: capsules and segments, then (3D) cylinders
    and cones (``other`` is scratch: cleared here). Returns the first row's answer (the single call's).

    The one compiled entry point that links the capsule row kernels and the support-mapping GJK/EPA
    loop (each compiled caller gets its own copy of a callee: issue 27); the Python wrappers call it,
    in place of the entry without them, only for tables holding such a kind (:func:`has_rest_kind`),
    so every pair call is still one compiled call.
    """
    rows = which.shape[0]
    n = rows // 2
    other[:] = False
    (kinds, simple, position, rotation, radius, half, plane_normal, plane_offset, bound_radius, world_x, world_y,
     poly, simple_n) = _table_columns(dim, kinds_t, n_t, params_t, lx_t, ly_t, which, poses)
    ia = np.arange(n)
    ib = np.arange(n, rows)
    reject: Any = np.bool_(True)
    contact_rows(ia, ib, kinds, simple, position, rotation, radius, half, plane_normal, plane_offset, bound_radius,
                  world_x[:, :rows], world_y[:, :rows], poly, simple_n, reject, rule, hit, normal, depth, other)
    if other.any():
        _capsule_rows(dim, kinds, position, rotation, radius, half, plane_normal, plane_offset, world_x, world_y,
                      simple_n, which, lx_t, ly_t, rule, other, hit, normal, depth)
        if dim == 3:
            # a capsule's local ends as the store's seg0 and seg1 columns (the rows of other kinds unread)
            seg0 = np.empty((rows, 3))
            seg1 = np.empty((rows, 3))
            for row in range(rows):
                for k in range(3):
                    seg0[row, k] = lx_t[which[row], k]
                    seg1[row, k] = ly_t[which[row], k]
            support_pair_rows(ia, ib, other, kinds, position, rotation, radius, half, seg0, seg1, plane_normal,
                              plane_offset, bound_radius, rule, hit, normal, depth, np.zeros(n, dtype=np.bool_))
    if n == 0:
        return False, 0.0, 0.0, 0.0, 0.0
    return hit[0], normal[0, 0], normal[0, 1], normal[0, dim - 1], depth[0]


@njit(cache=True)
def _capsule_end(row: int, dim: int, position: Floats, rotation: Floats, local: Floats, j: int, out: Floats) -> None:
    """``R @ local + t`` of one capsule end, with the bits of BodyStore.capsule_rows's einsum then ``+ t``.

    numpy's einsum sums two products left to right but three as ``(p0 + p2) + p1`` (its paired
    inner loop; checked on random rows of 1 to 20,000): the order matters to the last bit.
    """
    for i in range(dim):
        if dim == 3:
            acc = (rotation[row, i, 0] * local[0] + rotation[row, i, 2] * local[2]) + rotation[row, i, 1] * local[1]
        else:
            acc = rotation[row, i, 0] * local[0] + rotation[row, i, 1] * local[1]
        out[j, i] = position[row, i] + acc


@njit(cache=True)
def _capsule_rows(dim: int, kinds: NDArray[np.int8], position: Floats, rotation: Floats, radius: Floats,
                  half: Floats, plane_normal: Floats, plane_offset: Floats, world_x: Floats, world_y: Floats,
                  simple_n: NDArray[np.int64], which: NDArray[np.int64], lx_t: Floats, ly_t: Floats,
                  rule: tuple[float, float], other: NDArray[np.bool_], hit: NDArray[np.bool_], normal: Floats,
                  depth: Floats) -> None:
    """The pairs with a capsule that :func:`contact_rows` left flagged: one kernel call per kind pair.

    As the narrowphase's grouped path: the lower kind first (a capsule is the
    highest kind here, so it is always ``b`` unless both are capsules), the
    rows built with the store's arithmetic (a 2D box as its four corners,
    :func:`~collideworld.geometry.kernel_support.box_vertices_2d`; a polygon
    padded to its bucket of 4 or 8 vertices), then the normal flipped back for
    swapped pairs. Group 5 is polygons of more than 4 vertices.
    """
    n = other.shape[0]
    group = np.full(n, -1, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    second = np.empty(n, dtype=np.int64)
    counts = np.zeros(6, dtype=np.int64)
    for i in range(n):
        if not other[i]:
            continue
        a, b = i, n + i
        if kinds[a] > kinds[b]:
            a, b = b, a
        if kinds[b] != CAPSULE:
            continue  # (no such row: every other kind a table holds is one contact_rows takes)
        g = np.int64(kinds[a])
        if g == POLYGON and simple_n[a] > 4:
            g = 5
        group[i] = g
        first[i] = a
        second[i] = b
        counts[g] += 1
    for g in range(6):
        m = counts[g]
        if m == 0:
            continue
        idx = np.empty(m, dtype=np.int64)
        j = 0
        for i in range(n):
            if group[i] == g:
                idx[j] = i
                j += 1
        p0 = np.empty((m, dim))
        p1 = np.empty((m, dim))
        rb = np.empty(m)
        ra = np.empty(m)
        for j in range(m):
            b = second[idx[j]]
            w = which[b]
            _capsule_end(b, dim, position, rotation, lx_t[w], j, p0)
            _capsule_end(b, dim, position, rotation, ly_t[w], j, p1)
            rb[j] = radius[b]
            ra[j] = radius[first[idx[j]]]
        h = np.empty(m, dtype=np.bool_)
        nn = np.empty((m, dim))
        dd = np.empty(m)
        if g == CAPSULE:
            a0 = np.empty((m, dim))
            a1 = np.empty((m, dim))
            for j in range(m):
                a = first[idx[j]]
                w = which[a]
                _capsule_end(a, dim, position, rotation, lx_t[w], j, a0)
                _capsule_end(a, dim, position, rotation, ly_t[w], j, a1)
            _capsule_capsule(a0, a1, ra, p0, p1, rb, rule, h, nn, dd)
        elif g == HALFSPACE:
            nrm = np.empty((m, dim))
            off = np.empty(m)
            for j in range(m):
                a = first[idx[j]]
                off[j] = plane_offset[a]
                for k in range(dim):
                    nrm[j, k] = plane_normal[a, k]
            _halfspace_capsule(nrm, off, p0, p1, rb, rule, h, nn, dd)
        elif g == BALL:
            c = np.empty((m, dim))
            for j in range(m):
                a = first[idx[j]]
                for k in range(dim):
                    c[j, k] = position[a, k]
            _ball_capsule(c, ra, p0, p1, rb, rule, h, nn, dd)
        elif g == BOX and dim == 3:
            c = np.empty((m, 3))
            rot = np.empty((m, 3, 3))
            hh = np.empty((m, 3))
            for j in range(m):
                a = first[idx[j]]
                for k in range(3):
                    c[j, k] = position[a, k]
                    hh[j, k] = half[a, k]
                    for q in range(3):
                        rot[j, k, q] = rotation[a, k, q]
            _box_capsule_3d(c, rot, hh, p0, p1, rb, rule, h, nn, dd)
        else:
            size = 4 if g != 5 else 8
            verts = np.empty((m, size, 2))
            for j in range(m):
                a = first[idx[j]]
                if g == BOX:
                    # box_vertices_2d's corners and arithmetic: (c + r[:, 0] * lx) + r[:, 1] * ly
                    for v in range(4):
                        lx = (1.0 if v == 1 or v == 2 else -1.0) * half[a, 0]
                        ly = (1.0 if v >= 2 else -1.0) * half[a, 1]
                        verts[j, v, 0] = position[a, 0] + rotation[a, 0, 0] * lx + rotation[a, 0, 1] * ly
                        verts[j, v, 1] = position[a, 1] + rotation[a, 1, 0] * lx + rotation[a, 1, 1] * ly
                else:
                    # the posed vertices (padded by the last one, as the store's buckets are)
                    for v in range(size):
                        verts[j, v, 0] = world_x[v, a]
                        verts[j, v, 1] = world_y[v, a]
            _polygon_capsule(verts, p0, p1, rb, rule, h, nn, dd)
        for j in range(m):
            i = idx[j]
            hit[i] = h[j]
            depth[i] = dd[j]
            sign = -1.0 if first[i] != i else 1.0
            for k in range(dim):
                normal[i, k] = nn[j, k] * sign + 0.0
            other[i] = False


def contact_many(dim: int, kinds: NDArray[np.int64], n_verts: NDArray[np.int64], params: Floats, lx: Floats,
                 ly: Floats, which: NDArray[np.int64], poses: Floats) -> tuple[NDArray[np.bool_], Floats, Floats]:
    """Contacts of ``N`` pairs of posed shapes: row ``k`` against row ``N + k``, shapes from a table.

    Parameters
    ----------
    dim : {2, 3}
    kinds, n_verts : ndarray of int64, shape (S,)
        Per distinct shape: kind (0 to 4) and a simple polygon's vertex count.
    params : ndarray, shape (S, 9)
    lx, ly : ndarray, shape (S, 8)
        As in :func:`contact_pair`, one row per distinct shape.
    which : ndarray of int64, shape (2 N,)
        The shape (table row) of each body: the N a's, then the N b's.
    poses : ndarray, shape (2 N, 7)
        As in :func:`contact_pair`, one row per body.

    Returns
    -------
    hit : ndarray of bool, shape (N,)
    normal : ndarray, shape (N, D)
        From a towards b.
    depth : ndarray, shape (N,)

    Examples
    --------
    A unit disc against discs at distances 1.5 and 3:

    >>> import numpy as np
    >>> params = np.array([[1.0, 0, 0, 0, 0, 0, 0, 0, 1.0]])
    >>> poses = np.zeros((4, 7))
    >>> poses[:, 3] = 1.0
    >>> poses[2:, 0] = [1.5, 3.0]
    >>> hit, normal, depth = contact_many(2, np.array([1]), np.array([0]), params, np.zeros((1, 8)),
    ...                                   np.zeros((1, 8)), np.zeros(4, dtype=np.int64), poses)
    >>> hit.tolist(), depth[0].item()
    ([True, False], 0.5)
    """
    global _RULE
    if _RULE is None:
        _RULE = touch_rule()
    n = len(which) // 2
    hit = np.empty(n, dtype=np.bool_)
    normal = np.empty((n, dim))
    depth = np.empty(n)
    other = np.zeros(n, dtype=np.bool_)
    if has_rest_kind(kinds):
        _contact_many_rest(dim, kinds, n_verts, params, lx, ly, which, poses, _RULE, hit, normal, depth, other)
    else:
        _contact_many(dim, kinds, n_verts, params, lx, ly, which, poses, _RULE, hit, normal, depth, other)
    return hit, normal, depth


@njit(cache=True)
def table_rows(kind: int, values: Floats, kinds: NDArray[np.int64], params: Floats) -> None:
    """Table rows (kinds, params as :func:`contact_pair` takes them) of balls (kind 1, ``values`` (N, 1) radii)
    or boxes (kind 2, ``values`` (N, D) half extents), in one pass.

    A box's bounding radius is ``Box.bounding_radius``'s: the squares summed left to right, then a
    correctly rounded square root (the bits numpy's passes gave).

    Examples
    --------
    >>> import numpy as np
    >>> kinds, params = np.zeros(1, dtype=np.int64), np.zeros((1, 9))
    >>> table_rows(2, np.array([[3.0, 4.0]]), kinds, params)
    >>> int(kinds[0]), params[0].tolist()
    (2, [0.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0])
    """
    n, d = values.shape
    for i in range(n):
        kinds[i] = kind
        for k in range(9):
            params[i, k] = 0.0
        if kind == 2:
            sq = 0.0
            for k in range(d):
                h = values[i, k]
                params[i, 1 + k] = h
                sq = h * h if k == 0 else sq + h * h
            params[i, 8] = math.sqrt(sq)
        else:
            params[i, 0] = values[i, 0]
            params[i, 8] = values[i, 0]


@njit(cache=True)
def _pose_block(dim: int, pos: Floats, rot: Floats, poses: Floats, start: int) -> None:
    """Rows ``start ..`` of ``poses`` from positions (n, D) and angles (n, 1) or quaternions (n, 4).

    ``rot`` with no rows means no rotation. The numbers are the ones the numpy path wrote
    (``_contact_many_table`` before issue 28): ``math.cos``/``math.sin`` call the C library
    as ``np.cos``/``np.sin`` do here, and the quaternion's norm is the square root of its
    squares summed left to right, as ``np.linalg.norm`` sums a row of four (a test checks
    both on random rows).
    """
    n = pos.shape[0]
    turned = rot.shape[0] > 0
    for i in range(n):
        r = start + i
        for k in range(7):
            poses[r, k] = 0.0
        for k in range(dim):
            poses[r, k] = pos[i, k]
        if not turned:
            poses[r, 3] = 1.0
        elif dim == 2:
            a = rot[i, 0]
            poses[r, 3] = math.cos(a)
            poses[r, 4] = math.sin(a)
        else:
            w, x, y, z = rot[i, 0], rot[i, 1], rot[i, 2], rot[i, 3]
            norm = math.sqrt(w * w + x * x + y * y + z * z)
            poses[r, 3] = w / norm
            poses[r, 4] = x / norm
            poses[r, 5] = y / norm
            poses[r, 6] = z / norm


@njit(cache=True)
def _poses_of(dim: int, pos_a: Floats, rot_a: Floats, pos_b: Floats, rot_b: Floats) -> Floats:
    """The (2 N, 7) pose rows of both sides (for :func:`_contact_many_rest`, which takes pose rows)."""
    n = pos_a.shape[0]
    poses = np.empty((2 * n, 7))
    _pose_block(dim, pos_a, rot_a, poses, 0)
    _pose_block(dim, pos_b, rot_b, poses, n)
    return poses


@njit(cache=True)
def _contact_many_posed(dim: int, kinds_t: NDArray[np.int64], n_t: NDArray[np.int64], params_t: Floats,
                        lx_t: Floats, ly_t: Floats, which: NDArray[np.int64], pos_a: Floats, rot_a: Floats,
                        pos_b: Floats, rot_b: Floats, rule: tuple[float, float], hit: NDArray[np.bool_],
                        normal: Floats, depth: Floats) -> None:
    n = pos_a.shape[0]
    poses = np.empty((2 * n, 7))
    _pose_block(dim, pos_a, rot_a, poses, 0)
    _pose_block(dim, pos_b, rot_b, poses, n)
    _contact_many(dim, kinds_t, n_t, params_t, lx_t, ly_t, which, poses, rule, hit, normal, depth,
                  np.zeros(n, dtype=np.bool_))


def contact_many_posed(dim: int, kinds: NDArray[np.int64], n_verts: NDArray[np.int64], params: Floats, lx: Floats,
                       ly: Floats, which: NDArray[np.int64], pos_a: Floats, rot_a: Floats, pos_b: Floats,
                       rot_b: Floats) -> tuple[NDArray[np.bool_], Floats, Floats]:
    """:func:`contact_many` with the poses built inside the compiled call (no numpy pass per column).

    ``pos_a``, ``pos_b``: (N, D) C-contiguous positions; ``rot_a``, ``rot_b``: (N, 1) angles in 2D,
    (N, 4) quaternions (unit to ``QUATERNION_NORM_TOL``; normalised again here) in 3D, or no rows
    for no rotation. The poses are the bits :func:`contact_many`'s callers built with numpy.

    Examples
    --------
    A unit disc against discs at distances 1.5 and 3, the second turned (a disc does not care):

    >>> import numpy as np
    >>> params = np.array([[1.0, 0, 0, 0, 0, 0, 0, 0, 1.0]])
    >>> pos_b = np.array([[1.5, 0.0], [3.0, 0.0]])
    >>> hit, normal, depth = contact_many_posed(2, np.array([1]), np.array([0]), params, np.zeros((1, 8)),
    ...                                         np.zeros((1, 8)), np.zeros(4, dtype=np.int64), np.zeros((2, 2)),
    ...                                         np.zeros((0, 1)), pos_b, np.array([[0.0], [0.3]]))
    >>> hit.tolist(), depth[0].item()
    ([True, False], 0.5)
    """
    global _RULE
    if _RULE is None:
        _RULE = touch_rule()
    n = len(which) // 2
    hit = np.empty(n, dtype=np.bool_)
    normal = np.empty((n, dim))
    depth = np.empty(n)
    if has_rest_kind(kinds):
        # the capsule, segment, cylinder and cone rows: the one compiled entry point that holds their routines
        _contact_many_rest(dim, kinds, n_verts, params, lx, ly, which, _poses_of(dim, pos_a, rot_a, pos_b, rot_b),
                           _RULE, hit, normal, depth, np.empty(n, dtype=np.bool_))
    else:
        _contact_many_posed(dim, kinds, n_verts, params, lx, ly, which, pos_a, rot_a, pos_b, rot_b, _RULE, hit,
                            normal, depth)
    return hit, normal, depth
