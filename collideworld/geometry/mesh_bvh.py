"""Bounding volume hierarchy of a triangle mesh, and the cells of a heightfield under a box.

The tree is a linear BVH (Lauterbach et al. 2009; Karras 2012): triangles
sorted by the Morton code of their box centres, grouped in leaves of
``LEAF`` consecutive triangles, and a complete binary tree over the leaves
(padded to a power of two with empty boxes) stored in heap order, each
node's box the union of its children's. Building is one sort (of 30-bit
Morton codes, made by table lookups) and ``log2(leaves)`` vectorised
elementwise unions, level by level (1,000,000 triangles in well under a
second with numpy on a quiet machine). A query walks the tree one level at a time for all
query boxes together (numpy), or each box down a stack in one compiled call
(the compiled twin), keeping only the (query, node) pairs whose boxes
overlap, so its cost follows the number of nearby triangles, not the size
of the mesh. The tree is built once per shape in the shape's local frame; a
moving mesh moves its query box, not its tree.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

__all__ = ["TriangleBVH", "query_bvh", "reuse_rows", "heightfield_cells"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

#: Triangles per leaf.
LEAF = 4


def _spread_table() -> I64:
    """The low 10 bits of every ``v < 1024`` spread to every third bit (the Morton interleave)."""
    v = np.arange(1024, dtype=np.int64)
    v = (v | (v << 16)) & 0x030000FF
    v = (v | (v << 8)) & 0x0300F00F
    v = (v | (v << 4)) & 0x030C30C3
    v = (v | (v << 2)) & 0x09249249
    return v


#: ``_SPREAD[v]``: one gather per axis instead of five shift-and-mask passes over every triangle.
_SPREAD = _spread_table()


def query_bvh(node_box: F64, depth: int, leaf_triangles: I64, leaf_box: F64, qlo: F64, qhi: F64
              ) -> tuple[I64, I64]:
    """``(query row, triangle)`` of every triangle whose box meets its query box (closed boxes), sorted.

    The tree is ``TriangleBVH``'s: nodes' boxes ``node_box`` (lo, hi) in heap
    order (root 0, node ``i``'s children ``2i + 1`` and ``2i + 2``, the
    ``2**depth`` leaves last), leaf ``k`` holding triangles
    ``leaf_triangles[k]`` (``-1``: none) whose boxes are
    ``leaf_box[LEAF k:LEAF (k + 1)]`` (lo, hi), in leaf order. All query
    boxes go down together, one level at a time, keeping only the (query,
    node) pairs whose boxes meet. The compiled twin
    (``geometry/compiled/mesh_bvh.py``) walks each box down a stack instead;
    both answer the same pairs in the same order.

    Examples
    --------
    >>> import numpy as np
    >>> lo = np.array([[float(i), 0.0, 0.0] for i in range(10)])
    >>> bvh = TriangleBVH(lo, lo + 0.5)
    >>> q, t = query_bvh(bvh.node_box, bvh.depth, bvh.leaf_triangles, bvh.leaf_box,
    ...                  np.array([[2.5, 0.0, 0.0]]), np.array([[3.0, 0.0, 0.0]]))
    >>> t.tolist()
    [2, 3]
    """
    q = np.arange(len(qlo), dtype=np.int64)
    node = np.zeros(len(qlo), dtype=np.int64)
    for level in range(depth + 1):
        nlo, nhi = node_box[node, :3], node_box[node, 3:]
        keep = np.all((nlo <= qhi[q]) & (qlo[q] <= nhi), axis=1)
        q, node = q[keep], node[keep]
        if level < depth:
            q = np.repeat(q, 2)
            node = (np.repeat(node, 2) * 2) + np.tile(np.array([1, 2]), len(node))
    leaf = leaf_triangles.shape[1]
    place = ((node - ((1 << depth) - 1)) * leaf)[:, None] + np.arange(leaf)
    place = place.ravel()
    tri = leaf_triangles.ravel()[place]
    q = np.repeat(q, leaf)
    ok = tri >= 0
    q, tri, place = q[ok], tri[ok], place[ok]
    box = leaf_box[place]
    keep = np.all((box[:, :3] <= qhi[q]) & (qlo[q] <= box[:, 3:]), axis=1)
    q, tri = q[keep], tri[keep]
    order = np.lexsort((tri, q))
    return q[order], tri[order]


def reuse_rows(query: Callable[[F64, F64], tuple[I64, I64]], qlo: F64, qhi: F64, keys: I64, m_keys: I64,
               m_lo: F64, m_hi: F64, m_counts: I64, m_starts: I64, m_tris: I64) -> tuple[I64, I64, I64, int]:
    """``query(qlo, qhi)``'s ``(row, triangle)`` answer, with the rows of a box asked before taken from a memo.

    Row ``i`` is asked for by ``keys[i]``; the memo holds the boxes
    ``m_lo``/``m_hi`` asked for last time by ``m_keys`` (ascending), their
    triangles the run ``m_tris[m_starts[k]:m_starts[k] + m_counts[k]]``. A row
    whose key and box (bit for bit) are in the memo gets that run; the others
    are asked of ``query`` in one call. The answer is sorted by row, each
    row's triangles in the order ``query`` gave them, so it is ``query``'s
    own answer when ``query`` is pure. Returns ``(row, triangle, counts per
    row, rows asked of query)``. The compiled twin
    (``geometry/compiled/mesh_bvh.query_bvh_reuse``) walks a tree in the same
    call.

    Examples
    --------
    >>> import numpy as np
    >>> lo = np.array([[float(i), 0.0, 0.0] for i in range(10)])
    >>> bvh = TriangleBVH(lo, lo + 0.5)
    >>> qlo, qhi = np.array([[2.5, 0.0, 0.0], [7.0, 0, 0]]), np.array([[3.0, 0.0, 0.0], [7.0, 0, 0]])
    >>> keys, no = np.array([4, 9]), np.zeros(0, dtype=np.int64)
    >>> q, t, counts, asked = reuse_rows(bvh.query, qlo, qhi, keys, no, qlo[:0], qhi[:0], no, no, no)
    >>> t.tolist(), counts.tolist(), asked
    ([2, 3, 7], [2, 1], 2)
    >>> q, t, counts, asked = reuse_rows(bvh.query, qlo, qhi, keys, keys, qlo, qhi, counts, np.array([0, 2]), t)
    >>> t.tolist(), asked
    ([2, 3, 7], 0)
    """
    n = len(qlo)
    if len(m_keys):
        at = np.minimum(np.searchsorted(m_keys, keys), len(m_keys) - 1)
        same = ((m_keys.take(at) == keys) & (m_lo.take(at, axis=0) == qlo).all(axis=1)
                & (m_hi.take(at, axis=0) == qhi).all(axis=1))
        ask = np.flatnonzero(~same)
    else:
        at, same, ask = None, None, np.arange(n)
    if len(ask):
        q, tri = query(qlo.take(ask, axis=0), qhi.take(ask, axis=0))
        q = ask.take(q)
    else:
        q = tri = np.zeros(0, dtype=np.int64)
    if at is not None and same is not None and len(ask) < n:
        kept = np.flatnonzero(same)
        src = at.take(kept)
        counts = m_counts.take(src)
        total = int(counts.sum())
        # each kept row's run of m_tris, in order (a CSR gather)
        run_start = np.repeat(m_starts.take(src) - (np.cumsum(counts) - counts), counts)
        old_tri = m_tris.take(run_start + np.arange(total))
        q = np.concatenate([np.repeat(kept, counts), q])
        tri = np.concatenate([old_tri, tri])
    order = np.argsort(q, kind="stable")  # by row; each row's triangles in the query's order
    q, tri = q.take(order), tri.take(order)
    return q, tri, np.bincount(q, minlength=n), len(ask)


class TriangleBVH:
    """A static BVH over boxes ``lo``/``hi`` (T, 3) of triangles, in the mesh's local frame.

    ``node_box`` (2 L - 1, 6) are the nodes' boxes (lo, hi; ``node_lo`` and
    ``node_hi`` are views of its halves) in heap order
    (root 0, node ``i``'s children ``2i + 1`` and ``2i + 2``); the ``L = 2**depth``
    leaves come last, leaf ``k`` holding the triangles ``leaf_triangles[k]``
    (``-1``: an empty place), their boxes ``leaf_box[LEAF k:LEAF (k + 1)]``
    (lo, hi; an empty place repeats a box of the tree). Building is O(T log T) (one sort); a query
    costs O(log T) per query box plus the triangles it meets.

    Examples
    --------
    >>> import numpy as np
    >>> lo = np.array([[float(i), 0.0, 0.0] for i in range(10)])
    >>> bvh = TriangleBVH(lo, lo + 0.5)
    >>> q, t = bvh.query(np.array([[2.2, 0.0, 0.0]]), np.array([[3.1, 1.0, 1.0]]))
    >>> q.tolist(), t.tolist()
    ([0, 0], [2, 3])
    """

    def __init__(self, lo: F64, hi: F64) -> None:
        t = len(lo)
        self.lo, self.hi = np.ascontiguousarray(lo, dtype=np.float64), np.ascontiguousarray(hi, dtype=np.float64)
        # box centres, doubled (the factor 1/2 changes no order)
        centre = self.lo + self.hi
        cmin, cmax = centre.min(axis=0), centre.max(axis=0)
        # one cell size on every axis (the largest span's): scaled per axis, a flat terrain's few
        # centimetres of height would get as many bits as its kilometres of ground, and the top
        # of the tree would split on height, into nodes as wide as the whole terrain
        span = float((cmax - cmin).max())
        span = span if span > 0.0 else 1.0
        code = np.zeros(t, dtype=np.int64)
        for axis in range(3):
            cell = np.minimum((centre[:, axis] - cmin[axis]) * (1024.0 / span), 1023.0).astype(np.int64)
            code |= _SPREAD[cell] << (2 - axis)
        order = np.argsort(code, kind="stable")  # a radix-like merge of int64 keys: faster than quicksort here
        n_leaves = max(1, -(-t // LEAF))
        self.depth = int(np.ceil(np.log2(n_leaves))) if n_leaves > 1 else 0
        width = 1 << self.depth
        slots = np.full(width * LEAF, -1, dtype=np.int64)
        slots[:t] = order
        self.leaf_triangles = slots.reshape(width, LEAF)
        # a leaf's box: the union of its triangles' boxes; the padding repeats the last triangle's
        # box (a box already in the tree: it changes no union and adds no triangle)
        padded = np.concatenate([order, np.full(width * LEAF - t, order[-1])])
        # a node's lo and hi side by side, and the triangles' boxes again in leaf order: a walk
        # reads one or two neighbouring cache lines per node and per leaf, not four scattered ones
        self.node_box = np.empty((2 * width - 1, 6))
        self.node_lo, self.node_hi = self.node_box[:, :3], self.node_box[:, 3:]
        self.leaf_box = np.empty((width * LEAF, 6))
        for src, dst, pick, side in ((self.lo, self.node_lo, np.minimum, 0), (self.hi, self.node_hi, np.maximum, 3)):
            s = src.take(padded, axis=0).reshape(width, LEAF, 3)
            self.leaf_box[:, side:side + 3] = s.reshape(-1, 3)
            # elementwise over the LEAF columns: numpy reduces a short middle axis many times slower
            leaf = s[:, 0].copy()
            for k in range(1, LEAF):
                pick(leaf, s[:, k], out=leaf)
            dst[width - 1:] = leaf
            # level k (2**k nodes) starts at 2**k - 1; its nodes' children are level k + 1's pairs
            for k in range(self.depth - 1, -1, -1):
                child = dst[(2 << k) - 1:(4 << k) - 1]
                pick(child[0::2], child[1::2], out=dst[(1 << k) - 1:(2 << k) - 1])

    def query(self, qlo: F64, qhi: F64, backend: str = "numpy") -> tuple[I64, I64]:
        """``(query row, triangle)`` of every triangle whose box meets its query box (closed boxes), sorted.

        ``backend="compiled"`` walks the tree in one compiled call (the same answer).
        """
        qlo = np.ascontiguousarray(qlo, dtype=np.float64)
        qhi = np.ascontiguousarray(qhi, dtype=np.float64)
        fn = query_bvh
        if backend == "compiled":
            fn = importlib.import_module(f"{__package__}.compiled.mesh_bvh").query_bvh
        out: tuple[I64, I64] = fn(self.node_box, self.depth, self.leaf_triangles, self.leaf_box, qlo, qhi)
        return out

    def query_reusing(self, qlo: F64, qhi: F64, keys: I64, m_keys: I64, m_lo: F64, m_hi: F64, m_counts: I64,
                      m_starts: I64, m_tris: I64, backend: str = "numpy") -> tuple[I64, I64, I64, int]:
        """:meth:`query` with the rows of boxes asked before taken from a memo (:func:`reuse_rows`' arguments).

        ``backend="compiled"``: the memo lookup, the tree walk for the other
        boxes and the gather in one compiled call (the same answer).
        """
        qlo = np.ascontiguousarray(qlo, dtype=np.float64)
        qhi = np.ascontiguousarray(qhi, dtype=np.float64)
        if backend == "compiled":
            fn = importlib.import_module(f"{__package__}.compiled.mesh_bvh").query_bvh_reuse
            q, tri, counts, asked = fn(self.node_box, self.depth, self.leaf_triangles, self.leaf_box, qlo, qhi,
                                       keys, m_keys, m_lo, m_hi, m_counts, m_starts, m_tris)
            return q, tri, counts, int(asked)
        return reuse_rows(self.query, qlo, qhi, keys, m_keys, m_lo, m_hi, m_counts, m_starts, m_tris)


def heightfield_cells(qlo: F64, qhi: F64, heights_lo: F64, heights_hi: F64, dx: float, dy: float
                      ) -> tuple[I64, I64]:
    """``(query row, triangle)`` of a heightfield's triangles whose cell's box meets each query box (local frame).

    ``heights_lo``/``heights_hi`` (rows - 1, columns - 1) are each cell's lowest
    and highest corner height. No tree: the cells under a box come from the
    grid directly (the triangle numbering is the format's: ``2 (i (columns - 1) + j)`` and that plus 1).

    Examples
    --------
    >>> import numpy as np
    >>> z = np.zeros((2, 3))
    >>> heightfield_cells(np.array([[1.5, 0.2, -1.0]]), np.array([[1.7, 0.4, 1.0]]), z, z, 1.0, 1.0)[1].tolist()
    [2, 3]
    """
    rows, cols = heights_lo.shape
    j0 = np.clip(np.floor(qlo[:, 0] / dx).astype(np.int64) - 1, 0, cols - 1)
    j1 = np.clip(np.floor(qhi[:, 0] / dx).astype(np.int64) + 1, -1, cols - 1)
    i0 = np.clip(np.floor(qlo[:, 1] / dy).astype(np.int64) - 1, 0, rows - 1)
    i1 = np.clip(np.floor(qhi[:, 1] / dy).astype(np.int64) + 1, -1, rows - 1)
    nj = np.maximum(j1 - j0 + 1, 0)
    ni = np.maximum(i1 - i0 + 1, 0)
    counts = ni * nj
    q = np.repeat(np.arange(len(qlo), dtype=np.int64), counts)
    k = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    njq = nj[q]
    i = i0[q] + k // np.maximum(njq, 1)
    j = j0[q] + k % np.maximum(njq, 1)
    # the cell's exact box: x in [j dx, (j + 1) dx], y in [i dy, (i + 1) dy], z between its corner heights
    keep = ((j * dx <= qhi[q, 0]) & (qlo[q, 0] <= (j + 1) * dx) & (i * dy <= qhi[q, 1]) & (qlo[q, 1] <= (i + 1) * dy)
            & (heights_lo[i, j] <= qhi[q, 2]) & (qlo[q, 2] <= heights_hi[i, j]))
    q, cell = q[keep], (i * cols + j)[keep]
    return np.repeat(q, 2), (2 * np.repeat(cell, 2) + np.tile(np.array([0, 1]), len(cell)))
