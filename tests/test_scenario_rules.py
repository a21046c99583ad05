"""Reader rules that bound work and keep every command in agreement (issue 17).

* ``max_frames`` bounds the work of a small ``.gz`` of empty frames (a time
  bomb: bytes are cheap, steps are not);
* ``max_bodies`` defaults to what a replay can hold in memory;
* coordinates beyond the world's 1e150 are rejected by the reader itself, so
  ``info`` and ``replay`` give one answer, at the file's line;
* any string id renders (escaped when the font cannot draw it);
* a path of the wrong type, or a file that cannot be created, raises a
  ``CollideWorldError`` that is also the built-in a caller would catch.
"""

from __future__ import annotations

import gzip
import time
from pathlib import Path

import pytest

from collideworld import Circle, World
from collideworld.cli import main
from collideworld.errors import CollideWorldError, InvalidTypeError, ScenarioError, ScenarioFileError
from collideworld.geometry.tolerance import MAX_COORDINATE
from collideworld.scenario import ReaderLimits, Recorder, ScenarioWriter, read_scenario, replay

H2 = b'{"collideworld_scenario": 1, "dim": 2}\n'


def _circle(bid: str, x: str, y: str = "0") -> str:
    return f'{{"id": "{bid}", "shape": {{"type": "circle", "radius": 1}}, "position": [{x}, {y}]}}'


# --------------------------------------------------------------------------
# max_frames: the gzip time bomb
# --------------------------------------------------------------------------


def test_max_frames_stops_a_gzip_of_empty_frames_at_the_limit(tmp_path: Path) -> None:
    """100,001 empty frames in a few hundred bytes of gzip: rejected at line 100,002
    (frame 100,001) when the limit is 100,000; exactly 100,000 frames are accepted."""
    bomb = tmp_path / "bomb.jsonl.gz"
    bomb.write_bytes(gzip.compress(H2 + b"{}\n" * 100_001, mtime=0))
    assert bomb.stat().st_size < 2_000
    with pytest.raises(ScenarioError) as err:
        for _ in read_scenario(bomb, max_frames=100_000):
            pass
    assert err.value.line == 100_002
    assert "max_frames" in str(err.value)
    at_limit = tmp_path / "at_limit.jsonl.gz"
    at_limit.write_bytes(gzip.compress(H2 + b"{}\n" * 100_000, mtime=0))
    assert sum(1 for _ in read_scenario(at_limit, max_frames=100_000)) == 100_000


def test_max_frames_default_bounds_replay_time() -> None:
    """The default is 10 million frames: at the ~23,000 empty frames a second a
    replay runs on the test machine that is minutes, not the hours a 1 GiB file
    of ``{}`` lines (358 million frames) would take."""
    limit = ReaderLimits().max_frames
    assert limit == 10_000_000
    assert limit < (1024**3) // len(b"{}\n") // 30


def test_max_frames_is_checked_before_the_line_is_parsed(tmp_path: Path) -> None:
    """The frame over the limit is rejected even if its own JSON is invalid."""
    path = tmp_path / "over.jsonl"
    path.write_bytes(H2 + b"{}\n{}\nnot json\n")
    with pytest.raises(ScenarioError, match="max_frames") as err:
        list(read_scenario(path, max_frames=2))
    assert err.value.line == 4


def test_cli_info_and_replay_take_max_frames(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "three.jsonl"
    path.write_bytes(H2 + b"{}\n" * 3)
    assert main(["info", "--max-frames", "2", str(path)]) == 1
    assert f"{path}:4: more than the limit of 2 frames (max_frames)" in capsys.readouterr().err
    assert main(["replay", "--max-frames", "2", str(path)]) == 1
    assert "max_frames" in capsys.readouterr().out
    assert main(["info", "--max-frames", "3", str(path)]) == 0


# --------------------------------------------------------------------------
# max_bodies: a default replay memory can hold
# --------------------------------------------------------------------------


def test_max_bodies_default_is_one_million() -> None:
    """About 1.1 kB of replay memory per body (1.09 GB measured for 1M bodies):
    the default keeps a replay near 1 GB, not the 11 GB 10 million would need."""
    assert ReaderLimits().max_bodies == 1_000_000


def test_max_bodies_default_rejects_one_more(tmp_path: Path) -> None:
    """1,000,001 entries in one add list: rejected by the count, before any is parsed
    (the entries are not even bodies); 1,000,000 pass the count and fail on the first entry."""
    over = tmp_path / "over.jsonl"
    over.write_bytes(H2 + b'{"add": [' + b",".join([b"0"] * 1_000_001) + b"]}\n")
    with pytest.raises(ScenarioError, match=r"1000001 bodies would be alive.*max_bodies"):
        list(read_scenario(over))
    at = tmp_path / "at.jsonl"
    at.write_bytes(H2 + b'{"add": [' + b",".join([b"0"] * 1_000_000) + b"]}\n")
    with pytest.raises(ScenarioError, match=r"add\[0\] must be an object"):
        list(read_scenario(at))


# --------------------------------------------------------------------------
# one coordinate rule: the reader's and the world's
# --------------------------------------------------------------------------


@pytest.mark.parametrize("line", [
    '{"add": [' + _circle("a", "1e200") + "]}",
    '{"add": [' + _circle("a", "0", "-1.0000000000000001e150") + "]}",
    '{"add": [' + _circle("a", "0") + "]}\n" + '{"move": [{"id": "a", "position": [0, 1e151]}]}',
])
def test_coordinates_beyond_1e150_are_rejected_by_the_reader(tmp_path: Path, line: str,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The world refuses |x| > 1e150; the reader says so at the line, and info agrees with replay."""
    assert MAX_COORDINATE == 1e150
    path = tmp_path / "far.jsonl"
    path.write_text(H2.decode() + line + "\n")
    bad_line = 1 + line.count("\n") + 1
    with pytest.raises(ScenarioError, match="at most 1e\\+150 in magnitude") as err:
        list(read_scenario(path))
    assert err.value.line == bad_line
    assert main(["info", str(path)]) == 1
    assert f"{path}:{bad_line}:" in capsys.readouterr().err
    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert "INVALID" in out and f"{path}:{bad_line}:" in out


def test_coordinates_at_1e150_are_accepted_by_reader_and_world(tmp_path: Path) -> None:
    """The limit itself is valid: 1e150 and -1e150 reach the world and replay
    (two unit circles 2e150 apart cannot touch, so no contacts)."""
    path = tmp_path / "edge.jsonl"
    path.write_text(H2.decode() + '{"add": [' + _circle("a", "1e150") + ", " + _circle("b", "-1e150")
                    + '], "expect": []}\n')
    report = replay(path)
    assert report.ok and report.frames == 1


# --------------------------------------------------------------------------
# any string id renders
# --------------------------------------------------------------------------


def test_render_draws_ids_the_font_cannot(tmp_path: Path) -> None:
    from collideworld.render import label_text, render_frame

    # (a lone surrogate such as \ud800 is no id a file can hold: the reader refuses it)
    ids = ["\\ue000", "$\\\\frac$", "a\\nb", "\\u0000", "\\u4e2d", "x" * 40]
    bodies = ", ".join(_circle(bid, str(3 * k)) for k, bid in enumerate(ids))
    path = tmp_path / "ids.jsonl"
    path.write_text(H2.decode() + '{"add": [' + bodies + "]}\n")
    out = tmp_path / "ids.png"
    info = render_frame(path, output=str(out))
    assert info.bodies == len(ids)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert label_text("\ud800") == "\\ud800"
    assert label_text("a\nb") == "a\\nb"
    assert label_text("$x$") == "\\$x\\$"
    assert label_text("x" * 40) == "x" * 23 + "\u2026"


# --------------------------------------------------------------------------
# errors of the wrong path
# --------------------------------------------------------------------------


@pytest.mark.parametrize("path", [None, 3, b"scene.jsonl"])
def test_read_scenario_of_a_non_path_is_a_type_error(path: object) -> None:
    with pytest.raises(InvalidTypeError, match="path must be a str or os.PathLike") as err:
        read_scenario(path)  # type: ignore[arg-type]
    assert isinstance(err.value, TypeError) and isinstance(err.value, CollideWorldError)


def test_recorder_into_a_missing_folder(tmp_path: Path) -> None:
    """Both ``except FileNotFoundError`` and ``except CollideWorldError`` catch it;
    the message names the missing folder, and nothing is created."""
    world = World(dim=2)
    world.add(Circle(1.0), id="a")
    target = tmp_path / "no" / "dir" / "x.jsonl"
    with pytest.raises(ScenarioFileError, match="folder .*no/dir' does not exist") as err:
        Recorder(world, str(target))
    assert isinstance(err.value, FileNotFoundError) and isinstance(err.value, CollideWorldError)
    assert err.value.filename == str(target)
    assert not (tmp_path / "no").exists()
    with pytest.raises(InvalidTypeError):
        ScenarioWriter(None, dim=2)  # type: ignore[arg-type]


def test_writer_into_a_folder_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(ScenarioFileError) as err:
        ScenarioWriter(str(tmp_path / "file" / "x.jsonl"), dim=2)
    assert isinstance(err.value, NotADirectoryError)


def test_limits_reject_bad_values_quickly(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    path.write_bytes(H2 + b"{}\n")
    start = time.perf_counter()
    with pytest.raises(ValueError, match="max_frames must be a positive integer"):
        read_scenario(path, max_frames=0)
    assert time.perf_counter() - start < 1.0
