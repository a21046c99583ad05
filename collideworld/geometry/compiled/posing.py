"""Compiled twin of :meth:`collideworld.bodies.BodyStore.set_poses`: poses written into per-body columns.

The numpy path writes positions with fancy indexing, builds rotation matrices
(:func:`collideworld.geometry.rotation.rotation_matrix_2d`, ``_3d``) and
poses the vertices of simple polygons, about twenty array calls with a
temporary each. These loops do the same per body, reading and writing the
columns by row, with the same arithmetic in the same order. The
transcendental and reduction steps whose rounding belongs to numpy
(``cos``/``sin`` of the angles, the quaternions' norms) stay numpy calls made
by the caller, so both backends store the same bits.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

__all__ = ["set_poses_2d", "set_poses_3d"]


def _rows_of(x: NDArray[np.float64], shape: tuple[int, ...]) -> NDArray[np.float64]:
    """``x`` broadcast to ``shape`` (as the numpy path's fancy assignment broadcasts), C-ordered and writeable.

    One memory layout and one writeable flag: one compiled specialisation,
    which :func:`collideworld.warm_up` compiles ahead of time.
    """
    arr = np.asarray(x, dtype=np.float64)
    if arr.shape != shape:
        arr = np.broadcast_to(arr, shape)
    return np.require(arr, np.float64, ["C", "W"])


@njit(cache=True)
def _poses_2d(slots: NDArray[np.int64], new_position: NDArray[np.float64], has_position: bool,
              new_angle: NDArray[np.float64], cos: NDArray[np.float64], sin: NDArray[np.float64], has_angle: bool,
              position: NDArray[np.float64], angle: NDArray[np.float64], rotation: NDArray[np.float64],
              simple: NDArray[np.bool_], poly: NDArray[np.int64], simple_x: NDArray[np.float64],
              simple_y: NDArray[np.float64], world_xy: NDArray[np.float64]) -> None:
    for r in range(slots.shape[0]):
        s = slots[r]
        if has_position:
            position[s, 0] = new_position[r, 0]
            position[s, 1] = new_position[r, 1]
        if has_angle:
            angle[s] = new_angle[r]
            rotation[s, 0, 0] = cos[r]
            rotation[s, 0, 1] = -sin[r]
            rotation[s, 1, 0] = sin[r]
            rotation[s, 1, 1] = cos[r]
        if simple[s]:
            # R @ local + t, as BodyStore.pose_simple: (r00 lx + r01 ly) + tx
            r00, r01, r10, r11 = rotation[s, 0, 0], rotation[s, 0, 1], rotation[s, 1, 0], rotation[s, 1, 1]
            tx, ty = position[s, 0], position[s, 1]
            p = poly[s]
            for k in range(world_xy.shape[1]):
                lx, ly = simple_x[k, p], simple_y[k, p]
                world_xy[s, k, 0] = r00 * lx + r01 * ly + tx
                world_xy[s, k, 1] = r10 * lx + r11 * ly + ty


def set_poses_2d(slots: NDArray[np.int64], new_position: NDArray[np.float64] | None,
                 new_angle: NDArray[np.float64] | None, position: NDArray[np.float64], angle: NDArray[np.float64],
                 rotation: NDArray[np.float64], simple: NDArray[np.bool_], poly: NDArray[np.int64],
                 simple_x: NDArray[np.float64], simple_y: NDArray[np.float64], world_xy: NDArray[np.float64]) -> None:
    """Write 2D poses of bodies ``slots`` into the store's columns, in place.

    Parameters
    ----------
    slots : ndarray of int64, shape (m,)
        Distinct rows.
    new_position : ndarray, shape (m, 2), or None
        None keeps the positions.
    new_angle : ndarray, shape (m,), or None
        Radians; None keeps the angles and rotations.
    position, angle, rotation, simple, poly, world_xy
        The store's columns (see :class:`collideworld.bodies.BodyStore`; its ``world_x``
        and ``world_y`` are views of ``world_xy``).
    simple_x, simple_y : ndarray, shape (K, P)
        Local vertices of simple polygons by shape index (the part table's).

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Polygon
    >>> from collideworld.bodies import BodyStore
    >>> st = BodyStore(2)
    >>> s = st.allocate(1)
    >>> st.set_shapes(s, [Polygon([(0, 0), (1, 0), (0, 1)])])
    >>> set_poses_2d(s, np.array([[5.0, 0.0]]), np.array([np.pi]), st.position, st.angle, st.rotation,
    ...              st.simple, st.poly, st.parts.simple_x, st.parts.simple_y, st.world_xy)
    >>> np.round(st.world_x[:3, 0], 12).tolist(), np.round(st.world_y[:3, 0], 12).tolist()
    ([5.0, 4.0, 5.0], [0.0, 0.0, -1.0])
    """
    m = len(slots)
    no = np.zeros(0)
    # broadcast as the numpy path's fancy assignment would (one pose for many slots)
    pos = no.reshape(0, 2) if new_position is None else _rows_of(new_position, (m, 2))
    ang = no if new_angle is None else _rows_of(new_angle, (m,))
    # cos and sin as numpy rounds them (rotation_matrix_2d), not as the compiled libm does
    cos, sin = (no, no) if new_angle is None else (np.cos(ang), np.sin(ang))
    _poses_2d(np.require(slots, np.int64, ["C", "W"]), pos, new_position is not None, ang, cos, sin,
              new_angle is not None, position, angle, rotation, simple, poly, simple_x, simple_y, world_xy)


@njit(cache=True)
def _poses_3d(slots: NDArray[np.int64], new_position: NDArray[np.float64], has_position: bool,
              new_quaternion: NDArray[np.float64], unit: NDArray[np.float64], has_quaternion: bool,
              position: NDArray[np.float64], quaternion: NDArray[np.float64], rotation: NDArray[np.float64]) -> None:
    for r in range(slots.shape[0]):
        s = slots[r]
        if has_position:
            for d in range(3):
                position[s, d] = new_position[r, d]
        if has_quaternion:
            for d in range(4):
                quaternion[s, d] = new_quaternion[r, d]
            # rotation_matrix_3d's entries, operation for operation
            w, x, y, z = unit[r, 0], unit[r, 1], unit[r, 2], unit[r, 3]
            rotation[s, 0, 0] = 1 - 2 * (y * y + z * z)
            rotation[s, 0, 1] = 2 * (x * y - w * z)
            rotation[s, 0, 2] = 2 * (x * z + w * y)
            rotation[s, 1, 0] = 2 * (x * y + w * z)
            rotation[s, 1, 1] = 1 - 2 * (x * x + z * z)
            rotation[s, 1, 2] = 2 * (y * z - w * x)
            rotation[s, 2, 0] = 2 * (x * z - w * y)
            rotation[s, 2, 1] = 2 * (y * z + w * x)
            rotation[s, 2, 2] = 1 - 2 * (x * x + y * y)


def set_poses_3d(slots: NDArray[np.int64], new_position: NDArray[np.float64] | None,
                 new_quaternion: NDArray[np.float64] | None, position: NDArray[np.float64],
                 quaternion: NDArray[np.float64], rotation: NDArray[np.float64]) -> None:
    """Write 3D poses of bodies ``slots`` into the store's columns, in place.

    Parameters
    ----------
    slots : ndarray of int64, shape (m,)
        Distinct rows.
    new_position : ndarray, shape (m, 3), or None
    new_quaternion : ndarray, shape (m, 4), or None
        ``[w, x, y, z]``, stored as given; the rotation is that of the
        normalised quaternion, as :func:`collideworld.geometry.rotation.rotation_matrix_3d` builds it.
    position, quaternion, rotation
        The store's columns.

    Examples
    --------
    >>> import numpy as np
    >>> pos, quat, rot = np.zeros((2, 3)), np.zeros((2, 4)), np.zeros((2, 3, 3))
    >>> set_poses_3d(np.array([1]), np.array([[1.0, 2.0, 3.0]]), np.array([[0.0, 0.0, 0.0, 2.0]]), pos, quat, rot)
    >>> pos[1].tolist(), rot[1].tolist()      # a half turn about z
    ([1.0, 2.0, 3.0], [[-1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]])
    """
    m = len(slots)
    no = np.zeros((0, 4))
    pos = np.zeros((0, 3)) if new_position is None else _rows_of(new_position, (m, 3))
    quat = no if new_quaternion is None else _rows_of(new_quaternion, (m, 4))
    # normalised by numpy, as rotation_matrix_3d does (the norm's summation order is numpy's)
    unit = no if new_quaternion is None else quat / np.linalg.norm(quat, axis=-1, keepdims=True)
    _poses_3d(np.require(slots, np.int64, ["C", "W"]), pos, new_position is not None,
              quat, unit, new_quaternion is not None, position, quaternion, rotation)
