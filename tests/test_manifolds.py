"""Contact manifolds: points, separations and feature ids (issue 14).

Expected values come from hand calculation, shapely (2D distances and
polygon intersections) and closed forms (distance to a box, a sphere, a
plane); never from collideworld's own output. The numpy and compiled
backends are compared on random and near-touching inputs.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import shapely
from scipy.spatial.transform import Rotation

from collideworld import Box, Circle, HalfPlane, Plane, Polygon, Sphere, World, collide
from collideworld.bodies import BodyStore, Kind
from collideworld.errors import InvalidArgumentError
from collideworld.narrowphase import MANIFOLD_KERNELS, PAIR_KERNELS, contact_pairs, manifold_pairs

TOL = 1e-9


def rot2(t):
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s], [s, c]])


# -- distance oracles (independent of collideworld's geometry) --------------------------

def distance_to(shape, pose, p):
    """Distance from point p to a posed shape (0 inside)."""
    p = np.asarray(p, float)
    if isinstance(shape, (HalfPlane, Plane)):
        n = np.asarray(shape.normal, float)
        n = n / np.linalg.norm(n)
        return max(0.0, float(n @ p - shape.offset))
    pos, rot = pose
    if isinstance(shape, (Circle, Sphere)):
        return max(0.0, float(np.linalg.norm(p - np.asarray(pos, float)) - shape.radius))
    if isinstance(shape, Box) and len(shape.half_extents) == 3:
        local = np.asarray(rot, float).T @ (p - np.asarray(pos, float))
        return float(np.linalg.norm(np.maximum(np.abs(local) - np.asarray(shape.half_extents), 0.0)))
    if isinstance(shape, Box):
        hx, hy = shape.half_extents
        local = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
    else:
        local = np.asarray(shape.vertices, float)
    world = local @ rot2(rot).T + np.asarray(pos, float)
    return float(shapely.Polygon(world).distance(shapely.Point(p)))


def pose_arg(shape, pose):
    return None if isinstance(shape, (HalfPlane, Plane)) else pose


def check_points_touch(sa, pa, sb, pb, r, scale=1.0):
    """Every point lies within its own |separation| (plus tolerance) of both shapes."""
    assert 1 <= len(r.points) <= (2 if r.normal.shape[0] == 2 else 4)
    assert len(r.points) == len(r.separations) == len(r.point_ids)
    assert len(set(r.point_ids.tolist())) == len(r.point_ids)
    for p, s in zip(r.points, r.separations, strict=True):
        for shape, pose in ((sa, pa), (sb, pb)):
            assert distance_to(shape, pose, p) <= abs(s) + TOL * scale, (shape, p, s)
        # no point is deeper than the pair's depth
        assert s >= -r.depth - TOL * scale


# -- hand cases, 2D ----------------------------------------------------------------------

def test_box_on_ground_2d_gives_the_two_bottom_corners():
    r = collide(HalfPlane((0, 1), 0.0), None, Box((2.0, 1.0)), ((3.0, 0.75), 0.0))
    assert r.depth == pytest.approx(0.25)
    np.testing.assert_allclose(sorted(r.points.tolist()), [[1.0, -0.125], [5.0, -0.125]])
    np.testing.assert_allclose(r.separations, [-0.25, -0.25])


def test_box_on_box_offset_2d_gives_the_ends_of_the_overlap():
    # a 2x2 box resting on a 4x2 box, its left edge 0.5 in from the right end
    r = collide(Box((2.0, 1.0)), ((0.0, 0.0), 0.0), Box((1.0, 1.0)), ((2.5, 2.0), 0.0))
    assert r.depth == pytest.approx(0.0)
    np.testing.assert_allclose(sorted(r.points.tolist()), [[1.5, 1.0], [2.0, 1.0]])
    np.testing.assert_allclose(r.separations, [0.0, 0.0], atol=1e-15)


def test_rotated_box_corner_first_gives_one_point_at_the_corner():
    # a unit square turned 30 degrees, its lowest corner 0.1 below the ground
    t = math.radians(30)
    corners = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]) @ rot2(t).T
    low = corners[np.argmin(corners[:, 1])]
    centre = np.array([0.0, -low[1] - 0.1])
    for ground, pose in ((HalfPlane((0, 1), 0.0), None), (Box((5.0, 1.0)), ((0.0, -1.0), 0.0))):
        r = collide(ground, pose, Box((0.5, 0.5)), (centre, t))
        assert len(r.points) == 1
        np.testing.assert_allclose(r.points[0], centre + low + [0, 0.05], atol=1e-12)
        assert r.separations[0] == pytest.approx(-0.1)


def test_polygon_across_an_edge():
    # a triangle's long side rests on the top of a box, hanging over its right end
    tri = Polygon([(-2.0, 0.0), (2.0, 0.0), (0.0, 1.0)])
    r = collide(Box((1.0, 1.0)), ((0.0, 0.0), 0.0), tri, ((2.0, 1.0), 0.0))
    np.testing.assert_allclose(sorted(r.points.tolist()), [[0.0, 1.0], [1.0, 1.0]], atol=1e-12)
    # the other way round: the same points
    r2 = collide(tri, ((2.0, 1.0), 0.0), Box((1.0, 1.0)), ((0.0, 0.0), 0.0))
    np.testing.assert_allclose(sorted(r2.points.tolist()), [[0.0, 1.0], [1.0, 1.0]], atol=1e-12)
    np.testing.assert_allclose(r2.normal, -r.normal)


def test_circle_gives_one_point_between_the_surfaces():
    r = collide(Box((1.0, 1.0)), ((0.0, 0.0), 0.0), Circle(1.0), ((1.5, 0.0), 0.0))
    np.testing.assert_allclose(r.points, [[0.75, 0.0]])
    np.testing.assert_allclose(r.separations, [-0.5])


def test_concave_polygon_gives_its_deepest_piece():
    # a U resting on the ground on both legs: collide() answers with one convex piece (the
    # deepest; ties: the first in part order), named by part_b, and gives that piece's lowest
    # run (a World gives every touching piece: tests/test_concave_parts.py). This once gave the
    # whole outline's lowest run, from x = 0 to 3, as one contact: a contact is a piece's now.
    u = Polygon([(0, 0), (1, 0), (1, 2), (2, 2), (2, 0), (3, 0), (3, 3), (0, 3)])
    r = collide(HalfPlane((0, 1), 0.0), None, u, ((0.0, -0.2), 0.0))
    piece = np.asarray(u.parts[r.part_b])
    low = piece[piece[:, 1] == 0.0, 0]
    assert r.part_a == -1 and len(low) == 2
    np.testing.assert_allclose(sorted(r.points.tolist()), [[low.min(), -0.1], [low.max(), -0.1]], atol=1e-12)
    # against a box under its right leg only: the right leg's bottom, from x = 2 to 3
    r = collide(Box((1.0, 0.5)), ((2.5, -0.4), 0.0), u, ((0.0, 0.0), 0.0))
    assert r.depth == pytest.approx(0.1)
    np.testing.assert_allclose(sorted(r.points.tolist()), [[2.0, 0.05], [3.0, 0.05]], atol=1e-12)


# -- hand cases, 3D ------------------------------------------------------------------------

def test_box_on_ground_3d_gives_the_four_bottom_corners():
    r = collide(Plane((0, 0, 1), 0.0), None, Box((1.0, 2.0, 0.5)), ((1.0, 1.0, 0.4), np.eye(3)))
    assert len(r.points) == 4
    expect = sorted([[1 + sx, 1 + sy * 2, -0.05] for sx in (-1, 1) for sy in (-1, 1)])
    np.testing.assert_allclose(sorted(r.points.tolist()), expect, atol=1e-12)
    np.testing.assert_allclose(r.separations, [-0.1] * 4)


def test_box_on_box_offset_3d_gives_the_clipped_face():
    r = collide(Box((2.0, 2.0, 1.0)), ((0, 0, 0), np.eye(3)), Box((1.0, 1.0, 1.0)), ((2.5, 2.5, 2.0), np.eye(3)))
    expect = sorted([[x, y, 1.0] for x in (1.5, 2.0) for y in (1.5, 2.0)])
    np.testing.assert_allclose(sorted(r.points.tolist()), expect, atol=1e-12)


def test_turned_box_on_box_keeps_four_of_the_octagon_spanning_most_area():
    # a cube turned 45 degrees about z on an equal cube: the touching region
    # is a regular octagon (shapely); the four kept corners are octagon
    # corners whose quadrilateral is the largest (brute force over subsets)
    turn = Rotation.from_euler("z", 45, degrees=True).as_matrix()
    r = collide(Box((1.0, 1.0, 1.0)), ((0, 0, 0), np.eye(3)), Box((1.0, 1.0, 1.0)), ((0, 0, 2.0), turn))
    assert len(r.points) == 4
    sq = shapely.box(-1, -1, 1, 1)
    octagon = sq.intersection(shapely.affinity.rotate(sq, 45, origin=(0, 0)))
    corners = np.array(octagon.exterior.coords)[:-1]
    for p in r.points:
        assert np.min(np.linalg.norm(corners - p[:2], axis=1)) < 1e-9
        assert p[2] == pytest.approx(1.0)
    best = max(shapely.MultiPoint(c).convex_hull.area for c in itertools.combinations(corners, 4))
    assert shapely.MultiPoint(r.points[:, :2]).convex_hull.area == pytest.approx(best)


@pytest.mark.parametrize("where, count", [((0.3, 0.2), "face"), ((1.5, 0.0), "edge"), ((1.5, 1.5), "vertex")])
def test_sphere_on_box_face_edge_corner(where, count):
    # a unit sphere touching a 2x2x2 box from above (face), beside its top edge or its corner
    centre = np.array([where[0], where[1], 1.0 + 0.8])
    if count == "edge":
        centre = np.array([1.0 + 0.6, 0.0, 1.0 + 0.6])
    if count == "vertex":
        centre = np.array([1.0 + 0.5, 1.0 + 0.5, 1.0 + 0.5])
    r = collide(Box((1.0, 1.0, 1.0)), ((0, 0, 0), np.eye(3)), Sphere(1.0), centre)
    nearest = np.clip(centre, -1, 1)
    gap = np.linalg.norm(centre - nearest)
    assert r.depth == pytest.approx(1.0 - gap)
    n = (centre - nearest) / gap
    deepest = centre - n
    np.testing.assert_allclose(r.points, [0.5 * (deepest + nearest)], atol=1e-12)
    code_b = int(r.point_ids[0]) >> 32  # the box is a: its feature is the high half
    kind = "face" if (code_b >> 12) & 0xFFF == 0xFFF else ("edge" if code_b >> 12 else "vertex")
    assert kind == count


# -- properties over random pairs ----------------------------------------------------------------

def random_pair(rng, dim):
    if dim == 2:
        kinds = [lambda: Circle(rng.uniform(0.3, 1.5)), lambda: Box(tuple(rng.uniform(0.2, 1.5, 2))),
                 lambda: Polygon(np.array([[0, 0], [1.5, 0], [2, 1], [0.5, 1.5], [-0.5, 0.8]]) * rng.uniform(0.5, 1.5)),
                 lambda: Polygon([(0, 0), (1, 0), (1, 2), (2, 2), (2, 0), (3, 0), (3, 3), (0, 3)]),
                 lambda: HalfPlane(tuple(rng.normal(size=2)), rng.uniform(-1, 1))]
    else:
        kinds = [lambda: Sphere(rng.uniform(0.3, 1.5)), lambda: Box(tuple(rng.uniform(0.2, 1.5, 3))),
                 lambda: Plane(tuple(rng.normal(size=3)), rng.uniform(-1, 1))]
    sa = kinds[rng.integers(len(kinds))]()
    sb = kinds[rng.integers(len(kinds) - 1)]()

    def pose():
        pos = rng.uniform(-1.5, 1.5, dim)
        if dim == 2:
            return pos, (rng.integers(4) * np.pi / 2 if rng.random() < 0.5 else rng.uniform(0, 2 * np.pi))
        if rng.random() < 0.5:  # aligned boxes meet face to face: many points
            return pos, Rotation.from_euler("xyz", rng.integers(4, size=3) * 90, degrees=True).as_matrix()
        return pos, Rotation.random(random_state=rng).as_matrix()
    return sa, pose(), sb, pose()


def touching_pairs(dim, count, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        sa, pa, sb, pb = random_pair(rng, dim)
        r = collide(sa, pose_arg(sa, pa), sb, pose_arg(sb, pb))
        if r is not None:
            out.append((sa, pa, sb, pb, r))
    return out


@pytest.mark.parametrize("dim", [2, 3])
def test_every_point_touches_both_shapes(dim):
    for sa, pa, sb, pb, r in touching_pairs(dim, 150, seed=dim):
        check_points_touch(sa, pa, sb, pb, r, scale=3.0)


@pytest.mark.parametrize("dim", [2, 3])
def test_swapping_a_and_b_gives_the_same_points_and_swapped_ids(dim):
    for sa, pa, sb, pb, r in touching_pairs(dim, 100, seed=10 + dim):
        s = collide(sb, pose_arg(sb, pb), sa, pose_arg(sa, pa))
        np.testing.assert_allclose(s.normal, -r.normal, atol=1e-12)
        assert len(s.points) == len(r.points)
        # match each point to its nearest: the same set, with the same separations
        near = np.linalg.norm(s.points[:, None, :] - r.points[None, :, :], axis=2)
        match = np.argmin(near, axis=1)
        assert sorted(match.tolist()) == list(range(len(r.points)))
        assert near[np.arange(len(match)), match].max() <= 1e-9
        np.testing.assert_allclose(s.separations, r.separations[match], atol=1e-9)
        if type(sa) is not type(sb):  # a different kind: the kernel sees one order, ids must swap halves
            swapped = ((r.point_ids & 0xFFFFFFFF) << 32) | (r.point_ids >> 32)
            assert sorted(s.point_ids.tolist()) == sorted(swapped.tolist())


@pytest.mark.parametrize("dim", [2, 3])
def test_resting_boxes_touch_along_the_whole_overlap(dim):
    # b rests (slightly sunk, tilted within or beyond the slop) on a, shifted at random:
    # every point touches both, and a flat landing gives 2 (2D) or 4 (3D) points
    rng = np.random.default_rng(40 + dim)
    counts = []
    for _ in range(200):
        ha, hb = rng.uniform(0.3, 2.0, dim), rng.uniform(0.3, 2.0, dim)
        shift = rng.uniform(-1, 1, dim) * (ha + hb)
        tilt = rng.choice([0.0, 1e-4, 5e-3, 0.2]) * rng.choice([-1, 1])
        shift[-1] = ha[-1] + hb[-1] - rng.uniform(0, 0.05)
        if dim == 2:
            pa, pb = ((0.0, 0.0), 0.0), (shift, tilt)
        else:
            pa, pb = ((0, 0, 0), np.eye(3)), (shift, Rotation.from_euler("xy", [tilt, -tilt / 2]).as_matrix())
        sa, sb = Box(tuple(ha)), Box(tuple(hb))
        r = collide(sa, pa, sb, pb)
        if r is None:
            continue
        check_points_touch(sa, pa, sb, pb, r, scale=5.0)
        flat = tilt == 0.0 and np.all(np.abs(shift[:-1]) < (ha + hb)[:-1] - 1e-6) and r.normal[-1] > 0.999
        if flat:
            assert len(r.points) == (2 if dim == 2 else 4)
        counts.append(len(r.points))
    assert max(counts) == (2 if dim == 2 else 4) and len(counts) > 100


def test_counts_for_resting_shapes():
    # lying flat: 2 points in 2D, 4 in 3D; a ball: 1
    assert len(collide(Box((3.0, 1.0)), ((0, 0), 0.0), Box((1.0, 1.0)), ((0.3, 1.9), 0.0)).points) == 2
    slab = Box((3, 3, 1.0)), ((0, 0, 0), np.eye(3))
    assert len(collide(*slab, Box((1, 1, 1.0)), ((0.3, 0.2, 1.9), np.eye(3))).points) == 4
    assert len(collide(Box((3, 3, 1.0)), ((0, 0, 0), np.eye(3)), Sphere(1.0), (0.3, 0.2, 1.9)).points) == 1
    assert len(collide(Plane((0, 0, 1), 0), None, Sphere(1.0), (0.3, 0.2, 0.9)).points) == 1


@pytest.mark.parametrize("dim", [2, 3])
def test_ids_are_stable_across_small_motions(dim):
    if dim == 2:
        ground, gpose, box = Box((4.0, 1.0)), ((0.0, 0.0), 0.0), Box((1.0, 0.5))
        poses = [((0.3 + dx, 1.45 + dy), da) for dx, dy, da in [(0, 0, 0), (1e-3, -1e-3, 1e-3), (-2e-2, 1e-3, -2e-3)]]
    else:
        ground, gpose, box = Box((4.0, 4.0, 1.0)), ((0, 0, 0), np.eye(3)), Box((1.0, 0.7, 0.5))
        poses = [((0.3 + dx, 0.1, 1.45 + dy), Rotation.from_euler("xyz", [da, -da, 2 * da]).as_matrix())
                 for dx, dy, da in [(0, 0, 0), (1e-3, -1e-3, 1e-3), (-2e-2, 1e-3, -2e-3)]]
    ids = [sorted(collide(ground, gpose, box, p).point_ids.tolist()) for p in poses]
    assert len(ids[0]) == (2 if dim == 2 else 4)
    assert ids[0] == ids[1] == ids[2]
    # a sphere rolling on a face keeps its id
    ball = [collide(ground, gpose, Circle(0.5) if dim == 2 else Sphere(0.5),
                    (0.1 * k, 1.45) if dim == 2 else (0.1 * k, 0.0, 1.45)).point_ids.tolist() for k in range(3)]
    assert ball[0] == ball[1] == ball[2]


# -- the dispatch table and the two backends ----------------------------------------------------

def test_every_contact_kind_pair_has_a_manifold_kernel():
    # every kind pair with contacts has points: no row of manifold_pairs is left without them
    assert set(MANIFOLD_KERNELS) == set(PAIR_KERNELS)


def _random_store(dim, n, seed, near):
    rng = np.random.default_rng(seed)
    store = BodyStore(dim)
    slots = store.allocate(n)
    shapes = []
    for _ in range(n):
        sa, _, _, _ = random_pair(rng, dim)
        shapes.append(sa)
    store.set_shapes(slots, shapes)
    pos = rng.uniform(-2, 2, (n, dim)) * (0.5 if near else 1.0)
    if dim == 2:
        ang = np.where(rng.random(n) < 0.3, 0.0, rng.uniform(0, 2 * np.pi, n))
        store.set_poses(slots, pos, ang)
    else:
        q = Rotation.random(n, random_state=seed).as_quat()[:, [3, 0, 1, 2]]
        q[rng.random(n) < 0.3] = [1, 0, 0, 0]
        store.set_poses(slots, pos, None, q)
    ia, ib = np.triu_indices(n, 1)
    return store, slots[ia], slots[ib]


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("near", [False, True])
def test_compiled_manifolds_match_numpy(dim, near):
    store, ia, ib = _random_store(dim, 40, seed=dim + 7 * near, near=near)
    c = contact_pairs(store, ia, ib)
    h = c.hit
    a, b, n, d = ia[h], ib[h], c.normal[h], c.depth[h]
    m1 = manifold_pairs(store, a, b, n, d, backend="numpy")
    m2 = manifold_pairs(store, a, b, n, d, backend="compiled")
    assert h.sum() > 50
    np.testing.assert_array_equal(m1.count, m2.count)
    np.testing.assert_array_equal(m1.ids, m2.ids)
    np.testing.assert_allclose(m1.points, m2.points, rtol=0, atol=1e-12)
    np.testing.assert_allclose(m1.separations, m2.separations, rtol=0, atol=1e-12)


def test_manifold_pairs_of_swapped_rows_match():
    store, ia, ib = _random_store(2, 30, seed=3, near=True)
    c = contact_pairs(store, ia, ib)
    h = c.hit
    m = manifold_pairs(store, ia[h], ib[h], c.normal[h], c.depth[h])
    s = manifold_pairs(store, ib[h], ia[h], -c.normal[h], c.depth[h])
    np.testing.assert_array_equal(m.count, s.count)
    kinds_differ = store.kind[ia[h]] != store.kind[ib[h]]
    swapped = np.where(m.ids >= 0, ((m.ids & 0xFFFFFFFF) << 32) | (m.ids >> 32), -1)
    np.testing.assert_array_equal(np.sort(s.ids[kinds_differ], axis=1), np.sort(swapped[kinds_differ], axis=1))


def test_kind_table_is_open_to_registration():
    # a new kind pair registers like the built-in ones: one entry per (dim, kind_a, kind_b)
    assert (3, Kind.BOX, Kind.BOX) in MANIFOLD_KERNELS and (2, Kind.POLYGON, Kind.POLYGON) in MANIFOLD_KERNELS


# -- the world -------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_world_contacts_carry_points(backend):
    w = World(dim=3, backend=backend, manifolds=True)
    w.add(Plane((0, 0, 1), 0.0), id="ground")
    w.add(Box((1.0, 1.0, 0.5)), position=(0, 0, 0.45), id="crate")
    w.add(Sphere(0.5), position=(5, 0, 0.4), id="ball")
    c = w.step()
    assert c.points is not None and c.points.shape == (2, 4, 3)
    assert c.point_count.tolist() == [4, 1]
    assert np.isnan(c.points[1, 1:]).all() and (c.point_ids[1, 1:] == -1).all()
    crate = c.of("crate")[0]
    np.testing.assert_allclose(sorted(crate.points.tolist()),
                               sorted([[x, y, -0.025] for x in (-1, 1) for y in (-1, 1)]), atol=1e-12)
    np.testing.assert_allclose(crate.separations, [-0.05] * 4)
    # unmoved pairs keep their points; a moved one gets new ones with the same ids
    ids_before = c.point_ids.copy()
    w.move("ball", position=(5, 0, 0.3))
    c2 = w.step()
    np.testing.assert_array_equal(c2.point_ids, ids_before)
    np.testing.assert_allclose(c2.points[0], c.points[0])
    assert c2.separations[1, 0] == pytest.approx(-0.2)
    sliced = c2[1:]
    assert sliced.points.shape == (1, 4, 3) and sliced.point_count.tolist() == [1]


def test_world_without_manifolds_has_none_and_rejects_bad_flags():
    w = World(dim=2)
    w.add(HalfPlane((0, 1), 0.0))
    w.add(Circle(1.0), position=(0, 0.5))
    c = w.step()
    assert c.points is None and c[0].points is None and c.manifold() is None
    with pytest.raises(InvalidArgumentError, match="manifolds"):
        World(dim=2, manifolds="yes")


def test_world_points_match_manifold_pairs_after_many_steps():
    rng = np.random.default_rng(5)
    w = World(dim=2, manifolds=True, backend="numpy")
    where = rng.uniform(0, 6, (40, 2))
    ids = w.add_many(Box((0.5, 0.5)), where)
    for _ in range(5):
        moving = rng.choice(ids, 8, replace=False)
        for i in moving.tolist():
            where[i] = rng.uniform(0, 6, 2)
            w.move(i, position=where[i])
        c = w.step()
        assert len(c) > 5
        for k, x in enumerate(c):
            r = collide(Box((0.5, 0.5)), (where[x.a], 0.0), Box((0.5, 0.5)), (where[x.b], 0.0))
            np.testing.assert_allclose(np.sort(x.points, axis=0), np.sort(r.points, axis=0), atol=1e-12)
            assert sorted(x.point_ids.tolist()) == sorted(r.point_ids.tolist())
            assert c.point_count[k] == len(r.points)


@pytest.mark.parametrize("dim", [2, 3])
def test_compiled_manifolds_match_numpy_near_touching(dim):
    # boxes resting exactly on each other (depth 0), shifted, tilted around the slop
    rng = np.random.default_rng(70 + dim)
    n = 120
    store = BodyStore(dim)
    slots = store.allocate(2 * n)
    ha, hb = rng.uniform(0.3, 2.0, (n, dim)), rng.uniform(0.3, 2.0, (n, dim))
    store.set_shapes(slots, [Box(tuple(h)) for h in np.concatenate([ha, hb])])
    shift = rng.uniform(-1, 1, (n, dim)) * (ha + hb)
    shift[:, -1] = ha[:, -1] + hb[:, -1]
    tilt = rng.choice([0.0, 0.0099999, 0.0100001, 1e-12], n)
    if dim == 2:
        store.set_poses(slots, np.concatenate([np.zeros((n, 2)), shift]), np.concatenate([np.zeros(n), tilt]))
    else:
        q = Rotation.from_euler("x", tilt[:, None]).as_quat()[:, [3, 0, 1, 2]]
        store.set_poses(slots, np.concatenate([np.zeros((n, 3)), shift]), None,
                        np.concatenate([np.tile([1.0, 0, 0, 0], (n, 1)), q]))
    ia, ib = slots[:n], slots[n:]
    c = contact_pairs(store, ia, ib)
    h = c.hit
    assert h.sum() > n // 2
    m1 = manifold_pairs(store, ia[h], ib[h], c.normal[h], c.depth[h], backend="numpy")
    m2 = manifold_pairs(store, ia[h], ib[h], c.normal[h], c.depth[h], backend="compiled")
    np.testing.assert_array_equal(m1.count, m2.count)
    np.testing.assert_array_equal(m1.ids, m2.ids)
    np.testing.assert_allclose(m1.points, m2.points, rtol=0, atol=1e-12)
    assert (m1.count >= 2).sum() > n // 4
