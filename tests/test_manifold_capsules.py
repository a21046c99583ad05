"""Contact manifolds of capsules and segments (issue 14), 2D and 3D.

Expected values come from hand calculation, shapely (``LineString`` distances
and buffers in 2D) and closed forms (distance to a segment, a box, a sphere,
a plane in 3D); never from collideworld's own output. The numpy and
compiled kernels are compared on random and near-touching inputs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from scipy.spatial.transform import Rotation

from collideworld import Box, Capsule, Circle, HalfPlane, Plane, Polygon, Segment, Sphere, collide
from collideworld.bodies import BodyStore, Kind
from collideworld.narrowphase import MANIFOLD_KERNELS, contact_pairs, manifold_pairs

TOL = 1e-9


def rot2(t):
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s], [s, c]])


def segment_distance(p, a, b):
    """Closed form: distance from p to segment a-b (clamped projection)."""
    p, a, b = (np.asarray(x, float) for x in (p, a, b))
    e = b - a
    ee = float(e @ e)
    s = 0.0 if ee == 0 else min(max(float((p - a) @ e) / ee, 0.0), 1.0)
    return float(np.linalg.norm(p - (a + s * e)))


def world_ends(shape, pose):
    pos, rot = pose
    r = rot2(rot) if np.ndim(rot) == 0 else np.asarray(rot, float)
    return (r @ np.asarray(shape.p0, float) + np.asarray(pos, float),
            r @ np.asarray(shape.p1, float) + np.asarray(pos, float))


def distance_to(shape, pose, p):
    """Distance from point p to a posed shape (0 inside), by shapely (2D) or closed forms (3D)."""
    p = np.asarray(p, float)
    dim = len(p)
    if isinstance(shape, (HalfPlane, Plane)):
        n = np.asarray(shape.normal, float)
        n = n / np.linalg.norm(n)
        return max(0.0, float(n @ p - shape.offset))
    if isinstance(shape, (Circle, Sphere)):
        pos = pose[0] if isinstance(pose, tuple) else pose
        return max(0.0, float(np.linalg.norm(p - np.asarray(pos, float)) - shape.radius))
    if isinstance(shape, (Capsule, Segment)):
        a, b = world_ends(shape, pose)
        if dim == 2:
            return max(0.0, shapely.LineString([a, b]).distance(shapely.Point(p)) - shape.radius)
        return max(0.0, segment_distance(p, a, b) - shape.radius)
    pos, rot = pose
    if isinstance(shape, Box) and dim == 3:
        local = np.asarray(rot, float).T @ (p - np.asarray(pos, float))
        return float(np.linalg.norm(np.maximum(np.abs(local) - np.asarray(shape.half_extents), 0.0)))
    if isinstance(shape, Box):
        hx, hy = shape.half_extents
        local = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
    else:
        local = np.asarray(shape.vertices, float)
    world = local @ rot2(rot).T + np.asarray(pos, float)
    return float(shapely.Polygon(world).distance(shapely.Point(p)))


def pose_arg(shape, pose):
    if isinstance(shape, (HalfPlane, Plane)):
        return None
    if isinstance(shape, (Circle, Sphere)):
        return pose[0]
    return pose


def check_points_touch(sa, pa, sb, pb, r, scale=1.0):
    """Every point lies within its own |separation| (plus tolerance) of both shapes."""
    assert 1 <= len(r.points) <= (2 if r.normal.shape[0] == 2 else 4)
    assert len(set(r.point_ids.tolist())) == len(r.point_ids)
    for p, s in zip(r.points, r.separations, strict=True):
        for shape, pose in ((sa, pa), (sb, pb)):
            assert distance_to(shape, pose, p) <= abs(s) + TOL * scale, (shape, pose, p, s)
        assert s >= -r.depth - TOL * scale


# -- hand cases, exact answers -------------------------------------------------------------

@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_capsule_lying_on_the_ground_touches_under_both_ends(backend):
    # radius 0.5, core at height 0.4: each end's lowest point is 0.1 under the floor,
    # the point halfway to the floor at height -0.05
    r = collide(HalfPlane((0, 1), 0.0), None, Capsule((-1, 0), (1, 0), 0.5), ((3.0, 0.4), 0.0), backend=backend)
    np.testing.assert_allclose(sorted(r.points.tolist()), [[2.0, -0.05], [4.0, -0.05]], atol=1e-12)
    np.testing.assert_allclose(r.separations, [-0.1, -0.1], atol=1e-12)
    r = collide(Plane((0, 0, 1), 0.0), None, Capsule((-1, 0, 0), (1, 0, 0), 0.5), ((3.0, 2.0, 0.4), np.eye(3)),
                backend=backend)
    np.testing.assert_allclose(sorted(r.points.tolist()), [[2.0, 2.0, -0.05], [4.0, 2.0, -0.05]], atol=1e-12)
    np.testing.assert_allclose(r.separations, [-0.1, -0.1], atol=1e-12)
    assert sorted(r.point_ids.tolist()) == [0, 1]
    # a segment lying exactly on the ground: its two ends, separation 0
    r = collide(Plane((0, 0, 1), 0.0), None, Segment((0, 0, 0), (2, 1, 0)), ((0, 0, 0), np.eye(3)), backend=backend)
    np.testing.assert_allclose(sorted(r.points.tolist()), [[0, 0, 0], [2, 1, 0]], atol=0)
    np.testing.assert_array_equal(r.separations, [0.0, 0.0])


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_capsule_standing_upright_touches_at_one_point(backend):
    r = collide(HalfPlane((0, 1), 0.0), None, Capsule((0, -1), (0, 1), 0.5), ((1.0, 1.3), 0.0), backend=backend)
    np.testing.assert_allclose(r.points, [[1.0, -0.1]], atol=1e-12)
    np.testing.assert_allclose(r.separations, [-0.2], atol=1e-12)
    # tilted 30 degrees: still one point, under the lower end's ball
    t = Rotation.from_euler("x", 30, degrees=True).as_matrix()
    low = t @ np.array([0, 0, -1.0])
    centre = np.array([0.5, 0.5, 0.5 - low[2] - 0.1])
    r = collide(Plane((0, 0, 1), 0.0), None, Capsule((0, 0, -1), (0, 0, 1), 0.5), (centre, t), backend=backend)
    np.testing.assert_allclose(r.points, [centre + low + [0, 0, -0.45]], atol=1e-12)
    np.testing.assert_allclose(r.separations, [-0.1], atol=1e-12)
    assert r.point_ids.tolist() == [0]


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_capsule_across_a_box_face(backend):
    # 3D: radius 0.25 lying on the top face (z = 1) of a 2x2x2 cube, from x = 0.5 out to x = 3:
    # it touches from x = 0.5 to the face's edge x = 1, sunk 0.05
    r = collide(Box((1, 1, 1.0)), ((0, 0, 0), np.eye(3)), Capsule((0.5, 0.3, 0), (3, 0.3, 0), 0.25),
                ((0, 0, 1.2), np.eye(3)), backend=backend)
    assert r.depth == pytest.approx(0.05)
    np.testing.assert_allclose(sorted(r.points.tolist()), [[0.5, 0.3, 0.975], [1.0, 0.3, 0.975]], atol=1e-12)
    np.testing.assert_allclose(r.separations, [-0.05, -0.05], atol=1e-12)
    # crossing the face diagonally, both ends outside: the face clips the core at the face's edges
    r = collide(Box((1, 1, 1.0)), ((0, 0, 0), np.eye(3)), Capsule((-3, -1.5, 0), (3, 1.5, 0), 0.25),
                ((0, 0, 1.25), np.eye(3)), backend=backend)
    np.testing.assert_allclose(sorted(r.points.tolist()), [[-1.0, -0.5, 1.0], [1.0, 0.5, 1.0]], atol=1e-12)
    # 2D: across the top edge of a box turned by 90 degrees (the same box)
    r = collide(Box((1.0, 1.0)), ((0, 0), math.pi / 2), Capsule((0.5, 0), (3, 0), 0.25), ((0, 1.2), 0.0),
                backend=backend)
    np.testing.assert_allclose(sorted(r.points.tolist()), [[0.5, 0.975], [1.0, 0.975]], atol=1e-12)


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_capsule_on_capsule(backend):
    # crossed at right angles, b 0.9 above a (radii 0.5): one point over the crossing
    a = Capsule((-1, 0, 0), (1, 0, 0), 0.5)
    r = collide(a, ((0, 0, 0), np.eye(3)), Capsule((0, -1, 0), (0, 1, 0), 0.5), ((0.2, 0.3, 0.9), np.eye(3)),
                backend=backend)
    np.testing.assert_allclose(r.points, [[0.2, 0.0, 0.45]], atol=1e-12)
    np.testing.assert_allclose(r.separations, [-0.1], atol=1e-12)
    # parallel, overlapping along x from 0.5 - 1 to 1: the overlap interval's two ends
    r = collide(a, ((0, 0, 0), np.eye(3)), a, ((1.5, 0, 0.9), np.eye(3)), backend=backend)
    np.testing.assert_allclose(sorted(r.points.tolist()), [[0.5, 0, 0.45], [1.0, 0, 0.45]], atol=1e-12)
    np.testing.assert_allclose(r.separations, [-0.1, -0.1], atol=1e-12)
    # the same in 2D, side by side along y
    r = collide(Capsule((-1, 0), (1, 0), 0.5), ((0, 0), 0.0), Capsule((-1, 0), (1, 0), 0.25), ((1.5, 0.7), 0.0),
                backend=backend)
    np.testing.assert_allclose(sorted(r.points.tolist()), [[0.5, 0.475], [1.0, 0.475]], atol=1e-12)
    np.testing.assert_allclose(r.separations, [-0.05, -0.05], atol=1e-12)


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_segment_on_a_polygon_edge(backend):
    # the triangle's top edge runs from (-2, 1) to (2, 1); the segment from x = 1 to 3 lies on it
    tri = Polygon([(-2.0, 1.0), (0.0, -1.0), (2.0, 1.0)])
    r = collide(tri, ((0, 0), 0.0), Segment((1, 1), (3, 1)), ((0, 0), 0.0), backend=backend)
    assert r.depth == 0.0
    np.testing.assert_allclose(sorted(r.points.tolist()), [[1.0, 1.0], [2.0, 1.0]], atol=0)
    np.testing.assert_array_equal(r.separations, [0.0, 0.0])
    # a concave U resting on a long segment: the points of its deepest leg
    u = Polygon([(0, 0), (1, 0), (1, 2), (2, 2), (2, 0), (3, 0), (3, 3), (0, 3)])
    r = collide(u, ((0.0, 0.0), 0.0), Segment((2.5, 0.1), (5, 0.1)), ((0, 0), 0.0), backend=backend)
    np.testing.assert_allclose(sorted(r.points.tolist()), [[2.5, 0.05], [3.0, 0.05]], atol=1e-12)


def test_ball_on_capsule_gives_one_point_between_the_surfaces():
    r = collide(Sphere(1.0), (0, 0, 2.0), Capsule((-1, 0, 0), (1, 0, 0), 0.5), ((0, 0, 0.7), np.eye(3)))
    np.testing.assert_allclose(r.points, [[0, 0, 1.1]], atol=1e-12)
    np.testing.assert_allclose(r.separations, [-0.2], atol=1e-12)


# -- properties over random pairs --------------------------------------------------------------

def random_pair(rng, dim):
    def capsule():
        p0, p1 = rng.uniform(-1.2, 1.2, dim), rng.uniform(-1.2, 1.2, dim)
        if rng.random() < 0.3:  # axis aligned: lying flat or standing
            p1 = p0.copy()
            p1[rng.integers(dim)] += rng.uniform(0.5, 2)
        if rng.random() < 0.25:
            return Segment(tuple(p0), tuple(p1))
        return Capsule(tuple(p0), tuple(p1), rng.uniform(0.1, 0.8))
    pentagon = np.array([[0, 0], [1.5, 0], [2, 1], [0.5, 1.5], [-0.5, 0.8]])
    if dim == 2:
        others = [lambda: Circle(rng.uniform(0.3, 1.5)), lambda: Box(tuple(rng.uniform(0.2, 1.5, 2))),
                  lambda: Polygon(pentagon * rng.uniform(0.5, 1.5)),
                  lambda: Polygon([(0, 0), (1, 0), (1, 2), (2, 2), (2, 0), (3, 0), (3, 3), (0, 3)]),
                  lambda: HalfPlane(tuple(rng.normal(size=2)), rng.uniform(-1, 1)), capsule]
    else:
        others = [lambda: Sphere(rng.uniform(0.3, 1.5)), lambda: Box(tuple(rng.uniform(0.2, 1.5, 3))),
                  lambda: Plane(tuple(rng.normal(size=3)), rng.uniform(-1, 1)), capsule]
    sa = others[rng.integers(len(others))]()
    sb = capsule()
    if rng.random() < 0.5:
        sa, sb = sb, sa

    def pose():
        pos = rng.uniform(-1.5, 1.5, dim)
        if dim == 2:
            return pos, (rng.integers(4) * np.pi / 2 if rng.random() < 0.5 else rng.uniform(0, 2 * np.pi))
        if rng.random() < 0.5:
            return pos, Rotation.from_euler("xyz", rng.integers(4, size=3) * 90, degrees=True).as_matrix()
        return pos, Rotation.random(random_state=rng).as_matrix()
    return sa, pose(), sb, pose()


def touching_pairs(dim, count, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        sa, pa, sb, pb = random_pair(rng, dim)
        r = collide(sa, pose_arg(sa, pa), sb, pose_arg(sb, pb))
        if r is not None:
            out.append((sa, pa, sb, pb, r))
    return out


@pytest.mark.parametrize("dim", [2, 3])
def test_every_point_touches_both_shapes(dim):
    counts = []
    for sa, pa, sb, pb, r in touching_pairs(dim, 300, seed=100 + dim):
        check_points_touch(sa, pa, sb, pb, r, scale=4.0)
        counts.append(len(r.points))
    assert max(counts) == 2


@pytest.mark.parametrize("dim", [2, 3])
def test_swapping_a_and_b_flips_the_normal_and_swaps_the_ids(dim):
    for sa, pa, sb, pb, r in touching_pairs(dim, 200, seed=110 + dim):
        s = collide(sb, pose_arg(sb, pb), sa, pose_arg(sa, pa))
        np.testing.assert_allclose(s.normal, -r.normal, atol=1e-12)
        assert len(s.points) == len(r.points)
        near = np.linalg.norm(s.points[:, None, :] - r.points[None, :, :], axis=2)
        match = np.argmin(near, axis=1)
        assert sorted(match.tolist()) == list(range(len(r.points)))
        assert near[np.arange(len(match)), match].max() <= 1e-9
        np.testing.assert_allclose(s.separations, r.separations[match], atol=1e-9)
        # every pair, capsule on capsule too: each id's halves swap with the roles
        swapped = ((r.point_ids & 0xFFFFFFFF) << 32) | (r.point_ids >> 32)
        assert sorted(s.point_ids.tolist()) == sorted(swapped.tolist())


@pytest.mark.parametrize("dim", [2, 3])
def test_ids_are_stable_across_small_motions(dim):
    lying = Capsule((-1,) + (0,) * (dim - 1), (1,) + (0,) * (dim - 1), 0.4)
    if dim == 2:
        grounds = [(Box((4.0, 1.0)), ((0.0, 0.0), 0.0)), (HalfPlane((0, 1), 1.0), None),
                   (Capsule((-3, 0), (3, 0), 0.6), ((0.0, 0.4), 0.0))]
        poses = [((0.3 + dx, 1.35 + dy), da) for dx, dy, da in [(0, 0, 0), (1e-3, -1e-3, 1e-3), (-2e-2, 1e-3, -2e-3)]]
    else:
        grounds = [(Box((4.0, 4.0, 1.0)), ((0, 0, 0), np.eye(3))), (Plane((0, 0, 1), 1.0), None),
                   (Capsule((-3, 0, 0), (3, 0, 0), 0.6), ((0, 0, 0.4), np.eye(3)))]
        # turned about y and x only: two skewed cores (turned about z) cross at one point
        poses = [((0.3 + dx, 0.0, 1.35 + dy), Rotation.from_euler("xy", [da, -da]).as_matrix())
                 for dx, dy, da in [(0, 0, 0), (1e-3, -1e-3, 1e-3), (-2e-2, 1e-3, -2e-3)]]
    for ground, gpose in grounds:
        got = [collide(ground, gpose, lying, p) for p in poses]
        assert [len(r.points) for r in got] == [2, 2, 2], ground
        ids = [sorted(r.point_ids.tolist()) for r in got]
        assert ids[0] == ids[1] == ids[2]


def test_every_capsule_kind_pair_has_a_manifold_kernel():
    for dim, other in [(2, Kind.HALFSPACE), (2, Kind.BALL), (2, Kind.BOX), (2, Kind.POLYGON), (2, Kind.CAPSULE),
                       (3, Kind.HALFSPACE), (3, Kind.BALL), (3, Kind.BOX), (3, Kind.CAPSULE)]:
        assert (dim, other, Kind.CAPSULE) in MANIFOLD_KERNELS


# -- the two backends -----------------------------------------------------------------------------

def _store(dim, shapes_a, shapes_b, rng):
    store = BodyStore(dim)
    n = len(shapes_a)
    slots = store.allocate(2 * n)
    store.set_shapes(slots, list(shapes_a) + list(shapes_b))
    return store, slots[:n], slots[n:]


def _compare(store, ia, ib, minimum):
    c = contact_pairs(store, ia, ib)
    h = c.hit
    assert h.sum() >= minimum
    m1 = manifold_pairs(store, ia[h], ib[h], c.normal[h], c.depth[h], backend="numpy")
    m2 = manifold_pairs(store, ia[h], ib[h], c.normal[h], c.depth[h], backend="compiled")
    np.testing.assert_array_equal(m1.count, m2.count)
    np.testing.assert_array_equal(m1.ids, m2.ids)
    np.testing.assert_allclose(m1.points, m2.points, rtol=0, atol=1e-12)
    np.testing.assert_allclose(m1.separations, m2.separations, rtol=0, atol=1e-12)
    return m1


@pytest.mark.parametrize("dim", [2, 3])
def test_compiled_capsule_manifolds_match_numpy_on_random_pairs(dim):
    rng = np.random.default_rng(200 + dim)
    pairs = [random_pair(rng, dim) for _ in range(600)]
    store, ia, ib = _store(dim, [p[0] for p in pairs], [p[2] for p in pairs], rng)
    for slots, k in ((ia, 1), (ib, 3)):
        pos = np.array([p[k][0] for p in pairs])
        if dim == 2:
            store.set_poses(slots, pos, np.array([p[k][1] for p in pairs], float))
        else:
            q = Rotation.from_matrix(np.array([p[k][1] for p in pairs])).as_quat()[:, [3, 0, 1, 2]]
            store.set_poses(slots, pos, None, q)
    m = _compare(store, ia, ib, 150)
    assert (m.count == 2).sum() >= 3


@pytest.mark.parametrize("dim", [2, 3])
def test_compiled_capsule_manifolds_match_numpy_near_touching(dim):
    # capsules resting exactly on boxes and on capsules (depth 0), tilted around the slop
    rng = np.random.default_rng(300 + dim)
    n = 200
    half = rng.uniform(0.3, 2.0, (n, dim))
    length = rng.uniform(0.5, 3.0, n)
    radius = np.where(rng.random(n) < 0.3, 0.0, rng.uniform(0.1, 0.6, n))
    axis = np.zeros(dim)
    axis[0] = 1.0
    caps = [Segment(tuple(-0.5 * ln * axis), tuple(0.5 * ln * axis)) if r == 0 else
            Capsule(tuple(-0.5 * ln * axis), tuple(0.5 * ln * axis), r) for ln, r in zip(length, radius, strict=True)]
    below = [Box(tuple(h)) if k % 2 else Capsule(tuple(-h[0] * axis), tuple(h[0] * axis), h[-1])
             for k, h in enumerate(half)]
    store, ia, ib = _store(dim, below, caps, rng)
    shift = rng.uniform(-1, 1, (n, dim)) * (half + length[:, None])
    shift[:, -1] = half[:, -1] + radius
    tilt = rng.choice([0.0, 0.0099999, 0.0100001, 1e-12, 0.3], n)
    if dim == 2:
        store.set_poses(ia, np.zeros((n, 2)), np.zeros(n))
        store.set_poses(ib, shift, tilt)
    else:
        store.set_poses(ia, np.zeros((n, 3)), None, np.tile([1.0, 0, 0, 0], (n, 1)))
        turn = Rotation.from_euler("zy", np.stack([rng.uniform(0, 2 * np.pi, n), tilt], axis=1))
        store.set_poses(ib, shift, None, turn.as_quat()[:, [3, 0, 1, 2]])
    m = _compare(store, ia, ib, n // 6)
    assert (m.count == 2).sum() > n // 10


# -- grazing: the normal's features miss each other seen along n ------------------------------

@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_grazing_pair_gets_the_point_between_the_nearest_features(backend):
    # a: the 2x2x2 cube; b: a cube standing on a corner, that corner at (1 + g, 0, 1 - s), just past
    # a's top face (x <= 1), with the normal +z given. Seen along z the features (a's top face,
    # b's corner) miss each other by g: the point is halfway between b's corner and the nearest
    # point of a's face, (1, 0, 1); it lies within sqrt(s^2 + g^2) / 2 <= |sep| of both boxes.
    # (The first corners' midpoint, the old fallback, lay 0.71 from b.)
    from collideworld.geometry.compiled.manifold_box_box_3d import manifold_box_box_3d as compiled_box_box
    from collideworld.geometry.manifold_box_box_3d import manifold_box_box_3d

    kernel = manifold_box_box_3d if backend == "numpy" else compiled_box_box
    g, s = 1e-6, 1e-3
    turn, _ = Rotation.align_vectors([[0, 0, -1.0]], [[-1, -1, -1.0]])
    rb = turn.as_matrix()
    hb = np.full(3, 0.5)
    corner = np.array([1 + g, 0.0, 1 - s])
    cb = corner - rb @ -hb
    m = kernel(np.zeros((1, 3)), np.eye(3)[None], np.ones((1, 3)), cb[None], rb[None], hb[None],
               np.array([[0.0, 0.0, 1.0]]), np.array([s]))
    assert m.count.tolist() == [1]
    np.testing.assert_allclose(m.points[0, 0], [1 + g / 2, 0.0, 1 - s / 2], atol=1e-12)
    assert m.separations[0, 0] == pytest.approx(-s, abs=1e-12)
    # ids: a's edge between corners 5 (+x, +z) and 7 (+x, +y, +z); b's lowest corner (0: -,-,-)
    assert m.ids[0, 0] == ((5 | (8 << 12)) << 32) | 0
    p = m.points[0, 0]
    dist_a = np.linalg.norm(np.maximum(np.abs(p) - 1.0, 0.0))
    dist_b = np.linalg.norm(np.maximum(np.abs(rb.T @ (p - cb)) - hb, 0.0))
    assert max(dist_a, dist_b) <= math.hypot(s, g) / 2 + 1e-12 <= s
