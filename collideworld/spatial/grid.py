"""A hashed uniform grid over boxes, for box and ray queries that touch only nearby boxes.

Outline (the "spatial hashing" of Teschner et al. 2003, and Ericson, *Real-Time
Collision Detection*, §7.1 for uniform grids and §7.4.2 for walking a ray
through one, after Amanatides and Woo 1987)::

    build:  cell = twice the median box size (or the 99th percentile, up to 8 medians)
            boxes larger than a cell        -> the "big" list, tested one by one
            every other box                 -> each cell its (slightly padded) box meets,
                                               at most 3 per axis
            cell (cx, cy[, cz]) -> bucket by a hash into a power-of-two table;
            buckets are contiguous runs of one array (counting sort: CSR)
    box:    the cells the query box meets -> their buckets -> boxes that meet the query
    ray:    the cells the segment passes  -> their buckets -> boxes the segment meets

Two cells may share a bucket (hash collision): a bucket's boxes are always
tested against the query, so a collision costs a test, never an answer.

Every query result is the set of boxes that meet the query (closed boxes:
touching counts), each once. Box queries are exact in that sense: a box and
a query meet iff they share a point ``p``, and ``floor(p / cell)`` is then a
cell both register (floor and division by a positive cell are monotone).
Rays reach cells through rounded crossing parameters, so boxes are registered
in the cells they come within ``pad`` of; ``pad`` exceeds that rounding.

The compiled twin (:mod:`collideworld.spatial.compiled`, numba) returns the
same sets; this module is the numpy implementation and the reference.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .arrays import Floats32

__all__ = ["Floats32", "GridIndex", "hash_cells", "segment_meets_boxes"]

Index = NDArray[np.int64]
Floats = NDArray[np.float64]


def float32_below(x: NDArray[np.float64]) -> Floats32:
    """The largest float32 values not above ``x`` (-inf below float32's range).

    Examples
    --------
    >>> a = float32_below(np.array([0.1, -0.1, 1e300, np.inf]))
    >>> a.dtype.name, bool((a <= [0.1, -0.1, 1e300, np.inf]).all()), bool(a[2] == np.finfo(np.float32).max)
    ('float32', True, True)
    """
    with np.errstate(over="ignore"):  # beyond float32's range: inf, then stepped back (np.where steps every value)
        f = x.astype(np.float32)
        low: Floats32 = np.where(f > x, np.nextafter(f, np.float32(-np.inf)), f)
    return low


def float32_above(x: NDArray[np.float64]) -> Floats32:
    """The smallest float32 values not below ``x`` (+inf above float32's range).

    Examples
    --------
    >>> a = float32_above(np.array([0.1, -0.1, -1e300, -np.inf]))
    >>> a.dtype.name, bool((a >= [0.1, -0.1, -1e300, -np.inf]).all()), bool(a[2] == np.finfo(np.float32).min)
    ('float32', True, True)
    """
    with np.errstate(over="ignore"):
        f = x.astype(np.float32)
        high: Floats32 = np.where(f < x, np.nextafter(f, np.float32(np.inf)), f)
    return high


#: Fewer gridded boxes than this: everything is on the "big" list (a scan is cheaper than cells).
MIN_GRIDDED = 32
#: A box query over more cells than this scans every box instead.
MAX_QUERY_CELLS = 256
_PRIMES = (73856093, 19349663, 83492791)


def hash_cells(cells: Index, mask: int) -> Index:
    """Bucket of each integer cell, shape (N,), from cells (N, D).

    Examples
    --------
    >>> import numpy as np
    >>> hash_cells(np.array([[0, 0], [1, 0]]), 15).tolist()
    [0, 13]
    """
    h = cells[:, 0] * np.int64(_PRIMES[0])
    for k in range(1, cells.shape[1]):
        h = h ^ (cells[:, k] * np.int64(_PRIMES[k]))
    out: Index = h & np.int64(mask)
    return out


def segment_meets_boxes(o: Floats, d: Floats, tmax: float, lo: Floats, hi: Floats) -> NDArray[np.bool_]:
    """Whether the segment ``o + t d``, ``0 <= t <= tmax``, meets each closed box (slab test), shape (N,).

    Examples
    --------
    >>> import numpy as np
    >>> segment_meets_boxes(np.zeros(2), np.array([1.0, 0.0]), 2.0,
    ...                     np.array([[2.0, -1.0], [3.0, -1.0]]), np.array([[3.0, 1.0], [4.0, 1.0]])).tolist()
    [True, False]
    """
    n = len(lo)
    t0 = np.zeros(n)
    t1 = np.full(n, tmax)
    ok = np.ones(n, dtype=bool)
    for k in range(len(o)):
        if d[k] == 0.0:
            ok &= (lo[:, k] <= o[k]) & (o[k] <= hi[:, k])
            continue
        inv = 1.0 / d[k]
        ta = (lo[:, k] - o[k]) * inv
        tb = (hi[:, k] - o[k]) * inv
        np.maximum(t0, np.minimum(ta, tb), out=t0)
        np.minimum(t1, np.maximum(ta, tb), out=t1)
    out: NDArray[np.bool_] = ok & (t0 <= t1)
    return out


def _expand_ranges(start: Index, stop: Index) -> tuple[Index, Index]:
    """For ranges ``[start[i], stop[i])``: (i repeated, every position), both (sum of lengths,)."""
    counts = stop - start
    total = int(counts.sum())
    row = np.repeat(np.arange(len(start)), counts)
    first = np.cumsum(counts) - counts
    pos = np.arange(total, dtype=np.int64) - np.repeat(first - start, counts)
    return row, pos


class GridIndex:
    """Boxes under integer handles in a hashed uniform grid (immutable once built).

    Parameters
    ----------
    lo, hi : ndarray of float64, shape (N, D)
        Closed boxes, finite, ``lo <= hi``.
    handles : ndarray of int64, shape (N,)
        What the queries return for each box (slots, for the world).
    backend : {"numpy", "compiled"}
        Which implementation answers the queries; the sets are the same.

    Notes
    -----
    Building is O(N log N) (numpy) or O(N) (compiled). A query costs the
    cells it covers plus the boxes in their buckets: O(1) per query for boxes
    and segments a few cells long, whatever N is, when boxes have similar
    sizes. Boxes much larger than the median are tested by every query.

    Examples
    --------
    >>> import numpy as np
    >>> lo = np.array([[0.0, 0.0], [5.0, 5.0], [0.5, 0.5]])
    >>> g = GridIndex(lo, lo + 1.0, np.array([10, 11, 12]))
    >>> g.query_box(np.array([0.9, 0.9]), np.array([1.0, 1.0])).tolist()
    [10, 12]
    >>> qi, h = g.query_segments(np.zeros((1, 2)), np.array([[1.0, 1.0]]) / np.sqrt(2), np.array([np.inf]))
    >>> sorted(h.tolist())
    [10, 11, 12]
    """

    def __init__(self, lo: Floats, hi: Floats, handles: Index, backend: str = "numpy", *,
                 members: Index | None = None, spare: int = 0) -> None:
        self.dim = lo.shape[1] if lo.ndim == 2 else 0
        self.backend = backend
        # a grid that patch() changes keeps boxes of its own (never the caller's arrays)
        self.lo = np.array(lo, dtype=np.float64) if spare else np.ascontiguousarray(lo, dtype=np.float64)
        self.hi = np.array(hi, dtype=np.float64) if spare else np.ascontiguousarray(hi, dtype=np.float64)
        self.handles = np.asarray(handles, dtype=np.int64)
        n = len(self.handles)
        self.n = n
        # the rows registered in the grid (all of them by default; the others are absent, empty boxes)
        self.members: Index = np.arange(n, dtype=np.int64) if members is None else np.asarray(members, np.int64)
        mem = self.members
        m_lo, m_hi = self.lo.take(mem, axis=0), self.hi.take(mem, axis=0)
        size = (m_hi - m_lo).max(axis=1) if len(mem) else np.zeros(0)
        scale = float(max(np.abs(m_lo).max(initial=0.0), np.abs(m_hi).max(initial=0.0)))
        # twice the median size, grown to hold all but the largest 1 % of boxes
        # (capped at 8 medians: a few huge boxes must not coarsen the grid)
        med = float(np.median(size)) if len(mem) else 1.0
        cell = min(max(2.0 * med, float(np.quantile(size, 0.99))), 8.0 * med) if len(mem) else 1.0
        # keep cell indices far inside int64 whatever the coordinates are
        cell = max(cell, scale * 2.0 ** -40, 1e-300)
        big = size > cell
        if len(mem) - int(big.sum()) < MIN_GRIDDED:
            big[:] = True
        self.cell = cell
        # registration pad: above the rounding of a ray's crossing parameters
        self.pad = 1e-6 * cell + 1e-12 * scale
        self.big: Index = mem[big]
        #: the big list as marks by row (patch and follow keep both)
        self.in_big = np.zeros(n, dtype=bool)
        self.in_big[self.big] = True
        gridded = mem[~big]
        self.gridded = gridded
        if len(gridded):
            c0 = np.floor((self.lo[gridded] - self.pad) / cell).astype(np.int64)
            c1 = np.floor((self.hi[gridded] + self.pad) / cell).astype(np.int64)
            self.glo = self.lo[gridded].min(axis=0) - self.pad
            self.ghi = self.hi[gridded].max(axis=0) + self.pad
        else:
            c0 = c1 = np.zeros((0, max(self.dim, 1)), dtype=np.int64)
            self.glo = np.zeros(max(self.dim, 1))
            self.ghi = -np.ones(max(self.dim, 1))
        span = c1 - c0 + 1
        table = 1 << max(4, int(2 * max(len(gridded), 1) * 2).bit_length())
        self.mask = table - 1
        if backend == "compiled":
            from .compiled import build_buckets
            # spare: free entries (-1) at the end of every bucket in use, for patch() to fill
            self.starts, self.entries = build_buckets(c0, span, gridded, self.mask, self.dim, spare)
        else:
            cells_list, owners = [], []
            for off in itertools.product(range(3), repeat=self.dim):
                sel = np.flatnonzero((span > np.array(off)).all(axis=1))
                cells_list.append(c0[sel] + np.array(off))
                owners.append(gridded[sel])
            cells = np.concatenate(cells_list) if cells_list else np.zeros((0, self.dim), dtype=np.int64)
            owner = np.concatenate(owners) if owners else np.zeros(0, dtype=np.int64)
            keys = hash_cells(cells, self.mask)
            order = np.argsort(keys, kind="stable")
            self.entries = owner[order].astype(np.int64)
            self.starts = np.zeros(table + 1, dtype=np.int64)
            np.cumsum(np.bincount(keys, minlength=table), out=self.starts[1:])
        # each entry's own copy of its box, for the compiled one-call queries (collideworld.compiled.queries):
        # a bucket's boxes are then read in a row, not one cache miss per box
        self.entry_lo: Floats32 | None = None
        self.entry_hi: Floats32 | None = None
        #: bucketed rows (patch() keeps the count); the big list may grow to big_limit by patches
        self.n_gridded = len(gridded)
        self.big_limit = max(64, 2 * len(self.big))
        # the compiled queries' "seen" marks: each call takes fresh tags (see take_tags)
        self.stamp = np.full(n, -1, dtype=np.int64)
        self._more_stamps: list[Index] = []
        self._next_tag = 0

    def stamps(self, k: int) -> list[Index]:
        """``k`` arrays of "seen" marks for a batched query (made on first use and kept), none of them :attr:`stamp`.

        One per thread running a part of a batch at once: a mark is written as
        a body is met, and two threads sharing one array could overwrite each
        other's. Apart from :attr:`stamp` too, which the single queries use
        while holding the GIL (a batch's kernels release it). The tags of
        :meth:`take_tags` are fresh for all.

        Examples
        --------
        >>> import numpy as np
        >>> g = GridIndex(np.zeros((3, 2)), np.ones((3, 2)), np.arange(3), backend="compiled")
        >>> [s.shape for s in g.stamps(2)], any(s is g.stamp for s in g.stamps(2)), g.stamps(1)[0] is g.stamps(2)[0]
        ([(3,), (3,)], False, True)
        """
        while len(self._more_stamps) < k:
            self._more_stamps.append(np.full(len(self.stamp), -1, dtype=np.int64))
        return self._more_stamps[:k]

    def take_tags(self, m: int) -> int:
        """The first of ``2 m`` unused stamp tags (two passes of ``m`` queries)."""
        base = self._next_tag
        self._next_tag += 2 * m
        return base

    def entry_boxes(self) -> tuple[Floats32, Floats32]:
        """``(lo, hi)`` (E, D): the box of each bucket entry, in bucket order (made on first use).

        In float32, rounded outwards (each box holds the row's float64 box): the
        walks only ask whether a probe may meet an entry (the exact test follows),
        and half the bytes are half the cache lines a bucket costs them (10,000
        points among 100,000 bodies, right after other work: 2.65 -> 2.1 ms).

        Examples
        --------
        >>> import numpy as np
        >>> g = GridIndex(np.zeros((1, 2)), np.ones((1, 2)), np.array([0]))
        >>> [a.shape for a in g.entry_boxes()] == [(len(g.entries), 2)] * 2
        True
        """
        if self.entry_lo is None or self.entry_hi is None:
            used = (self.entries >= 0)[:, None]
            # a free entry (-1) holds an empty box: no query meets it
            self.entry_lo = float32_below(np.where(used, self.lo.take(np.maximum(self.entries, 0), axis=0), np.inf))
            self.entry_hi = float32_above(np.where(used, self.hi.take(np.maximum(self.entries, 0), axis=0), -np.inf))
        return self.entry_lo, self.entry_hi

    def registered(self) -> Index:
        """Handles of every box in the grid (bucketed or big), in row order.

        Examples
        --------
        >>> import numpy as np
        >>> lo, hi = np.array([[0.0, 0.0], [np.inf, np.inf]]), np.array([[1.0, 1.0], [-np.inf, -np.inf]])
        >>> GridIndex(lo, hi, np.array([4, 5]), members=[0]).registered().tolist()   # row 1 is absent
        [4]
        """
        out: Index = self.handles[self.lo[:, 0] <= self.hi[:, 0]] if self.n else self.handles
        return out

    def patch(self, rows: Index, lo: Floats, hi: Floats, alive: NDArray[np.bool_]) -> bool:
        """Move rows ``rows`` to boxes ``lo``, ``hi`` (each (k, D)), or take them out where not ``alive``.

        Compiled grids built with ``spare`` room only. Each row leaves the
        buckets of its old cells and enters those of its new ones, O(cells)
        a row; a row whose new cells have no free entry, or whose box is now
        larger than a cell, goes to the "big" list. Returns False when the
        grid should rather be built again (the big list grew past a bound, or
        a row is new to ``handles``): the caller rebuilds.

        Examples
        --------
        >>> import numpy as np
        >>> lo = np.array([[float(i), 0.0] for i in range(40)])
        >>> g = GridIndex(lo, lo + 0.5, np.arange(40), "compiled", spare=2)
        >>> g.patch(np.array([3]), np.array([[100.0, 0.0]]), np.array([[100.5, 0.0]]), np.array([True]))
        True
        >>> g.query_box(np.array([100.2, 0.0]), np.array([100.3, 0.0])).tolist()
        [3]
        >>> g.query_box(np.array([3.2, 0.0]), np.array([3.2, 0.0])).tolist()   # where it was
        []
        """
        from .compiled import patch_buckets

        assert self.backend == "compiled"
        if len(rows) and int(rows.max()) >= self.n:
            return False
        # (np.isin costs ~10 us even on empty arrays, and sorts: the marks by row instead)
        in_big = self.in_big.take(rows)
        if len(self.big) and in_big.any():
            self.in_big[rows[in_big]] = False
            self.big = self.big[self.in_big.take(self.big)]
        elo, ehi = self.entry_boxes()
        overflow, delta = patch_buckets(rows, np.ascontiguousarray(lo), np.ascontiguousarray(hi), alive, in_big,
                                        self.lo, self.hi, self.cell, self.pad, self.mask, self.starts, self.entries,
                                        elo, ehi)
        self.n_gridded += delta
        if overflow.any():
            self.big = np.concatenate([self.big, rows[overflow]])
            self.in_big[rows[overflow]] = True
        live = alive & ~overflow
        if live.any():  # the bounds a segment walk clips to hold every gridded box
            llo, lhi = lo[live].min(axis=0) - self.pad, hi[live].max(axis=0) + self.pad
            if np.any(llo < self.glo) or np.any(lhi > self.ghi):
                self.glo = np.minimum(self.glo, llo)
                self.ghi = np.maximum(self.ghi, lhi)
        return len(self.big) <= self.big_limit

    def follow(self, look: Index, alive: NDArray[np.bool_], ident: Index, lo: Floats, hi: Floats,
               registered: Index, slack: float, budget: int) -> tuple[bool, int, Floats, Floats]:
        """Move the rows of ``look`` whose box left its registered box: :meth:`patch` of those, found in the same pass.

        ``alive``, ``ident``, ``lo``, ``hi`` are the rows' (one per entry of
        ``look``); ``registered`` (by row) is who each row was registered for,
        updated here. A moved row is registered grown by ``slack`` of its
        largest side (see :func:`~collideworld.spatial.compiled.follow`).
        Returns ``(ok, renewed, blo, bhi)``: False when the grid should be
        built again (more than ``budget`` rows new to their slots: nothing was
        moved; or the big list grew past its bound), the count of those rows,
        and the bounds of the live rows' new boxes.

        Examples
        --------
        >>> import numpy as np
        >>> lo = np.array([[float(i), 0.0] for i in range(40)])
        >>> g = GridIndex(lo, lo + 0.5, np.arange(40), "compiled", spare=2)
        >>> new = lo.copy(); new[3] = [100.0, 0.0]
        >>> ok, renewed, blo, bhi = g.follow(np.arange(40), np.ones(40, bool), np.arange(40), new, new + 0.5,
        ...                                  np.arange(40), 0.0, 10)
        >>> ok, g.query_box(np.array([100.2, 0.0]), np.array([100.3, 0.0])).tolist()
        (True, [3])
        """
        from .compiled import follow

        assert self.backend == "compiled"
        elo, ehi = self.entry_boxes()
        delta, renewed, big, blo, bhi = follow(look, alive, ident, np.ascontiguousarray(lo),
                                               np.ascontiguousarray(hi), registered, slack, budget, self.big,
                                               self.in_big, self.lo, self.hi, self.glo, self.ghi, self.cell,
                                               self.pad, self.mask, self.starts, self.entries, elo, ehi)
        if renewed > budget:
            return False, renewed, blo, bhi
        self.n_gridded += delta
        self.big = big
        return len(self.big) <= self.big_limit, renewed, blo, bhi

    def __len__(self) -> int:
        return self.n

    # -- box queries --------------------------------------------------------------------

    def query_box(self, qlo: Floats, qhi: Floats) -> Index:
        """Handles of the boxes meeting the closed box ``[qlo, qhi]`` (each (D,)), unordered, each once.

        Examples
        --------
        >>> import numpy as np
        >>> g = GridIndex(np.array([[0.0, 0.0]]), np.array([[1.0, 1.0]]), np.array([7]))
        >>> g.query_box(np.array([1.0, 1.0]), np.array([2.0, 2.0])).tolist()   # corner to corner
        [7]
        """
        _, local = self.query_boxes_local(qlo[None], qhi[None])
        out: Index = self.handles[local]
        return out

    def query_boxes(self, qlo: Floats, qhi: Floats) -> tuple[Index, Index]:
        """``(query index, handle)`` pairs for queries ``[qlo[i], qhi[i]]`` (each (M, D)), grouped by query.

        Examples
        --------
        >>> import numpy as np
        >>> g = GridIndex(np.array([[0.0, 0.0], [2.0, 0.0]]), np.array([[1.0, 1.0], [3.0, 1.0]]), np.array([4, 5]))
        >>> q = np.array([[0.5, 0.5], [2.5, 0.5], [9.0, 9.0]])
        >>> [a.tolist() for a in g.query_boxes(q, q)]
        [[0, 1], [4, 5]]
        """
        qi, local = self.query_boxes_local(qlo, qhi)
        return qi, self.handles[local]

    def query_boxes_local(self, qlo: Floats, qhi: Floats) -> tuple[Index, Index]:
        """:meth:`query_boxes` with local box indices (0 .. N-1) instead of handles."""
        qlo = np.ascontiguousarray(qlo, dtype=np.float64)
        qhi = np.ascontiguousarray(qhi, dtype=np.float64)
        if self.n == 0 or len(qlo) == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        if self.backend == "compiled":
            from .compiled import query_boxes
            return query_boxes(self.lo, self.hi, self.cell, self.mask, self.starts, self.entries, self.big,
                               self.n_gridded, qlo, qhi, MAX_QUERY_CELLS, self.stamp, self.take_tags(len(qlo)))
        return self._query_boxes_numpy(qlo, qhi)

    def _query_boxes_numpy(self, qlo: Floats, qhi: Floats) -> tuple[Index, Index]:
        m = len(qlo)
        rows_q: list[Index] = []
        rows_b: list[Index] = []
        if len(self.gridded):
            c0 = np.floor(qlo / self.cell).astype(np.int64)
            c1 = np.floor(qhi / self.cell).astype(np.int64)
            span = c1 - c0 + 1
            ncells = span.prod(axis=1)
            wide = ncells > MAX_QUERY_CELLS
            narrow = np.flatnonzero(~wide)
            if len(narrow):
                max_span = span[narrow].max(axis=0)
                cq, cc = [], []
                for off in itertools.product(*(range(int(s)) for s in max_span)):
                    sel = narrow[(span[narrow] > np.array(off)).all(axis=1)]
                    cq.append(sel)
                    cc.append(c0[sel] + np.array(off))
                q = np.concatenate(cq)
                keys = hash_cells(np.concatenate(cc), self.mask)
                row, pos = _expand_ranges(self.starts[keys], self.starts[keys + 1])
                rows_q.append(q[row])
                rows_b.append(self.entries[pos])
            for i in np.flatnonzero(wide).tolist():
                rows_q.append(np.full(len(self.gridded), i, dtype=np.int64))
                rows_b.append(self.gridded)
        if len(self.big):
            rows_q.append(np.repeat(np.arange(m, dtype=np.int64), len(self.big)))
            rows_b.append(np.tile(self.big, m))
        q = np.concatenate(rows_q)
        b = np.concatenate(rows_b)
        meets = ((self.lo[b] <= qhi[q]) & (qlo[q] <= self.hi[b])).all(axis=1)
        key = np.unique(q[meets] * np.int64(self.n) + b[meets])
        return key // self.n, key % self.n

    # -- segment queries ----------------------------------------------------------------

    def query_segments(self, origins: Floats, directions: Floats, tmax: Floats) -> tuple[Index, Index]:
        """``(segment index, handle)`` pairs for segments ``o + t d``, ``0 <= t <= tmax`` (may be inf).

        ``origins``, ``directions`` are (M, D), ``tmax`` (M,). Grouped by segment.

        Examples
        --------
        >>> import numpy as np
        >>> g = GridIndex(np.array([[2.0, -1.0]]), np.array([[3.0, 1.0]]), np.array([9]))
        >>> [a.tolist() for a in g.query_segments(np.zeros((2, 2)), np.array([[1.0, 0], [-1.0, 0]]),
        ...                                       np.array([5.0, 5.0]))]
        [[0], [9]]
        """
        _, local = qi_local = self.query_segments_local(origins, directions, tmax)
        return qi_local[0], self.handles[local]

    def query_segments_local(self, origins: Floats, directions: Floats, tmax: Floats) -> tuple[Index, Index]:
        """:meth:`query_segments` with local box indices instead of handles."""
        o = np.ascontiguousarray(origins, dtype=np.float64)
        d = np.ascontiguousarray(directions, dtype=np.float64)
        t = np.ascontiguousarray(tmax, dtype=np.float64)
        if self.n == 0 or len(o) == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        if self.backend == "compiled":
            from .compiled import query_segments
            return query_segments(self.lo, self.hi, self.cell, self.mask, self.starts, self.entries, self.big,
                                  self.n_gridded, self.glo, self.ghi, o, d, t, self.stamp, self.take_tags(len(o)))
        qs: list[Index] = []
        bs: list[Index] = []
        for i in range(len(o)):
            local = self._segment_numpy(o[i], d[i], float(t[i]))
            qs.append(np.full(len(local), i, dtype=np.int64))
            bs.append(local)
        return np.concatenate(qs), np.concatenate(bs)

    def _segment_numpy(self, o: Floats, d: Floats, tmax: float) -> Index:
        found = [self.big]
        if len(self.gridded):
            # clip to the grid's bounds, then list every cell the clipped segment
            # passes: crossings of cell boundaries split it into pieces, each
            # inside one cell (its midpoint names it); the two ends add theirs
            ta, tb = 0.0, tmax
            for k in range(self.dim):
                if d[k] == 0.0:
                    if not self.glo[k] <= o[k] <= self.ghi[k]:
                        ta, tb = 1.0, 0.0
                    continue
                u = (self.glo[k] - o[k]) / d[k]
                v = (self.ghi[k] - o[k]) / d[k]
                ta, tb = max(ta, min(u, v)), min(tb, max(u, v))
            if ta <= tb:
                ts = [np.array([ta, tb])]
                for k in range(self.dim):
                    if d[k] == 0.0:
                        continue
                    a = np.floor((o[k] + ta * d[k]) / self.cell)
                    b = np.floor((o[k] + tb * d[k]) / self.cell)
                    walls = np.arange(min(a, b) + 1, max(a, b) + 1) * self.cell
                    tw = (walls - o[k]) / d[k]
                    ts.append(tw[(tw > ta) & (tw < tb)])
                t = np.sort(np.concatenate(ts))
                t = np.concatenate([t, 0.5 * (t[1:] + t[:-1])])
                pts = o + t[:, None] * d
                cells = np.unique(np.floor(pts / self.cell).astype(np.int64), axis=0)
                keys = np.unique(hash_cells(cells, self.mask))
                _, pos = _expand_ranges(self.starts[keys], self.starts[keys + 1])
                found.append(self.entries[pos])
        cand = np.unique(np.concatenate(found))
        out: Index = cand[segment_meets_boxes(o, d, tmax, self.lo[cand], self.hi[cand])]
        return out

    def arrays(self) -> tuple[Any, ...]:
        """The grid's arrays for compiled walks.

        ``(lo, hi, cell, pad, mask, starts, entries, big, n_gridded, glo, ghi, entry_lo, entry_hi)``.

        Examples
        --------
        >>> import numpy as np
        >>> len(GridIndex(np.zeros((1, 2)), np.ones((1, 2)), np.array([0])).arrays())
        13
        """
        return (self.lo, self.hi, self.cell, self.pad, self.mask, self.starts, self.entries, self.big,
                self.n_gridded, self.glo, self.ghi, *self.entry_boxes())

    def _check(self) -> None:
        """Assert the invariants: every gridded box is in the bucket of every cell it meets."""
        assert self.starts[-1] == len(self.entries)
        in_buckets = np.unique(self.entries[self.entries >= 0])
        assert len(in_buckets) == self.n_gridded and not np.isin(self.big, in_buckets).any()
        for j in in_buckets.tolist():
            c0 = np.floor((self.lo[j] - self.pad) / self.cell).astype(np.int64)
            c1 = np.floor((self.hi[j] + self.pad) / self.cell).astype(np.int64)
            for off in itertools.product(*(range(int(s)) for s in c1 - c0 + 1)):
                key = int(hash_cells((c0 + np.array(off))[None], self.mask)[0])
                assert j in self.entries[self.starts[key]:self.starts[key + 1]]

    def info(self) -> dict[str, Any]:
        """Sizes, for benchmarks and debugging.

        Examples
        --------
        >>> import numpy as np
        >>> GridIndex(np.zeros((1, 2)), np.ones((1, 2)), np.array([0])).info()["big"]
        1
        """
        return {"boxes": self.n, "big": len(self.big), "cell": self.cell, "entries": len(self.entries),
                "buckets": self.mask + 1}
