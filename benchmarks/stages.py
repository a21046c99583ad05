"""Where one collideworld frame's time goes, stage by stage, on a benchmark workload.

Usage::

    python benchmarks/stages.py DIM N MOVING_FRACTION [FRAMES] [--threads T]
    python benchmarks/stages.py 2 10000 0.05 40 --threads 1

Drives the compiled World as ``benchmarks/run.py`` does (``move_many`` then
``step``, the same seeded frames) and times each stage with CPU time
(``time.process_time``), which a shared machine disturbs less than wall
time: ``move`` (pose checks and posing), ``refit`` (fat boxes and the
broadphase update), ``broad`` (the broadphase's pair questions), ``narrow``
(the narrowphase), ``cache_own`` (the pair cache's own bookkeeping: keying,
reuse, events, the Contacts). Run it alternately on two checkouts and
compare medians of several runs. Each stage is given twice: CPU time (the
sum over threads) and wall time (what several threads shorten).
``--threads T`` sets numba's thread count (``numba.set_num_threads``); by
default every core numba sees.
"""

from __future__ import annotations

import collections
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engines import CollideWorldEngine  # noqa: E402
from workloads import make_scene_2d, make_scene_3d  # noqa: E402


def main() -> None:
    import collideworld.pair_cache as pair_cache
    import collideworld.world as world

    args = sys.argv[1:]
    threads = None
    if "--threads" in args:
        at = args.index("--threads")
        threads = int(args[at + 1])
        del args[at: at + 2]
    dim, n, frac = int(args[0]), int(args[1]), float(args[2])
    count = int(args[3]) if len(args) > 3 else 30
    if threads is not None:
        import numba

        numba.set_num_threads(threads)
        import collideworld

        collideworld.set_threads(threads)  # as given, even on a loaded machine
    spent: dict[str, float] = collections.defaultdict(float)
    walled: dict[str, float] = collections.defaultdict(float)

    def timed(owner: Any, name: str, label: str) -> None:
        inner: Callable[..., Any] = getattr(owner, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t = time.process_time()
            t_wall = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[label] += time.process_time() - t
                walled[label] += time.perf_counter() - t_wall

        setattr(owner, name, wrapper)

    timed(world, "refresh_moved", "refit")
    timed(pair_cache, "contact_pairs", "narrow")
    scene = (make_scene_2d if dim == 2 else make_scene_3d)(n, moving_fraction=frac, seed=0)
    engine = CollideWorldEngine()
    engine.setup(scene)
    w = engine.world
    for name in ("pairs", "pairs_touching"):
        timed(w._pairs._bp, name, "broad")
    timed(w, "move_many", "move")
    timed(w._pairs, "step", "cache_total")
    frames = list(scene.frames(count + 3))
    for fr in frames[:3]:  # warm-up, not timed
        engine.frame(fr.moved, fr.positions, fr.rotations)
    spent.clear()
    walled.clear()
    per_frame = []
    per_frame_wall = []
    for fr in frames[3:]:
        t = time.process_time()
        t_wall = time.perf_counter()
        engine.frame(fr.moved, fr.positions, fr.rotations)
        per_frame.append(time.process_time() - t)
        per_frame_wall.append(time.perf_counter() - t_wall)
    for table in (spent, walled):
        table["cache_own"] = table.pop("cache_total") - table["broad"] - table["narrow"]
    from collideworld.backend import get_threads

    print(f"dim {dim} n {n} moving {frac} threads {get_threads()}: median "
          f"{1e3 * statistics.median(per_frame):.2f} ms CPU, {1e3 * statistics.median(per_frame_wall):.2f} ms wall "
          "per frame")
    for label, table in (("CPU ", spent), ("wall", walled)):
        print(f"  {label} | " + " ".join(f"{k} {1e3 * v / count:.2f}" for k, v in table.items()))


if __name__ == "__main__":
    main()
