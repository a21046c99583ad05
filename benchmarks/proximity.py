"""Clearance queries against their peers: distance, time of impact, the driving check (issue 13).

Usage::

    python benchmarks/proximity.py [--pairs 2000] [--repeat 30] [--seed 0]

Same seeded pairs for every engine, in one process:

- 2D ``distance`` (boxes and convex polygons, apart) against shapely's
  ``distance`` (one pair per call, and its vectorised array form);
- 3D ``distance`` (boxes and spheres, apart) against python-fcl's ``distance``;
- 3D ``time_of_impact`` (translations) against python-fcl's ``continuousCollide``;
- the driving check: one box along 50 poses against 200 box obstacles
  (``check_trajectory``, discrete and continuous).

Each peer's answer is checked against collideworld's on every pair (and the
run fails on a disagreement beyond the peer's own tolerance). Times are
medians per call, in microseconds; ratios are peer time / collideworld time
(> 1: collideworld faster).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import fcl
import numpy as np
import shapely
from scipy.spatial.transform import Rotation

import collideworld as cw
from collideworld.geometry import gjk


def _per_call(fn: Callable[[], Any], n_calls: int, repeat: int) -> float:
    """Median over ``repeat`` runs of the time per call of ``fn`` (which makes ``n_calls`` calls), in µs."""
    fn()  # warm-up (and compile)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) / n_calls * 1e6


def _quat(r: Rotation) -> np.ndarray:
    x, y, z, w = r.as_quat()
    return np.array([w, x, y, z])


def bench_distance_2d(n: int, repeat: int, rng: np.random.Generator) -> dict[str, float]:
    shapes, poses, geoms = [], [], []
    while len(shapes) < 2 * n:
        if rng.random() < 0.5:
            s = cw.Box(tuple(rng.uniform(0.2, 1.5, 2)))
            local = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * s.half_extents
        else:
            ang = np.sort(rng.uniform(0, 2 * np.pi, 6))
            local = np.c_[np.cos(ang), np.sin(ang)] * rng.uniform(0.5, 1.5)
            s = cw.Polygon([tuple(v) for v in local])
            local = np.asarray(s.vertices)
        pos, a = rng.uniform(-10, 10, 2), float(rng.uniform(-np.pi, np.pi))
        c, si = np.cos(a), np.sin(a)
        shapes.append(s)
        poses.append((pos, a))
        geoms.append(shapely.Polygon(local @ np.array([[c, si], [-si, c]]) + pos))
    pairs = [(i, i + 1) for i in range(0, 2 * n, 2) if not geoms[i].intersects(geoms[i + 1])]
    ga = np.array([geoms[i] for i, _ in pairs])
    gb = np.array([geoms[j] for _, j in pairs])
    ours = [cw.distance(shapes[i], poses[i], shapes[j], poses[j]).distance for i, j in pairs]
    np.testing.assert_allclose(ours, shapely.distance(ga, gb), rtol=1e-9, atol=1e-12)
    m = len(pairs)
    return {
        "pairs": m,
        "collideworld distance()": _per_call(
            lambda: [cw.distance(shapes[i], poses[i], shapes[j], poses[j]) for i, j in pairs], m, repeat),
        "shapely a.distance(b)": _per_call(lambda: [geoms[i].distance(geoms[j]) for i, j in pairs], m, repeat),
        "shapely.distance(arrays)": _per_call(lambda: shapely.distance(ga, gb), m, repeat),
    }


def _fcl_object(shape: Any, pose: tuple[np.ndarray, np.ndarray]) -> Any:
    geom = fcl.Sphere(shape.radius) if isinstance(shape, cw.Sphere) else fcl.Box(*(2 * np.asarray(shape.half_extents)))
    rot = Rotation.from_quat([*pose[1][1:], pose[1][0]]).as_matrix()
    return fcl.CollisionObject(geom, fcl.Transform(rot, np.asarray(pose[0], float)))


def _random_3d(rng: np.random.Generator) -> tuple[Any, tuple[np.ndarray, np.ndarray]]:
    s = cw.Sphere(float(rng.uniform(0.2, 1))) if rng.random() < 0.3 else cw.Box(tuple(rng.uniform(0.2, 1, 3)))
    return s, (rng.uniform(-5, 5, 3), _quat(Rotation.random(random_state=rng)))


def bench_distance_3d(n: int, repeat: int, rng: np.random.Generator) -> dict[str, float]:
    items = []
    while len(items) < n:
        (sa, pa), (sb, pb) = _random_3d(rng), _random_3d(rng)
        if cw.collide(sa, pa, sb, pb) is None:
            items.append((sa, pa, sb, pb, _fcl_object(sa, pa), _fcl_object(sb, pb)))
    req = fcl.DistanceRequest(enable_nearest_points=True)

    def run_fcl() -> list[float]:
        return [fcl.distance(oa, ob, req, fcl.DistanceResult()) for *_, oa, ob in items]

    np.testing.assert_allclose([cw.distance(*it[:4]).distance for it in items], run_fcl(), rtol=1e-6, atol=1e-9)
    return {
        "pairs": n,
        "collideworld distance()": _per_call(lambda: [cw.distance(*it[:4]) for it in items], n, repeat),
        "fcl.distance (nearest points)": _per_call(run_fcl, n, repeat),
    }


def bench_toi_3d(n: int, repeat: int, rng: np.random.Generator) -> dict[str, float]:
    items = []
    while len(items) < n:
        (sa, a0), (sb, b0) = _random_3d(rng), _random_3d(rng)
        if cw.collide(sa, a0, sb, b0) is not None:
            continue
        a1 = (-a0[0] + rng.uniform(-1, 1, 3), a0[1])
        rot = Rotation.from_quat([*a0[1][1:], a0[1][0]]).as_matrix()
        ob = _fcl_object(sb, b0)
        items.append((sa, a0, a1, sb, b0, _fcl_object(sa, a0), fcl.Transform(rot, a1[0]), ob,
                      fcl.Transform(ob.getRotation(), ob.getTranslation())))
    req = fcl.ContinuousCollisionRequest()

    def run_fcl() -> list[float]:
        out = []
        for *_, oa, ta, ob, tb in items:
            res = fcl.ContinuousCollisionResult()
            fcl.continuousCollide(oa, ta, ob, tb, req, res)
            out.append(res.time_of_contact if res.is_collide else np.inf)
        return out

    def run_ours() -> list[float]:
        out = []
        for sa, a0, a1, sb, b0, *_ in items:
            r = cw.time_of_impact(sa, a0, a1, sb, b0, b0)
            out.append(np.inf if r is None else r.t)
        return out

    ours, theirs = np.array(run_ours()), np.array(run_fcl())
    both = np.isfinite(ours) & np.isfinite(theirs)
    np.testing.assert_allclose(ours[both], theirs[both], atol=1e-4)  # fcl stops within ~1e-4
    # where the hit decisions differ, the deepest overlap over 2001 sampled times (distance(),
    # i.e. collide()'s depth) says who is right
    differ = np.flatnonzero(np.isfinite(ours) != np.isfinite(theirs))
    ours_right = 0
    for k in differ:
        sa, a0, a1, sb, b0, *_ = items[k]
        deepest = min(cw.distance(sa, (a0[0] + t * (a1[0] - a0[0]), a0[1]), sb, b0).distance
                      for t in np.linspace(0, 1, 2001))
        ours_right += (deepest <= 0) == bool(np.isfinite(ours[k]))
    return {
        "pairs": n,
        "hits": int(np.isfinite(ours).sum()),
        "hit decisions differing from fcl": len(differ),
        "  of which sampling confirms collideworld": ours_right,
        "collideworld time_of_impact()": _per_call(run_ours, n, repeat),
        "fcl.continuousCollide": _per_call(run_fcl, n, repeat),
    }


def bench_driving(repeat: int, rng: np.random.Generator, steps: int = 50, m: int = 200) -> dict[str, float]:
    car = cw.Box((2.2, 0.9))
    poses = np.zeros((steps, 3))
    poses[:, 0] = np.linspace(0, 100, steps)
    poses[:, 1] = 2 * np.sin(np.linspace(0, 3, steps))
    poses[:, 2] = np.gradient(poses[:, 1], poses[:, 0])
    obstacles = [cw.Box(tuple(rng.uniform(0.5, 2.5, 2))) for _ in range(m)]
    obs = np.zeros((steps, m, 3))
    obs[:, :, 0] = rng.uniform(0, 100, m)
    obs[:, :, 1] = rng.choice([-1, 1], m) * rng.uniform(6, 30, m)  # parked off the road
    obs[:, :, 2] = rng.uniform(-np.pi, np.pi, m)
    obs[:, :, 0] += np.linspace(0, 5, steps)[:, None] * rng.uniform(-1, 1, m)  # slow traffic
    out: dict[str, float] = {"steps": steps, "obstacles": m}
    for continuous in (False, True):
        r = cw.check_trajectory(car, poses, obstacles, obs, continuous=continuous)
        out[f"check_trajectory(continuous={continuous}) [ms]"] = _per_call(
            lambda c=continuous: cw.check_trajectory(car, poses, obstacles, obs, continuous=c), 1, repeat) / 1000
        out[f"  -> first touch step (continuous={continuous})"] = r.step
    out["min clearance"] = float(r.clearance.min())
    # the same road with one obstacle stopped in the lane: the continuous check now runs time of impact
    obs[:, 0, :] = (70.0, poses[np.searchsorted(poses[:, 0], 70.0), 1], 0.0)
    for continuous in (False, True):
        r = cw.check_trajectory(car, poses, obstacles, obs, continuous=continuous)
        out[f"with a car stopped in the lane, continuous={continuous} [ms]"] = _per_call(
            lambda c=continuous: cw.check_trajectory(car, poses, obstacles, obs, continuous=c), 1, repeat) / 1000
        out[f"  -> first touch (step, t) (continuous={continuous})"] = f"({r.step}, {r.t:.4f})"
    # the same question with one distance() call per (step, obstacle), for scale
    t0 = time.perf_counter()
    for k in range(steps):
        for j in range(m):
            cw.distance(car, (poses[k, :2], poses[k, 2]), obstacles[j], (obs[k, j, :2], obs[k, j, 2]))
    out["per-pair distance() loop, same work [ms]"] = (time.perf_counter() - t0) * 1e3
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    print(f"compiled kernels: {gjk.COMPILED}")
    sections = [
        ("2D distance, apart pairs [µs per pair]", lambda: bench_distance_2d(args.pairs, args.repeat, rng)),
        ("3D distance, apart pairs [µs per pair]", lambda: bench_distance_3d(args.pairs, args.repeat, rng)),
        ("3D time of impact, translations [µs per pair]",
         lambda: bench_toi_3d(args.pairs // 2, max(3, args.repeat // 3), rng)),
        ("driving check: 50 steps x 200 boxes", lambda: bench_driving(max(args.repeat, 50), rng)),
    ]
    for title, run in sections:
        res = run()
        print(f"\n## {title}")
        base = next((v for k, v in res.items() if k.startswith("collideworld")), None)
        for k, v in res.items():
            ratio = f"  (x{v / base:.2f} of collideworld)" if base and "µs" not in k and not k.startswith(
                "collideworld") and isinstance(v, float) and k[0] != " " and "[" not in k else ""
            print(f"{k:50s} {v:12.3f}{ratio}" if isinstance(v, float) else f"{k:50s} {v:>12}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
