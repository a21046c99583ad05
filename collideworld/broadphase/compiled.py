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

NOTE: one thread. A two-pass form (count per copy, prefix sum, fill at
fixed places) gives the same result on any number of threads, but measured
on this project's 2-core machine (shared, so noisy) its ``prange`` build took
0.94 ms against 0.94 ms serial at 10,000 boxes and 21.7 against 20.1 ms at
100,000, and it compiles several seconds longer. The pairs are sorted by the caller, so their order never
depends on the walk. No ``fastmath``: it may reorder or contract the
comparisons and break the touching rule.

NOTE: numba is optional. Without it :data:`NUMBA_AVAILABLE` is False and
asking a broadphase for ``backend="compiled"`` raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["NUMBA_AVAILABLE", "banded_sweep_keys"]

try:  # numba is optional: the numpy path must work without it
    from numba import njit
except ImportError:  # pragma: no cover - exercised only where numba is absent
    NUMBA_AVAILABLE = False
else:
    NUMBA_AVAILABLE = True

def _banded_sweep_keys(box: Any, cell: Any, start_lo: Any, end: Any, lo_band: Any, hi_band: Any,
                       band_lo: Any, nbands: Any, static: Any, wanted: Any, use_wanted: bool,
                       reach: float, shift: int) -> Any:
    """The walk over all copies.

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
    for p in range(m):
        i = box[p]
        for a in range(nb):
            c_lo[p, a] = lo_band[a, i]
            c_hi[p, a] = hi_band[a, i]
            c_band[p, a] = band_lo[a, i]
        c_static[p] = static[i]
        if use_wanted:
            c_wanted[p] = wanted[i]
    # upper bound on the output: the candidates, counted by a cheap walk of
    # the runs without the pair test (a buffer doubling when full measured
    # 34 against 29 ms CPU for 100,000 3D boxes)
    bound = 0
    for p in range(m):
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
    out = np.empty(bound, dtype=np.int64)
    found = 0
    for p in range(m):
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
                out[found] = (min(i, j) << shift) | max(i, j)
                found += 1
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
                out[found] = (min(i, j) << shift) | max(i, j)
                found += 1
    return out[:found]


if NUMBA_AVAILABLE:
    _kernel: Callable[..., Any] = njit(cache=True)(_banded_sweep_keys)


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
    out: NDArray[np.int64] = _kernel(box, cell, start_lo, end, lo_band, hi_band, band_lo, nbands,
                                    static, w, use_wanted, float(reach), int(shift))
    return out
