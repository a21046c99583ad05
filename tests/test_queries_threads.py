"""Batched queries split over threads: the same answers, bit for bit, as in one call, and as the numpy backend.

With ``collideworld.set_threads(n)``, ``query_points``, ``query_shapes`` and
``raycast_many`` cut a large batch into contiguous ranges run at once on
Python threads (``threads.run_split``), each range with its own "seen" marks
and its own handle on the index's arrays, and join the ranges' answers in
order. The threshold (``queries.BATCH_PER_THREAD``) is lowered here so that
small batches split too. The references: the same batch with threads off
(the property checked is that splitting changes nothing), and the numpy
backend, which shares no code with the compiled walks.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator

import numpy as np
import pytest

import collideworld
from collideworld import Box, Capsule, Circle, HalfPlane, Plane, Polygon, Sphere, World
from collideworld.backend import compiled_available
from collideworld.threads import batch_threads, run_split

pytestmark = pytest.mark.skipif(not compiled_available(), reason="numba is not installed")

U32 = 0xFFFFFFFF


#: the thread counts the batches were split into, as run_split was called
SPLITS: list[int] = []


@pytest.fixture
def small_ranges(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Batches split from 2 x 5 queries on (the default threshold is 1,024 a thread); SPLITS records the splits."""
    from collideworld import queries

    def recorded(run, size, threads):  # type: ignore[no-untyped-def]
        SPLITS.append(threads)
        return run_split(run, size, threads)

    monkeypatch.setattr(queries, "BATCH_PER_THREAD", 5)
    monkeypatch.setattr(queries, "run_split", recorded)
    SPLITS.clear()
    yield
    collideworld.set_threads(1)  # the default


def _two_threads() -> int:
    """2, or 1 where numba's pool has one thread."""
    import numba

    return min(2, collideworld.backend._pool_size(), numba.get_num_threads())


def _world(dim: int, backend: str, seed: int, others: bool = False) -> World:
    """Balls and boxes at random (some touching), a big box on the grid's big list, a floor; ``others``: 2D kinds
    the compiled kernels hand to the numpy path (and with them, rays take numpy's walk)."""
    r = np.random.default_rng(seed)
    w = World(dim, backend=backend)
    for i in range(400):
        size = float(r.uniform(0.2, 1.2))
        shape = (Circle(size) if dim == 2 else Sphere(size)) if i % 3 == 0 else Box((size,) * dim)
        q = r.normal(size=4)
        turn = {"angle": float(r.uniform(-3, 3))} if dim == 2 else {"quaternion": q / np.linalg.norm(q)}
        w.add(shape, r.uniform(0, 25, dim), id=i, category=int(r.choice([1, 2])), **turn)
    w.add(Box((6.0,) * dim), np.full(dim, 12.0), id="big")
    w.add(HalfPlane((0.0, 1.0), -0.5) if dim == 2 else Plane((0.0, 0.0, 1.0), -0.5), id="floor")
    if others:
        w.add(Capsule((0.0, 0.0), (2.0, 0.0), 0.4), (5.0, 5.0), id="capsule")
        w.add(Polygon([[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2]]), (20.0, 8.0), id="concave")
    w.step()
    return w


def _change(w: World, seed: int) -> None:
    """Moves, a removal and additions with no step between: the query grid is patched from the journal."""
    r = np.random.default_rng(seed)
    w.move_many(list(range(0, 60, 2)), r.uniform(0, 25, (30, w.dim)))
    w.remove(100 + seed)
    w.add_many(Box((0.6,) * w.dim), r.uniform(0, 25, (3, w.dim)), ids=[f"new{seed}.{k}" for k in range(3)])


def _answers(w: World, seed: int, threads: int) -> list[object]:
    """Every batched answer on a seeded set of probes, as lists and bytes (equal lists: bit-identical answers)."""
    collideworld.set_threads(threads)
    try:
        r = np.random.default_rng(seed)
        dim, m = w.dim, 203  # not a multiple of the thread count: ranges of unequal length
        pts = r.uniform(-2, 27, (m, dim))
        pts[:4] = w.body(3).position  # on a body's centre: several hits for one point
        out: list[object] = []
        for cat, mask in ((U32, U32), (1, 2)):
            i, ids = w.query_points(pts, category=cat, mask=mask)
            out += [i.tolist(), ids.tolist()]
        q = r.normal(size=(m, 4))
        turn = {"angles": r.uniform(-3, 3, m)} if dim == 2 else {"quaternions": q / np.linalg.norm(q, axis=1)[:, None]}
        for shape in (Box((0.5,) * dim), Circle(0.7) if dim == 2 else Sphere(0.7)):
            i, ids = w.query_shapes(shape, pts, **turn)
            out += [i.tolist(), ids.tolist()]
        if dim == 2:
            i, ids = w.query_shapes(Polygon([[0, 0], [1.5, 0], [0.4, 1.2]]), pts, **turn)
            out += [i.tolist(), ids.tolist()]
        d = r.normal(size=(m, dim))
        for limit in (np.inf, 3.0):
            h = w.raycast_many(pts, d, limit)
            out += [h.ray.tolist(), h.id.tolist(), h.distance.tobytes(), h.normal.tobytes(), h.point.tobytes()]
        return out
    finally:
        collideworld.set_threads(1)


@pytest.mark.parametrize(("dim", "others"), [(2, False), (2, True), (3, False)])
def test_split_batches_give_the_serial_answers_bit_for_bit(small_ranges: None, dim: int, others: bool) -> None:
    w = _world(dim, "compiled", seed=dim, others=others)
    for round_ in range(3):
        if round_:
            _change(w, seed=round_)
        serial = _answers(w, seed=round_, threads=1)
        assert sum(len(a) for a in serial[:2]) > 0  # the probes do meet bodies
        assert set(SPLITS) == {1}
        SPLITS.clear()
        assert _answers(w, seed=round_, threads=2) == serial
        # every batch split: 2 of points, 3 (2D) or 2 of shapes, 2 of rays (compiled with other kinds too)
        assert set(SPLITS) == {_two_threads()} and len(SPLITS) == 2 + (3 if dim == 2 else 2) + 2
        SPLITS.clear()


@pytest.mark.parametrize(("dim", "others"), [(2, False), (2, True), (3, False)])
def test_split_batches_give_the_numpy_backends_answers(small_ranges: None, dim: int, others: bool) -> None:
    # numpy's walks share no code with the compiled ones: the same pairs in the same order,
    # distances and normals to rounding (the two backends' ray arithmetic differs in its last bits)
    worlds = [_world(dim, backend, seed=10 + dim, others=others) for backend in ("numpy", "compiled")]
    for w in worlds:
        _change(w, seed=5)
    want = _answers(worlds[0], seed=7, threads=1)
    got = _answers(worlds[1], seed=7, threads=2)
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        if isinstance(a, bytes):
            assert isinstance(b, bytes)
            np.testing.assert_allclose(np.frombuffer(a), np.frombuffer(b), rtol=1e-12, atol=1e-12)
        else:
            assert a == b


def test_batch_threads_follows_set_threads() -> None:
    import numba

    pool = collideworld.backend._pool_size()
    try:
        collideworld.set_threads(1)
        assert batch_threads(10**6, 1024) == 1
        collideworld.set_threads(min(2, pool))
        assert batch_threads(2047, 1024) == 1  # each thread would get fewer than 1,024
        # an explicit cap is obeyed as given, with numba's own count (whatever its threading layer)
        assert batch_threads(4096, 1024) == min(2, pool, numba.get_num_threads())
    finally:
        collideworld.set_threads(1)


def test_run_split_returns_ranges_in_order_and_passes_errors_on() -> None:
    seen = run_split(lambda a, b, k: (a, b, k), 11, 4)
    assert seen == [(0, 2, 0), (2, 5, 1), (5, 8, 2), (8, 11, 3)]  # size * k // threads
    assert run_split(lambda a, b, k: b - a, 5, 1) == [5]

    def fail(a: int, b: int, k: int) -> int:
        if k == 2:
            raise ValueError(f"range {k}")
        return k

    with pytest.raises(ValueError, match="range 2"):
        run_split(fail, 9, 3)


FORK = textwrap.dedent("""
    import multiprocessing as mp
    import numpy as np
    import collideworld
    from collideworld import World, Circle
    from collideworld import queries
    queries.BATCH_PER_THREAD = 4
    collideworld.set_threads(2)
    rng = np.random.default_rng(0)
    w = World(dim=2, backend="compiled")
    w.add_many(Circle(0.5), rng.uniform(0, 15, (400, 2)))
    pts = rng.uniform(0, 15, (64, 2))
    def run(_):
        return w.query_points(pts)[1].tolist()
    parent = run(0)
    with mp.get_context("fork").Pool(1) as pool:
        child = pool.apply(run, (0,))
    print(parent == child and len(parent) > 0)
""")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() on this platform")
def test_a_forked_child_splits_batches_on_threads_of_its_own() -> None:
    # the parent's pool threads do not exist in the child: a pool shared with it would never answer
    done = subprocess.run([sys.executable, "-c", FORK], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["True"]


def _dense(backend: str) -> World:
    """3,000 small bodies in a 30 x 30 square: a 6 x 4 probe meets dozens (past the walks' look over a few)."""
    r = np.random.default_rng(1)
    w = World(2, backend=backend)
    for i in range(3000):
        s = float(r.uniform(0.1, 0.4))
        w.add(Circle(s) if i % 2 else Box((s, s)), r.uniform(0, 30, 2), id=i, angle=float(r.uniform(-3, 3)),
              category=int(r.choice([1, 2])))
    w.step()
    return w


def test_probes_meeting_dozens_of_bodies_split_and_whole_match_numpy(small_ranges: None) -> None:
    # more candidates per probe than the walk looks over before it stamps bodies (compiled.queries._LOOK_AMONG)
    wn, wc = _dense("numpy"), _dense("compiled")
    r = np.random.default_rng(5)
    pts, ang = r.uniform(0, 30, (300, 2)), r.uniform(-3, 3, 300)
    for shape in (Box((3.0, 2.0)), Circle(2.5)):
        for cat, mask in ((U32, U32), (1, 2)):
            want = wn.query_shapes(shape, pts, angles=ang, category=cat, mask=mask)
            assert len(want[0]) > 20 * len(pts)  # dozens a probe
            for threads in (1, 2):
                collideworld.set_threads(threads)
                got = wc.query_shapes(shape, pts, angles=ang, category=cat, mask=mask)
                assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


def test_two_python_threads_querying_one_world_get_every_answer_right() -> None:
    # the batched kernels release the GIL: two threads sharing a world must not share their "seen" marks
    # (a world takes one batch at a time), nor with the single queries in between
    import threading

    w = _dense("compiled")
    pts = np.random.default_rng(5).uniform(0, 30, (3000, 2))
    d = np.random.default_rng(6).normal(size=(3000, 2))
    shape = Box((3.0, 2.0))
    want = [w.query_shapes(shape, pts)[1].tolist(), w.query_points(pts)[1].tolist(),
            w.raycast_many(pts, d, 5.0).id.tolist(), [w.query_point(tuple(p)) for p in pts[:200].tolist()]]
    wrong: list[int] = []

    def work() -> None:
        for _ in range(6):
            got = [w.query_shapes(shape, pts)[1].tolist(), w.query_points(pts)[1].tolist(),
                   w.raycast_many(pts, d, 5.0).id.tolist(), [w.query_point(tuple(p)) for p in pts[:200].tolist()]]
            wrong.extend(i for i in range(4) if got[i] != want[i])

    for threads in (1, 2):
        collideworld.set_threads(threads)
        try:
            workers = [threading.Thread(target=work) for _ in range(2)]
            for t in workers:
                t.start()
            for t in workers:
                t.join()
        finally:
            collideworld.set_threads(1)
        assert wrong == [], threads


def test_run_split_waits_for_every_range_when_the_callers_range_raises() -> None:
    import threading
    import time

    done = threading.Event()

    def run(a: int, b: int, k: int) -> int:
        if k == 0:
            raise ValueError("the caller's range")
        time.sleep(0.2)
        done.set()
        return k

    with pytest.raises(ValueError, match="caller's range"):
        run_split(run, 10, 2)
    assert done.is_set()  # the other range ended before the error came back (it writes scratch the next call reuses)
