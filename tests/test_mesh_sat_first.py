"""The triangle kernels decide by the SAT first, GJK only near touching: hits, depths and misses against coal.

``contact_polytope_triangle`` (both twins) runs the separating-axis test
first: where the cores overlap it is the exact penetration, and where an axis
separates the pair by more than 1e-9 of its scale the pair misses without
GJK, its depth minus that axis's gap (a lower bound of the distance). Oracle:
coal's signed distance of the shape and a one-triangle ``BVHModelOBBRSS``
(GJK to 1e-12, EPA when overlapping), configurations within 1e-8 of touching
left out; touching by construction in dyadic coordinates (exact by hand).
"""

from __future__ import annotations

import numpy as np
import pytest

from collideworld import Box, Capsule, Sphere
from collideworld.geometry import contact_triangle as numpy_twin
from collideworld.geometry.compiled import contact_triangle as compiled_twin
from collideworld.geometry.rotation import rotation_matrix_3d

from .test_mesh import coal_gap

TWINS = {"numpy": numpy_twin, "compiled": compiled_twin}
CORNERS = np.array([[x, y, z] for x in (-1.0, 1.0) for y in (-1.0, 1.0) for z in (-1.0, 1.0)])


def kernel_args(shape, position: np.ndarray, quaternion: np.ndarray) -> tuple[np.ndarray, ...]:
    """One row of contact_polytope_triangle's a-side arguments, built as the narrowphase builds them."""
    rot = rotation_matrix_3d(quaternion[None])[0]
    none = np.zeros((1, 0, 3))
    if isinstance(shape, Sphere):
        return position[None, None, :], none, none, np.array([shape.radius])
    if isinstance(shape, Box):
        corners = position + (CORNERS * shape.half_extents) @ rot.T
        return corners[None], rot.T[None].copy(), rot.T[None].copy(), np.zeros(1)
    p0, p1 = position + rot @ np.asarray(shape.p0), position + rot @ np.asarray(shape.p1)
    return np.stack([p0, p1])[None], none, (p1 - p0)[None, None, :], np.array([shape.radius])


def random_shape(kind: int, rng: np.random.Generator):
    if kind == 0:
        return Sphere(float(rng.uniform(0.05, 0.6)))
    if kind == 1:
        return Box(tuple(rng.uniform(0.05, 0.5, 3)))
    h = float(rng.uniform(0.05, 0.5))
    return Capsule((0, 0, -h), (0, 0, h), float(rng.uniform(0.05, 0.4)))


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_sat_first_hits_depths_and_misses_agree_with_coal(backend):
    rng = np.random.default_rng(2929)
    twin = TWINS[backend]
    counts = {"hit": 0, "miss": 0}
    for trial in range(300):
        kind = trial % 3
        shape = random_shape(kind, rng)
        tri = rng.uniform(-1, 1, (3, 3))
        if np.linalg.norm(np.cross(tri[1] - tri[0], tri[2] - tri[0])) < 0.1:
            continue
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        # near the triangle's plane, over it or beside it
        normal = np.cross(tri[1] - tri[0], tri[2] - tri[0])
        normal /= np.linalg.norm(normal)
        pos = tri.mean(axis=0) + rng.uniform(-0.8, 0.8) * normal + rng.normal(scale=0.5, size=3)
        oracle = coal_gap(tri, shape, pos, q)
        if abs(oracle) < 1e-8:
            continue
        res = twin.contact_polytope_triangle(*kernel_args(shape, pos, q), tri[None], np.ones((1, 3), dtype=bool))
        hit, depth = bool(res.hit[0]), float(res.depth[0])
        assert hit == (oracle < 0.0), (trial, type(shape).__name__, oracle, depth)
        if hit:
            # the exact penetration (coal's EPA answers to about 1e-9 here)
            assert abs(depth + oracle) <= 1e-6, (trial, depth, oracle)
            counts["hit"] += 1
        else:
            # minus a lower bound of the gap (a separating axis's, or GJK's distance)
            assert 0.0 < -depth <= oracle + 1e-9, (trial, depth, oracle)
            counts["miss"] += 1
        np.testing.assert_allclose(np.linalg.norm(res.normal[0]), 1.0, atol=1e-12)
    assert counts["hit"] > 60 and counts["miss"] > 60, counts


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
@pytest.mark.parametrize("shape", [Sphere(0.25), Box((0.25, 0.5, 0.125)), Capsule((-0.5, 0, 0), (0.5, 0, 0), 0.25)])
def test_touching_a_triangle_counts_and_a_hair_above_misses(backend, shape):
    """Resting on the triangle's plane z = 0 over its inside, in dyadic coordinates (touching exactly, by hand)."""
    twin = TWINS[backend]
    tri = np.array([[[-4.0, -4.0, 0.0], [4.0, -4.0, 0.0], [0.0, 4.0, 0.0]]])
    lowest = {Sphere: 0.25, Box: 0.125, Capsule: 0.25}[type(shape)]
    q = np.array([1.0, 0.0, 0.0, 0.0])
    for lift, hit in ((0.0, True), (2.0 ** -30, False), (-(2.0 ** -30), True), (0.5, False)):
        args = kernel_args(shape, np.array([0.5, 0.25, lowest + lift]), q)
        res = twin.contact_polytope_triangle(*args, tri, np.ones((1, 3), dtype=bool))
        assert bool(res.hit[0]) == hit, lift
        if hit:
            assert float(res.depth[0]) == max(-lift, 0.0)
            assert res.normal[0].tolist() == [0.0, 0.0, -1.0]
        else:
            assert float(res.depth[0]) == -lift  # the face normal separates it by exactly the lift
