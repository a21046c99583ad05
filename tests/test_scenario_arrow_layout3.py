"""Layout 3 of the Arrow form (a plane's move in the ``move_plane`` column), the stream's end marker,
and the recorder's copies of the poses given to ``move_many``.

Oracles: the json module's reading of the text files (every float as its bits), the values the
tests gave (converted by numpy, compared by their bits), a stream written by the layout 2 writer
(tests/data/recording-layout2.arrows, written by collideworld 0.9.0 from
tests/data/recording-layout2.jsonl by tests' own text), and pyarrow's own view of the bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from collideworld import Box, Circle, HalfPlane, World
from collideworld.errors import ScenarioError
from collideworld.scenario import MoveSpec, Recorder, read_scenario
from collideworld.scenario.arrow import ArrowScenarioWriter, convert
from collideworld.scenario.arrow_source import arrow_schema

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
SCENARIO_FILES = sorted(p for p in (ROOT / "scenarios").iterdir() if p.name.endswith((".jsonl", ".jsonl.gz")))
_FLOAT_KEYS = {"position", "angle", "quaternion", "normal", "offset"}


def _tagged(text: str):
    """The json module's reading of a line: every float as its bits, every int kept an int."""
    return json.loads(text, parse_float=lambda s: ("float", float(s).hex()), parse_int=lambda s: ("int", int(s)))


def _stored(value, key=None):
    """Ints in the float columns as floats (the Arrow form stores them as float64); comments dropped."""
    if isinstance(value, dict):
        return {k: _stored(v, k) for k, v in value.items() if not k.startswith("_")}
    if isinstance(value, list):
        return [_stored(v, key) for v in value]
    if key in _FLOAT_KEYS and isinstance(value, tuple) and value[0] == "int":
        return ("float", float(value[1]).hex())
    return value


def _text_lines(path: Path) -> list[str]:
    if path.name.endswith(".gz"):
        import gzip

        return gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()
    return path.read_text(encoding="utf-8").splitlines()


def _layout(path: Path) -> bytes:
    return pa.ipc.open_stream(path.read_bytes()).schema.metadata[b"collideworld_arrow"]


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.name)
def test_every_scenario_file_round_trips_through_layout_3(tmp_path, path):
    """scenarios/*.jsonl -> .arrows (layout 3) -> .jsonl: the same JSON values, every float to the bit."""
    arrows, back = tmp_path / "a.arrows", tmp_path / "back.jsonl"
    n = convert(path, arrows, batch_frames=3)
    assert _layout(arrows) == b"3"
    assert convert(arrows, back) == n
    want = [_stored(_tagged(line)) for line in _text_lines(path) if line.strip()]
    got = [_stored(_tagged(line)) for line in back.read_text(encoding="utf-8").splitlines()]
    assert got == want


def test_move_entries_carry_no_plane_fields():
    for dim in (2, 3):
        move = arrow_schema(dim).field("move").type.value_type
        assert [f.name for f in move] == ["id", "position", "angle" if dim == 2 else "quaternion"]
        plane = arrow_schema(dim).field("move_plane").type.value_type
        assert [f.name for f in plane] == ["at", "id", "normal", "offset"]


def _plane_frames(rng, dim):
    """Frames of pose moves and plane moves in random order (planes first, last, between, alone)."""
    ids = [0, 1, "p", 3, "q"]
    planes = ["floor", "wall"]
    frames = []
    for _ in range(int(rng.integers(1, 8))):
        moves = []
        for i in rng.permutation(np.array(ids + planes, dtype=object))[: rng.integers(0, 8)]:
            if i in planes:
                normal = rng.normal(0, 1, dim)
                moves.append(MoveSpec(id=i, normal=tuple(normal / np.linalg.norm(normal)),
                                      offset=float(rng.normal(0, 3))))
            elif dim == 2:
                moves.append(MoveSpec(id=i, position=tuple(rng.normal(0, 5, 2)), angle=float(rng.normal())))
            else:
                q = rng.normal(0, 1, 4)
                moves.append(MoveSpec(id=i, position=tuple(rng.normal(0, 5, 3)), quaternion=tuple(q / np.linalg.norm(q))))
        frames.append(moves)
    return ids, planes, frames


def test_plane_moves_keep_their_place_in_the_move_list(tmp_path):
    """150 seeded sets of frames (2D and 3D): the move lists read back in the order and with the bits given."""
    for seed in range(150):
        rng = np.random.default_rng(seed)
        dim = 2 if seed % 2 else 3
        ids, planes, frames = _plane_frames(rng, dim)
        shape = {"type": "circle" if dim == 2 else "sphere", "radius": 0.5}
        plane = {"type": "halfplane" if dim == 2 else "plane", "normal": [0.0] * (dim - 1) + [1.0], "offset": 0.0}
        path = tmp_path / f"p{seed}.arrows"
        with ArrowScenarioWriter(path, dim=dim, batch_frames=int(rng.integers(1, 4))) as w:
            w.write_frame(add=[{"id": i, "shape": shape, "position": [0.0] * dim} for i in ids]
                          + [{"id": i, "shape": plane} for i in planes])
            for moves in frames:
                w.write_frame(move=moves)
        got = [list(f.move) for f in read_scenario(path)][1:]
        assert got == frames, seed


def test_a_layout_2_stream_still_reads(tmp_path):
    """A stream of the layout 2 writer (plane fields in every move entry) reads as the text it was made of."""
    old = DATA / "recording-layout2.arrows"
    assert _layout(old) == b"2"
    back = tmp_path / "back.jsonl"
    assert convert(old, back) == 10
    text = DATA / "recording-layout2.jsonl"
    assert [_stored(_tagged(x)) for x in back.read_text().splitlines()] == [
        _stored(_tagged(x)) for x in text.read_text().splitlines()]
    assert [repr(f) for f in read_scenario(old)] == [repr(f) for f in read_scenario(text)]


def _stream_with_planes(path, planes, move=(), dim=2):
    """A one-frame layout 3 stream whose frame has these ``move`` and ``move_plane`` values."""
    schema = arrow_schema(dim, {"collideworld_scenario": 2, "dim": dim})
    ident = {"int": None, "str": "floor"}
    row = {name: None for name in schema.names}
    row.update(frame=1, move=list(move) if move is not None else None,
               move_plane=[{"at": at, "id": ident, "normal": [0.0, 1.0], "offset": 1.0} for at in planes])
    with pa.ipc.new_stream(str(path), schema) as out:
        out.write_batch(pa.RecordBatch.from_pylist([row], schema=schema))


@pytest.mark.parametrize(("planes", "move"), [
    ([1], []),            # past the end: the frame has one move
    ([0, 0], []),         # not rising
    ([-1], []),
    ([0], None),          # a plane move in a frame without a move list
])
def test_a_bad_plane_index_is_named_by_batch_frame_and_column(tmp_path, planes, move):
    path = tmp_path / "bad.arrows"
    _stream_with_planes(path, planes, move)
    with pytest.raises(ScenarioError, match=r"bad\.arrows: batch 1, frame 1: move_plane"):
        list(read_scenario(path))


def _recorded_stream(path, frames=9, batch_frames=2):
    with Recorder(World(dim=2), path) as rec:
        rec.writer.batch_frames = batch_frames
        ids = np.asarray(rec.add_many(Circle(0.5), np.arange(12.0).reshape(6, 2)))
        rec.step()
        for f in range(frames - 1):
            rec.move_many(ids, positions=np.arange(12.0).reshape(6, 2) + f)
            rec.step()


def test_a_recording_cut_anywhere_reads_back_to_its_last_complete_batch(tmp_path):
    """Layout 3 keeps the crash guarantee: a stream cut at the end of a batch message (a writer killed
    between batches) reads its complete batches; cut inside one, it is an error naming that batch, or
    with ignore_truncated_tail, the batches before it. Message ends from pyarrow's own reading."""
    whole = tmp_path / "whole.arrows"
    _recorded_stream(whole)
    data = whole.read_bytes()
    stream = pa.BufferReader(data)
    ends = [stream.tell() for m in pa.ipc.MessageReader.open_stream(stream) if m.type == "record batch"]
    assert len(ends) == 5  # frames 1-9 in batches of 2
    cut = tmp_path / "cut.arrows"
    for k, end in enumerate(ends[:-1], start=1):
        for size in (end, end + 1, (end + ends[k]) // 2, ends[k] - 1):
            cut.write_bytes(data[:size])
            assert len(list(read_scenario(cut, ignore_truncated_tail=True))) == 2 * k
            if size == end:
                assert len(list(read_scenario(cut))) == 2 * k
            else:
                with pytest.raises(ScenarioError, match=rf"cut\.arrows: batch {k + 1}\b.*truncated"):
                    list(read_scenario(cut))
    assert len(list(read_scenario(whole))) == 9


def _poses_read(path, frame):
    moves = list(read_scenario(path))[frame].move
    return (np.array([m.position for m in moves], dtype=np.float64).tobytes(),
            np.array([m.angle for m in moves], dtype=np.float64).tobytes())


@pytest.mark.parametrize("suffix", [".arrows", ".jsonl"])
def test_recorded_moves_have_the_bits_given_to_move_many(tmp_path, suffix):
    """24 seeded loops with positions and angles of many dtypes and layouts (float64, float32, int,
    Fortran order, strided views, lists, a scalar angle), the caller changing its arrays after each
    call: every move reads back as numpy's float64 conversion of what move_many was given."""
    for seed in range(24):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(1, 30))
        path = tmp_path / f"r{seed}{suffix}"
        want = []
        with Recorder(World(dim=2), path) as rec:
            ids = np.asarray(rec.add_many(Box((0.3, 0.2)), rng.uniform(0, 20, (n, 2))))
            rec.step()
            for _ in range(5):
                kind = int(rng.integers(0, 7))
                pos = rng.uniform(-50, 50, (n, 2))
                ang = rng.uniform(-4, 4, n)
                if kind == 1:
                    pos, ang = pos.astype(np.float32), ang.astype(np.float32)
                elif kind == 2:
                    pos, ang = np.round(pos).astype(np.int64), np.round(ang).astype(np.int32)
                elif kind == 3:
                    pos = np.asfortranarray(pos)
                elif kind == 4:
                    pos, ang = np.repeat(pos, 2, axis=0)[::2], np.repeat(ang, 3)[::3]
                elif kind == 5:
                    pos, ang = pos.tolist(), ang.tolist()
                elif kind == 6:
                    ang = float(ang[0])
                want.append((np.asarray(pos).astype(np.float64).tobytes(),
                             np.broadcast_to(np.asarray(ang, dtype=np.float64), (n,)).tobytes()))
                rec.move_many(ids, positions=pos, angles=ang)
                if isinstance(pos, np.ndarray):
                    pos[...] = 7  # the caller reuses its arrays before the step
                    if isinstance(ang, np.ndarray):
                        ang[...] = 7
                rec.step()
        got = [_poses_read(path, f) for f in range(1, 6)]
        assert got == want, seed


def test_recorded_3d_moves_are_the_quaternions_the_world_stored(tmp_path):
    """Quaternions are normalised by the world: the file holds what the world stored (read back)."""
    path = tmp_path / "q.arrows"
    rng = np.random.default_rng(2)
    with Recorder(World(dim=3), path) as rec:
        from collideworld import Sphere

        ids = np.asarray(rec.add_many(Sphere(0.5), rng.uniform(0, 9, (8, 3))))
        rec.step()
        q = rng.normal(0, 1, (8, 4))
        q /= np.linalg.norm(q, axis=1)[:, None]
        q *= 1 + 1e-8  # a norm within the world's tolerance of 1, normalised again when stored
        rec.move_many(ids, positions=rng.uniform(0, 9, (8, 3)), quaternions=q)
        rec.step()
        stored = rec.poses(ids)[2]
    got = np.array([m.quaternion for m in list(read_scenario(path))[1].move])
    assert got.tobytes() == stored.tobytes()
    # the world's unit quaternions are q divided by its norm, as numpy computes them here
    assert np.allclose(got, q / np.linalg.norm(q, axis=1)[:, None], rtol=0, atol=1e-15)


def test_a_plane_moved_in_a_recorded_frame_keeps_its_place(tmp_path):
    """A recorder frame with a move_many and a plane's move: the plane's move is written after the poses."""
    path = tmp_path / "hp.arrows"
    with Recorder(World(dim=2), path) as rec:
        ids = np.asarray(rec.add_many(Circle(0.5), [[0.0, 0.0], [3.0, 0.0]]))
        rec.add(HalfPlane((0.0, 1.0), -1.0), id="floor")
        rec.step()
        rec.move_many(ids, positions=np.array([[0.0, 1.0], [3.0, 1.0]]))
        rec.move("floor", normal=(0.0, 1.0), offset=-2.0)
        rec.step()
    frame = list(read_scenario(path))[1]
    assert [(m.id, m.position, m.offset) for m in frame.move] == [(0, (0.0, 1.0), None), (1, (3.0, 1.0), None),
                                                                  ("floor", None, -2.0)]


def _is_plane(shape):
    return isinstance(shape, tuple) or shape.is_infinite


def _shape_key(shape):
    """A half-plane as the bits of its normal and offset, any other shape as itself."""
    if isinstance(shape, tuple):
        return ("plane", np.asarray(shape[1], dtype=np.float64).tobytes(), float(shape[2]).hex())
    if shape.is_infinite:
        return ("plane", np.asarray(shape.normal, dtype=np.float64).tobytes(), float(shape.offset).hex())
    return shape


def _state_from_file(path):
    """Each frame's bodies as the file says, applied here by hand (remove, add, then the move list in
    order; a plane's move is a new plane): id -> (shape, position, angle)."""
    state: dict = {}
    out = []
    for frame in read_scenario(path):
        for i in frame.remove:
            del state[i]
        for b in frame.add:
            state[b.id] = (b.shape, b.position, b.angle)
        for m in frame.move:
            shape, position, angle = state[m.id]
            if m.normal is not None:
                assert m.position is None and m.angle is None, (frame.number, m)  # a plane has no pose
                shape = ("plane", m.normal, m.offset)  # the stored bits (a new HalfPlane would normalise again)
            else:
                assert not _is_plane(shape), (frame.number, m)  # no pose move of an infinite body
                position = m.position if m.position is not None else position
                angle = m.angle if m.angle is not None else angle
            state[m.id] = (shape, position, angle)
        for c in frame.set:
            if c.shape is not None:
                state[c.id] = (c.shape, *state[c.id][1:])
        out.append({i: (_shape_key(s), None if p is None else np.asarray(p, dtype=np.float64).tobytes(),
                        None if _is_plane(s) else float(0.0 if a is None else a).hex())
                    for i, (s, p, a) in state.items()})
    return out


@pytest.mark.parametrize("suffix", [".arrows", ".jsonl"])
def test_plane_changes_next_to_move_many_record_no_pose_move(tmp_path, suffix):
    """Seeded frames mixing move_many (int id arrays, some empty) with set_shape and moves of half-planes
    (a move with no field, which the world takes as a no-op; a new shape; normal and offset): every frame
    read back and applied by hand gives the shapes and pose bits of the world that was driven, and no
    half-plane gets a pose move entry. Oracle: the live world, read after each step."""
    for seed in range(8):
        rng = np.random.default_rng(seed)
        path = tmp_path / f"planes{seed}{suffix}"
        live = []
        with Recorder(World(dim=2), path) as rec:
            ids = np.asarray(rec.add_many(Circle(0.5), rng.uniform(0, 9, (5, 2))))
            planes = [rec.add(HalfPlane((0.0, 1.0), -float(k)), id=f"floor{k}") for k in range(2)]
            rec.step()
            for _ in range(6):
                chosen = ids[rng.random(len(ids)) < 0.6]
                rec.move_many(chosen, positions=rng.uniform(0, 9, (len(chosen), 2)),
                              angles=rng.uniform(-3, 3, len(chosen)))
                for p in planes:
                    op = int(rng.integers(4))
                    if op == 0:
                        rec.move(p)
                    elif op == 1:
                        angle = rng.uniform(-3, 3)
                        rec.set_shape(p, HalfPlane((np.cos(angle), np.sin(angle)), float(rng.uniform(-2, 2))))
                    elif op == 2:
                        rec.move(p, normal=(0.0, -1.0), offset=float(rng.uniform(-2, 2)))
                if rng.random() < 0.3:
                    rec.move_many(np.array([], dtype=np.int64))
                rec.step()
                live.append({i: (_shape_key(rec.body(i).shape),
                                 None if rec.body(i).position is None else rec.body(i).position.tobytes(),
                                 None if rec.body(i).shape.is_infinite else float(rec.body(i).angle).hex())
                             for i in rec.ids()})
        got = _state_from_file(path)
        assert len(got) == len(live) + 1  # frame 1 is the adds
        for k, (g, w) in enumerate(zip(got[1:], live, strict=True)):
            assert g.keys() == w.keys(), (seed, k)
            for i in w:
                assert g[i] == w[i], (seed, k, i, g[i], w[i])


@pytest.mark.parametrize("suffix", [".arrows", ".jsonl"])
def test_an_empty_move_many_beside_a_plane_change_records_the_change_only(tmp_path, suffix):
    """move_many of no ids, then a half-plane given a new shape: the frame's move list is the plane's
    move alone (the Arrow writer took an empty id tuple for its cached ids before any were cached)."""
    path = tmp_path / f"empty{suffix}"
    with Recorder(World(dim=2), path) as rec:
        rec.add(Circle(0.5), (0.0, 0.0), id=0)
        rec.add(HalfPlane((0.0, 1.0), -2.0), id=1)
        rec.step()
        rec.move_many(np.array([], dtype=np.int64), positions=np.zeros((0, 2)))
        rec.set_shape(1, HalfPlane((0.0, 1.0), -1.0))
        rec.step()
        rec.move_many(np.array([], dtype=np.int64))
        rec.step()
    frames = list(read_scenario(path))
    assert [(m.id, m.position, m.normal, m.offset) for m in frames[1].move] == [(1, None, (0.0, 1.0), -1.0)]
    assert frames[2].move == ()


def test_a_cut_batch_is_named_by_its_index_and_the_column_the_file_ends_in(tmp_path):
    """An uncompressed stream cut inside each column of each batch, and inside its message header: the
    error names that batch (not the last frame read, which belongs to the batch before), its frames and
    that column. Oracle: pyarrow's
    own reading of the whole file, message by message; a column's bytes are where its zero-copy buffers
    lie in the message body."""
    whole = tmp_path / "whole.arrows"
    with ArrowScenarioWriter(whole, dim=2, batch_frames=3, compression=None) as w:
        w.write_frame(add=[{"id": k, "shape": {"type": "circle", "radius": 0.5}, "position": [3.0 * k, 0.0]}
                           for k in range(4)], expect=[])
        for f in range(1, 8):
            w.write_frame(move=[MoveSpec(id=k, position=(3.0 * k + 0.1 * f, 0.0), angle=0.01 * f) for k in range(4)],
                          expect=[(0, 1)] if f % 2 else [])
    data = whole.read_bytes()
    stream = pa.BufferReader(data)
    reader = pa.ipc.MessageReader.open_stream(stream)
    schema = pa.ipc.read_schema(reader.read_next_message())
    cuts = []  # (batch, first frame, column, a byte offset inside that column's buffers)
    batch_no, first = 0, 1
    before = stream.tell()
    for message in reader:
        end = stream.tell()
        body = message.body
        start = end - body.size
        batch = pa.ipc.read_record_batch(message, schema)
        batch_no += 1
        for name in schema.names:
            spans = [(b.address - body.address, b.size) for b in batch.column(name).buffers()
                     if b is not None and b.size]
            if spans:
                lo = min(o for o, _ in spans)
                hi = max(o + n for o, n in spans)
                for at in sorted({lo, (lo + hi) // 2, hi - 1}):
                    cuts.append((batch_no, first, name, start + at))
        cuts.append((batch_no, first, None, before + 12))  # inside the message's metadata
        before = end
        first += batch.num_rows
    assert batch_no == 3 and len({c[2] for c in cuts}) >= 6
    cut = tmp_path / "cut.arrows"
    for batch_no, first, name, size in cuts:
        cut.write_bytes(data[:size])
        with pytest.raises(ScenarioError) as info:
            list(read_scenario(cut))
        message = str(info.value)
        last = min(first + 2, 8)
        assert message.startswith(f"{cut}: batch {batch_no}: the batch is truncated"), message
        if name is None:
            assert " in its message header, before any column" in message, message
        else:
            assert f" in column '{name}'" in message and f"(frames {first}-{last};" in message, (size, message)
        # with the option, the batches before it
        assert len(list(read_scenario(cut, ignore_truncated_tail=True))) == first - 1


def _adds_read(path):
    """Every frame's add entries as read: the floats as their bits, absent fields as None."""
    def bits(v):
        return None if v is None else np.asarray(v, dtype=np.float64).tobytes()

    return [[(b.id, b.shape, bits(b.position), bits(b.angle), bits(b.quaternion), b.static, b.category, b.mask)
             for b in frame.add] for frame in read_scenario(path)]


@pytest.mark.parametrize("dim", [2, 3])
def test_add_many_frames_record_the_entries_of_the_world_snapshots(tmp_path, dim):
    """Frames of add_many calls (one shape each; angles and quaternions with zeros of both signs and
    identities, which the file leaves out as defaults; bodies moved after being added; a call with
    flags, and a single add, that take the per-body path): the Arrow recording reads back with the add
    entries of the text recording, whose writer takes a World.body snapshot per body. Oracle: the
    text form, and the poses the world holds at each step."""
    from collideworld import Sphere

    for seed in range(10):
        rng = np.random.default_rng(seed)
        paths = [tmp_path / f"adds{seed}.jsonl", tmp_path / f"adds{seed}.arrows"]
        live = []
        for path in paths:
            rng = np.random.default_rng(seed)
            with Recorder(World(dim=dim), path) as rec:
                next_id = 0
                for _ in range(4):
                    for _ in range(int(rng.integers(0, 3))):
                        n = int(rng.integers(1, 6))
                        shape = Circle(float(rng.uniform(0.2, 1))) if dim == 2 else Sphere(float(rng.uniform(0.2, 1)))
                        positions = rng.uniform(-5, 5, (n, dim))
                        if dim == 2:
                            rot = {"angles": rng.choice([0.0, -0.0, 0.5, -1.25], n)} if rng.random() < 0.7 else {}
                        else:
                            q = rng.normal(0, 1, (n, 4))
                            q[rng.random(n) < 0.5] = [1.0, 0.0, 0.0, 0.0]
                            q[rng.random(n) < 0.2] = [1.0, -0.0, 0.0, -0.0]
                            rot = {"quaternions": q / np.linalg.norm(q, axis=1)[:, None]}
                        flags = {"static": True} if rng.random() < 0.15 else {}
                        ids = rec.add_many(shape, positions, **rot, **flags, ids=list(range(next_id, next_id + n)))
                        next_id += n
                        if rng.random() < 0.3:
                            rec.move(ids[0], position=tuple(rng.uniform(-5, 5, dim)))
                        ids.clear()  # the caller's list: the recorder keeps its own
                    if rng.random() < 0.1:
                        rec.add(Box((0.5, 0.5)) if dim == 2 else Sphere(0.5), position=(0.0,) * dim, id=next_id)
                        next_id += 1
                    rec.step()
                    if path.suffix == ".arrows":
                        live.append({i: rec.poses([i])[0].tobytes() for i in rec.ids()})
        text, arrow = (_adds_read(p) for p in paths)
        assert arrow == text, seed
        # and the poses are the world's at each step
        for frame, poses in zip(arrow, live, strict=True):
            for entry in frame:
                assert entry[2] == poses[entry[0]], seed
