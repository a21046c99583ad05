"""Batched rays that just touch a shape far from the world's origin hit it (closed shapes), on both backends.

The numpy ``raycast_many`` moves each (ray, body) row into the ray's own
frame (origin 0, direction +x) and used to take the touching tolerance of
those small local coordinates; the rounding of the move is of the world
coordinates' magnitude, so a ray grazing a body 1e6 from the origin missed
it there while ``raycast`` hit it.

Each case: a random direction ``d``, the shape's support point ``p`` in a
normal ``n`` of ``d`` (so the line through ``p`` along ``d`` is a supporting
line: it touches the shape and does not enter it), a ray from ``p - 7.3 d``
(rounded at 1e6) and a control ray moved out by 1e-6 along ``n``. The
expected answer comes from shapely (2D: the distance from the ray's segment
to the shape's core, minus the core's radius) or from exact rational
arithmetic (3D: the distance from the box corner to the segment), never
from collideworld: touching (below 1e-9, far under the touching tolerance
of 1e-14 of 1e6) must hit, the control (above 1e-7) must miss.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Point
from shapely.geometry import Polygon as ShapelyPolygon

from collideworld import Box, Capsule, Circle, Compound, Cone, Cylinder, Polygon, Segment, World

FAR = np.array([1e6, 0.7e6])
REACH = 7.3
LIMIT = 20.0

# each kind: the collideworld shape and its pieces in local coordinates (points, radius): a convex core
# (one point, a segment, a convex polygon) grown by the radius
L_SHAPE = [[-1, -1], [1, -1], [1, 0], [0, 0], [0, 1], [-1, 1]]
KINDS_2D = {
    "box": (Box((1.0, 0.5)), [([[-1, -0.5], [1, -0.5], [1, 0.5], [-1, 0.5]], 0.0)]),
    "polygon": (Polygon([[-1, -1], [1.5, -1], [1, 1], [-1, 1.25]]),
                [([[-1, -1], [1.5, -1], [1, 1], [-1, 1.25]], 0.0)]),
    "concave": (Polygon(L_SHAPE), [([[-1, -1], [1, -1], [1, 0], [0, 0]], 0.0),
                                   ([[-1, -1], [0, 0], [0, 1], [-1, 1]], 0.0)]),
    "circle": (Circle(1.25), [([[0, 0]], 1.25)]),
    "capsule": (Capsule((-1, 0), (1, 0.5), 0.75), [([[-1, 0], [1, 0.5]], 0.75)]),
    "segment": (Segment((-1, 0.5), (1, -0.5)), [([[-1, 0.5], [1, -0.5]], 0.0)]),
    "compound": (Compound([(Box((0.5, 0.5)), (0.5, 0.5)), (Circle(0.5), (-0.5, -0.5))]),
                 [([[0, 0], [1, 0], [1, 1], [0, 1]], 0.0), ([[-0.5, -0.5]], 0.5)]),
}


def _core(points: list[list[float]]) -> shapely.Geometry:
    if len(points) == 1:
        return Point(points[0])
    if len(points) == 2:
        return LineString(points)
    return ShapelyPolygon(points)


def _cases(pieces: list[tuple[list[list[float]], float]], seed: int, count: int) -> tuple[np.ndarray, ...]:
    """Touching rays and their controls: (origins (2K, 2), directions (2K, 2), oracle gaps (2K,))."""
    rng = np.random.default_rng(seed)
    world_pieces = [(FAR + np.asarray(p, dtype=float), r) for p, r in pieces]
    origins, directions, gaps = [], [], []
    for _ in range(count):
        a = rng.uniform(-math.pi, math.pi)
        d = np.array([math.cos(a), math.sin(a)])
        n = np.array([-d[1], d[0]]) * rng.choice([-1.0, 1.0])
        # the support point of the union of the pieces in the direction n
        best = max(((float(np.max(pts @ n)) + r, pts[np.argmax(pts @ n)] + r * n) for pts, r in world_pieces),
                   key=lambda x: x[0])
        for o in (best[1] - REACH * d, best[1] - REACH * d + 1e-6 * n):
            seg = LineString([o, o + LIMIT * d])
            gap = min(shapely.distance(seg, _core(pts.tolist())) - r for pts, r in world_pieces)
            origins.append(o)
            directions.append(d)
            gaps.append(gap)
    return np.array(origins), np.array(directions), np.array(gaps)


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
@pytest.mark.parametrize("kind", sorted(KINDS_2D))
def test_raycast_many_hits_touching_shapes_far_out_2d(kind: str, backend: str) -> None:
    shape, pieces = KINDS_2D[kind]
    w = World(2, backend=backend)
    w.add(shape, FAR, angle=0.0, id="far")
    w.add(Circle(0.5), FAR + 50.0, id="other")
    origins, directions, gaps = _cases(pieces, seed=len(kind), count=40)
    touching = gaps <= 1e-9
    assert touching[0::2].all() and (gaps[1::2] > 1e-7).all()  # the construction, by the oracle
    for all_hits in (False, True):
        hits = w.raycast_many(origins, directions, LIMIT, all_hits=all_hits)
        got = np.zeros(len(origins), dtype=bool)
        got[hits.ray] = True
        assert got.tolist() == touching.tolist(), (kind, backend, all_hits, np.flatnonzero(got != touching))
        # the touching point is where the oracle's support point lies, 7.3 along the ray
        assert np.allclose(hits.distance, REACH, atol=1e-6)
    # the single-ray query agrees ray by ray
    single = [len(w.raycast(o, d, LIMIT)) > 0 for o, d in zip(origins, directions, strict=True)]
    assert single == touching.tolist()


def _exact_gap_to_corner(corner: np.ndarray, o: np.ndarray, d: np.ndarray) -> float:
    """Exact distance from a point to the segment o .. o + LIMIT d (rational arithmetic, rounded once)."""
    c = [Fraction(float(x)) for x in corner]
    oo = [Fraction(float(x)) for x in o]
    dd = [Fraction(float(x)) for x in d]
    rel = [ci - oi for ci, oi in zip(c, oo, strict=True)]
    dd2 = sum(x * x for x in dd)
    t = min(max(sum(r * x for r, x in zip(rel, dd, strict=True)) / dd2, Fraction(0)), Fraction(LIMIT))
    gap2 = sum((r - t * x) ** 2 for r, x in zip(rel, dd, strict=True))
    return math.sqrt(float(gap2))


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_raycast_many_hits_touching_box_corner_far_out_3d(backend: str) -> None:
    rng = np.random.default_rng(3)
    center = np.array([1e6, -0.6e6, 0.8e6])
    half = np.array([1.0, 0.5, 0.75])
    w = World(3, backend=backend)
    w.add(Box(tuple(half)), center, id="far")
    w.add(Box((0.5, 0.5, 0.5)), center + 40.0, id="other")
    origins, directions, gaps = [], [], []
    for _ in range(40):
        signs = rng.choice([-1.0, 1.0], 3)
        corner = center + signs * half
        # a direction in the plane normal to the outward diagonal n = signs / sqrt(3): the line touches the
        # corner only (the box lies in n . x <= n . corner)
        n = signs / math.sqrt(3.0)
        u = rng.normal(size=3)
        d = u - (u @ n) * n
        d /= np.linalg.norm(d)
        for o in (corner - REACH * d, corner - REACH * d + 1e-6 * n):
            origins.append(o)
            directions.append(d)
            # (the control's gap to the box is at least its gap to the plane n . x = n . corner, 1e-6 by hand,
            # and its gap to the corner, measured here, is at least that)
            gaps.append(_exact_gap_to_corner(corner, o, d))
    o_arr, d_arr, gap = np.array(origins), np.array(directions), np.array(gaps)
    touching = gap <= 1e-9
    assert touching[0::2].all() and (gap[1::2] > 1e-7).all()
    for all_hits in (False, True):
        hits = w.raycast_many(o_arr, d_arr, LIMIT, all_hits=all_hits)
        got = np.zeros(len(o_arr), dtype=bool)
        got[hits.ray] = True
        assert got.tolist() == touching.tolist(), (backend, all_hits, np.flatnonzero(got != touching))


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
@pytest.mark.parametrize("solid", ["cylinder", "cone"])
def test_raycast_many_hits_touching_cylinders_and_cones_far_out(backend: str, solid: str) -> None:
    """Lines in a plane tangent to the side of an upright cylinder (or a cone at its base rim, where
    the side plane x = c + r meets the base disc at one point), far from the origin: every coordinate
    is a dyadic number, so each line touches the solid exactly (by hand: it lies in the plane
    x = c_x + r, which meets the solid in one point), and the control, 1e-6 further out, misses."""
    rng = np.random.default_rng(5)
    center = np.array([1e6, -0.5e6, 0.75e6])
    r, h = 0.75, 1.25
    shape = Cylinder(r, h) if solid == "cylinder" else Cone(r, h)
    w = World(3, backend=backend)
    w.add(shape, center, id="far")
    w.add(Box((0.5, 0.5, 0.5)), center + 40.0, id="other")
    origins, directions, touching = [], [], []
    for k in range(40):
        axis = k % 2  # the tangent plane x = c_x + sign r, or y = c_y + sign r
        sign = 1.0 if (k // 2) % 2 == 0 else -1.0
        # a cylinder touches along a vertical segment of the plane; a cone only at its base rim point
        z = float(rng.integers(-8, 9)) / 8.0 * h if solid == "cylinder" else -h
        point = center + np.array([0.0, 0.0, z])
        point[axis] += sign * r
        theta = float(rng.integers(-6, 7)) / 16.0
        d = np.zeros(3)
        d[1 - axis], d[2] = math.cos(theta), math.sin(theta)
        if solid == "cone":
            d[1 - axis], d[2] = 1.0, 0.0  # along the base plane: the line meets the cone at the rim point only
        for gap in (0.0, 1e-6):
            o = point - REACH * d
            o[axis] += sign * gap
            origins.append(o)
            directions.append(d)
            touching.append(gap == 0.0)
    o_arr, d_arr = np.array(origins), np.array(directions)
    for all_hits in (False, True):
        hits = w.raycast_many(o_arr, d_arr, LIMIT, all_hits=all_hits)
        got = np.zeros(len(o_arr), dtype=bool)
        got[hits.ray] = True
        assert got.tolist() == touching, (backend, all_hits, np.flatnonzero(got != np.array(touching)))
    for i in range(0, len(o_arr), 7):  # the single raycast agrees
        assert bool(w.raycast(o_arr[i], d_arr[i], LIMIT)) == touching[i], i
