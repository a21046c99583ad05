"""The World's argument checks: bits, counts, the dimension, the broadphase asked for.

Plain functions, each raising :class:`~collideworld.errors.InvalidArgumentError`
with what was given and what was expected, before anything changes. They
live beside the World, not in it, so that :mod:`.world` stays the thin
front (``tests/test_layering.py`` caps its code lines).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .broadphase import Broadphase, BruteForceBroadphase, SweepAndPrune
from .broadphase.adaptive import AdaptiveBroadphase
from .broadphase.batched_sweep import BatchedSweep
from .errors import InvalidArgumentError

__all__ = ["STRATEGIES", "U32", "as_array", "bits_array", "check_bits", "check_count", "check_dim",
           "check_max_distance", "check_max_distances", "make_broadphase"]

#: the largest category or mask: 32 bits
U32 = 0xFFFFFFFF
#: the broadphases ``World(broadphase=...)`` names
STRATEGIES: dict[str, type[Broadphase]] = {
    "auto": AdaptiveBroadphase, "sap": SweepAndPrune, "batched": BatchedSweep, "brute_force": BruteForceBroadphase}


def as_array(value: Any, what: str) -> NDArray[Any]:
    """``np.asarray(value)``, with ragged nested lists reported as our error, not numpy's.

    Examples
    --------
    >>> as_array([1, 2], "ids").tolist()
    [1, 2]
    """
    try:
        return np.asarray(value)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{what} must be a scalar or a flat sequence, got {value!r}") from None


def check_bits(value: Any, what: str) -> int:
    """A category or mask: an int in [0, 2**32 - 1] (not a bool).

    Examples
    --------
    >>> check_bits(7, "category")
    7
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidArgumentError(f"{what} must be an unsigned 32-bit int, got {value!r}")
    v = int(value)
    if not 0 <= v <= U32:
        raise InvalidArgumentError(f"{what} must be in [0, {U32}], got {v}")
    return v


def bits_array(value: Any, n: int, what: str) -> NDArray[np.uint32]:
    """``n`` categories or masks: one int for all, or ``n`` ints, each in [0, 2**32 - 1].

    Examples
    --------
    >>> bits_array(3, 2, "mask").tolist()
    [3, 3]
    """
    arr = as_array(value, what)
    if arr.dtype.kind not in "iu" or arr.shape not in ((), (n,)):
        raise InvalidArgumentError(f"{what} must be an int or {n} ints, got {value!r}")
    if arr.size and (arr.min() < 0 or arr.max() > U32):
        raise InvalidArgumentError(f"{what} must be in [0, {U32}], got {value!r}")
    bits: NDArray[np.uint32] = np.broadcast_to(arr.astype(np.uint32), (n,)).copy()
    return bits


def check_count(value: Any, what: str) -> int:
    """A count: an int >= 1 (not a bool).

    Examples
    --------
    >>> check_count(2, "k")
    2
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidArgumentError(f"{what} must be an int >= 1, got {value!r}")
    return int(value)


def check_dim(dim: Any) -> int:
    """The dimension: the int 2 or 3.

    Examples
    --------
    >>> check_dim(3)
    3
    """
    # exactly an int: 2.0, Fraction(2) or Decimal(2) compare equal to 2 but are not dimensions
    if isinstance(dim, (bool, np.bool_)) or not isinstance(dim, (int, np.integer)):
        raise InvalidArgumentError(f"dim must be the int 2 or 3, got {type(dim).__name__} {dim!r}")
    if dim not in (2, 3):
        raise InvalidArgumentError(f"dim must be 2 or 3, got {dim!r}")
    return int(dim)


def make_broadphase(broadphase: Any, dim: int, backend: str) -> Broadphase:
    """The broadphase ``World(broadphase=...)`` asks for: a name of ``STRATEGIES`` or an empty instance.

    Examples
    --------
    >>> type(make_broadphase("sap", 2, "numpy")).__name__
    'SweepAndPrune'
    """
    if isinstance(broadphase, str):
        if broadphase not in STRATEGIES:
            raise InvalidArgumentError(f"broadphase must be one of {sorted(STRATEGIES)} or a Broadphase "
                                       f"instance, got {broadphase!r}")
        strategy: Any = STRATEGIES[broadphase]
        # the brute-force reference has one implementation: it is the reference
        made: Broadphase = strategy(dim) if broadphase == "brute_force" else strategy(dim, backend=backend)
        return made
    if isinstance(broadphase, type):
        raise InvalidArgumentError(f"broadphase must be a Broadphase instance, not a class: got {broadphase!r} "
                                   f"(pass e.g. {broadphase.__name__}({dim}))")
    if not isinstance(broadphase, Broadphase):
        raise InvalidArgumentError(f"broadphase must be one of {sorted(STRATEGIES)} or a Broadphase instance, "
                                   f"got {type(broadphase).__name__} {broadphase!r}")
    if broadphase.dim != dim or len(broadphase):
        raise InvalidArgumentError(f"a broadphase instance must be empty and {dim}D, got a {broadphase.dim}D one "
                                   f"holding {len(broadphase)} boxes")
    return broadphase


def check_max_distance(max_distance: Any) -> float:
    """A ray's or a query's limit: a number >= 0 (inf included; an int past float range is inf).

    Examples
    --------
    >>> check_max_distance(5), check_max_distance(10 ** 400)
    (5.0, inf)
    """
    if type(max_distance) is float and max_distance >= 0.0:  # the common case (inf included; NaN is not >= 0)
        return max_distance
    real = (int, float, np.integer, np.floating)
    if isinstance(max_distance, (bool, np.bool_)) or not isinstance(max_distance, real):
        raise InvalidArgumentError(f"max_distance must be a number >= 0, got {max_distance!r}")
    try:
        limit = float(max_distance)
    except OverflowError:  # an int past float range: farther than anything in the world
        limit = math.inf
    if math.isnan(limit) or limit < 0:
        raise InvalidArgumentError(f"max_distance must be a number >= 0, got {max_distance!r}")
    return limit

def check_max_distances(max_distance: Any, m: int) -> float | NDArray[np.float64]:
    """``raycast_many``'s limit: one number for every ray, or one per ray (an array of shape (m,)).

    Examples
    --------
    >>> check_max_distances([1.0, 2.0], 2).tolist(), check_max_distances(3, 2)
    ([1.0, 2.0], 3.0)
    """
    if isinstance(max_distance, (list, tuple, np.ndarray)):
        try:
            limits = np.array(max_distance, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(f"max_distance must be a number >= 0 or an array of {m} of them (one "
                                       f"per ray), got {max_distance!r}") from exc
        if isinstance(max_distance, np.ndarray) and max_distance.dtype == np.bool_:
            raise InvalidArgumentError("max_distance must be numbers >= 0, got an array of booleans")
        if limits.shape != (m,):
            raise InvalidArgumentError(f"max_distance must be a number >= 0 or an array of shape ({m},) (one "
                                       f"per ray), got an array of shape {limits.shape}")
        bad = np.flatnonzero(~(limits >= 0))  # NaN is not >= 0; inf is allowed
        if len(bad):
            k = int(bad[0])
            raise InvalidArgumentError(f"max_distance must be >= 0 (inf allowed) for every ray, got "
                                       f"max_distance[{k}] = {float(limits[k])!r}")
        return limits
    return check_max_distance(max_distance)
