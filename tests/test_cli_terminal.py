"""Progress bars as a user at a terminal sees them, without ``--progress``.

Each long command runs in a child process whose stderr is a pseudo-terminal
(``os.openpty``), so the CLI's own "is stderr a terminal?" test decides, as
it does for a person at a shell. What the terminal received is read from the
pty's master side; stdout is a pipe and must hold the result lines only.
"""

from __future__ import annotations

import fcntl
import os
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

import numpy as np
import pytest

from collideworld.cli import PROGRESS_MIN_BYTES
from collideworld.scenario import BodySpec, MoveBatch, ScenarioWriter
from collideworld.shapes import Circle

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

REPO = Path(__file__).resolve().parent.parent


def run_on_a_terminal(*argv: str, timeout: float = 120.0) -> tuple[int, str, str]:
    """``python -m collideworld *argv`` with stderr on a fresh 100x30 pseudo-terminal.

    Returns the exit status, stdout (a pipe) and everything the terminal got.
    """
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "TQDM_DISABLE")}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen([sys.executable, "-m", "collideworld", *argv], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=slave, cwd=REPO, env=env)
    os.close(slave)  # the child holds the only other copy: reading ends when it exits
    received = bytearray()

    def drain() -> None:  # read the terminal while the child runs, so it never blocks on a full pty
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed its end
                return
            if not chunk:
                return
            received.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        out, _ = proc.communicate(timeout=timeout)
    finally:
        proc.kill()
        reader.join(timeout=10)
        os.close(master)
    return proc.returncode, out.decode(), received.decode(errors="replace")


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A scenario just over the size at which a single file's replay shows a byte bar:
    1,000 unit circles on a grid, moved every frame, checked every frame (no contacts)."""
    path = str(tmp_path_factory.mktemp("terminal") / "big.jsonl")
    n = 1000
    ids = list(range(n))
    grid = np.stack([np.arange(n) % 40 * 3.0, np.arange(n) // 40 * 3.0], axis=1)
    rng = np.random.default_rng(0)
    with ScenarioWriter(path, dim=2) as w:
        w.write_frame(add=[BodySpec(i, Circle(1.0), tuple(grid[i])) for i in ids], expect=[])
        while os.path.getsize(path) < PROGRESS_MIN_BYTES * 1.1:
            # jitter of at most 0.4 per axis: circles 3 apart never come within 2
            w.write_frame(move=[MoveBatch(ids, positions=grid + rng.uniform(-0.4, 0.4, (n, 2)))], expect=[])
    return path


@pytest.fixture(scope="module")
def small_files(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    folder = tmp_path_factory.mktemp("small")
    paths = []
    for i in range(3):
        path = folder / f"s{i}.jsonl"
        path.write_text('{"collideworld_scenario": 1, "dim": 2}\n'
                        '{"add": [{"id": "a", "shape": {"type": "circle", "radius": 1}, "position": [0, 0]}, '
                        '{"id": "b", "shape": {"type": "circle", "radius": 1}, "position": [1.5, 0]}], '
                        '"expect": [["a", "b"]]}\n')
        paths.append(str(path))
    return paths


def a_bar(terminal: str, desc: str, percent: bool = True) -> bool:
    """tqdm drew a bar named ``desc`` (``desc:  40%|####  | ...``, or a counter ``desc: 72frame [...]``
    when the total is not known), redrawn in place (``\\r``) at least twice."""
    drawn = terminal.count(f"\r{desc}:")
    return drawn >= 2 and (not percent or "%|" in terminal)


def test_info_shows_a_bar_on_a_terminal(big_file):
    code, out, terminal = run_on_a_terminal("info", big_file)
    assert code == 0, terminal
    assert a_bar(terminal, "info") and "B/" in terminal  # counts bytes of the file
    assert "frames:" in out and "\r" not in out and "%|" not in out


def test_render_shows_a_bar_on_a_terminal(big_file, tmp_path):
    picture = tmp_path / "last.png"
    code, out, terminal = run_on_a_terminal("render", big_file, "-o", str(picture))
    assert code == 0, terminal
    # The last frame is drawn: how many frames there are is not known in advance, so a counter.
    assert a_bar(terminal, "render", percent=False) and "frame [" in terminal
    assert out.startswith("wrote") and "%|" not in out
    assert picture.stat().st_size > 0


def test_replay_of_one_big_file_shows_a_byte_bar_on_a_terminal(big_file):
    code, out, terminal = run_on_a_terminal("replay", big_file)
    assert code == 0, out + terminal
    assert "%|" in terminal and terminal.count("\r") >= 2, terminal[-500:]
    assert "B/" in terminal  # the bar of one file counts its bytes
    assert "1 file, 1 ok, 0 failed" in out and "%|" not in out


def test_replay_of_many_files_shows_a_file_bar_on_a_terminal(small_files):
    code, out, terminal = run_on_a_terminal("replay", *small_files)
    assert code == 0, out + terminal
    assert a_bar(terminal, "replay") and "file" in terminal
    assert "3 files, 3 ok, 0 failed" in out and "%|" not in out


def test_no_bar_when_stderr_is_not_a_terminal(small_files):
    # The same command with stderr a pipe: nothing on stderr at all.
    proc = subprocess.run([sys.executable, "-m", "collideworld", "replay", *small_files], capture_output=True,
                          text=True, cwd=REPO, timeout=120, check=False,
                          env={**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")})
    assert proc.returncode == 0 and proc.stderr == ""
