"""collide() on capsules and segments through the one-call compiled kernel (issue 28).

Capsule pairs used to run the two-body store path (160-250 µs a call); the
one-call kernel now takes them. Checked here against independent oracles:
shapely in 2D (exact segment distances: a capsule is its core segment grown by
its radius), python-fcl in 3D; touching counts as contact; the answers equal
the store path's bit for bit; ``collide_many`` on lists with capsules equals
the single calls; bad poses raise the store path's errors.
"""

from __future__ import annotations

import math

import fcl
import numpy as np
import pytest
import shapely

from collideworld import Box, Capsule, Circle, Polygon, Segment, Sphere, collide, collide_many
from collideworld.collide import _collide_store
from collideworld.errors import CollideWorldError
from collideworld.geometry.rotation import rotation_matrix_3d
from collideworld.poses import collide_pose

TRI = [(0.0, 0.0), (1.0, 0.0), (0.4, 0.9)]


def _rot2(t: float) -> np.ndarray:
    return np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])


def _geom_2d(shape: object, pose: tuple) -> tuple[object, float]:
    """A shapely core of a posed 2D shape and the radius it is grown by."""
    (x, y), t = pose
    r, c = _rot2(t), np.array([x, y])
    if isinstance(shape, (Capsule, Segment)):
        ends = [r @ np.array(p) + c for p in (shape.p0, shape.p1)]
        return shapely.LineString(ends), shape.radius
    if isinstance(shape, Circle):
        return shapely.Point(c), shape.radius
    if isinstance(shape, Box):
        hx, hy = shape.half_extents
        pts = [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)]
    else:
        pts = TRI
    return shapely.Polygon([r @ np.array(p) + c for p in pts]), 0.0


def _gap_2d(sa: object, pa: tuple, sb: object, pb: tuple) -> float:
    ga, ra = _geom_2d(sa, pa)
    gb, rb = _geom_2d(sb, pb)
    return float(shapely.distance(ga, gb)) - ra - rb


def _shift(pose: tuple, v: np.ndarray) -> tuple:
    return (tuple(float(a + b) for a, b in zip(pose[0], v, strict=True)), pose[1])


def _shapes_2d(rng: np.random.Generator) -> list[object]:
    u = lambda: float(rng.uniform(0.2, 1.2))  # noqa: E731
    return [Circle(u()), Box((u(), u())), Polygon(TRI), Capsule((-u(), 0.0), (u(), 0.3), u() / 3),
            Segment((-u(), 0.1), (u(), -0.2))]


@pytest.mark.parametrize("seed", range(3))
def test_2d_capsule_pairs_agree_with_shapely(seed: int) -> None:
    """Hit iff shapely's gap <= 0; moving b by normal * depth leaves them touching (shapely gap ~ 0)."""
    rng = np.random.default_rng(700 + seed)
    hits = misses = 0
    for _ in range(100):
        shapes = _shapes_2d(rng)
        sa = shapes[int(rng.integers(3, 5))]  # a capsule or a segment
        sb = shapes[int(rng.integers(0, 5))]
        pa = (tuple(float(v) for v in rng.uniform(-1, 1, 2)), float(rng.uniform(-4, 4)))
        pb = (tuple(float(v) for v in rng.uniform(-1, 1, 2)), float(rng.uniform(-4, 4)))
        if isinstance(sb, Segment) and isinstance(sa, Segment):
            continue  # two segments: touching is measure zero
        gap = _gap_2d(sa, pa, sb, pb)
        res = collide(sa, pa, sb, pb)
        if abs(gap) < 1e-9:
            continue  # (within rounding of touching: either answer)
        assert (res is not None) == (gap < 0), (sa, pa, sb, pb, gap)
        if res is None:
            misses += 1
            continue
        hits += 1
        moved = _shift(pb, res.depth * res.normal)
        assert abs(_gap_2d(sa, pa, sb, moved)) < 1e-7, (sa, pa, sb, pb, res)
        assert _gap_2d(sa, pa, sb, _shift(pb, (res.depth + 1e-6) * res.normal)) > 0.0  # the move separates
    assert hits >= 20 and misses >= 30, (hits, misses)


def test_2d_touching_capsules_are_in_contact() -> None:
    """Exactly touching (exact binary floats): contact with depth 0, every kind against a capsule."""
    cap = Capsule((-1.0, 0.0), (1.0, 0.0), 0.5)
    here = ((0.0, 0.0), 0.0)
    cases = [(Box((1.0, 0.25)), ((0.0, 0.75), 0.0)), (Circle(0.25), ((0.0, -0.75), 0.0)),
             (Capsule((-1.0, 0.0), (1.0, 0.0), 0.25), ((0.5, 0.75), 0.0)),
             (Segment((-1.0, 0.0), (1.0, 0.0)), ((0.25, 0.5), 0.0)),
             (Polygon([(0.0, 0.0), (1.0, 0.0), (0.5, 1.0)]), ((-0.5, 0.5), 0.0))]
    for other, pose in cases:
        for res in (collide(cap, here, other, pose), collide(other, pose, cap, here)):
            assert res is not None, other
            assert res.depth == 0.0
        assert collide(cap, here, other, _shift(pose, np.array([0.0, 1e-6 if pose[0][1] >= 0 else -1e-6]))) is None


def _fcl_object(shape: object, pos: np.ndarray, quat: np.ndarray) -> fcl.CollisionObject:
    rot = rotation_matrix_3d(quat[None])[0]
    if isinstance(shape, Sphere):
        return fcl.CollisionObject(fcl.Sphere(shape.radius), fcl.Transform(rot, pos))
    if isinstance(shape, Box):
        return fcl.CollisionObject(fcl.Box(*(2 * np.array(shape.half_extents))), fcl.Transform(rot, pos))
    p0, p1 = np.array(shape.p0), np.array(shape.p1)
    axis = p1 - p0
    length = float(np.linalg.norm(axis))
    z = axis / length
    x = np.cross(z, [1.0, 0.0, 0.0] if abs(z[0]) < 0.9 else [0.0, 1.0, 0.0])
    x /= np.linalg.norm(x)
    frame = np.column_stack([x, np.cross(z, x), z])  # fcl's capsule lies along its local z axis
    centre = rot @ (0.5 * (p0 + p1)) + pos
    return fcl.CollisionObject(fcl.Capsule(shape.radius, length), fcl.Transform(rot @ frame, centre))


def _unit(rng: np.random.Generator) -> np.ndarray:
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


@pytest.mark.parametrize("kind", ["sphere", "box", "capsule"])
def test_3d_capsule_pairs_agree_with_fcl(kind: str) -> None:
    """Hit iff fcl finds a collision (pairs farther than 1e-6 from touching); the depth's move leaves them touching."""
    rng = np.random.default_rng([71, len(kind)])
    hits = misses = 0
    for _ in range(120):
        u = lambda: float(rng.uniform(0.2, 1.0))  # noqa: E731
        sa = Capsule((-u(), 0.0, 0.1), (u(), 0.2, -0.1), u() / 2)
        sb = {"sphere": Sphere(u()), "box": Box((u(), u(), u())),
              "capsule": Capsule((0.0, -u(), 0.0), (0.1, u(), 0.2), u() / 2)}[kind]
        pa, qa = rng.uniform(-1, 1, 3), _unit(rng)
        pb, qb = rng.uniform(-1, 1, 3), _unit(rng)
        oa, ob = _fcl_object(sa, pa, qa), _fcl_object(sb, pb, qb)
        gap = float(fcl.distance(oa, ob, fcl.DistanceRequest(), fcl.DistanceResult()))
        hit = fcl.collide(oa, ob, fcl.CollisionRequest(), fcl.CollisionResult()) > 0
        if not hit and gap < 1e-6:
            continue  # fcl's GJK within its tolerance of touching
        pose_a = (tuple(pa.tolist()), tuple(qa.tolist()))
        pose_b = (tuple(pb.tolist()), tuple(qb.tolist()))
        res = collide(sa, pose_a, sb, pose_b)
        assert (res is not None) == hit, (sa, pose_a, sb, pose_b, gap)
        if res is None:
            misses += 1
            continue
        hits += 1
        ob2 = _fcl_object(sb, pb + (res.depth + 1e-6) * res.normal, qb)
        assert fcl.collide(oa, ob2, fcl.CollisionRequest(), fcl.CollisionResult()) == 0  # the move separates
        ob3 = _fcl_object(sb, pb + max(res.depth - 1e-6, 0.0) * res.normal, qb)
        assert fcl.collide(oa, ob3, fcl.CollisionRequest(), fcl.CollisionResult()) > 0  # and no less does
    assert hits >= 25 and misses >= 25, (hits, misses)


@pytest.mark.parametrize("dim", [2, 3])
def test_one_call_capsules_equal_the_store_path_and_collide_many(dim: int) -> None:
    """Seeded pairs with a capsule, apart, touching-near and overlapping: the one call's normal and depth are the
    store path's bits, and collide_many on lists (the same one call, many rows) gives them too."""
    rng = np.random.default_rng(90 + dim)
    rows_a, rows_b, poses_a, poses_b, want = [], [], [], [], []
    for k in range(150):
        u = lambda: float(rng.uniform(0.2, 1.2))  # noqa: E731
        if dim == 2:
            others = [Circle(u()), Box((u(), u())), Polygon(TRI), Capsule((-u(), 0.0), (u(), 0.2), u() / 3),
                      Segment((0.0, -u()), (0.1, u()))]
            cap = [Capsule((-u(), 0.1), (u(), 0.0), u() / 3), Segment((-u(), 0.0), (u(), 0.3))][k % 2]
            pa = (tuple(float(v) for v in rng.uniform(-1, 1, 2)), float(rng.uniform(-4, 4)))
            pb = (tuple(float(v) for v in rng.uniform(-1, 1, 2)), float(rng.uniform(-4, 4)))
        else:
            others = [Sphere(u()), Box((u(), u(), u())), Capsule((0.0, -u(), 0.0), (0.1, u(), 0.2), u() / 3)]
            cap = Capsule((-u(), 0.0, 0.1), (u(), 0.2, 0.0), u() / 3)
            pa = (tuple(float(v) for v in rng.uniform(-1, 1, 3)), tuple(_unit(rng).tolist()))
            pb = (tuple(float(v) for v in rng.uniform(-1, 1, 3)), tuple(_unit(rng).tolist()))
        other = others[k % len(others)]
        sa, sb = (cap, other) if k % 3 else (other, cap)
        fast = collide(sa, pa, sb, pb)
        slow = _collide_store(sa, pa, sb, pb, "compiled")
        assert (fast is None) == (slow is None)
        if fast is not None and slow is not None:
            np.testing.assert_array_equal(fast.normal, slow.normal)
            assert fast.depth == slow.depth
        rows_a.append(sa)
        rows_b.append(sb)
        poses_a.append(pa)
        poses_b.append(pb)
        want.append(fast)
    pos_a = np.array([p[0] for p in poses_a])
    pos_b = np.array([p[0] for p in poses_b])
    rot_a = np.array([p[1] for p in poses_a])
    rot_b = np.array([p[1] for p in poses_b])
    many = collide_many(rows_a, (pos_a, rot_a), rows_b, (pos_b, rot_b))
    assert many.hit.tolist() == [w is not None for w in want]
    assert sum(many.hit) >= 30
    for k, w in enumerate(want):
        if w is not None:
            np.testing.assert_array_equal(many.normal[k], w.normal)
            assert many.depth[k] == w.depth


BAD_POSES_2D = [((math.nan, 0.0), 0.0), ((0.0, math.inf), 0.0), ((0.0, 0.0), math.nan), ((0.0, 0.0), True),
                ((1e300, 0.0), 0.0), ((0.0,), 0.0), ((0.0, 0.0), "1"), None]


@pytest.mark.parametrize("bad", BAD_POSES_2D, ids=[repr(b) for b in BAD_POSES_2D])
def test_bad_pose_on_the_fast_path_raises_the_careful_error(bad: object) -> None:
    """Shapes already in the one-call table (the fast path's shapes): a bad pose in either slot raises what the
    pose check of the store path (``collide_pose``) raises, word for word."""
    cap, box = Capsule((-1.0, 0.0), (1.0, 0.0), 0.5), Box((1.0, 1.0))
    good = ((0.0, 0.5), 0.25)
    assert collide(cap, good, box, good) is not None  # (both shapes now in the table)
    for which in ("a", "b"):
        with pytest.raises(CollideWorldError) as want:
            collide_pose(cap if which == "a" else box, bad, which)
        with pytest.raises(type(want.value)) as got:
            if which == "a":
                collide(cap, bad, box, good)
            else:
                collide(cap, good, box, bad)
        assert str(got.value) == str(want.value)


def test_capsule_pairs_build_no_store(monkeypatch: pytest.MonkeyPatch) -> None:
    """The speed-up itself: collide() on capsule pairs (2D and 3D, both orders) runs the one-call kernel,
    not the two-body store (which cost 160-250 µs a call); its points are still there when read."""
    import importlib

    cmod = importlib.import_module("collideworld.collide")

    pairs = [(Capsule((-1.0, 0.0), (1.0, 0.0), 0.5), ((0.0, 0.0), 0.3), Box((1.0, 1.0)), ((0.5, 1.2), 0.1)),
             (Segment((-1.0, 0.0), (1.0, 0.0)), ((0.0, 0.0), 0.0), Circle(0.5), ((0.0, 0.25), 0.0)),
             (Capsule((0.0, 0.0, -1.0), (0.0, 0.0, 1.0), 0.5), ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0)),
              Box((1.0, 1.0, 1.0)), ((1.2, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0)))]
    want = [collide(*p) for p in pairs] + [collide(p[2], p[3], p[0], p[1]) for p in pairs]
    assert all(w is not None for w in want)

    def no_store(*args: object, **kwargs: object) -> None:
        raise AssertionError("collide() built a BodyStore")

    monkeypatch.setattr(cmod, "BodyStore", no_store)
    got = [collide(*p) for p in pairs] + [collide(p[2], p[3], p[0], p[1]) for p in pairs]
    for g, w in zip(got, want, strict=True):
        assert g is not None and w is not None
        np.testing.assert_array_equal(g.normal, w.normal)
        assert g.depth == w.depth
    monkeypatch.undo()
    assert got[0].points.shape == (len(got[0].separations), 2)  # (the store path, on first read)
