"""Capsules and segments: validation, contacts against every kind, ray casts, the world.

Oracles: shapely in 2D (a capsule is its core ``LineString`` grown by the
radius, so exact distances come from ``LineString.distance``), exact
segment distances in rational arithmetic (``fractions.Fraction``),
python-fcl (``fcl.Capsule``, ``fcl.Box``, ``fcl.Sphere``) in 3D, and the
minimum-translation property: moving b by ``depth * normal`` leaves the two
touching, and no shorter move in any direction separates them.
"""

from __future__ import annotations

import math
from fractions import Fraction

import fcl
import numpy as np
import pytest
from shapely.geometry import LineString, Point
from shapely.geometry import Polygon as ShapelyPolygon

from collideworld import Box, Capsule, Circle, HalfPlane, Plane, Polygon, Segment, Sphere, World, collide
from collideworld.backend import compiled_available
from collideworld.bodies import BodyStore, Kind
from collideworld.errors import CollideWorldError, InvalidShapeError
from collideworld.geometry.rotation import rotation_matrix_2d, rotation_matrix_3d
from collideworld.narrowphase import contact_pairs_exact

BACKENDS = ["numpy"] + (["compiled"] if compiled_available() else [])


class _Hit:
    def __init__(self, normal, depth) -> None:
        self.normal = np.asarray(normal)
        self.depth = float(depth)


def contact(shape_a, pose_a, shape_b, pose_b, backend: str = "numpy"):
    """The contact of two posed shapes through a two-body World on ``backend`` (None when apart)."""
    w = World(dim=shape_a.dim, backend=backend)
    for i, (shape, pose) in enumerate(((shape_a, pose_a), (shape_b, pose_b))):
        if pose is None:
            w.add(shape, id=i)
        elif shape.dim == 2:
            w.add(shape, position=pose[0], angle=pose[1], id=i)
        else:
            w.add(shape, position=pose[0], quaternion=pose[1], id=i)
    found = [c for c in w.step()]
    if not found:
        return None
    # a concave polygon gives a contact per touching convex piece: keep the deepest (the first
    # on ties, in part order), the one collide() answers with
    c = found[int(np.argmax([x.depth for x in found]))]
    assert len(found) == 1 or any(isinstance(s, Polygon) and not s.is_convex for s in (shape_a, shape_b))
    sign = 1.0 if c.a == 0 else -1.0
    res = _Hit(sign * np.asarray(c.normal), c.depth)
    if backend == "numpy":  # collide() is the same pair without a world: the same answer
        single = collide(shape_a, pose_a, shape_b, pose_b)
        assert single is not None and np.array_equal(single.normal, res.normal) and single.depth == res.depth
    return res


# -- validation ---------------------------------------------------------------------

@pytest.mark.parametrize("make, message", [
    (lambda: Capsule((0, 0), (1, 0), -1), "radius must be > 0, got -1"),
    (lambda: Capsule((0, 0), (1, 0), 0), "radius must be > 0, got 0"),
    (lambda: Capsule((0, math.nan), (1, 0), 1), "p0[1] must be finite"),
    (lambda: Capsule((0, 0), (math.inf, 0), 1), "p1[0] must be finite"),
    (lambda: Capsule((0, 0), (1, 0), math.inf), "radius must be finite"),
    (lambda: Capsule((0, 0), (2e150, 0), 1), "at most 1e+150"),
    (lambda: Capsule((0, 0), (1, 0), 2e150), "at most 1e+150"),
    (lambda: Capsule((0, 0, 0), (1, 0), 1), "same number of coordinates, got 3 and 2"),
    (lambda: Capsule((0,), (1,), 1), "2 or 3 components"),
    (lambda: Capsule("ab", (1, 0), 1), "must be a real number"),
    (lambda: Capsule(5, (1, 0), 1), "sequence of 2 or 3 numbers"),
    (lambda: Segment((1, 1), (1, 1)), "must differ, got both (1.0, 1.0)"),
    (lambda: Segment((1, 1, 0), (1, 1)), "same number of coordinates"),
    (lambda: Segment((0, 0), (0, -math.inf)), "must be finite"),
    (lambda: Segment((0, 0), (1e151, 0)), "at most 1e+150"),
])
def test_bad_input_is_refused_with_a_clear_error(make, message: str) -> None:
    with pytest.raises(InvalidShapeError) as info:
        make()
    assert message in str(info.value)
    assert isinstance(info.value, (CollideWorldError, ValueError))


def test_shapes_print_and_compare_by_value() -> None:
    assert repr(Segment((0, 0), (1, 2))) == "Segment(p0=(0.0, 0.0), p1=(1.0, 2.0))"
    assert Capsule([0, 0], [1, 0], 1) == Capsule((0.0, 0.0), (1.0, 0.0), 1.0)
    assert hash(Capsule([0, 0], [1, 0], 1)) == hash(Capsule((0.0, 0.0), (1.0, 0.0), 1.0))
    assert Capsule((1, 2, 3), (1, 2, 3), 0.5).dim == 3  # p0 == p1: a ball
    assert Segment((0, 0), (3, 4)).radius == 0.0 and Segment((0, 0), (3, 4)).bounding_radius == 5.0


def test_a_rejected_add_changes_nothing() -> None:
    w = World(dim=2)
    with pytest.raises(InvalidShapeError):
        w.add(Capsule((0, 0, 0), (1, 0, 0), 1.0), position=(0, 0))
    assert len(w) == 0


# -- 2D: shapely oracles ---------------------------------------------------------

def _core_2d(shape, pos, angle):
    """(shapely geometry of the core, radius) of a posed 2D shape."""
    rot = rotation_matrix_2d(np.array([angle]))[0]

    def place(points):
        return [tuple(rot @ np.asarray(p, dtype=float) + pos) for p in points]

    if isinstance(shape, (Capsule, Segment)):
        a, b = place([shape.p0, shape.p1])
        return (LineString([a, b]) if a != b else Point(a)), shape.radius
    if isinstance(shape, Circle):
        return Point(pos), shape.radius
    if isinstance(shape, Box):
        hx, hy = shape.half_extents
        return ShapelyPolygon(place([(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)])), 0.0
    return ShapelyPolygon(place(shape.vertices)), 0.0


def _random_2d_shape(rng, kind):
    if kind == "circle":
        return Circle(rng.uniform(0.1, 1.0))
    if kind == "box":
        return Box(tuple(rng.uniform(0.1, 1.0, 2)))
    if kind == "polygon":  # half convex, half the concave L
        if rng.random() < 0.5:
            ang = np.sort(rng.uniform(0, 2 * np.pi, 5))
            return Polygon([tuple(p) for p in np.stack([np.cos(ang), np.sin(ang)], 1) * rng.uniform(0.3, 1.2)])
        return Polygon([(0, 0), (1, 0), (1, 0.4), (0.4, 0.4), (0.4, 1), (0, 1)])
    if kind == "segment":
        return Segment(tuple(rng.uniform(-1, 1, 2)), tuple(rng.uniform(-1, 1, 2)))
    p0 = tuple(rng.uniform(-1, 1, 2))
    p1 = p0 if rng.random() < 0.15 else tuple(rng.uniform(-1, 1, 2))  # sometimes a disc
    return Capsule(p0, p1, rng.uniform(0.05, 0.8))


def _gap_2d(sa, pa, aa, sb, pb, ab) -> float:
    """Signed gap of two posed 2D shapes (negative: overlapping by at least that much), from shapely."""
    ga, ra = _core_2d(sa, pa, aa)
    gb, rb = _core_2d(sb, pb, ab)
    return ga.distance(gb) - ra - rb


KINDS_2D = ["circle", "box", "polygon", "segment", "capsule"]


@pytest.mark.parametrize("kind", KINDS_2D)
@pytest.mark.parametrize("backend", BACKENDS)
def test_2d_against_shapely_and_minimum_translation(kind: str, backend: str) -> None:
    rng = np.random.default_rng([7, KINDS_2D.index(kind)])
    checked_overlaps = 0
    for _ in range(150):
        sa = _random_2d_shape(rng, kind)
        sb = _random_2d_shape(rng, "capsule" if rng.random() < 0.7 else "segment")
        pa, aa = rng.uniform(-1, 1, 2), rng.uniform(-np.pi, np.pi)
        pb, ab = rng.uniform(-1, 1, 2), rng.uniform(-np.pi, np.pi)
        gap = _gap_2d(sa, pa, aa, sb, pb, ab)
        res = contact(sa, (pa, aa), sb, (pb, ab), backend)
        if gap > 1e-9:
            assert res is None, (sa, sb, gap)
            continue
        if gap < -1e-9:
            assert res is not None, (sa, sb, gap)
        if res is None:
            continue
        n, depth = res.normal, res.depth
        assert abs(np.linalg.norm(n) - 1.0) < 1e-12
        # moving b by the MTD leaves them touching
        moved = _gap_2d(sa, pa, aa, sb, pb + depth * n, ab)
        if not (isinstance(sa, Polygon) and not sa.is_convex):  # concave: the deepest part's MTD only
            assert abs(moved) <= 1e-9, (sa, sb, pa, aa, pb, ab, depth, n, moved)
            # and no shorter move separates them, whatever the direction
            for u in rng.normal(size=(12, 2)):
                u /= np.linalg.norm(u)
                assert _gap_2d(sa, pa, aa, sb, pb + depth * (1 - 1e-6) * u, ab) <= 1e-12
            checked_overlaps += depth > 1e-6
        # symmetry: the same pair the other way round flips the normal
        back = contact(sb, (pb, ab), sa, (pa, aa), backend)
        assert back is not None and np.allclose(back.normal, -n, atol=1e-12) and abs(back.depth - depth) < 1e-12
    assert checked_overlaps > 20


@pytest.mark.parametrize("backend", BACKENDS)
def test_halfplane_against_capsules_is_the_lowest_end_point(backend: str) -> None:
    rng = np.random.default_rng(3)
    for _ in range(100):
        nrm = rng.normal(size=2)
        off = rng.uniform(-1, 1)
        cap = _random_2d_shape(rng, "capsule")
        pos, ang = rng.uniform(-1, 1, 2), rng.uniform(-3, 3)
        hp = HalfPlane(tuple(nrm), off)
        core, r = _core_2d(cap, pos, ang)
        lowest = min(np.dot(hp.normal, c) for c in np.asarray(core.coords)) - r
        res = contact(hp, None, cap, (pos, ang), backend)
        expected = hp.offset - lowest
        if expected < -1e-12:
            assert res is None
        elif expected > 1e-12:
            assert res is not None and abs(res.depth - expected) < 1e-12
            assert np.allclose(res.normal, hp.normal)


# -- exact segment distances -----------------------------------------------------

def _exact_segment_distance2(p0, p1, q0, q1) -> Fraction:
    """Squared distance of two segments with rational end points, exactly (brute force over the cases)."""
    p0, p1, q0, q1 = ([Fraction(c) for c in v] for v in (p0, p1, q0, q1))

    def sub(u, v):
        return [a - b for a, b in zip(u, v, strict=True)]

    def dot(u, v):
        return sum((a * b for a, b in zip(u, v, strict=True)), Fraction(0))

    def point_seg(x, a, b):
        d = sub(b, a)
        dd = dot(d, d)
        t = min(max(dot(sub(x, a), d) / dd, Fraction(0)), Fraction(1)) if dd else Fraction(0)
        w = sub(x, [ai + t * di for ai, di in zip(a, d, strict=True)])
        return dot(w, w)

    best = min(point_seg(p0, q0, q1), point_seg(p1, q0, q1), point_seg(q0, p0, p1), point_seg(q1, p0, p1))
    dp, dq, r = sub(p1, p0), sub(q1, q0), sub(p0, q0)
    a, e, b, c, f = dot(dp, dp), dot(dq, dq), dot(dp, dq), dot(dp, r), dot(dq, r)
    den = a * e - b * b
    if den:  # the interior critical point of the two lines, if it lies on both segments
        s = (b * f - c * e) / den
        t = (a * f - b * c) / den
        if 0 <= s <= 1 and 0 <= t <= 1:
            w = sub([x + s * y for x, y in zip(p0, dp, strict=True)], [x + t * y for x, y in zip(q0, dq, strict=True)])
            best = min(best, dot(w, w))
    return best


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("backend", BACKENDS)
def test_capsule_capsule_distance_is_exact(dim: int, backend: str) -> None:
    """Integer end points (parallel, crossing, touching and skew cases arise often) against exact fractions."""
    rng = np.random.default_rng([11, dim])
    store = BodyStore(dim)
    m = 400
    slots = store.allocate(2 * m)
    pts = rng.integers(-4, 5, size=(2 * m, 2, dim)).astype(float)
    radii = rng.integers(1, 4, size=2 * m) / 4.0
    shapes = [Capsule(tuple(p[0]), tuple(p[1]), r) for p, r in zip(pts, radii, strict=True)]
    store.set_shapes(slots, shapes)
    if dim == 2:
        store.set_poses(slots, np.zeros((2 * m, 2)), np.zeros(2 * m))
    else:
        store.set_poses(slots, np.zeros((2 * m, 3)), quaternion=np.tile([1.0, 0, 0, 0], (2 * m, 1)))
    res = contact_pairs_exact(store, slots[:m], slots[m:], backend=backend)
    apart = 0
    for k in range(m):
        d2 = _exact_segment_distance2(*pts[k], *pts[m + k])
        reach = Fraction(radii[k]) + Fraction(radii[m + k])
        if d2 > 0:
            # the exact signed gap (the kernel reports minus it when apart)
            expected = float(reach) - math.sqrt(d2)
            assert abs(res.depth[k] - max(expected, 0.0) if res.hit[k] else res.depth[k] - expected) < 1e-12
            assert res.hit[k] == (d2 <= reach * reach)
            apart += not res.hit[k]
        else:
            assert res.hit[k] and res.depth[k] >= float(reach) - 1e-12
    assert apart > 50


# -- 3D: python-fcl ---------------------------------------------------------------



def _fcl_object(shape, pos, quat):
    rot = rotation_matrix_3d(np.asarray(quat, dtype=float)[None])[0]
    if isinstance(shape, Sphere):
        return fcl.CollisionObject(fcl.Sphere(shape.radius), fcl.Transform(rot, np.asarray(pos, dtype=float)))
    if isinstance(shape, Box):
        return fcl.CollisionObject(fcl.Box(*(2 * np.array(shape.half_extents))),
                                   fcl.Transform(rot, np.asarray(pos, dtype=float)))
    # fcl's capsule lies along its local z axis, centred: turn z onto p1 - p0
    p0, p1 = np.array(shape.p0), np.array(shape.p1)
    axis = p1 - p0
    length = float(np.linalg.norm(axis))
    z = axis / length if length > 0 else np.array([0.0, 0.0, 1.0])
    helper = np.array([1.0, 0, 0]) if abs(z[0]) < 0.9 else np.array([0, 1.0, 0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    frame = np.stack([x, np.cross(z, x), z], axis=1)
    centre = rot @ ((p0 + p1) / 2) + pos
    geom = fcl.Capsule(shape.radius, length) if length > 0 else fcl.Sphere(shape.radius)
    return fcl.CollisionObject(geom, fcl.Transform(rot @ frame, centre))


def _fcl_distance(sa, pa, qa, sb, pb, qb) -> float:
    res = fcl.DistanceResult()
    return float(fcl.distance(_fcl_object(sa, pa, qa), _fcl_object(sb, pb, qb), fcl.DistanceRequest(), res))


def _point_segment_distance(x, a, b) -> float:
    d = b - a
    t = float(np.clip(np.dot(x - a, d) / np.dot(d, d), 0, 1)) if np.dot(d, d) else 0.0
    return float(np.linalg.norm(x - (a + t * d)))


def _gap_3d(sa, pa, qa, sb, pb, qb) -> float:
    """Signed gap of a shape and a capsule (b), by minimising the convex distance along b's segment.

    fcl's GJK distances are good to ~1e-6 here; this 1-D minimisation (a fine
    grid, then scipy's bounded Brent) is good to ~1e-15, for the MTD checks.
    """
    from scipy.optimize import minimize_scalar

    ra = rotation_matrix_3d(np.asarray(qa, dtype=float)[None])[0]
    rb = rotation_matrix_3d(np.asarray(qb, dtype=float)[None])[0]
    b0, b1 = rb @ np.array(sb.p0) + pb, rb @ np.array(sb.p1) + pb
    if isinstance(sa, Box):
        h = np.array(sa.half_extents)

        def to_a(x):
            local = ra.T @ (x - pa)
            return float(np.linalg.norm(local - np.clip(local, -h, h)))
        reach = 0.0
    elif isinstance(sa, Sphere):
        def to_a(x):
            return float(np.linalg.norm(x - pa))
        reach = sa.radius
    else:
        a0, a1 = ra @ np.array(sa.p0) + pa, ra @ np.array(sa.p1) + pa

        def to_a(x):
            return _point_segment_distance(x, a0, a1)
        reach = sa.radius

    def f(t):
        return to_a(b0 + t * (b1 - b0))
    ts = np.linspace(0, 1, 2001)
    k = int(np.argmin([f(t) for t in ts]))
    best = minimize_scalar(f, bounds=(ts[max(k - 1, 0)], ts[min(k + 1, 2000)]), method="bounded",
                           options={"xatol": 1e-15})
    return min(float(best.fun), f(0.0), f(1.0), f(ts[k])) - reach - sb.radius


def _random_3d_shape(rng, kind):
    if kind == "sphere":
        return Sphere(rng.uniform(0.1, 1.0))
    if kind == "box":
        return Box(tuple(rng.uniform(0.1, 1.0, 3)))
    p0 = tuple(rng.uniform(-1, 1, 3))
    p1 = p0 if rng.random() < 0.15 else tuple(rng.uniform(-1, 1, 3))
    return Capsule(p0, p1, rng.uniform(0.05, 0.8))


def _unit_quaternion(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


@pytest.mark.parametrize("kind", ["sphere", "box", "capsule"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_3d_against_fcl_and_minimum_translation(kind: str, backend: str) -> None:
    rng = np.random.default_rng([5, len(kind)])
    overlaps = 0
    for _ in range(150):
        sa, sb = _random_3d_shape(rng, kind), _random_3d_shape(rng, "capsule")
        pa, qa = rng.uniform(-1, 1, 3), _unit_quaternion(rng)
        pb, qb = rng.uniform(-1, 1, 3), _unit_quaternion(rng)
        dist = _fcl_distance(sa, pa, qa, sb, pb, qb)
        res = contact(sa, (pa, qa), sb, (pb, qb), backend)
        if dist > 1e-5:  # fcl's distances are good to about 1e-6 here
            assert res is None, (sa, sb, dist)
            continue
        if dist > 0 and res is None:  # fcl: apart by at most 1e-5; the exact oracle must say apart
            assert _gap_3d(sa, pa, qa, sb, pb, qb) > 0
            continue
        assert res is not None, (sa, sb, dist)
        n, depth = res.normal, res.depth
        if depth < 1e-6:
            continue
        overlaps += 1
        # b moved by depth along the normal touches a (the exact 1-D oracle; fcl agrees to its ~1e-6)
        moved = _gap_3d(sa, pa, qa, sb, pb + depth * n, qb)
        assert abs(moved) < 1e-9, (sa, sb, pa, qa, pb, qb, depth, n, moved)
        assert abs(_fcl_distance(sa, pa, qa, sb, pb + (depth + 1e-3) * n, qb) - 1e-3) < 1e-5
        # and a shorter move in a random direction leaves them overlapping
        for u in rng.normal(size=(6, 3)):
            u /= np.linalg.norm(u)
            assert _fcl_distance(sa, pa, qa, sb, pb + depth * (1 - 1e-3) * u, qb) <= 1e-9
        back = contact(sb, (pb, qb), sa, (pa, qa), backend)
        assert back is not None and np.allclose(back.normal, -n, atol=1e-12) and abs(back.depth - depth) < 1e-12
    assert overlaps > 15


def test_plane_against_capsules() -> None:
    plane = Plane((0, 0, 1), 0)
    tilted = Capsule((0, 0, 0), (0, 0, 2), 0.5)
    # a quarter turn about x lays it along -y; lowest point 0.5 below its centre line
    q = (math.cos(math.pi / 4), math.sin(math.pi / 4), 0, 0)
    res = collide(plane, None, tilted, ((0, 0, 0.25), q))
    assert res is not None and abs(res.depth - 0.25) < 1e-12 and np.allclose(res.normal, (0, 0, 1))
    assert collide(plane, None, Segment((0, 0, 0), (1, 1, 1)), ((0, 0, 1e-3), (1, 0, 0, 0))) is None
    touching = collide(plane, None, Segment((0, 0, 0), (1, 1, 1)), ((0, 0, 0), (1, 0, 0, 0)))
    assert touching is not None and touching.depth == 0.0


def test_segment_inside_a_box_is_found_by_the_box_sat() -> None:
    """A segment wholly inside a box: depth is the least push out, checked by hand."""
    res = collide(Box((2, 1, 3)), ((0, 0, 0), (1, 0, 0, 0)), Segment((-0.5, 0.2, 0), (0.5, 0.2, 0)),
                  ((0, 0, 0), (1, 0, 0, 0)))
    assert res is not None and abs(res.depth - 0.8) < 1e-12 and np.allclose(res.normal, (0, 1, 0))


# -- touching exactly, degenerate and parallel ---------------------------------------

def test_touching_exactly_counts() -> None:
    # parallel capsules one diameter apart, side by side and end to end
    a = Capsule((0, 0), (2, 0), 0.5)
    side = collide(a, ((0, 0), 0), a, ((0, 1), 0))
    ends = collide(a, ((0, 0), 0), a, ((3, 0), 0))
    assert side is not None and side.depth == 0.0 and np.allclose(side.normal, (0, 1))
    assert ends is not None and ends.depth == 0.0 and np.allclose(ends.normal, (1, 0))
    assert collide(a, ((0, 0), 0), a, ((0, 1 + 1e-12), 0)) is None
    # a segment resting on a box face, in 3D
    res = collide(Box((1, 1, 1)), ((0, 0, 0), (1, 0, 0, 0)), Segment((-3, 0, 1), (3, 0, 1)), ((0, 0, 0), (1, 0, 0, 0)))
    assert res is not None and res.depth == 0.0 and np.allclose(res.normal, (0, 0, 1))


def test_degenerate_capsule_is_a_ball() -> None:
    rng = np.random.default_rng(2)
    for _ in range(50):
        c = rng.uniform(-1, 1, 3)
        r = rng.uniform(0.1, 1)
        other = _random_3d_shape(rng, rng.choice(["sphere", "box", "capsule"]))
        po, qo = rng.uniform(-1, 1, 3), _unit_quaternion(rng)
        ball = collide(Sphere(r), (c, (1, 0, 0, 0)), other, (po, qo))
        cap = collide(Capsule(tuple(c), tuple(c), r), ((0, 0, 0), (1, 0, 0, 0)), other, (po, qo))
        assert (ball is None) == (cap is None)
        if ball is not None:
            assert abs(ball.depth - cap.depth) < 1e-12
            if ball.depth > 1e-9:
                assert np.allclose(ball.normal, cap.normal, atol=1e-9)


def test_crossing_segments_3d_push_along_the_common_perpendicular() -> None:
    res = collide(Capsule((-1, 0, 0), (1, 0, 0), 0.25), ((0, 0, 0), (1, 0, 0, 0)),
                  Capsule((0, -1, 0), (0, 1, 0), 0.25), ((0, 0, 0), (1, 0, 0, 0)))
    assert res is not None and abs(res.depth - 0.5) < 1e-15 and abs(abs(res.normal[2]) - 1) < 1e-15


# -- ray casts --------------------------------------------------------------------

@pytest.mark.parametrize("dim", [2, 3])
def test_raycast_hits_the_surface_first(dim: int) -> None:
    """The hit point is at distance r from the core segment; points before it are farther (exact distances)."""
    rng = np.random.default_rng([21, dim])
    w = World(dim=dim)
    hits = 0
    for i in range(60):
        p0, p1 = tuple(rng.uniform(-1, 1, dim)), tuple(rng.uniform(-1, 1, dim))
        shape = Capsule(p0, p1, rng.uniform(0.1, 0.6))
        w.add(shape, position=np.zeros(dim), id=i)
        origin = rng.uniform(-3, 3, dim)
        target = rng.uniform(-0.5, 0.5, dim)
        direction = (target - origin) / np.linalg.norm(target - origin)
        hits_now = w.raycast(origin, direction)
        hit = hits_now[0] if hits_now else None
        a, b = np.array(p0), np.array(p1)

        def seg_dist(x, a=a, b=b):
            return _point_segment_distance(x, a, b)

        ts = np.linspace(0, 8, 4001)
        inside = [seg_dist(origin + t * direction) <= shape.radius for t in ts]
        if not any(inside):
            assert hit is None or hit.id != i
        else:
            assert hit is not None and hit.id == i
            point = origin + hit.distance * direction
            assert abs(seg_dist(point) - shape.radius) < 1e-9 or hit.distance == 0.0
            assert hit.distance <= ts[inside.index(True)] + 1e-9
            if hit.distance > 0:  # else the origin is inside
                assert all(seg_dist(origin + t * direction) > shape.radius - 1e-12
                           for t in np.linspace(0, hit.distance, 50)[:-1])
            hits += 1
        w.remove(i)
    assert hits > 15


# -- the world ---------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_world_pairs_match_shapely_brute_force(backend: str) -> None:
    rng = np.random.default_rng(9)
    w = World(dim=2, backend=backend)
    bodies = {}
    for i in range(60):
        kind = rng.choice(KINDS_2D)
        shape = _random_2d_shape(rng, kind)
        pos, ang = rng.uniform(-4, 4, 2), rng.uniform(-3, 3)
        w.add(shape, position=pos, angle=ang, id=i)
        bodies[i] = (shape, pos, ang)
    for _ in range(4):
        res = w.step()
        got = {tuple(sorted((int(c.a), int(c.b)))) for c in res}
        expected = set()
        for i in bodies:
            for j in bodies:
                if i < j:
                    gap = _gap_2d(*bodies[i], *bodies[j])
                    if gap < -1e-9:
                        expected.add((i, j))
                    elif gap <= 1e-9:  # too near to call: take whatever the world says
                        expected.discard((i, j))
                        if (i, j) in got:
                            expected.add((i, j))
        assert got == expected
        for i in rng.choice(60, 10, replace=False).tolist():
            shape, _, _ = bodies[i]
            pos, ang = rng.uniform(-4, 4, 2), rng.uniform(-3, 3)
            w.move(i, position=pos, angle=ang)
            bodies[i] = (shape, pos, ang)


def test_store_kind_and_aabb() -> None:
    store = BodyStore(3)
    s = store.allocate(1)
    store.set_shapes(s, [Capsule((0, 0, -1), (0, 0, 1), 0.5)])
    q = np.array([[math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0]])  # z onto x
    store.set_poses(s, np.array([[1.0, 2.0, 3.0]]), quaternion=q)
    lo, hi = store.aabbs(s)
    assert store.kind[s[0]] == Kind.CAPSULE
    np.testing.assert_allclose(lo, [[-0.5, 1.5, 2.5]], atol=1e-15)
    np.testing.assert_allclose(hi, [[2.5, 2.5, 3.5]], atol=1e-15)


def test_render_outlines_capsules_and_segments() -> None:
    """The drawn outline of a capsule lies on its surface; a segment is drawn as its two end points."""
    from types import SimpleNamespace

    from collideworld.render import _outline

    body = SimpleNamespace(shape=Capsule((-1, 0), (1, 0.5), 0.25), position=(2.0, 1.0), angle=0.7, quaternion=None)
    kind, pts = _outline(body, 2)
    core, r = _core_2d(body.shape, np.array(body.position), body.angle)
    assert kind == "poly" and len(pts) > 20
    assert all(abs(core.distance(Point(p)) - r) < 1e-12 for p in pts)
    assert ShapelyPolygon(pts).is_valid  # the stadium in order, not a tangle
    body3 = SimpleNamespace(shape=Capsule((0, 0, -1), (0, 0, 1), 0.5), position=(0.0, 0.0, 3.0), angle=None,
                            quaternion=(1.0, 0.0, 0.0, 0.0))
    _, pts3 = _outline(body3, 3)
    # in the capsule, and spanning its silhouette (the view draws their projected hull)
    assert all(_point_segment_distance(p, np.array([0, 0, 2.0]), np.array([0, 0, 4.0])) <= 0.5 + 1e-12 for p in pts3)
    np.testing.assert_allclose([pts3[:, 0].min(), pts3[:, 0].max(), pts3[:, 2].min(), pts3[:, 2].max()],
                               [-0.5, 0.5, 1.5, 4.5], atol=1e-12)
    seg = SimpleNamespace(shape=Segment((0, 0), (1, 0)), position=(0.0, 0.0), angle=math.pi / 2, quaternion=None)
    np.testing.assert_allclose(_outline(seg, 2)[1], [[0, 0], [0, 1]], atol=1e-15)
