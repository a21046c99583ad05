"""Compiled twin (numba) of the writer's assembly of a MoveBatch's JSON text.

:func:`.writer._move_batch_pieces` is the Python reference: it cuts each
``move`` entry into constant pieces and slots and joins them. Here one loop
walks the JSON text of the whole (n, k) number matrix, as ``orjson`` (or the
json module) wrote it, ``[[v,v,v],[v,v,v],...]``, and copies each number
between the constant pieces into one output buffer, so no Python object is
made per entry. The text is the same byte for byte (a differential test
checks it over random and awkward values).

Outline of :func:`assemble_moves`:

    for each row i:
        "," between rows, then row_start, then the text of id i
        for each number j of the row:
            gap j (e.g. ',"position":[' or ',' or '],"angle":')
            copy the number's text, less a trailing ".0" (integral; not "-0.0")
        gap k (the row end, "}" or "]}")

The output is sized by an upper bound (numbers only get shorter); nothing is
allocated inside the loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["assemble_moves"]

_COMMA, _CLOSE, _DOT, _ZERO, _MINUS = ord(","), ord("]"), ord("."), ord("0"), ord("-")


@njit(cache=True)
def assemble_moves(numbers: np.ndarray, n: int, k: int, id_bytes: np.ndarray, id_offsets: np.ndarray,
                   row_start: np.ndarray, gaps: np.ndarray, gap_offsets: np.ndarray,
                   out: np.ndarray) -> int:  # pragma: no cover - compiled; run through the writer's tests
    """Write the ``move`` entries of n rows into ``out``; return how many bytes.

    Parameters
    ----------
    numbers : ndarray of uint8
        JSON text of an (n, k) matrix of finite floats: ``[[a,b],[c,d]]``.
    n, k : int
        Rows and numbers per row (n >= 1, k >= 1).
    id_bytes : ndarray of uint8
        The ids' JSON texts, concatenated; id i is
        ``id_bytes[id_offsets[i]:id_offsets[i + 1]]``.
    id_offsets : ndarray of int64, shape (n + 1,)
    row_start : ndarray of uint8
        Written before each id (``{"id":``).
    gaps : ndarray of uint8
        The k + 1 constant texts, concatenated: gap j before number j, gap k
        after the last number; gap j is ``gaps[gap_offsets[j]:gap_offsets[j + 1]]``.
    gap_offsets : ndarray of int64, shape (k + 2,)
    out : ndarray of uint8
        Large enough: ``len(numbers) + len(id_bytes) + n * (1 + len(row_start) + len(gaps))``.

    Returns
    -------
    int
        Bytes written to ``out``, the entries separated by commas.

    Examples
    --------
    >>> import numpy as np
    >>> b = lambda s: np.frombuffer(s.encode(), dtype=np.uint8)
    >>> gaps = ',"position":[' + "," + "]}"
    >>> out = np.zeros(200, dtype=np.uint8)
    >>> used = assemble_moves(b("[[1.0,2.5],[-0.0,3.0]]"), 2, 2, b('7"a"'), np.array([0, 1, 4]),
    ...                       b('{"id":'), b(gaps), np.array([0, 13, 14, 16]), out)
    >>> out[:used].tobytes().decode()
    '{"id":7,"position":[1,2.5]},{"id":"a","position":[-0.0,3]}'
    """
    o = 0
    p = 2  # past "[["
    for i in range(n):
        if i > 0:
            out[o] = _COMMA
            o += 1
        for t in range(row_start.shape[0]):
            out[o] = row_start[t]
            o += 1
        for t in range(id_offsets[i], id_offsets[i + 1]):
            out[o] = id_bytes[t]
            o += 1
        for j in range(k):
            for t in range(gap_offsets[j], gap_offsets[j + 1]):
                out[o] = gaps[t]
                o += 1
            start = o
            c = numbers[p]
            while c != _COMMA and c != _CLOSE:  # copy the number's text as it is scanned
                out[o] = c
                o += 1
                p += 1
                c = numbers[p]
            p += 1  # past the "," or "]"
            # A shortest round-trip text ending in ".0" is an integral value; the
            # JSON integer is that double's exact value, so it reads back the
            # same. "-0.0" keeps its point: "-0" would read back as the integer 0.
            size = o - start
            if (size >= 3 and out[o - 2] == _DOT and out[o - 1] == _ZERO
                    and not (size == 4 and out[start] == _MINUS and out[start + 1] == _ZERO)):
                o -= 2
        for t in range(gap_offsets[k], gap_offsets[k + 1]):
            out[o] = gaps[t]
            o += 1
        p += 2  # past ",[" between rows (or past the end)
    return o
