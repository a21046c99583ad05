"""The ``collideworld`` command line: exit codes, messages, output files."""

from __future__ import annotations

import subprocess
import sys

import pytest

from collideworld.cli import find_scenarios, main
from collideworld.cli import replay_file as _real_replay_file

H2 = '{"collideworld_scenario": 1, "dim": 2, "name": "two circles"}'
# radii 1 + 1, centres 1.5 apart: in contact; then 3 apart: not.
GOOD = "\n".join([
    H2,
    '{"add": [{"id": "a", "shape": {"type": "circle", "radius": 1}, "position": [0, 0]}, '
    '{"id": "b", "shape": {"type": "circle", "radius": 1}, "position": [1.5, 0]}], "expect": [["a", "b"]]}',
    '{"move": [{"id": "b", "position": [3, 0]}], "expect": []}',
    '{"add": [{"id": "g", "shape": {"type": "halfplane", "normal": [0, 1], "offset": -0.5}}], "expect": [["a", "g"], ["b", "g"]]}',
]) + "\n"
MISMATCH = GOOD.replace('"expect": []', '"expect": [["a", "b"]]')
INVALID = GOOD.replace('"id": "b", "position": [3, 0]', '"id": "zz", "position": [3, 0]')
H3 = '{"collideworld_scenario": 1, "dim": 3}'
GOOD_3D = "\n".join([
    H3,
    # unit sphere 0.5 into the floor z <= 0; a box rotated 45 degrees about z beside it
    '{"add": [{"id": "floor", "shape": {"type": "plane", "normal": [0, 0, 1], "offset": 0}}, '
    '{"id": 1, "shape": {"type": "sphere", "radius": 1}, "position": [0, 0, 0.5]}, '
    '{"id": 2, "shape": {"type": "box", "half_extents": [1, 0.5, 0.25]}, "position": [3, 0, 2], '
    '"quaternion": [0.9238795325112867, 0, 0, 0.3826834323650898]}], "expect": [[1, "floor"]]}',
]) + "\n"


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in [("good.jsonl", GOOD), ("mismatch.jsonl", MISMATCH), ("invalid.jsonl", INVALID),
                       ("good3d.jsonl", GOOD_3D)]:
        (tmp_path / name).write_text(text)
        paths[name] = str(tmp_path / name)
    return paths


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------
# replay
# --------------------------------------------------------------------------


def test_replay_ok(files, capsys):
    code, out, err = run(capsys, "replay", files["good.jsonl"], files["good3d.jsonl"])
    assert code == 0, out + err
    assert "good.jsonl" in out and "good3d.jsonl" in out
    assert "2 files, 2 ok, 0 failed" in out


def test_replay_mismatch_exits_1_and_shows_the_first_difference(files, capsys):
    code, out, _ = run(capsys, "replay", files["mismatch.jsonl"])
    assert code == 1
    assert "MISMATCH" in out
    assert f"{files['mismatch.jsonl']}:3: frame 2 (line 3)" in out
    assert "['a', 'b']" in out


def test_replay_invalid_exits_1_with_file_and_line(files, capsys):
    code, out, err = run(capsys, "replay", files["invalid.jsonl"], files["good.jsonl"])
    assert code == 1
    assert "INVALID" in out
    assert f"{files['invalid.jsonl']}:3: move: unknown id 'zz'" in out
    assert "Traceback" not in out + err
    assert "1 ok, 1 failed" in out


def test_replay_missing_file_exits_2(tmp_path, capsys):
    code, _, err = run(capsys, "replay", str(tmp_path / "nope.jsonl"))
    assert code == 2
    assert "no such file" in err and "nope.jsonl" in err


def test_replay_folder_skips_invalid_subfolders(tmp_path, capsys):
    (tmp_path / "sub").mkdir()
    (tmp_path / "invalid").mkdir()
    (tmp_path / "a.jsonl").write_text(GOOD)
    (tmp_path / "sub" / "b.jsonl").write_text(GOOD_3D)
    (tmp_path / "invalid" / "broken.jsonl").write_text(INVALID)
    (tmp_path / "notes.txt").write_text("not a scenario")
    assert find_scenarios([str(tmp_path)]) == [str(tmp_path / "a.jsonl"), str(tmp_path / "sub" / "b.jsonl")]
    code, out, _ = run(capsys, "replay", str(tmp_path))
    assert code == 0 and "broken" not in out
    # a file named explicitly is always replayed
    code, out, _ = run(capsys, "replay", str(tmp_path / "invalid" / "broken.jsonl"))
    assert code == 1


def test_replay_gz_in_folder(tmp_path, capsys):
    import gzip

    (tmp_path / "a.jsonl.gz").write_bytes(gzip.compress(GOOD.encode()))
    assert find_scenarios([str(tmp_path)]) == [str(tmp_path / "a.jsonl.gz")]
    code, _, _ = run(capsys, "replay", str(tmp_path))
    assert code == 0


def test_replay_empty_folder_exits_2(tmp_path, capsys):
    code, _, err = run(capsys, "replay", str(tmp_path))
    assert code == 2 and "no scenario files" in err


def test_replay_quiet(files, capsys):
    code, out, _ = run(capsys, "replay", "-q", files["good.jsonl"])
    assert code == 0 and out == ""


def test_no_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        main([])
    assert info.value.code == 2


# --------------------------------------------------------------------------
# info
# --------------------------------------------------------------------------


def test_info(files, capsys):
    code, out, _ = run(capsys, "info", files["good.jsonl"])
    assert code == 0
    assert "two circles" in out
    assert "2D" in out
    assert "frames:        3" in out
    assert "circle 2" in out and "halfplane 1" in out
    # contacts per frame from the file: 1, 0, 2
    assert "min 0, mean 1.00, median 1, max 2" in out


def test_info_invalid_file(files, capsys):
    code, _, err = run(capsys, "info", files["invalid.jsonl"])
    assert code == 1
    assert f"{files['invalid.jsonl']}:3: move: unknown id 'zz'" in err
    assert "Traceback" not in err


def test_info_missing_file(tmp_path, capsys):
    code, _, err = run(capsys, "info", str(tmp_path / "nope.jsonl"))
    assert code == 2 and "no such file" in err


def test_info_of_a_directory_is_a_usage_error(tmp_path, files, capsys):
    code, _, err = run(capsys, "info", str(tmp_path))
    assert code == 2
    assert f"collideworld info: error: {tmp_path} is a directory; this command takes one scenario file" in err
    assert "invalid scenario" not in err and "Traceback" not in err


# --------------------------------------------------------------------------
# render
# --------------------------------------------------------------------------

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("name, frame", [("good.jsonl", "3"), ("good3d.jsonl", "1")])
def test_render_writes_a_png(files, tmp_path, capsys, name, frame):
    out_png = tmp_path / f"{name}.png"
    code, out, err = run(capsys, "render", files[name], "--frame", frame, "-o", str(out_png), "--aabbs")
    assert code == 0, err
    data = out_png.read_bytes()
    assert data.startswith(PNG_SIGNATURE) and len(data) > 5000
    assert f"frame {frame}" in out


def test_render_defaults_to_the_last_frame(files, tmp_path, capsys):
    out_png = tmp_path / "last.png"
    code, out, _ = run(capsys, "render", files["good.jsonl"], "-o", str(out_png))
    assert code == 0 and "frame 3" in out and out_png.stat().st_size > 0


def test_render_frame_out_of_range(files, tmp_path, capsys):
    code, _, err = run(capsys, "render", files["good.jsonl"], "--frame", "9", "-o", str(tmp_path / "x.png"))
    assert code == 2 and "out of range" in err


def test_render_invalid_file(files, tmp_path, capsys):
    code, _, err = run(capsys, "render", files["invalid.jsonl"], "--frame", "3", "-o", str(tmp_path / "x.png"))
    assert code == 1 and "unknown id 'zz'" in err


def test_render_unsupported_suffix_is_a_usage_error(files, tmp_path, capsys):
    target = tmp_path / "out.xyz"
    code, out, err = run(capsys, "render", files["good.jsonl"], "--frame", "1", "-o", str(target))
    assert code == 2
    assert f"collideworld render: error: cannot write '{target}': unsupported image format '.xyz'; supported: " in err
    assert ".png" in err and ".svg" in err and ".pdf" in err
    assert "Traceback" not in err and "ValueError" not in err
    assert not target.exists() and out == ""


def test_render_of_a_directory_is_a_usage_error(tmp_path, files, capsys):
    code, _, err = run(capsys, "render", str(tmp_path), "-o", str(tmp_path / "x.png"))
    assert code == 2 and "is a directory; this command takes one scenario file" in err


def test_render_without_matplotlib(files, tmp_path, capsys, monkeypatch):
    # A None entry in sys.modules makes the import fail as if not installed.
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    code, _, err = run(capsys, "render", files["good.jsonl"], "-o", str(tmp_path / "x.png"))
    assert code == 2  # a usage error: the command cannot run as installed
    assert "install the render extra: pip install 'collideworld[render]'" in err
    assert not (tmp_path / "x.png").exists()


# --------------------------------------------------------------------------
# the installed entry points
# --------------------------------------------------------------------------


def test_python_m_collideworld(files):
    ok = subprocess.run([sys.executable, "-m", "collideworld", "replay", files["good.jsonl"]],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run([sys.executable, "-m", "collideworld", "info", files["invalid.jsonl"]],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1
    assert "unknown id 'zz'" in bad.stderr and "Traceback" not in bad.stderr


# --------------------------------------------------------------------------
# the command as users meet it: version, plurals, progress, streaming, jobs
# --------------------------------------------------------------------------


def test_version(capsys):
    import collideworld

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"collideworld {collideworld.__version__}"


def test_plural_forms(files, tmp_path, capsys):
    code, out, _ = run(capsys, "replay", files["good.jsonl"])
    assert code == 0 and "\n1 file, 1 ok, 0 failed" in out
    code, out, _ = run(capsys, "replay", files["mismatch.jsonl"])
    assert "MISMATCH (1 frame)" in out and "1 file, 0 ok, 1 failed" in out
    # frame 1: a and b overlap (1 contact); frame 3: both on the half-plane (2 contacts)
    code, out, _ = run(capsys, "render", files["good.jsonl"], "--frame", "1", "-o", str(tmp_path / "1.png"))
    assert code == 0 and "2 bodies, 1 contact)" in out
    code, out, _ = run(capsys, "render", files["good.jsonl"], "--frame", "3", "-o", str(tmp_path / "3.png"))
    assert code == 0 and "3 bodies, 2 contacts)" in out


def test_replay_prints_each_row_as_its_file_finishes(files, capsys, monkeypatch):
    """When the second file starts, the first file's row is already out."""
    import collideworld.cli as cli

    seen_before: list[str] = []
    real = cli.replay_file

    def spy(path, **kw):
        seen_before.append(capsys.readouterr().out)
        return real(path, **kw)

    monkeypatch.setattr(cli, "replay_file", spy)
    assert main(["replay", files["good.jsonl"], files["good3d.jsonl"]]) == 0
    assert "good.jsonl" not in seen_before[0]
    assert files["good.jsonl"] in seen_before[1] and "ok" in seen_before[1]


def test_progress_bar_only_on_a_terminal_or_when_asked(files, tmp_path, capsys):
    """capsys's stderr is not a terminal: no bar unless --progress; the bar never
    reaches stdout, whose rows are the same either way."""
    args = ["replay", files["good.jsonl"], files["good3d.jsonl"]]
    code, out_plain, err_plain = run(capsys, *args)
    # the first-compile notice, said on stderr terminal or not, is the only line allowed
    from collideworld.cli import _COMPILE_NOTICE

    assert code == 0 and err_plain.replace(_COMPILE_NOTICE + "\n", "") == ""
    code, out_bar, err_bar = run(capsys, *args, "--progress")
    assert code == 0 and "replay" in err_bar and "file" in err_bar
    assert "\r" not in out_bar and _mask_times(out_bar) == _mask_times(out_plain)
    code, out, err = run(capsys, "info", files["good.jsonl"], "--progress")
    assert code == 0 and "info" in err and "frames:        3" in out
    code, out, err = run(capsys, "render", files["good.jsonl"], "-o", str(tmp_path / "x.png"), "--progress")
    assert code == 0 and "render" in err and out.startswith("wrote")


def _mask_times(text: str) -> str:
    import re

    # A column is as wide as its longest entry, so a slow file (10 s on a loaded machine)
    # widens the time column and its rule: compare with times, rules and runs of spaces folded.
    text = re.sub(r" *\d+\.\d\ds\b", " T", text)
    return re.sub(r" {2,}", " ", re.sub(r"-{2,}", "-", text))


def test_jobs_gives_the_serial_result(files, capsys):
    """Same rows in the same order, same details, same exit status (times masked)."""
    paths = [files[n] for n in ("good.jsonl", "mismatch.jsonl", "invalid.jsonl", "good3d.jsonl")]
    serial = run(capsys, "replay", *paths)
    parallel = run(capsys, "replay", "--jobs", "3", *paths)
    assert serial[0] == parallel[0] == 1
    assert _mask_times(serial[1]) == _mask_times(parallel[1])
    rows = [line.split()[0] for line in serial[1].splitlines()[2:6]]
    assert rows == paths


def _die_on_mismatch(path, **kw):
    """A worker that dies (as if killed) on one file."""
    import os

    if path.endswith("mismatch.jsonl"):
        os._exit(3)
    return _real_replay_file(path, **kw)


def test_jobs_reports_a_dying_worker_and_finishes_the_rest(files, capsys, monkeypatch):
    import collideworld.cli as cli

    monkeypatch.setattr(cli, "replay_file", _die_on_mismatch)
    paths = [files[n] for n in ("good.jsonl", "mismatch.jsonl", "good3d.jsonl", "invalid.jsonl")]
    code, out, err = run(capsys, "replay", "--jobs", "2", *paths)
    assert code == 1
    status = {line.split()[0]: line.split()[-1] for line in out.splitlines()[2:6]}
    assert status == {paths[0]: "ok", paths[1]: "ERROR", paths[2]: "ok", paths[3]: "INVALID"}
    assert f"ERROR {paths[1]}: the worker process replaying it died" in out
    assert "2 ok, 2 failed" in out


def test_jobs_must_be_positive(files, capsys):
    with pytest.raises(SystemExit) as info:
        main(["replay", "--jobs", "0", files["good.jsonl"]])
    assert info.value.code == 2


# --------------------------------------------------------------------------
# render: animation, crop, ids, zoom
# --------------------------------------------------------------------------


def test_render_animation_writes_a_gif(files, tmp_path, capsys):
    from PIL import Image

    target = tmp_path / "movie.gif"
    code, out, err = run(capsys, "render", files["good.jsonl"], "--frames", "0:200", "-o", str(target))
    assert code == 0, err
    assert "3 frames, 1 to 3" in out
    with Image.open(target) as im:
        assert im.format == "GIF" and im.n_frames == 3
    code, out, _ = run(capsys, "render", files["good.jsonl"], "--frames", "2:3", "-o", str(target))
    assert code == 0 and "2 frames, 2 to 3" in out


@pytest.mark.parametrize("argv, message", [
    (["--frames", "1:2", "-o", "x.png"], "an animation is written as a .gif"),
    (["--frames", "5:9", "-o", "x.gif"], "no frame in 5:9"),
    (["--frame", "1", "--frames", "1:2", "-o", "x.gif"], "not both"),
    (["--ids", "a,nobody", "-o", "x.png"], "['nobody'] are not alive after frame 3"),
])
def test_render_usage_errors_exit_2(files, tmp_path, capsys, argv, message):
    argv = [a if not a.startswith("x.") else str(tmp_path / a) for a in argv]
    code, out, err = run(capsys, "render", files["good.jsonl"], *argv)
    assert code == 2 and message in err and "Traceback" not in err


@pytest.mark.parametrize("option", [["--crop", "1,2,3"], ["--crop", "3,0,1,1"], ["--zoom", "0"],
                                    ["--frames", "3:1"], ["--frames", "x"]])
def test_render_bad_option_values_exit_2(files, tmp_path, option):
    with pytest.raises(SystemExit) as info:
        main(["render", files["good.jsonl"], *option, "-o", str(tmp_path / "x.png")])
    assert info.value.code == 2


def test_render_crop_ids_zoom(files, tmp_path, capsys):
    for extra in (["--crop=-1,-1,1,1"], ["--ids", "a,b"], ["--zoom", "3"], ["--ids", "g"]):
        target = tmp_path / "x.png"
        code, _, err = run(capsys, "render", files["good.jsonl"], *extra, "-o", str(target))
        assert code == 0, (extra, err)
        assert target.read_bytes().startswith(PNG_SIGNATURE)
        target.unlink()


# --------------------------------------------------------------------------
# replay on a Dask cluster (the cluster extra), on loopback
# --------------------------------------------------------------------------


def _raise_on_mismatch(path, **kw):
    """A task that fails on one file (as a bug in a worker would)."""
    if path.endswith("mismatch.jsonl"):
        raise RuntimeError("worker bug")
    return _real_replay_file(path, **kw)


@pytest.fixture(scope="module")
def dask_cluster():
    import distributed

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        yield cluster


def test_scheduler_gives_the_serial_result(files, capsys, dask_cluster):
    paths = [files[n] for n in ("good.jsonl", "mismatch.jsonl", "invalid.jsonl", "good3d.jsonl")]
    serial = run(capsys, "replay", *paths)
    cluster = run(capsys, "replay", "--scheduler", dask_cluster.scheduler_address, *paths)
    assert serial[0] == cluster[0] == 1
    assert _mask_times(serial[1]) == _mask_times(cluster[1])


def test_scheduler_reports_a_failing_task(files, capsys, monkeypatch, dask_cluster):
    import collideworld.cli as cli

    monkeypatch.setattr(cli, "replay_file", _raise_on_mismatch)
    paths = [files[n] for n in ("good.jsonl", "mismatch.jsonl", "good3d.jsonl")]
    code, out, _ = run(capsys, "replay", "--scheduler", dask_cluster.scheduler_address, *paths)
    assert code == 1
    status = {line.split()[0]: line.split()[-1] for line in out.splitlines()[2:5]}
    assert status == {paths[0]: "ok", paths[1]: "ERROR", paths[2]: "ok"}
    assert f"ERROR {paths[1]}: worker failed: RuntimeError: worker bug" in out


def test_scheduler_unreachable_is_a_usage_error(files, capsys, monkeypatch):
    import socket

    import collideworld.cli as cli

    monkeypatch.setattr(cli, "SCHEDULER_TIMEOUT_SECONDS", 1.0)
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, _, err = run(capsys, "replay", "--scheduler", f"tcp://127.0.0.1:{port}", files["good.jsonl"])
    assert code == 2 and "cannot connect to the Dask scheduler" in err


# -- the first-compile notice ------------------------------------------------


def test_compile_notice_is_said_once_when_numba_compiles(capsys):
    """A function numba has never seen compiles inside the notice: one line, once;
    a second compile in the same run says nothing more."""
    import io

    import numba

    from collideworld.cli import _COMPILE_NOTICE, _compile_notice

    # built here so no on-disk cache can hold them: calling them must compile
    first = numba.njit(lambda x: x + 1)
    second = numba.njit(lambda x: x * 3)
    err = io.StringIO()
    with _compile_notice(True, err):
        assert first(1) == 2
        assert second(2) == 6
    assert err.getvalue() == _COMPILE_NOTICE + "\n"
    # outside the block, and with the notice off, a compile says nothing
    quiet = io.StringIO()
    with _compile_notice(False, quiet):
        assert numba.njit(lambda x: x - 1)(1) == 0
    assert numba.njit(lambda x: x - 2)(2) == 0
    assert quiet.getvalue() == "" and err.getvalue() == _COMPILE_NOTICE + "\n"


def test_compile_notice_is_silent_when_the_kernels_are_cached(files, capsys):
    """With everything compiled already (as after the first run), --progress shows the
    bar but no compile notice."""
    from collideworld.cli import _COMPILE_NOTICE

    assert main(["replay", "--progress", files["good.jsonl"]]) == 0  # warms this process
    capsys.readouterr()
    assert main(["replay", "--progress", files["good.jsonl"]]) == 0
    assert _COMPILE_NOTICE not in capsys.readouterr().err
