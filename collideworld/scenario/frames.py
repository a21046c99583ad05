r"""Frame semantics of the scenario reader: alive ids, order, expectations.

A frame line applies ``remove``, then ``add``, then ``set`` (version 2),
then ``move``, then one step,
then its expectations are checked. This module reads frames in that order
from a :class:`~.source.LineSource`, checks each value with :mod:`.schema`,
and tracks the set of ids alive after each frame itself, exactly as a world
would, so it can reject what only makes sense in context: an unknown id in
``move``/``remove``/``expect``, a duplicate id in ``add``, a move of a
plane, an ``expect_contacts`` pair that is not in ``expect`` or names a
concave polygon, more bodies alive than ``max_bodies``.

The public entry points are :func:`read_scenario` (header at once, frames
streamed: memory stays bounded by the longest line plus the alive-id set),
:func:`iter_frames`, :class:`Scenario` and :class:`FrameIterator`.

Examples
--------
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "scene.jsonl")
>>> with open(path, "w") as f:
...     _ = f.write('{"collideworld_scenario": 1, "dim": 2}\n'
...                 '{"add": [{"id": "a", "shape": {"type": "circle", "radius": 1}, "position": [0, 0]}]}\n'
...                 '{"remove": ["a"]}\n{"remove": ["a"]}\n')
>>> [frame.remove for frame in read_scenario(path)]  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
collideworld.errors.ScenarioError: ...scene.jsonl:4: remove: unknown id 'a'
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ScenarioError
from .schema import (
    CONCAVE,
    CONTACT_KEYS,
    DISTANCE_KEYS,
    FRAME_KEYS,
    FRAME_KEYS_V2,
    IMPACT_KEYS,
    MOVE_KEYS,
    SET_KEYS,
    UNBOUNDED,
    BodyId,
    BodySpec,
    ExpectedContact,
    ExpectedDistance,
    ExpectedImpact,
    Header,
    Invalid,
    MoveSpec,
    SetSpec,
    check_keys,
    parse_body,
    parse_body_id,
    parse_header,
    parse_list,
    parse_number,
    parse_object,
    parse_pose,
    parse_position,
    parse_quaternion,
    parse_shape,
    parse_uint32,
    parse_vector,
    shape_tag,
    show_value,
)
from .source import END, TRUNCATED_TAIL, LineSource, ReaderLimits, check_path

if TYPE_CHECKING:
    from .arrow_source import ArrowSource

__all__ = ["Frame", "Scenario", "FrameIterator", "read_scenario", "iter_frames"]


@dataclass(frozen=True)
class Frame:
    r"""One frame line: operations to apply (remove, add, move), then one step.

    Attributes
    ----------
    number : int
        1-based frame number; frame ``k`` is on line ``k + 1``.
    line : int
        1-based line number in the file.
    remove : tuple of ids
    add : tuple of BodySpec
    move : tuple of MoveSpec
    expect : frozenset of frozenset pairs, or None
        The complete set of pairs in contact after the step; None when the
        frame does not check contacts (``frozenset()`` means "no contacts").
    expect_contacts : tuple of ExpectedContact, or None
    set : tuple of SetSpec
        In-place changes (version 2), applied after ``add``, before ``move``.
    expect_distance : tuple of ExpectedDistance, or None
    expect_impact : tuple of ExpectedImpact, or None

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "scene.jsonl")
    >>> with open(path, "w") as f:
    ...     _ = f.write('{"collideworld_scenario": 1, "dim": 2}\n{}\n{"remove": [], "expect": []}\n')
    >>> [(frame.number, frame.line, frame.remove, frame.expect) for frame in read_scenario(path)]
    [(1, 2, (), None), (2, 3, (), frozenset())]
    """

    number: int
    line: int
    remove: tuple[BodyId, ...] = ()
    add: tuple[BodySpec, ...] = ()
    move: tuple[MoveSpec, ...] = ()
    expect: frozenset[frozenset[BodyId]] | None = None
    expect_contacts: tuple[ExpectedContact, ...] | None = None
    set: tuple[SetSpec, ...] = ()
    expect_distance: tuple[ExpectedDistance, ...] | None = None
    expect_impact: tuple[ExpectedImpact, ...] | None = None



def _raw_parts(shape: Any) -> int:
    """The parts of a shape's JSON value if it is a compound's (0 for any other), counted
    before it is built: the limits bound what building it would cost."""
    if isinstance(shape, dict) and shape.get("type") == "compound" and isinstance(shape.get("parts"), list):
        return len(shape["parts"])
    return 0


class _FrameReader:
    """Iterator of frames over one open file; owns the alive-id set."""

    def __init__(self, path: str, limits: ReaderLimits, ignore_truncated_tail: bool):
        self.path = path
        self.limits = limits
        self.ignore_truncated_tail = ignore_truncated_tail
        self.alive: dict[BodyId, int] = {}
        #: number of parts of each alive compound body (for checking ``parts`` in expect_contacts)
        self.parts_of: dict[BodyId, int] = {}
        #: triangles of alive meshes and heightfields, segments of alive chains (their contacts' parts;
        #: no part pairs are counted: only the triangles near a body are tested)
        self.triangles_of: dict[BodyId, int] = {}
        # What the limits count of the alive bodies: the parts of the compounds
        # among them, and the sums of p and p * p over them (p the body's
        # parts, 1 for a simple body), which give the part pairs they can make.
        self._parts = 0
        self._sum_p = 0
        self._sum_p2 = 0
        self._done = False
        self._source: LineSource | ArrowSource
        if path.endswith((".arrows", ".parquet")):
            from .arrow_source import ArrowSource  # the Arrow form: the same frames, checked the same way

            self._source = ArrowSource(path, limits, ignore_truncated_tail)
        else:
            self._source = LineSource(path, limits, ignore_truncated_tail)
        try:
            self.header = self._read_header()
        except BaseException:
            self.close()
            raise

    @property
    def line_no(self) -> int:
        return self._source.line_no

    def close(self) -> None:
        self._done = True
        self._source.close()

    @property
    def bytes_read(self) -> int:
        """Bytes of the file on disk consumed so far (compressed bytes for .gz)."""
        return self._source.bytes_read

    def _error(self, reason: str, line: int | None = None) -> ScenarioError:
        return self._source.error(reason, line)

    # -- header and frames -----------------------------------------------

    def _read_header(self) -> Header:
        got = self._source.next_value()
        if got is END:
            raise self._error("file is empty (line 1 must be the header)", 1)
        if got is TRUNCATED_TAIL:
            raise self._error("the last line is truncated (the header is incomplete)", 1)
        obj, complete = got
        try:
            header = parse_header(obj)
        except Invalid as exc:
            raise self._error(str(exc)) from None
        if not complete:
            self._source.check_gzip_end()
        self.dim = header.dim
        return header

    def __iter__(self) -> Iterator[Frame]:
        return self

    def __next__(self) -> Frame:
        if self._done:
            raise StopIteration
        got = self._source.next_value()
        if got is END or got is TRUNCATED_TAIL:
            self.close()
            raise StopIteration
        obj, complete = got
        try:
            frame = self._parse_frame(obj)
        except Invalid as exc:
            raise self._error(str(exc)) from None
        if not complete:
            self._source.check_gzip_end()
        return frame

    def _parse_frame(self, obj: Any) -> Frame:
        if not isinstance(obj, dict):
            raise Invalid(f"a frame must be a JSON object, got {show_value(obj)}")
        if self.version >= 2:
            check_keys(obj, FRAME_KEYS | FRAME_KEYS_V2, "frame")
        else:
            for key in obj:
                if key in FRAME_KEYS_V2:
                    raise Invalid(f"frame: {key!r} needs format version 2 (the header says 1)")
            check_keys(obj, FRAME_KEYS, "frame")
        alive = self.alive
        dim = self.dim

        # remove
        removes: list[BodyId] = []
        for i, raw in enumerate(parse_list(obj.get("remove", []), "remove")):
            bid = parse_body_id(raw, f"remove[{i}]")
            if bid not in alive:
                raise Invalid(f"remove: unknown id {bid!r}")
            del alive[bid]
            self._count(self.parts_of.pop(bid, 0), -1)
            self.triangles_of.pop(bid, None)
            removes.append(bid)

        # add (limits first, then validation of each body)
        add_list = parse_list(obj.get("add", []), "add")
        new_parts = [_raw_parts(raw.get("shape") if isinstance(raw, dict) else None) for raw in add_list]
        counts = self._counted(len(alive) + len(add_list), self._parts + sum(new_parts),
                               self._sum_p + sum(max(n, 1) for n in new_parts),
                               self._sum_p2 + sum(max(n, 1) ** 2 for n in new_parts), "add")
        adds: list[BodySpec] = []
        for i, raw in enumerate(add_list):
            spec, tag = self._parse_body(raw, i, dim)
            if spec.id in alive:
                raise Invalid(f"add: duplicate id {spec.id!r} (a body with this id is alive)")
            alive[spec.id] = tag
            if spec.shape.kind == "compound":
                self.parts_of[spec.id] = len(spec.shape.parts)  # type: ignore[union-attr]
            elif spec.shape.kind in ("triangle_mesh", "heightfield"):
                self.triangles_of[spec.id] = len(spec.shape.triangles)  # type: ignore[union-attr]
            elif spec.shape.kind == "chain":  # its contacts' parts are its segments (format, version 3)
                self.triangles_of[spec.id] = len(spec.shape.parts)  # type: ignore[union-attr]
            adds.append(spec)
        self._parts, self._sum_p, self._sum_p2 = counts

        # set (version 2): after add, before move
        sets: list[SetSpec] = []
        for i, raw in enumerate(parse_list(obj.get("set", []), "set")):
            sets.append(self._parse_set(raw, i, dim))

        # move
        moves: list[MoveSpec] = []
        for i, raw in enumerate(parse_list(obj.get("move", []), "move")):
            moves.append(self._parse_move(raw, i, dim))

        # expectations
        expect = None
        if "expect" in obj:
            expect = self._parse_expect(obj["expect"])
        contacts = None
        if "expect_contacts" in obj:
            contacts = self._parse_expect_contacts(obj["expect_contacts"], expect, dim)
        distances = None
        if "expect_distance" in obj:
            distances = self._parse_expect_distance(obj["expect_distance"], dim)
        impacts = None
        if "expect_impact" in obj:
            impacts = self._parse_expect_impact(obj["expect_impact"], dim)

        return Frame(
            number=self.line_no - 1,
            line=self.line_no,
            remove=tuple(removes),
            add=tuple(adds),
            move=tuple(moves),
            expect=expect,
            expect_contacts=contacts,
            set=tuple(sets),
            expect_distance=distances,
            expect_impact=impacts,
        )

    def _count(self, parts: int, sign: int) -> None:
        """Count a body of ``parts`` compound parts (0: a simple body) in (+1) or out (-1)."""
        p = max(parts, 1)
        self._parts += sign * parts
        self._sum_p += sign * p
        self._sum_p2 += sign * p * p

    def _counted(self, bodies: int, parts: int, sum_p: int, sum_p2: int, what: str) -> tuple[int, int, int]:
        """Check the alive bodies an operation would leave against ``max_bodies`` (each compound
        part counting as a body) and ``max_part_pairs``, before any of its shapes is built.

        The part pairs beyond one per pair of bodies are the sum over pairs of
        bodies of ``p_a p_b - 1``: ``((sum p)^2 - sum p^2) / 2 - bodies (bodies - 1) / 2``.
        """
        limits = self.limits
        if bodies + parts > limits.max_bodies:
            also = f" and {parts} compound parts (each counts as a body)" if parts else ""
            raise Invalid(f"{what}: {bodies} bodies{also} would be alive, more than the limit "
                           f"of {limits.max_bodies} (max_bodies)")
        pairs = (sum_p * sum_p - sum_p2) // 2 - bodies * (bodies - 1) // 2
        if pairs > limits.max_part_pairs:
            raise Invalid(f"{what}: the alive bodies' compound parts could make {pairs} pairs of parts "
                           f"more than one per pair of bodies, over the limit of {limits.max_part_pairs} "
                           "(max_part_pairs)")
        return parts, sum_p, sum_p2

    def _parse_body(self, raw: Any, i: int, dim: int) -> tuple[BodySpec, int]:
        return parse_body(raw, i, dim, self.limits.max_polygon_vertices, self.version)

    @property
    def version(self) -> int:
        return self.header.version

    def _parse_set(self, raw: Any, i: int, dim: int) -> SetSpec:
        obj = parse_object(raw, f"set[{i}]")
        if "id" not in obj:
            raise Invalid(f"set[{i}]: missing key 'id'")
        bid = parse_body_id(obj["id"], f"set[{i}]: id")
        where = f"set: body {bid!r}"
        check_keys(obj, SET_KEYS, where)
        tag = self.alive.get(bid)
        if tag is None:
            raise Invalid(f"set: unknown id {bid!r}")
        if len([k for k in obj if k in SET_KEYS]) == 1:
            raise Invalid(f"{where}: nothing to set (give any of category, mask, shape, static)")
        static = obj.get("static")
        if static is not None or "static" in obj:
            if not isinstance(static, bool):
                raise Invalid(f"{where}: static must be true or false, got {show_value(static)}")
            if tag == UNBOUNDED and not static:
                raise Invalid(f"{where}: a halfplane or plane is always static")
        category = parse_uint32(obj["category"], f"{where}: category") if "category" in obj else None
        mask = parse_uint32(obj["mask"], f"{where}: mask") if "mask" in obj else None
        shape = None
        if "shape" in obj:
            old_parts, new_parts = self.parts_of.get(bid, 0), _raw_parts(obj["shape"])
            old_p, new_p = max(old_parts, 1), max(new_parts, 1)
            counts = self._counted(len(self.alive), self._parts - old_parts + new_parts,
                                   self._sum_p - old_p + new_p, self._sum_p2 - old_p * old_p + new_p * new_p,
                                   where)
            shape = parse_shape(obj["shape"], dim, where, self.limits.max_polygon_vertices, self.version)
            self._parts, self._sum_p, self._sum_p2 = counts
            new_tag = shape_tag(shape)
            if (new_tag == UNBOUNDED) != (tag == UNBOUNDED):
                was = "a halfplane or plane" if tag == UNBOUNDED else "a finite shape"
                raise Invalid(f"{where}: a {shape.kind} cannot replace {was} in place "
                               "(remove the body and add a new one)")
            self.alive[bid] = new_tag
            self.parts_of.pop(bid, None)
            self.triangles_of.pop(bid, None)
            if shape.kind == "compound":
                self.parts_of[bid] = len(shape.parts)  # type: ignore[union-attr]
            elif shape.kind in ("triangle_mesh", "heightfield"):
                self.triangles_of[bid] = len(shape.triangles)  # type: ignore[union-attr]
            elif shape.kind == "chain":
                self.triangles_of[bid] = len(shape.parts)  # type: ignore[union-attr]
        return SetSpec(id=bid, static=static, category=category, mask=mask, shape=shape)

    def _parse_plane_move(self, raw: dict[str, Any], bid: BodyId, dim: int) -> MoveSpec:
        """A move of a halfplane/plane (version 2): by ``normal`` and/or ``offset`` only."""
        where = f"move: body {bid!r}"
        if self.version < 2:
            raise Invalid(f"{where}: a halfplane or plane cannot move in format version 1 "
                           "(version 2 moves it by normal and offset)")
        for key in ("position", "angle", "quaternion"):
            if key in raw:
                raise Invalid(f"{where}: a halfplane or plane cannot move by {key!r}: it has no pose "
                               "(move it by normal and offset)")
        normal = offset = None
        if "normal" in raw:
            normal = parse_vector(raw["normal"], dim, f"{where}: normal")
            if not any(normal):
                raise Invalid(f"{where}: normal must not be zero")
        if "offset" in raw:
            offset = parse_number(raw["offset"], f"{where}: offset")
        return MoveSpec(id=bid, normal=normal, offset=offset)

    def _parse_move(self, raw: Any, i: int, dim: int) -> MoveSpec:
        # The hot path of long recordings: error texts are built only on error.
        if type(raw) is not dict:
            raise Invalid(f"move[{i}] must be an object, got {show_value(raw)}")
        if "id" not in raw:
            raise Invalid(f"move[{i}]: missing key 'id'")
        bid = raw["id"]
        if type(bid) is not str and type(bid) is not int:
            bid = parse_body_id(bid, f"move[{i}]: id")
        for key in raw:
            if key not in MOVE_KEYS and not key.startswith("_"):
                check_keys(raw, MOVE_KEYS, f"move: body {bid!r}")
        tag = self.alive.get(bid)
        if tag is None:
            raise Invalid(f"move: unknown id {bid!r}")
        if tag == UNBOUNDED:
            return self._parse_plane_move(raw, bid, dim)
        if "normal" in raw or "offset" in raw:
            key = "normal" if "normal" in raw else "offset"
            raise Invalid(f"move: body {bid!r}: {key!r} moves only a halfplane or plane")
        position = angle = quaternion = None
        if "position" in raw:
            position = parse_position(raw["position"], dim, lambda: f"move: body {bid!r}: position")
        if "angle" in raw:
            if dim != 2:
                raise Invalid(f"move: body {bid!r}: 'angle' is only allowed in 2D (use 'quaternion' in 3D)")
            angle = parse_number(raw["angle"], lambda: f"move: body {bid!r}: angle")
        if "quaternion" in raw:
            if dim != 3:
                raise Invalid(f"move: body {bid!r}: 'quaternion' is only allowed in 3D (use 'angle' in 2D)")
            quaternion = parse_quaternion(raw["quaternion"], lambda: f"move: body {bid!r}: quaternion")
        return MoveSpec(id=bid, position=position, angle=angle, quaternion=quaternion)

    def _parse_pair(self, raw: Any, what: str) -> tuple[BodyId, BodyId]:
        if not isinstance(raw, list) or len(raw) != 2:
            raise Invalid(f"{what} must be a list of two ids, got {show_value(raw)}")
        a = parse_body_id(raw[0], f"{what}[0]")
        b = parse_body_id(raw[1], f"{what}[1]")
        if a == b:
            raise Invalid(f"{what} pairs body {a!r} with itself (a body never contacts itself)")
        for bid in (a, b):
            if bid not in self.alive:
                raise Invalid(f"{what}: unknown id {bid!r} (no alive body has it)")
        return a, b

    def _parse_expect(self, raw: Any) -> frozenset[frozenset[BodyId]]:
        pairs = parse_list(raw, "expect")
        return frozenset(
            frozenset(self._parse_pair(p, f"expect[{i}]")) for i, p in enumerate(pairs)
        )

    def _parse_expect_contacts(
        self, raw: Any, expect: frozenset[frozenset[BodyId]] | None, dim: int
    ) -> tuple[ExpectedContact, ...]:
        out: list[ExpectedContact] = []
        seen: set[tuple[frozenset[BodyId], frozenset[tuple[BodyId, int]]]] = set()
        for i, item in enumerate(parse_list(raw, "expect_contacts")):
            what = f"expect_contacts[{i}]"
            obj = parse_object(item, what)
            check_keys(obj, CONTACT_KEYS, what)
            for key in ("pair", "normal", "depth"):
                if key not in obj:
                    raise Invalid(f"{what}: missing key {key!r}")
            a, b = self._parse_pair(obj["pair"], f"{what}: pair")
            pair = frozenset((a, b))
            # a compound's pair has one entry per part pair: an entry is (pair, parts)
            pp = self._parse_parts(obj["parts"], f"{what}: parts") if "parts" in obj else (-1, -1)
            for bid, part in zip((a, b), pp, strict=True):
                n = self.parts_of.get(bid, 0) or self.triangles_of.get(bid, 0)
                if not (part == -1 if n == 0 else 0 <= part < n):
                    raise Invalid(f"{what}: parts: body {bid!r} is "
                                   + (f"a compound of {n} parts: its part index must be 0 to {n - 1}"
                                      if n else "not a compound: its part index must be -1") + f", got {part}")
            entry = (pair, frozenset(((a, pp[0]), (b, pp[1]))))
            if entry in seen:
                raise Invalid(f"{what}: pair [{a!r}, {b!r}]{' with parts ' + str(list(pp)) if 'parts' in obj else ''}"
                               f" is listed twice")
            seen.add(entry)
            if expect is not None and pair not in expect:
                raise Invalid(f"{what}: pair [{a!r}, {b!r}] is not in this frame's expect list")
            for bid in (a, b):
                if self.alive[bid] == CONCAVE:
                    raise Invalid(
                        f"{what}: body {bid!r} is a concave polygon (expect_contacts is only "
                        "for pairs of convex shapes)"
                    )
            normal = parse_vector(obj["normal"], dim, f"{what}: normal")
            norm = math.sqrt(sum(c * c for c in normal))
            if abs(norm - 1.0) > max(1e-6, self.header_tolerance):
                raise Invalid(f"{what}: normal must be a unit vector, got norm {norm!r}")
            depth = parse_number(obj["depth"], f"{what}: depth")
            if depth < 0:
                raise Invalid(f"{what}: depth must be >= 0, got {show_value(obj['depth'])}")
            points = parts = None
            for key in ("points", "parts"):
                if key in obj and self.version < 2:
                    raise Invalid(f"{what}: {key!r} needs format version 2 (the header says 1)")
            if "points" in obj:
                raw_points = parse_list(obj["points"], f"{what}: points")
                if not raw_points:
                    raise Invalid(f"{what}: points must list at least one contact point")
                points = tuple(parse_position(p, dim, f"{what}: points[{k}]") for k, p in enumerate(raw_points))
            if "parts" in obj:
                parts = self._parse_parts(obj["parts"], f"{what}: parts")
            out.append(ExpectedContact(pair=(a, b), normal=normal, depth=depth, points=points, parts=parts))
        return tuple(out)

    @staticmethod
    def _parse_parts(raw: Any, what: str) -> tuple[int, int]:
        if (not isinstance(raw, list) or len(raw) != 2
                or any(isinstance(v, bool) or not isinstance(v, int) for v in raw)):
            raise Invalid(f"{what} must be a list of two integers, got {show_value(raw)}")
        if any(v < -1 for v in raw):
            # part indices point into compound bodies' parts; -1 names a simple shape
            raise Invalid(f"{what} must be part indices >= -1 (-1 for a simple shape), got {show_value(raw)}")
        return raw[0], raw[1]

    def _parse_expect_distance(self, raw: Any, dim: int) -> tuple[ExpectedDistance, ...]:
        out: list[ExpectedDistance] = []
        for i, item in enumerate(parse_list(raw, "expect_distance")):
            what = f"expect_distance[{i}]"
            obj = parse_object(item, what)
            check_keys(obj, DISTANCE_KEYS, what)
            for key in ("pair", "distance"):
                if key not in obj:
                    raise Invalid(f"{what}: missing key {key!r}")
            a, b = self._parse_pair(obj["pair"], f"{what}: pair")
            d = parse_number(obj["distance"], f"{what}: distance")
            points = None
            if "points" in obj:
                raw_points = obj["points"]
                if not isinstance(raw_points, list) or len(raw_points) != 2:
                    raise Invalid(f"{what}: points must be [point_a, point_b], got {show_value(raw_points)}")
                points = (parse_position(raw_points[0], dim, f"{what}: points[0]"),
                          parse_position(raw_points[1], dim, f"{what}: points[1]"))
            out.append(ExpectedDistance(pair=(a, b), distance=d, points=points))
        return tuple(out)

    def _parse_expect_impact(self, raw: Any, dim: int) -> tuple[ExpectedImpact, ...]:
        out: list[ExpectedImpact] = []
        for i, item in enumerate(parse_list(raw, "expect_impact")):
            what = f"expect_impact[{i}]"
            obj = parse_object(item, what)
            check_keys(obj, IMPACT_KEYS, what)
            for key in ("pair", "end_a", "end_b", "t"):
                if key not in obj:
                    raise Invalid(f"{what}: missing key {key!r}")
            a, b = self._parse_pair(obj["pair"], f"{what}: pair")
            if self.alive[a] == UNBOUNDED and self.alive[b] == UNBOUNDED:
                raise Invalid(f"{what}: both bodies are halfplanes or planes, which never move")
            end_a = parse_pose(obj["end_a"], dim, self.alive[a] == UNBOUNDED, f"{what}: end_a")
            end_b = parse_pose(obj["end_b"], dim, self.alive[b] == UNBOUNDED, f"{what}: end_b")
            t = None
            if obj["t"] is not None:
                t = parse_number(obj["t"], f"{what}: t")
                if not 0.0 <= t <= 1.0:
                    raise Invalid(f"{what}: t must be in [0, 1] or null, got {show_value(obj['t'])}")
            out.append(ExpectedImpact(pair=(a, b), end_a=end_a, end_b=end_b, t=t))
        return tuple(out)

    @property
    def header_tolerance(self) -> float:
        return self.header.tolerance


# --------------------------------------------------------------------------
# public entry points
# --------------------------------------------------------------------------


class Scenario:
    r"""A scenario file: its header, read at once, and its frames, streamed.

    Iterating a :class:`Scenario` reads the file from the start each time,
    validating every line and yielding one :class:`Frame` per line; it never
    holds more than one line in memory. Use :meth:`frames` for an iterator
    whose ``bytes_read`` can drive a progress bar.

    Attributes
    ----------
    path : str
    header : Header
    limits : ReaderLimits
    ignore_truncated_tail : bool

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "scene.jsonl")
    >>> with open(path, "w") as f:
    ...     _ = f.write('{"collideworld_scenario": 1, "dim": 2}\n{}\n{}\n')
    >>> scenario = Scenario(path)
    >>> scenario.dim, sum(1 for _ in scenario), sum(1 for _ in scenario)  # each pass rereads the file
    (2, 2, 2)
    """

    def __init__(self, path: str | os.PathLike[str], *, ignore_truncated_tail: bool = False,
                 limits: ReaderLimits | None = None):
        self.path = check_path(path)
        self.limits = limits or ReaderLimits()
        self.ignore_truncated_tail = ignore_truncated_tail
        reader = _FrameReader(self.path, self.limits, ignore_truncated_tail)
        try:
            self.header = reader.header
        finally:
            reader.close()

    @property
    def dim(self) -> int:
        return self.header.dim

    def frames(self) -> FrameIterator:
        """A fresh iterator over the frames (the file is opened again)."""
        return FrameIterator(_FrameReader(self.path, self.limits, self.ignore_truncated_tail))

    def __iter__(self) -> FrameIterator:
        return self.frames()

    def __repr__(self) -> str:
        return f"Scenario({self.path!r}, dim={self.header.dim}, name={self.header.name!r})"


class FrameIterator:
    r"""Iterator of :class:`Frame`; also a context manager that closes the file.

    Attributes
    ----------
    header : Header
    bytes_read : int
        Bytes of the file consumed so far (compressed bytes for ``.gz``).
    size : int or None
        Size of the file on disk.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "scene.jsonl")
    >>> with open(path, "w") as f:
    ...     _ = f.write('{"collideworld_scenario": 1, "dim": 2}\n'
    ...                 '{"add": [{"id": 7, "shape": {"type": "circle", "radius": 1}, "position": [0, 0]}]}\n')
    >>> with read_scenario(path).frames() as frames:
    ...     print([frame.number for frame in frames], sorted(frames.alive_ids))
    [1] [7]
    """

    def __init__(self, reader: _FrameReader):
        self._reader = reader
        self.header = reader.header
        try:
            self.size: int | None = os.path.getsize(reader.path)
        except OSError:
            self.size = None

    @property
    def bytes_read(self) -> int:
        return self._reader.bytes_read

    @property
    def alive_ids(self) -> frozenset[BodyId]:
        """Ids alive after the last frame yielded (as the reader tracks them)."""
        return frozenset(self._reader.alive)

    def __iter__(self) -> FrameIterator:
        return self

    def __next__(self) -> Frame:
        try:
            return next(self._reader)
        except BaseException:
            self._reader.close()
            raise

    def close(self) -> None:
        self._reader.close()

    def __enter__(self) -> FrameIterator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def limits_from(kwargs: dict[str, Any]) -> ReaderLimits:
    allowed = set(ReaderLimits.__dataclass_fields__)
    unknown = set(kwargs) - allowed
    if unknown:
        raise TypeError(f"unknown limit(s) {sorted(unknown)}; expected some of {sorted(allowed)}")
    for key, value in kwargs.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{key} must be a positive integer, got {value!r}")
    return ReaderLimits(**kwargs)


def read_scenario(path: str | os.PathLike[str], *, ignore_truncated_tail: bool = False,
                  **limits: int) -> Scenario:
    r"""Open a scenario file: read and check its header, stream its frames.

    Parameters
    ----------
    path : str or path-like
        A ``.jsonl`` file, or a ``.jsonl.gz`` file (any path ending in ``.gz``
        is read as gzip).
    ignore_truncated_tail : bool
        If True, a truncated last line (incomplete JSON at the end of the file
        with no trailing newline, as left by a writer that was killed) and a
        gzip stream cut before its end marker end the frames quietly instead
        of raising. Only a line that is a proper prefix of a JSON object
        counts as truncated; any other invalid last line (complete JSON with
        text after it, a wrong character) is an error all the same.
    **limits
        ``max_line_bytes``, ``max_polygon_vertices``, ``max_bodies``,
        ``max_frames``, ``max_decompressed_bytes``, ``max_part_pairs``; see
        :class:`ReaderLimits`.

    Returns
    -------
    Scenario
        ``.header`` and an iterable of :class:`Frame`.

    Raises
    ------
    ScenarioError
        The file is missing, unreadable or breaks the format; the message
        names the file, the line and the problem. Frame errors are raised
        while iterating, when the bad line is reached.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "scene.jsonl")
    >>> with open(path, "w") as f:
    ...     _ = f.write('{"collideworld_scenario": 1, "dim": 2, "name": "two steps"}\n{}\n{"expect": []}\n')
    >>> scenario = read_scenario(path)
    >>> scenario.header.name, [frame.expect for frame in scenario]
    ('two steps', [None, frozenset()])
    """
    return Scenario(path, ignore_truncated_tail=ignore_truncated_tail, limits=limits_from(limits))


def iter_frames(path: str | os.PathLike[str], *, ignore_truncated_tail: bool = False,
                **limits: int) -> Iterator[Frame]:
    r"""Stream the frames of a scenario file (header checked, not yielded).

    Parameters
    ----------
    path : str or path-like
    ignore_truncated_tail : bool
    **limits
        As for :func:`read_scenario`.

    Yields
    ------
    Frame
        One per line after the header; the file is closed when the
        iteration ends.

    Raises
    ------
    ScenarioError
        As :func:`read_scenario`, at the bad line.

    Examples
    --------
    The second frame moves a body that was never added:

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "bad.jsonl")
    >>> with open(path, "w") as f:
    ...     _ = f.write('{"collideworld_scenario": 1, "dim": 2}\n{}\n{"move": [{"id": "b4", "angle": 1}]}\n')
    >>> [frame.number for frame in iter_frames(path)]  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    collideworld.errors.ScenarioError: ...bad.jsonl:3: move: unknown id 'b4'
    """
    scenario = read_scenario(path, ignore_truncated_tail=ignore_truncated_tail, **limits)
    with scenario.frames() as frames:
        yield from frames
