"""Shared pieces of the compiled (numba) kernels: the touching rule per row, and input coercion.

The numpy kernels apply the touching rule to whole arrays
(``geometry/kernel_support.finish``); the compiled kernels apply it one
row at a time, with the same arithmetic, so both backends decide every
near-touching pair the same way.

NOTE: numba's on-disk cache of a kernel is checked against the kernel's own
source file only; it does not notice edits to the helpers here that the
kernel calls. After editing this file, delete the cache
(``find collideworld -name '*.nbi' -delete -o -name '*.nbc' -delete``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
from numba import njit, types
from numba.extending import intrinsic
from numpy.typing import ArrayLike, NDArray

from ..result import ContactArrays
from ..tolerance import touch_tolerance

__all__ = ["as_rows", "contact_outputs", "einsum_sum", "finish_row", "fma", "touch_rule"]


def as_rows(x: ArrayLike) -> NDArray[np.float64]:
    """``x`` as a C-contiguous float64 array (a copy only when needed).

    One memory layout per argument means one compiled specialisation per
    kernel, which :func:`collideworld.warm_up` can compile ahead of time.

    Parameters
    ----------
    x : array_like, any shape

    Returns
    -------
    ndarray of float64, same shape

    Examples
    --------
    >>> as_rows([[1, 2]]).dtype, as_rows([[1, 2]]).flags.c_contiguous
    (dtype('float64'), True)
    """
    return np.ascontiguousarray(x, dtype=np.float64)


def contact_outputs(n: int, dim: int) -> ContactArrays:
    """Preallocated ``(hit, normal, depth)`` for ``n`` rows, which a row loop fills in.

    Parameters
    ----------
    n : int
    dim : int

    Returns
    -------
    ContactArrays
        ``hit`` (n,) bool, ``normal`` (n, dim), ``depth`` (n,); contents
        unspecified until written.

    Examples
    --------
    >>> out = contact_outputs(3, 2)
    >>> out.hit.shape, out.normal.shape, out.depth.shape
    ((3,), (3, 2), (3,))
    """
    return ContactArrays(np.empty(n, dtype=np.bool_), np.empty((n, dim)), np.empty(n))


def touch_rule() -> tuple[float, float]:
    """The touching rule of :func:`~collideworld.geometry.tolerance.touch_tolerance` as ``(rel, floor)``.

    ``touch_tolerance(scale) == rel * max(floor, |scale|)``. The compiled
    kernels take these two numbers as arguments, read here at run time,
    rather than as globals: numba freezes globals into its cached machine
    code and does not notice when ``tolerance.py`` changes, so an edited rule
    would otherwise leave the two backends deciding touching differently.

    Returns
    -------
    rel, floor : float

    Examples
    --------
    >>> from collideworld.geometry.tolerance import touch_tolerance
    >>> rel, floor = touch_rule()
    >>> all(rel * max(floor, s) == float(touch_tolerance(s)) for s in (0.0, 1e-20, 0.5, 1.0, 1e6))
    True
    """
    rel = float(touch_tolerance(1.0))
    return rel, float(touch_tolerance(0.0)) / rel


@njit(cache=True)
def finish_row(signed: float, scale: float, rule: tuple[float, float], i: int,
               hit: NDArray[np.bool_], depth: NDArray[np.float64]) -> None:
    """The touching rule for row ``i``: hit when ``signed >= -touch_tolerance(scale)``.

    The same comparisons as the numpy ``finish``, with ``np.maximum`` and
    ``np.where`` written as the branches numpy takes, so a signed depth
    exactly at the tolerance goes the same way on both backends.

    Parameters
    ----------
    signed : float
        Positive when penetrating, minus the gap (or a lower bound) when apart.
    scale : float
        Coordinate magnitude of the pair, ``>= 0``.
    rule : (float, float)
        ``(rel, floor)`` from :func:`touch_rule`.
    i : int
        Row to write.
    hit : ndarray of bool, shape (N,)
    depth : ndarray, shape (N,)

    Examples
    --------
    >>> import numpy as np
    >>> hit, depth = np.zeros(2, dtype=bool), np.zeros(2)
    >>> finish_row(-1e-15, 1.0, touch_rule(), 0, hit, depth)
    >>> finish_row(-1e-3, 1.0, touch_rule(), 1, hit, depth)
    >>> hit.tolist(), depth.tolist()
    ([True, False], [0.0, -0.001])
    """
    rel, floor = rule
    big = floor if floor >= scale else scale
    touching = signed >= -(rel * big)
    hit[i] = touching
    if touching:
        depth[i] = signed if signed >= 0.0 else 0.0
    else:
        depth[i] = signed


@njit(cache=True)
def einsum_sum(p0: float, p1: float, p2: float, dim: int) -> float:
    """``p0 + p1 (+ p2)`` in the order numpy's ``einsum`` adds a length-``dim`` contiguous product.

    ``np.einsum("nd,nd->n", ...)`` sums a contiguous axis of 3 with two SIMD
    lanes, as ``(p0 + p2) + p1``; adding in that order keeps the compiled
    kernels bit-for-bit equal to their numpy twins on such builds (a numpy
    built for another vector width may round the last bit differently; the
    differential tests allow for that).

    Parameters
    ----------
    p0, p1, p2 : float
        The products; ``p2`` is ignored when ``dim == 2``.
    dim : int
        2 or 3.

    Returns
    -------
    float

    Examples
    --------
    >>> einsum_sum(1.0, 2.0, 4.0, 3), einsum_sum(1.0, 2.0, 4.0, 2)
    (7.0, 3.0)
    """
    if dim == 3:
        return (p0 + p2) + p1
    return p0 + p1


def _fma(typingctx: Any, a: Any, b: Any, c: Any) -> tuple[Any, Any]:
    """Typing and code generation of :data:`fma`: one ``llvm.fma`` on three float64."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.fma(*args)

    return sig, codegen


#: ``fma(a, b, c)``: ``a * b + c`` with one rounding, inside compiled code only.
#: numpy's ``matmul`` of small float64 matrices accumulates with fused
#: multiply-adds on CPUs that have them, ``fma(a2, b2, fma(a1, b1, a0 b0))``;
#: a kernel twinning a ``matmul`` uses this to round the same way. ``fastmath``
#: stays off: this is one explicit, IEEE-exact operation, not a licence to reorder.
fma = cast(Callable[[float, float, float], float], intrinsic(_fma))
