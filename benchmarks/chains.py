"""Chains and rounded shapes against pymunk: a 2D level outline with many sliding bodies.

Usage::

    python benchmarks/chains.py [--bodies 1000] [--frames 30] [--segments 1200] [--seed 29]

The level is a static outline: a rolling ground polyline (``--segments``
segments over x in [0, 1000]) and 40 floating platforms, each a closed loop
of 4 segments. ``--bodies`` movers, half rounded boxes (half extents
0.4 x 0.3, radius 0.1) and half circles (radius 0.4), slide along the
ground with seeded jitter, each 0.3 below to 0.7 above its resting height
over the ground, so many touch the outline and some touch each other.
Every frame every mover gets a new pose.

* collideworld: one ``World`` (the backend asked for), each chain one
  ``Chain`` body (static), ``Box(..., radius=0.1)`` and ``Circle`` movers;
  a frame is ``move_many`` and ``step``; pairs from the step's contacts
  (per segment: reduced to body pairs).
* pymunk (the fastest way its API allows, as ``benchmarks/engines.py``):
  one static body per chain holding its segments (``pymunk.Segment``,
  radius 0), dynamic movers (``pymunk.Poly(..., radius=0.1)``, ``Circle``)
  whose position, angle and velocity (zero) are written from one numpy
  buffer with ``pymunk.batch.set_space_bodies``, ``space.step``, and the
  touching pairs read with ``pymunk.batch.get_space_arbiters``;
  ``collision_slop = 0`` and ``collision_persistence = 1`` so the arbiters
  are the touching pairs; ``iterations = 1`` (the solver is not
  collision detection). (Chipmunk never collides two bodies of infinite
  mass, so the movers are dynamic, their velocity reset every frame.)

Prints the median frame time of each, their ratio and how many body pairs
each found (the pair sets are compared: pymunk's touching rule at exactly 0
may differ on a pair at distance 0, which random poses never hit).
Timings are wall clock on a shared machine: see the load printed with them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's collideworld

import collideworld as cw  # noqa: E402

HALF, ROUND, RADIUS = (0.4, 0.3), 0.1, 0.4
LENGTH = 1000.0  # of the level along x: 1,000 movers, about one per unit of ground


def level(segments: int, rng: np.random.Generator) -> list[tuple[np.ndarray, bool]]:
    """(points, loop) of each chain: the ground, then the platforms."""
    x = np.linspace(0.0, LENGTH, segments + 1)
    y = 2.0 * np.sin(x / 17.0) + 0.8 * np.sin(x / 3.1) + rng.uniform(-0.05, 0.05, x.size)
    chains = [(np.column_stack([x, y]), False)]
    for cx in np.linspace(10.0, LENGTH - 10.0, 40):
        cy = float(np.interp(cx, x, y)) + 4.0
        chains.append((np.array([(cx - 2, cy), (cx + 2, cy), (cx + 2, cy + 0.4), (cx - 2, cy + 0.4)]), True))
    return chains


def ground_y(chains: list[tuple[np.ndarray, bool]], xs: np.ndarray) -> np.ndarray:
    g = chains[0][0]
    return np.interp(xs, g[:, 0], g[:, 1])


def poses(chains, n: int, frame: int, rng: np.random.Generator, base: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    xs = (base + 0.15 * frame + rng.uniform(-0.02, 0.02, n)) % (LENGTH - 2.0) + 1.0
    lift = np.where(np.arange(n) % 2 == 0, HALF[1] + ROUND, RADIUS) + rng.uniform(-0.3, 0.7, n)
    ang = np.where(np.arange(n) % 2 == 0, rng.uniform(-0.3, 0.3, n), 0.0)
    return np.column_stack([xs, ground_y(chains, xs) + lift]), ang


class Collideworld:
    def __init__(self, chains, n, pos, ang, backend):
        self.w = cw.World(dim=2, backend=backend)
        for k, (pts, loop) in enumerate(chains):
            self.w.add(cw.Chain(pts.tolist(), loop=loop), (0.0, 0.0), static=True, id=-1 - k)
        shapes = [cw.Box(HALF, radius=ROUND) if i % 2 == 0 else cw.Circle(RADIUS) for i in range(n)]
        self.ids = np.array(self.w.add_many(shapes, pos, ang, ids=list(range(n))))
        self.w.step()

    def frame(self, pos, ang):
        self.w.move_many(self.ids, pos, ang)
        c = self.w.step()
        return c.a, c.b

    @staticmethod
    def pair_set(raw) -> set[tuple[int, int]]:
        a, b = (np.asarray(x, dtype=np.int64) for x in raw)
        return set(zip(np.minimum(a, b).tolist(), np.maximum(a, b).tolist(), strict=True))


class Pymunk:
    def __init__(self, chains, n, pos, ang):
        import pymunk
        import pymunk.batch as pb

        self.pb = pb
        space = pymunk.Space()
        space.collision_slop = 0.0
        space.collision_persistence = 1
        space.iterations = 1  # the solver's work is not collision detection: as little of it as it allows
        self.label = {}
        for k, (pts, loop) in enumerate(chains):
            body = pymunk.Body(body_type=pymunk.Body.STATIC)
            ends = list(map(tuple, pts.tolist())) + ([tuple(pts[0].tolist())] if loop else [])
            space.add(body, *[pymunk.Segment(body, p, q, 0.0) for p, q in zip(ends, ends[1:], strict=False)])
            self.label[body.id] = -1 - k
        hx, hy = HALF
        movers = []
        for i in range(n):
            body = pymunk.Body(1.0, 1.0)
            body.position = tuple(pos[i].tolist())
            body.angle = float(ang[i])
            shape = (pymunk.Poly(body, [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)], radius=ROUND) if i % 2 == 0
                     else pymunk.Circle(body, RADIUS))
            space.add(body, shape)
            movers.append(body)
            self.label[body.id] = i
        self.space = space
        order = pb.Buffer()
        pb.get_space_bodies(space, pb.BodyFields.BODY_ID, order)
        got = np.frombuffer(bytes(order.int_buf()), dtype=np.uintp)  # every body (the static ones too)
        mover_of = {b.id: i for i, b in enumerate(movers)}
        at = [(row, mover_of[int(i)]) for row, i in enumerate(got.tolist()) if int(i) in mover_of]
        if len(at) != n:
            raise RuntimeError("pymunk's batch walk does not meet every mover")
        self.rows = np.array([r for r, _ in at])  # the buffer row of each mover, in mover order
        self.rows = self.rows[np.argsort([m for _, m in at])]
        # x, y, angle, vx, vy, angular velocity per body, in space order, read in place by pymunk
        # (the static chains' rows stay at their pose, the origin)
        self.buf = np.zeros((len(got), 6))
        self.set_buf = pb.Buffer()
        self.set_buf.set_float_buf(self.buf)
        self.get_buf = pb.Buffer()
        self.fields = (pb.BodyFields.POSITION | pb.BodyFields.ANGLE | pb.BodyFields.VELOCITY
                       | pb.BodyFields.ANGULAR_VELOCITY)
        self.keys = np.array(sorted(self.label), dtype=np.uintp)
        self.values = np.array([self.label[k] for k in sorted(self.label)])

    def frame(self, pos, ang):
        self.buf[self.rows, :2] = pos
        self.buf[self.rows, 2] = ang
        self.buf[:, 3:] = 0.0
        self.pb.set_space_bodies(self.space, self.fields, self.set_buf)
        self.space.step(1e-9)  # the positions stay (up to 1e-9 of any push): the pairs are those of the poses
        self.get_buf.clear()
        self.pb.get_space_arbiters(self.space, self.pb.ArbiterFields.BODY_A_ID | self.pb.ArbiterFields.BODY_B_ID,
                                   self.get_buf)
        return np.frombuffer(self.get_buf.int_buf(), dtype=np.uintp).copy()

    def pair_set(self, raw) -> set[tuple[int, int]]:
        ids = self.values[np.searchsorted(self.keys, raw.reshape(-1, 2))]
        return set(zip(ids.min(axis=1).tolist(), ids.max(axis=1).tolist(), strict=True))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bodies", type=int, default=1000)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--segments", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--backend", default="compiled")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    chains = level(args.segments, rng)
    n = args.bodies
    base = rng.uniform(0.0, LENGTH - 2.0, n)
    frames = [poses(chains, n, f, rng, base) for f in range(args.frames + 1)]
    engines = {"collideworld": Collideworld(chains, n, *frames[0], args.backend),
               "pymunk": Pymunk(chains, n, *frames[0])}
    times: dict[str, list[float]] = {k: [] for k in engines}
    found: dict[str, list[set[tuple[int, int]]]] = {k: [] for k in engines}
    for f in range(1, args.frames + 1):
        for name, eng in engines.items():  # interleaved: both see the same load
            t = time.perf_counter()
            raw = eng.frame(*frames[f])
            times[name].append(time.perf_counter() - t)
            found[name].append(eng.pair_set(raw))
    segs = sum(len(p) - (0 if loop else 1) for p, loop in chains)
    print(f"# chains: {len(chains)} chains ({segs} segments), {n} movers (rounded boxes and circles), "
          f"{args.frames} frames, collideworld backend {engines['collideworld'].w.backend}, "
          f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    med = {k: statistics.median(v) for k, v in times.items()}
    for name in engines:
        pairs = statistics.mean(len(s) for s in found[name])
        print(f"{name:13s} median frame {med[name] * 1e3:8.3f} ms   pairs/frame {pairs:8.1f}")
    same = sum(a == b for a, b in zip(found["collideworld"], found["pymunk"], strict=True))
    diff = sum(len(a ^ b) for a, b in zip(found["collideworld"], found["pymunk"], strict=True))
    print(f"ratio pymunk / collideworld: {med['pymunk'] / med['collideworld']:.2f}x "
          f"({'collideworld faster' if med['pymunk'] > med['collideworld'] else 'pymunk faster'})")
    print(f"pair sets equal in {same} of {args.frames} frames ({diff} pairs differ in all)")
    if diff:
        pairs_of = zip(found["collideworld"], found["pymunk"], strict=True)
        f = next(i for i, (a, b) in enumerate(pairs_of) if a != b)
        a, b = found["collideworld"][f], found["pymunk"][f]
        print(f"  first differing frame {f + 1}: only collideworld {sorted(a - b)[:5]}, "
              f"only pymunk {sorted(b - a)[:5]}")


if __name__ == "__main__":
    main()
