"""Every example script runs to completion and prints what it promises.

Each example asserts its own key facts, so a non-zero exit code means the
library (or the example) is wrong; stderr then holds the failed assertion.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"

# One entry per script: text its output must contain.
EXPECTED_OUTPUT = {
    "rts_building_placement.py": ["all 10 placement checks passed", "spots are free for the turned house"],
    "driving_trajectory_check.py": ["first collision: step 22", "all trajectory checks passed"],
    "frustum_culling.py": ["touching_far_plane     INTERSECTING",
                           "the World and classify_box_planes agree on every crate"],
    "replay_in_your_tests.py": ["driving.jsonl: 122 frames", "frame 11 (line 12)", "all replay examples passed"],
    "clearance_over_time.py": ["closest to the crate at frame 41: clearance 0.500", "clearance example passed"],
}


def run_example(name: str) -> str:
    """Run examples/<name> from the repository root; return its stdout."""
    proc = subprocess.run([sys.executable, str(EXAMPLES / name)], cwd=REPO, check=False,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"{name} exited with {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    for text in EXPECTED_OUTPUT[name]:
        assert text in proc.stdout, f"{name}: {text!r} not in its output:\n{proc.stdout}"
    return proc.stdout


def test_rts_building_placement() -> None:
    run_example("rts_building_placement.py")


def test_driving_trajectory_check() -> None:
    run_example("driving_trajectory_check.py")


def test_frustum_culling() -> None:
    run_example("frustum_culling.py")


def test_replay_in_your_tests() -> None:
    run_example("replay_in_your_tests.py")


def test_clearance_over_time() -> None:
    run_example("clearance_over_time.py")


def test_every_example_is_run_here() -> None:
    scripts = sorted(p.name for p in EXAMPLES.glob("*.py"))
    assert scripts == sorted(EXPECTED_OUTPUT), "add the new example to EXPECTED_OUTPUT and give it a test"
    # pytest's default python_files are test_*.py and *_test.py: an example
    # named like that would be collected as a test module by accident.
    assert not [n for n in scripts if n.startswith("test_") or n.endswith("_test.py")]
