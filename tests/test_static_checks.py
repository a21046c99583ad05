"""The package type-checks under mypy --strict and the code base is ruff clean.

Both run here so that `.ci/run` (one pytest command, the README's) fails when
either does; the configuration lives in pyproject.toml.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True,
                          check=False, timeout=600)


def test_mypy_strict_on_the_package() -> None:
    proc = _run("mypy", "collideworld")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_clean() -> None:
    proc = _run("ruff", "check", "collideworld", "tests", "examples", "benchmarks", "tools", "scenarios")
    assert proc.returncode == 0, proc.stdout + proc.stderr
