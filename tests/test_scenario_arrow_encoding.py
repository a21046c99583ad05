"""Layout 2 of the Arrow form: the stream's move poses stored as differences and byte planes.

Oracles: the floats the tests themselves gave (compared by their bits), a
decoder written here from docs/scenario-format.md ("Layout 2") with the
struct module, one value at a time, and a stream written by collideworld
0.8.0 (tests/data/recording-0.8.0.arrows, layout 1) beside its text form as
0.8.0 converted it (tests/data/recording-0.8.0.jsonl).
"""

from __future__ import annotations

import json
import os
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from collideworld.errors import ScenarioError
from collideworld.scenario import MoveBatch, MoveSpec, read_scenario
from collideworld.scenario import arrow_source as arrow_source_module
from collideworld.scenario.arrow import ArrowScenarioWriter, convert, frames_table

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


def _tagged(text: str):
    """The JSON module's reading of a line, every float as its bits."""
    return json.loads(text, parse_float=lambda s: ("float", float(s).hex()), parse_int=lambda s: ("int", int(s)))


def _float_keys(value):
    """Ints in the float fields read as floats (the Arrow form stores them as float64)."""
    if isinstance(value, dict):
        return {k: (_as_float(v) if k in ("position", "angle", "quaternion", "normal", "offset") else _float_keys(v))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_float_keys(v) for v in value]
    return value


def _as_float(value):
    if isinstance(value, list):
        return [_as_float(v) for v in value]
    if isinstance(value, tuple) and value[0] == "int":
        return ("float", float(value[1]).hex())
    return value


def test_a_stream_written_by_0_8_0_still_reads(tmp_path):
    """Layout 1 (plain float64, collideworld 0.8.0): every frame as 0.8.0's own text conversion says."""
    old = DATA / "recording-0.8.0.arrows"
    assert pa.ipc.open_stream(old.read_bytes()).schema.metadata[b"collideworld_arrow"] == b"1"
    back = tmp_path / "back.jsonl"
    assert convert(old, back) == 8
    want = [_float_keys(_tagged(line)) for line in (DATA / "recording-0.8.0.jsonl").read_text().splitlines()]
    got = [_float_keys(_tagged(line)) for line in back.read_text().splitlines()]
    assert got == want
    assert [repr(f) for f in read_scenario(old)] == [repr(f) for f in read_scenario(DATA / "recording-0.8.0.jsonl")]
    assert frames_table(old).num_rows == frames_table(DATA / "recording-0.8.0.jsonl").num_rows == 7 * 5 + 6 * 3  # frames 1-5: 7 bodies; 6-8: 6


def test_a_new_stream_says_layout_3_and_an_older_reader_refuses_it(tmp_path, monkeypatch):
    path = tmp_path / "new.arrows"
    with ArrowScenarioWriter(path, dim=2) as w:
        w.write_frame(add=[{"id": 0, "shape": {"type": "circle", "radius": 1.0}, "position": [0.0, 0.0]}])
        w.write_frame(move=[MoveBatch([0], positions=np.array([[0.5, 0.25]]))])
    assert pa.ipc.open_stream(path.read_bytes()).schema.metadata[b"collideworld_arrow"] == b"3"
    # Parquet stays plain float64 (every tool reads it): layout 1
    convert(path, tmp_path / "new.parquet")
    import pyarrow.parquet as pq

    assert pq.read_schema(tmp_path / "new.parquet").metadata[b"collideworld_arrow"] == b"1"
    # a reader of layouts 1 and 2 only (collideworld 0.9.0's check) names the layout and asks for a newer version
    monkeypatch.setattr(arrow_source_module, "READ_LAYOUTS", (1, 2))
    with pytest.raises(ScenarioError, match=r"new\.arrows: schema: .*layout '3'.*reads layouts 1 and 2: .*newer"):
        list(read_scenario(path))


def _random_frames(rng, dim):
    """Frames of moves (MoveBatch and MoveSpec) of int and str ids, the same bodies often, in changing
    order sometimes; floats of many bit patterns the reader takes (tiny, 1e150, -0.0, subnormal)."""
    width = 4 if dim == 3 else 1
    pool = [0, 1, 2, "a", "b", 17, "longer id", 5]
    shape = {"type": "circle" if dim == 2 else "sphere", "radius": 0.5}
    adds = [{"id": i, "shape": shape, "position": [0.0] * dim} for i in pool]
    frames = []
    ids = list(pool[: rng.integers(1, len(pool) + 1)])

    def floats(shape):
        kind = rng.integers(0, 4)
        if kind == 0:
            return rng.normal(0, 10, shape)
        if kind == 1:
            return rng.choice([0.0, -0.0, 5e-324, 1e150, -1e-300, 1.0, 2.0 ** 52], size=shape)
        if kind == 2:
            return np.round(rng.normal(0, 100, shape), 2)
        base = rng.normal(0, 50, shape)
        return base + rng.integers(-3, 4, shape) * np.spacing(base)

    def unit_quaternions(n):  # the reader takes unit quaternions only (norm within 1e-6 of 1)
        q = rng.normal(0, 1, (n, 4))
        q /= np.linalg.norm(q, axis=1)[:, None]
        q[rng.random(n) < 0.2] = [1.0, 0.0, -0.0, 0.0]
        return q + rng.integers(-3, 4, q.shape) * np.spacing(q)

    for _ in range(rng.integers(1, 9)):
        r = rng.random()
        if r < 0.15:
            frames.append([])
            continue
        if r < 0.3:
            ids = list(rng.permutation(np.array(pool, dtype=object))[: rng.integers(1, len(pool) + 1)])
        n = len(ids)
        fields = rng.integers(1, 4)  # bits: 1 position, 2 rotation
        pos = floats((n, dim)) if fields & 1 else None
        rot = (None if not fields & 2 else floats((n,)) if width == 1 else unit_quaternions(n))
        if rng.random() < 0.2:  # as MoveSpec entries (the per-frame path)
            frames.append([MoveSpec(id=ids[k], position=None if pos is None else tuple(pos[k]),
                                    **({} if rot is None else
                                       {"angle": float(rot[k])} if dim == 2 else {"quaternion": tuple(rot[k])}))
                           for k in range(n)])
        else:
            kw = {} if rot is None else {"angles": rot} if dim == 2 else {"quaternions": rot}
            frames.append([MoveBatch(tuple(ids), positions=pos, **kw)])
    return adds, frames


def _expected_moves(frames, dim):
    """What each frame's moves must read back as: (id, position bits, rotation bits) per entry."""
    out = []
    for moves in frames:
        rows = []
        for m in moves:
            if isinstance(m, MoveBatch):
                rot = m.angles if dim == 2 else m.quaternions
                for k, i in enumerate(m.ids):
                    rows.append((i, None if m.positions is None else np.asarray(m.positions[k]).tobytes(),
                                 None if rot is None else np.asarray(rot[k], dtype=np.float64).tobytes()))
            else:
                rot = m.angle if dim == 2 else m.quaternion
                rows.append((m.id, None if m.position is None else np.asarray(m.position).tobytes(),
                             None if rot is None else np.asarray(rot, dtype=np.float64).tobytes()))
        out.append(rows)
    return out


def _read_moves(path, dim):
    out = []
    for frame in list(read_scenario(path))[1:]:
        rot = "angle" if dim == 2 else "quaternion"
        out.append([(m.id, None if m.position is None else np.asarray(m.position, dtype=np.float64).tobytes(),
                     None if getattr(m, rot) is None else np.asarray(getattr(m, rot), dtype=np.float64).tobytes())
                    for m in frame.move])
    return out


def test_random_moves_read_back_bit_for_bit(tmp_path):
    """200 seeded configurations (2D and 3D, batches of 1-5 frames): every float read back has the bits given."""
    for seed in range(200):
        rng = np.random.default_rng(seed)
        dim = 2 if seed % 2 else 3
        adds, frames = _random_frames(rng, dim)
        path = tmp_path / f"r{seed}.arrows"
        with ArrowScenarioWriter(path, dim=dim, batch_frames=int(rng.integers(1, 6))) as w:
            w.write_frame(add=adds)
            for moves in frames:
                w.write_frame(move=moves)
        assert _read_moves(path, dim) == _expected_moves(frames, dim), seed


def _doc_decode(stream_bytes):
    """The move positions and angles of a 2D layout 2 or 3 stream, decoded one value at a time as
    docs/scenario-format.md says, from the buffers: per batch, per field, the byte planes put back
    together, then (layout 3) each value's zigzag code undone, then each value of a frame that repeats
    the previous frame's ids (in order, all with the field set) added to that frame's value (layout 3,
    when that frame repeats the one before it too: twice that value minus the one before), modulo 2**64."""
    frames = []
    reader = pa.ipc.open_stream(stream_bytes)
    layout = int(reader.schema.metadata[b"collideworld_arrow"])
    for batch in reader:
        move = batch.column("move")
        entries = move.values
        offsets = move.offsets.to_pylist()
        ids = [i["int"] if i["str"] is None else i["str"] for i in entries.field("id").to_pylist()]
        decoded = {}
        for name, width in (("position", 2), ("angle", 1)):
            field = entries.field(name)
            values = field.values if width > 1 else field
            assert values.offset == 0 and field.offset == 0
            raw = values.buffers()[1].to_pybytes()[: len(values) * 8]
            m = len(values)
            bits = [int.from_bytes(bytes(raw[b * m + i] for b in range(8)), "little") for i in range(m)]
            if layout == 3:
                bits = [(v >> 1) if v % 2 == 0 else (-(v >> 1) - 1) % 2 ** 64 for v in bits]
            valid = field.is_valid().to_pylist()
            repeated = [False] * len(move)
            for f in range(1, len(move)):
                s, e, ps = offsets[f], offsets[f + 1], offsets[f - 1]
                if (e - s > 0 and s - ps == e - s and move[f].is_valid and move[f - 1].is_valid
                        and ids[s:e] == ids[ps:s] and all(valid[ps:e])):
                    repeated[f] = True
                    step = (s - ps) * width
                    for i in range(s * width, e * width):
                        if layout == 3 and repeated[f - 1]:
                            bits[i] = (bits[i] + 2 * bits[i - step] - bits[i - 2 * step]) % 2 ** 64
                        else:
                            bits[i] = (bits[i] + bits[i - step]) % 2 ** 64
            decoded[name] = [struct.unpack("<d", b.to_bytes(8, "little"))[0] for b in bits]
        for f in range(len(move)):
            rows = []
            for e in range(offsets[f], offsets[f + 1]):
                rows.append((ids[e], tuple(decoded["position"][2 * e: 2 * e + 2]), decoded["angle"][e]))
            frames.append(rows)
    return frames


def test_the_documented_layout_decodes_a_recording(tmp_path):
    """A decoder written from the documentation alone gives back the poses the loop moved to, bit for bit."""
    rng = np.random.default_rng(11)
    n = 40
    ids = list(range(n // 2)) + [f"s{i}" for i in range(n // 2)]
    pos = rng.uniform(0, 30, (n, 2))
    ang = rng.uniform(-3, 3, n)
    vel, spin = rng.normal(0, 0.05, (n, 2)), rng.normal(0, 0.02, n)
    path = tmp_path / "doc.arrows"
    given = []
    with ArrowScenarioWriter(path, dim=2, batch_frames=7) as w:
        w.write_frame(add=[{"id": i, "shape": {"type": "circle", "radius": 0.5}, "position": [0.0, 0.0]}
                           for i in ids])
        order = list(range(n))
        for f in range(30):
            if f == 12:
                order = order[::-1]  # the same bodies in another order: no differences for that frame
            if f == 20:
                order = order[:-3]  # fewer bodies
            pos = pos + vel + rng.normal(0, 0.01, pos.shape) * (f > 15)
            ang = ang + spin
            w.write_frame(move=[MoveBatch(tuple(ids[k] for k in order), positions=pos[order], angles=ang[order])])
            given.append([(ids[k], (float(pos[k, 0]), float(pos[k, 1])), float(ang[k])) for k in order])
    got = _doc_decode(path.read_bytes())
    assert got[0] == [] and len(got) == 31

    def bits(rows):
        return [(i, struct.pack("<2d", *p), struct.pack("<d", a)) for i, p, a in rows]

    assert [bits(r) for r in got[1:]] == [bits(r) for r in given]


_CHILD = r"""
import sys
import numpy as np
from collideworld import Circle, World
from collideworld.scenario import Recorder
rng = np.random.default_rng(5)
n = 30
pos = rng.uniform(0, 20, (n, 2)); vel = rng.normal(0, 0.1, (n, 2))
rec = Recorder(World(dim=2), sys.argv[1], background=sys.argv[2] == "1")
rec.writer.batch_frames = 4
ids = np.asarray(rec.add_many(Circle(0.5), pos, ids=list(range(n))))
rec.step()
frame = 1
while True:
    pos = pos + vel
    rec.move_many(ids, positions=pos)
    rec.step()
    frame += 1
    print(frame, flush=True)
"""


@pytest.mark.parametrize("background", [False, True])
def test_a_recording_killed_mid_run_reads_back_to_its_last_complete_batch(tmp_path, background):
    """SIGKILL a recording process: every batch written before the kill reads back, with the poses moved to.
    With the background writer, the two batches it may hold in flight are lost too."""
    path = tmp_path / "killed.arrows"
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(path), "1" if background else "0"], stdout=subprocess.PIPE, text=True,
                             cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        seen = 0
        deadline = time.monotonic() + 300
        while seen < 41 and time.monotonic() < deadline:
            line = child.stdout.readline()
            if not line:
                break
            seen = int(line)
        assert seen >= 41, "the recording process stopped early"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL
    frames = list(read_scenario(path, ignore_truncated_tail=True))
    # frames 1-40 were in complete batches of 4 before frame 41's step returned; a background writer
    # had written all but at most two of them (one in its queue, one being written)
    assert len(frames) >= (32 if background else 40) and len(frames) % 4 == 0
    rng = np.random.default_rng(5)
    pos = rng.uniform(0, 20, (30, 2))
    vel = rng.normal(0, 0.1, (30, 2))
    assert [b.position for b in frames[0].add] == [tuple(p) for p in pos.tolist()]
    for frame in frames[1:]:
        pos = pos + vel
        assert np.array([m.position for m in frame.move]).tobytes() == pos.tobytes()
        assert [m.id for m in frame.move] == list(range(30))
    # without the option, a cut inside a batch is an error naming the batch (or the stream ended between batches)
    try:
        assert len(list(read_scenario(path))) == len(frames)
    except ScenarioError as exc:
        assert f"batch {len(frames) // 4 + 1}" in str(exc)


def test_a_recorded_loop_is_at_least_5x_smaller_than_its_json_lines(tmp_path):
    """The loop of benchmarks/recorder.py, smaller: every unit moving (position and angle) every frame."""
    from collideworld import Box, Circle, World
    from collideworld.scenario import Recorder

    sizes = {}
    for suffix in (".jsonl", ".arrows"):
        rng = np.random.default_rng(0)
        units = 400
        side = np.sqrt(units) * 3.0
        positions = rng.uniform(0.0, side, size=(units, 2))
        angles = rng.uniform(-np.pi, np.pi, size=units)
        path = tmp_path / f"loop{suffix}"
        with Recorder(World(dim=2), path) as rec:
            ids = rec.add_many(Circle(0.5), positions[: units // 2], ids=list(range(units // 2)))
            ids += rec.add_many(Box((0.6, 0.3)), positions[units // 2:], angles=angles[units // 2:],
                                ids=list(range(units // 2, units)))
            ids_array = np.asarray(ids)
            velocity = rng.normal(0.0, 0.05, size=(units, 2))
            spin = rng.normal(0.0, 0.02, size=units)
            rec.step()
            for _ in range(64):
                positions += velocity
                angles += spin
                rec.move_many(ids_array, positions=positions, angles=angles)
                rec.step()
        sizes[suffix] = path.stat().st_size
    assert [repr(f) for f in read_scenario(tmp_path / "loop.arrows")] == [
        repr(f) for f in read_scenario(tmp_path / "loop.jsonl")]
    assert sizes[".jsonl"] >= 5 * sizes[".arrows"], sizes


@pytest.mark.parametrize("layout", [2, 3])
def test_the_compiled_encoder_gives_the_numpy_reference_bits(layout):
    """encode_planes (one compiled pass) against encode_bits (numpy, the reference): 300 seeded batches
    of 1-8 frames, widths 1-4, frames of 0-5 entries repeated or not (runs of first and second
    differences, raw frames between), random 64-bit patterns and small ones: the same stored bytes."""
    from collideworld.scenario.compiled_encoding import encode_planes

    rng = np.random.default_rng(layout)
    for trial in range(300):
        width = int(rng.integers(1, 5))
        deltas, at, previous = [], 0, None
        for _ in range(int(rng.integers(1, 9))):
            n = int(rng.integers(0, 6))
            if previous is not None and previous[1] > 0 and rng.random() < 0.7:
                n = previous[1]
                deltas.append((at, previous[0], n))
            previous = (at, n)
            at += n
        bits = rng.integers(0, 2 ** 64, size=(at, width), dtype=np.uint64, endpoint=False)
        if rng.random() < 0.5:
            bits &= np.uint64(0xFFFF)  # small values: differences of both signs near zero
        given = bits.copy()
        got = encode_planes(bits, deltas, layout)
        assert bits.tobytes() == given.tobytes()  # left unchanged
        assert got.tobytes() == arrow_source_module.encode_bits(given.copy(), deltas, layout).tobytes(), trial
