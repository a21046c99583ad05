"""Narrowphase: exact contacts for arrays of body pairs, grouped by shape kinds.

``contact_pairs(store, ia, ib)`` takes two arrays of slots of a
:class:`~collideworld.bodies.BodyStore` and returns, for every pair, whether
the bodies touch, the contact normal (from ``ia`` towards ``ib``) and the
penetration depth. It sorts the pairs into groups by kind pair, puts each
group in the canonical order (half-space < ball < box < polygon), makes one
batched kernel call per group, flips the normals of the pairs it swapped, and
scatters the results back. Kernels are registered in one table, filled once
(Jolt's registration idea); there is no mirrored copy of any kernel.

Polygons enter the kernels as convex parts: a pair involving a concave
polygon becomes one row per pair of parts; the pair hits if any row hits, and
its normal and depth are those of its most deeply penetrating row.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from numpy.typing import NDArray

from .bodies import BodyStore, Kind
from .geometry.aabb import max_over_columns
from .geometry.contact_ball import contact_ball_ball, contact_ball_box, contact_ball_polygon
from .geometry.contact_box import contact_box_box_2d
from .geometry.contact_box_3d import contact_box_box_3d
from .geometry.contact_halfspace import (
    contact_halfspace_ball,
    contact_halfspace_box,
    contact_halfspace_halfspace,
    contact_halfspace_points,
)
from .geometry.contact_polygon import contact_box_polygon, contact_polygon_polygon
from .geometry.result import ContactArrays
from .geometry.tolerance import touch_tolerance

__all__ = ["contact_pairs", "contact_pairs_exact", "PAIR_KERNELS"]

Slots = NDArray[np.int64]
PairKernel = Callable[[BodyStore, Slots, Slots], ContactArrays]

#: (dim, kind_a, kind_b) -> function(store, slots_a, slots_b), kind_a <= kind_b.
PAIR_KERNELS: dict[tuple[int, Kind, Kind], PairKernel] = {}


def _register(dims: tuple[int, ...], ka: Kind, kb: Kind) -> Callable[[PairKernel], PairKernel]:
    def deco(fn: PairKernel) -> PairKernel:
        for d in dims:
            PAIR_KERNELS[(d, ka, kb)] = fn
        return fn
    return deco


def _empty(n: int, dim: int) -> ContactArrays:
    return ContactArrays(np.zeros(n, dtype=bool), np.zeros((n, dim)), np.full(n, -np.inf))


# -- polygon parts ---------------------------------------------------------------

def _expand(counts: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """For rows with ``counts`` children each: (parent row, child number) per child."""
    parent = np.repeat(np.arange(len(counts)), counts)
    starts = np.cumsum(counts) - counts
    child = np.arange(int(counts.sum())) - starts[parent]
    return parent, child


def _parts_of(store: BodyStore, slots: Slots) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Expand polygon bodies into their parts: (row into ``slots``, part id) per part."""
    first, count, _ = store.parts.shape_arrays()
    shape = store.poly[slots]
    counts = count[shape]
    if counts.max(initial=1) == 1:  # all convex: one part each, nothing to expand
        return np.arange(len(slots)), first[shape]
    row, child = _expand(counts)
    return row, first[shape][row] + child


def _most_penetrating(pair_of_row: NDArray[np.int64], res: ContactArrays, n: int) -> ContactArrays:
    """Reduce per-part rows to per-pair results: any hit; deepest hit's normal and depth."""
    if len(pair_of_row) == n:  # one row per pair (all convex): nothing to reduce
        return res
    score = np.where(res.hit, res.depth, -np.inf)
    order = np.lexsort((-score, pair_of_row))
    sorted_pairs = pair_of_row[order]
    first = order[np.r_[True, sorted_pairs[1:] != sorted_pairs[:-1]]]
    # every pair has at least one part row, so ``first`` lists pairs 0..n-1 in order
    assert len(first) == n
    return ContactArrays(res.hit[first], res.normal[first], res.depth[first])


def _run_by_bucket(store: BodyStore, groups: list[tuple[Slots, NDArray[np.int64]]],
                   kernel: Callable[..., ContactArrays], n: int, dim: int,
                   before: Callable[[NDArray[np.int64]], tuple[Any, ...]] = lambda idx: ()) -> ContactArrays:
    """Call ``kernel(*before(idx), verts...)`` once per combination of part buckets.

    ``groups`` lists the polygon sides as ``(slots, part_ids)``, each of length n.
    """
    bucket_of, _ = store.parts.part_arrays()
    key = np.zeros(n, dtype=np.int64)
    for _, part_ids in groups:
        key = key * 1_000_003 + bucket_of[part_ids]
    out = _empty(n, dim)
    for k in np.unique(key).tolist():
        idx = np.flatnonzero(key == k)
        verts = []
        for slots, part_ids in groups:
            [(_, v)] = store.part_vertices_world(slots[idx], part_ids[idx])
            verts.append(v)
        res = kernel(*before(idx), *verts)
        out.hit[idx], out.normal[idx], out.depth[idx] = res
    return out


# -- the kernels, by kind pair ------------------------------------------------------

@_register((2, 3), Kind.HALFSPACE, Kind.HALFSPACE)
def _halfspace_halfspace(s: BodyStore, a: Slots, b: Slots) -> ContactArrays:
    return contact_halfspace_halfspace(s.plane_normal[a], s.plane_offset[a], s.plane_normal[b], s.plane_offset[b])


@_register((2, 3), Kind.HALFSPACE, Kind.BALL)
def _halfspace_ball(s: BodyStore, a: Slots, b: Slots) -> ContactArrays:
    return contact_halfspace_ball(s.plane_normal[a], s.plane_offset[a], s.position[b], s.radius[b])


@_register((2, 3), Kind.HALFSPACE, Kind.BOX)
def _halfspace_box(s: BodyStore, a: Slots, b: Slots) -> ContactArrays:
    return contact_halfspace_box(s.plane_normal[a], s.plane_offset[a], s.position[b], s.rotation[b], s.half[b])


@_register((2,), Kind.HALFSPACE, Kind.POLYGON)
def _halfspace_polygon(s: BodyStore, a: Slots, b: Slots) -> ContactArrays:
    # the lowest vertex of the outline is the lowest point of the polygon,
    # concave or not, so no split into parts is needed against a half-plane
    n = len(a)
    out = _empty(n, 2)
    for idx, verts in s.polygon_outline_world(b):
        res = contact_halfspace_points(s.plane_normal[a[idx]], s.plane_offset[a[idx]], verts)
        out.hit[idx], out.normal[idx], out.depth[idx] = res
    return out


@_register((2, 3), Kind.BALL, Kind.BALL)
def _ball_ball(s: BodyStore, a: Slots, b: Slots) -> ContactArrays:
    return contact_ball_ball(s.position[a], s.radius[a], s.position[b], s.radius[b])


@_register((2, 3), Kind.BALL, Kind.BOX)
def _ball_box(s: BodyStore, a: Slots, b: Slots) -> ContactArrays:
    return contact_ball_box(s.position[a], s.radius[a], s.position[b], s.rotation[b], s.half[b])


@_register((2,), Kind.BALL, Kind.POLYGON)
def _ball_polygon(s: BodyStore, a: Slots, b: Slots) -> ContactArrays:
    row, part = _parts_of(s, b)
    ra, rb = a[row], b[row]
    res = _run_by_bucket(s, [(rb, part)], contact_ball_polygon, len(row), 2,
                         lambda idx: (s.position[ra[idx]], s.radius[ra[idx]]))
    return _most_penetrating(row, res, len(a))


@_register((2,), Kind.BOX, Kind.BOX)
def _box_box_2d(s: BodyStore, a: Slots, b: Slots) -> ContactArrays:
    return contact_box_box_2d(s.position[a], s.rotation[a], s.half[a], s.position[b], s.rotation[b], s.half[b])


@_register((3,), Kind.BOX, Kind.BOX)
def _box_box_3d(s: BodyStore, a: Slots, b: Slots) -> ContactArrays:
    return contact_box_box_3d(s.position[a], s.rotation[a], s.half[a], s.position[b], s.rotation[b], s.half[b])


@_register((2,), Kind.BOX, Kind.POLYGON)
def _box_polygon(s: BodyStore, a: Slots, b: Slots) -> ContactArrays:
    row, part = _parts_of(s, b)
    ra, rb = a[row], b[row]
    res = _run_by_bucket(s, [(rb, part)], contact_box_polygon, len(row), 2,
                         lambda idx: (s.position[ra[idx]], s.rotation[ra[idx]], s.half[ra[idx]]))
    return _most_penetrating(row, res, len(a))


@_register((2,), Kind.POLYGON, Kind.POLYGON)
def _polygon_polygon(s: BodyStore, a: Slots, b: Slots) -> ContactArrays:
    row_a, part_a = _parts_of(s, a)
    first, count, _ = s.parts.shape_arrays()
    shape_b = s.poly[b[row_a]]
    row2, child = _expand(count[shape_b])
    part_b = first[shape_b][row2] + child
    pair = row_a[row2]
    res = _run_by_bucket(s, [(a[pair], part_a[row2]), (b[pair], part_b)], contact_polygon_polygon,
                         len(pair), 2)
    return _most_penetrating(pair, res, len(a))


# -- the dispatcher -------------------------------------------------------------------

def contact_pairs(store: BodyStore, ia: Slots, ib: Slots) -> ContactArrays:
    """Exact contacts of bodies ``ia[k]`` and ``ib[k]`` for every k.

    Parameters
    ----------
    store : BodyStore
    ia, ib : ndarray of int64, shape (N,)
        Slots of live bodies.

    Returns
    -------
    ContactArrays
        ``normal`` (N, D) points from body ``ia`` towards body ``ib``.
    """
    n = len(ia)
    dim = store.dim
    out = _empty(n, dim)
    if n == 0:
        return out
    # cheap reject: bodies whose bounding balls are apart cannot touch. The
    # bounding radii are exact maxima over the shapes; the slack (the
    # kernels' touching tolerance, twice, plus a relative 1e-9 for rounding in
    # the radii) means this never drops a pair a kernel would call touching.
    pa = store.position[ia]
    gap = pa - store.position[ib]
    reach = store.bound_radius[ia] + store.bound_radius[ib]
    slack = 2.0 * touch_tolerance(max_over_columns(np.abs(pa)) + max_over_columns(np.abs(gap)) + reach)
    dist2 = gap[:, 0] * gap[:, 0]
    for d in range(1, store.dim):
        dist2 += gap[:, d] * gap[:, d]
    near = dist2 <= np.square(reach * (1 + 1e-9) + slack)
    if not near.all():
        idx = np.flatnonzero(near)
        res = contact_pairs_exact(store, ia[idx], ib[idx])
        out.hit[idx], out.normal[idx], out.depth[idx] = res
        out.normal[~near, 0] = 1.0
        return out
    return contact_pairs_exact(store, ia, ib)


def contact_pairs_exact(store: BodyStore, ia: Slots, ib: Slots) -> ContactArrays:
    """:func:`contact_pairs` without the bounding-ball reject: every pair goes to its kernel."""
    n = len(ia)
    dim = store.dim
    out = _empty(n, dim)
    if n == 0:
        return out
    ka = store.kind[ia].astype(np.int64)
    kb = store.kind[ib].astype(np.int64)
    swap = ka > kb
    first = np.where(swap, ib, ia)
    second = np.where(swap, ia, ib)
    code = np.minimum(ka, kb) * 4 + np.maximum(ka, kb)
    for c in np.unique(code).tolist():
        idx = np.flatnonzero(code == c) if n > 1 else np.zeros(1, dtype=np.int64)
        kernel = PAIR_KERNELS[(dim, Kind(c // 4), Kind(c % 4))]
        res = kernel(store, first[idx], second[idx])
        out.hit[idx] = res.hit
        out.normal[idx] = res.normal
        out.depth[idx] = res.depth
    out.normal[swap] *= -1.0
    # adding 0.0 turns the -0.0 a flip makes of a zero component into +0.0,
    # so results print and serialise the same whichever order a pair came in
    np.add(out.normal, 0.0, out=out.normal)
    return out
