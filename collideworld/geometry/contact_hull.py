"""Contacts between convex hulls and the other 3D kinds: grown polytopes, by SAT then GJK.

Every finite 3D shape met by a hull is a convex polytope grown by a radius:
a sphere is a point grown by its radius, a capsule a segment grown by its,
a box or hull itself with radius 0. So one kernel, :func:`contact_polytopes`,
serves every hull pair; the named ones below only build its inputs.
Outline::

    SAT over the face normals of a and b and the cross products of their edges
    if no axis separates the polytopes:  depth = r_a + r_b + least overlap, along its axis
    elif r_a + r_b == 0:                 apart; depth = minus the largest separation (a lower bound of the gap)
    else:                                d = GJK distance of the polytopes (gjk.gjk_closest)
                                         depth = r_a + r_b - d, along the closest points' line

The SAT step is exact: the face normals of the Minkowski difference of two
polytopes are among the axes tried (Gottschalk 1996; Ericson RTCD §5.2.1),
and an axis that is not a face normal can only overlap more, so extra axes
(the diagonals of a triangulated face, duplicated normals) change nothing.
Outside the polytopes, the distance of the grown shapes is the polytopes'
distance less both radii, which GJK finds to a relative 1e-14.

NOTE: the SAT tries every pair of edges: ``E_a * E_b`` axes per pair of
shapes, each projecting every vertex of both. That is why
:data:`~collideworld.shapes.MAX_HULL_VERTICES` bounds a hull's size; hulls of
8 to 64 vertices cost 0.1-20 ms per pair (see the report of the branch
that added them). A Gauss-map pruning of the edge pairs (Gregorius, GDC 2013)
or an EPA after GJK would lift that bound.

There is no compiled twin yet: both backends run these numpy kernels (the
GJK step is numba-compiled when numba imports).
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

__all__ = ["contact_polytopes", "hull_gjk_rows"]

F64 = NDArray[np.float64]

#: Pairs x axes x vertices per numpy slab of the SAT: bounds the temporaries (~64 MB).
_SLAB = 1 << 23


#: Bound per driver to the GJK of :mod:`collideworld.geometry.gjk` (compiled or not), which is
#: imported on first use only.
gjk_closest: Any = None


def _gjk_rows_py(world: F64, a_first: NDArray[np.int64], a_count: NDArray[np.int64],
                 b_first: NDArray[np.int64], b_count: NDArray[np.int64], dist: F64, points: F64) -> None:
    ws = np.zeros((16, 4))
    out = np.zeros(6)
    for i in range(a_first.shape[0]):
        dist[i] = gjk_closest(world, a_first[i], a_count[i], b_first[i], b_count[i], ws, out)
        for k in range(6):
            points[i, k] = out[k]


_GJK_ROWS: list[Any] = []


def hull_gjk_rows() -> Any:
    """The batched GJK driver: ``f(world, a_first, a_count, b_first, b_count, dist, points)``.

    Pair i is ``world[a_first[i]:a_first[i] + a_count[i]]`` (K, 3) against the
    same for b; ``dist`` (N,) and ``points`` (N, 6) (closest point on a, then
    on b) are written. Built on first use, compiled with numba when it
    imports (as :mod:`collideworld.geometry.gjk` is), so that importing
    collideworld does not import numba.

    Examples
    --------
    >>> import numpy as np
    >>> world = np.array([[0.0, 0.0, 0.0], [3.0, 4.0, 0.0]])
    >>> dist, points = np.zeros(1), np.zeros((1, 6))
    >>> hull_gjk_rows()(world, np.array([0]), np.array([1]), np.array([1]), np.array([1]), dist, points)
    >>> dist.tolist()
    [5.0]
    """
    if not _GJK_ROWS:
        gjk = importlib.import_module(f"{__package__}.gjk")
        fn = types.FunctionType(_gjk_rows_py.__code__, {**globals(), "gjk_closest": gjk.gjk_closest},
                                "hull_gjk_rows")
        _GJK_ROWS.append(importlib.import_module("numba").njit(cache=False)(fn) if gjk.COMPILED else fn)
    return _GJK_ROWS[0]


def _unit_rows(v: F64) -> tuple[F64, NDArray[np.bool_]]:
    length = np.sqrt(dot(v, v))
    ok = length > 0.0
    return v / np.where(ok, length, 1.0)[..., None], ok


def contact_polytopes(verts_a: F64, normals_a: F64, edges_a: F64, radius_a: F64,
                      verts_b: F64, normals_b: F64, edges_b: F64, radius_b: F64) -> ContactArrays:
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
    va = verts_a - ref[:, None, :]
    vb = verts_b - ref[:, None, :]
    ea, ok_a = _unit_rows(edges_a)
    eb, ok_b = _unit_rows(edges_b)
    cross = np.cross(ea[:, :, None, :], eb[:, None, :, :]).reshape(n, -1, 3)
    axes = np.concatenate([normals_a, normals_b, cross], axis=1)
    axes, ok = _unit_rows(axes)
    best = np.full(n, np.inf)
    normal = np.zeros((n, 3))
    normal[:, 0] = 1.0
    m = axes.shape[1]
    per_axis = max(1, n * (va.shape[1] + vb.shape[1]))
    step = max(1, _SLAB // per_axis)
    for start in range(0, m, step):
        ax = axes[:, start:start + step]
        pa = np.einsum("nmk,nvk->nmv", ax, va)
        pb = np.einsum("nmk,nvk->nmv", ax, vb)
        plus = pa.max(axis=2) - pb.min(axis=2)  # move b along +u
        minus = pb.max(axis=2) - pa.min(axis=2)  # move b along -u
        valid = ok[:, start:start + step]
        for over, sign in ((plus, 1.0), (minus, -1.0)):
            over = np.where(valid, over, np.inf)
            j = np.argmin(over, axis=1)
            value = over[np.arange(n), j]
            better = value < best
            best = np.where(better, value, best)
            normal = np.where(better[:, None], sign * ax[np.arange(n), j], normal)
    radius = radius_a + radius_b
    signed = radius + best
    # apart polytopes grown by radii: the exact distance, by GJK
    need = np.flatnonzero((best < 0.0) & (radius > 0.0))
    if len(need):
        na, nb = verts_a.shape[1], verts_b.shape[1]
        world = np.concatenate([va[need].reshape(-1, 3), vb[need].reshape(-1, 3)])
        k = len(need)
        a_first = np.arange(k, dtype=np.int64) * na
        b_first = k * na + np.arange(k, dtype=np.int64) * nb
        dist = np.empty(k)
        points = np.empty((k, 6))
        hull_gjk_rows()(np.ascontiguousarray(world), a_first, np.full(k, na, dtype=np.int64), b_first,
                      np.full(k, nb, dtype=np.int64), dist, points)
        gap = points[:, 3:] - points[:, :3]
        apart = dist > 0.0
        signed[need] = radius[need] - dist
        normal[need] = np.where(apart[:, None], gap / np.where(apart, dist, 1.0)[:, None], normal[need])
    return finish(signed, normal, pair_scale(verts_a, verts_b, radius_a, radius_b))
