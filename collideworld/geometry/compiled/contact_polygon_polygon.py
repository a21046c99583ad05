"""Compiled twin of ``geometry/contact_polygon_polygon.py``: convex polygons, by separating axes.

Every outward edge normal of a and of b is a candidate axis; the smallest
"how far b must move along it to clear a" is the minimum translation distance
(Ericson, *Real-Time Collision Detection*, §5.2.1). Per row::

    translate both polygons by a's first vertex (large offsets cancel first)
    for each edge of a with nonzero length, outward normal n:
        gap = (first vertex of the edge) . n - min over b's vertices of v . n
    for each edge of b, outward normal m (b leaves along -m):
        gap = (first vertex of the edge) . m - min over a's vertices of v . m
    depth, normal = first smallest gap, its direction

No array is allocated per row: each axis is built, projected and dropped.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

from ..result import ContactArrays
from ..tolerance import SQUARES_RESCALE, SQUARES_UNDERFLOW
from .kernel_support import as_rows, contact_outputs, finish_row, touch_rule

__all__ = ["contact_convex_planes", "contact_polygon_polygon", "row"]


@njit(cache=True)
def _lowest_gap(px: NDArray[np.float64], py: NDArray[np.float64], p: int, kp: int, qx: NDArray[np.float64],
                qy: NDArray[np.float64], q: int, kq: int, ox: float, oy: float, best: float,
                flip: float, i: int, normal: NDArray[np.float64]) -> float:
    """Try every edge normal of polygon p (column ``p``) against polygon q (column ``q``); keep the first smallest gap.

    Only the first ``kp`` (``kq``) vertices are read: the rest repeat the last.
    Returns the new best gap and writes its normal (times ``flip``) to ``normal[i]``.
    """
    for k in range(kp):
        k1 = k + 1 if k + 1 < kp else 0
        x0, y0 = px[k, p] - ox, py[k, p] - oy
        ex = (px[k1, p] - ox) - x0
        ey = (py[k1, p] - oy) - y0
        len2 = ex * ex + ey * ey
        if len2 < SQUARES_UNDERFLOW:  # underflowed: scaled up exactly, as the numpy edge_normals
            ex, ey = ex * SQUARES_RESCALE, ey * SQUARES_RESCALE
            len2 = ex * ex + ey * ey
        if not len2 > 0:  # zero-length edge (padding, repeated vertex): no direction
            continue
        length = math.sqrt(len2)
        nx = ey / length
        ny = -(ex / length)
        lowest = nx * (qx[0, q] - ox) + ny * (qy[0, q] - oy)
        for j in range(1, kq):
            lowest = min(lowest, nx * (qx[j, q] - ox) + ny * (qy[j, q] - oy))
        gap = (x0 * nx + y0 * ny) - lowest
        if gap < best:
            best = gap
            normal[i, 0] = flip * nx
            normal[i, 1] = flip * ny
    return best


@njit(cache=True)
def row(ax: NDArray[np.float64], ay: NDArray[np.float64], a: int, ka: int,
         bx: NDArray[np.float64], by: NDArray[np.float64], b: int, kb: int, rule: tuple[float, float], i: int,
         hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    """Row ``i`` of the output: polygon column ``a`` of ``ax``, ``ay`` against column ``b`` of ``bx``, ``by``.

    ``ka``, ``kb``: the polygons' first vertices that count; the rest of each
    column, if any, repeats its last one (padding changes no result, only the work).
    """
    scale = 0.0
    for k in range(ka):
        scale = max(scale, abs(ax[k, a]), abs(ay[k, a]))
    for k in range(kb):
        scale = max(scale, abs(bx[k, b]), abs(by[k, b]))
    ox, oy = ax[0, a], ay[0, a]
    best = _lowest_gap(ax, ay, a, ka, bx, by, b, kb, ox, oy, np.inf, 1.0, i, normal)
    best = _lowest_gap(bx, by, b, kb, ax, ay, a, ka, ox, oy, best, -1.0, i, normal)
    if best == np.inf:
        # no edge on either side: both polygons rounded onto single
        # points, whose separation is their distance
        px, py = bx[0, b] - ox, by[0, b] - oy
        dist = math.hypot(px, py)
        normal[i, 0] = px / dist if dist > 0 else 1.0
        normal[i, 1] = py / dist if dist > 0 else 0.0
        best = -dist
    normal[i, 0] += 0.0
    normal[i, 1] += 0.0
    finish_row(best, scale, rule, i, hit, depth)


@njit(cache=True)
def _rows(ax: NDArray[np.float64], ay: NDArray[np.float64], bx: NDArray[np.float64], by: NDArray[np.float64],
          rule: tuple[float, float],
          hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
    n = ax.shape[1]
    # strided views, as the World's compiled contact loop passes: one compile of row serves both
    vax, vay, vbx, vby = ax[:, :n], ay[:, :n], bx[:, :n], by[:, :n]
    for i in range(n):
        row(vax, vay, i, ax.shape[0], vbx, vby, i, bx.shape[0], rule, i, hit, normal, depth)


def contact_convex_planes(
    ax: NDArray[np.float64], ay: NDArray[np.float64], bx: NDArray[np.float64], by: NDArray[np.float64]
) -> ContactArrays:
    """Convex polygons given as (K, N) coordinate planes; the twin of the numpy ``contact_convex_planes``.

    Parameters
    ----------
    ax, ay : ndarray, shape (Ka, N)
        x and y of polygon a's vertices, vertex-major.
    bx, by : ndarray, shape (Kb, N)

    Returns
    -------
    ContactArrays
        ``normal`` (N, 2) from a towards b, ``depth`` (N,).

    Examples
    --------
    The square 0..2 against a triangle whose leftmost edge is at x = 1.5:
    they overlap by 0.5 along x. Moved 2 to the right, the triangle is 1.5
    clear of the square.

    >>> import numpy as np
    >>> square = np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]])
    >>> tri = np.array([[1.5, 0.5], [3.0, 1.0], [1.5, 1.5]])
    >>> ax, ay = np.stack([square, square]).transpose(2, 1, 0)  # each (4, 2)
    >>> bx, by = np.stack([tri, tri + [2.0, 0.0]]).transpose(2, 1, 0)  # each (3, 2)
    >>> c = contact_convex_planes(ax, ay, bx, by)
    >>> c.hit.tolist(), c.normal[0].tolist(), c.depth.tolist()
    ([True, False], [1.0, 0.0], [0.5, -1.5])
    """
    ax, ay, bx, by = (as_rows(p) for p in (ax, ay, bx, by))
    out = contact_outputs(ax.shape[1], 2)
    _rows(ax, ay, bx, by, touch_rule(), *out)
    return out


def contact_polygon_polygon(vertices_a: ArrayLike, vertices_b: ArrayLike) -> ContactArrays:
    """Contacts between N pairs of convex polygons; the twin of the numpy ``contact_polygon_polygon``.

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
        normal of b, pointing from a towards b; ties go to a's edges first.

    Examples
    --------
    >>> a = [[[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]]]
    >>> b = [[[1.5, 0.5], [3.0, 1.0], [1.5, 1.5], [1.5, 1.5]]]  # padded
    >>> c = contact_polygon_polygon(a, b)
    >>> bool(c.hit[0]), c.normal[0].tolist(), float(c.depth[0])
    (True, [1.0, 0.0], 0.5)
    """
    va, vb = as_rows(vertices_a), as_rows(vertices_b)
    return contact_convex_planes(va[:, :, 0].T, va[:, :, 1].T, vb[:, :, 0].T, vb[:, :, 1].T)
