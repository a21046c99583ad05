"""Fuzzing the scenario reader: every input replays or fails at a line.

The property, for any bytes at all: :func:`collideworld.scenario.replay`
either returns a :class:`ReplayReport`, or raises a
:class:`~collideworld.errors.ScenarioError` whose message starts with
``path:N: `` (the file as given and a 1-based line number). Never another
exception type, and never a hang (each input runs under an alarm).

Inputs come from seven generators (``FUZZ_CASES``), each run for a bounded
number of examples here:

* random bytes (plain and ``.gz``);
* random JSON values, one per line, with the format's keys as likely keys;
* prefixes of the real ``scenarios/*.jsonl`` files, and small generated valid
  files, with one field mutated (type swapped, number made huge, negative,
  ``1e308``, ``-0.0``, ``"NaN"`` as a string, ``NaN`` as a token, key dropped
  or duplicated, list element dropped or duplicated) and then, sometimes, the
  bytes damaged (cut at a random offset, UTF-8 broken, CRLF, blank line,
  gzip truncated or corrupted);
* the generated files unmutated, which must replay without error;
* the generated files with extreme but finite coordinates and sizes (1e308,
  5e-324, -0.0, ...), which reach the world and its kernels;
* the generated files in the Arrow form (``.arrows``, ``.parquet``), whole
  (they must replay, every frame) or cut or with bytes overwritten; there an
  error names the schema or the batch (``path: batch N, frame F: ...``).

For plain files that replay, the report must also count one frame per frame
line: nothing is skipped silently.

The second half checks the reader's limits on hostile input (a huge line, a
polygon with too many vertices, too many bodies alive, a gzip bomb): each is
rejected with a ``ScenarioError`` *before* the work it bounds is done.

A longer run of the same generators: ``python tools/fuzz_reader.py --seconds 600``.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import math
import re
import signal
import threading
import time
import tracemalloc
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from collideworld.errors import ScenarioError
from collideworld.scenario import ReplayReport, read_scenario, replay
from collideworld.scenario import frames as frames_module
from collideworld.scenario import schema as schema_module
from collideworld.scenario import source as source_module

# Extreme inputs overflow on purpose; the property is about what is raised.
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning",
                                        "ignore:invalid value encountered:RuntimeWarning")

ROOT = Path(__file__).resolve().parent.parent
SCENARIO_FILES = sorted((ROOT / "scenarios").glob("*.jsonl"))

#: Wall-clock seconds one input may take before it counts as a hang. Inputs
#: are a few kB, replays of them take milliseconds; this is only a backstop
#: against an infinite loop, generous for two busy shared cores.
HANG_SECONDS = 20.0
#: Hypothesis deadline per example (a slow but finishing input).
DEADLINE_MS = 10_000

FUZZ_SETTINGS = dict(
    deadline=DEADLINE_MS,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.function_scoped_fixture],
)


# --------------------------------------------------------------------------
# the property
# --------------------------------------------------------------------------


class Hang(AssertionError):
    """An input ran longer than HANG_SECONDS."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`Hang` in the main thread after ``seconds`` (no-op elsewhere)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise Hang(f"input still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class FuzzInput:
    """One file to replay: its bytes, its suffix and the replay options."""

    data: bytes
    suffix: str = ".jsonl"
    ignore_truncated_tail: bool = False
    limits: dict[str, int] = field(default_factory=dict)
    must_replay: bool = False  # a valid file: a ScenarioError is a failure too
    note: str = ""
    frames: int | None = None  # the Arrow form: the frames a valid file holds

    def __repr__(self) -> str:  # what hypothesis prints for a falsifying example
        shown = self.data if len(self.data) <= 600 else self.data[:600] + b"..."
        return (f"FuzzInput(suffix={self.suffix!r}, ignore_truncated_tail={self.ignore_truncated_tail}, "
                f"limits={self.limits}, must_replay={self.must_replay}, note={self.note!r}, data={shown!r})")


def check_input(workdir: Path, inp: FuzzInput) -> str:
    """Write ``inp`` to a file and replay it; assert the property. Returns "ok" or "error"."""
    path = str(workdir / f"fuzz{inp.suffix}")
    with open(path, "wb") as f:
        f.write(inp.data)
    with time_limit(HANG_SECONDS):
        try:
            report = replay(path, ignore_truncated_tail=inp.ignore_truncated_tail, **inp.limits)
        except ScenarioError as exc:
            message = str(exc)
            if inp.suffix in ARROW_SUFFIXES:
                # the Arrow form names the schema, or the batch (and the frame) instead of a line
                assert re.match(re.escape(path) + r": (schema|batch \d+(, frame \d+)?): \S", message), message
                assert exc.path == path and not inp.must_replay, message
                return "error"
            match = re.match(re.escape(path) + r":(\d+): \S", message)
            assert match, f"message does not start with '{path}:N: ': {message!r}"
            line = int(match.group(1))
            assert line >= 1 and exc.line == line and exc.path == path, message
            if not inp.suffix.endswith(".gz"):
                assert line <= inp.data.count(b"\n") + 1, f"line {line} is past the end: {message!r}"
            assert not inp.must_replay, f"a valid file was rejected: {message}"
            return "error"
    assert isinstance(report, ReplayReport), report
    assert report.frames >= 0 and report.mismatch_count >= 0
    if inp.suffix in ARROW_SUFFIXES:
        assert inp.frames is None or report.frames == inp.frames or not inp.must_replay
        return "ok"
    if not inp.suffix.endswith(".gz"):
        # Nothing is skipped silently: every line after the header was one frame
        # (a cut last line may be dropped only when asked to).
        lines = inp.data.split(b"\n")
        cut_tail = lines[-1] != b""
        frames = len(lines) - 1 - (0 if cut_tail else 1)
        # (only a last line that stops inside a JSON object, with no newline)
        droppable = cut_tail and inp.ignore_truncated_tail and is_unterminated_line(lines[-1])
        allowed = {frames, frames - 1} if droppable else {frames}
        assert report.frames in allowed, f"{report.frames} frames replayed from {frames} frame lines"
    return "ok"


# --------------------------------------------------------------------------
# what a cut-off writer leaves: a proper prefix of a JSON object
# --------------------------------------------------------------------------


class _Stop(Exception):
    """The text ran out (``prefix``) or went wrong (``invalid``)."""


def json_object_prefix(text: str) -> str:
    """``"complete"``, ``"prefix"`` or ``"invalid"``: is ``text`` one JSON
    object (whitespace around it allowed), a proper prefix of one, or
    neither? A plain character-by-character recogniser of RFC 8259, written
    apart from the reader (which works from the json decoder's errors)."""
    n = len(text)
    pos = 0
    stack: list[str] = []    # "{" or "[" of the open containers
    expect = "top"           # top, key, key_or_close, colon, value, value_or_close, comma_or_close, end

    def char(i: int) -> str:
        if i >= n:
            raise _Stop("prefix")
        return text[i]

    def word(i: int, w: str) -> int:
        for k, c in enumerate(w):
            if char(i + k) != c:
                raise _Stop("invalid")
        return i + len(w)

    def string(i: int) -> int:  # text[i] is the opening quote
        i += 1
        while True:
            c = char(i)
            if c == '"':
                return i + 1
            if ord(c) < 0x20:
                raise _Stop("invalid")
            if c == "\\":
                e = char(i + 1)
                if e == "u":
                    for k in range(2, 6):
                        if char(i + k) not in "0123456789abcdefABCDEF":
                            raise _Stop("invalid")
                    i += 6
                elif e in '"\\/bfnrt':
                    i += 2
                else:
                    raise _Stop("invalid")
            else:
                i += 1

    def digits(i: int) -> int:
        if char(i) not in "0123456789":
            raise _Stop("invalid")
        while i < n and text[i] in "0123456789":
            i += 1
        return i

    def number(i: int) -> int:
        if text[i] == "-":
            i += 1
        i = i + 1 if char(i) == "0" else digits(i)
        if i < n and text[i] == ".":
            i = digits(i + 1)
        if i < n and text[i] in "eE":
            i += 1
            if char(i) in "+-":
                i += 1
            i = digits(i)
        return i

    try:
        while True:
            while pos < n and text[pos] in " \t\n\r":
                pos += 1
            if pos == n:
                return "complete" if expect == "end" else "prefix"
            c = text[pos]
            if expect == "end" or (expect == "top" and c != "{"):
                return "invalid"
            if expect in ("key", "key_or_close"):
                if c == "}" and expect == "key_or_close":
                    stack.pop()
                    pos += 1
                    expect = "comma_or_close" if stack else "end"
                elif c == '"':
                    pos, expect = string(pos), "colon"
                else:
                    return "invalid"
            elif expect == "colon":
                if c != ":":
                    return "invalid"
                pos, expect = pos + 1, "value"
            elif expect == "comma_or_close":
                if c == ",":
                    pos, expect = pos + 1, "key" if stack[-1] == "{" else "value"
                elif c == {"{": "}", "[": "]"}[stack[-1]]:
                    stack.pop()
                    pos += 1
                    expect = "comma_or_close" if stack else "end"
                else:
                    return "invalid"
            else:  # a value (top, value, value_or_close)
                if c in "{[":
                    stack.append(c)
                    pos += 1
                    expect = "key_or_close" if c == "{" else "value_or_close"
                    continue
                if c == "]" and expect == "value_or_close":
                    stack.pop()
                    pos += 1
                elif c == '"':
                    pos = string(pos)
                elif c in "-0123456789":
                    pos = number(pos)
                elif c in "tfn":
                    pos = word(pos, {"t": "true", "f": "false", "n": "null"}[c])
                else:
                    return "invalid"
                expect = "comma_or_close" if stack else "end"
    except _Stop as stop:
        return str(stop)


def is_unterminated_line(data: bytes) -> bool:
    """A last line (no newline) that a writer was cut off in: a proper prefix of
    a JSON object, perhaps ending inside a multi-byte character (which then
    stands where any non-ASCII character may)."""
    if not data:
        return False  # no last line at all
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.end != len(data) or exc.reason != "unexpected end of data":
            return False
        text = data[:exc.start].decode("utf-8") + "\u00e9"
    return json_object_prefix(text) == "prefix"


@pytest.mark.parametrize("text, verdict", [
    ('{"a": [1, 2.5e-3, true, null, "x\\u00e9"]}', "complete"),
    (' {} ', "complete"),
    ('{"a": [1, 2.5e-', "prefix"),
    ('{"a": "x\\u00', "prefix"),
    ('{"a": fal', "prefix"),
    ('{"a": -', "prefix"),
    ('{', "prefix"),
    ('{"a": 1}}', "invalid"),
    ('{"expect": []}}', "invalid"),
    ('hello world', "invalid"),
    ('[1, 2', "invalid"),
    ('{"a": 1.5.', "invalid"),
    ('{"a": tru ', "invalid"),
    ('{"a": 01', "invalid"),
    ('{"a": "x\\q', "invalid"),
])
def test_the_prefix_oracle_itself(text: str, verdict: str) -> None:
    assert json_object_prefix(text) == verdict


# --------------------------------------------------------------------------
# JSON text with what json.dumps cannot write: raw tokens, duplicate keys
# --------------------------------------------------------------------------


class Raw(str):
    """Text written verbatim into the JSON line (``NaN``, ``1e400``, ...)."""


class Pairs(list):
    """A JSON object written from (key, value) pairs, so keys may repeat."""


def encode(value: Any) -> str:
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, Pairs):
        return "{" + ", ".join(f"{json.dumps(k)}: {encode(v)}" for k, v in value) + "}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {encode(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(encode(v) for v in value) + "]"
    return json.dumps(value)


def encode_lines(lines: list[Any]) -> bytes:
    return "".join(encode(obj) + "\n" for obj in lines).encode("utf-8", "surrogatepass")


RAW_TOKENS = [Raw(t) for t in ("NaN", "Infinity", "-Infinity", "1e400", "-1e400", "-0.0", "1e-400",
                               "1" + "0" * 400, "-" + "9" * 5000, "0x10", "01", "+1", ".5", "1.",
                               "nan", "true", "null", "[]", "{}")]

#: Values a mutation puts in place of a field.
HOSTILE_VALUES: list[Any] = [
    1e308, -0.0, -1, "NaN", Raw("NaN"), 0, 1, 2, 3, 4, 2**31, 2**32, 2**32 - 1, 2**53 + 1, 2**63, 2**64, -2**63,
    10**30, None, True, False, 0.0, 0.5, -0.5, -1e308, 1.7976931348623157e308, 5e-324, -5e-324, 1e-300, 1e-9, 1e6,
    "", "NaN", "nan", "Infinity", "-Infinity", "1", "1e308", "circle", "polygon", "halfplane", "plane",
    "box", "sphere", "b1", "\u00e9\u20ac\U0001f600", "\ud800",
    [], [0], [0, 0], [0, 0, 0], [1, 0, 0, 0], [1e308, 1e308], [-0.0, -0.0], [[0, 0], [1, 0], [0, 1]],
    [[0, 0], [1, 0]], [[0, 0], [1, 1], [1, 0], [0, 1]], [None], ["a", "b"], [[1, 2]], [[]],
    {}, {"type": "circle", "radius": 1}, {"type": "sphere", "radius": 1e308},
    {"type": "box", "half_extents": [1e308, 1e308]}, {"type": "polygon", "vertices": [[0, 0], [1e308, 0], [0, 1e308]]},
    {"type": "halfplane", "normal": [5e-324, 0], "offset": 1}, {"type": "plane", "normal": [0, 0, 1e308], "offset": 0},
    "capsule", "segment", "convex_hull",
    {"type": "capsule", "points": [[0, 0], [1, 0]], "radius": 0.5}, {"type": "segment", "points": [[0, 0], [0, 0]]},
    {"type": "capsule", "points": [[0, 0, 0], [0, 0, 1e308]], "radius": 1e-300},
    {"type": "convex_hull", "points": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]},
    {"type": "convex_hull", "points": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]},
    *RAW_TOKENS,
]

SCALES = [-1.0, 0.0, -0.0, 1e300, -1e300, 1e308, 1e-300, 1e-320, 2.0, 1e6]


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _nodes(v, path + (i,))


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def _copy(value: Any) -> Any:
    return json.loads(json.dumps(value))


@st.composite
def mutated_lines(draw: Any, lines: list[Any]) -> tuple[list[Any], str]:
    """``lines`` (JSON values) with one field changed; returns (lines, description)."""
    lines = [_copy(obj) for obj in lines]
    # The header is one line in many, but a broken header hides every frame:
    # mutate it about once in six. (Hypothesis favours small draws, so the
    # likeliest draws pick the last line and its deepest, last node.)
    if len(lines) > 1 and draw(st.integers(0, 5)) < 5:
        li = len(lines) - 1 - draw(st.integers(0, len(lines) - 2))
    else:
        li = draw(st.integers(0, len(lines) - 1))
    paths = list(_nodes(lines[li]))
    path = paths[len(paths) - 1 - draw(st.integers(0, len(paths) - 1))]
    op = draw(st.sampled_from(["replace", "replace", "retype", "scale", "drop", "duplicate_key",
                               "duplicate_item", "unknown_key", "comment_key"]))
    note = f"line {li + 1} at {list(path)}: {op}"
    target = _get(lines[li], path)
    if op == "replace" or (not path and op in ("retype", "scale", "drop")):
        new = draw(st.sampled_from(HOSTILE_VALUES))
        note += f" -> {new!r}"[:80]
        if path:
            _get(lines[li], path[:-1])[path[-1]] = new
        else:
            lines[li] = new
        return lines, note
    parent = _get(lines[li], path[:-1]) if path else None
    key = path[-1] if path else None
    if op == "retype":
        if isinstance(target, bool) or target is None:
            new = str(target).lower()
        elif isinstance(target, (int, float)):
            new = draw(st.sampled_from([str(target), [target], {"v": target}, Raw(repr(float(target))), bool(target)]))
        elif isinstance(target, str):
            new = draw(st.sampled_from([[target], 1, {"id": target}, target.encode().hex()]))
        elif isinstance(target, list):
            new = draw(st.sampled_from([dict(enumerate(map(str, target))), tuple(target)[:1], "list", 0]))
            if isinstance(new, dict):
                new = {str(k): v for k, v in new.items()}
        else:
            new = draw(st.sampled_from([list(target.items()), list(target), "object", 1]))
        parent[key] = new
    elif op == "scale":
        if isinstance(target, (int, float)) and not isinstance(target, bool):
            factor = draw(st.sampled_from(SCALES))
            try:
                new = target * factor
            except OverflowError:
                new = Raw("1e400")
            parent[key] = Raw("1e400") if isinstance(new, float) and not math.isfinite(new) else new
        else:
            parent[key] = draw(st.sampled_from(HOSTILE_VALUES))
    elif op == "drop":
        del parent[key]
    elif op == "duplicate_key":
        holder = target if isinstance(target, dict) and target else parent
        if isinstance(holder, dict) and holder:
            k = draw(st.sampled_from(sorted(holder)))
            again = draw(st.sampled_from([holder[k], draw(st.sampled_from(HOSTILE_VALUES))]))
            dup = Pairs(list(holder.items()) + [(k, again)])
            where = path if holder is target else path[:-1]
            if where:
                _get(lines[li], where[:-1])[where[-1]] = dup
            else:
                lines[li] = dup
    elif op == "duplicate_item":
        holder = target if isinstance(target, list) and target else parent
        if isinstance(holder, list) and holder:
            i = draw(st.integers(0, len(holder) - 1))
            holder.insert(draw(st.integers(0, len(holder))), _copy(holder[i]))
    elif op in ("unknown_key", "comment_key"):
        holder = target if isinstance(target, dict) else parent
        if isinstance(holder, dict):
            name = "zzz" if op == "unknown_key" else "_note"
            holder[name] = draw(st.sampled_from(HOSTILE_VALUES[:12]))
    return lines, note


_BROKEN_UTF8 = [b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xf0\x9f\x98", b"\xc0\xaf", b"\x80", b"\x00"]


@st.composite
def damaged_bytes(draw: Any, data: bytes) -> tuple[bytes, str, str]:
    """Byte-level damage to a file's text; returns (bytes, suffix, description)."""
    op = draw(st.sampled_from(["none", "none", "none", "none", "cut", "no_final_newline", "blank_line", "crlf",
                               "break_utf8", "cut_in_character", "flip_byte", "gzip", "gzip_truncated",
                               "gzip_flipped", "gzip_members", "gzip_padding", "gzip_garbage"]))
    suffix = ".jsonl"
    if op == "cut" and data:
        data = data[: draw(st.integers(0, len(data)))]
    elif op == "no_final_newline":
        data = data.rstrip(b"\n")
    elif op == "blank_line":
        cuts = [i + 1 for i, b in enumerate(data) if b == 0x0A] or [len(data)]
        at = draw(st.sampled_from(cuts))
        data = data[:at] + draw(st.sampled_from([b"\n", b" \n", b"\t\r\n"])) + data[at:]
    elif op == "crlf":
        data = data.replace(b"\n", b"\r\n")
    elif op == "break_utf8":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from(_BROKEN_UTF8)) + data[at:]
    elif op == "cut_in_character":
        # a multi-byte character inside a string near the end, then cut inside it
        text = data.rstrip(b"\n")
        quote = text.rfind(b'"')
        if quote > 0:
            char = draw(st.sampled_from(["\u00e9", "\u20ac", "\U0001f600"])).encode()
            text = text[:quote] + char + text[quote:]
            data = text[: quote + draw(st.integers(1, len(char) - 1))]
    elif op == "flip_byte" and data:
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + bytes([draw(st.integers(0, 255))]) + data[at + 1:]
    elif op.startswith("gzip"):
        suffix = ".jsonl.gz"
        packed = gzip.compress(data, mtime=0)
        if op == "gzip_truncated":
            packed = packed[: draw(st.integers(0, len(packed)))]
        elif op == "gzip_flipped" and packed:
            at = draw(st.integers(0, len(packed) - 1))
            packed = packed[:at] + bytes([packed[at] ^ draw(st.integers(1, 255))]) + packed[at + 1:]
        elif op == "gzip_members":
            at = draw(st.integers(0, len(data)))
            packed = gzip.compress(data[:at], mtime=0) + gzip.compress(data[at:], mtime=0)
        elif op == "gzip_padding":
            packed += b"\x00" * draw(st.integers(1, 600))
        elif op == "gzip_garbage":
            packed += draw(st.sampled_from([b"\x1f", b"\x1f\x8b", b"garbage", b"\x1f\x8b\x08\x00", b"\x00\x01"]))
        data = packed
    return data, suffix, op


reader_options = st.fixed_dictionaries({
    "ignore_truncated_tail": st.booleans(),
    "limits": st.one_of(
        *[st.just({})] * 7,
        st.fixed_dictionaries({}, optional={
            "max_line_bytes": st.integers(1, 3000),
            "max_polygon_vertices": st.integers(1, 8),
            "max_bodies": st.integers(1, 6),
            "max_decompressed_bytes": st.integers(1, 2000),
        }),
    ),
})


# --------------------------------------------------------------------------
# generators
# --------------------------------------------------------------------------


@st.composite
def random_bytes_inputs(draw: Any) -> FuzzInput:
    """Arbitrary bytes, after a valid header or not, plain or gzip."""
    body = draw(st.binary(max_size=600))
    header = draw(st.sampled_from([b"", b'{"collideworld_scenario": 1, "dim": 2}\n',
                                   b'{"collideworld_scenario": 1, "dim": 3}\n']))
    data = header + body
    kind = draw(st.sampled_from(["plain", "plain", "gzip", "gzip_raw"]))
    suffix = ".jsonl"
    if kind == "gzip":
        suffix, data = ".jsonl.gz", gzip.compress(data, mtime=0)
    elif kind == "gzip_raw":  # random bytes that claim to be gzip
        suffix = ".jsonl.gz"
    opts = draw(reader_options)
    return FuzzInput(data, suffix, opts["ignore_truncated_tail"], opts["limits"], note=kind)


FORMAT_KEYS = ["collideworld_scenario", "dim", "name", "description", "tolerance", "remove", "add", "move",
               "expect", "expect_contacts", "id", "shape", "position", "angle", "quaternion", "static",
               "category", "mask", "type", "radius", "half_extents", "vertices", "normal", "offset", "pair",
               "depth", "points", "_c"]

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-2**70, 2**70),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=6),
    st.sampled_from([1, 2, 3, 0, -1, 0.5, "a", "b", "circle", "box", "polygon", "sphere", "plane", "halfplane"]),
    st.sampled_from(RAW_TOKENS),
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(FORMAT_KEYS), st.text(max_size=4)), children, max_size=5),
    ),
    max_leaves=24,
)


@st.composite
def random_json_inputs(draw: Any) -> FuzzInput:
    """Lines of random JSON values; the header is often valid, keys often the format's."""
    valid_header = st.fixed_dictionaries({"collideworld_scenario": st.sampled_from([1, 2]),
                                          "dim": st.sampled_from([2, 3])})
    header = draw(st.one_of(
        valid_header, valid_header, valid_header,
        st.fixed_dictionaries({"collideworld_scenario": st.just(1), "dim": st.sampled_from([2, 3])},
                              optional={"tolerance": json_scalars, "name": json_scalars}),
        json_values,
    ))
    frame_like = st.dictionaries(st.sampled_from(["remove", "add", "move", "expect", "expect_contacts", "_c"]),
                                 json_values, max_size=3)
    frames = draw(st.lists(st.one_of(frame_like, json_values), max_size=5))
    data = encode_lines([header] + frames)
    data, suffix, damage = draw(damaged_bytes(data))
    opts = draw(reader_options)
    return FuzzInput(data, suffix, opts["ignore_truncated_tail"], opts["limits"], note=damage)


def _real_prefixes(max_lines: int = 5) -> list[list[Any]]:
    out = []
    for path in SCENARIO_FILES:
        lines = []
        with open(path, encoding="utf-8") as f:
            for text in f:
                lines.append(json.loads(text))
                if len(lines) >= max_lines:
                    break
        out.append(lines)
    return out


REAL_PREFIXES = _real_prefixes()


@st.composite
def mutated_real_inputs(draw: Any) -> FuzzInput:
    """The first lines of a real scenario, one field mutated, bytes perhaps damaged."""
    lines = draw(st.sampled_from(REAL_PREFIXES))
    lines = lines[: draw(st.integers(1, len(lines)))]
    mutated, note = draw(mutated_lines(lines))
    data, suffix, damage = draw(damaged_bytes(encode_lines(mutated)))
    opts = draw(reader_options)
    return FuzzInput(data, suffix, opts["ignore_truncated_tail"], opts["limits"], note=f"{note}; {damage}")


_finite = st.floats(-8.0, 8.0, allow_nan=False)


_TETRA = [(1.0, 1.0, 1.0), (1.0, -1.0, -1.0), (-1.0, 1.0, -1.0), (-1.0, -1.0, 1.0)]


@st.composite
def _v2_shape_dict(draw: Any, dim: int, size: float) -> dict[str, Any]:
    """A valid capsule, segment or (3D) convex hull of about ``size``."""
    kinds = ["capsule", "segment"] + (["convex_hull"] if dim == 3 else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "convex_hull":
        # a regular tetrahedron's corners moved by at most a tenth of its size (never flat),
        # then up to 4 more points anywhere near it
        jitter = st.floats(-0.1, 0.1)
        pts = [[size * (c + draw(jitter)) for c in corner] for corner in _TETRA]
        pts += [[draw(st.floats(-size, size)) for _ in range(3)] for _ in range(draw(st.integers(0, 4)))]
        return {"type": "convex_hull", "points": pts}
    p0 = [draw(_finite) / 4 for _ in range(dim)]
    p1 = p0 if kind == "capsule" and draw(st.integers(0, 4)) == 0 else [draw(_finite) / 4 for _ in range(dim)]
    if kind == "segment":
        if p1 == p0:
            p1 = [p0[0] + 1.0, *p0[1:]]
        return {"type": "segment", "points": [p0, p1]}
    return {"type": "capsule", "points": [p0, p1], "radius": size}


@st.composite
def _shape_dict(draw: Any, dim: int, version: int = 1) -> tuple[dict[str, Any], bool]:
    """(shape dict, convex) for a valid shape of ``dim`` (version 2: capsules, segments and hulls too)."""
    from collideworld.errors import InvalidShapeError
    from collideworld.shapes import Polygon

    size = draw(st.floats(0.1, 3.0))
    if version >= 2 and draw(st.integers(0, 2)) == 0:
        return draw(_v2_shape_dict(dim, size)), True
    if dim == 2:
        kind = draw(st.sampled_from(["circle", "box", "polygon", "polygon", "halfplane"]))
        if kind == "circle":
            return {"type": "circle", "radius": size}, True
        if kind == "box":
            return {"type": "box", "half_extents": [size, draw(st.floats(0.1, 3.0))]}, True
        if kind == "halfplane":
            n = [draw(st.floats(-1, 1)), draw(st.floats(-1, 1))]
            if math.hypot(*n) < 0.1:
                n = [0.0, 1.0]
            return {"type": "halfplane", "normal": n, "offset": draw(_finite)}, True
        k = draw(st.integers(3, 7))
        gaps = [draw(st.floats(0.5, 1.0)) for _ in range(k)]
        radii = [draw(st.floats(0.3, 1.0)) * size for _ in range(k)]
        total, acc, verts = sum(gaps), 0.0, []
        for g, r in zip(gaps, radii, strict=True):
            acc += g
            a = 2 * math.pi * acc / total
            verts.append([r * math.cos(a), r * math.sin(a)])
        try:
            poly = Polygon(verts)
        except InvalidShapeError:
            return {"type": "circle", "radius": size}, True
        return {"type": "polygon", "vertices": verts}, poly.is_convex
    kind = draw(st.sampled_from(["sphere", "box", "box", "plane"]))
    if kind == "sphere":
        return {"type": "sphere", "radius": size}, True
    if kind == "box":
        return {"type": "box", "half_extents": [size, draw(st.floats(0.1, 3.0)), draw(st.floats(0.1, 3.0))]}, True
    n = [draw(st.floats(-1, 1)), draw(st.floats(-1, 1)), draw(st.floats(-1, 1))]
    if math.sqrt(sum(c * c for c in n)) < 0.1:
        n = [0.0, 0.0, 1.0]
    return {"type": "plane", "normal": n, "offset": draw(_finite)}, True


@st.composite
def _rotation(draw: Any, dim: int) -> Any:
    if dim == 2:
        return draw(st.floats(-4.0, 4.0))
    q = [draw(st.floats(-1.0, 1.0)) for _ in range(4)]
    n = math.sqrt(sum(c * c for c in q))
    return [1.0, 0.0, 0.0, 0.0] if n < 0.1 else [c / n for c in q]


@st.composite
def generated_scenarios(draw: Any) -> list[Any]:
    """A small valid scenario as a list of JSON objects (header first)."""
    dim = draw(st.sampled_from([2, 3]))
    version = draw(st.sampled_from([1, 2]))
    header: dict[str, Any] = {"collideworld_scenario": version, "dim": dim}
    if draw(st.booleans()):
        header["tolerance"] = draw(st.sampled_from([1e-9, 1e-6, 0.5]))
    lines: list[Any] = [header]
    alive: dict[Any, tuple[bool, bool]] = {}  # id -> (movable, convex)
    next_id = 0
    for _ in range(draw(st.integers(1, 5))):
        frame: dict[str, Any] = {}
        if alive and draw(st.booleans()):
            gone = draw(st.lists(st.sampled_from(sorted(alive, key=str)), max_size=2, unique=True))
            if gone:
                frame["remove"] = gone
                for i in gone:
                    del alive[i]
        adds = []
        for _ in range(draw(st.integers(0, 3))):
            body_id: Any = next_id if draw(st.booleans()) else f"b{next_id}"
            next_id += 1
            shape, convex = draw(_shape_dict(dim, version))
            body: dict[str, Any] = {"id": body_id, "shape": shape}
            unbounded = shape["type"] in ("halfplane", "plane")
            if not unbounded:
                body["position"] = [draw(_finite) for _ in range(dim)]
                if draw(st.booleans()):
                    body["angle" if dim == 2 else "quaternion"] = draw(_rotation(dim))
                if draw(st.integers(0, 3)) == 0:
                    body["static"] = True
            if draw(st.integers(0, 3)) == 0:
                body["category"] = draw(st.sampled_from([0, 1, 2, 3, 4294967295]))
                body["mask"] = draw(st.sampled_from([0, 1, 2, 4294967295]))
            adds.append(body)
            alive[body_id] = (not unbounded, convex and not unbounded)
        if adds:
            frame["add"] = adds
        movable = sorted((i for i, (m, _) in alive.items() if m), key=str)
        if movable and draw(st.booleans()):
            moves = []
            for i in draw(st.lists(st.sampled_from(movable), max_size=3, unique=True)):
                mv: dict[str, Any] = {"id": i}
                if draw(st.booleans()):
                    mv["position"] = [draw(_finite) for _ in range(dim)]
                if draw(st.booleans()):
                    mv["angle" if dim == 2 else "quaternion"] = draw(_rotation(dim))
                moves.append(mv)
            frame["move"] = moves
        ids = sorted(alive, key=str)
        if len(ids) >= 2 and draw(st.booleans()):
            pairs = draw(st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids)).filter(lambda p: p[0] != p[1]),
                                  max_size=3, unique_by=lambda p: frozenset(p)))
            frame["expect"] = [list(p) for p in pairs]
            convex_pairs = [p for p in pairs if alive[p[0]][1] and alive[p[1]][1]]
            if convex_pairs and draw(st.booleans()):
                contacts = []
                for a, b in convex_pairs[:2]:
                    n = [draw(st.floats(-1, 1)) for _ in range(dim)]
                    length = math.sqrt(sum(c * c for c in n))
                    n = [1.0] + [0.0] * (dim - 1) if length < 0.1 else [c / length for c in n]
                    contacts.append({"pair": [a, b], "normal": n, "depth": draw(st.floats(0.0, 2.0))})
                frame["expect_contacts"] = contacts
        elif draw(st.integers(0, 3)) == 0:
            frame["expect"] = []
        lines.append(frame)
    return lines


@st.composite
def generated_valid_inputs(draw: Any) -> FuzzInput:
    """Small valid scenarios, unmutated: they must replay (mismatches are fine)."""
    lines = draw(generated_scenarios())
    data = encode_lines(lines)
    suffix = ".jsonl"
    if draw(st.booleans()):
        suffix, data = ".jsonl.gz", gzip.compress(data, mtime=0)
    return FuzzInput(data, suffix, draw(st.booleans()), must_replay=True, note="valid")


@st.composite
def mutated_generated_inputs(draw: Any) -> FuzzInput:
    """Small generated scenarios, one field mutated, bytes perhaps damaged."""
    lines = draw(generated_scenarios())
    mutated, note = draw(mutated_lines(lines))
    data, suffix, damage = draw(damaged_bytes(encode_lines(mutated)))
    opts = draw(reader_options)
    return FuzzInput(data, suffix, opts["ignore_truncated_tail"], opts["limits"], note=f"{note}; {damage}")


EXTREME_NUMBERS = [1e308, -1e308, 1.7976931348623157e308, 1e300, 1e154, -1e154, 1e15, 1e6, 1e-300, 5e-324,
                   -0.0, 1e-9]
_INTEGER_FIELDS = {"id", "category", "mask", "pair", "remove", "expect", "collideworld_scenario", "dim",
                   "quaternion"}


@st.composite
def extreme_generated_inputs(draw: Any) -> FuzzInput:
    """Small generated scenarios whose coordinates and sizes are often extreme but finite
    (1e308, 5e-324, -0.0, ...): they reach the world and its kernels, which must
    either cope or reject them (a ScenarioError naming the line)."""
    lines = draw(generated_scenarios())
    count = 0
    for obj in lines[1:]:
        for path in list(_nodes(obj)):
            if not path or any(k in _INTEGER_FIELDS for k in path if isinstance(k, str)):
                continue
            value = _get(obj, path)
            if isinstance(value, float) and draw(st.integers(0, 3)) == 0:
                _get(obj, path[:-1])[path[-1]] = draw(st.sampled_from(EXTREME_NUMBERS))
                count += 1
    opts = draw(reader_options)
    return FuzzInput(encode_lines(lines), ".jsonl", opts["ignore_truncated_tail"], note=f"{count} extreme numbers")


ARROW_SUFFIXES = (".arrows", ".parquet")


@st.composite
def arrow_inputs(draw: Any) -> FuzzInput:
    """Generated scenarios in the Arrow form (a stream or Parquet, batches of 1-4 frames), valid or with
    bytes damaged: cut at a random offset, or a few bytes overwritten."""
    import tempfile

    from collideworld.scenario.arrow import convert

    lines = draw(generated_scenarios())
    suffix = draw(st.sampled_from(ARROW_SUFFIXES))
    with tempfile.TemporaryDirectory() as folder:
        text, arrow = Path(folder) / "g.jsonl", Path(folder) / f"g{suffix}"
        text.write_bytes(encode_lines(lines))
        frames = convert(text, arrow, batch_frames=draw(st.integers(1, 4)))
        data = arrow.read_bytes()
    damage = draw(st.sampled_from(["none", "cut", "bytes"]))
    if damage == "cut":
        data = data[:draw(st.integers(0, len(data) - 1))]
    elif damage == "bytes":
        damaged = bytearray(data)
        for _ in range(draw(st.integers(1, 6))):
            damaged[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
        data = bytes(damaged)
    return FuzzInput(data, suffix, draw(st.booleans()), must_replay=damage == "none", note=damage,
                     frames=frames if damage == "none" else None)


#: name -> (strategy, examples in the default test run); tools/fuzz_reader.py runs them longer.
FUZZ_CASES = {
    "random_bytes": (random_bytes_inputs(), 50),
    "random_json": (random_json_inputs(), 70),
    "mutated_real": (mutated_real_inputs(), 110),
    "mutated_generated": (mutated_generated_inputs(), 70),
    "generated_valid": (generated_valid_inputs(), 30),
    "extreme_numbers": (extreme_generated_inputs(), 60),
    "arrow": (arrow_inputs(), 60),
}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Replay the real files once, untimed, so that first-use numba compiles
    # (seconds each, more on busy cores; which kernels are still cold depends on
    # what ran before this file in its xdist worker) fall outside HANG_SECONDS
    # and the hypothesis deadline: those bound the reader and replay, not the compiler.
    for path in SCENARIO_FILES:
        replay(path)
    return tmp_path_factory.mktemp("fuzz_reader")


def _fuzz_test(case: str) -> Any:
    strategy, examples = FUZZ_CASES[case]

    @settings(max_examples=examples, **FUZZ_SETTINGS)
    @given(inp=strategy)
    def test(workdir: Path, inp: FuzzInput) -> None:
        check_input(workdir, inp)

    test.__name__ = f"test_{case}_replay_or_fail_at_a_line"
    test.__doc__ = f"{case}: replay returns a report or raises ScenarioError('path:N: ...')."
    return test


test_random_bytes_replay_or_fail_at_a_line = _fuzz_test("random_bytes")
test_random_json_replay_or_fail_at_a_line = _fuzz_test("random_json")
test_mutated_real_scenarios_replay_or_fail_at_a_line = _fuzz_test("mutated_real")
test_mutated_generated_scenarios_replay_or_fail_at_a_line = _fuzz_test("mutated_generated")
test_generated_valid_scenarios_replay = _fuzz_test("generated_valid")
test_extreme_numbers_replay_or_fail_at_a_line = _fuzz_test("extreme_numbers")
test_arrow_form_replays_or_fails_at_a_batch = _fuzz_test("arrow")


def test_real_scenarios_replay_through_the_fuzz_property(workdir: Path) -> None:
    """The unmutated real files pass the same check (and replay without error)."""
    for path in SCENARIO_FILES:
        assert check_input(workdir, FuzzInput(path.read_bytes(), must_replay=True)) == "ok"


# --------------------------------------------------------------------------
# hostile limits: rejected before the work they bound is done
# --------------------------------------------------------------------------

H2 = b'{"collideworld_scenario": 1, "dim": 2}\n'


def _rejected(path: Path, line: int | None, contains: str, **limits: int) -> ScenarioError:
    """Reading ``path`` fails at ``line`` (any line if None) with ``contains`` in the message."""
    with pytest.raises(ScenarioError) as info:
        for _ in read_scenario(path, **limits):
            pass
    message = str(info.value)
    where = r"\d+" if line is None else str(line)
    assert re.match(re.escape(str(path)) + f":{where}: ", message), message
    assert contains in message, message
    return info.value


@contextlib.contextmanager
def _peak_python_memory() -> Iterator[list[int]]:
    """Peak bytes allocated by Python inside the block (tracemalloc), as ``out[0]``."""
    out = [0]
    tracemalloc.start()
    try:
        yield out
    finally:
        out[0] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


def test_huge_line_is_rejected_without_reading_it_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An 8 MB line with max_line_bytes=4096: error at its line, JSON never parsed, memory small."""
    path = tmp_path / "huge_line.jsonl"
    filler = b" " * (8 * 1024 * 1024)
    path.write_bytes(H2 + b"{}\n" + b'{"_c": "' + filler + b'"}\n' + b"{}\n")
    parsed: list[int] = []
    real_loads = source_module.loads_line
    monkeypatch.setattr(source_module, "loads_line", lambda text: parsed.append(len(text)) or real_loads(text))
    with _peak_python_memory() as peak:
        _rejected(path, 3, "max_line_bytes", max_line_bytes=4096)
    assert max(parsed) < 4096, "the over-long line reached the JSON parser"
    assert peak[0] < 1024 * 1024, f"reading a rejected 8 MB line allocated {peak[0]} bytes"


def test_huge_line_without_newline_is_rejected(tmp_path: Path) -> None:
    """The limit also applies to a last line with no newline (not 'truncated')."""
    path = tmp_path / "huge_tail.jsonl"
    path.write_bytes(H2 + b"[" * 5000)
    err = _rejected(path, 2, "max_line_bytes", max_line_bytes=1000)
    assert "truncated" not in str(err)


def test_line_exactly_at_the_limit_is_accepted(tmp_path: Path) -> None:
    frame = b'{"_c": "' + b"x" * 100 + b'"}'
    path = tmp_path / "at_limit.jsonl"
    path.write_bytes(H2 + frame + b"\n")
    frames = list(read_scenario(path, max_line_bytes=max(len(frame), len(H2) - 1)))
    assert len(frames) == 1
    _rejected(path, 2, "max_line_bytes", max_line_bytes=len(frame) - 1)


def test_polygon_with_too_many_vertices_is_rejected_before_it_is_built(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No Polygon is constructed (no validation, no decomposition) for an over-limit polygon."""
    import collideworld.shapes as shapes_module

    n = 200_001  # far over the default limit of 5,000
    verts = ",".join(f"[{math.cos(2 * math.pi * i / n):.6f},{math.sin(2 * math.pi * i / n):.6f}]" for i in range(n))
    path = tmp_path / "many_vertices.jsonl"
    path.write_bytes(H2 + ('{"add": [{"id": 1, "shape": {"type": "polygon", "vertices": [' + verts
                           + ']}, "position": [0, 0]}]}\n').encode())
    built: list[int] = []

    def spy(data: Any, dim: Any = None) -> Any:
        if isinstance(data, dict) and data.get("type") == "polygon":
            built.append(len(data.get("vertices") or ()))
        return real(data, dim)

    real = shapes_module.shape_from_dict
    monkeypatch.setattr(schema_module, "shape_from_dict", spy)
    start = time.perf_counter()
    _rejected(path, 2, "max_polygon_vertices")
    assert built == [], "the polygon was handed to the shape constructor"
    assert time.perf_counter() - start < 10.0
    # the same with a small limit, and one vertex under it is fine
    small = tmp_path / "small.jsonl"
    square = '[[0, 0], [1, 0], [1, 1], [0, 1]]'
    small.write_bytes(H2 + ('{"add": [{"id": 1, "shape": {"type": "polygon", "vertices": ' + square
                            + '}, "position": [0, 0]}]}\n').encode())
    _rejected(small, 2, "max_polygon_vertices", max_polygon_vertices=3)
    assert len(list(read_scenario(small, max_polygon_vertices=4))) == 1


@pytest.mark.parametrize("n, accepted", [(5_000, True), (5_001, False)])
def test_default_polygon_vertex_limit_is_5000(tmp_path: Path, n: int, accepted: bool) -> None:
    """The default bounds the roughly quadratic polygon build (a 5,000-vertex
    zig-zag star takes about a second); the keyword still raises it."""
    verts = ",".join(f"[{math.cos(2 * math.pi * i / n)!r},{math.sin(2 * math.pi * i / n)!r}]" for i in range(n))
    path = tmp_path / "convex.jsonl"
    path.write_bytes(H2 + ('{"add": [{"id": 1, "shape": {"type": "polygon", "vertices": [' + verts
                           + ']}, "position": [0, 0]}]}\n').encode())
    if accepted:
        assert len(list(read_scenario(path))) == 1
    else:
        _rejected(path, 2, "max_polygon_vertices")
        assert len(list(read_scenario(path, max_polygon_vertices=n))) == 1


def test_too_many_bodies_alive_is_rejected_before_parsing_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The alive count is checked against max_bodies before any body of the frame is parsed."""
    body = '{"id": %d, "shape": {"type": "circle", "radius": 1}, "position": [0, 0]}'
    path = tmp_path / "many_bodies.jsonl"
    first = ",".join(body % i for i in range(4))
    second = ",".join(body % i for i in range(4, 100_004))
    path.write_bytes(H2 + f'{{"add": [{first}]}}\n'.encode() + f'{{"add": [{second}]}}\n'.encode())
    parsed: list[Any] = []
    real = frames_module._FrameReader._parse_body

    def spy(self: Any, raw: Any, i: int, dim: int) -> Any:
        parsed.append(raw["id"])
        return real(self, raw, i, dim)

    monkeypatch.setattr(frames_module._FrameReader, "_parse_body", spy)
    _rejected(path, 3, "max_bodies", max_bodies=5)
    assert parsed == [0, 1, 2, 3], "bodies of the over-limit frame were parsed"
    # removals in the same frame count: 4 alive, remove 2, add 3 -> 5 alive is fine
    ok = tmp_path / "at_limit.jsonl"
    ok.write_bytes(H2 + f'{{"add": [{first}]}}\n'.encode()
                   + f'{{"remove": [0, 1], "add": [{",".join(body % i for i in range(4, 7))}]}}\n'.encode())
    assert len(list(read_scenario(ok, max_bodies=5))) == 2


def test_gzip_bomb_is_rejected_at_the_cap(tmp_path: Path) -> None:
    """A ~100 kB .gz that inflates to 100 MB: error once 1 MiB is out, quickly, in little memory."""
    path = tmp_path / "bomb.jsonl.gz"
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b'{"_c": "' + b"a" * 1000 + b'"}\n'
    parts = [comp.compress(H2)]
    parts += [comp.compress(chunk * 1000) for _ in range(100)]  # ~100 MB of valid frames
    parts.append(comp.flush())
    data = b"".join(parts)
    path.write_bytes(data)
    assert len(data) < 1_000_000
    start = time.perf_counter()
    with _peak_python_memory() as peak:
        err = _rejected(path, None, "max_decompressed_bytes", max_decompressed_bytes=1 << 20)
    assert time.perf_counter() - start < 10.0
    assert err.line is not None and err.line < 1100, "far more lines were read than the cap allows"
    assert peak[0] < 8 * 1024 * 1024, f"reading the bomb allocated {peak[0]} bytes"


def test_gzip_bomb_in_one_line_is_rejected(tmp_path: Path) -> None:
    """One 64 MB line of zeros, compressed to ~64 kB: the size cap fires before the line ends."""
    path = tmp_path / "bomb_line.jsonl.gz"
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [comp.compress(H2 + b'{"_c": "')]
    zeros = b"0" * (1 << 20)
    parts += [comp.compress(zeros) for _ in range(64)]
    parts.append(comp.flush())
    path.write_bytes(b"".join(parts))
    start = time.perf_counter()
    with _peak_python_memory() as peak:
        _rejected(path, 2, "max_decompressed_bytes", max_decompressed_bytes=1 << 20)
    assert time.perf_counter() - start < 10.0
    assert peak[0] < 8 * 1024 * 1024, f"reading the bomb allocated {peak[0]} bytes"


# --------------------------------------------------------------------------
# regressions found by this fuzzer
# --------------------------------------------------------------------------


@pytest.mark.parametrize("ignore", [False, True])
def test_null_frame_line_is_an_error_not_the_end_of_the_file(tmp_path: Path, ignore: bool) -> None:
    """``null`` is valid JSON: it used to be taken for an ignored tail and end the file silently."""
    path = tmp_path / "null.jsonl"
    path.write_bytes(H2 + b"{}\nnull\n" + b'{"remove": ["ghost"]}\n')
    with pytest.raises(ScenarioError, match=r":3: a frame must be a JSON object, got null"):
        replay(str(path), ignore_truncated_tail=ignore)


def test_null_header_is_not_called_truncated(tmp_path: Path) -> None:
    path = tmp_path / "null_header.jsonl"
    path.write_bytes(b"null\n{}\n")
    with pytest.raises(ScenarioError, match=r":1: header: line 1 must be a JSON object, got null"):
        replay(str(path))


@pytest.mark.parametrize("ignore", [False, True])
def test_invalid_byte_in_a_complete_last_line_is_invalid_utf8(tmp_path: Path, ignore: bool) -> None:
    """Only a character cut at the very end is a truncated tail; a bad byte elsewhere is not."""
    path = tmp_path / "bad_byte.jsonl"
    path.write_bytes(H2 + b'{}\n{"_c": "\xff"}')
    with pytest.raises(ScenarioError, match=r":3: line is not valid UTF-8"):
        replay(str(path), ignore_truncated_tail=ignore)


def test_header_cut_inside_a_character_is_not_called_empty(tmp_path: Path) -> None:
    path = tmp_path / "cut_header.jsonl"
    path.write_bytes('{"collideworld_scenario": 1, "dim": 2, "name": "\u20ac'.encode()[:-1])
    with pytest.raises(ScenarioError, match=r":1: the last line is truncated \(the header is incomplete\)"):
        replay(str(path), ignore_truncated_tail=True)
    # and a frame cut inside a character is still an ignorable tail
    cut = tmp_path / "cut_frame.jsonl"
    cut.write_bytes(H2 + b"{}\n" + '{"_c": "\u20ac'.encode()[:-1])
    assert replay(str(cut), ignore_truncated_tail=True).frames == 1


# --------------------------------------------------------------------------
# a truncated tail is exactly an unterminated prefix of a line
# --------------------------------------------------------------------------

_plain_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=5),
              st.floats(allow_nan=False, allow_infinity=False)),
    lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(st.text(max_size=3), children,
                                                                                max_size=3)),
    max_leaves=10,
)
_TAIL_CHARS = list('}],:."\\ -+eEu0159afxtn\t\u00e9\u20ac') + ["\x01", "\U0001f600"]


@st.composite
def cut_last_lines(draw: Any) -> bytes:
    """A JSON object line cut anywhere (inside a character too), sometimes with
    one more character or a little junk after the cut."""
    obj = {"_c": draw(_plain_json), **draw(st.dictionaries(st.sampled_from(["_a", "_b"]), _plain_json))}
    data = json.dumps(obj, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    data = data[: draw(st.integers(1, len(data)))]
    extra = draw(st.sampled_from(["", "", "char", "junk"]))
    if extra == "char":
        data += draw(st.sampled_from(_TAIL_CHARS)).encode()
    elif extra == "junk":
        data += draw(st.sampled_from([b"}", b"}}", b" hello", b"]", b"\xff", b"\xe2\x82"]))
    return data


@settings(max_examples=300, **FUZZ_SETTINGS)
@given(last=cut_last_lines())
def test_only_an_unterminated_prefix_is_called_truncated(workdir: Path, last: bytes) -> None:
    """The reader calls a last line without newline truncated (and lets
    ignore_truncated_tail drop it) exactly when the independent recogniser
    above says it stops inside a JSON object; anything else is an error."""
    path = workdir / "tail.jsonl"
    path.write_bytes(H2 + b"{}\n" + last)
    expected = is_unterminated_line(last)
    try:
        frames = len(list(read_scenario(path)))
    except ScenarioError as exc:
        assert exc.line == 3, str(exc)
        assert ("last line is truncated" in str(exc)) == expected, (last, str(exc))
    else:
        assert not expected and frames == 2, last
    try:
        frames = len(list(read_scenario(path, ignore_truncated_tail=True)))
    except ScenarioError as exc:
        assert not expected, (last, str(exc))
    else:
        assert frames == (1 if expected else 2), last


@pytest.mark.parametrize("last", [
    b'{"expect": []}}',              # complete JSON, then junk ("Extra data")
    b"hello world",
    b'{"expect": [}',                # a wrong character, not a cut
    b'{"_c": 1.5.',
    b'{"_c": tru ',
    b'[1, 2',                        # a cut array: never the start of a line
    b'{"_c": 1\xe2\x82',             # cut inside a character that cannot be there
    b'{"_c": "\\ud800\\u\\',          # a backslash where a hex digit must be
])
def test_an_invalid_last_line_without_newline_is_not_a_truncated_tail(tmp_path: Path, last: bytes) -> None:
    path = tmp_path / "junk_tail.jsonl"
    path.write_bytes(H2 + b"{}\n" + last)
    for ignore in (False, True):
        with pytest.raises(ScenarioError) as info:
            list(read_scenario(path, ignore_truncated_tail=ignore))
        assert str(info.value).startswith(f"{path}:3: ") and "truncated" not in str(info.value)
