"""Settings for the whole test run (tests/ and the package's doctests).

No background builder (collideworld.background): the suite's processes use
``backend="auto"`` and would each find the kernels unbuilt on a fresh
machine; compiling in the foreground, as before, keeps their answers on the
compiled kernels and starts no extra processes. Tests of the builder turn it
on in their own subprocesses. Export ``COLLIDEWORLD_BACKGROUND_BUILD=1`` to
run the suite with it.
"""

import os
from collections import Counter

import pytest

os.environ.setdefault("COLLIDEWORLD_BACKGROUND_BUILD", "0")

# The files whose time is in a few long tests (their subprocesses compile or load numba's cache, build the
# docs, run mypy), longest first as measured on a fresh clone with an empty cache. pytest-xdist hands out
# one file at a time (--dist loadfile) in the collection's order; by default it first sorts the files by
# their number of tests, which sends these few-test files last (mypy and the stateful world tests ended the
# run on one worker while the other was idle). Handing them out first (longest processing time first, with
# --no-loadscope-reorder in pyproject's addopts), the many short files fill in behind them.
#
# tests/test_compiled_kernels.py starts with its full warm_up() in a subprocess (FIRST_IN_FILE), which fills
# numba's on-disk cache with the step's kernels while the other worker runs files that compile nothing in
# the shared cache (mypy and ruff, Sphinx, the Arrow encoder's cold builds on caches of their own); before,
# the other worker compiled the same kernels at the same time for its own first files, and both paid for
# them. test_background_build.py is not among them: its switch tests compile the step's kernels in the
# worker (259 s of a loaded run when it went fifth, while the warm-up was still compiling them).
LONG_FILES = [
    "tests/test_compiled_kernels.py",
    "tests/test_static_checks.py",
    "tests/test_docs.py",
    "tests/test_scenario_arrow_cold.py",
]
FIRST_IN_FILE = {"tests/test_compiled_kernels.py::test_no_compilation_in_a_step_after_warm_up"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not hasattr(config, "workerinput"):  # only the xdist workers' collection sets the order
        return
    rank = {name: i for i, name in enumerate(LONG_FILES)}
    files = [item.nodeid.split("::", 1)[0] for item in items]
    count = Counter(files)
    # then the rest by their number of tests, as xdist's own reordering would (a stable sort)
    order = sorted(range(len(items)), key=lambda i: (rank.get(files[i], len(rank)), -count[files[i]], files[i],
                                                     items[i].nodeid not in FIRST_IN_FILE))
    items[:] = [items[i] for i in order]
