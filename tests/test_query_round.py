"""Point, box and shape queries against cylinders, cones and rounded shapes run whole on the compiled backend.

Issue 29 (and 28's "no cliffs"): these pairs came back from the compiled
exact tests as "other" and were settled by the numpy narrowphase
(``overlapping:some`` in ``numpy_path_counts()``, 3-10x the circles-only
time). ``compiled.query_round.settle_round_rows`` settles them now.

Each answer is checked three ways on seeded worlds: compiled against the
numpy backend (every pair), and both against an independent oracle. 2D
rounded boxes and polygons: shapely's exact distance from the probe to the
core polygon, at most the rounding radius (a rounded shape is the buffered
core). 3D: cylinders and cones against points by their inequalities,
against spheres and boxes by python-fcl's ``collide`` (``fcl.Cylinder``,
``fcl.Cone``) on the probe grown and shrunk by 1e-6; rounded boxes by the
closed-form distance from a point to the core box and fcl's ``distance``
from a box probe to the core box. Pairs within 1e-6 of touching are left out
of the oracle comparison only; touching itself is checked on exact dyadic
configurations (touching counts).
"""

from __future__ import annotations

import math
from typing import Any

import fcl
import numpy as np
import pytest
import shapely
from shapely.geometry import Point
from shapely.geometry import Polygon as ShapelyPolygon

from collideworld import Box, Circle, Cone, Cylinder, Polygon, Sphere, World
from collideworld.bodies import Kind
from collideworld.compiled import query_round as qr
from collideworld.queries import numpy_path_counts

BAND = 1e-6


def test_kind_codes_agree() -> None:
    assert (qr.BALL, qr.BOX, qr.POLYGON, qr.HULL, qr.COMPOUND, qr.CYLINDER, qr.CONE) == (
        Kind.BALL, Kind.BOX, Kind.POLYGON, Kind.HULL, Kind.COMPOUND, Kind.CYLINDER, Kind.CONE)


def _rot2(a: float) -> np.ndarray:
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def _rot3(q: np.ndarray) -> np.ndarray:
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _pairs(rows: np.ndarray, ids: np.ndarray) -> list[tuple[int, int]]:
    return list(zip(rows.tolist(), [int(i) for i in ids], strict=True))


def _check(found: list[tuple[int, int]], gaps: np.ndarray) -> int:
    """Hits ``(probe, body)`` against each pair's gap (m, n) by the oracle; returns how many pairs were judged."""
    got = np.zeros(gaps.shape, dtype=bool)
    for r, i in found:
        got[r, i] = True
    sure, clear = gaps < -BAND, gaps > BAND
    assert not np.any(sure & ~got), np.argwhere(sure & ~got)[:5]
    assert not np.any(clear & got), np.argwhere(clear & got)[:5]
    return int(np.count_nonzero(sure))


# -- 2D: rounded boxes and polygons among circles --------------------------------------------------

def _world_2d(seed: int) -> tuple[World, World, np.ndarray, np.ndarray]:
    """Both backends' worlds, each body's shapely core and its radius (a circle: a point core)."""
    rng = np.random.default_rng(seed)
    worlds = World(2, backend="numpy"), World(2, backend="compiled")
    cores, radii = [], []
    for i in range(150):
        p = rng.uniform(0, 20, 2)
        a = float(rng.uniform(-math.pi, math.pi))
        rot = _rot2(a)
        r = float(rng.uniform(0.05, 0.4))
        if i % 3 == 0:
            half = rng.uniform(0.2, 0.9, 2)
            shape: Any = Box(tuple(half), radius=r)
            local = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * half
        elif i % 3 == 1:
            ang = np.sort(rng.uniform(0, 2 * np.pi, 6)) + np.arange(6) * 1e-3
            local = rng.uniform(0.4, 0.9) * np.c_[np.cos(ang), np.sin(ang)]
            shape = Polygon(local.tolist(), radius=r)
            local = np.array(shapely.convex_hull(shapely.MultiPoint(local)).exterior.coords)[:-1]
        else:
            shape = Circle(r)
            local = np.zeros((1, 2))
        cores.append(ShapelyPolygon(local @ rot.T + p) if len(local) > 1 else Point(p))
        radii.append(r)
        for w in worlds:
            w.add(shape, p, angle=a, id=i)
    return worlds[0], worlds[1], np.array(cores, dtype=object), np.array(radii)


@pytest.mark.parametrize("seed", [0, 1])
def test_2d_rounded_shapes_batched_and_single_queries_compiled(seed: int) -> None:
    wn, wc, cores, radii = _world_2d(seed)
    rng = np.random.default_rng(100 + seed)
    pts = rng.uniform(-0.5, 20.5, (600, 2))
    numpy_path_counts(reset=True)
    found = wc.query_points(pts)
    assert numpy_path_counts() == {}
    assert _pairs(*found) == _pairs(*wn.query_points(pts))
    gaps = np.array([shapely.distance(Point(p), cores) - radii for p in pts])
    judged = _check(_pairs(*found), gaps)
    # the same probes as a rotated box and as a circle, placed many times
    box = Box((0.5, 0.25))
    ang = rng.uniform(-math.pi, math.pi, 300)
    pos = pts[:300]
    found = wc.query_shapes(box, pos, angles=ang)
    assert numpy_path_counts() == {}
    assert _pairs(*found) == _pairs(*wn.query_shapes(box, pos, angles=ang))
    probes = [ShapelyPolygon(np.array([[-0.5, -0.25], [0.5, -0.25], [0.5, 0.25], [-0.5, 0.25]]) @ _rot2(a).T + p)
              for p, a in zip(pos, ang, strict=True)]
    judged += _check(_pairs(*found), np.array([shapely.distance(pr, cores) - radii for pr in probes]))
    found = wc.query_shapes(Circle(0.3), pos)
    assert _pairs(*found) == _pairs(*wn.query_shapes(Circle(0.3), pos))
    judged += _check(_pairs(*found), np.array([shapely.distance(Point(p), cores) - radii - 0.3 for p in pos]))
    # single calls: a point, an axis-aligned box, a polygon probe
    tri = [(0.0, 0.0), (0.9, 0.0), (0.1, 0.7)]
    for p in pts[:80]:
        got = wc.query_point(p)
        assert got == wn.query_point(p)
        g = shapely.distance(Point(p), cores) - radii
        assert set(np.flatnonzero(g < -BAND).tolist()) <= set(got) <= set(np.flatnonzero(g <= BAND).tolist())
        got_box = wc.query_aabb(p - 0.3, p + 0.3)
        assert got_box == wn.query_aabb(p - 0.3, p + 0.3)
        g = shapely.distance(shapely.box(*(p - 0.3), *(p + 0.3)), cores) - radii
        assert set(np.flatnonzero(g < -BAND).tolist()) <= set(got_box) <= set(np.flatnonzero(g <= BAND).tolist())
        got_tri = wc.query_shape(Polygon(tri), p, 0.7)
        assert got_tri == wn.query_shape(Polygon(tri), p, 0.7)
        g = shapely.distance(ShapelyPolygon(np.array(tri) @ _rot2(0.7).T + p), cores) - radii
        assert set(np.flatnonzero(g < -BAND).tolist()) <= set(got_tri) <= set(np.flatnonzero(g <= BAND).tolist())
    assert numpy_path_counts() == {}
    assert judged > 300


def test_2d_rounded_touching_dyadic() -> None:
    """Exact touching: a rounded box's flat side, its corner arc (a 3-4-5 offset) and a rounded triangle's vertex."""
    for backend in ("compiled", "numpy"):
        w = World(2, backend=backend)
        w.add(Box((1.0, 0.5), radius=0.625), (4.0, 4.0), id="box")
        w.add(Polygon([(0.0, 0.0), (2.0, 0.0), (0.0, 2.0)], radius=0.25), (10.0, 4.0), id="tri")
        numpy_path_counts(reset=True)
        eps = 2.0 ** -30
        touching = [(5.625, 4.0), (4.0, 5.125), (5.375, 5.0), (2.625, 3.0), (9.75, 4.0), (10.0, 3.75)]
        apart = [(5.625 + eps, 4.0), (4.0, 5.125 + eps), (5.375 + eps, 5.0 + eps), (9.75 - eps, 4.0)]
        for p in touching:
            assert w.query_point(p) != [], (backend, p)
        for p in apart:
            assert w.query_point(p) == [], (backend, p)
        rows, ids = w.query_points(np.array(touching + apart))
        assert rows.tolist() == list(range(len(touching)))
        # boxes touching the rounded box's side and corner arc, and one 2^-30 away
        assert w.query_aabb((5.625, 3.0), (6.0, 3.5)) == ["box"]
        assert w.query_aabb((5.375, 5.0), (6.0, 6.0)) == ["box"]
        assert w.query_aabb((5.375 + eps, 5.0 + eps), (6.0, 6.0)) == []
        if backend == "compiled":
            assert numpy_path_counts() == {}


# -- 3D: cylinders, cones and rounded boxes among spheres -------------------------------------------

def _world_3d(seed: int) -> tuple[World, World, list[tuple[str, Any]]]:
    rng = np.random.default_rng(seed)
    worlds = World(3, backend="numpy"), World(3, backend="compiled")
    bodies: list[tuple[str, Any]] = []
    for i in range(120):
        p = rng.uniform(0, 8, 3)
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        rot = _rot3(q)
        kind = i % 4
        r, h = float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.2, 0.8))
        if kind == 0:
            shape: Any = Cylinder(r, h)
            bodies.append(("cylinder", (p, rot, r, h, fcl.Cylinder(r, 2 * h))))
        elif kind == 1:
            shape = Cone(r, h)
            bodies.append(("cone", (p, rot, r, h, fcl.Cone(r, 2 * h))))
        elif kind == 2:
            half = rng.uniform(0.2, 0.7, 3)
            shape = Box(tuple(half), radius=r / 2)
            bodies.append(("rbox", (p, rot, half, r / 2, fcl.Box(*(2 * half)))))
        else:
            shape = Sphere(r)
            bodies.append(("sphere", (p, rot, r)))
        for w in worlds:
            w.add(shape, p, quaternion=q, id=i)
    return worlds[0], worlds[1], bodies


def _fcl_gap(geom: Any, p: np.ndarray, rot: np.ndarray, probe: Any, c: np.ndarray, prot: np.ndarray) -> float:
    """-1 (sure hit), 1 (sure miss) or 0 (within BAND of touching) by fcl.collide on the probe grown and shrunk."""
    body = fcl.CollisionObject(geom, fcl.Transform(rot, p))

    def hit(grow: float) -> bool:
        g = fcl.Sphere(probe + grow) if isinstance(probe, float) else fcl.Box(*(2 * (probe + grow)))
        return bool(fcl.collide(body, fcl.CollisionObject(g, fcl.Transform(prot, c)), fcl.CollisionRequest()))

    return -1.0 if hit(-BAND) else (1.0 if not hit(BAND) else 0.0)


def _gap_3d(kind: str, data: Any, c: np.ndarray, probe: Any, prot: np.ndarray) -> float:
    """The oracle's gap of one body and one probe: a point (probe None), a sphere (float radius), a box (half)."""
    p, rot = data[0], data[1]
    reach = 0.0 if probe is None else (probe if isinstance(probe, float) else float(np.linalg.norm(probe)))
    if np.linalg.norm(c - p) > reach + 2.5:
        return 1.0
    local = rot.T @ (c - p)
    if kind == "sphere":
        if probe is None or isinstance(probe, float):
            return float(np.linalg.norm(c - p)) - data[2] - (probe or 0.0)
        lp = prot.T @ (p - c)
        return float(np.linalg.norm(lp - np.clip(lp, -probe, probe))) - data[2]
    if kind == "rbox":
        half, rr = data[2], data[3]
        if probe is None or isinstance(probe, float):
            return float(np.linalg.norm(local - np.clip(local, -half, half))) - rr - (probe or 0.0)
        res = fcl.DistanceResult()
        d = fcl.distance(fcl.CollisionObject(data[4], fcl.Transform(rot, p)),
                         fcl.CollisionObject(fcl.Box(*(2 * probe)), fcl.Transform(prot, c)), fcl.DistanceRequest(),
                         res)
        return float(d) - rr if d > 0 else -1.0
    r, h = data[2], data[3]
    if probe is None:  # the solid's inequalities
        rho = math.hypot(local[0], local[1])
        if kind == "cylinder":
            return max(rho - r, abs(local[2]) - h)
        return max(-h - local[2], local[2] - h, rho - r * (h - local[2]) / (2 * h))
    return _fcl_gap(data[4], p, rot, probe, c, prot)


@pytest.mark.parametrize("seed", [3])
def test_3d_cylinders_cones_rounded_boxes_queries_compiled(seed: int) -> None:
    wn, wc, bodies = _world_3d(seed)
    rng = np.random.default_rng(200 + seed)
    pts = rng.uniform(-0.5, 8.5, (500, 3))
    eye = np.eye(3)
    numpy_path_counts(reset=True)
    found = wc.query_points(pts)
    assert numpy_path_counts() == {}
    assert _pairs(*found) == _pairs(*wn.query_points(pts))
    gaps = np.array([[_gap_3d(k, d, c, None, eye) for k, d in bodies] for c in pts])
    judged = _check(_pairs(*found), gaps)
    pos = pts[:250]
    found = wc.query_shapes(Sphere(0.4), pos)
    assert _pairs(*found) == _pairs(*wn.query_shapes(Sphere(0.4), pos))
    judged += _check(_pairs(*found), np.array([[_gap_3d(k, d, c, 0.4, eye) for k, d in bodies] for c in pos]))
    quats = rng.normal(size=(len(pos), 4))
    quats /= np.linalg.norm(quats, axis=1)[:, None]
    half = np.array([0.4, 0.25, 0.15])
    found = wc.query_shapes(Box(tuple(half)), pos, quaternions=quats)
    assert _pairs(*found) == _pairs(*wn.query_shapes(Box(tuple(half)), pos, quaternions=quats))
    judged += _check(_pairs(*found), np.array([[_gap_3d(k, d, c, half, _rot3(q)) for k, d in bodies]
                                               for c, q in zip(pos, quats, strict=True)]))
    for c in pts[:60]:
        assert wc.query_point(c) == wn.query_point(c)
        assert wc.query_aabb(c - 0.3, c + 0.3) == wn.query_aabb(c - 0.3, c + 0.3)
        assert wc.query_shape(Box(tuple(half)), c, quaternion=quats[0]) == \
            wn.query_shape(Box(tuple(half)), c, quaternion=quats[0])
    assert numpy_path_counts() == {}
    assert judged > 300


def test_3d_touching_dyadic() -> None:
    """Exact touching of an upright cylinder's side and cap, a cone's base rim and apex, a rounded box's face."""
    for backend in ("compiled", "numpy"):
        w = World(3, backend=backend)
        w.add(Cylinder(1.0, 0.5), (0.0, 0.0, 0.0), id="cyl")
        w.add(Cone(1.0, 1.0), (5.0, 0.0, 0.0), id="cone")
        w.add(Box((0.5, 0.5, 0.5), radius=0.25), (10.0, 0.0, 0.0), id="rbox")
        numpy_path_counts(reset=True)
        eps = 2.0 ** -30
        assert w.query_point((1.0, 0.0, 0.0)) == ["cyl"]
        assert w.query_point((0.0, 0.0, 0.5)) == ["cyl"]
        assert w.query_point((1.0 + eps, 0.0, 0.0)) == []
        assert w.query_point((5.0, 0.0, 1.0)) == ["cone"]
        assert w.query_point((5.0, 0.0, 1.0 + eps)) == []
        assert w.query_point((6.0, 0.0, -1.0)) == ["cone"]
        assert w.query_point((10.75, 0.0, 0.0)) == ["rbox"]
        assert w.query_point((10.75 + eps, 0.0, 0.0)) == []
        # spheres resting on the cylinder's cap, beside its side, on the rounded box's face
        assert w.query_shape(Sphere(0.5), (0.0, 0.0, 1.0)) == ["cyl"]
        assert w.query_shape(Sphere(0.5), (0.0, 0.0, 1.0 + eps)) == []
        assert w.query_shape(Sphere(0.5), (11.25, 0.0, 0.0)) == ["rbox"]
        assert w.query_shape(Sphere(0.5), (11.25 + eps, 0.0, 0.0)) == []
        # boxes on the cylinder's cap and the rounded box's face
        assert w.query_aabb((-0.25, -0.25, 0.5), (0.25, 0.25, 1.0)) == ["cyl"]
        assert w.query_aabb((-0.25, -0.25, 0.5 + eps), (0.25, 0.25, 1.0)) == []
        assert w.query_aabb((10.75, -0.25, -0.25), (11.0, 0.25, 0.25)) == ["rbox"]
        assert w.query_aabb((10.75 + eps, -0.25, -0.25), (11.0, 0.25, 0.25)) == []
        if backend == "compiled":
            assert numpy_path_counts() == {}


# -- rays --------------------------------------------------------------------------------------------

def _ray_check(gap: Any, o: np.ndarray, d: np.ndarray, hit_t: float | None, maxd: float) -> None:
    """One body and one ray against the oracle's gap function (vectorised over points; <= 0: in the solid).

    A hit at ``t``: the point there is on the surface (or ``t`` = 0 with the origin inside), and every point
    of the ray before it is outside (the entry is the first point in). No hit: no point of the ray within the
    limit is inside by more than BAND (sampled)."""
    if hit_t is None:
        ts = np.linspace(0.0, maxd, 400)
        assert np.min(gap(o + ts[:, None] * d)) > -BAND
        return
    g = gap((o + hit_t * d)[None])[0]
    assert abs(g) <= BAND or (hit_t == 0.0 and g <= 0.0), (hit_t, g)
    if hit_t > 0:
        ts = np.linspace(0.0, hit_t, 200)[:-1]
        assert np.min(gap(o + ts[:, None] * d)) > -BAND


def _gap_fn_2d(core: Any, r: float) -> Any:
    return lambda pts: shapely.distance(shapely.points(pts), core) - r


def _gap_fn_3d(kind: str, data: Any) -> Any:
    p, rot = data[0], data[1]

    def gap(pts: np.ndarray) -> np.ndarray:
        local = (pts - p) @ rot
        if kind == "sphere":
            return np.linalg.norm(pts - p, axis=1) - data[2]
        if kind == "rbox":
            return np.linalg.norm(local - np.clip(local, -data[2], data[2]), axis=1) - data[3]
        r, h = data[2], data[3]
        rho = np.hypot(local[:, 0], local[:, 1])
        if kind == "cylinder":
            return np.maximum(rho - r, np.abs(local[:, 2]) - h)
        return np.maximum.reduce([-h - local[:, 2], local[:, 2] - h, rho - r * (h - local[:, 2]) / (2 * h)])

    return gap


@pytest.mark.parametrize("dim", [2, 3])
def test_rays_against_rounded_cylinders_cones_compiled(dim: int) -> None:
    """Every hit of 120 rays against the oracle's gap along the ray; raycast_many's first hits = numpy's."""
    if dim == 2:
        wn, wc, cores, radii = _world_2d(4)
        gaps = [_gap_fn_2d(c, r) for c, r in zip(cores, radii, strict=True)]
        side = 20.0
    else:
        wn, wc, bodies = _world_3d(6)
        gaps = [_gap_fn_3d(k, data) for k, data in bodies]
        side = 8.0
    rng = np.random.default_rng(300 + dim)
    o = rng.uniform(0, side, (600, dim))
    d = rng.normal(size=(600, dim))
    d /= np.linalg.norm(d, axis=1)[:, None]
    maxd = 5.0
    numpy_path_counts(reset=True)
    many_c = wc.raycast_many(o, d, maxd)
    assert numpy_path_counts() == {}
    many_n = wn.raycast_many(o, d, maxd)
    assert many_c.ray.tolist() == many_n.ray.tolist() and list(many_c.id) == list(many_n.id)
    np.testing.assert_allclose(many_c.distance, many_n.distance, rtol=0, atol=1e-9)
    np.testing.assert_allclose(many_c.normal, many_n.normal, rtol=0, atol=1e-6)
    checked = 0
    for k in range(120):
        hits = wc.raycast(o[k], d[k], maxd)
        assert [h.id for h in hits] == [h.id for h in wn.raycast(o[k], d[k], maxd)]
        found = {h.id: h.distance for h in hits}
        for i, gap in enumerate(gaps):
            _ray_check(gap, o[k], d[k], found.get(i), maxd)
            checked += i in found
    assert numpy_path_counts() == {}
    assert checked > 40


def test_rays_touching_dyadic() -> None:
    """Rays grazing a cylinder's cap, a cone's apex, a rounded box's flat side: touching counts."""
    for backend in ("compiled", "numpy"):
        w3 = World(3, backend=backend)
        w3.add(Cylinder(1.0, 0.5), (0.0, 0.0, 0.0), id="cyl")
        w3.add(Cone(1.0, 1.0), (5.0, 0.0, 0.0), id="cone")
        w3.add(Box((0.5, 0.5, 0.5), radius=0.25), (10.0, 0.0, 0.0), id="rbox")
        numpy_path_counts(reset=True)
        hit = w3.raycast((-4.0, 0.0, 0.5), (1.0, 0.0, 0.0), 3.5, all_hits=False)
        assert [(h.id, h.distance) for h in hit] == [("cyl", 3.0)]
        assert w3.raycast((-4.0, 0.0, 0.5 + 2.0 ** -30), (1.0, 0.0, 0.0), 3.5) == []
        hit = w3.raycast((5.0, 0.0, 4.0), (0.0, 0.0, -1.0), 5.0, all_hits=False)
        assert [(h.id, h.distance) for h in hit] == [("cone", 3.0)]
        # along the rounded box's face plane x = 10.75, grazing its flat face (Newton's method converges
        # linearly on a tangent: to about the square root of its tolerance, as the numpy kernel)
        hit = w3.raycast((10.75, 0.0, -3.0), (0.0, 0.0, 1.0), 5.0, all_hits=False)
        assert [h.id for h in hit] == ["rbox"] and abs(hit[0].distance - 2.5) < 1e-5
        hit = w3.raycast((12.0, 0.0, 0.0), (-1.0, 0.0, 0.0), 5.0, all_hits=False)
        assert [h.id for h in hit] == ["rbox"] and abs(hit[0].distance - 1.25) < 1e-12
        w2 = World(2, backend=backend)
        w2.add(Box((1.0, 0.5), radius=0.625), (0.0, 0.0), id="box")
        hit = w2.raycast((0.0, 4.0), (0.0, -1.0), 5.0, all_hits=False)
        assert [h.id for h in hit] == ["box"] and abs(hit[0].distance - 2.875) < 1e-12
        hit = w2.raycast((-5.0, 1.125), (1.0, 0.0), 8.0, all_hits=False)  # grazing the flat top
        assert [h.id for h in hit] == ["box"] and abs(hit[0].distance - 4.0) < 1e-5
        assert w2.raycast((-5.0, 1.125 + 2.0 ** -20), (1.0, 0.0), 8.0) == []
        if backend == "compiled":
            assert numpy_path_counts() == {}
