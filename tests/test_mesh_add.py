"""Adding a mesh to a world writes its part slots from arrays: the world answers as a brute force over triangles.

Oracle: the distance of a sphere's centre to each world triangle, computed
here over all triangles at once (inside the triangle's prism: the distance to
its plane; else the least distance to its three edges), against the sphere's
radius; configurations within 1e-9 of touching are left out. The store's
columns are checked against the mesh's arrays posed by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from collideworld import Sphere, TriangleMesh, World
from collideworld.bodies import BodyStore
from collideworld.geometry.rotation import rotation_matrix_3d


def terrain(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.meshgrid(np.arange(n) * 0.5, np.arange(n) * 0.5)
    z = 0.3 * np.sin(x) * np.cos(y) + rng.uniform(0, 0.1, size=x.shape)
    verts = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1)
    a = (np.arange(n - 1)[:, None] * n + np.arange(n - 1)[None, :]).ravel()
    return verts, np.concatenate([np.stack([a, a + 1, a + n + 1], axis=1), np.stack([a, a + n + 1, a + n], axis=1)])


def segment_gap(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ab = b - a
    t = np.clip(np.einsum("ni,ni->n", p - a, ab) / np.einsum("ni,ni->n", ab, ab), 0.0, 1.0)
    return np.linalg.norm(p - (a + t[:, None] * ab), axis=1)


def point_triangle_gap(p: np.ndarray, tri: np.ndarray) -> np.ndarray:
    """Distance of point p (3,) to each triangle (T, 3, 3)."""
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    n = np.cross(b - a, c - a)
    n /= np.linalg.norm(n, axis=1)[:, None]
    q = p - a
    inside = np.ones(len(tri), dtype=bool)
    for u, v in ((a, b), (b, c), (c, a)):  # p's projection on the inner side of every edge
        inside &= np.einsum("ni,ni->n", np.cross(v - u, p - u), n) >= 0.0
    plane = np.abs(np.einsum("ni,ni->n", q, n))
    pp = np.broadcast_to(p, a.shape)
    edges = np.minimum(np.minimum(segment_gap(pp, a, b), segment_gap(pp, b, c)), segment_gap(pp, c, a))
    return np.where(inside, plane, edges)


def brute_pairs(tri_world: np.ndarray, centres: np.ndarray, radius: float) -> tuple[set, np.ndarray]:
    """((sphere, triangle) pairs touching, |gap - radius| per sphere's nearest call) by the brute force."""
    pairs, margin = set(), np.inf
    for i, c in enumerate(centres):
        gap = point_triangle_gap(c, tri_world)
        pairs |= {(i, int(t)) for t in np.flatnonzero(gap <= radius)}
        margin = min(margin, float(np.abs(gap - radius).min()))
    return pairs, margin


def world_pairs(contacts) -> set:
    out = set()
    for a, b, pa, pb in zip(contacts.a.tolist(), contacts.b.tolist(), contacts.part_a.tolist(),
                            contacts.part_b.tolist(), strict=True):
        if a == "mesh":
            out.add((b, pa))
        elif b == "mesh":
            out.add((a, pb))
    return out


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
@pytest.mark.parametrize("fragmented", [False, True])
def test_a_mesh_added_from_arrays_answers_as_a_brute_force_over_triangles(backend, fragmented):
    rng = np.random.default_rng(2901 + fragmented)
    verts, tris = terrain(14, rng)  # 338 triangles: more than the store hands out one at a time
    mesh = TriangleMesh(verts, tris)
    agree = 0
    for trial in range(4):
        w = World(dim=3, backend=backend)
        if fragmented:  # free slots scattered below the end: the parts do not get consecutive slots
            fill = [w.add(Sphere(0.1), (100.0 + k, 0, 0), id=f"fill{k}") for k in range(120)]
            w.remove_many(fill[::3])
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        pos = rng.uniform(-1, 1, 3)
        w.add(mesh, tuple(pos), quaternion=tuple(q), static=True, id="mesh")
        rot = rotation_matrix_3d(q[None])[0]
        tri_world = verts[tris] @ rot.T + pos
        # spheres near the surface: a random triangle's centroid pushed off along its normal by -0.3..0.3
        pick = rng.integers(0, len(tris), 40)
        normal = np.cross(tri_world[pick, 1] - tri_world[pick, 0], tri_world[pick, 2] - tri_world[pick, 0])
        normal /= np.linalg.norm(normal, axis=1)[:, None]
        centres = tri_world[pick].mean(axis=1) + rng.uniform(-0.3, 0.3, (40, 1)) * normal + rng.normal(
            scale=0.1, size=(40, 3))
        radius = 0.2
        for i, c in enumerate(centres):
            w.add(Sphere(radius), tuple(c), id=i)
        expected, margin = brute_pairs(tri_world, centres, radius)
        assert margin > 1e-9  # no configuration the oracle cannot decide
        got = world_pairs(w.step())
        assert got == expected, (trial, sorted(got ^ expected)[:5])
        agree += len(expected)
    assert agree > 100  # the trials did meet triangles


def test_part_slot_columns_are_the_meshs_arrays_posed():
    rng = np.random.default_rng(2902)
    verts, tris = terrain(10, rng)
    store = BodyStore(3)
    lone = store.allocate(90)  # then free every other one: the mesh's parts fill the gaps first
    store.release(lone[::2])
    s = store.allocate(1)
    store.set_shapes(s, [TriangleMesh(verts, tris)])
    q = np.array([[0.8, 0.2, -0.4, 0.4]]) / np.linalg.norm([0.8, 0.2, -0.4, 0.4])
    store.set_poses(s, np.array([[1.0, -2.0, 0.5]]), quaternion=q)
    parts = store.part_slots[store.parts_at[s[0]] + np.arange(len(tris))]
    assert len(set(parts.tolist())) == len(tris)
    assert set(lone[::2].tolist()) - {int(s[0])} <= set(parts.tolist())  # the lowest free slots were taken
    corners = verts[tris]
    centroid = corners.mean(axis=1)
    rot = rotation_matrix_3d(q)[0]
    assert np.array_equal(store.part[parts], np.arange(len(tris)))
    assert np.array_equal(store.owner[parts], np.full(len(tris), s[0]))
    np.testing.assert_allclose(store.tri[parts], corners - centroid[:, None, :], rtol=0, atol=1e-14)
    np.testing.assert_allclose(store.position[parts], centroid @ rot.T + [1.0, -2.0, 0.5], rtol=0, atol=1e-12)
    for p, t in zip(parts.tolist(), range(len(tris)), strict=True):
        shape = store.shapes[p]
        assert np.array_equal(shape.points, store.tri[p]) and np.array_equal(shape.active, store.tri_active[p])
        np.testing.assert_allclose(shape.normal, np.cross(corners[t, 1] - corners[t, 0], corners[t, 2] - corners[t, 0])
                                   / np.linalg.norm(np.cross(corners[t, 1] - corners[t, 0],
                                                             corners[t, 2] - corners[t, 0])), atol=1e-15)


def test_allocating_many_slots_takes_the_lowest_free_ones_and_keeps_the_heap():
    store = BodyStore(3)
    first = store.allocate(300)
    assert first.tolist() == list(range(300))
    store.release(first[[5, 7, 100, 299, 3]])
    more = store.allocate(70)  # the five freed ones, lowest first, then fresh slots in order
    assert more.tolist() == [3, 5, 7, 100, 299] + list(range(300, 365))
    store.release(more[:2])
    assert store.allocate(1).tolist() == [3] and store.allocate(1).tolist() == [5]
