"""TriangleMesh and HeightField: contacts, distance and time of impact against independent oracles.

Oracles: python-fcl (``fcl.BVHModel`` of one triangle per test, so its answer
is per triangle: collision and distance), an exact closest-point-on-triangle
in closed form written here (Ericson, RTCD 5.1.5) for sphere depths, and
plane arithmetic by hand. A heightfield is checked by brute force over its
triangles, built here from the format's numbering, each given to fcl.
"""

from __future__ import annotations

import coal
import fcl
import numpy as np
import pytest

from collideworld import (
    Box,
    Capsule,
    HeightField,
    InvalidShapeError,
    Sphere,
    TriangleMesh,
    World,
    collide,
    distance,
    time_of_impact,
)
from collideworld.geometry.rotation import rotation_matrix_3d

UNIT_Q = (1.0, 0.0, 0.0, 0.0)


def random_quaternion(rng: np.random.Generator) -> np.ndarray:
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def fcl_triangle(tri: np.ndarray) -> fcl.CollisionObject:
    m = fcl.BVHModel()
    m.beginModel(3, 1)
    m.addSubModel(np.asarray(tri, dtype=np.float64), np.array([[0, 1, 2]]))
    m.endModel()
    return fcl.CollisionObject(m, fcl.Transform())


def fcl_shape(shape, position, quaternion) -> fcl.CollisionObject:
    if isinstance(shape, Sphere):
        geom = fcl.Sphere(shape.radius)
    elif isinstance(shape, Box):
        geom = fcl.Box(*(2 * np.array(shape.half_extents)))
    else:  # a capsule along local z, centred at the origin (how these tests build them)
        geom = fcl.Capsule(shape.radius, float(np.linalg.norm(np.subtract(shape.p1, shape.p0))))
    return fcl.CollisionObject(geom, fcl.Transform(np.asarray(quaternion, dtype=np.float64),
                                                   np.asarray(position, dtype=np.float64)))


def fcl_hit_and_gap(tri: np.ndarray, shape, position, quaternion) -> tuple[bool, float]:
    """fcl's collision decision and distance (<= 0 when touching or overlapping) of one world triangle and a shape."""
    a, b = fcl_triangle(tri), fcl_shape(shape, position, quaternion)
    hit = fcl.collide(a, b, fcl.CollisionRequest(), fcl.CollisionResult()) > 0
    gap = fcl.distance(a, b, fcl.DistanceRequest(), fcl.DistanceResult())
    return hit, gap


def coal_gap(tri: np.ndarray, shape, position, quaternion) -> float:
    """coal's distance of one world triangle and a shape, its GJK run to 1e-12 (fcl's stops near 1e-6)."""
    m = coal.BVHModelOBBRSS()
    m.beginModel(1, 3)
    m.addTriangle(*(np.array(v, dtype=np.float64) for v in tri))
    m.endModel()
    if isinstance(shape, Sphere):
        geom = coal.Sphere(shape.radius)
    elif isinstance(shape, Box):
        geom = coal.Box(*(2 * np.array(shape.half_extents)))
    else:
        geom = coal.Capsule(shape.radius, float(np.linalg.norm(np.subtract(shape.p1, shape.p0))))
    rot = rotation_matrix_3d(np.array([quaternion], dtype=np.float64))[0]
    req = coal.DistanceRequest()
    req.gjk_tolerance = 1e-12
    return float(coal.distance(m, coal.Transform3s(), geom, coal.Transform3s(rot, np.array(position, dtype=np.float64)),
                               req, coal.DistanceResult()))


def closest_on_triangle(p: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Closest point of triangle abc to p by Voronoi regions (Ericson, RTCD 5.1.5)."""
    ab, ac, ap = b - a, c - a, p - a
    d1, d2 = ab @ ap, ac @ ap
    if d1 <= 0 and d2 <= 0:
        return a
    bp = p - b
    d3, d4 = ab @ bp, ac @ bp
    if d3 >= 0 and d4 <= d3:
        return b
    vc = d1 * d4 - d3 * d2
    if vc <= 0 and d1 >= 0 and d3 <= 0:
        return a + d1 / (d1 - d3) * ab
    cp = p - c
    d5, d6 = ab @ cp, ac @ cp
    if d6 >= 0 and d5 <= d6:
        return c
    vb = d5 * d2 - d1 * d6
    if vb <= 0 and d2 >= 0 and d6 <= 0:
        return a + d2 / (d2 - d6) * ac
    va = d3 * d6 - d5 * d4
    if va <= 0 and (d4 - d3) >= 0 and (d5 - d6) >= 0:
        return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b)
    denom = 1.0 / (va + vb + vc)
    return a + ab * (vb * denom) + ac * (vc * denom)


def world_triangles(shape, position, quaternion) -> np.ndarray:
    rot = rotation_matrix_3d(np.array([quaternion], dtype=np.float64))[0]
    return shape.vertices[shape.triangles] @ rot.T + np.asarray(position)


def heightfield_triangles(heights: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """The format's triangles of a heightfield, built here from the text of the format (not from the shape)."""
    out = []
    rows, cols = heights.shape
    p = lambda i, j: (j * dx, i * dy, heights[i, j])  # noqa: E731
    for i in range(rows - 1):
        for j in range(cols - 1):
            out.append([p(i, j), p(i, j + 1), p(i + 1, j + 1)])
            out.append([p(i, j), p(i + 1, j + 1), p(i + 1, j)])
    return np.array(out, dtype=np.float64)


def random_other(rng: np.random.Generator):
    k = rng.integers(3)
    if k == 0:
        return Sphere(float(rng.uniform(0.1, 0.6)))
    if k == 1:
        return Box(tuple(rng.uniform(0.1, 0.6, size=3)))
    half = float(rng.uniform(0.1, 0.6))
    return Capsule((0.0, 0.0, -half), (0.0, 0.0, half), float(rng.uniform(0.1, 0.4)))


def random_soup(rng: np.random.Generator, n: int = 6) -> TriangleMesh:
    verts = rng.uniform(-1.0, 1.0, size=(3 * n, 3))
    return TriangleMesh(verts, np.arange(3 * n).reshape(n, 3))


def touching_parts(shape, pose, other, other_pose, backend: str) -> dict[int, tuple[np.ndarray, float]]:
    w = World(dim=3, backend=backend)
    w.add(shape, pose[0], quaternion=pose[1], static=True, id="m")
    w.add(other, other_pose[0], quaternion=other_pose[1], id="o")
    return {c.part_a: (c.normal, c.depth) for c in w.step()}


# -- validation ----------------------------------------------------------------------------

@pytest.mark.parametrize("make, words", [
    (lambda: TriangleMesh([(0, 0, 0), (1, 0, 0), (2, 0, 0)], [(0, 1, 2)]), ["triangle 0", "degenerate"]),
    (lambda: TriangleMesh([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 1, 2), (0, 1, 3)]), ["row 1", "out of range", "3"]),
    (lambda: TriangleMesh([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 1, -1)]), ["row 0", "out of range"]),
    (lambda: TriangleMesh([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 2, 2)]), ["row 0", "repeats"]),
    (lambda: TriangleMesh([(0, 0, 0), (1, 0, 0), (0, np.nan, 0)], [(0, 1, 2)]), ["vertices row 2", "finite"]),
    (lambda: TriangleMesh([(0, 0, 0), (1, 0, 0)], [(0, 1, 1)]), ["at least 3 vertices"]),
    (lambda: TriangleMesh([(0, 0), (1, 0), (0, 1)], [(0, 1, 2)]), ["vertices", "(n, 3)"]),
    (lambda: HeightField([[0, 0, 0], [0, 0]], (1, 1)), ["row 1", "2 values", "row 0 has 3"]),
    (lambda: HeightField([[0, 0], [0, np.inf]], (1, 1)), ["heights row 1", "finite"]),
    (lambda: HeightField([[0, 0]], (1, 1)), ["2 x 2"]),
    (lambda: HeightField([[0, 0], [0, 0]], (1, -1)), ["cell dy", "> 0", "-1"]),
    (lambda: HeightField([[0, 0], [0, 0]], (0, 1)), ["cell dx", "> 0"]),
])
def test_bad_input_names_the_shape_and_the_index(make, words):
    with pytest.raises(InvalidShapeError) as info:
        make()
    text = str(info.value)
    assert ("TriangleMesh" in text) or ("HeightField" in text)
    for word in words:
        assert word in text, (word, text)


def test_a_rejected_add_leaves_the_world_unchanged():
    w = World(dim=2)
    w.add(Box((1.0, 1.0)), (0.0, 0.0), id="b")
    quad = TriangleMesh([(0, 0, 0), (1, 0, 0), (1, 1, 0)], [(0, 1, 2)])
    with pytest.raises(InvalidShapeError, match="3D, but this world is 2D"):
        w.add(quad, (0.0, 0.0), id="m")
    assert len(w) == 1 and "m" not in w


# -- contacts against fcl, per triangle -----------------------------------------------------

@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_contacts_per_triangle_agree_with_fcl(backend):
    rng = np.random.default_rng(29)
    agree = decided = 0
    for _ in range(120):
        mesh = random_soup(rng)
        mesh_pose = (tuple(rng.uniform(-0.3, 0.3, size=3)), tuple(random_quaternion(rng)))
        other = random_other(rng)
        pos = tuple(rng.uniform(-1.2, 1.2, size=3))
        quat = tuple(random_quaternion(rng))
        got = touching_parts(mesh, mesh_pose, other, (pos, quat), backend)
        tris = world_triangles(mesh, *mesh_pose)
        for t, tri in enumerate(tris):
            hit, gap = fcl_hit_and_gap(tri, other, pos, quat)
            if 0.0 < gap < 1e-7 or (hit and gap > 1e-7):
                continue  # within fcl's rounding of touching: the near-touching tests below decide those
            decided += 1
            agree += (t in got) == hit
            if isinstance(other, Sphere) and t in got:
                # exact depth: the radius less the centre's distance to the triangle (centre outside it)
                q = closest_on_triangle(np.array(pos), *tri)
                d = float(np.linalg.norm(np.array(pos) - q))
                if d > 1e-9:
                    assert got[t][1] == pytest.approx(other.radius - d, abs=1e-9)
                    assert np.allclose(got[t][0], (np.array(pos) - q) / d, atol=1e-7)
    assert decided > 300
    assert agree == decided, f"{agree} of {decided} triangle decisions agree with fcl"


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_sphere_touching_a_triangle_counts(backend):
    # touching is contact: a sphere whose surface reaches a triangle's point exactly (binary-exact numbers)
    rng = np.random.default_rng(7)
    mesh = TriangleMesh([(0, 0, 0), (4, 0, 0), (0, 4, 0)], [(0, 1, 2)])
    for _ in range(60):
        u, v = rng.integers(1, 8, size=2) / 8.0
        point = np.array([u * 2, v * 2, 0.0])  # inside the face (u + v <= 2 - ...)
        r = float(rng.integers(1, 8)) / 8
        for dz, expect in ((r, True), (r + 2.0 ** -20, False), (r - 2.0 ** -20, True)):
            got = touching_parts(mesh, ((0, 0, 0), UNIT_Q), Sphere(r), (tuple(point + (0, 0, dz)), UNIT_Q), backend)
            assert (0 in got) == expect, (point, r, dz)


# -- no snagging ------------------------------------------------------------------------------

def flat_grid(n: int, cell: float) -> TriangleMesh:
    verts = [(j * cell, i * cell, 0.0) for i in range(n + 1) for j in range(n + 1)]
    tris = []
    for i in range(n):
        for j in range(n):
            a, b, c, d = i * (n + 1) + j, i * (n + 1) + j + 1, (i + 1) * (n + 1) + j + 1, (i + 1) * (n + 1) + j
            tris += [(a, b, c), (a, c, d)]
    return TriangleMesh(verts, tris)


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
@pytest.mark.parametrize("surface", ["mesh", "heightfield"])
@pytest.mark.parametrize("body", ["box", "sphere", "capsule"])
def test_walking_across_every_inner_edge_and_vertex_gets_the_face_normal(backend, surface, body):
    cell = 1.0
    n = 4
    shape = flat_grid(n, cell) if surface == "mesh" else HeightField(np.zeros((n + 1, n + 1)), (cell, cell))
    sink = 0.01
    if body == "box":
        other, lift = Box((0.3, 0.3, 0.3)), 0.3
    elif body == "sphere":
        other, lift = Sphere(0.3), 0.3
    else:  # lying along x: its round side rests on the surface
        other, lift = Capsule((-0.3, 0.0, 0.0), (0.3, 0.0, 0.0), 0.2), 0.2
    w = World(dim=3, backend=backend)
    w.add(shape, (0.0, 0.0, 0.0), static=True, id="s")
    w.add(other, (0.5, 0.5, lift - sink), id="o")
    steps = 0
    # rows through every inner vertex (y = 1, 2, 3) and between them, x across every inner vertex and edge,
    # and the diagonals' seams: every step tested
    for y in np.arange(0.5, n - 0.49, 0.25):
        for x in np.arange(0.5, n - 0.49, 0.125):
            w.move("o", (x, y, lift - sink))
            contacts = list(w.step())
            assert contacts, (x, y)
            for c in contacts:
                assert np.allclose(c.normal, (0.0, 0.0, 1.0), atol=1e-12), (x, y, c)
                assert c.depth == pytest.approx(sink, abs=1e-9), (x, y, c)
            steps += 1
    assert steps > 200


def test_a_real_edge_keeps_its_normal():
    # a roof ridge (60 degrees) is an active edge: a sphere over it is pushed out along the ridge's normal
    ridge = TriangleMesh([(0, 0, 0), (2, 0, 0), (1, 0, 1), (1, 2, 1), (0, 2, 0), (2, 2, 0)],
                         [(0, 2, 4), (4, 2, 3), (2, 1, 5), (2, 5, 3)])
    c = collide(ridge, ((0, 0, 0), UNIT_Q), Sphere(0.5), ((1.0, 1.0, 1.4), UNIT_Q))
    assert c is not None and np.allclose(c.normal, (0, 0, 1)) and c.depth == pytest.approx(0.1)


# -- heightfields by brute force over their triangles -------------------------------------------

@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_heightfield_per_triangle_numbering_and_contacts_agree_with_fcl(backend):
    rng = np.random.default_rng(12)
    agree = decided = 0
    for _ in range(40):
        heights = rng.uniform(-0.4, 0.4, size=(4, 5))
        dx, dy = (float(v) for v in rng.uniform(0.4, 0.8, size=2))
        hf = HeightField(heights, (dx, dy))
        tris = heightfield_triangles(heights, dx, dy)
        other = random_other(rng)
        pos = (float(rng.uniform(0, 4 * dx)), float(rng.uniform(0, 3 * dy)), float(rng.uniform(-0.6, 0.6)))
        quat = tuple(random_quaternion(rng))
        got = touching_parts(hf, ((0, 0, 0), UNIT_Q), other, (pos, quat), backend)
        assert set(got) <= set(range(len(tris)))
        for t, tri in enumerate(tris):
            hit, gap = fcl_hit_and_gap(tri, other, pos, quat)
            if 0.0 < gap < 1e-7 or (hit and gap > 1e-7):
                continue
            decided += 1
            agree += (t in got) == hit
    assert decided > 600
    assert agree == decided, f"{agree} of {decided} heightfield triangle decisions agree with fcl"


# -- distance, time of impact ----------------------------------------------------------------

def test_distance_and_closest_points_agree_with_coal():
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(150):
        mesh = random_soup(rng, 4)
        other = random_other(rng)
        pos = tuple(rng.uniform(-2.5, 2.5, size=3))
        quat = tuple(random_quaternion(rng))
        tris = world_triangles(mesh, (0, 0, 0), UNIT_Q)
        gaps = [coal_gap(tri, other, pos, quat) for tri in tris]
        want = min(gaps)
        if want < 1e-6:
            continue
        r = distance(mesh, ((0, 0, 0), UNIT_Q), other, (pos, quat))
        assert r is not None and r.distance == pytest.approx(want, rel=1e-6, abs=1e-9)
        # the closest point on the mesh lies on the nearest triangle; the one on the other shape is r.distance away
        t = int(np.argmin(gaps))
        q = closest_on_triangle(r.point_a, *tris[t])
        assert np.linalg.norm(q - r.point_a) < 1e-6
        assert np.linalg.norm(r.point_b - r.point_a) == pytest.approx(want, rel=1e-6, abs=1e-9)
        checked += 1
    assert checked > 100


def test_time_of_impact_of_a_falling_sphere_is_the_hand_computed_one():
    rng = np.random.default_rng(5)
    hf = HeightField(np.full((3, 3), 0.25), (1.0, 1.0))  # flat at z = 0.25
    for _ in range(30):
        x, y = rng.uniform(0.2, 1.8, size=2)
        r = float(rng.uniform(0.1, 0.5))
        start, end = 3.0, -3.0
        still = ((0, 0, 0), UNIT_Q)
        hit = time_of_impact(Sphere(r), ((x, y, start), UNIT_Q), ((x, y, end), UNIT_Q), hf, still, still)
        # the centre reaches 0.25 + r at t = (start - 0.25 - r) / (start - end)
        assert hit is not None and hit.t == pytest.approx((start - 0.25 - r) / (start - end), abs=1e-8)


# -- backends, shape round trips ------------------------------------------------------------------

def test_backends_give_the_same_contacts():
    rng = np.random.default_rng(11)
    for _ in range(40):
        mesh = random_soup(rng)
        other = random_other(rng)
        pose = (tuple(rng.uniform(-1, 1, size=3)), tuple(random_quaternion(rng)))
        a = touching_parts(mesh, ((0, 0, 0), UNIT_Q), other, pose, "numpy")
        b = touching_parts(mesh, ((0, 0, 0), UNIT_Q), other, pose, "compiled")
        # the compiled twin is a loop of its own (tests/test_compiled_kernels.py's standard): the
        # same touching triangles, normals and depths within 1e-12 of the pair's size (here ~1)
        assert a.keys() == b.keys()
        for k in a:
            assert np.abs(a[k][0] - b[k][0]).max() <= 1e-12 and abs(a[k][1] - b[k][1]) <= 1e-12


def test_mesh_against_mesh_and_heightfield():
    # two crossing triangles: one from each surface
    a = TriangleMesh([(-1, -1, 0), (1, -1, 0), (0, 1, 0)], [(0, 1, 2)])
    b = TriangleMesh([(0, 0, -0.5), (0, 0, 0.5), (0, 2, 0)], [(0, 1, 2)])
    w = World(dim=3)
    w.add(a, (0, 0, 0), id="a")
    w.add(b, (0, 0, 0), id="b")
    w.add(HeightField(np.zeros((2, 2)), (1, 1)), (5, 5, 0), id="h")
    w.add(TriangleMesh([(0, 0, 0.0), (1, 0, 0.0), (0, 1, 1)], [(0, 1, 2)]), (5.2, 5.2, -0.1), id="c")
    got = {(c.a, c.b) for c in w.step()}
    oracle_ab = fcl.collide(fcl_triangle(a.vertices), fcl_triangle(b.vertices), fcl.CollisionRequest(),
                            fcl.CollisionResult()) > 0
    assert (("a", "b") in got) == oracle_ab == True  # noqa: E712
    assert ("h", "c") in got


def test_world_move_set_shape_remove():
    w = World(dim=3)
    quad = flat_grid(2, 1.0)
    w.add(quad, (0, 0, 0), id="m")
    w.add(Sphere(0.5), (0.7, 0.3, 0.45), id="s")  # its cap touches triangle 0 only
    assert {c.part_a for c in w.step()} == {0}
    w.move("m", (10, 0, 0))
    assert not list(w.step())
    w.set_shape("m", HeightField(np.zeros((3, 3)), (1.0, 1.0)))
    w.move("m", (0, 0, 0))
    # the new shape's parts count as added after the sphere: the sphere is a now
    assert {(c.a, c.part_b) for c in w.step()} == {("s", 0)}
    w.remove("m")
    assert not list(w.step())
    w.validate()


def test_from_trimesh_reads_a_file_through_trimesh(tmp_path):
    import trimesh

    source = trimesh.creation.icosphere(subdivisions=2, radius=1.0)
    path = tmp_path / "ball.stl"
    source.export(path)
    mesh = TriangleMesh.from_trimesh(str(path))
    loaded = trimesh.load(str(path), force="mesh", process=False)
    assert np.array_equal(mesh.vertices, loaded.vertices) and np.array_equal(mesh.triangles, loaded.faces)
    assert TriangleMesh.from_trimesh(source) == TriangleMesh(source.vertices, source.faces)
    # a surface: a small sphere in the middle of the closed mesh touches no triangle; one on the shell does
    w = World(dim=3)
    w.add(mesh, (0, 0, 0), static=True, id="m")
    w.add(Sphere(0.2), (0, 0, 0), id="inside")
    w.add(Sphere(0.2), (0, 0, 1.0), id="shell")
    got = {(c.a, c.b) for c in w.step()}
    assert ("m", "inside") not in got and ("m", "shell") in got
    with pytest.raises(InvalidShapeError):
        TriangleMesh.from_trimesh(42)


# -- queries ------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_rays_and_queries_against_linear_algebra_and_fcl(backend):
    rng = np.random.default_rng(21)
    rays = probes = 0
    for _ in range(25):
        mesh = random_soup(rng, 8)
        w = World(dim=3, backend=backend)
        w.add(mesh, (0, 0, 0), static=True, id="m")
        tris = mesh.vertices[mesh.triangles]
        for _ in range(8):
            o = rng.uniform(-2.0, 2.0, size=3)
            d = rng.normal(size=3)
            d /= np.linalg.norm(d)
            # the oracle: solve o + t d = a + u (b - a) + v (c - a) per triangle by numpy's linear solver
            best, margin_ok = np.inf, True
            for a, b, c in tris:
                try:
                    t, u, v = np.linalg.solve(np.column_stack([-d, b - a, c - a]), o - a)
                except np.linalg.LinAlgError:
                    continue
                inside = min(u, v, 1 - u - v)
                if abs(inside) < 1e-7 or abs(t) < 1e-7:
                    margin_ok = False
                if inside > 0 and t > 0:
                    best = min(best, t)
            if not margin_ok:
                continue
            hits = w.raycast(o, d, 10.0)
            if best <= 10.0:
                assert len(hits) == 1 and hits[0].distance == pytest.approx(best, rel=1e-9, abs=1e-12)
            else:
                assert hits == []
            rays += 1
            # a sphere probe: it touches the mesh when fcl says it touches some triangle
            r = float(rng.uniform(0.05, 0.5))
            decisions = [fcl_hit_and_gap(tri, Sphere(r), tuple(o), UNIT_Q) for tri in tris]
            if any(0.0 < g < 1e-7 for _, g in decisions):
                continue
            want = any(h for h, _ in decisions)
            assert (w.query_shape(Sphere(r), tuple(o), quaternion=UNIT_Q) == ["m"]) == want
            assert (w.query_within(Sphere(r), (tuple(o), UNIT_Q), 0.0) != []) == want
            probes += 1
    assert rays > 150 and probes > 150


# -- the file format ---------------------------------------------------------------------------

def test_format_v3_round_trip_and_v2_refusal(tmp_path):
    from collideworld.errors import ScenarioError
    from collideworld.scenario import ScenarioWriter, read_scenario

    mesh = TriangleMesh([(0, 0, 0), (2, 0, 0), (2, 2, 0), (0, 2, 0)], [(0, 1, 2), (0, 2, 3)])
    hf = HeightField([[0, 0.5, 0], [0, 1, 0]], (1.0, 0.5))
    for name in ("scene.jsonl", "scene.jsonl.gz"):
        path = tmp_path / name
        w = ScenarioWriter(path, 3)
        w.write_frame(add=[{"id": "s", "shape": {"type": "sphere", "radius": 1.0}, "position": [0, 0, 5]}])
        w.write_frame(add=[{"id": "m", "shape": {"type": "triangle_mesh", "vertices": mesh.vertices.tolist(),
                                                 "triangles": mesh.triangles.tolist()}, "position": [0, 0, 0]},
                           {"id": "h", "shape": {"type": "heightfield", "heights": hf.heights.tolist(),
                                                 "cell": [1.0, 0.5]}, "position": [5, 0, 0]}])
        w.close()
        scenario = read_scenario(path)
        assert scenario.header.version == 3  # the writer moved the header to version 3
        shapes = {b.id: b.shape for frame in scenario for b in frame.add}
        assert shapes["m"] == mesh and shapes["h"] == hf
    bad = tmp_path / "v2.jsonl"
    bad.write_text('{"collideworld_scenario": 2, "dim": 3}\n'
                   '{"add": [{"id": "h", "shape": {"type": "heightfield", "heights": [[0, 0], [0, 0]], '
                   '"cell": [1, 1]}}]}\n')
    with pytest.raises(ScenarioError, match=r"v2.jsonl:2: .*'heightfield' needs format version 3"):
        list(read_scenario(bad))
    ragged = tmp_path / "ragged.jsonl"
    ragged.write_text('{"collideworld_scenario": 3, "dim": 3}\n'
                      '{"add": [{"id": "h", "shape": {"type": "heightfield", "heights": [[0, 0], [0]], '
                      '"cell": [1, 1]}}]}\n')
    with pytest.raises(ScenarioError, match=r"ragged.jsonl:2: .*HeightField heights row 1"):
        list(read_scenario(ragged))


# -- the tree and the grid ------------------------------------------------------------------------

def test_bvh_and_heightfield_cells_find_every_overlapping_triangle():
    from collideworld.geometry.mesh_bvh import TriangleBVH, heightfield_cells

    rng = np.random.default_rng(8)
    for n in (1, 3, 4, 5, 37, 1000):
        corners = rng.uniform(-5, 5, size=(n, 3, 3))
        lo, hi = corners.min(axis=1), corners.max(axis=1)
        qlo = rng.uniform(-6, 5, size=(50, 3))
        qhi = qlo + rng.uniform(0, 3, size=(50, 3))
        q, t = TriangleBVH(lo, hi).query(qlo, qhi)
        brute = np.argwhere(np.all((lo[None] <= qhi[:, None]) & (qlo[:, None] <= hi[None]), axis=2))
        assert sorted(zip(q.tolist(), t.tolist(), strict=True)) == sorted(map(tuple, brute.tolist()))
    heights = rng.uniform(-1, 1, size=(7, 9))
    tris = heightfield_triangles(heights, 0.5, 0.25)
    lo, hi = tris.min(axis=1), tris.max(axis=1)
    h = np.stack([heights[:-1, :-1], heights[:-1, 1:], heights[1:, :-1], heights[1:, 1:]])
    qlo = rng.uniform(-1, 4.5, size=(200, 3))
    qhi = qlo + rng.uniform(0, 1, size=(200, 3))
    q, t = heightfield_cells(qlo, qhi, h.min(axis=0), h.max(axis=0), 0.5, 0.25)
    found = set(zip(q.tolist(), t.tolist(), strict=True))
    # every triangle whose own box meets the query box is among the cells found (a cell's box holds both)
    brute = np.argwhere(np.all((lo[None] <= qhi[:, None]) & (qlo[:, None] <= hi[None]), axis=2))
    assert set(map(tuple, brute.tolist())) <= found


@pytest.mark.parametrize("surface", ["mesh", "heightfield"])
def test_a_body_moving_over_a_large_static_surface_meets_the_right_triangles(surface):
    # the static surface is pruned by the tree (or grid) with the body's fat box: each step checked
    # against the exact sphere-triangle test over every triangle
    rng = np.random.default_rng(4)
    heights = rng.uniform(0.0, 0.3, size=(16, 16))
    tris = heightfield_triangles(heights, 0.5, 0.5)
    shape = (HeightField(heights, (0.5, 0.5)) if surface == "heightfield"
             else TriangleMesh(tris.reshape(-1, 3), np.arange(3 * len(tris)).reshape(-1, 3)))
    w = World(dim=3)
    w.add(shape, (0.0, 0.0, 0.0), static=True, id="s")
    r = 0.35
    w.add(Sphere(r), (1.0, 1.0, 0.5), id="ball")
    checked = 0
    for k in range(80):
        p = np.array([1.0 + 0.07 * k, 1.0 + 0.05 * k + 0.3 * np.sin(k * 0.3), 0.3 + 0.1 * np.cos(k * 0.2)])
        w.move("ball", tuple(p))
        got = {c.part_a for c in w.step()}
        gaps = np.array([np.linalg.norm(p - closest_on_triangle(p, *t)) - r for t in tris])
        if np.any(np.abs(gaps) < 1e-9):
            continue
        assert got == set(np.flatnonzero(gaps <= 0).tolist()), k
        checked += 1
    assert checked > 70


def test_collide_many_takes_a_surface_as_collide_does():
    """A triangle on one side: each row is collide()'s answer (a sphere 0.1 into it, one 0.1 above;
    depth 0.1 by hand; tests/test_collide_many_surfaces.py checks many more against fcl)."""
    from collideworld import collide_many

    tri = TriangleMesh([(0, 0, 0), (2, 0, 0), (2, 2, 0)], [(0, 1, 2)])
    quat = np.tile([1.0, 0, 0, 0], (2, 1))
    res = collide_many(tri, (np.zeros((2, 3)), quat), Sphere(0.5), (np.array([[1.5, 0.5, 0.4], [1.5, 0.5, 0.6]]), quat))
    assert res.hit.tolist() == [True, False]
    assert res.depth[0] == pytest.approx(0.1, abs=1e-12)


def test_recorder_writes_version_3_and_the_arrow_form_replays(tmp_path):
    from collideworld.scenario import Recorder, replay
    from collideworld.scenario.arrow import convert

    w = World(dim=3)
    path = tmp_path / "rec.jsonl"
    rec = Recorder(w, path)
    rec.add(HeightField(np.zeros((4, 4)), (1.0, 1.0)), (0, 0, 0), static=True, id="h")
    rec.add(Sphere(0.5), (1.5, 1.5, 0.4), id="s")
    rec.step()
    rec.move("s", (1.5, 1.5, 2.0))
    rec.step()
    rec.close()
    assert path.read_text().startswith('{"collideworld_scenario":3')
    assert replay(path).ok
    convert(path, tmp_path / "rec.arrows")
    assert replay(tmp_path / "rec.arrows").ok


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_a_static_surface_moved_in_small_steps_under_a_ball(backend):
    # the pruned triangles must follow a static surface that is moved (its tree stays, its query moves)
    heights = np.zeros((9, 9))
    tris = heightfield_triangles(heights, 1.0, 1.0)
    w = World(dim=3, backend=backend)
    w.add(HeightField(heights, (1.0, 1.0)), (0.0, 0.0, 0.0), static=True, id="h")
    centre, r = np.array([2.5, 2.5, 0.2]), 0.3
    w.add(Sphere(r), tuple(centre), id="s")
    w.step()
    for k in range(1, 30):
        shift = np.array([0.04 * k + 0.003, 0.0, 0.0])
        w.move("h", tuple(shift))
        got = sorted(c.part_a for c in w.step())
        gaps = [np.linalg.norm(centre - closest_on_triangle(centre, *(t + shift))) - r for t in tris]
        assert got == [t for t, g in enumerate(gaps) if g <= 0], k


# -- contact points (World(manifolds=True)) of triangle contacts --------------------------------------------


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_a_box_resting_on_a_flat_quad_gets_the_corners_of_its_face_over_each_triangle(backend):
    """Hand calculation with shapely: the box's bottom face cut by each triangle, halfway down its depth."""
    import shapely

    quad = TriangleMesh([(-2, -2, 0), (2, -2, 0), (2, 2, 0), (-2, 2, 0)], [(0, 1, 2), (0, 2, 3)])
    w = World(dim=3, manifolds=True, backend=backend)
    w.add(quad, (0.0, 0.0, 0.0), static=True, id="m")
    w.add(Box((0.5, 0.5, 0.5)), (0.3, 0.2, 0.49), id="b")
    contacts = list(w.step())
    assert sorted(c.part_a for c in contacts) == [0, 1]
    bottom = shapely.box(-0.2, -0.3, 0.8, 0.7)
    for c in contacts:
        tri = quad.vertices[quad.triangles[c.part_a]][:, :2]
        corners = np.array(bottom.intersection(shapely.Polygon(tri)).exterior.coords)[:-1]
        assert c.depth == pytest.approx(0.01, abs=1e-15)
        assert len(c.points) == min(4, len(corners))
        for p, sep in zip(c.points, c.separations, strict=True):
            assert np.min(np.linalg.norm(corners - p[:2], axis=1)) < 1e-12  # a corner of the cut
            assert p[2] == pytest.approx(-0.005, abs=1e-12)  # halfway between the face (-0.01) and the triangle (0)
            assert sep == pytest.approx(-0.01, abs=1e-12)


def _gap_to(shape, position, quaternion, p: np.ndarray) -> float:
    """Distance of point p from a sphere, box or capsule (0 inside), by closed forms."""
    rot = rotation_matrix_3d(np.array([quaternion], dtype=np.float64))[0]
    q = rot.T @ (p - np.asarray(position))
    if isinstance(shape, Sphere):
        return max(0.0, float(np.linalg.norm(q)) - shape.radius)
    if isinstance(shape, Box):
        h = np.asarray(shape.half_extents)
        return float(np.linalg.norm(q - np.clip(q, -h, h)))
    a, b = np.asarray(shape.p0), np.asarray(shape.p1)
    t = np.clip((q - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0)
    return max(0.0, float(np.linalg.norm(q - (a + t * (b - a)))) - shape.radius)


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_contact_points_lie_within_half_their_separation_of_both_shapes(backend):
    rng = np.random.default_rng(29)
    checked = 0
    for _ in range(150):
        mesh = random_soup(rng)
        other = random_other(rng)
        pos, q = tuple(rng.uniform(-0.6, 0.6, size=3)), tuple(random_quaternion(rng))
        w = World(dim=3, manifolds=True, backend=backend)
        w.add(mesh, (0.0, 0.0, 0.0), static=True, id="m")
        w.add(other, pos, quaternion=q, id="o")
        for c in w.step():
            tri = mesh.vertices[mesh.triangles[c.part_a]]
            assert len(c.points) >= 1, "a touching triangle pair has at least one contact point"
            assert np.min(c.separations) >= -c.depth - 1e-9
            for p, sep in zip(c.points, c.separations, strict=True):
                slack = abs(sep) / 2 + 1e-9
                assert np.linalg.norm(p - closest_on_triangle(p, *tri)) <= slack
                assert _gap_to(other, pos, q, p) <= slack
                checked += 1
    assert checked > 200
