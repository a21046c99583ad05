"""The compiled core on several threads: the same results, bit for bit, as on one.

The parallel builds only run on large batches; the tests lower the batch
thresholds to 0 so that small worlds take them, and compare every output of
a step (pairs and their order, normals, depths, began/ended, contact points)
byte for byte against the serial builds. The reference is the serial build
itself: the property checked is that the thread count changes nothing (the
serial builds are checked against the numpy backend elsewhere).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import collideworld
from collideworld import Box, Circle, HalfPlane, Plane, Polygon, Sphere, World
from collideworld.backend import compiled_available
from collideworld.errors import InvalidArgumentError

pytestmark = pytest.mark.skipif(not compiled_available(), reason="numba is not installed")


def _pool() -> int:
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)


#: The most threads this machine's numba pool allows, capped at 2.
MANY = min(2, _pool()) if compiled_available() else 1


@pytest.fixture
def parallel_everywhere(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every compiled loop takes its parallel build, whatever the batch size."""
    from collideworld.broadphase import compiled as broad
    from collideworld.geometry.compiled import contact_slots

    monkeypatch.setattr(broad, "PARALLEL_COPIES", 0)
    monkeypatch.setattr(contact_slots, "PARALLEL_PAIRS", 0)
    yield
    collideworld.set_threads(1)  # the default


def _snapshot(c: collideworld.Contacts) -> tuple[Any, ...]:
    """Every output of a step as bytes and lists: equal snapshots mean bit-identical results."""
    assert c.points is not None and c.point_count is not None
    assert c.separations is not None and c.point_ids is not None
    return (c.a.tolist(), c.b.tolist(), c.normal.tobytes(), c.depth.tobytes(), c.part_a.tolist(),
            c.part_b.tolist(), c.began.rows(), c.ended.rows(), c.points.tobytes(), c.point_count.tobytes(),
            c.separations.tobytes(), c.point_ids.tobytes())


def _world(dim: int, seed: int, touching: bool, n: int = 300) -> tuple[World, np.ndarray, list[tuple[Any, Any]]]:
    """A world of mixed shapes and the moves of 4 frames.

    ``touching``: shapes on a lattice whose spacing makes neighbours touch
    exactly (circles of radius 0.5 and unit boxes one apart), nudged by a few
    ulps, so many pairs sit at depth 0 within the touching tolerance.
    """
    rng = np.random.default_rng(seed)
    w = World(dim=dim, backend="compiled", manifolds=True)
    w.add(HalfPlane((0.0, 1.0), 0.0) if dim == 2 else Plane((0.0, 0.0, 1.0), 0.0), id="ground")
    side = int(np.ceil(n ** (1.0 / dim)))
    shapes: list[Any]
    if dim == 2:
        shapes = [Circle(0.5), Box((0.5, 0.5)), Polygon(((-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5))),
                  Polygon(((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.5, 0.25), (0.0, 1.0)))]  # concave: parts
    else:
        shapes = [Sphere(0.5), Box((0.5, 0.5, 0.5))]
    positions = np.empty((n, dim))
    for i in range(n):
        if touching:
            cell = np.array(np.unravel_index(i, (side,) * dim), dtype=np.float64)
            positions[i] = cell + rng.integers(-2, 3, dim) * np.spacing(cell + 1.0)
        else:
            positions[i] = rng.uniform(0.0, side * 0.8, dim)
        w.add(shapes[i % len(shapes)], position=tuple(positions[i]), id=i)
    moves = []
    for _ in range(4):
        ids = rng.choice(n, n // 5, replace=False)
        step = rng.normal(0.0, 0.05, (len(ids), dim)) if not touching else rng.integers(-1, 2, (len(ids), dim)) * 1e-16
        moves.append((ids, step))
    return w, positions, moves


def _steps(dim: int, seed: int, touching: bool) -> list[tuple[Any, ...]]:
    """Snapshots of 5 steps of the world of :func:`_world`, moving bodies between them."""
    w, positions, moves = _world(dim, seed, touching)
    out = [_snapshot(w.step())]
    for ids, step in moves:
        positions[ids] += step
        w.move_many(ids, positions=positions[ids])
        out.append(_snapshot(w.step()))
    return out


def _run(dim: int, seed: int, touching: bool, threads: int) -> list[tuple[Any, ...]]:
    collideworld.set_threads(threads)
    return _steps(dim, seed, touching)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("touching", [False, True], ids=["random", "near_touching"])
@pytest.mark.parametrize("seed", [0, 1])
def test_step_is_bit_identical_on_one_and_several_threads(parallel_everywhere: None, dim: int, touching: bool,
                                                          seed: int) -> None:
    from collideworld.geometry.compiled import contact_slots

    serial = _run(dim, seed, touching, 1)
    assert sum(len(s[0]) for s in serial) > 100  # the worlds have contacts to compare
    many = _run(dim, seed, touching, MANY)
    assert many == serial
    if MANY > 1 and collideworld.get_threads() > 1:
        # the parallel build did run (it has a compiled signature)
        assert contact_slots._contact_chunks_parallel.signatures


def _columns(dim: int, n: int, seed: int) -> tuple[Any, ...]:
    """Per-row columns of balls and boxes (half of them a hair apart from touching) and pairs of rows."""
    rng = np.random.default_rng(seed)
    kind = np.where(np.arange(n) % 2 == 0, 1, 2).astype(np.int8)
    position = rng.uniform(0.0, 4.0, (n, dim))
    angle = rng.uniform(0.0, np.pi, n)
    rotation = np.zeros((n, dim, dim))
    rotation[:, 0, 0] = rotation[:, 1, 1] = np.cos(angle)
    rotation[:, 0, 1], rotation[:, 1, 0] = -np.sin(angle), np.sin(angle)
    if dim == 3:
        rotation[:, 2, 2] = 1.0
    radius = np.full(n, 0.5)
    half = np.full((n, dim), 0.5)
    bound = np.where(kind == 1, 0.5, 0.5 * np.sqrt(dim))
    ia = rng.integers(0, n, 4 * n)
    ib = rng.integers(0, n, 4 * n)
    # near-touching: ball pairs placed at exactly 1 apart, nudged by an ulp or two
    for k in range(0, 4 * n, 3):
        a, b = 2 * rng.integers(0, n // 2), 2 * rng.integers(0, n // 2)
        if a != b:
            ia[k], ib[k] = a, b
            position[b] = position[a] + np.eye(dim)[0] * (1.0 + rng.integers(-2, 3) * 2.0 ** -52)
    empty = np.zeros((8, n))
    return (ia, ib, kind, np.zeros(n, dtype=bool), position, rotation, radius, half, np.zeros((n, dim)),
            np.zeros(n), bound, empty, empty, np.zeros(n, dtype=np.int64), np.zeros(0, dtype=np.int64))


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("chunks", [1, 2, 3, 7, 64])
def test_contact_loop_parallel_build_matches_serial_bit_for_bit(dim: int, chunks: int) -> None:
    from collideworld.geometry.compiled import contact_slots as cs
    from collideworld.geometry.compiled.kernel_support import touch_rule
    from collideworld.threads import on_threads

    cols = _columns(dim, 400, dim * 10 + chunks)
    n = len(cols[0])

    def outputs() -> tuple[np.ndarray, ...]:
        return np.empty(n, dtype=bool), np.empty((n, dim)), np.empty(n), np.zeros(n, dtype=bool)

    want = outputs()
    cs.contact_rows(*cols, True, touch_rule(), *want)
    got = outputs()
    with on_threads(MANY):
        cs._contact_chunks_parallel(*cols, True, touch_rule(), *got, chunks)
    assert want[0].any() and not want[0].all()
    for w, g in zip(want, got, strict=True):
        assert w.tobytes() == g.tobytes()


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("wanted", [False, True])
def test_broadphase_walk_parallel_build_gives_the_same_keys_in_the_same_order(dim: int, wanted: bool) -> None:
    from collideworld.broadphase import compiled as bc
    from collideworld.threads import on_threads

    rng = np.random.default_rng(dim)
    n = 3000
    lo = rng.uniform(0.0, 60.0, (n, dim))
    hi = lo + rng.uniform(0.1, 2.0, (n, dim))
    # many exactly touching pairs: box 7k + 1 starts where box 7k ends
    lo[1::7] = hi[::7][: len(lo[1::7])]
    hi[1::7] = lo[1::7] + 1.0
    static = rng.random(n) < 0.2
    w = rng.random(n) < 0.3 if wanted else np.zeros(0, dtype=bool)
    _, lo_band, hi_band, band_lo, span, nbands, big, m, slo, shi, _, _ = bc._bands_kernel(lo, hi, 16)
    shift = max(1, int(n - 1).bit_length())
    key = np.sort(bc._copies_kernel(np.argsort(slo), band_lo, span, nbands, big, m, shift))
    box, cell, start_lo, end, reach = bc._walk_copies_kernel(key, np.argsort(slo), slo, shi, shift,
                                                             float(np.finfo(np.float64).eps))
    args = (box, cell, start_lo, end, lo_band, hi_band, band_lo, nbands, static, w, wanted, reach, shift)
    want = bc._kernel(*args, 1)
    assert len(want) > 100
    for chunks in (2, 5, 16):
        with on_threads(MANY):
            got = bc._kernel_parallel(*args, chunks)
        assert got.tobytes() == want.tobytes()
        assert bc._kernel(*args, chunks).tobytes() == want.tobytes()


def test_two_python_threads_stepping_two_worlds_give_the_serial_results(parallel_everywhere: None) -> None:
    serial = {dim: _run(dim, 5, False, 1) for dim in (2, 3)}
    collideworld.set_threads(_pool())
    got: dict[int, list[tuple[Any, ...]]] = {}
    failed: list[BaseException] = []
    start = threading.Barrier(2)

    def work(dim: int) -> None:
        try:
            start.wait()
            got[dim] = _steps(dim, 5, False)
        except BaseException as exc:  # pragma: no cover - reported below
            failed.append(exc)

    workers = [threading.Thread(target=work, args=(dim,)) for dim in (2, 3)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert not failed, failed
    assert got == serial


def test_set_threads_validates_and_caps() -> None:
    from collideworld.threads import layer_is_thread_safe

    before = collideworld.get_threads()
    assert before == 1  # serial unless asked
    for bad in (0, -1, 2.5, True, "2", _pool() + 1):
        with pytest.raises(InvalidArgumentError, match="set_threads"):
            collideworld.set_threads(bad)  # type: ignore[arg-type]
        assert collideworld.get_threads() == before  # a rejected call changes nothing
    collideworld.set_threads(_pool())
    try:
        assert collideworld.get_threads() == (_pool() if layer_is_thread_safe() else 1)
    finally:
        collideworld.set_threads(1)
    assert collideworld.get_threads() == 1


def test_numba_set_num_threads_is_honoured() -> None:
    import numba

    from collideworld.threads import layer_is_thread_safe

    before = numba.get_num_threads()
    collideworld.set_threads(_pool())
    try:
        assert collideworld.get_threads() == (before if layer_is_thread_safe() else 1)
        numba.set_num_threads(1)
        try:
            assert collideworld.get_threads() == 1
        finally:
            numba.set_num_threads(before)
    finally:
        collideworld.set_threads(1)


@pytest.mark.parametrize(("load", "cores", "want"), [(0.0, 2, 2), (1.0, 2, 2), (1.4, 2, 2), (1.6, 2, 1),
                                                     (2.5, 2, 1), (9.0, 2, 1), (0.5, 8, 8), (3.0, 8, 6),
                                                     (4.0, 8, 5)])
def test_without_a_cap_busy_cores_are_left_alone(monkeypatch: pytest.MonkeyPatch, load: float, cores: int,
                                                 want: int) -> None:
    # cores - (load - this process), rounded: by hand 2 - 0.6 = 1.4 -> 1, 8 - 2 = 6
    from collideworld import threads

    monkeypatch.setattr(threads.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(threads.os, "cpu_count", lambda: cores)
    monkeypatch.setattr(threads, "_idle", (-1.0, 1))
    monkeypatch.setattr(threads.time, "monotonic", lambda: 1e9)
    assert threads._idle_threads() == want
    collideworld.set_threads(None)
    import numba

    expected = min(want, numba.get_num_threads()) if threads.layer_is_thread_safe() else 1
    assert collideworld.get_threads() == expected
    collideworld.set_threads(1)
    assert collideworld.get_threads() == 1


WORKQUEUE = textwrap.dedent("""
    import threading
    import numpy as np
    import collideworld
    from collideworld import World, Circle
    from collideworld.broadphase import compiled as broad
    from collideworld.geometry.compiled import contact_slots
    import numba
    collideworld.set_threads(numba.config.NUMBA_NUM_THREADS)
    assert collideworld.get_threads() == 1, collideworld.get_threads()
    broad.PARALLEL_COPIES = contact_slots.PARALLEL_PAIRS = 0
    def work(seed, out):
        rng = np.random.default_rng(seed)
        w = World(dim=2, backend="compiled")
        for i in range(400):
            w.add(Circle(0.5), position=tuple(rng.uniform(0, 15, 2)))
        out.append(sum(len(w.step()) for _ in range(20)))
    out = []
    workers = [threading.Thread(target=work, args=(s, out)) for s in (0, 1)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert len(out) == 2 and min(out) > 0, out
    print("ok")
""")


def test_workqueue_layer_keeps_every_loop_serial() -> None:
    # numba's workqueue layer aborts the process when two Python threads enter
    # parallel code at once: with it, the parallel builds must never run
    env = dict(os.environ, NUMBA_THREADING_LAYER="workqueue")
    done = subprocess.run([sys.executable, "-c", WORKQUEUE], capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"


WARM_UP_UNDER_LOAD = textwrap.dedent("""
    import os
    os.getloadavg = lambda: (50.0, 50.0, 50.0)  # every core busy with other processes
    import collideworld
    from collideworld.broadphase import compiled as broad
    from collideworld.geometry.compiled import contact_slots
    from collideworld.threads import parallel_possible
    collideworld.set_threads(None)  # threads asked for, but the load average leaves none
    assert collideworld.get_threads() == 1
    collideworld.warm_up()
    built = bool(contact_slots._contact_chunks_parallel.signatures) and bool(broad._kernel_parallel.signatures)
    print(built == parallel_possible(), collideworld.get_threads())
""")


def test_warm_up_prepares_the_parallel_builds_even_when_the_cores_are_busy_now() -> None:
    # the load may drop later: a step must then not compile in the middle of a frame
    done = subprocess.run([sys.executable, "-c", WARM_UP_UNDER_LOAD], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["True", "1"]


FORK = textwrap.dedent("""
    import multiprocessing as mp
    import numpy as np
    import collideworld
    from collideworld import World, Circle
    from collideworld.broadphase import compiled as broad
    from collideworld.geometry.compiled import contact_slots
    broad.PARALLEL_COPIES = contact_slots.PARALLEL_PAIRS = 0
    import numba
    collideworld.set_threads(numba.config.NUMBA_NUM_THREADS)  # parallel in the parent, whatever the load
    def run(seed):
        rng = np.random.default_rng(seed)
        w = World(dim=2, backend="compiled")
        w.add_many([Circle(0.5)] * 400, rng.uniform(0, 15, (400, 2)))
        return len(w.step()), collideworld.get_threads()
    parent = run(0)
    with mp.get_context("fork").Pool(1) as pool:
        child = pool.apply(run, (0,))
    print(parent[0] == child[0] > 0, child[1])
""")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() on this platform")
def test_a_child_forked_after_parallel_steps_runs_serially() -> None:
    # GNU OpenMP aborts a forked child's first parallel loop ("fork() called
    # from a process already using GNU OpenMP"): the child must stay serial
    done = subprocess.run([sys.executable, "-c", FORK], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["True", "1"]
