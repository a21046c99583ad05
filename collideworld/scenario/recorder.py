"""Record a live World into a scenario file while you use it.

:class:`Recorder` stands in for the world: call ``add``, ``move``,
``remove`` (and their ``_many`` forms) and ``step`` on it exactly as on the
world. Each call goes straight to the world (errors included) and is noted;
each ``step`` writes one frame: the net effect of the calls since the
previous step, then, as ``expect``, the pairs the step returned.

The net effect, not the call log, is written, because a frame applies its
``remove`` list, then ``add``, then ``move``, while calls may come in any
order. Per body, since the previous step:

* added (possibly moved afterwards): written in ``add`` with its pose at the
  step, read back from ``world.body(id)``;
* alive before and removed: written in ``remove`` (and again in ``add`` if
  the id was added anew);
* added and removed again: not written at all;
* alive before and moved: written in ``move`` with only the fields that were
  given (position, angle, quaternion), at their value at the step; a
  half-plane or plane moved by ``normal``/``offset`` (or given a new one by
  ``set_shape``) is written with both, at their value at the step
  (version 2);
* alive before and changed in place (``set_static``, ``set_filter``,
  ``set_shape``): written in ``set`` with the fields changed, at their
  value at the step (version 2).

The file is version 1 unless a frame needs version 2 (a ``set``, a plane's
move, a body whose shape is a capsule, segment or convex hull): its header
then says 2 (see :class:`~collideworld.scenario.ScenarioWriter`).

Recording is meant to stay cheap in a game loop: the bodies moved in a frame
are noted as one dict of field bits, their poses at the step are read with
one ``World.poses`` call, and bodies moved with the same fields are written
as one :class:`~collideworld.scenario.MoveBatch` (numbers formatted a whole
array at a time). A frame whose only move is one ``move_many`` of an int id
array with position and angle arrays (the usual game loop) keeps copies of
those arrays instead (the bits the world stored; no read-back), which the
Arrow writer takes as they are. ``benchmarks/recorder.py`` measures the cost.

Bodies already in the world when the recorder is created are written as the
first frame's ``add`` list, so the file replays from an empty world. Calls
made after the last ``step`` are not written (a frame is one step).

Examples
--------
>>> import os, tempfile
>>> from collideworld import World, Circle
>>> path = os.path.join(tempfile.mkdtemp(), "session.jsonl")
>>> with Recorder(World(dim=2), path) as rec:
...     _ = rec.add(Circle(1.0), position=(0, 0), id="a")
...     _ = rec.add(Circle(1.0), position=(1.5, 0), id="b")
...     contacts = rec.step()          # frame 1: two adds, expect [["a", "b"]]
...     rec.move("b", position=(5, 0))
...     contacts = rec.step()          # frame 2: one move, expect []
>>> len(open(path).read().splitlines())     # the header line and two frames
3
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..shapes import SHAPE_TYPES
from .reader import MoveSpec, SetSpec
from .writer import MoveBatch, ScenarioWriter, plain_id

if TYPE_CHECKING:
    from .arrow import ArrowScenarioWriter

__all__ = ["Recorder"]

#: Frames per record batch of an Arrow recording: a crash loses at most the batch being filled (and a
#: killed process, with the background writer, the two full batches in flight).
RECORDER_BATCH_FRAMES = 128

#: zstd's level for an Arrow recording (None: pyarrow's default, 1); see benchmarks/results/recorder-arrow.md.
RECORDER_COMPRESSION_LEVEL: int | None = None

# The fields a move gave, as bits, so a frame's moved bodies are one dict of
# small ints and bodies moved the same way form one array batch.
_POSITION, _ANGLE, _QUATERNION = 1, 2, 4


class Recorder:
    """Wrap a World; write one scenario frame per :meth:`~Recorder.step`.

    Parameters
    ----------
    world : World
        The live world; it is used, not copied.
    path : str or path-like
        The scenario file to write (gzip if it ends with ``.gz``; the Arrow
        form if it ends with ``.arrows`` or ``.parquet``, written by
        :class:`~collideworld.scenario.arrow.ArrowScenarioWriter` one record
        batch per 128 frames, its header version 2, the poses kept as arrays
        until the batch is written; needs pyarrow).
    record_expect : bool
        Write each step's contact pairs as the frame's ``expect``.
    record_contacts : bool
        Also write ``expect_contacts`` (normal and depth of every pair of
        convex shapes; pairs with a concave polygon are left out, as the
        format requires).
    name, description, tolerance :
        Header fields, see :class:`~collideworld.scenario.ScenarioWriter`.
    fsync : bool
        ``os.fsync`` after each frame.
    compresslevel : int
        zlib level for a ``.gz`` path: 1 (the default) keeps a game loop fast,
        9 writes a file 5 to 7 % smaller at about 8 times the cost.
    background : bool
        For the Arrow form: build, compress and write each batch in a thread
        of the writer while the loop goes on (the same file, byte for byte;
        see :class:`~collideworld.scenario.arrow.ArrowScenarioWriter`). An
        error there is raised by the next ``step`` or by :meth:`close`.
        False (the default) writes each batch inside the ``step`` that
        completes it: on the 2-core machine with a core free the thread
        saved little wall time (1.20x against 1.22x the bare loop) and cost
        more CPU (1.32x against 1.25x), see
        ``benchmarks/results/recorder-arrow.md``.

    Attributes
    ----------
    world : World
    writer : ScenarioWriter

    Any other attribute (``pairs``, ``ids``, ``body``, ``query_*`` ...) is
    the world's own.

    Examples
    --------
    With ``record_contacts=True`` each frame also carries normal and depth:
    unit circles 1.5 apart overlap by 0.5 along +x.

    >>> import os, tempfile
    >>> from collideworld import Circle, World
    >>> from collideworld.scenario import read_scenario
    >>> path = os.path.join(tempfile.mkdtemp(), "session.jsonl")
    >>> with Recorder(World(dim=2), path, record_contacts=True) as rec:
    ...     _ = rec.add(Circle(1.0), position=(0, 0), id="a")
    ...     _ = rec.add(Circle(1.0), position=(1.5, 0), id="b")
    ...     _ = rec.step()
    >>> [frame.expect_contacts for frame in read_scenario(path)]
    [(ExpectedContact(pair=('a', 'b'), normal=(1.0, 0.0), depth=0.5, points=None, parts=None),)]
    """

    def _world_backend(self) -> str:
        # the poses are encoded on the kernels the world runs now: a backend="auto" world answers with
        # numpy until the background build is loaded (then switches at a step), and so does the encoder
        backend = getattr(self.world, "backend", "auto")
        return backend if backend in ("compiled", "numpy") else "auto"

    def __init__(self, world: Any, path: str | os.PathLike[str], record_expect: bool = True, *,
                 record_contacts: bool = False, name: str | None = None,
                 description: str | None = None, tolerance: float | None = None,
                 fsync: bool = False, compresslevel: int = 1, background: bool = False):
        self.world = world
        self.record_expect = record_expect
        self.record_contacts = record_contacts
        self.writer: ScenarioWriter | ArrowScenarioWriter
        if os.fspath(path).endswith((".arrows", ".parquet")) if isinstance(path, (str, os.PathLike)) else False:
            from .arrow import ArrowScenarioWriter  # the Arrow form (needs pyarrow): record batches of frames

            # 128 frames a batch: each batch writes ~100 buffers, each compressed on its own with a fresh
            # zstd context (~10 us apiece), which at 32 frames cost more than a tenth of the recording
            self.writer = ArrowScenarioWriter(path, world.dim, name=name, description=description,
                                              tolerance=tolerance, fsync=fsync, batch_frames=RECORDER_BATCH_FRAMES,
                                              backend=self._world_backend, background=background,
                                              compression_level=RECORDER_COMPRESSION_LEVEL)
            self._arrow: ArrowScenarioWriter | None = self.writer
        else:
            self.writer = ScenarioWriter(path, world.dim, name=name, description=description,
                                         tolerance=tolerance, fsync=fsync, compresslevel=compresslevel)
            self._arrow = None
        self._known: set[Any] = set()         # alive as far as the file has said
        self._added: dict[Any, None] = {}      # added since the last step (ordered)
        self._removed: list[Any] = []          # known bodies removed since the last step
        self._moved: dict[Any, int] = {}      # known bodies moved: bits of the fields given
        self._planes_moved: dict[Any, None] = {}  # known half-planes/planes moved (version 2)
        self._changed: dict[Any, set[str]] = {}  # known bodies changed in place: the fields set
        self._lookup: tuple[list[Any], tuple[Any, ...], Any] = ([], (), [])  # last frame's moved ids
        # The usual game loop's frame: one move_many of an int id array and
        # nothing else moved. Its ids are kept as that array (a copy), not
        # as a dict, until anything else needs the dict (see _spill_moves).
        self._moved_array: tuple[np.ndarray[Any, Any], int] | None = None
        # ... and, when the world stores them as given (see _pose_copies), copies of its poses
        self._moved_poses: tuple[Any, Any, Any] | None = None
        self._array_lookup: tuple[np.ndarray[Any, Any], tuple[int, ...]] | None = None  # its ids as a tuple
        for body_id in world.ids():
            self._added[body_id] = None
        # The frame's adds as the add_many calls that made them, (ids, first id) per call of one
        # shape with default flags: the Arrow writer then builds the add column from one World.poses
        # read, not a World.body snapshot per body. None once anything else adds, changes or removes
        # a body added in the frame (then each is read with World.body, as the text writer takes them).
        self._add_runs: list[np.ndarray[Any, Any]] | None = [] if not self._added else None
        # Whether every id the world has held while recorded is a plain int:
        # then a step's pairs are put in an int array without a type check
        # per contact (bodies are only added through the recorder).
        self._int_ids = all(type(i) is int for i in self._added)

    # -- bookkeeping -------------------------------------------------------

    def _note_add(self, body_id: Any) -> None:
        self._added.pop(body_id, None)
        self._added[body_id] = None
        self._add_runs = None

    def _spill_moves(self) -> None:
        """Turn the frame's moved id array, if any, into entries of the ``_moved`` dict."""
        if self._moved_array is not None:
            ids, given = self._moved_array
            self._moved_array = None
            self._moved_poses = None
            self._note_moves(ids.tolist(), given)

    def _note_remove(self, body_id: Any) -> None:
        self._spill_moves()
        if body_id in self._added:
            del self._added[body_id]
            self._add_runs = None
        if body_id in self._known and body_id not in self._removed:
            self._removed.append(body_id)
        self._moved.pop(body_id, None)
        self._planes_moved.pop(body_id, None)
        self._changed.pop(body_id, None)

    def _note_set(self, body_id: Any, given: Iterable[str]) -> None:
        if body_id in self._added:
            self._add_runs = None  # read with World.body at the step
            return  # its state at the step goes into its add entry
        self._changed.setdefault(body_id, set()).update(given)

    def _note_plane_move(self, body_id: Any) -> None:
        if body_id not in self._added:
            # An infinite body has no pose: a move the world took as a no-op (``move(id)`` with no
            # field) must not be written beside its plane move, as the text of a pose move. (The
            # world refuses a plane in move_many, so the frame's id array never holds one.)
            self._moved.pop(body_id, None)
            self._planes_moved[body_id] = None

    def _note_moves(self, ids: list[Any], given: int) -> None:
        """Note that ``ids`` (plain ids) were moved with the fields ``given`` (bits)."""
        self._spill_moves()
        if self._added:  # their pose at the step goes into their add entries
            added = self._added
            ids = [i for i in ids if i not in added]
        moved = self._moved
        if not moved:  # the usual first move_many of a frame: no Python loop over bodies
            self._moved = dict.fromkeys(ids, given)
            return
        get = moved.get
        for body_id in ids:
            moved[body_id] = get(body_id, 0) | given

    # -- the world's mutating API -------------------------------------------

    def add(self, shape: Any, position: Any = None, angle: Any = None, quaternion: Any = None,
            **kwargs: Any) -> Any:
        """``world.add``; returns the id."""
        if isinstance(kwargs.get("id"), str):
            plain_id(kwargs["id"])  # an id the file cannot hold is refused before the world takes it
        body_id = self.world.add(shape, position, angle, quaternion, **kwargs)
        self._int_ids = self._int_ids and type(body_id) is int
        self._note_add(body_id)
        return body_id

    def add_many(self, *args: Any, **kwargs: Any) -> list[Any]:
        """``world.add_many``; returns the ids."""
        # The bodies are noted from the ids the world returns, so a one-shot
        # iterable given here is consumed once, by the world.
        given = kwargs.get("ids")
        if isinstance(given, (list, tuple)):
            for body_id in given:
                if isinstance(body_id, str):
                    plain_id(body_id)  # as in add
        ids: list[Any] = self.world.add_many(*args, **kwargs)
        self._int_ids = self._int_ids and set(map(type, ids)) <= {int}
        runs = self._add_runs
        # the world's new ids are not in _added (it holds alive bodies only, and the world refuses an
        # alive id), so one update notes them all in order, as _note_add one by one would
        self._added.update(dict.fromkeys(ids))
        self._add_runs = None
        if (runs is not None and ids and self._arrow is not None and args and isinstance(args[0], SHAPE_TYPES)
                and len(args) <= 4 and not {"static", "category", "mask"} & set(kwargs)
                and set(map(type, ids)) == {int} and -2 ** 63 <= min(ids) and max(ids) < 2 ** 63):
            # one shape (not a sequence), default flags, int64 ids; an array of its own (the caller may
            # change the list returned)
            runs.append(np.array(ids, dtype=np.int64))
            self._add_runs = runs
        return ids

    def move(self, body_id: Any, position: Any = None, angle: Any = None,
             quaternion: Any = None, *, normal: Any = None, offset: Any = None) -> None:
        """``world.move`` (``normal``/``offset`` move a half-plane or plane)."""
        if normal is None and offset is None:
            self.world.move(body_id, position, angle, quaternion)
            plain = _plain_id(body_id)
            if plain in self._planes_moved or (position is None and angle is None and quaternion is None
                                               and self.world.body(plain).shape.is_infinite):
                return  # a half-plane or plane has no pose: the world took this move as a no-op
            self._note_moves([plain], _given(position, angle, quaternion))
            return
        self.world.move(body_id, position, angle, quaternion, normal=normal, offset=offset)
        self._note_plane_move(_plain_id(body_id))

    def set_static(self, body_id: Any, static: bool) -> None:
        """``world.set_static``."""
        self.world.set_static(body_id, static)
        self._note_set(_plain_id(body_id), ["static"])

    def set_filter(self, body_id: Any, *, category: Any = None, mask: Any = None) -> None:
        """``world.set_filter``."""
        self.world.set_filter(body_id, category=category, mask=mask)
        self._note_set(_plain_id(body_id), [f for f, v in (("category", category), ("mask", mask)) if v is not None])

    def set_shape(self, body_id: Any, shape: Any) -> None:
        """``world.set_shape``; a half-plane's or plane's new shape is written as its move."""
        self.world.set_shape(body_id, shape)
        body_id = _plain_id(body_id)
        if self.world.body(body_id).shape.is_infinite:
            self._note_plane_move(body_id)
        else:
            self._note_set(body_id, ["shape"])

    def move_many(self, ids: Any, positions: Any = None, angles: Any = None,
                  quaternions: Any = None) -> None:
        """``world.move_many``."""
        ids = _materialise(ids)  # a generator would be used up by the world, leaving nothing to note
        self.world.move_many(ids, positions, angles, quaternions)
        given = _given(positions, angles, quaternions)
        if (self._moved_array is None and not self._moved and not self._added and isinstance(ids, np.ndarray)
                and ids.dtype.kind in "iu" and ids.ndim == 1):
            # Noted as the array itself (a copy: the caller may reuse theirs);
            # the world has refused an id given twice, so each is there once.
            # The same ids as the last such frame (the usual loop) keep that frame's copy and its
            # tuple: no copy, and the writer finds its id column by the tuple's identity.
            lookup = self._array_lookup
            if lookup is None or len(lookup[0]) != len(ids) or not np.array_equal(lookup[0], ids):
                kept = ids.copy()
                lookup = self._array_lookup = (kept, tuple(kept.tolist()))
            self._moved_array = (lookup[0], given)
            self._moved_poses = _pose_copies(self.world.dim, len(ids), positions, angles, quaternions, self._arrow)
            return
        self._note_moves(_plain_ids(ids), given)

    def remove(self, body_id: Any) -> None:
        """``world.remove``."""
        self.world.remove(body_id)
        self._note_remove(_plain_id(body_id))

    def remove_many(self, ids: Iterable[Any]) -> None:
        """``world.remove_many``."""
        ids = _materialise(ids)  # as in move_many; a str or non-iterable gets the world's error
        self.world.remove_many(ids)
        for body_id in ids:
            self._note_remove(_plain_id(body_id))

    def step(self) -> Any:
        """``world.step()``, then write the frame; returns the step's result.

        The frame's operations are put into text before the world steps (a
        step changes no pose): a frame the writer refuses raises here with
        the world not stepped and the calls still noted, so once the cause
        is gone (say, the body removed) the next step records them all.
        """
        world = self.world
        if (self._moved_poses is not None and self._arrow is not None and not self._added and not self._removed
                and not self._planes_moved and not self._changed and not self.record_contacts):
            return self._step_moves_only()
        adds: Any
        if self._add_runs and self._arrow is not None:
            adds = self._add_columns()
        else:
            adds = [world.body(i) for i in self._added]
        owned = self._moved_poses is not None and not self._planes_moved
        moves: list[Any] = self._move_batches()
        for body_id in self._planes_moved:
            plane = world.body(body_id).shape
            moves.append(MoveSpec(id=body_id, normal=plane.normal, offset=plane.offset))
        changes = []
        for body_id, fields in self._changed.items():
            body = world.body(body_id)
            changes.append(SetSpec(
                id=body_id,
                static=bool(body.static) if "static" in fields else None,
                category=int(body.category) if "category" in fields else None,
                mask=int(body.mask) if "mask" in fields else None,
                shape=body.shape if "shape" in fields else None,
            ))
        # each writer takes back the prepared frame it made (text pieces, or columns)
        if owned and self._arrow is not None:
            # the copies made in move_many, handed over: the writer neither copies nor checks them again
            prepared: Any = self._arrow.prepare_frame(self._removed, adds, moves, None, changes, owned=True)
        else:
            prepared = self.writer.prepare_frame(self._removed, adds, moves, None, changes)
        contacts = world.step()
        expect: Any = None
        if self.record_expect:
            # once per body pair (a compound's pair has a row per pair of parts)
            expect = _expect_pairs(contacts, self._int_ids)
        expect_contacts = None
        if self.record_contacts:
            expect_contacts = [c for c in contacts
                               if _is_convex(world.body(c.a).shape) and _is_convex(world.body(c.b).shape)]
        self.writer.write_prepared(prepared, expect, expect_contacts, None, None)
        self._known.difference_update(self._removed)
        self._known.update(self._added)
        self._added = {}
        self._add_runs = []
        self._removed = []
        self._moved = {}
        self._moved_array = None
        self._moved_poses = None
        if self._planes_moved:
            self._planes_moved = {}
        if self._changed:
            self._changed = {}
        return contacts

    def _step_moves_only(self) -> Any:
        """``step`` for the usual game-loop frame: one ``move_many`` of an int id array whose poses the
        recorder keeps (``_moved_poses``), nothing added, removed or changed, the Arrow form. The same
        frame as the general path writes, without its per-frame lists, specs and row dict."""
        assert self._arrow is not None and self._moved_array is not None and self._moved_poses is not None
        array, given = self._moved_array
        positions, angles, _ = self._moved_poses
        # as _batch and ArrowScenarioWriter._lazy_moves take them: the fields given, the angles in 2D
        # (a 3D move_many with quaternions keeps no poses, so it does not come here)
        rotation = angles if given & _ANGLE and self.world.dim == 2 else None
        assert self._array_lookup is not None and self._array_lookup[0] is array  # set by move_many
        prepared = self._arrow.prepare_moves(self._array_lookup[1], positions if given & _POSITION else None,
                                             rotation)
        contacts = self.world.step()
        self._arrow.write_moves(prepared, _expect_pairs(contacts, self._int_ids) if self.record_expect else None)
        self._moved_array = None
        self._moved_poses = None
        self._add_runs = []
        return contacts

    def _add_columns(self) -> Any:
        """The frame's adds (all made by add_many calls of one shape, see ``_add_runs``) for the Arrow
        writer: their ids, each call's shape and count, and their poses at the step in one read."""
        assert self._arrow is not None and self._add_runs
        runs = self._add_runs
        ids = runs[0] if len(runs) == 1 else np.concatenate(runs)
        shapes = [(self.world.body(int(run[0])).shape, len(run)) for run in runs]
        positions, angles, quaternions = self.world.poses(ids)
        return self._arrow.add_columns(ids, shapes, positions, angles if self.world.dim == 2 else quaternions)

    def _move_batches(self) -> list[MoveBatch]:
        """The moved bodies' poses at the step: one batch per set of fields given,
        read with one ``World.poses`` call."""
        if self._moved_array is not None:
            array, given = self._moved_array
            lookup = self._array_lookup
            if lookup is None or (lookup[0] is not array and not np.array_equal(lookup[0], array)):
                # Kept while the same bodies move: the writer reuses its text
                # of the ids when it is given the same tuple again.
                lookup = self._array_lookup = (array, tuple(array.tolist()))
            poses = self._moved_poses if self._moved_poses is not None else self.world.poses(array)
            return [self._batch(lookup[1], given, *poses)]
        moved = self._moved
        if not moved:
            return []
        ids = list(moved)
        if ids != self._lookup[0]:
            # Kept while the same bodies move: the ids as a tuple (the writer
            # reuses its text of a tuple it has seen) and, for int ids, as an
            # array (the world's table lookup, not a dict lookup per id).
            self._lookup = (ids, tuple(ids), np.array(ids, dtype=np.int64) if set(map(type, ids)) == {int} else ids)
        positions, angles, quaternions = self.world.poses(self._lookup[2])
        kinds = dict.fromkeys(moved.values())  # in order of first use
        batches = []
        for given in kinds:
            if len(kinds) == 1:
                rows: Any = slice(None)
                batch_ids: Any = self._lookup[1]
            else:
                rows = np.flatnonzero(np.fromiter(moved.values(), dtype=np.int64, count=len(ids)) == given)
                batch_ids = [ids[i] for i in rows.tolist()]
            batches.append(self._batch(batch_ids, given, positions[rows], angles if angles is None else angles[rows],
                                       quaternions if quaternions is None else quaternions[rows]))
        return batches

    @staticmethod
    def _batch(ids: Any, given: int, positions: Any, angles: Any, quaternions: Any) -> MoveBatch:
        """The batch of the fields given (bits) of these poses."""
        return MoveBatch(
            ids,
            positions=positions if given & _POSITION else None,
            angles=angles if given & _ANGLE and angles is not None else None,
            quaternions=quaternions if given & _QUATERNION and quaternions is not None else None,
        )

    # -- the rest ------------------------------------------------------------

    @property
    def frames_written(self) -> int:
        return self.writer.frames_written

    def close(self) -> None:
        """Close the file (pending calls after the last step are not written)."""
        self.writer.close()

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getattr__(self, name: str) -> Any:
        # Only called for attributes not found on the recorder: the world's.
        if name in ("world", "writer"):
            raise AttributeError(name)
        return getattr(self.world, name)

    def __len__(self) -> int:
        return len(self.world)

    def __contains__(self, body_id: object) -> bool:
        return body_id in self.world

    def __repr__(self) -> str:
        return f"Recorder({self.world!r}, {self.writer.path!r}, {self.frames_written} frames)"


def _materialise(ids: Any) -> Any:
    """``ids`` as a list when it is a one-shot iterable (generator, iterator, ...).

    Arrays, lists and tuples are kept as they are (a numpy array keeps the
    world's fast path); strings, bytes and non-iterables are passed on
    unchanged so the world reports them with its own error.
    """
    if isinstance(ids, (np.ndarray, list, tuple, str, bytes)) or not isinstance(ids, Iterable):
        return ids
    return list(ids)


def _pose_copies(dim: int, n: int, positions: Any, angles: Any, quaternions: Any,
                 writer: ArrowScenarioWriter | None = None) -> tuple[Any, Any, Any] | None:
    """Copies of the poses a ``move_many`` the world has just accepted gave, with the bits the world
    stored, or None when that is not certain without redoing the world's work (then the poses are
    read back with ``World.poses`` at the step).

    The world stores positions and angles as ``np.asarray(value).astype(float64)``
    (``poses.check_positions``, ``check_angles``): a numeric array of the final shape
    converted the same way has the same bits. Quaternions are normalised (and matrices
    turned into quaternions) by the world, so they are read back.

    With the Arrow ``writer``, float64 poses are copied into its :meth:`~.ArrowScenarioWriter.pose_slot`
    rows (the batch's poses in one buffer, not joined at the flush)."""
    if quaternions is not None:
        return None
    out: list[Any] = []
    for value, shape in ((positions, (n, dim)), (angles, (n,))):
        if value is None:
            out.append(None)
        elif (writer is not None and isinstance(value, np.ndarray) and value.dtype == np.float64
              and value.shape == shape):
            slot = writer.pose_slot(n, 0 if len(shape) == 1 else dim)
            np.copyto(slot, value)  # a copy: the caller may reuse theirs
            out.append(slot)
        elif isinstance(value, np.ndarray) and value.dtype.kind in "iuf" and value.shape == shape:
            out.append(np.array(value, dtype=np.float64, order="C"))  # a copy: the caller may reuse theirs
        else:
            return None
    return out[0], out[1], None


def _given(position: Any, angle: Any, quaternion: Any) -> int:
    """The bits of the pose fields given (not None)."""
    return ((_POSITION if position is not None else 0) | (_ANGLE if angle is not None else 0)
            | (_QUATERNION if quaternion is not None else 0))


def _plain_ids(ids: Any) -> list[Any]:
    """The ids of a move_many call (already accepted by the world) as a list of plain ids."""
    items = ids.tolist() if isinstance(ids, np.ndarray) else list(ids)
    if set(map(type, items)) <= {int, str}:
        return items
    return [_plain_id(i) for i in items]


def _plain_id(value: Any) -> Any:
    item = getattr(value, "item", None)  # numpy integer -> int
    return item() if item is not None and not isinstance(value, (str, int)) else value


def _expect_pairs(contacts: Any, int_ids: bool) -> Any:
    """The step's pairs for the writer, each once, in order of first appearance (a compound's
    pair has a row per pair of parts): an (m, 2) int64 array when every id is an int that fits
    (one text for all, no tuple per pair), else a list of tuples.

    ``int_ids`` says that every body's id is an int (known to the recorder): the
    ids are then cast without a type check per pair."""
    a, b = contacts.a, contacts.b
    given = contacts.int_pairs() if len(a) else None
    if given is not None:
        return given  # made by the step with one take per side (every id a small int; no compound)
    if len(a) and (int_ids or set(map(type, a)) | set(map(type, b)) == {int}):
        pairs = np.empty((len(a), 2), dtype=np.int64)
        try:
            pairs[:, 0] = a
            pairs[:, 1] = b
        except (OverflowError, ValueError, TypeError):  # an id beyond 64 bits (or not an int after all)
            pass
        else:
            if (contacts.part_a < 0).all() and (contacts.part_b < 0).all():
                return pairs  # no compound: each row is a different pair
            # Repeats sit next to each other once sorted; the sort is stable,
            # so the first of equal rows is the first to appear.
            order = np.lexsort((pairs[:, 1], pairs[:, 0]))
            ranked = pairs[order]
            repeated = (ranked[1:] == ranked[:-1]).all(axis=1)
            if repeated.any():
                keep = np.ones(len(pairs), dtype=bool)
                keep[order[1:][repeated]] = False
                pairs = pairs[keep]
            return pairs
    return list(dict.fromkeys(zip(a.tolist(), b.tolist(), strict=True)))


def _is_convex(shape: Any) -> bool:
    return getattr(shape, "is_convex", True)
