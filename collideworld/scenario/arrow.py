"""The Apache Arrow form of the scenario format: an IPC stream (``.arrows``) or Parquet (``.parquet``).

The same content as the text form (``docs/scenario-format.md``, section
"The Arrow form"): the header, and one row per frame with its ``remove``,
``add``, ``set``, ``move`` and ``expect`` lists as list columns (poses as
fixed-size float64 lists, every id as one struct column of an int and a
string field, exactly one of them set) and the detailed expectations as
their JSON text. Frames come in record batches (Parquet: row groups) of
consecutive frames; a recorder writes one batch per ``batch_frames``
frames, so a crash leaves every batch written before it readable. A stream
stores its move poses encoded (layout 3: each value's bits as the
difference from the previous frame's, or the second difference, when
frames move the same ids, zigzag-coded, in byte planes; about 7x smaller
once compressed for bodies moving steadily) and a plane's move in a column
of its own; Parquet keeps them plain (layout 1, as every stream of 0.8.0).
Layouts 1, 2 (streams of 0.9.0) and 3 read.

Reading turns each row back into the text form's JSON object and runs it
through the same checks as a text line (:mod:`.frames`): a file that is
valid in one form is valid in the other, and an error names the batch,
the frame and the column, e.g. ``scene.arrows: batch 2, frame 37: move:
unknown id 'b4'``. Needs ``pyarrow`` (the ``arrow`` extra).

Examples
--------
>>> import os, tempfile
>>> from collideworld.shapes import Circle
>>> from collideworld.scenario import BodySpec, read_scenario
>>> path = os.path.join(tempfile.mkdtemp(), "scene.arrows")
>>> with ArrowScenarioWriter(path, dim=2) as w:
...     w.write_frame(add=[BodySpec("a", Circle(1.0), (0.0, 0.0)), BodySpec(7, Circle(1.0), (1.5, 0.0))],
...                   expect=[("a", 7)])
>>> [(f.number, [b.id for b in f.add], f.expect == {frozenset({"a", 7})}) for f in read_scenario(path)]
[(1, ['a', 7], True)]
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from ..errors import InvalidArgumentError
from .arrow_source import (
    ARROW_LAYOUT,
    ARROW_SUFFIXES,
    PLANE_COLUMN,
    ArrowSource,
    arrow_schema,
    encode_bits,
    encode_moves,
    is_arrow_path,
)
from .arrow_source import JSON_COLUMNS as _JSON_COLUMNS  # the writer's names, as before the layout moved
from .arrow_source import LIST_COLUMNS as _LIST_COLUMNS
from .arrow_source import pyarrow_module as _pa
from .schema import DEFAULT_TOLERANCE, FORMAT_VERSION, SUPPORTED_VERSIONS
from .source import END, TRUNCATED_TAIL, ReaderLimits, check_path, dump_line
from .writer import (
    MoveBatch,
    body_to_dict,
    contact_to_dict,
    distance_to_dict,
    impact_to_dict,
    move_to_dict,
    pair_ids,
    plain_id,
    set_to_dict,
    shape_dict,
)

__all__ = ["ARROW_LAYOUT", "ARROW_SUFFIXES", "ArrowScenarioWriter", "ArrowSource", "arrow_schema", "convert",
           "frames_table", "contacts_table", "is_arrow_path"]


def _ident(value: Any) -> dict[str, Any]:
    value = plain_id(value)
    return {"int": value, "str": None} if isinstance(value, int) else {"int": None, "str": value}


def _arrow_entry(entry: dict[str, Any], shape_text: str | None = None) -> dict[str, Any]:
    """A text-form list entry (add, set, move) with its id as the id struct and its shape as JSON
    text (``shape_text`` when the caller has it already)."""
    out = dict(entry)
    out["id"] = _ident(entry["id"])
    if "shape" in out:
        out["shape"] = dump_line(out["shape"]) if shape_text is None else shape_text
    return out


def _add_entries(bodies: Iterable[Any]) -> list[dict[str, Any]]:
    """The ``add`` entries of bodies: each distinct shape object's JSON text is made once (the bodies
    of one ``add_many`` share their shape: 2,000 of them would otherwise make 2,000 equal texts)."""
    texts: dict[int, tuple[Any, str]] = {}  # id(shape) -> (shape, text); the shape held, so its id stays its own
    out = []
    for body in bodies:
        entry = body_to_dict(body)
        shape = None if isinstance(body, Mapping) else getattr(body, "shape", None)
        if shape is None:
            out.append(_arrow_entry(entry))
            continue
        known = texts.get(id(shape))
        if known is None:
            known = texts[id(shape)] = (shape, dump_line(entry["shape"]))
        out.append(_arrow_entry(entry, known[1]))
    return out


class _AddColumns:
    """A frame's add entries already in columns (:meth:`ArrowScenarioWriter.add_columns`)."""

    __slots__ = ("entries",)

    def __init__(self, entries: Any):
        self.entries = entries


class _LazyMoves:
    """One frame's moves (a MoveBatch) until the flush: the id struct array and float64 copies."""

    __slots__ = ("ids", "positions", "rotation")

    def __init__(self, ids: Any, positions: np.ndarray[Any, Any] | None, rotation: np.ndarray[Any, Any] | None):
        self.ids, self.positions, self.rotation = ids, positions, rotation

    def __len__(self) -> int:
        return len(self.ids)


def _int_pairs(pairs: np.ndarray[Any, Any]) -> Any:
    """The expect entries of an (m, 2) int64 array of id pairs."""
    pa = _pa()
    n = len(pairs)
    cols = [pa.StructArray.from_arrays([pa.array(pairs[:, k]), pa.nulls(n, pa.string())], names=["int", "str"])
            for k in (0, 1)]
    return pa.StructArray.from_arrays(cols, names=["a", "b"])


# -- layouts 2 and 3: the stream's move poses, encoded ----------------------------------------------------
#
# Positions and rotations change a little each frame for the same bodies, but the low bytes of a
# float64 look random to a general compressor: zstd keeps ~21 of a move's 24 bytes. Two lossless
# steps (the idea of FPC / Gorilla float compression, and of Parquet's BYTE_STREAM_SPLIT) make the
# redundancy visible: a frame whose moves name the same ids in the same order as the previous frame
# of the batch stores each value's bits minus the previous frame's bits (mod 2**64: the sign,
# exponent and high mantissa bits become zeros, and smooth motion repeats the differences), then the
# batch's values are stored byte plane by byte plane (all first bytes, then all second bytes, ...)
# so equal bytes sit together. Both steps are bijections on bits: decoding gives every float back
# bit for bit (NaN payloads and -0.0 included). See docs/scenario-format.md, "Layout 2". Layout 3
# takes second differences where three frames move the same ids (zero at constant speed) and
# zigzag-codes the differences (sign in the lowest bit), see "Layout 3".

def _compiled_encoder(backend: str | Callable[[], str]) -> bool:
    """Whether the stream's poses are encoded by the compiled pass now: little-endian (the byte order
    the planes are written in), and ``backend`` (a name, or a callable giving the kernels a recorded
    world runs now) resolves to the compiled kernels without compiling in this call. Under
    ``"auto"`` that waits for the background build (collideworld/background.py; issue 27's rule:
    no call waits for the compiler); meanwhile the numpy reference gives the same bits."""
    import sys

    from ..backend import compiled_available, resolve_backend

    if sys.byteorder != "little" or not compiled_available():
        return False
    name = backend() if callable(backend) else backend
    return name != "numpy" and resolve_backend(name) == "compiled"


class _BatchThread:
    """The thread of a ``background=True`` writer: builds and writes the batches handed to it, in order.

    The work it takes off the caller's thread is mostly outside the GIL: pyarrow
    compresses and writes with the GIL released, and the compiled pose encoder is
    ``nogil``. The queue holds one batch while another is being written, so at most
    two are in flight (memory stays bounded; a caller faster than the disk waits in
    :meth:`submit`). After a failure it writes nothing more (a stream missing a batch
    in its middle would read as a different recording) and keeps the error for the
    writer's next call.

    It is not a daemon: the interpreter's exit waits for it, and it leaves once the
    main thread has ended and the queue is empty, so a writer that was never closed
    (a loop that died of an exception) still writes every batch it was given. The
    stream's end-of-stream marker is not written then; the reader reads the batches.
    A thread that goes on recording after the main thread has ended (and the writer's
    thread has left) has its batches written in its own calls.
    """

    _POLL = 0.5  # seconds between looks at the main thread while idle

    def __init__(self, build: Callable[[dict[str, list[Any]], Any], Any], write: Callable[[Any], None]) -> None:
        self.error: BaseException | None = None
        self._build, self._write = build, write
        self._queue: queue.Queue[tuple[dict[str, list[Any]], Any] | None] = queue.Queue(maxsize=1)
        # held while a batch is queued and while the idle thread decides to leave, so that a batch
        # is never queued to a thread that has left (see _put)
        self._lock = threading.Lock()
        self._retired = False
        self._thread = threading.Thread(target=self._run, name="collideworld-arrow-writer")
        self._thread.start()

    def _handle(self, item: tuple[dict[str, list[Any]], Any]) -> None:
        if self.error is None:
            try:
                self._write(self._build(*item))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread, raised there
                self.error = exc

    def _run(self) -> None:
        main = threading.main_thread()
        while True:
            try:
                item = self._queue.get(timeout=self._POLL)
            except queue.Empty:
                if main.is_alive():
                    continue
                with self._lock:
                    if self._queue.empty():
                        self._retired = True
                        return
                continue
            if item is None:
                return
            self._handle(item)

    def _put(self, item: tuple[dict[str, list[Any]], Any] | None) -> None:
        with self._lock:
            if not self._retired:
                # may wait while two batches are in flight: the thread takes them without the lock
                self._queue.put(item)
                return
        # the thread has left (the main thread ended while another thread records): written here, in order
        if item is not None:
            self._handle(item)

    def submit(self, pending: dict[str, list[Any]], encoder: Any) -> None:
        self._put((pending, encoder))

    def join(self) -> None:
        """Wait until every batch submitted is written (or the thread has failed), then end the thread."""
        self._put(None)
        self._thread.join()


class ArrowScenarioWriter:
    """Write a scenario in the Arrow form, frame by frame (the calls of :class:`~.ScenarioWriter`).

    Parameters
    ----------
    path : str or PathLike
        ``.arrows`` (an Arrow IPC stream, for recording) or ``.parquet``.
    dim, name, description, tolerance
        The header's fields.
    version : {None, 1, 2}
        The header's format version. The Arrow header is written first and
        never rewritten, so None means version 2 (which reads every
        version 1 frame unchanged).
    batch_frames : int
        Frames per record batch (Parquet: row group). A batch is written
        when it is full, by :meth:`flush` and by :meth:`close`; a crash
        loses at most the frames of the batch not yet written.
    compression : str or None
        The IPC stream's or Parquet's buffer compression (``"zstd"``, the
        default, ``"lz4"`` or None).
    compression_level : int or None
        The codec's level (None: pyarrow's default, 1 for zstd); zstd takes
        negative levels too (faster, larger).
    backend : {"auto", "compiled", "numpy"} or callable
        Which encoder turns the stream's move poses into their stored form
        (the same bits either way): the compiled pass or the numpy
        reference. ``"auto"`` takes the compiled one once it is ready
        without compiling (see ``collideworld.background``), asked again at
        each batch; a callable returns one of the names at each batch (the
        :class:`~.Recorder` passes its world's current kernels).
    background : bool
        Build, compress and write each full batch in a thread of its own
        while the caller goes on (the file is byte for byte the one written
        without it). At most two batches are in flight: a third waits for
        the first to be written. An error of that thread is raised by the
        next call of the writer, or by :meth:`close`; :meth:`close` (and
        the end of a ``with``) writes every batch and joins the thread, and
        so does the interpreter's exit if the writer was never closed
        (after an uncaught exception, say). A process killed outright loses
        the batches not yet written: up to two more than without it.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from collideworld.scenario import MoveBatch, read_scenario
    >>> path = os.path.join(tempfile.mkdtemp(), "moves.arrows")
    >>> with ArrowScenarioWriter(path, dim=2, batch_frames=2) as w:
    ...     w.write_frame(add=[{"id": 0, "shape": {"type": "circle", "radius": 1.0}, "position": [0.0, 0.0]}])
    ...     w.write_frame(move=[MoveBatch([0], positions=np.array([[0.5, 0.25]]))])
    >>> [m.position for f in read_scenario(path) for m in f.move]
    [(0.5, 0.25)]
    """

    def __init__(self, path: str | os.PathLike[str], dim: int, name: str | None = None,
                 description: str | None = None, tolerance: float | None = None, *,
                 version: int | None = None, batch_frames: int = 32, compression: str | None = "zstd",
                 compression_level: int | None = None, fsync: bool = False, header: Mapping[str, Any] | None = None,
                 backend: str | Callable[[], str] = "auto", background: bool = False,
                 **_ignored: Any) -> None:
        pa = _pa()
        if isinstance(dim, bool) or dim not in (2, 3):
            raise InvalidArgumentError(f"dim must be 2 or 3, got {dim!r}")
        if version is not None and (isinstance(version, bool) or version not in SUPPORTED_VERSIONS):
            raise InvalidArgumentError(f"version must be None, 1, 2 or 3, got {version!r}")
        if isinstance(batch_frames, bool) or not isinstance(batch_frames, int) or batch_frames < 1:
            raise InvalidArgumentError(f"batch_frames must be an int >= 1, got {batch_frames!r}")
        if compression_level is not None and (isinstance(compression_level, bool)
                                              or not isinstance(compression_level, int) or compression is None):
            raise InvalidArgumentError(f"compression_level must be None or an int with a compression, got "
                                       f"{compression_level!r} with compression={compression!r}")
        if not isinstance(background, bool):
            raise InvalidArgumentError(f"background must be True or False, got {background!r}")
        if not callable(backend) and backend not in ("auto", "compiled", "numpy"):
            raise InvalidArgumentError(f"backend must be 'auto', 'compiled', 'numpy' or a callable giving one "
                                       f"of them, got {backend!r}")
        if header is None:
            header = {"collideworld_scenario": FORMAT_VERSION if version is None else version, "dim": dim}
            for key, value in (("name", name), ("description", description)):
                if value is not None:
                    if not isinstance(value, str):
                        raise InvalidArgumentError(f"{key} must be a str, got {value!r}")
                    header[key] = value
            if tolerance is not None:
                header["tolerance"] = float(tolerance)
        self.path = check_path(path)
        self.dim = dim
        self.version = int(header["collideworld_scenario"])
        self.tolerance = float(header.get("tolerance", DEFAULT_TOLERANCE))
        self.frames_written = 0
        self.batch_frames = batch_frames
        self._fsync = fsync
        self._parquet = check_path(path).endswith(".parquet")
        # Parquet keeps plain float64 (layout 1) for every tool, with Parquet's own byte-stream-split
        # encoding of float pages; the stream encodes its move poses itself (layout 3)
        self._layout = 1 if self._parquet else ARROW_LAYOUT
        self.schema = arrow_schema(dim, header, self._layout)
        self._types = {name: self.schema.field(name).type for name in self.schema.names}
        # the columns a frame of nothing but moves leaves null (write_moves)
        self._empty_columns = tuple(n for n in self.schema.names if n not in ("frame", "move", "expect"))
        self._ident_type = self._types["remove"].value_type
        self._pending: dict[str, list[Any]] = {name: [] for name in self.schema.names}
        self._ids_cache: tuple[Any, Any] = ((), None)
        # per pose width (0: angles): a (frames, n[, width]) float64 buffer whose row k holds the poses of
        # the open batch's frame k, handed out by pose_slot (a stream only; see _batch_poses)
        self._slabs: dict[int, np.ndarray[Any, Any]] = {}
        # the batch's poses into their stored form: one compiled pass once the compiled kernels are
        # ready (its twin, the numpy reference encode_bits, gives the same bits); see _encoder
        self._encode: Any = encode_bits
        self._backend = "numpy" if self._parquet else backend
        self._closed = False
        # started at the first batch: a thread that builds and writes the batches (see _BatchThread)
        self._thread: _BatchThread | None = None
        self._background = background
        if self._parquet:
            import pyarrow.parquet as pq

            self._out: Any = pq.ParquetWriter(self.path, self.schema, compression=compression or "none",
                                              compression_level=compression_level)
            self._sink: Any = None
        else:
            self._sink = pa.OSFile(self.path, "wb")
            codec = (compression if compression is None or compression_level is None
                     else pa.Codec(compression, compression_level=compression_level))
            options = pa.ipc.IpcWriteOptions(compression=codec)
            self._out = pa.ipc.new_stream(self._sink, self.schema, options=options)
            self._sink.flush()

    @property
    def closed(self) -> bool:
        return self._closed

    # -- building one frame's values ----------------------------------------------------------

    def _id_array(self, ids: Any) -> Any:
        """The id struct array of a batch of ids; the last one is kept (a recorder moves the same bodies)."""
        pa = _pa()
        if self._ids_cache[1] is not None and self._ids_cache[0] is ids:  # () is one object: not a hit before any use
            return self._ids_cache[1]
        plain = [plain_id(i) for i in ids]
        if all(type(i) is int for i in plain):
            ints = pa.array(np.array(plain, dtype=np.int64)) if plain else pa.array([], pa.int64())
            arr = pa.StructArray.from_arrays([ints, pa.nulls(len(plain), pa.string())], names=["int", "str"])
        else:
            arr = pa.array([_ident(i) for i in plain], type=self._ident_type)
        if isinstance(ids, tuple):
            self._ids_cache = (ids, arr)
        return arr

    def add_columns(self, ids: np.ndarray[Any, Any], shapes: list[tuple[Any, int]], positions: np.ndarray[Any, Any],
                    rotation: np.ndarray[Any, Any] | None) -> Any:
        """A frame's ``add`` entries built from arrays, for :meth:`prepare_frame`'s ``add``: what a
        :class:`~collideworld.scenario.Recorder` gives for bodies made by ``add_many`` calls of one shape
        each with the default flags (not static, category 1, all mask bits), so the entries are those
        of their ``World.body`` snapshots without a snapshot per body.

        ``ids`` (int64, n), ``shapes`` (each call's shape and body count, in order), ``positions``
        (n, D) and ``rotation`` (angles (n,) in 2D, quaternions (n, 4) in 3D; None: the defaults),
        float64 and finite, as the world stored them."""
        pa = _pa()
        n = len(ids)
        struct = self._types["add"].value_type
        texts = np.array([dump_line(shape_dict(shape)) for shape, _ in shapes], dtype=object)
        counts = [count for _, count in shapes]
        children = []
        for field in struct:
            name = field.name
            if name == "id":
                children.append(pa.StructArray.from_arrays([pa.array(ids, type=pa.int64()),
                                                            pa.nulls(n, pa.string())], names=["int", "str"]))
            elif name == "shape":
                children.append(pa.array(np.repeat(texts, counts), type=pa.string()))
            elif name == "position":
                children.append(pa.FixedSizeListArray.from_arrays(pa.array(positions.reshape(-1)), self.dim))
            elif name == "angle" and rotation is not None:
                # as body_to_dict: an angle equal to 0 (either zero) is the default, not written
                children.append(pa.array(rotation, mask=rotation == 0.0))
            elif name == "quaternion" and rotation is not None:
                # as body_to_dict: the identity (compared as floats) is the default, not written
                default = (rotation == np.array([1.0, 0.0, 0.0, 0.0])).all(axis=1)
                valid = pa.py_buffer(np.packbits(~default, bitorder="little"))
                children.append(pa.Array.from_buffers(field.type, n, [valid if default.any() else None],
                                                      children=[pa.array(rotation.reshape(-1))]))
            else:
                children.append(pa.nulls(n, field.type))
        return _AddColumns(pa.StructArray.from_arrays(children, fields=list(struct)))

    def _float_copy(self, values: Any, n: int, width: int, what: str) -> np.ndarray[Any, Any]:
        """A checked float64 copy of a MoveBatch field (a copy: the caller may reuse its array)."""
        arr = np.array(values, dtype=np.float64)
        if arr.shape != ((n,) if width == 0 else (n, width)):
            raise InvalidArgumentError(f"MoveBatch {what} must have shape {(n, width) if width else (n,)}, "
                                       f"got {arr.shape}")
        if not np.isfinite(arr).all():
            raise InvalidArgumentError(f"MoveBatch {what} must be finite, got {arr[~np.isfinite(arr)][:3]}")
        return arr

    def _lazy_moves(self, batch: MoveBatch, owned: bool = False) -> _LazyMoves | None:
        """A MoveBatch kept as its id array and copies of its poses (``owned``: its own arrays, see
        :meth:`prepare_frame`), put into columns at the flush."""
        ids = self._id_array(batch.ids)
        n = len(ids)
        if not n:
            return None
        rotation_given = batch.angles if self.dim == 2 else batch.quaternions
        if owned:
            return _LazyMoves(ids, batch.positions, rotation_given)  # type: ignore[arg-type]
        positions = None if batch.positions is None else self._float_copy(batch.positions, n, self.dim, "positions")
        rotation = (None if rotation_given is None
                    else self._float_copy(rotation_given, n, 0 if self.dim == 2 else 4,
                                          "angles" if self.dim == 2 else "quaternions"))
        return _LazyMoves(ids, positions, rotation)

    def _move_struct(self, ids: Any, positions: Any, rotation: Any) -> Any:
        """The move entries of ids (an id struct array) with these poses (float64 arrays or None)."""
        pa = _pa()
        n = len(ids)
        struct = self._types["move"].value_type
        children = []
        for field in struct:
            name = field.name
            if name == "id":
                children.append(ids)
            elif name == "position" and positions is not None:
                children.append(pa.FixedSizeListArray.from_arrays(pa.array(positions.reshape(-1)), self.dim))
            elif name in ("angle", "quaternion") and rotation is not None:
                flat = pa.array(rotation.reshape(-1))
                children.append(flat if name == "angle" else pa.FixedSizeListArray.from_arrays(flat, 4))
            else:
                children.append(pa.nulls(n, field.type))
        return pa.StructArray.from_arrays(children, fields=list(struct))

    def _move_batch(self, batch: MoveBatch) -> Any:
        lazy = self._lazy_moves(batch)
        if lazy is None:
            return self._move_struct(self._id_array(batch.ids), None, None)
        return self._move_struct(lazy.ids, lazy.positions, lazy.rotation)

    def _entries(self, column: str, entries: list[dict[str, Any]]) -> Any:
        return _pa().array(entries, type=self._types[column].value_type)

    def write_frame(self, remove: Iterable[Any] = (), add: Iterable[Any] = (),
                    move: Iterable[Any] = (), expect: Iterable[Any] | None = None,
                    expect_contacts: Iterable[Any] | None = None,
                    comment: str | None = None, *, set: Iterable[Any] = (),  # noqa: A002 - the format's key
                    expect_distance: Iterable[Any] | None = None,
                    expect_impact: Iterable[Any] | None = None) -> None:
        """Add one frame (one step); the arguments are those of :meth:`~.ScenarioWriter.write_frame`.

        ``comment`` is not kept (the Arrow form has no comments). Nothing is
        added when an argument is rejected.
        """
        self.write_prepared(self.prepare_frame(remove, add, move, comment, set),
                            expect, expect_contacts, expect_distance, expect_impact)

    def prepare_frame(self, remove: Iterable[Any], add: Iterable[Any], move: Iterable[Any],
                      comment: str | None, set: Iterable[Any],  # noqa: A002 - the format's key
                      *, owned: bool = False) -> dict[str, Any]:
        """A frame's operations as columns (nothing is added yet): what a
        :class:`~collideworld.scenario.Recorder` makes before the world steps,
        as :meth:`~.ScenarioWriter.prepare_frame`. ``comment`` is not kept.

        ``owned`` says that ``move`` is one :class:`~.MoveBatch` whose pose
        arrays are C-contiguous float64 arrays of the right shapes, finite,
        and given to the writer (nobody changes them afterwards): the
        recorder's copies of poses the world has accepted. They are kept as
        they are, without the copy and the checks of other batches."""
        if self._closed:
            raise ValueError(f"{self.path}: the writer is closed")
        self._raise_failure()
        row: dict[str, Any] = {} if self._layout < 3 else {PLANE_COLUMN: None}
        removes = [_ident(i) for i in remove]
        row["remove"] = self._entries("remove", removes) if removes else None
        if isinstance(add, _AddColumns):
            row["add"] = add.entries if len(add.entries) else None
        else:
            adds = _add_entries(add)
            row["add"] = self._entries("add", adds) if adds else None
        sets = [_arrow_entry(set_to_dict(c)) for c in set]
        row["set"] = self._entries("set", sets) if sets else None
        given = list(move)
        if len(given) == 1 and isinstance(given[0], MoveBatch):
            # the recorder's frame: kept as arrays until the flush puts the whole batch into columns at once
            row["move"] = self._lazy_moves(given[0], owned)
            return row
        moves = []
        planes: list[dict[str, Any]] = []
        at = 0  # the index of the next entry in the frame's move list
        for m in given:
            if isinstance(m, MoveBatch):
                moves.append(self._move_batch(m))
                at += len(moves[-1])
                continue
            entry = _arrow_entry(move_to_dict(m))
            if self._layout >= 3 and ("normal" in entry or "offset" in entry):
                planes.append(self._plane_entry(entry, at))
            else:
                moves.append(self._entries("move", [entry]))
            at += 1
        self._put_moves(row, moves, planes)
        return row

    def _plane_entry(self, entry: dict[str, Any], at: int) -> dict[str, Any]:
        """Layout 3's ``move_plane`` entry of a move entry that has ``normal`` or ``offset``."""
        other = sorted(set(entry) - {"id", "normal", "offset"})
        if other:
            ident = entry["id"]["int"] if entry["id"]["str"] is None else entry["id"]["str"]
            raise InvalidArgumentError(f"move of {ident!r}: a half-plane's or plane's move has normal and offset "
                                       f"only, got {other} too")
        return {"at": at, **entry}

    def _put_moves(self, row: dict[str, Any], moves: list[Any], planes: list[dict[str, Any]]) -> None:
        """A frame's ``move`` (and ``move_plane``) values: null when the frame moves nothing."""
        moves = [m for m in moves if len(m)]
        if moves:
            row["move"] = moves[0] if len(moves) == 1 else _pa().concat_arrays(moves)
        else:
            row["move"] = self._entries("move", []) if planes else None
        if self._layout >= 3:
            row[PLANE_COLUMN] = self._entries(PLANE_COLUMN, planes) if planes else None

    def write_prepared(self, prepared: dict[str, Any], expect: Iterable[Any] | None,
                       expect_contacts: Iterable[Any] | None, expect_distance: Iterable[Any] | None,
                       expect_impact: Iterable[Any] | None) -> None:
        """Add the expectations to a frame from :meth:`prepare_frame` and add it to the batch."""
        if self._closed:
            raise ValueError(f"{self.path}: the writer is closed")
        self._raise_failure()
        row: dict[str, Any] = {"frame": self.frames_written + 1, **prepared}
        row["expect"] = None if expect is None else self._expect(expect)
        row["expect_contacts"] = (None if expect_contacts is None
                                  else dump_line([contact_to_dict(c) for c in expect_contacts]))
        row["expect_distance"] = (None if expect_distance is None
                                  else dump_line([distance_to_dict(d) for d in expect_distance]))
        row["expect_impact"] = (None if expect_impact is None
                                else dump_line([impact_to_dict(i) for i in expect_impact]))
        for name, value in row.items():
            self._pending[name].append(value)
        self.frames_written += 1
        if len(self._pending["frame"]) >= self.batch_frames:
            self.flush()

    def pose_slot(self, n: int, width: int) -> np.ndarray[Any, Any]:
        """A float64 array, (n,) for ``width`` 0 (angles) else (n, width), to copy the poses of the frame
        being prepared into and give back as owned arrays (:meth:`prepare_moves`, or :meth:`prepare_frame`
        with ``owned``). For a stream it is row k (the frame's index in the batch) of one buffer per
        width, so that the batch's poses are already one array when it is built, not joined from one
        array per frame. Each batch gets new buffers: a row handed out stays the frame's."""
        shape = (n,) if width == 0 else (n, width)
        if self._parquet:
            return np.empty(shape)
        k = len(self._pending["frame"])
        slab = self._slabs.get(width)
        if slab is None or slab.shape[1:] != shape or k >= len(slab):
            slab = self._slabs[width] = np.empty((max(self.batch_frames, k + 1), *shape))
        row: np.ndarray[Any, Any] = slab[k]
        return row

    def prepare_moves(self, ids: tuple[Any, ...], positions: np.ndarray[Any, Any] | None,
                      rotation: np.ndarray[Any, Any] | None) -> Any:
        """The usual recorded frame, prepared: nothing but one batch of moves, given as owned arrays
        (see :meth:`prepare_frame`'s ``owned``; ``rotation``: angles in 2D, quaternions in 3D). What
        :meth:`prepare_frame` makes of the one :class:`~.MoveBatch`, without the frame's row of empty
        columns; give it to :meth:`write_moves`. Checks that the writer is open and not failed, as
        :meth:`prepare_frame` does, so a recorder raises before its world steps."""
        if self._closed:
            raise ValueError(f"{self.path}: the writer is closed")
        self._raise_failure()
        arr = self._id_array(ids)
        return _LazyMoves(arr, positions, rotation) if len(arr) else None

    def write_moves(self, moves: Any, expect: Any) -> None:
        """Add a frame of :meth:`prepare_moves` with its ``expect`` (as :meth:`write_prepared`, with no
        other expectation): the same pending values as the two general calls, so the same bytes, with
        one append per column instead of a row dict per frame."""
        if self._closed:
            raise ValueError(f"{self.path}: the writer is closed")
        self._raise_failure()
        pending = self._pending
        for name in self._empty_columns:
            pending[name].append(None)
        pending["move"].append(moves)
        pending["expect"].append(None if expect is None else self._expect(expect))
        self.frames_written += 1
        pending["frame"].append(self.frames_written)
        if len(pending["frame"]) >= self.batch_frames:
            self.flush()

    def write(self, frame: Any) -> None:
        """Write a :class:`~collideworld.scenario.Frame` as read by the reader (copying a file)."""
        self.write_frame(remove=frame.remove, add=frame.add, move=frame.move,
                         expect=frame.expect, expect_contacts=frame.expect_contacts, set=frame.set,
                         expect_distance=frame.expect_distance, expect_impact=frame.expect_impact)

    def _write_row(self, row: Mapping[str, Any]) -> None:
        """Add one frame given as the text form's JSON object (what :func:`convert` reads)."""
        out: dict[str, Any] = {"frame": self.frames_written + 1}
        if self._layout >= 3:
            out[PLANE_COLUMN] = None
        for name in _LIST_COLUMNS:
            value = row.get(name)
            if value is None:
                out[name] = None
            elif name == "remove":
                out[name] = self._entries(name, [_ident(i) for i in value]) if value else None
            elif name == "expect":
                out[name] = self._expect(value)
            elif name == "move" and self._layout >= 3:
                entries = [_arrow_entry(e) for e in value]
                planes = [self._plane_entry(e, k) for k, e in enumerate(entries) if "normal" in e or "offset" in e]
                plain = [e for e in entries if "normal" not in e and "offset" not in e]
                self._put_moves(out, [self._entries(name, plain)] if plain else [], planes)
            else:
                out[name] = self._entries(name, [_arrow_entry(e) for e in value]) if value else None
        for name in _JSON_COLUMNS:
            out[name] = None if row.get(name) is None else dump_line(row[name])
        for name, value in out.items():
            self._pending[name].append(value)
        self.frames_written += 1
        if len(self._pending["frame"]) >= self.batch_frames:
            self.flush()

    def _expect(self, expect: Any) -> Any:
        if isinstance(expect, np.ndarray) and expect.ndim == 2 and expect.shape[1] == 2 and expect.dtype.kind in "iu":
            return expect.astype(np.int64)  # a copy, put into columns at the flush (_int_pairs)
        pairs = list(expect)
        if isinstance(expect, (set, frozenset)):
            pairs.sort(key=lambda p: sorted((type(i) is str, str(i) if type(i) is str else int(i)) for i in p))
        rows = []
        for p in pairs:
            a, b = pair_ids(p)
            rows.append({"a": _ident(a), "b": _ident(b)})
        return self._entries("expect", rows)

    # -- batches --------------------------------------------------------------------------------

    def flush(self) -> None:
        """Write the frames added since the last batch as one record batch (nothing if none).

        With ``background``, the batch is handed to the writer's thread (waiting while two are in
        flight) and written there."""
        self._raise_failure()
        pending = self._pending
        if not pending["frame"]:
            return
        # asked here, not in the thread: a recorder's backend callable reads its world
        encoder = self._encoder()
        # the pose_slot rows handed out so far belong to this batch's frames (see _batch_poses); with the
        # thread, they are read while the next batch is filled
        self._slabs = {}
        if not self._background:
            self._write_batch(self._build_batch(pending, encoder))
            self._pending = {name: [] for name in self.schema.names}
            return
        self._pending = {name: [] for name in self.schema.names}
        if self._thread is None:
            self._thread = _BatchThread(self._build_batch, self._write_batch)
        self._thread.submit(pending, encoder)

    def _raise_failure(self) -> None:
        """Raise what the background thread failed with, if it did (the stream is broken from there on)."""
        if self._thread is not None and self._thread.error is not None:
            raise self._thread.error

    def _build_batch(self, pending: dict[str, list[Any]], encoder: Any) -> Any:
        """The record batch of the frames in ``pending`` (the values of :meth:`write_prepared`)."""
        pa = _pa()
        n = len(pending["frame"])
        arrays = []
        for name in self.schema.names:
            values = pending[name]
            typ = self._types[name]
            if name == "frame" or name in _JSON_COLUMNS:
                arrays.append(pa.array(values, type=typ))
                continue
            if name == "move" and self._layout >= 2:
                encoded = self._encoded_moves(values, encoder)
                if encoded is not None:
                    arrays.append(encoded)
                    continue
            counts = np.array([0 if v is None else len(v) for v in values], dtype=np.int32)
            offsets = np.zeros(n + 1, dtype=np.int32)
            np.cumsum(counts, out=offsets[1:])
            child = self._child(name, [v for v in values if v is not None and len(v)])
            mask = pa.array([v is None for v in values], type=pa.bool_())
            column = pa.ListArray.from_arrays(pa.array(offsets), child, type=typ, mask=mask)
            if name == "move" and self._layout >= 2:
                column = encode_moves(column, self._layout)
            arrays.append(column)
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)

    def _write_batch(self, batch: Any) -> None:
        self._out.write_batch(batch)
        if not self._parquet:
            self._sink.flush()
            if self._fsync:
                os.fsync(self._sink.fileno())

    def _encoded_moves(self, values: list[Any], encoder: Any) -> Any:
        """The batch's encoded ``move`` column (layouts 2 and 3) straight from the recorder's arrays,
        when every frame's moves are one batch of arrays with the same fields given (else None):
        the same column as :func:`~.arrow_source.encode_moves` of the plain one, without the plain
        one being built and read back."""
        pa = _pa()
        lazy = [v for v in values if v is not None]
        if not lazy or not all(isinstance(v, _LazyMoves) for v in lazy):
            return None
        if len({(v.positions is None, v.rotation is None) for v in lazy}) != 1:
            return None
        counts = np.array([0 if v is None else len(v) for v in values], dtype=np.int32)
        offsets = np.zeros(len(values) + 1, dtype=np.int32)
        np.cumsum(counts, out=offsets[1:])
        # the repeated frames (docs/scenario-format.md, "Layout 2"): each lazy frame has at least one
        # entry and every field given on all of them, so the same ids as the row before is enough
        deltas = []
        for f in range(1, len(values)):
            now, before = values[f], values[f - 1]
            if (now is not None and before is not None and len(now) == len(before)
                    and (now.ids is before.ids or now.ids.equals(before.ids))):
                deltas.append((int(offsets[f]), int(offsets[f - 1]), len(now)))
        struct = self._types["move"].value_type
        total = int(offsets[-1])
        children = []
        for field in struct:
            name = field.name
            arrays = ([v.positions for v in lazy] if name == "position"
                      else [v.rotation for v in lazy] if name in ("angle", "quaternion") else None)
            if name == "id":
                children.append(pa.concat_arrays([v.ids for v in lazy]))
            elif arrays is None or arrays[0] is None:
                children.append(pa.nulls(total, field.type))
            else:
                width = 1 if name == "angle" else field.type.list_size
                bits = self._batch_poses(arrays).view(np.uint64).reshape(total, width)
                flat = pa.array(encoder(bits, deltas, self._layout).reshape(-1).view(np.float64))
                children.append(flat if name == "angle" else pa.FixedSizeListArray.from_arrays(flat, width))
        child = pa.StructArray.from_arrays(children, fields=list(struct))
        mask = pa.array([v is None for v in values], type=pa.bool_())
        return pa.ListArray.from_arrays(pa.array(offsets), child, type=self._types["move"], mask=mask)

    @staticmethod
    def _batch_poses(arrays: list[np.ndarray[Any, Any]]) -> np.ndarray[Any, Any]:
        """The values of one pose field of the batch's frames with moves, frame after frame: when the
        frames' arrays are consecutive rows of one buffer of :meth:`pose_slot` (the frames moved the same
        bodies), those rows as they are, else the arrays joined (a copy).

        A buffer's rows are handed out only while one batch is open (:meth:`flush` drops the buffers),
        row k to the batch's frame k, so the frames' rows are distinct and increasing: first and last
        F - 1 rows apart means rows first .. last."""
        first, last = arrays[0], arrays[-1]
        slab = first.base
        if (isinstance(slab, np.ndarray) and slab.ndim == first.ndim + 1 and slab.shape[1:] == first.shape
                and slab.flags.c_contiguous and all(a.base is slab and a.shape == first.shape for a in arrays)):
            step = slab.strides[0]
            at, rest = divmod(first.ctypes.data - slab.ctypes.data, step)
            if rest == 0 and last.ctypes.data - first.ctypes.data == (len(arrays) - 1) * step:
                rows: np.ndarray[Any, Any] = slab[at:at + len(arrays)]
                return rows
        return np.concatenate(arrays)

    def _encoder(self) -> Any:
        """The pose encoder for this batch: the numpy reference until the compiled pass is ready
        (asked once per batch; once compiled, it stays)."""
        if self._encode is encode_bits and self._backend != "numpy" and _compiled_encoder(self._backend):
            from .compiled_encoding import encode_planes

            self._encode = encode_planes
        return self._encode

    def _child(self, name: str, chunks: list[Any]) -> Any:
        """The entries of a list column's frames, one array: the recorder's frames (moves kept as
        arrays, pairs as int arrays) are joined as arrays first, so a batch is built once, not per frame."""
        pa = _pa()
        typ = self._types[name].value_type
        if not chunks:
            return pa.array([], type=typ)
        if name == "move" and any(isinstance(c, _LazyMoves) for c in chunks):
            kinds = {(c.positions is None, c.rotation is None) if isinstance(c, _LazyMoves) else None for c in chunks}
            if len(kinds) == 1:
                lazy: list[_LazyMoves] = chunks
                ids = pa.concat_arrays([c.ids for c in lazy])
                positions = None if lazy[0].positions is None else np.concatenate([c.positions for c in lazy])
                rotation = None if lazy[0].rotation is None else np.concatenate([c.rotation for c in lazy])
                return self._move_struct(ids, positions, rotation)
            chunks = [self._move_struct(c.ids, c.positions, c.rotation) if isinstance(c, _LazyMoves) else c
                      for c in chunks]
        if name == "expect" and any(isinstance(c, np.ndarray) for c in chunks):
            if all(isinstance(c, np.ndarray) for c in chunks):
                return _int_pairs(np.concatenate(chunks))
            chunks = [_int_pairs(c) if isinstance(c, np.ndarray) else c for c in chunks]
        return pa.concat_arrays(chunks) if len(chunks) > 1 else chunks[0]

    def close(self) -> None:
        """Write the last batch and end the stream (Parquet: its footer). Idempotent."""
        if self._closed:
            return
        try:
            self.flush()
        finally:
            self._closed = True
            try:
                if self._thread is not None:
                    self._thread.join()  # every batch handed over is written (or failed) first
            finally:
                self._out.close()
                if self._sink is not None:
                    self._sink.close()
        self._raise_failure()

    def __enter__(self) -> ArrowScenarioWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"ArrowScenarioWriter({self.path!r}, dim={self.dim}, {self.frames_written} frames, {state})"


# -- converting and analysing ----------------------------------------------------------------------


def convert(source: str | os.PathLike[str], target: str | os.PathLike[str], *, batch_frames: int = 256,
            **reader_limits: Any) -> int:
    """Copy a scenario between the text and the Arrow forms (by the suffixes); returns the frames copied.

    The source is read with the full checks of :func:`~collideworld.scenario.read_scenario` first,
    so only a valid file is converted. The copy has the same header and, per
    frame, the same keys with the same values: every float bit for bit,
    every id of its kind (``1`` and ``"1"`` stay apart). Comments (keys
    starting with ``_``) are not kept.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> src = os.path.join(folder, "a.jsonl")
    >>> with open(src, "w") as f:
    ...     _ = f.write('{"collideworld_scenario": 1, "dim": 2}\\n'
    ...                 '{"add": [{"id": "1", "shape": {"type": "circle", "radius": 0.1}, "position": [0.1, 0.2]}]}\\n')
    >>> convert(src, os.path.join(folder, "a.arrows")), convert(os.path.join(folder, "a.arrows"),
    ...                                                         os.path.join(folder, "b.jsonl"))
    (1, 1)
    >>> open(os.path.join(folder, "b.jsonl")).read().splitlines()[1]
    '{"add":[{"id":"1","shape":{"type":"circle","radius":0.1},"position":[0.1,0.2]}]}'
    """
    from .frames import limits_from, read_scenario

    limits = limits_from(dict(reader_limits))
    src, dst = check_path(source), check_path(target)
    for _ in read_scenario(src, **reader_limits):
        pass  # the whole file is valid before anything is written
    raw = _raw_objects(src, limits)
    header = next(raw)
    dim = header["dim"]
    n = 0
    if is_arrow_path(dst):
        with ArrowScenarioWriter(dst, dim, header=header, batch_frames=batch_frames) as w:
            for obj in raw:
                # this module's own writer: convert has rows already in the text form's objects, which the
                # public write_frame (taking specs) would rebuild
                w._write_row(obj)
                n += 1
    else:
        from .writer import create_output

        out = create_output(dst)
        try:
            stream: Any = out
            if dst.endswith(".gz"):
                import gzip

                stream = gzip.GzipFile(filename=os.path.basename(dst)[:-3], mode="wb", fileobj=out, mtime=0)
            stream.write(dump_line(header).encode("utf-8") + b"\n")
            for obj in raw:
                stream.write(dump_line(obj).encode("utf-8") + b"\n")
                n += 1
            if stream is not out:
                stream.close()
        finally:
            out.close()
    return n


def _raw_objects(path: str, limits: ReaderLimits) -> Iterator[dict[str, Any]]:
    """The header, then each frame, as the text form's JSON objects without comments."""
    from .source import LineSource

    source: Any = ArrowSource(path, limits, False) if is_arrow_path(path) else LineSource(path, limits, False)
    try:
        while True:
            got = source.next_value()
            if got is END or got is TRUNCATED_TAIL:
                return
            obj = got[0]
            yield {k: _drop_comments(v) for k, v in obj.items() if not k.startswith("_")}
    finally:
        source.close()


def _drop_comments(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_comments(v) for k, v in value.items() if not k.startswith("_")}
    if isinstance(value, list):
        return [_drop_comments(v) for v in value]
    return value


def frames_table(path: str | os.PathLike[str], **reader_limits: Any) -> Any:
    """The poses of every body at every frame, one row per body per frame, as a ``pyarrow.Table``.

    Columns: ``frame`` (int64, 1 for the first), ``id`` (string: a str id
    as it is, an int id in decimal), ``id_is_int`` (bool), ``position``
    (fixed-size list of D float64), ``angle`` (2D) or ``quaternion`` (3D).
    A body is listed from the frame that adds it to the frame before the
    one that removes it, with its pose after that frame's moves; a
    half-plane or plane has no pose and no rows. Either form of the file
    is read, with the reader's checks.

    Examples
    --------
    >>> import os, tempfile
    >>> from collideworld import Circle, World
    >>> from collideworld.scenario import Recorder
    >>> path = os.path.join(tempfile.mkdtemp(), "run.arrows")
    >>> with Recorder(World(dim=2), path) as rec:
    ...     _ = rec.add_many(Circle(0.5), [[0, 0], [3, 0]])
    ...     for x in (1.0, 2.0):
    ...         _ = rec.step()
    ...         rec.move(1, position=(3 - x, 0))
    ...     _ = rec.step()
    >>> t = frames_table(path)
    >>> t.num_rows, t.column("position").to_pylist()[-1]
    (6, [1.0, 0.0])
    >>> contacts_table(path).to_pylist()[-1]
    {'frame': 3, 'a': '0', 'b': '1', 'a_is_int': True, 'b_is_int': True}
    """
    pa = _pa()
    from .frames import read_scenario

    scenario = read_scenario(path, **reader_limits)
    dim = scenario.header.dim
    alive: dict[Any, list[Any]] = {}
    frames: list[int] = []
    ids: list[Any] = []
    positions: list[Any] = []
    rotations: list[Any] = []
    identity: Any = 0.0 if dim == 2 else (1.0, 0.0, 0.0, 0.0)
    for frame in scenario:
        for body_id in frame.remove:
            alive.pop(body_id, None)
        for body in frame.add:
            if body.position is not None:
                rot = body.angle if dim == 2 else body.quaternion
                alive[body.id] = [body.position, identity if rot is None else rot]
        for move in frame.move:
            pose = alive.get(move.id)
            if pose is None:
                continue
            if move.position is not None:
                pose[0] = move.position
            rot = move.angle if dim == 2 else move.quaternion
            if rot is not None:
                pose[1] = rot
        frames.extend([frame.number] * len(alive))
        ids.extend(alive)
        for pose in alive.values():
            positions.append(pose[0])
            rotations.append(pose[1])
    point = pa.list_(pa.float64(), dim)
    columns = {
        "frame": pa.array(frames, type=pa.int64()),
        "id": pa.array([str(i) for i in ids], type=pa.string()),
        "id_is_int": pa.array([type(i) is int for i in ids], type=pa.bool_()),
        "position": pa.FixedSizeListArray.from_arrays(
            pa.array(np.asarray(positions, dtype=np.float64).reshape(-1)), dim) if positions
        else pa.array([], type=point),
    }
    if dim == 2:
        columns["angle"] = pa.array(np.asarray(rotations, dtype=np.float64).reshape(-1))
    else:
        columns["quaternion"] = (pa.FixedSizeListArray.from_arrays(
            pa.array(np.asarray(rotations, dtype=np.float64).reshape(-1)), 4) if rotations
            else pa.array([], type=pa.list_(pa.float64(), 4)))
    return pa.table(columns)


def contacts_table(path: str | os.PathLike[str], **reader_limits: Any) -> Any:
    """The pairs in contact after each frame (its ``expect``), one row per pair per frame, as a ``pyarrow.Table``.

    Columns: ``frame``, ``a``, ``b`` (ids as strings, as in
    :func:`frames_table`), ``a_is_int``, ``b_is_int``; a frame without
    ``expect`` has no rows.

    Examples
    --------
    >>> import os, tempfile
    >>> from collideworld.scenario import ScenarioWriter
    >>> path = os.path.join(tempfile.mkdtemp(), "pairs.jsonl")
    >>> with ScenarioWriter(path, dim=2) as w:
    ...     w.write_frame(add=[{"id": k, "shape": {"type": "circle", "radius": 1.0}, "position": [k, 0.0]}
    ...                        for k in (0, 1)], expect=[(0, 1)])
    ...     w.write_frame()
    >>> contacts_table(path).to_pydict()
    {'frame': [1], 'a': ['0'], 'b': ['1'], 'a_is_int': [True], 'b_is_int': [True]}
    """
    pa = _pa()
    from .frames import read_scenario

    rows: dict[str, list[Any]] = {"frame": [], "a": [], "b": [], "a_is_int": [], "b_is_int": []}
    for frame in read_scenario(path, **reader_limits):
        if frame.expect is None:
            continue
        for pair in sorted((sorted(p, key=lambda i: (type(i) is str, str(i) if type(i) is str else i))
                            for p in frame.expect), key=lambda p: [(type(i) is str, str(i)) for i in p]):
            a, b = pair if len(pair) == 2 else (pair[0], pair[0])
            rows["frame"].append(frame.number)
            rows["a"].append(str(a))
            rows["b"].append(str(b))
            rows["a_is_int"].append(type(a) is int)
            rows["b_is_int"].append(type(b) is int)
    return pa.table({"frame": pa.array(rows["frame"], type=pa.int64()), "a": pa.array(rows["a"], type=pa.string()),
                     "b": pa.array(rows["b"], type=pa.string()), "a_is_int": pa.array(rows["a_is_int"], pa.bool_()),
                     "b_is_int": pa.array(rows["b_is_int"], pa.bool_())})
