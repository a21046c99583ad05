"""Scaling a scene by any power of ten within the limits changes no contact decision.

Pairs of circles, spheres, capsules, segments, boxes and polygons (convex
and concave) are placed on a grid of dyadic positions, so that every gap is
either exactly zero (touching) or bounded well away from the touching
tolerance. The decision of the unscaled configuration is computed with
exact rational arithmetic (``fractions.Fraction``): the two shapes are
unions of convex cores (point, segment, convex polygon, box) grown by a
radius, and they are in contact exactly when some pair of cores is at most
the sum of the radii apart, compared squared. The same configuration, every
coordinate and size multiplied by 10**e, must give that decision on both
backends for every e from -300 up to the largest that keeps every
coordinate within the 1e150 limit. Before the fix, squared distances
underflowed below ~1e-154 (two circles 2.687 radii apart touched) and the
capsule kernels' products of squared lengths overflowed above ~1e77.
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import numpy as np
import pytest

from collideworld import Box, Capsule, Circle, Polygon, Segment, Sphere, collide_many

EXPONENTS = range(-300, 150)  # positions up to 4 * 10**149, within the 1e150 limit
N = 48

# ---- exact geometry over Fractions -------------------------------------------------------------------


def _dot(u, v):
    return sum(a * b for a, b in zip(u, v, strict=True))


def _sub(u, v):
    return tuple(a - b for a, b in zip(u, v, strict=True))


def _clamp01(x):
    return min(max(x, F(0)), F(1))


def _point_segment2(p, a, b):
    d = _sub(b, a)
    dd = _dot(d, d)
    t = F(0) if dd == 0 else _clamp01(_dot(_sub(p, a), d) / dd)
    q = tuple(ai + t * di for ai, di in zip(a, d, strict=True))
    w = _sub(p, q)
    return _dot(w, w)


def _segment_segment2(p1, q1, p2, q2):
    """Squared distance of two segments: the interior critical point if it is inside, else the four end cases."""
    best = min(_point_segment2(p1, p2, q2), _point_segment2(q1, p2, q2),
               _point_segment2(p2, p1, q1), _point_segment2(q2, p1, q1))
    d1, d2, r = _sub(q1, p1), _sub(q2, p2), _sub(p1, p2)
    a, e, b = _dot(d1, d1), _dot(d2, d2), _dot(d1, d2)
    c, f = _dot(d1, r), _dot(d2, r)
    denom = a * e - b * b
    if denom != 0:
        s = (b * f - c * e) / denom
        t = (a * f - b * c) / denom
        if 0 <= s <= 1 and 0 <= t <= 1:
            w = tuple(ri + s * x - t * y for ri, x, y in zip(r, d1, d2, strict=True))
            best = min(best, _dot(w, w))
    return best


def _inside_convex(p, poly):
    """Closed point-in-convex-polygon (counter-clockwise vertices)."""
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        if (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) < 0:
            return False
    return True


def _edges(poly):
    return [(poly[i], poly[(i + 1) % len(poly)]) for i in range(len(poly))]


def _box_corners(lo, hi):
    return [tuple(c) for c in itertools.product(*zip(lo, hi, strict=True))]


def _point_box2(p, lo, hi):
    return sum((x - min(max(x, a), b)) ** 2 for x, a, b in zip(p, lo, hi, strict=True))


def _segment_hits_box(p, q, lo, hi):
    """Whether the closed segment meets the closed box: slab clipping, exactly."""
    t0, t1 = F(0), F(1)
    for x, y, a, b in zip(p, q, lo, hi, strict=True):
        d = y - x
        if d == 0:
            if x < a or x > b:
                return False
            continue
        ta, tb = (a - x) / d, (b - x) / d
        t0, t1 = max(t0, min(ta, tb)), min(t1, max(ta, tb))
        if t0 > t1:
            return False
    return True


def _box_edges_3d(lo, hi):
    corners = _box_corners(lo, hi)
    return [(u, v) for u, v in itertools.combinations(corners, 2)
            if sum(a != b for a, b in zip(u, v, strict=True)) == 1]


def _core_distance2(ca, cb):
    """Squared distance between two convex cores: ('point', p), ('segment', p, q), ('poly', verts), ('box', lo, hi)."""
    ka, kb = ca[0], cb[0]
    order = ["point", "segment", "poly", "box"]
    if order.index(ka) > order.index(kb):
        ca, cb, ka, kb = cb, ca, kb, ka
    if ka == "point":
        p = ca[1]
        if kb == "point":
            w = _sub(p, cb[1])
            return _dot(w, w)
        if kb == "segment":
            return _point_segment2(p, cb[1], cb[2])
        if kb == "poly":
            return F(0) if _inside_convex(p, cb[1]) else min(_point_segment2(p, a, b) for a, b in _edges(cb[1]))
        return _point_box2(p, cb[1], cb[2])
    if ka == "segment":
        p, q = ca[1], ca[2]
        if kb == "segment":
            return _segment_segment2(p, q, cb[1], cb[2])
        if kb == "poly":
            if _inside_convex(p, cb[1]) or _inside_convex(q, cb[1]):
                return F(0)
            return min(_segment_segment2(p, q, a, b) for a, b in _edges(cb[1]))
        lo, hi = cb[1], cb[2]
        if _segment_hits_box(p, q, lo, hi):
            return F(0)
        # disjoint: the closest pair has a segment end, or a box edge
        return min([_point_box2(p, lo, hi), _point_box2(q, lo, hi)]
                   + [_segment_segment2(p, q, a, b) for a, b in _box_edges_3d(lo, hi)])
    if ka == "poly":
        pa = ca[1]
        pb = cb[1] if kb == "poly" else _box_as_poly(cb[1], cb[2])
        if any(_inside_convex(v, pb) for v in pa) or any(_inside_convex(v, pa) for v in pb):
            return F(0)
        return min(_segment_segment2(a, b, c, d) for a, b in _edges(pa) for c, d in _edges(pb))
    lo_a, hi_a, lo_b, hi_b = ca[1], ca[2], cb[1], cb[2]
    return sum(max(F(0), la - hb, lb - ha) ** 2 for la, ha, lb, hb in zip(lo_a, hi_a, lo_b, hi_b, strict=True))


def _box_as_poly(lo, hi):
    return [(lo[0], lo[1]), (hi[0], lo[1]), (hi[0], hi[1]), (lo[0], hi[1])]


# ---- the shapes, in units of the scale s, as exact cores and as collideworld shapes ----------------------

# name -> (dim, exact cores in the local frame [(core, radius)], builder of the collideworld shape at scale s)
TRIANGLE = [(0, 0), (1, 0), (F(1, 2), 1)]
ELL = [(0, 0), (1, 0), (1, F(1, 2)), (F(1, 2), F(1, 2)), (F(1, 2), 1), (0, 1)]
SHAPES = {
    "circle": (2, [(("point", (F(0), F(0))), F(3, 4))], lambda s: Circle(0.75 * s)),
    "box2": (2, [(("poly", _box_as_poly((F(-1), F(-1, 2)), (F(1), F(1, 2)))), F(0))],
             lambda s: Box((1.0 * s, 0.5 * s))),
    "triangle": (2, [(("poly", [(F(x), F(y)) for x, y in TRIANGLE]), F(0))],
                 lambda s: Polygon([(float(x) * s, float(y) * s) for x, y in TRIANGLE])),
    # the L, split by hand into its two rectangles
    "ell": (2, [(("poly", _box_as_poly((F(0), F(0)), (F(1), F(1, 2)))), F(0)),
                (("poly", _box_as_poly((F(0), F(1, 2)), (F(1, 2), F(1)))), F(0))],
            lambda s: Polygon([(float(x) * s, float(y) * s) for x, y in ELL])),
    "capsule2": (2, [(("segment", (F(-1), F(0)), (F(1), F(1, 4))), F(1, 2))],
                 lambda s: Capsule((-1.0 * s, 0.0), (1.0 * s, 0.25 * s), 0.5 * s)),
    "segment2": (2, [(("segment", (F(-1, 2), F(-1, 4)), (F(3, 4), F(1, 2))), F(0))],
                 lambda s: Segment((-0.5 * s, -0.25 * s), (0.75 * s, 0.5 * s))),
    "sphere": (3, [(("point", (F(0), F(0), F(0))), F(3, 4))], lambda s: Sphere(0.75 * s)),
    "box3": (3, [(("box", (F(-1), F(-1, 2), F(-3, 4)), (F(1), F(1, 2), F(3, 4))), F(0))],
             lambda s: Box((1.0 * s, 0.5 * s, 0.75 * s))),
    "capsule3": (3, [(("segment", (F(-1), F(0), F(1, 4)), (F(1), F(1, 2), F(0))), F(1, 2))],
                 lambda s: Capsule((-1.0 * s, 0.0, 0.25 * s), (1.0 * s, 0.5 * s, 0.0), 0.5 * s)),
}

PAIRS_2D = ["circle", "box2", "triangle", "ell", "capsule2", "segment2"]
PAIRS_3D = ["sphere", "box3", "capsule3"]
PAIRS = ([(a, b) for i, a in enumerate(PAIRS_2D) for b in PAIRS_2D[i:] if not (a == b == "segment2")]
         + [(a, b) for i, a in enumerate(PAIRS_3D) for b in PAIRS_3D[i:]])


def _moved(core, offset):
    kind = core[0]
    if kind in ("point",):
        return (kind, _add(core[1], offset))
    if kind in ("segment", "box"):
        return (kind, _add(core[1], offset), _add(core[2], offset))
    return (kind, [_add(v, offset) for v in core[1]])


def _add(u, v):
    return tuple(a + b for a, b in zip(u, v, strict=True))


def _exact_contact(name_a, name_b, offset):
    """Whether shape b moved by ``offset`` meets shape a at the origin: exactly, over Fractions."""
    for (ca, ra), (cb, rb) in itertools.product(SHAPES[name_a][1], SHAPES[name_b][1]):
        if _core_distance2(ca, _moved(cb, offset)) <= (ra + rb) ** 2:
            return True
    return False


def _configurations(name_a, name_b):
    """Seeded dyadic offsets (multiples of 1/16 in [-2.5, 2.5]), and each one's exact decision."""
    dim = SHAPES[name_a][0]
    rng = np.random.default_rng(sum(map(ord, name_a + name_b)))
    pos = rng.integers(-40, 41, size=(N, dim)) / 16.0
    want = np.array([_exact_contact(name_a, name_b, tuple(F(x) for x in row)) for row in pos])
    return pos, want


@pytest.mark.parametrize(("name_a", "name_b"), PAIRS)
def test_scaling_by_any_power_of_ten_changes_no_decision(name_a: str, name_b: str) -> None:
    dim, _, build_a = SHAPES[name_a]
    build_b = SHAPES[name_b][2]
    pos, want = _configurations(name_a, name_b)
    assert 0 < want.sum() < len(want)  # the family has both verdicts
    # every scale in one call per backend: N rows per power of ten
    scales = [10.0 ** e for e in EXPONENTS]
    shapes_a = [a for s in scales for a in [build_a(s)] * N]
    shapes_b = [b for s in scales for b in [build_b(s)] * N]
    positions = np.concatenate([pos * s for s in scales])
    for backend in ("numpy", "compiled"):
        got = collide_many(shapes_a, np.zeros((len(positions), dim)), shapes_b, positions, backend=backend).hit
        bad = (got.reshape(len(scales), N) != want).sum(axis=1)
        wrong = [(e, int(k)) for e, k in zip(EXPONENTS, bad, strict=True) if k]
        assert not wrong, (f"{backend}: {len(wrong)} powers of ten disagree with the exact decision "
                           f"(exponent, rows): {wrong[:8]}")
