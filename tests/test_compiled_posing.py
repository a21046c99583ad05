"""The compiled BodyStore.set_poses against the numpy one: the same bits in every column it writes.

Expected values come from the numpy path (rotation_matrix_2d / _3d and the
posing of simple polygons, an independent implementation of the same
arithmetic); the two stores must agree bit for bit, so that the backends see
the same shapes and make the same touching decisions.
"""

from __future__ import annotations

import numpy as np
import pytest

from collideworld import Box, Circle, Polygon, Sphere
from collideworld.backend import compiled_available
from collideworld.bodies import BodyStore

pytestmark = pytest.mark.skipif(not compiled_available(), reason="numba is not installed")

COLUMNS_2D = ("position", "angle", "rotation", "world_x", "world_y")
COLUMNS_3D = ("position", "quaternion", "rotation")


def _shapes(rng: np.random.Generator, n: int, dim: int) -> list:
    out = []
    for i in range(n):
        k = i % 4 if dim == 2 else i % 2
        if k == 0:
            out.append(Circle(1.0) if dim == 2 else Sphere(0.5))
        elif k == 1:
            out.append(Box(tuple(rng.uniform(0.2, 2.0, dim))))
        elif k == 2:  # simple: convex, at most 8 vertices
            m = int(rng.integers(3, 9))
            ang = np.sort(rng.uniform(0, 2 * np.pi, m))
            out.append(Polygon(tuple(map(tuple, np.stack([np.cos(ang), np.sin(ang)], 1)))))
        else:  # concave: posed per query, not by set_poses
            out.append(Polygon(((0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (1.0, 0.5), (0.0, 2.0))))
    return out


def _pair(dim: int, n: int, seed: int) -> tuple[BodyStore, BodyStore, np.ndarray]:
    rng = np.random.default_rng([seed, dim])
    shapes = _shapes(rng, n, dim)
    stores = []
    for backend in ("numpy", "compiled"):
        st = BodyStore(dim, backend=backend)
        s = st.allocate(n)
        st.set_shapes(s, shapes)
        stores.append(st)
    return stores[0], stores[1], s


def _same(a: BodyStore, b: BodyStore, columns: tuple[str, ...]) -> None:
    for name in columns:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name
        # bit for bit: the same signs of zero too
        assert np.array_equal(np.signbit(x), np.signbit(y)), name


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("far", [0.0, 1e6])
def test_set_poses_2d_matches_numpy_bit_for_bit(seed: int, far: float) -> None:
    n = 60
    ref, got, s = _pair(2, n, seed)
    rng = np.random.default_rng(seed)
    for step in range(4):
        sub = rng.permutation(s)[: int(rng.integers(1, n))]  # any order, any subset
        pos = rng.normal(size=(len(sub), 2)) * 10 + far
        ang = rng.uniform(-1e3, 1e3, len(sub)) if step % 2 else rng.choice([0.0, -0.0, np.pi, np.pi / 2], len(sub))
        # all fields, position only, angle only
        for args in ((pos, ang), (pos, None), (None, ang)):
            ref.set_poses(sub, *args)
            got.set_poses(sub, *args)
            _same(ref, got, COLUMNS_2D)


@pytest.mark.parametrize("seed", range(3))
def test_set_poses_3d_matches_numpy_bit_for_bit(seed: int) -> None:
    n = 40
    ref, got, s = _pair(3, n, seed)
    rng = np.random.default_rng(seed)
    for _ in range(4):
        sub = rng.permutation(s)[: int(rng.integers(1, n))]
        pos = rng.normal(size=(len(sub), 3)) * 10
        quat = rng.normal(size=(len(sub), 4)) * rng.choice([1.0, 1e-3, 1e3])  # not unit: normalised inside
        for args in ((pos, None, quat), (pos, None, None), (None, None, quat)):
            ref.set_poses(sub, *args)
            got.set_poses(sub, *args)
            _same(ref, got, COLUMNS_3D)


def test_one_pose_for_one_slot_and_a_hand_checked_triangle() -> None:
    st = BodyStore(2, backend="compiled")
    s = st.allocate(1)
    st.set_shapes(s, [Polygon(((0.0, 0.0), (1.0, 0.0), (0.0, 1.0)))])
    st.set_poses(s, np.array([[2.0, 3.0]]), np.array([np.pi / 2]))
    # a quarter turn maps (1, 0) to (0, 1) and (0, 1) to (-1, 0); then shifted by (2, 3)
    assert np.allclose(st.world_x[:3, 0], [2.0, 2.0, 1.0], atol=1e-15)
    assert np.allclose(st.world_y[:3, 0], [3.0, 4.0, 3.0], atol=1e-15)
    assert st.world_x[3, 0] == st.world_x[2, 0]  # padded by the last vertex
