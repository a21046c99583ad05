"""World behaviour: touching, events, filters, determinism, errors, batches, queries.

Expected values come from hand calculations, shapely, or a brute-force loop
over :mod:`tests.oracle`, never from the world itself.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

import collideworld as cw
from collideworld import Box, Circle, HalfPlane, Plane, Polygon, Sphere, World

from . import oracle

BROADPHASES = ["auto", "sap", "batched", "brute_force"]


def fs(pairs):
    return {frozenset(p) for p in pairs}


# -- touching -----------------------------------------------------------------------

@pytest.mark.parametrize("bp", BROADPHASES)
def test_exactly_touching_boxes_overlap_2d(bp):
    w = World(2, broadphase=bp)
    w.add(Box((1, 1)), position=(0, 0), id="center")
    w.add(Box((1, 1)), position=(2, 0), id="edge")      # shares the edge x = 1
    w.add(Box((1, 1)), position=(-2, -2), id="corner")  # shares the corner (-1, -1)
    w.add(Box((1, 1)), position=(2.0000001, 2.5), id="apart")
    assert fs(w.step().pairs()) == {frozenset({"center", "edge"}), frozenset({"center", "corner"})}


@pytest.mark.parametrize("bp", BROADPHASES)
def test_exactly_touching_boxes_overlap_3d(bp):
    w = World(3, broadphase=bp)
    w.add(Box((1, 1, 1)), position=(0, 0, 0), id=0)
    w.add(Box((1, 1, 1)), position=(-2, 0, 0), id=1)    # face x = -1
    w.add(Box((1, 1, 1)), position=(2, 2, 0), id=2)     # edge x = y = 1
    w.add(Box((1, 1, 1)), position=(2, -2, 2), id=3)    # corner (1, -1, 1)
    w.add(Sphere(1.0), position=(0, 0, -2), id=4)       # tangent to the bottom face
    expected = {frozenset({0, 1}), frozenset({0, 2}), frozenset({0, 3}), frozenset({0, 4})}
    contacts = w.step()
    assert fs(contacts.pairs()) == expected
    assert np.all(contacts.depth == 0.0)


@pytest.mark.parametrize("bp", BROADPHASES)
def test_circle_tangent_to_halfplane_and_box(bp):
    w = World(2, broadphase=bp)
    w.add(HalfPlane((0, 1), 0.0), id="floor")
    w.add(Circle(1.0), position=(0, 1), id="ball")       # tangent to the floor
    w.add(Box((1, 1)), position=(2, 1), id="crate")      # tangent to ball, resting on floor
    c = w.step()
    assert fs(c.pairs()) == {frozenset({"floor", "ball"}), frozenset({"floor", "crate"}),
                             frozenset({"ball", "crate"})}
    # the half-plane was added first: normals point out of it, along +y
    for contact in c:
        if contact.a == "floor":
            np.testing.assert_allclose(contact.normal, [0.0, 1.0])
            assert contact.depth == 0.0


# -- events and rules -------------------------------------------------------------------

def test_began_and_ended_follow_moves_and_removals():
    w = World(2)
    w.add(Circle(1), position=(0, 0), id="a")
    w.add(Circle(1), position=(5, 0), id="b")
    c = w.step()
    assert len(c) == 0 and len(c.began) == 0
    w.move("b", position=(1.5, 0))
    c = w.step()
    assert list(c.began) == [("a", "b")] and len(c.ended) == 0
    c = w.step()
    assert len(c) == 1 and len(c.began) == 0 and len(c.ended) == 0
    w.remove("a")
    c = w.step()
    assert len(c) == 0 and list(c.ended) == [("a", "b")]
    assert len(w.step().ended) == 0


def test_reused_id_is_a_new_contact():
    w = World(2)
    w.add(Circle(1), position=(0, 0), id="a")
    w.add(Circle(1), position=(1, 0), id="b")
    w.step()
    w.remove("b")
    w.add(Box((1, 1)), position=(1, 0), id="b")
    c = w.step()
    assert list(c.ended) == [("a", "b")] and list(c.began) == [("a", "b")]


def test_static_bodies_never_touch_each_other_and_filters_apply_both_ways():
    w = World(2)
    w.add(Box((1, 1)), position=(0, 0), static=True, id="s1")
    w.add(Box((1, 1)), position=(0.5, 0), static=True, id="s2")
    w.add(Circle(0.5), position=(0, 0), category=2, mask=0xFFFFFFFF, id="picky")
    w.add(Circle(0.5), position=(0.2, 0), category=1, mask=1, id="only_1")  # ignores category 2
    w.add(Circle(0.5), position=(-0.2, 0), category=4, mask=2, id="only_2")
    got = fs(w.step().pairs())
    # s1-s2 static; picky/only_1: only_1.mask & picky.category == 0; only_2 vs s1/s2: mask 2 & category 1 == 0
    assert got == {frozenset(p) for p in [("s1", "picky"), ("s2", "picky"), ("s1", "only_1"),
                                          ("s2", "only_1"), ("picky", "only_2")]}


def test_pairs_are_ordered_by_insertion_and_sorted():
    w = World(2)
    for name, x in [("z", 0.0), ("y", 1.0), ("x", 2.0), ("w", 3.0)]:
        w.add(Circle(0.6), position=(x, 0), id=name)
    c = w.step()
    assert list(zip(c.a.tolist(), c.b.tolist(), strict=True)) == [("z", "y"), ("y", "x"), ("x", "w")]
    np.testing.assert_allclose(c.normal, [[1, 0]] * 3)
    np.testing.assert_allclose(c.depth, [0.2] * 3)
    assert w.pairs() == {("z", "y"), ("y", "x"), ("x", "w")}


def _random_scene(seed, dim=2):
    """(rng, bodies): bodies as (id, shape, kind, params, position, rotation) plain data."""
    rng = np.random.default_rng(seed)
    n = 120
    bodies = []
    if dim == 2:
        kinds = [("circle", 0.5), ("box", (0.6, 0.3)), ("polygon", [(0, 0), (1, 0), (1, 1), (0.5, 0.4), (0, 1)])]
        make = {"circle": Circle, "box": Box, "polygon": Polygon}
        for i in range(n):
            kind, params = kinds[i % 3]
            bodies.append((i, make[kind](params), kind, params, rng.uniform(0, 12, 2), rng.uniform(-3, 3)))
        bodies.append(("ground", HalfPlane((0.2, 1), 1.0), "halfplane", ((0.2, 1), 1.0), None, None))
    else:
        kinds = [("sphere", 0.6), ("box", (0.6, 0.3, 0.4))]
        make = {"sphere": Sphere, "box": Box}
        for i in range(n):
            kind, params = kinds[i % 2]
            q = rng.normal(size=4)
            bodies.append((i, make[kind](params), kind, params, rng.uniform(0, 6, 3), q / np.linalg.norm(q)))
        bodies.append(("ground", Plane((0, 0.1, 1), 1.0), "plane", ((0, 0.1, 1), 1.0), None, None))
    return rng, bodies


def _random_world(seed, bp="sap", dim=2):
    rng, bodies = _random_scene(seed, dim)
    w = World(dim, broadphase=bp)
    for body_id, shape, _, _, position, rotation in bodies:
        if position is None:
            w.add(shape, id=body_id)
        else:
            pose = {"angle": rotation} if dim == 2 else {"quaternion": rotation}
            w.add(shape, position=position, id=body_id, **pose)
    return w, rng


@pytest.mark.parametrize("dim", [2, 3])
def test_same_calls_give_identical_results(dim):
    runs = []
    for bp in BROADPHASES * 2:
        w, rng = _random_world(7, bp, dim)
        out = []
        for _ in range(5):
            ids = list(range(0, 120, 3))
            w.move_many(ids, positions=np.array([w.body(i).position for i in ids]) + rng.normal(0, 0.2, (40, dim)))
            c = w.step()
            out.append((c.a.tolist(), c.b.tolist(), c.normal.tobytes(), c.depth.tobytes(),
                        list(c.began), list(c.ended)))
        runs.append(out)
    assert all(r == runs[0] for r in runs[1:])


@pytest.mark.parametrize("dim", [2, 3])
def test_random_scene_matches_oracle(dim):
    # the oracle sees the scene as this test made it, never as the world stores it
    rng, scene = _random_scene(3, dim)
    w, _ = _random_world(3, "sap", dim)
    poses = {body_id: (position, rotation) for body_id, _, _, _, position, rotation in scene}
    for _ in range(3):
        bodies = {}
        for body_id, _, kind, params, _, _ in scene:
            position, rotation = poses[body_id]
            geom = oracle.geometry(kind, params, position, rotation)
            bodies[body_id] = dict(geom=geom, static=position is None, category=1, mask=0xFFFFFFFF)
        expected, ambiguous = oracle.expected_pairs(bodies)
        got = fs(w.step().pairs())
        assert len(expected) > 20
        assert got - ambiguous == expected - ambiguous
        ids = list(range(120))
        new_positions = rng.uniform(0, 12 if dim == 2 else 6, (120, dim))
        w.move_many(ids, positions=new_positions)
        for body_id, p in zip(ids, new_positions, strict=True):
            poses[body_id] = (p, poses[body_id][1])


# -- bad input ---------------------------------------------------------------------------

def _state(w):
    bodies = []
    for i in w.ids():
        b = w.body(i)
        bodies.append((b.id, b.shape, None if b.position is None else b.position.tolist(), b.angle,
                       None if b.quaternion is None else b.quaternion.tolist(), b.static, b.category, b.mask))
    return bodies, w.pairs()


def _twin(dim):
    w = World(dim)
    if dim == 2:
        w.add(Circle(1), position=(0, 0), id="a")
        w.add(Box((1, 1)), position=(1.5, 0), angle=0.3, id="b")
        w.add(HalfPlane((0, 1), -0.5), id="floor")
    else:
        w.add(Sphere(1), position=(0, 0, 0), id="a")
        w.add(Box((1, 1, 1)), position=(1.5, 0, 0), id="b")
        w.add(Plane((0, 0, 1), -0.5), id="floor")
    w.step()
    w.move("a", position=(0.1,) * dim)
    return w


BAD_CALLS_2D = {
    "duplicate id": lambda w: w.add(Circle(1), id="a"),
    "3D shape in 2D": lambda w: w.add(Sphere(1), position=(0, 0), id="s"),
    "NaN position": lambda w: w.add(Circle(1), position=(math.nan, 0), id="n"),
    "inf angle": lambda w: w.add(Circle(1), position=(0, 0), angle=math.inf, id="n"),
    "position length": lambda w: w.add(Circle(1), position=(0, 0, 0), id="n"),
    "quaternion in 2D": lambda w: w.add(Circle(1), position=(0, 0), quaternion=(1, 0, 0, 0), id="n"),
    "position on a halfplane": lambda w: w.add(HalfPlane((0, 1), 0), position=(0, 0), id="h"),
    "bool id": lambda w: w.add(Circle(1), id=True),
    "float id": lambda w: w.add(Circle(1), id=1.5),
    "category too big": lambda w: w.add(Circle(1), category=2**32, id="n"),
    "negative mask": lambda w: w.add(Circle(1), mask=-1, id="n"),
    "not a shape": lambda w: w.add("circle", id="n"),
    "move unknown": lambda w: w.move("nope", position=(0, 0)),
    "move NaN": lambda w: w.move("a", position=(0, math.nan)),
    "move halfplane": lambda w: w.move("floor", position=(0, 0)),
    "remove unknown": lambda w: w.remove("nope"),
    "remove_many with one unknown": lambda w: w.remove_many(["a", "nope"]),
    "move_many unknown": lambda w: w.move_many(["a", "nope"], positions=[[0, 0], [1, 1]]),
    "move_many wrong shape": lambda w: w.move_many(["a", "b"], positions=[[0, 0]]),
    "move_many NaN": lambda w: w.move_many(["a", "b"], positions=[[0, 0], [math.nan, 1]]),
    "move_many id twice": lambda w: w.move_many(["a", "b", "a"], positions=[[4, 0], [9, 0], [1, 1]]),
    "add_many bad shape mid-list": lambda w: w.add_many([Circle(1), Sphere(1)], positions=[[0, 0], [1, 1]],
                                                      ids=["n1", "n2"]),
    "add_many duplicate id": lambda w: w.add_many(Circle(1), positions=[[0, 0], [1, 1]], ids=["n1", "a"]),
    "add_many NaN": lambda w: w.add_many(Circle(1), positions=[[0, 0], [math.nan, 1]]),
    "query_aabb lo > hi": lambda w: w.query_aabb((1, 1), (0, 0)),
    "raycast zero direction": lambda w: w.raycast((0, 0), (0, 0)),
}
BAD_CALLS_3D = {
    "non-unit quaternion": lambda w: w.add(Sphere(1), position=(0, 0, 0), quaternion=(1, 1, 0, 0), id="n"),
    "not a rotation matrix": lambda w: w.add(Sphere(1), position=(0, 0, 0), quaternion=np.eye(3) * 2, id="n"),
    "angle in 3D": lambda w: w.add(Sphere(1), position=(0, 0, 0), angle=0.1, id="n"),
    "2D shape in 3D": lambda w: w.add(Circle(1), position=(0, 0, 0), id="n"),
    "move non-unit quaternion": lambda w: w.move("a", quaternion=(0.5, 0, 0, 0)),
    "move_many non-unit": lambda w: w.move_many(["a"], quaternions=[[2, 0, 0, 0]]),
    "quaternion on a plane": lambda w: w.add(Plane((0, 0, 1), 0), quaternion=(1, 0, 0, 0), id="p"),
}


@pytest.mark.parametrize("dim,name", [(2, k) for k in BAD_CALLS_2D] + [(3, k) for k in BAD_CALLS_3D])
def test_rejected_call_leaves_world_unchanged(dim, name):
    call = (BAD_CALLS_2D if dim == 2 else BAD_CALLS_3D)[name]
    w, twin = _twin(dim), _twin(dim)
    before = _state(w)
    with pytest.raises(cw.CollideWorldError) as info:
        call(w)
    assert str(info.value)  # says something
    assert _state(w) == before
    w.validate()
    a, b = w.step(), twin.step()
    assert a.pairs() == b.pairs() and list(a.began) == list(b.began) and list(a.ended) == list(b.ended)


def test_errors_are_builtin_subclasses_with_clear_messages():
    w = World(2)
    with pytest.raises(KeyError, match="'ghost'"):
        w.move("ghost", position=(0, 0))
    with pytest.raises(ValueError, match="must be finite"):
        w.add(Circle(1), position=(0, math.nan))
    with pytest.raises(ValueError, match="3D, but this world is 2D"):
        w.add(Box((1, 1, 1)))


# -- batches -------------------------------------------------------------------------------

def test_add_many_and_move_many_equal_single_calls():
    rng = np.random.default_rng(5)
    pos = rng.uniform(0, 8, (60, 2))
    ang = rng.uniform(-3, 3, 60)
    shapes = [Circle(0.5), Box((0.5, 0.4)), Polygon([(0, 0), (1, 0), (0.5, 1)])] * 20
    one, many = World(2), World(2)
    for k in range(60):
        one.add(shapes[k], position=pos[k], angle=ang[k], id=f"b{k}")
    many.add_many(shapes, pos, ang, ids=[f"b{k}" for k in range(60)])
    assert one.step().pairs() == many.step().pairs()
    new = rng.uniform(0, 8, (30, 2))
    ids = [f"b{k}" for k in range(0, 60, 2)]
    for k, i in enumerate(ids):
        one.move(i, position=new[k])
    many.move_many(ids, positions=new)
    a, b = one.step(), many.step()
    assert a.pairs() == b.pairs() and list(a.began) == list(b.began) and list(a.ended) == list(b.ended)


def test_auto_ids_count_up_and_skip_used():
    w = World(2)
    w.add(Circle(1), id=1)
    assert w.add(Circle(1)) == 0
    assert w.add(Circle(1)) == 2
    assert w.add_many(Circle(1), [[0, 0], [1, 1]]) == [3, 4]


def test_removing_everything_leaves_an_empty_world():
    w, _ = _random_world(11)
    w.step()
    w.remove_many(w.ids())
    c = w.step()
    assert len(w) == 0 and len(c) == 0 and len(c.ended) > 0
    w.validate()
    assert len(w.step().ended) == 0


# -- queries -------------------------------------------------------------------------------

def _shapely_scene(seed):
    rng = np.random.default_rng(seed)
    w = World(2)
    geoms = {}
    for i in range(40):
        pos = rng.uniform(0, 10, 2)
        ang = float(rng.uniform(-3, 3))
        if i % 3 == 0:
            w.add(Circle(0.7), position=pos, id=i)
            geoms[i] = ("circle", pos, 0.7)
        elif i % 3 == 1:
            w.add(Box((0.8, 0.4)), position=pos, angle=ang, id=i)
            geoms[i] = oracle.geometry("box", (0.8, 0.4), pos, ang)
        else:
            verts = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]  # concave L
            w.add(Polygon(verts), position=pos, angle=ang, id=i)
            geoms[i] = oracle.geometry("polygon", verts, pos, ang)
    return w, geoms, rng


def _shapely_hits(geoms, probe):
    hits, amb = set(), set()
    for i, g in geoms.items():
        if g[0] == "circle":
            gap = shapely.distance(shapely.Point(g[1]), probe) - g[2]
            touching = gap <= 0
        else:
            touching = g[1].intersects(probe)
            gap = shapely.distance(g[1], probe) if not touching else -g[1].intersection(probe).area
        if abs(gap) < 1e-9:
            amb.add(i)
        elif touching:
            hits.add(i)
    return hits, amb


def test_query_point_aabb_and_shape_match_shapely():
    w, geoms, rng = _shapely_scene(2)
    checked = 0
    for _ in range(60):
        p = rng.uniform(0, 10, 2)
        exp, amb = _shapely_hits(geoms, shapely.Point(p))
        assert set(w.query_point(p)) - amb == exp
        lo = rng.uniform(0, 9, 2)
        hi = lo + rng.uniform(0, 2, 2)
        exp, amb = _shapely_hits(geoms, shapely.box(*lo, *hi))
        assert set(w.query_aabb(lo, hi)) - amb == exp
        pos, ang = rng.uniform(0, 10, 2), float(rng.uniform(-3, 3))
        g = oracle.geometry("box", (1.2, 0.5), pos, ang)
        exp, amb = _shapely_hits(geoms, g[1])
        got = w.query_shape(Box((1.2, 0.5)), position=pos, angle=ang)
        assert set(got) - amb == exp
        checked += len(exp)
    assert checked > 30
    w.validate()


def test_query_results_come_in_add_order_and_respect_filters():
    w = World(2)
    w.add(Box((1, 1)), position=(0, 0), id="late", category=2)
    w.add(Circle(1), position=(0.5, 0), id="early")
    assert w.query_point((0.2, 0)) == ["late", "early"]
    assert w.query_point((0.2, 0), mask=1) == ["early"]
    assert w.query_point((0.2, 0), category=2, mask=0xFFFFFFFF) == ["late", "early"]


def test_query_shape_on_static_town_is_a_placement_test():
    w = World(2)
    w.add(Box((2, 1)), position=(0, 0), static=True, id="barracks")
    w.add(Polygon([(0, 0), (3, 0), (3, 1), (1, 1), (1, 3), (0, 3)]), position=(5, 0), static=True, id="wall")
    # 1x1 house: touching the barracks' right edge exactly at x = 2 counts
    assert w.query_shape(Box((0.5, 0.5)), position=(2.5, 0)) == ["barracks"]
    # inside the notch of the L: free (L occupies x in [5,8] y in [0,1] and x in [5,6] y in [0,3])
    assert w.query_shape(Box((0.5, 0.5)), position=(7.0, 2.0)) == []
    assert w.query_shape(Box((0.5, 0.5)), position=(6.5, 2.0)) == ["wall"]


def test_raycast_hand_computed():
    w = World(2)
    w.add(Circle(1), position=(5, 0), id="circle")
    w.add(Box((1, 2)), position=(10, 0), id="box")
    w.add(HalfPlane((-1, 0), -20), id="wall")  # solid x >= 20
    hits = w.raycast((0, 0), (2, 0))
    assert [h.id for h in hits] == ["circle", "box", "wall"]
    np.testing.assert_allclose([h.distance for h in hits], [4, 9, 20])
    np.testing.assert_allclose([h.normal for h in hits], [[-1, 0]] * 3, atol=1e-12)
    np.testing.assert_allclose(hits[1].point, [9, 0])
    assert [h.id for h in w.raycast((0, 0), (1, 0), max_distance=9.0)] == ["circle", "box"]
    assert [h.id for h in w.raycast((0, 0), (1, 0), max_distance=np.float32(9.0))] == ["circle", "box"]
    # from inside the circle: distance 0
    inside = w.raycast((5, 0.5), (0, 1))
    assert [(h.id, h.distance) for h in inside] == [("circle", 0.0)]
    # a concave L: the ray enters the lower arm first
    w2 = World(2)
    w2.add(Polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]), position=(0, 0), id="L")
    [h] = w2.raycast((1.5, 5), (0, -1))
    assert h.distance == pytest.approx(4.0) and np.allclose(h.normal, [0, 1])
    assert w2.raycast((1.5, 1.5), (1, 0)) == []


def test_raycast_3d_sphere_box_plane():
    w = World(3)
    w.add(Sphere(1), position=(0, 0, 5), id="s")
    w.add(Box((1, 1, 1)), position=(0, 0, 10), id="b")
    w.add(Plane((0, 0, -1), -20), id="roof")  # solid z >= 20
    hits = w.raycast((0, 0, 0), (0, 0, 1))
    assert [h.id for h in hits] == ["s", "b", "roof"]
    np.testing.assert_allclose([h.distance for h in hits], [4, 9, 20])


@pytest.mark.parametrize("bp", BROADPHASES)
def test_a_gap_of_many_ulps_is_apart(bp):
    # unit circles 2 + 1e-12 apart: a gap of ~4,500 ulps of the coordinates,
    # which a file recorded by another tool expects to replay as apart
    w = World(2, broadphase=bp)
    w.add(Circle(1.0), position=(0.0, 0.0), id="a")
    w.add(Circle(1.0), position=(2.0 + 1e-12, 0.0), id="b")
    w.add(Box((1.0, 1.0)), position=(1e6, 0.0), id="c")
    w.add(Box((1.0, 1.0)), position=(1e6 + 2.0 + 1e-7, 0.0), id="d")   # ~860 ulps of 1e6
    assert w.step().pairs() == set()
    w.move("b", position=(2.0, 0.0))
    w.move("d", position=(1e6 + 2.0, 0.0))
    assert w.step().pairs() == {("a", "b"), ("c", "d")}
