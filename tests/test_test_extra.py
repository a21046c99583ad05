"""Every module the suite imports is installed by ``pip install -e ".[test]"``.

The suite compares collideworld with independent oracles (shapely, scipy,
python-fcl, coal). An oracle that is missing must be an error, never a quiet
skip: a test guarded by ``importorskip`` vanishes on a machine where the
oracle was not installed, and the suite passes there having checked less.
So this module reads the imports of everything the suite runs (the tests, the
package's modules whose doctests run, the scripts and examples the tests
start), and fails, naming the module, when one is neither the standard
library, a module of this repository, nor installed by a distribution that
the package's dependencies or its ``test`` extra name.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the test extra installs tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
# What the suite runs: the tests, the package (its doctests), and the scripts and
# examples that tests start in subprocesses.
SCANNED = ("tests", "collideworld", "scenarios", "tools", "examples")


def _normalise(name: str) -> str:
    """A distribution name as PEP 503 compares them: ``Python_FCL`` -> ``python-fcl``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement(text: str) -> tuple[str, set[str]]:
    """``dask[distributed]>=2023.1; python_version < '3.11'`` -> ``("dask", {"distributed"})``."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?", text)
    assert match, f"cannot read the requirement {text!r} in pyproject.toml"
    extras = {e.strip() for e in (match.group(2) or "").split(",") if e.strip()}
    return _normalise(match.group(1)), extras


def _extra_requirements(distribution: str, extra: str) -> set[str]:
    """The distributions that ``distribution[extra]`` adds, from its installed metadata."""
    out = set()
    for text in importlib.metadata.requires(distribution) or []:
        requirement, _, marker = text.partition(";")
        if re.search(r"""extra\s*==\s*["']""" + re.escape(extra) + r"""["']""", marker):
            out.add(_requirement(requirement)[0])
    return out


def installed_by_the_test_extra() -> set[str]:
    """Distributions (normalised names) that ``pip install -e ".[test]"`` asks for by name.

    A requirement with extras (``dask[distributed]``) also brings what that extra
    names, read from the distribution's own metadata.
    """
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    named: set[str] = set()
    for text in project["dependencies"] + project["optional-dependencies"]["test"]:
        name, extras = _requirement(text.partition(";")[0])
        named.add(name)
        for extra in extras:
            named |= _extra_requirements(name, extra)
    return named


def _local_names() -> set[str]:
    """Top-level names that are this repository's own modules or packages."""
    names = {"collideworld", "tests", "conftest"}
    for folder in SCANNED:
        for path in (ROOT / folder).rglob("*"):
            if path.suffix == ".py" or (path.is_dir() and (path / "__init__.py").exists()):
                names.add(path.stem if path.suffix == ".py" else path.name)
    return names


def imported_top_levels(path: Path) -> set[str]:
    """Top-level modules a file imports: statements anywhere in it, and ``import_module("x")`` literals."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None))
              in ("import_module", "importorskip") and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and not node.args[0].value.startswith(".")):
            found.add(node.args[0].value.split(".")[0])
    return found


def _files() -> list[Path]:
    return sorted(p for folder in SCANNED for p in (ROOT / folder).rglob("*.py"))


def test_every_imported_module_is_installed_by_the_test_extra() -> None:
    allowed = installed_by_the_test_extra()
    local = _local_names()
    providers = importlib.metadata.packages_distributions()
    problems = []
    for path in _files():
        for module in sorted(imported_top_levels(path) - local - set(sys.stdlib_module_names) - {"__future__"}):
            given_by = {_normalise(d) for d in providers.get(module, [])}
            if not given_by and _normalise(module) in allowed:
                continue  # named, for other Pythons only (tomli: tomllib before 3.11)
            if not given_by:
                problems.append(f"{path.relative_to(ROOT)} imports {module!r}, which no installed "
                                "distribution provides: name its distribution in the test extra")
            elif not given_by & allowed:
                problems.append(f"{path.relative_to(ROOT)} imports {module!r} (from {', '.join(sorted(given_by))}), "
                                "which is neither a dependency nor in the test extra of pyproject.toml")
    assert not problems, "\n".join(problems)


def test_no_oracle_is_optional() -> None:
    """No ``importorskip`` and no ``except ImportError`` in the tests: a missing module is an error."""
    problems = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "importorskip":
                problems.append(f"{path.relative_to(ROOT)}:{node.lineno}: importorskip")
            if isinstance(node, ast.ExceptHandler) and node.type is not None:
                caught = {n.id for n in ast.walk(node.type) if isinstance(n, ast.Name)}
                if caught & {"ImportError", "ModuleNotFoundError"}:
                    problems.append(f"{path.relative_to(ROOT)}:{node.lineno}: except {', '.join(sorted(caught))}")
    assert not problems, "an oracle must not be optional:\n" + "\n".join(problems)


def test_the_guard_sees_a_missing_module(tmp_path: Path) -> None:
    """The scan reads imports inside functions and ``import_module`` literals, and knows the extra."""
    probe = tmp_path / "probe.py"
    probe.write_text("import os\n\ndef f():\n    import not_a_real_oracle.sub\n"
                     "    from fcl import Box\n    importlib.import_module('shapely.ops')\n", encoding="utf-8")
    assert imported_top_levels(probe) == {"os", "not_a_real_oracle", "fcl", "shapely"}
    allowed = installed_by_the_test_extra()
    assert {"python-fcl", "shapely", "scipy", "pytest", "numpy", "distributed"} <= allowed
    assert "pymunk" not in allowed  # a benchmark peer, in the bench extra only
