"""The single calls' fast path (plain tuple poses read on Python floats) against the careful path (issue 28).

``distance()`` and ``time_of_impact()`` read a pose in a common form
(``((x, y), angle)``, ``((x, y, z), (w, x, y, z))``, a bare position) with
:func:`collideworld.proximity._fast_row`; anything else goes through the
numpy validation of :func:`collideworld.proximity._row`. The two must give
the same kernel rows bit for bit (so the same answers), and every bad input
must still raise what the careful path raises, word for word.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from collideworld import (
    Box,
    Capsule,
    Circle,
    HalfPlane,
    Plane,
    Polygon,
    Sphere,
    collide,
    distance,
    time_of_impact,
)
from collideworld import proximity as prox
from collideworld.errors import CollideWorldError

SEEDS = range(60)


def _shapes_2d(rng: np.random.Generator) -> list[object]:
    r = lambda: float(rng.uniform(0.1, 1.5))  # noqa: E731
    return [Circle(r()), Box((r(), r())), Capsule((-r(), 0.0), (r(), 0.2), r() / 3),
            Polygon([(0.0, 0.0), (r(), 0.0), (0.5, r())])]


def _shapes_3d(rng: np.random.Generator) -> list[object]:
    r = lambda: float(rng.uniform(0.1, 1.5))  # noqa: E731
    return [Sphere(r()), Box((r(), r(), r())), Capsule((-r(), 0.0, 0.0), (r(), 0.1, 0.0), r() / 3)]


def _pose(rng: np.random.Generator, dim: int, spread: float) -> tuple[tuple[float, ...], object]:
    pos = tuple(float(x) for x in rng.uniform(-spread, spread, dim))
    if dim == 2:
        return pos, float(rng.uniform(-7, 7))
    q = rng.normal(size=4)
    return pos, tuple(float(x) for x in q / np.linalg.norm(q))


def _careful(pose: tuple[tuple[float, ...], object]) -> list[object]:
    """The same pose as a list of lists: not a form the fast path reads, so the numpy path checks it."""
    pos, rot = pose
    return [list(pos), list(rot) if isinstance(rot, tuple) else rot]


def _same(x: object, y: object) -> None:
    """Bit-for-bit equality of two results (NamedTuples of floats and arrays, or None)."""
    assert (x is None) == (y is None)
    if x is None:
        return
    for a, b in zip(x, y, strict=True):  # type: ignore[call-overload]
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("dim", [2, 3])
def test_fast_rows_are_the_careful_rows_bit_for_bit(dim: int) -> None:
    count = 0
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        shape = Circle(1.0) if dim == 2 else Sphere(1.0)
        for pose in (_pose(rng, dim, 10.0), _pose(rng, dim, 1e6), (_pose(rng, dim, 3.0)[0], None),
                     _pose(rng, dim, 3.0)[0]):
            fast = prox._fast_row(shape, pose)
            assert fast is not None, pose
            np.testing.assert_array_equal(fast, prox._row(shape, pose, "a"))
            count += 1
    assert count == 4 * len(SEEDS)


@pytest.mark.parametrize("dim", [2, 3])
def test_fast_path_and_careful_path_agree_exactly(dim: int) -> None:
    """Random primitive pairs, apart, near and overlapping: distance, time_of_impact and collide (both backends)."""
    compared = 0
    for seed in SEEDS:
        rng = np.random.default_rng(1000 + seed)
        shapes = _shapes_2d(rng) if dim == 2 else _shapes_3d(rng)
        sa, sb = shapes[seed % len(shapes)], shapes[(seed // len(shapes)) % len(shapes)]
        pa, pb = _pose(rng, dim, 2.0), _pose(rng, dim, 2.0)
        _same(distance(sa, pa, sb, pb), distance(sa, _careful(pa), sb, _careful(pb)))
        end = (tuple(x + 3.0 for x in pa[0]), pa[1])
        _same(time_of_impact(sa, end, pa, sb, pb, pb), time_of_impact(sa, _careful(end), _careful(pa), sb,
                                                                       _careful(pb), _careful(pb)))
        for backend in ("numpy", "compiled"):
            fast = collide(sa, pa, sb, pb, backend=backend)
            slow = collide(sa, _careful(pa), sb, _careful(pb), backend=backend)
            assert (fast is None) == (slow is None)
            if fast is not None and slow is not None:
                np.testing.assert_array_equal(fast.normal, slow.normal)
                assert fast.depth == slow.depth
        compared += 1
    assert compared == len(SEEDS)


def test_fast_path_handles_planes_as_the_careful_path() -> None:
    for plane, other, pose in ((HalfPlane((0.0, 1.0), 0.5), Circle(1.0), ((0.3, 2.0), 0.4)),
                               (Plane((0.0, 0.0, 1.0), -0.5), Sphere(1.0), ((0.3, 2.0, 0.2), (1.0, 0.0, 0.0, 0.0)))):
        _same(distance(plane, None, other, pose), distance(plane, None, other, _careful(pose)))
        _same(distance(other, pose, plane, None), distance(other, _careful(pose), plane, None))


BIG = 1e151
BAD_2D = [
    ((math.nan, 0.0), 0.0), ((0.0, math.inf), 0.0), ((0.0, 0.0), math.nan), ((0.0, 0.0), math.inf),
    ((0.0, 0.0), True), ((0.0, 0.0, 0.0), 0.0), ((0.0,), 0.0), ((BIG, 0.0), 0.0),
    ((0.0, 0.0), "1"), ("ab", 0.0), ((0.0, 0.0), 1j), ((0.0, 0.0), 10 ** 400), ((10 ** 400, 0.0), 0.0),
    None, (0.0, 0.0, 0.0), ((0.0, 0.0), 0.0, 0.0), ((0.0, 0.0), (1.0, 0.0)),
]
BAD_3D = [
    ((0.0, 0.0, math.nan), (1.0, 0.0, 0.0, 0.0)), ((0.0, 0.0, 0.0), (2.0, 0.0, 0.0, 0.0)),
    ((0.0, 0.0, 0.0), (math.nan, 0.0, 0.0, 0.0)), ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0)),
    ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0, 0.0)), ((0.0, 0.0, 0.0), 0.3), ((0.0, 0.0), (1.0, 0.0, 0.0, 0.0)),
    ((0.0, 0.0, BIG), (1.0, 0.0, 0.0, 0.0)),
    ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 1e-2)), None, (0.0, 0.0), ((0.0, 0.0, 0.0), "q"),
]


def _error(fn: Callable[..., object], *args: object) -> tuple[type, str]:
    with pytest.raises(CollideWorldError) as info:
        fn(*args)
    return type(info.value), str(info.value)


@pytest.mark.parametrize("dim", [2, 3])
def test_bad_poses_raise_the_careful_paths_error(dim: int) -> None:
    """Each bad pose, in each argument slot: the error class and message of the numpy validation (``_row``)."""
    shape = Box((1.0, 1.0)) if dim == 2 else Box((1.0, 1.0, 1.0))
    good = ((0.0, 0.0), 0.0) if dim == 2 else ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0))
    checked = 0
    for bad in (BAD_2D if dim == 2 else BAD_3D):
        assert prox._fast_row(shape, bad) is None, bad
        want_a = _error(prox._row, shape, bad, "a")
        want_b = _error(prox._row, shape, bad, "b")
        assert _error(distance, shape, bad, shape, good) == want_a
        assert _error(distance, shape, good, shape, bad) == want_b
        assert "pose_a" in want_a[1] and "pose_b" in want_b[1]
        for slot, which in ((0, "a (start)"), (1, "a (end)"), (2, "b (start)"), (3, "b (end)")):
            poses = [good] * 4
            poses[slot] = bad
            want = _error(prox._row, shape, bad, which)
            got = _error(time_of_impact, shape, poses[0], poses[1], shape, poses[2], poses[3])
            assert got == want, (bad, slot)
        checked += 1
    assert checked == len(BAD_2D if dim == 2 else BAD_3D)


def test_a_pose_for_a_plane_is_refused_as_before() -> None:
    plane = HalfPlane((0.0, 1.0), 0.0)
    for pose in (((0.0, 0.0), 0.0), (0.0, 0.0)):
        assert prox._fast_row(plane, pose) is None
        assert _error(distance, plane, pose, Circle(1.0), (0.0, 3.0)) == _error(prox._row, plane, pose, "a")


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_store_path_with_lazy_points_is_the_eager_store_path(backend: str) -> None:
    """Capsules and concave polygons (the store path): points computed when read equal those computed at once."""
    from collideworld.collide import _collide_store

    concave = Polygon([(0.0, 0.0), (3.0, 0.0), (3.0, 1.0), (1.0, 1.0), (1.0, 3.0), (0.0, 3.0)])
    hits = 0
    for seed in SEEDS:
        rng = np.random.default_rng(2000 + seed)
        dim = 2 if seed % 3 else 3
        if dim == 2:
            sa = [Capsule((-0.6, 0.0), (0.6, 0.1), 0.3), concave][seed % 2]
            sb = _shapes_2d(rng)[seed % 4]
        else:
            sa, sb = _shapes_3d(rng)[2], _shapes_3d(rng)[seed % 3]
        pa, pb = _pose(rng, dim, 1.0), _pose(rng, dim, 1.0)
        lazy = collide(sa, pa, sb, pb, backend=backend)
        eager = _collide_store(sa, pa, sb, pb, backend)
        assert (lazy is None) == (eager is None)
        if lazy is None or eager is None:
            continue
        for name in ("normal", "points", "separations", "point_ids"):
            np.testing.assert_array_equal(getattr(lazy, name), getattr(eager, name))
        assert (lazy.depth, lazy.part_a, lazy.part_b) == (eager.depth, eager.part_a, eager.part_b)
        hits += 1
    assert hits >= len(SEEDS) // 3


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_a_concave_polygons_pieces_are_made_once_across_calls(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """collide() makes a store per call; the concave polygon's convex pieces (validated Polygons) are made
    on its first call only (each call made them again: ~1 ms a call), and the answers do not change."""
    from shapely.geometry import Polygon as ShapelyPolygon

    ell = Polygon([(0, 0), (3, 0), (3, 0.2), (0.2, 0.2), (0.2, 2), (0, 2)])
    ball = Circle(0.3)
    made = []
    real_init = Polygon.__init__

    def counting_init(self: Polygon, *args: object, **kwargs: object) -> None:
        made.append(1)
        real_init(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Polygon, "__init__", counting_init)
    rng = np.random.default_rng(7)
    centres = rng.uniform(-0.5, 3.5, (200, 2))
    first = collide(ell, ((0.0, 0.0), 0.0), ball, (tuple(centres[0]), 0.0), backend=backend)
    assert len(made) == 2  # the L's two pieces, once
    outline = ShapelyPolygon([(0, 0), (3, 0), (3, 0.2), (0.2, 0.2), (0.2, 2), (0, 2)])
    answers = []
    for c in centres:
        answers.append(collide(ell, ((0.0, 0.0), 0.0), ball, (tuple(c), 0.0), backend=backend))
        # a square inscribed in the ball that meets the L (shapely) means the ball meets it too
        gap = outline.distance(ShapelyPolygon([(c[0] + 0.3 * math.cos(a), c[1] + 0.3 * math.sin(a))
                                               for a in np.linspace(0, 2 * math.pi, 4, endpoint=False)]))
        assert gap > 0 or answers[-1] is not None
    assert len(made) == 2  # no more pieces made by 200 more calls
    assert (answers[0] is None) == (first is None)
    if first is not None:
        assert answers[0].normal.tolist() == first.normal.tolist() and answers[0].depth == first.depth
