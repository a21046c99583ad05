"""Pairs with a cylinder or cone, read by slot: the compiled narrowphase's path for them.

The grouped path (``narrowphase._support_pair`` and ``._halfspace_round``)
gathers each kind pair's columns into support rows
(``BodyStore.support_arrays``) and calls
:mod:`collideworld.geometry.support_convex` once per group. This loop does
the same work pair by pair, reading the columns by slot: the lower kind
first, the same support rows and pair scale (``narrowphase.support_scale``),
the same support-mapping kernel (a half-space: its closed form on the lowest
point), numpy's ``finish`` and the dispatcher's flip, operation for
operation, so every pair gets the grouped path's bits. The World's step
(through :func:`support_slots`) and ``collide()``'s one compiled call
(:mod:`.contact_pair`) both run it.

Hulls and triangles (whose world vertices the store computes) stay with the
grouped path: such pairs come back flagged.

NOTE: numba's on-disk cache of these functions is checked against this file
only; after editing :mod:`collideworld.geometry.support_convex`, delete the
caches (``find collideworld -name '*.nbi' -delete -o -name '*.nbc' -delete``).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from .. import support_convex as _sc
from ..result import ContactArrays
from .kernel_support import contact_outputs, finish_row

__all__ = ["support_slots", "support_pair_rows", "SUPPORT_KINDS"]

Floats = NDArray[np.float64]

# Kind codes of collideworld.bodies.Kind (this package may not import it; tests/test_cylinder_cone_fast.py
# checks they agree).
HALFSPACE, BALL, BOX, CAPSULE, CYLINDER, CONE = 0, 1, 2, 4, 7, 8
#: The kinds the support-mapping kernels take from a store row here (hulls and triangles are not among them).
SUPPORT_KINDS = (BALL, BOX, CAPSULE, CYLINDER, CONE)


@njit(cache=True)
def _params(slot: int, kind: int, radius: Floats, half: Floats, seg0: Floats, seg1: Floats, prm: Floats) -> None:
    """Slot ``slot`` as a support row's parameters (BodyStore.support_arrays's, value for value)."""
    for k in range(8):
        prm[k] = 0.0
    if kind == BALL:
        prm[0] = radius[slot]
    elif kind == BOX:
        for k in range(3):
            prm[k] = half[slot, k]
    elif kind == CAPSULE:
        for k in range(3):
            prm[k] = seg0[slot, k]
            prm[3 + k] = seg1[slot, k]
        prm[6] = radius[slot]
    else:  # a cylinder or cone: radius, half height
        prm[0] = radius[slot]
        prm[1] = half[slot, 2]


@njit(cache=True)
def _taken(kind: int) -> bool:
    return kind == BALL or kind == BOX or kind == CAPSULE or kind == CYLINDER or kind == CONE


@njit(cache=True)
def support_pair_rows(ia: NDArray[np.int64], ib: NDArray[np.int64], sel: NDArray[np.bool_], kind: NDArray[np.int8],
                      position: Floats, rotation: Floats, radius: Floats, half: Floats, seg0: Floats, seg1: Floats,
                      plane_normal: Floats, plane_offset: Floats, bound_radius: Floats, rule: tuple[float, float],
                      hit: NDArray[np.bool_], normal: Floats, depth: Floats, rest: NDArray[np.bool_]) -> None:
    """Rows ``i`` with ``sel[i]`` and a cylinder or cone in pair (``ia[i]``, ``ib[i]``): contacts into
    ``hit``, ``normal`` (a -> b), ``depth``; ``rest[i]`` set for such a pair with a hull or triangle
    (left to the grouped path). Other rows are left alone."""
    n = ia.shape[0]
    contact_only = n > 0  # (a computed bool: a literal True would be a second compile of the kernel)
    res = np.zeros(11)
    pa = np.empty(8)
    pb = np.empty(8)
    verts = np.zeros((1, 3))
    low = np.empty(3)
    P, PA, PB, F_, FN, edges = _sc.epa_scratch()
    for i in range(n):
        if not sel[i]:
            continue
        a = ia[i]
        b = ib[i]
        ka = np.int64(kind[a])
        kb = np.int64(kind[b])
        if ka != CYLINDER and ka != CONE and kb != CYLINDER and kb != CONE:
            continue
        swap = ka > kb
        if swap:
            a, b, ka, kb = b, a, kb, ka
        if not _taken(kb) or not (ka == HALFSPACE or _taken(ka)):
            rest[i] = True
            continue
        _params(b, kb, radius, half, seg0, seg1, pb)
        if ka == HALFSPACE:
            size = abs(position[b, 0])
            for k in range(1, 3):
                size = max(size, abs(position[b, k]))
            scale = size + bound_radius[b] + abs(plane_offset[a])
            nx = plane_normal[a, 0]
            ny = plane_normal[a, 1]
            nz = plane_normal[a, 2]
            _sc.support_point(kb, position[b], rotation[b], pb, verts, -nx, -ny, -nz, low)
            signed = plane_offset[a] - (nx * low[0] + ny * low[1] + nz * low[2])
            # finish_halfspace takes the lowest point's height back from it: offset - (offset - signed)
            signed = plane_offset[a] - (plane_offset[a] - signed)
            res[2] = nx
            res[3] = ny
            res[4] = nz
        else:
            _params(a, ka, radius, half, seg0, seg1, pa)
            size = abs(position[a, 0])
            size_b = abs(position[b, 0])
            for k in range(1, 3):
                size = max(size, abs(position[a, k]))
                size_b = max(size_b, abs(position[b, k]))
            scale = max(size, size_b) + bound_radius[a] + bound_radius[b]
            signed = _sc.support_contact_scratch(ka, position[a], rotation[a], pa, kb, position[b], rotation[b], pb,
                                                 verts, scale, res, contact_only, P, PA, PB, F_, FN, edges)
            for k in range(3):
                res[2 + k] += 0.0  # finish's normal + 0.0
        finish_row(signed, scale, rule, i, hit, depth)
        sign = -1.0 if swap else 1.0
        for k in range(3):
            normal[i, k] = res[2 + k] * sign + 0.0


def support_slots(ia: NDArray[np.int64], ib: NDArray[np.int64], kind: NDArray[np.int8], position: Floats,
                  rotation: Floats, radius: Floats, half: Floats, seg0: Floats, seg1: Floats, plane_normal: Floats,
                  plane_offset: Floats, bound_radius: Floats, rule: tuple[float, float]
                  ) -> tuple[ContactArrays, NDArray[np.bool_]]:
    """Contacts of store slot pairs (``ia[k]``, ``ib[k]``), each with a cylinder or cone, in one compiled loop.

    Returns the contacts (normal from ``ia`` towards ``ib``) and ``rest``: the pairs with a hull
    or a triangle, left for the grouped path (their rows of the contacts unspecified).

    Examples
    --------
    A unit sphere 0.5 deep in the side of an upright cylinder (radius 1, half height 1):

    >>> import numpy as np
    >>> from collideworld import Cylinder, Sphere
    >>> from collideworld.bodies import BodyStore
    >>> from collideworld.geometry.compiled.kernel_support import touch_rule
    >>> st = BodyStore(3)
    >>> s = st.allocate(2)
    >>> st.set_shapes(s, [Sphere(1.0), Cylinder(1.0, 1.0)])
    >>> st.set_poses(s, np.array([[0.0, 0, 0], [1.5, 0, 0]]), quaternion=np.tile([1.0, 0, 0, 0], (2, 1)))
    >>> res, rest = support_slots(s[:1], s[1:], st.kind, st.position, st.rotation, st.radius, st.half, st.seg0,
    ...                           st.seg1, st.plane_normal, st.plane_offset, st.bound_radius, touch_rule())
    >>> bool(res.hit[0]), round(float(res.depth[0]), 9), rest.tolist()
    (True, 0.5, [False])
    """
    n = len(ia)
    out = contact_outputs(n, 3)
    rest = np.zeros(n, dtype=np.bool_)
    support_pair_rows(ia, ib, np.ones(n, dtype=np.bool_), kind, position, rotation, radius, half, seg0, seg1,
                      plane_normal, plane_offset, bound_radius, rule, out.hit, out.normal, out.depth, rest)
    return out, rest
