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

import numpy as np
import pytest

from collideworld import Box, Circle, CollideWorldError, HalfPlane, Polygon, World
from collideworld.bodies import BodyStore

from .test_queries_batched import brute_rays, brute_shape

pytest.importorskip("numba")

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
