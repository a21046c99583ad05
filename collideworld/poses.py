"""Validation of poses at the boundary (World methods, collide(), scenario reader).

Each function returns clean float64 arrays or raises
:class:`~collideworld.errors.InvalidPoseError` saying what was given and what
was expected. Kernels never validate; everything entering them passed here.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .errors import InvalidPoseError
from .geometry.tolerance import MAX_COORDINATE

__all__ = [
    "QUATERNION_NORM_TOL",
    "check_position",
    "plain_position",
    "check_angle",
    "check_quaternion",
    "check_positions",
    "check_angles",
    "check_quaternions",
    "collide_pose",
    "plain_float_pose",
    "plain_unit_quaternion",
]

#: A quaternion whose norm differs from 1 by more than this is rejected
#: (the scenario format's rule); within it, it is normalised.
QUATERNION_NORM_TOL = 1e-6

_M = MAX_COORDINATE


def _float_array(value: Any, what: str) -> NDArray[np.float64]:
    if isinstance(value, (str, bytes)):
        raise InvalidPoseError(f"{what} must be numeric, got {value!r}")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        # ragged nested lists and the like
        raise InvalidPoseError(f"{what} must be a rectangular array of real numbers, got {value!r}") from None
    if raw.dtype.kind not in "iuf":
        # bools, complex numbers (numpy would drop the imaginary part), strings, objects
        raise InvalidPoseError(f"{what} must be real numbers, got {raw.dtype} values: {value!r}")
    arr: NDArray[np.float64] = raw.astype(np.float64, copy=False)
    return arr


def _require_finite(arr: NDArray[np.float64], what: str, given: Any) -> None:
    if not np.all(np.isfinite(arr)):
        bad = np.argwhere(~np.isfinite(arr))[0]
        where = f" (first at index {tuple(int(i) for i in bad)})" if arr.ndim else ""
        raise InvalidPoseError(f"{what} must be finite, got {given!r}{where}" if arr.size <= 16
                               else f"{what} must be finite; found {float(arr[tuple(bad)])!r}{where}")


def _require_in_range(arr: NDArray[np.float64], what: str) -> None:
    if arr.size and float(np.abs(arr).max()) > MAX_COORDINATE:
        bad = np.argwhere(np.abs(arr) > MAX_COORDINATE)[0]
        where = f" at index {tuple(int(i) for i in bad)}" if arr.ndim else ""
        raise InvalidPoseError(f"{what} must be at most {MAX_COORDINATE:g} in magnitude, "
                               f"got {float(arr[tuple(bad)])!r}{where}")


def _norms(q: NDArray[np.float64]) -> NDArray[np.float64]:
    """Row norms of (n, 4) quaternions, summed in one fixed order for every caller.

    ``np.linalg.norm`` sums a single vector and the rows of a matrix in
    different orders, so one quaternion normalised alone and in a batch could
    differ in the last bit; every path here uses this function instead.
    """
    norm: NDArray[np.float64] = np.sqrt(q[:, 0] * q[:, 0] + q[:, 1] * q[:, 1] + q[:, 2] * q[:, 2] + q[:, 3] * q[:, 3])
    return norm


def _rotation_object(value: Any) -> Any:
    """``[w, x, y, z]`` from a rotation object with ``as_quat`` (scipy's ``Rotation``), else ``value``.

    scipy orders its quaternions ``[x, y, z, w]``; collideworld orders them
    ``[w, x, y, z]``. Taking the object itself, not its ``as_quat()``, avoids
    the silent mix-up of the two orders.
    """
    if isinstance(value, np.ndarray) or not hasattr(value, "as_quat"):
        return value
    xyzw = np.asarray(value.as_quat(), dtype=np.float64)
    return np.concatenate([xyzw[..., 3:], xyzw[..., :3]], axis=-1)


def check_position(value: Any, dim: int, what: str = "position") -> NDArray[np.float64]:
    """A single position of ``dim`` finite numbers, each at most ``MAX_COORDINATE`` in magnitude.

    Parameters
    ----------
    value : array_like, shape (dim,)
        Real numbers (not bools, strings or complex numbers).
    dim : int
        2 or 3.
    what : str
        Name of the argument, for the error message.

    Returns
    -------
    ndarray of float64, shape (dim,)
        A new array.

    Examples
    --------
    >>> check_position([3, 4], 2)
    array([3., 4.])
    >>> check_position([3, 4, 0], 2)
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidPoseError: position must have 2 components, got [3, 4, 0]
    """
    arr = _float_array(value, what)
    if arr.shape != (dim,):
        raise InvalidPoseError(f"{what} must have {dim} components, got {value!r}")
    _require_finite(arr, what, value)
    _require_in_range(arr, what)
    position: NDArray[np.float64] = arr.copy()
    return position


_PLAIN = (int, float)
#: numpy's float64 dtype (one object: ``is`` is cheaper than ``==``, and a byte-swapped float64 is not it)
_FLOAT64 = np.dtype(np.float64)
_NP_FLOAT64 = np.float64


def plain_position(value: Any, dim: int) -> tuple[float, ...] | None:
    """``dim`` Python floats when ``value`` is a clean position in a common form, else None.

    The fast path of the single queries: a tuple or list of ``dim`` ints or
    floats (numpy float64 scalars included), or a float64 array of shape ``(dim,)``, finite and within
    :data:`~collideworld.geometry.tolerance.MAX_COORDINATE`, is read without
    a numpy round trip. Anything else (including bad input) gives None, and
    the caller checks it with :func:`check_position`, which raises the usual
    errors; so this never accepts what :func:`check_position` refuses.

    Examples
    --------
    >>> plain_position((3, 4.5), 2)
    (3.0, 4.5)
    >>> plain_position((True, 4.5), 2) is None, plain_position((float("nan"), 0), 2) is None
    (True, True)
    """
    t = type(value)
    if t is tuple or t is list:
        if len(value) != dim:
            return None
        out = []
        for v in value:
            tv = type(v)
            if tv is _NP_FLOAT64:  # (what indexing a float array gives: a float subclass, its value exact)
                v, tv = float(v), float
            elif tv is not float and tv is not int:  # bools, other numpy scalars, strings: the careful path
                return None
            f = float(v) if tv is int and abs(v) <= MAX_COORDINATE else v
            if not -MAX_COORDINATE <= f <= MAX_COORDINATE:  # also refuses NaN
                return None
            out.append(f)
        return tuple(out)
    if t is np.ndarray and value.dtype is _FLOAT64:
        vals = value.tolist()  # (a list of floats only for shape (n,): cheaper to look at than .shape)
        if type(vals) is not list or len(vals) != dim or type(vals[0]) is not float:
            return None
        for f in vals:
            if not -MAX_COORDINATE <= f <= MAX_COORDINATE:
                return None
        return tuple(vals)
    return None


def check_angle(value: Any, what: str = "angle") -> float:
    """A single finite angle in radians.

    Parameters
    ----------
    value : int or float
        A real number; a bool is refused.
    what : str
        Name of the argument, for the error message.

    Returns
    -------
    float

    Examples
    --------
    >>> check_angle(1)
    1.0
    >>> check_angle(True)
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidPoseError: angle must be a real number (radians), got True
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidPoseError(f"{what} must be a real number (radians), got {value!r}")
    try:
        f = float(value)
    except OverflowError:  # an int beyond float range, e.g. 10**400
        raise InvalidPoseError(f"{what} must be finite, got an int of {len(str(abs(int(value))))} digits") from None
    if not np.isfinite(f):
        raise InvalidPoseError(f"{what} must be finite, got {value!r}")
    return f


def _check_rotation_matrices(m: NDArray[np.float64], what: str) -> NDArray[np.float64]:
    from .geometry.rotation import quaternion_from_matrix

    eye = np.eye(3)
    orth = np.abs(np.einsum("nji,njk->nik", m, m) - eye).max(axis=(1, 2))
    det = np.linalg.det(m)
    bad = (orth > QUATERNION_NORM_TOL) | (np.abs(det - 1.0) > QUATERNION_NORM_TOL)
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise InvalidPoseError(
            f"{what}: a 3x3 rotation matrix must be orthonormal with determinant +1, "
            f"got determinant {det[i]:.9g} and max |R^T R - I| = {orth[i]:.3g}"
            + (f" at index {i}" if len(m) > 1 else "")
        )
    return quaternion_from_matrix(m)


def check_quaternion(value: Any, what: str = "quaternion") -> NDArray[np.float64]:
    """A unit quaternion ``[w, x, y, z]`` (or a 3x3 rotation matrix), normalised.

    Parameters
    ----------
    value : array_like, shape (4,) or (3, 3)
        A quaternion whose norm is within ``QUATERNION_NORM_TOL`` of 1, or a
        proper rotation matrix (orthonormal, determinant +1, to the same
        tolerance).
    what : str
        Name of the argument, for the error message.

    Returns
    -------
    ndarray of float64, shape (4,)
        Unit length.

    Examples
    --------
    >>> check_quaternion(np.eye(3))
    array([1., 0., 0., 0.])
    >>> check_quaternion([0, 0, 0, 2])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidPoseError: quaternion must be a unit quaternion (...), got [0, 0, 0, 2] with norm 2
    """
    value = _rotation_object(value)
    arr = _float_array(value, what)
    _require_finite(arr, what, value)
    if arr.shape == (3, 3):
        matrix: NDArray[np.float64] = _check_rotation_matrices(arr[None], what)[0]
        return matrix
    if arr.shape != (4,):
        raise InvalidPoseError(f"{what} must be [w, x, y, z] (4 numbers) or a 3x3 rotation matrix, got {value!r}")
    norm = _norms(arr[None])
    if abs(norm[0] - 1.0) > QUATERNION_NORM_TOL:
        raise InvalidPoseError(f"{what} must be a unit quaternion (norm within {QUATERNION_NORM_TOL:g} of 1), "
                               f"got {value!r} with norm {norm[0]:.9g}")
    # the arithmetic of check_quaternions, so a batch of one stores the same bits
    unit: NDArray[np.float64] = (arr[None] / norm[:, None])[0]
    return unit


def check_positions(value: Any, n: int, dim: int, what: str = "positions") -> NDArray[np.float64]:
    """``n`` positions as an (n, dim) array (finite, at most ``MAX_COORDINATE`` in magnitude).

    Parameters
    ----------
    value : array_like, shape (n, dim)
    n : int
        Number of positions expected.
    dim : int
        2 or 3.
    what : str
        Name of the argument, for the error message.

    Returns
    -------
    ndarray of float64, shape (n, dim)
        A new array.

    Examples
    --------
    >>> check_positions([[0, 0], [3, 4]], 2, 2)
    array([[0., 0.],
           [3., 4.]])
    """
    arr = _float_array(value, what)
    if arr.shape != (n, dim):
        raise InvalidPoseError(f"{what} must have shape ({n}, {dim}), got shape {arr.shape}")
    _require_finite(arr, what, value)
    _require_in_range(arr, what)
    return np.array(arr, dtype=np.float64, copy=True)


def check_angles(value: Any, n: int, what: str = "angles") -> NDArray[np.float64]:
    """``n`` angles as an (n,) array (a scalar is broadcast).

    Parameters
    ----------
    value : float or array_like, shape (n,)
        Finite angles in radians.
    n : int
        Number of angles expected.
    what : str
        Name of the argument, for the error message.

    Returns
    -------
    ndarray of float64, shape (n,)
        A new array.

    Examples
    --------
    >>> check_angles(0.5, 3)
    array([0.5, 0.5, 0.5])
    """
    arr = _float_array(value, what)
    if arr.shape == ():
        arr = np.full(n, float(arr))
    if arr.shape != (n,):
        raise InvalidPoseError(f"{what} must have shape ({n},), got shape {arr.shape}")
    _require_finite(arr, what, value)
    return np.array(arr, dtype=np.float64, copy=True)


def check_quaternions(value: Any, n: int, what: str = "quaternions") -> NDArray[np.float64]:
    """``n`` unit quaternions (n, 4), or rotation matrices (n, 3, 3), normalised.

    Parameters
    ----------
    value : array_like, shape (n, 4) or (n, 3, 3)
        As for :func:`check_quaternion`, one per row.
    n : int
        Number of rotations expected.
    what : str
        Name of the argument, for the error message.

    Returns
    -------
    ndarray of float64, shape (n, 4)
        Unit quaternions ``[w, x, y, z]``.

    Examples
    --------
    A half turn about z, given as a matrix, is the quaternion
    ``[cos 90deg, 0, 0, sin 90deg]``:

    >>> check_quaternions([np.diag([-1.0, -1.0, 1.0])], 1)
    array([[0., 0., 0., 1.]])
    """
    value = _rotation_object(value)
    arr = _float_array(value, what)
    _require_finite(arr, what, value)
    if arr.shape == (n, 3, 3):
        return _check_rotation_matrices(arr, what)
    if arr.shape != (n, 4):
        raise InvalidPoseError(f"{what} must have shape ({n}, 4) or ({n}, 3, 3), got shape {arr.shape}")
    norm = _norms(arr)
    bad = np.abs(norm - 1.0) > QUATERNION_NORM_TOL
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise InvalidPoseError(f"{what}[{i}] must be a unit quaternion (norm within {QUATERNION_NORM_TOL:g} of 1), "
                               f"got {arr[i].tolist()!r} with norm {norm[i]:.9g}")
    unit: NDArray[np.float64] = arr / norm[:, None]
    return unit


PoseArrays = tuple[NDArray[np.float64] | None, NDArray[np.float64] | None, NDArray[np.float64] | None]


def check_pose_arrays(dim: int, n: int, positions: Any, angles: Any, quaternions: Any, *,
                      single: bool = False) -> PoseArrays:
    """Validated ``(positions (n, D), angles (n,), quaternions (n, 4))`` for ``n`` bodies; None where not given.

    The one pose check of the World: ``add`` and ``move`` pass one body's
    values with ``single=True`` (a position of D numbers, a scalar angle, one
    quaternion or rotation), ``add_many`` and ``move_many`` pass arrays. Both
    give arrays with a leading axis of ``n``, from the same arithmetic, so a
    batch of one stores the same bits as the single call.

    Parameters
    ----------
    dim : {2, 3}
        2D bodies take angles, 3D bodies quaternions (or rotation matrices, or
        rotation objects with ``as_quat`` such as scipy's ``Rotation``).
    n : int
        Number of bodies (1 when ``single``).
    positions, angles, quaternions : array_like or None

    Examples
    --------
    >>> pos, ang, quat = check_pose_arrays(2, 1, (1, 2), 0.5, None, single=True)
    >>> pos.tolist(), ang.tolist(), quat
    ([[1.0, 2.0]], [0.5], None)
    >>> check_pose_arrays(2, 1, None, None, (1, 0, 0, 0), single=True)
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidPoseError: a 2D body takes an angle, not a quaternion
    """
    if dim == 2 and quaternions is not None:
        raise InvalidPoseError("a 2D body takes an angle, not a quaternion" if single
                               else "2D bodies take angles, not quaternions")
    if dim == 3 and angles is not None:
        raise InvalidPoseError("a 3D body takes a quaternion, not an angle" if single
                               else "3D bodies take quaternions, not angles")
    if single:
        pos = None if positions is None else check_position(positions, dim)[None]
        ang = None if angles is None else np.array([check_angle(angles)])
        quat = None if quaternions is None else check_quaternion(quaternions)[None]
    else:
        pos = None if positions is None else check_positions(positions, n, dim)
        ang = None if angles is None else check_angles(angles, n)
        quat = None if quaternions is None else check_quaternions(quaternions, n)
    return pos, ang, quat


def collide_pose(shape: Any, pose: Any, which: str) -> tuple[NDArray[np.float64], NDArray[np.float64] | None,
                                                              NDArray[np.float64] | None]:
    """``(position, angle (1,) or None, quaternion (1, 4) or None)`` of a pose as :func:`~collideworld.collide`,
    the proximity queries and the World's shape queries take it for ``shape``: ``(position, angle)``,
    ``(position, quaternion)``, ``(position, None)``, a bare position, or None for a half-plane or plane.
    ``which`` names the argument in errors (``pose_a``). ``shape`` is a Shape (not named here: shapes
    import this module).

    Examples
    --------
    >>> from collideworld import Circle
    >>> pos, ang, quat = collide_pose(Circle(1.0), ((1.0, 2.0), 0.5), "a")
    >>> pos.tolist(), ang.tolist(), quat
    ([1.0, 2.0], [0.5], None)
    """
    d = shape.dim
    identity = (np.zeros(1) if d == 2 else None), (np.array([[1.0, 0, 0, 0]]) if d == 3 else None)
    if shape.is_infinite:
        if pose is not None:
            raise InvalidPoseError(f"pose_{which}: a {shape.kind} has no pose; pass None, got {pose!r}")
        return np.zeros(d), *identity
    expected = "(position, angle)" if d == 2 else "(position, quaternion)"
    if isinstance(pose, (tuple, list, np.ndarray)) and len(pose) == d and all(
            isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
            for v in pose):
        # a bare position: D numbers, the rotation the identity. It cannot be
        # mistaken for (position, angle), whose first item is a vector.
        return check_position(pose, d, f"pose_{which} position"), *identity
    if not isinstance(pose, (tuple, list)) or len(pose) != 2:
        raise InvalidPoseError(f"pose_{which} must be {expected} or a position, got {pose!r}")
    pos = check_position(pose[0], d, f"pose_{which} position")
    if pose[1] is None:
        return pos, *identity
    if d == 2:
        return pos, np.array([check_angle(pose[1], f"pose_{which} angle")]), None
    return pos, None, check_quaternion(pose[1], f"pose_{which} quaternion")[None]


def plain_float_pose(pose: Any, dim: int) -> tuple[float, ...] | None:
    """``(x, y, angle)`` or ``(x, y, z, w, qx, qy, qz)`` of a pose of Python floats, else None.

    The commonest poses, ``((x, y), angle)`` and ``((x, y, z), (w, qx, qy,
    qz))`` with every number a Python float, read with no call: the range
    tests refuse NaN and inf as :func:`plain_position` does, and the
    quaternion is normalised once with :func:`plain_unit_quaternion`'s
    arithmetic (so the same bits). Anything else, bad input included, gives
    None and is left to the checked readers and their errors. The single
    calls (``collide``, ``distance``, ``time_of_impact``) read poses here:
    numpy's checks cost more than their kernels.

    Examples
    --------
    >>> plain_float_pose(((1.0, 2.0), 0.5), 2), plain_float_pose(((1, 2), 0.5), 2)
    ((1.0, 2.0, 0.5), None)
    >>> plain_float_pose(((0.0, 0.0, 1.0), (2.0, 0.0, 0.0, 0.0)), 3) is None  # not a unit quaternion
    True
    """
    if type(pose) is not tuple or len(pose) != 2:
        return None
    p, rot = pose
    if dim == 2:
        if type(p) is tuple and len(p) == 2 and type(rot) is float:
            x, y = p
            if type(x) is float and type(y) is float and -_M <= x <= _M and -_M <= y <= _M and \
                    -math.inf < rot < math.inf:
                return x, y, rot
        return None
    if type(p) is tuple and len(p) == 3 and type(rot) is tuple and len(rot) == 4:
        x, y, z = p
        w, qx, qy, qz = rot
        if type(x) is float and type(y) is float and type(z) is float and -_M <= x <= _M and \
                -_M <= y <= _M and -_M <= z <= _M and type(w) is float and type(qx) is float and \
                type(qy) is float and type(qz) is float and -math.inf < w < math.inf and \
                -math.inf < qx < math.inf and -math.inf < qy < math.inf and -math.inf < qz < math.inf:
            norm = math.sqrt(w * w + qx * qx + qy * qy + qz * qz)
            if abs(norm - 1.0) <= QUATERNION_NORM_TOL:
                return x, y, z, w / norm, qx / norm, qy / norm, qz / norm
    return None


def plain_unit_quaternion(value: Any) -> tuple[float, float, float, float] | None:
    """A tuple or list of four Python numbers as :func:`check_quaternion` returns it, else None.

    The same arithmetic as :func:`check_quaternion` (``poses._norms``: products
    summed left to right, a correctly rounded square root, then quotients),
    on Python floats, so the bits are the same. None (not a plain quaternion,
    not finite, not unit to the tolerance) leaves the decision and its error
    to :func:`check_quaternion`.

    Examples
    --------
    >>> plain_unit_quaternion((1, 0, 0, 0)), plain_unit_quaternion((2.0, 0.0, 0.0, 0.0))
    ((1.0, 0.0, 0.0, 0.0), None)
    """
    if type(value) not in (tuple, list) or len(value) != 4:
        return None
    w, x, y, z = value
    if not all(type(v) is float or (type(v) is int and abs(v) < 2 ** 53) for v in (w, x, y, z)):
        return None
    w, x, y, z = float(w), float(x), float(y), float(z)
    if not (math.isfinite(w) and math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
        return None
    norm = math.sqrt(w * w + x * x + y * y + z * z)  # as poses._norms
    if not abs(norm - 1.0) <= QUATERNION_NORM_TOL:
        return None
    return w / norm, x / norm, y / norm, z / norm
