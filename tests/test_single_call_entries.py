"""``distance()`` and ``time_of_impact()`` as one compiled call each (issue 28, single calls at C speed).

Each scalar call runs one compiled entry with its own scratch
(``gjk.distance_measure``, which also
decides whether the gap stands; ``time_of_impact.toi_impact``, which also
measures the touch) instead of several kernels around numpy scratch
allocated in Python, and a pair of shapes already packed (validated when
first seen) skips the shape checks. Checked here:

- the call structure: one compiled entry per call;
- the answers: against shapely (2D) and python-fcl (3D) on seeded
  configurations, with the same shape objects reused call after call (the
  pair is packed, so the shape checks are skipped);
- bit for bit what the kernels composed as before give (``toi_shapes``, then
  ``impact_at``'s poses and ``posed_distance``), and the compiled entries
  against their plain-Python twins;
- bad poses and ``max_distance`` still raise on a packed pair.
"""

from __future__ import annotations

import functools
import math
import sys

import fcl
import numpy as np
import pytest
import shapely
from scipy.optimize import minimize
from scipy.spatial.transform import Rotation

from collideworld import Box, Capsule, Circle, Polygon, Sphere, distance, time_of_impact
from collideworld import proximity as prox
from collideworld.errors import InvalidArgumentError, InvalidPoseError, UnsupportedPairError
from collideworld.geometry import gjk
from collideworld.geometry import time_of_impact as toi
from collideworld.geometry.tolerance import REL_TOUCH_TOL


def _pose2(rng: np.random.Generator, spread: float) -> tuple[tuple[float, float], float]:
    return (float(rng.uniform(-spread, spread)), float(rng.uniform(-spread, spread))), float(rng.uniform(-4, 4))


def _pose3(rng: np.random.Generator, spread: float) -> tuple[tuple[float, ...], tuple[float, ...]]:
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    return tuple(float(x) for x in rng.uniform(-spread, spread, 3)), tuple(float(x) for x in q)


def _recording(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    names: list[str] = []
    real = prox._kernel

    def spy(module: object, name: str) -> object:
        names.append(name)
        return real(module, name)

    monkeypatch.setattr(prox, "_kernel", spy)
    prox._PACK_ENTRIES.clear()  # (a pack's kept entry point would skip _kernel: see the test below)
    return names


# -- one compiled entry per call ----------------------------------------------------------

@pytest.mark.parametrize("dim", [2, 3])
def test_distance_apart_is_one_compiled_call(monkeypatch: pytest.MonkeyPatch, dim: int) -> None:
    a, b = (Box((1.0, 0.5)), Circle(0.5)) if dim == 2 else (Box((1.0, 0.5, 0.5)), Sphere(0.5))
    pa, pb = (((0.0, 0.0), 0.3), ((3.0, 0.5), 0.0)) if dim == 2 else \
        (((0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0)), ((3.0, 0.5, 0.0), (1.0, 0.0, 0.0, 0.0)))
    distance(a, pa, b, pb)
    names = _recording(monkeypatch)
    assert distance(a, pa, b, pb) is not None
    assert names == ["distance_measure"]


@pytest.mark.parametrize("hits", [False, True])
def test_time_of_impact_is_one_compiled_call(monkeypatch: pytest.MonkeyPatch, hits: bool) -> None:
    a, b = Box((1.0, 0.5)), Circle(0.5)
    still = ((4.0, 0.0 if hits else 5.0), 0.0)
    time_of_impact(a, ((0.0, 0.0), 0.0), ((6.0, 0.0), 0.0), b, still, still)
    names = _recording(monkeypatch)
    r = time_of_impact(a, ((0.0, 0.0), 0.0), ((6.0, 0.0), 0.0), b, still, still)
    assert (r is not None) == hits
    assert names == ["toi_impact"]


@pytest.mark.parametrize("dim", [2, 3])
def test_packed_pair_calls_skip_the_dispatcher(monkeypatch: pytest.MonkeyPatch, dim: int) -> None:
    """Once a packed pair's kernel ran compiled, distance() and time_of_impact() call its compiled entry point
    (no _kernel look-up, no dispatcher typing) with the same bits; poses with ints in them too."""
    a, b = (Box((1.0, 0.5)), Capsule((0.0, 0.0), (1.0, 0.0), 0.3)) if dim == 2 else \
        (Box((1.0, 0.5, 0.5)), Capsule((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 0.3))
    turn: object = 0.3 if dim == 2 else (1.0, 0.0, 0.0, 0.0)
    rng = np.random.default_rng(28)
    cases = [(((0.0,) * dim, turn), (tuple(float(x) for x in rng.uniform(-3, 3, dim)), turn)) for _ in range(50)]
    cases.append((((0,) * dim, turn), ((3,) + (0,) * (dim - 1), turn)))  # ints read as floats
    end = ((4.0,) + (0.0,) * (dim - 1), turn)

    def through_dispatcher(pa: object, pb: object) -> tuple[object, object]:
        prox._PACK_ENTRIES.clear()
        d = distance(a, pa, b, pb)
        prox._PACK_ENTRIES.clear()
        return d, time_of_impact(a, pa, end, b, pb, pb)

    before = [through_dispatcher(pa, pb) for pa, pb in cases]
    prox._PACK_ENTRIES.clear()
    for _ in range(2):  # the entry point is looked up on a pack's second call
        distance(a, cases[0][0], b, cases[0][1])
        time_of_impact(a, cases[0][0], end, b, cases[0][1], cases[0][1])
    assert {name for name, _ in prox._PACK_ENTRIES} == {"distance_measure", "toi_impact"}
    assert all(entry is not None for _, entry in prox._PACK_ENTRIES.values())
    names = []
    real = prox._kernel

    def spy(module: object, name: str) -> object:
        names.append(name)
        return real(module, name)

    monkeypatch.setattr(prox, "_kernel", spy)
    after = [(distance(a, pa, b, pb), time_of_impact(a, pa, end, b, pb, pb)) for pa, pb in cases]
    # (overlapping rows still look up the deepest points' kernels; the pair's measuring kernels not)
    assert "distance_measure" not in names and "toi_impact" not in names, names
    for (d0, t0), (d1, t1) in zip(before, after, strict=True):
        assert (d0 is None) == (d1 is None) and (t0 is None) == (t1 is None)
        if d0 is not None:
            assert d0.distance == d1.distance and np.array_equal(d0.point_a, d1.point_a)
            assert np.array_equal(d0.normal, d1.normal)
        if t0 is not None:
            assert t0.t == t1.t and np.array_equal(t0.normal, t1.normal) and np.array_equal(t0.point, t1.point)


# -- answers against shapely and fcl, the shapes reused (packed pairs) ------------------------

def _shapely_2d(shape: object, pose: tuple[tuple[float, float], float]) -> tuple[object, float]:
    (x, y), t = pose
    c, s = math.cos(t), math.sin(t)

    def posed(pts: list[tuple[float, float]]) -> list[tuple[float, float]]:
        return [(x + c * u - s * v, y + s * u + c * v) for u, v in pts]

    if isinstance(shape, Circle):
        return shapely.Point(x, y), shape.radius
    if isinstance(shape, Box):
        hx, hy = shape.half_extents
        return shapely.Polygon(posed([(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)])), 0.0
    if isinstance(shape, Capsule):
        return shapely.LineString(posed([tuple(shape.p0), tuple(shape.p1)])), shape.radius
    assert isinstance(shape, Polygon)
    return shapely.Polygon(posed([tuple(v) for v in shape.parts[0].tolist()])), 0.0


def test_packed_pairs_match_shapely_2d() -> None:
    rng = np.random.default_rng(28)
    shapes = [Circle(0.6), Box((0.9, 0.4)), Capsule((-0.5, 0.0), (0.5, 0.1), 0.25),
              Polygon([(0.0, 0.0), (1.0, 0.0), (0.4, 0.9)])]
    checked = 0
    for _ in range(400):
        a, b = shapes[int(rng.integers(4))], shapes[int(rng.integers(4))]
        pa, pb = _pose2(rng, 3.0), _pose2(rng, 3.0)
        ga, ra = _shapely_2d(a, pa)
        gb, rb = _shapely_2d(b, pb)
        expected = ga.distance(gb) - ra - rb
        res = distance(a, pa, b, pb)
        assert res is not None
        if expected <= 1e-9:
            assert res.distance <= 1e-9
            continue
        checked += 1
        assert res.distance == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert np.linalg.norm(res.point_b - res.point_a) == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert ga.distance(shapely.Point(res.point_a)) <= ra + 1e-9
        assert gb.distance(shapely.Point(res.point_b)) <= rb + 1e-9
    assert checked > 250


def _fcl_object(shape: object, pose: tuple[tuple[float, ...], tuple[float, ...]]) -> object:
    geom = fcl.Sphere(shape.radius) if isinstance(shape, Sphere) else fcl.Box(*(2 * h for h in shape.half_extents))
    return fcl.CollisionObject(geom, fcl.Transform(np.array(pose[1]), np.array(pose[0])))


def test_packed_pairs_match_fcl_3d() -> None:
    rng = np.random.default_rng(29)
    shapes = [Sphere(0.6), Box((0.9, 0.4, 0.5)), Box((0.3, 0.7, 0.2))]
    checked = 0
    for _ in range(300):
        a, b = shapes[int(rng.integers(3))], shapes[int(rng.integers(3))]
        pa, pb = _pose3(rng, 3.0), _pose3(rng, 3.0)
        res = distance(a, pa, b, pb)
        assert res is not None
        expected = fcl.distance(_fcl_object(a, pa), _fcl_object(b, pb), fcl.DistanceRequest(), fcl.DistanceResult())
        if expected <= 1e-6:
            assert res.distance <= 1e-6
            continue
        checked += 1
        assert res.distance == pytest.approx(expected, rel=1e-6, abs=1e-9)
    assert checked > 200


def _segment(shape: Capsule | Sphere, pose: tuple[tuple[float, ...], tuple[float, ...]]) -> np.ndarray:
    """The posed core segment (2, 3) of a capsule, or a sphere's centre twice."""
    if isinstance(shape, Sphere):
        return np.array([pose[0], pose[0]], dtype=float)
    w, x, y, z = pose[1]
    rot = Rotation.from_quat([x, y, z, w])
    return rot.apply(np.array([shape.p0, shape.p1], dtype=float)) + np.asarray(pose[0])


def test_packed_capsule_pairs_match_segment_minimisation_3d() -> None:
    """Capsules and spheres: the distance of the core segments (scipy's bounded minimisation) less the radii."""
    rng = np.random.default_rng(27)
    shapes = [Sphere(0.4), Capsule((0.0, 0.0, -0.5), (0.0, 0.0, 0.5), 0.3), Capsule((-0.8, 0.0, 0.0), (0.6, 0.2, 0.0),
                                                                                     0.15)]
    checked = 0
    for _ in range(150):
        a, b = shapes[int(rng.integers(3))], shapes[int(rng.integers(3))]
        pa, pb = _pose3(rng, 2.5), _pose3(rng, 2.5)
        sa, sb = _segment(a, pa), _segment(b, pb)

        def gap2(st: np.ndarray, sa: np.ndarray = sa, sb: np.ndarray = sb) -> float:
            d = (sa[0] + st[0] * (sa[1] - sa[0])) - (sb[0] + st[1] * (sb[1] - sb[0]))
            return float(d @ d)

        best = min((minimize(gap2, x0, bounds=[(0, 1), (0, 1)], method="L-BFGS-B",
                             options={"ftol": 1e-15, "gtol": 1e-12}) for x0 in ([0.5, 0.5], [0, 0], [1, 1])),
                   key=lambda r: r.fun)
        expected = math.sqrt(max(best.fun, 0.0)) - a.radius - b.radius
        res = distance(a, pa, b, pb)
        assert res is not None
        if expected <= 1e-6:
            assert res.distance <= 1e-6
            continue
        checked += 1
        assert res.distance == pytest.approx(expected, rel=1e-6, abs=1e-7)
    assert checked > 60


def _sweep_gap(a: object, start: tuple[tuple[float, float], float], end: tuple[tuple[float, float], float],
               gb: object, rb: float, t: float) -> float:
    """shapely's gap between ``a`` at time ``t`` of its straight motion (turn held) and the posed ``gb``."""
    p = ((start[0][0] + t * (end[0][0] - start[0][0]), start[0][1] + t * (end[0][1] - start[0][1])), start[1])
    ga, ra = _shapely_2d(a, p)
    return float(ga.distance(gb)) - ra - rb


def test_packed_pair_time_of_impact_matches_shapely_sweep_2d() -> None:
    """A translating box or circle against a resting shape: the first touch by bisection on shapely's distance."""
    rng = np.random.default_rng(30)
    movers = [Circle(0.4), Box((0.5, 0.3))]
    targets = [Box((0.6, 0.6)), Circle(0.5), Polygon([(0.0, 0.0), (1.0, 0.0), (0.4, 0.9)])]
    hits = 0
    for _ in range(150):
        a, b = movers[int(rng.integers(2))], targets[int(rng.integers(3))]
        turn = float(rng.uniform(-3, 3))
        start = ((-4.0, float(rng.uniform(-1.5, 1.5))), turn)
        end = ((4.0, float(rng.uniform(-1.5, 1.5))), turn)
        rest = ((0.0, 0.0), float(rng.uniform(-3, 3)))
        gb, rb = _shapely_2d(b, rest)
        gap = functools.partial(_sweep_gap, a, start, end, gb, rb)
        r = time_of_impact(a, start, end, b, rest, rest)
        ts = np.linspace(0.0, 1.0, 401)
        touching = [t for t in ts if gap(float(t)) <= 0.0]
        if not touching:
            # a miss by the sampled sweep: a reported touch must be a graze thinner than the sampling can see
            assert r is None or gap(r.t) <= 1e-6
            continue
        hits += 1
        assert r is not None
        lo, hi = max(0.0, touching[0] - 1 / 400), touching[0]
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if gap(mid) <= 0.0 else (mid, hi)
        assert r.t == pytest.approx(hi, abs=1e-7)
    assert hits > 40


# -- bit for bit the kernels as composed before, and the Python twins ----------------------

def _tolerance(rows: list[np.ndarray], reach: float) -> float:
    """The touching tolerance the previous kernel sequence was given: REL_TOUCH_TOL times the largest pose
    coordinate plus the pair's reach (geometry.tolerance.touch_tolerance on a Python float)."""
    top = 0.0
    for r in rows:
        x, y, z = r.tolist()[:3]
        top = max(top, abs(x), abs(y), abs(z))
    return float(REL_TOUCH_TOL * abs(top + reach))


def _pair_rows(rng: np.random.Generator, dim: int) -> tuple[object, object, list[np.ndarray]]:
    if dim == 2:
        shapes = [Circle(0.6), Box((0.9, 0.4)), Capsule((-0.5, 0.0), (0.5, 0.1), 0.25),
                  Polygon([(0.0, 0.0), (1.0, 0.0), (0.4, 0.9)])]
        poses = [_pose2(rng, 3.0) for _ in range(3)]
    else:
        shapes = [Sphere(0.6), Box((0.9, 0.4, 0.5)), Capsule((0.0, 0.0, -0.5), (0.0, 0.0, 0.5), 0.3)]
        poses = [_pose3(rng, 3.0) for _ in range(3)]
    a, b = shapes[int(rng.integers(len(shapes)))], shapes[int(rng.integers(len(shapes)))]
    rows = [prox.pose_row(a, poses[0], "a"), prox.pose_row(a, poses[1], "a"), prox.pose_row(b, poses[2], "b")]
    return a, b, rows


@pytest.mark.parametrize("dim", [2, 3])
def test_toi_impact_is_the_previous_kernel_sequence_bit_for_bit(dim: int) -> None:
    rng = np.random.default_rng(31 + dim)
    touched = 0
    for _ in range(200):
        a, b, (a0, a1, b0) = _pair_rows(rng, dim)
        p, reach_a, reach_b, plane_scale = prox._pair_pack(a, b)
        tol = _tolerance([a0, a1, b0, b0], max(reach_a, reach_b) + plane_scale)
        rows = (tuple(a0.tolist()), tuple(a1.tolist()), tuple(b0.tolist()), tuple(b0.tolist()))
        t, gap, out, world, pose_a, pose_b = toi.toi_impact(p.verts, p.pfirst, p.pcount, p.prad, p.pplane, p.svfirst,
                                                            p.svcount, p.sfirst, p.scount, p.reach, *rows, dim,
                                                            max(reach_a, reach_b) + plane_scale)
        n = len(p.verts)
        t_old = toi.toi_shapes(p.verts, p.pfirst, p.pcount, p.prad, p.pplane, p.svfirst, p.svcount, p.sfirst, p.scount,
                               p.reach, 0, 1, a0, a1, b0, b0, dim, tol, np.zeros((n, 3)), np.zeros((16, 4)),
                               np.zeros(11), np.zeros(11), np.zeros(8), np.zeros((3, 3)))
        assert t == t_old
        if t < 0.0:
            continue
        touched += 1
        ra, rb = np.zeros(8), np.zeros(8)
        gjk.pose_at(a0, a1, min(t, 1.0), dim, ra)
        gjk.pose_at(b0, b0, min(t, 1.0), dim, rb)
        w_old, out_old = np.zeros((n, 3)), np.zeros(11)
        gap_old = gjk.posed_distance(p.verts, p.pfirst, p.pcount, p.prad, p.pplane, p.svfirst, p.svcount, p.sfirst,
                                     p.scount, ra, rb, dim, w_old, out_old)
        assert gap == gap_old
        assert pose_a.tobytes() == ra.tobytes() and pose_b.tobytes() == rb.tobytes()
        assert out.tobytes() == out_old.tobytes() and world.tobytes() == w_old.tobytes()
    assert touched > 20


@pytest.mark.parametrize("dim", [2, 3])
def test_new_entries_match_their_python_twins(dim: int) -> None:
    rng = np.random.default_rng(41 + dim)
    twin_d, twin_t = gjk.python_twin("distance_measure"), gjk.python_twin("toi_impact")
    for _ in range(60):
        a, b, (a0, a1, b0) = _pair_rows(rng, dim)
        p, reach_a, reach_b, plane_scale = prox._pair_pack(a, b)
        args = (p.verts, p.pfirst, p.pcount, p.prad, p.pplane, p.svfirst, p.svcount, p.sfirst, p.scount)
        rows = (tuple(a0.tolist()), tuple(b0.tolist()), dim, reach_a, reach_b, plane_scale)
        got, want = gjk.distance_measure(*args, *rows), twin_d(*args, *rows)
        assert got[0] == want[0]
        assert got[1] == pytest.approx(want[1], rel=1e-12, abs=1e-14)
        np.testing.assert_allclose(got[2], want[2], rtol=1e-9, atol=1e-12)
        motion = (tuple(a0.tolist()), tuple(a1.tolist()), tuple(b0.tolist()), tuple(b0.tolist()), dim,
                  max(reach_a, reach_b) + plane_scale)
        got_t, want_t = toi.toi_impact(*args, p.reach, *motion), twin_t(*args, p.reach, *motion)
        assert got_t[0] == pytest.approx(want_t[0], rel=1e-9, abs=1e-12)
        if got_t[0] >= 0.0 and want_t[0] >= 0.0:
            assert got_t[1] == pytest.approx(want_t[1], rel=1e-9, abs=1e-9)
            np.testing.assert_allclose(got_t[2][:9], want_t[2][:9], rtol=1e-6, atol=1e-9)


# -- bad input on a packed pair -------------------------------------------------------------

def test_packed_pair_still_refuses_bad_input() -> None:
    a, b = Box((1.0, 0.5)), Circle(0.5)
    good = ((3.0, 0.0), 0.0)
    assert distance(a, ((0.0, 0.0), 0.0), b, good) is not None  # packs the pair
    with pytest.raises(InvalidPoseError, match="nan"):
        distance(a, ((math.nan, 0.0), 0.0), b, good)
    with pytest.raises(InvalidArgumentError, match="max_distance"):
        distance(a, ((0.0, 0.0), 0.0), b, good, max_distance=-1.0)
    with pytest.raises(InvalidArgumentError, match="max_distance"):
        distance(a, ((0.0, 0.0), 0.0), b, good, max_distance=math.nan)
    with pytest.raises(InvalidPoseError):
        time_of_impact(a, ((0.0, 0.0), 0.0), ((0.0, math.inf), 0.0), b, good, good)
    with pytest.raises(UnsupportedPairError):
        distance(a, ((0.0, 0.0), 0.0), Sphere(0.5), ((3.0, 0.0, 0.0), None))


@pytest.mark.parametrize("dim", [2, 3])
def test_accepted_gaps_are_ones_numpy_would_not_correct(dim: int) -> None:
    """Where distance_measure says the gap stands, distance()'s numpy check of the witness points
    (``sqrt(span @ span) < gap - tol`` corrects the gap) keeps it; near-touching pairs included."""
    rng = np.random.default_rng(51 + dim)
    accepted = 0
    for k in range(400):
        a, b, (a0, _, b0) = _pair_rows(rng, dim)
        if k % 2:  # pull b towards a until nearly touching (gaps of 1e-9 to 1e-3)
            res = distance(a, prox._pose_from_row(a, a0), b, prox._pose_from_row(b, b0))
            if res is not None and res.distance > 0.0:
                b0 = b0.copy()
                b0[:dim] -= res.normal * (res.distance - 10.0 ** float(rng.uniform(-9, -3)))
        p, reach_a, reach_b, plane_scale = prox._pair_pack(a, b)
        apart, gap, out, _ = gjk.distance_measure(p.verts, p.pfirst, p.pcount, p.prad, p.pplane, p.svfirst,
                                                  p.svcount, p.sfirst, p.scount, tuple(a0.tolist()),
                                                  tuple(b0.tolist()), dim, reach_a, reach_b, plane_scale)
        if not apart:
            continue
        accepted += 1
        scale = max(np.abs(a0[:3]).max() + reach_a, np.abs(b0[:3]).max() + reach_b, plane_scale)
        tol = 1e-14 * scale
        span = out[3:3 + dim] - out[0:dim]
        assert gap > tol
        assert not float(np.sqrt(span @ span)) < gap - tol
    assert accepted > 300


def test_single_calls_compile_nothing_after_their_build_step() -> None:
    """Issue 27's rule for the new entries: after the full build's single-call step (``build._warm_pairs``),
    collide(), distance() and time_of_impact() in every pose form add no compiled signature."""
    from collideworld import build
    from collideworld.geometry.compiled import contact_pair as cp
    from collideworld.shapes import HalfPlane, Plane

    def signatures() -> dict[tuple[str, str], int]:
        # the kernels these modules define (not the world's narrowphase routines they import: the store
        # path of an uncommon pose form loads those, which the build's other steps prepare)
        return {(m.__name__, k): len(v.signatures) for m in (gjk, toi, cp) for k, v in vars(m).items()
                if hasattr(v, "signatures") and hasattr(v, "py_func") and v.py_func.__module__ == m.__name__}

    for dim in (2, 3):
        build._warm_pairs(dim)
    before = signatures()
    from collideworld import collide

    for dim in (2, 3):
        shapes = [Circle(0.5), Box((0.5, 0.3)), Capsule((0.0, 0.0), (1.0, 0.0), 0.2),
                  Polygon([(0.0, 0.0), (1.0, 0.0), (0.4, 0.9)])] if dim == 2 else \
            [Sphere(0.5), Box((0.5, 0.3, 0.4)), Capsule((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 0.2)]
        turn: object = 0.3 if dim == 2 else (1.0, 0.0, 0.0, 0.0)
        near = [((0.6,) + (0.1,) * (dim - 1), turn), [[0.6] + [0.1] * (dim - 1), turn], (0, 1) + (0,) * (dim - 2),
                (np.full(dim, 0.6), turn), ((0.6,) * dim, None)]
        far = ((5.0,) + (0.0,) * (dim - 1), turn)
        here = ((0.0,) * dim, turn)
        plane = HalfPlane((0.0, 1.0), -1.0) if dim == 2 else Plane((0.0, 0.0, 1.0), -1.0)
        for a in shapes:
            for b in [*shapes, plane]:
                pb = None if b is plane else far
                for _ in range(2):  # fresh, then packed
                    for pose in near:
                        collide(a, pose, b, None if b is plane else pose)
                        distance(a, pose, b, None if b is plane else pose)
                    distance(a, here, b, pb)
                    time_of_impact(a, here, far, b, None if b is plane else here, None if b is plane else here)
                    time_of_impact(a, far, here, b, pb, pb)
    assert signatures() == before


def test_a_pack_used_once_is_not_typed_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """Typing a call's arguments in Python (the dispatcher's typeof_pyval) to find its entry point costs ~200 us,
    30x the call: a loop of distance() and time_of_impact() over distinct shapes must not pay it; the second
    call of the same pair does, once."""
    from numba.core.dispatcher import Dispatcher

    typed: list[object] = []
    real = Dispatcher.typeof_pyval

    def counting(self: object, val: object) -> object:
        # (numba's C dispatcher also types some arguments through this method, with no frame of its own:
        # count the look-up's generator in proximity only)
        caller = sys._getframe(1).f_code
        if caller.co_filename == prox.__file__ and caller.co_name == "<genexpr>":
            typed.append(val)
        return real(self, val)  # type: ignore[arg-type]

    rng = np.random.default_rng(5)
    for _ in range(40):  # compiled kernels ready (and loaded) before counting
        distance(Box((1.0, 0.5)), ((0.0, 0.0), 0.0), Circle(0.5), ((2.0, 0.0), 0.0))
    monkeypatch.setattr(Dispatcher, "typeof_pyval", counting)
    prox._PACK_ENTRIES.clear()
    for k in range(60):  # distinct pairs of shapes, each met once: half by distance(), half by time_of_impact()
        a, b = Box(tuple(float(x) for x in rng.uniform(0.2, 1.0, 2))), Circle(float(rng.uniform(0.2, 1.0)))
        pa, pb = ((0.0, 0.0), 0.0), ((float(rng.uniform(2.5, 4.0)), 0.0), 0.0)
        if k % 2:
            assert distance(a, pa, b, pb).distance > 0.0
        else:
            assert time_of_impact(a, pa, ((9.0, 0.0), 0.0), b, pb, pb) is not None
    assert typed == []
    for _ in range(3):  # the last pair again and again: its entry point looked up once
        distance(a, pa, b, pb)
    assert 0 < len(typed) <= 20
    assert any(entry is not None for _, entry in prox._PACK_ENTRIES.values())
