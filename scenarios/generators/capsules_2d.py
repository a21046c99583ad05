"""Generator of ``capsules_2d.jsonl`` (version 2): capsules and segments among the 2D shapes."""

from __future__ import annotations

import math
import random

from .common import (
    Scenario,
    body,
    box2,
    capsule,
    circle,
    fx,
    halfplane,
    l_shape,
    mv,
    nudge,
    polygon,
    regular_polygon,
    segment,
)


def story_capsules_2d():
    sc = Scenario(
        "capsules_2d.jsonl", 2, "capsules-2d", (
            "Capsules and segments (format version 2) among circles, boxes, polygons and a "
            "floor half-plane. Frame 1 sets out exact cases from small integers and halves: a "
            "capsule lying on the floor, a segment standing on it, a segment whose end touches a "
            "circle (3-4-5), collinear segments touching end to end and parallel ones 0.5 apart, "
            "a capsule tangent to a box's top edge, a capsule with p0 == p1 (a disc) touching the "
            "floor and a circle, two capsules crossing in an X, and a capsule in the notch of an "
            "L, clear of it. Then a segment turns like a wiper past a ball, and four capsules "
            "walk, turning, across the scene and under a long static rail. expect_contacts "
            "(every 3rd frame) gives normal and depth where the cores are apart or a half-plane "
            "is involved."),
        version=2,
        comment="capsule and segment pairs: exact segment distances (Fractions); against polygons: "
                "shapely's distance to the core",
    )
    rng = random.Random(2207)
    scene = [
        body("floor", halfplane([0, 1], 0)),
        body("pill", capsule([-1, 0], [1, 0], 0.5), [2, 0.5], _comment="lying on the floor"),
        body("post", segment([0, 0], [0, 2]), [6, 0], _comment="standing on the floor"),
        body("boulder", circle(5), [10, 10], static=True),
        body("stick", segment([3, 4], [6, 8]), [10, 10], _comment="its end (13, 14) is 5 from the boulder's centre"),
        body("rod_a", segment([0, 0], [2, 0]), [20, 1]),
        body("rod_b", segment([0, 0], [1, 0]), [22, 1], _comment="touches rod_a end to end"),
        body("rod_c", segment([0, 0], [3, 0]), [20, 1.5], _comment="parallel to rod_a, 0.5 above"),
        body("crate", box2(1, 1), [30, 1]),
        body("lid", capsule([-1, 0], [1, 0], 0.5), [30, 2.5], _comment="tangent to the crate's top edge"),
        body("dot", capsule([0, 0], [0, 0], 1), [36, 1], _comment="p0 == p1: a disc on the floor"),
        body("coin", circle(1), [38, 1], static=True),
        body("x_a", capsule([-1, -1], [1, 1], 0.25), [44, 3]),
        body("x_b", capsule([-1, 1], [1, -1], 0.25), [44, 3]),
        body("ell", polygon(l_shape(3, 3, 1)), [50, 0], static=True),
        body("bead", capsule([1.5, 2], [2.5, 2], 0.25), [50, 0], _comment="in the L's notch, 0.25 clear of it"),
        body("wiper", segment([-2, 0], [2, 0]), [60, 3], angle=0.0),
        body("ball", circle(0.5), [62.2, 3.6], static=True),
        body("rail", segment([0, 0], [64, 0]), [0, 7], static=True),
        body("hexagon", polygon(regular_polygon(6, 1.0)), [26, 5], static=True),
    ]
    sc.step(add=scene, comment="the exact cases", exact=True, details="all")

    walkers = {}
    for k in range(4):
        walkers[f"walker_{k}"] = {
            "x": rng.uniform(-2.0, 8.0), "y": rng.uniform(3.0, 8.0), "angle": rng.uniform(-math.pi, math.pi),
            "vx": rng.uniform(1.2, 2.0), "vy": rng.uniform(-0.1, 0.1), "spin": rng.uniform(-0.3, 0.3),
            "shape": capsule([fx(-rng.uniform(0.3, 0.8), 2), 0], [fx(rng.uniform(0.3, 0.8), 2), 0],
                             fx(rng.uniform(0.2, 0.45), 2)),
        }
    nframes = 32
    for k in range(1, nframes):
        for st in walkers.values():
            st["x"] += st["vx"]
            st["y"] = min(max(st["y"] + st["vy"], 0.8), 8.5)
            st["angle"] += st["spin"]

        def build(kk, k=k):
            # the exactly touching cases leave: a touch is only exact where it was built to be
            removes = ["pill", "post", "stick", "rod_b", "crate", "lid", "dot"] if k == 1 else []
            adds, moves = [], [mv("wiper", [60, 3], angle=fx(0.15 * k + nudge(kk, 0.002), 6))]
            for bid, st in walkers.items():
                pos = [fx(st["x"]), fx(st["y"] + nudge(kk, 0.004))]
                if k == 1:
                    adds.append(body(bid, st["shape"], pos, angle=fx(st["angle"])))
                else:
                    moves.append(mv(bid, pos, angle=fx(st["angle"])))
            return removes, adds, moves

        sc.step_nudged(build, details="all" if k % 3 == 0 else None)
    return sc
