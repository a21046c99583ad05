"""Hull contact kernels against independent oracles, and the hull table's lifetime.

Oracles, none of them collideworld's:

- overlap: linear programming (HiGHS through ``scipy.optimize.linprog``): the
  largest ball-free slack ``s`` with a point inside every face plane of both
  hulls, ``s >= 0`` when they touch;
- depth: brute force over every candidate axis of the Minkowski difference,
  built here from scipy's Qhull run on the *world* vertices (every face
  normal of both hulls and the cross product of every pair of their edges),
  each measured by projecting every vertex both ways; the least overlap is
  the minimum translation distance (Gottschalk 1996; Ericson RTCD §5.2.1).

Both backends' kernels (numpy: batched SAT; compiled: EPA, with the SAT as
its fallback) are checked on hulls of 8, 16, 32 and 64 vertices.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.spatial import ConvexHull as Qhull

from collideworld import Box, ConvexHull, Sphere, World
from collideworld.backend import compiled_available
from collideworld.bodies import BodyStore
from collideworld.geometry import contact_hull as numpy_kernels

BACKENDS = ["numpy"] + (["compiled"] if compiled_available() else [])


def _kernels(backend: str):
    if backend == "numpy":
        return numpy_kernels
    from collideworld.geometry.compiled import contact_hull as compiled_kernels

    return compiled_kernels


def _sphere_hull(rng: np.random.Generator, n: int) -> ConvexHull:
    """A hull of exactly ``n`` vertices: points on an axis-scaled sphere."""
    while True:
        p = rng.normal(size=(n, 3))
        p /= np.linalg.norm(p, axis=1)[:, None]
        hull = ConvexHull([tuple(x) for x in p * rng.uniform(0.4, 1.0, 3)])
        if len(hull.vertices) == n:
            return hull


def _posed_store(shapes, positions, quaternions) -> BodyStore:
    store = BodyStore(3)
    slots = store.allocate(len(shapes))
    store.set_shapes(slots, shapes)
    q = np.asarray(quaternions, dtype=float)
    store.set_poses(slots, np.asarray(positions, dtype=float), quaternion=q / np.linalg.norm(q, axis=1)[:, None])
    return store


def _brute_depth(pa: np.ndarray, pb: np.ndarray) -> float:
    """Least overlap of point sets' hulls over all face normals and edge-pair cross products (Qhull's own)."""
    axes = []
    edges = []
    for p in (pa, pb):
        q = Qhull(p)
        axes.append(q.equations[:, :3])
        simplices = q.simplices
        e = np.concatenate([simplices[:, [0, 1]], simplices[:, [1, 2]], simplices[:, [2, 0]]])
        edges.append(p[e[:, 1]] - p[e[:, 0]])
    cross = np.cross(edges[0][:, None, :], edges[1][None, :, :]).reshape(-1, 3)
    length = np.linalg.norm(cross, axis=1)
    cross = cross[length > 1e-9 * length.max()] / length[length > 1e-9 * length.max()][:, None]
    axes = np.concatenate(axes + [cross])
    axes /= np.linalg.norm(axes, axis=1)[:, None]
    ja, jb = pa @ axes.T, pb @ axes.T
    over = np.minimum(ja.max(axis=0) - jb.min(axis=0), jb.max(axis=0) - ja.min(axis=0))
    return float(over.min())


def _lp_slack(pa: np.ndarray, pb: np.ndarray) -> float:
    """Largest s with a point s inside every face plane of both hulls (>= 0: they touch or overlap)."""
    rows, rhs = [], []
    for p in (pa, pb):
        eq = Qhull(p).equations
        norm = np.linalg.norm(eq[:, :3], axis=1)
        rows.append(eq[:, :3] / norm[:, None])
        rhs.append(-eq[:, 3] / norm)
    A, b = np.concatenate(rows), np.concatenate(rhs)
    res = linprog(c=[0, 0, 0, -1], A_ub=np.hstack([A, np.ones((len(A), 1))]), b_ub=b,
                  bounds=[(None, None)] * 3 + [(-10, None)], method="highs")
    assert res.status == 0
    return float(-res.fun)


@pytest.mark.parametrize("vertices", [8, 16, 32, 64])
@pytest.mark.parametrize("backend", BACKENDS)
def test_hull_hull_depth_is_the_brute_force_mtd(backend: str, vertices: int) -> None:
    rng = np.random.default_rng([21, vertices])
    n = 40
    hulls = [_sphere_hull(rng, vertices) for _ in range(2 * n)]
    store = _posed_store(hulls, rng.uniform(-0.5, 0.5, (2 * n, 3)), rng.normal(size=(2 * n, 4)))
    a, b = np.arange(n), np.arange(n, 2 * n)
    got = _kernels(backend).contact_hull_hull(*store.hull_arrays(a), *store.hull_arrays(b))
    va, vb = store.hull_arrays(a)[0], store.hull_arrays(b)[0]
    overlapping = 0
    for i in range(n):
        slack = _lp_slack(va[i], vb[i])
        if abs(slack) < 1e-9:
            continue  # within the LP's own accuracy of touching
        assert bool(got.hit[i]) == (slack > 0), (i, slack)
        if slack <= 0:
            continue
        overlapping += 1
        expected = _brute_depth(va[i], vb[i])
        assert abs(got.depth[i] - expected) < 1e-12, (i, got.depth[i], expected)
        # the normal is an MTD axis: the overlap along it is the depth, b lying along +n
        nrm = got.normal[i]
        assert abs(np.linalg.norm(nrm) - 1) < 1e-12
        assert abs((va[i] @ nrm).max() - (vb[i] @ nrm).min() - expected) < 1e-12
    assert overlapping > n // 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_box_ball_and_capsule_against_hulls_by_brute_force(backend: str) -> None:
    """Box cores are polytopes (brute force as above); a ball's or capsule's depth is its radius plus its core's."""
    rng = np.random.default_rng(22)
    n = 30
    kernels = _kernels(backend)
    hulls = [_sphere_hull(rng, int(rng.choice([8, 16, 32]))) for _ in range(n)]
    store = _posed_store(hulls, rng.uniform(-0.5, 0.5, (n, 3)), rng.normal(size=(n, 4)))
    arrays = store.hull_arrays(np.arange(n))
    verts = arrays[0]
    # boxes
    half = rng.uniform(0.1, 0.8, (n, 3))
    q = rng.normal(size=(n, 4))
    rot = _posed_store([Box(tuple(h)) for h in half], np.zeros((n, 3)), q).rotation[:n]
    center = rng.uniform(-0.6, 0.6, (n, 3))
    got = kernels.contact_box_hull(center, rot, half, *arrays)
    signs = np.array(list(itertools.product((-1.0, 1.0), repeat=3)))
    checked = 0
    for i in range(n):
        corners = center[i] + (signs * half[i]) @ rot[i].T
        slack = _lp_slack(corners, verts[i])
        if abs(slack) < 1e-9:
            continue
        assert bool(got.hit[i]) == (slack > 0)
        if slack > 0:
            checked += 1
            assert abs(got.depth[i] - _brute_depth(corners, verts[i])) < 1e-12
    assert checked > 5
    # balls and capsules whose cores sit inside the hull: depth = radius + the core's own MTD
    inside = verts.mean(axis=1)
    radius = rng.uniform(0.05, 0.5, n)
    got_ball = kernels.contact_ball_hull(inside, radius, *arrays)
    assert got_ball.hit.all()
    for i in range(n):
        eq = Qhull(verts[i]).equations
        to_face = -(eq[:, :3] @ inside[i] + eq[:, 3]) / np.linalg.norm(eq[:, :3], axis=1)
        assert abs(got_ball.depth[i] - (radius[i] + to_face.min())) < 1e-12
    direction = rng.normal(size=(n, 3)) * 0.05
    got_cap = kernels.contact_capsule_hull(inside - direction, inside + direction, radius, *arrays)
    for i in range(n):
        core = np.stack([inside[i] - direction[i], inside[i] + direction[i]])
        # a segment inside a hull: axes are the hull's faces and the segment crossed with each edge
        eq = Qhull(verts[i]).equations
        axes = [eq[:, :3] / np.linalg.norm(eq[:, :3], axis=1)[:, None]]
        simplices = Qhull(verts[i]).simplices
        e = np.concatenate([simplices[:, [0, 1]], simplices[:, [1, 2]], simplices[:, [2, 0]]])
        cross = np.cross(core[1] - core[0], verts[i][e[:, 1]] - verts[i][e[:, 0]])
        axes.append(cross / np.linalg.norm(cross, axis=1)[:, None])
        ax = np.concatenate(axes)
        ja, jb = core @ ax.T, verts[i] @ ax.T
        over = np.minimum(ja.max(axis=0) - jb.min(axis=0), jb.max(axis=0) - ja.min(axis=0)).min()
        assert got_cap.hit[i] and abs(got_cap.depth[i] - (radius[i] + over)) < 1e-12


def _cube(half: float = 1.0) -> ConvexHull:
    return ConvexHull([tuple(half * np.array(s)) for s in itertools.product((-1, 1), repeat=3)])


@pytest.mark.parametrize("backend", BACKENDS)
def test_touching_exactly_counts_and_a_gap_does_not(backend: str) -> None:
    kernels = _kernels(backend)
    s2 = 0.5 ** 0.5
    # a cube turned 45 degrees about x (top edge along x at z = sqrt 2) and one turned 45 degrees
    # about y (bottom edge along y at z = -sqrt 2 from its centre): their edges cross
    about_x = (np.cos(np.pi / 8), np.sin(np.pi / 8), 0.0, 0.0)
    about_y = (np.cos(np.pi / 8), 0.0, np.sin(np.pi / 8), 0.0)
    cases = [
        # face on face, offset sideways: touching along a patch
        ((0, 0, 0), (1, 0, 0, 0), (2.0, 0.5, 0.25), (1, 0, 0, 0)),
        # edge across edge, touching at (0, 0, sqrt 2)
        ((0, 0, 0), about_x, (0.0, 0.0, 2 * 2 * s2), about_y),
    ]
    for pa, qa, pb, qb in cases:
        for gap, expect in ((0.0, True), (1e-9, False)):
            store = _posed_store([_cube(), _cube()], [pa, np.add(pb, (gap, 0, 0) if pb[0] else (0, 0, gap))],
                                 [qa, qb])
            got = kernels.contact_hull_hull(*store.hull_arrays(np.array([0])), *store.hull_arrays(np.array([1])))
            assert bool(got.hit[0]) is expect, (pa, pb, gap)
            if expect:
                assert got.depth[0] <= 1e-14 * 4


@pytest.mark.parametrize("vertices", [8, 32, 64])
def test_epa_and_the_closed_form_sat_agree(vertices: int) -> None:
    """The compiled kernel's EPA against its own SAT fallback (use_epa False) on many random pairs."""
    if not compiled_available():
        pytest.skip("numba is not installed")
    from collideworld.geometry.compiled import contact_hull as ck
    from collideworld.geometry.compiled.kernel_support import contact_outputs, touch_rule

    rng = np.random.default_rng([23, vertices])
    n = 150
    pool = [_sphere_hull(rng, vertices) for _ in range(20)]
    shapes = [pool[i] for i in rng.integers(0, 20, 2 * n)]
    store = _posed_store(shapes, rng.uniform(-0.5, 0.5, (2 * n, 3)), rng.normal(size=(2 * n, 4)))
    a, b = store.hull_arrays(np.arange(n)), store.hull_arrays(np.arange(n, 2 * n))
    results = []
    for use_epa in (False, True):
        out = contact_outputs(n, 3)
        ck._hull_rows(*(np.ascontiguousarray(x) for x in a + b), touch_rule(), use_epa, *out)
        results.append(out)
    sat, epa = results
    assert sat.hit.sum() > n // 2
    np.testing.assert_array_equal(sat.hit, epa.hit)
    np.testing.assert_allclose(epa.depth, sat.depth, rtol=0, atol=1e-13)
    np.testing.assert_allclose(epa.normal, sat.normal, rtol=0, atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_world_hulls_against_spheres_match_brute_force(backend: str) -> None:
    rng = np.random.default_rng(24)
    w = World(dim=3, backend=backend)
    hull = _sphere_hull(rng, 32)
    w.add(hull, position=(0, 0, 0), id="hull")
    w.add(Sphere(0.3), position=(0.0, 0.0, 0.0), id="ball")
    (c,) = list(w.step())
    eq = Qhull(np.asarray(hull.vertices)).equations
    to_face = -eq[:, 3] / np.linalg.norm(eq[:, :3], axis=1)
    assert abs(c.depth - (0.3 + to_face.min())) < 1e-12


# -- the hull table -----------------------------------------------------------------------

def test_hull_table_is_freed_reused_and_compacted() -> None:
    rng = np.random.default_rng(25)
    w = World(dim=3)
    small = [_sphere_hull(rng, 8) for _ in range(3)]
    big = _sphere_hull(rng, 64)
    ids = [w.add(h, position=(3.0 * i, 0, 0)) for i, h in enumerate(small + [big, small[0]])]
    table = w._store.hulls
    assert table.live_hulls == 4 and table.verts.shape[1] == 64
    w.validate()
    # the shared hull stays while one body still uses it
    w.remove(ids[0])
    assert table.live_hulls == 4
    w.remove(ids[4])
    assert table.live_hulls == 3
    w.validate()
    # its row is reused by the next new hull
    freed = [i for i, h in enumerate(table.hulls) if h is None]
    assert len(freed) == 1
    w.add(_sphere_hull(rng, 8), position=(0.0, 5.0, 0.0), id="new")
    assert table.hulls[freed[0]] is not None and table.live_hulls == 4 and len(table.hulls) == 4
    # replacing a hull in place and removing the big one: compact drops the row and the padding
    w.set_shape("new", Sphere(1.0))
    w.remove(ids[3])
    assert table.live_hulls == 2
    w.compact()
    table = w._store.hulls
    assert len(table.hulls) == 2 and table.verts.shape == (2, 8, 3)
    w.validate()
    # contacts still right after the renumbering
    w.add(small[1], position=(3.0, 0.0, 0.05), id="twin")
    assert [(c.a, c.b) for c in w.step()] == [(ids[1], "twin")]
    for body in list(w.ids()):
        w.remove(body)
    assert w._store.hulls.live_hulls == 0


def test_hull_queries_do_not_grow_the_table() -> None:
    rng = np.random.default_rng(26)
    w = World(dim=3)
    w.add(_sphere_hull(rng, 8), position=(0, 0, 0), id="a")
    for _ in range(50):
        w.query_shape(_sphere_hull(rng, 8), position=(0.5, 0, 0), quaternion=(1, 0, 0, 0))
    assert w._store.hulls.live_hulls == 1
    w.validate()
