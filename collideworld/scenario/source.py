r"""Byte source of the scenario reader: file, gzip, line limits, truncation.

This module turns a path into a stream of JSON values, one per line, and
knows nothing of what the values mean. It

* opens the file, decompressing a ``.gz`` path incrementally (concatenated
  members, zero padding, a stream cut before its end marker);
* enforces the byte-level limits of :class:`ReaderLimits`
  (``max_line_bytes``, ``max_decompressed_bytes``, ``max_frames``) before
  the work they bound is done;
* decodes UTF-8 and JSON strictly (no ``NaN``/``Infinity`` tokens, no
  duplicate keys, no blank lines);
* tells a *truncated last line* (a proper prefix of a JSON object with no
  newline, as a writer that was killed leaves) from an invalid one, and
  either reports it or, with ``ignore_truncated_tail``, ends quietly.

Errors are :class:`~collideworld.errors.ScenarioError` naming the file and
line. The shape of each value is checked by :mod:`.schema`; the meaning of a
frame (alive ids, remove/add/move order) by :mod:`.frames`.

Examples
--------
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "two.jsonl")
>>> with open(path, "w") as f:
...     _ = f.write('{"collideworld_scenario": 1, "dim": 2}\n{}\n')
>>> source = LineSource(path, ReaderLimits(), ignore_truncated_tail=False)
>>> source.next_value(), source.line_no
(({'collideworld_scenario': 1, 'dim': 2}, True), 1)
>>> source.next_value(), source.next_value() is END
(({}, True), True)
>>> source.close()
"""

from __future__ import annotations

import io
import json
import os
import re
import zlib
from dataclasses import dataclass
from typing import Any, BinaryIO

from ..errors import InvalidArgumentError, InvalidTypeError, ScenarioError

__all__ = ["ReaderLimits", "LineSource", "END", "TRUNCATED_TAIL", "check_path"]


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
        Most bodies alive at once (default 1 million). Replaying costs about
        1.1 kB of memory per alive body (1.09 GB measured for 1 million
        circles), so the default keeps a replay within what a laptop holds;
        10 million would need about 11 GB.
    max_frames : int
        Most frames in a file (default 10 million). The byte limits bound
        bytes, not work: a 1 MB ``.gz`` can hold hundreds of millions of
        empty frames ``{}``, and every one is a step. Replaying runs about
        23,000 empty frames per second and reading alone (``info``)
        140,000 to 250,000 on the test machine, so the default bounds a
        replay of such a file at about 7 minutes and ``info`` at 40 to 70 s.
    max_decompressed_bytes : int
        Most bytes a ``.gz`` file may decompress to (default 64 GiB): a guard
        against decompression bombs, not a memory limit (reading streams).
    max_part_pairs : int
        Most pairs of compound parts that the bodies alive at once could
        make beyond one per pair of bodies (default 10 million): the sum,
        over pairs of alive bodies, of ``parts_a * parts_b - 1``, a simple
        body counting as one part. A world tests every part of a compound
        against every part of a body whose box meets the compound's, so
        two compounds of 4,096 parts make 16.8 million rows in one step:
        1.7 to 2.8 GB of replay (2.8 GB measured with the numpy backend),
        100 to 170 bytes a row, so the default bounds a replay near 1 to
        1.7 GB, as ``max_bodies`` does. Each part also counts as a body
        against ``max_bodies`` (it takes a slot of the world).

    Examples
    --------
    Each limit is a keyword of :func:`read_scenario`; here the header line
    alone (38 bytes) is over a limit of 16:

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "scene.jsonl")
    >>> with open(path, "w") as f:
    ...     _ = f.write('{"collideworld_scenario": 1, "dim": 2}\n')
    >>> from collideworld.scenario import read_scenario
    >>> read_scenario(path, max_line_bytes=16)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    collideworld.errors.ScenarioError: ...scene.jsonl:1: line is longer than the limit of 16 bytes (max_line_bytes)
    """

    max_line_bytes: int = 16 * 1024 * 1024
    max_polygon_vertices: int = 5_000
    max_bodies: int = 1_000_000
    max_frames: int = 10_000_000
    max_decompressed_bytes: int = 64 * 1024**3
    max_part_pairs: int = 10_000_000

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


def loads_line(text: str) -> Any:
    return _decoder.decode(text)


def dump_line(obj: Any) -> str:
    """Compact JSON text of ``obj``; NaN or an infinity is an :class:`InvalidArgumentError`."""
    try:
        return json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except ValueError as exc:  # NaN or infinity somewhere
        raise InvalidArgumentError(f"cannot write {obj!r}: {exc}") from None


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


#: A ``\\u`` escape of a UTF-16 surrogate (U+D800 to U+DFFF) in a line's text: the only way
#: one can get into a decoded string (strict UTF-8 decoding refuses encoded surrogates).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogate(value: Any, path: str = "") -> str | None:
    """Where in a decoded JSON value a string (or a key) holds a lone surrogate, or None.

    A surrogate pair escape (``"\\ud83d\\ude00"``) decodes to one character
    outside the Basic Multilingual Plane; a lone one decodes to a code point
    that is not a Unicode character and cannot be encoded, printed or written
    back as UTF-8, and other JSON readers reject it (RFC 8259, section 8.2).
    """
    if isinstance(value, str):
        found = _SURROGATE.search(value)
        if found is None:
            return None
        return f"{path or 'the line'} holds a lone surrogate escape \\u{ord(found.group()):04x}"
    if isinstance(value, dict):
        for key, item in value.items():
            found = _SURROGATE.search(key)
            if found is not None:
                return (f"a key{' of ' + path if path else ''} holds a lone surrogate escape "
                        f"\\u{ord(found.group()):04x}")
            where = _lone_surrogate(item, f"{path}.{key}" if path else key)
            if where is not None:
                return where
    elif isinstance(value, list):
        for i, item in enumerate(value):
            where = _lone_surrogate(item, f"{path}[{i}]")
            if where is not None:
                return where
    return None


def check_path(path: Any) -> str:
    """``path`` as a str; anything but a str or a str path-like is an :class:`InvalidTypeError`.

    Examples
    --------
    >>> import pathlib
    >>> check_path(pathlib.PurePosixPath("scenarios") / "driving.jsonl")
    'scenarios/driving.jsonl'
    >>> check_path(None)
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidTypeError: path must be a str or os.PathLike naming a scenario file, got None
    """
    if isinstance(path, (str, os.PathLike)):
        text = os.fspath(path)
        if isinstance(text, str):
            return text
    raise InvalidTypeError(f"path must be a str or os.PathLike naming a scenario file, got {path!r}")


#: What :meth:`LineSource.next_value` returns at the end of the file.
END: Any = object()
#: What :meth:`LineSource.next_value` returns for a truncated last line that is ignored.
TRUNCATED_TAIL: Any = object()


class LineSource:
    r"""One open scenario file read line by line, each line a JSON value.

    Parameters
    ----------
    path : str
    limits : ReaderLimits
    ignore_truncated_tail : bool
        Return :data:`TRUNCATED_TAIL` for a truncated last line (and a gzip
        stream cut before its end marker) instead of raising.

    Attributes
    ----------
    line_no : int
        1-based number of the last line returned (0 before the first).

    Examples
    --------
    A last line cut mid-string, read with and without ``ignore_truncated_tail``:

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "cut.jsonl")
    >>> with open(path, "w") as f:
    ...     _ = f.write('{"collideworld_scenario": 1, "dim": 2}\n{"_c": "unfini')
    >>> source = LineSource(path, ReaderLimits(), ignore_truncated_tail=True)
    >>> _ = source.next_value()
    >>> source.next_value() is TRUNCATED_TAIL
    True
    >>> source.close()
    >>> source = LineSource(path, ReaderLimits(), ignore_truncated_tail=False)
    >>> _ = source.next_value()
    >>> source.next_value()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    collideworld.errors.ScenarioError: ...cut.jsonl:2: the last line is truncated ...
    >>> source.close()
    """

    def __init__(self, path: str, limits: ReaderLimits, ignore_truncated_tail: bool):
        self.path = path
        self.limits = limits
        self.ignore_truncated_tail = ignore_truncated_tail
        self.line_no = 0
        self._raw: _GzipRaw | None = None
        self._file: BinaryIO | None = None
        self._stream: BinaryIO | None = None
        self._open()

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
        """Close the file (idempotent)."""
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

    def error(self, reason: str, line: int | None = None) -> ScenarioError:
        """A :class:`ScenarioError` at ``line`` (default: the last line read)."""
        return ScenarioError(reason, self.path, self.line_no if line is None else line)

    def next_value(self) -> Any:
        """The next line's JSON value and whether the line ended with a newline.

        Returns
        -------
        tuple (value, bool), or END, or TRUNCATED_TAIL
            :data:`END` at the end of the file (after checking that a gzip
            stream was complete); :data:`TRUNCATED_TAIL` for a truncated last
            line when those are ignored.
        """
        got = self._next_line()
        if got is None:
            self.check_gzip_end()
            return END
        if got is TRUNCATED_TAIL:
            return TRUNCATED_TAIL
        if self.line_no - 1 > self.limits.max_frames:  # line 1 is the header
            raise self.error(f"more than the limit of {self.limits.max_frames} frames (max_frames)")
        value = self._parse_line(*got)
        if value is TRUNCATED_TAIL:
            return TRUNCATED_TAIL
        return value, got[1]

    def _next_line(self) -> Any:
        """The next line as text and whether it ended with a newline; None at EOF;
        ``TRUNCATED_TAIL`` for a last line cut inside a character that is ignored."""
        limit = self.limits.max_line_bytes
        assert self._stream is not None
        try:
            data = self._stream.readline(limit + 1)
        except _SourceError as exc:
            raise self.error(str(exc), self.line_no + 1) from None
        except OSError as exc:
            raise self.error(f"read error: {exc}", self.line_no + 1) from None
        if not data:
            return None
        self.line_no += 1
        has_newline = data.endswith(b"\n")
        body = data[:-1] if has_newline else data
        if len(body) > limit:
            raise self.error(f"line is longer than the limit of {limit} bytes (max_line_bytes)")
        # Without a newline, a line no longer than the limit is the last one.
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            # Only an incomplete character at the very end of a last line is
            # a cut; an invalid byte anywhere else is invalid UTF-8.
            if (not has_newline and exc.end == len(body) and exc.reason == "unexpected end of data"
                    and self._cut_in_string(body[:exc.start].decode("utf-8"))):
                if self.ignore_truncated_tail:
                    return TRUNCATED_TAIL
                raise self._truncated("it ends inside a UTF-8 character") from None
            raise self.error(f"line is not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
        return text, has_newline

    @staticmethod
    def _cut_in_string(text: str) -> bool:
        """Whether a multi-byte character may follow ``text`` in a line cut
        inside that character: only where any non-ASCII character may (inside
        a string of a JSON object's prefix)."""
        text += "\u00e9"
        try:
            loads_line(text)
        except (ValueError, RecursionError) as exc:
            return not isinstance(exc, _JsonProblem) and _ends_prematurely(text, exc)
        return False

    def _truncated(self, detail: str) -> ScenarioError:
        return self.error(
            f"the last line is truncated (incomplete at end of file, no trailing newline: "
            f"{detail}); pass ignore_truncated_tail=True to stop before it"
        )

    def _parse_line(self, text: str, has_newline: bool) -> Any:
        """JSON of a line; ``TRUNCATED_TAIL`` when it is a truncated last line being ignored.

        Not None: ``null`` is valid JSON, and a ``null`` line must be reported
        as a line that is not an object, not taken for the end of the file.
        """
        if not text.strip():
            raise self.error("blank line (blank lines are not allowed)")
        try:
            value = loads_line(text)
            if _SURROGATE_ESCAPE.search(text) is not None:
                self._check_surrogates(value)
            return value
        except (ValueError, RecursionError) as exc:
            if isinstance(exc, _JsonProblem):
                raise self.error(str(exc)) from None
            if not has_newline and _ends_prematurely(text, exc):
                # The JSON of a last line without the newline every writer puts
                # after a complete line stops early: the writer was cut off.
                # (Anything else wrong with it is an invalid line, below.)
                if self.ignore_truncated_tail:
                    return TRUNCATED_TAIL
                detail = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
                raise self._truncated(f"incomplete JSON, {detail}") from None
            if isinstance(exc, json.JSONDecodeError):
                raise self.error(f"invalid JSON: {exc.msg} (column {exc.colno})") from None
            if isinstance(exc, RecursionError):
                raise self.error("invalid JSON: nested too deeply") from None
            raise self.error(f"invalid JSON: {exc}") from None

    def scan_for(self, needle: bytes) -> bool:
        """Whether a line from here on holds ``needle`` (raw bytes, nothing decoded); False at
        the end of the file or at the first line over a limit (``max_line_bytes``,
        ``max_frames``, ``max_decompressed_bytes``) or unreadable, where the reader
        stops too. A line holding a newline cannot hold ``needle`` across lines.
        """
        assert self._stream is not None
        limit = self.limits.max_line_bytes
        most_lines = self.limits.max_frames + 1  # and the header
        while True:
            try:
                data = self._stream.readline(limit + 1)
            except (_SourceError, OSError):
                return False
            if not data:
                return False
            self.line_no += 1
            if self.line_no > most_lines or len(data) - data.endswith(b"\n") > limit:
                return False
            if needle in data:
                return True

    def _check_surrogates(self, value: Any) -> None:
        where = _lone_surrogate(value)
        if where is not None:
            prefix = "header: " if self.line_no == 1 else ""
            raise self.error(f"{prefix}{where}: a string must be Unicode text (write a character "
                             "outside the Basic Multilingual Plane as a surrogate pair)")

    def check_gzip_end(self) -> None:
        """Raise if a gzip stream ended before its end marker (unless ignored)."""
        if self._raw is not None and self._raw.truncated and not self.ignore_truncated_tail:
            raise self.error(
                "the gzip stream is truncated (the file ends before the gzip end marker: the "
                "writer did not finish); pass ignore_truncated_tail=True to read the complete "
                "lines before the cut",
                max(self.line_no, 1),
            )

    # -- header and frames -----------------------------------------------
