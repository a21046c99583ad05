"""The world's default broadphase: sweep-and-prune when little moves, a batched sweep when much does.

The two strategies cost differently:

* the incremental sweep-and-prune (:class:`.SweepAndPrune`) pays per
  *changed* box, a few to a few tens of microseconds each (more in large
  scenes, where an endpoint crosses more others), and nothing for the
  boxes that stayed put;
* the batched banded sweep (:class:`.BatchedSweep`) pays for *every* box,
  a fraction of a microsecond each, whatever changed.

So a frame where ten boxes out of 100,000 changed is cheap only for the
first, and a frame where a thousand changed is cheap only for the second.
This class keeps every box in the batched sweep's arrays (always current)
and a sweep-and-prune beside it, and answers each question with the one it
expects to be cheaper:

    on every call to pairs() or pairs_touching(changed):
        cost_sap   = (seconds per box update, measured) * boxes the SAP has not seen
        cost_sweep = (seconds per box swept, measured) * all boxes
        if the SAP exists and cost_sap <= cost_sweep:
            replay the pending changes into the SAP; answer from its pair sets
        else:
            answer with one batched sweep; the SAP falls behind
            (drop it once it is so far behind that rebuilding is cheaper;
             build it again after a few calls in a row on which it would
             have been the cheaper one)

Both strategies implement the same closed-box rule, so the answer never
depends on which one ran; only the time does. The costs are running means
of measured times, so the choice adapts to the machine and the scene.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .base import Broadphase, as_handles
from .batched_sweep import BatchedSweep
from .sweep_and_prune import SweepAndPrune

__all__ = ["AdaptiveBroadphase", "SWITCH_BUDGET_CALLS"]

#: Weight of the newest measurement in the running mean of a cost.
_COST_SMOOTHING = 0.3

#: A strategy switch may cost at most this many calls of the strategy it leaves.
SWITCH_BUDGET_CALLS = 4


class AdaptiveBroadphase(Broadphase):
    """Sweep-and-prune for quiet frames, a batched banded sweep for busy ones.

    Parameters
    ----------
    dim : {2, 3}
    incremental_fraction : float
        A world patches last step's pairs (through :meth:`pairs_touching`)
        when at most ``max(incremental_minimum, incremental_fraction * n)``
        boxes changed, and asks for all :meth:`pairs` otherwise.
    incremental_minimum : int
    quiet_calls_before_rebuild : int
        Calls in a row on which the sweep-and-prune would have been cheaper
        before it is built (again). 0 keeps it always (it is never dropped),
        which tests use to exercise it on every call.
    backend : {"numpy", "compiled"}
        Backend of the batched sweep (see
        :class:`~collideworld.broadphase.batched_sweep.BatchedSweep`).

    Notes
    -----
    Handles must be small non-negative ints (array indices), as a world's
    slots are. ``sap_builds`` counts the times the sweep-and-prune was
    built: a switch whose pair set is predicted to cost more to load than
    :data:`SWITCH_BUDGET_CALLS` calls of the batched sweep is not made.
    ``last_strategy`` says which strategy answered the last call
    (``"incremental"`` or ``"batched"``).

    Examples
    --------
    >>> bp = AdaptiveBroadphase(2)
    >>> bp.insert_many([0, 1, 2], [[0, 0], [1, 0], [5, 5]], [[1, 1], [2, 1], [6, 6]])
    >>> bp.pairs().tolist()
    [[0, 1]]
    >>> bp.update(2, [2, 1], [3, 2])      # touches box 1 at its corner
    >>> bp.pairs_touching([2]).tolist()
    [[1, 2]]
    """

    def __init__(self, dim: int, *, incremental_fraction: float = 0.2, incremental_minimum: int = 64,
                 quiet_calls_before_rebuild: int = 3, backend: str = "numpy") -> None:
        self._dim = dim
        self._all = BatchedSweep(dim, backend=backend)  # always current: holds every box
        self._sap: SweepAndPrune | None = None
        self._stale = np.zeros(0, dtype=bool)  # boxes changed since the SAP last saw them
        self._n_stale = 0
        self._quiet = 0
        self._recent = 0  # boxes inserted, updated or removed since the last question
        # priors, replaced by measurements as calls are made (2-core machine,
        # 10,000 boxes: about 14 us per SAP box update, 0.13 us per box swept)
        self._sap_cost = 15e-6
        self._sweep_cost = 0.15e-6
        self.incremental_fraction = incremental_fraction
        self.incremental_minimum = incremental_minimum
        self.quiet_calls_before_rebuild = quiet_calls_before_rebuild
        self.last_strategy = "batched"
        self.sap_builds = 0
        self._pairs_estimate = 0
        # measured on the 2-core machine: building the SAP over 3,000
        # mutually overlapping boxes (4.5M pairs) took 1.4-2.5 s, sweep included
        self._pair_load_cost = 0.4e-6

    @property
    def dim(self) -> int:
        return self._dim

    def __len__(self) -> int:
        return len(self._all)

    def __contains__(self, handle: object) -> bool:
        return handle in self._all

    # -- mutation: the batched arrays at once, the SAP now or later ----------------

    def insert_many(self, handles: ArrayLike, lo: ArrayLike, hi: ArrayLike, static: ArrayLike | None = None) -> None:
        self._all.insert_many(handles, lo, hi, static)  # validates everything first
        h = as_handles(handles)
        self._recent += len(h)
        if self._sap is not None:
            if 4 * len(h) > len(self._all) and self.quiet_calls_before_rebuild:
                self._drop_sap()  # rebuilding later is cheaper than inserting this many
            else:
                self._sap.insert_many(h, *self._all.boxes(h))
                self._grow_stale(h)

    def update_many(self, handles: ArrayLike, lo: ArrayLike, hi: ArrayLike) -> None:
        self._all.update_many(handles, lo, hi)
        self._updated(as_handles(handles))

    def _updated(self, h: NDArray[np.int64]) -> None:
        """The bookkeeping of an update of live handles ``h`` (the batched arrays have their boxes)."""
        self._recent += len(h)
        if self._sap is not None:
            fresh = h[~self._stale[h]]
            self._stale[fresh] = True
            self._n_stale += len(fresh)
            if 4 * self._n_stale > len(self._all) and self.quiet_calls_before_rebuild:
                self._drop_sap()

    def update_known(self, handles: NDArray[np.int64], lo: NDArray[np.float64], hi: NDArray[np.float64]) -> None:
        """:meth:`update_many` without its checks, for a caller that guarantees them.

        ``handles``: a 1-D int64 array of live, distinct handles; ``lo``, ``hi``:
        (M, D) float64 arrays of finite corners, ``lo <= hi``, zeros as +0.0
        (what ``as_boxes`` returns): the world's refit of its own fat boxes.
        """
        self._all.update_known(handles, lo, hi)
        self._updated(handles)

    def remove_many(self, handles: ArrayLike) -> None:
        self._all.remove_many(handles)
        h = as_handles(handles)
        self._recent += len(h)
        if self._sap is not None:
            self._sap.remove_many(h)
            self._n_stale -= int(np.count_nonzero(self._stale[h]))
            self._stale[h] = False

    # -- questions -------------------------------------------------------------------

    def pairs(self) -> NDArray[np.int64]:
        return self._answer(lambda sap: sap.pairs(), lambda sweep: sweep.pairs(), asked=None)

    def pairs_touching(self, handles: ArrayLike) -> NDArray[np.int64]:
        """Every overlapping pair holding at least one of ``handles`` (live), sorted, ``i < j``."""
        return self._answer(lambda sap: sap.pairs_touching(handles), lambda sweep: sweep.pairs_touching(handles),
                            asked=len(as_handles(handles)))

    # -- the choice ------------------------------------------------------------------

    def prefers_incremental(self, changed: int) -> bool:
        return changed <= max(self.incremental_minimum, self.incremental_fraction * len(self))

    def _answer(self, by_sap: Callable[[SweepAndPrune], NDArray[np.int64]],
                by_sweep: Callable[[BatchedSweep], NDArray[np.int64]], asked: int | None) -> NDArray[np.int64]:
        """Ask the strategy expected to be cheaper; learn from what it cost.

        ``asked``: how many handles a ``pairs_touching`` call asked about
        (None for ``pairs``), to estimate the total pair count from its answer.
        """
        changed, self._recent = self._recent, 0
        n = len(self._all)
        if self._sap is not None and (not self.quiet_calls_before_rebuild
                                      or self._sap_cost * self._n_stale <= self._sweep_cost * n):
            self._sync_sap()
            self.last_strategy = "incremental"
            return by_sap(self._sap)
        t = time.perf_counter()
        out = by_sweep(self._all)
        call = time.perf_counter() - t
        self.last_strategy = "batched"
        if n:
            self._sweep_cost += _COST_SMOOTHING * (call / n - self._sweep_cost)
        # total pairs: counted by a full answer, else the asked boxes' mean degree times n / 2
        if asked is None:
            self._pairs_estimate = len(out)
        elif asked:
            self._pairs_estimate = len(out) * n // (2 * asked)
        if self._sap is None:
            # would a SAP have been cheaper on this call? (the boxes changed
            # since the last call are the ones it would have had to replay)
            self._quiet = self._quiet + 1 if self._sap_cost * changed <= self._sweep_cost * n else 0
            if self._quiet >= self.quiet_calls_before_rebuild:
                # a switch may cost a few calls of the strategy it leaves, no more
                if not self.quiet_calls_before_rebuild or self._build_cost() <= SWITCH_BUDGET_CALLS * call:
                    self._build_sap()
                else:
                    self._quiet = 0  # too dense to switch now; count quiet calls again
        return out

    def _build_cost(self) -> float:
        """Predicted seconds to load the SAP's pair set (a fixed per-pair cost times the pairs expected).

        In a dense scene this is what a switch costs: 3,000 mutually
        overlapping boxes have 4.5M pairs, whose loading costs far more than
        the batched sweep's answer about the few boxes that moved.

        NOTE: the endpoint lists cost a few microseconds per box on top
        (Python ints, sorted), about 0.3 s for 100,000 boxes on the 2-core
        machine: more than four batched calls there. That part is not in
        the budget; the sweep-and-prune would otherwise never be built in a
        large quiet world, where it answers in a millisecond what the
        batched sweep answers in tens.
        """
        return self._pair_load_cost * self._pairs_estimate

    def _sync_sap(self) -> None:
        """Replay the changes the SAP has not seen; measure what that cost per box."""
        assert self._sap is not None
        stale = np.flatnonzero(self._stale)
        if not len(stale):
            return
        t = time.perf_counter()
        self._stale[stale] = False
        self._n_stale = 0
        lo, hi, _ = self._all.boxes(stale)
        self._sap.update_many(stale, lo, hi)
        per_box = (time.perf_counter() - t) / len(stale)
        self._sap_cost += _COST_SMOOTHING * (per_box - self._sap_cost)

    def _grow_stale(self, handles: NDArray[np.int64]) -> None:
        """Make the stale marks cover every handle in ``handles`` (ints >= 0)."""
        top = int(handles.max()) + 1 if len(handles) else 0
        if len(self._stale) < top:
            grown = np.zeros(max(top, 2 * len(self._stale)), dtype=bool)
            grown[: len(self._stale)] = self._stale
            self._stale = grown

    def _build_sap(self) -> None:
        live = self._all.live_handles()
        sap = SweepAndPrune(self._dim, backend=self._all.backend)
        sap.insert_many(live, *self._all.boxes(live))
        self.sap_builds += 1
        self._sap = sap
        self._stale = np.zeros(0, dtype=bool)
        self._grow_stale(live)
        self._n_stale = 0
        self._quiet = 0

    def _drop_sap(self) -> None:
        self._sap = None
        self._stale = np.zeros(0, dtype=bool)
        self._n_stale = 0
        self._quiet = 0

    def validate(self) -> None:
        self._all.validate()
        if self._sap is not None:
            self._sap.validate()
            live = self._all.live_handles()
            assert not len(live) or len(self._stale) > live[-1]
            assert int(np.count_nonzero(self._stale)) == self._n_stale
            fresh = live
            fresh = fresh[~self._stale[fresh]] if len(self._stale) else fresh
            assert all(h in self._sap for h in fresh.tolist())
            assert len(self._sap) == len(self._all)
