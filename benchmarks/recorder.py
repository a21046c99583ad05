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
    python benchmarks/recorder.py --frames 200 --only-arrows --stub  # bare, stub and .arrows only

``--stub`` adds a Recorder whose writer does nothing (standing in for the Arrow writer, so the
recorder takes its ``.arrows`` path): the recorder's own bookkeeping, the floor under the Arrow
form. ``--thread`` adds ``.arrows`` written by a thread of the writer
(``Recorder(..., background=True)``: each full batch built, compressed and written while the loop
goes on) beside the default synchronous writer (each batch built and written inside the step that
completes it); the two files are checked to be byte for byte the same. The CPU seconds count
every thread of the process.
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


def timed(fn) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """CPU seconds of this process (all its threads) and wall seconds: on a shared machine, wall
    time mostly measures the neighbours, so the ratios are taken in CPU seconds."""
    start, wall = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - start, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--units", type=int, default=2000)
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-turn", action="store_true", help="move positions only, not angles")
    parser.add_argument("--accelerate", type=float, default=0.0,
                        help="a random kick of this size to every velocity each frame (e.g. 0.005)")
    parser.add_argument("--stub", action="store_true", help="also time a Recorder whose writer does nothing")
    parser.add_argument("--only-arrows", action="store_true", help="record to .arrows only (no text forms)")
    parser.add_argument("--thread", action="store_true",
                        help="also record .arrows with the writer's background thread (background=True)")
    parser.add_argument("--no-orjson", action="store_true",
                        help="without numba, format numbers with the json module, not orjson")
    args = parser.parse_args()
    if args.no_orjson:
        writer._orjson = None
    folder = tempfile.mkdtemp()
    # .arrows: the Arrow form (an IPC stream of record batches; needs pyarrow, the arrow extra)
    suffixes = (".arrows",) if args.only_arrows else (".jsonl", ".jsonl.gz", ".arrows")
    paths = {suffix: os.path.join(folder, "loop" + suffix) for suffix in suffixes}
    if args.thread:
        paths["thread .arrows"] = os.path.join(folder, "thread.arrows")

    def bare() -> None:
        game_loop(World(dim=2), args.units, args.frames, turn=not args.no_turn, accelerate=args.accelerate)

    def recorded(path: str) -> None:
        with Recorder(World(dim=2), path, background=path.endswith("thread.arrows")) as rec:
            game_loop(rec, args.units, args.frames, turn=not args.no_turn, accelerate=args.accelerate)

    class NullWriter:
        """A writer that writes nothing: what is left is the recorder's own work. It stands in for
        the Arrow writer (the recorder takes the same path as for ``.arrows``: the adds as columns,
        the usual frame as one prepared batch of moves)."""
        frames_written = 0

        def prepare_frame(self, *a: object, **k: object) -> None:
            return None

        def write_prepared(self, *a: object, **k: object) -> None:
            return None

        def add_columns(self, *a: object, **k: object) -> None:
            return None

        def prepare_moves(self, *a: object, **k: object) -> None:
            return None

        def pose_slot(self, n: int, width: int) -> np.ndarray:
            return np.empty((n,) if width == 0 else (n, width))

        def write_moves(self, *a: object, **k: object) -> None:
            return None

        def close(self) -> None:
            return None

    def stub() -> None:
        rec = Recorder(World(dim=2), os.path.join(folder, "stub.arrows"))
        rec.writer.close()
        rec.writer = rec._arrow = NullWriter()  # type: ignore[assignment]
        game_loop(rec, args.units, args.frames, turn=not args.no_turn, accelerate=args.accelerate)

    game_loop(World(dim=2), 50, 3)  # compile and import everything once, outside the timings
    best: dict[str, float] = {}
    best_wall: dict[str, float] = {}
    loads = [os.getloadavg()[0]]
    for _ in range(args.repeat):  # interleaved rounds: a neighbour's burst slows every run of a round alike
        runs = [("bare", bare)] + ([("stub", stub)] if args.stub else [])
        for name, fn in runs + [(s, lambda p=p: recorded(p)) for s, p in paths.items()]:
            cpu, wall = timed(fn)
            best[name] = min(best.get(name, np.inf), cpu)
            best_wall[name] = min(best_wall.get(name, np.inf), wall)
        loads.append(os.getloadavg()[0])
    if writer._compiled_assembly():
        formatter = "the compiled formatter (numba)"
    else:
        formatter = "json module" if writer._orjson is None else f"orjson {writer._orjson.__version__}"
    moves = "positions" if args.no_turn else "positions and angles"
    kicked = f", velocities kicked by {args.accelerate} a frame" if args.accelerate else ""
    print(f"{args.units} units, {args.frames} frames moving {moves}{kicked}, best of {args.repeat} (CPU seconds), "
          f"numbers by {formatter}; load average {min(loads):.1f}-{max(loads):.1f}")
    print(f"  bare loop             {best['bare']:7.3f} s        (wall {best_wall['bare']:.3f} s)")
    if args.stub:
        print(f"  stub recorder         {best['stub']:7.3f} s  x{best['stub'] / best['bare']:.2f}"
              f"  (wall {best_wall['stub']:.3f} s x{best_wall['stub'] / best_wall['bare']:.2f})")
    for suffix, path in paths.items():
        size = os.path.getsize(path)
        print(f"  recorded {suffix:<12} {best[suffix]:7.3f} s  x{best[suffix] / best['bare']:.2f}"
              f"  (wall {best_wall[suffix]:.3f} s x{best_wall[suffix] / best_wall['bare']:.2f})"
              f"  {size / 1e6:8.2f} MB  ({size / (args.units * args.frames):.1f} bytes per move)")
    if args.thread:
        same = Path(paths[".arrows"]).read_bytes() == Path(paths["thread .arrows"]).read_bytes()
        print(f"  .arrows from the thread and from the synchronous writer: {'the same bytes' if same else 'DIFFER'}")
    for path in paths.values():
        report = replay(path)
        print(f"  replay {os.path.basename(path)}: {'ok' if report.ok else 'MISMATCH'}")


if __name__ == "__main__":
    main()
