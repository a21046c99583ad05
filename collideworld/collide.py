"""``collide()`` and ``collide_many()``: contacts of posed shapes, without a world.

For placement checks, planners and tests. They run the very same kernels as
the world, so a pair gives the same answer here as inside a
:class:`~collideworld.world.World`:

* ``collide`` runs the batched narrowphase (and the contact points) on a
  store of two bodies;
* ``collide_many`` writes all shapes and poses into one scratch store (one
  row per distinct shape, then gathered) and makes one narrowphase call.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .backend import resolve_backend
from .background import compiled_ready
from .bodies import SIMPLE_POLYGON_VERTICES, BodyStore
from .errors import InvalidPoseError, InvalidShapeError, UnsupportedPairError
from .geometry.result import ContactArrays
from .geometry.rotation import rotation_matrix_2d, rotation_matrix_3d
from .geometry.tolerance import MAX_COORDINATE
from .narrowphase import contact_pairs, manifold_pairs
from .poses import (
    check_angles,
    check_position,
    check_positions,
    check_quaternion,
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
    Cylinder,
    HalfPlane,
    HeightField,
    Plane,
    Polygon,
    Segment,
    Shape,
    Sphere,
    TriangleMesh,
)

__all__ = ["ContactResult", "ShapeArray", "collide", "collide_many", "pair_sides", "pose_arrays", "contact_table"]


@dataclass(frozen=True)
class ContactResult:
    """The contact of two shapes.

    Attributes
    ----------
    normal : ndarray, shape (D,)
        Unit vector from shape a towards shape b: moving b by
        ``normal * depth`` separates them (for a concave polygon, the most
        deeply penetrating convex piece, ``part_a`` / ``part_b``, from the
        other shape; a World reports every touching piece).
    depth : float
        Penetration depth ``>= 0``; 0 when the shapes only touch.
    points : ndarray, shape (P, D)
        Where the shapes touch: P = 1 or 2 points in 2D, 1 to 4 in 3D (the
        ends of the touching segment, the corners of the touching face or of
        its clipped overlap; a concave polygon's deepest convex piece's).
        Each lies within its own ``|separation|`` of both shapes.
    separations : ndarray, shape (P,)
        Each point's signed separation along ``normal`` (<= 0 when penetrating).
    point_ids : ndarray of int64, shape (P,)
        Feature ids, ``feature of a << 32 | feature of b``: the same while the
        same features touch (see :mod:`collideworld.geometry.manifold_support`).
    part_a, part_b : int
        For a :class:`~collideworld.shapes.Compound`, the part whose contact
        this is (the most deeply penetrating pair of touching parts; ties: the
        first in part order); for a concave polygon, the convex piece (index
        into its ``parts``), chosen the same way; -1 for a simple shape.

    Examples
    --------
    Two circles of radius 3 whose centres are 5 apart overlap by 6 - 5 = 1,
    along the direction (3, 4) / 5:

    >>> from collideworld import Circle, collide
    >>> r = collide(Circle(3.0), ((0, 0), 0.0), Circle(3.0), ((3, 4), 0.0))
    >>> r.normal.tolist(), r.depth
    ([0.6, 0.8], 1.0)
    >>> r.points.round(12).tolist(), r.separations.tolist()
    ([[1.5, 2.0]], [-1.0])
    """

    normal: NDArray[np.float64]
    depth: float
    points: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 2)))
    separations: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    point_ids: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    part_a: int = -1
    part_b: int = -1


class _LazyContactResult(ContactResult):
    """A :class:`ContactResult` from the one-call path: its contact points are computed when first read.

    ``normal`` and ``depth`` are set at once; ``points``, ``separations`` and
    ``point_ids`` come from the store path (:func:`_collide_store`) on first
    access, which gives the same normal and depth (the same kernels).
    """

    def __init__(self, normal: NDArray[np.float64], depth: float, args: tuple[Any, ...],
                 part_a: int = -1, part_b: int = -1) -> None:
        # one update of the instance dict (a frozen dataclass refuses setattr; five object.__setattr__
        # calls cost more than the kernel). The lazy paths take no compound; a concave polygon's
        # deepest piece is named.
        self.__dict__.update(normal=normal, depth=depth, part_a=part_a, part_b=part_b, _args=args)

    def __getattr__(self, name: str) -> Any:
        # called only for attributes not set yet: the three point fields
        if name not in ("points", "separations", "point_ids"):
            raise AttributeError(name)
        full = _collide_store(*self.__dict__["_args"])
        assert full is not None
        for field_name in ("points", "separations", "point_ids"):
            object.__setattr__(self, field_name, getattr(full, field_name))
        return self.__dict__[name]


_LazyContactResult.__qualname__ = "ContactResult"  # its repr is a ContactResult's


#: per shape, what the one-call path needs (the entry keeps the shape alive; cleared when full)
_ONE_CALL: dict[int, tuple[Any, ...]] = {}
_NO_VERTS = np.zeros(8)


def _one_call_shape(shape: Shape) -> tuple[Any, ...] | None:
    """``(shape, kind, vertex count, params (9,), lx (8,), ly (8,), dim)``, or None for kinds the one call lacks.

    Kinds as :func:`~collideworld.geometry.compiled.contact_pair.contact_pair` takes them: 0 half-space, 1 ball,
    2 box, 3 simple convex polygon, 4 capsule or segment (its local ends in ``lx`` and ``ly``), 7 cylinder,
    8 cone (3D).
    """
    entry = _ONE_CALL.get(id(shape))
    if entry is not None and entry[0] is shape:
        return entry
    if getattr(shape, "radius", 0.0) and not isinstance(shape, (Circle, Sphere, Capsule, Cylinder, Cone)):
        return None  # a rounded box or polygon: the store path, which grows the core's contact by the radius
    params = np.zeros(9)
    lx = ly = _NO_VERTS
    n = 0
    if isinstance(shape, (Circle, Sphere)):
        kind = 1
        params[0] = params[8] = shape.radius
    elif isinstance(shape, Box):
        kind = 2
        params[1:1 + shape.dim] = shape.half_extents
        params[8] = shape.bounding_radius
    elif isinstance(shape, (Capsule, Segment)):
        kind = 4
        # its local end points in the vertex rows (contact_pair reads them so for kind 4)
        lx, ly = np.zeros(8), np.zeros(8)
        lx[:shape.dim] = shape.p0
        ly[:shape.dim] = shape.p1
        params[0] = shape.radius
        params[8] = shape.bounding_radius
    elif isinstance(shape, (HalfPlane, Plane)):
        kind = 0
        params[4:4 + shape.dim] = shape.normal
        params[7] = shape.offset
        params[8] = np.inf
    elif isinstance(shape, Polygon) and shape.is_convex and len(shape.parts[0]) <= SIMPLE_POLYGON_VERTICES:
        kind = 3
        local = np.asarray(shape.parts[0], dtype=np.float64)
        n = len(local)
        padded = np.concatenate([local, np.repeat(local[-1:], SIMPLE_POLYGON_VERTICES - n, axis=0)])
        lx, ly = np.ascontiguousarray(padded[:, 0]), np.ascontiguousarray(padded[:, 1])
        params[8] = shape.bounding_radius
    elif isinstance(shape, (Cylinder, Cone)):
        # kinds 7 and 8 (the support-mapping kernels' pairs): the store's columns, radius and
        # half = (r, r, half height)
        kind = 7 if isinstance(shape, Cylinder) else 8
        params[0] = shape.radius
        params[1:4] = (shape.radius, shape.radius, shape.half_height)
        params[8] = shape.bounding_radius
    else:
        return None
    if len(_ONE_CALL) >= 256:
        _ONE_CALL.clear()
    entry = (shape, kind, n, params, lx, ly, shape.dim)
    _ONE_CALL[id(shape)] = entry
    return entry


def _plain_quaternion(value: Any) -> tuple[float, float, float, float] | None:
    """A tuple or list of four Python numbers as the unit quaternion the store would keep, else None.

    The numpy path (:func:`check_quaternion`, then the renormalisation of
    :func:`rotation_matrix_3d`) costs about 25 µs for one quaternion; this is
    the same arithmetic on Python floats, operation for operation (products
    summed left to right, then a correctly rounded square root and quotients,
    as numpy's row sums of four and its division do), so the bits are the
    same; a test checks them against the numpy path. None (not a plain
    quaternion, not finite, not unit to the tolerance) leaves the decision
    and its error to the numpy path.
    """
    unit = plain_unit_quaternion(value)
    if unit is None:
        return None
    w, x, y, z = unit
    norm = math.sqrt(w * w + x * x + y * y + z * z)  # as np.linalg.norm over a row of four
    return w / norm, x / norm, y / norm, z / norm


_ZERO_POSE = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


def _plain_pose_values(shape: Shape, pose: Any, d: int = 0, infinite: bool = False) -> tuple[float, ...] | None:
    """``(x, y, z, cos, sin, 0, 0)`` (2D) or ``(x, y, z, w, qx, qy, qz)`` (3D) of a pose in a common form.

    None for anything else, which :func:`_pose` then checks (and raises on).
    ``d`` and ``infinite``: the shape's dimension and whether it is a
    half-space, when the caller knows them (0: read them from ``shape``).
    """
    if not d:
        d, infinite = shape.dim, shape.is_infinite
    if infinite:
        return _ZERO_POSE if pose is None else None
    f = plain_float_pose(pose, d)
    if f is not None:
        if d == 2:
            # math.cos and math.sin give numpy's bits (both the C library's; test_single_call_fast_path checks it)
            x, y, turn = f
            if turn == 0:
                return (x, y, 0.0, 1.0, 0.0, 0.0, 0.0)
            return (x, y, 0.0, math.cos(turn), math.sin(turn), 0.0, 0.0)
        # _plain_quaternion's second normalisation, written out
        x, y, z, w, qx, qy, qz = f
        norm = math.sqrt(w * w + qx * qx + qy * qy + qz * qz)
        return (x, y, z, w / norm, qx / norm, qy / norm, qz / norm)
    xy = plain_position(pose, d)
    angle = None
    if xy is None:
        if type(pose) is not tuple or len(pose) != 2:
            return None
        xy = plain_position(pose[0], d)
        angle = pose[1]
        if xy is None:
            return None
    if d == 3:
        if angle is None:
            return (xy[0], xy[1], xy[2], 1.0, 0.0, 0.0, 0.0)
        q4 = _plain_quaternion(angle)
        if q4 is not None:
            return (xy[0], xy[1], xy[2], *q4)
        try:
            q = check_quaternion(angle)[None]
        except InvalidPoseError:
            return None  # the careful path raises it with the argument's name
        # normalised again as rotation_matrix_3d does in the store path (the same bits)
        q = q / np.linalg.norm(q, axis=-1, keepdims=True)
        return (xy[0], xy[1], xy[2], *q[0].tolist())
    if angle is not None:
        t = type(angle)
        if not (t is float or (t is int and abs(angle) < 2 ** 53)) or not math.isfinite(angle):
            return None
    if angle is None or angle == 0:
        return (xy[0], xy[1], 0.0, 1.0, 0.0, 0.0, 0.0)
    # cosine and sine as numpy rounds them (rotation_matrix_2d; see above)
    return (xy[0], xy[1], 0.0, math.cos(angle), math.sin(angle), 0.0, 0.0)


def collide(shape_a: Shape, pose_a: Any, shape_b: Shape, pose_b: Any, *,
            backend: str = "auto") -> ContactResult | None:
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
    backend : {"auto", "compiled", "numpy"}
        Which kernels run (see :class:`~collideworld.world.World`); the
        same contacts either way.

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
    >>> r.points.tolist()   # halfway between the box's face x = 1 and the circle's deepest point x = 0.5
    [[0.75, 0.0]]
    >>> collide(Box((1, 1)), ((0, 0), 0.0), Circle(1.0), ((3.0, 0), 0.0)) is None
    True
    >>> collide(Circle(1.0), (0, 0), Circle(1.0), ((1.0, 0), None)).depth   # bare position; no rotation
    1.0
    """
    # The checked-shape fast path: shapes already in the one-call table (so shapes, validated when
    # built, of kinds the compiled kernel takes), the compiled kernels loaded, poses in a common
    # form (checked on Python floats). Anything else, bad input included, takes the path below.
    if backend == "auto":
        fa, fb = _ONE_CALL.get(id(shape_a)), _ONE_CALL.get(id(shape_b))
        if fa is not None and fb is not None and fa[0] is shape_a and fb[0] is shape_b and fa[6] == fb[6] \
                and compiled_ready():
            d = fa[6]
            va = _plain_pose_values(shape_a, pose_a, d, fa[1] == 0)
            vb = _plain_pose_values(shape_b, pose_b, d, fb[1] == 0)
            if va is not None and vb is not None:
                return _table_call(d, fa, fb, va, vb, shape_a, pose_a, shape_b, pose_b)
    for name, s in (("shape_a", shape_a), ("shape_b", shape_b)):
        if not isinstance(s, SHAPE_TYPES):
            raise UnsupportedPairError(f"{name} must be a collideworld shape, got {s!r}")
    if shape_a.dim != shape_b.dim:
        raise UnsupportedPairError(
            f"cannot collide a {shape_a.dim}D {shape_a.kind} with a {shape_b.dim}D {shape_b.kind}")
    resolved = resolve_backend(backend)
    if resolved == "compiled":
        # the one-call path: common shapes and poses, no store (points computed if read)
        fa, fb = _one_call_shape(shape_a), _one_call_shape(shape_b)
        if fa is not None and fb is not None:
            va, vb = _plain_pose_values(shape_a, pose_a), _plain_pose_values(shape_b, pose_b)
            if va is not None and vb is not None:
                return _table_call(shape_a.dim, fa, fb, va, vb, shape_a, pose_a, shape_b, pose_b)
    if not (isinstance(shape_a, Compound) or isinstance(shape_b, Compound)):
        # normal and depth now, the contact points (the manifold, most of the store path's
        # cost) when first read: distance() and time_of_impact() read only the former
        return _collide_store(shape_a, pose_a, shape_b, pose_b, resolved, points=False)
    return _collide_store(shape_a, pose_a, shape_b, pose_b, resolved)


#: per pair of shapes (by identity): (shape a, shape b, the pair's two-row table, its compiled entry (pair_entry))
_PAIR_TABLES: dict[tuple[int, int], tuple[Any, Any, tuple[NDArray[Any], ...], Any]] = {}


def _table_call(d: int, fa: tuple[Any, ...], fb: tuple[Any, ...], va: tuple[float, ...], vb: tuple[float, ...],
                shape_a: Shape, pose_a: Any, shape_b: Shape, pose_b: Any) -> ContactResult | None:
    """The compiled one-pair kernel on two one-call entries and their poses' values; the points left to first read.

    The pair's two-row table is kept (shapes are immutable), so a call makes one array (the poses) and the
    kernel takes seven arguments.
    """
    entry = _PAIR_TABLES.get((id(shape_a), id(shape_b)))
    if entry is None or entry[0] is not shape_a or entry[1] is not shape_b:
        # the two entries' rows, stacked once (contact_pair stacks them on every call), in the exact
        # types pair_entry's compiled entry point unboxes without checking (int64, C-contiguous float64)
        kinds = np.array([fa[1], fb[1]], dtype=np.int64)
        table = (kinds, np.array([fa[2], fb[2]], dtype=np.int64),
                 np.ascontiguousarray(np.stack([fa[3], fb[3]]), dtype=np.float64),
                 np.ascontiguousarray(np.stack([fa[4], fb[4]]), dtype=np.float64),
                 np.ascontiguousarray(np.stack([fa[5], fb[5]]), dtype=np.float64))
        if len(_PAIR_TABLES) >= 256:
            _PAIR_TABLES.clear()
        entry = (shape_a, shape_b, table, _pair_entry_fn()(d, _has_rest_kind(kinds)))
        _PAIR_TABLES[(id(shape_a), id(shape_b))] = entry
    kinds_t, n_t, params, lx, ly = entry[2]
    hit, nx, ny, nz, depth = entry[3](kinds_t, n_t, params, lx, ly, np.array((va, vb), dtype=np.float64))
    if not hit:
        return None
    normal = np.array([nx, ny]) if d == 2 else np.array([nx, ny, nz])
    return _LazyContactResult(normal, depth, (shape_a, pose_a, shape_b, pose_b, "compiled"))


def _has_rest_kind(kinds: NDArray[np.int64]) -> bool:
    from .geometry.compiled.contact_pair import has_rest_kind
    return has_rest_kind(kinds)


def _pair_entry_fn() -> Any:
    """contact_pair.pair_entry, imported on first use (importing it imports numba)."""
    global _PAIR_ENTRY
    if _PAIR_ENTRY is None:
        from .geometry.compiled.contact_pair import pair_entry
        _PAIR_ENTRY = pair_entry
    return _PAIR_ENTRY


_PAIR_ENTRY: Any = None


def _collide_store(shape_a: Shape, pose_a: Any, shape_b: Shape, pose_b: Any, resolved: str,
                   points: bool = True) -> ContactResult | None:
    """:func:`collide` on a store of two bodies, with the contact points (arguments checked but the poses).

    ``points=False`` (shapes that are no compounds) leaves the points to a
    :class:`_LazyContactResult`, which runs this again with them when read.
    """
    pa = collide_pose(shape_a, pose_a, "a")
    pb = collide_pose(shape_b, pose_b, "b")
    store = BodyStore(shape_a.dim, capacity=2)
    store.split_concave = True  # a concave polygon's pieces are parts, as in a World
    slots = store.allocate(2)
    store.set_shapes(slots, [shape_a, shape_b])
    for k, (pos, ang, quat) in enumerate((pa, pb)):
        store.set_poses(slots[k:k + 1], pos[None], ang, quat)
    _, ia, ib = store.expand_pairs(slots[:1], slots[1:])  # a compound: one row per pair of parts
    res = contact_pairs(store, ia, ib, resolved)  # by default the kernels a default World runs
    if not res.hit.any():
        return None
    # the deepest touching row (first in part order on ties): a compound's part, a concave polygon's piece
    k = int(np.flatnonzero(res.hit)[np.argmax(res.depth[res.hit])])
    if not points:
        return _LazyContactResult(res.normal[k].copy(), float(res.depth[k]),
                                  (shape_a, pose_a, shape_b, pose_b, resolved),
                                  int(store.part[ia[k]]), int(store.part[ib[k]]))
    ia, ib = ia[k:k + 1], ib[k:k + 1]
    m = manifold_pairs(store, ia, ib, res.normal[k:k + 1], res.depth[k:k + 1], resolved)
    used = int(m.count[0])
    return ContactResult(res.normal[k].copy(), float(res.depth[k]), m.points[0, :used].copy(),
                         m.separations[0, :used].copy(), m.ids[0, :used].copy(), int(store.part[ia[0]]),
                         int(store.part[ib[0]]))


class ShapeArray:
    """Many shapes of one kind given by arrays of their parameters, for :func:`collide_many`.

    Row ``k`` is the shape ``Circle(radii[k])``, ``Sphere(radii[k])`` or
    ``Box(half_extents[k])``, checked as those constructors check them (the
    same rules, the row named in the error), without building N objects.
    Build one with :meth:`circles`, :meth:`spheres` or :meth:`boxes`.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld.collide import ShapeArray, collide_many
    >>> boxes = ShapeArray.boxes([[1.0, 1.0], [0.5, 2.0]])
    >>> res = collide_many(boxes, [[0.0, 0.0], [0.0, 0.0]], ShapeArray.circles([1.0, 1.0]), [[2.5, 0.0], [1.0, 0.0]])
    >>> res.hit.tolist(), res.depth[1].item()
    ([False, True], 0.5)
    """

    def __init__(self, kind: str, dim: int, params: NDArray[np.float64]) -> None:
        self.kind, self.dim, self.params = kind, dim, params  # params (N, dim) half extents or (N,) radii
        self.params.setflags(write=False)

    def __len__(self) -> int:
        return len(self.params)

    def __repr__(self) -> str:
        return f"ShapeArray.{self.kind}es({len(self)} rows)" if self.kind == "box" else \
            f"ShapeArray.{self.kind}s({len(self)} rows)"

    @classmethod
    def circles(cls, radii: Any) -> ShapeArray:
        """N circles: ``radii`` (N,), each ``> 0`` and finite."""
        return cls("circle", 2, _positive_array(radii, 1, "Circle radius", (None,)))

    @classmethod
    def spheres(cls, radii: Any) -> ShapeArray:
        """N spheres: ``radii`` (N,), each ``> 0`` and finite."""
        return cls("sphere", 3, _positive_array(radii, 1, "Sphere radius", (None,)))

    @classmethod
    def boxes(cls, half_extents: Any) -> ShapeArray:
        """N boxes: ``half_extents`` (N, 2) for rectangles or (N, 3) for 3D boxes, each ``> 0`` and finite."""
        he = _positive_array(half_extents, 2, "Box half_extents", (2, 3))
        return cls("box", he.shape[1], he)

    def shape(self, k: int) -> Shape:
        """Row ``k`` as a shape object."""
        if self.kind == "box":
            return Box(tuple(self.params[k].tolist()))
        return (Circle if self.kind == "circle" else Sphere)(float(self.params[k]))

    def fill(self, kinds: NDArray[np.int64], params: NDArray[np.float64]) -> None:
        """Write the rows' kinds (N,) and ``params`` (N, 9) as :func:`_one_call_shape` fills them (one compiled
        pass)."""
        from .geometry.compiled.contact_pair import table_rows

        values = self.params if self.kind == "box" else self.params.reshape(-1, 1)
        table_rows(2 if self.kind == "box" else 1, values, kinds, params)


def _positive_array(value: Any, ndim: int, what: str, widths: tuple[int | None, ...]) -> NDArray[np.float64]:
    """Shape parameters as float64 (N,) or (N, D): real, finite, > 0, at most MAX_COORDINATE (as the constructors)."""
    if isinstance(value, (str, bytes)):
        raise InvalidShapeError(f"{what} must be real numbers, got {value!r}")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise InvalidShapeError(f"{what} must be a rectangular array of real numbers, got {value!r}") from None
    if raw.dtype.kind not in "iuf":
        raise InvalidShapeError(f"{what} must be real numbers, got {raw.dtype} values")
    arr = raw.astype(np.float64)
    want = "(N,)" if ndim == 1 else "(N, 2) or (N, 3)"
    if arr.ndim != ndim or (ndim == 2 and arr.shape[1] not in widths):
        raise InvalidShapeError(f"{what} must have shape {want}, got shape {arr.shape}")
    bad = ~np.isfinite(arr)
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidShapeError(f"{what}[{', '.join(map(str, at))}] must be finite, got {float(arr[at])!r}")
    bad = np.abs(arr) > MAX_COORDINATE
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidShapeError(f"{what}[{', '.join(map(str, at))}] must be at most {MAX_COORDINATE:g} in "
                                f"magnitude, got {float(arr[at])!r}")
    bad = arr <= 0
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidShapeError(f"{what}[{', '.join(map(str, at))}] must be > 0, got {float(arr[at]):g}")
    return arr


def _collide_many_arrays(shapes_a: Any, poses_a: Any, shapes_b: Any, poses_b: Any, backend: str) -> ContactArrays:
    """:func:`collide_many` with a :class:`ShapeArray` on one side or both: one compiled call, no per-shape work."""
    sides: list[Any] = []
    for which, shapes in (("a", shapes_a), ("b", shapes_b)):
        if isinstance(shapes, ShapeArray):
            sides.append(shapes)
        elif isinstance(shapes, SHAPE_TYPES):
            if isinstance(shapes, Compound):
                raise UnsupportedPairError(f"collide_many takes no compound (its rows are one shape each); "
                                           f"use collide, or a World, got {shapes!r}")
            sides.append(shapes)
        else:
            raise UnsupportedPairError(f"with a ShapeArray, shapes_{which} must be a ShapeArray or one shape, "
                                       f"got {type(shapes).__name__}")
    dims = {s.dim for s in sides}
    if len(dims) > 1:
        raise UnsupportedPairError(f"every shape must have one dimension, got {sorted(dims)}D shapes")
    lengths = {len(s) for s in sides if isinstance(s, ShapeArray)}
    if len(lengths) > 1:
        raise UnsupportedPairError(f"shapes_a and shapes_b must have one length or be one shape, got "
                                   f"{len(shapes_a)} and {len(shapes_b)}")
    dim, n = dims.pop(), lengths.pop()
    pa = _pose_arrays(poses_a, n, dim, "a")
    pb = _pose_arrays(poses_b, n, dim, "b")
    resolved = resolve_backend(backend)
    if n == 0:
        return ContactArrays(np.zeros(0, dtype=bool), np.zeros((0, dim)), np.zeros(0))
    if resolved != "compiled" or any(not isinstance(x, ShapeArray) and _one_call_shape(x) is None for x in sides):
        # the general path, on shape objects (the numpy backend, or kinds the one call does not take)
        lists = [[x.shape(k) for k in range(n)] if isinstance(x, ShapeArray) else x for x in sides]
        return collide_many(lists[0], poses_a, lists[1], poses_b, backend=backend)
    key = (id(sides[0]), id(sides[1]))
    cached = _ARRAY_TABLES.get(key)
    if cached is not None and cached[0] is sides[0] and cached[1] is sides[1]:
        # the same (immutable) sides as a recent call: their table again. Building it afresh costs more
        # than the contacts: a new (2 N, 9) table is fresh memory, and its first touch page-faults
        kinds, n_verts, params, lx, ly, table_rows_of = cached[2]
        return _contact_many_table(dim, n, kinds, n_verts, params, lx, ly, table_rows_of, pa, pb)
    # one table row per array row, one for a single shape
    counts = [n if isinstance(x, ShapeArray) else 1 for x in sides]
    total = sum(counts)
    kinds = np.zeros(total, dtype=np.int64)
    n_verts = np.zeros(total, dtype=np.int64)
    params = np.zeros((total, 9))
    # a polygon's vertices are read only for rows with vertices: one row serves when there are none
    lx = np.zeros((total if any(isinstance(x, (Polygon, Capsule, Segment)) for x in sides) else 1, 8))
    ly = lx.copy()
    whiches = []
    offset = 0
    for x, count in zip(sides, counts, strict=True):
        if isinstance(x, ShapeArray):
            x.fill(kinds[offset:offset + n], params[offset:offset + n])
            whiches.append(np.arange(offset, offset + n, dtype=np.int64))
        else:
            spec = _one_call_shape(x)
            assert spec is not None
            kinds[offset], n_verts[offset], params[offset] = spec[1], spec[2], spec[3]
            if len(lx) > 1:
                lx[offset], ly[offset] = spec[4], spec[5]
            whiches.append(np.full(n, offset, dtype=np.int64))
        offset += count
    table_rows_of = np.concatenate(whiches)
    if len(_ARRAY_TABLES) >= 4:
        _ARRAY_TABLES.pop(next(iter(_ARRAY_TABLES)))
    _ARRAY_TABLES[key] = (sides[0], sides[1], (kinds, n_verts, params, lx, ly, table_rows_of))
    return _contact_many_table(dim, n, kinds, n_verts, params, lx, ly, table_rows_of, pa, pb)


#: the contact tables of the last few pairs of sides (ShapeArrays or one shape, immutable), by identity: the
#: entries hold the sides, so their ids stay theirs
_ARRAY_TABLES: dict[tuple[int, int], tuple[Any, Any, tuple[NDArray[Any], ...]]] = {}


def _shape_list(shapes: Any, n: int | None, which: str) -> list[Shape]:
    if isinstance(shapes, SHAPE_TYPES):
        return [shapes]
    if isinstance(shapes, (str, bytes)) or not isinstance(shapes, Sequence):
        raise UnsupportedPairError(f"shapes_{which} must be a shape or a sequence of shapes, got {shapes!r}")
    out = list(shapes)
    for k, s in enumerate(out):
        if not isinstance(s, SHAPE_TYPES):
            raise UnsupportedPairError(f"shapes_{which}[{k}] must be a collideworld shape, got {s!r}")
    return out


def _pose_arrays(poses: Any, n: int, dim: int, which: str) -> tuple[NDArray[np.float64], NDArray[np.float64] | None,
                                                                      NDArray[np.float64] | None]:
    """(positions (n, D), angles (n,) or None, quaternions (n, 4) or None) from ``poses_a``/``poses_b``."""
    return pose_arrays(poses, n, dim, f"poses_{which}")


def pose_arrays(poses: Any, n: int, dim: int, what: str) -> tuple[NDArray[np.float64], NDArray[np.float64] | None,
                                                                  NDArray[np.float64] | None]:
    """The poses of :func:`collide_many`'s rows, checked: (positions (n, D), angles (n,) or None,
    quaternions (n, 4) or None); ``what`` names the argument in errors.

    Examples
    --------
    >>> pos, ang, quat = pose_arrays(([[0, 0], [1, 2]], 0.5), 2, 2, "poses_a")
    >>> pos.tolist(), ang.tolist(), quat
    ([[0.0, 0.0], [1.0, 2.0]], [0.5, 0.5], None)
    """
    if isinstance(poses, tuple) and len(poses) == 2:
        positions, rotations = poses
    else:
        positions, rotations = poses, None
    arr = np.asarray(positions, dtype=object) if not isinstance(positions, np.ndarray) else positions
    if arr.ndim == 1 and len(arr) == dim:  # one position for every pair
        pos = np.broadcast_to(check_position(positions, dim, f"{what} position"), (n, dim))
    else:
        pos = check_positions(positions, n, dim, f"{what} positions")
    if rotations is None:
        return pos, None, None
    if dim == 2:
        return pos, check_angles(rotations, n, f"{what} angles"), None
    quat = np.asarray(rotations, dtype=np.float64) if isinstance(rotations, np.ndarray) else rotations
    if isinstance(quat, np.ndarray) and quat.shape in ((4,), (3, 3)):
        return pos, None, np.broadcast_to(check_quaternion(quat, f"{what} quaternion"), (n, 4))
    return pos, None, check_quaternions(rotations, n, f"{what} quaternions")


def contact_table(side: Any, entries: NDArray[np.int64]) -> tuple[NDArray[np.bool_], tuple[NDArray[Any], ...]]:
    """Rows of the one-call contact table (as :func:`_one_call_shape` makes them) for ``entries`` of a side:
    rows of a :class:`ShapeArray` or indices into a list of distinct shapes. Returns (which rows the
    compiled one-pair loop takes, (kinds, vertex counts, params, lx, ly)), placeholders where it does not.

    Examples
    --------
    >>> ok, (kinds, n_verts, params, lx, ly) = contact_table([Circle(1.0), Box((1, 2), radius=0.5)], np.arange(2))
    >>> ok.tolist(), kinds.tolist(), params[0, [0, 8]].tolist()
    ([True, False], [1, 1], [1.0, 1.0])
    """
    from .geometry.compiled.contact_pair import table_rows

    m = len(entries)
    kinds = np.ones(m, dtype=np.int64)
    n_verts = np.zeros(m, dtype=np.int64)
    params = np.zeros((m, 9))
    if isinstance(side, ShapeArray):
        values = side.params[entries]
        table_rows(2 if side.kind == "box" else 1, values if side.kind == "box" else values.reshape(-1, 1), kinds,
                   params)
        return np.ones(m, dtype=bool), (kinds, n_verts, params, np.zeros((m, 8)), np.zeros((m, 8)))
    specs = [_one_call_shape(s) for s in side]
    ok = np.array([sp is not None for sp in specs], dtype=bool)
    blank = (None, 1, 0, np.zeros(9), _NO_VERTS, _NO_VERTS)
    rows = [specs[e] or blank for e in entries.tolist()]
    kinds = np.array([r[1] for r in rows], dtype=np.int64)
    n_verts = np.array([r[2] for r in rows], dtype=np.int64)
    params = np.array([r[3] for r in rows]).reshape(m, 9)
    lx = np.array([r[4] for r in rows]).reshape(m, 8)
    ly = np.array([r[5] for r in rows]).reshape(m, 8)
    return ok[entries], (kinds, n_verts, params, lx, ly)


def pair_sides(shapes_a: Any, shapes_b: Any, poses_a: Any) -> tuple[Any, Any, int, int]:
    """``(side a, side b, N, D)`` of a batch of pairs, checked as :func:`collide_many` checks them.

    Each side is a :class:`ShapeArray` of N rows or a list of one shape (for every pair) or of N
    shapes; N comes from the sides, or from ``poses_a`` when both are one shape.

    Raises
    ------
    UnsupportedPairError
        A side that is neither, an item that is not a shape, lengths or dimensions that differ.

    Examples
    --------
    >>> a, b, n, dim = pair_sides(Circle(1.0), [Circle(1.0), Box((1, 1))], None)
    >>> len(a), len(b), n, dim
    (1, 2, 2, 2)
    """
    sides = [s if isinstance(s, ShapeArray) else _shape_list(s, None, which)
             for which, s in (("a", shapes_a), ("b", shapes_b))]
    lengths = {len(x) for x in sides if isinstance(x, ShapeArray) or len(x) != 1}
    if len(lengths) > 1:
        raise UnsupportedPairError(f"shapes_a and shapes_b must have one length or be one shape, got "
                                   f"{len(sides[0])} and {len(sides[1])}")
    dims = {x.dim for x in sides if isinstance(x, ShapeArray)} | {s.dim for x in sides
                                                                  if not isinstance(x, ShapeArray) for s in x}
    if len(dims) > 1:
        raise UnsupportedPairError(f"every shape must have one dimension, got {sorted(dims)}D shapes")
    dim = dims.pop() if dims else 2
    n = lengths.pop() if lengths else None
    if n is None:  # one shape each side: the poses say how many pairs
        arr = poses_a[0] if isinstance(poses_a, tuple) and len(poses_a) == 2 else poses_a
        shape_ = np.shape(arr)
        n = shape_[0] if len(shape_) == 2 else 1
    return sides[0], sides[1], n, dim


def collide_many(shapes_a: Shape | Sequence[Shape], poses_a: Any, shapes_b: Shape | Sequence[Shape], poses_b: Any,
                 *, backend: str = "auto") -> ContactArrays:
    """Contacts of many pairs of posed shapes at once: pair ``k`` is ``shapes_a[k]`` against ``shapes_b[k]``.

    Parameters
    ----------
    shapes_a, shapes_b : Shape or sequence of Shape
        One shape (used for every pair) or N shapes, all of one dimension;
        pairs may mix kinds. A compound, chain, triangle mesh or heightfield
        row gives what :func:`collide` gives: its deepest touching part.
    poses_a, poses_b : array_like or tuple
        ``positions`` (N, D), or ``(positions, angles)`` in 2D (angles (N,)
        or a scalar), ``(positions, quaternions)`` in 3D (quaternions (N, 4)
        or one), rotation None for none. A single position (D,) is used for
        every pair. Half-planes and planes ignore their rows' poses.
    backend : {"auto", "compiled", "numpy"}

    Returns
    -------
    ContactArrays
        ``hit`` (N,), ``normal`` (N, D) from a towards b, ``depth`` (N,):
        what :func:`collide` gives for each pair (normal and depth are
        meaningful where ``hit``).

    Raises
    ------
    UnsupportedPairError, InvalidPoseError
        A shape that is not one, mixed dimensions, or poses of the wrong shape.

    Examples
    --------
    An ego box at three time steps against two obstacles (pairs spelled out):

    >>> import numpy as np
    >>> from collideworld import Box, Circle, collide_many
    >>> ego = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
    >>> obstacles = [Circle(0.5), Box((0.5, 0.5))]
    >>> where = np.array([[2.0, 0.0], [0.0, 3.0]])
    >>> a_pos = np.repeat(ego, 2, axis=0)            # each step against each obstacle
    >>> res = collide_many(Box((1.0, 0.5)), (a_pos, 0.0), obstacles * 3, np.tile(where, (3, 1)))
    >>> res.hit.reshape(3, 2).tolist()
    [[False, False], [True, False], [True, False]]
    >>> res.depth[2].item()
    0.5
    """
    if isinstance(shapes_a, ShapeArray) or isinstance(shapes_b, ShapeArray):
        return _collide_many_arrays(shapes_a, poses_a, shapes_b, poses_b, backend)
    list_a, list_b, n, dim = pair_sides(shapes_a, shapes_b, poses_a)
    with_parts = any(isinstance(s, (Compound, TriangleMesh, HeightField)) for s in list_a + list_b)
    pa = _pose_arrays(poses_a, n, dim, "a")
    pb = _pose_arrays(poses_b, n, dim, "b")
    resolved = resolve_backend(backend)
    if n == 0:
        return ContactArrays(np.zeros(0, dtype=bool), np.zeros((0, dim)), np.zeros(0))
    if with_parts:
        return _collide_many_parts(list_a, list_b, n, dim, pa, pb, resolved)
    # one template row per distinct shape, then gathered into the pairs' rows
    distinct: dict[int, Shape] = {}
    for s in list_a + list_b:
        distinct.setdefault(id(s), s)
    order = {key: k for k, key in enumerate(distinct)}
    whiches = [np.full(n, order[id(shapes[0])], dtype=np.int64) if len(shapes) == 1
               else np.array([order[id(s)] for s in shapes], dtype=np.int64) for shapes in (list_a, list_b)]
    if resolved == "compiled":
        specs = [_one_call_shape(s) for s in distinct.values()]
        if all(spec is not None for spec in specs):
            return _collide_many_one_call(dim, n, specs, whiches, pa, pb)
    template = BodyStore(dim, capacity=len(distinct))
    sc = BodyStore(dim, capacity=2 * n)
    template.parts = sc.parts
    template.hulls = sc.hulls
    template.set_shapes(np.arange(len(distinct), dtype=np.int64), list(distinct.values()))
    for rows, which, pose in ((slice(0, n), whiches[0], pa), (slice(n, 2 * n), whiches[1], pb)):
        # every shape column (a capsule's segment and a hull's row too: without them a capsule was a ball)
        for name in ("kind", "radius", "half", "plane_normal", "plane_offset", "poly", "bound_radius", "simple",
                     "seg0", "seg1", "hull", "rounding"):
            getattr(sc, name)[rows] = getattr(template, name).take(which, axis=0)
        pos, ang, quat = pose
        sc.position[rows] = pos
        if dim == 2:
            sc.rotation[rows] = rotation_matrix_2d(np.zeros(n) if ang is None else ang)
        else:
            sc.rotation[rows] = np.eye(3) if quat is None else rotation_matrix_3d(quat)
    if dim == 2:
        simple = np.flatnonzero(sc.simple[:2 * n])
        if len(simple):
            sc.pose_simple(simple)
    sc.n_rounded = template.n_rounded  # (a flag here: rows copy the template's rounded shapes)
    idx = np.arange(n, dtype=np.int64)
    return contact_pairs(sc, idx, idx + n, resolved)


def _collide_many_parts(list_a: list[Shape], list_b: list[Shape], n: int, dim: int, pa: tuple[Any, ...],
                        pb: tuple[Any, ...], resolved: str) -> ContactArrays:
    """:func:`collide_many` where a pair has a compound, chain, triangle mesh or heightfield: what
    :func:`collide` gives for each pair (the deepest touching pair of parts, the first in part order
    on ties), from one store of the 2n bodies, their pairs expanded into part pairs as a World does.
    """
    store = BodyStore(dim, capacity=2 * n)
    store.split_concave = True  # a concave polygon's pieces are parts, as in collide()
    slots = store.allocate(2 * n)
    shapes = [*(list_a * n if len(list_a) == 1 else list_a), *(list_b * n if len(list_b) == 1 else list_b)]
    store.set_shapes(slots, shapes)
    for rows, (pos, ang, quat) in ((slots[:n], pa), (slots[n:], pb)):
        store.set_poses(rows, pos, None if ang is None else np.broadcast_to(ang, (n,)),
                        None if quat is None else np.broadcast_to(quat, (n, 4)))
    row, ia, ib = store.expand_pairs(slots[:n], slots[n:])
    res = contact_pairs(store, ia, ib, resolved)
    hit = np.zeros(n, dtype=bool)
    normal = np.zeros((n, dim))
    depth = np.zeros(n)
    k = np.flatnonzero(res.hit)
    if len(k):
        # per pair, its deepest touching row; rows come in part order, so a stable sort keeps the first on ties
        k = k[np.lexsort((-res.depth[k], row[k]))]
        first = k[np.r_[True, row[k][1:] != row[k][:-1]]]
        hit[row[first]] = True
        normal[row[first]] = res.normal[first]
        depth[row[first]] = res.depth[first]
    return ContactArrays(hit, normal, depth)


def _collide_many_one_call(dim: int, n: int, specs: list[Any], whiches: list[NDArray[np.int64]],
                           pa: tuple[Any, ...], pb: tuple[Any, ...]) -> ContactArrays:
    """:func:`collide_many` in one compiled call (every shape a kind of :func:`_one_call_shape`)."""
    kinds = np.array([sp[1] for sp in specs], dtype=np.int64)
    n_verts = np.array([sp[2] for sp in specs], dtype=np.int64)
    params = np.stack([sp[3] for sp in specs])
    lx = np.stack([sp[4] for sp in specs])
    ly = np.stack([sp[5] for sp in specs])
    return _contact_many_table(dim, n, kinds, n_verts, params, lx, ly, whiches, pa, pb)


def _contact_many_table(dim: int, n: int, kinds: NDArray[np.int64], n_verts: NDArray[np.int64],
                        params: NDArray[np.float64], lx: NDArray[np.float64], ly: NDArray[np.float64],
                        whiches: list[NDArray[np.int64]] | NDArray[np.int64], pa: tuple[Any, ...],
                        pb: tuple[Any, ...]) -> ContactArrays:
    """The compiled call of :func:`collide_many` on a table of distinct shapes (rows as :func:`_one_call_shape`);
    ``whiches``: the a rows' and the b rows' table rows (a list of the two, or already one array)."""
    from .geometry.compiled.contact_pair import contact_many_posed

    # positions and rotations as the compiled call takes them (C order, rotations (n, k), no rows for none):
    # it builds the pose rows itself, with the bits the numpy passes here gave (one loop, not six array passes)
    sides = []
    for pos, ang, quat in (pa, pb):
        if dim == 2:
            rot = _NO_TURN if ang is None else np.ascontiguousarray(ang, dtype=np.float64).reshape(n, 1)
        else:
            rot = _NO_QUAT if quat is None else np.ascontiguousarray(quat, dtype=np.float64)
        sides += [np.ascontiguousarray(pos, dtype=np.float64), rot]
    which = whiches if isinstance(whiches, np.ndarray) else np.concatenate(whiches)
    hit, normal, depth = contact_many_posed(dim, kinds, n_verts, params, lx, ly, which, *sides)
    return ContactArrays(hit, normal, depth)


_NO_TURN = np.zeros((0, 1))
_NO_QUAT = np.zeros((0, 4))
