"""Compiled twin of ``geometry/contact_ball_polygon.py``: circles against convex polygons.

Ericson, *Real-Time Collision Detection*, §5.1.2 (closest point on a
segment), extended to a centre inside the polygon. Per row::

    for each edge with nonzero length (vertices relative to the centre):
        inner = signed distance from the centre to the edge line (> 0 inside)
        q     = closest point of the edge segment to the centre
    keep the first smallest inner (its edge) and the first nearest q
    outside (some inner < 0, and q off the centre): normal towards q, depth r - |q|
    inside: leave through the nearest edge line, depth r + inner

No array is allocated per row.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

from ..result import ContactArrays
from .kernel_support import as_rows, contact_outputs, finish_row, touch_rule

__all__ = ["contact_ball_polygon", "contact_ball_polygon_planes"]


@njit(cache=True)
def _rows(c: NDArray[np.float64], r: NDArray[np.float64], px: NDArray[np.float64], py: NDArray[np.float64],
          rule: tuple[float, float],
          hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    kk = px.shape[0]
    for i in range(px.shape[1]):
        cx, cy = c[i, 0], c[i, 1]
        scale = max(abs(cx), abs(cy), abs(r[i]))
        inner_min = np.inf
        edge_x, edge_y, edge_len = 0.0, 0.0, 1.0
        near2 = np.inf
        qx_near = qy_near = 0.0
        point = True
        for k in range(kk):
            k1 = k + 1 if k + 1 < kk else 0
            scale = max(scale, abs(px[k, i]), abs(py[k, i]))
            # vertices relative to the centre: distances come out of small
            # differences, not of large world coordinates
            x, y = px[k, i] - cx, py[k, i] - cy
            ex = (px[k1, i] - cx) - x
            ey = (py[k1, i] - cy) - y
            len2 = ex * ex + ey * ey
            valid = len2 > 0
            safe_len2 = len2 if valid else 1.0
            length = math.sqrt(safe_len2)
            if valid:
                point = False
                inner = (ey * x - ex * y) / length
                if inner < inner_min:
                    inner_min, edge_x, edge_y, edge_len = inner, ex, ey, length
            # a zero-length edge degenerates to its vertex, which is on the boundary too
            t = min(max(-(x * ex + y * ey) / safe_len2, 0.0), 1.0)
            qx = x + t * ex
            qy = y + t * ey
            d2 = qx * qx + qy * qy
            if d2 < near2:
                near2, qx_near, qy_near = d2, qx, qy
        dist = math.sqrt(near2)
        # a centre within rounding of the boundary lands on it (dist 0): the
        # inside branch then gives the same depth, r + 0, and a defined normal
        outside = (inner_min < 0 or point) and dist > 0
        if outside:
            normal[i, 0] = qx_near / dist + 0.0
            normal[i, 1] = qy_near / dist + 0.0
            signed = r[i] - dist
        elif point:  # every vertex rounded onto one point: any direction
            normal[i, 0] = 1.0
            normal[i, 1] = 0.0
            signed = r[i]
        else:
            normal[i, 0] = -edge_y / edge_len + 0.0
            normal[i, 1] = edge_x / edge_len + 0.0
            signed = r[i] + inner_min
        finish_row(signed, scale, rule, i, hit, depth)


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
