"""Query shapes that lie off their origin: spinning offset shapes in ``cast``, compounds with far-apart parts.

Oracles, none sharing the query grid or collideworld's geometry:

* ``cast``: the motion sampled densely (positions linear, a 2D angle linear,
  a 3D rotation along the shortest arc through scipy's rotation vectors),
  each sampled pose measured against every target with shapely (2D) or the
  closed-form distance of a point to a segment or a box (3D). A target
  overlapped at a sampled pose is hit by the motion, so ``cast`` must return
  it. ``cast`` is also compared with ``time_of_impact`` on every body in
  turn, without the index.
* ``query_within`` / ``query_nearest`` / ``query_shape(s)`` with compounds:
  the signed distance of every target disc or ball to every part, by
  shapely (2D polygons) or in closed form (circles, spheres, boxes), the
  compound's being the least over its parts. Targets within 1e-7 of a
  threshold are left undecided.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from scipy.spatial.transform import Rotation

from collideworld import Box, Capsule, Circle, Compound, Polygon, Segment, Sphere, World
from collideworld.proximity import time_of_impact

BACKENDS = ["numpy", "compiled"]
SAMPLES = 1500
MARGIN = 1e-7


def _rot2(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s], [s, c]])


def _scipy_rot(q):
    w, x, y, z = q
    return Rotation.from_quat([x, y, z, w])  # scipy is scalar-last


def _wxyz(r):
    x, y, z, w = r.as_quat()
    return (float(w), float(x), float(y), float(z))


# -- item 7: World.cast sweeps what a spinning offset shape sweeps ----------------------

def _offset_shape_2d(rng):
    """A random 2D shape far off its origin (the hinge): (shape, local core points, core radius)."""
    length = float(rng.uniform(1.5, 4.0))
    width = float(rng.uniform(0.05, 0.3))
    start = float(rng.uniform(-0.3, 1.5))  # where the shape begins along its arm
    phi = float(rng.uniform(-np.pi, np.pi))
    off = rng.uniform(-0.5, 0.5, 2)
    rot = _rot2(phi)
    kind = rng.choice(["polygon", "compound", "capsule", "segment"])
    if kind == "polygon":
        local = np.array([[start, -width], [start + length, -width], [start + length, width], [start, width]])
        pts = local @ rot.T + off
        return Polygon([tuple(p) for p in pts.tolist()]), pts, 0.0
    if kind == "compound":
        centre = rot @ np.array([start + length / 2, 0.0]) + off
        box = Box((length / 2, width))
        corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [length / 2, width]
        pts = corners @ rot.T + centre
        return Compound([(box, tuple(centre.tolist()), phi)]), pts, 0.0
    ends = np.array([[start, 0.0], [start + length, 0.0]]) @ rot.T + off
    p0, p1 = tuple(ends[0].tolist()), tuple(ends[1].tolist())
    if kind == "capsule":
        return Capsule(p0, p1, width), ends, width
    return Segment(p0, p1), ends, 0.0


def _sampled_hits_2d(pts, core_r, p0, p1, a0, a1, centres, radii):
    """Targets overlapped by the shape at some sampled pose of the motion (shapely distances)."""
    t = np.linspace(0.0, 1.0, SAMPLES)
    ang = a0 + t * (a1 - a0)
    c, s = np.cos(ang), np.sin(ang)
    rot = np.stack([np.stack([c, -s], axis=1), np.stack([s, c], axis=1)], axis=1)  # (N, 2, 2)
    pos = p0 + t[:, None] * (p1 - p0)
    world = np.einsum("nij,kj->nki", rot, pts) + pos[:, None, :]
    geoms = shapely.polygons(world) if len(pts) >= 3 else shapely.linestrings(world)
    gap = shapely.distance(geoms[:, None], shapely.points(centres)[None, :]) - core_r - radii[None, :]
    return set(np.flatnonzero((gap < -MARGIN).any(axis=0)).tolist())


def _offset_shape_3d(rng):
    """A random 3D shape far off its origin: (shape, kind, local data)."""
    length = float(rng.uniform(1.5, 4.0))
    width = float(rng.uniform(0.05, 0.3))
    start = float(rng.uniform(-0.3, 1.5))
    frame = Rotation.random(random_state=int(rng.integers(2**31)))
    off = rng.uniform(-0.5, 0.5, 3)
    if rng.random() < 0.5:
        ends = frame.apply(np.array([[start, 0.0, 0.0], [start + length, 0.0, 0.0]])) + off
        return Capsule(tuple(ends[0].tolist()), tuple(ends[1].tolist()), width), "capsule", (ends, width)
    half = np.array([length / 2, width, float(rng.uniform(0.05, 0.3))])
    centre = frame.apply([start + length / 2, 0.0, 0.0]) + off
    part = (Box(tuple(half.tolist())), tuple(centre.tolist()), _wxyz(frame))
    return Compound([part]), "box", (centre, frame, half)


def _sampled_hits_3d(kind, data, p0, p1, q0, q1, centres, radii):
    """Targets overlapped at some sampled pose: closed-form point-segment and point-box distances."""
    t = np.linspace(0.0, 1.0, SAMPLES)
    r0 = _scipy_rot(q0)
    turn = (r0.inv() * _scipy_rot(q1)).as_rotvec()  # the shortest arc: at most pi
    rots = r0 * Rotation.from_rotvec(t[:, None] * turn[None, :])
    pos = p0 + t[:, None] * (p1 - p0)
    mats = rots.as_matrix()  # (N, 3, 3)
    rel = centres[None, :, :] - pos[:, None, :]  # targets relative to the moving origin, world axes
    local = np.einsum("nji,nkj->nki", mats, rel)  # ... in the moving shape's frame
    if kind == "capsule":
        (a, b), core_r = data
        ab = b - a
        u = np.clip(np.einsum("nkd,d->nk", local - a, ab) / (ab @ ab), 0.0, 1.0)
        gap = np.linalg.norm(local - (a + u[..., None] * ab), axis=2) - core_r
    else:
        centre, frame, half = data
        in_box = frame.inv().apply((local - centre).reshape(-1, 3)).reshape(local.shape)
        q = np.abs(in_box) - half
        gap = np.linalg.norm(np.maximum(q, 0.0), axis=2) + np.minimum(q.max(axis=2), 0.0)
    gap = gap - radii[None, :]
    return set(np.flatnonzero((gap < -MARGIN).any(axis=0)).tolist())


def _cast_world(backend, dim, centres, radii, rng):
    """Targets (ids 0 ..), plus far bodies so that the grid is in use."""
    w = World(dim, backend=backend)
    for i, (c, r) in enumerate(zip(centres, radii, strict=True)):
        w.add(Circle(float(r)) if dim == 2 else Sphere(float(r)), tuple(c.tolist()), id=i)
    for j in range(60):
        far = rng.uniform(30.0, 60.0, dim) * rng.choice([-1.0, 1.0], dim)
        w.add(Circle(0.5) if dim == 2 else Sphere(0.5), tuple(far.tolist()), id=f"far{j}")
    return w


def _brute_cast(w, shape, start, end):
    """Every body's ``time_of_impact`` with the motion, one at a time (no index)."""
    out = set()
    for i in w.ids():
        b = w.body(i)
        bp = (b.position, b.angle if w.dim == 2 else b.quaternion)
        if time_of_impact(shape, start, end, b.shape, bp, bp) is not None:
            out.add(i)
    return out


def test_cast_spinning_blade_issue_example():
    blade = Polygon([(0, -0.1), (3, -0.1), (3, 0.1), (0, 0.1)])
    for backend in BACKENDS:
        w = World(2, backend=backend)
        w.add(Circle(0.4), (-2.5, 0.0), id="post")
        got = w.cast(blade, ((0.0, 0.0), 0.0), ((0.0, 0.0), 2 * math.pi - 0.3))
        assert [h.id for h in got] == ["post"], backend


@pytest.mark.parametrize("backend", BACKENDS)
def test_cast_spinning_offset_shapes_2d_match_sampled_motion(backend):
    rng = np.random.default_rng(7025)
    sampled_total = 0
    for _ in range(30):
        shape, pts, core_r = _offset_shape_2d(rng)
        p0 = rng.uniform(-1.0, 1.0, 2)
        p1 = p0 if rng.random() < 0.5 else p0 + rng.uniform(-1.5, 1.5, 2)  # in place, or moving a little
        a0 = float(rng.uniform(-np.pi, np.pi))
        a1 = a0 + float(rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 2 * np.pi - 0.1))
        reach = shape.bounding_radius + 1.0
        m = 25
        rho = rng.uniform(0.0, reach, m)
        theta = rng.uniform(-np.pi, np.pi, m)
        centres = p0 + np.c_[rho * np.cos(theta), rho * np.sin(theta)]
        radii = rng.uniform(0.1, 0.5, m)
        w = _cast_world(backend, 2, centres, radii, rng)
        start, end = (tuple(p0.tolist()), a0), (tuple(p1.tolist()), a1)
        got = {h.id for h in w.cast(shape, start, end)}
        sampled = _sampled_hits_2d(pts, core_r, p0, p1, a0, a1, centres, radii)
        assert sampled <= got, (shape, start, end, sorted(sampled - got))
        assert got == _brute_cast(w, shape, start, end)
        sampled_total += len(sampled)
    assert sampled_total > 100  # the family does reach its targets


@pytest.mark.parametrize("backend", BACKENDS)
def test_cast_spinning_offset_shapes_3d_match_sampled_motion(backend):
    rng = np.random.default_rng(7026)
    sampled_total = 0
    for _ in range(24):
        shape, kind, data = _offset_shape_3d(rng)
        p0 = rng.uniform(-1.0, 1.0, 3)
        p1 = p0 if rng.random() < 0.5 else p0 + rng.uniform(-1.5, 1.5, 3)
        r0 = Rotation.random(random_state=int(rng.integers(2**31)))
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        r1 = r0 * Rotation.from_rotvec(axis * rng.uniform(0.5, np.pi - 0.05))
        q0, q1 = _wxyz(r0), _wxyz(r1)
        reach = shape.bounding_radius + 1.0
        m = 40
        direction = rng.normal(size=(m, 3))
        direction /= np.linalg.norm(direction, axis=1)[:, None]
        centres = p0 + direction * rng.uniform(0.0, reach, m)[:, None]
        radii = rng.uniform(0.2, 0.6, m)
        w = _cast_world(backend, 3, centres, radii, rng)
        start, end = (tuple(p0.tolist()), q0), (tuple(p1.tolist()), q1)
        got = {h.id for h in w.cast(shape, start, end)}
        sampled = _sampled_hits_3d(kind, data, p0, p1, q0, q1, centres, radii)
        assert sampled <= got, (shape, start, end, sorted(sampled - got))
        assert got == _brute_cast(w, shape, start, end)
        sampled_total += len(sampled)
    assert sampled_total > 100


# -- item 8: compound query shapes are searched in the box of all their parts ----------

def _compound_2d(rng):
    """A compound of 2-4 parts spread over ~20 units: (Compound, parts as oracle data)."""
    k = int(rng.integers(2, 5))
    parts, data = [], []
    for j in range(k):
        local = rng.uniform(-10.0, 10.0, 2) if j else np.zeros(2)
        if j == 1:  # one part far from the origin
            away = float(rng.uniform(-np.pi, np.pi))
            local = rng.uniform(8.0, 12.0) * np.array([math.cos(away), math.sin(away)])
        ang = float(rng.uniform(-np.pi, np.pi))
        kind = rng.choice(["circle", "box", "polygon"])
        if kind == "circle":
            r = float(rng.uniform(0.3, 1.0))
            parts.append((Circle(r), tuple(local.tolist())))
            data.append(("circle", local, r))
            continue
        if kind == "box":
            h = rng.uniform(0.3, 1.0, 2)
            verts = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * h
            parts.append((Box(tuple(h.tolist())), tuple(local.tolist()), ang))
        else:
            a = np.sort(rng.uniform(0, 2 * np.pi, 3)) + np.array([0.0, 0.7, 1.4])  # a triangle, not too thin
            verts = rng.uniform(0.5, 1.0) * np.c_[np.cos(a), np.sin(a)]
            parts.append((Polygon([tuple(v) for v in verts.tolist()]), tuple(local.tolist()), ang))
        data.append(("poly", local, verts @ _rot2(ang).T))
    return Compound(parts), data


def _signed_2d(data, pos, angle, centres, radii):
    """Signed distance (minus the depth when overlapping) of every target disc to the posed compound."""
    rot = _rot2(angle)
    best = np.full(len(centres), np.inf)
    for kind, local, geo in data:
        c = rot @ local + pos
        if kind == "circle":
            d = np.linalg.norm(centres - c, axis=1) - geo
        else:
            poly = shapely.Polygon(geo @ rot.T + c)
            pts = shapely.points(centres)
            outside = shapely.distance(poly, pts)
            inside = shapely.distance(poly.exterior, pts)  # a convex part: the depth of a centre inside
            d = np.where(outside > 0, outside, -inside)
        best = np.minimum(best, d - radii)
    return best


def _compound_3d(rng):
    k = int(rng.integers(2, 5))
    parts, data = [], []
    for j in range(k):
        local = rng.uniform(-10.0, 10.0, 3) if j else np.zeros(3)
        if j == 1:
            v = rng.normal(size=3)
            local = rng.uniform(8.0, 12.0) * v / np.linalg.norm(v)
        if rng.random() < 0.5:
            r = float(rng.uniform(0.3, 1.0))
            parts.append((Sphere(r), tuple(local.tolist())))
            data.append(("sphere", local, None, r))
        else:
            h = rng.uniform(0.3, 1.0, 3)
            frame = Rotation.random(random_state=int(rng.integers(2**31)))
            parts.append((Box(tuple(h.tolist())), tuple(local.tolist()), _wxyz(frame)))
            data.append(("box", local, frame, h))
    return Compound(parts), data


def _signed_3d(data, pos, quat, centres, radii):
    rot = _scipy_rot(quat)
    best = np.full(len(centres), np.inf)
    for kind, local, frame, size in data:
        c = rot.apply(local) + pos
        if kind == "sphere":
            d = np.linalg.norm(centres - c, axis=1) - size
        else:
            q = np.abs((rot * frame).inv().apply(centres - c)) - size
            d = np.linalg.norm(np.maximum(q, 0.0), axis=1) + np.minimum(q.max(axis=1), 0.0)
        best = np.minimum(best, d - radii)
    return best


def _target_world(backend, dim, rng, n=200, span=30.0):
    w = World(dim, backend=backend)
    centres = rng.uniform(-span, span, (n, dim))
    radii = rng.uniform(0.2, 1.0, n)
    for i in range(n):
        w.add(Circle(float(radii[i])) if dim == 2 else Sphere(float(radii[i])), tuple(centres[i].tolist()), id=i)
    return w, centres, radii


def _decided(dist, limit):
    """(ids surely within ``limit``, ids surely beyond it)."""
    return set(np.flatnonzero(dist <= limit - MARGIN).tolist()), set(np.flatnonzero(dist > limit + MARGIN).tolist())


def test_compound_query_issue_example():
    for backend in BACKENDS:
        for dim in (2, 3):
            w = World(dim, backend=backend)
            ball = Circle(0.5) if dim == 2 else Sphere(0.5)
            far = (0.0,) * (dim - 1)
            w.add(ball, (11.0, *far), id="touching")
            w.add(ball, (-4.0, *far), id="other")
            comp = Compound([(ball, (0.0,) * dim), (ball, (10.0, *far))])
            pose = ((0.0,) * dim, 0.0 if dim == 2 else None)
            assert [h.id for h in w.query_within(comp, pose, 0.5)] == ["touching"], (backend, dim)
            assert [h.id for h in w.query_nearest(comp, pose, k=1)] == ["touching"], (backend, dim)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", [2, 3])
def test_compound_queries_match_brute_force(backend, dim):
    rng = np.random.default_rng(8025 + dim)
    w, centres, radii = _target_world(backend, dim, rng)
    for _ in range(12):
        comp, data = _compound_2d(rng) if dim == 2 else _compound_3d(rng)
        pos = rng.uniform(-20.0, 20.0, dim)
        if dim == 2:
            rot: object = float(rng.uniform(-np.pi, np.pi))
            dist = _signed_2d(data, pos, rot, centres, radii)
        else:
            rot = _wxyz(Rotation.random(random_state=int(rng.integers(2**31))))
            dist = _signed_3d(data, pos, rot, centres, radii)
        pose = (tuple(pos.tolist()), rot)
        # within
        limit = float(rng.uniform(0.5, 3.0))
        surely, beyond = _decided(dist, limit)
        got = {h.id for h in w.query_within(comp, pose, limit)}
        assert surely <= got and not (got & beyond), (comp, pose, limit)
        # nearest: the k least signed distances
        for k in (1, 3):
            hits = w.query_nearest(comp, pose, k=k)
            np.testing.assert_allclose([h.distance for h in hits], np.sort(dist)[:k], atol=1e-7)
        # placement tests: touching or overlapping
        surely, beyond = _decided(dist, 0.0)
        if dim == 2:
            got = set(w.query_shape(comp, pose[0], angle=rot))
        else:
            got = set(w.query_shape(comp, pose[0], quaternion=rot))
        assert surely <= got and not (got & beyond), (comp, pose)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", [2, 3])
def test_compound_query_shapes_and_cast_match_brute_force(backend, dim):
    rng = np.random.default_rng(8125 + dim)
    w, centres, radii = _target_world(backend, dim, rng)
    for _ in range(6):
        comp, data = _compound_2d(rng) if dim == 2 else _compound_3d(rng)
        m = 8
        pos = rng.uniform(-20.0, 20.0, (m, dim))
        if dim == 2:
            rots = rng.uniform(-np.pi, np.pi, m)
            rows, ids = w.query_shapes(comp, pos, angles=rots)
            dists = [_signed_2d(data, pos[j], rots[j], centres, radii) for j in range(m)]
        else:
            quats = np.array([_wxyz(Rotation.random(random_state=int(rng.integers(2**31)))) for _ in range(m)])
            rows, ids = w.query_shapes(comp, pos, quaternions=quats)
            dists = [_signed_3d(data, pos[j], quats[j], centres, radii) for j in range(m)]
        for j in range(m):
            surely, beyond = _decided(dists[j], 0.0)
            got = set(ids[rows == j].tolist())
            assert surely <= got and not (got & beyond), (comp, j)
        # a sliding compound (no turn): sampled poses against the closed forms, and time_of_impact per body
        p0 = rng.uniform(-20.0, 20.0, dim)
        p1 = p0 + rng.uniform(-6.0, 6.0, dim)
        rot0: object = float(rng.uniform(-np.pi, np.pi)) if dim == 2 else _wxyz(Rotation.random(
            random_state=int(rng.integers(2**31))))
        start, end = (tuple(p0.tolist()), rot0), (tuple(p1.tolist()), rot0)
        got = {h.id for h in w.cast(comp, start, end)}
        sampled = set()
        for t in np.linspace(0.0, 1.0, 400):
            p = p0 + t * (p1 - p0)
            d = (_signed_2d(data, p, rot0, centres, radii) if dim == 2
                 else _signed_3d(data, p, rot0, centres, radii))
            sampled |= set(np.flatnonzero(d < -MARGIN).tolist())
        assert sampled <= got, (comp, start, end)
        assert got == _brute_cast(w, comp, start, end)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", [2, 3])
def test_compound_queries_leave_the_shape_tables_as_found(backend, dim):
    # a compound probe's polygon and hull parts hold entries of the world's tables while the query runs
    rng = np.random.default_rng(8225 + dim)
    w = World(dim, backend=backend)
    if dim == 2:
        w.add(Polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]), (9.0, 1.0), id="L")
        odd = Polygon([(0, 0), (1, 0), (0, 1)])
        pose: tuple = ((0.0, 0.0), 0.3)
        end: tuple = ((0.0, 3.0), 1.0)
    else:
        from collideworld import ConvexHull

        w.add(ConvexHull(rng.normal(size=(10, 3))), (9.0, 1.0, 0.0), id="hull")
        odd = ConvexHull(rng.normal(size=(12, 3)))
        pose, end = ((0.0, 0.0, 0.0), None), ((0.0, 3.0, 0.0), None)
    comp = Compound([(odd, (0.0,) * dim), (odd, (10.0,) + (0.0,) * (dim - 1))])
    live = (len(w._store.parts._shape_index), w._store.hulls.live_hulls)  # the world's own shapes: 1
    for _ in range(3):
        w.query_within(comp, pose, 1.0)
        w.query_nearest(comp, pose, k=1)
        w.cast(comp, pose, end)
        w.query_shape(comp, pose[0], *((pose[1],) if dim == 2 else ()))
    w.validate()  # every table entry is held by a live body or part, and only those
    assert (len(w._store.parts._shape_index), w._store.hulls.live_hulls) == live
