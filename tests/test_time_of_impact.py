"""collideworld.time_of_impact and check_trajectory against independent oracles (issue 13).

Oracles: closed forms (moving circles solve a quadratic; a bullet meets a
wall at a hand-computed time), python-fcl's ``continuousCollide`` for 3D
translations, and a fine time sampling with ``collide()`` (poses interpolated
here: 2D by hand, 3D with scipy's ``Slerp``), every sampled touch at or after
the reported time, then bisection with collide() near it for exactness.
"""

from __future__ import annotations

import math

import fcl
import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

import collideworld as cw
from collideworld import Box, Circle, HalfPlane, Plane, Polygon, Sphere, check_trajectory, collide, distance
from collideworld import time_of_impact as toi
from collideworld.errors import CollideWorldError, InvalidPoseError, UnsupportedPairError
from collideworld.geometry import gjk
from collideworld.geometry import time_of_impact as toi_kernels

EXACT = 1e-9


def _quat(r):
    """scipy Rotation -> collideworld [w, x, y, z]."""
    x, y, z, w = r.as_quat()
    return np.array([w, x, y, z])


def _pose_at_2d(start, end, t):
    (p0, a0), (p1, a1) = start, end
    return tuple(np.asarray(p0, float) + t * (np.asarray(p1, float) - np.asarray(p0, float))), a0 + t * (a1 - a0)


_SLERPS: dict[bytes, Slerp] = {}


def _pose_at_3d(start, end, t):
    (p0, q0), (p1, q1) = start, end
    q0, q1 = np.asarray(q0, float), np.asarray(q1, float)
    key = q0.tobytes() + q1.tobytes()
    if key not in _SLERPS:
        if q0 @ q1 < 0:  # shortest arc
            q1 = -q1
        _SLERPS[key] = Slerp([0.0, 1.0], Rotation.from_quat([[*q0[1:], q0[0]], [*q1[1:], q1[0]]]))
    r = _SLERPS[key]([t])[0]
    return tuple(np.asarray(p0, float) + t * (np.asarray(p1, float) - np.asarray(p0, float))), _quat(r)


def _touch(sa, a0, a1, sb, b0, b1, t):
    at = _pose_at_2d if sa.dim == 2 else _pose_at_3d
    pa = a0 if sa.is_infinite else at(a0, a1, t)
    pb = b0 if sb.is_infinite else at(b0, b1, t)
    return collide(sa, pa, sb, pb) is not None


def _check_against_sampling(sa, a0, a1, sb, b0, b1, samples=1500):
    """The sampling oracle: returns the result after asserting it against collide() over time."""
    res = toi(sa, a0, a1, sb, b0, b1)
    ts = np.linspace(0.0, 1.0, samples)
    hits = [t for t in ts if _touch(sa, a0, a1, sb, b0, b1, t)]
    if res is None:
        assert not hits, f"missed a touch at t = {hits[0]}"
        return None
    assert 0.0 <= res.t <= 1.0
    assert all(t >= res.t - EXACT for t in hits), f"touch at {hits[0]} before reported {res.t}"
    # exactness: apart a little before, touching at (or a hair after) the reported time; bisect between
    hi = res.t if _touch(sa, a0, a1, sb, b0, b1, res.t) else min(1.0, res.t + EXACT)
    assert _touch(sa, a0, a1, sb, b0, b1, hi)
    if res.t > 1e-6:
        lo = res.t - 1e-6
        assert not _touch(sa, a0, a1, sb, b0, b1, lo)
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if _touch(sa, a0, a1, sb, b0, b1, mid) else (mid, hi)
        assert abs(hi - res.t) <= EXACT
    assert abs(np.linalg.norm(res.normal) - 1.0) < 1e-12
    return res


# -- closed forms ----------------------------------------------------------------------------

def test_moving_circles_match_the_quadratic():
    rng = np.random.default_rng(1)
    for _ in range(300):
        ra, rb = rng.uniform(0.1, 2, 2)
        pa0, pa1, pb0, pb1 = (rng.uniform(-10, 10, 2) for _ in range(4))
        # |d0 + t v| = ra + rb, the smaller root in [0, 1]
        d0, v = pb0 - pa0, (pb1 - pb0) - (pa1 - pa0)
        a, b, c = v @ v, 2 * d0 @ v, d0 @ d0 - (ra + rb) ** 2
        if c <= 0:
            expected = 0.0
        else:
            disc = b * b - 4 * a * c
            expected = None
            if a > 0 and disc >= 0:
                root = (-b - math.sqrt(disc)) / (2 * a)
                expected = root if 0 <= root <= 1 else None
        if expected is not None and abs(disc) < 1e-6 * max(1.0, b * b):
            continue  # grazing: the near-miss rule may decide either way
        res = toi(Circle(ra), (pa0, 0.0), (pa1, 0.0), Circle(rb), (pb0, 0.0), (pb1, 0.0))
        if expected is None:
            assert res is None
        else:
            assert res is not None and res.t == pytest.approx(expected, abs=EXACT)


@pytest.mark.parametrize("speed", [100.0, 1e3, 1e6])
@pytest.mark.parametrize("thickness", [1e-3, 1e-6])
def test_bullet_through_thin_wall(speed, thickness):
    wall = Box((thickness / 2, 1.0))
    here = ((50.0, 0.0), 0.0)
    bullet = Circle(1e-3)
    res = toi(bullet, ((0.0, 0.2), 0.0), ((speed, 0.2), 0.0), wall, here, here)
    expected = (50.0 - thickness / 2 - 1e-3) / speed
    assert res is not None and res.t == pytest.approx(expected, abs=EXACT)
    assert res.normal.tolist() == [1.0, 0.0]
    np.testing.assert_allclose(res.point, [50.0 - thickness / 2, 0.2], atol=1e-9 * speed)
    # a bullet passing above the wall is not stopped
    assert toi(bullet, ((0.0, 1.01), 0.0), ((speed, 1.01), 0.0), wall, here, here) is None


def test_sphere_falling_on_static_plane():
    ground = Plane((0, 0, 1), 0.0)
    q = (1, 0, 0, 0)
    res = toi(Sphere(0.5), ((0, 0, 10), q), ((3, 0, -10), q), ground, None, None)
    assert res.t == pytest.approx(9.5 / 20, abs=EXACT)
    assert res.normal.tolist() == [0.0, 0.0, -1.0]
    flipped = toi(ground, None, None, Sphere(0.5), ((0, 0, 10), q), ((3, 0, -10), q))
    assert flipped.t == res.t and flipped.normal.tolist() == [0.0, 0.0, 1.0]


def test_already_touching_and_never_touching():
    a, b = Box((1, 1)), Box((1, 1))
    still = ((2, 0), 0.0)
    assert toi(a, ((0, 0), 0.0), ((0, 0), 0.0), b, still, still).t == 0.0  # touching, zero-length motion
    assert toi(a, ((0, 0), 0.0), ((0, 0), 0.0), b, ((2.5, 0), 0.0), ((2.5, 0), 0.0)) is None
    res = toi(a, ((0, 0), 0.0), ((1, 0), 0.0), b, ((1, 0), 0.0), ((9, 0), 0.0))  # overlapping at the start
    assert res.t == 0.0 and res.normal.tolist() == [1.0, 0.0]
    # moving apart from just touching: t = 0
    assert toi(a, ((0, 0), 0.0), ((-5, 0), 0.0), b, still, still).t == 0.0


# -- fcl, 3D translations -------------------------------------------------------------------

def _fcl(shape, pose):
    geom = fcl.Sphere(shape.radius) if isinstance(shape, Sphere) else fcl.Box(*(2 * np.asarray(shape.half_extents)))
    rot = Rotation.from_quat([*pose[1][1:], pose[1][0]]).as_matrix()
    return fcl.CollisionObject(geom, fcl.Transform(rot, np.asarray(pose[0], float))), rot


def test_translations_match_fcl_continuous_collide():
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(200):
        sa = Sphere(float(rng.uniform(0.2, 1))) if rng.random() < 0.3 else Box(tuple(rng.uniform(0.2, 1, 3)))
        sb = Box(tuple(rng.uniform(0.2, 1.5, 3)))
        qa, qb = _quat(Rotation.random(random_state=rng)), _quat(Rotation.random(random_state=rng))
        a0 = (rng.uniform(-6, 6, 3), qa)
        a1 = (-a0[0] + rng.uniform(-1, 1, 3), qa)
        b0 = b1 = (rng.uniform(-1, 1, 3), qb)
        if collide(sa, a0, sb, b0) is not None:
            continue
        oa, rot = _fcl(sa, a0)
        ob, rotb = _fcl(sb, b0)
        res_f = fcl.ContinuousCollisionResult()
        fcl.continuousCollide(oa, fcl.Transform(rot, np.asarray(a1[0], float)), ob, fcl.Transform(rotb, b0[0]),
                              fcl.ContinuousCollisionRequest(), res_f)
        res = toi(sa, a0, a1, sb, b0, b1)
        if not res_f.is_collide:
            # fcl's own tolerance may call a graze a miss; ours must then be a graze too
            assert res is None or distance(sa, _pose_at_3d(a0, a1, res.t), sb, b0).distance <= 1e-9
            continue
        assert res is not None
        assert res.t == pytest.approx(res_f.time_of_contact, abs=1e-4)  # fcl's CA stops within ~1e-4
        checked += 1
    assert checked > 60


# -- sampling oracle: rotation, thin and fast shapes --------------------------------------------

def test_spinning_long_box_sweeps_a_small_circle():
    stick = Box((3.0, 0.01))
    ball = Circle(0.05)
    here = ((0.0, 2.0), 0.0)
    # the stick spins from 0 to 6 radians (almost a full turn) about its centre: it meets the ball
    # when it is within 0.06 of vertical, i.e. near pi/2
    res = _check_against_sampling(stick, ((0, 0), 0.0), ((0, 0), 6.0), ball, here, here)
    assert res is not None and 0.2 < res.t * 6.0 < math.pi / 2
    # the same with the stick also driving past: still found
    _check_against_sampling(stick, ((-5, 0), 0.0), ((5, 0), 12.0), ball, here, here)


@pytest.mark.parametrize("seed", range(4))
def test_random_2d_motions_against_sampling(seed):
    rng = np.random.default_rng(seed)
    kinds = [lambda: Circle(float(rng.uniform(0.05, 1))), lambda: Box(tuple(rng.uniform(0.02, 2, 2))),
             lambda: Polygon([(0, 0), (3, 0), (3, 0.2), (0.2, 0.2), (0.2, 2), (0, 2)])]
    found = 0
    for _ in range(12):
        sa, sb = kinds[int(rng.integers(3))](), kinds[int(rng.integers(3))]()
        a0 = (rng.uniform(-5, 5, 2), float(rng.uniform(-3, 3)))
        a1 = (rng.uniform(-5, 5, 2), float(rng.uniform(-8, 8)))
        b0 = (rng.uniform(-2, 2, 2), float(rng.uniform(-3, 3)))
        b1 = (rng.uniform(-2, 2, 2), float(rng.uniform(-3, 3)))
        res = _check_against_sampling(sa, a0, a1, sb, b0, b1, samples=600)
        found += res is not None
    assert found >= 3


@pytest.mark.parametrize("seed", range(3))
def test_random_3d_rotations_against_sampling(seed):
    rng = np.random.default_rng(100 + seed)
    found = 0
    for _ in range(8):
        sa = Box((2.0, 0.05, 0.05))
        sb = Sphere(0.2) if rng.random() < 0.5 else Box(tuple(rng.uniform(0.1, 0.5, 3)))
        a0 = (rng.uniform(-1, 1, 3), _quat(Rotation.random(random_state=rng)))
        a1 = (rng.uniform(-1, 1, 3), _quat(Rotation.random(random_state=rng)))
        b0 = b1 = (rng.uniform(-1.0, 1.0, 3), _quat(Rotation.random(random_state=rng)))
        res = _check_against_sampling(sa, a0, a1, sb, b0, b1, samples=400)
        found += res is not None
    assert found >= 2


def test_planes_as_the_static_side_against_sampling():
    ground2, ground3 = HalfPlane((0, 1), 0.0), Plane((0, 0, 1), 0.0)
    u = Polygon([(0, 0), (3, 0), (3, 2), (2, 2), (2, 0.5), (1, 0.5), (1, 2), (0, 2)])
    res = _check_against_sampling(u, ((0, 4), 0.0), ((1, 1), 5.0), ground2, None, None)
    assert res is not None and res.normal.tolist() == [0.0, -1.0]
    q0, q1 = _quat(Rotation.from_euler("x", 0.1)), _quat(Rotation.from_euler("xy", [2.5, 1.0]))
    res = _check_against_sampling(Box((2.0, 0.1, 0.1)), ((0, 0, 2.5), q0), ((0, 0, 1.5), q1), ground3, None, None)
    assert res is not None and res.normal.tolist() == [0.0, 0.0, -1.0]


def test_symmetry():
    stick, ball = Box((3.0, 0.01)), Circle(0.05)
    here = ((0.0, 2.0), 0.0)
    ab = toi(stick, ((0, 0), 0.0), ((0, 0), 6.0), ball, here, here)
    ba = toi(ball, here, here, stick, ((0, 0), 0.0), ((0, 0), 6.0))
    assert ab.t == pytest.approx(ba.t, abs=1e-12)
    np.testing.assert_allclose(ab.normal, -ba.normal, atol=1e-9)
    np.testing.assert_allclose(ab.point, ba.point, atol=1e-9)


# -- bad input ----------------------------------------------------------------------------------

@pytest.mark.parametrize("call, error", [
    (lambda: toi(HalfPlane((0, 1), 0), ((0, 0), 0), ((1, 0), 0), Circle(1), ((0, 3), 0), ((0, 3), 0)),
     InvalidPoseError),
    (lambda: toi(Circle(1), ((0, 0), 0), ((1, 0), 0), Plane((0, 0, 1), 0), None, None), UnsupportedPairError),
    (lambda: toi(Circle(1), ((0, np.nan), 0), ((1, 0), 0), Circle(1), ((0, 3), 0), ((0, 3), 0)), InvalidPoseError),
    (lambda: toi(Circle(1), ((0, 0), 0), ((1, 0), np.inf), Circle(1), ((0, 3), 0), ((0, 3), 0)), InvalidPoseError),
    (lambda: toi(Circle(1), ((0, 0), 0), None, Circle(1), ((0, 3), 0), ((0, 3), 0)), InvalidPoseError),
])
def test_bad_input_is_a_clear_error(call, error):
    with pytest.raises(error) as info:
        call()
    assert isinstance(info.value, CollideWorldError)
    assert "got" in str(info.value) or "cannot" in str(info.value)


def test_plane_as_the_moving_shape_says_so():
    with pytest.raises(InvalidPoseError, match="cannot be the moving shape"):
        toi(Circle(1), ((0, 3), 0), ((0, 3), 0), HalfPlane((0, 1), 0), ((0, 0), 0), ((0, 0), 0))


# -- check_trajectory -----------------------------------------------------------------------------

def _brute_force_trajectory(shape, poses, obstacles, obstacle_poses, continuous):
    """The same question asked pose by pose with distance() and time_of_impact()."""
    dim = shape.dim

    def pose(row):
        return (row[:2], float(row[2])) if dim == 2 else (row[:3], row[3:])

    def opose(o, row):
        return None if o.is_infinite else pose(row)

    n_steps = len(poses)
    clearance = np.array([min(max(0.0, distance(shape, pose(poses[k]), o, opose(o, obstacle_poses[k][j])).distance)
                              for j, o in enumerate(obstacles)) for k in range(n_steps)])
    touching = [[j for j, o in enumerate(obstacles)
                 if collide(shape, pose(poses[k]), o, opose(o, obstacle_poses[k][j]))] for k in range(n_steps)]
    first = next((k for k in range(n_steps) if touching[k]), -1)
    hit = (first, 0.0, touching[first][0]) if first >= 0 else (-1, math.nan, -1)
    if continuous:
        for k in range(first if first >= 0 else n_steps - 1):
            times = []
            for j, o in enumerate(obstacles):
                r = (toi(shape, pose(poses[k]), pose(poses[k + 1]), o, None, None) if o.is_infinite else
                     toi(shape, pose(poses[k]), pose(poses[k + 1]), o, pose(obstacle_poses[k][j]),
                         pose(obstacle_poses[k + 1][j])))
                if r is not None:
                    times.append((r.t, j))
            if times:
                t, j = min(times)
                hit = (k + 1, 0.0, j) if t >= 1.0 else (k, t, j)
                break
    return hit, clearance


@pytest.mark.parametrize("continuous", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_trajectory_matches_brute_force_2d(seed, continuous):
    rng = np.random.default_rng(seed)
    n_steps, m = 12, 15
    car = Box((1.0, 0.5))
    poses = np.zeros((n_steps, 3))
    poses[:, 0] = np.linspace(-10, 10, n_steps)
    poses[:, 1] = rng.uniform(-0.5, 0.5) + np.linspace(0, 1, n_steps)
    poses[:, 2] = np.linspace(0, rng.uniform(-1, 1), n_steps)
    obstacles = [Box(tuple(rng.uniform(0.2, 1, 2))) if rng.random() < 0.6 else Circle(float(rng.uniform(0.2, 1)))
                 for _ in range(m - 1)] + [HalfPlane((0, 1), -6.0)]
    obstacle_poses = np.zeros((n_steps, m, 3))
    obstacle_poses[:, :, 0] = rng.uniform(-12, 12, m) + np.linspace(0, 1, n_steps)[:, None] * rng.uniform(-3, 3, m)
    obstacle_poses[:, :, 1] = rng.uniform(-4, 4, m)
    obstacle_poses[:, :, 2] = rng.uniform(-3, 3, m)
    got = check_trajectory(car, poses, obstacles, obstacle_poses, continuous=continuous)
    (step, t, obstacle), clearance = _brute_force_trajectory(car, poses, obstacles, obstacle_poses, continuous)
    assert (got.step, got.obstacle) == (step, obstacle)
    if step >= 0:
        assert got.t == pytest.approx(t, abs=EXACT)
    np.testing.assert_allclose(got.clearance, clearance, rtol=1e-9, atol=1e-12)
    assert got.clearance[got.nearest >= 0].min() >= 0


def test_trajectory_3d_and_static_obstacles():
    rng = np.random.default_rng(3)
    n_steps, m = 10, 6
    q = _quat(Rotation.random(random_state=rng))
    poses = np.zeros((n_steps, 7))
    poses[:, 0] = np.linspace(-6, 6, n_steps)
    poses[:, 3:] = q
    obstacles = [Box(tuple(rng.uniform(0.2, 1, 3))) for _ in range(m - 1)] + [Sphere(0.7)]
    static = np.zeros((m, 7))
    static[:, :3] = rng.uniform(-5, 5, (m, 3)) * [1, 0.3, 0.3]
    static[:, 3:] = [_quat(Rotation.random(random_state=rng)) for _ in range(m)]
    a = check_trajectory(Box((1, 0.3, 0.3)), poses, obstacles, static, continuous=True)
    b = check_trajectory(Box((1, 0.3, 0.3)), poses, obstacles, np.broadcast_to(static, (n_steps, m, 7)),
                         continuous=True)
    assert (a.step, a.t, a.obstacle) == (b.step, b.t, b.obstacle)
    np.testing.assert_array_equal(a.clearance, b.clearance)
    (step, t, obstacle), clearance = _brute_force_trajectory(Box((1, 0.3, 0.3)), poses, obstacles,
                                                             np.broadcast_to(static, (n_steps, m, 7)), True)
    assert (a.step, a.obstacle) == (step, obstacle) and a.t == pytest.approx(t, abs=EXACT)
    np.testing.assert_allclose(a.clearance, clearance, rtol=1e-9, atol=1e-12)


def test_trajectory_bullet_between_steps():
    # discrete steps jump over a thin wall; the continuous check finds it
    wall = [Box((0.001, 5))]
    poses = np.array([[0.0, 0.0, 0.0], [100.0, 0.0, 0.0]])
    assert check_trajectory(Circle(0.01), poses, wall, [[50.0, 0.0, 0.0]]).step == -1
    r = check_trajectory(Circle(0.01), poses, wall, [[50.0, 0.0, 0.0]], continuous=True)
    assert (r.step, r.obstacle) == (0, 0) and r.t == pytest.approx((50 - 0.011) / 100, abs=EXACT)


@pytest.mark.parametrize("call, error", [
    (lambda: check_trajectory(HalfPlane((0, 1), 0), [[0, 0, 0]], [Circle(1)], [[0, 5, 0]]), UnsupportedPairError),
    (lambda: check_trajectory(Circle(1), [[0, 0, 0]], [Sphere(1)], [[0, 5, 0]]), UnsupportedPairError),
    (lambda: check_trajectory(Circle(1), [[0, np.nan, 0]], [Circle(1)], [[0, 5, 0]]), InvalidPoseError),
    (lambda: check_trajectory(Circle(1), [[0, 0]], [Circle(1)], [[0, 5, 0]]), InvalidPoseError),
    (lambda: check_trajectory(Circle(1), [[0, 0, 0]], [Circle(1)], [[0, 5, 0], [1, 1, 1]]), InvalidPoseError),
    (lambda: check_trajectory(Sphere(1), [[0, 0, 0, 2, 0, 0, 0]], [Sphere(1)], [[0, 5, 0, 1, 0, 0, 0]]),
     InvalidPoseError),
    (lambda: check_trajectory(Circle(1), np.zeros((0, 3)), [Circle(1)], np.zeros((0, 1, 3))), InvalidPoseError),
])
def test_trajectory_bad_input(call, error):
    with pytest.raises(error) as info:
        call()
    assert isinstance(info.value, CollideWorldError)


def test_trajectory_without_obstacles():
    r = check_trajectory(Circle(1), [[0, 0, 0], [1, 0, 0]], [], np.zeros((0, 3)), continuous=True)
    assert (r.step, r.obstacle) == (-1, -1) and math.isnan(r.t)
    assert r.clearance.tolist() == [math.inf, math.inf] and r.nearest.tolist() == [-1, -1]


def test_exported():
    assert cw.time_of_impact is toi and cw.check_trajectory is check_trajectory


# -- compiled kernels against their Python twins ------------------------------------------------

def test_toi_compiled_matches_python_twin():
    from collideworld.proximity import _pack

    rng = np.random.default_rng(23)
    twin = gjk.python_twin("toi_shapes")
    shapes = (Box((2.0, 0.05)), Polygon([(0, 0), (3, 0), (3, 0.2), (0.2, 0.2), (0.2, 2), (0, 2)]))
    p = _pack(shapes)
    for trial in range(40):
        rows = np.zeros((4, 8))
        rows[:, 3] = 1
        rows[:, :2] = rng.uniform(-3, 3, (4, 2))
        rows[:, 7] = rng.uniform(-6, 6, 4)
        if trial % 2:  # b static, a spinning past it
            rows[3] = rows[2]
        results = []
        for fn in (toi_kernels.toi_shapes, twin):
            out = np.zeros(11)
            t = fn(p.verts, p.pfirst, p.pcount, p.prad, p.pplane, p.svfirst, p.svcount, p.sfirst, p.scount,
                   p.reach, 0, 1, rows[0], rows[1], rows[2], rows[3], 2, 1e-13, np.zeros((len(p.verts), 3)),
                   np.zeros((16, 4)), out, np.zeros(11), np.zeros(8), np.zeros((3, 3)))
            results.append(t)
        # the two may take different advancement paths through rounding; both are within the contract
        assert results[0] == pytest.approx(results[1], abs=EXACT)


def test_trajectory_compiled_matches_python_twin():
    from collideworld.proximity import _pack

    rng = np.random.default_rng(29)
    twin = gjk.python_twin("trajectory_kernel")
    obstacles = tuple(Box(tuple(rng.uniform(0.2, 1, 2))) for _ in range(10))
    p = _pack((Box((1.0, 0.5)), *obstacles))
    poses = np.zeros((8, 8))
    poses[:, 3] = 1
    poses[:, 0] = np.linspace(-8, 8, 8)
    poses[:, 7] = np.linspace(0, 2, 8)
    obs = np.zeros((8, 10, 8))
    obs[:, :, 3] = 1
    obs[:, :, :2] = rng.uniform(-8, 8, (10, 2)) * [1, 0.4]
    answers = []
    for fn in (toi_kernels.trajectory_kernel, twin):
        clearance, nearest = np.zeros(8), np.zeros(8, dtype=np.int64)
        hit = fn(p.verts, p.pfirst, p.pcount, p.prad, p.pplane, p.svfirst, p.svcount, p.sfirst, p.scount, p.reach,
                 poses, obs, 2, True, clearance, nearest)
        answers.append((hit, clearance, nearest))
    assert answers[0][0][0] == answers[1][0][0] and answers[0][0][2] == answers[1][0][2]
    np.testing.assert_allclose(answers[0][1], answers[1][1], rtol=1e-12)
    np.testing.assert_array_equal(answers[0][2], answers[1][2])
