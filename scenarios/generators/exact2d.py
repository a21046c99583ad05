"""Exact distances and first-touch times for the version 2 scenarios (2D).

Every body here is an axis-aligned box (angle 0), a circle or a half-plane
with an axis normal, so signed distances and times of first touch under
linear motion have closed forms. They are evaluated in exact rational
arithmetic (:class:`fractions.Fraction` of the very doubles written to the
file) and rounded once at the end; a square root, where one is needed, is
taken in :mod:`decimal` with 50 digits. Nothing here imports collideworld.

Conventions follow the format: the signed distance is the gap when apart,
0 when touching and minus the penetration depth (the minimum translation
distance) when overlapping; a time of impact is the first ``t`` in [0, 1]
at which the shapes touch while moving linearly from their start to their
end poses, or None.
"""

from __future__ import annotations

from decimal import Decimal, getcontext
from fractions import Fraction

#: A first touch (or a miss) closer than this, in t or in distance, to
#: changing its answer is ambiguous in floating point: the generators move
#: such a case instead of writing it.
AMBIGUITY = Fraction(1, 10**6)


class AmbiguousImpact(Exception):
    pass


def F(x) -> Fraction:
    """The exact value of a double (or an int)."""
    return Fraction(x)


def sqrt(q: Fraction) -> Fraction:
    """sqrt(q) to 50 significant digits (q >= 0)."""
    getcontext().prec = 50
    d = (Decimal(q.numerator) / Decimal(q.denominator)).sqrt()
    return Fraction(d)


def out(q: Fraction, nd: int = 12) -> float:
    """A rational result as the number written to the file."""
    r = round(float(q), nd)
    return 0.0 if r == 0 else r


# ---------------------------------------------------------------------------
# signed distances
# ---------------------------------------------------------------------------


def box_box_distance(ca, ha, cb, hb) -> Fraction:
    """Signed distance of two axis-aligned boxes (centres ca, cb; half extents ha, hb)."""
    raw = [abs(F(cb[i]) - F(ca[i])) - (F(ha[i]) + F(hb[i])) for i in range(2)]
    if raw[0] > 0 and raw[1] > 0:  # apart diagonally: corner to corner
        return sqrt(raw[0] ** 2 + raw[1] ** 2)
    # apart along one axis (the gap), or touching/overlapping: minus the
    # smaller penetration, which is the larger raw value
    return max(raw)


def box_circle_distance(cb, hb, cc, r):
    """Signed distance from an axis-aligned box to a circle whose centre is outside
    the box, and the closest points (on the box, on the circle)."""
    c = [F(cc[0]), F(cc[1])]
    lo = [F(cb[i]) - F(hb[i]) for i in range(2)]
    hi = [F(cb[i]) + F(hb[i]) for i in range(2)]
    q = [min(max(c[i], lo[i]), hi[i]) for i in range(2)]
    d2 = (c[0] - q[0]) ** 2 + (c[1] - q[1]) ** 2
    assert d2 > 0, "the circle's centre is inside the box"
    d = sqrt(d2)
    p = [c[i] + (q[i] - c[i]) * F(r) / d for i in range(2)]
    return d - F(r), q, p


def box_circle_overlap(cb, hb, cc, r) -> Fraction:
    """Signed distance of a box and a circle whose centre is inside the box:
    minus (the centre's distance to the nearest face + r)."""
    c = [F(cc[0]), F(cc[1])]
    to_face = min(min(c[i] - (F(cb[i]) - F(hb[i])), (F(cb[i]) + F(hb[i])) - c[i]) for i in range(2))
    return -(to_face + F(r))


# ---------------------------------------------------------------------------
# first touch under linear motion
# ---------------------------------------------------------------------------


def _axis_window(d0: Fraction, v: Fraction, h: Fraction):
    """Times t (all reals) with |d0 + v t| <= h: an interval (lo, hi), or None for never.
    For v == 0: (-inf, inf) as (None, None) when always, None when never."""
    if v == 0:
        if abs(d0) <= h:
            return (None, None)
        if abs(d0) - h <= AMBIGUITY:
            raise AmbiguousImpact(f"a still axis misses by {float(abs(d0) - h)}")
        return None
    t1, t2 = (-h - d0) / v, (h - d0) / v
    return (min(t1, t2), max(t1, t2))


def _first_touch(windows) -> Fraction | None:
    """First t in [0, 1] inside every window, with an ambiguity check."""
    lo, hi = None, None
    for w in windows:
        if w is None:
            return None
        a, b = w
        if a is not None:
            lo = a if lo is None else max(lo, a)
            hi = b if hi is None else min(hi, b)
    if lo is None:
        return Fraction(0)  # touching and not moving apart along any axis
    # the touch window [lo, hi] intersected with [0, 1]
    start, end = max(lo, Fraction(0)), min(hi, Fraction(1))
    if start <= end:
        if end - start < AMBIGUITY and (hi - lo) >= 0:
            raise AmbiguousImpact(f"a grazing touch: window {float(start)}..{float(end)}")
        return start
    miss = max(lo - hi, start - end)
    if miss <= AMBIGUITY:
        raise AmbiguousImpact(f"a near miss by {float(miss)} in t")
    return None


def box_box_impact(a0, a1, ha, b0, b1, hb) -> Fraction | None:
    """First touch of two axis-aligned boxes translating linearly (angles stay 0).

    Slab method on the relative motion: along each axis the boxes overlap
    while |d(t)| <= ha + hb, d(t) the centres' offset; the first touch is
    the latest entry into every slab (Ericson, RTCD 5.5.8).
    """
    windows = []
    for i in range(2):
        d0 = F(b0[i]) - F(a0[i])
        v = (F(b1[i]) - F(b0[i])) - (F(a1[i]) - F(a0[i]))
        windows.append(_axis_window(d0, v, F(ha[i]) + F(hb[i])))
    return _first_touch(windows)


def circle_box_impact(p0, p1, r, cb, hb) -> Fraction | None:
    """First touch of a circle moving from p0 to p1 and a still axis-aligned box.

    The centre's path against the box grown by r (a rounded rectangle): the
    flat faces by the slab method; in a corner region, the smallest root of
    |p(t) - corner|^2 = r^2.
    """
    r = F(r)
    p0 = [F(p0[0]), F(p0[1])]
    v = [F(p1[0]) - p0[0], F(p1[1]) - p0[1]]
    lo = [F(cb[i]) - F(hb[i]) for i in range(2)]
    hi = [F(cb[i]) + F(hb[i]) for i in range(2)]
    best = None
    # flat faces: the slab of the grown box along one axis, the box itself along the other
    for i in range(2):
        j = 1 - i
        wi = _axis_window(p0[i] - (lo[i] + hi[i]) / 2, v[i], (hi[i] - lo[i]) / 2 + r)
        wj = _axis_window(p0[j] - (lo[j] + hi[j]) / 2, v[j], (hi[j] - lo[j]) / 2)
        try:
            t = _first_touch([wi, wj])
        except AmbiguousImpact:
            t = None  # a corner may decide it; the corner test below checks ambiguity itself
        if t is not None and (best is None or t < best):
            best = t
    # corners
    for cx in (lo[0], hi[0]):
        for cy in (lo[1], hi[1]):
            dx, dy = p0[0] - cx, p0[1] - cy
            a = v[0] ** 2 + v[1] ** 2
            b = 2 * (dx * v[0] + dy * v[1])
            c = dx ** 2 + dy ** 2 - r ** 2
            if c <= 0:
                t = Fraction(0)
            elif a == 0:
                continue
            else:
                disc = b * b - 4 * a * c
                if disc < 0:
                    if -disc / (4 * a) <= AMBIGUITY:  # closest approach within AMBIGUITY^2 of r^2
                        raise AmbiguousImpact("grazes a corner")
                    continue
                t = (-b - sqrt(disc)) / (2 * a)
                if t < 0 or t > 1:
                    if abs(t - 1) <= AMBIGUITY or abs(t) <= AMBIGUITY and t < 0:
                        raise AmbiguousImpact("touches a corner at the end of the motion")
                    continue
            if best is None or t < best:
                best = t
    return best


def circle_halfplane_impact(p0, p1, r, normal_axis: int, sign: int, offset) -> Fraction | None:
    """First touch of a circle moving p0 -> p1 and the half-plane sign * x[axis] <= offset."""
    s0 = sign * F(p0[normal_axis]) - F(r) - F(offset)  # signed gap at t = 0
    s1 = sign * F(p1[normal_axis]) - F(r) - F(offset)
    if s0 <= 0:
        return Fraction(0)
    if s1 > 0:
        if s1 <= AMBIGUITY:
            raise AmbiguousImpact("reaches the half-plane just at the end")
        return None
    return s0 / (s0 - s1)
