"""Clearance queries on posed shapes, without a world: distance, time of impact, trajectory check.

- :func:`distance`: how far apart two shapes are (signed: minus the
  penetration depth when they overlap), with the closest (or deepest) points
  and the normal.
- :func:`time_of_impact`: the first time two shapes touch while moving
  between a start and an end pose.
- :func:`check_trajectory`: one shape along T poses against M obstacles, the
  first step (and time within it) at which it touches one, and the clearance
  at every step; the loops run inside compiled code.

Apart, distances come from GJK on convex pieces
(:mod:`collideworld.geometry.gjk`); overlapping, the depth and normal are
those :func:`~collideworld.collide` reports, so ``distance == -depth``.
Times of impact come from conservative advancement
(:mod:`collideworld.geometry.time_of_impact`). Poses are validated exactly
as :func:`~collideworld.collide` validates them.
"""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .backend import resolve_backend
from .background import compiled_ready
from .collide import ShapeArray, collide, contact_table, pair_sides, pose_arrays
from .errors import InvalidArgumentError, InvalidPoseError, UndecidedError, UnsupportedPairError
from .geometry import gjk
from .geometry import time_of_impact as toi
from .geometry.rotation import rotation_matrix_3d
from .geometry.tolerance import MAX_COORDINATE, REL_TOUCH_TOL
from .poses import (
    check_quaternions,
    collide_pose,
    plain_float_pose,
    plain_position,
    plain_unit_quaternion,
)
from .shapes import (
    SHAPE_TYPES,
    Box,
    Capsule,
    Circle,
    Compound,
    Cone,
    ConvexHull,
    Cylinder,
    HalfPlane,
    HeightField,
    Plane,
    Polygon,
    Segment,
    Shape,
    Sphere,
    Triangle,
    TriangleMesh,
)

__all__ = ["DistanceResult", "ImpactResult", "TrajectoryResult", "distance", "time_of_impact", "check_trajectory",
           "PieceTable", "pose_row", "impact_at", "DistanceArrays", "ImpactArrays", "distance_many",
           "time_of_impact_many"]


class DistanceResult(NamedTuple):
    """How far apart two posed shapes are.

    Attributes
    ----------
    distance : float
        The gap when apart, 0 when touching, minus the penetration depth
        (the depth :func:`~collideworld.collide` reports) when overlapping.
    point_a, point_b : ndarray of float64, shape (D,)
        World points on shape a and on shape b: the closest points when
        apart; when overlapping, the deepest points, with
        ``point_b - point_a == distance * normal`` (to rounding) in every case.
    normal : ndarray of float64, shape (D,)
        Unit vector from a towards b.

    Examples
    --------
    >>> from collideworld import Circle, distance
    >>> r = distance(Circle(1.0), ((0, 0), 0.0), Circle(1.0), ((3, 4), 0.0))
    >>> r.distance, r.point_a.tolist(), r.point_b.tolist(), r.normal.tolist()
    (3.0, [0.6, 0.8], [2.4, 3.2], [0.6, 0.8])
    """

    distance: float
    point_a: NDArray[np.float64]
    point_b: NDArray[np.float64]
    normal: NDArray[np.float64]


class ImpactResult(NamedTuple):
    """When and where two moving shapes first touch.

    Attributes
    ----------
    t : float
        In [0, 1]: the fraction of the motion at the first touch (0 when they
        touch at their start poses).
    normal : ndarray of float64, shape (D,)
        Unit contact normal from a towards b at that time.
    point : ndarray of float64, shape (D,)
        The contact point in world coordinates at that time (midway between
        the two shapes' nearest points).

    Examples
    --------
    >>> from collideworld import Circle, time_of_impact
    >>> still = ((5, 0), 0.0)
    >>> r = time_of_impact(Circle(1.0), ((0, 0), 0.0), ((10, 0), 0.0), Circle(1.0), still, still)
    >>> round(r.t, 12), r.normal.tolist(), r.point.round(12).tolist()
    (0.3, [1.0, 0.0], [4.0, 0.0])
    """

    t: float
    normal: NDArray[np.float64]
    point: NDArray[np.float64]


class TrajectoryResult(NamedTuple):
    """The outcome of :func:`check_trajectory`.

    Attributes
    ----------
    step : int
        First step at which the shape touches an obstacle; -1 if it never does.
    t : float
        Fraction of the way from ``step`` to ``step + 1`` at that touch (0
        without continuous checking, or when the touch is at the step's
        pose); NaN when there is none.
    obstacle : int
        Index of the obstacle touched (the lowest if several); -1 if none.
    clearance : ndarray of float64, shape (T,)
        Smallest gap to any obstacle at each step's pose; 0 when touching or
        overlapping (penetration depth is not computed here: use
        :func:`distance`); ``inf`` without obstacles.
    nearest : ndarray of int64, shape (T,)
        Index of an obstacle at that smallest gap (-1 without obstacles).

    Examples
    --------
    >>> from collideworld import Box, check_trajectory
    >>> r = check_trajectory(Box((1, 1)), [[0, 0, 0], [3, 0, 0]], [Box((1, 1))], [[5, 0, 0]])
    >>> r.step, r.t, r.obstacle, r.clearance.tolist(), r.nearest.tolist()
    (1, 0.0, 0, [3.0, 0.0], [0, 0])
    """

    step: int
    t: float
    obstacle: int
    clearance: NDArray[np.float64]
    nearest: NDArray[np.int64]


# -- packing shapes into convex pieces ----------------------------------------------

class _Packed(NamedTuple):
    verts: NDArray[np.float64]
    pfirst: NDArray[np.int64]
    pcount: NDArray[np.int64]
    prad: NDArray[np.float64]
    pplane: NDArray[np.int64]
    svfirst: NDArray[np.int64]
    svcount: NDArray[np.int64]
    sfirst: NDArray[np.int64]
    scount: NDArray[np.int64]
    reach: NDArray[np.float64]


@functools.cache
def _twin(name: str) -> Any:
    return gjk.python_twin(name)


def _kernel(module: Any, name: str) -> Any:
    """Kernel ``name`` of ``module``: compiled once a background build has it ready, until then its plain-Python
    twin (the same arithmetic, uncompiled; see ``collideworld.background``), so no call waits for the compiler.

    ``check_trajectory``'s loop over every pose and obstacle stays compiled: uncompiled, it would be far slower
    than the compile it avoids.
    """
    fn = getattr(module, name)
    if not gjk.COMPILED or compiled_ready():
        return fn
    return _twin(name)


#: (kernel name, id of a pair's pack) -> (the pack, the compiled entry point): see :func:`_packed_call`
_PACK_ENTRIES: dict[tuple[str, int], tuple[Any, Any]] = {}


def _packed_call(module: Any, name: str, p: _Packed, *args: Any) -> Any:
    """``_kernel(module, name)(*args)`` for a pair's cached pack ``p`` (``args`` its arrays, then Python floats,
    tuples of floats and ints), through the entry point of the compiled specialisation once it ran.

    A dispatcher call types every argument first (~0.3 us of a ~6 us distance()); the entry point unboxes
    them by its signature unchecked. The pack's arrays are this pack's own (so their types are fixed) and
    the fast paths' other arguments are Python floats (a tuple of eight) and ints, so one specialisation
    serves every call on this pack. Until the compiled kernels are ready the plain twin runs (no entry kept).
    """
    key = (name, id(p))
    found = _PACK_ENTRIES.get(key)
    seen = False
    if found is not None and found[0] is p:
        if found[1] is not None:
            return found[1](*args)
        seen = True
    fn = _kernel(module, name)
    result = fn(*args)
    overloads = getattr(fn, "overloads", None)
    if overloads is None:
        return result
    if len(_PACK_ENTRIES) >= 512:
        _PACK_ENTRIES.clear()
    if not seen:
        # typing the arguments in Python (typeof_pyval) costs ~200 us a call, 30x the dispatcher's own C
        # typing: a loop over distinct shapes would pay it on every call for nothing. Look the entry up
        # on the pack's second call, when it is being reused.
        _PACK_ENTRIES[key] = (p, None)
        return result
    # kept only for tuples of floats (an int's slot would be typed int64 and unbox a later float truncated;
    # a float64 slot unboxes an int exactly, and the fast paths' ints are below MAX_COORDINATE)
    if all(type(x) is float for a in args if type(a) is tuple for x in a):
        compiled = overloads.get(tuple(fn.typeof_pyval(a) for a in args))
        if compiled is not None:
            _PACK_ENTRIES[key] = (p, compiled.entry_point)
    return result


@functools.lru_cache(maxsize=4096)
def _pieces(shape: Shape) -> tuple[list[NDArray[np.float64]], list[float], int, float]:
    """(local vertices (k, 3) per piece, radius per piece, is a plane, reach) of one shape."""
    if isinstance(shape, (HalfPlane, Plane)):
        n = np.zeros((1, 3))
        n[0, :shape.dim] = shape.normal
        return [n], [shape.offset], 1, 0.0
    if isinstance(shape, (Circle, Sphere)):
        return [np.zeros((1, 3))], [shape.radius], 0, shape.radius
    if isinstance(shape, Box):
        he = np.array(shape.half_extents)
        signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * shape.dim, indexing="ij")).reshape(shape.dim, -1).T
        corners = np.zeros((len(signs), 3))
        corners[:, :shape.dim] = signs * he
        return [corners], [shape.radius], 0, shape.bounding_radius  # a rounded box: its core grown by radius
    if isinstance(shape, (Capsule, Segment)):
        # one piece: the core segment's two end points, grown by the radius
        ends = np.zeros((2, 3))
        ends[0, :shape.dim] = shape.p0
        ends[1, :shape.dim] = shape.p1
        return [ends], [shape.radius], 0, shape.bounding_radius
    if isinstance(shape, ConvexHull):
        return [np.array(shape.vertices)], [shape.radius], 0, shape.bounding_radius
    if isinstance(shape, (Cylinder, Cone)):
        # a curved piece (gjk.piece_support's kinds 2 and 3): bottom (base) centre, top centre (apex), a rim point
        h, r = shape.half_height, shape.radius
        return [np.array([[0.0, 0.0, -h], [0.0, 0.0, h], [r, 0.0, -h]])], [0.0], \
            (2 if isinstance(shape, Cylinder) else 3), shape.bounding_radius
    if isinstance(shape, Triangle):
        # a mesh's triangle in its part slot (posed at the triangle's centroid): one flat piece
        return [np.array(shape.points)], [0.0], 0, shape.bounding_radius
    if isinstance(shape, (TriangleMesh, HeightField)):
        # one flat piece per triangle (GJK needs no volume)
        return list(shape.vertices[shape.triangles]), [0.0] * len(shape.triangles), 0, shape.bounding_radius
    if isinstance(shape, Compound):
        # the union of its parts' pieces, each moved into the body's frame
        pieces: list[NDArray[np.float64]] = []
        radii: list[float] = []
        for part, local_pos, local_rot in shape.parts:
            rot, shift = _part_frame(shape.dim, local_pos, local_rot)
            pv, pr, _, _ = _pieces(part)
            pieces.extend(v @ rot.T + shift for v in pv)
            radii.extend(pr)
        return pieces, radii, 0, shape.bounding_radius
    parts = []
    for p in shape.parts:
        v = np.zeros((len(p), 3))
        v[:, :2] = p
        parts.append(v)
    return parts, [shape.radius] * len(parts), 0, shape.bounding_radius


def _part_frame(dim: int, local_pos: tuple[float, ...], local_rot: Any) -> tuple[NDArray[np.float64],
                                                                                 NDArray[np.float64]]:
    """A compound part's local pose as a 3x3 rotation and a 3-vector (2D in the xy block)."""
    rot = np.eye(3)
    if dim == 2:
        c, s = math.cos(local_rot), math.sin(local_rot)
        rot[:2, :2] = [[c, -s], [s, c]]
    else:
        rot = rotation_matrix_3d(np.array([local_rot], dtype=np.float64))[0]
    shift = np.zeros(3)
    shift[:dim] = local_pos
    return rot, shift


@functools.lru_cache(maxsize=256)
def _pack(shapes: tuple[Shape, ...]) -> _Packed:
    verts: list[NDArray[np.float64]] = []
    counts: list[int] = []
    radii: list[float] = []
    plane: list[int] = []
    svcount, scount, reach = [], [], []
    for s in shapes:
        pv, pr, is_plane, r = _pieces(s)
        verts.extend(pv)
        counts.extend(len(v) for v in pv)
        radii.extend(pr)
        plane.extend([is_plane] * len(pv))
        svcount.append(sum(len(v) for v in pv))
        scount.append(len(pv))
        reach.append(r)
    pcount = np.array(counts, dtype=np.int64)
    sv = np.array(svcount, dtype=np.int64)
    sc = np.array(scount, dtype=np.int64)
    packed = _Packed(np.concatenate(verts), np.cumsum(pcount) - pcount, pcount, np.array(radii, dtype=np.float64),
                     np.array(plane, dtype=np.int64), np.cumsum(sv) - sv, sv, np.cumsum(sc) - sc, sc,
                     np.array(reach, dtype=np.float64))
    return _frozen(packed)


def _frozen(packed: _Packed) -> _Packed:
    """``packed`` with every array read-only: :func:`_pack`'s cached tables must not change under a caller, and
    numba types a read-only array apart from a writable one, so the joined and ShapeArray tables are made
    read-only too: the kernels they reach (GJK's ``shape_distance``, ``piece_distance``, ``transform_shape``)
    then compile once, not once per flag (issue 27: a second specialisation of each in ``warm_up()``)."""
    for arr in packed:
        arr.setflags(write=False)
    return packed


_IDENTITY = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0])


def _joined(a: _Packed, b: _Packed) -> _Packed:
    """Table ``a`` followed by table ``b`` (its vertex and piece indices moved past ``a``'s)."""
    nv, npieces = len(a.verts), len(a.pfirst)
    return _frozen(_Packed(np.concatenate([a.verts, b.verts]), np.concatenate([a.pfirst, b.pfirst + nv]),
                           np.concatenate([a.pcount, b.pcount]), np.concatenate([a.prad, b.prad]),
                           np.concatenate([a.pplane, b.pplane]), np.concatenate([a.svfirst, b.svfirst + nv]),
                           np.concatenate([a.svcount, b.svcount]), np.concatenate([a.sfirst, b.sfirst + npieces]),
                           np.concatenate([a.scount, b.scount]), np.concatenate([a.reach, b.reach])))


class PieceTable:
    """The convex pieces of many shapes in one packed table, for the batched kernels.

    The layout of the scalar functions' two-shape tables (``_pack``), with
    every shape a world holds packed once, when first seen (by identity: the
    table keeps the shape, so its id stays its own); the query shape is
    appended last (:meth:`with_query`), so
    ``geometry.time_of_impact.distance_rows`` and ``toi_rows`` measure one
    query against many bodies in one compiled call, each pair exactly as
    :func:`distance` / :func:`time_of_impact` would.

    Examples
    --------
    >>> from collideworld import Box, Circle
    >>> t = PieceTable()
    >>> disc = Circle(1.0)
    >>> t.index_of(disc), t.index_of(Box((1.0, 2.0))), t.index_of(disc), len(t)
    (0, 1, 0, 2)
    >>> packed, q = t.with_query(Circle(0.5))
    >>> q, packed.svfirst.tolist(), packed.prad.tolist()
    (2, [0, 1, 5], [1.0, 0.0, 0.5])
    """

    def __init__(self) -> None:
        self._index: dict[int, int] = {}
        self._shapes: list[Shape] = []
        self._base: _Packed | None = None
        self._with: tuple[Shape, _Packed] | None = None

    def __len__(self) -> int:
        return len(self._shapes)

    def index_of(self, shape: Shape) -> int:
        """The shape's index in the table (packed now if new)."""
        i = self._index.get(id(shape))
        if i is None:
            i = len(self._shapes)
            self._index[id(shape)] = i
            self._shapes.append(shape)
            self._base = None
            self._with = None
        return i

    def with_query(self, shape: Shape) -> tuple[_Packed, int]:
        """The table with ``shape`` appended (its index is the number of shapes indexed), and that index."""
        w = self._with
        if w is not None and w[0] is shape:
            return w[1], len(self._shapes)
        if self._base is None:
            self._base = _pack.__wrapped__(tuple(self._shapes)) if self._shapes else None
        one = _pack.__wrapped__((shape,))
        packed = one if self._base is None else _joined(self._base, one)
        self._with = (shape, packed)
        return packed, len(self._shapes)


def pose_row(shape: Shape, pose: Any, which: str) -> NDArray[np.float64]:
    """A validated pose as the kernels' row of 8 (raises the errors :func:`distance` raises).

    Examples
    --------
    >>> from collideworld import Circle
    >>> pose_row(Circle(1.0), ((1.0, 2.0), 0.5), "a").tolist()
    [1.0, 2.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.5]
    """
    return _checked_row(shape, pose, which)


def _row(shape: Shape, pose: Any, which: str) -> NDArray[np.float64]:
    """The validated pose as a kernel row of 8 (identity for a half-plane or plane)."""
    pos, ang, quat = collide_pose(shape, pose, which)
    row: NDArray[np.float64] = _IDENTITY.copy()
    if shape.is_infinite:
        return row
    row[:shape.dim] = pos
    if ang is not None:
        row[7] = ang[0]
    if quat is not None:
        row[3:7] = quat[0]
    return row


def _fast_row(shape: Shape, pose: Any) -> NDArray[np.float64] | None:
    """:func:`_row` of a pose in a common form, on Python floats; None for anything else.

    Plain tuples of floats (see :func:`~collideworld.poses.plain_position`)
    are read without numpy's validation round trip (about 20 µs a pose);
    the numbers are the ones :func:`_row` stores (the quaternion normalised
    with :func:`check_quaternion`'s arithmetic). Anything else, bad input
    included, gives None, and :func:`_row` checks it and raises its errors.
    """
    values = _fast_values(shape, pose)
    return None if values is None else np.array(values)


_IDENTITY_VALUES = (0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0)


def _fast_values(shape: Shape, pose: Any) -> tuple[float, ...] | None:
    """:func:`_fast_row`'s eight numbers as a tuple of Python floats (the same values), or None."""
    if shape.is_infinite:
        return _IDENTITY_VALUES if pose is None else None
    d = shape.dim
    f = plain_float_pose(pose, d)
    if f is not None:
        if d == 2:
            x, y, turn = f
            return (x, y, 0.0, 1.0, 0.0, 0.0, 0.0, turn)
        x, y, z, w, qx, qy, qz = f
        return (x, y, z, w, qx, qy, qz, 0.0)
    xy = plain_position(pose, d)
    rot: Any = None
    if xy is None:
        if type(pose) is not tuple or len(pose) != 2:
            return None
        xy = plain_position(pose[0], d)
        if xy is None:
            return None
        rot = pose[1]
    if d == 2:
        if rot is None:
            return (xy[0], xy[1], 0.0, 1.0, 0.0, 0.0, 0.0, 0.0)
        t = type(rot)
        if not (t is float or t is _NP_FLOAT64 or (t is int and abs(rot) < 2 ** 53)) or not math.isfinite(rot):
            return None
        return (xy[0], xy[1], 0.0, 1.0, 0.0, 0.0, 0.0, float(rot))
    if rot is None:
        return (xy[0], xy[1], xy[2], 1.0, 0.0, 0.0, 0.0, 0.0)
    q = plain_unit_quaternion(rot)
    if q is None:
        return None
    return (xy[0], xy[1], xy[2], q[0], q[1], q[2], q[3], 0.0)


_NP_FLOAT64 = np.float64


def _checked_row(shape: Shape, pose: Any, which: str) -> NDArray[np.float64]:
    """The kernel row of a pose: the fast read when it applies, else :func:`_row` (which raises on bad input)."""
    row = _fast_row(shape, pose)
    return _row(shape, pose, which) if row is None else row


def _pose_from_row(shape: Shape, row: NDArray[np.float64]) -> Any:
    """A kernel row as a pose of plain floats: collide() reads it on its fast path (the same numbers as arrays)."""
    if shape.is_infinite:
        return None
    r = row.tolist()
    if shape.dim == 2:
        return (r[0], r[1]), r[7]
    return (r[0], r[1], r[2]), (r[3], r[4], r[5], r[6])


def _check_shapes(shape_a: Any, shape_b: Any) -> None:
    for name, s in (("shape_a", shape_a), ("shape_b", shape_b)):
        if not isinstance(s, SHAPE_TYPES):
            raise UnsupportedPairError(f"{name} must be a collideworld shape, got {s!r}")
    if shape_a.dim != shape_b.dim:
        raise UnsupportedPairError(
            f"cannot pair a {shape_a.dim}D {shape_a.kind} with a {shape_b.dim}D {shape_b.kind}")


class _Work:
    """Scratch arrays for one scalar query."""

    def __init__(self, n_verts: int):
        self.world = np.zeros((n_verts, 3))
        self.ws = np.zeros((16, 4))
        self.out = np.zeros(11)
        self.tmp = np.zeros(11)
        self.pose = np.zeros(8)
        self.rot = np.zeros((3, 3))


# -- distance ------------------------------------------------------------------------

def _check_max_distance(max_distance: Any) -> float:
    if isinstance(max_distance, (bool, np.bool_)) or not isinstance(
            max_distance, (int, float, np.integer, np.floating)):
        raise InvalidArgumentError(f"max_distance must be a number >= 0 (or inf), got {max_distance!r}")
    md = float(max_distance)
    if not md >= 0.0:  # also refuses NaN
        raise InvalidArgumentError(f"max_distance must be >= 0 (or inf), got {max_distance!r}")
    return md


def _planes_distance(shape_a: HalfPlane | Plane, shape_b: HalfPlane | Plane, md: float) -> DistanceResult | None:
    na = np.array(shape_a.normal)
    nb = np.array(shape_b.normal)
    pa = shape_a.offset * na  # the point of a's boundary nearest the origin
    c = collide(shape_a, None, shape_b, None)
    if c is None:
        # only opposite normals can keep two half-spaces apart: a slab of width gap
        gap = -shape_b.offset - shape_a.offset
        if gap > md:
            return None
        return DistanceResult(gap, pa, pa + gap * na, na.copy())
    d = -c.depth
    if math.isfinite(d):
        return DistanceResult(d, pa, pa + d * c.normal, c.normal)
    # crossing boundaries: the point of both nearest the origin (least squares)
    both = np.linalg.lstsq(np.stack([na, nb]), np.array([shape_a.offset, shape_b.offset]), rcond=None)[0]
    return DistanceResult(d, both, both.copy(), c.normal)


#: per pair of shapes (by identity): (the shapes, their pack, reach of a, reach of b, a plane's offset scale)
_PAIR_PACKS: dict[tuple[int, int], tuple[Any, ...]] = {}


def _pair_pack(shape_a: Shape, shape_b: Shape) -> tuple[_Packed, float, float, float]:
    """:func:`_pack` of two shapes with its scalars as Python floats, cached by the shapes' identity.

    Shapes are immutable and validated when built, so their packed form is
    computed once; the entry holds the shapes, so their ids stay theirs.
    """
    entry = _PAIR_PACKS.get((id(shape_a), id(shape_b)))
    if entry is not None and entry[0] is shape_a and entry[1] is shape_b:
        return entry[2]  # type: ignore[no-any-return]
    p = _pack((shape_a, shape_b))
    plane_scale = max(abs(float(p.prad[0])) if p.pplane[0] == 1 else 0.0,
                      abs(float(p.prad[-1])) if p.pplane[-1] == 1 else 0.0)
    value = (p, float(p.reach[0]), float(p.reach[1]), plane_scale)
    if len(_PAIR_PACKS) >= 256:
        _PAIR_PACKS.clear()
    _PAIR_PACKS[(id(shape_a), id(shape_b))] = (shape_a, shape_b, value)
    return value


def _deepest_points(p: _Packed, work: _Work, normal: NDArray[np.float64], depth: float, scale: float,
                    pieces: tuple[int, int]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Deepest points (on a, on b) of an overlap of ``depth`` along ``normal``; both shapes in ``work.world``.

    Moving b by ``depth * normal`` makes the pieces just touch (that is what
    the minimum translation distance means), at a point ``q`` where a's
    extreme feature along the normal meets b's moved extreme feature along
    minus the normal. Then ``point_a = q`` and ``point_b = q - depth * normal``:
    on their shapes, and exactly ``depth`` apart along the normal. ``q`` is
    found by GJK between the two features' vertices, which meet (their
    closest points when rounding keeps them a hair apart). ``pieces`` are
    the (0-based) pieces of a and b that give collide's answer.
    """
    d = len(normal)
    if p.pplane[p.sfirst[0]] == 1 or p.pplane[p.sfirst[1]] == 1:
        # against a half-space, shape_distance's closed form already gives the deepest vertex and its foot
        return work.out[0:d].copy(), work.out[3:3 + d].copy()
    n = normal.tolist()
    nx, ny, nz = n[0], n[1], (n[2] if d == 3 else 0.0)
    slack = 1e-9 * max(1.0, scale)
    ia, ib = int(p.sfirst[0]) + pieces[0], int(p.sfirst[1]) + pieces[1]
    fa = _feature_points(p, work.world, ia, nx, ny, nz, slack, 0.0)
    fb = _feature_points(p, work.world, ib, -nx, -ny, -nz, slack, depth)
    _kernel(gjk, "gjk_closest")(np.array(fa + fb), 0, len(fa), len(fa), len(fb), work.ws, work.tmp)
    q = work.tmp.tolist()
    if d == 2:
        return np.array(q[0:2]), np.array([q[3] - depth * nx, q[4] - depth * ny])
    return np.array(q[0:3]), np.array([q[3] - depth * nx, q[4] - depth * ny, q[5] - depth * nz])


def _feature_points(p: _Packed, world: NDArray[np.float64], piece: int, nx: float, ny: float, nz: float,
                    slack: float, shift: float) -> list[list[float]]:
    """The points of a piece's extreme feature (radius included) along ``(nx, ny, nz)``, moved by ``-shift`` times
    that direction, on Python floats: a box or polygon has at most a few vertices, for which numpy's small-array
    calls cost several times the arithmetic (the same products and sums, element by element)."""
    first = int(p.pfirst[piece])
    verts = world[first:first + int(p.pcount[piece])].tolist()
    heights = [x * nx + y * ny + z * nz for x, y, z in verts]
    floor = max(heights) - slack
    r = float(p.prad[piece])
    # (v + r * n) - shift * n: b's feature, turned back along the normal of a, moved by the depth
    return [[(x + r * nx) - shift * nx, (y + r * ny) - shift * ny, (z + r * nz) - shift * nz]
            for (x, y, z), h in zip(verts, heights, strict=True) if h >= floor]


@functools.lru_cache(maxsize=1024)
def _piece_shapes(shape: Shape) -> tuple[Shape, ...]:
    """The convex pieces of a shape as shapes of their own (the shape itself unless a concave polygon)."""
    if isinstance(shape, Polygon) and not shape.is_convex:
        return tuple(Polygon(tuple(map(tuple, part.tolist()))) for part in shape.parts)
    if isinstance(shape, (TriangleMesh, HeightField)):
        # each triangle as a one-triangle mesh (its triangle index is its piece index)
        return tuple(TriangleMesh(shape.vertices[t], np.arange(3)[None]) for t in shape.triangles)
    if isinstance(shape, Compound):
        # each piece of each part, as a one-part compound keeping the part's local pose
        return tuple(Compound([(piece, local_pos, local_rot)])
                     for part, local_pos, local_rot in shape.parts for piece in _piece_shapes(part))
    return (shape,)


def _deepest_pieces(shape_a: Shape, pose_a: Any, shape_b: Shape, pose_b: Any) -> tuple[int, int]:
    """The piece pair with the deepest contact: the one collide() answers with for a concave polygon."""
    best = (-math.inf, 0, 0)
    for i, sa in enumerate(_piece_shapes(shape_a)):
        for j, sb in enumerate(_piece_shapes(shape_b)):
            c = collide(sa, pose_a, sb, pose_b)
            if c is not None and c.depth > best[0]:
                best = (c.depth, i, j)
    return best[1], best[2]


def distance(shape_a: Shape, pose_a: Any, shape_b: Shape, pose_b: Any,
             max_distance: float = math.inf) -> DistanceResult | None:
    """Signed distance, closest (or deepest) points and normal of two posed shapes.

    Parameters
    ----------
    shape_a, shape_b : Shape
        Any two shapes of the same dimension, concave polygons and
        half-planes/planes included.
    pose_a, pose_b : tuple or None
        As for :func:`~collideworld.collide`: ``(position, angle)`` in 2D,
        ``(position, quaternion)`` in 3D, ``None`` for a half-plane or plane.
    max_distance : float, optional
        ``>= 0``; shapes farther apart than this give ``None`` (cheaper when
        only near shapes matter).

    Returns
    -------
    DistanceResult or None
        ``distance`` is the gap when apart (for a concave polygon, the
        smallest over its convex pieces), 0 when touching, and
        ``-collide(...).depth`` when overlapping, with collide's normal.

    Raises
    ------
    UnsupportedPairError
        Not shapes, or of different dimensions.
    InvalidPoseError
        A pose that collide() would refuse (NaN, wrong length, a pose for a plane).
    InvalidArgumentError
        ``max_distance`` negative or NaN.

    Examples
    --------
    A unit circle 3 to the right of a box of half extents (1, 1):

    >>> from collideworld import Box, Circle, distance
    >>> r = distance(Box((1, 1)), ((0, 0), 0.0), Circle(1.0), ((4, 0), 0.0))
    >>> r.distance, r.point_a.tolist(), r.point_b.tolist(), r.normal.tolist()
    (2.0, [1.0, 0.0], [3.0, 0.0], [1.0, 0.0])

    Overlapping by 0.5, it is minus the depth collide() reports:

    >>> distance(Box((1, 1)), ((0, 0), 0.0), Circle(1.0), ((1.5, 0), 0.0)).distance
    -0.5
    >>> distance(Box((1, 1)), ((0, 0), 0.0), Circle(1.0), ((4, 0), 0.0), max_distance=1.0) is None
    True
    """
    entry = _PAIR_PACKS.get((id(shape_a), id(shape_b)))
    if entry is not None and entry[0] is shape_a and entry[1] is shape_b:
        # The checked-shape fast path: a pair already packed passed the shape checks (shapes are
        # immutable); poses in a common form are read on Python floats; one compiled call measures.
        va, vb = _fast_values(shape_a, pose_a), _fast_values(shape_b, pose_b)
        if va is not None and vb is not None:
            md = math.inf if max_distance is _INF else _check_max_distance(max_distance)
            p, reach_a, reach_b, plane_scale = entry[2]
            dim = shape_a.dim
            measured = _packed_call(gjk, "distance_measure", p, p.verts, p.pfirst, p.pcount, p.prad, p.pplane,
                                    p.svfirst, p.svcount, p.sfirst, p.scount, va, vb, dim, reach_a, reach_b,
                                    plane_scale)
            if measured[0]:  # apart, the gap confirmed by the witness points
                gap, out = measured[1], measured[2]
                return None if gap > md else DistanceResult(gap, out[0:dim], out[3:3 + dim], out[6:6 + dim])
            return _distance_checked(shape_a, pose_a, shape_b, pose_b, (np.array(va), np.array(vb)), md,
                                     measured[1:])
    else:
        _check_shapes(shape_a, shape_b)
    md = math.inf if max_distance is _INF else _check_max_distance(max_distance)
    rows = (_checked_row(shape_a, pose_a, "a"), _checked_row(shape_b, pose_b, "b"))
    return _distance_checked(shape_a, pose_a, shape_b, pose_b, rows, md)


_INF = math.inf  # distance()'s default max_distance, recognised by identity


def _distance_checked(shape_a: Shape, pose_a: Any, shape_b: Shape, pose_b: Any,
                      rows: tuple[NDArray[np.float64], NDArray[np.float64]], md: float,
                      measured: tuple[float, NDArray[np.float64], NDArray[np.float64]] | None = None
                      ) -> DistanceResult | None:
    """:func:`distance` after validation (``rows``: the poses as kernel rows).

    ``measured``: ``(gap, out, world)`` of ``posed_distance`` at these rows when the caller
    already has them (time_of_impact's kernel measures the touch in the same call).
    """
    if shape_a.is_infinite and shape_b.is_infinite:  # (half-planes and planes, the only infinite kinds)
        return _planes_distance(shape_a, shape_b, md)  # type: ignore[arg-type]
    dim = shape_a.dim
    p, reach_a, reach_b, plane_scale = _pair_pack(shape_a, shape_b)
    if measured is None:
        # one compiled call with its own scratch: five numpy allocations here cost more than the kernel
        _, g, out, world = _kernel(gjk, "distance_measure")(p.verts, p.pfirst, p.pcount, p.prad, p.pplane,
                                                             p.svfirst, p.svcount, p.sfirst, p.scount,
                                                             tuple(rows[0].tolist()), tuple(rows[1].tolist()), dim,
                                                             reach_a, reach_b, plane_scale)
    else:
        g, out, world = measured
    gap = float(g)
    ra, rb = rows[0].tolist(), rows[1].tolist()
    # the scale on Python floats: the same maxima as numpy's, the same sums
    scale = max(max(abs(ra[0]), abs(ra[1]), abs(ra[2])) + reach_a, max(abs(rb[0]), abs(rb[1]), abs(rb[2])) + reach_b,
                plane_scale)
    tol = REL_TOUCH_TOL * abs(scale)  # touch_tolerance on a Python float (the same product)
    # views of the call's own fresh out array (nothing else holds it): the values the copies had
    pa = out[0:dim]
    pb = out[3:3 + dim]
    normal = out[6:6 + dim]
    if gap > tol:
        # The gap must agree with GJK's own witness points, which lie on the shapes: a gap
        # they undercut came from a face normal that was rounding noise (then trust the
        # points; if they touch, collide() below decides, as for any touching pair).
        # A Python estimate of the witness gap screens out the usual case; the numpy
        # arithmetic decides (and gives the bits) whenever the estimate is not clearly above.
        o = out.tolist()
        e2 = (o[3] - o[0]) ** 2 + (o[4] - o[1]) ** 2
        e = math.sqrt(e2 + (o[5] - o[2]) ** 2 if dim == 3 else e2)
        if not e >= gap:
            span = pb - pa
            wgap = float(np.sqrt(span @ span))
            if wgap < gap - tol:
                gap = wgap
                if wgap > 0.0:
                    normal = span / wgap
    if gap > tol:
        return None if gap > md else DistanceResult(gap, pa, pb, normal)
    c = collide(shape_a, pose_a, shape_b, pose_b)
    if c is None:
        # GJK calls it touching, SAT a hair apart: both within rounding; keep GJK's gap
        return DistanceResult(max(gap, 0.0), pa, pb, normal)
    if c.depth == 0.0:
        if not np.any(normal):
            pa = pb = 0.5 * (pa + pb)
        return DistanceResult(0.0, pa, pb, c.normal)
    pieces = (0, 0)
    if len(p.pfirst) > 2:  # a concave polygon: find the piece pair behind collide's answer
        pieces = _deepest_pieces(shape_a, pose_a, shape_b, pose_b)
    work = _Work(0)
    work.world, work.out = world, out  # the measurement's own arrays
    pa, pb = _deepest_points(p, work, c.normal, c.depth, scale, pieces)
    return DistanceResult(-c.depth, pa, pb, c.normal)


# -- time of impact ----------------------------------------------------------------------

def _motion_rows(shape: Shape, start: Any, end: Any, which: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    if shape.is_infinite and (start is not None or end is not None):
        raise InvalidPoseError(f"a {shape.kind} cannot be the moving shape: it has no pose; pass start_{which}=None "
                               f"and end_{which}=None, got {start!r} and {end!r}")
    return _checked_row(shape, start, f"{which} (start)"), _checked_row(shape, end, f"{which} (end)")


def time_of_impact(shape_a: Shape, start_a: Any, end_a: Any, shape_b: Shape, start_b: Any,
                   end_b: Any) -> ImpactResult | None:
    """First time two shapes touch while moving from their start to their end poses.

    Motion: positions move linearly; a 2D angle moves linearly from start
    to end as given (an end angle of 6 turns almost a full circle); a 3D
    rotation moves along the shortest arc at constant speed (slerp).
    Conservative advancement never steps past a touch, however thin the
    shapes or fast the motion; the time is exact to 1e-9 (tested; usually
    far better) and never later than the first touch by more than that. A
    gap under 1e-12 of the motion's extent (the farthest any point moves
    relative to the other shape) counts as touching. Every time reported is
    one at which the shapes were found touching; a near miss that would take
    more than ``MAX_ADVANCE_STEPS`` (100,000)
    steps to rule out (a shape grazing another for very many turns) raises
    ``collideworld.errors.UndecidedError`` instead of guessing.

    Parameters
    ----------
    shape_a, shape_b : Shape
        Of the same dimension. A half-plane or plane has no pose: it can
        only be a static side, with ``None`` for both its poses.
    start_a, end_a, start_b, end_b : tuple or None
        Poses as for :func:`~collideworld.collide`. A zero-length motion is fine.

    Returns
    -------
    ImpactResult or None
        None when the shapes never touch during the motion.

    Raises
    ------
    UnsupportedPairError
        Not shapes, or of different dimensions.
    InvalidPoseError
        A bad pose, or a pose given for a half-plane or plane.
    UndecidedError
        Conservative advancement ran out of steps before it found a touch
        or ruled one out (split the motion into shorter ones).

    Examples
    --------
    A bullet (radius 0.01) crossing 200 units in one step still hits a wall
    0.02 thick at x = 100, when its front reaches x = 99.99:

    >>> from collideworld import Box, Circle, time_of_impact
    >>> wall = ((100, 0), 0.0)
    >>> r = time_of_impact(Circle(0.01), ((0, 0), 0.0), ((200, 0), 0.0), Box((0.01, 5)), wall, wall)
    >>> round(r.t, 12), r.normal.tolist()
    (0.4999, [1.0, 0.0])

    A stick of half length 2 spun half a turn about its centre sweeps a
    circle at distance 1.5 off its initial line:

    >>> stick, ball = Box((2, 0.05)), Circle(0.25)
    >>> here = ((0, 1.5), 0.0)
    >>> time_of_impact(stick, ((0, 0), 0.0), ((0, 0), 3.1), ball, here, here) is not None
    True
    >>> time_of_impact(stick, ((0, 0), 0.0), ((0, 0), 0.5), ball, here, here) is None
    True
    """
    entry = _PAIR_PACKS.get((id(shape_a), id(shape_b)))
    rows: tuple[Any, ...] | None = None
    if entry is None or entry[0] is not shape_a or entry[1] is not shape_b:
        _check_shapes(shape_a, shape_b)  # (a pair already packed passed them)
    elif not shape_a.is_infinite:
        # the checked-shape fast path: poses in a common form read on Python floats (anything else,
        # bad input included, takes the checked reads below and their errors)
        rows = (_fast_values(shape_a, start_a), _fast_values(shape_a, end_a), _fast_values(shape_b, start_b),
                _fast_values(shape_b, end_b))
        if None in rows:
            rows = None
    if rows is None:
        a0, a1 = _motion_rows(shape_a, start_a, end_a, "a")
        b0, b1 = _motion_rows(shape_b, start_b, end_b, "b")
        if shape_a.is_infinite and shape_b.is_infinite:
            r = _planes_distance(shape_a, shape_b, math.inf)  # type: ignore[arg-type]
            if r is None or r.distance > 0.0:
                return None
            return ImpactResult(0.0, r.normal, 0.5 * (r.point_a + r.point_b))
        if shape_a.is_infinite:  # the kernel wants the static plane second; swap and flip back
            r2 = time_of_impact(shape_b, start_b, end_b, shape_a, start_a, end_a)
            return None if r2 is None else ImpactResult(r2.t, -r2.normal + 0.0, r2.point)
        rows = (tuple(a0.tolist()), tuple(a1.tolist()), tuple(b0.tolist()), tuple(b1.tolist()))
    # the identity-keyed pack (hashing two dataclass shapes for _pack's cache costs more than the kernel);
    # a is no plane here, so plane_scale is b's plane term alone, and max(reach_a, reach_b) reach.max()
    p, reach_a, reach_b, plane_scale = _pair_pack(shape_a, shape_b)
    dim = shape_a.dim
    # conservative advancement (at the touching tolerance of the poses' magnitude, computed in the kernel)
    # and impact_at's measurement at the touch, in one compiled call
    t_, gap, out, world, pose_a, pose_b = _packed_call(toi, "toi_impact", p, p.verts, p.pfirst, p.pcount, p.prad,
                                                       p.pplane, p.svfirst, p.svcount, p.sfirst, p.scount, p.reach,
                                                       *rows, dim, max(reach_a, reach_b) + plane_scale)
    t = float(t_)
    if t == toi.UNDECIDED:
        raise UndecidedError(f"time_of_impact could not decide within {toi.MAX_ADVANCE_STEPS} conservative-"
                             f"advancement steps whether the {shape_a.kind} and the {shape_b.kind} touch "
                             f"(a near miss over very many turns?): split the motion into shorter ones")
    if t < 0.0:
        return None
    # the rest of impact_at, on the kernel's poses and measurement
    t = min(t, 1.0)
    r = _distance_checked(shape_a, _pose_from_row(shape_a, pose_a), shape_b, _pose_from_row(shape_b, pose_b),
                          (pose_a, pose_b), math.inf, (gap, out, world))
    assert r is not None  # no max_distance given
    # the midpoint on Python floats: numpy's 0.5 * (a + b), element by element (the same roundings)
    mid = [0.5 * (x + y) for x, y in zip(r.point_a.tolist(), r.point_b.tolist(), strict=True)]
    return ImpactResult(t, r.normal, np.array(mid))


def impact_at(shape_a: Shape, a0: NDArray[np.float64], a1: NDArray[np.float64], shape_b: Shape,
              b0: NDArray[np.float64], b1: NDArray[np.float64], t: float) -> ImpactResult:
    """The :class:`ImpactResult` of a first touch at time ``t`` (>= 0) found for motions given as kernel rows.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle
    >>> a0, a1 = np.array([0.0, 0, 0, 1, 0, 0, 0, 0]), np.array([10.0, 0, 0, 1, 0, 0, 0, 0])
    >>> b = np.array([5.0, 0, 0, 1, 0, 0, 0, 0])
    >>> r = impact_at(Circle(1.0), a0, a1, Circle(1.0), b, b, 0.3)
    >>> r.normal.tolist(), r.point.round(12).tolist()
    ([1.0, 0.0], [4.0, 0.0])
    """
    dim = shape_a.dim
    t = min(t, 1.0)
    pose_a = np.zeros(8)
    pose_b = np.zeros(8)
    _kernel(gjk, "pose_at")(a0, a1, t, dim, pose_a)
    _kernel(gjk, "pose_at")(b0, b1, t, dim, pose_b)
    r = _distance_checked(shape_a, _pose_from_row(shape_a, pose_a), shape_b, _pose_from_row(shape_b, pose_b),
                          (pose_a, pose_b), math.inf)
    assert r is not None  # no max_distance given
    return ImpactResult(t, r.normal, 0.5 * (r.point_a + r.point_b))


# -- batched trajectory check ---------------------------------------------------------

def _pose_rows(value: Any, dim: int, what: str, lead: tuple[int, ...] | None) -> NDArray[np.float64]:
    """(..., 3) or (..., 7) poses as validated kernel rows (..., 8)."""
    width = 3 if dim == 2 else 7
    layout = "[x, y, angle]" if dim == 2 else "[x, y, z, w, qx, qy, qz]"
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidPoseError(f"{what} must be an array of {layout} rows, got {value!r}") from None
    if arr.ndim < 1 or arr.shape[-1] != width or (lead is not None and arr.shape[:-1] != lead):
        want = f"({', '.join(map(str, lead))}, {width})" if lead is not None else f"(..., {width})"
        raise InvalidPoseError(f"{what} must have shape {want} ({layout} per row), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise InvalidPoseError(f"{what} must be finite; found {float(arr[bad])!r} at index {bad}")
    if arr.size and float(np.abs(arr[..., :dim]).max()) > MAX_COORDINATE:
        raise InvalidPoseError(f"{what} positions must be at most {MAX_COORDINATE:g} in magnitude")
    rows = np.zeros(arr.shape[:-1] + (8,))
    rows[..., :dim] = arr[..., :dim]
    if dim == 2:
        rows[..., 3] = 1.0
        rows[..., 7] = arr[..., 2]
    else:
        flat = arr[..., 3:].reshape(-1, 4)
        rows[..., 3:7] = check_quaternions(flat, len(flat), f"{what} quaternions").reshape(arr.shape[:-1] + (4,))
    return rows


def check_trajectory(shape: Shape, poses: Any, obstacle_shapes: Any, obstacle_poses: Any,
                     continuous: bool = False) -> TrajectoryResult:
    """First touch and per-step clearance of one shape along a trajectory among obstacles.

    All loops (steps, obstacles, pieces) run inside compiled code; obstacles
    whose bounding balls are farther than the best gap found are skipped
    without exact tests.

    Parameters
    ----------
    shape : Shape
        The moving shape (not a half-plane or plane).
    poses : array_like, shape (T, 3) in 2D or (T, 7) in 3D
        Rows ``[x, y, angle]`` (2D) or ``[x, y, z, w, qx, qy, qz]`` (3D, unit quaternion).
    obstacle_shapes : sequence of Shape, length M
        Same dimension as ``shape``; half-planes/planes allowed (their pose rows are ignored).
    obstacle_poses : array_like, shape (T, M, 3 or 7), or (M, 3 or 7) for static obstacles
        Each obstacle's pose at each step, rows as for ``poses``.
    continuous : bool, optional
        Also check the motion between consecutive steps (positions linear, a
        2D angle linear, a 3D rotation along the shortest arc), as
        :func:`time_of_impact` does; a touch between steps ``k`` and
        ``k + 1`` is reported as ``step = k`` with ``0 <= t < 1``. Raises
        ``collideworld.errors.UndecidedError`` where
        :func:`time_of_impact` would.

    Returns
    -------
    TrajectoryResult
        ``step``, ``t``, ``obstacle`` of the first touch (-1, NaN, -1 if
        none), ``clearance`` (T,) and ``nearest`` (T,).

    Raises
    ------
    UnsupportedPairError
        A shape that is not a collideworld shape, a plane as the moving
        shape, or mixed dimensions.
    InvalidPoseError
        Poses of the wrong shape, NaN/inf, or a non-unit quaternion.

    Examples
    --------
    A car (a 2 x 1 box) driving along x at 1 unit per step towards a parked
    box at x = 6 first touches it at step 4 (x = 4, front at 5); checked
    continuously at 1.5 units per step, it touches two thirds of the way from
    step 2 (x = 3) to step 3:

    >>> import numpy as np
    >>> from collideworld import Box, check_trajectory
    >>> car, parked = Box((1, 0.5)), [Box((1, 1))]
    >>> steps = np.zeros((8, 3)); steps[:, 0] = np.arange(8)
    >>> r = check_trajectory(car, steps, parked, [[6.0, 0.0, 0.0]])
    >>> r.step, r.obstacle, r.clearance[:5].tolist()
    (4, 0, [4.0, 3.0, 2.0, 1.0, 0.0])
    >>> r = check_trajectory(car, steps * 1.5, parked, [[6.0, 0.0, 0.0]], continuous=True)
    >>> r.step, round(r.t, 9)
    (2, 0.666666667)
    """
    if not isinstance(shape, SHAPE_TYPES):
        raise UnsupportedPairError(f"shape must be a collideworld shape, got {shape!r}")
    if shape.is_infinite:
        raise UnsupportedPairError(f"a {shape.kind} cannot be the moving shape: it has no pose")
    try:
        obstacles = tuple(obstacle_shapes)
    except TypeError:
        raise UnsupportedPairError(f"obstacle_shapes must be a sequence of shapes, got {obstacle_shapes!r}") from None
    for j, o in enumerate(obstacles):
        if not isinstance(o, SHAPE_TYPES):
            raise UnsupportedPairError(f"obstacle_shapes[{j}] must be a collideworld shape, got {o!r}")
        if o.dim != shape.dim:
            raise UnsupportedPairError(f"obstacle_shapes[{j}] is a {o.dim}D {o.kind}, but shape is {shape.dim}D")
    dim = shape.dim
    rows = _pose_rows(poses, dim, "poses", None)
    if rows.ndim != 2 or len(rows) == 0:
        raise InvalidPoseError(f"poses must have shape (T, {3 if dim == 2 else 7}) with T >= 1, "
                               f"got shape {np.shape(poses)}")
    n_steps, m = len(rows), len(obstacles)
    arr = np.asarray(obstacle_poses, dtype=np.float64) if m else np.zeros((n_steps, 0, 3 if dim == 2 else 7))
    lead = (m,) if arr.ndim == 2 else (n_steps, m)
    orows = _pose_rows(arr, dim, "obstacle_poses", lead)
    if orows.ndim == 2:  # static obstacles
        orows = np.broadcast_to(orows, (n_steps, m, 8))
    planes = [j for j, o in enumerate(obstacles) if o.is_infinite]
    if planes:
        orows = orows.copy()
        orows[:, planes] = _IDENTITY
    p = _pack((shape, *obstacles))
    clearance = np.full(n_steps, np.inf)
    nearest = np.full(n_steps, -1, dtype=np.int64)
    step, t, hit = toi.trajectory_kernel(p.verts, p.pfirst, p.pcount, p.prad, p.pplane, p.svfirst, p.svcount,
                                         p.sfirst, p.scount, p.reach, np.ascontiguousarray(rows),
                                         np.ascontiguousarray(orows), dim, bool(continuous), clearance, nearest)
    if t == toi.UNDECIDED:
        raise UndecidedError(f"check_trajectory could not decide within {toi.MAX_ADVANCE_STEPS} conservative-"
                             f"advancement steps whether the motion from step {step} to step {step + 1} touches "
                             f"obstacle {hit} (a near miss over very many turns?): add steps in between")
    return TrajectoryResult(int(step), float(t), int(hit), clearance, nearest)


# -- many pairs at once -------------------------------------------------------------------

class DistanceArrays(NamedTuple):
    """:func:`distance_many`'s answer: row ``k`` is what :func:`distance` gives for pair ``k``.

    Attributes
    ----------
    distance : ndarray of float64, shape (N,)
        Signed distance (``-depth`` when overlapping); ``inf`` for a pair
        farther than ``max_distance`` (where :func:`distance` gives None).
    point_a, point_b : ndarray of float64, shape (N, D)
        The closest (or deepest) points on a and on b; NaN where ``distance`` is ``inf``.
    normal : ndarray of float64, shape (N, D)
        Unit vector from a towards b; NaN where ``distance`` is ``inf``.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle, distance_many
    >>> r = distance_many(Circle(1.0), np.zeros((2, 2)), Circle(1.0), [[3.0, 4.0], [9.0, 0.0]], max_distance=5.0)
    >>> r.distance.tolist(), r.point_b[0].tolist(), np.isnan(r.normal[1]).all()
    ([3.0, inf], [2.4, 3.2], np.True_)
    """

    distance: NDArray[np.float64]
    point_a: NDArray[np.float64]
    point_b: NDArray[np.float64]
    normal: NDArray[np.float64]


class ImpactArrays(NamedTuple):
    """:func:`time_of_impact_many`'s answer: row ``k`` is what :func:`time_of_impact` gives for pair ``k``.

    Attributes
    ----------
    hit : ndarray of bool, shape (N,)
        Whether the pair touches during its motion (:func:`time_of_impact` not None).
    t : ndarray of float64, shape (N,)
        The time of first touch in [0, 1]; ``inf`` where not ``hit``.
    normal, point : ndarray of float64, shape (N, D)
        Contact normal (a towards b) and point at that time; NaN where not ``hit``.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Box, Circle, time_of_impact_many
    >>> wall = np.array([[5.0, 0.0], [5.0, 0.0]])
    >>> r = time_of_impact_many(Circle(1.0), np.zeros((2, 2)), [[8.0, 0.0], [0.0, 8.0]], Box((1, 3)), wall, wall)
    >>> r.hit.tolist(), r.t.tolist(), r.point[0].tolist()
    ([True, False], [0.375, inf], [4.0, 0.0])
    """

    hit: NDArray[np.bool_]
    t: NDArray[np.float64]
    normal: NDArray[np.float64]
    point: NDArray[np.float64]


def _array_pack(shapes: ShapeArray) -> _Packed:
    """The packed table of a :class:`ShapeArray`'s rows, as :func:`_pieces` packs each shape (vectorised)."""
    n, dim = len(shapes), shapes.dim
    if shapes.kind == "box":
        he = shapes.params
        # _pieces' corner order: the signs of a meshgrid in "ij" order
        signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * dim, indexing="ij")).reshape(dim, -1).T
        nc = len(signs)
        verts = np.zeros((n, nc, 3))
        verts[:, :, :dim] = signs[None] * he[:, None, :]
        sq = he[:, 0] * he[:, 0] + he[:, 1] * he[:, 1]  # Box.bounding_radius: squares summed left to right
        if dim == 3:
            sq = sq + he[:, 2] * he[:, 2]
        radius, reach = np.zeros(n), np.sqrt(sq)
    else:
        nc = 1
        verts = np.zeros((n, 1, 3))
        radius = reach = np.array(shapes.params, dtype=np.float64)
    first = np.arange(n, dtype=np.int64)
    count = np.full(n, nc, dtype=np.int64)
    ones = np.ones(n, dtype=np.int64)
    return _frozen(_Packed(verts.reshape(n * nc, 3), first * nc, count, radius, np.zeros(n, dtype=np.int64),
                           first * nc, count, first, ones, reach))


def _side_table(side: Any, n: int) -> tuple[_Packed, NDArray[np.int64], NDArray[np.bool_], Any]:
    """(packed table, table entry of each of the n rows, whether each row is a half-space, the entries: the
    ShapeArray or the distinct shapes) of one side."""
    if isinstance(side, ShapeArray):
        return _array_pack(side), np.arange(n, dtype=np.int64), np.zeros(n, dtype=bool), side
    distinct: dict[int, int] = {}
    shapes: list[Shape] = []
    for sh in side:  # once per shape object: the lists' conversion, as collide_many's
        if id(sh) not in distinct:
            distinct[id(sh)] = len(shapes)
            shapes.append(sh)
    idx = np.zeros(n, dtype=np.int64) if len(side) == 1 else np.array([distinct[id(sh)] for sh in side],
                                                                     dtype=np.int64)
    infinite = np.array([sh.is_infinite for sh in shapes], dtype=bool)
    return _pack.__wrapped__(tuple(shapes)), idx, infinite[idx], shapes


def _batch(shapes_a: Any, shapes_b: Any, poses: list[tuple[str, Any, str]], backend: str) -> tuple[Any, ...]:
    """The checked batch: (sides, N, D, packed table, entries of a, of b, a's and b's half-space rows, pose rows
    (N, 8) per pose argument, backend, each side's distinct entries); the rows of a half-space are the identity
    (its poses are ignored)."""
    side_a, side_b, n, dim = pair_sides(shapes_a, shapes_b, poses[0][1])
    # a side of half-spaces only may pass None for its poses, as the scalar calls take them
    planes_only = {which: not isinstance(x, ShapeArray) and all(sh.is_infinite for sh in x)
                   for which, x in (("a", side_a), ("b", side_b))}
    checked = [pose_arrays(np.zeros((n, dim)) if value is None and planes_only[side] else value, n, dim, name)
               for name, value, side in poses]
    resolved = resolve_backend(backend)
    table_a, idx_a, inf_a, entries_a = _side_table(side_a, n)
    table_b, idx_b, inf_b, entries_b = _side_table(side_b, n)
    packed = _joined(table_a, table_b)
    idx_b = idx_b + len(table_a.sfirst)
    rows = []
    for (pos, ang, quat), (_, _, side) in zip(checked, poses, strict=True):
        r = np.zeros((n, 8))
        r[:, :dim] = pos
        r[:, 3] = 1.0
        if ang is not None:
            r[:, 7] = ang
        if quat is not None:
            r[:, 3:7] = quat
        r[inf_a if side == "a" else inf_b] = _IDENTITY
        rows.append(r)
    return side_a, side_b, n, dim, packed, idx_a, idx_b, inf_a, inf_b, rows, resolved, (entries_a, entries_b)


def _batch_kernel(name: str, resolved: str) -> Any:
    """The pair kernel ``name``: compiled on the compiled backend (``"auto"`` resolves to it once the compiled
    kernels are ready), else its plain-Python twin."""
    if resolved == "numpy" or not gjk.COMPILED:
        return _twin(name)
    return getattr(toi, name)


def _finish_touching(p: _Packed, entries: tuple[Any, Any], idx_a: NDArray[np.int64], ra: NDArray[np.float64],
                     idx_b: NDArray[np.int64], rb: NDArray[np.float64], dim: int, gjk_out: NDArray[np.float64],
                     turned_once: bool) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    """``distance()``'s answers for pairs GJK found touching (``TOUCH`` rows), in two compiled calls: collide()'s
    contact of every pair (the one-pair loop collide() runs) and the deepest points (``deepest_pairs``).

    Returns (which rows it answered, their rows (n, 10) as ``distance_pairs`` writes them). Left for
    :func:`distance`: shapes the one-pair loop does not take (rounded, hulls, meshes, compounds), more than
    one piece (a concave polygon's deepest piece pair), half-spaces. ``turned_once``: the 3D rows' quaternions
    were normalised once already (the checked poses); else (rows at a time of impact) they are first
    normalised as collide() normalises a pose it is given.
    """
    from .geometry.compiled.contact_pair import contact_many_posed

    single = (p.scount == 1) & (p.pplane[p.sfirst] == 0)
    k = np.flatnonzero(single[idx_a] & single[idx_b])
    out = np.zeros((len(idx_a), 10))
    done = np.zeros(len(idx_a), dtype=bool)
    if not len(k):
        return done, out
    # one table row per pair and side (a's entries, then b's: b's table indices start after a's entries)
    n_a = len(entries[0])
    ok_a, tab_a = contact_table(entries[0], idx_a[k])
    ok_b, tab_b = contact_table(entries[1], idx_b[k] - n_a)
    k, keep = k[ok_a & ok_b], ok_a & ok_b
    if not len(k):
        return done, out
    kinds, n_verts, params, lx, ly = (np.concatenate([x[keep], y[keep]]) for x, y in zip(tab_a, tab_b, strict=True))
    done[k] = True
    pos_a, pos_b = np.ascontiguousarray(ra[k, :dim]), np.ascontiguousarray(rb[k, :dim])
    if dim == 2:
        rot_a, rot_b = np.ascontiguousarray(ra[k, 7:8]), np.ascontiguousarray(rb[k, 7:8])
    else:
        rot_a, rot_b = np.ascontiguousarray(ra[k, 3:7]), np.ascontiguousarray(rb[k, 3:7])
        if not turned_once:  # plain_float_pose's normalisation (squares left to right), then the kernel's
            for q in (rot_a, rot_b):
                q /= np.sqrt(q[:, 0] * q[:, 0] + q[:, 1] * q[:, 1] + q[:, 2] * q[:, 2] + q[:, 3] * q[:, 3])[:, None]
    hit, normal, depth = contact_many_posed(dim, kinds, n_verts, params, lx, ly, np.arange(2 * len(k)), pos_a,
                                            rot_a, pos_b, rot_b)
    n3 = np.zeros((len(k), 3))
    n3[:, :dim] = normal
    sub = np.zeros((len(k), 10))
    toi.deepest_pairs(p.verts, p.pfirst, p.pcount, p.prad, p.pplane, p.svfirst, p.svcount, p.sfirst, p.reach,
                      idx_a[k], np.ascontiguousarray(ra[k]), idx_b[k], np.ascontiguousarray(rb[k]), dim,
                      np.ascontiguousarray(gjk_out[k]), hit, n3, depth, sub)
    out[k] = sub
    return done, out


def _row_shape(side: Any, k: int) -> Shape:
    if isinstance(side, ShapeArray):
        return side.shape(k)
    return side[0] if len(side) == 1 else side[k]  # type: ignore[no-any-return]


def distance_many(shapes_a: Any, poses_a: Any, shapes_b: Any, poses_b: Any, max_distance: float = math.inf, *,
                  backend: str = "auto") -> DistanceArrays:
    """:func:`distance` of many pairs at once: pair ``k`` is ``shapes_a[k]`` against ``shapes_b[k]``.

    Parameters
    ----------
    shapes_a, shapes_b : Shape, sequence of Shape, or ShapeArray
        As for :func:`~collideworld.collide_many`: one shape for every pair,
        N shapes, or a ``collideworld.collide.ShapeArray`` of N rows (balls
        or boxes given by arrays of their radii or half extents).
    poses_a, poses_b : array_like or tuple
        As for :func:`~collideworld.collide_many`: positions (N, D), or
        ``(positions, angles)`` in 2D, ``(positions, quaternions)`` in 3D.
        Half-planes and planes ignore their rows' poses (None for a side
        of half-planes or planes only).
    max_distance : float, optional
        ``>= 0``; pairs farther apart get ``inf`` (where :func:`distance`
        gives None).
    backend : {"auto", "compiled", "numpy"}
        ``"numpy"`` runs the same kernel uncompiled (its plain-Python twin).

    Returns
    -------
    DistanceArrays
        ``distance`` (N,), ``point_a``, ``point_b``, ``normal`` (N, D): row
        ``k`` is :func:`distance`'s answer for pair ``k`` (the same bits).
        Every pair is measured in one compiled call; touching and
        overlapping pairs (``-depth``, collide()'s normal) in two more
        when both shapes are balls, boxes, convex polygons, capsules or
        segments (other kinds are finished by :func:`distance`, row by row).

    Raises
    ------
    UnsupportedPairError, InvalidPoseError, InvalidShapeError
        As :func:`~collideworld.collide_many` (naming the argument and the
        row); nothing is computed.
    InvalidArgumentError
        ``max_distance`` negative or NaN.

    Examples
    --------
    A unit circle against a unit circle 3 away and a box overlapping it by 0.5:

    >>> import numpy as np
    >>> from collideworld import Box, Circle, distance_many
    >>> r = distance_many(Circle(1.0), np.zeros((2, 2)), [Circle(1.0), Box((1, 1))], [[5.0, 0.0], [0.0, 1.5]])
    >>> r.distance.tolist(), r.normal.tolist()
    ([3.0, -0.5], [[1.0, 0.0], [0.0, 1.0]])
    >>> r.point_a[0].tolist(), r.point_b[0].tolist()
    ([1.0, 0.0], [4.0, 0.0])
    """
    md = _check_max_distance(max_distance)
    side_a, side_b, n, dim, p, idx_a, idx_b, _, _, (ra, rb), resolved, entries = _batch(
        shapes_a, shapes_b, [("poses_a", poses_a, "a"), ("poses_b", poses_b, "b")], backend)
    status = np.zeros(n, dtype=np.int64)
    out = np.full((n, 10), np.nan)
    if n:
        _batch_kernel("distance_pairs", resolved)(*p, idx_a, ra, idx_b, rb, dim, md, status, out)
    touching = np.flatnonzero(status == toi.TOUCH)
    if len(touching) and resolved == "compiled":
        done, rows = _finish_touching(p, entries, idx_a[touching], ra[touching], idx_b[touching], rb[touching], dim,
                                      out[touching], True)
        out[touching[done]] = rows[done]
        status[touching[done]] = toi.MEASURED
    dist = np.where(status == toi.MEASURED, out[:, 0], np.inf)
    pa, pb, normal = out[:, 1:1 + dim].copy(), out[:, 4:4 + dim].copy(), out[:, 7:7 + dim].copy()
    for k in np.flatnonzero((status == toi.SCALAR) | (status == toi.TOUCH)).tolist():
        # what the compiled finish leaves (two half-spaces, a witness gap below GJK's, other kinds; every
        # touching row on the numpy backend): distance() decides
        sa, sb = _row_shape(side_a, k), _row_shape(side_b, k)
        r = distance(sa, _pose_from_row(sa, ra[k]), sb, _pose_from_row(sb, rb[k]), md)
        if r is not None:
            dist[k], pa[k], pb[k], normal[k] = r.distance, r.point_a, r.point_b, r.normal
    return DistanceArrays(dist, pa, pb, normal)


def time_of_impact_many(shapes_a: Any, starts_a: Any, ends_a: Any, shapes_b: Any, starts_b: Any, ends_b: Any, *,
                        backend: str = "auto") -> ImpactArrays:
    """:func:`time_of_impact` of many pairs at once: ``shapes_a[k]`` moving from ``starts_a[k]`` to ``ends_a[k]``
    against ``shapes_b[k]`` moving from ``starts_b[k]`` to ``ends_b[k]``.

    Parameters
    ----------
    shapes_a, shapes_b : Shape, sequence of Shape, or ShapeArray
        As for :func:`~collideworld.collide_many`. A half-plane or plane
        side stays still (its poses are ignored).
    starts_a, ends_a, starts_b, ends_b : array_like or tuple
        Start and end poses of every pair, each as ``poses_a`` of
        :func:`~collideworld.collide_many`; the motion between them is
        :func:`time_of_impact`'s. None for a side of half-planes or planes
        only.
    backend : {"auto", "compiled", "numpy"}
        ``"numpy"`` runs the same kernel uncompiled (its plain-Python twin).

    Returns
    -------
    ImpactArrays
        ``hit`` (N,), ``t`` (N,; ``inf`` where no hit), ``normal`` and
        ``point`` (N, D; NaN where no hit): row ``k`` is
        :func:`time_of_impact`'s answer for pair ``k`` (the same bits).
        Every pair's time comes from one compiled call; the hits' normals
        and points are then measured at those times as
        :func:`time_of_impact` measures them, in a few more (kinds other
        than balls, boxes, convex polygons, capsules and segments: row by
        row, by the scalar code).

    Raises
    ------
    UnsupportedPairError, InvalidPoseError, InvalidShapeError
        As :func:`~collideworld.collide_many` (naming the argument and the
        row); nothing is computed.
    UndecidedError
        A pair :func:`time_of_impact` could not decide (named by its row).

    Examples
    --------
    Unit circles moving right by 10 against unit circles resting at x = 5 and at (5, 3):

    >>> import numpy as np
    >>> from collideworld import Circle, time_of_impact_many
    >>> start, end = np.zeros((2, 2)), np.array([[10.0, 0.0], [10.0, 0.0]])
    >>> rest = np.array([[5.0, 0.0], [5.0, 3.0]])
    >>> r = time_of_impact_many(Circle(1.0), start, end, Circle(1.0), rest, rest)
    >>> r.hit.tolist(), round(float(r.t[0]), 12), r.normal[0].tolist()
    ([True, False], 0.3, [1.0, 0.0])
    """
    side_a, side_b, n, dim, p, idx_a, idx_b, inf_a, inf_b, (a0, a1, b0, b1), resolved, entries = _batch(
        shapes_a, shapes_b, [("starts_a", starts_a, "a"), ("ends_a", ends_a, "a"), ("starts_b", starts_b, "b"),
                             ("ends_b", ends_b, "b")], backend)
    # a half-space on side a (the other side finite): time_of_impact swaps the sides, and so does this
    swap = inf_a & ~inf_b
    if swap.any():
        idx_a, idx_b = np.where(swap, idx_b, idx_a), np.where(swap, idx_a, idx_b)
        m = swap[:, None]
        a0, b0 = np.where(m, b0, a0), np.where(m, a0, b0)
        a1, b1 = np.where(m, b1, a1), np.where(m, a1, b1)
    t = np.full(n, -1.0)
    if n:
        _batch_kernel("toi_pairs", resolved)(*p, idx_a, a0, a1, idx_b, b0, b1, dim, t)
    undecided = np.flatnonzero(t == toi.UNDECIDED)
    if len(undecided):
        k = int(undecided[0])
        raise UndecidedError(f"time_of_impact_many could not decide pair {k} within {toi.MAX_ADVANCE_STEPS} "
                             f"conservative-advancement steps (a near miss over very many turns?): split its "
                             f"motion into shorter ones")
    hit = np.zeros(n, dtype=bool)
    t_out = np.full(n, np.inf)
    normal = np.full((n, dim), np.nan)
    point = np.full((n, dim), np.nan)
    scalar = t == toi.SCALAR_T
    touched = np.flatnonzero(t >= 0.0)
    if len(touched) and resolved == "compiled":
        # impact_at's measurement at each first touch, batched: the poses then, distance_pairs, the finish
        at_a, at_b = np.zeros((len(touched), 8)), np.zeros((len(touched), 8))
        toi.poses_at(a0[touched], a1[touched], t[touched], dim, at_a)
        toi.poses_at(b0[touched], b1[touched], t[touched], dim, at_b)
        status = np.zeros(len(touched), dtype=np.int64)
        out = np.zeros((len(touched), 10))
        toi.distance_pairs(p.verts, p.pfirst, p.pcount, p.prad, p.pplane, p.svfirst, p.svcount, p.sfirst, p.scount,
                           p.reach, idx_a[touched], at_a, idx_b[touched], at_b, dim, math.inf, status, out)
        near = np.flatnonzero(status == toi.TOUCH)
        if len(near):
            done, rows = _finish_touching(p, entries, idx_a[touched[near]], at_a[near], idx_b[touched[near]],
                                          at_b[near], dim, out[near], False)
            out[near[done]] = rows[done]
            status[near[done]] = toi.MEASURED
        ok = status == toi.MEASURED
        k = touched[ok]
        hit[k] = True
        t_out[k] = np.minimum(t[k], 1.0)
        point[k] = 0.5 * (out[ok, 1:1 + dim] + out[ok, 4:4 + dim])
        normal[k] = np.where(swap[k, None], -out[ok, 7:7 + dim] + 0.0, out[ok, 7:7 + dim])
        touched = touched[~ok]
    for k in np.concatenate([np.flatnonzero(scalar), touched]).tolist():
        sa, sb = _row_shape(side_a, k), _row_shape(side_b, k)
        if swap[k]:
            sa, sb = sb, sa
        if t[k] == toi.SCALAR_T:  # two half-spaces
            r = time_of_impact(sa, None, None, sb, None, None)
        else:  # the normal and point at the first touch, measured as time_of_impact measures them
            r = impact_at(sa, a0[k], a1[k], sb, b0[k], b1[k], float(t[k]))
        if r is None:
            continue
        hit[k], t_out[k], point[k] = True, r.t, r.point
        normal[k] = -r.normal + 0.0 if swap[k] else r.normal
    return ImpactArrays(hit, t_out, normal, point)
