"""Benchmark collideworld against its peers, frame by frame, in one process.

Usage::

    python benchmarks/run.py [--quick] [--big] [--frames 20] [--warmup 3] [--out benchmarks/results]

For every workload all engines get the same seeded frames, interleaved
(frame k of engine A, frame k of engine B, ..., with the starting engine
rotating each frame so none always runs on a cache warmed by another). The
first ``--warmup`` frames are not timed. Each engine's pair set is checked
against every other engine's, every frame; a pair on which two engines
disagree is judged by an independent exact-ish signed distance (shapely in
2D, fcl's signed distance in 3D): a disagreement within ``TOUCH_EPS`` of
touching is allowed, any other is a **mismatch** and is printed loudly.

Writes ``results.md``, ``results.json`` and ``scaling.png`` to ``--out``.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engines import ENGINES, Engine  # noqa: E402
from workloads import (  # noqa: E402
    BOX,
    CAPSULE,
    CIRCLE,
    HULL,
    SEGMENT,
    SPHERE,
    Frame,
    Scene,
    make_scene_2d,
    make_scene_2d_mixed,
    make_scene_3d,
    make_scene_3d_mixed,
)

#: Engines disagreeing on a pair closer than this to touching is not a mismatch.
TOUCH_EPS = 1e-6
#: collideworld on its compiled backend (the library as shipped) and on its numpy fallback.
CW = ("collideworld", "collideworld-numpy")
PEERS_2D = ("pymunk", "shapely")
PEERS_3D = ("fcl",)
#: Examples kept per kind of disagreement ("a only (vs b)") and workload.
MAX_EXAMPLES = 5
#: The --big workload; its peer is chosen when it runs.
BIG_KEY = "2d-100000"


@dataclass
class Workload:
    key: str
    title: str
    dim: int
    n: int
    moving_fraction: float
    engines: tuple[str, ...]
    scaling: bool = False  # a point of the 2D all-moving scaling curve
    main: bool = True  # a row of the main table
    mixed: bool = False  # capsules and segments (2D) or capsules and hulls (3D) among the others

    def scene(self, seed: int) -> Scene:
        if self.mixed:
            make = make_scene_2d_mixed if self.dim == 2 else make_scene_3d_mixed
        else:
            make = make_scene_2d if self.dim == 2 else make_scene_3d
        return make(self.n, moving_fraction=self.moving_fraction, seed=seed)


@dataclass
class Disagreement:
    engine_has: str
    engine_lacks: str
    frame: int
    pair: tuple[int, int]
    kinds: str
    gap: float  # judge's signed distance: < 0 overlapping, > 0 apart


@dataclass
class Result:
    workload: Workload
    ms: dict[str, list[float]] = field(default_factory=dict)
    setup_s: dict[str, float] = field(default_factory=dict)
    pairs_per_frame: list[int] = field(default_factory=list)
    borderline: int = 0
    mismatches: list[Disagreement] = field(default_factory=list)
    mismatch_counts: dict[str, int] = field(default_factory=dict)
    cw_peak_bytes_per_body: float | None = None
    #: Engines that raised, with the error; they are left out of the timings.
    errors: dict[str, str] = field(default_factory=dict)

    def median(self, engine: str) -> float:
        return statistics.median(self.ms[engine])

    def fastest_peer(self) -> str | None:
        peers = [e for e in self.ms if not e.startswith("collideworld") and self.ms[e]]
        return min(peers, key=self.median) if peers else None

    def ratio(self) -> float | None:
        peer = self.fastest_peer()
        if peer is None or not self.ms.get("collideworld"):
            return None
        return self.median(peer) / self.median("collideworld")


# -- judging disagreements ------------------------------------------------------------------


class Judge:
    """Signed distance of two bodies at the current poses, from a library other than collideworld."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self.pos = scene.positions.copy()
        self.rot = scene.rotations.copy()

    def apply(self, fr: Frame) -> None:
        self.pos[fr.moved] = fr.positions
        self.rot[fr.moved] = fr.rotations

    def kinds(self, i: int, j: int) -> str:
        names = ({CIRCLE: "circle", BOX: "box"} if self.scene.dim == 2 else {SPHERE: "sphere", BOX: "box"})
        names.update({CAPSULE: "capsule", SEGMENT: "segment", HULL: "hull"})
        return "-".join(names.get(int(self.scene.kind[k]), "polygon") for k in (i, j))

    def _geom_2d(self, i: int) -> tuple[Any, float]:
        """(shapely geometry, radius): a circle is its centre point and radius."""
        import shapely

        sc = self.scene
        if sc.kind[i] == CIRCLE:
            return shapely.Point(self.pos[i]), float(sc.radius[i])
        c, s = math.cos(self.rot[i]), math.sin(self.rot[i])
        if sc.kind[i] in (CAPSULE, SEGMENT):  # the core segment and the radius (0 for a segment)
            assert sc.half_length is not None
            h = float(sc.half_length[i])
            ends = np.array([(-h, 0.0), (h, 0.0)]) @ np.array([[c, s], [-s, c]]) + self.pos[i]
            return shapely.LineString(ends), float(sc.radius[i])
        if sc.kind[i] == BOX:
            hx, hy = sc.half_extents[i]
            v = np.array([(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)])
        else:
            v = sc.polygons[i]
        c, s = math.cos(self.rot[i]), math.sin(self.rot[i])
        w = v @ np.array([[c, s], [-s, c]]) + self.pos[i]
        return shapely.Polygon(w), 0.0

    def gap(self, i: int, j: int) -> float:
        if self.scene.dim == 2:
            return self._gap_2d(i, j)
        return self._gap_3d(i, j)

    def _gap_2d(self, i: int, j: int) -> float:
        import shapely

        (a, ra), (b, rb) = self._geom_2d(i), self._geom_2d(j)
        d = a.distance(b) - ra - rb
        if d <= 0 and ra == 0 and rb == 0 and "LineString" in (a.geom_type, b.geom_type):
            return self._segment_overlap(a, b)
        if d > 0 or (ra == 0 and rb == 0 and d == 0 and not a.intersects(b)):
            return float(d)
        if ra > 0 or rb > 0:
            return float(d)  # circles: the distance minus the radii is already signed
        # two overlapping polygons: shrink one until they part (a bound on the depth)
        for depth in (1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0):
            if not shapely.buffer(a, -depth, join_style="mitre").intersects(b):
                return -depth
        return -10.0

    @staticmethod
    def _segment_overlap(a: Any, b: Any) -> float:
        """A segment touching or crossing a segment or polygon: minus a bound on how far
        it is from parting (0 when it only touches)."""
        import shapely

        line, other = (a, b) if a.geom_type == "LineString" else (b, a)
        if other.geom_type == "LineString":
            # crossing segments part when the crossing reaches an end: its distance to the nearest end
            ends = [shapely.Point(p) for g in (line, other) for p in g.coords]
            cross = line.intersection(other)
            return -min(float(cross.distance(e)) for e in ends)
        # a segment in a polygon: the polygon shrunk until they part (a bound on the depth)
        for depth in (1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0):
            if not shapely.buffer(other, -depth, join_style="mitre").intersects(line):
                return -depth
        return -10.0

    def _gap_3d(self, i: int, j: int) -> float:
        import fcl
        from engines import fcl_mixed_geometry

        sc = self.scene

        def obj(k: int) -> Any:
            if sc.kind[k] in (CAPSULE, HULL):
                g = fcl_mixed_geometry(sc, k)
            elif sc.kind[k] == SPHERE:
                g = fcl.Sphere(float(sc.radius[k]))
            else:
                g = fcl.Box(*(2 * sc.half_extents[k]).tolist())
            return fcl.CollisionObject(g, fcl.Transform(self.rot[k], self.pos[k]))

        res = fcl.DistanceResult()
        return float(fcl.distance(obj(i), obj(j), fcl.DistanceRequest(enable_signed_distance=True), res))


# -- running -----------------------------------------------------------------------------------


def _make_engine(name: str, cw_broadphase: str | None) -> Engine:
    if name.startswith("collideworld"):
        return ENGINES[name](broadphase=cw_broadphase)  # type: ignore[call-arg]
    return ENGINES[name]()


def run_workload(wl: Workload, *, frames: int, warmup: int, seed: int, cw_broadphase: str | None,
                 measure_memory: bool, log: Any) -> Result:
    scene = wl.scene(seed)
    all_frames = list(scene.frames(warmup + frames))  # generated up front: not part of any timing
    res = Result(wl)
    engines: list[Engine] = []
    for name in wl.engines:
        eng = _make_engine(name, cw_broadphase)
        gc.collect()
        t0 = time.perf_counter()
        try:
            eng.setup(scene)
        except Exception as exc:  # a broken engine must not stop the others' measurements
            _engine_failed(res, name, "setup", exc, log)
            continue
        res.setup_s[name] = time.perf_counter() - t0
        res.ms[name] = []
        engines.append(eng)
    judge = Judge(scene)
    counts: dict[str, int] = {}
    for k, fr in enumerate(all_frames):
        judge.apply(fr)
        if not engines:
            break
        order = engines[k % len(engines):] + engines[: k % len(engines)]
        got: dict[str, set[tuple[int, int]]] = {}
        for eng in order:
            gc.collect()  # a collection triggered inside the timer is then the engine's own garbage
            try:
                got[eng.name] = eng.frame(fr.moved, fr.positions, fr.rotations)
            except Exception as exc:
                _engine_failed(res, eng.name, f"frame {k}", exc, log)
                engines.remove(eng)
                del res.ms[eng.name]
                continue
            if k >= warmup:
                res.ms[eng.name].append(eng.last_seconds * 1e3)
        if not got:
            break
        res.pairs_per_frame.append(len(next(iter(got.values()))))
        names = [e for e in wl.engines if e in got]
        for x in range(len(names)):
            for y in range(x + 1, len(names)):
                a, b = names[x], names[y]
                for has, lacks, diff in ((a, b, got[a] - got[b]), (b, a, got[b] - got[a])):
                    for pair in sorted(diff):
                        g = judge.gap(*pair)
                        if abs(g) <= TOUCH_EPS:
                            res.borderline += 1
                            continue
                        key = f"{has} only (vs {lacks})"
                        counts[key] = counts.get(key, 0) + 1
                        if counts[key] <= MAX_EXAMPLES:  # the first few of each kind
                            res.mismatches.append(Disagreement(has, lacks, k, pair, judge.kinds(*pair), g))
        stamp = "  ".join(f"{e.name} {e.last_seconds * 1e3:8.1f} ms" for e in engines)
        print(f"  [{wl.key}] frame {k:3d}{' (warm-up)' if k < warmup else '          '}  {stamp}  "
              f"pairs {res.pairs_per_frame[-1]}", file=log, flush=True)
    res.mismatch_counts = counts
    del engines
    gc.collect()
    if measure_memory and "collideworld" not in res.errors:
        try:
            res.cw_peak_bytes_per_body = peak_memory_per_body(scene, all_frames[: warmup + min(frames, 5)],
                                                              cw_broadphase)
        except Exception as exc:
            _engine_failed(res, "collideworld", "memory run", exc, log)
    return res


def _engine_failed(res: Result, name: str, where: str, exc: Exception, log: Any) -> None:
    import traceback

    res.errors[name] = f"{where}: {type(exc).__name__}: {exc}"
    print(f"   !!! ENGINE ERROR: {name} raised in {where}; left out of this workload:", file=log, flush=True)
    traceback.print_exc(file=log)


def peak_memory_per_body(scene: Scene, frames: list[Frame], cw_broadphase: str | None) -> float:
    """tracemalloc peak of collideworld's setup plus frames, divided by n (bytes per body).

    Each frame is the engine's own work (``_advance``: the moves and ``step()``, whose
    Contacts count), not ``frame()``, which also turns the contacts into the Python set
    of index pairs the engines are cross-checked with: that set is the harness's, and
    at 100,000 bodies it was the peak (a tuple and two ints per contact).
    """
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        eng = _make_engine("collideworld", cw_broadphase)
        eng.setup(scene)
        for fr in frames:
            eng._advance(fr.moved, fr.positions, fr.rotations)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / scene.n


# -- reporting ---------------------------------------------------------------------------------


def _mean(values: list[int]) -> float:
    return statistics.mean(values) if values else math.nan


def _fmt_ms(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v:.2f}" if v < 10 else f"{v:.1f}" if v < 100 else f"{v:.0f}"


def _environment(cw_broadphase: str | None) -> dict[str, Any]:
    import fcl
    import pymunk
    import shapely

    try:
        # read-only git calls (no index refresh): which collideworld was measured
        repo = Path(__file__).resolve().parent.parent
        commit = subprocess.run(["git", "--no-optional-locks", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, cwd=repo, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "--no-optional-locks", "diff", "--quiet", "HEAD", "--", "collideworld"],
                               capture_output=True, cwd=repo, timeout=10).returncode == 1
    except (OSError, subprocess.SubprocessError):
        commit, dirty = "?", False
    import os

    from collideworld.backend import get_threads

    return {
        "collideworld_threads": get_threads(), "load_average": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count(),
        "numpy": np.__version__, "pymunk": pymunk.version, "shapely": shapely.__version__,
        "fcl": getattr(fcl, "__version__", "?"), "collideworld_commit": commit + ("+dirty" if dirty else ""),
        "collideworld_broadphase": cw_broadphase or "World default",
    }


def markdown(results: list[Result], env: dict[str, Any], frames: int, warmup: int) -> str:
    engines = [*CW, *PEERS_2D, *PEERS_3D]
    lines = [
        "# collideworld benchmark",
        "",
        f"Median ms per frame over {frames} frames after {warmup} warm-up frames, engines interleaved "
        "frame by frame in one process. collideworld runs its compiled (numba) backend; collideworld-numpy "
        "is the numpy fallback, timed beside it. Ratio = fastest peer ms / collideworld ms (> 1: collideworld "
        "is faster). Pairs = mean pairs in contact per frame. Mismatches = pairs on which two engines "
        f"disagree and the judge says the bodies are more than {TOUCH_EPS:g} from touching "
        "(borderline disagreements in brackets). Memory = collideworld's tracemalloc peak during setup "
        "and frames, divided by n.",
        "",
        "| workload | n | " + " | ".join(f"{e} ms" for e in engines)
        + " | fastest peer | ratio | pairs | mismatches | cw peak B/body |",
        "|---|---:|" + "---:|" * len(engines) + "---|---:|---:|---:|---:|",
    ]
    for r in results:
        if not r.workload.main:
            continue
        cells = [_fmt_ms(r.median(e)) if r.ms.get(e) else "**error**" if e in r.errors else "-" for e in engines]
        ratio = r.ratio()
        mem = "-" if r.cw_peak_bytes_per_body is None else f"{r.cw_peak_bytes_per_body:,.0f}"
        nm = sum(r.mismatch_counts.values())
        lines.append(
            f"| {r.workload.title} | {r.workload.n:,} | " + " | ".join(cells)
            + f" | {r.fastest_peer() or '-'} | {'-' if ratio is None else f'{ratio:.2f}'}"
            + f" | {_mean(r.pairs_per_frame):,.0f} | {'**' + str(nm) + '**' if nm else 0} ({r.borderline})"
            + f" | {mem} |"
        )
    scaling = [r for r in results if r.workload.scaling]
    if scaling:
        lines += ["", "## Scaling, 2D all moving (ms per frame)", "",
                  "| n | " + " | ".join([*CW, *PEERS_2D]) + " |",
                  "|---:|" + "---:|" * (len(CW) + len(PEERS_2D))]
        for r in sorted(scaling, key=lambda r: r.workload.n):
            lines.append(f"| {r.workload.n:,} | "
                         + " | ".join(_fmt_ms(r.median(e)) if r.ms.get(e) else "-" for e in [*CW, *PEERS_2D])
                         + " |")
    bad = [r for r in results if r.mismatches]
    if bad:
        lines += ["", "## Mismatches", ""]
        for r in bad:
            kinds = ", ".join(f"{k}: {v}" for k, v in sorted(r.mismatch_counts.items()))
            lines.append(f"- **{r.workload.title}** (n={r.workload.n:,}): {kinds}")
            for d in r.mismatches:
                lines.append(f"  - frame {d.frame}, pair {d.pair} ({d.kinds}): reported by {d.engine_has}, "
                             f"not by {d.engine_lacks}; judge's signed distance {d.gap:.3g}")
    failed = [r for r in results if r.errors]
    if failed:
        lines += ["", "## Engine errors", ""]
        for r in failed:
            for e, msg in r.errors.items():
                lines.append(f"- **{r.workload.key}**, {e}: `{msg}`")
    lines += ["", "## Environment", ""] + [f"- {k}: {v}" for k, v in env.items()]
    return "\n".join(lines) + "\n"


def to_json(results: list[Result], env: dict[str, Any], frames: int, warmup: int) -> dict[str, Any]:
    out = []
    for r in results:
        wl = r.workload
        out.append({
            "key": wl.key, "title": wl.title, "dim": wl.dim, "n": wl.n, "moving_fraction": wl.moving_fraction,
            "engines": {e: {"median_ms": r.median(e), "min_ms": min(v), "max_ms": max(v),
                            "mean_ms": statistics.mean(v), "setup_s": r.setup_s[e], "frame_ms": v}
                        for e, v in r.ms.items() if v},
            "errors": r.errors,
            "fastest_peer": r.fastest_peer(), "ratio": r.ratio(),
            "pairs_per_frame_mean": _mean(r.pairs_per_frame),
            "borderline_disagreements": r.borderline,
            "mismatch_counts": r.mismatch_counts,
            "mismatch_examples": [d.__dict__ for d in r.mismatches],
            "cw_peak_bytes_per_body": r.cw_peak_bytes_per_body,
            "main_table": wl.main, "scaling": wl.scaling,
        })
    return {"frames": frames, "warmup": warmup, "touch_eps": TOUCH_EPS, "environment": env, "workloads": out}


def plot(results: list[Result], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scaling = sorted((r for r in results if r.workload.scaling), key=lambda r: r.workload.n)
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    for e, marker in zip([*CW, *PEERS_2D], "os^D", strict=True):
        pts = [(r.workload.n, r.median(e)) for r in scaling if r.ms.get(e)]
        if pts:
            ax.plot(*zip(*pts, strict=True), marker=marker, label=e)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("bodies n")
    ax.set_ylabel("median ms per frame")
    ax.set_title("2D, all bodies moving, ~2 overlaps per body")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# -- CLI -----------------------------------------------------------------------------------------


def workloads(quick: bool, big: bool) -> list[Workload]:
    two = (*CW, *PEERS_2D)
    three = (*CW, *PEERS_3D)
    if quick:
        main = [Workload("2d-200", "2D all moving", 2, 200, 1.0, two, scaling=True),
                Workload("2d-400", "2D all moving", 2, 400, 1.0, two, scaling=True),
                Workload("2d-400-5pct", "2D 5% moving", 2, 400, 0.05, two),
                Workload("3d-200", "3D all moving", 3, 200, 1.0, three)]
        extra = [Workload("2d-100", "2D all moving", 2, 100, 1.0, two, scaling=True, main=False)]
        return extra + main + _mixed_workloads(quick)
    main = [Workload("2d-2000", "2D all moving", 2, 2_000, 1.0, two, scaling=True),
            Workload("2d-10000", "2D all moving", 2, 10_000, 1.0, two, scaling=True),
            Workload("2d-10000-5pct", "2D 5% moving", 2, 10_000, 0.05, two),
            Workload("3d-5000", "3D all moving", 3, 5_000, 1.0, three)]
    extra = [Workload("2d-1000", "2D all moving", 2, 1_000, 1.0, two, scaling=True, main=False),
             Workload("2d-5000", "2D all moving", 2, 5_000, 1.0, two, scaling=True, main=False)]
    big = [Workload(BIG_KEY, "2D all moving", 2, 100_000, 1.0, CW, scaling=True)] if big else []
    return extra + main + _mixed_workloads(quick) + big


def _mixed_workloads(quick: bool) -> list[Workload]:
    """Capsules and segments (2D) or capsules and hulls (3D) among the other shapes, against
    the peers that have those shapes: pymunk (its Segment has a radius: a capsule, or a
    segment at radius 0) and python-fcl (fcl.Capsule, fcl.Convex). shapely's adapter has
    no capsules."""
    n2, n3 = (400, 200) if quick else (5_000, 2_000)
    return [Workload(f"2d-mixed-{n2}", "2D mixed: capsules, segments", 2, n2, 1.0, (*CW, "pymunk"), mixed=True),
            Workload(f"3d-mixed-{n3}", "3D mixed: capsules, hulls", 3, n3, 1.0, (*CW, *PEERS_3D), mixed=True)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes, few frames: a smoke check")
    ap.add_argument("--big", action="store_true",
                    help="add 2D all moving n=100,000 (collideworld and the fastest 2D peer at n=10,000)")
    ap.add_argument("--frames", type=int, default=None, help="timed frames per workload (default 20; quick 5)")
    ap.add_argument("--warmup", type=int, default=None, help="untimed frames first (default 3; quick 1)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default=None, help="comma-separated workload keys to run (default all)")
    ap.add_argument("--cw-broadphase", default=None,
                    help="collideworld's World(broadphase=...) (default: the World's own default)")
    ap.add_argument("--threads", type=int, default=None,
                    help="numba threads for collideworld's compiled loops (numba.set_num_threads; default: "
                         "every core numba sees); 1 gives the single-thread figures")
    ap.add_argument("--realistic", choices=["yes", "no", "only"], default="yes",
                    help="the realistic frames of benchmarks/realistic.py (RTS frame vs pymunk, 3D pile vs "
                         "pybullet): beside the other workloads (yes, default), not at all, or alone")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    args = ap.parse_args(argv)
    if args.threads is not None:
        import numba

        if not 1 <= args.threads <= numba.config.NUMBA_NUM_THREADS:
            ap.error(f"--threads must be from 1 to {numba.config.NUMBA_NUM_THREADS} (numba's pool), "
                     f"got {args.threads}")
        numba.set_num_threads(args.threads)
        import collideworld

        collideworld.set_threads(args.threads)  # as given, even on a loaded machine
    frames = args.frames if args.frames is not None else (5 if args.quick else 20)
    warmup = args.warmup if args.warmup is not None else (1 if args.quick else 3)
    if frames < 1 or warmup < 0:
        ap.error(f"need --frames >= 1 and --warmup >= 0, got {frames} and {warmup}")
    todo = workloads(args.quick, args.big)
    if args.only:
        keys = set(args.only.split(","))
        unknown = keys - {w.key for w in todo}
        if unknown:
            ap.error(f"unknown workload(s) {sorted(unknown)}; known: {[w.key for w in todo]}")
        todo = [w for w in todo if w.key in keys]
    # memory is measured once per dimension, at the largest n of the all-moving workloads
    largest = {dim: max([w.n for w in todo if w.dim == dim and w.moving_fraction == 1], default=0) for dim in (2, 3)}
    results: list[Result] = []

    def run(wl: Workload) -> Result:
        print(f"== {wl.key}: {wl.title}, n={wl.n:,}, engines {', '.join(wl.engines)}", flush=True)
        memory = wl.n == largest[wl.dim] and wl.moving_fraction == 1 and "collideworld" in wl.engines
        r = run_workload(wl, frames=frames, warmup=warmup, seed=args.seed, cw_broadphase=args.cw_broadphase,
                         measure_memory=memory, log=sys.stdout)
        summary = ", ".join(f"{e} {_fmt_ms(r.median(e))} ms" for e in r.ms if r.ms[e])
        nm = sum(r.mismatch_counts.values())
        ratio = r.ratio()
        print(f"   median: {summary}; ratio {'-' if ratio is None else f'{ratio:.3f}'}; "
              f"disagreements: {nm} mismatches, {r.borderline} borderline", flush=True)
        if r.cw_peak_bytes_per_body is not None:
            print(f"   collideworld peak memory: {r.cw_peak_bytes_per_body:,.0f} bytes per body", flush=True)
        if nm:
            print(f"   !!! MISMATCH in {wl.key}: {r.mismatch_counts}", flush=True)
            for d in r.mismatches:
                print(f"   !!!   frame {d.frame} pair {d.pair} ({d.kinds}) only in {d.engine_has} "
                      f"(not {d.engine_lacks}); signed distance {d.gap:.3g}", flush=True)
        return r

    if args.realistic == "only":
        todo = []
    for wl in todo:
        if wl.key == BIG_KEY:
            # collideworld against the fastest 2D peer at n=10,000 (pymunk if that was not run)
            ref = next((r for r in results if r.workload.key == "2d-10000"), None)
            peer = (ref and ref.fastest_peer()) or "pymunk"
            wl.engines = (*CW, peer)
        results.append(run(wl))

    realistic_md: list[str] = []
    if args.realistic != "no":
        import realistic

        print("== realistic frames: RTS vs pymunk, 3D pile vs pybullet", flush=True)
        real = realistic.run_all(frames, warmup, args.seed, sys.stdout)
        realistic_md = realistic.markdown(real)
    env = _environment(args.cw_broadphase)
    args.out.mkdir(parents=True, exist_ok=True)
    md = markdown(results, env, frames, warmup)
    if realistic_md:
        md = md.rstrip("\n") + "\n" + "\n".join(realistic_md) + "\n"
    (args.out / "results.md").write_text(md)
    (args.out / "results.json").write_text(json.dumps(to_json(results, env, frames, warmup), indent=1))
    plot(results, args.out / "scaling.png")
    print()
    print(md)
    print(f"wrote {args.out / 'results.md'}, {args.out / 'results.json'}, {args.out / 'scaling.png'}")
    total = sum(sum(r.mismatch_counts.values()) for r in results)
    if total:
        print(f"!!! {total} MISMATCHED PAIR-FRAMES between engines (see above) !!!")
    errors = sum(len(r.errors) for r in results)
    if errors:
        print(f"!!! {errors} ENGINE ERRORS (see 'Engine errors' in results.md) !!!")
    return 1 if total or errors else 0


if __name__ == "__main__":
    sys.exit(main())
