"""The API reference (docs/) builds with Sphinx without a single warning, and covers the public API.

The build is nitpicky (``-n``) with warnings as errors (``-W``): a docstring
that Sphinx cannot parse, or a cross-reference to an object that was renamed
or removed, fails here. It runs in a subprocess, into a temporary folder, so
nothing is written into the source tree and Sphinx's global registrations
stay out of the other tests (about 5 s).
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"

# The packages whose whole __all__ the reference must document.
PACKAGES = ["collideworld", "collideworld.broadphase", "collideworld.geometry", "collideworld.scenario"]


@pytest.fixture(scope="module")
def built_html(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("docs")
    warnings = out / "warnings.txt"
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-E", "-b", "html",
         "-w", str(warnings), "-d", str(out / "doctrees"), str(DOCS), str(out / "html")],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    text = warnings.read_text() if warnings.exists() else ""
    assert proc.returncode == 0 and not text.strip(), (
        f"sphinx exited with {proc.returncode}; warnings:\n{text}\n{proc.stdout}\n{proc.stderr}")
    return out / "html"


def documented_ids(html: Path) -> set[str]:
    """The anchors of every documented Python object (``id="collideworld...."``)."""
    found: set[str] = set()
    for page in html.rglob("*.html"):
        found.update(re.findall(r'id="(collideworld[\w.]*)"', page.read_text(encoding="utf-8")))
    return found


def test_docs_build_without_warnings(built_html: Path) -> None:
    index = (built_html / "index.html").read_text(encoding="utf-8")
    assert "API reference" in index
    # The Markdown pages the index links to are shipped beside it.
    assert (built_html / "scenario-format.md").exists() and (built_html / "architecture.md").exists()


@pytest.mark.parametrize("package", PACKAGES)
def test_reference_covers_public_api(built_html: Path, package: str) -> None:
    ids = documented_ids(built_html)
    module = importlib.import_module(package)
    missing = []
    for name in module.__all__:
        if name.startswith("__"):
            continue
        obj = getattr(module, name)  # loads the lazy ones (distance, time_of_impact, ...)
        # Documented under the package's name, or under the module that defines it.
        candidates = {f"{package}.{name}"}
        defined_in = getattr(obj, "__module__", None)
        if isinstance(defined_in, str) and defined_in.startswith(package):
            candidates.add(f"{defined_in}.{name}")
        if not candidates & ids and not any(i.startswith(package + ".") and i.endswith("." + name) for i in ids):
            missing.append(name)
    assert not missing, f"{package}: not in the API reference: {missing}"


def test_reference_documents_a_method_and_a_lazy_function(built_html: Path) -> None:
    # Spot checks that members and the module __getattr__ names come through.
    ids = documented_ids(built_html)
    for name in ("collideworld.World.step", "collideworld.World.poses", "collideworld.time_of_impact",
                 "collideworld.check_trajectory", "collideworld.scenario.Recorder.step"):
        assert name in ids, name
