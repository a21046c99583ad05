"""Incremental sweep-and-prune over sorted AABB endpoints.

Outline (after Baraff's 1992 thesis, §5.1, "sort and sweep", and the
insertion-sort formulation in Ericson, *Real-Time Collision Detection*, §7.5):

    for each axis k: a sorted list of the 2n interval endpoints of the boxes
    keep the set S of overlapping pairs
    update(body b, new box):
        for each axis k, for each endpoint e of b that moved:
            for each endpoint f of another body c between old and new e:
                start of b moved left past end of c,
                or end of b moved right past start of c:
                    add {b, c} to S if the boxes now overlap on all axes
                start of b moved right past end of c,
                or end of b moved left past start of c:
                    remove {b, c} from S
    insert / remove: query the box against every stored box (numpy), or
    sweep all boxes once when many are inserted or removed at once

Why the crossings are enough: on axis k, boxes b and c overlap exactly when
start_b precedes end_c and start_c precedes end_b in the sorted list. That
relation changes only when a start and an end swap places; a start passing a
start (or an end an end) changes nothing.

Endpoint arrays
---------------
Each axis owns one sorted Python list of endpoint keys (below), as rapier's
``SAPAxis`` and Bullet's ``btAxisSweep3`` own theirs. Moving an endpoint is
one insertion-sort step: two bisections find its old and new places, and the
keys strictly between are exactly the endpoints it crosses; shifting them by
one place is a C-level slice copy of just those keys. Inserting or removing
a few endpoints shifts the list's tail (a memmove, O(n) but fast); large
batches merge or filter the whole list once.

Endpoint keys
-------------
An endpoint is one Python int, ``(ordered_bits(value) << 33) | (is_end << 32)
| slot``, where ``ordered_bits`` maps a float64 to an int64 with the same
order. Comparing two keys therefore compares values first, then puts a START
before an END at equal values, then breaks remaining ties by slot so that keys
are unique. START-before-END is the touching rule in key form: start_a
precedes end_b exactly when ``lo_a <= hi_b``, so boxes that only touch
overlap, in the sweep as in the reference. Packed ints compare in C without
the per-element dispatch of tuples (measured on 20,000 keys: 3.5 us against
5.8 us with ``(value, is_end, slot)`` tuples for a remove and an add).

Why own the lists: sortedcontainers' public API moves an endpoint with a
``remove``, an ``irange`` and an ``add`` (three bisections plus index upkeep
each). Measured through ``World(dim=2, broadphase="sap")`` on the benchmark
scenes, broadphase time per step: 100,000 boxes with 20 moving, 2.1 ms
either way (the moves are cheap next to the per-call checks); 10,000 boxes
with 5 % moving, 3.3 ms with these lists against 11.3 ms with SortedList's
public API (and 6.3 ms with the former in-place edit of its private sublists).

NOTE: a body that jumps far crosses many endpoints, and each crossing costs a
Python-level step; sweep-and-prune pays off when motion is coherent between
calls. Teleports are correct but cost O(endpoints crossed).

NOTE: the pair set (:class:`.pair_set.SlotPairSet`) holds internal slot
numbers, not handles, packed as ``(min_slot << 32) | max_slot``; handles are
looked up in ``pairs()``. Slots are reused after removal, which is safe
because removing a body first removes every pair it is in. Bulk work (the
first sweep, large inserts and removals) loads the pair set from arrays; only
the incremental sweep edits it pair by pair.
"""

from __future__ import annotations

from bisect import bisect_left, insort

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import InvalidArgumentError
from .base import (
    Broadphase,
    as_boxes,
    as_handles,
    as_static,
    check_live_handles,
    check_new_handles,
)
from .batched_sweep import check_backend, overlapping_pairs
from .pair_set import SlotPairSet, pair_keys

__all__ = ["SweepAndPrune"]

_END = 1 << 32  # endpoint flag bit: START (0) sorts before END at equal values
_SLOT_MASK = _END - 1
_VALUE_SHIFT = 33
_MAX_SLOTS = 1 << 32

#: An endpoint's new place is first looked for among this many keys on
#: either side of its old one (a short bisection), as small moves cross few.
_NEAR = 8

# Upper bound on the elements of one numpy comparison block, to bound memory.
_BLOCK_ELEMENTS = 1 << 22


def _ordered_bits(x: NDArray[np.float64]) -> NDArray[np.int64]:
    """Map float64 to int64 preserving order (for finite values and +0.0).

    Non-negative floats already compare like their bit patterns read as
    signed ints; negative floats compare in reverse, so their magnitude bits
    are flipped. ``-0.0`` must have been turned into ``+0.0`` beforehand (the
    input checks do), otherwise it would sort just below ``+0.0``.
    """
    bits = np.ascontiguousarray(x, dtype=np.float64).view(np.int64)
    return np.where(bits < 0, bits ^ np.int64(0x7FFFFFFFFFFFFFFF), bits)


class SweepAndPrune(Broadphase):
    """Incremental sweep-and-prune broadphase.

    Parameters
    ----------
    dim : int
        Number of axes D of every box (2 or 3 in practice; any D >= 1 works).
    backend : {"numpy", "compiled"}
        Backend of the one-off sweeps over all boxes that large inserts run
        (:func:`.batched_sweep.overlapping_pairs`); the incremental moves are
        Python either way.

    Notes
    -----
    Complexity, with n live boxes, M handles in the call, P overlapping pairs:

    * ``update_many``: O(M D log n) for small moves, plus O(log n) per
      endpoint crossed per axis (each crossing may add or drop a pair).
    * ``insert_many`` / ``remove_many``: O(M D log n) for the sorted lists,
      plus the overlap query: O(M n D) numpy work for a few handles, or for
      large batches one numpy sweep over all boxes, O(n log n + K) where K is
      the number of pairs overlapping on the best sweep axis.
    * ``pairs``: O(P log P), cached until the next mutation.
    * ``len``, ``in``: O(1).

    Examples
    --------
    >>> sap = SweepAndPrune(2)
    >>> sap.insert_many([1, 2], [[0, 0], [5, 0]], [[1, 1], [6, 1]])
    >>> sap.pairs().tolist()
    []
    >>> sap.update(2, [1, 1], [2, 2])      # now touches box 1 at its corner
    >>> sap.pairs().tolist()
    [[1, 2]]
    """

    #: Batches of at most this many handles query their boxes against all
    #: boxes directly (O(M n) numpy); larger batches sweep all boxes once.
    #: Both are exact; the crossover only matters for speed (tests lower it
    #: to exercise the sweep).
    _dense_query_max = 64

    #: Batches that add or remove more than ``len(axis) / _merge_ratio``
    #: endpoints merge (or filter) each whole axis list once instead of
    #: bisecting each endpoint in; both are exact (tests set it huge to always merge).
    _merge_ratio = 32

    #: New pairs from an insert go into the pair set one by one up to this
    #: many (or an eighth of the pairs held), else the set is reloaded from
    #: arrays. Both are exact (tests set 0 to always reload).
    _pair_edit_max = 256

    def __init__(self, dim: int, *, backend: str = "numpy") -> None:
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 1:
            raise InvalidArgumentError(f"dim must be a positive integer, got {dim!r}")
        self.backend = check_backend(backend)
        d = int(dim)
        self._dim = d
        self._slot: dict[int, int] = {}  # handle -> slot
        self._free: list[int] = []  # slots below _top that are not live
        self._top = 0  # slots >= _top were never used
        # Per-slot arrays, grown by doubling. A free slot holds the empty box
        # lo = +inf, hi = -inf, which overlaps nothing, so the numpy queries
        # need no liveness mask.
        cap = 16
        self._lo = np.full((cap, d), np.inf)
        self._hi = np.full((cap, d), -np.inf)
        self._static = np.zeros(cap, dtype=bool)
        self._live = np.zeros(cap, dtype=bool)
        self._handle = np.zeros(cap, dtype=np.int64)
        # Current endpoint keys per axis, indexed by slot (Python lists: the
        # update loop reads them once per crossing, and list indexing is far
        # cheaper than numpy scalar indexing).
        self._start_key: list[list[int]] = [[] for _ in range(d)]
        self._end_key: list[list[int]] = [[] for _ in range(d)]
        # sorted endpoint keys per axis
        self._axes: list[list[int]] = [[] for _ in range(d)]
        # overlapping slot pairs, with each slot's partners at hand, so that
        # the pairs of a few boxes cost their degree (pairs_touching)
        self._pairs = SlotPairSet(0)
        self._pairs_cache: NDArray[np.int64] | None = None

    # -- small queries --------------------------------------------------------

    @property
    def dim(self) -> int:
        """Number of axes D of every box."""
        return self._dim

    def __len__(self) -> int:
        return len(self._slot)

    def __contains__(self, handle: object) -> bool:
        try:
            return handle in self._slot
        except TypeError:  # unhashable
            return False

    @property
    def partners_materialised(self) -> int:
        """Partner entries the pair set has copied into Python sets so far (a work counter).

        Bulk work (inserting or removing many boxes, folding edits back in
        :meth:`pairs`) loads the pair set from arrays and adds nothing; the
        incremental sweep adds a box's degree the first time it edits one of
        the box's pairs. Tests read it to check that bulk work stays out of
        Python loops without timing anything.

        Examples
        --------
        >>> import numpy as np
        >>> sap = SweepAndPrune(2)
        >>> lo = np.zeros((100, 2))
        >>> sap.insert_many(np.arange(100), lo, lo + 1)   # 4,950 pairs, from arrays
        >>> len(sap.pairs()), sap.partners_materialised
        (4950, 0)
        """
        return self._pairs.materialised

    # -- mutation -------------------------------------------------------------

    def insert_many(
        self, handles: ArrayLike, lo: ArrayLike, hi: ArrayLike, static: ArrayLike | None = None
    ) -> None:
        """Add new handles; see :meth:`Broadphase.insert_many`.

        O(M D log n) for the sorted lists plus the overlap query (see the
        class notes).
        """
        h = as_handles(handles)
        m = len(h)
        lo_a, hi_a = as_boxes(lo, hi, m, self._dim)
        st = as_static(static, m)
        hl = check_new_handles(h, self._slot)
        if m == 0:
            return
        if len(self._slot) + m > _MAX_SLOTS:
            raise InvalidArgumentError(f"at most {_MAX_SLOTS} boxes, got {len(self._slot) + m}")
        self._pairs_cache = None

        slots = self._allocate(m)
        self._lo[slots] = lo_a
        self._hi[slots] = hi_a
        self._static[slots] = st
        self._live[slots] = True
        self._handle[slots] = h
        sl = slots.tolist()
        for handle, s in zip(hl, sl, strict=True):
            self._slot[handle] = s

        lo_bits_arr, hi_bits_arr = _ordered_bits(lo_a).T, _ordered_bits(hi_a).T  # (D, M)
        lo_bits, hi_bits = lo_bits_arr.tolist(), hi_bits_arr.tolist()
        for k in range(self._dim):
            sk, ek = self._start_key[k], self._end_key[k]
            starts = [(lb << _VALUE_SHIFT) | s for s, lb in zip(sl, lo_bits[k], strict=True)]
            ends = [(hb << _VALUE_SHIFT) | _END | s for s, hb in zip(sl, hi_bits[k], strict=True)]
            for s, a, b in zip(sl, starts, ends, strict=True):
                sk[s] = a
                ek[s] = b
            axis = self._axes[k]
            if (2 * m) * self._merge_ratio <= len(axis):
                for key in starts + ends:
                    insort(axis, key)
            else:
                # order the new keys with numpy, by (value bits, END flag and
                # slot): the order of the packed keys without a Python sort
                # (0.5 s of a 1.4 s build at 100,000 boxes); then timsort
                # merges the two sorted runs
                tags = np.concatenate([slots, slots | _END])
                bits = np.concatenate([lo_bits_arr[k], hi_bits_arr[k]])
                order = np.lexsort((tags, bits))
                # made afresh in order: reading the keys above in this order
                # jumps through memory and measured slower than the sort
                fresh = [(b << _VALUE_SHIFT) | t
                         for b, t in zip(bits[order].tolist(), tags[order].tolist(), strict=True)]
                if axis:
                    axis.extend(fresh)
                    axis.sort()
                else:
                    axis[:] = fresh

        # Every box is stored before the query, so pairs among the new boxes
        # are found too (twice: np.unique or the sets keep one).
        new = self._pair_keys_touching(slots)
        if len(new) > max(self._pair_edit_max, self._pairs.loaded_pairs // 8):
            # bulk: numpy sorts, no Python step per pair (a strategy switch
            # in a dense scene loads millions of pairs here)
            held = self._pairs.keys()
            self._pairs.load(np.concatenate([held, new]) if len(held) else new)
        else:
            add = self._pairs.add
            for key in new.tolist():
                add(key >> 32, key & _SLOT_MASK)

    def update_many(self, handles: ArrayLike, lo: ArrayLike, hi: ArrayLike) -> None:
        """Give live handles new boxes; see :meth:`Broadphase.update_many`.

        O(M D log n) plus O(log n) per endpoint crossed. Boxes that did not
        change cost only the key comparison.
        """
        h = as_handles(handles)
        m = len(h)
        lo_a, hi_a = as_boxes(lo, hi, m, self._dim)
        hl = check_live_handles(h, self._slot)
        if m == 0:
            return
        self._pairs_cache = None
        slot_of = self._slot
        sl = [slot_of[x] for x in hl]
        self._lo[sl] = lo_a
        self._hi[sl] = hi_a
        lo_bits = _ordered_bits(lo_a).tolist()  # (M, D)
        hi_bits = _ordered_bits(hi_a).tolist()

        # Bodies are moved one after another, endpoint by endpoint. Each
        # single endpoint move keeps the invariant "pair set == pairs
        # overlapping under the current keys", because every add/remove
        # decision reads the current keys (never the final boxes of bodies
        # that are still waiting in this batch).
        dim = self._dim
        axes = range(dim)
        start_key, end_key = self._start_key, self._end_key
        axes_keys = self._axes
        partners = self._pairs.partners
        # Static flags as a Python list make the per-crossing look-up cheap;
        # converting costs O(capacity), so only for batches worth it.
        static = self._static.tolist() if 64 * len(sl) > len(self._static) else None
        static_arr = self._static
        end, mask, shift = _END, _SLOT_MASK, _VALUE_SHIFT

        for s, lbs, hbs in zip(sl, lo_bits, hi_bits, strict=True):
            s_static = bool(static_arr[s]) if static is None else static[s]
            for k in axes:
                sk, ek = start_key[k], end_key[k]
                old_s, old_e = sk[s], ek[s]
                new_s = (lbs[k] << shift) | s
                new_e = (hbs[k] << shift) | end | s
                if new_s != old_s:
                    sk[s] = new_s
                    crossed = _move_key(axes_keys[k], old_s, new_s)
                    ends = [c & mask for c in crossed if c & end] if crossed else None
                    if not ends:
                        pass  # passing only starts changes no overlap
                    elif new_s < old_s:
                        # Start moved left past an end: overlap may begin.
                        self._begin(s, s_static, ends, static)
                    else:
                        # Start moved right past an end: overlap ends. Its own
                        # old end (not moved yet) may be among them; {s, s} is
                        # never in the set, so discarding it is harmless.
                        mine = partners(s)
                        for c in ends:
                            if c in mine:
                                mine.remove(c)
                                partners(c).remove(s)
                if new_e != old_e:
                    ek[s] = new_e
                    crossed = _move_key(axes_keys[k], old_e, new_e)
                    starts = [c & mask for c in crossed if not c & end] if crossed else None
                    if not starts:
                        pass  # passing only ends changes no overlap
                    elif new_e > old_e:
                        # End moved right past a start: overlap may begin.
                        self._begin(s, s_static, starts, static)
                    else:
                        # End moved left past a start: overlap ends. Its own
                        # start is at new_s < new_e, never crossed here.
                        mine = partners(s)
                        for c in starts:
                            if c in mine:
                                mine.remove(c)
                                partners(c).remove(s)

    def _begin(self, s: int, s_static: bool, crossed: list[int], static: list[bool] | None) -> None:
        """Add {s, c} for each crossed slot c whose box now overlaps s's box.

        The overlap test compares current keys, which is the closed-box test
        (start_a < end_b  <=>  lo_a <= hi_b) on the current positions.
        """
        start_key, end_key = self._start_key, self._end_key
        static_arr = self._static
        partners = self._pairs.partners
        mine = partners(s)
        for c in crossed:
            if c == s:
                continue
            if s_static and (static[c] if static is not None else static_arr[c]):
                continue
            for sk, ek in zip(start_key, end_key, strict=True):
                if sk[s] > ek[c] or sk[c] > ek[s]:
                    break
            else:
                if c not in mine:
                    mine.add(c)
                    partners(c).add(s)

    def remove_many(self, handles: ArrayLike) -> None:
        """Forget live handles; see :meth:`Broadphase.remove_many`.

        O(M D log n) for the sorted lists (O(n) rebuild for large batches)
        plus the overlap query that finds the pairs to drop.
        """
        hl = check_live_handles(as_handles(handles), self._slot)
        m = len(hl)
        if m == 0:
            return
        self._pairs_cache = None
        slots = np.array([self._slot[x] for x in hl], dtype=np.intp)
        sl = slots.tolist()
        n = len(self._slot)
        if 4 * m >= n:
            # many: drop their pairs from the array of all pairs, reload
            keys = self._pairs.keys()
            gone_mark = np.zeros(len(self._pairs), dtype=bool)
            gone_mark[slots] = True
            self._pairs.load(keys[~(gone_mark[keys >> 32] | gone_mark[keys & _SLOT_MASK])])
        else:
            # few: each removed box's partners are exactly the pairs to drop
            for s in sl:
                self._pairs.clear_slot(s)
        for k in range(self._dim):
            sk, ek = self._start_key[k], self._end_key[k]
            axis = self._axes[k]
            if (2 * m) * self._merge_ratio > len(axis):
                # filtering is O(n) and beats m O(n) deletions here
                gone = set(sl)
                axis[:] = [c for c in axis if c & _SLOT_MASK not in gone]
            else:
                for s in sl:
                    del axis[bisect_left(axis, sk[s])]
                    del axis[bisect_left(axis, ek[s])]
        for handle in hl:
            del self._slot[handle]
        self._lo[slots] = np.inf
        self._hi[slots] = -np.inf
        self._static[slots] = False
        self._live[slots] = False
        # Reused last-freed-first; any fixed rule keeps runs deterministic.
        self._free.extend(sl)

    # -- output ---------------------------------------------------------------

    def pairs(self) -> NDArray[np.int64]:
        """All overlapping pairs; see :meth:`Broadphase.pairs`.

        O(P log P) after a mutation, O(1) when called again without one.
        """
        if self._pairs_cache is None:
            keys = self._pairs.keys()
            if 8 * self._pairs.edited_slots > len(self._slot):
                # fold the edited layer back into arrays while they are at hand
                self._pairs.load(keys)
            out = self._handle_pairs(keys)
            out.setflags(write=False)
            self._pairs_cache = out
        return self._pairs_cache

    def pairs_touching(self, handles: ArrayLike) -> NDArray[np.int64]:
        """The pairs of :meth:`pairs` that hold at least one of ``handles`` (live).

        O(M + Q log Q) for M handles in Q pairs: read from the per-box partner
        lists the sweep keeps up to date, without looking at any other box.

        Returns
        -------
        ndarray of int64, shape (Q, 2)
            Handle pairs ``(i, j)``, ``i < j``, sorted lexicographically.

        Examples
        --------
        >>> sap = SweepAndPrune(2)
        >>> sap.insert_many([1, 2, 3], [[0, 0], [1, 0], [5, 5]], [[1, 1], [2, 1], [6, 6]])
        >>> sap.pairs_touching([2]).tolist()
        [[1, 2]]
        """
        hl = check_live_handles(as_handles(handles), self._slot)
        slot_of = self._slot
        return self._handle_pairs(self._pairs.keys_touching([slot_of[h] for h in hl]))

    def _handle_pairs(self, keys: NDArray[np.int64]) -> NDArray[np.int64]:
        """Slot pair keys as handle pairs ``(i, j)``, ``i < j``, sorted lexicographically."""
        ha = self._handle[keys >> 32]
        hb = self._handle[keys & _SLOT_MASK]
        first, second = np.minimum(ha, hb), np.maximum(ha, hb)
        if len(keys) and first.min() >= 0 and second.max() < 1 << 31:
            # small non-negative handles (a world's slots): sort one packed
            # key, several times faster than lexsort on millions of pairs
            packed = np.sort((first << 32) | second)
            out = np.empty((len(packed), 2), dtype=np.int64)
            np.right_shift(packed, 32, out=out[:, 0])
            np.bitwise_and(packed, _SLOT_MASK, out=out[:, 1])
            return out
        order = np.lexsort((second, first))
        return np.stack([first[order], second[order]], axis=1).reshape(-1, 2)

    # -- internals ------------------------------------------------------------

    def _allocate(self, m: int) -> NDArray[np.intp]:
        """Reserve m free slots (reused ones first), growing arrays if needed."""
        reuse = [self._free.pop() for _ in range(min(m, len(self._free)))]
        fresh = m - len(reuse)
        new = list(range(self._top, self._top + fresh))
        self._top += fresh
        if self._top > len(self._live):
            cap = max(self._top, 2 * len(self._live))
            grow = cap - len(self._live)
            d = self._dim
            self._lo = np.concatenate([self._lo, np.full((grow, d), np.inf)])
            self._hi = np.concatenate([self._hi, np.full((grow, d), -np.inf)])
            self._static = np.concatenate([self._static, np.zeros(grow, dtype=bool)])
            self._live = np.concatenate([self._live, np.zeros(grow, dtype=bool)])
            self._handle = np.concatenate([self._handle, np.zeros(grow, dtype=np.int64)])
        for keys in (*self._start_key, *self._end_key):
            keys.extend([0] * (self._top - len(keys)))
        self._pairs.grow(self._top)
        return np.array(reuse + new, dtype=np.intp)

    def _pair_keys_touching(self, slots: NDArray[np.intp]) -> NDArray[np.int64]:
        """Pair keys of every overlapping, not static-static pair with a slot in ``slots``.

        Duplicates are possible (a pair of two listed slots can appear twice).
        """
        if len(slots) <= self._dense_query_max:
            return self._pair_keys_dense(slots)
        return self._pair_keys_sweep(slots)

    def _pair_keys_dense(self, slots: NDArray[np.intp]) -> NDArray[np.int64]:
        """Query each slot's box against all stored boxes: O(M n D) numpy."""
        top = self._top
        lo, hi, st = self._lo[:top], self._hi[:top], self._static[:top]
        rows = max(1, _BLOCK_ELEMENTS // max(1, top * self._dim))
        out = [np.zeros(0, dtype=np.int64)]
        for start in range(0, len(slots), rows):
            blk = slots[start : start + rows]
            # numpy's stubs type ndarray.all(axis=k) as `np.bool | ndarray` whatever the rank; here it is (M, top)
            hit: NDArray[np.bool_] = (  # type: ignore[assignment]
                (lo[blk, None, :] <= hi[None]) & (lo[None] <= hi[blk, None, :])
            ).all(axis=2)
            hit[np.arange(len(blk)), blk] = False
            hit &= ~(st[blk, None] & st[None, :])
            i, j = np.nonzero(hit)
            out.append(pair_keys(blk[i], j))
        return np.concatenate(out)

    def _pair_keys_sweep(self, slots: NDArray[np.intp]) -> NDArray[np.int64]:
        """One banded numpy sweep over all live boxes (:func:`.batched_sweep.overlapping_pairs`).

        O(n log n + pairs); the bands keep a uniform scene from paying the
        O(n^1.5) overlaps of a single sweep axis.
        """
        live = np.flatnonzero(self._live[: self._top])
        wanted = np.zeros(len(self._live), dtype=bool)
        wanted[slots] = True
        rows = overlapping_pairs(self._lo[live], self._hi[live], self._static[live], wanted[live],
                                 backend=self.backend)
        return pair_keys(live[rows[:, 0]], live[rows[:, 1]])

    def validate(self) -> None:
        """Assert every invariant; O(n^2 D) numpy plus O(n D log n). For tests."""
        d, top = self._dim, self._top
        live = np.flatnonzero(self._live[:top])
        n = len(live)
        # Handle map, slots and free list agree.
        assert len(self._slot) == n
        assert {int(self._handle[s]): int(s) for s in live} == self._slot
        assert sorted(self._free) == np.flatnonzero(~self._live[:top]).tolist()
        assert not self._live[top:].any()
        dead = ~self._live
        assert np.isposinf(self._lo[dead]).all() and np.isneginf(self._hi[dead]).all()
        assert not self._static[dead].any()
        # Live boxes are valid.
        lo, hi = self._lo[live], self._hi[live]
        assert np.isfinite(lo).all() and np.isfinite(hi).all()
        assert (lo <= hi).all(), "precondition lo <= hi broken"
        assert not (np.signbit(lo) & (lo == 0)).any() and not (np.signbit(hi) & (hi == 0)).any()
        # Sorted lists hold exactly the keys derived from the stored boxes.
        lo_bits, hi_bits = _ordered_bits(lo).tolist(), _ordered_bits(hi).tolist()
        for k in range(d):
            axis = self._axes[k]
            assert len(self._start_key[k]) == top and len(self._end_key[k]) == top
            expect = []
            for s, lb, hb in zip(live.tolist(), lo_bits, hi_bits, strict=True):
                a = (lb[k] << _VALUE_SHIFT) | s
                b = (hb[k] << _VALUE_SHIFT) | _END | s
                assert self._start_key[k][s] == a and self._end_key[k][s] == b
                expect += [a, b]
            assert list(axis) == sorted(expect)
        # Pair set equals a from-scratch all-pairs recomputation.
        truth: set[int] = set()
        if n:
            for start in range(0, n, max(1, _BLOCK_ELEMENTS // max(1, n * d))):
                blk = live[start : start + max(1, _BLOCK_ELEMENTS // max(1, n * d))]
                hit = (
                    (self._lo[blk, None, :] <= hi[None]) & (lo[None] <= self._hi[blk, None, :])
                ).all(axis=2)
                hit &= ~(self._static[blk, None] & self._static[live][None, :])
                i, j = np.nonzero(hit)
                a, b = blk[i], live[j]
                sel = a < b
                truth.update(pair_keys(a[sel], b[sel]).tolist())
        held = set(self._pairs.keys().tolist())
        assert held == truth, (
            f"pair set off: missing {sorted(truth - held)}, extra {sorted(held - truth)}"
        )
        # Partner lists are mutual, one slot per live slot, empty for free slots.
        assert len(self._pairs) == top
        self._pairs.validate()
        assert not any(self._pairs.row(s) for s in np.flatnonzero(~self._live[:top]).tolist())
        if self._pairs_cache is not None:
            cached = self._pairs_cache
            self._pairs_cache = None
            assert np.array_equal(cached, self.pairs())


def _move_key(keys: list[int], old: int, new: int) -> list[int]:
    """Move key ``old`` to ``new`` in the sorted list ``keys`` by an insertion-sort step.

    Returns the keys strictly between ``old`` and ``new``: exactly the
    endpoints the moving endpoint passes, i.e. the candidates for pair events.
    One bisection finds ``old``; the new place is looked for first among the
    few keys next to it (coherent motion crosses few endpoints), then in the
    rest; the crossed keys shift one place with a C-level slice copy. O(log n
    + crossed); the rest of the list is untouched.
    """
    idx = bisect_left(keys, old)
    if new < old:
        near = idx - _NEAR if idx > _NEAR else 0
        j = bisect_left(keys, new, near, idx) if keys[near] < new else bisect_left(keys, new, 0, near)
        crossed = keys[j:idx]
        keys[j + 1 : idx + 1] = crossed
        keys[j] = new
    else:
        far = idx + _NEAR
        if far < len(keys) and keys[far] < new:
            j = bisect_left(keys, new, far + 1)
        else:
            j = bisect_left(keys, new, idx + 1, min(far, len(keys)))
        crossed = keys[idx + 1 : j]
        keys[idx : j - 1] = crossed
        keys[j - 1] = new
    return crossed
