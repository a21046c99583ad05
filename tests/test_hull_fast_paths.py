"""Issue 28: 3D hulls' fast paths in the compiled queries.

- ``compiled.queries._hull_planes``: a ball or box probe against a hull by the hull's face planes, before any
  GJK. Checked near touching against scipy's facets (points and balls placed off facet centroids along the
  facet normal, where the distance to the hull is exactly the offset) and python-fcl (boxes).
- ``spatial.compiled.first_hits`` casts hulls inside the walk (``_ray_hull``): checked against brute force
  (every body cast by the numpy kernels, ``raycast_slots``) on rays aimed at hull vertices and edge
  midpoints (grazing) and random rays.
"""

from __future__ import annotations

from typing import Any

import fcl
import numpy as np
from scipy.spatial import ConvexHull as ScipyHull
from scipy.spatial.transform import Rotation

from collideworld import Box, Compound, ConvexHull, Sphere, World

DELTA = 1e-6  # off touching (the plane test decides past 1e5 touching tolerances, ~1e-8 here)


def _hull_world(seed: int, n: int = 24,
                backend: str = "compiled") -> tuple[World, list[tuple[int, np.ndarray, ScipyHull]]]:
    """``n`` 20-point hulls at random poses; per hull its slot, world vertices and scipy hull."""
    rng = np.random.default_rng(seed)
    w = World(3, backend=backend)
    out = []
    for i in range(n):
        local = rng.normal(size=(20, 3)) * float(rng.uniform(0.4, 1.5))
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        w.add(ConvexHull(local), rng.uniform(-20, 20, 3), quaternion=q, id=i)
    st = w._store
    for s in st.body_slots():
        world = st.hulls.verts[st.hull[s]] @ st.rotation[s].T + st.position[s]
        out.append((int(s), world, ScipyHull(world)))
    return w, out


def _planes(w: World) -> tuple[Any, Any, tuple[float, float]]:
    from collideworld.compiled.queries import _hull_planes
    from collideworld.geometry.compiled.kernel_support import touch_rule
    from collideworld.queries import QueryIndex

    index = QueryIndex(w._store, "compiled")
    index.refresh()
    return _hull_planes, index.arrays, touch_rule()


def test_hull_plane_test_agrees_with_scipy_facets_near_touching() -> None:
    """Points and balls off facet centroids by +-DELTA along the facet normal (distance to the hull: exactly
    the offset), at the hull's vertices (touching), and random points: the plane test's MISS / HIT agree
    with scipy's facets, it decides every probe DELTA clear of touching that a plane test can decide
    (a point either side, a ball outside), and leaves touching to the exact test."""
    from collideworld.compiled.queries import HIT, MISS, OTHER

    w, hulls = _hull_world(3)
    test, q, rule = _planes(w)
    rng = np.random.default_rng(4)
    eye = np.eye(3)[None]
    counts = {MISS: 0, HIT: 0, OTHER: 0}

    def verdict(u: int, c: np.ndarray, r: float) -> int:
        v = int(test(q, u, 1, 0, c[None].astype(float), eye, np.array([r]), np.zeros((1, 3)), rule))
        counts[v] += 1
        return v

    for u, verts, sh in hulls:
        eq = sh.equations
        for f in rng.choice(len(sh.simplices), 12, replace=False):
            n, cen = eq[f, :3], verts[sh.simplices[f]].mean(axis=0)
            assert verdict(u, cen + DELTA * n, 0.0) == MISS
            assert verdict(u, cen - DELTA * n, 0.0) == HIT
            r = float(rng.uniform(0.01, 1.0))
            assert verdict(u, cen + (r + DELTA) * n, r) == MISS
            assert verdict(u, cen + (r - DELTA) * n, r) == OTHER  # centre outside, ball reaching in: GJK's
        for v in sh.vertices:
            assert verdict(u, verts[v], 0.0) == OTHER  # touching: the exact test's
        for c in verts.mean(axis=0) + rng.normal(size=(40, 3)) * 1.5:
            s = float(np.max(eq[:, :3] @ c + eq[:, 3]))
            if abs(s) > DELTA:
                assert verdict(u, c, 0.0) == (MISS if s > 0 else HIT)
    assert min(counts.values()) > 100, counts


def test_hull_plane_test_on_boxes_agrees_with_fcl() -> None:
    """Rotated boxes around hulls, many near touching: a MISS is a pair fcl finds apart, a HIT one fcl finds
    overlapping. Decided: boxes DELTA apart along a facet normal or along one of their own face normals (MISS),
    and boxes holding a hull vertex (HIT)."""
    from collideworld.compiled.queries import HIT, MISS

    w, hulls = _hull_world(5, n=12)
    test, q, rule = _planes(w)
    rng = np.random.default_rng(6)
    decided = 0
    for u, verts, sh in hulls:
        faces = np.concatenate([np.r_[3, s] for s in sh.simplices]).astype(np.int32)
        cvx = fcl.CollisionObject(fcl.Convex(verts, len(sh.simplices), faces), fcl.Transform())
        for k in range(30):
            rot = Rotation.random(random_state=rng).as_matrix()
            half = rng.uniform(0.05, 0.8, 3)
            if k % 4 == 1:  # the box's corner nearest a facet DELTA off it, along its normal: apart
                f = int(rng.integers(len(sh.simplices)))
                n = sh.equations[f, :3]
                cen = verts[sh.simplices[f]].mean(axis=0)
                c = cen + (float(np.sum(np.abs(rot.T @ n) * half)) + DELTA) * n
            elif k % 4 == 3:  # one of the box's faces DELTA beyond the hull's farthest vertex along its normal
                a = rot[:, k % 3]
                c = verts[np.argmax(verts @ a)] + (half[k % 3] + DELTA) * a
            elif k % 8 == 2:  # centred on a hull vertex: holds it
                c = verts[sh.vertices[k % len(sh.vertices)]]
            else:
                c = verts.mean(axis=0) + rng.normal(size=3) * 1.5
            v = int(test(q, u, 2, 0, c[None], rot[None], np.zeros(1), half[None], rule))
            box = fcl.CollisionObject(fcl.Box(*(2 * half)), fcl.Transform(rot, c))
            hit = bool(fcl.collide(box, cvx, fcl.CollisionRequest()))
            if v == MISS:
                assert not hit
                decided += 1
            elif v == HIT:
                assert hit
                decided += 1
            if k % 2:
                assert v == MISS, k
            elif k % 8 == 2:
                assert v == HIT, k
    assert decided > 250


def test_hull_queries_near_touching_agree_with_numpy_backend() -> None:
    """query_points and query_shapes (balls, boxes) at the probes above, through the whole compiled call:
    the same rows as the numpy backend, and touching counts (a hull's vertices find it)."""
    wc, hulls = _hull_world(7, n=10)
    wn, _ = _hull_world(7, n=10, backend="numpy")
    rng = np.random.default_rng(8)
    pts = []
    for _, verts, sh in hulls:
        pts.append(verts[sh.vertices])
        for f in range(len(sh.simplices)):
            n, cen = sh.equations[f, :3], verts[sh.simplices[f]].mean(axis=0)
            pts.append(cen + np.array([[DELTA], [-DELTA], [0.3 + DELTA], [0.3 - DELTA]]) * n)
    p = np.concatenate(pts)
    for i, (_, verts, sh) in enumerate(hulls):
        rows, ids = wc.query_points(verts[sh.vertices])
        assert set(rows[ids == i].tolist()) == set(range(len(sh.vertices)))  # touching counts
    a = wc.query_points(p)
    b = wn.query_points(p)
    assert np.array_equal(a[0], b[0]) and list(a[1]) == list(b[1])
    qs = rng.normal(size=(len(p), 4))
    qs /= np.linalg.norm(qs, axis=1)[:, None]
    for shape, kw in ((Sphere(0.3), {}), (Box((0.2, 0.1, 0.3)), {"quaternions": qs})):
        a = wc.query_shapes(shape, p, **kw)
        b = wn.query_shapes(shape, p, **kw)
        assert np.array_equal(a[0], b[0]) and list(a[1]) == list(b[1])
        assert len(a[0]) > len(p) // 4


def test_first_hit_walk_casts_hulls_as_brute_force() -> None:
    """Hulls and compounds with a hull part among spheres and boxes; rays at hull vertices and edge midpoints
    (grazing: touching counts) and random rays. The walk leaves no (ray, body) pair for after it and its first
    hits are brute force's (nearest, ties to the body added first)."""
    from collideworld.narrowphase import raycast_slots
    from collideworld.queries import QueryIndex, _walk_rows
    from collideworld.spatial.compiled import first_hits

    rng = np.random.default_rng(9)
    w = World(3, backend="compiled")
    targets = []
    for i in range(150):
        pos = rng.uniform(0, 12, 3)
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        k = i % 4
        if k < 2:
            shape: Any = ConvexHull(rng.normal(size=(20, 3)) * float(rng.uniform(0.3, 1.0)))
        elif k == 2:
            shape = Compound([(Sphere(0.3), (0.0, 0.0, 0.0)), (ConvexHull(rng.normal(size=(8, 3)) * 0.5),
                                                               (0.8, 0.0, 0.0))])
        else:
            shape = Sphere(float(rng.uniform(0.2, 0.6))) if i % 8 == 3 else Box(tuple(rng.uniform(0.2, 0.8, 3)))
        w.add(shape, pos, quaternion=q, id=i)
    st = w._store
    for s in st.body_slots():
        if st.kind[s] == 5 and len(targets) < 300:
            verts = st.hulls.verts[st.hull[s]] @ st.rotation[s].T + st.position[s]
            sh = ScipyHull(verts)
            targets.extend(verts[sh.vertices[:2]])
            a, b = sh.simplices[0][:2]
            targets.append((verts[a] + verts[b]) / 2)
    t = np.array(targets)
    o = np.concatenate([t + rng.normal(size=t.shape) * 4, rng.uniform(-3, 15, (200, 3))])
    d = np.concatenate([t, rng.uniform(0, 12, (200, 3))]) - o
    d /= np.linalg.norm(d, axis=1)[:, None]
    m = len(o)
    index = QueryIndex(st, "compiled")
    grid = index.refresh()
    kind, serial, position, rotation, half, radius, _ = index.packed_views
    bodies = (kind, position, rotation, half, radius, serial, st.simple, *_walk_rows(st, index), st.part_slots,
              st.parts_at, st.n_parts, index.planes, st.plane_normal, st.plane_offset)
    hull_tables = (st.hull, st.hulls.normals, st.hulls.offsets, st.hulls.reach)
    passes = np.ones(len(grid.handles), dtype=bool)
    j, dist, normal, oray, _ = first_hits(grid.arrays(), bodies, passes, o, d, 25.0, grid.stamp,
                                          grid.take_tags(m), hull_tables)
    assert len(oray) == 0  # nothing left for after the walk
    live = st.body_slots()
    hits = hull_hits = 0
    for r in range(m):
        bd, bn = raycast_slots(st, live, o[r], d[r], 25.0)
        ok = np.isfinite(bd)
        if not ok.any():
            assert j[r] < 0, r
            continue
        best = np.lexsort((st.serial[live[ok]], bd[ok]))[0]
        want = bd[ok][best]
        assert abs(dist[r] - want) <= 1e-12 * max(1.0, want), r
        same = np.flatnonzero(np.abs(bd[ok] - dist[r]) <= 1e-12 * max(1.0, want))
        assert grid.handles[j[r]] in live[ok][same], r
        s = grid.handles[j[r]]
        if len(same) == 1 and r >= len(t):
            assert np.allclose(normal[r], bn[ok][best], atol=1e-12), r
        elif st.kind[s] == 5 and dist[r] > 0.0:
            # at a vertex or an edge the entry face is a tie to rounding (the numpy kernel may take another
            # one): the normal is that of a facet through the hit point (scipy's facets)
            eq = ScipyHull(st.hulls.verts[st.hull[s]] @ st.rotation[s].T + st.position[s]).equations
            at = np.abs(eq[:, :3] @ (o[r] + dist[r] * d[r]) + eq[:, 3]) <= 1e-9
            assert np.any(np.all(np.abs(eq[at, :3] - normal[r]) <= 1e-9, axis=1)), r
        hits += 1
        hull_hits += int(st.kind[s] == 5)
    assert hits > m // 2 and hull_hits > m // 4, (hits, hull_hits)
