"""Writing scenario files, one complete, flushed line per frame.

Each frame is serialised in full, written with a single ``write`` call and
flushed at once, so a writer that is killed leaves a file whose every
completed frame is readable (read it with ``ignore_truncated_tail=True`` if
the kill came mid-line). For ``.gz`` paths each flush is a zlib
``Z_SYNC_FLUSH``: the compressed bytes of every completed frame are on disk
and decompress without the gzip trailer, which only :meth:`ScenarioWriter.close`
writes.

Examples
--------
>>> import os, tempfile
>>> from collideworld.shapes import Circle
>>> from collideworld.scenario import ScenarioWriter, BodySpec
>>> path = os.path.join(tempfile.mkdtemp(), "scene.jsonl")
>>> with ScenarioWriter(path, dim=2, name="demo") as w:
...     w.write_frame(add=[BodySpec("a", Circle(1.0), (0.0, 0.0)),
...                        BodySpec("b", Circle(1.0), (1.5, 0.0))],
...                   expect=[("a", "b")])
>>> len(open(path).read().splitlines())     # the header line and one frame
2
"""

from __future__ import annotations

import builtins
import functools
import gzip
import json
import math
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import Any, BinaryIO

import numpy as np
from numpy.typing import ArrayLike

try:  # formats float arrays ~7x faster than the json module (same shortest round-trip digits)
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson is a dependency; the json module is the fallback
    _orjson = None  # type: ignore[assignment]

from ..errors import InvalidArgumentError, ScenarioFileError
from ..shapes import shape_to_dict
from .reader import (
    DEFAULT_TOLERANCE,
    SUPPORTED_VERSIONS,
    UINT32_MAX,
    ExpectedContact,
    ExpectedDistance,
    ExpectedImpact,
    Frame,
)
from .schema import SHAPE_TYPES_V3
from .source import check_path, dump_line

__all__ = ["MoveBatch", "ScenarioWriter", "body_to_dict", "move_to_dict", "set_to_dict", "shape_dict"]

#: The header's first key: the version digit follows it, so version 1 can become 2 in place.
_VERSION_KEY = '"collideworld_scenario":'
#: Zero bytes after the ids' text given to the compiled writer (its ``SLACK``; checked there).
_TEXT_SLACK = 32
_V2_SHAPE_TYPES = frozenset({"capsule", "segment", "convex_hull", "compound"})


def _needs(as_dict: Mapping[str, Any]) -> int:
    """The format version a shape's file form needs: 3 (a version 3 type), 2 (version 2) or 0."""
    kind = as_dict.get("type")
    if kind in SHAPE_TYPES_V3 or (kind in ("box", "polygon", "convex_hull") and "radius" in as_dict):
        return 3
    if kind == "compound":
        return max([2] + [_needs(part["shape"]) for part in as_dict["parts"]])
    return 2 if kind in _V2_SHAPE_TYPES else 0



def create_output(path: str) -> BinaryIO:
    """Open ``path`` for writing; an OS error becomes a :class:`ScenarioFileError` saying why."""
    try:
        return open(path, "wb")  # noqa: SIM115 - closed in ScenarioWriter.close()
    except OSError as exc:
        folder = os.path.dirname(os.path.abspath(path))
        if isinstance(exc, FileNotFoundError) and not os.path.isdir(folder):
            why = f"folder {os.path.dirname(path) or folder!r} does not exist"
        else:
            why = exc.strerror or str(exc)
        raise ScenarioFileError.from_os_error(exc, f"cannot create {path!r}: {why}") from None


def _plain(value: Any) -> Any:
    """numpy scalars and arrays to plain Python values JSON can hold."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _floats(value: Any, what: str | tuple[str, Any, str]) -> list[float]:
    """``value`` as plain floats, all finite; ``what`` names it in the error
    (a ``(kind, id, field)`` tuple is formatted only on error: this runs once
    per moved body per frame when recording)."""
    kind = type(value)
    if kind is np.ndarray and value.dtype == np.float64:
        out: list[float] = value.reshape(-1).tolist()
    elif kind is float:
        out = [value]
    elif (kind is tuple or kind is list) and all(type(v) is float for v in value):
        out = list(value)
    else:
        out = [float(v) for v in np.asarray(value, dtype=np.float64).reshape(-1)]
    for v in out:
        if v - v != 0.0:  # NaN or an infinity (inf - inf is NaN)
            if isinstance(what, tuple):
                what = f"{what[0]} {what[1]!r} {what[2]}"
            raise InvalidArgumentError(f"{what} must be finite, got {out!r}")
    return out


#: A code point a JSON reader refuses in a string (see ``source._lone_surrogate``).
_SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogate_error(what: str, text: str) -> InvalidArgumentError:
    found = _SURROGATE.search(text)
    code = f"\\u{ord(found.group()):04x}" if found else "?"
    at = found.start() if found else 0
    shown = repr(text) if len(text) <= 80 else f"...{text[max(at - 30, 0):at + 30]!r}..."
    return InvalidArgumentError(f"{what} holds a lone surrogate {code}, not a Unicode character: "
                                f"a scenario file's strings must be Unicode text, got {shown}")


def plain_id(value: Any) -> str | int:
    if isinstance(value, (bool, np.bool_)):
        raise InvalidArgumentError(f"a body id must be a str or an int, got {value!r}")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, str):
        if not value.isascii() and _SURROGATE.search(value):
            raise _lone_surrogate_error("a body id", value)
        return value
    raise InvalidArgumentError(f"a body id must be a str or an int, got {value!r}")


def _id_key(value: Any) -> tuple[int, int, str]:
    """Sort key putting ints before strings, for deterministic output."""
    return (0, value, "") if isinstance(value, int) else (1, 0, str(value))


def _capsule_to_dict(shape: Any) -> dict[str, Any]:
    return {"type": "capsule", "points": [list(shape.p0), list(shape.p1)], "radius": shape.radius}


def _segment_to_dict(shape: Any) -> dict[str, Any]:
    return {"type": "segment", "points": [list(shape.p0), list(shape.p1)]}


def _convex_hull_to_dict(shape: Any) -> dict[str, Any]:
    # The points as given, not only the hull's vertices: the same solid either
    # way, but a hull read back is then equal to the one written.
    rounded = {"radius": shape.radius} if shape.radius else {}
    return {"type": "convex_hull", "points": [list(p) for p in shape.points], **rounded}


def _compound_to_dict(shape: Any) -> dict[str, Any]:
    # Each part through shape_dict, not shapes.shape_to_dict: a part may be
    # any finite shape, a capsule, segment or hull too (format version 2).
    rotation = "angle" if shape.dim == 2 else "quaternion"
    return {"type": "compound", "parts": [
        {"shape": shape_dict(part), "position": list(position),
         rotation: rot if shape.dim == 2 else list(rot)}
        for part, position, rot in shape.parts]}


#: The file form of the shapes only version 2 defines, by ``kind``; every
#: other shape is written by :func:`collideworld.shapes.shape_to_dict`.
SHAPE_WRITERS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "capsule": _capsule_to_dict,
    "segment": _segment_to_dict,
    "convex_hull": _convex_hull_to_dict,
    "compound": _compound_to_dict,
    "triangle_mesh": shape_to_dict,
    "heightfield": shape_to_dict,
}


def shape_dict(shape: Any) -> dict[str, Any]:
    """The file form of any shape (the writer's side of ``SHAPE_PARSERS``).

    Parameters
    ----------
    shape : Shape

    Returns
    -------
    dict
        JSON-ready: ``type`` and that type's keys.

    Examples
    --------
    >>> from collideworld.shapes import Capsule, Circle
    >>> shape_dict(Capsule((0, 0), (2, 0), 0.5))
    {'type': 'capsule', 'points': [[0.0, 0.0], [2.0, 0.0]], 'radius': 0.5}
    >>> shape_dict(Circle(1))
    {'type': 'circle', 'radius': 1.0}
    """
    writer = SHAPE_WRITERS.get(getattr(shape, "kind", ""))
    return writer(shape) if writer is not None else shape_to_dict(shape)


def body_to_dict(body: Any) -> dict[str, Any]:
    """The file form of a body: a :class:`~collideworld.scenario.BodySpec`, a ``World.body()``
    snapshot (any object with the same attributes) or a ready dict.

    Defaults (angle 0 / identity quaternion, not static, category 1, mask
    all ones) are written only when they differ, to keep lines short.

    Parameters
    ----------
    body : BodySpec, Body or dict
        A dict is copied with numpy values turned into plain ones.

    Returns
    -------
    dict
        JSON-ready: ``id``, ``shape``, ``position`` (D floats), then only
        the fields that differ from their defaults.

    Examples
    --------
    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add(Circle(0.5), position=(1, 2), angle=0.25, id=7)
    7
    >>> body_to_dict(w.body(7))
    {'id': 7, 'shape': {'type': 'circle', 'radius': 0.5}, 'position': [1.0, 2.0], 'angle': 0.25}
    """
    if isinstance(body, Mapping):
        return {k: _plain(v) for k, v in body.items()}
    shape = body.shape
    out: dict[str, Any] = {"id": plain_id(body.id), "shape": shape_dict(shape)}
    if not shape.is_infinite:
        if body.position is None:
            raise InvalidArgumentError(f"body {body.id!r}: a {shape.kind} needs a position")
        out["position"] = _floats(body.position, ("body", body.id, "position"))
        angle = getattr(body, "angle", None)
        if angle is not None and float(angle) != 0.0:
            out["angle"] = _floats(angle, ("body", body.id, "angle"))[0]
        quat = getattr(body, "quaternion", None)
        if quat is not None:
            q = _floats(quat, ("body", body.id, "quaternion"))
            if q != [1.0, 0.0, 0.0, 0.0]:
                out["quaternion"] = q
        if bool(body.static):
            out["static"] = True
    category, mask = int(body.category), int(body.mask)
    if category != 1:
        out["category"] = category
    if mask != UINT32_MAX:
        out["mask"] = mask
    return out


def _add_member(bodies: list[Any], dim: int) -> tuple[list[bytes], int]:
    """The ``"add":[...]`` member of a frame's line, and the version its shapes need (2, 3 or 0).

    The same text as ``_key("add", [body_to_dict(b) for b in bodies])``, made
    faster for the usual body (a ``World.body()`` snapshot or a BodySpec with
    an int id, a finite shape and a float64 position): its entry is put
    together as text (floats by ``float.__repr__``, as the json module
    writes them), and bodies of one shape object (``add_many``) share the
    text of it, made once. A recorder's first frame adds every body.
    """
    shapes: dict[int, tuple[Any, str, int]] = {}  # id(shape) -> (shape, its text, the version it needs)
    texts = []
    v2 = 0
    for body in bodies:
        shape = getattr(body, "shape", None)
        position = getattr(body, "position", None)
        if (isinstance(body, Mapping) or type(body.id) is not int or type(position) is not np.ndarray
                or position.dtype != np.float64 or position.shape != (dim,) or shape is None or shape.is_infinite):
            entry = body_to_dict(body)
            shape_type = entry.get("shape", {}).get("type") if isinstance(entry.get("shape"), Mapping) else None
            v2 = max(v2, _needs(entry["shape"]) if shape_type else 0)
            texts.append(dump_line(entry))
            continue
        known = shapes.get(id(shape))
        if known is None or known[0] is not shape:
            as_dict = shape_dict(shape)
            known = shapes[id(shape)] = (shape, dump_line(as_dict), _needs(as_dict))
        v2 = max(v2, known[2])
        xyz = position.tolist()
        if not all(map(math.isfinite, xyz)):
            body_to_dict(body)  # raises with the usual message
        text = f'{{"id":{body.id},"shape":{known[1]},"position":[{",".join(map(float.__repr__, xyz))}]'
        angle = getattr(body, "angle", None)
        if angle is not None and float(angle) != 0.0:
            text += ',"angle":' + float.__repr__(_floats(angle, ("body", body.id, "angle"))[0])
        quat = getattr(body, "quaternion", None)
        if quat is not None:
            q = _floats(quat, ("body", body.id, "quaternion"))
            if q != [1.0, 0.0, 0.0, 0.0]:
                text += f',"quaternion":{dump_line(q)}'
        if bool(body.static):
            text += ',"static":true'
        category, mask = int(body.category), int(body.mask)
        if category != 1:
            text += f',"category":{category}'
        if mask != UINT32_MAX:
            text += f',"mask":{mask}'
        texts.append(text + "}")
    return [b'"add":[', ",".join(texts).encode("utf-8"), b"]"], v2


def move_to_dict(move: Any) -> dict[str, Any]:
    """The file form of a pose update: a :class:`~collideworld.scenario.MoveSpec` or a ready dict.

    Parameters
    ----------
    move : MoveSpec or dict
        A dict is copied with numpy values turned into plain ones.

    Returns
    -------
    dict
        JSON-ready: ``id`` plus only the fields given (not None).

    Examples
    --------
    >>> from collideworld.scenario import MoveSpec
    >>> move_to_dict(MoveSpec(7, position=(3, 4)))
    {'id': 7, 'position': [3.0, 4.0]}
    >>> move_to_dict(MoveSpec("floor", offset=-1.5))     # a halfplane (version 2)
    {'id': 'floor', 'offset': -1.5}
    """
    if isinstance(move, Mapping):
        return {k: _plain(v) for k, v in move.items()}
    out: dict[str, Any] = {"id": plain_id(move.id)}
    if getattr(move, "normal", None) is not None:
        out["normal"] = _floats(move.normal, ("move", move.id, "normal"))
    if getattr(move, "offset", None) is not None:
        out["offset"] = _floats(move.offset, ("move", move.id, "offset"))[0]
    if move.position is not None:
        out["position"] = _floats(move.position, ("move", move.id, "position"))
    if getattr(move, "angle", None) is not None:
        out["angle"] = _floats(move.angle, ("move", move.id, "angle"))[0]
    if getattr(move, "quaternion", None) is not None:
        out["quaternion"] = _floats(move.quaternion, ("move", move.id, "quaternion"))
    return out


@dataclass(frozen=True)
class MoveBatch:
    """Many pose updates as arrays: the fast form of a frame's ``move`` list.

    :meth:`ScenarioWriter.write_frame` writes it as one ``move`` entry per
    id, with the fields that are not None, exactly as the same updates given
    as :class:`MoveSpec` objects (the :class:`Recorder` uses it with
    ``World.poses``). The numbers are formatted a whole array at a time.

    Parameters
    ----------
    ids : sequence of str or int, length n
        Each id at most once.
    positions : array_like, shape (n, D), optional
    angles : array_like, shape (n,), optional
        2D only.
    quaternions : array_like, shape (n, 4), optional
        3D only, ``[w, x, y, z]``.

    Examples
    --------
    >>> import io, os, tempfile
    >>> import numpy as np
    >>> path = os.path.join(tempfile.mkdtemp(), "moves.jsonl")
    >>> with ScenarioWriter(path, dim=2) as w:
    ...     w.write_frame(move=[MoveBatch(["a", 7], positions=np.array([[1.0, 2.5], [3.0, -0.0]]),
    ...                                   angles=np.array([0.1, 0.0]))])
    >>> print(open(path).read().splitlines()[1])
    {"move":[{"id":"a","position":[1,2.5],"angle":0.1},{"id":7,"position":[3,-0.0],"angle":0}]}
    """

    ids: Sequence[Any]
    positions: ArrayLike | None = None
    angles: ArrayLike | None = None
    quaternions: ArrayLike | None = None


def _id_texts(ids: Sequence[Any]) -> list[str]:
    """The JSON text of each id (validated), in order."""
    ids = list(ids)
    kinds = set(map(type, ids))
    if not kinds <= {int, str}:
        ids = [plain_id(i) for i in ids]  # numpy integers to int; anything else is an error
        kinds = set(map(type, ids))
    if kinds == {int}:
        # one call for all: ints contain no comma to split on
        return json.dumps(ids, separators=(",", ":"))[1:-1].split(",")
    return [encode_basestring(i) if type(i) is str else str(i) for i in ids]


def _row_texts(values: np.ndarray[Any, np.dtype[np.float64]]) -> list[str]:
    """Per row of a finite (n,) or (n, k) array, its numbers as JSON text,
    comma separated: each the shortest decimal text that reads back as
    exactly that float, and integral values without ``.0`` (``3`` for 3.0;
    ``-0.0`` keeps its sign)."""
    flat = np.ascontiguousarray(values, dtype=np.float64)
    if flat.shape[0] == 0:
        return []
    if _orjson is not None:
        text = _orjson.dumps(flat, option=_orjson.OPT_SERIALIZE_NUMPY).decode("ascii")
    else:
        text = json.dumps(flat.tolist(), separators=(",", ":"))  # float.__repr__: also shortest
    # "[a,b,c]" or "[[a,b],[c,d]]"
    rows = text[2:-2].split("],[") if flat.ndim == 2 else text[1:-1].split(",")
    integral = flat == np.trunc(flat)
    if integral.any():  # JSON integers are shorter
        if flat.ndim == 2:
            integral = integral.any(axis=1)
        for i in np.flatnonzero(integral).tolist():
            rows[i] = _without_point_zero(rows[i])
    return rows


def _without_point_zero(row: str) -> str:
    # Below 2**53 a JSON integer reads back as the same float; beyond it both
    # formatters use an exponent and there is no ".0" to drop. "-0.0" stays:
    # "-0" would read back as the integer 0, which has no sign.
    return ",".join(n[:-2] if n.endswith(".0") and n != "-0.0" else n for n in row.split(","))


def _batch_column(values: ArrayLike, shape: tuple[int, ...], field: str,
                  ids: Sequence[Any]) -> np.ndarray[Any, np.dtype[np.float64]]:
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"move batch {field} must be an array of numbers, got {values!r}") from None
    if arr.shape != shape:
        raise InvalidArgumentError(f"move batch {field} must have shape {shape} for {len(ids)} ids, got {arr.shape}")
    if not np.isfinite(arr).all():
        finite = np.isfinite(arr) if arr.ndim == 1 else np.isfinite(arr).all(axis=1)
        row = int(np.flatnonzero(~finite)[0])
        raise InvalidArgumentError(f"move {ids[row]!r} {field} must be finite, got {arr[row].tolist()!r}")
    return arr


def _move_batch_bytes(batch: MoveBatch, dim: int, state: dict[str, Any]) -> bytes | memoryview:
    """The JSON text of a batch's ``move`` entries, comma separated, UTF-8 (empty for none).

    From the compiled loop it is a view of the writer's scratch buffer (not
    copied): valid until the next call with the same ``state``.

    ``state`` is the writer's: the last batch's ids and their texts, and a
    scratch buffer, kept from frame to frame.

    With numba the entries are assembled by the compiled loop of
    :mod:`.compiled_text`; without it by :func:`_move_rows_python`, its twin.
    """
    # A game loop moves the same bodies frame after frame: their ids' text is
    # kept from the last batch. The same tuple again (immutable, so unchanged)
    # costs nothing; an equal list costs one comparison instead of n conversions.
    same_tuple = isinstance(batch.ids, tuple) and batch.ids is state.get("ids_tuple")
    ids = state["ids"] if same_tuple else list(batch.ids)
    n = len(ids)
    columns = []
    for field, values, width, allowed in (("position", batch.positions, dim, True),
                                          ("angle", batch.angles, 0, dim == 2),
                                          ("quaternion", batch.quaternions, 4, dim == 3)):
        if values is None:
            continue
        if not allowed:
            raise InvalidArgumentError(f"move batch {field}s are not allowed in a {dim}D scenario")
        shape = (n, width) if width else (n,)
        columns.append((field, width, _batch_column(values, shape, field + "s", ids)))
    if same_tuple or (state.get("ids") == ids and set(map(type, ids)) <= {int, str}):  # not True == 1
        texts = state["texts"]
    else:
        texts = _id_texts(ids)
        if len(set(texts)) != n:
            first: dict[str, int] = {}
            twice = next(ids[i] for i, text in enumerate(texts) if first.setdefault(text, i) != i)
            raise InvalidArgumentError(f"a move batch names each id at most once, got {twice!r} twice")
        state.update(ids=ids, texts=texts, id_bytes=None,
                     ids_tuple=batch.ids if isinstance(batch.ids, tuple) else None)
    if n == 0:
        return b""
    if not columns:  # ids only: valid entries that change nothing
        return ",".join(f'{{"id":{text}}}' for text in texts).encode("utf-8")
    if not _compiled_assembly():
        return "".join(_move_rows_python(columns, texts))[:-1].encode("utf-8")
    if state["id_bytes"] is None:
        encoded = [text.encode("utf-8") for text in texts]
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum([len(e) for e in encoded], out=offsets[1:])
        # padded: the compiled writer reads text 8 bytes at a time
        state["id_bytes"] = (np.frombuffer(b"".join(encoded) + bytes(_TEXT_SLACK), dtype=np.uint8), offsets)
    id_bytes, id_offsets = state["id_bytes"]
    return _move_rows_compiled(columns, id_bytes, id_offsets, state)


def _gaps(columns: list[tuple[str, int, Any]]) -> list[str]:
    """The constant texts of one entry around its k numbers: before each, then after the last."""
    gaps: list[str] = []
    previous_width = 0  # a list field is closed by the next gap
    for field, width, _ in columns:
        gaps.append(("]" if previous_width else "") + f',"{field}":' + ("[" if width else ""))
        gaps += [","] * (max(width, 1) - 1)
        previous_width = width
    gaps.append(("]" if previous_width else "") + "}")
    return gaps


def _move_rows_compiled(columns: list[tuple[str, int, Any]], id_bytes: np.ndarray[Any, Any],
                        id_offsets: np.ndarray[Any, Any], state: dict[str, Any]) -> memoryview:
    from .compiled_text import MAX_DOUBLE_TEXT, SLACK, write_moves

    if len(columns) == 1 and columns[0][2].flags.c_contiguous:
        matrix = columns[0][2]
    else:
        matrix = np.column_stack([arr for _, _, arr in columns])  # (n, k), C order
    n = matrix.shape[0]
    k = matrix.size // n
    gaps = _gaps(columns)
    gap_bytes = "".join(gaps).encode("ascii")
    gap_offsets = np.zeros(k + 2, dtype=np.int64)
    np.cumsum([len(g) for g in gaps], out=gap_offsets[1:])
    row_start = b'{"id":'
    size = n * k * MAX_DOUBLE_TEXT + int(id_offsets[-1]) + n * (1 + len(row_start) + len(gap_bytes)) + SLACK
    out = state.get("scratch")
    if out is None or len(out) < size:  # kept between frames: no fresh pages to fault in each frame
        out = state["scratch"] = np.empty(max(size, 2 * len(out) if out is not None else 0), dtype=np.uint8)
    used = write_moves(matrix.reshape(-1).view(np.uint64), n, k, id_bytes, id_offsets,
                       np.frombuffer(row_start + bytes(SLACK), dtype=np.uint8),
                       np.frombuffer(gap_bytes + bytes(SLACK), dtype=np.uint8), gap_offsets, out)
    return out.data[:used]  # a view, not copied: the frame's line is written from it


def _move_rows_python(columns: list[tuple[str, int, Any]], texts: list[str]) -> list[str]:
    """The Python twin of :func:`.compiled_text.assemble_moves`, as pieces to join.

    One entry is cut into constant pieces and slots (the id, a field's
    numbers); the pieces of all entries are one list, and each slot is filled
    for every entry at once by a strided slice assignment, so no Python code
    runs per entry.
    """
    n = len(texts)
    # one row's template: constant strings and slots (lists with one text per row)
    template: list[Any] = ['{"id":', texts]
    for field, width, arr in columns:
        template += [f',"{field}":[', _row_texts(arr), "]"] if width else [f',"{field}":', _row_texts(arr)]
    template.append("},")
    row: list[Any] = []  # adjacent constants merged
    for item in template:
        if isinstance(item, str) and row and isinstance(row[-1], str):
            row[-1] += item
        else:
            row.append(item)
    pieces = [item if isinstance(item, str) else "" for item in row] * n
    k = len(row)
    for offset, item in enumerate(row):
        if not isinstance(item, str):
            pieces[offset::k] = item
    return pieces


@functools.lru_cache(maxsize=1)
def _compiled_assembly() -> bool:
    """Whether MoveBatch text is written by the compiled loop: numba imports, and the
    machine is little-endian (the loop packs 8 characters into one 64-bit word)."""
    import sys

    from ..backend import compiled_available

    return sys.byteorder == "little" and compiled_available()


def set_to_dict(change: Any) -> dict[str, Any]:
    """The file form of an in-place change (version 2): a :class:`~collideworld.scenario.SetSpec` or a dict.

    Parameters
    ----------
    change : SetSpec or dict

    Returns
    -------
    dict
        JSON-ready: ``id`` plus only the fields given (not None).

    Examples
    --------
    >>> from collideworld.shapes import Circle
    >>> from collideworld.scenario import SetSpec
    >>> set_to_dict(SetSpec(7, category=2, shape=Circle(0.5)))
    {'id': 7, 'category': 2, 'shape': {'type': 'circle', 'radius': 0.5}}
    """
    if isinstance(change, Mapping):
        return {k: _plain(v) for k, v in change.items()}
    out: dict[str, Any] = {"id": plain_id(change.id)}
    if change.static is not None:
        out["static"] = bool(change.static)
    for key in ("category", "mask"):
        value = getattr(change, key)
        if value is not None:
            out[key] = int(value)
    if change.shape is not None:
        out["shape"] = shape_dict(change.shape)
    return out


def _points(points: Any, what: str) -> list[list[float]]:
    return [_floats(p, what) for p in points]


def _pose_to_dict(pose: Any) -> dict[str, Any]:
    if isinstance(pose, Mapping):
        return {k: _plain(v) for k, v in pose.items()}
    out: dict[str, Any] = {}
    if pose.position is not None:
        out["position"] = _floats(pose.position, "end pose position")
    if pose.angle is not None:
        out["angle"] = _floats(pose.angle, "end pose angle")[0]
    if pose.quaternion is not None:
        out["quaternion"] = _floats(pose.quaternion, "end pose quaternion")
    return out


def distance_to_dict(item: Any) -> dict[str, Any]:
    if isinstance(item, Mapping):
        return {k: _plain(v) for k, v in item.items()}
    if not isinstance(item, ExpectedDistance):
        raise InvalidArgumentError(f"an expect_distance entry must be an ExpectedDistance or a dict, got {item!r}")
    out: dict[str, Any] = {"pair": pair_ids(item.pair), "distance": _floats(item.distance, "distance")[0]}
    if item.points is not None:
        out["points"] = _points(item.points, "expect_distance point")
    return out


def impact_to_dict(item: Any) -> dict[str, Any]:
    if isinstance(item, Mapping):
        return {k: _plain(v) for k, v in item.items()}
    if not isinstance(item, ExpectedImpact):
        raise InvalidArgumentError(f"an expect_impact entry must be an ExpectedImpact or a dict, got {item!r}")
    return {"pair": pair_ids(item.pair), "end_a": _pose_to_dict(item.end_a), "end_b": _pose_to_dict(item.end_b),
            "t": None if item.t is None else _floats(item.t, "t")[0]}


def pair_ids(pair: Any) -> list[str | int]:
    items = sorted(pair, key=_id_key) if isinstance(pair, (builtins.set, frozenset)) else list(pair)
    if len(items) != 2:
        raise InvalidArgumentError(f"a pair must have two ids, got {pair!r}")
    return [plain_id(items[0]), plain_id(items[1])]


def _int_pair_array(expect: Any) -> bool:
    """An (m, 2) array of int64 ids: written as it is (no Python object per pair)."""
    return isinstance(expect, np.ndarray) and expect.dtype == np.int64 and expect.ndim == 2 \
        and expect.shape[1] == 2 and expect.flags.c_contiguous


def _plain_pairs(pairs: list[Any]) -> bool:
    """True when every pair is a tuple or list of two str or int ids, ready for JSON
    as they are (checked with C loops: a recorded frame can hold thousands)."""
    if not pairs or not set(map(type, pairs)) <= {tuple, list} or set(map(len, pairs)) != {2}:
        return False
    firsts, seconds = zip(*pairs, strict=True)
    return set(map(type, firsts)) | set(map(type, seconds)) <= {int, str}


def contact_to_dict(contact: Any) -> dict[str, Any]:
    if isinstance(contact, Mapping):
        return {k: _plain(v) for k, v in contact.items()}
    if isinstance(contact, ExpectedContact):
        pair = list(contact.pair)
    else:  # a world Contact: a, b, normal, depth (and points with manifolds)
        pair = [contact.a, contact.b]
    out: dict[str, Any] = {
        "pair": [plain_id(pair[0]), plain_id(pair[1])],
        "normal": _floats(contact.normal, "contact normal"),
        "depth": _floats(contact.depth, "contact depth")[0],
    }
    if getattr(contact, "points", None) is not None:
        out["points"] = _points(contact.points, "contact point")
    if getattr(contact, "parts", None) is not None:
        out["parts"] = [int(v) for v in contact.parts]
    elif getattr(contact, "part_a", -1) != -1 or getattr(contact, "part_b", -1) != -1:
        out["parts"] = [int(contact.part_a), int(contact.part_b)]  # a world Contact of a compound
    return out


def _key(key: str, value: Any) -> list[bytes]:
    """The pieces of one ``"key":value`` member of a frame line."""
    return [f'"{key}":{dump_line(value)}'.encode()]


def _key_fast(key: str, value: Any) -> list[bytes]:
    """As :func:`_key`, for values of only lists, tuples, str and int: orjson when
    it can (an int beyond 64 bits is a TypeError there), else the json module."""
    if _orjson is not None:
        try:
            return [f'"{key}":'.encode(), _orjson.dumps(value)]
        except TypeError:
            pass
    return _key(key, value)


class ScenarioWriter:
    """Write a scenario file: the header at once, then one line per frame.

    Parameters
    ----------
    path : str or path-like
        Written as gzip if it ends with ``.gz``. An existing file is replaced.
    dim : {2, 3}
    name, description : str, optional
    tolerance : float, optional
        Tolerance of ``expect_contacts`` checks; omitted from the header when
        None (readers then use 1e-6).
    fsync : bool
        Also ``os.fsync`` after every frame, so completed frames survive an
        operating-system crash, not only a killed process (slower).
    compresslevel : int
        zlib level 1 (fastest) to 9 (smallest) for ``.gz`` paths. On
        recorded poses 1 is about 8 times faster than 9 for a file 5 to
        7 % larger (the digits of floats barely compress).
    version : {None, 1, 2}
        The format version of the header. None (the default): version 1
        until a frame uses something only version 2 defines (``set``, a
        plane's move, contact ``points``/``parts``, ``expect_distance``,
        ``expect_impact``, a body that is a capsule, segment or convex
        hull); the header then becomes version 2 before that
        frame is written, so the file is valid at every moment. 1: such a
        frame is an error. 2: version 2 from the start.

    Attributes
    ----------
    frames_written : int
    version : int
        The version the header says now.

    Notes
    -----
    Not thread-safe. Lines are JSON with non-ASCII text kept as UTF-8.
    Turning a version 1 header into version 2 rewrites one byte of a plain
    file in place; a ``.gz`` file is rewritten once (the lines so far,
    recompressed, as a first gzip member; later lines go in a second one).

    Examples
    --------
    >>> import os, tempfile
    >>> from collideworld.scenario import read_scenario
    >>> path = os.path.join(tempfile.mkdtemp(), "scene.jsonl.gz")
    >>> with ScenarioWriter(path, dim=3, name="empty") as w:
    ...     w.write_frame(expect=[])      # one step, checked: no contacts
    ...     w.write_frame()               # one step, not checked
    >>> w.frames_written, w.closed, [frame.expect for frame in read_scenario(path)]
    (2, True, [frozenset(), None])
    """

    def __init__(self, path: str | os.PathLike[str], dim: int, name: str | None = None,
                 description: str | None = None, tolerance: float | None = None, *,
                 fsync: bool = False, compresslevel: int = 9, version: int | None = None):
        if version is not None and (isinstance(version, bool) or version not in SUPPORTED_VERSIONS):
            raise InvalidArgumentError(f"version must be None, 1, 2 or 3, got {version!r}")
        if isinstance(dim, bool) or dim not in (2, 3):
            raise InvalidArgumentError(f"dim must be 2 or 3, got {dim!r}")
        if tolerance is not None:
            if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float, np.floating)) \
                    or not math.isfinite(tolerance) or tolerance <= 0:
                raise InvalidArgumentError(f"tolerance must be a finite number > 0, got {tolerance!r}")
        if type(compresslevel) is not int or not 1 <= compresslevel <= 9:
            raise InvalidArgumentError(f"compresslevel must be an int from 1 to 9, got {compresslevel!r}")
        for key, value in (("name", name), ("description", description)):
            if value is not None and not isinstance(value, str):
                raise InvalidArgumentError(f"{key} must be a str, got {value!r}")
            if value is not None and _SURROGATE.search(value):
                raise _lone_surrogate_error(key, value)
        self.path = check_path(path)
        self.dim = dim
        self.tolerance = DEFAULT_TOLERANCE if tolerance is None else float(tolerance)
        self.frames_written = 0
        self.version = 1 if version is None else version
        self._version_fixed = version is not None
        self._compresslevel = compresslevel
        self._fsync = fsync
        self._batch_state: dict[str, Any] = {}  # the last MoveBatch's ids and their texts; a scratch buffer
        self._raw: BinaryIO = create_output(self.path)
        self._out: Any  # the file itself, or a GzipFile writing into it
        if self.path.endswith(".gz"):
            name_in_gzip = os.path.basename(self.path)[:-3]
            self._out = gzip.GzipFile(filename=name_in_gzip, mode="wb", fileobj=self._raw, mtime=0,
                                      compresslevel=compresslevel)
        else:
            self._out = self._raw
        header: dict[str, Any] = {"collideworld_scenario": self.version, "dim": dim}
        if name is not None:
            header["name"] = name
        if description is not None:
            header["description"] = description
        if tolerance is not None:
            header["tolerance"] = float(tolerance)
        self._write_line(header)

    @property
    def closed(self) -> bool:
        return self._raw.closed

    def _write_line(self, obj: Mapping[str, Any]) -> None:
        self._write_bytes(dump_line(obj).encode("utf-8") + b"\n")

    def _write_bytes(self, line: bytes | list[bytes | memoryview]) -> None:
        """Write one line (bytes, or its pieces in order) with one write, and flush."""
        if self.closed:
            raise ValueError(f"{self.path}: the writer is closed")
        # One write of the whole line, then flush: a kill never leaves a
        # completed frame unwritten (GzipFile.flush is a Z_SYNC_FLUSH). A
        # plain file gets a line's pieces with one os.writev, not joined
        # first: a recorded frame's move text is large, and each copy of it
        # costs memory traffic (and cache space the next step then misses).
        if isinstance(line, list):
            if self._out is self._raw:
                self._writev(line)
                if self._fsync:
                    os.fsync(self._raw.fileno())
                return
            line = b"".join(line)
        self._out.write(line)
        self._out.flush()
        if self._out is not self._raw:
            self._raw.flush()
        if self._fsync:
            os.fsync(self._raw.fileno())

    def _writev(self, pieces: list[bytes | memoryview]) -> None:
        """The pieces at the end of the plain file, one ``os.writev`` (more only if it writes short)."""
        self._raw.flush()  # nothing is buffered after a line; kept in case
        fd = self._raw.fileno()
        done = os.writev(fd, pieces)
        total = sum(len(p) for p in pieces)
        if done < total:  # rare (a full disk, a signal): the rest, from where it stopped
            rest = b"".join(pieces)[done:]
            while rest:
                rest = rest[os.write(fd, rest):]

    def _upgrade_to_v2(self, to: int = 2) -> None:
        """Make the header say version ``to`` (2 or 3; the file so far is valid in it as it is)."""
        if self._version_fixed and to == 3:
            raise InvalidArgumentError(
                f"this frame uses a format version 3 shape (triangle_mesh, heightfield, chain, cylinder, cone, "
                f"or a rounded box, polygon or convex_hull), "
                f"but the writer was made with version={self.version}")
        if self._version_fixed:
            raise InvalidArgumentError(
                "this frame uses a format version 2 feature (set, a plane's move, contact points or parts, "
                "expect_distance, expect_impact, a capsule, segment, convex_hull or compound shape), "
                "but the writer was made with version=1")
        if self.closed:
            raise ValueError(f"{self.path}: the writer is closed")
        where = len(("{" + _VERSION_KEY).encode("utf-8"))  # the header line starts with this key
        if self._out is self._raw:
            self._raw.seek(where)
            self._raw.write(str(to).encode())
            self._raw.seek(0, os.SEEK_END)
        else:
            self._regzip_with_v2_header(where, to)
        self.version = to

    def _regzip_with_v2_header(self, where: int, to: int = 2) -> None:
        """Rewrite a .gz file written so far with the version digit changed (once per file)."""
        import zlib

        self._out.flush()
        self._raw.flush()
        old, self._out = self._out, self._raw
        old.fileobj = None  # discarded unfinished: closing it must not write its trailer into the new file
        with open(self.path, "rb") as f:
            text = zlib.decompressobj(wbits=31).decompress(f.read())  # sync-flushed: every line is there
        assert text[where:where + 1] in (b"1", b"2"), text[:40]
        text = text[:where] + str(to).encode() + text[where + 1:]
        name_in_gzip = os.path.basename(self.path)[:-3]
        self._raw.seek(0)
        self._raw.truncate()
        first = gzip.GzipFile(filename=name_in_gzip, mode="wb", fileobj=self._raw, mtime=0,
                              compresslevel=self._compresslevel)
        first.write(text)
        first.close()  # a complete first member; readers read concatenated members
        self._out = gzip.GzipFile(filename=name_in_gzip, mode="wb", fileobj=self._raw, mtime=0,
                                  compresslevel=self._compresslevel)
        self._raw.flush()

    def write_frame(self, remove: Iterable[Any] = (), add: Iterable[Any] = (),
                    move: Iterable[Any] = (), expect: Iterable[Any] | None = None,
                    expect_contacts: Iterable[Any] | None = None,
                    comment: str | None = None, *, set: Iterable[Any] = (),  # noqa: A002 - the format's key
                    expect_distance: Iterable[Any] | None = None,
                    expect_impact: Iterable[Any] | None = None) -> None:
        """Write one frame (one step) as one line and flush it.

        Parameters
        ----------
        remove : iterable of ids
        add : iterable of BodySpec, ``World.body()`` snapshots or dicts
        move : iterable of MoveSpec, dicts or MoveBatch
            A :class:`MoveBatch` stands for one entry per id, in its order.
        expect : iterable of pairs, optional
            Pairs in contact after the step (tuples, lists or frozensets, or
            an (m, 2) array of int ids); None writes no ``expect`` key
            (nothing is checked), an empty iterable writes ``[]`` (no contacts).
        expect_contacts : iterable, optional
            :class:`ExpectedContact` objects, ``Contact`` objects from a
            world step, or dicts with ``pair``, ``normal``, ``depth`` (and,
            version 2, ``points``, ``parts``).
        comment : str, optional
            Written as the ``_comment`` key, which readers ignore.
        set : iterable of SetSpec or dicts
            In-place changes (version 2).
        expect_distance : iterable of ExpectedDistance or dicts, optional
            Version 2.
        expect_impact : iterable of ExpectedImpact or dicts, optional
            Version 2.

        Raises
        ------
        InvalidArgumentError
            A non-finite number, a bad id, or a version 2 feature in a
            writer made with ``version=1``.

        Examples
        --------
        >>> import os, tempfile
        >>> from collideworld.shapes import Circle
        >>> from collideworld.scenario import BodySpec, SetSpec
        >>> path = os.path.join(tempfile.mkdtemp(), "scene.jsonl")
        >>> with ScenarioWriter(path, dim=2) as w:
        ...     w.write_frame(add=[BodySpec("a", Circle(1.0), (0.0, 0.0))])
        ...     w.version, w.write_frame(set=[SetSpec("a", static=True)]), w.version
        (1, None, 2)
        >>> open(path).readline().rstrip()
        '{"collideworld_scenario":2,"dim":2}'

        Notes
        -----
        Nothing is written when an argument is rejected (and the header
        keeps its version). The line is compact
        JSON (no spaces) and every float is written in the shortest form that
        reads back as exactly the same float.
        """
        self.write_prepared(self.prepare_frame(remove, add, move, comment, set),
                             expect, expect_contacts, expect_distance, expect_impact)

    def prepare_frame(self, remove: Iterable[Any], add: Iterable[Any], move: Iterable[Any],
                       comment: str | None, set: Iterable[Any]  # noqa: A002 - the format's key
                       ) -> tuple[list[Sequence[bytes | memoryview]], int]:
        """The text of a frame's operations (its members before the expectations) and whether
        they need version 2; nothing is written. A :class:`Recorder` makes it before the
        world steps, so a frame the writer refuses never leaves a step unrecorded.
        The text may hold a view of the writer's scratch buffer: write it
        (:meth:`write_prepared`) before preparing another frame."""
        if self.closed:
            raise ValueError(f"{self.path}: the writer is closed")
        try:
            return self._operations(remove, add, move, comment, set)
        except UnicodeEncodeError as exc:  # a str id not met by plain_id (a MoveBatch's, a dict's)
            raise _lone_surrogate_error("a string of this frame", exc.object) from None

    def _operations(self, remove: Iterable[Any], add: Iterable[Any], move: Iterable[Any],
                    comment: str | None, set: Iterable[Any]  # noqa: A002 - the format's key
                    ) -> tuple[list[Sequence[bytes | memoryview]], int]:
        # Each key's text is made in turn, in the format's order; nothing is
        # written until all are made, so a rejected frame leaves no trace. The
        # line is put together once, as bytes: a recorded frame can be large.
        parts: list[Sequence[bytes | memoryview]] = []  # each member's pieces
        if comment is not None:
            parts.append(_key("_comment", str(comment)))
        removes = [plain_id(i) for i in remove]
        if removes:
            parts.append(_key("remove", removes))
        adds = list(add)
        v2: int = 0  # the version the frame needs (True/2: version 2, 3: version 3)
        if adds:
            add_part, v2 = _add_member(adds, self.dim)
            parts.append(add_part)
        sets = [set_to_dict(c) for c in set]
        if sets:
            parts.append(_key("set", sets))
        # a shape only version 2 defines (capsule, segment, convex_hull, compound) makes a version 2 file,
        # one only version 3 defines a version 3 file
        v2 = max([v2, 2 if sets else 0] + [_needs(c["shape"]) for c in sets if isinstance(c.get("shape"), Mapping)])
        moves: list[bytes | memoryview] = []
        for m in move:
            if isinstance(m, MoveBatch):
                # a view of the scratch buffer: an earlier batch's view is copied before it is reused
                moves = [bytes(piece) if isinstance(piece, memoryview) else piece for piece in moves]
                text = _move_batch_bytes(m, self.dim, self._batch_state)
            else:
                entry = move_to_dict(m)
                v2 = v2 or "normal" in entry or "offset" in entry
                text = dump_line(entry).encode()
            if text:
                moves += (b",", text) if moves else (text,)
        if moves:
            parts.append([b'"move":[', *moves, b"]"])
        return parts, v2

    def write_prepared(self, prepared: tuple[list[Sequence[bytes | memoryview]], int],
                        expect: Iterable[Any] | None, expect_contacts: Iterable[Any] | None,
                        expect_distance: Iterable[Any] | None, expect_impact: Iterable[Any] | None) -> None:
        """Add the expectations to a prepared frame and write it as one line."""
        parts, v2 = prepared
        parts = list(parts)
        try:
            v2 = self._expectations(parts, v2, expect, expect_contacts, expect_distance, expect_impact)
        except UnicodeEncodeError as exc:
            raise _lone_surrogate_error("a string of this frame", exc.object) from None
        need = max(2, int(v2)) if v2 else 1
        if need > self.version:
            self._upgrade_to_v2(need)
        pieces: list[bytes | memoryview] = [b"{"]
        for i, part in enumerate(parts):
            pieces += (b",", *part) if i else part
        pieces.append(b"}\n")
        self._write_bytes(pieces)
        self.frames_written += 1

    @staticmethod
    def _expectations(parts: list[Sequence[bytes | memoryview]], v2: int, expect: Iterable[Any] | None,
                      expect_contacts: Iterable[Any] | None, expect_distance: Iterable[Any] | None,
                      expect_impact: Iterable[Any] | None) -> int:
        """Append the expectation members' text to ``parts``; the version the frame needs (0/False: 1)."""
        if expect is not None and _int_pair_array(expect):
            # the Recorder's form for int ids: one text for the whole array
            parts.append([b'"expect":', json.dumps(expect.tolist(), separators=(",", ":")).encode()
                          if _orjson is None else _orjson.dumps(expect, option=_orjson.OPT_SERIALIZE_NUMPY)])
        elif expect is not None:
            pairs = list(expect)
            if isinstance(expect, (builtins.set, frozenset)):
                pairs.sort(key=lambda p: sorted(map(_id_key, p)))
            parts.append(_key_fast("expect", pairs) if _plain_pairs(pairs) else
                         _key("expect", [pair_ids(p) for p in pairs]))
        if expect_contacts is not None:
            contacts = [contact_to_dict(c) for c in expect_contacts]
            v2 = v2 or any("points" in c or "parts" in c for c in contacts)
            parts.append(_key("expect_contacts", contacts))
        if expect_distance is not None:
            parts.append(_key("expect_distance", [distance_to_dict(d) for d in expect_distance]))
            v2 = v2 or True
        if expect_impact is not None:
            parts.append(_key("expect_impact", [impact_to_dict(i) for i in expect_impact]))
            v2 = v2 or True
        return v2

    def write(self, frame: Frame) -> None:
        """Write a :class:`Frame` as read by the reader (copying a file)."""
        self.write_frame(remove=frame.remove, add=frame.add, move=frame.move,
                         expect=frame.expect, expect_contacts=frame.expect_contacts, set=frame.set,
                         expect_distance=frame.expect_distance, expect_impact=frame.expect_impact)

    def close(self) -> None:
        """Finish the file (writes the gzip trailer for ``.gz``). Idempotent."""
        if self.closed:
            return
        try:
            if self._out is not self._raw:
                self._out.close()
        finally:
            self._raw.close()

    def __enter__(self) -> ScenarioWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"ScenarioWriter({self.path!r}, dim={self.dim}, {self.frames_written} frames, {state})"

