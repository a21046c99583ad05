"""Narrowphase: exact contacts for arrays of body pairs, grouped by shape kinds.

``contact_pairs(store, ia, ib)`` takes two arrays of slots of a
:class:`~collideworld.bodies.BodyStore` and returns, for every pair, whether
the bodies touch, the contact normal (from ``ia`` towards ``ib``) and the
penetration depth. It sorts the pairs into groups by kind pair, puts each
group in the canonical order (half-space < ball < box < polygon), makes one
batched kernel call per group, flips the normals of the pairs it swapped, and
scatters the results back. Kernels are registered in one table, filled once
(Jolt's registration idea); there is no mirrored copy of any kernel.

Every kernel has a compiled (numba) twin of the same name in
:mod:`collideworld.geometry.compiled`; ``backend="compiled"`` runs the twins
through the same table (:data:`KERNEL_TWINS` says where each lives). On that
backend :func:`contact_pairs` first runs one compiled loop over all pairs
(:mod:`collideworld.geometry.compiled.contact_slots`), which reads the
store's columns by slot and calls the twins' per-row routines: no grouping,
no gathering, a handful of calls per step. Only pairs with a polygon that is
not simple (concave, or many vertices) take the grouped path there. Every pair
gets the same bits either way, so the backends differ only inside the kernels.

Polygons enter the kernels as convex parts: a pair involving a concave
polygon becomes one row per pair of parts; the pair hits if any row hits, and
its normal and depth are those of its most deeply penetrating row. A World's
store never hands this module a concave polygon (it keeps one as a compound
of its pieces, so each piece is a contact of its own:
``BodyStore.split_concave``); the one-row stores of ``collide_many``, the
query probes and a compound's concave part still do.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .backend import resolve_backend
from .background import compiled_ready
from .bodies import BodyStore, Kind
from .geometry.contact_ball_ball import contact_ball_ball
from .geometry.contact_ball_box import contact_ball_box
from .geometry.contact_ball_capsule import contact_ball_capsule
from .geometry.contact_ball_polygon import contact_ball_polygon, contact_ball_polygon_planes
from .geometry.contact_box_box_2d import contact_box_box_2d
from .geometry.contact_box_box_3d import contact_box_box_3d
from .geometry.contact_box_capsule_3d import contact_box_capsule_3d
from .geometry.contact_box_polygon import contact_box_convex_planes, contact_box_polygon
from .geometry.contact_capsule_capsule import contact_capsule_capsule
from .geometry.contact_halfspace_ball import contact_halfspace_ball
from .geometry.contact_halfspace_box import contact_halfspace_box
from .geometry.contact_halfspace_capsule import contact_halfspace_capsule
from .geometry.contact_halfspace_halfspace import contact_halfspace_halfspace
from .geometry.contact_halfspace_polygon import contact_halfspace_points
from .geometry.contact_hull import (
    contact_ball_hull,
    contact_box_hull,
    contact_capsule_hull,
    contact_hull_hull,
    set_compile_gate,
)
from .geometry.contact_polygon_capsule import contact_polygon_capsule
from .geometry.contact_polygon_polygon import contact_convex_planes, contact_polygon_polygon
from .geometry.contact_triangle import (
    contact_halfspace_triangle,
    contact_polytope_triangle,
    contact_triangle_triangle,
    no_snag,
)
from .geometry.kernel_support import box_vertices_2d
from .geometry.manifold_support import ManifoldArrays, empty_manifold
from .geometry.raycast import (
    raycast_ball,
    raycast_box,
    raycast_capsule,
    raycast_cylinder,
    raycast_halfspace,
    raycast_hull,
    raycast_polygon,
    raycast_triangle,
)
from .geometry.result import ContactArrays
from .geometry.tolerance import SQUARES_UNDERFLOW, touch_tolerance

__all__ = ["contact_pairs", "contact_pairs_exact", "raycast_slots", "polygon_parts", "PAIR_KERNELS", "RAY_KERNELS",
           "MAX_BATCH",
           "Kernels", "KERNEL_TWINS", "kernels_for", "MANIFOLD_KERNELS", "MANIFOLD_TWINS", "ManifoldKernels",
           "manifold_kernels_for", "manifold_pairs"]

Slots = NDArray[np.int64]
Kernel = Callable[..., ContactArrays]


class Kernels(NamedTuple):
    """The geometry kernels one backend provides, by name (numpy's, or their compiled twins).

    Examples
    --------
    >>> kernels_for("numpy").contact_ball_ball.__module__.startswith("collideworld.geometry.")
    True
    """

    contact_halfspace_halfspace: Kernel
    contact_halfspace_ball: Kernel
    contact_halfspace_box: Kernel
    contact_halfspace_points: Kernel
    contact_ball_ball: Kernel
    contact_ball_box: Kernel
    contact_ball_polygon: Kernel
    contact_ball_polygon_planes: Kernel
    contact_box_box_2d: Kernel
    contact_box_box_3d: Kernel
    contact_box_polygon: Kernel
    contact_box_convex_planes: Kernel
    contact_polygon_polygon: Kernel
    contact_convex_planes: Kernel
    # capsules (and segments), 2D and 3D
    contact_halfspace_capsule: Kernel
    contact_ball_capsule: Kernel
    contact_box_capsule_3d: Kernel
    contact_polygon_capsule: Kernel
    contact_capsule_capsule: Kernel
    # convex hulls (3D)
    contact_ball_hull: Kernel
    contact_box_hull: Kernel
    contact_capsule_hull: Kernel
    contact_hull_hull: Kernel
    # triangles of meshes and heightfields (3D)
    contact_polytope_triangle: Kernel


_NUMPY_KERNELS = Kernels(
    contact_halfspace_halfspace, contact_halfspace_ball, contact_halfspace_box, contact_halfspace_points,
    contact_ball_ball, contact_ball_box, contact_ball_polygon, contact_ball_polygon_planes,
    contact_box_box_2d, contact_box_box_3d, contact_box_polygon, contact_box_convex_planes,
    contact_polygon_polygon, contact_convex_planes,
    contact_halfspace_capsule, contact_ball_capsule, contact_box_capsule_3d, contact_polygon_capsule,
    contact_capsule_capsule,
    contact_ball_hull, contact_box_hull, contact_capsule_hull, contact_hull_hull,
    contact_polytope_triangle,
)

#: kernel name -> module of :mod:`collideworld.geometry.compiled` holding its twin
#: (the file name of the numpy kernel: one file per shape pair).
KERNEL_TWINS: dict[str, str] = {
    "contact_halfspace_halfspace": "contact_halfspace_halfspace",
    "contact_halfspace_ball": "contact_halfspace_ball",
    "contact_halfspace_box": "contact_halfspace_box",
    "contact_halfspace_points": "contact_halfspace_polygon",
    "contact_ball_ball": "contact_ball_ball",
    "contact_ball_box": "contact_ball_box",
    "contact_ball_polygon": "contact_ball_polygon",
    "contact_ball_polygon_planes": "contact_ball_polygon",
    "contact_box_box_2d": "contact_box_box_2d",
    "contact_box_box_3d": "contact_box_box_3d",
    "contact_box_polygon": "contact_box_polygon",
    "contact_box_convex_planes": "contact_box_polygon",
    "contact_polygon_polygon": "contact_polygon_polygon",
    "contact_convex_planes": "contact_polygon_polygon",
    "contact_halfspace_capsule": "contact_halfspace_capsule",
    "contact_ball_capsule": "contact_ball_capsule",
    "contact_box_capsule_3d": "contact_box_capsule_3d",
    "contact_polygon_capsule": "contact_polygon_capsule",
    "contact_capsule_capsule": "contact_capsule_capsule",
    "contact_ball_hull": "contact_hull",
    "contact_box_hull": "contact_hull",
    "contact_capsule_hull": "contact_hull",
    "contact_hull_hull": "contact_hull",
    "contact_polytope_triangle": "contact_triangle",
}

_compiled_kernels: Kernels | None = None

# The numpy hull kernels' GJK driver compiles (~5 s of CPU on an empty cache) only once the compiled
# kernels may run, so that a backend="auto" step waits for no compiler while a builder runs
set_compile_gate(compiled_ready)


def kernels_for(backend: str) -> Kernels:
    """The kernels of a resolved backend, ``"numpy"`` or ``"compiled"``.

    The compiled twins are imported (with numba) on first use only.

    Parameters
    ----------
    backend : {"numpy", "compiled"}

    Returns
    -------
    Kernels

    Examples
    --------
    >>> kernels_for("numpy").contact_box_box_3d.__name__
    'contact_box_box_3d'
    """
    global _compiled_kernels
    if backend == "numpy":
        return _NUMPY_KERNELS
    if _compiled_kernels is None:
        _compiled_kernels = Kernels(**{
            name: getattr(importlib.import_module(f"{__package__}.geometry.compiled.{module}"), name)
            for name, module in KERNEL_TWINS.items()
        })
    return _compiled_kernels


PairKernel = Callable[[BodyStore, Slots, Slots, Kernels], ContactArrays]

#: (dim, kind_a, kind_b) -> function(store, slots_a, slots_b, kernels), kind_a <= kind_b;
#: ``kernels`` is the backend's :class:`Kernels`.
PAIR_KERNELS: dict[tuple[int, Kind, Kind], PairKernel] = {}

#: Number of shape kinds: a kind pair's group code is ``min * _KINDS + max``.
_KINDS = max(Kind) + 1

#: Pairs per batch of kernel calls in :func:`contact_pairs` (larger inputs go in slices).
MAX_BATCH = 1 << 16


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


def polygon_parts(store: BodyStore, slots: Slots) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Expand polygon bodies into their convex parts: (row into ``slots``, part id) per part.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Polygon
    >>> store = BodyStore(2)
    >>> s = store.allocate(1)
    >>> store.set_shapes(s, [Polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)])])  # an L: 2 parts
    >>> row, part = polygon_parts(store, s)
    >>> row.tolist(), len(part)
    ([0, 0], 2)
    """
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
def _halfspace_halfspace(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return k.contact_halfspace_halfspace(*s.plane_rows(a), *s.plane_rows(b))


@_register((2, 3), Kind.HALFSPACE, Kind.BALL)
def _halfspace_ball(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return k.contact_halfspace_ball(*s.plane_rows(a), *s.ball_rows(b))


@_register((2, 3), Kind.HALFSPACE, Kind.BOX)
def _halfspace_box(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return k.contact_halfspace_box(*s.plane_rows(a), *s.box_rows(b))


@_register((2,), Kind.HALFSPACE, Kind.POLYGON)
def _halfspace_polygon(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    # the lowest vertex of the outline is the lowest point of the polygon,
    # concave or not, so no split into parts is needed against a half-plane
    n = len(a)
    out = _empty(n, 2)
    for idx, verts in s.polygon_outline_world(b):
        res = k.contact_halfspace_points(*s.plane_rows(a[idx]), verts)
        out.hit[idx], out.normal[idx], out.depth[idx] = res
    return out


@_register((2, 3), Kind.BALL, Kind.BALL)
def _ball_ball(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return k.contact_ball_ball(*s.ball_rows(a), *s.ball_rows(b))


@_register((2, 3), Kind.BALL, Kind.BOX)
def _ball_box(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return k.contact_ball_box(*s.ball_rows(a), *s.box_rows(b))


def _by_cache(fast: NDArray[np.bool_], n: int, cached: PairKernel, general: PairKernel,
              s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    """Run ``cached`` on the pairs flagged ``fast`` and ``general`` on the rest.

    Which path a pair takes depends on that pair alone (are its polygons
    simple?), never on the rest of the batch, so results cannot depend on
    which other pairs were tested with it.
    """
    if fast.all():
        return cached(s, a, b, k)
    if not fast.any():
        return general(s, a, b, k)
    out = _empty(n, 2)
    for sel, kernel in ((np.flatnonzero(fast), cached), (np.flatnonzero(~fast), general)):
        res = kernel(s, a[sel], b[sel], k)
        out.hit[sel], out.normal[sel], out.depth[sel] = res
    return out


def _ball_polygon_cached(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    px, py = s.polygon_planes(b)
    return k.contact_ball_polygon_planes(*s.ball_rows(a), px, py)


def _ball_polygon_parts(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    row, part = polygon_parts(s, b)
    ra, rb = a[row], b[row]
    res = _run_by_bucket(s, [(rb, part)], k.contact_ball_polygon, len(row), 2,
                         lambda idx: s.ball_rows(ra[idx]))
    return _most_penetrating(row, res, len(a))


@_register((2,), Kind.BALL, Kind.POLYGON)
def _ball_polygon(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return _by_cache(s.simple[b], len(a), _ball_polygon_cached, _ball_polygon_parts, s, a, b, k)


@_register((2,), Kind.BOX, Kind.BOX)
def _box_box_2d(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return k.contact_box_box_2d(*s.box_rows(a), *s.box_rows(b))


@_register((3,), Kind.BOX, Kind.BOX)
def _box_box_3d(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return k.contact_box_box_3d(*s.box_rows(a), *s.box_rows(b))


def _box_polygon_cached(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    bx, by = s.polygon_planes(b)
    return k.contact_box_convex_planes(*s.box_rows(a), bx, by)


def _box_polygon_parts(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    row, part = polygon_parts(s, b)
    ra, rb = a[row], b[row]
    res = _run_by_bucket(s, [(rb, part)], k.contact_box_polygon, len(row), 2,
                         lambda idx: s.box_rows(ra[idx]))
    return _most_penetrating(row, res, len(a))


@_register((2,), Kind.BOX, Kind.POLYGON)
def _box_polygon(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return _by_cache(s.simple[b], len(a), _box_polygon_cached, _box_polygon_parts, s, a, b, k)


def _polygon_polygon_cached(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    ax, ay = s.polygon_planes(a)
    bx, by = s.polygon_planes(b)
    return k.contact_convex_planes(ax, ay, bx, by)


def _polygon_polygon_parts(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    row_a, part_a = polygon_parts(s, a)
    first, count, _ = s.parts.shape_arrays()
    shape_b = s.poly[b[row_a]]
    row2, child = _expand(count[shape_b])
    part_b = first[shape_b][row2] + child
    pair = row_a[row2]
    res = _run_by_bucket(s, [(a[pair], part_a[row2]), (b[pair], part_b)], k.contact_polygon_polygon,
                         len(pair), 2)
    return _most_penetrating(pair, res, len(a))


@_register((2,), Kind.POLYGON, Kind.POLYGON)
def _polygon_polygon(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return _by_cache(s.simple[a] & s.simple[b], len(a), _polygon_polygon_cached, _polygon_polygon_parts, s, a, b, k)


# -- capsules and segments (a segment is a capsule of radius 0) ----------------------

@_register((2, 3), Kind.HALFSPACE, Kind.CAPSULE)
def _halfspace_capsule(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return k.contact_halfspace_capsule(*s.plane_rows(a), *s.capsule_rows(b))


@_register((2, 3), Kind.BALL, Kind.CAPSULE)
def _ball_capsule(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return k.contact_ball_capsule(*s.ball_rows(a), *s.capsule_rows(b))


@_register((2,), Kind.BOX, Kind.CAPSULE)
def _box_capsule_2d(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    # a rectangle is the convex polygon of its four corners, counter-clockwise
    return k.contact_polygon_capsule(box_vertices_2d(*s.box_rows(a)), *s.capsule_rows(b))


@_register((3,), Kind.BOX, Kind.CAPSULE)
def _box_capsule_3d(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return k.contact_box_capsule_3d(*s.box_rows(a), *s.capsule_rows(b))


@_register((2,), Kind.POLYGON, Kind.CAPSULE)
def _polygon_capsule(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    row, part = polygon_parts(s, a)
    ra, rb = a[row], b[row]
    n = len(row)
    out = _empty(n, 2)
    for idx, verts in s.part_vertices_world(ra, part):
        res = k.contact_polygon_capsule(verts, *s.capsule_rows(rb[idx]))
        out.hit[idx], out.normal[idx], out.depth[idx] = res
    return _most_penetrating(row, out, len(a))


@_register((2, 3), Kind.CAPSULE, Kind.CAPSULE)
def _capsule_capsule(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return k.contact_capsule_capsule(*s.capsule_rows(a), *s.capsule_rows(b))


# -- convex hulls (3D): every pair as grown polytopes (geometry/contact_hull.py) ----------
#
# The half-space pair is the lowest vertex (contact_halfspace_points); the
# others take the hull as BodyStore.hull_arrays gives it.

@_register((3,), Kind.HALFSPACE, Kind.HULL)
def _halfspace_hull(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return k.contact_halfspace_points(*s.plane_rows(a), s.hull_vertices(b))


@_register((3,), Kind.BALL, Kind.HULL)
def _ball_hull(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return k.contact_ball_hull(*s.ball_rows(a), *s.hull_arrays(b))


@_register((3,), Kind.BOX, Kind.HULL)
def _box_hull(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return k.contact_box_hull(*s.box_rows(a), *s.hull_arrays(b))


@_register((3,), Kind.CAPSULE, Kind.HULL)
def _capsule_hull(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return k.contact_capsule_hull(*s.capsule_rows(a), *s.hull_arrays(b))


@_register((3,), Kind.HULL, Kind.HULL)
def _hull_hull(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return k.contact_hull_hull(*s.hull_arrays(a), *s.hull_arrays(b))


# -- cylinders and cones (3D): support mappings, GJK then EPA (geometry/support_convex.py) --
#
# One kernel for every pair with a cylinder or a cone, each shape as its support
# rows (BodyStore.support_arrays); the half-space pair is the closed form of the
# lowest support point. The same compiled code serves both backends.

def support_scale(s: BodyStore, a: Slots, b: Slots) -> NDArray[np.float64]:
    """Coordinate magnitude of pairs (a, b): their positions' largest coordinate plus both bounding radii."""
    pos = np.abs(s.position.take(a, axis=0)).max(axis=1)
    pos = np.maximum(pos, np.abs(s.position.take(b, axis=0)).max(axis=1))
    scale: NDArray[np.float64] = pos + s.bound_radius.take(a) + s.bound_radius.take(b)
    return scale


def _halfspace_round(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    scale = np.abs(s.position.take(b, axis=0)).max(axis=1) + s.bound_radius.take(b) + np.abs(s.plane_offset.take(a))
    from .geometry import support_convex  # imports numba: not at `import collideworld`

    normal, offset = s.plane_rows(a)
    cb, pb, rb, qb, verts = s.support_arrays(b)
    return support_convex.contact_halfspace_support(normal, offset, cb, pb, rb, qb, verts, scale)


#: The kinds only the support-mapping kernels (geometry/support_convex.py) know.
_CURVED = np.array([Kind.CYLINDER, Kind.CONE])


def _support_witness_rows(s: BodyStore, a: Slots, b: Slots
                          ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """support_convex.support_witnesses of pairs (a, b): (signed depth, normal a -> b, points (n, 6))."""
    from .geometry import support_convex  # imports numba: not at `import collideworld`

    ca, pa, ra, qa, va = s.support_arrays(a)
    cb, pb, rb, qb, vb = s.support_arrays(b)
    if len(vb) > 1:
        hull = cb == Kind.HULL
        qb[hull, 0] += len(va)
        va = np.concatenate([va, vb])
    return support_convex.support_witnesses(ca, pa, ra, qa, cb, pb, rb, qb, va, support_scale(s, a, b))


def _support_pair(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    ca, pa, ra, qa, va = s.support_arrays(a)
    cb, pb, rb, qb, vb = s.support_arrays(b)
    if len(vb) > 1:  # b's hull vertices after a's: shift b's hull rows' first index
        hull = cb == Kind.HULL
        qb[hull, 0] += len(va)
        va = np.concatenate([va, vb])
    from .geometry import support_convex  # imports numba: not at `import collideworld`

    return support_convex.contact_support(ca, pa, ra, qa, cb, pb, rb, qb, va, support_scale(s, a, b))


def _round_triangle(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    from .geometry import support_convex  # imports numba: not at `import collideworld`

    res = _support_pair(s, a, b, k)
    # the no-snag rule (contact_triangle.no_snag) on the curved shape's two extreme points across the
    # triangle's plane: the lowest point along either face normal is one of them, which is all the
    # rule reads of the shape (its depth along the face normal, and which side it is on)
    tri = s.triangle_rows(b)
    fn = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    fn /= np.linalg.norm(fn, axis=1)[:, None]
    ca, pa, ra, qa, va = s.support_arrays(a)
    extremes = np.stack([support_convex.lowest_points(fn, ca, pa, ra, qa, va),
                         support_convex.lowest_points(-fn, ca, pa, ra, qa, va)], axis=1)
    return no_snag(res, tri, s.tri_active.take(b, axis=0), extremes, np.zeros(len(a)))


for _round in (Kind.CYLINDER, Kind.CONE):
    _register((3,), Kind.HALFSPACE, _round)(_halfspace_round)
    for _other in (Kind.BALL, Kind.BOX, Kind.CAPSULE, Kind.HULL, Kind.CYLINDER, Kind.CONE):
        if _other <= _round:
            _register((3,), _other, _round)(_support_pair)
    # a mesh's or heightfield's triangle (part slots; TRIANGLE is the last kind, so always b): a flat hull
    _register((3,), _round, Kind.TRIANGLE)(_round_triangle)
# -- triangles of meshes and heightfields (3D): grown polytopes, then the no-snag rule --------
#
# TRIANGLE is the last kind, so the triangle is always b. The compiled twin of
# contact_polytope_triangle runs the same GJK routine and the same SAT axes in
# one loop over rows; the twins agree to rounding, with the same hits.

_BOX_CORNERS = np.array([[x, y, z] for x in (-1.0, 1.0) for y in (-1.0, 1.0) for z in (-1.0, 1.0)])


@_register((3,), Kind.HALFSPACE, Kind.TRIANGLE)
def _halfspace_triangle(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return contact_halfspace_triangle(*s.plane_rows(a), s.triangle_rows(b))


@_register((3,), Kind.BALL, Kind.TRIANGLE)
def _ball_triangle(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    centre, radius = s.ball_rows(a)
    empty = np.zeros((len(a), 0, 3))
    return k.contact_polytope_triangle(centre[:, None, :], empty, empty, radius, s.triangle_rows(b),
                                       s.tri_active.take(b, axis=0))


@_register((3,), Kind.BOX, Kind.TRIANGLE)
def _box_triangle(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    centre, rotation, half = s.box_rows(a)
    corners = centre[:, None, :] + np.einsum("nij,ncj->nci", rotation, _BOX_CORNERS[None] * half[:, None, :])
    axes = np.swapaxes(rotation, 1, 2)
    return k.contact_polytope_triangle(corners, axes, axes, np.zeros(len(a)), s.triangle_rows(b),
                                       s.tri_active.take(b, axis=0))


@_register((3,), Kind.CAPSULE, Kind.TRIANGLE)
def _capsule_triangle(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    p0, p1, radius = s.capsule_rows(a)
    return k.contact_polytope_triangle(np.stack([p0, p1], axis=1), np.zeros((len(a), 0, 3)), (p1 - p0)[:, None, :],
                                       radius, s.triangle_rows(b), s.tri_active.take(b, axis=0))


@_register((3,), Kind.HULL, Kind.TRIANGLE)
def _hull_triangle(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    verts, normals, edges = s.hull_rows(a)
    return k.contact_polytope_triangle(verts, normals, edges, np.zeros(len(a)), s.triangle_rows(b),
                                       s.tri_active.take(b, axis=0))


@_register((3,), Kind.TRIANGLE, Kind.TRIANGLE)
def _triangle_triangle(s: BodyStore, a: Slots, b: Slots, k: Kernels) -> ContactArrays:
    return contact_triangle_triangle(s.triangle_rows(a), s.tri_active.take(a, axis=0), s.triangle_rows(b),
                                       s.tri_active.take(b, axis=0))


# -- the dispatcher -------------------------------------------------------------------

def contact_pairs(store: BodyStore, ia: Slots, ib: Slots, backend: str = "numpy") -> ContactArrays:
    """Exact contacts of bodies ``ia[k]`` and ``ib[k]`` for every k.

    Parameters
    ----------
    store : BodyStore
    ia, ib : ndarray of int64, shape (N,)
        Slots of live bodies.
    backend : {"numpy", "compiled", "auto"}, optional
        Which kernels run (see :func:`collideworld.backend.resolve_backend`);
        the results are the same hit decisions either way.

    Returns
    -------
    ContactArrays
        ``hit`` (N,), ``normal`` (N, D) from body ``ia`` towards body ``ib``,
        ``depth`` (N,).

    Examples
    --------
    A unit circle at the origin against a 1x1 box (half extents 0.5) centred
    at (1.25, 0) overlaps by 1 - 0.75 = 0.25 along +x; the same pair the
    other way round has the normal flipped; a far circle misses:

    >>> import numpy as np
    >>> from collideworld import Box, Circle
    >>> store = BodyStore(2)
    >>> s = store.allocate(3)
    >>> store.set_shapes(s, [Circle(1.0), Box((0.5, 0.5)), Circle(1.0)])
    >>> store.set_poses(s, np.array([[0.0, 0.0], [1.25, 0.0], [9.0, 0.0]]), np.zeros(3))
    >>> res = contact_pairs(store, s[[0, 1, 0]], s[[1, 0, 2]])
    >>> res.hit.tolist(), res.normal[:2].tolist(), res.depth[:2].tolist()
    ([True, True, False], [[1.0, 0.0], [-1.0, 0.0]], [0.25, 0.25])
    >>> contact_pairs(store, s[[0, 1, 0]], s[[1, 0, 2]], backend="compiled").depth[:2].tolist()
    [0.25, 0.25]
    """
    resolved = resolve_backend(backend)
    kernels = kernels_for(resolved)
    if resolved == "compiled":
        return _grown(store, ia, ib, _contact_pairs_compiled(store, ia, ib, kernels, reject=True))
    return _grown(store, ia, ib, _contact_pairs_numpy(store, ia, ib, kernels))


def _contact_pairs_numpy(store: BodyStore, ia: Slots, ib: Slots, kernels: Kernels) -> ContactArrays:
    n = len(ia)
    if n > MAX_BATCH:
        # in slices: the kernels' temporaries (a few hundred bytes per pair)
        # stay bounded however many pairs there are; each pair's answer
        # depends on that pair alone, so slicing changes no bit
        out = _empty(n, store.dim)
        for start in range(0, n, MAX_BATCH):
            part = slice(start, start + MAX_BATCH)
            out.hit[part], out.normal[part], out.depth[part] = _contact_pairs_batch(store, ia[part], ib[part], kernels)
        return out
    return _contact_pairs_batch(store, ia, ib, kernels)


def _contact_pairs_batch(store: BodyStore, ia: Slots, ib: Slots, kernels: Kernels) -> ContactArrays:
    n = len(ia)
    dim = store.dim
    if n == 0:
        return _empty(n, dim)
    # cheap reject: bodies whose bounding balls are apart cannot touch. The
    # bounding radii are exact maxima over the shapes; the slack (the
    # kernels' touching tolerance, twice, plus a relative 1e-9 for rounding in
    # the radii) means this never drops a pair a kernel would call touching.
    pa = store.position.take(ia, axis=0)
    gap = pa - store.position.take(ib, axis=0)
    reach = store.bound_radius[ia] + store.bound_radius[ib]
    size = np.abs(pa[:, 0])
    dist2 = gap[:, 0] * gap[:, 0]
    for d in range(1, dim):
        np.maximum(size, np.abs(pa[:, d]), out=size)
        dist2 += gap[:, d] * gap[:, d]
    spread = np.abs(gap[:, 0])
    for d in range(1, dim):
        np.maximum(spread, np.abs(gap[:, d]), out=spread)
    slack = 2.0 * touch_tolerance(size + spread + reach)
    limit2 = np.square(reach * (1 + 1e-9) + slack)
    # squares under SQUARES_UNDERFLOW (bodies under ~1e-154) have lost bits:
    # such pairs are never rejected here, their kernels decide
    near = (dist2 <= limit2) | (limit2 < SQUARES_UNDERFLOW)
    idx = np.flatnonzero(near)
    if len(idx) == n:
        return _contact_pairs_exact(store, ia, ib, kernels)
    out = _empty(n, dim)
    out.normal[:, 0] = 1.0
    if len(idx):
        res = _contact_pairs_exact(store, ia[idx], ib[idx], kernels)
        out.hit[idx], out.normal[idx], out.depth[idx] = res
    return out


def contact_pairs_exact(store: BodyStore, ia: Slots, ib: Slots, backend: str = "numpy") -> ContactArrays:
    """:func:`contact_pairs` without the bounding-ball reject: every pair goes to its kernel.

    Same arguments (``backend`` included) and results; a pair the reject would settle as apart gets
    the kernel's own normal and depth (negative: the separation) instead.

    Examples
    --------
    Two unit circles whose centres are 3 apart are separated by 1:

    >>> import numpy as np
    >>> from collideworld import Circle
    >>> store = BodyStore(2)
    >>> s = store.allocate(2)
    >>> store.set_shapes(s, [Circle(1.0), Circle(1.0)])
    >>> store.set_poses(s, np.array([[0.0, 0.0], [3.0, 0.0]]), np.zeros(2))
    >>> res = contact_pairs_exact(store, s[:1], s[1:])
    >>> res.hit.tolist(), res.normal.tolist(), res.depth.tolist()
    ([False], [[1.0, 0.0]], [-1.0])
    """
    resolved = resolve_backend(backend)
    if resolved == "compiled":
        return _grown(store, ia, ib, _contact_pairs_compiled(store, ia, ib, kernels_for(resolved), reject=False))
    return _grown(store, ia, ib, _contact_pairs_exact(store, ia, ib, kernels_for(resolved)))


def _grown(store: BodyStore, ia: Slots, ib: Slots, res: ContactArrays) -> ContactArrays:
    """The kernels' answers on the cores, made the rounded shapes' and the chains' answers."""
    return smooth_chain_contacts(store, ia, ib, rounded_contacts(store, ia, ib, res))


def rounded_contacts(store: BodyStore, ia: Slots, ib: Slots, res: ContactArrays) -> ContactArrays:
    """Grow the contacts of rounded shapes (``store.rounding``) from their cores', in place.

    A rounded shape is its core (the box, polygon or hull the kernels see)
    grown by a radius r: the Minkowski sum with a ball. The Minkowski
    difference of two such shapes is the cores' difference grown by
    ``ra + rb``, so (the classic core-then-radius contact of Box2D's rounded
    polygons and of the capsule kernels here):

    * cores overlapping or touching: the same normal, depth ``core depth + ra + rb``;
    * cores apart by ``d <= ra + rb`` (GJK on the cores, :func:`gjk.closest_rows`;
      a half-space's gap from the core's support): touching, depth
      ``ra + rb - d``, the normal along the cores' closest points.
    """
    if not store.n_rounded or not len(ia):
        return res
    grow = store.rounding.take(ia) + store.rounding.take(ib)
    rows = np.flatnonzero(grow > 0)
    if not len(rows):
        return res
    overlap = rows[res.hit[rows]]
    res.depth[overlap] += grow[overlap]
    apart = rows[~res.hit[rows]]
    a, b = ia.take(apart), ib.take(apart)
    centres = store.position.take(a, axis=0) - store.position.take(b, axis=0)
    near = np.sqrt(np.sum(centres * centres, axis=1)) <= (store.bound_radius.take(a) + store.bound_radius.take(b)) * (
        1 + 1e-12)
    ka, kb = store.kind.take(a), store.kind.take(b)
    plane = near & ((ka == Kind.HALFSPACE) | (kb == Kind.HALFSPACE))
    if plane.any():
        # a half-space {n . x <= offset} against a core: its lowest point's height over the boundary
        k = np.flatnonzero(plane)
        first = ka[k] == Kind.HALFSPACE
        hs, other = np.where(first, a[k], b[k]), np.where(first, b[k], a[k])
        n = store.plane_normal.take(hs, axis=0)
        gap = -(store.support(other, -n) - store.rounding.take(other)) - store.plane_offset.take(hs)
        rr = grow[apart[k]]
        touch = gap <= rr
        r = apart[k[touch]]
        res.hit[r] = True
        res.depth[r] = rr[touch] - gap[touch]
        res.normal[r] = n[touch] * np.where(first[touch], 1.0, -1.0)[:, None] + 0.0
    curved = np.isin(ka, _CURVED) | np.isin(kb, _CURVED)
    k = np.flatnonzero(near & ~plane & curved)
    if len(k):
        # a rounded box or hull against a cylinder or cone: the cores' gap from the support-mapping
        # GJK (a cylinder has no vertex core for gjk.closest_rows)
        signed, normal, _ = _support_witness_rows(store, a[k], b[k])
        gap = -signed
        rr = grow[apart[k]]
        touch = gap <= rr
        r = apart[k[touch]]
        res.hit[r] = True
        res.depth[r] = rr[touch] - gap[touch]
        res.normal[r] = normal[touch] + 0.0
    k = np.flatnonzero(near & ~plane & ~curved)
    if len(k):
        va, na, ra = store.core_points(a[k])
        vb, nb, rb = store.core_points(b[k])
        out = np.zeros((len(k), 9))
        from .geometry import gjk  # imports numba: not at `import collideworld` (test_import_does_not_import_numba)

        gap = gjk.closest_rows(va, na, vb, nb, out) - ra - rb
        rr = grow[apart[k]]
        touch = gap <= rr
        r = apart[k[touch]]
        res.hit[r] = True
        res.depth[r] = rr[touch] - gap[touch]
        res.normal[r] = out[touch, 6:6 + store.dim] + 0.0
    return res


#: A normal leaning along a chain segment by more than this (the cosine to its tangent) leans past its end.
_LEAN = 1e-12


def smooth_chain_contacts(store: BodyStore, ia: Slots, ib: Slots, res: ContactArrays) -> ContactArrays:
    """Apply the no-snag rule of chains to ``res`` in place: a straight run of segments is one face.

    A contact of a chain segment whose normal leans past an end of the
    segment (towards a neighbour that continues it on the same line) came
    from that shared vertex: the shape also touches the neighbour there.
    Its normal becomes the segment's face normal (towards the side the
    shape reaches less far across the line) and its depth the shape's reach
    across the segment's line (``offset - min over the shape of face . x``,
    from the shape's support function): what the neighbour reports, so nothing catches on
    the vertex. Box2D v3's smooth chain segments drop such vertex normals
    the same way through their ghost vertices. Both backends run this on
    their kernels' results, so their answers agree.
    """
    if not store.n_chains or not len(ia):
        return res
    sa, sb = store.straight.take(ia), store.straight.take(ib)
    rows = np.flatnonzero(res.hit & ((sa | sb) != 0))
    if not len(rows):
        return res
    on_a = sa[rows] != 0
    seg = np.where(on_a, ia[rows], ib[rows])
    other = np.where(on_a, ib[rows], ia[rows])
    sign = np.where(on_a, 1.0, -1.0)[:, None]
    n = res.normal[rows] * sign  # from the segment towards the other shape
    p0, p1, _ = store.capsule_rows(seg)
    t = p1 - p0
    t /= np.hypot(t[:, 0], t[:, 1])[:, None]
    face = np.stack([-t[:, 1], t[:, 0]], axis=1)
    lean = np.sum(n * t, axis=1)
    bits = store.straight.take(seg)
    snap = ((lean > _LEAN) & ((bits & 2) != 0)) | ((lean < -_LEAN) & ((bits & 1) != 0))
    snap &= store.kind.take(other) != Kind.HALFSPACE
    if not snap.any():
        return res
    k = np.flatnonzero(snap)
    face, p0 = face[k], p0[k]
    # the side the shape is pushed out to is the one needing the shorter push (a normal along the
    # segment, at right angles to the face, cannot say which)
    offset = np.sum(face * p0, axis=1)
    up = offset + store.support(other[k], -face)
    down = store.support(other[k], face) - offset
    keep = up <= down
    face *= np.where(keep, 1.0, -1.0)[:, None]
    depth = np.where(keep, up, down)
    r = rows[k]
    res.normal[r] = face * sign[k] + 0.0
    res.depth[r] = depth
    return res


#: 3D stores have no polygons; an (8, 1) strided view, as the 2D planes below are: one
#: layout for both makes numba compile the compiled contact loop once, not once per layout
_NO_PLANES = np.zeros((1, 8, 2))[:, :, 0].T


def _contact_pairs_compiled(store: BodyStore, ia: Slots, ib: Slots, kernels: Kernels, reject: bool) -> ContactArrays:
    """The compiled backend: one compiled loop over all pairs, reading the store's columns by slot.

    Pairs of a triangle (a mesh's or heightfield's part slot) with a ball, box
    or capsule then go through one more compiled loop over slots
    (``compiled/contact_triangle.contact_triangle_slots``). Other pairs with a
    polygon that is not simple (concave, or many vertices), a capsule or a hull come
    back flagged and go through the grouped path (:func:`_contact_pairs_exact`,
    polygons split into parts) with the compiled kernels. Each pair gets the
    bits the grouped path would give it: the loop calls the same per-row
    routines, after the same reject.
    """
    from .geometry.compiled.contact_slots import contact_slots

    st = store
    # the slot-major copy, seen as (8, cap) planes: the row routines index [vertex, slot]
    # whatever the strides, and a polygon's vertices are then adjacent in memory
    planes_x = st.world_xy[:, :, 0].T if st.dim == 2 else _NO_PLANES
    planes_y = st.world_xy[:, :, 1].T if st.dim == 2 else _NO_PLANES
    out, other = contact_slots(ia, ib, st.kind, st.simple, st.position, st.rotation, st.radius, st.half,
                               st.plane_normal, st.plane_offset, st.bound_radius, planes_x, planes_y, st.poly,
                               st.parts.simple_n, reject)
    if other.any():
        idx = np.flatnonzero(other)
        if st.dim == 3 and _has_triangles(st, ia, ib, idx):
            # triangles of meshes and heightfields against balls, boxes and capsules: one more compiled
            # loop reading the columns by slot (the row routine of the compiled contact_polytope_triangle),
            # answers written in place in ``out``'s rows
            from .geometry.compiled.contact_triangle import contact_triangle_rows

            rest = contact_triangle_rows(idx, ia, ib, st.kind, st.position, st.rotation, st.radius, st.half,
                                         st.seg0, st.seg1, st.tri, st.tri_active, out.hit, out.normal, out.depth)
            idx = idx[rest]
        if st.dim == 3 and len(idx):
            idx = _capsule_slot_pairs(st, ia, ib, idx, out)
        if st.dim == 3 and len(idx):
            idx = _support_slot_pairs(st, ia, ib, idx, out)
        if len(idx):
            res = _contact_pairs_exact(st, ia[idx], ib[idx], kernels)
            out.hit[idx], out.normal[idx], out.depth[idx] = res
    return out


def _has_triangles(st: BodyStore, ia: Slots, ib: Slots, idx: Slots) -> bool:
    """Whether the store may hold triangle part slots among pairs ``idx``: it has a surface (a world's store),
    or, in a store without the ``surface`` column (the queries' scratch stores), a pair has a triangle."""
    surface = getattr(st, "surface", None)
    if surface is not None:
        return bool(surface.any())
    tri = (st.kind.take(ia.take(idx)) == Kind.TRIANGLE) | (st.kind.take(ib.take(idx)) == Kind.TRIANGLE)
    return bool(tri.any())


def _capsule_slot_pairs(st: BodyStore, ia: Slots, ib: Slots, idx: Slots, out: ContactArrays) -> Slots:
    """3D pairs ``idx`` of a capsule with a ball, box or capsule in one compiled loop reading the columns by
    slot (``compiled/capsule_slots``: the grouped path's bits without its sort and gathers, ~0.7 ms a frame
    of numpy's fixed costs in benchmarks/meshes.py); returns the rest of ``idx``."""
    from .geometry.compiled.capsule_slots import capsule_slots

    rest = capsule_slots(idx, ia, ib, st.kind, st.position, st.rotation, st.radius, st.half, st.seg0, st.seg1,
                         out.hit, out.normal, out.depth)
    left: Slots = idx[rest]
    return left


def _support_slot_pairs(st: BodyStore, ia: Slots, ib: Slots, idx: Slots, out: ContactArrays) -> Slots:
    """Pairs ``idx`` with a cylinder or cone (but no hull or triangle) in one compiled loop reading the
    columns by slot (``compiled/support_slots``: the grouped path's bits); returns the rest of ``idx``."""
    ka = st.kind.take(ia.take(idx))
    kb = st.kind.take(ib.take(idx))
    curved = np.isin(ka, _CURVED) | np.isin(kb, _CURVED)
    if not curved.any():
        return idx
    from .geometry.compiled.kernel_support import touch_rule
    from .geometry.compiled.support_slots import support_slots

    sel = idx[curved]
    res, rest = support_slots(ia[sel], ib[sel], st.kind, st.position, st.rotation, st.radius, st.half, st.seg0,
                              st.seg1, st.plane_normal, st.plane_offset, st.bound_radius, touch_rule())
    done = sel[~rest]
    out.hit[done], out.normal[done], out.depth[done] = res.hit[~rest], res.normal[~rest], res.depth[~rest]
    left: Slots = np.concatenate([idx[~curved], sel[rest]])
    return left


def _contact_pairs_exact(store: BodyStore, ia: Slots, ib: Slots, kernels: Kernels) -> ContactArrays:
    n = len(ia)
    dim = store.dim
    if n == 0:
        return _empty(n, dim)
    ka = store.kind[ia]
    kb = store.kind[ib]
    swap = ka > kb
    first = np.where(swap, ib, ia)
    second = np.where(swap, ia, ib)
    code = np.minimum(ka, kb).astype(np.int64) * _KINDS + np.maximum(ka, kb)
    # Group the pairs by kind pair with one stable sort of small ints (a
    # radix sort in numpy) rather than one scan of all pairs per group; each
    # group is then a contiguous run, whose results land in contiguous slices.
    order = np.argsort(code, kind="stable")
    counts = np.bincount(code, minlength=_KINDS * _KINDS)
    hit = np.empty(n, dtype=bool)
    normal = np.empty((n, dim))
    depth = np.empty(n)
    start = 0
    for c in np.flatnonzero(counts).tolist():
        stop = start + int(counts[c])
        idx = order[start:stop]
        kernel = PAIR_KERNELS[(dim, Kind(c // _KINDS), Kind(c % _KINDS))]
        res = kernel(store, first[idx], second[idx], kernels)
        hit[start:stop] = res.hit
        normal[start:stop] = res.normal
        depth[start:stop] = res.depth
        start = stop
    out = _empty(n, dim)
    out.hit[order] = hit
    out.depth[order] = depth
    # flip the normals of swapped pairs (a -> b again); adding 0.0 turns the
    # -0.0 a flip makes of a zero component into +0.0, so results print and
    # serialise the same whichever order a pair came in
    normal *= np.where(swap[order], -1.0, 1.0)[:, None]
    normal += 0.0
    out.normal[order] = normal
    return out


# -- ray casts, by kind --------------------------------------------------------------
#
# The same table idea for the other question a body answers: where does a ray
# first meet it. Each entry takes the slots of one kind and returns
# (distance (n,), normal (n, D)), with distance = inf where the ray misses.

RayAnswer = tuple[NDArray[np.float64], NDArray[np.float64]]
RayKernel = Callable[[BodyStore, Slots, NDArray[np.float64], NDArray[np.float64], float], RayAnswer]

#: kind -> function(store, slots, origin, unit direction, max_distance).
RAY_KERNELS: dict[Kind, RayKernel] = {}


def _register_ray(kind: Kind) -> Callable[[RayKernel], RayKernel]:
    def deco(fn: RayKernel) -> RayKernel:
        RAY_KERNELS[kind] = fn
        return fn
    return deco


def _ray_answer(r: Any) -> RayAnswer:
    return np.where(r.hit, r.distance, np.inf), np.asarray(r.normal, dtype=np.float64)


@_register_ray(Kind.HALFSPACE)
def ray_halfspace(s: BodyStore, slots: Slots, o: NDArray[np.float64], d: NDArray[np.float64],
                   max_distance: float) -> RayAnswer:
    return _ray_answer(raycast_halfspace(o, d, max_distance, *s.plane_rows(slots)))


@_register_ray(Kind.BALL)
def _ray_ball(s: BodyStore, slots: Slots, o: NDArray[np.float64], d: NDArray[np.float64],
              max_distance: float) -> RayAnswer:
    return _ray_answer(raycast_ball(o, d, max_distance, *s.ball_rows(slots)))


@_register_ray(Kind.CYLINDER)
@_register_ray(Kind.CONE)
def _ray_cylinder(s: BodyStore, slots: Slots, o: NDArray[np.float64], d: NDArray[np.float64],
                  max_distance: float) -> RayAnswer:
    return _ray_answer(raycast_cylinder(o, d, max_distance, s.position.take(slots, axis=0),
                                        s.rotation.take(slots, axis=0), s.radius.take(slots),
                                        s.half.take(slots, axis=0)[:, 2], s.kind.take(slots) == Kind.CONE))


@_register_ray(Kind.BOX)
def _ray_box(s: BodyStore, slots: Slots, o: NDArray[np.float64], d: NDArray[np.float64],
             max_distance: float) -> RayAnswer:
    return _ray_answer(raycast_box(o, d, max_distance, *s.box_rows(slots)))


@_register_ray(Kind.POLYGON)
def _ray_polygon(s: BodyStore, slots: Slots, o: NDArray[np.float64], d: NDArray[np.float64],
                 max_distance: float) -> RayAnswer:
    row, part = polygon_parts(s, slots)
    pd = np.full(len(row), np.inf)
    pn = np.zeros((len(row), 2))
    for idx, verts in s.part_vertices_world(slots[row], part):
        r = raycast_polygon(o, d, max_distance, verts)
        pd[idx] = np.where(r.hit, r.distance, np.inf)
        pn[idx] = r.normal
    # the entry into the union of the parts is the nearest entry into any part
    order = np.lexsort((pd, row))
    firsts = order[np.r_[True, row[order][1:] != row[order][:-1]]]
    return pd[firsts], pn[firsts]


@_register_ray(Kind.CAPSULE)
def _ray_capsule(s: BodyStore, slots: Slots, o: NDArray[np.float64], d: NDArray[np.float64],
                 max_distance: float) -> RayAnswer:
    return _ray_answer(raycast_capsule(o, d, max_distance, *s.capsule_rows(slots)))


@_register_ray(Kind.TRIANGLE)
def _ray_triangle(s: BodyStore, slots: Slots, o: NDArray[np.float64], d: NDArray[np.float64],
                  max_distance: float) -> RayAnswer:
    return _ray_answer(raycast_triangle(o, d, max_distance, s.triangle_rows(slots)))


@_register_ray(Kind.HULL)
def _ray_hull(s: BodyStore, slots: Slots, o: NDArray[np.float64], d: NDArray[np.float64],
              max_distance: float) -> RayAnswer:
    h = s.hull.take(slots)
    return _ray_answer(raycast_hull(o, d, max_distance, s.position.take(slots, axis=0),
                                    s.rotation.take(slots, axis=0), s.hulls.normals[h], s.hulls.offsets[h],
                                    s.hulls.reach[h]))


@_register_ray(Kind.COMPOUND)
def _ray_compound(s: BodyStore, slots: Slots, o: NDArray[np.float64], d: NDArray[np.float64],
                  max_distance: float) -> RayAnswer:
    # a compound's parts sit in slots of their own: the nearest entry into any part
    row, parts = s.compound_parts(slots)
    pd, pn = raycast_slots(s, parts, o, d, max_distance)
    order = np.lexsort((pd, row))
    firsts = order[np.r_[True, row[order][1:] != row[order][:-1]]]
    return pd[firsts], pn[firsts]


def raycast_slots(store: BodyStore, slots: Slots, origin: NDArray[np.float64], direction: NDArray[np.float64],
                  max_distance: float) -> RayAnswer:
    """Where a ray first meets each body ``slots[k]``, one kernel call per kind.

    Parameters
    ----------
    store : BodyStore
    slots : ndarray of int64, shape (N,)
    origin, direction : ndarray of float64, shape (D,)
        ``direction`` of unit length.
    max_distance : float

    Returns
    -------
    distance : ndarray of float64, shape (N,)
        ``inf`` where the ray misses within ``max_distance``.
    normal : ndarray of float64, shape (N, D)
        Outward surface normal at the hit.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Box, Circle
    >>> store = BodyStore(2)
    >>> s = store.allocate(2)
    >>> store.set_shapes(s, [Circle(1.0), Box((1.0, 1.0))])
    >>> store.set_poses(s, np.array([[5.0, 0.0], [0.0, 9.0]]), np.zeros(2))
    >>> dist, normal = raycast_slots(store, s, np.zeros(2), np.array([1.0, 0.0]), np.inf)
    >>> dist.tolist(), normal[0].tolist()
    ([4.0, inf], [-1.0, 0.0])
    """
    n = len(slots)
    dist = np.full(n, np.inf)
    normal = np.zeros((n, store.dim))
    kinds = store.kind[slots]
    for kind in np.unique(kinds).tolist():
        idx = np.flatnonzero(kinds == kind)
        dist[idx], normal[idx] = RAY_KERNELS[Kind(kind)](store, slots[idx], origin, direction, max_distance)
    if store.n_rounded:
        idx = np.flatnonzero(store.rounding.take(slots) > 0)
        if len(idx):
            dist[idx], normal[idx] = ray_rounded(store, slots[idx], origin, direction, max_distance)
    return dist, normal


#: Most Newton steps of a ray against a rounded shape (a graze needs the most).
RAY_ROUNDED_STEPS = 100


def ray_rounded(store: BodyStore, slots: Slots, origin: NDArray[np.float64], direction: NDArray[np.float64],
                max_distance: Any) -> RayAnswer:
    """First entry of rays into rounded shapes (``store.rounding > 0``): (distance (n,), normal (n, D)).

    ``origin`` and the unit ``direction``: one ray (D,) or one per slot (n, D);
    ``max_distance`` a float or one per slot.

    Newton's method on the gap along the ray (GJK distance to the core less
    the radius): the gap is a convex function of the ray parameter whose
    slope is ``u . direction`` (``u`` the unit vector from the core's
    closest point), so each step ``gap / -slope`` from before the entry
    stays before it (conservative advancement, Mirtich 1996, at least as
    far each step) and converges quadratically.
    The normal points from the core's closest point to the entry point. An
    origin inside gives 0 and ``-direction``, as every ray kernel does.
    """
    n, dim = len(slots), store.dim
    dist = np.full(n, np.inf)
    normal = np.zeros((n, dim))
    core, count, own = store.core_points(slots)
    grow = store.rounding.take(slots) + own
    o3 = np.zeros((n, 3))
    d3 = np.zeros((n, 3))
    o3[:, :dim], d3[:, :dim] = origin, direction
    limit = np.broadcast_to(np.asarray(max_distance, dtype=np.float64), (n,))
    scale = float(np.abs(core).max(initial=0.0) + np.abs(o3).max(initial=0.0) + grow.max(initial=0.0))
    tol = 1e-12 * max(scale, 1e-300)
    t = np.zeros(n)
    live = np.arange(n)
    for _ in range(RAY_ROUNDED_STEPS):
        if not len(live):
            break
        point = (o3[live] + t[live, None] * d3[live])[:, None, :]
        out = np.zeros((len(live), 9))
        from .geometry import gjk  # imports numba: not at `import collideworld`

        gap = gjk.closest_rows(core[live], count[live], point, np.ones(len(live), dtype=np.int64), out) - grow[live]
        entered = gap <= tol
        done = live[entered]
        dist[done] = t[done]
        inside = entered & (t[live] == 0)
        normal[done] = np.where(inside[entered, None], -d3[done, :dim], out[entered, 6:6 + dim]) + 0.0
        # gap(t) is convex along the ray, so the Newton step from the near side never passes the
        # first root; a gap that does not shrink along the ray never reaches 0 (a miss)
        closing = -np.sum(out[:, 6:9] * d3[live], axis=1)
        go = ~entered & (closing > 0)
        t[live[go]] += gap[go] / np.minimum(closing[go], 1.0)
        live = live[go & (t[live] <= limit[live])]
    dist[dist > limit] = np.inf
    normal[~np.isfinite(dist)] = 0.0
    return dist, normal


# -- contact manifolds, by kind pair --------------------------------------------------
#
# Where the bodies of a touching pair touch: up to K points (2 in 2D, 4 in 3D)
# with separations and feature ids (geometry/manifold_support.py). The same
# table idea as PAIR_KERNELS: one entry per canonical kind pair, registered
# once; a new shape registers its ``manifold_<a>_<b>`` kernels the same way.
# Each entry gets the pair's contact normal and depth (already computed, so
# the points never disagree with the contact) in the canonical order.

ManifoldKernel = Callable[..., ManifoldArrays]


class ManifoldKernels(NamedTuple):
    """The manifold kernels one backend provides, by name (numpy's, or their compiled twins).

    Examples
    --------
    >>> manifold_kernels_for("numpy").manifold_box_box_3d.__name__
    'manifold_box_box_3d'
    """

    manifold_halfspace_ball: ManifoldKernel
    manifold_halfspace_box: ManifoldKernel
    manifold_halfspace_points: ManifoldKernel
    manifold_ball_ball: ManifoldKernel
    manifold_ball_box: ManifoldKernel
    manifold_ball_polygon: ManifoldKernel
    manifold_box_box_2d: ManifoldKernel
    manifold_box_box_3d: ManifoldKernel
    manifold_box_polygon: ManifoldKernel
    manifold_polygon_polygon: ManifoldKernel
    # capsules and segments, 2D and 3D
    manifold_halfspace_capsule: ManifoldKernel
    manifold_ball_capsule: ManifoldKernel
    manifold_box_capsule: ManifoldKernel
    manifold_polygon_capsule: ManifoldKernel
    manifold_capsule_capsule: ManifoldKernel
    # convex hulls (3D)
    manifold_halfspace_hull: ManifoldKernel
    manifold_ball_hull: ManifoldKernel
    manifold_box_hull: ManifoldKernel
    manifold_capsule_hull: ManifoldKernel
    manifold_hull_hull: ManifoldKernel


#: manifold kernel name -> module of :mod:`collideworld.geometry` (and of
#: :mod:`collideworld.geometry.compiled`, for its twin) holding it.
MANIFOLD_TWINS: dict[str, str] = {
    "manifold_halfspace_ball": "manifold_halfspace_ball",
    "manifold_halfspace_box": "manifold_halfspace_box",
    "manifold_halfspace_points": "manifold_halfspace_polygon",
    "manifold_ball_ball": "manifold_ball_ball",
    "manifold_ball_box": "manifold_ball_box",
    "manifold_ball_polygon": "manifold_ball_polygon",
    "manifold_box_box_2d": "manifold_box_box_2d",
    "manifold_box_box_3d": "manifold_box_box_3d",
    "manifold_box_polygon": "manifold_box_polygon",
    "manifold_polygon_polygon": "manifold_polygon_polygon",
    "manifold_halfspace_capsule": "manifold_halfspace_capsule",
    "manifold_ball_capsule": "manifold_ball_capsule",
    "manifold_box_capsule": "manifold_box_capsule",
    "manifold_polygon_capsule": "manifold_polygon_capsule",
    "manifold_capsule_capsule": "manifold_capsule_capsule",
    "manifold_halfspace_hull": "manifold_hull",
    "manifold_ball_hull": "manifold_hull",
    "manifold_box_hull": "manifold_hull",
    "manifold_capsule_hull": "manifold_hull",
    "manifold_hull_hull": "manifold_hull",
}

_manifold_kernels: dict[str, ManifoldKernels] = {}


def manifold_kernels_for(backend: str) -> ManifoldKernels:
    """The manifold kernels of a resolved backend, ``"numpy"`` or ``"compiled"`` (imported on first use).

    Parameters
    ----------
    backend : {"numpy", "compiled"}

    Returns
    -------
    ManifoldKernels

    Examples
    --------
    >>> manifold_kernels_for("numpy").manifold_ball_ball.__module__
    'collideworld.geometry.manifold_ball_ball'
    """
    if backend not in _manifold_kernels:
        package = f"{__package__}.geometry" + (".compiled" if backend == "compiled" else "")
        _manifold_kernels[backend] = ManifoldKernels(**{
            name: getattr(importlib.import_module(f"{package}.{module}"), name)
            for name, module in MANIFOLD_TWINS.items()
        })
    return _manifold_kernels[backend]


PairManifold = Callable[[BodyStore, Slots, Slots, NDArray[np.float64], NDArray[np.float64], ManifoldKernels,
                         Kernels], ManifoldArrays]

#: (dim, kind_a, kind_b) -> function(store, slots_a, slots_b, normal, depth, manifold kernels,
#: contact kernels), kind_a <= kind_b, normal from a towards b.
MANIFOLD_KERNELS: dict[tuple[int, Kind, Kind], PairManifold] = {}


def _register_manifold(dims: tuple[int, ...], ka: Kind, kb: Kind) -> Callable[[PairManifold], PairManifold]:
    def deco(fn: PairManifold) -> PairManifold:
        for d in dims:
            MANIFOLD_KERNELS[(d, ka, kb)] = fn
        return fn
    return deco


def _put(out: ManifoldArrays, idx: NDArray[np.int64], res: ManifoldArrays) -> None:
    out.points[idx], out.separations[idx], out.ids[idx], out.count[idx] = res


def _deepest(pair_of_row: NDArray[np.int64], res: ContactArrays, n: int) -> NDArray[np.int64]:
    """The row of each pair whose contact is deepest (the row :func:`_most_penetrating` keeps)."""
    score = np.where(res.hit, res.depth, -np.inf)
    order = np.lexsort((-score, pair_of_row))
    sorted_pairs = pair_of_row[order]
    first: NDArray[np.int64] = order[np.r_[True, sorted_pairs[1:] != sorted_pairs[:-1]]]
    assert len(first) == n
    return first


def _local_part(s: BodyStore, slots: Slots, part: NDArray[np.int64]) -> NDArray[np.int64]:
    first, _, _ = s.parts.shape_arrays()
    local: NDArray[np.int64] = part - first[s.poly[slots]]
    return local


def _deepest_part(s: BodyStore, b: Slots, contact: Callable[[NDArray[np.int64], NDArray[np.int64]], ContactArrays]
                  ) -> NDArray[np.int64]:
    """Part of each polygon ``b`` whose contact (``contact(rows, parts)``) with the other body is deepest.

    A concave polygon's manifold is its deepest convex part's, the part whose
    normal and depth the pair's contact reports.
    """
    row, part = polygon_parts(s, b)
    if len(row) == len(b):
        return part
    return part[_deepest(row, contact(row, part), len(b))]


def _polygon_groups(s: BodyStore, b: Slots, part: NDArray[np.int64]
                    ) -> list[tuple[NDArray[np.int64], NDArray[np.float64]]]:
    """World vertices of parts ``part`` of polygons ``b``, grouped: ``(index into b, vertices (m, K, 2))``.

    Simple polygons come from the store's posed-vertex cache (the same bits
    as posing their part), the rest bucket by bucket.
    """
    simple = s.simple[b]
    groups = []
    fast = np.flatnonzero(simple)
    if len(fast):
        x, y = s.polygon_planes(b[fast])
        groups.append((fast, np.stack([x.T, y.T], axis=2)))
    rest = np.flatnonzero(~simple)
    if len(rest):
        groups += [(rest[sub], verts) for sub, verts in s.part_vertices_world(b[rest], part[rest])]
    return groups


@_register_manifold((2, 3), Kind.HALFSPACE, Kind.HALFSPACE)
def _m_halfspace_halfspace(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                           m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    # two half-spaces touch along an unbounded region: no finite points to give
    return empty_manifold(len(a), s.dim)


@_register_manifold((2, 3), Kind.HALFSPACE, Kind.BALL)
def _m_halfspace_ball(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                      m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    return m.manifold_halfspace_ball(*s.plane_rows(a), *s.ball_rows(b), n, d)


@_register_manifold((2, 3), Kind.HALFSPACE, Kind.BOX)
def _m_halfspace_box(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                     m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    return m.manifold_halfspace_box(*s.plane_rows(a), *s.box_rows(b), n, d)


@_register_manifold((2,), Kind.HALFSPACE, Kind.POLYGON)
def _m_halfspace_polygon(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                         m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    out = empty_manifold(len(a), 2)
    for idx, verts in s.polygon_outline_world(b):
        _put(out, idx, m.manifold_halfspace_points(*s.plane_rows(a[idx]), verts, n[idx], d[idx]))
    return out


@_register_manifold((2, 3), Kind.BALL, Kind.BALL)
def _m_ball_ball(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                 m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    return m.manifold_ball_ball(*s.ball_rows(a), *s.ball_rows(b), n, d)


@_register_manifold((2, 3), Kind.BALL, Kind.BOX)
def _m_ball_box(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    return m.manifold_ball_box(*s.ball_rows(a), *s.box_rows(b), n, d)


def _manifold_against_polygon(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                              rows_a: Callable[[Slots], tuple[Any, ...]], contact_kernel: Kernel,
                              manifold_kernel: Callable[..., ManifoldArrays]) -> ManifoldArrays:
    """Points of a ball or box ``a`` against polygon ``b``: those of b's deepest convex part."""
    def contact(row: NDArray[np.int64], part: NDArray[np.int64]) -> ContactArrays:
        return _run_by_bucket(s, [(b[row], part)], contact_kernel, len(row), 2, lambda idx: rows_a(a[row][idx]))
    part = _deepest_part(s, b, contact)
    local = _local_part(s, b, part)
    out = empty_manifold(len(a), 2)
    for idx, verts in _polygon_groups(s, b, part):
        _put(out, idx, manifold_kernel(*rows_a(a.take(idx)), verts, n.take(idx, axis=0), d.take(idx), local.take(idx)))
    return out


@_register_manifold((2,), Kind.BALL, Kind.POLYGON)
def _m_ball_polygon(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                    m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    return _manifold_against_polygon(s, a, b, n, d, s.ball_rows, k.contact_ball_polygon, m.manifold_ball_polygon)


@_register_manifold((2,), Kind.BOX, Kind.BOX)
def _m_box_box_2d(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                  m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    return m.manifold_box_box_2d(*s.box_rows(a), *s.box_rows(b), n, d)


@_register_manifold((3,), Kind.BOX, Kind.BOX)
def _m_box_box_3d(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                  m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    return m.manifold_box_box_3d(*s.box_rows(a), *s.box_rows(b), n, d)


@_register_manifold((2,), Kind.BOX, Kind.POLYGON)
def _m_box_polygon(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                   m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    return _manifold_against_polygon(s, a, b, n, d, s.box_rows, k.contact_box_polygon, m.manifold_box_polygon)


@_register_manifold((2,), Kind.POLYGON, Kind.POLYGON)
def _m_polygon_polygon(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                       m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    row_a, part_a = polygon_parts(s, a)
    first, count, _ = s.parts.shape_arrays()
    shape_b = s.poly[b[row_a]]
    row2, child = _expand(count[shape_b])
    part_b = first[shape_b][row2] + child
    pair = row_a[row2]
    part_a = part_a[row2]
    if len(pair) != len(a):  # a concave polygon: the deepest pair of parts
        res = _run_by_bucket(s, [(a[pair], part_a), (b[pair], part_b)], k.contact_polygon_polygon, len(pair), 2)
        pick = _deepest(pair, res, len(a))
        part_a, part_b = part_a[pick], part_b[pick]
    local_a, local_b = _local_part(s, a, part_a), _local_part(s, b, part_b)
    out = empty_manifold(len(a), 2)
    fast = np.flatnonzero(s.simple[a] & s.simple[b])
    if len(fast):
        ax, ay = s.polygon_planes(a[fast])
        bx, by = s.polygon_planes(b[fast])
        _put(out, fast, m.manifold_polygon_polygon(np.stack([ax.T, ay.T], axis=2), np.stack([bx.T, by.T], axis=2),
                                                   n[fast], d[fast], local_a[fast], local_b[fast]))
    bucket_of, _ = s.parts.part_arrays()
    key = bucket_of[part_a] * 1_000_003 + bucket_of[part_b]
    key[fast] = -1
    for kk in np.unique(key[key >= 0]).tolist():
        idx = np.flatnonzero(key == kk)
        [(_, va)] = s.part_vertices_world(a[idx], part_a[idx])
        [(_, vb)] = s.part_vertices_world(b[idx], part_b[idx])
        _put(out, idx, m.manifold_polygon_polygon(va, vb, n[idx], d[idx], local_a[idx], local_b[idx]))
    return out



# -- capsules and segments: the core segment's points, grown by the radius
# (geometry/manifold_capsule_support.py) ------------------------------------------

@_register_manifold((2, 3), Kind.HALFSPACE, Kind.CAPSULE)
def _m_halfspace_capsule(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                         m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    return m.manifold_halfspace_capsule(*s.plane_rows(a), *s.capsule_rows(b), n, d)


@_register_manifold((2, 3), Kind.BALL, Kind.CAPSULE)
def _m_ball_capsule(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                    m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    return m.manifold_ball_capsule(*s.ball_rows(a), *s.capsule_rows(b), n, d)


@_register_manifold((2, 3), Kind.BOX, Kind.CAPSULE)
def _m_box_capsule(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                   m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    return m.manifold_box_capsule(*s.box_rows(a), *s.capsule_rows(b), n, d)


@_register_manifold((2,), Kind.POLYGON, Kind.CAPSULE)
def _m_polygon_capsule(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                       m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    # a concave polygon: the points of its deepest convex part, as against balls and boxes
    def contact(row: NDArray[np.int64], part: NDArray[np.int64]) -> ContactArrays:
        def polygon_first(*args: Any) -> ContactArrays:
            return k.contact_polygon_capsule(args[-1], *args[:-1])
        return _run_by_bucket(s, [(a[row], part)], polygon_first, len(row), 2, lambda idx: s.capsule_rows(b[row][idx]))
    part = _deepest_part(s, a, contact)
    local = _local_part(s, a, part)
    out = empty_manifold(len(a), 2)
    for idx, verts in _polygon_groups(s, a, part):
        _put(out, idx, m.manifold_polygon_capsule(verts, *s.capsule_rows(b[idx]), n[idx], d[idx], local[idx]))
    return out


@_register_manifold((2, 3), Kind.CAPSULE, Kind.CAPSULE)
def _m_capsule_capsule(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                       m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    return m.manifold_capsule_capsule(*s.capsule_rows(a), *s.capsule_rows(b), n, d)


# hulls (3D): each hull as BodyStore.hull_arrays gives its vertices and face normals

@_register_manifold((3,), Kind.HALFSPACE, Kind.HULL)
def _m_halfspace_hull(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                      m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    verts, normals = s.hull_arrays(b)[:2]
    return m.manifold_halfspace_hull(*s.plane_rows(a), verts, normals, n, d)


@_register_manifold((3,), Kind.BALL, Kind.HULL)
def _m_ball_hull(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                 m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    verts, normals = s.hull_arrays(b)[:2]
    return m.manifold_ball_hull(*s.ball_rows(a), verts, normals, n, d)


@_register_manifold((3,), Kind.BOX, Kind.HULL)
def _m_box_hull(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    verts, normals = s.hull_arrays(b)[:2]
    return m.manifold_box_hull(*s.box_rows(a), verts, normals, n, d)


@_register_manifold((3,), Kind.CAPSULE, Kind.HULL)
def _m_capsule_hull(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                    m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    verts, normals = s.hull_arrays(b)[:2]
    return m.manifold_capsule_hull(*s.capsule_rows(a), verts, normals, n, d)


@_register_manifold((3,), Kind.HULL, Kind.HULL)
def _m_hull_hull(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                 m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    verts_a, normals_a = s.hull_arrays(a)[:2]
    verts_b, normals_b = s.hull_arrays(b)[:2]
    return m.manifold_hull_hull(verts_a, normals_a, verts_b, normals_b, n, d)


# cylinders and cones (3D): one point, midway between the two shapes' deepest points along the
# normal (EPA's witnesses), or, against a half-space, the shape's lowest point; feature ids 0

def _m_support_points(points: NDArray[np.float64], d: NDArray[np.float64]) -> ManifoldArrays:
    out = empty_manifold(len(d), 3)
    out.points[:, 0] = points
    out.separations[:, 0] = -d
    out.ids[:, 0] = 0
    out.count[:] = 1
    return out


def _m_halfspace_round(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                       m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    from .geometry import support_convex  # imports numba: not at `import collideworld`

    cb, pb, rb, qb, verts = s.support_arrays(b)
    lowest = support_convex.lowest_points(n, cb, pb, rb, qb, verts)
    # the point midway between the lowest point and its foot on the plane
    return _m_support_points(lowest + 0.5 * d[:, None] * n, d)


def _m_support_pair(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                    m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    ca, pa, ra, qa, va = s.support_arrays(a)
    cb, pb, rb, qb, vb = s.support_arrays(b)
    if len(vb) > 1:
        hull = cb == Kind.HULL
        qb[hull, 0] += len(va)
        va = np.concatenate([va, vb])
    from .geometry import support_convex  # imports numba: not at `import collideworld`

    points = support_convex.support_witnesses(ca, pa, ra, qa, cb, pb, rb, qb, va, support_scale(s, a, b))[2]
    return _m_support_points(0.5 * (points[:, :3] + points[:, 3:]), d)


for _round in (Kind.CYLINDER, Kind.CONE):
    _register_manifold((3,), Kind.HALFSPACE, _round)(_m_halfspace_round)
    for _other in (Kind.BALL, Kind.BOX, Kind.CAPSULE, Kind.HULL, Kind.CYLINDER, Kind.CONE):
        if _other <= _round:
            _register_manifold((3,), _other, _round)(_m_support_pair)
    _register_manifold((3,), _round, Kind.TRIANGLE)(_m_support_pair)
# A triangle of a mesh or heightfield is a flat hull to the hull manifold kernels: its three
# vertices and its two faces (normals +n and -n), each holding all three vertices. The kernels take
# the contact normal as given, so a no-snag contact (the face normal) clips along the face normal.
def _triangle_hulls(s: BodyStore, slots: Slots) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    verts = s.triangle_rows(slots)
    n = np.cross(verts[:, 1] - verts[:, 0], verts[:, 2] - verts[:, 0])
    n /= np.linalg.norm(n, axis=1)[:, None]
    return verts, np.ascontiguousarray(np.stack([n, -n], axis=1))


@_register_manifold((3,), Kind.HALFSPACE, Kind.TRIANGLE)
def _m_halfspace_triangle(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                          m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    return m.manifold_halfspace_hull(*s.plane_rows(a), *_triangle_hulls(s, b), n, d)


@_register_manifold((3,), Kind.BALL, Kind.TRIANGLE)
def _m_ball_triangle(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                     m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    return m.manifold_ball_hull(*s.ball_rows(a), *_triangle_hulls(s, b), n, d)


@_register_manifold((3,), Kind.BOX, Kind.TRIANGLE)
def _m_box_triangle(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                    m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    return m.manifold_box_hull(*s.box_rows(a), *_triangle_hulls(s, b), n, d)


@_register_manifold((3,), Kind.CAPSULE, Kind.TRIANGLE)
def _m_capsule_triangle(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                        m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    return m.manifold_capsule_hull(*s.capsule_rows(a), *_triangle_hulls(s, b), n, d)


@_register_manifold((3,), Kind.HULL, Kind.TRIANGLE)
def _m_hull_triangle(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                     m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    verts_a, normals_a = s.hull_arrays(a)[:2]
    return m.manifold_hull_hull(verts_a, normals_a, *_triangle_hulls(s, b), n, d)


@_register_manifold((3,), Kind.TRIANGLE, Kind.TRIANGLE)
def _m_triangle_triangle(s: BodyStore, a: Slots, b: Slots, n: NDArray[np.float64], d: NDArray[np.float64],
                         m: ManifoldKernels, k: Kernels) -> ManifoldArrays:
    return m.manifold_hull_hull(*_triangle_hulls(s, a), *_triangle_hulls(s, b), n, d)


def manifold_pairs(store: BodyStore, ia: Slots, ib: Slots, normal: NDArray[np.float64], depth: NDArray[np.float64],
                   backend: str = "numpy") -> ManifoldArrays:
    """Contact points of touching pairs ``(ia[k], ib[k])``, given their contacts.

    Groups the pairs by kind pair like :func:`contact_pairs`, puts each group
    in the canonical order (flipping the normal of a swapped pair for its
    kernel) and makes one call per group. A swapped pair's points are world
    points either way, its separations do not change, and the two halves of
    its ids are swapped back, so every id reads ``feature of ia << 32 |
    feature of ib`` whichever order the pair came in.

    Parameters
    ----------
    store : BodyStore
    ia, ib : ndarray of int64, shape (N,)
        Slots of touching bodies (rows from :func:`contact_pairs` whose ``hit`` is True).
    normal : ndarray, shape (N, D)
        The pairs' contact normals, from ``ia`` towards ``ib``.
    depth : ndarray, shape (N,)
    backend : {"numpy", "compiled", "auto"}, optional

    Returns
    -------
    ManifoldArrays
        ``points`` (N, K, D), ``separations`` (N, K), ``ids`` (N, K),
        ``count`` (N,); K = 2 in 2D, 4 in 3D.

    Examples
    --------
    A 2x1 box resting on a wider one touches along its bottom edge, from
    x = -1 to x = 1; the other way round the same points come back:

    >>> import numpy as np
    >>> from collideworld import Box
    >>> store = BodyStore(2)
    >>> s = store.allocate(2)
    >>> store.set_shapes(s, [Box((5.0, 1.0)), Box((1.0, 0.5))])
    >>> store.set_poses(s, np.array([[0.0, 0.0], [0.0, 1.5]]), np.zeros(2))
    >>> c = contact_pairs(store, s[:1], s[1:])
    >>> m = manifold_pairs(store, s[:1], s[1:], c.normal, c.depth)
    >>> int(m.count[0]), sorted(m.points[0].tolist())
    (2, [[-1.0, 1.0], [1.0, 1.0]])
    >>> sorted(manifold_pairs(store, s[1:], s[:1], -c.normal, c.depth).points[0].tolist())
    [[-1.0, 1.0], [1.0, 1.0]]
    """
    resolved = resolve_backend(backend)
    mk, ck = manifold_kernels_for(resolved), kernels_for(resolved)
    n = len(ia)
    dim = store.dim
    out = empty_manifold(n, dim)
    if n == 0:
        return out
    normal = np.asarray(normal, dtype=np.float64)
    depth = np.asarray(depth, dtype=np.float64)
    if store.n_rounded:  # the kernels see the cores: their depth (negative: the cores' gap)
        depth = depth - store.rounding.take(ia) - store.rounding.take(ib)
    ka = store.kind.take(ia)
    kb = store.kind.take(ib)
    swap = ka > kb
    any_swap = bool(swap.any())
    first = np.where(swap, ib, ia)
    second = np.where(swap, ia, ib)
    flip = np.where(swap, -1.0, 1.0)[:, None]
    # room for 64 kinds (new shapes register more), unlike the 4 of contact_pairs' code
    code = np.minimum(ka, kb).astype(np.int64) * 64 + np.maximum(ka, kb)
    for c in np.unique(code).tolist():
        idx = np.flatnonzero(code == c)
        kernel = MANIFOLD_KERNELS.get((dim, Kind(c // 64), Kind(c % 64)))
        if kernel is None:  # every contact kind pair has one (tests/test_manifolds.py); a new shape's may not yet
            continue
        # take, not fancy indexing: ~10x less on (m, D) rows (see BodyStore's gathers)
        n_idx = normal.take(idx, axis=0) * flip.take(idx, axis=0) + 0.0
        _put(out, idx, kernel(store, first.take(idx), second.take(idx), n_idx, depth.take(idx), mk, ck))
    if any_swap:
        # ids of swapped pairs: (feature of first << 32 | feature of second) -> ia's half first again
        ids = out.ids
        swapped = swap[:, None] & (ids >= 0)
        ids[...] = np.where(swapped, ((ids & 0xFFFFFFFF) << 32) | (ids >> 32), ids)
    if store.n_rounded:
        _grow_manifold(store, ia, ib, normal, out)
    return out


def _grow_manifold(store: BodyStore, ia: Slots, ib: Slots, normal: NDArray[np.float64], out: ManifoldArrays) -> None:
    """The points of rounded shapes, from their cores' (in place).

    The kernels clip the cores' features facing each other along the normal
    (they take the normal as given, so a rounded pair's normal serves): a
    core point p_a becomes p_a + ra n on the rounded surface, p_b becomes
    p_b - rb n, so each midpoint moves by (ra - rb) n / 2 and each
    separation drops by ra + rb.
    """
    ra, rb = store.rounding.take(ia), store.rounding.take(ib)
    rows = np.flatnonzero((ra + rb) > 0)
    if not len(rows):
        return
    used = np.arange(out.points.shape[1])[None, :] < out.count[rows][:, None]
    shift = (0.5 * (ra[rows] - rb[rows]))[:, None] * normal[rows]
    out.points[rows] += np.where(used[:, :, None], shift[:, None, :], 0.0)
    out.separations[rows] -= np.where(used, (ra[rows] + rb[rows])[:, None], 0.0)
