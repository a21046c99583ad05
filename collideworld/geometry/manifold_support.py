"""Contact manifolds: the points where two shapes touch, shared by the ``manifold_<a>_<b>`` kernels.

A contact kernel gives a pair one normal ``n`` (from a towards b) and one
depth. A manifold kernel takes that normal as given (so the two never
disagree) and finds *where* the shapes touch, the way Box2D's ``manifold.c``
and Gregorius (GDC 2015, "Robust contact creation for physics simulations")
do, but clipping in the plane perpendicular to ``n`` itself rather than in a
reference face's plane::

    feature_a = the face, edge or vertex of a furthest along +n (within a tilt slop)
    feature_b = the face, edge or vertex of b furthest along -n
    project both features onto the plane perpendicular to n
    region    = their intersection (clipping, Ericson RTCD 5.x / Sutherland-Hodgman,
                done here as "vertices inside the other + edge crossings")
    for every corner q of the region:
        p_a, p_b = the points of feature_a and feature_b over q
        point = (p_a + p_b) / 2, separation = n . (p_b - p_a)
    keep at most K corners: the ones spanning the largest area (Bullet, Box2D)

Because the clip happens in a plane fixed by ``n``, swapping a and b (which
flips ``n``) gives the same points, and no reference/incident choice can flip
between two steps.

Feature ids
-----------
Every point gets an int64 id ``(feature of a) << 32 | (feature of b)``: the
feature of each shape that made the point (bits 0-11 a vertex index, bits
12-23 one more than a second vertex index for an edge, 0xFFF for a face of a
box, bits 24-30 the convex part of a concave polygon). While the same
features touch, the same id comes back (what a solver warm-starts from);
swapping a and b swaps the two halves. NOTE: indices wrap past 4095 vertices
or 127 parts, so ids of such shapes can alias.

The tilt slop :data:`FEATURE_SLOP`: a face (or edge) counts as the touching
feature while it is tilted from ``n`` by less than about 0.57 degrees, so a box
resting on the ground touches along its whole face although rounding tilts it
by 1e-16; past that slop the lowest vertex alone touches.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "FEATURE_SLOP",
    "ManifoldArrays",
    "box_feature_3d",
    "edge_code",
    "empty_manifold",
    "feature_ids",
    "manifold_convex_2d",
    "manifold_features_3d",
    "halfspace_points_2d",
    "manifold_single_point",
    "support_ends_2d",
]

#: Sine of the largest tilt from the contact normal under which a face or an
#: edge still counts as touching whole (0.57 degrees).
FEATURE_SLOP = 0.01

#: Feature code of a box face (bits 12-23 all set), plus the face number.
FACE_CODE = 0xFFF << 12


class ManifoldArrays(NamedTuple):
    """Contact points of N pairs, K slots each (K = 2 in 2D, 4 in 3D).

    Attributes
    ----------
    points : ndarray of float64, shape (N, K, D)
        World points, NaN in unused slots.
    separations : ndarray of float64, shape (N, K)
        Each point's signed separation along the pair's normal (<= 0 when
        penetrating), NaN in unused slots.
    ids : ndarray of int64, shape (N, K)
        Feature ids (see the module notes), -1 in unused slots.
    count : ndarray of int64, shape (N,)
        Points in use; the used slots come first.

    Examples
    --------
    >>> m = empty_manifold(1, 2)
    >>> m.points.shape, m.count.tolist(), m.ids.tolist()
    ((1, 2, 2), [0], [[-1, -1]])
    """

    points: NDArray[np.float64]
    separations: NDArray[np.float64]
    ids: NDArray[np.int64]
    count: NDArray[np.int64]  # type: ignore[assignment]  # (shadows tuple.count, by the API's name)


def empty_manifold(n: int, dim: int) -> ManifoldArrays:
    """N rows with no points: NaN points and separations, ids -1, count 0.

    Examples
    --------
    >>> empty_manifold(2, 3).points.shape
    (2, 4, 3)
    """
    k = 2 if dim == 2 else 4
    return ManifoldArrays(np.full((n, k, dim), np.nan), np.full((n, k), np.nan),
                          np.full((n, k), -1, dtype=np.int64), np.zeros(n, dtype=np.int64))


def feature_ids(code_a: NDArray[np.int64], code_b: NDArray[np.int64]) -> NDArray[np.int64]:
    """Point ids from the feature codes of a and b: ``code_a << 32 | code_b``.

    Examples
    --------
    >>> import numpy as np
    >>> feature_ids(np.array([1]), np.array([2])).tolist()
    [4294967298]
    """
    return (np.asarray(code_a, dtype=np.int64) << 32) | np.asarray(code_b, dtype=np.int64)


def edge_code(i: NDArray[np.int64], j: NDArray[np.int64]) -> NDArray[np.int64]:
    """Feature code of the segment between vertices i and j (a vertex's own code when i == j).

    Examples
    --------
    >>> import numpy as np
    >>> edge_code(np.array([3, 2]), np.array([1, 2])).tolist()
    [16385, 2]
    """
    lo = np.minimum(i, j) & 0xFFF
    hi = np.maximum(i, j) & 0xFFF
    return np.where(i == j, lo, lo | ((hi + 1) << 12)).astype(np.int64)


def _dot2(v: NDArray[np.float64], d: NDArray[np.float64]) -> NDArray[np.float64]:
    """(N, K, 2) . (N, 2) -> (N, K), written out per component."""
    return v[:, :, 0] * d[:, None, 0] + v[:, :, 1] * d[:, None, 1]


def support_ends_2d(verts: NDArray[np.float64], direction: NDArray[np.float64]
                    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The touching feature of convex polygons along ``direction``, as its two end vertices.

    The feature is every vertex within the tilt slop of the furthest one
    (``direction . (top - v) <= FEATURE_SLOP * |top - v|``); its ends are the
    ones with the smallest and largest coordinate along the tangent
    ``(-d_y, d_x)``. Equal ends mean a vertex.

    Parameters
    ----------
    verts : ndarray, shape (N, K, 2)
    direction : ndarray, shape (N, 2)
        Unit vectors.

    Returns
    -------
    lo, hi : ndarray of int64, shape (N,)
        Vertex indices (the first of equal ones, so padding repeats never win).

    Examples
    --------
    The top edge of the unit square along +y runs from vertex 3 (-1, 1) to
    vertex 2 (1, 1) along the tangent (-1, 0): lo is the one furthest along +x.

    >>> import numpy as np
    >>> sq = np.array([[[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]])
    >>> [int(x[0]) for x in support_ends_2d(sq, np.array([[0.0, 1.0]]))]
    [2, 3]
    """
    h = _dot2(verts, direction)
    rows = np.arange(len(verts))
    top = np.argmax(h, axis=1)
    rel = verts - verts[rows, top][:, None, :]
    within = (h[rows, top][:, None] - h) <= FEATURE_SLOP * np.hypot(rel[:, :, 0], rel[:, :, 1])
    tangent = np.stack([-direction[:, 1], direction[:, 0]], axis=1)
    t = _dot2(verts, tangent)
    lo = np.argmin(np.where(within, t, np.inf), axis=1)
    hi = np.argmax(np.where(within, t, -np.inf), axis=1)
    return lo.astype(np.int64), hi.astype(np.int64)


def _on_segment_2d(p0: NDArray[np.float64], p1: NDArray[np.float64], t0: NDArray[np.float64],
                   t1: NDArray[np.float64], t: NDArray[np.float64]) -> NDArray[np.float64]:
    """The point of segment p0 p1 (tangent coordinates t0 <= t1) at tangent coordinate t (clamped)."""
    span = t1 - t0
    s = np.clip(np.where(span > 0, (t - t0) / np.where(span > 0, span, 1.0), 0.0), 0.0, 1.0)
    return p0 + s[:, None] * (p1 - p0)


def manifold_convex_2d(verts_a: NDArray[np.float64], verts_b: NDArray[np.float64],
                       normal: NDArray[np.float64], part_a: NDArray[np.int64] | int = 0,
                       part_b: NDArray[np.int64] | int = 0) -> ManifoldArrays:
    """Contact points of N pairs of convex polygons (2D), given each pair's normal.

    The touching features (:func:`support_ends_2d` of a along ``+n`` and of b
    along ``-n``) are segments or vertices; their extents along the tangent
    overlap in an interval whose two ends are the points (one point when the
    interval is a single value). Where the extents do not overlap (a pair the
    normal only grazes), one point halfway between the nearest ends.

    Parameters
    ----------
    verts_a, verts_b : ndarray, shape (N, Ka, 2), (N, Kb, 2)
        Counter-clockwise vertices (padding repeats allowed).
    normal : ndarray, shape (N, 2)
        Unit contact normals from a towards b.
    part_a, part_b : int or ndarray of int64, shape (N,)
        Convex part numbers written into the ids (concave polygons).

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    A 2x2 square resting on a 4x2 box, shifted right by 2: the touching
    segment runs from x = 1 to x = 2 along y = 1.

    >>> import numpy as np
    >>> a = np.array([[[-2.0, -1.0], [2.0, -1.0], [2.0, 1.0], [-2.0, 1.0]]])
    >>> b = np.array([[[1.0, 1.0], [3.0, 1.0], [3.0, 3.0], [1.0, 3.0]]])
    >>> m = manifold_convex_2d(a, b, np.array([[0.0, 1.0]]))
    >>> m.count.tolist(), m.points[0].tolist(), m.separations[0].tolist()
    ([2], [[2.0, 1.0], [1.0, 1.0]], [0.0, 0.0])
    """
    n = len(normal)
    rows = np.arange(n)
    lo_a, hi_a = support_ends_2d(verts_a, normal)
    lo_b, hi_b = support_ends_2d(verts_b, -normal)
    tangent = np.stack([-normal[:, 1], normal[:, 0]], axis=1)
    pa_lo, pa_hi = verts_a[rows, lo_a], verts_a[rows, hi_a]
    # b's tangent order along -n is reversed: swap its ends so lo <= hi along +tangent
    pb_lo, pb_hi = verts_b[rows, hi_b], verts_b[rows, lo_b]
    ib_lo, ib_hi = hi_b, lo_b
    ta0 = np.einsum("nd,nd->n", pa_lo, tangent)
    ta1 = np.einsum("nd,nd->n", pa_hi, tangent)
    tb0 = np.einsum("nd,nd->n", pb_lo, tangent)
    tb1 = np.einsum("nd,nd->n", pb_hi, tangent)
    code_fa = edge_code(lo_a, hi_a) | (np.asarray(part_a, dtype=np.int64) & 0x7F) << 24
    code_fb = edge_code(lo_b, hi_b) | (np.asarray(part_b, dtype=np.int64) & 0x7F) << 24
    pa_bits = (np.asarray(part_a, dtype=np.int64) & 0x7F) << 24
    pb_bits = (np.asarray(part_b, dtype=np.int64) & 0x7F) << 24
    lo = np.maximum(ta0, tb0)
    hi = np.minimum(ta1, tb1)
    width = np.maximum(ta1 - ta0, tb1 - tb0)
    two = (hi - lo) > 1e-9 * width
    empty = lo > hi
    mid = 0.5 * (lo + hi)
    out = empty_manifold(n, 2)
    for slot, (t_end, a_end, b_end, ia, ib) in enumerate((
            (np.where(two, lo, mid), ta0 >= tb0, tb0 >= ta0, lo_a, ib_lo),
            (hi, ta1 <= tb1, tb1 <= ta1, hi_a, ib_hi))):
        pa = _on_segment_2d(pa_lo, pa_hi, ta0, ta1, t_end)
        pb = _on_segment_2d(pb_lo, pb_hi, tb0, tb1, t_end)
        # the feature of each shape that fixes this end: its own end vertex
        # when that end binds, else its whole feature
        ca = np.where(a_end & ~empty, (ia & 0xFFF) | pa_bits, code_fa)
        cb = np.where(b_end & ~empty, (ib & 0xFFF) | pb_bits, code_fb)
        use = np.ones(n, dtype=bool) if slot == 0 else two & ~empty
        out.points[use, slot] = 0.5 * (pa + pb)[use]
        out.separations[use, slot] = np.einsum("nd,nd->n", pb - pa, normal)[use]
        out.ids[use, slot] = feature_ids(ca, cb)[use]
    out.count[:] = np.where(two & ~empty, 2, 1)
    return out


def halfspace_points_2d(normal: NDArray[np.float64], offset: NDArray[np.float64],
                              verts: NDArray[np.float64]) -> ManifoldArrays:
    """Contact points of half-planes (a) against convex vertex sets (b), 2D.

    The points are the ends of b's touching feature along ``-normal``
    (:func:`support_ends_2d`), each moved halfway onto the boundary line.

    Parameters
    ----------
    normal : ndarray, shape (N, 2)
    offset : ndarray, shape (N,)
    verts : ndarray, shape (N, K, 2)

    Returns
    -------
    ManifoldArrays
        Ids ``0 << 32 | vertex``.

    Examples
    --------
    A 2x2 square sunk 0.5 into the floor y <= 0 touches at its two bottom corners:

    >>> import numpy as np
    >>> sq = np.array([[[-1.0, -0.5], [1.0, -0.5], [1.0, 1.5], [-1.0, 1.5]]])
    >>> m = halfspace_points_2d(np.array([[0.0, 1.0]]), np.zeros(1), sq)
    >>> m.points[0].tolist(), m.separations[0].tolist(), m.ids[0].tolist()
    ([[-1.0, -0.25], [1.0, -0.25]], [-0.5, -0.5], [0, 1])
    """
    n = len(normal)
    rows = np.arange(n)
    lo, hi = support_ends_2d(verts, -normal)
    out = empty_manifold(n, 2)
    two = lo != hi
    for slot, idx in enumerate((lo, hi)):
        p = verts[rows, idx]
        sep = np.einsum("nd,nd->n", p, normal) - offset
        use = np.ones(n, dtype=bool) if slot == 0 else two
        out.points[use, slot] = (p - 0.5 * sep[:, None] * normal)[use]
        out.separations[use, slot] = sep[use]
        out.ids[use, slot] = idx[use]
    out.count[:] = np.where(two, 2, 1)
    return out


def manifold_single_point(point_a: NDArray[np.float64], normal: NDArray[np.float64],
                          separation: NDArray[np.float64], ids: NDArray[np.int64]) -> ManifoldArrays:
    """One point per pair: a's touching point ``point_a`` and b's at ``point_a + separation * n``.

    Parameters
    ----------
    point_a : ndarray, shape (N, D)
    normal : ndarray, shape (N, D)
    separation : ndarray, shape (N,)
    ids : ndarray of int64, shape (N,)

    Returns
    -------
    ManifoldArrays
        The point halfway between the two.

    Examples
    --------
    >>> import numpy as np
    >>> m = manifold_single_point(np.array([[1.0, 0.0]]), np.array([[1.0, 0.0]]), np.array([-0.5]), np.zeros(1, int))
    >>> m.points[0, 0].tolist(), m.count.tolist()
    ([0.75, 0.0], [1])
    """
    n, dim = normal.shape
    out = empty_manifold(n, dim)
    out.points[:, 0] = point_a + 0.5 * separation[:, None] * normal
    out.separations[:, 0] = separation
    out.ids[:, 0] = ids
    out.count[:] = 1
    return out


# -- 3D: box features ------------------------------------------------------------------

def box_feature_3d(center: NDArray[np.float64], rotation: NDArray[np.float64], half: NDArray[np.float64],
                   direction: NDArray[np.float64]
                   ) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64],
                              NDArray[np.int64]]:
    """The touching feature of oriented boxes along ``direction``, as a 4-corner loop.

    Box axis i is *free* when ``|direction . axis_i| <= FEATURE_SLOP``: the
    feature spans it. Two free axes give a face, one an edge, none a vertex.
    Corners are numbered by their signs (bit i set when the corner is on the
    + side of axis i).

    Parameters
    ----------
    center : ndarray, shape (N, 3)
    rotation : ndarray, shape (N, 3, 3)
    half : ndarray, shape (N, 3)
    direction : ndarray, shape (N, 3)

    Returns
    -------
    corners : ndarray, shape (N, 4, 3)
        A loop: a face's 4 corners in order, an edge as ``[v0, v1, v1, v0]``,
        a vertex four times.
    corner_ids : ndarray of int64, shape (N, 4)
    free : ndarray of int64, shape (N,)
        Number of free axes: 2 face, 1 edge, 0 vertex.
    face_normal : ndarray, shape (N, 3)
        For a face, its outward normal (else the most aligned axis, signed).
    code : ndarray of int64, shape (N,)
        Feature code of the whole feature.

    Examples
    --------
    >>> import numpy as np
    >>> c, ids, free, fn, code = box_feature_3d(np.zeros((1, 3)), np.eye(3)[None], np.ones((1, 3)),
    ...                                         np.array([[0.0, 0.0, -1.0]]))
    >>> ids[0].tolist(), int(free[0]), fn[0].tolist()
    ([0, 1, 3, 2], 2, [0.0, 0.0, -1.0])
    """
    n = len(center)
    along = np.einsum("nji,nj->ni", rotation, direction)  # direction in the box frame
    free = np.abs(along) <= FEATURE_SLOP
    sign = np.where(along < 0, -1.0, 1.0)
    rank = np.cumsum(free, axis=1) - 1
    # loop patterns for the first and second free axis: (-,-), (+,-), (+,+), (-,+)
    pattern = np.array([[-1.0, 1.0, 1.0, -1.0], [-1.0, -1.0, 1.0, 1.0]])
    signs = np.where(free[:, None, :], pattern[np.clip(rank, 0, 1)].transpose(0, 2, 1), sign[:, None, :])
    local = signs * half[:, None, :]
    corners = center[:, None, :] + np.einsum("nij,nkj->nki", rotation, local)
    corner_ids = ((signs > 0).astype(np.int64) * np.array([1, 2, 4])).sum(axis=2)
    nfree = free.sum(axis=1).astype(np.int64)
    fixed = np.argmax(np.where(free, -1.0, np.abs(along)), axis=1)
    rows = np.arange(n)
    face_normal = rotation[rows, :, fixed] * sign[rows, fixed][:, None] + 0.0
    face_code = FACE_CODE | (2 * fixed + (sign[rows, fixed] > 0))
    code = np.where(nfree == 2, face_code, edge_code(corner_ids[:, 0], corner_ids[:, 1]))
    return corners, corner_ids, nfree, face_normal, code.astype(np.int64)


def plane_basis(normal: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Two unit vectors completing ``normal`` to an orthonormal frame (Frisvad-style, branch on the sign)."""
    x, y, z = normal[:, 0], normal[:, 1], normal[:, 2]
    s = np.where(z < 0, -1.0, 1.0)
    a = -1.0 / (s + z)
    b = x * y * a
    t1 = np.stack([1.0 + s * x * x * a, s * b, -s * x], axis=1)
    t2 = np.stack([b, s + y * y * a, -y], axis=1)
    return t1, t2


def segment_distance_2d(q: NDArray[np.float64], p0: NDArray[np.float64], p1: NDArray[np.float64]
                         ) -> NDArray[np.float64]:
    """Distance from points q (..., 2) to segments p0 p1 (..., 2) (zero-length allowed)."""
    ex, ey = p1[..., 0] - p0[..., 0], p1[..., 1] - p0[..., 1]
    ee = ex * ex + ey * ey
    s = np.clip(((q[..., 0] - p0[..., 0]) * ex + (q[..., 1] - p0[..., 1]) * ey) / np.where(ee > 0, ee, 1.0), 0.0, 1.0)
    dx = q[..., 0] - (p0[..., 0] + s * ex)
    dy = q[..., 1] - (p0[..., 1] + s * ey)
    dist: NDArray[np.float64] = np.sqrt(dx * dx + dy * dy)
    return dist


def _inside_loop(q: NDArray[np.float64], loop: NDArray[np.float64], is_face: NDArray[np.bool_],
                 eps: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Points q (N, M, 2) in (or within eps of) the projected feature loops (N, 4, 2)."""
    nxt = np.roll(loop, -1, axis=1)
    dist = np.min(np.stack([segment_distance_2d(q, loop[:, None, k], nxt[:, None, k]) for k in range(4)]), axis=0)
    e = nxt - loop
    cross = np.stack([e[:, None, k, 0] * (q[..., 1] - loop[:, None, k, 1])
                      - e[:, None, k, 1] * (q[..., 0] - loop[:, None, k, 0]) for k in range(4)])
    strictly = is_face[:, None] & ((cross >= 0).all(axis=0) | (cross <= 0).all(axis=0))
    out: NDArray[np.bool_] = strictly | (dist <= eps[:, None])
    return out


def height_on(q3: NDArray[np.float64], q2: NDArray[np.float64], corners: NDArray[np.float64],
               loop: NDArray[np.float64], free: NDArray[np.int64], face_normal: NDArray[np.float64],
               normal: NDArray[np.float64]) -> NDArray[np.float64]:
    """The points of the features over the candidates: q3 (N, M, 3) moved along n onto the feature."""
    # face: the plane through corner 0 (its normal is within the slop of n)
    fn = face_normal[:, None, :]
    # a row whose feature is an edge or a vertex may have a face normal across n: its on_face is
    # not used, and the inf divisor keeps it finite and quiet (no divide-by-zero warning)
    den = (fn * normal[:, None, :]).sum(-1)
    h = ((corners[:, None, 0] - q3) * fn).sum(-1) / np.where(den != 0, den, np.inf)
    on_face = q3 + h[..., None] * normal[:, None, :]
    # edge: the parameter of q along the projected edge
    e2 = loop[:, None, 1] - loop[:, None, 0]
    ee = (e2 * e2).sum(-1)
    s = np.clip(((q2 - loop[:, None, 0]) * e2).sum(-1) / np.where(ee > 0, ee, 1.0), 0.0, 1.0)
    on_edge = corners[:, None, 0] + s[..., None] * (corners[:, None, 1] - corners[:, None, 0])
    vertex = np.broadcast_to(corners[:, None, 0], q3.shape)
    f = free[:, None, None]
    out: NDArray[np.float64] = np.where(f == 2, on_face, np.where(f == 1, on_edge, vertex))
    return out


def kept_points(q: NDArray[np.float64], sep: NDArray[np.float64], valid: NDArray[np.bool_],
                eps: NDArray[np.float64]) -> NDArray[np.int64]:
    """Which of each row's M candidate points to keep: (N, 4) indices, -1 for none.

    A candidate at the same place as an earlier valid one (within ``eps``
    across the normal, positions ``q`` (N, M, 2); a corner of one feature
    lying on the other's edge shows up twice) is dropped, then more than
    four are reduced to four (:func:`reduce_to_four`, separations ``sep``
    (N, M)). ``valid`` (N, M) is not changed.
    """
    m = q.shape[1]
    # per component: a reduction over a trailing axis of 2 costs ~20x more
    dx = q[:, :, None, 0] - q[:, None, :, 0]
    dy = q[:, :, None, 1] - q[:, None, :, 1]
    close = np.sqrt(dx * dx + dy * dy) <= eps[:, None, None]
    earlier = np.tril(np.ones((m, m), dtype=bool), -1)
    kept = valid & ~(close & earlier[None] & valid[:, None, :]).any(axis=2)
    return reduce_to_four(q, sep, kept)


def points_in_slots(point: NDArray[np.float64], sep: NDArray[np.float64], ids: NDArray[np.int64],
                    chosen: NDArray[np.int64]) -> tuple[ManifoldArrays, NDArray[np.int64]]:
    """A 3D manifold of the candidates ``chosen`` (N, 4; -1: none) of each row, and the counts (N,).

    ``point`` (N, M, 3), ``sep`` (N, M) and ``ids`` (N, M) are the candidates'.
    The manifold's ``count`` is left for the caller (who may still add a point).
    """
    n = len(chosen)
    rows = np.arange(n)
    out = empty_manifold(n, 3)
    count = np.zeros(n, dtype=np.int64)
    for slot in range(4):
        c = chosen[:, slot]
        use = c >= 0
        cc = np.where(use, c, 0)
        out.points[use, slot] = point[rows, cc][use]
        out.separations[use, slot] = sep[rows, cc][use]
        out.ids[use, slot] = ids[rows, cc][use]
        count += use
    return out, count


def manifold_features_3d(feature_a: tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64],
                                          NDArray[np.float64], NDArray[np.int64]],
                         feature_b: tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64],
                                          NDArray[np.float64], NDArray[np.int64]],
                         normal: NDArray[np.float64], scale: NDArray[np.float64]) -> ManifoldArrays:
    """Contact points of N pairs of 3D features (faces, edges, vertices as 4-corner loops).

    Candidates (24 per pair): a's corners over b's feature, b's corners over
    a's, and the crossings of their edges, all in the plane perpendicular to
    ``n``; each candidate becomes the midpoint of the two features' points
    over it. More than four are reduced to the four spanning the largest
    area (deepest first, then the farthest from it, then the largest
    triangle, then the largest quadrilateral), as Bullet's and Box2D's
    reductions do. No candidate (a normal that only grazes, the features
    missing each other seen along ``n``): one point, halfway between the
    features' nearest points (within ``sqrt(sep^2 + gap^2) / 2`` of both
    shapes).

    Parameters
    ----------
    feature_a, feature_b : tuple
        What :func:`box_feature_3d` returns, for a along ``+n`` and b along ``-n``.
    normal : ndarray, shape (N, 3)
    scale : ndarray, shape (N,)
        Size of the pair: the tolerance of "on the other feature" is 1e-9 of it.

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    A unit cube resting on a bigger box touches at its four bottom corners:

    >>> import numpy as np
    >>> eye = np.eye(3)[None]
    >>> up = np.array([[0.0, 0.0, 1.0]])
    >>> fa = box_feature_3d(np.zeros((1, 3)), eye, np.array([[5.0, 5.0, 1.0]]), up)
    >>> fb = box_feature_3d(np.array([[0.0, 0.0, 2.0]]), eye, np.ones((1, 3)), -up)
    >>> m = manifold_features_3d(fa, fb, up, np.array([5.0]))
    >>> int(m.count[0]), sorted(m.points[0].tolist())
    (4, [[-1.0, -1.0, 1.0], [-1.0, 1.0, 1.0], [1.0, -1.0, 1.0], [1.0, 1.0, 1.0]])
    """
    ca, ida, fra, fna, codea = feature_a
    cb, idb, frb, fnb, codeb = feature_b
    n = len(normal)
    t1, t2 = plane_basis(normal)
    origin = ca[:, 0]

    def project(p: NDArray[np.float64]) -> NDArray[np.float64]:
        rel = p - origin[:, None, :]
        r0, r1, r2 = rel[..., 0], rel[..., 1], rel[..., 2]
        return np.stack([r0 * t1[:, None, 0] + r1 * t1[:, None, 1] + r2 * t1[:, None, 2],
                         r0 * t2[:, None, 0] + r1 * t2[:, None, 1] + r2 * t2[:, None, 2]], axis=-1)

    la, lb = project(ca), project(cb)
    eps = 1e-9 * scale
    # corners that are distinct: a face's 4, an edge's first 2, a vertex's first
    live_a = np.stack([np.ones(n, bool), fra >= 1, fra == 2, fra == 2], axis=1)
    live_b = np.stack([np.ones(n, bool), frb >= 1, frb == 2, frb == 2], axis=1)
    # 1) a's corners over b's feature
    in_a = live_a & _inside_loop(la, lb, frb == 2, eps)
    pa1 = ca
    pb1 = height_on(ca, la, cb, lb, frb, fnb, normal)
    id1 = feature_ids(ida, np.broadcast_to(codeb[:, None], (n, 4)))
    # 2) b's corners over a's feature
    in_b = live_b & _inside_loop(lb, la, fra == 2, eps)
    pb2 = cb
    pa2 = height_on(cb, lb, ca, la, fra, fna, normal)
    id2 = feature_ids(np.broadcast_to(codea[:, None], (n, 4)), idb)
    # 3) edge crossings: a's edge i (corner i to i+1) against b's edge j
    ea_live = np.stack([fra >= 1, fra == 2, fra == 2, fra == 2], axis=1)
    eb_live = np.stack([frb >= 1, frb == 2, frb == 2, frb == 2], axis=1)
    a0, a1 = la[:, :, None, :], np.roll(la, -1, axis=1)[:, :, None, :]
    b0, b1 = lb[:, None, :, :], np.roll(lb, -1, axis=1)[:, None, :, :]
    da, db = a1 - a0, b1 - b0
    w = b0 - a0
    den = da[..., 0] * db[..., 1] - da[..., 1] * db[..., 0]
    ok_den = np.abs(den) > 1e-12 * np.sqrt((da * da).sum(-1) * (db * db).sum(-1))
    safe = np.where(ok_den, den, 1.0)
    s = (w[..., 0] * db[..., 1] - w[..., 1] * db[..., 0]) / safe
    u = (w[..., 0] * da[..., 1] - w[..., 1] * da[..., 0]) / safe
    in_x = ok_den & (s > 0) & (s < 1) & (u > 0) & (u < 1) & ea_live[:, :, None] & eb_live[:, None, :]
    A0, A1 = ca[:, :, None, :], np.roll(ca, -1, axis=1)[:, :, None, :]
    B0, B1 = cb[:, None, :, :], np.roll(cb, -1, axis=1)[:, None, :, :]
    pa3 = (A0 + s[..., None] * (A1 - A0)).reshape(n, 16, 3)
    pb3 = (B0 + u[..., None] * (B1 - B0)).reshape(n, 16, 3)
    ea_code = edge_code(ida, np.roll(ida, -1, axis=1))
    eb_code = edge_code(idb, np.roll(idb, -1, axis=1))
    id3 = feature_ids(np.broadcast_to(ea_code[:, :, None], (n, 4, 4)),
                      np.broadcast_to(eb_code[:, None, :], (n, 4, 4))).reshape(n, 16)

    valid = np.concatenate([in_a, in_b, in_x.reshape(n, 16)], axis=1)
    pa = np.concatenate([pa1, pa2, pa3], axis=1)
    pb = np.concatenate([pb1, pb2, pb3], axis=1)
    ids = np.concatenate([id1, id2, id3], axis=1)
    point = 0.5 * (pa + pb)
    sep = ((pb - pa) * normal[:, None, :]).sum(-1)
    q = project(point)
    # the valid candidates first, in candidate order (a stable sort), cut to the
    # most any row has (at least 4; rarely over 8 of the 24): the duplicate check and the
    # reduction below then look at M x M pairs, not 24 x 24
    order = np.argsort(~valid, axis=1, kind="stable")
    width = int(valid.sum(axis=1).max(initial=0))
    order = order[:, :max(width, 4)]
    valid_c = np.take_along_axis(valid, order, axis=1)
    q_c = np.take_along_axis(q, order[:, :, None], axis=1)
    sep_c = np.take_along_axis(sep, order, axis=1)
    picked = kept_points(q_c, sep_c, valid_c, eps)
    chosen = np.where(picked >= 0, np.take_along_axis(order, np.maximum(picked, 0), axis=1), -1)
    out, count = points_in_slots(point, sep, ids, chosen)
    # nothing found (the normal grazes the features: seen along n they miss
    # each other by a gap g): one point, between their nearest points
    none = count == 0
    if none.any():
        pa0, pb0, id0 = _nearest_features(ca[none], la[none], ida[none], fra[none], cb[none], lb[none], idb[none],
                                          frb[none])
        sep0 = ((pb0 - pa0) * normal[none]).sum(-1)
        out.points[none, 0] = 0.5 * (pa0 + pb0)
        out.separations[none, 0] = sep0
        out.ids[none, 0] = id0
        count[none] = 1
    out.count[:] = count
    return out


def _nearest_features(ca: NDArray[np.float64], la: NDArray[np.float64], ida: NDArray[np.int64],
                      fra: NDArray[np.int64], cb: NDArray[np.float64], lb: NDArray[np.float64],
                      idb: NDArray[np.int64], frb: NDArray[np.int64]
                      ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """The points of two features nearest each other seen along n, and their id.

    Two convex sets in a plane that do not meet are nearest at a corner of
    one and an edge of the other (Ericson RTCD 5.1.9, point-segment), so the
    32 pairs of a corner of one loop and an edge of the other are tried; a
    vertex is its own edge (corner 0 to corner 1 of ``[v, v, v, v]``), an
    edge feature has one edge. The first nearest pair wins (a's corners
    first), the same order as the compiled twin. The point halfway between
    the two is then within half their distance, ``sqrt(sep^2 + g^2) / 2``,
    of both shapes: within ``|sep|`` while the gap g is under ``sqrt(3) |sep|``
    (always for gaps of rounding size); the first corners could be a whole
    feature apart.
    """
    m = len(ca)
    rows = np.arange(m)
    dist2 = np.full((m, 2, 4, 4), np.inf)
    param = np.zeros((m, 2, 4, 4))
    for side, (lq, fq, le, fe) in enumerate(((la, fra, lb, frb), (lb, frb, la, fra))):
        q_live = np.stack([np.ones(m, bool), fq >= 1, fq == 2, fq == 2], axis=1)
        e_live = np.stack([np.ones(m, bool), fe == 2, fe == 2, fe == 2], axis=1)
        p0 = le[:, None, :, :]
        e = np.roll(le, -1, axis=1)[:, None, :, :] - p0
        q = lq[:, :, None, :]
        ee = e[..., 0] * e[..., 0] + e[..., 1] * e[..., 1]
        t = ((q[..., 0] - p0[..., 0]) * e[..., 0] + (q[..., 1] - p0[..., 1]) * e[..., 1]) / np.where(ee > 0, ee, 1.0)
        t = np.clip(np.where(ee > 0, t, 0.0), 0.0, 1.0)
        dx = q[..., 0] - (p0[..., 0] + t * e[..., 0])
        dy = q[..., 1] - (p0[..., 1] + t * e[..., 1])
        live = q_live[:, :, None] & e_live[:, None, :]
        dist2[:, side] = np.where(live, dx * dx + dy * dy, np.inf)
        param[:, side] = t
    best = np.argmin(dist2.reshape(m, 32), axis=1)
    side, k, j = best // 16, (best // 4) % 4, best % 4
    t = param.reshape(m, 32)[rows, best][:, None]
    nj = (j + 1) % 4
    # side 0: a's corner k over b's edge j; side 1: b's corner k over a's edge j
    a_pt = np.where(side[:, None] == 0, ca[rows, k], ca[rows, j] + t * (ca[rows, nj] - ca[rows, j]))
    b_pt = np.where(side[:, None] == 0, cb[rows, j] + t * (cb[rows, nj] - cb[rows, j]), cb[rows, k])
    code_a = np.where(side == 0, ida[rows, k], edge_code(ida[rows, j], ida[rows, nj]))
    code_b = np.where(side == 0, edge_code(idb[rows, j], idb[rows, nj]), idb[rows, k])
    return a_pt, b_pt, feature_ids(code_a, code_b)


def reduce_to_four(q: NDArray[np.float64], sep: NDArray[np.float64], valid: NDArray[np.bool_]) -> NDArray[np.int64]:
    """Candidate numbers (N, 4) of at most four points spanning the largest area; -1 unused.

    Fewer than five valid candidates are all kept, in candidate order.
    """
    n, m = valid.shape
    nvalid = valid.sum(axis=1)
    chosen = np.full((n, 4), -1, dtype=np.int64)
    # few: keep them all
    order = np.argsort(~valid, axis=1, kind="stable")[:, :4]
    keep = np.arange(4)[None, :] < nvalid[:, None]
    chosen[:] = np.where(keep, order, -1)
    many = nvalid > 4
    if not many.any():
        return chosen
    qv, sv, vv = q[many], sep[many], valid[many]
    r = np.arange(len(qv))
    p1 = np.argmin(np.where(vv, sv, np.inf), axis=1)  # deepest
    d2 = ((qv - qv[r, p1][:, None]) ** 2).sum(-1)
    p2 = np.argmax(np.where(vv, d2, -np.inf), axis=1)  # farthest from it
    e = qv[r, p2] - qv[r, p1]
    rel = qv - qv[r, p1][:, None]
    area = e[:, None, 0] * rel[..., 1] - e[:, None, 1] * rel[..., 0]
    p3 = np.argmax(np.where(vv, np.abs(area), -np.inf), axis=1)  # largest triangle
    # orient the triangle counter-clockwise; the fourth point adds the most
    # area outside it (the sum of the positive outside triangles)
    flip = np.where(area[r, p3] < 0, -1.0, 1.0)
    tri = [qv[r, p1], qv[r, p2], qv[r, p3]]
    added = np.zeros(vv.shape)
    for i0, i1 in ((0, 1), (1, 2), (2, 0)):
        ee = tri[i1] - tri[i0]
        rr = qv - tri[i0][:, None]
        cr = (ee[:, None, 0] * rr[..., 1] - ee[:, None, 1] * rr[..., 0]) * flip[:, None]
        added += np.maximum(0.0, -cr)
    taken = np.zeros(vv.shape, dtype=bool)
    taken[r, p1] = taken[r, p2] = taken[r, p3] = True
    p4 = np.argmax(np.where(vv & ~taken, added, -np.inf), axis=1)
    chosen[many] = np.stack([p1, p2, p3, p4], axis=1)
    return chosen
