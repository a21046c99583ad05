"""Check the workloads' density calibration: mean overlaps per body, counted by the peers.

The workloads (``workloads.py``) size their scenes so that each body touches
about the same number of others at every n. This script measures that
number with pymunk (2D) and python-fcl (3D), independent of collideworld.
It lives apart from ``workloads.py`` so that the workloads never import the
engines (the engines import the workloads).

    python benchmarks/calibrate_density.py --n 20000
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from engines import FclEngine, PymunkEngine  # noqa: E402
from workloads import Scene, make_scene_2d, make_scene_3d  # noqa: E402


def overlaps_per_body(scene: Scene, frames: int) -> float:
    """Mean number of bodies each body touches over ``frames`` frames (counted by pymunk / fcl)."""
    eng = PymunkEngine() if scene.dim == 2 else FclEngine()
    eng.setup(scene)
    counts = [len(eng.frame(fr.moved, fr.positions, fr.rotations)) for fr in scene.frames(frames)]
    return 2.0 * float(np.mean(counts)) / scene.n


def main() -> None:
    ap = argparse.ArgumentParser(description="Measure the mean overlaps per body at the calibrated density.")
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--frames", type=int, default=5)
    args = ap.parse_args()
    for make in (make_scene_2d, make_scene_3d):
        sc = make(args.n)
        print(f"{sc.name}: size {sc.size:.2f}, {overlaps_per_body(sc, args.frames):.3f} overlaps per body")


if __name__ == "__main__":
    main()
