"""Realistic frames part by part (issue 28): where collideworld's and the peer's frame time goes.

Run from the repository root: ``python benchmarks/realistic_parts.py [rts|rts-circles|pile] [--frames 30]``.

The frames of :mod:`realistic` (same scenes, same seeds), each part timed on
its own with the process's CPU clock, the two engines interleaved frame by
frame (the first engine alternating); medians per part, ratio = peer /
collideworld (> 1: collideworld faster).

RTS parts: ``move_many`` / ``pymunk.batch.set_space_bodies``; ``step()`` /
``space.step`` + ``get_space_arbiters``; ``query_shape`` / ``shape_query``;
``query_point`` / ``point_query``; 10 ``raycast`` / ``segment_query_first``;
``raycast_many`` of 500 / 500 ``segment_query_first``; ``query_aabb`` /
``bb_query``; ``data()`` / a dict look-up per selected shape.
Pile parts: ``move_many`` / ``resetBasePositionAndOrientation`` per body;
``step()`` with contact points / ``performCollisionDetection`` +
``getContactPoints``.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import realistic as R  # noqa: E402

CLOCK = time.process_time
RTS_PARTS = ["move_many", "step", "query_shape", "query_point", "raycast x10", "raycast_many", "query_aabb",
             "data", "total"]


def _cw_rts(cw: Any, f: Any, q: dict[str, Any]) -> list[float]:
    w = cw.w
    t = [CLOCK()]
    w.move_many(cw.ids, f[0], f[1])
    t.append(CLOCK())
    w.step()
    t.append(CLOCK())
    w.query_shape(cw.ghost, q["ghost"][0], angle=q["ghost"][1])
    t.append(CLOCK())
    w.query_point(q["point"])
    t.append(CLOCK())
    for o, d in zip(q["ray_o"], q["ray_d"], strict=True):
        w.raycast(o, d, R.RAY_LENGTH, all_hits=False)
    t.append(CLOCK())
    w.raycast_many(q["rays_o"], q["rays_d"], R.RAY_LENGTH)
    t.append(CLOCK())
    sel = w.query_aabb(*q["sel"])
    t.append(CLOCK())
    [w.data(i) for i in sel]
    t.append(CLOCK())
    return [b - a for a, b in zip(t, t[1:], strict=False)] + [t[-1] - t[0]]


def _pm_rts(pm: Any, f: Any, q: dict[str, Any]) -> list[float]:
    pb, space, flt = pm.pb, pm.space, pm._filter
    length = R.RAY_LENGTH
    t = [CLOCK()]
    pm._pose[pm._rows, :2] = f[0]
    pm._pose[pm._rows, 2] = f[1]
    pb.set_space_bodies(space, pm._fields_set, pm._set)
    t.append(CLOCK())
    space.step(1 / 60)
    pm._get.clear()
    pb.get_space_arbiters(space, pm._fields_get, pm._get)
    t.append(CLOCK())
    pm._ghost_body.position = tuple(q["ghost"][0])
    pm._ghost_body.angle = q["ghost"][1]
    pm._ghost.cache_bb()
    space.shape_query(pm._ghost)
    t.append(CLOCK())
    space.point_query(tuple(q["point"]), 0.0, flt)
    t.append(CLOCK())
    for o, d in zip(q["ray_o"].tolist(), q["ray_d"].tolist(), strict=True):
        space.segment_query_first(o, (o[0] + length * d[0], o[1] + length * d[1]), 0.0, flt)
    t.append(CLOCK())
    for o, d in zip(q["rays_o"].tolist(), q["rays_d"].tolist(), strict=True):
        space.segment_query_first(o, (o[0] + length * d[0], o[1] + length * d[1]), 0.0, flt)
    t.append(CLOCK())
    lo, hi = q["sel"]
    sel = space.bb_query(pm.pymunk.BB(lo[0], lo[1], hi[0], hi[1]), flt)
    t.append(CLOCK())
    [pm.data[s] for s in sel]
    t.append(CLOCK())
    return [b - a for a, b in zip(t, t[1:], strict=False)] + [t[-1] - t[0]]


def _cw_pile(cw: Any, f: Any) -> list[float]:
    t0 = CLOCK()
    cw.w.move_many(cw.ids, f[0], quaternions=f[1])
    t1 = CLOCK()
    len(cw.w.step())
    t2 = CLOCK()
    return [t1 - t0, t2 - t1, t2 - t0]


def _bullet_pile(bp: Any, f: Any) -> list[float]:
    p, cid = bp.p, bp.cid
    t0 = CLOCK()
    for b, x, q in zip(bp.bodies, f[0].tolist(), f[1][:, [1, 2, 3, 0]].tolist(), strict=True):
        p.resetBasePositionAndOrientation(b, x, q, physicsClientId=cid)
    t1 = CLOCK()
    p.performCollisionDetection(physicsClientId=cid)
    len(p.getContactPoints(physicsClientId=cid))
    t2 = CLOCK()
    return [t1 - t0, t2 - t1, t2 - t0]


def run(which: str, frames: int, warmup: int) -> list[str]:
    if which == "pile":
        sc: Any = R.make_pile(frames + warmup)
        engines: list[Any] = [R.CwPile(sc), R.BulletPile(sc)]
        calls = [_cw_pile, _bullet_pile]
        parts = ["move_many", "step with contact points", "total"]
        args = [(f,) for f in sc.frames]
    else:
        sc = R.make_rts(frames + warmup, circles_only=which == "rts-circles")
        engines = [R.CwRts(sc), R.PymunkRts(sc)]
        calls = [_cw_rts, _pm_rts]
        parts = RTS_PARTS
        args = list(zip(sc.frames, sc.queries, strict=True))
    got: list[list[list[float]]] = [[], []]
    for k, a in enumerate(args):
        gc.collect()
        for e in ((0, 1) if k % 2 == 0 else (1, 0)):
            times = calls[e](engines[e], *a)
            if k >= warmup:
                got[e].append(times)
    peer = engines[1].name
    lines = [f"{which}: {frames} frames after {warmup}, load average {', '.join(f'{x:.1f}' for x in os.getloadavg())}"
             " (CPU ms, medians)", "", f"| part | collideworld | {peer} | ratio |", "|---|---:|---:|---:|"]
    for i, name in enumerate(parts):
        a = statistics.median(t[i] for t in got[0]) * 1e3
        b = statistics.median(t[i] for t in got[1]) * 1e3
        lines.append(f"| {name} | {a:.3f} | {b:.3f} | {b / a if a else float('inf'):.2f} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("which", nargs="?", choices=["rts", "rts-circles", "pile"], default="rts")
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    args = ap.parse_args()
    print("\n".join(run(args.which, args.frames, args.warmup)))


if __name__ == "__main__":
    main()
