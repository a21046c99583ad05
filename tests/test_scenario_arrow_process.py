"""The Arrow writer's process (``ArrowScenarioWriter(background="process")``, ``Recorder(..., background="process")``).

Oracles: the synchronous writer's bytes (the same batches built in the caller's
process: the file must not depend on which process wrote it), the poses the
tests themselves gave (compared by their bits) for what a killed recording
leaves on disk, /dev/shm's listing for the shared memory, and /proc for the
writer process's life. Each test starts one or two writer processes (a fresh
interpreter each, ~1 s under load), so the cases are few and each loop varied.
"""

from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from collideworld import Box, Circle, Sphere, World
from collideworld.scenario import MoveBatch, Recorder, read_scenario
from collideworld.scenario import arrow as arrow_module
from collideworld.scenario.arrow import PROCESS_RING, ArrowScenarioWriter

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _ended(pid: int) -> bool:
    """Whether the process has ended (a zombie not yet reaped counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):
        return True


def _gone(pid: int, seconds: float = 30.0) -> bool:
    """Whether the process ends within ``seconds`` (after close it leaves on its own, not waited for)."""
    deadline = time.monotonic() + seconds
    while not _ended(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return _ended(pid)


def _record(path, background, seed, frames, dim, batch_frames, backend="auto", in_flight=None):
    """A seeded loop with what a recording meets: move_many of every body (steady and kicked), of a
    subset (another pose shape inside a batch), single moves, adds, removes, a set, steps without
    moves; bodies close enough to touch, so frames carry pairs."""
    rng = np.random.default_rng(seed)
    units = int(rng.integers(20, 60))
    with Recorder(World(dim=dim, backend=backend), path, background=background) as rec:
        rec.writer.batch_frames = batch_frames
        pos = rng.uniform(0, 4, (units, dim))
        vel = rng.normal(0, 0.2, (units, dim))
        shape = Circle(0.5) if dim == 2 else Sphere(0.5)
        ids = np.asarray(rec.add_many(shape, pos, ids=list(range(units))))
        rec.step()
        extra = 10_000
        for f in range(frames):
            vel += rng.normal(0, 0.05, vel.shape) * (f % 3 == 0)
            pos = pos + vel * (rng.random() < 0.8)
            kind = rng.integers(0, 8)
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
            if kind == 5:
                rec.move_many(ids[: units // 2], positions=pos[: units // 2])
            elif kind == 6 and dim == 2:
                rec.move_many(ids, positions=pos, angles=rng.uniform(-3, 3, units))
            elif kind != 4:
                rec.move_many(ids, positions=pos)
            rec.step()
            if in_flight is not None:
                in_flight.append(rec.writer._process._sent - rec.writer._process._done)
        prefix = rec.writer._process.prefix if background == "process" else None
        pid = rec.writer._process.pid if background == "process" else None
    return prefix, pid


@pytest.mark.parametrize(("dim", "batch_frames", "backend"), [(2, 1, "auto"), (3, 4, "numpy")])
def test_the_writer_process_writes_the_bytes_of_the_synchronous_one(tmp_path, monkeypatch, dim, batch_frames,
                                                                   backend):
    """Same bytes from a loop of every kind of frame (2D with one-frame batches and the compiled encoder
    when available; 3D with batches of 4 and the numpy encoder); the contact pairs overflow the shared
    memory of a slot (sent in the message, the slot grown); never more batches in flight than the ring
    holds less the one being filled; nothing dropped; the ring unlinked; the process gone."""
    monkeypatch.setattr(arrow_module, "PROCESS_PAIRS", 8)
    frames = 30
    files = []
    in_flight: list[int] = []
    for background in (False, "process"):
        path = tmp_path / f"{background}.arrows"
        prefix, pid = _record(path, background, 11 + dim, frames, dim, batch_frames, backend,
                              in_flight if background else None)
        files.append(path.read_bytes())
    assert files[0] == files[1]
    assert len(list(read_scenario(tmp_path / "process.arrows"))) == frames + 1
    assert max(in_flight) <= PROCESS_RING - 1
    assert glob.glob(f"/dev/shm/{prefix}*") == []
    assert _gone(pid)


def test_a_writer_given_frames_by_hand_writes_the_same_bytes(tmp_path):
    """write_frame with dict entries, MoveBatch arrays (two shapes in one batch) and expectations;
    flush() in the middle; poses of another length than the batch's slab."""
    files = []
    for background in (False, "process"):
        path = tmp_path / f"{background}.arrows"
        with ArrowScenarioWriter(path, dim=2, batch_frames=4, background=background, backend="numpy") as w:
            w.write_frame(add=[{"id": i, "shape": {"type": "circle", "radius": 1.0}, "position": [float(i), 0.0]}
                               for i in range(6)])
            for f in range(11):
                n = 6 if f % 4 else 3
                slot = w.pose_slot(n, 2)
                slot[:] = np.random.default_rng(f).uniform(-5, 5, (n, 2))
                w.write_prepared(w.prepare_frame((), (), [MoveBatch(list(range(n)), positions=slot)], None, (),
                                                 owned=True), np.array([[0, 1], [2, 3]]), None, None, None)
                if f == 5:
                    w.flush()
        files.append(path.read_bytes())
    assert files[0] == files[1]
    assert [len(f.move) for f in read_scenario(tmp_path / "process.arrows")][1:] == [3, 6, 6, 6] * 2 + [3, 6, 6]


def test_an_error_of_the_writer_process_is_raised_by_the_next_call_and_by_close(tmp_path):
    """A batch the process cannot build (a frame number that is not an int): its own message, at the
    next call that looks (within seconds) and again at close; the ring unlinked, the process gone."""
    path = tmp_path / "bad.arrows"
    w = ArrowScenarioWriter(path, dim=2, batch_frames=2, background="process", backend="numpy")
    prefix, pid = w._process.prefix, w._process.pid
    w.write_frame(add=[{"id": 0, "shape": {"type": "circle", "radius": 1.0}, "position": [0.0, 0.0]}])
    w.write_frame()
    w._pending["frame"].append("not a frame")  # what the process is given to build: fails there
    w.write_frame(expect=[])
    message = r"not a frame|Could not convert"
    deadline = time.monotonic() + 60
    with pytest.raises(Exception, match=message):  # noqa: PT011, B017 - pyarrow's own exception, as raised
        while time.monotonic() < deadline:
            w.write_frame()
            time.sleep(0.01)
    with pytest.raises(Exception, match=message):  # noqa: PT011, B017
        w.close()
    assert glob.glob(f"/dev/shm/{prefix}*") == []
    assert _gone(pid)
    assert len(list(read_scenario(path, ignore_truncated_tail=True))) == 2  # the batch before stays


def test_a_writer_process_that_cannot_write_says_so(tmp_path):
    """The file is a full disk (/dev/full): the process's OSError, at the recorder's next call or close."""
    path = tmp_path / "full.arrows"
    os.symlink("/dev/full", path)
    rec = Recorder(World(dim=2, backend="numpy"), path, background="process")
    prefix = rec.writer._process.prefix
    rec.add(Circle(1.0), position=(0, 0), id=0)
    with pytest.raises(OSError, match=r"No space left on device"):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            rec.move(0, position=(1.0, 0.0))
            rec.step()
            time.sleep(0.01)
    with pytest.raises(OSError, match=r"No space left on device"):
        rec.close()
    assert glob.glob(f"/dev/shm/{prefix}*") == []


def test_background_process_is_for_streams(tmp_path):
    with pytest.raises(ValueError, match=r"background='process' writes an \.arrows stream, got '.*x\.parquet'"):
        ArrowScenarioWriter(tmp_path / "x.parquet", dim=2, background="process")


_KILLED = r"""
import sys
import numpy as np
from collideworld import Circle, World
from collideworld.scenario import Recorder
rng = np.random.default_rng(5)
n = 30
pos = rng.uniform(0, 20, (n, 2)); vel = rng.normal(0, 0.1, (n, 2))
rec = Recorder(World(dim=2, backend="numpy"), sys.argv[1], background="process")
rec.writer.batch_frames = 4
print(rec.writer._process.pid, rec.writer._process.prefix, flush=True)
ids = np.asarray(rec.add_many(Circle(0.5), pos, ids=list(range(n))))
rec.step()
frame = 1
while True:
    pos = pos + vel
    rec.move_many(ids, positions=pos)
    rec.step()
    frame += 1
    print(frame, flush=True)
    if sys.argv[2] == "raise" and frame == 23:
        raise RuntimeError("the game loop died at frame 23")
"""


@pytest.mark.parametrize("end", ["kill", "raise"])
def test_a_recording_that_dies_leaves_every_batch_handed_over_and_its_writer_ends(tmp_path, end):
    """SIGKILL of the recording process after frame 41 (or an uncaught exception at frame 23, the
    recorder never closed): every batch handed to the writer process is written (frames 1-40: ten
    batches of 4; or 1-20), with the poses moved to, bit for bit; the writer process ends on its own
    within seconds; its shared memory is unlinked."""
    path = tmp_path / "died.arrows"
    child = subprocess.Popen([sys.executable, "-c", _KILLED, str(path), end], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=ROOT, env=ENV)
    try:
        pid_text, prefix = child.stdout.readline().split()
        writer_pid = int(pid_text)
        seen = 0
        deadline = time.monotonic() + 120
        while (end == "raise" or seen < 41) and time.monotonic() < deadline:
            line = child.stdout.readline()
            if not line:
                break
            seen = int(line)
    finally:
        if end == "kill":
            child.send_signal(signal.SIGKILL)
        child.wait(120)
    if end == "kill":
        assert seen >= 41 and child.returncode == -signal.SIGKILL
    else:
        assert child.returncode == 1 and "died at frame 23" in child.stderr.read()
    assert _gone(writer_pid), "the writer process outlived its recording process"
    assert glob.glob(f"/dev/shm/{prefix}*") == []
    frames = list(read_scenario(path, ignore_truncated_tail=True))
    assert len(frames) % 4 == 0 and len(frames) >= (40 if end == "kill" else 20)
    rng = np.random.default_rng(5)
    pos = rng.uniform(0, 20, (30, 2))
    vel = rng.normal(0, 0.1, (30, 2))
    assert np.array([b.position for b in frames[0].add]).tobytes() == pos.tobytes()
    for frame in frames[1:]:
        pos = pos + vel
        assert np.array([m.position for m in frame.move]).tobytes() == pos.tobytes()
