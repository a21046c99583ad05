"""The store's change journal and the query grid patched from it.

``BodyStore.take_changes`` lists the slots changed since it was last read;
the compiled query index patches its grid from that list only (O(changed)).
Each world here runs on both backends after every single change (move, add,
remove, set_shape, set_static, set_filter, a moved half-plane, a rejected
call), and every query is compared three ways: the compiled world, the
numpy world (which rebuilds its grid), and brute force (``collide()``
against every body; the ray kernels on every body).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from collideworld import Box, Circle, CollideWorldError, HalfPlane, Polygon, World
from collideworld.bodies import BodyStore

from .test_queries_batched import brute_rays, brute_shape

U32 = 0xFFFFFFFF


def test_take_changes_lists_each_changed_slot_once_sorted():
    store = BodyStore(2)
    s = store.allocate(4)
    store.set_shapes(s, [Circle(1.0)] * 4)
    store.take_changes()
    assert store.take_changes().tolist() == []
    store.set_poses(s[[3, 1]], np.zeros((2, 2)), np.zeros(2))
    store.set_poses(s[[1]], np.ones((1, 2)), np.zeros(1))
    store.set_shapes(s[[0]], [Box((1.0, 1.0))])
    assert store.take_changes().tolist() == [0, 1, 3]
    store.release(s[[2]])
    assert store.take_changes().tolist() == [2]
    assert store.take_changes().tolist() == []


def test_take_changes_gives_up_on_renumbering_growth_and_floods():
    store = BodyStore(2, capacity=4)
    s = store.allocate(4)
    store.set_shapes(s, [Circle(1.0)] * 4)
    store.take_changes()
    store.compact()
    assert store.take_changes() is None        # slots renumbered: the reader must look at everything
    store.allocate(20)                         # the arrays grow
    assert store.take_changes() is None
    big = BodyStore(2, capacity=2000)
    slots = big.allocate(2000)
    big.take_changes()
    for k in range(600):                       # more than a quarter of the store, nobody reading
        big.set_poses(slots[k:k + 1], np.zeros((1, 2)), np.zeros(1))
    assert big.take_changes() is None
    assert big.take_changes().tolist() == []   # a fresh journal after it was read


def _pair(seed, n=300, span=30.0):
    rng = np.random.default_rng(seed)
    ws = [World(2, backend=b) for b in ("compiled", "numpy")]
    shapes = [Box((0.5, 0.3)), Circle(0.4), Polygon([(0, 0), (1, 0), (0.3, 0.8)])]
    for w in ws:
        for k in range(n):
            r = np.random.default_rng(seed * 1000 + k)
            w.add(shapes[k % 3], position=r.uniform(0, span, 2), angle=float(r.uniform(-3, 3)), id=k,
                  category=1 + k % 2, mask=U32)
        w.add(HalfPlane((0.0, 1.0), -0.5), id="floor")
        w.step()
    return rng, ws


def _agree(rng, ws, span=30.0):
    """Every query of both worlds agrees, and with brute force."""
    cw, nw = ws
    for _ in range(25):
        p = rng.uniform(-1, span + 1, 2)
        got = cw.query_point(tuple(p.tolist()))
        assert got == nw.query_point(tuple(p.tolist()))
        # brute force with a box of half side 1e-12 for the point: random points are never that near an edge
        dot = Box((1e-12, 1e-12))
        assert got == brute_shape(cw, dot, (p, 0.0))
        cat = int(rng.integers(1, 4))
        assert cw.query_point(p, category=cat, mask=cat) == brute_shape(cw, dot, (p, 0.0), cat, cat)
        box = Box((0.7, 0.4))
        a = float(rng.uniform(-3, 3))
        assert cw.query_shape(box, p, angle=a) == nw.query_shape(box, p, angle=a) == brute_shape(cw, box, (p, a))
        lo = p - 0.5
        assert cw.query_aabb(lo, p) == nw.query_aabb(lo, p)
        d = rng.normal(size=2)
        hits = cw.raycast(p, d, 8.0)
        assert [(h.id, h.distance) for h in hits] == [(h.id, h.distance) for h in nw.raycast(p, d, 8.0)]
        brute = brute_rays(cw, p, d, 8.0)
        assert {h.id for h in hits} == set(brute)
        assert all(abs(h.distance - brute[h.id]) <= 1e-9 * (1 + h.distance) for h in hits)
    pts = rng.uniform(-1, span + 1, (400, 2))
    a, b = cw.query_points(pts), nw.query_points(pts)
    assert a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist()
    cw._index._grid._check()
    _packed_rows_match_the_store(cw)


def _packed_rows_match_the_store(w):
    """The compiled index's packed rows (what its kernels read) hold the store's columns for every live slot."""
    from collideworld.compiled.queries import packed_columns

    st, index = w._store, w._index
    index.refresh()
    live = np.flatnonzero(st.kind >= 0)
    cols = packed_columns(index._packed, st.dim)
    for view, column in zip(cols, (st.kind, st.serial, st.position, st.rotation, st.half, st.radius,
                                   st.bound_radius), strict=True):
        assert np.array_equal(view[live], column[live])
    assert index.arrays is not None
    assert index._packed.ctypes.data % 64 == 0  # rows on cache-line boundaries (the walks load them ahead by line)


@pytest.mark.parametrize("seed", [0, 1])
def test_queries_after_each_kind_of_change(seed):
    rng, ws = _pair(seed)
    _agree(rng, ws)
    index = ws[0]._index
    changes = [
        lambda w: w.move(5, (3.0, 4.0), angle=0.3),
        lambda w: w.move_many([6, 7, 8], [[1.0, 1.0], [29.0, 29.0], [15.0, 15.0]]),
        lambda w: w.add(Circle(0.7), position=(10.0, 10.0), id="new"),
        lambda w: w.remove(9),
        lambda w: w.set_shape(10, Box((2.0, 0.2))),
        lambda w: w.set_static(11, True),
        lambda w: w.set_filter(12, category=4, mask=4),
        lambda w: w.set_shape("floor", HalfPlane((0.0, 1.0), 3.0)),   # the half-plane moves
        lambda w: w.remove("floor"),
        lambda w: w.add(Polygon([(0, 0), (2, 0), (1, 2)]), position=(20.0, 5.0), id="tri"),
    ]
    for change in changes:
        for w in ws:
            change(w)
        grid, before = index._grid, index._changes
        _agree(rng, ws)
        assert index._grid is grid             # patched in place, not rebuilt
        assert index._changes - before <= 3    # the patch looked at the changed bodies only
    for w in ws:
        w.step()
    _agree(rng, ws)


def test_rejected_calls_leave_the_world_and_its_queries_unchanged():
    rng, ws = _pair(3)
    _agree(rng, ws)
    cw = ws[0]
    version = cw._store.version
    for bad in (lambda w: w.move(5, (np.nan, 0.0)), lambda w: w.move("nobody", (0.0, 0.0)),
                lambda w: w.set_shape(5, "not a shape"), lambda w: w.move_many([5, 6], [[0.0, 0.0]]),
                lambda w: w.query_point((1.0,)), lambda w: w.raycast((0.0, 0.0), (0.0, 0.0))):
        for w in ws:
            with pytest.raises(CollideWorldError):
                bad(w)
    assert cw._store.version == version
    assert cw._store.take_changes().tolist() == []
    _agree(rng, ws)


NO_COMPILE_IN_QUERIES_AFTER_WARM_UP = textwrap.dedent("""
    import importlib, pkgutil
    import numpy as np
    import collideworld
    from collideworld import World, Circle, Box, Polygon, HalfPlane, Plane, Sphere
    collideworld.warm_up()
    modules = ["collideworld.spatial.compiled", "collideworld.geometry.gjk", "collideworld.geometry.time_of_impact"]
    modules += ["collideworld.compiled." + m.name
                for m in pkgutil.iter_modules(importlib.import_module("collideworld.compiled").__path__)]
    def signatures():
        found = {}
        for name in modules:
            for attr, obj in vars(importlib.import_module(name)).items():
                if hasattr(obj, "signatures") and hasattr(obj, "py_func"):
                    found[name + "." + attr] = len(obj.signatures)
        return found
    before = signatures()
    rng = np.random.default_rng(0)
    for dim in (2, 3):
        for with_polygons in (True, False):
            w = World(dim=dim, backend="compiled")
            if with_polygons:
                w.add(HalfPlane((0.0, 1.0), -9.0) if dim == 2 else Plane((0.0, 0.0, 1.0), -9.0))
            shapes = [Circle(0.5) if dim == 2 else Sphere(0.5), Box((0.5,) * dim)]
            if dim == 2 and with_polygons:
                shapes.append(Polygon(((0, 0), (1, 0), (0.5, 0.8))))
            for i in range(60):
                w.add(shapes[i % len(shapes)], position=tuple(rng.uniform(0, 12, dim)))
            w.step()
            pts = rng.uniform(0, 12, (30, dim))
            dirs = rng.normal(size=(30, dim))
            p = tuple(pts[0].tolist())
            pose = (p, 0.3) if dim == 2 else (p, (1.0, 0.0, 0.0, 0.0))
            for probe in shapes:
                w.query_shape(probe, p, **({"angle": 0.3} if dim == 2 else {}))
                w.query_shapes(probe, pts)
            w.query_point(p)
            w.query_points(pts)
            w.query_aabb(pts[0] - 1.0, pts[0] + 1.0)
            w.raycast(p, dirs[0], 5.0)
            w.raycast(p, dirs[0])
            w.raycast_many(pts, dirs, 5.0)
            w.raycast_many(pts, dirs)
            w.raycast_many(pts, dirs, all_hits=True)
            w.move(5, position=tuple(rng.uniform(0, 12, dim)))   # the grid is patched from the journal
            w.query_point(p)
            w.query_nearest(p, k=3)
            w.query_within(shapes[1], pose, 2.0)
            w.cast(shapes[0], pose, (tuple((pts[0] + 5.0).tolist()), pose[1]))
        # single rays through capsules, segments, a concave L and compounds: cast inside the compiled kernel
        # (issue 28), whose one specialisation the warm-up compiled
        from collideworld import Capsule, Compound, Segment
        ball = Circle(0.4) if dim == 2 else Sphere(0.4)
        zero = (0.0,) * dim
        kinds = [Capsule(zero, (1.0,) + zero[1:], 0.3), Segment(zero, (0.0, 1.0) + zero[2:]),
                 Compound([(ball, zero), (Box((0.3,) * dim), (1.0,) + zero[1:])])]
        if dim == 2:
            kinds.append(Polygon(((0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2))))
        w = World(dim=dim, backend="compiled")
        for i in range(60):
            w.add(kinds[i % len(kinds)], position=(2.0 * i,) + zero[1:])
        for first in (False, True):
            w.raycast((-3.0,) + (0.2,) * (dim - 1), (1.0,) + zero[1:], all_hits=not first)
            w.raycast((-3.0,) + (0.2,) * (dim - 1), (1.0,) + zero[1:], 30.0, all_hits=not first)
    after = signatures()
    grown = {k: (before.get(k), v) for k, v in after.items() if v != before.get(k)}
    assert not grown, grown
    print("ok")
""")


def test_no_compilation_in_queries_after_warm_up():
    done = subprocess.run([sys.executable, "-c", NO_COMPILE_IN_QUERIES_AFTER_WARM_UP], capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"


def test_ray_fast_path_follows_the_kinds_in_the_world_through_patches():
    # The one-call ray path serves worlds of balls and boxes only; which kinds a world holds is
    # counted from the change journal (O(changed)), not by a scan of every slot each patch. A capsule
    # (and a concave polygon) come and go; each time the rays answer like brute force and the numpy world.
    from collideworld import Capsule

    rng = np.random.default_rng(9)
    worlds = [World(2, backend=b) for b in ("compiled", "numpy")]
    centres = rng.uniform(0, 30, (300, 2))
    for w in worlds:
        w.add_many(Circle(0.6), centres, ids=list(range(300)))
    wc, wn = worlds
    concave = Polygon([(0, 0), (2, 0), (2, 2), (1, 1), (0, 2)])

    def check(expect_fast):
        grid = wc._index.refresh()
        assert grid is not None
        for _ in range(25):
            o, d = rng.uniform(-2, 32, 2), rng.normal(size=2)
            got = wc.raycast(o, d, 20.0)
            assert [h.id for h in got] == [h.id for h in wn.raycast(o, d, 20.0)]
            assert {h.id: h.distance for h in got} == pytest.approx(brute_rays(wc, o, d, 20.0), rel=1e-12, abs=1e-12)

    check(True)
    for w in worlds:
        w.add(Capsule((0, 0), (3, 0), 0.4), (10.0, 10.0), id="cap")
    check(False)
    for w in worlds:
        w.set_shape(5, concave)
    check(False)
    for w in worlds:
        w.remove("cap")
    check(False)  # the concave polygon is still there
    for w in worlds:
        w.set_shape(5, Box((0.5, 0.5)))
    check(True)
    for w in worlds:
        w.move(7, (12.0, 12.0))
        w.set_shape(8, Capsule((0, 0), (1, 0), 0.2))
    check(False)
    for w in worlds:
        w.remove(8)
    check(True)


def _stress_world(backend, dim):
    from collideworld import Sphere

    r = np.random.default_rng(dim)
    w = World(dim, backend=backend)
    for i in range(300):
        s = float(r.uniform(0.2, 1.0))
        shape = (Circle(s) if dim == 2 else Sphere(s)) if i % 2 else Box((s,) * dim)
        w.add(shape, r.uniform(0, 25, dim), id=i, category=int(r.choice([1, 2])))
    w.step()
    return w


def _stress_answers(w, dim):
    r = np.random.default_rng(11)
    pts = r.uniform(-1, 26, (120, dim))
    d = r.normal(size=(120, dim))
    out = []
    for cat, mask in ((U32, U32), (1, 2)):
        a = w.query_points(pts, category=cat, mask=mask)
        out.append((a[0].tolist(), a[1].tolist()))
        a = w.query_shapes(Box((1.5,) * dim), pts, category=cat, mask=mask)
        out.append((a[0].tolist(), a[1].tolist()))
        h = w.raycast_many(pts, d, 6.0, category=cat, mask=mask)
        out.append((h.ray.tolist(), h.id.tolist(), np.round(h.distance, 9).tolist()))
    return out


@pytest.mark.parametrize("dim", [2, 3])
def test_packed_rows_follow_compounds_compaction_and_growth(dim, monkeypatch):
    # the compiled kernels read packed copies of the store's columns: after each change (compounds,
    # shape and filter changes, removals, compaction, growth of the store, moves) the copies hold the
    # store's values, and the batches (one call and split over two threads) answer as the numpy backend
    import collideworld
    from collideworld import Compound, Sphere, queries

    monkeypatch.setattr(queries, "BATCH_PER_THREAD", 8)
    ws = [_stress_world(b, dim) for b in ("numpy", "compiled")]
    ball = Circle if dim == 2 else Sphere
    comp = Compound([(Box((0.5,) * dim), (0.0,) * dim), (ball(0.6), (1.5,) + (0.0,) * (dim - 1))])
    q = np.random.default_rng(9).normal(size=4)
    pose = {"angle": 0.7} if dim == 2 else {"quaternion": q / np.linalg.norm(q)}
    changes = [
        lambda w: w.add(comp, np.full(dim, 5.0), id="c1", **pose),
        lambda w: w.move("c1", np.full(dim, 12.0), **pose),
        lambda w: w.set_shape(3, comp),
        lambda w: w.set_shape("c1", ball(2.0)),
        lambda w: w.set_shape(5, ball(3.0)),
        lambda w: w.set_shape(4, Box((3.0,) * dim)),
        lambda w: w.set_filter(7, category=2, mask=1),
        lambda w: w.remove_many(list(range(20, 60))),
        lambda w: w.compact(),
        lambda w: w.add_many(Box((0.4,) * dim), np.random.default_rng(3).uniform(0, 25, (400, dim))),
        lambda w: w.move_many(list(range(100, 140)), np.random.default_rng(4).uniform(0, 25, (40, dim))),
        lambda w: w.compact(),
        lambda w: w.move(3, np.full(dim, 20.0)),
    ]
    try:
        for change in changes:
            for w in ws:
                change(w)
            want = _stress_answers(ws[0], dim)
            for threads in (1, 2):
                collideworld.set_threads(threads)
                assert _stress_answers(ws[1], dim) == want
            _packed_rows_match_the_store(ws[1])
    finally:
        collideworld.set_threads(1)
