"""Scenario format version 2: reading, replaying and writing each new key.

Every expected value comes from the contract and a hand calculation written
next to it (unit circles, axis-aligned boxes, axis half-planes), never from
collideworld's output. Invalid files must be rejected at their line, with
the reason in the message.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from collideworld import Box, Circle, HalfPlane, World
from collideworld.errors import InvalidArgumentError, ScenarioError
from collideworld.scenario import (
    FORMAT_VERSION,
    BodySpec,
    ExpectedContact,
    ExpectedDistance,
    ExpectedImpact,
    MoveSpec,
    PoseSpec,
    Recorder,
    ScenarioWriter,
    SetSpec,
    read_scenario,
    replay,
)
from collideworld.scenario.reader import SUPPORTED_VERSIONS

V1 = '{"collideworld_scenario": 1, "dim": 2}'
V2 = '{"collideworld_scenario": 2, "dim": 2}'
V2_3D = '{"collideworld_scenario": 2, "dim": 3}'
SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def row(obj):
    return json.dumps(obj)


def circle_body(bid, x, y, r=1):
    return {"id": bid, "shape": {"type": "circle", "radius": r}, "position": [x, y]}


def box_body(bid, x, y, hx=1, hy=1):
    return {"id": bid, "shape": {"type": "box", "half_extents": [hx, hy]}, "position": [x, y]}


FLOOR = {"id": "floor", "shape": {"type": "halfplane", "normal": [0, 1], "offset": 0}}


def write(tmp_path, *rows, name="scene.jsonl"):
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else row(r)) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def frames(path):
    return list(read_scenario(path))


def rejected(tmp_path, rows, line, contains):
    path = write(tmp_path, *rows)
    with pytest.raises(ScenarioError) as info:
        frames(path)
    err = info.value
    assert err.line == line, str(err)
    assert str(err).startswith(f"{path}:{line}: "), str(err)
    assert contains in str(err), str(err)
    return err


# --------------------------------------------------------------------------
# header
# --------------------------------------------------------------------------


def test_versions_read():
    assert FORMAT_VERSION == 3
    assert SUPPORTED_VERSIONS == (1, 2, 3)


def test_version_2_header_is_read(tmp_path):
    path = write(tmp_path, V2, {})
    scenario = read_scenario(path)
    assert scenario.header.version == 2
    assert len(list(scenario)) == 1


def test_version_4_is_rejected(tmp_path):
    rejected(tmp_path, ['{"collideworld_scenario": 4, "dim": 2}'], 1, "unsupported format version 4")


# --------------------------------------------------------------------------
# set
# --------------------------------------------------------------------------


def test_set_is_read(tmp_path):
    path = write(tmp_path, V2, {"add": [circle_body("a", 0, 0), FLOOR]},
                 {"set": [{"id": "a", "static": True, "category": 2, "mask": 5,
                           "shape": {"type": "box", "half_extents": [1, 2]}}, {"id": "floor", "static": True}]})
    got = frames(path)[1].set
    assert got == (SetSpec("a", static=True, category=2, mask=5, shape=Box((1, 2))), SetSpec("floor", static=True))


@pytest.mark.parametrize("change, contains", [
    ({"id": "a", "static": 1}, "static must be true or false"),
    ({"id": "a", "mask": -1}, "mask"),
    ({"id": "a", "category": 2**32}, "category"),
    ({"id": "a"}, "nothing to set"),
    ({"id": "a", "position": [1, 0]}, "unknown key 'position'"),
    ({"id": "ghost", "mask": 0}, "unknown id 'ghost'"),
    ({"id": "floor", "static": False}, "always static"),
    ({"id": "floor", "shape": {"type": "circle", "radius": 1}}, "cannot replace a halfplane"),
    ({"id": "a", "shape": {"type": "halfplane", "normal": [0, 1], "offset": 0}}, "cannot replace a finite"),
    ({"id": "a", "shape": {"type": "circle", "radius": -1}}, "invalid shape"),
    ({"id": "a", "shape": {"type": "sphere", "radius": 1}}, "3D"),
])
def test_invalid_set_names_its_line(tmp_path, change, contains):
    rejected(tmp_path, [V2, {"add": [circle_body("a", 0, 0), FLOOR]}, {}, {"set": [change]}], 4, contains)


def test_set_in_a_version_1_file_is_an_error(tmp_path):
    rejected(tmp_path, [V1, {"add": [circle_body("a", 0, 0)]}, {"set": [{"id": "a", "static": True}]}], 3,
             "'set' needs format version 2 (the header says 1)")


def test_set_comes_after_add_and_before_move(tmp_path):
    # the body added in this frame can be set, and the move still finds it
    path = write(tmp_path, V2, {"add": [circle_body("a", 0, 0)], "set": [{"id": "a", "mask": 0}],
                                "move": [{"id": "a", "position": [1, 1]}]})
    (frame,) = frames(path)
    assert frame.set == (SetSpec("a", mask=0),) and frame.move == (MoveSpec("a", position=(1.0, 1.0)),)


def test_set_to_a_concave_polygon_is_remembered(tmp_path):
    # an L (concave) may not be named in expect_contacts after the set makes it one
    ell = {"type": "polygon", "vertices": [[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2]]}
    rejected(tmp_path, [V2, {"add": [circle_body("a", 0, 0), circle_body("b", 1, 0)]},
                        {"set": [{"id": "a", "shape": ell}], "expect": [["a", "b"]],
                         "expect_contacts": [{"pair": ["a", "b"], "normal": [1, 0], "depth": 0}]}],
             3, "concave polygon")


def test_set_replays(tmp_path):
    # unit circles 1 apart overlap by 1. Both static: no contact (the pair ends).
    # Back to dynamic, then a's mask 0: still no contact. Then a becomes a box
    # of half extents (3, 1) and b is moved to (5, 0): |dx| = 5 > 3 + 1, apart;
    # b at (4, 0): 4 = 3 + 1, touching.
    path = write(tmp_path, V2, {"add": [circle_body("a", 0, 0), circle_body("b", 1, 0)], "expect": [["a", "b"]]},
                 {"set": [{"id": "a", "static": True}, {"id": "b", "static": True}], "expect": []},
                 {"set": [{"id": "b", "static": False}, {"id": "a", "mask": 0}], "expect": []},
                 {"set": [{"id": "a", "mask": 4294967295, "shape": {"type": "box", "half_extents": [3, 1]}}],
                  "move": [{"id": "b", "position": [5, 0]}], "expect": []},
                 {"move": [{"id": "b", "position": [4, 0]}], "expect": [["a", "b"]]})
    for backend in ("numpy", "compiled"):
        report = replay(path, lambda dim, b=backend: World(dim=dim, backend=b))
        assert report.ok, report.format_first_mismatch()
        assert report.frames_checked == 5


def test_set_that_keeps_touching_neither_ends_nor_begins(tmp_path):
    # the contract: a pair touching before and after a set is neither ended nor begun by it
    path = write(tmp_path, V2, {"add": [circle_body("a", 0, 0), circle_body("b", 1, 0)]},
                 {"set": [{"id": "a", "shape": {"type": "circle", "radius": 1.5}}]})
    seen = []
    from collideworld.scenario import iter_replay
    for _, _, contacts in iter_replay(path):
        seen.append((list(contacts.began), list(contacts.ended)))
    assert seen == [([("a", "b")], []), ([], [])]


# --------------------------------------------------------------------------
# moving a half-plane
# --------------------------------------------------------------------------


def test_halfplane_move_is_read_and_replayed(tmp_path):
    # a unit circle at height 2; the floor y <= 0 is 1 below it. Raised to
    # y <= 1 (offset 1) it touches; the normal [0, 2] with offset 4 is y <= 2: overlap.
    path = write(tmp_path, V2, {"add": [circle_body("a", 0, 2), FLOOR], "expect": []},
                 {"move": [{"id": "floor", "offset": 1}], "expect": [["a", "floor"]]},
                 {"move": [{"id": "floor", "normal": [0, 2], "offset": 4}], "expect": [["a", "floor"]],
                  "expect_contacts": [{"pair": ["floor", "a"], "normal": [0, 1], "depth": 1}]},
                 {"move": [{"id": "floor", "normal": [1, 0]}], "expect": [["a", "floor"]]},
                 {"move": [{"id": "floor", "normal": [-1, 0], "offset": -1.5}], "expect": []})
    got = [f.move for f in frames(path)]
    assert got[1] == (MoveSpec("floor", offset=1.0),)
    assert got[2] == (MoveSpec("floor", normal=(0.0, 2.0), offset=4.0),)
    report = replay(path)
    assert report.ok, report.format_first_mismatch()


@pytest.mark.parametrize("move, contains", [
    ({"id": "floor", "position": [0, 1]}, "cannot move by 'position'"),
    ({"id": "floor", "angle": 1}, "cannot move by 'angle'"),
    ({"id": "floor", "normal": [0, 0]}, "normal must not be zero"),
    ({"id": "floor", "normal": [0, 1, 0]}, "normal must have 2 numbers"),
    ({"id": "floor", "offset": "high"}, "offset must be a number"),
    ({"id": "a", "offset": 1}, "'offset' moves only a halfplane or plane"),
    ({"id": "a", "normal": [0, 1]}, "'normal' moves only a halfplane or plane"),
])
def test_invalid_halfplane_move_names_its_line(tmp_path, move, contains):
    rejected(tmp_path, [V2, {"add": [circle_body("a", 0, 0), FLOOR]}, {"move": [move]}], 3, contains)


def test_halfplane_move_in_a_version_1_file_is_an_error(tmp_path):
    rejected(tmp_path, [V1, {"add": [FLOOR]}, {"move": [{"id": "floor", "offset": 1}]}], 3,
             "cannot move in format version 1")


def test_plane_move_in_3d(tmp_path):
    # a unit sphere at height 3 over z <= 0; raised to z <= 2.5 it overlaps by 0.5
    sphere = {"id": "s", "shape": {"type": "sphere", "radius": 1}, "position": [0, 0, 3]}
    ground = {"id": "g", "shape": {"type": "plane", "normal": [0, 0, 1], "offset": 0}}
    path = write(tmp_path, V2_3D, {"add": [sphere, ground], "expect": []},
                 {"move": [{"id": "g", "offset": 2.5}], "expect": [["g", "s"]],
                  "expect_contacts": [{"pair": ["g", "s"], "normal": [0, 0, 1], "depth": 0.5}]})
    report = replay(path)
    assert report.ok, report.format_first_mismatch()


# --------------------------------------------------------------------------
# expect_contacts: points and parts
# --------------------------------------------------------------------------

# A box of half extents (1, 0.5) centred at (0, 0.25) sinks 0.25 into the floor
# y <= 0 (its bottom at y = -0.25). Contact points are midway between the
# shapes: the bottom corners (+-1, -0.25) and the floor under them (+-1, 0)
# meet at (+-1, -0.125).
SUNK_BOX = box_body("box", 0, 0.25, 1, 0.5)


def sunk_frame(points, parts=None):
    entry = {"pair": ["floor", "box"], "normal": [0, 1], "depth": 0.25, "points": points}
    if parts is not None:
        entry["parts"] = parts
    return {"add": [SUNK_BOX, FLOOR], "expect": [["box", "floor"]], "expect_contacts": [entry]}


def test_contact_points_are_read(tmp_path):
    path = write(tmp_path, V2, sunk_frame([[1, -0.125], [-1, -0.125]], [-1, -1]))
    (frame,) = frames(path)
    assert frame.expect_contacts == (ExpectedContact(("floor", "box"), (0.0, 1.0), 0.25,
                                                     ((1.0, -0.125), (-1.0, -0.125)), (-1, -1)),)


def test_contact_points_replay_as_a_set(tmp_path):
    # listed in the other order: a set, so it matches
    path = write(tmp_path, V2, sunk_frame([[-1, -0.125], [1, -0.125]]))
    report = replay(path)
    assert report.ok, report.format_first_mismatch()
    assert report.contacts_checked == 1


@pytest.mark.parametrize("points, why", [
    ([[1, -0.25], [-1, -0.25]], "the box's corners, not midway"),
    ([[1, -0.125]], "one point of two"),
    ([[1, -0.125], [1, -0.125]], "the same point twice"),
    ([[1, -0.125], [-1, -0.125], [0, -0.125]], "three points"),
])
def test_wrong_contact_points_are_a_mismatch(tmp_path, points, why):
    path = write(tmp_path, V2, sunk_frame(points))
    report = replay(path)
    assert not report.ok, why
    mismatch = report.first_mismatch
    assert (mismatch.number, mismatch.line) == (1, 2)
    (c,) = mismatch.contacts
    assert c.pair == ("floor", "box") and c.reason == "points differ"
    assert "expected points" in mismatch.describe()


def test_contact_points_need_a_world_that_computes_them(tmp_path):
    path = write(tmp_path, V2, sunk_frame([[1, -0.125], [-1, -0.125]]))
    report = replay(path, lambda dim: World(dim=dim))
    assert not report.ok
    assert "manifolds=True" in report.first_mismatch.contacts[0].reason
    assert replay(path, lambda dim: World(dim=dim, manifolds=True)).ok


def test_a_file_without_points_replays_without_manifolds(tmp_path):
    from collideworld.scenario.replay import mentions_points
    from collideworld.scenario.source import ReaderLimits

    with_points = write(tmp_path, V2, sunk_frame([[1, -0.125], [-1, -0.125]]), name="p.jsonl")
    without = write(tmp_path, V2, {"add": [SUNK_BOX, FLOOR]}, name="n.jsonl")
    assert mentions_points(with_points, ReaderLimits())
    assert not mentions_points(without, ReaderLimits())


@pytest.mark.parametrize("entry_extra, contains", [
    ({"parts": [0, -1]}, "is not a compound: its part index must be -1, got 0"),
    ({"parts": [-1, 3]}, "is not a compound: its part index must be -1, got 3"),
    ({"parts": [-1]}, "parts must be a list of two integers"),
    ({"parts": [-1.0, -1]}, "parts must be a list of two integers"),
    ({"points": []}, "at least one contact point"),
    ({"points": [[1, 2, 3]]}, "points[0] must have 2 numbers"),
    ({"points": [1, 2]}, "points[0] must be a list"),
])
def test_invalid_points_and_parts_name_their_line(tmp_path, entry_extra, contains):
    entry = {"pair": ["floor", "box"], "normal": [0, 1], "depth": 0.25, **entry_extra}
    rejected(tmp_path, [V2, {"add": [SUNK_BOX, FLOOR]}, {"expect_contacts": [entry]}], 3, contains)


@pytest.mark.parametrize("key, value", [("points", [[1, -0.125]]), ("parts", [-1, -1])])
def test_points_and_parts_in_a_version_1_file_are_errors(tmp_path, key, value):
    entry = {"pair": ["floor", "box"], "normal": [0, 1], "depth": 0.25, key: value}
    rejected(tmp_path, [V1, {"add": [SUNK_BOX, FLOOR], "expect_contacts": [entry]}], 2,
             f"'{key}' needs format version 2")


# --------------------------------------------------------------------------
# expect_distance
# --------------------------------------------------------------------------


def test_expect_distance_is_read(tmp_path):
    path = write(tmp_path, V2, {"add": [circle_body("a", 0, 0), circle_body("b", 3, 4)],
                                "expect_distance": [{"pair": ["a", "b"], "distance": 3,
                                                     "points": [[0.6, 0.8], [2.4, 3.2]]},
                                                    {"pair": ["b", "a"], "distance": 3}]})
    (frame,) = frames(path)
    assert frame.expect_distance == (ExpectedDistance(("a", "b"), 3.0, ((0.6, 0.8), (2.4, 3.2))),
                                     ExpectedDistance(("b", "a"), 3.0))


def test_expect_distance_replays(tmp_path):
    # unit circles with centres 5 apart (3-4-5): gap 3, closest points at 1/5 and 4/5 of the way.
    # Then b at (1.5, 0): overlap 0.5, signed -0.5. A box (1, 1) against the floor y <= 0 at height 3:
    # gap 2. Pairs the filters leave out are measured all the same (geometry, not reporting).
    path = write(tmp_path, V2,
                 {"add": [circle_body("a", 0, 0), circle_body("b", 3, 4), box_body("c", 10, 3), FLOOR],
                  "expect_distance": [{"pair": ["a", "b"], "distance": 3, "points": [[0.6, 0.8], [2.4, 3.2]]},
                                      {"pair": ["floor", "c"], "distance": 2, "points": [[10, 0], [10, 2]]}]},
                 {"move": [{"id": "b", "position": [1.5, 0]}], "set": [{"id": "a", "mask": 0}],
                  "expect": [["b", "floor"]],  # a's mask 0 leaves out both of a's overlaps
                  "expect_distance": [{"pair": ["b", "a"], "distance": -0.5}]})
    for backend in ("numpy", "compiled"):
        report = replay(path, lambda dim, b=backend: World(dim=dim, backend=b))
        assert report.ok, report.format_first_mismatch()
        assert report.distances_checked == 3


def test_closest_points_that_are_not_unique_accept_any_true_pair(tmp_path):
    # boxes (1, 1) at (0, 0) and (3, 0.5): facing edges x = 1 and x = 2 overlap for y in [-0.5, 1],
    # gap 1. Any (1, y), (2, y) with y in that range is a closest pair; (1, 0), (2, 0.7) is not.
    def frame(points):
        return {"add": [box_body("a", 0, 0), box_body("b", 3, 0.5)],
                "expect_distance": [{"pair": ["a", "b"], "distance": 1, "points": points}]}

    for y in (-0.5, 0.0, 0.75, 1.0):
        path = write(tmp_path, V2, frame([[1, y], [2, y]]))
        report = replay(path)
        assert report.ok, (y, report.format_first_mismatch())
    for points in ([[1, 0], [2, 0.7]], [[1, 1.5], [2, 1.5]], [[0.5, 0], [1.5, 0]]):
        path = write(tmp_path, V2, frame(points))
        report = replay(path)
        assert not report.ok, points
        assert report.first_mismatch.distances[0].reason == "points differ"


def test_wrong_distance_is_a_mismatch_naming_frame_and_pair(tmp_path):
    path = write(tmp_path, V2, {}, {"add": [circle_body("a", 0, 0), circle_body("b", 3, 4)],
                                    "expect_distance": [{"pair": ["a", "b"], "distance": 2.9}]})
    report = replay(path)
    assert report.mismatch_count == 1
    text = report.format_first_mismatch()
    assert text.startswith(f"{path}:3: frame 2 (line 3)")
    assert "['a', 'b']: distance differs: expected 2.9, got 3" in text


@pytest.mark.parametrize("entry, contains", [
    ({"pair": ["a", "b"]}, "missing key 'distance'"),
    ({"pair": ["a", "b"], "distance": "far"}, "distance must be a number"),
    ({"pair": ["a", "ghost"], "distance": 1}, "unknown id 'ghost'"),
    ({"pair": ["a", "a"], "distance": 1}, "with itself"),
    ({"pair": ["a", "b"], "distance": 1, "points": [[0, 0]]}, "points must be [point_a, point_b]"),
    ({"pair": ["a", "b"], "distance": 1, "points": [[0, 0], [1]]}, "points[1] must have 2 numbers"),
    ({"pair": ["a", "b"], "distance": 1, "normal": [1, 0]}, "unknown key 'normal'"),
])
def test_invalid_expect_distance_names_its_line(tmp_path, entry, contains):
    rejected(tmp_path, [V2, {"add": [circle_body("a", 0, 0), circle_body("b", 3, 4)]},
                        {"expect_distance": [entry]}], 3, contains)


def test_expect_distance_in_a_version_1_file_is_an_error(tmp_path):
    rejected(tmp_path, [V1, {"add": [circle_body("a", 0, 0), circle_body("b", 3, 4)],
                             "expect_distance": [{"pair": ["a", "b"], "distance": 3}]}], 2,
             "'expect_distance' needs format version 2")


# --------------------------------------------------------------------------
# expect_impact
# --------------------------------------------------------------------------


def test_expect_impact_is_read(tmp_path):
    path = write(tmp_path, V2, {"add": [circle_body("a", 0, 0), circle_body("b", 5, 0), FLOOR],
                                "expect_impact": [
                                    {"pair": ["a", "b"], "end_a": {"position": [10, 0], "angle": 1},
                                     "end_b": {"position": [5, 0]}, "t": 0.3},
                                    {"pair": ["floor", "a"], "end_a": {}, "end_b": {"position": [0, 5]},
                                     "t": None}]})
    (frame,) = frames(path)
    assert frame.expect_impact == (
        ExpectedImpact(("a", "b"), PoseSpec((10.0, 0.0), 1.0), PoseSpec((5.0, 0.0)), 0.3),
        ExpectedImpact(("floor", "a"), PoseSpec(), PoseSpec((0.0, 5.0)), None))


def test_expect_impact_replays(tmp_path):
    # a unit circle from x=0 to x=10 reaches a still one at x=5 when its centre is at 3: t = 0.3.
    # Falling from y=5 to y=-5 onto y <= 0 it touches at y=1: t = 0.4. Moving up, never.
    # A box (2, 0.1) spun half a turn about its centre at (20, 0) never reaches a unit circle
    # at (20, 3.5): its corners reach sqrt(4 + 0.01) = 2.0025 from the centre, the circle starts
    # at 3.5 - 1 = 2.5. The circle lowered from (20, 3.5) to (20, 1.5) ends with its bottom at
    # 0.5, above the still box's top edge y = 0.1: never either.
    spun_box = {"id": "stick", "shape": {"type": "box", "half_extents": [2, 0.1]}, "position": [20, 0]}
    path = write(tmp_path, V2,
                 {"add": [circle_body("a", 0, 0), circle_body("b", 5, 0), FLOOR, spun_box, circle_body("c", 20, 3.5)],
                  "set": [{"id": "a", "mask": 0}],
                  "expect_impact": [
                      {"pair": ["a", "b"], "end_a": {"position": [10, 0]}, "end_b": {"position": [5, 0]}, "t": 0.3},
                      {"pair": ["b", "a"], "end_a": {"position": [5, 0]}, "end_b": {"position": [10, 0]}, "t": 0.3},
                      {"pair": ["stick", "c"], "end_a": {"position": [20, 0], "angle": 3.14159},
                       "end_b": {"position": [20, 3.5]}, "t": None},
                      {"pair": ["stick", "c"], "end_a": {"position": [20, 0]},
                       "end_b": {"position": [20, 1.5]}, "t": None}]},
                 {"move": [{"id": "a", "position": [30, 5]}],
                  "expect_impact": [
                      {"pair": ["floor", "a"], "end_a": {}, "end_b": {"position": [30, -5]}, "t": 0.4},
                      {"pair": ["a", "floor"], "end_a": {"position": [30, 15]}, "end_b": {}, "t": None}]})
    for backend in ("numpy", "compiled"):
        report = replay(path, lambda dim, b=backend: World(dim=dim, backend=b))
        assert report.ok, report.format_first_mismatch()
        assert report.impacts_checked == 6


def test_expect_impact_in_3d_with_a_rotation(tmp_path):
    # a unit sphere from z=5 to z=-5 (turning a quarter about x on the way) onto z <= 0: touches at z=1, t=0.4
    sphere = {"id": "s", "shape": {"type": "sphere", "radius": 1}, "position": [0, 0, 5]}
    ground = {"id": "g", "shape": {"type": "plane", "normal": [0, 0, 1], "offset": 0}}
    quarter = [0.7071067811865476, 0.7071067811865476, 0, 0]
    path = write(tmp_path, V2_3D, {"add": [sphere, ground], "expect_impact": [
        {"pair": ["s", "g"], "end_a": {"position": [0, 0, -5], "quaternion": quarter}, "end_b": {}, "t": 0.4}]})
    report = replay(path)
    assert report.ok, report.format_first_mismatch()


@pytest.mark.parametrize("t, why", [(0.5, "too late"), (None, "it does touch")])
def test_wrong_impact_is_a_mismatch_naming_frame_and_pair(tmp_path, t, why):
    path = write(tmp_path, V2, {"add": [circle_body("a", 0, 0), circle_body("b", 5, 0)],
                                "expect_impact": [{"pair": ["a", "b"], "end_a": {"position": [10, 0]},
                                                   "end_b": {"position": [5, 0]}, "t": t}]})
    report = replay(path)
    assert not report.ok, why
    (impact,) = report.first_mismatch.impacts
    assert impact.pair == ("a", "b") and impact.expected_t == t
    assert impact.actual_t == pytest.approx(0.3, abs=1e-9)
    assert "frame 1 (line 2)" in report.format_first_mismatch()
    assert "['a', 'b']: time of impact differs" in report.format_first_mismatch()


def test_expected_impact_that_never_happens_is_a_mismatch(tmp_path):
    path = write(tmp_path, V2, {"add": [circle_body("a", 0, 0), circle_body("b", 5, 5)],
                                "expect_impact": [{"pair": ["a", "b"], "end_a": {"position": [10, 0]},
                                                   "end_b": {"position": [5, 5]}, "t": 0.3}]})
    (impact,) = replay(path).first_mismatch.impacts
    assert impact.actual_t is None
    assert "expected t=0.3, got never" in impact.describe()


@pytest.mark.parametrize("entry, contains", [
    ({"pair": ["a", "b"], "end_a": {"position": [1, 0]}, "end_b": {"position": [5, 0]}}, "missing key 't'"),
    ({"pair": ["a", "b"], "end_a": {"position": [1, 0]}, "end_b": {"position": [5, 0]}, "t": 1.5}, "[0, 1]"),
    ({"pair": ["a", "b"], "end_a": {"position": [1, 0]}, "end_b": {"position": [5, 0]}, "t": -0.1}, "[0, 1]"),
    ({"pair": ["a", "b"], "end_a": {"position": [1, 0]}, "end_b": {"position": [5, 0]}, "t": "soon"},
     "t must be a number"),
    ({"pair": ["a", "b"], "end_a": {"angle": 1}, "end_b": {"position": [5, 0]}, "t": 0}, "end_a: missing key"),
    ({"pair": ["a", "b"], "end_a": {"position": [1, 0], "quaternion": [1, 0, 0, 0]},
      "end_b": {"position": [5, 0]}, "t": 0}, "only allowed in 3D"),
    ({"pair": ["a", "b"], "end_a": {"position": [1, 0], "velocity": [1, 0]},
      "end_b": {"position": [5, 0]}, "t": 0}, "unknown key 'velocity'"),
    ({"pair": ["a", "floor"], "end_a": {"position": [1, 0]}, "end_b": {"position": [0, 0]}, "t": 0},
     "end_b: a halfplane or plane takes no pose"),
    ({"pair": ["a", "b"], "end_a": [1, 0], "end_b": {"position": [5, 0]}, "t": 0}, "end_a must be an object"),
])
def test_invalid_expect_impact_names_its_line(tmp_path, entry, contains):
    rejected(tmp_path, [V2, {"add": [circle_body("a", 0, 0), circle_body("b", 5, 0), FLOOR]}, {},
                        {"expect_impact": [entry]}], 4, contains)


def test_impact_of_two_planes_is_an_error(tmp_path):
    wall = {"id": "wall", "shape": {"type": "halfplane", "normal": [1, 0], "offset": 0}}
    rejected(tmp_path, [V2, {"add": [FLOOR, wall], "expect_impact": [
        {"pair": ["floor", "wall"], "end_a": {}, "end_b": {}, "t": 0}]}], 2, "never move")


def test_expect_impact_in_a_version_1_file_is_an_error(tmp_path):
    rejected(tmp_path, [V1, {"add": [circle_body("a", 0, 0), circle_body("b", 5, 0)]},
                        {"expect_impact": [{"pair": ["a", "b"], "end_a": {"position": [1, 0]},
                                            "end_b": {"position": [5, 0]}, "t": None}]}], 3,
             "'expect_impact' needs format version 2")


# --------------------------------------------------------------------------
# the four new shapes: version 2 only (read and checked in
# tests/test_scenario_shapes.py and tests/test_compound.py)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [
    {"type": "capsule", "points": [[0, 0], [1, 0]], "radius": 0.5},
    {"type": "segment", "points": [[0, 0], [1, 0]]},
    {"type": "compound", "parts": [{"shape": {"type": "circle", "radius": 1}, "position": [0, 0]}]},
])
def test_new_shapes_need_version_2(tmp_path, shape):
    body = {"id": "a", "shape": shape, "position": [0, 0]}
    rejected(tmp_path, [V1, {"add": [body]}], 2, f"shape type {shape['type']!r} needs format version 2")


def test_shape_parsers_have_one_entry_per_type():
    from collideworld.scenario.schema import SHAPE_PARSERS

    assert set(SHAPE_PARSERS) == {"circle", "box", "polygon", "halfplane", "sphere", "plane",
                                  "capsule", "segment", "convex_hull", "compound", "triangle_mesh", "heightfield", "chain",
                                  "cylinder", "cone"}


# --------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------


def header_of(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.loads(f.readline())


BODIES = [BodySpec("a", Circle(1.0), (0.0, 0.0)), BodySpec("b", Circle(1.0), (3.0, 4.0)),
          BodySpec("floor", HalfPlane((0.0, 1.0), -5.0))]


def write_v2_frames(w):
    w.write_frame(add=BODIES, expect=[])
    w.write_frame(set=[SetSpec("a", static=True, mask=6, shape=Box((1.0, 1.0)))],
                  move=[MoveSpec("floor", normal=(0.0, 1.0), offset=-1.0), MoveSpec("b", position=(3.0, 0.0))],
                  expect=[("a", "b"), ("a", "floor")],
                  expect_contacts=[ExpectedContact(("floor", "a"), (0.0, 1.0), 0.0, ((1.0, -1.0), (-1.0, -1.0)),
                                                   (-1, -1))],
                  expect_distance=[ExpectedDistance(("a", "b"), 0.0), ExpectedDistance(("b", "floor"), -1.0,
                                                                                        ((3.0, -1.0), (3.0, -2.0)))],
                  expect_impact=[ExpectedImpact(("b", "floor"), PoseSpec((3.0, 10.0), 0.5), PoseSpec(), None)])


@pytest.mark.parametrize("name", ["scene.jsonl", "scene.jsonl.gz"])
def test_writer_round_trip_of_every_v2_key(tmp_path, name):
    path = tmp_path / name
    with ScenarioWriter(path, dim=2) as w:
        write_v2_frames(w)
        assert w.version == 2
    assert header_of(path) == {"collideworld_scenario": 2, "dim": 2}
    got = frames(path)
    assert got[1].set == (SetSpec("a", static=True, mask=6, shape=Box((1.0, 1.0))),)
    assert got[1].move == (MoveSpec("floor", normal=(0.0, 1.0), offset=-1.0), MoveSpec("b", position=(3.0, 0.0)))
    assert got[1].expect_contacts == (ExpectedContact(("floor", "a"), (0.0, 1.0), 0.0,
                                                      ((1.0, -1.0), (-1.0, -1.0)), (-1, -1)),)
    assert got[1].expect_distance == (ExpectedDistance(("a", "b"), 0.0),
                                      ExpectedDistance(("b", "floor"), -1.0, ((3.0, -1.0), (3.0, -2.0))))
    assert got[1].expect_impact == (ExpectedImpact(("b", "floor"), PoseSpec((3.0, 10.0), 0.5), PoseSpec(), None),)
    # and copying the file frame by frame gives the same frames
    copy = tmp_path / ("copy-" + name)
    with ScenarioWriter(copy, dim=2) as w:
        for frame in got:
            w.write(frame)
    assert [(f.set, f.move, f.expect_contacts, f.expect_distance, f.expect_impact) for f in frames(copy)] == \
        [(f.set, f.move, f.expect_contacts, f.expect_distance, f.expect_impact) for f in got]


def test_writer_stays_version_1_without_v2_features(tmp_path):
    path = tmp_path / "v1.jsonl"
    with ScenarioWriter(path, dim=2) as w:
        w.write_frame(add=BODIES, move=[], expect=[],
                      expect_contacts=[ExpectedContact(("a", "b"), (0.6, 0.8), 0.0)])
    assert header_of(path)["collideworld_scenario"] == 1


@pytest.mark.parametrize("name", ["late.jsonl", "late.jsonl.gz"])
def test_writer_turns_version_2_at_the_first_v2_frame(tmp_path, name):
    path = tmp_path / name
    w = ScenarioWriter(path, dim=2, name="late")
    for _ in range(3):
        w.write_frame()
    w.write_frame(add=BODIES)
    assert header_of(path)["collideworld_scenario"] == 1
    w.write_frame(set=[SetSpec("a", static=True)])
    assert w.version == 2
    # already readable as version 2 before the writer is closed (a killed writer leaves this)
    assert read_scenario(path, ignore_truncated_tail=True).header.version == 2
    w.write_frame(expect=[])
    w.close()
    assert header_of(path) == {"collideworld_scenario": 2, "dim": 2, "name": "late"}
    got = frames(path)
    assert len(got) == 6 and got[4].set == (SetSpec("a", static=True),)
    assert replay(path).ok


def test_writer_version_1_refuses_v2_frames_and_writes_nothing(tmp_path):
    path = tmp_path / "strict.jsonl"
    w = ScenarioWriter(path, dim=2, version=1)
    w.write_frame(add=BODIES)
    before = path.read_bytes()
    for kwargs in ({"set": [SetSpec("a", mask=0)]}, {"move": [MoveSpec("floor", offset=1.0)]},
                   {"expect_distance": [ExpectedDistance(("a", "b"), 3.0)]}):
        with pytest.raises(InvalidArgumentError, match="version=1"):
            w.write_frame(**kwargs)
    w.close()
    assert path.read_bytes() == before
    with pytest.raises(InvalidArgumentError, match="version must be"):
        ScenarioWriter(tmp_path / "x.jsonl", dim=2, version=4)


def test_writer_version_2_from_the_start(tmp_path):
    path = tmp_path / "v2.jsonl"
    with ScenarioWriter(path, dim=3, version=2) as w:
        w.write_frame()
    assert header_of(path)["collideworld_scenario"] == 2


def test_rejected_frame_leaves_the_header_alone(tmp_path):
    # a NaN in a v2 frame: nothing is written, and the header does not change either
    path = tmp_path / "nan.jsonl"
    with ScenarioWriter(path, dim=2) as w:
        w.write_frame(add=BODIES)
        with pytest.raises(InvalidArgumentError):
            w.write_frame(expect_distance=[ExpectedDistance(("a", "b"), float("nan"))])
        assert w.version == 1
    assert header_of(path)["collideworld_scenario"] == 1


# --------------------------------------------------------------------------
# recording
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["rec.jsonl", "rec.jsonl.gz"])
def test_recorder_writes_set_and_plane_moves_as_version_2(tmp_path, name):
    path = tmp_path / name
    world = World(dim=2)
    with Recorder(world, path, record_contacts=True) as rec:
        rec.add(Circle(1.0), position=(0, 0), id="a")
        rec.add(Circle(1.0), position=(1.5, 0), id="b")
        rec.add(HalfPlane((0, 1), -5.0), id="floor")
        rec.step()
        assert header_of(path)["collideworld_scenario"] == 1
        rec.set_static("a", True)
        rec.set_filter("b", mask=2)
        rec.step()
        rec.set_filter("b", mask=0xFFFFFFFF)
        rec.set_shape("a", Box((1.0, 1.0)))
        rec.move("floor", offset=-1.0)
        rec.move("b", position=(2.0, 0.0))
        rec.step()
        rec.set_shape("floor", HalfPlane((0, 1), 0.5))
        rec.step()
    assert header_of(path)["collideworld_scenario"] == 2
    got = frames(path)
    assert got[1].set == (SetSpec("a", static=True), SetSpec("b", mask=2))
    assert got[2].set == (SetSpec("b", mask=0xFFFFFFFF), SetSpec("a", shape=Box((1.0, 1.0))))
    assert set(got[2].move) == {MoveSpec("floor", normal=(0.0, 1.0), offset=-1.0), MoveSpec("b", position=(2.0, 0.0))}
    assert got[3].move == (MoveSpec("floor", normal=(0.0, 1.0), offset=0.5),)
    # the recording replays to what the live world reported, step by step
    # (hand check of the last frame: a box (1, 1) at the origin touches b, a unit circle at (2, 0),
    # and the floor y <= 0.5 overlaps b by 1.5: its bottom is at y = -1)
    assert got[3].expect == frozenset({frozenset({"a", "b"}), frozenset({"b", "floor"})})
    report = replay(path)
    assert report.ok, report.format_first_mismatch()


def test_recorder_without_v2_calls_writes_version_1(tmp_path):
    path = tmp_path / "plain.jsonl"
    with Recorder(World(dim=2), path) as rec:
        rec.add(Circle(1.0), position=(0, 0), id="a")
        rec.step()
        rec.move("a", position=(1, 1))
        rec.step()
    assert header_of(path)["collideworld_scenario"] == 1


def test_recorder_set_on_a_body_added_in_the_same_frame_goes_into_its_add(tmp_path):
    path = tmp_path / "fresh.jsonl"
    with Recorder(World(dim=2), path) as rec:
        rec.add(Circle(1.0), position=(0, 0), id="a")
        rec.set_filter("a", category=4)
        rec.step()
    (frame,) = frames(path)
    assert frame.set == () and frame.add[0].category == 4
    assert header_of(path)["collideworld_scenario"] == 1


def test_recorder_with_contact_points(tmp_path):
    # a world with manifolds: the recorded contacts carry points, so the file is version 2,
    # and it replays (the replay sees the points and computes them too)
    path = tmp_path / "points.jsonl"
    with Recorder(World(dim=2, manifolds=True), path, record_contacts=True) as rec:
        rec.add(Box((1.0, 0.5)), position=(0, 0.25), id="box")
        rec.add(HalfPlane((0, 1), 0.0), id="floor")
        rec.step()
    (frame,) = frames(path)
    assert header_of(path)["collideworld_scenario"] == 2
    (contact,) = frame.expect_contacts
    # the hand values of SUNK_BOX above: midway points (+-1, -0.125)
    assert sorted(contact.points) == [(-1.0, -0.125), (1.0, -0.125)]
    assert replay(path).ok


# --------------------------------------------------------------------------
# the version 2 files of scenarios/
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["driving_trajectory.jsonl", "bullet_wall.jsonl"])
def test_v2_scenarios_check_distances_and_impacts(name):
    path = SCENARIOS / name
    scenario = read_scenario(path)
    assert scenario.header.version == 2
    report = replay(path)
    assert report.ok, report.format_first_mismatch()
    assert report.distances_checked > 0 and report.impacts_checked > 0
    ts = [i.t for f in scenario for i in (f.expect_impact or ())]
    assert any(t is None for t in ts) and any(t is not None and 0 < t < 1 for t in ts)


def test_bullet_wall_tunnels_without_time_of_impact():
    # the straight shot: at its start and end poses the bullet is nowhere near the wall,
    # so only the time of impact (t = (100 - 0.01 - 0.01) / 200 = 0.4999) sees the hit
    first = next(iter(read_scenario(SCENARIOS / "bullet_wall.jsonl")))
    (impact,) = first.expect_impact
    assert impact.t == pytest.approx(0.4999, abs=1e-12)
    assert first.expect == frozenset()


def test_a_version_2_shape_makes_a_version_2_file(tmp_path):
    path = tmp_path / "capsule.jsonl"
    capsule = {"id": "c", "shape": {"type": "capsule", "points": [[0, 0], [1, 0]], "radius": 0.5},
               "position": [0, 0]}
    with ScenarioWriter(path, dim=2) as w:
        w.write_frame(add=[capsule])
    assert header_of(path)["collideworld_scenario"] == 2
    (frame,) = frames(path)
    assert frame.add[0].shape.kind == "capsule"
