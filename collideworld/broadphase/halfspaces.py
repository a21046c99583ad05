"""Half-spaces (half-planes and planes) beside any broadphase.

A half-space has no finite box, so it cannot enter a sweep: its box would
overlap every other. :class:`HalfSpaceBroadphase` wraps any
:class:`~collideworld.broadphase.Broadphase` (the *inner* one, which holds
the finite boxes) and keeps the few half-spaces apart. Its pairs are the
inner pairs plus, for each half-space, the dynamic boxes that reach it: a box
reaches the solid ``normal . p <= offset`` when its lowest corner along the
normal does (one vectorised test per half-space; worlds hold few of them).
Half-spaces are static, so two of them are never paired.

The world talks to this class only, so it has no half-space special case
beyond saying which handles are half-spaces when it inserts them.

NOTE: it keeps its own copy of the finite boxes (two (cap, D) arrays and a
flag per handle) because the inner broadphase's storage is its own business.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .base import (
    Broadphase,
    as_boxes,
    as_handles,
    as_static,
    check_live_handles,
    check_new_handles,
    put_rows,
    update_refit,
)

__all__ = ["HalfSpaceBroadphase", "lowest_aabb_support"]



def lowest_aabb_support(normal: NDArray[np.float64], center: NDArray[np.float64],
                        half: NDArray[np.float64]) -> NDArray[np.float64]:
    """``min normal . p`` over axis-aligned boxes: ``n.c - sum_i |n_i| h_i``.

    The axis-aligned case of
    :func:`collideworld.geometry.contact_halfspace_box.lowest_box_support`,
    with the same operations (so the same bits); kept here because the
    broadphase imports no geometry module.

    Examples
    --------
    >>> import numpy as np
    >>> lowest_aabb_support(np.array([[0.0, 1.0]]), np.array([[0.0, 2.0]]), np.array([[1.0, 0.5]])).tolist()
    [1.5]
    """
    radius: NDArray[np.float64] = np.einsum("ni,ni->n", np.abs(normal), half)
    centre_along: NDArray[np.float64] = np.einsum("nd,nd->n", normal, center)
    return centre_along - radius


class HalfSpaceBroadphase(Broadphase):
    """A broadphase of finite boxes (``inner``) plus half-spaces.

    Parameters
    ----------
    inner : Broadphase
        Empty; holds the finite boxes.

    Examples
    --------
    A dynamic box whose bottom touches the ground ``y <= 0`` is paired with
    it; a static one and a box high above are not:

    >>> from collideworld.broadphase import BruteForceBroadphase
    >>> bp = HalfSpaceBroadphase(BruteForceBroadphase(2))
    >>> bp.insert_halfspaces([0], [[0.0, 1.0]], [0.0])
    >>> bp.insert_many([1, 2, 3], [[0, 0], [5, 0], [0, 5]], [[1, 1], [6, 1], [1, 6]], [False, True, False])
    >>> bp.pairs().tolist()
    [[0, 1]]
    """

    def __init__(self, inner: Broadphase) -> None:
        self.inner = inner
        d = inner.dim
        self._lo = np.zeros((0, d))
        self._hi = np.zeros((0, d))
        self._dynamic = np.zeros(0, dtype=bool)  # live finite dynamic boxes, by handle
        self._finite = np.zeros(0, dtype=bool)  # live finite boxes, by handle
        self._planes: dict[int, tuple[NDArray[np.float64], float]] = {}  # handle -> (unit normal, offset)

    @property
    def dim(self) -> int:
        return self.inner.dim

    def __len__(self) -> int:
        return len(self.inner) + len(self._planes)

    def __contains__(self, handle: object) -> bool:
        return handle in self._planes or handle in self.inner

    def halfspace_handles(self) -> list[int]:
        """Handles of the half-spaces, ascending."""
        return sorted(self._planes)

    def _reserve(self, top: int) -> None:
        cap = len(self._dynamic)
        if top < cap:
            return
        new = max(2 * cap, top + 1, 16)
        lo = np.zeros((new, self.dim))
        hi = np.zeros((new, self.dim))
        dyn = np.zeros(new, dtype=bool)
        fin = np.zeros(new, dtype=bool)
        lo[:cap], hi[:cap], dyn[:cap], fin[:cap] = self._lo, self._hi, self._dynamic, self._finite
        self._lo, self._hi, self._dynamic, self._finite = lo, hi, dyn, fin

    # -- half-spaces ---------------------------------------------------------------------

    def insert_halfspaces(self, handles: ArrayLike, normals: ArrayLike, offsets: ArrayLike) -> None:
        """Add half-spaces ``normal . p <= offset`` (unit normals, (M, D); offsets (M,))."""
        h = as_handles(handles)
        normal = np.asarray(normals, dtype=np.float64).reshape(len(h), self.dim)
        offset = np.asarray(offsets, dtype=np.float64).reshape(len(h))
        check_new_handles(h, self)
        for k, handle in enumerate(h.tolist()):
            self._planes[handle] = (normal[k].copy(), float(offset[k]))

    def update_halfspaces(self, handles: ArrayLike, normals: ArrayLike, offsets: ArrayLike) -> None:
        """Give live half-spaces new normals and offsets."""
        h = as_handles(handles)
        normal = np.asarray(normals, dtype=np.float64).reshape(len(h), self.dim)
        offset = np.asarray(offsets, dtype=np.float64).reshape(len(h))
        check_live_handles(h, self._planes)
        for k, handle in enumerate(h.tolist()):
            self._planes[handle] = (normal[k].copy(), float(offset[k]))

    # -- finite boxes: kept in step with the inner broadphase ------------------------------------

    def insert_many(self, handles: ArrayLike, lo: ArrayLike, hi: ArrayLike, static: ArrayLike | None = None) -> None:
        h = as_handles(handles)
        lo_, hi_ = as_boxes(lo, hi, len(h), self.dim)
        st = as_static(static, len(h))
        check_new_handles(h, self._planes)
        self.inner.insert_many(h, lo_, hi_, st)
        if len(h):
            self._reserve(int(h.max()))
            self._lo[h], self._hi[h], self._dynamic[h] = lo_, hi_, ~st
            self._finite[h] = True

    def update_many(self, handles: ArrayLike, lo: ArrayLike, hi: ArrayLike) -> None:
        h = as_handles(handles)
        lo_, hi_ = as_boxes(lo, hi, len(h), self.dim)
        self.inner.update_many(h, lo_, hi_)
        self._lo[h], self._hi[h] = lo_, hi_

    def update_known(self, handles: NDArray[np.int64], lo: NDArray[np.float64], hi: NDArray[np.float64]) -> None:
        """:meth:`update_many` without its checks, for a caller that guarantees them.

        ``handles``: a 1-D int64 array of live, distinct finite-box handles;
        ``lo``, ``hi``: (M, D) float64 arrays of finite corners, ``lo <= hi``
        (the world's refit of its own fat boxes, ``fat_boxes.refresh_moved``).
        """
        # -0.0 made +0.0 as as_boxes does (implementations order floats by their bits)
        lo_, hi_ = lo + 0.0, hi + 0.0
        update_refit(self.inner, handles, lo_, hi_)
        put_rows(self._lo, handles, lo_)
        put_rows(self._hi, handles, hi_)

    def remove_many(self, handles: ArrayLike) -> None:
        h = as_handles(handles)
        planes = np.array([x in self._planes for x in h.tolist()], dtype=bool)
        finite = h[~planes]
        self.inner.remove_many(finite)
        self._dynamic[finite] = False
        self._finite[finite] = False
        for x in h[planes].tolist():
            del self._planes[x]

    # -- pairs ------------------------------------------------------------------------

    def _reaching(self, boxes: NDArray[np.int64], planes: list[int] | None = None) -> NDArray[np.int64]:
        """(half-space, box) rows for the dynamic ``boxes`` whose box reaches one of ``planes`` (default all)."""
        planes = sorted(self._planes) if planes is None else planes
        if not planes or not len(boxes):
            return np.empty((0, 2), dtype=np.int64)
        center = 0.5 * (self._lo.take(boxes, axis=0) + self._hi.take(boxes, axis=0))
        half = 0.5 * (self._hi.take(boxes, axis=0) - self._lo.take(boxes, axis=0))
        out = []
        for h in planes:  # one vectorised test per half-space (there are few)
            normal, offset = self._planes[h]
            lowest = lowest_aabb_support(np.broadcast_to(normal, center.shape), center, half)
            near = boxes[lowest <= offset]
            out.append(np.stack([np.full(len(near), h, dtype=np.int64), near], axis=1))
        return np.concatenate(out)

    @staticmethod
    def _merge(pairs: NDArray[np.int64], extra: NDArray[np.int64]) -> NDArray[np.int64]:
        """Both lists as one, rows ``(i, j)`` with ``i < j``, sorted lexicographically."""
        if not len(extra):
            return pairs
        extra = np.sort(extra, axis=1)
        pairs = pairs.reshape(-1, 2)
        # one int64 key a row (handles are slots, non-negative and below 2**31): keys sort as the rows do
        key = (pairs[:, 0] << 32) | pairs[:, 1]
        merged: NDArray[np.int64]
        if len(key) > 1 and not bool((key[1:] > key[:-1]).all()):
            both = np.concatenate([pairs, extra])
            merged = both[np.lexsort((both[:, 1], both[:, 0]))]
        else:
            # the inner broadphase's pairs come sorted (and the half-space rows are not among them):
            # insert the few half-space rows where they belong, O(n) instead of a lexsort of all
            key_extra = (extra[:, 0] << 32) | extra[:, 1]
            order = np.argsort(key_extra, kind="stable")
            merged = np.insert(pairs, np.searchsorted(key, key_extra[order]), extra[order], axis=0)
        merged.flags.writeable = False
        return merged

    def pairs(self) -> NDArray[np.int64]:
        return self._merge(self.inner.pairs(), self._reaching(np.flatnonzero(self._dynamic)))

    def _all_finite_and_distinct(self, h: NDArray[np.int64]) -> bool:
        """Whether ``h`` are live finite boxes, none twice: checked with arrays, not per handle."""
        if not len(h):
            return True
        if h.min() < 0 or h.max() >= len(self._finite) or not self._finite[h].all():
            return False
        seen = np.zeros(len(self._finite), dtype=bool)
        seen[h] = True
        return int(np.count_nonzero(seen)) == len(h)

    def pairs_touching(self, handles: ArrayLike) -> NDArray[np.int64]:
        h = as_handles(handles)
        if self._all_finite_and_distinct(h):
            # the world's usual question: no half-space among the handles
            # (asked per step with thousands of handles, so no per-handle Python)
            touching = self._reaching(h[self._dynamic[h]])
            return self._merge(self.inner.pairs_touching(h), touching)
        check_live_handles(h, self)
        is_plane = np.array([x in self._planes for x in h.tolist()], dtype=bool)
        finite = h[~is_plane]
        touching = self._reaching(finite[self._dynamic[finite]])
        if is_plane.any():  # a moved half-space: every dynamic box that reaches it
            moved_planes = self._reaching(np.flatnonzero(self._dynamic), h[is_plane].tolist())
            touching = np.unique(np.concatenate([touching, moved_planes]), axis=0)
        return self._merge(self.inner.pairs_touching(finite), touching)

    def prefers_incremental(self, changed: int) -> bool:
        return self.inner.prefers_incremental(changed)

    def validate(self) -> None:
        self.inner.validate()
        assert int(np.count_nonzero(self._dynamic)) <= len(self.inner)
        assert int(np.count_nonzero(self._finite)) == len(self.inner)
        assert not np.any(self._dynamic & ~self._finite)
        for h in self._planes:
            assert h not in self.inner
            assert abs(float(np.linalg.norm(self._planes[h][0])) - 1.0) < 1e-9
