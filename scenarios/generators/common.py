"""Helpers shared by every scenario generator: rounding, shape and body
dictionaries, the independent contact tests (shapely in 2D; exact arithmetic,
closed forms and a linear program in 3D) and :class:`Scenario`, the world
model that writes a file's lines and computes each frame's ``expect``.

Nothing here imports collideworld: the expectations must come from methods
that share no code with it.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import shapely
from scipy.optimize import linprog
from shapely.geometry import LineString, Point, Polygon

from .segments import (
    FCL_CHECK_MARGIN,
    Polytope,
    capsule_polytope,
    closest_points_segments,
    fcl_collide,
    gap_from_dist2,
    point_segment_dist2_exact,
    polytope_polytope_lp,
    segment_segment_dist2_exact,
    sphere_polytope,
)

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


def capsule(p0, p1, r):
    """Version 2: all points within ``r`` of the segment p0-p1 (2D or 3D)."""
    return {"type": "capsule", "points": [list(p0), list(p1)], "radius": r}


def segment(p0, p1):
    """Version 2: the segment p0-p1 (a capsule of radius 0)."""
    return {"type": "segment", "points": [list(p0), list(p1)]}


def convex_hull(points):
    """Version 2, 3D: the convex hull of the points."""
    return {"type": "convex_hull", "points": [list(p) for p in points]}


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
                 "normal", "offset", "_eroded", "R", "half", "p0", "p1", "core")

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
        if t in ("capsule", "segment"):
            # the core segment's end points in the world; a segment is a capsule of radius 0
            w = np.array(shape["points"], dtype=float) @ rot2(b["angle"]).T + c
            self.kind = "capsule"
            self.p0, self.p1 = w[0], w[1]
            self.radius = float(shape.get("radius", 0.0))
            self.core = LineString(w) if not np.array_equal(w[0], w[1]) else Point(w[0])
            lo, hi = w.min(axis=0) - self.radius, w.max(axis=0) + self.radius
            self.aabb = (lo[0], lo[1], hi[0], hi[1])
            return
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
        elif gb.kind == "capsule":
            s = min(float(n @ gb.p0), float(n @ gb.p1)) - gb.radius - d
        else:
            s = float(np.min(gb.verts @ n)) - d
        return s <= 0, abs(s)
    gap = aabb_gap(ga.aabb, gb.aabb)
    if gap > AMBIGUITY:
        return False, gap  # the true distance is at least the AABB gap
    if "capsule" in (ga.kind, gb.kind):
        return eval2_capsule(ga, gb)
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


def eval2_capsule(ga: Geom2, gb: Geom2):
    """A capsule or segment against a circle, a capsule or a polygon/box.

    Segment distances are exact (``segments.py``) where both sides are
    segments or points; shapely's distance to the core decides against a
    polygon (never a buffered polygon), as for circles."""
    if ga.kind != "capsule":
        ga, gb = gb, ga
    if gb.kind == "capsule":
        dist2 = segment_segment_dist2_exact(ga.p0, ga.p1, gb.p0, gb.p1)
        # shapely agrees with the exact distance (a check on both)
        assert abs(shapely.distance(ga.core, gb.core) - math.sqrt(dist2)) <= 1e-9, (ga.core, gb.core)
        return gap_from_dist2(dist2, ga.radius + gb.radius)
    if gb.kind == "circle":
        dist2 = point_segment_dist2_exact(*(tuple(Fraction(float(v)) for v in p)
                                            for p in (gb.center, ga.p0, ga.p1)))
        return gap_from_dist2(dist2, ga.radius + gb.radius)
    dist = shapely.distance(ga.core, gb.poly)
    if dist == 0.0:
        if ga.radius > 0:  # the core reaches the polygon: a full radius deep
            return True, ga.radius
        robust = shapely.intersects(ga.core, gb.eroded())
        return True, (1.0 if robust else 0.0)
    s = dist - ga.radius
    return s <= 0, abs(s)


def _round_end_mtd(ia, ga, ib, gb):
    """MTD of a capsule/segment/circle pair whose cores are apart: along the closest points."""
    def core(g):
        return (g.p0, g.p1) if g.kind == "capsule" else (g.center, g.center)
    qa, qb, dist = closest_points_segments(*core(ga), *core(gb))
    if dist < 1e-6:
        return None  # the cores meet: no simple closed form
    return ia, ib, (qb - qa) / dist, ga.radius + gb.radius - dist


def detail2(ia, ga: Geom2, ib, gb: Geom2):
    """Exact MTD (a, b, normal, depth) for simple convex pairs, else None."""
    if gb.kind == "half" and ga.kind != "half":
        ia, ga, ib, gb = ib, gb, ia, ga
    if ga.kind == "half":
        n, d = ga.normal, ga.offset
        if gb.kind == "capsule":
            depth = d - (min(float(n @ gb.p0), float(n @ gb.p1)) - gb.radius)
        elif gb.kind == "circle":
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
    if {ga.kind, gb.kind} <= {"circle", "capsule"}:
        return _round_end_mtd(ia, ga, ib, gb)
    if "capsule" in (ga.kind, gb.kind):
        return None
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
                 "offset", "exact", "p0", "p1", "_poly")

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
        self._poly = None
        if t in ("capsule", "segment"):
            w = np.array(shape["points"], dtype=float) @ quat_matrix(b["quaternion"]).T + c
            self.kind = "capsule"
            self.p0, self.p1 = w[0], w[1]
            self.radius = float(shape.get("radius", 0.0))
            self.aabb = np.concatenate([w.min(axis=0) - self.radius, w.max(axis=0) + self.radius])
            return
        if t == "convex_hull":
            self.kind = "hull"
            self.corners = np.array(shape["points"], dtype=float) @ quat_matrix(b["quaternion"]).T + c
            self.aabb = np.concatenate([self.corners.min(axis=0), self.corners.max(axis=0)])
            return
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

    @property
    def poly(self):
        """A box or hull as a :class:`~generators.segments.Polytope` (planes by brute force)."""
        if self._poly is None:
            self._poly = Polytope(self.corners)
        return self._poly


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
        elif gb.kind == "capsule":
            s = min(float(n @ gb.p0), float(n @ gb.p1)) - gb.radius - d
        else:
            s = float(np.min(gb.corners @ n)) - d
        return s <= 0, abs(s)
    gap = aabb_gap3(ga.aabb, gb.aabb)
    if gap > AMBIGUITY:
        return False, gap
    if {"capsule", "hull"} & {ga.kind, gb.kind}:
        hit, margin = eval3_v2(ga, gb)
        if margin > FCL_CHECK_MARGIN and fcl_collide(ga, gb) != hit:
            raise AssertionError(f"python-fcl disagrees ({ga.kind}-{gb.kind}, margin {margin:g})")
        return hit, margin
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


def eval3_v2(ga: Geom3, gb: Geom3):
    """A capsule, segment or hull against a sphere, box, capsule or hull (see ``segments.py``)."""
    order = {"capsule": 0, "sphere": 1, "box": 2, "hull": 3}
    if order[ga.kind] > order[gb.kind]:
        ga, gb = gb, ga
    if ga.kind == "capsule":
        if gb.kind == "capsule":  # Ericson 5.1.9 closest points of the cores
            s = closest_points_segments(ga.p0, ga.p1, gb.p0, gb.p1)[2] - ga.radius - gb.radius
            return s <= 0, abs(s)
        if gb.kind == "sphere":
            dist2 = point_segment_dist2_exact(*(tuple(Fraction(float(v)) for v in p)
                                                for p in (gb.center, ga.p0, ga.p1)))
            return gap_from_dist2(dist2, ga.radius + gb.radius)
        return capsule_polytope(ga.p0, ga.p1, ga.radius, gb.poly)
    if ga.kind == "sphere":
        return sphere_polytope(ga.center, ga.radius, gb.poly)
    return polytope_polytope_lp(ga.poly, gb.poly)


def detail3(ia, ga: Geom3, ib, gb: Geom3):
    if gb.kind == "plane" and ga.kind != "plane":
        ia, ga, ib, gb = ib, gb, ia, ga
    if ga.kind == "plane":
        n, d = ga.normal, ga.offset
        if gb.kind == "capsule":
            depth = d - (min(float(n @ gb.p0), float(n @ gb.p1)) - gb.radius)
        elif gb.kind == "sphere":
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
    if {ga.kind, gb.kind} <= {"sphere", "capsule"}:
        return _round_end_mtd(ia, ga, ib, gb)
    if "capsule" in (ga.kind, gb.kind) or "hull" in (ga.kind, gb.kind):
        return None
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

    def __init__(self, filename, dim, name, description, version=1, **comments):
        self.filename = filename
        self.dim = dim
        self.header = {"collideworld_scenario": version, "dim": dim, "name": name,
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

    def step(self, remove=(), add=(), move=(), *, comment=None, exact=False, details=None, set_=(),
             extra=None):
        """Apply one frame; raise Ambiguous (nothing committed) if a pair is unclear.

        ``exact``: the frame touches exactly on purpose, so a margin of exactly
        0 is accepted (anything else still has to be clear of AMBIGUITY).
        ``details``: None, "all" (every pair with a closed-form MTD) or a list of
        pairs to give ``expect_contacts`` for.
        ``set_`` (version 2): in-place changes, applied after ``add``, before ``move``.
        ``extra`` (version 2): a function of the bodies after the frame's changes
        returning more expectation keys (``expect_distance``, ``expect_impact``).
        """
        new = dict(self.bodies)
        for bid in remove:
            assert bid in new, f"{self.filename}: remove of unknown id {bid!r}"
            del new[bid]
        for b in add:
            assert b["id"] not in new, f"{self.filename}: duplicate id {b['id']!r}"
            new[b["id"]] = self._normalise(b)
        for c in set_:
            assert self.header["collideworld_scenario"] >= 2, f"{self.filename}: set needs version 2"
            assert c["id"] in new, f"{self.filename}: set of unknown id {c['id']!r}"
            nb = dict(new[c["id"]])
            nb.update({k: v for k, v in c.items() if k != "id"})
            new[c["id"]] = nb
        for m in move:
            assert m["id"] in new, f"{self.filename}: move of unknown id {m['id']!r}"
            old = new[m["id"]]
            if old["shape"]["type"] in ("halfplane", "plane"):  # version 2: by normal and offset
                assert self.header["collideworld_scenario"] >= 2 and set(m) <= {"id", "normal", "offset"}, m
                nb = dict(old, shape=dict(old["shape"], **{k: v for k, v in m.items() if k != "id"}))
                new[m["id"]] = nb
                continue
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
        if set_:
            frame["set"] = list(set_)
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
        if extra is not None:
            assert self.header["collideworld_scenario"] >= 2, f"{self.filename}: {extra} needs version 2"
            frame.update(extra(new))
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
