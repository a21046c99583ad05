"""Replay every scenario in ``scenarios/`` and check every invalid one is rejected.

* ``scenarios/**/*.jsonl[.gz]`` (outside ``invalid/``): one test per file;
  a mismatch prints the first differing frame before failing.
* ``scenarios/invalid/``: ``expected.json`` maps each file name to the line
  the reader must reject and a substring its message must contain.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from collideworld import World
from collideworld.cli import find_scenarios
from collideworld.errors import ScenarioError
from collideworld.scenario import read_scenario, replay

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
INVALID = SCENARIOS / "invalid"

_valid = find_scenarios([str(SCENARIOS)]) if SCENARIOS.is_dir() else []
_expected = json.loads((INVALID / "expected.json").read_text()) if (INVALID / "expected.json").is_file() else {}


@pytest.mark.skipif(not _valid, reason="no scenario files in scenarios/")
@pytest.mark.parametrize("backend", ["compiled", "numpy"])
@pytest.mark.parametrize("path", _valid, ids=[Path(p).name for p in _valid])
def test_scenario_replays(path, backend):
    report = replay(path, lambda dim: World(dim=dim, backend=backend))
    if not report.ok:
        print(report.format_first_mismatch())
        pytest.fail(f"{report.summary()}\n{report.format_first_mismatch()}", pytrace=False)
    assert report.frames > 0


@pytest.mark.skipif(not _expected, reason="no scenarios/invalid/expected.json")
@pytest.mark.parametrize("name", sorted(_expected), ids=sorted(_expected))
def test_invalid_scenario_is_rejected(name):
    want = _expected[name]
    path = str(INVALID / name)
    with pytest.raises(ScenarioError) as info:
        for _ in read_scenario(path):
            pass
    err = info.value
    assert err.line == want["line"], f"rejected at line {err.line}, expected {want['line']}: {err}"
    assert want["contains"] in str(err), str(err)
    assert str(err).startswith(f"{path}:{want['line']}: ")


@pytest.mark.skipif(not INVALID.is_dir(), reason="no scenarios/invalid/")
def test_every_invalid_file_has_an_expectation():
    files = sorted(p.name for p in INVALID.iterdir() if p.name.endswith((".jsonl", ".jsonl.gz")))
    assert files == sorted(_expected)


# --------------------------------------------------------------------------
# the format document in the repository
# --------------------------------------------------------------------------

FORMAT_DOC = SCENARIOS.parent / "docs" / "scenario-format.md"


def test_format_doc_is_versioned_with_the_reader():
    """The page names the package version and the format version its reader reads."""
    import collideworld
    from collideworld.scenario import FORMAT_VERSION

    first = FORMAT_DOC.read_text(encoding="utf-8").split("\n\n")[1]
    assert f"collideworld {collideworld.__version__} reads it" in first
    assert f"reads format version {FORMAT_VERSION}." in first


def test_format_doc_example_replays(tmp_path):
    """The small file on the page is valid and its expectations hold: each pair
    decided by hand from the geometry (unit discs at (0, 1) and (1.5, 1) overlap,
    a disc at height 1 touches y <= 0, one moved to (4, 3) touches nothing)."""
    text = FORMAT_DOC.read_text(encoding="utf-8")
    block = text.split("## A small file")[1].split("```json\n")[1].split("```")[0]
    path = tmp_path / "example.jsonl"
    path.write_text(block, encoding="utf-8")
    report = replay(path)
    assert report.ok, report.format_first_mismatch()
    assert (report.frames, report.frames_checked) == (4, 4)


def test_repository_never_points_at_the_shared_folder():
    root = SCENARIOS.parent
    needle = "shared/" + "scenario-format"  # spelt in two parts so this file does not match itself
    for pattern in ("*.md", "**/*.py", "docs/*.md", "scenarios/*.md"):
        for path in root.glob(pattern):
            if ".git" in path.parts or "build" in path.parts:
                continue
            assert needle not in path.read_text(encoding="utf-8", errors="replace"), path


# --------------------------------------------------------------------------
# the generators
# --------------------------------------------------------------------------


def test_generators_never_import_collideworld():
    """The expectations must come from methods that share no code with the library."""
    import ast

    sources = [SCENARIOS / "generate.py", *sorted((SCENARIOS / "generators").glob("*.py"))]
    assert len(sources) >= 12
    for path in sources:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n.split(".")[0] == "collideworld" for n in names), path


def test_regenerating_gives_the_same_bytes(tmp_path):
    """generate.py, run into an empty folder, writes every file of scenarios/ byte for byte."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(SCENARIOS / "generate.py"), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    kept = sorted(p.relative_to(SCENARIOS) for p in SCENARIOS.rglob("*")
                  if p.is_file() and p.suffix in (".jsonl", ".json"))
    assert written == kept
    for rel in written:
        assert (tmp_path / rel).read_bytes() == (SCENARIOS / rel).read_bytes(), rel
