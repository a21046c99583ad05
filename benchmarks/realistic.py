"""Realistic frames (issue 28): an RTS frame against pymunk and a 3D pile against pybullet.

Run from the repository root: ``python benchmarks/realistic.py [--frames 30] [--warmup 5]``;
``benchmarks/run.py`` runs the same two workloads beside the others (``--realistic``).

RTS frame (2D)
    2,000 units (200 of them compounds of 2-3 circles, the rest circles), 80
    rotated static boxes and 20 static concave L buildings, about one body
    per 9 square units; and the same frame with circles and boxes only (every
    unit a circle, no L buildings). Every frame every unit moves, then: the step with
    contact points, a rotated ghost box placement query, a point query, 10
    single first-hit raycasts, 500 first-hit rays at once, a selection box
    query and the user data of every selected body.

    collideworld: ``move_many`` + ``step()`` (``World(manifolds=True)``),
    ``query_shape``, ``query_point``, ``raycast(all_hits=False)`` x 10,
    ``raycast_many``, ``query_aabb``, ``data()`` per selected body.
    pymunk, driven its fastest way: kinematic units posed at once with
    ``pymunk.batch.set_space_bodies``, ``space.step``, the arbiters' contact
    points read with ``pymunk.batch.get_space_arbiters``; ``shape_query``,
    ``point_query``, ``segment_query_first`` x 10 and x 500 (pymunk has no
    batched ray), ``bb_query``, a dict look-up of each selected shape's data.

3D pile
    1,000 bodies (boxes, spheres, capsules and 100 hulls of 20 points) on a
    plane, all moving every frame, with contact points.

    collideworld: ``move_many`` + ``step()`` (``World(dim=3, manifolds=True)``).
    pybullet (DIRECT), driven its fastest way from Python:
    ``resetBasePositionAndOrientation`` per body (pybullet has no batched
    pose call), ``performCollisionDetection``, ``getContactPoints``.

Both engines get the same seeded frames, interleaved (the first engine
alternates frame by frame), after ``--warmup`` untimed frames; medians are
reported with the ratio peer ms / collideworld ms (> 1: collideworld is
faster). The pair counts are printed beside: the engines are not required to
agree pair for pair (Bullet adds a collision margin to its hulls), only to do
the same job.
"""

from __future__ import annotations

import argparse
import gc
import math
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

# the repository's collideworld (this checkout's), not an installed one
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

RTS_UNITS = 2_000
RTS_COMPOUNDS = 200
RTS_BOXES = 80
RTS_LS = 20
PILE_N = 1_000
PILE_HULLS = 100


# -- the RTS scene ----------------------------------------------------------------------------


@dataclass
class RtsScene:
    side: float
    unit_pos: np.ndarray
    unit_ang: np.ndarray
    unit_radius: np.ndarray  # a circle's radius, or a compound's circles' radius
    unit_parts: np.ndarray  # 1: a circle; 2 or 3: a compound of that many circles on a line
    box_pos: np.ndarray
    box_ang: np.ndarray
    box_half: np.ndarray
    l_pos: np.ndarray
    l_ang: np.ndarray
    l_size: np.ndarray
    frames: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    queries: list[dict[str, Any]] = field(default_factory=list)


def make_rts(n_frames: int, seed: int = 0, circles_only: bool = False) -> RtsScene:
    rng = np.random.default_rng(seed)
    side = math.sqrt(9.0 * (RTS_UNITS + RTS_BOXES + RTS_LS))
    parts = np.ones(RTS_UNITS, dtype=np.int64)
    if not circles_only:
        parts[rng.choice(RTS_UNITS, RTS_COMPOUNDS, replace=False)] = rng.integers(2, 4, RTS_COMPOUNDS)
    sc = RtsScene(
        side=side,
        unit_pos=rng.uniform(0, side, (RTS_UNITS, 2)), unit_ang=rng.uniform(-np.pi, np.pi, RTS_UNITS),
        unit_radius=rng.uniform(0.3, 0.8, RTS_UNITS), unit_parts=parts,
        box_pos=rng.uniform(0, side, (RTS_BOXES, 2)), box_ang=rng.uniform(-np.pi, np.pi, RTS_BOXES),
        box_half=rng.uniform(0.8, 2.5, (RTS_BOXES, 2)),
        l_pos=rng.uniform(0, side, (RTS_LS, 2)), l_ang=rng.uniform(-np.pi, np.pi, RTS_LS),
        l_size=rng.uniform(1.5, 3.0, RTS_LS),
    )
    if circles_only:  # circles and boxes only: no L buildings either (same seeded draws for the rest)
        sc.l_pos, sc.l_ang, sc.l_size = sc.l_pos[:0], sc.l_ang[:0], sc.l_size[:0]
    pos, ang = sc.unit_pos.copy(), sc.unit_ang.copy()
    for _ in range(n_frames):
        pos = np.clip(pos + rng.normal(0, 0.15, pos.shape), 0, side)
        ang = ang + rng.normal(0, 0.05, len(ang))
        sc.frames.append((pos.copy(), ang.copy()))
        p = rng.uniform(0.1 * side, 0.9 * side, 2)
        o = rng.uniform(0, side, (500, 2))
        d = rng.normal(size=(500, 2))
        d /= np.linalg.norm(d, axis=1)[:, None]
        sel_lo = rng.uniform(0.1 * side, 0.7 * side, 2)
        sc.queries.append({
            "ghost": (rng.uniform(0.1 * side, 0.9 * side, 2), float(rng.uniform(-np.pi, np.pi))),
            "point": p, "ray_o": o[:10], "ray_d": d[:10], "rays_o": o, "rays_d": d,
            "sel": (sel_lo, sel_lo + rng.uniform(5, 15, 2)),
        })
    return sc


GHOST_HALF = (2.0, 1.0)
RAY_LENGTH = 30.0


def l_vertices(s: float) -> list[tuple[float, float]]:
    return [(0, 0), (2 * s, 0), (2 * s, s), (s, s), (s, 2 * s), (0, 2 * s)]


def box_vertices(hx: float, hy: float) -> list[tuple[float, float]]:
    return [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)]


class CwRts:
    name = "collideworld"

    def __init__(self, sc: RtsScene) -> None:
        from collideworld import Box, Circle, Compound, Polygon, World

        self.w = w = World(dim=2, backend="compiled", manifolds=True)
        self.ids = np.arange(RTS_UNITS)
        for i in range(RTS_UNITS):
            r = float(sc.unit_radius[i])
            k = int(sc.unit_parts[i])
            shape: Any = Circle(r) if k == 1 else Compound([(Circle(r), (1.5 * r * j, 0.0)) for j in range(k)])
            w.add(shape, sc.unit_pos[i], angle=float(sc.unit_ang[i]), id=i, data=("unit", i))
        for i in range(RTS_BOXES):
            w.add(Box(tuple(sc.box_half[i].tolist())), sc.box_pos[i], angle=float(sc.box_ang[i]), static=True,
                  data=("box", i))
        for i in range(len(sc.l_size)):
            w.add(Polygon(l_vertices(float(sc.l_size[i]))), sc.l_pos[i], angle=float(sc.l_ang[i]), static=True,
                  data=("building", i))
        self.ghost = Box(GHOST_HALF)
        w.step()

    def frame(self, pos: np.ndarray, ang: np.ndarray, q: dict[str, Any]) -> tuple[int, int]:
        w = self.w
        w.move_many(self.ids, pos, ang)
        c = w.step()
        w.query_shape(self.ghost, q["ghost"][0], angle=q["ghost"][1])
        w.query_point(q["point"])
        for o, d in zip(q["ray_o"], q["ray_d"], strict=True):
            w.raycast(o, d, RAY_LENGTH, all_hits=False)
        w.raycast_many(q["rays_o"], q["rays_d"], RAY_LENGTH)
        sel = w.query_aabb(*q["sel"])
        data = [w.data(i) for i in sel]
        return len(c.pairs()), len(data)


class PymunkRts:
    name = "pymunk"

    def __init__(self, sc: RtsScene) -> None:
        import pymunk
        import pymunk.batch as pb

        self.pymunk, self.pb = pymunk, pb
        self.space = space = pymunk.Space()
        space.collision_slop = 0.0
        space.collision_persistence = 1
        self.data: dict[Any, Any] = {}
        bodies = []
        for i in range(RTS_UNITS):
            body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
            body.position = tuple(sc.unit_pos[i].tolist())
            body.angle = float(sc.unit_ang[i])
            r = float(sc.unit_radius[i])
            shapes = [pymunk.Circle(body, r, (1.5 * r * j, 0.0)) for j in range(int(sc.unit_parts[i]))]
            space.add(body, *shapes)
            for s in shapes:
                self.data[s] = ("unit", i)
            bodies.append(body)
        # the buildings are the space's static body's shapes, their vertices posed once here (a
        # static body of their own would join the bodies set_space_bodies walks)
        static = space.static_body

        def posed(verts: list[tuple[float, float]], at: np.ndarray, angle: float) -> list[tuple[float, float]]:
            c, s = math.cos(angle), math.sin(angle)
            return [(at[0] + c * x - s * y, at[1] + s * x + c * y) for x, y in verts]

        for i in range(RTS_BOXES):
            shape = pymunk.Poly(static, posed(box_vertices(*sc.box_half[i].tolist()), sc.box_pos[i],
                                              float(sc.box_ang[i])), radius=0.0)
            space.add(shape)
            self.data[shape] = ("box", i)
        for i in range(len(sc.l_size)):
            # pymunk's polygons are convex: the L is two convex pieces
            z = float(sc.l_size[i])
            for piece in ([(0, 0), (2 * z, 0), (2 * z, z), (0, z)], [(0, z), (z, z), (z, 2 * z), (0, 2 * z)]):
                shape = pymunk.Poly(static, posed(piece, sc.l_pos[i], float(sc.l_ang[i])), radius=0.0)
                space.add(shape)
                self.data[shape] = ("building", i)
        # set_space_bodies walks every body of the space (the static body too, once it has
        # shapes), in the space's order: one pose row per body, the units' rows found by id
        order = pb.Buffer()
        pb.get_space_bodies(space, pb.BodyFields.BODY_ID, order)
        got = np.frombuffer(bytes(order.int_buf()), dtype=np.uintp)
        where = {int(b): k for k, b in enumerate(got)}
        self._rows = np.array([where[b.id] for b in bodies], dtype=np.int64)
        self._pose = np.zeros((len(got), 3))
        self._pose[self._rows, :2] = sc.unit_pos
        self._pose[self._rows, 2] = sc.unit_ang
        self._set = pb.Buffer()
        self._set.set_float_buf(self._pose)
        self._get = pb.Buffer()
        A = pb.ArbiterFields
        self._fields_set = pb.BodyFields.POSITION | pb.BodyFields.ANGLE
        self._fields_get = (A.BODY_A_ID | A.BODY_B_ID | A.CONTACT_COUNT | A.NORMAL | A.DISTANCE_1 | A.DISTANCE_2
                            | A.POINT_A_1 | A.POINT_B_1 | A.POINT_A_2 | A.POINT_B_2)
        self._ghost_body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
        self._ghost = pymunk.Poly(self._ghost_body, box_vertices(*GHOST_HALF))
        self._filter = pymunk.ShapeFilter()
        space.step(1 / 60)

    def frame(self, pos: np.ndarray, ang: np.ndarray, q: dict[str, Any]) -> tuple[int, int]:
        pb, space, flt = self.pb, self.space, self._filter
        self._pose[self._rows, :2] = pos
        self._pose[self._rows, 2] = ang
        pb.set_space_bodies(space, self._fields_set, self._set)
        space.step(1 / 60)  # kinematic bodies at zero velocity: the step only detects
        self._get.clear()
        pb.get_space_arbiters(space, self._fields_get, self._get)
        n_pairs = len(self._get.int_buf()) // (3 * np.dtype(np.uintp).itemsize)
        self._ghost_body.position = tuple(q["ghost"][0])
        self._ghost_body.angle = q["ghost"][1]
        self._ghost.cache_bb()
        space.shape_query(self._ghost)
        space.point_query(tuple(q["point"]), 0.0, flt)
        for o, d in zip(q["ray_o"].tolist(), q["ray_d"].tolist(), strict=True):
            space.segment_query_first(o, (o[0] + RAY_LENGTH * d[0], o[1] + RAY_LENGTH * d[1]), 0.0, flt)
        for o, d in zip(q["rays_o"].tolist(), q["rays_d"].tolist(), strict=True):
            space.segment_query_first(o, (o[0] + RAY_LENGTH * d[0], o[1] + RAY_LENGTH * d[1]), 0.0, flt)
        lo, hi = q["sel"]
        sel = space.bb_query(self.pymunk.BB(lo[0], lo[1], hi[0], hi[1]), flt)
        data = [self.data[s] for s in sel]
        return n_pairs, len(data)


# -- the 3D pile ---------------------------------------------------------------------------------


@dataclass
class PileScene:
    kind: np.ndarray  # 0 box, 1 sphere, 2 capsule, 3 hull
    size: np.ndarray  # (n, 3): box half extents; sphere radius; capsule (radius, half length); hull scale
    hulls: dict[int, np.ndarray]
    pos: np.ndarray
    quat: np.ndarray  # w, x, y, z
    frames: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)


def _normalise(q: np.ndarray) -> np.ndarray:
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def make_pile(n_frames: int, seed: int = 0) -> PileScene:
    rng = np.random.default_rng(seed)
    n = PILE_N
    kind = rng.integers(0, 3, n)
    kind[rng.choice(n, PILE_HULLS, replace=False)] = 3
    size = rng.uniform(0.3, 0.6, (n, 3))
    hulls = {int(i): rng.normal(size=(20, 3)) * size[i, 0] * 0.7 for i in np.flatnonzero(kind == 3)}
    side = math.sqrt(n / 2.0) * 1.2  # a pile two or three layers deep
    pos = np.column_stack([rng.uniform(0, side, (n, 2)), rng.uniform(0.2, 2.2, n)])
    quat = _normalise(rng.normal(size=(n, 4)))
    sc = PileScene(kind, size, hulls, pos, quat)
    p, qq = pos.copy(), quat.copy()
    for _ in range(n_frames):
        p = p + rng.normal(0, 0.03, p.shape)
        p[:, 2] = np.clip(p[:, 2], 0.1, 2.5)
        qq = _normalise(qq + rng.normal(0, 0.02, qq.shape))
        sc.frames.append((p.copy(), qq.copy()))
    return sc


class CwPile:
    name = "collideworld"

    def __init__(self, sc: PileScene) -> None:
        from collideworld import Box, Capsule, ConvexHull, Plane, Sphere, World

        self.w = w = World(dim=3, backend="compiled", manifolds=True)
        self.ids = np.arange(PILE_N)
        w.add(Plane((0.0, 0.0, 1.0), 0.0), id="ground")
        for i in range(PILE_N):
            k, s = int(sc.kind[i]), sc.size[i]
            shape: Any
            if k == 0:
                shape = Box(tuple(s.tolist()))
            elif k == 1:
                shape = Sphere(float(s[0]))
            elif k == 2:
                shape = Capsule((0.0, 0.0, -float(s[1])), (0.0, 0.0, float(s[1])), float(s[0]) * 0.6)
            else:
                shape = ConvexHull(sc.hulls[i])
            w.add(shape, sc.pos[i], quaternion=sc.quat[i], id=i)
        w.step()

    def frame(self, pos: np.ndarray, quat: np.ndarray) -> int:
        self.w.move_many(self.ids, pos, quaternions=quat)
        c = self.w.step()
        return len(c)


class BulletPile:
    name = "pybullet"

    def __init__(self, sc: PileScene) -> None:
        import pybullet as p

        self.p = p
        self.cid = cid = p.connect(p.DIRECT)
        plane = p.createCollisionShape(p.GEOM_PLANE, physicsClientId=cid)
        p.createMultiBody(0, plane, physicsClientId=cid)
        self.bodies = []
        for i in range(PILE_N):
            k, s = int(sc.kind[i]), sc.size[i]
            if k == 0:
                shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=s.tolist(), physicsClientId=cid)
            elif k == 1:
                shape = p.createCollisionShape(p.GEOM_SPHERE, radius=float(s[0]), physicsClientId=cid)
            elif k == 2:
                shape = p.createCollisionShape(p.GEOM_CAPSULE, radius=float(s[0]) * 0.6, height=2 * float(s[1]),
                                               physicsClientId=cid)
            else:
                shape = p.createCollisionShape(p.GEOM_MESH, vertices=sc.hulls[i].tolist(), physicsClientId=cid)
            w, x, y, z = sc.quat[i].tolist()
            self.bodies.append(p.createMultiBody(1.0, shape, basePosition=sc.pos[i].tolist(),
                                                 baseOrientation=[x, y, z, w], physicsClientId=cid))
        p.performCollisionDetection(physicsClientId=cid)

    def frame(self, pos: np.ndarray, quat: np.ndarray) -> int:
        p, cid = self.p, self.cid
        reset = p.resetBasePositionAndOrientation
        xyzw = quat[:, [1, 2, 3, 0]].tolist()
        for b, x, q in zip(self.bodies, pos.tolist(), xyzw, strict=True):
            reset(b, x, q, physicsClientId=cid)
        p.performCollisionDetection(physicsClientId=cid)
        return len(p.getContactPoints(physicsClientId=cid))


# -- running ----------------------------------------------------------------------------------


@dataclass
class RealisticResult:
    key: str
    title: str
    ms: dict[str, list[float]]
    counts: dict[str, list[int]]
    cpu_ms: dict[str, list[float]] = field(default_factory=dict)

    def median(self, name: str, cpu: bool = False) -> float:
        return statistics.median((self.cpu_ms if cpu else self.ms)[name])

    def ratio(self, cpu: bool = False) -> float:
        peer = next(k for k in self.ms if k != "collideworld")
        return self.median(peer, cpu) / self.median("collideworld", cpu)


def _interleave(engines: list[Any], calls: list[Callable[[Any], Any]], warmup: int, log: Any,
                key: str) -> tuple[dict[str, list[float]], dict[str, list[int]], dict[str, list[float]]]:
    ms: dict[str, list[float]] = {e.name: [] for e in engines}
    cpu: dict[str, list[float]] = {e.name: [] for e in engines}
    counts: dict[str, list[int]] = {e.name: [] for e in engines}
    for k, call in enumerate(calls):
        order = engines if k % 2 == 0 else engines[::-1]
        for e in order:
            gc.collect()
            c0 = time.process_time()
            t0 = time.perf_counter()
            got = call(e)
            dt = time.perf_counter() - t0
            dc = time.process_time() - c0
            if k >= warmup:
                ms[e.name].append(dt * 1e3)
                cpu[e.name].append(dc * 1e3)
                counts[e.name].append(got if isinstance(got, int) else got[0])
        if log is not None:
            print(f"  [{key}] frame {k:3d}  " + "  ".join(f"{n} {v[-1]:7.2f} ms" for n, v in ms.items() if v),
                  file=log, flush=True)
    return ms, counts, cpu


def run_rts(frames: int, warmup: int, seed: int = 0, circles_only: bool = False, log: Any = None) -> RealisticResult:
    sc = make_rts(frames + warmup, seed, circles_only)
    engines = [CwRts(sc), PymunkRts(sc)]
    calls = [lambda e, f=f, q=q: e.frame(f[0], f[1], q) for f, q in zip(sc.frames, sc.queries, strict=True)]
    key = "rts-circles" if circles_only else "rts"
    title = ("RTS frame, circles and boxes only (no compounds, no L buildings)" if circles_only
             else "RTS frame: 2,000 units (200 compounds), 80 boxes, 20 L buildings")
    ms, counts, cpu = _interleave(engines, calls, warmup, log, key)
    return RealisticResult(key, title, ms, counts, cpu)


def run_pile(frames: int, warmup: int, seed: int = 0, log: Any = None) -> RealisticResult:
    sc = make_pile(frames + warmup, seed)
    engines = [CwPile(sc), BulletPile(sc)]
    calls = [lambda e, f=f: e.frame(f[0], f[1]) for f in sc.frames]
    ms, counts, cpu = _interleave(engines, calls, warmup, log, "pile")
    return RealisticResult("pile-3d", "3D pile: 1,000 boxes, spheres, capsules, 100 hulls on a plane, contact points",
                           ms, counts, cpu)


def markdown(results: list[RealisticResult]) -> list[str]:
    lines = ["", "## Realistic frames (issue 28)", "",
             "Median ms per frame, engines interleaved; ratio = peer ms / collideworld ms (> 1: collideworld "
             "is faster), by the wall clock and by the process's CPU clock (every engine here runs on one "
             "thread; on a machine shared with busy processes the CPU clock is the fair one). Contacts = mean "
             "contact rows (collideworld: body pairs with points; pymunk: arbiters; pybullet: contact "
             "points). See benchmarks/realistic.py.", "",
             "| workload | collideworld ms | peer | peer ms | ratio | CPU ms cw / peer | ratio (CPU) "
             "| contacts cw / peer |",
             "|---|---:|---|---:|---:|---:|---:|---|"]
    for r in results:
        peer = next(k for k in r.ms if k != "collideworld")
        lines.append(f"| {r.title} | {r.median('collideworld'):.2f} | {peer} | {r.median(peer):.2f} | "
                     f"{r.ratio():.2f} | {r.median('collideworld', True):.2f} / {r.median(peer, True):.2f} | "
                     f"{r.ratio(True):.2f} | {statistics.mean(r.counts['collideworld']):.0f} / "
                     f"{statistics.mean(r.counts[peer]):.0f} |")
    return lines


def run_all(frames: int, warmup: int, seed: int = 0, log: Any = None) -> list[RealisticResult]:
    return [run_rts(frames, warmup, seed, False, log), run_rts(frames, warmup, seed, True, log),
            run_pile(frames, warmup, seed, log)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", choices=["rts", "rts-circles", "pile"], default=None)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    log = None if args.quiet else sys.stdout
    if args.only == "rts":
        res = [run_rts(args.frames, args.warmup, args.seed, False, log)]
    elif args.only == "rts-circles":
        res = [run_rts(args.frames, args.warmup, args.seed, True, log)]
    elif args.only == "pile":
        res = [run_pile(args.frames, args.warmup, args.seed, log)]
    else:
        res = run_all(args.frames, args.warmup, args.seed, log)
    print("\n".join(markdown(res)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
