"""Shapes: immutable, validated at construction, in the body's local frame.

Semantics follow ``docs/scenario-format.md``: every shape is a closed set.

2D: :class:`Circle`, :class:`Box` (two half extents), :class:`Polygon` (any
simple polygon, convex or concave), :class:`HalfPlane`.
3D: :class:`Sphere`, :class:`Box` (three half extents), :class:`Plane`.
2D or 3D: :class:`Capsule` (the points within a radius of a segment) and
:class:`Segment` (a capsule of radius 0).
3D: :class:`ConvexHull` (the convex hull of points, computed at construction).
2D or 3D: :class:`Compound` (several shapes posed in one body's frame).

A concave polygon is split into convex pieces once, here, at construction;
the narrowphase only ever sees convex pieces.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Sequence
from dataclasses import FrozenInstanceError, dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from .errors import InvalidShapeError
from .geometry import polygon as _poly
from .geometry.mesh_bvh import TriangleBVH, heightfield_cells
from .geometry.tolerance import MAX_COORDINATE

__all__ = [
    "Shape",
    "Circle",
    "Box",
    "Polygon",
    "HalfPlane",
    "Sphere",
    "Plane",
    "Capsule",
    "Segment",
    "ConvexHull",
    "Cylinder",
    "Cone",
    "Compound",
    "TriangleMesh",
    "HeightField",
    "Triangle",
    "mesh_triangles",
    "Chain",
    "MAX_CHAIN_POINTS",
    "MAX_COMPOUND_PARTS",
    "MAX_MESH_TRIANGLES",
    "MAX_HULL_POINTS",
    "MAX_HULL_VERTICES",
    "shape_from_dict",
    "shape_to_dict",
]


def _finite_float(value: Any, what: str, limit: float | None = MAX_COORDINATE) -> float:
    """``value`` as a float, finite and (unless ``limit`` is None) at most ``limit`` in magnitude."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidShapeError(f"{what} must be a real number, got {value!r}")
    try:
        f = float(value)
    except OverflowError:  # an int beyond float range
        f = math.inf
    if not math.isfinite(f):
        raise InvalidShapeError(f"{what} must be finite, got {value!r}")
    if limit is not None and abs(f) > limit:
        raise InvalidShapeError(f"{what} must be at most {limit:g} in magnitude, got {value!r}")
    return f


def _positive(value: Any, what: str) -> float:
    f = _finite_float(value, what)
    if f <= 0:
        raise InvalidShapeError(f"{what} must be > 0, got {value!r}")
    return f


def _rounding(value: Any, what: str) -> float:
    """A rounding radius: finite, ``>= 0`` (0: the shape's own sharp corners)."""
    f = _finite_float(value, what)
    if f < 0:
        raise InvalidShapeError(f"{what} must be >= 0, got {value!r}")
    return f + 0.0  # -0.0 -> 0.0


def _vector(value: Any, what: str, dims: tuple[int, ...], limit: float | None = MAX_COORDINATE) -> tuple[float, ...]:
    try:
        items = list(value)
    except TypeError:
        raise InvalidShapeError(
            f"{what} must be a sequence of {' or '.join(map(str, dims))} numbers, got {value!r}"
        ) from None
    if len(items) not in dims:
        raise InvalidShapeError(
            f"{what} must have {' or '.join(map(str, dims))} components, got {len(items)}: {value!r}"
        )
    return tuple(_finite_float(v, f"{what}[{i}]", limit) for i, v in enumerate(items))


@dataclass(frozen=True, slots=True)
class Circle:
    """A disc of ``radius`` centred on the body's origin (2D).

    Parameters
    ----------
    radius : float
        ``> 0``; stored as a float.

    Examples
    --------
    >>> Circle(0.5).radius
    0.5
    """

    radius: float
    dim: ClassVar[int] = 2
    kind: ClassVar[str] = "circle"
    is_infinite: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", _positive(self.radius, "Circle radius"))

    @property
    def bounding_radius(self) -> float:
        """Radius of the smallest origin-centred disc containing the shape."""
        return self.radius


@dataclass(frozen=True, slots=True)
class Sphere:
    """A ball of ``radius`` centred on the body's origin (3D).

    Parameters
    ----------
    radius : float
        ``> 0``; stored as a float.

    Examples
    --------
    >>> ball = Sphere(2)
    >>> ball.radius, ball.dim
    (2.0, 3)
    """

    radius: float
    dim: ClassVar[int] = 3
    kind: ClassVar[str] = "sphere"
    is_infinite: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", _positive(self.radius, "Sphere radius"))

    @property
    def bounding_radius(self) -> float:
        return self.radius


@dataclass(frozen=True, slots=True, repr=False)
class Box:
    """A box centred on the body's origin, edges along the local axes.

    ``half_extents`` has 2 components for a 2D rectangle, 3 for a 3D box; the
    number of components decides the dimension.

    Parameters
    ----------
    half_extents : sequence of float, shape (2,) or (3,)
        Half the side lengths, each ``> 0``; stored as a tuple of floats.
    radius : float, optional
        ``>= 0`` (default 0): the rounded box, every point within ``radius``
        of the box of ``half_extents`` (its core).

    Examples
    --------
    >>> Box((1, 2)).dim, Box((1, 2, 3)).dim
    (2, 3)
    >>> Box((1, 2), radius=0.25)
    Box(half_extents=(1.0, 2.0), radius=0.25)
    >>> Box((1, -2))
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidShapeError: Box half_extents[1] must be > 0, got -2
    """

    half_extents: tuple[float, ...]
    radius: float = 0.0
    kind: ClassVar[str] = "box"
    is_infinite: ClassVar[bool] = False

    def __post_init__(self) -> None:
        he = _vector(self.half_extents, "Box half_extents", (2, 3))
        for i, h in enumerate(he):
            if h <= 0:
                raise InvalidShapeError(f"Box half_extents[{i}] must be > 0, got {h:g}")
        object.__setattr__(self, "half_extents", he)
        object.__setattr__(self, "radius", _rounding(self.radius, "Box radius"))

    def __repr__(self) -> str:
        rounded = f", radius={self.radius!r}" if self.radius else ""
        return f"Box(half_extents={self.half_extents!r}{rounded})"

    @property
    def dim(self) -> int:
        return len(self.half_extents)

    @property
    def bounding_radius(self) -> float:
        return float(math.sqrt(sum(h * h for h in self.half_extents))) + self.radius


class Polygon:
    """A simple polygon (2D), convex or concave, in either winding.

    ``vertices`` are kept as given. Validation rejects fewer than 3 distinct
    vertices, zero area and self-intersecting edges. Collinear and repeated
    consecutive vertices are allowed and dropped from the convex pieces.

    Immutable, compared and hashed by its vertices. The vertices are kept
    once, as the bytes of one float64 array (a world of 100,000 distinct
    polygons pays about a fifth of what tuples of Python floats cost), and
    a polygon given counter-clockwise and clean, whose one part is its
    vertices, keeps no part of its own: :attr:`vertices` and :attr:`parts`
    are made from those bytes when read.

    Parameters
    ----------
    vertices : sequence of (x, y), shape (K, 2)
        The boundary in order, ``K >= 3``; stored as floats.
    radius : float, optional
        ``>= 0`` (default 0): the rounded polygon, every point within
        ``radius`` of the polygon of ``vertices`` (its core).

    Attributes
    ----------
    is_convex : bool
        Whether the polygon is convex: then :attr:`parts` has exactly one piece.

    Examples
    --------
    >>> l_shape = Polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)])
    >>> l_shape.is_convex, len(l_shape.parts) >= 2
    (False, True)
    >>> Polygon([(0, 0), (1, 0), (0, 1)])
    Polygon(vertices=((0.0, 0.0), (1.0, 0.0), (0.0, 1.0)))
    """

    __slots__ = ("_xy", "_parts", "is_convex", "radius")
    __match_args__ = ("vertices",)
    _xy: bytes  # the vertices as given: a (K, 2) float64 array's bytes
    _parts: tuple[NDArray[np.float64], ...] | None  # None: the one part is the vertices
    is_convex: bool
    radius: float
    dim: ClassVar[int] = 2
    kind: ClassVar[str] = "polygon"
    is_infinite: ClassVar[bool] = False

    def __init__(self, vertices: Sequence[Sequence[float]], radius: float = 0.0) -> None:
        object.__setattr__(self, "radius", _rounding(radius, "Polygon radius"))
        try:
            raw = [tuple(v) for v in vertices]
        except TypeError:
            raise InvalidShapeError(
                f"Polygon vertices must be a sequence of (x, y) pairs, got {vertices!r}"
            ) from None
        verts: list[tuple[float, float]] = []
        for i, v in enumerate(raw):
            if len(v) != 2:
                raise InvalidShapeError(f"Polygon vertex {i} must have 2 coordinates, got {v!r}")
            verts.append((_finite_float(v[0], f"Polygon vertex {i} x"),
                          _finite_float(v[1], f"Polygon vertex {i} y")))
        arr = np.array(verts, dtype=np.float64)
        if arr.ndim != 2:  # no vertices at all; a reshape is a second array object, so only then
            arr = arr.reshape(-1, 2)
        # The checks and the decomposition square and multiply coordinates
        # (edge lengths, cross products), which underflow for a polygon under
        # ~1e-154: they see the vertices scaled by a power of two to magnitude
        # ~1, exactly, and the pieces are scaled back (exactly: they are
        # vertices), so a scaled polygon is accepted and split as the unscaled.
        size = float(np.abs(arr).max(initial=0.0))
        shift = math.frexp(size)[1] if size > 0 else 0
        unit = np.ldexp(arr, -shift)
        problem = _poly.polygon_problem(unit)
        if problem is not None:
            problem = _poly.polygon_problem(arr) or problem  # the message in the given units
            raise InvalidShapeError(f"Polygon is not valid: {problem} (vertices {list(verts)!r})")
        ccw_unit = _poly.clean_polygon(unit)
        ccw = np.ldexp(ccw_unit, shift)
        convex = _poly.is_convex(ccw_unit)
        parts: tuple[NDArray[np.float64], ...] | None = None
        if not (convex and ccw.shape == arr.shape and np.array_equal(ccw, arr)):
            parts = (ccw,) if convex else tuple(np.ldexp(p, shift) for p in _poly.convex_decomposition(ccw_unit))
            for p in parts:
                p.setflags(write=False)
        object.__setattr__(self, "_xy", arr.tobytes())
        object.__setattr__(self, "_parts", parts)
        object.__setattr__(self, "is_convex", convex)

    def _array(self) -> NDArray[np.float64]:
        """The vertices as a read-only (K, 2) array (over the kept bytes, no copy)."""
        return np.frombuffer(self._xy, dtype=np.float64).reshape(-1, 2)

    @property
    def parts(self) -> tuple[NDArray[np.float64], ...]:
        """Convex pieces, counter-clockwise, no repeated or collinear vertices: read-only (k, 2) arrays.

        Examples
        --------
        >>> [p.tolist() for p in Polygon([(0, 0), (1, 0), (0, 1)]).parts]
        [[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]]
        """
        return (self._array(),) if self._parts is None else self._parts

    @property
    def vertices(self) -> tuple[tuple[float, float], ...]:
        """The vertices as given, as a tuple of ``(x, y)`` float pairs (shape (K, 2)).

        Examples
        --------
        >>> Polygon([(0, 0), (1, 0), (0, 1)]).vertices
        ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0))
        """
        return tuple((x, y) for x, y in self._array().tolist())

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Polygon, (self.vertices, self.radius) if self.radius else (self.vertices,))

    def __repr__(self) -> str:
        rounded = f", radius={self.radius!r}" if self.radius else ""
        return f"Polygon(vertices={self.vertices!r}{rounded})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Polygon) or self.radius != other.radius:
            return self is other
        # -0.0 == 0.0, as the tuples of floats compared; ``other._array``: the same class's cached array
        return self is other or np.array_equal(self._array(), other._array())

    def __hash__(self) -> int:
        # + 0.0 turns -0.0 into 0.0: equal polygons hash equal
        if self.radius:
            return hash(("polygon", (self._array() + 0.0).tobytes(), self.radius))
        return hash(("polygon", (self._array() + 0.0).tobytes()))

    @property
    def bounding_radius(self) -> float:
        return float(max(math.hypot(x, y) for x, y in self._array().tolist())) + self.radius


def _normalised_plane(normal: Any, offset: Any, dims: tuple[int, ...], name: str) -> tuple[tuple[float, ...], float]:
    # Only the normal's direction matters, so any finite components are fine;
    # scale by the largest first so neither huge nor subnormal ones overflow
    # or lose their precision in the length.
    n = _vector(normal, f"{name} normal", dims, limit=None)
    d = _finite_float(offset, f"{name} offset", limit=None)
    biggest = max(abs(c) for c in n)
    if biggest == 0:
        raise InvalidShapeError(f"{name} normal must be non-zero, got {tuple(normal)!r}")
    scaled = [c / biggest for c in n]
    length = math.hypot(*scaled)
    unit = tuple(c / length for c in scaled)
    offset_along_unit = d / biggest / length
    if not abs(offset_along_unit) <= MAX_COORDINATE:
        raise InvalidShapeError(f"{name} offset divided by the normal's length must be at most "
                                f"{MAX_COORDINATE:g} in magnitude, got {d!r} / {biggest * length!r}")
    return unit, offset_along_unit


@dataclass(frozen=True, slots=True)
class HalfPlane:
    """All world points ``p`` with ``dot(normal, p) <= offset`` (2D); no pose.

    A normal that is not unit length is normalised and ``offset`` divided by
    the same length. The normal points out of the solid.

    Parameters
    ----------
    normal : sequence of float, shape (2,)
        Non-zero outward normal.
    offset : float

    Examples
    --------
    The half-plane ``2 y <= 4``, i.e. everything at or below ``y = 2``:

    >>> HalfPlane((0, 2), 4)
    HalfPlane(normal=(0.0, 1.0), offset=2.0)
    """

    normal: tuple[float, float]
    offset: float
    dim: ClassVar[int] = 2
    kind: ClassVar[str] = "halfplane"
    is_infinite: ClassVar[bool] = True

    def __post_init__(self) -> None:
        n, d = _normalised_plane(self.normal, self.offset, (2,), "HalfPlane")
        object.__setattr__(self, "normal", n)
        object.__setattr__(self, "offset", d)


@dataclass(frozen=True, slots=True)
class Plane:
    """All world points ``p`` with ``dot(normal, p) <= offset`` (3D); no pose.

    Normalised like :class:`HalfPlane`.

    Parameters
    ----------
    normal : sequence of float, shape (3,)
        Non-zero outward normal.
    offset : float

    Examples
    --------
    The ground ``z <= 0`` and the half-space ``3 z <= 6``, i.e. ``z <= 2``:

    >>> Plane((0, 0, 1), 0).offset
    0.0
    >>> Plane((0, 0, 3), 6)
    Plane(normal=(0.0, 0.0, 1.0), offset=2.0)
    """

    normal: tuple[float, float, float]
    offset: float
    dim: ClassVar[int] = 3
    kind: ClassVar[str] = "plane"
    is_infinite: ClassVar[bool] = True

    def __post_init__(self) -> None:
        n, d = _normalised_plane(self.normal, self.offset, (3,), "Plane")
        object.__setattr__(self, "normal", n)
        object.__setattr__(self, "offset", d)


def _capsule_points(p0: Any, p1: Any, name: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Validated end points of a capsule or segment: 2 or 3 finite coordinates each, the same count."""
    a = _vector(p0, f"{name} p0", (2, 3))
    b = _vector(p1, f"{name} p1", (2, 3))
    if len(a) != len(b):
        raise InvalidShapeError(f"{name} p0 and p1 must have the same number of coordinates, "
                                f"got {len(a)} and {len(b)}: {p0!r}, {p1!r}")
    return a, b


@dataclass(frozen=True, slots=True)
class Capsule:
    """All points within ``radius`` of the segment ``p0``-``p1`` (2D or 3D).

    The number of coordinates of the points decides the dimension. ``p0 ==
    p1`` is allowed: the capsule is then a disc (2D) or a ball (3D) centred
    on that point. A capsule of radius 0 is a :class:`Segment`.

    Parameters
    ----------
    p0, p1 : sequence of float, shape (2,) or (3,)
        End points of the core segment in the body's local frame, each
        coordinate finite and at most 1e150 in magnitude.
    radius : float
        ``> 0``, at most 1e150.

    Examples
    --------
    >>> c = Capsule((-1, 0), (1, 0), 0.5)
    >>> c.dim, c.bounding_radius
    (2, 1.5)
    >>> Capsule((0, 0, 0), (0, 0), 1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidShapeError: Capsule p0 and p1 must have the same number of coordinates, got 3 and 2...
    """

    p0: tuple[float, ...]
    p1: tuple[float, ...]
    radius: float
    kind: ClassVar[str] = "capsule"
    is_infinite: ClassVar[bool] = False

    def __post_init__(self) -> None:
        a, b = _capsule_points(self.p0, self.p1, "Capsule")
        object.__setattr__(self, "p0", a)
        object.__setattr__(self, "p1", b)
        object.__setattr__(self, "radius", _positive(self.radius, "Capsule radius"))

    @property
    def dim(self) -> int:
        return len(self.p0)

    @property
    def bounding_radius(self) -> float:
        """Radius of the smallest origin-centred ball containing the shape."""
        return max(math.hypot(*self.p0), math.hypot(*self.p1)) + self.radius


@dataclass(frozen=True, slots=True)
class Segment:
    """The segment ``p0``-``p1`` itself (2D or 3D): a capsule of radius 0.

    Parameters
    ----------
    p0, p1 : sequence of float, shape (2,) or (3,)
        Distinct end points in the body's local frame, each coordinate finite
        and at most 1e150 in magnitude.

    Attributes
    ----------
    radius : float
        Always 0.0 (so a segment goes wherever a capsule goes).

    Examples
    --------
    >>> Segment((0, 0, 0), (0, 0, 2)).dim
    3
    >>> Segment((1, 1), (1, 1))
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidShapeError: Segment p0 and p1 must differ, got both (1.0, 1.0)
    """

    p0: tuple[float, ...]
    p1: tuple[float, ...]
    kind: ClassVar[str] = "segment"
    is_infinite: ClassVar[bool] = False
    radius: ClassVar[float] = 0.0

    def __post_init__(self) -> None:
        a, b = _capsule_points(self.p0, self.p1, "Segment")
        if a == b:
            raise InvalidShapeError(f"Segment p0 and p1 must differ, got both {a!r}")
        object.__setattr__(self, "p0", a)
        object.__setattr__(self, "p1", b)

    @property
    def dim(self) -> int:
        return len(self.p0)

    @property
    def bounding_radius(self) -> float:
        """Radius of the smallest origin-centred ball containing the shape."""
        return max(math.hypot(*self.p0), math.hypot(*self.p1))


#: Most points a :class:`ConvexHull` accepts.
MAX_HULL_POINTS = 100_000
#: Most vertices a :class:`ConvexHull`'s hull may have: its contact kernels
#: test every pair of edges of two hulls (a 256-vertex hull has up to 762 edges).
MAX_HULL_VERTICES = 256


@dataclass(frozen=True, eq=False)
class ConvexHull:
    """The convex hull of a set of 3D points, in the body's local frame.

    The hull is computed once, here, with Qhull (through scipy, imported on
    first use; Barber, Dobkin & Huhdanpaa 1996), whose merged facets keep
    near-coplanar input robust. A hand-written quickhull would have to
    reproduce that care for inputs up to ``MAX_HULL_POINTS`` (100,000); scipy is a
    runtime dependency of this shape only.

    Parameters
    ----------
    points : sequence of (x, y, z), shape (K, 3)
        At least 4 points, not all on one plane, at most
        ``MAX_HULL_POINTS`` (100,000), each coordinate finite and at most 1e150 in
        magnitude; stored as a tuple of float triples. The hull may have at
        most ``MAX_HULL_VERTICES`` (256) vertices.

    Attributes
    ----------
    vertices : ndarray, shape (V, 3)
        The hull's vertices (a subset of ``points``).
    faces : ndarray of int64, shape (F, 3)
        Triangles as indices into ``vertices``, counter-clockwise seen from outside.
    normals : ndarray, shape (F, 3)
        Unit outward normal of each face.
    offsets : ndarray, shape (F,)
        ``normals[f] . p <= offsets[f]`` for every point ``p`` of the hull.
    edges : ndarray of int64, shape (E, 2)
        Each edge of the triangulated hull once, as indices into ``vertices``.
    edge_faces : ndarray of int64, shape (E, 2)
        The two faces beside each edge.

    Examples
    --------
    The unit cube's eight corners and its centre: the centre is not a vertex.

    >>> import itertools
    >>> cube = ConvexHull(list(itertools.product((0, 1), repeat=3)) + [(0.5, 0.5, 0.5)])
    >>> len(cube.vertices), len(cube.faces), len(cube.edges)
    (8, 12, 18)
    >>> ConvexHull([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidShapeError: ConvexHull points all lie on one plane (or a line): ...
    """

    points: tuple[tuple[float, float, float], ...]
    #: ``>= 0`` (default 0): the rounded hull, every point within it of the hull of ``points``.
    radius: float = field(default=0.0, repr=False)
    vertices: NDArray[np.float64] = field(init=False, repr=False, compare=False)
    faces: NDArray[np.int64] = field(init=False, repr=False, compare=False)
    normals: NDArray[np.float64] = field(init=False, repr=False, compare=False)
    offsets: NDArray[np.float64] = field(init=False, repr=False, compare=False)
    edges: NDArray[np.int64] = field(init=False, repr=False, compare=False)
    edge_faces: NDArray[np.int64] = field(init=False, repr=False, compare=False)
    dim: ClassVar[int] = 3
    kind: ClassVar[str] = "convex_hull"
    is_infinite: ClassVar[bool] = False

    def __post_init__(self) -> None:
        try:
            raw = list(self.points)
        except TypeError:
            raise InvalidShapeError(
                f"ConvexHull points must be a sequence of (x, y, z) triples, got {self.points!r}") from None
        object.__setattr__(self, "radius", _rounding(self.radius, "ConvexHull radius"))
        if len(raw) > MAX_HULL_POINTS:
            raise InvalidShapeError(f"ConvexHull takes at most {MAX_HULL_POINTS} points, got {len(raw)}")
        pts = tuple(_vector(p, f"ConvexHull point {i}", (3,)) for i, p in enumerate(raw))
        if len(pts) < 4:
            raise InvalidShapeError(f"ConvexHull needs at least 4 points not on one plane, got {len(pts)}")
        object.__setattr__(self, "points", pts)
        arr = np.array(pts, dtype=np.float64)
        flat = InvalidShapeError(f"ConvexHull points all lie on one plane (or a line): the hull has no volume; "
                                 f"got {len(pts)} points")
        # Qhull's arithmetic (squared distances, determinants of products of
        # three coordinates) overflows or underflows long before 1e150 or
        # 1e-150, so it and the rank test see the points scaled by a power of
        # two to magnitude ~1: exact, so the hull and its normals are those
        # of the given points, and vertices and offsets come from ``arr``.
        size = float(np.abs(arr).max())
        unit = np.ldexp(arr, -math.frexp(size)[1]) if size > 0 else arr
        # rank test first: Qhull's own complaint about flat input is long and cryptic
        centred = unit - unit.mean(axis=0)
        sv = np.linalg.svd(centred, compute_uv=False)
        if not sv[-1] > 1e-12 * sv[0]:
            raise flat
        try:
            from scipy.spatial import ConvexHull as _Qhull
            from scipy.spatial import QhullError
        except ImportError:  # pragma: no cover - scipy is a dependency
            from .errors import MissingExtraError
            raise MissingExtraError("ConvexHull needs scipy: pip install scipy") from None
        try:
            hull = _Qhull(unit)
        except QhullError:
            raise flat from None
        used = np.array(sorted(set(hull.simplices.ravel().tolist())), dtype=np.int64)
        if len(used) > MAX_HULL_VERTICES:
            raise InvalidShapeError(f"ConvexHull may have at most {MAX_HULL_VERTICES} hull vertices, "
                                    f"got {len(used)} (from {len(pts)} points)")
        renumber = np.full(len(arr), -1, dtype=np.int64)
        renumber[used] = np.arange(len(used))
        verts = arr[used]
        faces = renumber[hull.simplices]
        normals = hull.equations[:, :3] / np.linalg.norm(hull.equations[:, :3], axis=1)[:, None]
        # orient every triangle counter-clockwise seen from outside
        uv = unit[used]  # the cross products of the scaled points neither overflow nor underflow
        a, b, c = uv[faces[:, 0]], uv[faces[:, 1]], uv[faces[:, 2]]
        wrong = np.einsum("fi,fi->f", np.cross(b - a, c - a), normals) < 0
        faces[wrong] = faces[wrong][:, ::-1]
        # the offset from the vertices themselves: every vertex is inside every face plane
        offsets = (verts @ normals.T).max(axis=0)
        pairs = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]), axis=1)
        edges, which = np.unique(pairs, axis=0, return_inverse=True)
        # a closed triangulated surface: every edge lies between exactly two faces
        face_of = np.tile(np.arange(len(faces)), 3)
        order = np.argsort(which.ravel(), kind="stable")
        edge_faces = face_of[order].reshape(len(edges), 2)
        for name, value in (("vertices", verts), ("faces", faces), ("normals", normals), ("offsets", offsets),
                            ("edges", edges), ("edge_faces", edge_faces)):
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        rounded = f", radius={self.radius!r}" if self.radius else ""
        return f"ConvexHull(points={self.points!r}{rounded})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConvexHull) and self.points == other.points and self.radius == other.radius

    def __hash__(self) -> int:
        return hash(("convex_hull", self.points, self.radius) if self.radius else ("convex_hull", self.points))

    @property
    def bounding_radius(self) -> float:
        """Radius of the smallest origin-centred ball containing the shape."""
        # hypot: squares of coordinates under ~1e-154 would underflow
        return max(math.hypot(*v) for v in self.vertices.tolist()) + self.radius


#: Most parts a :class:`Compound` accepts (each part is a row of its own in the narrowphase).
MAX_COMPOUND_PARTS = 4096

#: What a compound's part may be: any finite shape, not a compound itself.
PartShape = Circle | Box | Polygon | Sphere | Capsule | Segment | ConvexHull
_PART_TYPES = (Circle, Box, Polygon, Sphere, Capsule, Segment, ConvexHull)


def _part_rotation(value: Any, dim: int, what: str) -> float | tuple[float, float, float, float]:
    """A part's rotation: an angle (2D) or a unit quaternion ``(w, x, y, z)`` (3D), normalised."""
    if dim == 2:
        return _finite_float(value, f"{what} angle", limit=None)
    from .errors import InvalidPoseError
    from .poses import check_quaternion
    try:
        q = check_quaternion(value, f"{what} quaternion")
    except InvalidPoseError as exc:
        raise InvalidShapeError(str(exc)) from None
    w, x, y, z = (float(c) for c in q)
    return (w, x, y, z)


@dataclass(frozen=True)
class Compound:
    """Several shapes posed in one body's frame: one body, one id, one pose (2D or 3D).

    Each part enters the narrowphase as a shape of its own, posed by the
    body's pose composed with the part's local pose, so a compound's pair
    with another body gives one contact per touching pair of parts
    (``Contacts.part_a`` / ``part_b`` say which).

    Parameters
    ----------
    parts : sequence of tuple
        ``(shape, position)`` or ``(shape, position, rotation)`` in the
        body's local frame: ``rotation`` an angle in radians (2D) or a unit
        quaternion ``(w, x, y, z)`` or 3x3 rotation matrix (3D), the
        identity when left out. Any finite shape of one dimension (no
        half-plane, plane or compound), 1 to ``MAX_COMPOUND_PARTS`` (4096) parts.

    Attributes
    ----------
    parts : tuple of (shape, position, rotation)
        Normalised: positions as float tuples, 2D angles as floats, 3D
        rotations as unit quaternion tuples.

    Examples
    --------
    A car: a body box and four wheels, one body.

    >>> car = Compound([(Box((2.0, 0.5)), (0, 0.5))] +
    ...                [(Circle(0.4), (x, 0.0)) for x in (-1.5, -0.5, 0.5, 1.5)])
    >>> car.dim, len(car.parts), round(car.bounding_radius, 6)
    (2, 5, 2.561553)
    >>> Compound([])
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidShapeError: Compound needs at least one part, got []
    """

    parts: Sequence[Any]
    kind: ClassVar[str] = "compound"
    is_infinite: ClassVar[bool] = False

    def __post_init__(self) -> None:
        raw = self.parts
        if isinstance(raw, (str, bytes)) or not hasattr(raw, "__iter__"):
            raise InvalidShapeError(f"Compound parts must be a list of (shape, position[, rotation]) tuples, "
                                    f"got {raw!r}")
        items = list(raw)
        if not items:
            raise InvalidShapeError(f"Compound needs at least one part, got {raw!r}")
        if len(items) > MAX_COMPOUND_PARTS:
            raise InvalidShapeError(f"Compound takes at most {MAX_COMPOUND_PARTS} parts, got {len(items)}")
        out = []
        dim: int | None = None
        for i, item in enumerate(items):
            what = f"Compound part {i}"
            if not isinstance(item, (tuple, list)) or len(item) not in (2, 3):
                raise InvalidShapeError(f"{what} must be (shape, position) or (shape, position, rotation), "
                                        f"got {item!r}")
            shape = item[0]
            if isinstance(shape, Compound):
                raise InvalidShapeError(f"{what}: a compound cannot hold a compound (flatten it), got {shape!r}")
            if isinstance(shape, (HalfPlane, Plane)):
                raise InvalidShapeError(f"{what}: a {shape.kind} is infinite and cannot be part of a compound, "
                                        f"got {shape!r}")
            if isinstance(shape, (TriangleMesh, HeightField)):
                raise InvalidShapeError(f"{what}: a {shape.kind} is a surface of many triangles and cannot be part of "
                                        f"a compound (add it as a body of its own), got {shape!r}")
            if isinstance(shape, (Cylinder, Cone)):
                # (a compound's parts are posed vertex hulls to distance() and the queries; a curved part is not one)
                raise InvalidShapeError(f"{what}: a {shape.kind} cannot be part of a compound (add it as a body of "
                                        f"its own), got {shape!r}")
            if not isinstance(shape, _PART_TYPES):
                raise InvalidShapeError(f"{what} shape must be a collideworld shape (Circle, Box, ...), got {shape!r}")
            if dim is None:
                dim = shape.dim
            elif shape.dim != dim:
                raise InvalidShapeError(f"{what} is a {shape.dim}D {shape.kind}, but part 0 is {dim}D: "
                                        f"every part must have one dimension")
            pos = _vector(item[1], f"{what} position", (dim,))
            if len(item) == 3 and item[2] is not None:
                rot = _part_rotation(item[2], dim, what)
            else:
                rot = 0.0 if dim == 2 else (1.0, 0.0, 0.0, 0.0)
            out.append((shape, pos, rot))
        object.__setattr__(self, "parts", tuple(out))

    @property
    def dim(self) -> int:
        return int(self.parts[0][0].dim)

    @property
    def bounding_radius(self) -> float:
        """Radius of the smallest ball about the body's origin containing every part's bounding ball."""
        return float(max(math.hypot(*pos) + shape.bounding_radius for shape, pos, _ in self.parts))



def _radius_and_half_height(name: str, radius: Any, half_height: Any) -> tuple[float, float]:
    """Both of a cylinder's or cone's sizes, each finite and ``> 0``; the error names the shape."""
    return _positive(radius, f"{name} radius"), _positive(half_height, f"{name} half_height")


@dataclass(frozen=True, slots=True)
class Cylinder:
    """A solid cylinder around the local z axis, from ``z = -half_height`` to ``+half_height`` (3D).

    Parameters
    ----------
    radius, half_height : float
        Each ``> 0``; stored as floats.

    Examples
    --------
    >>> Cylinder(1, 2).bounding_radius == 5 ** 0.5
    True
    >>> Cylinder(-1, 2)
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidShapeError: Cylinder radius must be > 0, got -1
    """

    radius: float
    half_height: float
    dim: ClassVar[int] = 3
    kind: ClassVar[str] = "cylinder"
    is_infinite: ClassVar[bool] = False

    def __post_init__(self) -> None:
        r, h = _radius_and_half_height("Cylinder", self.radius, self.half_height)
        object.__setattr__(self, "radius", r)
        object.__setattr__(self, "half_height", h)

    @property
    def bounding_radius(self) -> float:
        """Radius of the smallest origin-centred ball containing the shape (a rim point)."""
        return math.hypot(self.radius, self.half_height)


@dataclass(frozen=True, slots=True)
class Cone:
    """A solid cone: base disc of ``radius`` at ``z = -half_height``, apex at ``z = +half_height`` (3D).

    The frame is python-fcl's and coal's ``Cone(radius, 2 * half_height)``.

    Parameters
    ----------
    radius, half_height : float
        Each ``> 0``; stored as floats.

    Examples
    --------
    >>> Cone(3, 4).bounding_radius
    5.0
    >>> Cone(1, float("nan"))
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidShapeError: Cone half_height must be finite, got nan
    """

    radius: float
    half_height: float
    dim: ClassVar[int] = 3
    kind: ClassVar[str] = "cone"
    is_infinite: ClassVar[bool] = False

    def __post_init__(self) -> None:
        r, h = _radius_and_half_height("Cone", self.radius, self.half_height)
        object.__setattr__(self, "radius", r)
        object.__setattr__(self, "half_height", h)

    @property
    def bounding_radius(self) -> float:
        """Radius of the smallest origin-centred ball containing the shape (a base rim point)."""
        return math.hypot(self.radius, self.half_height)



#: Most triangles a :class:`TriangleMesh` (or cells x 2 of a :class:`HeightField`) may have.
MAX_MESH_TRIANGLES = 2_000_000


def _active_edges(verts: NDArray[np.float64], tris: NDArray[np.int64], normals: NDArray[np.float64]
                  ) -> NDArray[np.bool_]:
    """Per triangle edge k (vertices k, k+1): True unless it is an inner edge between two coplanar triangles.

    The no-snag rule (Bullet's btInternalEdgeUtility, Jolt's active edges): a
    contact whose normal comes from an inactive edge or vertex gets the face
    normal instead, so nothing catches on the seams of a flat surface. An
    edge shared by exactly two triangles whose normals are parallel (either
    orientation: the surface is two-sided) is inactive; an edge on the
    boundary or shared by three or more triangles stays active.
    """
    t = len(tris)
    ends = np.stack([tris, np.roll(tris, -1, axis=1)], axis=2).reshape(-1, 2)  # (3T, 2), row 3i + k
    key = np.sort(ends, axis=1)
    _, inverse, counts = np.unique(key, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    shared = counts[inverse] == 2
    order = np.argsort(inverse, kind="stable")
    # the two rows of each edge shared twice are adjacent in ``order``
    other = np.full(3 * t, -1, dtype=np.int64)
    first, second = order[:-1], order[1:]
    same = inverse[first] == inverse[second]
    other[first[same]] = second[same]
    other[second[same]] = first[same]
    active = np.ones(3 * t, dtype=bool)
    rows = np.flatnonzero(shared & (other >= 0))
    n_self = normals[rows // 3]
    n_other = normals[other[rows] // 3]
    # parallel within 1e-9 rad (|sin| of the dihedral angle): flat, so the seam is not a feature
    flat = np.linalg.norm(np.cross(n_self, n_other), axis=1) <= 1e-9
    active[rows[flat]] = False
    return active.reshape(t, 3)


def _mesh_arrays(name: str, verts: NDArray[np.float64], tris: NDArray[np.int64]
                 ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Unit normals and active-edge flags of a validated vertex/triangle array pair; rejects zero-area triangles."""
    a, b, c = verts[tris[:, 0]], verts[tris[:, 1]], verts[tris[:, 2]]
    # the cross product of the edges scaled to magnitude ~1 (exact powers of two): no overflow near 1e150
    size = float(np.abs(verts).max()) if len(verts) else 0.0
    scale = math.ldexp(1.0, -math.frexp(size)[1]) if size > 0 else 1.0
    cross = np.cross((b - a) * scale, (c - a) * scale)
    area = np.linalg.norm(cross, axis=1)
    longest = np.maximum(np.maximum(np.linalg.norm((b - a) * scale, axis=1), np.linalg.norm((c - a) * scale, axis=1)),
                         np.linalg.norm((c - b) * scale, axis=1))
    bad = np.flatnonzero(~(area > 1e-12 * longest * longest))
    if len(bad):
        i = int(bad[0])
        raise InvalidShapeError(f"{name} triangle {i} {tris[i].tolist()} is degenerate (zero area: its vertices "
                                f"{verts[tris[i]].tolist()} lie on one line); every triangle needs three "
                                f"distinct, non-collinear vertices")
    normals = cross / area[:, None]
    return normals, _active_edges(verts, tris, normals)


@dataclass(frozen=True, eq=False)
class TriangleMesh:
    """A triangle mesh, 3D: the union of its triangles, a surface (not the volume it may enclose).

    Contacts are reported per touching triangle (``part`` = the triangle's
    index); a contact at a seam between two coplanar triangles gets the face
    normal (no snagging on the inner edges of a flat surface).

    Parameters
    ----------
    vertices : array_like, shape (V, 3)
        At least 3 points, each coordinate finite and at most 1e150 in magnitude.
    triangles : array_like of int, shape (T, 3)
        At least 1 triangle, indices into ``vertices``; no triangle with two
        equal indices or zero area.

    Attributes
    ----------
    normals : ndarray, shape (T, 3)
        Unit normal of each triangle, ``(v1 - v0) x (v2 - v0)`` normalised.
    active : ndarray of bool, shape (T, 3)
        Edge k of triangle t (from vertex k to k + 1) is active: not an inner
        edge between two coplanar triangles.

    Examples
    --------
    >>> quad = TriangleMesh([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)], [(0, 1, 2), (0, 2, 3)])
    >>> len(quad.triangles), quad.active.tolist()
    (2, [[True, True, False], [False, True, True]])
    >>> TriangleMesh([(0, 0, 0), (1, 0, 0), (2, 0, 0)], [(0, 1, 2)])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidShapeError: TriangleMesh triangle 0 [0, 1, 2] is degenerate ...
    """

    vertices: NDArray[np.float64]
    triangles: NDArray[np.int64]
    normals: NDArray[np.float64] = field(init=False, repr=False, compare=False)
    active: NDArray[np.bool_] = field(init=False, repr=False, compare=False)
    dim: ClassVar[int] = 3
    kind: ClassVar[str] = "triangle_mesh"
    is_infinite: ClassVar[bool] = False

    def __post_init__(self) -> None:
        verts = _float_rows(self.vertices, "TriangleMesh vertices", 3)
        if len(verts) < 3:
            raise InvalidShapeError(f"TriangleMesh needs at least 3 vertices, got {len(verts)}")
        tris = _index_rows(self.triangles, "TriangleMesh triangles", len(verts))
        if len(tris) > MAX_MESH_TRIANGLES:
            raise InvalidShapeError(f"TriangleMesh takes at most {MAX_MESH_TRIANGLES} triangles, got {len(tris)}")
        normals, active = _mesh_arrays("TriangleMesh", verts, tris)
        arrays: tuple[tuple[str, NDArray[Any]], ...] = (("vertices", verts), ("triangles", tris), ("normals", normals),
                                                       ("active", active))
        for name, value in arrays:
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    @classmethod
    def from_trimesh(cls, mesh_or_path: Any) -> TriangleMesh:
        """A mesh from a ``trimesh.Trimesh`` or from a file trimesh reads (STL, OBJ, PLY, GLB, ...).

        Needs the optional ``mesh`` extra (``pip install collideworld[mesh]``);
        the file is parsed by trimesh, never here. A scene (several meshes) is
        concatenated into one mesh.
        """
        try:
            import trimesh  # type: ignore[import-not-found, unused-ignore]
        except ImportError:
            from .errors import MissingExtraError
            raise MissingExtraError("TriangleMesh.from_trimesh needs trimesh: pip install collideworld[mesh]") from None
        mesh = mesh_or_path
        if not isinstance(mesh, trimesh.Trimesh):
            if isinstance(mesh, trimesh.Scene):
                mesh = mesh.to_geometry()
            elif isinstance(mesh, (str, os.PathLike)):
                mesh = trimesh.load(mesh_or_path, force="mesh", process=False)
        if not isinstance(mesh, trimesh.Trimesh):
            raise InvalidShapeError(f"TriangleMesh.from_trimesh needs a trimesh.Trimesh or a mesh file, "
                                    f"got {mesh_or_path!r}")
        return cls(np.asarray(mesh.vertices, dtype=np.float64), np.asarray(mesh.faces, dtype=np.int64))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, TriangleMesh) and np.array_equal(self.vertices, other.vertices)
                and np.array_equal(self.triangles, other.triangles))

    def __hash__(self) -> int:
        return hash(("triangle_mesh", self.vertices.tobytes(), self.triangles.tobytes()))

    def __repr__(self) -> str:
        return f"TriangleMesh(<{len(self.vertices)} vertices>, <{len(self.triangles)} triangles>)"

    @functools.cached_property
    def bvh(self) -> TriangleBVH:
        """The bounding volume hierarchy of the triangles (local frame), built on first use, once."""
        corners = self.vertices[self.triangles]
        return TriangleBVH(corners.min(axis=1), corners.max(axis=1))

    def nearby(self, lo: NDArray[np.float64], hi: NDArray[np.float64], backend: str = "numpy"
               ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``(box row, triangle)`` of the triangles whose boxes meet local boxes ``lo``/``hi`` (K, 3), sorted.

        ``backend="compiled"``: the tree walked in one compiled call (the same answer).
        """
        return self.bvh.query(lo, hi, backend)

    @property
    def bounding_radius(self) -> float:
        """Radius of the smallest origin-centred ball containing the shape."""
        return float(np.sqrt(np.einsum("ij,ij->i", self.vertices, self.vertices).max()))


@dataclass(frozen=True, eq=False)
class HeightField:
    """A heightfield, 3D: the surface through the points ``(j dx, i dy, heights[i][j])`` in the body's frame.

    Each cell (i, j) is split into the triangles (i, j)-(i, j+1)-(i+1, j+1)
    (number ``2 (i (columns - 1) + j)``) and (i, j)-(i+1, j+1)-(i+1, j) (that
    plus 1); contacts are reported per touching triangle, as for a
    :class:`TriangleMesh`, with the same no-snag rule.

    Parameters
    ----------
    heights : array_like, shape (rows, columns)
        At least 2 x 2, every row the same length, finite.
    cell : (dx, dy)
        Both > 0.

    Examples
    --------
    >>> hf = HeightField([[0, 0, 0], [0, 1, 0]], (1.0, 2.0))
    >>> hf.vertices.shape, hf.triangles[:2].tolist()
    ((6, 3), [[0, 1, 4], [0, 4, 3]])
    >>> HeightField([[0, 0], [0]], (1, 1))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidShapeError: HeightField heights row 1 has 1 values, but row 0 has 2: ...
    """

    heights: NDArray[np.float64]
    cell: tuple[float, float]
    vertices: NDArray[np.float64] = field(init=False, repr=False, compare=False)
    triangles: NDArray[np.int64] = field(init=False, repr=False, compare=False)
    normals: NDArray[np.float64] = field(init=False, repr=False, compare=False)
    active: NDArray[np.bool_] = field(init=False, repr=False, compare=False)
    dim: ClassVar[int] = 3
    kind: ClassVar[str] = "heightfield"
    is_infinite: ClassVar[bool] = False

    def __post_init__(self) -> None:
        raw = self.heights
        if isinstance(raw, np.ndarray):
            rows_list = list(raw) if raw.ndim == 2 else None
        elif isinstance(raw, (list, tuple)):
            rows_list = list(raw)
        else:
            rows_list = None
        if rows_list is None:
            raise InvalidShapeError(f"HeightField heights must be rows x columns numbers, got {raw!r}")
        for i, row in enumerate(rows_list):
            if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
                raise InvalidShapeError(f"HeightField heights row {i} must be a list of numbers, got {row!r}")
            if len(row) != len(rows_list[0]):
                raise InvalidShapeError(f"HeightField heights row {i} has {len(row)} values, but row 0 has "
                                        f"{len(rows_list[0])}: every row needs the same length")
        if len(rows_list) < 2 or len(rows_list[0]) < 2:
            raise InvalidShapeError(f"HeightField needs at least 2 x 2 heights, got {len(rows_list)} x "
                                    f"{len(rows_list[0]) if rows_list else 0}")
        h = _float_rows(rows_list, "HeightField heights", len(rows_list[0]))
        cell = _vector(self.cell, "HeightField cell", (2,))
        for axis, value in zip("xy", cell, strict=True):
            if not value > 0:
                raise InvalidShapeError(f"HeightField cell d{axis} must be > 0, got {value!r}")
        r, c = h.shape
        if 2 * (r - 1) * (c - 1) > MAX_MESH_TRIANGLES:
            raise InvalidShapeError(f"HeightField takes at most {MAX_MESH_TRIANGLES} triangles, "
                                    f"got {2 * (r - 1) * (c - 1)} ({r} x {c} heights)")
        jj, ii = np.meshgrid(np.arange(c), np.arange(r))
        verts = np.stack([jj.ravel() * cell[0], ii.ravel() * cell[1], h.ravel()], axis=1)
        v00 = (ii[:-1, :-1] * c + jj[:-1, :-1]).ravel()
        v01, v10, v11 = v00 + 1, v00 + c, v00 + c + 1
        tris = np.empty((2 * len(v00), 3), dtype=np.int64)
        tris[0::2] = np.stack([v00, v01, v11], axis=1)
        tris[1::2] = np.stack([v00, v11, v10], axis=1)
        normals, active = _mesh_arrays("HeightField", verts, tris)
        object.__setattr__(self, "cell", cell)
        arrays: tuple[tuple[str, NDArray[Any]], ...] = (("heights", h), ("vertices", verts), ("triangles", tris),
                                                       ("normals", normals), ("active", active))
        for name, arr in arrays:
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HeightField) and self.cell == other.cell and np.array_equal(self.heights,
                                                                                             other.heights)

    def __hash__(self) -> int:
        return hash(("heightfield", self.cell, self.heights.tobytes()))

    def __repr__(self) -> str:
        return f"HeightField(<{self.heights.shape[0]} x {self.heights.shape[1]} heights>, cell={self.cell})"

    @functools.cached_property
    def _cell_heights(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        h = self.heights
        corners = np.stack([h[:-1, :-1], h[:-1, 1:], h[1:, :-1], h[1:, 1:]])
        return corners.min(axis=0), corners.max(axis=0)

    def nearby(self, lo: NDArray[np.float64], hi: NDArray[np.float64], backend: str = "numpy"
               ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``(box row, triangle)`` of the triangles whose cells' boxes meet local boxes ``lo``/``hi`` (K, 3).

        ``backend`` is accepted for :meth:`TriangleMesh.nearby`'s sake: the grid needs no tree.
        """
        return heightfield_cells(lo, hi, *self._cell_heights, *self.cell)

    @property
    def bounding_radius(self) -> float:
        """Radius of the smallest origin-centred ball containing the shape."""
        return float(np.sqrt(np.einsum("ij,ij->i", self.vertices, self.vertices).max()))


@dataclass(frozen=True, eq=False)
class Triangle:
    """One triangle of a mesh or heightfield as a store's part slot holds it (not a user shape).

    ``points`` are its vertices relative to its centroid, ``normal`` its unit
    face normal, ``active`` its edges' no-snag flags (see :class:`TriangleMesh`).

    Examples
    --------
    >>> quad = TriangleMesh([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)], [(0, 1, 2), (0, 2, 3)])
    >>> t = mesh_triangles(quad)[1][0]
    >>> t.normal.tolist(), t.active.tolist()
    ([0.0, 0.0, 1.0], [True, True, False])
    """

    points: NDArray[np.float64]
    normal: NDArray[np.float64]
    active: NDArray[np.bool_]
    dim: ClassVar[int] = 3
    kind: ClassVar[str] = "triangle"
    is_infinite: ClassVar[bool] = False

    @property
    def bounding_radius(self) -> float:
        return float(np.sqrt(np.einsum("ij,ij->i", self.points, self.points).max()))


def mesh_triangles(shape: TriangleMesh | HeightField) -> tuple[NDArray[np.float64], list[Triangle]]:
    """The centroids (T, 3) and the :class:`Triangle` parts of a mesh or heightfield, in triangle order.

    Examples
    --------
    >>> centroids, parts = mesh_triangles(HeightField([[0, 0], [0, 0]], (3.0, 3.0)))
    >>> centroids.tolist(), len(parts)
    ([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0]], 2)
    """
    corners = shape.vertices[shape.triangles]
    centroids = corners.mean(axis=1)
    local = corners - centroids[:, None, :]
    return centroids, [Triangle(local[i], shape.normals[i], shape.active[i]) for i in range(len(local))]


def _float_rows(value: Any, what: str, width: int) -> NDArray[np.float64]:
    """A (n, width) float array of finite numbers at most MAX_COORDINATE in magnitude, or a clear error."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidShapeError(f"{what} must be a list of rows of {width} numbers, got {value!r}") from None
    if arr.ndim != 2 or arr.shape[1] != width:
        raise InvalidShapeError(f"{what} must have shape (n, {width}), got an array of shape {arr.shape}")
    bad = np.flatnonzero(~np.all(np.isfinite(arr) & (np.abs(arr) <= MAX_COORDINATE), axis=1))
    if len(bad):
        i = int(bad[0])
        raise InvalidShapeError(f"{what} row {i} must be finite and at most {MAX_COORDINATE:g} in magnitude, "
                                f"got {arr[i].tolist()}")
    return np.ascontiguousarray(arr)


def _index_rows(value: Any, what: str, n_vertices: int) -> NDArray[np.int64]:
    """A (T, 3) int64 array of in-range indices with three distinct indices per row, or a clear error."""
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise InvalidShapeError(f"{what} must be a list of [i, j, k] index triples, got {value!r}") from None
    if raw.ndim != 2 or raw.shape[1] != 3 or len(raw) == 0:
        raise InvalidShapeError(f"{what} must have shape (T, 3) with T >= 1, got an array of shape {raw.shape}")
    if raw.dtype.kind == "f":
        whole = np.isfinite(raw) & (raw == np.round(raw))
        if not whole.all():
            i = int(np.flatnonzero(~whole.all(axis=1))[0])
            raise InvalidShapeError(f"{what} row {i} must hold integer indices, got {raw[i].tolist()}")
    elif raw.dtype.kind not in "iu":
        raise InvalidShapeError(f"{what} must hold integer indices, got dtype {raw.dtype}")
    tris = raw.astype(np.int64)
    out = np.flatnonzero(np.any((tris < 0) | (tris >= n_vertices), axis=1))
    if len(out):
        i = int(out[0])
        raise InvalidShapeError(f"{what} row {i} {tris[i].tolist()} has an index out of range: there are "
                                f"{n_vertices} vertices (indices 0 to {n_vertices - 1})")
    same = np.flatnonzero((tris[:, 0] == tris[:, 1]) | (tris[:, 1] == tris[:, 2]) | (tris[:, 0] == tris[:, 2]))
    if len(same):
        i = int(same[0])
        raise InvalidShapeError(f"{what} row {i} {tris[i].tolist()} repeats an index: a degenerate triangle")
    return np.ascontiguousarray(tris)


#: Most points a :class:`Chain` accepts.
MAX_CHAIN_POINTS = 65_536
#: |sin| of the turn between two chain segments below which they count as one line (no-snag rule).
CHAIN_STRAIGHT = 1e-9


class Chain(Compound):
    """The union of the segments ``points[k]``-``points[k+1]`` (2D), and the last to the first with ``loop``.

    A chain is a terrain or level outline: a compound of :class:`Segment`
    parts at the body's origin, part ``k`` the segment from ``points[k]``,
    so its contacts are reported per segment (``Contacts.part_a`` /
    ``part_b``). Where a shape touches two neighbouring segments that lie
    on one line at the vertex they share, each contact gets its segment's
    face normal: nothing snags on an inner vertex of a straight run.

    Parameters
    ----------
    points : sequence of (x, y)
        2 to ``MAX_CHAIN_POINTS`` points (3 or more with ``loop``), finite,
        no two consecutive points equal (nor the last and the first with ``loop``).
    loop : bool
        Close the chain with a segment from the last point to the first.

    Examples
    --------
    >>> c = Chain([(0, 0), (1, 0), (2, 0)])
    >>> len(c.parts), c.parts[1][0]
    (2, Segment(p0=(1.0, 0.0), p1=(2.0, 0.0)))
    >>> Chain([(0, 0), (1, 0), (1, 0)])
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidShapeError: Chain points[2] equals points[1] (1.0, 0.0): consecutive points must differ
    """

    kind: ClassVar[str] = "chain"
    points: tuple[tuple[float, float], ...]
    loop: bool
    #: per segment: bit 0 set if its start continues a straight line, bit 1 its end
    straight_ends: tuple[int, ...]

    def __init__(self, points: Sequence[Sequence[float]], loop: bool = False) -> None:
        if not isinstance(loop, (bool, np.bool_)):
            raise InvalidShapeError(f"Chain loop must be true or false, got {loop!r}")
        if isinstance(points, (str, bytes)) or not hasattr(points, "__iter__"):
            raise InvalidShapeError(f"Chain points must be a list of (x, y) points, got {points!r}")
        items = list(points)
        least = 3 if loop else 2
        if len(items) < least:
            raise InvalidShapeError(f"Chain{' with loop' if loop else ''} needs at least {least} points, "
                                    f"got {len(items)}")
        if len(items) > MAX_CHAIN_POINTS:
            raise InvalidShapeError(f"Chain takes at most {MAX_CHAIN_POINTS} points, got {len(items)}")
        pts = [_vector(p, f"Chain points[{i}]", (2,)) for i, p in enumerate(items)]
        for i in range(1, len(pts)):
            if pts[i] == pts[i - 1]:
                raise InvalidShapeError(f"Chain points[{i}] equals points[{i - 1}] {pts[i]!r}: "
                                        f"consecutive points must differ")
        if loop and pts[0] == pts[-1]:
            raise InvalidShapeError(f"Chain with loop: points[{len(pts) - 1}] equals points[0] {pts[0]!r} "
                                    f"(the loop closes itself; leave the last point out)")
        ends = pts[1:] + pts[:1] if loop else pts[1:]
        origin = (0.0, 0.0)
        object.__setattr__(self, "parts", tuple((Segment(a, b), origin, 0.0) for a, b in zip(pts, ends, strict=False)))
        object.__setattr__(self, "points", tuple(pts))
        object.__setattr__(self, "loop", bool(loop))
        arr = np.array(pts)
        object.__setattr__(self, "_reach", float(np.max(np.hypot(arr[:, 0], arr[:, 1]))))
        # which segment ends continue straight on into the neighbour (same line, same way): there
        # a contact takes the segment's face normal (the ghost-vertex idea of Box2D's smooth chains)
        t = (np.roll(arr, -1, axis=0) if loop else arr[1:]) - (arr if loop else arr[:-1])
        t /= np.hypot(t[:, 0], t[:, 1])[:, None]
        nxt = np.roll(t, -1, axis=0)
        straight = (np.abs(t[:, 0] * nxt[:, 1] - t[:, 1] * nxt[:, 0]) <= CHAIN_STRAIGHT) & (np.sum(t * nxt, axis=1) > 0)
        if not loop:
            straight[-1] = False
        bits = np.where(straight, 2, 0) | np.where(np.roll(straight, 1), 1, 0)
        object.__setattr__(self, "straight_ends", tuple(int(b) for b in bits))

    @property
    def dim(self) -> int:
        return 2

    @property
    def bounding_radius(self) -> float:
        """Radius of the smallest disc about the body's origin containing every point."""
        return float(self.__dict__["_reach"])

    def __repr__(self) -> str:
        return f"Chain(points={list(self.points)!r}, loop={self.loop!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Chain) and self.points == other.points and self.loop == other.loop

    def __hash__(self) -> int:
        return hash(("chain", self.points, self.loop))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Chain, (self.points, self.loop))


Shape = (Circle | Box | Polygon | HalfPlane | Sphere | Plane | Capsule | Segment | ConvexHull | Compound | Chain
         | TriangleMesh | HeightField | Cylinder | Cone)
SHAPE_TYPES = (Circle, Box, Polygon, HalfPlane, Sphere, Plane, Capsule, Segment, ConvexHull, Compound, Chain,
               TriangleMesh, HeightField, Cylinder, Cone)

_TYPE_KEYS: dict[str, set[str]] = {
    "circle": {"radius"},
    "sphere": {"radius"},
    "box": {"half_extents"},
    "polygon": {"vertices"},
    "halfplane": {"normal", "offset"},
    "plane": {"normal", "offset"},
    "cylinder": {"radius", "half_height"},
    "cone": {"radius", "half_height"},
}
_TYPE_DIM = {"circle": 2, "polygon": 2, "halfplane": 2, "sphere": 3, "plane": 3, "cylinder": 3, "cone": 3}


def shape_from_dict(data: Any, dim: int | None = None) -> Shape:
    """Build a shape from its scenario-file form, e.g. ``{"type": "circle", "radius": 1}``.

    Keys starting with ``_`` are comments and ignored; any other unknown or
    missing key is an :class:`InvalidShapeError`, as is a shape that does not
    fit ``dim`` (when given).

    Parameters
    ----------
    data : dict
        ``"type"`` plus that type's keys, as in ``docs/scenario-format.md``.
    dim : {2, 3}, optional
        Dimension of the world the shape is for.

    Returns
    -------
    Shape

    Examples
    --------
    >>> shape_from_dict({"type": "circle", "radius": 1, "_comment": "ignored"})
    Circle(radius=1.0)
    >>> shape_from_dict({"type": "sphere", "radius": 1}, dim=2)
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidShapeError: shape type 'sphere' is 3D, but the world is 2D
    """
    if not isinstance(data, dict):
        raise InvalidShapeError(f"shape must be an object, got {data!r}")
    t = data.get("type")
    if t in ("triangle_mesh", "heightfield"):
        return _surface_from_dict(data, t, dim)
    if t not in _TYPE_KEYS:
        raise InvalidShapeError(
            f"shape type must be one of {sorted(_TYPE_KEYS)}, got {t!r}"
        )
    keys = {k for k in data if not (isinstance(k, str) and k.startswith("_"))} - {"type"}
    expected = _TYPE_KEYS[t] | ({"radius"} & keys if t in ("box", "polygon") else set())  # rounded: optional
    if keys - expected:
        raise InvalidShapeError(f"{t}: unknown key(s) {sorted(keys - expected)}; expected {sorted(expected)}")
    if expected - keys:
        raise InvalidShapeError(f"{t}: missing key(s) {sorted(expected - keys)}")
    if t == "box":
        he = data["half_extents"]
        if dim is not None and isinstance(he, list) and len(he) != dim:
            raise InvalidShapeError(
                f"box half_extents must have {dim} components in a {dim}D world, got {len(he)}"
            )
    elif dim is not None and _TYPE_DIM[t] != dim:
        raise InvalidShapeError(f"shape type {t!r} is {_TYPE_DIM[t]}D, but the world is {dim}D")
    if t in ("halfplane", "plane") and not isinstance(data["normal"], list):
        raise InvalidShapeError(f"{t} normal must be a list of numbers, got {data['normal']!r}")
    if t == "circle":
        return Circle(data["radius"])
    if t == "sphere":
        return Sphere(data["radius"])
    if t == "box":
        if not isinstance(data["half_extents"], list):
            raise InvalidShapeError(f"box half_extents must be a list, got {data['half_extents']!r}")
        return Box(tuple(data["half_extents"]), data.get("radius", 0.0))
    if t == "polygon":
        v = data["vertices"]
        if not isinstance(v, list) or not all(isinstance(p, list) for p in v):
            raise InvalidShapeError(f"polygon vertices must be a list of [x, y] lists, got {v!r}")
        return Polygon(tuple(tuple(p) for p in v), data.get("radius", 0.0))
    if t == "halfplane":
        return HalfPlane(tuple(data["normal"]), data["offset"])
    if t == "cylinder":
        return Cylinder(data["radius"], data["half_height"])
    if t == "cone":
        return Cone(data["radius"], data["half_height"])
    return Plane(tuple(data["normal"]), data["offset"])


def _surface_from_dict(data: dict[str, Any], t: str, dim: int | None) -> Shape:
    """A ``triangle_mesh`` or ``heightfield`` (format version 3) from its file form."""
    if dim is not None and dim != 3:
        raise InvalidShapeError(f"shape type {t!r} is 3D, but the world is {dim}D")
    expected = {"vertices", "triangles"} if t == "triangle_mesh" else {"heights", "cell"}
    keys = {k for k in data if not (isinstance(k, str) and k.startswith("_"))} - {"type"}
    if keys != expected:
        extra, missing = sorted(keys - expected), sorted(expected - keys)
        raise InvalidShapeError(f"{t}: " + (f"unknown key(s) {extra}; " if extra else "")
                                + (f"missing key(s) {missing}; " if missing else "") + f"expected {sorted(expected)}")
    for key in expected:
        if not isinstance(data[key], list):
            raise InvalidShapeError(f"{t} {key} must be a list, got {data[key]!r}"[:300])
    if t == "triangle_mesh":
        return TriangleMesh(data["vertices"], data["triangles"])
    return HeightField(data["heights"], tuple(data["cell"]))


def shape_to_dict(shape: Shape) -> dict[str, Any]:
    """The scenario-file form of a shape (inverse of :func:`shape_from_dict`).

    Parameters
    ----------
    shape : Shape

    Returns
    -------
    dict
        Plain JSON-ready values: floats and lists.

    Examples
    --------
    >>> shape_to_dict(Box((1, 2)))
    {'type': 'box', 'half_extents': [1.0, 2.0]}
    >>> shape_from_dict(shape_to_dict(HalfPlane((0, 2), 4))) == HalfPlane((0, 2), 4)
    True
    >>> shape_to_dict(Compound([(Circle(1.0), (2, 0), 0.5)]))
    {'type': 'compound', 'parts': [{'shape': {'type': 'circle', 'radius': 1.0}, 'position': [2.0, 0.0], 'angle': 0.5}]}
    """
    if isinstance(shape, Chain):
        return {"type": "chain", "points": [list(p) for p in shape.points], "loop": shape.loop}
    if isinstance(shape, Compound):
        return {"type": "compound", "parts": [
            {"shape": shape_to_dict(part), "position": list(pos),
             **({"angle": rot} if shape.dim == 2 else {"quaternion": list(rot)})}
            for part, pos, rot in shape.parts]}
    if isinstance(shape, (Circle, Sphere)):
        return {"type": shape.kind, "radius": shape.radius}
    r = getattr(shape, "radius", 0.0)
    rounded = {"radius": r} if r else {}  # radius 0: the old form
    if isinstance(shape, Box):
        return {"type": "box", "half_extents": list(shape.half_extents), **rounded}
    if isinstance(shape, Polygon):
        return {"type": "polygon", "vertices": [list(v) for v in shape.vertices], **rounded}
    if isinstance(shape, (HalfPlane, Plane)):
        return {"type": shape.kind, "normal": list(shape.normal), "offset": shape.offset}
    if isinstance(shape, (Cylinder, Cone)):
        return {"type": shape.kind, "radius": shape.radius, "half_height": shape.half_height}
    if isinstance(shape, TriangleMesh):
        return {"type": "triangle_mesh", "vertices": shape.vertices.tolist(), "triangles": shape.triangles.tolist()}
    if isinstance(shape, HeightField):
        return {"type": "heightfield", "heights": shape.heights.tolist(), "cell": list(shape.cell)}
    raise InvalidShapeError(f"not a collideworld shape: {shape!r}")
