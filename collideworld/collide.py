"""``collide()``: the contact of two posed shapes, without a world.

For placement checks and tests. It runs the very same batched narrowphase as
the world, on a store of two bodies, so a pair gives the same answer here as
inside a :class:`~collideworld.world.World`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .bodies import BodyStore
from .errors import InvalidPoseError, UnsupportedPairError
from .narrowphase import contact_pairs
from .poses import check_angle, check_position, check_quaternion
from .shapes import SHAPE_TYPES, Shape

__all__ = ["ContactResult", "collide"]


@dataclass(frozen=True)
class ContactResult:
    """The contact of two shapes.

    Attributes
    ----------
    normal : ndarray, shape (D,)
        Unit vector from shape a towards shape b: moving b by
        ``normal * depth`` separates them (for a concave polygon, the most
        deeply penetrating convex piece's).
    depth : float
        Penetration depth ``>= 0``; 0 when the shapes only touch.

    Examples
    --------
    Two circles of radius 3 whose centres are 5 apart overlap by 6 - 5 = 1,
    along the direction (3, 4) / 5:

    >>> from collideworld import Circle, collide
    >>> r = collide(Circle(3.0), ((0, 0), 0.0), Circle(3.0), ((3, 4), 0.0))
    >>> r.normal.tolist(), r.depth
    ([0.6, 0.8], 1.0)
    """

    normal: NDArray[np.float64]
    depth: float


def _pose(shape: Shape, pose: Any, which: str) -> tuple[NDArray[np.float64], NDArray[np.float64] | None,
                                                        NDArray[np.float64] | None]:
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


def collide(shape_a: Shape, pose_a: Any, shape_b: Shape, pose_b: Any) -> ContactResult | None:
    """Contact of two posed shapes, or None when they are apart.

    Parameters
    ----------
    shape_a, shape_b : Shape
        Of the same dimension.
    pose_a, pose_b : tuple, array_like or None
        ``(position, angle)`` in 2D, ``(position, quaternion)`` in 3D (a
        3x3 rotation matrix, or a rotation object with ``as_quat`` such as
        scipy's ``Rotation``, is accepted for the quaternion). The rotation
        may be ``None``, and the pose may be a bare position: both mean no
        rotation (handy for circles and spheres). ``None`` for a half-plane
        or plane.

    Returns
    -------
    ContactResult or None
        Touching shapes are in contact (depth 0).

    Examples
    --------
    >>> from collideworld import Box, Circle, collide
    >>> r = collide(Box((1, 1)), ((0, 0), 0.0), Circle(1.0), ((1.5, 0), 0.0))
    >>> r.normal.tolist(), r.depth
    ([1.0, 0.0], 0.5)
    >>> collide(Box((1, 1)), ((0, 0), 0.0), Circle(1.0), ((3.0, 0), 0.0)) is None
    True
    >>> collide(Circle(1.0), (0, 0), Circle(1.0), ((1.0, 0), None)).depth   # bare position; no rotation
    1.0
    """
    for name, s in (("shape_a", shape_a), ("shape_b", shape_b)):
        if not isinstance(s, SHAPE_TYPES):
            raise UnsupportedPairError(f"{name} must be a collideworld shape, got {s!r}")
    if shape_a.dim != shape_b.dim:
        raise UnsupportedPairError(
            f"cannot collide a {shape_a.dim}D {shape_a.kind} with a {shape_b.dim}D {shape_b.kind}")
    pa = _pose(shape_a, pose_a, "a")
    pb = _pose(shape_b, pose_b, "b")
    store = BodyStore(shape_a.dim, capacity=2)
    slots = store.allocate(2)
    store.set_shapes(slots, [shape_a, shape_b])
    for k, (pos, ang, quat) in enumerate((pa, pb)):
        store.set_poses(slots[k:k + 1], pos[None], ang, quat)
    res = contact_pairs(store, slots[:1], slots[1:], "auto")  # the kernels a default World runs
    if not res.hit[0]:
        return None
    return ContactResult(res.normal[0].copy(), float(res.depth[0]))
