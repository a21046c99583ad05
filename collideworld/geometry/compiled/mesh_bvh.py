"""Compiled twin of :func:`collideworld.geometry.mesh_bvh.query_bvh`: every query box down the tree in one call.

Each box walks the heap-ordered tree with a small stack (depth-first, the
left child first), testing closed boxes as the numpy twin does, so both
find the same (query, triangle) pairs; each query's triangles are then
sorted, which gives the numpy twin's order (by query, then triangle). The
output grows by doubling, so one pass suffices (no counting pass).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

__all__ = ["query_bvh", "query_bvh_reuse"]


@njit(cache=True)
def _meets(box: NDArray[np.float64], i: int, qlo: NDArray[np.float64], qhi: NDArray[np.float64], j: int) -> bool:
    # closed boxes: touching counts (box row i: lo then hi)
    for d in range(3):
        if not (box[i, d] <= qhi[j, d] and qlo[j, d] <= box[i, 3 + d]):
            return False
    return True


@njit(cache=True)
def _grown(out: NDArray[np.int64], m: int) -> NDArray[np.int64]:
    """``out`` at twice its length, the first ``m`` kept."""
    grown = np.empty(2 * out.shape[0], dtype=np.int64)
    grown[:m] = out[:m]
    return grown


@njit(cache=True)
def _walk(node_box: NDArray[np.float64], depth: int, leaf_triangles: NDArray[np.int64], leaf_box: NDArray[np.float64],
          qlo: NDArray[np.float64], qhi: NDArray[np.float64], q: int, stack: NDArray[np.int64],
          out_q: NDArray[np.int64], out_t: NDArray[np.int64], m: int) -> int:
    """Query box ``q`` down the tree: its ``(q, triangle)`` rows written from ``m``, sorted by triangle; the new
    end, or -1 when the outputs are too short (nothing else changed: grow them and walk again).

    The outputs are not grown here: a helper returning arrays costs reference counting on every call.
    """
    leaf = leaf_triangles.shape[1]
    first_leaf = (1 << depth) - 1
    cap = out_q.shape[0]
    start = m
    # depth-first with the right child pushed first: at most one pending sibling per level
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        node = stack[top]
        if not _meets(node_box, node, qlo, qhi, q):
            continue
        if node < first_leaf:
            stack[top] = 2 * node + 2
            stack[top + 1] = 2 * node + 1
            top += 2
            continue
        for k in range(leaf):
            t = leaf_triangles[node - first_leaf, k]
            if t < 0 or not _meets(leaf_box, (node - first_leaf) * leaf + k, qlo, qhi, q):
                continue
            if m == cap:
                return -1
            out_q[m] = q
            out_t[m] = t
            m += 1
    if m - start > 1:
        out_t[start:m] = np.sort(out_t[start:m])
    return m


@njit(cache=True)
def query_bvh(node_box: NDArray[np.float64], depth: int, leaf_triangles: NDArray[np.int64],
              leaf_box: NDArray[np.float64], qlo: NDArray[np.float64], qhi: NDArray[np.float64]
              ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(query row, triangle)`` of every triangle whose box meets its query box, sorted (the numpy twin's answer).

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld.geometry.mesh_bvh import TriangleBVH
    >>> lo = np.array([[float(i), 0.0, 0.0] for i in range(10)])
    >>> bvh = TriangleBVH(lo, lo + 0.5)
    >>> q, t = query_bvh(bvh.node_box, bvh.depth, bvh.leaf_triangles, bvh.leaf_box,
    ...                  np.array([[2.5, 0.0, 0.0]]), np.array([[3.0, 0.0, 0.0]]))
    >>> t.tolist()
    [2, 3]
    """
    n = qlo.shape[0]
    cap = max(64, 16 * n)
    out_q = np.empty(cap, dtype=np.int64)
    out_t = np.empty(cap, dtype=np.int64)
    m = 0
    stack = np.empty(depth + 2, dtype=np.int64)
    for q in range(n):
        end = _walk(node_box, depth, leaf_triangles, leaf_box, qlo, qhi, q, stack, out_q, out_t, m)
        while end < 0:
            out_q, out_t = _grown(out_q, m), _grown(out_t, m)
            end = _walk(node_box, depth, leaf_triangles, leaf_box, qlo, qhi, q, stack, out_q, out_t, m)
        m = end
    return out_q[:m].copy(), out_t[:m].copy()


@njit(cache=True)
def query_bvh_reuse(node_box: NDArray[np.float64], depth: int, leaf_triangles: NDArray[np.int64],
                    leaf_box: NDArray[np.float64], qlo: NDArray[np.float64], qhi: NDArray[np.float64],
                    keys: NDArray[np.int64],
                    m_keys: NDArray[np.int64], m_lo: NDArray[np.float64], m_hi: NDArray[np.float64],
                    m_counts: NDArray[np.int64], m_starts: NDArray[np.int64], m_tris: NDArray[np.int64]
                    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], int]:
    """The numpy twin's ``reuse_rows(query, ...)`` with :func:`query_bvh` as the query, in one call.

    Row by row: a key and box (bit for bit) found in the memo copy its run of
    ``m_tris``; any other box walks the tree. The rows come out in row order,
    so no sort of the output is needed. Returns ``(row, triangle, counts per
    row, rows walked)``.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld.geometry.mesh_bvh import TriangleBVH
    >>> lo = np.array([[float(i), 0.0, 0.0] for i in range(10)])
    >>> bvh = TriangleBVH(lo, lo + 0.5)
    >>> qlo, qhi = np.array([[2.5, 0.0, 0.0], [7.0, 0, 0]]), np.array([[3.0, 0.0, 0.0], [7.0, 0, 0]])
    >>> keys, no = np.array([4, 9]), np.zeros(0, dtype=np.int64)
    >>> q, t, counts, asked = query_bvh_reuse(bvh.node_box, bvh.depth, bvh.leaf_triangles, bvh.leaf_box,
    ...                                       qlo, qhi, keys, keys, qlo, qhi, np.array([2, 1]),
    ...                                       np.array([0, 2]), np.array([2, 3, 7]))
    >>> t.tolist(), counts.tolist(), asked
    ([2, 3, 7], [2, 1], 0)
    """
    n = qlo.shape[0]
    nm = m_keys.shape[0]
    cap = max(64, 16 * n)
    out_q = np.empty(cap, dtype=np.int64)
    out_t = np.empty(cap, dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    stack = np.empty(depth + 2, dtype=np.int64)
    m = 0
    asked = 0
    for q in range(n):
        start = m
        hit = -1
        if nm:
            # the first memo row of this key (numpy's searchsorted, side left)
            a, b = 0, nm
            while a < b:
                mid = (a + b) >> 1
                if m_keys[mid] < keys[q]:
                    a = mid + 1
                else:
                    b = mid
            at = min(a, nm - 1)
            if m_keys[at] == keys[q]:
                hit = at
                for d in range(qlo.shape[1]):
                    if not (m_lo[at, d] == qlo[q, d] and m_hi[at, d] == qhi[q, d]):
                        hit = -1
                        break
        if hit >= 0:
            c = m_counts[hit]
            while m + c > out_q.shape[0]:
                out_q, out_t = _grown(out_q, m), _grown(out_t, m)
            s0 = m_starts[hit]
            for k in range(c):
                out_q[m + k] = q
                out_t[m + k] = m_tris[s0 + k]
            m += c
        else:
            asked += 1
            end = _walk(node_box, depth, leaf_triangles, leaf_box, qlo, qhi, q, stack, out_q, out_t, m)
            while end < 0:
                out_q, out_t = _grown(out_q, m), _grown(out_t, m)
                end = _walk(node_box, depth, leaf_triangles, leaf_box, qlo, qhi, q, stack, out_q, out_t, m)
            m = end
        counts[q] = m - start
    return out_q[:m].copy(), out_t[:m].copy(), counts, asked
