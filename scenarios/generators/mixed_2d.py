"""Generator of ``mixed_2d.jsonl``: every 2D shape kind, spawned and removed over time."""

from __future__ import annotations

import math
import random

from .common import (
    Scenario,
    body,
    box2,
    circle,
    comb_shape,
    fx,
    halfplane,
    id_key,
    l_shape,
    mv,
    nudge,
    polygon,
    regular_polygon,
    shift,
    star_shape,
    u_shape,
)


def story_mixed_2d():
    sc = Scenario(
        "mixed_2d.jsonl", 2, "mixed-2d-sandbox",
        "A 2D sandbox with every shape kind: a floor half-plane (y <= 0), a left wall "
        "given with a non-unit normal [2, 0], a right wall and a ramp half-plane "
        "(normal [-1, 2]). On the left, a display shelf of concave shapes: a marble "
        "is lowered into a U-shaped cup (inside its bounding box long before it "
        "touches the bottom), a pin slides between the teeth of a comb, a star "
        "spins next to a hexagon, a box sits in the notch of an L. On the right, "
        "a seeded spawner drops circles, boxes, triangles, hexagons, Ls, Us, stars "
        "and combs that fall until they first touch something, rest a while and "
        "are removed. expect_contacts (every 5th frame) gives normal and depth "
        "for the convex pairs that have a closed form.",
        comment="arena x in [0, 40]; the spawner works in x in [17, 37]",
    )
    rng = random.Random(5005)
    walls = [
        body("floor", halfplane([0, 1], 0)),
        body("wall_left", halfplane([2, 0], 0), _comment="normal [2, 0]: solid x <= 0"),
        body("wall_right", halfplane([-1, 0], -40), _comment="solid x >= 40"),
        body("ramp", halfplane([-1, 2], -28), _comment="solid y <= (x - 28) / 2"),
    ]
    shelf = [
        body("cup", polygon(u_shape(4, 3, 0.5)), [1.0, -0.05],
             _comment="U cup resting 5 cm into the floor; cavity x in [1.5, 4.5], y above 0.45"),
        body("marble", circle(0.6), [3.0, 6.0]),
        body("comb", polygon(comb_shape(4, 0.5, 1.0, 0.5, 2.0)), [6.0, 0.0], static=True,
             _comment="static comb on the floor: static-static with the floor is never reported"),
        body("pin", box2(0.3, 0.8), [7.0, 5.0], angle=0.0),
        body("hexagon", polygon(regular_polygon(6, 1.0)), [12.0, 4.0]),
        body("star", polygon(star_shape(5, 1.5, 0.6)), [14.4, 4.0], angle=0.0),
        body("ell", polygon(l_shape(3, 3, 1)), [1.0, 8.0]),
        body("notch_box", box2(0.5, 0.5), [3.5, 10.5], angle=0.0),
    ]
    sc.step(add=walls + shelf, comment="walls and the display shelf", details="all")

    catalog = [
        ("circle", lambda r: circle(fx(r.uniform(0.4, 1.0), 2))),
        ("box", lambda r: box2(fx(r.uniform(0.3, 1.0), 2), fx(r.uniform(0.3, 1.0), 2))),
        ("triangle", lambda r: polygon([[-1, -0.6], [1, -0.6], [0, 1.1]])),
        ("hexagon", lambda r: polygon(regular_polygon(6, fx(r.uniform(0.6, 1.0), 2)))),
        ("ell", lambda r: polygon(shift(l_shape(2, 2, 0.7), -1, -1))),
        ("you", lambda r: polygon(shift(u_shape(2, 1.6, 0.5), -1, -0.8))),
        ("star", lambda r: polygon(star_shape(5, 1.1, 0.45))),
        ("comb", lambda r: polygon(shift(comb_shape(3, 0.4, 0.5, 0.4, 0.8), -1, -0.6))),
    ]
    falling = {}  # id -> dict(x, y, angle, vy, spin, rest_until)
    serial = 0
    nframes = 150
    for k in range(1, nframes):
        removes, adds, moves = [], [], []
        notes = []
        # --- the shelf script ------------------------------------------------
        if 1 <= k <= 17:
            moves.append(mv("marble", [3.0, fx(6.0 - 0.3 * k)]))
            if k == 8:
                notes.append("the marble is inside the cup's bounding box but touches nothing")
        if k == 17:
            notes.append("the marble reaches the cup's bottom")
        if 1 <= k <= 12:
            moves.append(mv("pin", [7.0, fx(5.0 - 0.25 * k)], angle=0.0))
        if 13 <= k <= 20:
            moves.append(mv("pin", [fx(7.0 + 0.045 * (k - 12)), 2.0], angle=0.0))
            if k == 13:
                notes.append("the pin sits in a gap of the comb, clear of the teeth")
        if 1 <= k <= 40:
            moves.append(mv("star", [14.4, 4.0], angle=fx(0.08 * k)))
        if 1 <= k <= 10:
            moves.append(mv("notch_box", [fx(3.5 - 0.105 * k), fx(10.5 - 0.105 * k)], angle=0.0))
            if k == 10:
                notes.append("the box is pushed into the L's inner corner")
        if k == 45:
            removes += ["marble", "pin"]
            notes.append("marble and pin are put away")
        # --- the spawner ---------------------------------------------------------
        for bid in sorted(falling, key=id_key):
            st = falling[bid]
            if st["rest_until"] is not None and k >= st["rest_until"]:
                removes.append(bid)
                del falling[bid]
        if k % 4 == 1 and k < nframes - 20:
            kind, make = catalog[serial % len(catalog)]
            serial += 1
            bid = f"{kind}_{serial}"
            st = {"x": rng.uniform(17.0, 37.0), "y": rng.uniform(14.0, 18.0),
                  "angle": rng.uniform(-math.pi, math.pi), "vy": 0.0,
                  "spin": rng.uniform(-0.15, 0.15), "rest_until": None,
                  "shape": make(rng)}
            falling[bid] = st
            st["new"] = True
        for bid in sorted(falling, key=id_key):
            st = falling[bid]
            if st["rest_until"] is None and not st.get("new"):
                st["vy"] = min(st["vy"] + 0.05, 0.6)
                st["y"] -= st["vy"]
                st["angle"] += st["spin"]

        def build(kk, removes=removes, adds=adds, moves=moves):
            out_adds = list(adds)
            out_moves = list(moves)
            for bid in sorted(falling, key=id_key):
                st = falling[bid]
                pos = [fx(st["x"]), fx(st["y"] - nudge(kk, 0.004))]
                ang = fx(st["angle"])
                if st.get("new"):
                    out_adds.append(body(bid, st["shape"], pos, angle=ang))
                elif st["rest_until"] is None:
                    out_moves.append(mv(bid, pos, angle=ang))
            return removes, out_adds, out_moves

        got = sc.step_nudged(build, comment="; ".join(notes) or None,
                             details="all" if k % 5 == 0 else None)
        # bodies that touched anything come to rest where they are
        for bid, st in falling.items():
            b = sc.peek(bid)
            st["x"], st["y"] = b["position"]
            st["angle"] = b["angle"]
            if st.pop("new", False):
                continue
            if st["rest_until"] is None and any(bid in p for p in got):
                st["rest_until"] = k + 24
    return sc
