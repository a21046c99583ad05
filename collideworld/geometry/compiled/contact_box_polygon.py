"""Compiled twin of ``geometry/contact_box_polygon.py``: oriented rectangles against convex polygons.

The separating axes of the polygon-polygon test, with the box's four edge
normals known from its axes (-v, +u, +v, -u in corner order) and its support
along any direction m being ``hu |u.m| + hv |v.m|``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

from ..result import ContactArrays
from ..tolerance import SQUARES_RESCALE, SQUARES_UNDERFLOW
from .kernel_support import as_rows, contact_outputs, finish_row, touch_rule

__all__ = ["contact_box_convex_planes", "contact_box_polygon", "row"]


@njit(cache=True)
def row(c: NDArray[np.float64], rot: NDArray[np.float64], h: NDArray[np.float64], a: int,
         bx: NDArray[np.float64], by: NDArray[np.float64], b: int, kb: int, rule: tuple[float, float], i: int,
         hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    """Row ``i`` of the output: box ``a`` (rows of ``c``, ``rot``, ``h``) against polygon column ``b``.

    ``kb``: the polygon's first ``kb`` vertices; the rest of the column, if
    any, repeats vertex ``kb - 1`` (padding changes no result, only the work).
    """
    cx, cy = c[a, 0], c[a, 1]
    ux, uy, vx, vy = rot[a, 0, 0], rot[a, 1, 0], rot[a, 0, 1], rot[a, 1, 1]
    hu, hv = h[a, 0], h[a, 1]
    scale = max(abs(cx), abs(cy), abs(hu), abs(hv))
    # b relative to the box centre, projected on the box axes
    pu_lo = pu_hi = (bx[0, b] - cx) * ux + (by[0, b] - cy) * uy
    pv_lo = pv_hi = (bx[0, b] - cx) * vx + (by[0, b] - cy) * vy
    for k in range(kb):
        dx, dy = bx[k, b] - cx, by[k, b] - cy
        scale = max(scale, abs(bx[k, b]), abs(by[k, b]))
        pu = dx * ux + dy * uy
        pv = dx * vx + dy * vy
        pu_lo, pu_hi = min(pu_lo, pu), max(pu_hi, pu)
        pv_lo, pv_hi = min(pv_lo, pv), max(pv_hi, pv)
    # the box's edges in corner order: outward normals -v, +u, +v, -u
    best, nx, ny = hv + pv_hi, -vx, -vy
    gap = hu - pu_lo
    if gap < best:
        best, nx, ny = gap, ux, uy
    gap = hv - pv_lo
    if gap < best:
        best, nx, ny = gap, vx, vy
    gap = hu + pu_hi
    if gap < best:
        best, nx, ny = gap, -ux, -uy
    # b's outward normals m: the box clears b along m, so b leaves along -m
    for k in range(kb):
        k1 = k + 1 if k + 1 < kb else 0
        dx, dy = bx[k, b] - cx, by[k, b] - cy
        ex = (bx[k1, b] - cx) - dx
        ey = (by[k1, b] - cy) - dy
        len2 = ex * ex + ey * ey
        if len2 < SQUARES_UNDERFLOW:  # underflowed: scaled up exactly, as the numpy edge_normals
            ex, ey = ex * SQUARES_RESCALE, ey * SQUARES_RESCALE
            len2 = ex * ex + ey * ey
        if not len2 > 0:  # zero-length edge: no direction
            continue
        length = math.sqrt(len2)
        mx = ey / length
        my = -(ex / length)
        reach = abs(ux * mx + uy * my) * hu + abs(vx * mx + vy * my) * hv
        gap = dx * mx + dy * my + reach
        if gap < best:
            best, nx, ny = gap, -mx, -my
    normal[i, 0] = nx + 0.0
    normal[i, 1] = ny + 0.0
    finish_row(best, scale, rule, i, hit, depth)


@njit(cache=True)
def _rows(c: NDArray[np.float64], rot: NDArray[np.float64], h: NDArray[np.float64],
          bx: NDArray[np.float64], by: NDArray[np.float64],
          rule: tuple[float, float],
          hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    n = bx.shape[1]
    # strided views, as the World's compiled contact loop passes: one compile of row serves both
    vx, vy = bx[:, :n], by[:, :n]
    # strided views of the rows (x[..., ::1]), as every compiled caller passes them: one layout,
    # one compile of row (see contact_slots)
    v_c, v_rot, v_h = c[..., ::1], rot[..., ::1], h[..., ::1]
    for i in range(n):
        row(v_c, v_rot, v_h, i, vx, vy, i, bx.shape[0], rule, i, hit, normal, depth)


def contact_box_convex_planes(
    center_a: NDArray[np.float64], rotation_a: NDArray[np.float64], half_a: NDArray[np.float64],
    bx: NDArray[np.float64], by: NDArray[np.float64],
) -> ContactArrays:
    """Boxes against polygons given as (K, N) planes; the twin of the numpy ``contact_box_convex_planes``.

    Parameters
    ----------
    center_a : ndarray, shape (N, 2)
    rotation_a : ndarray, shape (N, 2, 2)
        Proper rotations (determinant +1).
    half_a : ndarray, shape (N, 2)
        Half extents.
    bx, by : ndarray, shape (K, N)
        x and y of the polygons' vertices, vertex-major, counter-clockwise,
        padded by repeating the last vertex.

    Returns
    -------
    ContactArrays
        ``normal`` (N, 2) from the box towards the polygon, ``depth`` (N,).

    Examples
    --------
    A triangle whose leftmost edge is at x = 1.5, against a box with half
    extents (1, 1): centred at (1, 1) the box reaches x = 2, an overlap of
    0.5; centred at (-1, 1) it reaches x = 0, 1.5 short.

    >>> import numpy as np
    >>> tri = np.array([[1.5, 0.5], [3.0, 1.0], [1.5, 1.5]])
    >>> bx, by = np.stack([tri, tri]).transpose(2, 1, 0)  # each (3, 2)
    >>> eye = [[1.0, 0.0], [0.0, 1.0]]
    >>> c = contact_box_convex_planes(np.array([[1.0, 1.0], [-1.0, 1.0]]), np.array([eye, eye]),
    ...                               np.array([[1.0, 1.0], [1.0, 1.0]]), bx, by)
    >>> c.hit.tolist(), c.normal[0].tolist(), c.depth.tolist()
    ([True, False], [1.0, 0.0], [0.5, -1.5])
    """
    bx, by = as_rows(bx), as_rows(by)
    out = contact_outputs(bx.shape[1], 2)
    _rows(as_rows(center_a), as_rows(rotation_a), as_rows(half_a), bx, by, touch_rule(), *out)
    return out


def contact_box_polygon(
    center_a: ArrayLike, rotation_a: ArrayLike, half_a: ArrayLike, vertices_b: ArrayLike
) -> ContactArrays:
    """Oriented rectangles (a) against convex polygons (b); the twin of the numpy ``contact_box_polygon``.

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
        ``normal`` (N, 2) from the box towards the polygon, ``depth`` (N,);
        ties go to the box's edges first, in corner order.

    Examples
    --------
    >>> eye = [[1.0, 0.0], [0.0, 1.0]]
    >>> tri = [[1.5, 0.5], [3.0, 1.0], [1.5, 1.5]]
    >>> c = contact_box_polygon([[1.0, 1.0]], [eye], [[1.0, 1.0]], [tri])
    >>> bool(c.hit[0]), c.normal[0].tolist(), float(c.depth[0])
    (True, [1.0, 0.0], 0.5)
    """
    vb = as_rows(vertices_b)
    return contact_box_convex_planes(as_rows(center_a), as_rows(rotation_a), as_rows(half_a),
                                     vb[:, :, 0].T, vb[:, :, 1].T)
