"""The hull pairs' warm start (issue 28): last step's separating axis settles pairs still apart.

``PairCache`` hands the rows it is about to test to ``separated_rows``
(numpy and compiled twins, ``collideworld.pair_cache`` /
``collideworld.compiled.pair_cache``): a hull pair (with a ball, box, capsule
or hull) that was apart last step, and is still apart along last step's
normal by more than ``APART_MARGIN`` of its size, is answered "apart" without
GJK. Checked here:

- over moving sequences (every body moving, a quarter moving, a few moving:
  the full, reuse and patched paths of the cache), a world with the warm
  start gives the same contacts, points, ids and events, bit for bit, as the
  same world with it turned off (the cold path), on both backends;
- every pair with a hull in those worlds agrees with coal's signed distance
  (contact iff coal finds the pair touching, depth within 1e-6);
- the twins settle the same rows, and a settled row is apart by the gap it
  reports, measured on the bodies' explicit world points (corners, segment
  ends, hull vertices) posed with scipy.
"""

from __future__ import annotations

import itertools
from typing import Any

import coal
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from collideworld import Box, Capsule, ConvexHull, Plane, Sphere, World
from collideworld import pair_cache as numpy_pc
from collideworld.bodies import BodyStore, Kind
from collideworld.compiled import pair_cache as compiled_pc

N_BODIES = 40
FRAMES = 24


def _scene(seed: int) -> tuple[list[Any], np.ndarray, np.ndarray]:
    """Shapes (a third hulls), positions in a loose heap and unit quaternions (w, x, y, z)."""
    rng = np.random.default_rng(seed)
    shapes: list[Any] = []
    for i in range(N_BODIES):
        k = i % 6
        s = rng.uniform(0.3, 0.6)
        if k in (0, 3):
            shapes.append(ConvexHull(rng.normal(size=(int(rng.integers(8, 21)), 3)) * s * 0.7))
        elif k == 1:
            shapes.append(Box(tuple(rng.uniform(0.2, 0.5, 3).tolist())))
        elif k == 2:
            shapes.append(Sphere(s))
        elif k == 4:
            shapes.append(Capsule((0.0, 0.0, -s), (0.0, 0.0, s), 0.6 * s))
        else:
            shapes.append(ConvexHull(list(itertools.product((-s, s), repeat=3))))  # a cube: parallel faces
    pos = np.column_stack([rng.uniform(0, 3.5, (N_BODIES, 2)), rng.uniform(0.2, 1.8, N_BODIES)])
    quat = rng.normal(size=(N_BODIES, 4))
    return shapes, pos, quat / np.linalg.norm(quat, axis=1, keepdims=True)


def _frames(seed: int, pos: np.ndarray, quat: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(ids moved, their positions, their quaternions) per frame: all, a quarter, or three bodies moving."""
    rng = np.random.default_rng(seed + 100)
    out = []
    p, q = pos.copy(), quat.copy()
    for f in range(FRAMES):
        count = (N_BODIES, N_BODIES // 4, 3)[f % 3]
        ids = np.sort(rng.choice(N_BODIES, count, replace=False))
        p[ids] += rng.normal(0, 0.04, (len(ids), 3))
        p[:, 2] = np.clip(p[:, 2], 0.1, 2.0)
        q[ids] += rng.normal(0, 0.03, (len(ids), 4))
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        out.append((ids, p[ids].copy(), q[ids].copy()))
    return out


def _world(shapes: list[Any], pos: np.ndarray, quat: np.ndarray, backend: str, warm: bool) -> World:
    w = World(dim=3, backend=backend, manifolds=True)
    w.add(Plane((0.0, 0.0, 1.0), 0.0), id="ground")
    for i, s in enumerate(shapes):
        w.add(s, pos[i], quaternion=quat[i], id=i)
    if not warm:  # the cold path: every row to the narrowphase
        w._pairs._warm_apart = lambda old: False  # type: ignore[method-assign]
    return w


def _same(a: Any, b: Any) -> None:
    assert a.a.tolist() == b.a.tolist() and a.b.tolist() == b.b.tolist()
    for name in ("normal", "depth", "points", "point_count", "separations", "point_ids", "part_a", "part_b"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), name
        if x.dtype.kind == "f":  # the bits too (signs of zeros)
            assert x.tobytes() == y.tobytes(), name
    assert a.began.rows() == b.began.rows() and a.ended.rows() == b.ended.rows()


@pytest.mark.parametrize("backend", ["compiled", "numpy"])
@pytest.mark.parametrize("seed", [0, 1])
def test_warm_start_is_the_cold_answer_bit_for_bit(backend: str, seed: int) -> None:
    shapes, pos, quat = _scene(seed)
    warm, cold = _world(shapes, pos, quat, backend, True), _world(shapes, pos, quat, backend, False)
    _same(warm.step(), cold.step())
    settled = 0
    contacts = 0
    for ids, p, q in _frames(seed, pos, quat):
        warm.move_many(ids, p, quaternions=q)
        cold.move_many(ids, p, quaternions=q)
        a, b = warm.step(), cold.step()
        _same(a, b)
        settled += warm._pairs.warm_settled
        contacts += len(a)
        assert cold._pairs.warm_settled == 0
    assert settled > 100 and contacts > 200, (settled, contacts)


def _coal_geometry(shape: Any) -> Any:
    if isinstance(shape, Sphere):
        return coal.Sphere(shape.radius)
    if isinstance(shape, Box):
        return coal.Box(*(2 * np.asarray(shape.half_extents)))
    if isinstance(shape, Capsule):
        return coal.Capsule(shape.radius, abs(shape.p1[2] - shape.p0[2]))
    verts = coal.StdVec_Vec3s()
    for v in np.asarray(shape.vertices, dtype=np.float64):
        verts.append(v)
    return coal.Convex.convexHull(verts, False, "")


def test_warm_started_hull_pairs_agree_with_coal() -> None:
    """Every pair with a hull, every frame of a moving sequence: a contact iff coal's signed distance is
    <= 0 (pairs within 1e-7 of touching not counted), and then depth = -distance within 1e-6."""
    shapes, pos, quat = _scene(2)
    w = _world(shapes, pos, quat, "compiled", True)
    w.step()
    geoms = [_coal_geometry(s) for s in shapes]
    hull = np.array([isinstance(s, ConvexHull) for s in shapes])
    p, q = pos.copy(), quat.copy()
    agree = apart = touching = settled = 0
    for ids, pm, qm in _frames(2, pos, quat):
        w.move_many(ids, pm, quaternions=qm)
        p[ids], q[ids] = pm, qm
        c = w.step()
        settled += w._pairs.warm_settled
        depth = {(int(x), int(y)): float(d) for x, y, d in zip(c.a.tolist(), c.b.tolist(), c.depth.tolist(),
                                                               strict=True) if x != "ground" and y != "ground"}
        rot = Rotation.from_quat(q[:, [1, 2, 3, 0]]).as_matrix()
        tf = [coal.Transform3s(rot[i], p[i]) for i in range(N_BODIES)]
        for i, j in itertools.combinations(range(N_BODIES), 2):
            if not (hull[i] or hull[j]):
                continue
            d = coal.distance(geoms[i], tf[i], geoms[j], tf[j], coal.DistanceRequest(), coal.DistanceResult())
            if abs(d) < 1e-7:
                continue
            got = depth.get((i, j), depth.get((j, i)))
            assert (got is not None) == (d <= 0), (i, j, d, got)
            if got is not None:
                assert abs(got + d) < 1e-6, (i, j, d, got)
                touching += 1
            else:
                apart += 1
            agree += 1
    assert touching > 150 and apart > 3000 and settled > 100, (touching, apart, settled)


def _store_with_pairs(seed: int) -> tuple[BodyStore, np.ndarray, np.ndarray]:
    """A store of random hulls, boxes, spheres and capsules, and random pairs with a hull."""
    rng = np.random.default_rng(seed)
    shapes, pos, quat = _scene(seed)
    store = BodyStore(3)
    s = store.allocate(len(shapes))
    store.set_shapes(s, shapes)
    store.set_poses(s, pos, quaternion=quat)
    hulls = np.flatnonzero([isinstance(x, ConvexHull) for x in shapes])
    a = rng.choice(hulls, 400)
    b = rng.integers(0, len(shapes), 400)
    keep = a != b
    return store, a[keep], b[keep]


def _explicit_support(shape: Any, p: np.ndarray, q: np.ndarray, u: np.ndarray) -> float:
    """max x . u over the body's world points: hull vertices, box corners, segment ends (+ radius)."""
    rot = Rotation.from_quat(q[[1, 2, 3, 0]]).as_matrix()
    if isinstance(shape, Sphere):
        return float(p @ u + shape.radius)
    if isinstance(shape, Box):
        pts = np.array(list(itertools.product(*[(-h, h) for h in shape.half_extents])))
        return float(((pts @ rot.T + p) @ u).max())
    if isinstance(shape, Capsule):
        pts = np.array([shape.p0, shape.p1], dtype=np.float64)
        return float(((pts @ rot.T + p) @ u).max() + shape.radius)
    return float(((np.asarray(shape.vertices) @ rot.T + p) @ u).max())


def _gap(shapes: list[Any], pos: np.ndarray, quat: np.ndarray, i: int, j: int, u: np.ndarray) -> float:
    return -_explicit_support(shapes[j], pos[j], quat[j], -u) - _explicit_support(shapes[i], pos[i], quat[i], u)


@pytest.mark.parametrize("seed", [3, 4])
def test_separated_rows_twins_agree_and_settle_only_separated_pairs(seed: int) -> None:
    assert compiled_pc._APART_MARGIN == numpy_pc.APART_MARGIN
    store, a, b = _store_with_pairs(seed)
    shapes, pos, quat = _scene(seed)
    rng = np.random.default_rng(seed)
    n = len(a)
    keys = np.arange(n, dtype=np.int64) * 3
    # last step's axes: the centres' direction (often separating), or a random one (mostly not)
    u = pos[b] - pos[a]
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    rand = rng.normal(size=(n, 3))
    u = np.where((np.arange(n) % 4 == 1)[:, None], rand / np.linalg.norm(rand, axis=1, keepdims=True), u)
    old_hit = np.arange(n) % 5 == 0
    old_keys = keys.copy()
    old_keys[np.arange(n) % 7 == 3] += 1  # pairs that were not candidates
    rows = np.flatnonzero(np.arange(n) % 6 != 5)
    cols = (store.kind, store.position, store.rotation, store.radius, store.half, store.seg0, store.seg1,
            store.rounding, store.bound_radius, store.hull, store.hulls.verts)
    out = []
    for twin in (numpy_pc.separated_rows, compiled_pc.separated_rows):
        hit, normal, depth = np.ones(n, dtype=bool), np.zeros((n, 3)), np.zeros(n)
        left = twin(keys, a.astype(np.int64), b.astype(np.int64), rows, old_keys, old_hit, u, *cols,
                    hit, normal, depth)
        out.append((left, hit, normal, depth))
    (l0, h0, n0, d0), (l1, h1, n1, d1) = out
    assert l0.tolist() == l1.tolist() and h0.tolist() == h1.tolist() and np.array_equal(n0, n1)
    np.testing.assert_allclose(d0, d1, rtol=0, atol=1e-12)
    settled = np.setdiff1d(rows, l0)
    assert 20 < len(settled) < len(rows)
    kinds = store.kind
    for r in settled.tolist():
        i, j = int(a[r]), int(b[r])
        assert Kind.HULL in (kinds[i], kinds[j]) and not old_hit[r] and old_keys[r] == keys[r]
        gap = _gap(shapes, pos, quat, i, j, u[r])
        assert gap > 0 and abs(gap + d0[r]) < 1e-12, (r, gap, d0[r])
        assert not h0[r] and np.array_equal(n0[r], u[r])
    # the rows not settled: not a hull pair, no answer from last step, touching then, or not apart enough
    for r in np.intersect1d(rows, l0).tolist():
        i, j = int(a[r]), int(b[r])
        gap = _gap(shapes, pos, quat, i, j, u[r])
        size = (np.abs(pos[i]).max() + np.abs(pos[j]).max() + store.bound_radius[i] + store.bound_radius[j])
        usable = not old_hit[r] and old_keys[r] == keys[r]
        assert not usable or gap <= numpy_pc.APART_MARGIN * size * (1 + 1e-9) + 1e-12, (r, gap)


@pytest.mark.parametrize("backend", ["compiled", "numpy"])
def test_a_gap_under_the_margin_is_left_to_the_narrowphase(backend: str) -> None:
    """A sphere beside a cube hull along +x: settled at a gap of twice the margin, tested at half of it."""
    twin = compiled_pc.separated_rows if backend == "compiled" else numpy_pc.separated_rows
    cube = np.array(list(itertools.product((-0.5, 0.5), repeat=3)), dtype=np.float64)[None]
    kind = np.array([Kind.HULL, Kind.BALL], dtype=np.int8)
    rot = np.stack([np.eye(3)] * 2)
    bound = np.array([np.sqrt(0.75), 1.0])
    for factor, settled in ((2.0, True), (0.5, False)):
        x = 1.5
        size = x + bound.sum()
        for _ in range(3):  # the gap's size depends on x; a fixed point of a few steps
            x = 1.5 + factor * numpy_pc.APART_MARGIN * size
            size = x + bound.sum()
        pos = np.array([[0.0, 0, 0], [x, 0, 0]])
        hit, normal, depth = np.ones(1, dtype=bool), np.zeros((1, 3)), np.zeros(1)
        z3, z = np.zeros((2, 3)), np.zeros(2)
        left = twin(np.array([7]), np.array([0]), np.array([1]), np.array([0]), np.array([7]), np.array([False]),
                    np.array([[1.0, 0.0, 0.0]]), kind, pos, rot, np.array([0.0, 1.0]), z3, z3, z3, z, bound,
                    np.array([0, -1]), cube, hit, normal, depth)
        assert (len(left) == 0) == settled and bool(hit[0]) != settled
