"""Convex hulls (3D): construction, contacts against every 3D kind, ray casts, the world.

Oracles: scipy's Qhull run on the raw points (the hull's faces), linear
programming (HiGHS through ``scipy.optimize.linprog``) for the intersection
of two polytopes and for how deeply they overlap, and python-fcl
(``fcl.Convex``, ``fcl.Sphere``, ``fcl.Capsule``) distances for the grown
shapes. The minimum-translation property: moving b by ``depth * normal``
leaves the two touching, and no shorter move in a random direction separates them.
"""

from __future__ import annotations

import itertools
import math

import fcl
import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.spatial import ConvexHull as Qhull

from collideworld import Box, Capsule, ConvexHull, Plane, Sphere, World, collide
from collideworld.backend import compiled_available
from collideworld.errors import InvalidShapeError
from collideworld.geometry.rotation import rotation_matrix_3d
from collideworld.shapes import MAX_HULL_POINTS, MAX_HULL_VERTICES

BACKENDS = ["numpy"] + (["compiled"] if compiled_available() else [])
IDENTITY = (1.0, 0.0, 0.0, 0.0)


# -- construction ----------------------------------------------------------------------

def test_faces_match_qhull_and_point_outwards() -> None:
    rng = np.random.default_rng(1)
    pts = rng.normal(size=(40, 3))
    hull = ConvexHull([tuple(p) for p in pts])
    ref = Qhull(pts)
    assert len(hull.vertices) == len(ref.vertices)
    assert {tuple(v) for v in hull.vertices} == {tuple(pts[i]) for i in ref.vertices}
    # every point of the input is inside every face plane; every face's own vertices lie on it
    assert (pts @ hull.normals.T <= hull.offsets + 1e-12).all()
    for f, (a, b, c) in enumerate(hull.faces):
        on = hull.vertices[[a, b, c]] @ hull.normals[f]
        np.testing.assert_allclose(on, hull.offsets[f], atol=1e-12)
        # counter-clockwise seen from outside
        cross = np.cross(hull.vertices[b] - hull.vertices[a], hull.vertices[c] - hull.vertices[a])
        assert cross @ hull.normals[f] > 0
    # Euler: V - E + F = 2 for the triangulated surface
    assert len(hull.vertices) - len(hull.edges) + len(hull.faces) == 2


@pytest.mark.parametrize("points, message", [
    ([(0, 0, 0), (1, 0, 0), (0, 1, 0)], "at least 4 points"),
    ([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (5, 5, 0)], "all lie on one plane"),
    ([(0, 0, 0), (1, 1, 1), (2, 2, 2), (3, 3, 3)], "all lie on one plane"),
    ([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, math.nan)], "must be finite"),
    ([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1e151)], "at most 1e+150"),
    ([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0)], "3 components"),
    (7, "sequence of (x, y, z) triples"),
])
def test_bad_input_is_refused(points, message: str) -> None:
    with pytest.raises(InvalidShapeError) as info:
        ConvexHull(points)
    assert message in str(info.value)


def test_size_limits_are_enforced() -> None:
    with pytest.raises(InvalidShapeError, match=f"at most {MAX_HULL_POINTS} points, got {MAX_HULL_POINTS + 1}"):
        ConvexHull([(0.0, 0.0, float(i)) for i in range(MAX_HULL_POINTS + 1)])
    ring = [(math.cos(t), math.sin(t), z) for t in np.linspace(0, 2 * np.pi, MAX_HULL_VERTICES, endpoint=False)
            for z in (0.0, 1.0)]
    with pytest.raises(InvalidShapeError, match=f"at most {MAX_HULL_VERTICES} hull vertices"):
        ConvexHull(ring)


def test_near_coplanar_faces_are_kept_consistent() -> None:
    # a box whose top is a slightly domed grid: many faces within 1e-9 of one plane
    grid = [(x, y, 1.0 + 1e-9 * (x * x + y * y)) for x in np.linspace(-1, 1, 5) for y in np.linspace(-1, 1, 5)]
    hull = ConvexHull(grid + [(x, y, -1.0) for x in (-1, 1) for y in (-1, 1)])
    assert (np.abs(np.linalg.norm(hull.normals, axis=1) - 1) < 1e-12).all()
    res = collide(hull, ((0, 0, 0), IDENTITY), Sphere(0.5), ((0, 0, 1.4), IDENTITY))
    assert res is not None and abs(res.depth - 0.1) < 1e-8 and res.normal[2] > 1 - 1e-8


# -- oracles ----------------------------------------------------------------------------

def _random_hull(rng, n=None) -> ConvexHull:
    n = int(rng.integers(6, 30)) if n is None else n
    return ConvexHull([tuple(p) for p in rng.normal(size=(n, 3)) * rng.uniform(0.3, 1.0, 3)])


def _planes(shape, pos, quat):
    """World half-spaces (A x <= b) of a hull or box."""
    rot = rotation_matrix_3d(np.asarray(quat, dtype=float)[None])[0]
    if isinstance(shape, Box):
        normals = np.concatenate([np.eye(3), -np.eye(3)])
        offsets = np.concatenate([shape.half_extents, shape.half_extents])
    else:
        normals, offsets = np.asarray(shape.normals), np.asarray(shape.offsets)
    world_n = normals @ rot.T
    return world_n, offsets + world_n @ np.asarray(pos, dtype=float)


def _lp_depth(sa, pa, qa, sb, pb, qb) -> float:
    """Largest s with a point s inside every face of both polytopes (> 0: overlapping, < 0: apart)."""
    a1, b1 = _planes(sa, pa, qa)
    a2, b2 = _planes(sb, pb, qb)
    A = np.concatenate([a1, a2])
    b = np.concatenate([b1, b2])
    res = linprog(c=[0, 0, 0, -1], A_ub=np.hstack([A, np.ones((len(A), 1))]), b_ub=b,
                  bounds=[(None, None)] * 3 + [(-10, None)], method="highs")
    assert res.status == 0
    return -res.fun


def _fcl_object(shape, pos, quat):
    rot = rotation_matrix_3d(np.asarray(quat, dtype=float)[None])[0]
    tf = fcl.Transform(rot, np.asarray(pos, dtype=float))
    if isinstance(shape, ConvexHull):
        faces = np.hstack([np.full((len(shape.faces), 1), 3), shape.faces]).ravel()
        return fcl.CollisionObject(fcl.Convex(np.array(shape.vertices), len(shape.faces), faces), tf)
    if isinstance(shape, Sphere):
        return fcl.CollisionObject(fcl.Sphere(shape.radius), tf)
    if isinstance(shape, Box):
        return fcl.CollisionObject(fcl.Box(*(2 * np.array(shape.half_extents))), tf)
    # a capsule along local z, centred: ours are built that way below
    length = shape.p1[2] - shape.p0[2]
    return fcl.CollisionObject(fcl.Capsule(shape.radius, length), tf)


def _fcl_distance(sa, pa, qa, sb, pb, qb) -> float:
    return float(fcl.distance(_fcl_object(sa, pa, qa), _fcl_object(sb, pb, qb), fcl.DistanceRequest(),
                              fcl.DistanceResult()))


def _qp_gap(sa, pa, qa, hull, pb, qb) -> float:
    """Gap of a sphere or capsule (a) and a hull (b): min |x - core(t)|, x in the hull, t in [0, 1], less the radius.

    A small quadratic programme (scipy's SLSQP, to ~1e-15 here); fcl's GJK
    distances for convex meshes are off by up to ~3e-5 in these scenes, so fcl
    only decides the clear hits and misses.
    """
    from scipy.optimize import minimize

    rot = rotation_matrix_3d(np.asarray(qa, dtype=float)[None])[0]
    if isinstance(sa, Sphere):
        c0 = c1 = np.asarray(pa, dtype=float)
    else:
        c0, c1 = rot @ np.array(sa.p0) + pa, rot @ np.array(sa.p1) + pa
    A, b = _planes(hull, pb, qb)

    def f(z):
        w = z[:3] - (c0 + z[3] * (c1 - c0))
        return float(w @ w)

    def jac(z):
        w = z[:3] - (c0 + z[3] * (c1 - c0))
        return np.concatenate([2 * w, [-2 * w @ (c1 - c0)]])
    cons = [{"type": "ineq", "fun": lambda z: b - A @ z[:3], "jac": lambda z: np.hstack([-A, np.zeros((len(A), 1))])}]
    start = np.concatenate([np.asarray(pb, dtype=float), [0.5]])
    res = minimize(f, start, jac=jac, constraints=cons, bounds=[(None, None)] * 3 + [(0, 1)], method="SLSQP",
                   options={"ftol": 1e-18, "maxiter": 1000})
    return math.sqrt(max(res.fun, 0.0)) - sa.radius


def _contact(sa, pose_a, sb, pose_b, backend):
    w = World(dim=3, backend=backend)
    w.add(sa, id=0) if pose_a is None else w.add(sa, position=pose_a[0], quaternion=pose_a[1], id=0)
    w.add(sb, position=pose_b[0], quaternion=pose_b[1], id=1)
    found = list(w.step())
    if not found:
        return None
    (c,) = found
    return (1.0 if c.a == 0 else -1.0) * np.asarray(c.normal), float(c.depth)


def _quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


@pytest.mark.parametrize("other", ["box", "hull"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_polytope_pairs_against_linear_programming(other: str, backend: str) -> None:
    rng = np.random.default_rng([3, len(other)])
    overlaps = 0
    for _ in range(60):
        sa = Box(tuple(rng.uniform(0.2, 1.0, 3))) if other == "box" else _random_hull(rng)
        sb = _random_hull(rng)
        pa, qa, pb, qb = rng.uniform(-1, 1, 3), _quat(rng), rng.uniform(-1, 1, 3), _quat(rng)
        lp = _lp_depth(sa, pa, qa, sb, pb, qb)
        got = _contact(sa, (pa, qa), sb, (pb, qb), backend)
        if lp < -1e-9:
            assert got is None
            continue
        if lp > 1e-9:
            assert got is not None
        if got is None:
            continue
        n, depth = got
        if depth < 1e-6:
            continue
        overlaps += 1
        # moved by the MTD: touching (no room for any ball inside both), the LP says
        assert abs(_lp_depth(sa, pa, qa, sb, pb + depth * n, qb)) < 1e-9
        for u in rng.normal(size=(6, 3)):
            u /= np.linalg.norm(u)
            assert _lp_depth(sa, pa, qa, sb, pb + depth * (1 - 1e-6) * u, qb) > 0
        back = _contact(sb, (pb, qb), sa, (pa, qa), backend)
        assert back is not None and np.allclose(back[0], -n, atol=1e-12) and abs(back[1] - depth) < 1e-12
    assert overlaps > 10


@pytest.mark.parametrize("other", ["sphere", "capsule"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_grown_shapes_against_fcl(other: str, backend: str) -> None:
    rng = np.random.default_rng([4, len(other)])
    overlaps = 0
    for _ in range(80):
        if other == "sphere":
            sa = Sphere(rng.uniform(0.1, 0.8))
        else:
            half = rng.uniform(0.1, 1.0)
            sa = Capsule((0, 0, -half), (0, 0, half), rng.uniform(0.1, 0.6))
        sb = _random_hull(rng)
        pa, qa, pb, qb = rng.uniform(-1, 1, 3), _quat(rng), rng.uniform(-1, 1, 3), _quat(rng)
        dist = _fcl_distance(sa, pa, qa, sb, pb, qb)
        got = _contact(sa, (pa, qa), sb, (pb, qb), backend)
        if dist > 1e-4:
            assert got is None
            continue
        if dist <= 0:
            assert got is not None
        if got is None:
            assert _qp_gap(sa, pa, qa, sb, pb, qb) > 0
            continue
        n, depth = got
        if depth < 1e-4:
            continue
        overlaps += 1
        # moved by the MTD: touching (the QP), and fcl agrees to its accuracy
        assert abs(_qp_gap(sa, pa, qa, sb, pb + depth * n, qb)) < 1e-9
        assert abs(_fcl_distance(sa, pa, qa, sb, pb + (depth + 1e-3) * n, qb) - 1e-3) < 1e-4
        for u in rng.normal(size=(4, 3)):
            u /= np.linalg.norm(u)
            assert _qp_gap(sa, pa, qa, sb, pb + depth * (1 - 1e-6) * u, qb) < 0
    assert overlaps > 10


def test_plane_against_hull_is_the_lowest_vertex() -> None:
    rng = np.random.default_rng(8)
    for _ in range(30):
        hull = _random_hull(rng)
        pos, q = rng.uniform(-1, 1, 3), _quat(rng)
        world = hull.vertices @ rotation_matrix_3d(q[None])[0].T + pos
        got = _contact(Plane((0, 0, 1), 0.0), None, hull, (pos, q), "numpy")
        expected = -world[:, 2].min()
        if expected > 1e-12:
            assert got is not None and abs(got[1] - expected) < 1e-12 and np.allclose(got[0], (0, 0, 1))
        elif expected < -1e-12:
            assert got is None


def test_touching_hulls_count() -> None:
    cube = ConvexHull(list(itertools.product((0.0, 1.0), repeat=3)))
    res = collide(cube, ((0, 0, 0), IDENTITY), cube, ((1, 0.5, 0.25), IDENTITY))
    assert res is not None and res.depth == 0.0 and np.allclose(res.normal, (1, 0, 0))
    assert collide(cube, ((0, 0, 0), IDENTITY), cube, ((1 + 1e-9, 0, 0), IDENTITY)) is None


def test_hull_of_a_box_behaves_as_the_box() -> None:
    rng = np.random.default_rng(12)
    half = np.array([0.5, 1.0, 1.5])
    as_hull = ConvexHull([tuple(s * half) for s in itertools.product((-1, 1), repeat=3)])
    for _ in range(40):
        other = Box(tuple(rng.uniform(0.2, 1.0, 3))) if rng.random() < 0.5 else Sphere(rng.uniform(0.2, 1.0))
        pa, qa, pb, qb = rng.uniform(-1, 1, 3), _quat(rng), rng.uniform(-1.5, 1.5, 3), _quat(rng)
        ref = collide(Box(tuple(half)), (pa, qa), other, (pb, qb))
        got = collide(as_hull, (pa, qa), other, (pb, qb))
        assert (ref is None) == (got is None)
        if ref is not None:
            assert abs(ref.depth - got.depth) < 1e-9


# -- ray casts and the world -------------------------------------------------------------

def test_raycast_enters_at_the_lp_entry() -> None:
    rng = np.random.default_rng(5)
    hits = 0
    for i in range(40):
        hull = _random_hull(rng)
        pos, q = rng.uniform(-1, 1, 3), _quat(rng)
        w = World(dim=3)
        w.add(hull, position=pos, quaternion=q, id=i)
        origin = rng.uniform(-4, 4, 3)
        direction = pos + rng.normal(size=3) * 0.7 - origin  # towards the hull, not always through it
        direction /= np.linalg.norm(direction)
        A, b = _planes(hull, pos, q)
        # least t >= 0 with origin + t d inside: an LP in t
        res = linprog(c=[1.0], A_ub=(A @ direction)[:, None], b_ub=b - A @ origin, bounds=[(0, None)], method="highs")
        found = w.raycast(origin, direction)
        if res.status == 2:  # infeasible: the ray misses
            assert not found
        else:
            assert found and abs(found[0].distance - res.x[0]) < 1e-9
            hits += 1
    assert hits > 5


def test_world_moves_and_removes_hulls() -> None:
    cube = ConvexHull(list(itertools.product((-1.0, 1.0), repeat=3)))
    w = World(dim=3)
    w.add(cube, position=(0, 0, 0), id="a")
    w.add(cube, position=(5, 0, 0), id="b")
    assert len(w.step()) == 0
    w.move("b", position=(1.5, 0, 0))
    res = w.step()
    assert [(c.a, c.b) for c in res] == [("a", "b")] and abs(res[0].depth - 0.5) < 1e-12
    w.remove("a")
    assert len(w.step()) == 0


def test_gauss_map_pruning_matches_every_edge_pair() -> None:
    """The SAT with edge pairs pruned on the Gauss map gives the same depths as with all of them."""
    from collideworld.bodies import BodyStore
    from collideworld.geometry.contact_hull import contact_polytopes

    rng = np.random.default_rng(13)
    store = BodyStore(3)
    n = 80
    slots = store.allocate(2 * n)
    store.set_shapes(slots, [_random_hull(rng) for _ in range(2 * n)])
    q = rng.normal(size=(2 * n, 4))
    store.set_poses(slots, rng.uniform(-0.6, 0.6, (2 * n, 3)), quaternion=q / np.linalg.norm(q, axis=1)[:, None])
    a, b = slots[:n], slots[n:]
    zero = np.zeros(n)
    pruned = contact_polytopes(*store.hull_rows(a), zero, *store.hull_rows(b), zero,
                               store.hull_adjacent(a), store.hull_adjacent(b))
    every = contact_polytopes(*store.hull_rows(a), zero, *store.hull_rows(b), zero)
    assert pruned.hit.sum() > n // 3
    np.testing.assert_array_equal(pruned.hit, every.hit)
    np.testing.assert_allclose(pruned.depth, every.depth, rtol=0, atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_world_queries_filters_and_events_with_new_shapes(backend: str) -> None:
    cube = ConvexHull(list(itertools.product((-1.0, 1.0), repeat=3)))
    w = World(dim=3, backend=backend)
    w.add(cube, position=(0, 0, 0), id="hull")
    w.add(Capsule((0, 0, -1), (0, 0, 1), 0.5), position=(1.25, 0, 0), id="cap")
    w.add(Capsule((0, 0, 0), (1, 0, 0), 0.5), position=(-3, 0, 0), id="far", category=2, mask=2)
    first = w.step()
    assert [(c.a, c.b) for c in first] == [("hull", "cap")] and abs(first[0].depth - 0.25) < 1e-12
    assert len(first.began) == 1
    # points: inside the hull's corner region, on the capsule's cap, in neither
    assert w.query_point((0.99, 0.99, 0.99)) == ["hull"]
    assert w.query_point((1.25, 0.0, 1.5)) == ["cap"]
    assert w.query_point((1.25, 0.0, 1.5 + 1e-9)) == []
    assert w.query_shape(Capsule((0, 0, 0), (2, 0, 0), 0.1), position=(-3.5, 0, 0), quaternion=IDENTITY) == ["far"]
    assert w.query_aabb((1.5, -0.1, 1.2), (2.0, 0.1, 2.0)) == ["cap"]
    # a filtered-out pair never touches; moving apart ends the contact
    w.move("far", position=(-1.4, 0, 0))
    assert [(c.a, c.b) for c in w.step()] == [("hull", "cap")]
    w.move("cap", position=(3.0, 0, 0))
    last = w.step()
    assert len(last) == 0 and len(last.ended) == 1


def test_hulls_collide_without_numba():
    # the numpy fallback runs the GJK driver as plain Python, where an output buffer one
    # field short raised IndexError (and, compiled, would have written past its end)
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['numba'] = None\n"
        "import warnings; warnings.simplefilter('ignore')\n"
        "from collideworld import ConvexHull, Sphere, World\n"
        "w = World(3)\n"
        "w.add(ConvexHull([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]))\n"
        "w.add(Sphere(1.0), position=(0, 0, 1.5))\n"
        "c = w.step()\n"
        "print(w.backend, len(c), float(c.depth[0]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    # the unit cube's top face is at z = 1, the sphere reaches down to 0.5: depth 0.5 by hand
    assert out.stdout.split() == ["numpy", "1", "0.5"]


@pytest.mark.parametrize("exponent", range(-150, 151))
def test_unit_cube_scaled_by_any_power_of_ten_is_a_cube(exponent: int) -> None:
    """Every power of ten within the coordinate limit: 8 vertices, 12 faces, volume s^3, the 6 axis normals.

    By hand: the cube [0, s]^3 has its 8 corners as vertices; its faces lie in
    the planes x_i = 0 and x_i = s, so each normal is a +-axis and each
    offset 0 or s. The volume, by the divergence theorem over the triangles
    of ``vertices / s`` (exactly 0 or 1), is 1.
    """
    s = 10.0 ** exponent
    corners = list(itertools.product((0.0, s), repeat=3))
    hull = ConvexHull(corners + [(0.5 * s, 0.5 * s, 0.5 * s)])
    assert sorted(map(tuple, hull.vertices.tolist())) == sorted(corners)
    assert len(hull.faces) == 12 and len(hull.edges) == 18
    unit = hull.vertices / s
    a, b, c = (unit[hull.faces[:, k]] for k in range(3))
    assert math.isclose(float(np.einsum("fi,fi->", a, np.cross(b, c))) / 6.0, 1.0, rel_tol=1e-12)
    axes = np.round(hull.normals).astype(int)
    np.testing.assert_allclose(hull.normals, axes, atol=1e-12)
    assert sorted(map(tuple, np.unique(axes, axis=0).tolist())) == sorted(
        tuple(int(v) for v in row) for row in np.vstack([np.eye(3), -np.eye(3)]))
    want = np.where(axes.sum(axis=1) > 0, s, 0.0)
    np.testing.assert_allclose(hull.offsets, want, rtol=1e-12, atol=1e-12 * s)
    assert math.isclose(hull.bounding_radius, s * math.sqrt(3.0), rel_tol=1e-12)
