"""Scenario files that cost more than their limits allow, strings that are not Unicode,
and shapes the writer must write as the reader reads them (issue 25, items 11 to 14).

* A gzip bomb: ``replay`` looks for contact points in the file before it
  builds its world; that look stops where the reader's own limits stop it.
* Lone surrogate escapes (``"\\ud800"``) anywhere in a line: a ``file:line``
  error from ``info`` and ``replay`` alike, never a traceback; the writer
  and the Recorder refuse them before anything is written or stepped.
* Every shape the reader reads, and every compound part kind, in 2D and
  3D: written, read back equal field by field, and replayed against
  expectations worked out by hand (a probe box 0.25 deep in each part).
* Compound parts count against the reader's limits: each part against
  ``max_bodies`` (it takes a slot of the world), and the part pairs that
  pairs of alive bodies could make against ``max_part_pairs``.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import math
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest

from collideworld import World
from collideworld.errors import InvalidArgumentError, InvalidShapeError, ScenarioError
from collideworld.scenario import BodySpec, Recorder, ScenarioWriter, SetSpec, read_scenario, replay
from collideworld.scenario.schema import SHAPE_PARSERS
from collideworld.shapes import (
    Box,
    Capsule,
    Chain,
    Circle,
    Compound,
    Cone,
    ConvexHull,
    Cylinder,
    HalfPlane,
    HeightField,
    Plane,
    Polygon,
    Segment,
    Sphere,
    TriangleMesh,
)

REPO = Path(__file__).resolve().parent.parent
V2_2D = '{"collideworld_scenario": 2, "dim": 2}\n'


def cli(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m collideworld ...`` in a child process, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "collideworld", *argv], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout, check=False)


def rejected(path: Path | str, line: int, contains: str, **limits: int) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        for _ in read_scenario(path, **limits):
            pass
    text = str(info.value)
    assert text.startswith(f"{path}:{line}: "), text
    assert contains in text, text
    return info.value


# --------------------------------------------------------------------------
# item 11: the pre-scan for contact points keeps to the reader's limits
# --------------------------------------------------------------------------


def gzip_bomb(path: Path, inflated: int, after: bytes = b"") -> None:
    """A version 2 file whose line 2 is one comment of ``inflated`` bytes, then ``after``:
    a few hundred kB of gzip."""
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b"a" * (1 << 20)
    with open(path, "wb") as f:
        f.write(comp.compress(V2_2D.encode() + b'{"_c": "'))
        for _ in range(inflated // len(chunk)):
            f.write(comp.compress(chunk))
        f.write(comp.compress(b'"}\n' + after))
        f.write(comp.flush())


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """200 MB inflated from 200 kB: line 2 is over max_line_bytes, then ``"points"``."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.jsonl.gz"
    gzip_bomb(path, 200 << 20, after=b'{"_c": {"points": 1}}\n')
    assert path.stat().st_size < 1 << 20
    return path


def test_points_prescan_stops_at_the_line_limit(bomb: Path) -> None:
    """The bytes ``"points"`` after a line over ``max_line_bytes`` are never reached:
    the reader stops at that line, and so does the look for contact points."""
    from collideworld.scenario.replay import mentions_points
    from collideworld.scenario.source import ReaderLimits

    path = bomb
    assert not mentions_points(str(path), ReaderLimits())
    # within the limits the same look finds them
    assert mentions_points(str(path), ReaderLimits(max_line_bytes=300 << 20))
    with pytest.raises(ScenarioError, match=r"bomb\.jsonl\.gz:2: .*max_line_bytes"):
        replay(path, lambda dim: World(dim=dim, backend="numpy"))


def test_points_prescan_keeps_to_max_frames_and_decompressed_size(tmp_path: Path) -> None:
    from collideworld.scenario.replay import mentions_points
    from collideworld.scenario.source import ReaderLimits

    path = tmp_path / "frames.jsonl.gz"
    path.write_bytes(gzip.compress(V2_2D.encode() + b"{}\n" * 50 + b'{"_c": {"points": 1}}\n'))
    assert not mentions_points(str(path), ReaderLimits(max_frames=50))
    assert mentions_points(str(path), ReaderLimits(max_frames=51))
    assert not mentions_points(str(path), ReaderLimits(max_decompressed_bytes=100))


# The peak resident size of this process alone: VmHWM (ru_maxrss of a child can keep the
# parent's peak from before its exec on Linux, so it is only the fallback).
BOMB_RUN = """
import resource, sys, time
from collideworld.cli import main
started = time.perf_counter()
code = main(sys.argv[1:])
seconds = time.perf_counter() - started
try:
    with open("/proc/self/status") as f:
        peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print("RESULT", code, seconds, peak)
"""


def measured(*argv: str) -> tuple[int, float, int, str]:
    """Exit code, seconds, peak resident kB and output of the command line in a child process."""
    proc = subprocess.run([sys.executable, "-c", BOMB_RUN, *argv], cwd=REPO, capture_output=True, text=True,
                          timeout=300, check=False)
    last = [line for line in proc.stdout.splitlines() if line.startswith("RESULT")]
    assert last, proc.stdout + proc.stderr
    _, code, seconds, rss = last[-1].split()
    return int(code), float(seconds), int(rss), proc.stdout + proc.stderr


def test_replay_rejects_a_gzip_bomb_at_its_line_with_bounded_memory(bomb: Path) -> None:
    path = bomb
    code, seconds, rss_kb, output = measured("replay", "--backend", "numpy", "--no-progress", str(path))
    assert code == 1 and f"{path}:2: line is longer than the limit" in output, output
    assert "Traceback" not in output
    assert rss_kb < 400_000, rss_kb  # the reader reads at most a line of 16 MiB, not the 200 MB
    assert seconds < 60, seconds


# --------------------------------------------------------------------------
# item 12: lone surrogate escapes
# --------------------------------------------------------------------------

CIRCLE = '{"type": "circle", "radius": 1}'
SURROGATE_LINES = {
    "name": ('{"collideworld_scenario": 1, "dim": 2, "name": "\\ud800"}', [], 1, "header: name"),
    "description": ('{"collideworld_scenario": 1, "dim": 2, "description": "x\\uDFFFy"}', [], 1,
                    "header: description"),
    "low_first": ('{"collideworld_scenario": 1, "dim": 2, "name": "\\udc00\\ud800"}', [], 1, "header: name"),
    "add_id": ('{"collideworld_scenario": 1, "dim": 2}',
               ['{"add": [{"id": "\\ud834", "shape": ' + CIRCLE + ', "position": [0, 0]}]}'], 2, "add[0].id"),
    "remove_id": ('{"collideworld_scenario": 1, "dim": 2}',
                  ['{"add": [{"id": "a", "shape": ' + CIRCLE + ', "position": [0, 0]}]}',
                   '{"remove": ["\\udbff"]}'], 3, "remove[0]"),
    "move_id": ('{"collideworld_scenario": 1, "dim": 2}', ['{"move": [{"id": "\\ud800", "angle": 1}]}'], 2,
                "move[0].id"),
    "expect_id": ('{"collideworld_scenario": 1, "dim": 2}', ['{"expect": [["\\ud800", "b"]]}'], 2,
                  "expect[0][0]"),
    "shape_type": ('{"collideworld_scenario": 1, "dim": 2}',
                   ['{"add": [{"id": "a", "shape": {"type": "\\ud800"}, "position": [0, 0]}]}'], 2,
                   "add[0].shape.type"),
    "comment": ('{"collideworld_scenario": 1, "dim": 2}', ['{}', '{"_note": ["ok", "\\ud800"]}'], 3,
                "_note[1]"),
    "key": ('{"collideworld_scenario": 1, "dim": 2}', ['{"_\\ud800": 1}'], 2, "a key"),
}


def surrogate_file(tmp_path: Path, case: str) -> tuple[Path, int, str]:
    header, frames, line, where = SURROGATE_LINES[case]
    path = tmp_path / f"{case}.jsonl"
    path.write_text("\n".join([header, *frames]) + "\n", encoding="ascii")
    return path, line, where


@pytest.mark.parametrize("case", sorted(SURROGATE_LINES))
def test_lone_surrogate_is_an_error_at_its_line(tmp_path: Path, case: str) -> None:
    path, line, where = surrogate_file(tmp_path, case)
    err = rejected(path, line, "lone surrogate")
    assert where in str(err)
    assert str(err).isascii()  # the message itself can be printed anywhere


@pytest.mark.parametrize("case", ["name", "description", "add_id", "comment"])
@pytest.mark.parametrize("command", ["info", "replay"])
def test_cli_reports_a_lone_surrogate_without_a_traceback(tmp_path: Path, case: str, command: str) -> None:
    path, line, _ = surrogate_file(tmp_path, case)
    extra = ["--backend", "numpy"] if command == "replay" else []
    proc = cli(command, *extra, "--no-progress", str(path))
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert f"{path}:{line}: " in output and "lone surrogate" in output, output
    assert "Traceback" not in output


def test_surrogate_pairs_and_other_escapes_still_read(tmp_path: Path) -> None:
    """A surrogate pair is one character outside the BMP; an escaped backslash before
    ``ud800`` is text, not an escape."""
    path = tmp_path / "ok.jsonl"
    path.write_text('{"collideworld_scenario": 1, "dim": 2, "name": "\\ud83d\\ude00 \\\\ud800 \\u00e9"}\n'
                    '{"add": [{"id": "\\uD834\\uDD1E", "shape": ' + CIRCLE + ', "position": [0, 0]}]}\n',
                    encoding="ascii")
    scenario = read_scenario(path)
    assert scenario.header.name == "\U0001f600 \\ud800 \u00e9"
    assert [b.id for f in scenario for b in f.add] == ["\U0001d11e"]
    proc = cli("info", "--no-progress", str(path))
    assert proc.returncode == 0 and "\\ud800" in proc.stdout, proc.stdout + proc.stderr


def test_writer_refuses_lone_surrogates_and_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError, match="lone surrogate"):
        ScenarioWriter(tmp_path / "a.jsonl", dim=2, name="\ud800")
    with pytest.raises(InvalidArgumentError, match="lone surrogate"):
        ScenarioWriter(tmp_path / "b.jsonl", dim=2, description="\udfff")
    path = tmp_path / "c.jsonl"
    with ScenarioWriter(path, dim=2) as w:
        with pytest.raises(InvalidArgumentError, match="lone surrogate"):
            w.write_frame(add=[BodySpec("\ud800", Circle(1.0), (0.0, 0.0))])
        with pytest.raises(InvalidArgumentError, match="lone surrogate"):
            w.write_frame(remove=["ok", "\udc00"])
        assert w.frames_written == 0
        w.write_frame(add=[BodySpec("\U0001f600", Circle(1.0), (0.0, 0.0))])
    assert [b.id for f in read_scenario(path) for b in f.add] == ["\U0001f600"]


def test_recorder_refuses_a_lone_surrogate_id_before_the_world_adds_it(tmp_path: Path) -> None:
    world = World(dim=2, backend="numpy")
    with Recorder(world, tmp_path / "rec.jsonl") as rec:
        with pytest.raises(InvalidArgumentError, match="lone surrogate"):
            rec.add(Circle(1.0), position=(0, 0), id="\ud800")
        with pytest.raises(InvalidArgumentError, match="lone surrogate"):
            rec.add_many([Circle(1.0)] * 2, [(0, 0), (3, 0)], ids=["x", "\ud800"])
        assert len(world) == 0
        rec.add(Circle(1.0), position=(0, 0), id="a")
        rec.step()
    assert replay(tmp_path / "rec.jsonl", lambda dim: World(dim=dim, backend="numpy")).ok


# --------------------------------------------------------------------------
# item 13: every shape the reader reads, the writer writes
# --------------------------------------------------------------------------

L_SHAPE = [(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)]
HULL = [(sx, sy, sz) for sx in (-1.0, 1.0) for sy in (-1.0, 1.0) for sz in (-0.5, 0.5)] + [(0.1, 0.2, 0.3)]

#: Each part kind with its top face at y = 0.5 (2D) or z = 0.5 (3D), the segments' at 0,
#: in the part's frame; ``lift`` is how far the top is above the part's origin.
PARTS_2D = {
    "circle": Circle(0.5),
    "box": Box((1.0, 0.5)),
    "polygon": Polygon([(-1.0, -0.5), (1.0, -0.5), (0.0, 0.5)]),
    "capsule": Capsule((-1.0, 0.0), (1.0, 0.0), 0.5),
    "segment": Segment((-1.0, 0.0), (1.0, 0.0)),
}
PARTS_3D = {
    "sphere": Sphere(0.5),
    "box": Box((1.0, 1.0, 0.5)),
    "capsule": Capsule((-1.0, 0.0, 0.0), (1.0, 0.0, 0.0), 0.5),
    "segment": Segment((-1.0, 0.0, 0.0), (1.0, 0.0, 0.0)),
    "convex_hull": ConvexHull(HULL),
}
OTHER_2D = {"polygon_concave": Polygon(L_SHAPE), "halfplane": HalfPlane((0.0, 2.0), 4.0),
            "chain": Chain([(-3.0, -4.0), (3.0, -4.0), (5.0, -3.0)])}
OTHER_3D = {"plane": Plane((0.0, 0.0, 3.0), -30.0),
            "triangle_mesh": TriangleMesh([(0.0, 0.0, -9.0), (1.0, 0.0, -9.0), (0.0, 1.0, -9.0)], [(0, 1, 2)]),
            "heightfield": HeightField([[-9.0, -9.0], [-9.0, -8.5]], (1.0, 1.0)),
            "cylinder": Cylinder(0.5, 1.0), "cone": Cone(0.5, 1.0)}
#: Shapes the reader reads that a compound cannot hold (Compound refuses them): a chain is a
#: compound of segments itself, a mesh or heightfield is a surface of many triangles, and a
#: cylinder or cone is curved (a compound's parts are vertex hulls to its distance and queries).
NOT_PARTS = {"chain", "triangle_mesh", "heightfield", "cylinder", "cone"}


def part_kinds(dim: int) -> set[str]:
    """The reader's shape types a compound part may be, in ``dim`` dimensions."""
    kinds = set(SHAPE_PARSERS) - {"compound", "halfplane", "plane"} - NOT_PARTS
    return kinds - ({"sphere", "convex_hull"} if dim == 2 else {"circle", "polygon"})


def test_the_cases_cover_every_shape_the_reader_reads() -> None:
    assert set(PARTS_2D) == part_kinds(2) and set(PARTS_3D) == part_kinds(3)
    kinds = {s.kind for s in [*PARTS_2D.values(), *PARTS_3D.values(), *OTHER_2D.values(), *OTHER_3D.values()]}
    assert kinds | {"compound"} == set(SHAPE_PARSERS)
    for name in NOT_PARTS:
        shape = {**OTHER_2D, **OTHER_3D}[name]
        with pytest.raises(InvalidShapeError, match="Compound part 0: a "):
            Compound([(shape, (0.0,) * shape.dim)])


def assert_same_shape(got: Any, want: Any) -> None:
    """Equal field by field: the same class and every compared field equal (a compound's
    parts each: shape, position and rotation)."""
    assert type(got) is type(want), (got, want)
    if isinstance(want, Compound):
        assert len(got.parts) == len(want.parts)
        for (gs, gp, gr), (ws, wp, wr) in zip(got.parts, want.parts, strict=True):
            assert_same_shape(gs, ws)
            assert gp == wp and gr == wr, ((gp, gr), (wp, wr))
        return
    if isinstance(want, Polygon):
        assert got.vertices == want.vertices
        return
    if isinstance(want, (TriangleMesh, HeightField)):  # array fields: equal as the shapes define it
        assert got == want
        return
    for f in dataclasses.fields(want):
        if f.compare:
            assert getattr(got, f.name) == getattr(want, f.name), (f.name, got, want)
    assert got == want


def compound_of(kind: str, dim: int) -> Compound:
    """The part under test at the body's origin, and a small ball 3 below it, turned."""
    part = (PARTS_2D if dim == 2 else PARTS_3D)[kind]
    if dim == 2:
        return Compound([(part, (0.0, 0.0)), (Circle(0.25), (0.0, -3.0), 0.7)])
    turn = (math.cos(0.35), math.sin(0.35), 0.0, 0.0)
    return Compound([(part, (0.0, 0.0, 0.0)), (Sphere(0.25), (0.0, 0.0, -3.0), turn)])


def probe_height(kind: str) -> float:
    """A probe box of half size 0.5 sits 0.25 deep into the part's top (0 for a segment, else 0.5)."""
    return (0.0 if kind == "segment" else 0.5) + 0.25


def hand_scene(dim: int) -> tuple[list[BodySpec], set[frozenset[str]]]:
    """One compound per part kind, 10 apart, each with a box probe 0.25 deep in the part's top:
    pairs and (from the geometry, by hand) normal +y / +z and depth 0.25, parts [0, -1]."""
    bodies, pairs = [], set()
    probe = Box((0.5,) * dim)
    for k, kind in enumerate(sorted(PARTS_2D if dim == 2 else PARTS_3D)):
        at = [10.0 * k] + [0.0] * (dim - 1)
        top = at[:-1] + [probe_height(kind)]
        bodies += [BodySpec(f"c_{kind}", compound_of(kind, dim), tuple(at)),
                   BodySpec(f"p_{kind}", probe, tuple(top))]
        pairs.add(frozenset((f"c_{kind}", f"p_{kind}")))
    return bodies, pairs


def hand_file(path: Path, dim: int) -> None:
    """The hand scene written as JSON by this test (not by collideworld's writer)."""
    bodies, _ = hand_scene(dim)
    rows: list[dict[str, Any]] = []
    contacts = []
    for spec in bodies:
        if spec.id.startswith("c_"):
            kind = spec.id[2:]
            part: dict[str, Any] = {"type": kind}
            shape = spec.shape.parts[0][0]
            if kind in ("circle", "sphere"):
                part["radius"] = shape.radius
            elif kind == "box":
                part["half_extents"] = list(shape.half_extents)
            elif kind == "polygon":
                part["vertices"] = [list(v) for v in shape.vertices]
            elif kind == "convex_hull":
                part["points"] = [list(p) for p in HULL]
            else:
                part["points"] = [list(shape.p0), list(shape.p1)]
                if kind == "capsule":
                    part["radius"] = shape.radius
            small = {"type": "circle" if dim == 2 else "sphere", "radius": 0.25}
            rot: dict[str, Any] = {"angle": 0.7} if dim == 2 else {
                "quaternion": [math.cos(0.35), math.sin(0.35), 0.0, 0.0]}
            rows.append({"id": spec.id, "position": list(spec.position), "shape": {"type": "compound", "parts": [
                {"shape": part, "position": [0.0] * dim},
                {"shape": small, "position": [0.0] * (dim - 1) + [-3.0], **rot}]}})
            contacts.append({"pair": [spec.id, "p_" + kind], "normal": [0.0] * (dim - 1) + [1.0],
                             "depth": 0.25, "parts": [0, -1]})
        else:
            rows.append({"id": spec.id, "position": list(spec.position),
                         "shape": {"type": "box", "half_extents": [0.5] * dim}})
    frame = {"add": rows, "expect": [c["pair"] for c in contacts], "expect_contacts": contacts}
    path.write_text(json.dumps({"collideworld_scenario": 2, "dim": dim, "tolerance": 1e-9}) + "\n"
                    + json.dumps(frame) + "\n")


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_hand_scene_of_every_part_kind_replays(tmp_path: Path, dim: int, backend: str) -> None:
    """The reader replays compounds of every part kind to the hand-worked contacts."""
    path = tmp_path / "hand.jsonl"
    hand_file(path, dim)
    report = replay(path, lambda d: World(dim=d, backend=backend))
    assert report.ok and report.contacts_checked == len(part_kinds(dim)), report.format_first_mismatch()


@pytest.mark.parametrize("name", ["rec.jsonl", "rec.jsonl.gz"])
@pytest.mark.parametrize("dim", [2, 3])
def test_recorder_round_trip_of_every_compound_part_kind(tmp_path: Path, dim: int, name: str) -> None:
    """Recorded, read back equal field by field; the recorded expectations are the hand ones
    and replay."""
    bodies, pairs = hand_scene(dim)
    path = tmp_path / name
    world = World(dim=dim, backend="numpy")
    with Recorder(world, path, record_contacts=True) as rec:
        for spec in bodies:
            rec.add(spec.shape, position=spec.position, id=spec.id)
        rec.step()
        # a set of the shape too: the capsule's compound takes the hull's (3D) or the polygon's (2D)
        other = "convex_hull" if dim == 3 else "polygon"
        rec.set_shape("c_capsule", compound_of(other, dim))
        rec.step()
    (first, second) = list(read_scenario(path))
    want = {b.id: b.shape for b in bodies}
    assert {b.id for b in first.add} == set(want)
    for spec in first.add:
        assert_same_shape(spec.shape, want[spec.id])
    assert_same_shape(second.set[0].shape, compound_of(other, dim))
    assert first.expect == pairs
    assert first.expect_contacts is not None and len(first.expect_contacts) == len(pairs)
    up = (0.0,) * (dim - 1) + (1.0,)
    for ec in first.expect_contacts:
        sign = 1.0 if ec.pair[0].startswith("c_") else -1.0
        assert ec.depth == pytest.approx(0.25, abs=1e-9)
        assert ec.normal == pytest.approx(tuple(sign * c for c in up), abs=1e-9)
        assert ec.parts == ((0, -1) if sign > 0 else (-1, 0))
    report = replay(path, lambda d: World(dim=d, backend="numpy"))
    assert report.ok and report.frames == 2, report.format_first_mismatch()


@pytest.mark.parametrize("dim", [2, 3])
def test_writer_round_trip_of_every_shape_kind(tmp_path: Path, dim: int) -> None:
    """Every shape kind as a body, in a compound, and in a set entry: read back equal."""
    parts = PARTS_2D if dim == 2 else PARTS_3D
    others = OTHER_2D if dim == 2 else OTHER_3D
    shapes: dict[str, Any] = {**parts, **others, "compound": Compound(
        [(s, tuple(float(3 * k + c) for c in range(dim))) for k, s in enumerate(parts.values())])}
    origin = (0.0,) * dim
    specs = [BodySpec(name, s, None if s.is_infinite else origin) for name, s in shapes.items()]
    path = tmp_path / "all.jsonl"
    with ScenarioWriter(path, dim=dim) as w:
        w.write_frame(add=specs)
        w.write_frame(set=[SetSpec(n, shape=compound_of(n, dim)) for n in parts])
    first, second = list(read_scenario(path))
    for spec in first.add:
        assert_same_shape(spec.shape, shapes[spec.id])
    for change in second.set:
        assert_same_shape(change.shape, compound_of(str(change.id), dim))


def test_recorder_loses_no_frame_when_the_writer_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A frame the writer cannot write is refused before the world steps: after the cause is
    gone, the next step is the world's first (its pairs begin then) and the file replays."""
    from collideworld.scenario import writer as writer_module

    def broken(shape: Any) -> dict[str, Any]:
        raise InvalidArgumentError("cannot write this capsule")

    world = World(dim=2, backend="numpy")
    path = tmp_path / "rec.jsonl"
    with Recorder(world, path) as rec:
        rec.add(Circle(1.0), position=(0, 0), id="a")
        rec.add(Capsule((0, 0), (1, 0), 0.5), position=(1.5, 0), id="b")
        monkeypatch.setitem(writer_module.SHAPE_WRITERS, "capsule", broken)
        with pytest.raises(InvalidArgumentError, match="cannot write this capsule"):
            rec.step()
        monkeypatch.undo()
        contacts = rec.step()
        assert list(contacts.began) != [] and rec.frames_written == 1
        rec.close()
        with pytest.raises(ValueError, match="closed"):
            rec.step()
    assert list(world.step().began) == []  # the refused steps never reached the world
    report = replay(path, lambda d: World(dim=d, backend="numpy"))
    assert report.ok and report.frames == 1


# --------------------------------------------------------------------------
# item 14: compound parts count against the limits
# --------------------------------------------------------------------------


def compounds_line(count: int, parts: int, first_id: int = 0) -> str:
    part = '{"shape": {"type": "circle", "radius": 1}, "position": [0, 0]}'
    shape = '{"type": "compound", "parts": [' + ", ".join([part] * parts) + "]}"
    bodies = [f'{{"id": {first_id + i}, "shape": {shape}, "position": [0, 0]}}' for i in range(count)]
    return '{"add": [' + ", ".join(bodies) + "]}\n"


def test_part_pair_bomb_is_rejected_at_its_line(tmp_path: Path) -> None:
    """Two compounds of 4,096 parts: 16.8 million part pairs, over the default limit."""
    path = tmp_path / "parts.jsonl.gz"
    path.write_bytes(gzip.compress((V2_2D + compounds_line(2, 4096)).encode()))
    assert path.stat().st_size < 30_000
    rejected(path, 2, "max_part_pairs")


def test_part_pairs_at_the_limit_pass_and_replay(tmp_path: Path) -> None:
    """Two overlapping compounds of 8 unit circles at one point: 8 x 8 = 64 part pairs, 63 more
    than one pair of bodies makes; a third body (a circle at the same point) adds 8 - 1 twice."""
    path = tmp_path / "two.jsonl"
    path.write_text(V2_2D + compounds_line(2, 8).replace("]}\n", '], "expect": [[0, 1]]}\n'))
    rejected(path, 2, "max_part_pairs", max_part_pairs=62)
    report = replay(path, lambda d: World(dim=d, backend="numpy"), max_part_pairs=63)
    assert report.ok and report.frames_checked == 1, report.format_first_mismatch()
    three = tmp_path / "three.jsonl"
    circle = '{"id": 9, "shape": ' + CIRCLE + ', "position": [0, 0]}'
    three.write_text(V2_2D + compounds_line(2, 8) + '{"add": [' + circle + "]}\n")
    rejected(three, 3, "max_part_pairs", max_part_pairs=63 + 2 * 7 - 1)
    assert len(list(read_scenario(three, max_part_pairs=63 + 2 * 7))) == 2
    # a removal makes room again, in the same frame
    again = tmp_path / "again.jsonl"
    again.write_text(V2_2D + compounds_line(2, 8) + '{"remove": [1], "add": [' + circle + "]}\n")
    assert len(list(read_scenario(again, max_part_pairs=63))) == 2


def test_parts_count_against_max_bodies(tmp_path: Path) -> None:
    """A compound takes a slot of the world for itself and one per part."""
    path = tmp_path / "slots.jsonl"
    path.write_text(V2_2D + compounds_line(1, 10))
    rejected(path, 2, "max_bodies", max_bodies=10)
    assert len(list(read_scenario(path, max_bodies=11))) == 1


def test_a_set_to_a_bigger_compound_counts_too(tmp_path: Path) -> None:
    part = '{"shape": {"type": "circle", "radius": 1}, "position": [0, 0]}'
    big = '{"type": "compound", "parts": [' + ", ".join([part] * 8) + "]}"
    path = tmp_path / "set.jsonl"
    path.write_text(V2_2D + compounds_line(2, 1) + '{"set": [{"id": 0, "shape": ' + big + "}]}\n")
    rejected(path, 3, "max_part_pairs", max_part_pairs=6)
    rejected(path, 3, "max_bodies", max_bodies=10)
    assert len(list(read_scenario(path, max_part_pairs=7, max_bodies=11))) == 2


def test_parts_are_counted_before_any_compound_is_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from collideworld.scenario import schema

    built: list[int] = []
    real = schema.SHAPE_PARSERS["compound"]

    def spy(raw: Any, dim: int) -> Any:
        built.append(len(raw["parts"]))
        return real(raw, dim)

    monkeypatch.setitem(schema.SHAPE_PARSERS, "compound", spy)
    path = tmp_path / "many.jsonl"
    path.write_text(V2_2D + compounds_line(1, 4) + compounds_line(40, 100, first_id=1))
    rejected(path, 3, "max_part_pairs", max_part_pairs=1000)
    assert built == [4]


def test_cli_info_and_replay_reject_the_part_bomb_with_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "parts.jsonl.gz"
    path.write_bytes(gzip.compress((V2_2D + compounds_line(2, 4096)).encode()))
    for command in (["info"], ["replay", "--backend", "numpy"]):
        code, _, rss_kb, output = measured(*command, "--no-progress", str(path))
        assert code == 1 and f"{path}:2: " in output and "max_part_pairs" in output, output
        assert "Traceback" not in output
        assert rss_kb < 400_000, (command, rss_kb)
    proc = cli("info", "--no-progress", "--max-part-pairs", "20000000", str(path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
