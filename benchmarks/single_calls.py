"""One call at a time: ``collide()``, ``distance()`` and ``time_of_impact()`` against their peers (issue 28).

Usage::

    python benchmarks/single_calls.py [--rounds 15] [--calls 200] [--out FILE] [--label TEXT]

Per primitive pair (2D: box-box, circle-box, polygon-circle, capsule-box;
3D: box-box, sphere-box, capsule-box), in one process and interleaved
(every round times every cell once, in turn, so load spikes hit all
alike), the median over rounds of the time per call in microseconds:

- collideworld: ``collide``, ``distance``, ``time_of_impact`` with poses as
  plain tuples, as a user writes them (``((x, y), angle)``,
  ``((x, y, z), (w, x, y, z))``);
- python-fcl: ``fcl.collide`` / ``fcl.distance`` / ``fcl.continuousCollide``
  on ``CollisionObject``s made once; each call first sets both objects'
  transforms (``setTransform`` with ``fcl.Transform``s made once: its
  fastest update);
- coal: ``coal.collide`` / ``coal.distance`` on geometries made once with
  ``Transform3s``s made once (coal has no continuous collision in Python);
- shapely (2D distance only): ``shapely.distance`` on geometries made once
  and already posed (shapely has no pose to update: this favours it).

fcl and coal are 3D libraries: a 2D box is a box of depth 1 there, a circle
a cylinder of height 1, a capsule a capsule turned along x; the 2D polygon
has no row for them. Two pose sets are timed per pair: apart and
overlapping (distance's two paths differ).

Ratios are peer time / collideworld time (> 1: collideworld faster). The
machine's load average (from ``os.getloadavg``) is printed with the table.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import coal
import fcl
import numpy as np
import shapely

# this checkout's collideworld, not an installed one
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import collideworld as cw  # noqa: E402
from collideworld.background import compiled_ready  # noqa: E402

#: Seconds to wait for the background build of the compiled kernels before timing.
READY_WAIT = 600.0

Q_X = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)  # turns a z-axis capsule onto x


def _quat_z(angle: float) -> tuple[float, float, float, float]:
    return (math.cos(angle / 2), 0.0, 0.0, math.sin(angle / 2))


def _qmul(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, float, float, float]:
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return (w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2)


class Pair:
    """One primitive pair: the collideworld shapes and poses, and the peers' objects."""

    def __init__(self, name: str, dim: int, a: Any, b: Any, fa: Any, fb: Any, ca: Any, cb: Any,
                 rot_a: tuple[float, ...], rot_b: tuple[float, ...], sa: Any, sb: Any,
                 pose_a: tuple[Any, Any], pose_b: tuple[Any, Any], end_a: tuple[Any, Any]):
        self.name, self.dim, self.a, self.b = name, dim, a, b
        self.pose_a, self.pose_b, self.end_a = pose_a, pose_b, end_a
        self.fa, self.fb, self.ca, self.cb = fa, fb, ca, cb
        self.rot_a, self.rot_b = rot_a, rot_b  # the peers' extra turn of each shape (a capsule along x)
        self.sa, self.sb = sa, sb  # shapely geometries for pose a and b (2D), or None

    def _q(self, pose: tuple[Any, Any], extra: tuple[float, ...]) -> tuple[float, ...]:
        q = _quat_z(pose[1]) if self.dim == 2 else tuple(pose[1])
        return _qmul(q, extra)

    def _t(self, pose: tuple[Any, Any]) -> list[float]:
        return [*pose[0], 0.0] if self.dim == 2 else list(pose[0])

    def fcl_objects(self) -> tuple[Any, ...]:
        if self.fa is None:
            return ()
        oa = fcl.CollisionObject(self.fa, fcl.Transform())
        ob = fcl.CollisionObject(self.fb, fcl.Transform())
        ta = fcl.Transform(np.array(self._q(self.pose_a, self.rot_a)), np.array(self._t(self.pose_a)))
        tb = fcl.Transform(np.array(self._q(self.pose_b, self.rot_b)), np.array(self._t(self.pose_b)))
        t0 = fcl.Transform(np.array(self._q(self.end_a, self.rot_a)), np.array(self._t(self.end_a)))
        return oa, ob, ta, tb, t0

    def coal_transforms(self) -> tuple[Any, ...]:
        out = []
        for pose, extra in ((self.pose_a, self.rot_a), (self.pose_b, self.rot_b)):
            tf = coal.Transform3s()
            tf.setTranslation(np.array(self._t(pose)))
            w, x, y, z = self._q(pose, extra)
            tf.setQuatRotation(coal.Quaternion(w, x, y, z))
            out.append(tf)
        return tuple(out)


def _pairs(gap: float) -> list[Pair]:
    """The primitive pairs, ``gap`` the x offset added to b (apart when large, overlapping when 0)."""
    rz = (1.0, 0.0, 0.0, 0.0)
    q3 = (math.cos(0.15), math.sin(0.15), 0.0, 0.0)
    out = []

    def box2(hx: float, hy: float) -> Any:
        return fcl.Box(2 * hx, 2 * hy, 1.0), coal.Box(2 * hx, 2 * hy, 1.0)

    def poly(p: tuple[Any, Any], pts: list[tuple[float, float]]) -> Any:
        (x, y), t = p
        c, s = math.cos(t), math.sin(t)
        return shapely.Polygon([(x + c * u - s * v, y + s * u + c * v) for u, v in pts])

    def rect(hx: float, hy: float) -> list[tuple[float, float]]:
        return [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)]

    pa, pb, ea = ((0.0, 0.0), 0.3), ((1.6 + gap, 0.2), 0.1), ((-3.0, 0.0), 0.3)
    fa, ca = box2(1.0, 0.5)
    fb, cb = box2(0.7, 0.4)
    out.append(Pair("2D box-box", 2, cw.Box((1.0, 0.5)), cw.Box((0.7, 0.4)), fa, fb, ca, cb, rz, rz,
                    poly(pa, rect(1.0, 0.5)), poly(pb, rect(0.7, 0.4)), pa, pb, ea))
    pa, pb = ((0.0, 0.0), 0.0), ((1.1 + gap, 0.2), 0.1)
    out.append(Pair("2D circle-box", 2, cw.Circle(0.6), cw.Box((0.7, 0.4)), fcl.Cylinder(0.6, 1.0), fb,
                    coal.Cylinder(0.6, 1.0), cb, rz, rz, shapely.Point(0, 0).buffer(0.6, 64),
                    poly(pb, rect(0.7, 0.4)), pa, pb, ((-3.0, 0.0), 0.0)))
    tri = [(0.0, 0.0), (1.0, 0.0), (0.5, 1.0)]
    pa, pb = ((0.0, 0.0), 0.2), ((1.2 + gap, 0.5), 0.0)
    out.append(Pair("2D polygon-circle", 2, cw.Polygon(tri), cw.Circle(0.5), None, None, None, None, rz, rz,
                    poly(pa, tri), shapely.Point(pb[0]).buffer(0.5, 64), pa, pb, ((-3.0, 0.0), 0.2)))
    pa, pb = ((0.0, 0.0), 0.2), ((1.0 + gap, 0.8), 0.3)
    out.append(Pair("2D capsule-box", 2, cw.Capsule((-0.5, 0.0), (0.5, 0.0), 0.2), cw.Box((0.5, 0.5)),
                    fcl.Capsule(0.2, 1.0), box2(0.5, 0.5)[0], coal.Capsule(0.2, 1.0), box2(0.5, 0.5)[1], Q_X, rz,
                    shapely.LineString([(-0.5 * math.cos(0.2), -0.5 * math.sin(0.2)),
                                        (0.5 * math.cos(0.2), 0.5 * math.sin(0.2))]),
                    poly(pb, rect(0.5, 0.5)), pa, pb, ((-3.0, 0.0), 0.2)))
    one = (1.0, 0.0, 0.0, 0.0)
    pa3, pb3, ea3 = ((0.0, 0.0, 0.0), one), ((1.6 + gap, 0.2, 0.1), q3), ((-3.0, 0.0, 0.0), one)
    out.append(Pair("3D box-box", 3, cw.Box((1.0, 0.5, 0.5)), cw.Box((0.7, 0.4, 0.4)), fcl.Box(2.0, 1.0, 1.0),
                    fcl.Box(1.4, 0.8, 0.8), coal.Box(2.0, 1.0, 1.0), coal.Box(1.4, 0.8, 0.8), rz, rz, None, None,
                    pa3, pb3, ea3))
    pb3 = ((1.1 + gap, 0.2, 0.1), q3)
    out.append(Pair("3D sphere-box", 3, cw.Sphere(0.6), cw.Box((0.7, 0.4, 0.4)), fcl.Sphere(0.6),
                    fcl.Box(1.4, 0.8, 0.8), coal.Sphere(0.6), coal.Box(1.4, 0.8, 0.8), rz, rz, None, None,
                    pa3, pb3, ea3))
    pb3 = ((1.0 + gap, 0.5, 0.1), q3)
    out.append(Pair("3D capsule-box", 3, cw.Capsule((-0.5, 0.0, 0.0), (0.5, 0.0, 0.0), 0.2),
                    cw.Box((0.5, 0.5, 0.5)), fcl.Capsule(0.2, 1.0), fcl.Box(1.0, 1.0, 1.0), coal.Capsule(0.2, 1.0),
                    coal.Box(1.0, 1.0, 1.0), Q_X, rz, None, None, pa3, pb3, ea3))
    return out


def _cells(pair: Pair, case: str) -> dict[tuple[str, str], Callable[[], Any]]:
    """(operation, engine) -> a no-argument call."""
    a, b, pa, pb, ea = pair.a, pair.b, pair.pose_a, pair.pose_b, pair.end_a
    cells: dict[tuple[str, str], Callable[[], Any]] = {
        ("collide", "collideworld"): lambda: cw.collide(a, pa, b, pb),
        ("distance", "collideworld"): lambda: cw.distance(a, pa, b, pb),
    }
    if case == "apart":  # a sweeps from far left onto b
        cells[("time_of_impact", "collideworld")] = lambda: cw.time_of_impact(a, ea, pa, b, pb, pb)
    objs = pair.fcl_objects()
    if objs:
        oa, ob, ta, tb, t0 = objs
        creq, cres = fcl.CollisionRequest(), fcl.CollisionResult()
        dreq, dres = fcl.DistanceRequest(), fcl.DistanceResult()

        def f_collide() -> Any:
            oa.setTransform(ta)
            ob.setTransform(tb)
            return fcl.collide(oa, ob, creq, cres)

        def f_distance() -> Any:
            oa.setTransform(ta)
            ob.setTransform(tb)
            return fcl.distance(oa, ob, dreq, dres)

        def f_toi() -> Any:
            oa.setTransform(t0)  # start pose; the end poses are the call's arguments
            ob.setTransform(tb)
            return fcl.continuousCollide(oa, ta, ob, tb, fcl.ContinuousCollisionRequest(),
                                         fcl.ContinuousCollisionResult())

        cells[("collide", "fcl")] = f_collide
        cells[("distance", "fcl")] = f_distance
        if case == "apart":
            cells[("time_of_impact", "fcl")] = f_toi
        ga, gb = pair.ca, pair.cb
        tfa, tfb = pair.coal_transforms()
        kreq, kres = coal.CollisionRequest(), coal.CollisionResult()
        lreq, lres = coal.DistanceRequest(), coal.DistanceResult()

        def c_collide() -> Any:
            kres.clear()
            return coal.collide(ga, tfa, gb, tfb, kreq, kres)

        def c_distance() -> Any:
            lres.clear()
            return coal.distance(ga, tfa, gb, tfb, lreq, lres)

        cells[("collide", "coal")] = c_collide
        cells[("distance", "coal")] = c_distance
    if pair.sa is not None:
        sa, sb = pair.sa, pair.sb
        if isinstance(a, cw.Capsule):  # a capsule's distance: its core segment's, less the radius
            r = a.radius
            cells[("distance", "shapely")] = lambda: shapely.distance(sa, sb) - r
        else:
            cells[("distance", "shapely")] = lambda: shapely.distance(sa, sb)
    return cells


def _batch_line(rounds: int, clock: Callable[[], float] = time.perf_counter) -> str:
    """``collide_many`` on 10,000 pairs of distinct 2D boxes: parameter arrays (if there) and one shape for all."""
    rng = np.random.default_rng(0)
    n = 10_000
    ha, hb = rng.uniform(0.1, 1.0, (n, 2)), rng.uniform(0.1, 1.0, (n, 2))
    poses_a = (rng.uniform(-2, 2, (n, 2)), rng.uniform(-3, 3, n))
    poses_b = (rng.uniform(-2, 2, (n, 2)), rng.uniform(-3, 3, n))
    calls: dict[str, Callable[[], Any]] = {
        "one Box for all pairs": lambda: cw.collide_many(cw.Box((0.5, 0.5)), poses_a, cw.Box((0.5, 0.5)), poses_b)}
    try:
        from collideworld.collide import ShapeArray
    except ImportError:
        ShapeArray = None  # noqa: N806 (main before issue 28)
    if ShapeArray is not None:
        sa, sb = ShapeArray.boxes(ha), ShapeArray.boxes(hb)
        calls["ShapeArray.boxes (distinct)"] = lambda: cw.collide_many(sa, poses_a, sb, poses_b)
    la, lb = [cw.Box(tuple(h)) for h in ha], [cw.Box(tuple(h)) for h in hb]
    calls["list of 10,000 distinct Box objects"] = lambda: cw.collide_many(la, poses_a, lb, poses_b)
    times: dict[str, list[float]] = {}
    for fn in calls.values():
        fn()
    for _ in range(max(3, rounds // 3)):
        for name, fn in calls.items():
            t0 = clock()
            fn()
            times.setdefault(name, []).append((clock() - t0) * 1e3)
    return "collide_many, 10,000 pairs of 2D boxes (median ms): " + "; ".join(
        f"{name} {statistics.median(v):.2f}" for name, v in times.items())


def _fcl_quat(q: Any) -> Any:
    return np.array([q[0], q[1], q[2], q[3]])


def _many_lines(rounds: int, clock: Callable[[], float]) -> list[str]:
    """``distance_many`` / ``time_of_impact_many`` on 10,000 pairs of distinct boxes against the peers' fastest
    batch ways: shapely's vectorised ``shapely.distance`` on arrays of posed polygons (2D; made once: no posing
    charged to it) and a Python loop over ``fcl.distance`` / ``fcl.continuousCollide`` with objects (and end
    transforms) made once (fcl has no batch call). Pairs are spread over [-8, 8]: most apart, a few
    overlapping (those collideworld finishes with the scalar ``distance()``)."""
    rng = np.random.default_rng(1)
    return [_many_line(dim, rng, rounds, clock) for dim in (2, 3)]


def _many_line(dim: int, rng: np.random.Generator, rounds: int, clock: Callable[[], float]) -> str:
    """One line of :func:`_many_lines`."""
    from collideworld.collide import ShapeArray

    n = 10_000
    ha, hb = rng.uniform(0.1, 1.0, (n, dim)), rng.uniform(0.1, 1.0, (n, dim))
    pa, pb = rng.uniform(-8, 8, (n, dim)), rng.uniform(-8, 8, (n, dim))
    end = pa + rng.uniform(-8, 8, (n, dim))
    if dim == 2:
        ra, rb = rng.uniform(-3, 3, n), rng.uniform(-3, 3, n)
        qa = [_quat_z(float(t)) for t in ra]
        qb = [_quat_z(float(t)) for t in rb]
    else:
        qa_ = rng.normal(size=(n, 4))
        qb_ = rng.normal(size=(n, 4))
        ra = qa_ / np.linalg.norm(qa_, axis=1, keepdims=True)
        rb = qb_ / np.linalg.norm(qb_, axis=1, keepdims=True)
        qa, qb = [tuple(q) for q in ra.tolist()], [tuple(q) for q in rb.tolist()]
    sa, sb = ShapeArray.boxes(ha), ShapeArray.boxes(hb)

    def fbox(h: Any) -> Any:
        return fcl.Box(*(2 * h)) if dim == 3 else fcl.Box(2 * h[0], 2 * h[1], 1.0)

    def t3(p: Any) -> Any:
        return np.array([p[0], p[1], 0.0]) if dim == 2 else np.asarray(p, dtype=float)

    objs = [(fcl.CollisionObject(fbox(ha[k]), fcl.Transform(_fcl_quat(qa[k]), t3(pa[k]))),
             fcl.CollisionObject(fbox(hb[k]), fcl.Transform(_fcl_quat(qb[k]), t3(pb[k]))),
             fcl.Transform(_fcl_quat(qa[k]), t3(end[k]))) for k in range(n)]
    dreq, creq = fcl.DistanceRequest(), fcl.ContinuousCollisionRequest()

    def fcl_distance() -> Any:
        return [fcl.distance(oa, ob, dreq, fcl.DistanceResult()) for oa, ob, _ in objs]

    def fcl_toi() -> Any:
        res = []
        for oa, ob, ta in objs:
            r = fcl.ContinuousCollisionResult()
            fcl.continuousCollide(oa, ta, ob, ob.getTransform(), creq, r)
            res.append(r.time_of_contact if r.is_collide else np.inf)
        return res

    calls: dict[str, Callable[[], Any]] = {
        "collideworld distance_many": lambda: cw.distance_many(sa, (pa, ra), sb, (pb, rb)),
        "fcl.distance loop": fcl_distance,
        "collideworld time_of_impact_many": lambda: cw.time_of_impact_many(sa, (pa, ra), (end, ra), sb,
                                                                           (pb, rb), (pb, rb)),
        "fcl.continuousCollide loop": fcl_toi}
    # the same pairs through the scalar calls, as Box objects and plain-float poses made once (the way to
    # batch before distance_many / time_of_impact_many)
    boxes = [(cw.Box(tuple(ha[k].tolist())), cw.Box(tuple(hb[k].tolist()))) for k in range(n)]

    def plain(p: Any, r: Any) -> Any:
        return (tuple(p.tolist()), float(r)) if dim == 2 else (tuple(p.tolist()), tuple(r.tolist()))

    scalar_poses = [(plain(pa[k], ra[k]), plain(pb[k], rb[k]), plain(end[k], ra[k])) for k in range(n)]

    def scalar_distance() -> Any:
        return [cw.distance(a, p, b, q) for (a, b), (p, q, _) in zip(boxes, scalar_poses, strict=True)]

    def scalar_toi() -> Any:
        return [cw.time_of_impact(a, p, e, b, q, q) for (a, b), (p, q, e) in zip(boxes, scalar_poses, strict=True)]

    calls["collideworld distance() loop"] = scalar_distance
    calls["collideworld time_of_impact() loop"] = scalar_toi
    if dim == 2:
        def corners(h: Any, p: Any, t: Any) -> Any:
            c, s = np.cos(t), np.sin(t)
            local = np.stack([h * [-1, -1], h * [1, -1], h * [1, 1], h * [-1, 1]], axis=1)  # (n, 4, 2)
            x = c[:, None] * local[..., 0] - s[:, None] * local[..., 1] + p[:, None, 0]
            y = s[:, None] * local[..., 0] + c[:, None] * local[..., 1] + p[:, None, 1]
            return shapely.polygons(np.stack([x, y], axis=-1))

        ga, gb = corners(ha, pa, ra), corners(hb, pb, rb)
        calls["shapely.distance (arrays, posed once)"] = lambda ga=ga, gb=gb: shapely.distance(ga, gb)
    overlapping = int((cw.distance_many(sa, (pa, ra), sb, (pb, rb)).distance <= 0).sum())
    hits = int(cw.time_of_impact_many(sa, (pa, ra), (end, ra), sb, (pb, rb), (pb, rb)).hit.sum())
    times: dict[str, list[float]] = {}
    for fn in calls.values():
        fn()
    for _ in range(max(3, rounds // 3)):
        for name, fn in calls.items():
            gc.collect()  # the scalar loops leave garbage whose collection would be charged to the next cell
            t0 = clock()
            fn()
            times.setdefault(name, []).append((clock() - t0) * 1e3)
    med = {k: statistics.median(v) for k, v in times.items()}
    own_d, own_t = med["collideworld distance_many"], med["collideworld time_of_impact_many"]
    parts = []
    for name, v in med.items():
        base = own_t if ("time_of_impact" in name or "continuous" in name) else own_d
        mine = name in ("collideworld distance_many", "collideworld time_of_impact_many")
        parts.append(f"{name} {v:.1f}" + ("" if mine else f" ({v / base:.2f})"))
    return (f"{dim}D, 10,000 pairs of distinct boxes ({overlapping} overlapping, {hits} hits in the motion), "
            f"median ms (ratio peer / collideworld): " + "; ".join(parts))


ENGINES = ("collideworld", "fcl", "coal", "shapely")
OPS = ("collide", "distance", "time_of_impact")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--calls", type=int, default=200, help="calls per timed batch")
    ap.add_argument("--out", default=None, help="append the markdown table to this file")
    ap.add_argument("--label", default="", help="a heading for the table (e.g. the commit)")
    ap.add_argument("--cpu", action="store_true",
                    help="time with the process's CPU clock (every engine here is single-threaded): on a machine "
                         "shared with other busy processes a batch of a few hundred µs is often descheduled, "
                         "which the wall clock charges to whichever cell was running")
    ap.add_argument("--many-only", action="store_true",
                    help="only the batched lines (collide_many, distance_many, time_of_impact_many)")
    args = ap.parse_args(argv)
    clock = time.process_time if args.cpu else time.perf_counter
    if args.many_only:
        cw.collide_many(cw.Box((0.5, 0.5)), np.zeros((2, 2)), cw.Box((0.5, 0.5)), np.zeros((2, 2)))
        t_wait = time.monotonic()
        while not compiled_ready() and time.monotonic() - t_wait < READY_WAIT:
            time.sleep(0.2)
        text = "\n".join([f"load average {os.getloadavg()[0]:.1f} ({'CPU' if args.cpu else 'wall'} clock)", "",
                           _batch_line(args.rounds, clock), "", *_many_lines(args.rounds, clock)]) + "\n"
        print(text)
        if args.out:
            with open(args.out, "a", encoding="utf-8") as fh:
                fh.write("\n" + text)
        return 0
    table: dict[tuple[str, str, str, str], list[float]] = {}
    cells: list[tuple[tuple[str, str, str, str], Callable[[], Any]]] = []
    for case, gap in (("apart", 1.0), ("overlapping", -0.15)):
        for pair in _pairs(gap):
            for (op, engine), fn in _cells(pair, case).items():
                fn()  # compile / warm up
                cells.append(((pair.name, case, op, engine), fn))
    # A fresh process answers on the numpy kernels (or the compiled kernels' plain-Python twins)
    # until the background build has loaded the compiled ones: time only after that.
    t_ready = time.monotonic()
    while not compiled_ready():
        if time.monotonic() - t_ready > READY_WAIT:
            print(f"!!! the compiled kernels were not ready after {READY_WAIT:.0f} s: not timing", file=sys.stderr)
            return 1
        for _, fn in cells:
            fn()
        time.sleep(0.2)
    for _, fn in cells:
        fn()  # the compiled paths' first calls
    load0 = os.getloadavg()
    for _ in range(args.rounds):
        for key, fn in cells:
            t0 = clock()
            for _ in range(args.calls):
                fn()
            table.setdefault(key, []).append((clock() - t0) / args.calls * 1e6)
    load1 = os.getloadavg()
    med = {k: statistics.median(v) for k, v in table.items()}
    lines = [f"### {args.label or 'single calls'}", "",
             f"{os.cpu_count()} cores, load average {load0[0]:.1f} before, {load1[0]:.1f} after; "
             f"{args.rounds} interleaved rounds of {args.calls} calls; medians in µs per call "
             f"({'CPU' if args.cpu else 'wall'} clock); "
             f"ratio = peer / collideworld (> 1: collideworld faster).", "",
             "| pair | poses | call | collideworld µs | fcl µs (ratio) | coal µs (ratio) | shapely µs (ratio) |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    names = list(dict.fromkeys(k[0] for k in med))
    for case in ("apart", "overlapping"):
        for name in names:
            for op in OPS:
                own = med.get((name, case, op, "collideworld"))
                if own is None:
                    continue
                row = [name, case, op, f"{own:.1f}"]
                for engine in ENGINES[1:]:
                    t = med.get((name, case, op, engine))
                    row.append("-" if t is None else f"{t:.1f} ({t / own:.2f})")
                lines.append("| " + " | ".join(row) + " |")
    lines += ["", _batch_line(args.rounds, clock), "", *_many_lines(args.rounds, clock)]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "a", encoding="utf-8") as fh:
            fh.write("\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
