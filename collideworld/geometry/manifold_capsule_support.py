"""Contact manifolds of capsules and segments: their touching features, and the radius shift.

A capsule is its core segment grown by a radius, so its manifold is the
manifold of the core segment (a two-vertex "polygon", as Box2D's
``b2MakeCapsule`` treats it) against the other shape's feature, moved out
by the radii afterwards (:func:`round_manifold`)::

    feature of the segment along d = both ends while the segment is tilted
        from the plane perpendicular to d by less than the tilt slop
        (FEATURE_SLOP, the box faces' rule), else its end furthest along d
    clip it against the other shape's feature (manifold_convex_2d in 2D,
        manifold_features_3d in 3D): points over both features
    each point: a's surface is r_a further along +n, b's r_b further along -n

So a capsule lying on the ground touches at two points (its ends, in 2D
and in 3D), one standing upright at one; two crossed capsules at the one
point where their cores cross, two parallel ones at the two ends of the
interval where their cores overlap.

NOTE: in 3D two capsules lying across each other touch at the one point
where their cores cross, seen along n; so do two nearly parallel ones
skewed by more than rounding (about 1e-9 of their size): only exactly
parallel cores (a 2D pair, or a 3D pair whose cores are coplanar with n)
give the two ends of their overlap. Widening that by a slop would put the
points off the cores sideways, outside the separation bound.

Feature ids of a segment: vertex 0 (``p0``), vertex 1 (``p1``) and the
segment itself (``edge_code(0, 1)``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .manifold_support import FEATURE_SLOP, ManifoldArrays, edge_code

__all__ = ["SEGMENT_CODE", "round_manifold", "segment_feature_3d", "segment_vertices"]

#: Feature code of a whole segment (the edge between its vertices 0 and 1).
SEGMENT_CODE = int(edge_code(np.array([0]), np.array([1]))[0])

F64 = NDArray[np.float64]


def segment_vertices(p0: F64, p1: F64) -> F64:
    """The core segments as two-vertex polygons.

    Parameters
    ----------
    p0, p1 : ndarray, shape (N, D)

    Returns
    -------
    ndarray, shape (N, 2, D)

    Examples
    --------
    >>> import numpy as np
    >>> segment_vertices(np.zeros((1, 2)), np.ones((1, 2))).tolist()
    [[[0.0, 0.0], [1.0, 1.0]]]
    """
    return np.stack([p0, p1], axis=1)


def segment_feature_3d(p0: F64, p1: F64, direction: F64
                       ) -> tuple[F64, NDArray[np.int64], NDArray[np.int64], F64, NDArray[np.int64]]:
    """The touching feature of segments along ``direction``, as the 4-corner loop of ``box_feature_3d``.

    The whole segment (``[p0, p1, p1, p0]``, one free axis) while
    ``|direction . (p1 - p0)| <= FEATURE_SLOP * |p1 - p0|``, else its end
    furthest along ``direction`` four times (a vertex; ``p0`` for a
    segment of zero length).

    Parameters
    ----------
    p0, p1 : ndarray, shape (N, 3)
    direction : ndarray, shape (N, 3)
        Unit vectors.

    Returns
    -------
    corners : ndarray, shape (N, 4, 3)
    corner_ids : ndarray of int64, shape (N, 4)
        0 for ``p0``, 1 for ``p1``.
    free : ndarray of int64, shape (N,)
        1 for the segment, 0 for a vertex.
    face_normal : ndarray, shape (N, 3)
        ``direction`` (a segment has no face; unused).
    code : ndarray of int64, shape (N,)
        :data:`SEGMENT_CODE` or the vertex's id.

    Examples
    --------
    A segment lying along x, seen from above, is touching whole; stood on
    end, its lower end touches:

    >>> import numpy as np
    >>> down = np.array([[0.0, 0.0, -1.0]])
    >>> c, ids, free, _, code = segment_feature_3d(np.zeros((1, 3)), np.array([[2.0, 0.0, 0.0]]), down)
    >>> ids[0].tolist(), free.tolist(), code.tolist()
    ([0, 1, 1, 0], [1], [8192])
    >>> c, ids, free, _, code = segment_feature_3d(np.array([[0.0, 0.0, 2.0]]), np.zeros((1, 3)), down)
    >>> c[0, 0].tolist(), free.tolist(), code.tolist()
    ([0.0, 0.0, 0.0], [0], [1])
    """
    e = p1 - p0
    along = e[:, 0] * direction[:, 0] + e[:, 1] * direction[:, 1] + e[:, 2] * direction[:, 2]
    length = np.sqrt(e[:, 0] * e[:, 0] + e[:, 1] * e[:, 1] + e[:, 2] * e[:, 2])
    whole = (length > 0.0) & (np.abs(along) <= FEATURE_SLOP * length)
    end = np.where(along > 0.0, 1, 0).astype(np.int64)
    ids = np.where(whole[:, None], np.array([[0, 1, 1, 0]]), end[:, None] * np.ones((1, 4), dtype=np.int64))
    corners = np.where((ids == 1)[:, :, None], p1[:, None, :], p0[:, None, :])
    code = np.where(whole, SEGMENT_CODE, end).astype(np.int64)
    return corners, ids.astype(np.int64), whole.astype(np.int64), direction.copy(), code


def round_manifold(m: ManifoldArrays, normal: F64, radius_a: F64 | float, radius_b: F64 | float) -> ManifoldArrays:
    """Points of the cores moved onto the grown shapes: a's surface ``r_a`` along ``+n``, b's ``r_b`` along ``-n``.

    Each point is the midpoint of a's and b's touching points, so it moves by
    ``(r_a - r_b) / 2`` along ``n``; each separation shrinks by ``r_a + r_b``.
    Unused slots stay NaN.

    Parameters
    ----------
    m : ManifoldArrays
        Points of the core shapes (changed in place and returned).
    normal : ndarray, shape (N, D)
    radius_a, radius_b : float or ndarray, shape (N,)

    Returns
    -------
    ManifoldArrays

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld.geometry.manifold_support import manifold_single_point
    >>> m = manifold_single_point(np.zeros((1, 2)), np.array([[0.0, 1.0]]), np.array([1.0]), np.zeros(1, int))
    >>> r = round_manifold(m, np.array([[0.0, 1.0]]), 0.0, np.array([0.25]))
    >>> r.points[0, 0].tolist(), r.separations[0, 0].tolist()
    ([0.0, 0.375], 0.75)
    """
    ra = np.broadcast_to(np.asarray(radius_a, dtype=np.float64), (len(normal),))
    rb = np.broadcast_to(np.asarray(radius_b, dtype=np.float64), (len(normal),))
    shift = 0.5 * (ra - rb)
    m.points[...] = m.points + shift[:, None, None] * normal[:, None, :]
    m.separations[...] = m.separations - (ra + rb)[:, None]
    return m
