"""Generator of ``compound_2d.jsonl`` (format version 2): compound bodies in 2D.

A car (a box body on four wheel circles) drives over a flat ground (a
half-plane), sinks into it, bumps a crate and a concave wall; an RTS squad
(one body of three circles) walks into a building and into another squad.
Each compound body is one id; each frame's ``expect`` lists the body pairs in
contact and ``expect_contacts`` gives one entry per touching pair of parts
(``parts``: indices into the compounds' parts, -1 for a simple shape) where a
closed form exists: circle against half-plane (depth ``offset - (n.c - r)``)
and circle against circle (depth ``r1 + r2 - |c2 - c1|``).

Every expectation is computed here, part by part, with shapely on the parts
posed in the world (a circle as its centre and radius, a box or polygon as an
exact shapely polygon), never with collideworld. Placements whose signed
separation is within ``AMBIGUITY`` of zero are rejected by an assertion (the
numbers are chosen so none is).
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry import Point
from shapely.geometry import Polygon as SPolygon

from .common import AMBIGUITY, Scenario, body, box2, circle, fx, halfplane, l_shape, mv, polygon, rot2

WHEEL_R = 0.4


def compound(parts):
    """A compound shape: ``parts`` a list of (shape, [x, y]) or (shape, [x, y], angle)."""
    out = []
    for p in parts:
        entry = {"shape": p[0], "position": list(p[1])}
        if len(p) > 2:
            entry["angle"] = p[2]
        out.append(entry)
    return {"type": "compound", "parts": out}


CAR = compound([(box2(2.0, 0.5), [0.0, 0.9])]
               + [(circle(WHEEL_R), [x, WHEEL_R]) for x in (-1.5, -0.5, 0.5, 1.5)])
SQUAD = compound([(circle(0.5), [0.0, 0.0]), (circle(0.5), [1.2, 0.0]), (circle(0.5), [0.6, 1.0])])


def _pieces(b):
    """The posed parts of a body: a list of (part index, kind, geometry) in world coordinates.

    kind is "half" (normal, offset), "circle" (centre, radius) or "poly"
    (a shapely polygon); a simple body is one part with index -1.
    """
    shape = b["shape"]
    if shape["type"] == "halfplane":
        n = np.array(shape["normal"], dtype=float)
        length = math.hypot(*n)
        return [(-1, "half", (n / length, shape["offset"] / length))]
    pos = np.array(b["position"], dtype=float)
    angle = b.get("angle", 0.0)
    parts = ([(k, p["shape"], p["position"], p.get("angle", 0.0)) for k, p in enumerate(shape["parts"])]
             if shape["type"] == "compound" else [(-1, shape, [0.0, 0.0], 0.0)])
    out = []
    for k, s, lp, la in parts:
        centre = rot2(angle) @ np.array(lp, dtype=float) + pos
        if s["type"] == "circle":
            out.append((k, "circle", (centre, float(s["radius"]))))
            continue
        if s["type"] == "box":
            hx, hy = s["half_extents"]
            local = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]], dtype=float)
        else:
            local = np.array(s["vertices"], dtype=float)
        out.append((k, "poly", (SPolygon(local @ rot2(angle + la).T + centre), None)))
    return out


def _separation(pa, pb):
    """Signed separation of two posed parts (<= 0: in contact), and a closed-form (normal, depth) or None."""
    (_, ka, ga), (_, kb, gb) = pa, pb
    if kb == "half":
        s, got = _separation(pb, pa)
        return s, None if got is None else (-got[0], got[1])
    if ka == "half":
        n, d = ga
        if kb == "circle":
            s = float(n @ gb[0]) - gb[1] - d
            return s, (n, -s)
        s = min(float(n @ np.array(v)) for v in gb[0].exterior.coords) - d
        return s, None
    if ka == "circle" and kb == "circle":
        dist = shapely.distance(Point(ga[0]), Point(gb[0]))
        s = dist - ga[1] - gb[1]
        return s, ((gb[0] - ga[0]) / dist, -s)
    if kb == "circle":
        s, _ = _separation(pb, pa)
        return s, None
    if ka == "circle":
        dist = shapely.distance(Point(ga[0]), gb[0])
        return (dist - ga[1] if dist > 0 else -ga[1]), None
    if shapely.intersects(ga[0], gb[0]):
        # overlapping for sure when the polygons still meet shrunk by AMBIGUITY; else too close to call
        deep = shapely.intersects(ga[0].buffer(-AMBIGUITY, join_style="mitre"),
                                  gb[0].buffer(-AMBIGUITY, join_style="mitre"))
        return (-1.0 if deep else 0.0), None
    return shapely.distance(ga[0], gb[0]), None


def _static(b):
    return b.get("static", False) or b["shape"]["type"] == "halfplane"


def _frame(sc, bodies, frame):
    """Fill ``frame``'s expect and expect_contacts from ``bodies`` (id -> body), part pair by part pair."""
    ids = sorted(bodies)
    pairs, rows = [], []
    for x, ia in enumerate(ids):
        for ib in ids[x + 1:]:
            a, b = bodies[ia], bodies[ib]
            if _static(a) and _static(b):
                continue
            hit = False
            for pa in _pieces(a):
                for pb in _pieces(b):
                    s, got = _separation(pa, pb)
                    assert abs(s) > AMBIGUITY, f"{sc.filename}: {ia}/{ib} parts {pa[0]}/{pb[0]}: separation {s}"
                    if s > 0:
                        continue
                    hit = True
                    if got is not None:
                        n, depth = got
                        rows.append({"pair": [ia, ib], "normal": [fx(v, 12) for v in n], "depth": fx(depth, 12),
                                     "parts": [pa[0], pb[0]]})
            if hit:
                pairs.append([ia, ib])
    frame["expect"] = pairs
    if rows:
        frame["expect_contacts"] = rows
    sc.frames.append(frame)
    sc.history.append(pairs)


def story_compound_2d():
    sc = Scenario(
        "compound_2d.jsonl", 2, "compound-2d",
        "Compound bodies in 2D: a car (a box on four wheel circles) on a half-plane ground, "
        "against a crate and a concave L wall, and RTS squads of three circles against a "
        "building and each other. Contacts are per pair of parts.",
        version=2,
        comment="expectations computed part by part with shapely and closed forms (generators/compound_2d.py)",
    )
    bodies: dict[str, dict] = {}

    def step(add=(), move=(), remove=(), comment=None):
        for bid in remove:
            del bodies[bid]
        for b in add:
            bodies[b["id"]] = dict(b)
        for m in move:
            bodies[m["id"]] = dict(bodies[m["id"]], **{k: v for k, v in m.items() if k != "id"})
        frame = {} if comment is None else {"_comment": comment}
        if remove:
            frame["remove"] = list(remove)
        if add:
            frame["add"] = list(add)
        if move:
            frame["move"] = list(move)
        _frame(sc, bodies, frame)

    ground = body("ground", halfplane([0, 1], 0.0))
    step(add=[ground, body("car", CAR, [0.0, 0.25], angle=0.0),
              body("crate", box2(0.5, 0.5), [5.0, 0.5], static=True),
              body("wall", polygon(l_shape(2, 3, 0.5)), [9.0, 0.0], static=True)],
         comment="the car floats 0.25 above the ground")
    step(move=[mv("car", [0.0, -0.125])], comment="the car sinks 0.125 into the ground: four wheel contacts")
    step(move=[mv("car", [2.75, -0.125])],
         comment="its front wheel (part 4) reaches the crate, its body box overlaps it")
    step(move=[mv("car", [2.75, 0.25], angle=0.2)],
         comment="tilted by 0.2 rad: the rear wheel (part 1) in the ground, the front wheel against the crate")
    step(move=[mv("car", [7.25, 0.625], angle=0.0)],
         comment="lifted between the crate and the L wall: its body box overlaps both, the wheels clear the ground")
    step(remove=["car", "crate", "wall"],
         add=[body("house", box2(2.0, 1.5), [0.0, 1.5], static=True),
              body("squad1", SQUAD, [-4.0, 0.75]), body("squad2", SQUAD, [4.0, 0.75], angle=math.pi / 2)],
         comment="RTS squads of three circles beside a building, apart")
    step(move=[mv("squad1", [-3.2, 0.75])], comment="squad1's second unit (part 1) walks into the house")
    step(move=[mv("squad2", [1.9, 3.3])], comment="squad2's first unit (part 0) on the house's roof")
    step(move=[mv("squad1", [-0.6, 4.2]), mv("squad2", [1.3, 3.9])],
         comment="the squads meet above the house: several circle-circle part contacts")
    step(move=[mv("squad1", [-10.0, 0.75]), mv("squad2", [10.0, 0.75])], comment="apart again: every contact ends")
    return sc
