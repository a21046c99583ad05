"""When the compiled loops run on several threads, and on how many.

Some compiled loops (the narrowphase's loop over pairs, the broadphase's walk)
exist twice: a serial build and a ``parallel=True`` build of the same Python
function, whose ``prange`` runs over chunks of rows. Each chunk writes to
places fixed before the loop starts (a pair's own row, or a range given by a
prefix sum of counts), so both builds give the same results, bit for bit,
on any number of threads. :func:`threads_for` picks the build per call:

    the batch is smaller than the loop's threshold        -> serial
    set_threads(1) was called, or numba's count is 1      -> serial
    numba's threading layer is not thread-safe            -> serial
    otherwise                                             -> parallel, on
        min(numba.get_num_threads(), the set_threads cap) threads, and with
        no cap set, no more than the cores other processes leave idle

and :func:`loop_threads`, which the step's loops call, goes further: the
serial build wherever the parallel one has measured slower (busy cores).

Why the idle cores: a parallel loop ends at a barrier that waits for every
worker thread, and a worker sharing its core with another busy process
waits for the scheduler. Measured on the 2-core development machine with
one other process at 100 %: the contact loop over 3,580 pairs took 0.26 ms
on one thread and 7 ms (median) on two. With no cap, the loops therefore
use at most ``cores - (1-minute load average - 1) + 0.5`` threads (this
process counts once in the load), read at most once a second; an explicit
:func:`set_thread_cap` is obeyed as given.

Why the layer matters: numba's ``workqueue`` layer (the one it falls back
to without OpenMP or TBB) aborts the whole process when two Python threads
run parallel kernels at the same time, and separate worlds may be stepped
from separate threads. The layer is found once, by loading it as numba's
first parallel call would; only ``omp`` and ``tbb`` are thread-safe.

A child process forked after the layer was loaded stays serial too: GNU
OpenMP's threads do not survive a fork, and its next parallel loop would
abort the child (``multiprocessing`` forks by default on Linux).

NOTE: serial by default (a cap of 1) until :func:`collideworld.set_threads`
asks for threads. On the 2-core development machine (a VM shared with other
work) two threads shortened back-to-back frames (3D 5,000 bodies: 4.9 ->
3.5 ms) but, between frames of other engines in ``benchmarks/run.py``,
some workloads lost badly (2D 10,000 with 5 % moving: 2.0 -> 6.8 ms; 3D
5,000 once 5.1 -> 115 ms): waking sleeping worker threads there is slow
and erratic. The parallel builds also add about 7 s to a cold compile.

NOTE: numba's thread count is per Python thread
(``numba.set_num_threads`` affects only the thread calling it); the cap of
:func:`set_thread_cap` is for the whole process.
"""

from __future__ import annotations

import math
import os
import threading
import time
import types
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager
from typing import TypeVar

__all__ = ["batch_threads", "layer_is_thread_safe", "loop_threads", "on_threads", "parallel_possible",
           "forget_loop_times", "parallel_twin", "run_split", "set_thread_cap", "thread_cap", "thread_count",
           "threads_for", "timed_loop"]

#: Threading layers that may be entered by several Python threads at once (numba's docs).
_SAFE_LAYERS = ("omp", "tbb")

_T = TypeVar("_T")

_lock = threading.Lock()
_safe: bool | None = None
_pid = -1  # the process that loaded the layer
#: serial unless asked (collideworld.set_threads): see the module docstring's NOTE on defaults
_cap: int | None = 1
#: (time read, threads the load average leaves) of :func:`_idle_threads`
_idle = (-1.0, 1)


def layer_is_thread_safe() -> bool:
    """Whether numba's threading layer in this process is ``omp`` or ``tbb`` (found on the first call).

    Returns
    -------
    bool
        False also when the layer cannot be loaded (no parallel build is
        then ever called), and in a child forked after the layer was
        loaded (GNU OpenMP is not fork-safe).

    Examples
    --------
    >>> isinstance(layer_is_thread_safe(), bool)
    True
    """
    global _safe, _pid
    if _safe is None:
        with _lock:
            if _safe is None:
                try:
                    import numba
                    from numba.np.ufunc import parallel

                    # what numba's first parallel call does: choose and load the layer (a private use:
                    # numba has no public call for it, and threading_layer() raises before it)
                    parallel._launch_threads()  # type: ignore[no-untyped-call]
                    _safe = numba.threading_layer() in _SAFE_LAYERS  # type: ignore[attr-defined]
                except Exception:  # no layer loads, or numba's internals moved: stay serial
                    _safe = False
                _pid = os.getpid()
    # a child forked after the threads started: GNU OpenMP's threads do not
    # survive a fork (its next parallel loop aborts the child), so stay serial
    return _safe and os.getpid() == _pid


def set_thread_cap(n: int | None) -> None:
    """Cap the threads of the parallel builds for the whole process (None: no cap; 1: always serial).

    Validation is the caller's (:func:`collideworld.set_threads`).

    Parameters
    ----------
    n : int or None

    Examples
    --------
    >>> set_thread_cap(None); thread_cap() is None
    True
    >>> set_thread_cap(1); thread_cap()
    1
    """
    global _cap
    if n != _cap:
        _sites.clear()  # another thread count: the loops' times are measured afresh
    _cap = n


def thread_cap() -> int | None:
    """The cap set by :func:`set_thread_cap` (None when there is none).

    Returns
    -------
    int or None

    Examples
    --------
    >>> thread_cap() is None or thread_cap() >= 1
    True
    """
    return _cap


def thread_count() -> int:
    """Threads a parallel build would use if called now from this Python thread (1: the serial build).

    Returns
    -------
    int
        ``min(numba.get_num_threads(), cap)`` (with no cap, at most the
        cores the load average leaves idle), or 1 when the threading layer
        is not thread-safe.

    Examples
    --------
    >>> thread_count() >= 1
    True
    """
    n = _wanted_threads()
    if n > 1 and not layer_is_thread_safe():
        return 1
    return n


def _wanted_threads() -> int:
    """``min(numba.get_num_threads(), cap)``, with no cap at most the idle cores (the layer not asked)."""
    if _cap == 1:
        return 1
    import numba
    n = int(numba.get_num_threads())
    if _cap is not None:
        n = min(n, _cap)
    elif n > 1:
        n = min(n, _idle_threads())
    return n


def _idle_threads() -> int:
    """Threads the other processes leave room for: cores minus the load average's others, rounded (cached 1 s)."""
    global _idle
    now = time.monotonic()
    if now - _idle[0] > 1.0:
        try:
            others = max(0.0, os.getloadavg()[0] - 1.0)
            free = max(1, int((os.cpu_count() or 1) - others + 0.5))
        except (OSError, AttributeError):  # no load average (Windows): trust numba's count
            free = 1 << 30
        _idle = (now, free)
    return _idle[1]


def parallel_possible() -> bool:
    """Whether a parallel build may ever run in this process, whatever the load (for warm-up).

    Returns
    -------
    bool
        numba's pool has several threads, the cap is not 1 and the
        threading layer is thread-safe.

    Examples
    --------
    >>> isinstance(parallel_possible(), bool)
    True
    """
    import numba

    pool = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    return pool > 1 and _cap != 1 and layer_is_thread_safe()


def threads_for(size: int, threshold: int) -> int:
    """Threads for a loop over ``size`` rows that pays on several threads from ``threshold`` rows on.

    Parameters
    ----------
    size : int
    threshold : int

    Returns
    -------
    int
        1 (run the serial build) or the thread count for the parallel build.

    Examples
    --------
    >>> threads_for(10, 1000)
    1
    """
    if size < threshold:
        return 1
    return thread_count()


# -- stepping back to serial when the threads lose ---------------------------------------------
#
# The load average reacts in tens of seconds and says nothing of how busy the cores are in the
# millisecond a loop runs (issue 28: a 2D 10k frame on two threads took a median 126 ms against
# 11 ms serial with a busy process on each core). So each parallel loop site also keeps the last
# few times per row of its serial and of its parallel runs (batches past its threshold), and
# takes the parallel build only while that measured faster. The build it does not take is tried
# again now and then (every PROBE_EVERY calls at first; the interval grows with how badly that
# build lost, so probes cost about PROBE_COST_SHARE of the time, and doubles up to PROBE_MAX while
# the verdict stands; a probe that wins is followed by another soon), so a core that frees up is
# noticed and a loaded one costs a few per cent. Both builds give the same bits, so the choice changes no result.

#: Samples per build kept per site (the median of these decides).
SAMPLES = 5
#: Calls between probes of the build not taken, at first (doubling while the verdict stands).
PROBE_EVERY = 8
#: The longest interval between probes.
PROBE_MAX = 2048
#: About this share of a site's time goes to probing a build that loses (the interval grows with the loss).
PROBE_COST_SHARE = 0.05


class _Site:
    """One parallel loop's recent serial and parallel times per row, and its probe schedule."""

    __slots__ = ("serial", "parallel", "calls", "next_probe", "interval", "verdict")

    def __init__(self) -> None:
        self.serial: list[float] = []
        self.parallel: list[float] = []
        self.calls = 0
        self.next_probe = 0
        self.interval = PROBE_EVERY
        self.verdict: bool | None = None  # True: parallel wins; None: not enough samples yet

    def record(self, parallel: bool, seconds_per_row: float) -> None:
        samples = self.parallel if parallel else self.serial
        samples.append(seconds_per_row)
        del samples[:-SAMPLES]
        if len(self.serial) < 2 or len(self.parallel) < 2:
            return
        par, ser = _median(self.parallel), _median(self.serial)
        wins = par < ser
        # the loser's cost per call over the winner's: probing every PROBE_COST_SHARE ** -1 * ratio
        # calls spends about that share of the time on probes
        ratio = (par / ser if ser > 0 else math.inf) if not wins else (ser / par if par > 0 else math.inf)
        spread = min(PROBE_MAX, max(PROBE_EVERY, int(min(ratio, 1e6) / PROBE_COST_SHARE)))
        if wins != self.verdict:
            self.verdict = wins
            self.interval = spread
        elif parallel != wins:  # a probe of the build not taken
            if seconds_per_row < (ser if wins else par):
                # it beat the build taken: look again soon (the median turns after a few such probes)
                self.interval = PROBE_EVERY
            else:
                self.interval = min(PROBE_MAX, max(2 * self.interval, spread))
        else:
            return
        self.next_probe = self.calls + self.interval


def _median(values: list[float]) -> float:
    v = sorted(values)
    return v[len(v) // 2] if len(v) % 2 else 0.5 * (v[len(v) // 2 - 1] + v[len(v) // 2])


_sites: dict[str, _Site] = {}
#: the clock the loops are timed with (tests replace it)
_clock: Callable[[], float] = time.perf_counter


def loop_threads(site: str, size: int, threshold: int) -> int:
    """Threads for one run of the parallel loop ``site``: :func:`threads_for`, unless the threads lose there.

    When :func:`threads_for` allows several threads, the site's measured
    times per row (see :func:`timed_loop`) decide: the parallel build while
    it has been the faster one, else the serial build, with the other build
    tried again now and then. Until both builds have two samples, they
    alternate.

    Parameters
    ----------
    site : str
        The loop's name (one record per name).
    size, threshold : int
        As in :func:`threads_for`.

    Returns
    -------
    int
        1 (the serial build) or the thread count for the parallel build.

    Examples
    --------
    >>> loop_threads("doc", 10, 1000)
    1
    """
    n = threads_for(size, threshold)
    if n == 1:
        return 1
    rec = _sites.get(site)
    if rec is None:
        rec = _sites[site] = _Site()
    rec.calls += 1
    if rec.verdict is None:
        if len(rec.parallel) < 2 and len(rec.parallel) <= len(rec.serial):
            return n
        return 1 if len(rec.serial) < 2 else n
    take_parallel = rec.verdict
    if rec.calls >= rec.next_probe:
        take_parallel = not take_parallel  # the probe: the other build once
    return n if take_parallel else 1


@contextmanager
def timed_loop(site: str, size: int, threads: int, threshold: int) -> Iterator[None]:
    """Time the block (one run of loop ``site`` on ``threads`` threads) for :func:`loop_threads`.

    Only runs that :func:`threads_for` would have put on several threads
    are recorded (a batch past the threshold, threads allowed); a block that
    raises is not.

    Parameters
    ----------
    site : str
    size, threads, threshold : int

    Examples
    --------
    >>> with timed_loop("doc", 10, 1, 1000):
    ...     pass
    """
    rec = _sites.get(site)
    if rec is None or size < max(threshold, 1):
        yield
        return
    start = _clock()
    yield
    rec.record(threads > 1, (_clock() - start) / size)


def forget_loop_times() -> None:
    """Drop every site's measurements (the next runs measure both builds afresh).

    Examples
    --------
    >>> forget_loop_times()
    """
    _sites.clear()


@contextmanager
def on_threads(n: int) -> Iterator[None]:
    """numba's thread count of this Python thread set to ``n`` inside the block, restored after.

    Parameters
    ----------
    n : int
        From :func:`threads_for`, at least 2 (and at most numba's count).

    Examples
    --------
    >>> import numba
    >>> with on_threads(numba.get_num_threads()):
    ...     pass
    """
    import numba

    before = int(numba.get_num_threads())
    if before == n:
        yield
        return
    numba.set_num_threads(n)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def parallel_twin(fn: Callable[..., object]) -> Callable[..., object]:
    """A copy of ``fn`` under the name ``<name>_parallel``, for its ``parallel=True`` build.

    numba's on-disk cache names its files after the function's qualified
    name and keys them by signature and bytecode, not by ``parallel``: two
    builds of one function would load each other's machine code. The copy
    has the same code and globals and a cache file of its own.

    Parameters
    ----------
    fn : function

    Returns
    -------
    function

    Examples
    --------
    >>> def add(a, b):
    ...     return a + b
    >>> twin = parallel_twin(add)
    >>> twin.__qualname__.endswith("add_parallel"), twin(1, 2)
    (True, 3)
    """
    assert isinstance(fn, types.FunctionType)
    twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + "_parallel", fn.__defaults__,
                              fn.__closure__)
    twin.__qualname__ = fn.__qualname__ + "_parallel"
    twin.__doc__ = fn.__doc__
    twin.__module__ = fn.__module__
    twin.__annotations__ = dict(fn.__annotations__)
    return twin


# -- batches split over Python threads ------------------------------------------------------
#
# The batched queries (many points, rays or placements against one world) are independent
# per query: their kernels are built with ``nogil=True`` and a batch is cut into contiguous
# ranges run at once on plain Python threads, each range with its own scratch ("seen" stamps),
# the results joined in range order (the serial order). numba's own pool is not used: a range's
# output length is known only after its walk, and plain threads need no thread-safe layer.

#: (process id, pool): a pool's threads do not survive a fork, so a child makes its own
_pool: tuple[int, ThreadPoolExecutor] | None = None


def batch_threads(size: int, threshold: int) -> int:
    """Threads for a batch of ``size`` independent queries, each thread taking at least ``threshold`` of them.

    The count :func:`collideworld.set_threads` allows (as :func:`thread_count`,
    but any threading layer will do: the ranges run on Python threads).

    Parameters
    ----------
    size, threshold : int

    Returns
    -------
    int
        1 (run the batch in one call) or more.

    Examples
    --------
    >>> batch_threads(10, 1000)
    1
    """
    if size < 2 * threshold:
        return 1
    return max(1, min(_wanted_threads(), size // threshold))


def run_split(run: Callable[[int, int, int], _T], size: int, threads: int) -> list[_T]:
    """``[run(start, stop, k) for the k-th of threads contiguous ranges of range(size)]``, the ranges at once.

    ``run`` must release the GIL for its work (a ``nogil`` compiled kernel)
    and touch nothing another range touches except to read; ``k`` says which
    range's scratch to use. The calling thread runs the first range itself.

    Parameters
    ----------
    run : callable
    size, threads : int

    Returns
    -------
    list
        The ranges' results, in range order.

    Examples
    --------
    >>> run_split(lambda start, stop, k: (start, stop, k), 10, 3)
    [(0, 3, 0), (3, 6, 1), (6, 10, 2)]
    """
    global _pool
    if threads == 1:
        return [run(0, size, 0)]
    bounds = [size * k // threads for k in range(threads + 1)]
    pid = os.getpid()
    if _pool is None or _pool[0] != pid:
        with _lock:
            if _pool is None or _pool[0] != pid:
                _pool = (pid, ThreadPoolExecutor(thread_name_prefix="collideworld-batch"))
    pool = _pool[1]
    later = [pool.submit(run, bounds[k], bounds[k + 1], k) for k in range(1, threads)]
    try:
        first = run(bounds[0], bounds[1], 0)
    finally:
        # every range ends before this returns or raises: they write scratch the next call reuses
        wait(later)
    return [first, *(f.result() for f in later)]
