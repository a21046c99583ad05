"""HalfSpaceBroadphase's pair list: the inner broadphase's pairs and the half-space rows, merged.

Oracle: Python's sort of the rows as tuples (lexicographic order), on seeded
random lists, sorted (the inner broadphase's usual answer) and shuffled.
"""

from __future__ import annotations

import numpy as np
import pytest

from collideworld.broadphase.halfspaces import HalfSpaceBroadphase


@pytest.mark.parametrize("seed", range(4))
def test_merge_matches_a_sort_of_the_rows(seed: int) -> None:
    rng = np.random.default_rng(seed)
    checked = 0
    for trial in range(100):
        cap = int(rng.integers(2, 200))
        planes = rng.choice(cap, int(rng.integers(1, min(3, cap) + 1)), replace=False).tolist()
        finite = [x for x in range(cap) if x not in planes]
        inner_rows = {(int(i), int(j)) for i, j in rng.integers(0, cap, (int(rng.integers(0, 300)), 2))
                      if i < j and i in finite and j in finite}
        inner = np.array(sorted(inner_rows), dtype=np.int64).reshape(-1, 2)
        if trial % 3 == 0:
            inner = inner[rng.permutation(len(inner))]  # not sorted: the general path
        boxes = rng.choice(finite, int(rng.integers(0, len(finite) + 1)), replace=False).tolist() if finite else []
        extra = np.array([(p, b) for p in planes for b in boxes], dtype=np.int64).reshape(-1, 2)
        extra = extra[rng.permutation(len(extra))]
        got = HalfSpaceBroadphase._merge(inner, extra)
        if not len(extra):  # nothing to merge: the inner list as it came
            assert got.tolist() == inner.tolist()
            continue
        want = sorted([tuple(r) for r in inner.tolist()] + [(min(p, b), max(p, b)) for p, b in extra.tolist()])
        assert got.tolist() == [list(r) for r in want]
        checked += len(extra) > 0
    assert checked > 80
