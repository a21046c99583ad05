"""``collide()`` on near-touching convex pairs, judged in exact arithmetic (issue 17).

For every pair of convex kinds (2D circle, box, convex polygon, half-plane;
3D sphere, box, plane; two half-spaces excepted, which no translation need
separate), :func:`tests.strategies.near_touching_pairs` places the shapes
within +-1e-15 .. 1e-6 of touching. Two properties, decided by
:mod:`tests.exact` on the same floats collideworld receives:

* apart by more than the touching band: no contact; overlapping by more
  than it: a contact;
* every contact reported is a minimum translation: moving b by
  ``depth * normal`` leaves the pair touching within the band, neither
  overlapping nor apart.

The band is 1.5 times ``touch_tolerance`` of the pair's largest coordinate
or size (see tests/test_near_touching.py for why the extra half).
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import collideworld as cw

from . import exact
from .strategies import NEAR_KINDS_2D, NEAR_KINDS_3D, ccw, make_shape, near_touching_pairs, rotation_of

HALFSPACES = ("halfplane", "plane")
PAIRS = [(2, a, b) for a, b in itertools.combinations_with_replacement(NEAR_KINDS_2D, 2)]
PAIRS += [(3, a, b) for a, b in itertools.combinations_with_replacement(NEAR_KINDS_3D, 2)]
PAIRS = [p for p in PAIRS if not (p[1] in HALFSPACES and p[2] in HALFSPACES)]
NEAR = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _shape(item):
    kind = "polygon" if item["kind"] == "convex" else item["kind"]
    params = tuple(item["params"]) if kind in ("box", "halfplane", "plane") else item["params"]
    if kind in ("halfplane", "plane"):
        params = (tuple(params[0]), params[1])
    return make_shape(kind, params)


def _pose(item):
    if item["position"] is None:
        return None
    rotation = item["rotation"] if np.ndim(item["rotation"]) == 0 else list(item["rotation"])
    return (tuple(item["position"]), rotation)


def _exact(item, shape, shift=None):
    """The exact model of a posed shape, moved by the exact vector ``shift``."""
    dim = len(shape.normal) if item["position"] is None else len(item["position"])
    shift = shift or (F(0),) * dim
    if item["position"] is None:  # the shape's own unit normal and offset, as floats
        n = exact.q(shape.normal)
        return ("hs", n, F(shape.offset) + exact.dot(n, shift))
    centre = exact.add(exact.q(item["position"]), shift)
    if item["kind"] in ("circle", "sphere"):
        return ("ball", centre, F(item["params"]))
    r = rotation_of(dim, item["rotation"])
    if dim == 3:
        return ("box3", centre, r, exact.q(item["params"]))
    rq = [exact.q(row) for row in r]
    if item["kind"] == "box":
        h = exact.q(item["params"])
        loc = [(sx * h[0], sy * h[1]) for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    else:
        loc = [exact.q(v) for v in ccw(item["params"])]
    return ("poly", [exact.add(centre, (exact.dot(rq[0], v), exact.dot(rq[1], v))) for v in loc])


def _box3_corners(g):
    _, c, r, h = g
    axes = exact.box_axes_3d(r)
    out = []
    for signs in itertools.product((-1, 1), repeat=3):
        p = c
        for s, e, hi in zip(signs, axes, h, strict=True):
            p = exact.add(p, exact.scale(e, s * hi))
        out.append(p)
    return out


def _lowest(g, n):
    """min over shape g of n . p (exact; for a ball, as (centre term, radius) to keep sqrt out)."""
    if g[0] == "poly":
        return min(exact.dot(n, v) for v in g[1]), F(0)
    if g[0] == "box3":
        return min(exact.dot(n, v) for v in _box3_corners(g)), F(0)
    return exact.dot(n, g[1]), g[2]  # n.c - r |n|


def _polygon_distance2(pa, pb):
    """Squared distance between two disjoint convex polygons: the nearest vertex-edge pair."""
    best = None
    for poly, other in ((pa, pb), (pb, pa)):
        for v in poly:
            _, d2, _ = exact.point_polygon(v, other)
            best = d2 if best is None or d2 < best else best
    return best


def verdict(ga, gb, t):
    """+1 apart by more than t, -1 overlapping by more than t, 0 within t of touching."""
    order = {"hs": 0, "ball": 1, "poly": 2, "box3": 2}
    if order[ga[0]] > order[gb[0]]:
        ga, gb = gb, ga
    t = F(t)
    ka, kb = ga[0], gb[0]
    if ka == "hs":
        n, off = ga[1], ga[2]
        low, radius = _lowest(gb, n)
        u, nn = low - off, exact.dot(n, n)  # gap = u / |n| - radius
        if u > 0 and u * u > (radius + t) ** 2 * nn:  # gap > t
            return 1
        k = radius - t  # overlapping by more than t: u / |n| < k
        if k <= 0:
            return -1 if u < 0 and u * u > k * k * nn else 0
        return -1 if u < 0 or u * u < k * k * nn else 0
    if ka == "ball" and kb == "ball":
        d = exact.sub(gb[1], ga[1])
        d2, rr = exact.dot(d, d), ga[2] + gb[2]
        if d2 > (rr + t) ** 2:
            return 1
        return -1 if rr > t and d2 < (rr - t) ** 2 else 0
    if ka == "ball":
        query = exact.point_polygon(ga[1], gb[1]) if kb == "poly" else exact.point_box_3d(ga[1], *gb[1:])
        return exact.ball_gap(*query[:2], ga[2], t)
    if kb == "box3":
        return exact.sat_verdict(exact.sat_boxes_3d(ga[1], ga[2], ga[3], gb[1], gb[2], gb[3]), t)
    # two polygons: separated along an edge normal -> their exact distance; else the SAT overlap
    axes = []
    for poly in (ga[1], gb[1]):
        for k, v in enumerate(poly):
            e = exact.sub(poly[(k + 1) % len(poly)], v)
            n = (e[1], -e[0])
            if n == (0, 0):
                continue
            ha = max(exact.dot(n, p) for p in ga[1]) - min(exact.dot(n, p) for p in gb[1])
            hb = max(exact.dot(n, p) for p in gb[1]) - min(exact.dot(n, p) for p in ga[1])
            axes.append((min(ha, hb), exact.dot(n, n)))  # overlap along n (negative: a gap)
    if any(s < 0 for s, _ in axes):
        return 1 if _polygon_distance2(ga[1], gb[1]) > t * t else 0
    return -1 if all(s > 0 and s * s > t * t * nn for s, nn in axes) else 0


def _scale(*items):
    out = 1.0
    for it in items:
        if it["position"] is None:
            out = max(out, abs(it["params"][1]))
            continue
        extent = np.max(np.abs(np.asarray(it["params"], dtype=float)))
        out = max(out, float(np.max(np.abs(it["position"]))) + extent * np.sqrt(len(it["position"])))
    return out


@pytest.mark.parametrize("backend", ["compiled", "numpy"])
@pytest.mark.parametrize(("dim", "ka", "kb"), PAIRS, ids=[f"{d}d-{a}-{b}" for d, a, b in PAIRS])
@NEAR
@given(data=st.data())
def test_near_touching_contacts_are_exact_minimum_translations(dim, ka, kb, backend, data):
    a, b = data.draw(near_touching_pairs(dim, ka, kb), label="pair")
    if data.draw(st.booleans(), label="swap"):
        a, b = b, a
    sa, sb = _shape(a), _shape(b)
    res = cw.collide(sa, _pose(a), sb, _pose(b), backend=backend)
    band = 1.5e-14 * _scale(a, b)
    ga = _exact(a, sa)
    before = verdict(ga, _exact(b, sb), band)
    if before == 1:
        assert res is None, f"apart by more than {band:.1e}, got {res}"
    if before == -1:
        assert res is not None, f"overlapping by more than {band:.1e}, got no contact"
    if res is None:
        return
    shift = exact.scale(exact.q(res.normal), F(float(res.depth)))
    after = verdict(ga, _exact(b, sb, shift), band)
    assert after == 0, (f"moved by depth {res.depth:.3e} along {res.normal} the pair is "
                        f"{'apart' if after > 0 else 'still overlapping'} by more than {band:.1e}")
