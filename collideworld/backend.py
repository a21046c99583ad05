"""Which kernels run: the compiled (numba) core or the numpy reference.

Every geometry kernel exists twice under one name: the numpy implementation
in :mod:`collideworld.geometry` and its compiled twin in
:mod:`collideworld.geometry.compiled`. Both give the same hit decisions, and
normals and depths equal to rounding; the compiled one is faster. numba is
imported only when the compiled backend is first asked for, so
``import collideworld`` stays cheap; compiled kernels are built on first use
(or loaded from numba's on-disk cache), or ahead of time by :func:`warm_up`.
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Callable

from .errors import InvalidArgumentError

__all__ = ["BACKENDS", "compiled_available", "get_threads", "register_warm_up", "resolve_backend", "set_threads"]

#: The names :func:`resolve_backend` accepts.
BACKENDS = ("auto", "compiled", "numpy")

#: Oldest numba the compiled kernels are written for (pyproject.toml says the same).
_MIN_NUMBA = (0, 60)


@functools.lru_cache(maxsize=1)
def _why_not_compiled() -> str | None:
    """None when the compiled kernels can run, else the reason they cannot (asked once per process)."""
    try:
        numba = importlib.import_module("numba")
    except Exception as exc:  # ImportError, or a broken install failing on import
        return f"numba cannot be imported ({type(exc).__name__}: {exc})"
    try:
        version = tuple(int(p) for p in str(numba.__version__).split(".")[:2])
    except ValueError:
        return f"numba's version {numba.__version__!r} cannot be read"
    if version < _MIN_NUMBA:
        return f"numba {numba.__version__} is older than {'.'.join(map(str, _MIN_NUMBA))}"
    return None


def compiled_available() -> bool:
    """Whether the compiled (numba) kernels can run in this process.

    Imports numba on the first call (about 0.3 s), so ``import collideworld``
    does not have to.

    Returns
    -------
    bool
        True when numba (0.60 or newer) imports.

    Examples
    --------
    >>> isinstance(compiled_available(), bool)
    True
    """
    return _why_not_compiled() is None


_warned = False


def resolve_backend(name: str) -> str:
    """The backend that will run for a requested ``name``: ``"compiled"`` or ``"numpy"``.

    Parameters
    ----------
    name : {"auto", "compiled", "numpy"}
        ``"auto"`` picks the compiled kernels when numba is available and
        they are ready without compiling in this call (see
        ``collideworld.background``: until a background build is loaded,
        ``"numpy"``), else the numpy ones; without numba it warns once per
        process that results are identical but slower. ``"compiled"``
        insists on the compiled kernels (compiled here on first use).

    Returns
    -------
    str
        ``"compiled"`` or ``"numpy"``.

    Raises
    ------
    InvalidArgumentError
        For a name not listed above, or ``"compiled"`` without numba.

    Examples
    --------
    >>> resolve_backend("numpy")
    'numpy'
    >>> resolve_backend("auto") in ("compiled", "numpy")
    True
    >>> resolve_backend("fast")
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidArgumentError: backend must be one of 'auto', 'compiled', 'numpy'; got 'fast'
    """
    global _warned
    if not isinstance(name, str) or name not in BACKENDS:
        raise InvalidArgumentError(
            f"backend must be one of {', '.join(map(repr, BACKENDS))}; got {name!r}")
    if name == "numpy":
        return "numpy"
    why = _why_not_compiled()
    if why is None:
        if name == "auto":
            from .background import compiled_ready

            # until the background build is loaded, numpy answers (the same answers) and nothing compiles
            return "compiled" if compiled_ready() else "numpy"
        return "compiled"
    if name == "compiled":
        raise InvalidArgumentError(
            f"backend='compiled' needs numba>=0.60, but {why}; install numba, or use backend='numpy' or 'auto'")
    if not _warned:
        _warned = True
        warnings.warn(f"collideworld: {why}; using the numpy kernels, whose results are identical "
                      "but slower (install numba>=0.60 for the compiled ones)", RuntimeWarning, stacklevel=2)
    return "numpy"


def set_threads(n: int | None) -> None:
    """Let the compiled core's large batches run on up to ``n`` threads (the default is 1: serial).

    The compiled narrowphase and broadphase can run their large batches on
    several threads (numba's ``prange``) when numba's threading layer is
    thread-safe (``omp`` or ``tbb``), and the batched queries
    (``query_points``, ``query_shapes``, ``raycast_many``) split a batch of
    2,048 probes or more over as many Python threads, under any layer;
    results are the same, bit for bit, on any number of threads. The
    setting is for the whole process.
    ``set_threads(1)`` (the default) keeps every loop serial; ``None`` uses
    every thread of numba's pool. numba's own per-thread count
    (``numba.set_num_threads``) is honoured too: a loop uses the smaller of
    the two. With ``None`` a loop also uses no more threads
    than the cores other processes leave idle (by the 1-minute load
    average): on busy cores, waiting for a descheduled worker thread costs
    far more than a second core gains. An explicit cap is obeyed as given.

    Parameters
    ----------
    n : int or None
        At least 1, at most numba's thread pool (``numba.config.NUMBA_NUM_THREADS``,
        by default the number of cores); None for no cap.

    Raises
    ------
    InvalidArgumentError
        For anything else (nothing changes).

    Examples
    --------
    >>> set_threads(None); get_threads() >= 1
    True
    >>> set_threads(1); get_threads()
    1
    >>> set_threads(0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidArgumentError: set_threads needs None or an int from 1 to the thread pool's size ...
    """
    limit = _pool_size()
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= limit):
        raise InvalidArgumentError(f"set_threads needs None or an int from 1 to the thread pool's size "
                                   f"({limit}); got {n!r}")
    from .threads import set_thread_cap

    set_thread_cap(n)


def get_threads() -> int:
    """Threads a large batch of the compiled step would run on if stepped now from this Python thread.

    The batched queries split a batch over the same count, except that they
    need no thread-safe threading layer (they run on Python threads): under
    numba's ``workqueue`` layer, or in a child forked after parallel loops
    ran, this says 1 while they still use ``set_threads``' count.

    Returns
    -------
    int
        1 when the loops run serially (numba missing, a threading layer that
        is not thread-safe, or a cap of 1), else
        ``min(numba.get_num_threads(), set_threads cap)``; with no cap, at
        most the cores the load average leaves idle.

    Examples
    --------
    >>> get_threads() >= 1
    True
    """
    if not compiled_available():
        return 1
    from .threads import thread_count

    return thread_count()


def pool_size() -> int:
    """numba's thread pool size (1 without numba)."""
    if not compiled_available():
        return 1
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]


_pool_size = pool_size  # the name tests/test_queries_threads.py reads


#: Warm-up steps of compiled code above this layer (which this module may not
#: import), registered by the modules that own that code; each takes the dimension.
WARMERS: list[Callable[[int], None]] = []


def register_warm_up(fn: Callable[[int], None]) -> Callable[[int], None]:
    """Have :func:`warm_up` also call ``fn(dim)`` for each dimension it prepares.

    For compiled code in the world's layers (above this one, so not
    importable from here); ``fn`` compiles it on tiny inputs. Usable as a
    decorator; returns ``fn``.

    Parameters
    ----------
    fn : callable(int) -> None

    Returns
    -------
    callable
        ``fn`` itself.

    Examples
    --------
    >>> seen = []
    >>> hook = register_warm_up(seen.append)
    >>> from collideworld.warm import warm_up
    >>> warm_up(dims=(2,)); seen == ([2] if compiled_available() else [])
    True
    >>> WARMERS.remove(hook)
    """
    WARMERS.append(fn)
    return fn
