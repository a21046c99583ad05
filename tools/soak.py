#!/usr/bin/env python
"""Long soak of the World (the engine of tests/test_soak.py), printing memory figures.

Random adds (one at a time and batched), moves, removes, id reuse and
half-planes/planes, one step per frame; ``validate()`` every ``--check-every``
frames; a brute-force twin compared byte for byte every ``--compare-every``
frames; memory sampled after the warm-up. At the end every body is removed
and the world must be empty and usable again.

Usage (from the repository root)::

    python tools/soak.py --frames 100000                          # ~10 min per dimension
    python tools/soak.py --frames 20000 --memory tracemalloc      # precise, ~5x slower
    python tools/soak.py --frames 20000 --dim 3 --bodies 300 --no-twin

``--memory cheap`` (default) reports Python's allocated blocks and the RSS,
at no cost; ``--memory tracemalloc`` traces every allocation after the
warm-up. The run fails (exit 1) if memory grows past ``--max-blocks`` /
``--max-rss-mib`` (cheap) or ``--max-traced-kib`` (tracemalloc).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.test_soak import Soak, rss_max_kib  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=100_000, help="frames per dimension (default 100000)")
    parser.add_argument("--dim", choices=["2", "3", "both"], default="both")
    parser.add_argument("--bodies", type=int, default=150, help="population the soak hovers around (default 150)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--broadphase", default=None, help="broadphase of the soaked world (default: World's)")
    parser.add_argument("--memory", choices=["cheap", "tracemalloc", "none"], default="cheap")
    parser.add_argument("--warmup", type=int, default=None,
                        help="frames before memory is measured (default: a quarter of the frames, at most 2000)")
    parser.add_argument("--settle", type=int, default=200,
                        help="frames between the warm-up and the memory baseline (default 200)")
    parser.add_argument("--check-every", type=int, default=1000)
    parser.add_argument("--compare-every", type=int, default=500)
    parser.add_argument("--no-twin", action="store_true", help="no brute-force twin")
    parser.add_argument("--max-blocks", type=int, default=20_000, help="cheap: allowed growth of allocated blocks")
    parser.add_argument("--max-rss-mib", type=float, default=64.0, help="cheap: allowed growth of the RSS")
    parser.add_argument("--max-traced-kib", type=float, default=8192.0, help="tracemalloc: allowed growth")
    args = parser.parse_args(argv)

    dims = [2, 3] if args.dim == "both" else [int(args.dim)]
    memory = None if args.memory == "none" else args.memory
    failed = False
    for dim in dims:
        soak = Soak(dim, seed=args.seed + dim, bodies=args.bodies, broadphase=args.broadphase,
                    twin=not args.no_twin)
        warmup = args.warmup if args.warmup is not None else min(args.frames // 4, 2000)

        def progress(stats, dim=dim, soak=soak):
            if stats.frames % 10_000 == 0:
                print(f"  {dim}D frame {stats.frames}: {len(soak.world)} bodies, "
                      f"RSS peak {rss_max_kib() / 1024:.1f} MiB", flush=True)

        stats = soak.run(args.frames, check_every=args.check_every, compare_every=args.compare_every,
                         warmup=warmup, settle=min(args.settle, max(args.frames - warmup - 1, 1)),
                         memory=memory, progress=progress)
        soak.empty()
        print(stats.summary())
        if stats.samples:
            if memory == "tracemalloc":
                print("  traced KiB by frame: " + ", ".join(f"{f}: {t / 1024:.0f}" for f, t, _, _ in stats.samples))
            print("  allocated blocks by frame: " + ", ".join(f"{f}: {b}" for f, _, b, _ in stats.samples))
            print("  RSS MiB by frame: " + ", ".join(f"{f}: {r / 2**20:.1f}" for f, _, _, r in stats.samples))
        print(f"  peak RSS of the process: {rss_max_kib() / 1024:.1f} MiB; world emptied and reused: OK")
        problems = []
        if memory == "tracemalloc" and stats.growth > args.max_traced_kib * 1024:
            problems.append(f"traced memory grew {stats.growth / 1024:.0f} KiB (limit {args.max_traced_kib:.0f})")
        if memory == "cheap" and stats.blocks_growth > args.max_blocks:
            problems.append(f"allocated blocks grew {stats.blocks_growth} (limit {args.max_blocks})")
        if memory == "cheap" and stats.rss_growth > args.max_rss_mib * 2**20:
            problems.append(f"RSS grew {stats.rss_growth / 2**20:.1f} MiB (limit {args.max_rss_mib:.0f})")
        for p in problems:
            print(f"  FAIL: {p}")
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
