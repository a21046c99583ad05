"""Compiled twin of the batched sweep's candidate loop (numba), for ``backend="compiled"``.

:func:`.batched_sweep.overlapping_pairs` prepares the sweep with a few numpy
sorts (band copies, their order by (cell, lower bound)) and then walks the
runs of copies that overlap on the sweep axis. numpy walks them in rounds of
fancy indexing over the whole array, one round per offset; here one loop per
copy walks its own run and tests each candidate in registers. The numpy
steps before and after (preparation, boxes too big for the bands, the final
sort of the pair keys) are shared, so both backends give the same pairs in
the same order.

Outline of :func:`banded_sweep_keys` (the output is sized by an upper
bound, so no pair allocates):

    gather each copy's band-axis bounds, bands and flags into copy order
    count the candidates (the walks below without the pair test): the bound
    for each copy p (each wanted copy p, when only pairs with a wanted box count):
        walk q = p + 1, p + 2, ... while q is in p's cell and starts no later
        than p ends on the sweep axis (the touching rule: <=)
        (wanted: also walk q = p - 1, p - 2, ... back for unwanted copies
         whose run reaches p; none starts more than the widest box earlier)
        report {p, q} when the two boxes
          * overlap on every band axis (closed: lo_a <= hi_b and lo_b <= hi_a),
          * are not both static, and
          * have their home cell here (the cell of the larger lower band on
            each band axis), so a pair sharing several cells is reported once

NOTE: threads. From :data:`PARALLEL_COPIES` copies on, and once threads were
asked for (:func:`collideworld.set_threads`), the walk runs in ranges of
copies spread over threads (``prange``; the parallel build is a
second build of the same function, see
:mod:`collideworld.threads`): a bound per range, a prefix
sum, then each range fills its own slice, and the slices are joined in
range order, so the keys and their order do not depend on the thread count
(the caller sorts them anyway). Measured on the 2-core development machine
in a quiet moment (medians of 40 interleaved calls): the walk 0.74 -> 0.46
ms for 10,000 2D boxes and 1.17 -> 0.75 ms for 5,000 3D boxes on two
threads; the whole sweep 1.23 -> 0.94 and 1.63 -> 1.11 ms. The parallel
build compiles in about 4 s more. (An earlier two-pass try measured no
gain; numba's cache keys a build by name and signature, not by
``parallel``, so a parallel build of the same function can load the serial
machine code: hence :func:`~collideworld.threads.parallel_twin`.) No ``fastmath``: it may reorder or
contract the comparisons and break the touching rule.

NOTE: numba is optional. Without it :data:`NUMBA_AVAILABLE` is False and
asking a broadphase for ``backend="compiled"`` raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["NUMBA_AVAILABLE", "banded_sweep_keys", "banded_sweep_pairs", "BandedSweepCache"]

try:  # numba is optional: the numpy path must work without it
    from numba import njit
except ImportError:  # pragma: no cover - exercised only where numba is absent
    NUMBA_AVAILABLE = False
else:
    NUMBA_AVAILABLE = True

def _banded_sweep_keys(box: Any, cell: Any, start_lo: Any, end: Any, lo_band: Any, hi_band: Any,
                       band_lo: Any, nbands: Any, static: Any, wanted: Any, use_wanted: bool,
                       reach: float, shift: int, chunks: int) -> Any:
    """The walk over all copies, in ``chunks`` ranges of copies (``prange``: threads in the parallel build).

    Two passes over each range: a bound on its pairs (the walk without the
    pair test), then, after a prefix sum of the bounds, the walk writing its
    keys from the range's own offset; the ranges' keys are then joined in
    range order. The keys and their order are therefore those of one range,
    whatever the number of ranges or threads.

    The pair test is written out in both walks: as an inlined numba helper
    taking the arrays it measured 4x slower (array reference counting per
    call), as a plain call per copy 40x slower.
    """
    m = box.shape[0]
    nb = lo_band.shape[0]
    # each copy's band-axis data in copy order: the walks then read
    # neighbouring memory instead of jumping between random boxes (-20 % at
    # 100,000 boxes, measured)
    c_lo = np.empty((m, nb), dtype=np.float64)
    c_hi = np.empty((m, nb), dtype=np.float64)
    c_band = np.empty((m, nb), dtype=np.int64)
    c_static = np.empty(m, dtype=np.bool_)
    c_wanted = np.ones(m, dtype=np.bool_)
    for p in prange(m):
        i = box[p]
        for a in range(nb):
            c_lo[p, a] = lo_band[a, i]
            c_hi[p, a] = hi_band[a, i]
            c_band[p, a] = band_lo[a, i]
        c_static[p] = static[i]
        if use_wanted:
            c_wanted[p] = wanted[i]
    size = (m + chunks - 1) // chunks
    # upper bound on each range's output: its candidates, counted by a cheap
    # walk of the runs without the pair test (a buffer doubling when full
    # measured 34 against 29 ms CPU for 100,000 3D boxes)
    offset = np.zeros(chunks + 1, dtype=np.int64)
    for k in prange(chunks):
        bound = 0
        for p in range(min(m, k * size), min(m, (k + 1) * size)):
            if not c_wanted[p]:
                continue
            c = cell[p]
            q = p + 1
            while q < m and cell[q] == c and start_lo[q] <= end[p]:
                q += 1
            bound += q - p - 1
            if use_wanted:
                q = p - 1
                while q >= 0 and cell[q] == c and start_lo[q] >= start_lo[p] - reach:
                    q -= 1
                bound += p - 1 - q
        offset[k + 1] = bound
    for k in range(chunks):
        offset[k + 1] += offset[k]
    out = np.empty(offset[chunks], dtype=np.int64)
    found = np.zeros(chunks, dtype=np.int64)
    for k in prange(chunks):
        f = offset[k]
        for p in range(min(m, k * size), min(m, (k + 1) * size)):
            if not c_wanted[p]:
                continue
            c = cell[p]
            e = end[p]
            # forward: later copies of this cell that start no later than p ends
            q = p + 1
            while q < m and cell[q] == c and start_lo[q] <= e:
                r = q
                q += 1
                if c_static[p] and c_static[r]:
                    continue
                home = 0
                for a in range(nb):
                    # the one touching rule: closed boxes, <= both ways
                    if not (c_lo[p, a] <= c_hi[r, a] and c_lo[r, a] <= c_hi[p, a]):
                        home = -1
                        break
                    home = home * nbands[a] + max(c_band[p, a], c_band[r, a])
                if home == c:
                    i, j = box[p], box[r]
                    out[f] = (min(i, j) << shift) | max(i, j)
                    f += 1
            if not use_wanted:
                continue
            # backward: earlier unwanted copies whose run reaches p
            sp = start_lo[p]
            q = p - 1
            while q >= 0 and cell[q] == c and start_lo[q] >= sp - reach:
                r = q
                q -= 1
                if c_wanted[r] or end[r] < sp or (c_static[p] and c_static[r]):
                    continue
                home = 0
                for a in range(nb):
                    if not (c_lo[p, a] <= c_hi[r, a] and c_lo[r, a] <= c_hi[p, a]):
                        home = -1
                        break
                    home = home * nbands[a] + max(c_band[p, a], c_band[r, a])
                if home == c:
                    i, j = box[p], box[r]
                    out[f] = (min(i, j) << shift) | max(i, j)
                    f += 1
        found[k] = f - offset[k]
    if chunks == 1:
        return out[:found[0]]
    joined = np.empty(found.sum(), dtype=np.int64)
    at = 0
    for k in range(chunks):
        # loops, not slice assignments: numba compiles a slice assignment's shape-mismatch error with a
        # formatted message (str() of ints and its unicode helpers: ~2 s of CPU on a cold cache)
        for t in range(found[k]):
            joined[at + t] = out[offset[k] + t]
        at += found[k]
    return joined


def _sweep_bands(lo: Any, hi: Any, max_bands: int) -> Any:
    """Steps 0 and 1 of the banded sweep: the sweep axis, the bands and the copy count (one loop each).

    Returns (sweep axis, band-axis bounds (B, n) twice, lowest band (B, n),
    bands spanned (B, n), band counts (B,), big boxes (n,), copies, sweep-axis
    bounds (n,) twice, band origins (B,), band widths (B,)).
    """
    n, d = lo.shape
    # the axis where the box centres (doubled) spread most; the first such
    # axis, as np.argmax picks it
    sweep = 0
    best = -1.0
    for a in range(d):
        c_min = lo[0, a] + hi[0, a]
        c_max = c_min
        for i in range(1, n):
            c = lo[i, a] + hi[i, a]
            c_min = min(c_min, c)
            c_max = max(c_max, c)
        if c_max - c_min > best:
            best = c_max - c_min
            sweep = a
    nb = d - 1
    lo_band = np.empty((nb, n))
    hi_band = np.empty((nb, n))
    band_lo = np.empty((nb, n), dtype=np.int64)
    span = np.empty((nb, n), dtype=np.int64)
    nbands = np.empty(nb, dtype=np.int64)
    origins = np.empty(nb)
    widths = np.empty(nb)
    extents = np.empty(n)
    # bands: twice the median extent, at most ~2 sqrt(n) per axis (as numpy)
    k = 0
    for a in range(d):
        if a == sweep:
            continue
        origin = lo[0, a]
        top = hi[0, a]
        for i in range(n):
            lo_band[k, i] = lo[i, a]
            hi_band[k, i] = hi[i, a]
            extents[i] = hi[i, a] - lo[i, a]
            origin = min(origin, lo[i, a])
            top = max(top, hi[i, a])
        size = np.median(extents)
        width = max(2.0 * size, (top - origin) / max(1.0, 2.0 * np.sqrt(n)))
        if not width > 0:
            width = 1.0
        origins[k] = origin
        widths[k] = width
        last_max = 0
        for i in range(n):
            first = np.int64(np.floor((lo[i, a] - origin) / width))
            last = np.int64(np.floor((hi[i, a] - origin) / width))
            band_lo[k, i] = first
            span[k, i] = last - first + 1
            last_max = max(last_max, last)
        nbands[k] = last_max + 1
        k += 1
    big = np.zeros(n, dtype=np.bool_)
    m = 0
    for i in range(n):
        c = 1
        for k in range(nb):
            c *= span[k, i]
        if c > max_bands:
            big[i] = True
        else:
            m += c
    slo = np.empty(n)
    shi = np.empty(n)
    for i in range(n):
        slo[i] = lo[i, sweep]
        shi[i] = hi[i, sweep]
    return sweep, lo_band, hi_band, band_lo, span, nbands, big, m, slo, shi, origins, widths


def _copy_keys(by_lo: Any, band_lo: Any, span: Any, nbands: Any, big: Any, m: int, shift: int) -> Any:
    """Step 2's keys: one ``(cell << shift) | rank`` per copy of a box into a cell it touches."""
    n = by_lo.shape[0]
    nb = band_lo.shape[0]
    rank = np.empty(n, dtype=np.int64)
    for r in range(n):
        rank[by_lo[r]] = r
    key = np.empty(m, dtype=np.int64)
    p = 0
    for i in range(n):
        if big[i]:
            continue
        if nb == 1:
            for o in range(span[0, i]):
                key[p] = ((band_lo[0, i] + o) << shift) | rank[i]
                p += 1
        else:
            for o0 in range(span[0, i]):
                for o1 in range(span[1, i]):
                    cell = (band_lo[0, i] + o0) * nbands[1] + band_lo[1, i] + o1
                    key[p] = (cell << shift) | rank[i]
                    p += 1
    return key


def _walk_copies(key: Any, by_lo: Any, slo: Any, shi: Any, shift: int, eps: float) -> Any:
    """Step 3 over the sorted copy keys: each copy's box, cell and sweep-axis bounds, and the look-back reach."""
    n = slo.shape[0]
    m = key.shape[0]
    mask = (1 << shift) - 1
    box = np.empty(m, dtype=np.int64)
    cells = np.empty(m, dtype=np.int64)
    start_lo = np.empty(m)
    end = np.empty(m)
    for q in range(m):
        b = by_lo[key[q] & mask]
        box[q] = b
        cells[q] = key[q] >> shift
        start_lo[q] = slo[b]
        end[q] = shi[b]
    # the look-back reach of .batched_sweep._lookback_reach
    reach = 0.0
    magnitude = 0.0
    for i in range(n):
        reach = max(reach, shi[i] - slo[i])
        magnitude = max(magnitude, abs(slo[i]), abs(shi[i]))
    reach = reach + 4.0 * eps * (magnitude + reach)
    return box, cells, start_lo, end, reach


def _with_big_pairs(found: Any, lo: Any, hi: Any, big: Any, static: Any, wanted: Any, use_wanted: bool,
                    shift: int) -> Any:
    """The walk's keys, and after them those of the boxes too big for the bands (against every box)."""
    n, d = lo.shape
    n_big_pairs = 0
    for b in range(n):
        if big[b]:
            for j in range(n):
                if _big_pair(lo, hi, big, static, wanted, use_wanted, b, j, d):
                    n_big_pairs += 1
    if not n_big_pairs:
        return found
    out = np.empty(found.shape[0] + n_big_pairs, dtype=np.int64)
    for t in range(found.shape[0]):  # not out[:len(found)] = found: see _banded_sweep_keys
        out[t] = found[t]
    p = found.shape[0]
    for b in range(n):
        if big[b]:
            for j in range(n):
                if _big_pair(lo, hi, big, static, wanted, use_wanted, b, j, d):
                    out[p] = (min(b, j) << shift) | max(b, j)
                    p += 1
    return out


def _big_pair(lo: Any, hi: Any, big: Any, static: Any, wanted: Any, use_wanted: bool, b: int, j: int,
              d: int) -> bool:
    """Whether big box ``b`` reports a pair with box ``j`` (the rules of ``_finish``)."""
    if j == b or (big[j] and j <= b) or (static[b] and static[j]):
        return False
    if use_wanted and not wanted[b] and not wanted[j]:
        return False
    for a in range(d):
        if not (lo[j, a] <= hi[b, a] and lo[b, a] <= hi[j, a]):
            return False
    return True


#: Copies from which the walk runs on several threads (see :mod:`collideworld.threads`).
PARALLEL_COPIES = 4096
#: Ranges of copies per thread in the parallel walk (runs differ in length).
CHUNKS_PER_THREAD = 4

if NUMBA_AVAILABLE:
    from numba import prange

    from ..threads import parallel_twin

    _big_pair = njit(cache=True)(_big_pair)
    # one Python function, two builds: the serial one is called with one range
    _kernel: Callable[..., Any] = njit(cache=True)(_banded_sweep_keys)
    _kernel_parallel: Callable[..., Any] = njit(cache=True, parallel=True)(parallel_twin(_banded_sweep_keys))
    _bands_kernel: Callable[..., Any] = njit(cache=True)(_sweep_bands)
    _copies_kernel: Callable[..., Any] = njit(cache=True)(_copy_keys)
    _walk_copies_kernel: Callable[..., Any] = njit(cache=True)(_walk_copies)
    _big_pairs_kernel: Callable[..., Any] = njit(cache=True)(_with_big_pairs)
else:  # pragma: no cover - exercised only where numba is absent
    prange = range  # type: ignore[misc]


def _walk(box: NDArray[np.int64], cell: NDArray[np.int64], start_lo: NDArray[np.float64], end: NDArray[np.float64],
          lo_band: NDArray[np.float64], hi_band: NDArray[np.float64], band_lo: NDArray[np.int64],
          nbands: NDArray[np.int64], static: NDArray[np.bool_], wanted: NDArray[np.bool_], use_wanted: bool,
          reach: float, shift: int) -> NDArray[np.int64]:
    """The compiled walk, on several threads when the copies are many enough (the same keys, in the same order)."""
    from ..threads import loop_threads, on_threads, timed_loop

    args = (box, cell, start_lo, end, lo_band, hi_band, band_lo, nbands, static, wanted, use_wanted, reach, shift)
    # the parallel build only while it measures faster here (threads.loop_threads): the same keys either way
    threads = loop_threads("banded_sweep", len(box), PARALLEL_COPIES)
    with timed_loop("banded_sweep", len(box), threads, PARALLEL_COPIES):
        if threads == 1:
            keys: NDArray[np.int64] = _kernel(*args, 1)
        else:
            with on_threads(threads):
                keys = _kernel_parallel(*args, CHUNKS_PER_THREAD * threads)
    return keys


def banded_sweep_keys(box: NDArray[np.int64], cell: NDArray[np.int64], start_lo: NDArray[np.float64],
                      end: NDArray[np.float64], lo_band: NDArray[np.float64], hi_band: NDArray[np.float64],
                      band_lo: NDArray[np.int64], nbands: NDArray[np.int64], static: NDArray[np.bool_],
                      wanted: NDArray[np.bool_] | None, reach: float, shift: int) -> NDArray[np.int64]:
    """Packed keys ``(min << shift) | max`` of the pairs the banded sweep reports (compiled).

    Parameters
    ----------
    box, cell : ndarray of int64, shape (m,)
        Box row and cell of each band copy, sorted by (cell, lower bound on
        the sweep axis).
    start_lo, end : ndarray of float64, shape (m,)
        Lower and upper bound of each copy's box on the sweep axis.
    lo_band, hi_band : ndarray of float64, shape (B, n)
        Box bounds on the B band axes (C-contiguous rows).
    band_lo : ndarray of int64, shape (B, n)
        Each box's lowest band per band axis.
    nbands : ndarray of int64, shape (B,)
        Band count per band axis (the radix of the row-major cell numbers).
    static : ndarray of bool, shape (n,)
    wanted : ndarray of bool, shape (n,), or None
        Report only pairs with at least one wanted box.
    reach : float
        Widest box on the sweep axis (bounds the look-back for ``wanted``).
    shift : int
        Bit width of a row number in the keys.

    Returns
    -------
    ndarray of int64, shape (P,)
        One key per pair, in walk order (the caller sorts).

    Examples
    --------
    Three boxes in one band, the first two touching at x = 1:

    >>> import numpy as np
    >>> if NUMBA_AVAILABLE:
    ...     keys = banded_sweep_keys(
    ...         np.array([0, 1, 2]), np.zeros(3, dtype=np.int64), np.array([0.0, 1.0, 5.0]),
    ...         np.array([1.0, 2.0, 6.0]), np.zeros((1, 3)), np.ones((1, 3)),
    ...         np.zeros((1, 3), dtype=np.int64), np.array([1]), np.zeros(3, dtype=bool), None, 1.0, 2)
    ...     print([(int(k) >> 2, int(k) & 3) for k in keys])
    ... else:
    ...     print([(0, 1)])
    [(0, 1)]
    """
    if not NUMBA_AVAILABLE:
        raise RuntimeError("the compiled broadphase needs numba, which is not installed")
    use_wanted = wanted is not None
    w = wanted if wanted is not None else np.zeros(0, dtype=np.bool_)
    return _walk(box, cell, start_lo, end, lo_band, hi_band, band_lo, nbands, static, w, use_wanted, float(reach),
                 int(shift))


def _plain(x: NDArray[Any]) -> NDArray[Any]:
    """``x`` as a C-contiguous writeable array (a copy only if it is not one): one compiled specialisation."""
    return x if x.flags.c_contiguous and x.flags.writeable else np.array(x)


def banded_sweep_pairs(lo: NDArray[np.float64], hi: NDArray[np.float64], static: NDArray[np.bool_],
                       wanted: NDArray[np.bool_] | None, max_bands: int) -> NDArray[np.int64]:
    """Every pair of rows whose closed boxes overlap, not both static: the whole banded sweep, compiled.

    The compiled twin of :func:`.batched_sweep.overlapping_pairs` for D = 2
    or 3 (the preparation too, not only the walk).

    Parameters
    ----------
    lo, hi : ndarray of float64, shape (n, D), D = 2 or 3, n >= 2
        Finite box corners, ``lo <= hi``.
    static : ndarray of bool, shape (n,)
    wanted : ndarray of bool, shape (n,), or None
        Report only pairs with at least one wanted row.
    max_bands : int
        Boxes touching more cells than this are tested against every box.

    Returns
    -------
    ndarray of int64, shape (P, 2)
        Rows ``(i, j)``, ``i < j``, sorted lexicographically.

    Examples
    --------
    >>> import numpy as np
    >>> lo = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 3.0]])
    >>> if NUMBA_AVAILABLE:
    ...     print(banded_sweep_pairs(lo, lo + 1.0, np.zeros(3, dtype=bool), None, 16).tolist())
    ... else:
    ...     print([[0, 1]])
    [[0, 1]]
    """
    if not NUMBA_AVAILABLE:
        raise RuntimeError("the compiled broadphase needs numba, which is not installed")
    use_wanted = wanted is not None
    w = wanted if wanted is not None else np.zeros(0, dtype=np.bool_)
    # one layout and writeable flag per argument: one compiled specialisation (warm_up compiles it)
    lo, hi = _plain(np.asarray(lo, dtype=np.float64)), _plain(np.asarray(hi, dtype=np.float64))
    static, w = _plain(static), _plain(w)
    n = len(lo)
    # Three compiled stages around numpy's two sorts: numpy's sorts are
    # vectorised and measured 7-18x faster than numba's at 10,000 keys
    # (82 against 617 us for the argsort of the lower bounds).
    # Each stage's inputs are dropped as soon as the next has what it needs, and the sorts
    # are in place: at 100,000 boxes the stages' arrays are a few hundred bytes per box,
    # and holding them all to the end made this call the peak of a world's memory.
    _, lo_band, hi_band, band_lo, span, nbands, big, m, slo, shi, _, _ = _bands_kernel(lo, hi, int(max_bands))
    by_lo = np.argsort(slo)
    shift = max(1, int(n - 1).bit_length())
    key = _copies_kernel(by_lo, band_lo, span, nbands, big, m, shift)
    key.sort()
    del span
    box, cell, start_lo, end, reach = _walk_copies_kernel(key, by_lo, slo, shi, shift, float(np.finfo(np.float64).eps))
    del key, by_lo, slo, shi
    found = _walk(box, cell, start_lo, end, lo_band, hi_band, band_lo, nbands, static, w, use_wanted, reach, shift)
    del box, cell, start_lo, end, lo_band, hi_band, band_lo, nbands
    pair_key = _big_pairs_kernel(found, lo, hi, big, static, w, use_wanted, shift)
    del found
    pair_key.sort()
    out = np.empty((len(pair_key), 2), dtype=np.int64)
    np.right_shift(pair_key, shift, out=out[:, 0])
    np.bitwise_and(pair_key, (1 << shift) - 1, out=out[:, 1])
    return out


# -- the banded sweep kept between calls: repaired, not redone, when few boxes changed ------------


def _new_copies(handles: Any, lo: Any, hi: Any, sweep: int, origins: Any, widths: Any, nbands: Any,
                max_bands: int, lo_band: Any, hi_band: Any, band_lo: Any, extent: Any) -> Any:
    """The band copies of boxes ``handles`` under fixed bands; their band columns rewritten in place.

    Bands are clamped to the grid of the build: a box beyond its edge is
    counted in the edge band. Clamping is monotone, so two boxes that
    overlap on a band axis still share their clamped bands there, and the
    larger clamped lower band is still in both ranges: the walk's rules
    hold. ``extent`` holds (widest sweep extent, largest magnitude) so far,
    raised here. Returns the copies (cell, handle, lower, upper bound on the
    sweep axis), unsorted, or a first entry of -1 when a box now spans more
    than ``max_bands`` cells (the caller rebuilds).
    """
    nb = origins.shape[0]
    k = handles.shape[0]
    first = np.empty((nb, k), dtype=np.int64)
    span = np.empty((nb, k), dtype=np.int64)
    m = 0
    for r in range(k):
        h = handles[r]
        c = 1
        for a in range(nb):
            axis = a if a < sweep else a + 1
            top = nbands[a] - 1
            f = min(max(np.floor((lo[h, axis] - origins[a]) / widths[a]), 0.0), float(top))
            last = min(max(np.floor((hi[h, axis] - origins[a]) / widths[a]), 0.0), float(top))
            first[a, r] = np.int64(f)
            span[a, r] = np.int64(last) - np.int64(f) + 1
            lo_band[a, h] = lo[h, axis]
            hi_band[a, h] = hi[h, axis]
            band_lo[a, h] = np.int64(f)
            c *= span[a, r]
        if c > max_bands:
            return (np.full(1, -1, dtype=np.int64), np.empty(0, dtype=np.int64), np.empty(0), np.empty(0))
        m += c
        extent[0] = max(extent[0], hi[h, sweep] - lo[h, sweep])
        extent[1] = max(extent[1], abs(lo[h, sweep]), abs(hi[h, sweep]))
    cell = np.empty(m, dtype=np.int64)
    box = np.empty(m, dtype=np.int64)
    start = np.empty(m)
    end = np.empty(m)
    p = 0
    for r in range(k):
        h = handles[r]
        if nb == 1:
            for o in range(span[0, r]):
                cell[p] = first[0, r] + o
                box[p], start[p], end[p] = h, lo[h, sweep], hi[h, sweep]
                p += 1
        else:
            for o0 in range(span[0, r]):
                for o1 in range(span[1, r]):
                    cell[p] = (first[0, r] + o0) * nbands[1] + first[1, r] + o1
                    box[p], start[p], end[p] = h, lo[h, sweep], hi[h, sweep]
                    p += 1
    return cell, box, start, end


def _merge_copies(cell: Any, box: Any, start: Any, end: Any, drop: Any, n_cell: Any, n_box: Any, n_start: Any,
                  n_end: Any) -> Any:
    """The copies sorted by (cell, lower bound) without those of ``drop`` boxes, merged with new sorted ones."""
    m = 0
    for q in range(cell.shape[0]):
        if not drop[box[q]]:
            m += 1
    total = m + n_cell.shape[0]
    o_cell = np.empty(total, dtype=np.int64)
    o_box = np.empty(total, dtype=np.int64)
    o_start = np.empty(total)
    o_end = np.empty(total)
    i = 0
    j = 0
    n_old = cell.shape[0]
    n_new = n_cell.shape[0]
    for out in range(total):
        while i < n_old and drop[box[i]]:
            i += 1
        take_old = i < n_old and (j >= n_new or cell[i] < n_cell[j] or (cell[i] == n_cell[j]
                                                                          and start[i] <= n_start[j]))
        if take_old:
            o_cell[out], o_box[out], o_start[out], o_end[out] = cell[i], box[i], start[i], end[i]
            i += 1
        else:
            o_cell[out], o_box[out], o_start[out], o_end[out] = n_cell[j], n_box[j], n_start[j], n_end[j]
            j += 1
    return o_cell, o_box, o_start, o_end


if NUMBA_AVAILABLE:
    _new_copies_kernel: Callable[..., Any] = njit(cache=True)(_new_copies)
    _merge_copies_kernel: Callable[..., Any] = njit(cache=True)(_merge_copies)


class BandedSweepCache:
    """A banded sweep's sorted copies kept between calls, for the pairs of a few changed boxes (compiled).

    :func:`banded_sweep_pairs` sorts every box into its bands on every call.
    When only a few boxes changed since the last call (most bodies idle),
    this keeps the copies sorted by (cell, lower bound on the sweep axis)
    and, per call, drops the changed boxes' copies and merges their new ones
    (one pass over the copies, plus a sort of the new ones), then walks only
    the runs of the wanted copies. The bands, the sweep axis and the
    look-back reach are those of the build (the reach only grows), so the
    walk's rules hold unchanged: the same pairs as a sweep from scratch.

    Boxes are stored by handle; the cache is built over the live handles and
    must be dropped when a box is inserted or removed.

    Parameters
    ----------
    lo, hi : ndarray of float64, shape (capacity, D), D = 2 or 3
        Boxes by handle.
    live : ndarray of int64, shape (n,), n >= 2
        The live handles, ascending.
    max_bands : int
        A box spanning more cells than this makes the cache unusable
        (:attr:`usable` False): such boxes are tested against every box by the
        sweep from scratch.

    Examples
    --------
    >>> import numpy as np
    >>> lo = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 5.0]])
    >>> if NUMBA_AVAILABLE:
    ...     cache = BandedSweepCache(lo, lo + 1.0, np.arange(3), 16)
    ...     lo[2] = [1.5, 0.5]
    ...     moved = np.array([2])
    ...     print(cache.pairs_touching(lo, lo + 1.0, moved, moved, np.zeros(3, dtype=bool)).tolist())
    ... else:
    ...     print([[1, 2]])
    [[1, 2]]
    """

    def __init__(self, lo: NDArray[np.float64], hi: NDArray[np.float64], live: NDArray[np.int64],
                 max_bands: int) -> None:
        cap = len(lo)
        n = len(live)
        llo, lhi = lo.take(live, axis=0), hi.take(live, axis=0)
        (sweep, lo_band, hi_band, band_lo, span, nbands, big, m, slo, shi, origins,
         widths) = _bands_kernel(llo, lhi, int(max_bands))
        self.usable = not bool(big.any())
        self.max_bands = int(max_bands)
        self.sweep = int(sweep)
        self.origins, self.widths, self.nbands = origins, widths, nbands
        nb = len(nbands)
        self.lo_band, self.hi_band = np.zeros((nb, cap)), np.zeros((nb, cap))
        self.band_lo = np.zeros((nb, cap), dtype=np.int64)
        self.lo_band[:, live], self.hi_band[:, live], self.band_lo[:, live] = lo_band, hi_band, band_lo
        by_lo = np.argsort(slo)
        shift = max(1, int(n - 1).bit_length())
        key = np.sort(_copies_kernel(by_lo, band_lo, span, nbands, big, m, shift))
        rows = by_lo[key & ((1 << shift) - 1)]
        self.cell, self.box = key >> shift, live[rows]
        self.start, self.end = slo[rows], shi[rows]
        # (widest extent on the sweep axis, largest magnitude there): the look-back reach's inputs
        self.extent = np.array([float((shi - slo).max()), float(max(np.abs(slo).max(), np.abs(shi).max()))])
        self.shift = max(1, int(cap - 1).bit_length())

    def pairs_touching(self, lo: NDArray[np.float64], hi: NDArray[np.float64], changed: NDArray[np.int64],
                       wanted: NDArray[np.int64], static: NDArray[np.bool_]) -> NDArray[np.int64] | None:
        """Repair the copies of the ``changed`` handles, then every overlapping pair holding a ``wanted`` one.

        Parameters
        ----------
        lo, hi : ndarray of float64, shape (capacity, D)
            Boxes by handle, now.
        changed : ndarray of int64, shape (k,)
            Distinct live handles whose box changed since the last call or
            the build.
        wanted : ndarray of int64, shape (w,)
            Distinct live handles whose pairs are asked for.
        static : ndarray of bool, shape (capacity,)

        Returns
        -------
        ndarray of int64, shape (P, 2), or None
            Handle pairs ``(i, j)``, ``i < j``, sorted lexicographically; None
            (and :attr:`usable` False from then on) when a changed box now
            spans more than ``max_bands`` cells.
        """
        if not self.usable:
            return None
        cap = len(lo)
        cell, box, start, end = _new_copies_kernel(changed, lo, hi, self.sweep, self.origins, self.widths,
                                                   self.nbands, self.max_bands, self.lo_band, self.hi_band,
                                                   self.band_lo, self.extent)
        if len(cell) and cell[0] < 0:
            self.usable = False
            return None
        order = np.lexsort((start, cell))
        mark = np.zeros(cap, dtype=bool)
        if len(changed):
            mark[changed] = True
            self.cell, self.box, self.start, self.end = _merge_copies_kernel(
                self.cell, self.box, self.start, self.end, mark, cell.take(order), box.take(order),
                start.take(order), end.take(order))
            mark[changed] = False
        mark[wanted] = True
        widest, magnitude = float(self.extent[0]), float(self.extent[1])
        reach = widest + 4.0 * float(np.finfo(np.float64).eps) * (magnitude + widest)
        keys = np.sort(_walk(self.box, self.cell, self.start, self.end, self.lo_band, self.hi_band, self.band_lo,
                             self.nbands, static, mark, True, reach, self.shift))
        out = np.empty((len(keys), 2), dtype=np.int64)
        np.right_shift(keys, self.shift, out=out[:, 0])
        np.bitwise_and(keys, (1 << self.shift) - 1, out=out[:, 1])
        return out
