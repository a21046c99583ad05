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

__all__ = ["query_bvh"]


@njit(cache=True)
def _meets(alo: NDArray[np.float64], ahi: NDArray[np.float64], i: int, blo: NDArray[np.float64],
           bhi: NDArray[np.float64], j: int) -> bool:
    # closed boxes: touching counts
    for d in range(3):
        if not (alo[i, d] <= bhi[j, d] and blo[j, d] <= ahi[i, d]):
            return False
    return True


@njit(cache=True)
def query_bvh(node_lo: NDArray[np.float64], node_hi: NDArray[np.float64], depth: int,
              leaf_triangles: NDArray[np.int64], lo: NDArray[np.float64], hi: NDArray[np.float64],
              qlo: NDArray[np.float64], qhi: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(query row, triangle)`` of every triangle whose box meets its query box, sorted (the numpy twin's answer).

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld.geometry.mesh_bvh import TriangleBVH
    >>> lo = np.array([[float(i), 0.0, 0.0] for i in range(10)])
    >>> bvh = TriangleBVH(lo, lo + 0.5)
    >>> q, t = query_bvh(bvh.node_lo, bvh.node_hi, bvh.depth, bvh.leaf_triangles, bvh.lo, bvh.hi,
    ...                  np.array([[2.5, 0.0, 0.0]]), np.array([[3.0, 0.0, 0.0]]))
    >>> t.tolist()
    [2, 3]
    """
    n = qlo.shape[0]
    leaf = leaf_triangles.shape[1]
    first_leaf = (1 << depth) - 1
    cap = max(64, 16 * n)
    out_q = np.empty(cap, dtype=np.int64)
    out_t = np.empty(cap, dtype=np.int64)
    m = 0
    # depth-first with the right child pushed first: at most one pending sibling per level
    stack = np.empty(depth + 2, dtype=np.int64)
    for q in range(n):
        start = m
        stack[0] = 0
        top = 1
        while top > 0:
            top -= 1
            node = stack[top]
            if not _meets(node_lo, node_hi, node, qlo, qhi, q):
                continue
            if node < first_leaf:
                stack[top] = 2 * node + 2
                stack[top + 1] = 2 * node + 1
                top += 2
                continue
            for k in range(leaf):
                t = leaf_triangles[node - first_leaf, k]
                if t < 0 or not _meets(lo, hi, t, qlo, qhi, q):
                    continue
                if m == cap:
                    cap *= 2
                    grown_q = np.empty(cap, dtype=np.int64)
                    grown_t = np.empty(cap, dtype=np.int64)
                    grown_q[:m] = out_q[:m]
                    grown_t[:m] = out_t[:m]
                    out_q, out_t = grown_q, grown_t
                out_q[m] = q
                out_t[m] = t
                m += 1
        if m - start > 1:
            out_t[start:m] = np.sort(out_t[start:m])
    return out_q[:m].copy(), out_t[:m].copy()
