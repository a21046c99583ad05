"""``query_nearest``, ``query_within`` and ``cast`` in worlds of every shape kind, on the compiled path.

The worlds of ``test_raycast_kinds`` (2D: circles, boxes, convex and concave
polygons, capsules, segments, compounds, a half-plane; 3D: spheres, boxes,
capsules, segments, hulls, compounds, a plane), with filters. References:

* the numpy backend (which measures every candidate with the scalar
  ``proximity.distance`` / ``time_of_impact``): the same ids, distances and
  times;
* brute force: the scalar functions on every live body, no index;
* shapely (2D): the distance between the query's and each body's outline
  (circles and capsules as 256-gons) for the apart bodies, and for casts
  the swept shape checked with shapely at its reported time (touching) and
  at sampled earlier times (apart).

And the compiled backend answers them without the numpy path
(``collideworld.queries.numpy_path_counts``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

from collideworld import Box, Capsule, Circle, Compound, Polygon, Sphere
from collideworld.proximity import distance, time_of_impact
from collideworld.queries import numpy_path_counts

from .test_raycast_kinds import _outline, make_world

U32 = 0xFFFFFFFF


def _pose(w, i):
    b = w.body(i)
    if b.shape.is_infinite:
        return None
    return (b.position, b.angle if w.dim == 2 else b.quaternion)


def _probes(dim):
    if dim == 2:
        return [Circle(0.6), Box((0.8, 0.3)), Polygon([[0, 0], [1.5, 0], [1.5, 0.5], [0.5, 0.5], [0.5, 1.5],
                                                        [0, 1.5]]),
                Capsule((-0.5, 0.0), (0.5, 0.2), 0.3),
                Compound([(Circle(0.3), (0.0, 0.0)), (Box((0.2, 0.4)), (0.7, 0.0))])]
    return [Sphere(0.6), Box((0.5, 0.3, 0.4)), Capsule((-0.4, 0.0, 0.0), (0.4, 0.2, 0.1), 0.3)]


def _rot(rng, dim):
    if dim == 2:
        return float(rng.uniform(-np.pi, np.pi))
    q = rng.normal(size=4)
    return tuple((q / np.linalg.norm(q)).tolist())


def _brute(w, shape, pose, category=U32, mask=U32):
    out = {}
    for i in w.ids():
        b = w.body(i)
        if b.category & mask and category & b.mask:
            out[i] = distance(b.shape, _pose(w, i), shape, pose).distance
    return out


def _same_hits(a, b):
    assert [h.id for h in a] == [h.id for h in b]
    for x, y in zip(a, b, strict=True):
        assert x.distance == pytest.approx(y.distance, rel=1e-12, abs=1e-12)
        np.testing.assert_allclose(x.point, y.point, atol=1e-9)
        np.testing.assert_allclose(x.query_point, y.query_point, atol=1e-9)


@pytest.mark.parametrize("dim", [2, 3])
def test_nearest_and_within_every_kind_agree_with_numpy_and_brute_force(dim):
    wc, rng = make_world(dim, "compiled", 31 + dim, n=140)
    wn, _ = make_world(dim, "numpy", 31 + dim, n=140)
    span = 30.0 if dim == 2 else 12.0
    numpy_path_counts(reset=True)
    compared = overlapped = 0
    for j in range(36):
        probe = _probes(dim)[j % len(_probes(dim))]
        pose = (tuple(rng.uniform(0, span, dim).tolist()), _rot(rng, dim))
        cat, msk = [(U32, U32), (1, U32), (U32, 2)][j % 3]
        want = _brute(wc, probe, pose, cat, msk)
        ranked = sorted(want.items(), key=lambda kv: kv[1])
        overlapped += sum(d < 0 for d in want.values())
        for k in (1, 5):
            got = wc.query_nearest(probe, pose, k=k, category=cat, mask=msk)
            _same_hits(got, wn.query_nearest(probe, pose, k=k, category=cat, mask=msk))
            np.testing.assert_allclose([h.distance for h in got], [d for _, d in ranked[:k]], atol=1e-9)
            for h in got:
                assert want[h.id] == pytest.approx(h.distance, abs=1e-9)
        reach = float(rng.uniform(0.5, 4.0))
        got = wc.query_within(probe, pose, reach, category=cat, mask=msk)
        _same_hits(got, wn.query_within(probe, pose, reach, category=cat, mask=msk))
        clear = {i for i, d in want.items() if d < reach - 1e-9}
        maybe = {i for i, d in want.items() if abs(d - reach) <= 1e-9}
        assert clear <= {h.id for h in got} <= clear | maybe
        compared += len(got)
        # a point query too (a tiny ball, its radius given back)
        p = rng.uniform(0, span, dim)
        _same_hits(wc.query_nearest(p, k=3, category=cat, mask=msk), wn.query_nearest(p, k=3, category=cat, mask=msk))
    assert compared > 100 and overlapped > 5
    assert numpy_path_counts() == {}


def _shapely_probe(shape, pos, ang):
    rot = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
    if isinstance(shape, Circle):
        return shapely.Point(pos).buffer(shape.radius, 64)
    hx, hy = shape.half_extents
    return shapely.Polygon(np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]]) @ rot.T + np.asarray(pos))


def test_nearest_2d_apart_distances_agree_with_shapely():
    """2D: every apart hit's distance is shapely's distance between the outlines (to the 256-gons' error)."""
    w, rng = make_world(2, "compiled", 41, n=140)
    agree = 0
    for j in range(40):
        probe = [Circle(0.5), Box((0.7, 0.4))][j % 2]
        pos, ang = rng.uniform(0, 30, 2), float(rng.uniform(-np.pi, np.pi))
        g = _shapely_probe(probe, pos, ang)
        for h in w.query_nearest(probe, (tuple(pos.tolist()), ang), k=4):
            body = _outline(w, h.id)
            if body is None or h.distance <= 1e-6:
                continue
            assert abs(shapely.distance(g, body) - h.distance) < 2e-3
            agree += 1
    assert agree > 80


@pytest.mark.parametrize("dim", [2, 3])
def test_cast_every_kind_agrees_with_numpy_and_brute_force(dim):
    wc, rng = make_world(dim, "compiled", 51 + dim, n=120)
    wn, _ = make_world(dim, "numpy", 51 + dim, n=120)
    span = 30.0 if dim == 2 else 12.0
    numpy_path_counts(reset=True)
    hits = 0
    for j in range(12):
        probe = _probes(dim)[j % len(_probes(dim))]
        start = (tuple(rng.uniform(0, span, dim).tolist()), _rot(rng, dim))
        end = (tuple((np.asarray(start[0]) + rng.uniform(-8, 8, dim)).tolist()), _rot(rng, dim))
        cat, msk = [(U32, U32), (1, U32), (U32, 2)][j % 3]
        got = wc.cast(probe, start, end, category=cat, mask=msk)
        ref = wn.cast(probe, start, end, category=cat, mask=msk)
        assert [(h.id, h.t) for h in got] == [(h.id, h.t) for h in ref]
        for x, y in zip(got, ref, strict=True):
            np.testing.assert_allclose(x.normal, y.normal, atol=1e-9)
            np.testing.assert_allclose(x.point, y.point, atol=1e-9)
        want = {}
        for i in wc.ids():
            b = wc.body(i)
            if not (b.category & msk and cat & b.mask):
                continue
            r = time_of_impact(probe, start, end, b.shape, _pose(wc, i), _pose(wc, i))
            if r is not None:
                want[i] = r.t
        assert {h.id: h.t for h in got} == want
        assert [h.t for h in got] == sorted(h.t for h in got)
        hits += len(got)
    assert hits > 15
    assert numpy_path_counts() == {}


def test_cast_2d_times_agree_with_shapely():
    """2D: at each reported time the moving shape touches the body (shapely), and at sampled earlier times
    it is apart; bodies not reported stay apart all along (sampled)."""
    w, rng = make_world(2, "compiled", 61, n=120)
    checked = 0
    for j in range(16):
        probe = [Circle(0.5), Box((0.7, 0.4))][j % 2]
        p0 = rng.uniform(0, 30, 2)
        p1 = p0 + rng.uniform(-8, 8, 2)
        a0, a1 = float(rng.uniform(-np.pi, np.pi)), float(rng.uniform(-np.pi, np.pi))
        got = {h.id: h.t for h in w.cast(probe, (tuple(p0.tolist()), a0), (tuple(p1.tolist()), a1))}

        def at(s, probe=probe, p0=p0, p1=p1, a0=a0, a1=a1):
            return _shapely_probe(probe, p0 + s * (p1 - p0), a0 + s * (a1 - a0))

        for i in w.ids():
            body = _outline(w, i)
            if body is None:
                continue
            if i in got:
                t = got[i]
                assert shapely.distance(at(t), body) < 2e-3
                for s in np.linspace(0.0, t, 12)[:-1]:
                    if t - s > 1e-3:
                        assert not at(s).buffer(-2e-3).intersects(body)
                checked += 1
            else:
                for s in np.linspace(0.0, 1.0, 24):
                    assert not at(s).buffer(-2e-3).intersects(body)
    assert checked > 10


@pytest.mark.parametrize("dim", [2, 3])
def test_nearest_follows_shape_changes_and_removals(dim):
    """The compiled path's packed shapes follow ``set_shape``, ``remove`` and ``add``: brute force agrees."""
    w, rng = make_world(dim, "compiled", 71 + dim, n=80)
    span = 30.0 if dim == 2 else 12.0
    probe = _probes(dim)[1]
    kinds = _probes(dim)
    numpy_path_counts(reset=True)
    for round_ in range(4):
        for _ in range(10):
            pose = (tuple(rng.uniform(0, span, dim).tolist()), _rot(rng, dim))
            want = sorted(_brute(w, probe, pose).values())[:3]
            got = [h.distance for h in w.query_nearest(probe, pose, k=3)]
            np.testing.assert_allclose(got, want, atol=1e-9)
        ids = [i for i in w.ids() if i != "ground"]
        for i in rng.choice(len(ids), 10, replace=False).tolist():
            w.set_shape(ids[i], kinds[int(rng.integers(len(kinds)))])
        w.remove(ids[int(rng.integers(len(ids)))])
        w.add(kinds[round_ % len(kinds)], tuple(rng.uniform(0, span, dim).tolist()), id=f"new{round_}")
    assert numpy_path_counts() == {}
