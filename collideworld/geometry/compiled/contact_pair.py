"""One pair of posed shapes in one compiled call: the fast path of ``collide()``.

``collide()`` used to fill a two-body store and run the narrowphase on it,
about a hundred array calls for one answer. Here the two bodies' columns are
built inside the compiled call, from a few numbers per shape and per pose,
and handed to the loop of :mod:`.contact_slots` (the same bounding-ball
reject, canonical order, row routines and normal flip as a world's step), so
a pair gives the same bits here as in a :class:`~collideworld.world.World`.

Per shape, ``params`` holds ``[radius, hx, hy, hz, nx, ny, nz, offset,
bounding radius]`` and a simple polygon's local vertices (padded by the last
one to 8); per pose, ``[x, y, z, cos, sin]`` in 2D (cosine and sine as numpy
rounds them) or ``[x, y, z, w, qx, qy, qz]`` in 3D (a unit quaternion).
Kinds this loop does not take (capsules, hulls, non-simple polygons) stay
with the store path.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from .contact_slots import _contact_rows
from .kernel_support import touch_rule

__all__ = ["contact_pair"]

Floats = NDArray[np.float64]

#: the touching rule, read once at the first call (a Python value handed to the kernel, never a numba global)
_RULE: tuple[float, float] | None = None


@njit(cache=True)
def _fill(row: int, kind: int, n_verts: int, params: Floats, lx: Floats, ly: Floats, pose: Floats, dim: int,
          kinds: NDArray[np.int8], simple: NDArray[np.bool_], position: Floats, rotation: Floats, radius: Floats,
          half: Floats, plane_normal: Floats, plane_offset: Floats, bound_radius: Floats, world_x: Floats,
          world_y: Floats, poly: NDArray[np.int64], simple_n: NDArray[np.int64]) -> None:
    kinds[row] = kind
    simple[row] = n_verts > 0
    radius[row] = params[0]
    plane_offset[row] = params[7]
    bound_radius[row] = params[8]
    poly[row] = row
    simple_n[row] = n_verts
    for k in range(dim):
        position[row, k] = pose[k]
        half[row, k] = params[1 + k]
        plane_normal[row, k] = params[4 + k]
    if dim == 2:
        c, s = pose[3], pose[4]
        rotation[row, 0, 0] = c
        rotation[row, 0, 1] = -s
        rotation[row, 1, 0] = s
        rotation[row, 1, 1] = c
        if n_verts > 0:
            # R @ local + t, as BodyStore's posing of simple polygons
            for v in range(world_x.shape[0]):
                world_x[v, row] = c * lx[v] + -s * ly[v] + pose[0]
                world_y[v, row] = s * lx[v] + c * ly[v] + pose[1]
    else:
        # rotation_matrix_3d's entries, operation for operation
        w, x, y, z = pose[3], pose[4], pose[5], pose[6]
        rotation[row, 0, 0] = 1 - 2 * (y * y + z * z)
        rotation[row, 0, 1] = 2 * (x * y - w * z)
        rotation[row, 0, 2] = 2 * (x * z + w * y)
        rotation[row, 1, 0] = 2 * (x * y + w * z)
        rotation[row, 1, 1] = 1 - 2 * (x * x + z * z)
        rotation[row, 1, 2] = 2 * (y * z - w * x)
        rotation[row, 2, 0] = 2 * (x * z - w * y)
        rotation[row, 2, 1] = 2 * (y * z + w * x)
        rotation[row, 2, 2] = 1 - 2 * (x * x + y * y)


@njit(cache=True)
def _contact_pair(dim: int, ka: int, na: int, params_a: Floats, lx_a: Floats, ly_a: Floats, pose_a: Floats,
                  kb: int, nb: int, params_b: Floats, lx_b: Floats, ly_b: Floats, pose_b: Floats,
                  rule: tuple[float, float]) -> tuple[bool, float, float, float, float]:
    kinds = np.empty(2, dtype=np.int8)
    simple = np.empty(2, dtype=np.bool_)
    position = np.empty((2, dim))
    rotation = np.empty((2, dim, dim))
    radius = np.empty(2)
    half = np.empty((2, dim))
    plane_normal = np.empty((2, dim))
    plane_offset = np.empty(2)
    bound_radius = np.empty(2)
    world_x = np.empty((8, 2))
    world_y = np.empty((8, 2))
    poly = np.empty(2, dtype=np.int64)
    simple_n = np.empty(2, dtype=np.int64)
    _fill(0, ka, na, params_a, lx_a, ly_a, pose_a, dim, kinds, simple, position, rotation, radius, half,
          plane_normal, plane_offset, bound_radius, world_x, world_y, poly, simple_n)
    _fill(1, kb, nb, params_b, lx_b, ly_b, pose_b, dim, kinds, simple, position, rotation, radius, half,
          plane_normal, plane_offset, bound_radius, world_x, world_y, poly, simple_n)
    ia = np.zeros(1, dtype=np.int64)
    ib = np.ones(1, dtype=np.int64)
    hit = np.empty(1, dtype=np.bool_)
    normal = np.empty((1, dim))
    depth = np.empty(1)
    other = np.zeros(1, dtype=np.bool_)
    _contact_rows(ia, ib, kinds, simple, position, rotation, radius, half, plane_normal, plane_offset, bound_radius,
                  world_x, world_y, poly, simple_n, True, rule, hit, normal, depth, other)
    return hit[0], normal[0, 0], normal[0, 1], normal[0, dim - 1], depth[0]


def contact_pair(dim: int, ka: int, na: int, params_a: Floats, lx_a: Floats, ly_a: Floats, pose_a: Floats,
                 kb: int, nb: int, params_b: Floats, lx_b: Floats, ly_b: Floats,
                 pose_b: Floats) -> tuple[bool, float, float, float, float]:
    """Contact of two posed shapes of kinds 0 to 3 (half-space, ball, box, simple polygon).

    Parameters
    ----------
    dim : {2, 3}
    ka, kb : int
        Kinds (:class:`collideworld.bodies.Kind` codes 0 to 3).
    na, nb : int
        A simple polygon's vertex count (0 for other kinds).
    params_a, params_b : ndarray, shape (9,)
        ``[radius, hx, hy, hz, nx, ny, nz, offset, bounding radius]``.
    lx_a, ly_a, lx_b, ly_b : ndarray, shape (8,)
        A polygon's local vertices, padded by the last one (any values otherwise).
    pose_a, pose_b : ndarray, shape (7,)
        ``[x, y, z, cos, sin, 0, 0]`` in 2D, ``[x, y, z, w, qx, qy, qz]`` in 3D.

    Returns
    -------
    hit : bool
    nx, ny, nz : float
        The normal from a towards b (``nz`` repeats ``ny`` in 2D).
    depth : float

    Examples
    --------
    Two unit discs whose centres are 1.5 apart overlap by 0.5:

    >>> import numpy as np
    >>> disc = np.array([1.0, 0, 0, 0, 0, 0, 0, 0, 1.0])
    >>> v = np.zeros(8)
    >>> contact_pair(2, 1, 0, disc, v, v, np.array([0.0, 0, 0, 1, 0, 0, 0]),
    ...              1, 0, disc, v, v, np.array([1.5, 0, 0, 1, 0, 0, 0]))
    (True, 1.0, 0.0, 0.0, 0.5)
    """
    global _RULE
    if _RULE is None:
        _RULE = touch_rule()
    hit, nx, ny, nz, depth = _contact_pair(dim, ka, na, params_a, lx_a, ly_a, pose_a, kb, nb, params_b, lx_b, ly_b,
                                           pose_b, _RULE)
    return bool(hit), nx, ny, nz, depth
