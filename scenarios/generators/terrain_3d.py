"""Generator of ``terrain_3d.jsonl`` (version 3): balls, crates and pills rolling over a heightfield.

Expectations are per triangle, by brute force over the heightfield's
triangles, built here from the format's text (cell (i, j): triangles
2 (i (columns - 1) + j) and that plus 1): a ball against a triangle by the
closed-form closest point of the triangle to its centre (Ericson, RTCD
5.1.5), a crate or pill against a triangle by python-fcl (a one-triangle
``BVHModel`` each). No code is shared with collideworld. ``expect_contacts``
gives the normal and depth of a ball's contact only where the closest point
lies inside the triangle's face (then the normal is the face normal and the
depth is the radius less the centre's height over the face plane); every
frame is nudged until each triangle is clear of touching by ``AMBIGUITY``.
"""

from __future__ import annotations

import math

import numpy as np

from .common import AMBIGUITY, canon_pair, fx, id_key, nudge

ROWS, COLS, CELL = 8, 14, 1.0


def _heights():
    return [[fx(0.6 * math.sin(0.6 * j + 0.3) * math.cos(0.45 * i + 0.2), 3) for j in range(COLS)]
            for i in range(ROWS)]


def _triangles(h):
    out = []
    for i in range(ROWS - 1):
        for j in range(COLS - 1):
            p = [[(jj * CELL, ii * CELL, h[ii][jj]) for jj in (j, j + 1)] for ii in (i, i + 1)]
            out.append([p[0][0], p[0][1], p[1][1]])
            out.append([p[0][0], p[1][1], p[1][0]])
    return np.array(out, dtype=float)


def _closest(p, a, b, c):
    """Closest point of triangle abc to p and whether it lies inside the face (Ericson, RTCD 5.1.5)."""
    ab, ac, ap = b - a, c - a, p - a
    d1, d2 = ab @ ap, ac @ ap
    if d1 <= 0 and d2 <= 0:
        return a, False
    bp = p - b
    d3, d4 = ab @ bp, ac @ bp
    if d3 >= 0 and d4 <= d3:
        return b, False
    vc = d1 * d4 - d3 * d2
    if vc <= 0 and d1 >= 0 and d3 <= 0:
        return a + d1 / (d1 - d3) * ab, False
    cp = p - c
    d5, d6 = ab @ cp, ac @ cp
    if d6 >= 0 and d5 <= d6:
        return c, False
    vb = d5 * d2 - d1 * d6
    if vb <= 0 and d2 >= 0 and d6 <= 0:
        return a + d2 / (d2 - d6) * ac, False
    va = d3 * d6 - d5 * d4
    if va <= 0 and (d4 - d3) >= 0 and (d5 - d6) >= 0:
        return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b), False
    denom = 1.0 / (va + vb + vc)
    inside = min(va, vb, vc) * denom > 1e-6
    return a + ab * (vb * denom) + ac * (vc * denom), inside


def _fcl_gap(tri, kind, size, pos, quat):
    import fcl

    m = fcl.BVHModel()
    m.beginModel(3, 1)
    m.addSubModel(np.asarray(tri, dtype=float), np.array([[0, 1, 2]]))
    m.endModel()
    geom = fcl.Box(*(2 * np.array(size))) if kind == "box" else fcl.Capsule(size[0], 2 * size[1])
    a = fcl.CollisionObject(m, fcl.Transform())
    b = fcl.CollisionObject(geom, fcl.Transform(np.array(quat, dtype=float), np.array(pos, dtype=float)))
    hit = fcl.collide(a, b, fcl.CollisionRequest(), fcl.CollisionResult()) > 0
    gap = fcl.distance(a, b, fcl.DistanceRequest(), fcl.DistanceResult())
    return hit, gap


def _surface_z(h, x, y):
    """Height of the heightfield surface at (x, y), on the triangle holding it."""
    j, i = min(int(x // CELL), COLS - 2), min(int(y // CELL), ROWS - 2)
    u, v = x / CELL - j, y / CELL - i
    z00, z01, z10, z11 = h[i][j], h[i][j + 1], h[i + 1][j], h[i + 1][j + 1]
    if u >= v:  # the first triangle: (i, j)-(i, j+1)-(i+1, j+1)
        return z00 + u * (z01 - z00) + v * (z11 - z01)
    return z00 + v * (z10 - z00) + u * (z11 - z10)


class _Terrain:
    def __init__(self):
        self.filename = "terrain_3d.jsonl"
        self.header = {"collideworld_scenario": 3, "dim": 3, "name": "terrain-3d",
                       "description": ("A static heightfield (8 x 14 heights, rolling hills) with balls, crates "
                                       "and pills moving across it in three lanes, each dipping into the "
                                       "surface and lifting clear of it in turn. expect lists the touching "
                                       "body pairs; expect_contacts gives, per touching triangle (parts), the "
                                       "face normal and depth of each ball whose closest point lies inside a "
                                       "triangle's face."),
                       "tolerance": 1e-6,
                       "_oracle": "balls: closed-form closest point on each triangle; crates and pills: python-fcl "
                                  "per triangle; triangles built from the format's numbering"}
        self.frames, self.history, self.nudges = [], [], 0

    def render(self):
        import json

        dumps = lambda o: json.dumps(o, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))  # noqa: E731
        return "\n".join([dumps(self.header)] + [dumps(f) for f in self.frames]) + "\n"


def story_terrain_3d():
    sc = _Terrain()
    h = _heights()
    tris = _triangles(h)
    movers = [("ball_a", "sphere", [0.4], 1.5), ("crate", "box", [0.3, 0.3, 0.3], 3.5),
              ("pill", "capsule", [0.25, 0.3], 5.5), ("ball_b", "sphere", [0.3], 6.5)]
    shapes = {"sphere": lambda s: {"type": "sphere", "radius": s[0]},
              "box": lambda s: {"type": "box", "half_extents": list(s)},
              "capsule": lambda s: {"type": "capsule", "points": [[0.0, 0.0, -s[1]], [0.0, 0.0, s[1]]],
                                    "radius": s[0]}}  # upright, as fcl's Capsule (local z)
    reach = {"sphere": lambda s: s[0], "box": lambda s: s[2], "capsule": lambda s: s[0] + s[1]}
    frames = 24
    for k in range(frames):
        for attempt in range(40):
            entries, expect, details, clear = [], [], [], True
            for m, (bid, kind, size, lane) in enumerate(movers):
                x = fx(1.2 + 0.45 * k + 0.37 * m + nudge(attempt, 0.011))
                y = fx(lane + 0.2 * math.sin(0.5 * k + m))
                sink = 0.06 if (k + m) % 3 else -0.08  # into the surface, or clear above it
                z = fx(_surface_z(h, x, y) + reach[kind](size) - sink)
                pos = [x, y, z]
                entries.append((bid, kind, size, pos))
                touching = []
                for t, tri in enumerate(tris):
                    if kind == "sphere":
                        q, inside = _closest(np.array(pos), *tri)
                        gap = float(np.linalg.norm(np.array(pos) - q)) - size[0]
                        hit = gap <= 0
                    else:
                        if np.min(tri[:, 2]) > z + 1.0 or np.max(np.abs(tri[:, :2] - pos[:2])) > 3.0:
                            continue
                        hit, gap = _fcl_gap(tri, kind, size, pos, [1.0, 0.0, 0.0, 0.0])
                        inside = False
                        if hit and gap > AMBIGUITY:
                            gap = 0.0  # fcl's distance of an overlap is not a depth
                    if abs(gap) < AMBIGUITY * 10 and not (kind != "sphere" and hit):
                        clear = False
                    if hit:
                        touching.append(t)
                        if kind == "sphere" and inside:
                            n = np.cross(tri[1] - tri[0], tri[2] - tri[0])
                            n /= np.linalg.norm(n)
                            if n @ (np.array(pos) - tri[0]) < 0:
                                n = -n
                            depth = size[0] - float(n @ (np.array(pos) - tri[0]))
                            if canon_pair("terrain", bid)[0] != "terrain":
                                n = -n  # from the first body of the pair (the ball) towards the terrain
                            details.append({"pair": list(canon_pair("terrain", bid)),
                                            "normal": [fx(v, 12) for v in n], "depth": fx(depth, 12),
                                            "parts": [t, -1] if canon_pair("terrain", bid)[0] == "terrain"
                                            else [-1, t]})
                if touching:
                    expect.append(list(canon_pair("terrain", bid)))
            if clear:
                break
            sc.nudges += 1
        else:
            raise AssertionError(f"terrain_3d: frame {k + 2} stays ambiguous")
        frame = {}
        if k == 0:
            frame["add"] = [{"id": "terrain", "shape": {"type": "heightfield", "heights": h, "cell": [CELL, CELL]},
                             "position": [0.0, 0.0, 0.0], "static": True}]
            frame["add"] += [{"id": bid, "shape": shapes[kind](size), "position": pos}
                             for bid, kind, size, pos in entries]
        else:
            frame["move"] = [{"id": bid, "position": pos} for bid, kind, size, pos in entries]
        expect.sort(key=lambda p: (id_key(p[0]), id_key(p[1])))
        frame["expect"] = expect
        if details:
            frame["expect_contacts"] = details
        sc.frames.append(frame)
        sc.history.append(expect)
    return sc
