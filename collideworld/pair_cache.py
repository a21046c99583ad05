"""The pair cache: candidate pairs between steps, their narrowphase answers, and contact events.

The cache keeps every candidate pair of the last step (fat boxes overlapping,
filters passed), sorted by pair key, with its narrowphase answer. A step
either rebuilds the candidates from the broadphase's full pair list, or,
when few fat boxes changed and nothing was added or removed, *patches* them:
pairs of changed boxes are dropped and asked for again
(``pairs_touching``), the rest stay. Either way only pairs with a moved body
go through the narrowphase again. Both give the same candidates and, pair by
pair, the same kernel calls, so the answers are identical.

Pair keys are ``(serial_a << 32) | serial_b`` with ``a`` the body added
first, so the order of contacts is the add order whatever slots the bodies
occupy. Began/ended events are sorted set differences of successive keys
(Box2D's begin/end touch events, computed after the step).

Compound bodies: a candidate pair with a compound is expanded into one row
per pair of parts (``BodyStore.expand_pairs``) before it is keyed, and each
part slot has a serial of its own (given by the world), so a row, its
answer, its reuse and its began/ended events are per *part pair*: a contact
row is identified by ``(id_a, id_b, part_a, part_b)``, and so are began and
ended rows, so a solver can warm-start per part pair.
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .backend import register_warm_up
from .bodies import BodyStore, Kind
from .broadphase import Broadphase
from .contacts import Contacts, PairList
from .geometry.manifold_support import ManifoldArrays, empty_manifold
from .narrowphase import contact_pairs, manifold_pairs
from .registry import IdRegistry

__all__ = ["PairCache", "reuse_answers", "contact_events", "merge_patched", "expand_keys", "separated_rows",
           "APART_MARGIN"]

_U32 = 0xFFFFFFFF


class _Candidates(NamedTuple):
    """A step's candidate pairs, sorted by key, with their narrowphase answers."""

    keys: NDArray[np.int64]  # (serial_a << 32) | serial_b
    a: NDArray[np.int64]  # slots, a added first
    b: NDArray[np.int64]
    hit: NDArray[np.bool_]
    normal: NDArray[np.float64]
    depth: NDArray[np.float64]
    signature: tuple[int, int] | None  # IdRegistry.signature() when built
    manifold: ManifoldArrays | None = None  # contact points per row (hit rows only), when the world wants them

    @staticmethod
    def empty(dim: int) -> _Candidates:
        none = np.empty(0, dtype=np.int64)
        return _Candidates(none, none, none, np.empty(0, dtype=bool), np.empty((0, dim)), np.empty(0), None)


def _member_of_sorted(keys: NDArray[np.int64], sorted_keys: NDArray[np.int64]) -> NDArray[np.bool_]:
    """``np.isin`` for a sorted second argument, by one binary search per key."""
    if not len(sorted_keys):
        return np.zeros(len(keys), dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    found: NDArray[np.bool_] = sorted_keys[pos] == keys
    return found


def reuse_answers(keys: NDArray[np.int64], a: NDArray[np.int64], b: NDArray[np.int64], moved: NDArray[np.bool_],
                  old_keys: NDArray[np.int64], old_hit: NDArray[np.bool_], old_normal: NDArray[np.float64],
                  old_depth: NDArray[np.float64], hit: NDArray[np.bool_], normal: NDArray[np.float64],
                  depth: NDArray[np.float64]) -> NDArray[np.int64]:
    """Copy last step's answers into the rows whose pair is old and unmoved; return the other rows.

    The numpy twin of :func:`collideworld.compiled.pair_cache.reuse_answers`
    (one binary search per unmoved row instead of a merge walk).

    Parameters
    ----------
    keys : ndarray of int64, shape (P,)
        This step's candidate keys, sorted ascending, unique.
    a, b : ndarray of int64, shape (P,)
        Their slots.
    moved : ndarray of bool, shape (capacity,)
        By slot: the body moved since the last step.
    old_keys : ndarray of int64, shape (Q,)
        Last step's candidate keys, sorted ascending, unique.
    old_hit, old_normal, old_depth : ndarray, shapes (Q,), (Q, D), (Q,)
        Last step's answers, row for row with ``old_keys``.
    hit, normal, depth : ndarray, shapes (P,), (P, D), (P,)
        Written in the reused rows only.

    Returns
    -------
    ndarray of int64, shape (F,)
        The rows, ascending, that need the narrowphase: a body moved, or the
        pair was not a candidate last step.

    Examples
    --------
    >>> import numpy as np
    >>> hit, normal, depth = np.zeros(2, dtype=bool), np.zeros((2, 2)), np.zeros(2)
    >>> fresh = reuse_answers(np.array([1, 5]), np.array([0, 0]), np.array([1, 2]), np.array([False, False, True]),
    ...                       np.array([1, 3]), np.array([True, False]), np.array([[0.0, 1.0], [1.0, 0.0]]),
    ...                       np.array([0.5, -1.0]), hit, normal, depth)
    >>> fresh.tolist(), hit.tolist(), normal[0].tolist(), depth[0].item()
    ([1], [True, False], [0.0, 1.0], 0.5)
    """
    n = len(keys)
    if not len(old_keys):
        return np.arange(n, dtype=np.int64)
    rows = np.flatnonzero(~(moved.take(a) | moved.take(b)))
    pos = np.minimum(np.searchsorted(old_keys, keys.take(rows)), len(old_keys) - 1)
    found = old_keys.take(pos) == keys.take(rows)
    rows, pos = rows[found], pos[found]
    hit[rows], normal[rows], depth[rows] = old_hit.take(pos), old_normal.take(pos, axis=0), old_depth.take(pos)
    stale_rows = np.ones(n, dtype=bool)
    stale_rows[rows] = False
    return np.flatnonzero(stale_rows)


#: A cached axis settles a pair as apart only if it shows a gap wider than this times the pair's size
#: (coordinates plus bounding radii): far above the rounding of the supports (~1e-16 of it) and the
#: touching tolerance (1e-14 of it), so a fresh test could not call the pair touching.
APART_MARGIN = 1e-9

#: Kinds whose support along a direction :func:`separated_rows` computes (balls, boxes, capsules, hulls).
_SUPPORTED = np.array([Kind.BALL, Kind.BOX, Kind.CAPSULE, Kind.HULL], dtype=np.int64)


def _support_along(kind: NDArray[np.integer[Any]], position: NDArray[np.float64], rotation: NDArray[np.float64],
                   radius: NDArray[np.float64], half: NDArray[np.float64], seg0: NDArray[np.float64],
                   seg1: NDArray[np.float64], rounding: NDArray[np.float64], hull: NDArray[np.int64],
                   hull_verts: NDArray[np.float64], s: NDArray[np.int64], u: NDArray[np.float64]
                   ) -> NDArray[np.float64]:
    """max over body ``s[k]`` of ``x . u[k]`` (balls, boxes, capsules, hulls; their rounding included)."""
    k = kind.take(s)
    w = np.einsum("mji,mj->mi", rotation.take(s, axis=0), u)  # u in the body's frame: R^T u
    out = np.einsum("mi,mi->m", position.take(s, axis=0), u)
    extra = rounding.take(s) + np.where((k == Kind.BALL) | (k == Kind.CAPSULE), radius.take(s), 0.0)
    box = np.flatnonzero(k == Kind.BOX)
    extra[box] += (np.abs(w[box]) * half.take(s[box], axis=0)).sum(axis=1)
    cap = np.flatnonzero(k == Kind.CAPSULE)
    extra[cap] += np.maximum(np.einsum("mi,mi->m", seg0.take(s[cap], axis=0), w[cap]),
                             np.einsum("mi,mi->m", seg1.take(s[cap], axis=0), w[cap]))
    hl = np.flatnonzero(k == Kind.HULL)
    extra[hl] += np.einsum("mvi,mi->mv", hull_verts[hull.take(s[hl])], w[hl]).max(axis=1)
    total: NDArray[np.float64] = out + extra
    return total


def separated_rows(keys: NDArray[np.int64], a: NDArray[np.int64], b: NDArray[np.int64], rows: NDArray[np.int64],
                   old_keys: NDArray[np.int64], old_hit: NDArray[np.bool_], old_normal: NDArray[np.float64],
                   kind: NDArray[np.integer[Any]], position: NDArray[np.float64], rotation: NDArray[np.float64],
                   radius: NDArray[np.float64], half: NDArray[np.float64], seg0: NDArray[np.float64],
                   seg1: NDArray[np.float64], rounding: NDArray[np.float64], bound_radius: NDArray[np.float64],
                   hull: NDArray[np.int64], hull_verts: NDArray[np.float64], hit: NDArray[np.bool_],
                   normal: NDArray[np.float64], depth: NDArray[np.float64]) -> NDArray[np.int64]:
    """Settle rows by last step's separating axis (3D pairs with a hull); return the rows still to test.

    The warm start of hull pairs (the cached separating axis of Bullet's and
    Jolt's convex pairs, Box2D's simplex cache): a pair that was a candidate
    last step and not touching kept its answer's normal, a direction from a
    towards b along which the two were apart (GJK's closest-point direction,
    or the SAT's axis). If b's lowest point along it is still above a's
    highest by more than ``APART_MARGIN`` times the pair's size, the two are
    apart (a separating axis is a proof, Minkowski's hyperplane separation),
    whatever the fresh test's path: the row gets ``hit`` False, that normal
    and ``depth`` minus the gap (a lower bound on the distance; the fresh test
    gives minus the distance: apart rows' depths are not part of any answer
    the world gives). Pairs of a hull with a ball, box, capsule or hull only
    (their GJK costs 2-7 us; the other kernels cost less than this test).

    The numpy twin of :func:`collideworld.compiled.pair_cache.separated_rows`.

    Parameters
    ----------
    keys, a, b : ndarray of int64, shape (P,)
        This step's candidate keys (sorted ascending, unique) and slots.
    rows : ndarray of int64, shape (R,)
        Rows to test, ascending.
    old_keys, old_hit, old_normal : ndarray, shapes (Q,), (Q,), (Q, 3)
        Last step's candidates and answers.
    kind, position, rotation, radius, half, seg0, seg1, rounding, bound_radius, hull : ndarray
        The store's columns by slot.
    hull_verts : ndarray, shape (H, V, 3)
        The hulls' local vertices (padded by repeats).
    hit, normal, depth : ndarray, shapes (P,), (P, 3), (P,)
        Written in the settled rows only.

    Returns
    -------
    ndarray of int64, shape (F,)
        The rows of ``rows`` not settled, ascending.

    Examples
    --------
    A sphere of radius 1 at x = 3 and a unit cube hull at the origin, apart along +x last step:

    >>> import itertools
    >>> import numpy as np
    >>> kind = np.array([Kind.HULL, Kind.BALL])
    >>> pos, rot = np.array([[0.0, 0, 0], [3.0, 0, 0]]), np.stack([np.eye(3)] * 2)
    >>> cube = np.array(list(itertools.product((-0.5, 0.5), repeat=3)))[None]
    >>> zero3, zero = np.zeros((2, 3)), np.zeros(2)
    >>> hit, normal, depth = np.ones(1, dtype=bool), np.zeros((1, 3)), np.zeros(1)
    >>> left = separated_rows(np.array([1]), np.array([0]), np.array([1]), np.array([0]), np.array([1]),
    ...                       np.array([False]), np.array([[1.0, 0, 0]]), kind, pos, rot, np.array([0.0, 1.0]),
    ...                       zero3, zero3, zero3, zero, np.array([0.9, 1.0]), np.array([0, 0]), cube,
    ...                       hit, normal, depth)
    >>> left.tolist(), hit.tolist(), normal[0].tolist(), depth.tolist()
    ([], [False], [1.0, 0.0, 0.0], [-1.5])
    """
    if not len(old_keys) or not len(rows):
        return rows
    ka, kb = kind.take(a.take(rows)), kind.take(b.take(rows))
    ok = ((ka == Kind.HULL) | (kb == Kind.HULL)) & np.isin(ka, _SUPPORTED) & np.isin(kb, _SUPPORTED)
    pos = np.minimum(np.searchsorted(old_keys, keys.take(rows)), len(old_keys) - 1)
    ok &= (old_keys.take(pos) == keys.take(rows))
    ok &= ~old_hit.take(pos)
    sel = np.flatnonzero(ok)
    if not len(sel):
        return rows
    r = rows.take(sel)
    u = old_normal.take(pos.take(sel), axis=0)
    sa, sb = a.take(r), b.take(r)
    cols = (kind, position, rotation, radius, half, seg0, seg1, rounding, hull, hull_verts)
    gap = -_support_along(*cols, sb, -u) - _support_along(*cols, sa, u)
    size = (np.abs(position.take(sa, axis=0)).max(axis=1) + np.abs(position.take(sb, axis=0)).max(axis=1)
            + bound_radius.take(sa) + bound_radius.take(sb) + rounding.take(sa) + rounding.take(sb))
    apart = gap > APART_MARGIN * size
    done = r[apart]
    hit[done], normal[done], depth[done] = False, u[apart], -gap[apart]
    left = np.ones(len(rows), dtype=bool)
    left[sel[apart]] = False
    return rows[left]


def contact_events(keys: NDArray[np.int64], hit: NDArray[np.bool_], prev_keys: NDArray[np.int64]
                   ) -> tuple[NDArray[np.int64], NDArray[np.bool_], NDArray[np.int64]]:
    """This step's contact rows, which of them began, and which of last step's contacts ended.

    The numpy twin of :func:`collideworld.compiled.pair_cache.contact_events`
    (sorted set differences by binary search instead of a merge walk).

    Parameters
    ----------
    keys : ndarray of int64, shape (P,)
        This step's candidate keys, sorted ascending, unique.
    hit : ndarray of bool, shape (P,)
        Whether each candidate is in contact.
    prev_keys : ndarray of int64, shape (Q,)
        Last step's contact keys, sorted ascending, unique.

    Returns
    -------
    rows : ndarray of int64, shape (C,)
        The candidate rows in contact, ascending.
    began : ndarray of bool, shape (C,)
        Whether the contact of each such row is new (its key is not in ``prev_keys``).
    ended : ndarray of int64, shape (E,)
        Indices into ``prev_keys``, ascending, of the keys that are not contacts now.

    Examples
    --------
    >>> import numpy as np
    >>> rows, began, ended = contact_events(np.array([1, 4, 6]), np.array([True, False, True]), np.array([2, 6]))
    >>> rows.tolist(), began.tolist(), ended.tolist()
    ([0, 2], [True, False], [0])
    """
    rows = np.flatnonzero(hit)
    now = keys.take(rows)
    return rows, ~_member_of_sorted(now, prev_keys), np.flatnonzero(~_member_of_sorted(prev_keys, now))


def merge_patched(old_keys: NDArray[np.int64], old_a: NDArray[np.int64], old_b: NDArray[np.int64],
                  old_hit: NDArray[np.bool_], old_normal: NDArray[np.float64], old_depth: NDArray[np.float64],
                  mark: NDArray[np.bool_], moved: NDArray[np.bool_], new_keys: NDArray[np.int64],
                  new_a: NDArray[np.int64], new_b: NDArray[np.int64]
                  ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.bool_],
                             NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """Last step's candidates without the pairs of changed boxes, merged with the pairs asked for again.

    The numpy twin of :func:`collideworld.compiled.pair_cache.merge_patched`:
    rows are merged by ``take`` with one index array (fancy and boolean
    indexing of (P, D) arrays cost several times more).

    Parameters
    ----------
    old_keys, old_a, old_b : ndarray of int64, shape (Q,)
        Last step's candidate keys (sorted ascending, unique) and slots.
    old_hit, old_normal, old_depth : ndarray, shapes (Q,), (Q, D), (Q,)
        Their answers.
    mark : ndarray of bool, shape (capacity,)
        By slot: the box changed; every old row holding one is dropped.
    moved : ndarray of bool, shape (capacity,)
        By slot: the body moved since the last step.
    new_keys, new_a, new_b : ndarray of int64, shape (N,)
        The pairs of the changed boxes now, keyed, sorted ascending; no key
        equals a kept old key (a new pair holds a changed box, a kept one does not).

    Returns
    -------
    keys, a, b, hit, normal, depth : ndarray, shapes (P,), (P,), (P,), (P,), (P, D), (P,)
        The merged candidates, sorted by key; new rows' answers are zero
        until the narrowphase fills them.
    fresh : ndarray of int64, shape (F,)
        The rows, ascending, that need the narrowphase: the new rows, and
        kept rows with a moved body.

    Examples
    --------
    >>> import numpy as np
    >>> changed = np.array([False, False, True])      # slot 2's box changed (and moved)
    >>> out = merge_patched(np.array([1, 3]), np.array([0, 1]), np.array([1, 2]), np.array([True, True]),
    ...                     np.zeros((2, 2)), np.ones(2), changed, changed, np.array([2]), np.array([0]), np.array([2]))
    >>> out[0].tolist(), out[3].tolist(), out[6].tolist()
    ([1, 2], [True, False], [1])
    """
    kept = np.flatnonzero(~(mark.take(old_a) | mark.take(old_b)))
    # merged rows: kept row i lands after the new rows that sort before it
    # (np.insert's placement), new row j at searchsorted(k0, qk[j]) + j
    at = np.searchsorted(old_keys.take(kept), new_keys)
    n_kept, n_new = len(kept), len(new_keys)
    new_rows = at + np.arange(n_new)
    src = np.zeros(n_kept + n_new, dtype=np.int64)
    src[np.arange(n_kept) + np.searchsorted(at, np.arange(n_kept), side="right")] = kept
    if len(old_keys):
        keys, a, b = old_keys.take(src), old_a.take(src), old_b.take(src)
        hit, depth, normal = old_hit.take(src), old_depth.take(src), old_normal.take(src, axis=0)
    else:  # nothing to take from; every row is new
        keys, a, b = np.empty_like(src), np.empty_like(src), np.empty_like(src)
        hit, depth, normal = np.empty(n_new, dtype=bool), np.empty(n_new), np.empty((n_new, old_normal.shape[1]))
    keys[new_rows], a[new_rows], b[new_rows] = new_keys, new_a, new_b
    hit[new_rows], depth[new_rows], normal[new_rows] = False, 0.0, 0.0
    stale = moved.take(a) | moved.take(b)
    stale[new_rows] = True
    return keys, a, b, hit, normal, depth, np.flatnonzero(stale)


def expand_keys(i: NDArray[np.int64], j: NDArray[np.int64], n_parts: NDArray[np.int64],
                parts_at: NDArray[np.int64], part_slots: NDArray[np.int64], serial: NDArray[np.int64]
                ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Slot pairs with every compound replaced by its parts, keyed and sorted: ``(keys, a, b)``.

    The numpy twin of :func:`collideworld.compiled.pair_cache.expand_keys`
    (the expansion of ``BodyStore.expand_pairs`` for compounds of parts, then
    one sort of the keys instead of a walk that writes them in order).

    Parameters
    ----------
    i, j : ndarray of int64, shape (P,)
        Slot pairs, ``i != j``.
    n_parts, parts_at : ndarray of int64, shape (capacity,)
        By slot: a compound's part count (0 for any other body) and its first row in ``part_slots``.
    part_slots : ndarray of int64
        The part slots of the compounds, each compound's in part order.
    serial : ndarray of int64, shape (capacity,)
        By slot: the add order (bodies and part slots).

    Returns
    -------
    keys, a, b : ndarray of int64, shape (K,)
        One row per pair of parts, keyed ``(serial_a << 32) | serial_b`` with
        ``a`` added first, sorted by key.

    Examples
    --------
    A circle (slot 0) against a compound (slot 1) of two part slots (2 and 3):

    >>> import numpy as np
    >>> keys, a, b = expand_keys(np.array([0]), np.array([1]), np.array([0, 2, 0, 0]), np.array([0, 0, 0, 0]),
    ...                          np.array([2, 3]), np.array([0, 1, 2, 3]))
    >>> (keys >> 32).tolist(), (keys & 0xFFFFFFFF).tolist(), a.tolist(), b.tolist()
    ([0, 0], [2, 3], [0, 0], [2, 3])
    """
    na, nb = n_parts.take(i), n_parts.take(j)
    counts = np.maximum(na, 1) * np.maximum(nb, 1)
    row = np.repeat(np.arange(len(i)), counts)
    child = np.arange(int(counts.sum())) - (np.cumsum(counts) - counts)[row]
    nbr = np.maximum(nb, 1).take(row)
    ka, kb = child // nbr, child % nbr
    ir, jr = i.take(row), j.take(row)
    ca, cb = na.take(row) > 0, nb.take(row) > 0
    pi = np.where(ca, part_slots.take(np.where(ca, parts_at.take(ir) + ka, 0), mode="clip"), ir)
    pj = np.where(cb, part_slots.take(np.where(cb, parts_at.take(jr) + kb, 0), mode="clip"), jr)
    si, sj = serial.take(pi), serial.take(pj)
    swap = si > sj
    a = np.where(swap, pj, pi)
    b = np.where(swap, pi, pj)
    keys = (np.minimum(si, sj) << 32) | np.maximum(si, sj)
    # keys are unique, so any sort gives this order; the stable one (timsort) runs along the sorted runs
    # the expansion leaves (each compound's part rows in order): ~10x less than quicksort there
    order = np.argsort(keys, kind="stable")
    return keys.take(order), a.take(order), b.take(order)


class PairCache:
    """Candidates, reuse of unmoved pairs, patching, and began/ended, for one world.

    Parameters
    ----------
    store : BodyStore
    registry : IdRegistry
    broadphase : Broadphase
        Holds every body (half-spaces included) under its slot.
    backend : {"numpy", "compiled"}
        Which kernels the narrowphase runs.
    manifolds : bool
        Also compute contact points (for the rows that hit and were tested
        this step; unmoved pairs keep theirs).

    Examples
    --------
    The cache is the World's; :meth:`World.step` drives it:

    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add_many(Circle(1.0), [[0.0, 0.0], [1.5, 0.0]])
    [0, 1]
    >>> [(c.a, c.b) for c in w.step()], list(w.step().began)
    ([(0, 1)], [])
    """

    def __init__(self, store: BodyStore, registry: IdRegistry, broadphase: Broadphase,
                 backend: str = "numpy", manifolds: bool = False) -> None:
        self._store = store
        self._kernels: Any = None
        self.use_backend(backend)
        self.manifolds = manifolds
        self._registry = registry
        self._bp = broadphase
        self.dim = store.dim
        self._cand = _Candidates.empty(self.dim)
        self._layout_cache: tuple[tuple[int, int], bool, bool] | None = None
        self._prev_keys = np.empty(0, dtype=np.int64)
        self._prev_a = np.empty(0, dtype=object)
        self._prev_b = np.empty(0, dtype=object)
        self._prev_part_a = np.empty(0, dtype=np.int64)
        self._prev_part_b = np.empty(0, dtype=np.int64)
        self.last: Contacts | None = None
        #: Rows the warm start (:func:`separated_rows`) answered in the last step, without the narrowphase.
        self.warm_settled = 0

    def __getstate__(self) -> dict[str, Any]:
        # the kernels are a module (numpy or compiled twins): named by the backend, found again on load
        state = self.__dict__.copy()
        del state["_kernels"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.use_backend(self._backend)

    def use_backend(self, backend: str) -> None:
        """Run the ``backend`` kernels from the next step on (the state is the same for both)."""
        self._backend = backend
        # the bookkeeping kernels: the compiled twins, or this module's numpy ones
        self._kernels = sys.modules[__name__]
        if backend == "compiled":
            from .compiled import pair_cache as compiled_kernels

            self._kernels = compiled_kernels

    def pairs(self) -> set[tuple[object, object]]:
        """Id pairs in contact after the last step."""
        return set(zip(self._prev_a.tolist(), self._prev_b.tolist(), strict=True))

    def forget_layout(self) -> None:
        """Filters changed in place: work out again whether every filter passes."""
        self._layout_cache = None

    def renumber(self, new_slot: NDArray[np.int64]) -> None:
        """Follow a compaction of the store (``new_slot``: old slot -> new); keys and answers stay."""
        c = self._cand
        self._cand = c._replace(a=new_slot.take(c.a), b=new_slot.take(c.b))
        self._layout_cache = None

    # -- candidates -------------------------------------------------------------------------

    def _layout(self) -> tuple[bool, bool]:
        """(every filter passes every pair, slot order is add order), cached per signature."""
        sig = self._registry.signature()
        cached = self._layout_cache
        if cached is not None and cached[0] == sig:
            return cached[1], cached[2]
        st = self._store
        live = np.flatnonzero(st.kind >= 0)
        all_pass = bool(np.all(st.mask[live] == _U32) and np.all(st.category[live] != 0))
        serial = st.serial[live]
        in_order = bool(np.all(serial[1:] > serial[:-1]))
        self._layout_cache = (sig, all_pass, in_order)
        return all_pass, in_order

    def _keyed(self, cand: NDArray[np.int64], presorted: bool
               ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """Filter slot pairs and key them: (keys, a, b) sorted by key, ``a`` added first.

        ``presorted``: rows are sorted lexicographically by slot, with i < j.
        """
        i, j = cand[:, 0], cand[:, 1]
        all_pass, in_order = self._layout()
        st = self._store
        if not all_pass:
            cat, msk = st.category, st.mask
            keep = ((cat[i] & msk[j]) != 0) & ((cat[j] & msk[i]) != 0)
            i, j = i[keep], j[keep]
        if st.n_compounds:  # one row per pair of parts (filters were the bodies')
            if not st.n_chains and not st.surface.any():
                # compounds of parts only: every part pair of every pair (expand_pairs' rule), keyed and
                # sorted in one call (compiled: one walk that writes the keys in order, no sort)
                expanded: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]] = \
                    self._kernels.expand_keys(i, j, st.n_parts, st.parts_at, st.part_slots, st.serial)
                return expanded
            _, i, j = st.expand_pairs(i, j)
            presorted = False
        serial = st.serial
        si, sj = serial[i], serial[j]
        if presorted and in_order:
            # slots in add order: (i, j) is (a, b) and slot order is key order
            return (si << 32) | sj, i, j
        swap = si > sj
        a = np.where(swap, j, i)
        b = np.where(swap, i, j)
        keys = (np.minimum(si, sj) << 32) | np.maximum(si, sj)
        # keys are unique, so any sort gives this order; the stable one (timsort) runs along the sorted runs
        # a compound expansion leaves (each compound's part rows in order): ~10x less than quicksort there
        order = np.argsort(keys, kind="stable")
        return keys[order], a[order], b[order]

    def _narrow(self, a: NDArray[np.int64], b: NDArray[np.int64], rows: NDArray[np.int64] | None,
                hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
        """Fill hit/normal/depth by the narrowphase on ``rows`` (None: all rows)."""
        if rows is None:
            res = contact_pairs(self._store, a, b, self._backend)
            hit[:], normal[:], depth[:] = res
            return
        if len(rows):
            res = contact_pairs(self._store, a.take(rows), b.take(rows), self._backend)
            hit[rows], normal[rows], depth[rows] = res

    def _warm_apart(self, old: _Candidates) -> bool:
        """Whether last step's separating axes can settle rows this step (3D, hulls stored, old candidates)."""
        return self.dim == 3 and len(old.keys) > 0 and len(self._store.hulls.verts) > 0

    def _settle_apart(self, keys: NDArray[np.int64], a: NDArray[np.int64], b: NDArray[np.int64],
                      rows: NDArray[np.int64], old: _Candidates, hit: NDArray[np.bool_], normal: NDArray[np.float64],
                      depth: NDArray[np.float64]) -> NDArray[np.int64]:
        """Of ``rows``, those the narrowphase must test: hull pairs still apart along last step's
        separating axis are answered here (:func:`separated_rows`, exact: the axis proves the gap)."""
        self.warm_settled = 0
        if not self._warm_apart(old) or not len(rows):
            return rows
        st = self._store
        left: NDArray[np.int64] = self._kernels.separated_rows(
            keys, a, b, rows, old.keys, old.hit, old.normal, st.kind, st.position, st.rotation, st.radius, st.half,
            st.seg0, st.seg1, st.rounding, st.bound_radius, st.hull, st.hulls.verts, hit, normal, depth)
        self.warm_settled = len(rows) - len(left)
        return left

    def _candidates_full(self, moved: NDArray[np.bool_], n_moved: int) -> _Candidates:
        """Candidates from the broadphase's full pair list; cached answers for unmoved pairs.

        ``moved``: by slot, whether the body moved since the last step.
        """
        keys, a, b = self._keyed(self._bp.pairs().reshape(-1, 2), presorted=True)
        n = len(keys)
        old = self._cand
        fresh = None
        if len(old.keys) and n_moved < len(self._registry):
            hit = np.empty(n, dtype=bool)
            normal = np.empty((n, self.dim))
            depth = np.empty(n)
            # reuse last step's answer for pairs in which neither body moved
            fresh = self._kernels.reuse_answers(keys, a, b, moved, old.keys, old.hit, old.normal, old.depth,
                                                hit, normal, depth)
            self._narrow(a, b, self._settle_apart(keys, a, b, fresh, old, hit, normal, depth), hit, normal, depth)
        elif self._warm_apart(old):
            # every row is tested, but last step's separating axes may settle some hull pairs first
            hit = np.empty(n, dtype=bool)
            normal = np.empty((n, self.dim))
            depth = np.empty(n)
            every = np.arange(n, dtype=np.int64)
            self._narrow(a, b, self._settle_apart(keys, a, b, every, old, hit, normal, depth), hit, normal, depth)
        else:
            # every row is tested: the narrowphase's arrays are the answer (not copied into
            # arrays of the same size allocated beside them)
            res = contact_pairs(self._store, a, b, self._backend)
            hit = np.require(res.hit, np.bool_, ["C", "W"])
            normal = np.require(res.normal, np.float64, ["C", "W"])
            depth = np.require(res.depth, np.float64, ["C", "W"])
            del res
        cand = _Candidates(keys, a, b, hit, normal, depth, self._registry.signature())
        return self._with_manifolds(cand, old, fresh)

    def _with_manifolds(self, cand: _Candidates, old: _Candidates, fresh: NDArray[np.int64] | None) -> _Candidates:
        """``cand`` with contact points: old ones for hit rows not tested again, new ones for ``fresh`` hit rows."""
        if not self.manifolds:
            return cand
        n = len(cand.keys)
        out = empty_manifold(n, self.dim)
        tested = np.ones(n, dtype=bool)
        if fresh is not None:
            tested[:] = False
            tested[fresh] = True
            kept = np.flatnonzero(~tested & cand.hit)
            if len(kept) and old.manifold is not None:
                pos = np.searchsorted(old.keys, cand.keys.take(kept))
                om = old.manifold
                out.points[kept], out.separations[kept] = om.points.take(pos, axis=0), om.separations.take(pos, axis=0)
                out.ids[kept], out.count[kept] = om.ids.take(pos, axis=0), om.count.take(pos)
        rows = np.flatnonzero(tested & cand.hit)
        if len(rows):
            m = manifold_pairs(self._store, cand.a.take(rows), cand.b.take(rows), cand.normal.take(rows, axis=0),
                               cand.depth.take(rows), self._backend)
            out.points[rows], out.separations[rows], out.ids[rows], out.count[rows] = m
        return cand._replace(manifold=out)

    def _candidates_patched(self, moved: NDArray[np.bool_], changed: NDArray[np.int64]
                            ) -> tuple[_Candidates, NDArray[np.int64]]:
        """Last step's candidates with the pairs of the ``changed`` fat boxes queried again.

        ``moved``: by slot, whether the body moved since the last step.
        Returns the candidates and the rows that went through the narrowphase
        (those with a moved body).
        """
        old = self._cand
        mark = np.zeros(self._store.capacity, dtype=bool)
        mark[changed] = True
        self._store.spread_to_parts(mark)
        qk, qa, qb = self._keyed(self._bp.pairs_touching(changed).reshape(-1, 2), presorted=False)
        keys, a, b, hit, normal, depth, fresh = self._kernels.merge_patched(
            old.keys, old.a, old.b, old.hit, old.normal, old.depth, mark, moved, qk, qa, qb)
        self._narrow(a, b, self._settle_apart(keys, a, b, fresh, old, hit, normal, depth), hit, normal, depth)
        cand = _Candidates(keys, a, b, hit, normal, depth, self._registry.signature())
        return self._with_manifolds(cand, old, fresh), fresh

    def _patchable(self, changed: NDArray[np.int64]) -> bool:
        if self._cand.signature != self._registry.signature():
            return False
        return self._bp.prefers_incremental(len(changed))

    # -- the step ------------------------------------------------------------------------

    def step(self, moved_slots: NDArray[np.int64], changed: NDArray[np.int64]) -> Contacts:
        """Contacts now, given the slots posed since the last step and those whose fat box changed."""
        # no pose changes here: the kernel groups share the store's world rows of capsules and hulls
        with self._store.frame():
            return self._step(moved_slots, changed)

    def _step(self, moved_slots: NDArray[np.int64], changed: NDArray[np.int64]) -> Contacts:
        st = self._store
        moved = np.zeros(st.capacity, dtype=bool)
        moved[moved_slots] = True
        st.spread_to_parts(moved)
        old = self._cand
        fresh: NDArray[np.int64] | None = None
        if st.n_compounds and len(moved_slots):
            # a moved mesh or heightfield: its rows were pruned to the triangles near each body at its
            # old pose (BodyStore.expand_pairs), so its pairs are queried again, as a changed box's are
            surf = moved_slots[st.surface.take(moved_slots)]
            if len(surf):
                changed = np.union1d(changed, surf)
        if self._patchable(changed):
            cand, fresh = self._candidates_patched(moved, changed)
        else:
            cand = self._candidates_full(moved, len(moved_slots))
        self._cand = cand

        prev_keys = self._prev_keys
        # compiled, one merge walk over every row costs less than the patched shortcut below
        full_diff = fresh is None or self._backend == "compiled"
        if full_diff:
            # last step's candidates are not read below: let them go before this step's
            # contacts are made (a world's memory peaks here, with both generations alive)
            del old
            rows, began_rows, ended = self._kernels.contact_events(cand.keys, cand.hit, prev_keys)
        else:
            rows = np.flatnonzero(cand.hit)
        keys, a, b = cand.keys.take(rows), cand.a.take(rows), cand.b.take(rows)
        ids = st.ids
        ids_a, ids_b = ids.take(a), ids.take(b)
        part_a, part_b = st.part.take(a), st.part.take(b)
        if full_diff:
            began_a, began_b = ids_a[began_rows], ids_b[began_rows]
            began_pa, began_pb = part_a[began_rows], part_b[began_rows]
        else:
            assert fresh is not None
            # Patched: nothing was added or removed, so last step's contacts
            # are ``old``'s hit rows, and only rows with a moved body were
            # tested again. Only they can have begun, and only last step's
            # contacts with a moved body can have ended: both found without
            # a search over every contact.
            f = fresh[cand.hit.take(fresh)]
            f = f[~_member_of_sorted(cand.keys.take(f), prev_keys)]
            began_a, began_b = ids[cand.a.take(f)], ids[cand.b.take(f)]
            began_pa, began_pb = st.part.take(cand.a.take(f)), st.part.take(cand.b.take(f))
            began_rows = np.zeros(len(rows), dtype=bool)
            began_rows[np.searchsorted(rows, f)] = True
            was = np.flatnonzero(old.hit)
            was = was[moved.take(old.a.take(was)) | moved.take(old.b.take(was))]
            gone_keys = old.keys.take(was)
            gone_keys = gone_keys[~_member_of_sorted(gone_keys, keys)]
            ended = np.searchsorted(prev_keys, gone_keys)
        m = cand.manifold
        if m is not None:
            m = ManifoldArrays(m.points.take(rows, axis=0), m.separations.take(rows, axis=0), m.ids.take(rows, axis=0),
                               m.count.take(rows))
        contacts = Contacts(ids_a, ids_b, cand.normal.take(rows, axis=0), cand.depth.take(rows),
                            PairList(began_a, began_b, began_pa, began_pb),
                            PairList(self._prev_a[ended], self._prev_b[ended], self._prev_part_a[ended],
                                     self._prev_part_b[ended]), began_rows, m, part_a, part_b)
        int_ids = self._registry.slot_int_ids()
        if int_ids is not None and not st.n_compounds:
            # every id a small int (and no compound, whose part slots have no id of their own): then
            # Contacts.int_pairs can give the pairs as ints with one take per side
            contacts.set_int_rows(int_ids, a, b)
        self._prev_keys, self._prev_a, self._prev_b = keys, ids_a, ids_b
        self._prev_part_a, self._prev_part_b = part_a, part_b
        self.last = contacts
        return contacts


@register_warm_up
def _warm_up_bookkeeping(dim: int) -> None:
    """Compile the pair cache's compiled bookkeeping on tiny inputs (called by ``collideworld.warm_up``)."""
    from .compiled import pair_cache as compiled_kernels

    keys = np.array([1, 2], dtype=np.int64)
    slots = np.array([0, 1], dtype=np.int64)
    hit = np.array([True, False])
    normal, depth = np.zeros((2, dim)), np.zeros(2)
    compiled_kernels.reuse_answers(keys, slots, slots, np.zeros(2, dtype=bool), keys, hit, normal.copy(),
                                   depth.copy(), hit.copy(), normal, depth)
    compiled_kernels.contact_events(keys, hit, keys)
    compiled_kernels.merge_patched(keys, slots, slots, hit, normal, depth, np.zeros(2, dtype=bool),
                                   np.zeros(2, dtype=bool), keys[:1] + 2, slots[:1], slots[:1])
    compiled_kernels.expand_keys(slots[:1], slots[1:], slots * 0, slots, slots, slots)
    if dim == 3:  # the hull pairs' warm start, with the store's column types (kind int8)
        kind = np.array([Kind.HULL, Kind.BALL], dtype=np.int8)
        rot = np.stack([np.eye(3)] * 2)
        zeros3, zeros = np.zeros((2, 3)), np.zeros(2)
        compiled_kernels.separated_rows(keys, slots, slots, slots, keys, np.zeros(2, dtype=bool), normal, kind,
                                        zeros3, rot, zeros, zeros3, zeros3, zeros3, zeros, zeros,
                                        np.zeros(2, dtype=np.int64), np.zeros((1, 2, 3)), hit.copy(), normal.copy(),
                                        depth.copy())
