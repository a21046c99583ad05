"""What compound bodies cost: N cars (a box on four wheels) as compounds against the same parts as bodies.

Usage::

    python benchmarks/compound.py [--cars 2000] [--frames 20] [--backend compiled]

Two Worlds hold the same geometry: one with N compound cars (5 parts each),
one with the 5N parts as bodies of their own (the "exploded" world); both
have a ground half-plane (y <= 0) and move every car (or all its parts) by the same
seeded random steps each frame. Prints the median step time of each, their
ratio, and the contact rows (equal: a compound's contacts are per part pair).
The exploded world also reports the pairs of parts of one car, which the
compound world never tests; those are counted apart.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's collideworld

import collideworld as cw  # noqa: E402

PARTS = [(cw.Box((2.0, 0.5)), (0.0, 0.9))] + [(cw.Circle(0.4), (x, 0.4)) for x in (-1.5, -0.5, 0.5, 1.5)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cars", type=int, default=2000)
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--backend", default="compiled")
    args = ap.parse_args()
    n = args.cars
    rng = np.random.default_rng(1)
    # a field of cars at about one car per 6 x 6 area: some touch each other, those near y = 0 the ground
    side = math.sqrt(n) * 6.0
    pos = np.column_stack([rng.uniform(0, side, n), rng.uniform(-0.2, side, n)])
    car = cw.Compound(PARTS)
    if args.backend == "compiled":
        cw.warm_up()
    comp = cw.World(dim=2, backend=args.backend)
    comp.add(cw.HalfPlane((0, 1), 0.0), id="ground")
    comp_ids = comp.add_many(car, pos)
    expl = cw.World(dim=2, backend=args.backend)
    expl.add(cw.HalfPlane((0, 1), 0.0), id="ground")
    local = np.array([p for _, p in PARTS])
    shapes = [s for s, _ in PARTS] * n
    expl_ids = expl.add_many(shapes, (pos[:, None, :] + local[None]).reshape(-1, 2))
    times: dict[str, list[float]] = {"compound": [], "exploded": []}
    rows = {}
    for frame in range(args.frames):
        pos = pos + rng.normal(0, 0.05, pos.shape)
        comp.move_many(comp_ids, pos)
        expl.move_many(expl_ids, (pos[:, None, :] + local[None]).reshape(-1, 2))
        for name, w in (("compound", comp), ("exploded", expl)) if frame % 2 else (("exploded", expl),
                                                                                  ("compound", comp)):
            t = time.perf_counter()
            c = w.step()
            times[name].append(time.perf_counter() - t)
            rows[name] = c
    own = sum(1 for a, b in zip(rows["exploded"].a.tolist(), rows["exploded"].b.tolist(), strict=True)
              if a != "ground" and b != "ground" and a // 5 == b // 5)
    med = {k: statistics.median(v[2:]) * 1e3 for k, v in times.items()}
    print(f"{n} cars ({5 * n} parts), backend {args.backend}, median of {args.frames - 2} frames")
    print(f"  compound world: {med['compound']:8.2f} ms/step, {len(rows['compound'])} contact rows")
    print(f"  exploded world: {med['exploded']:8.2f} ms/step, {len(rows['exploded'])} contact rows "
          f"({own} between parts of one car)")
    print(f"  ratio compound / exploded: {med['compound'] / med['exploded']:.2f}")


if __name__ == "__main__":
    main()
