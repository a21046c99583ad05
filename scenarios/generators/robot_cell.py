"""Generator of ``robot_cell.jsonl`` (version 3): a capsule arm over a triangle-mesh table.

A static ``triangle_mesh`` (a table top whose upper face is a 12 x 9 grid of
cells, its sides and bottom, four legs and a fixture block on it: 284
triangles, built here from arrays) and an arm of four capsule links (a
column, upper arm, forearm and a wrist pointing down) whose wrist tip follows
a path through waypoints by closed-form two-link inverse kinematics: down
onto the table top, sliding across the grid's inner edges, into a crate's
top, into the fixture's top, lifting clear in between. Three crates sit on
the table or hover above it; one slides across the grid.

Every pair is decided independently of collideworld:

* link against table: the exact capsule-triangle distance over every
  triangle (segment against triangle: crossing test, end points by the
  closest point on the triangle, edges by Ericson RTCD 5.1.9), compared with
  the radius; python-fcl (``BVHModel`` of the whole mesh against
  ``fcl.Capsule``) must agree, and the generator stops if it does not;
* crate against table, link against crate, crate against crate: python-fcl,
  asked twice, with the crate (or the capsule's radius) shrunk and grown by
  ``MARGIN``; both answers must be the same, so the pair is at least
  ``MARGIN`` from flipping (else the frame is nudged);
* link-link pairs are filtered out by category and mask (joints overlap).

``expect_distance`` gives the signed clearance of the forearm and the wrist
to the table while they are apart: the exact distance above less the
radius, also checked against ``fcl.distance`` within 1e-4 (its GJK
stops about 1e-5 short of the exact value).
"""

from __future__ import annotations

import math

import numpy as np

from .common import canon_pair, dumps, fx, id_key, nudge, quat_matrix, quat_round
from .segments import segment_triangle_dist

#: Every pair is at least this far (shrunk or grown) from changing its answer.
MARGIN = 2e-3

BASE = np.array([0.0, -0.75, 0.0])
SHOULDER_Z = 0.9
L_UPPER, L_FORE, L_WRIST = 0.5, 0.45, 0.15
LINKS = [("column", 0.06), ("upper_arm", 0.05), ("forearm", 0.045), ("wrist", 0.04)]
LINK_CATEGORY = 2
LINK_MASK = 4294967295 & ~LINK_CATEGORY  # links never pair with links: their joints overlap

TOP_Z, TOP_T = 0.75, 0.04
TOP_X, TOP_Y = 0.6, 0.45


def _box_faces(lo, hi, skip_bottom=False):
    """Vertices and triangles of an axis-aligned box's surface (two per face)."""
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    v = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
         (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
    quads = [(4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    if not skip_bottom:
        quads.append((0, 3, 2, 1))
    tris = []
    for a, b, c, d in quads:
        tris += [(a, b, c), (a, c, d)]
    return v, tris


def _table():
    verts, tris = [], []

    def add(vs, ts):
        base = len(verts)
        verts.extend(vs)
        tris.extend(tuple(base + i for i in t) for t in ts)

    nx, ny = 12, 9
    xs = [fx(-TOP_X + 2 * TOP_X * i / nx, 4) for i in range(nx + 1)]
    ys = [fx(-TOP_Y + 2 * TOP_Y * j / ny, 4) for j in range(ny + 1)]
    grid = [(x, y, TOP_Z) for y in ys for x in xs]
    top = []
    for j in range(ny):
        for i in range(nx):
            a, b = j * (nx + 1) + i, j * (nx + 1) + i + 1
            c, d = b + nx + 1, a + nx + 1
            top += [(a, b, c), (a, c, d)]
    add(grid, top)
    lo, hi = (-TOP_X, -TOP_Y, TOP_Z - TOP_T), (TOP_X, TOP_Y, TOP_Z)
    v, t = _box_faces(lo, hi)
    add(v, t[2:])  # its top face is the grid
    for sx in (-1, 1):
        for sy in (-1, 1):
            cx, cy = sx * (TOP_X - 0.08), sy * (TOP_Y - 0.08)
            add(*_box_faces((cx - 0.025, cy - 0.025, 0.0), (cx + 0.025, cy + 0.025, TOP_Z - TOP_T)))
    add(*_box_faces((0.3, 0.0, TOP_Z), (0.45, 0.15, 0.87), skip_bottom=True))  # the fixture
    return np.array(verts, dtype=float), np.array(tris, dtype=np.int64)


def _fcl_mesh(verts, tris):
    import fcl

    m = fcl.BVHModel()
    m.beginModel(len(verts), len(tris))
    m.addSubModel(verts, tris)
    m.endModel()
    return fcl.CollisionObject(m, fcl.Transform())


def _fcl_capsule(p, q, r):
    import fcl

    axis = q - p
    length = float(np.linalg.norm(axis))
    z = np.array([0.0, 0.0, 1.0])
    d = axis / length
    c = float(z @ d)
    if c > 1 - 1e-12:
        rot = np.eye(3)
    elif c < -1 + 1e-12:
        rot = np.diag([1.0, -1.0, -1.0])
    else:
        k = np.cross(z, d)
        s = float(np.linalg.norm(k))
        k /= s
        kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
        rot = np.eye(3) + s * kx + (1 - c) * (kx @ kx)
    return fcl.CollisionObject(fcl.Capsule(r, length), fcl.Transform(rot, (p + q) / 2))


def _fcl_box(half, rot, centre):
    import fcl

    return fcl.CollisionObject(fcl.Box(*(2 * np.asarray(half, dtype=float)).tolist()), fcl.Transform(rot, centre))


def _fcl_hit(a, b):
    import fcl

    return fcl.collide(a, b, fcl.CollisionRequest(), fcl.CollisionResult()) > 0


def _fcl_distance(a, b):
    import fcl

    return fcl.distance(a, b, fcl.DistanceRequest(), fcl.DistanceResult())


def _quat_z_to(d):
    """A unit quaternion [w, x, y, z] turning +z onto the unit vector d (shortest arc)."""
    c = float(d[2])
    axis = np.array([-d[1], d[0], 0.0])
    s = float(np.linalg.norm(axis))
    if s < 1e-12:
        return [1.0, 0.0, 0.0, 0.0] if c > 0 else [0.0, 1.0, 0.0, 0.0]
    half = math.atan2(s, c) / 2
    return quat_round([math.cos(half), *(math.sin(half) * axis / s)])


def _arm(tip):
    """Joint points (column foot, shoulder, elbow, wrist, core end above the tip) for a wrist pointing down."""
    r_wrist = LINKS[3][1]
    core_end = np.array([tip[0], tip[1], tip[2] + r_wrist])
    wrist = core_end + np.array([0.0, 0.0, L_WRIST])
    shoulder = BASE + np.array([0.0, 0.0, SHOULDER_Z])
    dxy = wrist[:2] - shoulder[:2]
    rho, h = float(np.hypot(*dxy)), float(wrist[2] - shoulder[2])
    u = np.array([dxy[0] / rho, dxy[1] / rho, 0.0])
    cos2 = (rho * rho + h * h - L_UPPER ** 2 - L_FORE ** 2) / (2 * L_UPPER * L_FORE)
    q2 = -math.acos(max(-1.0, min(1.0, cos2)))  # elbow up
    q1 = math.atan2(h, rho) - math.atan2(L_FORE * math.sin(q2), L_UPPER + L_FORE * math.cos(q2))
    elbow = shoulder + L_UPPER * (math.cos(q1) * u + np.array([0.0, 0.0, math.sin(q1)]))
    return [BASE.copy(), shoulder, elbow, wrist, core_end]


def _link_body(p, q):
    """Position, quaternion and local core half-length of a link from joint p to joint q (rounded)."""
    d = q - p
    length = fx(float(np.linalg.norm(d)), 6)
    quat = _quat_z_to(d / np.linalg.norm(d))
    pos = [fx(v, 6) for v in (p + q) / 2]
    # the geometry from the rounded numbers, as a reader sees them
    rot = quat_matrix(quat)
    half = np.array([0.0, 0.0, length / 2])
    return pos, quat, length, np.array(pos) - rot @ half, np.array(pos) + rot @ half


WAYPOINTS = [  # the wrist tip's path: (x, y, z), straight lines between them
    (-0.35, -0.25, 1.02), (-0.35, -0.25, 0.742), (-0.08, -0.18, 0.742), (-0.08, -0.18, 0.95),
    (0.15, -0.1, 0.95), (0.15, -0.1, 0.853), (0.15, -0.1, 1.0), (0.36, 0.06, 1.0),
    (0.36, 0.06, 0.862), (0.36, 0.06, 1.04),
]
STEPS = 3  # frames per leg of the path

CRATES = [  # id, half extents, centre, yaw, moving: (x0, x1) across the grid or None
    ("crate_a", (0.06, 0.06, 0.06), (0.15, -0.1, TOP_Z + 0.06 - 0.005), 0.0, None),
    ("crate_b", (0.05, 0.05, 0.05), (-0.3, 0.2, TOP_Z + 0.05 + 0.02), 0.4, None),
    ("crate_c", (0.04, 0.04, 0.04), (-0.45, 0.32, TOP_Z + 0.04 - 0.004), 0.3, (-0.45, 0.2)),
]


class _RobotCell:
    def __init__(self):
        self.filename = "robot_cell.jsonl"
        self.header = {"collideworld_scenario": 3, "dim": 3, "name": "robot-cell",
                       "description": ("A static triangle-mesh table (284 triangles: a gridded top, sides, "
                                       "legs and a fixture block) and an arm of four capsule links whose "
                                       "wrist touches the table top, slides across the grid, dips into a "
                                       "crate and into the fixture; three crates on or above the table, one "
                                       "sliding. expect lists the touching pairs (link-link pairs are "
                                       "filtered out); expect_distance the forearm's and wrist's clearance "
                                       "to the table while apart."),
                       "tolerance": 1e-6,
                       "_oracle": "links against the table: exact capsule-triangle distance over every triangle, "
                                  "checked by python-fcl (BVHModel); crates: python-fcl with the shape shrunk and "
                                  "grown by 2e-3"}
        self.frames, self.history, self.nudges = [], [], 0

    def render(self):
        return "\n".join([dumps(self.header)] + [dumps(f) for f in self.frames]) + "\n"


def _tips():
    out = []
    for (a, b) in zip(WAYPOINTS, WAYPOINTS[1:], strict=False):
        for s in range(STEPS):
            t = s / STEPS
            out.append(tuple(a[i] + (b[i] - a[i]) * t for i in range(3)))
    out.append(WAYPOINTS[-1])
    return out


def _decide(links, crates, verts, tris, table):
    """Pairs in contact, clearances, and whether every pair is clear of flipping by MARGIN."""
    tri_pts = verts[tris]
    pairs, dists, clear = [], [], True
    fcl_caps = {}
    for (lid, r), (p, q) in links:
        lo, hi = np.minimum(p, q), np.maximum(p, q)
        box_gap = np.linalg.norm(np.maximum(0.0, np.maximum(tri_pts.min(1) - hi, lo - tri_pts.max(1))), axis=1)
        best = math.inf
        for t in np.argsort(box_gap, kind="stable"):
            if box_gap[t] > best:  # a triangle's box is no nearer than the triangle: the rest cannot win
                break
            best = min(best, segment_triangle_dist(p, q, *tri_pts[t]))
        gap = best - r
        if abs(gap) <= MARGIN:
            clear = False
        hit = gap <= 0
        if hit != _fcl_hit(table, _fcl_capsule(p, q, r)):
            raise AssertionError(f"robot_cell: python-fcl disagrees on {lid}-table (gap {gap})")
        if hit:
            pairs.append(canon_pair("table", lid))
        elif lid in ("forearm", "wrist"):
            d = _fcl_distance(table, _fcl_capsule(p, q, r))
            if abs(d - gap) > 1e-4:  # fcl's GJK stops at about 1e-5 here; the exact value is written
                raise AssertionError(f"robot_cell: fcl distance {d} != exact {gap} for {lid}-table")
            dists.append({"pair": list(canon_pair("table", lid)), "distance": fx(gap, 9)})
        fcl_caps[lid] = (p, q, r)
    boxes = {}
    for cid, half, centre, rot in crates:
        small = _fcl_box(np.array(half) - MARGIN, rot, centre)
        big = _fcl_box(np.array(half) + MARGIN, rot, centre)
        boxes[cid] = (small, big)
        h_small, h_big = _fcl_hit(table, small), _fcl_hit(table, big)
        clear &= h_small == h_big
        if h_small:
            pairs.append(canon_pair("table", cid))
        for lid, (p, q, r) in fcl_caps.items():
            h_small = _fcl_hit(_fcl_capsule(p, q, r - MARGIN), small)
            h_big = _fcl_hit(_fcl_capsule(p, q, r + MARGIN), big)
            clear &= h_small == h_big
            if h_small:
                pairs.append(canon_pair(lid, cid))
    ids = list(boxes)
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            h_small, h_big = _fcl_hit(boxes[a][0], boxes[b][0]), _fcl_hit(boxes[a][1], boxes[b][1])
            clear &= h_small == h_big
            if h_small:
                pairs.append(canon_pair(a, b))
    pairs = sorted({tuple(p) for p in pairs}, key=lambda p: (id_key(p[0]), id_key(p[1])))
    return [list(p) for p in pairs], dists, clear


def story_robot_cell():
    sc = _RobotCell()
    verts, tris = _table()
    table = _fcl_mesh(verts, tris)
    tips = _tips()
    for k, tip in enumerate(tips):
        for attempt in range(40):
            joints = _arm(np.array(tip) + np.array([nudge(attempt, 0.0013), nudge(attempt, 0.0011), 0.0]))
            links, link_entries = [], []
            for (lid, r), p, q in zip(LINKS, joints, joints[1:], strict=False):
                pos, quat, length, p_r, q_r = _link_body(p, q)
                links.append(((lid, r), (p_r, q_r)))
                link_entries.append((lid, r, pos, quat, length))
            crates, crate_entries = [], []
            for cid, half, centre, yaw, slide in CRATES:
                c = list(centre)
                if slide is not None:
                    c[0] = slide[0] + (slide[1] - slide[0]) * k / (len(tips) - 1) + nudge(attempt, 0.0007)
                c = [fx(v, 6) for v in c]
                quat = quat_round([math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)])
                crates.append((cid, half, np.array(c), quat_matrix(quat)))
                crate_entries.append((cid, half, c, quat))
            expect, dists, clear = _decide(links, crates, verts, tris, table)
            if clear:
                break
            sc.nudges += 1
        else:
            raise AssertionError(f"robot_cell: frame {k + 1} stays ambiguous")
        frame = {}
        if k == 0:
            frame["add"] = [{"id": "table", "shape": {"type": "triangle_mesh", "vertices": verts.tolist(),
                                                      "triangles": tris.tolist()},
                             "position": [0.0, 0.0, 0.0], "static": True}]
            for lid, r, pos, quat, length in link_entries:
                frame["add"].append({"id": lid, "shape": {"type": "capsule", "points": [
                    [0.0, 0.0, -length / 2], [0.0, 0.0, length / 2]], "radius": r},
                    "position": pos, "quaternion": quat, "category": LINK_CATEGORY, "mask": LINK_MASK})
            for cid, half, c, quat in crate_entries:
                frame["add"].append({"id": cid, "shape": {"type": "box", "half_extents": list(half)},
                                     "position": c, "quaternion": quat})
        else:
            frame["move"] = [{"id": lid, "position": pos, "quaternion": quat}
                             for lid, r, pos, quat, length in link_entries[1:]]
            frame["move"] += [{"id": cid, "position": c} for cid, half, c, quat in crate_entries
                              if cid == "crate_c"]
        frame["expect"] = expect
        if dists:
            frame["expect_distance"] = dists
        sc.frames.append(frame)
        sc.history.append(expect)
    return sc
