"""Generator of ``level_2d.jsonl`` (version 3): rounded shapes sliding along a level outline of chains.

The level is two static ``chain`` bodies: the ground (flat runs whose inner
vertices lie on one line, a ramp up, a plateau, a ramp down) and a floating
platform (a ``loop``). A rounded box slides along the flat ground across its
inner vertices, alternately 0.01 into it and 0.03 above it; a rounded
trapezoid rides up the ramp and over the plateau tilted to the slope; a
rounded box spins through the platform loop (touching its walls, then
inside it and touching nothing: a chain is a curve, not a solid); a ball
rolls along the ground.

Every pair is decided with shapely, a rounded shape being its core (the
polygon without ``radius``) buffered by its radius: it touches a segment of
a chain when ``shapely.distance(core, segment) <= radius``, another rounded
shape when the distance of the cores is at most the sum of the radii. Frames
are nudged until every distance is more than ``AMBIGUITY`` from its limit.

``expect_contacts`` (per touching segment, ``parts`` the segment's index)
are given where the core is apart from the segment and the segment's
closest point to it lies inside the segment (not at an end) or the shortest
direction is the segment's normal: then the normal is along the closest
points (the segment's face normal on flat runs, which is what a sliding
box must get at every inner vertex) and the depth is the radius less the
distance.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry import LineString, Point, Polygon
from shapely.ops import nearest_points

from .common import AMBIGUITY, canon_pair, dumps, fx, id_key, nudge

GROUND = [(-12.0, 2.0), (-10.0, 0.0), (-6.0, 0.0), (-3.0, 0.0), (0.0, 0.0), (2.0, 1.0), (5.0, 1.0),
          (7.0, 0.0), (12.0, 0.0), (14.0, 2.0)]
PLATFORM = [(-2.0, 3.0), (1.0, 3.0), (1.0, 4.4), (-2.0, 4.4)]  # a loop


def _segments(points, loop):
    pts = list(points) + ([points[0]] if loop else [])
    return [LineString([pts[k], pts[k + 1]]) for k in range(len(pts) - 1)]


def _posed(core, pos, angle):
    c, s = math.cos(angle), math.sin(angle)
    return Polygon([(pos[0] + c * x - s * y, pos[1] + s * x + c * y) for x, y in core])


def _on_ground(x, lift):
    """A point on the ground line at x and the slope angle there, lifted by ``lift`` along its normal."""
    for (x0, y0), (x1, y1) in zip(GROUND, GROUND[1:], strict=False):
        if x0 <= x <= x1:
            th = math.atan2(y1 - y0, x1 - x0)
            y = y0 + (y1 - y0) * (x - x0) / (x1 - x0)
            return (x - math.sin(th) * lift, y + math.cos(th) * lift), th
    raise ValueError(x)


class _Level:
    def __init__(self):
        self.filename = "level_2d.jsonl"
        self.header = {"collideworld_scenario": 3, "dim": 2, "name": "level-2d",
                       "description": ("A 2D level outline as chains (a ground with collinear inner vertices, "
                                       "ramps and a plateau; a floating platform loop) with a rounded box "
                                       "sliding along the flat ground, a rounded trapezoid riding up the ramp, "
                                       "a rounded box spinning through the platform loop (inside it it touches "
                                       "nothing) and a ball. expect lists the touching pairs; expect_contacts "
                                       "gives per touching segment (parts) the normal and depth where the "
                                       "closest points are unique."),
                       "tolerance": 1e-6,
                       "_oracle": "shapely: a rounded shape is its core buffered by its radius; touching a "
                                  "segment when shapely.distance(core, segment) <= radius"}
        self.frames, self.history, self.nudges = [], [], 0

    def render(self):
        return "\n".join([dumps(self.header)] + [dumps(f) for f in self.frames]) + "\n"


MOVERS = {  # id: (core vertices, radius) -- a ball is a one-point core
    "crate": ([(-0.5, -0.3), (0.5, -0.3), (0.5, 0.3), (-0.5, 0.3)], 0.1),
    "sled": ([(-0.6, -0.25), (0.6, -0.25), (0.4, 0.25), (-0.4, 0.25)], 0.12),
    "spinner": ([(-0.3, -0.3), (0.3, -0.3), (0.3, 0.3), (-0.3, 0.3)], 0.2),
    "ball": ([(0.0, 0.0)], 0.35),
}
FRAMES = 30


def _poses(k, attempt):
    """Each mover's (position, angle) in frame k (0-based), nudged along its path on a retry."""
    t = k / (FRAMES - 1)
    jig = nudge(attempt, 0.0017)
    lift = [-0.01, 0.03, -0.01][k % 3]
    crate_x = -9.4 + 9.0 * t + jig
    (cx, cy), _ = _on_ground(crate_x, 0.0)
    crate = ((cx, cy + 0.3 + 0.1 + lift), 0.0)
    sled_x = -1.5 + 8.0 * t + jig
    (sx, sy), th = _on_ground(sled_x, 0.25 + 0.12 + [-0.015, 0.04][k % 2])
    sled = ((sx, sy), th)
    spin_x = -2.9 + 4.8 * t + jig
    spinner = ((spin_x, 3.7 + 0.05 * math.sin(3 * t)), 2.1 * t)
    ball_x = 8.0 + 3.0 * t + jig
    (bx, by), _ = _on_ground(ball_x, 0.35 + [0.02, -0.02][k % 2])
    ball = ((bx, by), 0.0)
    out = {}
    for bid, (pos, angle) in (("crate", crate), ("sled", sled), ("spinner", spinner), ("ball", ball)):
        out[bid] = ([fx(pos[0], 6), fx(pos[1], 6)], fx(angle, 6))
    return out


def _decide(poses, chains):
    """Touching pairs, contact details, and whether every distance is clear of its limit."""
    posed = {}
    for bid, (core, r) in MOVERS.items():
        pos, angle = poses[bid]
        geom = Point(pos) if len(core) == 1 else _posed(core, pos, angle)
        posed[bid] = (geom, r)
    pairs, details, clear = [], [], True
    for cid, segs in chains.items():
        for bid, (geom, r) in posed.items():
            for k, seg in enumerate(segs):
                d = float(shapely.distance(geom, seg))
                if abs(d - r) <= AMBIGUITY:
                    clear = False
                if d > r:
                    continue
                pair = canon_pair(bid, cid)
                pairs.append(pair)
                if d <= 1e-9:
                    continue
                pa, pb = nearest_points(geom, seg)
                v = np.array([pb.x - pa.x, pb.y - pa.y]) / d
                (x0, y0), (x1, y1) = seg.coords
                face = np.array([y1 - y0, x0 - x1]) / math.hypot(x1 - x0, y1 - y0)
                at_end = min(math.hypot(pb.x - x0, pb.y - y0), math.hypot(pb.x - x1, pb.y - y1)) <= 1e-9
                if at_end and abs(abs(float(v @ face)) - 1.0) > 1e-12:
                    continue  # the closest point is a segment's end, off its normal: the rule leaves it open
                normal = v if pair[0] == bid else -v
                details.append({"pair": list(pair), "normal": [fx(c, 12) for c in normal],
                                "depth": fx(r - d, 12), "parts": [-1, k] if pair[0] == bid else [k, -1]})
    ids = list(posed)
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            d = float(shapely.distance(posed[a][0], posed[b][0]))
            lim = posed[a][1] + posed[b][1]
            if abs(d - lim) <= AMBIGUITY:
                clear = False
            if d <= lim:
                pairs.append(canon_pair(a, b))
    pairs = sorted(set(pairs), key=lambda p: (id_key(p[0]), id_key(p[1])))
    details.sort(key=lambda e: (id_key(e["pair"][0]), id_key(e["pair"][1]), e["parts"]))
    return [list(p) for p in pairs], details, clear


def story_level_2d():
    sc = _Level()
    chains = {"ground": _segments(GROUND, False), "platform": _segments(PLATFORM, True)}
    for k in range(FRAMES):
        for attempt in range(40):
            poses = _poses(k, attempt)
            expect, details, clear = _decide(poses, chains)
            if clear:
                break
            sc.nudges += 1
        else:
            raise AssertionError(f"level_2d: frame {k + 1} stays ambiguous")
        frame = {}
        shapes = {bid: ({"type": "circle", "radius": r} if len(core) == 1 else
                        {"type": "box", "half_extents": [core[1][0], core[2][1]], "radius": r}
                        if len(core) == 4 and core[0][0] == core[3][0] and core[1][0] == core[2][0] else
                        {"type": "polygon", "vertices": [list(v) for v in core], "radius": r})
                  for bid, (core, r) in MOVERS.items()}
        if k == 0:
            frame["add"] = [
                {"id": "ground", "shape": {"type": "chain", "points": [list(p) for p in GROUND]},
                 "position": [0.0, 0.0], "static": True},
                {"id": "platform", "shape": {"type": "chain", "points": [list(p) for p in PLATFORM], "loop": True},
                 "position": [0.0, 0.0], "static": True},
            ]
            frame["add"] += [{"id": bid, "shape": shapes[bid], "position": pos, "angle": angle}
                             for bid, (pos, angle) in poses.items()]
        else:
            frame["move"] = [{"id": bid, "position": pos, "angle": angle} for bid, (pos, angle) in poses.items()]
        frame["expect"] = expect
        if details:
            frame["expect_contacts"] = details
        sc.frames.append(frame)
        sc.history.append(expect)
    return sc
