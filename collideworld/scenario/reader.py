"""Streaming reader of scenario files (``.jsonl`` and ``.jsonl.gz``).

The format is ``shared/scenario-format.md`` (version 1). The reader never
loads a whole file: it reads one line at a time (a ``.jsonl.gz`` file is
decompressed incrementally), validates it completely and yields it as a
:class:`Frame`. Memory therefore stays bounded by the longest line plus the
set of ids alive at that moment, whatever the file size.

Every line is checked against the contract, and anything wrong is a
:class:`~collideworld.errors.ScenarioError` whose message names the file, the
line and the problem, e.g. ``scene.jsonl:12: move: unknown id 'b4'``. To do
that the reader tracks the set of alive ids itself, applying each frame's
``remove`` list, then ``add``, then ``move``, exactly as a world would.

Limits (line length, polygon vertices, alive bodies, decompressed size) are
checked *before* the work they bound is done; their defaults are generous and
each can be changed with a keyword argument of :func:`read_scenario`.

Examples
--------
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "scene.jsonl")
>>> from collideworld.shapes import Circle
>>> from collideworld.scenario import BodySpec, ScenarioWriter
>>> with ScenarioWriter(path, dim=2) as w:
...     w.write_frame(add=[BodySpec("a", Circle(1.0), (0.0, 0.0))], expect=[])
>>> scenario = read_scenario(path)
>>> scenario.header.dim
2
>>> for frame in scenario:
...     print(frame.number, len(frame.add), frame.expect)
1 1 frozenset()
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from ..errors import InvalidShapeError, ScenarioError
from ..shapes import Shape, shape_from_dict

__all__ = [
    "FORMAT_VERSION",
    "DEFAULT_TOLERANCE",
    "BodyId",
    "Header",
    "BodySpec",
    "MoveSpec",
    "ExpectedContact",
    "Frame",
    "ReaderLimits",
    "Scenario",
    "read_scenario",
    "iter_frames",
    "FrameIterator",
]

#: The only version of the format this reader reads.
FORMAT_VERSION = 1
#: Tolerance of ``expect_contacts`` checks when the header gives none.
DEFAULT_TOLERANCE = 1e-6
#: A quaternion is a unit quaternion when its norm is within this of 1.
QUATERNION_NORM_TOLERANCE = 1e-6
UINT32_MAX = 0xFFFFFFFF

BodyId = str | int

_HEADER_KEYS = frozenset({"collideworld_scenario", "dim", "name", "description", "tolerance"})
_FRAME_KEYS = frozenset({"remove", "add", "move", "expect", "expect_contacts"})
_BODY_KEYS = frozenset({"id", "shape", "position", "angle", "quaternion", "static", "category", "mask"})
_MOVE_KEYS = frozenset({"id", "position", "angle", "quaternion"})
_CONTACT_KEYS = frozenset({"pair", "normal", "depth"})
_UNBOUNDED_KINDS = frozenset({"halfplane", "plane"})

# What the reader remembers about each alive body: just enough to reject a
# move of a plane and an expect_contacts entry that names a concave polygon.
_PLAIN, _UNBOUNDED, _CONCAVE = 0, 1, 2


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


@dataclass(frozen=True)
class ReaderLimits:
    r"""Upper bounds the reader enforces before doing the work they bound.

    Attributes
    ----------
    max_line_bytes : int
        Longest accepted line, in bytes (default 16 MiB).
    max_polygon_vertices : int
        Most vertices in one polygon (default 5,000). Building a polygon
        (self-intersection check, convex decomposition) can take time roughly
        quadratic in its vertices: a zig-zag star of 5,000 vertices took
        about 1 s, 10,000 about 3.4 s, 20,000 about 14 s. Raise it for files
        you trust.
    max_bodies : int
        Most bodies alive at once (default 10 million).
    max_decompressed_bytes : int
        Most bytes a ``.gz`` file may decompress to (default 64 GiB): a guard
        against decompression bombs, not a memory limit (reading streams).

    Examples
    --------
    Each limit is a keyword of :func:`read_scenario`; here the header line
    alone (38 bytes) is over a limit of 16:

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "scene.jsonl")
    >>> with open(path, "w") as f:
    ...     _ = f.write('{"collideworld_scenario": 1, "dim": 2}\n')
    >>> read_scenario(path, max_line_bytes=16)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    collideworld.errors.ScenarioError: ...scene.jsonl:1: line is longer than the limit of 16 bytes (max_line_bytes)
    """

    max_line_bytes: int = 16 * 1024 * 1024
    max_polygon_vertices: int = 5_000
    max_bodies: int = 10_000_000
    max_decompressed_bytes: int = 64 * 1024**3


# --------------------------------------------------------------------------
# byte sources
# --------------------------------------------------------------------------


class _SourceError(Exception):
    """A problem found below the line level (gzip data, size cap)."""


class _GzipRaw(io.RawIOBase):
    """Incremental gzip decompression as a raw stream.

    Unlike :class:`gzip.GzipFile`, a stream that stops before its end marker
    (a writer killed mid-recording) is not an exception here: every byte that
    was decompressed is delivered, then EOF, and :attr:`truncated` is set so
    the reader can report (or ignore) the truncated tail itself.
    Concatenated gzip members are read one after the other, and zero padding
    after a member is skipped, as :mod:`gzip` does.
    """

    _CHUNK = 64 * 1024

    def __init__(self, fileobj: BinaryIO, max_bytes: int):
        self._file = fileobj
        self._max = max_bytes
        self._total = 0
        self._dec = zlib.decompressobj(wbits=31)
        self._pending = b""  # compressed input not fed to the decompressor yet
        self._in_member = False  # some input of the current member was consumed
        self._eof = False
        self.truncated = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        while not self._eof:
            if self._dec.eof:
                # A member ended: another one may follow (after zero padding).
                rest = (self._dec.unused_data + self._pending).lstrip(b"\x00")
                while not rest:
                    more = self._file.read(self._CHUNK)
                    if not more:
                        self._eof = True
                        return 0
                    rest = more.lstrip(b"\x00")
                self._dec = zlib.decompressobj(wbits=31)
                self._pending = rest
                self._in_member = False
            if not self._pending:
                self._pending = self._file.read(self._CHUNK)
                if not self._pending:
                    # The input ends inside a member: the writer was cut off.
                    self.truncated = self._in_member
                    self._eof = True
                    return 0
            self._in_member = True
            try:
                out = self._dec.decompress(self._pending, len(view))
            except zlib.error as exc:
                raise _SourceError(f"corrupt gzip data ({exc})") from None
            self._pending = self._dec.unconsumed_tail
            if out:
                self._total += len(out)
                if self._total > self._max:
                    raise _SourceError(
                        f"decompressed size exceeds the limit of {self._max} bytes "
                        "(max_decompressed_bytes)"
                    )
                view[: len(out)] = out
                return len(out)
        return 0

    def tell_compressed(self) -> int:
        return self._file.tell()


def _is_gzip_path(path: str) -> bool:
    return path.endswith(".gz")


# --------------------------------------------------------------------------
# JSON parsing
# --------------------------------------------------------------------------


class _JsonProblem(ValueError):
    """A JSON-level problem with its own message (NaN token, duplicate key)."""


def _reject_constant(token: str) -> Any:
    raise _JsonProblem(f"{token} is not allowed (numbers must be finite JSON numbers)")


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _JsonProblem(f"duplicate key {key!r} in an object")
            seen.add(key)
    return obj


_decoder = json.JSONDecoder(
    parse_constant=_reject_constant,
    object_pairs_hook=_pairs_hook,
)


def _loads(text: str) -> Any:
    return _decoder.decode(text)


_JSON_SPACE = " \t\n\r"
#: A JSON number, ASCII digits only.
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_NUMBER_CHARS = frozenset("0123456789+-.eE")
#: What is left of a ``\\uXXXX`` escape (or surrogate pair) cut short, from its ``u``.
_CUT_ESCAPE = re.compile(r"u(?:[0-9a-fA-F]{0,3}|[0-9a-fA-F]{4}(?:\\(?:u[0-9a-fA-F]{0,4})?)?)")


def _ends_prematurely(text: str, exc: BaseException) -> bool:
    """Whether ``text``, which did not parse (``exc``), is a proper prefix of a
    JSON object: what a writer cut off mid-line leaves.

    The decoder has checked everything before its error position; the text
    is a prefix if the input simply ran out there, or if what follows is the
    unfinished start of a token (a string, a ``\\u`` escape, a number's
    fraction or exponent, ``true``/``false``/``null``). Anything else
    (complete JSON followed by more text, a wrong character) is invalid.
    """
    if not isinstance(exc, json.JSONDecodeError) or not text.lstrip(_JSON_SPACE).startswith("{"):
        return False  # a too-deep nesting, or not an object: never a line's prefix
    if exc.msg.startswith("Extra data"):
        return False
    tail = text[exc.pos:]
    if not tail:
        return True  # the input ran out where the decoder wanted more
    if exc.msg.startswith("Unterminated string"):
        return True  # the string, valid so far, runs to the end of the text
    if exc.msg.startswith("Invalid \\uXXXX escape"):
        return _CUT_ESCAPE.fullmatch(tail) is not None
    if exc.msg.startswith("Expecting value"):
        return tail == "-" or any(word.startswith(tail) for word in ("true", "false", "null"))
    # A number cut in its fraction or exponent: the decoder took its digits
    # as the whole number and stopped at the "." or "e" after them.
    start = exc.pos
    while start > 0 and text[start - 1] in _NUMBER_CHARS:
        start -= 1
    head = text[start:exc.pos]
    return head != "" and head[0] in "-0123456789" and _NUMBER.fullmatch(head + tail + "0") is not None


# --------------------------------------------------------------------------
# value checks (raise _Invalid with a reason; the reader adds file:line)
# --------------------------------------------------------------------------


class _Invalid(Exception):
    pass


#: An error-message subject, or a function that builds it (only called on error).
_What = str | Callable[[], str]


def _w(what: _What) -> str:
    """Error-message subjects may be passed as a lambda, built only on error."""
    return what() if callable(what) else what


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(value: Any, what: _What) -> float:
    # NaN and Infinity tokens never get here (the decoder rejects them); a
    # non-finite value is a number literal too large for a double.
    if not _is_number(value):
        raise _Invalid(f"{_w(what)} must be a number, got {_show(value)}")
    try:
        f = float(value)
    except OverflowError:
        f = math.inf
    if not math.isfinite(f):
        raise _Invalid(f"{_w(what)} is out of range (numbers must be finite doubles)")
    return f


def _vector(value: Any, n: int, what: _What) -> tuple[float, ...]:
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
        raise _Invalid(f"{_w(what)} must be a list of {n} numbers, got {_show(value)}")
    if len(value) != n:
        raise _Invalid(f"{_w(what)} must have {n} numbers, got {len(value)}: {_show(value)}")
    return tuple(_number(v, f"{_w(what)}[{i}]") for i, v in enumerate(value))


def _quaternion(value: Any, what: _What) -> tuple[float, float, float, float]:
    q = _vector(value, 4, what)
    norm = math.sqrt(sum(c * c for c in q))
    if abs(norm - 1.0) > QUATERNION_NORM_TOLERANCE:
        raise _Invalid(f"{_w(what)} must be a unit quaternion (norm within 1e-6 of 1), got norm {norm!r}")
    w, x, y, z = q
    return w, x, y, z


def _uint32(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _Invalid(f"{what} must be an unsigned 32-bit integer, got {_show(value)}")
    if not 0 <= value <= UINT32_MAX:
        raise _Invalid(f"{what} must be in 0..4294967295, got {value}")
    return value


def _body_id(value: Any, what: str) -> BodyId:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise _Invalid(f"{what} must be a string or an integer, got {_show(value)}")


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise _Invalid(f"{what} must be a list, got {_show(value)}")
    return value


def _object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Invalid(f"{what} must be an object, got {_show(value)}")
    return value


def _check_keys(obj: dict[str, Any], allowed: frozenset[str], what: str) -> None:
    for key in obj:
        if key not in allowed and not key.startswith("_"):
            raise _Invalid(
                f"{what}: unknown key {key!r} (expected one of {', '.join(sorted(allowed))};"
                " keys starting with '_' are comments)"
            )


def _show(value: Any, limit: int = 80) -> str:
    """A short, JSON-like rendering of a value for error messages."""
    try:
        text = json.dumps(value, allow_nan=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------
# the reader
# --------------------------------------------------------------------------


def _parse_header(obj: Any) -> Header:
    if not isinstance(obj, dict):
        raise _Invalid(f"header: line 1 must be a JSON object, got {_show(obj)}")
    _check_keys(obj, _HEADER_KEYS, "header")
    if "collideworld_scenario" not in obj:
        raise _Invalid("header: missing key 'collideworld_scenario' (line 1 must be the header)")
    version = obj["collideworld_scenario"]
    if not isinstance(version, int) or isinstance(version, bool):
        raise _Invalid(f"header: collideworld_scenario must be the integer 1, got {_show(version)}")
    if version != FORMAT_VERSION:
        raise _Invalid(
            f"header: unsupported format version {version} (this reader reads version {FORMAT_VERSION})"
        )
    if "dim" not in obj:
        raise _Invalid("header: missing key 'dim'")
    dim = obj["dim"]
    if isinstance(dim, bool) or not isinstance(dim, int) or dim not in (2, 3):
        raise _Invalid(f"header: dim must be 2 or 3, got {_show(dim)}")
    for key in ("name", "description"):
        if key in obj and not isinstance(obj[key], str):
            raise _Invalid(f"header: {key} must be a string, got {_show(obj[key])}")
    tolerance = DEFAULT_TOLERANCE
    if "tolerance" in obj:
        tolerance = _number(obj["tolerance"], "header: tolerance")
        if tolerance <= 0:
            raise _Invalid(f"header: tolerance must be > 0, got {_show(obj['tolerance'])}")
    return Header(
        version=version,
        dim=dim,
        name=obj.get("name"),
        description=obj.get("description"),
        tolerance=tolerance,
        tolerance_given="tolerance" in obj,
    )


#: What _FrameReader._parse_line returns for a truncated last line that is ignored.
_IGNORED_TAIL = object()


class _FrameReader:
    """Iterator of frames over one open file; owns the alive-id set."""

    def __init__(self, path: str, limits: ReaderLimits, ignore_truncated_tail: bool):
        self.path = path
        self.limits = limits
        self.ignore_truncated_tail = ignore_truncated_tail
        self.line_no = 0
        self.alive: dict[BodyId, int] = {}
        self._raw: _GzipRaw | None = None
        self._file: BinaryIO | None = None
        self._stream: BinaryIO | None = None
        self._done = False
        self._open()
        try:
            self.header = self._read_header()
        except BaseException:
            self.close()
            raise

    # -- file handling ---------------------------------------------------

    def _open(self) -> None:
        try:
            f = open(self.path, "rb")  # noqa: SIM115 - closed in close()
        except FileNotFoundError:
            raise ScenarioError("no such file", self.path) from None
        except IsADirectoryError:
            raise ScenarioError("is a directory, not a scenario file", self.path) from None
        except OSError as exc:
            raise ScenarioError(f"cannot open: {exc.strerror or exc}", self.path) from None
        self._file = f
        if _is_gzip_path(self.path):
            self._raw = _GzipRaw(f, self.limits.max_decompressed_bytes)
            self._stream = io.BufferedReader(self._raw, buffer_size=256 * 1024)
        else:
            self._stream = f

    def close(self) -> None:
        self._done = True
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.close()
        if self._file is not None:
            self._file.close()

    @property
    def bytes_read(self) -> int:
        """Bytes of the file on disk consumed so far (compressed bytes for .gz)."""
        try:
            if self._raw is not None:
                return self._raw.tell_compressed()
            return self._stream.tell() if self._stream is not None else 0
        except (OSError, ValueError, AttributeError):
            return 0

    def _error(self, reason: str, line: int | None = None) -> ScenarioError:
        return ScenarioError(reason, self.path, self.line_no if line is None else line)

    def _next_line(self) -> Any:
        """The next line as text and whether it ended with a newline; None at EOF;
        ``_IGNORED_TAIL`` for a last line cut inside a character that is ignored."""
        limit = self.limits.max_line_bytes
        assert self._stream is not None
        try:
            data = self._stream.readline(limit + 1)
        except _SourceError as exc:
            raise self._error(str(exc), self.line_no + 1) from None
        except OSError as exc:
            raise self._error(f"read error: {exc}", self.line_no + 1) from None
        if not data:
            return None
        self.line_no += 1
        has_newline = data.endswith(b"\n")
        body = data[:-1] if has_newline else data
        if len(body) > limit:
            raise self._error(f"line is longer than the limit of {limit} bytes (max_line_bytes)")
        # Without a newline, a line no longer than the limit is the last one.
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            # Only an incomplete character at the very end of a last line is
            # a cut; an invalid byte anywhere else is invalid UTF-8.
            if (not has_newline and exc.end == len(body) and exc.reason == "unexpected end of data"
                    and self._cut_in_string(body[:exc.start].decode("utf-8"))):
                if self.ignore_truncated_tail:
                    return _IGNORED_TAIL
                raise self._truncated("it ends inside a UTF-8 character") from None
            raise self._error(f"line is not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
        return text, has_newline

    @staticmethod
    def _cut_in_string(text: str) -> bool:
        """Whether a multi-byte character may follow ``text`` in a line cut
        inside that character: only where any non-ASCII character may (inside
        a string of a JSON object's prefix)."""
        text += "\u00e9"
        try:
            _loads(text)
        except (ValueError, RecursionError) as exc:
            return not isinstance(exc, _JsonProblem) and _ends_prematurely(text, exc)
        return False

    def _truncated(self, detail: str) -> ScenarioError:
        return self._error(
            f"the last line is truncated (incomplete at end of file, no trailing newline: "
            f"{detail}); pass ignore_truncated_tail=True to stop before it"
        )

    def _parse_line(self, text: str, has_newline: bool) -> Any:
        """JSON of a line; ``_IGNORED_TAIL`` when it is a truncated last line being ignored.

        Not None: ``null`` is valid JSON, and a ``null`` line must be reported
        as a line that is not an object, not taken for the end of the file.
        """
        if not text.strip():
            raise self._error("blank line (blank lines are not allowed)")
        try:
            return _loads(text)
        except (ValueError, RecursionError) as exc:
            if isinstance(exc, _JsonProblem):
                raise self._error(str(exc)) from None
            if not has_newline and _ends_prematurely(text, exc):
                # The JSON of a last line without the newline every writer puts
                # after a complete line stops early: the writer was cut off.
                # (Anything else wrong with it is an invalid line, below.)
                if self.ignore_truncated_tail:
                    return _IGNORED_TAIL
                detail = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
                raise self._truncated(f"incomplete JSON, {detail}") from None
            if isinstance(exc, json.JSONDecodeError):
                raise self._error(f"invalid JSON: {exc.msg} (column {exc.colno})") from None
            if isinstance(exc, RecursionError):
                raise self._error("invalid JSON: nested too deeply") from None
            raise self._error(f"invalid JSON: {exc}") from None

    def _check_gzip_end(self) -> None:
        if self._raw is not None and self._raw.truncated and not self.ignore_truncated_tail:
            raise self._error(
                "the gzip stream is truncated (the file ends before the gzip end marker: the "
                "writer did not finish); pass ignore_truncated_tail=True to read the complete "
                "lines before the cut",
                max(self.line_no, 1),
            )

    # -- header and frames -----------------------------------------------

    def _read_header(self) -> Header:
        got = self._next_line()
        if got is None:
            self._check_gzip_end()
            raise self._error("file is empty (line 1 must be the header)", 1)
        if got is _IGNORED_TAIL:
            raise self._error("the last line is truncated (the header is incomplete)", 1)
        obj = self._parse_line(*got)
        if obj is _IGNORED_TAIL:
            raise self._error("the last line is truncated (the header is incomplete)", 1)
        try:
            header = _parse_header(obj)
        except _Invalid as exc:
            raise self._error(str(exc)) from None
        if not got[1]:
            self._check_gzip_end()
        self.dim = header.dim
        return header

    def __iter__(self) -> Iterator[Frame]:
        return self

    def __next__(self) -> Frame:
        if self._done:
            raise StopIteration
        got = self._next_line()
        if got is None:
            self._check_gzip_end()
            self.close()
            raise StopIteration
        if got is _IGNORED_TAIL:
            self.close()
            raise StopIteration
        obj = self._parse_line(*got)
        if obj is _IGNORED_TAIL:
            self.close()
            raise StopIteration
        try:
            frame = self._parse_frame(obj)
        except _Invalid as exc:
            raise self._error(str(exc)) from None
        if not got[1]:
            self._check_gzip_end()
        return frame

    def _parse_frame(self, obj: Any) -> Frame:
        if not isinstance(obj, dict):
            raise _Invalid(f"a frame must be a JSON object, got {_show(obj)}")
        _check_keys(obj, _FRAME_KEYS, "frame")
        alive = self.alive
        dim = self.dim

        # remove
        removes: list[BodyId] = []
        for i, raw in enumerate(_list(obj.get("remove", []), "remove")):
            bid = _body_id(raw, f"remove[{i}]")
            if bid not in alive:
                raise _Invalid(f"remove: unknown id {bid!r}")
            del alive[bid]
            removes.append(bid)

        # add (limits first, then validation of each body)
        add_list = _list(obj.get("add", []), "add")
        if len(alive) + len(add_list) > self.limits.max_bodies:
            raise _Invalid(
                f"add: {len(alive) + len(add_list)} bodies would be alive, more than the limit "
                f"of {self.limits.max_bodies} (max_bodies)"
            )
        adds: list[BodySpec] = []
        for i, raw in enumerate(add_list):
            spec, tag = self._parse_body(raw, i, dim)
            if spec.id in alive:
                raise _Invalid(f"add: duplicate id {spec.id!r} (a body with this id is alive)")
            alive[spec.id] = tag
            adds.append(spec)

        # move
        moves: list[MoveSpec] = []
        for i, raw in enumerate(_list(obj.get("move", []), "move")):
            moves.append(self._parse_move(raw, i, dim))

        # expectations
        expect = None
        if "expect" in obj:
            expect = self._parse_expect(obj["expect"])
        contacts = None
        if "expect_contacts" in obj:
            contacts = self._parse_expect_contacts(obj["expect_contacts"], expect, dim)

        return Frame(
            number=self.line_no - 1,
            line=self.line_no,
            remove=tuple(removes),
            add=tuple(adds),
            move=tuple(moves),
            expect=expect,
            expect_contacts=contacts,
        )

    def _parse_body(self, raw: Any, i: int, dim: int) -> tuple[BodySpec, int]:
        body = _object(raw, f"add[{i}]")
        if "id" not in body:
            raise _Invalid(f"add[{i}]: missing key 'id'")
        bid = _body_id(body["id"], f"add[{i}]: id")
        where = f"add: body {bid!r}"
        _check_keys(body, _BODY_KEYS, where)
        if "shape" not in body:
            raise _Invalid(f"{where}: missing key 'shape'")
        raw_shape = body["shape"]
        if not isinstance(raw_shape, dict):
            raise _Invalid(f"{where}: shape must be an object, got {_show(raw_shape)}")
        kind = raw_shape.get("type")
        if not isinstance(kind, str):
            raise _Invalid(f"{where}: shape type must be a string, got {_show(kind)}")
        if kind == "polygon":
            verts = raw_shape.get("vertices")
            if isinstance(verts, list) and len(verts) > self.limits.max_polygon_vertices:
                raise _Invalid(
                    f"{where}: polygon has {len(verts)} vertices, more than the limit of "
                    f"{self.limits.max_polygon_vertices} (max_polygon_vertices)"
                )
        try:
            shape = shape_from_dict(raw_shape, dim)
        except (InvalidShapeError, TypeError, ValueError) as exc:
            text = str(exc)  # a polygon's message lists its vertices: keep it short
            if len(text) > 300:
                text = text[:297] + "..."
            raise _Invalid(f"{where}: invalid shape: {text}") from None

        unbounded = kind in _UNBOUNDED_KINDS
        position = angle = quaternion = None
        if unbounded:
            for key in ("position", "angle", "quaternion"):
                if key in body:
                    raise _Invalid(f"{where}: a {kind} takes no pose, but {key!r} is given")
        else:
            if "position" not in body:
                raise _Invalid(f"{where}: missing key 'position'")
            position = _vector(body["position"], dim, f"{where}: position")
            if "angle" in body:
                if dim != 2:
                    raise _Invalid(f"{where}: 'angle' is only allowed in 2D (use 'quaternion' in 3D)")
                angle = _number(body["angle"], f"{where}: angle")
            if "quaternion" in body:
                if dim != 3:
                    raise _Invalid(f"{where}: 'quaternion' is only allowed in 3D (use 'angle' in 2D)")
                quaternion = _quaternion(body["quaternion"], f"{where}: quaternion")
        static = body.get("static", False)
        if not isinstance(static, bool):
            raise _Invalid(f"{where}: static must be true or false, got {_show(static)}")
        category = _uint32(body.get("category", 1), f"{where}: category")
        mask = _uint32(body.get("mask", UINT32_MAX), f"{where}: mask")
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
        if unbounded:
            tag = _UNBOUNDED
        elif kind == "polygon" and not getattr(shape, "is_convex", True):
            tag = _CONCAVE
        else:
            tag = _PLAIN
        return spec, tag

    def _parse_move(self, raw: Any, i: int, dim: int) -> MoveSpec:
        # The hot path of long recordings: error texts are built only on error.
        if type(raw) is not dict:
            raise _Invalid(f"move[{i}] must be an object, got {_show(raw)}")
        if "id" not in raw:
            raise _Invalid(f"move[{i}]: missing key 'id'")
        bid = raw["id"]
        if type(bid) is not str and type(bid) is not int:
            bid = _body_id(bid, f"move[{i}]: id")
        for key in raw:
            if key not in _MOVE_KEYS and not key.startswith("_"):
                _check_keys(raw, _MOVE_KEYS, f"move: body {bid!r}")
        tag = self.alive.get(bid)
        if tag is None:
            raise _Invalid(f"move: unknown id {bid!r}")
        if tag == _UNBOUNDED:
            raise _Invalid(f"move: body {bid!r}: a halfplane or plane cannot move")
        position = angle = quaternion = None
        if "position" in raw:
            position = _vector(raw["position"], dim, lambda: f"move: body {bid!r}: position")
        if "angle" in raw:
            if dim != 2:
                raise _Invalid(f"move: body {bid!r}: 'angle' is only allowed in 2D (use 'quaternion' in 3D)")
            angle = _number(raw["angle"], lambda: f"move: body {bid!r}: angle")
        if "quaternion" in raw:
            if dim != 3:
                raise _Invalid(f"move: body {bid!r}: 'quaternion' is only allowed in 3D (use 'angle' in 2D)")
            quaternion = _quaternion(raw["quaternion"], lambda: f"move: body {bid!r}: quaternion")
        return MoveSpec(id=bid, position=position, angle=angle, quaternion=quaternion)

    def _parse_pair(self, raw: Any, what: str) -> tuple[BodyId, BodyId]:
        if not isinstance(raw, list) or len(raw) != 2:
            raise _Invalid(f"{what} must be a list of two ids, got {_show(raw)}")
        a = _body_id(raw[0], f"{what}[0]")
        b = _body_id(raw[1], f"{what}[1]")
        if a == b:
            raise _Invalid(f"{what} pairs body {a!r} with itself (a body never contacts itself)")
        for bid in (a, b):
            if bid not in self.alive:
                raise _Invalid(f"{what}: unknown id {bid!r} (no alive body has it)")
        return a, b

    def _parse_expect(self, raw: Any) -> frozenset[frozenset[BodyId]]:
        pairs = _list(raw, "expect")
        return frozenset(
            frozenset(self._parse_pair(p, f"expect[{i}]")) for i, p in enumerate(pairs)
        )

    def _parse_expect_contacts(
        self, raw: Any, expect: frozenset[frozenset[BodyId]] | None, dim: int
    ) -> tuple[ExpectedContact, ...]:
        out: list[ExpectedContact] = []
        seen: set[frozenset[BodyId]] = set()
        for i, item in enumerate(_list(raw, "expect_contacts")):
            what = f"expect_contacts[{i}]"
            obj = _object(item, what)
            _check_keys(obj, _CONTACT_KEYS, what)
            for key in ("pair", "normal", "depth"):
                if key not in obj:
                    raise _Invalid(f"{what}: missing key {key!r}")
            a, b = self._parse_pair(obj["pair"], f"{what}: pair")
            pair = frozenset((a, b))
            if pair in seen:
                raise _Invalid(f"{what}: pair [{a!r}, {b!r}] is listed twice")
            seen.add(pair)
            if expect is not None and pair not in expect:
                raise _Invalid(f"{what}: pair [{a!r}, {b!r}] is not in this frame's expect list")
            for bid in (a, b):
                if self.alive[bid] == _CONCAVE:
                    raise _Invalid(
                        f"{what}: body {bid!r} is a concave polygon (expect_contacts is only "
                        "for pairs of convex shapes)"
                    )
            normal = _vector(obj["normal"], dim, f"{what}: normal")
            norm = math.sqrt(sum(c * c for c in normal))
            if abs(norm - 1.0) > max(1e-6, self.header_tolerance):
                raise _Invalid(f"{what}: normal must be a unit vector, got norm {norm!r}")
            depth = _number(obj["depth"], f"{what}: depth")
            if depth < 0:
                raise _Invalid(f"{what}: depth must be >= 0, got {_show(obj['depth'])}")
            out.append(ExpectedContact(pair=(a, b), normal=normal, depth=depth))
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
    whose :attr:`bytes_read` can drive a progress bar.

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
        self.path = os.fspath(path)
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


def _limits_from(kwargs: dict[str, Any]) -> ReaderLimits:
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
        ``max_decompressed_bytes``; see :class:`ReaderLimits`.

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
    return Scenario(path, ignore_truncated_tail=ignore_truncated_tail, limits=_limits_from(limits))


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
