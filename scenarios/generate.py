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
            self.convex = bool(abs(self.poly.convex_hull.area - self.poly.area) <= 1e-12 * max(1.0, self.poly.area))
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
        for k in range(60):
            remove, add, move = build(k)
            try:
                return self.step(remove, add, move, **kw)
            except Ambiguous:
                self.nudges += 1
                continue
        raise AssertionError(f"{self.filename}: could not resolve an ambiguous frame")

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
    for (x0, y0, a0, _, _), (x1, y1, a1, n, note) in zip(path, path[1:]):
        for i in range(1, n + 1):
            t = i / n
            last = i == n
            jx = 0.0 if last else rng.uniform(-0.2, 0.2)  # hand jitter while dragging
            jy = 0.0 if last else rng.uniform(-0.2, 0.2)

            def build(k, t=t, jx=jx, jy=jy):
                px = fx(lerp(x0, x1, t) + jx + nudge(k))
                py = fx(lerp(y0, y1, t) + jy)
                return (), (), [mv("ghost", [px, py], angle=fx(lerp(a0, a1, t)))]

            sc.step_nudged(build, comment=note if last else None)
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
    for (x0, y0, a0, _, _), (x1, y1, a1, n, note) in zip(path2, path2[1:]):
        for i in range(1, n + 1):
            t = i / n
            last = i == n
            jx = 0.0 if last else rng.uniform(-0.2, 0.2)
            jy = 0.0 if last else rng.uniform(-0.2, 0.2)

            def build(k, t=t, jx=jx, jy=jy):
                px = fx(lerp(x0, x1, t) + jx + nudge(k))
                py = fx(lerp(y0, y1, t) + jy)
                return (), (), [mv("ghost", [px, py], angle=fx(lerp(a0, a1, t)))]

            sc.step_nudged(build, comment=note if last else None)
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
        "stays on it; crate_e lands on an edge (tilted 45 degrees); ball_b rolls along the ground 5 mm deep and bounces off "
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
        "through the view. From frame 31 the camera pans left: planes cannot "
        "move, so each frame removes the six planes and adds them again.",
        comment="camera at (0, 0, 2), looking along +x, near 1, far 40, horizontal and "
                "vertical half-angles atan(1) and atan(0.5)",
    )
    cam = (0.0, 0.0, 2.0)
    crates = []
    for i, x in enumerate((8.0, 20.0, 34.0)):
        for j, y in enumerate((-12.0, 0.0, 14.0)):
            crates.append(body(f"crate_{i}{j}", box3(1.0, 1.0, 1.0), [x, y, 1.0]))
    crates.append(body("crate_far", box3(2.0, 2.0, 2.0), [45.0, 3.0, 2.0],
                       _comment="beyond the far plane until the camera turns"))
    crates.append(body("crate_behind", box3(1.0, 1.0, 1.0), [-5.0, 0.0, 1.0],
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
            comment="planes, crates and the static monument", details=["near", "crate_11"])

    def mover(bid, shape):
        return {"id": bid, "shape": shape}

    movers = {
        "cart": (box3(1.5, 0.8, 0.7), lambda k: [12.0, fx(-30.0 + 1.2 * k), 0.7]),
        "drone": (box3(0.5, 0.5, 0.2), lambda k: [fx(10.0 + 0.05 * k), 3.0, fx(-1.0 + 0.35 * k)]),
        "truck": (box3(3.0, 1.2, 1.5), lambda k: [fx(55.0 - 1.4 * k), -2.0, 1.5]),
    }
    for name, (shape, where) in movers.items():
        pass
    nframes = 60
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
        if k > 30:
            yaw = fx(0.02 * (k - 30), 6)
            removes += list(FRUSTUM_PLANES)
            adds = frustum_planes(cam, yaw) + adds
            if k == 31:
                note = "the camera starts to pan left: the planes are replaced every frame"

        def build(kk, removes=removes, adds=adds, moves=moves):
            if kk == 0:
                return removes, adds, moves
            out = [mv(m["id"], [fx(m["position"][0] + nudge(kk, 0.002)), *m["position"][1:]])
                   for m in moves]
            return removes, adds, out

        sc.step_nudged(build, comment=note)
    return sc
