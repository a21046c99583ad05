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

import importlib
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import InvalidArgumentError, UnknownIdError
from .base import Broadphase, as_boxes, as_handles, as_static, check_new_handles, put_rows

#: Who walks the candidate runs of the sweep: numpy rounds or a numba loop (same answers).
BACKENDS = ("numpy", "compiled")

__all__ = ["overlapping_pairs", "BatchedSweep", "check_backend", "BACKENDS"]

#: A box touching more bands than this is tested against all boxes directly.
MAX_BANDS_PER_BOX = 16


def check_backend(backend: str) -> str:
    """``backend`` if it is one of :data:`BACKENDS` and usable here, else raise InvalidArgumentError.

    Examples
    --------
    >>> check_backend("numpy")
    'numpy'
    """
    if backend not in BACKENDS:
        raise InvalidArgumentError(f"backend must be one of {BACKENDS}, got {backend!r}")
    # the compiled module imports numba: only when a compiled broadphase is asked for,
    # so that ``import collideworld`` stays cheap
    if backend == "compiled" and not importlib.import_module(f"{__package__}.compiled").NUMBA_AVAILABLE:
        raise InvalidArgumentError("backend='compiled' needs numba, which is not installed; use backend='numpy'")
    return backend


def _expand(counts: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    parent = np.repeat(np.arange(len(counts)), counts)
    child = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    return parent, child


def _band_copies(lo: NDArray[np.float64], hi: NDArray[np.float64], band_axes: list[int], n: int
                 ) -> tuple[NDArray[np.int64], NDArray[np.int64], list[NDArray[np.int64]], list[int],
                            NDArray[np.bool_]]:
    """Cut the band axes into cells.

    Returns (box, cell) per copy, each box's lowest band per band axis, the
    band count per axis (the radix of the row-major cell numbering) and the
    big boxes: those touching more than :data:`MAX_BANDS_PER_BOX` cells get
    no copy. Everything works on contiguous 1-D columns: numpy reduces and
    gathers them far faster than short rows of an (n, D) array.
    """
    if not band_axes:  # 1-D boxes: one cell, a plain sweep
        return np.arange(n, dtype=np.int64), np.zeros(n, dtype=np.int64), [], [], np.zeros(n, dtype=bool)
    b_lo, span, nbands = [], [], []
    for a in band_axes:
        blo, bhi = np.ascontiguousarray(lo[:, a]), np.ascontiguousarray(hi[:, a])
        # band size: twice the median extent, so a typical box touches 1-2
        # bands; never more than ~2 sqrt(n) bands (tiny or zero-size boxes
        # would otherwise ask for absurd counts); zero extent is one band
        size = float(np.median(bhi - blo))
        origin = float(blo.min())
        extent = float(bhi.max()) - origin
        width = max(2.0 * size, extent / max(1.0, 2.0 * np.sqrt(n)))
        width = width if width > 0 else 1.0
        first = np.floor((blo - origin) / width).astype(np.int64)
        last = np.floor((bhi - origin) / width).astype(np.int64)
        b_lo.append(first)
        span.append(last - first + 1)
        nbands.append(int(last.max()) + 1)
    copies = span[0].copy()
    for sp in span[1:]:
        copies *= sp
    big = copies > MAX_BANDS_PER_BOX
    # one round per combination of band offsets (few: a box spans 1-3 bands
    # per axis) instead of a repeat-and-divide expansion: numpy's int64
    # division is scalar and several times slower than these masks
    fits = ~big
    reach = [np.where(fits, sp, 0) for sp in span]
    boxes, cells = [], []
    for offsets in np.ndindex(*[int(r.max(initial=0)) for r in reach]):
        sel = fits.copy()
        for r, o in zip(reach, offsets, strict=True):
            if o:
                sel &= r > o
        box = np.flatnonzero(sel)
        cell = b_lo[0][box] + offsets[0]
        for ax in range(1, len(band_axes)):
            cell = cell * nbands[ax] + b_lo[ax][box] + offsets[ax]
        boxes.append(box)
        cells.append(cell)
    if not boxes:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), b_lo, nbands, big
    return np.concatenate(boxes), np.concatenate(cells), b_lo, nbands, big


def overlapping_pairs(lo: NDArray[np.float64], hi: NDArray[np.float64],
                      static: NDArray[np.bool_] | None = None,
                      wanted: NDArray[np.bool_] | None = None, *,
                      backend: str = "numpy") -> NDArray[np.int64]:
    """Every pair of rows whose closed boxes overlap, not both static.

    Parameters
    ----------
    lo, hi : ndarray, shape (n, D)
        Finite box corners, ``lo <= hi``.
    static : ndarray of bool, shape (n,), optional
    wanted : ndarray of bool, shape (n,), optional
        Report only the pairs with at least one wanted row.
    backend : {"numpy", "compiled"}
        Who walks the runs of candidates (steps 3 and 4): numpy rounds, or
        the numba loop of ``collideworld.broadphase.compiled``. Same pairs, same order.

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
    check_backend(backend)
    n, d = lo.shape
    if n < 2:
        return np.empty((0, 2), dtype=np.int64)
    if backend == "compiled" and d in (2, 3):
        # every step below in one compiled call (its preparation cost more than its walk)
        from .compiled import banded_sweep_pairs

        return banded_sweep_pairs(lo, hi, static if static is not None else np.zeros(n, dtype=bool), wanted,
                                  MAX_BANDS_PER_BOX)
    spread = [float(np.ptp(lo[:, a] + hi[:, a])) for a in range(d)]  # of the centres, doubled
    sweep = int(np.argmax(spread))
    band_axes = [a for a in range(d) if a != sweep]

    # 1. copies of each box into each band (cell) it touches
    box, cell, b_lo, nbands, big = _band_copies(lo, hi, band_axes, n)

    # 2. sort the copies by (cell, lower bound on the sweep axis): rank the
    # lower bounds once (unique integer ranks, so equal coordinates cannot be
    # misordered), then sort packed integer keys, which numpy sorts several
    # times faster than it argsorts them
    slo = np.ascontiguousarray(lo[:, sweep])
    shi = np.ascontiguousarray(hi[:, sweep])
    by_lo = np.argsort(slo)
    rank = np.empty(n, dtype=np.int64)
    rank[by_lo] = np.arange(n)
    # bit fields, not multiples of n: shifts and masks where division is slow
    shift = max(1, int(n - 1).bit_length())
    key = np.sort((cell << shift) | rank[box])
    box = by_lo[key & ((1 << shift) - 1)]
    cell = key >> shift
    end = shi[box]
    start_lo = slo[box]

    if backend == "compiled":
        # steps 3 and 4 (and the static rule) in one compiled loop per copy
        from .compiled import banded_sweep_keys

        keys = banded_sweep_keys(
            box, cell, start_lo, end,
            np.ascontiguousarray(lo[:, band_axes].T), np.ascontiguousarray(hi[:, band_axes].T),
            np.array(b_lo, dtype=np.int64).reshape(len(band_axes), n), np.array(nbands, dtype=np.int64),
            static if static is not None else np.zeros(n, dtype=bool), wanted,
            _lookback_reach(slo, shi), shift)
        i, j = keys >> shift, keys & ((1 << shift) - 1)
    else:
        i, j = _sweep_numpy(lo, hi, box, cell, start_lo, end, slo, shi, b_lo, nbands, band_axes, wanted)
    return _finish(lo, hi, i, j, big, static, wanted)


def _lookback_reach(slo: NDArray[np.float64], shi: NDArray[np.float64]) -> float:
    """How far back on the sweep axis a box can start and still reach a later one, rounding included.

    The widest extent ``max(hi - lo)`` alone is not enough: ``hi - lo`` and
    the test ``lo_q >= lo_p - reach`` both round, and a box from -1e-129 to 2
    measures 2.0 exactly, so the box starting at 2 would not look back far
    enough to find it. A few ulps of the coordinates' magnitude more make the
    prune conservative; the exact overlap test follows it anyway.
    """
    reach = float((shi - slo).max())
    magnitude = max(float(np.abs(slo).max()), float(np.abs(shi).max()))
    return reach + 4.0 * float(np.finfo(np.float64).eps) * (magnitude + reach)


def _sweep_numpy(lo: NDArray[np.float64], hi: NDArray[np.float64], box: NDArray[np.int64],
                 cell: NDArray[np.int64], start_lo: NDArray[np.float64], end: NDArray[np.float64],
                 slo: NDArray[np.float64], shi: NDArray[np.float64], b_lo: list[NDArray[np.int64]],
                 nbands: list[int], band_axes: list[int], wanted: NDArray[np.bool_] | None
                 ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Steps 3 and 4 in numpy: (i, j) rows of the banded pairs, unordered."""
    # 3. sweep by offsets: copy p pairs with p + 1, p + 2, ... while they are
    # in its cell and start no later than its end (the touching rule: <=).
    # Runs are short (a cell holds few boxes per unit of sweep length), so a
    # handful of vectorised rounds over a shrinking set of copies replaces a
    # search per copy.
    m = len(box)
    found_p, found_q = [np.empty(0, dtype=np.int64)], [np.empty(0, dtype=np.int64)]
    active = np.arange(m - 1) if wanted is None else np.flatnonzero(wanted[box])
    offset = 1
    while len(active):
        active = active[active + offset < m]
        other = active + offset
        ok = (cell[other] == cell[active]) & (start_lo[other] <= end[active])
        active = active[ok]
        found_p.append(active)
        found_q.append(active + offset)
        offset += 1
    if wanted is not None:
        # only runs starting at wanted copies were swept: also look back from
        # them for unwanted copies whose run reaches them. A copy starting
        # more than the widest box before them cannot reach them.
        reach = _lookback_reach(slo, shi)
        active = np.flatnonzero(wanted[box])
        offset = 1
        while len(active):
            active = active[active >= offset]
            other = active - offset
            near = (cell[other] == cell[active]) & (start_lo[other] >= start_lo[active] - reach)
            active, other = active[near], other[near]
            ok = (end[other] >= start_lo[active]) & ~wanted[box[other]]
            found_p.append(other[ok])
            found_q.append(active[ok])
            offset += 1
    p_ = np.concatenate(found_p)
    q_ = np.concatenate(found_q)
    i, j = box[p_], box[q_]

    # 4. overlap on the band axes, reported only in the cell of the larger
    # lower bands (both boxes reach it when they overlap), so a pair sharing
    # several cells is reported once
    keep = np.ones(len(i), dtype=bool)
    home = np.zeros(len(i), dtype=np.int64)
    for ax, a in enumerate(band_axes):
        lo_a, hi_a = np.ascontiguousarray(lo[:, a]), np.ascontiguousarray(hi[:, a])
        keep &= (lo_a[i] <= hi_a[j]) & (lo_a[j] <= hi_a[i])
        home = home * nbands[ax] + np.maximum(b_lo[ax][i], b_lo[ax][j])
    keep &= home == cell[p_]
    return i[keep], j[keep]


def _finish(lo: NDArray[np.float64], hi: NDArray[np.float64], i: NDArray[np.int64], j: NDArray[np.int64],
            big: NDArray[np.bool_], static: NDArray[np.bool_] | None, wanted: NDArray[np.bool_] | None
            ) -> NDArray[np.int64]:
    """Add the pairs of boxes too big for the bands, drop static pairs, sort: shared by both backends."""
    n = len(lo)
    if np.any(big):
        # boxes too big for the bands: test against every box directly
        bi = np.flatnonzero(big)
        parts = [np.stack([i, j], axis=1)]
        for b in bi.tolist():  # few, by construction
            ov = np.all((lo <= hi[b]) & (lo[b] <= hi), axis=1)
            ov[b] = False
            ov &= ~big | (np.arange(n) > b)  # a big-big pair once
            if wanted is not None and not wanted[b]:
                ov &= wanted
            others = np.flatnonzero(ov)
            parts.append(np.stack([np.full(len(others), b), others], axis=1))
        ij = np.concatenate(parts)
        i, j = ij[:, 0], ij[:, 1]

    if static is not None:
        keep = ~(static[i] & static[j])
        i, j = i[keep], j[keep]
    shift = max(1, int(n - 1).bit_length())
    pair_key = np.sort((np.minimum(i, j) << shift) | np.maximum(i, j))
    out = np.empty((len(pair_key), 2), dtype=np.int64)
    np.right_shift(pair_key, shift, out=out[:, 0])
    np.bitwise_and(pair_key, (1 << shift) - 1, out=out[:, 1])
    return out


class BatchedSweep(Broadphase):
    """A broadphase that recomputes every pair from scratch with :func:`~.batched_sweep.overlapping_pairs`.

    Boxes live in arrays indexed by handle (handles are small non-negative
    ints, such as a world's slots), so updates are one fancy assignment, O(m);
    :meth:`pairs` costs one banded sort and sweep, O(n log n), cached until
    the next change. The right choice when most bodies move every step.

    Parameters
    ----------
    dim : {2, 3}
    backend : {"numpy", "compiled"}
        Who walks the sweep's candidate runs (see :func:`overlapping_pairs`):
        numpy, or the numba loop of ``collideworld.broadphase.compiled`` (needs numba). The
        answers are the same.

    Examples
    --------
    >>> bp = BatchedSweep(2)
    >>> bp.insert_many([0, 1, 2], [[0, 0], [1, 1], [5, 5]], [[1, 1], [2, 2], [6, 6]])
    >>> bp.pairs().tolist()              # boxes 0 and 1 share the corner (1, 1)
    [[0, 1]]
    >>> bp.update(2, [1.5, 1.5], [3, 3])
    >>> bp.pairs_touching([2]).tolist()
    [[1, 2]]
    """

    def __init__(self, dim: int, *, backend: str = "numpy") -> None:
        if dim not in (2, 3):
            raise ValueError(f"dim must be 2 or 3, got {dim!r}")
        self.backend = check_backend(backend)
        self._dim = dim
        self._alive = np.zeros(0, dtype=bool)
        self._lo = np.zeros((0, dim))
        self._hi = np.zeros((0, dim))
        self._static = np.zeros(0, dtype=bool)
        self._count = 0
        self._cache: NDArray[np.int64] | None = None
        # compiled: the sorted band copies kept for pairs_touching, and the
        # boxes changed since they were last repaired
        self._banded: Any = None
        self._dirty = np.zeros(0, dtype=bool)
        self._n_dirty = 0

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
        self._dirty = np.concatenate([self._dirty, np.zeros(grow, dtype=bool)])

    def _live_checked(self, handles: ArrayLike) -> NDArray[np.int64]:
        h = as_handles(handles)
        if len(h) and (h.min() < 0 or h.max() >= len(self._alive) or not self._alive[h].all()):
            bad = next(x for x in h.tolist() if x not in self)
            raise UnknownIdError(f"handle {bad} is not in the broadphase")
        if len(h) > 1:
            # a scratch mark per handle: O(m), where np.unique would sort
            seen = np.zeros(len(self._alive), dtype=bool)
            seen[h] = True
            if np.count_nonzero(seen) != len(h):
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
        self._banded = None

    def update_many(self, handles: ArrayLike, lo: ArrayLike, hi: ArrayLike) -> None:
        h = self._live_checked(handles)
        lo_, hi_ = as_boxes(lo, hi, len(h), self._dim)
        self.update_known(h, lo_, hi_)

    def update_known(self, handles: NDArray[np.int64], lo: NDArray[np.float64], hi: NDArray[np.float64]) -> None:
        """:meth:`update_many` without its checks, for a caller that guarantees them.

        ``handles``: a 1-D int64 array of live, distinct handles; ``lo``, ``hi``:
        (M, D) float64 arrays of finite corners, ``lo <= hi``, zeros as +0.0
        (what ``as_boxes`` returns): the world's refit of its own fat boxes.
        """
        h = handles
        put_rows(self._lo, h, lo)
        put_rows(self._hi, h, hi)
        self._cache = None
        if self._banded is not None:
            fresh = h[~self._dirty[h]]
            self._dirty[fresh] = True
            self._n_dirty += len(fresh)
            if 4 * self._n_dirty > self._count:
                self._banded = None  # building again costs less than repairing this many

    def remove_many(self, handles: ArrayLike) -> None:
        h = self._live_checked(handles)
        self._alive[h] = False
        self._count -= len(h)
        self._cache = None
        self._banded = None

    def live_handles(self) -> NDArray[np.int64]:
        """Every live handle, ascending.

        Returns
        -------
        ndarray of int64, shape (n,)

        Examples
        --------
        >>> bp = BatchedSweep(2)
        >>> bp.insert_many([5, 2], [[0, 0], [1, 1]], [[1, 1], [2, 2]])
        >>> bp.live_handles().tolist()
        [2, 5]
        """
        return np.flatnonzero(self._alive).astype(np.int64, copy=False)

    def boxes(self, handles: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
        """The stored boxes of live handles, as fresh arrays (changing them changes nothing here).

        Parameters
        ----------
        handles : array_like of int, shape (M,)
            Live handles (repeats allowed: this only reads).

        Returns
        -------
        lo, hi : ndarray of float64, shape (M, D)
            Box corners, row ``m`` for ``handles[m]``.
        static : ndarray of bool, shape (M,)

        Raises
        ------
        UnknownIdError
            A handle is not live.

        Examples
        --------
        >>> bp = BatchedSweep(2)
        >>> bp.insert_many([0, 3], [[0, 0], [1, 1]], [[1, 1], [2, 2]], [False, True])
        >>> lo, hi, static = bp.boxes([3])
        >>> lo.tolist(), hi.tolist(), static.tolist()
        ([[1.0, 1.0]], [[2.0, 2.0]], [True])
        """
        h = as_handles(handles)
        if len(h) and (h.min() < 0 or h.max() >= len(self._alive) or not self._alive[h].all()):
            bad = next(x for x in h.tolist() if x not in self)
            raise UnknownIdError(f"handle {bad} is not in the broadphase")
        return self._lo.take(h, axis=0), self._hi.take(h, axis=0), self._static.take(h)

    def pairs(self) -> NDArray[np.int64]:
        if self._cache is None:
            live = np.flatnonzero(self._alive)
            k = len(live)
            if k and live[-1] == k - 1:
                # the live handles are 0 .. k-1 (a world without holes): rows are handles, and the
                # boxes are the leading rows, passed as views instead of gathered copies
                self._cache = overlapping_pairs(self._lo[:k], self._hi[:k], self._static[:k],
                                                backend=self.backend).reshape(-1, 2)
            else:
                rows = overlapping_pairs(self._lo.take(live, axis=0), self._hi.take(live, axis=0),
                                         self._static[live], backend=self.backend)
                # live is increasing, so mapping rows to handles keeps i < j and the order
                self._cache = live[rows].reshape(-1, 2)
            self._cache.setflags(write=False)
        return self._cache

    def pairs_touching(self, handles: ArrayLike) -> NDArray[np.int64]:
        """The pairs of :meth:`pairs` that hold at least one of ``handles`` (live).

        One banded sweep over all boxes that keeps only those pairs: it
        skips the overlap tests and the output of every other pair. Compiled,
        the sorted band copies are kept between calls and repaired for the
        boxes updated since (``collideworld.broadphase.compiled.BandedSweepCache``):
        the cost is then one pass over the copies, not a sort of all boxes.
        """
        h = self._live_checked(handles)
        if self.backend == "compiled" and self._count >= 2:
            kept = self._pairs_touching_kept(h)
            if kept is not None:
                return kept
        live = np.flatnonzero(self._alive)
        wanted = np.zeros(len(self._alive), dtype=bool)
        wanted[h] = True
        rows = overlapping_pairs(self._lo.take(live, axis=0), self._hi.take(live, axis=0), self._static[live],
                                 wanted[live], backend=self.backend)
        out: NDArray[np.int64] = live[rows].reshape(-1, 2)
        return out

    def _pairs_touching_kept(self, h: NDArray[np.int64]) -> NDArray[np.int64] | None:
        """:meth:`pairs_touching` by the kept band copies (compiled), built on first use; None if unusable."""
        from .compiled import BandedSweepCache

        if self._banded is None:
            self._dirty[:] = False
            self._n_dirty = 0
            self._banded = BandedSweepCache(self._lo, self._hi, np.flatnonzero(self._alive), MAX_BANDS_PER_BOX)
        dirty = np.flatnonzero(self._dirty)
        self._dirty[dirty] = False
        self._n_dirty = 0
        # None when a box is too big for the bands (the sweep from scratch tests those); the
        # unusable cache is kept, doing nothing, until enough changes or an insert or remove drop it
        out: NDArray[np.int64] | None = self._banded.pairs_touching(self._lo, self._hi, dirty, h, self._static)
        return out

    def validate(self) -> None:
        live = np.flatnonzero(self._alive)
        assert len(live) == self._count
        lo, hi, st = self._lo.take(live, axis=0), self._hi.take(live, axis=0), self._static[live]
        assert np.all(lo <= hi)
        if len(live) <= 3000:
            ov = np.all((lo[:, None, :] <= hi[None, :, :]) & (lo[None, :, :] <= hi[:, None, :]), axis=2)
            ov &= ~(st[:, None] & st[None, :])
            i, j = np.nonzero(np.triu(ov, 1))
            expected = np.stack([live[i], live[j]], axis=1).reshape(-1, 2)
            assert np.array_equal(expected, self.pairs()), "batched sweep pairs differ from the dense check"
