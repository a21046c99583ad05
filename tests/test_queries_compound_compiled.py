"""Point, box and shape queries against compounds and concave polygons run whole on the compiled backend.

The compiled queries test a compound body (a world keeps a concave polygon
as one: its convex pieces) by its part slots, so worlds of compounds of
balls, boxes and simple polygons and of concave polygons leave nothing to
the numpy path (``numpy_path_counts()`` stays empty) for ``query_point``,
``query_points``, ``query_aabb``, ``query_shape`` and ``query_shapes``.

Each answer is checked three ways on seeded random worlds: the compiled
backend against the numpy backend (the same pairs), and both against brute
force that knows nothing of collideworld's kernels: shapely in 2D (the
distance from the probe to each part's core, a point, a polygon, minus the
part's radius) and, in 3D, a hand calculation for points (inside a sphere:
the distance to its centre; inside a box: its local coordinates) and
python-fcl's ``collide`` for box probes. Pairs within 1e-7 of touching
(where float rounding, not the rule, would decide) are left out of the
brute-force comparison only, and are few.
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

from collideworld import Box, Circle, Compound, Polygon, Sphere, World
from collideworld.queries import numpy_path_counts

L_SHAPE = [(0.0, 0.0), (1.6, 0.0), (1.6, 0.6), (0.6, 0.6), (0.6, 1.6), (0.0, 1.6)]
TRIANGLE = [(0.0, 0.0), (0.8, 0.0), (0.0, 0.7)]
AMBIGUOUS = 1e-7


def _rot2(a: float) -> np.ndarray:
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def _world_2d(backend: str, seed: int) -> tuple[World, list[list[tuple[shapely.Geometry, float]]], float]:
    """A world of circles, compounds and concave L polygons, and each body's parts as (shapely core, radius)."""
    rng = np.random.default_rng(seed)
    side = 40.0
    w = World(2, backend=backend)
    parts: list[list[tuple[shapely.Geometry, float]]] = []
    for i in range(240):
        p = rng.uniform(0, side, 2)
        a = float(rng.uniform(-math.pi, math.pi))
        rot = _rot2(a)
        kind = i % 3
        if kind == 0:
            r = float(rng.uniform(0.3, 0.8))
            w.add(Circle(r), p, angle=a, id=i)
            parts.append([(Point(p), r)])
        elif kind == 1:
            r = float(rng.uniform(0.2, 0.5))
            offs = [np.array([-0.6, 0.0]), np.array([0.5, 0.2]), np.array([0.0, -0.9])]
            w.add(Compound([(Circle(r), tuple(offs[0])), (Box((0.4, 0.25)), tuple(offs[1]), 0.3),
                            (Polygon(TRIANGLE), tuple(offs[2]))]), p, angle=a, id=i)
            box = np.array([[-0.4, -0.25], [0.4, -0.25], [0.4, 0.25], [-0.4, 0.25]]) @ _rot2(0.3).T + offs[1]
            tri = np.array(TRIANGLE) + offs[2]
            parts.append([(Point(p + rot @ offs[0]), r), (ShapelyPolygon(box @ rot.T + p), 0.0),
                          (ShapelyPolygon(tri @ rot.T + p), 0.0)])
        else:
            w.add(Polygon(L_SHAPE), p, angle=a, id=i)
            parts.append([(ShapelyPolygon(np.array(L_SHAPE) @ rot.T + p), 0.0)])
    return w, parts, side


def _part_gap(probe: shapely.Geometry, core: shapely.Geometry, r: float) -> float:
    """Signed gap (negative: overlap) between the probe and one part (its core grown by r)."""
    if isinstance(core, ShapelyPolygon) and probe.intersects(core):
        if isinstance(probe, Point):  # inside: minus the distance to the outline
            return -float(shapely.distance(probe, core.exterior))
        return -1.0 if float(shapely.intersection(probe, core).area) > 1e-10 else 0.0
    return float(shapely.distance(probe, core)) - r


def _gap(probe: shapely.Geometry, body: list[tuple[shapely.Geometry, float]]) -> float:
    return min(_part_gap(probe, core, r) for core, r in body)


def _pairs(rows: np.ndarray, ids: np.ndarray) -> set[tuple[int, int]]:
    return {(int(r), int(i)) for r, i in zip(rows.tolist(), ids.tolist(), strict=True)}


def _brute_2d(probes: list[shapely.Geometry], parts: list[list[tuple[shapely.Geometry, float]]]
              ) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """(touching pairs, ambiguous pairs) by shapely, (probe index, body id)."""
    tree = shapely.STRtree([shapely.unary_union([c.buffer(r) if r else c for c, r in b]).envelope.buffer(0.1)
                            for b in parts])
    hit, unsure = set(), set()
    for k, probe in enumerate(probes):
        for j in tree.query(probe).tolist():
            g = _gap(probe, parts[j])
            if abs(g) <= AMBIGUOUS:
                unsure.add((k, j))
            elif g < 0:
                hit.add((k, j))
    return hit, unsure


@pytest.mark.parametrize("seed", [0, 1])
def test_points_and_shapes_2d_compounds_and_concave(seed: int) -> None:
    worlds = {b: _world_2d(b, seed) for b in ("numpy", "compiled")}
    _, parts, side = worlds["numpy"]
    rng = np.random.default_rng(100 + seed)
    pts = rng.uniform(0, side, (400, 2))
    poses = rng.uniform(0, side, (300, 2))
    angles = rng.uniform(-math.pi, math.pi, 300)
    probe = Box((0.5, 0.3))
    corners = np.array([[-0.5, -0.3], [0.5, -0.3], [0.5, 0.3], [-0.5, 0.3]])
    answers = {}
    for backend, (w, _, _) in worlds.items():
        numpy_path_counts(reset=True)
        answers[backend] = (_pairs(*w.query_points(pts)), _pairs(*w.query_shapes(probe, poses, angles=angles)),
                            [w.query_point(p) for p in pts[:60]],
                            [w.query_shape(probe, p, angle=float(a))
                             for p, a in zip(poses[:60], angles[:60], strict=True)],
                            [w.query_aabb(p - 0.7, p + 0.7) for p in pts[:60]])
        counts = numpy_path_counts(reset=True)
        if backend == "compiled":
            assert counts == {}, counts
    assert answers["compiled"] == answers["numpy"]
    point_pairs, shape_pairs, single_points, single_shapes, boxes = answers["compiled"]
    hit, unsure = _brute_2d([Point(p) for p in pts], parts)
    assert point_pairs - unsure == hit - unsure and len(hit) > 20
    assert len(unsure) <= 2
    hit, unsure = _brute_2d([ShapelyPolygon(corners @ _rot2(a).T + p) for p, a in zip(poses, angles, strict=True)],
                            parts)
    assert shape_pairs - unsure == hit - unsure and len(hit) > 50
    assert len(unsure) <= 2
    # the single queries are the batch's rows
    assert [sorted(x) for x in single_points] == [sorted(j for k, j in point_pairs if k == i) for i in range(60)]
    assert [sorted(x) for x in single_shapes] == [sorted(j for k, j in shape_pairs if k == i) for i in range(60)]
    hit, unsure = _brute_2d([shapely.box(*(p - 0.7), *(p + 0.7)) for p in pts[:60]], parts)
    got = {(k, j) for k, ids in enumerate(boxes) for j in ids}
    assert got - unsure == hit - unsure


def _quat_matrix(q: np.ndarray) -> np.ndarray:
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _world_3d(backend: str, seed: int) -> tuple[World, list[list[tuple[str, np.ndarray, np.ndarray, Any]]], float]:
    """Spheres and compounds of a sphere and a box; each body's parts as (kind, centre, rotation, size)."""
    rng = np.random.default_rng(seed)
    side = 14.0
    w = World(3, backend=backend)
    parts = []
    for i in range(240):
        p = rng.uniform(0, side, 3)
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        rot = _quat_matrix(q)
        if i % 2 == 0:
            r = float(rng.uniform(0.3, 0.7))
            w.add(Sphere(r), p, quaternion=q, id=i)
            parts.append([("sphere", p, np.eye(3), r)])
        else:
            r = float(rng.uniform(0.2, 0.5))
            half = np.array([0.4, 0.25, 0.3])
            w.add(Compound([(Sphere(r), (-0.6, 0.0, 0.0)), (Box(tuple(half)), (0.5, 0.2, 0.0))]), p, quaternion=q,
                  id=i)
            parts.append([("sphere", p + rot @ np.array([-0.6, 0.0, 0.0]), rot, r),
                          ("box", p + rot @ np.array([0.5, 0.2, 0.0]), rot, half)])
    return w, parts, side


def _fcl_object(kind: str, centre: np.ndarray, rot: np.ndarray, size: Any) -> fcl.CollisionObject:
    geom = fcl.Sphere(float(size)) if kind == "sphere" else fcl.Box(*(2.0 * np.asarray(size)))
    return fcl.CollisionObject(geom, fcl.Transform(rot, centre))


def _fcl_touch(a: fcl.CollisionObject, b: fcl.CollisionObject) -> bool:
    return bool(fcl.collide(a, b, fcl.CollisionRequest(), fcl.CollisionResult()))


@pytest.mark.parametrize("seed", [0])
def test_points_and_shapes_3d_compounds(seed: int) -> None:
    worlds = {b: _world_3d(b, seed) for b in ("numpy", "compiled")}
    _, parts, side = worlds["numpy"]
    rng = np.random.default_rng(200 + seed)
    pts = rng.uniform(0, side, (400, 3))
    poses = rng.uniform(0, side, (200, 3))
    quats = rng.normal(size=(200, 4))
    quats /= np.linalg.norm(quats, axis=1)[:, None]
    half = np.array([0.5, 0.3, 0.4])
    probe = Box(tuple(half))
    answers = {}
    for backend, (w, _, _) in worlds.items():
        numpy_path_counts(reset=True)
        answers[backend] = (_pairs(*w.query_points(pts)), _pairs(*w.query_shapes(probe, poses, quaternions=quats)),
                            [w.query_point(p) for p in pts[:40]])
        counts = numpy_path_counts(reset=True)
        if backend == "compiled":
            assert counts == {}, counts
    assert answers["compiled"] == answers["numpy"]
    point_pairs, shape_pairs, single_points = answers["compiled"]
    # points, by hand: inside a sphere (distance to its centre), inside a box (its local coordinates)
    hit, unsure = set(), set()
    for k, p in enumerate(pts):
        for j, body in enumerate(parts):
            gaps = []
            for kind, c, rot, size in body:
                if kind == "sphere":
                    gaps.append(float(np.linalg.norm(p - c)) - size)
                else:
                    local = np.abs(rot.T @ (p - c)) - size
                    gaps.append(float(np.linalg.norm(np.maximum(local, 0.0))) if (local > 0).any()
                                else float(local.max()))
            g = min(gaps)
            if abs(g) <= AMBIGUOUS:
                unsure.add((k, j))
            elif g < 0:
                hit.add((k, j))
    assert point_pairs - unsure == hit - unsure and len(hit) > 10
    assert [sorted(x) for x in single_points] == [sorted(j for k, j in point_pairs if k == i) for i in range(40)]
    # box probes, by fcl: a pair is ambiguous when a probe grown and shrunk by 1e-7 disagree
    hit, unsure = set(), set()
    objs = [[_fcl_object(*part) for part in body] for body in parts]
    for k, (p, q) in enumerate(zip(poses, quats, strict=True)):
        rot = _quat_matrix(q)
        grown = _fcl_object("box", p, rot, half + AMBIGUOUS)
        shrunk = _fcl_object("box", p, rot, half - AMBIGUOUS)
        for j, body in enumerate(parts):
            if min(np.linalg.norm(c - p) for _, c, _, _ in body) > 3.0:
                continue
            big = any(_fcl_touch(grown, o) for o in objs[j])
            small = any(_fcl_touch(shrunk, o) for o in objs[j])
            if big != small:
                unsure.add((k, j))
            elif big:
                hit.add((k, j))
    assert shape_pairs - unsure == hit - unsure and len(hit) > 20
    assert len(unsure) <= 2
