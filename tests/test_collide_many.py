"""``collide()``'s direct path and ``collide_many()``, against a world's step and the oracle.

* ``collide`` (which calls a kernel on one-row arrays for pairs without
  polygons) gives what a two-body :class:`World` step gives for the pair.
* ``collide_many`` gives, pair by pair, what ``collide`` gives, for mixed
  kinds, shared and per-pair shapes, both backends, 2D and 3D.
* Hits agree with the oracle (shapely in 2D, closed forms / LP in 3D) away
  from touching.
"""

from __future__ import annotations

import numpy as np
import pytest

from collideworld import Box, Circle, CollideWorldError, HalfPlane, Plane, Polygon, Sphere, World, collide, collide_many

from . import oracle

BACKENDS = ["numpy", "compiled"]


def random_shapes_2d(rng, n):
    out = []
    for _ in range(n):
        k = rng.integers(0, 5)
        s = float(rng.uniform(0.3, 1.5))
        if k == 0:
            out.append((Circle(s), ("circle", s)))
        elif k == 1:
            h = (s, float(rng.uniform(0.3, 1.5)))
            out.append((Box(h), ("box", h)))
        elif k == 2:
            a = np.sort(rng.uniform(0, 2 * np.pi, 5)) + np.arange(5) * 1e-3
            v = (s * np.c_[np.cos(a), np.sin(a)]).tolist()
            out.append((Polygon(v), ("polygon", v)))
        elif k == 3:
            v = [[0, 0], [2 * s, 0], [2 * s, s], [s, s], [s, 2 * s], [0, 2 * s]]
            out.append((Polygon(v), ("polygon", v)))
        else:
            out.append((HalfPlane((0.0, 1.0), float(rng.uniform(-1, 1))), None))
    return out


def random_shapes_3d(rng, n):
    out = []
    for _ in range(n):
        k = rng.integers(0, 3)
        s = float(rng.uniform(0.3, 1.5))
        if k == 0:
            out.append((Sphere(s), ("sphere", s)))
        elif k == 1:
            h = tuple(float(x) for x in rng.uniform(0.3, 1.5, 3))
            out.append((Box(h), ("box", h)))
        else:
            out.append((Plane((0.0, 0.0, 1.0), float(rng.uniform(-1, 1))), None))
    return out


def rotations(rng, dim, n):
    if dim == 2:
        return rng.uniform(-np.pi, np.pi, n)
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1)[:, None]


def pose_of(shape, pos, rot):
    return None if shape.is_infinite else (pos, rot)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", [2, 3])
def test_collide_matches_world_step(backend, dim):
    rng = np.random.default_rng(dim)
    shapes = (random_shapes_2d if dim == 2 else random_shapes_3d)(rng, 60)
    pos = rng.uniform(-1.5, 1.5, (60, dim))
    rot = rotations(rng, dim, 60)
    for k in range(0, 60, 2):
        (a, _), (b, _) = shapes[k], shapes[k + 1]
        if a.is_infinite and b.is_infinite:
            continue
        w = World(dim, broadphase="brute_force", backend=backend)
        for j, s in ((k, a), (k + 1, b)):
            kw = {} if s.is_infinite else ({"angle": rot[j]} if dim == 2 else {"quaternion": rot[j]})
            w.add(s, None if s.is_infinite else pos[j], id=j, **kw)
        contacts = list(w.step())
        got = collide(a, pose_of(a, tuple(pos[k]), rot[k]), b, pose_of(b, tuple(pos[k + 1]), rot[k + 1]),
                      backend=backend)
        assert (got is not None) == bool(contacts)
        if contacts:
            # a concave polygon gives a row per touching convex piece; collide() answers with the
            # deepest (the first on ties, in part order) and names it
            deepest = contacts[int(np.argmax([c.depth for c in contacts]))]
            np.testing.assert_allclose(got.normal, deepest.normal, atol=1e-12)
            assert got.depth == pytest.approx(deepest.depth, abs=1e-12)
            assert (got.part_a, got.part_b) == (deepest.part_a, deepest.part_b)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", [2, 3])
def test_collide_many_matches_collide_and_oracle(backend, dim):
    rng = np.random.default_rng(10 + dim)
    n = 200
    made = (random_shapes_2d if dim == 2 else random_shapes_3d)(rng, 2 * n)
    sa, sb = [m[0] for m in made[:n]], [m[0] for m in made[n:]]
    pa, pb = rng.uniform(-2, 2, (n, dim)), rng.uniform(-2, 2, (n, dim))
    ra, rb = rotations(rng, dim, n), rotations(rng, dim, n)
    res = collide_many(sa, (pa, ra), sb, (pb, rb), backend=backend)
    for k in range(n):
        one = collide(sa[k], pose_of(sa[k], pa[k], ra[k]), sb[k], pose_of(sb[k], pb[k], rb[k]), backend=backend)
        assert bool(res.hit[k]) == (one is not None)
        if one is not None:
            np.testing.assert_allclose(res.normal[k], one.normal, atol=1e-12)
            assert res.depth[k] == pytest.approx(one.depth, abs=1e-12)
        da, db = made[k][1], made[n + k][1]
        if da is None or db is None:
            continue
        ga, gb = oracle.geometry(*da, pa[k], ra[k]), oracle.geometry(*db, pb[k], rb[k])
        touching, ambiguous = oracle.pair_touching(ga, gb)
        if not ambiguous:
            assert bool(res.hit[k]) == touching


@pytest.mark.parametrize("backend", BACKENDS)
def test_collide_many_shared_shape_and_broadcast_pose(backend):
    # an ego box at 50 time steps against 200 obstacles: one shape per side, arrays of poses
    rng = np.random.default_rng(5)
    ego, obstacle = Box((2.0, 1.0)), Box((0.5, 0.5))
    steps = np.c_[np.linspace(0, 40, 50), np.zeros(50)]
    where = rng.uniform(0, 40, (200, 2)) * [1, 0.1]
    pa, pb = np.repeat(steps, 200, axis=0), np.tile(where, (50, 1))
    res = collide_many(ego, (pa, 0.2), obstacle, (pb, 0.0), backend=backend)
    assert res.hit.shape == (10_000,)
    for k in rng.choice(10_000, 300, replace=False).tolist():
        one = collide(ego, (pa[k], 0.2), obstacle, (pb[k], 0.0))
        assert bool(res.hit[k]) == (one is not None)
    # one position for every pair
    res2 = collide_many([Circle(1.0)] * 3, [0.0, 0.0], Circle(1.0), np.array([[1.5, 0], [2.0, 0], [2.5, 0]]))
    assert res2.hit.tolist() == [True, True, False]


BAD = [
    ((Circle(1.0), [[0.0, 0.0]], Sphere(1.0), [[0.0, 0.0, 0.0]]), "dimension"),
    (("circle", [[0.0, 0.0]], Circle(1.0), [[0.0, 0.0]]), "shape"),
    (([Circle(1.0), 3], [[0.0, 0.0]] * 2, Circle(1.0), [[0.0, 0.0]] * 2), "shape"),
    (([Circle(1.0)] * 2, [[0.0, 0.0]] * 2, [Circle(1.0)] * 3, [[0.0, 0.0]] * 3), "length"),
    ((Circle(1.0), [[0.0, np.nan]], Circle(1.0), [[0.0, 0.0]]), "finite"),
    ((Circle(1.0), ([[0.0, 0.0]], [0.0, 1.0]), Circle(1.0), [[0.0, 0.0]]), "angles"),
    ((Circle(1.0), [[0.0, 0.0, 0.0]], Circle(1.0), [[0.0, 0.0]]), "shape"),
]


@pytest.mark.parametrize("args,_why", BAD)
def test_collide_many_bad_input(args, _why):
    with pytest.raises(CollideWorldError):
        collide_many(*args)


def test_collide_direct_path_bad_poses():
    for bad in (((np.nan, 0.0), 0.0), ((0.0, 0.0), float("inf")), ((1e200, 0.0), 0.0), ((0.0,), 0.0), "x"):
        with pytest.raises(CollideWorldError):
            collide(Circle(1.0), bad, Box((1.0, 1.0)), (0.0, 0.0))
    with pytest.raises(CollideWorldError):
        collide(Circle(1.0), (0, 0), Box((1.0, 1.0)), (0, 0), backend="gpu")
