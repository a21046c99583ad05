"""A moving TriangleMesh: pruned through its tree in its own frame, and still exact (against python-fcl).

The mesh moves its query, not its tree: each step the bodies' boxes are seen
in the mesh's frame at its pose now. Oracle: python-fcl, one ``collide`` of
the mesh (an ``fcl.BVHModel`` of the same triangles at the same pose) with
each body, collecting every touching triangle (``contact.b1``); pairs within
1e-9 of touching (coal's distance, its GJK run to 1e-12) may go either way.
"""

from __future__ import annotations

import coal
import fcl
import numpy as np
import pytest

from collideworld import Box, Capsule, Sphere, TriangleMesh, World
from collideworld.geometry.rotation import rotation_matrix_3d


def terrain(n: int, cell: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.meshgrid(np.arange(n) * cell, np.arange(n) * cell)
    z = 0.3 * np.sin(x * 1.3) * np.cos(y * 0.9) + rng.uniform(0, 0.05, size=x.shape)
    verts = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1)
    a = (np.arange(n - 1)[:, None] * n + np.arange(n - 1)[None, :]).ravel()
    tris = np.concatenate([np.stack([a, a + 1, a + n + 1], axis=1), np.stack([a, a + n + 1, a + n], axis=1)])
    return verts, tris


def fcl_geometry(shape):
    if isinstance(shape, Sphere):
        return fcl.Sphere(shape.radius)
    if isinstance(shape, Box):
        return fcl.Box(*(2 * np.array(shape.half_extents)))
    return fcl.Capsule(shape.radius, float(np.linalg.norm(np.subtract(shape.p1, shape.p0))))


def coal_geometry(shape):
    if isinstance(shape, Sphere):
        return coal.Sphere(shape.radius)
    if isinstance(shape, Box):
        return coal.Box(*(2 * np.array(shape.half_extents)))
    return coal.Capsule(shape.radius, float(np.linalg.norm(np.subtract(shape.p1, shape.p0))))


def coal_gap(tri: np.ndarray, shape, position, quaternion) -> float:
    m = coal.BVHModelOBBRSS()
    m.beginModel(1, 3)
    m.addTriangle(*(np.array(v, dtype=np.float64) for v in tri))
    m.endModel()
    req = coal.DistanceRequest()
    req.gjk_tolerance = 1e-12
    rot = rotation_matrix_3d(np.array([quaternion], dtype=np.float64))[0]
    return float(coal.distance(m, coal.Transform3s(), coal_geometry(shape),
                               coal.Transform3s(rot, np.asarray(position, dtype=np.float64)), req,
                               coal.DistanceResult()))


def quaternion_about(axis: np.ndarray, angle: float) -> np.ndarray:
    axis = axis / np.linalg.norm(axis)
    return np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * axis])


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_a_moving_mesh_touches_the_triangles_fcl_finds(backend: str) -> None:
    rng = np.random.default_rng(31)
    verts, tris = terrain(24, 0.25, rng)  # 1,058 triangles over 5.75 x 5.75
    w = World(dim=3, backend=backend)
    w.add(TriangleMesh(verts, tris), (0.0, 0.0, 0.0), id="mesh")  # not static: it moves
    kinds = [Sphere(0.3), Box((0.25, 0.2, 0.15)), Capsule((0.0, 0.0, -0.2), (0.0, 0.0, 0.2), 0.15)]
    bodies = []
    for i in range(24):
        shape = kinds[i % 3]
        position = np.array([rng.uniform(0.5, 5.2), rng.uniform(0.5, 5.2), rng.uniform(-0.3, 0.5)])
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        w.add(shape, tuple(position), quaternion=tuple(q), id=i)
        bodies.append((shape, position, q))
    fcl_model = fcl.BVHModel()
    fcl_model.beginModel(len(verts), len(tris))
    fcl_model.addSubModel(verts, tris)
    fcl_model.endModel()
    fcl_bodies = [fcl.CollisionObject(fcl_geometry(s), fcl.Transform(q, p)) for s, p, q in bodies]
    agree = near = 0
    axis = np.array([0.3, -0.2, 1.0])
    for k in range(30):
        # small steps (most stay inside the mesh's fat box) and a few jumps, turning about a tilted axis
        shift = np.array([0.02 * k, -0.015 * k, 0.1 * np.sin(0.4 * k)]) + (0.4 if k % 10 == 9 else 0.0)
        quat = quaternion_about(axis, 0.02 * k)
        w.move("mesh", tuple(shift), quaternion=tuple(quat))
        ours = {(c.b if c.a == "mesh" else c.a, c.part_a if c.a == "mesh" else c.part_b) for c in w.step()
                if "mesh" in (c.a, c.b)}
        mesh = fcl.CollisionObject(fcl_model, fcl.Transform(quat, shift))
        theirs = set()
        for i, obj in enumerate(fcl_bodies):
            res = fcl.CollisionResult()
            fcl.collide(mesh, obj, fcl.CollisionRequest(num_max_contacts=100000, enable_contact=True), res)
            theirs |= {(i, int(c.b1)) for c in res.contacts}
        rot = rotation_matrix_3d(quat[None])[0]
        world_tris = verts[tris] @ rot.T + shift
        for i, t in ours ^ theirs:
            shape, position, q = bodies[i]
            # only a pair within rounding of touching may differ
            assert abs(coal_gap(world_tris[t], shape, position, q)) < 1e-9, (k, i, t, (i, t) in ours)
            near += 1
        agree += len(ours & theirs)
    assert agree > 2000 and near <= 3


def test_a_moving_mesh_is_pruned_to_the_triangles_near_each_body() -> None:
    # 20,000 triangles, one small ball over them: the ball's pair expands to a few triangles, not all
    rng = np.random.default_rng(5)
    verts, tris = terrain(101, 0.1, rng)
    w = World(dim=3)
    w.add(TriangleMesh(verts, tris), (0.0, 0.0, 0.0), id="mesh")
    w.add(Sphere(0.1), (5.0, 5.0, 0.0), id="ball")
    w.step()
    store = w._store
    mesh, ball = int(np.flatnonzero(store.surface)[0]), int(np.flatnonzero(store.kind == 1)[0])
    for k in range(3):
        w.move("mesh", (0.05 * k, 0.0, 0.0), quaternion=tuple(quaternion_about(np.array([0.0, 0.0, 1.0]), 0.01 * k)))
        w.step()
        _, _, part = store.expand_pairs(np.array([ball]), np.array([mesh]))
        assert 0 < len(part) < 100
