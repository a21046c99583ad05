"""The reference broadphase: test every pair, with numpy.

Kept on purpose beside the fast broadphase and behind the same interface
(as Jolt keeps its brute-force broadphase): it is short enough to be
obviously right, so :class:`~collideworld.broadphase.SweepAndPrune` is tested
against it, and a World can be run with it to rule the broadphase out when
hunting a bug.
"""

from __future__ import annotations

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

__all__ = ["BruteForceBroadphase"]

# Upper bound on the elements of one (rows, n, D) comparison block in pairs(),
# so memory stays a few tens of MB whatever n is.
_BLOCK_ELEMENTS = 1 << 22


class BruteForceBroadphase(Broadphase):
    """O(n^2) broadphase: stores boxes in dense arrays, compares all pairs.

    Parameters
    ----------
    dim : int
        Number of axes D of every box (2 or 3 in practice; any D >= 1 works).

    Notes
    -----
    Complexity: ``insert_many`` and ``update_many`` are O(M) numpy work plus
    O(M) Python dictionary look-ups; ``remove_many`` is O(n) (the arrays are
    compacted); ``pairs`` is O(n^2 D) numpy work in blocks of bounded memory
    plus O(P log P) for sorting.

    Examples
    --------
    >>> bp = BruteForceBroadphase(2)
    >>> bp.insert_many([7, 3], [[0, 0], [1, 0]], [[1, 1], [2, 1]])
    >>> bp.pairs().tolist()          # touching at x == 1 counts
    [[3, 7]]
    """

    def __init__(self, dim: int) -> None:
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 1:
            raise InvalidArgumentError(f"dim must be a positive integer, got {dim!r}")
        self._dim = int(dim)
        # Live boxes in rows 0..n-1, in insertion order; _row maps handle -> row.
        self._row: dict[int, int] = {}
        self._handles = np.zeros(0, dtype=np.int64)
        self._lo = np.zeros((0, self._dim))
        self._hi = np.zeros((0, self._dim))
        self._static = np.zeros(0, dtype=bool)

    @property
    def dim(self) -> int:
        """Number of axes D of every box."""
        return self._dim

    def __len__(self) -> int:
        return len(self._row)

    def __contains__(self, handle: object) -> bool:
        try:
            return handle in self._row
        except TypeError:  # unhashable
            return False

    def insert_many(
        self, handles: ArrayLike, lo: ArrayLike, hi: ArrayLike, static: ArrayLike | None = None
    ) -> None:
        """Add new handles; see :meth:`Broadphase.insert_many`. O(M) amortised."""
        h = as_handles(handles)
        m = len(h)
        lo_a, hi_a = as_boxes(lo, hi, m, self._dim)
        st = as_static(static, m)
        hl = check_new_handles(h, self._row)
        n = len(self._row)
        self._handles = np.concatenate([self._handles, h])
        self._lo = np.concatenate([self._lo, lo_a])
        self._hi = np.concatenate([self._hi, hi_a])
        self._static = np.concatenate([self._static, st])
        for i, handle in enumerate(hl):
            self._row[handle] = n + i

    def update_many(self, handles: ArrayLike, lo: ArrayLike, hi: ArrayLike) -> None:
        """Give live handles new boxes; see :meth:`Broadphase.update_many`. O(M)."""
        h = as_handles(handles)
        lo_a, hi_a = as_boxes(lo, hi, len(h), self._dim)
        hl = check_live_handles(h, self._row)
        rows = np.fromiter((self._row[x] for x in hl), dtype=np.intp, count=len(hl))
        self._lo[rows] = lo_a
        self._hi[rows] = hi_a

    def remove_many(self, handles: ArrayLike) -> None:
        """Forget live handles; see :meth:`Broadphase.remove_many`. O(n)."""
        hl = check_live_handles(as_handles(handles), self._row)
        if not hl:
            return
        keep = np.ones(len(self._handles), dtype=bool)
        keep[[self._row[x] for x in hl]] = False
        self._handles = self._handles[keep]
        self._lo = self._lo[keep]
        self._hi = self._hi[keep]
        self._static = self._static[keep]
        self._row = {x: i for i, x in enumerate(self._handles.tolist())}

    def pairs(self) -> NDArray[np.int64]:
        """All overlapping pairs; see :meth:`Broadphase.pairs`. O(n^2 D) numpy."""
        n = len(self._handles)
        d = self._dim
        lo, hi, st = self._lo.T.copy(), self._hi.T.copy(), self._static  # (D, n): rows contiguous
        rows_per_block = max(1, _BLOCK_ELEMENTS // max(1, n))
        found_a, found_b = [], []
        for start in range(0, n, rows_per_block):
            stop = min(n, start + rows_per_block)
            # Row i of the block meets columns j > i only: take j in
            # (start, n) and keep the upper triangle of the block.
            hit = ~(st[start:stop, None] & st[None, start + 1 :])
            for k in range(d):
                # The one touching rule: closed intervals, non-strict comparisons.
                hit &= lo[k, start:stop, None] <= hi[k, None, start + 1 :]
                hit &= lo[k, None, start + 1 :] <= hi[k, start:stop, None]
            r, c = np.nonzero(np.triu(hit))
            found_a.append(r + start)
            found_b.append(c + start + 1)
        if not found_a:
            return _readonly(np.zeros((0, 2), dtype=np.int64))
        ha = self._handles[np.concatenate(found_a)]
        hb = self._handles[np.concatenate(found_b)]
        first, second = np.minimum(ha, hb), np.maximum(ha, hb)
        order = np.lexsort((second, first))
        return _readonly(np.stack([first[order], second[order]], axis=1))

    def validate(self) -> None:
        """Assert the invariants: arrays aligned with the handle map, boxes valid."""
        n = len(self._row)
        assert self._handles.shape == (n,) and self._static.shape == (n,)
        assert self._lo.shape == (n, self._dim) and self._hi.shape == (n, self._dim)
        assert {int(x): i for i, x in enumerate(self._handles)} == self._row
        assert np.isfinite(self._lo).all() and np.isfinite(self._hi).all()
        assert (self._lo <= self._hi).all()
        p = self.pairs()
        assert p.dtype == np.int64 and p.ndim == 2 and p.shape[1] == 2
        assert (p[:, 0] < p[:, 1]).all()
        assert len({tuple(r) for r in p.tolist()}) == len(p)
        assert p.tolist() == sorted(p.tolist())


def _readonly(a: NDArray[np.int64]) -> NDArray[np.int64]:
    a.setflags(write=False)
    return a
