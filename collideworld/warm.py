"""Compile ahead of time: run every compiled kernel a step uses once, on tiny worlds.

Split from :mod:`collideworld.backend` (which chooses the kernels) so that the
backend choice sits below the narrowphase while the warm-up, which drives the
narrowphase and the broadphase, sits above them: the imports run one way.
Compiled code in the world's layers registers its own warm-up step with
:func:`collideworld.backend.register_warm_up`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

from .backend import WARMERS, compiled_available, pool_size
from .errors import InvalidArgumentError

__all__ = ["warm_up"]


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
        Also prepare the kernels of capsules, segments and (3D) convex hulls
        (the step's, and the queries' tests of them).
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
    from .threads import parallel_possible

    for d in sorted(set(wanted)):
        warm_dim(d, every_shape)
        if parallel_possible():
            # the parallel builds too, which a step calls on large batches
            with _parallel_from_the_first_row():
                warm_dim(d)
        for warm in WARMERS:
            warm(d)
        if every_shape:
            # the queries' capsule and hull tests, with the step's kernels of these kinds
            from .queries import warm_up_capsule_hull_queries

            warm_up_capsule_hull_queries(d)
            warm_capsule_contacts(d)


def warm_capsule_contacts(dim: int) -> None:
    """Compile the single and batched pair calls' entry point for capsules, segments, cylinders and cones.

    ``collide()`` and ``collide_many()`` hand such pairs to a second compiled
    entry point (``contact_pair._contact_many_rest``: the capsule row kernels and
    the support-mapping GJK/EPA loop, ~30 s of CPU on a cold cache), which a
    call compiles only when it meets one of these kinds; like the step's
    kernels of these kinds, only ``warm_up(every_shape=True)`` and the full
    build prepare it. One capsule pair compiles it for every dimension.

    Examples
    --------
    >>> warm_capsule_contacts(2)
    """
    from .collide import collide
    from .shapes import Capsule

    zero = (0.0,) * dim
    pose = (zero, 0.0) if dim == 2 else (zero, (1.0, 0.0, 0.0, 0.0))
    capsule = Capsule(zero, (1.0,) + zero[1:], 0.25)
    collide(capsule, pose, capsule, pose, backend="compiled")


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
    from .threads import set_thread_cap, thread_cap

    before = broad.PARALLEL_COPIES, contact_slots.PARALLEL_PAIRS, thread_cap()
    broad.PARALLEL_COPIES = contact_slots.PARALLEL_PAIRS = 0
    set_thread_cap(pool_size())  # an explicit cap: taken even when other processes keep the cores busy
    try:
        yield
    finally:
        broad.PARALLEL_COPIES, contact_slots.PARALLEL_PAIRS, cap = before
        set_thread_cap(cap)


def warm_dim(dim: int, every_shape: bool = False) -> None:
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
