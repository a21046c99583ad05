"""Numpy kernels against their compiled (numba) twins, and what compiling costs.

Usage::

    python benchmarks/compiled_kernels.py [--rows 10000] [--repeat 30] [--cold]

Prints, per kernel, the best of ``--repeat`` timed calls on ``--rows`` random
pairs (seeded) for each backend, after one untimed call; then the latency of
``import collideworld`` plus a first ``contact_pairs(..., backend="compiled")``
in a fresh process with numba's cache warm; with ``--cold``, also the time to
compile every kernel from scratch (the cache files are deleted first).
"""

from __future__ import annotations

import argparse
import pathlib
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np

from collideworld.geometry import aabb as numpy_aabb
from collideworld.geometry.compiled import aabb as compiled_aabb
from collideworld.geometry.rotation import rotation_matrix_2d, rotation_matrix_3d
from collideworld.narrowphase import kernels_for

ROOT = pathlib.Path(__file__).resolve().parent.parent


def best_of(fn: Callable[[], object], repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def inputs(n: int, rng: np.random.Generator) -> dict[str, tuple[np.ndarray, ...]]:
    def unit(d: int) -> np.ndarray:
        v = rng.normal(size=(n, d))
        return v / np.linalg.norm(v, axis=1)[:, None]

    def polygon(k: int = 8) -> np.ndarray:  # convex, padded: 3..8 vertices on a circle
        m = rng.integers(3, k + 1, n)
        j = np.minimum(np.arange(k)[None, :], m[:, None] - 1)
        ang = 2 * np.pi * j / m[:, None]
        return np.stack([np.cos(ang), np.sin(ang)], axis=2) * rng.uniform(0.3, 1.5, (n, 1, 1))

    def planes(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = np.ascontiguousarray(v.transpose(2, 1, 0))
        return p[0], p[1]

    out: dict[str, tuple[np.ndarray, ...]] = {}
    for d in (2, 3):
        c1, c2 = rng.uniform(-2, 2, (n, d)), rng.uniform(-2, 2, (n, d))
        r1, r2 = rng.uniform(0.2, 1.5, n), rng.uniform(0.2, 1.5, n)
        h1, h2 = rng.uniform(0.2, 1.5, (n, d)), rng.uniform(0.2, 1.5, (n, d))
        if d == 2:
            rot1, rot2 = rotation_matrix_2d(rng.uniform(-3, 3, n)), rotation_matrix_2d(rng.uniform(-3, 3, n))
        else:
            rot1, rot2 = rotation_matrix_3d(unit(4)), rotation_matrix_3d(unit(4))
        nrm, off = unit(d), rng.normal(size=n)
        out[f"contact_halfspace_halfspace {d}D"] = (nrm, off, unit(d), rng.normal(size=n))
        out[f"contact_halfspace_ball {d}D"] = (nrm, off, c1, r1)
        out[f"contact_halfspace_box {d}D"] = (nrm, off, c1, rot1, h1)
        out[f"contact_halfspace_points {d}D"] = (nrm, off, rng.normal(size=(n, 8, d)))
        out[f"contact_ball_ball {d}D"] = (c1, r1, c2, r2)
        out[f"contact_ball_box {d}D"] = (c1, r1, c2, rot2, h2)
        if d == 2:
            pa, pb = polygon() + c1[:, None, :], polygon() + c2[:, None, :]
            out["contact_ball_polygon 2D"] = (c1, r1, pb)
            out["contact_ball_polygon_planes 2D"] = (c1, r1, *planes(pb))
            out["contact_box_box_2d 2D"] = (c1, rot1, h1, c2, rot2, h2)
            out["contact_box_polygon 2D"] = (c1, rot1, h1, pb)
            out["contact_box_convex_planes 2D"] = (c1, rot1, h1, *planes(pb))
            out["contact_polygon_polygon 2D"] = (pa, pb)
            out["contact_convex_planes 2D"] = (*planes(pa), *planes(pb))
        else:
            out["contact_box_box_3d 3D"] = (c1, rot1, h1, c2, rot2, h2)
        out[f"aabb_ball {d}D"] = (c1, r1)
        out[f"aabb_box {d}D"] = (c1, rot1, h1)
        out[f"aabb_points {d}D"] = (rng.normal(size=(n, 8, d)),)
    return out


FIRST_CALL = """
import time
t0 = time.perf_counter()
import collideworld
t1 = time.perf_counter()
import numpy as np
from collideworld.bodies import BodyStore
from collideworld.narrowphase import contact_pairs
from collideworld import Box, Circle, HalfPlane, Polygon
store = BodyStore(2)
shapes = [HalfPlane((0.0, 1.0), 0.0)] + [Circle(1.0), Box((1.0, 0.5)), Polygon(((0, 0), (1, 0), (0, 1)))] * 10
s = store.allocate(len(shapes))
store.set_shapes(s, shapes)
rng = np.random.default_rng(0)
store.set_poses(s, rng.uniform(0, 5, (len(s), 2)), rng.uniform(0, 6, len(s)))
ia, ib = np.triu_indices(len(s), 1)
t2 = time.perf_counter()
contact_pairs(store, s[ia], s[ib], backend="compiled")
t3 = time.perf_counter()
print(f"{t1 - t0:.3f} {t3 - t2:.3f}")
"""

COMPILE_ALL = """
import time
t = time.perf_counter()
import collideworld
collideworld.warm_up()
print(f"{time.perf_counter() - t:.2f}")
"""


def fresh(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=ROOT).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--cold", action="store_true", help="also time compiling everything from scratch")
    args = parser.parse_args()

    if args.cold:
        for path in (ROOT / "collideworld").rglob("*.nb[ic]"):
            path.unlink()
        print(f"cold compile of every kernel (warm_up, fresh process): {fresh(COMPILE_ALL)} s")
    fresh(COMPILE_ALL)  # the cache is warm from here on

    numpy_k, compiled_k = kernels_for("numpy"), kernels_for("compiled")
    print(f"\n{args.rows} rows, best of {args.repeat}:\n")
    print("| kernel | numpy (us) | compiled (us) | speed-up |")
    print("| --- | ---: | ---: | ---: |")
    for label, kernel_args in inputs(args.rows, np.random.default_rng(0)).items():
        name = label.split()[0]
        if name.startswith("aabb"):
            a, b = getattr(numpy_aabb, name), getattr(compiled_aabb, name)
        else:
            a, b = getattr(numpy_k, name), getattr(compiled_k, name)
        ta = best_of(lambda: a(*kernel_args), args.repeat)  # noqa: B023
        tb = best_of(lambda: b(*kernel_args), args.repeat)  # noqa: B023
        print(f"| {label} | {ta * 1e6:.0f} | {tb * 1e6:.0f} | {ta / tb:.1f}x |")

    runs = [fresh(FIRST_CALL).split() for _ in range(5)]
    imports = sorted(float(r[0]) for r in runs)
    firsts = sorted(float(r[1]) for r in runs)
    print(f"\nfresh process, warm cache, 5 runs: import collideworld {imports[0]:.3f}-{imports[-1]:.3f} s "
          f"(median {imports[2]:.3f}); first compiled contact_pairs {firsts[0]:.3f}-{firsts[-1]:.3f} s "
          f"(median {firsts[2]:.3f})")


if __name__ == "__main__":
    main()
