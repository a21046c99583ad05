"""Independent contact oracle for whole worlds: shapely in 2D, LP and closed forms in 3D.

Nothing here imports collideworld's geometry: poses are turned into world
geometry with shapely's affinity and scipy's Rotation, and each pair is
decided by a different method than the kernels use. Each test returns
(touching, ambiguous): a pair within 1e-9 of touching is ambiguous and must
not be used to judge the library, since exact touching in floating point is
decided by tolerance (exact touching is tested with hand-made cases).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import shapely
from scipy.optimize import linprog
from scipy.spatial.transform import Rotation

AMBIGUOUS = 1e-9


def _rot2(angle):
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s], [s, c]])


def _rot3(quaternion):
    w, x, y, z = quaternion
    return Rotation.from_quat([x, y, z, w]).as_matrix()  # scipy is scalar-last


def geometry(kind, params, position=None, rotation=None):
    """World geometry of a shape described as plain data.

    kind/params: ("circle", r), ("sphere", r), ("box", half_extents), ("polygon", vertices),
    ("halfplane"/"plane", (normal, offset)). rotation: angle (2D) or quaternion (3D).
    """
    if kind in ("circle", "sphere"):
        return (kind, np.asarray(position, float), float(params))
    if kind in ("halfplane", "plane"):
        n, d = params
        n = np.asarray(n, float)
        length = np.linalg.norm(n)
        return (kind, n / length, float(d) / length)
    if kind == "box" and len(params) == 2:
        hx, hy = params
        local = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
    elif kind == "polygon":
        local = np.asarray(params, float)
    else:
        h = np.asarray(params, float)
        corners = np.array(list(itertools.product([-1, 1], repeat=3)), float) * h
        R = _rot3(rotation)
        return ("box3", np.asarray(position, float), R, h, corners @ R.T + position)
    pts = local @ _rot2(rotation).T + np.asarray(position, float)
    return ("poly", shapely.Polygon(pts), pts)


def _box3_lp(b1, b2, shift=None):
    """Max slack s such that a point lies inside both boxes shrunk by s (LP); s >= 0 iff they meet."""
    rows, rhs = [], []
    # the LP in coordinates centred on the first box: far from the origin the
    # raw right-hand sides are large and nearly cancel, which HiGHS can fail on
    origin = b1[1]
    for b, off in ((b1, np.zeros(3)), (b2, np.zeros(3) if shift is None else shift)):
        _, c, R, h, _ = b
        for i in range(3):
            axis = R[:, i]
            # |axis . (x - c - off)| + s <= h_i
            rows.append(np.r_[axis, 1.0])
            rhs.append(h[i] + axis @ (c + off - origin))
            rows.append(np.r_[-axis, 1.0])
            rhs.append(h[i] - axis @ (c + off - origin))
    # the LP is always feasible (s may be as negative as needed), so a failure is
    # numerical: try HiGHS's other solvers before giving up loudly
    for method in ("highs", "highs-ds", "highs-ipm"):
        res = linprog(c=[0, 0, 0, -1.0], A_ub=np.array(rows), b_ub=np.array(rhs),
                      bounds=[(None, None)] * 3 + [(None, 1e9)], method=method)
        if res.status == 0:
            return -res.fun
    raise AssertionError(f"the box-box LP oracle failed ({res.message}) for boxes {b1[1:4]} and {b2[1:4]}")


def pair_touching(ga, gb, shift_b=None):
    """(touching, ambiguous) for two world geometries from :func:`geometry`."""
    if shift_b is not None:
        gb = translate(gb, shift_b)
    ka, kb = ga[0], gb[0]
    order = {"halfplane": 0, "plane": 0, "circle": 1, "sphere": 1, "poly": 2, "box3": 2}
    if order[ka] > order[kb]:
        ga, gb, ka, kb = gb, ga, kb, ka
    if ka in ("halfplane", "plane"):
        n, d = ga[1], ga[2]
        if kb in ("halfplane", "plane"):
            opposite = np.dot(n, gb[1]) <= -1 + 1e-12
            margin = d + gb[2] if opposite else 1.0
        elif kb in ("circle", "sphere"):
            margin = d - (n @ gb[1] - gb[2])
        else:
            pts = gb[2] if kb == "poly" else gb[4]
            margin = d - float(np.min(pts @ n))
        return margin >= 0, abs(margin) < AMBIGUOUS
    if ka in ("circle", "sphere"):
        c, r = ga[1], ga[2]
        if kb in ("circle", "sphere"):
            gap = float(np.linalg.norm(c - gb[1])) - r - gb[2]
        elif kb == "poly":
            gap = shapely.distance(shapely.Point(c), gb[1]) - r
        else:
            _, bc, R, h, _ = gb
            local = R.T @ (c - bc)
            gap = float(np.linalg.norm(local - np.clip(local, -h, h))) - r
        return gap <= 0, abs(gap) < AMBIGUOUS
    if ka == "poly":
        a, b = ga[1], gb[1]
        if a.intersects(b):
            deep = a.intersection(b).area > AMBIGUOUS
            return True, not deep
        return False, shapely.distance(a, b) < AMBIGUOUS
    s = _box3_lp(ga, gb)
    return s >= 0, abs(s) < AMBIGUOUS


def translate(g, shift):
    shift = np.asarray(shift, float)
    k = g[0]
    if k in ("circle", "sphere"):
        return (k, g[1] + shift, g[2])
    if k in ("halfplane", "plane"):
        return (k, g[1], g[2] + float(g[1] @ shift))
    if k == "poly":
        pts = g[2] + shift
        return ("poly", shapely.Polygon(pts), pts)
    return ("box3", g[1] + shift, g[2], g[3], g[4] + shift)


def _bounding_ball(g):
    k = g[0]
    if k in ("circle", "sphere"):
        return g[1], g[2]
    if k == "poly":
        c = g[2].mean(axis=0)
        return c, float(np.max(np.linalg.norm(g[2] - c, axis=1)))
    if k == "box3":
        return g[1], float(np.linalg.norm(g[3]))
    return None


def expected_pairs(bodies):
    """Contact pairs of a world described as {id: dict(geom, static, category, mask)}.

    Returns (pairs, ambiguous): frozensets of frozenset({a, b}).
    """
    pairs, ambiguous = set(), set()
    for (ia, a), (ib, b) in itertools.combinations(bodies.items(), 2):
        if a["static"] and b["static"]:
            continue
        if not (a["category"] & b["mask"]) or not (b["category"] & a["mask"]):
            continue
        ba, bb = _bounding_ball(a["geom"]), _bounding_ball(b["geom"])
        if ba is not None and bb is not None and np.linalg.norm(ba[0] - bb[0]) > ba[1] + bb[1] + 1e-6:
            continue  # bounding balls apart: certainly not touching
        touching, amb = pair_touching(a["geom"], b["geom"])
        key = frozenset((ia, ib))
        if amb:
            ambiguous.add(key)
        elif touching:
            pairs.add(key)
    return pairs, ambiguous
