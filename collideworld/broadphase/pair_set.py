"""The sweep-and-prune's pair set: bulk-loaded from arrays, edited one pair at a time.

The incremental sweep adds and drops single pairs, which wants hash sets;
bulk work (the first sweep over thousands of boxes, a large insert or
removal) produces whole arrays of pairs, which want numpy. Turning an array
of P pairs into Python sets costs about 2P ``set.add`` calls, a microsecond
and ~100 bytes each: seconds and most of a gigabyte for the 4.5M pairs of
3,000 mutually overlapping boxes, far more than the sweep that found them.
So this set keeps two layers:

* a **base**: the pairs of the last bulk load as a CSR adjacency (for each
  slot its partner slots, ascending), built with a few sorts;
* an **edited** layer: a Python set of partners for each slot that has had a
  pair added or removed since the base was loaded, made from the slot's base
  row on its first edit.

Invariant: a slot without a set has had no edit since the load, so its base
row is its current partner list; an edit of pair {a, b} gives both a and b
a set. Reads take a slot's set if it has one, else its base row. The base
is rebuilt from the current pairs (:meth:`SlotPairSet.load`) when the edited
layer grows large.

NOTE: the work of a bulk load is a sort of 2P slot numbers; the Python work
of the edited layer is proportional to the edited slots' degrees.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["SlotPairSet", "pair_keys", "sorted_unique"]

#: Slot pairs are packed as ``(min_slot << 32) | max_slot`` (slots < 2**32).
SLOT_BITS = 32
SLOT_MASK = (1 << SLOT_BITS) - 1


def pair_keys(a: NDArray[np.integer], b: NDArray[np.integer]) -> NDArray[np.int64]:
    """Pack slot pairs as ``(min << 32) | max``; the order of ``a`` and ``b`` is irrelevant.

    Parameters
    ----------
    a, b : ndarray of int, shape (P,)
        Slots, below 2**32.

    Returns
    -------
    ndarray of int64, shape (P,)

    Examples
    --------
    >>> import numpy as np
    >>> pair_keys(np.array([3, 1]), np.array([1, 2])).tolist() == [(1 << 32) | 3, (1 << 32) | 2]
    True
    """
    a = a.astype(np.int64, copy=False)
    b = b.astype(np.int64, copy=False)
    keys: NDArray[np.int64] = (np.minimum(a, b) << SLOT_BITS) | np.maximum(a, b)
    return keys


def sorted_unique(keys: NDArray[np.int64]) -> NDArray[np.int64]:
    """``keys`` sorted, without repeats.

    One sort (skipped when already sorted) and a neighbour comparison:
    ``np.unique`` hashes int64 keys in numpy 2.x, which measured 3.7 s on
    4.5M keys where this takes about 0.3 s.

    Parameters
    ----------
    keys : ndarray of int64, shape (P,)

    Returns
    -------
    ndarray of int64, shape (U,)

    Examples
    --------
    >>> import numpy as np
    >>> sorted_unique(np.array([5, 1, 5, 3])).tolist()
    [1, 3, 5]
    """
    if len(keys) > 1 and not bool(np.all(keys[1:] >= keys[:-1])):
        keys = np.sort(keys)
    if len(keys) > 1:
        fresh = np.empty(len(keys), dtype=bool)
        fresh[0] = True
        np.not_equal(keys[1:], keys[:-1], out=fresh[1:])
        if not fresh.all():
            keys = keys[fresh]
    return keys


class SlotPairSet:
    """A set of unordered pairs of slots, with each slot's partners at hand.

    Parameters
    ----------
    capacity : int
        Slots ``0 .. capacity - 1`` exist initially; :meth:`grow` adds more.

    Notes
    -----
    Complexity, P pairs, n slots, degree k of a slot:

    * :meth:`load`: O(n + P log P) numpy, no Python loop over pairs.
    * :meth:`partners` (for editing), :meth:`add`, :meth:`discard`: O(k)
      on a slot's first edit since the last load, O(1) after.
    * :meth:`keys`: O(n + P) numpy plus O(k) Python per edited slot.
    * :meth:`keys_touching`: O(sum of the slots' degrees).

    Examples
    --------
    >>> import numpy as np
    >>> ps = SlotPairSet(4)
    >>> ps.load(pair_keys(np.array([0, 1]), np.array([1, 2])))
    >>> ps.add(3, 0)
    >>> ps.discard(1, 2)
    >>> [(int(k) >> 32, int(k) & 0xFFFFFFFF) for k in ps.keys()]
    [(0, 1), (0, 3)]
    >>> sorted(ps.partners(0))
    [1, 3]
    """

    def __init__(self, capacity: int) -> None:
        self._ptr = np.zeros(capacity + 1, dtype=np.int64)  # base row of slot s: _nbr[_ptr[s]:_ptr[s + 1]]
        self._nbr = np.zeros(0, dtype=np.int64)
        self._sets: list[set[int] | None] = [None] * capacity  # the edited layer
        self._edited: list[int] = []  # slots with a set, in the order they got it
        self._edited_degree = 0  # partners held by sets when they were made (cost of keys())
        self._materialised = 0  # partners ever copied from base rows into sets (work counter)

    def __len__(self) -> int:
        """Number of slots (the capacity)."""
        return len(self._sets)

    def grow(self, capacity: int) -> None:
        """Add empty slots up to ``capacity`` (their base rows are empty)."""
        extra = capacity - len(self._sets)
        if extra > 0:
            self._ptr = np.concatenate([self._ptr, np.full(extra, self._ptr[-1])])
            self._sets.extend([None] * extra)

    @property
    def loaded_pairs(self) -> int:
        """How many pairs the last :meth:`load` held (a size hint: edits since are not counted)."""
        return len(self._nbr) // 2

    @property
    def materialised(self) -> int:
        """Partner entries copied from base rows into Python sets since creation.

        A work counter, for tests that must not time: a bulk :meth:`load`
        adds nothing to it, editing a slot of degree k adds k.
        """
        return self._materialised

    @property
    def edited_slots(self) -> int:
        """How many slots have been edited since the last :meth:`load`."""
        return len(self._edited)

    # -- bulk --------------------------------------------------------------------

    def load(self, keys: NDArray[np.int64]) -> None:
        """Replace every pair by ``keys`` (packed, unique; any order).

        Counting-sort placement: slot s's row is its partners below s (from
        pairs ``(c, s)``, sorted by ``s`` with one stable argsort), then its
        partners above s (from pairs ``(s, c)``, already in key order), so
        every row comes out ascending. O(n + P log P), all numpy.
        """
        n = len(self._sets)
        keys = sorted_unique(keys)
        lo_s = keys >> SLOT_BITS
        hi_s = keys & SLOT_MASK
        m = len(keys)
        below = np.bincount(hi_s, minlength=n)  # partners below each slot
        above = np.bincount(lo_s, minlength=n)
        ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(below + above, out=ptr[1:])
        nbr = np.empty(2 * m, dtype=np.int64)
        rank = np.arange(m, dtype=np.int64)
        by_hi = np.argsort(hi_s, kind="stable")  # (hi, lo) order: keys were sorted by lo
        owner = hi_s[by_hi]
        nbr[ptr[owner] + rank - (np.cumsum(below) - below)[owner]] = lo_s[by_hi]
        nbr[ptr[lo_s] + below[lo_s] + rank - (np.cumsum(above) - above)[lo_s]] = hi_s
        self._ptr = ptr
        self._nbr = nbr
        self._sets = [None] * n
        self._edited = []
        self._edited_degree = 0

    def clear_slot(self, s: int) -> list[int]:
        """Remove every pair of slot ``s``; return its former partners."""
        mine = self.partners(s)
        for c in mine:
            self.partners(c).discard(s)
        gone = list(mine)
        mine.clear()
        return gone

    # -- single edits ------------------------------------------------------------

    def partners(self, s: int) -> set[int]:
        """The editable partner set of slot ``s`` (made from its base row on first use)."""
        got = self._sets[s]
        if got is None:
            row = self._nbr[self._ptr[s] : self._ptr[s + 1]].tolist()
            got = self._sets[s] = set(row)
            self._edited.append(s)
            self._edited_degree += len(row)
            self._materialised += len(row)
        return got

    def add(self, a: int, b: int) -> None:
        """Add the pair {a, b} (a != b); no-op if present."""
        self.partners(a).add(b)
        self.partners(b).add(a)

    def discard(self, a: int, b: int) -> None:
        """Remove the pair {a, b} if present."""
        self.partners(a).discard(b)
        self.partners(b).discard(a)

    # -- reads -------------------------------------------------------------------

    def row(self, s: int) -> list[int]:
        """Partners of slot ``s``, without making it editable."""
        got = self._sets[s]
        if got is not None:
            return list(got)
        out: list[int] = self._nbr[self._ptr[s] : self._ptr[s + 1]].tolist()
        return out

    def keys(self) -> NDArray[np.int64]:
        """Every pair, packed, each once; unordered.

        Each pair {s, c}, s < c, is read from slot s's current row: its base
        row if s was never edited (then neither was the pair), else its set.
        """
        n = len(self._sets)
        owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(self._ptr))
        keep = self._nbr > owner
        if self._edited:
            edited = np.zeros(n, dtype=bool)
            edited[self._edited] = True
            keep &= ~edited[owner]
        parts = [(owner[keep] << SLOT_BITS) | self._nbr[keep]]
        sets = self._sets
        for s in self._edited:
            row = [c for c in sets[s] or () if c > s]
            if row:
                parts.append((s << SLOT_BITS) | np.array(row, dtype=np.int64))
        return np.concatenate(parts)

    def keys_touching(self, slots: list[int]) -> NDArray[np.int64]:
        """Every pair with a slot in ``slots``, packed, each once; unordered."""
        found: list[int] = []
        for s in slots:
            found.extend([(s << SLOT_BITS) | c if s < c else (c << SLOT_BITS) | s for c in self.row(s)])
        return sorted_unique(np.array(found, dtype=np.int64))

    def validate(self) -> None:
        """Check the layers agree: partner relation symmetric, base rows sorted (for tests)."""
        n = len(self._sets)
        assert len(self._ptr) == n + 1 and self._ptr[0] == 0 and self._ptr[-1] == len(self._nbr)
        assert np.all(np.diff(self._ptr) >= 0)
        assert sorted(self._edited) == [s for s in range(n) if self._sets[s] is not None]
        rows = [set(self.row(s)) for s in range(n)]
        for s, row in enumerate(rows):
            assert s not in row, f"slot {s} paired with itself"
            assert all(s in rows[c] for c in row), f"slot {s}'s partners not mutual"
        keys = self.keys()
        assert len(sorted_unique(keys)) == len(keys) == sum(len(r) for r in rows) // 2
