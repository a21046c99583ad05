"""The world's default broadphase: a batched banded sweep that also answers queries for a few boxes.

Sweep-and-prune over sorted lists costs a few microseconds per changed box
in Python, and rebuilding it after a busy frame costs far more than a
batched sweep. So this broadphase keeps every box in arrays and answers
both questions a world asks with one numpy sweep each:

* :meth:`pairs`: every overlapping pair (when many boxes changed);
* :meth:`pairs_touching`: the pairs of a few changed boxes, which a world
  that keeps last step's pairs uses to patch them (when few changed).

The world chooses between the two by how many boxes changed
(``incremental_fraction``, ``incremental_minimum``). Both use the same
closed-box rule, so the answer does not depend on which one ran.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .base import Broadphase
from .batched_sweep import BatchedSweep

__all__ = ["AdaptiveBroadphase"]


class AdaptiveBroadphase(Broadphase):
    """A batched banded sweep for busy frames, a touching-pairs query for quiet ones.

    Parameters
    ----------
    dim : {2, 3}
    incremental_fraction : float
        A world patches last step's pairs (through :meth:`pairs_touching`)
        when at most ``max(incremental_minimum, incremental_fraction * n)``
        boxes changed, and asks for all :meth:`pairs` otherwise.
    incremental_minimum : int
    quiet_calls_before_rebuild : int
        Accepted for compatibility; no incremental structure needs
        rebuilding any more, so it has no effect.

    Notes
    -----
    Handles must be small non-negative ints (array indices), as a world's
    slots are. ``last_strategy`` says which question was answered last
    (``"incremental"`` or ``"batched"``).
    """

    def __init__(self, dim: int, *, incremental_fraction: float = 0.2, incremental_minimum: int = 64,
                 quiet_calls_before_rebuild: int = 3) -> None:
        self._dim = dim
        self._all = BatchedSweep(dim)
        self.incremental_fraction = incremental_fraction
        self.incremental_minimum = incremental_minimum
        self.quiet_calls_before_rebuild = quiet_calls_before_rebuild
        self.last_strategy = "batched"

    @property
    def dim(self) -> int:
        return self._dim

    def __len__(self) -> int:
        return len(self._all)

    def __contains__(self, handle: object) -> bool:
        return handle in self._all

    def insert_many(self, handles: ArrayLike, lo: ArrayLike, hi: ArrayLike, static: ArrayLike | None = None) -> None:
        self._all.insert_many(handles, lo, hi, static)

    def update_many(self, handles: ArrayLike, lo: ArrayLike, hi: ArrayLike) -> None:
        self._all.update_many(handles, lo, hi)

    def remove_many(self, handles: ArrayLike) -> None:
        self._all.remove_many(handles)

    def pairs(self) -> NDArray[np.int64]:
        self.last_strategy = "batched"
        return self._all.pairs()

    def pairs_touching(self, handles: ArrayLike) -> NDArray[np.int64]:
        """Every overlapping pair holding at least one of ``handles``; see :meth:`BatchedSweep.pairs_touching`."""
        self.last_strategy = "incremental"
        return self._all.pairs_touching(handles)

    def _check(self) -> None:
        self._all._check()
