"""Hull contacts per overlapping pair: numpy SAT, compiled SAT, compiled EPA (issue 15), and hull manifolds.

Usage::

    python benchmarks/hulls.py [--pairs 300] [--repeat 5] [--seed 0] [--kernels-only]

For hulls of 8, 16, 32 and 64 vertices (points on axis-scaled spheres, every
point a vertex), seeded random poses close enough that most pairs overlap:

- ``contact_pairs`` through a store, on each backend (what a world step pays
  per hull pair, gathering included); this part runs on any collideworld
  version, so it gives before/after figures;
- the compiled kernel alone, with its EPA and with its SAT fallback forced;
- the hull manifolds (``manifold_pairs``) of the overlapping pairs, on each backend.

Times are medians over ``--repeat`` runs, per overlapping pair.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from collideworld import ConvexHull
from collideworld.bodies import BodyStore
from collideworld.narrowphase import contact_pairs


def _hull(rng: np.random.Generator, n: int) -> ConvexHull:
    while True:
        p = rng.normal(size=(n, 3))
        p /= np.linalg.norm(p, axis=1)[:, None]
        hull = ConvexHull([tuple(x) for x in p * rng.uniform(0.5, 1.0, 3)])
        if len(hull.vertices) == n:
            return hull


def _median(fn: Callable[[], Any], repeat: int) -> float:
    fn()  # compile / warm
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _row(rng: np.random.Generator, vertices: int, n: int, repeat: int, kernels_only: bool) -> str:
    """One table row: hulls of ``vertices`` vertices, ``n`` pairs."""
    pool = [_hull(rng, vertices) for _ in range(24)]
    store = BodyStore(3)
    slots = store.allocate(2 * n)
    store.set_shapes(slots, [pool[i] for i in rng.integers(0, len(pool), 2 * n)])
    q = rng.normal(size=(2 * n, 4))
    store.set_poses(slots, rng.uniform(-0.6, 0.6, (2 * n, 3)), quaternion=q / np.linalg.norm(q, axis=1)[:, None])
    a, b = slots[:n], slots[n:]
    res = contact_pairs(store, a, b, backend="numpy")
    hit = int(res.hit.sum())
    t_numpy = _median(lambda: contact_pairs(store, a, b, backend="numpy"), repeat) / hit
    t_comp = _median(lambda: contact_pairs(store, a, b, backend="compiled"), repeat) / hit
    row = f"{vertices:>8} {hit:>4}/{n:<3} {t_numpy * 1e6:>8.1f}us {t_comp * 1e6:>8.1f}us"
    if not kernels_only:
        from collideworld.geometry.compiled import contact_hull as ck
        from collideworld.geometry.compiled.kernel_support import contact_outputs, touch_rule
        from collideworld.narrowphase import manifold_pairs

        arrays = tuple(np.ascontiguousarray(x) for x in store.hull_arrays(a) + store.hull_arrays(b))
        out = contact_outputs(n, 3)
        t_epa = _median(lambda: ck._hull_rows(*arrays, touch_rule(), True, *out), repeat) / hit
        t_sat = _median(lambda: ck._hull_rows(*arrays, touch_rule(), False, *out), repeat) / hit
        ha, hb = a[res.hit], b[res.hit]
        t_points = _median(lambda: manifold_pairs(store, ha, hb, res.normal[res.hit], res.depth[res.hit]),
                           repeat) / hit
        t_cpoints = _median(lambda: manifold_pairs(store, ha, hb, res.normal[res.hit], res.depth[res.hit],
                                                   backend="compiled"), repeat) / hit
        row += f" {t_epa * 1e6:>7.1f}us {t_sat * 1e6:>7.1f}us {t_points * 1e6:>7.1f}us {t_cpoints * 1e6:>7.1f}us"
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kernels-only", action="store_true", help="skip the kernel-level and manifold rows "
                        "(for collideworld versions without them)")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    n = args.pairs
    print(f"{'vertices':>8} {'overlap':>8} {'numpy':>10} {'compiled':>10} {'EPA':>9} {'SAT':>9} {'points':>9} "
          f"{'c.points':>9}"
          "   (per overlapping pair; numpy and compiled: contact_pairs; EPA, SAT: compiled kernel alone; "
          "points, c.points: manifold_pairs, numpy and compiled)")
    for vertices in (8, 16, 32, 64):
        print(_row(rng, vertices, n, args.repeat, args.kernels_only), flush=True)


if __name__ == "__main__":
    main()
