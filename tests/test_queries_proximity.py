"""``query_nearest``, ``query_within`` and ``cast`` against brute force and shapely.

Brute force measures every live body (``proximity.distance`` /
``time_of_impact`` on each), so it shares nothing with the grid search; in
2D, shapely's distance between the world geometries is the oracle for the
distances of apart bodies.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

from collideworld import Box, Circle, CollideWorldError, Sphere, World
from collideworld.proximity import distance, time_of_impact

from . import oracle
from .test_queries_batched import make_world, move_some

BACKENDS = ["numpy", "compiled"]
U32 = 0xFFFFFFFF


def body_pose(w, i):
    b = w.body(i)
    if b.shape.is_infinite:
        return None
    return (b.position, b.angle if w.dim == 2 else b.quaternion)


def brute_distances(w, shape, pose, category=U32, mask=U32):
    out = {}
    for i in w.ids():
        b = w.body(i)
        if b.category & mask and category & b.mask:
            out[i] = distance(b.shape, body_pose(w, i), shape, pose).distance
    return out


def _rot(rng, dim):
    if dim == 2:
        return float(rng.uniform(-np.pi, np.pi))
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", [2, 3])
def test_query_nearest_matches_brute_force(backend, dim):
    w, spec, rng = make_world(dim, backend, seed=900 + dim, n=120)
    w.step()
    move_some(w, spec, rng, frac=0.2)
    probe = Box((0.7, 0.4)) if dim == 2 else Sphere(0.6)
    for _ in range(6):
        pos = rng.uniform(0, 40, dim)
        pose = (pos, _rot(rng, dim))
        want = brute_distances(w, probe, pose, category=1)
        ranked = sorted(want.items(), key=lambda kv: kv[1])
        for k in (1, 4):
            got = w.query_nearest(probe, pose, k=k, category=1)
            assert len(got) == k
            np.testing.assert_allclose([h.distance for h in got], [d for _, d in ranked[:k]], atol=1e-9)
            for h in got:
                assert want[h.id] == pytest.approx(h.distance, abs=1e-9)
        limit = ranked[2][1] + 1e-6
        got = w.query_nearest(probe, pose, k=10, max_distance=limit, category=1)
        assert len(got) == sum(d <= limit for d in want.values())


@pytest.mark.parametrize("backend", BACKENDS)
def test_query_nearest_point_against_shapely(backend):
    w, spec, rng = make_world(2, backend, seed=950, n=120)
    for _ in range(10):
        p = rng.uniform(0, 40, 2)
        hits = w.query_nearest(p, k=3)
        gaps = {}
        for i, (kind, params, pos, rot, _, _) in spec.items():
            g = oracle.geometry(kind, params, pos, rot)
            if g[0] == "poly":
                gaps[i] = shapely.distance(shapely.Point(p), g[1])
            elif g[0] == "circle":
                gaps[i] = max(0.0, float(np.linalg.norm(p - g[1])) - g[2])
            else:
                gaps[i] = max(0.0, float(p @ g[1] - g[2]))
        want = sorted(gaps.values())[:3]
        got = [max(0.0, h.distance) for h in hits]
        np.testing.assert_allclose(got, want, atol=1e-8)
        for h in hits:
            assert h.query_point.tolist() == p.tolist()
            if h.distance > 1e-9:
                assert float(np.linalg.norm(h.point - p)) == pytest.approx(h.distance, abs=1e-8)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", [2, 3])
def test_query_within_matches_brute_force(backend, dim):
    w, spec, rng = make_world(dim, backend, seed=970 + dim, n=120)
    w.step()
    move_some(w, spec, rng, frac=0.2)
    probe = Circle(0.8) if dim == 2 else Box((0.5, 0.6, 0.7))
    for _ in range(6):
        pose = (rng.uniform(0, 40, dim), _rot(rng, dim))
        reach = float(rng.uniform(0.5, 4.0))
        want = brute_distances(w, probe, pose)
        got = w.query_within(probe, pose, reach)
        ids = [h.id for h in got]
        clear = {i for i, d in want.items() if d < reach - 1e-9}
        maybe = {i for i, d in want.items() if abs(d - reach) <= 1e-9}
        assert clear <= set(ids) <= clear | maybe
        assert ids == [i for i in w.ids() if i in set(ids)]  # add order


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", [2, 3])
def test_cast_matches_brute_force(backend, dim):
    w, spec, rng = make_world(dim, backend, seed=990 + dim, n=100)
    w.step()
    move_some(w, spec, rng, frac=0.2)
    probe = Circle(0.5) if dim == 2 else Sphere(0.5)
    for _ in range(4):
        start = (rng.uniform(0, 40, dim), _rot(rng, dim))
        end = (start[0] + rng.uniform(-12, 12, dim), _rot(rng, dim))
        got = w.cast(probe, start, end)
        want = {}
        for i in w.ids():
            b = w.body(i)
            r = time_of_impact(probe, start, end, b.shape, body_pose(w, i), body_pose(w, i))
            if r is not None:
                want[i] = r.t
        assert {h.id: h.t for h in got} == want
        assert [h.t for h in got] == sorted(h.t for h in got)


def test_cast_rotating_box_reaches_beyond_end_boxes():
    # a long thin box turning a quarter turn sweeps past both end poses' boxes
    w = World(2)
    w.add(Circle(0.2), position=(3.0, 3.0), id="post")
    got = w.cast(Box((5.0, 0.1)), ((0.0, 0.0), 0.0), ((0.0, 0.0), math.pi / 2))
    assert [h.id for h in got] == ["post"]


@pytest.mark.parametrize("call", [
    lambda w: w.query_nearest((0.0, 0.0), k=0),
    lambda w: w.query_nearest((0.0, 0.0), k=1.5),
    lambda w: w.query_nearest((0.0, 0.0), pose=((1, 1), 0.0)),
    lambda w: w.query_nearest((0.0, np.nan)),
    lambda w: w.query_nearest(Circle(1.0), ((0.0, 0.0), 0.0), max_distance=-1.0),
    lambda w: w.query_within(Circle(1.0), ((0.0, 0.0), 0.0), -0.5),
    lambda w: w.query_within(Sphere(1.0), ((0.0, 0.0, 0.0), None), 1.0),
    lambda w: w.cast(Circle(1.0), ((0.0, 0.0), 0.0), ((np.inf, 0.0), 0.0)),
    lambda w: w.cast("disc", (0.0, 0.0), (1.0, 0.0)),
])
def test_bad_input(call):
    w = World(2)
    w.add_many(Circle(0.5), [[3, 0], [0, 6]])
    with pytest.raises(CollideWorldError):
        call(w)
    assert w.ids() == [0, 1]
