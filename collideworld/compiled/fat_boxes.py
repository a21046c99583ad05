"""Compiled twin of the refit in :func:`collideworld.fat_boxes.refresh_moved` (numba).

One loop over the moved bodies reads the store's columns directly: the tight
box of each (ball, box, capsule or simple polygon, grown by its rounding radius; a compound of
those: the union of its parts' boxes), widened by the touching tolerance,
the test whether it left its fat box, and the new fat box of those that did.
The numpy path makes about thirty array calls for the same work, with a
temporary array per call.

Bodies of other kinds (concave or large polygons, hulls, cylinders, compounds with such a part,
half-spaces) are reported back, not refitted: the caller refits them with the numpy functions. The
boxes may differ from the numpy path's in the last bits of the tolerance; a
fat box only has to hold its body (the narrowphase decides every contact), so
answers do not depend on it.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

__all__ = ["refit_moved"]

# Kind codes of collideworld.bodies.Kind, repeated here because numba compiles
# the comparisons against constants (the test of this module checks they agree).
BALL, BOX, POLYGON, CAPSULE, COMPOUND = 1, 2, 3, 4, 6


@njit(cache=True)
def _simple_box(s: int, kind: NDArray[np.int8], simple: NDArray[np.bool_], position: NDArray[np.float64],
                rotation: NDArray[np.float64], radius: NDArray[np.float64], half: NDArray[np.float64],
                seg0: NDArray[np.float64], seg1: NDArray[np.float64], world_x: NDArray[np.float64],
                world_y: NDArray[np.float64], rounding: NDArray[np.float64], lo: NDArray[np.float64],
                hi: NDArray[np.float64]) -> bool:
    """Slot ``s``'s tight box (without tolerance) into ``lo``/``hi``; False for a kind left to numpy."""
    dim = position.shape[1]
    k = kind[s]
    if k == BALL:
        for a in range(dim):
            lo[a] = position[s, a] - radius[s]
            hi[a] = position[s, a] + radius[s]
    elif k == BOX:
        for a in range(dim):
            ext = 0.0
            for c in range(dim):
                ext += abs(rotation[s, a, c]) * half[s, c]
            lo[a] = position[s, a] - ext
            hi[a] = position[s, a] + ext
    elif k == CAPSULE:
        # its core segment's end points' box grown by the radius (geometry.aabb.aabb_capsule)
        for a in range(dim):
            e0 = position[s, a]
            e1 = position[s, a]
            for c in range(dim):
                e0 += rotation[s, a, c] * seg0[s, c]
                e1 += rotation[s, a, c] * seg1[s, c]
            lo[a] = min(e0, e1) - radius[s]
            hi[a] = max(e0, e1) + radius[s]
    elif k == POLYGON and simple[s]:
        lo[0] = hi[0] = world_x[0, s]
        lo[1] = hi[1] = world_y[0, s]
        for v in range(1, world_x.shape[0]):
            lo[0] = min(lo[0], world_x[v, s])
            hi[0] = max(hi[0], world_x[v, s])
            lo[1] = min(lo[1], world_y[v, s])
            hi[1] = max(hi[1], world_y[v, s])
    else:
        return False
    # a rounded box or polygon reaches its rounding radius past its core (as BodyStore.aabbs grows it)
    for a in range(dim):
        lo[a] -= rounding[s]
        hi[a] += rounding[s]
    return True


@njit(cache=True)
def _refit(slots: NDArray[np.int64], kind: NDArray[np.int8], simple: NDArray[np.bool_],
           position: NDArray[np.float64], rotation: NDArray[np.float64], radius: NDArray[np.float64],
           half: NDArray[np.float64], seg0: NDArray[np.float64], seg1: NDArray[np.float64],
           world_x: NDArray[np.float64], world_y: NDArray[np.float64], static: NDArray[np.bool_],
           bound_radius: NDArray[np.float64], rounding: NDArray[np.float64],
           fat_lo: NDArray[np.float64], fat_hi: NDArray[np.float64], margin: float, rel_tol: float,
           part_slots: NDArray[np.int64], parts_at: NDArray[np.int64], n_parts: NDArray[np.int64],
           escaped: NDArray[np.bool_], other: NDArray[np.bool_]) -> None:
    dim = position.shape[1]
    lo = np.empty(3)
    hi = np.empty(3)
    plo = np.empty(3)
    phi = np.empty(3)
    for r in range(slots.shape[0]):
        s = slots[r]
        k = kind[s]
        # balls and boxes, the bulk of a scene, are boxed here and not by _simple_box: a call passes each of
        # its arrays apart, ~80 ns, which made the loop 6x slower per ball
        if k == BALL or k == BOX:
            for a in range(dim):
                ext = radius[s]
                if k == BOX:
                    ext = 0.0
                    for c in range(dim):
                        ext += abs(rotation[s, a, c]) * half[s, c]
                lo[a] = position[s, a] - ext - rounding[s]
                hi[a] = position[s, a] + ext + rounding[s]
        elif k == COMPOUND:
            # the union of its posed parts' boxes (BodyStore.aabbs' reduceat over the part rows); the
            # parts were posed with the body (BodyStore.set_poses), a compound has no rounding of its own
            ok = n_parts[s] > 0
            for j in range(n_parts[s]):
                p = part_slots[parts_at[s] + j]
                if kind[p] == BALL:  # the common part (an RTS unit's circles): no call
                    for a in range(dim):
                        plo[a] = position[p, a] - radius[p]
                        phi[a] = position[p, a] + radius[p]
                elif not _simple_box(p, kind, simple, position, rotation, radius, half, seg0, seg1, world_x,
                                   world_y, rounding, plo, phi):
                    ok = False
                    break
                for a in range(dim):
                    if j == 0 or plo[a] < lo[a]:
                        lo[a] = plo[a]
                    if j == 0 or phi[a] > hi[a]:
                        hi[a] = phi[a]
            if not ok:
                other[r] = True
                continue
        elif not _simple_box(s, kind, simple, position, rotation, radius, half, seg0, seg1, world_x, world_y,
                             rounding, lo, hi):
            other[r] = True
            continue
        # widen by the touching tolerance of the box's own scale, as tight_bounds does, twice
        # over: the extents here are summed in another order than numpy's (an ulp apart), and
        # the box must hold the numpy tight box too (World.validate checks it against that)
        scale = 0.0
        for a in range(dim):
            scale = max(scale, abs(lo[a]), abs(hi[a]))
        tol = 2.0 * rel_tol * scale
        out = False
        for a in range(dim):
            lo[a] -= tol
            hi[a] += tol
            if lo[a] < fat_lo[s, a] or hi[a] > fat_hi[s, a]:
                out = True
        if out:
            grow = 0.0 if static[s] else margin * bound_radius[s]
            for a in range(dim):
                fat_lo[s, a] = lo[a] - grow
                fat_hi[s, a] = hi[a] + grow
        escaped[r] = out


_NO_PARTS = np.zeros(0, dtype=np.int64)


def refit_moved(slots: NDArray[np.int64], kind: NDArray[np.int8], simple: NDArray[np.bool_],
                position: NDArray[np.float64], rotation: NDArray[np.float64], radius: NDArray[np.float64],
                half: NDArray[np.float64], seg0: NDArray[np.float64], seg1: NDArray[np.float64],
                world_x: NDArray[np.float64], world_y: NDArray[np.float64], static: NDArray[np.bool_],
                bound_radius: NDArray[np.float64], rounding: NDArray[np.float64],
                fat_lo: NDArray[np.float64], fat_hi: NDArray[np.float64], margin: float,
                rel_tol: float, part_slots: NDArray[np.int64] | None = None, parts_at: NDArray[np.int64] | None = None,
                n_parts: NDArray[np.int64] | None = None) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Refit the fat boxes of moved finite bodies in place.

    Parameters
    ----------
    slots : ndarray of int64, shape (m,)
        Moved bodies (no half-spaces).
    kind, simple, position, rotation, radius, half, seg0, seg1, world_x, world_y, static, bound_radius, rounding
        The store's columns (see :class:`collideworld.bodies.BodyStore`); in 3D
        ``world_x`` and ``world_y`` may be empty (8, 0) arrays.
    fat_lo, fat_hi : ndarray of float64, shape (cap, D)
        Written for the bodies whose tight box left them.
    margin : float
        The world's ``fat_margin``.
    rel_tol : float
        The relative touching tolerance.
    part_slots, parts_at, n_parts : ndarray of int64, optional
        The store's compound columns: a compound whose parts are all of the
        kinds above gets the union of their boxes here. Without them every
        compound is handed back.

    Returns
    -------
    escaped : ndarray of bool, shape (m,)
        The body's tight box left its fat box, which is now refitted.
    other : ndarray of bool, shape (m,)
        A kind this loop does not handle: refit it with the numpy functions.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld import Circle, World
    >>> w = World(dim=2, backend="compiled")
    >>> w.add(Circle(1.0))
    0
    >>> st = w._store
    >>> st.position[0] = (5.0, 0.0)
    >>> esc, other = refit_moved(np.array([0]), st.kind, st.simple, st.position, st.rotation, st.radius,
    ...                          st.half, st.seg0, st.seg1, st.world_x, st.world_y, st.static, st.bound_radius,
    ...                          st.rounding, st.fat_lo, st.fat_hi, 0.1, 1e-14)
    >>> esc.tolist(), other.tolist(), np.round(st.fat_lo[0], 9).tolist()
    ([True], [False], [3.9, -1.1])
    """
    escaped = np.zeros(len(slots), dtype=bool)
    other = np.zeros(len(slots), dtype=bool)
    if part_slots is None or parts_at is None or n_parts is None:
        part_slots = parts_at = _NO_PARTS
        n_parts = np.zeros(len(kind), dtype=np.int64)
    _refit(slots, kind, simple, position, rotation, radius, half, seg0, seg1, world_x, world_y, static,
           bound_radius, rounding, fat_lo, fat_hi, float(margin), float(rel_tol), part_slots, parts_at, n_parts,
           escaped, other)
    return escaped, other
