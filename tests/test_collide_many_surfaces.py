"""``collide_many`` and ``check_trajectory`` with the version 3 shapes: chains, rounded shapes,
triangle meshes and heightfields.

* ``collide_many`` gives, pair by pair, what ``collide`` gives (hit, normal and depth of the
  deepest touching pair of parts), on both backends;
* hits agree with independent oracles away from touching: shapely in 2D (a chain is its
  segments, a rounded shape its core within its radius), python-fcl in 3D (a mesh or a
  heightfield as an ``fcl.BVHModel`` of its triangles, the heightfield's built here from the
  format's numbering; each pair asked with the moving shape shrunk and grown by ``MARGIN``,
  both answers equal);
* ``check_trajectory`` among a mesh and a heightfield: the first touching step against fcl
  (shrunk and grown), the clearance at each step apart against the exact distance of a
  ball's centre to every triangle (Ericson, RTCD 5.1.5) less its radius.
"""

from __future__ import annotations

import math

import fcl
import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Point
from shapely.geometry import Polygon as ShapelyPolygon

from collideworld import (
    Box,
    Capsule,
    Chain,
    Circle,
    HeightField,
    Polygon,
    Sphere,
    TriangleMesh,
    check_trajectory,
    collide,
    collide_many,
)

BACKENDS = ["numpy", "compiled"]
MARGIN = 1e-3


def rot2(a):
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def quat_matrix(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


# -- 2D: chains and rounded shapes against shapely ----------------------------------------------


def random_2d(rng):
    k = int(rng.integers(6))
    if k == 0:
        pts = np.cumsum(rng.uniform(-1, 1, (int(rng.integers(2, 6)), 2)), axis=0)
        return Chain(pts.tolist(), loop=bool(len(pts) > 2 and rng.random() < 0.3))
    if k == 1:
        return Box(tuple(rng.uniform(0.2, 0.8, 2)), float(rng.uniform(0.05, 0.4)))
    if k == 2:
        return Polygon([(-0.5, -0.3), (0.6, -0.2), (0.1, 0.6)], float(rng.uniform(0.05, 0.4)))
    if k == 3:
        return Circle(float(rng.uniform(0.2, 0.7)))
    if k == 4:
        return Box(tuple(rng.uniform(0.2, 0.8, 2)))
    return Capsule((-0.4, 0.0), (0.4, 0.1), float(rng.uniform(0.1, 0.3)))


def geom_2d(shape, pos, ang):
    """(shapely geometry of the core, radius)."""
    if isinstance(shape, Chain):
        pts = np.array([p for p in shape.points]) @ rot2(ang).T + pos
        return (shapely.LinearRing(pts) if shape.loop else LineString(pts)), 0.0
    if isinstance(shape, Circle):
        return Point(pos), shape.radius
    if isinstance(shape, Capsule):
        return LineString(np.array([shape.p0, shape.p1]) @ rot2(ang).T + pos), shape.radius
    if isinstance(shape, Box):
        hx, hy = shape.half_extents
        local = np.array([(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)])
    else:
        local = np.array(shape.vertices)
    return ShapelyPolygon(local @ rot2(ang).T + pos), shape.radius


@pytest.mark.parametrize("backend", BACKENDS)
def test_collide_many_2d_chains_and_rounded_agree_with_collide_and_shapely(backend):
    """300 random pairs, a chain or a rounded shape on at least one side (never two chains: two
    curves touch only on a measure-zero set): collide_many row k is collide(pair k) (hit, normal
    and depth to 1e-12) and its hit is shapely's cores' distance <= the radii."""
    rng = np.random.default_rng(2901)
    n = 300
    sa, sb = [], []
    while len(sa) < n:
        a, b = random_2d(rng), random_2d(rng)
        rounded = lambda s: isinstance(s, Chain) or getattr(s, "radius", 0) > 0 and isinstance(s, (Box, Polygon))  # noqa: E731
        if not (rounded(a) or rounded(b)) or (isinstance(a, Chain) and isinstance(b, Chain)):
            continue
        sa.append(a)
        sb.append(b)
    pa, pb = rng.uniform(-1, 1, (n, 2)), rng.uniform(-1.5, 1.5, (n, 2))
    ra, rb = rng.uniform(-3, 3, n), rng.uniform(-3, 3, n)
    res = collide_many(sa, (pa, ra), sb, (pb, rb), backend=backend)
    agree = hits = 0
    for k in range(n):
        one = collide(sa[k], (pa[k], ra[k]), sb[k], (pb[k], rb[k]), backend=backend)
        assert bool(res.hit[k]) == (one is not None), k
        if one is not None:
            np.testing.assert_allclose(res.normal[k], one.normal, atol=1e-12)
            assert res.depth[k] == pytest.approx(one.depth, abs=1e-12)
        (ga, ra_), (gb, rb_) = geom_2d(sa[k], pa[k], ra[k]), geom_2d(sb[k], pb[k], rb[k])
        d = ga.distance(gb)
        if abs(d - ra_ - rb_) < 1e-7 or (d == 0 and ra_ + rb_ == 0):
            continue
        assert bool(res.hit[k]) == (d <= ra_ + rb_), (k, sa[k], sb[k], d, ra_ + rb_)
        agree += 1
        hits += bool(res.hit[k])
    assert agree >= 280 and 40 <= hits <= agree - 40, (agree, hits)


# -- 3D: meshes and heightfields against python-fcl ---------------------------------------------

HF_HEIGHTS = np.array([[0.3 * math.sin(0.9 * j) * math.cos(0.7 * i) for j in range(6)] for i in range(5)])
HF_CELL = (0.5, 0.4)


def hf_triangles():
    """The heightfield's triangles in the format's numbering (cell (i, j): (i,j)-(i,j+1)-(i+1,j+1), then
    (i,j)-(i+1,j+1)-(i+1,j)), as local points."""
    rows, cols = HF_HEIGHTS.shape
    p = lambda i, j: (j * HF_CELL[0], i * HF_CELL[1], HF_HEIGHTS[i, j])  # noqa: E731
    out = []
    for i in range(rows - 1):
        for j in range(cols - 1):
            out += [[p(i, j), p(i, j + 1), p(i + 1, j + 1)], [p(i, j), p(i + 1, j + 1), p(i + 1, j)]]
    return np.array(out)


def bumpy_mesh():
    """A 5 x 5-vertex bumpy sheet (32 triangles) and a closed tetrahedron above it: 36 triangles."""
    xs = np.linspace(0.0, 2.0, 5)
    verts = [(x, y, 0.2 * math.cos(2 * x) * math.sin(3 * y)) for y in xs for x in xs]
    tris = []
    for j in range(4):
        for i in range(4):
            a = j * 5 + i
            tris += [(a, a + 1, a + 6), (a, a + 6, a + 5)]
    base = len(verts)
    verts += [(0.8, 0.8, 0.8), (1.4, 0.8, 0.8), (1.1, 1.4, 0.8), (1.1, 1.0, 1.3)]
    tris += [(base, base + 1, base + 2), (base, base + 1, base + 3), (base + 1, base + 2, base + 3),
             (base, base + 2, base + 3)]
    return np.array(verts), np.array(tris)


def fcl_bvh(tri_points, rot, pos):
    m = fcl.BVHModel()
    m.beginModel(3 * len(tri_points), len(tri_points))
    m.addSubModel(tri_points.reshape(-1, 3), np.arange(3 * len(tri_points)).reshape(-1, 3))
    m.endModel()
    return fcl.CollisionObject(m, fcl.Transform(rot, pos))


def fcl_probe(shape, grow, rot, pos):
    """The shape (a sphere, box or capsule along local z) grown by ``grow`` (negative: shrunk)."""
    if isinstance(shape, Sphere):
        g = fcl.Sphere(shape.radius + grow)
    elif isinstance(shape, Box):
        g = fcl.Box(*(2 * (np.array(shape.half_extents) + grow)).tolist())
    else:
        g = fcl.Capsule(shape.radius + grow, float(np.linalg.norm(np.subtract(shape.p1, shape.p0))))
    return fcl.CollisionObject(g, fcl.Transform(rot, pos))


def fcl_hit(a, b):
    return fcl.collide(a, b, fcl.CollisionRequest(), fcl.CollisionResult()) > 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_collide_many_3d_meshes_and_heightfields_agree_with_collide_and_fcl(backend):
    """200 random pairs of a triangle mesh or a heightfield (posed) against a sphere, a box or an
    upright capsule: collide_many row k is collide(pair k) (hit, normal, depth to 1e-12) and its
    hit is python-fcl's, asked with the probe shrunk and grown by 1e-3 (pairs where the two
    answers differ are too near touching to decide and are skipped)."""
    rng = np.random.default_rng(2903)
    verts, tris = bumpy_mesh()
    mesh = TriangleMesh(verts, tris)
    field = HeightField(HF_HEIGHTS, HF_CELL)
    local = {id(mesh): verts[tris], id(field): hf_triangles()}
    probes = [Sphere(0.3), Box((0.3, 0.2, 0.15)), Capsule((0, 0, -0.25), (0, 0, 0.25), 0.15)]
    n = 200
    sa = [mesh if k % 2 else field for k in range(n)]
    sb = [probes[k % 3] for k in range(n)]
    qa = rng.normal(size=(n, 4)) * [3, 0.3, 0.3, 0.3]
    qa /= np.linalg.norm(qa, axis=1)[:, None]
    qb = rng.normal(size=(n, 4))
    qb /= np.linalg.norm(qb, axis=1)[:, None]
    pa = rng.uniform(-0.2, 0.2, (n, 3))
    pb = rng.uniform([0.0, 0.0, -0.4], [2.0, 1.6, 0.9], (n, 3))
    res = collide_many(sa, (pa, qa), sb, (pb, qb), backend=backend)
    agree = hits = 0
    for k in range(n):
        one = collide(sa[k], (pa[k], qa[k]), sb[k], (pb[k], qb[k]), backend=backend)
        assert bool(res.hit[k]) == (one is not None), k
        if one is not None:
            np.testing.assert_allclose(res.normal[k], one.normal, atol=1e-12)
            assert res.depth[k] == pytest.approx(one.depth, abs=1e-12)
        surface = fcl_bvh(local[id(sa[k])], quat_matrix(qa[k]), pa[k])
        small = fcl_hit(surface, fcl_probe(sb[k], -MARGIN, quat_matrix(qb[k]), pb[k]))
        big = fcl_hit(surface, fcl_probe(sb[k], MARGIN, quat_matrix(qb[k]), pb[k]))
        if small != big:
            continue
        assert bool(res.hit[k]) == small, (k, sa[k], sb[k])
        agree += 1
        hits += small
    assert agree >= 190 and 30 <= hits <= agree - 30, (agree, hits)


@pytest.mark.parametrize("backend", BACKENDS)
def test_collide_many_mesh_against_heightfield_agrees_with_collide_and_fcl(backend):
    """60 poses of the bumpy mesh over the heightfield: collide_many is collide for each, and its hit is
    fcl's BVH-against-BVH answer wherever the mesh raised and lowered by 1e-3 gets the same answer."""
    rng = np.random.default_rng(2905)
    verts, tris = bumpy_mesh()
    mesh, field = TriangleMesh(verts, tris), HeightField(HF_HEIGHTS, HF_CELL)
    n = 60
    pa = rng.uniform([-0.5, -0.5, -0.6], [0.5, 0.5, 0.5], (n, 3))
    qa = np.tile([1.0, 0.0, 0.0, 0.0], (n, 1))
    res = collide_many(mesh, (pa, qa), field, (np.zeros(3), qa), backend=backend)
    agree = hits = 0
    hf = fcl_bvh(hf_triangles(), np.eye(3), np.zeros(3))
    for k in range(n):
        one = collide(mesh, (pa[k], qa[k]), field, (np.zeros(3), qa[k]), backend=backend)
        assert bool(res.hit[k]) == (one is not None), k
        if one is not None:
            assert res.depth[k] == pytest.approx(one.depth, abs=1e-12)
        up, down = (fcl_hit(fcl_bvh(verts[tris], np.eye(3), pa[k] + [0, 0, dz]), hf) for dz in (MARGIN, -MARGIN))
        if up != down:
            continue
        assert bool(res.hit[k]) == up, k
        agree += 1
        hits += up
    assert agree >= 50 and 10 <= hits <= agree - 10, (agree, hits)


def closest_on_triangle(p, a, b, c):
    """Closest point of triangle abc to p (Ericson, RTCD 5.1.5)."""
    ab, ac, ap = b - a, c - a, p - a
    d1, d2 = ab @ ap, ac @ ap
    if d1 <= 0 and d2 <= 0:
        return a
    bp = p - b
    d3, d4 = ab @ bp, ac @ bp
    if d3 >= 0 and d4 <= d3:
        return b
    vc = d1 * d4 - d3 * d2
    if vc <= 0 and d1 >= 0 and d3 <= 0:
        return a + d1 / (d1 - d3) * ab
    cp = p - c
    d5, d6 = ab @ cp, ac @ cp
    if d6 >= 0 and d5 <= d6:
        return c
    vb = d5 * d2 - d1 * d6
    if vb <= 0 and d2 >= 0 and d6 <= 0:
        return a + d2 / (d2 - d6) * ac
    va = d3 * d6 - d5 * d4
    if va <= 0 and (d4 - d3) >= 0 and (d5 - d6) >= 0:
        return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b)
    denom = 1.0 / (va + vb + vc)
    return a + ab * (vb * denom) + ac * (vc * denom)


@pytest.mark.parametrize("seed", range(6))
def test_check_trajectory_among_a_mesh_and_a_heightfield(seed):
    """A ball (even seeds) or a box (odd seeds) descending along a random line over the bumpy mesh (at
    (0.2, 0.1, 0)) and the heightfield (at (2.5, 0, 0)), 40 steps: the first touching step and
    obstacle are those of python-fcl (shrunk and grown by 1e-3, no step left undecided); a ball's
    clearance at each step apart is the exact distance of its centre to the nearest triangle less
    its radius (1e-9), a box's is fcl's distance (1e-4)."""
    rng = np.random.default_rng(2910 + seed)
    verts, tris = bumpy_mesh()
    obstacles = [TriangleMesh(verts, tris), HeightField(HF_HEIGHTS, HF_CELL)]
    where = np.array([[0.2, 0.1, 0.0, 1, 0, 0, 0], [2.5, 0.0, 0.0, 1, 0, 0, 0]], dtype=float)
    world_tris = [verts[tris] + where[0, :3], hf_triangles() + where[1, :3]]
    shape = Sphere(0.25) if seed % 2 == 0 else Box((0.25, 0.2, 0.15))
    start = np.array([rng.uniform(0.3, 4.5), rng.uniform(0.2, 1.8), 2.0])
    end = np.array([rng.uniform(0.3, 4.5), rng.uniform(0.2, 1.8), -0.6])
    t = np.linspace(0.0, 1.0, 40)[:, None]
    poses = np.concatenate([start + t * (end - start), np.tile([1.0, 0, 0, 0], (40, 1))], axis=1)
    res = check_trajectory(shape, poses, obstacles, where)
    surfaces = [fcl_bvh(tri, np.eye(3), np.zeros(3)) for tri in world_tris]
    first = (-1, -1)
    for k in range(40):
        touch = []
        for j, surf in enumerate(surfaces):
            small = fcl_hit(surf, fcl_probe(shape, -MARGIN, np.eye(3), poses[k, :3]))
            big = fcl_hit(surf, fcl_probe(shape, MARGIN, np.eye(3), poses[k, :3]))
            assert small == big, f"step {k} is too near touching obstacle {j} to decide: move the seed"
            touch.append(small)
        if any(touch):
            first = (k, touch.index(True))
            break
        if isinstance(shape, Sphere):
            c = poses[k, :3]
            exact = min(float(np.linalg.norm(c - closest_on_triangle(c, *tri))) for tris_ in world_tris
                        for tri in tris_) - shape.radius
            assert res.clearance[k] == pytest.approx(exact, abs=1e-9), k
        else:
            d = min(fcl.distance(surf, fcl_probe(shape, 0.0, np.eye(3), poses[k, :3]), fcl.DistanceRequest(),
                                 fcl.DistanceResult()) for surf in surfaces)
            assert res.clearance[k] == pytest.approx(d, abs=1e-4), k
    assert (res.step, res.obstacle) == first
    assert first[0] > 0  # every line starts clear above both and ends below the surface
