"""The query index rides on the step (issue 28).

After ``step()`` the compiled query index is already up to date: the first
query after a step that moved every body finds the grid ready (the index's
``grid_version`` is the store's, and no query refreshes it). Its answers are
checked against an independent oracle on worlds where every body moves every
frame (circles, rotated boxes, compounds of circles, concave L polygons, a
half-plane): shapely for the polygons' closed sets and the circles by hand
(distance to the centre against the radius), the first ray hit by hand
(circle: the quadratic) and by shapely (the segment's intersection with the
polygon), and against the same world on the numpy backend (bit-identical).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Point
from shapely.geometry import Polygon as SPolygon

from collideworld import Box, Circle, Compound, HalfPlane, Polygon, Sphere, World

SPAN = 40.0
TOL = 1e-9  # a query this near a body's boundary may go either way (none of the seeded ones is)
L_VERTS = [(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)]


def _rot(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s], [s, c]])


def _make(seed, n=240):
    """A compiled and a numpy world with the same bodies, and each body's oracle data (kind, params)."""
    rng = np.random.default_rng(seed)
    spec = []
    for k in range(n):
        kind = ("circle", "box", "compound", "poly")[k % 4]
        if kind == "circle":
            spec.append(("circle", float(rng.uniform(0.3, 0.8))))
        elif kind == "box":
            spec.append(("box", tuple(rng.uniform(0.3, 1.0, 2).tolist())))
        elif kind == "compound":
            r = float(rng.uniform(0.3, 0.6))
            spec.append(("compound", (r, [(1.5 * r * j, 0.0) for j in range(int(rng.integers(2, 4)))])))
        else:
            spec.append(("poly", float(rng.uniform(0.5, 1.2))))
    pos = rng.uniform(0, SPAN, (n, 2))
    ang = rng.uniform(-math.pi, math.pi, n)
    worlds = [World(2, backend=b) for b in ("compiled", "numpy")]
    for w in worlds:
        for k, (kind, p) in enumerate(spec):
            if kind == "circle":
                shape = Circle(p)
            elif kind == "box":
                shape = Box(p)
            elif kind == "compound":
                shape = Compound([(Circle(p[0]), off) for off in p[1]])
            else:
                shape = Polygon([(p * x, p * y) for x, y in L_VERTS])
            w.add(shape, pos[k], angle=float(ang[k]), id=k)
        w.add(HalfPlane((0.0, 1.0), -20.0), id="floor")   # y <= -20: in the index, out of every query's reach
        w.step()
    return rng, worlds, spec, pos, ang


def _parts(spec, pos, ang):
    """Each body's pieces in world coordinates: ('disc', centre, r) or ('poly', shapely polygon)."""
    out = []
    for (kind, p), x, a in zip(spec, pos, ang, strict=True):
        rot = _rot(a)
        if kind == "circle":
            out.append([("disc", x, p)])
        elif kind == "compound":
            out.append([("disc", x + rot @ np.array(off), p[0]) for off in p[1]])
        else:
            local = ([(-p[0], -p[1]), (p[0], -p[1]), (p[0], p[1]), (-p[0], p[1])] if kind == "box"
                     else [(p * u, p * v) for u, v in L_VERTS])
            out.append([("poly", SPolygon([tuple(x + rot @ np.array(v)) for v in local]))])
    return out


def _judge(parts, test):
    """(ids that must be reported, ids that may go either way): ``test(piece)`` gives a signed gap."""
    must, either = set(), set()
    for k, pieces in enumerate(parts):
        gaps = [test(pc) for pc in pieces]
        g = min(gaps)
        if g < -TOL:
            must.add(k)
        elif g <= TOL:
            either.add(k)
    return must, either


def _point_gap(p):
    def gap(pc):
        if pc[0] == "disc":
            return float(np.linalg.norm(p - pc[1])) - pc[2]
        d = pc[1].exterior.distance(Point(p))
        return -d if pc[1].contains(Point(p)) else d
    return gap


def _region_gap(region):
    """Gap to a shapely region (a box or a rotated box): negative when they overlap by more than TOL."""
    def gap(pc):
        if pc[0] == "disc":
            d = region.distance(Point(pc[1]))
            return d - pc[2] if d > 0 else -pc[2]
        return -1.0 if pc[1].intersects(region) and pc[1].intersection(region).area > 1e-12 else (
            0.0 if pc[1].intersects(region) else pc[1].distance(region))
    return gap


def _ray_distance(o, d, limit, pc):
    if pc[0] == "disc":
        c, r = pc[1], pc[2]
        m = o - c
        b = float(m @ d)
        cc = float(m @ m) - r * r
        if cc <= 0:
            return 0.0
        disc = b * b - cc
        if disc < 0 or b > 0:
            return math.inf
        t = -b - math.sqrt(disc)
        return t if t <= limit else math.inf
    poly = pc[1]
    if poly.covers(Point(o)):
        return 0.0
    seg = LineString([tuple(o), tuple(o + limit * d)])
    cut = seg.intersection(poly)
    if cut.is_empty:
        return math.inf
    return min(float(np.linalg.norm(np.array(q) - o)) for q in shapely.get_coordinates(cut))


def _check_frame(rng, worlds, spec, pos, ang):
    cw, nw = worlds
    parts = _parts(spec, pos, ang)
    ids = set(range(len(spec)))
    for _ in range(12):
        p = rng.uniform(0, SPAN, 2)
        got = cw.query_point(p)
        assert got == nw.query_point(p)
        must, either = _judge(parts, _point_gap(p))
        assert must <= set(got) <= must | either

        lo = rng.uniform(0, SPAN - 6, 2)
        hi = lo + rng.uniform(0.5, 6, 2)
        got = cw.query_aabb(lo, hi)
        assert got == nw.query_aabb(lo, hi)
        must, either = _judge(parts, _region_gap(shapely.box(*lo, *hi)))
        assert must <= set(got) <= must | either

        a = float(rng.uniform(-math.pi, math.pi))
        ghost = SPolygon([tuple(p + _rot(a) @ np.array(v)) for v in [(-2, -1), (2, -1), (2, 1), (-2, 1)]])
        got = cw.query_shape(Box((2.0, 1.0)), p, angle=a)
        assert got == nw.query_shape(Box((2.0, 1.0)), p, angle=a)
        must, either = _judge(parts, _region_gap(ghost))
        assert must <= set(got) <= must | either

        d = rng.normal(size=2)
        d /= np.linalg.norm(d)
        hits = cw.raycast(p, d, 15.0, all_hits=False)
        assert [(h.id, h.distance) for h in hits] == [(h.id, h.distance) for h in nw.raycast(p, d, 15.0,
                                                                                              all_hits=False)]
        dist = {k: min(_ray_distance(p, d, 15.0, pc) for pc in parts[k]) for k in ids}
        best = min(dist.values())
        if math.isinf(best):
            assert hits == []
        else:
            assert len(hits) == 1 and abs(hits[0].distance - best) <= 1e-9 * (1 + best)
            assert dist[hits[0].id] <= best + 1e-9 * (1 + best)


@pytest.mark.parametrize("seed", [0, 1])
def test_first_query_after_a_busy_step_finds_the_index_ready_and_answers_as_the_oracle(seed):
    rng, worlds, spec, pos, ang = _make(seed)
    cw = worlds[0]
    cw.query_point((1.0, 1.0))   # a compiled grid exists from here on: the step keeps it
    index, store = cw._index, cw._store
    ids = list(range(len(spec)))
    vel = rng.normal(0.0, 0.3, (len(spec), 2))
    for _frame in range(5):
        pos = pos + vel
        ang = ang + rng.normal(0.0, 0.1, len(ang))
        for w in worlds:
            w.move_many(ids, pos, ang)
            w.step()
        assert index.grid_version == store.version      # ready: brought up to date by the step itself
        before = (index.refreshes, index.rebuilds)
        _check_frame(rng, worlds, spec, pos, ang)
        assert (index.refreshes, index.rebuilds) == before   # no query refreshed it


def test_a_world_never_queried_keeps_no_index_and_moves_between_steps_still_count():
    rng, worlds, spec, pos, ang = _make(2, n=80)
    cw = worlds[0]
    ids = list(range(len(spec)))
    for w in worlds:
        w.move_many(ids, pos + 0.5, ang)
        w.step()
    assert cw._index.refreshes == 0      # never queried: the step leaves the index alone
    pos = pos + 0.5
    cw.query_point((1.0, 1.0))
    # moved after the step, queried before the next one: the query brings the index up to date
    pos = pos + rng.normal(0.0, 2.0, pos.shape)
    for w in worlds:
        w.move_many(ids, pos, ang)
    n = cw._index.refreshes
    _check_frame(rng, worlds, spec, pos, ang)
    assert cw._index.refreshes == n + 1


def test_3d_spheres_and_boxes_after_busy_steps():
    rng = np.random.default_rng(7)
    n = 300
    kinds = rng.integers(0, 2, n)
    size = rng.uniform(0.3, 0.9, (n, 3))
    w = World(3, backend="compiled")
    pos = rng.uniform(0, 20, (n, 3))
    quat = rng.normal(size=(n, 4))
    quat /= np.linalg.norm(quat, axis=1)[:, None]
    for k in range(n):
        w.add(Sphere(float(size[k, 0])) if kinds[k] == 0 else Box(tuple(size[k].tolist())), pos[k],
              quaternion=quat[k], id=k)
    w.step()
    w.query_point((1.0, 1.0, 1.0))
    index = w._index

    def rotation(q):   # (w, x, y, z) -> matrix, by hand
        a, b, c, d = q
        return np.array([[1 - 2 * (c * c + d * d), 2 * (b * c - a * d), 2 * (b * d + a * c)],
                         [2 * (b * c + a * d), 1 - 2 * (b * b + d * d), 2 * (c * d - a * b)],
                         [2 * (b * d - a * c), 2 * (c * d + a * b), 1 - 2 * (b * b + c * c)]])

    for _frame in range(4):
        pos = pos + rng.normal(0.0, 0.3, pos.shape)
        w.move_many(list(range(n)), pos, quaternions=quat)
        w.step()
        assert index.grid_version == w._store.version
        before = index.refreshes
        for _ in range(30):
            p = rng.uniform(0, 20, 3)
            got = set(w.query_point(p))
            must, either = set(), set()
            for k in range(n):
                if kinds[k] == 0:
                    g = float(np.linalg.norm(p - pos[k])) - size[k, 0]
                else:   # the point in the box's frame against its half extents
                    local = rotation(quat[k]).T @ (p - pos[k])
                    g = float(np.max(np.abs(local) - size[k]))
                if g < -TOL:
                    must.add(k)
                elif g <= TOL:
                    either.add(k)
            assert must <= got <= must | either
        assert index.refreshes == before
