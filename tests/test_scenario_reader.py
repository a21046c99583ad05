"""The scenario reader against hand-written files (docs/scenario-format.md).

Every expected value here comes from reading the contract, not from running
collideworld: valid files must parse to what they say, and each kind of
invalid input must be rejected with its line number and the reason.
"""

from __future__ import annotations

import gzip
import json
import math
import tracemalloc

import pytest

from collideworld.errors import ScenarioError
from collideworld.scenario import BodySpec, MoveSpec, read_scenario
from collideworld.scenario.reader import iter_frames
from collideworld.shapes import Box, Circle, HalfPlane, Plane, Polygon, Sphere

H2 = '{"collideworld_scenario": 1, "dim": 2}'
H3 = '{"collideworld_scenario": 1, "dim": 3}'
CIRCLE = '{"type": "circle", "radius": 1}'


def write(tmp_path, text, name="scene.jsonl"):
    path = tmp_path / name
    if name.endswith(".gz"):
        with gzip.open(path, "wb") as f:
            f.write(text.encode("utf-8"))
    else:
        path.write_bytes(text.encode("utf-8"))
    return str(path)


def lines(*rows):
    return "".join(r + "\n" for r in rows)


def read_all(path, **kw):
    scenario = read_scenario(path, **kw)
    return scenario.header, list(scenario)


def rejected(tmp_path, text, line, contains, name="scene.jsonl", **kw):
    """Assert the file is rejected at ``line`` with ``contains`` in the message."""
    path = write(tmp_path, text, name)
    with pytest.raises(ScenarioError) as info:
        read_all(path, **kw)
    err = info.value
    assert err.line == line, str(err)
    assert err.path == path
    assert str(err).startswith(f"{path}:{line}: "), str(err)
    assert contains in str(err), str(err)
    return err


# --------------------------------------------------------------------------
# valid files
# --------------------------------------------------------------------------


def test_valid_file_parses_to_what_it_says(tmp_path):
    text = lines(
        '{"collideworld_scenario": 1, "dim": 2, "name": "demo", "description": "d", "tolerance": 0.001, "_note": "hi"}',
        '{"_c": 1, "add": [{"id": "a", "shape": {"type": "circle", "radius": 0.5, "_r": "x"}, "position": [1.0, 2.0], "_b": 0},'
        ' {"id": 7, "shape": {"type": "box", "half_extents": [1, 2]}, "position": [0, 0], "angle": 0.25, "static": true, "category": 2, "mask": 5},'
        ' {"id": "ground", "shape": {"type": "halfplane", "normal": [0, 2], "offset": -2}}],'
        ' "expect": [["a", 7], [7, "a"]]}',
        '{"move": [{"id": "a", "angle": 0.5, "_m": null}, {"id": 7, "position": [3, 4]}], "expect": []}',
        "{}",
    )
    header, frames = read_all(write(tmp_path, text))
    assert (header.version, header.dim, header.name, header.description) == (1, 2, "demo", "d")
    assert header.tolerance == 0.001
    assert [f.number for f in frames] == [1, 2, 3]
    assert [f.line for f in frames] == [2, 3, 4]
    f1 = frames[0]
    assert f1.add[0] == BodySpec("a", Circle(0.5), (1.0, 2.0))
    assert f1.add[1] == BodySpec(7, Box((1.0, 2.0)), (0.0, 0.0), angle=0.25, static=True, category=2, mask=5)
    ground = f1.add[2]
    assert ground.position is None and ground.static is True
    assert ground.shape == HalfPlane((0.0, 1.0), -1.0)  # normalised, offset divided too
    # order inside a pair and repeated pairs do not matter
    assert f1.expect == frozenset({frozenset({"a", 7})})
    assert frames[1].move == (MoveSpec("a", angle=0.5), MoveSpec(7, position=(3.0, 4.0)))
    assert frames[1].expect == frozenset()
    assert frames[2].expect is None and frames[2].add == () and frames[2].move == ()


def test_defaults(tmp_path):
    text = lines(H2, '{"add": [{"id": "a", "shape": %s, "position": [0, 0]}]}' % CIRCLE)
    header, frames = read_all(write(tmp_path, text))
    assert header.tolerance == 1e-6 and header.name is None
    spec = frames[0].add[0]
    assert (spec.angle, spec.static, spec.category, spec.mask) == (None, False, 1, 4294967295)


def test_ids_are_reused_after_removal_and_int_differs_from_str(tmp_path):
    text = lines(
        H2,
        '{"add": [{"id": 1, "shape": %s, "position": [0, 0]}, {"id": "1", "shape": %s, "position": [5, 0]}]}' % (CIRCLE, CIRCLE),
        '{"remove": [1]}',
        '{"add": [{"id": 1, "shape": %s, "position": [1, 1]}]}' % CIRCLE,
        # remove then add the same id in one frame: remove applies first
        '{"remove": [1], "add": [{"id": 1, "shape": %s, "position": [2, 2]}], "move": [{"id": 1, "position": [3, 3]}]}' % CIRCLE,
    )
    _, frames = read_all(write(tmp_path, text))
    assert [b.id for b in frames[0].add] == [1, "1"]
    assert frames[2].add[0].position == (1.0, 1.0)
    assert frames[3].remove == (1,) and frames[3].move[0].position == (3.0, 3.0)


def test_3d_file(tmp_path):
    s = math.sqrt(0.5)
    text = lines(
        '{"collideworld_scenario": 1, "dim": 3}',
        '{"add": [{"id": "s", "shape": {"type": "sphere", "radius": 1}, "position": [0, 0, 1]},'
        ' {"id": "b", "shape": {"type": "box", "half_extents": [1, 1, 1]}, "position": [0, 0, 3], "quaternion": [%r, 0, 0, %r]},'
        ' {"id": "floor", "shape": {"type": "plane", "normal": [0, 0, 1], "offset": 0}}]}' % (s, s),
        '{"move": [{"id": "b", "quaternion": [1, 0, 0, 0]}], "expect": [["s", "floor"]]}',
    )
    header, frames = read_all(write(tmp_path, text))
    assert header.dim == 3
    s_, b, floor = frames[0].add
    assert s_.shape == Sphere(1.0) and b.shape == Box((1.0, 1.0, 1.0)) and floor.shape == Plane((0.0, 0.0, 1.0), 0.0)
    assert b.quaternion == (s, 0.0, 0.0, s)
    assert frames[1].move[0].quaternion == (1.0, 0.0, 0.0, 0.0)


def test_concave_polygon_is_accepted(tmp_path):
    text = lines(H2, '{"add": [{"id": "L", "shape": {"type": "polygon", "vertices": [[0,0],[2,0],[2,1],[1,1],[1,2],[0,2]]}, "position": [0, 0]}]}')
    _, frames = read_all(write(tmp_path, text))
    assert isinstance(frames[0].add[0].shape, Polygon)


def test_last_line_without_newline_is_accepted_when_complete(tmp_path):
    text = H2 + "\n" + '{"add": [{"id": "a", "shape": %s, "position": [0, 0]}]}' % CIRCLE
    _, frames = read_all(write(tmp_path, text))
    assert len(frames) == 1


def test_header_only_file_has_no_frames(tmp_path):
    header, frames = read_all(write(tmp_path, H2 + "\n"))
    assert header.dim == 2 and frames == []


def test_gzip_file_reads_like_the_plain_one(tmp_path):
    text = lines(H2, '{"add": [{"id": "a", "shape": %s, "position": [0, 0]}], "expect": []}' % CIRCLE, "{}")
    plain = read_all(write(tmp_path, text))
    zipped = read_all(write(tmp_path, text, "scene.jsonl.gz"))
    assert plain == zipped


def test_gzip_with_several_members(tmp_path):
    path = tmp_path / "multi.jsonl.gz"
    path.write_bytes(gzip.compress((H2 + "\n").encode()) + gzip.compress(b"{}\n{}\n"))
    _, frames = read_all(str(path))
    assert len(frames) == 2


def test_quaternion_within_1e6_of_unit_is_accepted(tmp_path):
    text = lines(H3, '{"add": [{"id": "b", "shape": {"type": "sphere", "radius": 1}, "position": [0,0,0], "quaternion": [1.0000005, 0, 0, 0]}]}')
    _, frames = read_all(write(tmp_path, text))
    assert frames[0].add[0].quaternion == (1.0000005, 0.0, 0.0, 0.0)


def test_iter_frames_and_reiteration(tmp_path):
    path = write(tmp_path, lines(H2, "{}", "{}"))
    assert [f.line for f in iter_frames(path)] == [2, 3]
    scenario = read_scenario(path)
    assert len(list(scenario)) == len(list(scenario)) == 2


def test_reader_streams_in_bounded_memory(tmp_path):
    # ~0.75 MB of moves: the reader must never hold more than about one line.
    path = tmp_path / "big.jsonl"
    move = json.dumps({"move": [{"id": i, "position": [i * 0.5, 1.25]} for i in range(10)]})
    with open(path, "w") as f:
        f.write(H2 + "\n")
        f.write(json.dumps({"add": [{"id": i, "shape": {"type": "circle", "radius": 1}, "position": [0, 0]}
                                    for i in range(10)]}) + "\n")
        for _ in range(2_500):
            f.write(move + "\n")
    assert path.stat().st_size > 700_000
    tracemalloc.start()
    try:
        count = sum(1 for _ in read_scenario(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 2_501
    assert peak < 250_000, peak  # about 100 kB in practice


# --------------------------------------------------------------------------
# the error message format
# --------------------------------------------------------------------------


def test_message_names_file_line_and_reason(tmp_path):
    text = lines(H2, '{"add": [{"id": "b1", "shape": %s, "position": [0, 0]}]}' % CIRCLE,
                 '{"move": [{"id": "b4", "position": [1, 1]}]}')
    path = write(tmp_path, text)
    with pytest.raises(ScenarioError) as info:
        read_all(path)
    assert str(info.value) == f"{path}:3: move: unknown id 'b4'"
    assert info.value.reason == "move: unknown id 'b4'"
    assert isinstance(info.value, ValueError)


def test_frames_before_an_error_are_yielded(tmp_path):
    path = write(tmp_path, lines(H2, "{}", "{}", '{"oops": 1}'))
    seen = []
    with pytest.raises(ScenarioError):
        for frame in read_scenario(path):
            seen.append(frame.line)
    assert seen == [2, 3]


def test_missing_file(tmp_path):
    with pytest.raises(ScenarioError, match="no such file"):
        read_scenario(tmp_path / "nope.jsonl")


# --------------------------------------------------------------------------
# invalid headers
# --------------------------------------------------------------------------


@pytest.mark.parametrize("header, contains", [
    ('{"collideworld_scenario": 4, "dim": 2}', "version 4"),
    ('{"collideworld_scenario": "1", "dim": 2}', "integer 1"),
    ('{"collideworld_scenario": 1.0, "dim": 2}', "integer 1"),
    ('{"collideworld_scenario": true, "dim": 2}', "integer 1"),
    ('{"dim": 2}', "collideworld_scenario"),
    ('{"collideworld_scenario": 1}', "missing key 'dim'"),
    ('{"collideworld_scenario": 1, "dim": 4}', "dim must be 2 or 3"),
    ('{"collideworld_scenario": 1, "dim": 2.0}', "dim must be 2 or 3"),
    ('{"collideworld_scenario": 1, "dim": true}', "dim must be 2 or 3"),
    ('{"collideworld_scenario": 1, "dim": 2, "tolerance": 0}', "tolerance must be > 0"),
    ('{"collideworld_scenario": 1, "dim": 2, "tolerance": -1e-6}', "tolerance must be > 0"),
    ('{"collideworld_scenario": 1, "dim": 2, "tolerance": "small"}', "tolerance must be a number"),
    ('{"collideworld_scenario": 1, "dim": 2, "name": 5}', "name must be a string"),
    ('{"collideworld_scenario": 1, "dim": 2, "author": "me"}', "unknown key 'author'"),
    ('[1, 2]', "JSON object"),
    ('{"collideworld_scenario": 1, "dim": 2', "invalid JSON"),
    ('{"collideworld_scenario": 1, "dim": 2, "tolerance": NaN}', "NaN"),
])
def test_invalid_header(tmp_path, header, contains):
    rejected(tmp_path, header + "\n{}\n", 1, contains)


def test_empty_file(tmp_path):
    rejected(tmp_path, "", 1, "empty")


def test_blank_first_line(tmp_path):
    rejected(tmp_path, "\n" + H2 + "\n", 1, "blank line")


# --------------------------------------------------------------------------
# invalid lines
# --------------------------------------------------------------------------


def test_blank_line_between_frames(tmp_path):
    rejected(tmp_path, lines(H2, "{}", "", "{}"), 3, "blank line")


def test_whitespace_only_line(tmp_path):
    rejected(tmp_path, lines(H2, "   "), 2, "blank line")


def test_trailing_blank_line(tmp_path):
    rejected(tmp_path, lines(H2, "{}") + "\n", 3, "blank line")


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_tokens(tmp_path, token):
    text = lines(H2, '{"add": [{"id": "a", "shape": %s, "position": [%s, 0]}]}' % (CIRCLE, token))
    rejected(tmp_path, text, 2, token)


def test_number_overflowing_to_infinity(tmp_path):
    text = lines(H2, "{}", '{"add": [{"id": "a", "shape": %s, "position": [1e999, 0]}]}' % CIRCLE)
    rejected(tmp_path, text, 3, "out of range")


def test_invalid_json_in_the_middle(tmp_path):
    rejected(tmp_path, lines(H2, "{}", '{"add": [}', "{}"), 3, "invalid JSON")


def test_frame_not_an_object(tmp_path):
    rejected(tmp_path, lines(H2, "[]"), 2, "JSON object")


def test_duplicate_key(tmp_path):
    rejected(tmp_path, lines(H2, '{"remove": [], "remove": []}'), 2, "duplicate key 'remove'")


def test_unknown_frame_key(tmp_path):
    rejected(tmp_path, lines(H2, "{}", '{"adds": []}'), 3, "unknown key 'adds'")


def test_invalid_utf8(tmp_path):
    path = tmp_path / "scene.jsonl"
    path.write_bytes((H2 + "\n").encode() + b'{"_c": "\xff\xfe"}\n{}\n')
    with pytest.raises(ScenarioError) as info:
        read_all(str(path))
    assert info.value.line == 2 and "UTF-8" in str(info.value)


def test_line_longer_than_limit(tmp_path):
    long = '{"_pad": "%s"}' % ("x" * 500)
    rejected(tmp_path, lines(H2, "{}", long), 3, "max_line_bytes", max_line_bytes=200)


@pytest.mark.parametrize("key, value", [("remove", "{}"), ("add", '"a"'), ("move", "3"), ("expect", "null")])
def test_operation_lists_must_be_lists(tmp_path, key, value):
    rejected(tmp_path, lines(H2, '{"%s": %s}' % (key, value)), 2, f"{key} must be a list")


# --------------------------------------------------------------------------
# truncated files
# --------------------------------------------------------------------------

TRUNCATED = lines(H2, '{"add": [{"id": "a", "shape": %s, "position": [0, 0]}]}' % CIRCLE, "{}") + '{"move": [{"id": "a", "posi'


def test_truncated_last_line_is_an_error(tmp_path):
    rejected(tmp_path, TRUNCATED, 4, "last line is truncated")


def test_truncated_last_line_can_be_ignored(tmp_path):
    _, frames = read_all(write(tmp_path, TRUNCATED), ignore_truncated_tail=True)
    assert [f.line for f in frames] == [2, 3]


def test_invalid_complete_lines_are_still_errors_with_ignore_truncated_tail(tmp_path):
    rejected(tmp_path, lines(H2, '{"add": [}', "{}"), 2, "invalid JSON", ignore_truncated_tail=True)


CUT_LINE = ('{"move": [{"id": "a\\u00e9\\ud83d\\ude00\\n", "position": [-1.5e-3, 20, 0.25E+2]}], '
            '"expect": [], "_c": [true, false, null, {}, "é€😀"]}').encode()


def test_every_cut_of_a_line_is_a_truncated_tail(tmp_path):
    """A writer killed anywhere in a line (bytes, so inside a character too)
    leaves a proper prefix of it: each one is reported as truncated, and ignorable."""
    path = tmp_path / "cut.jsonl"
    for cut in range(1, len(CUT_LINE)):
        path.write_bytes(lines(H2, "{}").encode() + CUT_LINE[:cut])
        with pytest.raises(ScenarioError, match="last line is truncated") as info:
            read_all(str(path))
        assert info.value.line == 3
        _, frames = read_all(str(path), ignore_truncated_tail=True)
        assert len(frames) == 1, CUT_LINE[:cut]


@pytest.mark.parametrize("tail, reason", [
    ('{"expect": []}}', "invalid JSON: Extra data (column 15)"),          # complete JSON, then junk
    ("hello world", "invalid JSON: Expecting value (column 1)"),
    ('{"expect": [}', "invalid JSON: Expecting value (column 13)"),
    ('{"expect": [], "_c": 1.5.', "invalid JSON: Expecting ',' delimiter (column 25)"),
])
@pytest.mark.parametrize("ignore", [False, True])
def test_invalid_last_line_without_newline_is_not_truncated(tmp_path, tail, reason, ignore):
    text = lines(H2, "{}") + tail
    err = rejected(tmp_path, text, 3, reason, ignore_truncated_tail=ignore)
    assert "truncated" not in str(err)


def test_truncated_inside_a_utf8_character(tmp_path):
    path = tmp_path / "scene.jsonl"
    path.write_bytes((H2 + "\n{}\n").encode() + '{"_c": "é'.encode()[:-1])
    with pytest.raises(ScenarioError, match="truncated") as info:
        read_all(str(path))
    assert info.value.line == 3
    _, frames = read_all(str(path), ignore_truncated_tail=True)
    assert len(frames) == 1


def _cut_gzip(tmp_path, text, keep):
    full = gzip.compress(text.encode())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(full[:keep] if keep > 0 else full[:len(full) + keep])
    return str(path)


def test_gzip_missing_its_trailer_is_reported_and_ignorable(tmp_path):
    text = lines(H2, "{}", "{}")
    path = _cut_gzip(tmp_path, text, -8)  # drop CRC and size: the stream never ends
    with pytest.raises(ScenarioError, match="gzip stream is truncated"):
        read_all(path)
    _, frames = read_all(path, ignore_truncated_tail=True)
    assert len(frames) == 2


def test_gzip_cut_mid_line(tmp_path):
    # A sync-flushed stream cut inside the last line, as a killed writer leaves it.
    import zlib

    comp = zlib.compressobj(wbits=31)
    data = comp.compress((H2 + "\n{}\n").encode()) + comp.flush(zlib.Z_SYNC_FLUSH)
    data += comp.compress(b'{"remove": [') + comp.flush(zlib.Z_SYNC_FLUSH)
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data)
    with pytest.raises(ScenarioError, match="last line is truncated") as info:
        read_all(str(path))
    assert info.value.line == 3
    _, frames = read_all(str(path), ignore_truncated_tail=True)
    assert len(frames) == 1


def test_not_gzip_data_in_a_gz_file(tmp_path):
    path = tmp_path / "bad.jsonl.gz"
    path.write_bytes((H2 + "\n").encode())
    with pytest.raises(ScenarioError, match="gzip") as info:
        read_all(str(path))
    assert info.value.line == 1


def test_decompressed_size_limit(tmp_path):
    text = lines(H2, *["{}"] * 100)
    path = write(tmp_path, text, "big.jsonl.gz")
    with pytest.raises(ScenarioError, match="max_decompressed_bytes"):
        read_all(path, max_decompressed_bytes=100)
    assert len(read_all(path)[1]) == 100


# --------------------------------------------------------------------------
# bodies
# --------------------------------------------------------------------------


def add_line(body):
    return '{"add": [%s]}' % body


@pytest.mark.parametrize("body, contains", [
    ('{"shape": %s, "position": [0, 0]}' % CIRCLE, "missing key 'id'"),
    ('{"id": true, "shape": %s, "position": [0, 0]}' % CIRCLE, "string or an integer"),
    ('{"id": 1.0, "shape": %s, "position": [0, 0]}' % CIRCLE, "string or an integer"),
    ('{"id": null, "shape": %s, "position": [0, 0]}' % CIRCLE, "string or an integer"),
    ('{"id": ["a"], "shape": %s, "position": [0, 0]}' % CIRCLE, "string or an integer"),
    ('{"id": "a", "position": [0, 0]}', "missing key 'shape'"),
    ('{"id": "a", "shape": %s}' % CIRCLE, "missing key 'position'"),
    ('{"id": "a", "shape": %s, "position": [0, 0], "velocity": [1, 0]}' % CIRCLE, "unknown key 'velocity'"),
    ('{"id": "a", "shape": %s, "position": [0, 0, 0]}' % CIRCLE, "position must have 2 numbers"),
    ('{"id": "a", "shape": %s, "position": [0]}' % CIRCLE, "position must have 2 numbers"),
    ('{"id": "a", "shape": %s, "position": ["0", 0]}' % CIRCLE, "position[0] must be a number"),
    ('{"id": "a", "shape": %s, "position": [true, 0]}' % CIRCLE, "position[0] must be a number"),
    ('{"id": "a", "shape": %s, "position": {"x": 0}}' % CIRCLE, "position must be a list"),
    ('{"id": "a", "shape": %s, "position": [0, 0], "angle": "0"}' % CIRCLE, "angle must be a number"),
    ('{"id": "a", "shape": %s, "position": [0, 0], "quaternion": [1, 0, 0, 0]}' % CIRCLE, "only allowed in 3D"),
    ('{"id": "a", "shape": %s, "position": [0, 0], "static": 1}' % CIRCLE, "static must be true or false"),
    ('{"id": "a", "shape": %s, "position": [0, 0], "category": -1}' % CIRCLE, "category must be in 0..4294967295"),
    ('{"id": "a", "shape": %s, "position": [0, 0], "category": 4294967296}' % CIRCLE, "category must be in 0..4294967295"),
    ('{"id": "a", "shape": %s, "position": [0, 0], "category": 1.5}' % CIRCLE, "unsigned 32-bit"),
    ('{"id": "a", "shape": %s, "position": [0, 0], "mask": true}' % CIRCLE, "unsigned 32-bit"),
    ('{"id": "a", "shape": %s, "position": [0, 0], "mask": "0xFF"}' % CIRCLE, "unsigned 32-bit"),
    # shapes
    ('{"id": "a", "shape": {"type": "circle", "radius": -1}, "position": [0, 0]}', "radius"),
    ('{"id": "a", "shape": {"type": "circle", "radius": 0}, "position": [0, 0]}', "radius"),
    ('{"id": "a", "shape": {"type": "circle"}, "position": [0, 0]}', "radius"),
    ('{"id": "a", "shape": {"type": "blob", "radius": 1}, "position": [0, 0]}', "blob"),
    ('{"id": "a", "shape": {"radius": 1}, "position": [0, 0]}', "shape type"),
    ('{"id": "a", "shape": "circle", "position": [0, 0]}', "shape must be an object"),
    ('{"id": "a", "shape": {"type": "sphere", "radius": 1}, "position": [0, 0]}', "3D"),
    ('{"id": "a", "shape": {"type": "box", "half_extents": [1, 1, 1]}, "position": [0, 0]}', "half_extents"),
    ('{"id": "a", "shape": {"type": "box", "half_extents": [1, -1]}, "position": [0, 0]}', "half_extents"),
    ('{"id": "a", "shape": {"type": "polygon", "vertices": [[0, 0], [1, 0]]}, "position": [0, 0]}', "fewer than 3"),
    ('{"id": "a", "shape": {"type": "polygon", "vertices": [[0, 0], [1, 0], [0, 0]]}, "position": [0, 0]}', "fewer than 3"),
    ('{"id": "a", "shape": {"type": "polygon", "vertices": [[0, 0], [1, 1], [1, 0], [0, 1]]}, "position": [0, 0]}', "intersect"),
    ('{"id": "g", "shape": {"type": "halfplane", "normal": [0, 0], "offset": 0}}', "non-zero"),
    # no pose for a halfplane
    ('{"id": "g", "shape": {"type": "halfplane", "normal": [0, 1], "offset": 0}, "position": [0, 0]}', "takes no pose"),
    ('{"id": "g", "shape": {"type": "halfplane", "normal": [0, 1], "offset": 0}, "angle": 0}', "takes no pose"),
])
def test_invalid_body_2d(tmp_path, body, contains):
    rejected(tmp_path, lines(H2, "{}", add_line(body)), 3, contains)


@pytest.mark.parametrize("body, contains", [
    ('{"id": "a", "shape": {"type": "sphere", "radius": 1}, "position": [0, 0, 0], "angle": 0.1}', "only allowed in 2D"),
    ('{"id": "a", "shape": {"type": "sphere", "radius": 1}, "position": [0, 0, 0], "quaternion": [1.1, 0, 0, 0]}', "unit quaternion"),
    ('{"id": "a", "shape": {"type": "sphere", "radius": 1}, "position": [0, 0, 0], "quaternion": [1, 0, 0.01, 0]}', "unit quaternion"),
    ('{"id": "a", "shape": {"type": "sphere", "radius": 1}, "position": [0, 0, 0], "quaternion": [1, 0, 0]}', "4 numbers"),
    ('{"id": "a", "shape": {"type": "circle", "radius": 1}, "position": [0, 0, 0]}', "2D"),
    ('{"id": "a", "shape": {"type": "box", "half_extents": [1, 1]}, "position": [0, 0, 0]}', "half_extents"),
    ('{"id": "p", "shape": {"type": "plane", "normal": [0, 0, 1], "offset": 0}, "quaternion": [1, 0, 0, 0]}', "takes no pose"),
])
def test_invalid_body_3d(tmp_path, body, contains):
    rejected(tmp_path, lines(H3, add_line(body)), 2, contains)


def test_duplicate_id_of_an_alive_body(tmp_path):
    body = '{"id": "a", "shape": %s, "position": [0, 0]}' % CIRCLE
    rejected(tmp_path, lines(H2, add_line(body), add_line(body)), 3, "add: duplicate id 'a'")


def test_duplicate_id_in_one_add_list(tmp_path):
    body = '{"id": 3, "shape": %s, "position": [0, 0]}' % CIRCLE
    rejected(tmp_path, lines(H2, '{"add": [%s, %s]}' % (body, body)), 2, "duplicate id 3")


def test_remove_unknown_id(tmp_path):
    rejected(tmp_path, lines(H2, "{}", '{"remove": ["zz"]}'), 3, "remove: unknown id 'zz'")


def test_remove_twice(tmp_path):
    body = '{"id": "a", "shape": %s, "position": [0, 0]}' % CIRCLE
    rejected(tmp_path, lines(H2, add_line(body), '{"remove": ["a", "a"]}'), 3, "remove: unknown id 'a'")


def test_int_and_str_ids_are_different(tmp_path):
    body = '{"id": 1, "shape": %s, "position": [0, 0]}' % CIRCLE
    rejected(tmp_path, lines(H2, add_line(body), '{"remove": ["1"]}'), 3, "remove: unknown id '1'")


def test_move_of_a_body_removed_in_the_same_frame(tmp_path):
    body = '{"id": "a", "shape": %s, "position": [0, 0]}' % CIRCLE
    text = lines(H2, add_line(body), '{"remove": ["a"], "move": [{"id": "a", "position": [1, 1]}]}')
    rejected(tmp_path, text, 3, "move: unknown id 'a'")


def test_move_of_a_body_added_in_the_same_frame_is_valid(tmp_path):
    body = '{"id": "a", "shape": %s, "position": [0, 0]}' % CIRCLE
    text = lines(H2, '{"add": [%s], "move": [{"id": "a", "position": [1, 1]}]}' % body)
    assert len(read_all(write(tmp_path, text))[1]) == 1


@pytest.mark.parametrize("move, contains", [
    ('{"position": [1, 1]}', "missing key 'id'"),
    ('{"id": "a", "position": [1, 1, 1]}', "position must have 2 numbers"),
    ('{"id": "a", "quaternion": [1, 0, 0, 0]}', "only allowed in 3D"),
    ('{"id": "a", "angle": null}', "angle must be a number"),
    ('{"id": "a", "static": true}', "unknown key 'static'"),
    ('{"id": "g", "position": [0, 0]}', "cannot move"),
    ('{"id": "g"}', "cannot move"),
])
def test_invalid_move(tmp_path, move, contains):
    text = lines(H2, '{"add": [{"id": "a", "shape": %s, "position": [0, 0]}, '
                     '{"id": "g", "shape": {"type": "halfplane", "normal": [0, 1], "offset": 0}}]}' % CIRCLE,
                 '{"move": [%s]}' % move)
    rejected(tmp_path, text, 3, contains)


def test_move_quaternion_3d_must_be_unit(tmp_path):
    text = lines(H3, add_line('{"id": "a", "shape": {"type": "sphere", "radius": 1}, "position": [0, 0, 0]}'),
                 '{"move": [{"id": "a", "quaternion": [0, 0, 0, 0]}]}')
    rejected(tmp_path, text, 3, "unit quaternion")


def test_move_of_a_plane_3d(tmp_path):
    text = lines(H3, add_line('{"id": "p", "shape": {"type": "plane", "normal": [0, 0, 1], "offset": 0}}'),
                 '{"move": [{"id": "p", "quaternion": [1, 0, 0, 0]}]}')
    rejected(tmp_path, text, 3, "cannot move")


# --------------------------------------------------------------------------
# limits
# --------------------------------------------------------------------------


def test_polygon_vertex_limit(tmp_path):
    verts = [[math.cos(k), math.sin(k)] for k in (0, 1, 2, 3, 4, 5)]
    body = '{"id": "p", "shape": {"type": "polygon", "vertices": %s}, "position": [0, 0]}' % json.dumps(verts)
    rejected(tmp_path, lines(H2, add_line(body)), 2, "max_polygon_vertices", max_polygon_vertices=5)
    assert len(read_all(write(tmp_path, lines(H2, add_line(body))), max_polygon_vertices=6)[1]) == 1


def test_alive_body_limit(tmp_path):
    body = '{"id": %d, "shape": %s, "position": [0, 0]}'
    text = lines(H2, '{"add": [%s, %s]}' % (body % (1, CIRCLE), body % (2, CIRCLE)),
                 '{"add": [%s]}' % (body % (3, CIRCLE)))
    rejected(tmp_path, text, 3, "max_bodies", max_bodies=2)
    # removing first makes room: remove applies before add
    text = lines(H2, '{"add": [%s, %s]}' % (body % (1, CIRCLE), body % (2, CIRCLE)),
                 '{"remove": [1], "add": [%s]}' % (body % (3, CIRCLE)))
    assert len(read_all(write(tmp_path, text), max_bodies=2)[1]) == 2


def test_unknown_limit_name(tmp_path):
    with pytest.raises(TypeError):
        read_scenario(write(tmp_path, lines(H2)), max_lines=3)


# --------------------------------------------------------------------------
# expectations
# --------------------------------------------------------------------------

TWO = '{"add": [{"id": "a", "shape": %s, "position": [0, 0]}, {"id": "b", "shape": %s, "position": [1, 0]}, ' \
      '{"id": "L", "shape": {"type": "polygon", "vertices": [[0,0],[2,0],[2,1],[1,1],[1,2],[0,2]]}, "position": [0, 0]}]}' % (CIRCLE, CIRCLE)


@pytest.mark.parametrize("frame, contains", [
    ('{"expect": [["a"]]}', "list of two ids"),
    ('{"expect": [["a", "b", "c"]]}', "list of two ids"),
    ('{"expect": ["a", "b"]}', "list of two ids"),
    ('{"expect": [["a", "zz"]]}', "unknown id 'zz'"),
    ('{"expect": [["a", "a"]]}', "itself"),
    ('{"expect": [["a", 1.5]]}', "string or an integer"),
    ('{"expect_contacts": [{"pair": ["a", "b"], "normal": [1, 0]}]}', "missing key 'depth'"),
    ('{"expect_contacts": [{"pair": ["a", "b"], "normal": [1, 0], "depth": -0.5}]}', "depth must be >= 0"),
    ('{"expect_contacts": [{"pair": ["a", "b"], "normal": [1, 0, 0], "depth": 1}]}', "normal must have 2 numbers"),
    ('{"expect_contacts": [{"pair": ["a", "b"], "normal": [2, 0], "depth": 1}]}', "unit vector"),
    ('{"expect_contacts": [{"pair": ["a", "b"], "normal": [1, 0], "depth": 1, "point": [0, 0]}]}', "unknown key 'point'"),
    ('{"expect": [], "expect_contacts": [{"pair": ["a", "b"], "normal": [1, 0], "depth": 1}]}', "not in this frame's expect"),
    ('{"expect_contacts": [{"pair": ["a", "L"], "normal": [1, 0], "depth": 1}]}', "concave"),
    ('{"expect_contacts": [{"pair": ["a", "b"], "normal": [1, 0], "depth": 1}, {"pair": ["b", "a"], "normal": [-1, 0], "depth": 1}]}', "twice"),
])
def test_invalid_expectations(tmp_path, frame, contains):
    rejected(tmp_path, lines(H2, TWO, frame), 3, contains)


def test_expect_contacts_parse(tmp_path):
    text = lines(H2, TWO, '{"expect": [["a", "b"]], "expect_contacts": [{"pair": ["b", "a"], "normal": [-1, 0], "depth": 1, "_why": "r+r-d"}]}')
    _, frames = read_all(write(tmp_path, text))
    (ec,) = frames[1].expect_contacts
    assert ec.pair == ("b", "a") and ec.normal == (-1.0, 0.0) and ec.depth == 1.0


def test_expect_naming_a_removed_body(tmp_path):
    text = lines(H2, TWO, '{"remove": ["b"], "expect": [["a", "b"]]}')
    rejected(tmp_path, text, 3, "unknown id 'b'")
