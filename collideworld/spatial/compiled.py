"""Compiled twin of :mod:`collideworld.spatial.grid` (numba): building buckets, box and segment queries.

The same sets as the numpy implementation; loops over queries with the
per-query state in registers, a ``stamp`` array so a box met in several
cells is reported once, and outputs sized by a counting pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from llvmlite import ir  # type: ignore[import-untyped]
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numpy.typing import NDArray

from .arrays import Floats32

__all__ = ["build_buckets", "changed_rows", "patch_buckets", "query_boxes", "query_segments"]

Index = NDArray[np.int64]
Floats = NDArray[np.float64]


def _prefetch_typing(typingctx: Any, array: Any, row: Any) -> Any:  # pragma: no cover - compiled
    """Typing and code generation of :data:`prefetch`: one ``llvm.prefetch`` of the first byte of ``array[row]``."""
    signature = types.void(array, row)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        made = context.make_array(sig.args[0])(context, builder, args[0])
        stride = builder.extract_value(made.strides, 0)
        offset = builder.mul(context.cast(builder, args[1], sig.args[1], types.intp), stride)
        byte = ir.IntType(8).as_pointer()
        address = builder.gep(builder.bitcast(made.data, byte), [offset])
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [byte, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty,  # type: ignore[no-untyped-call]
                                            "llvm.prefetch.p0")  # (LLVM 14, numba 0.60's, takes it too: tested)
        # read (0), keep in every cache level (3), data cache (1)
        builder.call(fn, [address, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return signature, codegen


#: ``prefetch(array, row)``: ask the CPU to start loading the cache line of ``array[row]`` (inside compiled
#: code only). A hint, with no effect on results; an address past the array is harmless (a prefetch never
#: faults), though the kernels here only pass rows that exist. The batched queries are bound by cache misses
#: (each probe's bucket, then each candidate's rows, at random places of arrays larger than the caches):
#: loading them a few probes ahead lets the misses of several probes overlap instead of following each other
#: (the software pipelining of Chen et al., "Improving Hash Join Performance through Prefetching", ICDE 2004).
prefetch = cast(Callable[[Any, int], None], intrinsic(_prefetch_typing))


@njit(cache=True)
def cell_hash(cx: int, cy: int, cz: int, dim: int, mask: int) -> int:
    h = cx * 73856093 ^ cy * 19349663
    if dim == 3:
        h = h ^ (cz * 83492791)
    return h & mask


@njit(cache=True)
def _build(c0: Index, span: Index, owner: Index, mask: int, dim: int, spare: int) -> tuple[Index, Index]:
    n = c0.shape[0]
    starts = np.zeros(mask + 2, dtype=np.int64)
    for pass_ in range(2):
        if pass_ == 1:
            for k in range(1, mask + 2):  # counts (+ spare room in buckets in use) -> starts
                if starts[k] > 0:
                    starts[k] += spare
                starts[k] += starts[k - 1]
            total = starts[mask + 1]
            entries = np.full(total, -1, dtype=np.int64)
            fill = starts[:-1].copy()
        for i in range(n):
            sz = span[i, 2] if dim == 3 else 1
            for a in range(span[i, 0]):
                for b in range(span[i, 1]):
                    for c in range(sz):
                        cz = c0[i, 2] + c if dim == 3 else 0
                        key = cell_hash(c0[i, 0] + a, c0[i, 1] + b, cz, dim, mask)
                        if pass_ == 0:
                            starts[key + 1] += 1
                        else:
                            entries[fill[key]] = owner[i]
                            fill[key] += 1
    return starts, entries


def build_buckets(c0: Index, span: Index, owner: Index, mask: int, dim: int, spare: int = 0) -> tuple[Index, Index]:
    """``(starts (mask + 2,), entries)``: the CSR buckets of boxes ``owner`` over cells ``c0 .. c0 + span - 1``.

    ``spare``: free entries (-1) after the boxes of every bucket in use, room for :func:`patch_buckets`.

    Examples
    --------
    >>> import numpy as np
    >>> starts, entries = build_buckets(np.array([[0, 0]]), np.array([[1, 2]]), np.array([5]), 15, 2)
    >>> sorted(entries.tolist()), int(starts[-1])
    ([5, 5], 2)
    """
    if not len(owner):
        return np.zeros(mask + 2, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return _build(np.ascontiguousarray(c0), np.ascontiguousarray(span), owner, mask, dim, spare)


@njit(cache=True)
def _cell_range(lo: Floats, hi: Floats, s: int, cell: float, pad: float, dim: int, c0: Index, c1: Index) -> None:
    """The cells row ``s``'s box is registered in (as the build computes them), into ``c0``, ``c1`` (3,)."""
    c0[2] = 0
    c1[2] = 0
    for k in range(dim):
        c0[k] = math.floor((lo[s, k] - pad) / cell)
        c1[k] = math.floor((hi[s, k] + pad) / cell)


@njit(cache=True)
def _unlink(s: int, c0: Index, c1: Index, upto: int, dim: int, mask: int, starts: Index, entries: Index,
            elo: Floats32, ehi: Floats32) -> None:
    """Take row ``s`` out of the buckets of the first ``upto`` cells of ``c0 .. c1`` (once per cell)."""
    count = 0
    for a in range(c0[0], c1[0] + 1):
        for b in range(c0[1], c1[1] + 1):
            for c in range(c0[2], c1[2] + 1):
                if count == upto:
                    return
                count += 1
                key = cell_hash(a, b, c, dim, mask)
                for e in range(starts[key], starts[key + 1]):
                    if entries[e] == s:
                        entries[e] = -1
                        for k in range(dim):
                            elo[e, k] = np.inf
                            ehi[e, k] = -np.inf
                        break


@njit(cache=True)
def _patch(rows: Index, new_lo: Floats, new_hi: Floats, alive: NDArray[np.bool_], was_big: NDArray[np.bool_],
           lo: Floats, hi: Floats, cell: float, pad: float, mask: int, starts: Index, entries: Index, elo: Floats32,
           ehi: Floats32) -> tuple[NDArray[np.bool_], int]:
    dim = lo.shape[1]
    overflow = np.zeros(rows.shape[0], dtype=np.bool_)
    delta = 0
    c0 = np.zeros(3, dtype=np.int64)
    c1 = np.zeros(3, dtype=np.int64)
    for i in range(rows.shape[0]):
        s = rows[i]
        if lo[s, 0] <= hi[s, 0] and not was_big[i]:  # registered in buckets: leave them
            _cell_range(lo, hi, s, cell, pad, dim, c0, c1)
            _unlink(s, c0, c1, np.int64(27), dim, mask, starts, entries, elo, ehi)  # not a literal: one compile
            delta -= 1
        size = 0.0
        for k in range(dim):
            lo[s, k] = new_lo[i, k] if alive[i] else np.inf
            hi[s, k] = new_hi[i, k] if alive[i] else -np.inf
            size = max(size, new_hi[i, k] - new_lo[i, k])
        if not alive[i]:
            continue
        if size > cell:  # larger than a cell: the big list (as the build would put it)
            overflow[i] = True
            continue
        _cell_range(lo, hi, s, cell, pad, dim, c0, c1)
        placed = np.int64(0)  # not the literal 0 (typed so at the _unlink below first): one compile of _unlink
        full = False
        for a in range(c0[0], c1[0] + 1):
            for b in range(c0[1], c1[1] + 1):
                for c in range(c0[2], c1[2] + 1):
                    if full:
                        continue
                    key = cell_hash(a, b, c, dim, mask)
                    free = -1
                    for e in range(starts[key], starts[key + 1]):
                        if entries[e] < 0:
                            free = e
                            break
                    if free < 0:
                        full = True
                        continue
                    entries[free] = s
                    for k in range(dim):  # float32, rounded outwards (GridIndex.entry_boxes)
                        low = np.float32(lo[s, k])
                        elo[free, k] = np.nextafter(low, np.float32(-np.inf)) if low > lo[s, k] else low
                        high = np.float32(hi[s, k])
                        ehi[free, k] = np.nextafter(high, np.float32(np.inf)) if high < hi[s, k] else high
                    placed += 1
        if full:  # no room in some bucket: undo, and the big list takes it
            _unlink(s, c0, c1, placed, dim, mask, starts, entries, elo, ehi)
            overflow[i] = True
        else:
            delta += 1
    return overflow, delta


def patch_buckets(rows: Index, new_lo: Floats, new_hi: Floats, alive: NDArray[np.bool_], was_big: NDArray[np.bool_],
                  lo: Floats, hi: Floats, cell: float, pad: float, mask: int, starts: Index, entries: Index,
                  elo: NDArray[np.float32], ehi: NDArray[np.float32]) -> tuple[NDArray[np.bool_], int]:
    """Move rows between buckets in place: out of the cells of their old box, into those of the new one.

    ``lo``, ``hi`` (the grid's registered boxes) are updated; ``elo``,
    ``ehi`` are the entries' own copies. A row not ``alive`` leaves and gets
    an empty box. ``was_big``: rows on the big list, not in any bucket.

    Returns
    -------
    overflow : ndarray of bool, shape (k,)
        Rows left for the big list: a box larger than a cell, or a bucket
        with no free entry (the row is then in no bucket).
    delta : int
        Change in the number of bucketed rows.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld.spatial.grid import GridIndex
    >>> lo = np.array([[float(i), 0.0] for i in range(40)])
    >>> g = GridIndex(lo, lo + 0.5, np.arange(40), "compiled", spare=1)
    >>> elo, ehi = g.entry_boxes()
    >>> over, delta = patch_buckets(np.array([0]), np.array([[0.0, 0.0]]), np.array([[0.5, 0.0]]),
    ...                             np.array([False]), np.array([False]), g.lo, g.hi, g.cell, g.pad, g.mask,
    ...                             g.starts, g.entries, elo, ehi)
    >>> over.tolist(), delta, int((g.entries == 0).sum())
    ([False], -1, 0)
    """
    return _patch(np.require(rows, np.int64, ["C"]), new_lo, new_hi, alive, was_big, lo, hi, cell, pad,
                  mask, starts, entries, elo, ehi)


@njit(cache=True)
def _changed_rows(alive: NDArray[np.bool_], ident: Index, registered: Index, lo: Floats, hi: Floats,
                  reg_lo: Floats, reg_hi: Floats) -> Index:
    n, dim = lo.shape
    out = np.empty(n, dtype=np.int64)
    k = 0
    for s in range(n):
        if alive[s]:
            changed = registered[s] != ident[s]
            for d in range(dim):
                if lo[s, d] < reg_lo[s, d] or hi[s, d] > reg_hi[s, d]:
                    changed = True
        else:
            changed = registered[s] >= 0
        if changed:
            out[k] = s
            k += 1
    found: Index = out[:k].copy()
    return found


def changed_rows(alive: NDArray[np.bool_], ident: Index, registered: Index, lo: Floats, hi: Floats,
                 reg_lo: Floats, reg_hi: Floats) -> Index:
    """Rows a grid must move: alive and new (``ident`` != ``registered``) or out of their registered box, or gone.

    Parameters
    ----------
    alive : ndarray of bool, shape (N,)
        Rows that should be in the grid now.
    ident, registered : ndarray of int64, shape (N,)
        Who holds each row now, and who held it when it was registered (-1: not registered).
    lo, hi : ndarray, shape (N, D)
        Boxes now.
    reg_lo, reg_hi : ndarray, shape (N, D)
        Boxes the grid holds; a box still inside its registered box needs no move.

    Examples
    --------
    >>> import numpy as np
    >>> box = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    >>> changed_rows(np.array([True, True, False]), np.array([5, 6, 7]), np.array([5, 6, 7]), box, box + 2.0,
    ...              box - 0.5, box + 2.0).tolist()   # rows 0 and 1 still inside their boxes; row 2 gone
    [2]
    """
    rows: Index = _changed_rows(alive, ident, registered, lo, hi, reg_lo, reg_hi)
    return rows


@njit(cache=True)
def _follow(look: Index, alive: NDArray[np.bool_], ident: Index, lo: Floats, hi: Floats, registered: Index,
            slack: float, budget: int, big: Index, in_big: NDArray[np.bool_], reg_lo: Floats, reg_hi: Floats,
            glo: Floats, ghi: Floats, cell: float, pad: float, mask: int, starts: Index, entries: Index,
            elo: Floats32, ehi: Floats32) -> tuple[int, int, Index, Floats, Floats]:
    n, dim = look.shape[0], lo.shape[1]
    at = np.empty(n, dtype=np.int64)  # positions in look of the rows to move
    k = 0
    renewed = 0
    for j in range(n):
        s = look[j]
        if alive[j]:
            changed = registered[s] != ident[j]
            for d in range(dim):
                if lo[j, d] < reg_lo[s, d] or hi[j, d] > reg_hi[s, d]:
                    changed = True
        else:
            changed = registered[s] >= 0
        if changed:
            at[k] = j
            k += 1
            if registered[s] != ident[j]:
                renewed += 1
    blo = np.full(dim, np.inf)
    bhi = np.full(dim, -np.inf)
    if renewed > budget:  # too many new rows for the grid's cells: rebuild (nothing changed here)
        return -1, renewed, big, blo, bhi
    rows = np.empty(k, dtype=np.int64)
    new_lo = np.empty((k, dim))
    new_hi = np.empty((k, dim))
    live = np.empty(k, dtype=np.bool_)
    was_big = np.empty(k, dtype=np.bool_)
    n_out = 0
    for i in range(k):
        j = at[i]
        s = look[j]
        rows[i] = s
        live[i] = alive[j]
        was_big[i] = in_big[s]
        if was_big[i]:
            n_out += 1
        grow = 0.0  # the query index's slack: SLACK of the box's largest side (absent rows stay empty)
        for d in range(dim):
            grow = max(grow, hi[j, d] - lo[j, d])
        grow = slack * grow
        if not np.isfinite(grow) or grow < 0.0:
            grow = 0.0
        for d in range(dim):
            new_lo[i, d] = lo[j, d] - grow
            new_hi[i, d] = hi[j, d] + grow
    overflow, delta = _patch(rows, new_lo, new_hi, live, was_big, reg_lo, reg_hi, cell, pad, mask, starts,
                             entries, elo, ehi)
    n_over = 0
    for i in range(k):
        s = rows[i]
        registered[s] = ident[at[i]] if live[i] else -1
        if overflow[i]:
            n_over += 1
        if live[i]:
            for d in range(dim):
                blo[d] = min(blo[d], new_lo[i, d])
                bhi[d] = max(bhi[d], new_hi[i, d])
                if not overflow[i]:  # the bounds a segment walk clips to hold every gridded box
                    glo[d] = min(glo[d], new_lo[i, d] - pad)
                    ghi[d] = max(ghi[d], new_hi[i, d] + pad)
    if n_out == 0 and n_over == 0:
        return delta, renewed, big, blo, bhi
    # the big list: its rows moved here leave it (they were in no bucket), the overflowing ones join it, in
    # the order GridIndex.patch keeps (the remaining rows, then the new ones)
    for i in range(k):
        if was_big[i]:
            in_big[rows[i]] = False
    out = np.empty(big.shape[0] - n_out + n_over, dtype=np.int64)
    m = 0
    for b in big:
        if in_big[b]:
            out[m] = b
            m += 1
    for i in range(k):
        if overflow[i]:
            in_big[rows[i]] = True
            out[m] = rows[i]
            m += 1
    return delta, renewed, out[:m].copy(), blo, bhi


def follow(look: Index, alive: NDArray[np.bool_], ident: Index, lo: Floats, hi: Floats, registered: Index,
           slack: float, budget: int, big: Index, in_big: NDArray[np.bool_], reg_lo: Floats, reg_hi: Floats,
           glo: Floats, ghi: Floats, cell: float, pad: float, mask: int, starts: Index, entries: Index,
           elo: Floats32, ehi: Floats32) -> tuple[int, int, Index, Floats, Floats]:
    """:func:`changed_rows` and :func:`patch_buckets` in one pass, for rows ``look`` (``alive``.. ``hi``: theirs).

    Each row of ``look`` whose box ``lo, hi`` left the box the grid registered
    for it (or whose ``ident`` is not the one ``registered``, or that is gone)
    is moved to its box grown by ``slack`` of its largest side, and
    ``registered``, the big list (``in_big``, marks by row) and the bounds
    ``glo, ghi`` follow in place. One compiled call where a patch after a busy
    step made some twenty numpy calls (issue 28: the query index refreshed
    inside the step).

    Returns ``(delta, renewed, big, blo, bhi)``: the change in bucketed rows
    (-1 and nothing done when more than ``budget`` rows are new to their
    slots), the count of those, the big list (``big`` itself if unchanged),
    and the bounds of the live rows' new boxes.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld.spatial.grid import GridIndex
    >>> lo = np.array([[float(i), 0.0] for i in range(40)])
    >>> g = GridIndex(lo, lo + 0.5, np.arange(40), "compiled", spare=2)
    >>> reg = np.arange(40)
    >>> new = lo.copy(); new[3] = [20.2, 0.0]    # row 3 moves beside row 20 (a bucket with spare entries)
    >>> elo, ehi = g.entry_boxes()
    >>> delta, renewed, big, blo, bhi = follow(np.arange(40), np.ones(40, bool), np.arange(40), new, new + 0.5, reg,
    ...     0.0, 10, g.big, g.in_big, g.lo, g.hi, g.glo, g.ghi, g.cell, g.pad, g.mask, g.starts, g.entries, elo, ehi)
    >>> delta, renewed, blo.tolist()
    (0, 0, [20.2, 0.0])
    >>> g.query_box(np.array([20.6, 0.0]), np.array([20.65, 0.0])).tolist(), g.query_box(np.array([3.2, 0.0]),
    ...                                                                                 np.array([3.3, 0.0])).tolist()
    ([3], [])
    """
    out: tuple[int, int, Index, Floats, Floats] = _follow(
        look, alive, ident, lo, hi, registered, slack, budget, big, in_big, reg_lo, reg_hi, glo, ghi, cell, pad,
        mask, starts, entries, elo, ehi)
    return out


@njit(cache=True)
def boxes_meet(lo: NDArray[np.floating[Any]], hi: NDArray[np.floating[Any]], j: int, qlo: Floats, qhi: Floats, i: int,
           dim: int) -> bool:
    for k in range(dim):
        if lo[j, k] > qhi[i, k] or qlo[i, k] > hi[j, k]:
            return False
    return True


@njit(cache=True)
def _query_boxes(lo: Floats, hi: Floats, cell: float, mask: int, starts: Index, entries: Index, big: Index,
                 n_gridded: int, qlo: Floats, qhi: Floats, max_cells: int, stamp: Index,
                 base: int) -> tuple[Index, Index]:
    n = lo.shape[0]
    dim = lo.shape[1]
    m = qlo.shape[0]
    counts = np.zeros(m, dtype=np.int64)
    out_q = np.empty(0, dtype=np.int64)
    out_b = np.empty(0, dtype=np.int64)
    c0 = np.zeros(3, dtype=np.int64)
    c1 = np.zeros(3, dtype=np.int64)
    pos = 0
    for pass_ in range(2):
        if pass_ == 1:
            total = 0
            for i in range(m):
                total += counts[i]
            out_q = np.empty(total, dtype=np.int64)
            out_b = np.empty(total, dtype=np.int64)
        for i in range(m):
            # a tag no earlier query or pass used: the stamps never need clearing (O(1) per call, not O(n))
            tag = base + pass_ * m + i
            found = 0
            ncells = 1
            for k in range(dim):
                c0[k] = math.floor(qlo[i, k] / cell)
                c1[k] = math.floor(qhi[i, k] / cell)
                ncells *= c1[k] - c0[k] + 1
            if n_gridded > 0 and ncells <= max_cells:
                for a in range(c0[0], c1[0] + 1):
                    for b in range(c0[1], c1[1] + 1):
                        for c in range(c0[2], c1[2] + 1):
                            key = cell_hash(a, b, c, dim, mask)
                            for e in range(starts[key], starts[key + 1]):
                                j = entries[e]
                                if j >= 0 and stamp[j] != tag and boxes_meet(lo, hi, j, qlo, qhi, i, dim):
                                    stamp[j] = tag
                                    if pass_ == 1:
                                        out_q[pos] = i
                                        out_b[pos] = j
                                        pos += 1
                                    found += 1
                for t in range(big.shape[0]):
                    j = big[t]
                    if boxes_meet(lo, hi, j, qlo, qhi, i, dim):
                        if pass_ == 1:
                            out_q[pos] = i
                            out_b[pos] = j
                            pos += 1
                        found += 1
            else:  # a wide query (or no grid): a scan of every box is cheaper than its cells
                for j in range(n):
                    if boxes_meet(lo, hi, j, qlo, qhi, i, dim):
                        if pass_ == 1:
                            out_q[pos] = i
                            out_b[pos] = j
                            pos += 1
                        found += 1
            counts[i] = found
    return out_q, out_b


def query_boxes(lo: Floats, hi: Floats, cell: float, mask: int, starts: Index, entries: Index, big: Index,
                n_gridded: int, qlo: Floats, qhi: Floats, max_cells: int, stamp: Index,
                base: int) -> tuple[Index, Index]:
    """``(query index, local box index)`` of every box meeting each query box; the twin of the numpy query.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld.spatial.grid import GridIndex
    >>> g = GridIndex(np.array([[0.0, 0.0]]), np.array([[1.0, 1.0]]), np.array([3]), backend="compiled")
    >>> [a.tolist() for a in g.query_boxes_local(np.array([[1.0, 1.0]]), np.array([[2.0, 2.0]]))]
    [[0], [0]]
    """
    return _query_boxes(lo, hi, cell, mask, starts, entries, big, n_gridded, qlo, qhi, max_cells, stamp, base)


@njit(cache=True)
def segment_meets(lo: Floats, hi: Floats, j: int, o: Floats, d: Floats, i: int, tmax: float, dim: int) -> bool:
    t0 = 0.0
    t1 = tmax
    for k in range(dim):
        if d[i, k] == 0.0:
            if o[i, k] < lo[j, k] or o[i, k] > hi[j, k]:
                return False
            continue
        inv = 1.0 / d[i, k]
        ta = (lo[j, k] - o[i, k]) * inv
        tb = (hi[j, k] - o[i, k]) * inv
        t0 = max(t0, min(ta, tb))
        t1 = min(t1, max(ta, tb))
    return t0 <= t1


@njit(cache=True)
def _slab_meets(lo0: float, lo1: float, lo2: float, hi0: float, hi1: float, hi2: float, ox: float, oy: float,
                oz: float, dx: float, dy: float, dz: float, ix: float, iy: float, iz: float, tmax: float,
                dim: int) -> bool:
    """:func:`segment_meets` on scalars, the ray's ``1 / d`` given (``i*``; any value where ``d`` is 0): the same
    arithmetic (it multiplies by the same reciprocal), for a walk that tests many boxes against one ray."""
    t0 = 0.0
    t1 = tmax
    for k in range(dim):
        o_k = ox if k == 0 else (oy if k == 1 else oz)
        lo_k = lo0 if k == 0 else (lo1 if k == 1 else lo2)
        hi_k = hi0 if k == 0 else (hi1 if k == 1 else hi2)
        if (dx if k == 0 else (dy if k == 1 else dz)) == 0.0:
            if o_k < lo_k or o_k > hi_k:
                return False
            continue
        inv = ix if k == 0 else (iy if k == 1 else iz)
        ta = (lo_k - o_k) * inv
        tb = (hi_k - o_k) * inv
        t0 = max(t0, min(ta, tb))
        t1 = min(t1, max(ta, tb))
    return t0 <= t1


@njit(cache=True)
def next_axis(cur: Index, last: Index, tnext: Floats, dim: int) -> int:
    """The axis whose cell wall the ray crosses next, or -1 at the end cell.

    A grid walk (Amanatides and Woo) steps along the axis whose wall comes
    first, never past the end cell: only axes not yet at ``last`` are candidates.
    """
    axis = -1
    best = np.inf
    for k in range(dim):
        if cur[k] != last[k] and tnext[k] <= best:
            best = tnext[k]
            axis = k
    return axis


@njit(cache=True)
def _query_segments(lo: Floats, hi: Floats, cell: float, mask: int, starts: Index, entries: Index, big: Index,
                    n_gridded: int, glo: Floats, ghi: Floats, o: Floats, d: Floats,
                    tmax: Floats, stamp: Index, base: int) -> tuple[Index, Index]:
    dim = lo.shape[1]
    m = o.shape[0]
    counts = np.zeros(m, dtype=np.int64)
    out_q = np.empty(0, dtype=np.int64)
    out_b = np.empty(0, dtype=np.int64)
    cur = np.zeros(3, dtype=np.int64)
    last = np.zeros(3, dtype=np.int64)
    step = np.zeros(3, dtype=np.int64)
    tnext = np.full(3, np.inf)
    tdelta = np.full(3, np.inf)
    pos = 0
    for pass_ in range(2):
        if pass_ == 1:
            total = 0
            for i in range(m):
                total += counts[i]
            out_q = np.empty(total, dtype=np.int64)
            out_b = np.empty(total, dtype=np.int64)
        for i in range(m):
            tag = base + pass_ * m + i
            found = 0
            for t in range(big.shape[0]):
                j = big[t]
                if segment_meets(lo, hi, j, o, d, i, tmax[i], dim):
                    if pass_ == 1:
                        out_q[pos] = i
                        out_b[pos] = j
                        pos += 1
                    found += 1
            # clip the segment to the grid's bounds
            ta = 0.0
            tb = tmax[i]
            for k in range(dim):
                if d[i, k] == 0.0:
                    if o[i, k] < glo[k] or o[i, k] > ghi[k]:
                        tb = -1.0
                    continue
                u = (glo[k] - o[i, k]) / d[i, k]
                v = (ghi[k] - o[i, k]) / d[i, k]
                ta = max(ta, min(u, v))
                tb = min(tb, max(u, v))
            if n_gridded > 0 and ta <= tb:
                # Amanatides-Woo walk from the cell of the entry point to the cell of the exit point
                for k in range(dim):
                    cur[k] = math.floor((o[i, k] + ta * d[i, k]) / cell)
                    last[k] = math.floor((o[i, k] + tb * d[i, k]) / cell)
                    if d[i, k] > 0.0:
                        step[k] = 1
                        tnext[k] = ((cur[k] + 1) * cell - o[i, k]) / d[i, k]
                        tdelta[k] = cell / d[i, k]
                    elif d[i, k] < 0.0:
                        step[k] = -1
                        tnext[k] = (cur[k] * cell - o[i, k]) / d[i, k]
                        tdelta[k] = -cell / d[i, k]
                    else:
                        step[k] = 0
                        tnext[k] = np.inf
                        tdelta[k] = np.inf
                # at most one step per wall between the two end cells, per axis
                budget = 1
                for k in range(dim):
                    budget += abs(last[k] - cur[k]) + 1
                for _ in range(budget):
                    key = cell_hash(cur[0], cur[1], cur[2] if dim == 3 else 0, dim, mask)
                    for e in range(starts[key], starts[key + 1]):
                        j = entries[e]
                        if j >= 0 and stamp[j] != tag and segment_meets(lo, hi, j, o, d, i, tmax[i], dim):
                            stamp[j] = tag
                            if pass_ == 1:
                                out_q[pos] = i
                                out_b[pos] = j
                                pos += 1
                            found += 1
                    axis = next_axis(cur, last, tnext, dim)
                    if axis < 0:
                        break
                    cur[axis] += step[axis]
                    tnext[axis] += tdelta[axis]
            counts[i] = found
    return out_q, out_b


def query_segments(lo: Floats, hi: Floats, cell: float, mask: int, starts: Index, entries: Index, big: Index,
                   n_gridded: int, glo: Floats, ghi: Floats, o: Floats, d: Floats,
                   tmax: Floats, stamp: Index, base: int) -> tuple[Index, Index]:
    """``(segment index, local box index)`` of every box each segment meets; the twin of the numpy walk.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld.spatial.grid import GridIndex
    >>> lo = np.array([[2.0, -1.0]])
    >>> g = GridIndex(lo, lo + 1.0, np.array([3]), backend="compiled")
    >>> [a.tolist() for a in g.query_segments_local(np.zeros((1, 2)), np.array([[1.0, 0.0]]), np.array([9.0]))]
    [[0], [0]]
    """
    return _query_segments(lo, hi, cell, mask, starts, entries, big, n_gridded, glo, ghi, o, d, tmax, stamp, base)


# -- first hits of rays against balls and boxes, walking the grid --------------------------
#
# The arithmetic of geometry/raycast.py's raycast_ball and raycast_box (the
# numpy kernels, which are the reference), one row at a time, so that a walk
# can stop at the first cell past which nothing can be nearer.

_BALL = 1
_BOX = 2
#: kind codes of simple polygons and capsules (segments): cast inside the first-hit walk too (issue 28)
_POLYGON = 3
_CAPSULE = 4
#: 3D hulls: cast inside the walk by their local face planes (:func:`_ray_hull`)
_HULL = 5
_COMPOUND = 6


@njit(cache=True)
def _root(dist_origin: float, b: float, miss_by: float, rad: float) -> float:
    c_term = (dist_origin - rad) * (dist_origin + rad)
    half_chord = math.sqrt(max((rad - miss_by) * (rad + miss_by), 0.0))
    denom = -b + half_chord
    safe = denom if denom > 0 else 1.0
    return min(c_term / safe, -b)


# The casts take and return scalars, not arrays: a compiled function given an array takes a
# reference to it on entry and drops it on return (two atomic updates of a counter each array,
# each call), and a row of an array passed on is a view made and counted the same way. With
# the arrays, the cast of one ray against one box cost ~0.5 us in a walk (10,000 rays of 5
# units among 100,000 boxes: 8.7 ms, against 1.7 ms for the same walk with the cast written
# out); with scalars there is nothing to count, and the compiler inlines the casts.
# 2D: the third components are given and ignored (callers read index ``dim - 1`` for them).

@njit(cache=True)
def _ray_ball(ox: float, oy: float, oz: float, dx: float, dy: float, dz: float, maxd: float, cx: float, cy: float,
              cz: float, r: float, rel: float, floor: float, dim: int) -> tuple[float, float, float, float]:
    """``(distance, normal)`` of the ray against the ball (distance inf: a miss). raycast_ball's arithmetic."""
    three = dim == 3
    mo = max(max(0.0, abs(ox)), abs(oy))
    mc = max(max(0.0, abs(cx)), abs(cy))
    if three:
        mo = max(mo, abs(oz))
        mc = max(mc, abs(cz))
    tol = rel * max(floor, max(mo, mc + r))
    px, py, pz = ox - cx, oy - cy, oz - cz
    b = 0.0 + px * dx + py * dy
    mm = 0.0 + px * px + py * py
    if three:
        b += pz * dz
        mm += pz * pz
    dist_origin = math.sqrt(mm)
    x, y, z = px - b * dx, py - b * dy, pz - b * dz
    cc = 0.0 + x * x + y * y
    if three:
        cc += z * z
    miss_by = math.sqrt(cc)
    inside = dist_origin <= r + tol
    rg = r + tol
    t_grown = _root(dist_origin, b, miss_by, rg)
    hit = inside or (b < 0 and miss_by <= rg and t_grown <= maxd)
    if not hit:
        return np.inf, 0.0, 0.0, 0.0
    if inside:
        return 0.0, -dx + 0.0, -dy + 0.0, -dz + 0.0
    entry = _root(dist_origin, b, miss_by, r) if miss_by <= r else -b
    nx, ny, nz = px + entry * dx, py + entry * dy, pz + entry * dz
    length2 = 0.0 + nx * nx + ny * ny
    if three:
        length2 += nz * nz
    length = math.sqrt(length2)
    if length > 0:
        nx, ny, nz = nx / length + 0.0, ny / length + 0.0, nz / length + 0.0
    else:
        nx, ny, nz = -dx + 0.0, -dy + 0.0, -dz + 0.0
    return min(max(entry, 0.0), maxd), nx, ny, nz


@njit(cache=True, inline="always")
def face_clip(signed: float, rate: float, parallel_rate: float) -> tuple[float, float]:
    """``(lower, upper)`` bound on ``t`` of one face ``signed + t rate <= 0`` (Cyrus-Beck; Ericson, RTCD 5.3.8).

    A face with ``|rate| <= parallel_rate`` is parallel to the ray: decided
    from the origin alone (no bound, or empty), never by dividing rounding
    noise (``geometry.raycast.PARALLEL_RATE``). The one clip of the box,
    polygon and hull ray rows (:func:`_entry`, :func:`_polygon_entry`,
    :func:`_hull_entry`).
    """
    if abs(rate) <= parallel_rate:
        return (np.inf, -np.inf) if signed > 0 else (-np.inf, np.inf)
    if rate < 0:
        return -signed / rate, np.inf
    return -np.inf, -signed / rate


@njit(cache=True)
def _entry(signed: tuple[float, ...], rate: tuple[float, ...], shift: float, nf: int,
           parallel_rate: float) -> tuple[float, float, int]:
    """``(entry, exit, face)`` of the ray through faces ``signed - shift <= 0`` (slab clipping)."""
    lower_best = -np.inf
    face = 0
    upper = np.inf
    for k in range(nf):
        s = signed[k] - shift
        rt = rate[k]
        lo_k, hi_k = face_clip(s, rt, parallel_rate)
        if k == 0 or lo_k > lower_best:
            lower_best = lo_k
            face = k
        upper = min(upper, hi_k)
    return lower_best, upper, face


@njit(cache=True)
def _ray_box(ox: float, oy: float, oz: float, dx: float, dy: float, dz: float, maxd: float, cx: float, cy: float,
             cz: float, r00: float, r01: float, r02: float, r10: float, r11: float, r12: float, r20: float,
             r21: float, r22: float, hx: float, hy: float, hz: float, rel: float, floor: float,
             parallel_rate: float, dim: int) -> tuple[float, float, float, float]:
    """``(distance, normal)`` of the ray against the oriented box (inf: a miss). raycast_box's arithmetic.

    ``rIJ``: the rotation's row I, column J (columns are the box axes).
    """
    three = dim == 3
    mo = max(max(0.0, abs(ox)), abs(oy))
    mc = max(max(0.0, abs(cx)), abs(cy))
    mh = max(max(0.0, abs(hx)), abs(hy))
    if three:
        mo = max(mo, abs(oz))
        mc = max(mc, abs(cz))
        mh = max(mh, abs(hz))
    tol = rel * max(floor, max(mo, mc + mh))
    px, py, pz = ox - cx, oy - cy, oz - cz
    # R^T (o - c) and R^T d, summed from 0.0 in row order
    l0 = 0.0 + r00 * px + r10 * py
    l1 = 0.0 + r01 * px + r11 * py
    e0 = 0.0 + r00 * dx + r10 * dy
    e1 = 0.0 + r01 * dx + r11 * dy
    if three:
        l0 += r20 * pz
        l1 += r21 * pz
        l2 = 0.0 + r02 * px + r12 * py + r22 * pz
        e0 += r20 * dz
        e1 += r21 * dz
        e2 = 0.0 + r02 * dx + r12 * dy + r22 * dz
        signed = (l0 - hx, l1 - hy, l2 - hz, -l0 - hx, -l1 - hy, -l2 - hz)
        rate = (e0, e1, e2, -e0, -e1, -e2)
    else:
        signed = (l0 - hx, l1 - hy, -l0 - hx, -l1 - hy, 0.0, 0.0)
        rate = (e0, e1, -e0, -e1, 0.0, 0.0)
    nf = 2 * dim
    inside = True
    for k in range(nf):
        if signed[k] > tol:
            inside = False
    lo, hi, face = _entry(signed, rate, 0.0, nf, parallel_rate)
    lo_g, hi_g, face_g = _entry(signed, rate, tol, nf, parallel_rate)
    hit = inside or (lo_g <= hi_g and hi_g >= 0.0 and lo_g <= maxd and math.isfinite(lo_g))
    if not hit:
        return np.inf, 0.0, 0.0, 0.0
    if inside:
        return 0.0, -dx + 0.0, -dy + 0.0, -dz + 0.0
    if not lo <= hi:
        lo = lo_g
        face = face_g
    axis = face % dim
    sign = 1.0 if face < dim else -1.0
    # column ``axis`` of the rotation
    ax = r00 if axis == 0 else (r01 if axis == 1 else r02)
    ay = r10 if axis == 0 else (r11 if axis == 1 else r12)
    az = r20 if axis == 0 else (r21 if axis == 1 else r22)
    return min(max(lo, 0.0), maxd), sign * ax + 0.0, sign * ay + 0.0, sign * az + 0.0


@njit(cache=True, inline="always")
def ray_slot(j: int, ox: float, oy: float, oz: float, dx: float, dy: float, dz: float, maxd: float, kind: Index,
              center: Floats, rot: Floats, half: Floats, radius: Floats, rel: float, floor: float,
              parallel_rate: float) -> tuple[float, float, float, float]:
    """``(distance, normal)`` of the ray against row ``j`` (kind 1 ball, else box): its columns read as scalars."""
    dim = center.shape[1]
    z = dim - 1  # 2D: index 1 again, read and ignored
    if kind[j] == _BALL:
        return _ray_ball(ox, oy, oz, dx, dy, dz, maxd, center[j, 0], center[j, 1], center[j, z], radius[j],
                         rel, floor, dim)
    return _ray_box(ox, oy, oz, dx, dy, dz, maxd, center[j, 0], center[j, 1], center[j, z],
                    rot[j, 0, 0], rot[j, 0, 1], rot[j, 0, z], rot[j, 1, 0], rot[j, 1, 1], rot[j, 1, z],
                    rot[j, z, 0], rot[j, z, 1], rot[j, z, z], half[j, 0], half[j, 1], half[j, z],
                    rel, floor, parallel_rate, dim)


#: how many rays ahead :func:`_first_hits` loads the buckets of their first cells (see :data:`prefetch`)
_AHEAD = 8
#: rows of its ring of cells to load (more than 2 _AHEAD)
_RING = 32


@njit(cache=True)
def _first_keys(ox: float, oy: float, oz: float, dx: float, dy: float, dz: float, cell: float, mask: int,
                dim: int) -> tuple[int, int]:
    """The bucket keys of the first two cells a ray is likely to walk, for loading them ahead (a hint).

    Cheap rather than exact: the cell of the origin (a ray starting outside
    the grid walks others), and its neighbour across the wall the ray meets
    first. Scalars in and out (see the casts above: nothing to count).
    """
    scale = 1.0 / cell
    cx = math.floor(ox * scale)
    cy = math.floor(oy * scale)
    cz = math.floor(oz * scale) if dim == 3 else 0
    first = cell_hash(cx, cy, cz, dim, mask)
    nearest = np.inf
    axis = -1
    for k in range(dim):
        dk = dx if k == 0 else (dy if k == 1 else dz)
        if dk != 0.0:
            c = cx if k == 0 else (cy if k == 1 else cz)
            wall = (c + 1) * cell if dk > 0.0 else c * cell
            t = (wall - (ox if k == 0 else (oy if k == 1 else oz))) / dk
            if t < nearest:
                nearest = t
                axis = k
    towards = dx if axis <= 0 else (dy if axis == 1 else dz)
    step = 1 if towards > 0.0 else -1
    if axis <= 0:
        cx += step
    elif axis == 1:
        cy += step
    else:
        cz += step
    return first, cell_hash(cx, cy, cz, dim, mask)


@njit(cache=True)
def _ray_more(j: int, ox: float, oy: float, oz: float, dx: float, dy: float, dz: float, maxd: float, kind: Index,
              center: Floats, rot: Floats, half: Floats, radius: Floats, simple: NDArray[np.bool_], ends: Floats,
              verts: Floats, part_slots: Index, parts_at: Index, n_parts: Index, hull_of: Index, hnrm: Floats,
              hoff: Floats, hreach: Floats, rel: float, floor: float, parallel_rate: float, pv: Floats,
              signed: Floats, rate: Floats) -> tuple[float, float, float, float]:
    """``(distance, normal)`` of the ray against row ``j``, a capsule, a simple polygon, a 3D hull or a compound
    of balls, boxes, capsules, simple polygons and hulls (a world's concave polygon is one); distance -1: another
    kind.

    The arithmetic of the rows ``cast_left`` runs after the walk (:func:`cast_capsule_rows` on the world end
    points in ``ends[j]``, ``[p0, p1]``; :func:`cast_polygon_rows` on the posed vertices ``verts[j]``;
    :func:`cast_hull_rows` on the hull table's row ``hull_of[j]`` (no table given: ``hull_of`` empty);
    a compound's entry: its nearest part's, the first part in part order on a tie), one row.
    """
    dim = ends.shape[1] // 2
    z = dim - 1
    first = -1
    count = 1
    if kind[j] == _COMPOUND:
        first = parts_at[j]
        count = n_parts[j]
    bt = np.inf
    bx = by = bz = 0.0
    for p in range(count):
        u = j if first < 0 else part_slots[first + p]
        ku = kind[u]
        if first >= 0 and (ku == _BALL or ku == _BOX):
            t, nx, ny, nz = ray_slot(u, ox, oy, oz, dx, dy, dz, maxd, kind, center, rot, half, radius, rel, floor,
                                     parallel_rate)
        elif ku == _CAPSULE:
            t, nx, ny, nz = _ray_capsule(ox, oy, oz, dx, dy, dz, maxd, ends[u, 0], ends[u, 1], ends[u, z],
                                         ends[u, dim], ends[u, dim + 1], ends[u, dim + z], radius[u], rel, floor,
                                         dim)
        elif ku == _POLYGON and dim == 2 and simple[u]:
            t, nx, ny = _ray_polygon(verts, u, ox, oy, dx, dy, maxd, rel, floor, parallel_rate, pv)
            nz = 0.0
        elif ku == _HULL and dim == 3 and u < hull_of.shape[0]:
            h = hull_of[u]
            t, nx, ny, nz = _ray_hull(u, h, ox, oy, oz, dx, dy, dz, maxd, center, rot, hnrm, hoff, hreach[h], rel,
                                      floor, parallel_rate, signed, rate)
        else:
            return -1.0, 0.0, 0.0, 0.0
        if t < bt:
            bt, bx, by, bz = t, nx, ny, nz
    return bt, bx, by, bz


# nogil: a batch may be split over Python threads (threads.run_split), each range with its own stamps
@njit(cache=True, nogil=True)
def _first_hits(lo: Floats, hi: Floats, cell: float, pad: float, mask: int, starts: Index, entries: Index,
                big: Index, n_gridded: int, glo: Floats, ghi: Floats, elo: Floats32, ehi: Floats32, kind: Index,
                center: Floats, rot: Floats,
                half: Floats, radius: Floats, serial: Index, simple: NDArray[np.bool_], ends: Floats, verts: Floats,
                part_slots: Index, parts_at: Index, n_parts: Index, planes: Index, plane_normal: Floats,
                plane_offset: Floats, hull_of: Index, hnrm: Floats, hoff: Floats, hreach: Floats,
                passes: NDArray[np.bool_], o: Floats, d: Floats,
                maxd_of: Floats, rel: float, floor: float, parallel_rate: float, stamp: Index,
                base: int) -> tuple[Index, Floats, Floats, Index, Index]:
    dim = lo.shape[1]
    pv = np.empty((1, verts.shape[1], 2))  # (scratch of _ray_polygon)
    signed = np.empty(hnrm.shape[1])  # (scratch of _ray_hull)
    rate = np.empty(hnrm.shape[1])
    # bodies of other kinds than balls and boxes whose box a ray meets: (ray, local index) pairs for the caller
    other_ray = np.empty(16, dtype=np.int64)
    other_j = np.empty(16, dtype=np.int64)
    n_other = 0
    z = dim - 1  # 2D: the third components read at index 1 again, and ignored
    m = o.shape[0]
    best_j = np.full(m, -1, dtype=np.int64)
    best_t = np.full(m, np.inf)
    best_n = np.zeros((m, dim))
    cur = np.zeros(3, dtype=np.int64)
    last = np.zeros(3, dtype=np.int64)
    step = np.zeros(3, dtype=np.int64)
    tnext = np.full(3, np.inf)
    tdelta = np.full(3, np.inf)
    ring = np.zeros((_RING, 2), dtype=np.int64)  # the first two cells of the rays ahead (see _first_keys)
    for i in range(m):
        # The rays ahead: the bucket bounds of the first cells of the ray 2 AHEAD on, then the buckets
        # (entries and their boxes, first and last lines) of the ray AHEAD on. Written out, not in
        # helpers: a helper given the arrays counts references to them (atomic updates, and on
        # several threads, cache lines passed between cores).
        ahead = i + 2 * _AHEAD
        if n_gridded > 0 and ahead < m:
            k0, k1 = _first_keys(o[ahead, 0], o[ahead, 1], o[ahead, z], d[ahead, 0], d[ahead, 1], d[ahead, z],
                                 cell, mask, dim)
            ring[ahead % _RING, 0] = k0
            ring[ahead % _RING, 1] = k1
            prefetch(starts, k0)
            prefetch(starts, k1)
        if n_gridded > 0 and i + _AHEAD < m:
            for u in range(2):
                key = ring[(i + _AHEAD) % _RING, u]
                e0 = starts[key]
                e1 = starts[key + 1] - 1
                if e1 >= e0:
                    prefetch(entries, e0)
                    prefetch(entries, e1)
                    prefetch(elo, e0)
                    prefetch(elo, e1)
                    prefetch(ehi, e0)
                    prefetch(ehi, e1)
        tag = base + i
        ox, oy, oz = o[i, 0], o[i, 1], o[i, z]
        dx, dy, dz = d[i, 0], d[i, 1], d[i, z]
        ix = 1.0 / dx if dx != 0.0 else 0.0
        iy = 1.0 / dy if dy != 0.0 else 0.0
        iz = 1.0 / dz if dz != 0.0 else 0.0
        bj = -1
        bt = np.inf
        bx = by = bz = 0.0
        maxd = maxd_of[i]
        # the half-spaces first (they are in no cell): a hit on one bounds the walk like any other
        for t in range(planes.shape[0]):
            j = planes[t]
            if passes[j]:
                dist, nx, ny, nz = ray_halfspace(ox, oy, oz, dx, dy, dz, maxd, plane_normal[j, 0], plane_normal[j, 1],
                                                 plane_normal[j, z], plane_offset[j], rel, floor, dim)
                if dist < bt or (dist == bt and dist < np.inf and serial[j] < serial[bj]):
                    bt, bj, bx, by, bz = dist, j, nx, ny, nz
        for t in range(big.shape[0]):
            j = big[t]
            if passes[j] and kind[j] > _BOX:
                if not segment_meets(lo, hi, j, o, d, i, maxd, dim):  # (the walk's cells test their boxes too)
                    continue
                dist, nx, ny, nz = _ray_more(j, ox, oy, oz, dx, dy, dz, maxd, kind, center, rot, half, radius, simple,
                                             ends, verts, part_slots, parts_at, n_parts, hull_of, hnrm, hoff, hreach,
                                             rel, floor, parallel_rate, pv, signed, rate)
                if dist < 0.0:  # a kind the walk does not cast
                    if n_other == other_ray.shape[0]:
                        other_ray = _grow(other_ray, n_other)
                        other_j = _grow(other_j, n_other)
                    other_ray[n_other] = i
                    other_j[n_other] = j
                    n_other += 1
                elif dist < bt or (dist == bt and dist < np.inf and serial[j] < serial[bj]):
                    bt, bj, bx, by, bz = dist, j, nx, ny, nz
            elif passes[j]:
                dist, nx, ny, nz = ray_slot(j, ox, oy, oz, dx, dy, dz, maxd, kind, center, rot, half, radius, rel,
                                             floor, parallel_rate)
                if dist < bt or (dist == bt and dist < np.inf and serial[j] < serial[bj]):
                    bt, bj, bx, by, bz = dist, j, nx, ny, nz
        ta = 0.0
        tb = maxd
        for k in range(dim):
            if d[i, k] == 0.0:
                if o[i, k] < glo[k] or o[i, k] > ghi[k]:
                    tb = -1.0
                continue
            u = (glo[k] - o[i, k]) / d[i, k]
            v = (ghi[k] - o[i, k]) / d[i, k]
            ta = max(ta, min(u, v))
            tb = min(tb, max(u, v))
        if n_gridded > 0 and ta <= tb:
            for k in range(dim):
                cur[k] = math.floor((o[i, k] + ta * d[i, k]) / cell)
                last[k] = math.floor((o[i, k] + tb * d[i, k]) / cell)
                if d[i, k] > 0.0:
                    step[k] = 1
                    tnext[k] = ((cur[k] + 1) * cell - o[i, k]) / d[i, k]
                    tdelta[k] = cell / d[i, k]
                elif d[i, k] < 0.0:
                    step[k] = -1
                    tnext[k] = (cur[k] * cell - o[i, k]) / d[i, k]
                    tdelta[k] = -cell / d[i, k]
                else:
                    step[k] = 0
                    tnext[k] = np.inf
                    tdelta[k] = np.inf
            budget = 1
            for k in range(dim):
                budget += abs(last[k] - cur[k]) + 1
            for _ in range(budget):
                key = cell_hash(cur[0], cur[1], cur[2] if dim == 3 else 0, dim, mask)
                for e in range(starts[key], starts[key + 1]):
                    # a free entry (-1) first: its empty box passes the slab test when no direction component
                    # is 0 (inf - o and -inf - o bound the whole line), and a third of the entries of a grid
                    # with patch room are free. Then the entry's own box (read in a row), then the body
                    j = entries[e]
                    if j < 0 or not _slab_meets(elo[e, 0], elo[e, 1], elo[e, z], ehi[e, 0], ehi[e, 1], ehi[e, z], ox,
                                                oy, oz, dx, dy, dz, ix, iy, iz, min(maxd, bt), dim):
                        continue
                    if stamp[j] == tag or not passes[j]:
                        continue
                    stamp[j] = tag
                    if kind[j] > _BOX:
                        # capsules, simple polygons, hulls and compounds of them cast here, so their hits stop the
                        # walk too (issue 28)
                        dist, nx, ny, nz = _ray_more(j, ox, oy, oz, dx, dy, dz, maxd, kind, center, rot, half,
                                                     radius, simple, ends, verts, part_slots, parts_at, n_parts,
                                                     hull_of, hnrm, hoff, hreach, rel, floor, parallel_rate, pv,
                                                     signed, rate)
                        if dist < 0.0:
                            # left to the caller; a nearer hit of it lies in a walked cell (the stop below is sound)
                            if n_other == other_ray.shape[0]:
                                other_ray = _grow(other_ray, n_other)
                                other_j = _grow(other_j, n_other)
                            other_ray[n_other] = i
                            other_j[n_other] = j
                            n_other += 1
                            continue
                    else:
                        dist, nx, ny, nz = ray_slot(j, ox, oy, oz, dx, dy, dz, maxd, kind, center, rot, half, radius,
                                                     rel, floor, parallel_rate)
                    if dist < bt or (dist == bt and dist < np.inf and serial[j] < serial[bj]):
                        bt, bj, bx, by, bz = dist, j, nx, ny, nz
                axis = next_axis(cur, last, tnext, dim)
                if axis < 0:
                    break
                exit_t = tnext[axis]
                # everything the ray meets before leaving this cell lies in the cells
                # walked so far (up to the registration pad): a hit that near is final
                if bt + pad < exit_t:
                    break
                cur[axis] += step[axis]
                tnext[axis] += tdelta[axis]
        best_j[i] = bj
        best_t[i] = bt
        best_n[i, 0] = bx
        best_n[i, 1] = by
        if dim == 3:
            best_n[i, 2] = bz
    return best_j, best_t, best_n, other_ray[:n_other], other_j[:n_other]


@njit(cache=True)
def _grow(arr: Index, n: int) -> Index:
    out = np.empty(2 * arr.shape[0], dtype=np.int64)
    for k in range(n):  # not out[:n] = arr[:n]: see compiled.queries._grown
        out[k] = arr[k]
    return out


def first_hits(grid_arrays: tuple[Any, ...], bodies: tuple[Any, ...], passes: NDArray[np.bool_], o: Floats,
               d: Floats, maxd: float | Floats, stamp: Index,
               base: int, hulls: tuple[Any, ...] | None = None) -> tuple[Index, Floats, Floats, Index, Index]:
    """The nearest body each ray meets, walking the grid and stopping at the first cell past the best hit.

    Balls, boxes, capsules (segments), simple polygons, 3D hulls (when
    ``hulls`` is given: ``(hull, normals, offsets, reach)``, the store's hull
    row by local index and its :class:`~collideworld.bodies.HullTable`'s
    local face planes and reach) and compounds of them are cast in the walk,
    and half-spaces before it. Bodies of other kinds whose box a ray meets are not cast
    here: they come back as ``(ray, local)`` pairs, for the caller to cast
    and compare with the ray's best. A nearer hit on one of them lies in a
    cell the walk passed, so the walk's stop stays sound. ``maxd``: one
    limit for all rays, or one per ray.

    ``grid_arrays`` are a :class:`~collideworld.spatial.grid.GridIndex`'s
    ``(lo, hi, cell, pad, mask, starts, entries, big, n_gridded, glo, ghi, entry_lo, entry_hi)``;
    ``bodies`` the boxed bodies' ``(kind, center, rotation, half, radius,
    serial, simple, ends, verts, part_slots, parts_at, n_parts)`` by local index (kind 1 ball, 2 box, 3
    polygon, cast when ``simple``, from its posed vertices ``verts`` (L, K, 2),
    4 capsule, from its world end points ``ends`` (L, 2 D), ``[p0, p1]``, 6
    compound, by its parts ``part_slots[parts_at[j]:parts_at[j] + n_parts[j]]``,
    local indices too), then ``planes`` (the half-spaces' local indices, in
    no cell: cast for every ray, by ``plane_normal``, ``plane_offset``);
    ``passes`` the filter.

    Returns
    -------
    local : ndarray of int64, shape (M,)
        Local index of the body hit, -1 for none; ties go to the lower serial.
    distance : ndarray of float64, shape (M,)
    normal : ndarray of float64, shape (M, D)
    other_ray, other_local : ndarray of int64, shape (K,)
        The rays and bodies of other kinds left to the caller.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld.spatial.grid import GridIndex
    >>> c = np.array([[5.0, 0.0]])
    >>> g = GridIndex(c - 1, c + 1, np.array([0]), backend="compiled")
    >>> bodies = (np.array([1]), c, np.eye(2)[None], np.zeros((1, 2)), np.array([1.0]), np.array([0]),
    ...           np.zeros(1, dtype=bool), np.zeros((1, 4)), np.zeros((1, 8, 2)), np.zeros(0, dtype=np.int64),
    ...           np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64),
    ...           np.zeros((1, 2)), np.zeros(1))
    >>> j, t, n, _, _ = first_hits(g.arrays(), bodies, np.array([True]), np.zeros((1, 2)), np.array([[1.0, 0.0]]),
    ...                            np.inf, g.stamp, g.take_tags(1))
    >>> j.tolist(), t.tolist(), n.tolist()
    ([0], [4.0], [[-1.0, 0.0]])
    """
    from ..geometry.compiled.kernel_support import touch_rule
    from ..geometry.raycast import PARALLEL_RATE

    rel, floor = touch_rule()
    limits = np.full(len(o), maxd) if np.ndim(maxd) == 0 else np.ascontiguousarray(maxd, dtype=np.float64)
    return _first_hits(*grid_arrays, *bodies, *(hulls or _NO_HULLS), passes, o, d,  # type: ignore[call-arg]
                       limits, rel, floor, PARALLEL_RATE, stamp, base)


#: no hull table: the walk leaves hulls to the caller (an empty ``hull`` column: no row has one)
_NO_HULLS = (np.zeros(0, dtype=np.int64), np.zeros((1, 1, 3)), np.zeros((1, 1)), np.zeros(1))


@njit(cache=True)
def _cast_pairs(slots: Index, o: Floats, d: Floats, ray: Index, maxd: Floats, kind: Index, center: Floats,
                rot: Floats, half: Floats, radius: Floats, rel: float, floor: float,
                parallel_rate: float) -> tuple[Floats, Floats]:
    dim = o.shape[1]
    z = dim - 1
    n = slots.shape[0]
    dist = np.empty(n)
    normal = np.zeros((n, dim))
    for r in range(n):
        i = ray[r]
        t, nx, ny, nz = ray_slot(slots[r], o[i, 0], o[i, 1], o[i, z], d[i, 0], d[i, 1], d[i, z], maxd[i], kind,
                                  center, rot, half, radius, rel, floor, parallel_rate)
        dist[r] = t
        if t < np.inf:
            normal[r, 0] = nx
            normal[r, 1] = ny
            if dim == 3:
                normal[r, 2] = nz
    return dist, normal


def cast_pairs(slots: Index, bodies: tuple[Any, ...], o: Floats, d: Floats, ray: Index,
               maxd: Floats) -> tuple[Floats, Floats]:
    """Ray ``ray[k]`` (rows of ``o``, ``d``, limit ``maxd``) against ball or box ``slots[k]`` (rows of ``bodies``).

    Each pair's ray against its ball or box (``ray_slot``): distances (inf: miss) and normals, one row per pair.

    Examples
    --------
    >>> import numpy as np
    >>> c = np.array([[5.0, 0.0]])
    >>> bodies = (np.array([1]), c, np.eye(2)[None], np.zeros((1, 2)), np.ones(1), np.array([0]))
    >>> o, d = np.array([[0.0, 0.0], [5.0, 9.0]]), np.array([[1.0, 0.0], [0.0, -1.0]])
    >>> dist, normal = cast_pairs(np.array([0, 0]), bodies, o, d, np.array([0, 1]), np.array([np.inf, 5.0]))
    >>> dist.tolist(), normal.tolist()
    ([4.0, inf], [[-1.0, 0.0], [0.0, 0.0]])
    """
    from ..geometry.compiled.kernel_support import touch_rule
    from ..geometry.raycast import PARALLEL_RATE

    rel, floor = touch_rule()
    kind, center, rot, half, radius, _ = bodies
    return _cast_pairs(slots, o, d, ray, np.ascontiguousarray(maxd, dtype=np.float64), kind, center, rot, half,
                       radius, rel, floor, PARALLEL_RATE)


@njit(cache=True)
def _ray_capsule(ox: float, oy: float, oz: float, dx: float, dy: float, dz: float, maxd: float, ax: float,
                 ay: float, az: float, bx: float, by: float, bz: float, r: float, rel: float, floor: float,
                 dim: int) -> tuple[float, float, float, float]:
    """``(distance, normal)`` of the ray against the capsule ``a``-``b`` of radius ``r`` (inf: a miss).

    raycast_capsule's arithmetic, one row: the earliest entry into either
    end ball (:func:`_ray_ball`) or the side (the quadratic across the axis,
    accepted where its axial coordinate lies on the segment).
    """
    three = dim == 3
    t0, n0x, n0y, n0z = _ray_ball(ox, oy, oz, dx, dy, dz, maxd, ax, ay, az, r, rel, floor, dim)
    t1, n1x, n1y, n1z = _ray_ball(ox, oy, oz, dx, dy, dz, maxd, bx, by, bz, r, rel, floor, dim)
    mo = max(max(0.0, abs(ox)), abs(oy))
    ma = max(max(0.0, abs(ax)), abs(ay))
    mb = max(max(0.0, abs(bx)), abs(by))
    if three:
        mo = max(mo, abs(oz))
        ma = max(ma, abs(az))
        mb = max(mb, abs(bz))
    tol = rel * max(floor, max(mo, max(ma, mb) + r))
    ux, uy, uz = bx - ax, by - ay, (bz - az) if three else 0.0
    length = math.sqrt(0.0 + ux * ux + uy * uy + uz * uz)
    has_axis = length > 0
    scale = length if has_axis else 1.0
    ux, uy, uz = ux / scale, uy / scale, uz / scale
    mx, my, mz = ox - ax, oy - ay, (oz - az) if three else 0.0
    ez = dz if three else 0.0
    m_along = 0.0 + mx * ux + my * uy + mz * uz
    d_along = 0.0 + ux * dx + uy * dy + uz * ez
    mdx, mdy, mdz = mx - m_along * ux, my - m_along * uy, mz - m_along * uz
    ddx, ddy, ddz = dx - d_along * ux, dy - d_along * uy, ez - d_along * uz
    rate = 0.0 + ddx * ddx + ddy * ddy + ddz * ddz
    moving = rate > 0
    safe = rate if moving else 1.0
    t_close = -(0.0 + mdx * ddx + mdy * ddy + mdz * ddz) / safe
    cx, cy, cz = mdx + t_close * ddx, mdy + t_close * ddy, mdz + t_close * ddz
    miss_by = math.sqrt(0.0 + cx * cx + cy * cy + cz * cz)
    r_grown = r + tol
    half_chord = math.sqrt(max((r - miss_by) * (r + miss_by), 0.0) / safe)
    entry = t_close - half_chord if miss_by <= r else t_close
    along = m_along + entry * d_along
    on_side = (has_axis and moving and miss_by <= r_grown and entry >= 0.0 and entry <= maxd
               and along >= -tol and along <= length + tol)
    side_dist = entry if on_side else np.inf
    at = entry if on_side else 0.0
    rx, ry, rz = mdx + at * ddx, mdy + at * ddy, mdz + at * ddz
    rl = math.sqrt(0.0 + rx * rx + ry * ry + rz * rz)
    if rl > 0:
        snx, sny, snz = rx / rl, ry / rl, rz / rl
    else:
        snx, sny, snz = -dx, -dy, -ez
    thin = r <= tol
    if thin and moving:
        root = math.sqrt(safe)
        snx, sny, snz = -ddx / root, -ddy / root, -ddz / root
    across = math.sqrt(0.0 + mdx * mdx + mdy * mdy + mdz * mdz)
    inside = t0 == 0.0 or t1 == 0.0
    inside = inside or (has_axis and across <= r_grown and m_along >= -tol and m_along <= length + tol)
    if inside:
        return 0.0, -dx + 0.0, -dy + 0.0, -ez + 0.0
    dist = min(min(t0, t1), side_dist)
    if not dist < np.inf:
        return np.inf, 0.0, 0.0, 0.0
    if dist == side_dist:
        nx, ny, nz = snx, sny, snz
    elif thin:
        nx, ny, nz = -dx, -dy, -ez
    elif dist == t0:
        nx, ny, nz = n0x, n0y, n0z
    else:
        nx, ny, nz = n1x, n1y, n1z
    return min(max(dist, 0.0), maxd), nx + 0.0, ny + 0.0, nz + 0.0


@njit(cache=True)
def _cast_capsule_rows(p0: Floats, p1: Floats, radius: Floats, o: Floats, d: Floats, maxd: Floats, rel: float,
                       floor: float) -> tuple[Floats, Floats]:
    n, dim = o.shape
    z = dim - 1
    dist = np.empty(n)
    normal = np.zeros((n, dim))
    for r in range(n):
        t, nx, ny, nz = _ray_capsule(o[r, 0], o[r, 1], o[r, z], d[r, 0], d[r, 1], d[r, z], maxd[r], p0[r, 0],
                                     p0[r, 1], p0[r, z], p1[r, 0], p1[r, 1], p1[r, z], radius[r], rel, floor, dim)
        dist[r] = t
        if t < np.inf:
            normal[r, 0] = nx
            normal[r, 1] = ny
            if dim == 3:
                normal[r, 2] = nz
    return dist, normal


def cast_capsule_rows(p0: Floats, p1: Floats, radius: Floats, o: Floats, d: Floats,
                      maxd: Floats) -> tuple[Floats, Floats]:
    """Ray ``k`` (``o[k]``, unit ``d[k]``, limit ``maxd[k]``) against capsule ``k`` (world ends, radius; 0: a segment).

    The compiled twin of ``geometry.raycast.raycast_capsule``, one row per
    ray and capsule: distances (inf: a miss) and normals.

    Examples
    --------
    >>> import numpy as np
    >>> dist, normal = cast_capsule_rows(np.array([[3.0, -1.0]]), np.array([[3.0, 1.0]]), np.array([0.5]),
    ...                                  np.zeros((1, 2)), np.array([[1.0, 0.0]]), np.array([10.0]))
    >>> dist.tolist(), normal.tolist()
    ([2.5], [[-1.0, 0.0]])
    """
    from ..geometry.compiled.kernel_support import touch_rule

    rel, floor = touch_rule()
    f = np.float64
    return _cast_capsule_rows(np.ascontiguousarray(p0, f), np.ascontiguousarray(p1, f), np.ascontiguousarray(radius, f),
                              np.ascontiguousarray(o, f), np.ascontiguousarray(d, f), np.ascontiguousarray(maxd, f),
                              rel, floor)


@njit(cache=True)
def _polygon_entry(v: Floats, r: int, k: int, dx: float, dy: float, shift: float,
                   parallel_rate: float) -> tuple[float, float, int]:
    """``(lower, upper, face)`` of _entry_bounds for polygon row ``r`` (vertices relative to the origin), faces
    pushed out by ``shift``; zero-length edges ignored; ties to the lowest face."""
    lower_best = -np.inf
    face = 0
    upper = np.inf
    for j in range(k):
        nj = j + 1 if j + 1 < k else 0
        ex = v[r, nj, 0] - v[r, j, 0]
        ey = v[r, nj, 1] - v[r, j, 1]
        length = math.sqrt(0.0 + ex * ex + ey * ey)
        if not length > 0:
            continue
        nx, ny = ey / length, -ex / length
        s = -(0.0 + nx * v[r, j, 0] + ny * v[r, j, 1]) - shift
        rt = 0.0 + nx * dx + ny * dy
        lo_k, hi_k = face_clip(s, rt, parallel_rate)
        if lo_k > lower_best:
            lower_best = lo_k
            face = j
        upper = min(upper, hi_k)
    return lower_best, upper, face


@njit(cache=True)
def _ray_polygon(verts: Floats, r: int, ox: float, oy: float, dx: float, dy: float, maxd: float, rel: float,
                 floor: float, parallel_rate: float, v: Floats) -> tuple[float, float, float]:
    """``(distance, nx, ny)`` of the ray against convex polygon row ``r`` of ``verts`` (inf: a miss).

    ``v`` (1, K, 2): scratch for the vertices relative to the origin. One row of
    :func:`_cast_polygon_rows`, which the first-hit walk calls too (the same bits either way).
    """
    k = verts.shape[1]
    row = np.int64(0)  # (v's one row; not a literal: one compile of _polygon_entry)
    scale = max(abs(ox), abs(oy))
    for j in range(k):
        scale = max(scale, max(abs(verts[r, j, 0]), abs(verts[r, j, 1])))
        v[0, j, 0] = verts[r, j, 0] - ox
        v[0, j, 1] = verts[r, j, 1] - oy
    tol = rel * max(floor, scale)
    inside = True
    for j in range(k):
        nj = j + 1 if j + 1 < k else 0
        ex = v[0, nj, 0] - v[0, j, 0]
        ey = v[0, nj, 1] - v[0, j, 1]
        length = math.sqrt(0.0 + ex * ex + ey * ey)
        if length > 0 and -(0.0 + ey / length * v[0, j, 0] - ex / length * v[0, j, 1]) > tol:
            inside = False
    lo, hi, face = _polygon_entry(v, row, k, dx, dy, 0.0, parallel_rate)
    lo_g, hi_g, face_g = _polygon_entry(v, row, k, dx, dy, tol, parallel_rate)
    hit = inside or (lo_g <= hi_g and hi_g >= 0.0 and lo_g <= maxd and math.isfinite(lo_g))
    if not hit:
        return np.inf, 0.0, 0.0
    if inside:
        return 0.0, -dx + 0.0, -dy + 0.0
    if not lo <= hi:
        lo = lo_g
        face = face_g
    nj = face + 1 if face + 1 < k else 0
    ex = v[0, nj, 0] - v[0, face, 0]
    ey = v[0, nj, 1] - v[0, face, 1]
    length = math.sqrt(0.0 + ex * ex + ey * ey)
    safe = length if length > 0 else 1.0
    return min(max(lo, 0.0), maxd), ey / safe + 0.0, -ex / safe + 0.0


#: the one-row casts under public names, for the single ray query's kernel (compiled.queries._ray_one)
ray_capsule = _ray_capsule
ray_polygon = _ray_polygon


@njit(cache=True)
def _cast_polygon_rows(verts: Floats, o: Floats, d: Floats, maxd: Floats, rel: float, floor: float,
                       parallel_rate: float) -> tuple[Floats, Floats]:
    n, k = verts.shape[0], verts.shape[1]
    dist = np.full(n, np.inf)
    normal = np.zeros((n, 2))
    v = np.empty((1, k, 2))
    for r in range(n):
        t, nx, ny = _ray_polygon(verts, r, o[r, 0], o[r, 1], d[r, 0], d[r, 1], maxd[r], rel, floor, parallel_rate,
                                 v)
        if t < np.inf:
            dist[r] = t
            normal[r, 0] = nx
            normal[r, 1] = ny
    return dist, normal


def cast_polygon_rows(verts: Floats, o: Floats, d: Floats, maxd: Floats) -> tuple[Floats, Floats]:
    """Ray ``k`` (``o[k]``, unit ``d[k]``, limit ``maxd[k]``) against convex polygon ``k`` (world vertices (K, 2),
    counter-clockwise, padded by repeating the last).

    The compiled twin of ``geometry.raycast.raycast_polygon`` (Cyrus-Beck
    clipping with the touching rule), one row per ray and polygon.

    Examples
    --------
    >>> import numpy as np
    >>> tri = np.array([[[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]]])
    >>> dist, normal = cast_polygon_rows(tri, np.array([[-1.0, 1.0]]), np.array([[1.0, 0.0]]), np.array([np.inf]))
    >>> dist.tolist(), normal.tolist()
    ([1.0], [[-1.0, 0.0]])
    """
    from ..geometry.compiled.kernel_support import touch_rule
    from ..geometry.raycast import PARALLEL_RATE

    rel, floor = touch_rule()
    f = np.float64
    return _cast_polygon_rows(np.ascontiguousarray(verts, f), np.ascontiguousarray(o, f), np.ascontiguousarray(d, f),
                              np.ascontiguousarray(maxd, f), rel, floor, PARALLEL_RATE)


@njit(cache=True)
def _hull_entry(signed: Floats, rate: Floats, nf: int, shift: float, parallel_rate: float) -> tuple[float, float, int]:
    """``(lower, upper, face)`` of _entry_bounds over the first ``nf`` faces ``signed - shift``, ties to the lowest
    face."""
    lower_best = -np.inf
    face = 0
    upper = np.inf
    for f in range(nf):
        s = signed[f] - shift
        rt = rate[f]
        lo_k, hi_k = face_clip(s, rt, parallel_rate)
        if lo_k > lower_best:
            lower_best = lo_k
            face = f
        upper = min(upper, hi_k)
    return lower_best, upper, face


@njit(cache=True)
def _ray_hull(j: int, h: int, ox: float, oy: float, oz: float, dx: float, dy: float, dz: float, maxd: float,
              c: Floats, rot: Floats, nrm: Floats, off: Floats, reach: float, rel: float, floor: float,
              parallel_rate: float, signed: Floats, rate: Floats) -> tuple[float, float, float, float]:
    """``(distance, normal)`` of the ray against hull row ``h`` of ``nrm``, ``off`` posed by row ``j`` of ``c``,
    ``rot``; distance inf: a miss. ``signed``, ``rate`` (at least F): scratch.

    ``geometry.raycast.raycast_hull``'s arithmetic (Cyrus-Beck over the local face planes, the touching rule
    applied by shifting every plane out by the tolerance), one row: :func:`_cast_hull_rows` and the first-hit
    walk both call this, so a hull cast in the walk has the bits of one cast after it.
    """
    nf = nrm.shape[1]
    mo = max(max(abs(ox), abs(oy)), abs(oz))
    mc = max(max(abs(c[j, 0]), abs(c[j, 1])), abs(c[j, 2]))
    tol = rel * max(floor, max(mo, mc + reach))
    vx = ox - c[j, 0]
    vy = oy - c[j, 1]
    vz = oz - c[j, 2]
    lo0 = 0.0 + rot[j, 0, 0] * vx + rot[j, 1, 0] * vy + rot[j, 2, 0] * vz
    lo1 = 0.0 + rot[j, 0, 1] * vx + rot[j, 1, 1] * vy + rot[j, 2, 1] * vz
    lo2 = 0.0 + rot[j, 0, 2] * vx + rot[j, 1, 2] * vy + rot[j, 2, 2] * vz
    ld0 = 0.0 + rot[j, 0, 0] * dx + rot[j, 1, 0] * dy + rot[j, 2, 0] * dz
    ld1 = 0.0 + rot[j, 0, 1] * dx + rot[j, 1, 1] * dy + rot[j, 2, 1] * dz
    ld2 = 0.0 + rot[j, 0, 2] * dx + rot[j, 1, 2] * dy + rot[j, 2, 2] * dz
    inside = True
    for f in range(nf):
        signed[f] = (0.0 + nrm[h, f, 0] * lo0 + nrm[h, f, 1] * lo1 + nrm[h, f, 2] * lo2) - off[h, f]
        rate[f] = 0.0 + nrm[h, f, 0] * ld0 + nrm[h, f, 1] * ld1 + nrm[h, f, 2] * ld2
        if signed[f] > tol:
            inside = False
    if inside:
        return 0.0, -dx + 0.0, -dy + 0.0, -dz + 0.0
    lo_g, hi_g, face_g = _hull_entry(signed, rate, nf, tol, parallel_rate)
    if not (lo_g <= hi_g and hi_g >= 0.0 and lo_g <= maxd and math.isfinite(lo_g)):
        return np.inf, 0.0, 0.0, 0.0
    lo, hi, face = _hull_entry(signed, rate, nf, 0.0, parallel_rate)
    if not lo <= hi:
        lo = lo_g
        face = face_g
    nx = (0.0 + rot[j, 0, 0] * nrm[h, face, 0] + rot[j, 0, 1] * nrm[h, face, 1] + rot[j, 0, 2] * nrm[h, face, 2]) + 0.0
    ny = (0.0 + rot[j, 1, 0] * nrm[h, face, 0] + rot[j, 1, 1] * nrm[h, face, 1] + rot[j, 1, 2] * nrm[h, face, 2]) + 0.0
    nz = (0.0 + rot[j, 2, 0] * nrm[h, face, 0] + rot[j, 2, 1] * nrm[h, face, 1] + rot[j, 2, 2] * nrm[h, face, 2]) + 0.0
    return min(max(lo, 0.0), maxd), nx, ny, nz


@njit(cache=True)
def _cast_hull_rows(c: Floats, rot: Floats, nrm: Floats, off: Floats, reach: Floats, o: Floats, d: Floats,
                    maxd: Floats, rel: float, floor: float, parallel_rate: float) -> tuple[Floats, Floats]:
    n, nf = nrm.shape[0], nrm.shape[1]
    dist = np.full(n, np.inf)
    normal = np.zeros((n, 3))
    signed = np.empty(nf)
    rate = np.empty(nf)
    for r in range(n):
        t, nx, ny, nz = _ray_hull(r, r, o[r, 0], o[r, 1], o[r, 2], d[r, 0], d[r, 1], d[r, 2], maxd[r], c, rot, nrm,
                                  off, reach[r], rel, floor, parallel_rate, signed, rate)
        if t < np.inf:
            dist[r] = t
            normal[r, 0] = nx
            normal[r, 1] = ny
            normal[r, 2] = nz
    return dist, normal


def cast_hull_rows(center: Floats, rotation: Floats, normals: Floats, offsets: Floats, reach: Floats, o: Floats,
                   d: Floats, maxd: Floats) -> tuple[Floats, Floats]:
    """Ray ``k`` (``o[k]``, unit ``d[k]``, limit ``maxd[k]``) against hull ``k`` (pose, local face planes, reach).

    The compiled twin of ``geometry.raycast.raycast_hull`` (Cyrus-Beck over
    the faces with the touching rule), one row per ray and hull.

    Examples
    --------
    >>> import numpy as np
    >>> nrm = np.concatenate([np.eye(3), -np.eye(3)])[None]
    >>> dist, normal = cast_hull_rows(np.array([[5.0, 0, 0]]), np.eye(3)[None], nrm, np.ones((1, 6)),
    ...                               np.array([3 ** 0.5]), np.zeros((1, 3)), np.array([[1.0, 0, 0]]), np.array([10.0]))
    >>> dist.tolist(), normal.tolist()
    ([4.0], [[-1.0, 0.0, 0.0]])
    """
    from ..geometry.compiled.kernel_support import touch_rule
    from ..geometry.raycast import PARALLEL_RATE

    rel, floor = touch_rule()
    f = np.float64
    return _cast_hull_rows(np.ascontiguousarray(center, f), np.ascontiguousarray(rotation, f),
                           np.ascontiguousarray(normals, f), np.ascontiguousarray(offsets, f),
                           np.ascontiguousarray(reach, f), np.ascontiguousarray(o, f), np.ascontiguousarray(d, f),
                           np.ascontiguousarray(maxd, f), rel, floor, PARALLEL_RATE)


@njit(cache=True)
def ray_halfspace(ox: float, oy: float, oz: float, dx: float, dy: float, dz: float, maxd: float, nx: float,
                   ny: float, nz: float, off: float, rel: float, floor: float,
                   dim: int) -> tuple[float, float, float, float]:
    """``(distance, normal)`` of the ray against ``n . p <= off`` (inf: a miss). raycast_halfspace's arithmetic."""
    three = dim == 3
    scale = max(max(abs(off), abs(ox)), abs(oy))
    s = 0.0 + nx * ox + ny * oy
    rt = 0.0 + nx * dx + ny * dy
    if three:
        scale = max(scale, abs(oz))
        s += nz * oz
        rt += nz * dz
    s -= off
    tol = rel * max(floor, scale)
    inside = s <= tol
    # one face; unbounded, so only an exact 0 rate is parallel
    lo, hi = -np.inf, np.inf
    lo_g, hi_g = -np.inf, np.inf
    if rt == 0.0:
        if s > 0:
            lo, hi = np.inf, -np.inf
        if s - tol > 0:
            lo_g, hi_g = np.inf, -np.inf
    elif rt < 0:
        lo = -s / rt
        lo_g = -(s - tol) / rt
    else:
        hi = -s / rt
        hi_g = -(s - tol) / rt
    hit = inside or (lo_g <= hi_g and hi_g >= 0.0 and lo_g <= maxd and math.isfinite(lo_g))
    if not hit:
        return np.inf, 0.0, 0.0, 0.0
    if inside:
        return 0.0, -dx + 0.0, -dy + 0.0, -dz + 0.0
    entry = lo if lo <= hi else lo_g
    return min(max(entry, 0.0), maxd), nx + 0.0, ny + 0.0, nz + 0.0


@njit(cache=True)
def _cast_halfspace_rows(nrm: Floats, off: Floats, o: Floats, d: Floats, maxd: Floats, rel: float,
                         floor: float) -> tuple[Floats, Floats]:
    n, dim = o.shape
    z = dim - 1
    dist = np.full(n, np.inf)
    normal = np.zeros((n, dim))
    for r in range(n):
        t, nx, ny, nz = ray_halfspace(o[r, 0], o[r, 1], o[r, z], d[r, 0], d[r, 1], d[r, z], maxd[r], nrm[r, 0],
                                       nrm[r, 1], nrm[r, z], off[r], rel, floor, dim)
        dist[r] = t
        if t < np.inf:
            normal[r, 0] = nx
            normal[r, 1] = ny
            if dim == 3:
                normal[r, 2] = nz
    return dist, normal


def cast_halfspace_rows(normal: Floats, offset: Floats, o: Floats, d: Floats, maxd: Floats) -> tuple[Floats, Floats]:
    """Ray ``k`` (``o[k]``, unit ``d[k]``, limit ``maxd[k]``) against half-space ``normal[k] . p <= offset[k]``.

    The compiled twin of ``geometry.raycast.raycast_halfspace``, one row per ray and half-space.

    Examples
    --------
    >>> import numpy as np
    >>> dist, normal = cast_halfspace_rows(np.array([[0.0, 1.0]]), np.array([1.0]), np.array([[0.0, 5.0]]),
    ...                                    np.array([[0.0, -1.0]]), np.array([np.inf]))
    >>> dist.tolist(), normal.tolist()
    ([4.0], [[0.0, 1.0]])
    """
    from ..geometry.compiled.kernel_support import touch_rule

    rel, floor = touch_rule()
    f = np.float64
    return _cast_halfspace_rows(np.ascontiguousarray(normal, f), np.ascontiguousarray(offset, f),
                                np.ascontiguousarray(o, f), np.ascontiguousarray(d, f), np.ascontiguousarray(maxd, f),
                                rel, floor)
