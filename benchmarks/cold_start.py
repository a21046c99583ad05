"""Cold start: each first call in a fresh process with an empty numba cache, beside the warm-cache figures.

Run from the repository root::

    python -m benchmarks.cold_start [--cases step2d step3d ...] [--out benchmarks/results/cold_start.md]
    python -m benchmarks.cold_start --profile      # where warm_up's compile time goes

Every case runs in a fresh ``python`` subprocess whose ``NUMBA_CACHE_DIR`` is
a new empty directory (cold), then once more in a fresh subprocess on the
cache the cold run left (warm). Each figure is the wall and CPU time of one
first call as the child measures it (``time.perf_counter`` and
``time.process_time``; the child's builder processes, if any, are not in the
CPU figure but are in the ``total CPU`` column, taken from the parent's
``RUSAGE_CHILDREN``). The 1-minute load average is read before each run: on a
shared machine the wall clock mostly measures waiting for a core, so read the
CPU column first.

``--profile`` runs ``warm_up(every_shape=True)`` on an empty cache under a
``numba.core.event`` listener and lists the kernels whose compilation took
longest (exclusive of the callees compiled inside them), per signature.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: The child's prelude: a timer that prints one JSON row per first call.
_PRELUDE = r'''
import json, os, sys, time
_t0 = time.perf_counter(); _c0 = time.process_time()
def _row(name, fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    print(json.dumps({"call": name, "wall": time.perf_counter() - w, "cpu": time.process_time() - c}), flush=True)
    return out
_row("import collideworld", lambda: __import__("collideworld"))
import numpy as np
import collideworld as cw
'''

#: Each case: the code after the prelude. Names follow the issue's goal list.
CASES = {
    "step2d": r'''
rng = np.random.default_rng(1)
n = 2000
shapes = [cw.Circle(0.5), cw.Box((0.4, 0.3)), cw.Polygon(((0, 0), (1, 0), (0.2, 0.8)))]
w = cw.World(2, backend=sys.argv[1])
pos = rng.uniform(0, 60, (n, 2))
w.add_many([shapes[i % 3] for i in range(n)], pos, rng.uniform(0, 6.28, n))
_row("first step (2,000 bodies 2D)", w.step)
_row("first query_point", lambda: w.query_point((30.0, 30.0)))
_row("first query_shape", lambda: w.query_shape(cw.Box((1.0, 1.0)), (30.0, 30.0), 0.3))
_row("first raycast", lambda: w.raycast((0.0, 30.0), (1.0, 0.0), 60.0))
_row("first raycast_many", lambda: w.raycast_many(rng.uniform(0, 60, (100, 2)), np.tile([1.0, 0.0], (100, 1)), 20.0))
w.move_many(w.ids()[:200], pos[:200] + 0.3) if hasattr(w, "move_many") else None
_row("second step", w.step)
print(json.dumps({"backend": w.backend}))
''',
    "step3d": r'''
rng = np.random.default_rng(2)
n = 5000
hull = cw.ConvexHull(rng.normal(size=(12, 3)) * 0.4)
shapes = [cw.Sphere(0.5), cw.Box((0.4, 0.3, 0.2)), hull, cw.Capsule((0, 0, 0), (0.6, 0, 0), 0.2)]
w = cw.World(3, backend=sys.argv[1])
q = rng.normal(size=(n, 4)); q /= np.linalg.norm(q, axis=1)[:, None]
w.add_many([shapes[i % 4] for i in range(n)], rng.uniform(0, 40, (n, 3)), quaternions=q)
_row("first step (5,000 bodies 3D, hulls+capsules)", w.step)
print(json.dumps({"backend": w.backend}))
''',
    "pairs": r'''
a, b = cw.Box((1.0, 1.0)), cw.Circle(0.5)
_row("first collide()", lambda: cw.collide(a, ((0.0, 0.0), 0.0), b, ((1.2, 0.0), 0.0), backend=sys.argv[1]))
_row("first distance()", lambda: cw.distance(a, ((0.0, 0.0), 0.0), b, ((3.0, 0.0), 0.0)))
_row("first time_of_impact()", lambda: cw.time_of_impact(a, ((0.0, 0.0), 0.0), ((0.0, 0.0), 0.0),
                                                            b, ((5.0, 0.0), 0.0), ((0.0, 0.0), 0.0)))
''',
    "warm_up": r'''
_row("warm_up()", cw.warm_up)
''',
}

#: The CLI cases, whole process timed from outside: the first ``collideworld replay scenarios/``,
#: and ``collideworld warm-up``.
REPLAY = "replay scenarios/"
WARM_UP_CLI = "warm-up"


def _run(case: str, cache: str, backend: str, env_extra: dict[str, str]) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=ROOT, **env_extra)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = os.getloadavg()[0]
    t = time.perf_counter()
    if case == REPLAY:
        cmd = [sys.executable, "-m", "collideworld.cli", "replay", "--quiet", "--backend", backend,
               os.path.join(ROOT, "scenarios")]
    elif case == WARM_UP_CLI:
        cmd = [sys.executable, "-m", "collideworld", "warm-up", "--no-progress"]
    else:
        cmd = [sys.executable, "-c", _PRELUDE + CASES[case], backend]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    rows = []
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            rows.append(json.loads(line))
    if proc.returncode != 0:
        sys.stderr.write(f"{case} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}\n")
    return {"case": case, "rows": rows, "wall": wall, "cpu": cpu, "load": load, "rc": proc.returncode,
            "stderr": proc.stderr[-600:]}


def _wait_for_builder(cache: str) -> None:
    """Wait until no background builder holds the cache directory's lock (so the warm run finds it full)."""
    lock = os.path.join(cache, "collideworld-build.lock")
    if not os.path.exists(lock):
        return
    import fcntl

    with open(lock, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        fcntl.flock(f, fcntl.LOCK_UN)


def _stop_builder(cache: str) -> None:
    """Stop the background builder a cold run started, if one still holds the cache's lock (its pid is in it)."""
    import signal

    lock = os.path.join(cache, "collideworld-build.lock")
    try:
        with open(lock) as f:
            pid = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    _wait_for_builder(cache)


def _table(results: list[tuple[dict, dict]]) -> str:
    lines = ["| first call | cold wall s | cold CPU s | warm wall s | warm CPU s | load (cold/warm) |",
             "| --- | ---: | ---: | ---: | ---: | --- |"]
    for cold, warm in results:
        if cold["case"] in (REPLAY, WARM_UP_CLI):
            lines.append(f"| `collideworld {cold['case']}` (whole process, rc {cold['rc']}) | {cold['wall']:.2f} | "
                         f"{cold['cpu']:.2f} | {warm['wall']:.2f} | {warm['cpu']:.2f} | "
                         f"{cold['load']:.1f} / {warm['load']:.1f} |")
            continue
        warm_rows = {r["call"]: r for r in warm["rows"] if "call" in r}
        for r in cold["rows"]:
            if "call" not in r:
                continue
            wr = warm_rows.get(r["call"], {"wall": float("nan"), "cpu": float("nan")})
            lines.append(f"| {r['call']} | {r['wall']:.3f} | {r['cpu']:.3f} | {wr['wall']:.3f} | {wr['cpu']:.3f} | "
                         f"{cold['load']:.1f} / {warm['load']:.1f} |")
        lines.append(f"| ({cold['case']}: whole process incl. builders, rc {cold['rc']}) | {cold['wall']:.2f} | "
                     f"{cold['cpu']:.2f} | {warm['wall']:.2f} | {warm['cpu']:.2f} | |")
    return "\n".join(lines)


_PROFILE = r'''
import collections, json, time
from numba.core import event
import collideworld as cw
stack, excl, incl = [], collections.Counter(), collections.Counter()
class L(event.Listener):
    def on_start(self, ev):
        stack.append([time.process_time(), 0.0])
    def on_end(self, ev):
        t0, child = stack.pop()
        dt = time.process_time() - t0
        d = ev.data or {}
        disp = d.get("dispatcher"); args = d.get("args")
        fn = getattr(disp, "py_func", None)
        name = f"{getattr(fn, '__module__', None)}.{getattr(fn, '__qualname__', disp)}"
        key = name + str(tuple(args) if args is not None else "")
        excl[key] += dt - child; incl[key] += dt
        if stack:
            stack[-1][1] += dt
t, c = time.perf_counter(), time.process_time()
with event.install_listener("numba:compile", L()):
    cw.warm_up(every_shape=__EVERY__)
total, cpu = time.perf_counter() - t, time.process_time() - c
funcs = collections.Counter(k.split("(", 1)[0] for k in excl)
print(json.dumps({"total": total, "cpu": cpu, "excl": excl.most_common(40),
                  "incl": {k: incl[k] for k, _ in excl.most_common(40)}, "n": len(excl),
                  "dup": {f: [(k, excl[k]) for k in excl if k.split("(", 1)[0] == f]
                          for f, m in funcs.items() if m > 1}}))
'''


def profile(every: bool) -> None:
    cache = tempfile.mkdtemp(prefix="cw-cold-")
    try:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=ROOT)
        load = os.getloadavg()[0]
        proc = subprocess.run([sys.executable, "-c", _PROFILE.replace("__EVERY__", str(every))], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        if proc.returncode:
            raise SystemExit(proc.stderr[-3000:])
        out = proc.stdout
        data = json.loads(out.strip().splitlines()[-1])
        funcs = data["n"] - sum(map(len, data["dup"].values())) + len(data["dup"])
        print(f"warm_up(every_shape={every}) on an empty cache: {data['total']:.1f} s wall, {data['cpu']:.1f} s CPU, "
              f"load {load:.1f}, {data['n']} compiled specialisations of {funcs} functions")
        print("| kernel (signature) | exclusive CPU s | inclusive CPU s |\n| --- | ---: | ---: |")
        for key, dt in data["excl"]:
            print(f"| `{key[:160]}` | {dt:.2f} | {data['incl'][key]:.2f} |")
        if data["dup"]:
            print("\nFunctions compiled for more than one signature (exclusive CPU s per specialisation):\n")
            for f, rows in sorted(data["dup"].items(), key=lambda kv: -sum(dt for _, dt in kv[1])):
                print(f"- `{f}`: " + ", ".join(f"{dt:.2f}" for _, dt in rows))
                for key, _ in rows:
                    print(f"    - `{key[len(f):]}`")
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="*", default=[*CASES, REPLAY], help=f"of {[*CASES, REPLAY]}")
    ap.add_argument("--backend", default="auto", choices=("auto", "compiled", "numpy"))
    ap.add_argument("--shared-warm-cache", action="store_true",
                    help="warm runs on one cache filled by `collideworld warm-up`; stop each cold run's builder")
    ap.add_argument("--cold-only", action="store_true",
                    help="only the cold runs (stop each one's background builder; warm columns left empty)")
    ap.add_argument("--out", default=None, help="also write the table (markdown) here")
    ap.add_argument("--profile", action="store_true", help="list warm_up's compile time per kernel instead")
    ap.add_argument("--every-shape", action="store_true", help="with --profile: warm_up(every_shape=True)")
    args = ap.parse_args()
    if args.profile:
        profile(args.every_shape)
        return
    results = []
    shared = None
    if args.shared_warm_cache:
        # one full build (``collideworld warm-up``) for every warm run; each cold run's background builder
        # is stopped when its process ends, so that it does not slow the next case down
        shared = tempfile.mkdtemp(prefix="cw-warm-")
        results.append((_run(WARM_UP_CLI, shared, args.backend, {}), _run(WARM_UP_CLI, shared, args.backend, {})))
        print(_table(results[-1:]).splitlines()[-1], flush=True)
    for case in args.cases:
        cache = tempfile.mkdtemp(prefix="cw-cold-")
        try:
            cold = _run(case, cache, args.backend, {})
            if args.cold_only:
                _stop_builder(cache)
                warm = {**cold, "rows": [], "wall": float("nan"), "cpu": float("nan")}
            elif shared is None:
                _wait_for_builder(cache)
                warm = _run(case, cache, args.backend, {})
            else:
                _stop_builder(cache)
                warm = _run(case, shared, args.backend, {})
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        results.append((cold, warm))
        print(_table([(cold, warm)]).splitlines()[-1], flush=True)
    if shared is not None:
        shutil.rmtree(shared, ignore_errors=True)
    table = _table(results)
    header = (f"backend={args.backend}, python {sys.version.split()[0]}, {os.cpu_count()} cores, "
              f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(header)
    print(table)
    if args.out:
        with open(args.out, "a") as f:
            f.write(f"\n{header}\n\n{table}\n")


if __name__ == "__main__":
    main()
