#!/usr/bin/env python
"""Long fuzz run of the scenario reader (the generators of tests/test_fuzz_reader.py).

Property, for every input: ``collideworld.scenario.replay`` returns a report
or raises ``ScenarioError`` with a ``path:N:`` message; nothing else, and no
hang. The test suite runs a few hundred inputs; this runs the same generators
round-robin, in fresh random batches, until the time is up, and prints how
many inputs it tried.

Usage (from the repository root)::

    python tools/fuzz_reader.py --seconds 600
    python tools/fuzz_reader.py --seconds 60 --case mutated_real --case extreme_numbers

On a failure hypothesis shrinks the input, prints it, and the script writes
the shrunk file to ``--keep`` (default ``fuzz-failure/``) and exits with 1.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, given, settings  # noqa: E402

from tests.test_fuzz_reader import FUZZ_CASES, check_input  # noqa: E402


def _batch(name, examples, deadline, workdir, tried, outcomes, last):
    """A hypothesis test running ``examples`` inputs of generator ``name``."""

    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck), print_blob=True)
    @given(inp=FUZZ_CASES[name][0])
    def run(inp):
        if time.monotonic() >= deadline:
            return  # out of time: let the batch finish without work
        last["inp"] = inp
        tried[name] += 1
        outcomes[check_input(workdir, inp)] += 1

    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to fuzz (default 60)")
    parser.add_argument("--batch", type=int, default=100, help="inputs per generator per round (default 100)")
    parser.add_argument("--case", action="append", choices=sorted(FUZZ_CASES),
                        help="generator(s) to run (default: all)")
    parser.add_argument("--keep", default="fuzz-failure", help="directory for a failing input")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", RuntimeWarning)  # extreme numbers overflow on purpose

    cases = args.case or list(FUZZ_CASES)
    tried = {name: 0 for name in cases}
    outcomes = {"ok": 0, "error": 0}
    deadline = time.monotonic() + args.seconds
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fuzz_reader_") as tmp:
        workdir = Path(tmp)
        rounds = 0
        while time.monotonic() < deadline:
            rounds += 1
            for name in cases:
                if time.monotonic() >= deadline:
                    break
                last: dict = {}
                run = _batch(name, args.batch, deadline, workdir, tried, outcomes, last)
                try:
                    run()
                except BaseException:
                    keep = Path(args.keep)
                    keep.mkdir(parents=True, exist_ok=True)
                    inp = last.get("inp")
                    if inp is not None:
                        out = keep / f"{name}{inp.suffix}"
                        out.write_bytes(inp.data)
                        print(f"\nFAILED on generator {name!r}; the last input tried is in {out}:\n{inp!r}",
                              file=sys.stderr)
                    raise
    total = sum(tried.values())
    elapsed = time.monotonic() - started
    print(f"fuzz_reader: {total} inputs in {elapsed:.0f} s ({rounds} rounds), "
          f"{outcomes['ok']} replayed, {outcomes['error']} rejected with path:line, 0 failures")
    for name in cases:
        print(f"  {name:20s} {tried[name]}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
