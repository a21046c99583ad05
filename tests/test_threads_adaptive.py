"""The parallel loops step back to serial where their threads measure slower (issue 28).

With both cores busy with other processes, a parallel loop waits at its
barrier for a worker the scheduler does not run: a frame on two threads took
10x its serial time. Each parallel loop site therefore times its serial and
parallel runs and takes the build that measured faster, probing the other
now and then (``collideworld.threads.loop_threads``). The policy is checked
on a simulated clock (a parallel build 10x slower, or 2x faster, than
serial; the loss switching sides midway), and in a world whose parallel
contact loop is slowed for real: the steps stop taking it, and every step's
output stays bit for bit the serial build's.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

import collideworld
from collideworld import threads
from collideworld.backend import compiled_available
from tests.test_threads import MANY, _run, _steps

pytestmark = pytest.mark.skipif(not compiled_available(), reason="numba is not installed")


@pytest.fixture
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    """A clock the test advances, and every loop allowed two threads."""
    now = [0.0]
    monkeypatch.setattr(threads, "_clock", lambda: now[0])
    monkeypatch.setattr(threads, "threads_for", lambda size, threshold: 1 if size < threshold else 2)
    threads.forget_loop_times()
    yield now
    threads.forget_loop_times()


def _simulate(now: list[float], calls: int, cost: Any, size: int = 1000) -> tuple[float, list[int]]:
    """Run ``calls`` loops whose serial/parallel cost per call ``cost(k, parallel)`` gives; total time, choices."""
    total = 0.0
    chosen = []
    for k in range(calls):
        n = threads.loop_threads("sim", size, 100)
        with threads.timed_loop("sim", size, n, 100):
            dt = cost(k, n > 1)
            now[0] += dt
        total += dt
        chosen.append(n)
    return total, chosen


@pytest.mark.parametrize("slowdown", [1.5, 3.0, 10.0, 100.0])
def test_a_losing_parallel_build_costs_at_most_a_fifth_more_than_serial(fake_clock: list[float],
                                                                         slowdown: float) -> None:
    # serial 1 ms a call (with a little seeded jitter), parallel `slowdown` times that
    import random

    rng = random.Random(int(slowdown))
    total, chosen = _simulate(fake_clock, 2000,
                              lambda k, par: 1e-3 * (slowdown if par else 1.0) * rng.uniform(0.9, 1.1))
    assert total <= 1.2 * 2000 * 1e-3
    # once measured, the parallel build is only probed: at most one call in PROBE_EVERY afterwards
    assert chosen[-1000:].count(2) <= 1000 // threads.PROBE_EVERY


def test_a_winning_parallel_build_is_kept(fake_clock: list[float]) -> None:
    total, chosen = _simulate(fake_clock, 1000, lambda k, par: 0.5e-3 if par else 1e-3)
    assert chosen[-500:].count(2) >= 500 - 500 // threads.PROBE_EVERY
    assert total <= 0.6 * 1000 * 1e-3


def test_the_choice_follows_the_load(fake_clock: list[float]) -> None:
    # parallel loses 10x for 600 calls (busy cores), then wins 2x (the cores free up), then loses again
    def cost(k: int, par: bool) -> float:
        busy = k < 600 or k >= 3000
        return 1e-3 * ((10.0 if busy else 0.5) if par else 1.0)

    total, chosen = _simulate(fake_clock, 4000, cost)
    # back to parallel within a few probe intervals after the cores free up, and to serial at once after
    assert chosen[1600:3000].count(1) <= 1400 // threads.PROBE_EVERY
    assert chosen[3010:].count(2) <= 990 // threads.PROBE_EVERY
    best = sum(min(cost(k, False), cost(k, True)) for k in range(4000))
    assert total <= 1.2 * best


def test_small_batches_and_serial_worlds_are_not_timed(fake_clock: list[float]) -> None:
    assert threads.loop_threads("sim", 10, 100) == 1  # below the threshold: serial, no record
    with threads.timed_loop("sim", 10, 1, 100):
        fake_clock[0] += 1.0
    assert "sim" not in threads._sites


def test_another_thread_count_forgets_the_measurements(fake_clock: list[float]) -> None:
    before = threads.thread_cap()
    try:
        _simulate(fake_clock, 20, lambda k, par: 1.0)
        assert threads._sites
        threads.set_thread_cap(before)  # the same count: the times stand
        assert threads._sites
        threads.set_thread_cap(None if before is not None else 1)  # another count: measured afresh
        assert not threads._sites
    finally:
        threads.set_thread_cap(before)


@pytest.mark.skipif(MANY < 2, reason="numba's pool has one thread")
def test_a_world_steps_back_from_a_slow_parallel_contact_loop_bit_for_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    from collideworld.broadphase import compiled as broad
    from collideworld.geometry.compiled import contact_slots

    monkeypatch.setattr(broad, "PARALLEL_COPIES", 0)
    monkeypatch.setattr(contact_slots, "PARALLEL_PAIRS", 0)
    # the thread count the load average allows is not this test's subject: two threads whatever the load
    monkeypatch.setattr(threads, "_idle_threads", lambda: MANY)
    real = contact_slots._contact_chunks_parallel
    calls = [0]

    def slowed(*args: Any) -> Any:
        # a worker descheduled by a busy core: the loop ends 30 ms late
        calls[0] += 1
        time.sleep(0.03)
        return real(*args)

    monkeypatch.setattr(contact_slots, "_contact_chunks_parallel", slowed)
    try:
        serial = _run(2, 3, False, 1)
        threads.forget_loop_times()
        collideworld.set_threads(MANY)
        got = [s for _ in range(6) for s in _steps(2, 3, False)]  # 30 steps
        assert got == serial * 6
        # two parallel runs to measure, then a probe now and then: not one step in three
        assert 2 <= calls[0] <= 6
    finally:
        collideworld.set_threads(1)
