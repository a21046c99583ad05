"""Compiled twin of the refit in :func:`collideworld.fat_boxes.refresh_moved` (numba).

One loop over the moved bodies reads the store's columns directly: the tight
box of each (ball, box or simple polygon, grown by its rounding radius), widened by the touching tolerance,
the test whether it left its fat box, and the new fat box of those that did.
The numpy path makes about thirty array calls for the same work, with a
temporary array per call.

Bodies of other kinds (concave or large polygons, hulls, cylinders, compounds, half-spaces) are reported
back, not refitted: the caller refits them with the numpy functions. The
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
BALL, BOX, POLYGON, CAPSULE = 1, 2, 3, 4


@njit(cache=True)
def _refit(slots: NDArray[np.int64], kind: NDArray[np.int8], simple: NDArray[np.bool_],
           position: NDArray[np.float64], rotation: NDArray[np.float64], radius: NDArray[np.float64],
           half: NDArray[np.float64], seg0: NDArray[np.float64], seg1: NDArray[np.float64],
           world_x: NDArray[np.float64], world_y: NDArray[np.float64], static: NDArray[np.bool_],
           bound_radius: NDArray[np.float64], rounding: NDArray[np.float64],
           fat_lo: NDArray[np.float64], fat_hi: NDArray[np.float64], margin: float, rel_tol: float,
           escaped: NDArray[np.bool_], other: NDArray[np.bool_]) -> None:
    dim = position.shape[1]
    lo = np.empty(3)
    hi = np.empty(3)
    for r in range(slots.shape[0]):
        s = slots[r]
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
            other[r] = True
            continue
        # a rounded box or polygon reaches its rounding radius past its core (as BodyStore.aabbs grows it)
        for a in range(dim):
            lo[a] -= rounding[s]
            hi[a] += rounding[s]
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


def refit_moved(slots: NDArray[np.int64], kind: NDArray[np.int8], simple: NDArray[np.bool_],
                position: NDArray[np.float64], rotation: NDArray[np.float64], radius: NDArray[np.float64],
                half: NDArray[np.float64], seg0: NDArray[np.float64], seg1: NDArray[np.float64],
                world_x: NDArray[np.float64], world_y: NDArray[np.float64], static: NDArray[np.bool_],
                bound_radius: NDArray[np.float64], rounding: NDArray[np.float64],
                fat_lo: NDArray[np.float64], fat_hi: NDArray[np.float64], margin: float,
                rel_tol: float) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
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
    _refit(slots, kind, simple, position, rotation, radius, half, seg0, seg1, world_x, world_y, static,
           bound_radius, rounding, fat_lo, fat_hi, float(margin), float(rel_tol), escaped, other)
    return escaped, other
