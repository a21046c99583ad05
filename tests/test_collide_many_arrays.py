"""``collide_many`` on shapes given as arrays of parameters (:class:`~collideworld.collide.ShapeArray`, issue 28).

Checked pair by pair against ``collide()`` (bit for bit, each backend) and
against independent oracles: shapely (2D box overlap), python-fcl (3D box
overlap) and the closed form of two balls (depth ``r1 + r2 - d``).
"""

from __future__ import annotations

import fcl
import numpy as np
import pytest
import shapely

from collideworld import Box, Circle, Polygon, Sphere, collide, collide_many
from collideworld.collide import ShapeArray
from collideworld.errors import InvalidShapeError, UnsupportedPairError

N = 300


def _quats(rng: np.random.Generator, n: int) -> np.ndarray:
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def _families(dim: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ha, hb = rng.uniform(0.05, 1.5, (N, dim)), rng.uniform(0.05, 1.5, (N, dim))
    pa, pb = rng.uniform(-2, 2, (N, dim)), rng.uniform(-2, 2, (N, dim))
    if dim == 2:
        return ha, hb, pa, pb, rng.uniform(-7, 7, N), rng.uniform(-7, 7, N)
    return ha, hb, pa, pb, _quats(rng, N), _quats(rng, N)


def _pose(dim: int, pos: np.ndarray, rot: np.ndarray | float) -> tuple[tuple[float, ...], object]:
    return tuple(pos.tolist()), (float(rot) if dim == 2 else tuple(np.asarray(rot).tolist()))


@pytest.mark.parametrize("backend", ["compiled", "numpy"])
@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("kinds", [("box", "box"), ("ball", "box"), ("ball", "ball")])
def test_arrays_agree_with_collide_pair_by_pair(backend: str, dim: int, kinds: tuple[str, str]) -> None:
    ha, hb, pa, pb, ra, rb = _families(dim, 7 + dim)
    ball = Circle if dim == 2 else Sphere
    arrays = [ShapeArray.boxes(h) if k == "box" else (ShapeArray.circles if dim == 2 else ShapeArray.spheres)(h[:, 0])
              for k, h in zip(kinds, (ha, hb), strict=True)]
    res = collide_many(arrays[0], (pa, ra), arrays[1], (pb, rb), backend=backend)
    hits = 0
    for k in range(N):
        sa = Box(tuple(ha[k])) if kinds[0] == "box" else ball(float(ha[k, 0]))
        sb = Box(tuple(hb[k])) if kinds[1] == "box" else ball(float(hb[k, 0]))
        c = collide(sa, _pose(dim, pa[k], ra[k]), sb, _pose(dim, pb[k], rb[k]), backend=backend)
        assert bool(res.hit[k]) == (c is not None), k
        if c is not None:
            np.testing.assert_array_equal(res.normal[k], c.normal)
            assert res.depth[k] == c.depth
            hits += 1
    assert 20 < hits < N  # both outcomes well represented


def test_2d_boxes_agree_with_shapely() -> None:
    ha, hb, pa, pb, ra, rb = _families(2, 3)
    res = collide_many(ShapeArray.boxes(ha), (pa, ra), ShapeArray.boxes(hb), (pb, rb))

    def poly(h: np.ndarray, p: np.ndarray, a: float) -> shapely.Polygon:
        c, s = np.cos(a), np.sin(a)
        corners = np.array([[-h[0], -h[1]], [h[0], -h[1]], [h[0], h[1]], [-h[0], h[1]]])
        return shapely.Polygon(corners @ np.array([[c, s], [-s, c]]) + p)

    agreed = 0
    for k in range(N):
        a, b = poly(ha[k], pa[k], ra[k]), poly(hb[k], pb[k], rb[k])
        gap = a.distance(b)
        if a.intersects(b) and gap == 0.0 and a.intersection(b).area < 1e-9:
            continue  # touching to rounding: either answer is right
        assert bool(res.hit[k]) == a.intersects(b), k
        agreed += 1
    assert agreed >= N - 3


def test_3d_boxes_agree_with_fcl() -> None:
    ha, hb, pa, pb, qa, qb = _families(3, 5)
    res = collide_many(ShapeArray.boxes(ha), (pa, qa), ShapeArray.boxes(hb), (pb, qb))
    agreed = 0
    for k in range(N):
        oa = fcl.CollisionObject(fcl.Box(*(2 * ha[k])), fcl.Transform(qa[k], pa[k]))
        ob = fcl.CollisionObject(fcl.Box(*(2 * hb[k])), fcl.Transform(qb[k], pb[k]))
        d = fcl.distance(oa, ob, fcl.DistanceRequest(), fcl.DistanceResult())
        if abs(d) < 1e-9:
            continue  # touching to rounding
        hit = fcl.collide(oa, ob, fcl.CollisionRequest(), fcl.CollisionResult()) > 0
        assert bool(res.hit[k]) == hit, k
        agreed += 1
    assert agreed >= N - 3


@pytest.mark.parametrize("dim", [2, 3])
def test_balls_depth_is_the_closed_form(dim: int) -> None:
    ha, hb, pa, pb, _, _ = _families(dim, 11)
    make = ShapeArray.circles if dim == 2 else ShapeArray.spheres
    res = collide_many(make(ha[:, 0]), pa, make(hb[:, 0]), pb)
    d = np.linalg.norm(pb - pa, axis=1)
    want = ha[:, 0] + hb[:, 0] - d
    clear = np.abs(want) > 1e-9
    np.testing.assert_array_equal(res.hit[clear], want[clear] >= 0)
    np.testing.assert_allclose(res.depth[res.hit], want[res.hit], rtol=0, atol=1e-12)
    assert res.hit.sum() > 20


def test_one_shape_against_an_array() -> None:
    """A polygon (one shape for every pair) against an array of boxes: as collide() pair by pair."""
    ha, hb, pa, pb, ra, rb = _families(2, 13)
    tri = Polygon([(0.0, 0.0), (1.2, 0.0), (0.4, 0.9)])
    res = collide_many(tri, (pa, ra), ShapeArray.boxes(hb), (pb, rb))
    for k in range(N):
        c = collide(tri, _pose(2, pa[k], ra[k]), Box(tuple(hb[k])), _pose(2, pb[k], rb[k]))
        assert bool(res.hit[k]) == (c is not None)
        if c is not None:
            np.testing.assert_array_equal(res.normal[k], c.normal)
            assert res.depth[k] == c.depth


@pytest.mark.parametrize(("make", "value", "message"), [
    (ShapeArray.boxes, [[1.0, 1.0], [1.0, -2.0]], "Box half_extents[1, 1] must be > 0, got -2"),
    (ShapeArray.boxes, [[1.0, 0.0]], "Box half_extents[0, 1] must be > 0, got 0"),
    (ShapeArray.boxes, [[1.0, np.nan]], "Box half_extents[0, 1] must be finite, got nan"),
    (ShapeArray.boxes, [[1.0, 1e200]], "must be at most 1e+150 in magnitude"),
    (ShapeArray.boxes, [[1.0, 1.0, 1.0, 1.0]], "must have shape (N, 2) or (N, 3), got shape (1, 4)"),
    (ShapeArray.boxes, [1.0, 1.0], "must have shape (N, 2) or (N, 3), got shape (2,)"),
    (ShapeArray.boxes, [[True, True]], "must be real numbers, got bool values"),
    (ShapeArray.circles, [1.0, -1.0], "Circle radius[1] must be > 0, got -1"),
    (ShapeArray.spheres, [[1.0]], "Sphere radius must have shape (N,), got shape (1, 1)"),
    (ShapeArray.circles, "abc", "Circle radius must be real numbers"),
    (ShapeArray.circles, [[1.0], [1.0, 2.0]], "rectangular array of real numbers"),
])
def test_bad_parameters_are_refused(make: object, value: object, message: str) -> None:
    with pytest.raises(InvalidShapeError) as info:
        make(value)  # type: ignore[operator]
    assert message in str(info.value)


def test_mismatched_arrays_are_refused() -> None:
    with pytest.raises(UnsupportedPairError, match="one length"):
        collide_many(ShapeArray.circles([1.0, 1.0]), [0.0, 0.0], ShapeArray.circles([1.0]), [0.0, 0.0])
    with pytest.raises(UnsupportedPairError, match="one dimension"):
        collide_many(ShapeArray.circles([1.0]), [0.0, 0.0], ShapeArray.spheres([1.0]), [0.0, 0.0, 0.0])
    with pytest.raises(UnsupportedPairError, match="ShapeArray or one shape"):
        collide_many(ShapeArray.circles([1.0]), [0.0, 0.0], [Circle(1.0)], [0.0, 0.0])


@pytest.mark.parametrize("dim", [2, 3])
def test_poses_built_in_the_compiled_call_have_numpys_bits(dim):
    # contact_many_posed builds the pose rows itself (math.cos/sin, the quaternion's norm summed left to
    # right); they must be the rows numpy built before (np.cos/np.sin, np.linalg.norm over rows of four),
    # angles far from 0 and quaternions off unit by up to the tolerance included
    from collideworld.geometry.compiled.contact_pair import _pose_block, contact_many, contact_many_posed

    rng = np.random.default_rng(11 + dim)
    n = 5000
    pos_a, pos_b = rng.uniform(-3, 3, (n, dim)), rng.uniform(-3, 3, (n, dim))
    if dim == 2:
        rot_a = rng.uniform(-1e4, 1e4, n) * rng.choice([1e-3, 1.0, 1.0], n)
        rot_b = rng.uniform(-7, 7, n)
    else:
        rot_a, rot_b = (_quats(rng, n) * (1 + rng.uniform(-9e-7, 9e-7, (n, 1))) for _ in range(2))
    params = np.zeros((2, 9))
    params[0, 1:1 + dim] = rng.uniform(0.2, 1.5, dim)
    params[0, 8] = np.sqrt((params[0, 1:4] ** 2).sum())
    params[1, 0] = params[1, 8] = 0.7
    kinds, n_verts = np.array([2, 1]), np.zeros(2, dtype=np.int64)
    lx = ly = np.zeros((2, 8))
    which = np.concatenate([np.zeros(n, dtype=np.int64), rng.integers(0, 2, n)])
    poses = np.zeros((2 * n, 7))
    for rows, pos, rot in ((slice(0, n), pos_a, rot_a), (slice(n, 2 * n), pos_b, rot_b)):
        poses[rows, :dim] = pos
        if dim == 2:
            poses[rows, 3], poses[rows, 4] = np.cos(rot), np.sin(rot)
        else:
            poses[rows, 3:] = rot / np.linalg.norm(rot, axis=-1, keepdims=True)
    want = contact_many(dim, kinds, n_verts, params, lx, ly, which, poses)
    rots = [r.reshape(n, 1) if dim == 2 else r for r in (rot_a, rot_b)]
    built = np.full((2 * n, 7), np.nan)
    _pose_block(dim, pos_a, rots[0], built, 0)
    _pose_block(dim, pos_b, rots[1], built, n)
    np.testing.assert_array_equal(built, poses)
    got = contact_many_posed(dim, kinds, n_verts, params, lx, ly, which, pos_a, rots[0], pos_b, rots[1])
    assert 100 < want[0].sum() < n - 100
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
