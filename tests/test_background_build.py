"""backend="auto" never waits for the compiler: numpy answers while a background builder fills numba's cache.

- A world switched from the numpy kernels to the compiled ones in the middle
  of a scenario gives, at every step, the answers of a world on the numpy
  kernels throughout and of one on the compiled kernels throughout (the two
  backends' differential agreement: identical pairs, events and feature
  ids; normals, depths and points to 1e-9).
- Several processes starting at once on an empty cache build once, and each
  ends on the compiled kernels with the numpy kernels' answers.
- A builder killed mid-build leaves no marker and no lock, and every cache
  entry it wrote loads; the next build completes.
- Without numba: the numpy backend, and no builder.

The builder tests run a partial build (``COLLIDEWORLD_BUILD_STEPS``: the pair
cache's bookkeeping kernels, a few seconds to compile) into a fresh
``NUMBA_CACHE_DIR``, so the suite stays fast on a fresh machine.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import collideworld
from collideworld import background
from collideworld import world as world_module
from collideworld.shapes import Box, Capsule, Circle, ConvexHull, HalfPlane, Plane, Polygon, Sphere

ROOT = Path(__file__).resolve().parents[1]
PARTIAL = "2D pair cache"  # the label of a small build step (collideworld.build.full_build_steps)


def _env(cache: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT),
               COLLIDEWORLD_BACKGROUND_BUILD="1", COLLIDEWORLD_BUILD_STEPS=PARTIAL,
               COLLIDEWORLD_BUILD_NICE="0")  # a busy machine must not starve the test's builder
    env.update(extra)
    return env


# -- the switch in the middle of a scenario --------------------------------------------------------

def _scene(dim: int, seed: int) -> tuple[list, np.ndarray, np.ndarray | None]:
    rng = np.random.default_rng(seed)
    n = 60
    if dim == 2:
        kinds = [Circle(0.6), Box((0.5, 0.3)), Polygon(((0.0, 0.0), (1.0, 0.0), (0.3, 0.9))),
                 Capsule((0.0, 0.0), (0.8, 0.0), 0.25)]
        rot = rng.uniform(0.0, 6.3, (n,))
    else:
        kinds = [Sphere(0.6), Box((0.5, 0.3, 0.4)), Capsule((0.0, 0.0, 0.0), (0.8, 0.0, 0.0), 0.25),
                 ConvexHull(rng.normal(size=(10, 3)) * 0.5)]
        q = rng.normal(size=(n, 4))
        rot = q / np.linalg.norm(q, axis=1)[:, None]
    shapes = [kinds[i % len(kinds)] for i in range(n)]
    pos = rng.uniform(0.0, 6.0, (n, dim))
    return shapes, pos, rot


def _run(world, dim: int, seed: int, steps: int, switch_at: int | None, flag: list[bool]) -> list:
    shapes, pos, rot = _scene(dim, seed)
    rng = np.random.default_rng(seed + 1)
    world.add(HalfPlane((0.0, 1.0), 0.5) if dim == 2 else Plane((0.0, 0.0, 1.0), 0.5), id="ground")
    if dim == 2:
        ids = world.add_many(shapes, pos, rot)
    else:
        ids = world.add_many(shapes, pos, quaternions=rot)
    out = []
    for k in range(steps):
        if switch_at is not None and k == switch_at:
            flag[0] = True  # the build is loaded: the next step switches
        contacts = world.step()
        out.append((world.backend, contacts))  # the backend that answered this step
        moving = rng.choice(len(ids), size=20, replace=False)  # some move, the others' pairs are reused
        pos[moving] += rng.normal(scale=0.3, size=(20, dim))
        if dim == 2:
            rot[moving] += rng.normal(scale=0.3, size=20)
            world.move_many([ids[i] for i in moving], pos[moving], rot[moving])
        else:
            world.move_many([ids[i] for i in moving], pos[moving], quaternions=rot[moving])
    return out


def _same_pairs(ref, got) -> None:
    assert [(c.a, c.b) for c in ref] == [(c.a, c.b) for c in got]
    assert ref.began.rows() == got.began.rows() and ref.ended.rows() == got.ended.rows()
    np.testing.assert_allclose(got.normal, ref.normal, rtol=0, atol=1e-9)
    np.testing.assert_allclose(got.depth, ref.depth, rtol=0, atol=1e-9)


def _identical(ref, got) -> None:
    _same_pairs(ref, got)
    np.testing.assert_array_equal(got.normal, ref.normal)
    np.testing.assert_array_equal(got.depth, ref.depth)
    _same_points(ref, got)


def _same_points(ref, got) -> None:
    np.testing.assert_array_equal(got.point_count, ref.point_count)
    np.testing.assert_array_equal(got.point_ids, ref.point_ids)
    live = np.arange(got.points.shape[1])[None, :] < got.point_count[:, None]
    np.testing.assert_allclose(got.points[live], ref.points[live], rtol=0, atol=1e-9)
    np.testing.assert_allclose(got.separations[live], ref.separations[live], rtol=0, atol=1e-9)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_answers_identical_across_the_switch(dim: int, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """An "auto" world that starts on numpy (build not ready) and switches at step 4 of 9 answers, at every
    step, as the numpy world and the compiled world do; its queries too, after the switch."""
    flag = [False]
    monkeypatch.setattr(background, "compiled_ready", lambda: flag[0])
    monkeypatch.setattr(world_module, "compiled_ready", lambda: flag[0])
    switching = collideworld.World(dim, backend="auto", manifolds=True)
    assert switching.backend == "numpy"
    got = _run(switching, dim, seed, 9, 4, flag)
    ref = _run(collideworld.World(dim, backend="numpy", manifolds=True), dim, seed, 9, None, [False])
    fast = _run(collideworld.World(dim, backend="compiled", manifolds=True), dim, seed, 9, None, [False])
    assert [b for b, _ in got] == ["numpy"] * 4 + ["compiled"] * 5
    assert sum(len(c) for _, c in got) > 50  # the scene is busy enough to check something
    for k, ((_, g), (_, r), (_, f)) in enumerate(zip(got, ref, fast, strict=True)):
        # Before the switch the numpy world's answers, from it the compiled world's, to the bit (the
        # switch tests every pair again); across backends, pairs, events, normals and depths agree.
        # (Contact points of a hull pair may not: normals an ulp apart can put a vertex on either
        # side of the flat cut-off, 1 point on one backend and 2 on the other.)
        _identical(r if k < 4 else f, g)
        _same_pairs(f if k < 4 else r, g)
    # the queries after the switch (their grid is built again, compiled) against a numpy world's
    numpy_world = collideworld.World(dim, backend="numpy")
    _run(numpy_world, dim, seed, 9, None, [False])
    probe = Box((1.0,) * dim)
    at = np.full(dim, 3.0)
    if dim == 2:
        assert switching.query_shape(probe, at, 0.3) == numpy_world.query_shape(probe, at, 0.3)
    else:
        assert switching.query_shape(probe, at) == numpy_world.query_shape(probe, at)
    assert switching.query_point(at) == numpy_world.query_point(at)
    ray = switching.raycast(np.zeros(dim), np.ones(dim), 20.0)
    ray_ref = numpy_world.raycast(np.zeros(dim), np.ones(dim), 20.0)
    assert [h.id for h in ray] == [h.id for h in ray_ref]
    np.testing.assert_allclose([h.distance for h in ray], [h.distance for h in ray_ref], rtol=0, atol=1e-9)


def test_distance_and_time_of_impact_answer_uncompiled_until_ready(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the build is ready, distance() and time_of_impact() run the plain-Python twins: the same answers."""
    from collideworld import distance, time_of_impact

    rng = np.random.default_rng(5)
    cases = []
    for _ in range(20):
        a = Box(tuple(rng.uniform(0.2, 1.0, 2)))
        b = Polygon(((0.0, 0.0), (1.0, 0.0), (0.2, 0.9)))
        pa, pb = (tuple(rng.uniform(-2, 2, 2)), float(rng.uniform(0, 6))), (tuple(rng.uniform(-2, 2, 2)), 0.5)
        far = ((8.0, 0.0), 1.0)
        cases.append((a, pa, b, pb, far))
    compiled = [(distance(a, pa, b, pb), time_of_impact(a, pa, pa, b, far, pb)) for a, pa, b, pb, far in cases]
    monkeypatch.setattr("collideworld.proximity.compiled_ready", lambda: False)
    twin = [(distance(a, pa, b, pb), time_of_impact(a, pa, pa, b, far, pb)) for a, pa, b, pb, far in cases]
    for (d1, t1), (d2, t2) in zip(compiled, twin, strict=True):
        assert abs(d1.distance - d2.distance) <= 1e-9
        assert (t1 is None) == (t2 is None)
        if t1 is not None:
            assert abs(t1.t - t2.t) <= 1e-9


# -- builders -----------------------------------------------------------------------------------------

FIRST_USER = textwrap.dedent("""
    import sys, time
    import numpy as np
    from collideworld import background, pair_cache
    from collideworld.backend import resolve_backend
    first = resolve_backend("auto")          # not built yet: numpy, and a builder starts
    assert background.wait(timeout=float(sys.argv[1])), "the build never became ready"
    assert resolve_backend("auto") == "compiled"
    from collideworld.compiled import pair_cache as compiled
    rng = np.random.default_rng(int(sys.argv[2]))
    keys = np.unique(rng.integers(0, 1000, 300)).astype(np.int64)
    prev = np.unique(rng.integers(0, 1000, 300)).astype(np.int64)
    hit = rng.random(len(keys)) < 0.5
    got = compiled.contact_events(keys, hit, prev)
    ref = pair_cache.contact_events(keys, hit, prev)
    assert all(np.array_equal(g, r) for g, r in zip(got, ref)), (got, ref)
    print(first, "ok")
""")


def test_concurrent_first_users_build_once(tmp_path: Path) -> None:
    """Five processes starting at once on an empty cache: one build, and every process ends compiled and right."""
    env = _env(tmp_path)
    procs = [subprocess.Popen([sys.executable, "-c", FIRST_USER, "400", str(k)], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k in range(5)]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err[-3000:]
        assert out.split() == ["numpy", "ok"]
    builds = (tmp_path / "collideworld-builds.log").read_text().splitlines()
    assert len(builds) == 1, builds
    assert len(list(tmp_path.glob("collideworld-ready-*"))) == 1


def test_killed_builder_leaves_no_broken_cache(tmp_path: Path) -> None:
    """SIGKILL a builder as soon as it has written cache files: no ready marker, the lock is free, and a
    new first user rebuilds and gets right answers from the cache."""
    env = _env(tmp_path)
    code = "import sys, collideworld.build as b; sys.exit(b.main(['--background']))"
    builder = subprocess.Popen([sys.executable, "-c", code], env=env, cwd=ROOT)
    deadline = time.monotonic() + 300
    while not list(tmp_path.rglob("*.nbi")) and time.monotonic() < deadline and builder.poll() is None:
        time.sleep(0.02)
    assert builder.poll() is None, "the builder finished before it could be killed"
    os.kill(builder.pid, signal.SIGKILL)
    builder.wait()
    assert not list(tmp_path.glob("collideworld-ready-*"))
    check = [sys.executable, "-c", "import sys; from collideworld import background; "
             "sys.exit(background.lock_is_held(sys.argv[1]))", str(tmp_path)]
    assert subprocess.run(check, env=env, cwd=ROOT).returncode == 0
    done = subprocess.run([sys.executable, "-c", FIRST_USER, "400", "7"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["numpy", "ok"]
    assert len((tmp_path / "collideworld-builds.log").read_text().splitlines()) == 2


def test_without_numba_numpy_and_no_builder(tmp_path: Path) -> None:
    code = textwrap.dedent("""
        import sys, warnings
        sys.modules["numba"] = None  # as if numba were not installed
        warnings.simplefilter("ignore")
        import collideworld
        from collideworld import background
        w = collideworld.World(2)
        w.add(collideworld.Circle(1.0)); w.add(collideworld.Circle(1.0), position=(1.5, 0.0))
        assert len(w.step()) == 1 and w.step() is not None
        assert w.backend == "numpy" and not w._await_compiled
        assert background._STATE.builder is None and background._STATE.spawned == 0
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code], env=_env(tmp_path), cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"
    assert list(tmp_path.iterdir()) == []  # no lock, no marker, no cache


def test_disabled_by_the_environment(tmp_path: Path) -> None:
    """COLLIDEWORLD_BACKGROUND_BUILD=0: "auto" compiles in the foreground as before, and starts no builder."""
    code = ("from collideworld import background; from collideworld.backend import resolve_backend; "
            "print(resolve_backend('auto'), background._STATE.spawned)")
    done = subprocess.run([sys.executable, "-c", code], env=_env(tmp_path, COLLIDEWORLD_BACKGROUND_BUILD="0"),
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["compiled", "0"]


def test_cli_warm_up_builds_and_marks_ready(tmp_path: Path) -> None:
    """``collideworld warm-up`` shows a bar on stderr (not a terminal here), fills the cache and marks it
    ready; a later "auto" process runs compiled from its first call and starts no builder."""
    env = _env(tmp_path)
    done = subprocess.run([sys.executable, "-m", "collideworld", "warm-up"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert str(tmp_path) in done.stdout and "compiling" in done.stderr
    assert len(list(tmp_path.glob("collideworld-ready-*"))) == 1
    code = ("from collideworld import background; from collideworld.backend import resolve_backend; "
            "import time; t = time.monotonic(); r = resolve_backend('auto'); background.wait(60); "
            "print(resolve_backend('auto'), background._STATE.spawned)")
    again = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                           timeout=120)
    assert again.returncode == 0, again.stderr[-3000:]
    assert again.stdout.split() == ["compiled", "0"]


def test_cli_compile_notice_is_on_when_stderr_is_not_a_terminal(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The first-compile notice is armed for a replay whose stderr is a file or a pipe, not only a terminal."""
    import io

    from collideworld import cli
    from collideworld.scenario import ScenarioWriter

    armed = []
    real = cli._compile_notice

    def spy(enabled, err):
        armed.append(enabled)
        return real(enabled, err)

    monkeypatch.setattr(cli, "_compile_notice", spy)
    path = str(tmp_path / "empty.jsonl")
    with ScenarioWriter(path, dim=2) as w:
        w.write_frame(expect=[])
    err = io.StringIO()  # not a terminal
    monkeypatch.setattr("sys.stderr", err)
    assert cli.main(["replay", "--quiet", path]) == 0
    assert cli.main(["replay", "--quiet", "--backend", "numpy", path]) == 0
    assert armed == [True, False]
