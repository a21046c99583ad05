"""Every query in a world of circles, and in the same world with 10 % of the bodies of each other kind.

Run from the repository root:
``python -m benchmarks.kinds [--n 2000] [--rounds 5] [--cpu] [--out benchmarks/results/kinds.md]``.

The base world: ``n`` circles (2D) or spheres (3D) of radius 0.3 .. 0.8 over
a square (cube) at the density of the RTS scene (about one body per 9 square
units in 2D). Each other world replaces 10 % of them (every tenth body, same
place) by one other kind: 2D boxes, convex polygons, concave L polygons,
capsules, segments, compounds of 2-3 circles, rounded boxes and hexagons
(radius 0.1), 3-segment chains, plus one half-plane under the world; 3D
boxes, capsules, segments, 20-point hulls, compounds, cylinders, cones,
rounded boxes and rounded 20-point hulls (radius 0.1), plus one plane.
Triangle meshes and heightfields are not among them (static scenery of many
pieces, one body each, not 10 % of the moving bodies). Each query is timed
at seeded spots (the same in every world), the median of ``rounds`` rounds,
on the compiled backend:

query_point, query_points (1,000), query_aabb, query_shape (a rotated box),
query_shapes (1,000), raycast (every hit, 20 units), raycast first hit,
raycast_many (1,000 first hits, 20 units), query_nearest, query_within,
cast.

Each cell is reported as its time and its ratio to the circles-only world:
the worlds are timed interleaved (each round times one query in every world
back to back) and a ratio is the median over rounds of the ratios within a
round, so the drifting load of a shared machine cancels out of it.
Before timing, each cell's queries run once with
``collideworld.queries.numpy_path_counts`` reset: a query that ran on the
numpy path, whole (a key without ``:some``) or for some of its bodies
(``:some``), is a failure, named, and the run exits non-zero after writing
the table (issue 28: every cell compiled).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from collideworld import (
    Box,
    Capsule,
    Chain,
    Circle,
    Compound,
    Cone,
    ConvexHull,
    Cylinder,
    HalfPlane,
    Plane,
    Polygon,
    Segment,
    Sphere,
    World,
)
from collideworld.queries import numpy_path_counts

KINDS = {2: ["circles", "box", "polygon", "concave", "capsule", "segment", "compound", "half-plane", "rounded box",
             "rounded polygon", "chain"],
         3: ["spheres", "box", "capsule", "segment", "hull", "compound", "plane", "cylinder", "cone", "rounded box",
             "rounded hull"]}
QUERIES = ["query_point", "query_points", "query_aabb", "query_shape", "query_shapes", "raycast",
           "raycast first", "raycast_many", "query_nearest", "query_within", "cast"]


def _other(kind: str, dim: int, rng: np.random.Generator) -> Any:
    s = float(rng.uniform(0.3, 0.8))
    if kind == "cylinder":
        return Cylinder(s / 2, s / 2)
    if kind == "cone":
        return Cone(s / 2, s / 2)
    if kind == "rounded box":  # the core shrunk by the rounding radius: the same size as the plain boxes
        return Box(tuple(rng.uniform(0.3, 0.8, dim) - 0.1), radius=0.1)
    if kind == "rounded polygon":
        ang = np.sort(rng.uniform(0, 2 * np.pi, 6)) + np.arange(6) * 1e-3
        return Polygon(((s - 0.1) * np.c_[np.cos(ang), np.sin(ang)]).tolist(), radius=0.1)
    if kind == "chain":
        return Chain([(0.0, 0.0), (s, 0.0), (s, s), (2 * s, s)])
    if kind == "rounded hull":
        return ConvexHull(rng.normal(size=(20, 3)) * (s - 0.1) / 2, radius=0.1)
    if kind == "box":
        return Box(tuple(rng.uniform(0.3, 0.8, dim)))
    if kind == "polygon":
        ang = np.sort(rng.uniform(0, 2 * np.pi, 6)) + np.arange(6) * 1e-3
        return Polygon((s * np.c_[np.cos(ang), np.sin(ang)]).tolist())
    if kind == "concave":
        return Polygon([[0, 0], [2 * s, 0], [2 * s, s], [s, s], [s, 2 * s], [0, 2 * s]])
    if kind == "capsule":
        return Capsule((0.0,) * dim, (s,) + (0.0,) * (dim - 1), s / 2)
    if kind == "segment":
        return Segment((0.0,) * dim, (2 * s,) + (0.0,) * (dim - 1))
    if kind == "hull":
        return ConvexHull(rng.normal(size=(20, 3)) * s / 2)
    ball = Circle(s / 2) if dim == 2 else Sphere(s / 2)
    k = int(rng.integers(2, 4))
    return Compound([(ball, (i * s,) + (0.0,) * (dim - 1)) for i in range(k)])


def make_world(dim: int, kind: str, n: int, seed: int = 0) -> tuple[World, float]:
    rng = np.random.default_rng(seed)
    side = 3.0 * math.sqrt(n) if dim == 2 else 2.1 * n ** (1 / 3)
    pos = rng.uniform(0, side, (n, dim))
    radii = rng.uniform(0.3, 0.8, n)
    w = World(dim, backend="compiled")
    base = Circle if dim == 2 else Sphere
    shapes: list[Any] = [base(float(r)) for r in radii]
    if kind not in KINDS[dim][:1] + ["half-plane", "plane"]:
        krng = np.random.default_rng(seed + 1)
        for i in range(0, n, 10):
            shapes[i] = _other(kind, dim, krng)
    angles = rng.uniform(-np.pi, np.pi, n) if dim == 2 else None
    for i in range(n):
        if dim == 2:
            w.add(shapes[i], pos[i], angle=float(angles[i]))  # type: ignore[index]
        else:
            q = rng.normal(size=4)
            w.add(shapes[i], pos[i], quaternion=q / np.linalg.norm(q))
    if kind == "half-plane":
        w.add(HalfPlane((0.0, 1.0), -1.0))
    elif kind == "plane":
        w.add(Plane((0.0, 0.0, 1.0), -1.0))
    w.step()
    return w, side


def make_queries(w: World, dim: int, side: float, seed: int = 1) -> dict[str, Callable[[], Any]]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, side, dim)
    pts = rng.uniform(0, side, (1000, dim))
    o = rng.uniform(0, side, (1000, dim))
    d = rng.normal(size=(1000, dim))
    d /= np.linalg.norm(d, axis=1)[:, None]
    lo = p - 1.0
    hi = p + 1.0
    probe = Box((0.5,) * dim)
    if dim == 2:
        pose: Any = (tuple(p), 0.4)
        end: Any = (tuple(p + 5.0), 0.4)
        shape_q = lambda: w.query_shape(probe, p, angle=0.4)  # noqa: E731
        shapes_q = lambda: w.query_shapes(probe, pts, angles=np.full(len(pts), 0.4))  # noqa: E731
    else:
        quat = (math.cos(0.2), math.sin(0.2), 0.0, 0.0)
        pose = (tuple(p), quat)
        end = (tuple(p + 5.0), quat)
        shape_q = lambda: w.query_shape(probe, p, quaternion=quat)  # noqa: E731
        shapes_q = lambda: w.query_shapes(probe, pts, quaternions=np.tile(quat, (len(pts), 1)))  # noqa: E731
    ball = Circle(0.5) if dim == 2 else Sphere(0.5)
    return {
        "query_point": lambda: w.query_point(p),
        "query_points": lambda: w.query_points(pts),
        "query_aabb": lambda: w.query_aabb(lo, hi),
        "query_shape": shape_q,
        "query_shapes": shapes_q,
        "raycast": lambda: w.raycast(p, d[0], 20.0),
        "raycast first": lambda: w.raycast(p, d[0], 20.0, all_hits=False),
        "raycast_many": lambda: w.raycast_many(o, d, 20.0),
        "query_nearest": lambda: w.query_nearest(p, k=3),
        "query_within": lambda: w.query_within(ball, pose, 2.0),
        "cast": lambda: w.cast(ball, pose, end),
    }


#: the matrix's clock: wall time, or this process's CPU time (``--cpu``). On a machine shared by many
#: busy processes, wall time is mostly the scheduler's: a run of calls that starts on a fresh time slice
#: measured ~10x faster than the same calls in the next world, on random cells; CPU time does not see that.
_clock = time.perf_counter


def _reps(fn: Callable[[], Any], budget: float = 0.02) -> int:
    """How many calls of ``fn`` fit in ``budget`` seconds (after one warm call)."""
    fn()
    t = _clock()
    fn()
    once = max(_clock() - t, 1e-7)
    return max(1, min(2000, int(budget / once)))


def _time_reps(fn: Callable[[], Any], reps: int) -> float:
    t = _clock()
    for _ in range(reps):
        fn()
    return (_clock() - t) / reps


def time_call(fn: Callable[[], Any], rounds: int, budget: float = 0.02) -> float:
    """Seconds per call: the median over ``rounds`` rounds of as many calls as fit in ``budget``."""
    fn()
    t = time.perf_counter()
    fn()
    once = max(time.perf_counter() - t, 1e-7)
    reps = max(1, min(2000, int(budget / once)))
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(reps):
            fn()
        times.append((time.perf_counter() - t) / reps)
    return statistics.median(times)


def _fmt(t: float) -> str:
    return f"{t * 1e6:.1f} us" if t < 1e-3 else f"{t * 1e3:.2f} ms"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dims", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--out", default=None)
    ap.add_argument("--cpu", action="store_true", help="time by this process's CPU time, not wall time")
    args = ap.parse_args(argv)
    global _clock
    _clock = time.process_time if args.cpu else time.perf_counter
    failures: list[str] = []
    partial: list[str] = []
    clock = "CPU time" if args.cpu else "wall time"
    lines = [f"# Queries by shape kind ({args.n} bodies, compiled backend, median of {args.rounds} rounds, {clock})",
             "",
             "Each cell: time per call, and its ratio to the circles-only (spheres-only) world. "
             "`*`: some of the query's bodies were left to the numpy kernels. Bold: over 1.5x.", ""]
    over: list[str] = []
    for dim in args.dims:
        kinds = KINDS[dim]
        results: dict[str, dict[str, float]] = {}
        ratios: dict[str, dict[str, float]] = {}
        marks: dict[str, dict[str, str]] = {}
        queries: dict[str, dict[str, Callable[[], Any]]] = {}
        for kind in kinds:
            w, side = make_world(dim, kind, args.n)
            queries[kind] = make_queries(w, dim, side)
            marks[kind] = {}
            for name, fn in queries[kind].items():
                numpy_path_counts(reset=True)
                fn()
                counts = numpy_path_counts(reset=True)
                whole = sorted(k for k in counts if not k.endswith(":some"))
                some = sorted(k for k in counts if k.endswith(":some"))
                if whole:
                    failures.append(f"{dim}D {kind} / {name}: ran on numpy ({', '.join(whole)})")
                if some:
                    partial.append(f"{dim}D {kind} / {name}: {', '.join(some)}")
                    failures.append(f"{dim}D {kind} / {name}: left bodies to numpy ({', '.join(some)})")
                marks[kind][name] = ("!" if whole else "") + ("*" if some else "")
            print(f"{dim}D {kind}: built", file=sys.stderr, flush=True)
        # Timed interleaved: each round times every world's cell of one query back to back, and a
        # ratio is the median over rounds of (this world / the base world) in the same round, so that
        # the load of a shared machine, which drifts over minutes, cancels out of the ratios
        for name in QUERIES:
            reps = {kind: _reps(queries[kind][name]) for kind in kinds}
            per_round: dict[str, list[float]] = {kind: [] for kind in kinds}
            for _ in range(args.rounds):
                for kind in kinds:
                    per_round[kind].append(_time_reps(queries[kind][name], reps[kind]))
            for kind in kinds:
                results.setdefault(kind, {})[name] = statistics.median(per_round[kind])
                ratios.setdefault(kind, {})[name] = statistics.median(
                    [t / b for t, b in zip(per_round[kind], per_round[kinds[0]], strict=True)])
            print(f"{dim}D {name}: done", file=sys.stderr, flush=True)
        lines += [f"## {dim}D", "", "| query | " + " | ".join(kinds) + " |",
                  "| --- | " + " | ".join("---" for _ in kinds) + " |"]
        for name in QUERIES:
            base = results[kinds[0]][name]
            cells = [_fmt(base) + marks[kinds[0]][name]]
            for kind in kinds[1:]:
                t = results[kind][name]
                ratio = ratios[kind][name]
                cell = f"{_fmt(t)}{marks[kind][name]} ({ratio:.2f}x)"
                if ratio > 1.5:
                    cell = f"**{cell}**"
                    over.append(f"{dim}D {kind} / {name}: {ratio:.2f}x")
                cells.append(cell)
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["`!`: the query ran whole on the numpy path; `*`: some of its bodies (both fail the matrix).", ""]
    if over:
        lines += ["Cells over 1.5x:", ""] + [f"- {x}" for x in over] + [""]
    if partial:
        lines += ["Queries that left some bodies to the numpy kernels:", ""] + [f"- {x}" for x in partial] + [""]
    if failures:
        lines += ["FAILED: queries that ran on numpy with the compiled backend active:", ""] + \
                 [f"- {x}" for x in failures] + [""]
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    if failures:
        print(f"kinds: FAILED, {len(failures)} cells ran on numpy, first: {failures[0]} (see the table's list)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
