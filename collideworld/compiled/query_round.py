"""The compiled queries' tests of cylinders, cones and rounded shapes, in one entry point of their own.

The query kernels of :mod:`.queries` (``_overlap``, ``_point_one`` and
their callers) leave a pair with a cylinder, a cone or a rounded box,
polygon or hull (packed kind ``ROUNDED_ROW``) as an "other" pair, and
:func:`.queries.settle_rows` leaves it undecided: this settles those in
one call (:func:`settle_round_rows`), so a world holding them answers its
point, box and shape queries without the numpy path. Kept apart from the
query kernels on purpose (issue 27): numba optimises a callee again in
every compiled caller, and GJK with the support mappings is large.

* A cylinder or cone against a ball or box probe (3D): the compiled
  narrowphase's support-mapping contact (``support_slots.support_pair_rows``,
  the probe as side a), its scale and touching rule, operation for operation.
* A rounded shape (its core grown by a radius: the Minkowski sum with a
  ball) against a ball, box or simple polygon probe: the cores' distance by
  GJK (``gjk.gjk_closest``, what ``narrowphase.rounded_contacts`` runs through
  ``gjk.closest_rows``), less the probe's radius, at most the rounding
  radius: closed, so touching counts.

Anything else (a compound's part of another kind, a polygon that is not
simple) stays OTHER, for the numpy path.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..geometry import support_convex as _sc
from ..geometry.compiled.kernel_support import finish_row
from ..geometry.gjk import gjk_closest

__all__ = ["settle_round_rows"]

Index = NDArray[np.int64]
Floats = NDArray[np.float64]

# Kind codes of collideworld.bodies.Kind (tests/test_query_round.py checks they agree)
BALL, BOX, POLYGON, HULL, COMPOUND, CYLINDER, CONE = 1, 2, 3, 5, 6, 7, 8
#: as compiled.queries' MISS, HIT, OTHER
MISS, HIT, OTHER = 0, 1, 2


@njit(cache=True)
def _near(q: Any, u: int, r: int, ppos: Floats, pbound: Floats, rule: tuple[float, float]) -> bool:
    """The bounding-ball reject of ``queries._probe_test`` (probe row ``r`` as a, body ``u`` as b), negated."""
    dim = ppos.shape[1]
    position = q.position
    reach = pbound[r] + q.bound_radius[u]
    g = ppos[r, 0] - position[u, 0]
    size = abs(ppos[r, 0])
    spread = abs(g)
    dist2 = g * g
    for d in range(1, dim):
        g = ppos[r, d] - position[u, d]
        size = max(size, abs(ppos[r, d]))
        spread = max(spread, abs(g))
        dist2 += g * g
    slack = 2.0 * (rule[0] * abs(size + spread + reach))
    limit = reach * (1 + 1e-9) + slack
    return dist2 <= limit * limit


@njit(cache=True)
def _curved(q: Any, kb: int, u: int, pk: int, r: int, ppos: Floats, prot: Floats, prad: Floats, phalf: Floats,
            pbound: Floats, rule: tuple[float, float], pa: Floats, pb: Floats, verts: Floats, res: Floats,
            hit: NDArray[np.bool_], dep: Floats, scratch: Any) -> int:
    """A ball or box probe row against cylinder or cone ``u``: support_pair_rows' arithmetic, probe as side a."""
    P, PA, PB, F_, FN, edges = scratch
    for k in range(8):
        pa[k] = 0.0
        pb[k] = 0.0
    if pk == BALL:
        pa[0] = prad[r]
    else:
        for k in range(3):
            pa[k] = phalf[r, k]
    pb[0] = q.radius[u]
    pb[1] = q.half[u, 2]
    size = abs(ppos[r, 0])
    size_b = abs(q.position[u, 0])
    for k in range(1, 3):
        size = max(size, abs(ppos[r, k]))
        size_b = max(size_b, abs(q.position[u, k]))
    scale = max(size, size_b) + pbound[r] + q.bound_radius[u]
    only = pk > 0  # (a computed bool: a literal would be a second compile)
    signed = _sc.support_contact_scratch(np.int64(pk), ppos[r], prot[r], pa, np.int64(kb), q.position[u],
                                         q.rotation[u], pb, verts, scale, res, only, P, PA, PB, F_, FN, edges)
    finish_row(signed, scale, rule, np.int64(0), hit, dep)
    return HIT if hit[0] else MISS


@njit(cache=True)
def _rounded(q: Any, kb: int, rounding: float, u: int, pk: int, pn: int, r: int, ppos: Floats, prot: Floats,
             prad: Floats, phalf: Floats, pwx: Floats, pwy: Floats, world: Floats, ws: Floats, out: Floats) -> int:
    """A probe row against the rounded shape ``u`` (core kind ``kb``): the cores' GJK distance."""
    dim = ppos.shape[1]
    # the body's core, world vertices (a 2D shape at z = 0)
    nb = 0
    if kb == BOX:
        nb = 1 << dim
        for c in range(nb):
            for i in range(3):
                world[c, i] = 0.0
            for i in range(dim):
                acc = q.position[u, i]
                for j in range(dim):
                    sgn = 1.0 if (c >> j) & 1 else -1.0
                    acc += q.rotation[u, i, j] * (sgn * q.half[u, j])
                world[c, i] = acc
    elif kb == POLYGON:
        if not q.simple[u]:
            return OTHER
        nb = q.simple_n[q.poly[u]]
        for c in range(nb):
            world[c, 0] = q.world_x[c, u]
            world[c, 1] = q.world_y[c, u]
            world[c, 2] = 0.0
    elif kb == HULL:
        lv = q.hull_verts[q.hull[u]]
        nb = lv.shape[0]
        for c in range(nb):
            for i in range(3):
                world[c, i] = q.position[u, i] + (q.rotation[u, i, 0] * lv[c, 0] + q.rotation[u, i, 1] * lv[c, 1]
                                                  + q.rotation[u, i, 2] * lv[c, 2])
    else:
        return OTHER
    # the probe's core after it: a ball's centre, a box's corners, a polygon's vertices
    na = 0
    if pk == BALL:
        na = 1
        for i in range(3):
            world[nb, i] = ppos[r, i] if i < dim else 0.0
    elif pk == BOX:
        na = 1 << dim
        for c in range(na):
            for i in range(3):
                world[nb + c, i] = 0.0
            for i in range(dim):
                acc = ppos[r, i]
                for j in range(dim):
                    sgn = 1.0 if (c >> j) & 1 else -1.0
                    acc += prot[r, i, j] * (sgn * phalf[r, j])
                world[nb + c, i] = acc
    else:
        na = pn
        for c in range(na):
            world[nb + c, 0] = pwx[r, c]
            world[nb + c, 1] = pwy[r, c]
            world[nb + c, 2] = 0.0
    gap = gjk_closest(world, np.int64(0), nb, nb, na, ws, out) - prad[r]
    return HIT if gap <= rounding else MISS


@njit(cache=True)
def _settle_round_rows(q: Any, kind: NDArray[np.int8], rounding: Floats, pk: int, pn: int, ppos: Floats,
                       prot: Floats, prad: Floats, phalf: Floats, pbound: Floats, pwx: Floats, pwy: Floats,
                       rows: Index, slots: Index) -> NDArray[np.int8]:
    rule = (q.rel, q.floor)
    n = rows.shape[0]
    codes = np.empty(n, dtype=np.int8)
    width = 8 + max(pwx.shape[1], 8)
    if q.hull_verts.shape[0] > 0:
        width += q.hull_verts.shape[1]
    width = max(width, 8 + 8 + q.world_x.shape[0])
    world = np.zeros((width, 3))
    ws = np.zeros((16, 4))
    out = np.zeros(9)
    pa = np.zeros(8)
    pb = np.zeros(8)
    verts = np.zeros((1, 3))
    res = np.zeros(11)
    hit = np.empty(1, dtype=np.bool_)
    dep = np.empty(1)
    scratch = _sc.epa_scratch()
    for t in range(n):
        r = rows[t]
        s = slots[t]
        n_sub = 1
        first_part = -1
        if kind[s] == COMPOUND:
            n_sub = q.n_parts[s]
            first_part = q.parts_at[s]
        got = MISS
        for sub in range(n_sub):
            u = s if first_part < 0 else q.part_slots[first_part + sub]
            ku = np.int64(kind[u])
            g = OTHER
            if not _near(q, u, r, ppos, pbound, rule):
                g = MISS
            elif rounding[u] > 0.0:
                g = _rounded(q, ku, rounding[u], u, pk, pn, r, ppos, prot, prad, phalf, pwx, pwy, world, ws, out)
            elif (ku == CYLINDER or ku == CONE) and pk <= BOX:
                g = _curved(q, ku, u, pk, r, ppos, prot, prad, phalf, pbound, rule, pa, pb, verts, res, hit, dep,
                            scratch)
            if g == HIT:
                got = HIT
                break
            if g == OTHER:
                got = OTHER
        codes[t] = got
    return codes


def settle_round_rows(q: Any, kind: NDArray[np.int8], rounding: Floats, pk: int, pn: int, ppos: Floats,
                      prot: Floats, prad: Floats, phalf: Floats, pbound: Floats, pwx: Floats, pwy: Floats,
                      rows: Index, slots: Index) -> NDArray[np.int8]:
    """HIT, MISS or OTHER for the pairs ``(rows[t], slots[t])`` that ``queries.settle_rows`` left OTHER.

    ``q``: the index's ``QueryArrays``; ``kind`` and ``rounding``: the store's
    columns (the packed kind of a rounded shape is ``ROUNDED_ROW``); the
    probe rows as ``settle_rows`` takes them. OTHER: still left to the numpy path.
    """
    return _settle_round_rows(q, kind, rounding, pk, pn, ppos, prot, prad, phalf, pbound, pwx, pwy, rows, slots)
