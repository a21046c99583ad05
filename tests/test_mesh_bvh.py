"""The triangle BVH: a valid tree (checked by brute force), and its queries on both backends against brute force.

Oracle: the definition itself, evaluated by brute force over every triangle
and every node (no tree walk): each triangle in exactly one leaf, each node's
box holding its children's boxes (a leaf's, its triangles' boxes), and the
(query, triangle) pairs of a query exactly the pairs whose closed boxes meet.
"""

from __future__ import annotations

import numpy as np
import pytest

from collideworld.geometry.mesh_bvh import LEAF, TriangleBVH


def boxes(rng: np.random.Generator, n: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    if kind == "soup":
        corners = rng.uniform(-5, 5, size=(n, 3, 3))
    elif kind == "terrain":  # a flat-ish strip: many equal Morton codes along one axis
        x = rng.uniform(0, 50, size=(n, 1, 1))
        corners = np.concatenate([x + rng.uniform(0, 0.3, (n, 3, 1)), rng.uniform(0, 0.3, (n, 3, 1)),
                                  rng.uniform(-0.01, 0.01, (n, 3, 1))], axis=2)
    else:  # "same": every triangle in one place (one Morton code)
        corners = np.repeat(rng.uniform(-1, 1, size=(1, 3, 3)), n, axis=0)
    return corners.min(axis=1), corners.max(axis=1)


CONFIGS = [(n, kind) for n in (1, 2, 3, 4, 5, 8, 9, 37, 1000, 4097) for kind in ("soup", "terrain")] + \
    [(1, "same"), (7, "same"), (300, "same")]


@pytest.mark.parametrize("n, kind", CONFIGS)
def test_tree_is_valid(n: int, kind: str) -> None:
    rng = np.random.default_rng([n, len(kind)])
    lo, hi = boxes(rng, n, kind)
    bvh = TriangleBVH(lo, hi)
    width = 1 << bvh.depth
    assert bvh.leaf_triangles.shape == (width, LEAF)
    assert bvh.node_lo.shape == bvh.node_hi.shape == (2 * width - 1, 3)
    # every triangle in exactly one leaf place; the rest empty (-1)
    placed = bvh.leaf_triangles.ravel()
    assert sorted(placed[placed >= 0].tolist()) == list(range(n))
    assert np.all(placed[placed < 0] == -1)
    # a leaf's box holds each of its triangles' boxes
    for leaf in range(width):
        node = width - 1 + leaf
        for t in bvh.leaf_triangles[leaf]:
            if t >= 0:
                assert np.all(bvh.node_lo[node] <= lo[t]) and np.all(hi[t] <= bvh.node_hi[node])
    # an inner node's box holds both children's (heap order: children 2i + 1 and 2i + 2)
    for node in range(width - 1):
        for child in (2 * node + 1, 2 * node + 2):
            assert np.all(bvh.node_lo[node] <= bvh.node_lo[child]) and np.all(bvh.node_hi[child] <= bvh.node_hi[node])
    # and the root's box is the box of all triangles, exactly
    assert np.array_equal(bvh.node_lo[0], lo.min(axis=0)) and np.array_equal(bvh.node_hi[0], hi.max(axis=0))


@pytest.mark.parametrize("n, kind", CONFIGS)
def test_queries_match_brute_force_on_both_backends(n: int, kind: str) -> None:
    rng = np.random.default_rng([n, len(kind), 7])
    lo, hi = boxes(rng, n, kind)
    span_lo, span_hi = lo.min(axis=0) - 1.0, hi.max(axis=0) + 1.0
    qlo = rng.uniform(span_lo, span_hi, size=(60, 3))
    qhi = qlo + rng.uniform(0, 0.3, size=(60, 3)) * (span_hi - span_lo)
    # touching boxes count: some query boxes end exactly on a triangle's box
    k = rng.integers(0, n, 10)
    qhi[:10] = lo[k]
    qlo[:10] = np.minimum(qlo[:10], qhi[:10])
    qlo[10:20] = hi[k]
    qhi[10:20] = np.maximum(qhi[10:20], qlo[10:20])
    brute = np.argwhere(np.all((lo[None] <= qhi[:, None]) & (qlo[:, None] <= hi[None]), axis=2))
    bvh = TriangleBVH(lo, hi)
    for backend in ("numpy", "compiled"):
        q, t = bvh.query(qlo, qhi, backend)
        assert q.dtype == t.dtype == np.int64
        # sorted by query, then triangle: exactly the brute force's rows (argwhere's order)
        assert np.array_equal(np.stack([q, t], axis=1).reshape(-1, 2), brute.reshape(-1, 2)), backend


def test_a_query_meeting_many_triangles_grows_the_compiled_output() -> None:
    rng = np.random.default_rng(3)
    lo, hi = boxes(rng, 3000, "soup")
    big = np.array([[-6.0, -6.0, -6.0]] * 2), np.array([[6.0, 6.0, 6.0]] * 2)
    q, t = TriangleBVH(lo, hi).query(*big, "compiled")
    assert q.tolist() == [0] * 3000 + [1] * 3000 and t.tolist() == list(range(3000)) * 2


def test_kind_codes_of_the_compiled_triangle_loop_agree_with_the_store() -> None:
    from collideworld.bodies import Kind
    from collideworld.geometry.compiled import contact_triangle as ct

    assert (ct.BALL, ct.BOX, ct.CAPSULE, ct.TRIANGLE) == (Kind.BALL, Kind.BOX, Kind.CAPSULE, Kind.TRIANGLE)


@pytest.mark.parametrize("seed", range(6))
def test_queries_reusing_a_memo_match_brute_force_on_both_backends(seed: int) -> None:
    """``query_reusing``: rows whose key and box are in the memo take its runs, the rest walk the tree.

    Oracle: brute force over every triangle for every box (the memo is last
    call's answer, so reuse must not change it), frame after frame with a
    third of the boxes moved, some keys new, some gone, the memo's runs
    gathered into a different row order; and the number of boxes walked is
    exactly the number not found bit for bit in the memo.
    """
    rng = np.random.default_rng([29, seed])
    lo, hi = boxes(rng, 2000, "soup" if seed % 2 else "terrain")
    span_lo, span_hi = lo.min(axis=0), hi.max(axis=0)
    bvh = TriangleBVH(lo, hi)
    n = 150
    keys = rng.permutation(400)[:n].astype(np.int64)
    qlo = rng.uniform(span_lo, span_hi, size=(n, 3))
    qhi = qlo + rng.uniform(0, 0.1, size=(n, 3)) * (span_hi - span_lo)
    qhi[:10] = lo[rng.integers(0, len(lo), 10)]  # touching: a box ending on a triangle's box
    qlo[:10] = np.minimum(qlo[:10], qhi[:10])
    no = np.zeros(0, dtype=np.int64)
    memo = {b: (no, qlo[:0], qhi[:0], no, no, no) for b in ("numpy", "compiled")}
    for frame in range(5):
        if frame:
            moved = rng.random(n) < 0.35
            qlo[moved] += rng.normal(scale=0.02, size=(int(moved.sum()), 3)) * (span_hi - span_lo)
            qhi[moved] = np.maximum(qhi[moved], qlo[moved])
            keys[rng.random(n) < 0.1] = rng.integers(400, 800)  # new keys: not in the memo
            order = rng.permutation(n)
            keys, qlo, qhi = keys[order], qlo[order], qhi[order]
            _, first = np.unique(keys, return_index=True)
            keys, qlo, qhi = keys[np.sort(first)], qlo[np.sort(first)], qhi[np.sort(first)]
            n = len(keys)
        brute = np.argwhere(np.all((lo[None] <= qhi[:, None]) & (qlo[:, None] <= hi[None]), axis=2))
        for backend in ("numpy", "compiled"):
            m_keys, m_lo, m_hi, m_counts, m_starts, m_tris = memo[backend]
            at = np.minimum(np.searchsorted(m_keys, keys), max(len(m_keys) - 1, 0))
            found = (np.zeros(n, dtype=bool) if not len(m_keys) else
                     (m_keys[at] == keys) & (m_lo[at] == qlo).all(axis=1) & (m_hi[at] == qhi).all(axis=1))
            q, t, counts, asked = bvh.query_reusing(qlo, qhi, keys, *memo[backend], backend=backend)
            assert np.array_equal(np.stack([q, t], axis=1).reshape(-1, 2), brute.reshape(-1, 2)), (frame, backend)
            assert np.array_equal(counts, np.bincount(brute[:, 0], minlength=n)), (frame, backend)
            assert asked == n - int(found.sum()), (frame, backend)
            if frame:
                assert 0 < asked < n, (frame, backend)
            by_key = np.argsort(keys, kind="stable")
            memo[backend] = (keys[by_key], qlo[by_key], qhi[by_key], counts[by_key],
                             (np.cumsum(counts) - counts)[by_key], t)
