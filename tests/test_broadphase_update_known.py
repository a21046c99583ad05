"""``update_known``: the broadphases' unchecked update (the world's refit) answers as ``update_many``.

Oracle: every pair of overlapping closed boxes by an all-pairs test written here
(every pair of which one box is not static), after a series of
updates given through ``update_known`` to one broadphase and through the
checked ``update_many`` to another; and the rows written by ``put_rows``
against numpy's fancy assignment, byte for byte.
"""

from __future__ import annotations

import numpy as np
import pytest

from collideworld.broadphase import BruteForceBroadphase, SweepAndPrune
from collideworld.broadphase.adaptive import AdaptiveBroadphase
from collideworld.broadphase.base import put_rows, update_refit
from collideworld.broadphase.batched_sweep import BatchedSweep
from collideworld.broadphase.halfspaces import HalfSpaceBroadphase


def _reference(lo: np.ndarray, hi: np.ndarray, static: np.ndarray) -> list[list[int]]:
    # every (i, j), i < j, tested on every axis at once: closed boxes, not both static
    overlap = np.all((lo[:, None, :] <= hi[None, :, :]) & (lo[None, :, :] <= hi[:, None, :]), axis=2)
    overlap &= ~(static[:, None] & static[None, :])
    i, j = np.nonzero(np.triu(overlap, 1))
    return np.stack([i, j], axis=1).tolist()


def _inners(dim: int, backend: str) -> list:
    return [AdaptiveBroadphase(dim, backend=backend), BatchedSweep(dim, backend=backend),
            SweepAndPrune(dim, backend=backend), BruteForceBroadphase(dim)]


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
@pytest.mark.parametrize("dim", [2, 3])
def test_update_known_gives_the_pairs_of_update_many_and_of_the_all_pairs_test(dim: int, backend: str) -> None:
    rng = np.random.default_rng(dim * 10 + (backend == "compiled"))
    n = 120
    centre = rng.uniform(0, 20, (n, dim))
    half = rng.uniform(0.2, 1.5, (n, dim))
    static = rng.random(n) < 0.2
    for kind in range(4):
        known = HalfSpaceBroadphase(_inners(dim, backend)[kind])
        checked = HalfSpaceBroadphase(_inners(dim, backend)[kind])
        for bp in (known, checked):
            bp.insert_many(np.arange(n), centre - half, centre + half, static)
        lo, hi = centre - half, centre + half
        for rnd in range(8):
            moved = np.flatnonzero(~static & (rng.random(n) < (0.9 if rnd % 2 else 0.05)))
            c = centre[moved] + rng.normal(0, 1.0, (len(moved), dim))
            c[::7] = 0.0 - 0.0 * c[::7]  # zeros of both signs among the corners
            new_lo, new_hi = c - half[moved], c + half[moved]
            new_lo[::5, 0] = -0.0
            new_hi[::5, 0] = np.maximum(new_hi[::5, 0], 0.0)
            update_refit(known, moved, new_lo, new_hi)
            checked.update_many(moved, new_lo, new_hi)
            lo[moved], hi[moved] = new_lo, new_hi
            expected = _reference(lo, hi, static)
            assert known.pairs().tolist() == expected
            assert checked.pairs().tolist() == expected
            some = moved[: len(moved) // 2]
            assert known.pairs_touching(some).tolist() == checked.pairs_touching(some).tolist()


def test_put_rows_writes_the_bytes_of_fancy_assignment() -> None:
    rng = np.random.default_rng(3)
    for dim in (1, 2, 3, 4):
        dst = rng.normal(size=(50, dim))
        rows = rng.permutation(50)[:30]
        src = rng.normal(size=(30, dim))
        src[::4] = -0.0
        src[1, 0] = np.nan
        expected = dst.copy()
        expected[rows] = src
        put_rows(dst, rows, src)
        assert dst.tobytes() == expected.tobytes()
    # a strided destination takes numpy's own assignment
    base = np.zeros((10, 4))
    view = base[:, ::2]
    put_rows(view, np.array([1, 3]), np.ones((2, 2)))
    assert base[[1, 3]].tolist() == [[1.0, 0.0, 1.0, 0.0]] * 2
