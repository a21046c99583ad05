"""Frames of many bodies moving over a static mesh: the triangles each body asked for are reused across frames.

``BodyStore`` remembers, per surface, the triangles the tree gave each other
body's box; a body whose box is the same bit for bit (at rest in its fat
box) gets them again without a tree query. Oracle: python-fcl, each body
against the whole mesh (``BVHModel``, one ``collide`` per body), every frame;
and a count of the boxes the tree was asked for (the reuse happens). Also:
``move_many`` given a list of ints (the table lookup, not a dict lookup per
id) finds the same bodies, and refuses bools and unknown ids as before.
"""

from __future__ import annotations

import fcl
import numpy as np
import pytest

from collideworld import Box, Capsule, Sphere, TriangleMesh, World
from collideworld.errors import UnknownIdError
from collideworld.geometry.mesh_bvh import TriangleBVH

N_SIDE = 30
CELL = 0.25


def terrain(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.meshgrid(np.arange(N_SIDE) * CELL, np.arange(N_SIDE) * CELL)
    z = 0.2 * np.sin(x * 1.3) * np.cos(y * 0.9) + rng.uniform(0, 0.02, size=x.shape)
    verts = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1)
    a = (np.arange(N_SIDE - 1)[:, None] * N_SIDE + np.arange(N_SIDE - 1)[None, :]).ravel()
    tris = np.concatenate([np.stack([a, a + 1, a + N_SIDE + 1], axis=1),
                           np.stack([a, a + N_SIDE + 1, a + N_SIDE], axis=1)])
    return verts, tris


def fcl_triangles(model: fcl.BVHModel, kinds: np.ndarray, pos: np.ndarray) -> set[tuple[int, int]]:
    """(body, triangle) pairs in contact by python-fcl, one ``collide`` of each body with the mesh."""
    mesh = fcl.CollisionObject(model, fcl.Transform())
    geoms = [fcl.Sphere(0.2), fcl.Box(0.3, 0.3, 0.3), fcl.Capsule(0.1, 0.3)]
    out = set()
    for i, (k, p) in enumerate(zip(kinds.tolist(), pos, strict=True)):
        res = fcl.CollisionResult()
        fcl.collide(mesh, fcl.CollisionObject(geoms[k], fcl.Transform(p)),
                    fcl.CollisionRequest(num_max_contacts=100000, enable_contact=True), res)
        out |= {(i, int(c.b1)) for c in res.contacts}
    return out


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_frames_of_moving_bodies_meet_fcls_triangles_and_reuse_the_trees_answers(backend, monkeypatch):
    rng = np.random.default_rng(2911)
    verts, tris = terrain(rng)
    n = 300  # a quarter jumping each frame: more boxes change than the pair cache patches (a full rebuild)
    kinds = np.arange(n) % 3
    size = (N_SIDE - 1) * CELL
    pos = np.column_stack([rng.uniform(0.5, size - 0.5, n), rng.uniform(0.5, size - 0.5, n),
                           rng.uniform(-0.1, 0.3, n)])
    asked: list[int] = []
    reusing = TriangleBVH.query_reusing

    def counting(self, *args, **kwargs):
        out = reusing(self, *args, **kwargs)
        asked.append(out[3])  # the boxes walked down the tree (not found in the memo)
        return out

    monkeypatch.setattr(TriangleBVH, "query_reusing", counting)
    w = World(dim=3, backend=backend)
    w.add(TriangleMesh(verts, tris), (0, 0, 0), static=True, id="mesh")
    shapes = [Sphere(0.2), Box((0.15, 0.15, 0.15)), Capsule((0, 0, -0.15), (0, 0, 0.15), 0.1)]
    ids = [w.add(shapes[k], tuple(p)) for k, p in zip(kinds.tolist(), pos, strict=True)]
    model = fcl.BVHModel()
    model.beginModel(len(verts), len(tris))
    model.addSubModel(verts, tris)
    model.endModel()
    agree = 0
    for frame in range(8):
        if frame:
            # small steps: most bodies stay in their fat boxes; every fourth jumps out of its own
            step = rng.normal(scale=0.004, size=(n, 3))
            step[frame % 4::4, :2] += 0.3
            pos = pos + step
            w.move_many(ids, pos)
        asked.clear()
        contacts = w.step()
        got = {(int(b), int(pb)) for a, b, pb in zip(contacts.a, contacts.b, contacts.part_a, strict=True)
               if a == "mesh"} | {(int(a), int(pa)) for a, b, pa in zip(contacts.a, contacts.b, contacts.part_a,
                                                                         strict=True) if b == "mesh"}
        oracle = fcl_triangles(model, kinds, pos)
        assert got == oracle, (frame, sorted(got ^ oracle))
        agree += len(oracle)
        if frame == 0:
            assert sum(asked) == n  # every box walked down the tree once
        if frame >= 2:
            # the boxes of the bodies at rest in their fat boxes were not asked again
            assert sum(asked) < n // 2, (frame, asked)
    assert agree > 2000


def test_move_many_takes_a_list_of_ints_and_refuses_bools_and_unknown_ids():
    w = World(dim=3)
    ids = w.add_many(Sphere(0.5), np.arange(12.0)[:, None] * [2.0, 0.0, 0.0])
    assert ids == list(range(12))
    w.add(Sphere(0.5), (0.0, 5.0, 0.0), id="s")
    targets = np.arange(12.0)[:, None] * [2.0, 0.0, 0.0] + [0.0, 0.0, 1.0]
    w.move_many(list(reversed(ids)), targets[::-1])
    for i in ids:
        assert w.body(i).position.tolist() == pytest.approx(targets[i])
    before = w.poses(ids)[0].copy()
    for bad, name in (([0, 1, True], "True"), ([0, 99], "99"), ([0, 2 ** 70], str(2 ** 70))):
        with pytest.raises(UnknownIdError, match=name):
            w.move_many(bad, np.zeros((len(bad), 3)))
        assert (w.poses(ids)[0] == before).all()


def test_spread_to_parts_gives_every_part_its_owners_flag():
    # the definition (each part slot takes its owner's flag), against the writes of only the flagged
    # bodies' parts and the part slots flagged before: worlds of compounds, meshes and simple bodies
    from collideworld import Compound

    rng = np.random.default_rng(12)
    verts, tris = terrain(rng)
    w = World(dim=3)
    w.add(TriangleMesh(verts, tris[:80]), (0, 0, 0), static=True, id="mesh")
    for i in range(12):
        shape = Compound([(Sphere(0.2), (0.0, 0.0, 0.0)), (Box((0.1, 0.1, 0.1)), (0.5, 0.0, 0.0))]) if i % 3 else \
            Sphere(0.3)
        w.add(shape, tuple(rng.uniform(0, 5, 3)), id=f"b{i}")
    w.remove("b4")  # a released compound: its part slots are free again
    st = w._store
    parts = np.flatnonzero(st.owner >= 0)
    checked = 0
    for _ in range(200):
        flags = rng.random(st.capacity) < rng.choice([0.02, 0.3, 0.9])
        expect = flags.copy()
        expect[parts] = expect[st.owner[parts]]
        st.spread_to_parts(flags)
        assert (flags == expect).all()
        checked += int(expect[parts].sum())
    assert checked > 1000
