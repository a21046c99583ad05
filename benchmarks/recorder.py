"""What recording costs: a game loop bare, then through a ``Recorder``.

The loop: N units (circles and boxes) on a field, every unit moving every
frame (``move_many`` with positions and angles), then ``step()``. The same
seeded loop runs bare on a ``World``, then recorded to ``.jsonl``, to
``.jsonl.gz`` and to the Arrow form ``.arrows``; each is run ``--repeat`` times, interleaved, and the best time
is kept, in CPU seconds of the process (the machine is shared). Prints seconds, the ratio recorded / bare
and the file sizes, then checks that each file replays with no mismatch.

    python benchmarks/recorder.py                 # 2,000 units, 300 frames
    python benchmarks/recorder.py --units 10000 --frames 100
    python benchmarks/recorder.py --frames 200    # the figures of benchmarks/results/recorder-arrow.md
    python benchmarks/recorder.py --frames 200 --accelerate 0.005   # velocities that change every frame
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from collideworld import Box, Circle, World  # noqa: E402
from collideworld.scenario import Recorder, replay, writer  # noqa: E402


def game_loop(target: World | Recorder, units: int, frames: int, seed: int = 0, turn: bool = True,
              accelerate: float = 0.0) -> None:
    """Add ``units`` bodies, then ``frames`` frames of moving all of them (positions, and
    angles if ``turn``) and stepping. With ``accelerate`` > 0 every velocity (and spin) takes a
    random kick of that standard deviation each frame, so no two frames move a body alike."""
    rng = np.random.default_rng(seed)
    side = np.sqrt(units) * 3.0
    positions = rng.uniform(0.0, side, size=(units, 2))
    angles = rng.uniform(-np.pi, np.pi, size=units)
    half = units // 2
    ids = target.add_many(Circle(0.5), positions[:half], ids=list(range(half)))
    ids += target.add_many(Box((0.6, 0.3)), positions[half:], angles=angles[half:], ids=list(range(half, units)))
    ids_array = np.asarray(ids)
    velocity = rng.normal(0.0, 0.05, size=(units, 2))
    spin = rng.normal(0.0, 0.02, size=units)
    target.step()
    kicks = np.random.default_rng(seed + 1)
    for _ in range(frames):
        if accelerate:
            velocity += kicks.normal(0.0, accelerate, size=velocity.shape)
            spin += kicks.normal(0.0, accelerate / 2.5, size=spin.shape)
        positions += velocity
        angles += spin
        target.move_many(ids_array, positions=positions, angles=angles if turn else None)
        target.step()


def timed(fn) -> float:  # type: ignore[no-untyped-def]
    """CPU seconds of this process: on a shared machine, wall time mostly measures the neighbours."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--units", type=int, default=2000)
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-turn", action="store_true", help="move positions only, not angles")
    parser.add_argument("--accelerate", type=float, default=0.0,
                        help="a random kick of this size to every velocity each frame (e.g. 0.005)")
    parser.add_argument("--no-orjson", action="store_true",
                        help="without numba, format numbers with the json module, not orjson")
    args = parser.parse_args()
    if args.no_orjson:
        writer._orjson = None
    folder = tempfile.mkdtemp()
    # .arrows: the Arrow form (an IPC stream of record batches; needs pyarrow, the arrow extra)
    paths = {suffix: os.path.join(folder, "loop" + suffix) for suffix in (".jsonl", ".jsonl.gz", ".arrows")}

    def bare() -> None:
        game_loop(World(dim=2), args.units, args.frames, turn=not args.no_turn, accelerate=args.accelerate)

    def recorded(path: str) -> None:
        with Recorder(World(dim=2), path) as rec:
            game_loop(rec, args.units, args.frames, turn=not args.no_turn, accelerate=args.accelerate)

    game_loop(World(dim=2), 50, 3)  # compile and import everything once, outside the timings
    best: dict[str, float] = {}
    for _ in range(args.repeat):
        for name, fn in [("bare", bare)] + [(s, lambda p=p: recorded(p)) for s, p in paths.items()]:
            best[name] = min(best.get(name, np.inf), timed(fn))
    if writer._compiled_assembly():
        formatter = "the compiled formatter (numba)"
    else:
        formatter = "json module" if writer._orjson is None else f"orjson {writer._orjson.__version__}"
    moves = "positions" if args.no_turn else "positions and angles"
    kicked = f", velocities kicked by {args.accelerate} a frame" if args.accelerate else ""
    print(f"{args.units} units, {args.frames} frames moving {moves}{kicked}, best of {args.repeat} (CPU seconds), "
          f"numbers by {formatter}; load average {os.getloadavg()[0]:.1f}")
    print(f"  bare loop            {best['bare']:7.2f} s")
    for suffix, path in paths.items():
        size = os.path.getsize(path)
        print(f"  recorded {suffix:<11} {best[suffix]:7.2f} s  x{best[suffix] / best['bare']:.2f}"
              f"  {size / 1e6:8.2f} MB  ({size / (args.units * args.frames):.1f} bytes per move)")
    for path in paths.values():
        report = replay(path)
        print(f"  replay {os.path.basename(path)}: {'ok' if report.ok else 'MISMATCH'}")


if __name__ == "__main__":
    main()
