"""Rounded shapes: ``radius`` on Box, Polygon (2D) and Box, ConvexHull (3D).

A rounded shape is its core grown by the radius: every point within
``radius`` of the core. Oracles, none of them collideworld's:

* 2D, shapely on the exact cores (no polygonised arcs): two rounded shapes
  touch exactly when the cores' shapely distance is at most ``ra + rb``;
  cores apart by ``d``: depth ``ra + rb - d`` and the normal along shapely's
  nearest points; cores overlapping: a brute-force separating-axis
  penetration (min over every edge normal of both convex cores of the
  projections' overlap, written here) plus ``ra + rb``; ``distance`` is
  ``d - ra - rb``;
* 3D, python-fcl's distance of the cores (fcl.Box, fcl.Convex, fcl.Sphere)
  less the radii;
* hand calculations for resting, touching and falling cases.
"""

from __future__ import annotations

import itertools
import json
import math

import coal
import fcl
import numpy as np
import pytest
from shapely.geometry import LineString, Point
from shapely.geometry import Polygon as ShapelyPolygon
from shapely.ops import nearest_points

from collideworld import (
    Box,
    Capsule,
    Chain,
    Circle,
    ConvexHull,
    HalfPlane,
    Polygon,
    Sphere,
    World,
    collide,
    distance,
    time_of_impact,
)
from collideworld.backend import compiled_available
from collideworld.errors import InvalidShapeError, ScenarioError
from collideworld.scenario import read_scenario
from collideworld.scenario.writer import ScenarioWriter, shape_dict
from collideworld.shapes import shape_from_dict, shape_to_dict

BACKENDS = ["numpy"] + (["compiled"] if compiled_available() else [])


def rot2(a: float) -> np.ndarray:
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def core_2d(shape, pos, ang):
    """(shapely core, rounding + own radius, convex core vertices or None) of a 2D shape."""
    pos = np.asarray(pos, dtype=float)
    if isinstance(shape, Circle):
        return Point(pos), shape.radius, None
    if isinstance(shape, Capsule):
        return LineString(np.array([shape.p0, shape.p1]) @ rot2(ang).T + pos), shape.radius, None
    if isinstance(shape, Box):
        hx, hy = shape.half_extents
        local = np.array([(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)])
    else:
        local = np.array(shape.vertices)
    verts = local @ rot2(ang).T + pos
    return ShapelyPolygon(verts), shape.radius, verts


def sat_depth(va: np.ndarray, vb: np.ndarray) -> float:
    """Penetration depth of two convex polygons: min over all edge normals of the projections' overlap."""
    best = math.inf
    for v in (va, vb):
        edges = np.roll(v, -1, axis=0) - v
        for e in edges:
            n = np.array([e[1], -e[0]]) / math.hypot(*e)
            pa, pb = va @ n, vb @ n
            best = min(best, min(pa.max() - pb.min(), pb.max() - pa.min()))
    return best


def random_rounded_2d(rng):
    k = int(rng.integers(4))
    r = float(rng.uniform(0.05, 0.6))
    if k == 0:
        return Box(tuple(rng.uniform(0.2, 1.0, size=2)), r)
    if k == 1:
        return Polygon([(-0.6, -0.4), (0.7, -0.3), (0.2, 0.8)], r)
    if k == 2:
        return Circle(float(rng.uniform(0.2, 0.8)))
    return Capsule((-0.5, 0.0), (0.5, 0.0), float(rng.uniform(0.1, 0.4)))


# -- validation and the file form ---------------------------------------------------------------


@pytest.mark.parametrize("make, message", [
    (lambda: Box((1, 1), -0.5), "Box radius must be >= 0, got -0.5"),
    (lambda: Box((1, 1, 1), math.nan), "Box radius must be finite"),
    (lambda: Polygon([(0, 0), (1, 0), (0, 1)], -1), "Polygon radius must be >= 0, got -1"),
    (lambda: Polygon([(0, 0), (1, 0), (0, 1)], "a"), "Polygon radius must be a real number"),
    (lambda: ConvexHull(list(itertools.product((0, 1), repeat=3)), -0.1), "ConvexHull radius must be >= 0"),
])
def test_bad_radius_is_rejected(make, message):
    with pytest.raises(InvalidShapeError) as info:
        make()
    assert message in str(info.value)


def test_radius_zero_is_the_old_shape():
    assert Box((1, 2)) == Box((1, 2), 0.0) and hash(Box((1, 2))) == hash(Box((1, 2), 0))
    assert repr(Box((1, 2))) == "Box(half_extents=(1.0, 2.0))"
    assert shape_to_dict(Polygon([(0, 0), (1, 0), (0, 1)])) == {"type": "polygon",
                                                                 "vertices": [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]}
    triangle = [(0, 0), (1, 0), (0, 1)]
    assert Box((1, 2), 0.5) != Box((1, 2)) and Polygon(triangle, 0.1) != Polygon(triangle)
    assert Box((1, 2), 0.5).bounding_radius == pytest.approx(math.sqrt(5) + 0.5)
    for shape in (Box((1, 2), 0.5), Polygon([(0, 0), (1, 0), (0, 1)], 0.25)):
        assert shape_from_dict(shape_to_dict(shape)) == shape
    import pickle
    hull = ConvexHull(list(itertools.product((0, 1), repeat=3)), 0.2)
    assert pickle.loads(pickle.dumps(hull)) == hull and "radius=0.2" in repr(hull)


def test_rounded_shapes_round_trip_through_a_version_3_file(tmp_path):
    shapes = [Box((1, 2), 0.5), Polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)], 0.25)]
    path = str(tmp_path / "r.jsonl")
    w = ScenarioWriter(path, 2)
    w.write_frame(add=[{"id": k, "shape": shape_dict(s), "position": [3.0 * k, 0.0]} for k, s in enumerate(shapes)])
    w.close()
    assert w.version == 3
    assert [b.shape for b in list(read_scenario(path))[0].add] == shapes
    hull = ConvexHull(list(itertools.product((0, 1), repeat=3)), 0.125)
    path3 = str(tmp_path / "h.jsonl")
    with ScenarioWriter(path3, 3) as w3:
        w3.write_frame(add=[{"id": 0, "shape": shape_dict(hull), "position": [0.0, 0.0, 0.0]}])
    assert list(read_scenario(path3))[0].add[0].shape == hull


@pytest.mark.parametrize("header, shape, contains", [
    ('{"collideworld_scenario": 2, "dim": 2}', {"type": "box", "half_extents": [1, 1], "radius": 0.5},
     "a rounded box (key 'radius') needs format version 3 (the header says 2)"),
    ('{"collideworld_scenario": 3, "dim": 2}', {"type": "box", "half_extents": [1, 1], "radius": -0.5},
     "box radius must be >= 0"),
    ('{"collideworld_scenario": 3, "dim": 2}', {"type": "polygon", "vertices": [[0, 0], [1, 0], [0, 1]],
                                                "radius": "x"}, "polygon radius must be a real number"),
    ('{"collideworld_scenario": 3, "dim": 3}', {"type": "convex_hull", "points": [[0, 0, 0], [1, 0, 0], [0, 1, 0],
                                                                                   [0, 0, 1]], "radius": -1},
     "convexhull radius must be >= 0"),
])
def test_bad_rounded_shape_in_a_file_names_the_line(tmp_path, header, shape, contains):
    path = tmp_path / "bad.jsonl"
    dim = json.loads(header)["dim"]
    path.write_text(header + "\n" + json.dumps({"add": [{"id": "g", "shape": shape, "position": [0] * dim}]})
                    + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        list(read_scenario(str(path)))
    assert info.value.line == 2 and contains.lower() in str(info.value).lower(), str(info.value)


def test_rejected_set_shape_leaves_the_world_unchanged():
    w = World(dim=2)
    a = w.add(Box((1, 1), 0.5), (0.0, 0.0))
    with pytest.raises(InvalidShapeError):
        w.set_shape(a, Box((1, 1), -0.5))
    assert w.body(a).shape == Box((1, 1), 0.5)


# -- 2D against shapely -----------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_2d_contacts_agree_with_shapely(backend):
    """400 random pairs of rounded boxes and triangles, circles and capsules (at least one side
    rounded): hit is shapely's core distance <= ra + rb; with cores apart the depth is ra + rb - d and
    the normal along shapely's nearest points; with two polygon cores overlapping the depth is the
    brute-force SAT penetration + ra + rb. World.step and collide() both."""
    rng = np.random.default_rng(29)
    agree = separated = overlapping = 0
    for _case in range(400):
        sa = random_rounded_2d(rng)
        sb = random_rounded_2d(rng)
        if not (isinstance(sa, (Box, Polygon)) or isinstance(sb, (Box, Polygon))):
            sa = Box((0.5, 0.7), 0.3)
        pa, aa = rng.uniform(-0.5, 0.5, 2), float(rng.uniform(-3, 3))
        pb, ab = rng.uniform(-2.5, 2.5, 2), float(rng.uniform(-3, 3))
        ga, ra, va = core_2d(sa, pa, aa)
        gb, rb, vb = core_2d(sb, pb, ab)
        d = ga.distance(gb)
        rr = ra + rb
        if abs(d - rr) < 1e-7 or (d == 0 and (va is None or vb is None)) or (0 < d < 1e-7):
            continue
        w = World(dim=2, backend=backend)
        w.add(sa, pa, aa)
        w.add(sb, pb, ab)
        contacts = list(w.step())
        res = collide(sa, (pa, aa), sb, (pb, ab))
        assert (len(contacts) == 1) == (d <= rr) == (res is not None), (_case, sa, sb, d, rr)
        if d > rr:
            agree += 1
            continue
        c = contacts[0]
        if d > 0:
            qa, qb = nearest_points(ga, gb)
            expected = (np.array(qb.coords[0]) - np.array(qa.coords[0])) / d
            assert c.depth == pytest.approx(rr - d, abs=1e-9)
            assert np.asarray(c.normal) == pytest.approx(expected, abs=1e-7)
            separated += 1
        else:
            assert c.depth == pytest.approx(sat_depth(va, vb) + rr, abs=1e-9)
            overlapping += 1
        assert res.depth == pytest.approx(c.depth, abs=1e-12)
        agree += 1
    assert agree >= 380 and separated >= 40 and overlapping >= 20, (agree, separated, overlapping)


def test_2d_distance_agrees_with_shapely():
    """300 random separated pairs: distance() is the cores' shapely distance less both radii (1e-9),
    its points lie on the rounded surfaces (radius from the cores, 1e-9)."""
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(300):
        sa, sb = Box(tuple(rng.uniform(0.2, 1.0, 2)), float(rng.uniform(0, 0.5))), random_rounded_2d(rng)
        pa, aa = rng.uniform(-1, 1, 2), float(rng.uniform(-3, 3))
        pb, ab = rng.uniform(-5, 5, 2), float(rng.uniform(-3, 3))
        ga, ra, _ = core_2d(sa, pa, aa)
        gb, rb, _ = core_2d(sb, pb, ab)
        expected = ga.distance(gb) - ra - rb
        if expected <= 1e-6:
            continue
        res = distance(sa, (pa, aa), sb, (pb, ab))
        assert res.distance == pytest.approx(expected, abs=1e-9)
        assert ga.distance(Point(res.point_a)) == pytest.approx(ra, abs=1e-9)
        assert gb.distance(Point(res.point_b)) == pytest.approx(rb, abs=1e-9)
        checked += 1
    assert checked >= 150


@pytest.mark.parametrize("backend", BACKENDS)
def test_touching_rounded_shapes_are_in_contact(backend):
    """Closed sets: cores exactly ra + rb apart (2 - 1 = 1 = 0.5 + 0.5), and a rounded box whose
    rounded bottom just reaches a half-plane, are contacts of depth 0; a hair further they are not."""
    for gap, expect in ((0.0, 1), (2.0 ** -20, 0)):
        w = World(dim=2, backend=backend)
        w.add(Box((1, 1), 0.5), (0.0, 0.0))
        w.add(Box((1, 1), 0.5), (3.0 + gap, 0.0))
        w.add(HalfPlane((0, 1), -1.5 - gap))
        contacts = list(w.step())
        assert len(contacts) == 3 * expect  # the two boxes, and each box on the half-plane
        assert all(c.depth == 0.0 for c in contacts)


@pytest.mark.parametrize("backend", BACKENDS)
def test_rounded_box_resting_on_a_rounded_box_has_its_points_on_the_surfaces(backend):
    """Hand calculation: a 2x2 box rounded by 0.25 on a 4x2 box rounded by 0.5, 0.01 deep: normal
    (0, 1), depth 0.01, two points at x = -1 and 1, halfway between the surfaces (y = 1.495)."""
    w = World(dim=2, backend=backend, manifolds=True)
    w.add(Box((2, 1), 0.5), (0.0, 0.0))
    w.add(Box((1, 1), 0.25), (0.0, 1.0 + 0.5 + 0.25 + 1.0 - 0.01))
    (c,) = w.step()
    assert np.asarray(c.normal) == pytest.approx((0, 1)) and c.depth == pytest.approx(0.01)
    np.testing.assert_allclose(sorted(c.points.tolist()), [[-1.0, 1.495], [1.0, 1.495]], atol=1e-12)
    assert c.separations == pytest.approx([-0.01, -0.01])


def test_concave_rounded_polygon_reports_per_piece():
    """A rounded L: a circle near the inner corner touches the grown pieces as shapely's buffered
    core says (each piece's distance <= r + 0.25)."""
    ell = Polygon([(0, 0), (2, 0), (2, 0.5), (0.5, 0.5), (0.5, 2), (0, 2)], 0.25)
    core = ShapelyPolygon(ell.vertices)
    for pos in [(1.0, 1.0), (1.2, 1.3), (0.9, 0.95), (3.0, 3.0)]:
        res = collide(ell, ((0, 0), 0.0), Circle(0.3), (pos, 0.0))
        assert (res is not None) == (core.distance(Point(pos)) <= 0.55)


def test_time_of_impact_onto_a_rounded_box():
    """Hand calculation: a unit circle falling from y = 5 to y = -5 onto a box of half height 1
    rounded by 0.5 first touches at y = 2.5, t = 0.25."""
    res = time_of_impact(Circle(1.0), ((0.0, 5.0), 0.0), ((0.0, -5.0), 0.0), Box((1, 1), 0.5), ((0, 0), 0.0),
                         ((0, 0), 0.0))
    assert res.t == pytest.approx(0.25, abs=1e-9)
    # past the corner: the rounded corner (a quarter circle about (1, 1)) is met, not the box's corner
    res = time_of_impact(Circle(0.5), ((1.5, 5.0), 0.0), ((1.5, -5.0), 0.0), Box((1, 1), 0.5), ((0, 0), 0.0),
                         ((0, 0), 0.0))
    # centre (1.5, y) at distance 1 from (1, 1): y = 1 + sqrt(0.75) -> t = (5 - y) / 10
    assert res.t == pytest.approx((4 - math.sqrt(0.75)) / 10, abs=1e-9)


# -- 3D against python-fcl -------------------------------------------------------------------------


def quat_to_matrix(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def coal_core(shape):
    """The core as a coal geometry (a hull from its points, by coal's own Qhull call)."""
    if isinstance(shape, Sphere):
        return coal.Sphere(shape.radius)
    if isinstance(shape, Box):
        return coal.Box(*(2 * h for h in shape.half_extents))
    points = coal.StdVec_Vec3s()
    for p in np.asarray(shape.points, dtype=float):
        points.append(p)
    return coal.ConvexBase.convexHull(points, False, None)


def coal_distance(sa, pa, qa, sb, pb, qb):
    """coal's distance of the two cores (0 when they overlap), GJK run to 1e-12."""
    req = coal.DistanceRequest()
    req.gjk_tolerance = 1e-12
    d = coal.distance(coal_core(sa), coal.Transform3s(quat_to_matrix(qa), np.asarray(pa, dtype=float)),
                      coal_core(sb), coal.Transform3s(quat_to_matrix(qb), np.asarray(pb, dtype=float)),
                      req, coal.DistanceResult())
    return max(d, 0.0)


def fcl_overlap(sa, pa, qa, sb, pb, qb):
    """python-fcl's collision test of the two cores."""
    def obj(shape, p, q):
        if isinstance(shape, Sphere):
            g = fcl.Sphere(shape.radius)
        elif isinstance(shape, Box):
            g = fcl.Box(*(2 * h for h in shape.half_extents))
        else:
            faces = np.asarray(shape.faces)
            g = fcl.Convex(np.asarray(shape.vertices), len(faces),
                           np.column_stack([np.full(len(faces), 3), faces]).ravel())
        return fcl.CollisionObject(g, fcl.Transform(quat_to_matrix(q), np.asarray(p, dtype=float)))
    return fcl.collide(obj(sa, pa, qa), obj(sb, pb, qb), fcl.CollisionRequest(), fcl.CollisionResult()) > 0


def random_quat(rng):
    q = rng.normal(size=4)
    return tuple(q / np.linalg.norm(q))


def random_rounded_3d(rng):
    k = int(rng.integers(3))
    r = float(rng.uniform(0.05, 0.5))
    if k == 0:
        return Box(tuple(rng.uniform(0.2, 1.0, 3)), r)
    if k == 1:
        return ConvexHull(rng.uniform(-0.8, 0.8, (8, 3)).tolist(), r)
    return Sphere(float(rng.uniform(0.2, 0.8)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_3d_contacts_and_distance_agree_with_fcl(backend):
    """300 random pairs of rounded boxes, rounded hulls and spheres: hit is coal's core distance
    <= ra + rb (cores overlapping: python-fcl's collide says so too), the depth with cores apart
    ra + rb - d and distance() d - ra - rb (1e-7)."""
    rng = np.random.default_rng(17)
    agree = touching = 0
    for _ in range(300):
        sa, sb = random_rounded_3d(rng), random_rounded_3d(rng)
        if isinstance(sa, Sphere) and isinstance(sb, Sphere):
            sa = Box((0.5, 0.4, 0.3), 0.2)
        pa, qa = rng.uniform(-0.3, 0.3, 3), random_quat(rng)
        pb, qb = rng.uniform(-2.5, 2.5, 3), random_quat(rng)
        d = coal_distance(sa, pa, qa, sb, pb, qb)
        if d < 1e-6:
            assert fcl_overlap(sa, pa, qa, sb, pb, qb)
        ra = 0.0 if isinstance(sa, Sphere) else sa.radius
        rb = 0.0 if isinstance(sb, Sphere) else sb.radius
        rr = ra + rb
        if abs(d - rr) < 1e-5:
            continue
        w = World(dim=3, backend=backend)
        w.add(sa, pa, quaternion=qa)
        w.add(sb, pb, quaternion=qb)
        contacts = list(w.step())
        assert (len(contacts) == 1) == (d <= rr), (sa, sb, d, rr)
        if 0 < d <= rr:
            assert contacts[0].depth == pytest.approx(rr - d, abs=1e-7)
            touching += 1
        if d > 1e-3 and backend == BACKENDS[0]:
            res = distance(sa, (pa, qa), sb, (pb, qb))
            assert res.distance == pytest.approx(d - rr, abs=1e-7)
        agree += 1
    assert agree >= 280 and touching >= 30, (agree, touching)


@pytest.mark.parametrize("backend", BACKENDS)
def test_3d_rounded_hull_on_a_plane_and_a_sphere(backend):
    """Hand calculation: a cube hull (half size 1) rounded by 0.5 resting 0.05 deep in the floor
    z <= -1.45 and touched 0.01 deep from above by a unit sphere at z = 2.49."""
    from collideworld import Plane
    hull = ConvexHull(list(itertools.product((-1, 1), repeat=3)), 0.5)
    w = World(dim=3, backend=backend, manifolds=True)
    h = w.add(hull, (0.0, 0.0, 0.0))
    s = w.add(Sphere(1.0), (0.0, 0.0, 2.49))
    f = w.add(Plane((0, 0, 1), -1.45))
    by = {frozenset((c.a, c.b)): c for c in w.step()}
    assert by[frozenset((h, s))].depth == pytest.approx(0.01)
    np.testing.assert_allclose(by[frozenset((h, s))].points, [[0.0, 0.0, 1.495]], atol=1e-12)
    assert by[frozenset((h, f))].depth == pytest.approx(0.05)
    assert len(by) == 2


# -- queries ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_queries_see_the_rounded_surface(backend):
    """200 random points and 200 random rays against rounded boxes and triangles: a point is inside
    exactly when shapely's core distance is <= r; a ray's hit point lies on the rounded surface
    (core distance r, 1e-9) and no point of the ray before it is inside (shapely distance of the
    ray's LineString up to the hit, >= r - 1e-9); a missed ray stays farther than r (shapely)."""
    rng = np.random.default_rng(41)
    shapes = [(Box((1.0, 0.5), 0.3), (0.0, 0.0), 0.4), (Polygon([(-0.6, -0.4), (0.7, -0.3), (0.2, 0.8)], 0.5),
                                                        (4.0, 0.0), -1.0)]
    w = World(dim=2, backend=backend)
    ids = [w.add(s, p, a) for s, p, a in shapes]
    cores = [core_2d(s, p, a)[0] for s, p, a in shapes]
    points = hits = misses = 0
    for _ in range(200):
        q = rng.uniform(-2, 6, 2) * (1, 0.5)
        expected = [i for i, c, (s, _, _) in zip(ids, cores, shapes, strict=True) if c.distance(Point(q)) <= s.radius]
        gaps = [abs(c.distance(Point(q)) - s.radius) for c, (s, _, _) in zip(cores, shapes, strict=True)]
        if min(gaps) < 1e-9:
            continue
        assert w.query_point(q) == expected
        points += 1
    for _ in range(200):
        o = rng.uniform(-3, 7, 2) * (1, 1)
        d = rng.normal(size=2)
        d /= np.linalg.norm(d)
        hit = w.raycast(o, d, 20.0)
        if hit:
            h = hit[0]
            k = ids.index(h.id)
            if h.distance == 0:
                continue
            assert cores[k].distance(Point(h.point)) == pytest.approx(shapes[k][0].radius, abs=1e-9)
            before = LineString([o, o + d * h.distance])
            assert all(c.distance(before) >= s.radius - 1e-9 for c, (s, _, _) in zip(cores, shapes, strict=True))
            hits += 1
        else:
            ray = LineString([o, o + 20.0 * d])
            assert all(c.distance(ray) > s.radius - 1e-9 for c, (s, _, _) in zip(cores, shapes, strict=True))
            misses += 1
    assert points >= 190 and hits >= 30 and misses >= 30, (points, hits, misses)
    assert w.query_shape(Circle(0.1), (1.0 + 0.3 + 0.1 + 0.0, 0.0), 0.0) is not None


@pytest.mark.parametrize("backend", BACKENDS)
def test_moved_rounded_shapes_are_found_by_their_rounding(backend):
    """A rounded box or polygon moved between steps to where only its rounding reaches a static
    chain or box: the broadphase must still propose the pair (its box includes the rounding on
    the compiled refit too). 2D: 150 moves of a rounded box and a rounded triangle among a chain
    and static boxes, each step's pairs against shapely (core distance <= radius); 3D: 150 moves of
    a rounded box among static spheres, against the closed-form distance from each centre to the
    core box in the box's frame (Ericson, RTCD 5.1.3)."""
    rng = np.random.default_rng(2929)
    chain_pts = [(-3.0, -1.0), (-1.0, -1.0), (1.0, -1.0), (3.0, 0.0)]
    statics = [(Box((0.4, 0.3)), (0.0, 1.2), 0.3), (Box((0.3, 0.3)), (2.0, 1.5), 0.0)]
    w = World(dim=2, backend=backend)
    w.add(Chain(chain_pts), (0.0, 0.0), static=True, id="chain")
    others = {"chain": LineString(chain_pts)}
    for k, (shape, pos, ang) in enumerate(statics):
        w.add(shape, pos, ang, static=True, id=f"s{k}")
        others[f"s{k}"] = core_2d(shape, pos, ang)[0]
    movers = {"box": Box((0.3, 0.2), radius=0.25), "tri": Polygon([(-0.3, -0.2), (0.4, -0.1), (0.0, 0.3)], 0.3)}
    for bid, shape in movers.items():
        w.add(shape, (8.0, 8.0 + len(bid)), 0.0, id=bid)
    w.step()
    checked = reached_by_rounding = 0
    for _ in range(150):
        poses = {bid: (rng.uniform(-3, 3, 2), float(rng.uniform(-3, 3))) for bid in movers}
        want, ambiguous = set(), False
        for bid, shape in movers.items():
            core, r, _ = core_2d(shape, *poses[bid])
            for oid, geom in others.items():
                d = core.distance(geom)
                ambiguous |= abs(d - r) < 1e-7
                if d <= r:
                    want.add(frozenset((bid, oid)))
                    reached_by_rounding += d > 0
        d = core_2d(movers["box"], *poses["box"])[0].distance(core_2d(movers["tri"], *poses["tri"])[0])
        ambiguous |= abs(d - 0.55) < 1e-7
        if d <= 0.55:
            want.add(frozenset(("box", "tri")))
        for bid, (pos, ang) in poses.items():
            w.move(bid, pos, ang)
        got = {frozenset((c.a, c.b)) for c in w.step()}
        if not ambiguous:
            assert got == want, (poses, got ^ want)
            checked += 1
    assert checked >= 140 and reached_by_rounding >= 20, (checked, reached_by_rounding)

    w3 = World(dim=3, backend=backend)
    balls = rng.uniform(-2, 2, (12, 3))
    for k, c in enumerate(balls):
        w3.add(Sphere(0.3), c, static=True, id=f"b{k}")
    half, r = np.array([0.4, 0.25, 0.15]), 0.3
    w3.add(Box(tuple(half), radius=r), (9.0, 9.0, 9.0), id="box")
    w3.step()
    checked = reached_by_rounding = 0
    for _ in range(150):
        pos = rng.uniform(-2, 2, 3)
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        w0, x, y, z = q
        rot = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w0 * z), 2 * (x * z + w0 * y)],
                        [2 * (x * y + w0 * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w0 * x)],
                        [2 * (x * z - w0 * y), 2 * (y * z + w0 * x), 1 - 2 * (x * x + y * y)]])
        local = (balls - pos) @ rot
        gap = np.linalg.norm(local - np.clip(local, -half, half), axis=1) - (0.3 + r)
        w3.move("box", pos, quaternion=q)
        got = {c.a if c.b == "box" else c.b for c in w3.step()}
        if np.abs(gap).min() > 1e-7:
            assert got == {f"b{k}" for k in np.flatnonzero(gap <= 0)}, (pos, q)
            checked += 1
            reached_by_rounding += int(np.count_nonzero((gap <= 0) & (gap > -r)))
    assert checked >= 140 and reached_by_rounding >= 10, (checked, reached_by_rounding)


@pytest.mark.parametrize("backend", BACKENDS)
def test_rounded_probes_reach_by_their_rounding(backend):
    """query_shape, query_shapes and query_within with a rounded box or polygon as the probe: the
    probe's box must include its rounding (it was the core's, so a body reached only by the
    rounding was never a candidate, and the compiled one-call test read the probe's core). 2D:
    150 probes among circles, boxes and rounded triangles, against shapely (cores' distance <=
    the radii; within d: <= the radii + d); 3D: 150 rounded box probes among spheres, against the
    closed-form point-box distance in the probe's frame (Ericson, RTCD 5.1.3)."""
    rng = np.random.default_rng(7029)
    w = World(dim=2, backend=backend)
    bodies = []
    for k in range(14):
        shape = [Circle(0.3), Box((0.3, 0.2)), Polygon([(-0.3, -0.2), (0.4, -0.1), (0.0, 0.3)], 0.15)][k % 3]
        pos, ang = rng.uniform(-3, 3, 2), float(rng.uniform(-3, 3))
        bid = w.add(shape, pos, ang)
        bodies.append((bid, *core_2d(shape, pos, ang)[:2]))
    w.step()
    probes = [Box((0.4, 0.25), radius=0.3), Polygon([(-0.4, -0.3), (0.5, -0.2), (0.1, 0.4)], 0.35)]
    checked = by_rounding = 0
    for case in range(150):
        probe = probes[case % 2]
        pos, ang = rng.uniform(-3, 3, 2), float(rng.uniform(-3, 3))
        pcore, pr, _ = core_2d(probe, pos, ang)
        gaps = {bid: pcore.distance(core) - pr - r for bid, core, r in bodies}
        if min(abs(g) for g in gaps.values()) < 1e-7 or min(abs(g - 0.2) for g in gaps.values()) < 1e-7:
            continue
        touching = {bid for bid, g in gaps.items() if g <= 0}
        assert set(w.query_shape(probe, pos, ang)) == touching, case
        assert set(w.query_shapes(probe, [pos], [ang])[1].tolist()) == touching, case
        assert {h.id for h in w.query_within(probe, (pos, ang), 0.2)} == {b for b, g in gaps.items() if g <= 0.2}
        checked += 1
        by_rounding += sum(1 for bid, core, r in bodies if gaps[bid] <= 0 < pcore.distance(core) - r)
    assert checked >= 140 and by_rounding >= 20, (checked, by_rounding)

    w3 = World(dim=3, backend=backend)
    balls = rng.uniform(-2, 2, (12, 3))
    for k, c in enumerate(balls):
        w3.add(Sphere(0.3), c, id=f"b{k}")
    w3.step()
    half, r = np.array([0.4, 0.25, 0.15]), 0.3
    probe3 = Box(tuple(half), radius=r)
    checked = by_rounding = 0
    for _ in range(150):
        pos = rng.uniform(-2, 2, 3)
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        w0, x, y, z = q
        rot = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w0 * z), 2 * (x * z + w0 * y)],
                        [2 * (x * y + w0 * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w0 * x)],
                        [2 * (x * z - w0 * y), 2 * (y * z + w0 * x), 1 - 2 * (x * x + y * y)]])
        local = (balls - pos) @ rot
        gap = np.linalg.norm(local - np.clip(local, -half, half), axis=1) - (0.3 + r)
        if np.abs(gap).min() < 1e-7:
            continue
        assert set(w3.query_shape(probe3, pos, quaternion=q)) == {f"b{k}" for k in np.flatnonzero(gap <= 0)}
        checked += 1
        by_rounding += int(np.count_nonzero((gap <= 0) & (gap > -r)))
    assert checked >= 140 and by_rounding >= 10, (checked, by_rounding)


def test_compiled_queries_keep_their_compiled_path_with_rounded_shapes():
    """A compiled world holding rounded shapes answers its queries on the compiled path (they all
    went to numpy while any rounded shape was in the store): nearest, within and casts entirely;
    point, box and shape queries and rays leave only the rounded candidates to the numpy kernels
    (``overlapping:some``, ``raycast:some`` in numpy_path_counts), never the whole query. Every answer, over 60
    random frames of moving, reshaped (set_shape: rounded <-> sharp) bodies, equals the numpy
    world's and shapely's (a point or probe disc within ``r`` of the core; a ray's first hit on
    the rounded surface, core distance ``r``)."""
    from collideworld.queries import numpy_path_counts

    rng = np.random.default_rng(4129)
    worlds = [World(dim=2, backend=b) for b in ("numpy", "compiled")]
    kinds = [lambda: Box((0.4, 0.25), radius=0.2), lambda: Polygon([(-0.3, -0.2), (0.4, -0.1), (0.0, 0.3)], 0.25),
             lambda: Circle(0.3), lambda: Box((0.3, 0.3))]
    shapes = {k: kinds[k % 4]() for k in range(16)}
    poses = {k: (rng.uniform(-4, 4, 2), float(rng.uniform(-3, 3))) for k in shapes}
    for w in worlds:
        for k, s in shapes.items():
            w.add(s, *poses[k], id=k)
    checked = 0
    for frame in range(60):
        for k in rng.choice(16, 5, replace=False).tolist():
            poses[k] = (rng.uniform(-4, 4, 2), float(rng.uniform(-3, 3)))
            for w in worlds:
                w.move(k, *poses[k])
        if frame % 10 == 5:  # a rounded shape made sharp and a sharp one rounded (the packed kinds follow)
            k = int(rng.integers(16))
            shapes[k] = kinds[(k + 1 + frame) % 4]()
            for w in worlds:
                w.set_shape(k, shapes[k])
        for w in worlds:
            w.step()
        cores = {k: core_2d(s, *poses[k])[:2] for k, s in shapes.items()}
        numpy_path_counts(reset=True)
        p = rng.uniform(-4, 4, 2)
        o, d = rng.uniform(-5, 5, 2), rng.normal(size=2)
        d /= np.linalg.norm(d)
        answers = []
        for w in worlds:
            hit = w.raycast(o, d, 12.0)
            answers.append((sorted(w.query_point(p)), sorted(w.query_shape(Circle(0.2), p)),
                            [h.id for h in w.query_nearest(p, k=3)],
                            sorted(h.id for h in w.query_within(Circle(0.2), (p, 0.0), 0.3)),
                            [(h.id, round(h.distance, 9)) for h in hit]))
        counts = numpy_path_counts(reset=True)
        assert set(counts) <= {"overlapping:some", "raycast:some"}, counts
        assert answers[0] == answers[1], (frame, answers)
        gaps = {k: core.distance(Point(p)) - r for k, (core, r) in cores.items()}
        if min(abs(g) for g in gaps.values()) > 1e-7 and min(abs(g - 0.2) for g in gaps.values()) > 1e-7:
            assert answers[1][0] == sorted(k for k, g in gaps.items() if g <= 0)
            assert answers[1][1] == sorted(k for k, g in gaps.items() if g <= 0.2)
            checked += 1
        for h in worlds[1].raycast(o, d, 12.0)[:1]:
            if h.distance > 0:
                core, r = cores[h.id]
                assert core.distance(Point(h.point)) == pytest.approx(r, abs=1e-9)
    assert checked >= 55, checked


def test_compiled_queries_keep_their_compiled_path_with_rounded_3d_shapes():
    """3D: rounded boxes and hulls among spheres in a compiled world, 30 frames of moves: point,
    sphere-probe, nearest, within and ray answers equal the numpy world's, only rounded candidates
    left to numpy (``:some`` counts), and a point query against a rounded box is the closed-form
    distance of the point to the core box (in its frame; Ericson, RTCD 5.1.3) <= its radius."""
    from collideworld.queries import numpy_path_counts

    rng = np.random.default_rng(4133)
    worlds = [World(dim=3, backend=b) for b in ("numpy", "compiled")]
    tetra = [(0, 0, 0), (0.6, 0, 0), (0, 0.6, 0), (0, 0, 0.6)]
    shapes = {k: [Box((0.4, 0.3, 0.2), radius=0.2), ConvexHull(tetra, 0.15), Sphere(0.3)][k % 3] for k in range(12)}

    def pose():
        q = rng.normal(size=4)
        return rng.uniform(-2.5, 2.5, 3), q / np.linalg.norm(q)

    poses = {k: pose() for k in shapes}
    for w in worlds:
        for k, s in shapes.items():
            w.add(s, poses[k][0], quaternion=poses[k][1], id=k)
    checked = 0
    for _frame in range(30):
        for k in rng.choice(12, 4, replace=False).tolist():
            poses[k] = pose()
            for w in worlds:
                w.move(k, poses[k][0], quaternion=poses[k][1])
        for w in worlds:
            w.step()
        numpy_path_counts(reset=True)
        p = rng.uniform(-2.5, 2.5, 3)
        o, d = rng.uniform(-4, 4, 3), rng.normal(size=3)
        d /= np.linalg.norm(d)
        answers = [(sorted(w.query_point(p)), sorted(w.query_shape(Sphere(0.3), p)),
                    [h.id for h in w.query_nearest(p, k=3)],
                    sorted(h.id for h in w.query_within(Sphere(0.2), (p, [1.0, 0.0, 0.0, 0.0]), 0.3)),
                    [(h.id, round(h.distance, 9)) for h in w.raycast(o, d, 10.0)]) for w in worlds]
        counts = numpy_path_counts(reset=True)
        assert set(counts) <= {"overlapping:some", "raycast:some"}, counts
        assert answers[0] == answers[1], answers
        boxes = [k for k in shapes if k % 3 == 0]
        gaps = {}
        for k in boxes:
            pos, q = poses[k]
            w0, x, y, z = q
            rot = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w0 * z), 2 * (x * z + w0 * y)],
                            [2 * (x * y + w0 * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w0 * x)],
                            [2 * (x * z - w0 * y), 2 * (y * z + w0 * x), 1 - 2 * (x * x + y * y)]])
            local = (p - pos) @ rot
            half = np.array([0.4, 0.3, 0.2])
            gaps[k] = float(np.linalg.norm(local - np.clip(local, -half, half))) - 0.2
        if min(abs(g) for g in gaps.values()) > 1e-9:
            assert [k for k in answers[1][0] if k % 3 == 0] == sorted(k for k, g in gaps.items() if g <= 0)
            checked += 1
    assert checked >= 28, checked
