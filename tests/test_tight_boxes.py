"""``BodyStore.tight_boxes`` (the mesh expansion's query boxes): balls, boxes and capsules in one compiled loop.

Oracle: each body's box by hand from scipy's rotation of its quaternion (or
the 2D angle's matrix): a ball's centre +- r, a box's eight (four) corners'
extremes, a capsule's end points' box grown by r; other kinds (hulls) through
``aabbs``. The boxes agree to rounding (1e-12 of the pose's size).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from collideworld import Box, Capsule, Circle, ConvexHull, Segment, Sphere, World
from collideworld.bodies import Kind
from collideworld.geometry.compiled import aabb as compiled_aabb


def test_kind_codes_agree_with_the_store() -> None:
    assert (compiled_aabb.BALL, compiled_aabb.BOX, compiled_aabb.CAPSULE) == (Kind.BALL, Kind.BOX, Kind.CAPSULE)


def hand_box(shape, pos: np.ndarray, rot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(shape, (Sphere, Circle)):
        return pos - shape.radius, pos + shape.radius
    if isinstance(shape, Box):
        h = np.asarray(shape.half_extents)
        corners = np.array([pos + rot @ (h * np.array(s)) for s in itertools.product((-1, 1), repeat=len(h))])
        return corners.min(axis=0), corners.max(axis=0)
    if isinstance(shape, ConvexHull):
        pts = np.array([pos + rot @ np.asarray(v) for v in shape.vertices])
        return pts.min(axis=0), pts.max(axis=0)
    e0, e1 = pos + rot @ np.asarray(shape.p0), pos + rot @ np.asarray(shape.p1)
    return np.minimum(e0, e1) - shape.radius, np.maximum(e0, e1) + shape.radius


@pytest.mark.parametrize("dim", [2, 3])
def test_tight_boxes_of_balls_boxes_capsules_and_others_by_hand(dim: int) -> None:
    rng = np.random.default_rng(60 + dim)
    n = 160
    if dim == 2:
        kinds = [Circle(0.4), Box((0.7, 0.2)), Capsule((0, 0), (1.5, 0.3), 0.3), Segment((-1, 0), (1, 0.5)),
                 Box((0.3, 0.5))]
    else:
        cube = [(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]
        kinds = [Sphere(0.4), Box((0.7, 0.2, 0.3)), Capsule((0, 0, 0), (1.5, 0.3, -0.2), 0.3),
                 Segment((-1, 0, 0), (1, 0.5, 0)), ConvexHull(cube + [(0.0, 0.0, 0.9)])]
    shapes = [kinds[k] for k in rng.integers(0, len(kinds), n)]
    w = World(dim=dim, backend="compiled")
    pos = rng.uniform(-50, 50, (n, dim)) * np.where(rng.random(n) < 0.25, 1e4, 1.0)[:, None]
    if dim == 2:
        ang = rng.uniform(-3, 3, n)
        ids = w.add_many(shapes, pos, angles=ang)
        rots = [np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) for a in ang]
    else:
        q = rng.normal(size=(n, 4))
        q /= np.linalg.norm(q, axis=1)[:, None]
        ids = w.add_many(shapes, pos, quaternions=q)
        rots = list(Rotation.from_quat(q[:, [1, 2, 3, 0]]).as_matrix())  # scipy: scalar last
    st = w._store
    slots = st.body_slots()
    assert st.ids[slots].tolist() == ids
    order = rng.permutation(n)
    lo, hi = st.tight_boxes(slots[order])
    for row, k in enumerate(order.tolist()):
        elo, ehi = hand_box(shapes[k], pos[k], rots[k])
        tol = 1e-12 * (np.abs(pos[k]).max() + 2.0)
        np.testing.assert_allclose(lo[row], elo, rtol=0, atol=tol)
        np.testing.assert_allclose(hi[row], ehi, rtol=0, atol=tol)
