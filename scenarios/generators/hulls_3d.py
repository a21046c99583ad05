"""Generator of ``hulls_3d.jsonl`` (version 2): convex hulls, capsules and segments among the 3D shapes."""

from __future__ import annotations

import math
import random

from .common import (
    Scenario,
    body,
    box3,
    capsule,
    convex_hull,
    fx,
    id_key,
    mv,
    nudge,
    plane,
    quat_axis_angle,
    quat_mul,
    quat_round,
    segment,
    sphere,
)

CUBE2 = [[x, y, z] for x in (0, 2) for y in (0, 2) for z in (0, 2)]
TETRA = [[0, 0, 0], [1, 1, 2], [-1, 1, 2], [0, -1, 2]]
OCTA = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]
ROCK = [[-1.5, -1, 0], [1.5, -1.5, -0.5], [2, 1, 0], [-1, 1.5, -0.5], [0, 0, 1.5], [0.5, -0.5, 1.25],
        [-0.5, 0.5, -0.75], [0.25, 0.25, 0.25]]
WEDGE = [[-1, -0.5, 0], [1, -0.5, 0], [-1, 0.5, 0], [1, 0.5, 0], [-1, 0, 0.75], [1, 0, 0.75]]


def story_hulls_3d():
    sc = Scenario(
        "hulls_3d.jsonl", 3, "hulls-3d", (
            "Convex hulls, capsules and segments (format version 2) among spheres, boxes and a "
            "ground plane. Frame 1 sets out exact cases: a cube given as a hull (its eight "
            "corners and its centre) standing on the ground, a sphere resting on its top face, "
            "a capsule lying on the ground, a segment standing on it, a tetrahedron touching it "
            "with one vertex, and a capsule with p0 == p1 (a ball). A static rock (an irregular "
            "hull sunk into the ground), a static table (a box) and a static pipe (a capsule "
            "lying on the ground) wait below a spawner that drops capsules, segments, "
            "tetrahedra, octahedra, wedges, spheres and boxes, each tumbling, until it first "
            "touches something; it rests there and is removed later. expect_contacts (every 5th "
            "frame) gives normal and depth for plane pairs and for capsules and spheres whose "
            "cores are apart."),
        version=2,
        comment="hull and box pairs: LP over brute-force face planes; capsule-polytope: closed-form "
                "segment-triangle distances; python-fcl checks every pair clear of flipping",
    )
    rng = random.Random(3301)
    scene = [
        body("ground", plane([0, 0, 1], 0)),
        body("cube", convex_hull(CUBE2 + [[1, 1, 1]]), [0, 0, 0], _comment="corners (0|2)^3 and the centre"),
        body("ball", sphere(0.5), [1, 1, 2.5], _comment="on the cube's top face"),
        body("pill", capsule([-1, 0, 0], [1, 0, 0], 0.5), [6, 0, 0.5], _comment="lying on the ground"),
        body("stick", segment([0, 0, 0], [0, 0, 2]), [10, 0, 0], _comment="standing on the ground"),
        body("tet", convex_hull(TETRA), [14, 0, 0], _comment="one vertex on the ground"),
        body("bead", capsule([0, 0, 0], [0, 0, 0], 0.75), [18, 0, 0.75], _comment="p0 == p1: a ball"),
    ]
    sc.step(add=scene, comment="the exact cases", exact=True, details="all")

    props = [
        body("rock", convex_hull(ROCK), [4, 8, 0.25], static=True, quaternion=quat_axis_angle([0, 0, 1], 0.4)),
        body("table", box3(2, 1.5, 0.25), [12, 8, 1.5], static=True),
        body("pipe", capsule([-3, 0, 0], [3, 0, 0], 0.4), [8, 14, 0.4], static=True,
             quaternion=quat_axis_angle([0, 0, 1], 0.3)),
    ]
    # a shelf of floating pairs, one per kind pair, each clearly touching or clear
    shelf = [
        body("octa_a", convex_hull(OCTA), [30, 0, 3], _comment="octahedra 1.8 apart: 0.2 overlap"),
        body("octa_b", convex_hull(OCTA), [31.8, 0, 3], quaternion=quat_axis_angle([1, 0, 0], 0.3)),
        body("near", capsule([0, 0, 0], [0, 0, 1], 0.25), [33.3, 0, 2.5], _comment="0.25 clear of octa_b"),
        body("wedge", convex_hull(WEDGE), [30, 5, 3], _comment="its ridge 0.25 into the box above"),
        body("wedge_box", box3(0.5, 0.5, 0.5), [30, 5, 4.0]),
        body("rod", capsule([-1, 0, 0], [1, 0, 0], 0.3), [30, 10, 3], _comment="0.1 into the box above"),
        body("rod_box", box3(0.5, 0.5, 0.5), [30.5, 10, 3.7], quaternion=quat_axis_angle([0, 0, 1], 0.5)),
        body("arm_a", capsule([-1, 0, 0], [1, 0, 0], 0.3), [30, 15, 3]),
        body("arm_b", capsule([0, -1, 0], [0, 1, 0], 0.3), [30, 15, 3.5], _comment="cores 0.5 apart: 0.1 deep"),
        body("needle", segment([0, 0, -1], [0, 0, 1]), [30, 20, 4], _comment="through the tetrahedron"),
        body("tet2", convex_hull(TETRA), [30, 20, 2.5]),
        body("wire", segment([-2, 0, 0], [2, 0, 0]), [30, 25, 3], quaternion=quat_axis_angle([0, 1, 1], 0.2)),
        body("wire_box", box3(0.5, 0.5, 0.5), [30, 25, 3.4]),
        body("orb", sphere(0.5), [31.2, 20.2, 4.2], _comment="clear of the tetrahedron's slanted face"),
    ]
    sc.step(remove=["cube", "ball", "pill", "stick", "tet", "bead"], add=props + shelf,
            comment="the exact cases leave; the props of the spawner",
            details="all")

    catalog = [
        ("capsule", lambda r: capsule([fx(-r.uniform(0.4, 1.2), 2), 0, 0], [fx(r.uniform(0.4, 1.2), 2), 0, 0],
                                      fx(r.uniform(0.2, 0.5), 2))),
        ("tetra", lambda r: convex_hull(TETRA)),
        ("segment", lambda r: segment([0, 0, fx(-r.uniform(0.5, 1.5), 2)], [0, 0, fx(r.uniform(0.5, 1.5), 2)])),
        ("octa", lambda r: convex_hull([[fx(c * 0.8, 2) for c in p] for p in OCTA])),
        ("sphere", lambda r: sphere(fx(r.uniform(0.3, 0.7), 2))),
        ("wedge", lambda r: convex_hull(WEDGE)),
        ("box", lambda r: box3(fx(r.uniform(0.3, 0.8), 2), fx(r.uniform(0.3, 0.8), 2), fx(r.uniform(0.3, 0.8), 2))),
    ]
    falling = {}
    serial = 0
    nframes = 40
    for k in range(2, nframes):
        removes = []
        for bid in sorted(falling, key=id_key):
            st = falling[bid]
            if st["rest_until"] is not None and k >= st["rest_until"]:
                removes.append(bid)
                del falling[bid]
        if k % 3 == 2 and k < nframes - 8:
            kind, make = catalog[serial % len(catalog)]
            serial += 1
            axis = [rng.uniform(-1, 1) for _ in range(3)]
            if math.sqrt(sum(a * a for a in axis)) < 0.2:
                axis = [0.0, 0.0, 1.0]
            falling[f"{kind}_{serial}"] = {
                "p": [rng.uniform(2.0, 14.0), rng.uniform(6.0, 15.0), rng.uniform(4.5, 6.0)], "vz": 0.0,
                "q": quat_round(quat_axis_angle(axis, rng.uniform(-math.pi, math.pi))),
                "spin": quat_axis_angle(axis, rng.uniform(0.05, 0.2)), "rest_until": None,
                "shape": make(rng), "new": True,
            }
        for st in falling.values():
            if st["rest_until"] is None and not st.get("new"):
                st["vz"] = min(st["vz"] + 0.08, 0.5)
                st["p"][2] -= st["vz"]
                st["q"] = quat_round(quat_mul(st["spin"], st["q"]))

        def build(kk, removes=removes):
            adds, moves = [], []
            for bid in sorted(falling, key=id_key):
                st = falling[bid]
                pos = [fx(st["p"][0]), fx(st["p"][1]), fx(st["p"][2] + nudge(kk, 0.004))]
                if st.get("new"):
                    adds.append(body(bid, st["shape"], pos, quaternion=st["q"]))
                elif st["rest_until"] is None:
                    moves.append(mv(bid, pos, quaternion=st["q"]))
            return removes, adds, moves

        got = sc.step_nudged(build, details="all" if k % 5 == 0 else None)
        for bid, st in falling.items():
            b = sc.peek(bid)
            st["p"] = list(b["position"])
            if st.pop("new", False):
                continue
            if st["rest_until"] is None and any(bid in p for p in got):
                st["rest_until"] = k + 10
    return sc
