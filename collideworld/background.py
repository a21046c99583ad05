"""The compiled kernels built in the background, so that no call under ``backend="auto"`` waits for the compiler.

On a machine whose numba cache does not hold the kernels yet, a first call
would compile them for tens of seconds. Instead, ``backend="auto"`` answers
with the numpy kernels (the same answers: the suite's differential tests
hold the two backends to it) while one separate, low-priority process
(``os.nice`` 10, or ``COLLIDEWORLD_BUILD_NICE``; the *builder*,
:func:`collideworld.build.main`) compiles every kernel into
numba's on-disk cache. When it is done, a thread of each waiting process
loads the kernels from the cache, and then worlds switch to them at a step
boundary (``World.step`` asks :func:`compiled_ready`).

- One builder per cache directory: it holds an exclusive ``fcntl`` lock on
  ``collideworld-build.lock`` there while it builds, so ten processes that
  start at once build once. A builder that dies releases the lock with its
  process, and the next process to ask starts another.
- No broken cache: numba writes each index and data file to a temporary
  name and renames it into place (``numba.core.caching._CacheFile``), so a
  killed builder leaves whole entries or none, and an index entry whose data
  file is missing is compiled again, not loaded. The builder's last act is
  to write the *ready marker* (``collideworld-ready-<stamp>``, again by
  rename); only the marker makes processes load from the cache. Its stamp
  covers the Python, numba and collideworld versions and every source
  file's size and modification time, so an edited or upgraded package
  builds again.
- The cache directory is numba's: ``NUMBA_CACHE_DIR`` when set, else the
  package's ``__pycache__``. When that is not writable (numba then caches
  elsewhere, per user), or when the environment variable
  ``COLLIDEWORLD_BACKGROUND_BUILD`` is ``0``, there is no builder:
  ``backend="auto"`` compiles in the foreground on first use, as
  ``backend="compiled"`` always does.

The library logs on the ``collideworld`` logger once when it starts a
builder and once when the first world switches.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable

__all__ = ["ENV_BACKGROUND_BUILD", "ENV_BUILD_NICE", "ENV_BUILD_STEPS", "background_enabled", "build_stamp",
           "cache_dir", "compiled_ready"]

#: Environment variable: ``0`` (or ``false``, ``no``, ``off``) turns the background builder off.
ENV_BACKGROUND_BUILD = "COLLIDEWORLD_BACKGROUND_BUILD"

#: Environment variable: build only the steps whose label holds one of these comma-separated words (tests).
ENV_BUILD_STEPS = "COLLIDEWORLD_BUILD_STEPS"

#: Environment variable: the builder's ``os.nice`` increment, 0 to 19 (default 10).
ENV_BUILD_NICE = "COLLIDEWORLD_BUILD_NICE"

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_LOCK_NAME = "collideworld-build.lock"

log = logging.getLogger("collideworld")

#: What a full build runs: ``(label, fn)`` steps, registered by :mod:`collideworld.build` (a layer above).
_BUILD_STEPS: list[Callable[[], list[tuple[str, Callable[[], None]]]]] = []


def register_build_steps(fn: Callable[[], list[tuple[str, Callable[[], None]]]]) -> None:
    """Have a full build (the builder, and the in-process load) run the steps ``fn()`` returns."""
    _BUILD_STEPS.append(fn)


def build_steps() -> list[tuple[str, Callable[[], None]]]:
    """Every step of a full build, in order: ``(label, fn)``."""
    return [step for fn in _BUILD_STEPS for step in fn()]


def background_enabled() -> bool:
    """False when ``COLLIDEWORLD_BACKGROUND_BUILD`` says ``0``, ``false``, ``no`` or ``off``.

    Examples
    --------
    >>> import os
    >>> background_enabled() == (os.environ.get("COLLIDEWORLD_BACKGROUND_BUILD", "1") != "0")
    True
    """
    return os.environ.get(ENV_BACKGROUND_BUILD, "1").strip().lower() not in ("0", "false", "no", "off")


@functools.lru_cache(maxsize=1)
def cache_dir() -> str | None:
    """The directory numba caches this package's kernels in, if this process can write to it, else None."""
    import numba

    where = str(numba.config.CACHE_DIR or "") or os.path.join(_PACKAGE_DIR, "__pycache__")  # type: ignore[attr-defined]
    try:
        os.makedirs(where, exist_ok=True)
    except OSError:
        return None
    return where if os.access(where, os.W_OK | os.X_OK) else None


@functools.lru_cache(maxsize=1)
def build_stamp() -> str:
    """A digest that changes whenever a cached kernel could: interpreter, numba, every source file."""
    import numba

    partial = os.environ.get(ENV_BUILD_STEPS, "")
    h = hashlib.sha256(f"{sys.version}|{sys.executable}|{numba.__version__}|{partial}".encode())
    for root, dirs, files in os.walk(_PACKAGE_DIR):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                st = os.stat(path)
                h.update(f"{os.path.relpath(path, _PACKAGE_DIR)}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:20]


def marker_path(where: str) -> str:
    """The ready marker of a full build of this package's sources in the cache directory ``where``."""
    return os.path.join(where, f"collideworld-ready-{build_stamp()}")


def lock_path(where: str) -> str:
    """The builders' lock file in the cache directory ``where``."""
    return os.path.join(where, _LOCK_NAME)


def mark_ready(where: str) -> None:
    """Write the ready marker (by rename: a reader sees it whole or not at all)."""
    fd, tmp = tempfile.mkstemp(prefix=".collideworld-ready-", dir=where)
    with os.fdopen(fd, "w") as f:
        f.write(f"built {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())} by pid {os.getpid()}\n")
    os.replace(tmp, marker_path(where))


def lock_is_held(where: str) -> bool:
    """Whether a builder holds the lock of ``where`` now."""
    import fcntl

    try:
        fd = os.open(lock_path(where), os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # closing drops the lock if we took it
    return False


class _State:
    """This process's view of the build: one per process, advanced under ``lock``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.phase = "new"  # new -> building -> loading -> loaded; "foreground" (no builder); "failed"
        self.where: str | None = None
        self.builder: subprocess.Popen[bytes] | None = None
        self.spawned = 0
        self.next_poll = 0.0
        self.switched = False


_STATE = _State()


def _forget_in_child() -> None:
    # a forked child (replay -j) has neither the parent's loader thread nor its builder: it looks afresh
    global _STATE
    _STATE = _State()


os.register_at_fork(after_in_child=_forget_in_child)

#: Seconds between two looks at the cache directory while a builder runs.
POLL_SECONDS = 0.25
#: Builders one process starts at most (a builder that keeps dying must not be restarted forever).
MAX_SPAWNS = 3


def compiled_ready() -> bool:
    """Whether ``backend="auto"`` may run the compiled kernels in this process now.

    Returns
    -------
    bool
        True: they are loaded (or there is no builder: compile in the
        foreground). False: not yet, answer with numpy; a builder runs
        (started now if none did), or this process is loading the built
        kernels in a thread (or the builder failed :data:`MAX_SPAWNS` times).
        Only asked when numba imports.

    Examples
    --------
    >>> isinstance(compiled_ready(), bool)
    True
    """
    st = _STATE
    if st.phase in ("loaded", "foreground"):
        return True
    if st.phase == "failed":
        return False
    with st.lock:
        _advance(st)
        return st.phase in ("loaded", "foreground")


def _advance(st: _State) -> None:
    now = time.monotonic()
    if st.phase == "new":
        st.where = cache_dir() if background_enabled() and sys.platform != "win32" else None
        if st.where is None:
            st.phase = "foreground"
            return
        st.phase = "building"
        st.next_poll = 0.0
    if st.phase != "building" or now < st.next_poll:
        return
    st.next_poll = now + POLL_SECONDS
    where = st.where
    assert where is not None
    if st.builder is not None and st.builder.poll() is not None:
        st.builder = None  # reaped
    if os.path.exists(marker_path(where)):
        st.phase = "loading"
        threading.Thread(target=_load, args=(st,), name="collideworld-load", daemon=True).start()
        return
    if st.builder is None and not lock_is_held(where):
        if st.spawned >= MAX_SPAWNS:
            log.warning("collideworld: the background build of the compiled kernels failed %d times; "
                        "backend='auto' keeps the numpy kernels in this process", st.spawned)
            st.phase = "failed"
            return
        _spawn(st, where)


def _spawn(st: _State, where: str) -> None:
    env = dict(os.environ)
    # the builder imports this very package, wherever it was imported from
    parent = os.path.dirname(_PACKAGE_DIR)
    env["PYTHONPATH"] = parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    code = "import sys, collideworld.build as b; sys.exit(b.main(['--background']))"
    # its errors, if any, where a person looking at the cache finds them
    with open(os.path.join(where, "collideworld-build.err"), "ab") as errors:
        st.builder = subprocess.Popen([sys.executable, "-c", code], env=env, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=errors, start_new_session=True,
                                      close_fds=True)
    st.spawned += 1
    if st.spawned == 1:
        log.info("collideworld: building the compiled kernels in the background (pid %d, cache %s); "
                 "the numpy kernels answer meanwhile", st.builder.pid, where)


def _load(st: _State) -> None:
    """Load every built kernel from the cache (a thread): nothing compiles unless the cache lacks an entry."""
    try:
        for _label, step in build_steps():
            step()
    except Exception:  # pragma: no cover - a kernel that fails to load is compiled on use instead
        log.exception("collideworld: loading the compiled kernels failed; they compile on first use instead")
    st.phase = "loaded"


def note_switch(what: str) -> None:
    """Log, once per process, that a world switched to the compiled kernels."""
    st = _STATE
    if not st.switched:
        st.switched = True
        log.info("collideworld: the compiled kernels are ready; %s switched to them", what)


def wait(timeout: float | None = None) -> bool:
    """Block until :func:`compiled_ready` (for tests and benchmarks); False on timeout."""
    end = None if timeout is None else time.monotonic() + timeout
    while not compiled_ready():
        if end is not None and time.monotonic() > end:
            return False
        time.sleep(POLL_SECONDS / 2)
    return True
