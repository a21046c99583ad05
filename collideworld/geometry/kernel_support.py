"""Helpers shared by the contact kernels (``contact_<a>_<b>`` modules).

The touching rule (:func:`finish`, :func:`finish_halfspace`), the
coordinate scale it is relative to (:func:`pair_scale`,
:func:`plane_scale`), the vertex-major polygon layout the 2D kernels reduce
over (:func:`coordinate_planes`, :func:`box_planes_2d`), box corners
(:func:`box_vertices_2d`) and the separating-axis pieces of the polygon
kernels (:func:`edge_normals`, :func:`gaps`, :func:`first_argmin`).

Each kernel module imports only these public helpers, never another
kernel module's private names, so every kernel file (and its compiled twin
in :mod:`collideworld.geometry.compiled`) reads on its own.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .result import ContactArrays
from .tolerance import SQUARES_RESCALE, SQUARES_UNDERFLOW, touch_tolerance

__all__ = [
    "box_planes_2d",
    "box_vertices_2d",
    "coordinate_planes",
    "edge_normals",
    "finish",
    "finish_halfspace",
    "first_argmin",
    "gaps",
    "next_minus",
    "pair_scale",
    "plane_scale",
]


def pair_scale(*arrays: NDArray[np.float64]) -> NDArray[np.float64]:
    """Largest absolute value per pair over every array, shape (N,).

    Each array has shape (N, ...); the touching tolerance of a pair is
    relative to the magnitude of the coordinates that pair's rounding comes
    from.

    Examples
    --------
    >>> import numpy as np
    >>> pair_scale(np.array([[1.0, -3.0], [0.5, 0.0]]), np.array([2.0, 0.25])).tolist()
    [3.0, 0.5]
    """
    scale = np.zeros(arrays[0].shape[0])
    for a in arrays:
        flat = a.reshape(a.shape[0], int(np.prod(a.shape[1:])))  # -1 fails when N = 0
        # Column by column: numpy reduces a short last axis ~20x slower than
        # it takes an elementwise maximum of a few (N,) columns.
        for j in range(flat.shape[1]):
            scale = np.maximum(scale, np.abs(flat[:, j]))
    return scale


def coordinate_planes(
    vertices: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Split polygon vertices (N, K, 2) into x and y planes, each (K, N).

    Kernels over polygons reduce over the vertex axis; numpy does that fast
    over a leading contiguous axis and slowly over a short trailing one.

    Examples
    --------
    >>> import numpy as np
    >>> x, y = coordinate_planes(np.array([[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]]))
    >>> x.tolist(), y.tolist()
    ([[0.0], [2.0], [4.0]], [[1.0], [3.0], [5.0]])
    """
    planes = np.ascontiguousarray(vertices.transpose(2, 1, 0))
    return planes[0], planes[1]


def plane_scale(*planes: NDArray[np.float64]) -> NDArray[np.float64]:
    """Largest absolute coordinate per pair over (K, N) planes, shape (N,).

    Examples
    --------
    >>> import numpy as np
    >>> plane_scale(np.array([[1.0, -4.0], [2.0, 0.5]]), np.array([[0.0, 0.0], [-3.0, 0.0]])).tolist()
    [3.0, 4.0]
    """
    scale: NDArray[np.float64] = np.max([np.abs(p).max(axis=0) for p in planes], axis=0)
    return scale


def finish(
    signed: NDArray[np.float64], normal: NDArray[np.float64], scale: NDArray[np.float64]
) -> ContactArrays:
    """Apply the touching rule to signed depths and package the result.

    Parameters
    ----------
    signed : ndarray, shape (N,)
        Signed depth: positive when penetrating, minus the gap (or a lower
        bound of it) when apart.
    normal : ndarray, shape (N, D)
    scale : ndarray, shape (N,)
        Coordinate magnitude of each pair, for :func:`touch_tolerance`.

    Returns
    -------
    ContactArrays
        ``hit`` where ``signed >= -touch_tolerance(scale)``; ``depth`` is
        ``signed`` clamped to ``>= 0`` where hit, else ``signed``.

    Examples
    --------
    A pair 1e-16 apart at scale 1 is touching (depth 0); 1e-3 apart is not.

    >>> import numpy as np
    >>> c = finish(np.array([0.5, -1e-16, -1e-3]), np.array([[1.0, 0.0]] * 3), np.ones(3))
    >>> c.hit.tolist(), c.depth.tolist()
    ([True, True, False], [0.5, 0.0, -0.001])
    """
    hit = signed >= -touch_tolerance(scale)
    # Touching within tolerance may come out slightly negative; a hit never
    # reports a negative depth.
    depth = np.where(hit, np.maximum(signed, 0.0), signed)
    # Adding 0.0 turns -0.0 into 0.0: equal contacts then print and hash alike.
    return ContactArrays(hit, normal + 0.0, depth)


def finish_halfspace(normal: NDArray[np.float64], offset: NDArray[np.float64],
            lowest: NDArray[np.float64], scale: NDArray[np.float64]) -> ContactArrays:
    """Half-space contacts from the lowest point of b along the half-space normal.

    Parameters
    ----------
    normal : ndarray, shape (N, D)
        Unit outward normals of the half-spaces (copied into the result).
    offset : ndarray, shape (N,)
        The solid is ``normal . p <= offset``.
    lowest : ndarray, shape (N,)
        ``min normal . p`` over shape b.
    scale : ndarray, shape (N,)
        Coordinate magnitude of each pair, for :func:`touch_tolerance`.

    Returns
    -------
    ContactArrays
        ``depth = offset - lowest``, clamped to ``>= 0`` where hit.

    Examples
    --------
    >>> import numpy as np
    >>> c = finish_halfspace(np.array([[0.0, 1.0]] * 2), np.zeros(2), np.array([-0.5, 2.0]), np.ones(2))
    >>> c.hit.tolist(), c.depth.tolist()
    ([True, False], [0.5, -2.0])
    """
    signed = offset - lowest
    hit = signed >= -touch_tolerance(scale)
    depth = np.where(hit, np.maximum(signed, 0.0), signed)
    return ContactArrays(hit, np.array(normal, dtype=np.float64, copy=True), depth)


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
    # Per component rather than einsum: a batch of 2x2 products is several
    # times faster as (N, 4) elementwise arithmetic.
    lx = _CORNER_SIGNS[None, :, 0] * h[:, 0, None]
    ly = _CORNER_SIGNS[None, :, 1] * h[:, 1, None]
    x = c[:, 0, None] + r[:, 0, 0, None] * lx + r[:, 0, 1, None] * ly
    y = c[:, 1, None] + r[:, 1, 0, None] * lx + r[:, 1, 1, None] * ly
    return np.stack([x, y], axis=-1)


def box_planes_2d(
    center: NDArray[np.float64], rotation: NDArray[np.float64], half: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """:func:`box_vertices_2d` as x and y planes, each (4, N), with the same arithmetic.

    Parameters
    ----------
    center : ndarray, shape (N, 2)
    rotation : ndarray, shape (N, 2, 2)
        Proper rotations (determinant +1).
    half : ndarray, shape (N, 2)
        Half extents.

    Returns
    -------
    x, y : ndarray, shape (4, N)
        Corner coordinates, vertex-major: column n holds box n's corners in
        the counter-clockwise order of :func:`box_vertices_2d`.

    Examples
    --------
    A box at (1, 0) with half extents (1, 0.5) spans 0..2 by -0.5..0.5.

    >>> import numpy as np
    >>> x, y = box_planes_2d(np.array([[1.0, 0.0]]), np.array([[[1.0, 0.0], [0.0, 1.0]]]), np.array([[1.0, 0.5]]))
    >>> x[:, 0].tolist(), y[:, 0].tolist()
    ([0.0, 2.0, 2.0, 0.0], [-0.5, -0.5, 0.5, 0.5])
    """
    lx = _CORNER_SIGNS[:, 0, None] * half[:, 0]
    ly = _CORNER_SIGNS[:, 1, None] * half[:, 1]
    x = center[:, 0] + rotation[:, 0, 0] * lx + rotation[:, 0, 1] * ly
    y = center[:, 1] + rotation[:, 1, 0] * lx + rotation[:, 1, 1] * ly
    return x, y


def next_minus(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``roll(x, -1, axis=0) - x``: each vertex's edge vector, for (K, N) planes.

    Examples
    --------
    >>> import numpy as np
    >>> next_minus(np.array([[0.0], [2.0], [3.0]])).ravel().tolist()
    [2.0, 1.0, -3.0]
    """
    out = np.empty_like(x)
    np.subtract(x[1:], x[:-1], out=out[:-1])
    np.subtract(x[0], x[-1], out=out[-1])
    return out


def edge_normals(
    x: NDArray[np.float64], y: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """Unit outward normals of counter-clockwise polygons given as (K, N) planes.

    Edge k runs from vertex k to vertex k + 1 (cyclically). A zero-length
    edge (padding, or a repeated vertex) has no direction: its entry is
    ``(0, 0)`` and ``valid`` is False there. Any nonzero edge,
    however short, is kept: a badly rounded normal is still a direction,
    and every direction gives an upper bound of the depth, never a wrong one.

    Returns
    -------
    nx, ny : ndarray, shape (K, N)
    valid : ndarray of bool, shape (K, N)

    Examples
    --------
    The unit square, counter-clockwise from the origin: bottom, right, top
    and left edges face down, right, up and left.

    >>> import numpy as np
    >>> nx, ny, valid = edge_normals(np.array([[0.0], [1.0], [1.0], [0.0]]), np.array([[0.0], [0.0], [1.0], [1.0]]))
    >>> (nx.ravel() + 0.0).tolist(), (ny.ravel() + 0.0).tolist(), bool(valid.all())
    ([0.0, 1.0, 0.0, -1.0], [-1.0, 0.0, 1.0, 0.0], True)
    """
    ex = next_minus(x)
    ey = next_minus(y)
    len2 = ex * ex
    len2 += ey * ey
    tiny = len2 < SQUARES_UNDERFLOW
    if tiny.any():
        # squares underflowed (edges under ~1e-154, a scene scaled down that
        # far): those edges scaled up by a power of two, exactly; the normal
        # is the same direction
        ex[tiny] *= SQUARES_RESCALE
        ey[tiny] *= SQUARES_RESCALE
        len2 = ex * ex
        len2 += ey * ey
    valid = len2 > 0
    # zero-length edges divide 0 by 1: a (0, 0) "normal" no caller selects
    # (their gaps are infinite); adding the bool leaves valid lengths exact
    length = np.sqrt(len2 + ~valid)
    ny = ex / length
    np.negative(ny, out=ny)
    return ey / length, ny, valid


def gaps(
    x: NDArray[np.float64], y: NDArray[np.float64], ox: NDArray[np.float64], oy: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """How far polygon o must move along each outward edge normal n of polygon p to clear it.

    ``gap = max_p p.n - min_o o.n``; the support of p along its own edge
    normal is that edge's first vertex, so only o needs a full projection.
    Zero-length edges get an infinite gap.

    Parameters
    ----------
    x, y : ndarray, shape (Kp, N)
        Polygon p.
    ox, oy : ndarray, shape (Ko, N)
        Polygon o.

    Returns
    -------
    gap, nx, ny : ndarray, shape (Kp, N)

    Examples
    --------
    The unit square p against the same square shifted 0.25 right: along p's
    right edge normal o must move 0.75 to clear it, along the left edge
    normal 1.25.

    >>> import numpy as np
    >>> x, y = np.array([[0.0], [1.0], [1.0], [0.0]]), np.array([[0.0], [0.0], [1.0], [1.0]])
    >>> gap, nx, ny = gaps(x, y, x + 0.25, y)
    >>> gap.ravel().tolist()
    [1.0, 0.75, 1.0, 1.25]
    """
    nx, ny, valid = edge_normals(x, y)
    # One of o's vertices at a time (a loop over K, not over pairs): the
    # (Kp, Ko, N) broadcast would be several times slower, out of cache.
    # Scratch buffers are reused so each step is two products, a sum and a
    # minimum over warm memory.
    lowest = nx * ox[0]
    lowest += ny * oy[0]
    t1 = np.empty_like(lowest)
    t2 = np.empty_like(lowest)
    for j in range(1, ox.shape[0]):
        np.multiply(nx, ox[j], out=t1)
        np.multiply(ny, oy[j], out=t2)
        t1 += t2
        np.minimum(lowest, t1, out=lowest)
    np.multiply(x, nx, out=t1)
    np.multiply(y, ny, out=t2)
    t1 += t2
    t1 -= lowest
    t1[~valid] = np.inf
    return t1, nx, ny


def first_argmin(values: NDArray[np.float64]) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """Row of the first minimum of each column of a (K, N) array, and that minimum.

    numpy's ``argmin`` over a short leading axis costs several times a
    plain ``min`` over it; K comparisons against the minimum are cheaper.

    Examples
    --------
    >>> import numpy as np
    >>> k, low = first_argmin(np.array([[3.0, 1.0], [1.0, 2.0], [1.0, 1.0]]))
    >>> k.tolist(), low.tolist()
    ([1, 0], [1.0, 1.0])
    """
    low = values.min(axis=0)
    k = np.full(values.shape[1], values.shape[0] - 1, dtype=np.intp)
    for r in range(values.shape[0] - 2, -1, -1):
        k[values[r] == low] = r
    return k, low
