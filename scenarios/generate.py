#!/usr/bin/env python3
"""Regenerate every scenario file in this folder, byte for byte.

    python scenarios/generate.py            # writes scenarios/*.jsonl and scenarios/invalid/
    python scenarios/generate.py --out DIR  # writes the same files under DIR instead

The files follow ``shared/scenario-format.md`` (version 1). Every ``expect``
and ``expect_contacts`` below is computed here, by methods that share no code
with collideworld (this script never imports it):

* 2D: shapely 2.x on exact polygons (boxes and polygons are turned into
  shapely polygons from their pose); a circle is its centre point and radius,
  tested with ``shapely.distance(Point(centre), other) <= radius`` (never a
  buffered polygon); a half-plane by ``n.p`` over the other shape's vertices
  (``n.c - r`` for a circle).
* 3D: box-box by a linear program (scipy ``linprog``, HiGHS) that maximises
  how far both boxes can be shrunk and still share a point -- the boxes touch
  or overlap exactly when that optimum is >= 0; when both boxes are
  axis-aligned (rotation entries exactly 0 or +-1) the test is done in exact
  rational arithmetic instead. Sphere-box by the closest point of the box to
  the sphere's centre (in the box frame), anything-plane by the minimum of
  ``n.p`` over corners, sphere-plane by ``n.c - r``.

Contact rules of the format are applied on top: touching counts, a pair of
two static bodies is never reported, category/mask must match both ways, and
a body never contacts itself.

Random placements are checked for near-touching ambiguity: a pair whose
signed separation is within ``AMBIGUITY`` of zero (but not deliberately, exactly
zero) is nudged and re-tried, so a correct implementation cannot disagree with
a file because of rounding.

Output is deterministic: seeded ``random.Random`` streams, numbers rounded
before they are written (and all geometry computed from the rounded values),
keys in a fixed order, no timestamps.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import shapely
from scipy.optimize import linprog
from shapely.geometry import Point, Polygon

HERE = Path(__file__).resolve().parent

#: A pair whose signed separation is closer than this to 0 is ambiguous in
#: floating point unless it was constructed to touch exactly.
AMBIGUITY = 1e-6

UINT32_MAX = 4294967295


# ---------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------


def fx(x: float, nd: int = 4) -> float:
    """Round for output; all geometry is computed from the rounded value."""
    r = round(float(x), nd)
    return 0.0 if r == 0 else r


def id_key(bid):
    """Sort key for ids that may be ints or strings."""
    return (1, bid) if isinstance(bid, str) else (0, bid)


def pair_key(p):
    return (id_key(p[0]), id_key(p[1]))


def canon_pair(a, b):
    return (a, b) if id_key(a) <= id_key(b) else (b, a)


def rot2(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s], [s, c]])


def quat_matrix(q) -> np.ndarray:
    """Rotation matrix of quaternion [w, x, y, z] (normalised first)."""
    w, x, y, z = (float(v) for v in q)
    n = w * w + x * x + y * y + z * z
    if n != 1.0:
        s = 1.0 / math.sqrt(n)
        w, x, y, z = w * s, x * s, y * s, z * s
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def quat_axis_angle(axis, angle: float, nd: int = 10) -> list[float]:
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    h = angle / 2.0
    q = [math.cos(h), *(math.sin(h) * a)]
    return [fx(v, nd) for v in q]


def quat_mul(p, q) -> list[float]:
    w1, x1, y1, z1 = p
    w2, x2, y2, z2 = q
    return [
        w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
        w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
        w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
        w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
    ]


def quat_round(q, nd: int = 10) -> list[float]:
    n = math.sqrt(sum(v * v for v in q))
    return [fx(v / n, nd) for v in q]


# shape constructors (the dicts are written as-is) ---------------------------


def circle(r):
    return {"type": "circle", "radius": r}


def box2(hx, hy):
    return {"type": "box", "half_extents": [hx, hy]}


def polygon(vertices):
    return {"type": "polygon", "vertices": [list(v) for v in vertices]}


def halfplane(normal, offset):
    return {"type": "halfplane", "normal": list(normal), "offset": offset}


def sphere(r):
    return {"type": "sphere", "radius": r}


def box3(hx, hy, hz):
    return {"type": "box", "half_extents": [hx, hy, hz]}


def plane(normal, offset):
    return {"type": "plane", "normal": list(normal), "offset": offset}


def body(bid, shape, position=None, *, angle=None, quaternion=None, static=None,
         category=None, mask=None, _comment=None):
    """A body object in the format's key order; keys left at None are omitted."""
    out = {"id": bid, "shape": shape}
    if position is not None:
        out["position"] = list(position)
    if angle is not None:
        out["angle"] = angle
    if quaternion is not None:
        out["quaternion"] = list(quaternion)
    if static is not None:
        out["static"] = static
    if category is not None:
        out["category"] = category
    if mask is not None:
        out["mask"] = mask
    if _comment is not None:
        out["_comment"] = _comment
    return out


def mv(bid, position=None, *, angle=None, quaternion=None):
    out = {"id": bid}
    if position is not None:
        out["position"] = list(position)
    if angle is not None:
        out["angle"] = angle
    if quaternion is not None:
        out["quaternion"] = list(quaternion)
    return out


# concave and convex outlines used by several stories ------------------------


def l_shape(w, h, t):
    """An L: a w x t foot along +x and a t-wide leg up to h, corner at origin."""
    return [[0, 0], [w, 0], [w, t], [t, t], [t, h], [0, h]]


def u_shape(w, h, t):
    return [[0, 0], [w, 0], [w, h], [w - t, h], [w - t, t], [t, t], [t, h], [0, h]]


def comb_shape(teeth, tooth_w, gap, base_h, tooth_h):
    """A comb: a base bar with ``teeth`` teeth pointing up (+y)."""
    pts = [[0, 0]]
    width = teeth * tooth_w + (teeth - 1) * gap
    pts.append([width, 0])
    x = width
    top = base_h + tooth_h
    for k in range(teeth):
        pts.append([x, top])
        pts.append([x - tooth_w, top])
        x -= tooth_w
        if k < teeth - 1:
            pts.append([x, base_h])
            pts.append([x - gap, base_h])
            x -= gap
    # the last tooth's outer edge comes back down to (0, 0)
    return pts


def star_shape(points, r_out, r_in, nd=4):
    out = []
    for k in range(2 * points):
        r = r_out if k % 2 == 0 else r_in
        a = math.pi / 2 + k * math.pi / points
        out.append([fx(r * math.cos(a), nd), fx(r * math.sin(a), nd)])
    return out


def regular_polygon(n, r, phase=0.0, nd=4):
    return [[fx(r * math.cos(phase + 2 * math.pi * k / n), nd),
             fx(r * math.sin(phase + 2 * math.pi * k / n), nd)] for k in range(n)]


def shift(vertices, dx, dy):
    return [[v[0] + dx, v[1] + dy] for v in vertices]


# ---------------------------------------------------------------------------
# 2D geometry: shapely on exact polygons
# ---------------------------------------------------------------------------


class Geom2:
    """World-space geometry of one 2D body."""

    __slots__ = ("kind", "center", "radius", "poly", "verts", "convex", "box", "aabb",
                 "normal", "offset", "_eroded", "R", "half")

    def __init__(self, b):
        shape = b["shape"]
        t = shape["type"]
        self._eroded = None
        self.box = None
        if t == "halfplane":
            n = np.array(shape["normal"], dtype=float)
            length = math.hypot(n[0], n[1])
            self.kind = "half"
            self.normal = n / length
            self.offset = float(shape["offset"]) / length
            return
        c = np.array(b["position"], dtype=float)
        if t == "circle":
            self.kind = "circle"
            self.center = c
            self.radius = float(shape["radius"])
            r = self.radius
            self.aabb = (c[0] - r, c[1] - r, c[0] + r, c[1] + r)
            return
        R = rot2(b["angle"])
        if t == "box":
            hx, hy = (float(v) for v in shape["half_extents"])
            local = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
            self.box = (b["angle"], np.array([hx, hy]))
            self.R = R
            self.half = np.array([hx, hy])
            self.convex = True
        else:
            local = np.array(shape["vertices"], dtype=float)
        self.kind = "poly"
        self.center = c
        self.verts = local @ R.T + c
        self.poly = Polygon(self.verts)
        if t != "box":
            area = self.poly.area
            self.convex = bool(abs(self.poly.convex_hull.area - area) <= 1e-12 * max(1.0, area))
        x0, y0 = self.verts.min(axis=0)
        x1, y1 = self.verts.max(axis=0)
        self.aabb = (x0, y0, x1, y1)

    def eroded(self):
        if self._eroded is None:
            self._eroded = self.poly.buffer(-AMBIGUITY, join_style="mitre")
        return self._eroded


def aabb_gap(a, b):
    return max(a[0] - b[2], b[0] - a[2], a[1] - b[3], b[1] - a[3])


def eval2(ga: Geom2, gb: Geom2):
    """(in contact, margin): margin is how far the pair is from flipping.

    A margin of exactly 0 means "touching" (or an overlap too thin to trust);
    the caller accepts that only for deliberately exact cases.
    """
    if ga.kind == "half" and gb.kind == "half":
        raise AssertionError("two half-planes are both static; never evaluated")
    if gb.kind == "half":
        ga, gb = gb, ga
    if ga.kind == "half":
        n, d = ga.normal, ga.offset
        if gb.kind == "circle":
            s = float(n @ gb.center) - gb.radius - d
        else:
            s = float(np.min(gb.verts @ n)) - d
        return s <= 0, abs(s)
    gap = aabb_gap(ga.aabb, gb.aabb)
    if gap > AMBIGUITY:
        return False, gap  # the true distance is at least the AABB gap
    if ga.kind == "circle" and gb.kind == "circle":
        dist = shapely.distance(Point(ga.center), Point(gb.center))
        s = dist - ga.radius - gb.radius
        return s <= 0, abs(s)
    if gb.kind == "circle":
        ga, gb = gb, ga
    if ga.kind == "circle":
        dist = shapely.distance(Point(ga.center), gb.poly)
        if dist == 0.0:  # the centre is in the polygon: a full radius deep
            return True, ga.radius
        s = dist - ga.radius
        return s <= 0, abs(s)
    # polygon-polygon
    if shapely.intersects(ga.poly, gb.poly):
        robust = shapely.intersects(ga.eroded(), gb.eroded())
        return True, (1.0 if robust else 0.0)
    return False, shapely.distance(ga.poly, gb.poly)


def detail2(ia, ga: Geom2, ib, gb: Geom2):
    """Exact MTD (a, b, normal, depth) for simple convex pairs, else None."""
    if gb.kind == "half" and ga.kind != "half":
        ia, ga, ib, gb = ib, gb, ia, ga
    if ga.kind == "half":
        n, d = ga.normal, ga.offset
        if gb.kind == "circle":
            depth = d - (float(n @ gb.center) - gb.radius)
        elif gb.convex:
            depth = d - float(np.min(gb.verts @ n))
        else:
            return None
        return ia, ib, n, depth
    if ga.kind == "circle" and gb.kind == "circle":
        v = gb.center - ga.center
        L = math.hypot(v[0], v[1])
        if L < 1e-9:
            return None
        return ia, ib, v / L, ga.radius + gb.radius - L
    if {ga.kind, gb.kind} == {"circle", "poly"}:
        flip = ga.kind == "circle"
        gc, gx = (ga, gb) if flip else (gb, ga)
        if gx.box is None:
            return None
        q = gx.R.T @ (gc.center - gx.center)
        cl = np.clip(q, -gx.half, gx.half)
        dl = q - cl
        dist = math.hypot(dl[0], dl[1])
        if dist < 1e-9:
            return None  # centre inside the box: not a simple closed form
        n = gx.R @ (dl / dist)  # from the box towards the circle
        return ia, ib, (-n if flip else n), gc.radius - dist
    if ga.box is not None and gb.box is not None and ga.box[0] == 0 and gb.box[0] == 0:
        delta = gb.center - ga.center
        over = ga.half + gb.half - np.abs(delta)
        k = int(np.argmin(over))
        if abs(over[0] - over[1]) <= AMBIGUITY or delta[k] == 0:
            return None  # two axes tie, or the direction is ambiguous
        n = np.zeros(2)
        n[k] = 1.0 if delta[k] > 0 else -1.0
        return ia, ib, n, float(over[k])
    return None


# ---------------------------------------------------------------------------
# 3D geometry: exact arithmetic and an LP
# ---------------------------------------------------------------------------


class Geom3:
    __slots__ = ("kind", "center", "radius", "R", "half", "corners", "aabb", "normal",
                 "offset", "exact")

    def __init__(self, b):
        shape = b["shape"]
        t = shape["type"]
        if t == "plane":
            n = np.array(shape["normal"], dtype=float)
            length = float(np.linalg.norm(n))
            self.kind = "plane"
            self.normal = n / length
            self.offset = float(shape["offset"]) / length
            return
        c = np.array(b["position"], dtype=float)
        self.center = c
        if t == "sphere":
            self.kind = "sphere"
            self.radius = float(shape["radius"])
            self.aabb = np.concatenate([c - self.radius, c + self.radius])
            return
        self.kind = "box"
        self.R = quat_matrix(b["quaternion"])
        self.half = np.array(shape["half_extents"], dtype=float)
        signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        self.corners = (signs * self.half) @ self.R.T + c
        self.aabb = np.concatenate([self.corners.min(axis=0), self.corners.max(axis=0)])
        # a rotation whose entries are exactly 0 and +-1 keeps the box axis-aligned:
        # then the world half extents are exact and the test can be exact too
        self.exact = bool(np.all(np.isin(self.R, (-1.0, 0.0, 1.0))))


def aabb_gap3(a, b):
    return max(max(a[i] - b[i + 3], b[i] - a[i + 3]) for i in range(3))


def box_box_lp(ga: Geom3, gb: Geom3) -> float:
    """max t such that both boxes, shrunk by t on every face, share a point.

    The boxes touch or overlap exactly when the optimum is >= 0 (t = 0 is the
    plain feasibility test). |t| also bounds how far the pair is from
    flipping: t > 0 means a ball of radius t lies in both boxes, t < 0 means
    the boxes are more than 2|t| apart.
    """
    rows, rhs = [], []
    for g in (ga, gb):
        for i in range(3):
            a = g.R[:, i]
            ac = float(a @ g.center)
            rows.append([a[0], a[1], a[2], 1.0])
            rhs.append(g.half[i] + ac)
            rows.append([-a[0], -a[1], -a[2], 1.0])
            rhs.append(g.half[i] - ac)
    res = linprog([0.0, 0.0, 0.0, -1.0], A_ub=rows, b_ub=rhs,
                  bounds=[(None, None)] * 4, method="highs")
    if res.status != 0:
        raise AssertionError(f"box-box LP failed: {res.message}")
    return float(res.x[3])


def box_box_exact(ga: Geom3, gb: Geom3):
    """Axis-aligned boxes in rational arithmetic: (contact, margin)."""
    worst_sep = None
    min_over = None
    for i in range(3):
        ha = sum(abs(Fraction(ga.R[i, j])) * Fraction(ga.half[j]) for j in range(3))
        hb = sum(abs(Fraction(gb.R[i, j])) * Fraction(gb.half[j]) for j in range(3))
        over = ha + hb - abs(Fraction(gb.center[i]) - Fraction(ga.center[i]))
        min_over = over if min_over is None else min(min_over, over)
        if over < 0:
            worst_sep = -over if worst_sep is None else max(worst_sep, -over)
    if worst_sep is not None:
        return False, float(worst_sep)
    return True, float(min_over)


def eval3(ga: Geom3, gb: Geom3):
    if ga.kind == "plane" and gb.kind == "plane":
        raise AssertionError("two planes are both static; never evaluated")
    if gb.kind == "plane":
        ga, gb = gb, ga
    if ga.kind == "plane":
        n, d = ga.normal, ga.offset
        if gb.kind == "sphere":
            s = float(n @ gb.center) - gb.radius - d
        else:
            s = float(np.min(gb.corners @ n)) - d
        return s <= 0, abs(s)
    gap = aabb_gap3(ga.aabb, gb.aabb)
    if gap > AMBIGUITY:
        return False, gap
    if ga.kind == "sphere" and gb.kind == "sphere":
        s = math.dist(ga.center, gb.center) - ga.radius - gb.radius
        return s <= 0, abs(s)
    if gb.kind == "sphere":
        ga, gb = gb, ga
    if ga.kind == "sphere":  # sphere-box: closest point of the box, in its frame
        q = gb.R.T @ (ga.center - gb.center)
        cl = np.clip(q, -gb.half, gb.half)
        dist = math.sqrt(float(np.sum((q - cl) ** 2)))
        if dist == 0.0:
            return True, ga.radius
        s = dist - ga.radius
        return s <= 0, abs(s)
    if ga.exact and gb.exact:
        return box_box_exact(ga, gb)
    t = box_box_lp(ga, gb)
    return t >= 0, abs(t)


def detail3(ia, ga: Geom3, ib, gb: Geom3):
    if gb.kind == "plane" and ga.kind != "plane":
        ia, ga, ib, gb = ib, gb, ia, ga
    if ga.kind == "plane":
        n, d = ga.normal, ga.offset
        if gb.kind == "sphere":
            depth = d - (float(n @ gb.center) - gb.radius)
        else:
            depth = d - float(np.min(gb.corners @ n))
        return ia, ib, n, depth
    if ga.kind == "sphere" and gb.kind == "sphere":
        v = gb.center - ga.center
        L = float(np.linalg.norm(v))
        if L < 1e-9:
            return None
        return ia, ib, v / L, ga.radius + gb.radius - L
    if {ga.kind, gb.kind} == {"sphere", "box"}:
        flip = ga.kind == "sphere"
        gs, gx = (ga, gb) if flip else (gb, ga)
        q = gx.R.T @ (gs.center - gx.center)
        cl = np.clip(q, -gx.half, gx.half)
        dl = q - cl
        dist = float(np.linalg.norm(dl))
        if dist < 1e-9:
            return None
        n = gx.R @ (dl / dist)
        return ia, ib, (-n if flip else n), gs.radius - dist
    if ga.exact and gb.exact:
        ha = np.abs(ga.R) @ ga.half
        hb = np.abs(gb.R) @ gb.half
        delta = gb.center - ga.center
        over = ha + hb - np.abs(delta)
        order = np.argsort(over, kind="stable")
        k = int(order[0])
        if over[order[1]] - over[k] <= AMBIGUITY or delta[k] == 0:
            return None
        n = np.zeros(3)
        n[k] = 1.0 if delta[k] > 0 else -1.0
        return ia, ib, n, float(over[k])
    return None


# ---------------------------------------------------------------------------
# the world model and the file writer
# ---------------------------------------------------------------------------


class Ambiguous(Exception):
    pass


class Scenario:
    """Keeps the alive bodies, computes each frame's expectations, records lines."""

    def __init__(self, filename, dim, name, description, **comments):
        self.filename = filename
        self.dim = dim
        self.header = {"collideworld_scenario": 1, "dim": dim, "name": name,
                       "description": description, "tolerance": 1e-6}
        for k, v in comments.items():
            self.header["_" + k] = v
        self.bodies = {}  # id -> normalised body (with defaults)
        self.frames = []
        self.history = []  # per frame: sorted contact list
        self.nudges = 0

    # --- state ---------------------------------------------------------------

    def _normalise(self, b):
        t = b["shape"]["type"]
        out = dict(b)
        unbounded = t in ("halfplane", "plane")
        out["static"] = True if unbounded else b.get("static", False)
        out["category"] = b.get("category", 1)
        out["mask"] = b.get("mask", UINT32_MAX)
        if not unbounded:
            assert len(b["position"]) == self.dim, b
            if self.dim == 2:
                out["angle"] = b.get("angle", 0.0)
            else:
                out["quaternion"] = b.get("quaternion", [1.0, 0.0, 0.0, 0.0])
        if t == "polygon":
            p = Polygon(b["shape"]["vertices"])
            assert p.is_valid and p.area > 0, b
        return out

    def peek(self, bid):
        return self.bodies[bid]

    def alive(self):
        return sorted(self.bodies, key=id_key)

    # --- one frame -----------------------------------------------------------

    def step(self, remove=(), add=(), move=(), *, comment=None, exact=False, details=None):
        """Apply one frame; raise Ambiguous (nothing committed) if a pair is unclear.

        ``exact``: the frame touches exactly on purpose, so a margin of exactly
        0 is accepted (anything else still has to be clear of AMBIGUITY).
        ``details``: None, "all" (every pair with a closed-form MTD) or a list of
        pairs to give ``expect_contacts`` for.
        """
        new = dict(self.bodies)
        for bid in remove:
            assert bid in new, f"{self.filename}: remove of unknown id {bid!r}"
            del new[bid]
        for b in add:
            assert b["id"] not in new, f"{self.filename}: duplicate id {b['id']!r}"
            new[b["id"]] = self._normalise(b)
        for m in move:
            assert m["id"] in new, f"{self.filename}: move of unknown id {m['id']!r}"
            old = new[m["id"]]
            assert old["shape"]["type"] not in ("halfplane", "plane")
            nb = dict(old)
            for k in ("position", "angle", "quaternion"):
                if k in m:
                    nb[k] = m[k]
            new[m["id"]] = nb

        geom_cls, evaluate, detail = (Geom2, eval2, detail2) if self.dim == 2 else (Geom3, eval3, detail3)
        ids = sorted(new, key=id_key)
        geoms = {i: geom_cls(new[i]) for i in ids}
        contacts = []
        unclear = []
        for x, ia in enumerate(ids):
            a = new[ia]
            for ib in ids[x + 1:]:
                b = new[ib]
                if a["static"] and b["static"]:
                    continue
                if not (a["category"] & b["mask"]) or not (b["category"] & a["mask"]):
                    continue
                hit, margin = evaluate(geoms[ia], geoms[ib])
                if margin < AMBIGUITY and not (exact and margin == 0.0):
                    unclear.append((ia, ib, margin))
                if hit:
                    contacts.append((ia, ib))
        if unclear:
            raise Ambiguous(unclear)

        frame = {}
        if comment is not None:
            frame["_comment"] = comment
        if remove:
            frame["remove"] = list(remove)
        if add:
            frame["add"] = list(add)
        if move:
            frame["move"] = list(move)
        contacts.sort(key=pair_key)
        frame["expect"] = [list(p) for p in contacts]
        if details:
            wanted = contacts if details == "all" else [canon_pair(*p) for p in details]
            rows = []
            for ia, ib in wanted:
                assert (ia, ib) in contacts, f"{self.filename}: detail for a pair not in contact {ia, ib}"
                got = detail(ia, geoms[ia], ib, geoms[ib])
                if got is None:
                    assert details == "all", f"{self.filename}: no closed form for {ia, ib}"
                    continue
                a_id, b_id, n, depth = got
                assert depth >= -1e-12
                rows.append({"pair": [a_id, b_id],
                             "normal": [fx(v, 12) for v in n],
                             "depth": fx(max(depth, 0.0), 12)})
            if rows:
                frame["expect_contacts"] = rows
        self.bodies = new
        self.frames.append(frame)
        self.history.append(contacts)
        return set(contacts)

    def step_nudged(self, build, **kw):
        """Call ``build(k)`` for k = 0, 1, ... until the frame is unambiguous."""
        last = None
        for k in range(60):
            remove, add, move = build(k)
            try:
                return self.step(remove, add, move, **kw)
            except Ambiguous as exc:
                self.nudges += 1
                last = exc
        raise AssertionError(f"{self.filename}: frame {len(self.frames) + 2} stays ambiguous: {last}")

    # --- output --------------------------------------------------------------

    def render(self) -> str:
        lines = [dumps(self.header)] + [dumps(f) for f in self.frames]
        return "\n".join(lines) + "\n"


def dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))


def nudge(k: int, scale: float = 0.003) -> float:
    """Deterministic small offsets 0, +s, -s, +2s, -2s, ..."""
    if k == 0:
        return 0.0
    m = (k + 1) // 2
    return scale * m * (1 if k % 2 else -1)


def lerp(a, b, t):
    return a + (b - a) * t


# ---------------------------------------------------------------------------
# 1. rts_town: a ghost building dragged across a town
# ---------------------------------------------------------------------------

BUILDING, ROAD, TREE, GHOST = 1, 2, 4, 8


def drag_ghost(sc, rng, path):
    """Move "ghost" along (x, y, angle, frames, note) waypoints with hand jitter.

    Waypoints themselves are hit exactly; the frames between them wobble by up
    to 0.2, like a mouse drag. A pose that lands within AMBIGUITY of touching
    is nudged along x.
    """
    for (x0, y0, a0, _, _), (x1, y1, a1, n, note) in zip(path, path[1:], strict=False):
        for i in range(1, n + 1):
            t = i / n
            last = i == n
            jx = 0.0 if last else rng.uniform(-0.2, 0.2)
            jy = 0.0 if last else rng.uniform(-0.2, 0.2)
            x = lerp(x0, x1, t) + jx
            y = fx(lerp(y0, y1, t) + jy)
            a = fx(lerp(a0, a1, t))
            sc.step_nudged(lambda k, x=x, y=y, a=a: ((), (), [mv("ghost", [fx(x + nudge(k)), y], angle=a)]),
                           comment=note if last else None)


def story_rts_town():
    sc = Scenario(
        "rts_town.jsonl", 2, "rts-town",
        "An RTS town: static buildings (boxes, a rotated box, two L-shaped halls, a "
        "U-shaped stable), crossing roads and trees. The player drags a placement "
        "'ghost' (a box, rotating as it goes) across the town; expect lists the "
        "buildings and roads it overlaps each frame. Trees are category 4, which "
        "the ghost's mask (buildings|roads) leaves out. The ghost is dropped in the "
        "notch of the town hall (no overlap: placement accepted, it becomes house_3), "
        "then an L-shaped ghost is dragged until the player cancels it.",
        comment="categories: 1 building, 2 road, 4 tree, 8 ghost; every town body is "
                "static, so the town alone never reports anything (overlapping roads "
                "at the crossing included)",
    )
    rng = random.Random(1001)
    hall = [[-6, -4], [6, -4], [6, -1], [-2, -1], [-2, 4], [-6, 4]]
    barracks = [[-5, -5], [5, -5], [5, 5], [2, 5], [2, -2], [-5, -2]]
    stables = shift(u_shape(6, 6, 1.5), -3, -3)
    temple = regular_polygon(6, 3.0, phase=0.1)
    town = [
        body("road_main", box2(30, 1.5), [30, 20], static=True, category=ROAD),
        body("road_cross", box2(1.5, 20), [30, 20], static=True, category=ROAD),
        body("road_east", box2(12, 1.2), [47, 10], angle=0.5, static=True, category=ROAD),
        body("house_1", box2(3, 2.5), [8, 9], static=True, category=BUILDING),
        body("house_2", box2(2.5, 3), [17, 8], angle=0.25, static=True, category=BUILDING),
        body("hall", polygon(hall), [42, 30], static=True, category=BUILDING),
        body("barracks", polygon(barracks), [12, 31], static=True, category=BUILDING),
        body("market", box2(3, 2), [22, 30], angle=0.6, static=True, category=BUILDING),
        body("stables", polygon(stables), [55, 30], static=True, category=BUILDING),
        body("temple", polygon(temple), [52, 4], static=True, category=BUILDING),
        body("tree_1", circle(0.8), [25, 12], static=True, category=TREE),
        body("tree_2", circle(0.8), [26.5, 13.5], static=True, category=TREE),
        body("tree_3", circle(1.0), [36, 14], static=True, category=TREE),
        body("tree_4", circle(0.8), [5, 24], static=True, category=TREE),
    ]
    sc.step(add=town, comment="the town is built: all static, so no contacts")

    ghost = box2(2.5, 1.8)
    # waypoints (x, y, angle, frames to reach it, note)
    path = [
        (3.0, 14.0, 0.0, 0, "ghost appears near the west edge"),
        (8.0, 9.0, 0.5, 6, "over house_1"),
        (17.0, 8.5, 1.1, 6, "over the rotated house_2"),
        (25.5, 13.0, 1.6, 6, "over the trees: not reported (mask)"),
        (30.0, 20.0, 2.2, 6, "on the crossing: both roads"),
        (22.0, 29.5, 2.7, 7, "over the rotated market"),
        (12.0, 28.0, 3.0, 6, "over the barracks' foot"),
        (10.5, 32.5, math.pi, 5, "in the barracks' notch: inside its bounding box, no overlap"),
        (24.0, 37.0, 3.6, 6, "north of the market"),
        (37.0, 33.0, 4.2, 6, "over the hall's leg"),
        (44.5, 31.8, 2 * math.pi, 6, "in the hall's notch: clear, placement accepted"),
    ]
    x, y, a = path[0][:3]
    sc.step(add=[body("ghost", ghost, [x, y], angle=0.0, category=GHOST, mask=BUILDING | ROAD)],
            comment=path[0][4])
    drag_ghost(sc, rng, path)
    final = sc.peek("ghost")
    sc.step(remove=["ghost"],
            add=[body("house_3", ghost, final["position"], angle=final["angle"], static=True,
                      category=BUILDING)],
            comment="placement confirmed: the ghost becomes static house_3 (nothing to report)")
    for _ in range(3):
        sc.step(comment="idle town")

    # second ghost: an L-shaped guild hall, concave against concave
    guild = polygon(shift(l_shape(6, 5, 2), -3, -2.5))
    path2 = [
        (30.0, 4.0, 0.0, 0, "an L-shaped ghost appears on the south road"),
        (36.0, 10.0, 0.8, 6, "across the east road"),
        (45.0, 29.5, 1.6, 8, "over the hall's foot and house_3"),
        (55.0, 30.0, 2.0, 6, "over the U-shaped stables"),
        (58.0, 38.0, 2.4, 5, "north-east corner"),
        (52.0, 7.0, 3.3, 8, "over the temple"),
    ]
    x, y, a = path2[0][:3]
    sc.step(add=[body("ghost", guild, [x, y], angle=0.0, category=GHOST, mask=BUILDING | ROAD)],
            comment=path2[0][4])
    drag_ghost(sc, rng, path2)
    sc.step(remove=["ghost"], comment="the player cancels the placement")
    return sc


# ---------------------------------------------------------------------------
# 2. driving: an ego car on a curved road
# ---------------------------------------------------------------------------


def ego_pose(s, R=18.0, straight=48.0):
    """Pose on the road: east along y=0, a left quarter-turn of radius R, then north."""
    if s <= straight:
        return s, 0.0, 0.0
    arc = R * math.pi / 2
    if s <= straight + arc:
        phi = (s - straight) / R
        return straight + R * math.sin(phi), R - R * math.cos(phi), phi
    return straight + R, R + (s - straight - arc), math.pi / 2


def story_driving():
    sc = Scenario(
        "driving.jsonl", 2, "driving-curve",
        "An ego car (box 4.6 x 1.9) drives east past parked cars, takes a left "
        "quarter-turn of radius 18 and stops at a crosswalk. Near misses with a "
        "5 cm gap: two parked cars beside the lane, an oncoming truck riding the "
        "centre line, a cyclist alongside it in the curve, and the pedestrian it "
        "stops for. Real overlaps: a badly parked car whose corner juts into the "
        "lane (side-swipe) and a car cutting in from the merge lane. expect is "
        "every pair in contact, ego or not.",
        comment="ego pose = a point on the road centre line and the tangent heading; "
                "gaps of 0.05 are never within 1e-6 of touching",
    )
    EGO_H = (2.3, 0.95)
    CAR = box2(2.2, 0.9)
    # ego arc length per frame: cruise, slower in the curve, brake to a stop, wait, go
    R, straight = 18.0, 48.0
    arc = R * math.pi / 2
    crosswalk_y = 30.0
    # the ego stops with its front 0.05 short of the pedestrian (radius 0.3)
    s_stop = straight + arc + (crosswalk_y - 0.3 - 0.05 - EGO_H[0] - R)
    s_list = [0.0]
    v = 1.2
    while s_list[-1] < straight:
        s_list.append(s_list[-1] + v)
    while s_list[-1] < straight + arc:
        v = max(0.9, v - 0.02)
        s_list.append(s_list[-1] + v)
    # brake: constant deceleration so that the ego ends exactly at s_stop
    remaining = s_stop - s_list[-1]
    nbrake = max(3, int(round(2 * remaining / v)))
    s0 = s_list[-1]
    for i in range(1, nbrake + 1):
        t = i / nbrake
        s_list.append(s0 + remaining * (2 * t - t * t))
    stop_frame = len(s_list) - 1
    wait = 22
    s_list += [s_stop] * wait
    v = 0.0
    for _ in range(10):
        v += 0.15
        s_list.append(s_list[-1] + v)

    def ego_move(k):
        s = s_list[k]
        x, y, h = ego_pose(s, R, straight)
        if s >= straight + arc:
            x = straight + R  # exactly on the final straight
        return [fx(x), fx(y)], fx(h)

    parked = [
        body("parked_1", CAR, [14, -1.9], static=True, _comment="top edge at y=-1.0: 5 cm below the ego"),
        body("parked_2", CAR, [20, -1.9], static=True),
        body("parked_3", CAR, [30, -1.75], angle=0.12, static=True,
             _comment="badly parked: its front corner juts 0.4 into the lane"),
    ]
    # "_comment" inside a body object is allowed (keys starting with "_" are ignored)
    pos, h = ego_move(0)
    add0 = [body("ego", box2(*EGO_H), pos, angle=h)] + parked + [
        body("truck", box2(4, 1.2), [70, 2.2], angle=0.0, _comment="rides the centre line: 5 cm from the ego"),
        body("walker", circle(0.3), [5, -6]),
    ]
    sc.step(add=add0, comment="ego at the start; two parked cars leave 5 cm, a third juts out")

    alive_extra = {"truck": True, "walker": True}
    cutin_start = 14
    bike_on = False
    ped_on = False
    ped_x = None
    for k in range(1, len(s_list)):
        epos, eh = ego_move(k)
        s = s_list[k]
        removes, adds, moves = [], [], [mv("ego", epos, angle=eh)]
        note = None
        # oncoming truck: 1.5 per frame westbound, gone past x = -10
        if alive_extra.get("truck"):
            tx = 70 - 1.5 * k
            if tx < -10:
                removes.append("truck")
                alive_extra["truck"] = False
                note = "the truck leaves the scene"
            else:
                moves.append(mv("truck", [fx(tx), 2.2]))
        if alive_extra.get("walker"):
            moves.append(mv("walker", [fx(5 + 0.14 * k), -6.0]))
            if k == 60:
                removes.append("walker")
                moves.pop()
                alive_extra["walker"] = False
        # the cut-in car: appears in the merge lane, merges, clips the ego, speeds off
        if k == cutin_start:
            adds.append(body("cutin", CAR, [40.0, -3.6], angle=0.0))
            alive_extra["cutin"] = True
            note = "a car appears in the merge lane"
        elif alive_extra.get("cutin"):
            j = k - cutin_start
            cx = 40.0 + 0.3 * j if j <= 23 else 40.0 + 0.3 * 23 + 1.8 * (j - 23)
            if j == 13:
                note = "the cut-in car merges too early, towards the ego's lane"
            elif j == 24:
                note = "the cut-in driver speeds off"
            if j <= 12:
                cy, ca = -3.6, 0.0
            elif j <= 22:
                u = (j - 12) / 10
                cy = -3.6 + 2.6 * (1 - math.cos(math.pi * u)) / 2
                ca = 0.25 * math.sin(math.pi * u)
            else:
                cy, ca = -1.0, 0.0
            if cx > 75:
                removes.append("cutin")
                alive_extra["cutin"] = False
            else:
                moves.append(mv("cutin", [fx(cx), fx(cy)], angle=fx(ca)))
        # the cyclist: alongside the ego through the curve, 5 cm outside it
        if straight + 0.3 * R < s < straight + arc and not bike_on and "bike_done" not in alive_extra:
            phi = (s - straight) / R
            rb = R + EGO_H[1] + 0.05 + 0.5
            adds.append(body("bike", circle(0.5), [fx(straight + rb * math.sin(phi)), fx(R - rb * math.cos(phi))]))
            bike_on = True
            note = "a cyclist rides alongside in the curve, 5 cm away"
        elif bike_on:
            if s >= straight + arc:
                removes.append("bike")
                bike_on = False
                alive_extra["bike_done"] = True
            else:
                phi = (s - straight) / R
                rb = R + EGO_H[1] + 0.05 + 0.5
                moves.append(mv("bike", [fx(straight + rb * math.sin(phi)), fx(R - rb * math.cos(phi))]))
        # the pedestrian at the crosswalk
        if k == stop_frame - 4:
            ped_x = 70.0
            adds.append(body("pedestrian", circle(0.3), [ped_x, crosswalk_y]))
            ped_on = True
            note = "a pedestrian steps onto the crosswalk; the ego brakes"
        elif ped_on:
            ped_x -= 0.4
            if ped_x < 61:
                removes.append("pedestrian")
                ped_on = False
            else:
                moves.append(mv("pedestrian", [fx(ped_x), crosswalk_y]))
                if 65.0 < ped_x < 67.0:
                    note = "the pedestrian passes 5 cm in front of the stopped ego"
        if k == stop_frame:
            note = "the ego has stopped"

        def build(kk, removes=removes, adds=adds, moves=moves):
            if kk == 0:
                return removes, adds, moves
            # only the jittery merge can land near touching: nudge the cut-in
            out = []
            for m in moves:
                if m["id"] == "cutin":
                    m = mv("cutin", [fx(m["position"][0] + nudge(kk)), m["position"][1]], angle=m["angle"])
                out.append(m)
            return removes, adds, out

        sc.step_nudged(build, comment=note)
    return sc


# ---------------------------------------------------------------------------
# 3. tumbling_3d: boxes and spheres falling onto a ground plane
# ---------------------------------------------------------------------------

G_PER_FRAME = 9.81 * 0.05 * 0.05  # gravity in units per frame^2 (dt = 0.05 s)


class Faller:
    """A scripted body: free fall while tumbling, then resting flat (yaw only)."""

    def __init__(self, bid, shape, start, frame0, rest_z, *, axis=None, spin=0.0,
                 rest_yaw=0.0, rest_q=None, vel=(0.0, 0.0, 0.0)):
        self.bid, self.shape, self.frame0 = bid, shape, frame0
        self.p = list(start)
        self.v = list(vel)
        self.rest_z = rest_z
        self.axis, self.spin, self.rest_yaw = axis, spin, rest_yaw
        self.rest_q = rest_q
        self.angle = 0.0
        self.resting = False
        self.is_box = shape["type"] == "box"

    def quaternion(self):
        if not self.is_box:
            return None
        if self.resting:
            return self.rest_q or quat_axis_angle((0, 0, 1), self.rest_yaw)
        return quat_axis_angle(self.axis, self.angle) if self.axis else [1.0, 0.0, 0.0, 0.0]

    def advance(self):
        if self.resting:
            return
        self.v[2] -= G_PER_FRAME
        for i in range(3):
            self.p[i] += self.v[i]
        self.angle += self.spin
        if self.p[2] <= self.rest_z:
            self.p[2] = self.rest_z
            self.resting = True
            self.v = [0.0, 0.0, 0.0]

    def pose(self, nudge_x=0.0):
        pos = [fx(self.p[0] + nudge_x), fx(self.p[1]), fx(self.p[2])]
        return pos, self.quaternion()


def story_tumbling_3d():
    sc = Scenario(
        "tumbling_3d.jsonl", 3, "tumbling-3d",
        "Boxes tumble (changing quaternions) and spheres fall onto a ground plane "
        "(normal [0,0,1], offset 0: the solid is z <= 0). Each body comes to rest "
        "1 cm into the ground or into the body below it; a ball dropped on crate_a "
        "stays on it; crate_e lands on an edge (tilted 45 degrees); ball_b rolls along "
        "the ground 5 mm deep and bounces off "
        "crate_a; two crates thrown at each other collide mid-air, bounce apart and "
        "land; at the end a sphere is picked up (removed). expect is every pair in "
        "contact; expect_contacts (every 10th frame) gives the exact normal and "
        "depth for plane and sphere pairs.",
        comment="the script is kinematic: positions follow free fall with g = 9.81 and "
                "dt = 0.05 s; bounces are triggered by this generator's own contact test",
    )
    ground = body("ground", plane([0, 0, 1], 0))
    fallers = [
        Faller("crate_a", box3(0.5, 0.5, 0.5), (0.0, 0.0, 6.0), 1, 0.49, axis=(1, 1, 0),
               spin=0.3, rest_yaw=0.3),
        Faller("crate_b", box3(1.0, 0.4, 0.3), (3.0, 0.5, 8.0), 8, 0.29, axis=(0, 1, 1),
               spin=0.25, rest_yaw=-0.5),
        Faller("ball_a", sphere(0.4), (0.1, -0.05, 7.0), 20, 0.99 + 0.4 - 0.02),
        Faller("crate_c", box3(0.5, 0.5, 0.5), (-5.0, 4.0, 5.0), 30, 0.49, axis=(1, 0, 1),
               spin=0.2, rest_yaw=0.2, vel=(0.25, 0.0, 0.25)),
        Faller("crate_d", box3(0.6, 0.4, 0.4), (5.0, 4.0, 5.0), 30, 0.39, axis=(0, 1, 0.5),
               spin=-0.22, rest_yaw=1.0, vel=(-0.25, 0.0, 0.25)),
        Faller("crate_e", box3(0.4, 0.4, 0.4), (-3.0, -2.0, 6.0), 45,
               0.4 * math.sqrt(2) - 0.01, axis=(1, 0.2, 0), spin=0.15,
               rest_q=quat_axis_angle((1, 0, 0), math.pi / 4)),
        Faller("ball_c", sphere(0.3), (3.2, 0.4, 5.0), 62, 0.59 + 0.3 - 0.01),
    ]
    roller = {"id": "ball_b", "r": 0.6, "x": -6.0, "vx": 0.15, "z": 0.6 - 0.005}
    sc.step(add=[ground, body("ball_b", sphere(0.6), [roller["x"], 0.0, fx(roller["z"])])],
            comment="the ground and a ball rolling along it, 5 mm deep", details="all")
    bounced = set()
    last_contacts = set()
    nframes = 100
    for k in range(1, nframes):
        adds, moves, removes = [], [], []
        notes = []
        for f in fallers:
            if k < f.frame0:
                continue
            if k == f.frame0:
                pos, q = f.pose()
                adds.append(body(f.bid, f.shape, pos, quaternion=q))
                notes.append(f"{f.bid} is released")
                continue
            was = f.resting
            if f.bid in ("crate_c", "crate_d") and ("crate_c", "crate_d") in last_contacts \
                    and "cd" not in bounced:
                bounced.add("cd")
                for g in fallers:
                    if g.bid in ("crate_c", "crate_d"):
                        g.v[0] = -g.v[0]
                notes.append("crate_c and crate_d collided: they bounce apart")
            f.advance()
            if f.resting and was:
                continue
            if f.resting:
                notes.append(f"{f.bid} comes to rest")
            moves.append(f)
        # the roller bounces off whatever box it touched in the last frame
        if any("ball_b" in p and any(i.startswith("crate") for i in p) for p in last_contacts) \
                and roller["vx"] > 0:
            roller["vx"] = -roller["vx"]
            notes.append("ball_b bounced off a crate and rolls back")
        roller["x"] += roller["vx"]
        if k == 90:
            removes.append("ball_c")
            notes.append("ball_c is picked up")
            fallers = [f for f in fallers if f.bid != "ball_c"]
            moves = [f for f in moves if f.bid != "ball_c"]

        def build(kk, adds=adds, moves=moves, removes=removes):
            dx = nudge(kk, 0.002)
            out = []
            for f in moves:
                pos, q = f.pose(dx)
                out.append(mv(f.bid, pos, quaternion=q))
            out.append(mv("ball_b", [fx(roller["x"] + dx), 0.0, fx(roller["z"])]))
            return removes, adds, out

        last_contacts = sc.step_nudged(build, comment="; ".join(notes) or None,
                                       details="all" if k % 10 == 0 else None)
    return sc


# ---------------------------------------------------------------------------
# 4. frustum_culling: six planes bound a view frustum; boxes are "visible"
#    when they touch all six
# ---------------------------------------------------------------------------

FRUSTUM_PLANES = ("near", "far", "left", "right", "top", "bottom")


def frustum_planes(cam, yaw, near=1.0, far=40.0, side=1.0, up=0.5):
    """Six planes with normals pointing out of the view volume.

    Camera at ``cam`` looking along (cos yaw, sin yaw, 0). The view volume is
    the intersection of their solids (n.p <= d). Side planes have a horizontal
    half-angle of atan(side), top/bottom a vertical half-angle of atan(up).
    Normals are not unit length on purpose (the format normalises them).
    """
    c, s = math.cos(yaw), math.sin(yaw)
    fwd = np.array([c, s, 0.0])
    left = np.array([-s, c, 0.0])
    zup = np.array([0.0, 0.0, 1.0])
    cam = np.array(cam, dtype=float)
    normals = {
        "near": -fwd,
        "far": fwd,
        "left": left - side * fwd,
        "right": -left - side * fwd,
        "top": 2 * zup - 2 * up * fwd,
        "bottom": -2 * zup - 2 * up * fwd,
    }
    out = []
    for name in FRUSTUM_PLANES:
        n = [fx(v, 6) for v in normals[name]]
        n_arr = np.array(n)
        if name == "near":
            d = float(n_arr @ (cam + near * fwd))
        elif name == "far":
            d = float(n_arr @ (cam + far * fwd))
        else:
            d = float(n_arr @ cam)
        out.append(body(name, plane(n, fx(d, 6)), category=2, mask=1))
    return out


def story_frustum_culling():
    sc = Scenario(
        "frustum_culling.jsonl", 3, "frustum-culling",
        "View-frustum culling with contacts. Six static planes bound the camera's "
        "view volume; each normal points out of the volume, so each plane's solid "
        "(n.p <= d) is the side the visible region is on. A box is in contact with a "
        "plane when it reaches into that half-space, so a box is (conservatively) "
        "visible exactly when it contacts all six planes; a box beyond one plane "
        "lacks that plane. The planes are category 2 with mask 1 and the boxes "
        "category 1 with mask 2, so box-box pairs are never reported: expect only "
        "shows box-plane pairs. Crates in the field do not move but are dynamic "
        "(static: false), because a static crate and a static plane would never "
        "be reported, as the static 'monument' shows. Carts and a drone move "
        "through the view. From frame 27 (line 28) the camera pans left: planes cannot "
        "move, so each frame removes the six planes and adds them again.",
        comment="camera at (0, 0, 2), looking along +x, near 1, far 40, horizontal and "
                "vertical half-angles atan(1) and atan(0.5)",
    )
    cam = (0.0, 0.0, 2.0)
    crates = [
        body("crate_a", box3(1.0, 1.0, 1.0), [8.0, -5.0, 1.0], _comment="in view until late in the pan"),
        body("crate_b", box3(1.0, 1.0, 1.0), [20.0, 6.0, 1.0], _comment="in view throughout"),
        body("crate_c", box3(1.0, 1.0, 1.0), [12.0, 16.0, 1.0], _comment="left of the view; the pan brings it in"),
        body("crate_d", box3(1.0, 1.0, 1.0), [22.0, -26.0, 1.0], _comment="right of the view"),
    ]
    crates.append(body("crate_far", box3(2.0, 2.0, 2.0), [45.0, 3.0, 2.0],
                       _comment="beyond the far plane until the camera turns"))
    crates.append(body("crate_behind", box3(1.0, 1.0, 1.0), [-5.0, 0.5, 1.2],
                       _comment="behind the camera: only the planes facing away are touched"))
    monument = body("monument", box3(1.5, 1.5, 3.0), [15.0, 2.0, 3.0], static=True,
                    _comment="static: never reported against the static planes")
    for b in crates:
        b["category"] = 1
        b["mask"] = 2
    monument["category"] = 1
    monument["mask"] = 2
    planes = frustum_planes(cam, 0.0)
    sc.step(add=planes + crates + [monument],
            comment="planes, crates and the static monument", details=[("near", "crate_a"), ("bottom", "crate_b")])
    sc.frames[-1]["_visible"] = visible_boxes(sc.history[-1])

    movers = {
        "cart": (box3(1.5, 0.8, 0.7), lambda k: [12.0, fx(-30.0 + 1.2 * k), 0.7]),
        "drone": (box3(0.5, 0.5, 0.2), lambda k: [fx(10.0 + 0.05 * k), 3.0, fx(-1.0 + 0.35 * k)]),
        "truck": (box3(3.0, 1.2, 1.5), lambda k: [fx(55.0 - 1.4 * k), -2.0, 1.5]),
    }
    nframes = 50
    started = set()
    for k in range(1, nframes):
        removes, adds, moves = [], [], []
        note = None
        for name, (shape, where) in movers.items():
            pos = where(k)
            if name not in started:
                started.add(name)
                adds.append(body(name, shape, pos, category=1, mask=2))
            else:
                moves.append(mv(name, pos))
        if k == 1:
            note = "a cart, a drone and a truck join"
        if k > 25:
            yaw = fx(0.02 * (k - 25), 6)
            removes += list(FRUSTUM_PLANES)
            adds = frustum_planes(cam, yaw) + adds
            if k == 26:
                note = "the camera starts to pan left: the planes are replaced every frame"

        def build(kk, removes=removes, adds=adds, moves=moves):
            if kk == 0:
                return removes, adds, moves
            out = [mv(m["id"], [fx(m["position"][0] + nudge(kk, 0.002)), *m["position"][1:]])
                   for m in moves]
            return removes, adds, out

        got = sc.step_nudged(build, comment=note)
        sc.frames[-1]["_visible"] = visible_boxes(got)
    return sc


def visible_boxes(contacts):
    """Boxes touching all six frustum planes (a readable summary, a comment key)."""
    seen = {}
    for a, b in contacts:
        box_id = b if a in FRUSTUM_PLANES else a
        seen[box_id] = seen.get(box_id, 0) + 1
    return sorted(i for i, n in seen.items() if n == 6)


# ---------------------------------------------------------------------------
# 5. mixed_2d: every 2D shape kind, spawned and removed over time
# ---------------------------------------------------------------------------


def story_mixed_2d():
    sc = Scenario(
        "mixed_2d.jsonl", 2, "mixed-2d-sandbox",
        "A 2D sandbox with every shape kind: a floor half-plane (y <= 0), a left wall "
        "given with a non-unit normal [2, 0], a right wall and a ramp half-plane "
        "(normal [-1, 2]). On the left, a display shelf of concave shapes: a marble "
        "is lowered into a U-shaped cup (inside its bounding box long before it "
        "touches the bottom), a pin slides between the teeth of a comb, a star "
        "spins next to a hexagon, a box sits in the notch of an L. On the right, "
        "a seeded spawner drops circles, boxes, triangles, hexagons, Ls, Us, stars "
        "and combs that fall until they first touch something, rest a while and "
        "are removed. expect_contacts (every 5th frame) gives normal and depth "
        "for the convex pairs that have a closed form.",
        comment="arena x in [0, 40]; the spawner works in x in [17, 37]",
    )
    rng = random.Random(5005)
    walls = [
        body("floor", halfplane([0, 1], 0)),
        body("wall_left", halfplane([2, 0], 0), _comment="normal [2, 0]: solid x <= 0"),
        body("wall_right", halfplane([-1, 0], -40), _comment="solid x >= 40"),
        body("ramp", halfplane([-1, 2], -28), _comment="solid y <= (x - 28) / 2"),
    ]
    shelf = [
        body("cup", polygon(u_shape(4, 3, 0.5)), [1.0, -0.05],
             _comment="U cup resting 5 cm into the floor; cavity x in [1.5, 4.5], y above 0.45"),
        body("marble", circle(0.6), [3.0, 6.0]),
        body("comb", polygon(comb_shape(4, 0.5, 1.0, 0.5, 2.0)), [6.0, 0.0], static=True,
             _comment="static comb on the floor: static-static with the floor is never reported"),
        body("pin", box2(0.3, 0.8), [7.0, 5.0], angle=0.0),
        body("hexagon", polygon(regular_polygon(6, 1.0)), [12.0, 4.0]),
        body("star", polygon(star_shape(5, 1.5, 0.6)), [14.4, 4.0], angle=0.0),
        body("ell", polygon(l_shape(3, 3, 1)), [1.0, 8.0]),
        body("notch_box", box2(0.5, 0.5), [3.5, 10.5], angle=0.0),
    ]
    sc.step(add=walls + shelf, comment="walls and the display shelf", details="all")

    catalog = [
        ("circle", lambda r: circle(fx(r.uniform(0.4, 1.0), 2))),
        ("box", lambda r: box2(fx(r.uniform(0.3, 1.0), 2), fx(r.uniform(0.3, 1.0), 2))),
        ("triangle", lambda r: polygon([[-1, -0.6], [1, -0.6], [0, 1.1]])),
        ("hexagon", lambda r: polygon(regular_polygon(6, fx(r.uniform(0.6, 1.0), 2)))),
        ("ell", lambda r: polygon(shift(l_shape(2, 2, 0.7), -1, -1))),
        ("you", lambda r: polygon(shift(u_shape(2, 1.6, 0.5), -1, -0.8))),
        ("star", lambda r: polygon(star_shape(5, 1.1, 0.45))),
        ("comb", lambda r: polygon(shift(comb_shape(3, 0.4, 0.5, 0.4, 0.8), -1, -0.6))),
    ]
    falling = {}  # id -> dict(x, y, angle, vy, spin, rest_until)
    serial = 0
    nframes = 150
    for k in range(1, nframes):
        removes, adds, moves = [], [], []
        notes = []
        # --- the shelf script ------------------------------------------------
        if 1 <= k <= 17:
            moves.append(mv("marble", [3.0, fx(6.0 - 0.3 * k)]))
            if k == 8:
                notes.append("the marble is inside the cup's bounding box but touches nothing")
        if k == 17:
            notes.append("the marble reaches the cup's bottom")
        if 1 <= k <= 12:
            moves.append(mv("pin", [7.0, fx(5.0 - 0.25 * k)], angle=0.0))
        if 13 <= k <= 20:
            moves.append(mv("pin", [fx(7.0 + 0.045 * (k - 12)), 2.0], angle=0.0))
            if k == 13:
                notes.append("the pin sits in a gap of the comb, clear of the teeth")
        if 1 <= k <= 40:
            moves.append(mv("star", [14.4, 4.0], angle=fx(0.08 * k)))
        if 1 <= k <= 10:
            moves.append(mv("notch_box", [fx(3.5 - 0.105 * k), fx(10.5 - 0.105 * k)], angle=0.0))
            if k == 10:
                notes.append("the box is pushed into the L's inner corner")
        if k == 45:
            removes += ["marble", "pin"]
            notes.append("marble and pin are put away")
        # --- the spawner ---------------------------------------------------------
        for bid in sorted(falling, key=id_key):
            st = falling[bid]
            if st["rest_until"] is not None and k >= st["rest_until"]:
                removes.append(bid)
                del falling[bid]
        if k % 4 == 1 and k < nframes - 20:
            kind, make = catalog[serial % len(catalog)]
            serial += 1
            bid = f"{kind}_{serial}"
            st = {"x": rng.uniform(17.0, 37.0), "y": rng.uniform(14.0, 18.0),
                  "angle": rng.uniform(-math.pi, math.pi), "vy": 0.0,
                  "spin": rng.uniform(-0.15, 0.15), "rest_until": None,
                  "shape": make(rng)}
            falling[bid] = st
            st["new"] = True
        for bid in sorted(falling, key=id_key):
            st = falling[bid]
            if st["rest_until"] is None and not st.get("new"):
                st["vy"] = min(st["vy"] + 0.05, 0.6)
                st["y"] -= st["vy"]
                st["angle"] += st["spin"]

        def build(kk, removes=removes, adds=adds, moves=moves):
            out_adds = list(adds)
            out_moves = list(moves)
            for bid in sorted(falling, key=id_key):
                st = falling[bid]
                pos = [fx(st["x"]), fx(st["y"] - nudge(kk, 0.004))]
                ang = fx(st["angle"])
                if st.get("new"):
                    out_adds.append(body(bid, st["shape"], pos, angle=ang))
                elif st["rest_until"] is None:
                    out_moves.append(mv(bid, pos, angle=ang))
            return removes, out_adds, out_moves

        got = sc.step_nudged(build, comment="; ".join(notes) or None,
                             details="all" if k % 5 == 0 else None)
        # bodies that touched anything come to rest where they are
        for bid, st in falling.items():
            b = sc.peek(bid)
            st["x"], st["y"] = b["position"]
            st["angle"] = b["angle"]
            if st.pop("new", False):
                continue
            if st["rest_until"] is None and any(bid in p for p in got):
                st["rest_until"] = k + 24
    return sc


# ---------------------------------------------------------------------------
# 6. filtering_static: category/mask filtering and static bodies
# ---------------------------------------------------------------------------

PLAYER, ENEMY, PBULLET, EBULLET, WALL, PICKUP, SENSOR = 1, 2, 4, 8, 16, 32, 64
HIGH_BIT = 2147483648  # bit 31: the top of the uint32 range


def story_filtering_static():
    sc = Scenario(
        "filtering_static.jsonl", 2, "filtering-and-static",
        "A top-down shooter level that exercises filtering and static bodies. "
        "Static walls cross each other and a static pillar overlaps both, a static "
        "pickup lies on a wall, and a static door slides through a wall: none of "
        "those static-static overlaps is ever reported. Categories: player 1, "
        "enemy 2, player bullet 4 (mask: enemies and walls), enemy bullet 8 (mask: "
        "player and walls), wall 16, pickup 32 (mask: player only), sensor 64. A "
        "trap sensor's mask wants enemies but the enemies' mask leaves out 64, so "
        "the filter fails one way and the pair is never reported, even while they "
        "overlap; a player bullet passing through the player is not reported either "
        "(its mask leaves out the player). A ghost with category 0 touches nothing. "
        "Two beacons use only bit 31 (2147483648). Static-dynamic pairs are "
        "reported as usual.",
        comment="expect lists only pairs that pass both filter directions and are not "
                "both static",
    )
    level = [
        body("wall_north", box2(10, 0.5), [0, 10], static=True, category=WALL),
        body("wall_east", box2(0.5, 10), [10, 0], static=True, category=WALL),
        body("wall_mid", box2(6, 0.5), [0, 0], angle=0.0, static=True, category=WALL),
        body("pillar", circle(1.2), [9.6, 9.6], static=True, category=WALL,
             _comment="overlaps both walls: static-static, never reported"),
        body("medkit", circle(0.4), [4, 0.3], static=True, category=PICKUP, mask=PLAYER,
             _comment="lies on wall_mid: static-static"),
        body("door", box2(0.4, 1.5), [6, 0], angle=0.0, static=True, category=WALL,
             _comment="a static door that slides (a static body may be moved)"),
        body("trap", box2(1.5, 1.5), [-4, 5], static=False, category=SENSOR, mask=ENEMY,
             _comment="wants enemies, but the enemies' mask leaves out 64: one-way"),
        body("ghost", circle(1.0), [-6, 6], category=0,
             _comment="category 0: no mask matches it"),
        body("beacon_a", circle(0.5), [-7.4, -7.4], category=HIGH_BIT, mask=HIGH_BIT),
        body("beacon_b", circle(0.5), [-8, -8], category=HIGH_BIT, mask=HIGH_BIT | PLAYER),
    ]
    actors = [
        body("player", box2(0.5, 0.5), [-8, 2], angle=0.0, category=PLAYER),
        body("enemy_1", circle(0.6), [5, 6], category=ENEMY, mask=PLAYER | ENEMY | PBULLET | WALL),
        body("enemy_2", circle(0.6), [-4, 8], category=ENEMY, mask=PLAYER | ENEMY | PBULLET | WALL),
    ]
    sc.step(add=level + actors, comment="the level: every static overlap is silent")

    # scripted tracks: frame -> position, linear between keys
    def track(keys, k):
        ks = sorted(keys)
        if k <= ks[0]:
            return keys[ks[0]]
        for a, b in zip(ks, ks[1:], strict=False):
            if a <= k <= b:
                t = (k - a) / (b - a)
                return [lerp(keys[a][0], keys[b][0], t), lerp(keys[a][1], keys[b][1], t)]
        return keys[ks[-1]]

    player_keys = {0: [-8, 2], 8: [-4, 4.5], 14: [-6, 6], 20: [-8, -7.2], 22: [-8, -7.2], 26: [-5, -0.8],
                   28: [-5, -0.8], 30: [-7, -1], 32: [-7, 1.5], 37: [4.0, 0.9], 39: [4.0, 0.9],
                   43: [6.8, 3], 50: [9.0, 8.8]}
    enemy1_keys = {0: [5, 6], 10: [-3, 6.5], 18: [-4, 4], 26: [1, 5], 40: [7, 8.6], 50: [7, 8.6]}
    enemy2_keys = {0: [-4, 8], 12: [-4, 8], 22: [-1.2, 6.4], 50: [-1.2, 6.4]}
    notes = {
        6: "the player walks over the trap: the trap's mask wants enemies only",
        12: "enemy_1 crosses the trap: the trap wants it, it does not want the trap",
        14: "the player stands in the category-0 ghost: never reported",
        20: "the player meets both beacons: beacon_b's mask has bit 1, beacon_a's has only bit 31",
        26: "the player bumps the static wall_mid from below: static-dynamic is reported",
        30: "the door slides into wall_east: static-static stays silent",
        32: "the player fires at enemy_2; the bullet flies through the player and the trap",
        37: "the player steps on the medkit (and leans on wall_mid)",
        39: "enemy_1 fires at the player",
    }
    bullets = {}  # id -> [x, y, vx, vy]
    hit = set()
    for k in range(1, 51):
        removes, adds, moves = [], [], []
        p = track(player_keys, k)
        moves.append(mv("player", [fx(p[0]), fx(p[1])], angle=0.0))
        moves.append(mv("enemy_1", [fx(v) for v in track(enemy1_keys, k)]))
        moves.append(mv("enemy_2", [fx(v) for v in track(enemy2_keys, k)]))
        for bid in sorted(bullets):
            if bid in hit:
                removes.append(bid)
                del bullets[bid]
                notes.setdefault(k, f"{bid} hit something and is removed")
            else:
                st = bullets[bid]
                st[0] += st[2]
                st[1] += st[3]
                moves.append(mv(bid, [fx(st[0]), fx(st[1])]))
        if k == 32:
            d = np.array(track(enemy2_keys, 40)) - np.array(p)
            v = 0.7 * d / np.linalg.norm(d)
            bullets["pbullet"] = [p[0] + 0.3, p[1] + 0.2, float(v[0]), float(v[1])]
            adds.append(body("pbullet", circle(0.15), [fx(p[0] + 0.3), fx(p[1] + 0.2)],
                             category=PBULLET, mask=ENEMY | WALL))
        if k == 39:
            src = track(enemy1_keys, 39)
            src = [src[0], src[1] - 0.7]
            d = np.array(track(player_keys, 44)) - np.array(src)
            v = d / 5
            bullets["ebullet"] = [src[0], src[1], float(v[0]), float(v[1])]
            adds.append(body("ebullet", circle(0.15), [fx(src[0]), fx(src[1])],
                             category=EBULLET, mask=PLAYER | WALL))
        if 28 <= k <= 38:
            moves.append(mv("door", [fx(6.0 + 0.4 * (k - 28)), 0.0], angle=0.0))
        if k == 40:
            removes.append("medkit")
            notes[k] = "the medkit is used up"

        def build(kk, removes=removes, adds=adds, moves=moves):
            if kk == 0:
                return removes, adds, moves
            out = []
            for m in moves:
                if m["id"] in ("player", "enemy_1", "enemy_2", "pbullet", "ebullet"):
                    m = dict(m, position=[fx(m["position"][0] + nudge(kk, 0.003)), m["position"][1]])
                out.append(m)
            return removes, adds, out

        got = sc.step_nudged(build, comment=notes.get(k), details="all" if k % 6 == 0 else None)
        hit = {b for pair in got for b in pair if b in bullets}
    return sc


# ---------------------------------------------------------------------------
# 7. id_reuse: ids removed and re-added, integers and strings
# ---------------------------------------------------------------------------


def story_id_reuse():
    sc = Scenario(
        "id_reuse.jsonl", 2, "id-reuse-warehouse",
        "A warehouse where slots are emptied and refilled, so ids come back with "
        "other shapes: integer ids (0, 1, 7, -3, 123456789) and string ids ('crate', "
        "'forklift', 'Kiste-\u00e4'). Some frames remove and add the same id: the "
        "remove happens first, so the new body replaces the old one, and a move in "
        "the same frame applies to the new body. A replacement can end a contact "
        "the old shape had, start one it did not, or keep one at the same place. "
        "A static wall id is reused for a dynamic body, which then reports its "
        "overlap with another static wall. The integer 1 and the string '1' are "
        "never alive at the same time.",
        comment="every frame's expect follows from the bodies alive after remove, add, move",
    )
    forklift = box2(1.2, 0.6)
    sc.step(add=[
        body(1, box2(1, 1), [0, 0], angle=0.0),
        body("a", circle(0.6), [1.5, 0]),
        body(0, circle(1.0), [10, 0]),
        body(-3, box2(0.8, 0.8), [20, 0], angle=0.0),
        body("crate", box2(0.5, 0.5), [5, 0], angle=0.0),
        body(7, polygon(l_shape(2, 2, 0.6)), [14, -1]),
        body("wall", box2(15, 0.3), [10, -3], static=True),
        body("shelf", box2(0.3, 2), [24, 0], static=True),
        body("forklift", forklift, [-6, 3], angle=0.0),
    ], comment="body 1 (a box) touches body 'a' (a circle); the wall and shelf are static",
        details=[(1, "a")])

    script = [
        ({"remove": [1]}, "body 1 is removed: its contact with 'a' ends"),
        ({"add": [body(1, circle(0.3), [0, 0])]}, "id 1 is back as a small circle: no contact with 'a'"),
        ({"remove": [1], "add": [body(1, box2(2, 2), [0, 0], angle=0.0)]},
         "remove and add of id 1 in one frame: now a big box, in contact with 'a' again"),
        ({"remove": ["a"], "add": [body("a", polygon([[0, 0], [2, 0], [1, 1.5]]), [30, 5])]},
         "'a' is replaced by a triangle far away: the contact ends"),
        ({"move": [mv(1, [30.5, 6.0], angle=0.3)]}, "body 1 moves onto the triangle 'a'"),
        ({"remove": [1, "crate"], "add": [body("crate", box2(1, 1), [30, 4.5], angle=0.0),
                                          body(1, circle(0.5), [5, 0])]},
         "1 and 'crate' swap places with new shapes: 1 in crate's old slot, crate on the triangle"),
        ({"remove": [0], "add": [body("0", circle(1.0), [10, 0])]},
         "integer 0 is replaced by the string '0' at the same place"),
        ({"move": [mv("0", [11.2, 0])]}, "'0' drifts towards 7, the L"),
        ({"move": [mv("0", [12.6, 0])]}, "'0' stops 0.4 short of the L's leg: no contact"),
        ({"move": [mv("0", [13.1, 0])]}, "'0' reaches the L's leg"),
        ({"remove": ["0"], "add": [body(0, box2(0.5, 0.5), [13.1, 0], angle=0.0)]},
         "the string '0' gives way to the integer 0 again, now a small box"),
        ({"remove": [-3], "add": [body(-3, box2(0.8, 0.8), [20, 0], angle=0.0)]},
         "-3 is removed and re-added unchanged: nothing to report either way"),
        ({"remove": [-3], "add": [body(-3, box2(2.5, 0.8), [22, 0], angle=0.0)]},
         "-3 is re-added wider and reaches the static shelf"),
        ({"remove": ["wall"], "add": [body("wall", box2(2, 0.3), [24, -2.2])]},
         "the id 'wall' is reused for a dynamic plank that overlaps the static shelf"),
        ({"remove": ["wall"], "add": [body("wall", box2(2, 0.3), [24, -2.2])],
          "move": [mv("wall", [24, -4])]},
         "remove, add and move of 'wall' in one frame: the move applies to the new body"),
        ({"add": [body(123456789, circle(0.4), [-6, 3.5])]}, "a large integer id appears on the forklift"),
        ({"add": [body("Kiste-\u00e4", box2(0.4, 0.4), [-3, 3], angle=0.0)]}, "a non-ASCII string id"),
    ]
    for op, note in script:
        sc.step(op.get("remove", ()), op.get("add", ()), op.get("move", ()), comment=note)

    # the forklift drives along the aisle carrying 123456789, pushing through the crates
    for k in range(1, 22):
        x = fx(-6 + 0.8 * k)
        ops = {"move": [mv("forklift", [x, 3.0], angle=0.0), mv(123456789, [x, 3.5])]}
        note = None
        if k == 2:
            note = "the forklift reaches 'Kiste-\u00e4'"
        if k == 8:
            ops["remove"] = ["Kiste-\u00e4"]
            ops["add"] = [body("Kiste-\u00e4", circle(0.3), [0, 6])]
            note = "'Kiste-\u00e4' is re-added as a barrel on the top shelf"
        if k == 12:
            ops["remove"] = [7]
            ops["add"] = [body(7, box2(1, 1), [fx(x + 2.0), 3.0], angle=0.0)]
            note = "id 7 (the L) is re-added as a box right in front of the forklift"
        if k == 16:
            ops["remove"] = [7, 123456789]
            ops["add"] = [body(7, circle(0.5), [fx(x), 3.5])]
            note = "the load 123456789 is unloaded; id 7 comes back as a ball on the forklift"
            ops["move"] = [m for m in ops["move"] if m["id"] != 123456789]
        if k > 16:
            ops["move"] = [m for m in ops["move"] if m["id"] != 123456789]
            ops["move"].append(mv(7, [x, 3.5]))
        sc.step(ops.get("remove", ()), ops.get("add", ()), ops.get("move", ()), comment=note)
    sc.step(remove=["forklift", 7, 1, "crate", "a", "Kiste-\u00e4"],
            comment="end of shift: most bodies are removed")
    sc.step(add=[body("1", circle(0.5), [0, 0]), body("forklift", forklift, [24, 2.5], angle=0.0)],
            comment="the string '1' takes the place of the removed integer 1; the forklift "
                    "returns and parks against the shelf")
    return sc


# ---------------------------------------------------------------------------
# 8. touching_edges_2d / touching_edges_3d: exact touching and containment
# ---------------------------------------------------------------------------


def run_cases(sc, cases):
    """One case per frame: remove the last case's bodies, add this one's.

    Each case is (comment, bodies, intended contact pairs, pairs to give
    expect_contacts for). The intended pairs are written by hand; the frame's
    expect is still computed, and the two must agree.
    """
    alive = []
    for comment, bodies, intended, details in cases:
        got = sc.step(remove=alive, add=bodies, comment=comment, exact=True,
                      details=details or None)
        want = {canon_pair(*p) for p in intended}
        if got != want:
            raise AssertionError(f"{sc.filename}: case {comment!r}: computed {sorted(got, key=pair_key)}, "
                                 f"intended {sorted(want, key=pair_key)}")
        alive = [b["id"] for b in bodies]


def story_touching_edges_2d():
    sc = Scenario(
        "touching_edges_2d.jsonl", 2, "touching-edges-2d",
        "Exact touching and containment in 2D, one case per frame (each frame removes "
        "the previous case and adds the next). All coordinates are small integers or "
        "halves and every rotation is angle 0, so each touch is exact in floating "
        "point: shapes are closed sets and touching counts as contact (depth 0). Cases: "
        "box edges, partial edges and corners; circle tangent to a box edge and to a "
        "box corner (3-4-5 triangle); tangent circles; containment; identical shapes; "
        "half-planes touched exactly, with unit, non-unit and diagonal normals; "
        "concave L, U and comb touched in their notches or clear of them (bounding "
        "boxes overlapping); static-static and filtered touching pairs, which are not "
        "reported.",
        comment="every case's contacts were also written down by hand; the generator "
                "checks that the computed expect agrees",
    )
    B1 = box2(1, 1)
    L = polygon(l_shape(4, 4, 1))
    U = polygon(u_shape(6, 4, 1))
    comb = polygon(comb_shape(3, 1, 1, 1, 2))
    floor = halfplane([0, 1], 0)
    cases = [
        ("box-box, edge on edge: touching", [body("a", B1, [0, 0]), body("b", B1, [2, 0])],
         [("a", "b")], [("a", "b")]),
        ("box-box, edges overlap on half their length", [body("a", B1, [0, 0]), body("b", B1, [2, 1])],
         [("a", "b")], [("a", "b")]),
        ("box-box, corner on corner", [body("a", B1, [0, 0]), body("b", B1, [2, 2])],
         [("a", "b")], None),
        ("box-box, corner on corner, other diagonal", [body("a", B1, [0, 0]), body("b", B1, [-2, 2])],
         [("a", "b")], None),
        ("box-box, 0.5 apart: no contact", [body("a", B1, [0, 0]), body("b", B1, [2.5, 0])], [], None),
        ("box-box overlapping by 0.25 along x (and 1.5 along y): depth 0.25, normal +x",
         [body("a", B1, [0, 0]), body("b", B1, [1.75, 0.5])], [("a", "b")], [("a", "b")]),
        ("box-box with half-unit sizes, edge on edge at x = 1",
         [body("a", box2(0.25, 0.5), [0.75, 0]), body("b", box2(0.5, 0.5), [1.5, 0.5])],
         [("a", "b")], [("a", "b")]),
        ("box-box, a small box standing on a longer box, flush with its right end",
         [body("a", box2(2, 1), [0, 0]), body("b", B1, [1, 2])], [("a", "b")], [("a", "b")]),
        ("circle tangent to a box edge: r 1 at the origin, box centred at (2, 0)",
         [body("a", circle(1), [0, 0]), body("b", B1, [2, 0])], [("a", "b")], [("a", "b")]),
        ("circle tangent to a box corner: r 5 at the origin, corner at (3, 4)",
         [body("a", circle(5), [0, 0]), body("b", B1, [4, 5])], [("a", "b")], [("a", "b")]),
        ("circle near a box corner, bounding boxes overlap, no contact (corner at (3.5, 4))",
         [body("a", circle(5), [0, 0]), body("b", B1, [4.5, 5])], [], None),
        ("circle-circle tangent: r 2 and r 3, centres 5 apart (3-4-5)",
         [body("a", circle(2), [0, 0]), body("b", circle(3), [3, 4])], [("a", "b")], [("a", "b")]),
        ("circle-circle overlapping by 1 along (0.6, 0.8)",
         [body("a", circle(3), [0, 0]), body("b", circle(3), [3, 4])], [("a", "b")], [("a", "b")]),
        ("circle-circle 0.5 apart: no contact",
         [body("a", circle(2), [0, 0]), body("b", circle(2.5), [3, 4])], [], None),
        ("circle inside a circle (same centre)",
         [body("a", circle(1), [0, 0]), body("b", circle(3), [0, 0])], [("a", "b")], None),
        ("circle inside a circle, touching it from inside at (3, 0)",
         [body("a", circle(1), [2, 0]), body("b", circle(3), [0, 0])], [("a", "b")], None),
        ("small box inside a big box",
         [body("a", box2(5, 5), [0, 0]), body("b", B1, [1, 0])], [("a", "b")], [("a", "b")]),
        ("small box inside a big box, sharing a whole edge from inside",
         [body("a", box2(5, 5), [0, 0]), body("b", B1, [4, 0])], [("a", "b")], None),
        ("box inside a circle",
         [body("a", circle(10), [0, 0]), body("b", B1, [0, 0])], [("a", "b")], None),
        ("circle inside a concave star",
         [body("a", polygon(star_shape(5, 4, 2)), [0, 0]), body("b", circle(0.5), [0, 0])],
         [("a", "b")], None),
        ("identical boxes at the same pose", [body("a", B1, [3, 3]), body("b", B1, [3, 3])],
         [("a", "b")], None),
        ("identical circles at the same place",
         [body("a", circle(1.5), [-2, 1]), body("b", circle(1.5), [-2, 1])], [("a", "b")], None),
        ("identical concave L polygons at the same pose",
         [body("a", L, [1, 1]), body("b", L, [1, 1])], [("a", "b")], None),
        ("the same triangle, given once counter-clockwise and once clockwise",
         [body("a", polygon([[0, 0], [2, 0], [1, 2]]), [0, 0]),
          body("b", polygon([[1, 2], [2, 0], [0, 0]]), [0, 0])], [("a", "b")], None),
        ("half-plane y <= 0 and a box resting on it (bottom edge on y = 0)",
         [body("floor", floor), body("b", B1, [0, 1])], [("floor", "b")], [("floor", "b")]),
        ("half-plane y <= 0 and a box 0.5 above it: no contact",
         [body("floor", floor), body("b", B1, [0, 1.5])], [], None),
        ("half-plane with normal [0, 2] (not unit) and a tangent circle",
         [body("floor", halfplane([0, 2], 0)), body("b", circle(1), [5, 1])],
         [("floor", "b")], [("floor", "b")]),
        ("half-plane [0, 2] offset 2 (that is y <= 1) and a circle tangent from above",
         [body("floor", halfplane([0, 2], 2)), body("b", circle(1), [0, 2])],
         [("floor", "b")], [("floor", "b")]),
        ("diagonal half-plane x + y <= 0 touched by a box corner at the origin",
         [body("floor", halfplane([1, 1], 0)), body("b", B1, [1, 1])],
         [("floor", "b")], [("floor", "b")]),
        ("diagonal half-plane x + y <= 0 and a box whose nearest corner is (0.5, 0): no contact",
         [body("floor", halfplane([1, 1], 0)), body("b", B1, [1.5, 1])], [], None),
        ("half-plane x >= 0 (normal [-1, 0]) and a circle tangent at the origin",
         [body("floor", halfplane([-1, 0], 0)), body("b", circle(1), [-1, 0])],
         [("floor", "b")], [("floor", "b")]),
        ("half-plane and a polygon with one vertex on the boundary line",
         [body("floor", floor), body("b", polygon([[-1, 1], [1, 1], [0, 0]]), [3, 0])],
         [("floor", "b")], [("floor", "b")]),
        ("box deep in a half-plane (fully inside the solid)",
         [body("floor", floor), body("b", box2(1, 0.5), [2, -5])], [("floor", "b")], [("floor", "b")]),
        ("box filling the inner corner of an L, touching both inner edges",
         [body("a", L, [0, 0]), body("b", B1, [2, 2])], [("a", "b")], None),
        ("box in the notch of an L, 0.5 from both inner edges: bounding boxes overlap, no contact",
         [body("a", L, [0, 0]), body("b", B1, [2.5, 2.5])], [], None),
        ("circle in the notch of an L, tangent to both inner edges",
         [body("a", L, [0, 0]), body("b", circle(1), [2, 2])], [("a", "b")], None),
        ("circle inside the U's cavity, clear of all its walls",
         [body("a", U, [0, 0]), body("b", circle(1), [3, 2.5])], [], None),
        ("box resting on the U's inner floor, clear of its inner walls",
         [body("a", U, [0, 0]), body("b", box2(1.5, 0.5), [3, 1.5])], [("a", "b")], None),
        ("box filling the U's cavity exactly: touches three inner edges",
         [body("a", U, [0, 0]), body("b", box2(2, 1.5), [3, 2.5])], [("a", "b")], None),
        ("pin exactly filling a gap of the comb: touches both teeth and the base",
         [body("a", comb, [0, 0]), body("b", box2(0.5, 1), [1.5, 2])], [("a", "b")], None),
        ("thin pin inside a gap of the comb: clear on all sides",
         [body("a", comb, [0, 0]), body("b", box2(0.25, 0.75), [1.5, 2.25])], [], None),
        ("triangle vertex exactly on a box's top edge",
         [body("a", B1, [0, 0]), body("b", polygon([[-1, 1], [1, 1], [0, 0]]), [0, 1])],
         [("a", "b")], None),
        ("clockwise triangle whose vertex touches a circle at (0, 1)",
         [body("a", circle(1), [0, 0]), body("b", polygon([[0, 0], [1, 1], [-1, 1]]), [0, 1])],
         [("a", "b")], None),
        ("polygon placed by a body position: L at (10.5, -2.25) touching a box edge at x = 10.5",
         [body("a", L, [10.5, -2.25]), body("b", B1, [9.5, -1.25])], [("a", "b")], None),
        ("static box touching a dynamic box: reported",
         [body("a", B1, [0, 0], static=True), body("b", B1, [2, 0])], [("a", "b")], [("a", "b")]),
        ("two static boxes touching (and a static pair overlapping): never reported",
         [body("a", B1, [0, 0], static=True), body("b", B1, [2, 0], static=True),
          body("c", B1, [1, 0], static=True)], [], None),
        ("static half-plane and a static box on it: never reported",
         [body("floor", floor), body("b", B1, [0, 1], static=True)], [], None),
        ("touching boxes filtered out one way (a's mask lacks b's category)",
         [body("a", B1, [0, 0], category=1, mask=1), body("b", B1, [2, 0], category=2)], [], None),
        ("touching boxes whose categories match both ways",
         [body("a", B1, [0, 0], category=3, mask=2), body("b", B1, [2, 0], category=2, mask=1)],
         [("a", "b")], None),
        ("three boxes in a row, each touching the next; the outer two are 2 apart",
         [body("a", B1, [0, 0]), body("b", B1, [2, 0]), body("c", B1, [4, 0])],
         [("a", "b"), ("b", "c")], None),
        ("a box touching another box at a corner and a half-plane x >= 3 along an edge",
         [body("floor", halfplane([-1, 0], -3)), body("a", B1, [0, 0]), body("b", B1, [2, 2])],
         [("a", "b"), ("floor", "b")], None),
    ]
    run_cases(sc, cases)
    return sc


def story_touching_edges_3d():
    sc = Scenario(
        "touching_edges_3d.jsonl", 3, "touching-edges-3d",
        "Exact touching and containment in 3D, one case per frame. Coordinates are "
        "small integers and halves; rotations are the identity or 180-degree turns "
        "([0, 0, 0, 1], [0, 1, 0, 0]) whose matrices are exact. Cases: box faces, "
        "edges and corners touching; a sphere tangent to a plane (unit and non-unit "
        "normals, a ceiling), to a box face, edge and corner (Pythagorean distances "
        "3 and 5), tangent spheres; a box resting on a plane and a cube's corner on "
        "a diagonal plane; containment and identical shapes; static-static and "
        "filtered pairs that are not reported.",
        comment="box-box pairs here are decided in exact rational arithmetic",
    )
    C = box3(1, 1, 1)
    ground = plane([0, 0, 1], 0)
    Z180 = [0.0, 0.0, 0.0, 1.0]
    X180 = [0.0, 1.0, 0.0, 0.0]
    cases = [
        ("box-box, face on face", [body("a", C, [0, 0, 0]), body("b", C, [2, 0, 0])],
         [("a", "b")], [("a", "b")]),
        ("box-box, faces overlapping partly (offset in y and z)",
         [body("a", C, [0, 0, 0]), body("b", C, [2, 0.5, -0.5])], [("a", "b")], [("a", "b")]),
        ("box-box, edge on edge", [body("a", C, [0, 0, 0]), body("b", C, [2, 2, 0])],
         [("a", "b")], None),
        ("box-box, corner on corner", [body("a", C, [0, 0, 0]), body("b", C, [2, 2, 2])],
         [("a", "b")], None),
        ("box-box, corner on corner along (-, +, -)", [body("a", C, [0, 0, 0]), body("b", C, [-2, 2, -2])],
         [("a", "b")], None),
        ("box-box, 0.5 apart: no contact", [body("a", C, [0, 0, 0]), body("b", C, [2.5, 0, 0])], [], None),
        ("box-box overlapping by 0.25 along -z: depth 0.25, normal -z",
         [body("a", C, [0, 0, 0]), body("b", C, [0.5, -0.5, -1.75])], [("a", "b")], [("a", "b")]),
        ("box-box, edge on edge with different sizes",
         [body("a", box3(1, 2, 3), [0, 0, 0]), body("b", box3(0.5, 0.5, 0.5), [1.5, 2.5, 0])],
         [("a", "b")], None),
        ("box-box, corner of a small box on the middle of a big face",
         [body("a", box3(3, 3, 1), [0, 0, 0]), body("b", C, [1, 1, 2])], [("a", "b")], [("a", "b")]),
        ("box turned 180 degrees about z, face on face at x = 1",
         [body("a", C, [0, 0, 0]), body("b", box3(2, 1, 1), [3, 0, 0], quaternion=Z180)],
         [("a", "b")], [("a", "b")]),
        ("box turned 180 degrees about x, face on face at z = 1",
         [body("a", C, [0, 0, 0]), body("b", box3(1, 1, 0.5), [0, 0, 1.5], quaternion=X180)],
         [("a", "b")], [("a", "b")]),
        ("sphere tangent to the ground plane", [body("g", ground), body("b", sphere(1), [0, 0, 1])],
         [("g", "b")], [("g", "b")]),
        ("sphere 0.5 above the ground: no contact", [body("g", ground), body("b", sphere(1), [0, 0, 1.5])],
         [], None),
        ("sphere deep below the ground plane (inside its solid)",
         [body("g", ground), body("b", sphere(1), [0, 0, -5])], [("g", "b")], [("g", "b")]),
        ("plane with normal [0, 0, 4] and offset 8 (z <= 2) and a tangent sphere",
         [body("g", plane([0, 0, 4], 8)), body("b", sphere(1), [3, 3, 3])], [("g", "b")], [("g", "b")]),
        ("ceiling plane: normal [0, 0, -1], offset -10 (solid z >= 10), tangent sphere below",
         [body("g", plane([0, 0, -1], -10)), body("b", sphere(1), [0, 0, 9])], [("g", "b")], [("g", "b")]),
        ("box resting on the ground plane (bottom face on z = 0)",
         [body("g", ground), body("b", C, [0, 0, 1])], [("g", "b")], [("g", "b")]),
        ("box on a plane with normal [0, 0, 2] and offset 0",
         [body("g", plane([0, 0, 2], 0)), body("b", C, [5, -5, 1])], [("g", "b")], [("g", "b")]),
        ("diagonal plane x + y + z <= 0 touched by a cube's corner at the origin",
         [body("g", plane([1, 1, 1], 0)), body("b", C, [1, 1, 1])], [("g", "b")], [("g", "b")]),
        ("diagonal plane x + y + z <= 0 and a cube whose nearest corner is (0.5, 0, 0): no contact",
         [body("g", plane([1, 1, 1], 0)), body("b", C, [1.5, 1, 1])], [], None),
        ("sphere tangent to a box face",
         [body("a", sphere(1), [0, 0, 0]), body("b", C, [2, 0, 0])], [("a", "b")], [("a", "b")]),
        ("sphere tangent to a box corner: r 3, corner at (1, 2, 2)",
         [body("a", sphere(3), [0, 0, 0]), body("b", C, [2, 3, 3])], [("a", "b")], [("a", "b")]),
        ("sphere tangent to a box edge: r 5, edge through (3, 4, z)",
         [body("a", sphere(5), [0, 0, 0]), body("b", C, [4, 5, 0])], [("a", "b")], [("a", "b")]),
        ("sphere near a box corner, bounding boxes overlap, no contact",
         [body("a", sphere(3), [0, 0, 0]), body("b", C, [2.5, 3, 3])], [], None),
        ("sphere-sphere tangent: r 1 and r 2, centres 3 apart along (1, 2, 2)",
         [body("a", sphere(1), [0, 0, 0]), body("b", sphere(2), [1, 2, 2])], [("a", "b")], [("a", "b")]),
        ("sphere-sphere 0.5 apart: no contact",
         [body("a", sphere(1), [0, 0, 0]), body("b", sphere(1.5), [1, 2, 2])], [], None),
        ("small box inside a big box",
         [body("a", box3(4, 4, 4), [0, 0, 0]), body("b", C, [1, 0, 0])], [("a", "b")], [("a", "b")]),
        ("sphere inside a box", [body("a", box3(3, 3, 3), [0, 0, 0]), body("b", sphere(1), [0.5, 0, 0])],
         [("a", "b")], None),
        ("box inside a sphere", [body("a", sphere(5), [0, 0, 0]), body("b", C, [0, 0, 0])],
         [("a", "b")], None),
        ("sphere inside a sphere, touching it from inside",
         [body("a", sphere(1), [0, 0, 2]), body("b", sphere(3), [0, 0, 0])], [("a", "b")], None),
        ("identical boxes at the same pose", [body("a", C, [1, 2, 3]), body("b", C, [1, 2, 3])],
         [("a", "b")], None),
        ("identical spheres at the same place",
         [body("a", sphere(2), [0, 0, 0]), body("b", sphere(2), [0, 0, 0])], [("a", "b")], None),
        ("static box touching a dynamic box: reported",
         [body("a", C, [0, 0, 0], static=True), body("b", C, [0, 0, 2])], [("a", "b")], [("a", "b")]),
        ("static box resting on the ground plane: static-static, never reported",
         [body("g", ground), body("b", C, [0, 0, 1], static=True)], [], None),
        ("touching boxes filtered out one way",
         [body("a", C, [0, 0, 0], category=4, mask=4), body("b", C, [2, 0, 0], category=8, mask=4)],
         [], None),
        ("a stack: ground, box, box, sphere, each resting exactly on the one below",
         [body("g", ground), body("a", C, [0, 0, 1]), body("b", C, [0, 0, 3]),
          body("c", sphere(1), [0, 0, 5])], [("g", "a"), ("a", "b"), ("b", "c")], None),
    ]
    run_cases(sc, cases)
    return sc


# ---------------------------------------------------------------------------
# invalid files: each breaks the format once, at a known line
# ---------------------------------------------------------------------------


def invalid_files():
    """(filename, text, line the reader must report, substring its message must contain).

    The substring is matched case-insensitively and names what is wrong (the
    key, the value or the kind of problem), so any reader that follows the
    format's "name the file, the line and what is wrong" rule can pass.
    """

    def hdr(dim=2, **extra):
        h = {"collideworld_scenario": 1, "dim": dim}
        h.update({"_" + k: v for k, v in extra.items()})
        return dumps(h)

    def lines(*objs):
        return "\n".join(o if isinstance(o, str) else dumps(o) for o in objs) + "\n"

    box_a = body("a", box2(1, 1), [0, 0])
    circ_b = body("b", circle(0.5), [3, 0])
    cube = body("a", box3(1, 1, 1), [0, 0, 0])
    out = []

    def add(name, text, line, contains):
        out.append((name, text, line, contains))

    add("unknown_id_move.jsonl",
        lines(hdr(comment="move of an id that was never added"), {"add": [box_a], "expect": []},
              {"move": [mv("a", [1, 0])], "expect": []}, {"move": [mv("ghost", [1, 0])]}),
        4, "unknown id")
    add("unknown_id_remove.jsonl",
        lines(hdr(comment="remove of an id that is no longer alive"), {"add": [box_a, circ_b]},
              {"remove": ["b"]}, {"remove": ["b"]}),
        4, "unknown id")
    add("unknown_id_move_after_remove.jsonl",
        lines(hdr(comment="the remove in the same frame happens first, so the move has no body"),
              {"add": [box_a]}, {"remove": ["a"], "move": [mv("a", [1, 0])]}),
        3, "unknown id")
    add("duplicate_id_add.jsonl",
        lines(hdr(comment="adding an id that is alive"), {"add": [box_a]}, {},
              {"add": [body("a", circle(1), [5, 5])]}),
        4, "duplicate")
    add("duplicate_id_same_frame.jsonl",
        lines(hdr(comment="the same id twice in one add list"),
              {"add": [box_a, body("a", circle(1), [5, 5])]}),
        2, "duplicate")
    add("shape_3d_in_2d.jsonl",
        lines(hdr(comment="a sphere in a 2D file"), {"add": [box_a]},
              {"add": [body("ball", sphere(1), [0, 0])]}),
        3, "sphere")
    add("shape_2d_in_3d.jsonl",
        lines(hdr(3, comment="a circle in a 3D file"), {"add": [body("disc", circle(1), [0, 0, 0])]}),
        2, "circle")
    add("negative_radius.jsonl",
        lines(hdr(comment="radius must be > 0"), {"add": [box_a]}, {},
              {"add": [body("b", circle(-0.5), [3, 0])]}),
        4, "radius")
    add("zero_half_extent.jsonl",
        lines(hdr(3, comment="half extents must be > 0"), {"add": [body("flat", box3(1, 0, 1), [0, 0, 0])]}),
        2, "half_extents")
    add("polygon_two_vertices.jsonl",
        lines(hdr(comment="three vertices, but only two distinct"),
              {"add": [body("p", polygon([[0, 0], [1, 0], [0, 0]]), [0, 0])]}),
        2, "polygon")
    add("polygon_bowtie.jsonl",
        lines(hdr(comment="a bow-tie: its edges cross"), {"add": [box_a]},
              {"add": [body("tie", polygon([[0, 0], [2, 2], [2, 0], [0, 2]]), [5, 5])]}),
        3, "polygon")
    add("nan_literal.jsonl",
        lines(hdr(comment="NaN is not JSON"), {"add": [box_a]},
              '{"move": [{"id": "a", "position": [NaN, 0.0]}]}'),
        3, "nan")
    add("infinity_literal.jsonl",
        lines(hdr(comment="Infinity is not JSON"),
              '{"add": [{"id": "c", "shape": {"type": "circle", "radius": Infinity}, "position": [0, 0]}]}'),
        2, "infinity")
    add("number_overflow.jsonl",
        lines(hdr(comment="1e999 is valid JSON syntax but not a finite number"), {"add": [box_a]},
              '{"move": [{"id": "a", "position": [1e999, 0]}]}'),
        3, "finite")
    add("truncated_last_line.jsonl",
        lines(hdr(comment="the last line stops mid-object, with no newline"), {"add": [box_a]},
              {"move": [mv("a", [1, 0])]}).rstrip("\n") + "\n" + '{"move": [{"id": "a", "position": [2, 0]',
        4, "truncated")
    add("blank_line.jsonl",
        lines(hdr(comment="blank lines are not allowed"), {"add": [box_a]}, "", {"move": [mv("a", [1, 0])]}),
        3, "blank")
    add("unknown_key_body.jsonl",
        lines(hdr(comment="'velocity' is not a body key (only _-keys are comments)"),
              {"add": [dict(box_a, velocity=[1, 0])]}),
        2, "velocity")
    add("unknown_key_frame.jsonl",
        lines(hdr(comment="'rotate' is not a frame key"), {"add": [box_a]}, {"rotate": [{"id": "a", "angle": 1}]}),
        3, "rotate")
    add("wrong_version.jsonl",
        lines({"collideworld_scenario": 2, "dim": 2}, {"add": [box_a]}),
        1, "version")
    add("missing_dim.jsonl",
        lines({"collideworld_scenario": 1, "name": "no dim"}, {"add": [box_a]}),
        1, "dim")
    add("bad_dim.jsonl",
        lines({"collideworld_scenario": 1, "dim": 4}, {}),
        1, "dim")
    add("header_not_object.jsonl",
        lines([1, 2], {}),
        1, "header")
    add("empty_file.jsonl", "", 1, "empty")
    add("halfplane_with_position.jsonl",
        lines(hdr(comment="a halfplane takes no pose"),
              {"add": [dict(body("floor", halfplane([0, 1], 0)), position=[0, 0])]}),
        2, "position")
    add("plane_with_quaternion.jsonl",
        lines(hdr(3, comment="a plane takes no pose"),
              {"add": [dict(body("ground", plane([0, 0, 1], 0)), quaternion=[1, 0, 0, 0])]}),
        2, "quaternion")
    add("move_halfplane.jsonl",
        lines(hdr(comment="a halfplane cannot be moved"), {"add": [body("floor", halfplane([0, 1], 0)), box_a]},
              {"move": [mv("a", [0, 2])]}, {"move": [mv("floor", [0, 1])]}),
        4, "floor")
    add("zero_normal.jsonl",
        lines(hdr(3, comment="a plane normal must be non-zero"), {"add": [body("ground", plane([0, 0, 0], 0))]}),
        2, "normal")
    add("quaternion_not_unit.jsonl",
        lines(hdr(3, comment="norm 1.1: not within 1e-6 of 1"), {"add": [cube]},
              {"move": [mv("a", quaternion=[1.1, 0, 0, 0])]}),
        3, "quaternion")
    add("angle_in_3d.jsonl",
        lines(hdr(3, comment="angle is a 2D pose field"), {"add": [dict(cube, angle=0.5)]}),
        2, "angle")
    add("wrong_position_length.jsonl",
        lines(hdr(comment="a 2D position has 2 numbers"), {"add": [box_a]},
              {"move": [mv("a", [1, 2, 3])]}),
        3, "position")
    add("missing_position.jsonl",
        lines(hdr(comment="a circle needs a position"),
              {"add": [{"id": "c", "shape": circle(1)}]}),
        2, "position")
    add("add_not_list.jsonl",
        lines(hdr(comment="add must be a list of bodies"), {"add": box_a}),
        2, "add")
    add("id_float.jsonl",
        lines(hdr(comment="ids are strings or integers"), {"add": [dict(box_a, id=1.5)]}),
        2, "1.5")
    add("id_bool.jsonl",
        lines(hdr(comment="true is not an integer id"), {"add": [box_a]},
              {"add": [dict(circ_b, id=True)]}),
        3, "true")
    add("category_out_of_range.jsonl",
        lines(hdr(comment="category must fit in 32 unsigned bits"), {"add": [box_a]},
              {"add": [dict(circ_b, category=4294967296)]}),
        3, "category")
    add("mask_negative.jsonl",
        lines(hdr(comment="mask must be an unsigned 32-bit integer"),
              {"add": [dict(circ_b, mask=-1)]}),
        2, "mask")
    return out


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------

STORIES = [
    story_rts_town,
    story_driving,
    story_tumbling_3d,
    story_frustum_culling,
    story_mixed_2d,
    story_filtering_static,
    story_id_reuse,
    story_touching_edges_2d,
    story_touching_edges_3d,
]


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=HERE, help="output folder (default: this folder)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    for story in STORIES:
        t = time.perf_counter()
        sc = story()
        write(args.out / sc.filename, sc.render())
        nbodies = len({b["id"] for f in sc.frames for b in f.get("add", ())})
        print(f"{sc.filename:28s} {len(sc.frames):4d} frames {nbodies:4d} ids "
              f"{sum(len(h) for h in sc.history):6d} contacts {sc.nudges:3d} nudges "
              f"{time.perf_counter() - t:6.2f} s")
    expected = {}
    for name, text, line, contains in invalid_files():
        write(args.out / "invalid" / name, text)
        expected[name] = {"line": line, "contains": contains}
    write(args.out / "invalid" / "expected.json", json.dumps(expected, indent=2, sort_keys=True) + "\n")
    print(f"invalid/: {len(expected)} files + expected.json")
    print(f"total {time.perf_counter() - t0:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
