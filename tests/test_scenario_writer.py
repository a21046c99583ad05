"""Writing, recording and replaying scenario files.

Expected contacts are worked out by hand in the comments (circle radii and
centre distances, box half extents), never taken from collideworld's output.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
import zlib

import numpy as np
import pytest

from collideworld.errors import InvalidArgumentError, ScenarioError
from collideworld.scenario import (
    BodySpec,
    ExpectedContact,
    MoveSpec,
    Recorder,
    ScenarioWriter,
    iter_replay,
    read_scenario,
    replay,
)
from collideworld.shapes import Box, Circle, HalfPlane, Plane, Polygon, Sphere
from collideworld.world import World


def read_all(path, **kw):
    scenario = read_scenario(path, **kw)
    return scenario.header, list(scenario)


def read_rows(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def write_text(tmp_path, text, name="scene.jsonl"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# --------------------------------------------------------------------------
# writer
# --------------------------------------------------------------------------

L_SHAPE = Polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)])


@pytest.mark.parametrize("name", ["out.jsonl", "out.jsonl.gz"])
def test_writer_reader_round_trip(tmp_path, name):
    path = str(tmp_path / name)
    adds = [
        BodySpec("a", Circle(0.5), (1.0, 2.0)),
        BodySpec(7, Box((1.0, 2.0)), (0.0, -1.5), angle=0.25, static=True, category=2, mask=5),
        BodySpec("L", L_SHAPE, (3.0, 3.0), angle=-1.0),
        BodySpec("ground", HalfPlane((0.0, 1.0), -4.0), static=True),
    ]
    with ScenarioWriter(path, 2, name="rt", description="round trip", tolerance=1e-4) as w:
        w.write_frame(add=adds, expect=[("a", 7)],
                      expect_contacts=[ExpectedContact(("a", 7), (0.0, -1.0), 0.125)])
        w.write_frame(move=[MoveSpec("a", position=(1.0, 1.0)), MoveSpec(7, angle=0.5)], expect=set())
        w.write_frame(remove=["a"], comment="a leaves")
        w.write_frame(add=[BodySpec("a", Circle(1.0), (9.0, 9.0))])
        assert w.frames_written == 4
    header, frames = read_all(path)
    assert (header.dim, header.name, header.description, header.tolerance) == (2, "rt", "round trip", 1e-4)
    assert list(frames[0].add) == adds
    assert frames[0].expect == frozenset({frozenset({"a", 7})})
    assert frames[0].expect_contacts == (ExpectedContact(("a", 7), (0.0, -1.0), 0.125),)
    assert frames[1].move == (MoveSpec("a", position=(1.0, 1.0)), MoveSpec(7, angle=0.5))
    assert frames[1].expect == frozenset()
    assert frames[2].remove == ("a",) and frames[2].expect is None
    assert frames[3].add[0].shape == Circle(1.0)


def test_written_lines_follow_the_contract(tmp_path):
    path = tmp_path / "out.jsonl"
    with ScenarioWriter(path, 3) as w:
        w.write_frame(add=[BodySpec("s", Sphere(1.0), np.array([0.0, 0.0, 1.0])),
                           BodySpec("floor", Plane((0.0, 0.0, 1.0), 0.0))])
        w.write_frame()
    raw = path.read_bytes()
    assert raw.endswith(b"\n") and b"\n\n" not in raw
    rows = [json.loads(line) for line in raw.decode().splitlines()]
    assert rows[0] == {"collideworld_scenario": 1, "dim": 3}
    assert rows[1]["add"][0] == {"id": "s", "shape": {"type": "sphere", "radius": 1.0}, "position": [0.0, 0.0, 1.0]}
    # a plane takes no pose and no static flag
    assert rows[1]["add"][1] == {"id": "floor", "shape": {"type": "plane", "normal": [0.0, 0.0, 1.0], "offset": 0.0}}
    assert rows[2] == {}


def test_gzip_output_is_plain_gzip(tmp_path):
    for name in ("a.jsonl", "a.jsonl.gz"):
        with ScenarioWriter(tmp_path / name, 2, name="same") as w:
            w.write_frame(add=[BodySpec(1, Circle(1.0), (0.0, 0.0))], expect=[])
    assert gzip.decompress((tmp_path / "a.jsonl.gz").read_bytes()) == (tmp_path / "a.jsonl").read_bytes()


@pytest.mark.parametrize("name", ["live.jsonl", "live.jsonl.gz"])
def test_every_frame_is_on_disk_before_close(tmp_path, name):
    path = tmp_path / name
    w = ScenarioWriter(path, 2)
    try:
        for k in range(3):
            w.write_frame(add=[BodySpec(k, Circle(1.0), (3.0 * k, 0.0))])
            data = path.read_bytes()
            if name.endswith(".gz"):
                data = zlib.decompressobj(wbits=31).decompress(data)  # no trailer yet
            assert data.decode().count("\n") == k + 2  # header + frames so far, all complete
        _, frames = read_all(str(path), ignore_truncated_tail=True)
        assert len(frames) == 3
    finally:
        w.close()
    assert len(read_all(str(path))[1]) == 3


def test_non_finite_values_are_refused_and_nothing_is_written(tmp_path):
    path = tmp_path / "out.jsonl"
    with ScenarioWriter(path, 2) as w:
        w.write_frame(add=[BodySpec("a", Circle(1.0), (0.0, 0.0))])
        before = path.read_bytes()
        with pytest.raises(InvalidArgumentError):
            w.write_frame(move=[MoveSpec("a", position=(math.nan, 0.0))])
        with pytest.raises(InvalidArgumentError):
            w.write_frame(remove=[True])
        assert path.read_bytes() == before
    assert len(read_all(str(path))[1]) == 1


def test_writer_arguments_are_checked(tmp_path):
    with pytest.raises(InvalidArgumentError):
        ScenarioWriter(tmp_path / "x.jsonl", 4)
    with pytest.raises(InvalidArgumentError):
        ScenarioWriter(tmp_path / "x.jsonl", 2, tolerance=0)


def test_copying_a_file_frame_by_frame(tmp_path):
    src = write_text(tmp_path, "\n".join([
        '{"collideworld_scenario": 1, "dim": 2, "name": "copy"}',
        '{"add": [{"id": 1, "shape": {"type": "circle", "radius": 1}, "position": [0, 0]}, '
        '{"id": 2, "shape": {"type": "box", "half_extents": [1, 1]}, "position": [1.5, 0], "angle": 0.3}], "expect": [[1, 2]]}',
        '{"move": [{"id": 2, "position": [5, 5]}], "expect": []}',
    ]) + "\n")
    header, frames = read_all(src)
    dst = str(tmp_path / "copy.jsonl.gz")
    with ScenarioWriter(dst, header.dim, name=header.name) as w:
        for frame in frames:
            w.write(frame)
    header2, frames2 = read_all(dst)
    assert header2 == header
    assert [(f.remove, f.add, f.move, f.expect, f.expect_contacts) for f in frames2] == \
        [(f.remove, f.add, f.move, f.expect, f.expect_contacts) for f in frames]


# --------------------------------------------------------------------------
# replay against hand-worked expectations
# --------------------------------------------------------------------------

H2 = '{"collideworld_scenario": 1, "dim": 2, "tolerance": 1e-6}'
CIRCLES = ('{"add": [{"id": "a", "shape": {"type": "circle", "radius": 1}, "position": [0, 0]}, '
           '{"id": "b", "shape": {"type": "circle", "radius": 1}, "position": [1.5, 0]}]')


def test_replay_of_a_correct_file(tmp_path):
    text = "\n".join([
        H2,
        # radii 1 + 1, centres 1.5 apart: depth 0.5 along +x from a to b
        CIRCLES + ', "expect": [["a", "b"]], "expect_contacts": [{"pair": ["a", "b"], "normal": [1, 0], "depth": 0.5}]}',
        # centres 3 apart: a gap of 1
        '{"move": [{"id": "b", "position": [3, 0]}], "expect": []}',
        # centres exactly 2 apart: touching counts, depth 0
        '{"move": [{"id": "b", "position": [0, 2]}], "expect": [["b", "a"]], '
        '"expect_contacts": [{"pair": ["b", "a"], "normal": [0, -1], "depth": 0}]}',
        # a 2x2 box whose bottom is 0.5 below the ground y <= 0 (far from the circles)
        '{"add": [{"id": "g", "shape": {"type": "halfplane", "normal": [0, 1], "offset": 0}}, '
        '{"id": "box", "shape": {"type": "box", "half_extents": [1, 1]}, "position": [10, 0.5]}], '
        '"expect": [["a", "b"], ["box", "g"], ["a", "g"]], '
        '"expect_contacts": [{"pair": ["g", "box"], "normal": [0, 1], "depth": 0.5}, '
        '{"pair": ["a", "g"], "normal": [0, -1], "depth": 1}]}',
        "{}",
    ]) + "\n"
    report = replay(write_text(tmp_path, text))
    assert report.ok, report.format_first_mismatch()
    assert (report.frames, report.frames_checked, report.contacts_checked) == (5, 4, 4)
    assert report.first_mismatch is None and report.format_first_mismatch() == ""
    assert "5 frames" in report.summary() and "OK" in report.summary()


def test_replay_reports_missing_and_extra_pairs(tmp_path):
    text = "\n".join([
        H2,
        CIRCLES + ', "expect": [["a", "b"]]}',
        # b moves 3 away: no contact, but the file claims one (missing)
        '{"move": [{"id": "b", "position": [3, 0]}], "expect": [["a", "b"]]}',
        # c overlaps a, the file says nothing touches (extra)
        '{"add": [{"id": "c", "shape": {"type": "circle", "radius": 1}, "position": [-1, 0]}], "expect": []}',
        '{"expect": [["a", "c"]]}',
    ]) + "\n"
    path = write_text(tmp_path, text)
    report = replay(path)
    assert not report.ok
    assert report.mismatch_count == 2
    first, second = report.mismatches
    assert (first.number, first.line, first.missing, first.extra) == (2, 3, [("a", "b")], [])
    assert (second.number, second.line, second.missing, second.extra) == (3, 4, [], [("a", "c")])
    text = report.format_first_mismatch()
    assert text.startswith(f"{path}:3: frame 2 (line 3)")
    assert "missing" in text and "['a', 'b']" in text
    assert "MISMATCH" in report.summary()


def test_replay_compares_depth_and_unambiguous_normals(tmp_path):
    def check(contact):
        text = H2 + "\n" + CIRCLES + ', "expect_contacts": [%s]}\n' % contact
        return replay(write_text(tmp_path, text))

    assert check('{"pair": ["b", "a"], "normal": [-1, 0], "depth": 0.5}').ok  # pair reversed
    bad_depth = check('{"pair": ["a", "b"], "normal": [1, 0], "depth": 0.4}')
    assert not bad_depth.ok and bad_depth.first_mismatch.contacts[0].reason == "depth differs"
    bad_normal = check('{"pair": ["a", "b"], "normal": [0, 1], "depth": 0.5}')
    assert not bad_normal.ok and bad_normal.first_mismatch.contacts[0].reason == "normal differs"
    assert check('{"pair": ["a", "b"], "normal": [1, 0], "depth": 0.5000001}').ok  # within 1e-6


@pytest.mark.parametrize("normal", ["[1, 0]", "[0, 1]", "[-1, 0]", "[0, -1]"])
def test_replay_accepts_any_normal_of_a_tie(tmp_path, normal):
    # Two 2x2 boxes on the same spot: moving b by 2 along any axis direction
    # separates them, so each of the four axis normals is a valid answer.
    text = "\n".join([
        H2,
        '{"add": [{"id": "p", "shape": {"type": "box", "half_extents": [1, 1]}, "position": [0, 0]}, '
        '{"id": "q", "shape": {"type": "box", "half_extents": [1, 1]}, "position": [0, 0]}], '
        '"expect": [["p", "q"]], "expect_contacts": [{"pair": ["p", "q"], "normal": %s, "depth": 2}]}' % normal,
    ]) + "\n"
    report = replay(write_text(tmp_path, text))
    assert report.ok, report.format_first_mismatch()


def test_replay_tie_check_still_rejects_a_non_minimal_direction(tmp_path):
    # Same boxes; along the diagonal b would have to move 2*sqrt(2), not 2.
    d = math.sqrt(0.5)
    text = H2 + "\n" + (
        '{"add": [{"id": "p", "shape": {"type": "box", "half_extents": [1, 1]}, "position": [0, 0]}, '
        '{"id": "q", "shape": {"type": "box", "half_extents": [1, 1]}, "position": [0, 0]}], '
        '"expect_contacts": [{"pair": ["p", "q"], "normal": [%r, %r], "depth": 2}]}\n' % (d, d))
    assert not replay(write_text(tmp_path, text)).ok


def test_replay_3d(tmp_path):
    text = "\n".join([
        '{"collideworld_scenario": 1, "dim": 3}',
        # unit sphere centred 0.75 above the floor z <= 0: depth 0.25
        '{"add": [{"id": "floor", "shape": {"type": "plane", "normal": [0, 0, 1], "offset": 0}}, '
        '{"id": 1, "shape": {"type": "sphere", "radius": 1}, "position": [0, 0, 0.75]}, '
        # a box with half extents 0.5 rotated 90 degrees about z: still reaches x = 2.5 - 0.5 = 2
        '{"id": 2, "shape": {"type": "box", "half_extents": [0.5, 0.5, 0.5]}, "position": [2.5, 0, 3], '
        '"quaternion": [0.7071067811865476, 0, 0, 0.7071067811865476]}], '
        '"expect": [[1, "floor"]], "expect_contacts": [{"pair": ["floor", 1], "normal": [0, 0, 1], "depth": 0.25}]}',
        # lower the box: it touches the sphere? centre distance in x is 2.5, sphere reaches 1, box 0.5: gap 1
        '{"move": [{"id": 2, "position": [2.5, 0, 0.75]}], "expect": [[1, "floor"]]}',
        # now the box straddles the floor by 0.25 as well
        '{"move": [{"id": 2, "position": [2.5, 0, 0.25]}], "expect": [[1, "floor"], [2, "floor"]], '
        '"expect_contacts": [{"pair": [2, "floor"], "normal": [0, 0, -1], "depth": 0.25}]}',
    ]) + "\n"
    report = replay(write_text(tmp_path, text))
    assert report.ok, report.format_first_mismatch()


def test_replay_raises_on_invalid_files(tmp_path):
    path = write_text(tmp_path, H2 + "\n{}\n" + '{"remove": ["ghost"]}\n')
    with pytest.raises(ScenarioError, match=r":3: remove: unknown id 'ghost'"):
        replay(path)


@pytest.mark.parametrize("text, where", [
    ('{"add": [{"id": "a", "shape": {"type": "circle", "radius": 1}, "position": [1e200, 0]}]}\n', 2),
    ('{"add": [{"id": "a", "shape": {"type": "circle", "radius": 1}, "position": [0, 0]}]}\n'
     '{"move": [{"id": "a", "position": [0, -1e200]}]}\n', 3),
])
def test_world_rejection_messages_print_plain_numbers(tmp_path, text, where):
    """1e200 is over the documented coordinate limit of 1e150: the reader rejects it
    (the world's rule, checked at the file's line), and the message shows the number
    as the file has it, not a numpy repr."""
    path = write_text(tmp_path, H2 + "\n" + text)
    with pytest.raises(ScenarioError) as info:
        replay(path)
    message = str(info.value)
    assert message.startswith(f"{path}:{where}: ") and "at most 1e+150 in magnitude" in message, message
    assert "e+200" in message and "np." not in message and "float64" not in message, message


def test_iter_replay_yields_each_step(tmp_path):
    text = H2 + "\n" + CIRCLES + "}\n" + '{"move": [{"id": "b", "position": [3, 0]}]}\n'
    steps = [(f.number, {frozenset(p) for p in c.pairs()}) for f, _, c in iter_replay(write_text(tmp_path, text))]
    assert steps == [(1, {frozenset({"a", "b"})}), (2, set())]


# --------------------------------------------------------------------------
# recorder
# --------------------------------------------------------------------------


def pair_set(contacts):
    return {frozenset(p) for p in zip(contacts.a.tolist(), contacts.b.tolist(), strict=True)}


def test_recorder_writes_what_it_was_told(tmp_path):
    path = str(tmp_path / "rec.jsonl")
    with Recorder(World(dim=2), path, name="session") as rec:
        rec.add(Circle(1.0), position=(0.0, 0.0), id="a")
        rec.add(Circle(1.0), position=(1.5, 0.0), id="b")
        c1 = rec.step()
        rec.move("b", position=(5.0, 0.0))
        c2 = rec.step()
        assert rec.pairs() == set()  # other attributes are the world's
    assert {frozenset(p) for p in c1.pairs()} == {frozenset({"a", "b"})} and len(c2) == 0
    rows = read_rows(path)
    assert rows[0] == {"collideworld_scenario": 1, "dim": 2, "name": "session"}
    assert [b["id"] for b in rows[1]["add"]] == ["a", "b"]
    assert rows[1]["add"][1]["position"] == [1.5, 0.0]
    assert sorted(rows[1]["expect"][0]) == ["a", "b"]
    assert rows[2] == {"move": [{"id": "b", "position": [5.0, 0.0]}], "expect": []}


def test_recorder_writes_the_net_effect_of_a_frame(tmp_path):
    path = str(tmp_path / "rec.jsonl")
    world = World(dim=2)
    world.add(Circle(1.0), position=(0.0, 0.0), id="old")  # before recording starts
    with Recorder(world, path) as rec:
        rec.add(Box((1.0, 1.0)), position=(10.0, 0.0), id="x")
        rec.step()  # frame 1: adds old and x
        rec.move("x", position=(11.0, 0.0))
        rec.remove("x")  # moved then removed: only the removal counts
        rec.add(Circle(0.5), position=(20.0, 0.0), id="tmp")
        rec.remove("tmp")  # added and removed in one frame: nothing
        rec.remove("old")
        rec.add(Circle(2.0), position=(0.0, 0.0), id="old")  # same id, new body
        rec.move("old", angle=0.5)  # folded into the add
        rec.step()  # frame 2
        rec.move("old", position=(1.0, 1.0))
        rec.move("old", angle=0.25)
        rec.step()  # frame 3: one move with both fields
    rows = read_rows(path)
    assert [b["id"] for b in rows[1]["add"]] == ["old", "x"]
    assert rows[2]["remove"] == ["x", "old"]
    assert [b["id"] for b in rows[2]["add"]] == ["old"]
    assert rows[2]["add"][0]["shape"] == {"type": "circle", "radius": 2.0}
    assert rows[2]["add"][0]["angle"] == 0.5
    assert "move" not in rows[2]
    assert rows[3]["move"] == [{"id": "old", "position": [1.0, 1.0], "angle": 0.25}]
    assert replay(path).ok


@pytest.mark.parametrize("make_ids", [
    pytest.param(lambda ids: (i for i in ids), id="generator"),
    pytest.param(lambda ids: iter(ids), id="iterator"),
    pytest.param(lambda ids: np.array(ids), id="numpy-int"),
    pytest.param(lambda ids: list(ids), id="list"),
])
def test_recorder_many_calls_take_one_shot_iterables(tmp_path, make_ids):
    path = str(tmp_path / "rec.jsonl")
    with Recorder(World(dim=2), path) as rec:
        rec.add(Circle(1.0), position=(0.0, 0.0), id=1)
        rec.add(Circle(1.0), position=(10.0, 0.0), id=2)
        rec.add_many(Circle(1.0), positions=[[20.0, 0.0]], ids=make_ids([3]))
        rec.step()                                   # 10 apart, radii 1: no contact
        rec.move_many(make_ids([2]), positions=[[1.5, 0.0]])
        rec.step()                                   # 1 and 2 now 1.5 apart < 2: contact
        rec.remove_many(make_ids([2, 3]))
        rec.step()
    rows = read_rows(path)
    assert [b["id"] for b in rows[1]["add"]] == [1, 2, 3]
    assert rows[2] == {"move": [{"id": 2, "position": [1.5, 0.0]}], "expect": [[1, 2]]}
    assert rows[3] == {"remove": [2, 3], "expect": []}
    assert replay(path).ok


@pytest.mark.parametrize("dim, name", [(2, "rec.jsonl"), (3, "rec.jsonl.gz")])
def test_recorder_round_trip_random_session(tmp_path, dim, name):
    """Record a random session; replaying the file gives the same contacts every frame."""
    rng = np.random.default_rng(7)
    path = str(tmp_path / name)
    recorded = []
    with Recorder(World(dim=dim), path, record_contacts=True) as rec:
        if dim == 2:
            rec.add(HalfPlane((0.0, 1.0), -3.0), id="ground")
            shapes = [Circle(0.7), Box((0.6, 0.4)), L_SHAPE, Polygon([(0, 0), (1, 0), (0, 1)])]
        else:
            rec.add(Plane((0.0, 0.0, 1.0), -3.0), id="ground")
            shapes = [Sphere(0.7), Box((0.6, 0.4, 0.5))]
        alive = []
        next_id = 0
        # move_many's ids as a list, a one-shot generator and a numpy array in turn
        # (object dtype: the ids mix str and int)
        id_forms = [list, lambda ids: (i for i in ids), lambda ids: np.array(ids, dtype=object)]
        many_calls = 0
        for _ in range(40):
            for _ in range(rng.integers(0, 4)):
                op = rng.integers(0, 4)
                if op == 0 or len(alive) < 3:
                    kw = {"angle": float(rng.uniform(-3, 3))} if dim == 2 else {}
                    body_id = rec.add(shapes[rng.integers(len(shapes))], position=rng.uniform(-4, 4, dim),
                                      id=next_id if next_id % 2 else f"b{next_id}", **kw)
                    next_id += 1
                    alive.append(body_id)
                elif op == 1:
                    rec.remove(alive.pop(rng.integers(len(alive))))
                elif dim == 2:
                    rec.move(alive[rng.integers(len(alive))], position=rng.uniform(-4, 4, 2),
                             angle=float(rng.uniform(-3, 3)) if op == 3 else None)
                else:
                    q = rng.normal(size=4)
                    rec.move(alive[rng.integers(len(alive))], position=rng.uniform(-4, 4, 3),
                             quaternion=q / np.linalg.norm(q) if op == 3 else None)
            if len(alive) > 2 and rng.random() < 0.3:
                ids = id_forms[many_calls % len(id_forms)](alive[:2])
                many_calls += 1
                rec.move_many(ids, positions=rng.uniform(-4, 4, (2, dim)))
            recorded.append(pair_set(rec.step()))
    assert len(recorded) == 40 and many_calls >= len(id_forms)
    replayed = [pair_set(c) for _, _, c in iter_replay(path)]
    assert replayed == recorded
    report = replay(path)
    assert report.ok, report.format_first_mismatch()
    assert report.frames_checked == 40 and report.contacts_checked > 0


CHILD = textwrap.dedent("""
    import sys, time
    from collideworld.world import World
    from collideworld.shapes import Circle
    from collideworld.scenario import Recorder
    rec = Recorder(World(dim=2), sys.argv[1])
    k = 0
    while True:
        rec.add(Circle(1.0), position=(1.5 * k, 0.0), id=k)   # each touches the previous one
        rec.step()
        print(k + 1, flush=True)                                  # frames completed
        k += 1
        time.sleep(0.005)
""")


@pytest.mark.parametrize("name", ["crash.jsonl", "crash.jsonl.gz"])
def test_killed_recording_leaves_a_readable_prefix(tmp_path, name):
    path = str(tmp_path / name)
    child = subprocess.Popen([sys.executable, "-c", CHILD, path], stdout=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300  # the child's first step may compile, on busy cores
        done = 0
        while done < 8 and time.monotonic() < deadline:
            line = child.stdout.readline()
            if not line:
                break
            done = int(line)
        assert done >= 8, "the recording child did not get going"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        child.stdout.close()
    _, frames = read_all(path, ignore_truncated_tail=True)
    assert len(frames) >= done  # every frame the child finished is there
    # frame k adds circle k-1 at x = 1.5 (k-1): it touches its predecessor only
    for frame in frames:
        k = frame.number - 1
        expected = {frozenset({i, i + 1}) for i in range(k)}
        assert frame.expect == expected
    report = replay(path, ignore_truncated_tail=True)
    assert report.ok and report.frames == len(frames)
    if name.endswith(".gz"):
        # the gzip trailer was never written: reported unless ignored
        with pytest.raises(ScenarioError, match="truncated"):
            read_all(path)
    else:
        # lines are written whole; cutting the last one mid-way is reported
        with open(path, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(data[:-7])
        with pytest.raises(ScenarioError, match="last line is truncated") as info:
            read_all(path)
        assert info.value.line == len(frames) + 1
        assert len(read_all(path, ignore_truncated_tail=True)[1]) == len(frames) - 1
