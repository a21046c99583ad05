"""Frames on two threads while other processes keep the cores busy (issue 28).

Run from the repository root: ``python benchmarks/threads_load.py [--n 10000] [--frames 30] [--busy 2]``.

Starts ``--busy`` competing processes (a Python busy loop each, ended by
this script when it is done), then steps two copies of the same 2D world
(``n`` bodies, all moving every frame): one with ``set_threads(1)``, one with
``set_threads(2)``, frames interleaved. The two-thread world runs twice:
with the parallel loops choosing by their measured times (the library as
shipped) and with that choice turned off (every large loop parallel, as
before). Prints the medians and 90th percentiles in ms and the ratio to
serial, and the load average.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from workloads import make_scene_2d  # noqa: E402


def _world(scene: Any) -> Any:
    from workloads import BOX, CIRCLE

    from collideworld import Box, Circle, Polygon, World

    w = World(dim=2, backend="compiled")
    for i in range(scene.n):
        k = int(scene.kind[i])
        shape: Any = (Circle(float(scene.radius[i])) if k == CIRCLE else
                      Box(tuple(scene.half_extents[i].tolist())) if k == BOX else Polygon(scene.polygons[i].tolist()))
        w.add(shape, scene.positions[i], angle=float(scene.rotations[i]), id=i)
    w.step()
    return w


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--busy", type=int, default=2, help="competing busy processes (default 2: one per core)")
    args = ap.parse_args(argv)

    import numba

    import collideworld
    from collideworld import threads

    if numba.config.NUMBA_NUM_THREADS < 2:
        print("numba's pool has one thread: nothing to compare")
        return 1
    scene = make_scene_2d(args.n, moving_fraction=1.0, seed=0)
    frames = list(scene.frames(args.warmup + args.frames))
    worlds = {"serial": _world(scene), "2 threads, choosing": _world(scene), "2 threads, always": _world(scene)}
    from collideworld.geometry.compiled import contact_slots

    chosen = (threads.loop_threads, threads.timed_loop)

    def always(site: str, size: int, threshold: int) -> int:
        return threads.threads_for(size, threshold)

    def untimed(site: str, size: int, n: int, threshold: int) -> Any:
        return contextlib.nullcontext()

    def use(pick: Any, timed: Any) -> None:
        # the broadphase imports these from threads at each call, the contact loop at its import
        threads.loop_threads = contact_slots.loop_threads = pick
        threads.timed_loop = contact_slots.timed_loop = timed

    collideworld.set_threads(2)
    threads._idle_threads = lambda: 2  # type: ignore[assignment]  # two threads, whatever the load average says
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    ms: dict[str, list[float]] = {k: [] for k in worlds}
    try:
        time.sleep(1.0)
        for f, fr in enumerate(frames):
            names = list(worlds) if f % 2 == 0 else list(worlds)[::-1]
            for name in names:
                w = worlds[name]
                # serial: numba's count for this thread set to 1 (set_threads would forget the measured times)
                numba.set_num_threads(1 if name == "serial" else 2)
                use(*(chosen if name != "2 threads, always" else (always, untimed)))
                t0 = time.perf_counter()
                w.move_many(fr.moved, fr.positions, fr.rotations)
                w.step()
                dt = (time.perf_counter() - t0) * 1e3
                if f >= args.warmup:
                    ms[name].append(dt)
    finally:
        use(*chosen)
        for p in busy:
            p.kill()
            p.wait()
    base = statistics.median(ms["serial"])
    print(f"n={args.n}, {args.frames} frames, {args.busy} busy processes, load average {os.getloadavg()[0]:.1f}, "
          f"{os.cpu_count()} cores")
    for name, v in ms.items():
        p90 = float(np.percentile(v, 90))
        print(f"  {name:22s} median {statistics.median(v):7.2f} ms  p90 {p90:7.2f} ms  "
              f"median / serial {statistics.median(v) / base:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
