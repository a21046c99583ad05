"""Replay a scenario file through a World and compare every expectation.

:func:`replay` streams the file (bounded memory), applies each frame's
``remove``, ``add`` and ``move`` lists to a fresh world, steps it, and checks
what the step returned against the frame's ``expect``,
``expect_contacts``, ``expect_distance`` and ``expect_impact`` (the last two
through :func:`collideworld.distance` and :func:`collideworld.time_of_impact`
on the bodies as the world holds them after the step). It returns a :class:`ReplayReport`; a file that breaks
the format raises :class:`~collideworld.errors.ScenarioError` instead.

How ``expect_contacts`` are compared
------------------------------------
Pairs are matched as unordered pairs. The world's normal is flipped when the
world orders the pair the other way round from the file, so both normals
point from the file's ``pair[0]`` to ``pair[1]``. Then, within the header's
``tolerance``:

* the **depth** must always match;
* the **normal** must match, unless the minimum translation direction is
  not unique (two equal boxes exactly on top of each other, concentric
  circles, a box corner pushed exactly along a diagonal...). The format
  accepts any direction that achieves the minimum, so when the two normals
  differ the replay computes, from the bodies' shapes and poses, how far
  ``b`` would have to move along each of them to separate
  (``h_a(n) + h_b(-n)``, with ``h`` the support function). If both
  directions separate the bodies by exactly the reported depth, the tie is
  genuine and the contact matches; otherwise it is a mismatch.
* the **points** (version 2), when given, must match the world's contact
  points as a set: as many points, each expected point within
  ``tolerance`` of a different world point. A file with contact points
  replays in ``World(manifolds=True)`` (the default factory sees them in the
  file before it builds the world).

How ``expect_distance`` and ``expect_impact`` are compared
-----------------------------------------------------------
The signed distance and the time of impact must be within ``tolerance``
(``t`` null matches only "never"). The closest points of an
``expect_distance`` entry must match the world's; when they do not, the
file's points are still accepted if they are a genuine alternative pair
(closest points are not always unique: parallel edges): each within
``tolerance`` of its body and as far apart as the distance.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import CollideWorldError, ScenarioError
from ..geometry.rotation import rotation_matrix_3d
from .reader import BodyId, ExpectedContact, ExpectedDistance, ExpectedImpact, Frame, Header, read_scenario
from .source import ReaderLimits

__all__ = ["replay", "iter_replay", "ReplayReport", "FrameMismatch", "ContactMismatch", "DistanceMismatch",
           "ImpactMismatch"]

#: Pairs and contact differences kept per differing frame (all are counted),
#: so a replay's memory stays bounded whatever the file.
MAX_PAIRS_KEPT = 1000


def _id_key(value: Any) -> tuple[int, Any, str]:
    return (0, value, "") if isinstance(value, int) else (1, 0, str(value))


def _sorted_pair(pair: Iterable[BodyId]) -> tuple[BodyId, BodyId]:
    a, b = sorted(pair, key=_id_key)
    return a, b


def _sorted_pairs(pairs: Iterable[frozenset[BodyId]]) -> list[tuple[BodyId, BodyId]]:
    return sorted((_sorted_pair(p) for p in pairs), key=lambda p: (_id_key(p[0]), _id_key(p[1])))


def _fmt_vec(v: Iterable[float] | None) -> str:
    if v is None:
        return "-"
    return "[" + ", ".join(f"{x:.9g}" for x in v) + "]"


@dataclass(frozen=True)
class ContactMismatch:
    """One ``expect_contacts`` entry the world did not reproduce.

    ``actual_normal`` is oriented like the file's pair (from ``pair[0]`` to
    ``pair[1]``); it and ``actual_depth`` are None when the pair is not in
    contact at all.

    Attributes
    ----------
    pair : tuple of two ids
        As in the file.
    expected_normal : tuple of float, shape (D,)
    expected_depth : float
    actual_normal : tuple of float, shape (D,), or None
    actual_depth : float or None
    reason : str
        E.g. ``"depth differs"``, ``"normal differs"``, ``"points differ"``.
    expected_points, actual_points : tuple of points, or None
        Set for a ``"points differ"`` mismatch (``actual_points`` None when
        the world computes no contact points).

    Examples
    --------
    A file claiming that unit circles 1.5 apart overlap by 0.25 (it is
    2 - 1.5 = 0.5):

    >>> import os, tempfile
    >>> from collideworld.shapes import Circle
    >>> from collideworld.scenario import BodySpec, ExpectedContact, ScenarioWriter
    >>> path = os.path.join(tempfile.mkdtemp(), "wrong.jsonl")
    >>> bodies = [BodySpec("a", Circle(1.0), (0.0, 0.0)), BodySpec("b", Circle(1.0), (1.5, 0.0))]
    >>> with ScenarioWriter(path, dim=2) as w:
    ...     w.write_frame(add=bodies, expect=[("a", "b")],
    ...                   expect_contacts=[ExpectedContact(("a", "b"), (1.0, 0.0), 0.25)])
    >>> print(replay(path).first_mismatch.contacts[0].describe())
    ['a', 'b']: depth differs: expected normal [1, 0] depth 0.25, got normal [1, 0] depth 0.5
    """

    pair: tuple[BodyId, BodyId]
    expected_normal: tuple[float, ...]
    expected_depth: float
    actual_normal: tuple[float, ...] | None
    actual_depth: float | None
    reason: str
    expected_points: tuple[tuple[float, ...], ...] | None = None
    actual_points: tuple[tuple[float, ...], ...] | None = None

    def describe(self) -> str:
        a, b = self.pair
        if self.actual_depth is None:
            return f"[{a!r}, {b!r}]: {self.reason}"
        if self.expected_points is not None:
            got = "none" if self.actual_points is None else ", ".join(map(_fmt_vec, self.actual_points))
            return (f"[{a!r}, {b!r}]: {self.reason}: expected points "
                    f"{', '.join(map(_fmt_vec, self.expected_points))}, got {got}")
        return (f"[{a!r}, {b!r}]: {self.reason}: expected normal {_fmt_vec(self.expected_normal)} "
                f"depth {self.expected_depth:.9g}, got normal {_fmt_vec(self.actual_normal)} "
                f"depth {self.actual_depth:.9g}")


@dataclass(frozen=True)
class DistanceMismatch:
    """One ``expect_distance`` entry the world did not reproduce.

    Attributes
    ----------
    pair : tuple of two ids
    expected_distance, actual_distance : float
    expected_points, actual_points : tuple of two points, or None
    reason : str
        ``"distance differs"`` or ``"points differ"``.

    Examples
    --------
    A file claiming that unit circles 3 apart are 0.5 apart (it is 1):

    >>> import os, tempfile
    >>> from collideworld.shapes import Circle
    >>> from collideworld.scenario import BodySpec, ExpectedDistance, ScenarioWriter
    >>> path = os.path.join(tempfile.mkdtemp(), "wrong.jsonl")
    >>> bodies = [BodySpec("a", Circle(1.0), (0.0, 0.0)), BodySpec("b", Circle(1.0), (3.0, 0.0))]
    >>> with ScenarioWriter(path, dim=2) as w:
    ...     w.write_frame(add=bodies, expect_distance=[ExpectedDistance(("a", "b"), 0.5)])
    >>> print(replay(path).first_mismatch.distances[0].describe())
    ['a', 'b']: distance differs: expected 0.5, got 1
    """

    pair: tuple[BodyId, BodyId]
    expected_distance: float
    actual_distance: float
    reason: str
    expected_points: tuple[tuple[float, ...], ...] | None = None
    actual_points: tuple[tuple[float, ...], ...] | None = None

    def describe(self) -> str:
        a, b = self.pair
        text = (f"[{a!r}, {b!r}]: {self.reason}: expected {self.expected_distance:.9g}, "
                f"got {self.actual_distance:.9g}")
        if self.reason == "points differ" and self.expected_points is not None and self.actual_points is not None:
            text += (f" (points: expected {', '.join(map(_fmt_vec, self.expected_points))}, "
                     f"got {', '.join(map(_fmt_vec, self.actual_points))})")
        return text


@dataclass(frozen=True)
class ImpactMismatch:
    """One ``expect_impact`` entry the world did not reproduce.

    Attributes
    ----------
    pair : tuple of two ids
    expected_t, actual_t : float or None
        None: never touch.

    Examples
    --------
    A file claiming a unit circle moving from x=0 to x=10 never reaches a
    still one at x=5 (it touches at t=0.3):

    >>> import os, tempfile
    >>> from collideworld.shapes import Circle
    >>> from collideworld.scenario import BodySpec, ExpectedImpact, PoseSpec, ScenarioWriter
    >>> path = os.path.join(tempfile.mkdtemp(), "wrong.jsonl")
    >>> bodies = [BodySpec("a", Circle(1.0), (0.0, 0.0)), BodySpec("b", Circle(1.0), (5.0, 0.0))]
    >>> impact = ExpectedImpact(("a", "b"), PoseSpec((10.0, 0.0)), PoseSpec((5.0, 0.0)), None)
    >>> with ScenarioWriter(path, dim=2) as w:
    ...     w.write_frame(add=bodies, expect_impact=[impact])
    >>> print(replay(path).first_mismatch.impacts[0].describe())
    ['a', 'b']: time of impact differs: expected never, got t=0.3
    """

    pair: tuple[BodyId, BodyId]
    expected_t: float | None
    actual_t: float | None

    def describe(self) -> str:
        a, b = self.pair

        def show(t: float | None) -> str:
            return "never" if t is None else f"t={t:.9g}"

        return f"[{a!r}, {b!r}]: time of impact differs: expected {show(self.expected_t)}, got {show(self.actual_t)}"


@dataclass(frozen=True)
class FrameMismatch:
    """A frame whose step did not give what the file expects.

    Attributes
    ----------
    number, line : int
        Frame number (1-based) and its line in the file.
    missing : list of (id, id)
        Expected pairs the world did not report (the first
        ``MAX_PAIRS_KEPT`` in sorted order; ``missing_count`` counts all).
    extra : list of (id, id)
        Pairs the world reported that the file does not expect (likewise
        capped; ``extra_count`` counts all).
    contacts : list of ContactMismatch
    distances : list of DistanceMismatch
    impacts : list of ImpactMismatch
    expected_count, actual_count : int or None
        Number of pairs expected (None without ``expect``) and reported.

    Examples
    --------
    A file claiming that unit circles 1.5 apart are not in contact:

    >>> import os, tempfile
    >>> from collideworld.shapes import Circle
    >>> from collideworld.scenario import BodySpec, ScenarioWriter
    >>> path = os.path.join(tempfile.mkdtemp(), "wrong.jsonl")
    >>> bodies = [BodySpec("a", Circle(1.0), (0.0, 0.0)), BodySpec("b", Circle(1.0), (1.5, 0.0))]
    >>> with ScenarioWriter(path, dim=2) as w:
    ...     w.write_frame(add=bodies, expect=[])
    >>> print(replay(path).first_mismatch.describe())
    frame 1 (line 2): expected 0 pairs, the world reported 1
      extra (reported, not expected) (1):
        ['a', 'b']
    """

    number: int
    line: int
    missing: list[tuple[BodyId, BodyId]] = field(default_factory=list)
    extra: list[tuple[BodyId, BodyId]] = field(default_factory=list)
    contacts: list[ContactMismatch] = field(default_factory=list)
    expected_count: int | None = None
    actual_count: int = 0
    missing_count: int = 0
    extra_count: int = 0
    distances: list[DistanceMismatch] = field(default_factory=list)
    impacts: list[ImpactMismatch] = field(default_factory=list)

    def describe(self, limit: int = 20) -> str:
        """A readable, multi-line account of the differences."""
        exp = "-" if self.expected_count is None else str(self.expected_count)
        lines = [f"frame {self.number} (line {self.line}): expected {exp} pairs, "
                 f"the world reported {self.actual_count}"]

        def block(title: str, items: list[str], total: int) -> None:
            if not items:
                return
            total = max(total, len(items))
            lines.append(f"  {title} ({total}):")
            lines.extend(f"    {s}" for s in items[:limit])
            if total > limit:
                lines.append(f"    ... and {total - min(limit, len(items))} more")

        block("missing (expected, not reported)", [f"[{a!r}, {b!r}]" for a, b in self.missing],
              self.missing_count)
        block("extra (reported, not expected)", [f"[{a!r}, {b!r}]" for a, b in self.extra],
              self.extra_count)
        block("contact differences", [c.describe() for c in self.contacts], len(self.contacts))
        block("distance differences", [d.describe() for d in self.distances], len(self.distances))
        block("impact differences", [i.describe() for i in self.impacts], len(self.impacts))
        return "\n".join(lines)


@dataclass
class ReplayReport:
    """What a replay found.

    Attributes
    ----------
    path : str
    header : Header
    frames : int
        Frames replayed.
    frames_checked : int
        Frames with an ``expect``, ``expect_contacts``, ``expect_distance``
        or ``expect_impact`` key.
    mismatch_count : int
        Frames that did not match (all of them, even beyond ``mismatches``).
    mismatches : list of FrameMismatch
        The first ``max_mismatches`` of them, in file order.
    contacts_checked : int
        ``expect_contacts`` entries compared.
    distances_checked, impacts_checked : int
        ``expect_distance`` and ``expect_impact`` entries compared.
    seconds : float
        Wall time of the replay.

    Examples
    --------
    A file claiming that unit circles 1.5 apart are not in contact:

    >>> import os, tempfile
    >>> from collideworld.shapes import Circle
    >>> from collideworld.scenario import BodySpec, ScenarioWriter
    >>> path = os.path.join(tempfile.mkdtemp(), "wrong.jsonl")
    >>> bodies = [BodySpec("a", Circle(1.0), (0.0, 0.0)), BodySpec("b", Circle(1.0), (1.5, 0.0))]
    >>> with ScenarioWriter(path, dim=2) as w:
    ...     w.write_frame(add=bodies, expect=[])
    >>> report = replay(path)
    >>> report.ok, report.frames_checked, report.mismatch_count, report.first_mismatch.extra
    (False, 1, 1, [('a', 'b')])
    """

    path: str
    header: Header
    frames: int = 0
    frames_checked: int = 0
    mismatch_count: int = 0
    mismatches: list[FrameMismatch] = field(default_factory=list)
    contacts_checked: int = 0
    seconds: float = 0.0
    distances_checked: int = 0
    impacts_checked: int = 0

    @property
    def ok(self) -> bool:
        """True when every checked frame matched."""
        return self.mismatch_count == 0

    @property
    def first_mismatch(self) -> FrameMismatch | None:
        """The first frame that did not match, or None."""
        return self.mismatches[0] if self.mismatches else None

    def summary(self) -> str:
        """One line: file, frames, checks, result."""
        name = os.path.basename(self.path)
        result = "OK" if self.ok else f"MISMATCH in {self.mismatch_count} frame(s)"
        details = f"{self.contacts_checked} contact details"
        if self.distances_checked or self.impacts_checked:
            details += f", {self.distances_checked} distances, {self.impacts_checked} impacts"
        text = f"{name}: {self.frames} frames, {self.frames_checked} checked ({details}), {result}"
        first = self.first_mismatch
        if first is not None:
            text += f"; first at frame {first.number} (line {first.line})"
        return text

    def format_first_mismatch(self, limit: int = 20) -> str:
        """The first differing frame, in detail ('' when everything matched)."""
        first = self.first_mismatch
        if first is None:
            return ""
        return f"{self.path}:{first.line}: " + first.describe(limit)

    def __str__(self) -> str:
        return self.summary()


# --------------------------------------------------------------------------
# ties between minimum translation directions
# --------------------------------------------------------------------------


def _rotation(body: Any, dim: int) -> np.ndarray:
    if dim == 2:
        a = float(body.angle or 0.0)
        c, s = math.cos(a), math.sin(a)
        return np.array([[c, -s], [s, c]])
    q = body.quaternion
    return np.eye(3) if q is None else rotation_matrix_3d(np.asarray(q, dtype=float))


def _support(body: Any, n: np.ndarray, dim: int, tol: float) -> float:
    """max over the body's points p of n . p (inf when unbounded along n)."""
    shape = body.shape
    kind = shape.kind
    if kind in ("halfplane", "plane"):
        m = np.asarray(shape.normal, dtype=float)
        # bounded only along its own outward normal
        return float(shape.offset) if np.linalg.norm(n - m) <= max(tol, 1e-9) else math.inf
    pos = np.asarray(body.position, dtype=float)
    local = _rotation(body, dim).T @ n  # the direction in the body's frame
    if kind in ("circle", "sphere"):
        return float(pos @ n + shape.radius * np.linalg.norm(n))
    if kind == "box":
        return float(pos @ n + np.abs(local) @ np.asarray(shape.half_extents, dtype=float))
    if kind == "polygon":
        verts = np.asarray(shape.vertices, dtype=float)
        return float(pos @ n + np.max(verts @ local))
    if kind in ("capsule", "segment"):  # the core segment's farther end, pushed out by the radius
        ends = np.array([shape.p0, shape.p1], dtype=float)
        return float(pos @ n + np.max(ends @ local) + shape.radius * np.linalg.norm(n))
    if kind == "convex_hull":
        return float(pos @ n + np.max(shape.vertices @ local))
    raise ValueError(f"no support function for {kind!r}")


def _separation(body_a: Any, body_b: Any, n: np.ndarray, dim: int, tol: float) -> float:
    """How far b must move along unit n to stop overlapping a."""
    return _support(body_a, n, dim, tol) + _support(body_b, -n, dim, tol)


# --------------------------------------------------------------------------
# the replay
# --------------------------------------------------------------------------


def _default_world_factory(dim: int, manifolds: bool = False) -> Any:
    from ..world import World  # imported here so the reader works without it

    return World(dim=dim, manifolds=manifolds)


def mentions_points(path: str, limits: ReaderLimits) -> bool:
    """Whether a version 2 file may have contact points: the bytes ``"points"`` occur in it.

    A scan of the raw lines, far cheaper than reading the file twice; a
    false positive (the key in a comment, in ``expect_distance``) only costs
    a world that computes contact points it did not need. It reads the file
    as the reader does, through the same limits (``max_line_bytes``,
    ``max_frames``, ``max_decompressed_bytes``), and stops at the first line
    over one of them: the reader reports that line itself, so a gzip bomb
    is never inflated past what the reader would read of it.
    """
    from .source import LineSource

    try:
        source = LineSource(path, limits, ignore_truncated_tail=True)
    except ScenarioError:
        return False  # the reader reports a missing or unreadable file itself
    try:
        return source.scan_for(b'"points"')
    finally:
        source.close()


def _pose(body: Any, dim: int) -> Any:
    """A world body's pose in :func:`collideworld.distance`'s form (None for a plane)."""
    if body.position is None:
        return None
    if dim == 2:
        return body.position, body.angle
    return body.position, body.quaternion


def _match_points(expected: Iterable[Iterable[float]], actual: list[np.ndarray], tol: float) -> bool:
    """Whether two point sets are equal within ``tol``: the same size and a one-to-one pairing.

    The sets hold at most a few points (2 in 2D, 4 in 3D), so every
    assignment is tried.
    """
    from itertools import permutations

    exp = [np.asarray(p, dtype=float) for p in expected]
    if len(exp) != len(actual):
        return False
    return any(all(np.linalg.norm(e - actual[k]) <= tol for e, k in zip(exp, perm, strict=True))
               for perm in permutations(range(len(actual))))


class _Replayer:
    def __init__(self, path: str, header: Header, world: Any, max_mismatches: int):
        self.path = path
        self.header = header
        self.world = world
        self.dim = header.dim
        self.tol = header.tolerance
        self.report = ReplayReport(path=path, header=header)
        self.max_mismatches = max_mismatches
        self._add_many = getattr(world, "add_many", None)
        self._remove_many = getattr(world, "remove_many", None)
        self._move_many = getattr(world, "move_many", None)

    def _rejected(self, frame: Frame, what: str, exc: Exception) -> ScenarioError:
        return ScenarioError(f"{what}: the world rejected it: {exc}", self.path, frame.line)

    def apply(self, frame: Frame) -> None:
        world = self.world
        if frame.remove:
            try:
                if self._remove_many is not None:
                    self._remove_many(list(frame.remove))
                else:
                    for body_id in frame.remove:
                        world.remove(body_id)
            except CollideWorldError as exc:
                raise self._rejected(frame, "remove", exc) from exc
        if frame.add:
            self._apply_adds(frame)
        if frame.set:
            self._apply_sets(frame)
        if frame.move:
            self._apply_moves(frame)

    def _apply_sets(self, frame: Frame) -> None:
        world = self.world
        for change in frame.set:
            try:
                if change.shape is not None:
                    world.set_shape(change.id, change.shape)
                if change.static is not None:
                    world.set_static(change.id, change.static)
                if change.category is not None or change.mask is not None:
                    world.set_filter(change.id, category=change.category, mask=change.mask)
            except CollideWorldError as exc:
                raise self._rejected(frame, f"set of {change.id!r}", exc) from exc

    def _apply_moves(self, frame: Frame) -> None:
        moves = frame.move
        move_many = self._move_many
        planes = any(m.normal is not None or m.offset is not None for m in moves)
        if move_many is not None and len(moves) > 1 and not planes:
            # One batched call when every move sets the same fields of a
            # different body (the common case in recordings).
            first = moves[0]
            sig = (first.position is None, first.angle is None, first.quaternion is None)
            ids = [m.id for m in moves]
            if len(set(ids)) == len(ids) and all(
                    (m.position is None, m.angle is None, m.quaternion is None) == sig for m in moves):
                try:
                    move_many(ids,
                              None if sig[0] else [m.position for m in moves],
                              None if sig[1] else [m.angle for m in moves],
                              None if sig[2] else [m.quaternion for m in moves])
                except CollideWorldError as exc:
                    raise self._rejected(frame, "move", exc) from exc
                return
        world = self.world
        for mv in moves:
            try:
                if mv.normal is not None or mv.offset is not None:
                    world.move(mv.id, normal=mv.normal, offset=mv.offset)
                else:
                    world.move(mv.id, position=mv.position, angle=mv.angle, quaternion=mv.quaternion)
            except CollideWorldError as exc:
                raise self._rejected(frame, f"move of {mv.id!r}", exc) from exc

    def _apply_adds(self, frame: Frame) -> None:
        world = self.world
        batch: list[Any] = []

        def flush() -> None:
            if not batch:
                return
            specs = batch[:]
            batch.clear()
            if len(specs) == 1 or self._add_many is None:
                for spec in specs:
                    add_one(spec)
                return
            kwargs: dict[str, Any] = {}
            if self.dim == 2:
                kwargs["angles"] = [0.0 if s.angle is None else s.angle for s in specs]
            else:
                kwargs["quaternions"] = [(1.0, 0.0, 0.0, 0.0) if s.quaternion is None else s.quaternion
                                         for s in specs]
            try:
                self._add_many(
                    [s.shape for s in specs], [s.position for s in specs],
                    static=np.array([s.static for s in specs], dtype=bool),
                    category=np.array([s.category for s in specs], dtype=np.int64),
                    mask=np.array([s.mask for s in specs], dtype=np.int64),
                    ids=[s.id for s in specs], **kwargs)
            except CollideWorldError as exc:
                raise self._rejected(frame, "add", exc) from exc

        def add_one(spec: Any) -> None:
            try:
                world.add(spec.shape, position=spec.position, angle=spec.angle,
                          quaternion=spec.quaternion, static=spec.static,
                          category=spec.category, mask=spec.mask, id=spec.id)
            except CollideWorldError as exc:
                raise self._rejected(frame, f"add of {spec.id!r}", exc) from exc

        # Keep the file's order; batch runs of finite bodies, add planes one by one.
        for spec in frame.add:
            if spec.shape.is_infinite:
                flush()
                add_one(spec)
            else:
                batch.append(spec)
        flush()

    def check(self, frame: Frame, contacts: Any) -> None:
        report = self.report
        if (frame.expect is None and frame.expect_contacts is None and frame.expect_distance is None
                and frame.expect_impact is None):
            return
        report.frames_checked += 1
        a_ids = contacts.a.tolist()
        b_ids = contacts.b.tolist()
        missing: list[tuple[BodyId, BodyId]] = []
        extra: list[tuple[BodyId, BodyId]] = []
        if frame.expect is not None:
            actual = {frozenset(p) for p in zip(a_ids, b_ids, strict=True)}
            missing = _sorted_pairs(frame.expect - actual)
            extra = _sorted_pairs(actual - frame.expect)
        contact_errors: list[ContactMismatch] = []
        if frame.expect_contacts:
            index: dict[Any, int] = {}
            for i, p in enumerate(zip(a_ids, b_ids, strict=True)):
                index.setdefault(frozenset(p), i)
            if contacts.part_a.size and (np.any(contacts.part_a >= 0) or np.any(contacts.part_b >= 0)):
                # compounds: a row per pair of parts, found by (pair, parts)
                for i, row in enumerate(zip(a_ids, b_ids, contacts.part_a.tolist(), contacts.part_b.tolist(),
                                            strict=True)):
                    index[frozenset(((row[0], row[2]), (row[1], row[3])))] = i
            for ec in frame.expect_contacts:
                report.contacts_checked += 1
                err = self._check_contact(ec, index, a_ids, contacts)
                if err is not None:
                    contact_errors.append(err)
        distance_errors: list[DistanceMismatch] = []
        for ed in frame.expect_distance or ():
            report.distances_checked += 1
            d_err = self._check_distance(ed)
            if d_err is not None:
                distance_errors.append(d_err)
        impact_errors: list[ImpactMismatch] = []
        for ei in frame.expect_impact or ():
            report.impacts_checked += 1
            i_err = self._check_impact(ei)
            if i_err is not None:
                impact_errors.append(i_err)
        if missing or extra or contact_errors or distance_errors or impact_errors:
            report.mismatch_count += 1
            if len(report.mismatches) < self.max_mismatches:
                report.mismatches.append(FrameMismatch(
                    number=frame.number, line=frame.line, missing=missing[:MAX_PAIRS_KEPT],
                    extra=extra[:MAX_PAIRS_KEPT], contacts=contact_errors[:MAX_PAIRS_KEPT],
                    missing_count=len(missing), extra_count=len(extra),
                    expected_count=None if frame.expect is None else len(frame.expect),
                    actual_count=len(a_ids), distances=distance_errors[:MAX_PAIRS_KEPT],
                    impacts=impact_errors[:MAX_PAIRS_KEPT]))

    def _check_contact(self, ec: ExpectedContact, index: dict[Any, int],
                       a_ids: list[Any], contacts: Any) -> ContactMismatch | None:
        tol = self.tol
        i = None
        if ec.parts is not None:
            i = index.get(frozenset(((ec.pair[0], ec.parts[0]), (ec.pair[1], ec.parts[1]))))
        if i is None and (ec.parts is None or ec.parts == (-1, -1)):
            i = index.get(frozenset(ec.pair))
        if i is None:
            return ContactMismatch(ec.pair, ec.normal, ec.depth, None, None,
                                   "not in contact in the world")
        normal = np.asarray(contacts.normal[i], dtype=float)
        if a_ids[i] != ec.pair[0]:
            normal = -normal  # the world orders this pair the other way round
        depth = float(contacts.depth[i])
        actual_normal = tuple(float(x) for x in normal)
        if abs(depth - ec.depth) > tol:
            return ContactMismatch(ec.pair, ec.normal, ec.depth, actual_normal, depth,
                                   "depth differs")
        expected = np.asarray(ec.normal, dtype=float)
        if ec.points is not None:
            err = self._check_points(ec, i, contacts, actual_normal, depth)
            if err is not None:
                return err
        if np.linalg.norm(normal - expected) <= tol:
            return None
        # Normals differ: accept only a genuine tie (see the module docstring).
        try:
            body_a = self.world.body(ec.pair[0])
            body_b = self.world.body(ec.pair[1])
            along_file = _separation(body_a, body_b, expected / np.linalg.norm(expected), self.dim, tol)
            along_world = _separation(body_a, body_b, normal / np.linalg.norm(normal), self.dim, tol)
        except (ValueError, CollideWorldError):
            along_file = along_world = math.nan
        if abs(along_file - ec.depth) <= tol and abs(along_world - depth) <= tol:
            return None
        return ContactMismatch(ec.pair, ec.normal, ec.depth, actual_normal, depth,
                               "normal differs")


    def _check_points(self, ec: ExpectedContact, i: int, contacts: Any, actual_normal: tuple[float, ...],
                      depth: float) -> ContactMismatch | None:
        assert ec.points is not None
        points = getattr(contacts, "points", None)
        count = getattr(contacts, "point_count", None)
        if points is None or count is None:
            return ContactMismatch(ec.pair, ec.normal, ec.depth, actual_normal, depth,
                                   "points differ (the world computes no contact points: "
                                   "create it with World(manifolds=True))", ec.points, None)
        actual = [np.asarray(p, dtype=float) for p in points[i, :int(count[i])]]
        if _match_points(ec.points, actual, self.tol):
            return None
        return ContactMismatch(ec.pair, ec.normal, ec.depth, actual_normal, depth, "points differ", ec.points,
                               tuple(tuple(float(x) for x in p) for p in actual))

    def _check_distance(self, ed: ExpectedDistance) -> DistanceMismatch | None:
        from ..proximity import distance

        tol, dim = self.tol, self.dim
        body_a, body_b = self.world.body(ed.pair[0]), self.world.body(ed.pair[1])
        r = distance(body_a.shape, _pose(body_a, dim), body_b.shape, _pose(body_b, dim))
        assert r is not None  # no max_distance given
        got = float(r.distance)
        actual_points = (tuple(float(x) for x in r.point_a), tuple(float(x) for x in r.point_b))
        if abs(got - ed.distance) > tol:
            return DistanceMismatch(ed.pair, ed.distance, got, "distance differs", ed.points, actual_points)
        if ed.points is None:
            return None
        pa, pb = (np.asarray(p, dtype=float) for p in ed.points)
        if np.linalg.norm(pa - r.point_a) <= tol and np.linalg.norm(pb - r.point_b) <= tol:
            return None
        if self._closest_pair_alternative(body_a, body_b, pa, pb, got, r.normal):
            return None
        return DistanceMismatch(ed.pair, ed.distance, got, "points differ", ed.points, actual_points)

    def _closest_pair_alternative(self, body_a: Any, body_b: Any, pa: np.ndarray, pb: np.ndarray,
                                  signed: float, normal: np.ndarray) -> bool:
        """Whether ``pa`` and ``pb`` are closest (or deepest) points too, where they are not unique:
        ``pb - pa`` is ``signed * normal`` and each point is on its body (within tolerance)."""
        from ..proximity import distance
        from ..shapes import Circle, Sphere

        tol, dim = self.tol, self.dim
        if np.linalg.norm(pb - pa - signed * np.asarray(normal, dtype=float)) > tol:
            return False
        dot: Any = Circle(tol / 4) if dim == 2 else Sphere(tol / 4)  # a point, as a tiny ball
        rest: Any = 0.0 if dim == 2 else (1.0, 0.0, 0.0, 0.0)
        for body, p in ((body_a, pa), (body_b, pb)):
            r = distance(body.shape, _pose(body, dim), dot, (tuple(p), rest))
            if r is None or r.distance > tol:
                return False
        return True

    def _check_impact(self, ei: ExpectedImpact) -> ImpactMismatch | None:
        from ..proximity import time_of_impact

        dim = self.dim
        body_a, body_b = self.world.body(ei.pair[0]), self.world.body(ei.pair[1])
        r = time_of_impact(body_a.shape, _pose(body_a, dim), ei.end_a.as_pose(dim),
                           body_b.shape, _pose(body_b, dim), ei.end_b.as_pose(dim))
        got = None if r is None else float(r.t)
        if got is None and ei.t is None:
            return None
        if got is not None and ei.t is not None and abs(got - ei.t) <= self.tol:
            return None
        return ImpactMismatch(ei.pair, ei.t, got)


def _make_world(factory: Callable[..., Any] | None, path: str, header: Header, limits: ReaderLimits) -> Any:
    """The replay's world: the given factory's, or a ``World`` computing contact points
    when the file (version 2) may check them."""
    if factory is not None:
        return factory(header.dim)
    manifolds = header.version >= 2 and mentions_points(path, limits)
    return _default_world_factory(header.dim, manifolds)


def replay(path: str | os.PathLike[str], world_factory: Callable[[int], Any] | None = None,
           progress: bool = False, *, ignore_truncated_tail: bool = False,
           max_mismatches: int = 100, **limits: int) -> ReplayReport:
    """Replay a scenario file and compare every frame with its expectations.

    Parameters
    ----------
    path : str or path-like
        ``.jsonl`` or ``.jsonl.gz``.
    world_factory : callable, optional
        ``world_factory(dim)`` returns an empty world; default
        ``World(dim=dim)``, with ``manifolds=True`` when the file has
        contact points to check (a world without them fails those checks).
    progress : bool
        Show a tqdm progress bar (bytes of the file) on stderr.
    ignore_truncated_tail : bool
        Stop quietly at a truncated last line (see :func:`read_scenario`).
    max_mismatches : int
        Keep the details of this many differing frames (all are counted).
    **limits
        Reader limits, see :class:`~collideworld.scenario.ReaderLimits`.

    Returns
    -------
    ReplayReport

    Raises
    ------
    ScenarioError
        The file is missing or breaks the format (the message names the file
        and line), or the world rejects an operation the file asks for.

    Examples
    --------
    >>> import os, tempfile
    >>> from collideworld import Circle, World
    >>> from collideworld.scenario import Recorder
    >>> path = os.path.join(tempfile.mkdtemp(), "session.jsonl")
    >>> with Recorder(World(dim=2), path) as rec:
    ...     _ = rec.add(Circle(1.0), position=(0, 0), id="a")
    ...     _ = rec.add(Circle(1.0), position=(1.5, 0), id="b")
    ...     _ = rec.step()
    >>> report = replay(path)
    >>> report.ok, report.frames
    (True, 1)
    """
    started = time.perf_counter()
    scenario = read_scenario(path, ignore_truncated_tail=ignore_truncated_tail, **limits)
    world = _make_world(world_factory, scenario.path, scenario.header, scenario.limits)
    rep = _Replayer(scenario.path, scenario.header, world, max_mismatches)
    bar = None
    with scenario.frames() as frames:
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=frames.size, unit="B", unit_scale=True, leave=False,
                       desc=os.path.basename(scenario.path))
        try:
            done = 0
            redraw = 0.0
            for frame in frames:
                rep.apply(frame)
                contacts = rep.world.step()
                rep.report.frames += 1
                rep.check(frame, contacts)
                # By the clock, not every so many frames: a recorded frame can be
                # 200 kB, and a file of 50 such frames would never move the bar.
                if bar is not None and time.monotonic() >= redraw:
                    pos = frames.bytes_read
                    bar.update(pos - done)
                    done = pos
                    redraw = time.monotonic() + 0.1
            if bar is not None and frames.size:
                bar.update(max(frames.size - done, 0))
        finally:
            if bar is not None:
                bar.close()
    rep.report.seconds = time.perf_counter() - started
    return rep.report


def iter_replay(path: str | os.PathLike[str], world_factory: Callable[[int], Any] | None = None, *,
                ignore_truncated_tail: bool = False,
                **limits: int) -> Iterator[tuple[Frame, Any, Any]]:
    """Drive a world through a scenario file, one frame at a time.

    Yields ``(frame, world, contacts)`` after each frame's step, without
    checking expectations: for tools that inspect the world at some frame
    (``collideworld render``). The same world object is yielded every time.

    Parameters
    ----------
    path : str or path-like
    world_factory : callable, optional
    ignore_truncated_tail : bool
    **limits
        As for :func:`replay`.

    Yields
    ------
    frame : Frame
    world : World
        After the frame's step; the same object each time.
    contacts : Contacts
        What that step returned.

    Raises
    ------
    ScenarioError
        As :func:`replay`.

    Examples
    --------
    >>> import os, tempfile
    >>> from collideworld.shapes import Circle
    >>> from collideworld.scenario import BodySpec, MoveSpec, ScenarioWriter
    >>> path = os.path.join(tempfile.mkdtemp(), "scene.jsonl")
    >>> with ScenarioWriter(path, dim=2) as w:   # unit circles 1.5 apart, then 5 apart
    ...     w.write_frame(add=[BodySpec("a", Circle(1.0), (0.0, 0.0)), BodySpec("b", Circle(1.0), (1.5, 0.0))])
    ...     w.write_frame(move=[MoveSpec("b", position=(5.0, 0.0))])
    >>> for frame, world, contacts in iter_replay(path):
    ...     print(frame.number, world.body("b").position.tolist(), contacts.pairs())
    1 [1.5, 0.0] {('a', 'b')}
    2 [5.0, 0.0] set()
    """
    scenario = read_scenario(path, ignore_truncated_tail=ignore_truncated_tail, **limits)
    world = _make_world(world_factory, scenario.path, scenario.header, scenario.limits)
    rep = _Replayer(scenario.path, scenario.header, world, 0)
    with scenario.frames() as frames:
        for frame in frames:
            rep.apply(frame)
            yield frame, rep.world, rep.world.step()
