"""Queries side by side with pymunk, in one process, on the same seeded scenes.

Run from the repository root: ``python -m benchmarks.queries [--sizes 10000 100000] [--backend compiled]``.

The scene is an RTS town: ``n`` static rotated buildings (boxes of half sizes
0.3 .. 1.2) scattered over a square of side ``3 sqrt(n)``, so the density is
the same at every ``n``. pymunk holds the same boxes as static ``Poly`` shapes
(its static index is a bounding-box tree).

Single queries (per call: the median over 7 rounds of 200 calls at seeded
spots, rounds of the two libraries interleaved; the winner is the smaller
time):

* ``query_shape`` (a 1x1 box at an angle) vs ``Space.shape_query``;
* ``query_point`` vs ``Space.point_query(p, 0, filter)``;
* ``query_aabb`` (a 1x1 box) vs ``Space.bb_query`` (which answers from the
  shapes' bounding boxes only: less work than the exact test, and more
  bodies), and vs ``Space.shape_query`` of the same box (the same answers);
* ``raycast(max_distance=5)`` (every hit, nearest first) vs
  ``Space.segment_query`` (every hit, unordered), and
  ``raycast(max_distance=5, all_hits=False)`` vs ``Space.segment_query_first``
  (the nearest hit);

Batches of 10,000 (arrays in, arrays out) against a Python loop over pymunk's
single queries: ``query_points``, ``raycast_many`` (first hits, 5 units and
unbounded), ``query_shapes``. Then ``collide`` on one box pair and
``collide_many`` on 10,000 box pairs (an ego box at 50 steps against 200
obstacles). "move 1 body, then query_point": the cost of bringing the
queries' grid up to date after a change (and of the query).

Every answer is cross-checked against pymunk's (same hits) before timing.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time

import numpy as np
import pymunk

import collideworld
from collideworld import Box, World, collide, collide_many

#: CPU time of this process (both libraries run in it, measured alike)
CLOCK = time.process_time


def timed(fn, repeat: int, rounds: int = 7) -> float:
    """Median over ``rounds`` of the mean seconds per call over ``repeat`` calls (after one warm-up call).

    The median of rounds, not one mean: the machine is shared, and a round
    that another process interrupted should not decide the figure. Times
    are this process's CPU time (``CLOCK``): on a loaded machine the wall
    clock mostly measures the time spent waiting for a core.
    """
    fn()
    means = []
    for _ in range(rounds):
        t = CLOCK()
        for _ in range(repeat):
            fn()
        means.append((CLOCK() - t) / repeat)
    return statistics.median(means)


def timed_pair(a, b, repeat_a: int, repeat_b: int, rounds: int = 7) -> tuple[float, float]:
    """:func:`timed` for two functions, their rounds interleaved (both see the same load)."""
    a()
    b()
    ta, tb = [], []
    for _ in range(rounds):
        for fn, repeat, out in ((a, repeat_a, ta), (b, repeat_b, tb)):
            t = CLOCK()
            for _ in range(repeat):
                fn()
            out.append((CLOCK() - t) / repeat)
    return statistics.median(ta), statistics.median(tb)


def scene(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    side = 3.0 * math.sqrt(n)
    pos = rng.uniform(0, side, (n, 2))
    half = rng.uniform(0.3, 1.2, (n, 2))
    ang = rng.uniform(-math.pi, math.pi, n)
    return side, pos, half, ang


def build_collideworld(n, backend, pos, half, ang):
    w = World(2, backend=backend)
    for h in np.unique(half.round(1), axis=0):  # add_many takes one shape per call: group equal sizes
        sel = np.flatnonzero((half.round(1) == h).all(axis=1))
        w.add_many(Box(tuple(h)), pos[sel], angles=ang[sel], static=True, ids=sel.tolist())
    w.step()
    return w


def build_pymunk(pos, half, ang):
    space = pymunk.Space()
    body = space.static_body
    shapes = []
    for (x, y), (hx, hy), a in zip(pos.tolist(), half.round(1).tolist(), ang.tolist(), strict=True):
        c, s = math.cos(a), math.sin(a)
        verts = [(x + c * px - s * py, y + s * px + c * py) for px, py in ((-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy))]
        shapes.append(pymunk.Poly(body, verts, radius=0))
    space.add(*shapes)
    index = {id(s): k for k, s in enumerate(shapes)}
    return space, index


def pymunk_probe(space, x, y, a):
    probe_body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
    probe_body.position = (x, y)
    probe_body.angle = a
    probe = pymunk.Poly.create_box(probe_body, (1.0, 1.0))
    return probe_body, probe


def run(n: int, backend: str, rows: list[tuple[str, int, float, float]]) -> None:
    side, pos, half, ang = scene(n)
    t0 = time.perf_counter()
    w = build_collideworld(n, backend, pos, half, ang)
    t1 = time.perf_counter()
    space, index = build_pymunk(pos, half, ang)
    t2 = time.perf_counter()
    print(f"n={n}: built collideworld in {t1 - t0:.2f} s, pymunk in {t2 - t1:.2f} s")
    rng = np.random.default_rng(1)
    flt = pymunk.ShapeFilter()
    probe = Box((0.5, 0.5))
    spots = rng.uniform(0, side, (2000, 2))
    angles = rng.uniform(-math.pi, math.pi, 2000)
    dirs = rng.normal(size=(2000, 2))
    dirs /= np.linalg.norm(dirs, axis=1)[:, None]

    # cross-checks: the same bodies as pymunk's answers
    for k in range(200):
        x, y = spots[k]
        got = set(w.query_point((x, y)))
        want = {index[id(q.shape)] for q in space.point_query((x, y), 0.0, flt)}
        assert got == want, (k, got, want)
        got = set(w.query_aabb((x - 0.5, y - 0.5), (x + 0.5, y + 0.5)))
        bb = pymunk.BB(x - 0.5, y - 0.5, x + 0.5, y + 0.5)
        # pymunk's bb_query reports the shapes whose bounding boxes meet the box: more than the exact
        # answer, so the exact answer is checked against a box probe through shape_query
        assert got <= {index[id(q)] for q in space.bb_query(bb, flt)}
        aabb_probe = pymunk.Poly(None, [(x - 0.5, y - 0.5), (x + 0.5, y - 0.5), (x + 0.5, y + 0.5), (x - 0.5, y + 0.5)])
        aabb_body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
        aabb_probe.body = aabb_body
        assert got == {index[id(q.shape)] for q in space.shape_query(aabb_probe)}
        body, shp = pymunk_probe(space, x, y, angles[k])
        got = set(w.query_shape(probe, (x, y), angle=angles[k]))
        want = {index[id(q.shape)] for q in space.shape_query(shp)}
        assert got == want, (k, got, want)
        hits = w.raycast((x, y), dirs[k], 5.0)
        first = space.segment_query_first((x, y), tuple(spots[k] + 5.0 * dirs[k]), 0.0, flt)
        assert (first is None) == (not hits)
        if first is not None:
            assert abs(hits[0].distance - first.alpha * 5.0) < 1e-6
        assert [h.id for h in w.raycast((x, y), dirs[k], 5.0, all_hits=False)] == [h.id for h in hits[:1]]
        every = space.segment_query((x, y), tuple(spots[k] + 5.0 * dirs[k]), 0.0, flt)
        assert {h.id for h in hits} == {index[id(q.shape)] for q in every}

    it = iter(range(10**9))

    def nxt() -> int:
        return next(it) % 2000

    def cw_shape() -> None:
        k = nxt()
        w.query_shape(probe, spots[k], angle=angles[k])

    def pm_shape() -> None:
        k = nxt()
        _, shp = pymunk_probe(space, spots[k][0], spots[k][1], angles[k])
        space.shape_query(shp)

    def cw_point() -> None:
        w.query_point(spots[nxt()])

    def pm_point() -> None:
        x, y = spots[nxt()]
        space.point_query((x, y), 0.0, flt)

    def cw_aabb() -> None:
        x, y = spots[nxt()]
        w.query_aabb((x - 0.5, y - 0.5), (x + 0.5, y + 0.5))

    def pm_aabb() -> None:
        x, y = spots[nxt()]
        space.bb_query(pymunk.BB(x - 0.5, y - 0.5, x + 0.5, y + 0.5), flt)

    def pm_aabb_exact() -> None:
        x, y = spots[nxt()]
        _, shp = pymunk_probe(space, x, y, 0.0)
        space.shape_query(shp)

    def cw_ray() -> None:
        k = nxt()
        w.raycast(spots[k], dirs[k], 5.0)

    def pm_ray() -> None:
        k = nxt()
        x, y = spots[k]
        space.segment_query((x, y), (x + 5.0 * dirs[k, 0], y + 5.0 * dirs[k, 1]), 0.0, flt)

    def cw_ray_first() -> None:
        k = nxt()
        w.raycast(spots[k], dirs[k], 5.0, all_hits=False)

    def pm_ray_first() -> None:
        k = nxt()
        x, y = spots[k]
        space.segment_query_first((x, y), (x + 5.0 * dirs[k, 0], y + 5.0 * dirs[k, 1]), 0.0, flt)

    for name, a, b in (("query_shape vs shape_query", cw_shape, pm_shape),
                       ("query_point vs point_query", cw_point, pm_point),
                       ("query_aabb (1x1) vs bb_query (bounding boxes only)", cw_aabb, pm_aabb),
                       ("query_aabb (1x1) vs shape_query of the box (exact)", cw_aabb, pm_aabb_exact),
                       ("raycast(max 5) vs segment_query (every hit)", cw_ray, pm_ray),
                       ("raycast(max 5, all_hits=False) vs segment_query_first", cw_ray_first, pm_ray_first)):
        rows.append((name, n, *timed_pair(a, b, 200, 200)))

    m = 10_000
    pts = rng.uniform(0, side, (m, 2))
    d = rng.normal(size=(m, 2))
    d /= np.linalg.norm(d, axis=1)[:, None]
    ang_m = rng.uniform(-math.pi, math.pi, m)
    pts_l, d_l = pts.tolist(), d.tolist()

    def pm_points() -> None:
        for p in pts_l:
            space.point_query(p, 0.0, flt)

    def pm_rays(length: float) -> None:
        for (x, y), (dx, dy) in zip(pts_l, d_l, strict=True):
            space.segment_query_first((x, y), (x + length * dx, y + length * dy), 0.0, flt)

    def pm_shapes() -> None:
        body, shp = pymunk_probe(space, 0.0, 0.0, 0.0)
        for (x, y), a in zip(pts_l, ang_m.tolist(), strict=True):
            body.position = (x, y)
            body.angle = a
            space.reindex_shape(shp)
            space.shape_query(shp)

    # the batches give the same answers as the loops
    idx, ids = w.query_points(pts[:500])
    assert len(ids) == sum(len(space.point_query(p, 0.0, flt)) for p in pts_l[:500])
    first = w.raycast_many(pts[:500], d[:500], 5.0)
    assert len(first.ray) == sum(space.segment_query_first((x, y), (x + 5 * dx, y + 5 * dy), 0.0, flt) is not None
                                 for (x, y), (dx, dy) in zip(pts_l[:500], d_l[:500], strict=True))

    # a change, then a query: the grid is brought up to date first (patched, or rebuilt)
    movers = rng.integers(0, n, 64)

    def cw_move_then_point() -> None:
        k = nxt()
        w.move(int(movers[k % 64]), spots[k], angle=float(angles[k]))
        w.query_point(spots[(k + 1) % 2000])

    rows.append(("move 1 body, then query_point", n, timed(cw_move_then_point, 10, rounds=5), math.nan))

    far = 6.0 * side
    for name, a, b in (
            ("query_points x10k vs loop", lambda: w.query_points(pts), pm_points),
            ("raycast_many(max 5) x10k vs loop", lambda: w.raycast_many(pts, d, 5.0), lambda: pm_rays(5.0)),
            ("raycast_many(unbounded) x10k vs loop", lambda: w.raycast_many(pts, d), lambda: pm_rays(far)),
            ("query_shapes x10k vs loop", lambda: w.query_shapes(probe, pts, ang_m), pm_shapes)):
        rows.append((name, n, *timed_pair(a, b, 1, 1, rounds=5)))


def run_collide(backend: str, rows: list[tuple[str, int, float, float]]) -> None:
    a, b = Box((1.0, 0.5)), Box((0.7, 0.7))
    rows.append(("collide(box, box)", 1, timed(lambda: collide(a, ((0.0, 0.0), 0.3), b, ((1.2, 0.3), 0.1),
                                                               backend=backend), 500), math.nan))
    rng = np.random.default_rng(2)
    ego = np.c_[np.linspace(0, 50, 50), np.zeros(50)]
    obstacles = rng.uniform(0, 50, (200, 2)) * [1, 0.1]
    pa, pb = np.repeat(ego, 200, axis=0), np.tile(obstacles, (50, 1))
    rows.append(("collide_many x10k box pairs", 10_000,
                 timed(lambda: collide_many(a, (pa, 0.1), b, (pb, 0.2), backend=backend), 5), math.nan))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--backend", default="compiled", choices=["compiled", "numpy"])
    parser.add_argument("--threads", type=int, default=1,
                        help="collideworld.set_threads(n): a batch is split over n threads (times are then wall "
                             "clock, since CPU time would add the threads' times up)")
    args = parser.parse_args()
    if args.threads != 1:
        global CLOCK
        collideworld.set_threads(args.threads)
        CLOCK = time.perf_counter
    rows: list[tuple[str, int, float, float]] = []
    for n in args.sizes:
        run(n, args.backend, rows)
    run_collide(args.backend, rows)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    clock = "CPU time" if args.threads == 1 else f"wall clock, {args.threads} threads"
    print(f"\nbackend={args.backend}, pymunk {pymunk.version}, load average {load} "
          f"({clock}, medians of interleaved rounds)")
    print("| query | bodies | collideworld | pymunk | pymunk / collideworld |\n|---|---:|---:|---:|---:|")
    for name, n, ours, theirs in rows:
        def fmt(t: float) -> str:
            return "-" if math.isnan(t) else (f"{t * 1e6:.1f} µs" if t < 1e-3 else f"{t * 1e3:.2f} ms")
        ratio = "-" if math.isnan(theirs) else f"{theirs / ours:.2f}"
        print(f"| {name} | {n:,} | {fmt(ours)} | {fmt(theirs)} | {ratio} |")


if __name__ == "__main__":
    main()
