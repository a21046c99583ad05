"""Contact points of convex hulls against planes, spheres, boxes and hulls (issue 14 for hulls).

Hand cases with exact answers, and the property every manifold keeps: each
point lies within its own |separation| (plus tolerance) of both shapes, the
distances measured here by a small quadratic programme over the hull's face
planes from scipy's Qhull (independent of collideworld's geometry).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.spatial import ConvexHull as Qhull
from scipy.spatial.transform import Rotation

from collideworld import Box, ConvexHull, Plane, Sphere, World, collide
from collideworld.backend import compiled_available

BACKENDS = ["numpy"] + (["compiled"] if compiled_available() else [])
CUBE = ConvexHull(list(itertools.product((-1.0, 1.0), repeat=3)))
IDENTITY = np.eye(3)


def _world_points(shape, pose) -> np.ndarray:
    pos, rot = pose
    if isinstance(shape, Box):
        local = np.array(list(itertools.product((-1.0, 1.0), repeat=3))) * shape.half_extents
    else:
        local = np.asarray(shape.vertices)
    return local @ np.asarray(rot).T + np.asarray(pos, dtype=float)


def _distance(shape, pose, p) -> float:
    """Distance from p to a posed shape (0 inside): closed forms, or a QP over a polytope's face planes."""
    p = np.asarray(p, dtype=float)
    if isinstance(shape, Plane):
        n = np.asarray(shape.normal, dtype=float)
        return max(0.0, float(n @ p / np.linalg.norm(n) - shape.offset))
    if isinstance(shape, Sphere):
        return max(0.0, float(np.linalg.norm(p - np.asarray(pose[0], dtype=float)) - shape.radius))
    eq = Qhull(_world_points(shape, pose)).equations
    A, b = eq[:, :3], -eq[:, 3]
    if (A @ p <= b + 1e-12).all():
        return 0.0
    res = minimize(lambda x: float((x - p) @ (x - p)), _world_points(shape, pose).mean(axis=0),
                   jac=lambda x: 2 * (x - p), method="SLSQP",
                   constraints=[{"type": "ineq", "fun": lambda x: b - A @ x, "jac": lambda x: -A}],
                   options={"ftol": 1e-20, "maxiter": 500})
    return float(np.sqrt(max(res.fun, 0.0)))


def _check_points(sa, pa, sb, pb, r, tol=1e-9) -> None:
    assert 1 <= len(r.points) <= 4
    assert len(set(r.point_ids.tolist())) == len(r.point_ids)
    for p, s in zip(r.points, r.separations, strict=True):
        for shape, pose in ((sa, pa), (sb, pb)):
            assert _distance(shape, pose, p) <= abs(s) + tol, (shape, p, s)
        assert s >= -r.depth - tol


def _arg(shape, pose):
    return None if isinstance(shape, Plane) else pose


# -- hand cases -----------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_cube_hull_resting_on_a_plane_gives_its_four_bottom_corners(backend: str) -> None:
    w = World(dim=3, backend=backend, manifolds=True)
    w.add(Plane((0, 0, 1), 0.0), id="ground")
    w.add(CUBE, position=(2.0, 1.0, 0.9), id="cube")
    (c,) = list(w.step())
    expect = sorted([[2 + sx, 1 + sy, -0.05] for sx in (-1, 1) for sy in (-1, 1)])
    np.testing.assert_allclose(sorted(np.asarray(c.points).tolist()), expect, atol=1e-12)
    np.testing.assert_allclose(c.separations, [-0.1] * 4, atol=1e-12)


def test_cube_hull_on_a_box_over_its_edge_gives_the_clipped_face() -> None:
    # the slab's top face is z = 1 and its edge x = 5; the cube's bottom face spans x in [4.5, 6.5]
    r = collide(Box((5.0, 5.0, 1.0)), ((0, 0, 0), IDENTITY), CUBE, ((5.5, 0.0, 2.0), IDENTITY))
    assert r is not None and len(r.points) == 4
    expect = sorted([[x, y, 1.0] for x in (4.5, 5.0) for y in (-1.0, 1.0)])
    np.testing.assert_allclose(sorted(r.points.tolist()), expect, atol=1e-12)
    # the other way round: the same points
    s = collide(CUBE, ((5.5, 0.0, 2.0), IDENTITY), Box((5.0, 5.0, 1.0)), ((0, 0, 0), IDENTITY))
    np.testing.assert_allclose(sorted(s.points.tolist()), expect, atol=1e-12)


def test_turned_cube_hull_on_a_cube_hull_keeps_four_octagon_corners() -> None:
    turned = Rotation.from_euler("z", 45, degrees=True).as_matrix()
    r = collide(CUBE, ((0, 0, 0), IDENTITY), CUBE, ((0, 0, 1.99), turned))
    assert r is not None and len(r.points) == 4
    np.testing.assert_allclose(r.points[:, 2], 0.995, atol=1e-12)
    np.testing.assert_allclose(r.separations, -0.01, atol=1e-12)
    # the octagon: the square |x|, |y| <= 1 cut by the turned square |x +- y| <= sqrt 2
    octagon = []
    s2 = np.sqrt(2.0)
    for x, y in r.points[:, :2]:
        assert max(abs(x), abs(y)) <= 1 + 1e-12 and max(abs(x + y), abs(x - y)) <= s2 + 1e-12
        octagon.append(np.isclose(max(abs(x), abs(y)), 1) and np.isclose(max(abs(x + y), abs(x - y)), s2))
    assert all(octagon)  # corners of the octagon, not points inside it
    # the four kept span the largest area of any 4 of the octagon's 8 corners (brute force)
    corners = []
    for sx, sy in itertools.product((-1, 1), repeat=2):
        corners += [(sx * 1.0, sy * (s2 - 1)), (sx * (s2 - 1), sy * 1.0)]

    def area(pts):
        pts = np.asarray(pts)
        hull = Qhull(pts)
        return hull.volume
    best = max(area(c) for c in itertools.combinations(corners, 4))
    assert abs(area(r.points[:, :2]) - best) < 1e-9


def test_sphere_on_a_hull_gives_one_point() -> None:
    r = collide(Sphere(0.5), ((0.3, -0.2, 1.4), IDENTITY), CUBE, ((0, 0, 0), IDENTITY))
    assert r is not None and len(r.points) == 1
    np.testing.assert_allclose(r.points[0], [0.3, -0.2, 0.95], atol=1e-12)
    np.testing.assert_allclose(r.separations, [-0.1], atol=1e-12)


def test_ids_are_stable_under_small_motions() -> None:
    ids = []
    for k in range(3):
        r = collide(Box((5.0, 5.0, 1.0)), ((0, 0, 0), IDENTITY), CUBE, ((0.01 * k, 0.02 * k, 1.95), IDENTITY))
        ids.append(sorted(r.point_ids.tolist()))
    assert ids[0] == ids[1] == ids[2]


# -- properties ------------------------------------------------------------------------------

def _random_hull(rng) -> ConvexHull:
    pts = rng.normal(size=(int(rng.integers(6, 40)), 3)) * rng.uniform(0.3, 1.0, 3)
    return ConvexHull([tuple(p) for p in pts])


def _pairs(rng, count):
    out = []
    while len(out) < count:
        kind = rng.integers(4)
        sa = [lambda: Plane(tuple(rng.normal(size=3)), rng.uniform(-0.5, 0.5)),
              lambda: Sphere(rng.uniform(0.2, 1.0)),
              lambda: Box(tuple(rng.uniform(0.2, 1.2, 3))),
              lambda: _random_hull(rng)][kind]()
        sb = _random_hull(rng) if rng.random() < 0.7 else CUBE

        def pose():
            if rng.random() < 0.4:  # aligned: faces meet flat
                return rng.uniform(-1.2, 1.2, 3), Rotation.from_euler("xyz", rng.integers(4, size=3) * 90,
                                                                      degrees=True).as_matrix()
            return rng.uniform(-1.2, 1.2, 3), Rotation.random(random_state=rng).as_matrix()
        pa, pb = pose(), pose()
        r = collide(sa, _arg(sa, pa), sb, pb)
        if r is not None:
            out.append((sa, pa, sb, pb, r))
    return out


def test_every_point_touches_both_shapes() -> None:
    for sa, pa, sb, pb, r in _pairs(np.random.default_rng(31), 120):
        _check_points(sa, pa, sb, pb, r)


def test_swapping_a_and_b_gives_the_same_points_and_swapped_ids() -> None:
    for sa, pa, sb, pb, r in _pairs(np.random.default_rng(32), 60):
        s = collide(sb, pb, sa, _arg(sa, pa))
        np.testing.assert_allclose(s.normal, -r.normal, atol=1e-12)
        assert len(s.points) == len(r.points)
        near = np.linalg.norm(s.points[:, None, :] - r.points[None, :, :], axis=2)
        match = np.argmin(near, axis=1)
        assert sorted(match.tolist()) == list(range(len(r.points)))
        assert near[np.arange(len(match)), match].max() <= 1e-9
        swapped = ((r.point_ids & 0xFFFFFFFF) << 32) | (r.point_ids >> 32)
        if type(sa) is not type(sb):
            assert sorted(s.point_ids.tolist()) == sorted(swapped.tolist())


@pytest.mark.parametrize("backend", BACKENDS)
def test_resting_hulls_give_four_points_in_a_world(backend: str) -> None:
    w = World(dim=3, backend=backend, manifolds=True)
    w.add(Box((10.0, 10.0, 1.0)), position=(0, 0, 0), id="slab")
    for i in range(5):
        w.add(CUBE, position=(3.0 * i - 6.0, 0.5 * i, 1.98), id=i)
    found = list(w.step())
    assert len(found) == 5
    for c in found:
        assert len(c.points) == 4
        np.testing.assert_allclose(np.asarray(c.separations), -0.02, atol=1e-12)


@pytest.mark.skipif(not compiled_available(), reason="numba is not installed")
@pytest.mark.parametrize("near", [False, True])
def test_compiled_hull_manifolds_match_numpy(near: bool) -> None:
    """Both backends' hull manifold kernels over random worlds of hulls, boxes, spheres and a plane."""
    from collideworld.bodies import BodyStore
    from collideworld.narrowphase import contact_pairs, manifold_pairs

    rng = np.random.default_rng(33 + near)
    n = 40
    shapes = [Plane((0.0, 0.0, 1.0), -0.5)]
    for i in range(1, n):
        shapes.append([lambda: Sphere(rng.uniform(0.2, 0.8)), lambda: Box(tuple(rng.uniform(0.2, 1.0, 3))),
                       lambda: _random_hull(rng), lambda: CUBE][i % 4]())
    store = BodyStore(3)
    slots = store.allocate(n)
    store.set_shapes(slots, shapes)
    quat = Rotation.random(n, random_state=int(near)).as_quat()[:, [3, 0, 1, 2]]
    quat[rng.random(n) < 0.4] = [1, 0, 0, 0]  # aligned: faces meet flat, many points
    pos = rng.uniform(-2, 2, (n, 3)) * (0.5 if near else 1.0)
    pos[:, 2] = np.where(rng.random(n) < 0.3, 0.5, pos[:, 2])  # some resting at the floor
    store.set_poses(slots, pos, None, quat)
    ia, ib = np.triu_indices(n, 1)
    c = contact_pairs(store, slots[ia], slots[ib])
    h = c.hit & ((store.kind[slots[ia]] == 5) | (store.kind[slots[ib]] == 5))
    a, b, nrm, d = slots[ia][h], slots[ib][h], c.normal[h], c.depth[h]
    assert h.sum() > 40
    m1 = manifold_pairs(store, a, b, nrm, d, backend="numpy")
    m2 = manifold_pairs(store, a, b, nrm, d, backend="compiled")
    assert (m1.count == 4).sum() > 3 and (m1.count >= 1).all()
    np.testing.assert_array_equal(m1.count, m2.count)
    np.testing.assert_array_equal(m1.ids, m2.ids)
    np.testing.assert_allclose(m1.points, m2.points, rtol=0, atol=1e-12)
    np.testing.assert_allclose(m1.separations, m2.separations, rtol=0, atol=1e-12)
