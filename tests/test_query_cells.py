"""The query kernels settle most candidates of the kinds they hand on, and those kinds answer as oracles say.

Issue 28's matrix (``benchmarks/kinds.py``) had cells over 1.5x their
circles-only time: every grid candidate of a cylinder, cone or rounded
shape was handed on as an "other" pair (the kernels' bounding-ball reject
ran after their "other kind" exit), and every capsule (segment) candidate
past the bounding ball, a chain's three or more segments each, went to
``settle_rows``. Now the reject runs first and a capsule is bounded by its
segment's distance to the probe's centre (``compiled.queries._capsule_bound``):
the tests below count the pairs handed on (a spy on ``settle_rows`` and
``settle_round_rows``) against the pairs an independent count says could
touch, and check every answer against the numpy backend and an oracle:
shapely (2D segments, chains, capsules, compounds of rounded parts: a
rounded part is its core buffered by its radius), python-fcl (3D rounded
hulls: ``fcl.Convex`` of the core, distance to the probe at most the radius;
3D capsules: ``fcl.Capsule``) and exact dyadic touching cases (touching counts).
Issue 29's leftovers: the rounded-hull and rounded-compound oracles.
"""

from __future__ import annotations

import math
from typing import Any

import fcl
import numpy as np
import pytest
import shapely
from scipy.spatial import ConvexHull as ScipyHull
from shapely.geometry import LineString, Point
from shapely.geometry import Polygon as ShapelyPolygon

from collideworld import Box, Capsule, Chain, Circle, Compound, ConvexHull, Polygon, Segment, Sphere, World
from collideworld.compiled import queries as cq
from collideworld.compiled import query_round as qr
from collideworld.queries import numpy_path_counts

BAND = 1e-6
EPS = 2.0 ** -30


def _rot2(a: float) -> np.ndarray:
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def _rot3(q: np.ndarray) -> np.ndarray:
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _pairs(rows: np.ndarray, ids: Any) -> list[tuple[int, int]]:
    return list(zip(rows.tolist(), [int(i) for i in ids], strict=True))


def _check(found: list[tuple[int, int]], gaps: np.ndarray) -> int:
    """Hits ``(probe, body)`` against the oracle's gaps (m, n); returns how many sure hits were judged."""
    got = np.zeros(gaps.shape, dtype=bool)
    for r, i in found:
        got[r, i] = True
    sure, clear = gaps < -BAND, gaps > BAND
    assert not np.any(sure & ~got), np.argwhere(sure & ~got)[:5]
    assert not np.any(clear & got), np.argwhere(clear & got)[:5]
    return int(np.count_nonzero(sure))


class _Spy:
    """Counts the pairs handed to ``settle_rows`` and ``settle_round_rows`` (and keeps the former's slots)."""

    def __init__(self, monkeypatch: Any) -> None:
        self.rows = 0
        self.round_rows = 0
        self.slots: list[int] = []
        real, real_round = cq.settle_rows, qr.settle_round_rows

        def settle(*args: Any) -> Any:
            self.rows += len(args[-1])
            self.slots += args[-1].tolist()
            return real(*args)

        def settle_round(*args: Any) -> Any:
            self.round_rows += len(args[-1])
            return real_round(*args)

        monkeypatch.setattr(cq, "settle_rows", settle)
        monkeypatch.setattr(qr, "settle_round_rows", settle_round)


# -- 2D: segments, capsules, chains and compounds of rounded parts among circles ---------------------

def _world_2d(seed: int) -> tuple[World, World, np.ndarray, np.ndarray, np.ndarray]:
    """Both worlds; per body its shapely core, its radius and whether it is a segment-like kind."""
    rng = np.random.default_rng(seed)
    worlds = World(2, backend="numpy"), World(2, backend="compiled")
    cores: list[Any] = []
    radii: list[float] = []
    segs: list[bool] = []
    for i in range(160):
        p = rng.uniform(0, 20, 2)
        a = float(rng.uniform(-math.pi, math.pi))
        rot = _rot2(a)
        s = float(rng.uniform(0.3, 0.8))
        k = i % 5
        if k == 0:  # a chain (as benchmarks/kinds.py's), its segments at the body's origin
            pts = np.array([(0.0, 0.0), (s, 0.0), (s, s), (2 * s, s)])
            shape: Any = Chain(pts.tolist())
            core, r = LineString(pts @ rot.T + p), 0.0
        elif k == 1:
            shape = Segment((0.0, 0.0), (2 * s, 0.0))
            core, r = LineString(np.array([(0.0, 0.0), (2 * s, 0.0)]) @ rot.T + p), 0.0
        elif k == 2:
            shape = Capsule((0.0, 0.0), (s, 0.0), s / 2)
            core, r = LineString(np.array([(0.0, 0.0), (s, 0.0)]) @ rot.T + p), s / 2
        elif k == 3:  # a compound of a rounded box, a rounded triangle and a circle: one core per part
            tri = [(0.0, 0.0), (0.5, 0.0), (0.0, 0.4)]
            shape = Compound([(Box((0.3, 0.15), radius=0.1), (0.0, 0.0)),
                              (Polygon(tri, radius=0.125), (0.5, 0.0), 0.5),
                              (Circle(0.2), (-0.6, 0.0))])
            box = np.array([[-0.3, -0.15], [0.3, -0.15], [0.3, 0.15], [-0.3, 0.15]])
            tri_w = np.array(tri) @ _rot2(0.5).T + (0.5, 0.0)
            core = [(ShapelyPolygon(box @ rot.T + p), 0.1), (ShapelyPolygon(tri_w @ rot.T + p), 0.125),
                    (Point(np.array([-0.6, 0.0]) @ rot.T + p), 0.2)]
            r = -1.0
        else:
            shape = Circle(s / 2)
            core, r = Point(p), s / 2
        cores.append(core)
        radii.append(r)
        segs.append(k <= 2)
        for w in worlds:
            w.add(shape, p, angle=a, id=i)
    return worlds[0], worlds[1], np.array(cores + [None], dtype=object)[:-1], np.array(radii), np.array(segs)


def _gaps_2d(probe: Any, cores: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """The probe's gap to each body: its distance to the core less the radius (a compound: its nearest part)."""
    out = np.empty(len(cores))
    for i, (core, r) in enumerate(zip(cores, radii, strict=True)):
        if r < 0:
            out[i] = min(shapely.distance(probe, c) - pr for c, pr in core)
        else:
            out[i] = shapely.distance(probe, core) - r
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_2d_segments_chains_capsules_rounded_compounds(seed: int, monkeypatch: Any) -> None:
    """query_points / query_shapes (box, circle, triangle) / single queries on 160 bodies: compiled = numpy =
    shapely; the segment-like candidates handed to settle_rows are only those near touching."""
    wn, wc, cores, radii, segs = _world_2d(seed)
    spy = _Spy(monkeypatch)
    rng = np.random.default_rng(50 + seed)
    pts = rng.uniform(-0.5, 20.5, (500, 2))
    numpy_path_counts(reset=True)
    found = wc.query_points(pts)
    assert numpy_path_counts() == {}
    assert _pairs(*found) == _pairs(*wn.query_points(pts))
    judged = _check(_pairs(*found), np.array([_gaps_2d(Point(p), cores, radii) for p in pts]))
    # a point touches a segment or a chain almost never: none of their pairs needs the exact test
    # (before: every point within a segment's bounding ball was handed on, 463 and 468 pairs here)
    ids = wc._store.ids
    handed = sum(bool(segs[ids[s]]) for s in spy.slots)
    assert handed <= sum(np.count_nonzero(np.abs(_gaps_2d(Point(p), cores, radii)[segs]) < 1e-3) for p in pts)
    box = Box((0.5, 0.25))
    ang = rng.uniform(-math.pi, math.pi, 250)
    pos = pts[:250]
    spy.slots = []
    found = wc.query_shapes(box, pos, angles=ang)
    assert numpy_path_counts() == {}
    assert _pairs(*found) == _pairs(*wn.query_shapes(box, pos, angles=ang))
    local = np.array([[-0.5, -0.25], [0.5, -0.25], [0.5, 0.25], [-0.5, 0.25]])
    gaps = np.array([_gaps_2d(ShapelyPolygon(local @ _rot2(a).T + p), cores, radii)
                     for p, a in zip(pos, ang, strict=True)])
    judged += _check(_pairs(*found), gaps)
    # only segment-like pairs whose centre distance lies between the probe's inner (0.25) and outer
    # (|(0.5, 0.25)|) radii, grown by the capsule's, reach settle_rows; an upper bound: those within 0.56 + r
    centre_gaps = np.array([_gaps_2d(Point(p), cores, radii) for p in pos])[:, segs]
    handed = sum(bool(segs[ids[s]]) for s in spy.slots)
    assert handed <= np.count_nonzero((centre_gaps > 0.25 - 1e-6) & (centre_gaps < 0.56 + 1e-6))
    found = wc.query_shapes(Circle(0.3), pos)
    assert _pairs(*found) == _pairs(*wn.query_shapes(Circle(0.3), pos))
    judged += _check(_pairs(*found), np.array([_gaps_2d(Point(p), cores, radii) - 0.3 for p in pos]))
    tri = [(0.0, 0.0), (0.9, 0.0), (0.1, 0.7)]
    found = wc.query_shapes(Polygon(tri), pos, angles=ang)
    assert _pairs(*found) == _pairs(*wn.query_shapes(Polygon(tri), pos, angles=ang))
    judged += _check(_pairs(*found), np.array([_gaps_2d(ShapelyPolygon(np.array(tri) @ _rot2(a).T + p), cores, radii)
                                               for p, a in zip(pos, ang, strict=True)]))
    for p in pts[:60]:
        got = wc.query_point(p)
        assert got == wn.query_point(p)
        g = _gaps_2d(Point(p), cores, radii)
        assert set(np.flatnonzero(g < -BAND).tolist()) <= set(got) <= set(np.flatnonzero(g <= BAND).tolist())
        got = wc.query_aabb(p - 0.4, p + 0.4)
        assert got == wn.query_aabb(p - 0.4, p + 0.4)
        g = _gaps_2d(shapely.box(*(p - 0.4), *(p + 0.4)), cores, radii)
        assert set(np.flatnonzero(g < -BAND).tolist()) <= set(got) <= set(np.flatnonzero(g <= BAND).tolist())
    assert numpy_path_counts() == {}
    assert judged > 300, judged


def test_2d_segments_and_chains_touching_dyadic() -> None:
    """Exact touching of a chain's segment, a segment's end, a capsule's side and a rounded compound part."""
    for backend in ("compiled", "numpy"):
        w = World(2, backend=backend)
        w.add(Chain([(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (2.0, 1.0)]), (4.0, 4.0), id="chain")
        w.add(Segment((0.0, 0.0), (2.0, 0.0)), (10.0, 4.0), id="seg")
        w.add(Capsule((0.0, 0.0), (1.0, 0.0), 0.5), (10.0, 10.0), id="cap")
        w.add(Compound([(Box((0.5, 0.25), radius=0.25), (0.0, 0.0)), (Circle(0.25), (2.0, 0.0))]), (4.0, 10.0),
              id="comp")
        numpy_path_counts(reset=True)
        for p, ids in [((4.5, 4.0), ["chain"]), ((5.0, 4.75), ["chain"]), ((6.0, 5.0), ["chain"]),
                       ((12.0, 4.0), ["seg"]), ((11.0, 4.0), ["seg"]), ((10.5, 10.5), ["cap"]),
                       ((11.5, 10.0), ["cap"]), ((4.25, 10.5), ["comp"]), ((6.25, 10.0), ["comp"])]:
            assert w.query_point(p) == ids, (backend, p)
        for p in [(4.5, 4.0 + EPS), (5.0 + EPS, 4.75), (12.0 + EPS, 4.0), (10.5, 10.5 + EPS), (4.25, 10.5 + EPS),
                  (6.25 + EPS, 10.0)]:
            assert w.query_point(p) == [], (backend, p)
        # probes resting on them: a box on the chain's top run, a circle on the capsule's side,
        # a box against the rounded box's flat side
        assert w.query_aabb((6.0, 5.0), (6.5, 5.5)) == ["chain"]
        assert w.query_aabb((6.0, 5.0 + EPS), (6.5, 5.5)) == []
        assert w.query_shape(Circle(0.25), (10.5, 10.75)) == ["cap"]
        assert w.query_shape(Circle(0.25), (10.5, 10.75 + EPS)) == []
        assert w.query_shape(Box((0.25, 0.25)), (5.0, 10.0), angle=0.0) == ["comp"]
        assert w.query_shape(Box((0.25, 0.25)), (5.0 + EPS, 10.0), angle=0.0) == []
        rows, _ = w.query_points(np.array([(4.5, 4.0), (12.0, 4.0), (4.5, 4.0 + EPS), (11.5, 10.0)]))
        assert rows.tolist() == [0, 1, 3]
        if backend == "compiled":
            assert numpy_path_counts() == {}


# -- 3D: rounded hulls and capsules among spheres (python-fcl) --------------------------------------

def _fcl_convex(verts: np.ndarray) -> Any:
    hull = ScipyHull(verts)
    faces = np.concatenate([np.r_[3, s] for s in hull.simplices]).astype(np.int32)
    return fcl.Convex(verts, len(hull.simplices), faces)


def _world_3d(seed: int) -> tuple[World, World, list[tuple[str, Any]]]:
    rng = np.random.default_rng(seed)
    worlds = World(3, backend="numpy"), World(3, backend="compiled")
    bodies: list[tuple[str, Any]] = []
    for i in range(120):
        p = rng.uniform(0, 8, 3)
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        s = float(rng.uniform(0.3, 0.8))
        k = i % 3
        if k == 0:
            local = rng.normal(size=(16, 3)) * (s - 0.1) / 2
            r = float(rng.uniform(0.05, 0.25))
            shape: Any = ConvexHull(local, radius=r)
            verts = np.asarray(ScipyHull(local).points)[ScipyHull(local).vertices]
            bodies.append(("hull", (fcl.CollisionObject(_fcl_convex(verts), fcl.Transform(_rot3(q), p)), r, p,
                                    shape.bounding_radius)))
        elif k == 1:
            shape = Capsule((0.0, 0.0, 0.0), (s, 0.0, 0.0), s / 2)
            # fcl's capsule lies along its z axis, centred: turned onto x, moved to the segment's middle
            turn = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])
            centre = p + _rot3(q) @ np.array([s / 2, 0.0, 0.0])
            bodies.append(("capsule", (fcl.CollisionObject(fcl.Capsule(s / 2, s), fcl.Transform(_rot3(q) @ turn,
                                                                                                  centre)), 0.0, p)))
        else:
            shape = Sphere(s / 2)
            bodies.append(("sphere", (fcl.CollisionObject(fcl.Sphere(s / 2), fcl.Transform(np.eye(3), p)), 0.0, p)))
        for w in worlds:
            w.add(shape, p, quaternion=q, id=i)
    return worlds[0], worlds[1], bodies


def _fcl_gaps(bodies: list[tuple[str, Any]], probe: Any, c: np.ndarray, reach: float) -> np.ndarray:
    """Each body's gap to the probe (an fcl geometry posed at c): fcl's distance less the rounding radius;
    -1 when fcl reports the cores overlapping (a sure hit), 1 for bodies far beyond reach."""
    out = np.ones(len(bodies))
    for i, (_, (obj, r, p, *_)) in enumerate(bodies):
        if np.linalg.norm(c - p) > reach + 2.0:
            continue
        d = fcl.distance(obj, probe, fcl.DistanceRequest(), fcl.DistanceResult())
        out[i] = d - r if d > 0 else -1.0
    return out


def test_3d_rounded_hulls_and_capsules_against_fcl(monkeypatch: Any) -> None:
    """Points, spheres and rotated boxes on 120 bodies (rounded 16-point hulls, capsules, spheres):
    compiled = numpy = python-fcl (a rounded hull: fcl.Convex of its core, distance <= its radius);
    only pairs whose bounding balls meet reach settle_round_rows."""
    wn, wc, bodies = _world_3d(7)
    spy = _Spy(monkeypatch)
    rng = np.random.default_rng(77)
    pts = rng.uniform(-0.5, 8.5, (300, 3))
    numpy_path_counts(reset=True)
    found = wc.query_points(pts)
    assert numpy_path_counts() == {}
    assert _pairs(*found) == _pairs(*wn.query_points(pts))
    tiny = fcl.Sphere(1e-9)
    judged = _check(_pairs(*found), np.array([_fcl_gaps(bodies, fcl.CollisionObject(tiny, fcl.Transform(np.eye(3), c)),
                                                        c, 0.0) for c in pts]) - 1e-9)
    # the rounded hulls' pairs handed on are those whose bounding balls meet (independently counted)
    hulls = [i for i, (k, _) in enumerate(bodies) if k == "hull"]
    reach = np.array([bodies[i][1][3] for i in hulls])
    centres = np.array([bodies[i][1][2] for i in hulls])
    near = np.linalg.norm(pts[:, None, :] - centres[None], axis=2) <= reach * (1 + 1e-6)
    assert spy.round_rows <= np.count_nonzero(near)
    pos = pts[:150]
    found = wc.query_shapes(Sphere(0.3), pos)
    assert _pairs(*found) == _pairs(*wn.query_shapes(Sphere(0.3), pos))
    judged += _check(_pairs(*found), np.array([
        _fcl_gaps(bodies, fcl.CollisionObject(fcl.Sphere(0.3), fcl.Transform(np.eye(3), c)), c, 0.3) for c in pos]))
    quats = rng.normal(size=(len(pos), 4))
    quats /= np.linalg.norm(quats, axis=1)[:, None]
    half = np.array([0.4, 0.25, 0.15])
    found = wc.query_shapes(Box(tuple(half)), pos, quaternions=quats)
    assert _pairs(*found) == _pairs(*wn.query_shapes(Box(tuple(half)), pos, quaternions=quats))
    judged += _check(_pairs(*found), np.array([
        _fcl_gaps(bodies, fcl.CollisionObject(fcl.Box(*(2 * half)), fcl.Transform(_rot3(q), c)), c, 0.5)
        for c, q in zip(pos, quats, strict=True)]))
    for c in pts[:40]:
        assert wc.query_point(c) == wn.query_point(c)
        assert wc.query_aabb(c - 0.3, c + 0.3) == wn.query_aabb(c - 0.3, c + 0.3)
    assert numpy_path_counts() == {}
    assert judged > 60, judged


def test_3d_rounded_hull_touching_dyadic() -> None:
    """Cube hulls (+-1) rounded by 3/4 and by 5/8: the face at 1.75, a corner arc (offset (1/2, 1/2, 1/4) from
    the vertex: length 3/4) and an edge arc (offset (3/8, 1/2) from the edge: length 5/8), exact in binary,
    and 2^-30 beyond each."""
    cube = [(x, y, z) for x in (-1.0, 1.0) for y in (-1.0, 1.0) for z in (-1.0, 1.0)]
    for backend in ("compiled", "numpy"):
        w = World(3, backend=backend)
        w.add(ConvexHull(cube, radius=0.75), (0.0, 0.0, 0.0), id="hull")
        w.add(ConvexHull(cube, radius=0.625), (10.0, 0.0, 0.0), id="edge")
        numpy_path_counts(reset=True)
        for p, ids in [((1.75, 0.0, 0.0), ["hull"]), ((1.5, 1.5, 1.25), ["hull"]), ((10.0, 1.375, 1.5), ["edge"])]:
            assert w.query_point(p) == ids, (backend, p)
        for p in [(1.75 + EPS, 0.0, 0.0), (1.5 + EPS, 1.5 + EPS, 1.25), (10.0, 1.375 + EPS, 1.5 + EPS)]:
            assert w.query_point(p) == [], (backend, p)
        assert w.query_shape(Sphere(0.25), (2.0, 0.0, 0.0)) == ["hull"]
        assert w.query_shape(Sphere(0.25), (2.0 + EPS, 0.0, 0.0)) == []
        assert w.query_aabb((1.75, -0.5, -0.5), (2.5, 0.5, 0.5)) == ["hull"]
        assert w.query_aabb((1.75 + EPS, -0.5, -0.5), (2.5, 0.5, 0.5)) == []
        if backend == "compiled":
            assert numpy_path_counts() == {}
