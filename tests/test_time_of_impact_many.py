"""``time_of_impact_many`` (issue 28): every row is ``time_of_impact()``'s answer for its pair, bit for bit,
and agrees with independent oracles: the closed form of two balls moving linearly (a quadratic in t) and
python-fcl's ``continuousCollide`` (3D translations)."""

from __future__ import annotations

import math

import fcl
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from collideworld import Box, Circle, HalfPlane, Sphere, collide, time_of_impact, time_of_impact_many
from collideworld.collide import ShapeArray
from collideworld.errors import InvalidPoseError, UnsupportedPairError

from .batch_pairs import pairs, pose, unit_exact


def _ends(dim, pos, rot, rng, turn=True, towards=None):
    """End poses: moved by up to 3 (or to near ``towards``) and turned (2D: up to 2 rad; 3D: another
    unit-exact quaternion)."""
    end = (pos if towards is None else towards) + rng.uniform(-3, 3, pos.shape) * (1 if towards is None else 0.5)
    if dim == 2:
        return end, rot + (rng.uniform(-2, 2, len(pos)) if turn else 0.0)
    return end, (np.array([unit_exact(rng) for _ in range(len(pos))]) if turn else rot)


def _assert_rows_equal_scalar(res, sides, poses, dim):
    (shapes_a, shapes_b), (a0, a1, b0, b1) = sides, poses
    hits = misses = 0
    for k in range(len(res.t)):
        sa = shapes_a[k] if isinstance(shapes_a, list) else shapes_a.shape(k)
        sb = shapes_b[k] if isinstance(shapes_b, list) else shapes_b.shape(k)
        ps = [pose(s, dim, p[0][k], p[1][k]) for s, p in ((sa, a0), (sa, a1), (sb, b0), (sb, b1))]
        r = time_of_impact(sa, ps[0], ps[1], sb, ps[2], ps[3])
        if r is None:
            assert not res.hit[k] and res.t[k] == np.inf and np.isnan(res.normal[k]).all(), k
            misses += 1
            continue
        assert res.hit[k] and res.t[k] == r.t, (k, sa, sb)
        np.testing.assert_array_equal(res.normal[k], r.normal, err_msg=f"row {k}")
        np.testing.assert_array_equal(res.point[k], r.point, err_msg=f"row {k}")
        hits += 1
    return hits, misses


@pytest.mark.parametrize("dim", [2, 3])
def test_rows_equal_scalar_time_of_impact_every_kind(dim):
    # 200 pairs cycling through every pair of kinds (half-spaces on either side: they stay still)
    rng = np.random.default_rng(70 + dim)
    shapes_a, pos_a, rot_a, shapes_b, pos_b, rot_b = pairs(dim, 200, seed=70 + dim, spread=3.5)
    a1 = _ends(dim, pos_a, rot_a, rng, towards=pos_b)
    b1 = _ends(dim, pos_b, rot_b, rng)
    res = time_of_impact_many(shapes_a, (pos_a, rot_a), a1, shapes_b, (pos_b, rot_b), b1, backend="compiled")
    hits, misses = _assert_rows_equal_scalar(res, (shapes_a, shapes_b), ((pos_a, rot_a), a1, (pos_b, rot_b), b1), dim)
    assert hits > 40 and misses > 40
    assert ((res.t > 0) & (res.t < 1)).sum() > 20  # touches during the motion, not only at its start


@pytest.mark.parametrize("dim", [2, 3])
def test_numpy_backend_equals_scalar(dim):
    rng = np.random.default_rng(80 + dim)
    shapes_a, pos_a, rot_a, shapes_b, pos_b, rot_b = pairs(dim, 40, seed=80 + dim, spread=3.5)
    a1 = _ends(dim, pos_a, rot_a, rng, towards=pos_b)
    res = time_of_impact_many(shapes_a, (pos_a, rot_a), a1, shapes_b, (pos_b, rot_b), (pos_b, rot_b),
                              backend="numpy")
    hits, misses = _assert_rows_equal_scalar(res, (shapes_a, shapes_b), ((pos_a, rot_a), a1, (pos_b, rot_b),
                                                                         (pos_b, rot_b)), dim)
    assert hits > 5 and misses > 5


@pytest.mark.parametrize("dim", [2, 3])
def test_balls_closed_form_and_shape_arrays(dim):
    # balls moving linearly: the first t with |d0 + t v| = ra + rb (the smaller root of a quadratic)
    rng = np.random.default_rng(90 + dim)
    n = 300
    ra, rb = rng.uniform(0.1, 1.0, n), rng.uniform(0.1, 1.0, n)
    a0, b0 = rng.uniform(-4, 4, (n, dim)), rng.uniform(-4, 4, (n, dim))
    a1, b1 = b0 + rng.uniform(-2.5, 2.5, (n, dim)), b0 + rng.uniform(-1, 1, (n, dim))  # a heads for b
    balls = ShapeArray.circles if dim == 2 else ShapeArray.spheres
    res = time_of_impact_many(balls(ra), a0, a1, balls(rb), b0, b1)
    rot = (np.zeros(n), np.zeros(n)) if dim == 2 else (np.tile([1.0, 0, 0, 0], (n, 1)),) * 2
    _assert_rows_equal_scalar(res, (balls(ra), balls(rb)), ((a0, rot[0]), (a1, rot[0]), (b0, rot[1]),
                                                             (b1, rot[1])), dim)
    checked = missed = 0
    for k in range(n):
        d0, v, r = b0[k] - a0[k], (b1[k] - b0[k]) - (a1[k] - a0[k]), ra[k] + rb[k]
        qa, qb, qc = v @ v, 2 * d0 @ v, d0 @ d0 - r * r
        if qc <= 0:
            assert res.t[k] == 0.0, k  # overlapping at the start
            continue
        disc = qb * qb - 4 * qa * qc
        t = (-qb - math.sqrt(disc)) / (2 * qa) if disc >= 0 and qa > 0 else math.inf
        if t < 0:
            t = math.inf  # apart and separating
        if t <= 1 - 1e-7 and disc > 1e-6:
            assert res.hit[k] and res.t[k] == pytest.approx(t, abs=1e-9), k
            c = d0 + t * v  # the normal is the centres' direction at that time
            np.testing.assert_allclose(res.normal[k], c / np.linalg.norm(c), atol=1e-6)
            checked += 1
        elif t > 1 + 1e-7 or disc < -1e-6:
            assert not res.hit[k], k
            missed += 1
    assert missed > 40
    assert checked > 40


def test_3d_translations_agree_with_fcl_continuous_collide():
    rng = np.random.default_rng(100)
    n = 150
    kinds = [Sphere(0.6), Box((0.8, 0.3, 0.5)), Box((0.4, 1.0, 0.6))]
    shapes_a = [kinds[int(i)] for i in rng.integers(0, 3, n)]
    shapes_b = [kinds[int(i)] for i in rng.integers(0, 3, n)]
    qa = np.array([unit_exact(rng) for _ in range(n)])
    qb = np.array([unit_exact(rng) for _ in range(n)])
    a0 = rng.uniform(-6, 6, (n, 3))
    a1 = -a0 + rng.uniform(-1, 1, (n, 3))
    b = rng.uniform(-1, 1, (n, 3))
    res = time_of_impact_many(shapes_a, (a0, qa), (a1, qa), shapes_b, (b, qb), (b, qb))
    checked = 0
    for k in range(n):
        if collide(shapes_a[k], (a0[k], qa[k]), shapes_b[k], (b[k], qb[k])) is not None:
            continue
        objs = []
        for s, p, q in ((shapes_a[k], a0[k], qa[k]), (shapes_b[k], b[k], qb[k])):
            geom = fcl.Sphere(s.radius) if isinstance(s, Sphere) else fcl.Box(*(2 * np.asarray(s.half_extents)))
            rot = Rotation.from_quat([*q[1:], q[0]]).as_matrix()
            objs.append((fcl.CollisionObject(geom, fcl.Transform(rot, p)), rot))
        out = fcl.ContinuousCollisionResult()
        fcl.continuousCollide(objs[0][0], fcl.Transform(objs[0][1], a1[k]), objs[1][0], fcl.Transform(objs[1][1], b[k]),
                              fcl.ContinuousCollisionRequest(), out)
        if not out.is_collide:
            continue  # fcl's tolerance may call a graze a miss
        assert res.hit[k] and res.t[k] == pytest.approx(out.time_of_contact, abs=1e-4), k  # fcl's CA: ~1e-4
        checked += 1
    assert checked > 40


def test_half_plane_on_either_side_as_scalar():
    # the scalar swaps a half-plane on side a to side b and flips the normal back
    ground = HalfPlane((0.0, 1.0), 0.0)
    n = 4
    start, end = np.array([[0.0, 5.0]] * n), np.array([[0.0, -5.0], [1.0, 2.0], [3.0, 0.5], [0.0, 0.0]])
    r1 = time_of_impact_many(ground, np.zeros((n, 2)), np.zeros((n, 2)), Circle(1.0), start, end)
    r2 = time_of_impact_many(Circle(1.0), start, end, ground, np.zeros((n, 2)), np.zeros((n, 2)))
    assert r1.hit.tolist() == r2.hit.tolist() == [True, False, True, True]
    assert r1.t[0] == r2.t[0] == pytest.approx(0.4, abs=1e-12)  # the circle's bottom reaches y = 0 at y = 1
    np.testing.assert_array_equal(r1.normal[r1.hit], -r2.normal[r2.hit])
    for k in range(n):
        s = time_of_impact(ground, None, None, Circle(1.0), (tuple(start[k]), 0.0), (tuple(end[k]), 0.0))
        assert (s is None) == (not r1.hit[k])
        if s is not None:
            assert s.t == r1.t[k] and s.normal.tolist() == r1.normal[k].tolist() and s.point.tolist() == \
                r1.point[k].tolist()


def test_bad_input_names_the_argument_and_row():
    shapes = [Box((1.0, 1.0))] * 4
    pos = np.zeros((4, 2))
    bad = pos.copy()
    bad[2, 0] = np.inf
    with pytest.raises(InvalidPoseError, match=r"(?s)ends_b positions must be finite.*first at index \(2, 0\)"):
        time_of_impact_many(shapes, pos, pos, shapes, pos, bad)
    with pytest.raises(InvalidPoseError, match=r"starts_a angles must have shape \(4,\)"):
        time_of_impact_many(shapes, (pos, np.zeros(3)), pos, shapes, pos, pos)
    with pytest.raises(UnsupportedPairError, match=r"shapes_b\[1\] must be a collideworld shape"):
        time_of_impact_many(shapes, pos, pos, [Circle(1.0), None, Circle(1.0), Circle(1.0)], pos, pos)
    with pytest.raises(InvalidPoseError, match=r"(?s)starts_a quaternions\[1\] must be a unit quaternion"):
        q = np.tile([1.0, 0, 0, 0], (2, 1))
        q[1] = [2.0, 0, 0, 0]
        time_of_impact_many(Sphere(1.0), (np.zeros((2, 3)), q), np.zeros((2, 3)), Sphere(1.0), np.zeros((2, 3)),
                            np.zeros((2, 3)))


@pytest.mark.parametrize("dim", [2, 3])
def test_hits_of_primitive_rows_need_no_scalar_call(dim, monkeypatch):
    # the normal and point of every hit measured in compiled calls (no per-hit impact_at), with its bits
    from collideworld import proximity

    rng = np.random.default_rng(120 + dim)
    shapes_a, pos_a, rot_a, shapes_b, pos_b, rot_b = pairs(dim, 200, seed=120 + dim, spread=3.5)
    keep = [k for k in range(200) if not (shapes_a[k].is_infinite or shapes_b[k].is_infinite)
            and shapes_a[k].kind != "convex_hull" and shapes_b[k].kind != "convex_hull"]
    sa, sb = [shapes_a[k] for k in keep], [shapes_b[k] for k in keep]
    a0, b0 = (pos_a[keep], rot_a[keep]), (pos_b[keep], rot_b[keep])
    a1 = _ends(dim, a0[0], a0[1], rng, towards=b0[0])
    want = [time_of_impact(x, pose(x, dim, a0[0][k], a0[1][k]), pose(x, dim, a1[0][k], a1[1][k]),
                           y, pose(y, dim, b0[0][k], b0[1][k]), pose(y, dim, b0[0][k], b0[1][k]))
            for k, (x, y) in enumerate(zip(sa, sb, strict=True))]

    def refuse(*args, **kwargs):
        raise AssertionError("impact_at called row by row")

    monkeypatch.setattr(proximity, "impact_at", refuse)
    res = time_of_impact_many(sa, a0, a1, sb, b0, b0, backend="compiled")
    assert sum(w is not None and 0 < w.t < 1 for w in want) > 20
    for k, w in enumerate(want):
        assert bool(res.hit[k]) == (w is not None), k
        if w is not None:
            assert res.t[k] == w.t, k
            np.testing.assert_array_equal(res.normal[k], w.normal)
            np.testing.assert_array_equal(res.point[k], w.point)
