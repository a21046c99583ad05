"""The compiled fat-box refit handles compounds of simple parts itself: their boxes hold them, by shapely.

An RTS frame moves hundreds of compound units (2-3 circles each); the compiled
refit loop used to hand every compound back to the numpy path
(``tight_bounds`` -> ``BodyStore.aabbs``' recursion over the parts: about
0.25 ms a frame for 200 compounds in ``benchmarks/realistic.py``). Oracle: each
part placed by shapely's affine transforms (rotate the part about the body's
origin, translate), the union's bounds; the fat box must hold them and be no
wider than the fat margin (plus the touching tolerance) allows.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from shapely import affinity
from shapely.geometry import Point
from shapely.geometry import Polygon as ShapelyPolygon

from collideworld import Box, Capsule, Circle, Compound, Polygon, World
from collideworld.compiled.fat_boxes import refit_moved


def _part(rng: np.random.Generator) -> tuple[object, object]:
    """A random simple part and its shapely twin in the body's frame (before its local offset)."""
    k = int(rng.integers(4))
    if k == 0:
        r = float(rng.uniform(0.1, 1.0))
        return Circle(r), ("circle", r)
    if k == 1:
        hx, hy = rng.uniform(0.1, 1.0, 2)
        return Box((float(hx), float(hy))), ShapelyPolygon([(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)])
    if k == 2:
        pts = [(float(math.cos(t)), float(math.sin(t))) for t in np.sort(rng.uniform(0, 2 * math.pi, 5))]
        shape = Polygon(pts)
        return shape, ShapelyPolygon(pts).convex_hull
    r = float(rng.uniform(0.1, 0.5))
    p0, p1 = rng.normal(size=2), rng.normal(size=2)
    return Capsule(tuple(p0), tuple(p1), r), ("capsule", p0, p1, r)


def _oracle_bounds(parts: list, pos: np.ndarray, ang: float) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = np.full(2, np.inf), np.full(2, -np.inf)
    for geom, (ox, oy) in parts:
        if isinstance(geom, tuple) and geom[0] == "circle":
            c = affinity.translate(affinity.rotate(Point(ox, oy), ang, origin=(0, 0), use_radians=True), *pos)
            b = (c.x - geom[1], c.y - geom[1], c.x + geom[1], c.y + geom[1])
        elif isinstance(geom, tuple):  # capsule: its end points' box grown by the radius
            _, p0, p1, r = geom
            ends = [affinity.translate(affinity.rotate(Point(p[0] + ox, p[1] + oy), ang, origin=(0, 0),
                                                       use_radians=True), *pos) for p in (p0, p1)]
            b = (min(e.x for e in ends) - r, min(e.y for e in ends) - r, max(e.x for e in ends) + r,
                 max(e.y for e in ends) + r)
        else:
            placed = affinity.translate(affinity.rotate(affinity.translate(geom, ox, oy), ang, origin=(0, 0),
                                                        use_radians=True), *pos)
            b = placed.bounds
        lo = np.minimum(lo, b[:2])
        hi = np.maximum(hi, b[2:])
    return lo, hi


@pytest.mark.parametrize("seed", [0, 1])
def test_compiled_refit_boxes_compounds_and_they_hold_them(seed: int) -> None:
    rng = np.random.default_rng(280 + seed)
    n = 100
    w = World(dim=2, backend="compiled")
    shapes, twins = [], []
    for _ in range(n):
        parts, twin = [], []
        for _ in range(int(rng.integers(1, 4))):
            shape, geom = _part(rng)
            off = (float(rng.uniform(-2, 2)), float(rng.uniform(-2, 2)))
            parts.append((shape, off))
            twin.append((geom, off))
        shapes.append(Compound(parts))
        twins.append(twin)
    ids = w.add_many(shapes, rng.uniform(-30, 30, (n, 2)), angles=rng.uniform(-3, 3, n))
    w.step()
    st = w._store
    checked = 0
    for rnd in range(4):
        pos = rng.uniform(-30, 30, (n, 2)) * (1.0 if rnd < 3 else 1e5)
        ang = rng.uniform(-3, 3, n)
        w.move_many(ids, positions=pos, angles=ang)
        slots = st.body_slots()
        assert st.ids[slots].tolist() == ids
        escaped, other = refit_moved(slots, st.kind, st.simple, st.position, st.rotation, st.radius, st.half,
                                     st.seg0, st.seg1, st.world_x, st.world_y, st.static, st.bound_radius,
                                     st.rounding, st.fat_lo.copy(), st.fat_hi.copy(), 0.1, 1e-12,
                                     st.part_slots, st.parts_at, st.n_parts)
        assert not other.any()  # handled by the compiled loop, not handed back to numpy
        assert escaped.all()  # moved far: every fat box refitted
        w.step()  # the world's own refit (compiled backend)
        for k, s in enumerate(slots.tolist()):
            lo, hi = _oracle_bounds(twins[k], pos[k], float(ang[k]))
            scale = np.abs(lo).max() + np.abs(hi).max() + 1.0
            tol = 1e-9 * scale  # shapely's rotation rounds differently from the store's
            slack = 0.1 * st.bound_radius[s] + tol
            assert np.all(st.fat_lo[s] <= lo + tol) and np.all(hi - tol <= st.fat_hi[s]), (k, lo, st.fat_lo[s])
            assert np.all(lo - st.fat_lo[s] <= slack) and np.all(st.fat_hi[s] - hi <= slack)
            checked += 1
        w.validate()
    assert checked == 4 * n


def test_compound_with_a_concave_part_is_handed_back() -> None:
    """A concave polygon part is not a kind the loop boxes: the whole compound goes to the numpy path."""
    w = World(dim=2, backend="compiled")
    ell = Polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)])
    a = w.add(Compound([(Circle(0.5), (0, 0)), (ell, (1, 0))]))
    b = w.add(Compound([(Circle(0.5), (0, 0)), (Box((0.5, 0.5)), (1, 0))]), position=(10, 0))
    w.step()
    w.move_many([a, b], positions=[[20.0, 0.0], [40.0, 0.0]], angles=[0.3, 0.3])
    st = w._store
    slots = st.body_slots()
    _, other = refit_moved(slots, st.kind, st.simple, st.position, st.rotation, st.radius, st.half, st.seg0,
                           st.seg1, st.world_x, st.world_y, st.static, st.bound_radius, st.rounding,
                           st.fat_lo.copy(), st.fat_hi.copy(), 0.1, 1e-12, st.part_slots, st.parts_at, st.n_parts)
    assert other.tolist() == [True, False]
    w.step()
    w.validate()
