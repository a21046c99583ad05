"""Queries against the bodies of a world: shapes, points, boxes and rays, single and batched.

A query asks the same kernels as a step (the narrowphase's dispatch tables
:data:`~collideworld.narrowphase.PAIR_KERNELS` and
:data:`~collideworld.narrowphase.RAY_KERNELS`), on the bodies near the query
only. "Near" comes from a :class:`~collideworld.spatial.GridIndex` over the
boxes of :func:`~collideworld.fat_boxes.query_bounds` (the fat boxes, and the
tight box of every body posed since the last step), kept by
:class:`QueryIndex` beside the broadphase and brought up to date on the first
query after any body changed (the store's ``version``): rebuilt (numpy
backend) or patched in place (compiled backend). A query then costs the
bodies near it, not the bodies in the world.

numpy backend (and the reference): probes (a query's shapes, points and
boxes, one row per placement) never enter the world's store: they go, with
copies of the candidate bodies' rows, into a scratch
:class:`~collideworld.bodies.BodyStore` on which the narrowphase runs as
usual. The scratch store shares the world's polygon part table, which is
left as it was found.

Compiled backend: each query is one compiled call
(:mod:`collideworld.compiled.queries`: grid walk, filters, exact tests and
ordering), with the numpy path settling only the pairs that call leaves
(capsules, hulls, polygons that are not simple).

Inputs are checked by the :class:`~collideworld.world.World` methods that
call these functions.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .backend import register_warm_up
from .bodies import SIMPLE_POLYGON_VERTICES, BodyStore, Kind, kind_of
from .fat_boxes import query_bounds, set_fat_bounds, tight_bounds
from .geometry.raycast import PARALLEL_RATE
from .geometry.tolerance import touch_tolerance
from .narrowphase import contact_pairs, ray_rounded, raycast_slots
from .poses import check_quaternions
from .shapes import Compound, Shape
from .spatial import GridIndex
from .spatial.grid import MIN_GRIDDED
from .threads import batch_threads, run_split

if TYPE_CHECKING:
    from .proximity import PieceTable


def _prox() -> Any:
    """:mod:`.proximity`, imported on first use: it imports numba (GJK), which ``import collideworld`` must not."""
    from . import proximity

    return proximity

__all__ = ["RayHit", "RayHitArrays", "NearHit", "CastHit", "QueryIndex", "overlapping", "ray_hits", "ray_hits_many",
           "ids_in_order", "nearest", "within", "cast_hits", "one_call_shape", "point_ids", "box_hits", "shape_hits",
           "numpy_path_counts", "count_numpy_path", "warm_up_capsule_hull_queries",
           "row_serial_order"]

Slots = NDArray[np.int64]
Floats = NDArray[np.float64]

#: how many times each query ran on the numpy path while its index was on the compiled backend (see
#: :func:`numpy_path_counts`): whole, under its name, or partly (a compiled query that left some bodies to
#: the numpy kernels), under its name and ":some"
_NUMPY_PATHS: dict[str, int] = {}


def count_numpy_path(query: str, some: bool = False) -> None:
    """Note that ``query`` ran on the numpy path (``some``: for some of its bodies) with the compiled backend on.

    Examples
    --------
    >>> _ = numpy_path_counts(reset=True)
    >>> count_numpy_path("nearest"); count_numpy_path("raycast", some=True)
    >>> numpy_path_counts(reset=True)
    {'nearest': 1, 'raycast:some': 1}
    """
    key = query + ":some" if some else query
    _NUMPY_PATHS[key] = _NUMPY_PATHS.get(key, 0) + 1


def numpy_path_counts(reset: bool = False) -> dict[str, int]:
    """How many times each query ran on the numpy path with the compiled backend active, by query name.

    A cheap flag for tests and benchmarks (``benchmarks/kinds.py``): a query
    that should run compiled and appears here fell off its compiled path.
    Keys: ``raycast``, ``raycast_many``, ``overlapping`` (point, box and
    shape queries), ``nearest``, ``within``, ``cast`` for a whole query;
    the same with ``:some`` when a compiled query left some of its bodies
    (kinds its kernels do not cover, half-spaces met by a ray) to the numpy
    kernels. ``reset``: start counting again (the counts before are returned).

    Examples
    --------
    >>> from collideworld import Circle, Polygon, World
    >>> _ = numpy_path_counts(reset=True)
    >>> w = World(dim=2, backend="compiled")
    >>> _ = w.add(Circle(1.0), position=(5, 0)), w.add(Polygon([(0, 0), (1, 0), (0, 1)]), position=(50, 50))
    >>> [h.id for h in w.raycast((0, 0), (1, 0))], numpy_path_counts()
    ([0], {})
    """
    counts = dict(_NUMPY_PATHS)
    if reset:
        _NUMPY_PATHS.clear()
    return counts


#: The kind a rounded shape's packed row carries: above every kind the compiled exact tests and ray
#: walks handle, so they leave its pairs to the numpy kernels, which grow the core by the radius.
ROUNDED_ROW = 63
#: a 3D store's stand-in for the 2D polygons' posed vertices (``BodyStore.world_xy``)
_NO_XY = np.zeros((0, 8, 2))
#: compiled.queries.OTHER: a pair its kernels left undecided
_OTHER_CODE = 2

# Kind codes as plain ints: a patch compares with them a few times, and an enum member's lookup costs ~1 us
_HALFSPACE, _BOX = int(Kind.HALFSPACE), int(Kind.BOX)
#: the kinds cast_left sorts rows by, as ints (an IntEnum member lookup costs more than the compare)
_BALL, _POLYGON, _CAPSULE, _HULL, _COMPOUND = (int(Kind.BALL), int(Kind.POLYGON), int(Kind.CAPSULE),
                                               int(Kind.HULL), int(Kind.COMPOUND))

class RayHit(NamedTuple):
    """One body hit by :meth:`World.raycast`.

    Attributes
    ----------
    id : str or int
    point : ndarray of float64, shape (D,)
        Where the ray first meets the body (the origin if it starts inside).
    normal : ndarray of float64, shape (D,)
        Unit outward surface normal there (``-direction`` from inside).
    distance : float
        Along the ray, in world units.

    Examples
    --------
    A ray from the origin along +x enters the unit circle at (5, 0) at x = 4:

    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add(Circle(1.0), position=(5, 0), id="target")
    'target'
    >>> [hit] = w.raycast((0, 0), (1, 0))
    >>> hit.id, hit.point.tolist(), hit.normal.tolist(), hit.distance
    ('target', [4.0, 0.0], [-1.0, 0.0], 4.0)
    """

    id: Any
    point: NDArray[np.float64]
    normal: NDArray[np.float64]
    distance: float


class RayHitArrays(NamedTuple):
    """Hits of many rays (:meth:`World.raycast_many`), one row per hit, as arrays.

    Attributes
    ----------
    ray : ndarray of int64, shape (K,)
        Which ray (its index in the input). Rows are sorted by ray, then by
        distance, then by add order; with first hits only, a ray appears at
        most once (a ray that hits nothing does not appear).
    id : ndarray of object, shape (K,)
        The body hit.
    distance : ndarray of float64, shape (K,)
    point : ndarray of float64, shape (K, D)
    normal : ndarray of float64, shape (K, D)
        Unit outward surface normal at the hit (``-direction`` from inside).

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add(Circle(1.0), position=(5, 0), id="disc")
    'disc'
    >>> h = w.raycast_many([[0, 0], [0, 3]], [[1, 0], [1, 0]])
    >>> h.ray.tolist(), h.id.tolist(), h.distance.tolist()
    ([0], ['disc'], [4.0])
    """

    ray: Slots
    id: NDArray[Any]
    distance: Floats
    point: Floats
    normal: Floats


#: a compiled grid registers each body's box grown by this fraction of its size on every side: a body then
#: moves a while before its box leaves the registered one and its row must move between buckets (the
#: fat boxes' own margin, 0.1 radii by default, is crossed in a frame or two by units on the move)
SLACK = 0.25


def _slack(lo: Floats, hi: Floats) -> tuple[Floats, Floats]:
    """Boxes grown by ``SLACK`` of their size on every side (empty boxes, of absent rows, stay empty)."""
    grow = SLACK * (hi - lo).max(axis=1, initial=0.0)[:, None]
    grow = np.where(np.isfinite(grow), np.maximum(grow, 0.0), 0.0)
    return lo - grow, hi + grow


class QueryIndex:
    """The spatial index the queries use, brought up to date when a body changed since it was last.

    It holds a :class:`~collideworld.spatial.GridIndex` over the
    :func:`~collideworld.fat_boxes.query_bounds` boxes of the finite bodies,
    and the slots of the half-spaces (met by every query). "Changed" is the
    store's ``version``, bumped by every pose, shape and slot change; a step
    that only refits fat boxes keeps the index, whose boxes still hold every
    body.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add_many(Circle(0.5), [[0, 0], [10, 0]])
    [0, 1]
    >>> index = QueryIndex(w._store, "numpy")
    >>> grid = index.refresh()
    >>> grid.query_box(np.array([9.0, -1.0]), np.array([9.6, 1.0])).tolist()   # slot of body 1
    [1]
    >>> index.refresh() is grid      # nothing changed: the same index
    True
    """

    def __init__(self, store: BodyStore, backend: str) -> None:
        self.store = store
        self._backend = backend
        self._built_for = backend  # the backend the grid was last built for
        #: the store version the grid was last brought up to date for
        self.grid_version = -1
        self._grid: GridIndex | None = None
        self.planes: Slots = np.zeros(0, dtype=np.int64)
        self.bounds: tuple[Floats, Floats] = (np.zeros(store.dim), -np.ones(store.dim))
        #: a small probe store single queries fill again and again (see shape_probes)
        self.probe: BodyStore | None = None
        #: compiled grid: the serial each slot's row was registered for (-1: none), changes since the build
        self._registered: Slots = np.zeros(0, dtype=np.int64)
        self._changes = 0
        #: compiled backend: the grid's and the store's arrays as the one-call queries take them
        self._grid_head: tuple[Any, ...] = ()
        self._body_args: tuple[Any, ...] = ()
        self.rule: tuple[float, float] = (0.0, 0.0)
        #: compiled backend: the arrays above as one numba argument (compiled.queries.QueryArrays)
        self.arrays: Any = None
        #: compiled backend: the single queries' scratch arrays (compiled.queries.scratch), their results too
        self.work: tuple[tuple[Any, ...], ...] = ()
        #: compiled backend: where the single ray query leaves its hits' rows (one of ``work``)
        self.ray_rows: Floats = np.zeros((0, 0))
        #: its first row's [slot, distance] and [point, normal]
        self.ray_head: tuple[Floats, Floats] = (self.ray_rows, self.ray_rows)
        #: the identities of the arrays ``arrays`` was made of (see _fast_arrays)
        self._arrays_key: Any = None
        self._fixed_key: Any = None  # (see _fast_arrays)
        self.point_fn: Any = None
        self.ray_fn: Any = None
        self.shapes_fn: Any = None
        #: held while a batched kernel (which releases the GIL) runs on this index: two Python threads querying
        #: one world take turns, as they did when every kernel held the GIL. The batches' stamps are their own
        #: (GridIndex.stamps), apart from the single point and ray queries' (which hold the GIL)
        self.lock = threading.Lock()
        #: ``arrays`` for the second, third... thread of a batch (see arrays_for), and the ``arrays`` they copy
        self._thread_arrays: list[Any] = []
        self._thread_arrays_of: Any = None
        #: compiled backend: the columns the exact tests read, one row per slot (see _pack), and their views
        self._packed: Floats = np.zeros((0, 0))
        #: the kinds packed, once a rounded shape was met (see _pack)
        self._row_kind: NDArray[np.int8] = np.zeros(0, dtype=np.int8)
        self.packed_views: tuple[Any, ...] = ()
        #: compiled backend: every slot's shape packed for the batched proximity kernels (see pieces)
        self._piece_table: PieceTable | None = None  # made on first use (see _prox)
        self._piece_seen: list[Shape | None] = []
        self._piece_ids: list[int] = []
        self._piece_version = -1
        self._piece_of: Slots = np.zeros(0, dtype=np.int64)
        #: how many times the grid was brought up to date (patched or rebuilt), and rebuilt: what a test reads to
        #: tell that a query found the index ready (see follow_step)
        self.refreshes = 0
        self.rebuilds = 0

    @property
    def backend(self) -> str:
        """The queries' backend: the world's.

        (A rounded shape's row is packed with the kind ``ROUNDED_ROW``, which
        the compiled exact tests and ray walks leave to the numpy kernels, as
        they leave capsules: those grow the cores. The proximity queries'
        pieces carry the rounding radius themselves.)
        """
        return self._backend

    @backend.setter
    def backend(self, value: str) -> None:
        self._backend = value

    def refresh(self) -> GridIndex:
        """The index, brought up to date first if the store changed.

        numpy backend: rebuilt, O(n). Compiled backend: patched, moving only
        the bodies whose box left the box the grid holds for them (and the
        added and removed ones), O(n) compiled compares plus O(cells) per
        such body (a body's box is registered grown by ``SLACK``, so a moving
        body moves between buckets only every few frames); rebuilt when the
        store's slots were renumbered or grew, when more than a quarter of
        the bodies were added or removed since the build, or when the grid's
        spare room ran out. O(1) when nothing changed.
        """
        st = self.store
        if self._grid is not None and self.grid_version == st.version:
            return self._grid
        self.refreshes += 1
        if not (self.backend == "compiled" and self._grid is not None and self._built_for == "compiled"
                and self._patch()):
            self.rebuilds += 1
            self._rebuild()
        self.grid_version = st.version
        if self.backend == "compiled":
            self._fast_arrays()
        assert self._grid is not None
        return self._grid

    def follow_step(self) -> None:
        """Bring a compiled grid up to date at the end of a step, so the next query finds it ready.

        ``World.step()`` calls it last. The queries' boxes are the fat boxes the
        step has just refitted (:func:`~collideworld.fat_boxes.query_bounds`),
        and the bodies posed since the last step are those the journal lists: the
        patch is the one the first query would make (same rows, same boxes, so
        the same answers), paid in the step instead of by a query (issue 28: a
        query right after a busy step cost 60-80 % of the step). Only once a
        compiled grid exists (the world was queried): a world that is only
        stepped pays nothing. The numpy backend rebuilds on its first query, as
        before.

        Examples
        --------
        >>> import numpy as np
        >>> from collideworld import Circle, World
        >>> w = World(dim=2, backend="compiled")
        >>> w.add_many(Circle(0.5), [[0, 0], [10, 0]])
        [0, 1]
        >>> w.query_point((0, 0))
        [0]
        >>> w.move_many([0, 1], [[1, 0], [11, 0]]); c = w.step()
        >>> index = w._index
        >>> index.grid_version == w._store.version      # ready: the query below does not refresh
        True
        >>> n = index.refreshes; w.query_point((11, 0)), index.refreshes == n
        ([1], True)
        """
        if (self._grid is not None and self._backend == "compiled" and self._built_for == "compiled"
                and self.grid_version != self.store.version):
            self.refresh()

    def pieces(self) -> tuple[PieceTable, Slots]:
        """The slots' shapes packed in one table for the batched proximity kernels, and each slot's index in it.

        Made again only when a slot's shape changed (compared by identity);
        shapes no body holds any more are dropped when they outnumber the
        live ones.
        """
        st = self.store
        if self._piece_table is None:
            self._piece_table = _prox().PieceTable()
        if st.version == self._piece_version:
            return self._piece_table, self._piece_of
        self._piece_version = st.version
        # by identity: the list seen holds its shapes alive, so no new shape can have the id of one of them
        ids = list(map(id, st.shapes))
        if ids != self._piece_ids:
            self._piece_ids = ids
            table = self._piece_table
            live = {id(sh) for sh in st.shapes if sh is not None}
            if len(table) > 2 * len(live) + 64:
                table = self._piece_table = _prox().PieceTable()
            self._piece_of = np.array([-1 if sh is None else table.index_of(sh) for sh in st.shapes],
                                      dtype=np.int64)
            self._piece_seen = list(st.shapes)
        return self._piece_table, self._piece_of

    #: free entries per bucket in use in a compiled grid, for patches
    SPARE = 2

    def _rebuild(self) -> None:
        st = self.store
        st.take_changes()  # the journal starts again from this build
        live = st.body_slots()  # a compound's part slots are found through their body
        kinds = st.kind[live]
        finite = live[kinds != Kind.HALFSPACE]
        self.planes = live[kinds == Kind.HALFSPACE]
        lo, hi = query_bounds(st)
        if self.backend == "compiled":
            # one row per slot (the others empty boxes): a patch then finds a body's row by its
            # slot, and the compiled tests read the packed rows by slot (see _pack)
            lo, hi = _slack(lo, hi)  # (the grid copies them again: it will patch its own)
            absent = np.ones(st.capacity, dtype=bool)
            absent[finite] = False
            lo[absent], hi[absent] = np.inf, -np.inf
            self._grid = GridIndex(lo, hi, np.arange(st.capacity, dtype=np.int64), "compiled", members=finite,
                                   spare=self.SPARE)
            self._registered = np.where(absent, -1, st.serial)
            self._built_for = "compiled"
            self._changes = 0
            self._pack(None)
            self.bounds = (lo[finite].min(axis=0, initial=np.inf), hi[finite].max(axis=0, initial=-np.inf))
            return
        lo, hi = lo.take(finite, axis=0), hi.take(finite, axis=0)
        if self._backend == "compiled":  # a compiled world's queries on the numpy path (rounded shapes)
            count_numpy_path("rounded")
            self.arrays = None
        self._built_for = self.backend
        self._grid = GridIndex(lo, hi, finite, self.backend)
        self.bounds = (lo.min(axis=0, initial=np.inf), hi.max(axis=0, initial=-np.inf))

    def _patch(self) -> bool:
        """Bring a compiled grid up to date in place; False when it should be rebuilt instead.

        The rows to look at come from the store's change journal
        (:meth:`BodyStore.take_changes`): O(changed). When the journal gave up
        (many changes, or renumbered slots), every row is compared (O(n)
        compiled compares), or the grid is rebuilt.
        """
        st = self.store
        g = self._grid
        assert g is not None
        look = st.take_changes()
        if g.n != st.capacity:
            return False
        self._pack(look)  # first: the tight bounds below are computed from the packed rows
        if look is None:  # every row: compare the boxes the grid holds with the boxes now
            lo, hi = query_bounds(st)
            gridded = (st.kind > _HALFSPACE) & (st.owner < 0)
            look, ident = np.arange(st.capacity, dtype=np.int64), st.serial
            planes = np.flatnonzero(st.kind == _HALFSPACE)
            if not np.array_equal(planes, self.planes):  # (the same array kept: the query arrays keep theirs)
                self.planes = planes
        else:
            # finite bodies only: a compound's part slots are found through their body
            kinds = st.kind.take(look)
            gridded = (kinds > _HALFSPACE) & (st.owner.take(look) < 0)
            moved = look[st.moved.take(look) & gridded]
            lo, hi = st.fat_lo.take(look, axis=0), st.fat_hi.take(look, axis=0)  # query_bounds, of these rows
            if len(moved):
                at = np.searchsorted(look, moved)
                tight = _compiled().row_bounds(self.arrays, moved) if self.arrays is not None else None
                lo[at], hi[at] = tight_bounds(st, moved) if tight is None else tight
            ident = st.serial.take(look)
            # half-spaces are in no grid: added, removed or moved, they are just listed again
            if len(self.planes) or np.any(kinds == _HALFSPACE):
                self.planes = np.union1d(self.planes[~np.isin(self.planes, look)], look[kinds == _HALFSPACE])
        # Rows added or removed since the build: past a quarter of the bodies the cells may no longer fit their
        # sizes (and a rebuild costs about as much). Moved rows do not count: a move keeps the body's size, and
        # patching every row of a world that all moved is O(n) compiled (~0.1 ms for 2,000 bodies) where a
        # rebuild was 1.5-2 ms, the query right after a busy step paying it (issue 28). Crowding is caught by
        # the grid itself: a row whose new cells have no spare entry goes to the big list, and past its bound
        # follow() asks for the rebuild. The rows that left their boxes are found, moved (grown by SLACK) and
        # registered in one compiled pass (GridIndex.follow).
        ok, renewed, blo, bhi = g.follow(look, gridded, ident, lo, hi, self._registered, SLACK,
                                         max(256, st.count // 4) - self._changes)
        self._changes += renewed
        if not ok:
            return False
        if np.any(blo < self.bounds[0]) or np.any(bhi > self.bounds[1]):
            self.bounds = (np.minimum(self.bounds[0], blo), np.maximum(self.bounds[1], bhi))
        return True

    def _pack(self, slots: Slots | None) -> None:
        """Copy the columns the compiled exact tests read into one row per slot: all of them, or ``slots``.

        ``kind, serial, position, rotation, half, radius, bound_radius`` side by
        side (2D: 128 bytes a row, 3D: 192): a candidate body then costs its
        test two or three cache lines instead of one per column. Batched
        queries run with cold caches more often than not (after a frame's
        other work), and there every line is a wait: 10,000 points among
        100,000 boxes took 2.1 ms reading the columns and 1.6 ms reading rows,
        right after another library's work. The rows follow the store through
        the change journal, which every change of these columns goes through
        (the filters stay in the store's columns: ``set_filter`` does not
        journal, and the filter is read only for bodies the test hits).
        """
        st = self.store
        dim = st.dim
        width = 16 if dim == 2 else 24  # 2 + D + D^2 + D + 2 = 12 or 19, rounded up to whole cache lines
        if self._packed.shape[0] != st.capacity:
            # rows on cache-line boundaries (numpy aligns to 16 bytes): a row is then exactly two or three lines,
            # the lines the batched walks load ahead
            spare = np.zeros(st.capacity * width + 8)
            at = (-spare.ctypes.data % 64) // 8
            self._packed = spare[at:at + st.capacity * width].reshape(st.capacity, width)
            self.packed_views = _compiled().packed_columns(self._packed, dim)
            slots = None
        rows = np.arange(st.capacity, dtype=np.int64) if slots is None else slots
        kind = st.kind
        if st.n_rounded or len(self._row_kind) == st.capacity:
            # the packed kind of a rounded shape is ROUNDED_ROW: the compiled tests read cores, so they
            # hand its pairs to the numpy kernels (as a capsule's), which grow the core by the radius
            if len(self._row_kind) != st.capacity:
                self._row_kind = st.kind.copy()
                rows = np.arange(st.capacity, dtype=np.int64)
            kind = self._row_kind
            kind[rows] = np.where(st.rounding.take(rows) > 0, ROUNDED_ROW, st.kind.take(rows))
        _compiled().pack_rows(rows, kind, st.serial, st.position, st.rotation, st.half, st.radius,
                              st.bound_radius, self._packed)

    def _fast_arrays(self) -> None:
        """The argument tuples of :mod:`collideworld.compiled.queries` (refreshed with the grid)."""
        from .geometry.compiled.kernel_support import touch_rule
        from .spatial.grid import MAX_QUERY_CELLS

        g = self._grid
        assert g is not None
        st = self.store
        head = (g.lo, g.hi, g.cell, g.mask, g.starts, g.entries, *g.entry_boxes(), g.big, g.n_gridded,
                g.handles, MAX_QUERY_CELLS, g.stamp)
        # A patch mostly writes into the grid's arrays in place: when no array was replaced (and no
        # count changed), the QueryArrays of the last refresh still hold them all, and making it again
        # (with its entry points' lookup) was a sixth of moving one body and querying. (Its arrays
        # keep the old objects alive, so an id cannot be reused by a new one while it is compared.)
        columns = (st.kind, st.simple, st.position, st.rotation, st.radius, st.half, st.plane_normal,
                   st.plane_offset, st.bound_radius, st.world_xy if st.dim == 2 else None, st.poly,
                   st.parts.simple_n, st.category, st.mask,
                   st.serial, st.part_slots, st.parts_at, st.n_parts, self.planes, g.glo, g.ghi, self._packed,
                   st.seg0, st.seg1, st.hull, *self._hull_tables())
        key = (*map(id, head), g.cell, g.n_gridded, *map(id, columns), touch_rule())  # (cell, count: by value)
        if self.arrays is not None and key == self._arrays_key:
            return
        self._arrays_key = key
        self._grid_head = head
        # the key without what a patch replaces (the big list, its count, the half-spaces, the bounds)
        moving = (g.big, g.n_gridded, self.planes, g.glo, g.ghi)
        fixed = (*(id(a) for a in (*head, *columns) if not any(a is m for m in moving)), g.cell, touch_rule())
        same, self._fixed_key = fixed == self._fixed_key, fixed
        if self.arrays is not None and same:
            # only those changed: set in place
            _compiled().set_moving_fields(self.arrays, g.big, g.n_gridded, self.planes, g.glo, g.ghi)
            self._thread_arrays, self._thread_arrays_of = [], self.arrays  # their copies hold the old fields
            return
        planes_x = st.world_xy[:, :, 0].T if st.dim == 2 else _NO_PLANES
        planes_y = st.world_xy[:, :, 1].T if st.dim == 2 else _NO_PLANES
        kind, serial, position, rotation, half, radius, bound_radius = self.packed_views
        self._body_args = (kind, st.simple, position, rotation, radius, half, st.plane_normal,
                           st.plane_offset, bound_radius, planes_x, planes_y, st.poly, st.parts.simple_n,
                           st.category, st.mask, serial, st.part_slots, st.parts_at, st.n_parts, st.seg0, st.seg1,
                           st.hull, *self._hull_tables())
        self.rule = touch_rule()
        # the same arrays as one numba argument: what the single queries pass (see compiled.queries.QueryArrays)
        if not self.work:
            self.work = _compiled().scratch(st.dim)
            self.ray_rows = self.work[1][_compiled().RAY_ROWS]
            self.ray_head = (self.ray_rows[0, :2], self.ray_rows[0, 2:])  # (views made once: ~0.1 us each)
        self.arrays = _compiled().query_arrays(self.grid_fields(), self._body_args, self.rule, self.work)
        self._thread_arrays, self._thread_arrays_of = [], self.arrays  # (they hold the old arrays alive)
        # the compiled single point and ray queries, called without the dispatcher's typing
        self.point_fn, self.ray_fn, self.shapes_fn = _compiled().entry_points(self.arrays, g.take_tags(1), st.dim)

    def _hull_tables(self) -> tuple[Any, ...]:
        """The store's hull table (local vertices, face normals, a vertex of each face, edge ends, edge faces).

        The compiled exact tests pose a hull body's rows from these (issue 28: no numpy path for hulls).
        """
        h = self.store.hulls
        return (h.verts, h.normals, h.face_vertex, h.edge_ends, h.edge_faces)

    def arrays_for(self, k: int) -> Any:
        """``arrays`` for the ``k``-th thread running a part of a batch (0: ``arrays`` itself).

        Another :class:`~collideworld.compiled.queries.QueryArrays` of the same
        arrays. numba counts the references to an array's memory in one word,
        updated atomically as a kernel passes the array to the functions it
        calls; the arrays of one QueryArrays share their words with every
        thread reading it, and two threads then pass those cache lines back
        and forth between their cores on every call (measured: 10,000 points
        against 100,000 bodies took 1.27 ms on two threads sharing one,
        1.37 ms on one thread, 0.78 ms on two with one each). Each array
        reaching numba from Python gets a word of its own. Made on first use,
        dropped when ``arrays`` changes.

        Examples
        --------
        >>> from collideworld import Circle, World
        >>> w = World(dim=2, backend="compiled")
        >>> w.add(Circle(1.0))
        0
        >>> index = QueryIndex(w._store, "compiled")
        >>> _ = index.refresh()
        >>> index.arrays_for(0) is index.arrays, index.arrays_for(1) is index.arrays
        (True, False)
        """
        if k == 0:
            return self.arrays
        if self._thread_arrays_of is not self.arrays:
            self._thread_arrays, self._thread_arrays_of = [], self.arrays
        while len(self._thread_arrays) < k:
            self._thread_arrays.append(_compiled().query_arrays(self.grid_fields(), self._body_args, self.rule,
                                                                self.work))
        return self._thread_arrays[k - 1]

    def grid_fields(self) -> tuple[Any, ...]:
        """The grid's arrays and the half-space slots, in the order of ``compiled.queries.QUERY_FIELDS``.

        Examples
        --------
        >>> from collideworld import Circle, World
        >>> w = World(dim=2, backend="compiled")
        >>> w.add(Circle(1.0))
        0
        >>> index = QueryIndex(w._store, "compiled")
        >>> _ = index.refresh()
        >>> len(index.grid_fields())
        16
        """
        g = self._grid
        assert g is not None
        return self._grid_head + (self.planes, g.glo, g.ghi)

    def body_args(self) -> tuple[Any, ...]:
        """The store's columns the compiled queries read (after :meth:`refresh`; compiled backend).

        Examples
        --------
        >>> from collideworld import Circle, World
        >>> w = World(dim=2, backend="compiled")
        >>> index = QueryIndex(w._store, "compiled")
        >>> _ = index.refresh()
        >>> len(index.body_args())
        27
        """
        return self._body_args


def _passes_filter(store: BodyStore, category: int, mask: int, slots: Slots) -> NDArray[np.bool_]:
    passes: NDArray[np.bool_] = (((store.category.take(slots) & np.uint32(mask)) != 0)
                                 & ((np.uint32(category) & store.mask.take(slots)) != 0))
    return passes


def ids_in_order(store: BodyStore, slots: Slots) -> list[Any]:
    """Ids of bodies ``slots`` in add order.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add(Circle(1.0), id="a"), w.add(Circle(1.0), id="b")
    ('a', 'b')
    >>> ids_in_order(w._store, np.array([1, 0]))
    ['a', 'b']
    """
    ids: list[Any] = store.ids[slots[np.argsort(store.serial[slots], kind="stable")]].tolist()
    return ids


# -- probes -----------------------------------------------------------------------------

#: The store columns the narrowphase reads (besides the polygon planes of 2D stores).
_ROW_COLUMNS = ("kind", "position", "rotation", "radius", "half", "plane_normal", "plane_offset", "poly",
                "bound_radius", "simple", "seg0", "seg1", "hull", "straight", "rounding")


def _row_columns(dim: int) -> tuple[str, ...]:
    """The per-slot columns the narrowphase reads (2D adds the slot-major polygon vertices)."""
    return _ROW_COLUMNS + (("world_xy",) if dim == 2 else ("tri", "tri_active"))


def _scratch(store: BodyStore, m: int, reuse: BodyStore | None) -> BodyStore:
    """A store of at least ``m`` rows sharing ``store``'s part table: ``reuse`` if it is large enough."""
    if reuse is not None and reuse.capacity >= m:
        return reuse
    probe = BodyStore(store.dim, capacity=m)
    probe.parts = store.parts
    probe.hulls = store.hulls  # a probe's hull row must mean the same in the combined store
    return probe


def shape_probes(store: BodyStore, shape: Shape, position: Floats, angle: Floats | None,
                 quaternion: Floats | None, reuse: BodyStore | None = None) -> BodyStore:
    """A store whose rows ``0 .. m-1`` are ``shape`` at ``m`` poses (arrays already checked).

    It shares ``store``'s polygon part table; :func:`release_probes` gives
    back what it took there. ``reuse``: a store made here before (for the
    same ``store``), filled again if it holds ``m`` rows (single queries reuse
    one and skip the allocation of a store per call).

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Box, World
    >>> w = World(dim=2)
    >>> p = shape_probes(w._store, Box((1.0, 2.0)), np.array([[0.0, 0], [5, 0]]), np.zeros(2), None)
    >>> p.position[:2].tolist(), p.half[1].tolist()
    ([[0.0, 0.0], [5.0, 0.0]], [1.0, 2.0])
    >>> release_probes(p)
    """
    m = len(position)
    if isinstance(shape, Compound):
        return _compound_probes(store, shape, position, angle, quaternion)
    probe = _scratch(store, m, reuse)
    probe.set_shapes(np.zeros(1, dtype=np.int64), [shape])
    for name in _row_columns(store.dim):
        col = getattr(probe, name)
        col[1:m] = col[0]
    # only row 0 holds the part-table entry: release_probes frees it once
    probe.set_poses(np.arange(m, dtype=np.int64), position, angle, quaternion)
    return probe


def _compound_probes(store: BodyStore, shape: Compound, position: Floats, angle: Floats | None,
                     quaternion: Floats | None) -> BodyStore:
    """:func:`shape_probes` of a compound: a fresh store, each of the ``m`` rows owning part slots of its own.

    The parts take the store's lowest free slots, so rows ``0 .. m-1`` are
    allocated first: written over an unallocated row 0, the compound would
    hand that very slot to its first part, and the probe (its box, its
    shape) would become that part at the compound's origin.
    """
    m = len(position)
    probe = _scratch(store, m, None)
    rows = probe.allocate(m)
    probe.set_shapes(rows, [shape] * m)
    probe.set_poses(rows, position, angle, quaternion)
    return probe


def probe_bounds(probe: BodyStore, m: int) -> tuple[Floats, Floats]:
    """Boxes ``(lo, hi)`` (m, D) holding probe rows ``0 .. m-1``, all of one finite kind, widened like tight boxes.

    The arithmetic of :meth:`BodyStore.aabbs` for one kind, without its
    grouping (a single query pays for every numpy call).

    Examples
    --------
    >>> import numpy as np
    >>> p = box_probes(2, np.array([[1.0, 2.0]]), np.full((1, 2), 0.5), ball=False)
    >>> lo, hi = probe_bounds(p, 1)
    >>> np.round(lo, 9).tolist(), np.round(hi, 9).tolist()
    ([[0.5, 1.5]], [[1.5, 2.5]])
    """
    kind = int(probe.kind[0])
    if kind not in (Kind.BALL, Kind.BOX, Kind.POLYGON) or (kind == Kind.POLYGON and not probe.simple[0]):
        return tight_bounds(probe, np.arange(m, dtype=np.int64))
    if kind == Kind.POLYGON:
        xs, ys = probe.world_x[:, :m], probe.world_y[:, :m]
        lo = np.stack([xs.min(axis=0), ys.min(axis=0)], axis=1)
        hi = np.stack([xs.max(axis=0), ys.max(axis=0)], axis=1)
    else:
        c = probe.position[:m]
        if kind == Kind.BALL:
            ext = np.repeat(probe.radius[:m, None], probe.dim, axis=1)
        else:  # half-width along world axis k: sum_j |R_kj| h_j
            ext = np.einsum("nkj,nj->nk", np.abs(probe.rotation[:m]), probe.half[:m])
        lo, hi = c - ext, c + ext
    if probe.n_rounded:  # a rounded probe reaches its rounding radius past its core
        lo = lo - probe.rounding[:m, None]
        hi = hi + probe.rounding[:m, None]
    tol = touch_tolerance(np.maximum(np.abs(lo).max(axis=1), np.abs(hi).max(axis=1)))[:, None]
    return lo - tol, hi + tol


def box_probes(dim: int, center: Floats, half: Floats, ball: bool, store: BodyStore | None = None,
               reuse: BodyStore | None = None) -> BodyStore:
    """A store of ``m`` axis-aligned boxes (``ball``: points, balls of radius 0) centred at ``center`` (m, D).

    Examples
    --------
    >>> import numpy as np
    >>> p = box_probes(2, np.array([[1.0, 2.0]]), np.zeros((1, 2)), ball=True)
    >>> int(p.kind[0]) == Kind.BALL, p.radius[0]
    (True, np.float64(0.0))
    """
    m = len(center)
    probe = BodyStore(dim, capacity=m) if store is None else _scratch(store, m, reuse)
    probe.kind[:m] = Kind.BALL if ball else Kind.BOX
    probe.position[:m] = center
    probe.rotation[:m] = np.eye(dim)
    probe.half[:m] = half
    probe.radius[:m] = 0.0
    probe.poly[:m] = -1
    probe.simple[:m] = False
    probe.bound_radius[:m] = np.sqrt(np.einsum("nd,nd->n", half, half))
    return probe


def release_probes(probe: BodyStore) -> None:
    """Give back the part-table entry a :func:`shape_probes` store holds (in its row 0, or a compound's parts)."""
    if probe.n_compounds:
        parts = np.flatnonzero((probe.owner >= 0) & (probe.poly >= 0))
        for shape_index in probe.poly[parts].tolist():
            probe.parts.release(int(shape_index))
        probe.poly[parts] = -1
        parts = np.flatnonzero((probe.owner >= 0) & (probe.hull >= 0))  # hull parts hold the hull table the same way
        for hull_index in probe.hull[parts].tolist():
            probe.hulls.release(int(hull_index))
        probe.hull[parts] = -1
    if probe.poly[0] >= 0:
        probe.parts.release(int(probe.poly[0]))
        probe.poly[:] = -1
    if probe.hull[0] >= 0:
        probe.hulls.release(int(probe.hull[0]))
        probe.hull[:] = -1


def _combined(store: BodyStore, probe: BodyStore, m: int, cand: Slots) -> BodyStore:
    """A scratch store: rows ``0 .. m-1`` the probes, then the bodies ``cand`` (copied rows)."""
    n = m + len(cand)
    # only the columns the narrowphase reads are filled; the rest of a store's
    # state (ids, free list, flags) is never read by it
    sc = BodyStore.__new__(BodyStore)
    sc.dim = store.dim
    sc.parts = store.parts
    sc.hulls = store.hulls
    sc.backend = store.backend
    sc.capacity = sc.count = n
    sc.version = 0
    # counts as flags: a query touching a chain or a rounded shape applies their rules
    sc.n_chains = store.n_chains
    sc.n_rounded = store.n_rounded + probe.n_rounded
    for name in _row_columns(store.dim):
        b = getattr(store, name)
        col = np.empty((n,) + b.shape[1:], dtype=b.dtype)
        col[:m] = getattr(probe, name)[:m]
        col[m:] = b.take(cand, axis=0)
        setattr(sc, name, col)
    if store.dim == 2:
        for name in ("world_x", "world_y"):
            b = getattr(store, name)
            plane = np.empty((b.shape[0], n))
            plane[:, :m] = getattr(probe, name)[:, :m]
            plane[:, m:] = np.take(b, cand, axis=1)
            setattr(sc, name, plane)
    return sc


def overlapping(store: BodyStore, index: QueryIndex, probe: BodyStore | Callable[[], BodyStore], m: int,
                category: int, mask: int, backend: str,
                bounds: tuple[Floats, Floats] | None = None) -> tuple[Slots, Slots]:
    """``(probe row, slot)`` of every body each probe touches (exact), sorted by probe row then add order.

    ``probe`` may be a function making the probe store, called only when some
    body is near, with ``bounds`` the probes' boxes: a point or box query
    that meets no box then costs the grid lookup alone.

    Examples
    --------
    A unit circle at (1.5, 0) as the probe, against a world's bodies:

    >>> import numpy as np
    >>> from collideworld import Box, Circle, World
    >>> w = World(dim=2)
    >>> w.add(Box((1.0, 1.0)), id="box"), w.add(Circle(1.0), position=(9, 0), id="far")
    ('box', 'far')
    >>> probe = shape_probes(w._store, Circle(1.0), np.array([[1.5, 0.0]]), np.zeros(1), None)
    >>> rows, slots = overlapping(w._store, QueryIndex(w._store, "numpy"), probe, 1, 1, 1, "numpy")
    >>> rows.tolist(), w._store.ids[slots].tolist()
    ([0], ['box'])
    """
    if backend == "compiled":
        count_numpy_path("overlapping")
    grid = index.refresh()
    rows = np.arange(m, dtype=np.int64)
    if bounds is not None:
        qi, cand = grid.query_boxes(*bounds)
    elif isinstance(probe, BodyStore) and np.any(probe.kind[:m] == Kind.HALFSPACE):
        # an unbounded probe meets every box
        members = grid.registered()
        qi = np.repeat(rows, len(members))
        cand = np.tile(members, m)
    else:
        assert isinstance(probe, BodyStore)
        qi, cand = grid.query_boxes(*probe_bounds(probe, m))
    planes = index.planes
    if len(planes):
        qi = np.concatenate([qi, np.repeat(rows, len(planes))])
        cand = np.concatenate([cand, np.tile(planes, m)])
    keep = _passes_filter(store, category, mask, cand)
    qi, cand = qi[keep], cand[keep]
    if not len(cand):
        return qi, cand
    if not isinstance(probe, BodyStore):
        probe = probe()
    hit = _probe_hits(store, probe, m, qi, cand, backend)
    qi, cand = qi[hit], cand[hit]
    order = np.lexsort((store.serial[cand], qi))
    return qi[order], cand[order]


def _probe_hits(store: BodyStore, probe: BodyStore, m: int, rows: Slots, cand: Slots, backend: str
                ) -> NDArray[np.bool_]:
    """Whether probe ``rows[k]`` touches body ``cand[k]``, by the narrowphase (a compound: by any of its parts)."""
    if store.n_compounds and np.any(store.kind[cand] == Kind.COMPOUND):
        # a compound meets a probe when one of its parts does: test the parts, keep the bodies
        row, parts = _parts_of_candidates(store, cand)
        u, local = np.unique(parts, return_inverse=True)
        res = contact_pairs(_combined(store, probe, m, u), rows[row], m + local, backend)
        hit = np.zeros(len(cand), dtype=bool)
        hit[row[res.hit]] = True
        return hit
    u, local = np.unique(cand, return_inverse=True)
    found: NDArray[np.bool_] = contact_pairs(_combined(store, probe, m, u), rows, m + local, backend).hit
    return found


def _parts_of_candidates(store: BodyStore, cand: Slots) -> tuple[Slots, Slots]:
    """``(row into cand, slot)``: each compound candidate replaced by its part slots, others kept."""
    comp = store.kind[cand] == Kind.COMPOUND
    counts = np.where(comp, store.n_parts[cand], 1)
    row = np.repeat(np.arange(len(cand)), counts)
    child = np.arange(int(counts.sum())) - (np.cumsum(counts) - counts)[row]
    at = np.where(comp, store.parts_at[cand], 0).take(row) + child
    slots = np.where(comp.take(row), store.part_slots.take(at, mode="clip"), cand.take(row))
    return row, slots


# -- the compiled backend: each query in one compiled call ----------------------------------
#
# (collideworld.compiled.queries). The probe's kinds there are balls, boxes and
# simple polygons; a pair it does not settle (a capsule, hull or non-simple
# polygon on the body side) comes back as "other" and is settled here by the
# numpy path above, on a probe store made only then.

_COMPILED: Any = None


def _compiled() -> Any:
    """:mod:`collideworld.compiled.queries`, imported on first use (it imports numba)."""
    global _COMPILED
    if _COMPILED is None:
        from .compiled import queries as compiled_queries
        _COMPILED = compiled_queries
    return _COMPILED


#: Probe kinds of the one-call queries (collideworld.compiled.queries: 1 ball, 2 box, 3 simple polygon)
_ONE_CALL_KINDS = {Kind.BALL: 1, Kind.BOX: 2, Kind.POLYGON: 3}
_NO_VERTS = np.zeros(0)
#: the polygon planes' stand-in for a 3D store (the kernels read them in 2D only), typed as the
#: narrowphase's own (float64, 2D, layout A), so the compiled queries' signatures stay as they were
_NO_PLANES = np.zeros((1, 8, 2))[:, :, 0].T
_new_tuple = tuple.__new__
#: compiled.queries.NO_HIT: what the single point query's kernel returns when it meets nothing (a test checks)
_NO_HIT = -1
#: compiled.queries.RAY_OTHERS and RAY_OTHER_COUNT: where the single ray kernel lists the bodies it left (a test checks)
_RAY_OTHERS, _RAY_OTHER_COUNT = 11, 12
#: what the one-call queries need of the last probe shapes, by id (the entry keeps the shape alive)
_PROBE_ROWS: dict[int, tuple[Shape, Any]] = {}


def one_call_shape(shape: Shape) -> tuple[int, int, Floats, Floats, float, Floats, float] | None:
    """``(kind, vertex count, lx, ly, radius, half extents, bounding radius)`` of a probe the one-call queries take.

    None for shapes they do not take (half-spaces, capsules, hulls,
    polygons that are concave or have more than 8 vertices).

    Examples
    --------
    >>> from collideworld import Box, Capsule
    >>> one_call_shape(Box((1.0, 2.0)))[:2], one_call_shape(Capsule((0, 0), (1, 0), 0.5)) is None
    ((2, 0), True)
    """
    cached = _PROBE_ROWS.get(id(shape))
    if cached is not None and cached[0] is shape:
        found: tuple[int, int, Floats, Floats, float, Floats, float] | None = cached[1]
        return found
    spec = _one_call_spec(shape)
    if len(_PROBE_ROWS) >= 64:
        _PROBE_ROWS.clear()
    _PROBE_ROWS[id(shape)] = (shape, spec)
    return spec


def _one_call_spec(shape: Shape) -> tuple[int, int, Floats, Floats, float, Floats, float] | None:
    kind = kind_of(shape)
    pk = _ONE_CALL_KINDS.get(kind)
    rounded = kind != Kind.BALL and float(getattr(shape, "radius", 0.0)) > 0
    if pk is None or rounded:
        return None  # (a rounded box or polygon: the one-call kernels test cores; the narrowphase grows them)
    dim = shape.dim
    if kind == Kind.BALL:
        return pk, 0, _NO_VERTS, _NO_VERTS, float(shape.radius), np.zeros(dim), float(shape.radius)  # type: ignore[union-attr]
    if kind == Kind.BOX:
        hw = np.asarray(shape.half_extents, dtype=np.float64)  # type: ignore[union-attr]
        return pk, 0, _NO_VERTS, _NO_VERTS, 0.0, hw, float(shape.bounding_radius)  # type: ignore[union-attr]
    if not shape.is_convex or len(shape.parts[0]) > SIMPLE_POLYGON_VERTICES:  # type: ignore[union-attr]
        return None
    local = np.asarray(shape.parts[0], dtype=np.float64)  # type: ignore[union-attr]
    k = len(local)
    padded = np.concatenate([local, np.repeat(local[-1:], SIMPLE_POLYGON_VERTICES - k, axis=0)])
    lx, ly = np.ascontiguousarray(padded[:, 0]), np.ascontiguousarray(padded[:, 1])
    return pk, k, lx, ly, 0.0, np.zeros(2), float(shape.bounding_radius)  # type: ignore[union-attr]


def _settle_other(store: BodyStore, probe: BodyStore, m: int, rows: Slots, slots: Slots, backend: str,
                  hit_rows: Slots, hit_slots: Slots) -> tuple[Slots, Slots]:
    """The one-call hits with the "other" pairs settled by the narrowphase added, sorted by row then add order."""
    count_numpy_path("overlapping", some=True)
    hit = _probe_hits(store, probe, m, rows, slots, backend)
    qi = np.concatenate([hit_rows, rows[hit]])
    cand = np.concatenate([hit_slots, slots[hit]])
    order = np.lexsort((store.serial[cand], qi))
    return qi[order], cand[order]


def _settle_round(store: BodyStore, index: QueryIndex, codes: NDArray[np.int8], pk: int, pn: int,
                  probe_rows: tuple[Floats, ...], orows: Slots, oslots: Slots) -> None:
    """The pairs ``settle_rows`` left OTHER (cylinders, cones, rounded shapes) settled in place by their own
    compiled call (``compiled.query_round``: support-mapping contact, or the cores' GJK distance)."""
    left = np.flatnonzero(codes == _OTHER_CODE)
    if len(left):
        from .compiled.query_round import settle_round_rows

        ppos, prot, prad, phalf, pbound, pwx, pwy = probe_rows
        codes[left] = settle_round_rows(index.arrays, store.kind, store.rounding, pk, pn, ppos, prot, prad, phalf,
                                        pbound, pwx, pwy, orows[left], oslots[left])


def _settle_compiled(store: BodyStore, index: QueryIndex, pk: int, pn: int, probe_rows: tuple[Floats, ...],
                     rows: Slots, slots: Slots, orows: Slots, oslots: Slots) -> tuple[Slots, Slots, Slots, Slots]:
    """The one-call hits with the capsules (segments) and hulls among the "other" pairs tested by one compiled call
    (``compiled.queries.settle_rows``), sorted by row then add order; and the pairs still left for the numpy path."""
    cq = _compiled()
    codes = cq.settle_rows(index.arrays, pk, pn, *probe_rows, orows, oslots)
    _settle_round(store, index, codes, pk, pn, probe_rows, orows, oslots)
    hit = codes == cq.HIT
    if hit.any():
        qi = np.concatenate([rows, orows[hit]])
        cand = np.concatenate([slots, oslots[hit]])
        order = row_serial_order(store, qi, cand)
        rows, slots = qi[order], cand[order]
    left = codes == cq.OTHER
    return rows, slots, orows[left], oslots[left]


def row_serial_order(store: BodyStore, qi: Slots, cand: Slots) -> Slots:
    """The order sorting pairs ``(qi, cand)`` by row, then by the bodies' add order.

    One stable argsort of the key ``row * S + serial`` (``S`` past the
    largest serial): the pairs come as two sorted runs (the kernel's hits,
    then the settled ones), which a stable (merge) sort joins in linear
    time, where ``np.lexsort`` of the two keys cost ~10x as much (85 against
    9 us for 2,000 pairs, measured); ``np.lexsort`` when the key would overflow.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add_many(Circle(1.0), [[0, 0], [1, 0], [2, 0]])
    [0, 1, 2]
    >>> row_serial_order(w._store, np.array([1, 0, 1, 0]), np.array([0, 2, 1, 0])).tolist()
    [3, 1, 0, 2]
    """
    ser = store.serial[cand]
    if len(qi):
        top = int(ser.max()) + 1
        if int(qi.max()) < (1 << 62) // top:
            order: Slots = np.argsort(qi * top + ser, kind="stable")
            return order
    return np.lexsort((ser, qi))


def point_ids(store: BodyStore, index: QueryIndex, point: tuple[float, ...], half: tuple[float, ...], ball: bool,
              category: int, mask: int) -> list[Any]:
    """Ids (add order) of the bodies meeting one point (``ball``) or one axis-aligned box, in one compiled call.

    Examples
    --------
    >>> from collideworld import Circle, World
    >>> w = World(dim=2, backend="compiled")
    >>> w.add(Circle(1.0), id="disc")
    'disc'
    >>> index = QueryIndex(w._store, "compiled")
    >>> point_ids(w._store, index, (0.5, 0.5), (0.0, 0.0), True, 1, 1)
    ['disc']
    """
    if index.grid_version != store.version:
        index.refresh()
    # (a 2D point's last coordinate stands in for z, which the kernel does not read)
    code = index.point_fn(index.arrays, point[0], point[1], point[-1], half[0], half[1], half[-1], ball, category,
                          mask)
    if code >= 0:  # the common answers first: one body, or none
        return [store.ids[code]]
    if code == _NO_HIT:
        return []
    ids = store.ids
    dim = store.dim
    found = _compiled().point_found(index.work, code)
    if found is None:  # more than a single query's scratch holds: the batch kernel
        _, slots = box_hits(store, index, np.array([point[:dim]]), np.array([half[:dim]]), ball, category, mask)
        return [ids[s] for s in slots.tolist()]
    k = found[0]
    if len(found) == k + 1:
        return [ids[s] for s in found[1:]]
    other = np.array(found[k + 1:], dtype=np.int64)
    # the probe row the kernel left in its scratch (ppos, phalf, prot, prad, pbound: box_probe_rows' values)
    # is the one settle_rows reads: no probe is made again
    cq = _compiled()
    w = index.work[0]
    probe_rows = (w[0], w[2], w[3], w[1], w[4], w[7], w[7])
    zero = np.zeros(len(other), dtype=np.int64)
    codes = cq.settle_rows(index.arrays, 1 if ball else 2, 0, *probe_rows, zero, other)
    _settle_round(store, index, codes, 1 if ball else 2, 0, probe_rows, zero, other)
    slots = np.array(found[1:k + 1], dtype=np.int64)
    hit = codes == cq.HIT
    if hit.any():
        slots = np.concatenate([slots, other[hit]])
        slots = slots[np.argsort(store.serial[slots], kind="stable")]
    left = other[codes == cq.OTHER]
    if len(left):
        center = np.array([point[:dim]], dtype=np.float64)
        hw = np.array([half[:dim]], dtype=np.float64)
        _, slots = _settle_other(store, box_probes(dim, center, hw, ball), 1, np.zeros(len(left), dtype=np.int64),
                                 left, "compiled", np.zeros(len(slots), dtype=np.int64), slots)
    return [ids[s] for s in slots.tolist()]


#: a batched query is split over threads (:func:`collideworld.set_threads`) when each gets this many queries:
#: a range then takes ~0.15 ms or more, well above the cost of handing it to a thread
BATCH_PER_THREAD = 1024


def _from_row(a: int, found: tuple[Slots, Slots, Slots, Slots]) -> tuple[Slots, Slots, Slots, Slots]:
    """A range's ``(rows, slots, other rows, other slots)`` with its rows counted from the batch's row ``a``."""
    rows, slots, orows, oslots = found
    return (rows + a, slots, orows + a, oslots) if a else found


def _in_ranges(index: QueryIndex, grid: GridIndex, m: int, run_range: Callable[..., tuple[Any, ...]],
               arrays: bool = True) -> tuple[Any, ...]:
    """``run_range(q, a, b, tag, stamp)`` over contiguous ranges ``[a, b)`` of a batch of ``m``, joined in order.

    The batched queries' one protocol: the ranges run at once on threads
    when :func:`collideworld.set_threads` allows (``run_split``), else in
    one range ``(0, m)``; each gets its own stamps, its first fresh tag, and
    (``arrays``) its own :class:`~collideworld.compiled.queries.QueryArrays`
    (see :meth:`QueryIndex.arrays_for`), else ``q`` is None. The index's lock
    is held throughout: its stamps and tag counter are shared, and the
    kernels release the GIL. Each range's arrays are concatenated in range
    order (a range counts its rows from the batch's, see :func:`_from_row`).
    """
    threads = batch_threads(m, BATCH_PER_THREAD)
    with index.lock:
        base, stamps = grid.take_tags(m), grid.stamps(threads)
        qs = [index.arrays_for(k) for k in range(threads)] if arrays else [None] * threads
        parts = run_split(lambda a, b, k: run_range(qs[k], a, b, base + a, stamps[k]), m, threads)
    return parts[0] if threads == 1 else tuple(np.concatenate(p) for p in zip(*parts, strict=True))


def box_hits(store: BodyStore, index: QueryIndex, center: Floats, half: Floats, ball: bool, category: int,
             mask: int) -> tuple[Slots, Slots]:
    """``(row, slot)`` of every body meeting each point (``ball``) or axis-aligned box ``center ± half`` (m, D).

    The compiled twin of :func:`overlapping` for point and box probes.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle, World
    >>> w = World(dim=2, backend="compiled")
    >>> w.add_many(Circle(1.0), [[0, 0], [3, 0]])
    [0, 1]
    >>> rows, slots = box_hits(w._store, QueryIndex(w._store, "compiled"), np.array([[3.0, 1.0], [9.0, 9.0]]),
    ...                        np.zeros((2, 2)), True, 1, 1)
    >>> rows.tolist(), slots.tolist()
    ([0], [1])
    """
    m = len(center)
    grid = index.refresh()
    c = np.require(center, np.float64, ["C"])
    h = np.require(half, np.float64, ["C"])
    box_slots = _compiled().box_slots

    def run_range(q: Any, a: int, b: int, tag: int, stamp: Slots) -> tuple[Slots, Slots, Slots, Slots]:
        return _from_row(a, box_slots(q, c[a:b], h[a:b], ball, category, mask, tag, stamp))

    rows, slots, orows, oslots = _in_ranges(index, grid, m, run_range)
    if len(oslots):
        rows, slots, orows, oslots = _settle_compiled(store, index, 1 if ball else 2, 0,
                                                      _compiled().box_probe_rows(c, h, index.rule), rows, slots, orows,
                                                      oslots)
    if len(oslots):
        rows, slots = _settle_other(store, box_probes(store.dim, c, h, ball), m, orows, oslots, "compiled",
                                    rows, slots)
    return rows, slots


def shape_hits(store: BodyStore, index: QueryIndex, shape: Shape, position: Floats, angle: Floats | None,
               quaternion: Floats | None, category: int, mask: int) -> tuple[Slots, Slots] | None:
    """``(row, slot)`` of every body ``shape`` touches at each pose, in one compiled call (None: not such a shape).

    ``position`` (m, D), ``angle`` (m,) in 2D, ``quaternion`` (m, 4) in 3D,
    already checked. The compiled twin of :func:`overlapping` with
    :func:`shape_probes`, for the shapes :func:`one_call_shape` takes.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Box, World
    >>> w = World(dim=2, backend="compiled")
    >>> w.add(Box((1.0, 1.0)), position=(2, 0))
    0
    >>> rows, slots = shape_hits(w._store, QueryIndex(w._store, "compiled"), Box((0.5, 0.5)),
    ...                          np.array([[0.5, 0.0], [0.0, 5.0]]), np.zeros(2), None, 1, 1)
    >>> rows.tolist(), slots.tolist()
    ([0], [0])
    """
    spec = one_call_shape(shape)
    if spec is None:
        return None
    pk, pn, lx, ly, rad, hw, bound = spec
    m, dim = position.shape
    grid = index.refresh()
    pos = np.require(position, np.float64, ["C"])
    if dim == 2:
        ang = np.zeros(m) if angle is None else angle
        # cos and sin as numpy rounds them (rotation_matrix_2d), not as the compiled libm does
        cos, sin, unit = np.cos(ang), np.sin(ang), np.zeros((0, 4))
    else:
        quat = np.tile([1.0, 0.0, 0.0, 0.0], (m, 1)) if quaternion is None else quaternion
        # normalised as BodyStore.set_poses does (rotation_matrix_3d; numpy's summation order)
        unit = np.ascontiguousarray(quat / np.linalg.norm(quat, axis=-1, keepdims=True))
        cos = sin = _NO_VERTS
    shapes = index.shapes_fn

    def run_range(q: Any, a: int, b: int, tag: int, stamp: Slots) -> tuple[Slots, Slots, Slots, Slots]:
        if b - a == m:  # the whole batch (a single query_shape comes this way): no slices, no row offset
            whole: tuple[Slots, Slots, Slots, Slots] = shapes(q, pk, pn, pos, cos, sin, unit, lx, ly, rad, hw, bound,
                                                              category, mask, tag, stamp)
            return whole
        return _from_row(a, shapes(q, pk, pn, pos[a:b], cos[a:b], sin[a:b], unit[a:b], lx, ly, rad, hw, bound,
                                   category, mask, tag, stamp))

    rows, slots, orows, oslots = _in_ranges(index, grid, m, run_range)
    if len(oslots):
        rows, slots, orows, oslots = _settle_compiled(
            store, index, pk, pn, _compiled().shape_probe_rows(pos, cos, sin, unit, lx, ly, rad, hw, bound), rows,
            slots, orows, oslots)
    if len(oslots):
        probe = shape_probes(store, shape, pos, angle if dim == 2 else None, quaternion)
        try:
            rows, slots = _settle_other(store, probe, m, orows, oslots, "compiled", rows, slots)
        finally:
            release_probes(probe)
    return rows, slots


# -- rays -------------------------------------------------------------------------------

def ray_hits(store: BodyStore, index: QueryIndex, origin: Any, direction: Any, max_distance: float,
             category: int, mask: int, first: bool = False) -> list[RayHit]:
    """Every body a ray meets within ``max_distance``, nearest first (then add order); ``first``: the first one.

    ``origin`` and ``direction`` (of unit length) are ``D`` floats (tuples or arrays).

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add(Circle(1.0), position=(5, 0), id="disc")
    'disc'
    >>> index = QueryIndex(w._store, "numpy")
    >>> [(h.id, h.distance) for h in ray_hits(w._store, index, np.zeros(2), np.array([1.0, 0.0]), 3.0, 1, 1)]
    []
    >>> [(h.id, h.distance) for h in ray_hits(w._store, index, np.zeros(2), np.array([1.0, 0.0]), 9.0, 1, 1)]
    [('disc', 4.0)]
    """
    if index.grid_version != store.version or index.arrays is None:
        index.refresh()
    if index.arrays is not None:
        # compiled: the half-spaces, the walk, the casts of every kind the batched walk casts (balls, boxes,
        # capsules, simple polygons, compounds of them) and the sort in one call; the bodies of the kinds
        # it leaves (hulls, polygons that are not simple, rounded shapes) cast beside it (cast_left)
        count = index.ray_fn(index.arrays, origin[0], origin[1], origin[-1], direction[0], direction[1],
                             direction[-1], max_distance, category, mask, PARALLEL_RATE, first)
        if count >= 0:
            n_other = int(index.work[1][_RAY_OTHER_COUNT][0])
            if n_other == 0:
                return _ray_rows_hits(store, index, count, first)
            return _merge_ray_hits(store, index, count, n_other, origin, direction, max_distance, category, mask,
                                   first)
        # (else more hits than a single query's scratch holds: the general path below, compiled casts)
    grid = index.refresh()  # up to date (above): the grid itself
    origin = np.array(origin, dtype=np.float64)
    direction = np.array(direction, dtype=np.float64)
    _, local = grid.query_segments_local(origin[None], direction[None], np.array([max_distance]))
    local = local[_passes_filter(store, category, mask, grid.handles[local])]
    planes = index.planes[_passes_filter(store, category, mask, index.planes)]
    if index.backend == "compiled":
        # every kind by its compiled cast (see cast_left)
        cand = np.concatenate([grid.handles[local], planes])
        k = len(cand)
        dist, normal = cast_left(store, cand, np.tile(origin, (k, 1)), np.tile(direction, (k, 1)),
                                 np.full(k, max_distance), "raycast")
    else:
        cand = np.concatenate([grid.handles[local], planes])
        dist, normal = raycast_slots(store, cand, origin, direction, max_distance)
    ok = np.isfinite(dist)
    cand, dist, normal = cand[ok], dist[ok], normal[ok]
    order = np.lexsort((store.serial[cand], dist))
    return [RayHit(store.ids[cand[k]], origin + direction * dist[k], normal[k].copy(), float(dist[k]))
            for k in order[:1 if first else len(order)].tolist()]


def _ray_rows_hits(store: BodyStore, index: QueryIndex, count: int, first: bool) -> list[RayHit]:
    """The single ray kernel's hits (its scratch rows ``[slot, distance, point, normal]``) as RayHits."""
    if count == 0:
        return []
    # the rows are in the scratch (the next query's): copied out
    # (tuple.__new__: a NamedTuple's own __new__ is a Python call, a sixth of a single ray's cost)
    dim = store.dim
    if count == 1 or first:
        slot, distance = index.ray_head[0].tolist()
        pn = index.ray_head[1].copy()
        return [_new_tuple(RayHit, (store.ids[int(slot)], pn[:dim], pn[dim:], distance))]
    rows = index.ray_rows[:count].copy()
    ids = store.ids
    points, normals = rows[:, 2:2 + dim], rows[:, 2 + dim:]
    return [_new_tuple(RayHit, (ids[int(row[0])], points[k], normals[k], row[1]))
            for k, row in enumerate(rows.tolist())]


def _merge_ray_hits(store: BodyStore, index: QueryIndex, count: int, n_other: int, origin: Any, direction: Any,
                    max_distance: float, category: int, mask: int, first: bool) -> list[RayHit]:
    """The single ray kernel's hits with the bodies it left (other kinds) cast by their kernels.

    :func:`cast_left` on those bodies only.
    """
    dim = store.dim
    rows = index.ray_rows[:min(count, 1) if first else count]
    cand = index.work[1][_RAY_OTHERS][:n_other].copy()
    o = np.array(origin[:dim], dtype=np.float64)
    d = np.array(direction[:dim], dtype=np.float64)
    k = len(cand)
    dist, normal = cast_left(store, cand, np.tile(o, (k, 1)), np.tile(d, (k, 1)), np.full(k, max_distance),
                             "raycast")
    ok = np.isfinite(dist)
    cand, dist, normal = cand[ok], dist[ok], normal[ok]
    slot = np.concatenate([rows[:, 0].astype(np.int64), cand])
    dist = np.concatenate([rows[:, 1], dist])
    point = np.concatenate([rows[:, 2:2 + dim], o + d * dist[len(rows):, None]])
    normal = np.concatenate([rows[:, 2 + dim:], normal])
    order = np.lexsort((store.serial[slot], dist))
    return [RayHit(store.ids[slot[k]], point[k], normal[k].copy(), float(dist[k]))
            for k in order[:1 if first else len(order)].tolist()]


def cast_left(store: BodyStore, slots: Slots, origins: Floats, directions: Floats, limits: Floats,
              query: str) -> tuple[Floats, Floats]:
    """The bodies a compiled ray walk left (kinds it does not cast, half-spaces): ray ``k`` against ``slots[k]``.

    Every finite kind by its compiled kernel (``spatial.compiled``:
    ``cast_capsule_rows``, ``cast_polygon_rows`` (a concave polygon by its
    convex parts), ``cast_hull_rows``, ``cast_pairs`` for balls and boxes,
    a compound by its parts, ``cast_halfspace_rows``; cylinders, cones and
    rounded shapes by ``compiled.query_round.cast_round_rows``); a kind none
    of these covers (a new one) by :func:`cast_rows` (numpy), counted as
    ``query`` ":some" in :func:`numpy_path_counts`.
    """
    from .narrowphase import polygon_parts
    from .spatial.compiled import cast_capsule_rows, cast_halfspace_rows, cast_hull_rows, cast_pairs, cast_polygon_rows

    n = len(slots)
    dist = np.full(n, np.inf)
    normal = np.zeros((n, store.dim))
    kinds = store.kind.take(slots)
    if store.n_rounded:  # the compiled kernels below cast cores: a rounded shape goes to cast_rows, which grows it
        kinds = np.where(store.rounding.take(slots) > 0, -1, kinds)
    at = np.flatnonzero(kinds == _CAPSULE)
    if len(at):
        p0, p1, radius = store.capsule_rows(slots[at])
        dist[at], normal[at] = cast_capsule_rows(p0, p1, radius, origins[at], directions[at], limits[at])
    poly = kinds == _POLYGON
    simple = poly & store.simple.take(slots)
    at = np.flatnonzero(simple)
    if len(at):
        # a simple polygon's posed vertices are in the store already (world_xy, padded by repeating the last)
        dist[at], normal[at] = cast_polygon_rows(store.world_xy.take(slots[at], axis=0), origins[at],
                                                 directions[at], limits[at])
    at = np.flatnonzero(poly & ~simple)
    if len(at):
        # convex parts (one per convex polygon), then the nearest entry into any part (as the numpy kernel)
        row, part = polygon_parts(store, slots[at])
        pd = np.full(len(row), np.inf)
        pn = np.zeros((len(row), 2))
        for sel, verts in store.part_vertices_world(slots[at][row], part):
            rows = at[row[sel]]
            pd[sel], pn[sel] = cast_polygon_rows(verts, origins[rows], directions[rows], limits[rows])
        order = np.lexsort((pd, row))
        firsts = order[np.r_[True, row[order][1:] != row[order][:-1]]]
        dist[at], normal[at] = pd[firsts], pn[firsts]
    at = np.flatnonzero(kinds == _HULL)
    if len(at):
        s, h = slots[at], store.hull.take(slots[at])
        dist[at], normal[at] = cast_hull_rows(store.position.take(s, axis=0), store.rotation.take(s, axis=0),
                                              store.hulls.normals[h], store.hulls.offsets[h], store.hulls.reach[h],
                                              origins[at], directions[at], limits[at])
    at = np.flatnonzero((kinds == _BALL) | (kinds == _BOX))
    if len(at):  # (a compound's parts)
        dist[at], normal[at] = cast_pairs(slots[at], (store.kind, store.position, store.rotation, store.half,
                                                      store.radius, store.serial), origins[at], directions[at],
                                          np.arange(len(at), dtype=np.int64), limits[at])
    at = np.flatnonzero(kinds == _COMPOUND)
    if len(at):
        # the entry into a compound is the nearest entry into any of its parts
        row, parts = store.compound_parts(slots[at])
        rows = at[row]
        pd, pn = cast_left(store, parts, origins[rows], directions[rows], limits[rows], query)
        order = np.lexsort((pd, row))
        firsts = order[np.r_[True, row[order][1:] != row[order][:-1]]]
        dist[at], normal[at] = pd[firsts], pn[firsts]
    at = np.flatnonzero(kinds == _HALFSPACE)
    if len(at):
        nrm, off = store.plane_rows(slots[at])
        dist[at], normal[at] = cast_halfspace_rows(nrm, off, origins[at], directions[at], limits[at])
    at = np.flatnonzero((kinds < _HALFSPACE) | (kinds > _COMPOUND))  # (a rounded shape, or a new kind)
    if len(at):
        # cylinders, cones and rounded shapes by their compiled casts (compiled.query_round)
        from .compiled.query_round import cast_round_rows

        xy = store.world_xy if store.dim == 2 else _NO_XY
        rd, rn, done = cast_round_rows(store.kind, store.rounding, store.simple, store.position, store.rotation,
                                       store.radius, store.half, xy, store.hull, store.hulls.verts, slots[at],
                                       origins[at], directions[at], limits[at])
        dist[at], normal[at] = rd, rn
        at = at[~done]
    if len(at):
        count_numpy_path(query, some=True)
        dist[at], normal[at] = cast_rows(store, slots[at], origins[at], directions[at], limits[at])
    return dist, normal


def _ray_frames(d: Floats) -> Floats:
    """Rotations (K, D, D) whose first column is the unit direction ``d[k]`` (K, D).

    3D: the branch-free orthonormal basis of Duff et al., "Building an
    Orthonormal Basis, Revisited" (JCGT 2017).
    """
    k, dim = d.shape
    frame = np.empty((k, dim, dim))
    frame[:, :, 0] = d
    if dim == 2:
        frame[:, 0, 1] = -d[:, 1]
        frame[:, 1, 1] = d[:, 0]
        return frame
    x, y, z = d[:, 0], d[:, 1], d[:, 2]
    sign = np.where(z >= 0.0, 1.0, -1.0)
    a = -1.0 / (sign + z)
    b = x * y * a
    frame[:, 0, 1] = 1.0 + sign * x * x * a
    frame[:, 1, 1] = sign * b
    frame[:, 2, 1] = -sign * x
    frame[:, 0, 2] = b
    frame[:, 1, 2] = sign + y * y * a
    frame[:, 2, 2] = -y
    return frame


def cast_rows(store: BodyStore, slots: Slots, origins: Floats, directions: Floats,
              max_distance: float | Floats) -> tuple[Floats, Floats]:
    """Ray ``k`` (origin ``origins[k]``, unit direction ``directions[k]``) against body ``slots[k]``.

    Each row is moved into its ray's frame (origin 0, direction +x), so that
    the ray kernels, which take one ray for many shapes, run once per kind
    for rows of many rays; normals are rotated back. ``max_distance``: one
    limit for all rows, or one per row (K,).

    Returns
    -------
    distance : ndarray of float64, shape (K,)
        ``inf`` where the ray misses within ``max_distance``.
    normal : ndarray of float64, shape (K, D)

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add(Circle(1.0), position=(5, 0))
    0
    >>> s = np.array([0, 0])
    >>> dist, normal = cast_rows(w._store, s, np.array([[0.0, 0], [5, 9]]), np.array([[1.0, 0], [0, -1]]), np.inf)
    >>> dist.tolist(), normal.round(12).tolist()
    ([4.0, 8.0], [[-1.0, 0.0], [0.0, 1.0]])
    """
    # (the import is here: the ray kernels sit beside the narrowphase, which imports them the same way)
    from .geometry.raycast import (
        raycast_ball,
        raycast_box,
        raycast_capsule,
        raycast_cylinder,
        raycast_halfspace,
        raycast_hull,
        raycast_polygon,
        raycast_triangle,
    )
    from .narrowphase import polygon_parts

    n, dim = len(slots), store.dim
    dist = np.full(n, np.inf)
    normal = np.zeros((n, dim))
    if not n:
        return dist, normal
    frame = _ray_frames(directions)
    zero = np.zeros(dim)
    e1 = np.zeros(dim)
    e1[0] = 1.0
    kinds = store.kind[slots]
    lim = np.broadcast_to(np.asarray(max_distance, dtype=np.float64), (n,))

    def local(idx: Slots, p: Floats) -> Floats:
        out: Floats = np.einsum("kji,kj->ki", frame[idx], p - origins[idx])
        return out

    def world(idx: Slots, own: Floats) -> Floats:
        # the magnitude of the world coordinates of each row: moving a row into its ray's frame rounds at that
        # magnitude, so the kernels take their touching tolerance of it, not of the small local coordinates
        # (else a ray that touches a shape far from the world's origin misses it here, but not in raycast())
        out: Floats = np.maximum(np.abs(origins[idx]).max(axis=1), own)
        return out

    def rows_max(a: Floats) -> Floats:
        out: Floats = np.abs(a).reshape(len(a), -1).max(axis=1, initial=0.0)
        return out

    for kind in np.unique(kinds).tolist():
        idx = np.flatnonzero(kinds == kind)
        s = slots[idx]
        if kind == Kind.BALL:
            pos = store.position.take(s, axis=0)
            r = raycast_ball(zero, e1, lim[idx], local(idx, pos), store.radius[s],
                             scale=world(idx, rows_max(pos) + store.radius[s]))
        elif kind == Kind.BOX:
            pos, half = store.position.take(s, axis=0), store.half.take(s, axis=0)
            rot = np.einsum("kji,kjl->kil", frame[idx], store.rotation.take(s, axis=0))
            r = raycast_box(zero, e1, lim[idx], local(idx, pos), rot, half,
                            scale=world(idx, rows_max(pos) + rows_max(half)))
        elif kind == Kind.HALFSPACE:
            nrm, off = store.plane_rows(s)
            r = raycast_halfspace(zero, e1, lim[idx], np.einsum("kji,kj->ki", frame[idx], nrm),
                                  off - np.einsum("kd,kd->k", nrm, origins[idx]), scale=world(idx, np.abs(off)))
        elif kind == Kind.CAPSULE:
            p0, p1, radius = store.capsule_rows(s)
            r = raycast_capsule(zero, e1, lim[idx], local(idx, p0), local(idx, p1), radius,
                                scale=world(idx, np.maximum(rows_max(p0), rows_max(p1)) + radius))
        elif kind == Kind.HULL:
            h = store.hull.take(s)
            pos = store.position.take(s, axis=0)
            rot = np.einsum("kji,kjl->kil", frame[idx], store.rotation.take(s, axis=0))
            r = raycast_hull(zero, e1, lim[idx], local(idx, pos), rot,
                             store.hulls.normals[h], store.hulls.offsets[h], store.hulls.reach[h],
                             scale=world(idx, rows_max(pos) + store.hulls.reach[h]))
        elif kind in (Kind.CYLINDER, Kind.CONE):
            rot = np.einsum("kji,kjl->kil", frame[idx], store.rotation.take(s, axis=0))
            r = raycast_cylinder(zero, e1, lim[idx], local(idx, store.position.take(s, axis=0)), rot,
                                 store.radius.take(s), store.half.take(s, axis=0)[:, 2],
                                 store.kind.take(s) == Kind.CONE)
        elif kind == Kind.TRIANGLE:
            world_tri = store.triangle_rows(s)
            tri = np.einsum("kji,kvj->kvi", frame[idx], world_tri - origins[idx][:, None, :])
            r = raycast_triangle(zero, e1, lim[idx], tri, scale=world(idx, rows_max(world_tri)))
        elif kind == Kind.COMPOUND:
            # the entry into a compound is the nearest entry into any of its parts
            row, parts = store.compound_parts(s)
            pd, pn = cast_rows(store, parts, origins[idx[row]], directions[idx[row]], lim[idx[row]])
            order = np.lexsort((pd, row))
            firsts = order[np.r_[True, row[order][1:] != row[order][:-1]]]
            dist[idx], normal[idx] = pd[firsts], pn[firsts]
            continue
        else:
            row, part = polygon_parts(store, s)
            pd = np.full(len(row), np.inf)
            pn = np.zeros((len(row), dim))
            for sel, verts in store.part_vertices_world(s[row], part):
                rows = idx[row[sel]]
                v = np.einsum("kji,kvj->kvi", frame[rows], verts - origins[rows][:, None, :])
                rp = raycast_polygon(zero, e1, lim[rows], v, scale=world(rows, rows_max(verts)))
                pd[sel] = np.where(rp.hit, rp.distance, np.inf)
                pn[sel] = rp.normal
            # the entry into the union of the parts is the nearest entry into any part
            order = np.lexsort((pd, row))
            firsts = order[np.r_[True, row[order][1:] != row[order][:-1]]]
            dist[idx] = pd[firsts]
            normal[idx] = np.einsum("kij,kj->ki", frame[idx], pn[firsts])
            continue
        dist[idx] = np.where(r.hit, r.distance, np.inf)
        normal[idx] = np.einsum("kij,kj->ki", frame[idx], r.normal)
    if store.n_rounded:  # the kernels above cast the cores
        idx = np.flatnonzero(store.rounding.take(slots) > 0)
        if len(idx):
            dist[idx], normal[idx] = ray_rounded(store, slots[idx], origins[idx], directions[idx], lim[idx])
    normal[~np.isfinite(dist)] = 0.0
    return dist, normal + 0.0


def _first_per_ray(ray: Slots, slot: Slots, dist: Floats, store: BodyStore) -> Slots:
    """Rows holding each ray's nearest hit (ties: the body added first)."""
    order = np.lexsort((store.serial[slot], dist, ray))
    r = ray[order]
    first: Slots = order[np.r_[True, r[1:] != r[:-1]]] if len(r) else order
    return first


def _walk_rows(store: BodyStore, index: QueryIndex) -> tuple[Floats, Floats]:
    """The rows the compiled first-hit walk casts capsules and simple polygons from, by slot.

    Capsules' world end points ``[p0, p1]`` (capacity, 2 D), made by ``BodyStore.capsule_rows`` (the rows
    :func:`cast_left` casts, so the same bits), and the store's posed polygon vertices ``world_xy`` (2D).
    """
    st = store
    ends = np.zeros((st.capacity, 2 * st.dim))
    caps = np.flatnonzero(index.packed_views[0] == _CAPSULE)  # (the packed kind: a rounded capsule is not one)
    if len(caps):
        p0, p1, _ = st.capsule_rows(caps)
        ends[caps, :st.dim], ends[caps, st.dim:] = p0, p1
    return ends, st.world_xy if st.dim == 2 else _NO_POLYGONS


#: the walk's polygon rows in 3D (no polygons there; never read)
_NO_POLYGONS = np.zeros((1, 8, 2))


def _first_hits_compiled(store: BodyStore, index: QueryIndex, grid: GridIndex, origins: Floats, directions: Floats,
                         limits: Floats, category: int, mask: int) -> RayHitArrays:
    """First hits in one compiled walk per ray; the bodies of other kinds it met beside it.

    The walk casts the half-spaces, balls, boxes, capsules, simple polygons,
    hulls and compounds of them, and lists the (ray, body) pairs of the other
    kinds (rounded shapes) whose box the ray meets before its best
    hit; those pairs are cast by :func:`cast_left` (compiled rows, one call
    per kind for all the pairs) and kept where nearer (ties: the body added
    first).
    """
    from .spatial.compiled import first_hits

    m = len(origins)
    passes = _passes_filter(store, category, mask, grid.handles)
    kind, serial_col, position, rotation, half, radius, _ = index.packed_views
    arrays = grid.arrays()
    bodies = (kind, position, rotation, half, radius, serial_col, store.simple, *_walk_rows(store, index),
              store.part_slots, store.parts_at, store.n_parts, index.planes, store.plane_normal, store.plane_offset)
    # hulls are cast in the walk by their local face planes (3D; a 2D store has none)
    hulls = (store.hull, store.hulls.normals, store.hulls.offsets, store.hulls.reach) if len(store.hulls.reach) \
        else None

    def run_range(q: None, a: int, b: int, tag: int, stamp: Slots) -> tuple[Slots, Floats, Floats, Slots, Slots]:
        # (each call passes the arrays from Python: a reference count of its own for each, see arrays_for)
        j, t, n, oray, oj = first_hits(arrays, bodies, passes, origins[a:b], directions[a:b], limits[a:b], stamp,
                                       tag, hulls)
        return j, t, n, oray + a, oj

    local, dist, normal, oray, olocal = _in_ranges(index, grid, m, run_range, arrays=False)
    slot = grid.handles[local] if grid.n else np.full(m, -1, dtype=np.int64)
    slot[local < 0] = -1
    ray, cand = oray, grid.handles[olocal] if len(olocal) else olocal  # (the walk cast the half-spaces)
    if len(cand):
        pd, pn = cast_left(store, cand, origins[ray], directions[ray], limits[ray], "raycast_many")
        hit = np.isfinite(pd)
        ray, cand, pd, pn = ray[hit], cand[hit], pd[hit], pn[hit]
        if len(ray):
            # the first of these hits per ray (distance, then add order), kept where it beats the walk's best
            # (nearer, or as near and added first): the walk's rows, most of them, are neither copied nor sorted
            first = _first_per_ray(ray, cand, pd, store)
            ray, cand, pd, pn = ray[first], cand[first], pd[first], pn[first]
            was = slot.take(ray)
            near = dist.take(ray)
            better = (was < 0) | (pd < near) | ((pd == near) & (store.serial.take(cand) < store.serial.take(was)))
            ray = ray[better]
            slot[ray], dist[ray], normal[ray] = cand[better], pd[better], pn[better]
    ray = np.flatnonzero(np.isfinite(dist))
    slot, dist, normal = slot[ray], dist[ray], normal[ray]
    return RayHitArrays(ray, store.ids[slot], dist, origins[ray] + directions[ray] * dist[:, None], normal)


def _all_hits_compiled(store: BodyStore, index: QueryIndex, grid: GridIndex, origins: Floats, directions: Floats,
                       limits: Floats, category: int, mask: int) -> RayHitArrays:
    """Every hit of every ray: the compiled grid walk, the balls and boxes cast compiled, the other kinds by
    :func:`cast_rows` (one call per kind for all the pairs), sorted by ray, distance, add order."""
    from .spatial.compiled import cast_pairs

    m, dim = origins.shape
    qi, cand = grid.query_segments(origins, directions, limits)
    keep = _passes_filter(store, category, mask, cand)
    qi, cand = qi[keep], cand[keep]
    planes = index.planes[_passes_filter(store, category, mask, index.planes)]
    if len(planes):
        qi = np.concatenate([qi, np.repeat(np.arange(m, dtype=np.int64), len(planes))])
        cand = np.concatenate([cand, np.tile(planes, m)])
    kind, serial_col, position, rotation, half, radius, _ = index.packed_views
    simple = store.kind.take(cand) <= _BOX
    simple &= store.kind.take(cand) > _HALFSPACE
    dist = np.full(len(cand), np.inf)
    normal = np.zeros((len(cand), dim))
    at = np.flatnonzero(simple)
    if len(at):
        dist[at], normal[at] = cast_pairs(cand[at], (kind, position, rotation, half, radius, serial_col),
                                          origins, directions, qi[at], limits)
    at = np.flatnonzero(~simple)
    if len(at):
        dist[at], normal[at] = cast_left(store, cand[at], origins[qi[at]], directions[qi[at]], limits[qi[at]],
                                         "raycast_many")
    hit = np.isfinite(dist)
    qi, cand, dist, normal = qi[hit], cand[hit], dist[hit], normal[hit]
    rows = np.lexsort((store.serial[cand], dist, qi))
    qi, cand, dist, normal = qi[rows], cand[rows], dist[rows], normal[rows]
    return RayHitArrays(qi, store.ids[cand], dist, origins[qi] + directions[qi] * dist[:, None], normal)


def ray_hits_many(store: BodyStore, index: QueryIndex, origins: Floats, directions: Floats,
                  max_distance: float | Floats, category: int, mask: int, all_hits: bool) -> RayHitArrays:
    """Hits of many rays (unit ``directions``) within ``max_distance`` (one for all, or one per ray): the first
    per ray, or all.

    numpy backend: first hits walk each ray in stretches that double in
    length (from four grid cells): a ray stops as soon as it has a hit
    within the stretch already searched, so a ray that hits something near
    its origin never looks further, however long it is. Compiled backend:
    one walk per ray, stopping at the first cell past its best hit (see
    :func:`_first_hits_compiled`, :func:`_all_hits_compiled`).

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add_many(Circle(1.0), [[5, 0], [9, 0]])
    [0, 1]
    >>> o, d = np.zeros((1, 2)), np.array([[1.0, 0.0]])
    >>> ray_hits_many(w._store, QueryIndex(w._store, "numpy"), o, d, np.inf, 1, 1, True).distance.tolist()
    [4.0, 8.0]
    """
    grid = index.refresh()
    m, dim = origins.shape
    limits = np.full(m, float(max_distance)) if np.ndim(max_distance) == 0 else np.asarray(max_distance, float)
    if index.backend == "compiled":
        if all_hits:
            return _all_hits_compiled(store, index, grid, origins, directions, limits, category, mask)
        return _first_hits_compiled(store, index, grid, origins, directions, limits, category, mask)
    rays: list[Slots] = []
    slots: list[Slots] = []
    dists: list[Floats] = []
    normals: list[Floats] = []

    def test(ray: Slots, cand: Slots, limit: Floats) -> None:
        keep = _passes_filter(store, category, mask, cand)
        ray, cand, limit = ray[keep], cand[keep], limit[keep]
        dist, normal = cast_rows(store, cand, origins[ray], directions[ray], limit)
        hit = np.isfinite(dist)
        rays.append(ray[hit])
        slots.append(cand[hit])
        dists.append(dist[hit])
        normals.append(normal[hit])

    planes = index.planes
    if len(planes):
        ray = np.repeat(np.arange(m, dtype=np.int64), len(planes))
        test(ray, np.tile(planes, m), limits[ray])
    if all_hits:
        qi, cand = grid.query_segments(origins, directions, limits)
        test(qi, cand, limits[qi])
    else:
        # where each ray leaves the bounds of every finite body: nothing to find past it
        blo, bhi = index.bounds
        with np.errstate(divide="ignore", invalid="ignore"):
            ta = (blo - origins) / directions
            tb = (bhi - origins) / directions
        t_exit = np.where(directions == 0.0, np.inf, np.maximum(ta, tb)).min(axis=1)
        t_exit = np.where(((directions == 0.0) & ((origins < blo) | (origins > bhi))).any(axis=1), -1.0, t_exit)
        best = np.full(m, np.inf)
        if len(planes) and len(dists[0]):
            np.minimum.at(best, rays[0], dists[0])
        active = np.flatnonzero(t_exit >= 0) if grid.n else np.zeros(0, dtype=np.int64)
        covered = 0.0
        stretch = 4.0 * grid.cell
        while len(active):
            upto = np.minimum(covered + stretch, limits[active])
            qi, cand = grid.query_segments(origins[active] + covered * directions[active], directions[active],
                                           upto - covered)
            ray = active[qi]
            before = len(dists)
            test(ray, cand, upto[qi])
            if len(dists) > before and len(dists[-1]):
                np.minimum.at(best, rays[-1], dists[-1])
            covered += stretch
            active = active[(best[active] > covered) & (t_exit[active] > covered) & (limits[active] > covered)]
            stretch *= 2.0
    ray = np.concatenate(rays) if rays else np.zeros(0, dtype=np.int64)
    slot = np.concatenate(slots) if slots else np.zeros(0, dtype=np.int64)
    dist = np.concatenate(dists) if dists else np.zeros(0)
    normal = np.concatenate(normals) if normals else np.zeros((0, dim))
    if all_hits:
        rows = np.lexsort((store.serial[slot], dist, ray))
    else:
        # a body may be found again in a later stretch: the same hit, kept once by taking the first per ray
        rows = _first_per_ray(ray, slot, dist, store)
    ray, slot, dist, normal = ray[rows], slot[rows], dist[rows], normal[rows]
    point = origins[ray] + directions[ray] * dist[:, None]
    return RayHitArrays(ray, store.ids[slot], dist, point, normal)


# -- proximity: nearest, within, casts ---------------------------------------------------

class NearHit(NamedTuple):
    """A body near a query shape or point (:meth:`World.query_nearest`, :meth:`World.query_within`).

    Attributes
    ----------
    id : str or int
    distance : float
        The gap; 0 when touching; minus the penetration depth when
        overlapping (as :func:`~collideworld.distance`).
    point : ndarray of float64, shape (D,)
        The closest (or deepest) point on the body.
    query_point : ndarray of float64, shape (D,)
        The closest (or deepest) point on the query shape (the point itself
        for a point query).

    Examples
    --------
    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add(Circle(1.0), position=(5, 0), id="disc")
    'disc'
    >>> [hit] = w.query_nearest((0.0, 0.0))
    >>> hit.id, round(hit.distance, 9), hit.point.round(9).tolist()
    ('disc', 4.0, [4.0, 0.0])
    """

    id: Any
    distance: float
    point: Floats
    query_point: Floats


class CastHit(NamedTuple):
    """A body a moving shape hits (:meth:`World.cast`).

    Attributes
    ----------
    id : str or int
    t : float
        In [0, 1]: the fraction of the motion at the first touch.
    normal : ndarray of float64, shape (D,)
        Unit contact normal from the moving shape towards the body.
    point : ndarray of float64, shape (D,)
        The contact point at that time.

    Examples
    --------
    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add(Circle(1.0), position=(5, 0), id="disc")
    'disc'
    >>> [hit] = w.cast(Circle(1.0), ((0, 0), 0.0), ((10, 0), 0.0))
    >>> hit.id, round(hit.t, 9), hit.normal.tolist()
    ('disc', 0.3, [1.0, 0.0])
    """

    id: Any
    t: float
    normal: Floats
    point: Floats


def _body_pose(store: BodyStore, s: int) -> Any:
    if store.kind[s] == Kind.HALFSPACE:
        return None
    rot = float(store.angle[s]) if store.dim == 2 else store.quaternion[s].copy()
    return store.position[s].copy(), rot


def _filtered(store: BodyStore, cand: Slots, category: int, mask: int) -> Slots:
    out: Slots = cand[_passes_filter(store, category, mask, cand)]
    return out


def _near_candidates(store: BodyStore, index: QueryIndex, lo: Floats, hi: Floats, reach: float) -> Slots:
    grid = index.refresh()
    if math.isinf(reach):
        return np.concatenate([grid.registered(), index.planes])
    cand = grid.query_box(lo - reach, hi + reach)
    return np.concatenate([cand, index.planes])


def _distances(store: BodyStore, cand: Slots, shape: Shape, pose: Any, limit: float,
               pad: float) -> list[tuple[float, int, Floats, Floats]]:
    """(signed distance, slot, point on body, point on query) of the candidates within ``limit``."""
    out = []
    for s in cand.tolist():
        body = store.shapes[s]
        assert body is not None
        r = _prox().distance(body, _body_pose(store, s), shape, pose, max_distance=limit + pad if math.isfinite(limit)
                     else math.inf)
        if r is not None and r.distance + pad <= limit:
            out.append((r.distance + pad, s, r.point_a, r.point_b))
    return out


def _body_rows(store: BodyStore, cand: Slots) -> Floats:
    """The kernels' pose rows of the candidates, as ``proximity.pose_row`` makes them from their poses.

    (A stored quaternion is normalised again, as ``distance`` does to any
    quaternion it is given: the same bits.)
    """
    rows = np.zeros((len(cand), 8))
    rows[:, 3] = 1.0
    finite = store.kind[cand] != Kind.HALFSPACE
    f = cand[finite]
    rows[finite, :store.dim] = store.position[f]
    if store.dim == 2:
        rows[finite, 7] = store.angle[f]
    elif len(f):
        rows[finite, 3:7] = check_quaternions(store.quaternion[f], len(f), "body quaternions")
    return rows


def _measured(store: BodyStore, index: QueryIndex, cand: Slots, shape: Shape, pose: Any, limit: float,
              pad: float) -> tuple[Floats, Slots, Floats, Floats]:
    """:func:`_distances` as arrays (distance, slot, point on body, point on query), in one compiled call.

    ``time_of_impact.distance_rows`` measures every apart candidate as
    ``proximity.distance`` would (the same bits); the pairs it leaves
    (touching or overlapping: their depth is collide()'s) go to
    ``proximity.distance``, one by one.
    """
    from .geometry import time_of_impact as toi  # imports numba: not at `import collideworld`

    dim = store.dim
    md = limit + pad if math.isfinite(limit) else math.inf
    table, piece_of = index.pieces()
    packed, q = table.with_query(shape)
    status = np.zeros(len(cand), dtype=np.int64)
    out = np.zeros((len(cand), 10))
    if len(cand):
        toi.distance_rows(*packed, piece_of[cand], _body_rows(store, cand), q, _prox().pose_row(shape, pose, "b"),
                          dim, md, status, out)
    keep = status == toi.MEASURED
    d = out[keep, 0] + pad
    slots = cand[keep]
    pa, pb = out[keep, 1:1 + dim], out[keep, 4:4 + dim]
    scalar = cand[status == toi.SCALAR]
    if len(scalar):
        rest = _distances(store, scalar, shape, pose, limit, pad)
        if rest:
            d = np.concatenate([d, [r[0] for r in rest]])
            slots = np.concatenate([slots, np.array([r[1] for r in rest], dtype=np.int64)])
            pa = np.concatenate([pa, np.array([r[2] for r in rest])])
            pb = np.concatenate([pb, np.array([r[3] for r in rest])])
    ok = d <= limit
    return d[ok], slots[ok], pa[ok], pb[ok]


def _nearest_compiled(store: BodyStore, index: QueryIndex, shape: Shape, pose: Any, lo: Floats, hi: Floats, k: int,
                      max_distance: float, category: int, mask: int, pad: float) -> list[NearHit]:
    """:func:`nearest` on the compiled backend: the same search, each round's new candidates measured at once."""
    grid = index.refresh()
    blo, bhi = index.bounds
    whole = float(max(np.max(bhi - lo, initial=0.0), np.max(hi - blo, initial=0.0), 0.0))
    reach = min(max_distance, max(grid.cell, 1e-12))
    seen = np.zeros(store.capacity, dtype=bool)
    parts: list[tuple[Floats, Slots, Floats, Floats]] = []
    while True:
        cand = _filtered(store, _near_candidates(store, index, lo, hi, reach if reach < whole else math.inf),
                         category, mask)
        fresh = np.unique(cand[~seen[cand]])
        seen[fresh] = True
        parts.append(_measured(store, index, fresh, shape, pose, max_distance, pad))
        d = np.concatenate([p[0] for p in parts])
        if int(np.count_nonzero(d <= reach)) >= k or reach >= max_distance or reach >= whole:
            break
        reach = min(2.0 * reach, max_distance)
    slots = np.concatenate([p[1] for p in parts])
    pa = np.concatenate([p[2] for p in parts])
    pb = np.concatenate([p[3] for p in parts])
    order = np.lexsort((store.serial[slots], d))[:k]
    ids = store.ids
    return [NearHit(ids[s], float(d[j]), pa[j], pb[j]) for j, s in zip(order.tolist(), slots[order].tolist(),
                                                                       strict=True)]


def nearest(store: BodyStore, index: QueryIndex, shape: Shape, pose: Any, lo: Floats, hi: Floats, k: int,
            max_distance: float, category: int, mask: int, pad: float = 0.0) -> list[NearHit]:
    """The ``k`` bodies nearest a posed shape whose box is ``[lo, hi]``, nearest first (then add order).

    The search box grows (doubling from one grid cell) until it holds ``k``
    bodies no farther than its margin: a body at distance ``d`` has its box
    within ``d`` of the query's box, so none nearer can be outside. ``pad``
    is added to every distance (a point query is a tiny ball of radius ``pad``).

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add_many(Circle(0.5), [[3, 0], [9, 0]])
    [0, 1]
    >>> hits = nearest(w._store, QueryIndex(w._store, "numpy"), Circle(1.0), ((0.0, 0.0), 0.0),
    ...                np.array([-1.0, -1]), np.array([1.0, 1]), 2, np.inf, 1, 1)
    >>> [(h.id, round(h.distance, 9)) for h in hits]
    [(0, 1.5), (1, 7.5)]
    """
    if index.backend == "compiled":
        return _nearest_compiled(store, index, shape, pose, lo, hi, k, max_distance, category, mask, pad)
    grid = index.refresh()
    blo, bhi = index.bounds
    # past this margin the search box holds every finite body
    whole = float(max(np.max(bhi - lo, initial=0.0), np.max(hi - blo, initial=0.0), 0.0))
    reach = min(max_distance, max(grid.cell, 1e-12))
    seen: dict[int, tuple[float, int, Floats, Floats]] = {}
    while True:
        cand = _filtered(store, _near_candidates(store, index, lo, hi, reach if reach < whole else math.inf),
                         category, mask)
        fresh = np.array([c for c in cand.tolist() if c not in seen], dtype=np.int64)
        for row in _distances(store, fresh, shape, pose, max_distance, pad):
            seen[row[1]] = row
        found = sorted(seen.values(), key=lambda r: (r[0], store.serial[r[1]]))
        close = [r for r in found if r[0] <= reach]
        if len(close) >= k or reach >= max_distance or reach >= whole:
            break
        reach = min(2.0 * reach, max_distance)
    return [NearHit(store.ids[s], float(d), pa, pb) for d, s, pa, pb in found[:k]]


def within(store: BodyStore, index: QueryIndex, shape: Shape, pose: Any, lo: Floats, hi: Floats, limit: float,
           category: int, mask: int) -> list[NearHit]:
    """Bodies no farther than ``limit`` from a posed shape (box ``[lo, hi]``), in add order.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add_many(Circle(0.5), [[3, 0], [9, 0]])
    [0, 1]
    >>> hits = within(w._store, QueryIndex(w._store, "numpy"), Circle(1.0), ((0.0, 0.0), 0.0),
    ...               np.array([-1.0, -1]), np.array([1.0, 1]), 2.0, 1, 1)
    >>> [h.id for h in hits]
    [0]
    """
    cand = _filtered(store, _near_candidates(store, index, lo, hi, limit), category, mask)
    if index.backend == "compiled":
        d, slots, pa, pb = _measured(store, index, np.unique(cand), shape, pose, limit, 0.0)
        order = np.argsort(store.serial[slots], kind="stable")
        ids = store.ids
        return [NearHit(ids[s], float(d[j]), pa[j], pb[j]) for j, s in zip(order.tolist(), slots[order].tolist(),
                                                                           strict=True)]
    rows = sorted(_distances(store, cand, shape, pose, limit, 0.0), key=lambda r: store.serial[r[1]])
    return [NearHit(store.ids[s], float(d), pa, pb) for d, s, pa, pb in rows]


def cast_hits(store: BodyStore, index: QueryIndex, shape: Shape, start: Any, end: Any, lo: Floats, hi: Floats,
              category: int, mask: int) -> list[CastHit]:
    """Every body a shape moving from ``start`` to ``end`` touches, by time of first touch (then add order).

    ``[lo, hi]`` holds the shape all along its motion (the swept box).

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add_many(Circle(1.0), [[5, 0], [0, 9]])
    [0, 1]
    >>> hits = cast_hits(w._store, QueryIndex(w._store, "numpy"), Circle(1.0), ((0.0, 0.0), 0.0),
    ...                  ((10.0, 0.0), 0.0), np.array([-1.0, -1]), np.array([11.0, 1]), 1, 1)
    >>> [(h.id, round(h.t, 9)) for h in hits]
    [(0, 0.3)]
    """
    grid = index.refresh()
    cand = _filtered(store, np.concatenate([grid.query_box(lo, hi), index.planes]), category, mask)
    if index.backend == "compiled" and not shape.is_infinite:
        return _cast_compiled(store, index, shape, start, end, cand)
    rows = []
    for s in cand.tolist():
        body = store.shapes[s]
        assert body is not None
        bp = _body_pose(store, s)
        r = _prox().time_of_impact(shape, start, end, body, bp, bp)
        if r is not None:
            rows.append((r.t, int(store.serial[s]), s, r))
    rows.sort(key=lambda x: (x[0], x[1]))
    return [CastHit(store.ids[s], float(r.t), r.normal, r.point) for _, _, s, r in rows]


def _cast_compiled(store: BodyStore, index: QueryIndex, shape: Shape, start: Any, end: Any,
                   cand: Slots) -> list[CastHit]:
    """:func:`cast_hits` on the compiled backend: every candidate's time of impact in one compiled call.

    ``time_of_impact.toi_rows`` runs ``time_of_impact``'s conservative
    advancement on each (the same tolerance, the same bits); the hits' normals
    and points then come from ``proximity.impact_at``, as there.
    """
    from .geometry import time_of_impact as toi  # imports numba: not at `import collideworld`

    cand = np.unique(cand)
    a0, a1 = _prox().pose_row(shape, start, "a (start)"), _prox().pose_row(shape, end, "a (end)")
    table, piece_of = index.pieces()
    packed, q = table.with_query(shape)
    rows = _body_rows(store, cand)
    t = np.full(len(cand), -1.0)
    if len(cand):
        toi.toi_rows(*packed, q, a0, a1, piece_of[cand], rows, store.dim, t)
    for j in np.flatnonzero((t == toi.UNDECIDED) | (t == toi.SCALAR_T)).tolist():
        s = int(cand[j])
        body = store.shapes[s]
        assert body is not None
        bp = _body_pose(store, s)
        r = _prox().time_of_impact(shape, start, end, body, bp, bp)  # (raises UndecidedError, as the numpy path does)
        t[j] = -1.0 if r is None else r.t
    hit = np.flatnonzero(t >= 0.0)
    t = np.minimum(t, 1.0)  # (as time_of_impact reports it)
    hit = hit[np.lexsort((store.serial[cand[hit]], t[hit]))]
    out = []
    for j in hit.tolist():
        s = int(cand[j])
        body = store.shapes[s]
        assert body is not None
        r = _prox().impact_at(shape, a0, a1, body, rows[j], rows[j], float(t[j]))
        out.append(CastHit(store.ids[s], r.t, r.normal, r.point))
    return out


# -- warm-up ------------------------------------------------------------------------------

def _warm_store(dim: int, shapes: Sequence[Shape]) -> tuple[BodyStore, NDArray[np.int64], Floats, QueryIndex]:
    """A compiled store of ``shapes`` in a row along x (2 apart, every mask bit set) and its refreshed query
    index: the warm-ups' world, enough bodies for a grid when given ``MIN_GRIDDED`` of them."""
    u32 = 0xFFFFFFFF
    store = BodyStore(dim, backend="compiled")
    slots = store.allocate(len(shapes))
    store.set_shapes(slots, shapes)
    pos = np.zeros((len(shapes), dim))
    pos[:, 0] = 2.0 * np.arange(len(shapes))
    if dim == 2:
        store.set_poses(slots, pos, np.full(len(shapes), 0.1))
    else:
        store.set_poses(slots, pos, quaternion=np.tile([1.0, 0.0, 0.0, 0.0], (len(shapes), 1)))
    store.serial[slots] = np.arange(len(shapes))
    store.category[slots] = store.mask[slots] = u32
    set_fat_bounds(store, slots[store.kind[slots] != Kind.HALFSPACE], 0.1)
    index = QueryIndex(store, "compiled")
    index.refresh()
    return store, slots, pos, index

@register_warm_up
def _warm_up_queries(dim: int) -> None:
    """Run every compiled query path once on tiny stores (called by ``collideworld.warm_up``).

    Single and batched point, box and shape queries, a patch of the grid
    after a move, single and batched rays (first and all hits), and the
    proximity queries (nearest, within, cast): with the argument types a
    world passes, so that the first query of a process compiles nothing.
    """
    from .shapes import Box, Circle, HalfPlane, Plane, Polygon, Sphere

    ball = Circle(0.5) if dim == 2 else Sphere(0.5)
    box = Box((0.5,) * dim)
    plane = HalfPlane((0.0, 1.0), -5.0) if dim == 2 else Plane((0.0, 0.0, 1.0), -5.0)
    tri = [Polygon(((0.0, 0.0), (1.0, 0.0), (0.0, 1.0)))] if dim == 2 else []
    u32 = 0xFFFFFFFF
    for kinds in ([ball, box], [plane, ball, box, *tri]):  # rays take the one-call path on balls and boxes only
        # enough bodies for a grid (fewer all go to its list of big boxes, and no walk would run)
        shapes = kinds[:1] + kinds[1:] * (MIN_GRIDDED // (len(kinds) - 1) + 1)
        store, slots, pos, index = _warm_store(dim, shapes)
        at = tuple(float(c) for c in pos[-1])
        point_ids(store, index, at, (0.0, 0.0, 0.0), True, u32, u32)
        point_ids(store, index, at, (0.5,) * dim, False, u32, u32)
        box_hits(store, index, pos, np.zeros_like(pos), True, u32, u32)
        for probe in (ball, box, *tri):
            if dim == 2:
                shape_hits(store, index, probe, pos, np.zeros(len(pos)), None, u32, u32)
            else:
                shape_hits(store, index, probe, pos, None, np.tile([1.0, 0.0, 0.0, 0.0], (len(pos), 1)), u32, u32)
        # a move out of the body's registered box (grown by SLACK): the grid is patched from the change journal
        if dim == 2:
            store.set_poses(slots[-1:], pos[-1:] + 0.75, np.zeros(1))
        else:
            store.set_poses(slots[-1:], pos[-1:] + 0.75, quaternion=np.array([[1.0, 0.0, 0.0, 0.0]]))
        store.moved[slots[-1:]] = True
        index.refresh()
        g = index.refresh()  # the fields a busy step's patch replaces, set in place (see _fast_arrays)
        _compiled().set_moving_fields(index.arrays, g.big, g.n_gridded, index.planes, g.glo, g.ghi)
        direction = (1.0,) + (0.0,) * (dim - 1)
        ray_hits(store, index, (-3.0,) * dim, direction, 50.0, u32, u32)
        dirs = np.tile(np.array(direction), (len(pos), 1))
        # rays that pass through the bodies too: the kinds the walks leave to the compiled casts
        # (polygons, half-spaces) are cast after the walk
        through = pos.copy()
        through[:, 0] -= 1.0
        through[:, 1] += 0.25
        ray_hits(store, index, tuple(float(c) for c in through[0]), direction, 50.0, u32, u32)
        ray_hits(store, index, tuple(float(c) for c in through[0]), direction, math.inf, u32, u32)
        for all_hits in (False, True):
            for origins in (pos - 3.0, through):
                ray_hits_many(store, index, origins, dirs, math.inf, u32, u32, all_hits)
                ray_hits_many(store, index, origins, dirs, 5.0, u32, u32, all_hits)
    at_body = pos[1]  # overlapping a body: the deepest points' GJK runs too
    pose = (at_body, 0.0 if dim == 2 else None)
    lo, hi = at_body - 0.5, at_body + 0.5
    nearest(store, index, ball, pose, lo, hi, 2, math.inf, u32, u32)
    within(store, index, box, pose, lo, hi, 3.0, u32, u32)
    cast_hits(store, index, ball, pose, (at_body + 9.0, pose[1]), lo, hi + 9.0, u32, u32)


def warm_up_capsule_hull_queries(dim: int) -> None:
    """Compile the compiled queries' tests of capsules (segments) and 3D hulls (``compiled.queries.settle_rows``).

    Not a step of every warm-up: like the step's kernels of these kinds
    (``warm_up(every_shape=True)``), only ``warm_up(every_shape=True)`` and
    the full build (:func:`collideworld.build.full_build_steps`) prepare
    them. They are the largest kernels the queries reach (the capsule row
    kernels, GJK, EPA: ~25 s of CPU on a cold cache, measured with
    ``benchmarks/cold_start.py --profile``), and a world without capsules or
    hulls never calls them. The tests and ray casts of cylinders, cones and
    rounded shapes (``compiled.query_round``) are prepared here too.

    Examples
    --------
    >>> warm_up_capsule_hull_queries(2)
    """
    from .backend import compiled_available
    from .shapes import Box, Capsule, Circle, Cone, ConvexHull, Cylinder, Polygon, Segment, Sphere

    if not compiled_available():
        return
    zero = (0.0,) * dim
    shapes: list[Shape] = [Capsule(zero, (1.0,) + zero[1:], 0.25), Segment(zero, (0.0, 1.0) + zero[2:]),
                           Box((0.5,) * dim, radius=0.125)]
    if dim == 3:
        tetra = ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
        shapes += [ConvexHull(tetra), ConvexHull(tetra, radius=0.125), Cylinder(0.5, 0.5), Cone(0.5, 0.5)]
    else:
        shapes.append(Polygon([(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)], radius=0.125))
    u32 = 0xFFFFFFFF
    store, _, pos, index = _warm_store(dim, shapes * (MIN_GRIDDED // len(shapes) + 1))
    # the batches (points, shapes) and a single point, each on bodies it touches: settle_rows runs
    box_hits(store, index, pos, np.zeros_like(pos), True, u32, u32)
    ball = Circle(0.5) if dim == 2 else Sphere(0.5)
    for probe in (ball, Box((0.5,) * dim)):
        if dim == 2:
            shape_hits(store, index, probe, pos, np.zeros(len(pos)), None, u32, u32)
        else:
            shape_hits(store, index, probe, pos, None, np.tile([1.0, 0.0, 0.0, 0.0], (len(pos), 1)), u32, u32)
    point_ids(store, index, tuple(float(c) for c in pos[0]), (0.0,) * 3, True, u32, u32)
    # rays: the casts of cylinders, cones and rounded shapes (compiled.query_round.cast_round_rows)
    slots = store.body_slots()
    out = np.zeros((len(slots), dim))
    out[:, 0] = 1.0
    cast_left(store, slots, store.position.take(slots, axis=0) - 3.0 * out, out, np.full(len(slots), 9.0), "warm")
