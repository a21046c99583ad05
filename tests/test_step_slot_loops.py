"""3D capsule pairs (with balls, boxes, capsules) on the compiled step's slot loop (issue 29's mesh frame).

A compiled World's step used to send every 3D pair with a capsule through the grouped dispatcher
(``narrowphase._contact_pairs_exact``: a sort by kind pair, gathers, one kernel call per group), ~0.75 ms
of numpy's fixed costs a frame in ``benchmarks/meshes.py``. ``geometry/compiled/capsule_slots`` runs the
same row routines on the same rows in one compiled call: the answers must be the grouped path's bit for
bit (misses' depths included, both orders of each pair), and the hits must agree with python-fcl away
from touching, and with a hand calculation at touching.
"""

from __future__ import annotations

import fcl
import numpy as np

from collideworld import Box, Capsule, Segment, Sphere, World
from collideworld import narrowphase as nph
from collideworld.bodies import BodyStore, Kind
from collideworld.geometry.compiled import capsule_slots


def unit_quaternion(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def random_store(seed, n):
    """n bodies (balls, boxes, capsules, segments) in a small cube: most near pairs touch or nearly do."""
    rng = np.random.default_rng(seed)
    shapes = []
    for i in range(n):
        r, h = rng.uniform(0.1, 0.5, 2)
        k = i % 4
        shapes.append(Sphere(r) if k == 0 else Box(tuple(rng.uniform(0.1, 0.5, 3))) if k == 1
                      else Capsule((0, 0, -h), (0, 0, h), r) if k == 2
                      else Segment(tuple(rng.uniform(-0.5, 0.5, 3)), tuple(rng.uniform(-0.5, 0.5, 3))))
    store = BodyStore(3)
    s = store.allocate(n)
    store.set_shapes(s, shapes)
    q = np.array([unit_quaternion(rng) for _ in range(n)])
    pos = rng.uniform(-1.6, 1.6, (n, 3))
    store.set_poses(s, pos, quaternion=q)
    return store, s, shapes, pos, q


def capsule_pairs(store, s):
    i, j = np.triu_indices(len(s), 1)
    a, b = s[i], s[j]
    cap = (store.kind[a] == Kind.CAPSULE) | (store.kind[b] == Kind.CAPSULE)
    a, b = a[cap], b[cap]
    return np.concatenate([a, b]), np.concatenate([b, a])  # both orders


def test_kind_codes_agree_with_the_store():
    assert (capsule_slots.BALL, capsule_slots.BOX, capsule_slots.CAPSULE) == (Kind.BALL, Kind.BOX, Kind.CAPSULE)


def test_step_loop_gives_the_grouped_paths_bits(monkeypatch):
    store, s, *_ = random_store(29, 120)
    ia, ib = capsule_pairs(store, s)
    kernels = nph.kernels_for("compiled")
    grouped = nph._contact_pairs_exact(store, ia, ib, kernels)
    seen = []
    real = nph._contact_pairs_exact

    def recording(st, a, b, k):
        seen.append(len(a))
        return real(st, a, b, k)

    monkeypatch.setattr(nph, "_contact_pairs_exact", recording)
    # no bounding-ball reject: every pair through the kernels, misses' depths compared too
    fast = nph._contact_pairs_compiled(store, ia, ib, kernels, reject=False)
    assert seen == [], seen  # no capsule pair left to the grouped path
    hits = int(grouped.hit.sum())
    assert 300 < hits < len(ia) - 300, (hits, len(ia))
    assert np.array_equal(fast.hit, grouped.hit)
    assert np.array_equal(fast.normal.view(np.int64), grouped.normal.view(np.int64))
    assert np.array_equal(fast.depth.view(np.int64), grouped.depth.view(np.int64))


def fcl_geometry(shape):
    if isinstance(shape, Sphere):
        return fcl.Sphere(shape.radius), np.zeros(3), np.eye(3)
    if isinstance(shape, Box):
        return fcl.Box(*(2 * np.asarray(shape.half_extents))), np.zeros(3), np.eye(3)
    # a capsule or segment: fcl's capsule lies along its local z about its centre
    p0, p1 = np.asarray(shape.p0, float), np.asarray(shape.p1, float)
    d = p1 - p0
    length = float(np.linalg.norm(d))
    z = d / length
    x = np.cross(z, [1.0, 0, 0] if abs(z[0]) < 0.9 else [0, 1.0, 0])
    x /= np.linalg.norm(x)
    return fcl.Capsule(shape.radius, length), (p0 + p1) / 2, np.column_stack([x, np.cross(z, x), z])


def test_hits_agree_with_fcl():
    from scipy.spatial.transform import Rotation

    store, s, shapes, pos, q = random_store(31, 80)
    ia, ib = capsule_pairs(store, s)
    half = len(ia) // 2
    res = nph.contact_pairs(store, ia[:half], ib[:half], backend="compiled")
    slot_of = {int(x): k for k, x in enumerate(s)}
    objs = []
    for k, sh in enumerate(shapes):
        g, c, r = fcl_geometry(sh)
        rot = Rotation.from_quat(np.roll(q[k], -1)).as_matrix()  # (w, x, y, z) -> scipy's (x, y, z, w)
        objs.append(fcl.CollisionObject(g, fcl.Transform(rot @ r, pos[k] + rot @ c)))
    agree = decided = 0
    for a, b, hit in zip(ia[:half].tolist(), ib[:half].tolist(), res.hit.tolist(), strict=True):
        oa, ob = objs[slot_of[a]], objs[slot_of[b]]
        dres = fcl.DistanceResult()
        gap = fcl.distance(oa, ob, fcl.DistanceRequest(), dres)
        if gap > 1e-6:
            decided += 1
            agree += not hit
        elif fcl.collide(oa, ob, fcl.CollisionRequest(), fcl.CollisionResult()) and gap <= 0.0:
            decided += 1
            agree += hit
    assert decided > 0.9 * half, (decided, half)
    assert agree == decided, (agree, decided)


def test_touching_pairs_hit_with_depth_zero():
    # exact by hand: each pair touches at one point (coordinates and radii dyadic, so no rounding)
    w = World(dim=3, backend="compiled")
    cap = w.add(Capsule((0, 0, -1), (0, 0, 1), 0.5), (0.0, 0.0, 0.0))
    ball = w.add(Sphere(0.25), (0.75, 0.0, 0.5))
    box = w.add(Box((0.25, 0.25, 0.25)), (0.0, -0.75, 0.0))
    cap2 = w.add(Capsule((-1, 0, 0), (1, 0, 0), 0.5), (0.0, 0.0, 2.0))
    far = w.add(Sphere(0.25), (0.0, 0.8125, 0.0))  # 0.0625 apart
    c = w.step()
    got = {(a, b): (n.tolist(), d) for a, b, n, d in zip(c.a.tolist(), c.b.tolist(), c.normal, c.depth.tolist(),
                                                          strict=True)}
    assert (cap, far) not in got and (far, cap) not in got
    for other, axis in ((ball, [1.0, 0.0, 0.0]), (box, [0.0, -1.0, 0.0]), (cap2, [0.0, 0.0, 1.0])):
        # the normal points from a towards b: from the capsule towards the other body
        n, d = got[(cap, other)] if (cap, other) in got else got[(other, cap)]
        sign = 1.0 if (cap, other) in got else -1.0
        assert d == 0.0, (other, d)
        assert n == [sign * x + 0.0 for x in axis], (other, n)


def test_triangle_rows_written_in_place():
    """The step's triangle loop answers the pairs it is given in the narrowphase's own rows: the same
    bits as ``contact_triangle_slots`` on those pairs gathered, and the other rows untouched."""
    from collideworld import TriangleMesh
    from collideworld.geometry.compiled.contact_triangle import contact_triangle_rows, contact_triangle_slots

    rng = np.random.default_rng(5)
    x, y = np.meshgrid(np.arange(12) * 0.5, np.arange(12) * 0.5)
    verts = np.column_stack([x.ravel(), y.ravel(), 0.2 * rng.random(x.size)])
    a = (np.arange(11)[:, None] * 12 + np.arange(11)[None, :]).ravel()
    tris = np.concatenate([np.column_stack([a, a + 1, a + 13]), np.column_stack([a, a + 13, a + 12])])
    store = BodyStore(3)
    n = 60
    s = store.allocate(n + 1)
    shapes = [Sphere(0.3), Box((0.2, 0.3, 0.25)), Capsule((0, 0, -0.2), (0, 0, 0.2), 0.15)] * (n // 3)
    store.set_shapes(s, shapes + [TriangleMesh(verts, tris)])
    q = np.array([unit_quaternion(rng) for _ in range(n)] + [[1.0, 0, 0, 0]])
    store.set_poses(s, np.vstack([rng.uniform([0, 0, -0.3], [5.5, 5.5, 0.6], (n, 3)), np.zeros((1, 3))]),
                    quaternion=q)
    parts = store.part_slots[store.parts_at[s[n]] + np.arange(len(tris))]
    ia = np.repeat(s[:n], len(tris))
    ib = np.tile(parts, n)
    flip = rng.random(len(ia)) < 0.5
    ia, ib = np.where(flip, ib, ia), np.where(flip, ia, ib)  # the triangle on either side
    ia, ib = np.append(ia, s[:2]), np.append(ib, s[1:3])  # and two pairs of other kinds
    rows = rng.permutation(len(ia))[: len(ia) // 2]
    rows = np.append(rows, [len(ia) - 2, len(ia) - 1])
    hit, normal, depth = np.zeros(len(ia), dtype=bool), np.full((len(ia), 3), 7.0), np.full(len(ia), 7.0)
    cols = (store.kind, store.position, store.rotation, store.radius, store.half, store.seg0, store.seg1, store.tri,
            store.tri_active)
    other = contact_triangle_rows(rows, ia, ib, *cols, hit, normal, depth)
    ref, ref_other = contact_triangle_slots(ia[rows], ib[rows], *cols)
    assert np.array_equal(other, ref_other) and other[-2:].all() and not other[:-2].any()
    done = rows[~other]
    assert 50 < int(hit[done].sum()) < len(done) - 50
    assert np.array_equal(hit[done], ref.hit[~other])
    assert np.array_equal(normal[done].view(np.int64), ref.normal[~other].view(np.int64))
    assert np.array_equal(depth[done].view(np.int64), ref.depth[~other].view(np.int64))
    untouched = np.setdiff1d(np.arange(len(ia)), done)
    assert (normal[untouched] == 7.0).all() and (depth[untouched] == 7.0).all() and not hit[untouched].any()
