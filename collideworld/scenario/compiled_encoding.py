"""Compiled (numba) twin of :func:`.arrow_source.encode_bits`: a batch's move poses into their stored form in one pass.

The numpy reference makes the differences in place frame by frame, then the
zigzag, then one strided copy per byte plane: five to eight passes over the
batch's values and two temporaries. Here each stored value is made from the
original bits of its slot and of the same slot one and two frames before
(``u - u_prev`` or ``u - 2 u_prev + u_prev2``, docs/scenario-format.md,
"Layout 2" and "Layout 3") and its eight bytes are written straight into the
eight planes: one read of each value, one write of each byte. The output is
the reference's bit for bit (a differential test checks it on random bits
and on recorded loops).

Outline of :func:`encode_planes`:

    for each frame f (entries start[f] .. start[f] + count[f]):
        for each of its slots i (count[f] x width of them):
            v = u[i]                           raw, or
            v = u[i] - u[i - step1]            a first difference, or
            v = u[i] - 2 u[i - step1] + u[i - step1 - step2]   a second one
            layout 3: v = zigzag(v)
            plane k, position i  <-  byte k of v, for k = 0..7
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

__all__ = ["encode_planes", "warm_up_encoder"]


# nogil: a background writer (ArrowScenarioWriter(background=True)) encodes a batch while the
# recording thread goes on; the pass touches only its own arrays
@njit(cache=True, nogil=True)
def _encode_planes(bits: Any, width: int, starts: Any, counts: Any, befores: Any, olders: Any,
                   zigzag: bool) -> Any:  # pragma: no cover - compiled
    m = bits.shape[0]
    out = np.empty((8, m), dtype=np.uint8)
    one = np.uint64(1)
    zero = np.uint64(0)
    sign = np.uint64(63)
    for f in range(starts.shape[0]):
        lo = starts[f] * width
        n = counts[f] * width
        # unsigned arithmetic wraps mod 2**64, as the format's differences do
        b = befores[f] * width - lo  # the slot one frame before is at i + b
        c = olders[f] * width - lo
        mode = 0 if befores[f] < 0 else (1 if olders[f] < 0 else 2)
        for i in range(lo, lo + n):
            v = bits[i]
            if mode == 1:
                v = v - bits[i + b]
            elif mode == 2:
                v = v - bits[i + b] - bits[i + b] + bits[i + c]
            if zigzag:
                # (k << 1) ^ (k >> 63) of the two's complement k, the sign spread by hand (shifts are unsigned)
                v = (v << one) ^ (zero - (v >> sign))
            out[0, i] = v & 0xFF
            out[1, i] = (v >> 8) & 0xFF
            out[2, i] = (v >> 16) & 0xFF
            out[3, i] = (v >> 24) & 0xFF
            out[4, i] = (v >> 32) & 0xFF
            out[5, i] = (v >> 40) & 0xFF
            out[6, i] = (v >> 48) & 0xFF
            out[7, i] = v >> 56
    return out


def encode_planes(bits: np.ndarray[Any, Any], deltas: list[tuple[int, int, int]], layout: int) -> np.ndarray[Any, Any]:
    """The stored form of one field's bits in a batch, as :func:`.arrow_source.encode_bits` makes it.

    ``bits`` is a C-contiguous uint64 array (entries, width), left unchanged; ``deltas`` holds
    (start, start of the previous frame, count) in entries for each repeated frame, in frame order.
    Returns a new uint64 array of the shape of ``bits`` holding the byte planes.

    Examples
    --------
    The numpy reference's example (three frames of one entry: steps of 3, then 4), the same planes:

    >>> from collideworld.scenario.arrow_source import encode_bits
    >>> frames = np.array([[0x0102], [0x0105], [0x0109]], dtype=np.uint64)
    >>> deltas = [(1, 0, 1), (2, 1, 1)]
    >>> encode_planes(frames, deltas, 3).view(np.uint8).reshape(8, -1)[:2].tolist()   # zigzag of 0x0102, 3, 1
    [[4, 6, 2], [2, 0, 0]]
    >>> bool((encode_planes(frames, deltas, 2) == encode_bits(frames.copy(), deltas, 2)).all())
    True
    """
    entries, width = bits.shape
    repeated = {start: before for start, before, _ in deltas}
    # every run of entries: the repeated frames, and the gaps between them stored raw
    runs: list[tuple[int, int, int, int]] = []  # (start, count, previous frame's start, the one before's)
    at = 0
    for start, before, n in deltas:
        if start > at:
            runs.append((at, start - at, -1, -1))
        runs.append((start, n, before, repeated.get(before, -1) if layout >= 3 else -1))
        at = start + n
    if entries > at:
        runs.append((at, entries - at, -1, -1))
    starts, counts, befores, olders = (np.array([r[k] for r in runs], dtype=np.int64) for k in range(4))
    flat = _encode_planes(bits.reshape(-1), width, starts, counts, befores, olders, layout >= 3)
    out: np.ndarray[Any, Any] = flat.reshape(-1).view("<u8").reshape(bits.shape)
    return out


def warm_up_encoder() -> None:
    """Compile (or load from numba's cache) :func:`encode_planes`' one specialisation: a tiny batch of two
    repeated frames. Run by ``collideworld.warm_up`` and the background build (collideworld/build.py).

    Examples
    --------
    >>> warm_up_encoder()   # a second call loads nothing more
    """
    bits = np.arange(12, dtype=np.uint64).reshape(6, 2)
    encode_planes(bits, [(2, 0, 2), (4, 2, 2)], 3)
