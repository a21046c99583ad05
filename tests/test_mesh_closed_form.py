"""Sphere- and capsule-triangle contacts by closest points in closed form (both twins), against coal.

``contact_polytope_triangle`` (numpy and compiled) takes a sphere's or a
capsule's distance to a triangle from the closest points in closed form
(``closest_point_triangle``, ``closest_segment_triangle``) where it used
GJK. Oracles: coal's signed distance of the shape and a one-triangle
``BVHModelOBBRSS`` (GJK to 1e-12, EPA when overlapping: distance, nearest
points, normal), configurations within 1e-8 of touching counted apart;
touching by construction in dyadic coordinates (exact by hand); a centre or
a segment in the triangle's plane but beside it (the SAT's one axis said
overlap there: hand-computed gaps); a tilted flat mesh walked by a sphere
and a capsule (the face normal, by hand); two triangles in one plane (the
same degenerate SAT: mesh against mesh) against shapely's predicates.
"""

from __future__ import annotations

import coal
import numpy as np
import pytest

from collideworld import Capsule, Sphere, TriangleMesh, World
from collideworld.geometry import contact_triangle as numpy_twin
from collideworld.geometry.compiled import contact_triangle as compiled_twin
from collideworld.geometry.contact_triangle import (
    closest_point_triangle,
    closest_segment_triangle,
    contact_triangle_triangle,
)

TWINS = {"numpy": numpy_twin, "compiled": compiled_twin}
NONE = np.zeros((0, 0, 3))
ALL_ACTIVE = np.ones((1, 3), dtype=bool)


def coal_signed(tri: np.ndarray, p0: np.ndarray, p1: np.ndarray | None, radius: float
                ) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """coal's (signed distance, nearest point on the triangle, on the shape, unit normal triangle -> shape)."""
    m = coal.BVHModelOBBRSS()
    m.beginModel(1, 3)
    m.addTriangle(*(np.array(v, dtype=np.float64) for v in tri))
    m.endModel()
    if p1 is None:
        geom, rot, centre = coal.Sphere(radius), np.eye(3), p0
    else:
        axis = p1 - p0
        length = float(np.linalg.norm(axis))
        geom = coal.Capsule(radius, length)
        z = axis / length
        x = np.cross(z, [1.0, 0.0, 0.0] if abs(z[0]) < 0.9 else [0.0, 1.0, 0.0])
        x /= np.linalg.norm(x)
        rot = np.column_stack([x, np.cross(z, x), z])
        centre = 0.5 * (p0 + p1)
    req = coal.DistanceRequest()
    req.gjk_tolerance = 1e-12
    req.enable_signed_distance = True
    res = coal.DistanceResult()
    d = coal.distance(m, coal.Transform3s(), geom, coal.Transform3s(rot, np.asarray(centre, dtype=np.float64)),
                      req, res)
    return float(d), np.array(res.getNearestPoint1()), np.array(res.getNearestPoint2()), np.array(res.normal)


def random_triangle(rng: np.random.Generator) -> np.ndarray:
    while True:
        tri = rng.uniform(-1, 1, (3, 3))
        if np.linalg.norm(np.cross(tri[1] - tri[0], tri[2] - tri[0])) > 0.2:
            return tri


def sphere_rows(centres: np.ndarray, radii: np.ndarray) -> tuple[np.ndarray, ...]:
    n = len(centres)
    return centres[:, None, :], np.zeros((n, 0, 3)), np.zeros((n, 0, 3)), radii


def capsule_rows(p0: np.ndarray, p1: np.ndarray, radii: np.ndarray) -> tuple[np.ndarray, ...]:
    n = len(p0)
    return np.stack([p0, p1], axis=1), np.zeros((n, 0, 3)), (p1 - p0)[:, None, :], radii


def near_configurations(kind: str, seed: int, n: int):
    """Triangles and spheres or capsules within about a radius of them (over, beside, through)."""
    rng = np.random.default_rng(seed)
    tris, p0s, p1s, radii = [], [], [], []
    for _ in range(n):
        tri = random_triangle(rng)
        face = np.cross(tri[1] - tri[0], tri[2] - tri[0])
        face /= np.linalg.norm(face)
        w = rng.dirichlet(np.ones(3)) * rng.uniform(0.6, 1.6)  # barycentric-ish: inside and beyond the edges
        r = float(rng.uniform(0.05, 0.5))
        p = w @ tri + rng.uniform(-1.5, 1.5) * r * face + rng.normal(scale=0.3 * r, size=3)
        tris.append(tri)
        radii.append(r)
        if kind == "sphere":
            p0s.append(p)
        else:
            d = rng.normal(size=3)
            d *= rng.uniform(0.05, 0.6) / np.linalg.norm(d)
            p0s.append(p - d)
            p1s.append(p + d)
    return np.array(tris), np.array(p0s), (np.array(p1s) if p1s else None), np.array(radii)


@pytest.mark.parametrize("kind", ["sphere", "capsule"])
def test_closest_points_agree_with_coal(kind):
    tris, p0, p1, _ = near_configurations(kind, 290, 300)
    if kind == "sphere":
        p, q = p0, closest_point_triangle(p0, tris)
    else:
        assert p1 is not None
        p, q = closest_segment_triangle(p0, p1, tris)
    agree = 0
    for i in range(len(tris)):
        # a sphere or capsule of radius 1e-3 around the point or segment: coal's triangle point is ours
        d, on_tri, _, _ = coal_signed(tris[i], p0[i], None if p1 is None else p1[i], 1e-3)
        gap = float(np.linalg.norm(q[i] - p[i]))
        if d + 1e-3 <= 1e-8:  # the segment meets the triangle: its closest points are not unique
            assert gap <= 1e-9, (i, gap, d)
            continue
        assert gap == pytest.approx(d + 1e-3, abs=1e-9), (i, gap, d)
        assert np.allclose(q[i], on_tri, atol=1e-6), (i, q[i], on_tri)
        if p1 is not None:  # on the segment
            t = np.dot(p[i] - p0[i], p1[i] - p0[i]) / np.dot(p1[i] - p0[i], p1[i] - p0[i])
            assert -1e-12 <= t <= 1 + 1e-12 and np.allclose(p[i], p0[i] + t * (p1[i] - p0[i]), atol=1e-12)
        agree += 1
    assert agree >= 200, agree


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
@pytest.mark.parametrize("kind", ["sphere", "capsule"])
def test_contacts_agree_with_coal(backend, kind):
    tris, p0, p1, radii = near_configurations(kind, 2929 if kind == "sphere" else 2930, 300)
    rows = sphere_rows(p0, radii) if p1 is None else capsule_rows(p0, p1, radii)
    res = TWINS[backend].contact_polytope_triangle(*rows, tris, np.ones((len(tris), 3), dtype=bool))
    counts = {"hit": 0, "miss": 0, "near touching": 0}
    for i in range(len(tris)):
        d, _, _, normal = coal_signed(tris[i], p0[i], None if p1 is None else p1[i], float(radii[i]))
        if abs(d) < 1e-8:
            counts["near touching"] += 1
            continue
        hit = bool(res.hit[i])
        assert hit == (d < 0.0), (i, d, res.depth[i])
        if hit:
            assert res.depth[i] == pytest.approx(-d, abs=1e-7), (i, res.depth[i], d)
            counts["hit"] += 1
        else:
            # apart: the exact gap (closed form) or a separating axis's (a lower bound), as before
            assert 0.0 < -res.depth[i] <= d + 1e-9, (i, res.depth[i], d)
            counts["miss"] += 1
        if hit or res.depth[i] == pytest.approx(-d, abs=1e-9):
            # the normal, a towards the triangle, is coal's (triangle towards the shape) turned round
            assert np.allclose(res.normal[i], -normal, atol=1e-5), (i, res.normal[i], normal, d)
    assert counts["hit"] >= 60 and counts["miss"] >= 60, counts


@pytest.mark.parametrize("kind", ["sphere", "capsule"])
def test_twins_give_the_same_answers(kind):
    tris, p0, p1, radii = near_configurations(kind, 77, 400)
    rows = sphere_rows(p0, radii) if p1 is None else capsule_rows(p0, p1, radii)
    act = np.random.default_rng(5).random((len(tris), 3)) < 0.5  # the no-snag rule on some edges too
    a = numpy_twin.contact_polytope_triangle(*rows, tris, act)
    b = compiled_twin.contact_polytope_triangle(*rows, tris, act)
    assert (a.hit == b.hit).all()
    assert np.allclose(a.depth, b.depth, rtol=0, atol=1e-14)
    assert np.allclose(a.normal, b.normal, rtol=0, atol=1e-12)


TRI = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def touching_cases():
    """(kind, p0, p1, radius, face normal part of the answer) touching TRI exactly; all dyadic."""
    # sphere: over the face, under it; beside edge y = 0; at vertex (0, 0) by 3-4-5 triangles
    yield "sphere", (0.25, 0.25, 0.5), None, 0.5
    yield "sphere", (0.25, 0.5, -0.25), None, 0.25
    yield "sphere", (0.5, -0.75, 0.0), None, 0.75
    yield "sphere", (-0.375, -0.5, 0.0), None, 0.625
    yield "sphere", (-0.375, 0.0, -0.5), None, 0.625
    # capsule: lying flat over the face; upright with its end over the face; across edge x = 0 beside it
    yield "capsule", (0.125, 0.25, 0.25), (0.5, 0.25, 0.25), 0.25
    yield "capsule", (0.25, 0.25, 0.5), (0.25, 0.25, 1.5), 0.5
    yield "capsule", (-0.5, 0.5, -0.5), (-0.5, 0.5, 0.5), 0.5
    yield "capsule", (-0.375, -0.5, -1.0), (-0.375, -0.5, 1.0), 0.625


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_touching_counts_and_a_hair_apart_does_not(backend):
    twin = TWINS[backend]
    checked = 0
    for kind, p0, p1, r in touching_cases():
        for dr, expect in ((0.0, True), (-(2.0 ** -20), False), (2.0 ** -20, True)):
            a, b = np.array([p0]), None if p1 is None else np.array([p1])
            rows = sphere_rows(a, np.array([r + dr])) if b is None else capsule_rows(a, b, np.array([r + dr]))
            res = twin.contact_polytope_triangle(*rows, TRI[None], ALL_ACTIVE)
            assert bool(res.hit[0]) == expect, (kind, p0, p1, r, dr, res)
            if expect:
                assert res.depth[0] == pytest.approx(max(dr, 0.0), abs=1e-15), (kind, p0, res.depth[0])
            # coal agrees on the side of touching (a hair is far above its 1e-12 tolerance)
            d = coal_signed(TRI, np.array(p0), None if p1 is None else np.array(p1), r + dr)[0]
            assert (d <= 1e-12) == expect, (kind, p0, dr, d)
            checked += 1
    assert checked == 27


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_a_centre_or_segment_in_the_plane_beside_the_triangle_misses(backend):
    # the SAT's one axis for a point or a segment in the triangle's plane (the face normal, the
    # segment x edge crosses all parallel to it) overlaps by 0 whether or not the core meets the
    # triangle; by hand: (0.8, 0.8) is 0.6 / sqrt(2) from the hypotenuse x + y = 1, (1.5, y) 0.5 from (1, 0)
    twin = TWINS[backend]
    res = twin.contact_polytope_triangle(*sphere_rows(np.array([[0.8, 0.8, 0.0]]), np.array([0.1])), TRI[None],
                                         ALL_ACTIVE)
    assert not res.hit[0] and res.depth[0] == pytest.approx(0.1 - 0.6 / 2 ** 0.5, abs=1e-15)
    res = twin.contact_polytope_triangle(*capsule_rows(np.array([[1.5, 0.0, 0.0]]), np.array([[1.5, 2.0, 0.0]]),
                                                       np.array([0.25])), TRI[None], ALL_ACTIVE)
    assert not res.hit[0] and res.depth[0] == pytest.approx(0.25 - 0.5, abs=1e-15)
    assert np.allclose(res.normal[0], (-1.0, 0.0, 0.0))
    # in a world: a flat one-triangle mesh and a ball centred in its plane beside it: no contact
    w = World(dim=3, backend=backend)
    w.add(TriangleMesh(TRI, [(0, 1, 2)]), (0.0, 0.0, 0.0), static=True, id="m")
    w.add(Sphere(0.1), (0.8, 0.8, 0.0), id="s")
    w.add(Capsule((1.5, 0.0, 0.0), (1.5, 0.5, 0.0), 0.25), (0.0, 0.0, 0.0), id="c")
    assert list(w.step()) == []
    w.move("s", (0.8, 0.8 - 0.6 + 0.1 * 2 ** 0.5, 0.0))  # now 0.1 from the hypotenuse: touching, depth 0
    (c,) = list(w.step())
    out = np.array([0.5 ** 0.5, 0.5 ** 0.5, 0.0]) * (1.0 if c.a == "m" else -1.0)  # a towards b
    assert c.depth == pytest.approx(0.0, abs=1e-12) and np.allclose(c.normal, out, atol=1e-12)


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
@pytest.mark.parametrize("body", ["sphere", "capsule"])
def test_walking_over_a_tilted_flat_mesh_gets_its_face_normal(backend, body):
    # a 4 x 4 grid in the plane z = x / 2 (normal (-1, 0, 2) / sqrt(5)): every inner edge and vertex inactive
    n = 4
    verts = [(j * 1.0, i * 1.0, j * 0.5) for i in range(n + 1) for j in range(n + 1)]
    tris = []
    for i in range(n):
        for j in range(n):
            a, b, c, d = i * (n + 1) + j, i * (n + 1) + j + 1, (i + 1) * (n + 1) + j + 1, (i + 1) * (n + 1) + j
            tris += [(a, b, c), (a, c, d)]
    face = np.array([-1.0, 0.0, 2.0]) / 5 ** 0.5
    w = World(dim=3, backend=backend)
    w.add(TriangleMesh(verts, tris), (0.0, 0.0, 0.0), static=True, id="m")
    sink = 0.01
    shape = Sphere(0.3) if body == "sphere" else Capsule((-0.3, 0.0, -0.15), (0.3, 0.0, 0.15), 0.2)
    w.add(shape, (0.5, 0.5, 0.5), id="o")
    lift = (0.3 if body == "sphere" else 0.2) - sink
    steps = 0
    for y in np.arange(0.5, n - 0.49, 0.25):
        for x in np.arange(0.5, n - 0.49, 0.25):
            w.move("o", tuple(np.array([x, y, 0.5 * x]) + lift * face))
            contacts = list(w.step())
            assert contacts, (x, y)
            for c in contacts:
                out = face if c.a == "m" else -face  # a towards b
                assert np.allclose(c.normal, out, atol=1e-12), (x, y, c)
                assert c.depth == pytest.approx(sink, abs=1e-9), (x, y, c)
            steps += 1
    assert steps == 169


@pytest.mark.parametrize("plane", ["z = 0", "z = x / 2 + y / 4"])
def test_triangles_in_one_plane_agree_with_shapely(plane):
    # every edge x edge axis of two triangles in one plane is its normal, on which they overlap by 0
    # wherever they lie: the in-plane edge normals decide (shapely's exact predicates on the plane's x, y)
    import shapely

    rng = np.random.default_rng(31 if plane == "z = 0" else 32)
    tilt = (0.0, 0.0) if plane == "z = 0" else (0.5, 0.25)
    counts = {"hit": 0, "miss": 0}
    act = np.ones((1, 3), dtype=bool)
    for _ in range(300):
        xy = rng.integers(-16, 17, size=(2, 3, 2)) / 16.0  # dyadic: the plane's z is exact
        e1, e2 = xy[:, 1] - xy[:, 0], xy[:, 2] - xy[:, 0]
        if (np.abs(e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]) < 1e-3).any():
            continue
        tri = np.concatenate([xy, (xy @ np.array(tilt))[..., None]], axis=2)
        res = contact_triangle_triangle(tri[:1], act, tri[1:], act)
        oracle = shapely.Polygon(xy[0]).intersects(shapely.Polygon(xy[1]))
        assert bool(res.hit[0]) == oracle, (xy.tolist(), res)
        counts["hit" if oracle else "miss"] += 1
    assert counts["hit"] >= 50 and counts["miss"] >= 50, counts
    # in a world: two flat one-triangle meshes side by side, 0.4 / sqrt(2) apart, then touching
    w = World(dim=3)
    w.add(TriangleMesh(TRI, [(0, 1, 2)]), (0.0, 0.0, 0.0), static=True, id="m")
    w.add(TriangleMesh(TRI, [(0, 1, 2)]), (0.7, 0.7, 0.0), id="n")
    assert list(w.step()) == []
    w.move("n", (1.0, 0.0, 0.0))  # vertex (1, 0) on vertex (1, 0): touching
    assert [(c.a, c.b, c.depth) for c in w.step()] == [("m", "n", 0.0)]
