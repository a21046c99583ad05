"""The world against its brute-force twin and an independent oracle, step by step.

A hypothesis state machine adds, moves (one and in batches) and removes
bodies of every shape kind, static or not, with filters, and steps. After
every step: ``validate()`` passes on every world; on the compiled backend the
sweep-and-prune worlds' contacts equal the brute-force world's exactly (pairs,
normals, depths, events), and the numpy backend's give the same pairs and
events with normals and depths equal to 1e-12; the brute-force pairs equal the oracle's (shapely in 2D, LP and
closed forms in 3D) on every pair that is not within 1e-9 of touching; and
began/ended equal the set differences of consecutive steps.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, precondition, rule

from collideworld import World
from collideworld.broadphase.adaptive import AdaptiveBroadphase

from . import oracle
from .strategies import categories, make_shape, masks, shape_data, unit_quaternions, world_coords


class _WorldMachine(RuleBasedStateMachine):
    dim = 2
    bodies = Bundle("bodies")

    def __init__(self) -> None:
        super().__init__()
        # the adaptive broadphase tuned to switch strategy often, plus each
        # strategy on its own; all must agree with the brute-force reference
        eager = AdaptiveBroadphase(self.dim, incremental_fraction=0.2, incremental_minimum=1,
                                   quiet_calls_before_rebuild=1)
        # quiet_calls_before_rebuild=0: its sweep-and-prune answers every call
        always_sap = AdaptiveBroadphase(self.dim, incremental_fraction=0.2, incremental_minimum=1,
                                        quiet_calls_before_rebuild=0)
        self.sap = World(self.dim, broadphase=eager, backend="compiled")
        self.others = [World(self.dim, broadphase=always_sap, backend="compiled"),
                       *(World(self.dim, broadphase=name, backend="compiled") for name in ("sap", "batched"))]
        self.ref = World(self.dim, broadphase="brute_force", backend="compiled")
        # the numpy backend: the reference the compiled kernels are written against
        self.numpy = [World(self.dim, broadphase=name, backend="numpy") for name in ("batched", "brute_force")]
        self.worlds = [self.sap, *self.others, self.ref, *self.numpy]
        self.model: dict = {}
        self.prev: set = set()
        self.next_id = 0
        self.planes = 0

    # -- helpers
    def _rotation(self, draw_value):
        return draw_value

    def _geom(self, body_id):
        m = self.model[body_id]
        return oracle.geometry(m["kind"], m["params"], m.get("position"), m.get("rotation"))

    def _pose_kwargs(self, rotation):
        return {"angle": rotation} if self.dim == 2 else {"quaternion": rotation}

    # -- rules
    @rule(target=bodies, data=st.data(), static=st.booleans(), category=categories, mask=masks,
          str_id=st.booleans())
    def add(self, data, static, category, mask, str_id):
        kind, params = data.draw(shape_data(self.dim))
        pos = data.draw(st.lists(world_coords, min_size=self.dim, max_size=self.dim))
        rot = data.draw(st.floats(-3.2, 3.2) if self.dim == 2 else unit_quaternions())
        body_id = f"b{self.next_id}" if str_id else self.next_id
        self.next_id += 1
        for w in self.worlds:
            w.add(make_shape(kind, params), position=pos, static=static, category=category, mask=mask,
                  id=body_id, **self._pose_kwargs(rot))
        self.model[body_id] = dict(kind=kind, params=params, position=np.array(pos), rotation=rot,
                                   static=static, category=category, mask=mask)
        return body_id

    @precondition(lambda self: self.planes < 2)
    @rule(target=bodies, nx=st.floats(-1, 1), ny=st.floats(-1, 1), offset=st.floats(-6, 6))
    def add_plane(self, nx, ny, offset):
        normal = (nx, ny) if self.dim == 2 else (nx, ny, 0.5)
        if np.linalg.norm(normal) < 0.1:
            normal = (0.0, 1.0) if self.dim == 2 else (0.0, 0.0, 1.0)
        kind = "halfplane" if self.dim == 2 else "plane"
        body_id = self.next_id
        self.next_id += 1
        for w in self.worlds:
            w.add(make_shape(kind, (normal, offset)), id=body_id)
        self.model[body_id] = dict(kind=kind, params=(normal, offset), static=True,
                                   category=1, mask=0xFFFFFFFF)
        self.planes += 1
        return body_id

    @rule(body=bodies, data=st.data())
    def move(self, body, data):
        m = self.model.get(body)
        if m is None or m["kind"] in ("halfplane", "plane"):
            return
        pos = data.draw(st.lists(world_coords, min_size=self.dim, max_size=self.dim))
        rot = data.draw(st.one_of(st.none(), st.floats(-3.2, 3.2) if self.dim == 2 else unit_quaternions()))
        for w in self.worlds:
            w.move(body, position=pos, **({} if rot is None else self._pose_kwargs(rot)))
        m["position"] = np.array(pos)
        if rot is not None:
            m["rotation"] = rot

    @rule(data=st.data(), step=st.floats(-0.3, 0.3))
    def move_many(self, data, step):
        movable = [k for k, m in self.model.items() if m["kind"] not in ("halfplane", "plane")]
        if not movable:
            return
        chosen = data.draw(st.lists(st.sampled_from(movable), min_size=1, max_size=len(movable), unique=True))
        pos = np.array([self.model[k]["position"] for k in chosen]) + step
        if self.dim == 2:
            rots = np.array([self.model[k]["rotation"] for k in chosen]) + step
            kw = {"angles": rots}
        else:
            rots = np.array([self.model[k]["rotation"] for k in chosen])
            kw = {"quaternions": rots}
        for w in self.worlds:
            w.move_many(chosen, positions=pos, **kw)
        for k, p, r in zip(chosen, pos, rots, strict=True):
            self.model[k]["position"] = p
            self.model[k]["rotation"] = float(r) if self.dim == 2 else r

    @rule(data=st.data())
    def query_point_sees_every_pose(self, data):
        # queries between a move and the next step must see the new poses
        finite = [k for k, m in self.model.items() if m["kind"] not in ("halfplane", "plane")]
        if not finite:
            return
        near = self.model[data.draw(st.sampled_from(finite))]["position"]
        offset = data.draw(st.lists(st.floats(-1.5, 1.5), min_size=self.dim, max_size=self.dim))
        point = np.asarray(near, float) + np.array(offset)
        probe = oracle.geometry("circle" if self.dim == 2 else "sphere", 0.0, point)
        expected, ambiguous = set(), set()
        for k, m in self.model.items():
            if m["category"] == 0 or m["mask"] == 0:  # the query's all-ones filter, both ways
                continue
            touching, unclear = oracle.pair_touching(probe, self._geom(k))
            if unclear:
                ambiguous.add(k)
            elif touching:
                expected.add(k)
        for w in self.worlds:
            assert set(w.query_point(point)) - ambiguous == expected

    # -- changes in place: the model changes, and the pairs after them must match a world
    # that never saw the change (the oracle); events stay the set differences of steps,
    # so a pair touching through a change is neither ended nor begun

    @rule(body=bodies, static=st.booleans())
    def set_static(self, body, static):
        m = self.model.get(body)
        if m is None or m["kind"] in ("halfplane", "plane"):
            return
        for w in self.worlds:
            w.set_static(body, static)
        m["static"] = static

    @rule(body=bodies, category=st.one_of(st.none(), categories), mask=st.one_of(st.none(), masks))
    def set_filter(self, body, category, mask):
        m = self.model.get(body)
        if m is None:
            return
        for w in self.worlds:
            w.set_filter(body, category=category, mask=mask)
        if category is not None:
            m["category"] = category
        if mask is not None:
            m["mask"] = mask

    @rule(body=bodies, data=st.data())
    def set_shape(self, body, data):
        m = self.model.get(body)
        if m is None or m["kind"] in ("halfplane", "plane"):
            return
        kind, params = data.draw(shape_data(self.dim))
        for w in self.worlds:
            w.set_shape(body, make_shape(kind, params))
        m["kind"], m["params"] = kind, params

    @rule(body=bodies, offset=st.floats(-6, 6))
    def move_plane(self, body, offset):
        m = self.model.get(body)
        if m is None or m["kind"] not in ("halfplane", "plane"):
            return
        normal = m["params"][0]
        for w in self.worlds:
            w.move(body, offset=offset / float(np.linalg.norm(normal)))
        m["params"] = (normal, offset)

    @rule()
    def compact(self):
        self.sap.compact()

    @rule(body=consumes(bodies))
    def remove(self, body):
        if body not in self.model:
            return
        for w in self.worlds:
            w.remove(body)
        if self.model[body]["kind"] in ("halfplane", "plane"):
            self.planes -= 1
        del self.model[body]

    @rule()
    def step(self):
        c_sap = self.sap.step()
        c_ref = self.ref.step()
        # every broadphase gives identical answers, to the bit
        for c in [c_sap] + [w.step() for w in self.others]:
            assert c.a.tolist() == c_ref.a.tolist() and c.b.tolist() == c_ref.b.tolist()
            np.testing.assert_array_equal(c.normal, c_ref.normal)
            np.testing.assert_array_equal(c.depth, c_ref.depth)
            assert list(c.began) == list(c_ref.began) and list(c.ended) == list(c_ref.ended)
        # the numpy backend: the same pairs and events; normals and depths to rounding
        for c in [w.step() for w in self.numpy]:
            assert c.a.tolist() == c_ref.a.tolist() and c.b.tolist() == c_ref.b.tolist()
            np.testing.assert_allclose(c.normal, c_ref.normal, rtol=0, atol=1e-12)
            np.testing.assert_allclose(c.depth, c_ref.depth, rtol=1e-12, atol=1e-12)
            assert list(c.began) == list(c_ref.began) and list(c.ended) == list(c_ref.ended)
        # the reference against the independent oracle
        got = {frozenset(p) for p in c_ref.pairs()}
        bodies = {k: dict(geom=self._geom(k), static=m["static"], category=m["category"], mask=m["mask"])
                  for k, m in self.model.items()}
        expected, ambiguous = oracle.expected_pairs(bodies)
        assert got - ambiguous == expected - ambiguous, (
            f"missing {expected - ambiguous - got}, extra {got - ambiguous - expected}")
        # events are the set differences of consecutive steps. A concave polygon's contacts are per
        # touching piece, so while its body pair touches, one piece pair may begin or end: then the
        # body pair is among the events without being new (or gone) as a pair of bodies.
        began_pairs = {frozenset(p) for p in c_sap.began}
        ended_pairs = {frozenset(p) for p in c_sap.ended}
        began, ended = c_sap.began.rows(), c_sap.ended.rows()
        if all(pa == -1 and pb == -1 for *_, pa, pb in began + ended):
            assert began_pairs == got - self.prev and ended_pairs == self.prev - got
        assert got - self.prev <= began_pairs <= got
        assert self.prev - got <= ended_pairs <= self.prev
        # each (a, b, part_a, part_b) once: a concave polygon's body pair begins once per touching piece
        assert len(set(began)) == len(began) and len(set(ended)) == len(ended)
        # normals are unit, depths non-negative
        if len(c_sap):
            np.testing.assert_allclose(np.linalg.norm(c_sap.normal, axis=1), 1.0, rtol=0, atol=1e-9)
            assert np.all(c_sap.depth >= 0)
        self.prev = got

    @invariant()
    def internal_invariants_hold(self):
        for w in self.worlds:
            w.validate()


class WorldMachine2D(_WorldMachine):
    dim = 2


class WorldMachine3D(_WorldMachine):
    dim = 3


_settings = settings(max_examples=60, stateful_step_count=30, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
TestWorld2D = WorldMachine2D.TestCase
TestWorld2D.settings = _settings
TestWorld3D = WorldMachine3D.TestCase
TestWorld3D.settings = _settings
