"""Bounding volume hierarchy of a triangle mesh, and the cells of a heightfield under a box.

The tree is a linear BVH (Lauterbach et al. 2009; Karras 2012): triangles
sorted by the Morton code of their box centres, grouped in leaves of
``LEAF`` consecutive triangles, and a complete binary tree over the leaves
(padded to a power of two with empty boxes) stored level by level, each
node's box the union of its children's. Building is one sort and
``log2(leaves)`` vectorised reductions (1,000,000 triangles in well under a
second with numpy). A query walks the tree one level at a time for all
query boxes together, keeping only the (query, node) pairs whose boxes
overlap, so its cost follows the number of nearby triangles, not the size
of the mesh. The tree is built once per shape in the shape's local frame; a
moving mesh moves its query box, not its tree.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["TriangleBVH", "heightfield_cells"]

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

#: Triangles per leaf.
LEAF = 4


def _spread_bits(v: I64) -> I64:
    """The low 10 bits of ``v`` spread to every third bit (the Morton interleave)."""
    v = v & 0x3FF
    v = (v | (v << 16)) & 0x030000FF
    v = (v | (v << 8)) & 0x0300F00F
    v = (v | (v << 4)) & 0x030C30C3
    v = (v | (v << 2)) & 0x09249249
    return v


class TriangleBVH:
    """A static BVH over boxes ``lo``/``hi`` (T, 3) of triangles, in the mesh's local frame.

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
        self.lo, self.hi = np.ascontiguousarray(lo), np.ascontiguousarray(hi)
        centre = 0.5 * (lo + hi)
        cmin, cmax = centre.min(axis=0), centre.max(axis=0)
        span = np.where(cmax > cmin, cmax - cmin, 1.0)
        grid = np.minimum((centre - cmin) / span * 1024.0, 1023.0).astype(np.int64)
        code = (_spread_bits(grid[:, 0]) << 2) | (_spread_bits(grid[:, 1]) << 1) | _spread_bits(grid[:, 2])
        order = np.argsort(code)
        n_leaves = max(1, -(-t // LEAF))
        self.depth = int(np.ceil(np.log2(n_leaves))) if n_leaves > 1 else 0
        width = 1 << self.depth
        slots = np.full(width * LEAF, -1, dtype=np.int64)
        slots[:t] = order
        self.leaf_triangles = slots.reshape(width, LEAF)
        # a leaf's box: the union of its triangles' boxes; the padding repeats the last triangle's
        # box (a box already in the tree: it changes no union and adds no triangle)
        padded = np.concatenate([order, np.full(width * LEAF - t, order[-1])])
        slo = lo[padded].reshape(width, LEAF, 3)
        shi = hi[padded].reshape(width, LEAF, 3)
        levels_lo, levels_hi = [slo.min(axis=1)], [shi.max(axis=1)]
        while len(levels_lo[-1]) > 1:
            levels_lo.append(np.minimum(levels_lo[-1][0::2], levels_lo[-1][1::2]))
            levels_hi.append(np.maximum(levels_hi[-1][0::2], levels_hi[-1][1::2]))
        # root first: level k holds 2**k nodes, node i's children are 2i and 2i + 1 of level k + 1
        self.level_lo = levels_lo[::-1]
        self.level_hi = levels_hi[::-1]

    def query(self, qlo: F64, qhi: F64) -> tuple[I64, I64]:
        """``(query row, triangle)`` of every triangle whose box meets its query box (closed boxes), sorted."""
        q = np.arange(len(qlo), dtype=np.int64)
        node = np.zeros(len(qlo), dtype=np.int64)
        for level in range(self.depth + 1):
            nlo, nhi = self.level_lo[level][node], self.level_hi[level][node]
            keep = np.all((nlo <= qhi[q]) & (qlo[q] <= nhi), axis=1)
            q, node = q[keep], node[keep]
            if level < self.depth:
                q = np.repeat(q, 2)
                node = (np.repeat(node, 2) * 2) + np.tile(np.array([0, 1]), len(node))
        tri = self.leaf_triangles[node].ravel()
        q = np.repeat(q, LEAF)
        ok = tri >= 0
        q, tri = q[ok], tri[ok]
        keep = np.all((self.lo[tri] <= qhi[q]) & (qlo[q] <= self.hi[tri]), axis=1)
        q, tri = q[keep], tri[keep]
        order = np.lexsort((tri, q))
        return q[order], tri[order]


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
