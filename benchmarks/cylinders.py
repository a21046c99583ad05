"""Cylinders and cones (issue 29): many posed pairs, collideworld's ``collide_many`` vs python-fcl and coal.

Each engine gets the same 4,000 pairs: a cylinder or cone against a sphere,
box, capsule, cylinder or cone, random poses around overlapping (about half
touch). collideworld answers all of them in one ``collide_many`` call (both
backends; the support-mapping GJK/EPA is compiled code either way); the peers
run their fastest per-pair form, ``collide`` with a reused request and a
fresh result per pair (their geometry objects made once, outside the timing).
The hit counts must agree away from touching: the pairs within 1e-6 of it
are left out of the comparison (oracles' GJK tolerances differ there).

Run: ``python benchmarks/cylinders.py`` (results: ``benchmarks/results/cylinders.md``).
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


def best_of(fn) -> tuple[float, np.ndarray]:
    times, out = [], None
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main() -> None:
    import coal
    import fcl

    a, pa, qa, b, pb, qb = scene(np.random.default_rng(29))
    rows = []
    for backend in ("numpy", "compiled"):
        collide_many(a, (pa, qa), b, (pb, qb), backend=backend)  # warm-up: numba compiles on first use
        t, res = best_of(lambda backend=backend: collide_many(a, (pa, qa), b, (pb, qb), backend=backend).hit)
        rows.append((f"collideworld collide_many ({backend})", t, res))
    fa = [fcl.CollisionObject(peer_geometry(fcl, s), fcl.Transform(rotation(q), p))
          for s, p, q in zip(a, pa, qa, strict=True)]
    fb = [fcl.CollisionObject(peer_geometry(fcl, s), fcl.Transform(rotation(q), p))
          for s, p, q in zip(b, pb, qb, strict=True)]
    req = fcl.CollisionRequest()
    t, res = best_of(lambda: np.array([fcl.collide(x, y, req, fcl.CollisionResult()) > 0
                                       for x, y in zip(fa, fb, strict=True)]))
    rows.append(("python-fcl collide, per pair", t, res))
    ca = [(peer_geometry(coal, s), coal.Transform3s(rotation(q), p)) for s, p, q in zip(a, pa, qa, strict=True)]
    cb = [(peer_geometry(coal, s), coal.Transform3s(rotation(q), p)) for s, p, q in zip(b, pb, qb, strict=True)]
    creq = coal.CollisionRequest()
    t, res = best_of(lambda: np.array([coal.collide(x[0], x[1], y[0], y[1], creq, coal.CollisionResult()) > 0
                                       for x, y in zip(ca, cb, strict=True)]))
    rows.append(("coal collide, per pair", t, res))
    # away from touching (coal's signed distance beyond 1e-6): the pairs every engine must agree on
    dreq = coal.DistanceRequest()
    dist = np.array([coal.distance(x[0], x[1], y[0], y[1], dreq, coal.DistanceResult())
                     for x, y in zip(ca, cb, strict=True)])
    clear = np.abs(dist) > 1e-6
    truth = dist < 0
    lines = [f"# Cylinders and cones: {N_PAIRS} posed pairs (cylinder or cone against sphere, box, capsule, "
             f"cylinder, cone), best of {REPEATS}", "",
             "| engine | ms for all pairs | us / pair | hits | agree with coal's distance (away from touching) |",
             "| --- | --- | --- | --- | --- |"]
    for name, t, hit in rows:
        lines.append(f"| {name} | {1e3 * t:.2f} | {1e6 * t / N_PAIRS:.2f} | {int(hit.sum())} | "
                     f"{int((hit[clear] == truth[clear]).sum())} / {int(clear.sum())} |")
    lines += ["", "Measured on a shared 2-core machine under load; ratios matter more than absolute times."]
    text = "\n".join(lines) + "\n"
    print(text)
    (Path(__file__).resolve().parent / "results" / "cylinders.md").write_text(text)


if __name__ == "__main__":
    main()
