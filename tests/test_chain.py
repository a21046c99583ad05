"""2D chains: validation, the file form, contacts per segment, the no-snag rule, proximity.

Oracles, none of them collideworld's chain code:

* shapely: a chain is ``LineString(points)`` (closed with ``loop``); a
  circle is its centre and radius (a point within ``r``: exact, no
  polygonised arc), boxes and polygons exact polygons, capsules their core
  segment and radius. Overlap is ``distance <= r`` / ``intersects``,
  distance is shapely's ``distance``;
* per segment: which segments a shape touches is shapely's answer for each
  segment alone;
* hand calculations for the walks: a box resting ``0.01`` deep on a straight
  run has depth ``0.01`` and the face normal ``(0, 1)`` (or the run's unit
  normal) on every segment it touches, wherever it stands.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from shapely.geometry import LineString, Point
from shapely.geometry import Polygon as ShapelyPolygon

from collideworld import (
    Box,
    Capsule,
    Chain,
    Circle,
    Polygon,
    World,
    check_trajectory,
    collide,
    distance,
    time_of_impact,
)
from collideworld.backend import compiled_available
from collideworld.errors import InvalidShapeError, ScenarioError
from collideworld.scenario import read_scenario, replay
from collideworld.scenario.writer import ScenarioWriter
from collideworld.shapes import shape_to_dict

BACKENDS = ["numpy"] + (["compiled"] if compiled_available() else [])


def rot2(a: float) -> np.ndarray:
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def chain_geom(chain: Chain, pos, angle=0.0):
    pts = np.array(chain.points) @ rot2(angle).T + np.asarray(pos, dtype=float)
    if chain.loop:
        pts = np.vstack([pts, pts[:1]])
    return LineString(pts)


def segment_geoms(chain: Chain, pos, angle=0.0):
    pts = np.array(chain.points) @ rot2(angle).T + np.asarray(pos, dtype=float)
    ends = np.roll(pts, -1, axis=0)
    n = len(pts) if chain.loop else len(pts) - 1
    return [LineString([pts[k], ends[k]]) for k in range(n)]


def other_geom(shape, pos, angle):
    """(shapely geometry, radius grown around it) of a circle, box, polygon or capsule."""
    pos = np.asarray(pos, dtype=float)
    if isinstance(shape, Circle):
        return Point(pos), shape.radius
    if isinstance(shape, Capsule):
        p = np.array([shape.p0, shape.p1]) @ rot2(angle).T + pos
        return LineString(p), shape.radius
    if isinstance(shape, Box):
        hx, hy = shape.half_extents
        local = np.array([(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)])
    else:
        local = np.array(shape.vertices)
    return ShapelyPolygon(local @ rot2(angle).T + pos), 0.0


def random_chain(rng, n=None, loop=False):
    n = int(rng.integers(2, 9)) if n is None else n
    if loop:
        n = max(n, 3)
    while True:
        pts = rng.uniform(-3, 3, size=(n, 2)).round(3)
        if all(np.any(pts[k] != pts[k - 1]) for k in range(1, n)) and not (loop and np.all(pts[0] == pts[-1])):
            return Chain(pts.tolist(), loop=loop)


def random_other(rng):
    k = int(rng.integers(4))
    if k == 0:
        return Circle(float(rng.uniform(0.2, 1.0)))
    if k == 1:
        return Box(tuple(rng.uniform(0.2, 1.0, size=2)))
    if k == 2:
        return Capsule((float(rng.uniform(-0.8, 0)), 0.0), (float(rng.uniform(0, 0.8)), 0.0),
                       float(rng.uniform(0.1, 0.5)))
    return Polygon([(-0.6, -0.4), (0.7, -0.3), (0.2, 0.8)])


# -- validation ---------------------------------------------------------------------------


@pytest.mark.parametrize("points, loop, message", [
    ([(0, 0)], False, "Chain needs at least 2 points, got 1"),
    ([(0, 0), (1, 0)], True, "Chain with loop needs at least 3 points, got 2"),
    ([(0, 0), (1, 0), (1, 0), (2, 0)], False, "Chain points[2] equals points[1] (1.0, 0.0)"),
    ([(0, 0), (1, 0), (0, 0)], True, "Chain with loop: points[2] equals points[0]"),
    ([(0, 0), (math.nan, 0)], False, "Chain points[1][0] must be finite"),
    ([(0, 0), (1, 0, 2)], False, "Chain points[1] must have 2 components"),
    ("ab", False, "Chain points must be a list"),
    ([(0, 0), (1, 0)], 1, "Chain loop must be true or false"),
])
def test_bad_chain_is_rejected_naming_the_index(points, loop, message):
    with pytest.raises(InvalidShapeError) as info:
        Chain(points, loop=loop)
    assert message in str(info.value)


def test_chain_value_semantics():
    c = Chain([(0, 0), (1, 0), (2, 1)])
    assert c == Chain([[0.0, 0.0], [1.0, 0.0], [2.0, 1.0]]) and hash(c) == hash(Chain([(0, 0), (1, 0), (2, 1)]))
    assert c != Chain([(0, 0), (1, 0), (2, 1)], loop=True)
    assert len(c.parts) == 2 and len(Chain([(0, 0), (1, 0), (2, 1)], loop=True).parts) == 3
    assert c.dim == 2 and c.bounding_radius == pytest.approx(math.sqrt(5))
    assert shape_to_dict(c) == {"type": "chain", "points": [[0.0, 0.0], [1.0, 0.0], [2.0, 1.0]], "loop": False}
    import pickle
    assert pickle.loads(pickle.dumps(c)) == c


def test_rejected_world_calls_leave_the_world_unchanged():
    w = World(dim=2)
    a = w.add(Chain([(0, 0), (1, 0)]), (0.0, 0.0), static=True)
    with pytest.raises(InvalidShapeError):
        w.set_shape(a, Chain([(0, 0), (0, 0)]))
    with pytest.raises(Exception):  # noqa: B017 - a 3D world refuses a 2D shape
        World(dim=3).add(Chain([(0, 0), (1, 0)]), (0.0, 0.0, 0.0))
    assert len(w) == 1 and w.body(a).shape == Chain([(0, 0), (1, 0)])


# -- the file form --------------------------------------------------------------------------


def test_chain_round_trips_through_a_version_3_file(tmp_path):
    c = Chain([(0, 0), (1, 0), (2, 0.5)], loop=True)
    path = str(tmp_path / "c.jsonl")
    w = ScenarioWriter(path, 2)
    w.write_frame(add=[{"id": "g", "shape": shape_to_dict(c), "position": [0.0, 0.0], "static": True}])
    w.close()
    assert w.version == 3
    frames = list(read_scenario(path))
    assert read_scenario(path).header.version == 3
    assert frames[0].add[0].shape == c


@pytest.mark.parametrize("header, shape, contains", [
    ('{"collideworld_scenario": 2, "dim": 2}', {"type": "chain", "points": [[0, 0], [1, 0]]},
     "shape type 'chain' needs format version 3 (the header says 2)"),
    ('{"collideworld_scenario": 3, "dim": 2}', {"type": "chain", "points": [[0, 0], [1, 0], [1, 0]]},
     "chain points[2] equals points[1]"),
    ('{"collideworld_scenario": 3, "dim": 2}', {"type": "chain", "points": [[0, 0], [1, 0]], "loop": 1},
     "chain loop must be true or false"),
    ('{"collideworld_scenario": 3, "dim": 2}', {"type": "chain", "points": [[0, 0], [1, 0]], "closed": True},
     "unknown key(s) ['closed']"),
    ('{"collideworld_scenario": 3, "dim": 3}', {"type": "chain", "points": [[0, 0], [1, 0]]},
     "shape type 'chain' is 2D, but the world is 3D"),
])
def test_bad_chain_in_a_file_names_the_line(tmp_path, header, shape, contains):
    import json
    path = tmp_path / "bad.jsonl"
    dim = json.loads(header)["dim"]
    path.write_text(header + "\n" + json.dumps({"add": [{"id": "g", "shape": shape, "position": [0] * dim}]})
                    + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        list(read_scenario(str(path)))
    assert info.value.line == 2 and contains.lower() in str(info.value).lower(), str(info.value)


# -- contacts against shapely ------------------------------------------------------------------


def near_touching(g_chain, g_other, r, eps=1e-7):
    """Within eps of touching: the gap, or (a polygon crossing it) the length of segment inside."""
    d = g_chain.distance(g_other)
    if r == 0 and d == 0:
        return g_chain.intersection(g_other).length < eps
    return abs(d - r) < eps


@pytest.mark.parametrize("backend", BACKENDS)
def test_step_contacts_per_segment_agree_with_shapely(backend):
    """300 random chains (some loops) against circles, boxes, capsules and triangles: the set of
    touching segments of every step is shapely's, segment by segment; collide() agrees too."""
    rng = np.random.default_rng(29)
    agree = 0
    for case in range(300):
        chain = random_chain(rng, loop=case % 4 == 0)
        cpos, cang = rng.uniform(-0.5, 0.5, 2), float(rng.uniform(-3, 3))
        other = random_other(rng)
        opos, oang = rng.uniform(-3, 3, 2), float(rng.uniform(-3, 3))
        g, r = other_geom(other, opos, oang)
        segs = segment_geoms(chain, cpos, cang)
        if any(near_touching(s, g, r) for s in segs):
            continue
        expected = {k for k, s in enumerate(segs) if s.distance(g) <= r}
        w = World(dim=2, backend=backend)
        a = w.add(chain, cpos, cang, static=True)
        b = w.add(other, opos, oang)
        got = {c.part_a for c in w.step() if c.a == a and c.b == b}
        assert got == expected, (case, chain, other, opos, oang)
        res = collide(chain, (cpos, cang), other, (opos, oang))
        assert (res is not None) == bool(expected)
        if res is not None:
            assert res.part_a in expected
        agree += 1
    assert agree >= 280


@pytest.mark.parametrize("backend", BACKENDS)
def test_touching_counts(backend):
    """Closed sets: a circle tangent to a segment, a box resting on a chain at depth 0, a chain
    vertex on a box's corner: each is a contact (shapely: distance exactly 0 or r)."""
    chain = Chain([(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (2.0, 1.0)])
    cases = [(Circle(0.5), (0.25, 0.5)), (Box((0.5, 0.5)), (1.0, 0.5)), (Box((0.5, 0.5)), (2.5, 1.5)),
             (Circle(0.5), (2.5, 0.5))]
    for shape, pos in cases:
        g, r = other_geom(shape, pos, 0.0)
        assert chain_geom(chain, (0, 0)).distance(g) == r
        w = World(dim=2, backend=backend)
        w.add(chain, (0.0, 0.0), static=True)
        w.add(shape, pos)
        assert len(w.step()) >= 1, (shape, pos)
        assert collide(chain, ((0.0, 0.0), 0.0), shape, (pos, 0.0)) is not None


def test_distance_agrees_with_shapely():
    """300 random separated pairs: distance() is shapely's distance (1e-9), its closest points lie on
    the chain and on the shape (shapely distance of each point to its geometry under 1e-9)."""
    rng = np.random.default_rng(7)
    agree = 0
    for case in range(300):
        chain = random_chain(rng, loop=case % 3 == 0)
        cpos, cang = rng.uniform(-0.5, 0.5, 2), float(rng.uniform(-3, 3))
        other = random_other(rng)
        opos, oang = rng.uniform(-5, 5, 2), float(rng.uniform(-3, 3))
        g, r = other_geom(other, opos, oang)
        line = chain_geom(chain, cpos, cang)
        expected = line.distance(g) - r
        if expected <= 1e-6:
            continue
        res = distance(chain, (cpos, cang), other, (opos, oang))
        assert res.distance == pytest.approx(expected, abs=1e-9), case
        assert line.distance(Point(res.point_a)) < 1e-9
        assert abs(g.distance(Point(res.point_b)) - r) < 1e-9
        agree += 1
    assert agree >= 150


def test_time_of_impact_agrees_with_shapely():
    """A circle moving in a straight line onto a random chain: the first time its centre comes within
    r of the LineString (shapely distance, sampled then bisected) is time_of_impact's t (1e-7)."""
    rng = np.random.default_rng(11)
    checked = 0
    for _case in range(60):
        chain = random_chain(rng)
        line = chain_geom(chain, (0, 0))
        r = float(rng.uniform(0.1, 0.5))
        start, end = rng.uniform(-5, 5, 2), rng.uniform(-2, 2, 2)
        if line.distance(Point(start)) <= r + 1e-3:
            continue

        def gap(t: float, line=line, start=start, end=end, r=r) -> float:
            return line.distance(Point(start + t * (end - start))) - r
        ts = np.linspace(0, 1, 4001)
        gaps = np.array([gap(t) for t in ts])
        first = np.flatnonzero(gaps <= 0)
        res = time_of_impact(Circle(r), (start, 0.0), (end, 0.0), chain, ((0, 0), 0.0), ((0, 0), 0.0))
        if not len(first):
            if gaps.min() > 1e-6:
                assert res is None
                checked += 1
            continue
        lo, hi = ts[first[0] - 1], ts[first[0]]
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if gap(mid) <= 0 else (mid, hi)
        assert res is not None and res.t == pytest.approx(hi, abs=1e-7)
        checked += 1
    assert checked >= 40


def test_check_trajectory_finds_the_chain():
    chain = Chain([(0.0, 0.0), (4.0, 0.0), (4.0, 4.0)])
    poses = np.array([[1.0, 3.0 - 0.5 * k, 0.0] for k in range(8)])
    out = check_trajectory(Circle(0.5), poses, [chain], np.array([[0.0, 0.0, 0.0]]))
    # shapely: first step whose centre is within 0.5 of the chain
    line = chain_geom(chain, (0, 0))
    first = next(k for k in range(8) if line.distance(Point(poses[k, :2])) <= 0.5)
    assert out.step == first and out.obstacle == 0
    assert out.clearance[0] == pytest.approx(line.distance(Point(poses[0, :2])) - 0.5)


# -- the no-snag rule: walks across every inner vertex -------------------------------------------


def walk(backend, chain, shape, positions, angle, face, depth):
    """Every contact of ``shape`` at each position has normal ``face`` (chain -> shape) and ``depth``."""
    w = World(dim=2, backend=backend, manifolds=True)
    g = w.add(chain, (0.0, 0.0), static=True)
    b = w.add(shape, positions[0], angle)
    steps = 0
    for pos in positions:
        w.move(b, pos, angle)
        contacts = [c for c in w.step() if {c.a, c.b} == {g, b}]
        assert contacts, pos
        for c in contacts:
            n = np.asarray(c.normal) * (1.0 if c.a == g else -1.0)
            assert n == pytest.approx(face, abs=1e-12), (pos, c)
            assert c.depth == pytest.approx(depth, abs=1e-12), (pos, c)
        res = collide(chain, ((0.0, 0.0), 0.0), shape, (pos, angle))
        assert res.normal == pytest.approx(face, abs=1e-12) and res.depth == pytest.approx(depth, abs=1e-12)
        steps += 1
    return steps


@pytest.mark.parametrize("backend", BACKENDS)
def test_box_walks_a_straight_chain_on_the_face_normal(backend):
    """A 1x1 box 0.01 deep slides across all 9 inner vertices of a straight 10-segment chain, in
    steps of 1/64 (every vertex hit exactly, and 1/128 either side of it): normal (0, 1) and depth
    0.01 at every step (hand calculation: its bottom is 0.01 below the line), a circle too."""
    chain = Chain([(float(x), 0.0) for x in range(11)])
    xs = np.arange(0.5, 9.5 + 1e-9, 1.0 / 64)
    xs = np.union1d(xs, np.arange(1, 10) + 0.5 + 1 / 128)
    assert walk(backend, chain, Box((0.5, 0.5)), [(x, 0.49) for x in xs], 0.0, (0.0, 1.0), 0.01) == len(xs)
    xs = np.union1d(np.arange(0.0, 10.0 + 1e-9, 1.0 / 64), np.arange(1, 10) + 1e-9)
    walk(backend, chain, Circle(0.5), [(x, 0.49) for x in xs], 0.0, (0.0, 1.0), 0.01)
    # under the chain too: the face normal of the side the shape is on
    walk(backend, chain, Box((0.5, 0.5)), [(x, -0.49) for x in xs[32:-32]], 0.0, (0.0, -1.0), 0.01)


@pytest.mark.parametrize("backend", BACKENDS)
def test_box_walks_collinear_runs_of_a_polyline(backend):
    """A polyline with collinear runs, flat then 45 degrees up then flat, some runs of unequal
    segments: a box (turned to the run) slides along each run across its inner vertices and keeps
    the run's face normal and its depth 0.01 (hand calculation)."""
    s = math.sqrt(0.5)
    chain = Chain([(0, 0), (1, 0), (1.5, 0), (3, 0), (4, 1), (4.25, 1.25), (6, 3), (7, 3), (8, 3)])
    # flat run (0,0)-(3,0): inner vertices at x = 1, 1.5
    xs = np.union1d(np.arange(0.5, 2.5 - 1e-9, 1 / 64), [1.0, 1.5, 1 + 1 / 128, 1.5 - 1 / 128])
    walk(backend, chain, Box((0.5, 0.5)), [(x, 0.49) for x in xs], 0.0, (0.0, 1.0), 0.01)
    # sloped run (3,0)-(6,3): inner vertices at (4,1), (4.25,1.25); the box turned 45 degrees
    face = (-s, s)
    ts = np.union1d(np.arange(0.6, 2.6 + 1e-9, 1 / 64) * math.sqrt(2), [math.sqrt(2), 1.25 * math.sqrt(2)])
    pos = [(3 + t * s + face[0] * 0.49, t * s + face[1] * 0.49) for t in ts]
    walk(backend, chain, Box((0.5, 0.5)), pos, math.pi / 4, face, 0.01)
    # the last flat run (6,3)-(8,3): inner vertex at x = 7
    xs = np.union1d(np.arange(6.5 + 1 / 64, 7.5 + 1e-9, 1 / 64), [7 - 1 / 256, 7 + 1 / 256])
    walk(backend, chain, Box((0.5, 0.5)), [(x, 3.49) for x in xs], 0.0, (0.0, 1.0), 0.01)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_real_corner_still_pushes_out_sideways(backend):
    """The rule is for straight runs only: at a 90 degree corner a box pushed into the wall gets
    the wall's normal from the wall segment (no snapping where the chain turns)."""
    chain = Chain([(0, 0), (2, 0), (2, 2)])
    w = World(dim=2, backend=backend)
    g = w.add(chain, (0.0, 0.0), static=True)
    w.add(Box((0.5, 0.5)), (1.51, 0.6))
    walls = [c for c in w.step() if c.a == g and c.part_a == 1]
    assert len(walls) == 1 and np.asarray(walls[0].normal) == pytest.approx((-1.0, 0.0))
    assert walls[0].depth == pytest.approx(0.01)


def test_backends_agree_on_chain_contacts():
    """Every backend gives the same contacts (normal, depth bit for bit) on 200 random scenes of a
    chain with straight runs and a kink and four shapes near it."""
    rng = np.random.default_rng(3)
    chain = Chain([(float(x), 0.5 * x - 2.0 if x > 4 else 0.0) for x in range(8)])
    for _ in range(200):
        others = [(random_other(rng), (float(rng.uniform(0, 7)), float(rng.uniform(-0.6, 1.2))),
                   float(rng.uniform(-0.3, 0.3))) for _ in range(4)]
        answers = []
        for backend in BACKENDS:
            w = World(dim=2, backend=backend)
            w.add(chain, (0.0, 0.0), static=True)
            for shape, pos, ang in others:
                w.add(shape, pos, ang)
            answers.append(sorted((c.a, c.b, c.part_a, tuple(c.normal), c.depth) for c in w.step()))
        assert all(a == answers[0] for a in answers)


@pytest.mark.parametrize("backend", BACKENDS)
def test_long_chain_tests_only_the_segments_near_each_body(backend):
    """A 20,000-segment wavy chain (turned and moved) and 100 boxes along it: each box's contacts
    are shapely's touching segments, and the pairs the narrowphase sees per box are the few
    segments under its box (the chain's segment grid), not 20,000."""
    xs = np.linspace(0.0, 2000.0, 20001)
    chain = Chain(np.column_stack([xs, 0.3 * np.sin(xs)]).tolist())
    pos, ang = (5.0, -2.0), 0.3
    w = World(dim=2, backend=backend)
    g = w.add(chain, pos, ang, static=True)
    rng = np.random.default_rng(8)
    local = np.column_stack([rng.uniform(5, 1995, 100), rng.uniform(-0.6, 0.9, 100)])
    boxes = [w.add(Box((0.4, 0.3)), tuple(rot2(ang) @ p + pos), ang) for p in local]
    contacts = list(w.step())
    segs = segment_geoms(chain, pos, ang)
    checked = 0
    for b, p in zip(boxes, local, strict=True):
        geom, _ = other_geom(Box((0.4, 0.3)), rot2(ang) @ p + pos, ang)
        near = [k for k in range(max(0, int(p[0] / 0.1) - 10), min(20000, int(p[0] / 0.1) + 11))]
        if any(near_touching(segs[k], geom, 0.0) for k in near):
            continue
        expected = {k for k in near if segs[k].distance(geom) == 0}
        assert {c.part_a for c in contacts if c.a == g and c.b == b} == expected
        checked += 1
    assert checked >= 90
    store = w._store
    slots = np.array([store.ids.tolist().index(i) for i in (g, boxes[0])], dtype=np.int64)
    row, _, _ = store.expand_pairs(slots[:1], slots[1:])
    assert len(row) <= 12


@pytest.mark.parametrize("backend", BACKENDS)
def test_expect_contacts_name_a_chain_segment_in_parts(tmp_path, backend):
    """A version 3 file's ``expect_contacts`` give a chain contact's segment index in ``parts``
    (the format, version 3): a unit disc at (2.5, 0.9) over the chain (0, 0)-(2, 0)-(4, 0)-(4, 2)
    touches segment 1 only, 0.1 deep, normal (0, -1) from the disc down to the chain (by hand:
    its centre is 0.9 above segment 1 and sqrt(0.5^2 + 0.9^2) > 1 from segment 0's end); an
    index past the last segment is refused with its line."""
    head = '{"collideworld_scenario": 3, "dim": 2}\n'
    add = ('{"add": [{"id": "g", "shape": {"type": "chain", "points": [[0, 0], [2, 0], [4, 0], [4, 2]]}, '
           '"position": [0, 0], "static": true}, {"id": "d", "shape": {"type": "circle", "radius": 1}, '
           '"position": [2.5, 0.9]}], "expect": [["d", "g"]], "expect_contacts": [{"pair": ["d", "g"], '
           '"normal": [0, -1], "depth": 0.1, "parts": [-1, PART]}]}\n')
    good = tmp_path / "good.jsonl"
    good.write_text(head + add.replace("PART", "1"))
    report = replay(str(good), lambda dim: World(dim=dim, backend=backend))
    assert report.ok, report.format_first_mismatch()
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text(head + add.replace("PART", "0"))
    assert not replay(str(wrong), lambda dim: World(dim=dim, backend=backend)).ok
    bad = tmp_path / "bad.jsonl"
    bad.write_text(head + add.replace("PART", "3"))
    with pytest.raises(ScenarioError, match=r"bad.jsonl:2: .*parts: body 'g' .*0 to 2, got 3"):
        list(read_scenario(str(bad)))
