"""The query grid (collideworld/spatial) against a brute-force scan of every box, on both backends.

Box queries must return exactly the boxes a query box meets (closed: touching
counts), each once; segment queries exactly the boxes the segment meets (the
same slab test run on every box). Inputs: random boxes of mixed sizes (some
on the "big" list), and near-touching layouts: unit boxes tiling the plane
edge to edge with cell walls on their faces, queried at the shared corners
and along the shared edges.
"""

from __future__ import annotations

import numpy as np
import pytest

from collideworld.spatial import GridIndex
from collideworld.spatial.grid import segment_meets_boxes

BACKENDS = ["numpy", "compiled"]


def brute_boxes(lo, hi, qlo, qhi):
    out = set()
    for i in range(len(qlo)):
        meets = ((lo <= qhi[i]) & (qlo[i] <= hi)).all(axis=1)
        out |= {(i, int(j)) for j in np.flatnonzero(meets)}
    return out


def brute_segments(lo, hi, o, d, t):
    out = set()
    for i in range(len(o)):
        out |= {(i, int(j)) for j in np.flatnonzero(segment_meets_boxes(o[i], d[i], t[i], lo, hi))}
    return out


def as_set(qi, local):
    pairs = list(zip(qi.tolist(), local.tolist(), strict=True))
    assert len(pairs) == len(set(pairs)), "a box reported twice for one query"
    return set(pairs)


def random_boxes(rng, n, dim):
    lo = rng.uniform(-50, 50, (n, dim))
    size = rng.exponential(1.0, (n, dim))
    size[: n // 50] *= 30  # a few large boxes: the big list
    return lo, lo + size


def unit_directions(rng, m, dim):
    d = rng.normal(size=(m, dim))
    d[: m // 5, 0] = 0.0  # parallel to an axis plane: the zero-component branch
    return d / np.linalg.norm(d, axis=1)[:, None]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("n", [5, 200, 5000])
def test_grid_matches_brute_force_random(backend, dim, n):
    rng = np.random.default_rng(n * 10 + dim)
    lo, hi = random_boxes(rng, n, dim)
    g = GridIndex(lo, hi, np.arange(n) + 100, backend)
    g._check()
    m = 150
    qlo = rng.uniform(-60, 60, (m, dim))
    qhi = qlo + rng.exponential(2.0, (m, dim)) * (rng.random((m, 1)) < 0.7)  # 30 % are points
    qhi[:3] = qlo[:3] + 80.0  # wide queries: the scan branch
    qi, h = g.query_boxes(qlo, qhi)
    assert as_set(qi, h - 100) == brute_boxes(lo, hi, qlo, qhi)
    assert np.all(np.diff(qi) >= 0)
    o = rng.uniform(-60, 60, (m, dim))
    d = unit_directions(rng, m, dim)
    t = np.where(rng.random(m) < 0.5, np.inf, rng.uniform(0, 40, m))
    si, h = g.query_segments(o, d, t)
    assert as_set(si, h - 100) == brute_segments(lo, hi, o, d, t)
    assert np.all(np.diff(si) >= 0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", [2, 3])
def test_grid_near_touching_tiling(backend, dim):
    # unit boxes edge to edge on integer coordinates: with a median size of 1
    # the cell is 2, so box faces lie on cell walls and queries hit them exactly
    side = 12 if dim == 2 else 5
    lo = np.array(np.meshgrid(*[np.arange(side, dtype=float)] * dim, indexing="ij")).reshape(dim, -1).T
    hi = lo + 1.0
    g = GridIndex(lo, hi, np.arange(len(lo)), backend)
    corners = np.array(np.meshgrid(*[np.arange(side + 1, dtype=float)] * dim, indexing="ij")).reshape(dim, -1).T
    qi, h = g.query_boxes(corners, corners)
    assert as_set(qi, h) == brute_boxes(lo, hi, corners, corners)
    # segments along shared faces and through shared corners
    m = 2 * side
    o = np.zeros((m, dim))
    o[:side, 1] = np.arange(side)
    o[side:, 0] = np.arange(side)
    d = np.zeros((m, dim))
    d[:side, 0] = 1.0
    d[side:] = 1.0 / np.sqrt(dim)
    for t in (np.full(m, np.inf), np.full(m, 3.0)):
        si, h = g.query_segments(o, d, t)
        assert as_set(si, h) == brute_segments(lo, hi, o, d, t)


@pytest.mark.parametrize("dim", [2, 3])
def test_backends_agree_on_handles(dim):
    rng = np.random.default_rng(7)
    lo, hi = random_boxes(rng, 3000, dim)
    handles = rng.permutation(10_000)[:3000]
    a, b = (GridIndex(lo, hi, handles, bk) for bk in BACKENDS)
    q = rng.uniform(-50, 50, (400, dim))
    assert as_set(*a.query_boxes(q, q + 0.5)) == as_set(*b.query_boxes(q, q + 0.5))
    d = unit_directions(rng, 400, dim)
    t = np.full(400, 25.0)
    assert as_set(*a.query_segments(q, d, t)) == as_set(*b.query_segments(q, d, t))


def test_empty_and_tiny():
    for backend in BACKENDS:
        g = GridIndex(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0, dtype=np.int64), backend)
        assert len(g.query_box(np.zeros(2), np.ones(2))) == 0
        assert len(g.query_segments(np.zeros((1, 2)), np.array([[1.0, 0.0]]), np.array([np.inf]))[0]) == 0
        g = GridIndex(np.array([[0.0, 0.0]]), np.array([[0.0, 0.0]]), np.array([3]), backend)  # a point box
        assert g.query_box(np.zeros(2), np.zeros(2)).tolist() == [3]
        assert g.query_box(np.full(2, 1e-300), np.ones(2)).tolist() == []


def test_far_coordinates():
    # boxes near 1e9: the cell stays a sane size and indices fit in int64
    rng = np.random.default_rng(3)
    lo = 1e9 + rng.uniform(0, 1000, (500, 2))
    hi = lo + 1.0
    for backend in BACKENDS:
        g = GridIndex(lo, hi, np.arange(500), backend)
        q = lo[:50] + 0.5
        assert as_set(*g.query_boxes(q, q)) == brute_boxes(lo, hi, q, q)


@pytest.mark.parametrize("dim", [2, 3])
def test_float32_entry_boxes_hold_their_rows_boxes_through_patches(dim):
    # the compiled walks filter bucket entries by float32 copies of the boxes, rounded outwards:
    # each copy must hold its row's float64 box (else a touching query could be filtered out),
    # after the build and after patches move rows between buckets
    rng = np.random.default_rng(dim)
    n = 400
    lo = rng.uniform(-50, 50, (n, dim)) + rng.uniform(0, 1, (n, dim)) * 1e-9  # few are float32 numbers
    hi = lo + rng.uniform(0.05, 1.0, (n, dim))
    g = GridIndex(lo, hi, np.arange(n), "compiled", spare=4)

    def check():
        elo, ehi = g.entry_boxes()
        assert elo.dtype == ehi.dtype == np.float32
        used = np.flatnonzero(g.entries >= 0)
        rows = g.entries[used]
        # compared in float64 (exact for float32 values)
        assert (elo[used].astype(np.float64) <= g.lo[rows]).all() and (ehi[used].astype(np.float64) >= g.hi[rows]).all()
        # outwards by at most one float32 step
        assert (np.nextafter(elo[used], np.float32(np.inf)).astype(np.float64) > g.lo[rows]).all()
        assert (np.nextafter(ehi[used], np.float32(-np.inf)).astype(np.float64) < g.hi[rows]).all()
        free = np.flatnonzero(g.entries < 0)
        assert (elo[free] == np.inf).all() and (ehi[free] == -np.inf).all()

    check()
    patched = 0
    for _ in range(5):
        rows = rng.choice(n, 30, replace=False)
        new_lo = lo[rows] + rng.normal(0, 0.3, (30, dim))  # near where they started (a removed row's box is inf)
        new_lo[:3] += 1e-10  # off the float32 grid
        new_hi = new_lo + rng.uniform(0.05, 1.0, (30, dim))
        alive = rng.random(30) > 0.1
        if not g.patch(rows, new_lo, new_hi, alive):
            break  # no room left: the owner rebuilds (the grid is not to be used as it is)
        patched += 1
        check()
    assert patched >= 2


def test_float32_rounding_outwards_at_the_ends_of_float32():
    import warnings

    from collideworld.spatial.grid import float32_above, float32_below

    big = float(np.finfo(np.float32).max)
    x = np.array([big, -big, 1e39, -1e39, 1e-50, -1e-50, 0.1, 2.0 ** 24 + 1, 0.0, np.inf, -np.inf])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning at float32's ends
        low, high = float32_below(x), float32_above(x)
    assert low.dtype == high.dtype == np.float32
    assert (low.astype(np.float64) <= x).all() and (high.astype(np.float64) >= x).all()
    # the nearest such float32 (one step inwards would cross x; a step past float32's ends is inf)
    with np.errstate(over="ignore"):
        assert (np.nextafter(low, np.float32(np.inf)).astype(np.float64) > x)[np.isfinite(low)].all()
        assert (np.nextafter(high, np.float32(-np.inf)).astype(np.float64) < x)[np.isfinite(high)].all()
    assert low[2] == big and high[2] == np.inf and low[3] == -np.inf and high[3] == -big
