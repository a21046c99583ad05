"""The Arrow writer's background thread (``ArrowScenarioWriter(background=True)``, ``Recorder(..., background=True)``).

Oracles: the synchronous writer's bytes (the same batches written inside the
caller's call: the file must not depend on which thread wrote it), and the
poses the tests themselves gave (compared by their bits) for what a dead or
killed recording leaves on disk.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from collideworld import Box, Circle, Sphere, World
from collideworld.scenario import MoveBatch, Recorder, read_scenario
from collideworld.scenario.arrow import ArrowScenarioWriter

ROOT = Path(__file__).resolve().parent.parent


def _record(path, background, seed, frames, dim=2, batch_frames=3):
    """A seeded loop with what a recording meets: move_many of every body (steady and kicked),
    single moves, adds, removes, a set, steps with and without moves."""
    rng = np.random.default_rng(seed)
    units = int(rng.integers(5, 40))
    with Recorder(World(dim=dim), path, background=background) as rec:
        rec.writer.batch_frames = batch_frames
        pos = rng.uniform(0, 10, (units, dim))
        vel = rng.normal(0, 0.2, (units, dim))
        shape = Circle(0.5) if dim == 2 else Sphere(0.5)
        ids = np.asarray(rec.add_many(shape, pos, ids=list(range(units))))
        rec.step()
        extra = 10_000
        for f in range(frames):
            vel += rng.normal(0, 0.05, vel.shape) * (f % 3 == 0)
            pos = pos + vel
            kind = rng.integers(0, 6)
            if kind == 0:
                rec.add(Box((0.3, 0.2)) if dim == 2 else Sphere(0.2), position=pos[0] + 1.0, id=extra)
                extra += 1
            elif kind == 1 and extra > 10_000:
                rec.remove(extra - 1)
                extra -= 1
            elif kind == 2:
                rec.move(int(ids[0]), position=pos[0])
            elif kind == 3:
                rec.set_static(int(ids[-1]), bool(f % 2))
            if kind != 4:
                rec.move_many(ids, positions=pos)
            rec.step()


@pytest.mark.parametrize("seed", range(8))
def test_the_background_writer_writes_the_bytes_of_the_synchronous_one(tmp_path, seed):
    """Recorded loops (2D and 3D, batches of 1-5 frames, a last batch not full): the same bytes either way."""
    dim = 2 if seed % 2 else 3
    batch = 1 + seed % 5
    frames = 7 + 3 * seed
    files = []
    for background in (False, True):
        path = tmp_path / f"{background}.arrows"
        _record(path, background, seed, frames, dim=dim, batch_frames=batch)
        files.append(path.read_bytes())
    assert files[0] == files[1]
    assert len(list(read_scenario(tmp_path / "True.arrows"))) == frames + 1


def test_a_writer_given_frames_by_hand_writes_the_same_bytes(tmp_path):
    """write_frame with dict entries, MoveBatch arrays and expectations; flush() in the middle."""
    files = []
    for background in (False, True):
        path = tmp_path / f"{background}.arrows"
        with ArrowScenarioWriter(path, dim=2, batch_frames=4, background=background) as w:
            w.write_frame(add=[{"id": i, "shape": {"type": "circle", "radius": 1.0}, "position": [float(i), 0.0]}
                               for i in range(6)] + [{"id": "s", "shape": {"type": "circle", "radius": 2.0}}])
            for f in range(13):
                pos = np.random.default_rng(f).uniform(-5, 5, (6, 2))
                w.write_frame(move=[MoveBatch(list(range(6)), positions=pos)], expect=[(0, 1), ("s", 2)])
                if f == 5:
                    w.flush()
        files.append(path.read_bytes())
    assert files[0] == files[1]


def _wait_for(predicate, seconds=60.0):
    deadline = time.monotonic() + seconds
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.01)
    return predicate()


def _frame(w, x):
    w.write_frame(move=[{"id": 0, "position": [float(x), 0.0]}])


def _failing_writer(path):
    w = ArrowScenarioWriter(path, dim=2, batch_frames=1, background=True)
    schema = path.stat().st_size
    w.write_frame(add=[{"id": 0, "shape": {"type": "circle", "radius": 1.0}, "position": [0.0, 0.0]}])
    assert _wait_for(lambda: path.stat().st_size > schema)  # the first batch is on disk
    w._sink.close()  # what a lost disk does to the thread's next write
    _frame(w, 1.0)   # handed over: the thread fails on it
    assert _wait_for(lambda: w._thread.error is not None)
    return w


def test_an_error_of_the_thread_is_raised_by_the_next_call(tmp_path):
    w = _failing_writer(tmp_path / "lost.arrows")
    with pytest.raises(ValueError, match="closed file"):
        _frame(w, 2.0)
    with pytest.raises(ValueError, match="closed file"):  # and again: the stream is broken from there on
        w.flush()
    with pytest.raises(ValueError, match="closed file"):
        w.close()
    w.close()  # closed now: nothing more to say
    assert not w._thread._thread.is_alive()


def test_an_error_of_the_thread_is_raised_by_close(tmp_path):
    w = _failing_writer(tmp_path / "lost.arrows")
    with pytest.raises(ValueError, match="closed file"):
        w.close()
    assert w.closed and not w._thread._thread.is_alive()


def test_a_recorder_step_raises_the_error_of_the_thread(tmp_path):
    path = tmp_path / "lost.arrows"
    rec = Recorder(World(dim=2), path, background=True)
    rec.writer.batch_frames = 1
    schema = path.stat().st_size
    rec.add(Circle(1.0), position=(0, 0), id=0)
    rec.step()
    assert _wait_for(lambda: path.stat().st_size > schema)
    rec.writer._sink.close()
    rec.move(0, position=(1, 0))
    rec.step()  # the batch is handed over; the thread fails on it
    assert _wait_for(lambda: rec.writer._thread.error is not None)
    rec.move(0, position=(2, 0))
    with pytest.raises(ValueError, match="closed file"):
        rec.step()
    with pytest.raises(ValueError, match="closed file"):
        rec.close()


def test_at_most_two_batches_are_in_flight(tmp_path):
    """A third batch waits until the thread has written the first: memory stays bounded."""
    w = ArrowScenarioWriter(tmp_path / "slow.arrows", dim=2, batch_frames=1, background=True)
    gate = threading.Event()
    written = []
    real = w._write_batch

    def slow(batch):
        gate.wait(60)
        real(batch)
        written.append(batch.num_rows)

    w._write_batch = slow
    w.write_frame(add=[{"id": 0, "shape": {"type": "circle", "radius": 1.0}, "position": [0.0, 0.0]}])
    assert _wait_for(lambda: w._thread._queue.empty())  # the thread holds batch 1, waiting on the gate
    _frame(w, 1.0)  # batch 2 waits in the queue
    third = threading.Thread(target=_frame, args=(w, 2.0))
    third.start()
    third.join(0.5)
    assert third.is_alive() and not written  # batch 3 is not taken while two are in flight
    gate.set()
    third.join(60)
    assert not third.is_alive()
    w.close()
    assert written == [1, 1, 1]
    frames = list(read_scenario(tmp_path / "slow.arrows"))
    assert [f.move[0].position for f in frames[1:]] == [(1.0, 0.0), (2.0, 0.0)]


_DYING = """
import sys, time
import numpy as np
from collideworld import Circle, World
from collideworld.scenario import Recorder
rng = np.random.default_rng(7)
n = 25
pos = rng.uniform(0, 20, (n, 2)); vel = rng.normal(0, 0.1, (n, 2))
rec = Recorder(World(dim=2), sys.argv[1], background=sys.argv[2] == "1")
rec.writer.batch_frames = 4
write = rec.writer._write_batch
def slow_disk(batch):
    time.sleep(0.3)  # the loop dies while batches still wait for the thread
    write(batch)
rec.writer._write_batch = slow_disk
ids = np.asarray(rec.add_many(Circle(0.5), pos, ids=list(range(n))))
rec.step()
for frame in range(2, 24):
    pos = pos + vel
    rec.move_many(ids, positions=pos)
    rec.step()
raise RuntimeError("the game loop died at frame 23")
"""


def test_a_loop_that_dies_unclosed_leaves_every_full_batch_readable(tmp_path):
    """An uncaught exception, the recorder never closed: the interpreter's exit waits for the thread,
    which writes every batch it was given (frames 1-20: five batches of 4; 21-23 were never a batch),
    as the synchronous writer does."""
    path = tmp_path / "died.arrows"
    done = subprocess.run([sys.executable, "-c", _DYING, str(path), "1"], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "died at frame 23" in done.stderr
    frames = list(read_scenario(path))
    assert len(frames) == 20
    rng = np.random.default_rng(7)
    pos = rng.uniform(0, 20, (25, 2))
    vel = rng.normal(0, 0.1, (25, 2))
    assert np.array([b.position for b in frames[0].add]).tobytes() == pos.tobytes()
    for frame in frames[1:]:
        pos = pos + vel
        assert np.array([m.position for m in frame.move]).tobytes() == pos.tobytes()


def test_a_loop_that_dies_inside_with_writes_every_frame_stepped(tmp_path):
    path = tmp_path / "with.arrows"
    with pytest.raises(RuntimeError), Recorder(World(dim=2), path, background=True) as rec:
        rec.writer.batch_frames = 4
        rec.add(Circle(1.0), position=(0, 0), id=0)
        for x in range(10):
            rec.move(0, position=(float(x), 0.0))
            rec.step()
        raise RuntimeError("died")
    frames = list(read_scenario(path))
    assert len(frames) == 10 and frames[-1].move[0].position == (9.0, 0.0)
    assert not rec.writer._thread._thread.is_alive()


def test_background_must_be_a_bool(tmp_path):
    with pytest.raises(ValueError, match=r"background must be True or False, got 'yes'"):
        ArrowScenarioWriter(tmp_path / "x.arrows", dim=2, background="yes")
    assert not (tmp_path / "x.arrows").exists()


@pytest.mark.parametrize("level", [-5, 3])
def test_compression_level_is_the_zstd_level_of_the_buffers(tmp_path, level):
    """The stream's bytes are those pyarrow writes for the same batches with Codec("zstd", level)."""
    import pyarrow as pa

    path = tmp_path / "level.arrows"
    with ArrowScenarioWriter(path, dim=2, batch_frames=2, compression_level=level) as w:
        w.write_frame(add=[{"id": i, "shape": {"type": "circle", "radius": 1.0}, "position": [float(i), 0.0]}
                           for i in range(50)])
        for f in range(5):
            pos = np.random.default_rng(f).uniform(-5, 5, (50, 2))
            w.write_frame(move=[MoveBatch(list(range(50)), positions=pos)], expect=[(0, 1)])
    reader = pa.ipc.open_stream(path)
    sink = pa.BufferOutputStream()
    options = pa.ipc.IpcWriteOptions(compression=pa.Codec("zstd", compression_level=level))
    with pa.ipc.new_stream(sink, reader.schema, options=options) as again:
        for batch in reader:
            again.write_batch(batch)
    assert path.read_bytes() == sink.getvalue().to_pybytes()
    assert len(list(read_scenario(path))) == 6


@pytest.mark.parametrize(("level", "compression"), [("1", "zstd"), (True, "zstd"), (1, None)])
def test_a_bad_compression_level_is_named(tmp_path, level, compression):
    with pytest.raises(ValueError, match=rf"compression_level must be None or an int with a compression, got "
                                         rf"{level!r}.* with compression={compression!r}"):
        ArrowScenarioWriter(tmp_path / "x.arrows", dim=2, compression=compression, compression_level=level)


_AFTER_MAIN = """
import sys, threading, time
import numpy as np
from collideworld.scenario import MoveBatch
from collideworld.scenario.arrow import ArrowScenarioWriter

def record():
    time.sleep(0.2)  # the main thread has ended by now
    w = ArrowScenarioWriter(sys.argv[1], dim=2, batch_frames=2, background=True, backend="numpy")
    w.write_frame(add=[{"id": 0, "shape": {"type": "circle", "radius": 1.0}, "position": [0.0, 0.0]}])
    for x in range(1, 12):
        if x == 5:
            deadline = time.monotonic() + 60
            while w._thread._thread.is_alive() and time.monotonic() < deadline:
                time.sleep(0.05)  # the idle writer thread leaves (the main thread has ended)
            assert not w._thread._thread.is_alive()
        w.write_frame(move=[MoveBatch([0], positions=np.array([[float(x), 0.0]]))])
    w.close()

threading.Thread(target=record).start()
"""


def test_a_thread_recording_after_the_main_thread_ended_writes_every_frame(tmp_path):
    """The writer's thread leaves once the main thread has ended and it is idle; a thread still
    recording then writes its own batches (it neither hangs on a full queue nor loses a batch)."""
    path = tmp_path / "late.arrows"
    done = subprocess.run([sys.executable, "-c", _AFTER_MAIN, str(path)], cwd=ROOT, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    frames = list(read_scenario(path))
    assert [f.move[0].position for f in frames[1:]] == [(float(x), 0.0) for x in range(1, 12)]
