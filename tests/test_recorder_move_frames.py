"""The recorder's path for the usual game-loop frame (one ``move_many`` of an int id array, nothing
else), written to the Arrow form without a row of specs per frame.

Oracles, independent of the recorder: the ids and pose bits the test itself fed in (a pure
``move_many`` frame must hold exactly them), the pairs in contact found by brute force over the
circles' centres (closed shapes: touching counts), and, for frames that mix calls, the same run
recorded to the text form through the recorder's general path, read back with ``json.loads``.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from collideworld.scenario import Recorder, read_scenario
from collideworld.scenario.arrow import ArrowScenarioWriter
from collideworld.shapes import Circle
from collideworld.world import World

RADIUS = 0.5


def brute_pairs(ids, positions):
    """The id pairs whose circles touch or overlap, by the distance of every two centres."""
    out = set()
    for i, j in itertools.combinations(range(len(ids)), 2):
        if np.hypot(*(positions[i] - positions[j])) <= 2 * RADIUS:
            out.add(frozenset((ids[i], ids[j])))
    return out


def bits(values):
    return np.asarray(values, dtype=np.float64).view(np.uint64).tolist()


def run(rec, rng, frames, fed):
    """A random session on ``rec``: mostly pure move_many frames (the caller's id array reused and
    changed in place, as a game loop may do), some mixing adds, removes, single moves, filters.
    ``fed`` gets, per frame, None or the pure frame's (ids, positions, angles or None)."""
    n0 = 12
    positions = rng.uniform(0.0, 6.0, size=(n0, 2))
    alive = rec.add_many(Circle(RADIUS), positions, ids=list(range(n0)))
    pose = {i: positions[k].copy() for k, i in enumerate(alive)}
    rec.step()
    fed.append(None)
    ids = np.array(alive, dtype=np.int64)
    next_id = n0
    for _ in range(frames):
        kind = rng.integers(0, 10)
        if kind < 6 or len(alive) < 4:
            if kind == 5:  # the same buffer, other ids in it (in place): must not be taken for the last frame's
                rng.shuffle(ids)
            elif kind == 4:
                ids = np.array(sorted(alive), dtype=rng.choice([np.int32, np.int64]))
            moved = ids if len(ids) == len(alive) else np.array(alive, dtype=np.int64)
            new = rng.uniform(0.0, 6.0, size=(len(moved), 2))
            angles = rng.uniform(-3.0, 3.0, size=len(moved)) if rng.integers(0, 2) else None
            rec.move_many(moved, positions=new, angles=angles)
            for k, i in enumerate(moved.tolist()):
                pose[i] = new[k].copy()
            fed.append((moved.tolist(), new.copy(), None if angles is None else angles.copy()))
            new[:] = 99.0  # the caller reuses its buffers: the recording must not see this
            ids = moved
        else:
            fed.append(None)
            if kind == 6:
                rec.add(Circle(RADIUS), position=(1.0, 2.0), id=next_id)
                alive.append(next_id)
                pose[next_id] = np.array([1.0, 2.0])
                next_id += 1
            elif kind == 7:
                gone = alive.pop(int(rng.integers(0, len(alive))))
                rec.remove(gone)
                del pose[gone]
            elif kind == 8:
                target = alive[int(rng.integers(0, len(alive)))]
                rec.move_many(np.array(alive, dtype=np.int64), positions=np.array([pose[i] for i in alive]))
                rec.move(target, position=(3.0, 3.0))
                pose[target] = np.array([3.0, 3.0])
            else:
                rec.move_many(np.array(alive, dtype=np.int64), positions=np.array([pose[i] for i in alive]))
                rec.set_filter(alive[0], category=2)
            ids = np.array(alive, dtype=np.int64)
        rec.step()
        fed[-1] = (fed[-1], sorted(alive), np.array([pose[i] for i in sorted(alive)]))


@pytest.mark.parametrize(("seed", "suffix", "background"),
                         [(seed, ".arrows", False) for seed in range(8)] + [(8, ".arrows", True), (9, ".arrows", True),
                                                                            (10, ".parquet", False),
                                                                            (11, ".parquet", False)])
def test_move_frames_hold_what_was_fed_and_match_the_text_form(tmp_path, seed, suffix, background):
    # the stream (layout 3: poses encoded from the frames' arrays, the synchronous writer and its
    # thread) and Parquet (layout 1: plain columns)
    fed_arrow: list = []
    fed_text: list = []
    arrows, text = tmp_path / f"run{suffix}", tmp_path / "run.jsonl"
    with Recorder(World(dim=2, backend="numpy"), arrows, background=background) as rec:
        rec.writer.batch_frames = 5  # batches that end inside runs of move frames and of mixed ones
        run(rec, np.random.default_rng(seed), 24, fed_arrow)
    with Recorder(World(dim=2, backend="numpy"), text) as rec:
        run(rec, np.random.default_rng(seed), 24, fed_text)
    read = list(read_scenario(arrows))
    lines = [json.loads(line) for line in text.read_text().splitlines()[1:]]
    assert len(read) == len(lines) == len(fed_arrow) == 25
    pure = 0
    for frame, line, entry in zip(read, lines, fed_arrow, strict=True):
        moves = [{"id": m.id, **({"position": list(m.position)} if m.position is not None else {}),
                  **({"angle": m.angle} if m.angle is not None else {})} for m in frame.move]
        assert bits([v for m in moves for v in m.get("position", [])]) == \
            bits([v for m in line.get("move", []) for v in m.get("position", [])])
        assert [m["id"] for m in moves] == [m["id"] for m in line.get("move", [])]
        assert bits([m["angle"] for m in moves if "angle" in m]) == \
            bits([m["angle"] for m in line.get("move", []) if "angle" in m])
        assert frame.expect == {frozenset(p) for p in line["expect"]}
        assert [b.id for b in frame.add] == [a["id"] for a in line.get("add", [])]
        assert list(frame.remove) == line.get("remove", [])
        if entry is None:
            continue
        given, alive, centres = entry
        assert frame.expect == brute_pairs(alive, centres)
        if given is not None:  # a pure move_many frame: exactly the ids and bits fed in
            pure += 1
            ids, positions, angles = given
            assert [m.id for m in frame.move] == ids
            assert bits([m.position for m in frame.move]) == bits(positions)
            if angles is None:
                assert all(m.angle is None for m in frame.move)
            else:
                assert bits([m.angle for m in frame.move]) == bits(angles)
            assert not frame.add and not frame.remove and not frame.set
    assert pure >= 8


def test_prepare_moves_then_write_moves_is_the_general_frame_byte_for_byte(tmp_path):
    # the writer's two calls for a frame of one owned batch of moves give the file that prepare_frame
    # and write_prepared give for the same frame (the pending values are the same)
    from collideworld.scenario import MoveBatch

    rng = np.random.default_rng(5)
    ids = tuple(range(40))
    every_pair = np.array(list(itertools.combinations(range(40), 2)), dtype=np.int64)
    frames = [(rng.uniform(-5, 5, (40, 2)), rng.uniform(-3, 3, 40),
               every_pair[rng.choice(len(every_pair), 7, replace=False)]) for _ in range(9)]
    add = [{"id": i, "shape": {"type": "circle", "radius": 1.0}, "position": [0.0, 0.0]} for i in ids]
    general, fast = tmp_path / "general.arrows", tmp_path / "fast.arrows"
    with ArrowScenarioWriter(general, dim=2, batch_frames=4) as w:
        w.write_frame(add=add)
        for positions, angles, pairs in frames:
            prepared = w.prepare_frame((), (), [MoveBatch(ids, positions=positions.copy(), angles=angles.copy())],
                                       None, (), owned=True)
            w.write_prepared(prepared, pairs, None, None, None)
    with ArrowScenarioWriter(fast, dim=2, batch_frames=4) as w:
        w.write_frame(add=add)
        for positions, angles, pairs in frames:
            w.write_moves(w.prepare_moves(ids, positions.copy(), angles.copy()), pairs)
    assert fast.read_bytes() == general.read_bytes()
    # and the file holds what was fed in
    read = list(read_scenario(fast))
    for frame, (positions, angles, pairs) in zip(read[1:], frames, strict=True):
        assert bits([m.position for m in frame.move]) == bits(positions)
        assert bits([m.angle for m in frame.move]) == bits(angles)
        assert frame.expect == {frozenset(map(int, p)) for p in pairs}


def test_write_moves_on_a_closed_writer_says_so(tmp_path):
    w = ArrowScenarioWriter(tmp_path / "closed.arrows", dim=2)
    w.close()
    with pytest.raises(ValueError, match="closed"):
        w.prepare_moves((0,), np.zeros((1, 2)), None)
    with pytest.raises(ValueError, match="closed"):
        w.write_moves(None, None)


@pytest.mark.parametrize("background", [False, True])
def test_a_flush_between_move_many_and_step_keeps_the_frames_poses(tmp_path, background):
    # the recorder copies a frame's poses into a row of the writer's batch buffer at move_many; a batch
    # written before that frame's step must not hand the row to a later frame of the next batch
    rng = np.random.default_rng(7)
    path = tmp_path / "flushed.arrows"
    fed = []
    with Recorder(World(dim=2, backend="numpy"), path, background=background) as rec:
        ids = np.array(rec.add_many(Circle(RADIUS), rng.uniform(0, 30, (20, 2))), dtype=np.int64)
        rec.step()
        for frame in range(12):
            positions = rng.uniform(0.0, 30.0, size=(20, 2))
            rec.move_many(ids, positions=positions)
            if frame in (2, 7):
                rec.writer.flush()
            rec.step()
            fed.append(positions)
    read = list(read_scenario(path))
    assert len(read) == 13
    for frame, positions in zip(read[1:], fed, strict=True):
        assert [m.id for m in frame.move] == ids.tolist()
        assert bits([m.position for m in frame.move]) == bits(positions)
        assert frame.expect == brute_pairs(ids.tolist(), positions)
