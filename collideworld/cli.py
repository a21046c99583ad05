"""The ``collideworld`` command: replay, inspect and render scenario files.

Exit status: 0 when everything replayed as expected, 1 when a replay did not
match or a file is invalid (the message names file and line), 2 for a usage
error such as a missing file, a frame number out of range or a missing
optional extra.

Long commands show a progress bar (tqdm) on stderr when stderr is a
terminal, or always with ``--progress``; result lines go to stdout and are
printed through the bar, so the two never garble each other.

Examples
--------
``collideworld replay scenarios/``
    replays every ``*.jsonl``/``*.jsonl.gz`` under ``scenarios/`` (not inside
    a folder named ``invalid``) and prints one row per file.
``collideworld info scene.jsonl``
    dimension, frames, bodies by shape kind, contacts per frame.
``collideworld replay --jobs 4 scenarios/``
    the same with four worker processes: same rows, same order, same exit
    status.
``collideworld replay --scheduler tcp://host:8786 scenarios/``
    the same on a Dask cluster (the ``cluster`` extra).
``collideworld render scene.jsonl --frame 12 -o frame12.png --aabbs``
    draws the world after frame 12 (needs the ``render`` extra).
``collideworld render scene.jsonl --frames 1:200 -o scene.gif``
    an animation of frames 1 to 200.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from .errors import (
    CollideWorldError,
    InvalidArgumentError,
    MissingExtraError,
    ScenarioError,
)

__all__ = ["main", "find_scenarios", "replay_file", "FileResult", "plural"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: How long ``replay --scheduler`` waits for the Dask scheduler to answer.
SCHEDULER_TIMEOUT_SECONDS = 20.0
#: In a serial replay, files larger than this get a bar of their own bytes.
PROGRESS_MIN_BYTES = 4 * 1024 * 1024
_SUFFIXES = (".jsonl", ".jsonl.gz", ".arrows", ".parquet")


class _UsageError(Exception):
    pass


def plural(count: int, word: str, words: str | None = None) -> str:
    """``"1 contact"``, ``"2 contacts"``: a count and the word in the right number.

    Examples
    --------
    >>> plural(1, "contact"), plural(0, "contact"), plural(2, "body", "bodies")
    ('1 contact', '0 contacts', '2 bodies')
    """
    return f"{count} {word if count == 1 else (words or word + 's')}"


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


class _Progress:
    """A tqdm bar on stderr, or nothing; lines are printed through it.

    ``enabled`` is decided once per command: ``--progress`` forces it,
    ``--no-progress`` forbids it, otherwise it is on when stderr is a
    terminal. :meth:`line` prints a result line to ``out`` without breaking
    the bar (tqdm clears it, prints, and redraws it).
    """

    def __init__(self, enabled: bool, out: TextIO, err: TextIO, **bar: Any):
        self.out = out
        self.bar: Any = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(file=err, leave=False, dynamic_ncols=True, **bar)

    def line(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text, file=self.out)
            self.out.flush()
        else:
            print(text, file=self.out, flush=True)

    def update(self, n: float) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


#: Said once on stderr when numba starts compiling: a machine's first run would
#: otherwise sit silent for up to a minute, which looks like a hang.
_COMPILE_NOTICE = ("collideworld: compiling the numba kernels for first use on this machine "
                  "(cached for later runs; this can take a minute)")


@contextlib.contextmanager
def _compile_notice(enabled: bool, err: TextIO) -> Iterator[None]:
    """While inside, print :data:`_COMPILE_NOTICE` on ``err`` when numba first compiles.

    Kernels loaded from numba's on-disk cache compile nothing and say nothing;
    the notice is printed at most once per ``with``.

    Parameters
    ----------
    enabled : bool
        False (or no numba) makes this a no-op.
    err : text stream

    Examples
    --------
    >>> import io
    >>> err = io.StringIO()
    >>> with _compile_notice(False, err):
    ...     pass
    >>> err.getvalue()
    ''
    """
    from .backend import compiled_available

    if not enabled or not compiled_available():
        yield
        return
    from numba.core import event

    said = False

    class _Notice(event.Listener):
        def on_start(self, ev: Any) -> None:
            nonlocal said
            if not said:
                said = True
                print(_COMPILE_NOTICE, file=err, flush=True)

        def on_end(self, ev: Any) -> None:
            pass

    with event.install_listener("numba:compile", _Notice()):
        yield


@contextlib.contextmanager
def _background_notice(enabled: bool, err: TextIO) -> Iterator[None]:
    """While inside, the ``collideworld`` logger's notes on a background build (its start, the switch) go to ``err``.

    Examples
    --------
    >>> import io, logging
    >>> err = io.StringIO()
    >>> with _background_notice(True, err):
    ...     logging.getLogger("collideworld").info("collideworld: a note")
    >>> err.getvalue().splitlines()
    ['collideworld: a note']
    """
    if not enabled:
        yield
        return
    logger = logging.getLogger("collideworld")
    handler = logging.StreamHandler(err)
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler.setLevel(logging.INFO)
    before = logger.level
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(before)


def _cmd_warm_up(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Build every compiled kernel into numba's on-disk cache, and mark it ready for ``backend="auto"``."""
    from .backend import compiled_available
    from .background import build_steps, cache_dir
    from .build import build_into_cache

    if not compiled_available():
        print("collideworld warm-up: numba is not installed; nothing to build (the numpy kernels need none)",
              file=err)
        return EXIT_FAILED
    bar = _Progress(not args.no_progress, out, err, total=len(build_steps()), unit="step", desc="compiling")
    started = [0]

    def progress(label: str) -> None:
        if bar.bar is not None:
            bar.update(1 if started[0] else 0)
            bar.bar.set_description(label)
        started[0] += 1

    try:
        ready = build_into_cache(progress)
        bar.update(1 if started[0] else 0)
    finally:
        bar.close()
    where = cache_dir()
    if ready:
        print(f"collideworld warm-up: the compiled kernels are in {where}", file=out)
        return EXIT_OK
    print("collideworld warm-up: compiled, but numba's cache directory "
          f"({where or 'NUMBA_CACHE_DIR or the package folder'}) is not writable, so later processes compile "
          "again; set NUMBA_CACHE_DIR to a writable folder", file=err)
    return EXIT_FAILED


def _progress_wanted(args: argparse.Namespace, err: TextIO) -> bool:
    if getattr(args, "no_progress", False):
        return False
    if getattr(args, "progress", False):
        return True
    isatty = getattr(err, "isatty", None)
    return bool(isatty and isatty())


# --------------------------------------------------------------------------
# replay
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class FileResult:
    """The outcome of replaying one file, as a row of the ``replay`` table.

    Built in the process that replayed the file (a worker with ``--jobs``)
    and sent back whole, so a parallel run prints exactly what a serial one
    does.

    Attributes
    ----------
    path : str
    status : str
        ``"ok"``, ``"MISMATCH"``, ``"INVALID"`` or ``"ERROR"``.
    dim, frames, checked : str
        Table cells (``"-"`` when the file did not replay).
    seconds : float
    mismatched : int
        Frames that did not match.
    detail : str
        The explanation printed after the table ("" when ok).

    Examples
    --------
    >>> r = FileResult("a.jsonl", "MISMATCH", "2", "10", "10", 0.5, 1, "MISMATCH a.jsonl:3: ...")
    >>> r.result, r.failed
    ('MISMATCH (1 frame)', True)
    """

    path: str
    status: str
    dim: str
    frames: str
    checked: str
    seconds: float
    mismatched: int = 0
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.status != "ok"

    @property
    def result(self) -> str:
        if self.status == "MISMATCH":
            return f"MISMATCH ({plural(self.mismatched, 'frame')})"
        return self.status


def replay_file(path: str, ignore_truncated_tail: bool = False, max_pairs: int = 20,
                limits: dict[str, int] | None = None, progress: bool = False, backend: str = "auto") -> FileResult:
    """Replay one file and describe the outcome; never raises for a bad file.

    The unit of work of ``collideworld replay``, run in a worker process with
    ``--jobs``. An invalid file is ``INVALID``; any other error (a world
    that rejects the file, a bug) is ``ERROR`` with its message.

    Parameters
    ----------
    path : str
    ignore_truncated_tail : bool
    max_pairs : int
        Pairs listed per kind of difference in a mismatch's detail.
    limits : dict, optional
        Reader limits (``max_frames=...``).
    progress : bool
        Show the file's own byte bar on stderr.
    backend : {"auto", "compiled", "numpy"}
        The World's backend.

    Returns
    -------
    FileResult

    Examples
    --------
    >>> import os, tempfile
    >>> from collideworld.scenario import ScenarioWriter
    >>> path = os.path.join(tempfile.mkdtemp(), "empty.jsonl")
    >>> with ScenarioWriter(path, dim=2) as w:
    ...     w.write_frame(expect=[])
    >>> r = replay_file(path)
    >>> r.status, r.frames, r.checked
    ('ok', '1', '1')
    """
    import functools

    from .scenario.replay import mentions_points, replay
    from .scenario.source import ReaderLimits
    from .world import World

    started = time.perf_counter()
    reader_limits: Any = limits or {}
    try:
        # contact points to check: the world computes them, as replay()'s own default world does
        points = mentions_points(os.fspath(path), ReaderLimits(**reader_limits))
        report = replay(path, functools.partial(World, backend=backend, manifolds=points), progress=progress,
                        ignore_truncated_tail=ignore_truncated_tail, **reader_limits)
    except ScenarioError as exc:
        return FileResult(path, "INVALID", "-", "-", "-", time.perf_counter() - started,
                          detail=f"INVALID {exc}")
    except Exception as exc:  # a bug must not stop the other files: report it as this file's result
        where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        at = f" (at {os.path.basename(where.filename)}:{where.lineno})" if where else ""
        kind = "" if isinstance(exc, CollideWorldError) else f"{type(exc).__name__}: "
        return FileResult(path, "ERROR", "-", "-", "-", time.perf_counter() - started,
                          detail=f"ERROR {path}: {kind}{exc}{'' if kind == '' else at}")
    if report.ok:
        return FileResult(path, "ok", str(report.header.dim), str(report.frames),
                          str(report.frames_checked), report.seconds)
    return FileResult(path, "MISMATCH", str(report.header.dim), str(report.frames),
                      str(report.frames_checked), report.seconds, report.mismatch_count,
                      "MISMATCH " + report.format_first_mismatch(limit=max_pairs))


def _serial_results(files: list[str], job: Callable[..., FileResult], options: dict[str, Any],
                    byte_bars: bool) -> Iterator[FileResult]:
    for path in files:
        big = byte_bars and os.path.getsize(path) >= PROGRESS_MIN_BYTES
        yield job(path, progress=big, **options)


def _parallel_results(files: list[str], jobs: int, job: Callable[..., FileResult],
                      options: dict[str, Any]) -> Iterator[FileResult]:
    """Results in the order of ``files``, each yielded as soon as it and all
    before it are done. A worker that dies (killed, out of memory) breaks the
    pool: every file it left unfinished is then replayed again in a fresh
    process of its own, so only the file that kills its worker is reported
    as ERROR."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    pool = ProcessPoolExecutor(max_workers=jobs)
    try:
        futures = [pool.submit(job, path, **options) for path in files]
        for path, future in zip(files, futures, strict=True):
            try:
                yield future.result()
            except BrokenProcessPool:
                yield _isolated(path, job, options)
            except Exception as exc:  # the result could not be sent back
                yield FileResult(path, "ERROR", "-", "-", "-", 0.0,
                                 detail=f"ERROR {path}: worker failed: {type(exc).__name__}: {exc}")
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _cluster_results(files: list[str], address: str, job: Callable[..., FileResult],
                     options: dict[str, Any]) -> Iterator[FileResult]:
    """As :func:`_parallel_results`, on a Dask cluster (the ``cluster`` extra).

    The workers open the files by the paths given here, so they must see the
    same file system. A task whose worker keeps dying (Dask retries it on
    another worker, then gives up with ``KilledWorker``) or that raises is
    reported as that file's ERROR row.
    """
    import importlib

    try:
        # Any: the cluster extra is optional, so its types are not checked here
        distributed: Any = importlib.import_module("distributed")
    except ImportError:
        raise MissingExtraError("--scheduler needs dask.distributed: "
                                "pip install 'collideworld[cluster]'") from None
    try:
        client = distributed.Client(address, timeout=SCHEDULER_TIMEOUT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise _UsageError(f"cannot connect to the Dask scheduler at {address}: {exc}") from None
    try:
        futures = [client.submit(job, path, pure=False, **options) for path in files]
        for path, future in zip(files, futures, strict=True):
            try:
                yield future.result()
            except Exception as exc:  # KilledWorker, or the task raised
                yield FileResult(path, "ERROR", "-", "-", "-", 0.0,
                                 detail=f"ERROR {path}: worker failed: {type(exc).__name__}: {exc}")
    finally:
        client.close()


def _isolated(path: str, job: Callable[..., FileResult], options: dict[str, Any]) -> FileResult:
    """Replay one file in a process of its own; its death is this file's ERROR."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=1) as pool:
        try:
            return pool.submit(job, path, **options).result()
        except BrokenProcessPool:
            return FileResult(path, "ERROR", "-", "-", "-", time.perf_counter() - started,
                              detail=f"ERROR {path}: the worker process replaying it died "
                                     "(killed, or out of memory)")
        except Exception as exc:  # the result could not be sent back
            return FileResult(path, "ERROR", "-", "-", "-", time.perf_counter() - started,
                              detail=f"ERROR {path}: worker failed: {type(exc).__name__}: {exc}")


def _cmd_replay(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    files = find_scenarios(args.paths)
    if not files:
        raise _UsageError(f"no scenario files (*.jsonl, *.jsonl.gz) in {', '.join(args.paths)}")
    options: dict[str, Any] = {"ignore_truncated_tail": args.ignore_truncated_tail,
                               "max_pairs": args.max_pairs, "limits": _limits(args), "backend": args.backend}
    job = replay_file  # looked up here, so a test may swap in a failing worker
    show = _progress_wanted(args, err)
    # Columns: every width but the file's and the result's is bounded, so rows
    # can be printed as they come and still line up.
    width = max(len("file"), *(len(p) for p in files))
    header = ["file".ljust(width), "dim", "frames".rjust(9), "checked".rjust(9), "time".rjust(9),
              "result"]
    progress = _Progress(show and len(files) > 1, out, err, total=len(files), unit="file",
                         desc="replay")
    printed_header = False
    details: list[str] = []
    failed = 0
    try:
        if args.scheduler is not None:
            results = _cluster_results(files, args.scheduler, job, options)
        elif args.jobs > 1 and len(files) > 1:
            results = _parallel_results(files, args.jobs, job, options)
        else:
            results = _serial_results(files, job, options, byte_bars=show)
        for r in results:
            progress.update(1)
            failed += r.failed
            if r.detail:
                details.append(r.detail)
            if args.quiet and not r.failed:
                continue
            if not printed_header:
                progress.line("  ".join(header))
                progress.line("  ".join("-" * len(h) for h in header))
                printed_header = True
            progress.line("  ".join([r.path.ljust(width), r.dim.rjust(3), r.frames.rjust(9),
                                     r.checked.rjust(9), f"{r.seconds:.2f}s".rjust(9), r.result]))
    finally:
        progress.close()
    for text in details:
        print("", file=out)
        print(text, file=out)
    if not args.quiet:
        print(f"\n{plural(len(files), 'file')}, {len(files) - failed} ok, {failed} failed", file=out)
    return EXIT_FAILED if failed else EXIT_OK


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
    size = os.path.getsize(path)
    progress = _Progress(_progress_wanted(args, err), out, err, total=size, unit="B",
                         unit_scale=True, desc="info")
    done = 0
    redraw = 0.0
    try:
        with scenario.frames() as stream:
            for frame in stream:
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
                # By the clock, not every so many frames: a recorded frame can be
                # 200 kB, and a file of 50 such frames would never move the bar.
                if progress.bar is not None and time.monotonic() >= redraw:
                    now = stream.bytes_read
                    progress.update(now - done)
                    done = now
                    redraw = time.monotonic() + 0.1
    finally:
        progress.close()
    lines = [
        f"file:          {path} ({size:,} {'byte' if size == 1 else 'bytes'})",
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


def _frame_range(text: str) -> tuple[int, int, int]:
    """``A:B`` or ``A:B:S``: frames A to B inclusive, every S-th (1-based numbers)."""
    parts = text.split(":")
    try:
        if len(parts) not in (2, 3):
            raise ValueError
        start = int(parts[0]) if parts[0] else 1
        stop = int(parts[1]) if parts[1] else sys.maxsize
        step = int(parts[2]) if len(parts) == 3 and parts[2] else 1
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected START:STOP or START:STOP:STEP (frame numbers), got {text!r}") from None
    if start < 0 or stop < max(start, 1) or step < 1:
        raise argparse.ArgumentTypeError(
            f"expected 0 <= START <= STOP and STEP >= 1, got {text!r}")
    return max(start, 1), stop, step


def _crop(text: str) -> tuple[float, float, float, float]:
    try:
        x0, y0, x1, y1 = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected x0,y0,x1,y1 (four numbers), got {text!r}") from None
    if not (x0 < x1 and y0 < y1) or not all(map(lambda v: abs(v) < float("inf"), (x0, y0, x1, y1))):
        raise argparse.ArgumentTypeError(f"expected finite x0 < x1 and y0 < y1, got {text!r}")
    return x0, y0, x1, y1


def _zoom(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a zoom factor > 0, got {text!r}")
    return value


def _cmd_render(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .render import render_animation, render_frame

    _check_one_file(args.path)
    if args.frames is not None and args.frame is not None:
        raise _UsageError("give --frame N (one picture) or --frames A:B (an animation), not both")
    ids = None if args.ids is None else [i for i in args.ids.split(",") if i]
    target = args.frame if args.frames is None else min(args.frames[1], 2**62)
    progress = _Progress(_progress_wanted(args, err), out, err, unit="frame", desc="render",
                         total=target if target is not None and target < 2**62 else None)
    common: dict[str, Any] = {"aabbs": args.aabbs, "crop": args.crop, "ids": ids, "zoom": args.zoom,
                              "ignore_truncated_tail": args.ignore_truncated_tail,
                              "on_frame": (lambda n: progress.update(1)) if progress.bar is not None else None}
    try:
        if args.frames is None:
            info = render_frame(args.path, frame=args.frame, output=args.output, **common, **_limits(args))
        else:
            info = render_animation(args.path, frames=args.frames, output=args.output, fps=args.fps,
                                    **common, **_limits(args))
    finally:
        progress.close()
    what = (f"frame {info.frame}" if info.images == 1
            else f"{plural(info.images, 'frame')}, {info.first_frame} to {info.frame}")
    print(f"wrote {args.output} ({what}, {plural(info.bodies, 'body', 'bodies')}, "
          f"{plural(info.contacts, 'contact')})", file=out)
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


def _add_common_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ignore-truncated-tail", action="store_true",
                   help="stop quietly at a truncated last line (a recording that was cut off)")
    p.add_argument("--max-frames", type=_positive_int, metavar="N",
                   help="reject a file with more than N frames (default 10,000,000)")
    p.add_argument("--max-bodies", type=_positive_int, metavar="N",
                   help="reject a file with more than N bodies alive at once (default 1,000,000; "
                        "each part of a compound counts as a body)")
    p.add_argument("--max-part-pairs", type=_positive_int, metavar="N",
                   help="reject a file whose alive compounds could make more than N pairs of parts "
                        "beyond one per pair of bodies (default 10,000,000)")
    bar = p.add_mutually_exclusive_group()
    bar.add_argument("--progress", action="store_true",
                     help="show a progress bar on stderr even when it is not a terminal")
    bar.add_argument("--no-progress", action="store_true", help="never show a progress bar")


def _limits(args: argparse.Namespace) -> Any:
    """The reader limits given on the command line (the others keep their defaults),
    as keyword arguments of ``read_scenario`` (typed Any: mypy cannot see the keys)."""
    return {key: value for key in ("max_frames", "max_bodies", "max_part_pairs")
            if (value := getattr(args, key, None)) is not None}


def _cmd_convert(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .scenario.arrow import convert

    _check_one_file(args.source)
    for path in (args.source, args.target):
        if not path.endswith(_SUFFIXES):
            raise _UsageError(f"{path}: the form is told by the suffix, one of {', '.join(_SUFFIXES)}")
    frames = convert(args.source, args.target)
    print(f"{args.target}: {plural(frames, 'frame')} from {args.source}", file=out)
    return EXIT_OK


def _parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="collideworld",
        description="Replay, inspect and render collideworld scenario files.",
        epilog="exit status: 0 ok, 1 mismatch or invalid file, 2 usage error (e.g. missing file)",
    )
    parser.add_argument("--version", action="version", version=f"collideworld {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("replay", help="replay scenario files and check their expectations")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="scenario files or folders (searched for *.jsonl, *.jsonl.gz, *.arrows and *.parquet, "
                        "skipping folders named 'invalid')")
    p.add_argument("--backend", choices=("auto", "compiled", "numpy"), default="auto",
                   help="the World's kernels: compiled (numba), numpy, or auto (compiled when numba imports)")
    p.add_argument("-j", "--jobs", type=_positive_int, default=1, metavar="N",
                   help="replay N files at a time in worker processes (default 1); "
                        "rows, their order and the exit status are those of a serial run")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="replay on a Dask cluster (e.g. tcp://10.0.0.5:8786; needs "
                        "pip install 'collideworld[cluster]'); its workers must see the same paths")
    p.add_argument("-q", "--quiet", action="store_true", help="print only failures")
    p.add_argument("--max-pairs", type=_positive_int, default=20, metavar="N",
                   help="list at most N pairs per kind of difference (default 20)")
    _add_common_options(p)
    p.set_defaults(func=_cmd_replay)

    p = sub.add_parser("convert", help="copy a scenario between the text form (.jsonl, .jsonl.gz) and the "
                                       "Arrow form (.arrows, .parquet; needs pip install 'collideworld[arrow]')")
    p.add_argument("source", metavar="IN")
    p.add_argument("target", metavar="OUT", help="the form from the suffix")
    p.set_defaults(func=_cmd_convert)

    p = sub.add_parser("info", help="summarise a scenario file")
    p.add_argument("path", metavar="PATH")
    _add_common_options(p)
    p.set_defaults(func=_cmd_info)

    p = sub.add_parser("render", help="draw the world after one frame, or an animation of many "
                                      "(needs: pip install 'collideworld[render]')")
    p.add_argument("path", metavar="PATH")
    p.add_argument("--frame", type=_positive_int, default=None, metavar="N",
                   help="frame number, 1-based (frame N is line N+1); default the last frame")
    p.add_argument("--frames", type=_frame_range, default=None, metavar="A:B[:S]",
                   help="an animation of frames A to B (every S-th); write it to a .gif")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="file to write (format from the suffix: .png, .svg, .pdf; .gif for --frames)")
    p.add_argument("--aabbs", action="store_true", help="also draw axis-aligned bounding boxes")
    p.add_argument("--crop", type=_crop, default=None, metavar="x0,y0,x1,y1",
                   help="show only this rectangle of the world (write --crop=-1,... when x0 is "
                        "negative; 3D: of the top view, the side "
                        "view keeps x0..x1)")
    p.add_argument("--ids", default=None, metavar="a,b,c",
                   help="draw only these bodies (and their contacts), framed to fit")
    p.add_argument("--zoom", type=_zoom, default=1.0, metavar="F",
                   help="magnify the view F times about its centre (default 1)")
    p.add_argument("--fps", type=_positive_int, default=10, metavar="N",
                   help="frames per second of an animation (default 10)")
    _add_common_options(p)
    p.set_defaults(func=_cmd_render)

    p = sub.add_parser("warm-up", help="compile every kernel into numba's on-disk cache now (NUMBA_CACHE_DIR), "
                                       "e.g. in a container image's build step")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_warm_up)
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
    # stderr, terminal or not: a log or a CI job that sits silent for a minute looks hung too
    notice = getattr(args, "backend", "auto") != "numpy"
    try:
        with _compile_notice(notice, err), _background_notice(notice, err):
            return int(args.func(args, out, err))
    except (_UsageError, MissingExtraError, InvalidArgumentError) as exc:
        # InvalidArgumentError: e.g. a frame number out of range, an unknown --ids id
        print(f"collideworld {args.command}: error: {exc}", file=err)
        return EXIT_USAGE
    except ScenarioError as exc:
        print(f"collideworld {args.command}: invalid scenario: {exc}", file=err)
        return EXIT_FAILED
    except (CollideWorldError, OSError) as exc:
        print(f"collideworld {args.command}: error: {exc}", file=err)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("interrupted", file=err)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
