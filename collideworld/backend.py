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

import contextlib
import functools
import importlib
import warnings
from collections.abc import Callable, Iterable, Iterator

from .errors import InvalidArgumentError

__all__ = ["BACKENDS", "compiled_available", "get_threads", "register_warm_up", "resolve_backend", "set_threads",
           "warm_up"]

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
    from .geometry.compiled.threads import set_thread_cap

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
    from .geometry.compiled.threads import thread_count

    return thread_count()


def _pool_size() -> int:
    """numba's thread pool size (1 without numba)."""
    if not compiled_available():
        return 1
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]


#: Warm-up steps of compiled code above this layer (which this module may not
#: import), registered by the modules that own that code; each takes the dimension.
_WARMERS: list[Callable[[int], None]] = []


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
    >>> warm_up(dims=(2,)); seen == ([2] if compiled_available() else [])
    True
    >>> _WARMERS.remove(hook)
    """
    _WARMERS.append(fn)
    return fn


def warm_up(dims: Iterable[int] = (2, 3), every_shape: bool = False) -> None:
    """Compile (or load from numba's on-disk cache) every compiled kernel a step uses.

    Call it once, e.g. at start-up, so that no compilation happens inside a
    frame you time. Where the compiled loops may run on several threads
    (after :func:`set_threads` above 1 or None, with a thread-safe
    threading layer and several threads in numba's pool), their parallel
    builds are compiled too: call ``set_threads`` first.
    The first call in a fresh environment compiles (tens of
    seconds); later processes load the cached machine code (well under a
    second). Without numba it does nothing.

    Parameters
    ----------
    dims : iterable of {2, 3}, optional
        The dimensions whose kernels to prepare; both by default.
    every_shape : bool, optional
        Also prepare the kernels of capsules, segments and (3D) convex hulls.
        Off by default because it almost quadruples a cold compile (measured
        17 s -> 64 s for both dimensions); with it, a step over any mix of
        shapes but compounds compiles nothing more.

    Raises
    ------
    InvalidArgumentError
        For a dimension other than 2 or 3, or an ``every_shape`` that is not a bool.

    Examples
    --------
    >>> warm_up(dims=(2,))
    """
    wanted = tuple(dims)
    bad = [d for d in wanted if d not in (2, 3)]
    if bad:
        raise InvalidArgumentError(f"warm_up dims must be 2 or 3; got {wanted!r}")
    if not isinstance(every_shape, bool):
        raise InvalidArgumentError(f"warm_up every_shape must be True or False; got {every_shape!r}")
    if not compiled_available():
        return
    from .geometry.compiled.threads import parallel_possible

    for d in sorted(set(wanted)):
        _warm_dim(d, every_shape)
        if parallel_possible():
            # the parallel builds too, which a step calls on large batches
            with _parallel_from_the_first_row():
                _warm_dim(d)
        for warm in _WARMERS:
            warm(d)


@contextlib.contextmanager
def _parallel_from_the_first_row() -> Iterator[None]:
    """Inside the block the compiled loops take their parallel builds whatever the batch size (for warm_up).

    A step elsewhere meanwhile gets the same results (any thread count gives
    the same bits), only on more threads than its batches need.
    numba's thread count of the calling thread must be above 1 (it is,
    unless ``numba.set_num_threads(1)`` was called there).
    """
    from .broadphase import compiled as broad
    from .geometry.compiled import contact_slots
    from .geometry.compiled.threads import set_thread_cap, thread_cap

    before = broad.PARALLEL_COPIES, contact_slots.PARALLEL_PAIRS, thread_cap()
    broad.PARALLEL_COPIES = contact_slots.PARALLEL_PAIRS = 0
    set_thread_cap(_pool_size())  # an explicit cap: taken even when other processes keep the cores busy
    try:
        yield
    finally:
        broad.PARALLEL_COPIES, contact_slots.PARALLEL_PAIRS, cap = before
        set_thread_cap(cap)


def _warm_dim(dim: int, every_shape: bool = False) -> None:
    """Run every compiled kernel a ``dim``-D step uses once, on a tiny world of every shape kind.

    The capsule, segment and hull kinds only with ``every_shape`` (they almost
    quadruple the cold compile: 17 s -> 64 s measured).

    Going through :func:`~collideworld.narrowphase.contact_pairs_exact` and
    the broadphase's ``overlapping_pairs`` exercises exactly the argument
    types a step passes (one compiled specialisation per kernel), including
    concave polygons split into parts.
    """
    import numpy as np

    from .bodies import BodyStore
    from .broadphase.batched_sweep import BatchedSweep, overlapping_pairs
    from .geometry.compiled import aabb
    from .narrowphase import contact_pairs_exact, manifold_pairs
    from .shapes import Box, Capsule, Circle, ConvexHull, HalfPlane, Plane, Polygon, Segment, Shape, Sphere

    shapes: list[Shape]
    if dim == 2:
        shapes = [HalfPlane((0.0, 1.0), 0.0), Circle(1.0), Box((1.0, 0.5)),
                  Polygon(((0.0, 0.0), (1.0, 0.0), (0.0, 1.0))),
                  Polygon(((0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (1.0, 0.5), (0.0, 2.0)))]  # concave
        if every_shape:
            shapes += [Capsule((0.0, 0.0), (1.0, 0.0), 0.25), Segment((0.0, 0.0), (0.0, 1.0))]
    else:
        shapes = [Plane((0.0, 0.0, 1.0), 0.0), Sphere(1.0), Box((1.0, 0.5, 0.25))]
        if every_shape:
            shapes += [Capsule((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 0.25), Segment((0.0, 0.0, 0.0), (0.0, 1.0, 0.0)),
                       ConvexHull(((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)))]
    store = BodyStore(dim, backend="compiled")  # its set_poses runs the compiled posing
    slots = store.allocate(len(shapes))
    store.set_shapes(slots, shapes)
    n = len(shapes)
    if dim == 2:
        store.set_poses(slots, np.zeros((n, 2)), np.full(n, 0.1))
    else:
        store.set_poses(slots, np.zeros((n, 3)), quaternion=np.tile([1.0, 0.0, 0.0, 0.0], (n, 1)))
    ia, ib = np.triu_indices(n)
    res = contact_pairs_exact(store, slots[ia], slots[ib], backend="compiled")
    # the contact points' kernels too (World(manifolds=True))
    manifold_pairs(store, slots[ia], slots[ib], res.normal, res.depth, backend="compiled")
    # the broadphase's compiled sweep, with and without the static and wanted masks
    lo = np.arange(4 * dim, dtype=np.float64).reshape(4, dim) * 0.5
    overlapping_pairs(lo, lo + 1.0, backend="compiled")
    overlapping_pairs(lo, lo + 1.0, np.array([True, False, True, False]), np.array([False, True, True, False]),
                      backend="compiled")
    # the kept band copies of a quiet step's pairs_touching (built, then repaired)
    sweep = BatchedSweep(dim, backend="compiled")
    sweep.insert_many(np.arange(4), lo, lo + 1.0)
    sweep.pairs_touching([1])
    sweep.update_many([1], lo[1:2] + 0.25, lo[1:2] + 1.25)
    sweep.pairs_touching([1])
    aabb.aabb_ball(*store.ball_rows(slots[1:2]))
    aabb.aabb_box(*store.box_rows(slots[2:3]))
    aabb.aabb_points(np.zeros((1, 3, dim)))
