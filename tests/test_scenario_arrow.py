"""The Arrow form of scenario files (.arrows, .parquet): lossless both ways, the same checks, clear errors.

Oracles: the text form, read by the JSON module itself (every float compared
by its bits, every id by its kind), and the values the tests themselves
gave the recorder.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from collideworld import Box, Circle, World
from collideworld.cli import main
from collideworld.errors import ScenarioError
from collideworld.scenario import Recorder, read_scenario, replay
from collideworld.scenario.arrow import (
    ArrowScenarioWriter,
    arrow_schema,
    contacts_table,
    convert,
    frames_table,
)

ROOT = Path(__file__).resolve().parent.parent
SCENARIO_FILES = sorted(p for p in (ROOT / "scenarios").iterdir() if p.name.endswith((".jsonl", ".jsonl.gz")))


def _tagged(text: str):
    """The JSON module's reading of a line, with every float as its bits and every int kept an int."""
    return json.loads(text, parse_float=lambda s: ("float", float(s).hex()),
                      parse_int=lambda s: ("int", int(s)))


def _float_tagged(value):
    """A tagged value with numbers in float columns read as floats (the Arrow form stores them as float64)."""
    if isinstance(value, tuple) and value[0] == "int":
        return ("float", float(value[1]).hex())
    return value


def _frames(path):
    return [repr(f) for f in read_scenario(path)]


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.name)
def test_every_scenario_file_round_trips(tmp_path, path):
    """Text -> .arrows / .parquet -> text: the frames read back are the same, to the bit (repr of every float)."""
    arrows, parquet, back = tmp_path / "a.arrows", tmp_path / "a.parquet", tmp_path / "back.jsonl"
    n = convert(path, arrows)
    assert convert(path, parquet) == n
    assert convert(arrows, back) == n
    want = _frames(path)
    assert len(want) == n
    for other in (arrows, parquet, back):
        assert _frames(other) == want, other
    assert replay(arrows).ok == replay(path).ok


# every frame key, ids of both kinds (1 and "1" alive together), floats whose text is easy to get wrong
TRICKY = [
    {"collideworld_scenario": 2, "dim": 2, "name": "tricky \u00e9", "description": "d", "tolerance": 1e-7},
    {"add": [{"id": 1, "shape": {"type": "circle", "radius": 0.30000000000000004}, "position": [-0.0, 5e-324],
              "angle": 1e150, "static": False, "category": 3, "mask": 4294967295},
             {"id": "1", "shape": {"type": "compound", "parts": [
                 {"shape": {"type": "box", "half_extents": [1, 2]}, "position": [0.1, 0.2], "angle": 0.5},
                 {"shape": {"type": "capsule", "points": [[0, 0], [1, 0]], "radius": 0.25}, "position": [1, 1]}]},
              "position": [0.1, 2.2250738585072014e-308]},
             {"id": "floor", "shape": {"type": "halfplane", "normal": [0, 1], "offset": -1.5}}],
     "expect": [[1, "1"], ["1", "floor"], [1, "floor"]]},
    {"move": [{"id": 1, "position": [0.1, 0.2]}, {"id": "1", "angle": -0.0},
              {"id": "floor", "normal": [0.0, 1.0], "offset": -2.5}],
     "set": [{"id": 1, "static": True, "category": 7, "mask": 0, "shape": {"type": "circle", "radius": 0.5}}],
     "expect": [["1", 1]],
     "expect_contacts": [{"pair": [1, "1"], "normal": [1.0, 0.0], "depth": 0.1, "parts": [-1, 0],
                          "points": [[0.5, 0.5]]}],
     "expect_distance": [{"pair": [1, "floor"], "distance": 3.0000000000000004, "points": [[0.1, 0.2], [0.1, -2.5]]}],
     "expect_impact": [{"pair": [1, "1"], "end_a": {"position": [9.0, 9.0], "angle": 0.0},
                        "end_b": {"position": [1.0, 1.0]}, "t": None}]},
    {"remove": [1, "floor"]},
    {},
    {"add": [{"id": 1, "shape": {"type": "polygon", "vertices": [[0, 0], [2, 0], [2, 2], [1, 0.5], [0, 2]]},
              "position": [1.0, 1.0]}], "expect": [[1, "1"]]},
]


def _write_lines(path, lines):
    with open(path, "w", encoding="utf-8") as f:
        for obj in lines:
            f.write(json.dumps(obj, ensure_ascii=False) + "\n")


# the keys stored as float64 columns; everything else keeps its JSON kind (ids, bits, shapes, expectations)
_FLOAT_KEYS = {"position", "angle", "quaternion", "normal", "offset"}
_LIST_KEYS = {"add", "set", "move"}


def _as_stored(frame):
    out = {}
    for key, value in frame.items():
        if key in _LIST_KEYS:
            value = [{k: ([_float_tagged(x) for x in v] if k in _FLOAT_KEYS and isinstance(v, list)
                          else _float_tagged(v) if k in _FLOAT_KEYS else v) for k, v in e.items()} for e in value]
        out[key] = value
    return out


@pytest.mark.parametrize("suffix", [".arrows", ".parquet"])
def test_every_frame_key_and_float_survives_bit_for_bit(tmp_path, suffix):
    src, mid, back = tmp_path / "t.jsonl", tmp_path / ("t" + suffix), tmp_path / "back.jsonl"
    _write_lines(src, TRICKY)
    assert convert(src, mid) == len(TRICKY) - 1
    assert convert(mid, back) == len(TRICKY) - 1
    want = [_tagged(line) for line in src.read_text(encoding="utf-8").splitlines()]
    got = [_tagged(line) for line in back.read_text(encoding="utf-8").splitlines()]
    assert got[0] == want[0]
    assert [_as_stored(f) for f in got[1:]] == [_as_stored(f) for f in want[1:]]
    assert _frames(mid) == _frames(src)


def test_cli_convert_both_ways(tmp_path, capsys):
    src = ROOT / "scenarios" / "compound_3d.jsonl"
    out = tmp_path / "c.arrows"
    assert main(["convert", str(src), str(out)]) == 0
    assert main(["convert", str(out), str(tmp_path / "c.jsonl.gz")]) == 0
    assert _frames(tmp_path / "c.jsonl.gz") == _frames(src)
    assert main(["info", str(out)]) == 0
    assert main(["replay", "--quiet", str(out)]) == 0
    assert main(["render", str(out), "--frame", "2", "-o", str(tmp_path / "c.png")]) == 0
    assert (tmp_path / "c.png").stat().st_size > 0
    assert main(["convert", str(src), str(tmp_path / "c.txt")]) == 2
    assert "suffix" in capsys.readouterr().err


def _loop(target, frames=6, units=40, seed=3):
    rng = np.random.default_rng(seed)
    pos = rng.uniform(0, 12, (units, 2))
    ang = rng.uniform(-3, 3, units)
    ids = target.add_many(Circle(0.5), pos[: units // 2], ids=list(range(units // 2)))
    ids += target.add_many(Box((0.6, 0.3)), pos[units // 2:], angles=ang[units // 2:],
                           ids=[f"box{i}" for i in range(units - units // 2)])
    given = []
    target.step()
    for _ in range(frames):
        pos = pos + rng.normal(0, 0.3, pos.shape)
        ang = ang + rng.normal(0, 0.1, units)
        target.move_many(ids, positions=pos, angles=ang)
        given.append((pos.copy(), ang.copy()))
        target.step()
    return ids, given


def test_recorder_writes_the_arrow_form(tmp_path):
    """The same loop recorded in both forms gives the same frames; the tables give back the poses it was given."""
    text, arrows = tmp_path / "run.jsonl", tmp_path / "run.arrows"
    with Recorder(World(dim=2), text) as rec:
        _loop(rec)
    with Recorder(World(dim=2), arrows) as rec:
        ids, given = _loop(rec)
    assert _frames(arrows) == _frames(text)
    assert replay(arrows).ok
    table = frames_table(arrows)
    assert table.column_names == ["frame", "id", "id_is_int", "position", "angle"]
    for k, (pos, ang) in enumerate(given):
        rows = table.filter(pa.compute.equal(table["frame"], k + 2)).to_pydict()
        assert rows["id"] == [str(i) for i in ids] and rows["id_is_int"] == [type(i) is int for i in ids]
        assert np.array(rows["position"]).tobytes() == pos.tobytes()
        assert np.array(rows["angle"]).tobytes() == ang.tobytes()
    # contacts per frame: the text form's expect, read by the JSON module
    lines = [json.loads(line) for line in text.read_text().splitlines()[1:]]
    want = [(n + 1, frozenset((str(a), str(b)))) for n, f in enumerate(lines) for a, b in f["expect"]]
    got = contacts_table(arrows).to_pydict()
    got = [(f, frozenset((a, b))) for f, a, b in zip(got["frame"], got["a"], got["b"], strict=True)]
    assert Counter(got) == Counter(want) and want


def test_a_crash_leaves_every_written_batch_readable(tmp_path):
    path = tmp_path / "crash.arrows"
    w = ArrowScenarioWriter(path, dim=2, batch_frames=2)
    w.write_frame(add=[{"id": 0, "shape": {"type": "circle", "radius": 1.0}, "position": [0.0, 0.0]}])
    for x in range(1, 5):
        w.write_frame(move=[{"id": 0, "position": [float(x), 0.0]}])
    # 5 frames given, 4 in two written batches; the writer is never closed (killed)
    frames = list(read_scenario(path))
    assert [f.number for f in frames] == [1, 2, 3, 4]
    assert frames[-1].move[0].position == (3.0, 0.0)
    w.close()
    assert len(list(read_scenario(path))) == 5


def _small_arrows(tmp_path, name="s.arrows", batch_frames=2):
    path = tmp_path / name
    with Recorder(World(dim=2), path) as rec:
        rec.writer.batch_frames = batch_frames
        _loop(rec, frames=5, units=6)
    return path


def _location(message, path):
    return re.match(re.escape(str(path)) + r": (schema|batch \d+(, frame \d+)?): \S", message)


def test_truncated_stream_fails_naming_the_batch_or_reads_the_complete_batches(tmp_path):
    whole = _small_arrows(tmp_path)
    data = whole.read_bytes()
    n_frames = len(list(read_scenario(whole)))
    cut = tmp_path / "cut.arrows"
    seen_prefixes = set()
    # where a message ends (pyarrow's reading): a stream cut there is a recording whose writer was killed
    # between two batches, which reads without the option too (test_a_crash_leaves_every_written_batch_readable)
    stream = pa.BufferReader(data)
    boundaries = {stream.tell() for _ in pa.ipc.MessageReader.open_stream(stream)}
    for size in range(0, len(data), 7):
        cut.write_bytes(data[:size])
        try:
            frames = list(read_scenario(cut, ignore_truncated_tail=True))
        except ScenarioError as exc:
            assert _location(str(exc), cut), str(exc)
        else:
            assert [f.number for f in frames] == list(range(1, len(frames) + 1))
            assert len(frames) % 2 == 0 or len(frames) == n_frames  # whole batches of 2 only
            seen_prefixes.add(len(frames))
        if size in boundaries:
            assert len(list(read_scenario(cut))) == len(frames)
            continue
        with pytest.raises(ScenarioError) as info:
            list(read_scenario(cut))
        assert _location(str(info.value), cut), str(info.value)
    assert len(seen_prefixes) >= 3


def test_corrupted_bytes_fail_with_a_scenario_error(tmp_path):
    """Random damage: a ScenarioError that names where, or (damage in padding or a value) a file that still reads."""
    data = _small_arrows(tmp_path).read_bytes()
    bad = tmp_path / "bad.arrows"
    rng = random.Random(5)
    errors = 0
    for _ in range(150):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        bad.write_bytes(bytes(damaged))
        try:
            replay(bad)
        except ScenarioError as exc:
            assert _location(str(exc), bad), str(exc)
            errors += 1
    assert errors > 20


def _rewrite(path, out, schema_change=None, metadata=None, column=None):
    table = pa.ipc.open_stream(path.read_bytes()).read_all()
    if column is not None:
        name, array = column
        table = table.set_column(table.schema.get_field_index(name), name, array)
    meta = dict(table.schema.metadata)
    meta.update(metadata or {})
    table = table.replace_schema_metadata(meta)
    with pa.ipc.new_stream(str(out), table.schema) as w:
        w.write_table(table)


def test_a_future_layout_names_the_version_needed(tmp_path):
    path, out = _small_arrows(tmp_path), tmp_path / "future.arrows"
    _rewrite(path, out, metadata={b"collideworld_arrow": b"4"})
    with pytest.raises(ScenarioError, match=r"future\.arrows: schema: .*layout '4'.*reads layouts 1, 2 and 3.*newer"):
        list(read_scenario(out))
    header = json.loads(pa.ipc.open_stream(path.read_bytes()).schema.metadata[b"collideworld_header"])
    header["collideworld_scenario"] = 9
    _rewrite(path, out, metadata={b"collideworld_header": json.dumps(header).encode()})
    with pytest.raises(ScenarioError, match=r"future\.arrows: .*9"):
        list(read_scenario(out))


def test_a_column_of_the_wrong_type_is_named(tmp_path):
    path, out = _small_arrows(tmp_path), tmp_path / "wrong.arrows"
    table = pa.ipc.open_stream(path.read_bytes()).read_all()
    _rewrite(path, out, column=("frame", table["frame"].cast(pa.float64())))
    with pytest.raises(ScenarioError, match=r"wrong\.arrows: schema: column 'frame' has type double, expected int64"):
        list(read_scenario(out))
    expect = arrow_schema(2).field("move").type
    wrong = pa.list_(pa.struct([(f.name, pa.list_(pa.float64()) if f.name == "position" else f.type)
                                for f in expect.value_type]))
    _rewrite(path, out, column=("move", table["move"].cast(wrong)))
    with pytest.raises(ScenarioError, match=r"column 'move' has type .*position: list<item: double>.*expected"):
        list(read_scenario(out))


def test_a_bad_value_is_named_by_batch_frame_and_column(tmp_path):
    src, out = tmp_path / "s.jsonl", tmp_path / "s.arrows"
    _write_lines(src, [{"collideworld_scenario": 1, "dim": 2},
                       {"add": [{"id": "a", "shape": {"type": "circle", "radius": 1.0}, "position": [0.0, 0.0]}]},
                       {"move": [{"id": "a", "position": [1.0, 0.0]}]}])
    convert(src, out)
    convert(src, tmp_path / "s.parquet")
    # the moves as plain floats (Parquet keeps layout 1), written back as a layout 1 stream
    table = pq.read_table(tmp_path / "s.parquet")
    moves = table["move"].to_pylist()
    plain = {b"collideworld_arrow": b"1"}
    with pa.ipc.new_stream(str(out), table.schema) as w:  # a layout 1 stream of the Parquet copy's columns
        w.write_table(table)
    moves[1][0]["id"] = {"int": None, "str": "b4"}
    _rewrite(out, tmp_path / "u.arrows", column=("move", pa.array(moves, type=table.schema.field("move").type)),
             metadata=plain)
    with pytest.raises(ScenarioError, match=r"u\.arrows: batch 1, frame 2: move: unknown id 'b4'"):
        list(read_scenario(tmp_path / "u.arrows"))
    moves[1][0]["position"] = [float("nan"), 0.0]
    moves[1][0]["id"] = {"int": None, "str": "a"}
    _rewrite(out, tmp_path / "n.arrows", column=("move", pa.array(moves, type=table.schema.field("move").type)),
             metadata=plain)
    with pytest.raises(ScenarioError, match=r"n\.arrows: batch 1, frame 2: move.*finite"):
        list(read_scenario(tmp_path / "n.arrows"))
    moves[1][0]["id"] = {"int": 3, "str": "a"}
    _rewrite(out, tmp_path / "i.arrows", column=("move", pa.array(moves, type=table.schema.field("move").type)),
             metadata=plain)
    with pytest.raises(ScenarioError, match=r"i\.arrows: batch 1, frame 2: move\[0\] id: .*exactly one"):
        list(read_scenario(tmp_path / "i.arrows"))
    assert os.path.exists(out)


# every version 3 shape and key: chains (open, loop), rounded 2D boxes and polygons, per-segment parts
V3_2D = [
    {"collideworld_scenario": 3, "dim": 2, "name": "v3-2d"},
    {"add": [{"id": "g", "shape": {"type": "chain", "points": [[0, 0], [2, 0], [4, 0.5]]}, "position": [0, 0],
              "static": True},
             {"id": "loop", "shape": {"type": "chain", "points": [[0, 3], [1, 3], [1, 4]], "loop": True},
              "position": [0.5, 0.1], "angle": 0.25, "static": True},
             {"id": "rb", "shape": {"type": "box", "half_extents": [0.5, 0.25], "radius": 0.1},
              "position": [1.0, 0.3]},
             {"id": "rp", "shape": {"type": "polygon", "vertices": [[0, 0], [1, 0], [0, 1]], "radius": 0.30000000000000004},
              "position": [6.0, 6.0]}],
     "expect": [["g", "rb"]],
     "expect_contacts": [{"pair": ["g", "rb"], "normal": [0.0, 1.0], "depth": 0.05, "parts": [0, -1]}]},
    {"set": [{"id": "rp", "shape": {"type": "box", "half_extents": [1, 1], "radius": 0}}],
     "move": [{"id": "rb", "position": [9.0, 9.0]}], "expect": []},
]
# and in 3D: a triangle mesh, a heightfield, a rounded box and a rounded hull
V3_3D = [
    {"collideworld_scenario": 3, "dim": 3, "name": "v3-3d"},
    {"add": [{"id": "mesh", "shape": {"type": "triangle_mesh", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0.5]],
                                      "triangles": [[0, 1, 2], [1, 3, 2]]}, "position": [0, 0, 0], "static": True},
             {"id": "hf", "shape": {"type": "heightfield", "heights": [[0, 0.1, 0], [0.2, 0.3, 1e-300]],
                                    "cell": [0.5, 0.25]}, "position": [5, 5, 0], "static": True},
             {"id": "rbox", "shape": {"type": "box", "half_extents": [0.2, 0.2, 0.2], "radius": 0.05},
              "position": [0.3, 0.3, 0.2], "quaternion": [1, 0, 0, 0]},
             {"id": "rhull", "shape": {"type": "convex_hull", "points": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]],
                                       "radius": 0.125}, "position": [5.2, 5.1, 0.5]}],
     "expect": [["mesh", "rbox"]]},
    {"move": [{"id": "rbox", "position": [0.3, 0.3, 5.0]}], "expect": []},
]


@pytest.mark.parametrize("lines", [V3_2D, V3_3D], ids=["2d", "3d"])
def test_version_3_shapes_round_trip_through_convert(tmp_path, lines):
    """Every version 3 shape (chains, rounded boxes, polygons and hulls, meshes, heightfields) and a
    chain's per-segment ``parts``: text -> .arrows -> text and text -> .parquet through the
    ``collideworld convert`` command; the header read back says version 3 and every frame is the
    same, each float to the bit (the JSON module's reading of the written lines)."""
    src = tmp_path / "v3.jsonl"
    _write_lines(src, lines)
    want = _frames(src)
    for suffix in (".arrows", ".parquet"):
        mid, back = tmp_path / f"v3{suffix}", tmp_path / f"back{suffix}.jsonl"
        assert main(["convert", str(src), str(mid)]) == 0
        assert main(["convert", str(mid), str(back)]) == 0
        for path in (mid, back):
            assert read_scenario(str(path)).header.version == 3, path
            assert _frames(path) == want, path
        text = back.read_text(encoding="utf-8").splitlines()
        assert _tagged(text[0])["collideworld_scenario"] == ("int", 3)
        for got, given in zip(text[1:], lines[1:], strict=True):
            assert _tagged(got)["add" if "add" in given else "move"] == _as_stored(
                _tagged(json.dumps(given)))["add" if "add" in given else "move"]


@pytest.mark.parametrize("name", ["terrain_3d.jsonl", "robot_cell.jsonl", "level_2d.jsonl"])
def test_version_3_scenarios_keep_their_header(tmp_path, name):
    """The version 3 scenario files, converted to .arrows and back: the same header, version 3
    (comment keys, ``_`` first, are not kept: the format says a reader ignores them)."""
    src = ROOT / "scenarios" / name
    mid, back = tmp_path / "s.arrows", tmp_path / "s.jsonl"
    assert main(["convert", str(src), str(mid)]) == 0
    assert main(["convert", str(mid), str(back)]) == 0
    first = json.loads(src.read_text(encoding="utf-8").split("\n", 1)[0])
    assert json.loads(back.read_text(encoding="utf-8").split("\n", 1)[0]) == {
        k: v for k, v in first.items() if not k.startswith("_")}
    assert read_scenario(str(mid)).header.version == 3
