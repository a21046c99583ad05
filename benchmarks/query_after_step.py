"""The query index rides on the step: a query right after a step that moved every body.

Run from the repository root: ``python -m benchmarks.query_after_step [--n 2000] [--frames 60]``.

A world of ``n`` moving circles (every body moved by ``move_many`` each frame,
then ``step()``), and the first ``query_point`` / ``query_aabb`` / ``raycast``
after each step, against the same query in the same world with nothing moved
since the last query (a quiet world). Issue 28's goal: the first query after
a busy step costs no more than a quiet query plus 10 % of the step. CPU time,
medians over the frames.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from collideworld import Circle, World

CLOCK = time.process_time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--frames", type=int, default=60)
    args = parser.parse_args()
    n = args.n
    rng = np.random.default_rng(0)
    side = 3.0 * np.sqrt(n)
    w = World(2, backend="compiled")
    ids = w.add_many([Circle(float(r)) for r in rng.uniform(0.3, 0.8, n)], rng.uniform(0, side, (n, 2)))
    pos = np.array([w.body(i).position for i in ids])
    vel = rng.normal(0.0, 0.05, (n, 2))
    w.step()
    spots = rng.uniform(0, side, (args.frames, 2))
    queries = {
        "query_point": lambda p: w.query_point(p),
        "query_aabb": lambda p: w.query_aabb(p - 2.0, p + 2.0),
        "raycast": lambda p: w.raycast(p, (1.0, 0.0), 10.0),
    }
    steps: list[float] = []
    first: dict[str, list[float]] = {k: [] for k in queries}
    quiet: dict[str, list[float]] = {k: [] for k in queries}
    for f in range(args.frames):
        for name, q in queries.items():
            pos += vel
            w.move_many(ids, pos)
            t0 = CLOCK()
            w.step()
            t1 = CLOCK()
            q(spots[f])
            t2 = CLOCK()
            for _ in range(5):
                q(spots[(f + 1) % len(spots)])
            t3 = CLOCK()
            steps.append(t1 - t0)
            first[name].append(t2 - t1)
            quiet[name].append((t3 - t2) / 5)
    step = statistics.median(steps)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{n} moving circles, step {step * 1e3:.2f} ms (median), load average {load} (CPU time)")
    # (the compiled index is brought up to date inside the step since issue 28: the step's column includes it,
    # so "step + first" is the figure to compare across versions)
    print("| query | quiet | first after step | extra | extra / step (goal <= 10 %) | step + first |\n"
          "|---|---:|---:|---:|---:|---:|")
    for name in queries:
        a, b = statistics.median(quiet[name]), statistics.median(first[name])
        both = statistics.median(s + f for s, f in zip(steps[list(queries).index(name)::len(queries)], first[name],
                                                       strict=True))
        print(f"| {name} | {a * 1e6:.1f} µs | {b * 1e6:.1f} µs | {(b - a) * 1e6:.1f} µs | {(b - a) / step:.1%} "
              f"| {both * 1e3:.3f} ms |")


if __name__ == "__main__":
    main()
