"""Queries against the bodies of a world: shapes, points, boxes and rays.

A query asks the same kernels as a step (the narrowphase's dispatch tables
:data:`~collideworld.narrowphase.PAIR_KERNELS` and
:data:`~collideworld.narrowphase.RAY_KERNELS`), on the bodies whose boxes the
query reaches. The boxes are the fat boxes, with the tight box of every body
posed since the last step (:func:`~collideworld.fat_boxes.query_bounds`), so a
query sees each body where it is now.

Shape, point and box queries put their probe into a scratch slot of the
store, so that a probe is an ordinary posed shape for the kernels; the slot
is freed before the query returns, whatever happens.

Inputs are checked by the :class:`~collideworld.world.World` methods that
call these functions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .bodies import BodyStore, Kind
from .fat_boxes import query_bounds, tight_bounds
from .narrowphase import contact_pairs, raycast_slots

__all__ = ["RayHit", "overlapping_ids", "ray_hits"]

Setup = Callable[[NDArray[np.int64]], None]


class RayHit(NamedTuple):
    """One body hit by :meth:`World.raycast`.

    Attributes
    ----------
    id : str or int
    point : ndarray of float64, shape (D,)
        Where the ray first meets the body (the origin if it starts inside).
    normal : ndarray of float64, shape (D,)
        Unit outward surface normal there (``-direction`` from inside).
    distance : float
        Along the ray, in world units.

    Examples
    --------
    A ray from the origin along +x enters the unit circle at (5, 0) at x = 4:

    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add(Circle(1.0), position=(5, 0), id="target")
    'target'
    >>> [hit] = w.raycast((0, 0), (1, 0))
    >>> hit.id, hit.point.tolist(), hit.normal.tolist(), hit.distance
    ('target', [4.0, 0.0], [-1.0, 0.0], 4.0)
    """

    id: Any
    point: NDArray[np.float64]
    normal: NDArray[np.float64]
    distance: float


def _passes_filter(store: BodyStore, category: int, mask: int) -> NDArray[np.bool_]:
    passes: NDArray[np.bool_] = ((store.category & np.uint32(mask)) != 0) & ((np.uint32(category) & store.mask) != 0)
    return passes


def _in_add_order(store: BodyStore, slots: NDArray[np.int64]) -> list[Any]:
    ids: list[Any] = store.ids[slots[np.argsort(store.serial[slots], kind="stable")]].tolist()
    return ids


def overlapping_ids(store: BodyStore, setup: Setup, category: int, mask: int, backend: str = "numpy") -> list[Any]:
    """Ids, in add order, of the bodies a probe touches (exact); ``setup(slot)`` writes the probe.

    Examples
    --------
    A unit circle at (1.5, 0) as the probe, against a world's bodies:

    >>> import numpy as np
    >>> from collideworld import Box, Circle, World
    >>> w = World(dim=2)
    >>> w.add(Box((1.0, 1.0)), id="box"), w.add(Circle(1.0), position=(9, 0), id="far")
    ('box', 'far')
    >>> def probe(slots):
    ...     w._store.set_shapes(slots, [Circle(1.0)])
    ...     w._store.set_poses(slots, np.array([[1.5, 0.0]]), np.zeros(1))
    >>> overlapping_ids(w._store, probe, 0xFFFFFFFF, 0xFFFFFFFF)
    ['box']
    """
    probe = store.allocate(1)
    try:
        setup(probe)
        lo, hi = tight_bounds(store, probe)
        box_lo, box_hi = query_bounds(store)
        live = (store.kind >= 0) & (np.arange(store.capacity) != probe[0])
        near = live & (((box_lo <= hi[0]) & (lo[0] <= box_hi)).all(axis=1) | (store.kind == Kind.HALFSPACE))
        near &= _passes_filter(store, category, mask)
        cand = np.flatnonzero(near)
        res = contact_pairs(store, np.full(len(cand), probe[0]), cand, backend)
    finally:
        store.release(probe)
    return _in_add_order(store, cand[res.hit])


def ray_hits(store: BodyStore, origin: NDArray[np.float64], direction: NDArray[np.float64],
             max_distance: float, category: int, mask: int) -> list[RayHit]:
    """Every body a ray meets within ``max_distance``, nearest first (then add order).

    ``direction`` is of unit length.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add(Circle(1.0), position=(5, 0), id="disc")
    'disc'
    >>> [(h.id, h.distance) for h in ray_hits(w._store, np.zeros(2), np.array([1.0, 0.0]), 3.0, 1, 1)]
    []
    >>> [(h.id, h.distance) for h in ray_hits(w._store, np.zeros(2), np.array([1.0, 0.0]), 9.0, 1, 1)]
    [('disc', 4.0)]
    """
    live = (store.kind >= 0) & _passes_filter(store, category, mask)
    # cull by the bodies' boxes with a slab test before the exact casts
    box_lo, box_hi = query_bounds(store)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / direction
        t1 = (box_lo - origin) * inv
        t2 = (box_hi - origin) * inv
    tmin = np.where(np.isnan(t1), -np.inf, np.minimum(t1, t2)).max(axis=1)
    tmax = np.where(np.isnan(t2), np.inf, np.maximum(t1, t2)).min(axis=1)
    parallel_out = ((direction == 0) & ((origin < box_lo) | (origin > box_hi))).any(axis=1)
    near = live & (tmin <= tmax) & (tmax >= 0) & (tmin <= max_distance) & ~parallel_out
    near |= live & (store.kind == Kind.HALFSPACE)
    cand = np.flatnonzero(near)
    dist, normal = raycast_slots(store, cand, origin, direction, max_distance)
    ok = np.isfinite(dist)
    cand, dist, normal = cand[ok], dist[ok], normal[ok]
    order = np.lexsort((store.serial[cand], dist))
    return [RayHit(store.ids[cand[k]], origin + direction * dist[k], normal[k].copy(), float(dist[k]))
            for k in order.tolist()]
