"""Cylinders and cones (issue 29): many posed pairs, collideworld's ``collide_many`` vs python-fcl and coal.

Each engine gets the same 4,000 pairs: a cylinder or cone against a sphere,
box, capsule, cylinder or cone, random poses around overlapping (about half
touch). collideworld answers all of them in one ``collide_many`` call (both
backends; the support-mapping GJK/EPA is compiled code either way); the peers
run their fastest per-pair form, ``collide`` with a reused request and a
fresh result per pair (their geometry objects made once, outside the timing).
The hit counts must agree away from touching: the pairs within 1e-6 of it
are left out of the comparison (oracles' GJK tolerances differ there).

The engines run interleaved (one of each per round, best CPU time of the rounds), since the
machine is shared; the World's step is timed on its own (4,000 separated pairs, every body moved).

Run: ``python benchmarks/cylinders.py``; it prints a dated section for ``benchmarks/results/cylinders.md``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from collideworld import Box, Capsule, Cone, Cylinder, Sphere, collide_many  # noqa: E402

N_PAIRS = 4000
REPEATS = 5


def scene(rng: np.random.Generator):
    def shape(kind: int):
        r, h = rng.uniform(0.3, 1.0, 2)
        return [Sphere(r), Box(tuple(rng.uniform(0.3, 1.0, 3))), Capsule((0, 0, -h), (0, 0, h), r),
                Cylinder(r, h), Cone(r, h)][kind]

    a = [shape(int(k)) for k in rng.integers(0, 5, N_PAIRS)]
    b = [shape(int(k)) for k in rng.integers(3, 5, N_PAIRS)]
    qa = rng.normal(size=(N_PAIRS, 4))
    qa /= np.linalg.norm(qa, axis=1)[:, None]
    qb = rng.normal(size=(N_PAIRS, 4))
    qb /= np.linalg.norm(qb, axis=1)[:, None]
    pa = rng.uniform(-1.0, 1.0, (N_PAIRS, 3))
    pb = rng.uniform(-1.0, 1.0, (N_PAIRS, 3))
    return a, pa, qa, b, pb, qb


def rotation(q: np.ndarray) -> np.ndarray:
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def peer_geometry(lib, s):
    if isinstance(s, Sphere):
        return lib.Sphere(s.radius)
    if isinstance(s, Box):
        return lib.Box(*(2 * np.array(s.half_extents)))
    if isinstance(s, Capsule):
        return lib.Capsule(s.radius, 2 * s.p1[2])
    return (lib.Cylinder if isinstance(s, Cylinder) else lib.Cone)(s.radius, 2 * s.half_height)


def cpu_per_round(fns: dict, rounds: int) -> dict:
    """Best CPU time of each engine over ``rounds`` rounds, the engines interleaved within each round
    (the machine is shared: a load change then hits every engine alike)."""
    best = {name: float("inf") for name in fns}
    out = {}
    for _ in range(rounds):
        for name, fn in fns.items():
            t0 = time.process_time()
            out[name] = fn()
            best[name] = min(best[name], time.process_time() - t0)
    return {name: (best[name], out[name]) for name in fns}


def main() -> None:
    import datetime

    import coal
    import fcl

    from collideworld import World, collide

    a, pa, qa, b, pb, qb = scene(np.random.default_rng(29))
    posed = [(x, (tuple(p), tuple(q)), y, (tuple(r), tuple(s)))
             for x, p, q, y, r, s in zip(a, pa, qa, b, pb, qb, strict=True)]
    # the World: pair k 10 units from pair k - 1 (only its own two bodies meet), every body moved a
    # hair before each timed step so that every pair is tested again
    world = World(dim=3, backend="compiled")
    offset = np.zeros((N_PAIRS, 3))
    offset[:, 0] = 10.0 * np.arange(N_PAIRS)
    ids = world.add_many(list(a) + list(b), np.vstack([pa + offset, pb + offset]),
                         quaternions=np.vstack([qa, qb]))
    base = np.vstack([pa + offset, pb + offset])
    jiggle = [0.0]

    def step():
        jiggle[0] = 1e-9 - jiggle[0]
        world.move_many(ids, positions=base + jiggle[0])
        t0 = time.process_time()
        c = world.step()
        step.cpu = time.process_time() - t0  # type: ignore[attr-defined]
        return c

    fa = [fcl.CollisionObject(peer_geometry(fcl, s), fcl.Transform(rotation(q), p))
          for s, p, q in zip(a, pa, qa, strict=True)]
    fb = [fcl.CollisionObject(peer_geometry(fcl, s), fcl.Transform(rotation(q), p))
          for s, p, q in zip(b, pb, qb, strict=True)]
    req = fcl.CollisionRequest()
    req_contact = fcl.CollisionRequest(enable_contact=True)  # with depth and normal (EPA), as collideworld answers
    ca = [(peer_geometry(coal, s), coal.Transform3s(rotation(q), p)) for s, p, q in zip(a, pa, qa, strict=True)]
    cb = [(peer_geometry(coal, s), coal.Transform3s(rotation(q), p)) for s, p, q in zip(b, pb, qb, strict=True)]
    creq = coal.CollisionRequest()
    engines = {
        "collideworld collide_many (compiled, one call)":
            lambda: collide_many(a, (pa, qa), b, (pb, qb), backend="compiled").hit,
        "collideworld collide() per pair (compiled)":
            lambda: np.array([collide(*p, backend="compiled") is not None for p in posed]),
        "python-fcl collide, per pair":
            lambda: np.array([fcl.collide(x, y, req, fcl.CollisionResult()) > 0 for x, y in zip(fa, fb, strict=True)]),
        "python-fcl collide with contact (depth, normal), per pair":
            lambda: np.array([fcl.collide(x, y, req_contact, fcl.CollisionResult()) > 0
                              for x, y in zip(fa, fb, strict=True)]),
        "coal collide, per pair":
            lambda: np.array([coal.collide(x[0], x[1], y[0], y[1], creq, coal.CollisionResult()) > 0
                              for x, y in zip(ca, cb, strict=True)]),
    }
    for fn in engines.values():
        fn()  # warm-up: numba compiles on first use
    step()
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else ["?"] * 3
    timed = cpu_per_round(engines, REPEATS)
    # the step, timed on its own CPU (moving the bodies is not the pairs' cost)
    steps = []
    for _ in range(REPEATS):
        c = step()
        steps.append(step.cpu)  # type: ignore[attr-defined]
    hit_step = np.zeros(N_PAIRS, dtype=bool)
    k = {i: n for n, i in enumerate(ids)}
    for x, y in zip(c.a.tolist(), c.b.tolist(), strict=True):
        hit_step[min(k[x], k[y])] = True
    timed["collideworld World.step (compiled), all pairs retested"] = (min(steps), hit_step)
    # away from touching (coal's signed distance beyond 1e-6): the pairs every engine must agree on
    dreq = coal.DistanceRequest()
    dist = np.array([coal.distance(x[0], x[1], y[0], y[1], dreq, coal.DistanceResult())
                     for x, y in zip(ca, cb, strict=True)])
    clear = np.abs(dist) > 1e-6
    truth = dist < 0
    fcl_t = timed["python-fcl collide, per pair"][0]
    lines = [f"## {datetime.date.today().isoformat()}: {N_PAIRS} posed pairs, CPU time, best of {REPEATS} "
             f"interleaved rounds (load average {' '.join(load)} on 2 cores)", "",
             "| engine | ms for all pairs | us / pair | x python-fcl | hits | agree with coal's distance "
             "(away from touching) |", "| --- | --- | --- | --- | --- | --- |"]
    for name, (t, hit) in timed.items():
        lines.append(f"| {name} | {1e3 * t:.2f} | {1e6 * t / N_PAIRS:.2f} | {t / fcl_t:.2f} | {int(hit.sum())} | "
                     f"{int((hit[clear] == truth[clear]).sum())} / {int(clear.sum())} |")
    text = "\n".join(lines) + "\n"
    print(text)


if __name__ == "__main__":
    main()
