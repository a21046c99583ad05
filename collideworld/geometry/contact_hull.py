"""Contacts between convex hulls and the other 3D kinds: grown polytopes, by SAT then GJK.

Every finite 3D shape met by a hull is a convex polytope grown by a radius:
a sphere is a point grown by its radius, a capsule a segment grown by its,
a box or hull itself with radius 0. So one kernel, :func:`contact_polytopes`,
serves every hull pair; the named ones below only build its inputs.
Outline::

    d = GJK distance of the polytopes (gjk.gjk_closest, for every pair)
    if d > 0:   depth = r_a + r_b - d, along the closest points' line
    else:       SAT over the face normals of a and b and the cross products of
                their edges (only the pairs crossing on the Gauss map, for two hulls):
                depth = r_a + r_b + least overlap, along its axis

The SAT step is exact: the face normals of the Minkowski difference of two
polytopes are among the axes tried (Gottschalk 1996; Ericson RTCD §5.2.1),
and an axis that is not a face normal can only overlap more, so extra axes
(the diagonals of a triangulated face, duplicated normals) change nothing.
Outside the polytopes, the distance of the grown shapes is the polytopes'
distance less both radii, which GJK finds to a relative 1e-14.

NOTE: GJK costs ~1 us per pair; the SAT runs only on overlapping pairs and,
for two hulls, prunes the ``E_a * E_b`` edge pairs on the Gauss map first
(still ``E_a * E_b`` cheap tests). :data:`~collideworld.shapes.MAX_HULL_VERTICES`
bounds that.

The named kernels (``contact_ball_hull`` ... ``contact_hull_hull``) have
compiled twins in ``geometry/compiled/contact_hull.py``, which find the
penetration by EPA from GJK's tetrahedron instead (the SAT is their
fallback): measured per overlapping hull pair, numpy 0.02 ms (8 vertices)
to about 1-6 ms (64), compiled EPA 2 to 11 us, compiled SAT 4 to 100-200 us
(``benchmarks/hulls.py``).
"""

from __future__ import annotations

import importlib
import types
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .capsule_support import dot
from .kernel_support import finish, pair_scale
from .result import ContactArrays

__all__ = ["contact_polytopes", "hull_gjk_rows", "contact_ball_hull", "contact_box_hull", "contact_capsule_hull",
           "contact_hull_hull", "hull_edges", "sat_polytopes"]

F64 = NDArray[np.float64]


#: Bound per driver to the GJK of :mod:`collideworld.geometry.gjk` (compiled or not), which is
#: imported on first use only.
gjk_closest: Any = None


def _gjk_rows_py(world: F64, a_first: NDArray[np.int64], a_count: NDArray[np.int64],
                 b_first: NDArray[np.int64], b_count: NDArray[np.int64], dist: F64, points: F64) -> None:
    ws = np.zeros((16, 4))
    out = np.zeros(9)  # gjk_closest writes both closest points and the unit direction (out[6:9])
    for i in range(a_first.shape[0]):
        dist[i] = gjk_closest(world, a_first[i], a_count[i], b_first[i], b_count[i], ws, out)
        if ws[14, 0] == 0.0:  # no proof of a gap (GJK stopped by rounding): the SAT decides
            dist[i] = 0.0
        for k in range(9):
            points[i, k] = out[k]


_GJK_ROWS: list[Any] = []
_GJK_ROWS_PLAIN: list[Any] = []

#: Whether the numpy kernels may compile the GJK driver in the foreground now: set by the layer that
#: knows about the background build (``collideworld.narrowphase``: not while a builder fills numba's
#: cache, so that no ``backend="auto"`` call waits ~5 s for the compiler); always, when unset.
_COMPILE_GATE: list[Any] = []


def set_compile_gate(gate: Any) -> None:
    """Have :func:`hull_gjk_rows` compile its driver only when ``gate()`` is true (plain Python until then)."""
    _COMPILE_GATE[:] = [gate]


def hull_gjk_rows() -> Any:
    """The batched GJK driver: ``f(world, a_first, a_count, b_first, b_count, dist, points)``.

    Pair i is ``world[a_first[i]:a_first[i] + a_count[i]]`` (K, 3) against the
    same for b; ``dist`` (N,) and ``points`` (N, 9) (closest point on a, then
    on b, then the unit direction from a to b, zero when they overlap) are
    written. Built on first use, compiled with numba when it imports (as
    :mod:`collideworld.geometry.gjk` is), so that importing collideworld does
    not import numba.

    Examples
    --------
    >>> import numpy as np
    >>> world = np.array([[0.0, 0.0, 0.0], [3.0, 4.0, 0.0]])
    >>> dist, points = np.zeros(1), np.zeros((1, 9))
    >>> hull_gjk_rows()(world, np.array([0]), np.array([1]), np.array([1]), np.array([1]), dist, points)
    >>> dist.tolist()
    [5.0]
    """
    if _GJK_ROWS:
        return _GJK_ROWS[0]
    gjk = importlib.import_module(f"{__package__}.gjk")
    if gjk.COMPILED and _COMPILE_GATE and not _COMPILE_GATE[0]():
        # the same arithmetic uncompiled (gjk.python_twin), as collideworld.proximity does meanwhile
        if not _GJK_ROWS_PLAIN:
            _GJK_ROWS_PLAIN.append(types.FunctionType(
                _gjk_rows_py.__code__, {**globals(), "gjk_closest": gjk.python_twin("gjk_closest")}, "hull_gjk_rows"))
        return _GJK_ROWS_PLAIN[0]
    fn = types.FunctionType(_gjk_rows_py.__code__, {**globals(), "gjk_closest": gjk.gjk_closest}, "hull_gjk_rows")
    _GJK_ROWS.append(importlib.import_module("numba").njit(cache=False)(fn) if gjk.COMPILED else fn)
    return _GJK_ROWS[0]


def _unit_rows(v: F64) -> tuple[F64, NDArray[np.bool_]]:
    length = np.sqrt(dot(v, v))
    ok = length > 0.0
    return v / np.where(ok, length, 1.0)[..., None], ok


def _sat(va: F64, normals_a: F64, ea: F64, adj_a: F64 | None, vb: F64, normals_b: F64, eb: F64,
         adj_b: F64 | None) -> tuple[F64, F64]:
    """Least overlap (N,) and its normal (N, 3) over the SAT axes of N pairs of overlapping polytopes.

    Face axes are tried densely; edge pairs only where their arcs cross on
    the Gauss map (when both sides give their edges' adjacent face normals
    ``adj`` (N, E, 2, 3)): only those edge pairs span faces of the Minkowski
    difference (Gregorius, "The Separating Axis Test between Convex
    Polyhedra", GDC 2013), so the pruned test is still exact.
    """
    n = va.shape[0]
    rows = np.arange(n)
    best = np.full(n, np.inf)
    normal = np.zeros((n, 3))
    normal[:, 0] = 1.0

    vat = np.ascontiguousarray(np.swapaxes(va, 1, 2))
    vbt = np.ascontiguousarray(np.swapaxes(vb, 1, 2))

    def try_axes(axes: F64) -> None:
        """Axes (n, M, 3), any length; zero rows are skipped."""
        nonlocal best, normal
        axes, ok = _unit_rows(axes)
        if not axes.shape[1]:
            return
        pa = np.matmul(axes, vat)  # (n, M, Va): batched products, no per-axis copies of the vertices
        pb = np.matmul(axes, vbt)
        for over, sign in ((pa.max(axis=2) - pb.min(axis=2), 1.0), (pb.max(axis=2) - pa.min(axis=2), -1.0)):
            over = np.where(ok, over, np.inf)
            j = np.argmin(over, axis=1)
            value = over[rows, j]
            better = value < best
            best = np.where(better, value, best)
            normal = np.where(better[:, None], sign * axes[rows, j], normal)

    try_axes(np.concatenate([normals_a, normals_b], axis=1))
    if ea.shape[1] and eb.shape[1]:
        if adj_a is not None and adj_b is not None:
            # arcs (a1, a2) and (-b1, -b2) cross on the unit sphere (Gregorius' IsMinkowskiFace)
            a1, a2 = adj_a[:, :, 0], adj_a[:, :, 1]
            c, d = -adj_b[:, :, 0], -adj_b[:, :, 1]
            bxa = np.cross(a2, a1)  # (n, Ea, 3): per edge of a
            dxc = np.cross(d, c)  # (n, Eb, 3): per edge of b
            # each test is a dot of a per-a-edge and a per-b-edge vector: batched matrix products,
            # with no (n, Ea, Eb, 3) temporaries
            # (contiguous operands: numpy's matmul is ~8x slower on transposed views)
            ct = np.ascontiguousarray(np.swapaxes(c, 1, 2))
            dt = np.ascontiguousarray(np.swapaxes(d, 1, 2))
            dxct = np.ascontiguousarray(np.swapaxes(dxc, 1, 2))
            cba = np.matmul(bxa, ct)
            dba = np.matmul(bxa, dt)
            adc = np.matmul(np.ascontiguousarray(a1), dxct)
            bdc = np.matmul(np.ascontiguousarray(a2), dxct)
            keep = (cba * dba < 0.0) & (adc * bdc < 0.0) & (cba * bdc > 0.0)
        else:
            keep = np.ones((n, ea.shape[1], eb.shape[1]), dtype=bool)
        pair, i, j = np.nonzero(keep)
        # the kept edge pairs, packed to the front of a dense (n, most kept, 3) block
        count = np.bincount(pair, minlength=n)
        slot = np.arange(len(pair)) - (np.cumsum(count) - count)[pair]
        axes = np.zeros((n, int(count.max(initial=0)), 3))
        axes[pair, slot] = np.cross(ea[pair, i], eb[pair, j])
        try_axes(axes)
    return best, normal


def sat_polytopes(va: F64, normals_a: F64, edges_a: F64, vb: F64, normals_b: F64, edges_b: F64
                  ) -> tuple[F64, F64]:
    """Least overlap (N,) over the SAT axes of N pairs of polytopes, and its unit axis (N, 3) from a towards b.

    Every face normal and every cross product of an edge of a with an edge
    of b, each tried both ways (no Gauss-map pruning); edges of any length,
    zero rows skipped. Negative overlap: a separating axis, the polytopes
    at least that far apart (a lower bound of their distance). The same axes
    in the same order as :func:`contact_polytopes`' SAT, so the two agree.

    Examples
    --------
    >>> import numpy as np
    >>> best, axis = sat_polytopes(np.zeros((1, 1, 3)), np.zeros((1, 0, 3)), np.zeros((1, 0, 3)),
    ...                            np.array([[[0.0, 0, 2], [1.0, 0, 2], [0.0, 1, 2]]]), np.array([[[0.0, 0, 1]]]),
    ...                            np.zeros((1, 0, 3)))
    >>> float(best[0]), axis[0].tolist()
    (-2.0, [0.0, 0.0, 1.0])
    """
    ea, _ = _unit_rows(edges_a)
    eb, _ = _unit_rows(edges_b)
    return _sat(va, normals_a, ea, None, vb, normals_b, eb, None)


def contact_polytopes(verts_a: F64, normals_a: F64, edges_a: F64, radius_a: F64,
                      verts_b: F64, normals_b: F64, edges_b: F64, radius_b: F64,
                      adjacent_a: F64 | None = None, adjacent_b: F64 | None = None) -> ContactArrays:
    """Contacts of N pairs of convex polytopes grown by radii, 3D.

    Parameters
    ----------
    verts_a : ndarray, shape (N, Va, 3)
        World vertices (padding by repetition is harmless).
    normals_a : ndarray, shape (N, Fa, 3)
        Unit outward face normals (``Fa`` may be 0: a point or a segment);
        repeated or zero rows are harmless.
    edges_a : ndarray, shape (N, Ea, 3)
        Edge directions, any length; zero rows (padding) are skipped.
    radius_a : ndarray, shape (N,)
        ``>= 0``.
    verts_b, normals_b, edges_b, radius_b
        The same for b.
    adjacent_a, adjacent_b : ndarray, shape (N, E, 2, 3), optional
        World normals of the two faces beside each edge. Given for both, only
        the edge pairs that span a face of the Minkowski difference are tried.

    Returns
    -------
    ContactArrays
        ``normal`` from a towards b; ``depth`` the exact MTD where hit.

    Examples
    --------
    A unit sphere (a point grown by 1) centred 0.5 above the top face z = 0
    of a tetrahedron overlaps it by 0.5: the tetrahedron (b) moves down.

    >>> import numpy as np
    >>> tet = np.array([[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]]])
    >>> faces = np.array([[[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [3 ** -0.5, 3 ** -0.5, -3 ** -0.5]]])
    >>> edges = tet[:, [1, 2, 3, 2, 3, 3]] - tet[:, [0, 0, 0, 1, 1, 2]]
    >>> c = contact_polytopes(np.array([[[0.2, 0.2, 0.5]]]), np.zeros((1, 0, 3)), np.zeros((1, 0, 3)), np.ones(1),
    ...                       tet, faces, edges, np.zeros(1))
    >>> bool(c.hit[0]), float(c.depth[0]), c.normal[0].tolist()
    (True, 0.5, [0.0, 0.0, -1.0])
    """
    n = verts_a.shape[0]
    ref = verts_a[:, 0, :]
    va = np.ascontiguousarray(verts_a - ref[:, None, :])
    vb = np.ascontiguousarray(verts_b - ref[:, None, :])
    radius = radius_a + radius_b
    scale = pair_scale(verts_a, verts_b, radius_a, radius_b)
    # GJK first, for every pair: the exact distance of the polytopes when apart
    na, nb = va.shape[1], vb.shape[1]
    world = np.ascontiguousarray(np.concatenate([va.reshape(-1, 3), vb.reshape(-1, 3)]))
    dist = np.empty(n)
    points = np.empty((n, 9))
    hull_gjk_rows()(world, np.arange(n, dtype=np.int64) * na, np.full(n, na, dtype=np.int64),
                    n * na + np.arange(n, dtype=np.int64) * nb, np.full(n, nb, dtype=np.int64), dist, points)
    apart = dist > 0.0
    normal = np.zeros((n, 3))
    normal[:, 0] = 1.0
    # GJK's own direction (from the simplex's face): well conditioned even when the gap is a
    # few ulps, where (closest point on b - closest point on a) / dist is not
    normal = np.where(apart[:, None], points[:, 6:], normal)
    signed = radius - dist
    # overlapping (or within rounding of it): the SAT's exact penetration
    over = np.flatnonzero(dist <= 1e-9 * scale)
    if len(over):
        ea, _ = _unit_rows(edges_a[over])
        eb, _ = _unit_rows(edges_b[over])
        best, sat_normal = _sat(va[over], normals_a[over], ea, None if adjacent_a is None else adjacent_a[over],
                                vb[over], normals_b[over], eb, None if adjacent_b is None else adjacent_b[over])
        inside = best >= 0.0
        idx = over[inside]
        signed[idx] = radius[idx] + best[inside]
        # a separating axis proves a gap at least that wide, and GJK's answer is a lower bound
        # of the gap too (gjk_closest answers its certified bound when rounding stops it early,
        # as near nearly parallel faces): the wider of the two proofs wins. Only by more than
        # 2e-13 of the scale (20 touching tolerances), so that the twins' SAT rounding (their
        # axes are measured differently, ~1e-15 apart) never decides a hit at the tolerance:
        # there GJK's answer (one compiled routine for both twins) decides.
        certified = radius[over] + best
        stalled = certified < signed[over] - 2e-13 * scale[over]
        signed[over[stalled]] = certified[stalled]
        # the SAT's axis either way: where the polytopes are a few ulps apart, GJK's distance
        # decides (a SAT axis may separate them by less than their distance) but the sign of its
        # direction is rounding noise, while the least-separating axis is oriented by the shapes
        normal[over] = sat_normal
    return finish(signed, normal, scale)


# -- the named kernels: hulls as the store gives them (bodies.BodyStore.hull_arrays) ------------
#
# A hull enters as world vertices (N, V, 3), world face normals (N, F, 3), a
# vertex of each face (N, F), its edges' two vertices (N, E, 2) and two faces
# (N, E, 2), indices counted within the row. The compiled twins
# (geometry/compiled/contact_hull.py) take exactly these.

_CORNERS = np.array([[x, y, z] for x in (-1.0, 1.0) for y in (-1.0, 1.0) for z in (-1.0, 1.0)])


def hull_edges(verts: F64, normals: F64, edge_ends: NDArray[np.int64], edge_faces: NDArray[np.int64]
               ) -> tuple[F64, F64]:
    """Edge vectors (N, E, 3) and the normals of the faces beside each edge (N, E, 2, 3).

    Padding edges ``(0, 0)`` give zero vectors, which the SAT skips.

    Examples
    --------
    >>> import numpy as np
    >>> v = np.array([[[0.0, 0, 0], [2.0, 0, 0]]])
    >>> e, adj = hull_edges(v, np.eye(3)[None], np.array([[[0, 1], [0, 0]]]), np.array([[[0, 1], [0, 0]]]))
    >>> e.tolist(), adj.shape
    ([[[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]]], (1, 2, 2, 3))
    """
    rows = np.arange(verts.shape[0])[:, None]
    edges = verts[rows, edge_ends[:, :, 1]] - verts[rows, edge_ends[:, :, 0]]
    adjacent = normals[rows[:, :, None], edge_faces]
    return edges, adjacent


def contact_ball_hull(center: F64, radius: F64, verts: F64, normals: F64, face_vertex: NDArray[np.int64],
                      edge_ends: NDArray[np.int64], edge_faces: NDArray[np.int64]) -> ContactArrays:
    """Contacts of N spheres (a) against N convex hulls (b): GJK, then the hull's faces when the centre is inside.

    Parameters
    ----------
    center : ndarray, shape (N, 3)
    radius : ndarray, shape (N,)
    verts : ndarray, shape (N, V, 3)
        The hulls' world vertices.
    normals : ndarray, shape (N, F, 3)
        World unit outward face normals.
    face_vertex : ndarray of int64, shape (N, F)
        A vertex of each face.
    edge_ends, edge_faces : ndarray of int64, shape (N, E, 2)
        Each edge's two vertices and the two faces beside it (``(0, 0)``: padding).

    Returns
    -------
    ContactArrays
        ``normal`` from the sphere towards the hull; ``depth`` the exact MTD where hit.

    Examples
    --------
    A unit sphere at height 1.5 over the top face z = 1 of the cube [-1, 1]^3 overlaps it by 0.5:

    >>> import itertools
    >>> import numpy as np
    >>> from collideworld.bodies import BodyStore
    >>> from collideworld import ConvexHull
    >>> store = BodyStore(3)
    >>> s = store.allocate(1)
    >>> store.set_shapes(s, [ConvexHull(list(itertools.product((-1, 1), repeat=3)))])
    >>> store.set_poses(s, np.zeros((1, 3)), quaternion=np.array([[1.0, 0, 0, 0]]))
    >>> c = contact_ball_hull(np.array([[0.0, 0.0, 1.5]]), np.ones(1), *store.hull_arrays(s))
    >>> bool(c.hit[0]), float(c.depth[0]), c.normal[0].tolist()
    (True, 0.5, [0.0, 0.0, -1.0])
    """
    n = len(center)
    edges, _ = hull_edges(verts, normals, edge_ends, edge_faces)
    none = np.zeros((n, 0, 3))
    return contact_polytopes(np.asarray(center, dtype=np.float64)[:, None, :], none, none, radius,
                             verts, normals, edges, np.zeros(n))


def contact_box_hull(center: F64, rotation: F64, half: F64, verts: F64, normals: F64,
                     face_vertex: NDArray[np.int64], edge_ends: NDArray[np.int64],
                     edge_faces: NDArray[np.int64]) -> ContactArrays:
    """Contacts of N oriented boxes (a) against N convex hulls (b), by SAT where they overlap.

    Parameters
    ----------
    center : ndarray, shape (N, 3)
    rotation : ndarray, shape (N, 3, 3)
    half : ndarray, shape (N, 3)
    verts, normals, face_vertex, edge_ends, edge_faces
        The hulls, as in :func:`contact_ball_hull`.

    Returns
    -------
    ContactArrays

    Examples
    --------
    A unit cube (half extents 0.5) centred 1.25 above the origin sinks 0.25 into the top of the cube [-1, 1]^3:

    >>> import itertools
    >>> import numpy as np
    >>> from collideworld.bodies import BodyStore
    >>> from collideworld import ConvexHull
    >>> store = BodyStore(3)
    >>> s = store.allocate(1)
    >>> store.set_shapes(s, [ConvexHull(list(itertools.product((-1, 1), repeat=3)))])
    >>> store.set_poses(s, np.zeros((1, 3)), quaternion=np.array([[1.0, 0, 0, 0]]))
    >>> c = contact_box_hull(np.array([[0.0, 0.0, 1.25]]), np.eye(3)[None], np.full((1, 3), 0.5),
    ...                      *store.hull_arrays(s))
    >>> bool(c.hit[0]), float(c.depth[0]), c.normal[0].tolist()
    (True, 0.25, [0.0, 0.0, -1.0])
    """
    n = len(center)
    corners = center[:, None, :] + np.einsum("nij,ncj->nci", rotation, _CORNERS[None] * half[:, None, :])
    axes = np.swapaxes(rotation, 1, 2)  # the columns of R: the box's face normals and edge directions
    edges, _ = hull_edges(verts, normals, edge_ends, edge_faces)
    return contact_polytopes(corners, axes, axes, np.zeros(n), verts, normals, edges, np.zeros(n))


def contact_capsule_hull(p0: F64, p1: F64, radius: F64, verts: F64, normals: F64, face_vertex: NDArray[np.int64],
                         edge_ends: NDArray[np.int64], edge_faces: NDArray[np.int64]) -> ContactArrays:
    """Contacts of N capsules (a; segments when the radius is 0) against N convex hulls (b).

    Parameters
    ----------
    p0, p1 : ndarray, shape (N, 3)
        World ends of the capsules' core segments.
    radius : ndarray, shape (N,)
    verts, normals, face_vertex, edge_ends, edge_faces
        The hulls, as in :func:`contact_ball_hull`.

    Returns
    -------
    ContactArrays

    Examples
    --------
    A capsule of radius 0.5 lying along x at height 1.25 over the cube [-1, 1]^3 overlaps it by 0.25:

    >>> import itertools
    >>> import numpy as np
    >>> from collideworld.bodies import BodyStore
    >>> from collideworld import ConvexHull
    >>> store = BodyStore(3)
    >>> s = store.allocate(1)
    >>> store.set_shapes(s, [ConvexHull(list(itertools.product((-1, 1), repeat=3)))])
    >>> store.set_poses(s, np.zeros((1, 3)), quaternion=np.array([[1.0, 0, 0, 0]]))
    >>> c = contact_capsule_hull(np.array([[-3.0, 0, 1.25]]), np.array([[3.0, 0, 1.25]]), np.full(1, 0.5),
    ...                          *store.hull_arrays(s))
    >>> bool(c.hit[0]), float(c.depth[0]), c.normal[0].tolist()
    (True, 0.25, [0.0, 0.0, -1.0])
    """
    n = len(p0)
    edges, _ = hull_edges(verts, normals, edge_ends, edge_faces)
    return contact_polytopes(np.stack([p0, p1], axis=1), np.zeros((n, 0, 3)), (p1 - p0)[:, None, :], radius,
                             verts, normals, edges, np.zeros(n))


def contact_hull_hull(verts_a: F64, normals_a: F64, face_vertex_a: NDArray[np.int64],
                      edge_ends_a: NDArray[np.int64], edge_faces_a: NDArray[np.int64], verts_b: F64, normals_b: F64,
                      face_vertex_b: NDArray[np.int64], edge_ends_b: NDArray[np.int64],
                      edge_faces_b: NDArray[np.int64]) -> ContactArrays:
    """Contacts of N pairs of convex hulls: GJK, then SAT over faces and Gauss-map-pruned edge pairs.

    Parameters
    ----------
    verts_a, normals_a, face_vertex_a, edge_ends_a, edge_faces_a
        Hulls a, as in :func:`contact_ball_hull`.
    verts_b, normals_b, face_vertex_b, edge_ends_b, edge_faces_b
        Hulls b.

    Returns
    -------
    ContactArrays
        ``normal`` from a towards b; ``depth`` the exact MTD where hit.

    Examples
    --------
    Two cubes [-1, 1]^3, the second shifted by 1.5 along x, overlap by 0.5:

    >>> import itertools
    >>> import numpy as np
    >>> from collideworld.bodies import BodyStore
    >>> from collideworld import ConvexHull
    >>> store = BodyStore(3)
    >>> s = store.allocate(2)
    >>> store.set_shapes(s, [ConvexHull(list(itertools.product((-1, 1), repeat=3)))] * 2)
    >>> store.set_poses(s, np.array([[0.0, 0, 0], [1.5, 0, 0]]), quaternion=np.array([[1.0, 0, 0, 0]] * 2))
    >>> c = contact_hull_hull(*store.hull_arrays(s[:1]), *store.hull_arrays(s[1:]))
    >>> bool(c.hit[0]), float(c.depth[0]), c.normal[0].tolist()
    (True, 0.5, [1.0, 0.0, 0.0])
    """
    n = len(verts_a)
    edges_a, adj_a = hull_edges(verts_a, normals_a, edge_ends_a, edge_faces_a)
    edges_b, adj_b = hull_edges(verts_b, normals_b, edge_ends_b, edge_faces_b)
    return contact_polytopes(verts_a, normals_a, edges_a, np.zeros(n), verts_b, normals_b, edges_b, np.zeros(n),
                             adj_a, adj_b)
