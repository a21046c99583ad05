"""The recorder's and writer's fast paths: add entries as text, int pair arrays straight from
the contact arrays, and a plain file's line written from pieces (a view of the move text).

The oracle is independent of collideworld's writer: ``json.loads`` (the standard
library) of the file, compared with the numbers the test fed in (bit for bit),
and the pairs in contact found by brute force (two circles overlap when their
centres are at most the sum of the radii apart).
"""

from __future__ import annotations

import gzip
import json
import math

import numpy as np
import pytest

from collideworld.errors import InvalidArgumentError
from collideworld.scenario import BodySpec, MoveBatch, Recorder, ScenarioWriter, replay
from collideworld.shapes import Box, Capsule, Circle, Sphere
from collideworld.world import World


def lines_of(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def same_bits(a, b):
    return np.array_equal(np.asarray(a, dtype=np.float64).view(np.uint64),
                          np.asarray(b, dtype=np.float64).view(np.uint64))


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_first_frame_adds_are_the_bodies_fed_in(tmp_path, suffix):
    # 2D: circles and boxes of two shape objects, awkward floats, angles including 0.0 and -0.0
    # (written as no angle), flags on a few bodies, ids int and str, a capsule (version 2).
    rng = np.random.default_rng(3)
    n = 60
    positions = rng.normal(0.0, 1e3, size=(n, 2))
    positions[:6] = [[0.1, 1 / 3], [1e-7, 2.0**53], [-0.0, 5e-324], [1e16, -1e22], [3.0, -2.5], [0.0, 0.0]]
    angles = rng.uniform(-np.pi, np.pi, size=n)
    angles[:3] = [0.0, -0.0, 1e-300]
    path = tmp_path / ("adds" + suffix)
    with Recorder(World(dim=2), path) as rec:
        rec.add_many(Circle(0.5), positions[:30], angles=angles[:30], ids=list(range(30)))
        rec.add_many(Box((0.6, 0.3)), positions[30:], angles=angles[30:], ids=list(range(30, n)))
        rec.add(Circle(2.0), position=(7.0, 8.5), id="named", static=True, category=4, mask=6)
        rec.add(Capsule((0, 0), (2, 0), 0.25), position=(-4.0, 1.0), angle=0.5, id=10**30)
        rec.step()
    header, frame = lines_of(path)
    assert header["collideworld_scenario"] == 2  # the capsule
    adds = frame["add"]
    assert [a["id"] for a in adds] == [*range(n), "named", 10**30]
    assert same_bits([a["position"] for a in adds[:n]], positions)
    written_angles = [a.get("angle", 0.0) for a in adds[:n]]
    assert same_bits(np.abs(written_angles), np.abs(angles))  # -0.0 is left out like 0.0
    assert [("angle" in a) for a in adds[:3]] == [False, False, True]
    assert all(a["shape"] == {"type": "circle", "radius": 0.5} for a in adds[:30])
    assert all(a["shape"] == {"type": "box", "half_extents": [0.6, 0.3]} for a in adds[30:n])
    assert all(set(a) <= {"id", "shape", "position", "angle"} for a in adds[:n])
    assert adds[n] == {"id": "named", "shape": {"type": "circle", "radius": 2.0}, "position": [7.0, 8.5],
                       "static": True, "category": 4, "mask": 6}
    assert adds[n + 1] == {"id": 10**30, "shape": {"type": "capsule", "points": [[0.0, 0.0], [2.0, 0.0]],
                                                   "radius": 0.25}, "position": [-4.0, 1.0], "angle": 0.5}
    assert replay(path).ok


def test_3d_adds_write_a_quaternion_only_when_not_identity(tmp_path):
    path = tmp_path / "adds3d.jsonl"
    q = np.array([0.5, 0.5, -0.5, 0.5])
    with Recorder(World(dim=3), path) as rec:
        rec.add(Sphere(1.0), position=(1.0, 2.0, 3.0), id=1)
        rec.add(Box((1.0, 2.0, 0.5)), position=(0.1, 0.2, 0.3), quaternion=q, id=2)
        rec.step()
    adds = lines_of(path)[1]["add"]
    assert adds[0] == {"id": 1, "shape": {"type": "sphere", "radius": 1.0}, "position": [1.0, 2.0, 3.0]}
    assert adds[1]["quaternion"] == q.tolist() and adds[1]["position"] == [0.1, 0.2, 0.3]


def test_writer_adds_of_every_form_match_the_dict_path(tmp_path):
    # BodySpec with a tuple position (the general path), a dict, and snapshots: the line reads
    # back as the values given; a non-finite position is refused and nothing is written.
    world = World(dim=2)
    world.add(Box((1.0, 1.0)), position=(2.5, -1.0), angle=0.25, id=9)
    path = tmp_path / "forms.jsonl"
    with ScenarioWriter(path, dim=2) as w:
        w.write_frame(add=[BodySpec("a", Circle(1.0), (0.0, 2.0), static=True),
                           {"id": "b", "shape": {"type": "circle", "radius": 1.0}, "position": [np.float64(1.5), 0]},
                           world.body(9)])
        bad = world.body(9)
        bad.position[0] = math.inf
        with pytest.raises(InvalidArgumentError, match="position must be finite"):
            w.write_frame(add=[bad])
    frames = lines_of(path)[1:]
    assert len(frames) == 1
    assert frames[0]["add"] == [
        {"id": "a", "shape": {"type": "circle", "radius": 1.0}, "position": [0.0, 2.0], "static": True},
        {"id": "b", "shape": {"type": "circle", "radius": 1.0}, "position": [1.5, 0]},
        {"id": 9, "shape": {"type": "box", "half_extents": [1.0, 1.0]}, "position": [2.5, -1.0], "angle": 0.25}]


def brute_force_pairs(positions, radii, ids):
    pairs = set()
    for i in range(len(ids)):
        for j in range(i + 1, len(ids)):
            if np.hypot(*(positions[i] - positions[j])) <= radii[i] + radii[j]:
                pairs.add(frozenset((ids[i], ids[j])))
    return pairs


def test_expect_pairs_from_the_contact_arrays_then_a_str_id(tmp_path):
    # Int ids only for two frames (the cast without a type check per pair), then a str id joins.
    rng = np.random.default_rng(11)
    n = 80
    positions = rng.uniform(0.0, 12.0, size=(n, 2))
    radii = np.full(n, 0.5)
    ids = list(range(100, 100 + n))
    path = tmp_path / "expect.jsonl"
    steps = []
    with Recorder(World(dim=2), path) as rec:
        rec.add_many(Circle(0.5), positions, ids=ids)
        rec.step()
        steps.append(brute_force_pairs(positions, radii, ids))
        positions = positions + rng.normal(0.0, 0.3, size=(n, 2))
        rec.move_many(np.array(ids), positions=positions)
        rec.step()
        steps.append(brute_force_pairs(positions, radii, ids))
        rec.add(Circle(3.0), position=(6.0, 6.0), id="big")
        rec.step()
        steps.append(brute_force_pairs(np.vstack([positions, [[6.0, 6.0]]]), np.append(radii, 3.0), ids + ["big"]))
    frames = lines_of(path)[1:]
    assert len(steps[0]) > 5 and any("big" in p for p in steps[2])
    for frame, expected in zip(frames, steps, strict=True):
        written = [frozenset(p) for p in frame["expect"]]
        assert len(written) == len(set(written)) and set(written) == expected
    assert replay(path).ok


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_two_move_batches_in_one_frame_keep_their_own_text(tmp_path, suffix):
    # The compiled text of a batch is a view of a scratch buffer the next batch reuses.
    rng = np.random.default_rng(5)
    first, second = rng.normal(size=(40, 2)), rng.normal(size=(30, 2))
    angles = rng.normal(size=30)
    path = tmp_path / ("batches" + suffix)
    with ScenarioWriter(path, dim=2) as w:
        for _ in range(2):
            w.write_frame(move=[MoveBatch(list(range(40)), positions=first),
                                MoveBatch(list(range(40, 70)), positions=second, angles=angles)],
                          expect=np.array([[1, 2]], dtype=np.int64))
    for frame in lines_of(path)[1:]:
        moves = frame["move"]
        assert [m["id"] for m in moves] == list(range(70))
        assert same_bits([m["position"] for m in moves[:40]], first)
        assert same_bits([m["position"] for m in moves[40:]], second)
        assert same_bits([m["angle"] for m in moves[40:]], angles)
        assert all("angle" not in m for m in moves[:40]) and frame["expect"] == [[1, 2]]
