"""Point, box and shape queries against capsules, segments and 3D hulls run whole on the compiled backend.

Issue 28: these pairs used to come back from the compiled exact tests as
"other" and were settled by the narrowphase on a scratch store from Python
(``overlapping:some`` in ``numpy_path_counts()``, 2-13x the circles-only
time). The compiled kernels now test them in the same call
(``compiled.queries._capsule_hull_test``).

Each answer is checked three ways on seeded random worlds: compiled against
the numpy backend (the same pairs), and both against brute force that knows
nothing of collideworld's kernels. 2D: shapely (the distance from the probe
to the capsule's core segment, minus its radius). 3D: a hand calculation for
points and spheres against capsules (distance to a segment), and a box
against a capsule by the distance from the segment to the box (convex in
the segment's parameter: a ternary search); points inside a hull by scipy's
hull facets; spheres and boxes against hulls by python-fcl's ``collide`` on
the shape grown and shrunk by 1e-6 (a pair where the two disagree is too
close to touching to judge, and left out). Pairs within that band of
touching are left out of the brute-force comparison only; the backends must
agree on every pair.
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

from collideworld import Box, Capsule, Circle, Compound, ConvexHull, HalfPlane, Plane, Polygon, Segment, Sphere, World
from collideworld.queries import numpy_path_counts

BAND = 1e-6
TRIANGLE = [(0.0, 0.0), (0.9, 0.0), (0.1, 0.7)]
PENTAGON = [(0.0, 0.0), (0.8, -0.1), (1.0, 0.6), (0.4, 1.0), (-0.2, 0.5)]
L_SHAPE = [(0.0, 0.0), (1.6, 0.0), (1.6, 0.6), (0.6, 0.6), (0.6, 1.6), (0.0, 1.6)]


def _rot2(a: float) -> np.ndarray:
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def _rot3(q: np.ndarray) -> np.ndarray:
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _both(dim: int) -> tuple[World, World]:
    return World(dim, backend="numpy"), World(dim, backend="compiled")


# -- 2D: capsules, segments, compounds of them, among circles ---------------------------------------

def _world_2d(seed: int) -> tuple[World, World, list[list[tuple[Any, float]]]]:
    """Both backends' worlds and each body's parts as (shapely core, radius)."""
    rng = np.random.default_rng(seed)
    worlds = _both(2)
    parts: list[list[tuple[Any, float]]] = []
    for i in range(160):
        p = rng.uniform(0, 24, 2)
        a = float(rng.uniform(-math.pi, math.pi))
        rot = _rot2(a)
        kind = i % 4
        if kind in (0, 1):
            e0, e1 = rng.uniform(-1.2, 1.2, 2), rng.uniform(-1.2, 1.2, 2)
            r = float(rng.uniform(0.1, 0.6)) if kind == 0 else 0.0
            shape: Any = Capsule(tuple(e0), tuple(e1), r) if kind == 0 else Segment(tuple(e0), tuple(e1))
            parts.append([(LineString([rot @ e0 + p, rot @ e1 + p]), r)])
        elif kind == 2:
            r = float(rng.uniform(0.2, 0.7))
            shape = Circle(r)
            parts.append([(Point(p), r)])
        else:
            # a compound of a capsule and a segment, the segment's part turned by 0.3
            cap, seg = Capsule((-0.5, 0.0), (0.5, 0.2), 0.25), Segment((0.0, -0.6), (0.0, 0.6))
            off = np.array([0.9, 0.1])
            shape = Compound([(cap, (0.0, 0.0)), (seg, tuple(off), 0.3)])
            prot = _rot2(0.3)
            s0 = rot @ (prot @ np.array([0.0, -0.6]) + off) + p
            s1 = rot @ (prot @ np.array([0.0, 0.6]) + off) + p
            parts.append([(LineString([rot @ np.array([-0.5, 0.0]) + p, rot @ np.array([0.5, 0.2]) + p]), 0.25),
                          (LineString([s0, s1]), 0.0)])
        for w in worlds:
            w.add(shape, p, angle=a, id=i)
    return worlds[0], worlds[1], parts


def _flat(parts: list[list[tuple[Any, float]]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every part's core, radius and body, as arrays (shapely's distance then runs over all at once)."""
    cores = np.array([c for body in parts for c, _ in body], dtype=object)
    radii = np.array([r for body in parts for _, r in body])
    owner = np.array([i for i, body in enumerate(parts) for _ in body])
    return cores, radii, owner


def _oracle_2d(flat: tuple[np.ndarray, np.ndarray, np.ndarray], probe: Any, probe_r: float) -> tuple[set[int],
                                                                                                     set[int]]:
    """Bodies surely touched (some part's gap below -BAND) and bodies too close to call, by shapely."""
    cores, radii, owner = flat
    dist = shapely.distance(probe, cores)
    gaps = dist - radii - probe_r
    if isinstance(probe, ShapelyPolygon):
        # a core the polygon meets: as deep as the length of core inside it (a segment crossing it is a sure
        # hit, one touching its outline is not)
        met = dist == 0.0
        gaps[met] -= shapely.length(shapely.intersection(probe, cores[met]))
    sure = set(owner[gaps < -BAND].tolist())
    unsure = set(owner[np.abs(gaps) <= BAND].tolist()) - sure
    return sure, unsure


def _pairs(rows: np.ndarray, ids: np.ndarray) -> list[tuple[int, int]]:
    return list(zip(rows.tolist(), [int(i) for i in ids], strict=True))


def _check_rows(found: list[tuple[int, int]], m: int, oracle: list[tuple[set[int], set[int]]]) -> int:
    """Each probe's hits against brute force (outside its band); returns how many (probe, body) calls were sure."""
    per: list[set[int]] = [set() for _ in range(m)]
    for r, i in found:
        per[r].add(i)
    judged = 0
    for r in range(m):
        sure, unsure = oracle[r]
        assert sure <= per[r], (r, sorted(sure - per[r]))
        assert per[r] <= sure | unsure, (r, sorted(per[r] - sure - unsure))
        judged += len(sure)
    return judged


@pytest.mark.parametrize("seed", [0, 1])
def test_2d_capsules_and_segments_batched_queries_compiled(seed: int) -> None:
    wn, wc, parts = _world_2d(seed)
    rng = np.random.default_rng(100 + seed)
    m = 300
    points = rng.uniform(-1, 25, (m, 2))
    # points near the cores too (on a segment itself: a segment holds its own points)
    lines = [body[0][0] for body in parts if isinstance(body[0][0], LineString)]
    near = np.array([np.asarray(lines[i].interpolate(float(rng.uniform(0, 1)), normalized=True).coords[0])
                     for i in rng.integers(0, len(lines), 60)])
    points = np.concatenate([points, near])
    numpy_path_counts(reset=True)
    got = wc.query_points(points)
    assert numpy_path_counts() == {}
    want = wn.query_points(points)
    assert _pairs(*got) == _pairs(*want)
    flat = _flat(parts)
    oracle = [_oracle_2d(flat, Point(q), 0.0) for q in points]
    # a point on a segment (gap 0) is in the band: the sure hits are those inside a capsule
    assert _check_rows(_pairs(*got), len(points), oracle) > 50

    positions = rng.uniform(-1, 25, (m, 2))
    angles = rng.uniform(-math.pi, math.pi, m)
    probes = [(Circle(0.45), None), (Box((0.6, 0.25)), np.array([[-0.6, -0.25], [0.6, -0.25], [0.6, 0.25],
                                                                   [-0.6, 0.25]])),
              (Polygon(TRIANGLE), np.array(TRIANGLE)), (Polygon(PENTAGON), np.array(PENTAGON))]
    for shape, local in probes:
        numpy_path_counts(reset=True)
        got = wc.query_shapes(shape, positions, angles)
        assert numpy_path_counts() == {}, type(shape).__name__
        assert _pairs(*got) == _pairs(*wn.query_shapes(shape, positions, angles)), type(shape).__name__
        oracle = []
        for pos, a in zip(positions, angles, strict=True):
            if local is None:
                geom, pr = Point(pos), 0.45
            else:
                geom, pr = ShapelyPolygon(local @ _rot2(a).T + pos), 0.0
            oracle.append(_oracle_2d(flat, geom, pr))
        assert _check_rows(_pairs(*got), m, oracle) > 50, type(shape).__name__


def test_2d_single_queries_on_capsules_compiled() -> None:
    wn, wc, parts = _world_2d(3)
    flat = _flat(parts)
    rng = np.random.default_rng(7)
    numpy_path_counts(reset=True)
    judged = 0
    for _ in range(120):
        q = tuple(rng.uniform(-1, 25, 2).tolist())
        got = wc.query_point(q)
        assert got == wn.query_point(q)
        sure, unsure = _oracle_2d(flat, Point(q), 0.0)
        assert sure <= set(got) <= sure | unsure
        judged += len(sure)
        lo = np.array(q)
        hi = lo + rng.uniform(0.0, 1.5, 2)
        got = wc.query_aabb(tuple(lo), tuple(hi))
        assert got == wn.query_aabb(tuple(lo), tuple(hi))
        box = shapely.box(*lo, *hi)
        sure, unsure = _oracle_2d(flat, box, 0.0)
        assert sure <= set(got) <= sure | unsure
        a = float(rng.uniform(-math.pi, math.pi))
        got = wc.query_shape(Polygon(TRIANGLE), q, a)
        assert got == wn.query_shape(Polygon(TRIANGLE), q, a)
        tri = ShapelyPolygon(np.array(TRIANGLE) @ _rot2(a).T + np.array(q))
        sure, unsure = _oracle_2d(flat, tri, 0.0)
        assert sure <= set(got) <= sure | unsure
        judged += len(sure)
    assert numpy_path_counts() == {}
    assert judged > 40


# -- 3D: capsules, segments and hulls among spheres ----------------------------------------------

def _segment_gap(x: np.ndarray, e0: np.ndarray, e1: np.ndarray) -> float:
    d = e1 - e0
    t = float(np.clip(np.dot(x - e0, d) / np.dot(d, d), 0.0, 1.0))
    return float(np.linalg.norm(e0 + t * d - x))


def _box_segment_gap(c: np.ndarray, rot: np.ndarray, half: np.ndarray, e0: np.ndarray, e1: np.ndarray) -> float:
    """Distance from a segment to a box: the distance to a convex set along a segment is convex in t."""
    def dist(t: float) -> float:
        local = rot.T @ (e0 + t * (e1 - e0) - c)
        return float(np.linalg.norm(local - np.clip(local, -half, half)))

    a, b = 0.0, 1.0
    for _ in range(100):
        m1, m2 = a + (b - a) / 3, b - (b - a) / 3
        if dist(m1) <= dist(m2):
            b = m2
        else:
            a = m1
    return min(dist(0.0), dist(1.0), dist((a + b) / 2))


def _fcl_hull(verts: np.ndarray) -> tuple[Any, np.ndarray]:
    hull = ScipyHull(verts)
    faces = np.concatenate([np.r_[3, s] for s in hull.simplices]).astype(np.int32)
    return fcl.Convex(verts, len(hull.simplices), faces), hull.equations


def _fcl_hit(a: Any, b: Any) -> bool:
    return bool(fcl.collide(a, b, fcl.CollisionRequest()))


def _world_3d(seed: int) -> tuple[World, World, list[tuple[str, Any]]]:
    rng = np.random.default_rng(seed)
    worlds = _both(3)
    bodies: list[tuple[str, Any]] = []
    for i in range(120):
        p = rng.uniform(0, 9, 3)
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        rot = _rot3(q)
        kind = i % 4
        if kind in (0, 1):
            e0, e1 = rng.uniform(-1.2, 1.2, 3), rng.uniform(-1.2, 1.2, 3)
            r = float(rng.uniform(0.1, 0.6)) if kind == 0 else 0.0
            shape: Any = Capsule(tuple(e0), tuple(e1), r) if kind == 0 else Segment(tuple(e0), tuple(e1))
            w0, w1 = rot @ e0 + p, rot @ e1 + p
            bodies.append(("capsule", (w0, w1, r, ((w0 + w1) / 2, np.linalg.norm(w1 - w0) / 2 + r))))
        elif kind == 2:
            local = rng.uniform(-1.0, 1.0, (14, 3))
            shape = ConvexHull(local)
            world = local @ rot.T + p
            cvx, eq = _fcl_hull(world)
            bodies.append(("hull", (cvx, eq, (p, float(np.max(np.linalg.norm(world - p, axis=1)))))))
        else:
            r = float(rng.uniform(0.2, 0.7))
            shape = Sphere(r)
            bodies.append(("sphere", (p, r, (p, r))))
        for w in worlds:
            w.add(shape, p, quaternion=q, id=i)
    return worlds[0], worlds[1], bodies


def _oracle_3d(bodies: list[tuple[str, Any]], probe: str, c: np.ndarray, size: Any,
               rot: np.ndarray | None = None) -> tuple[set[int], set[int]]:
    """Brute force for one probe: a point (size 0), a sphere (size: radius) or a box (size: half extents)."""
    sure, unsure = set(), set()
    reach = 0.0 if probe == "point" else (size if probe == "sphere" else float(np.linalg.norm(size)))
    for i, (kind, data) in enumerate(bodies):
        centre, bound = data[-1]
        if np.linalg.norm(c - centre) > bound + reach + 1e-3:  # the bounding spheres apart: a sure miss
            continue
        if kind == "hull":
            cvx, eq, _ = data
            if probe == "point":
                s = float(np.max(eq[:, :3] @ c + eq[:, 3]))
                gap = s
            else:
                def make(grow: float) -> Any:
                    if probe == "sphere":
                        return fcl.CollisionObject(fcl.Sphere(size + grow), fcl.Transform(c))
                    return fcl.CollisionObject(fcl.Box(*(2 * (np.asarray(size) + grow))), fcl.Transform(rot, c))
                hull = fcl.CollisionObject(cvx, fcl.Transform())
                big, small = _fcl_hit(make(BAND), hull), _fcl_hit(make(-BAND), hull)
                gap = -1.0 if small else (1.0 if not big else 0.0)
        elif kind == "capsule":
            e0, e1, r, _ = data
            if probe == "box":
                assert rot is not None
                gap = _box_segment_gap(c, rot, np.asarray(size), e0, e1) - r
            else:
                gap = _segment_gap(c, e0, e1) - r - (size if probe == "sphere" else 0.0)
        else:
            centre, r, _ = data
            if probe == "box":
                assert rot is not None
                local = rot.T @ (centre - c)
                gap = float(np.linalg.norm(local - np.clip(local, -np.asarray(size), size))) - r
            else:
                gap = float(np.linalg.norm(centre - c)) - r - (size if probe == "sphere" else 0.0)
        if gap < -BAND:
            sure.add(i)
        elif gap <= BAND:
            unsure.add(i)
    return sure, unsure


def test_3d_capsules_segments_hulls_batched_queries_compiled() -> None:
    wn, wc, bodies = _world_3d(5)
    rng = np.random.default_rng(11)
    m = 300
    points = rng.uniform(0, 9, (m, 3))
    numpy_path_counts(reset=True)
    got = wc.query_points(points)
    assert numpy_path_counts() == {}
    assert _pairs(*got) == _pairs(*wn.query_points(points))
    assert _check_rows(_pairs(*got), m, [_oracle_3d(bodies, "point", c, 0.0) for c in points]) > 20

    positions = rng.uniform(0, 9, (m, 3))
    quats = rng.normal(size=(m, 4))
    quats /= np.linalg.norm(quats, axis=1, keepdims=True)
    for shape, probe, size in ((Sphere(0.5), "sphere", 0.5), (Box((0.6, 0.3, 0.45)), "box", (0.6, 0.3, 0.45))):
        numpy_path_counts(reset=True)
        got = wc.query_shapes(shape, positions, quaternions=quats)
        assert numpy_path_counts() == {}, probe
        assert _pairs(*got) == _pairs(*wn.query_shapes(shape, positions, quaternions=quats)), probe
        oracle = [_oracle_3d(bodies, probe, c, size, _rot3(q)) for c, q in zip(positions, quats, strict=True)]
        assert _check_rows(_pairs(*got), m, oracle) > 50, probe


def test_3d_single_queries_on_capsules_and_hulls_compiled() -> None:
    wn, wc, bodies = _world_3d(6)
    rng = np.random.default_rng(12)
    numpy_path_counts(reset=True)
    judged = 0
    for _ in range(100):
        c = rng.uniform(0, 9, 3)
        got = wc.query_point(tuple(c))
        assert got == wn.query_point(tuple(c))
        sure, unsure = _oracle_3d(bodies, "point", c, 0.0)
        assert sure <= set(got) <= sure | unsure
        judged += len(sure)
        half = rng.uniform(0.1, 0.8, 3)
        got = wc.query_aabb(tuple(c - half), tuple(c + half))
        assert got == wn.query_aabb(tuple(c - half), tuple(c + half))
        sure, unsure = _oracle_3d(bodies, "box", c, half, np.eye(3))
        assert sure <= set(got) <= sure | unsure
        judged += len(sure)
    assert numpy_path_counts() == {}
    assert judged > 20


# -- rays: capsules, segments and simple polygons cast inside the compiled first-hit walk -----------

@pytest.mark.parametrize("dim", [2, 3])
def test_first_hit_walk_casts_capsules_and_simple_polygons(dim: int) -> None:
    """The walk itself casts them and compounds of them (a concave polygon is one), leaving no (ray, body) pair
    for after it, and its first hits are brute force's.

    Brute force: every live body cast by the narrowphase's ray kernel (``raycast_slots``, the numpy
    kernels), no index; nearest first, ties to the body added first.
    """
    from collideworld.narrowphase import raycast_slots
    from collideworld.queries import QueryIndex, _walk_rows
    from collideworld.spatial.compiled import first_hits

    rng = np.random.default_rng(40 + dim)
    w = World(dim, backend="compiled")
    span = 30.0 if dim == 2 else 12.0
    for i in range(240):
        pos = rng.uniform(0, span, dim)
        k = i % 5
        ball = Circle(0.4) if dim == 2 else Sphere(0.4)
        if k == 0:
            shape: Any = Capsule(tuple(rng.uniform(-1, 1, dim)), tuple(rng.uniform(-1, 1, dim)),
                                 float(rng.uniform(0.1, 0.6)))
        elif k == 1:
            shape = Segment(tuple(rng.uniform(-1, 1, dim)), tuple(rng.uniform(-1, 1, dim)))
        elif k == 2 and dim == 2:
            shape = Polygon(PENTAGON if i % 10 == 2 else TRIANGLE)
        elif k == 3 and dim == 2 and i % 10 == 3:
            shape = Polygon(L_SHAPE)  # concave: a compound of its convex pieces in the world
        elif k == 3:
            shape = Compound([(ball, (0.0,) * dim), (Box((0.3,) * dim), (0.8,) + (0.0,) * (dim - 1)),
                              (Segment((0.0,) * dim, (0.0, 0.9) + (0.0,) * (dim - 2)), (-0.7,) + (0.0,) * (dim - 1)),
                              (Capsule((0.0,) * dim, (0.5,) * dim, 0.2), (0.0, -0.9) + (0.0,) * (dim - 2))])
        else:
            shape = Circle(0.5) if dim == 2 else Sphere(0.5)
        if dim == 2:
            w.add(shape, pos, angle=float(rng.uniform(-math.pi, math.pi)), id=i)
        else:
            q = rng.normal(size=4)
            w.add(shape, pos, quaternion=q / np.linalg.norm(q), id=i)
    st = w._store
    index = QueryIndex(st, "compiled")
    grid = index.refresh()
    m = 400
    o = rng.uniform(-3, span + 3, (m, dim))
    d = rng.uniform(0, span, (m, dim)) - o
    d /= np.linalg.norm(d, axis=1)[:, None]
    kind, serial, position, rotation, half, radius, _ = index.packed_views
    bodies = (kind, position, rotation, half, radius, serial, st.simple, *_walk_rows(st, index), st.part_slots,
              st.parts_at, st.n_parts, index.planes, st.plane_normal, st.plane_offset)
    passes = np.ones(len(grid.handles), dtype=bool)
    j, t, _, oray, _ = first_hits(grid.arrays(), bodies, passes, o, d, 25.0, grid.stamp, grid.take_tags(m))
    assert len(oray) == 0  # nothing left for after the walk
    live = st.body_slots()
    hits = 0
    for r in range(m):
        dist, _ = raycast_slots(st, live, o[r], d[r], 25.0)
        ok = np.isfinite(dist)
        if not ok.any():
            assert j[r] < 0, r
            continue
        best = np.lexsort((st.serial[live[ok]], dist[ok]))[0]
        assert abs(t[r] - dist[ok][best]) <= 1e-9 * max(1.0, dist[ok][best]), r
        # the same body, unless another is as near to rounding
        same = np.flatnonzero(np.abs(dist[ok] - t[r]) <= 1e-9 * max(1.0, t[r]))
        assert grid.handles[j[r]] in live[ok][same], r
        hits += 1
    assert hits > m // 4


# -- half-spaces: tested once per batch when no probe can reach them ---------------------------------

@pytest.mark.parametrize("dim", [2, 3])
def test_batched_points_and_shapes_against_a_ground_half_space(dim: int) -> None:
    """Batches wholly above the ground, reaching into it, and touching it (dyadic points on it: touching
    counts) answer as the numpy backend and as the hand calculation (a point is in ``n . p <= offset``)."""
    rng = np.random.default_rng(60 + dim)
    worlds = _both(dim)
    up = np.zeros(dim)
    up[-1] = 1.0
    centres = rng.uniform(0, 10, (30, dim))
    for w in worlds:
        w.add(HalfPlane(tuple(up), -1.0) if dim == 2 else Plane(tuple(up), -1.0), id=-1)
        w.add_many(Circle(0.5) if dim == 2 else Sphere(0.5), centres, ids=range(30))
    above = rng.uniform(0, 10, (200, dim))
    reaching = above.copy()
    reaching[::7, -1] = rng.uniform(-3, -0.5, len(reaching[::7]))
    touching = above.copy()
    touching[::5, -1] = -1.0  # on the ground's boundary, exactly
    judged = 0
    for pts in (above, reaching, touching):
        numpy_path_counts(reset=True)
        got = worlds[1].query_points(pts)
        assert numpy_path_counts() == {}
        assert _pairs(*got) == _pairs(*worlds[0].query_points(pts))
        on_ground = sorted(r for r, i in _pairs(*got) if i == -1)
        assert on_ground == np.flatnonzero(pts[:, -1] <= -1.0).tolist()
        judged += len(on_ground)
        shape = Box((0.5,) * dim)
        kw: dict[str, Any] = {"angles": np.full(len(pts), 0.3)} if dim == 2 else {}
        got = worlds[1].query_shapes(shape, pts, **kw)
        assert _pairs(*got) == _pairs(*worlds[0].query_shapes(shape, pts, **kw))
        # an axis-aligned (3D) or turned (2D) box reaches the ground when its lowest corner does
        low = 0.5 * (abs(math.cos(0.3)) + abs(math.sin(0.3))) if dim == 2 else 0.5
        want = np.flatnonzero(pts[:, -1] - low < -1.0 - 1e-9).tolist()
        near = set(np.flatnonzero(np.abs(pts[:, -1] - low + 1.0) <= 1e-9).tolist())
        got_ground = {r for r, i in _pairs(*got) if i == -1}
        assert set(want) <= got_ground <= set(want) | near
    assert judged > 50
