"""A full build of the compiled kernels into numba's on-disk cache: the background builder and ``collideworld warm-up``.

``collideworld.build.main(["--background"])`` is the builder
:mod:`collideworld.background` starts: at the lowest CPU priority
(``os.nice``), under the cache directory's lock (it waits while another
builder holds it, and exits when the cache is then marked ready), it
runs every step of :func:`full_build_steps` and then writes the ready
marker. ``collideworld warm-up`` runs the same steps in the foreground with
a progress bar.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import Any

from . import background
from .backend import WARMERS, compiled_available, register_warm_up
from .warm import warm_dim

__all__ = ["full_build_steps"]


def _warm_pairs(dim: int) -> None:
    """``collide`` (the one-pair kernel) and the proximity queries (GJK, time of impact) on tiny inputs."""
    from .collide import collide
    from .proximity import check_trajectory, distance, time_of_impact
    from .shapes import Box, Capsule, Circle, ConvexHull, Polygon, Segment, Shape, Sphere

    shapes: list[Shape]
    pose_a: Any
    pose_b: Any
    far: Any
    if dim == 2:
        shapes = [Circle(0.5), Box((0.5, 0.25)), Polygon(((0.0, 0.0), (1.0, 0.0), (0.0, 1.0))),
                  Capsule((0.0, 0.0), (1.0, 0.0), 0.25), Segment((0.0, 0.0), (0.0, 1.0))]
        pose_a, pose_b, far = ((0.0, 0.0), 0.0), ((0.6, 0.1), 0.3), ((5.0, 0.0), 0.0)
    else:
        shapes = [Sphere(0.5), Box((0.5, 0.25, 0.25)), Capsule((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 0.25),
                  ConvexHull(((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)))]
        q = (1.0, 0.0, 0.0, 0.0)
        pose_a, pose_b, far = ((0.0, 0.0, 0.0), q), ((0.6, 0.1, 0.0), q), ((5.0, 0.0, 0.0), q)
    for a in shapes:
        for b in shapes:
            collide(a, pose_a, b, pose_b, backend="compiled")
        distance(a, pose_a, shapes[0], far)
        distance(a, pose_a, shapes[0], pose_b)
        time_of_impact(a, pose_a, pose_a, shapes[0], far, pose_a)
    row = [0.0] * (3 if dim == 2 else 7)
    if dim == 3:
        row[3] = 1.0  # the unit quaternion
    check_trajectory(shapes[0], [row, [5.0, *row[1:]]], [shapes[1]], [[0.6, *row[1:]]])
    _warm_many(dim, shapes, row)


def _warm_many(dim: int, shapes: list[Any], row: list[float]) -> None:
    """The batched pair calls (``collide_many``, ``distance_many``, ``time_of_impact_many``), from lists
    of shapes and from a ``ShapeArray``: once the ready marker is written, their first call compiles
    nothing (an apart, a touching-close and an overlapping row each, so every finishing pass runs)."""
    import numpy as np

    from .collide import ShapeArray, collide_many
    from .proximity import distance_many, time_of_impact_many
    from .shapes import HalfPlane, Plane

    # every kind against every kind, a half-space among them
    kinds = [*shapes, HalfPlane((0.0, 1.0), -1.0) if dim == 2 else Plane((0.0, 0.0, 1.0), -1.0)]
    side_a = [a for a in kinds for _ in kinds]
    side_b = [b for _ in kinds for b in kinds]
    n = len(side_a)
    turn: Any = np.full(n, 0.3) if dim == 2 else np.tile(np.array(row[dim:]), (n, 1))
    here = (np.zeros((n, dim)), turn)
    near = (np.full((n, dim), 0.3), turn)
    far = (np.full((n, dim), 5.0), turn)
    boxes = ShapeArray.boxes(np.full((n, dim), 0.5))
    sides: list[tuple[Any, Any]] = [(side_a, side_b), (boxes, shapes[0])]
    for side, other in sides:  # a ShapeArray pairs with one shape or another
        for at in (near, far):
            collide_many(side, here, other, at, backend="compiled")
            distance_many(side, here, other, at, backend="compiled")
        time_of_impact_many(side, here, here, other, far, here, backend="compiled")


def _warm_capsule_hull_queries(dim: int) -> None:
    """The queries' tests of capsules, segments and hulls (not in ``warm_up()``'s WARMERS: every_shape only)."""
    from .queries import warm_up_capsule_hull_queries

    warm_up_capsule_hull_queries(dim)


def _warm_pose_encoder(dim: int) -> None:
    """The Arrow recorder's compiled pose encoder (the same kernel for either dimension; built with the
    rest so that a recording under ``backend="auto"`` never compiles it in the foreground)."""
    from .scenario.compiled_encoding import warm_up_encoder

    warm_up_encoder()


_warm_pose_encoder.label = "Arrow pose encoder"  # type: ignore[attr-defined]
register_warm_up(_warm_pose_encoder)


def _warm_every_kind_world(dim: int) -> None:
    """A small world of every shape kind, stepped with contact points and queried every way once.

    ``warm_dim`` and the queries' warm-up drive the kernels on the kinds a
    step or a query meets most; the rest (capsule and hull rays cast after
    the walk, cylinder and cone rows, surfaces, rounded shapes) compile here,
    in the background build and ``collideworld warm-up``, so that the first
    world holding them compiles nothing in the foreground.
    """
    import numpy as np

    from .shapes import (
        Box,
        Capsule,
        Chain,
        Circle,
        Compound,
        Cone,
        ConvexHull,
        Cylinder,
        HalfPlane,
        HeightField,
        Plane,
        Polygon,
        Segment,
        Shape,
        Sphere,
        TriangleMesh,
    )
    from .world import World

    shapes: list[Shape]
    if dim == 2:
        triangle = ((0, 0), (1, 0), (0.5, 0.8))
        shapes = [Circle(0.5), Box((0.5, 0.3)), Box((0.4, 0.2), radius=0.1), Polygon(triangle),
                  Polygon(triangle, radius=0.1), Polygon(((0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2))),
                  Capsule((0, 0), (1, 0), 0.2), Segment((0, 0), (0, 1)),
                  Compound([(Circle(0.3), (0, 0)), (Box((0.2, 0.2)), (0.5, 0))]), Chain(((0, 0), (1, 0.2), (2, 0)))]
        ground: Shape = HalfPlane((0.0, 1.0), -1.0)
    else:
        shapes = [Sphere(0.5), Box((0.5, 0.3, 0.2)), Box((0.4, 0.3, 0.2), radius=0.1),
                  Capsule((0, 0, 0), (1, 0, 0), 0.2), Segment((0, 0, 0), (0, 1, 0)),
                  ConvexHull(((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (0.3, 0.3, 0.9))),
                  Cylinder(0.4, 0.5), Cone(0.4, 0.5),
                  Compound([(Sphere(0.3), (0, 0, 0)), (Box((0.2, 0.2, 0.2)), (0.5, 0, 0))]),
                  TriangleMesh(np.array(((0, 0, 0), (2, 0, 0), (0, 2, 0), (2, 2, 0.1))),
                               np.array(((0, 1, 2), (1, 3, 2)))),
                  HeightField(np.array(((0, 0, 0), (0, 0.2, 0), (0, 0, 0))), (1.0, 1.0))]
        ground = Plane((0.0, 0.0, 1.0), -1.0)
    rng = np.random.default_rng(0)
    for manifolds in (False, True):
        world = World(dim=dim, backend="compiled", manifolds=manifolds)
        world.add(ground)
        # enough bodies for the query grid, packed so that every kind meets every other
        ids = [world.add(shapes[i % len(shapes)], position=tuple(rng.uniform(0.0, 6.0, dim))) for i in range(90)]
        world.step()
        moved = rng.uniform(0.0, 6.0, (len(ids), dim))
        if dim == 2:
            world.move_many(ids, positions=moved, angles=rng.uniform(0.0, 6.0, len(ids)))
        else:
            world.move_many(ids, positions=moved)
        world.step()
    points = rng.uniform(0.0, 6.0, (20, dim))
    directions = rng.normal(size=(20, dim))
    at = tuple(float(c) for c in points[0])
    pose: tuple[Any, Any] = (at, 0.3) if dim == 2 else (at, (1.0, 0.0, 0.0, 0.0))
    for probe in shapes[:9]:
        world.query_shape(probe, at, 0.3 if dim == 2 else None)
        world.query_shapes(probe, points)
        world.query_within(probe, pose, 1.0)
    world.query_point(at)
    world.query_points(points)
    world.query_aabb(points[0] - 1.0, points[0] + 1.0)
    for limit in (5.0, np.inf):
        world.raycast(at, directions[0], limit)
        world.raycast_many(points, directions, limit)
        world.raycast_many(points, directions, limit, all_hits=True)
    world.query_nearest(at, k=3)
    world.cast(shapes[0], pose, (tuple(float(c) + 3.0 for c in points[0]), pose[1]))


def full_build_steps(dims: tuple[int, ...] = (2, 3)) -> list[tuple[str, Callable[[], None]]]:
    """Every step of a full build: ``(label, fn)``; each compiles (or loads) one group of kernels.

    What ``warm_up(every_shape=True)`` prepares (a step over any shapes but
    compounds, with manifolds, and the queries), plus ``collide``, the
    proximity queries, their batched forms and a world of every shape kind,
    for each dimension in ``dims``.

    Examples
    --------
    >>> full_build_steps(dims=(2,))[0][0]
    '2D narrowphase and broadphase'
    """
    steps: list[tuple[str, Callable[[], None]]] = []
    for d in dims:
        steps.append((f"{d}D narrowphase and broadphase", functools.partial(warm_dim, d, True)))
        for warm in WARMERS:
            name = getattr(warm, "label", None) or warm.__module__.rsplit(".", 1)[-1].replace("_", " ")
            steps.append((f"{d}D {name}", functools.partial(warm, d)))
        steps.append((f"{d}D capsule and hull queries", functools.partial(_warm_capsule_hull_queries, d)))
        steps.append((f"{d}D collide, distance, time of impact", functools.partial(_warm_pairs, d)))
        steps.append((f"{d}D every shape kind in a world", functools.partial(_warm_every_kind_world, d)))
    return steps


def _steps_from_env() -> list[tuple[str, Callable[[], None]]]:
    """The full build's steps, or those whose label contains one of the comma-separated words of
    ``COLLIDEWORLD_BUILD_STEPS`` (a partial build, for the tests of the builder: its ready marker
    is a different file, see :func:`collideworld.background.build_stamp`)."""
    steps = full_build_steps()
    keep = [w.strip() for w in os.environ.get(background.ENV_BUILD_STEPS, "").split(",") if w.strip()]
    return [s for s in steps if any(w in s[0] for w in keep)] if keep else steps


background.register_build_steps(_steps_from_env)


def build_into_cache(progress: Callable[[str], None] | None = None, *, wait_for_lock: bool = True) -> bool:
    """Run a full build under the cache directory's lock, then mark the cache ready.

    Parameters
    ----------
    progress : callable(str), optional
        Called with each step's label before it runs.
    wait_for_lock : bool
        Wait for a builder that holds the lock (then find the cache ready);
        False: return False at once instead.

    Returns
    -------
    bool
        True when the cache is marked ready; False when another builder
        holds the lock (``wait_for_lock=False``), there is no writable cache
        directory, or numba is missing.
    """
    import fcntl

    if not compiled_available():
        return False
    where = background.cache_dir()
    if where is None:
        for label, step in background.build_steps():
            if progress is not None:
                progress(label)
            step()
        return False
    fd = os.open(background.lock_path(where), os.O_RDWR | os.O_CREAT, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait_for_lock else fcntl.LOCK_NB))
        except OSError:
            return False
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())  # who builds (the lock is the flock, not this text)
        if os.path.exists(background.marker_path(where)):
            return True
        with open(os.path.join(where, "collideworld-builds.log"), "a") as f:
            f.write(f"build started by pid {os.getpid()}\n")
        for label, step in background.build_steps():
            if progress is not None:
                progress(label)
            step()
        background.mark_ready(where)
        return True
    finally:
        os.close(fd)


def _nice_from_env() -> int:
    raw = os.environ.get(background.ENV_BUILD_NICE, "10")
    try:
        return max(0, min(19, int(raw)))
    except ValueError:
        return 10


def main(argv: list[str] | None = None) -> int:
    """A full build (``--background``: at the lowest CPU priority); the exit status."""
    args = sys.argv[1:] if argv is None else argv
    if "--background" in args:
        # low priority, not the lowest: at nice 19 a builder on a machine kept busy by others gets ~1.5 % of a
        # core (CFS weights 15 against 1024) and might never finish
        os.nice(_nice_from_env())
    # waits for a builder that holds the lock (and then finds the cache ready): a process that probes the
    # lock for an instant (background.lock_is_held) must not make a builder give up
    return 0 if build_into_cache() else 1

