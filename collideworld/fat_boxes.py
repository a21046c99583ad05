"""Fat boxes: the bounds the broadphase holds for each body.

A body's *tight* box is its exact world AABB, widened by the touching
tolerance so the broadphase never drops a pair the kernels would call
touching. Its *fat* box is the tight box grown by ``fat_margin`` times the
body's bounding radius (static bodies get no margin), so that small moves
leave the broadphase alone: only a body whose tight box left its fat box is
updated there (Box2D's ``b2_aabbMargin``, relative here because one world may
hold bodies of very different sizes).

Every function takes the :class:`~collideworld.bodies.BodyStore` whose
``fat_lo`` / ``fat_hi`` columns it reads or writes.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from .backend import register_warm_up
from .bodies import BodyStore, Kind
from .broadphase import Broadphase
from .broadphase.base import update_refit
from .geometry.aabb import max_over_columns
from .geometry.tolerance import NEAR_MISS, REL_TOUCH_TOL, touch_tolerance

__all__ = ["tight_bounds", "set_fat_bounds", "refresh_moved", "query_bounds", "swept_bounds"]

Bounds = tuple[NDArray[np.float64], NDArray[np.float64]]


def tight_bounds(store: BodyStore, slots: NDArray[np.int64]) -> Bounds:
    """Tight boxes ``(lo, hi)``, each (len(slots), D), of finite bodies, widened by the touching tolerance.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle
    >>> store = BodyStore(2)
    >>> s = store.allocate(1)
    >>> store.set_shapes(s, [Circle(1.0)]); store.set_poses(s, np.array([[2.0, 0.0]]), np.zeros(1))
    >>> lo, hi = tight_bounds(store, s)
    >>> bool(lo[0, 0] < 1.0 < lo[0, 0] + 1e-12), bool(hi[0, 0] > 3.0)
    (True, True)
    """
    lo, hi = store.aabbs(slots)
    tol = touch_tolerance(np.maximum(max_over_columns(np.abs(lo)), max_over_columns(np.abs(hi))))[:, None]
    return lo - tol, hi + tol


def _grow_by_margin(store: BodyStore, slots: NDArray[np.int64], lo: NDArray[np.float64],
                    hi: NDArray[np.float64], fat_margin: float) -> None:
    margin = np.where(store.static[slots], 0.0, fat_margin * store.bound_radius[slots])[:, None]
    lo -= margin
    hi += margin
    store.fat_lo[slots] = lo
    store.fat_hi[slots] = hi


def set_fat_bounds(store: BodyStore, slots: NDArray[np.int64], fat_margin: float) -> Bounds:
    """Compute, store and return the fat boxes of finite bodies ``slots``.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle
    >>> store = BodyStore(2)
    >>> s = store.allocate(1)
    >>> store.set_shapes(s, [Circle(1.0)]); store.set_poses(s, np.zeros((1, 2)), np.zeros(1))
    >>> lo, hi = set_fat_bounds(store, s, 0.5)
    >>> np.round(hi, 9).tolist(), bool(np.all(store.fat_hi[s] == hi))
    ([[1.5, 1.5]], True)
    """
    lo, hi = tight_bounds(store, slots)
    _grow_by_margin(store, slots, lo, hi, fat_margin)
    return lo, hi


def refresh_moved(store: BodyStore, broadphase: Broadphase, fat_margin: float,
                  backend: str = "numpy") -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Clear the moved marks; refit the fat boxes that moved bodies left, in the store and the broadphase.

    Returns ``(moved, changed)``: the slots posed since the last step, and
    those of them whose fat box changed.

    Examples
    --------
    A small move stays inside the fat box; a large one leaves it:

    >>> import numpy as np
    >>> from collideworld.broadphase import BruteForceBroadphase
    >>> from collideworld import Circle
    >>> store, bp = BodyStore(2), BruteForceBroadphase(2)
    >>> s = store.allocate(2)
    >>> store.set_shapes(s, [Circle(1.0), Circle(1.0)]); store.set_poses(s, np.array([[0.0, 0], [9, 0]]), np.zeros(2))
    >>> bp.insert_many(s, *set_fat_bounds(store, s, 0.1))
    >>> store.set_poses(s, np.array([[0.05, 0], [12, 0]])); store.moved[s] = True
    >>> [a.tolist() for a in refresh_moved(store, bp, 0.1)]
    [[0, 1], [1]]
    """
    moved = np.flatnonzero(store.moved)
    if not len(moved):
        return moved, moved
    store.moved[moved] = False
    finite = moved[store.kind[moved] != Kind.HALFSPACE]
    if backend == "compiled":
        return moved, _refit_compiled(store, broadphase, finite, fat_margin)
    lo, hi = tight_bounds(store, finite)
    fat_lo, fat_hi = store.fat_lo.take(finite, axis=0), store.fat_hi.take(finite, axis=0)
    escaped = (fat_lo[:, 0] > lo[:, 0]) | (hi[:, 0] > fat_hi[:, 0])
    for d in range(1, store.dim):
        escaped |= (fat_lo[:, d] > lo[:, d]) | (hi[:, d] > fat_hi[:, d])
    esc = finite[escaped]
    if len(esc):
        lo, hi = lo[escaped], hi[escaped]
        _grow_by_margin(store, esc, lo, hi, fat_margin)
        update_refit(broadphase, esc, lo, hi)
    return moved, esc


# the layout of a 2D store's world_x / world_y (strided views of world_xy), so that 2D and 3D share one
# compiled specialisation of the refit loop: numba types an array by its contiguity flags, and numpy
# flags every empty array contiguous, so the stand-in has one (never read: no polygons in 3D) column
_NO_PLANES = np.zeros((1, 8, 2))[:, :, 0].T


def _refit_compiled(store: BodyStore, broadphase: Broadphase, finite: NDArray[np.int64],
                    fat_margin: float) -> NDArray[np.int64]:
    """:func:`refresh_moved`'s refit in one compiled loop; the kinds it does not handle by the numpy path."""
    from .compiled.fat_boxes import refit_moved

    st = store
    planes_x = st.world_x if st.dim == 2 else _NO_PLANES
    planes_y = st.world_y if st.dim == 2 else _NO_PLANES
    escaped, other = refit_moved(finite, st.kind, st.simple, st.position, st.rotation, st.radius, st.half,
                                 st.seg0, st.seg1, planes_x, planes_y, st.static, st.bound_radius, st.rounding,
                                 st.fat_lo, st.fat_hi, fat_margin, REL_TOUCH_TOL, st.part_slots, st.parts_at,
                                 st.n_parts)
    esc = finite[escaped]
    if other.any():
        rest = finite[other]
        lo, hi = tight_bounds(st, rest)
        out = ((st.fat_lo.take(rest, axis=0) > lo) | (hi > st.fat_hi.take(rest, axis=0))).any(axis=1)
        if out.any():
            _grow_by_margin(st, rest[out], lo[out], hi[out], fat_margin)
            esc = np.sort(np.concatenate([esc, rest[out]]))
    if len(esc):
        update_refit(broadphase, esc, st.fat_lo.take(esc, axis=0), st.fat_hi.take(esc, axis=0))
    return esc


def query_bounds(store: BodyStore) -> Bounds:
    """Boxes that hold every finite body now: the fat boxes, with the tight box of each body moved since the step.

    Fat boxes are refreshed by ``step()`` only, so a query between a move
    and the next step would miss a body that left its fat box.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle
    >>> store = BodyStore(2)
    >>> s = store.allocate(1)
    >>> store.set_shapes(s, [Circle(1.0)]); store.set_poses(s, np.zeros((1, 2)), np.zeros(1))
    >>> _ = set_fat_bounds(store, s, 0.1)
    >>> store.set_poses(s, np.array([[5.0, 0.0]])); store.moved[s] = True
    >>> lo, hi = query_bounds(store)
    >>> np.round(lo[s], 9).tolist()       # where the body is now, not its stale fat box
    [[4.0, -1.0]]
    """
    moved = np.flatnonzero(store.moved)
    moved = moved[store.kind[moved] != Kind.HALFSPACE]
    if not len(moved):
        return store.fat_lo, store.fat_hi
    lo, hi = store.fat_lo.copy(), store.fat_hi.copy()
    lo[moved], hi[moved] = tight_bounds(store, moved)
    return lo, hi


@register_warm_up
def _warm_up_refit(dim: int) -> None:
    """Compile :func:`_refit_compiled`'s loop on a one-box store (called by ``collideworld.warm_up``)."""
    from .compiled.fat_boxes import refit_moved
    from .shapes import Box

    st = BodyStore(dim)
    s = st.allocate(1)
    st.set_shapes(s, [Box((1.0,) * dim)])
    if dim == 2:
        st.set_poses(s, np.zeros((1, 2)), np.zeros(1))
    else:
        st.set_poses(s, np.zeros((1, 3)), quaternion=np.array([[1.0, 0.0, 0.0, 0.0]]))
    planes_x = st.world_x if dim == 2 else _NO_PLANES
    planes_y = st.world_y if dim == 2 else _NO_PLANES
    refit_moved(s, st.kind, st.simple, st.position, st.rotation, st.radius, st.half, st.seg0, st.seg1, planes_x,
                planes_y, st.static, st.bound_radius, st.rounding, st.fat_lo.copy(), st.fat_hi.copy(), 0.1,
                REL_TOUCH_TOL, st.part_slots, st.parts_at, st.n_parts)


def swept_bounds(p0: NDArray[np.float64], ang0: NDArray[np.float64] | None, p1: NDArray[np.float64],
                 ang1: NDArray[np.float64] | None, r: float, lo0: NDArray[np.float64], hi0: NDArray[np.float64],
                 lo1: NDArray[np.float64], hi1: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The box a shape sweeps from one pose to another (``World.cast``'s candidates).

    ``p0``, ``p1`` are the shape's origin at the two poses, ``ang0``,
    ``ang1`` its 2D angles (None in 3D), ``r`` its bounding radius, and
    ``lo0``..``hi1`` its tight boxes at the two poses.

    Examples
    --------
    >>> import numpy as np
    >>> z = np.zeros(2)
    >>> lo, hi = swept_bounds(z, np.zeros(1), np.array([2.0, 0.0]), np.zeros(1), 1.0, z - 1, z + 1,
    ...                       np.array([1.0, -1.0]), np.array([3.0, 1.0]))
    >>> np.round(lo, 6).tolist(), np.round(hi, 6).tolist()
    ([-1.0, -1.0], [3.0, 1.0])
    """
    # Every point of the shape stays within its bounding radius of the shape's origin (a
    # compound's: the body's), and that origin moves on the segment p0-p1 however the shape
    # turns, so the swept box is that segment's box grown by the radius. The end poses' boxes
    # say nothing of a turn between them (a blade hinged at one end and turned most of a
    # circle passes where neither end box is): their centres are not the origin.
    # widened like a tight box by the touching tolerance of its coordinates, by a relative
    # margin far above the rounding of the radius and the rotation, and by the gap that
    # time_of_impact still calls a touch (NEAR_MISS of the farthest any point moves; a 3D
    # turn along the shortest arc is at most pi)
    scale = float(max(np.abs(p0).max(), np.abs(p1).max())) + r
    turn = abs(float(ang1[0]) - float(ang0[0])) if ang0 is not None and ang1 is not None else math.pi
    extent = float(np.linalg.norm(p1 - p0)) + turn * r
    reach = r * (1 + 1e-9) + float(touch_tolerance(scale)) + NEAR_MISS * extent
    lo = np.minimum(np.minimum(p0, p1) - reach, np.minimum(lo0, lo1))
    hi = np.maximum(np.maximum(p0, p1) + reach, np.maximum(hi0, hi1))
    return lo, hi
