"""The Arrow form's column layout and its reader (:class:`ArrowSource`).

A module of its own, below both the text reader (:mod:`.frames`, which
reads an Arrow file through :class:`ArrowSource`) and :mod:`.arrow` (the
Arrow writer, converting and analysing, which read files through
:mod:`.frames`): so neither imports the other both ways. The layout, the
schema and the suffixes live here because the reader checks a file
against them and the writer writes by them. See :mod:`.arrow` for the
form itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from ..errors import MissingExtraError, ScenarioError
from .source import END, TRUNCATED_TAIL, ReaderLimits, dump_line, loads_line

__all__ = ["ARROW_LAYOUT", "ARROW_SUFFIXES", "HEADER_KEY", "JSON_COLUMNS", "LAYOUT_KEY", "LIST_COLUMNS",
           "PLANE_COLUMN", "READ_LAYOUTS", "ArrowSource", "arrow_schema", "decode_moves", "encode_bits",
           "encode_moves", "is_arrow_path", "pyarrow_module"]

#: The version of the column layout below, in the schema's metadata under ``collideworld_arrow``:
#: 3 for an IPC stream (its move poses encoded, see :func:`encode_moves`, and a plane's move in a
#: column of its own, ``move_plane``), 1 for Parquet (plain float64, as every stream of collideworld
#: 0.8.0). Layout 2 (the encoding, with the plane fields in every move entry) is read, no longer written.
ARROW_LAYOUT = 3
#: The layouts this reader reads.
READ_LAYOUTS = (1, 2, 3)
#: Layout 3's column of the half-plane and plane moves (``normal``, ``offset``), apart from the
#: pose moves so that a move entry carries no all-null plane fields.
PLANE_COLUMN = "move_plane"
ARROW_SUFFIXES = (".arrows", ".parquet")
LAYOUT_KEY = b"collideworld_arrow"
HEADER_KEY = b"collideworld_header"
#: the frame keys whose value is stored as its JSON text
JSON_COLUMNS = ("expect_contacts", "expect_distance", "expect_impact")
LIST_COLUMNS = ("remove", "add", "set", "move", "expect")


def pyarrow_module() -> Any:
    """The ``pyarrow`` module, or a :class:`MissingExtraError` naming the extra that installs it.

    Examples
    --------
    >>> pyarrow_module().__name__
    'pyarrow'
    """
    try:
        import pyarrow
    except ImportError:
        raise MissingExtraError("the Arrow form of scenario files needs pyarrow: "
                                "pip install 'collideworld[arrow]'") from None
    return pyarrow


def is_arrow_path(path: Any) -> bool:
    """Whether ``path`` names the Arrow form (``.arrows`` or ``.parquet``), by its suffix.

    Examples
    --------
    >>> is_arrow_path("run.arrows"), is_arrow_path("run.parquet"), is_arrow_path("run.jsonl")
    (True, True, False)
    """
    return isinstance(path, (str, os.PathLike)) and os.fspath(path).endswith(ARROW_SUFFIXES)


def arrow_schema(dim: int, header: Mapping[str, Any] | None = None, layout: int = ARROW_LAYOUT) -> Any:
    """The Arrow schema of a ``dim``-D scenario in ``layout`` (with ``header`` and ``layout`` as
    metadata when ``header`` is given). Layouts 1 and 2 have the same columns; layout 3's ``move``
    entries have no ``normal`` and ``offset``, which a plane's move has in the ``move_plane`` column.

    Examples
    --------
    >>> print(arrow_schema(2).field("move").type)
    list<item: struct<id: struct<int: int64, str: string>, position: fixed_size_list<item: double>[2], \
angle: double>>
    >>> print(arrow_schema(2).field("move_plane").type)
    list<item: struct<at: int32, id: struct<int: int64, str: string>, normal: fixed_size_list<item: double>[2], \
offset: double>>
    >>> print(arrow_schema(2, layout=2).field("move").type)
    list<item: struct<id: struct<int: int64, str: string>, position: fixed_size_list<item: double>[2], \
angle: double, normal: fixed_size_list<item: double>[2], offset: double>>
    """
    pa = pyarrow_module()
    ident = pa.struct([("int", pa.int64()), ("str", pa.string())])
    point = pa.list_(pa.float64(), dim)
    rotation = ("angle", pa.float64()) if dim == 2 else ("quaternion", pa.list_(pa.float64(), 4))
    add = pa.struct([("id", ident), ("shape", pa.string()), ("position", point), rotation,
                     ("static", pa.bool_()), ("category", pa.int64()), ("mask", pa.int64())])
    change = pa.struct([("id", ident), ("static", pa.bool_()), ("category", pa.int64()), ("mask", pa.int64()),
                        ("shape", pa.string())])
    plane = [("normal", point), ("offset", pa.float64())]
    pair = pa.struct([("a", ident), ("b", ident)])
    fields = [pa.field("frame", pa.int64(), nullable=False), ("remove", pa.list_(ident)), ("add", pa.list_(add)),
              ("set", pa.list_(change))]
    if layout >= 3:
        # ``at``: the entry's index in the frame's move list of the text form (see _frame_object)
        fields += [("move", pa.list_(pa.struct([("id", ident), ("position", point), rotation]))),
                   (PLANE_COLUMN, pa.list_(pa.struct([("at", pa.int32()), ("id", ident), *plane])))]
    else:
        fields += [("move", pa.list_(pa.struct([("id", ident), ("position", point), rotation, *plane])))]
    fields += [("expect", pa.list_(pair))]
    fields += [(name, pa.string()) for name in JSON_COLUMNS]
    metadata = None
    if header is not None:
        metadata = {LAYOUT_KEY: str(layout).encode(), HEADER_KEY: dump_line(dict(header)).encode()}
    return pa.schema(fields, metadata=metadata)


def _plain_id(value: Any, where: str) -> Any:
    if not isinstance(value, dict) or set(value) != {"int", "str"}:
        raise _BadValue(f"{where}: an id must be a struct of 'int' and 'str', got {value!r}")
    i, s = value["int"], value["str"]
    if (i is None) == (s is None):
        raise _BadValue(f"{where}: an id must have exactly one of 'int' and 'str' set, got {value!r}")
    return i if s is None else s


class _BadValue(Exception):
    pass


def _entry(value: Any, column: str, k: int) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _BadValue(f"{column}[{k}]: an entry must be a struct, got null")
    return value


def _frame_object(row: dict[str, Any], dim: int) -> dict[str, Any]:
    """The text form's JSON object of one Arrow row: a null column is an absent key, as in the text."""
    obj: dict[str, Any] = {}
    for name in LIST_COLUMNS:
        value = row[name]
        if value is None:
            continue
        if name == "remove":
            obj[name] = [_plain_id(v, f"remove[{k}]") for k, v in enumerate(value)]
        elif name == "expect":
            obj[name] = [[_plain_id(_entry(p, name, k)["a"], f"expect[{k}] a"),
                          _plain_id(_entry(p, name, k)["b"], f"expect[{k}] b")] for k, p in enumerate(value)]
        else:
            entries = []
            for k, entry in enumerate(value):
                entry = _entry(entry, name, k)
                out = {key: v for key, v in entry.items() if v is not None}
                out["id"] = _plain_id(entry["id"], f"{name}[{k}] id")
                if "shape" in out:
                    try:
                        out["shape"] = loads_line(out["shape"])
                    except ValueError as exc:
                        raise _BadValue(f"{name}[{k}] shape: not valid JSON text ({exc})") from None
                entries.append(out)
            obj[name] = entries
    planes = row.get(PLANE_COLUMN)
    if planes:
        obj["move"] = _with_planes(obj.get("move"), planes)
    for name in JSON_COLUMNS:
        if row[name] is not None:
            try:
                obj[name] = loads_line(row[name])
            except ValueError as exc:
                raise _BadValue(f"{name}: not valid JSON text ({exc})") from None
    return obj


def _with_planes(moves: list[dict[str, Any]] | None, planes: list[Any]) -> list[dict[str, Any]]:
    """A frame's move list of the text form: the ``move`` entries with each ``move_plane`` entry put
    at its index ``at`` (layout 3)."""
    if moves is None:
        raise _BadValue(f"{PLANE_COLUMN}: {len(planes)} entries for a frame whose 'move' is null "
                        "(a frame with plane moves has a 'move' list, empty if it moves nothing else)")
    total = len(moves) + len(planes)
    out: list[dict[str, Any]] = []
    rest = iter(moves)
    last = -1
    for k, plane in enumerate(planes):
        plane = _entry(plane, PLANE_COLUMN, k)
        at = plane["at"]
        if at is None or not last < at < total:
            raise _BadValue(f"{PLANE_COLUMN}[{k}] at: must rise and lie in 0..{total - 1} (the frame's "
                            f"{total} moves), got {at!r}" + (f" after {last}" if last >= 0 else ""))
        while len(out) < at:
            out.append(next(rest))
        entry = {key: v for key, v in plane.items() if v is not None and key != "at"}
        entry["id"] = _plain_id(plane["id"], f"{PLANE_COLUMN}[{k}] id")
        out.append(entry)
        last = at
    out.extend(rest)
    return out


class ArrowSource:
    """The Arrow form as the reader's source of JSON objects (the interface of :class:`.source.LineSource`).

    Yields the header (from the schema's metadata), then one text-form
    frame object per row, checking the layout's version, every column's
    name and type and the frame numbers first. Errors name the file, the
    batch, the frame and the column.

    Examples
    --------
    >>> import os, tempfile
    >>> from collideworld.scenario.arrow import ArrowScenarioWriter
    >>> path = os.path.join(tempfile.mkdtemp(), "empty.arrows")
    >>> with ArrowScenarioWriter(path, dim=3) as w:
    ...     w.write_frame(expect=[])
    >>> source = ArrowSource(path, ReaderLimits(), ignore_truncated_tail=False)
    >>> source.next_value(), source.next_value(), source.next_value() is END
    (({'collideworld_scenario': 3, 'dim': 3}, True), ({'expect': []}, True), True)
    >>> print(source.error("move: unknown id 'b4'"))    # doctest: +ELLIPSIS
    /...empty.arrows: batch 1, frame 1: move: unknown id 'b4'
    >>> source.close()
    """

    def __init__(self, path: str, limits: ReaderLimits, ignore_truncated_tail: bool):
        self.path = path
        self.limits = limits
        self.ignore_truncated_tail = ignore_truncated_tail
        self.line_no = 0
        self._batch_no = 0
        self._rows: Iterator[dict[str, Any]] = iter(())
        self._header_given = False
        self._file: Any = None
        self._reader: Any = None
        self._parquet: Any = None
        self._dim = 0
        self._layout = 1
        self._open()

    # the location of a problem: the frame's equivalent text line is ``line_no``; the message names the batch
    def error(self, reason: str, line: int | None = None, *, frame: bool = True) -> ScenarioError:
        """``frame=False`` for a problem of the whole batch (its bytes, its schema): no frame of it was read,
        so none is named (the last frame read belongs to the batch before)."""
        line = self.line_no if line is None else line
        where = f"batch {self._batch_no}" if self._batch_no else "schema"
        if line > 1 and frame:
            where += f", frame {line - 1}"
        return ScenarioError(f"{where}: {reason}", self.path)

    def _open(self) -> None:
        pa = pyarrow_module()
        try:
            self._file = open(self.path, "rb")  # noqa: SIM115 - closed in close()
        except FileNotFoundError:
            raise ScenarioError("no such file", self.path) from None
        except IsADirectoryError:
            raise ScenarioError("is a directory, not a scenario file", self.path) from None
        except OSError as exc:
            raise ScenarioError(f"cannot open: {exc.strerror or exc}", self.path) from None
        try:
            if self.path.endswith(".parquet"):
                import pyarrow.parquet as pq

                self._parquet = pq.ParquetFile(self._file)
                schema = self._parquet.schema_arrow
            else:
                self._reader = pa.ipc.open_stream(self._file)
                schema = self._reader.schema
        except (pa.ArrowException, OSError, ValueError, MemoryError) as exc:
            self.close()
            kind = "Parquet file" if self.path.endswith(".parquet") else "IPC stream"
            raise ScenarioError(f"schema: not a readable Arrow {kind} (truncated or corrupted): {exc}",
                                self.path) from None
        self._schema = schema

    def _check_schema(self) -> Any:
        """The header object, once the schema's metadata and columns are checked against the layout."""
        meta = self._schema.metadata or {}
        layout = meta.get(LAYOUT_KEY)
        if layout is None:
            raise self.error("the schema has no 'collideworld_arrow' metadata: not a collideworld scenario")
        if layout not in [str(k).encode() for k in READ_LAYOUTS]:
            raise self.error(f"the schema says Arrow layout {layout.decode('utf-8', 'replace')!r}, but this reader "
                             f"reads layouts {', '.join(map(str, READ_LAYOUTS[:-1]))} and {READ_LAYOUTS[-1]}: "
                             "read it with a newer collideworld")
        self._layout = int(layout)
        try:
            header = loads_line(meta.get(HEADER_KEY, b"").decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise self.error(f"the header metadata is not valid JSON text ({exc})") from None
        dim = header.get("dim") if isinstance(header, dict) else None
        if dim not in (2, 3) or isinstance(dim, bool):
            return header  # the header's own checks say what is wrong
        expected = arrow_schema(dim, layout=self._layout)
        got_names = self._schema.names
        for field in expected:
            if field.name not in got_names:
                raise self.error(f"column {field.name!r} is missing (expected {field.type})")
            got = self._schema.field(field.name).type
            if got != field.type:
                raise self.error(f"column {field.name!r} has type {got}, expected {field.type}")
        extra = [n for n in got_names if n not in expected.names]
        if extra:
            raise self.error(f"unknown column {extra[0]!r} (the layout has {', '.join(expected.names)})")
        self._dim = dim
        return header

    def _next_batch(self) -> Any:
        pa = pyarrow_module()
        try:
            if self._parquet is not None:
                if self._batch_no >= self._parquet.num_row_groups:
                    return None
                batch = self._parquet.read_row_group(self._batch_no)
            else:
                batch = self._reader.read_next_batch()
        except StopIteration:
            return None
        except (pa.ArrowException, OSError, ValueError, MemoryError) as exc:
            self._batch_no += 1
            at_end = self._file is not None and self._file.tell() >= os.fstat(self._file.fileno()).st_size
            if at_end and self.ignore_truncated_tail:
                return TRUNCATED_TAIL
            if at_end:
                where = _truncated_column(self.path, self._batch_no, self._schema, self.line_no)
                raise self.error(f"the batch is truncated (the file ends inside it){where}: {exc}",
                                 frame=False) from None
            raise self.error(f"the batch is corrupted: {exc}", frame=False) from None
        self._batch_no += 1
        return batch

    def next_value(self) -> Any:
        if not self._header_given:
            self._header_given = True
            self.line_no = 1
            try:
                return self._check_schema(), True
            except UnicodeDecodeError as exc:  # a damaged name or type in the schema
                raise self.error(f"the schema is corrupted (text that is not UTF-8: {exc})") from None
        while True:
            row = next(self._rows, None)
            if row is not None:
                break
            batch = self._next_batch()
            if batch is None or batch is TRUNCATED_TAIL:
                return END if batch is None else TRUNCATED_TAIL
            self._rows = self._batch_rows(batch)
        self.line_no += 1
        if self.line_no - 1 > self.limits.max_frames:
            raise self.error(f"more than the limit of {self.limits.max_frames} frames (max_frames)")
        if row["frame"] != self.line_no - 1:
            raise self.error(f"column 'frame': frame numbers must count 1, 2, 3, ..., got {row['frame']!r} "
                             f"where {self.line_no - 1} was due")
        try:
            return _frame_object(row, self._dim), True
        except _BadValue as exc:
            raise self.error(str(exc)) from None

    def _batch_rows(self, batch: Any) -> Iterator[dict[str, Any]]:
        if self._dim == 0:
            raise self.error("the header's dim must be 2 or 3 before any frame")
        if batch.schema != self._schema and not batch.schema.equals(self._schema, check_metadata=False):
            raise self.error(f"the batch's schema differs from the stream's: {batch.schema}", frame=False)
        pa = pyarrow_module()
        try:
            # every offset and length checked before a value is read: a damaged offset must not read past a buffer
            batch.validate(full=True)
            if self._layout >= 2:
                batch = batch.set_column(batch.schema.get_field_index("move"), batch.schema.field("move"),
                                         decode_moves(batch.column("move"), self._layout))
            rows = batch.to_pylist()
        except (pa.ArrowException, ValueError, TypeError, OverflowError, MemoryError) as exc:
            raise self.error(f"the batch's values cannot be read: {exc}", frame=False) from None
        return iter(rows)

    @property
    def bytes_read(self) -> int:
        try:
            return int(self._file.tell()) if self._file is not None else 0
        except (OSError, ValueError):
            return 0

    def check_gzip_end(self) -> None:
        """Nothing to check: there is no gzip layer (the reader's interface)."""

    def close(self) -> None:
        f, self._file = self._file, None
        if f is not None:
            f.close()


# -- where a cut stream ends: the IPC message of the truncated batch, read by hand ------------------------
#
# pyarrow says only that a message body is shorter than announced. The stream format (Arrow's
# "IPC streaming format": each message is 0xFFFFFFFF, an int32 metadata size, a flatbuffer ``Message``
# whose ``RecordBatch`` header lists every buffer's (offset, length) in the body, then the body) tells
# which buffer the file ends in, and buffers come column by column, depth first, in the schema's order.


def _u32(data: bytes, at: int) -> int:
    return int.from_bytes(data[at:at + 4], "little")


def _flat_field(data: bytes, table: int, index: int) -> int:
    """The position of field ``index`` of the flatbuffer table at ``table`` (0 when absent)."""
    vtable = table - int.from_bytes(data[table:table + 4], "little", signed=True)
    entry = 4 + 2 * index
    if entry >= int.from_bytes(data[vtable:vtable + 2], "little"):
        return 0
    offset = int.from_bytes(data[vtable + entry:vtable + entry + 2], "little")
    return table + offset if offset else 0


def _buffer_columns(schema: Any) -> list[str]:
    """The column (``name`` or ``name.field``) of each buffer of a record batch of ``schema``, in order."""
    pa = pyarrow_module()
    out: list[str] = []

    def walk(typ: Any, name: str) -> None:
        if pa.types.is_null(typ):
            return
        if pa.types.is_struct(typ):
            out.append(name)
            for child in typ:
                walk(child.type, f"{name}.{child.name}")
        elif pa.types.is_fixed_size_list(typ):
            out.append(name)
            walk(typ.value_type, name)
        elif pa.types.is_list(typ):
            out.extend([name, name])
            walk(typ.value_type, name)
        elif pa.types.is_string(typ) or pa.types.is_binary(typ):
            out.extend([name, name, name])
        else:
            out.extend([name, name])

    for field in schema:
        walk(field.type, field.name)
    return out


def _truncated_column(path: str, batch_no: int, schema: Any, first_frame: int) -> str:
    """Where in record batch ``batch_no`` (1-based; its first frame ``first_frame``) a stream cut short
    ends, as text for the error: the column whose buffer the file ends in, or the message header; ""
    when the stream cannot be walked that far (then pyarrow's message says the rest)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        at, seen = 0, 0
        while at + 8 <= len(data):
            size = _u32(data, at)
            at += 4
            if size == 0xFFFFFFFF:
                size = _u32(data, at)
                at += 4
            if size == 0:
                return ""
            meta = data[at:at + size]
            if len(meta) < size:
                return " in its message header, before any column" if seen + 1 == batch_no else ""
            message = _u32(meta, 0)
            kind_at, header_at, length_at = (_flat_field(meta, message, k) for k in (1, 2, 3))
            body = int.from_bytes(meta[length_at:length_at + 8], "little") if length_at else 0
            start = at + size
            if kind_at and meta[kind_at] == 3:  # MessageHeader.RecordBatch
                seen += 1
                if seen == batch_no:
                    batch = header_at + _u32(meta, header_at)
                    rows_at, buffers_at = _flat_field(meta, batch, 0), _flat_field(meta, batch, 2)
                    rows = int.from_bytes(meta[rows_at:rows_at + 8], "little") if rows_at else 0
                    vector = buffers_at + _u32(meta, buffers_at)
                    have = len(data) - start
                    names = _buffer_columns(schema)
                    for k in range(min(_u32(meta, vector), len(names))):
                        offset, length = (int.from_bytes(meta[vector + 4 + 16 * k + 8 * j:vector + 12 + 16 * k + 8 * j],
                                                         "little") for j in (0, 1))
                        if length and offset + length > have:
                            column, _, field = names[k].partition(".")
                            what = f"column {column!r}" + (f", field {field!r}" if field else "")
                            return (f" in {what} (frames {first_frame}-{first_frame + rows - 1}; the column's "
                                    f"buffer at bytes {offset}-{offset + length} of the {body}-byte body, "
                                    f"the file holds {have} of them)")
                    return f" after its last column (the file holds {have} of the {body}-byte body)"
            at = start + body
    except (OSError, IndexError, ValueError, MemoryError):
        pass
    return ""


_ENCODED_FIELDS = ("position", "angle", "quaternion")


def _delta_frames(move: Any, field: Any) -> list[tuple[int, int, int]]:
    """(start, start of the previous frame, count) of each frame of a batch's move column whose
    ``field`` values are stored as differences: the frame and the one before it in the batch both
    have a move list, of the same ids in the same order (at least one), and ``field`` set on every
    entry of both. Read from the ids and the validity only, which the encoding leaves alone."""
    offsets = move.offsets.to_numpy()
    has_list = move.is_valid().to_numpy(zero_copy_only=False)
    ids = move.values.field("id")
    out = []
    for i in range(1, len(move)):
        start, before = int(offsets[i]), int(offsets[i - 1])
        n = int(offsets[i + 1]) - start
        if (n < 1 or start - before != n or not (has_list[i] and has_list[i - 1])
                or field.slice(start, n).null_count or field.slice(before, n).null_count
                or not ids.slice(start, n).equals(ids.slice(before, n))):
            continue
        out.append((start, before, n))
    return out


def _float_bits(field: Any) -> tuple[np.ndarray[Any, Any], int]:
    """The bits of every float64 slot of ``field`` (a double or fixed-size list array; null slots
    included) as a fresh uint64 array of shape (len, width), and the width."""
    is_list = hasattr(field.type, "list_size")
    width = field.type.list_size if is_list else 1
    values = field.values.slice(field.offset * width, len(field) * width) if is_list else field
    count = len(values)
    buffer = values.buffers()[1]
    if buffer is None:
        bits = np.zeros(count, dtype="<u8")
    else:
        bits = np.frombuffer(buffer, dtype="<u8", count=count, offset=values.offset * 8).copy()
    return bits.reshape(len(field), width), width


def _float_field(bits: np.ndarray[Any, Any], like: Any) -> Any:
    """A float array of the type and validity of ``like`` whose slots hold ``bits``."""
    pa = pyarrow_module()
    flat = pa.array(bits.reshape(-1).view("<f8"))
    mask = like.is_null() if like.null_count else None
    if hasattr(like.type, "list_size"):
        if mask is None:
            return pa.FixedSizeListArray.from_arrays(flat, like.type.list_size)
        # the validity bitmap built here: from_arrays takes a mask only from pyarrow 16 (the extra allows 15)
        valid = pa.py_buffer(np.packbits(~mask.to_numpy(zero_copy_only=False), bitorder="little"))
        return pa.Array.from_buffers(like.type, len(like), [valid], children=[flat])
    return flat if mask is None else pa.array(bits.reshape(-1).view("<f8"), mask=mask.to_numpy(zero_copy_only=False))


def _recode_moves(move: Any, encode: bool, layout: int) -> Any:
    """A batch's move column with its poses encoded (as ``layout``, 2 or 3, stores them) or decoded back."""
    pa = pyarrow_module()
    child = move.values
    fields = list(child.type)
    children = [child.field(f.name) for f in fields]
    for k, f in enumerate(fields):
        if f.name not in _ENCODED_FIELDS:
            continue
        field = children[k]
        bits, width = _float_bits(field)
        deltas = _delta_frames(move, field)
        flat = bits.reshape(-1)
        if encode:
            bits = encode_bits(bits, deltas, layout)
        else:
            planes = flat.view(np.uint8).reshape(8, -1)
            raw = np.empty(len(flat) * 8, dtype=np.uint8)
            for plane in range(8):
                raw[plane::8] = planes[plane]
            bits = raw.view("<u8").reshape(len(field), width)
            if layout >= 3:
                bits = _unzigzag(bits)
            repeated = {start: before for start, before, _ in deltas}
            for start, before, n in deltas:  # in frame order: the references are decoded first
                if layout >= 3 and before in repeated:  # a second difference
                    older = repeated[before]
                    bits[start:start + n] += 2 * bits[before:before + n] - bits[older:older + n]
                else:
                    bits[start:start + n] += bits[before:before + n]
        children[k] = _float_field(bits, field)
    mask = child.is_null() if child.null_count else None
    child = pa.StructArray.from_arrays(children, fields=fields, mask=mask)
    list_mask = move.is_null() if move.null_count else None
    return pa.ListArray.from_arrays(move.offsets, child, type=move.type, mask=list_mask)


def _unzigzag(bits: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The two's complement bits of zigzag-coded values: 2k -> k, 2k + 1 -> -k - 1."""
    one = np.uint64(1)
    out: np.ndarray[Any, Any] = (bits >> one) ^ (-(bits & one).view(np.int64)).view(np.uint64)
    return out


def encode_bits(bits: np.ndarray[Any, Any], deltas: Iterable[tuple[int, int, int]],
                layout: int = ARROW_LAYOUT) -> np.ndarray[Any, Any]:
    """The stored form (layouts 2 and 3) of one field's float64 bits in a batch.

    ``bits`` is a C-contiguous uint64 array (entries, width), overwritten with the differences;
    ``deltas`` holds (start, start of the previous frame, count) in entries for each repeated frame,
    in frame order. Returns a new array of the shape of ``bits``: the byte planes.

    Examples
    --------
    Layout 2 stores a repeated frame's first differences; layout 3 the second difference when the
    previous frame is repeated too, every value zigzag-coded (2k for k >= 0, -2k - 1 for k < 0):

    >>> frames = [[0x0102], [0x0105], [0x0109]]    # three frames of one entry: steps of 3, then 4
    >>> deltas = [(1, 0, 1), (2, 1, 1)]
    >>> def planes(stored):   # byte planes 0 and 1 of the stored values
    ...     return stored.view(np.uint8).reshape(8, -1)[:2].tolist()
    >>> planes(encode_bits(np.array(frames, dtype=np.uint64), deltas, 2))     # 0x0102, 3, 4
    [[2, 3, 4], [1, 0, 0]]
    >>> planes(encode_bits(np.array(frames, dtype=np.uint64), deltas, 3))     # zigzag of 0x0102, 3, 1
    [[4, 6, 2], [2, 0, 0]]
    """
    deltas = list(deltas)
    # differences against the original values, last frame first so each still sees its reference
    for start, before, n in reversed(deltas):
        bits[start:start + n] -= bits[before:before + n]
    if layout >= 3:
        # Second differences where the previous frame is repeated too (its first difference is its
        # stored value now): bodies that keep their velocity give zeros, changing ones the change only.
        # Then zigzag (as Protocol Buffers' sint64), so a small negative difference has high bytes of 0
        # like a small positive one, not of 0xff: the byte planes keep the sign in the lowest bit.
        repeated = {start for start, _, _ in deltas}
        for start, before, n in reversed(deltas):
            if before in repeated:
                bits[start:start + n] -= bits[before:before + n]
        signed = bits.view(np.int64)
        bits = ((signed << 1) ^ (signed >> 63)).view(np.uint64)
    flat = bits.reshape(-1)
    planes = np.empty((8, len(flat)), dtype=np.uint8)
    raw = flat.view(np.uint8)
    for plane in range(8):  # a strided copy per plane: numpy's 2D byte transpose is 3x slower
        planes[plane] = raw[plane::8]
    out: np.ndarray[Any, Any] = planes.reshape(-1).view("<u8").reshape(bits.shape)
    return out


def encode_moves(move: Any, layout: int = ARROW_LAYOUT) -> Any:
    """A batch's ``move`` column with its poses encoded as ``layout`` (2 or 3) stores them (differences,
    byte planes).

    Examples
    --------
    >>> pa = pyarrow_module()
    >>> move_type = arrow_schema(2).field("move").type
    >>> move = pa.array([[{"id": {"int": 1, "str": None}, "position": [1.5, -0.0], "angle": 0.25}]] * 2,
    ...                 type=move_type)
    >>> decode_moves(encode_moves(move)).equals(move)
    True
    """
    return _recode_moves(move, encode=True, layout=layout)


def decode_moves(move: Any, layout: int = ARROW_LAYOUT) -> Any:
    """The plain ``move`` column of a ``layout`` (2 or 3) batch's encoded one: every float bit for bit.

    Examples
    --------
    >>> pa = pyarrow_module()
    >>> move_type = arrow_schema(2).field("move").type
    >>> move = pa.array([[{"id": {"int": 1, "str": None}, "position": [1.5, -0.0], "angle": 0.25}]] * 2,
    ...                 type=move_type)
    >>> decode_moves(encode_moves(move)).equals(move)
    True
    """
    return _recode_moves(move, encode=False, layout=layout)
