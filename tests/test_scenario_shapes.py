"""Scenario format version 2 shapes: ``capsule``, ``segment``, ``convex_hull``.

Reading (every key valid and invalid, the error at its file and line, what
was given and what was expected), version 1 files refusing them, writing
(:class:`ScenarioWriter` and :class:`Recorder`) and reading back the same
shapes, and replays whose expectations are hand calculations written next
to them (tangent distances on axis-aligned geometry), never collideworld's
output.
"""

from __future__ import annotations

import itertools
import json

import pytest

from collideworld import Box, Capsule, ConvexHull, Segment, Sphere, World
from collideworld.errors import InvalidArgumentError, ScenarioError
from collideworld.scenario import BodySpec, Recorder, ScenarioWriter, SetSpec, read_scenario, replay
from collideworld.scenario.writer import shape_dict
from collideworld.shapes import MAX_HULL_POINTS

V1_2D = {"collideworld_scenario": 1, "dim": 2}
V2_2D = {"collideworld_scenario": 2, "dim": 2}
V2_3D = {"collideworld_scenario": 2, "dim": 3}

CUBE = [list(p) for p in itertools.product((0.0, 1.0), repeat=3)]


def write(tmp_path, *rows, name="scene.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
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


def add(shape, position, bid="a", **extra):
    return {"add": [{"id": bid, "shape": shape, "position": position, **extra}]}


# --------------------------------------------------------------------------
# reading valid shapes
# --------------------------------------------------------------------------


@pytest.mark.parametrize("header, shape, want", [
    (V2_2D, {"type": "capsule", "points": [[-1, 0], [1, 0]], "radius": 0.5}, Capsule((-1, 0), (1, 0), 0.5)),
    (V2_3D, {"type": "capsule", "points": [[0, 0, -1], [0, 0, 1]], "radius": 2}, Capsule((0, 0, -1), (0, 0, 1), 2)),
    (V2_2D, {"type": "capsule", "points": [[1, 1], [1, 1]], "radius": 0.5}, Capsule((1, 1), (1, 1), 0.5)),
    (V2_2D, {"type": "segment", "points": [[0, 0], [3, 4]]}, Segment((0, 0), (3, 4))),
    (V2_3D, {"type": "segment", "points": [[0, 0, 0], [0, 0, 2]], "_note": "a comment"},
     Segment((0, 0, 0), (0, 0, 2))),
    (V2_3D, {"type": "convex_hull", "points": CUBE}, ConvexHull(CUBE)),
])
def test_new_shape_is_read(tmp_path, header, shape, want):
    position = [0.0] * header["dim"]
    (frame,) = frames(write(tmp_path, header, add(shape, position)))
    got = frame.add[0].shape
    assert got == want
    assert type(got) is type(want)


def test_hull_keeps_its_points_and_finds_its_vertices(tmp_path):
    # the cube's corners and its centre: 9 points, 8 hull vertices, 12 triangles
    (frame,) = frames(write(tmp_path, V2_3D, add({"type": "convex_hull", "points": [*CUBE, [0.5, 0.5, 0.5]]},
                                                 [0, 0, 0])))
    hull = frame.add[0].shape
    assert len(hull.points) == 9 and len(hull.vertices) == 8 and len(hull.faces) == 12


def test_new_shape_in_set_is_read(tmp_path):
    rows = [V2_2D, add({"type": "circle", "radius": 1}, [0, 0]),
            {"set": [{"id": "a", "shape": {"type": "segment", "points": [[0, 0], [1, 0]]}}]}]
    _, second = frames(write(tmp_path, *rows))
    assert second.set[0].shape == Segment((0, 0), (1, 0))


# --------------------------------------------------------------------------
# invalid shapes: file, line, what was given and what was expected
# --------------------------------------------------------------------------


@pytest.mark.parametrize("header, shape, contains", [
    (V2_2D, {"type": "capsule", "points": [[0, 0], [1, 0]], "radius": -0.5},
     "capsule radius must be > 0 and at most 1e+150, got -0.5"),
    (V2_2D, {"type": "capsule", "points": [[0, 0], [1, 0]], "radius": 0}, "capsule radius must be > 0"),
    (V2_2D, {"type": "capsule", "points": [[0, 0], [1, 0]], "radius": "1"},
     'capsule radius must be a number, got "1"'),
    (V2_2D, {"type": "capsule", "points": [[0, 0], [1, 0]], "radius": True}, "capsule radius must be a number"),
    (V2_2D, {"type": "capsule", "points": [[0, 0], [1, 0]]}, "capsule: missing key(s) ['radius']"),
    (V2_2D, {"type": "capsule", "points": [[0, 0], [1, 0]], "radius": 1, "height": 2},
     "capsule: unknown key(s) ['height']; expected ['points', 'radius']"),
    (V2_2D, {"type": "capsule", "points": [[0, 0]], "radius": 1},
     "capsule points must be a list of two points [p0, p1], got 1 point(s)"),
    (V2_2D, {"type": "capsule", "points": {"p0": [0, 0]}, "radius": 1},
     "capsule points must be a list of two points [p0, p1], got {"),
    (V2_2D, {"type": "capsule", "points": [[0, 0], [1, 0, 0]], "radius": 1},
     "capsule points[1] must have 2 numbers in a 2D world, got 3"),
    (V2_3D, {"type": "capsule", "points": [[0, 0], [1, 0]], "radius": 1},
     "capsule points[0] must have 3 numbers in a 3D world, got 2"),
    (V2_2D, {"type": "capsule", "points": [[0, 0], [1e200, 0]], "radius": 1},
     "capsule points[1][0] is 1e+200: coordinates must be at most 1e+150"),
    (V2_2D, {"type": "capsule", "points": [[0, 0], [1, "x"]], "radius": 1},
     'capsule points[1][1] must be a number, got "x"'),
    (V2_2D, {"type": "segment", "points": [[1, 2], [1, 2]]}, "segment points must differ"),
    (V2_2D, {"type": "segment", "points": [[0, 0], [1, 0]], "radius": 0},
     "segment: unknown key(s) ['radius']; expected ['points']"),
    (V2_2D, {"type": "segment"}, "segment: missing key(s) ['points']"),
    (V2_3D, {"type": "segment", "points": [[0, 0, 0], [0, 0, None]]}, "segment points[1][2] must be a number"),
    (V2_2D, {"type": "convex_hull", "points": CUBE}, "shape type 'convex_hull' is 3D, but the world is 2D"),
    (V2_3D, {"type": "convex_hull", "points": CUBE[:3]},
     "convex_hull needs at least 4 points not all on one plane, got 3"),
    (V2_3D, {"type": "convex_hull", "points": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [2, 3, 0]]},
     "all lie on one plane"),
    (V2_3D, {"type": "convex_hull", "points": [[0, 0, 0], [1, 1, 1], [2, 2, 2], [3, 3, 3]]}, "all lie on one plane"),
    (V2_3D, {"type": "convex_hull", "points": [*CUBE[:7], [1, 1]]},
     "convex_hull points[7] must have 3 numbers in a 3D world, got 2"),
    (V2_3D, {"type": "convex_hull", "points": "cube"}, 'convex_hull points must be a list of [x, y, z] points'),
    (V2_3D, {"type": "convex_hull", "points": CUBE, "faces": []}, "convex_hull: unknown key(s) ['faces']"),
])
def test_invalid_new_shape_names_file_line_and_value(tmp_path, header, shape, contains):
    position = [0.0] * header["dim"]
    err = rejected(tmp_path, [header, {}, add(shape, position)], 3, contains)
    assert "add: body 'a': invalid shape" in str(err) or "is 3D" in str(err)


def test_hull_with_too_many_points_is_refused_before_it_is_built(tmp_path, monkeypatch):
    import collideworld.scenario.schema as schema

    built = []
    monkeypatch.setattr(schema, "ConvexHull", lambda pts: built.append(pts))
    points = [[0.0, 0.0, 0.0]] * (MAX_HULL_POINTS + 1)
    rejected(tmp_path, [V2_3D, add({"type": "convex_hull", "points": points}, [0, 0, 0])], 2,
             f"convex_hull has {MAX_HULL_POINTS + 1} points, more than the limit of {MAX_HULL_POINTS}")
    assert built == []


@pytest.mark.parametrize("shape", [
    {"type": "capsule", "points": [[0, 0], [1, 0]], "radius": 0.5},
    {"type": "segment", "points": [[0, 0], [1, 0]]},
])
def test_version_1_file_refuses_new_shapes(tmp_path, shape):
    rejected(tmp_path, [V1_2D, add(shape, [0, 0])], 2, f"shape type {shape['type']!r} needs format version 2 "
                                                       "(the header says 1)")


def test_version_1_file_refuses_a_hull(tmp_path):
    header = {"collideworld_scenario": 1, "dim": 3}
    rejected(tmp_path, [header, add({"type": "convex_hull", "points": CUBE}, [0, 0, 0])], 2,
             "shape type 'convex_hull' needs format version 2")


def test_version_1_file_refuses_a_new_shape_in_set_too(tmp_path):
    # (set itself is version 2; the error is at that line either way)
    rejected(tmp_path, [V1_2D, add({"type": "circle", "radius": 1}, [0, 0]),
                        {"set": [{"id": "a", "shape": {"type": "segment", "points": [[0, 0], [1, 0]]}}]}],
             3, "needs format version 2")


# --------------------------------------------------------------------------
# writing and reading back
# --------------------------------------------------------------------------

SHAPES_2D = [Capsule((-1.0, 0.0), (1.0, 0.25), 0.5), Capsule((2.0, 2.0), (2.0, 2.0), 0.125),
             Segment((0.0, 0.0), (0.1, 1e-9))]
SHAPES_3D = [Capsule((0.0, 0.0, -1.0), (0.0, 0.0, 1.0), 0.3), Segment((0.0, 0.0, 0.0), (1.0, 2.0, 3.0)),
             ConvexHull([*CUBE, [0.5, 0.5, 0.5]]),
             ConvexHull([[0.1, 0.2, 0.3], [1.0 / 3.0, 0.0, 0.0], [0.0, 2.0 / 3.0, 0.0], [0.0, 0.0, 1e-3],
                         [0.2, 0.2, 0.2]])]


@pytest.mark.parametrize("shape", SHAPES_2D + SHAPES_3D, ids=lambda s: s.kind)
def test_shape_dict_reads_back_equal(tmp_path, shape):
    """Written by the writer, read by the reader: the same shape, bit for bit."""
    dim = shape.dim
    path = tmp_path / "one.jsonl"
    with ScenarioWriter(path, dim=dim) as w:
        w.write_frame(add=[BodySpec("s", shape, (0.0,) * dim)])
    (frame,) = frames(path)
    assert frame.add[0].shape == shape
    assert shape_dict(frame.add[0].shape) == shape_dict(shape)


@pytest.mark.parametrize("name", ["shapes.jsonl", "shapes.jsonl.gz"])
def test_writer_round_trip_of_new_shapes_is_version_2(tmp_path, name):
    path = tmp_path / name
    with ScenarioWriter(path, dim=3) as w:
        w.write_frame(add=[BodySpec("ball", Sphere(1.0), (0.0, 0.0, 0.0))], expect=[])
        assert w.version == 1  # nothing of version 2 yet
        w.write_frame(add=[BodySpec(i, s, (10.0 * i, 0.0, 0.0)) for i, s in enumerate(SHAPES_3D)],
                      set=[SetSpec("ball", shape=Capsule((0, 0, 0), (0, 0, 1), 1.0))])
        assert w.version == 2
    first, second = frames(path)
    assert [b.shape for b in second.add] == SHAPES_3D
    assert second.set[0].shape == Capsule((0, 0, 0), (0, 0, 1), 1.0)


def test_writer_version_1_refuses_new_shapes_and_writes_nothing(tmp_path):
    path = tmp_path / "v1.jsonl"
    with ScenarioWriter(path, dim=2, version=1) as w:
        with pytest.raises(InvalidArgumentError, match="capsule, segment, convex_hull or compound shape"):
            w.write_frame(add=[BodySpec("c", SHAPES_2D[0], (0.0, 0.0))])
        assert w.frames_written == 0
    assert path.read_text().count("\n") == 1


@pytest.mark.parametrize("backend", ["compiled", "numpy"])
def test_recorder_round_trip_with_new_shapes(tmp_path, backend):
    """A recorded session with capsules, segments and hulls replays OK, and its shapes read back equal."""
    path = tmp_path / "rec.jsonl"
    hull = ConvexHull([*CUBE, [0.5, 0.5, 0.5]])
    with Recorder(World(dim=3, backend=backend), path, record_contacts=True) as rec:
        rec.add(hull, position=(0, 0, 0), id="hull")
        # the capsule's side is 0.25 deep in the cube's face x = 1
        rec.add(Capsule((0, 0, 0), (0, 0, 1), 0.5), position=(1.25, 0.5, 0.0), id="cap")
        rec.add(Segment((0, 0, 0), (0, 1, 0)), position=(5.0, 0.0, 0.0), id="seg")
        rec.add(Box((0.5, 0.5, 0.5)), position=(5.0, 0.5, 0.25), id="box")
        first = rec.step()
        rec.set_shape("cap", Capsule((0, 0, 0), (0, 0, 1), 0.2))  # now 0.05 clear of the cube
        rec.move("seg", position=(5.0, 0.0, 2.0))  # now 1.25 above the box
        second = rec.step()
    assert {frozenset(p) for p in zip(first.a, first.b, strict=True)} == {frozenset({"hull", "cap"}),
                                                                        frozenset({"seg", "box"})}
    assert len(second) == 0
    report = replay(path, lambda dim: World(dim=dim, backend=backend))
    assert report.ok and report.frames == 2 and report.contacts_checked == 2, report.format_first_mismatch()
    read = frames(path)
    assert {b.id: b.shape for b in read[0].add}["hull"] == hull
    assert read[1].set[0].shape == Capsule((0, 0, 0), (0, 0, 1), 0.2)


# --------------------------------------------------------------------------
# replays against hand calculations
# --------------------------------------------------------------------------


def test_replay_2d_capsule_and_segment_cases(tmp_path):
    """Each pair decided by hand from the geometry:

    * capsule "cap" (-1,0)-(1,0), r 0.5, at the origin; a unit-radius circle
      centred at (0, 1.5) is exactly 1.5 = 0.5 + 1 from the core segment:
      touching, depth 0, normal +y;
    * a segment from (-3, 0.75) to (3, 0.75) lies 0.75 from the core: 0.25
      clear of the capsule's side (parallel segments);
    * a segment (1.25, -1)-(1.25, 1) passes 0.25 from the end point (1, 0):
      0.25 inside the end cap, its MTD along +x.

    The rail and the post (category 2, mask 1) cross each other and the
    disc, but the filters leave those pairs out.
    """
    cap = {"id": "cap", "shape": {"type": "capsule", "points": [[-1, 0], [1, 0]], "radius": 0.5},
           "position": [0, 0]}
    disc = {"id": "disc", "shape": {"type": "circle", "radius": 1}, "position": [0, 1.5], "mask": 1}
    rail = {"id": "rail", "shape": {"type": "segment", "points": [[-3, 0], [3, 0]]}, "position": [0, 0.75],
            "category": 2, "mask": 1}
    post = {"id": "post", "shape": {"type": "segment", "points": [[0, -1], [0, 1]]}, "position": [1.25, 0],
            "category": 2, "mask": 1}
    rows = [{**V2_2D, "tolerance": 1e-9},
            {"add": [cap, disc, rail, post], "expect": [["cap", "disc"], ["cap", "post"]],
             "expect_contacts": [{"pair": ["cap", "disc"], "normal": [0, 1], "depth": 0},
                                 {"pair": ["cap", "post"], "normal": [1, 0], "depth": 0.25}]},
            # the rail drops 0.25: it now touches the capsule's side exactly
            {"move": [{"id": "rail", "position": [0, 0.5]}], "expect": [["cap", "disc"], ["cap", "post"],
                                                                        ["cap", "rail"]]}]
    for backend in ("compiled", "numpy"):
        report = replay(write(tmp_path, *rows), lambda dim, b=backend: World(dim=dim, backend=b))
        assert report.ok, report.format_first_mismatch()
        assert report.contacts_checked == 2


def test_replay_3d_hull_cases(tmp_path):
    """A unit cube as a hull at the origin; by hand:

    * a sphere of radius 0.5 centred at (1.5, 0.5, 0.5) touches the face x = 1;
    * a vertical capsule of radius 0.25 whose axis is at (1.5, 1.5) is
      sqrt(0.5) - 0.25 ~ 0.457 from the edge x = y = 1: apart;
    * a segment from (0.5, 0.5, 0.75) up to (0.5, 0.5, 2.75) starts inside,
      0.25 below the top face: depth 0.25 along +z.
    """
    rows = [{**V2_3D, "tolerance": 1e-9},
            {"add": [{"id": "hull", "shape": {"type": "convex_hull", "points": CUBE}, "position": [0, 0, 0]},
                     {"id": "ball", "shape": {"type": "sphere", "radius": 0.5}, "position": [1.5, 0.5, 0.5],
                      "category": 2, "mask": 1},
                     {"id": "cap", "shape": {"type": "capsule", "points": [[0, 0, 0], [0, 0, 1]], "radius": 0.25},
                      "position": [1.5, 1.5, 0], "category": 2, "mask": 1},
                     {"id": "seg", "shape": {"type": "segment", "points": [[0, 0, 0], [0, 0, 2]]},
                      "position": [0.5, 0.5, 0.75], "category": 2, "mask": 1}],
             "expect": [["hull", "ball"], ["hull", "seg"]],
             "expect_contacts": [{"pair": ["hull", "ball"], "normal": [1, 0, 0], "depth": 0},
                                 {"pair": ["hull", "seg"], "normal": [0, 0, 1], "depth": 0.25}]}]
    for backend in ("compiled", "numpy"):
        report = replay(write(tmp_path, *rows), lambda dim, b=backend: World(dim=dim, backend=b))
        assert report.ok, report.format_first_mismatch()
        assert report.contacts_checked == 2


def test_wrong_expectation_on_a_capsule_is_a_mismatch(tmp_path):
    # the circle is 0.25 clear of the capsule's side (1.75 from the core, radii 0.5 + 1)
    rows = [V2_2D, {"add": [{"id": "cap", "shape": {"type": "capsule", "points": [[-1, 0], [1, 0]], "radius": 0.5},
                             "position": [0, 0]},
                            {"id": "disc", "shape": {"type": "circle", "radius": 1}, "position": [0, 1.75]}],
                    "expect": [["cap", "disc"]]}]
    report = replay(write(tmp_path, *rows))
    assert not report.ok and report.first_mismatch.number == 1


def test_replay_accepts_a_tied_capsule_direction(tmp_path):
    """A segment crossing a capsule's core at its middle, perpendicular: the
    segment (0, -1)-(0, 1) against the capsule (-1, 0)-(1, 0) of radius 0.5
    can leave along +x or -x by 1.5 (core half length plus radius), or along
    +y or -y by 1 + 0.5 = 1.5 too: every one of the four is a minimum, so
    the file's -x must be accepted whatever direction the world picks."""
    rows = [{**V2_2D, "tolerance": 1e-9},
            {"add": [{"id": "cap", "shape": {"type": "capsule", "points": [[-1, 0], [1, 0]], "radius": 0.5},
                      "position": [0, 0]},
                     {"id": "seg", "shape": {"type": "segment", "points": [[0, -1], [0, 1]]}, "position": [0, 0]}],
             "expect": [["cap", "seg"]],
             "expect_contacts": [{"pair": ["cap", "seg"], "normal": [-1, 0], "depth": 1.5}]}]
    report = replay(write(tmp_path, *rows))
    assert report.ok, report.format_first_mismatch()


@pytest.mark.parametrize("shape_text, contains", [
    ('{"type": "capsule", "points": [[NaN, 0], [1, 0]], "radius": 1}', "NaN"),
    ('{"type": "capsule", "points": [[0, 0], [1, 0]], "radius": Infinity}', "Infinity"),
    ('{"type": "capsule", "points": [[0, 0], [1, 0]], "radius": 1e999}', "capsule radius is out of range"),
    ('{"type": "segment", "points": [[0, 0], [1e999, 0]]}', "segment points[1][0] is out of range"),
])
def test_non_finite_numbers_in_new_shapes_name_their_line(tmp_path, shape_text, contains):
    path = tmp_path / "nan.jsonl"
    path.write_text(json.dumps(V2_2D) + "\n{}\n"
                    + '{"add": [{"id": "a", "shape": ' + shape_text + ', "position": [0, 0]}]}\n', encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        frames(path)
    assert info.value.line == 3 and str(info.value).startswith(f"{path}:3: "), str(info.value)
    assert contains in str(info.value), str(info.value)


def test_hull_with_too_many_vertices_is_refused(tmp_path):
    """300 points on a sphere (a Fibonacci lattice) are all hull vertices: over MAX_HULL_VERTICES (256)."""
    import math

    from collideworld.shapes import MAX_HULL_VERTICES

    n = 300
    golden = math.pi * (3 - math.sqrt(5))
    points = []
    for k in range(n):
        z = 1 - 2 * (k + 0.5) / n
        r = math.sqrt(1 - z * z)
        points.append([r * math.cos(golden * k), r * math.sin(golden * k), z])
    rejected(tmp_path, [V2_3D, add({"type": "convex_hull", "points": points}, [0, 0, 0])], 2,
             f"at most {MAX_HULL_VERTICES} hull vertices, got {n}")


def test_replay_accepts_a_tied_hull_direction(tmp_path):
    """A ball of radius 0.25 at the centre of a unit cube given as a hull leaves
    it by 0.5 + 0.25 = 0.75 along any of the six face normals: the file's -y
    is accepted whichever the world picks (a wrong depth is not)."""
    def rows(depth):
        return [{**V2_3D, "tolerance": 1e-9},
                {"add": [{"id": "hull", "shape": {"type": "convex_hull", "points": CUBE}, "position": [0, 0, 0]},
                         {"id": "ball", "shape": {"type": "sphere", "radius": 0.25}, "position": [0.5, 0.5, 0.5]}],
                 "expect": [["hull", "ball"]],
                 "expect_contacts": [{"pair": ["hull", "ball"], "normal": [0, -1, 0], "depth": depth}]}]
    for backend in ("compiled", "numpy"):
        factory = lambda dim, b=backend: World(dim=dim, backend=b)  # noqa: E731
        report = replay(write(tmp_path, *rows(0.75)), factory)
        assert report.ok, report.format_first_mismatch()
        assert not replay(write(tmp_path, *rows(0.5), name="wrong.jsonl"), factory).ok


# --------------------------------------------------------------------------
# the generators' own oracles (scenarios/generators/segments.py), on hand calculations
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def oracle():
    import importlib
    import sys
    from pathlib import Path

    folder = str(Path(__file__).resolve().parent.parent / "scenarios")
    sys.path.insert(0, folder)
    try:
        return importlib.import_module("generators.segments")
    finally:
        sys.path.remove(folder)


@pytest.mark.parametrize("a, b, c, d, want", [
    ((0, 0), (2, 0), (1, 1), (1, 3), 1),        # a T: the gap from (1, 1) down to the first segment
    ((0, 0), (2, 2), (0, 2), (2, 0), 0),        # an X
    ((0, 0), (2, 0), (2, 0), (3, 0), 0),        # collinear, end to end
    ((0, 0), (2, 0), (3, 0), (4, 0), 1),        # collinear, 1 apart
    ((0, 0), (2, 0), (0, 0.5), (3, 0.5), 0.25),  # parallel, 0.5 apart
    ((0, 0), (0, 0), (3, 4), (3, 4), 25),       # two points (3-4-5)
    ((0, 0), (4, 0), (5, 3), (8, 7), 10),       # end (4, 0) to end (5, 3): 1 + 9
])
def test_oracle_exact_segment_distance(oracle, a, b, c, d, want):
    from fractions import Fraction

    assert oracle.segment_segment_dist2_exact(a, b, c, d) == Fraction(want)


def test_oracle_polytope_of_a_cube(oracle):
    import numpy as np

    cube = oracle.Polytope([*CUBE, [0.5, 0.5, 0.5]])
    assert len(cube.offsets) == 6 and len(cube.triangles) == 12 and len(cube.vertices) == 8
    inside, slack = cube.contains(np.array([0.5, 0.5, 0.5]))
    assert inside and slack == pytest.approx(0.5)
    # a second unit cube 0.5 away along x, then overlapping it by 0.25
    apart = oracle.Polytope([[x + 1.5, y, z] for x, y, z in CUBE])
    over = oracle.Polytope([[x + 0.75, y, z] for x, y, z in CUBE])
    assert oracle.polytope_polytope_lp(cube, apart)[0] is False
    assert oracle.polytope_polytope_lp(cube, over)[0] is True


def test_oracle_capsule_and_sphere_against_a_cube(oracle):
    import numpy as np

    cube = oracle.Polytope(CUBE)
    # a vertical core at x = 1.5 is 0.5 from the face x = 1: radius 0.25 is clear, 0.75 overlaps
    p, q = np.array([1.5, 0.5, 0.0]), np.array([1.5, 0.5, 1.0])
    assert oracle.capsule_polytope(p, q, 0.25, cube) == (False, pytest.approx(0.25))
    assert oracle.capsule_polytope(p, q, 0.75, cube) == (True, pytest.approx(0.25))
    # a segment through the cube's middle meets it, 0.5 deep
    hit, margin = oracle.capsule_polytope(np.array([0.5, 0.5, -1.0]), np.array([0.5, 0.5, 2.0]), 0.0, cube)
    assert hit and margin == pytest.approx(0.5)
    # a sphere at the corner (2, 2, 2) is sqrt(3) from the corner (1, 1, 1)
    assert oracle.sphere_polytope(np.array([2.0, 2.0, 2.0]), 1.7, cube)[0] is False
    assert oracle.sphere_polytope(np.array([2.0, 2.0, 2.0]), 1.74, cube)[0] is True


def test_oracle_skew_segments(oracle):
    import numpy as np

    # the x axis and a segment along y at height 1 above x = 0.5: 1 apart at (0.5, 0, 0) and (0.5, 0, 1)
    c1, c2, dist = oracle.closest_points_segments(np.array([0.0, 0, 0]), np.array([1.0, 0, 0]),
                                                  np.array([0.5, -1, 1]), np.array([0.5, 1, 1]))
    assert dist == pytest.approx(1.0)
    assert c1 == pytest.approx([0.5, 0, 0]) and c2 == pytest.approx([0.5, 0, 1])
