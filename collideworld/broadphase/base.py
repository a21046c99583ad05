"""The broadphase interface, and the input checks every implementation shares.

A broadphase knows nothing about shapes: it stores one axis-aligned box per
integer handle and reports the handle pairs whose boxes overlap. The World
hands it fat AABBs of finite shapes (infinite half-planes never enter it) and
decides begin/end contact events itself by diffing successive ``pairs()``.

The touching rule
-----------------
Boxes are closed: boxes ``a`` and ``b`` overlap when, on every axis,
``lo_a <= hi_b and lo_b <= hi_a``. Boxes that only touch (a shared face,
edge or corner, or a zero-width box lying on another's face) overlap. Every
implementation uses this one predicate, in its sweep as well as in its
checks, so the fast broadphase and the reference can never disagree on
touching (Chipmunk's strict-sweep / non-strict-test split is the bug this
avoids).

Pairs whose two boxes are both static are never reported: static bodies
never move relative to each other, so such a contact carries no information.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import DuplicateIdError, InvalidArgumentError, UnknownIdError

__all__ = ["Broadphase"]


@runtime_checkable
class Broadphase(Protocol):
    """What the World needs from a broadphase.

    Implementations: :class:`~collideworld.broadphase.SweepAndPrune`
    (incremental, over sorted endpoint lists),
    :class:`~collideworld.broadphase.batched_sweep.BatchedSweep` (one banded
    numpy sweep from scratch),
    :class:`~collideworld.broadphase.adaptive.AdaptiveBroadphase` (the
    world's default: each question answered by whichever of the two is
    cheaper) and :class:`~collideworld.broadphase.BruteForceBroadphase` (the
    O(n^2) reference they are all tested against).

    Every mutating method validates all of its input before changing any
    state: a call that raises leaves the broadphase exactly as it was.

    The single-item methods :meth:`insert`, :meth:`update` and :meth:`remove`
    are thin wrappers over the batch methods; classes that subclass this
    protocol explicitly inherit them.

    Examples
    --------
    Any implementation answers the same; boxes that only touch overlap:

    >>> from collideworld.broadphase import BruteForceBroadphase, SweepAndPrune
    >>> for bp in (SweepAndPrune(2), BruteForceBroadphase(2)):
    ...     bp.insert_many([7, 8], [[0, 0], [1, 0]], [[1, 1], [2, 1]])
    ...     print(isinstance(bp, Broadphase), bp.pairs().tolist())
    True [[7, 8]]
    True [[7, 8]]
    """

    @property
    def dim(self) -> int:
        """Number of axes D of every box."""
        ...

    def __len__(self) -> int:
        """Number of live handles."""
        ...

    def __contains__(self, handle: object) -> bool:
        """Whether ``handle`` is live."""
        ...

    def insert_many(
        self, handles: ArrayLike, lo: ArrayLike, hi: ArrayLike, static: ArrayLike | None = None
    ) -> None:
        """Add new handles with their boxes.

        Parameters
        ----------
        handles : array_like of int, shape (M,)
            New handles, distinct from each other and from every live handle.
        lo, hi : array_like of float, shape (M, D)
            Box corners, finite, ``lo <= hi`` (zero width is allowed).
        static : array_like of bool, shape (M,), optional
            True for bodies that never collide with each other. Default all
            False.

        Raises
        ------
        DuplicateIdError
            A handle is live already or appears twice in ``handles``.
        InvalidArgumentError
            Wrong array shapes, non-integer handles, non-finite corners or
            ``lo > hi`` somewhere.
        """
        ...

    def update_many(self, handles: ArrayLike, lo: ArrayLike, hi: ArrayLike) -> None:
        """Give live handles new boxes.

        Parameters
        ----------
        handles : array_like of int, shape (M,)
            Live, distinct handles.
        lo, hi : array_like of float, shape (M, D)
            New box corners, finite, ``lo <= hi``.

        Raises
        ------
        UnknownIdError
            A handle is not live.
        InvalidArgumentError
            A handle appears twice, or the arrays are malformed.
        """
        ...

    def remove_many(self, handles: ArrayLike) -> None:
        """Forget live handles.

        Parameters
        ----------
        handles : array_like of int, shape (M,)
            Live, distinct handles.

        Raises
        ------
        UnknownIdError
            A handle is not live.
        InvalidArgumentError
            A handle appears twice, or ``handles`` is malformed.
        """
        ...

    def pairs(self) -> NDArray[np.int64]:
        """Every pair of live handles whose closed boxes overlap.

        Returns
        -------
        ndarray of int64, shape (P, 2)
            Rows ``(i, j)`` with ``i < j``, sorted lexicographically, without
            static-static pairs. The array may be shared with later calls
            until the next mutation, so it is read-only.
        """
        ...

    def pairs_touching(self, handles: ArrayLike) -> NDArray[np.int64]:
        """The pairs of :meth:`pairs` that hold at least one of ``handles``.

        This default filters :meth:`pairs`, O(P + M log M); implementations
        that can answer from the few boxes asked about (the sweep-and-prune's
        partner sets, a sweep restricted to the wanted boxes) override it.

        Parameters
        ----------
        handles : array_like of int, shape (M,)
            Live, distinct handles.

        Returns
        -------
        ndarray of int64, shape (Q, 2)
            Rows ``(i, j)`` with ``i < j``, sorted lexicographically, each
            holding at least one of ``handles``; no static-static pairs.

        Raises
        ------
        UnknownIdError
            A handle is not live.
        InvalidArgumentError
            A handle appears twice, or ``handles`` is malformed.

        Examples
        --------
        >>> from collideworld.broadphase import BruteForceBroadphase
        >>> bp = BruteForceBroadphase(2)
        >>> bp.insert_many([1, 2, 3], [[0, 0], [1, 0], [2, 0]], [[1, 1], [2, 1], [3, 1]])
        >>> bp.pairs().tolist()
        [[1, 2], [2, 3]]
        >>> bp.pairs_touching([3]).tolist()
        [[2, 3]]
        """
        h = as_handles(handles)
        check_live_handles(h, self)
        p = self.pairs()
        if not len(h) or not len(p):
            return np.zeros((0, 2), dtype=np.int64)
        out: NDArray[np.int64] = p[np.isin(p, h).any(axis=1)]
        return out

    def validate(self) -> None:
        """Check every internal invariant, and the pairs against a from-scratch answer.

        For tests and bug hunts, as Box2D's ``b2DynamicTree_Validate``: slow
        (up to O(n^2) numpy work on small sets), and built from ``assert``
        statements, so it checks nothing under ``python -O``.

        Raises
        ------
        AssertionError
            An invariant does not hold (a bug in the broadphase).

        Examples
        --------
        >>> from collideworld.broadphase import SweepAndPrune
        >>> sap = SweepAndPrune(2)
        >>> sap.insert_many([1, 2], [[0, 0], [1, 1]], [[1, 1], [2, 2]])
        >>> sap.validate()   # silent when everything holds
        """
        ...

    def prefers_incremental(self, changed: int) -> bool:
        """Whether asking :meth:`pairs_touching` for ``changed`` boxes is expected to beat one :meth:`pairs`.

        The world patches its candidate pairs when this says yes. The default
        says yes when at most a fifth of the boxes changed.
        """
        return changed <= 0.2 * len(self)

    # -- single-item conveniences, inherited by explicit subclasses ---------

    def insert(self, handle: int, lo: ArrayLike, hi: ArrayLike, static: bool = False) -> None:
        """Insert one handle; see :meth:`insert_many`."""
        lo_row = np.asarray(lo, dtype=np.float64)[None]
        hi_row = np.asarray(hi, dtype=np.float64)[None]
        self.insert_many([handle], lo_row, hi_row, [bool(static)])

    def update(self, handle: int, lo: ArrayLike, hi: ArrayLike) -> None:
        """Give one live handle a new box; see :meth:`update_many`."""
        lo_row = np.asarray(lo, dtype=np.float64)[None]
        hi_row = np.asarray(hi, dtype=np.float64)[None]
        self.update_many([handle], lo_row, hi_row)

    def remove(self, handle: int) -> None:
        """Remove one live handle; see :meth:`remove_many`."""
        self.remove_many([handle])


# -- shared input checks ----------------------------------------------------
# Each returns normalised arrays or raises before the caller touches state.


def as_handles(handles: ArrayLike) -> NDArray[np.int64]:
    """Handles as a 1-D int64 array; rejects floats, bools and other shapes."""
    arr = np.asarray(handles)
    if arr.ndim != 1:
        raise InvalidArgumentError(f"handles must be a 1-D array, got shape {arr.shape}")
    if arr.size == 0:
        # np.asarray([]) is float64; an empty batch is fine whatever its dtype.
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind not in "iu":
        raise InvalidArgumentError(f"handles must be integers, got dtype {arr.dtype}")
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
        raise InvalidArgumentError(f"handles must fit in int64, got {int(arr.max())}")
    return arr.astype(np.int64, copy=False)


def update_refit(broadphase: Broadphase, handles: NDArray[np.int64], lo: NDArray[np.float64],
                 hi: NDArray[np.float64]) -> None:
    """``broadphase.update_many(handles, lo, hi)``, by its unchecked ``update_known`` where it has one.

    For a caller that guarantees what ``update_many`` checks (the world's
    refit of its own fat boxes: live distinct handles, finite corners,
    ``lo <= hi``); a broadphase without ``update_known`` (a user's) gets the
    checked call. ``update_known`` is not part of the :class:`Broadphase`
    protocol, so users' own broadphases need not have it.

    Examples
    --------
    >>> from collideworld.broadphase.brute_force import BruteForceBroadphase
    >>> bp = BruteForceBroadphase(2)  # no update_known: the checked update_many
    >>> bp.insert_many([0, 1], [[0.0, 0.0], [5.0, 5.0]], [[1.0, 1.0], [6.0, 6.0]])
    >>> update_refit(bp, np.array([1]), np.array([[0.5, 0.5]]), np.array([[1.5, 1.5]]))
    >>> bp.pairs().tolist()
    [[0, 1]]
    """
    known = getattr(broadphase, "update_known", None)
    if known is not None:
        known(handles, lo, hi)
    else:
        broadphase.update_many(handles, lo, hi)


def put_rows(dst: NDArray[np.float64], rows: NDArray[np.int64], src: NDArray[np.float64]) -> None:
    """``dst[rows] = src`` for (n, D) float64 arrays, each row moved as one D * 8-byte item.

    The same bytes land in the same places; numpy's fancy assignment of 2-D
    rows loops over the D columns of every row, ~3x slower (7 against 19 us
    for 1,746 rows of 2).

    Examples
    --------
    >>> dst = np.zeros((3, 2))
    >>> put_rows(dst, np.array([2, 0]), np.array([[1.0, 2.0], [3.0, -0.0]]))
    >>> dst.tolist()
    [[3.0, -0.0], [0.0, 0.0], [1.0, 2.0]]
    """
    if not (dst.flags.c_contiguous and dst.dtype == np.float64 and dst.ndim == 2):
        dst[rows] = src
        return
    item = np.dtype((np.void, 8 * dst.shape[1]))
    dst.view(item)[:, 0][rows] = np.ascontiguousarray(src, dtype=np.float64).view(item)[:, 0]


def as_boxes(
    lo: ArrayLike, hi: ArrayLike, m: int, dim: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Box corners as two (M, D) float64 arrays, checked finite with lo <= hi.

    ``-0.0`` becomes ``+0.0`` (by adding 0.0) so that implementations which
    order floats by their bit patterns see one zero, not two.
    """
    lo_a = np.asarray(lo, dtype=np.float64)
    hi_a = np.asarray(hi, dtype=np.float64)
    for name, arr in (("lo", lo_a), ("hi", hi_a)):
        if arr.shape != (m, dim):
            raise InvalidArgumentError(f"{name} must have shape ({m}, {dim}), got {arr.shape}")
    if m:
        if not (np.isfinite(lo_a).all() and np.isfinite(hi_a).all()):
            bad = int(np.flatnonzero(~(np.isfinite(lo_a) & np.isfinite(hi_a)).all(axis=1))[0])
            raise InvalidArgumentError(
                f"box corners must be finite, got lo={lo_a[bad].tolist()}, hi={hi_a[bad].tolist()}"
            )
        if not (lo_a <= hi_a).all():
            bad = int(np.flatnonzero(~(lo_a <= hi_a).all(axis=1))[0])
            raise InvalidArgumentError(
                "box needs lo <= hi on every axis, "
                f"got lo={lo_a[bad].tolist()}, hi={hi_a[bad].tolist()}"
            )
    return lo_a + 0.0, hi_a + 0.0


def as_static(static: ArrayLike | None, m: int) -> NDArray[np.bool_]:
    """Static flags as an (M,) bool array; ``None`` means all dynamic."""
    if static is None:
        return np.zeros(m, dtype=bool)
    arr = np.asarray(static)
    if arr.ndim == 0:
        arr = np.broadcast_to(arr, (m,))
    if arr.shape != (m,):
        raise InvalidArgumentError(f"static must have shape ({m},), got {arr.shape}")
    if arr.size and arr.dtype != np.bool_:
        raise InvalidArgumentError(f"static must be booleans, got dtype {arr.dtype}")
    return arr.astype(bool, copy=True)


def check_new_handles(handles: NDArray[np.int64], live: Container[int]) -> list[int]:
    """Handles as Python ints; raise if one repeats or is already in ``live``."""
    hl: list[int] = handles.tolist()
    if len(set(hl)) != len(hl):
        seen: set[int] = set()
        for h in hl:
            if h in seen:
                raise DuplicateIdError(f"handle {h} appears more than once in this batch")
            seen.add(h)
    for h in hl:
        if h in live:
            raise DuplicateIdError(f"handle {h} is already in the broadphase")
    return hl


def check_live_handles(handles: NDArray[np.int64], live: Container[int]) -> list[int]:
    """Handles as Python ints; raise if one repeats or is not in ``live``."""
    hl: list[int] = handles.tolist()
    for h in hl:
        if h not in live:
            raise UnknownIdError(f"handle {h} is not in the broadphase")
    if len(set(hl)) != len(hl):
        seen: set[int] = set()
        for h in hl:
            if h in seen:
                raise InvalidArgumentError(f"handle {h} appears more than once in this batch")
            seen.add(h)
    return hl
