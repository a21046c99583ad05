"""Replay recorded scenarios inside your own pytest suite, and record new ones.

A scenario file (JSON Lines, see ``docs/scenario-format.md``) records a
world over time: what was added, moved and removed before each step, and
which pairs were in contact after it. Replaying it checks that the world
still gives the same answers: a regression test for your game level, your
robot cell or a bug report someone sent you.

Copy the ``test_*`` functions below into a ``tests/test_my_scenarios.py`` of
your own project; pytest runs them as they are. To replay a whole folder,
parametrise::

    @pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.jsonl")), ids=lambda p: p.name)
    def test_scenario(path):
        report = replay(path)
        assert report.ok, report.format_first_mismatch()

(This file's name does not start with ``test_``, so pytest does not collect
it by accident.) Run it directly to see all three in action, from the
repository root::

    python examples/replay_in_your_tests.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from collideworld import Box, Circle, HalfPlane, World
from collideworld.scenario import Recorder, replay

# Resolve paths from this file, not the working directory, so the test works
# wherever pytest is started.
REPO = Path(__file__).resolve().parent.parent
SCENARIOS = REPO / "scenarios"


def test_driving_scenario_replays() -> None:
    """A recorded scenario still gives the recorded contacts, frame by frame."""
    report = replay(SCENARIOS / "driving.jsonl")
    # On failure, pytest shows the first differing frame: its line in the
    # file, the pairs missing or extra, the normals and depths that differ.
    assert report.ok, report.format_first_mismatch()
    assert report.frames > 0
    print(report.summary())  # shown by pytest -s, or when run directly


def record_session(path: Path) -> None:
    """Record a short session: a ball rolls along the ground into a crate.

    A Recorder stands in for the world: call add/move/remove/step on it as on
    the world itself; each step writes one frame with the contacts it found.
    """
    with Recorder(World(dim=2), path, record_contacts=True, name="ball-meets-crate",
                  description="a ball rolls along the ground into a crate") as rec:
        rec.add(HalfPlane(normal=(0, 1), offset=0.0), id="ground")    # solid y <= 0
        rec.add(Box((0.5, 0.5)), position=(3.0, 0.5), id="crate")    # resting on the ground
        rec.add(Circle(0.25), position=(0.0, 0.25), id="ball")       # touching the ground
        rec.step()
        for k in range(1, 12):
            rec.move("ball", position=(0.25 * k, 0.25))
            rec.step()
        rec.remove("ball")
        rec.step()


def test_recorded_session_replays(tmp_path: Path) -> None:
    """Record a session now, replay it: the round trip must match."""
    path = tmp_path / "ball_meets_crate.jsonl"
    record_session(path)
    report = replay(path)
    assert report.ok, report.format_first_mismatch()
    assert report.frames == 13
    assert report.contacts_checked > 0  # record_contacts=True wrote normals and depths
    print(report.summary())


def test_a_wrong_expectation_is_reported(tmp_path: Path) -> None:
    """What a failure looks like: edit one frame's expectation and replay."""
    path = tmp_path / "ball_meets_crate.jsonl"
    record_session(path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    # Line 1 is the header, line 12 is frame 11: the ball, moved 10 times by
    # 0.25, is centred on the crate's west face (x = 2.5). Claim that the
    # frame has no contacts at all.
    frame = json.loads(lines[11])
    assert ["ball", "crate"] in frame["expect"] or ["crate", "ball"] in frame["expect"], frame
    frame["expect"] = []
    frame.pop("expect_contacts", None)
    lines[11] = json.dumps(frame) + "\n"
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(lines), encoding="utf-8")

    report = replay(broken)
    assert not report.ok
    message = report.format_first_mismatch()
    assert "frame 11 (line 12)" in message, message
    print(message)


if __name__ == "__main__":
    # Without pytest: run the tests by hand, with a temporary directory for tmp_path.
    test_driving_scenario_replays()
    with tempfile.TemporaryDirectory() as tmp:
        test_recorded_session_replays(Path(tmp))
    with tempfile.TemporaryDirectory() as tmp:
        print("a deliberately wrong expectation gives:")
        test_a_wrong_expectation_is_reported(Path(tmp))
    print("all replay examples passed")
