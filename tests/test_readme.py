"""The README's Python examples run, and say what they really return and print.

Every ```python block of README.md is executed statement by statement, in one
namespace per block. Two kinds of claims in the block are checked:

* ``expression  # ... -> literal`` on the expression's last line: the
  expression's value equals the Python literal after ``->``;
* a statement followed by the comment lines ``# prints:`` then ``# <line>``
  ...: the statement printed exactly those lines.

The claims themselves were worked out by hand (see the independent checks at
the end), so this test fails if the library or the README drifts.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely

README = Path(__file__).resolve().parent.parent / "README.md"
_CLAIM = re.compile(r"#[^#]*->\s*(?P<value>.+?)\s*$")


def python_blocks() -> list[tuple[int, str]]:
    """(first line number in README.md, source) of every ```python block."""
    blocks = []
    lines = README.read_text(encoding="utf-8").splitlines()
    start = None
    for number, line in enumerate(lines, start=1):
        if start is None and line.strip() == "```python":
            start = number + 1
        elif start is not None and line.strip() == "```":
            blocks.append((start, "\n".join(lines[start - 1:number - 1]) + "\n"))
            start = None
    return blocks


def printed_claim(lines: list[str], after: int) -> list[str] | None:
    """The lines claimed by a ``# prints:`` comment right after line ``after`` (1-based), if any."""
    if after >= len(lines) or lines[after].strip() != "# prints:":
        return None
    claimed = []
    for line in lines[after + 1:]:
        if not line.startswith("# "):
            break
        claimed.append(line[2:])
    return claimed


def run_block(first_line: int, source: str) -> int:
    """Execute one block, checking its claims; return how many claims were checked."""
    lines = source.splitlines()
    namespace: dict[str, Any] = {"__name__": "readme"}
    checked = 0
    for statement in ast.parse(source).body:
        end = statement.end_lineno or statement.lineno
        where = f"README.md line {first_line + statement.lineno - 1}"
        claim = _CLAIM.search(lines[end - 1])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            if isinstance(statement, ast.Expr):
                value = eval(compile(ast.Expression(statement.value), where, "eval"), namespace)
            else:
                exec(compile(ast.Module([statement], []), where, "exec"), namespace)
        if claim is not None:
            assert isinstance(statement, ast.Expr), f"{where}: a '->' claim on a statement that is not an expression"
            expected = ast.literal_eval(claim.group("value"))
            assert value == expected, f"{where}: the README says {expected!r}, the code returns {value!r}"
            checked += 1
        printed = printed_claim(lines, end)
        if printed is not None:
            got = out.getvalue().splitlines()
            assert got == printed, f"{where}: the README says it prints {printed!r}, it prints {got!r}"
            checked += 1
    return checked


@pytest.mark.parametrize("first_line, source", python_blocks(), ids=lambda v: str(v)[:20])
def test_readme_python_block_runs_as_claimed(first_line: int, source: str) -> None:
    run_block(first_line, source)


def test_readme_claims_are_checked() -> None:
    # Guard against the claim syntax silently not matching (then nothing is checked).
    blocks = python_blocks()
    assert blocks, "README.md has no ```python block"
    assert sum(run_block(first, source) for first, source in blocks) >= 6


def test_readme_placement_claim_independently() -> None:
    # The README's placement test: the box [3, 4] x [0, 1] against the
    # ground y <= 0 and the concave L placed at (3, 0). Shapely (closed sets,
    # like collideworld) decides independently: both touch or overlap it.
    probe = shapely.box(3.0, 0.0, 4.0, 1.0)
    ground = shapely.box(-1e3, -1e3, 1e3, 0.0)
    wall = shapely.Polygon(np.array([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]) + (3, 0))
    crate = shapely.box(-1.0, 0.0, 1.0, 1.0)
    ball = shapely.Point(1.4, 0.5).buffer(0.5, quad_segs=64)
    assert probe.intersects(ground) and probe.intersects(wall)
    assert not probe.intersects(crate) and not probe.intersects(ball)
    # Claimed depth of crate-ball: the crate's right face x = 1 against the
    # ball's leftmost point x = 1.4 - 0.5, by hand 0.1.
    assert 1.0 - (1.4 - 0.5) == pytest.approx(0.1, abs=1e-15)
