"""``World(dim=3)`` queries against the independent oracle of ``tests/oracle.py``.

Random worlds of spheres, rotated boxes and (sometimes) a plane. The oracle
decides each body against the query, described as an oracle shape:

* ``query_point(p)``: a sphere of radius 0 at ``p``;
* ``query_aabb(lo, hi)``: a box of half extents ``(hi - lo) / 2`` at the
  centre, identity rotation;
* ``query_shape(probe)``: the probe itself.

A body within the oracle's 1e-9 of touching the query is ambiguous and may go
either way; every other body must be reported exactly when it touches.
Raycasts are checked against distances worked out by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from collideworld import Box, Plane, Sphere, World

from . import oracle
from .strategies import unit_quaternions

PROPS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
IDENTITY = np.array([1.0, 0.0, 0.0, 0.0])

spots = st.floats(-4.0, 4.0, allow_nan=False)
far_spots = st.floats(-8.0, 8.0, allow_nan=False)
sizes = st.floats(0.2, 2.0)


# -- random worlds as plain data -----------------------------------------------------------------


@st.composite
def bodies(draw, coords=spots):
    """A finite body as ``(kind, params, position, quaternion)``."""
    kind = draw(st.sampled_from(["sphere", "box"]))
    params = draw(sizes) if kind == "sphere" else tuple(draw(sizes) for _ in range(3))
    return kind, params, np.array([draw(coords) for _ in range(3)]), draw(unit_quaternions())


@st.composite
def planes(draw):
    n = [draw(st.floats(-1.0, 1.0)) for _ in range(3)]
    if np.linalg.norm(n) < 0.2:
        n = [0.0, 0.0, 1.0]
    return "plane", (tuple(n), draw(st.floats(-3.0, 3.0))), None, None


@st.composite
def worlds(draw):
    """{id: (kind, params, position, quaternion)}, in add order; a plane in half of them."""
    spec = {f"b{i}": draw(bodies()) for i in range(draw(st.integers(1, 7)))}
    if draw(st.booleans()):
        spec["ground"] = draw(planes())
    return spec


def build(spec) -> World:
    w = World(dim=3)
    for body_id, (kind, params, position, quaternion) in spec.items():
        if kind == "plane":
            w.add(Plane(*params), id=body_id)
        else:
            shape = Sphere(params) if kind == "sphere" else Box(params)
            w.add(shape, position=position, quaternion=quaternion, id=body_id)
    return w


def _bounding_ball(g):
    if g[0] == "sphere":
        return g[1], g[2]
    if g[0] == "box3":
        return g[1], float(np.linalg.norm(g[3]))
    return None


def _point_box_signed_distance(p, box):
    """Distance from ``p`` to the oracle box outside it, minus the distance to its surface inside it."""
    _, centre, R, h, _ = box
    local = R.T @ (p - centre)
    outside = np.linalg.norm(local - np.clip(local, -h, h))
    return float(outside) if outside > 0 else -float(np.min(h - np.abs(local)))


def oracle_answer(spec, probe):
    """(touching ids, ambiguous ids) of the bodies of ``spec`` against the oracle geometry ``probe``."""
    touching, ambiguous = set(), set()
    for body_id, (kind, params, position, quaternion) in spec.items():
        g = oracle.geometry(kind, params, position, quaternion)
        bp, bg = _bounding_ball(probe), _bounding_ball(g)
        if bp is not None and bg is not None and np.linalg.norm(bp[0] - bg[0]) > bp[1] + bg[1] + 1e-6:
            continue  # bounding balls apart: certainly not touching (and saves an LP)
        hit, amb = oracle.pair_touching(probe, g)
        if amb and probe[0] == "sphere" and probe[2] == 0 and g[0] == "box3":
            # the oracle's point-box gap is the distance to the box, 0 all through its inside;
            # the signed distance tells a point well inside from one on the boundary
            signed = _point_box_signed_distance(probe[1], g)
            hit, amb = signed <= 0, abs(signed) < oracle.AMBIGUOUS
        if amb:
            ambiguous.add(body_id)
        elif hit:
            touching.add(body_id)
    return touching, ambiguous


def assert_matches_oracle(got, spec, probe):
    touching, ambiguous = oracle_answer(spec, probe)
    assert len(got) == len(set(got)), f"an id twice in {got}"
    assert set(got) - ambiguous == touching, f"got {sorted(got)}, oracle {sorted(touching)} (+ maybe {ambiguous})"
    order = list(spec)
    assert got == sorted(got, key=order.index), "not in add order"


def point_probe(p):
    return oracle.geometry("sphere", 0.0, np.asarray(p, float))


def aabb_probe(lo, hi):
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return oracle.geometry("box", tuple((hi - lo) / 2), (lo + hi) / 2, IDENTITY)


@st.composite
def points_near(draw, spec):
    """Query points: anywhere, or close to a body's centre (so that hits are common)."""
    centres = [v[2] for v in spec.values() if v[0] != "plane"]
    out = []
    for _ in range(4):
        p = np.array([draw(spots) for _ in range(3)])
        if draw(st.booleans()):
            p = centres[draw(st.integers(0, len(centres) - 1))] + p / 3
        out.append(p)
    return out


@st.composite
def aabbs_near(draw, spec):
    out = []
    for lo in draw(points_near(spec)):
        hi = lo + np.array([draw(st.floats(0.05, 4.0)) for _ in range(3)])
        out.append((lo, hi))
    return out


@st.composite
def probes_near(draw, spec):
    out = []
    for position in draw(points_near(spec)):
        kind, params, _, quaternion = draw(bodies())
        out.append((kind, params, position, quaternion))
    return out


def run_shape_query(w, probe):
    kind, params, position, quaternion = probe
    shape = Sphere(params) if kind == "sphere" else Box(params)
    return w.query_shape(shape, position=position, quaternion=quaternion)


def check_all_queries(w, spec, data):
    """query_point, query_aabb and query_shape on ``w`` agree with the oracle on ``spec``."""
    for p in data.draw(points_near(spec), label="points"):
        assert_matches_oracle(w.query_point(p), spec, point_probe(p))
    for lo, hi in data.draw(aabbs_near(spec), label="aabbs"):
        assert_matches_oracle(w.query_aabb(lo, hi), spec, aabb_probe(lo, hi))
    for probe in data.draw(probes_near(spec), label="probes"):
        assert_matches_oracle(run_shape_query(w, probe), spec, oracle.geometry(*probe))


# -- queries against the oracle -------------------------------------------------------------------


@PROPS
@given(spec=worlds(), data=st.data())
def test_query_point_returns_exactly_the_bodies_containing_the_point(spec, data):
    w = build(spec)
    for p in data.draw(points_near(spec)):
        assert_matches_oracle(w.query_point(p), spec, point_probe(p))


@PROPS
@given(spec=worlds(), data=st.data())
def test_query_aabb_returns_exactly_the_bodies_meeting_the_box(spec, data):
    w = build(spec)
    for lo, hi in data.draw(aabbs_near(spec)):
        assert_matches_oracle(w.query_aabb(lo, hi), spec, aabb_probe(lo, hi))


@PROPS
@given(spec=worlds(), data=st.data())
def test_query_shape_returns_exactly_the_bodies_the_probe_touches(spec, data):
    w = build(spec)
    for probe in data.draw(probes_near(spec)):
        assert_matches_oracle(run_shape_query(w, probe), spec, oracle.geometry(*probe))


@PROPS
@given(spec=worlds(), data=st.data())
def test_queries_after_move_before_step_see_the_new_poses(spec, data):
    w = build(spec)
    w.step()  # settle the bodies' fat boxes at the old poses
    for body_id, (kind, params, position, quaternion) in list(spec.items()):
        if kind == "plane" or not data.draw(st.booleans(), label=f"move {body_id}"):
            continue
        what = data.draw(st.sampled_from(["position", "quaternion", "both"]), label="what")
        new_pos = np.array([data.draw(far_spots) for _ in range(3)]) if what != "quaternion" else None
        new_q = data.draw(unit_quaternions()) if what != "position" else None
        w.move(body_id, position=new_pos, quaternion=new_q)
        # the fields not given keep their value
        spec[body_id] = (kind, params, position if new_pos is None else new_pos,
                         quaternion if new_q is None else new_q)
    check_all_queries(w, spec, data)


# -- hand-made cases --------------------------------------------------------------------------------


def test_query_point_on_the_boundary_counts_and_just_outside_does_not():
    w = World(dim=3)
    w.add(Box((1.0, 2.0, 3.0)), position=(0.0, 0.0, 0.0), id="box")
    w.add(Sphere(0.5), position=(0.0, 0.0, 10.0), id="ball")
    assert w.query_point((1.0, 2.0, 3.0)) == ["box"]  # a corner
    assert w.query_point((0.0, 0.0, 10.5)) == ["ball"]  # the top of the sphere
    assert w.query_point((1.0 + 1e-9, 0.0, 0.0)) == []
    assert w.query_point((0.0, 0.0, 10.5 + 1e-9)) == []


def test_query_aabb_flat_box_meets_exactly_what_its_face_crosses():
    w = World(dim=3)
    w.add(Box((1.0, 1.0, 1.0)), id="box")
    w.add(Sphere(1.0), position=(2.0, 0.0, 0.0), id="ball")
    w.add(Plane((1.0, 0.0, 0.0), -3.0), id="wall")  # x <= -3
    # the square x = 0.5, |y|, |z| <= 1 cuts the box; the ball's nearest point is 1.5 - 1 = 0.5 away
    assert w.query_aabb((0.5, -1.0, -1.0), (0.5, 1.0, 1.0)) == ["box"]
    # x = 1.25 misses the box (x <= 1) and cuts the ball (x >= 1)
    assert w.query_aabb((1.25, -0.1, -0.1), (1.25, 0.1, 0.1)) == ["ball"]
    # x = -3 lies on the wall's boundary: touching counts
    assert w.query_aabb((-3.0, 5.0, 5.0), (-3.0, 6.0, 6.0)) == ["wall"]


def _ray_world():
    w = World(dim=3)
    w.add(Box((1.0, 2.0, 3.0)), position=(10.0, 0.0, 0.0), id="crate")
    w.add(Sphere(1.0), position=(5.0, 0.6, 0.0), id="ball")
    w.add(Sphere(1.0), position=(7.0, 3.0, 0.0), id="off")  # 3 from the ray: missed
    w.add(Box((1.0, 1.0, 1.0)), position=(-5.0, 0.0, 0.0), id="behind")  # behind the origin
    return w


def _assert_hit(hit, body_id, distance, point, normal):
    assert hit.id == body_id
    assert hit.distance == pytest.approx(distance, abs=1e-12)
    assert np.allclose(hit.point, point, rtol=0, atol=1e-12)
    assert np.allclose(hit.normal, normal, rtol=0, atol=1e-12)


def test_raycast_along_x_hits_sphere_then_box_face_at_hand_computed_distances():
    hits = _ray_world().raycast((0.0, 0.0, 0.0), (2.0, 0.0, 0.0))  # not unit: normalised
    assert [h.id for h in hits] == ["ball", "crate"]
    # sphere centre (5, 0.6, 0), radius 1: the ray y = z = 0 enters at x = 5 - sqrt(1 - 0.6^2) = 4.2
    _assert_hit(hits[0], "ball", 4.2, (4.2, 0.0, 0.0), (-0.8, -0.6, 0.0))
    # box centre x = 10, half extent 1: the face x = 9
    _assert_hit(hits[1], "crate", 9.0, (9.0, 0.0, 0.0), (-1.0, 0.0, 0.0))


def test_raycast_max_distance_drops_only_farther_hits():
    w = _ray_world()
    assert [h.id for h in w.raycast((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), max_distance=8.0)] == ["ball"]
    assert [h.id for h in w.raycast((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), max_distance=4.0)] == []
    assert [h.id for h in w.raycast((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), max_distance=9.5)] == ["ball", "crate"]


def test_raycast_down_hits_the_top_face_of_a_rotated_box_then_the_plane():
    w = World(dim=3)
    # a quarter turn about x takes local y to world z and local z to world -y: world half extents (2, 3, 1)
    quarter_x = (math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0, 0.0)
    w.add(Box((2.0, 1.0, 3.0)), position=(0.0, 0.0, -5.0), quaternion=quarter_x, id="slab")
    w.add(Plane((0.0, 0.0, 2.0), -40.0), id="floor")  # 2 z <= -40: z <= -20
    hits = w.raycast((0.5, 2.5, 10.0), (0.0, 0.0, -3.0))
    assert [h.id for h in hits] == ["slab", "floor"]
    _assert_hit(hits[0], "slab", 14.0, (0.5, 2.5, -4.0), (0.0, 0.0, 1.0))  # top face z = -5 + 1
    _assert_hit(hits[1], "floor", 30.0, (0.5, 2.5, -20.0), (0.0, 0.0, 1.0))
    # y = 3.5 is beyond the slab's world half extent 3 along y (its local z): only the floor
    assert [h.id for h in w.raycast((0.5, 3.5, 10.0), (0.0, 0.0, -1.0))] == ["floor"]


def test_raycast_starting_inside_a_sphere_hits_it_at_distance_zero():
    w = World(dim=3)
    w.add(Box((1.0, 1.0, 1.0)), position=(0.0, 10.0, 0.0), id="box")
    w.add(Sphere(2.0), position=(0.0, 0.0, 0.0), id="ball")
    hits = w.raycast((0.5, 0.0, 0.0), (0.0, 1.0, 0.0))
    assert [h.id for h in hits] == ["ball", "box"]
    _assert_hit(hits[0], "ball", 0.0, (0.5, 0.0, 0.0), (0.0, -1.0, 0.0))  # normal = -direction
    _assert_hit(hits[1], "box", 9.0, (0.5, 9.0, 0.0), (0.0, -1.0, 0.0))


def test_queries_after_move_before_step_see_a_moved_sphere_and_a_turned_box():
    w = World(dim=3)
    w.add(Sphere(1.0), position=(0.0, 0.0, 0.0), id="ball")
    w.add(Box((3.0, 0.2, 0.2)), position=(0.0, 0.0, -5.0), id="rod")
    w.step()
    w.move("ball", position=(20.0, 0.0, 0.0))
    w.move("rod", quaternion=(math.cos(math.pi / 4), 0.0, 0.0, math.sin(math.pi / 4)))  # now along y
    for _ in range(2):  # before the step, then after it: the same answers
        assert w.query_point((20.0, 0.0, 0.0)) == ["ball"]
        assert w.query_point((0.0, 0.0, 0.0)) == []
        assert w.query_aabb((19.5, -0.1, -0.1), (19.6, 0.1, 0.1)) == ["ball"]
        assert w.query_aabb((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5)) == []
        assert w.query_shape(Sphere(0.5), position=(21.4, 0.0, 0.0)) == ["ball"]  # centres 1.4 < 1.5 apart
        assert w.query_shape(Sphere(0.5), position=(21.6, 0.0, 0.0)) == []
        assert w.query_point((0.0, 2.5, -5.0)) == ["rod"]
        assert w.query_point((2.5, 0.0, -5.0)) == []
        _assert_hit(w.raycast((10.0, 0.0, 0.0), (1.0, 0.0, 0.0))[0], "ball", 9.0, (19.0, 0.0, 0.0), (-1.0, 0.0, 0.0))
        [hit] = w.raycast((0.0, 10.0, -5.0), (0.0, -1.0, 0.0))
        _assert_hit(hit, "rod", 7.0, (0.0, 3.0, -5.0), (0.0, 1.0, 0.0))
        w.step()
