"""The ``collideworld`` command: replay, inspect and render scenario files.

Exit status: 0 when everything replayed as expected, 1 when a replay did not
match or a file is invalid (the message names file and line), 2 for a usage
error such as a missing file or a frame number out of range.

Examples
--------
``collideworld replay scenarios/``
    replays every ``*.jsonl``/``*.jsonl.gz`` under ``scenarios/`` (not inside
    a folder named ``invalid``) and prints one row per file.
``collideworld info scene.jsonl``
    dimension, frames, bodies by shape kind, contacts per frame.
``collideworld render scene.jsonl --frame 12 -o frame12.png --aabbs``
    draws the world after frame 12 (needs the ``render`` extra).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import Any, TextIO

from .errors import (
    CollideWorldError,
    InvalidArgumentError,
    MissingExtraError,
    ScenarioError,
)

__all__ = ["main", "find_scenarios"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: Files larger than this get a progress bar (when stderr is a terminal).
PROGRESS_MIN_BYTES = 4 * 1024 * 1024
_SUFFIXES = (".jsonl", ".jsonl.gz")


class _UsageError(Exception):
    pass


def find_scenarios(paths: Sequence[str]) -> list[str]:
    """Expand files and folders into scenario files, in a stable order.

    A folder is searched recursively for ``*.jsonl`` and ``*.jsonl.gz``,
    skipping any folder named ``invalid`` (where deliberately broken files
    live). A file given explicitly is always included.

    Parameters
    ----------
    paths : sequence of str
        Files and folders, in the order wanted.

    Returns
    -------
    list of str
        Each folder's files sorted by path, in the order of ``paths``.

    Raises
    ------
    _UsageError
        A path does not exist.

    Examples
    --------
    >>> import os, tempfile
    >>> root = tempfile.mkdtemp()
    >>> os.mkdir(os.path.join(root, "invalid"))
    >>> for name in ("b.jsonl", "a.jsonl.gz", "notes.txt", os.path.join("invalid", "bad.jsonl")):
    ...     open(os.path.join(root, name), "w").close()
    >>> [os.path.relpath(p, root) for p in find_scenarios([root])]
    ['a.jsonl.gz', 'b.jsonl']
    """
    out: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            found: list[str] = []
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d != "invalid")
                found.extend(os.path.join(root, f) for f in files if f.endswith(_SUFFIXES))
            out.extend(sorted(found))
        elif os.path.exists(path):
            out.append(path)
        else:
            raise _UsageError(f"no such file or directory: {path}")
    return out


def _check_one_file(path: str) -> None:
    """``info`` and ``render`` take one scenario file, not a folder."""
    if os.path.isdir(path):
        raise _UsageError(f"{path} is a directory; this command takes one scenario file "
                          f"(to replay every file in a folder: collideworld replay {path})")
    if not os.path.exists(path):
        raise _UsageError(f"no such file or directory: {path}")


def _table(rows: list[list[str]], out: TextIO, right: AbstractSet[int] = frozenset()) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        print("  ".join(cells).rstrip(), file=out)
        if n == 0:
            print("  ".join("-" * w for w in widths), file=out)


# --------------------------------------------------------------------------
# replay
# --------------------------------------------------------------------------


def _cmd_replay(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .scenario.replay import replay

    files = find_scenarios(args.paths)
    if not files:
        raise _UsageError(f"no scenario files (*.jsonl, *.jsonl.gz) in {', '.join(args.paths)}")
    rows = [["file", "dim", "frames", "checked", "result", "time"]]
    details: list[str] = []
    failed = False
    for path in files:
        show_bar = (not args.no_progress and err.isatty()
                    and os.path.getsize(path) >= PROGRESS_MIN_BYTES)
        started = time.perf_counter()
        try:
            report = replay(path, progress=show_bar, ignore_truncated_tail=args.ignore_truncated_tail,
                            **_limits(args))
        except ScenarioError as exc:
            failed = True
            rows.append([path, "-", "-", "-", "INVALID", f"{time.perf_counter() - started:.2f}s"])
            details.append(f"INVALID {exc}")
            continue
        except CollideWorldError as exc:
            failed = True
            rows.append([path, "-", "-", "-", "ERROR", f"{time.perf_counter() - started:.2f}s"])
            details.append(f"ERROR {path}: {exc}")
            continue
        result = "ok" if report.ok else f"MISMATCH ({report.mismatch_count} frames)"
        rows.append([path, str(report.header.dim), str(report.frames), str(report.frames_checked),
                     result, f"{report.seconds:.2f}s"])
        if not report.ok:
            failed = True
            details.append("MISMATCH " + report.format_first_mismatch(limit=args.max_pairs))
    if not args.quiet or failed:
        _table(rows, out, right={1, 2, 3, 5})
    for text in details:
        print("", file=out)
        print(text, file=out)
    n_bad = sum(1 for r in rows[1:] if r[4] != "ok")
    if not args.quiet:
        print(f"\n{len(files)} file(s), {len(files) - n_bad} ok, {n_bad} failed", file=out)
    return EXIT_FAILED if failed else EXIT_OK


# --------------------------------------------------------------------------
# info
# --------------------------------------------------------------------------


def _cmd_info(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .scenario.reader import read_scenario

    path = args.path
    _check_one_file(path)
    scenario = read_scenario(path, ignore_truncated_tail=args.ignore_truncated_tail, **_limits(args))
    h = scenario.header
    kinds: Counter[str] = Counter()
    alive: dict[object, str] = {}
    max_alive = removes = moves = frames = checked = with_contacts = 0
    contact_counts: list[int] = []  # bounded: one int per checked frame
    n_sum = 0
    n_min: int | None = None
    n_max = 0
    for frame in scenario:
        frames += 1
        for body_id in frame.remove:
            alive.pop(body_id, None)
        removes += len(frame.remove)
        for spec in frame.add:
            kinds[spec.shape.kind] += 1
            alive[spec.id] = spec.shape.kind
        moves += len(frame.move)
        max_alive = max(max_alive, len(alive))
        if frame.expect is not None:
            checked += 1
            n = len(frame.expect)
            n_sum += n
            n_min = n if n_min is None else min(n_min, n)
            n_max = max(n_max, n)
            if len(contact_counts) < 1_000_000:
                contact_counts.append(n)
        if frame.expect_contacts:
            with_contacts += 1
    size = os.path.getsize(path)
    lines = [
        f"file:          {path} ({size:,} bytes)",
        f"name:          {h.name or '-'}",
    ]
    if h.description:
        lines.append(f"description:   {h.description}")
    lines += [
        f"dimension:     {h.dim}D",
        f"tolerance:     {h.tolerance:g}{'' if h.tolerance_given else ' (default)'}",
        f"frames:        {frames}",
        f"bodies added:  {sum(kinds.values())}"
        + (" (" + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) + ")" if kinds else ""),
        f"removed:       {removes}",
        f"moves:         {moves}",
        f"max alive:     {max_alive}",
        f"alive at end:  {len(alive)}",
        f"checked frames: {checked} with expect, {with_contacts} with expect_contacts",
    ]
    if checked:
        contact_counts.sort()
        median = contact_counts[len(contact_counts) // 2]
        lines.append(f"contacts/frame: min {n_min}, mean {n_sum / checked:.2f}, "
                     f"median {median}, max {n_max}")
    else:
        lines.append("contacts/frame: - (no frame has expect)")
    print("\n".join(lines), file=out)
    return EXIT_OK


# --------------------------------------------------------------------------
# render
# --------------------------------------------------------------------------


def _cmd_render(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .render import render_frame

    _check_one_file(args.path)
    info = render_frame(args.path, frame=args.frame, output=args.output, aabbs=args.aabbs,
                        ignore_truncated_tail=args.ignore_truncated_tail, **_limits(args))
    print(f"wrote {args.output} (frame {info.frame}, {info.bodies} bodies, "
          f"{info.contacts} contacts)", file=out)
    return EXIT_OK


# --------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------


def _positive_int(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _add_limit_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-frames", type=_positive_int, metavar="N",
                   help="reject a file with more than N frames (default 10,000,000)")
    p.add_argument("--max-bodies", type=_positive_int, metavar="N",
                   help="reject a file with more than N bodies alive at once (default 1,000,000)")


def _limits(args: argparse.Namespace) -> Any:
    """The reader limits given on the command line (the others keep their defaults),
    as keyword arguments of ``read_scenario`` (typed Any: mypy cannot see the keys)."""
    return {key: value for key in ("max_frames", "max_bodies")
            if (value := getattr(args, key, None)) is not None}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="collideworld",
        description="Replay, inspect and render collideworld scenario files.",
        epilog="exit status: 0 ok, 1 mismatch or invalid file, 2 usage error (e.g. missing file)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("replay", help="replay scenario files and check their expectations")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="scenario files or folders (searched for *.jsonl and *.jsonl.gz, "
                        "skipping folders named 'invalid')")
    p.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    p.add_argument("-q", "--quiet", action="store_true", help="print only failures")
    p.add_argument("--max-pairs", type=int, default=20, metavar="N",
                   help="list at most N pairs per kind of difference (default 20)")
    p.add_argument("--ignore-truncated-tail", action="store_true",
                   help="stop quietly at a truncated last line (a recording that was cut off)")
    _add_limit_options(p)
    p.set_defaults(func=_cmd_replay)

    p = sub.add_parser("info", help="summarise a scenario file")
    p.add_argument("path", metavar="PATH")
    p.add_argument("--ignore-truncated-tail", action="store_true")
    _add_limit_options(p)
    p.set_defaults(func=_cmd_info)

    p = sub.add_parser("render", help="draw the world after one frame to an image "
                                      "(needs: pip install 'collideworld[render]')")
    p.add_argument("path", metavar="PATH")
    p.add_argument("--frame", type=int, default=None, metavar="N",
                   help="frame number, 1-based (frame N is line N+1); default the last frame")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="image file to write (format from the suffix, e.g. .png, .svg)")
    p.add_argument("--aabbs", action="store_true", help="also draw axis-aligned bounding boxes")
    p.add_argument("--ignore-truncated-tail", action="store_true")
    _add_limit_options(p)
    p.set_defaults(func=_cmd_render)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (also used as ``sys.exit``).

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name; default ``sys.argv[1:]``.

    Returns
    -------
    int
        0 ok, 1 mismatch or invalid file, 2 usage error; reports go to
        ``sys.stdout``, errors to ``sys.stderr``.

    Examples
    --------
    >>> import os, tempfile
    >>> from collideworld.scenario import ScenarioWriter
    >>> path = os.path.join(tempfile.mkdtemp(), "empty.jsonl")
    >>> with ScenarioWriter(path, dim=2) as w:
    ...     w.write_frame(expect=[])          # one step of an empty world: no contacts
    >>> main(["replay", "--quiet", path])     # as expected, so nothing to print
    0
    >>> main(["info", path + ".missing"])     # usage error, explained on stderr
    2
    """
    parser = _parser()
    args = parser.parse_args(argv)
    out, err = sys.stdout, sys.stderr
    try:
        return int(args.func(args, out, err))
    except _UsageError as exc:
        print(f"collideworld {args.command}: error: {exc}", file=err)
        return EXIT_USAGE
    except MissingExtraError as exc:
        print(f"collideworld {args.command}: error: {exc}", file=err)
        return EXIT_FAILED
    except ScenarioError as exc:
        print(f"collideworld {args.command}: invalid scenario: {exc}", file=err)
        return EXIT_FAILED
    except InvalidArgumentError as exc:  # e.g. a frame number out of range
        print(f"collideworld {args.command}: error: {exc}", file=err)
        return EXIT_USAGE
    except (CollideWorldError, OSError) as exc:
        print(f"collideworld {args.command}: error: {exc}", file=err)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("interrupted", file=err)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
