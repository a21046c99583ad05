"""The compiled sweep (numba) against the numpy sweep and the brute-force reference.

Every case runs :func:`overlapping_pairs` on both backends and compares them
with :class:`BruteForceBroadphase` (all pairs, dense numpy comparisons: an
independent method), over random boxes and over the inputs where a sweep
goes wrong first: exact touching, identical boxes, zero-width boxes, huge and
tiny coordinates, boxes too long for the bands, static boxes, wanted subsets.
"""

from __future__ import annotations

import numpy as np
import pytest

from collideworld.broadphase import BruteForceBroadphase
from collideworld.broadphase.adaptive import AdaptiveBroadphase
from collideworld.broadphase.batched_sweep import MAX_BANDS_PER_BOX, BatchedSweep, overlapping_pairs
from collideworld.errors import InvalidArgumentError


def brute_pairs(lo, hi, static=None, wanted=None):
    """All overlapping, not-both-static row pairs by the brute-force broadphase; optionally only wanted ones."""
    bp = BruteForceBroadphase(lo.shape[1])
    bp.insert_many(np.arange(len(lo)), lo, hi, static)
    p = bp.pairs()
    if wanted is not None:
        p = p[wanted[p[:, 0]] | wanted[p[:, 1]]]
    return p.tolist()


def assert_backends_agree(lo, hi, static=None, wanted=None):
    expected = brute_pairs(lo, hi, static, wanted)
    for backend in ("numpy", "compiled"):
        got = overlapping_pairs(lo, hi, static, wanted, backend=backend)
        assert got.dtype == np.int64 and got.shape == (len(expected), 2), backend
        assert got.tolist() == expected, backend
    return expected


def random_boxes(rng, n, dim, scale=1.0, offset=0.0):
    centre = rng.uniform(0, np.sqrt(n / 0.33) if dim == 2 else np.cbrt(n / 0.1), (n, dim))
    half = rng.uniform(0.2, 1.2, (n, dim))
    return (centre - half) * scale + offset, (centre + half) * scale + offset


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("seed", range(4))
def test_compiled_sweep_matches_brute_force_on_random_boxes(dim, seed):
    rng = np.random.default_rng(seed)
    n = 1500
    lo, hi = random_boxes(rng, n, dim)
    static = rng.random(n) < 0.3
    wanted = rng.random(n) < 0.05
    assert len(assert_backends_agree(lo, hi)) > n // 2  # dense enough to mean something
    assert_backends_agree(lo, hi, static)
    assert_backends_agree(lo, hi, static, wanted)
    assert_backends_agree(lo, hi, None, np.zeros(n, dtype=bool))


@pytest.mark.parametrize("dim", [2, 3])
def test_compiled_sweep_touching_grid(dim):
    # unit boxes on an integer grid: every neighbour only touches (face, edge
    # or corner), so every reported pair rests on lo_a <= hi_b with equality
    k = 9 if dim == 2 else 5
    corner = np.stack(np.meshgrid(*[np.arange(k)] * dim, indexing="ij"), axis=-1).reshape(-1, dim).astype(float)
    pairs = assert_backends_agree(corner, corner + 1.0)
    # by hand: boxes touch when their grid coordinates differ by at most 1 on
    # every axis; per axis 3k - 2 ordered (a, b) do, so ((3k-2)^D - k^D) / 2 pairs
    assert len(pairs) == ((3 * k - 2) ** dim - k**dim) // 2
    # every upper corner one ulp lower: no box reaches the next one
    assert assert_backends_agree(corner, np.nextafter(corner + 1.0, -np.inf)) == []


def test_compiled_sweep_degenerate_boxes():
    rng = np.random.default_rng(11)
    # identical boxes: every pair overlaps
    lo = np.tile([[0.0, 0.0]], (40, 1))
    assert len(assert_backends_agree(lo, lo + 1.0)) == 40 * 39 // 2
    # zero-width boxes: points and segments, on a lattice so they coincide and touch
    pts = rng.integers(0, 6, (300, 2)).astype(float)
    assert_backends_agree(pts, pts)
    seg_hi = pts.copy()
    seg_hi[:150, 0] += 1.0
    assert_backends_agree(pts, seg_hi)
    # 3D zero-width slabs
    p3 = rng.integers(0, 4, (200, 3)).astype(float)
    h3 = p3 + rng.integers(0, 2, (200, 3))
    assert_backends_agree(p3, h3)


@pytest.mark.parametrize("scale, offset", [(1e12, 0.0), (1e-12, 0.0), (1.0, 1e9), (1e-300, 0.0), (1.0, -5e7)])
def test_compiled_sweep_huge_and_tiny_coordinates(scale, offset):
    rng = np.random.default_rng(5)
    for dim in (2, 3):
        lo, hi = random_boxes(rng, 600, dim, scale, offset)
        assert_backends_agree(lo, hi, rng.random(600) < 0.2)


def test_compiled_sweep_boxes_too_big_for_the_bands():
    rng = np.random.default_rng(9)
    lo, hi = random_boxes(rng, 800, 2)
    # long walls spanning far more than MAX_BANDS_PER_BOX bands, one static
    lo[:3], hi[:3] = [[0, 0], [0, 10], [20, 0]], [[60, 0.5], [60, 10.5], [20.5, 60]]
    static = np.zeros(800, dtype=bool)
    static[1] = True
    assert MAX_BANDS_PER_BOX < 60
    assert_backends_agree(lo, hi, static)
    assert_backends_agree(lo, hi, static, rng.random(800) < 0.1)


@pytest.mark.parametrize("make", [BatchedSweep, AdaptiveBroadphase])
def test_compiled_backend_broadphase_answers_like_numpy(make):
    rng = np.random.default_rng(2)
    n = 2000
    lo, hi = random_boxes(rng, n, 2)
    static = rng.random(n) < 0.1
    bps = [make(2, backend="numpy"), make(2, backend="compiled")]
    for bp in bps:
        bp.insert_many(np.arange(n), lo, hi, static)
    for _ in range(4):
        moved = rng.choice(n, 300, replace=False)
        step = rng.uniform(-0.3, 0.3, (300, 2))
        lo[moved] += step
        hi[moved] += step
        for bp in bps:
            bp.update_many(moved, lo[moved], hi[moved])
        expected = brute_pairs(lo, hi, static)
        want = np.zeros(n, dtype=bool)
        want[moved[:20]] = True
        for bp in bps:
            assert bp.pairs().tolist() == expected
            assert bp.pairs_touching(moved[:20]).tolist() == brute_pairs(lo, hi, static, want)
            bp.validate()


def test_unknown_backend_is_refused():
    with pytest.raises(InvalidArgumentError, match="backend"):
        BatchedSweep(2, backend="gpu")
    with pytest.raises(InvalidArgumentError, match="backend"):
        overlapping_pairs(np.zeros((2, 2)), np.ones((2, 2)), backend="fortran")


@pytest.mark.parametrize("dim", [1, 4])
def test_sweep_any_dimension(dim):
    # the sweep-and-prune accepts any D and runs this sweep for large inserts;
    # D = 1 has no band axis (one cell), D = 4 has three
    rng = np.random.default_rng(dim)
    lo = rng.uniform(0, 3, (300, dim))
    hi = lo + rng.uniform(0, 0.6, (300, dim))
    assert_backends_agree(lo, hi, rng.random(300) < 0.2)
    from collideworld.broadphase import SweepAndPrune

    for backend in ("numpy", "compiled"):
        sap = SweepAndPrune(dim, backend=backend)
        sap.insert_many(np.arange(300), lo, hi)
        assert sap.pairs().tolist() == brute_pairs(lo, hi)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kept_band_copies_answer_pairs_touching_like_brute_force(dim, seed):
    """The compiled BatchedSweep repairs its kept copies between calls: every answer still equals the dense check.

    Rounds move a few boxes a little, some far outside the scene the bands
    were built for (clamped to the edge bands), grow one into a wall too big
    for the bands and shrink it back, and insert and remove boxes.
    """
    rng = np.random.default_rng(seed)
    n = 300
    bp = BatchedSweep(dim, backend="compiled")
    lo = rng.uniform(0, 30, (n, dim))
    hi = lo + rng.uniform(0.2, 2.0, (n, dim))
    static = rng.random(n) < 0.15
    bp.insert_many(np.arange(n), lo, hi, static)
    alive = np.ones(n, dtype=bool)
    for rnd in range(40):
        live = np.flatnonzero(alive)
        k = int(rng.integers(1, 25))
        moved = rng.choice(live, size=min(k, len(live)), replace=False)
        step = rng.normal(0, 0.3, (len(moved), dim))
        if rnd % 7 == 3:
            step[0] += rng.choice([-1, 1]) * 80.0  # far outside the bands' scene
        lo[moved] += step
        hi[moved] += step
        if rnd == 10:
            hi[moved[0]] = lo[moved[0]] + 100.0  # a wall across every band
        if rnd == 12:
            hi[moved[0]] = lo[moved[0]] + 1.0
        bp.update_many(moved, lo[moved], hi[moved])
        if rnd in (20, 30):  # inserts and removals drop the kept copies
            gone = rng.choice(np.flatnonzero(alive), size=5, replace=False)
            bp.remove_many(gone)
            alive[gone] = False
            back = gone[:3]
            bp.insert_many(back, lo[back], hi[back], static[back])
            alive[back] = True
        asked = moved[alive[moved]]
        got = bp.pairs_touching(asked)
        live = np.flatnonzero(alive)
        ov = np.all((lo[live, None, :] <= hi[None, live, :]) & (lo[None, live, :] <= hi[live, None, :]), axis=2)
        ov &= ~(static[live, None] & static[None, live])
        i, j = np.nonzero(np.triu(ov, 1))
        pi, pj = live[i], live[j]
        want = np.isin(pi, asked) | np.isin(pj, asked)
        expected = np.stack([pi[want], pj[want]], axis=1)
        assert got.tolist() == expected.tolist(), f"round {rnd}"
