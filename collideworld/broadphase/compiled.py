"""Compiled twin of the batched sweep's candidate loop (numba), for ``backend="compiled"``.

:func:`.batched_sweep.overlapping_pairs` prepares the sweep with a few numpy
sorts (band copies, their order by (cell, lower bound)) and then walks the
runs of copies that overlap on the sweep axis. numpy walks them in rounds of
fancy indexing over the whole array, one round per offset; here one loop per
copy walks its own run and tests each candidate in registers. The numpy
steps before and after (preparation, boxes too big for the bands, the final
sort of the pair keys) are shared, so both backends give the same pairs in
the same order.

Outline of :func:`banded_sweep_keys` (two passes, so the output is sized
exactly and no pair allocates):

    for each copy p:        count[p] = pairs p reports
    start = exclusive prefix sum of count
    for each copy p:        write them at start[p] ...

    copy p reports copy q > p of the same cell while q's lower bound is <= p's
    upper bound on the sweep axis, when the two boxes
      * overlap on every band axis (closed boxes: lo_a <= hi_b and lo_b <= hi_a),
      * are not both static, and
      * have their home cell here (the cell of the larger lower band on each
        band axis), so a pair sharing several cells is reported once.
    With ``wanted`` given, only runs from wanted copies are walked forward,
    and each wanted copy also looks back for unwanted copies whose run
    reaches it (copies starting more than the widest box earlier cannot).

Each copy's output goes to a fixed place given by the prefix sum, so the
passes could run copies on several threads (``prange``) with the same
result. NOTE: they run on one: measured on this project's 2-core machine
(shared, so noisy), a ``parallel=True`` build of this loop took 0.94 ms
against 0.94 ms serial at 10,000 boxes and 21.7 against 20.1 ms at 100,000,
and it compiles several seconds longer. No ``fastmath``: it may reorder or
contract the comparisons and break the touching rule.

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
    """Both passes in one loop body (a helper call per copy measured about 40x slower)."""
    m = box.shape[0]
    nb = lo_band.shape[0]
    start = np.zeros(m + 1, dtype=np.int64)
    out = np.empty(0, dtype=np.int64)
    for fill in (False, True):
        if fill:
            for p in range(m):  # exclusive prefix sum, in order: fixed places whatever the threads
                start[p + 1] += start[p]
            out = np.empty(start[m], dtype=np.int64)
        for p in range(m):
            i = box[p]
            c = cell[p]
            at = start[p]
            found = 0
            mine = wanted[i] if use_wanted else True
            # forward: later copies of this cell that start no later than p ends
            q = p + 1
            while mine and q < m and cell[q] == c and start_lo[q] <= end[p]:
                j = box[q]
                q += 1
                if static[i] and static[j]:
                    continue
                home = 0
                for a in range(nb):
                    # the one touching rule: closed boxes, <= both ways
                    if not (lo_band[a, i] <= hi_band[a, j] and lo_band[a, j] <= hi_band[a, i]):
                        home = -1
                        break
                    home = home * nbands[a] + max(band_lo[a, i], band_lo[a, j])
                if home == c:
                    if fill:
                        out[at + found] = (min(i, j) << shift) | max(i, j)
                    found += 1
            # backward, for wanted copies only: unwanted earlier copies whose run reaches p
            q = p - 1
            while use_wanted and mine and q >= 0 and cell[q] == c and start_lo[q] >= start_lo[p] - reach:
                j = box[q]
                q -= 1
                if wanted[j] or end[q + 1] < start_lo[p] or (static[i] and static[j]):
                    continue
                home = 0
                for a in range(nb):
                    if not (lo_band[a, i] <= hi_band[a, j] and lo_band[a, j] <= hi_band[a, i]):
                        home = -1
                        break
                    home = home * nbands[a] + max(band_lo[a, i], band_lo[a, j])
                if home == c:
                    if fill:
                        out[at + found] = (min(i, j) << shift) | max(i, j)
                    found += 1
            if not fill:
                start[p + 1] = found
    return out


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
        One key per pair, in copy order (the caller sorts).

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
