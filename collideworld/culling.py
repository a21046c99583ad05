"""Which side of a plane (or of a set of planes) a box lies on.

The test is the n-vertex / p-vertex test (Greene 1994; Ericson, *Real-Time
Collision Detection*, §5.2.3): over a box, ``normal . p`` ranges over
``normal . center +- r`` with the projected radius
``r = sum_i h_i |normal . axis_i|``, so comparing that interval with the
plane offset classifies the whole box at once, in 2D and 3D alike.

Half-spaces follow the package convention: the solid is
``normal . p <= offset``, and both it and the box are closed sets.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .errors import InvalidArgumentError
from .geometry.rotation import rotation_matrix_2d, rotation_matrix_3d
from .geometry.tolerance import touch_tolerance
from .poses import QUATERNION_NORM_TOL, check_angles, check_positions, check_quaternions

__all__ = [
    "INSIDE",
    "INTERSECTING",
    "OUTSIDE",
    "Side",
    "classify_aabb_plane",
    "classify_box_plane",
    "classify_box_planes",
    "frustum_planes",
    "frustum_planes_from_matrix",
]


class Side(IntEnum):
    """Where a box lies relative to a solid half-space.

    Ordered by how much of the box is in the solid, so the side of a box
    against an intersection of half-spaces is the minimum over them.

    Examples
    --------
    A box inside one plane of a region but outside another is outside the
    region:

    >>> min(Side.INSIDE, Side.OUTSIDE).name
    'OUTSIDE'
    >>> Side(1)
    <Side.INTERSECTING: 1>
    """

    #: Entirely in ``normal . p > offset``, not even touching the solid.
    OUTSIDE = 0
    #: Partly in the solid, or touching its boundary from outside.
    INTERSECTING = 1
    #: Entirely in the closed solid ``normal . p <= offset``.
    INSIDE = 2


OUTSIDE = Side.OUTSIDE
INTERSECTING = Side.INTERSECTING
INSIDE = Side.INSIDE


def _side(low: NDArray[np.float64], high: NDArray[np.float64],
          tol: NDArray[np.float64]) -> NDArray[np.int8]:
    """Side codes from the range [low, high] of ``normal . p - offset``.

    A value within ``tol`` of zero counts as on the plane, the same rule the
    contact kernels use for touching: a box touching the plane from outside
    is INTERSECTING (closed sets), and one touching it from inside, up to
    rounding, is INSIDE.
    """
    side: NDArray[np.int8] = np.where(low > tol, np.int8(OUTSIDE),
                                      np.where(high <= tol, np.int8(INSIDE), np.int8(INTERSECTING)))
    return side


def _projected_radius(rotation: NDArray[np.float64] | None, half: NDArray[np.float64],
                      normal: NDArray[np.float64]) -> NDArray[np.float64]:
    """``sum_i h_i |normal . axis_i|`` for broadcast (..., D) inputs."""
    if rotation is None:
        aligned: NDArray[np.float64] = np.sum(half * np.abs(normal), axis=-1)
        return aligned
    # Column i of R is axis i, so normal . axis_i is (R^T normal)_i.
    rotated: NDArray[np.float64] = np.sum(half * np.abs(np.einsum("...ji,...j->...i", rotation, normal)), axis=-1)
    return rotated


def _checked_normals(normals: ArrayLike, what: str = "plane_normal") -> NDArray[np.float64]:
    """``normals`` as float64, refusing non-finite and zero ones (a plane needs a direction)."""
    n = np.asarray(normals, dtype=np.float64)
    if not np.all(np.isfinite(n)) or np.any(np.all(n == 0, axis=-1)):
        raise InvalidArgumentError(f"{what} must be finite and non-zero, got {n.tolist()}")
    return n


def _scale(*arrays: NDArray[np.float64]) -> NDArray[np.float64]:
    """Largest absolute coordinate per row, over (N, k) arrays."""
    scale: NDArray[np.float64] = np.max(np.abs(np.concatenate(arrays, axis=1)), axis=1, initial=0.0)
    return scale


def classify_box_plane(
    center: ArrayLike,
    rotation: ArrayLike | None,
    half: ArrayLike,
    plane_normal: ArrayLike,
    plane_offset: ArrayLike,
) -> NDArray[np.int8]:
    """Side of each box relative to the solid half-space ``dot(normal, p) <= offset``.

    Parameters
    ----------
    center : array_like, shape (N, D)
        Box centres, D = 2 (boxes against half-planes) or 3.
    rotation : array_like, shape (N, D, D), or None
        Rotations, local to world (columns are the box axes); None for
        axis-aligned boxes.
    half : array_like, shape (N, D)
        Half extents along the box axes, ``>= 0``.
    plane_normal : array_like, shape (D,) or (N, D)
        Unit normal of one plane for all boxes, or one per box.
    plane_offset : array_like, shape () or (N,)

    Returns
    -------
    ndarray of int8, shape (N,)
        :attr:`~Side.OUTSIDE`, :attr:`~Side.INTERSECTING` or :attr:`~Side.INSIDE` (compare with
        those constants or wrap in :class:`Side`).

    Notes
    -----
    Distances within ``touch_tolerance(scale)`` of the plane count as on it,
    ``scale`` being the largest absolute centre coordinate, half extent or
    offset of that box and plane. O(N D^2).

    Examples
    --------
    >>> side = classify_box_plane([[0.0, 3.0], [0.0, 0.5]], None, [[1, 1], [1, 1]], [0, 1], 0.0)
    >>> [Side(s).name for s in side]
    ['OUTSIDE', 'INTERSECTING']
    """
    c = np.atleast_2d(np.asarray(center, dtype=np.float64))
    h = np.atleast_2d(np.asarray(half, dtype=np.float64))
    rot = None if rotation is None else np.asarray(rotation, dtype=np.float64)
    n = _checked_normals(plane_normal)
    off = np.broadcast_to(np.asarray(plane_offset, dtype=np.float64), c.shape[:1])
    dist = np.einsum("ni,ni->n", c, np.broadcast_to(n, c.shape)) - off
    r = _projected_radius(rot, h, n)
    tol = touch_tolerance(_scale(c, h, off[:, None]))
    return _side(dist - r, dist + r, tol)


def _float_array(value: ArrayLike | None, what: str) -> NDArray[np.float64]:
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{what} must be an array of numbers, got {value!r}") from None


def _checked_boxes(
    center: ArrayLike, rotation: ArrayLike | None, half: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64] | None, NDArray[np.float64]]:
    """Validate boxes as the World does; rotations come back as (N, D, D) matrices or None."""
    c = _float_array(center, "center")
    if c.ndim != 2 or c.shape[1] not in (2, 3):
        raise InvalidArgumentError(f"center must have shape (N, 2) or (N, 3), got shape {c.shape}")
    n, dim = c.shape
    c = check_positions(c, n, dim, "center")
    h = _float_array(half, "half")
    if h.shape != (n, dim):
        raise InvalidArgumentError(f"half must have shape ({n}, {dim}), one row per centre, got shape {h.shape}")
    bad = ~(np.isfinite(h) & (h >= 0))
    if np.any(bad):
        raise InvalidArgumentError(f"half extents must be finite and >= 0, got {h[bad].tolist()[:3]} "
                                   f"at row {int(np.flatnonzero(bad.any(axis=1))[0])}")
    if rotation is None:
        return c, None, h
    r = _float_array(rotation, "rotation")
    if dim == 3 and r.shape == (n, 4):
        return c, rotation_matrix_3d(check_quaternions(r, n, "rotation")), h
    if dim == 2 and r.shape in ((n,), ()):
        return c, rotation_matrix_2d(check_angles(r, n, "rotation")), h
    if r.shape == (n, dim, dim):
        if dim == 3:
            # orthonormal with determinant +1, to the World's tolerance; written out rather than
            # through quaternions, whose conversion would cost more than the classification
            cols = np.ascontiguousarray(r.transpose(2, 1, 0))  # cols[i, j]: component j of axis i, (N,)
            gram = np.einsum("ijn,kjn->ikn", cols, cols) - np.eye(3)[:, :, None]
            x, y, z = cols
            det = (x[0] * (y[1] * z[2] - y[2] * z[1]) - x[1] * (y[0] * z[2] - y[2] * z[0])
                   + x[2] * (y[0] * z[1] - y[1] * z[0]))
            off = np.maximum(np.abs(gram).max(axis=(0, 1)), np.abs(det - 1.0))
            wrong = ~(off <= QUATERNION_NORM_TOL)  # NaN is wrong too
            if np.any(wrong):
                i = int(np.flatnonzero(wrong)[0])
                raise InvalidArgumentError(f"rotation: a 3x3 rotation matrix must be orthonormal with determinant +1,"
                                           f" got {r[i].tolist()} (determinant {det[i]:.9g}) at index {i}")
        else:
            # [[c, -s], [s, c]] with c^2 + s^2 = 1, to the World's tolerance
            off = np.maximum(np.abs(r[:, 0, 0] - r[:, 1, 1]), np.abs(r[:, 0, 1] + r[:, 1, 0]))
            off = np.maximum(off, np.abs(r[:, 0, 0] ** 2 + r[:, 1, 0] ** 2 - 1.0))
            wrong = ~(off <= QUATERNION_NORM_TOL)  # NaN is wrong too
            if np.any(wrong):
                i = int(np.flatnonzero(wrong)[0])
                raise InvalidArgumentError(f"rotation: a 2x2 rotation matrix must be [[c, -s], [s, c]] with "
                                           f"c^2 + s^2 = 1, got {r[i].tolist()} at index {i}")
        return c, r, h
    expected = "(N, 4) quaternions [w, x, y, z]" if dim == 3 else "(N,) angles"
    raise InvalidArgumentError(f"rotation must be None, {expected} or (N, {dim}, {dim}) rotation matrices "
                               f"for {n} boxes in {dim}D, got shape {r.shape}")


def classify_box_planes(
    center: ArrayLike,
    rotation: ArrayLike | None,
    half: ArrayLike,
    normals: ArrayLike,
    offsets: ArrayLike,
) -> NDArray[np.int8]:
    """Side of each box relative to the intersection of P half-spaces.

    Meant for a view frustum (:func:`frustum_planes`,
    :func:`frustum_planes_from_matrix`) or any convex region given by its
    planes. Inputs are validated as :class:`~collideworld.World` validates
    poses.

    Parameters
    ----------
    center : array_like, shape (N, D)
        Box centres, D = 2 or 3.
    rotation : array_like or None
        None for axis-aligned boxes; in 3D, (N, 4) unit quaternions
        ``[w, x, y, z]`` or (N, 3, 3) rotation matrices; in 2D, (N,) angles in
        radians (or one for all) or (N, 2, 2) rotation matrices. Matrices map
        local to world (columns are the box axes).
    half : array_like, shape (N, D)
        Half extents, ``>= 0``.
    normals : array_like, shape (P, D)
        Outward normals, finite and non-zero (unit for the tolerance to be
        in length units); the region is ``normals @ p <= offsets``.
    offsets : array_like, shape (P,)

    Returns
    -------
    ndarray of int8, shape (N,)
        :attr:`~Side.OUTSIDE` if the box is outside some plane, :attr:`~Side.INSIDE` if
        it is inside every plane, else :attr:`~Side.INTERSECTING`.

    Raises
    ------
    InvalidArgumentError, InvalidPoseError
        Shapes that do not match, non-finite values, negative half extents,
        quaternions that are not unit or matrices that are not rotations;
        the message says what was given.

    Notes
    -----
    NOTE: this is the usual conservative culling test. A box near a corner
    of the region can be outside the region yet outside no single plane; it
    is then reported INTERSECTING, never wrongly OUTSIDE. O(N P D^2), as
    two small matrix products: ``normal . center`` for every pair, and the
    normals in every box's frame for the projected radii.

    Examples
    --------
    Unit boxes against the square ``|x| <= 2, |y| <= 2``: one in the middle,
    one straddling the right edge, one far away.

    >>> normals, offsets = [[1, 0], [-1, 0], [0, 1], [0, -1]], [2, 2, 2, 2]
    >>> side = classify_box_planes([[0, 0], [2, 0], [5, 5]], None, [[1, 1]] * 3, normals, offsets)
    >>> [Side(s).name for s in side]
    ['INSIDE', 'INTERSECTING', 'OUTSIDE']

    In 3D with quaternions: a unit cube turned 45 degrees about z reaches
    sqrt(2) along x, so it crosses the plane x <= 1.2.

    >>> q = [[np.cos(np.pi / 8), 0.0, 0.0, np.sin(np.pi / 8)]]
    >>> Side(classify_box_planes([[0, 0, 0]], q, [[1, 1, 1]], [[1, 0, 0]], [1.2])[0]).name
    'INTERSECTING'
    """
    c, rot, h = _checked_boxes(center, rotation, half)
    n, dim = c.shape
    nrm = _float_array(normals, "normals")
    if nrm.ndim != 2 or nrm.shape[1] != dim:
        raise InvalidArgumentError(f"normals must have shape (P, {dim}) for {dim}D boxes, got shape {nrm.shape}")
    nrm = _checked_normals(nrm, "normals")
    off = _float_array(offsets, "offsets")
    if off.shape != (nrm.shape[0],) or not np.all(np.isfinite(off)):
        raise InvalidArgumentError(f"offsets must be {nrm.shape[0]} finite numbers (one per normal), got "
                                   + (f"shape {off.shape}" if off.shape != (nrm.shape[0],) else f"{off.tolist()}"))
    if n == 0 or nrm.shape[0] == 0:
        # With no planes the region is everything, so every box is inside.
        return np.full(n, np.int8(INSIDE))
    # Plane-major (P, N) throughout: each step is a (P, D) @ (D, N) product or
    # elementwise work over contiguous rows; batched products of tiny
    # matrices, (N, P, D) @ (N, D, D), cost several times more in numpy.
    dist = nrm @ c.T
    dist -= off[:, None]
    if rot is None:
        r = np.abs(nrm) @ h.T
    else:
        # normal_p . axis_i for every plane and box, one box axis at a time
        axes = np.ascontiguousarray(rot.transpose(2, 1, 0))  # axes[i]: axis i of every box, (D, N)
        r = np.abs(nrm @ axes[0]) * h[:, 0]
        for i in range(1, dim):
            r += np.abs(nrm @ axes[i]) * h[:, i]
    scale = np.maximum(np.abs(c).max(axis=1), h.max(axis=1))
    tol = touch_tolerance(np.maximum(scale, np.abs(off).max()))
    # The region's side is the worst over its planes (OUTSIDE < INTERSECTING < INSIDE):
    # outside one plane is outside; inside every plane is inside.
    outside = np.any(dist - r > tol, axis=0)
    inside = np.all(dist + r <= tol, axis=0)
    side: NDArray[np.int8] = np.where(outside, np.int8(OUTSIDE), np.where(inside, np.int8(INSIDE),
                                                                          np.int8(INTERSECTING)))
    return side


def classify_aabb_plane(
    lo: ArrayLike,
    hi: ArrayLike,
    plane_normal: ArrayLike,
    plane_offset: ArrayLike,
) -> NDArray[np.int8]:
    """Side of each axis-aligned box ``[lo, hi]`` relative to ``dot(normal, p) <= offset``.

    Parameters
    ----------
    lo, hi : array_like, shape (N, D)
        Box corners, ``lo <= hi``.
    plane_normal : array_like, shape (D,) or (N, D)
    plane_offset : array_like, shape () or (N,)

    Returns
    -------
    ndarray of int8, shape (N,)
        As :func:`classify_box_plane`.

    Notes
    -----
    Picks the n-vertex and p-vertex corner by corner from ``lo`` and ``hi``
    instead of going through centre and half extents: the corners are then
    exactly the given coordinates, with no rounding from ``(lo + hi) / 2``.

    Examples
    --------
    Against ``x <= 2``: ``[0, 1]`` is inside, ``[2, 3]`` touches the
    boundary from outside (touching counts), ``[4, 5]`` is outside.

    >>> side = classify_aabb_plane([[0, 0], [2, 0], [4, 0]], [[1, 1], [3, 1], [5, 1]], [1, 0], 2.0)
    >>> [Side(s).name for s in side]
    ['INSIDE', 'INTERSECTING', 'OUTSIDE']
    """
    lo_ = np.atleast_2d(np.asarray(lo, dtype=np.float64))
    hi_ = np.atleast_2d(np.asarray(hi, dtype=np.float64))
    n = np.broadcast_to(_checked_normals(plane_normal), lo_.shape)
    off = np.broadcast_to(np.asarray(plane_offset, dtype=np.float64), lo_.shape[:1])
    positive = n >= 0.0
    p_vertex = np.where(positive, hi_, lo_)
    n_vertex = np.where(positive, lo_, hi_)
    low = np.einsum("ni,ni->n", n_vertex, n) - off
    high = np.einsum("ni,ni->n", p_vertex, n) - off
    tol = touch_tolerance(_scale(lo_, hi_, off[:, None]))
    return _side(low, high, tol)


def frustum_planes(
    eye: ArrayLike | None = None,
    forward: ArrayLike | None = None,
    up: ArrayLike | None = None,
    fov_y: float | None = None,
    aspect: float | None = None,
    near: float | None = None,
    far: float | None = None,
    *,
    view_projection: ArrayLike | None = None,
    depth_zero_to_one: bool = False,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The six planes of a perspective view frustum, outward normals, from a camera or a matrix.

    Two forms: ``frustum_planes(eye, forward, up, fov_y, aspect, near, far)``
    from the camera's parameters, or ``frustum_planes(view_projection)``
    from a 4x4 view-projection matrix, the form a renderer already holds
    (the same as :func:`frustum_planes_from_matrix`, which it calls).

    Parameters
    ----------
    eye : array_like, shape (3,)
        Camera position. Alone, a 4x4 matrix is taken as ``view_projection``.
    forward : array_like, shape (3,)
        Viewing direction (normalised here).
    up : array_like, shape (3,)
        Any vector not parallel to ``forward``; the camera's up is its part
        orthogonal to ``forward``.
    fov_y : float
        Full vertical field of view in radians, in (0, pi).
    aspect : float
        Width over height of the image.
    near, far : float
        Distances of the clipping planes along ``forward``, ``0 <= near < far``.
    view_projection : array_like, shape (4, 4), optional
        Projection times view, acting on column vectors; instead of the
        camera's parameters. See :func:`frustum_planes_from_matrix`.
    depth_zero_to_one : bool, optional
        With ``view_projection``: True for a projection to ``0 <= z <= w``
        (Direct3D, Vulkan, Metal); the default is OpenGL's ``-w <= z <= w``.

    Returns
    -------
    normals : ndarray, shape (6, 3)
        Unit outward normals, in the order near, far, left, right, bottom, top.
    offsets : ndarray, shape (6,)
        The frustum is ``normals @ p <= offsets``; pass both to
        :func:`classify_box_planes`.

    Raises
    ------
    InvalidArgumentError
        A bad camera (see the parameters) or matrix, both forms given, or a
        camera parameter missing.

    Examples
    --------
    A camera at the origin looking along +x with a 90 degree field of view
    sees ``1 <= x <= 10``, ``|y| <= x``, ``|z| <= x``:

    >>> normals, offsets = frustum_planes([0, 0, 0], [1, 0, 0], [0, 0, 1], np.pi / 2, 1.0, 1.0, 10.0)
    >>> offsets[:2].tolist()            # near: -x <= -1, far: x <= 10
    [-1.0, 10.0]
    >>> side = classify_box_planes([[5, 0, 0], [5, 0, 20]], None, [[1, 1, 1]] * 2, normals, offsets)
    >>> [Side(s).name for s in side]    # the second box is above the top plane
    ['INSIDE', 'OUTSIDE']

    The same camera as an OpenGL view-projection matrix (gluPerspective
    times gluLookAt, written out), gives the same planes:

    >>> view = [[0, -1, 0, 0], [0, 0, 1, 0], [-1, 0, 0, 0], [0, 0, 0, 1]]
    >>> projection = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, -11 / 9, -20 / 9], [0, 0, -1, 0]]
    >>> from_matrix = frustum_planes(np.array(projection) @ view)
    >>> np.allclose(from_matrix[0], normals) and np.allclose(from_matrix[1], offsets)
    True
    """
    camera = {"forward": forward, "up": up, "fov_y": fov_y, "aspect": aspect, "near": near, "far": far}
    if view_projection is None and eye is not None and np.shape(eye) == (4, 4) \
            and all(v is None for v in camera.values()):
        view_projection, eye = eye, None  # the one-argument form, frustum_planes(view_projection)
    if view_projection is not None:
        if eye is not None or any(v is not None for v in camera.values()):
            raise InvalidArgumentError("give either view_projection or the camera (eye, forward, up, fov_y, aspect, "
                                       "near, far), not both")
        return frustum_planes_from_matrix(view_projection, depth_zero_to_one=depth_zero_to_one)
    missing = [name for name, v in {"eye": eye, **camera}.items() if v is None]
    if missing:
        raise InvalidArgumentError(f"frustum_planes needs a 4x4 view_projection matrix, or eye, forward, up, fov_y, "
                                   f"aspect, near and far; {', '.join(missing)} missing")
    if depth_zero_to_one:
        raise InvalidArgumentError("depth_zero_to_one applies to a view_projection matrix, not to a camera")
    assert fov_y is not None and aspect is not None and near is not None and far is not None  # for mypy
    eye_ = np.asarray(eye, dtype=np.float64)
    f = np.asarray(forward, dtype=np.float64)
    up_ = np.asarray(up, dtype=np.float64)
    for name, v in (("eye", eye_), ("forward", f), ("up", up_)):
        if v.shape != (3,) or not np.all(np.isfinite(v)):
            raise InvalidArgumentError(f"{name} must be 3 finite numbers, got {v.tolist()}")
    for name, x in (("fov_y", fov_y), ("aspect", aspect), ("near", near), ("far", far)):
        if not np.isfinite(x):
            raise InvalidArgumentError(f"{name} must be finite, got {x!r}")
    if not 0 < fov_y < np.pi:
        raise InvalidArgumentError(f"fov_y must be in (0, pi) radians, got {fov_y!r}")
    if not aspect > 0:
        raise InvalidArgumentError(f"aspect must be > 0, got {aspect!r}")
    if not 0 <= near < far:
        raise InvalidArgumentError(f"need 0 <= near < far, got near={near!r}, far={far!r}")
    length = np.linalg.norm(f)
    if not length > 0:
        raise InvalidArgumentError(f"forward must be non-zero, got {f.tolist()}")
    f = f / length
    right = np.cross(f, up_)
    # up parallel to forward leaves no sideways direction (a cross product
    # this small relative to |up| is rounding, not a direction)
    if not np.linalg.norm(right) > 1e-9 * np.linalg.norm(up_):
        raise InvalidArgumentError(f"up must not be parallel to forward, got forward={f.tolist()}, up={up_.tolist()}")
    right /= np.linalg.norm(right)
    u = np.cross(right, f)
    half_y = 0.5 * fov_y
    half_x = np.arctan(aspect * np.tan(half_y))
    # A side plane contains the eye and leans outward from the view axis by
    # the half angle, so its normal tilts back towards -forward by that angle.
    cy, sy = np.cos(half_y), np.sin(half_y)
    cx, sx = np.cos(half_x), np.sin(half_x)
    normals = np.stack([
        -f,
        f,
        -right * cx - f * sx,
        right * cx - f * sx,
        -u * cy - f * sy,
        u * cy - f * sy,
    ])
    offsets = normals @ eye_
    offsets[0] -= near
    offsets[1] += far
    return normals, offsets


def frustum_planes_from_matrix(
    view_projection: ArrayLike, *, depth_zero_to_one: bool = False
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The six planes of the view volume of a 4x4 view-projection matrix, outward normals.

    The same as ``frustum_planes(view_projection)``; kept under this name.

    Gribb and Hartmann's extraction ("Fast extraction of viewing frustum
    planes from the world-view-projection matrix", 2001): with ``m_i`` the
    rows of ``M`` and clip coordinates ``(x, y, z, w) = M @ (p, 1)``, the
    view volume is ``-w <= x, y <= w`` and ``-w <= z <= w`` (OpenGL), so
    each plane is a sum or difference of rows, e.g. left ``(m_3 + m_0) .
    (p, 1) >= 0``. Each is turned into the package's form ``n . p <= d`` and
    divided by the length of ``n``.

    Parameters
    ----------
    view_projection : array_like, shape (4, 4)
        Projection times view, acting on column vectors ``(x, y, z, 1)``
        (transpose a row-vector matrix first). Perspective or orthographic.
    depth_zero_to_one : bool, optional
        True for a projection to ``0 <= z <= w`` (Direct3D, Vulkan, Metal);
        the default is OpenGL's ``-w <= z <= w``.

    Returns
    -------
    normals : ndarray, shape (6, 3)
        Unit outward normals, in the order of :func:`frustum_planes`: near,
        far, left, right, bottom, top.
    offsets : ndarray, shape (6,)
        The view volume is ``normals @ p <= offsets``; pass both to
        :func:`classify_box_planes`.

    Raises
    ------
    InvalidArgumentError
        If the matrix is not 4x4 and finite, or a plane has no direction (a
        singular matrix).

    Examples
    --------
    An orthographic projection of the box ``|x|, |y| <= 2``, ``1 <= -z <= 10``
    (OpenGL's ``glOrtho(-2, 2, -2, 2, 1, 10)``, an identity view):

    >>> ortho = [[0.5, 0, 0, 0], [0, 0.5, 0, 0], [0, 0, -2 / 9, -11 / 9], [0, 0, 0, 1]]
    >>> normals, offsets = frustum_planes_from_matrix(ortho)
    >>> (normals + 0.0).tolist()[2:4], offsets[2:4].tolist()      # left: -x <= 2, right: x <= 2
    ([[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0]], [2.0, 2.0])
    >>> side = classify_box_planes([[0, 0, -5], [0, 0, -12]], None, [[1, 1, 1]] * 2, normals, offsets)
    >>> [Side(s).name for s in side]
    ['INSIDE', 'OUTSIDE']
    """
    m = _float_array(view_projection, "view_projection")
    if m.shape != (4, 4) or not np.all(np.isfinite(m)):
        raise InvalidArgumentError("view_projection must be a finite 4x4 matrix, got "
                                   + (f"shape {m.shape}" if m.shape != (4, 4) else f"{m.tolist()}"))
    near = m[2] if depth_zero_to_one else m[3] + m[2]
    # rows (a, b, c, d) with (a, b, c) . p + d >= 0 inside, in the order near, far, left, right, bottom, top
    rows = np.stack([near, m[3] - m[2], m[3] + m[0], m[3] - m[0], m[3] + m[1], m[3] - m[1]])
    length = np.linalg.norm(rows[:, :3], axis=1)
    if not np.all(length > 0):
        names = ["near", "far", "left", "right", "bottom", "top"]
        raise InvalidArgumentError(f"view_projection gives the {names[int(np.argmin(length))]} plane no direction "
                                   f"(a singular matrix?), got {m.tolist()}")
    normals = -rows[:, :3] / length[:, None]
    offsets = rows[:, 3] / length
    return normals, offsets
