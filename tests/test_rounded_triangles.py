"""Rounded boxes against mesh and heightfield triangles, cores apart by less than the rounding.

Such a pair touches (the rounded box is its core box grown by ``radius``) with
depth ``radius - d``, ``d`` the core box's distance to the triangle, and the
normal along the closest points. The store's GJK on the cores had no triangle
vertices, so these pairs came out with depth ``radius`` and a zero normal,
and the compiled contact points divided by zero. Oracle: python-fcl's
distance and collision between the core box and each triangle alone.
"""

from __future__ import annotations

import fcl
import numpy as np
import pytest

from collideworld import Box, HeightField, TriangleMesh, World

RADIUS = 0.1
HALF = (0.4, 0.3, 0.2)
MESH_V = np.array(((0, 0, 0), (2, 0, 0), (0, 2, 0), (2, 2, 0.1)), dtype=float)
MESH_T = np.array(((0, 1, 2), (1, 3, 2)))


def _fcl_core(position, quaternion, tri):
    model = fcl.BVHModel()
    model.beginModel(3, 1)
    model.addSubModel(tri, np.array([[0, 1, 2]]))
    model.endModel()
    box = fcl.CollisionObject(fcl.Box(*(2 * h for h in HALF)), fcl.Transform(np.array(quaternion), np.array(position)))
    surface = fcl.CollisionObject(model, fcl.Transform())
    hit = fcl.collide(box, surface, fcl.CollisionRequest(), fcl.CollisionResult())
    gap = fcl.distance(box, surface, fcl.DistanceRequest(True), fcl.DistanceResult())
    return bool(hit), gap


@pytest.mark.filterwarnings("error::RuntimeWarning")  # the numpy contact points divided by zero (unused rows)
@pytest.mark.parametrize("backend", ["numpy", "compiled"])
@pytest.mark.parametrize("surface", ["mesh", "heightfield"])
def test_rounded_box_within_its_rounding_of_a_triangle_agrees_with_fcl(backend, surface):
    rng = np.random.default_rng(7 if surface == "mesh" else 8)
    if surface == "mesh":
        shape = TriangleMesh(MESH_V, MESH_T)
        tris = MESH_V[MESH_T]
    else:
        shape = HeightField(((0, 0, 0), (0, 0.2, 0), (0, 0, 0)), (1.0, 1.0))
        tris = shape.vertices[shape.triangles]
    within = apart = overlapping = 0
    for trial in range(60):
        position = tuple(rng.uniform(-0.5, 2.5, 3) * [1.0, 1.0, 0.5])
        q = rng.normal(size=4) if trial % 3 else np.array([1.0, 0.0, 0.0, 0.0])
        q = tuple(q / np.linalg.norm(q))
        world = World(dim=3, backend=backend, manifolds=True)
        world.add(shape)
        body = world.add(Box(HALF, radius=RADIUS), position=position, quaternion=q)
        found = {c.part_a if c.a != body else c.part_b: c for c in world.step()}
        for k, tri in enumerate(tris):
            core_hit, gap = _fcl_core(position, q, tri)
            if core_hit:
                overlapping += 1
                assert k in found, (trial, k)
                continue
            if abs(gap - RADIUS) < 1e-4:  # fcl's distance stops about 1e-5 short: too close to call
                continue
            if gap > RADIUS:
                apart += 1
                assert k not in found, (trial, k, gap)
                continue
            within += 1
            assert k in found, (trial, k, gap)
            c = found[k]
            assert abs(c.depth - (RADIUS - gap)) < 1e-4, (trial, k, c.depth, RADIUS - gap)
            assert abs(np.linalg.norm(c.normal) - 1.0) < 1e-9, (trial, k, c.normal)
            assert np.isfinite(c.points).all() and len(c.points) >= 1, (trial, k, c.points)
    assert within >= 5 and apart >= 20 and overlapping >= 5, (within, apart, overlapping)
