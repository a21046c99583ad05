"""Capsules whose cores are parallel and overlap along their axis, in general orientations (issue 25, item 1).

By construction (a hand calculation): cores on parallel lines ``h`` apart,
overlapping along the axis, give the depth ``r_a + r_b - h`` along the
perpendicular from a's line to b's (any perpendicular when ``h = 0``), never
with an axial component. python-fcl is the oracle for the minimum
translation: b moved by ``depth + 1e-3`` along the normal is 1e-3 from a.
distance()'s witness points must satisfy ``point_b - point_a == distance *
normal`` and lie in their capsules.

Rounding made such cores slightly skew, and the kernel took the direction
of their cross product, which is then noise: ``normal . axis = -0.142`` for
the reported pair, and witness points 5.9 apart for a depth of 3.5.
"""

from __future__ import annotations

import fcl
import numpy as np
import pytest

from collideworld import Capsule, collide, distance
from collideworld.backend import compiled_available
from collideworld.geometry.rotation import rotation_matrix_3d

BACKENDS = ["numpy"] + (["compiled"] if compiled_available() else [])


def _unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def _world_core(cap: Capsule, pos, rot) -> tuple[np.ndarray, np.ndarray]:
    return rot @ np.array(cap.p0) + pos, rot @ np.array(cap.p1) + pos


def _fcl_capsule(cap: Capsule, pos, rot) -> fcl.CollisionObject:
    p0, p1 = _world_core(cap, pos, rot)
    z = _unit(p1 - p0)
    helper = np.array([1.0, 0, 0]) if abs(z[0]) < 0.9 else np.array([0, 1.0, 0])
    x = _unit(np.cross(helper, z))
    frame = np.stack([x, np.cross(z, x), z], axis=1)
    return fcl.CollisionObject(fcl.Capsule(cap.radius, float(np.linalg.norm(p1 - p0))),
                               fcl.Transform(frame, (p0 + p1) / 2))


def _fcl_distance(ca, pa, ra, cb, pb, rb) -> float:
    return float(fcl.distance(_fcl_capsule(ca, pa, ra), _fcl_capsule(cb, pb, rb), fcl.DistanceRequest(),
                              fcl.DistanceResult()))


def _to_core(x, p0, p1) -> float:
    d = p1 - p0
    t = float(np.clip(np.dot(x - p0, d) / np.dot(d, d), 0.0, 1.0))
    return float(np.linalg.norm(x - (p0 + t * d)))


def _parallel_pair(rng: np.random.Generator, offset: str):
    axis = _unit(rng.normal(size=3))
    across = _unit(np.cross(axis, rng.normal(size=3)))
    ra, rb = rng.uniform(0.2, 2.0, 2)
    if offset == "zero":
        h = 0.0
    elif offset == "tiny":
        h = 1e-12
    else:
        h = float(rng.uniform(0.0, 0.9 * (ra + rb)))
    la = rng.uniform(0.5, 2.0)
    s0 = rng.uniform(-la - 1.0, la - 0.1)  # b's core starts before a's ends ...
    s1 = rng.uniform(max(s0 + 0.1, -la + 0.1), la + 2.0)  # ... and ends after a's starts: they overlap
    a = Capsule(tuple(-la * axis), tuple(la * axis), float(ra))
    b = Capsule(tuple(s0 * axis + h * across), tuple(s1 * axis + h * across), float(rb))
    return a, b, axis, across, float(ra + rb - h)


def test_issue_pair() -> None:
    a = _unit((0.3, -0.7, 0.2))
    cap_a, cap_b = Capsule(tuple(-1.25 * a), tuple(1.25 * a), 1.5), Capsule((0, 0, 0), tuple(3 * a), 2.0)
    ident = ((0, 0, 0), (1, 0, 0, 0))
    for backend in BACKENDS:
        c = collide(cap_a, ident, cap_b, ident, backend=backend)
        assert c is not None and abs(c.depth - 3.5) < 1e-12 and abs(c.normal @ a) < 1e-12
    r = distance(cap_a, ident, cap_b, ident)
    assert r is not None and abs(r.distance + 3.5) < 1e-12
    assert np.allclose(r.point_b - r.point_a, r.distance * r.normal, atol=1e-9)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("offset", ["zero", "tiny", "random"])
def test_parallel_overlapping_cores_push_across_the_axis(backend: str, offset: str) -> None:
    rng = np.random.default_rng([25, 1, len(offset), len(backend)])
    for i in range(100):
        a, b, axis, across, depth = _parallel_pair(rng, offset)
        if i % 2:  # the cores as given, both bodies at the identity (as reported)
            q, pos = np.array([1.0, 0, 0, 0]), np.zeros(3)
        else:  # the same pair carried by a random common pose
            q, pos = _unit(rng.normal(size=4)), rng.uniform(-2, 2, 3)
        rot = rotation_matrix_3d(q[None])[0]
        c = collide(a, (pos, q), b, (pos, q), backend=backend)
        assert c is not None, i
        assert abs(c.depth - depth) < 1e-9, (i, c.depth, depth)
        assert abs(c.normal @ (rot @ axis)) < 1e-9, (i, c.normal, rot @ axis)
        if offset == "random" and depth < 0.9 * (a.radius + b.radius):  # a gap across the axis to push along
            assert np.allclose(c.normal, rot @ across, atol=1e-9), (i, c.normal, rot @ across)
        # fcl: moved by a little more than the depth along the normal, b is that little from a
        moved = pos + (c.depth + 1e-3) * c.normal
        assert abs(_fcl_distance(a, pos, rot, b, moved, rot) - 1e-3) < 1e-6, i
        if backend == "numpy":
            continue
        r = distance(a, (pos, q), b, (pos, q))
        assert r is not None and abs(r.distance + depth) < 1e-9, (i, r)
        assert np.allclose(r.point_b - r.point_a, r.distance * r.normal, atol=1e-9), (i, r)
        assert _to_core(r.point_a, *_world_core(a, pos, rot)) <= a.radius + 1e-9, (i, r)
        assert _to_core(r.point_b, *_world_core(b, pos, rot)) <= b.radius + 1e-9, (i, r)
