"""Compiled twin of ``geometry/contact_ball_polygon.py``: circles against convex polygons.

Ericson, *Real-Time Collision Detection*, §5.1.2 (distance to a segment),
extended to a centre inside the polygon; the feature is picked as Box2D's
circle-polygon manifold picks it. Per row, with vertices relative to the centre::

    for each edge with nonzero length:
        inner = signed distance from the centre to the edge line (> 0 inside),
                from the endpoints' cross product (accurate near a vertex)
        dist  = distance to the segment: the line distance and the overshoot
                past an endpoint, by Pythagoras (no rounded foot point)
    keep the first smallest inner (its edge) and the first nearest segment
    outside: normal towards the nearest vertex, or the nearest edge's inward
             normal; depth r - dist
    inside:  leave through the nearest edge line, depth r + inner

No array is allocated per row.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

from ..result import ContactArrays
from ..tolerance import SQUARES_RESCALE, TINY_SCALE
from .kernel_support import as_rows, contact_outputs, finish_row, touch_rule

__all__ = ["contact_ball_polygon", "contact_ball_polygon_planes", "row"]


@njit(cache=True)
def row(c: NDArray[np.float64], r: NDArray[np.float64], a: int,
         px: NDArray[np.float64], py: NDArray[np.float64], b: int, kk: int, rule: tuple[float, float], i: int,
         hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    """Row ``i`` of the output: circle ``a`` (rows of ``c``, ``r``) against polygon column ``b`` of the planes.

    ``kk``: the polygon's first ``kk`` vertices; the rest of the column, if
    any, repeats vertex ``kk - 1`` (padding changes no result, only the work).
    A pair whose coordinates are all under ``TINY_SCALE`` is done again with the
    offsets from the centre scaled up by ``SQUARES_RESCALE`` (exact), as the
    numpy twin does: their squares and products would underflow.
    """
    scale = _row_at(c, r, a, px, py, b, kk, rule, i, hit, normal, depth, 1.0)
    if scale < TINY_SCALE:
        _row_at(c, r, a, px, py, b, kk, rule, i, hit, normal, depth, SQUARES_RESCALE)


# A called function, not inline="always": numba's IR inlining pasted this body twice into row (the
# second call is the rare rescaled pass), and typed, lowered and optimised each copy: ~1 s of CPU
# on a cold cache. LLVM still inlines it where that pays; the arithmetic and its order are the same.
@njit(cache=True)
def _row_at(c: NDArray[np.float64], r: NDArray[np.float64], a: int,
            px: NDArray[np.float64], py: NDArray[np.float64], b: int, kk: int, rule: tuple[float, float], i: int,
            hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64], unit: float) -> float:
    """:func:`row` with the offsets from the centre multiplied by ``unit``; returns the pair's scale."""
    cx, cy = c[a, 0], c[a, 1]
    scale: float = max(abs(cx), abs(cy), abs(r[a]))
    point = True
    # the first smallest inner distance, and its edge
    inner_min, edge_x, edge_y, edge_len = np.inf, 0.0, 0.0, 1.0
    # the first nearest segment: its index, edge, length and endpoint projections
    near2, near, near_x, near_y, near_len, near_start, near_end = np.inf, 0, 0.0, 0.0, 1.0, 0.0, 0.0
    for k in range(kk):
        k1 = k + 1 if k + 1 < kk else 0
        scale = max(scale, abs(px[k, b]), abs(py[k, b]))
        x, y = (px[k, b] - cx) * unit, (py[k, b] - cy) * unit
        xn, yn = (px[k1, b] - cx) * unit, (py[k1, b] - cy) * unit
        ex, ey = xn - x, yn - y
        len2 = ex * ex + ey * ey
        valid = len2 > 0
        length = math.sqrt(len2 + (0.0 if valid else 1.0))
        point = point and not valid
        inner = (x * yn - y * xn) / length if valid else np.inf
        u_start = x * ex + y * ey
        u_end = xn * ex + yn * ey
        along = u_start if u_start >= -u_end else -u_end
        along = (along if along >= 0.0 else 0.0) / length
        dist2 = inner * inner + along * along
        if k == 0 or inner < inner_min:
            inner_min, edge_x, edge_y, edge_len = inner, ex, ey, length
        if k == 0 or dist2 < near2:
            near2, near, near_x, near_y, near_len, near_start, near_end = dist2, k, ex, ey, length, u_start, u_end
    feature = 0 if near_start >= 0 else (1 if near_end <= 0 else 2)  # start vertex, end vertex, edge
    if point:  # every vertex rounded onto one point: the distance is that vertex's
        x0, y0 = (px[0, b] - cx) * unit, (py[0, b] - cy) * unit
        dist = math.sqrt(x0 * x0 + y0 * y0)
    else:
        dist = math.sqrt(near2)
    # a centre on the boundary (distance 0) takes the inside branch: same depth, a defined normal
    outside = (inner_min < 0 or point) and dist > 0
    if outside and feature < 2:  # towards the nearest vertex: an exact difference over its length
        v = near if feature == 0 else (near + 1) % kk
        vx, vy = (px[v, b] - cx) * unit, (py[v, b] - cy) * unit
        length = math.sqrt(vx * vx + vy * vy)
        normal[i, 0] = vx / length + 0.0
        normal[i, 1] = vy / length + 0.0
    elif point:
        normal[i, 0] = 1.0
        normal[i, 1] = 0.0
    elif outside:  # the nearest edge's inward normal, never a rounded foot point's direction
        normal[i, 0] = -near_y / near_len + 0.0
        normal[i, 1] = near_x / near_len + 0.0
    else:  # inside: out through the nearest edge line
        normal[i, 0] = -edge_y / edge_len + 0.0
        normal[i, 1] = edge_x / edge_len + 0.0
    if outside:
        signed = r[a] - dist / unit
    elif point:
        signed = r[a]
    else:
        signed = r[a] + inner_min / unit
    finish_row(signed, scale, rule, i, hit, depth)
    return scale


@njit(cache=True)
def _rows(c: NDArray[np.float64], r: NDArray[np.float64], px: NDArray[np.float64], py: NDArray[np.float64],
          rule: tuple[float, float],
          hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    n = px.shape[1]
    # strided views, as the World's compiled contact loop passes: one compile of row serves both
    vx, vy = px[:, :n], py[:, :n]
    # strided views of the rows (x[..., ::1]), as every compiled caller passes them: one layout,
    # one compile of row (see contact_slots)
    v_c, v_r = c[..., ::1], r[..., ::1]
    for i in range(n):
        row(v_c, v_r, i, vx, vy, i, px.shape[0], rule, i, hit, normal, depth)


def contact_ball_polygon_planes(
    center_a: NDArray[np.float64], radius_a: NDArray[np.float64], px: NDArray[np.float64], py: NDArray[np.float64]
) -> ContactArrays:
    """Circles against polygons given as (K, N) planes; the twin of the numpy ``contact_ball_polygon_planes``.

    Parameters
    ----------
    center_a : ndarray, shape (N, 2)
    radius_a : ndarray, shape (N,)
    px, py : ndarray, shape (K, N)
        x and y of the polygons' vertices, vertex-major, counter-clockwise,
        padded by repeating the last vertex.

    Returns
    -------
    ContactArrays
        ``normal`` (N, 2) from the circle towards the polygon.

    Examples
    --------
    The square -1..1: a radius-0.25 circle at (0, 0.5) is 0.5 inside the top
    edge (depth 0.25 + 0.5), and a radius-1.5 circle at (2, 0) is 1 right of
    the square (depth 1.5 - 1).

    >>> import numpy as np
    >>> square = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    >>> px, py = np.stack([square, square]).transpose(2, 1, 0)  # each (4, 2)
    >>> c = contact_ball_polygon_planes(np.array([[0.0, 0.5], [2.0, 0.0]]), np.array([0.25, 1.5]), px, py)
    >>> c.hit.tolist(), c.normal.tolist(), c.depth.tolist()
    ([True, True], [[0.0, -1.0], [-1.0, 0.0]], [0.75, 0.5])
    """
    px, py = as_rows(px), as_rows(py)
    out = contact_outputs(px.shape[1], 2)
    _rows(as_rows(center_a), as_rows(radius_a), px, py, touch_rule(), *out)
    return out


def contact_ball_polygon(center_a: ArrayLike, radius_a: ArrayLike, vertices_b: ArrayLike) -> ContactArrays:
    """Circles (a) against convex polygons (b); the twin of the numpy ``contact_ball_polygon``.

    Parameters
    ----------
    center_a : array_like, shape (N, 2)
    radius_a : array_like, shape (N,)
    vertices_b : array_like, shape (N, K, 2)
        Counter-clockwise convex polygons, padded to K by repeating the last
        vertex; zero-length edges are ignored.

    Returns
    -------
    ContactArrays
        ``normal`` (N, 2) from the circle towards the polygon.

    Examples
    --------
    >>> square = [[[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]]
    >>> c = contact_ball_polygon([[0.0, 0.5]], [0.25], square)
    >>> bool(c.hit[0]), c.normal[0].tolist(), float(c.depth[0])
    (True, [0.0, -1.0], 0.75)
    """
    vb = as_rows(vertices_b)
    return contact_ball_polygon_planes(as_rows(center_a), as_rows(radius_a), vb[:, :, 0].T, vb[:, :, 1].T)
