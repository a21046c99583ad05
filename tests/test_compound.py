"""Compound bodies: validation, contacts per part pair, events, queries, rays, proximity, scenarios.

Oracles, none of them the compound code path:

* the *exploded world*: every part added as a body of its own, at the pose
  the test composes itself (body pose o part pose), in a second world; the
  compound's contacts must be that world's contacts between parts of
  different bodies, row for row (ids, parts, normal, depth);
* shapely in 2D (a circle as its centre and radius, boxes and polygons as
  exact polygons) for overlap, distance, point and box queries;
* brute force over the parts for rays;
* hand calculations for a car on the ground and an RTS unit of circles.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import Point
from shapely.geometry import Polygon as ShapelyPolygon
from shapely.geometry import box as shapely_box

from collideworld import (
    Box,
    Capsule,
    Circle,
    Compound,
    ConvexHull,
    HalfPlane,
    Plane,
    Polygon,
    Segment,
    Sphere,
    World,
    check_trajectory,
    collide,
    collide_many,
    distance,
    time_of_impact,
)
from collideworld.backend import compiled_available
from collideworld.errors import InvalidShapeError

BACKENDS = ["numpy"] + (["compiled"] if compiled_available() else [])

WHEEL = Circle(0.4)
CAR = Compound([(Box((2.0, 0.5)), (0.0, 0.9))] + [(WHEEL, (x, 0.4)) for x in (-1.5, -0.5, 0.5, 1.5)])
UNIT = Compound([(Circle(0.5), (0.0, 0.0)), (Circle(0.5), (1.2, 0.0)), (Circle(0.5), (0.6, 1.0))])
L_SHAPE = Polygon([(0, 0), (2, 0), (2, 0.5), (0.5, 0.5), (0.5, 2), (0, 2)])


# -- helpers: the test's own pose composition ------------------------------------------------

def rot2(a: float) -> np.ndarray:
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def quat_mul(p, q) -> tuple[float, float, float, float]:
    w1, x1, y1, z1 = p
    w2, x2, y2, z2 = q
    return (w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2)


def quat_matrix(q) -> np.ndarray:
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def posed_parts(shape, position, rotation) -> list[tuple[int, object, np.ndarray, object]]:
    """(part index, part shape, world position, world angle | quaternion); one row of index -1 for a simple shape."""
    pos = np.asarray(position, dtype=float)
    if isinstance(shape, Polygon) and not shape.is_convex:
        # a concave polygon body: its convex pieces are its parts, at the body's pose
        return [(k, Polygon(piece), pos, rotation) for k, piece in enumerate(shape.parts)]
    if not isinstance(shape, Compound):
        return [(-1, shape, pos, rotation)]
    out = []
    for k, (part, lp, lr) in enumerate(shape.parts):
        if has_parts(part):
            # a compound's concave part is one part (its deepest piece's contact): a one-part
            # compound here, where a concave polygon body would give a contact per piece
            part = Compound([(part, (0.0, 0.0), 0.0)])
        if shape.dim == 2:
            out.append((k, part, rot2(rotation) @ np.asarray(lp) + pos, rotation + lr))
        else:
            out.append((k, part, quat_matrix(rotation) @ np.asarray(lp) + pos, quat_mul(rotation, lr)))
    return out


def has_parts(shape) -> bool:
    """Whether a world gives ``shape`` parts: a compound, or a concave polygon (its convex pieces)."""
    return isinstance(shape, Compound) or (isinstance(shape, Polygon) and not shape.is_convex)


def pid(bid, k) -> str:
    return f"{bid}#{k}"


def unpid(text: str) -> tuple[str, int]:
    bid, k = text.rsplit("#", 1)
    return bid, int(k)


def add_body(w: World, shape, pos, rot, bid):
    if shape.is_infinite:
        return w.add(shape, id=bid)
    if w.dim == 2:
        return w.add(shape, position=pos, angle=rot, id=bid)
    return w.add(shape, position=pos, quaternion=rot, id=bid)


def contact_rows(contacts) -> dict[tuple, tuple[np.ndarray, float]]:
    return {(c.a, c.b, c.part_a, c.part_b): (c.normal, c.depth) for c in contacts}


def exploded_rows(bodies, backend: str) -> dict[tuple, tuple[np.ndarray, float]]:
    """Contacts of the bodies with every part a body of its own, keyed like the compound world's rows."""
    w = World(dim=bodies[0][1].dim, backend=backend)
    for bid, shape, pos, rot, static in bodies:
        for k, part, ppos, prot in posed_parts(shape, pos, rot):
            add_body(w, part, ppos, prot, pid(bid, k))
            if static and not part.is_infinite:
                w.set_static(pid(bid, k), True)
    out = {}
    for c in w.step():
        (ia, ka), (ib, kb) = unpid(c.a), unpid(c.b)
        if ia == ib:
            continue  # two parts of one compound never touch each other
        out[(ia, ib, ka, kb)] = (c.normal, c.depth)
    return out


def compound_world(bodies, backend: str) -> World:
    w = World(dim=bodies[0][1].dim, backend=backend)
    for bid, shape, pos, rot, static in bodies:
        add_body(w, shape, pos, rot, bid)
        if static and not shape.is_infinite:
            w.set_static(bid, True)
    return w


def assert_same_rows(got, want) -> None:
    assert set(got) == set(want)
    for key, (n, d) in want.items():
        gn, gd = got[key]
        assert gd == pytest.approx(d, abs=1e-9), key
        assert np.allclose(gn, n, atol=1e-9), key


# -- random scenes --------------------------------------------------------------------------

def random_part_2d(rng: np.random.Generator):
    k = rng.integers(5)
    if k == 0:
        return Circle(float(rng.uniform(0.2, 0.8)))
    if k == 1:
        return Box(tuple(rng.uniform(0.2, 0.8, 2)))
    if k == 2:
        return L_SHAPE
    if k == 3:
        return Capsule(tuple(rng.uniform(-0.5, 0.5, 2)), tuple(rng.uniform(-0.5, 0.5, 2)), float(rng.uniform(0.1, 0.4)))
    n = int(rng.integers(3, 7))
    t = np.sort(rng.uniform(0, 2 * math.pi, n))
    return Polygon([(0.6 * math.cos(a), 0.6 * math.sin(a)) for a in t])


def random_compound_2d(rng: np.random.Generator) -> Compound:
    parts = []
    for _ in range(int(rng.integers(1, 5))):
        parts.append((random_part_2d(rng), tuple(rng.uniform(-1.5, 1.5, 2)), float(rng.uniform(-3, 3))))
    return Compound(parts)


def random_scene_2d(seed: int, n: int = 14):
    rng = np.random.default_rng(seed)
    bodies = [("ground", HalfPlane((0.1, 1.0), 0.0), None, None, True)]
    for i in range(n):
        shape = random_compound_2d(rng) if rng.random() < 0.6 else random_part_2d(rng)
        pos = (float(rng.uniform(-6, 6)), float(rng.uniform(-1, 6)))
        bodies.append((f"b{i}", shape, pos, float(rng.uniform(-3, 3)), bool(rng.random() < 0.15)))
    return bodies


def random_quat(rng: np.random.Generator) -> tuple[float, float, float, float]:
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    return tuple(float(v) for v in q)


CUBE = ConvexHull([(x, y, z) for x in (-0.4, 0.4) for y in (-0.3, 0.3) for z in (-0.5, 0.5)] + [(0, 0, 0.8)])


def random_part_3d(rng: np.random.Generator):
    k = rng.integers(4)
    if k == 0:
        return Sphere(float(rng.uniform(0.2, 0.8)))
    if k == 1:
        return Box(tuple(rng.uniform(0.2, 0.8, 3)))
    if k == 2:
        return Capsule(tuple(rng.uniform(-0.5, 0.5, 3)), tuple(rng.uniform(-0.5, 0.5, 3)), 0.3)
    return CUBE


def random_scene_3d(seed: int, n: int = 12):
    rng = np.random.default_rng(seed)
    bodies = [("floor", Plane((0.0, 0.1, 1.0), 0.0), None, None, True)]
    for i in range(n):
        if rng.random() < 0.6:
            shape = Compound([(random_part_3d(rng), tuple(rng.uniform(-1.2, 1.2, 3)), random_quat(rng))
                              for _ in range(int(rng.integers(1, 4)))])
        else:
            shape = random_part_3d(rng)
        pos = tuple(float(v) for v in rng.uniform([-4, -4, -1], [4, 4, 4]))
        bodies.append((f"b{i}", shape, pos, random_quat(rng), bool(rng.random() < 0.15)))
    return bodies


# -- validation -------------------------------------------------------------------------------

@pytest.mark.parametrize("parts, message", [
    ([], "at least one part"),
    ([(HalfPlane((0, 1), 0), (0, 0))], "halfplane is infinite"),
    ([(Sphere(1), (0, 0, 0)), (Plane((0, 0, 1), 0), (0, 0, 0))], "part 1: a plane is infinite"),
    ([(CAR, (0, 0))], "cannot hold a compound"),
    ([(Circle(1), (0, 0)), (Sphere(1), (0, 0, 0))], "part 1 is a 3D sphere, but part 0 is 2D"),
    ([(Circle(1), (0, float("nan")))], "position[1] must be finite, got nan"),
    ([(Circle(1), (0, 0), float("inf"))], "angle must be finite, got inf"),
    ([(Sphere(1), (0, 0, 0), (1, 0, 0, float("nan")))], "nan"),
    ([(Sphere(1), (0, 0, 0), (2, 0, 0, 0))], "unit quaternion"),
    ([(Circle(1),)], "must be (shape, position) or (shape, position, rotation), got (Circle(radius=1.0),)"),
    ([Circle(1)], "got Circle(radius=1.0)"),
    ([("circle", (0, 0))], "must be a collideworld shape"),
    ([(Circle(1), (0, 0, 0))], "position must have 2 components, got 3"),
    ("circle", "must be a list of (shape, position[, rotation]) tuples, got 'circle'"),
])
def test_bad_compounds_are_refused_naming_the_value(parts, message):
    with pytest.raises(InvalidShapeError) as exc:
        Compound(parts)
    assert message in str(exc.value)


def test_a_refused_compound_changes_no_world():
    w = World(dim=2)
    w.add(Circle(1.0), id="a")
    with pytest.raises(InvalidShapeError):
        w.add(Compound([(Circle(1), (0, 0)), (Sphere(1), (0, 0, 0))]), id="b")
    with pytest.raises(InvalidShapeError, match="3D"):
        w.add(Compound([(Sphere(1), (0, 0, 0))]), id="b")
    assert w.ids() == ["a"]
    w.validate()


def test_normalised_parts_and_bounding_radius():
    c = Compound([(Box((1, 1, 1)), [0, 0, 3]), (Sphere(0.5), (1, 0, 0), np.eye(3))])
    assert c.parts[0][1] == (0.0, 0.0, 3.0) and c.parts[0][2] == (1.0, 0.0, 0.0, 0.0)
    assert c.parts[1][2] == (1.0, 0.0, 0.0, 0.0)
    assert c.dim == 3
    assert c.bounding_radius == pytest.approx(3 + math.sqrt(3))
    assert Compound([(Circle(1), (0, 0))]) == Compound([(Circle(1), (0, 0), 0.0)])


# -- contacts: the exploded world is the oracle ---------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", range(6))
def test_contacts_are_the_union_over_parts_2d(seed, backend):
    bodies = random_scene_2d(seed)
    w = compound_world(bodies, backend)
    got = contact_rows(w.step())
    assert_same_rows(got, exploded_rows(bodies, backend))
    w.validate()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", range(4))
def test_contacts_are_the_union_over_parts_3d(seed, backend):
    bodies = random_scene_3d(seed)
    w = compound_world(bodies, backend)
    got = contact_rows(w.step())
    assert_same_rows(got, exploded_rows(bodies, backend))
    w.validate()


@pytest.mark.parametrize("seed", range(4))
def test_both_backends_give_identical_results(seed):
    if len(BACKENDS) < 2:
        pytest.skip("the compiled backend is not available")
    for scene in (random_scene_2d(seed), random_scene_3d(seed)):
        worlds = [compound_world(scene, b) for b in BACKENDS]
        for step in range(3):
            cs = [w.step() for w in worlds]
            assert cs[0].a.tolist() == cs[1].a.tolist() and cs[0].b.tolist() == cs[1].b.tolist()
            assert np.array_equal(cs[0].part_a, cs[1].part_a) and np.array_equal(cs[0].part_b, cs[1].part_b)
            # the contract: normals and depths within 1e-12 (hulls: EPA compiled, SAT in numpy)
            np.testing.assert_allclose(cs[0].normal, cs[1].normal, rtol=0, atol=1e-12)
            np.testing.assert_allclose(cs[0].depth, cs[1].depth, rtol=0, atol=1e-12)
            assert cs[0].began.rows() == cs[1].began.rows() and cs[0].ended.rows() == cs[1].ended.rows()
            for w in worlds:
                for bid in w.ids()[1::3]:
                    b = w.body(bid)
                    if not b.shape.is_infinite:
                        w.move(bid, position=np.asarray(b.position) + 0.3 * (step + 1))


def test_shapely_decides_which_body_pairs_touch():
    rng = np.random.default_rng(7)
    for trial in range(25):
        shapes = [random_compound_2d(rng) for _ in range(2)]
        poses = [((float(rng.uniform(-2, 2)), float(rng.uniform(-2, 2))), float(rng.uniform(-3, 3))) for _ in range(2)]
        geoms = [[shapely_part(p, pp, pr) for _, p, pp, pr in posed_parts(s, *pose)]
                 for s, pose in zip(shapes, poses, strict=True)]
        gap = min(shapely_gap(ga, gb) for ga in geoms[0] for gb in geoms[1])
        if abs(gap) < 1e-6:
            continue  # too close to call in floating point
        w = World(dim=2)
        for i, (s, (pos, ang)) in enumerate(zip(shapes, poses, strict=True)):
            w.add(s, position=pos, angle=ang, id=i)
        assert (len(w.step()) > 0) == (gap <= 0), trial
        d = distance(shapes[0], poses[0], shapes[1], poses[1])
        if gap > 0:
            assert d.distance == pytest.approx(gap, abs=1e-7), trial


def shapely_part(shape, pos, angle):
    """('circle', Point, r) or ('poly', polygon) of a posed 2D part, without collideworld."""
    if isinstance(shape, Compound):  # posed_parts' wrapper of a compound's concave part: its outline
        (part, lp, lr), = shape.parts
        return shapely_part(part, rot2(angle) @ np.asarray(lp) + pos, angle + lr)
    if isinstance(shape, Circle):
        return ("circle", Point(*pos), shape.radius)
    if isinstance(shape, Capsule):
        from shapely.geometry import LineString
        r = rot2(angle)
        return ("circle", LineString([r @ np.array(shape.p0) + pos, r @ np.array(shape.p1) + pos]), shape.radius)
    if isinstance(shape, Box):
        hx, hy = shape.half_extents
        local = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
    else:
        local = np.array(shape.vertices)
    return ("poly", ShapelyPolygon(local @ rot2(angle).T + pos), 0.0)


def shapely_gap(a, b) -> float:
    """Signed-enough gap: > 0 the distance when apart, <= 0 when they meet."""
    (_, ga, ra), (_, gb, rb) = a, b
    dist = shapely.distance(ga, gb)
    if dist == 0.0:
        return -1.0
    return dist - ra - rb


# -- hand cases ------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_a_car_on_the_ground(backend):
    w = World(dim=2, backend=backend)
    w.add(HalfPlane((0, 1), 0.0), id="ground")
    w.add(CAR, position=(3.0, -0.25), id="car")
    c = w.step()
    # wheels (parts 1-4) have their lowest point at y = -0.25: 0.25 deep; the body box is 0.15 above
    assert c.began.rows() == [("ground", "car", -1, k) for k in (1, 2, 3, 4)]
    assert c.part_a.tolist() == [-1] * 4 and c.part_b.tolist() == [1, 2, 3, 4]
    assert np.allclose(c.depth, 0.25) and np.allclose(c.normal, [0, 1])
    assert w.pairs() == {("ground", "car")}


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_rts_unit_of_circles(backend):
    w = World(dim=2, backend=backend)
    w.add(UNIT, position=(0.0, 0.0), id="squad")
    w.add(Circle(0.5), position=(2.0, 0.0), id="enemy")
    w.add(Box((0.5, 0.5)), position=(0.6, 2.2), id="crate")
    rows = {(x.a, x.b, x.part_a, x.part_b): (x.normal, x.depth) for x in w.step()}
    # enemy at (2, 0) r 0.5 against the unit's part 1 at (1.2, 0) r 0.5: 1.0 - 0.8 = 0.2 deep along +x
    n, d = rows.pop(("squad", "enemy", 1, -1))
    assert d == pytest.approx(0.2) and np.allclose(n, [1, 0])
    # crate bottom at y = 1.7 against part 2 at (0.6, 1.0) r 0.5 (top at 1.5): apart; nothing else touches
    assert rows == {}


# -- events ------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_events_are_per_part_pair_across_steps(backend):
    w = World(dim=2, backend=backend)
    w.add(HalfPlane((0, 1), 0.0), id="ground")
    w.add(CAR, position=(0.0, -0.1), id="car")
    c = w.step()
    assert len(c.began) == 4 and c.began.part_b.tolist() == [1, 2, 3, 4]
    c = w.step()
    assert len(c) == 4 and len(c.began) == 0 and len(c.ended) == 0
    # raised to y = 0.05 and turned 0.1: a wheel at local x has its lowest point at
    # 0.05 + x sin 0.1 + 0.4 cos 0.1 - 0.4 = 0.048 + 0.0998 x: -0.10 and -0.002 for the rear wheels
    # (parts 1, 2), +0.098 and +0.198 for the front ones; the box's lowest corner is at +0.25
    w.move("car", position=(0.0, 0.05), angle=0.1)
    c = w.step()
    assert sorted(c.part_b.tolist()) == [1, 2]
    assert sorted(c.ended.rows()) == [("ground", "car", -1, 3), ("ground", "car", -1, 4)]
    assert c.began.rows() == []
    w.move("car", position=(0.0, -0.1), angle=0.0)
    c = w.step()
    assert sorted(c.began.rows()) == [("ground", "car", -1, 3), ("ground", "car", -1, 4)]
    w.add(Circle(0.5), position=(2.3, 0.9), id="ball")  # touches the body box (part 0) only
    c = w.step()
    assert c.began.rows() == [("car", "ball", 0, -1)]
    w.remove("car")
    c = w.step()
    assert len(c) == 0
    assert sorted(c.ended.rows()) == sorted([("ground", "car", -1, k) for k in (1, 2, 3, 4)]
                                            + [("car", "ball", 0, -1)])
    w.validate()


@pytest.mark.parametrize("backend", BACKENDS)
def test_set_shape_to_and_from_a_compound(backend):
    w = World(dim=2, backend=backend)
    w.add(HalfPlane((0, 1), 0.0), id="ground")
    w.add(Circle(0.5), position=(0.0, 0.4), id="thing")
    assert w.step().began.rows() == [("ground", "thing", -1, -1)]
    w.set_shape("thing", UNIT)
    c = w.step()
    # parts 0 and 1 (at y = 0.4, r 0.5) are in the ground, part 2 (at y = 1.4) is not
    assert sorted(c.began.rows()) == [("ground", "thing", -1, 0), ("ground", "thing", -1, 1)]
    assert c.ended.rows() == [("ground", "thing", -1, -1)]
    w.validate()
    w.set_shape("thing", Circle(0.5))
    c = w.step()
    assert c.began.rows() == [("ground", "thing", -1, -1)]
    assert sorted(c.ended.rows()) == [("ground", "thing", -1, 0), ("ground", "thing", -1, 1)]
    w.validate()


@pytest.mark.parametrize("backend", BACKENDS)
def test_filters_static_and_compaction(backend):
    w = World(dim=2, backend=backend)
    w.add(UNIT, position=(0, 0), id="a")
    w.add(UNIT, position=(1.0, 0.5), id="b")
    before = contact_rows(w.step())
    assert before and all(k[2] >= 0 and k[3] >= 0 for k in before)
    w.set_filter("b", mask=0)
    assert len(w.step()) == 0
    w.set_filter("b", mask=0xFFFFFFFF)
    w.set_static("a", True)
    w.set_static("b", True)
    assert len(w.step()) == 0
    w.set_static("b", False)
    assert_same_rows(contact_rows(w.step()), before)
    filler = w.add_many(Circle(0.1), np.column_stack([np.linspace(50, 90, 300), np.zeros(300)]))
    w.remove_many(filler)
    w.compact()
    w.validate()
    assert_same_rows(contact_rows(w.step()), before)


# -- collide ------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_collide_gives_the_deepest_part_pair(backend):
    rng = np.random.default_rng(3)
    for _ in range(20):
        a, b = random_compound_2d(rng), random_compound_2d(rng)
        pa = ((float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1))), float(rng.uniform(-3, 3)))
        pb = ((float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1))), float(rng.uniform(-3, 3)))
        best = None
        for ka, sa, qa, ra in posed_parts(a, *pa):
            for kb, sb, qb, rb in posed_parts(b, *pb):
                r = collide(sa, (qa, ra), sb, (qb, rb), backend=backend)
                if r is not None and (best is None or r.depth > best[0] + 1e-12):
                    best = (r.depth, ka, kb)
        got = collide(a, pa, b, pb, backend=backend)
        if best is None:
            assert got is None
        else:
            assert got is not None and got.depth == pytest.approx(best[0], abs=1e-9)
            assert (got.part_a, got.part_b) == best[1:]


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_collide_many_takes_compounds_as_collide_does(backend):
    """A compound on either side: each row is collide()'s answer for its pair (the deepest part
    pair), 40 random placements of the car against a circle and a box."""
    rng = np.random.default_rng(485)
    pos, ang = rng.uniform(-2.5, 2.5, (40, 2)), rng.uniform(-3, 3, 40)
    others = [Circle(0.6) if k % 2 else Box((0.5, 0.3)) for k in range(40)]
    res = collide_many(CAR, (np.zeros((40, 2)), 0.0), others, (pos, ang), backend=backend)
    back = collide_many(others, (pos, ang), CAR, (np.zeros((40, 2)), 0.0), backend=backend)
    for k in range(40):
        one = collide(CAR, (np.zeros(2), 0.0), others[k], (pos[k], ang[k]), backend=backend)
        assert bool(res.hit[k]) == bool(back.hit[k]) == (one is not None), k
        if one is not None:
            assert res.depth[k] == pytest.approx(one.depth, abs=1e-12)
            np.testing.assert_allclose(res.normal[k], one.normal, atol=1e-12)
            np.testing.assert_allclose(back.normal[k], -one.normal, atol=1e-9)
    assert 5 <= int(res.hit.sum()) <= 35


# -- queries and rays -------------------------------------------------------------------------------

def scene_geoms(bodies):
    out = {}
    for bid, shape, pos, rot, _ in bodies:
        if shape.is_infinite:
            continue
        out[bid] = [shapely_part(p, pp, pr) for _, p, pp, pr in posed_parts(shape, pos, rot)]
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_point_box_and_shape_queries_match_shapely(backend):
    bodies = [b for b in random_scene_2d(11, n=20) if not b[1].is_infinite]
    w = compound_world(bodies, backend)
    geoms = scene_geoms(bodies)
    rng = np.random.default_rng(5)
    for _ in range(40):
        p = rng.uniform([-7, -2], [7, 7])
        want = sorted(bid for bid, gs in geoms.items() if any(shapely_gap(g, ("circle", Point(*p), 0.0)) <= 0
                                                            for g in gs))
        assert sorted(w.query_point(p)) == want
        lo = p - rng.uniform(0.1, 1.0, 2)
        hi = p + rng.uniform(0.1, 1.0, 2)
        rect = ("poly", shapely_box(*lo, *hi), 0.0)
        assert sorted(w.query_aabb(lo, hi)) == sorted(bid for bid, gs in geoms.items()
                                                      if any(shapely_gap(g, rect) <= 0 for g in gs))
        probe, angle = UNIT, float(rng.uniform(-3, 3))
        pg = [shapely_part(s, pp, pr) for _, s, pp, pr in posed_parts(probe, p, angle)]
        assert sorted(w.query_shape(probe, p, angle)) == sorted(
            bid for bid, gs in geoms.items() if any(shapely_gap(g, q) <= 0 for g in gs for q in pg))


@pytest.mark.parametrize("backend", BACKENDS)
def test_rays_hit_the_nearest_part(backend):
    bodies = random_scene_2d(13, n=20)
    w = compound_world(bodies, backend)
    exploded = World(dim=2, backend=backend)
    for bid, shape, pos, rot, _ in bodies:
        for k, part, pp, pr in posed_parts(shape, pos, rot):
            add_body(exploded, part, pp, pr, pid(bid, k))
    rng = np.random.default_rng(2)
    origins = rng.uniform([-8, -1], [8, 8], (30, 2))
    angles = rng.uniform(0, 2 * math.pi, 30)
    directions = np.column_stack([np.cos(angles), np.sin(angles)])
    many = w.raycast_many(origins, directions, 20.0)
    for i in range(30):
        hits = w.raycast(origins[i], directions[i], 20.0)
        part_hits = exploded.raycast(origins[i], directions[i], 20.0)
        nearest: dict = {}
        for h in part_hits:  # nearest first: keep each body's first part hit
            nearest.setdefault(unpid(h.id)[0], h.distance)
        assert [h.id for h in hits] == sorted(nearest, key=lambda b: (nearest[b], [x[0] for x in bodies].index(b)))
        assert [h.distance for h in hits] == pytest.approx([nearest[h.id] for h in hits], abs=1e-12)
        first = np.flatnonzero(many.ray == i)
        if hits:
            assert len(first) == 1 and many.id[first[0]] == hits[0].id
            assert many.distance[first[0]] == pytest.approx(hits[0].distance, abs=1e-12)
        else:
            assert len(first) == 0


# -- proximity ----------------------------------------------------------------------------------------

def test_distance_time_of_impact_and_trajectory():
    ground = HalfPlane((0, 1), 0.0)
    # the car's lowest points are its wheels' bottoms, local y = 0
    assert distance(CAR, ((0, 2.0), 0.0), ground, None).distance == pytest.approx(2.0)
    d = distance(CAR, ((0, 0), 0.0), Circle(0.5), ((1.5, -2.0), 0.0))
    assert d.distance == pytest.approx(math.hypot(0, 2.4) - 0.9)  # wheel at (1.5, 0.4) straight above
    r = time_of_impact(CAR, ((0, 5.0), 0.0), ((0, -5.0), 0.0), ground, None, None)
    assert r.t == pytest.approx(0.5, abs=1e-9)
    t = check_trajectory(Circle(0.5), [[1.5, -5.0, 0.0], [1.5, -2.0, 0.0], [1.5, -0.3, 0.0]], [CAR], [[0, 0, 0]])
    assert t.step == 2 and t.obstacle == 0
    assert t.clearance[:2].tolist() == pytest.approx([5.4 - 0.9, 2.4 - 0.9])


@pytest.mark.parametrize("backend", BACKENDS)
def test_manifold_points_are_each_part_pairs(backend):
    bodies = [("ground", HalfPlane((0, 1), 0.0), None, None, True),
              ("car", CAR, (0.0, -0.2), 0.05, False),
              ("crate", Box((0.5, 0.5)), (2.3, 0.6), 0.0, False)]
    w = World(dim=2, backend=backend, manifolds=True)
    for bid, s, p, r, _ in bodies:
        add_body(w, s, p, r, bid)
    got = {(c.a, c.b, c.part_a, c.part_b): np.sort(c.points, axis=0) for c in w.step()}
    ex = World(dim=2, backend=backend, manifolds=True)
    for bid, s, p, r, _ in bodies:
        for k, part, pp, pr in posed_parts(s, p, r):
            add_body(ex, part, pp, pr, pid(bid, k))
    want = {(unpid(c.a)[0], unpid(c.b)[0], unpid(c.a)[1], unpid(c.b)[1]): np.sort(c.points, axis=0)
            for c in ex.step() if unpid(c.a)[0] != unpid(c.b)[0]}
    assert set(got) == set(want) and len(got) >= 3
    for key in want:
        assert np.allclose(got[key], want[key], atol=1e-9), key


# -- scenarios ------------------------------------------------------------------------------------------

def test_scenario_round_trip_and_replay(tmp_path):
    from collideworld.scenario import Recorder, read_scenario, replay
    from collideworld.shapes import shape_from_dict, shape_to_dict  # noqa: F401 - shape_to_dict is the writer's

    path = tmp_path / "cars.jsonl"
    hull_car = Compound([(Box((1, 1, 0.5)), (0, 0, 1.0)), (Sphere(0.4), (1, 1, 0.4), (0.0, 1.0, 0.0, 0.0))])
    with Recorder(World(dim=2), path, record_contacts=True) as rec:
        rec.add(HalfPlane((0, 1), 0.0), id="ground")
        rec.add(CAR, position=(0, -0.1), id="car")
        rec.add(UNIT, position=(2.5, 1.5), angle=0.3, id="squad")
        rec.step()
        rec.move("car", position=(0, 1.0))
        rec.step()
    frames = list(read_scenario(path))
    assert frames[0].add[1].shape == CAR and frames[0].add[2].shape == UNIT
    parts = sorted(ec.parts for ec in frames[0].expect_contacts)
    assert (-1, 1) in parts and (-1, 4) in parts
    report = replay(path)
    assert report.ok, report.format_first_mismatch()
    assert shape_to_dict(hull_car)["parts"][1]["quaternion"] == [0.0, 1.0, 0.0, 0.0]


@pytest.mark.parametrize("shape, contains", [
    ({"type": "compound", "parts": []}, "at least one part"),
    ({"type": "compound", "parts": [{"shape": {"type": "halfplane", "normal": [0, 1], "offset": 0},
                                     "position": [0, 0]}]}, "halfplane is infinite"),
    ({"type": "compound", "parts": [{"shape": {"type": "compound", "parts": []}, "position": [0, 0]}]},
     "cannot hold a compound"),
    ({"type": "compound", "parts": [{"shape": {"type": "circle", "radius": 1}}]}, "missing key 'position'"),
    ({"type": "compound", "parts": [{"shape": {"type": "circle", "radius": 1}, "position": [0, 0],
                                     "quaternion": [1, 0, 0, 0]}]}, "takes an angle"),
    ({"type": "compound", "parts": [{"shape": {"type": "sphere", "radius": 1}, "position": [0, 0, 0]}]},
     "3D"),
    ({"type": "compound", "parts": [{"shape": {"type": "circle", "radius": 1}, "position": [0, 0],
                                     "spin": 1}]}, "unknown key 'spin'"),
])
def test_the_reader_refuses_bad_compounds_naming_the_line(tmp_path, shape, contains):
    import json

    from collideworld.errors import ScenarioError
    from collideworld.scenario import read_scenario

    path = tmp_path / "bad.jsonl"
    lines = [{"collideworld_scenario": 2, "dim": 2}, {"add": [{"id": "a", "shape": shape, "position": [0, 0]}]}]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    with pytest.raises(ScenarioError) as exc:
        list(read_scenario(path))
    assert ":2:" in str(exc.value) and contains in str(exc.value)


def test_the_reader_checks_part_indices(tmp_path):
    import json

    from collideworld.errors import ScenarioError
    from collideworld.scenario import read_scenario

    car = {"type": "compound", "parts": [{"shape": {"type": "circle", "radius": 1}, "position": [0, 0]}]}
    path = tmp_path / "parts.jsonl"
    lines = [{"collideworld_scenario": 2, "dim": 2},
             {"add": [{"id": "a", "shape": car, "position": [0, 0]},
                      {"id": "b", "shape": {"type": "circle", "radius": 1}, "position": [1, 0]}],
              "expect_contacts": [{"pair": ["a", "b"], "normal": [1, 0], "depth": 1.0, "parts": [1, -1]}]}]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    with pytest.raises(ScenarioError, match="a compound of 1 parts: its part index must be 0 to 0, got 1"):
        list(read_scenario(path))


# -- 3D odds and ends ------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_3d_queries_and_segments(backend):
    arm = Compound([(Segment((0, 0, 0), (0, 0, 2)), (0, 0, 0)), (Sphere(0.3), (0, 0, 2)),
                    (Box((0.5, 0.5, 0.1)), (0, 0, -0.1), (math.cos(0.4), 0, 0, math.sin(0.4)))])
    w = World(dim=3, backend=backend)
    w.add(arm, position=(1, 1, 0), id="arm")
    assert w.query_point((1, 1, 2.25)) == ["arm"]  # inside the ball part
    assert w.query_point((1, 1, 1.0)) == ["arm"]  # on the segment part
    assert w.query_point((1.2, 1, 1.0)) == []
    hits = w.raycast((1, 1, 10), (0, 0, -1))
    assert len(hits) == 1 and hits[0].distance == pytest.approx(10 - 2.3)
    assert w.query_shape(Sphere(0.1), (1, 1, -0.25)) == ["arm"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_nearest_within_and_cast_take_compounds_both_sides(backend):
    probe = Compound([(L_SHAPE, (0, 0)), (Circle(0.3), (3, 0))])
    w = World(dim=2, backend=backend)
    w.add(CAR, position=(0, 0), id="car")
    w.add(Box((1, 1)), position=(5, 5), id="b")
    # the car's wheel at (1.5, 0.4) r 0.4 is the nearest of it to the point (1.5, -3): 3.4 - 0.4
    (near,) = w.query_nearest((1.5, -3.0))
    assert near.id == "car" and near.distance == pytest.approx(3.0)
    # the probe's circle part at (8, 2) r 0.3; the box's nearest corner (6, 4): hypot(2, 2) - 0.3
    hits = w.query_within(probe, ((5.0, 2.0), 0.0), 10.0)
    assert {h.id for h in hits} == {"car", "b"}
    # the probe's L corner (5, 2) and the car's body box corner (2, 1.4)
    assert {h.id: h.distance for h in hits}["car"] == pytest.approx(math.hypot(3.0, 0.6))
    assert w.query_within(probe, ((5.0, 2.0), 0.0), 3.0)[0].id == "b"
    assert w.query_nearest(probe, ((5.0, 2.0), 0.0))[0].distance == pytest.approx(
        min(shapely.distance(ShapelyPolygon(np.array(L_SHAPE.vertices) + (5, 2)), shapely_box(4, 4, 6, 6)),
            math.hypot(2, 2) - 0.3))
    # dropped from above, the probe's L (x 0..2 at x offset 0) lands on the car's body box top (y = 1.4)
    hit = w.cast(probe, ((0.0, 10.0), 0.0), ((0.0, -10.0), 0.0))
    assert hit and hit[0].id == "car" and hit[0].t == pytest.approx((10.0 - 1.4) / 20.0)
    w.validate()  # the probes gave back every polygon they borrowed


def test_part_rows_do_not_make_the_world_compact_every_step():
    w = World(dim=2)
    ids = w.add_many(UNIT, np.column_stack([np.arange(1100) * 3.0, np.zeros(1100)]))  # 4,400 rows
    calls = []
    compact = w.compact
    w.compact = lambda: (calls.append(1), compact())[1]  # type: ignore[method-assign]
    w.step()
    w.step()
    assert calls == []  # 1,100 bodies and 3,300 part rows fill more than a quarter of the slots
    w.remove_many(ids[:1000])
    w.step()
    assert calls == [1]
    w.validate()
    assert len(w._store.part_slots) == 300 and w._store.n_part_slots == 300


def test_overlapping_distance_is_minus_collides_depth():
    rng = np.random.default_rng(9)
    checked = 0
    for _ in range(30):
        a, b = random_compound_2d(rng), random_compound_2d(rng)
        pa = ((0.0, 0.0), float(rng.uniform(-3, 3)))
        pb = ((float(rng.uniform(-2, 2)), float(rng.uniform(-2, 2))), float(rng.uniform(-3, 3)))
        c = collide(a, pa, b, pb)
        d = distance(a, pa, b, pb)
        if c is None:
            assert d.distance > 0
            continue
        checked += 1
        assert d.distance == pytest.approx(-c.depth, abs=1e-9)
        # the deepest points are the depth apart along the normal
        assert np.allclose(d.point_b - d.point_a, d.distance * d.normal, atol=1e-7)
    assert checked >= 10


def test_selecting_contacts_keeps_their_parts():
    w = World(dim=2)
    w.add(HalfPlane((0, 1), 0.0), id="ground")
    w.add(CAR, position=(0.0, -0.1), id="car")
    w.add(Circle(0.5), position=(2.3, 0.9), id="ball")
    c = w.step()
    sub = c[c.part_b == 2]
    assert sub.began.rows() == [("ground", "car", -1, 2)] and sub[0].part_b == 2
    of_ball = c.of("ball")
    assert [(x.a, x.b, x.part_a, x.part_b) for x in of_ball] == [("car", "ball", 0, -1)]
    w.remove("ball")
    ended = w.step().of("ball").ended
    assert ended.rows() == [("car", "ball", 0, -1)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_rows_are_in_add_order_then_part_order(backend):
    w = World(dim=2, backend=backend)
    w.add_many([Circle(1.0), UNIT, Circle(0.5), UNIT], [[0, 0.5], [0.5, 0], [2.2, 0.5], [2.8, 0.2]])
    c = w.step()
    rows = [(x.a, x.part_a, x.b, x.part_b) for x in c]
    assert rows == sorted(rows) and len(rows) >= 4
    assert all(a < b for a, _, b, _ in rows)  # a is the body added first
    w.validate()


def test_lifetime_limit_counts_parts(monkeypatch):
    from collideworld import registry
    from collideworld.errors import InvalidArgumentError

    w = World(dim=2)
    w.add(Circle(1.0), id="a")
    monkeypatch.setattr(registry, "MAX_ADDS", 4)
    with pytest.raises(InvalidArgumentError, match="lifetime"):
        w.add(UNIT, id="squad")  # 1 body + 3 parts on top of 1
    w.set_shape("a", UNIT)  # its 3 parts' serials on top of 1: 4, the limit
    with pytest.raises(InvalidArgumentError, match="lifetime"):
        w.set_shape("a", UNIT)  # 3 more would pass it
    assert w.ids() == ["a"] and w.body("a").shape == UNIT
    w.validate()


def canon(ia, ib, ka, kb, normal=None):
    """A row keyed by its two (id, part) ends in sorted order, the normal flipped to match.

    A body given a new shape by set_shape keeps its serial here, while the
    exploded world adds new bodies for it, so which end is ``a`` may differ.
    """
    if (ia, ka) <= (ib, kb):
        return (ia, ib, ka, kb), normal
    return (ib, ia, kb, ka), (None if normal is None else -normal)


def event_rows(pairs) -> set[tuple]:
    return {canon(*r)[0] for r in pairs.rows()}


def exploded_event_rows(pairs) -> set[tuple]:
    out = set()
    for a, b, _, _ in pairs.rows():
        (ia, ka), (ib, kb) = unpid(a), unpid(b)
        if ia != ib:
            out.add(canon(ia, ib, ka, kb)[0])
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", range(3))
def test_steps_of_adds_moves_removes_and_set_shapes_match_the_exploded_world(seed, backend):
    """Contacts and began/ended rows, step after step, on the reuse and patching paths too."""
    rng = np.random.default_rng(100 + seed)
    w = World(dim=2, backend=backend)
    ex = World(dim=2, backend=backend)
    bodies: dict[str, tuple] = {}  # id -> (shape, position, angle)

    def put(bid, shape, pos, ang):
        if bid in bodies and not has_parts(shape) and not has_parts(bodies[bid][0]):
            ex.set_shape(pid(bid, -1), shape)  # a simple shape for a simple one: the same body, in place
            bodies[bid] = (shape, pos, ang)
            return
        if bid in bodies:  # a compound's parts are new parts (new rows), as in the compound world
            for k, *_ in posed_parts(*bodies[bid]):
                ex.remove(pid(bid, k))
        bodies[bid] = (shape, pos, ang)
        for k, part, pp, pr in posed_parts(shape, pos, ang):
            ex.add(part, position=pp, angle=pr, id=pid(bid, k))

    def move(bid, pos, ang):
        shape = bodies[bid][0]
        bodies[bid] = (shape, pos, ang)
        w.move(bid, position=pos, angle=ang)
        for k, _, pp, pr in posed_parts(shape, pos, ang):
            ex.move(pid(bid, k), position=pp, angle=pr)

    ex.add(HalfPlane((0, 1), 0.0), id=pid("ground", -1))
    w.add(HalfPlane((0, 1), 0.0), id="ground")
    serial = 0
    for step in range(25):
        for _ in range(int(rng.integers(0, 3))):  # adds
            bid = f"n{serial}"
            serial += 1
            shape = random_compound_2d(rng) if rng.random() < 0.6 else random_part_2d(rng)
            pos, ang = (float(rng.uniform(-4, 4)), float(rng.uniform(-0.5, 4))), float(rng.uniform(-3, 3))
            w.add(shape, position=pos, angle=ang, id=bid)
            put(bid, shape, pos, ang)
        live = sorted(bodies)
        for bid in live:
            r = rng.random()
            shape, pos, ang = bodies[bid]
            if r < 0.5:  # small moves mostly stay inside the fat boxes: the patching path
                move(bid, (pos[0] + float(rng.normal(0, 0.05)), pos[1] + float(rng.normal(0, 0.05))),
                     ang + float(rng.normal(0, 0.05)))
            elif r < 0.55:
                move(bid, (float(rng.uniform(-4, 4)), float(rng.uniform(-0.5, 4))), float(rng.uniform(-3, 3)))
            elif r < 0.58:
                new = random_compound_2d(rng) if rng.random() < 0.6 else random_part_2d(rng)
                w.set_shape(bid, new)
                put(bid, new, pos, ang)
            elif r < 0.6:
                w.remove(bid)
                for k, *_ in posed_parts(*bodies.pop(bid)):
                    ex.remove(pid(bid, k))
        c, e = w.step(), ex.step()
        want, got = {}, {}
        for x in e:
            (ia, ka), (ib, kb) = unpid(x.a), unpid(x.b)
            if ia != ib:
                key, n = canon(ia, ib, ka, kb, x.normal)
                want[key] = (n, x.depth)
        for x in c:
            key, n = canon(x.a, x.b, x.part_a, x.part_b, x.normal)
            got[key] = (n, x.depth)
        assert_same_rows(got, want)
        assert event_rows(c.began) == exploded_event_rows(e.began), step
        assert event_rows(c.ended) == exploded_event_rows(e.ended), step
    w.validate()


def test_compiled_patched_grid_finds_moved_compounds_as_the_numpy_reference_does():
    """The compiled backend patches its query grid in place; compounds must enter it as bodies
    (never their part slots) and be settled part by part, as the numpy reference does."""
    if len(BACKENDS) < 2:
        pytest.skip("the compiled backend is not available")
    from collideworld import Box, Circle, Compound

    answers = {}
    for backend in BACKENDS:
        rng = np.random.default_rng(1)
        w = World(dim=2, backend=backend)
        car = Compound([(Box((1.0, 0.5)), (0.0, 0.5)), (Circle(0.3), (-0.8, 0.0)), (Circle(0.3), (0.8, 0.0))])
        ids = [w.add(car, position=rng.uniform(0, 20, 2)) for _ in range(30)]
        ids += [w.add(Circle(0.5), position=rng.uniform(0, 20, 2)) for _ in range(30)]
        w.step()
        got = []
        for _ in range(40):
            w.move(ids[int(rng.integers(0, 60))], position=rng.uniform(0, 20, 2))
            p = rng.uniform(0, 20, 2)
            got.append((w.query_point(p), w.query_aabb(p - 1, p + 1), w.query_shape(Box((1.0, 1.0)), p, angle=0.3)))
        answers[backend] = got
    first, second = answers.values()
    assert first == second
    assert sum(len(box) for _, box, _ in first) > 20  # the probes do meet bodies
