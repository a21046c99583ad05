"""The compiled slot path's box-triangle rows (the mesh frames' path) against coal and the numpy twin.

``contact_triangle_slots`` (the compiled narrowphase's mesh path) builds each
box from the store's pose and runs the SAT-first row routine; the other
triangle tests call ``contact_polytope_triangle`` with corners made by the
test. Oracle: coal's signed distance of the box and a one-triangle
``BVHModelOBBRSS`` (GJK to 1e-12, EPA when overlapping), seeded configurations
near the triangle, those within 1e-8 of touching left out; touching by
construction (a box turned about z resting on the plane z = 0 in dyadic
coordinates, exact by hand). The numpy twin (corners) agrees to rounding.
A guard for any change to the box's SAT projection (a closed-form projected
radius was tried and measured no faster: benchmarks/results/meshes.md).
"""

from __future__ import annotations

import numpy as np
import pytest

from collideworld import Box, TriangleMesh
from collideworld.bodies import BodyStore
from collideworld.geometry import contact_triangle as numpy_twin
from collideworld.geometry.compiled.contact_triangle import contact_triangle_slots

from .test_mesh import coal_gap
from .test_mesh_sat_first import kernel_args


def slot_contact(box: Box, pos: np.ndarray, q: np.ndarray, tri: np.ndarray,
                 lift: np.ndarray | None = None) -> tuple[bool, float, list[float]]:
    """The compiled slot path's contact of ``box`` at (pos, q) with a one-triangle mesh (hit, depth, normal)."""
    store = BodyStore(3)
    s = store.allocate(2)
    store.set_shapes(s, [box, TriangleMesh(tri, [(0, 1, 2)])])
    store.set_poses(s, np.array([pos, [0.0, 0.0, 0.0]]), quaternion=np.array([q, [1.0, 0, 0, 0]]))
    part = store.part_slots[store.parts_at[s[1]]]
    res, other = contact_triangle_slots(s[:1], np.array([part]), store.kind, store.position, store.rotation,
                                        store.radius, store.half, store.seg0, store.seg1, store.tri,
                                        store.tri_active)
    assert not other[0]
    return bool(res.hit[0]), float(res.depth[0]), res.normal[0].tolist()


def test_box_triangle_slot_rows_agree_with_coal_and_the_corner_twin():
    rng = np.random.default_rng(2930)
    counts = {"hit": 0, "miss": 0}
    for _ in range(240):
        box = Box(tuple(rng.uniform(0.05, 0.5, 3)))
        tri = rng.uniform(-1, 1, (3, 3))
        normal = np.cross(tri[1] - tri[0], tri[2] - tri[0])
        if np.linalg.norm(normal) < 0.1:
            continue
        normal /= np.linalg.norm(normal)
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        pos = tri.mean(axis=0) + rng.uniform(-0.8, 0.8) * normal + rng.normal(scale=0.5, size=3)
        oracle = coal_gap(tri, box, pos, q)
        if abs(oracle) < 1e-8:
            continue
        hit, depth, n = slot_contact(box, pos, q, tri)
        assert hit == (oracle < 0.0), (pos, q, oracle, depth)
        if hit:
            assert abs(depth + oracle) <= 1e-6, (depth, oracle)
            counts["hit"] += 1
        else:
            assert 0.0 < -depth <= oracle + 1e-9, (depth, oracle)
            counts["miss"] += 1
        ref = numpy_twin.contact_polytope_triangle(*kernel_args(box, pos, q), tri[None], np.ones((1, 3), dtype=bool))
        assert bool(ref.hit[0]) == hit
        assert abs(float(ref.depth[0]) - depth) <= 1e-12
        np.testing.assert_allclose(ref.normal[0], n, atol=1e-12)
    assert counts["hit"] > 50 and counts["miss"] > 50, counts


@pytest.mark.parametrize("turn", [0.0, 0.3, 1.0, 2.5])
def test_a_turned_box_resting_on_a_triangle_touches_and_a_hair_above_misses(turn):
    """A box turned about z keeps its bottom face at z = pz - hz exactly: touching on z = 0 is exact by hand."""
    tri = np.array([[-4.0, -4.0, 0.0], [4.0, -4.0, 0.0], [0.0, 4.0, 0.0]])
    box = Box((0.25, 0.5, 0.125))
    q = np.array([np.cos(turn / 2), 0.0, 0.0, np.sin(turn / 2)])
    for lift, hit in ((0.0, True), (2.0 ** -30, False), (-(2.0 ** -30), True), (0.5, False)):
        got, depth, n = slot_contact(box, np.array([0.5, 0.25, 0.125 + lift]), q, tri)
        assert got == hit, (turn, lift)
        if hit:
            assert depth == max(-lift, 0.0)
            assert n == [0.0, 0.0, -1.0]
        else:
            assert depth == -lift
