"""The Arrow recorder's compiled pose encoder never compiles in the foreground under backend="auto" (issue 27's
rule, which collideworld/background.py implements for the world's kernels): the numpy reference encodes until
the compiled kernels are ready, and the background build and ``warm_up`` build the encoder with the rest.

Each case runs in a subprocess on an empty ``NUMBA_CACHE_DIR`` and watches numba's compile events
(``numba.core.event``, "numba:compile"): a compile there is what a cold first recording waited for.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# A short recording (40 frames of move_many + step, batches of 16 frames: three batches encoded) that prints
# the numba compile events seen during it and which encoder the writer used.
RECORD = textwrap.dedent("""
    import sys
    import numpy as np
    import numba.core.event as ev
    import collideworld
    from collideworld.scenario import Recorder, arrow, read_scenario
    backend = sys.argv[1]
    world = collideworld.World(2, backend=backend)
    path = sys.argv[2]
    rng = np.random.default_rng(3)
    with ev.install_recorder("numba:compile") as compiles:
        rec = Recorder(world, path, record_expect=False)
        rec.writer.batch_frames = 16
        ids = rec.add_many([collideworld.Circle(0.5)] * 30, positions=rng.uniform(0, 10, (30, 2)))
        pos = rng.uniform(0, 10, (30, 2))
        for f in range(40):
            pos = pos + 0.01 * (f + 1)
            rec.move_many(ids, positions=pos, angles=np.full(30, 0.001 * f))
            rec.step()
        encoder = rec.writer._encode.__name__  # the encoder the batches went through
        rec.close()
    frames = list(read_scenario(path))
    last = [m.position for m in frames[-1].move]
    assert np.array_equal(np.array(last), pos), "the recorded poses read back bit for bit"
    names = sorted({e.data["dispatcher"].py_func.__name__ for _, e in compiles.buffer if e.is_start})
    print(world.backend, encoder, len(frames), ",".join(names) or "-")
""")


def _env(cache: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT), COLLIDEWORLD_BUILD_NICE="0")
    env.update(extra)
    return env


def _record(cache: Path, out: Path, backend: str, env: dict[str, str]) -> list[str]:
    done = subprocess.run([sys.executable, "-c", RECORD, backend, str(out)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.split()


def test_numpy_world_records_without_compiling(tmp_path: Path) -> None:
    """COLLIDEWORLD_BACKGROUND_BUILD=0 (no builder) and a numpy world: the recording compiles nothing (before:
    the compiled encoder was taken whenever numba imported and compiled on the first batch)."""
    cache = tmp_path / "cache"
    cache.mkdir()
    got = _record(cache, tmp_path / "r.arrows", "numpy", _env(cache, COLLIDEWORLD_BACKGROUND_BUILD="0"))
    assert got == ["numpy", "encode_bits", "40", "-"]
    assert not any(p.name.startswith("compiled_encoding") for p in cache.rglob("*"))


def test_auto_world_waits_for_the_builder_without_compiling(tmp_path: Path) -> None:
    """backend="auto" on an empty cache while a builder holds the cache's lock (this test holds it, so no build
    runs): the world and the encoder answer with numpy, and nothing compiles."""
    import fcntl

    cache = tmp_path / "cache"
    cache.mkdir()
    fd = os.open(cache / "collideworld-build.lock", os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        got = _record(cache, tmp_path / "r.arrows", "auto", _env(cache, COLLIDEWORLD_BACKGROUND_BUILD="1"))
    finally:
        os.close(fd)
    assert got == ["numpy", "encode_bits", "40", "-"]


def test_warm_up_and_the_background_build_include_the_encoder(tmp_path: Path) -> None:
    """The build steps list the encoder; after warm_up's hooks ran on an empty cache, a recording on the
    compiled encoder compiles nothing more (the warmed specialisation is the one the writer calls), and a
    new process loads it from the cache without compiling."""
    from collideworld.build import full_build_steps

    labels = [label for label, _ in full_build_steps()]
    assert "2D Arrow pose encoder" in labels and "3D Arrow pose encoder" in labels
    cache = tmp_path / "cache"
    cache.mkdir()
    code = textwrap.dedent("""
        import sys
        import numpy as np
        import numba.core.event as ev
        from collideworld.backend import WARMERS
        from collideworld.scenario import MoveBatch
        from collideworld.scenario.arrow import ArrowScenarioWriter
        with ev.install_recorder("numba:compile") as warm:
            for hook in WARMERS:
                if getattr(hook, "label", "") == "Arrow pose encoder":
                    hook(2)
        rng = np.random.default_rng(5)
        with ev.install_recorder("numba:compile") as after:
            w = ArrowScenarioWriter(sys.argv[1], 2, batch_frames=8, backend="compiled")
            w.write_frame(add=[{"id": i, "shape": {"type": "circle", "radius": 1.0}, "position": [0.0, 0.0]}
                               for i in range(5)])
            for f in range(20):
                w.write_frame(move=[MoveBatch(list(range(5)), positions=rng.normal(size=(5, 2)),
                                              angles=rng.normal(size=5))])
            used = w._encode.__name__
            w.close()
        print(sum(e.is_start for _, e in warm.buffer) > 0, used, sum(e.is_start for _, e in after.buffer))
    """)
    env = _env(cache, COLLIDEWORLD_BACKGROUND_BUILD="0")
    for first in (True, False):
        done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "w.arrows")], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        # first process: the hook compiles, the recording does not; second: loaded from the cache
        assert done.stdout.split() == [str(first), "encode_planes", "0"]
