"""Compiled twin of :mod:`collideworld.queries`: a whole point, box or shape query in one numba call.

The numpy path (:func:`collideworld.queries.overlapping`) asks the grid for
candidates, copies the probes and the candidates' rows into a scratch store
and runs the narrowphase on it: a few dozen array calls per query, which is
most of a single query's cost. Here one call does all of it, per probe::

    the probe's box (tight, widened by the touching tolerance)
    grid walk -> candidate boxes (spatial.compiled._query_boxes, local indices)
    + every half-space
    filter both ways (category & mask)
    bounding-ball reject, then the row routine of the canonical kind pair
    (geometry/compiled/contact_<a>_<b>.py, with the probe's own columns on one side)
    hits of one probe sorted by add order (serial)

The row routines read side a and side b from separate arrays, so a probe
never enters the store. Capsules (segments) and 3D hulls are tested by
the row loops of their batched kernels on one-row arrays
(:func:`_capsule_hull_test`), in a call of their own (:func:`settle_rows`,
on the pairs the query kernels leave as "other"): numba optimises a
callee's code again in every compiled caller, and these kernels in each
query entry point were most of the queries' compile time. Pairs the routines here do not cover
(polygons that are not simple, cylinders, cones, rounded shapes) come back
as "other" rows: cylinders, cones and rounded shapes are settled by
:mod:`.query_round` (its own entry point, for the same reason), the rest by
the numpy path. A new kind gets its branch in the exact tests of
:func:`_overlap` (batches) and :func:`_probe_test` (single queries), or in
:mod:`.query_round`, or stays on that fallback.

A batch (:func:`_overlap`) does the grid walks of all its probes first,
then their exact tests, each pass loading what it will read a few probes
ahead (``collideworld.spatial.compiled.prefetch``): the same pairs in
the same order, with the cache misses of several probes overlapping.

The index's arrays reach the kernels as one :class:`QueryArrays` (a numba
StructRef built per grid refresh), and a single point or ray query calls
its kernel's compiled entry point directly (:func:`entry_points`): a
dispatcher typing ~40 arrays cost more than a whole pymunk point query.

Probe kinds: 1 ball (a point is a ball of radius 0), 2 box (an axis-aligned
box for ``query_aabb``), 3 simple polygon (2D, its posed vertices given).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref
from numpy.typing import NDArray

from ..geometry.compiled import contact_ball_ball as _bb
from ..geometry.compiled import contact_ball_box as _bx
from ..geometry.compiled import contact_ball_capsule as _bc
from ..geometry.compiled import contact_ball_polygon as _bp
from ..geometry.compiled import contact_box_box_2d as _xx2
from ..geometry.compiled import contact_box_box_3d as _xx3
from ..geometry.compiled import contact_box_capsule_3d as _xc3
from ..geometry.compiled import contact_box_polygon as _xp
from ..geometry.compiled import contact_halfspace_ball as _hb
from ..geometry.compiled import contact_halfspace_box as _hx
from ..geometry.compiled import contact_halfspace_polygon as _hp
from ..geometry.compiled import contact_hull as _hl
from ..geometry.compiled import contact_polygon_capsule as _pc
from ..geometry.compiled import contact_polygon_polygon as _pp
from ..geometry.tolerance import SQUARES_UNDERFLOW
from ..spatial.compiled import (
    boxes_meet,
    cell_hash,
    next_axis,
    prefetch,
    ray_capsule,
    ray_halfspace,
    ray_polygon,
    ray_slot,
    segment_meets,
)
from ..spatial.grid import Floats32

__all__ = ["QueryArrays", "query_arrays", "entry_points", "scratch", "pack_rows", "packed_columns", "point_slots",
           "box_slots", "shape_slots",
           "ray_rows", "row_bounds", "settle_rows", "box_probe_rows", "shape_probe_rows", "HIT", "MISS", "OTHER",
           "RAY_OTHERS", "RAY_OTHER_COUNT"]

Index = NDArray[np.int64]
Floats = NDArray[np.float64]

# Kind codes of collideworld.bodies.Kind (a test checks they agree)
HALFSPACE, BALL, BOX, POLYGON, CAPSULE, HULL, COMPOUND = 0, 1, 2, 3, 4, 5, 6
#: what :func:`_probe_body` says of a pair
MISS, HIT, OTHER = 0, 1, 2
#: how many hits (and, apart, unsettled candidates) a single query's scratch holds; more: see the codes below
SINGLE_CAPACITY = 64
#: what :func:`_point_one` returns besides a slot (its one hit) and :func:`_ray_one` besides a count
NO_HIT, SEE_SCRATCH, TOO_MANY = -1, -2, -3
#: the single point and ray queries' scratch arrays: one tuple each (see :func:`scratch`)
Work = tuple[tuple[Any, ...], tuple[Any, ...]]
#: where in :func:`scratch`'s two tuples the single queries leave their results: in the point query's,
#: its hits, its unsettled candidates and their two counts; in the ray query's, its rows
POINT_HITS, POINT_OTHERS, POINT_COUNTS, RAY_ROWS = 17, 18, 19, 10
#: in the ray query's: the slots of the bodies it left to the caller (kinds it does not cast: hulls, polygons
#: that are not simple, rounded shapes), and their count
RAY_OTHERS, RAY_OTHER_COUNT = 11, 12
#: in the ray query's: a simple polygon's posed vertices (1, 8, 2), and ray_polygon's scratch of the same shape
RAY_POLYGON, RAY_POLYGON_SCRATCH = 13, 14

_ball_ball = _bb.row
_ball_box = _bx.row
_ball_polygon = _bp.row
_box_box_2d = _xx2.row
_box_box_3d = _xx3.row
_box_polygon = _xp.row
_halfspace_ball = _hb.row
_halfspace_box = _hx.row
_halfspace_points = _hp.row_planes
_polygon_polygon = _pp.row
# capsules (segments) and hulls: the batched kernels' row loops, on one-row arrays (see _capsule_hull_test)
_ball_capsule = _bc.rows
_box_capsule_3d = _xc3.rows
_polygon_capsule = _pc.rows
_ball_hull = _hl.ball_rows
_box_hull = _hl.box_rows


# -- the arrays of one query index, as one argument ------------------------------------------
#
# A single query used to pass ~40 arrays to its numba call; the dispatcher types and unboxes
# each (3.5-4 us a call even when the kernel does nothing, measured), more than a whole
# pymunk point query. A StructRef holding them (built once per grid refresh: it references the
# grid's and the store's arrays, copies none) is one argument: ~0.5 us a call through the
# dispatcher. Field order is the order of the kernels' arguments below.

#: grid fields (a GridIndex's arrays), then the store's columns the kernels read, then the touching rule
QUERY_FIELDS = ("lo", "hi", "cell", "gmask", "starts", "entries", "elo", "ehi", "big", "n_gridded", "handles",
                "max_cells", "stamp", "planes", "glo", "ghi",
                "kind", "simple", "position", "rotation", "radius", "half", "plane_normal", "plane_offset",
                "bound_radius", "world_x", "world_y", "poly", "simple_n", "category", "bits", "serial",
                "part_slots", "parts_at", "n_parts", "seg0", "seg1", "hull", "hull_verts", "hull_normals", "hull_fv",
                "hull_ee", "hull_ef", "rel", "floor", "point_work", "ray_work")


@structref.register
class QueryArraysType(types.StructRef):
    """numba type of :class:`QueryArrays` (its fields' types are those of the arrays it was built from)."""

    def preprocess_fields(self, fields: Any) -> Any:
        return tuple((name, types.unliteral(typ)) for name, typ in fields)  # type: ignore[no-untyped-call]


class QueryArrays(structref.StructRefProxy):
    """The grid's and the store's arrays of one query index, held as one numba argument (:data:`QUERY_FIELDS`).

    Made by :func:`query_arrays`; read only by the kernels here.

    Examples
    --------
    >>> from collideworld import Circle, World
    >>> from collideworld.queries import QueryIndex
    >>> w = World(dim=2, backend="compiled")
    >>> w.add(Circle(1.0))
    0
    >>> index = QueryIndex(w._store, "compiled")
    >>> _ = index.refresh()
    >>> isinstance(index.arrays, QueryArrays)
    True
    """


structref.define_constructor(QueryArrays, QueryArraysType, list(QUERY_FIELDS))  # type: ignore[no-untyped-call]
structref.define_boxing(QueryArraysType, QueryArrays)  # type: ignore[no-untyped-call]


@njit(cache=True)
def _make_query_arrays(lo: Floats, hi: Floats, cell: float, gmask: int, starts: Index, entries: Index, elo: Floats32,
                       ehi: Floats32, big: Index, n_gridded: int, handles: Index, max_cells: int, stamp: Index,
                       planes: Index, glo: Floats, ghi: Floats, kind: Any, simple: Any, position: Floats,
                       rotation: Floats, radius: Floats, half: Floats, plane_normal: Floats, plane_offset: Floats,
                       bound_radius: Floats, world_x: Floats, world_y: Floats, poly: Index, simple_n: Index,
                       category: Any, bits: Any, serial: Index, part_slots: Index, parts_at: Index, n_parts: Index,
                       seg0: Floats, seg1: Floats, hull: Index, hull_verts: Floats, hull_normals: Floats,
                       hull_fv: Index, hull_ee: Index, hull_ef: Index,
                       rel: float, floor: float, point_work: Any, ray_work: Any) -> Any:
    # (a cached constructor: StructRefProxy's own is compiled afresh in every process)
    made = QueryArrays(lo, hi, cell, gmask, starts, entries, elo, ehi,  # type: ignore[no-untyped-call]
                       big, n_gridded, handles, max_cells, stamp, planes, glo, ghi, kind, simple, position,
                       rotation, radius, half, plane_normal, plane_offset, bound_radius, world_x, world_y, poly,
                       simple_n, category, bits, serial, part_slots, parts_at, n_parts, seg0, seg1, hull,
                       hull_verts, hull_normals, hull_fv, hull_ee, hull_ef, rel, floor, point_work, ray_work)
    return made


@njit(cache=True)
def _pack_rows(slots: Index, kind: Any, serial: Index, position: Floats, rotation: Floats, half: Floats,
               radius: Floats, bound_radius: Floats, packed: Floats, ints: Index) -> None:
    dim = position.shape[1]
    for t in range(slots.shape[0]):
        s = slots[t]
        ints[s, 0] = kind[s]
        ints[s, 1] = serial[s]
        c = 2
        for k in range(dim):
            packed[s, c + k] = position[s, k]
        c += dim
        for a in range(dim):
            for b in range(dim):
                packed[s, c + a * dim + b] = rotation[s, a, b]
        c += dim * dim
        for k in range(dim):
            packed[s, c + k] = half[s, k]
        c += dim
        packed[s, c] = radius[s]
        packed[s, c + 1] = bound_radius[s]


def pack_rows(slots: Index, kind: Any, serial: Index, position: Floats, rotation: Floats, half: Floats,
              radius: Floats, bound_radius: Floats, packed: Floats) -> None:
    """Copy rows ``slots`` of the store's columns into ``packed`` (its layout: :func:`packed_columns`).

    Examples
    --------
    >>> import numpy as np
    >>> packed = np.zeros((2, 16))
    >>> pack_rows(np.array([1]), np.array([2, 1], dtype=np.int8), np.array([7, 8]), np.ones((2, 2)),
    ...           np.tile(np.eye(2), (2, 1, 1)), np.full((2, 2), 0.5), np.zeros(2), np.full(2, 0.7), packed)
    >>> kind, serial, position, rotation, half, radius, bound = packed_columns(packed, 2)
    >>> int(kind[1]), int(serial[1]), position[1].tolist(), rotation[1].tolist(), float(bound[1]), int(kind[0])
    (1, 8, [1.0, 1.0], [[1.0, 0.0], [0.0, 1.0]], 0.7, 0)
    """
    _pack_rows(slots, kind, serial, position, rotation, half, radius, bound_radius, packed, packed.view(np.int64))


def packed_columns(packed: Floats, dim: int) -> tuple[Any, ...]:
    """Views of a packed row table as the store's columns: ``(kind, serial, position, rotation, half, radius,
    bound_radius)``.

    Each row holds, side by side, ``kind`` and ``serial`` (int64), then the
    position (D), the rotation (D x D, row-major), the half extents (D), the
    radius and the bounding radius (float64). The views are strided (a row
    apart from one body to the next): the kernels index them as they index
    the store's columns.

    Examples
    --------
    >>> import numpy as np
    >>> cols = packed_columns(np.zeros((3, 24)), 3)
    >>> [c.shape for c in cols]
    [(3,), (3,), (3, 3), (3, 3, 3), (3, 3), (3,), (3,)]
    """
    n, width = packed.shape
    ints = packed.view(np.int64)
    at = 2 + dim
    rotation = np.lib.stride_tricks.as_strided(packed[:, at:], shape=(n, dim, dim), strides=(width * 8, dim * 8, 8))
    at += dim * dim
    return (ints[:, 0], ints[:, 1], packed[:, 2:2 + dim], rotation, packed[:, at:at + dim], packed[:, at + dim],
            packed[:, at + dim + 1])


def scratch(dim: int) -> Work:
    """The small arrays the single point and ray queries' kernels work in, made once per index.

    numba allocates an array in ~15 ns; these are made once. Two tuples, one
    per kernel: loading a tuple of arrays from the index's QueryArrays takes
    a reference to every array in it (an atomic count each, ~5 ns, measured
    0.32 us for one tuple of 33), so each kernel gets only its own. Only the
    single queries' kernels (:func:`_point_one`, :func:`_ray_one`) use them,
    under the GIL (they do not release it), so one set per index is enough.

    Examples
    --------
    >>> point_work, ray_work = scratch(2)
    >>> len(point_work), len(ray_work)
    (20, 15)
    """
    f, i = np.float64, np.int64
    # the single queries' own stamp tags, counting down from -2: the grid's (GridIndex.take_tags) are >= 0
    # and -1 is "never stamped", so the two never meet, and a single query passes no tag (one counter
    # shared by both tuples)
    tag = np.full(1, -2, dtype=i)
    point = (np.empty((1, dim)), np.empty((1, dim)), np.zeros((1, dim, dim)), np.zeros(1), np.empty(1),  # probe row
             np.empty((1, dim)), np.empty((1, dim)), np.empty((0, 1)),  # its box, no polygon columns
             np.empty(1, dtype=np.bool_), np.empty((1, dim)), np.empty(1),  # hit, normal, depth
             np.empty((3, 3)), np.empty(3), np.empty(3), np.zeros(3, dtype=i), np.zeros(3, dtype=i),  # 3D box, cells
             tag,
             # the results, read by the caller after the call (a returned array costs ~0.3 us to make
             # and box): hits, others, [hits, others]
             np.empty(SINGLE_CAPACITY, dtype=i), np.empty(SINGLE_CAPACITY, dtype=i), np.zeros(2, dtype=i))
    ray = (np.empty(dim), np.empty(dim), np.empty((1, dim)), np.empty((1, dim)),  # o, d, as rows
           np.zeros(3, dtype=i), np.zeros(3, dtype=i), np.zeros(3, dtype=i), np.zeros(3, dtype=f),
           np.zeros(3, dtype=f),  # the walk: cur, last, step, tnext, tdelta
           tag, np.empty((SINGLE_CAPACITY, 2 + 2 * dim)),  # the hits' rows
           np.empty(SINGLE_CAPACITY, dtype=i), np.zeros(1, dtype=i),  # the bodies of other kinds met, their count
           np.empty((1, 8, 2)), np.empty((1, 8, 2)))  # a simple polygon's vertices (SIMPLE_POLYGON_VERTICES)
    return point, ray


#: QueryArrays type -> (the type, (point entry, ray entry)): see :func:`entry_points`
_ENTRIES: dict[int, tuple[Any, tuple[Any, Any, Any]]] = {}


def entry_points(q: QueryArrays, tag: int, dim: int) -> tuple[Any, Any, Any]:
    """The compiled entry points of :func:`_point_one`, :func:`_ray_one` and :func:`_shapes_q` for ``q``'s type.

    A dispatcher call types every argument first (its typeof of a StructRef
    is a Python call): ~0.5 us of a ~2 us single query. The entry point of
    the specialisation for ``q``'s type unboxes the arguments by that
    signature without typing them, so its callers must pass the same
    Python kinds as here: floats, a bool, ints (and C-contiguous float64
    arrays of the same dimensions for the shapes kernel). Compiles (or loads from the
    cache) the specialisations on first sight of a type, with calls that
    test nothing (filter 0); ``tag``: ``2`` unused stamp tags of the grid
    (for the shapes kernel's call). numba types are interned (one object per type):
    the type's id is its key, and the entry keeps it alive.

    Examples
    --------
    >>> from collideworld import Circle, World
    >>> from collideworld.queries import QueryIndex
    >>> w = World(dim=2, backend="compiled")
    >>> w.add(Circle(1.0))
    0
    >>> index = QueryIndex(w._store, "compiled")
    >>> grid = index.refresh()
    >>> point, ray, shapes = entry_points(index.arrays, grid.take_tags(1), 2)
    >>> point(index.arrays, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, True, 1, 1)   # the only body met: slot 0
    0
    """
    # a private use, numba's: a StructRef proxy keeps its numba type in ``_type``, which is what
    # numba.typeof(q) returns for one too, through numba's typeof dispatch that this lookup skips
    qt = q._type  # type: ignore[attr-defined]
    found = _ENTRIES.get(id(qt))
    if found is not None and found[0] is qt:
        return found[1]
    fns = []
    none = np.zeros((0, dim))
    for disp, args in ((_point_one, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, True, 0, 0)),
                       (_ray_one, (0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0, 0, 1e-300, False)),
                       (_shapes_q, (1, 0, none, np.zeros(0), np.zeros(0), np.zeros((0, 4)), np.zeros(0), np.zeros(0),
                                    0.0, np.zeros(dim), 0.0, 0, 0, tag, np.empty(0, dtype=np.int64)))):
        disp(q, *args)
        compiled = disp.overloads.get(tuple(disp.typeof_pyval(a) for a in (q, *args)))
        fns.append(disp if compiled is None else compiled.entry_point)  # type: ignore[attr-defined]
    entries = (fns[0], fns[1], fns[2])
    _ENTRIES[id(qt)] = (qt, entries)
    return entries

@njit(cache=True)
def _set_moving_fields(q: Any, big: Index, n_gridded: int, planes: Index, glo: Floats, ghi: Floats) -> None:
    q.big = big
    q.n_gridded = n_gridded
    q.planes = planes
    q.glo = glo
    q.ghi = ghi


def set_moving_fields(q: QueryArrays, big: Index, n_gridded: int, planes: Index, glo: Floats, ghi: Floats) -> None:
    """Set in place the fields of ``q`` a grid patch replaces: the big list, its count, the half-spaces, the bounds.

    A patch after a busy step replaces these (the big list grows, the bounds
    widen) and nothing else: setting them costs one call, where a new
    :class:`QueryArrays` and its entry points' lookup cost ~0.1 ms (issue 28).
    The arrays must have the types ``q`` was made with.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle, World
    >>> from collideworld.queries import QueryIndex
    >>> w = World(dim=2, backend="compiled")
    >>> w.add(Circle(1.0))
    0
    >>> index = QueryIndex(w._store, "compiled")
    >>> g = index.refresh()
    >>> set_moving_fields(index.arrays, g.big, g.n_gridded, index.planes, g.glo, g.ghi)
    >>> index.point_fn(index.arrays, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, True, 1, 1)
    0
    """
    _set_moving_fields(q, big, n_gridded, planes, glo, ghi)


def query_arrays(grid_args: tuple[Any, ...], body_args: tuple[Any, ...], rule: tuple[float, float],
                 work: Work | None = None) -> QueryArrays:
    """A :class:`QueryArrays` over ``grid_args`` (the 16 grid fields of :data:`QUERY_FIELDS`) and ``body_args``.

    ``work``: the :func:`scratch` arrays (made here if not given).

    Examples
    --------
    >>> from collideworld import Circle, World
    >>> from collideworld.queries import QueryIndex
    >>> w = World(dim=2, backend="compiled")
    >>> w.add(Circle(1.0))
    0
    >>> index = QueryIndex(w._store, "compiled")
    >>> _ = index.refresh()
    >>> isinstance(query_arrays(index.grid_fields(), index.body_args(), index.rule), QueryArrays)
    True
    """
    work = scratch(body_args[2].shape[1]) if work is None else work
    made: QueryArrays = _make_query_arrays(*grid_args, *body_args, *rule, *work)  # type: ignore[call-arg]
    return made


@njit(cache=True)
def _probe_bounds(pk: int, ppos: Floats, prot: Floats, prad: Floats, phalf: Floats, pwx: Floats, pwy: Floats,
                  rule: tuple[float, float], qlo: Floats, qhi: Floats) -> None:
    """Boxes of the probe rows, widened like tight boxes (the arithmetic of ``queries.probe_bounds``)."""
    m, dim = ppos.shape
    for r in range(m):
        scale = 0.0
        for k in range(dim):
            if pk == BALL:
                lo = ppos[r, k] - prad[r]
                hi = ppos[r, k] + prad[r]
            elif pk == BOX:
                ext = 0.0
                for j in range(dim):
                    ext += abs(prot[r, k, j]) * phalf[r, j]
                lo = ppos[r, k] - ext
                hi = ppos[r, k] + ext
            else:
                col = pwx if k == 0 else pwy
                lo = col[0, r]
                hi = col[0, r]
                for v in range(1, col.shape[0]):
                    lo = min(lo, col[v, r])
                    hi = max(hi, col[v, r])
            qlo[r, k] = lo
            qhi[r, k] = hi
            scale = max(scale, max(abs(lo), abs(hi)))
        tol = rule[0] * max(rule[1], scale)
        for k in range(dim):
            qlo[r, k] -= tol
            qhi[r, k] += tol


@njit(cache=True)
def _grown(arr: Index, n: int) -> Index:
    """``arr`` with twice the room, its first ``n`` entries kept (buffers whose size no pass bounds)."""
    out = np.empty(max(16, 2 * arr.shape[0]), dtype=np.int64)
    # a loop, not out[:n] = arr[:n]: numba's slice assignment compiles a shape-mismatch error
    # with a formatted message (str of ints, ~2 s of CPU on a cold cache) into its caller
    for k in range(n):
        out[k] = arr[k]
    return out


#: how many probes (or candidates) ahead the batched walks load their next data (see spatial.compiled.prefetch):
#: enough misses in flight to cover a memory latency, few enough that the lines are still cached when used
_AHEAD = 8
#: probes over more cells than this are not prefetched (rare: each cell is a few lines)
_PREFETCH_CELLS = 4
#: a probe's walk finds the bodies it met already by a look over its candidates while they are fewer
#: than this, then by stamps (10,000 placements among 100,000 boxes: 2.68 -> 2.54 ms, warm)
_LOOK_AMONG = 16


@njit(cache=True)
def _probe_keys(lo0: float, lo1: float, lo2: float, hi0: float, hi1: float, hi2: float, cell: float, gmask: int,
                dim: int) -> tuple[int, int, int, int, int]:
    """The bucket keys of the cells of probe box ``[lo, hi]``, for loading them ahead (a hint): ``(k0..k3, count)``.

    ``count`` 0: the box spans more than ``_PREFETCH_CELLS`` cells (not loaded
    ahead). Scalars in and out: a helper given arrays counts references to
    them (atomic updates; on several threads, cache lines passed between cores).
    """
    a0 = math.floor(lo0 / cell)
    a1 = math.floor(hi0 / cell)
    b0 = math.floor(lo1 / cell)
    b1 = math.floor(hi1 / cell)
    z0 = math.floor(lo2 / cell) if dim == 3 else 0
    z1 = math.floor(hi2 / cell) if dim == 3 else 0
    if (a1 - a0 + 1) * (b1 - b0 + 1) * (z1 - z0 + 1) > _PREFETCH_CELLS:
        return 0, 0, 0, 0, 0
    k0 = k1 = k2 = k3 = 0
    count = 0
    for a in range(a0, a1 + 1):
        for b in range(b0, b1 + 1):
            for c in range(z0, z1 + 1):
                key = cell_hash(a, b, c, dim, gmask)
                if count == 0:
                    k0 = key
                elif count == 1:
                    k1 = key
                elif count == 2:
                    k2 = key
                else:
                    k3 = key
                count += 1
    return k0, k1, k2, k3, count


#: a hull's plane test decides only this many touching tolerances clear of touching (see _hull_planes)
_PLANE_MARGIN = 1e5


@njit(cache=True)
def _hull_planes(q: Any, u: int, pk: int, r: int, ppos: Floats, prot: Floats, prad: Floats, phalf: Floats,
                 rule: tuple[float, float]) -> int:
    """MISS, HIT or OTHER (undecided): ball or box probe row ``r`` against hull ``u`` by separating planes.

    The hull lies in ``n . x <= n . v`` for each of its faces (local normal
    ``n``, a vertex ``v`` of the face), so a probe whose nearest point along
    ``n`` (the centre less the radius, or less the box's support
    ``sum_k |n . a_k| h_k``) is beyond one plane is apart; a box is also apart
    when the hull's vertices all lie beyond one of its own faces (the face
    axes of the SAT, Ericson, Real-Time Collision Detection 4.4 / 5.2.1). A
    probe whose centre is inside every plane, or that holds a hull vertex,
    overlaps it. Done in the hull's frame (probe taken to it by ``R^T``),
    with its own rounding: it decides only ``_PLANE_MARGIN`` touching
    tolerances away from touching, where the exact test (GJK, then EPA or
    the SAT) cannot answer otherwise; near touching, and when only an edge
    pair separates, it says OTHER and the exact test decides as before.
    """
    h = q.hull[u]
    lv, ln, fv = q.hull_verts, q.hull_normals, q.hull_fv
    position, rotation = q.position, q.rotation
    vx = ppos[r, 0] - position[u, 0]
    vy = ppos[r, 1] - position[u, 1]
    vz = ppos[r, 2] - position[u, 2]
    cx = rotation[u, 0, 0] * vx + rotation[u, 1, 0] * vy + rotation[u, 2, 0] * vz
    cy = rotation[u, 0, 1] * vx + rotation[u, 1, 1] * vy + rotation[u, 2, 1] * vz
    cz = rotation[u, 0, 2] * vx + rotation[u, 1, 2] * vy + rotation[u, 2, 2] * vz
    box = pk == BOX
    # the box's unit axes (columns of its rotation) in the hull's frame
    u00 = u01 = u02 = u10 = u11 = u12 = u20 = u21 = u22 = 0.0
    h0 = h1 = h2 = 0.0
    reach = prad[r]
    if box:
        for m in range(3):
            b0, b1, b2 = prot[r, 0, m], prot[r, 1, m], prot[r, 2, m]
            x = rotation[u, 0, 0] * b0 + rotation[u, 1, 0] * b1 + rotation[u, 2, 0] * b2
            y = rotation[u, 0, 1] * b0 + rotation[u, 1, 1] * b1 + rotation[u, 2, 1] * b2
            z = rotation[u, 0, 2] * b0 + rotation[u, 1, 2] * b1 + rotation[u, 2, 2] * b2
            if m == 0:
                u00, u01, u02 = x, y, z
            elif m == 1:
                u10, u11, u12 = x, y, z
            else:
                u20, u21, u22 = x, y, z
        h0, h1, h2 = phalf[r, 0], phalf[r, 1], phalf[r, 2]
        reach = h0 + h1 + h2
    rel, floor = rule
    scale = max(max(abs(ppos[r, 0]), abs(ppos[r, 1]), abs(ppos[r, 2])) + reach,
                max(abs(position[u, 0]), abs(position[u, 1]), abs(position[u, 2])) + q.bound_radius[u])
    margin = _PLANE_MARGIN * rel * max(floor, scale)
    worst = -math.inf
    for f in range(ln.shape[1]):
        nx = ln[h, f, 0]
        ny = ln[h, f, 1]
        nz = ln[h, f, 2]
        v = fv[h, f]
        above = nx * (cx - lv[h, v, 0]) + ny * (cy - lv[h, v, 1]) + nz * (cz - lv[h, v, 2])
        if box:
            out = above - (abs(nx * u00 + ny * u01 + nz * u02) * h0 + abs(nx * u10 + ny * u11 + nz * u12) * h1
                           + abs(nx * u20 + ny * u21 + nz * u22) * h2)
        else:
            out = above - prad[r]
        if out > margin:
            return MISS
        worst = max(worst, above)
    if worst < -margin:
        return HIT
    if not box and not prad[r] > margin:
        return OTHER
    # the hull's vertices against the probe: one inside it is a hit; for a box, all beyond one face a miss
    lo0 = lo1 = lo2 = math.inf
    hi0 = hi1 = hi2 = -math.inf
    inner = (prad[r] - margin) * (prad[r] - margin)
    for v in range(lv.shape[1]):
        wx = lv[h, v, 0] - cx
        wy = lv[h, v, 1] - cy
        wz = lv[h, v, 2] - cz
        if box:
            s0 = u00 * wx + u01 * wy + u02 * wz
            s1 = u10 * wx + u11 * wy + u12 * wz
            s2 = u20 * wx + u21 * wy + u22 * wz
            if abs(s0) < h0 - margin and abs(s1) < h1 - margin and abs(s2) < h2 - margin:
                return HIT
            lo0, hi0 = min(lo0, s0), max(hi0, s0)
            lo1, hi1 = min(lo1, s1), max(hi1, s1)
            lo2, hi2 = min(lo2, s2), max(hi2, s2)
        elif wx * wx + wy * wy + wz * wz < inner:
            return HIT
    if box and (lo0 > h0 + margin or hi0 < -h0 - margin or lo1 > h1 + margin or hi1 < -h1 - margin
                or lo2 > h2 + margin or hi2 < -h2 - margin):
        return MISS
    return OTHER


@njit(cache=True)
def _capsule_hull_test(q: Any, u: int, pk: int, pn: int, r: int, ppos: Floats, prot: Floats, prad: Floats,
                       phalf: Floats, pwx: Floats, pwy: Floats, rule: tuple[float, float]) -> bool:
    """Whether probe row ``r`` (ball, box or simple polygon) touches body ``u``, a capsule (segment) or a hull.

    The narrowphase's grouped path for these pairs, on one row: the probe is
    side a (its kind is the lower), the capsule's world end points and the
    hull's world rows are made with the store's arithmetic
    (``BodyStore.capsule_rows``: ``R @ p + t``, numpy's einsum order, as
    ``contact_pair._capsule_end``; ``BodyStore.hull_arrays``: local rows times
    ``R^T``), a 2D box probe is its four corners (``box_vertices_2d``) and a
    polygon probe is padded to its bucket of 4 or 8 vertices, then the row
    loop of the kernel the grouped path calls (``rows`` of
    ``contact_<a>_capsule``, ``contact_hull``'s) runs on one-row C arrays, the
    layout the batched calls pass (one compiled specialisation each). A
    separate function, not written out in :func:`_overlap`: these pairs are
    few, their kernels large, and a call costs little beside them.
    """
    dim = ppos.shape[1]
    hit = np.empty(1, dtype=np.bool_)
    nn = np.empty((1, dim))
    dd = np.empty(1)
    position, rotation = q.position, q.rotation
    ra = np.empty(1)
    ra[0] = prad[r]
    c = np.empty((1, dim))
    for k in range(dim):
        c[0, k] = ppos[r, k]
    if q.kind[u] == CAPSULE:
        p0 = np.empty((1, dim))
        p1 = np.empty((1, dim))
        s0, s1 = q.seg0, q.seg1
        for i in range(dim):
            if dim == 3:
                a0 = (rotation[u, i, 0] * s0[u, 0] + rotation[u, i, 2] * s0[u, 2]) + rotation[u, i, 1] * s0[u, 1]
                a1 = (rotation[u, i, 0] * s1[u, 0] + rotation[u, i, 2] * s1[u, 2]) + rotation[u, i, 1] * s1[u, 1]
            else:
                a0 = rotation[u, i, 0] * s0[u, 0] + rotation[u, i, 1] * s0[u, 1]
                a1 = rotation[u, i, 0] * s1[u, 0] + rotation[u, i, 1] * s1[u, 1]
            p0[0, i] = position[u, i] + a0
            p1[0, i] = position[u, i] + a1
        rb = np.empty(1)
        rb[0] = q.radius[u]
        if pk == BALL:
            _ball_capsule(c, ra, p0, p1, rb, rule, hit, nn, dd)
        elif pk == BOX and dim == 3:
            rot = np.empty((1, 3, 3))
            hh = np.empty((1, 3))
            for k in range(3):
                hh[0, k] = phalf[r, k]
                for j in range(3):
                    rot[0, k, j] = prot[r, k, j]
            _box_capsule_3d(c, rot, hh, p0, p1, rb, rule, hit, nn, dd)
        else:
            size = 4 if pk == BOX or pn <= 4 else 8
            verts = np.empty((1, size, 2))
            for v in range(size):
                if pk == BOX:
                    # box_vertices_2d's corners and arithmetic: (c + r[:, 0] * lx) + r[:, 1] * ly
                    lx = (1.0 if v == 1 or v == 2 else -1.0) * phalf[r, 0]
                    ly = (1.0 if v >= 2 else -1.0) * phalf[r, 1]
                    verts[0, v, 0] = ppos[r, 0] + prot[r, 0, 0] * lx + prot[r, 0, 1] * ly
                    verts[0, v, 1] = ppos[r, 1] + prot[r, 1, 0] * lx + prot[r, 1, 1] * ly
                else:  # the posed vertices, padded by the last one
                    verts[0, v, 0] = pwx[v, r]
                    verts[0, v, 1] = pwy[v, r]
            _polygon_capsule(verts, p0, p1, rb, rule, hit, nn, dd)
        met: bool = hit[0]
        return met
    # a hull (3D): its face planes first (most candidates are clear of touching), else
    # its table row posed, world = local @ R^T + t, normals = local @ R^T
    plane = _hull_planes(q, u, pk, r, ppos, prot, prad, phalf, rule)
    if plane != OTHER:
        return plane == HIT
    h = q.hull[u]
    lv, ln = q.hull_verts, q.hull_normals
    nv, nf, ne = lv.shape[1], ln.shape[1], q.hull_ee.shape[1]
    hv = np.empty((1, nv, 3))
    hn = np.empty((1, nf, 3))
    fv = np.empty((1, nf), dtype=np.int64)
    ee = np.empty((1, ne, 2), dtype=np.int64)
    ef = np.empty((1, ne, 2), dtype=np.int64)
    for v in range(nv):
        for i in range(3):
            hv[0, v, i] = (lv[h, v, 0] * rotation[u, i, 0] + lv[h, v, 1] * rotation[u, i, 1]
                           + lv[h, v, 2] * rotation[u, i, 2]) + position[u, i]
    for f in range(nf):
        fv[0, f] = q.hull_fv[h, f]
        for i in range(3):
            hn[0, f, i] = (ln[h, f, 0] * rotation[u, i, 0] + ln[h, f, 1] * rotation[u, i, 1]
                           + ln[h, f, 2] * rotation[u, i, 2])
    for e in range(ne):
        for j in range(2):
            ee[0, e, j] = q.hull_ee[h, e, j]
            ef[0, e, j] = q.hull_ef[h, e, j]
    use_epa: Any = np.bool_(True)  # (as the batched call: not a literal, one compile)
    if pk == BALL:
        _ball_hull(c, ra, hv, hn, fv, ee, ef, rule, use_epa, hit, nn, dd)
    else:
        rot = np.empty((1, 3, 3))
        hh = np.empty((1, 3))
        for k in range(3):
            hh[0, k] = phalf[r, k]
            for j in range(3):
                rot[0, k, j] = prot[r, k, j]
        _box_hull(c, rot, hh, hv, hn, fv, ee, ef, rule, use_epa, hit, nn, dd)
    touched: bool = hit[0]
    return touched


@njit(cache=True)
def _capsule_bound(position: Floats, rotation: Floats, radius: Floats, seg0: Floats, seg1: Floats, u: int, pk: int,
                   r: int, ppos: Floats, prad: Floats, phalf: Floats, pbound: Floats, rel: float) -> int:
    """MISS, HIT or OTHER (undecided) for probe row ``r`` against capsule (segment) ``u``, by the distance ``d``
    from the probe's centre to the capsule's segment.

    The probe lies within its bounding ball (``pbound``) and holds a ball of its
    inner radius about its centre (a ball probe's radius, a box probe's least
    half extent; a polygon probe: none), and the capsule is its segment grown
    by its radius, so ``d > pbound + radius`` is a miss and ``d < inner +
    radius`` a hit (the triangle inequality). Each bound is kept a margin
    away from touching (``1e-9`` of the coordinates' magnitude, far above the
    rounding here and the kernels' touching tolerance, ``rel`` of it), so it
    never decides a pair the exact test (``_capsule_hull_test``) could
    answer otherwise; the pairs in between (and exact touching) stay OTHER
    for it. A 2D segment is a chain's piece: a chain's candidates are
    three or more segments each, and points almost never touch one.
    """
    dim = ppos.shape[1]
    # the end points posed as R @ p + t (any rounding here is far below the margin)
    dd = 0.0
    wd = 0.0
    size = 0.0
    for i in range(dim):
        a0 = position[u, i]
        a1 = position[u, i]
        for j in range(dim):
            a0 += rotation[u, i, j] * seg0[u, j]
            a1 += rotation[u, i, j] * seg1[u, j]
        e = a1 - a0
        dd += e * e
        wd += (ppos[r, i] - a0) * e
        size = max(size, abs(a0), abs(a1), abs(ppos[r, i]))
    t = 0.0
    if dd > 0.0:
        t = min(1.0, max(0.0, wd / dd))
    dist2 = 0.0
    for i in range(dim):
        a0 = position[u, i]
        a1 = position[u, i]
        for j in range(dim):
            a0 += rotation[u, i, j] * seg0[u, j]
            a1 += rotation[u, i, j] * seg1[u, j]
        g = ppos[r, i] - (a0 + t * (a1 - a0))
        dist2 += g * g
    reach = pbound[r] + radius[u]
    margin = (1e-9 + 2.0 * rel) * (size + reach)
    far = reach + margin
    if dist2 > far * far:
        return MISS
    inner = -1.0
    if pk == BALL:
        inner = prad[r]
    elif pk == BOX:
        inner = phalf[r, 0]
        for k in range(1, dim):
            inner = min(inner, phalf[r, k])
    near = inner + radius[u] - margin
    if inner >= 0.0 and near > 0.0 and dist2 < near * near:
        return HIT
    return OTHER


@njit(cache=True)
def _overlap(lo: Floats, hi: Floats, cell: float, gmask: int, starts: Index, entries: Index,
             elo: Floats32, ehi: Floats32, big: Index,
             n_gridded: int, handles: Index, max_cells: int, stamp: Index, base: int, planes: Index,
             kind: Any, simple: Any, position: Floats, rotation: Floats, radius: Floats, half: Floats,
             plane_normal: Floats, plane_offset: Floats, bound_radius: Floats, world_x: Floats, world_y: Floats,
             poly: Index, simple_n: Index, category: Any, bits: Any, serial: Index,
             part_slots: Index, parts_at: Index, n_parts: Index,
             pk: int, pn: int, ppos: Floats, prot: Floats, prad: Floats, phalf: Floats, pbound: Floats,
             pwx: Floats, pwy: Floats, qlo: Floats, qhi: Floats, cat: int, msk: int,
             rule: tuple[float, float], q: Any) -> tuple[Index, Index, Index, Index]:
    # The row index as np.int64 and the probe's vertex planes as strided views (as the
    # store's): numba compiles a row kernel once per literal value and array layout
    # it meets, and the World's step calls them so
    row0 = np.int64(0)
    pvx, pvy = pwx[:, :pwx.shape[1]], pwy[:, :pwy.shape[1]]
    # and the probe's and the bodies' rows as strided views too (x[..., ::1]), whatever layout they
    # came in: the row routines then have one layout to compile for (contact_slots passes the same)
    vpos, vrot, vrad, vhalf = ppos[..., ::1], prot[..., ::1], prad[..., ::1], phalf[..., ::1]
    bpos, brot, brad, bhalf = position[..., ::1], rotation[..., ::1], radius[..., ::1], half[..., ::1]
    world_x, world_y = world_x[..., ::1], world_y[..., ::1]
    # Two passes: every probe's grid candidates (the walk of spatial.compiled._query_boxes), then
    # the exact tests of each probe's candidates. Both read arrays larger than the caches at random
    # places (a probe's bucket, a candidate's rows), and a walk that waits for each of those misses in
    # turn is bound by them (10,000 points among 100,000 bodies, after other work evicted the caches:
    # 5.2 ms in one pass, 2.7 ms in these two, measured): split so, each pass knows what it will read
    # a few probes (candidates) ahead and starts loading it (prefetch), and the misses overlap. The
    # candidate list and the output buffers grow by doubling (a count would need a second walk and a
    # second exact test of every candidate, which is most of the work): log2 of the hits
    # allocations, none per pair.
    m, dim = ppos.shape
    n = lo.shape[0]
    n_p = planes.shape[0]
    rel = rule[0]
    out_q = np.empty(max(16, m), dtype=np.int64)
    out_s = np.empty(max(16, m), dtype=np.int64)
    oth_q = np.empty(0, dtype=np.int64)
    oth_s = np.empty(0, dtype=np.int64)
    cand = np.empty(max(64, m), dtype=np.int64)
    nc = 0
    n_out = 0
    n_oth = 0
    hit = np.empty(1, dtype=np.bool_)
    nrm = np.empty((1, dim))
    dep = np.empty(1)
    m3 = np.empty((3, 3))
    t3 = np.empty(3)
    tb3 = np.empty(3)
    c0 = np.zeros(3, dtype=np.int64)
    c1 = np.zeros(3, dtype=np.int64)
    # Pass 1: every probe's grid candidates, in one flat list (cand[cstart[r]:cstart[r + 1]]
    # are probe r's, in the order the walk meets them). The walk reads a bucket at a random place
    # of arrays larger than the caches: the buckets of the probe AHEAD probes on are loaded
    # (prefetched) now, and the bucket bounds of the one 2 AHEAD on before that, so that the
    # misses of several probes overlap instead of each stalling its walk.
    cstart = np.empty(m + 1, dtype=np.int64)
    zd = dim - 1  # 2D: the third coordinate read at index 1 again, and ignored
    for r in range(m):
        # (loads ahead written out, not in helpers given the arrays: see _probe_keys)
        ahead = r + 2 * _AHEAD
        if ahead < m:
            keys = _probe_keys(qlo[ahead, 0], qlo[ahead, 1], qlo[ahead, zd], qhi[ahead, 0], qhi[ahead, 1],
                               qhi[ahead, zd], cell, gmask, dim)
            for u in range(keys[4]):
                prefetch(starts, keys[u])
        ahead = r + _AHEAD
        if ahead < m:
            keys = _probe_keys(qlo[ahead, 0], qlo[ahead, 1], qlo[ahead, zd], qhi[ahead, 0], qhi[ahead, 1],
                               qhi[ahead, zd], cell, gmask, dim)
            for u in range(keys[4]):
                # the bucket: its entries and their boxes, first and last lines (most span two)
                e0 = starts[keys[u]]
                e1 = starts[keys[u] + 1] - 1
                if e1 >= e0:
                    prefetch(entries, e0)
                    prefetch(entries, e1)
                    prefetch(elo, e0)
                    prefetch(elo, e1)
                    prefetch(ehi, e0)
                    prefetch(ehi, e1)
        tag = base + r  # a tag no earlier query used: stamps never need clearing
        cstart[r] = nc
        first = nc
        ncells = 1
        for k in range(dim):
            c0[k] = math.floor(qlo[r, k] / cell)
            c1[k] = math.floor(qhi[r, k] / cell)
            ncells *= c1[k] - c0[k] + 1
        stamped = False  # this probe's candidates are marked in ``stamp`` (from _LOOK_AMONG of them on)
        if n_gridded > 0 and ncells <= max_cells:
            for a in range(c0[0], c1[0] + 1):
                for b in range(c0[1], c1[1] + 1):
                    for c in range(c0[2], c1[2] + 1):
                        key = cell_hash(a, b, c, dim, gmask)
                        for e in range(starts[key], starts[key + 1]):
                            # the entry's own copy of its box: a bucket's boxes are read in a row
                            if not boxes_meet(elo, ehi, e, qlo, qhi, r, dim):
                                continue
                            j = entries[e]
                            # A body met before by this probe (it is in several of its cells): while the
                            # probe has few candidates, a look over them is cheaper than reading the body's
                            # stamp (a cache miss: the stamps are as many as the bodies); past that, every
                            # candidate is stamped, those before included
                            if nc - first < _LOOK_AMONG:
                                seen = False
                                for t in range(first, nc):
                                    if cand[t] == j:
                                        seen = True
                                if seen:
                                    continue
                            else:
                                if not stamped:
                                    for t in range(first, nc):
                                        stamp[cand[t]] = tag
                                    stamped = True
                                if stamp[j] == tag:
                                    continue
                                stamp[j] = tag
                            if nc == cand.shape[0]:
                                cand = _grown(cand, nc)
                            cand[nc] = j
                            nc += 1
            for t in range(big.shape[0]):
                j = big[t]
                if boxes_meet(lo, hi, j, qlo, qhi, r, dim):
                    if nc == cand.shape[0]:
                        cand = _grown(cand, nc)
                    cand[nc] = j
                    nc += 1
        else:  # a wide query (or no grid): a scan of every box is cheaper than its cells
            for j in range(n):
                if boxes_meet(lo, hi, j, qlo, qhi, r, dim):
                    if nc == cand.shape[0]:
                        cand = _grown(cand, nc)
                    cand[nc] = j
                    nc += 1
    cstart[m] = nc
    # The half-spaces, once for the batch: each is a candidate of every probe, but one that the
    # box around all the probes' boxes lies outside of (its lowest corner along the normal above
    # the offset by far more than the touching tolerance, rel * scale with rel ~1e-14, and the
    # rounding) is missed by every probe, and is not tested per probe (issue 28: a ground plane
    # under a world cost every probe of a batch one exact test more)
    live_planes = np.empty(n_p, dtype=np.int64)
    n_live = 0
    if n_p > 0 and m > 0:
        ulo = np.empty(dim)
        uhi = np.empty(dim)
        size = 0.0
        for k in range(dim):
            ulo[k] = qlo[0, k]
            uhi[k] = qhi[0, k]
            for r in range(1, m):
                ulo[k] = min(ulo[k], qlo[r, k])
                uhi[k] = max(uhi[k], qhi[r, k])
            size = max(size, max(abs(ulo[k]), abs(uhi[k])))
        for t in range(n_p):
            s = planes[t]
            low = 0.0
            for k in range(dim):
                nk = plane_normal[s, k]
                low += nk * (ulo[k] if nk > 0.0 else uhi[k])
            off = plane_offset[s]
            if not low - off > 1e-9 * (1.0 + size + abs(off)):
                live_planes[n_live] = s
                n_live += 1
    n_p = n_live
    # Pass 2: the exact tests, probe by probe, in the order of pass 1; the rows of the
    # candidate AHEAD places on are loaded meanwhile (its slot's, from the handle loaded
    # 2 AHEAD places before)
    for r in range(m):
        first = n_out
        c_end = cstart[r + 1]
        for t in range(cstart[r], c_end + n_p):
            if t < c_end:
                if t + 2 * _AHEAD < nc:
                    prefetch(handles, cand[t + 2 * _AHEAD])
                if t + _AHEAD < nc:
                    # the packed row the tests of balls and boxes read (QueryIndex._pack): two or three
                    # lines, from its first column (kind) on
                    ahead = handles[cand[t + _AHEAD]]
                    prefetch(kind, ahead)
                    prefetch(half, ahead)
                    if dim == 3:
                        prefetch(bound_radius, ahead)
                s = handles[cand[t]]
            else:
                s = live_planes[t - c_end]
            # -- the exact test of probe r against body s: HIT, MISS or OTHER. Written out here, not
            # called: a call passing the ~20 column arrays cost 8x the test itself. The filter after
            # it: its two columns are then read for the bodies met only (most candidates are misses)
            # a compound (a concave polygon in a world is one: its convex pieces) meets the probe when one of
            # its parts does (the narrowphase's expand_pairs): its part slots, posed with it, are tested in turn;
            # a part of a kind not tested here makes the body OTHER unless another part hits
            got = MISS
            n_sub = 1
            first_part = -1
            if kind[s] == COMPOUND:
                n_sub = n_parts[s]
                first_part = parts_at[s]
            for sub in range(n_sub):
                u = s if first_part < 0 else part_slots[first_part + sub]
                g = MISS
                ku = kind[u]
                if ku != HALFSPACE:
                    # the bounding-ball reject of the narrowphase (probe as a, body as b), operation for operation,
                    # for every kind: a body of a kind tested elsewhere (settle_rows, query_round, the numpy
                    # path) is handed on only past it (issue 28: every grid candidate of a cylinder, cone or
                    # rounded shape was an "other" pair, two more calls and a merge per batch)
                    reach = pbound[r] + bound_radius[u]
                    gp = ppos[r, 0] - position[u, 0]
                    size = abs(ppos[r, 0])
                    spread = abs(gp)
                    dist2 = gp * gp
                    for d in range(1, dim):
                        gp = ppos[r, d] - position[u, d]
                        size = max(size, abs(ppos[r, d]))
                        spread = max(spread, abs(gp))
                        dist2 += gp * gp
                    slack = 2.0 * (rel * abs(size + spread + reach))
                    limit = reach * (1 + 1e-9) + slack
                    if dist2 <= limit * limit or limit * limit < SQUARES_UNDERFLOW:
                        g = HIT  # for now: the kernel decides below
                else:
                    g = HIT
                if g == HIT and (ku >= CAPSULE or (ku == POLYGON and not simple[u])):
                    # a kind not tested here, past the reject: left to settle_rows (and query_round), as an
                    # "other" pair. Not tested here: numba links a callee's code into every caller and
                    # optimises it again there, and these kernels (GJK, EPA, the capsule rows) were most of
                    # the compile of each query entry point (benchmarks/results/cold_start.md, fifth round).
                    # A capsule (segment, a chain's piece) is first bounded by its segment's distance to
                    # the probe's centre, which settles most pairs (_capsule_bound)
                    g = OTHER
                    if ku == CAPSULE:
                        g = _capsule_bound(position, rotation, radius, q.seg0, q.seg1, u, pk, r, ppos, prad, phalf,
                                           pbound, rel)
                elif g == HIT:
                    # canonical order: the lower kind is side a (a hit does not depend on the normal's sign)
                    if ku == HALFSPACE:
                        if pk == BALL:
                            _halfspace_ball(plane_normal, plane_offset, u, vpos, vrad, r, rule, row0, hit, nrm, dep)
                        elif pk == BOX:
                            _halfspace_box(plane_normal, plane_offset, u, vpos, vrot, vhalf, r, rule, row0, hit, nrm,
                                           dep)
                        else:
                            _halfspace_points(plane_normal, plane_offset, u, pvx, pvy, r, pn, rule, row0, hit, nrm,
                                              dep)
                    elif pk == BALL:
                        if ku == BALL:
                            _ball_ball(vpos, vrad, r, bpos, brad, u, rule, row0, hit, nrm, dep)
                        elif ku == BOX:
                            _ball_box(vpos, vrad, r, bpos, brot, bhalf, u, rule, row0, hit, nrm, dep)
                        else:
                            _ball_polygon(vpos, vrad, r, world_x, world_y, u, simple_n[poly[u]], rule, row0, hit, nrm,
                                          dep)
                    elif pk == BOX:
                        if ku == BALL:
                            _ball_box(bpos, brad, u, vpos, vrot, vhalf, r, rule, row0, hit, nrm, dep)
                        elif ku == BOX:
                            if dim == 2:
                                _box_box_2d(vpos, vrot, vhalf, r, bpos, brot, bhalf, u, rule, row0, hit, nrm,
                                            dep)
                            else:
                                _box_box_3d(vpos, vrot, vhalf, r, bpos, brot, bhalf, u, rule, row0, m3, t3, tb3,
                                            hit, nrm, dep)
                        else:
                            _box_polygon(vpos, vrot, vhalf, r, world_x, world_y, u, simple_n[poly[u]], rule, row0, hit,
                                         nrm, dep)
                    else:  # a simple polygon probe
                        if ku == BALL:
                            _ball_polygon(bpos, brad, u, pvx, pvy, r, pn, rule, row0, hit, nrm, dep)
                        elif ku == BOX:
                            _box_polygon(bpos, brot, bhalf, u, pvx, pvy, r, pn, rule, row0, hit, nrm, dep)
                        else:
                            _polygon_polygon(pvx, pvy, r, pn, world_x, world_y, u, simple_n[poly[u]], rule, row0, hit,
                                             nrm, dep)
                    g = HIT if hit[0] else MISS
                if g == HIT:
                    got = HIT
                    break
                if g == OTHER:
                    got = OTHER
            if got != MISS and ((category[s] & msk) == 0 or (cat & bits[s]) == 0):
                got = MISS
            if got == HIT:
                if n_out == out_q.shape[0]:
                    out_q = _grown(out_q, n_out)
                    out_s = _grown(out_s, n_out)
                # insertion by serial: a probe's hits are few
                k = n_out
                while k > first and serial[out_s[k - 1]] > serial[s]:
                    out_s[k] = out_s[k - 1]
                    k -= 1
                out_s[k] = s
                out_q[n_out] = r
                n_out += 1
            elif got == OTHER:
                if n_oth == oth_q.shape[0]:
                    oth_q = _grown(oth_q, n_oth)
                    oth_s = _grown(oth_s, n_oth)
                oth_q[n_oth] = r
                oth_s[n_oth] = s
                n_oth += 1
    return out_q[:n_out], out_s[:n_out], oth_q[:n_oth], oth_s[:n_oth]


# The probes of a batch are built by small kernels of their own, and the entry points below
# (_boxes_q, _shapes_q) call _overlap directly: numba links a callee's code into every caller
# and optimises it again there, so each jitted layer between an entry point and _overlap
# (there were three: _overlap_shapes -> _overlap_probes -> _overlap) compiled the whole batch
# kernel and its row routines once more (~3 s of CPU each on a cold cache, measured with
# benchmarks/cold_start.py --profile).


@njit(cache=True)
def _box_probes(center: Floats, hw: Floats, rule: tuple[float, float]) -> tuple[Floats, Floats, Floats, Floats,
                                                                               Floats]:
    """Points or axis-aligned boxes ``center ± hw`` as probe rows: ``(qlo, qhi, prot, prad, pbound)``."""
    m, dim = center.shape
    qlo = np.empty((m, dim))
    qhi = np.empty((m, dim))
    prot = np.zeros((m, dim, dim))
    prad = np.zeros(m)
    pbound = np.empty(m)
    for r in range(m):
        # the probes' boxes as World._box_hits widens them: tol of (max |center| + max half)
        mc = abs(center[r, 0])
        mh = hw[r, 0]
        b2 = 0.0
        for k in range(dim):
            mc = max(mc, abs(center[r, k]))
            mh = max(mh, hw[r, k])
            b2 += hw[r, k] * hw[r, k]
            prot[r, k, k] = 1.0
        tol = rule[0] * max(rule[1], mc + mh)
        for k in range(dim):
            qlo[r, k] = center[r, k] - hw[r, k] - tol
            qhi[r, k] = center[r, k] + hw[r, k] + tol
        pbound[r] = np.sqrt(b2)
    return qlo, qhi, prot, prad, pbound


@njit(cache=True)
def _shape_probes(pos: Floats, cos: Floats, sin: Floats, unit: Floats, lx: Floats, ly: Floats, rad: float,
                  hw: Floats, bound: float) -> tuple[Floats, Floats, Floats, Floats, Floats, Floats]:
    """One shape at ``m`` poses as probe rows, posed as ``BodyStore.set_poses`` would pose them.

    Returns ``(prot, prad, phalf, pbound, pwx, pwy)``.
    """
    m, dim = pos.shape
    prot = np.empty((m, dim, dim))
    prad = np.full(m, rad)
    phalf = np.empty((m, dim))
    pbound = np.full(m, bound)
    pwx = np.empty((lx.shape[0], m))
    pwy = np.empty((lx.shape[0], m))
    for r in range(m):
        for k in range(dim):
            phalf[r, k] = hw[k]
        if dim == 2:
            prot[r, 0, 0] = cos[r]
            prot[r, 0, 1] = -sin[r]
            prot[r, 1, 0] = sin[r]
            prot[r, 1, 1] = cos[r]
            # R @ local + t, as the compiled posing (_poses_2d) and BodyStore.pose_simple
            r00, r01, r10, r11 = prot[r, 0, 0], prot[r, 0, 1], prot[r, 1, 0], prot[r, 1, 1]
            for v in range(lx.shape[0]):
                pwx[v, r] = r00 * lx[v] + r01 * ly[v] + pos[r, 0]
                pwy[v, r] = r10 * lx[v] + r11 * ly[v] + pos[r, 1]
        else:
            # rotation_matrix_3d's entries, operation for operation (as _poses_3d)
            w, x, y, z = unit[r, 0], unit[r, 1], unit[r, 2], unit[r, 3]
            prot[r, 0, 0] = 1 - 2 * (y * y + z * z)
            prot[r, 0, 1] = 2 * (x * y - w * z)
            prot[r, 0, 2] = 2 * (x * z + w * y)
            prot[r, 1, 0] = 2 * (x * y + w * z)
            prot[r, 1, 1] = 1 - 2 * (x * x + z * z)
            prot[r, 1, 2] = 2 * (y * z - w * x)
            prot[r, 2, 0] = 2 * (x * z - w * y)
            prot[r, 2, 1] = 2 * (y * z + w * x)
            prot[r, 2, 2] = 1 - 2 * (x * x + y * y)
    return prot, prad, phalf, pbound, pwx, pwy


# -- the same kernels, the index's arrays given as one QueryArrays ---------------------------

def point_found(work: Work, code: int) -> list[int] | None:
    """``[K, K hit slots in add order, unsettled slots...]`` from what :func:`_point_one` returned.

    ``work``: the :func:`scratch` arrays of the index it ran on. None: more
    than ``SINGLE_CAPACITY`` (ask the batch kernel, :func:`box_slots`).

    Examples
    --------
    >>> work = scratch(2)
    >>> point_found(work, 7), point_found(work, NO_HIT), point_found(work, TOO_MANY)
    ([1, 7], [0], None)
    """
    if code >= 0:
        return [1, code]
    if code == NO_HIT:
        return [0]
    if code == TOO_MANY:
        return None
    point = work[0]
    k, u = point[POINT_COUNTS].tolist()
    found: list[int] = [k, *point[POINT_HITS][:k].tolist(), *point[POINT_OTHERS][:u].tolist()]
    return found


def point_slots(q: QueryArrays, work: Work, x: float, y: float, z: float, hx: float, hy: float, hz: float,
                ball: bool, cat: int, msk: int) -> list[int] | None:
    """One point (``ball``) or axis-aligned box from scalars: ``[K, K slots in add order, other slots...]``.

    ``work``: the :func:`scratch` arrays ``q`` was made with. None: too many
    for a single query's scratch (see :func:`point_found`).

    Examples
    --------
    >>> from collideworld import Circle, World
    >>> from collideworld.queries import QueryIndex
    >>> w = World(dim=2, backend="compiled")
    >>> w.add_many(Circle(1.0), [[0, 0], [1, 0]])
    [0, 1]
    >>> index = QueryIndex(w._store, "compiled")
    >>> grid = index.refresh()
    >>> point_slots(index.arrays, index.work, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, True, 1, 1)
    [2, 0, 1]
    """
    return point_found(work, _point_one(q, x, y, z, hx, hy, hz, ball, cat, msk))


# nogil: a batch may be split over Python threads (threads.run_split), each range with its own stamps
@njit(cache=True, nogil=True)
def _boxes_q(q: Any, center: Floats, hw: Floats, ball: bool, cat: int, msk: int,
             base: int, stamp: Index) -> tuple[Index, Index, Index, Index]:
    rule = (q.rel, q.floor)
    qlo, qhi, prot, prad, pbound = _box_probes(center, hw, rule)
    no = np.empty((0, center.shape[0]))
    pk = BALL if ball else BOX
    # pn as np.int64, not a literal 0: with a literal, numba compiles _overlap (and the polygon row
    # routines it calls with pn) a second time, ~5 s of CPU for the same machine code
    return _overlap(q.lo, q.hi, q.cell, q.gmask, q.starts, q.entries, q.elo, q.ehi, q.big, q.n_gridded,
                    q.handles, q.max_cells, stamp, base, q.planes, q.kind, q.simple, q.position, q.rotation,
                    q.radius, q.half, q.plane_normal, q.plane_offset, q.bound_radius, q.world_x, q.world_y,
                    q.poly, q.simple_n, q.category, q.bits, q.serial, q.part_slots, q.parts_at, q.n_parts,
                    pk, np.int64(0), center, prot, prad, hw,
                    pbound, no, no, qlo, qhi, cat, msk, rule, q)


def box_slots(q: QueryArrays, center: Floats, hw: Floats, ball: bool, cat: int, msk: int,
              base: int, stamp: Index) -> tuple[Index, Index, Index, Index]:
    """Points (``ball``: balls of radius 0) or axis-aligned boxes ``center ± hw`` (each (m, D)) as probes.

    ``base``: ``2 m`` unused stamp tags of the grid (``GridIndex.take_tags(m)``); ``stamp``: the grid's
    "seen" marks (``GridIndex.stamps``: one array per thread running a part of a batch at once).

    Returns
    -------
    rows, slots : ndarray of int64, shape (K,)
        ``(probe row, slot)`` of every body each probe touches, sorted by row
        then add order.
    other_rows, other_slots : ndarray of int64
        Candidate pairs (filter passed) the kernel does not settle: capsules,
        hulls, polygons that are not simple.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Box, World
    >>> from collideworld.queries import QueryIndex
    >>> w = World(dim=2, backend="compiled")
    >>> w.add(Box((1.0, 1.0)), position=(2, 0))
    0
    >>> index = QueryIndex(w._store, "compiled")
    >>> grid = index.refresh()
    >>> rows, slots, _, _ = box_slots(index.arrays, np.array([[1.0, 1.0], [0.0, 0.0]]), np.zeros((2, 2)), True,
    ...                               1, 1, grid.take_tags(2), grid.stamp)
    >>> rows.tolist(), slots.tolist()
    ([0], [0])
    """
    return _boxes_q(q, center, hw, ball, cat, msk, base, stamp)


@njit(cache=True, nogil=True)  # (nogil: see _boxes_q)
def _shapes_q(q: Any, pk: int, pn: int, pos: Floats, cos: Floats, sin: Floats, unit: Floats, lx: Floats, ly: Floats,
              rad: float, hw: Floats, bound: float, cat: int, msk: int, base: int,
              stamp: Index) -> tuple[Index, Index, Index, Index]:
    rule = (q.rel, q.floor)
    prot, prad, phalf, pbound, pwx, pwy = _shape_probes(pos, cos, sin, unit, lx, ly, rad, hw, bound)
    m, dim = pos.shape
    qlo = np.empty((m, dim))
    qhi = np.empty((m, dim))
    _probe_bounds(pk, pos, prot, prad, phalf, pwx, pwy, rule, qlo, qhi)
    return _overlap(q.lo, q.hi, q.cell, q.gmask, q.starts, q.entries, q.elo, q.ehi, q.big, q.n_gridded,
                    q.handles, q.max_cells, stamp, base, q.planes, q.kind, q.simple, q.position, q.rotation,
                    q.radius, q.half, q.plane_normal, q.plane_offset, q.bound_radius, q.world_x, q.world_y,
                    q.poly, q.simple_n, q.category, q.bits, q.serial, q.part_slots, q.parts_at, q.n_parts,
                    pk, pn, pos, prot, prad, phalf, pbound, pwx,
                    pwy, qlo, qhi, cat, msk, rule, q)


def shape_slots(q: QueryArrays, pk: int, pn: int, pos: Floats, cos: Floats, sin: Floats, unit: Floats, lx: Floats,
                ly: Floats, rad: float, hw: Floats, bound: float, cat: int, msk: int,
                base: int, stamp: Index) -> tuple[Index, Index, Index, Index]:
    """One shape of kind ``pk`` (1 ball, 2 box, 3 simple polygon, ``pn`` vertices) at ``m`` poses, as :func:`box_slots`.

    Parameters
    ----------
    pos : ndarray, shape (m, D)
    cos, sin : ndarray, shape (m,)
        2D: of the angles, as numpy rounds them ((0,) arrays in 3D).
    unit : ndarray, shape (m, 4)
        3D: unit quaternions ``[w, x, y, z]`` ((0, 4) in 2D).
    lx, ly : ndarray, shape (8,)
        A simple polygon's local vertices, padded by the last ((0,) otherwise).
    rad : float
        A ball's radius.
    hw : ndarray, shape (D,)
        A box's half extents.
    bound : float
        The shape's bounding radius.
    cat, msk : int
        The query's filter.
    base : int
        ``2 m`` unused stamp tags of the grid.
    stamp : ndarray of int64
        The grid's "seen" marks (as :func:`box_slots`).

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Box, World
    >>> from collideworld.queries import QueryIndex
    >>> w = World(dim=2, backend="compiled")
    >>> w.add(Box((1.0, 1.0)), position=(2, 0))
    0
    >>> index = QueryIndex(w._store, "compiled")
    >>> grid = index.refresh()
    >>> pos = np.array([[0.5, 0.0], [-3.0, 0.0]])
    >>> rows, slots, _, _ = shape_slots(index.arrays, 2, 0, pos, np.ones(2), np.zeros(2), np.zeros((0, 4)),
    ...                                 np.zeros(0), np.zeros(0), 0.0, np.array([0.5, 0.5]), 0.5 ** 0.5, 1, 1,
    ...                                 grid.take_tags(2), grid.stamp)
    >>> rows.tolist(), slots.tolist()
    ([0], [0])
    """
    return _shapes_q(q, pk, pn, pos, cos, sin, unit, lx, ly, rad, hw, bound, cat, msk, base, stamp)


@njit(cache=True, inline="always")
def _posed(position: Floats, rotation: Floats, local: Floats, u: int, dim: int) -> tuple[float, float, float]:
    """``position[u] + rotation[u] @ local[u]`` as scalars (2D: the third is the second again), summed as
    numpy's ``einsum("mij,mj->mi")`` sums them in ``BodyStore.capsule_rows`` (the same bits)."""
    z = dim - 1
    out0 = out1 = out2 = 0.0
    for i in range(dim):
        if dim == 3:
            c = (rotation[u, i, 0] * local[u, 0] + rotation[u, i, 2] * local[u, 2]) + rotation[u, i, 1] * local[u, 1]
        else:
            c = rotation[u, i, 0] * local[u, 0] + rotation[u, i, 1] * local[u, 1]
        v = position[u, i] + c
        if i == 0:
            out0 = v
        elif i == 1:
            out1 = v
        else:
            out2 = v
    return out0, out1, out2 if z == 2 else out1


@njit(cache=True)
def _ray_body(q: Any, j: int, ox: float, oy: float, oz: float, dx: float, dy: float, dz: float, maxd: float,
              rel: float, floor: float, parallel_rate: float, wv: Floats,
              pv: Floats) -> tuple[float, float, float, float]:
    """``(distance, normal)`` of the ray against slot ``j``, a capsule, a simple polygon or a compound of balls,
    boxes, capsules and simple polygons (a world's concave polygon is one); distance -1: another kind.

    The first-hit walk's ``spatial.compiled._ray_more`` on the index's own columns, so the same bits as
    ``raycast_many`` and ``queries.cast_left``: a capsule's world ends posed here with
    ``BodyStore.capsule_rows``' einsum arithmetic (as :func:`_capsule_hull_test`), a simple polygon's posed
    vertices copied from ``world_x`` / ``world_y`` into ``wv`` (1, 8, 2) (``pv``: ``ray_polygon``'s scratch);
    a compound's entry: its nearest part's, the first part in part order on a tie.
    """
    dim = q.position.shape[1]
    kind, position, rotation, radius = q.kind, q.position, q.rotation, q.radius
    row0 = np.int64(0)
    first = -1
    count = 1
    if kind[j] == COMPOUND:
        first = q.parts_at[j]
        count = q.n_parts[j]
    bt = np.inf
    bx = by = bz = 0.0
    for p in range(count):
        u = j if first < 0 else q.part_slots[first + p]
        ku = kind[u]
        if first >= 0 and (ku == BALL or ku == BOX):
            t, nx, ny, nz = ray_slot(u, ox, oy, oz, dx, dy, dz, maxd, kind, position, rotation, q.half, radius, rel,
                                     floor, parallel_rate)
        elif ku == CAPSULE:
            s0, s1 = q.seg0, q.seg1
            # position + rotation @ seg, summed as numpy's einsum("mij,mj->mi") sums (capsule_rows)
            ax, ay, az = _posed(position, rotation, s0, u, dim)
            bx_, by_, bz_ = _posed(position, rotation, s1, u, dim)
            t, nx, ny, nz = ray_capsule(ox, oy, oz, dx, dy, dz, maxd, ax, ay, az, bx_, by_, bz_, radius[u], rel,
                                        floor, dim)
        elif ku == POLYGON and dim == 2 and q.simple[u]:
            wx, wy = q.world_x, q.world_y
            for v in range(wv.shape[1]):
                wv[0, v, 0] = wx[v, u]
                wv[0, v, 1] = wy[v, u]
            t, nx, ny = ray_polygon(wv, row0, ox, oy, dx, dy, maxd, rel, floor, parallel_rate, pv)
            nz = 0.0
        else:
            return -1.0, 0.0, 0.0, 0.0
        if t < bt:
            bt, bx, by, bz = t, nx, ny, nz
    return bt, bx, by, bz


@njit(cache=True)
def _ray_one(q: Any, ox: float, oy: float, oz: float, dx: float, dy: float, dz: float, maxd: float, cat: int,
             msk: int, parallel_rate: float, first: bool) -> int:
    """Every body one ray meets within ``maxd``: how many, their rows ``[slot, distance, point, normal]``
    in ``ray_work[RAY_ROWS]``, nearest first (then add order); ``TOO_MANY`` if more than it holds. The walk of
    ``spatial.compiled._query_segments``; the casts of ``ray_slot`` (numpy ``raycast_ball`` /
    ``raycast_box`` arithmetic) and of :func:`_ray_body` (capsules, segments, simple polygons, compounds of
    them: the first-hit walk's one-row casts, issue 28), in the index's scratch arrays.

    Bodies of the kinds neither casts (hulls, polygons that are not simple,
    rounded shapes) whose box the ray meets (and which pass the filter) are
    listed in ``ray_work[RAY_OTHERS]`` (their count in
    ``ray_work[RAY_OTHER_COUNT]``) for the caller to cast with the row
    kernels, as the point query leaves its "other" pairs: a body far from
    the ray, or filtered out, costs nothing.

    ``first``: only row 0 is wanted (the nearest hit, ties to the body added
    first), and the walk stops at the first cell it leaves beyond that hit.
    Every listed body whose entry is nearer than that hit lies in a walked
    cell, so the caller's merge still finds the nearest.
    """
    row0 = np.int64(0)  # not a literal: numba would compile boxes_meet and the row kernels once more for it
    dim = q.position.shape[1]
    sc = q.ray_work
    o, d, o2, d2 = sc[0], sc[1], sc[2], sc[3]
    cur, last, step, tnext, tdelta = sc[4], sc[5], sc[6], sc[7], sc[8]
    tag = sc[9][0]  # a tag of the single queries' own (see scratch)
    sc[9][0] = tag - 1
    o[0], o[1], d[0], d[1] = ox, oy, dx, dy
    if dim == 3:
        o[2], d[2] = oz, dz
    for k in range(dim):
        o2[0, k] = o[k]
        d2[0, k] = d[k]
    for k in range(3):
        cur[k] = 0
        last[k] = 0
        step[k] = 0
        tnext[k] = np.inf
        tdelta[k] = np.inf
    out = sc[RAY_ROWS]
    others = sc[RAY_OTHERS]
    n_other = 0
    sc[RAY_OTHER_COUNT][0] = 0
    nf = 0
    lo, hi, glo, ghi, cell = q.lo, q.hi, q.glo, q.ghi, q.cell
    starts, entries, big, stamp, handles = q.starts, q.entries, q.big, q.stamp, q.handles
    kind, position, rotation, half, radius, serial = q.kind, q.position, q.rotation, q.half, q.radius, q.serial
    category, bits = q.category, q.bits
    rel, floor = q.rel, q.floor
    n_big = big.shape[0]
    # the half-spaces first (in no cell): a hit on one then bounds the first-hit walk's stop like any other
    planes, pnormal, poffset = q.planes, q.plane_normal, q.plane_offset
    for t_ in range(planes.shape[0]):
        s = planes[t_]
        if (category[s] & msk) == 0 or (cat & bits[s]) == 0:
            continue
        t, nx, ny, nz = ray_halfspace(ox, oy, oz, dx, dy, dz, maxd, pnormal[s, 0], pnormal[s, 1],
                                       pnormal[s, dim - 1], poffset[s], rel, floor, dim)
        if t < np.inf:
            if nf == out.shape[0]:
                return TOO_MANY
            k = nf
            while k > 0 and (out[k - 1, 1] > t or (out[k - 1, 1] == t and serial[int(out[k - 1, 0])] > serial[s])):
                # element by element, not out[k] = out[k - 1]: numba compiles an array assignment's
                # shape-mismatch error with a formatted message (str() of ints: ~2.7 s CPU, cold cache)
                for c in range(out.shape[1]):
                    out[k, c] = out[k - 1, c]
                k -= 1
            out[k, 0] = s
            out[k, 1] = t
            for c in range(dim):
                out[k, 2 + c] = o[c] + d[c] * t
            out[k, 2 + dim] = nx
            out[k, 3 + dim] = ny
            if dim == 3:
                out[k, 4 + dim] = nz
            nf += 1
    # the cells the segment passes (clipped to the grid's bounds), then the big boxes
    ta = 0.0
    tb = maxd
    for k in range(dim):
        if d[k] == 0.0:
            if o[k] < glo[k] or o[k] > ghi[k]:
                tb = -1.0
            continue
        u = (glo[k] - o[k]) / d[k]
        v = (ghi[k] - o[k]) / d[k]
        ta = max(ta, min(u, v))
        tb = min(tb, max(u, v))
    walk = q.n_gridded > 0 and ta <= tb
    reach = cell  # the scale of the stopping test's margin (first): the cell and the farthest coordinate
    for k in range(dim):
        reach = max(reach, abs(o[k]))
    budget = 0
    if walk:
        for k in range(dim):
            cur[k] = math.floor((o[k] + ta * d[k]) / cell)
            last[k] = math.floor((o[k] + tb * d[k]) / cell)
            if d[k] > 0.0:
                step[k] = 1
                tnext[k] = ((cur[k] + 1) * cell - o[k]) / d[k]
                tdelta[k] = cell / d[k]
            elif d[k] < 0.0:
                step[k] = -1
                tnext[k] = (cur[k] * cell - o[k]) / d[k]
                tdelta[k] = -cell / d[k]
        budget = 1
        for k in range(dim):
            budget += abs(last[k] - cur[k]) + 1
    done = not walk
    big_done = False
    while True:
        if not done:
            key = cell_hash(cur[0], cur[1], cur[2] if dim == 3 else 0, dim, q.gmask)
            e0 = starts[key]
            e1 = starts[key + 1]
        elif not big_done:
            e0 = 0
            e1 = n_big
            big_done = True
        else:
            break
        for e in range(e0, e1):
            j = entries[e] if not done else big[e]
            if j < 0 or stamp[j] == tag:  # a free entry, or a box met already
                continue
            stamp[j] = tag
            if not segment_meets(lo, hi, j, o2, d2, row0, maxd, dim):
                continue
            s = handles[j]
            if (category[s] & msk) == 0 or (cat & bits[s]) == 0:
                continue
            if kind[j] > BOX:
                t, nx, ny, nz = _ray_body(q, j, ox, oy, oz, dx, dy, dz, maxd, rel, floor, parallel_rate,
                                          sc[RAY_POLYGON], sc[RAY_POLYGON_SCRATCH])
                if t < 0.0:  # a kind cast by the caller
                    if n_other == others.shape[0]:
                        return TOO_MANY
                    others[n_other] = s
                    n_other += 1
                    sc[RAY_OTHER_COUNT][0] = n_other
                    continue
            else:
                t, nx, ny, nz = ray_slot(j, ox, oy, oz, dx, dy, dz, maxd, kind, position, rotation, half, radius,
                                          rel, floor, parallel_rate)
            if t < np.inf:
                if nf == out.shape[0]:
                    return TOO_MANY
                # insertion by (distance, serial): a ray's hits are few
                k = nf
                while k > 0 and (out[k - 1, 1] > t or (out[k - 1, 1] == t and serial[int(out[k - 1, 0])] > serial[s])):
                    for c in range(out.shape[1]):  # (element by element: see above)
                        out[k, c] = out[k - 1, c]
                    k -= 1
                out[k, 0] = s
                out[k, 1] = t
                for c in range(dim):
                    out[k, 2 + c] = o[c] + d[c] * t
                out[k, 2 + dim] = nx
                out[k, 3 + dim] = ny
                if dim == 3:
                    out[k, 4 + dim] = nz
                nf += 1
        if not done:
            budget -= 1
            axis = next_axis(cur, last, tnext, dim)
            if axis < 0 or budget <= 0:
                done = True
            elif first and nf > 0 and out[0, 1] + 1e-9 * (reach + tnext[axis]) < tnext[axis]:
                # The cells walked so far hold every point of the ray up to tnext[axis], where it leaves
                # this one, and a body is in every cell its box meets: a hit nearer than (or as near as)
                # out[0] has its entry point in a walked cell, and was tested. The margin (far above the
                # rounding of the cell walls and of the floors that placed the boxes) only walks one
                # cell more when the hit is at a wall. The big boxes are not in cells: tested after.
                done = True
            else:
                cur[axis] += step[axis]
                tnext[axis] += tdelta[axis]
    return nf


def ray_rows(q: QueryArrays, work: Work, ox: float, oy: float, oz: float, dx: float, dy: float, dz: float,
             maxd: float, cat: int, msk: int, parallel_rate: float, first: bool = False) -> Floats | None:
    """Every ball or box one ray (origin ``o``, unit direction ``d``) meets within ``maxd``, one row per hit.

    Bodies of other kinds the ray meets are not in the rows: they are listed
    in ``work[1][RAY_OTHERS]`` for the caller (see :func:`_ray_one`);
    ``work``: the :func:`scratch` arrays ``q`` was made with.

    Returns
    -------
    ndarray, shape (K, 2 + 2 D), or None
        ``[slot, distance, point, normal]`` per hit, nearest first (then add
        order), a copy; None: more than ``SINGLE_CAPACITY`` hits (a single
        query's scratch holds no more). ``first``: the first row only.

    Examples
    --------
    >>> from collideworld import Circle, World
    >>> from collideworld.queries import QueryIndex
    >>> w = World(dim=2, backend="compiled")
    >>> w.add_many(Circle(1.0), [[5, 0], [9, 0]])
    [0, 1]
    >>> index = QueryIndex(w._store, "compiled")
    >>> grid = index.refresh()
    >>> ray_rows(index.arrays, index.work, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, float("inf"), 1, 1, 1e-300).tolist()
    [[0.0, 4.0, 4.0, 0.0, -1.0, 0.0], [1.0, 8.0, 8.0, 0.0, -1.0, 0.0]]
    """
    count = _ray_one(q, ox, oy, oz, dx, dy, dz, maxd, cat, msk, parallel_rate, first)
    if count == TOO_MANY:
        return None
    rows: Floats = work[1][RAY_ROWS][:min(count, 1) if first else count].copy()
    return rows


@njit(cache=True)
def _probe_body(q: Any, s: int, pk: int, pn: int, r: int, ppos: Floats, prot: Floats, prad: Floats, phalf: Floats,
                pbound: Floats, pwx: Floats, pwy: Floats, rule: tuple[float, float], hit: Any, nrm: Floats,
                dep: Floats, m3: Floats, t3: Floats, tb3: Floats) -> int:
    """:func:`_probe_test` of body ``s``; a compound (a world's concave polygon is one) by its part slots, as
    :func:`_overlap`: HIT if one part hits, else OTHER if one is of a kind not tested here, else MISS."""
    if q.kind[s] != COMPOUND:
        return _probe_test(q, s, pk, pn, r, ppos, prot, prad, phalf, pbound, pwx, pwy, rule, hit, nrm, dep, m3, t3,
                           tb3)
    got = MISS
    first_part = q.parts_at[s]
    for sub in range(q.n_parts[s]):
        g = _probe_test(q, q.part_slots[first_part + sub], pk, pn, r, ppos, prot, prad, phalf, pbound, pwx, pwy,
                        rule, hit, nrm, dep, m3, t3, tb3)
        if g == HIT:
            return HIT
        if g == OTHER:
            got = OTHER
    return got


@njit(cache=True)
def _probe_test(q: Any, s: int, pk: int, pn: int, r: int, ppos: Floats, prot: Floats, prad: Floats, phalf: Floats,
                pbound: Floats, pwx: Floats, pwy: Floats, rule: tuple[float, float], hit: Any, nrm: Floats,
                dep: Floats, m3: Floats, t3: Floats, tb3: Floats) -> int:
    """HIT, MISS or OTHER for probe row ``r`` against body ``s``: the exact test of :func:`_overlap`, step for step.

    Written twice on purpose: :func:`_overlap` (the batches) cannot call this
    (a plain call per candidate made the batched queries 2-3x slower), and
    numba refuses to inline it (``inline="always"`` with this many arguments
    fails in its inlining pass). Change the two together.
    """
    # The row index as np.int64 and the probe's vertex planes as strided views (as the
    # store's): numba compiles a row kernel once per literal value and array layout
    # it meets, and the World's step calls them so
    row0 = np.int64(0)
    pvx, pvy = pwx[:, :pwx.shape[1]], pwy[:, :pwy.shape[1]]
    kb = q.kind[s]
    dim = ppos.shape[1]
    position = q.position
    if kb != HALFSPACE:
        # the bounding-ball reject of the narrowphase (probe as a, body as b), operation for operation
        reach = pbound[r] + q.bound_radius[s]
        g = ppos[r, 0] - position[s, 0]
        size = abs(ppos[r, 0])
        spread = abs(g)
        dist2 = g * g
        for d in range(1, dim):
            g = ppos[r, d] - position[s, d]
            size = max(size, abs(ppos[r, d]))
            spread = max(spread, abs(g))
            dist2 += g * g
        slack = 2.0 * (rule[0] * abs(size + spread + reach))
        limit = reach * (1 + 1e-9) + slack
        if dist2 > limit * limit:
            return MISS
    if kb == CAPSULE:
        return _capsule_bound(position, q.rotation, q.radius, q.seg0, q.seg1, s, pk, r, ppos, prad, phalf, pbound,
                              rule[0])
    if kb > CAPSULE or (kb == POLYGON and not q.simple[s]):
        return OTHER  # past the reject: settle_rows (and query_round) test it (see _overlap)
    # (and every row the routines read, as in _overlap)
    vpos, vrot, vrad, vhalf = ppos[..., ::1], prot[..., ::1], prad[..., ::1], phalf[..., ::1]
    bpos, brot, brad, bhalf = position[..., ::1], q.rotation[..., ::1], q.radius[..., ::1], q.half[..., ::1]
    world_x, world_y = q.world_x[..., ::1], q.world_y[..., ::1]
    # canonical order: the lower kind is side a (a hit does not depend on the normal's sign)
    if kb == HALFSPACE:
        if pk == BALL:
            _halfspace_ball(q.plane_normal, q.plane_offset, s, vpos, vrad, r, rule, row0, hit, nrm, dep)
        elif pk == BOX:
            _halfspace_box(q.plane_normal, q.plane_offset, s, vpos, vrot, vhalf, r, rule, row0, hit, nrm, dep)
        else:
            _halfspace_points(q.plane_normal, q.plane_offset, s, pvx, pvy, r, pn, rule, row0, hit, nrm, dep)
    elif pk == BALL:
        if kb == BALL:
            _ball_ball(vpos, vrad, r, bpos, brad, s, rule, row0, hit, nrm, dep)
        elif kb == BOX:
            _ball_box(vpos, vrad, r, bpos, brot, bhalf, s, rule, row0, hit, nrm, dep)
        else:
            _ball_polygon(vpos, vrad, r, world_x, world_y, s, q.simple_n[q.poly[s]], rule, row0, hit, nrm, dep)
    elif pk == BOX:
        if kb == BALL:
            _ball_box(bpos, brad, s, vpos, vrot, vhalf, r, rule, row0, hit, nrm, dep)
        elif kb == BOX:
            if dim == 2:
                _box_box_2d(vpos, vrot, vhalf, r, bpos, brot, bhalf, s, rule, row0, hit, nrm, dep)
            else:
                _box_box_3d(vpos, vrot, vhalf, r, bpos, brot, bhalf, s, rule, row0, m3, t3, tb3, hit, nrm,
                            dep)
        else:
            _box_polygon(vpos, vrot, vhalf, r, world_x, world_y, s, q.simple_n[q.poly[s]], rule, row0, hit, nrm,
                         dep)
    else:  # a simple polygon probe
        if kb == BALL:
            _ball_polygon(bpos, brad, s, pvx, pvy, r, pn, rule, row0, hit, nrm, dep)
        elif kb == BOX:
            _box_polygon(bpos, brot, bhalf, s, pvx, pvy, r, pn, rule, row0, hit, nrm, dep)
        else:
            _polygon_polygon(pvx, pvy, r, pn, world_x, world_y, s, q.simple_n[q.poly[s]], rule, row0, hit, nrm, dep)
    return HIT if hit[0] else MISS


@njit(cache=True)
def _settle_rows(q: Any, pk: int, pn: int, ppos: Floats, prot: Floats, prad: Floats, phalf: Floats, pbound: Floats,
                 pwx: Floats, pwy: Floats, rows: Index, slots: Index) -> NDArray[np.int8]:
    """HIT, MISS or OTHER for each "other" pair ``(rows[t], slots[t])`` the query kernels left.

    :func:`_probe_body`'s test, with the capsules (segments) and hulls it
    leaves (past the reject) tested by :func:`_capsule_hull_test`. The one
    entry point that links those kernels: :func:`_overlap` and
    :func:`_point_one` leave such pairs here instead of calling them,
    since numba optimises a callee's code again in every caller that links
    it (one entry point here instead of five: ``_overlap``, ``_boxes_q``,
    ``_shapes_q``, ``_probe_test``, ``_probe_body`` and ``_point_one``).
    OTHER: still undecided (kinds no kernel here tests), for the numpy path.
    """
    rule = (q.rel, q.floor)
    dim = ppos.shape[1]
    n = rows.shape[0]
    codes = np.empty(n, dtype=np.int8)
    hit = np.empty(1, dtype=np.bool_)
    nrm = np.empty((1, dim))
    dep = np.empty(1)
    m3 = np.empty((3, 3))
    t3 = np.empty(3)
    tb3 = np.empty(3)
    kind = q.kind
    for t in range(n):
        r = rows[t]
        s = slots[t]
        n_sub = 1
        first_part = -1
        if kind[s] == COMPOUND:
            n_sub = q.n_parts[s]
            first_part = q.parts_at[s]
        got = MISS
        for sub in range(n_sub):
            u = s if first_part < 0 else q.part_slots[first_part + sub]
            g = _probe_test(q, u, pk, pn, r, ppos, prot, prad, phalf, pbound, pwx, pwy, rule, hit, nrm, dep, m3, t3,
                            tb3)
            if g == OTHER and (kind[u] == CAPSULE or kind[u] == HULL):
                g = HIT if _capsule_hull_test(q, u, pk, pn, r, ppos, prot, prad, phalf, pwx, pwy, rule) else MISS
            if g == HIT:
                got = HIT
                break
            if g == OTHER:
                got = OTHER
        codes[t] = got
    return codes


def settle_rows(q: QueryArrays, pk: int, pn: int, ppos: Floats, prot: Floats, prad: Floats, phalf: Floats,
                pbound: Floats, pwx: Floats, pwy: Floats, rows: Index, slots: Index) -> NDArray[np.int8]:
    """HIT, MISS or OTHER for the "other" pairs ``(rows[t], slots[t])`` of a query of probes of kind ``pk``.

    The probes' rows as :func:`box_probe_rows` or :func:`shape_probe_rows` make them. The query kernels
    (:func:`box_slots`, :func:`shape_slots`, :func:`point_slots`) leave capsules (segments) and hulls
    among their "other" pairs; this tests them (OTHER: kinds left to the numpy path).

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Capsule, World
    >>> from collideworld.queries import QueryIndex
    >>> w = World(dim=2, backend="compiled")
    >>> w.add(Capsule((0, 0), (2, 0), 0.5))
    0
    >>> index = QueryIndex(w._store, "compiled")
    >>> grid = index.refresh()
    >>> probes = box_probe_rows(np.array([[1.0, 0.25], [1.0, 0.75]]), np.zeros((2, 2)), index.rule)
    >>> settle_rows(index.arrays, BALL, 0, *probes, np.array([0, 1]), np.array([0, 0])).tolist() == [HIT, MISS]
    True
    """
    return _settle_rows(q, pk, pn, ppos, prot, prad, phalf, pbound, pwx, pwy, rows, slots)


def box_probe_rows(center: Floats, hw: Floats, rule: tuple[float, float]) -> tuple[Floats, ...]:
    """Points or boxes ``center ± hw`` (C-contiguous (m, D)) as :func:`settle_rows`' probe rows, as :func:`box_slots`
    makes them: ``(ppos, prot, prad, phalf, pbound, pwx, pwy)``; ``rule``: the index's touching rule.

    Examples
    --------
    >>> import numpy as np
    >>> rows = box_probe_rows(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]]), (1e-14, 1.0))
    >>> rows[1].tolist(), rows[4].tolist()   # axis-aligned; the bounding radius of half extents 3, 4
    ([[[1.0, 0.0], [0.0, 1.0]]], [5.0])
    """
    _, _, prot, prad, pbound = _box_probes(center, hw, rule)
    no = np.empty((0, center.shape[1]))
    return center, prot, prad, hw, pbound, no, no


def shape_probe_rows(pos: Floats, cos: Floats, sin: Floats, unit: Floats, lx: Floats, ly: Floats, rad: float,
                     hw: Floats, bound: float) -> tuple[Floats, ...]:
    """One shape at ``m`` poses (:func:`shape_slots`' arguments) as :func:`settle_rows`' probe rows.

    Examples
    --------
    >>> import numpy as np
    >>> rows = shape_probe_rows(np.array([[1.0, 2.0]]), np.ones(1), np.zeros(1), np.zeros((0, 4)), np.zeros(0),
    ...                         np.zeros(0), 0.5, np.zeros(2), 0.5)
    >>> rows[1].tolist(), rows[2].tolist()   # a ball of radius 0.5 at angle 0
    ([[[1.0, -0.0], [0.0, 1.0]]], [0.5])
    """
    prot, prad, phalf, pbound, pwx, pwy = _shape_probes(pos, cos, sin, unit, lx, ly, rad, hw, bound)
    return pos, prot, prad, phalf, pbound, pwx, pwy


@njit(cache=True)
def _point_one(q: Any, x: float, y: float, z: float, hx: float, hy: float, hz: float, ball: bool, cat: int,
               msk: int) -> int:
    """One point (``ball``) or axis-aligned box ``(x, y, z) ± (hx, hy, hz)``: its one hit's slot, or a code.

    The walk and tests of :func:`_boxes_q` for one probe, in the index's
    scratch arrays (a single query's cost is mostly fixed costs: twenty small
    allocations and a returned array were most of it). Returns the slot of
    the only body met when exactly one is and none is left unsettled;
    ``NO_HIT``; ``SEE_SCRATCH``: ``point_work[POINT_COUNTS]`` holds ``[K, U]``,
    ``point_work[POINT_HITS][:K]`` the hits in add order and ``point_work[POINT_OTHERS][:U]`` the
    candidates the kernel does not settle (polygons that are not simple,
    cylinders, cones, rounded shapes); ``TOO_MANY``: more than ``SINGLE_CAPACITY`` of either, ask
    the batch kernel.
    """
    row0 = np.int64(0)  # not a literal: numba would compile boxes_meet and the row kernels once more for it
    dim = q.position.shape[1]
    sc = q.point_work
    ppos, phalf, prot, prad, pbound, qlo, qhi, no = sc[0], sc[1], sc[2], sc[3], sc[4], sc[5], sc[6], sc[7]
    hit, nrm, dep, m3, t3, tb3, c0, c1 = sc[8], sc[9], sc[10], sc[11], sc[12], sc[13], sc[14], sc[15]
    out, oth, counts = sc[POINT_HITS], sc[POINT_OTHERS], sc[POINT_COUNTS]
    tag = sc[16][0]  # a tag of the single queries' own (see scratch)
    sc[16][0] = tag - 1
    rule = (q.rel, q.floor)
    ppos[0, 0], ppos[0, 1], phalf[0, 0], phalf[0, 1] = x, y, hx, hy
    if dim == 3:
        ppos[0, 2], phalf[0, 2] = z, hz
    # the probe's box as _box_probes widens it: tol of (max |center| + max half)
    mc = abs(ppos[0, 0])
    mh = phalf[0, 0]
    b2 = 0.0
    for k in range(dim):
        mc = max(mc, abs(ppos[0, k]))
        mh = max(mh, phalf[0, k])
        b2 += phalf[0, k] * phalf[0, k]
        prot[0, k, k] = 1.0  # (the rest of the scratch rotation stays zero)
    prad[0] = 0.0
    tol = rule[0] * max(rule[1], mc + mh)
    for k in range(dim):
        qlo[0, k] = ppos[0, k] - phalf[0, k] - tol
        qhi[0, k] = ppos[0, k] + phalf[0, k] + tol
    pbound[0] = np.sqrt(b2)
    pk = BALL if ball else BOX
    cap = out.shape[0]
    n_out = 0
    n_oth = 0
    category = q.category
    bits = q.bits
    serial = q.serial
    stamp = q.stamp
    handles = q.handles
    lo = q.lo
    hi = q.hi
    cell = q.cell
    for k in range(3):
        c0[k] = 0
        c1[k] = 0
    ncells = 1
    for k in range(dim):
        c0[k] = math.floor(qlo[0, k] / cell)
        c1[k] = math.floor(qhi[0, k] / cell)
        ncells *= c1[k] - c0[k] + 1
    walk = q.n_gridded > 0 and ncells <= q.max_cells
    planes, big = q.planes, q.big  # (each field read takes a reference: once, not in the loop)
    n_p = planes.shape[0]
    n_big = big.shape[0]
    # candidates, in turn: the grid's buckets (walk) or every box (scan), then the big boxes, then the half-spaces
    starts, entries, elo, ehi = q.starts, q.entries, q.elo, q.ehi
    a = c0[0]
    b = c0[1]
    c = c0[2]
    e = 0
    e_end = 0
    if walk:
        key = cell_hash(a, b, c, dim, q.gmask)
        e, e_end = starts[key], starts[key + 1]
    phase = 0 if walk else 1  # 0 buckets, 1 scan, 2 big boxes, 3 half-spaces
    t = np.int64(0)  # not the literal 0, which boxes_meet below was compiled for once more
    while True:
        s = -1
        if phase == 0:
            if e < e_end:
                if boxes_meet(elo, ehi, e, qlo, qhi, row0, dim):
                    j = entries[e]
                    if stamp[j] != tag:
                        stamp[j] = tag
                        s = handles[j]
                e += 1
            else:  # next cell
                c += 1
                if c > c1[2]:
                    c = c0[2]
                    b += 1
                    if b > c1[1]:
                        b = c0[1]
                        a += 1
                if a > c1[0]:
                    phase = 2
                    t = 0
                else:
                    key = cell_hash(a, b, c, dim, q.gmask)
                    e, e_end = starts[key], starts[key + 1]
                continue
        elif phase == 1:
            if t < lo.shape[0]:
                if boxes_meet(lo, hi, t, qlo, qhi, row0, dim):
                    s = handles[t]
                t += 1
            else:
                phase = 3
                t = 0
                continue
        elif phase == 2:
            if t < n_big:
                if boxes_meet(lo, hi, big[t], qlo, qhi, row0, dim):
                    s = handles[big[t]]
                t += 1
            else:
                phase = 3
                t = 0
                continue
        else:
            if t >= n_p:
                break
            s = planes[t]
            t += 1
        if s < 0 or (category[s] & msk) == 0 or (cat & bits[s]) == 0:
            continue
        got = _probe_body(q, s, pk, row0, row0, ppos, prot, prad, phalf, pbound, no, no, rule, hit, nrm, dep, m3, t3,
                          tb3)
        if got == HIT:
            if n_out == cap:
                return TOO_MANY
            # insertion by serial: a probe's hits are few
            k = n_out
            while k > 0 and serial[out[k - 1]] > serial[s]:
                out[k] = out[k - 1]
                k -= 1
            out[k] = s
            n_out += 1
        elif got == OTHER:
            if n_oth == cap:
                return TOO_MANY
            oth[n_oth] = s
            n_oth += 1
    if n_oth == 0 and n_out <= 1:
        return out[0] if n_out else NO_HIT
    counts[0] = n_out
    counts[1] = n_oth
    return SEE_SCRATCH


@njit(cache=True)
def _row_bounds(q: Any, rows: Index) -> tuple[Floats, Floats, bool]:
    dim = q.position.shape[1]
    m = rows.shape[0]
    lo = np.empty((m, dim))
    hi = np.empty((m, dim))
    for r in range(m):
        s = rows[r]
        kb = q.kind[s]
        if kb > POLYGON or kb == HALFSPACE or (kb == POLYGON and not q.simple[s]):
            return lo, hi, False
        scale = 0.0
        for k in range(dim):
            if kb == BALL:
                a = q.position[s, k] - q.radius[s]
                b = q.position[s, k] + q.radius[s]
            elif kb == BOX:
                ext = 0.0
                for j in range(dim):
                    ext += abs(q.rotation[s, k, j]) * q.half[s, j]
                a = q.position[s, k] - ext
                b = q.position[s, k] + ext
            else:  # the posed vertices, padded by the last
                col = q.world_x if k == 0 else q.world_y
                a = col[0, s]
                b = col[0, s]
                for v in range(1, col.shape[0]):
                    a = min(a, col[v, s])
                    b = max(b, col[v, s])
            lo[r, k] = a
            hi[r, k] = b
            scale = max(scale, max(abs(a), abs(b)))
        tol = q.rel * max(q.floor, scale)
        for k in range(dim):
            lo[r, k] -= tol
            hi[r, k] += tol
    return lo, hi, True


def row_bounds(q: QueryArrays, rows: Index) -> tuple[Floats, Floats] | None:
    """Tight boxes ``(lo, hi)`` (k, D) of balls, boxes and simple polygons ``rows``, widened by the touching tolerance.

    The arithmetic of :func:`_probe_bounds` on the store's own rows (to
    rounding, the boxes of ``fat_boxes.tight_bounds``): what a grid patch
    needs for a few moved bodies, without the numpy path's grouping by kind.
    None when some row is of another kind.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle, World
    >>> from collideworld.queries import QueryIndex
    >>> w = World(dim=2, backend="compiled")
    >>> w.add(Circle(1.0), position=(2, 0))
    0
    >>> index = QueryIndex(w._store, "compiled")
    >>> _ = index.refresh()
    >>> lo, hi = row_bounds(index.arrays, np.array([0]))
    >>> np.round(lo, 9).tolist(), np.round(hi, 9).tolist()
    ([[1.0, -1.0]], [[3.0, 1.0]])
    """
    lo, hi, ok = _row_bounds(q, rows)
    return (lo, hi) if ok else None
