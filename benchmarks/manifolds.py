"""What contact points cost: one World frame with and without ``manifolds=True``.

Usage::

    python benchmarks/manifolds.py [--quick] [--frames 15] [--warmup 3]

Runs the workloads of ``benchmarks/run.py`` through two Worlds fed the same
seeded frames, interleaved frame by frame (which world goes first
alternates), on each backend, and prints median frame times, the ratio and
the share of a frame the points take: ``(on - off) / on``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's collideworld

from engines import CollideWorldEngine  # noqa: E402
from workloads import make_scene_2d, make_scene_3d  # noqa: E402

import collideworld as cw  # noqa: E402


class _Engine(CollideWorldEngine):
    def __init__(self, backend: str, manifolds: bool) -> None:
        super().__init__()
        self.backend = backend
        self.manifolds = manifolds

    def setup(self, scene) -> None:  # type: ignore[no-untyped-def]
        if self.backend == "compiled":
            cw.warm_up()
        self.dim = scene.dim
        self.world = cw.World(dim=scene.dim, backend=self.backend, manifolds=self.manifolds)
        if scene.dim == 2:
            self.world.add_many(_shapes(scene), scene.positions, angles=scene.rotations, ids=list(range(scene.n)))
        else:
            self.world.add_many(_shapes(scene), scene.positions, quaternions=scene.rotations,
                                ids=list(range(scene.n)))


def _shapes(scene):  # type: ignore[no-untyped-def]
    from workloads import BOX, CIRCLE, SPHERE
    out = []
    for i in range(scene.n):
        k = int(scene.kind[i])
        if scene.dim == 2:
            out.append(cw.Circle(float(scene.radius[i])) if k == CIRCLE else
                       cw.Box(tuple(scene.half_extents[i].tolist())) if k == BOX else
                       cw.Polygon(scene.polygons[i].tolist()))
        else:
            out.append(cw.Sphere(float(scene.radius[i])) if k == SPHERE else
                       cw.Box(tuple(scene.half_extents[i].tolist())))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--frames", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args()
    workloads = ([("2d-400", 2, 400, 1.0), ("2d-400-5pct", 2, 400, 0.05), ("3d-200", 3, 200, 1.0)] if args.quick else
                 [("2d-2000", 2, 2000, 1.0), ("2d-10000", 2, 10_000, 1.0), ("2d-10000-5pct", 2, 10_000, 0.05),
                  ("3d-5000", 3, 5000, 1.0)])
    print("| workload | backend | contacts/frame | off ms | on ms | on/off | points' share of a frame |")
    print("|---|---|---|---|---|---|---|")
    for key, dim, n, moving in workloads:
        for backend in ("compiled", "numpy"):
            make = make_scene_2d if dim == 2 else make_scene_3d
            engines = {flag: _Engine(backend, flag) for flag in (False, True)}
            for e in engines.values():
                e.setup(make(n, moving_fraction=moving, seed=1))
            scene = make(n, moving_fraction=moving, seed=1)
            times: dict[bool, list[float]] = {False: [], True: []}
            contacts = []
            for k, fr in enumerate(scene.frames(args.frames + args.warmup)):
                order = (False, True) if k % 2 == 0 else (True, False)
                for flag in order:
                    t0 = time.perf_counter()
                    res = engines[flag]._advance(fr.moved, fr.positions, fr.rotations)
                    dt = time.perf_counter() - t0
                    if k >= args.warmup:
                        times[flag].append(dt * 1e3)
                    if flag:
                        contacts.append(len(res))
                        assert res.points is not None and int(np.sum(res.point_count >= 1)) == len(res)
            off, on = statistics.median(times[False]), statistics.median(times[True])
            print(f"| {key} | {backend} | {statistics.median(contacts):.0f} | {off:.2f} | {on:.2f} | "
                  f"{on / off:.2f} | {100 * (on - off) / on:.0f} % |", flush=True)


if __name__ == "__main__":
    main()
