"""Contacts between convex polygons (and boxes taken as polygons), 2D.

Separating-axis test over every edge normal of both polygons. With ``M`` the
Minkowski difference ``A - B`` and ``h`` a support function, b must move by
``h_M(n) = max_a a.n - min_b b.n`` along a unit ``n`` to clear a in that
direction. The edges of ``M`` are the edges of ``A`` and of ``-B``, so::

    for each outward normal n of A:      gap(n)  = h_A(n) - min_b b.n
    for each outward normal m of B:      gap(-m) = h_B(m) - min_a a.m
    depth, normal = min gap, its direction (n, or -m)

When the polygons overlap, ``h_M`` is positive and, between two adjacent
edge normals of ``M``, equal to ``v . n`` for one vertex ``v`` of ``M``: a
positive cosine, concave in the angle, whose minimum over the arc lies at an
end. So the minimum over these candidates is the exact minimum translation
distance, not only a separation test (Ericson, *Real-Time Collision
Detection*, §5.2.1 on the separating-axis test).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .contact_ball import _finish, _pair_scale
from .result import ContactArrays

__all__ = ["box_vertices_2d", "contact_polygon_polygon", "contact_box_polygon"]

# Corner signs in counter-clockwise order for a right-handed box frame.
_CORNER_SIGNS = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])


def box_vertices_2d(center: ArrayLike, rotation: ArrayLike, half: ArrayLike) -> NDArray[np.float64]:
    """World-frame corners of N oriented rectangles, counter-clockwise.

    Parameters
    ----------
    center : array_like, shape (N, 2)
    rotation : array_like, shape (N, 2, 2)
        Proper rotations (determinant +1), which keep the order
        counter-clockwise.
    half : array_like, shape (N, 2)
        Half extents.

    Returns
    -------
    ndarray, shape (N, 4, 2)
        Corners at local ``(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)``.

    Examples
    --------
    >>> box_vertices_2d([[1.0, 0.0]], [[[1.0, 0.0], [0.0, 1.0]]], [[1.0, 0.5]]).tolist()
    [[[0.0, -0.5], [2.0, -0.5], [2.0, 0.5], [0.0, 0.5]]]
    """
    c = np.asarray(center, dtype=np.float64)
    r = np.asarray(rotation, dtype=np.float64)
    h = np.asarray(half, dtype=np.float64)
    local = _CORNER_SIGNS[None, :, :] * h[:, None, :]
    return np.einsum("nij,nkj->nki", r, local) + c[:, None, :]


def _edge_normals(v: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Unit outward normals of counter-clockwise polygons, shape (N, K, 2).

    Edge k runs from vertex k to vertex k + 1 (cyclically). A zero-length
    edge (padding, or a repeated vertex) has no direction: its entry is an
    arbitrary unit vector and ``valid`` is False there. Any nonzero edge,
    however short, is kept: a badly rounded normal is still a direction,
    and every direction gives an upper bound of the depth, never a wrong one.
    """
    e = np.roll(v, -1, axis=1) - v
    len2 = np.einsum("nkd,nkd->nk", e, e)
    valid = len2 > 0
    length = np.sqrt(np.where(valid, len2, 1.0))
    normal = np.stack([e[..., 1], -e[..., 0]], axis=-1) / length[..., None]
    normal[~valid] = (1.0, 0.0)
    return normal, valid


def _min_projection(normal: NDArray[np.float64], v: NDArray[np.float64]) -> NDArray[np.float64]:
    """``min_j normal[n, k] . v[n, j]`` for every n and k, shape (N, K)."""
    proj = normal[:, :, None, 0] * v[:, None, :, 0] + normal[:, :, None, 1] * v[:, None, :, 1]
    return proj.min(axis=2)


def contact_polygon_polygon(vertices_a: ArrayLike, vertices_b: ArrayLike) -> ContactArrays:
    """Contacts between N pairs of convex polygons.

    Parameters
    ----------
    vertices_a : array_like, shape (N, Ka, 2)
    vertices_b : array_like, shape (N, Kb, 2)
        Counter-clockwise convex polygons, each padded to its array's K by
        repeating its last vertex; zero-length edges are ignored.

    Returns
    -------
    ContactArrays
        ``normal`` (N, 2) is an outward edge normal of a, or an inward edge
        normal of b, pointing from a towards b. Where the pair is apart,
        ``-depth`` is the widest gap along an edge normal, a lower bound of
        the distance.

    Notes
    -----
    O(N Ka Kb) time and memory. Ties go to a's edges before b's, then to the
    lowest edge index.

    Examples
    --------
    >>> a = [[[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]]]
    >>> b = [[[1.5, 0.5], [3.0, 1.0], [1.5, 1.5], [1.5, 1.5]]]  # padded
    >>> c = contact_polygon_polygon(a, b)
    >>> bool(c.hit[0]), c.normal[0].tolist(), float(c.depth[0])
    (True, [1.0, 0.0], 0.5)
    """
    va = np.asarray(vertices_a, dtype=np.float64)
    vb = np.asarray(vertices_b, dtype=np.float64)
    n = va.shape[0]
    scale = _pair_scale(va, vb)

    # A common origin near the pair keeps large world offsets out of the
    # products below; translation changes none of the gaps.
    origin = va[:, :1, :]
    va = va - origin
    vb = vb - origin

    na, valid_a = _edge_normals(va)
    nb, valid_b = _edge_normals(vb)
    # The support of a polygon along its own edge normal is that edge's
    # first vertex, so only the other polygon needs a full projection.
    gap_a = np.einsum("nkd,nkd->nk", va, na) - _min_projection(na, vb)
    gap_b = np.einsum("nkd,nkd->nk", vb, nb) - _min_projection(nb, va)
    gap = np.concatenate(
        [np.where(valid_a, gap_a, np.inf), np.where(valid_b, gap_b, np.inf)], axis=1
    )
    directions = np.concatenate([na, -nb], axis=1)

    k = np.argmin(gap, axis=1)
    rows = np.arange(n)
    return _finish(gap[rows, k], directions[rows, k], scale)


def contact_box_polygon(
    center_a: ArrayLike, rotation_a: ArrayLike, half_a: ArrayLike, vertices_b: ArrayLike
) -> ContactArrays:
    """Contacts between N oriented rectangles (a) and N convex polygons (b).

    Parameters
    ----------
    center_a : array_like, shape (N, 2)
    rotation_a : array_like, shape (N, 2, 2)
    half_a : array_like, shape (N, 2)
    vertices_b : array_like, shape (N, K, 2)
        Counter-clockwise convex polygons, padded by repeating the last vertex.

    Returns
    -------
    ContactArrays
        As :func:`contact_polygon_polygon` with a's corners from
        :func:`box_vertices_2d`.
    """
    return contact_polygon_polygon(box_vertices_2d(center_a, rotation_a, half_a), vertices_b)
