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

import math
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..geometry import support_convex as _sc
from ..geometry.compiled.kernel_support import finish_row
from ..geometry.gjk import gjk_closest

__all__ = ["settle_round_rows", "cast_round_rows"]

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
    return bool(dist2 <= limit * limit)


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
    if kb == BOX and pk == BALL:
        # A ball (a point) against a rounded box: the centre's distance to the core box in the box's
        # frame (Ericson, RTCD 5.1.3), closed form. It decides the pair when it is farther than 1e-9 of
        # the coordinates' magnitude from touching (far above its rounding and GJK's); GJK below decides
        # the rest, so both backends still agree at touching. (Most point candidates are far from it.)
        d2 = 0.0
        size = 0.0
        for j in range(dim):
            lc = 0.0
            for i in range(dim):
                lc += q.rotation[u, i, j] * (ppos[r, i] - q.position[u, i])
            ex = abs(lc) - q.half[u, j]
            if ex > 0.0:
                d2 += ex * ex
            size = max(size, abs(ppos[r, j]), abs(q.position[u, j]))
        reach = rounding + prad[r]
        margin = 1e-9 * (size + reach + q.bound_radius[u])
        if d2 > (reach + margin) * (reach + margin):
            return MISS
        if reach > margin and d2 < (reach - margin) * (reach - margin):
            return HIT
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
        # the posed vertices are columns, one per probe (``pwx[v, r]``, as shape_probe_rows makes them): read
        # as rows, a batch of polygon probes tested rounded shapes against other probes' vertices
        na = pn
        for c in range(na):
            world[nb + c, 0] = pwx[c, r]
            world[nb + c, 1] = pwy[c, r]
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
    width = 8 + max(pwx.shape[0], 8)
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
            elif ku <= HULL and not (ku == POLYGON and not q.simple[u]):
                # a part of a kind settle_rows tests (a compound's circle beside its rounded box): it found
                # no hit among them, or the pair would not be here. (It was OTHER, and sent a compound
                # with rounded parts whose rounded parts all missed to the numpy path.)
                g = MISS
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

    Examples
    --------
    A ball of radius 0.5 at (0, 0, 1.4) and at (0, 0, 1.6) against a
    cylinder of half height 1 at the origin: 1.4 - 0.5 <= 1 touches it,
    1.6 - 0.5 does not.

    >>> import numpy as np
    >>> from collideworld import Cylinder, World
    >>> from collideworld.compiled.queries import BALL, HIT, MISS
    >>> from collideworld.queries import QueryIndex
    >>> w = World(dim=3, backend="compiled")
    >>> w.add(Cylinder(1.0, 1.0))
    0
    >>> index = QueryIndex(w._store, "compiled")
    >>> grid = index.refresh()
    >>> ppos = np.array([[0.0, 0.0, 1.4], [0.0, 0.0, 1.6]])
    >>> prot = np.tile(np.eye(3), (2, 1, 1))
    >>> no = np.empty((0, 3))
    >>> codes = settle_round_rows(index.arrays, w._store.kind, w._store.rounding, BALL, 0, ppos, prot,
    ...                           np.full(2, 0.5), np.zeros((2, 3)), np.full(2, 0.5), no, no,
    ...                           np.array([0, 1]), np.array([0, 0]))
    >>> codes.tolist() == [HIT, MISS]
    True
    """
    return _settle_round_rows(q, kind, rounding, pk, pn, ppos, prot, prad, phalf, pbound, pwx, pwy, rows, slots)


# -- rays -------------------------------------------------------------------------------------------

#: Most Newton steps of a ray against a rounded shape (``narrowphase.RAY_ROUNDED_STEPS``).
RAY_ROUNDED_STEPS = 100
#: ``geometry.tolerance.REL_TOUCH_TOL``
_REL = 1e-14


@njit(cache=True)
def _revolution_entry(ox: float, oy: float, oz: float, dx: float, dy: float, dz: float, r: float, h: float,
                      cone: bool) -> tuple[float, float, int]:
    """``raycast._solid_of_revolution_entry`` for one local ray: (t_in, t_out, the constraint bounding t_in:
    0 the side, 1 the bottom cap or base, 2 the top cap); t_in > t_out: a miss. The solid is an intersection
    of convex sets (Kay & Kajiya 1986 for the slab; the quadric's roots in the stable form of Ray Tracing
    Gems ch. 7), so the ray's interval is the intersection of its intervals in each."""
    inf = math.inf
    lo, hi, src = -inf, inf, 0
    if dz != 0.0:
        t_bottom = (-h - oz) / dz
        t_top = (h - oz) / dz
        if dz > 0:  # enters z >= -h at t_bottom, leaves z <= h at t_top
            lo2, hi2 = t_bottom, inf
        else:
            lo2, hi2 = -inf, t_bottom
        if lo2 > lo:
            src = 1
        lo, hi = max(lo, lo2), min(hi, hi2)
        if dz < 0:
            lo2, hi2 = t_top, inf
        else:
            lo2, hi2 = -inf, t_top
        if lo2 > lo:
            src = 2
        lo, hi = max(lo, lo2), min(hi, hi2)
    elif oz < -h or oz > h:
        return inf, -inf, 1
    k2 = (r / (2.0 * h)) ** 2 if cone else 0.0
    w0 = h - oz
    a = dx * dx + dy * dy - k2 * dz * dz
    b = ox * dx + oy * dy + k2 * w0 * dz
    c = ox * ox + oy * oy - (k2 * w0 * w0 if cone else r * r)
    disc = b * b - a * c
    sq = math.sqrt(max(disc, 0.0))
    qq = -(b + (sq if b >= 0 else -sq))
    r1 = qq / a if a != 0 else inf
    r2 = c / qq if qq != 0 else (-inf if c <= 0 else inf)
    t1, t2 = min(r1, r2), max(r1, r2)
    if a > 0:
        qlo, qhi = (t1, t2) if disc >= 0 else (inf, -inf)
    elif a < 0:
        qlo, qhi = -inf, inf
        if disc >= 0:
            # the piece of the two that meets the interval so far (the right nappe)
            if (min(hi, t1) - lo) >= (hi - max(lo, t2)):
                qlo, qhi = -inf, t1
            else:
                qlo, qhi = t2, inf
    else:  # linear: 2 b t + c <= 0
        qlo = -c / (2 * b) if b < 0 else -inf
        qhi = -c / (2 * b) if b > 0 else inf
        if b == 0 and c > 0:
            qlo, qhi = inf, -inf
    if qlo > lo:
        src = 0
    lo, hi = max(lo, qlo), min(hi, qhi)
    if lo == qlo:
        src = 0  # a tie (the ray enters at the rim): the side's normal
    return lo, hi, src


@njit(cache=True)
def _ray_revolution(s: int, cone: bool, position: Floats, rotation: Floats, radius: Floats, half: Floats,
                    o: Floats, d: Floats, maxd: float, nrm: Floats) -> float:
    """``raycast.raycast_cylinder`` for one ray and one cylinder or cone: its distance (inf: a miss), the
    normal into ``nrm``. A ray missing the solid but meeting it grown by the touching tolerance (in radius
    and half height) hits where it enters the grown solid (the touching rule)."""
    r = radius[s]
    h = half[s, 2]
    vx, vy, vz = o[0] - position[s, 0], o[1] - position[s, 1], o[2] - position[s, 2]
    ox = rotation[s, 0, 0] * vx + rotation[s, 1, 0] * vy + rotation[s, 2, 0] * vz
    oy = rotation[s, 0, 1] * vx + rotation[s, 1, 1] * vy + rotation[s, 2, 1] * vz
    oz = rotation[s, 0, 2] * vx + rotation[s, 1, 2] * vy + rotation[s, 2, 2] * vz
    dx = rotation[s, 0, 0] * d[0] + rotation[s, 1, 0] * d[1] + rotation[s, 2, 0] * d[2]
    dy = rotation[s, 0, 1] * d[0] + rotation[s, 1, 1] * d[1] + rotation[s, 2, 1] * d[2]
    dz = rotation[s, 0, 2] * d[0] + rotation[s, 1, 2] * d[1] + rotation[s, 2, 2] * d[2]
    big_o = max(abs(o[0]), abs(o[1]), abs(o[2]))
    big_c = max(abs(position[s, 0]), abs(position[s, 1]), abs(position[s, 2]))
    tol = _REL * max(big_o, big_c + math.hypot(r, h))
    lo, hi, src = _revolution_entry(ox, oy, oz, dx, dy, dz, r, h, cone)
    if not (lo <= hi and hi >= 0.0 and lo <= maxd):
        lo, hi, src = _revolution_entry(ox, oy, oz, dx, dy, dz, r + tol, h + tol, cone)
        if not (lo <= hi and hi >= 0.0 and lo <= maxd):
            return math.inf
    if lo <= 0.0:  # the origin inside
        for k in range(3):
            nrm[k] = -d[k] + 0.0
        return 0.0
    t = min(lo, maxd)
    lx, ly, lz = 0.0, 0.0, 0.0
    if src == 0:
        k2 = (r / (2.0 * h)) ** 2 if cone else 0.0
        px, py, pz = ox + t * dx, oy + t * dy, oz + t * dz
        lx, ly, lz = px, py, k2 * (h - pz)
        length = math.sqrt(lx * lx + ly * ly + lz * lz)
        if length > 0:
            lx, ly, lz = lx / length, ly / length, lz / length
        else:
            lx, ly, lz = -dx, -dy, -dz
    else:
        lz = -1.0 if src == 1 else 1.0
    for k in range(3):
        nrm[k] = rotation[s, k, 0] * lx + rotation[s, k, 1] * ly + rotation[s, k, 2] * lz + 0.0
    return t


@njit(cache=True)
def _core_points(s: int, kind: int, position: Floats, rotation: Floats, half: Floats, world_xy: Floats,
                 hull: Index, hull_verts: Floats, world: Floats) -> int:
    """The core of rounded shape ``s`` as world points in ``world`` (3D coordinates); their count (0: not here)."""
    dim = position.shape[1]
    if kind == BOX:
        n = 1 << dim
        for c in range(n):
            for i in range(3):
                world[c, i] = 0.0
            for i in range(dim):
                acc = position[s, i]
                for j in range(dim):
                    sgn = 1.0 if (c >> j) & 1 else -1.0
                    acc += rotation[s, i, j] * (sgn * half[s, j])
                world[c, i] = acc
        return int(n)
    if kind == POLYGON and dim == 2:
        n = world_xy.shape[1]  # padded by repeating the last vertex: the same hull
        for c in range(n):
            world[c, 0] = world_xy[s, c, 0]
            world[c, 1] = world_xy[s, c, 1]
            world[c, 2] = 0.0
        return int(n)
    if kind == HULL and dim == 3:
        lv = hull_verts[hull[s]]
        for c in range(lv.shape[0]):
            for i in range(3):
                world[c, i] = position[s, i] + (rotation[s, i, 0] * lv[c, 0] + rotation[s, i, 1] * lv[c, 1]
                                                + rotation[s, i, 2] * lv[c, 2])
        return int(lv.shape[0])
    return 0


@njit(cache=True)
def _ray_rounded(n: int, grow: float, o: Floats, d: Floats, maxd: float, world: Floats, ws: Floats, out: Floats,
                 nrm: Floats, dim: int, centre: Floats) -> float:
    """``narrowphase.ray_rounded`` for one ray and one core (``world[:n]``): Newton's method on the gap along
    the ray (the cores' GJK distance less the radius), convex in t, so each step from before the entry stays
    before it (conservative advancement, Mirtich 1996).

    It starts where the ray enters the shape's bounding ball about ``centre``
    (its body's position), grown by ``1e-9`` of itself: no point of the shape
    lies before that, so the steps stay conservative; a ray that misses the
    ball (or enters it past ``maxd``) misses without a GJK call. (From the
    ray's origin, a ray passing by took one GJK call per step until its
    closing speed turned negative: most of the pairs a batch of rays meets.)
    """
    scale = 0.0
    reach2 = 0.0
    for c in range(n):
        r2 = 0.0
        for i in range(3):
            scale = max(scale, abs(world[c, i]))
            if i < dim:
                r2 += (world[c, i] - centre[i]) ** 2
        reach2 = max(reach2, r2)
    for i in range(dim):
        scale = max(scale, abs(o[i]))
    tol = 1e-12 * max(scale + grow, 1e-300)
    reach = (math.sqrt(reach2) + grow) * (1.0 + 1e-9) + tol
    b = 0.0
    cc = -reach * reach
    for i in range(dim):
        w = o[i] - centre[i]
        b += w * d[i]
        cc += w * w
    t = 0.0
    if cc > 0.0:  # the origin outside the ball: its entry, or a miss
        disc = b * b - cc
        if b >= 0.0 or disc < 0.0:
            return math.inf
        t = max(0.0, -b - math.sqrt(disc))
        if t > maxd:
            return math.inf
    for _ in range(RAY_ROUNDED_STEPS):
        for i in range(3):
            world[n, i] = o[i] + t * d[i] if i < dim else 0.0
        gap = gjk_closest(world, np.int64(0), n, n, np.int64(1), ws, out) - grow
        if gap <= tol:
            for i in range(dim):
                nrm[i] = (-d[i] if t == 0 else out[6 + i]) + 0.0
            return t
        closing = 0.0
        for i in range(dim):
            closing -= out[6 + i] * d[i]
        if closing <= 0:
            return math.inf
        t += gap / min(closing, 1.0)
        if t > maxd:
            return math.inf
    return math.inf


@njit(cache=True)
def _cast_round_rows(kind: NDArray[np.int8], rounding: Floats, simple: NDArray[np.bool_], position: Floats,
                     rotation: Floats, radius: Floats, half: Floats, world_xy: Floats, hull: Index,
                     hull_verts: Floats, slots: Index, o: Floats, d: Floats,
                     maxd: Floats) -> tuple[Floats, Floats, NDArray[np.bool_]]:
    m = slots.shape[0]
    dim = position.shape[1]
    dist = np.full(m, math.inf)
    normal = np.zeros((m, dim))
    done = np.zeros(m, dtype=np.bool_)
    width = 9 + max(world_xy.shape[1], 8)
    if hull_verts.shape[0] > 0:
        width += hull_verts.shape[1]
    world = np.zeros((width, 3))
    ws = np.zeros((16, 4))
    out = np.zeros(9)
    nrm = np.zeros(3)
    for k in range(m):
        s = slots[k]
        ks = np.int64(kind[s])
        t = math.inf
        if rounding[s] > 0.0:
            if ks == POLYGON and not simple[s]:
                continue
            n = _core_points(s, ks, position, rotation, half, world_xy, hull, hull_verts, world)
            if n == 0:
                continue
            t = _ray_rounded(n, rounding[s], o[k], d[k], maxd[k], world, ws, out, nrm, dim, position[s])
        elif (ks == CYLINDER or ks == CONE) and dim == 3:
            t = _ray_revolution(s, ks == CONE, position, rotation, radius, half, o[k], d[k], maxd[k], nrm)
        else:
            continue
        done[k] = True
        if t <= maxd[k]:
            dist[k] = t
            for i in range(dim):
                normal[k, i] = nrm[i]
    return dist, normal, done


def cast_round_rows(kind: NDArray[np.int8], rounding: Floats, simple: NDArray[np.bool_], position: Floats,
                    rotation: Floats, radius: Floats, half: Floats, world_xy: Floats, hull: Index,
                    hull_verts: Floats, slots: Index, o: Floats, d: Floats,
                    maxd: Floats) -> tuple[Floats, Floats, NDArray[np.bool_]]:
    """Ray ``k`` (``o[k]``, unit ``d[k]``, limit ``maxd[k]``) against body ``slots[k]`` (the store's columns):
    a cylinder or cone by its closed form, a rounded box, simple polygon or hull by Newton's method on its
    core's GJK distance. Returns distances (inf: a miss), normals and ``done`` (False: a row of another kind,
    left to the caller).

    Examples
    --------
    A ray along x from (-3, 0, 0) against a cylinder of radius 1 at the
    origin enters its side at distance 2, normal (-1, 0, 0).

    >>> import numpy as np
    >>> from collideworld import Cylinder, World
    >>> w = World(dim=3, backend="compiled")
    >>> w.add(Cylinder(1.0, 1.0))
    0
    >>> s = w._store
    >>> dist, normal, done = cast_round_rows(s.kind, s.rounding, s.simple, s.position, s.rotation, s.radius,
    ...                                      s.half, np.zeros((0, 8, 2)), s.hull, s.hulls.verts, np.array([0]),
    ...                                      np.array([[-3.0, 0.0, 0.0]]), np.array([[1.0, 0.0, 0.0]]),
    ...                                      np.array([9.0]))
    >>> dist.tolist(), normal.tolist(), done.tolist()
    ([2.0], [[-1.0, 0.0, 0.0]], [True])
    """
    return _cast_round_rows(kind, rounding, simple, position, rotation, radius, half, world_xy, hull, hull_verts,
                            slots, o, d, maxd)
