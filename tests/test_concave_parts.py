"""Concave polygons report one contact per touching convex piece, as compounds do per part.

Oracle: shapely, on the posed convex pieces (``Polygon.parts``, placed by the
test's own rotation and translation) and on the other shape as an exact
polygon (a box, a polygon, a half-plane as a polygon far larger than the
scene); a circle as its centre and radius (``distance(centre) <= r``, no
buffered approximation). Shapely decides which pieces touch the other
shape, where they overlap (contact points must lie on the overlap within a
tolerance) and whether moving by a contact's ``normal * depth`` leaves that
piece overlapping (intersection area ~0, or for a circle the centre at
least ``r`` from the piece).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import Point
from shapely.geometry import Polygon as ShapelyPolygon

from collideworld import Box, Circle, HalfPlane, Polygon, World, collide
from collideworld.backend import compiled_available

BACKENDS = ["numpy"] + (["compiled"] if compiled_available() else [])

L_SHAPE = Polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)])
U_SHAPE = Polygon([(0, 0), (3, 0), (3, 2), (2, 2), (2, 1), (1, 1), (1, 2), (0, 2)])
BIG = 1e3  # a half-plane as a polygon this far out (the scenes are within 10 of the origin)


def cross2(u, w):
    return u[0] * w[..., 1] - u[1] * w[..., 0]


def rot2(a: float) -> np.ndarray:
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def posed(verts, pos, angle) -> ShapelyPolygon:
    v = np.asarray(verts, dtype=np.float64) @ rot2(angle).T + np.asarray(pos, dtype=np.float64)
    return ShapelyPolygon(v)


def pieces(shape, pos, angle):
    """The shapely pieces of a shape at a pose: a concave polygon's convex parts, else the shape whole."""
    if isinstance(shape, Polygon):
        return [posed(p, pos, angle) for p in shape.parts]
    if isinstance(shape, Box):
        hx, hy = shape.half_extents
        return [posed([(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)], pos, angle)]
    if isinstance(shape, HalfPlane):
        n = np.asarray(shape.normal)
        t = np.array([-n[1], n[0]])
        o = n * shape.offset
        return [ShapelyPolygon([o + BIG * t, o - BIG * t, o - BIG * t - BIG * n, o + BIG * t - BIG * n])]
    assert isinstance(shape, Circle)
    return [("circle", np.asarray(pos, dtype=np.float64), shape.radius)]


def gap(p, q) -> float:
    """Shapely's signed gap between two pieces: the distance when apart, minus something when they overlap.

    (For two polygons the overlap gives -sqrt(intersection area): only its sign is used.)
    """
    if isinstance(q, tuple):
        p, q = q, p
    if isinstance(p, tuple):
        _, c, r = p
        if q.contains(Point(c)):
            return -r
        return float(q.distance(Point(c)) - r)
    area = p.intersection(q).area
    return -math.sqrt(area) if area > 0 else float(p.distance(q))


def overlap_area(p, q) -> float:
    if isinstance(q, tuple):
        p, q = q, p
    if isinstance(p, tuple):  # circle: how far the piece reaches inside the radius (0 when resolved)
        _, c, r = p
        inside = q.contains(Point(c))
        return float(r if inside else max(0.0, r - q.distance(Point(c))))
    return float(p.intersection(q).area)


def near_overlap(point, p, q, tol) -> bool:
    """Whether ``point`` is within ``tol`` of both pieces (so of their overlap, up to tol)."""
    ok = True
    for piece in (p, q):
        if isinstance(piece, tuple):
            _, c, r = piece
            ok &= bool(np.hypot(*(np.asarray(point) - c)) <= r + tol)
        else:
            ok &= bool(piece.distance(Point(point)) <= tol)
    return ok


def translate(piece, v):
    if isinstance(piece, tuple):
        return ("circle", piece[1] + v, piece[2])
    return shapely.affinity.translate(piece, float(v[0]), float(v[1]))


def world_with(backend, a, pa, b, pb):
    w = World(dim=2, backend=backend, manifolds=True)
    w.add(a, position=None if isinstance(a, HalfPlane) else pa[0], angle=None if isinstance(a, HalfPlane) else pa[1],
          id="a")
    w.add(b, position=None if isinstance(b, HalfPlane) else pb[0], angle=None if isinstance(b, HalfPlane) else pb[1],
          id="b")
    return w


def check_pair(backend, a, pa, b, pb, tol=1e-6):
    """Every touching piece pair has one contact, and each contact's points and normal * depth agree with shapely.

    Returns the contacts (for further checks)."""
    w = world_with(backend, a, pa, b, pb)
    c = w.step()
    w.validate()
    got = {}
    for k in range(len(c)):
        x = c[k]
        assert (x.a, x.b) == ("a", "b")
        key = (x.part_a, x.part_b)
        assert key not in got, f"piece pair {key} reported twice"
        got[key] = x
    side_a = pieces(a, *pa) if not isinstance(a, HalfPlane) else pieces(a, None, None)
    side_b = pieces(b, *pb) if not isinstance(b, HalfPlane) else pieces(b, None, None)
    split_a = isinstance(a, Polygon) and not a.is_convex
    split_b = isinstance(b, Polygon) and not b.is_convex
    for i, p in enumerate(side_a):
        for j, q in enumerate(side_b):
            key = (i if split_a else -1, j if split_b else -1)
            g = gap(p, q)
            if g < -tol ** 2:
                assert key in got, f"pieces {key} overlap by {-g} per shapely; no contact"
            elif g > tol:
                assert key not in got, f"pieces {key} are {g} apart per shapely; contact {got.get(key)}"
            if key not in got:
                continue
            x = got[key]
            # the points lie on the overlap of the two pieces, each within its own |separation|
            # (the documented contract: a point sits between the two surfaces)
            for pt, sep in zip(x.points, x.separations, strict=True):
                assert near_overlap(pt, p, q, tol + abs(sep)), (key, pt.tolist(), sep)
            # moving b by normal * depth resolves this piece pair's overlap
            moved = translate(q, np.asarray(x.normal) * x.depth)
            assert overlap_area(p, moved) <= 1e-9, (key, x.normal.tolist(), x.depth)
    return c


# -- the flat case --------------------------------------------------------------------------

FLOORS = {
    "box": (Box((5.0, 1.0)), ((1.0, -1.0), 0.0)),
    "polygon": (Polygon([(-4, -2), (6, -2), (6, 0), (-4, 0)]), ((0.0, 0.0), 0.0)),
    "halfplane": (HalfPlane((0.0, 1.0), 0.0), (None, None)),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("floor", list(FLOORS))
@pytest.mark.parametrize("shape", ["L", "U"])
def test_a_concave_polygon_flat_on_a_floor_touches_at_both_ends(backend, floor, shape):
    poly = L_SHAPE if shape == "L" else U_SHAPE
    f, fp = FLOORS[floor]
    c = check_pair(backend, f, fp, poly, ((0.0, -1e-3), 0.0))
    pts = np.concatenate([c.points[k, :c.point_count[k]] for k in range(len(c))])
    # shapely: the overlap is the strip [0, width] x [-1e-3, 0]
    strip = posed(poly.vertices, (0.0, -1e-3), 0.0).intersection(pieces(f, *fp)[0] if floor != "halfplane"
                                                                  else pieces(f, None, None)[0])
    xmin, _, xmax, _ = strip.bounds
    assert pts[:, 0].min() == pytest.approx(xmin, abs=1e-9)
    assert pts[:, 0].max() == pytest.approx(xmax, abs=1e-9)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("floor", ["box", "polygon"])
def test_a_u_on_a_floor_is_steady_under_jitter(backend, floor):
    f, fp = FLOORS[floor]
    rng = np.random.default_rng(25)

    def answer(dx, dy, da):
        c = world_with(backend, f, fp, U_SHAPE, ((dx, -1e-3 + dy), da)).step()
        return {(int(c.part_b[k]), int(c.point_ids[k, i])): c.points[k, i]
                for k in range(len(c)) for i in range(int(c.point_count[k]))}

    base = answer(0.0, 0.0, 0.0)
    xs = sorted(p[0] for p in base.values())
    assert xs[0] == pytest.approx(0.0, abs=1e-9) and xs[-1] == pytest.approx(3.0, abs=1e-9)
    for _ in range(40):
        dx, dy, da = rng.uniform(-1e-9, 1e-9, 3)
        got = answer(dx, dy, da)
        assert got.keys() == base.keys()
        for key, p in got.items():
            assert np.abs(p - base[key]).max() <= 1e-8


# -- a circle in the L's corner -------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_a_circle_in_the_corner_of_an_l_gets_a_contact_per_piece(backend):
    c = check_pair(backend, L_SHAPE, ((0.0, 0.0), 0.0), Circle(0.5), ((1.0, 1.0), 0.0))
    # shapely: the circle overlaps every piece but the ones only touching it at a point
    touching = [i for i, p in enumerate(L_SHAPE.parts) if ShapelyPolygon(p).distance(Point(1, 1)) < 0.5 - 1e-9]
    assert sorted(c.part_a.tolist()) == touching
    assert len(touching) >= 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_events_are_per_piece(backend):
    w = World(dim=2, backend=backend)
    w.add(L_SHAPE, id="l")
    w.add(Circle(0.3), position=(1.5, 0.5), id="c")  # inside the foot only
    first = w.step()
    foot = [i for i, p in enumerate(L_SHAPE.parts) if ShapelyPolygon(p).distance(Point(1.5, 0.5)) <= 0.3]
    assert sorted(r[2] for r in first.began.rows()) == foot
    w.move("c", position=(0.5, 1.5))  # inside the upright only
    second = w.step()
    up = [i for i, p in enumerate(L_SHAPE.parts) if ShapelyPolygon(p).distance(Point(0.5, 1.5)) <= 0.3]
    assert sorted(r[2] for r in second.began.rows()) == sorted(set(up) - set(foot))
    assert sorted(r[2] for r in second.ended.rows()) == sorted(set(foot) - set(up))


@pytest.mark.parametrize("backend", BACKENDS)
def test_collide_names_the_deepest_piece(backend):
    r = collide(L_SHAPE, ((0.0, 0.0), 0.0), Circle(0.5), ((1.0, 1.0), 0.0), backend=backend)
    assert r is not None and 0 <= r.part_a < len(L_SHAPE.parts) and r.part_b == -1
    piece = ShapelyPolygon(L_SHAPE.parts[r.part_a])
    centre = np.array([1.0, 1.0]) + r.normal * r.depth
    assert piece.distance(Point(centre)) >= 0.5 - 1e-9


# -- a seeded family --------------------------------------------------------------------------

def random_simple_polygon(rng, k):
    """A star-shaped polygon (angles sorted, radii random): simple, usually concave."""
    ang = np.sort(rng.uniform(0, 2 * math.pi, k))
    rad = rng.uniform(0.4, 1.5, k)
    v = np.stack([rad * np.cos(ang), rad * np.sin(ang)], axis=1)
    if not ShapelyPolygon(v).is_valid or ShapelyPolygon(v).area < 0.1:
        return None
    try:
        return Polygon([tuple(p) for p in v])
    except Exception:
        return None


def random_concave(rng):
    kind = rng.integers(0, 3)
    if kind == 0:
        return L_SHAPE
    if kind == 1:
        return U_SHAPE
    while True:
        p = random_simple_polygon(rng, int(rng.integers(5, 12)))
        if p is not None and not p.is_convex:
            return p


def random_other(rng):
    kind = rng.integers(0, 5)
    if kind == 0:
        return Box(tuple(rng.uniform(0.2, 1.5, 2)))
    if kind == 1:
        return Circle(float(rng.uniform(0.1, 1.2)))
    if kind == 2:
        while True:
            p = random_simple_polygon(rng, int(rng.integers(3, 7)))
            if p is not None:
                return p
    if kind == 3:
        a = rng.uniform(0, 2 * math.pi)
        return HalfPlane((math.cos(a), math.sin(a)), float(rng.uniform(-1.5, 0.5)))
    return random_concave(rng)


@pytest.mark.parametrize("backend", BACKENDS)
def test_random_concave_pairs_agree_with_shapely(backend):
    rng = np.random.default_rng(2025)
    touching = 0
    for _ in range(150):
        a = random_concave(rng)
        b = random_other(rng)
        pa = (tuple(rng.uniform(-0.5, 0.5, 2)), float(rng.uniform(-math.pi, math.pi)))
        pb = (tuple(rng.uniform(-1.0, 2.0, 2)), float(rng.uniform(-math.pi, math.pi)))
        if rng.random() < 0.5 and not isinstance(b, HalfPlane):
            a, b, pa, pb = b, a, pb, pa
        elif isinstance(b, HalfPlane):
            a, b, pa, pb = b, a, (None, None), pa
        c = check_pair(backend, a, pa, b, pb)
        touching += len(c)
    assert touching > 100


def test_both_backends_report_the_same_pieces():
    rng = np.random.default_rng(7)
    for _ in range(60):
        a = random_concave(rng)
        b = random_other(rng)
        pa = ((0.0, 0.0), float(rng.uniform(-math.pi, math.pi)))
        pb = (tuple(rng.uniform(-1.0, 2.0, 2)), float(rng.uniform(-math.pi, math.pi)))
        if isinstance(b, HalfPlane):
            a, b, pa, pb = b, a, (None, None), pa
        cs = [world_with(be, a, pa, b, pb).step() for be in BACKENDS]
        for other in cs[1:]:
            assert cs[0].part_a.tolist() == other.part_a.tolist() and cs[0].part_b.tolist() == other.part_b.tolist()
            np.testing.assert_array_equal(cs[0].normal, other.normal)
            np.testing.assert_array_equal(cs[0].depth, other.depth)
            np.testing.assert_array_equal(cs[0].point_ids, other.point_ids)


@pytest.mark.parametrize("backend", BACKENDS)
def test_set_shape_to_and_from_a_concave_polygon(backend):
    centred = Polygon([(x - 1.0, y - 1.0) for x, y in L_SHAPE.vertices])  # the L about its box's centre
    # shapely decides which pieces a circle at (1.5, 0.5) of radius 0.3 touches (the L's foot)
    foot = [i for i, p in enumerate(centred.parts)
            if shapely.affinity.translate(ShapelyPolygon(p), 1.0, 1.0).distance(Point(1.5, 0.5)) <= 0.3]
    w = World(dim=2, backend=backend)
    w.add(Box((1.0, 1.0)), position=(1.0, 1.0), id="l")
    w.add(Circle(0.3), position=(1.5, 0.5), id="c")
    assert [r[2:] for r in w.step().began.rows()] == [(-1, -1)]
    w.set_shape("l", centred)
    c = w.step()
    # a shape given by set_shape counts as added then: the L is now the pair's b (World.set_shape)
    assert c.a.tolist() == ["c"] * len(foot) and sorted(c.part_b.tolist()) == foot
    assert [r[2:] for r in c.ended.rows()] == [(-1, -1)]
    assert sorted(r[3] for r in c.began.rows()) == foot
    w.validate()
    w.set_shape("l", Box((1.0, 1.0)))
    c = w.step()
    assert c.part_b.tolist() == [-1] and sorted(r[3] for r in c.ended.rows()) == foot
    w.remove("c")
    w.validate()
    w.compact()
    w.validate()


def test_a_recording_lists_the_pair_once_and_replays(tmp_path):
    from collideworld.scenario import Recorder, read_scenario, replay

    path = tmp_path / "l.jsonl"
    with Recorder(World(dim=2), path, record_contacts=True) as rec:
        rec.add(Box((5.0, 1.0)), position=(1.0, -1.0), static=True, id="floor")
        rec.add(L_SHAPE, position=(0.0, -1e-3), id="l")
        rec.add(Circle(0.5), position=(4.0, 0.4), id="ball")
        rec.step()
    (frame,) = list(read_scenario(path))[:1]
    # expect names body pairs, each once; expect_contacts leaves the concave L out (the format's rule)
    assert sorted(sorted(p) for p in frame.expect) == [["ball", "floor"], ["floor", "l"]]
    assert [sorted(ec.pair) for ec in frame.expect_contacts] == [["ball", "floor"]]
    report = replay(path)
    assert report.ok, report.format_first_mismatch()


@pytest.mark.parametrize("backend", BACKENDS)
def test_near_flat_concave_polygons_on_floors_cover_their_overlap(backend):
    """Around the failing case: L, U and random concave polygons laid on an edge of their convex
    hull, tilted by up to 1e-3 rad and sunk into a box, polygon or half-plane floor (deep enough
    that both ends of that edge are in). Hand calculation: that edge, posed, spans x in [x0, x1];
    the union of the contacts' points does too (each within its own |separation|); shapely checks
    every contact as in :func:`check_pair`."""
    rng = np.random.default_rng(4)
    laid = 0
    for trial in range(60):
        poly = random_concave(rng)
        f, fp = FLOORS[list(FLOORS)[trial % 3]]
        v = np.asarray(poly.vertices)
        if not ShapelyPolygon(v).exterior.is_ccw:
            v = v[::-1]
        # the polygon's edges that are hull edges (every vertex on their left): it can lie on one
        flat = [k for k in range(len(v))
                if np.all(cross2(v[(k + 1) % len(v)] - v[k], v - v[k]) >= -1e-12)]
        if not flat:  # a star with no flat side to lie on
            continue
        k = int(rng.choice(flat))
        e = v[(k + 1) % len(v)] - v[k]
        tilt = float(rng.uniform(-1e-3, 1e-3))
        angle = -math.atan2(e[1], e[0]) + tilt
        turned = v @ rot2(angle).T
        sink = abs(tilt) * float(np.hypot(*e)) + float(rng.uniform(1e-5, 1e-2))
        pos = (float(rng.uniform(-1, 1)), -turned[:, 1].min() - sink)
        c = check_pair(backend, f, fp, poly, (pos, angle))
        ends = np.array([v[k], v[(k + 1) % len(v)]]) @ rot2(angle).T + pos
        pts = np.concatenate([c.points[i, :c.point_count[i]] for i in range(len(c))])
        seps = np.concatenate([c.separations[i, :c.point_count[i]] for i in range(len(c))])
        xmin, xmax = ends[:, 0].min(), ends[:, 0].max()
        lo, hi = int(np.argmin(pts[:, 0])), int(np.argmax(pts[:, 0]))
        assert pts[lo, 0] <= xmin + abs(seps[lo]) + 1e-9, (trial, pts[:, 0].min(), xmin)
        assert pts[hi, 0] >= xmax - abs(seps[hi]) - 1e-9, (trial, pts[:, 0].max(), xmax)
        laid += 1
    assert laid >= 40
