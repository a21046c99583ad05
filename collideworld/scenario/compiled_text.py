"""Compiled (numba) JSON text of a MoveBatch: shortest round-trip floats and the text around them.

:func:`.writer._move_rows_python` is the Python reference: it formats the
numbers with ``orjson`` (or the json module) and cuts each ``move`` entry
into constant pieces and slots. Here one loop walks the rows and writes each
entry, id and numbers, straight into one output buffer, so neither a Python
object nor an intermediate text is made per number. The text is the same as
the reference's up to the notation of a number (a differential test checks
that both read back as the same values, and :func:`write_doubles` is checked
against ``repr(float)`` character for character).

Each float is written as the shortest decimal that reads back as exactly
that float, the closest to it among the shortest (ties to an even last
digit), in the layout of Python's ``repr(float)`` (plain digits for decimal
exponents -4 to 15, else ``d.ddde+XX``), except that an integral value
drops its ``.0`` (``3``, not ``3.0``; ``-0.0`` keeps it, since ``-0`` would
read back as the integer 0). Every such text is a valid JSON number.

The digits come from Giulietti's Schubfach algorithm (R. Giulietti, "The
Schubfach way to render doubles", 2020), written here from the paper:

    v = c * 2**q, its rounding interval [v - 2**q/2, v + 2**q/2]
        (open when c is odd: the reader rounds ties to even)
    k = floor(log10(2**q))  (of 3/4 * 2**q at a power of two, whose lower
        half-gap is half as wide), so 10**k <= the interval's width < 10**(k + 1)
    multiply 4v and the two bounds by 10**-k (a 126-bit table value, rounded
        to odd: the products are exact enough to compare, the paper proves)
    s = floor(v / 10**k); at most one multiple of 10**(k + 1) is in the
        interval: if exactly one of s rounded down/up to it is, it is the
        shortest; else one of s, s + 1 (the one inside, or the closer)

Python's repr (David Gay's shortest mode) picks the same decimal, and unlike
Java's rendering of Schubfach it never pads a one-digit subnormal such as
``5e-324`` to two digits, so neither is done here. The 128-bit products are
done with 64-bit halves; the table of powers of ten and the per-exponent
``k`` are computed at import with Python's exact integers.

Outline of :func:`write_moves`:

    for each row i:
        "," between rows, then row_start, then the text of id i
        for each number j of the row:
            gap j (e.g. ',"position":[' or ',' or '],"angle":'), then the number
        gap k (the row end, "}" or "]}")

The output is sized by an upper bound (:data:`MAX_DOUBLE_TEXT` bytes a
number); nothing is allocated inside the loop.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from llvmlite import ir  # type: ignore[import-untyped]
from numba import njit, types
from numba.extending import intrinsic

__all__ = ["MAX_DOUBLE_TEXT", "SLACK", "write_doubles", "write_moves"]

#: Bytes of the longest text of a finite double (``-2.2250738585072014e-308``).
MAX_DOUBLE_TEXT = 24
#: Bytes of padding after every text these functions read, and of room after
#: what they write: text is moved 8 bytes at a time, and a number's zeros 16.
SLACK = 32

_Q_MIN = -1074  # the exponent of the subnormals' unit: v = c * 2**q
_K_MIN, _K_MAX = -324, 292  # the range of k = floor(log10(2**q)) over doubles


def _floor_log10_of(num: int, den: int) -> int:
    """floor(log10(num / den)) for positive ints, exactly."""
    k = math.floor(math.log10(num) - math.log10(den)) - 1  # at most one off; fixed below
    while _at_least(num, den, k + 1):
        k += 1
    while not _at_least(num, den, k):
        k -= 1
    return k


def _at_least(num: int, den: int, k: int) -> bool:
    """num / den >= 10**k, exactly."""
    return bool(num * 10 ** max(-k, 0) >= den * 10 ** max(k, 0))


def _floor_log2_pow10(e: int) -> int:
    """floor(log2(10**e)), exactly."""
    if e >= 0:
        return int(10**e).bit_length() - 1
    return -(int(10**-e - 1).bit_length())  # -ceil(log2(10**-e)); 10**-e is not a power of two


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per biased exponent: k and h for the symmetric and the power-of-two interval;
    per k: the table value g = floor(10**-k / 2**r) + 1 in [2**125, 2**126], as two 63-bit halves."""
    k_sym = np.zeros(2047, dtype=np.int64)
    h_sym = np.zeros(2047, dtype=np.int64)
    k_pow2 = np.zeros(2047, dtype=np.int64)
    h_pow2 = np.zeros(2047, dtype=np.int64)
    log2_pow10 = {k: _floor_log2_pow10(-k) for k in range(_K_MIN, _K_MAX + 1)}
    for bq in range(2047):
        q = max(bq, 1) - 1075  # subnormals (bq 0) share the smallest normal exponent
        num, den = (2**q, 1) if q >= 0 else (1, 2**-q)
        k_sym[bq] = _floor_log10_of(num, den)
        k_pow2[bq] = _floor_log10_of(3 * num, 4 * den)
        h_sym[bq] = q + log2_pow10[int(k_sym[bq])] + 2
        h_pow2[bq] = q + log2_pow10[int(k_pow2[bq])] + 2
    g_high = np.zeros(_K_MAX - _K_MIN + 1, dtype=np.uint64)
    g_low = np.zeros(_K_MAX - _K_MIN + 1, dtype=np.uint64)
    for k in range(_K_MIN, _K_MAX + 1):
        r = log2_pow10[k] - 125  # 10**-k = beta * 2**r with 2**125 <= beta < 2**126
        num, den = 10 ** max(-k, 0) * 2 ** max(-r, 0), 10 ** max(k, 0) * 2 ** max(r, 0)
        g = num // den + 1
        assert 2**125 <= g <= 2**126, k
        g_high[k - _K_MIN] = g >> 63
        g_low[k - _K_MIN] = g & (2**63 - 1)
    return k_sym, h_sym, k_pow2, h_pow2, g_high, g_low


_K_SYM, _H_SYM, _K_POW2, _H_POW2, _G_HIGH, _G_LOW = _tables()
_POW10 = np.array([10**i for i in range(20)], dtype=np.uint64)

_U = np.uint64
_ONE, _TWO, _TEN, _HUNDRED = _U(1), _U(2), _U(10), _U(100)
_TEN_THOUSAND, _HUNDRED_MILLION, _TEN_TO_16 = _U(10**4), _U(10**8), _U(10**16)
_LOW32, _LOW52, _LOW63 = _U(2**32 - 1), _U(2**52 - 1), _U(2**63 - 1)
_HIDDEN = _U(2**52)
_S1, _S2, _S8, _S10, _S16, _S20, _S32, _S52, _S63 = (_U(v) for v in (1, 2, 8, 10, 16, 20, 32, 52, 63))
_EXP_MASK = _U(0x7FF)
_LANES_7, _LANES_4 = _U(0x0000007F_0000007F), _U(0x000F_000F_000F_000F)
_ASCII_ZEROS = _U(0x30303030_30303030)  # "00000000"
_ZERO_POINT_ZEROS = _U(int.from_bytes(b"0.000000", "little"))
_MINUS, _DOT, _ZERO, _E, _PLUS, _COMMA = (ord(c) for c in "-.0e+,")


def _high64_typing(typingctx: Any, a: Any, b: Any) -> Any:  # pragma: no cover - compiled
    """The high 64 bits of the 128-bit product of two uint64 (one LLVM ``mul i128``)."""
    signature = types.uint64(types.uint64, types.uint64)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        return builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))

    return signature, codegen


_high64 = cast(Callable[[Any, Any], int], intrinsic(_high64_typing))


def _leading_zeros_typing(typingctx: Any, x: Any) -> Any:  # pragma: no cover - compiled
    """The leading zero bits of a uint64 (64 for 0): one LLVM ``ctlz``."""
    signature = types.int64(types.uint64)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

    return signature, codegen


_leading_zeros = cast(Callable[[Any], int], intrinsic(_leading_zeros_typing))


def _address_typing(typingctx: Any, array: Any) -> Any:  # pragma: no cover - compiled
    """The address of an array's first byte, as an int.

    The helpers below write through it rather than take the array: an array
    argument of an inlined function costs a reference count increment and
    decrement per call, more than formatting a number.
    """
    signature = types.uint64(array)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        data = context.make_array(sig.args[0])(context, builder, args[0]).data
        return builder.ptrtoint(data, ir.IntType(64))

    return signature, codegen


_address = cast(Callable[[Any], int], intrinsic(_address_typing))


def _pointer(context: Any, builder: Any, sig: Any, args: Any, bits: int) -> Any:
    """An i<bits>* to byte ``args[1]`` from the address ``args[0]`` (no alignment assumed)."""
    base = builder.inttoptr(args[0], ir.IntType(8).as_pointer())
    offset = context.cast(builder, args[1], sig.args[1], types.intp)
    return builder.bitcast(builder.gep(base, [offset]), ir.IntType(bits).as_pointer())


def _load8_typing(typingctx: Any, address: Any, index: Any) -> Any:  # pragma: no cover - compiled
    """The 8 bytes at address + index as one uint64 (little-endian: the first byte is the lowest)."""
    signature = types.uint64(types.uint64, index)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.load(_pointer(context, builder, sig, args, 64), align=1)

    return signature, codegen


_load8 = cast(Callable[[Any, Any], int], intrinsic(_load8_typing))


def _load1_typing(typingctx: Any, address: Any, index: Any) -> Any:  # pragma: no cover - compiled
    """The byte at address + index."""
    signature = types.uint8(types.uint64, index)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.load(_pointer(context, builder, sig, args, 8), align=1)

    return signature, codegen


_load1 = cast(Callable[[Any, Any], int], intrinsic(_load1_typing))


def _store8_typing(typingctx: Any, address: Any, index: Any, value: Any) -> Any:  # pragma: no cover - compiled
    """The 8 bytes at address + index = those of the uint64 value, the lowest first."""
    signature = types.void(types.uint64, index, types.uint64)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        builder.store(args[2], _pointer(context, builder, sig, args, 64), align=1)
        return context.get_dummy_value()

    return signature, codegen


_store8 = cast(Callable[[Any, Any, Any], None], intrinsic(_store8_typing))


def _store1_typing(typingctx: Any, address: Any, index: Any, value: Any) -> Any:  # pragma: no cover - compiled
    """The byte at address + index = value (an int from 0 to 255)."""
    signature = types.void(types.uint64, index, value)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        byte = context.cast(builder, args[2], sig.args[2], types.uint8)
        builder.store(byte, _pointer(context, builder, sig, args, 8), align=1)
        return context.get_dummy_value()

    return signature, codegen


_store1 = cast(Callable[[Any, Any, Any], None], intrinsic(_store1_typing))


@njit(cache=True, inline="always")
def _scaled(g_high: int, g_low: int, cp: int) -> Any:  # pragma: no cover - compiled
    """floor(g * cp / 2**127), with its last bit set when the rest is not zero (round to odd).

    g = g_high * 2**63 + g_low; the product's lowest bits (of g_low * cp and
    the last bit of g_high * cp) are dropped: the paper shows the result is
    still exact enough for the comparisons made with it.
    """
    x1 = _high64(g_low, cp)
    y0 = g_high * cp  # the low 64 bits (uint64 arithmetic wraps)
    y1 = _high64(g_high, cp)
    z = (y0 >> _S1) + x1
    return (y1 + (z >> _S63)) | (((z & _LOW63) + _LOW63) >> _S63)


@njit(cache=True, inline="always")
def _shortest(bq: int, c: int) -> tuple[int, int]:  # pragma: no cover - compiled
    """The shortest decimal f * 10**e in the rounding interval of c * 2**q (c > 0), the closest
    to it among the shortest; f may end in zeros (integers, and rarely others)."""
    q = max(bq, 1) - 1075
    if 0 < -q < 53:
        f = c >> _U(-q)
        if f << _U(-q) == c:  # an integer below 2**53: its own digits are the shortest
            return f, 0
    odd = c & _ONE  # an odd c's interval is open: its ends read back as its even neighbours
    cb = c << _S2
    cbr = cb + _TWO
    if c != _HIDDEN or bq <= 1:
        cbl = cb - _TWO
        k = _K_SYM[bq]
        h = _H_SYM[bq]
    else:  # a power of two: the gap below is half the gap above
        cbl = cb - _ONE
        k = _K_POW2[bq]
        h = _H_POW2[bq]
    g_high = _G_HIGH[k - _K_MIN]
    g_low = _G_LOW[k - _K_MIN]
    shift = _U(h)
    vb = _scaled(g_high, g_low, cb << shift)
    vbl = _scaled(g_high, g_low, cbl << shift)
    vbr = _scaled(g_high, g_low, cbr << shift)
    s = vb >> _S2
    sp10 = (s // _TEN) * _TEN
    tp10 = sp10 + _TEN
    t = s + _ONE
    # Every test is made, then the answer picked without a branch: which
    # candidates are inside is a coin toss for most floats, and a mispredicted
    # branch costs more than the few extra comparisons.
    low = vbl + odd
    high = vbr - odd
    sp10_in = low <= sp10 << _S2
    tp10_in = tp10 << _S2 <= high
    s_in = low <= s << _S2
    t_in = t << _S2 <= high
    middle = (s + t) << _S1
    s_nearer = (vb < middle) | ((vb == middle) & ((s & _ONE) == _U(0)))  # ties to even
    pick_s = s_in & (~t_in | s_nearer)  # one of s, t is always inside
    f = t - _U(pick_s)
    # One multiple of 10**(k + 1) inside: the shortest. Returned as f / 10 with
    # e = k + 1, so the caller's loop over trailing zeros usually stops at once.
    tens = sp10_in != tp10_in
    f10 = (s // _TEN) + _U(not sp10_in)
    return (f10 if tens else f), k + np.int64(tens)


@njit(cache=True, inline="always")
def _eight_digits(x: int) -> Any:  # pragma: no cover - compiled
    """The 8 ASCII digits of x < 10**8, zero padded, packed in a uint64 with the first digit lowest.

    Split in lanes, all at once (SIMD within a register): two 4-digit halves
    in 32-bit lanes, each cut in two 2-digit halves (x // 100 as
    x * 10486 >> 20, exact below 10**4), each cut in two digits (x // 10 as
    x * 103 >> 10, exact below 100); no lane overflows into the next.
    """
    upper = x // _TEN_THOUSAND
    v = upper | ((x - upper * _TEN_THOUSAND) << _S32)
    hundreds = ((v * _U(10486)) >> _S20) & _LANES_7
    v = hundreds | ((v - hundreds * _HUNDRED) << _S16)
    tens = ((v * _U(103)) >> _S10) & _LANES_4
    v = tens | ((v - tens * _TEN) << _S8)
    return v + _ASCII_ZEROS


@njit(cache=True, inline="always")
def _write_digits(f: int, n: int, buf: int, o: int) -> Any:  # pragma: no cover
    """The n (1 to 17) decimal digits of f < 10**n at buf + o; may scribble on the 8 bytes after.
    Returns the first 8 bytes written, as ``_load8(buf, o)`` would read them, but without
    reading back what was just stored (a load across two stores waits for both)."""
    lead = _U(0)
    if n > 16:
        lead = f // _TEN_TO_16
        _store1(buf, o, _ZERO + np.int64(lead))
        f -= lead * _TEN_TO_16
        o += 1
        n = 16
    if n > 8:
        upper = f // _HUNDRED_MILLION
        head = _eight_digits(upper) >> _U(8 * (16 - n))  # its n - 8 digits, less the padding
        tail = _eight_digits(f - upper * _HUNDRED_MILLION)
        _store8(buf, o, head)
        _store8(buf, o + n - 8, tail)
        if n < 16:
            head |= tail << _U(8 * (n - 8))
    else:
        head = _eight_digits(f) >> _U(8 * (8 - n))
        _store8(buf, o, head)
    if lead:  # a 17th digit is never a leading 0
        head = (_U(_ZERO) + lead) | (head << _S8)
    return head


@njit(cache=True, inline="always")
def _copy(src: int, start: int, end: int, buf: int, o: int) -> int:  # pragma: no cover
    """Copy the bytes src + start to src + end to buf + o, 8 at a time; return the end at buf.

    Reads up to 7 bytes past ``end`` and writes up to 7 past the copy: both
    arrays have that slack, and what is written there is overwritten next.
    """
    for i in range(start, end, 8):
        _store8(buf, o + i - start, _load8(src, i))
    return o + end - start


@njit(cache=True)
def _write_double(b: int, buf: int, o: int) -> Any:  # pragma: no cover - compiled
    """Write the JSON text of the finite double with bits b at buf + o; return the end.
    May scribble on the SLACK bytes after the end."""
    _store1(buf, o, _MINUS)  # kept only for a negative number; no branch on a coin toss
    o += np.int64(b >> _S63)
    bq = np.int64((b >> _S52) & _EXP_MASK)
    c = b & _LOW52
    if bq == 0 and c == _U(0):  # zero: "0", or "-0.0" (a JSON -0 would read back as 0)
        _store8(buf, o, _ZERO_POINT_ZEROS)
        return o + 3 if b >> _S63 else o + 1
    if bq != 0:
        c = c | _HIDDEN
    f, e = _shortest(bq, c)
    while f % _TEN == _U(0):
        f = f // _TEN
        e += 1
    # Its digit count from its bit length (floor(bits * log10(2)) is the count
    # or one less), without a loop whose length would be a coin toss.
    n = ((64 - _leading_zeros(f)) * 1233) >> 12
    n += np.int64(f >= _POW10[n])
    point = n + e  # the value is 0.d1d2...dn * 10**point
    if -4 < point <= 16:  # repr's plain layout
        if point <= 0:  # "0.", up to 3 zeros, the digits
            _store8(buf, o, _ZERO_POINT_ZEROS)
            o += 2 - point
            _write_digits(f, n, buf, o)
            return o + n
        if point >= n:  # integral: the digits, up to 15 zeros, no ".0"
            _write_digits(f, n, buf, o)
            _store8(buf, o + n, _ASCII_ZEROS)
            _store8(buf, o + n + 8, _ASCII_ZEROS)
            return o + point
        # The digits one place on, then the first `point` of them back one
        # place, before the point (one 8-byte merge for the usual point <= 7).
        first = _write_digits(f, n, buf, o + 1)
        if point <= 7:
            keep = (_ONE << _U(8 * point)) - _ONE
            moved = (first & keep) | (_U(_DOT) << _U(8 * point))
            if point < 7:  # digits point + 1 to 7 stay where they are
                moved |= (first << _S8) & ~((_ONE << _U(8 * point + 8)) - _ONE)
            _store8(buf, o, moved)
        else:
            for i in range(point):
                _store1(buf, o + i, _load1(buf, o + i + 1))
            _store1(buf, o + point, _DOT)
        return o + n + 1
    first = _write_digits(f, n, buf, o + 1)  # d.ddd then the exponent, as repr: e+16, e-05, e-308
    _store1(buf, o, first & _U(0xFF))
    if n > 1:
        _store1(buf, o + 1, _DOT)
        o += n + 1
    else:
        o += 1
    _store1(buf, o, _E)
    x10 = point - 1
    if x10 < 0:
        _store1(buf, o + 1, _MINUS)
        x10 = -x10
    else:
        _store1(buf, o + 1, _PLUS)
    o += 2
    if x10 >= 100:
        _store1(buf, o, _ZERO + x10 // 100)
        o += 1
        x10 %= 100
    _store1(buf, o, _ZERO + x10 // 10)
    _store1(buf, o + 1, _ZERO + x10 % 10)
    return o + 2


@njit(cache=True)
def write_doubles(bits: np.ndarray, out: np.ndarray) -> int:  # pragma: no cover - compiled
    """Write finite doubles as JSON numbers, comma separated; return how many bytes.

    Parameters
    ----------
    bits : ndarray of uint64, shape (m,)
        The doubles' bit patterns (``values.view(np.uint64)``); all finite.
    out : ndarray of uint8
        At least ``m * (MAX_DOUBLE_TEXT + 1) + SLACK`` bytes.

    Returns
    -------
    int
        Bytes written: each number's shortest round-trip text (see the
        module docstring), separated by ``,``. The bytes after them are
        scratch.

    Examples
    --------
    >>> import numpy as np
    >>> values = np.array([0.1, 3.0, -0.0, 1e16, 1e-05, 5e-324, 123.456])
    >>> out = np.zeros(len(values) * (MAX_DOUBLE_TEXT + 1) + SLACK, dtype=np.uint8)
    >>> out[:write_doubles(values.view(np.uint64), out)].tobytes().decode()
    '0.1,3,-0.0,1e+16,1e-05,5e-324,123.456'
    """
    buf = _address(out)
    o = 0
    for i in range(bits.shape[0]):
        if i > 0:
            _store1(buf, o, _COMMA)
            o += 1
        o = _write_double(bits[i], buf, o)
    return o


@njit(cache=True)
def write_moves(bits: np.ndarray, n: int, k: int, id_bytes: np.ndarray, id_offsets: np.ndarray,
                row_start: np.ndarray, gaps: np.ndarray, gap_offsets: np.ndarray,
                out: np.ndarray) -> int:  # pragma: no cover - compiled; run through the writer's tests
    """Write the ``move`` entries of n rows into ``out``; return how many bytes.

    Every byte array read here (``id_bytes``, ``row_start``, ``gaps``) is
    followed by :data:`SLACK` bytes of padding, and ``out`` has
    :data:`SLACK` bytes beyond what it needs: text is moved 8 bytes at a time.

    Parameters
    ----------
    bits : ndarray of uint64, shape (n * k,)
        The bit patterns of an (n, k) matrix of finite doubles, row by row.
    n, k : int
        Rows and numbers per row (k >= 1).
    id_bytes : ndarray of uint8
        The ids' JSON texts, concatenated, then the padding; id i is
        ``id_bytes[id_offsets[i]:id_offsets[i + 1]]``.
    id_offsets : ndarray of int64, shape (n + 1,)
    row_start : ndarray of uint8
        Written before each id (``{"id":``), then the padding.
    gaps : ndarray of uint8
        The k + 1 constant texts, concatenated, then the padding: gap j
        before number j, gap k after the last number; gap j is
        ``gaps[gap_offsets[j]:gap_offsets[j + 1]]``.
    gap_offsets : ndarray of int64, shape (k + 2,)
    out : ndarray of uint8
        Large enough: ``n * k * MAX_DOUBLE_TEXT + id_offsets[n]``
        ``+ n * (1 + len(row text) + gap_offsets[k + 1]) + SLACK``.

    Returns
    -------
    int
        Bytes written to ``out``, the entries separated by commas.

    Examples
    --------
    >>> import numpy as np
    >>> b = lambda s: np.frombuffer(s.encode() + bytes(SLACK), dtype=np.uint8)
    >>> gaps = ',"position":[' + "," + "]}"
    >>> out = np.zeros(200, dtype=np.uint8)
    >>> values = np.array([1.0, 2.5, -0.0, 0.1])
    >>> used = write_moves(values.view(np.uint64), 2, 2, b('7"a"'), np.array([0, 1, 4]),
    ...                    b('{"id":'), b(gaps), np.array([0, 13, 14, 16]), out)
    >>> out[:used].tobytes().decode()
    '{"id":7,"position":[1,2.5]},{"id":"a","position":[-0.0,0.1]}'
    """
    row_end = row_start.shape[0] - SLACK
    buf = _address(out)
    ids = _address(id_bytes)
    row = _address(row_start)
    gap = _address(gaps)
    o = 0
    p = 0
    for i in range(n):
        if i > 0:
            _store1(buf, o, _COMMA)
            o += 1
        o = _copy(row, 0, row_end, buf, o)
        o = _copy(ids, id_offsets[i], id_offsets[i + 1], buf, o)
        for j in range(k):
            o = _copy(gap, gap_offsets[j], gap_offsets[j + 1], buf, o)
            o = _write_double(bits[p], buf, o)
            p += 1
        o = _copy(gap, gap_offsets[k], gap_offsets[k + 1], buf, o)
    return o
