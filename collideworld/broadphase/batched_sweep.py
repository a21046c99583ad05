"""Batched banded sort-and-sweep: every overlapping pair of n boxes, from scratch, in numpy.

When most bodies move, updating sorted lists one endpoint at a time costs
more than sorting everything again; this module does the latter with a
handful of numpy calls and no Python loop over boxes.

Outline
-------
1. Sweep along the axis where the box centres spread most; cut the other
   axes into bands (cells in 3D) about twice the median box size, and copy
   each box into every band it touches. A plain single-axis sweep over a
   uniform square scene finds O(n^1.5) x-overlaps; within bands it finds
   about two candidates per true pair.
2. Sort the copies by (band, lower bound on the sweep axis) with two sorts on
   integer keys, so equal coordinates can never be misordered by a combined
   floating-point key.
3. For each copy, every later copy of the same band whose lower bound is
   ``<=`` its upper bound is a candidate (``searchsorted`` gives the run).
4. Keep a candidate if the boxes overlap on the band axes, and only in the
   band that holds the larger of the two lower band-axis bounds (both boxes
   reach that band), so each pair is reported once.

Boxes that would be copied into very many bands (a long wall) are kept out
of the bands and tested against every box directly.

The touching rule is the one of :mod:`.base`: closed boxes, ``<=`` in every
comparison.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import InvalidArgumentError, UnknownIdError
from .base import Broadphase, as_boxes, as_handles, as_static, check_new_handles

__all__ = ["overlapping_pairs", "BatchedSweep"]

#: A box touching more bands than this is tested against all boxes directly.
MAX_BANDS_PER_BOX = 16


def _expand(counts: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    parent = np.repeat(np.arange(len(counts)), counts)
    child = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    return parent, child


def overlapping_pairs(lo: NDArray[np.float64], hi: NDArray[np.float64],
                      static: NDArray[np.bool_] | None = None) -> NDArray[np.int64]:
    """Every pair of rows whose closed boxes overlap, not both static.

    Parameters
    ----------
    lo, hi : ndarray, shape (n, D)
        Finite box corners, ``lo <= hi``.
    static : ndarray of bool, shape (n,), optional

    Returns
    -------
    ndarray of int64, shape (P, 2)
        Rows ``(i, j)``, ``i < j``, sorted lexicographically.

    Examples
    --------
    >>> import numpy as np
    >>> lo = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 3.0]])
    >>> overlapping_pairs(lo, lo + 1.0).tolist()
    [[0, 1]]
    """
    n, d = lo.shape
    if n < 2:
        return np.empty((0, 2), dtype=np.int64)
    centre = 0.5 * (lo + hi)
    spread = centre.max(axis=0) - centre.min(axis=0)
    sweep = int(np.argmax(spread))
    band_axes = [a for a in range(d) if a != sweep]

    # band size: twice the median extent, so a typical box touches 1-2 bands per axis
    sizes = np.median(hi[:, band_axes] - lo[:, band_axes], axis=0)
    origin = lo[:, band_axes].min(axis=0)
    extent = hi[:, band_axes].max(axis=0) - origin
    # never more than ~2 sqrt(n) bands per axis (tiny or zero-size boxes would
    # otherwise ask for absurd counts); a scene of zero extent is one band
    width = np.maximum(2.0 * sizes, extent / max(1.0, 2.0 * np.sqrt(n)))
    width = np.where(width > 0, width, 1.0)
    b_lo = np.floor((lo[:, band_axes] - origin) / width).astype(np.int64)
    b_hi = np.floor((hi[:, band_axes] - origin) / width).astype(np.int64)
    span = b_hi - b_lo + 1
    nbands = b_hi.max(axis=0) + 1
    copies = np.prod(span, axis=1)
    big = copies > MAX_BANDS_PER_BOX
    if np.any(big):
        copies = np.where(big, 0, copies)

    # 1. copies of each box into each band (cell) it touches
    box, k = _expand(copies)
    cell = np.zeros(len(box), dtype=np.int64)
    for ax in range(len(band_axes)):
        stride = np.prod(span[box][:, ax + 1:], axis=1) if ax + 1 < len(band_axes) else np.ones(len(box), np.int64)
        offset = (k // stride) % span[box, ax]
        cell = cell * nbands[ax] + b_lo[box, ax] + offset

    # 2. sort by (cell, lower bound on the sweep axis) with integer keys
    slo, shi = lo[:, sweep], hi[:, sweep]
    # keys below are unique, so no stable sort is needed (quicksort is faster)
    by_lo = np.argsort(slo)
    rank = np.empty(n, dtype=np.int64)
    rank[by_lo] = np.arange(n)
    sorted_lo = slo[by_lo]
    key = cell * n + rank[box]
    order = np.argsort(key)
    key = key[order]
    box = box[order]
    cell = cell[order]

    # 3. the run of later copies in the same cell starting no later than my end
    rank_end = np.searchsorted(sorted_lo, shi[box], side="right")
    stop = np.searchsorted(key, cell * n + rank_end, side="left")
    start = np.arange(len(box)) + 1
    count = np.maximum(stop - start, 0)
    src, step = _expand(count)
    i = box[src]
    j = box[start[src] + step]

    # 4. overlap on the band axes, reported only in the cell of the larger lower bounds
    keep = np.ones(len(i), dtype=bool)
    home = np.zeros(len(i), dtype=np.int64)
    for ax, a in enumerate(band_axes):
        lo_a, hi_a = lo[:, a].copy(), hi[:, a].copy()  # contiguous columns gather faster
        keep &= (lo_a[i] <= hi_a[j]) & (lo_a[j] <= hi_a[i])
        top = np.maximum(b_lo[i, ax], b_lo[j, ax])
        home = home * nbands[ax] + top
    keep &= home == cell[src]
    i, j = i[keep], j[keep]

    if np.any(big):
        # boxes too big for the bands: test against every box directly
        bi = np.flatnonzero(big)
        parts = [np.stack([i, j], axis=1)]
        for b in bi.tolist():  # few, by construction
            ov = np.all((lo <= hi[b]) & (lo[b] <= hi), axis=1)
            ov[b] = False
            ov &= ~big | (np.arange(n) > b)  # a big-big pair once
            others = np.flatnonzero(ov)
            parts.append(np.stack([np.full(len(others), b), others], axis=1))
        ij = np.concatenate(parts)
        i, j = ij[:, 0], ij[:, 1]

    if static is not None:
        keep = ~(static[i] & static[j])
        i, j = i[keep], j[keep]
    a = np.minimum(i, j)
    b = np.maximum(i, j)
    pair_key = np.sort(a * n + b)
    return np.stack([pair_key // n, pair_key % n], axis=1)


class BatchedSweep(Broadphase):
    """A broadphase that recomputes every pair from scratch with :func:`overlapping_pairs`.

    Boxes live in arrays indexed by handle (handles are small non-negative
    ints, such as a world's slots), so updates are one fancy assignment, O(m);
    :meth:`pairs` costs one banded sort and sweep, O(n log n), cached until
    the next change. The right choice when most bodies move every step.
    """

    def __init__(self, dim: int) -> None:
        if dim not in (2, 3):
            raise ValueError(f"dim must be 2 or 3, got {dim!r}")
        self._dim = dim
        self._alive = np.zeros(0, dtype=bool)
        self._lo = np.zeros((0, dim))
        self._hi = np.zeros((0, dim))
        self._static = np.zeros(0, dtype=bool)
        self._count = 0
        self._cache: NDArray[np.int64] | None = None

    @property
    def dim(self) -> int:
        return self._dim

    def __len__(self) -> int:
        return self._count

    def __contains__(self, handle: object) -> bool:
        return (isinstance(handle, (int, np.integer)) and not isinstance(handle, bool)
                and 0 <= int(handle) < len(self._alive) and bool(self._alive[int(handle)]))

    def _reserve(self, top: int) -> None:
        cap = len(self._alive)
        if top < cap:
            return
        new = max(top + 1, 2 * cap, 16)
        grow = new - cap
        self._alive = np.concatenate([self._alive, np.zeros(grow, dtype=bool)])
        self._lo = np.concatenate([self._lo, np.zeros((grow, self._dim))])
        self._hi = np.concatenate([self._hi, np.zeros((grow, self._dim))])
        self._static = np.concatenate([self._static, np.zeros(grow, dtype=bool)])

    def _live_checked(self, handles: ArrayLike) -> NDArray[np.int64]:
        h = as_handles(handles)
        if len(h) and (h.min() < 0 or h.max() >= len(self._alive) or not self._alive[h].all()):
            bad = next(x for x in h.tolist() if x not in self)
            raise UnknownIdError(f"handle {bad} is not in the broadphase")
        if len(np.unique(h)) != len(h):
            raise InvalidArgumentError("a handle appears more than once in this batch")
        return h

    def insert_many(self, handles: ArrayLike, lo: ArrayLike, hi: ArrayLike, static: ArrayLike | None = None) -> None:
        h = as_handles(handles)
        if len(h) and h.min() < 0:
            raise InvalidArgumentError(f"BatchedSweep handles must be >= 0, got {int(h.min())}")
        check_new_handles(h, self)
        lo_, hi_ = as_boxes(lo, hi, len(h), self._dim)
        st = as_static(static, len(h))
        if not len(h):
            return
        self._reserve(int(h.max()))
        self._alive[h] = True
        self._lo[h] = lo_
        self._hi[h] = hi_
        self._static[h] = st
        self._count += len(h)
        self._cache = None

    def update_many(self, handles: ArrayLike, lo: ArrayLike, hi: ArrayLike) -> None:
        h = self._live_checked(handles)
        lo_, hi_ = as_boxes(lo, hi, len(h), self._dim)
        self._lo[h] = lo_
        self._hi[h] = hi_
        self._cache = None

    def remove_many(self, handles: ArrayLike) -> None:
        h = self._live_checked(handles)
        self._alive[h] = False
        self._count -= len(h)
        self._cache = None

    def pairs(self) -> NDArray[np.int64]:
        if self._cache is None:
            live = np.flatnonzero(self._alive)
            rows = overlapping_pairs(self._lo[live], self._hi[live], self._static[live])
            # live is increasing, so mapping rows to handles keeps i < j and the order
            self._cache = live[rows].reshape(-1, 2)
            self._cache.setflags(write=False)
        return self._cache

    def _check(self) -> None:
        live = np.flatnonzero(self._alive)
        assert len(live) == self._count
        lo, hi, st = self._lo[live], self._hi[live], self._static[live]
        assert np.all(lo <= hi)
        if len(live) <= 3000:
            ov = np.all((lo[:, None, :] <= hi[None, :, :]) & (lo[None, :, :] <= hi[:, None, :]), axis=2)
            ov &= ~(st[:, None] & st[None, :])
            i, j = np.nonzero(np.triu(ov, 1))
            expected = np.stack([live[i], live[j]], axis=1).reshape(-1, 2)
            assert np.array_equal(expected, self.pairs()), "batched sweep pairs differ from the dense check"
