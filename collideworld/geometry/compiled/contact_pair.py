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

from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from .contact_slots import contact_rows
from .kernel_support import touch_rule

__all__ = ["contact_pair", "contact_many"]

Floats = NDArray[np.float64]

#: the touching rule, read once at the first call (a Python value handed to the kernel, never a numba global)
_RULE: tuple[float, float] | None = None


@njit(cache=True)
def _columns(rows: int, dim: int) -> tuple[Any, ...]:
    return (np.empty(rows, dtype=np.int8), np.empty(rows, dtype=np.bool_), np.empty((rows, dim)),
            np.empty((rows, dim, dim)), np.empty(rows), np.empty((rows, dim)), np.empty((rows, dim)), np.empty(rows),
            np.empty(rows), np.empty((8, rows)), np.empty((8, rows)), np.empty(rows, dtype=np.int64),
            np.empty(rows, dtype=np.int64))


@njit(cache=True)
def _contact_pair(dim: int, ka: int, na: int, params_a: Floats, lx_a: Floats, ly_a: Floats, pose_a: Floats,
                  kb: int, nb: int, params_b: Floats, lx_b: Floats, ly_b: Floats, pose_b: Floats,
                  rule: tuple[float, float]) -> tuple[bool, float, float, float, float]:
    kinds_t = np.array([ka, kb])
    n_t = np.array([na, nb])
    params = np.empty((2, 9))
    lx = np.empty((2, 8))
    ly = np.empty((2, 8))
    poses = np.empty((2, 7))
    for k in range(9):
        params[0, k] = params_a[k]
        params[1, k] = params_b[k]
    for k in range(8):
        lx[0, k] = lx_a[k]
        lx[1, k] = lx_b[k]
        ly[0, k] = ly_a[k]
        ly[1, k] = ly_b[k]
    for k in range(7):
        poses[0, k] = pose_a[k]
        poses[1, k] = pose_b[k]
    hit = np.empty(1, dtype=np.bool_)
    normal = np.empty((1, dim))
    depth = np.empty(1)
    _contact_many(dim, kinds_t, n_t, params, lx, ly, np.arange(2), poses, rule, hit, normal, depth)
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


@njit(cache=True)
def _contact_many(dim: int, kinds_t: NDArray[np.int64], n_t: NDArray[np.int64], params_t: Floats, lx_t: Floats,
                  ly_t: Floats, which: NDArray[np.int64], poses: Floats, rule: tuple[float, float],
                  hit: NDArray[np.bool_], normal: Floats, depth: Floats) -> None:
    rows = which.shape[0]
    n = rows // 2
    (kinds, simple, position, rotation, radius, half, plane_normal, plane_offset, bound_radius, world_x, world_y,
     poly, simple_n) = _columns(rows, dim)
    # one row per body: table shape which[row] at pose poses[row] (written out here: a call per
    # row would pay the reference counts of some twenty arrays, 5x the work itself)
    for row in range(rows):
        w = which[row]
        n_verts = n_t[w]
        kinds[row] = kinds_t[w]
        simple[row] = n_verts > 0
        radius[row] = params_t[w, 0]
        plane_offset[row] = params_t[w, 7]
        bound_radius[row] = params_t[w, 8]
        poly[row] = row
        simple_n[row] = n_verts
        for k in range(dim):
            position[row, k] = poses[row, k]
            half[row, k] = params_t[w, 1 + k]
            plane_normal[row, k] = params_t[w, 4 + k]
        if dim == 2:
            c, s = poses[row, 3], poses[row, 4]
            rotation[row, 0, 0] = c
            rotation[row, 0, 1] = -s
            rotation[row, 1, 0] = s
            rotation[row, 1, 1] = c
            if n_verts > 0:
                # R @ local + t, as BodyStore's posing of simple polygons
                for v in range(world_x.shape[0]):
                    world_x[v, row] = c * lx_t[w, v] + -s * ly_t[w, v] + poses[row, 0]
                    world_y[v, row] = s * lx_t[w, v] + c * ly_t[w, v] + poses[row, 1]
        else:
            # rotation_matrix_3d's entries, operation for operation
            qw, x, y, z = poses[row, 3], poses[row, 4], poses[row, 5], poses[row, 6]
            rotation[row, 0, 0] = 1 - 2 * (y * y + z * z)
            rotation[row, 0, 1] = 2 * (x * y - qw * z)
            rotation[row, 0, 2] = 2 * (x * z + qw * y)
            rotation[row, 1, 0] = 2 * (x * y + qw * z)
            rotation[row, 1, 1] = 1 - 2 * (x * x + z * z)
            rotation[row, 1, 2] = 2 * (y * z - qw * x)
            rotation[row, 2, 0] = 2 * (x * z - qw * y)
            rotation[row, 2, 1] = 2 * (y * z + qw * x)
            rotation[row, 2, 2] = 1 - 2 * (x * x + y * y)
    ia = np.arange(n)
    ib = np.arange(n, rows)
    other = np.zeros(n, dtype=np.bool_)
    # The vertex planes as strided views and reject as np.bool_: the World's step passes
    # them so (numba types a constant True as a literal), and one compiled contact loop
    # then serves both (a second is seconds more of first-use compile)
    reject: Any = np.bool_(True)
    contact_rows(ia, ib, kinds, simple, position, rotation, radius, half, plane_normal, plane_offset, bound_radius,
                  world_x[:, :rows], world_y[:, :rows], poly, simple_n, reject, rule, hit, normal, depth, other)


def contact_many(dim: int, kinds: NDArray[np.int64], n_verts: NDArray[np.int64], params: Floats, lx: Floats,
                 ly: Floats, which: NDArray[np.int64], poses: Floats) -> tuple[NDArray[np.bool_], Floats, Floats]:
    """Contacts of ``N`` pairs of posed shapes: row ``k`` against row ``N + k``, shapes from a table.

    Parameters
    ----------
    dim : {2, 3}
    kinds, n_verts : ndarray of int64, shape (S,)
        Per distinct shape: kind (0 to 3) and a simple polygon's vertex count.
    params : ndarray, shape (S, 9)
    lx, ly : ndarray, shape (S, 8)
        As in :func:`contact_pair`, one row per distinct shape.
    which : ndarray of int64, shape (2 N,)
        The shape (table row) of each body: the N a's, then the N b's.
    poses : ndarray, shape (2 N, 7)
        As in :func:`contact_pair`, one row per body.

    Returns
    -------
    hit : ndarray of bool, shape (N,)
    normal : ndarray, shape (N, D)
        From a towards b.
    depth : ndarray, shape (N,)

    Examples
    --------
    A unit disc against discs at distances 1.5 and 3:

    >>> import numpy as np
    >>> params = np.array([[1.0, 0, 0, 0, 0, 0, 0, 0, 1.0]])
    >>> poses = np.zeros((4, 7))
    >>> poses[:, 3] = 1.0
    >>> poses[2:, 0] = [1.5, 3.0]
    >>> hit, normal, depth = contact_many(2, np.array([1]), np.array([0]), params, np.zeros((1, 8)),
    ...                                   np.zeros((1, 8)), np.zeros(4, dtype=np.int64), poses)
    >>> hit.tolist(), depth[0].item()
    ([True, False], 0.5)
    """
    global _RULE
    if _RULE is None:
        _RULE = touch_rule()
    n = len(which) // 2
    hit = np.empty(n, dtype=np.bool_)
    normal = np.empty((n, dim))
    depth = np.empty(n)
    _contact_many(dim, kinds, n_verts, params, lx, ly, which, poses, _RULE, hit, normal, depth)
    return hit, normal, depth
