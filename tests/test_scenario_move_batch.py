"""MoveBatch and the Recorder's array path: exact floats, compact text, checked input.

The oracle for every number is the array the test wrote, compared bit for bit
with what ``json.loads`` (the standard library, not collideworld's reader)
reads back from the file.
"""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from collideworld.errors import InvalidArgumentError
from collideworld.scenario import MoveBatch, MoveSpec, Recorder, ScenarioWriter, replay, writer
from collideworld.shapes import Box, Circle, Sphere
from collideworld.world import World


@pytest.fixture(params=["orjson", "json"])
def formatter(request, monkeypatch):
    """Run the test with orjson formatting the numbers, then with the json module."""
    if request.param == "json":
        monkeypatch.setattr(writer, "_orjson", None)
    else:
        assert writer._orjson is not None, "orjson is a dependency"
    return request.param


def random_finite_doubles(rng, n):
    """Doubles from random bit patterns (every exponent, subnormals) plus awkward values."""
    bits = rng.integers(0, 2**64, size=4 * n, dtype=np.uint64)
    values = bits.view(np.float64)
    values = values[np.isfinite(values)][:n]
    special = np.array([0.0, -0.0, 1.0, -1.0, 3.0, 2.0**53 - 1, 2.0**53, 2.0**53 + 2, 1e15, 1e16, 1e22,
                        5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.1, 1 / 3, 1e-7, 100.0])
    return np.concatenate([special, values])


def bits(values):
    return np.asarray(values, dtype=np.float64).view(np.int64)


def written_moves(path):
    with open(path) as f:
        return [json.loads(line).get("move", []) for line in f][1:]


def test_floats_round_trip_bit_for_bit(tmp_path, formatter):
    rng = np.random.default_rng(5)
    values = random_finite_doubles(rng, 3000)
    n = len(values) // 3
    pos = values[: 2 * n].reshape(n, 2)
    ang = values[2 * n: 3 * n]
    ids = list(range(n))
    path = str(tmp_path / "bits.jsonl")
    with ScenarioWriter(path, dim=2) as w:
        w.write_frame(move=[MoveBatch(ids, positions=pos, angles=ang)])
    rows = written_moves(path)[0]
    assert [r["id"] for r in rows] == ids
    back_pos = np.array([[float(x) for x in r["position"]] for r in rows])
    back_ang = np.array([float(r["angle"]) for r in rows])
    assert np.array_equal(bits(back_pos), bits(pos))  # -0.0 too: compares bits, not values
    assert np.array_equal(bits(back_ang), bits(ang))


def test_text_is_compact(tmp_path, formatter):
    path = str(tmp_path / "compact.jsonl")
    with ScenarioWriter(path, dim=2) as w:
        w.write_frame(move=[MoveBatch(["a", 7], positions=np.array([[3.0, -0.0], [0.5, 2.0**53]]),
                                      angles=np.array([-2.0, 1e-7]))], expect=[("a", 7)])
    line = open(path).read().splitlines()[1]
    assert " " not in line
    # integral values as JSON integers below 2**53; -0.0 keeps its sign; 2**53 in exponent form
    assert line.startswith('{"move":[{"id":"a","position":[3,-0.0],"angle":-2},{"id":7,"position":[0.5,')
    assert line.endswith('"expect":[["a",7]]}')
    assert json.loads(line)["move"][1]["position"][1] == 2.0**53


def test_batch_and_move_specs_write_the_same_entries(tmp_path, formatter):
    rng = np.random.default_rng(11)
    n = 50
    ids = [f"u{i}" if i % 3 else i for i in range(n)]
    pos, quat = rng.normal(size=(n, 3)) * 100, rng.normal(size=(n, 4))
    quat /= np.linalg.norm(quat, axis=1, keepdims=True)
    path = str(tmp_path / "same.jsonl")
    with ScenarioWriter(path, dim=3) as w:
        w.write_frame(move=[MoveBatch(ids, positions=pos, quaternions=quat)])
        w.write_frame(move=[MoveSpec(i, position=tuple(p), quaternion=tuple(q))
                            for i, p, q in zip(ids, pos.tolist(), quat.tolist(), strict=True)])
        w.write_frame(move=[MoveBatch(ids[:2], positions=pos[:2]), MoveSpec(ids[2], quaternion=quat[2]),
                            MoveBatch([], positions=np.empty((0, 3)))])
    batch, specs, mixed = written_moves(path)
    assert batch == specs
    assert mixed == [{"id": ids[0], "position": pos[0].tolist()},
                     {"id": ids[1], "position": pos[1].tolist()},
                     {"id": ids[2], "quaternion": quat[2].tolist()}]


@pytest.mark.parametrize("batch, message", [
    (MoveBatch([1, 2], positions=[[0.0, 0.0], [np.nan, 1.0]]), r"move 2 positions must be finite, got \[nan, 1.0\]"),
    (MoveBatch([1, 2], angles=[0.0, np.inf]), "move 2 angles must be finite"),
    (MoveBatch([1, 2], positions=[[0.0, 0.0]]), r"shape \(2, 2\) for 2 ids, got \(1, 2\)"),
    (MoveBatch([1], quaternions=[[1.0, 0, 0, 0]]), "quaternions are not allowed in a 2D scenario"),
    (MoveBatch([1, 1], positions=[[0.0, 0.0], [1.0, 1.0]]), "at most once, got 1 twice"),
    (MoveBatch([True], positions=[[0.0, 0.0]]), "a body id must be a str or an int, got True"),
    (MoveBatch([1.0], positions=[[0.0, 0.0]]), "a body id must be a str or an int, got 1.0"),
    (MoveBatch([1], positions=[["x", 0.0]]), "move batch positions must be an array of numbers"),
])
def test_bad_batches_are_refused_and_nothing_is_written(tmp_path, batch, message):
    path = tmp_path / "bad.jsonl"
    with ScenarioWriter(str(path), dim=2) as w:
        w.write_frame(move=[MoveBatch([1, 2], positions=np.zeros((2, 2)))])  # fills the id cache with [1, 2]
        before = path.read_bytes()
        with pytest.raises(InvalidArgumentError, match=message):
            w.write_frame(move=[batch])
        assert w.frames_written == 1
        assert path.read_bytes() == before


def test_id_cache_does_not_let_an_equal_but_invalid_id_through(tmp_path):
    # True == 1 and 1.0 == 1 in Python: a list comparison alone would reuse the texts of [1, 2].
    path = str(tmp_path / "cache.jsonl")
    with ScenarioWriter(path, dim=2) as w:
        w.write_frame(move=[MoveBatch([1, 2], positions=np.zeros((2, 2)))])
        for bad in ([True, 2], [1.0, 2]):
            with pytest.raises(InvalidArgumentError):
                w.write_frame(move=[MoveBatch(bad, positions=np.zeros((2, 2)))])
        w.write_frame(move=[MoveBatch([np.int64(1), 2], positions=np.ones((2, 2)))])  # numpy ints name ints
    assert written_moves(path)[1] == [{"id": 1, "position": [1, 1]}, {"id": 2, "position": [1, 1]}]


def test_recorder_writes_the_fields_given_per_body(tmp_path, formatter):
    """Bodies moved with different fields in one frame: each entry has exactly its fields,
    at their values at the step (tracked here by the test, not read from the world)."""
    path = str(tmp_path / "fields.jsonl")
    rng = np.random.default_rng(3)
    expected_moves = []
    with Recorder(World(dim=2), path) as rec:
        ids = rec.add_many(Circle(0.5), rng.uniform(0, 100, (6, 2)), ids=[0, 1, 2, "c", "d", "e"])
        rec.step()
        for _ in range(5):
            p, a = rng.uniform(0, 100, (6, 2)), rng.uniform(-3, 3, 6)
            rec.move_many(np.array([0, 1, 2]), positions=p[:3])          # position only
            rec.move_many(["c", "d"], angles=a[3:5])                     # angle only
            rec.move("e", position=p[5], angle=a[5])                     # both
            rec.move(1, angle=a[1])                                      # 1: position, then angle
            rec.step()
            expected_moves.append({
                0: {"position": p[0].tolist()}, 1: {"position": p[1].tolist(), "angle": a[1]},
                2: {"position": p[2].tolist()}, "c": {"angle": a[3]}, "d": {"angle": a[4]},
                "e": {"position": p[5].tolist(), "angle": a[5]}})
    assert ids == [0, 1, 2, "c", "d", "e"]
    for got, expected in zip(written_moves(path)[1:], expected_moves, strict=True):
        assert {m.pop("id"): m for m in got} == expected
    assert replay(path).ok


def test_recorder_array_moves_then_other_calls_in_the_same_frame(tmp_path):
    """The frame's move_many of an int array is kept as an array until another call needs
    the per-body record: later moves, removes and re-adds in the frame, and the caller
    reusing its id array, all still give the net effect (expected entries by hand)."""
    path = str(tmp_path / "array.jsonl")
    with Recorder(World(dim=2), path) as rec:
        rec.add_many(Circle(0.5), [[0, 0], [10, 0], [20, 0], [30, 0]], ids=[0, 1, 2, 3])
        rec.step()
        ids = np.array([0, 1, 2, 3])
        rec.move_many(ids, positions=[[1, 0], [11, 0], [21, 0], [31, 0]])  # kept as an array
        ids[:] = -1  # the caller reuses its array: the recorder kept a copy
        rec.move(2, angle=0.5)                                             # 2: position and angle
        rec.remove(3)                                                      # 3: not moved, removed
        rec.add(Circle(0.5), position=[40, 0], id=3)                       # ... and added anew
        rec.step()
        same = np.array([0, 1])
        for x in (2.0, 3.0):                                               # the plain fast path
            rec.move_many(same, positions=[[x, 0], [10 + x, 0]])
            rec.step()
    lines = [json.loads(line) for line in open(path)][1:]
    assert {m["id"]: {k: v for k, v in m.items() if k != "id"} for m in lines[1]["move"]} == {
        0: {"position": [1, 0]}, 1: {"position": [11, 0]}, 2: {"position": [21, 0], "angle": 0.5}}
    assert lines[1]["remove"] == [3] and [a["id"] for a in lines[1]["add"]] == [3]
    assert lines[1]["add"][0]["position"] == [40, 0]
    assert [lines[2]["move"], lines[3]["move"]] == [
        [{"id": 0, "position": [2, 0]}, {"id": 1, "position": [12, 0]}],
        [{"id": 0, "position": [3, 0]}, {"id": 1, "position": [13, 0]}]]
    assert replay(path).ok


def test_recorder_3d_quaternions_and_gzip_levels(tmp_path):
    rng = np.random.default_rng(9)
    paths = {level: str(tmp_path / f"q{level}.jsonl.gz") for level in (1, 9)}
    for level, path in paths.items():
        rng = np.random.default_rng(9)
        with Recorder(World(dim=3), path, compresslevel=level) as rec:
            rec.add_many(Sphere(1.0), rng.uniform(0, 20, (40, 3)))
            rec.add(Box((1.0, 2.0, 0.5)), position=(5.0, 5.0, 5.0), id="box")
            for _ in range(10):
                q = rng.normal(size=(41, 4))
                q /= np.linalg.norm(q, axis=1, keepdims=True)
                rec.move_many([*range(40), "box"], positions=rng.uniform(0, 20, (41, 3)), quaternions=q)
                rec.step()
            last_q = q
        assert replay(path).ok
        with gzip.open(path, "rt") as f:
            rows = [json.loads(line) for line in f]
        # the world keeps its quaternions normalised: within rounding of the ones given
        assert np.allclose(np.array([m["quaternion"] for m in rows[-1]["move"]]), last_q, rtol=0, atol=1e-15)
    with gzip.open(paths[1]) as a, gzip.open(paths[9]) as b:
        assert a.read() == b.read()  # the level changes the compression, not the text
    with pytest.raises(InvalidArgumentError, match="compresslevel must be an int from 1 to 9, got 0"):
        Recorder(World(dim=3), str(tmp_path / "x.jsonl.gz"), compresslevel=0)


FIELD_SETS = {2: [("positions",), ("angles",), ("positions", "angles")],
              3: [("positions",), ("quaternions",), ("positions", "quaternions")]}


def parsed_lines(data):
    """Each line of a file as JSON, every float replaced by its bit pattern (so -0.0 != 0.0)."""
    def exact(value):
        if isinstance(value, float):
            return ("float", int(bits(value)))
        if isinstance(value, list):
            return [exact(v) for v in value]
        if isinstance(value, dict):
            return {k: exact(v) for k, v in value.items()}
        return value
    return [exact(json.loads(line)) for line in data.decode("utf-8").splitlines()]


@pytest.mark.parametrize("dim", [2, 3])
def test_compiled_assembly_matches_python_twin(tmp_path, monkeypatch, dim):
    """The numba loop and the Python twin write the same bytes (the twin formatting with the
    json module, whose float repr is the compiled loop's layout), and the same values when the
    twin uses orjson (whose exponent layout differs: 1e-7, not 1e-07), over random bit patterns,
    integral values, -0.0 and ids that need escaping, for every set of fields."""
    assert writer._compiled_assembly(), "numba is a dependency: the compiled loop must be in use"
    rng = np.random.default_rng(dim)
    values = random_finite_doubles(rng, 4000)
    rng.shuffle(values)
    n = 300
    ids = [i if i % 4 else f'id "{i}" \\ é\n' for i in range(n)]
    width = {"positions": dim, "angles": 1, "quaternions": 4}
    texts = {}
    orjson = writer._orjson
    for assembly in ("compiled", "json", "orjson"):
        monkeypatch.setattr(writer, "_compiled_assembly", lambda a=assembly: a == "compiled")
        monkeypatch.setattr(writer, "_orjson", orjson if assembly == "orjson" else None)
        path = tmp_path / f"{assembly}.jsonl"
        with ScenarioWriter(str(path), dim=dim) as w:
            for fields in FIELD_SETS[dim]:
                for rows in (n, 1):
                    start = 0
                    kwargs = {}
                    for field in fields:
                        size = rows * width[field]
                        column = values[start:start + size]
                        kwargs[field] = column if field == "angles" else column.reshape(rows, width[field])
                        start += size
                    w.write_frame(move=[MoveBatch(ids[:rows], **kwargs)])
        texts[assembly] = path.read_bytes()
    assert texts["compiled"] == texts["json"]
    assert parsed_lines(texts["compiled"]) == parsed_lines(texts["orjson"])
    assert texts["compiled"] != texts["orjson"]  # the layouts do differ somewhere: the check above is not idle
    # and both read back exactly (the oracle: json.loads and the arrays written)
    first = written_moves(tmp_path / "compiled.jsonl")[0]
    assert np.array_equal(bits([m["position"] for m in first]), bits(values[: n * dim].reshape(n, dim)))
    assert [m["id"] for m in first] == ids


def test_expect_with_ids_beyond_64_bits(tmp_path, formatter):
    # orjson refuses ints beyond 64 bits; the json module writes them (JSON has no limit).
    path = str(tmp_path / "big.jsonl")
    big = 2**70 + 1
    with ScenarioWriter(path, dim=2) as w:
        w.write_frame(expect=[(big, "a"), (1, 2)])
        w.write_frame(move=[MoveBatch((big, 3), positions=np.ones((2, 2)))] * 1)
    lines = open(path).read().splitlines()
    assert lines[1] == '{"expect":[[%d,"a"],[1,2]]}' % big
    assert json.loads(lines[2])["move"][0]["id"] == big


def test_integral_values_written_as_integers_replay(tmp_path):
    # Grid-aligned units: every number is integral, so the file holds JSON
    # integers (3, not 3.0); the reader takes them as the same floats. Unit
    # circles 2 apart touch (depth 0), by hand.
    path = str(tmp_path / "grid.jsonl")
    with Recorder(World(dim=2), path) as rec:
        rec.add_many(Circle(1.0), [[0.0, 0.0], [10.0, 0.0]], ids=[0, 1])
        rec.step()
        rec.move_many([0, 1], positions=[[-0.0, 0.0], [2.0, 0.0]], angles=[0.0, 3.0])
        contacts = rec.step()
    assert [tuple(p) for p in contacts.pairs()] == [(0, 1)]
    line = open(path).read().splitlines()[2]
    assert line == ('{"move":[{"id":0,"position":[-0.0,0],"angle":0},{"id":1,"position":[2,0],"angle":3}],'
                    '"expect":[[0,1]]}')
    assert replay(path).ok


def test_expect_as_an_int_pair_array(tmp_path, formatter):
    # The Recorder's form for int ids: the same text as the same pairs given as tuples.
    paths = [str(tmp_path / "array.jsonl"), str(tmp_path / "tuples.jsonl")]
    pairs = [(0, 5), (3, 2**62), (-7, 1)]
    for path, expect in zip(paths, [np.array(pairs, dtype=np.int64), pairs], strict=True):
        with ScenarioWriter(path, dim=2) as w:
            w.write_frame(expect=expect)
            w.write_frame(expect=np.zeros((0, 2), dtype=np.int64))
    lines = [open(p).read().splitlines() for p in paths]
    assert lines[0][1] == lines[1][1] == '{"expect":[[0,5],[3,%d],[-7,1]]}' % 2**62
    assert lines[0][2] == '{"expect":[]}'


@pytest.mark.parametrize("ids", [[1, 2, 3], ["a", "b", "c"], [1, 2**70, "c"], [1, 2**70, 3]])
def test_recorder_expect_for_int_str_and_huge_ids(tmp_path, ids):
    # Unit circles 1.5 apart in a row: the first overlaps the second, the second the third.
    path = str(tmp_path / "expect.jsonl")
    with Recorder(World(dim=2), path) as rec:
        rec.add_many(Circle(1.0), [[0, 0], [1.5, 0], [3.0, 0]], ids=ids)
        rec.step()
    line = json.loads(open(path).read().splitlines()[1])
    assert sorted(map(tuple, line["expect"]), key=str) == sorted([(ids[0], ids[1]), (ids[1], ids[2])], key=str)
    assert replay(path).ok


@pytest.mark.parametrize("ids", [[1, 2], ["one", "two"]])
def test_recorder_expect_names_a_compound_pair_once(tmp_path, ids):
    # Body 1: two unit-diameter circles at x = 0 and x = 2; body 2: a box spanning x from -1 to 3
    # at y = 0.25, over both circles. The step has a row per touching pair of parts (two); the
    # file has the body pair once (by hand).
    from collideworld.shapes import Compound

    path = str(tmp_path / "compound.jsonl")
    with Recorder(World(dim=2), path) as rec:
        rec.add(Compound([(Circle(0.5), (0.0, 0.0)), (Circle(0.5), (2.0, 0.0))]), position=(0, 0), id=ids[0])
        rec.add(Box((2.0, 0.25)), position=(1.0, 0.25), id=ids[1])
        contacts = rec.step()
    assert len(contacts) == 2  # one row per pair of parts
    line = json.loads(open(path).read().splitlines()[1])
    assert line["expect"] == [ids]
    assert replay(path).ok
