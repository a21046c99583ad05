"""Schema of scenario files: what each JSON value of a line must look like.

This module checks values one at a time against the format (versions 1
and 2): the header's keys, a shape (one parser per type, in
``SHAPE_PARSERS``), a body (id, shape, pose, flags), a move, a ``set``
entry, an end pose of ``expect_impact``; numbers finite, vectors of the right length,
quaternions of unit norm, ids strings or integers, unknown keys rejected
(keys starting with ``_`` are comments). It builds the immutable records
the reader yields (:class:`Header`, :class:`BodySpec`, :class:`MoveSpec`,
:class:`SetSpec`, :class:`ExpectedContact`, :class:`ExpectedDistance`,
:class:`ExpectedImpact`).

It knows nothing of files or lines (that is :mod:`.source`) nor of which
ids are alive (that is :mod:`.frames`): a problem is raised as
``Invalid(reason)`` and the caller adds the file and line.

Examples
--------
>>> parse_header({"collideworld_scenario": 1, "dim": 2, "name": "drop"})
Header(version=1, dim=2, name='drop', description=None, tolerance=1e-06, tolerance_given=False)
>>> parse_header({"collideworld_scenario": 1, "dim": 4})
Traceback (most recent call last):
...
collideworld.scenario.schema.Invalid: header: dim must be 2 or 3, got 4
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidShapeError
from ..geometry.tolerance import MAX_COORDINATE
from ..shapes import MAX_CHAIN_POINTS, MAX_HULL_POINTS, Capsule, Chain, ConvexHull, Segment, Shape, shape_from_dict

__all__ = [
    "FORMAT_VERSION",
    "SUPPORTED_VERSIONS",
    "DEFAULT_TOLERANCE",
    "QUATERNION_NORM_TOLERANCE",
    "UINT32_MAX",
    "BodyId",
    "Header",
    "BodySpec",
    "MoveSpec",
    "ExpectedContact",
    "ExpectedDistance",
    "ExpectedImpact",
    "PoseSpec",
    "SetSpec",
    "SHAPE_PARSERS",
    "parse_header",
    "parse_body",
    "parse_shape",
]

#: The newest version of the format this reader reads (and writers write when needed).
FORMAT_VERSION = 3
#: Every version this reader reads: each keeps all of the one before.
SUPPORTED_VERSIONS = (1, 2, 3)
#: Tolerance of ``expect_contacts`` checks when the header gives none.
DEFAULT_TOLERANCE = 1e-6
#: A quaternion is a unit quaternion when its norm is within this of 1.
QUATERNION_NORM_TOLERANCE = 1e-6
UINT32_MAX = 0xFFFFFFFF

BodyId = str | int

_HEADER_KEYS = frozenset({"collideworld_scenario", "dim", "name", "description", "tolerance"})
FRAME_KEYS = frozenset({"remove", "add", "move", "expect", "expect_contacts"})
#: Frame keys that only a version 2 file may use.
FRAME_KEYS_V2 = frozenset({"set", "expect_distance", "expect_impact"})
_BODY_KEYS = frozenset({"id", "shape", "position", "angle", "quaternion", "static", "category", "mask"})
MOVE_KEYS = frozenset({"id", "position", "angle", "quaternion", "normal", "offset"})
SET_KEYS = frozenset({"id", "static", "category", "mask", "shape"})
CONTACT_KEYS = frozenset({"pair", "normal", "depth", "points", "parts"})
DISTANCE_KEYS = frozenset({"pair", "distance", "points"})
IMPACT_KEYS = frozenset({"pair", "end_a", "end_b", "t"})
_POSE_KEYS = frozenset({"position", "angle", "quaternion"})
_UNBOUNDED_KINDS = frozenset({"halfplane", "plane"})

# What the reader remembers about each alive body: just enough to reject a
# move of a plane and an expect_contacts entry that names a concave polygon.
_PLAIN, UNBOUNDED, CONCAVE = 0, 1, 2


# --------------------------------------------------------------------------
# data classes
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    r"""Line 1 of a scenario file.

    Attributes
    ----------
    version : int
        ``collideworld_scenario``, always 1 here.
    dim : int
        2 or 3.
    name, description : str or None
    tolerance : float
        Absolute tolerance of ``expect_contacts`` checks (``1e-6`` if the file
        gives none).
    tolerance_given : bool
        Whether the file set ``tolerance`` explicitly.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "scene.jsonl")
    >>> with open(path, "w") as f:
    ...     _ = f.write('{"collideworld_scenario": 1, "dim": 3, "name": "drop", "tolerance": 1e-9}\n')
    >>> from collideworld.scenario import read_scenario
    >>> read_scenario(path).header
    Header(version=1, dim=3, name='drop', description=None, tolerance=1e-09, tolerance_given=True)
    """

    version: int
    dim: int
    name: str | None = None
    description: str | None = None
    tolerance: float = DEFAULT_TOLERANCE
    tolerance_given: bool = False


@dataclass(frozen=True)
class BodySpec:
    """One body of a frame's ``add`` list.

    ``position`` is None only for a ``halfplane``/``plane``; ``angle`` (2D) and
    ``quaternion`` (3D, ``(w, x, y, z)``) are None when the file does not give
    them (the world's defaults, 0 and identity, then apply). ``static`` is
    always True for a ``halfplane``/``plane``.

    Attributes
    ----------
    id : str or int
    shape : Shape
    position : tuple of float, shape (D,), or None
    angle : float or None
    quaternion : tuple of float, shape (4,), or None
    static : bool
    category, mask : int
        Collision filtering bits (defaults 1 and ``0xFFFFFFFF``).

    Examples
    --------
    Its file form (:func:`~collideworld.scenario.writer.body_to_dict`)
    leaves out the fields that keep their defaults:

    >>> from collideworld.shapes import Box
    >>> from collideworld.scenario.writer import body_to_dict
    >>> body_to_dict(BodySpec("crate", Box((1, 1)), (0.0, 2.0), static=True))
    {'id': 'crate', 'shape': {'type': 'box', 'half_extents': [1.0, 1.0]}, 'position': [0.0, 2.0], 'static': True}
    """

    id: BodyId
    shape: Shape
    position: tuple[float, ...] | None = None
    angle: float | None = None
    quaternion: tuple[float, float, float, float] | None = None
    static: bool = False
    category: int = 1
    mask: int = UINT32_MAX


@dataclass(frozen=True)
class MoveSpec:
    """One pose update of a frame's ``move`` list; None means "keep".

    Attributes
    ----------
    id : str or int
    position : tuple of float, shape (D,), or None
    angle : float or None
    quaternion : tuple of float, shape (4,), or None

    Examples
    --------
    Only the fields given are written, so a turn keeps the position:

    >>> from collideworld.scenario.writer import move_to_dict
    >>> move_to_dict(MoveSpec("crate", angle=0.5))
    {'id': 'crate', 'angle': 0.5}
    """

    id: BodyId
    position: tuple[float, ...] | None = None
    angle: float | None = None
    quaternion: tuple[float, float, float, float] | None = None
    normal: tuple[float, ...] | None = None
    offset: float | None = None


@dataclass(frozen=True)
class SetSpec:
    """One in-place change of a frame's ``set`` list (version 2); None means "keep".

    Attributes
    ----------
    id : str or int
    static : bool or None
    category, mask : int or None
    shape : Shape or None

    Examples
    --------
    >>> from collideworld.scenario.writer import set_to_dict
    >>> set_to_dict(SetSpec("crate", static=True, mask=0))
    {'id': 'crate', 'static': True, 'mask': 0}
    """

    id: BodyId
    static: bool | None = None
    category: int | None = None
    mask: int | None = None
    shape: Shape | None = None


@dataclass(frozen=True)
class PoseSpec:
    """An end pose of ``expect_impact``: all None for a halfplane or plane.

    ``angle`` (2D) and ``quaternion`` (3D) are None when the file does not
    give them: 0 and the identity then apply, as for a body's pose.

    Attributes
    ----------
    position : tuple of float, shape (D,), or None
    angle : float or None
    quaternion : tuple of float, shape (4,), or None

    Examples
    --------
    >>> PoseSpec((1.0, 2.0), angle=0.5).as_pose(2)
    ((1.0, 2.0), 0.5)
    >>> PoseSpec((1.0, 2.0, 3.0)).as_pose(3)
    ((1.0, 2.0, 3.0), (1.0, 0.0, 0.0, 0.0))
    >>> PoseSpec().as_pose(2) is None
    True
    """

    position: tuple[float, ...] | None = None
    angle: float | None = None
    quaternion: tuple[float, float, float, float] | None = None

    def as_pose(self, dim: int) -> tuple[tuple[float, ...], Any] | None:
        """The pose in :func:`collideworld.distance`'s form (None for a plane)."""
        if self.position is None:
            return None
        if dim == 2:
            return self.position, 0.0 if self.angle is None else self.angle
        return self.position, (1.0, 0.0, 0.0, 0.0) if self.quaternion is None else self.quaternion


@dataclass(frozen=True)
class ExpectedDistance:
    """One ``expect_distance`` entry (version 2).

    Attributes
    ----------
    pair : tuple of two ids
    distance : float
        Signed: the gap when apart, 0 when touching, minus the depth when
        overlapping.
    points : tuple of two points, or None
        The closest points on ``pair[0]`` and on ``pair[1]``, when given.

    Examples
    --------
    Unit circles 3 apart along x are 1 apart:

    >>> ExpectedDistance(("a", "b"), 1.0, ((1.0, 0.0), (2.0, 0.0))).distance
    1.0
    """

    pair: tuple[BodyId, BodyId]
    distance: float
    points: tuple[tuple[float, ...], tuple[float, ...]] | None = None


@dataclass(frozen=True)
class ExpectedImpact:
    """One ``expect_impact`` entry (version 2).

    Attributes
    ----------
    pair : tuple of two ids
    end_a, end_b : PoseSpec
        Where the bodies would move from their poses after the step.
    t : float or None
        First time of touch in [0, 1]; None: they never touch.

    Examples
    --------
    A unit circle moving from x=0 to x=10 towards a still one at x=5 first
    touches it when its centre is at x=3, at t=0.3:

    >>> ExpectedImpact(("a", "b"), PoseSpec((10.0, 0.0)), PoseSpec((5.0, 0.0)), 0.3).t
    0.3
    """

    pair: tuple[BodyId, BodyId]
    end_a: PoseSpec
    end_b: PoseSpec
    t: float | None


@dataclass(frozen=True)
class ExpectedContact:
    """One ``expect_contacts`` entry: ``normal`` points from ``pair[0]`` to ``pair[1]``.

    Attributes
    ----------
    pair : tuple of two ids
    normal : tuple of float, shape (D,)
        Unit direction along which ``pair[1]`` must move by ``depth`` to
        stop penetrating ``pair[0]``.
    depth : float
        ``>= 0``.
    points : tuple of points, each shape (D,), or None
        The contact points (version 2), compared as a set.
    parts : tuple of two ints, or None
        Part indices in compound bodies (version 2); only ``(-1, -1)``
        (two simple shapes) until compounds are read.

    Examples
    --------
    Unit circles "a" at (0, 0) and "b" at (1.5, 0) overlap by 2 - 1.5 = 0.5
    along +x:

    >>> c = ExpectedContact(pair=("a", "b"), normal=(1.0, 0.0), depth=0.5)
    >>> c.pair[1], c.normal, c.depth
    ('b', (1.0, 0.0), 0.5)
    """

    pair: tuple[BodyId, BodyId]
    normal: tuple[float, ...]
    depth: float
    points: tuple[tuple[float, ...], ...] | None = None
    parts: tuple[int, int] | None = None


# --------------------------------------------------------------------------
# value checks (raise Invalid with a reason; the reader adds file:line)
# --------------------------------------------------------------------------


class Invalid(Exception):
    pass


#: An error-message subject, or a function that builds it (only called on error).
_What = str | Callable[[], str]


def _w(what: _What) -> str:
    """Error-message subjects may be passed as a lambda, built only on error."""
    return what() if callable(what) else what


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def parse_number(value: Any, what: _What) -> float:
    # NaN and Infinity tokens never get here (the decoder rejects them); a
    # non-finite value is a number literal too large for a double.
    if not _is_number(value):
        raise Invalid(f"{_w(what)} must be a number, got {show_value(value)}")
    try:
        f = float(value)
    except OverflowError:
        f = math.inf
    if not math.isfinite(f):
        raise Invalid(f"{_w(what)} is out of range (numbers must be finite doubles)")
    return f


def parse_vector(value: Any, n: int, what: _What) -> tuple[float, ...]:
    # Fast path for the common, valid case: a list of n plain ints/floats.
    if type(value) is list and len(value) == n:
        for v in value:
            tv = type(v)
            if tv is not float and tv is not int:
                break
        else:
            try:
                out = tuple(map(float, value))
            except OverflowError:
                pass
            else:
                if 0.0 * sum(out) == 0.0:  # NaN unless every component is finite
                    return out
    if not isinstance(value, list):
        raise Invalid(f"{_w(what)} must be a list of {n} numbers, got {show_value(value)}")
    if len(value) != n:
        raise Invalid(f"{_w(what)} must have {n} numbers, got {len(value)}: {show_value(value)}")
    return tuple(parse_number(v, f"{_w(what)}[{i}]") for i, v in enumerate(value))


def parse_position(value: Any, n: int, what: _What) -> tuple[float, ...]:
    """A position: ``n`` finite numbers, each at most ``MAX_COORDINATE`` in magnitude.

    The world rejects larger coordinates (squared distances would overflow);
    the reader applies the same rule so a file is valid or not whichever
    command reads it.
    """
    out = parse_vector(value, n, what)
    if -MAX_COORDINATE <= min(out) and max(out) <= MAX_COORDINATE:
        return out
    i = next(k for k, c in enumerate(out) if not abs(c) <= MAX_COORDINATE)
    raise Invalid(f"{_w(what)}[{i}] is {out[i]!r}: coordinates must be at most "
                   f"{MAX_COORDINATE:g} in magnitude")


def parse_quaternion(value: Any, what: _What) -> tuple[float, float, float, float]:
    q = parse_vector(value, 4, what)
    norm = math.sqrt(sum(c * c for c in q))
    if abs(norm - 1.0) > QUATERNION_NORM_TOLERANCE:
        raise Invalid(f"{_w(what)} must be a unit quaternion (norm within 1e-6 of 1), got norm {norm!r}")
    w, x, y, z = q
    return w, x, y, z


def parse_uint32(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise Invalid(f"{what} must be an unsigned 32-bit integer, got {show_value(value)}")
    if not 0 <= value <= UINT32_MAX:
        raise Invalid(f"{what} must be in 0..4294967295, got {value}")
    return value


def parse_body_id(value: Any, what: str) -> BodyId:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise Invalid(f"{what} must be a string or an integer, got {show_value(value)}")


def parse_list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise Invalid(f"{what} must be a list, got {show_value(value)}")
    return value


def parse_object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Invalid(f"{what} must be an object, got {show_value(value)}")
    return value


def check_keys(obj: dict[str, Any], allowed: frozenset[str], what: str) -> None:
    for key in obj:
        if key not in allowed and not key.startswith("_"):
            raise Invalid(
                f"{what}: unknown key {key!r} (expected one of {', '.join(sorted(allowed))};"
                " keys starting with '_' are comments)"
            )


def show_value(value: Any, limit: int = 80) -> str:
    """A short, JSON-like rendering of a value for error messages."""
    try:
        text = json.dumps(value, allow_nan=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------
# header and bodies
# --------------------------------------------------------------------------


def parse_header(obj: Any) -> Header:
    """Check line 1 of a file (its JSON value) and build its :class:`Header`.

    Examples
    --------
    >>> parse_header({"collideworld_scenario": 1, "dim": 3, "tolerance": 1e-9}).tolerance
    1e-09
    """
    if not isinstance(obj, dict):
        raise Invalid(f"header: line 1 must be a JSON object, got {show_value(obj)}")
    check_keys(obj, _HEADER_KEYS, "header")
    if "collideworld_scenario" not in obj:
        raise Invalid("header: missing key 'collideworld_scenario' (line 1 must be the header)")
    version = obj["collideworld_scenario"]
    if not isinstance(version, int) or isinstance(version, bool):
        raise Invalid(f"header: collideworld_scenario must be the integer 1, 2 or 3, got {show_value(version)}")
    if version not in SUPPORTED_VERSIONS:
        raise Invalid(
            f"header: unsupported format version {version} (this reader reads versions "
            f"{' and '.join(map(str, SUPPORTED_VERSIONS))})"
        )
    if "dim" not in obj:
        raise Invalid("header: missing key 'dim'")
    dim = obj["dim"]
    if isinstance(dim, bool) or not isinstance(dim, int) or dim not in (2, 3):
        raise Invalid(f"header: dim must be 2 or 3, got {show_value(dim)}")
    for key in ("name", "description"):
        if key in obj and not isinstance(obj[key], str):
            raise Invalid(f"header: {key} must be a string, got {show_value(obj[key])}")
    tolerance = DEFAULT_TOLERANCE
    if "tolerance" in obj:
        tolerance = parse_number(obj["tolerance"], "header: tolerance")
        if tolerance <= 0:
            raise Invalid(f"header: tolerance must be > 0, got {show_value(obj['tolerance'])}")
    return Header(
        version=version,
        dim=dim,
        name=obj.get("name"),
        description=obj.get("description"),
        tolerance=tolerance,
        tolerance_given="tolerance" in obj,
    )


def parse_body(raw: Any, i: int, dim: int, max_polygon_vertices: int,
               version: int = 1) -> tuple[BodySpec, int]:
    """Check ``add[i]`` and build its :class:`BodySpec`; also return its tag.

    The tag (``_PLAIN``, ``UNBOUNDED`` for a halfplane/plane, ``CONCAVE``
    for a concave polygon) is what the frame reader remembers about an alive
    body. A polygon with more than ``max_polygon_vertices`` vertices is
    rejected before it is built (building one is roughly quadratic).

    Examples
    --------
    >>> spec, tag = parse_body({"id": "a", "shape": {"type": "circle", "radius": 1},
    ...                         "position": [0, 2]}, 0, 2, 5000)
    >>> spec.id, spec.position, tag == _PLAIN
    ('a', (0.0, 2.0), True)
    """
    body = parse_object(raw, f"add[{i}]")
    if "id" not in body:
        raise Invalid(f"add[{i}]: missing key 'id'")
    bid = parse_body_id(body["id"], f"add[{i}]: id")
    where = f"add: body {bid!r}"
    check_keys(body, _BODY_KEYS, where)
    if "shape" not in body:
        raise Invalid(f"{where}: missing key 'shape'")
    shape = parse_shape(body["shape"], dim, where, max_polygon_vertices, version)
    kind = shape.kind

    unbounded = kind in _UNBOUNDED_KINDS
    position = angle = quaternion = None
    if unbounded:
        for key in ("position", "angle", "quaternion"):
            if key in body:
                raise Invalid(f"{where}: a {kind} takes no pose, but {key!r} is given")
    else:
        if "position" not in body:
            raise Invalid(f"{where}: missing key 'position'")
        position = parse_position(body["position"], dim, f"{where}: position")
        if "angle" in body:
            if dim != 2:
                raise Invalid(f"{where}: 'angle' is only allowed in 2D (use 'quaternion' in 3D)")
            angle = parse_number(body["angle"], f"{where}: angle")
        if "quaternion" in body:
            if dim != 3:
                raise Invalid(f"{where}: 'quaternion' is only allowed in 3D (use 'angle' in 2D)")
            quaternion = parse_quaternion(body["quaternion"], f"{where}: quaternion")
    static = body.get("static", False)
    if not isinstance(static, bool):
        raise Invalid(f"{where}: static must be true or false, got {show_value(static)}")
    category = parse_uint32(body.get("category", 1), f"{where}: category")
    mask = parse_uint32(body.get("mask", UINT32_MAX), f"{where}: mask")
    spec = BodySpec(
        id=bid,
        shape=shape,
        position=position,
        angle=angle,
        quaternion=quaternion,
        static=True if unbounded else static,
        category=category,
        mask=mask,
    )
    return spec, shape_tag(shape)


def shape_tag(shape: Shape) -> int:
    """What the frame reader remembers of a body's shape: ``_PLAIN``,
    ``UNBOUNDED`` (halfplane/plane) or ``CONCAVE`` (a concave polygon)."""
    if shape.kind in _UNBOUNDED_KINDS:
        return UNBOUNDED
    if shape.kind == "polygon" and not getattr(shape, "is_convex", True):
        return CONCAVE
    return _PLAIN


# --------------------------------------------------------------------------
# shapes: one parser per type
# --------------------------------------------------------------------------


def _library_shape(raw: dict[str, Any], dim: int) -> Shape:
    """The version 1 shapes: the library's own constructor checks their keys and values."""
    return shape_from_dict(raw, dim)


_COMPOUND_KEYS = frozenset({"type", "parts"})
_PART_KEYS = frozenset({"shape", "position", "angle", "quaternion"})


def _compound_shape(raw: dict[str, Any], dim: int) -> Shape:
    """A version 2 ``compound``: ``parts``, each a shape (read by its own parser) at a local pose."""
    from ..shapes import Compound

    def keys(obj: dict[str, Any], allowed: frozenset[str], what: str) -> None:
        for key in obj:
            if key not in allowed and not (isinstance(key, str) and key.startswith("_")):
                raise InvalidShapeError(f"{what}: unknown key {key!r} (expected one of {', '.join(sorted(allowed))})")

    keys(raw, _COMPOUND_KEYS, "compound")
    parts = raw.get("parts")
    if not isinstance(parts, list):
        raise InvalidShapeError(
            f"compound parts must be a list of {{shape, position}} objects, got {show_value(parts)}")
    out = []
    for k, part in enumerate(parts):
        what = f"compound part {k}"
        if not isinstance(part, dict):
            raise InvalidShapeError(f"{what} must be an object, got {show_value(part)}")
        keys(part, _PART_KEYS, what)
        for key in ("shape", "position"):
            if key not in part:
                raise InvalidShapeError(f"{what}: missing key {key!r}")
        if ("angle" in part and dim != 2) or ("quaternion" in part and dim != 3):
            raise InvalidShapeError(f"{what}: a {dim}D part takes {'an angle' if dim == 2 else 'a quaternion'}")
        shape = part["shape"]
        kind = shape.get("type") if isinstance(shape, dict) else None
        if kind == "compound":
            raise InvalidShapeError(f"{what}: a compound cannot hold a compound (flatten it)")
        parser = SHAPE_PARSERS.get(kind) if isinstance(kind, str) else None
        if parser is None:
            raise InvalidShapeError(f"{what}: shape type must be one of "
                                    f"{sorted(set(SHAPE_PARSERS) - {'compound'})}, got {show_value(kind)}")
        position = part["position"]
        if not isinstance(position, list):
            raise InvalidShapeError(f"{what}: position must be a list of {dim} numbers, got {show_value(position)}")
        rotation = part.get("angle", part.get("quaternion"))
        out.append((parser(shape, dim), position, rotation))
    compound = Compound(out)
    if compound.dim != dim:
        raise InvalidShapeError(f"compound parts are {compound.dim}D, but the world is {dim}D")
    return compound
def _shape_keys(raw: dict[str, Any], kind: str, expected: frozenset[str]) -> None:
    """Every key of ``expected`` given, no other (``_`` comments aside)."""
    keys = {k for k in raw if not k.startswith("_")} - {"type"}
    if keys - expected:
        raise InvalidShapeError(f"{kind}: unknown key(s) {sorted(keys - expected)}; expected {sorted(expected)}")
    if expected - keys:
        raise InvalidShapeError(f"{kind}: missing key(s) {sorted(expected - keys)}")


def _shape_point(value: Any, dim: int, what: str) -> tuple[float, ...]:
    """One local point: ``dim`` finite numbers, each at most ``MAX_COORDINATE`` in magnitude."""
    if isinstance(value, list) and len(value) != dim:
        raise InvalidShapeError(f"{what} must have {dim} numbers in a {dim}D world, got {len(value)}: "
                                f"{show_value(value)}")
    try:
        return parse_position(value, dim, what)
    except Invalid as exc:
        raise InvalidShapeError(str(exc)) from None


def _end_points(raw: dict[str, Any], kind: str, dim: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The ``points`` ``[p0, p1]`` of a capsule or segment."""
    points = raw["points"]
    if not isinstance(points, list) or len(points) != 2:
        got = f"{len(points)} point(s)" if isinstance(points, list) else show_value(points)
        raise InvalidShapeError(f"{kind} points must be a list of two points [p0, p1], got {got}")
    return _shape_point(points[0], dim, f"{kind} points[0]"), _shape_point(points[1], dim, f"{kind} points[1]")


_CAPSULE_KEYS = frozenset({"points", "radius"})
_SEGMENT_KEYS = frozenset({"points"})
_HULL_KEYS = frozenset({"points"})


def _capsule_shape(raw: dict[str, Any], dim: int) -> Shape:
    """``{"type": "capsule", "points": [p0, p1], "radius": r}``: 2D or 3D, ``r > 0``, p0 == p1 allowed."""
    _shape_keys(raw, "capsule", _CAPSULE_KEYS)
    p0, p1 = _end_points(raw, "capsule", dim)
    try:
        radius = parse_number(raw["radius"], "capsule radius")
    except Invalid as exc:
        raise InvalidShapeError(str(exc)) from None
    if not 0 < radius <= MAX_COORDINATE:
        raise InvalidShapeError(f"capsule radius must be > 0 and at most {MAX_COORDINATE:g}, "
                                f"got {show_value(raw['radius'])}")
    return Capsule(p0, p1, radius)


def _segment_shape(raw: dict[str, Any], dim: int) -> Shape:
    """``{"type": "segment", "points": [p0, p1]}``: 2D or 3D, p0 != p1."""
    _shape_keys(raw, "segment", _SEGMENT_KEYS)
    p0, p1 = _end_points(raw, "segment", dim)
    if p0 == p1:
        raise InvalidShapeError(f"segment points must differ (a segment of length 0 is a point), "
                                f"got both {list(p0)}")
    return Segment(p0, p1)


def _convex_hull_shape(raw: dict[str, Any], dim: int) -> Shape:
    """``{"type": "convex_hull", "points": [[x, y, z], ...]}``: 3D, at least 4 points not on one plane.

    The count is checked before any point is converted, so an over-long list
    costs nothing; the hull itself (Qhull) refuses flat input.
    """
    if dim != 3:
        raise InvalidShapeError(f"shape type 'convex_hull' is 3D, but the world is {dim}D "
                                "(a 2D convex hull is a 'polygon')")
    _shape_keys(raw, "convex_hull", _HULL_KEYS | ({"radius"} & set(raw)))
    points = raw["points"]
    if not isinstance(points, list):
        raise InvalidShapeError(f"convex_hull points must be a list of [x, y, z] points, got {show_value(points)}")
    if len(points) > MAX_HULL_POINTS:
        raise InvalidShapeError(f"convex_hull has {len(points)} points, more than the limit of "
                                f"{MAX_HULL_POINTS} (MAX_HULL_POINTS)")
    if len(points) < 4:
        raise InvalidShapeError(f"convex_hull needs at least 4 points not all on one plane, got {len(points)}")
    checked: list[Any] = [_shape_point(p, 3, f"convex_hull points[{i}]") for i, p in enumerate(points)]
    if "radius" in raw:
        return ConvexHull(tuple(checked), raw["radius"])
    return ConvexHull(tuple(checked))


_CHAIN_KEYS = frozenset({"points", "loop"})


def _chain_shape(raw: dict[str, Any], dim: int) -> Shape:
    """A version 3 ``chain``: ``points`` (at least 2, no two consecutive equal) and ``loop`` (default false)."""
    if dim != 2:
        raise InvalidShapeError(f"shape type 'chain' is 2D, but the world is {dim}D")
    _shape_keys(raw, "chain", _CHAIN_KEYS - {"loop"} if "loop" not in raw else _CHAIN_KEYS)
    points = raw["points"]
    if not isinstance(points, list):
        raise InvalidShapeError(f"chain points must be a list of [x, y] points, got {show_value(points)}")
    if len(points) > MAX_CHAIN_POINTS:
        raise InvalidShapeError(f"chain has {len(points)} points, more than the limit of "
                                f"{MAX_CHAIN_POINTS} (MAX_CHAIN_POINTS)")
    loop = raw.get("loop", False)
    if not isinstance(loop, bool):
        raise InvalidShapeError(f"chain loop must be true or false, got {show_value(loop)}")
    checked: list[Any] = [_shape_point(p, 2, f"chain points[{i}]") for i, p in enumerate(points)]
    return Chain(checked, loop)


#: One parser per shape ``type``: ``parser(raw, dim) -> Shape``, raising
#: ``InvalidShapeError``/``ValueError``/``TypeError`` on a bad value. A new
#: type is one more entry here (and, if only version 2 defines it, one more
#: name in ``_SHAPE_TYPES_V2``).
SHAPE_PARSERS: dict[str, Callable[[dict[str, Any], int], Shape]] = {
    "circle": _library_shape,
    "box": _library_shape,
    "polygon": _library_shape,
    "halfplane": _library_shape,
    "sphere": _library_shape,
    "plane": _library_shape,
    "compound": _compound_shape,
    "capsule": _capsule_shape,
    "segment": _segment_shape,
    "convex_hull": _convex_hull_shape,
    "triangle_mesh": _library_shape,
    "heightfield": _library_shape,
    "chain": _chain_shape,
    "cylinder": _library_shape,
    "cone": _library_shape,
}
#: Shape types that only a version 2 file may use.
_SHAPE_TYPES_V2 = frozenset({"capsule", "segment", "convex_hull", "compound"})
#: Shape types that only a version 3 file may use.
SHAPE_TYPES_V3 = frozenset({"chain", "triangle_mesh", "heightfield", "cylinder", "cone"})


def parse_shape(raw: Any, dim: int, where: str, max_polygon_vertices: int, version: int) -> Shape:
    """Check a shape object (a body's ``shape``, or a ``set`` entry's) and build it.

    Examples
    --------
    >>> parse_shape({"type": "box", "half_extents": [1, 2]}, 2, "add: body 'a'", 5000, 1)
    Box(half_extents=(1.0, 2.0))
    >>> parse_shape({"type": "capsule", "points": [[0, 0], [1, 0]], "radius": 1}, 2, "add: body 'a'", 5000, 1)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    collideworld.scenario.schema.Invalid: add: body 'a': shape type 'capsule' needs format version 2 ...
    """
    if not isinstance(raw, dict):
        raise Invalid(f"{where}: shape must be an object, got {show_value(raw)}")
    kind = raw.get("type")
    if not isinstance(kind, str):
        raise Invalid(f"{where}: shape type must be a string, got {show_value(kind)}")
    if kind in _SHAPE_TYPES_V2 and version < 2:
        raise Invalid(f"{where}: shape type {kind!r} needs format version 2 (the header says {version})")
    if kind in SHAPE_TYPES_V3 and version < 3:
        raise Invalid(f"{where}: shape type {kind!r} needs format version 3 (the header says {version})")
    if kind in ("box", "polygon", "convex_hull") and "radius" in raw and version < 3:
        raise Invalid(f"{where}: a rounded {kind} (key 'radius') needs format version 3 (the header says {version})")
    parser = SHAPE_PARSERS.get(kind)
    if parser is None:
        if kind in _SHAPE_TYPES_V2:
            raise Invalid(f"{where}: shape type {kind!r} (format version 2) is not read by this "
                           f"version of collideworld yet")
        raise Invalid(f"{where}: invalid shape: shape type must be one of "
                       f"{sorted(set(SHAPE_PARSERS) | _SHAPE_TYPES_V2)}, got {kind!r}")
    if kind == "polygon":
        verts = raw.get("vertices")
        if isinstance(verts, list) and len(verts) > max_polygon_vertices:
            raise Invalid(
                f"{where}: polygon has {len(verts)} vertices, more than the limit of "
                f"{max_polygon_vertices} (max_polygon_vertices)"
            )
    try:
        return parser(raw, dim)
    except (InvalidShapeError, TypeError, ValueError) as exc:
        text = str(exc)  # a polygon's message lists its vertices: keep it short
        if len(text) > 300:
            text = text[:297] + "..."
        raise Invalid(f"{where}: invalid shape: {text}") from None


def parse_pose(raw: Any, dim: int, unbounded: bool, what: str) -> PoseSpec:
    """Check an ``expect_impact`` end pose: ``{}`` for a halfplane/plane, else a position
    and optionally an ``angle`` (2D) or ``quaternion`` (3D).

    Examples
    --------
    >>> parse_pose({"position": [1, 2], "angle": 0.5}, 2, False, "end_a")
    PoseSpec(position=(1.0, 2.0), angle=0.5, quaternion=None)
    """
    obj = parse_object(raw, what)
    check_keys(obj, _POSE_KEYS, what)
    if unbounded:
        for key in _POSE_KEYS:
            if key in obj:
                raise Invalid(f"{what}: a halfplane or plane takes no pose, but {key!r} is given "
                               "(its end pose is {{}})")
        return PoseSpec()
    if "position" not in obj:
        raise Invalid(f"{what}: missing key 'position'")
    position = parse_position(obj["position"], dim, f"{what}: position")
    angle = quaternion = None
    if "angle" in obj:
        if dim != 2:
            raise Invalid(f"{what}: 'angle' is only allowed in 2D (use 'quaternion' in 3D)")
        angle = parse_number(obj["angle"], f"{what}: angle")
    if "quaternion" in obj:
        if dim != 3:
            raise Invalid(f"{what}: 'quaternion' is only allowed in 3D (use 'angle' in 2D)")
        quaternion = parse_quaternion(obj["quaternion"], f"{what}: quaternion")
    return PoseSpec(position, angle, quaternion)

