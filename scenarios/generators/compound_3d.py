"""Generator of ``compound_3d.jsonl`` (format version 2): compound bodies in 3D.

A table (a box top on four box legs, one body) stands on a floor plane and
is pushed into it; a dumbbell (two spheres on a bar box, one body) rolls
across the table top, turns (a quaternion) and falls against a crate and a
ball. Each frame's ``expect`` lists the body pairs in contact and
``expect_contacts`` gives one entry per touching pair of parts (``parts``:
indices into the compounds' parts, -1 for a simple shape) where a closed
form exists (anything against the plane, sphere against sphere or box,
axis-aligned boxes).

Every part is posed here (the body's pose composed with the part's: rotation
matrix of the quaternion, Hamilton product) and each pair of parts is
decided by the shared 3D oracles of :mod:`generators.common` (closed forms,
exact rational arithmetic for axis-aligned boxes, a linear program for turned
ones), never by collideworld. Placements within ``AMBIGUITY`` of touching
are rejected by an assertion.
"""

from __future__ import annotations

import numpy as np

from .common import (
    AMBIGUITY,
    Geom3,
    Scenario,
    body,
    box3,
    detail3,
    eval3,
    fx,
    mv,
    plane,
    quat_axis_angle,
    quat_matrix,
    quat_mul,
    sphere,
)

IDENTITY = [1.0, 0.0, 0.0, 0.0]


def compound(parts):
    """A compound shape: ``parts`` a list of (shape, [x, y, z]) or (shape, [x, y, z], quaternion)."""
    out = []
    for p in parts:
        entry = {"shape": p[0], "position": list(p[1])}
        if len(p) > 2:
            entry["quaternion"] = list(p[2])
        out.append(entry)
    return {"type": "compound", "parts": out}


TABLE = compound([(box3(1.5, 1.0, 0.1), [0.0, 0.0, 1.0])]
                 + [(box3(0.1, 0.1, 0.45), [x, y, 0.45]) for x in (-1.3, 1.3) for y in (-0.8, 0.8)])
DUMBBELL = compound([(sphere(0.3), [-0.6, 0.0, 0.0]), (sphere(0.3), [0.6, 0.0, 0.0]),
                     (box3(0.5, 0.05, 0.05), [0.0, 0.0, 0.0])])


def _posed(b):
    """(part index, Geom3) of every posed part of a body (index -1 for a simple shape)."""
    shape = b["shape"]
    if shape["type"] != "compound":
        return [(-1, Geom3(dict(b, quaternion=b.get("quaternion", IDENTITY))))]
    pos = np.array(b["position"], dtype=float)
    q = b.get("quaternion", IDENTITY)
    rot = quat_matrix(q)
    out = []
    for k, p in enumerate(shape["parts"]):
        where = rot @ np.array(p["position"], dtype=float) + pos
        out.append((k, Geom3({"shape": p["shape"], "position": list(where),
                              "quaternion": quat_mul(q, p.get("quaternion", IDENTITY))})))
    return out


def _static(b):
    return b.get("static", False) or b["shape"]["type"] == "plane"


def story_compound_3d():
    sc = Scenario(
        "compound_3d.jsonl", 3, "compound-3d",
        "Compound bodies in 3D: a table (a box top on four box legs) on a floor plane, and a "
        "dumbbell (two spheres on a bar) rolling over it, turning and falling against a crate "
        "and a ball. Contacts are per pair of parts.",
        version=2,
        comment="expectations computed part by part with the shared closed forms, exact arithmetic "
                "and LP (generators/compound_3d.py)",
    )
    bodies: dict[str, dict] = {}

    def step(add=(), move=(), comment=None):
        for b in add:
            bodies[b["id"]] = dict(b)
        for m in move:
            bodies[m["id"]] = dict(bodies[m["id"]], **{k: v for k, v in m.items() if k != "id"})
        frame = {} if comment is None else {"_comment": comment}
        if add:
            frame["add"] = list(add)
        if move:
            frame["move"] = list(move)
        ids = sorted(bodies)
        pairs, rows = [], []
        for x, ia in enumerate(ids):
            for ib in ids[x + 1:]:
                if _static(bodies[ia]) and _static(bodies[ib]):
                    continue
                hit = False
                for ka, ga in _posed(bodies[ia]):
                    for kb, gb in _posed(bodies[ib]):
                        touch, margin = eval3(ga, gb)
                        assert margin > AMBIGUITY, f"{ia}/{ib} parts {ka}/{kb}: margin {margin}"
                        if not touch:
                            continue
                        hit = True
                        got = detail3((ia, ka), ga, (ib, kb), gb)
                        if got is not None:
                            (a, pa), (b, pb), n, depth = got
                            rows.append({"pair": [a, b], "normal": [fx(v, 12) for v in n],
                                         "depth": fx(depth, 12), "parts": [pa, pb]})
                if hit:
                    pairs.append([ia, ib])
        frame["expect"] = pairs
        if rows:
            frame["expect_contacts"] = rows
        sc.frames.append(frame)
        sc.history.append(pairs)

    step(add=[body("floor", plane([0, 0, 1], 0.0)),
              body("table", TABLE, [0.0, 0.0, 0.05]),
              body("crate", box3(0.5, 0.5, 0.5), [4.0, 0.0, 0.5], static=True),
              body("ball", sphere(0.5), [4.0, 2.5, 0.5], static=True)],
         comment="the table stands 0.05 above the floor")
    step(move=[mv("table", [0.0, 0.0, -0.125])], comment="pushed 0.125 into the floor: its four legs touch it")
    step(add=[body("dumbbell", DUMBBELL, [0.0, 0.0, 1.225])],
         comment="a dumbbell lies on the table top (z = 0.975), its spheres 0.05 into it")
    step(move=[mv("dumbbell", [0.0, 0.0, 1.225], quaternion=quat_axis_angle([0, 0, 1], 0.7))],
         comment="turned 0.7 rad about z: the same sphere contacts")
    step(move=[mv("dumbbell", [1.6, 0.3, 1.2], quaternion=quat_axis_angle([0, 1, 0], 0.4))],
         comment="over the table's edge, tilted 0.4 rad about y")
    step(move=[mv("dumbbell", [3.0, 0.0, 0.8])], comment="its right sphere sinks into the crate")
    step(move=[mv("dumbbell", [4.2, 1.6, 1.1], quaternion=quat_axis_angle([1, 0, 0], 1.2))],
         comment="between the crate and the ball, turned 1.2 rad about x, clear of both")
    step(move=[mv("dumbbell", [4.0, 1.9, 0.25], quaternion=quat_axis_angle([0, 0, 1], 1.5708))],
         comment="on the floor, turned about z: both spheres in the floor, sphere 1 and the bar in the ball")
    step(move=[mv("table", [0.0, 0.0, 3.0]), mv("dumbbell", [-5.0, -5.0, 3.0], quaternion=IDENTITY)],
         comment="both lifted away: every contact ends")
    return sc
