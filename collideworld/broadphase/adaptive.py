"""The world's default broadphase: incremental when few boxes change, batched when many do.

Sweep-and-prune over sorted lists costs a few microseconds per changed box
and nothing for the rest; the batched banded sweep costs about the same for
every frame whatever changed. So each :meth:`pairs` call looks at how many
boxes changed since the last one and

* few changed: replays those changes into the sweep-and-prune and answers
  from its incrementally maintained pair set;
* many changed: answers with one batched sweep over all boxes and leaves the
  sweep-and-prune stale (updating it would cost more than it saves);
* few changed but the sweep-and-prune is stale: keeps answering with the
  batched sweep until the scene has been quiet for a few calls in a row, then
  rebuilds the sweep-and-prune once, so a scene that alternates between busy
  and quiet frames does not pay a rebuild every time.

Both strategies implement the same closed-box rule, so the answer does not
depend on which one ran.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .base import Broadphase
from .batched_sweep import BatchedSweep
from .sweep_and_prune import SweepAndPrune

__all__ = ["AdaptiveBroadphase"]


class AdaptiveBroadphase(Broadphase):
    """Sweep-and-prune for quiet frames, a batched banded sweep for busy ones.

    Parameters
    ----------
    dim : {2, 3}
    incremental_fraction : float
        A call with at most ``max(incremental_minimum, incremental_fraction * n)``
        changed boxes is answered incrementally.
    quiet_calls_before_rebuild : int
        Quiet calls in a row before a stale sweep-and-prune is rebuilt.

    Notes
    -----
    Handles must be small non-negative ints (array indices), as a world's
    slots are. ``last_strategy`` says which strategy answered the last
    :meth:`pairs` call (``"incremental"`` or ``"batched"``).
    """

    def __init__(self, dim: int, *, incremental_fraction: float = 0.03, incremental_minimum: int = 64,
                 quiet_calls_before_rebuild: int = 3) -> None:
        self._dim = dim
        self._all = BatchedSweep(dim)  # always current: holds every box
        self._sap: SweepAndPrune | None = SweepAndPrune(dim)
        self._dirty = np.zeros(0, dtype=bool)
        self._quiet = 0
        self.incremental_fraction = incremental_fraction
        self.incremental_minimum = incremental_minimum
        self.quiet_calls_before_rebuild = quiet_calls_before_rebuild
        self.last_strategy = "incremental"
        self._cache: NDArray[np.int64] | None = None

    @property
    def dim(self) -> int:
        return self._dim

    def __len__(self) -> int:
        return len(self._all)

    def __contains__(self, handle: object) -> bool:
        return handle in self._all

    def _mark(self, handles: NDArray[np.int64]) -> None:
        if len(handles) == 0:
            return
        top = int(handles.max())
        if top >= len(self._dirty):
            grown = np.zeros(max(top + 1, 2 * len(self._dirty)), dtype=bool)
            grown[: len(self._dirty)] = self._dirty
            self._dirty = grown
        self._dirty[handles] = True

    def insert_many(self, handles: ArrayLike, lo: ArrayLike, hi: ArrayLike, static: ArrayLike | None = None) -> None:
        self._all.insert_many(handles, lo, hi, static)  # validates everything first
        h = np.asarray(handles, dtype=np.int64).reshape(-1)
        if self._sap is not None:
            self._flush()
            self._sap.insert_many(h, self._all._lo[h], self._all._hi[h], self._all._static[h])
        self._cache = None

    def update_many(self, handles: ArrayLike, lo: ArrayLike, hi: ArrayLike) -> None:
        self._all.update_many(handles, lo, hi)
        self._mark(np.asarray(handles, dtype=np.int64).reshape(-1))
        self._cache = None

    def remove_many(self, handles: ArrayLike) -> None:
        self._all.remove_many(handles)
        h = np.asarray(handles, dtype=np.int64).reshape(-1)
        if self._sap is not None:
            self._flush()
            self._sap.remove_many(h)
        self._cache = None

    def _dirty_handles(self) -> NDArray[np.int64]:
        return np.flatnonzero(self._dirty)

    def _flush(self) -> None:
        """Replay pending box changes into the sweep-and-prune."""
        assert self._sap is not None
        dirty = self._dirty_handles()
        if len(dirty):
            self._dirty[dirty] = False
            self._sap.update_many(dirty, self._all._lo[dirty], self._all._hi[dirty])

    def pairs(self) -> NDArray[np.int64]:
        if self._cache is not None:
            return self._cache
        dirty = self._dirty_handles()
        small = len(dirty) <= max(self.incremental_minimum, self.incremental_fraction * len(self._all))
        self._quiet = self._quiet + 1 if small else 0
        if self._sap is None and small and self._quiet >= self.quiet_calls_before_rebuild:
            live = np.flatnonzero(self._all._alive)
            sap = SweepAndPrune(self._dim)
            sap.insert_many(live, self._all._lo[live], self._all._hi[live], self._all._static[live])
            self._sap = sap
            self._dirty[:] = False
            dirty = dirty[:0]
        if self._sap is not None and small:
            self._flush()
            self.last_strategy = "incremental"
            self._cache = self._sap.pairs()
        else:
            self._sap = None  # stale from now on: busy frames do not pay for it
            self._dirty[:] = False
            self.last_strategy = "batched"
            self._cache = self._all.pairs()
        return self._cache

    def _check(self) -> None:
        self._all._check()
        if self._sap is not None:
            self._flush()
            self._sap._check()
            assert np.array_equal(self._sap.pairs(), self._all.pairs())
