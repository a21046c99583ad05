"""BodyStore.frame: world rows of capsules and hulls posed once per step are the bits of a fresh call.

Inside ``BodyStore.frame()`` (the pair cache's step) ``capsule_rows`` and
``hull_arrays`` give rows of one posing of every capsule and hull; the oracle
is the same call outside the frame, on ``slots`` alone, compared bit for bit;
and whole steps of a 3D pile with and without the frame give the same
contacts and contact points to the bit.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from collideworld import Box, Capsule, ConvexHull, Plane, Sphere, World
from collideworld.bodies import BodyStore, Kind


def _pile_shapes(rng: np.random.Generator, n: int) -> list:
    shapes = []
    for k in rng.integers(0, 4, n).tolist():
        s = rng.uniform(0.3, 0.6, 3)
        if k == 0:
            shapes.append(Box(tuple(s.tolist())))
        elif k == 1:
            shapes.append(Sphere(float(s[0])))
        elif k == 2:
            shapes.append(Capsule((0.0, 0.0, -float(s[1])), (0.0, 0.0, float(s[1])), float(s[0]) * 0.6))
        else:
            shapes.append(ConvexHull(rng.normal(size=(int(rng.integers(8, 21)), 3)) * s[0] * 0.7))
    return shapes


def _quats(rng: np.random.Generator, n: int) -> np.ndarray:
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


@pytest.mark.parametrize("seed", range(6))
def test_frame_rows_match_a_fresh_call(seed: int) -> None:
    rng = np.random.default_rng(seed)
    store = BodyStore(3)
    n = 120
    slots = store.allocate(n)
    store.set_shapes(slots, _pile_shapes(rng, n))
    store.set_poses(slots, rng.uniform(-50, 50, (n, 3)), quaternion=_quats(rng, n))
    caps = slots[store.kind[slots] == Kind.CAPSULE]
    hulls = slots[store.kind[slots] == Kind.HULL]
    for _ in range(20):
        # subsets of every size from one row, with repeats, in any order (as kernel groups ask)
        sc = rng.choice(caps, int(rng.integers(1, 2 * len(caps))))
        sh = rng.choice(hulls, int(rng.integers(1, 2 * len(hulls))))
        want_c, want_h = store.capsule_rows(sc), store.hull_arrays(sh)
        with store.frame():
            got_c, got_h = store.capsule_rows(sc), store.hull_arrays(sh)
        for a, b in zip(got_c + got_h, want_c + want_h, strict=True):
            assert a.dtype == b.dtype and a.shape == b.shape and a.flags.c_contiguous
            np.testing.assert_array_equal(a, b, strict=True)
        np.testing.assert_array_equal(store.hull_vertices(sh), store.hull_rows(sh)[0], strict=True)


def test_frame_follows_a_pose_change_inside_it() -> None:
    rng = np.random.default_rng(7)
    store = BodyStore(3)
    slots = store.allocate(2)
    store.set_shapes(slots, [Capsule((0.0, 0.0, -1.0), (0.0, 0.0, 1.0), 0.5),
                             ConvexHull(rng.normal(size=(12, 3)))])
    store.set_poses(slots, np.zeros((2, 3)), quaternion=np.array([[1.0, 0, 0, 0]] * 2))
    with store.frame():
        store.capsule_rows(slots[:1])
        store.hull_arrays(slots[1:])
        store.set_poses(slots, np.full((2, 3), 3.0), quaternion=np.array([[1.0, 0, 0, 0]] * 2))
        p0, p1, _ = store.capsule_rows(slots[:1])
        verts = store.hull_arrays(slots[1:])[0]
    # hand calculation: the capsule's ends moved by (3, 3, 3); the hull's vertices too
    assert p0.tolist() == [[3.0, 3.0, 2.0]] and p1.tolist() == [[3.0, 3.0, 4.0]]
    np.testing.assert_array_equal(verts[0], store.hulls.verts[store.hull[slots[1]]] + 3.0)


def test_frame_serves_other_slots_fresh() -> None:
    """A slot of another kind asked of capsule_rows (a caller's mixed rows) is posed as outside the frame."""
    store = BodyStore(3)
    slots = store.allocate(2)
    store.set_shapes(slots, [Capsule((0.0, 0.0, -1.0), (0.0, 0.0, 1.0), 0.5), Sphere(1.0)])
    store.set_poses(slots, np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), quaternion=np.array([[1.0, 0, 0, 0]] * 2))
    want = store.capsule_rows(slots)
    with store.frame():
        got = store.capsule_rows(slots)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b, strict=True)


def _pile_world(seed: int) -> tuple[World, np.ndarray, np.ndarray, np.random.Generator]:
    rng = np.random.default_rng(seed)
    n = 160
    w = World(dim=3, backend="compiled", manifolds=True)
    w.add(Plane((0.0, 0.0, 1.0), 0.0), id="ground")
    pos = np.column_stack([rng.uniform(0, 8, (n, 2)), rng.uniform(0.2, 2.2, n)])
    quat = _quats(rng, n)
    for i, s in enumerate(_pile_shapes(rng, n)):
        w.add(s, pos[i], quaternion=quat[i], id=i)
    return w, pos, quat, rng


@pytest.mark.parametrize("seed", range(3))
def test_steps_with_and_without_the_frame_agree_to_the_bit(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    worlds = []
    for framed in (True, False):
        if not framed:
            monkeypatch.setattr(BodyStore, "frame", lambda self: contextlib.nullcontext())
        w, pos, quat, rng = _pile_world(seed)
        got = []
        for _ in range(6):
            pos = pos + rng.normal(0, 0.05, pos.shape)
            quat = quat + rng.normal(0, 0.03, quat.shape)
            quat /= np.linalg.norm(quat, axis=1, keepdims=True)
            w.move_many(np.arange(len(pos)), pos, quaternions=quat)
            c = w.step()
            got.append(c)
        worlds.append(got)
    n_points = 0
    for a, b in zip(*worlds, strict=True):
        assert a.a.tolist() == b.a.tolist() and a.b.tolist() == b.b.tolist()
        np.testing.assert_array_equal(a.normal, b.normal, strict=True)
        np.testing.assert_array_equal(a.depth, b.depth, strict=True)
        ma, mb = a.manifold(), b.manifold()
        assert ma is not None and mb is not None
        np.testing.assert_array_equal(ma.points, mb.points, strict=True)
        np.testing.assert_array_equal(ma.separations, mb.separations, strict=True)
        np.testing.assert_array_equal(ma.ids, mb.ids, strict=True)
        np.testing.assert_array_equal(ma.count, mb.count, strict=True)
        n_points += int(ma.count.sum())
    assert n_points > 100  # the piles touch: hull and capsule points were compared
