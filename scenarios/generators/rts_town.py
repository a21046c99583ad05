"""Generator of ``rts_town.jsonl``: a ghost building dragged across a town."""

from __future__ import annotations

import math
import random

from .common import (
    Scenario,
    body,
    box2,
    circle,
    fx,
    l_shape,
    lerp,
    mv,
    nudge,
    polygon,
    regular_polygon,
    shift,
    u_shape,
)

BUILDING, ROAD, TREE, GHOST = 1, 2, 4, 8


def drag_ghost(sc, rng, path):
    """Move "ghost" along (x, y, angle, frames, note) waypoints with hand jitter.

    Waypoints themselves are hit exactly; the frames between them wobble by up
    to 0.2, like a mouse drag. A pose that lands within AMBIGUITY of touching
    is nudged along x.
    """
    for (x0, y0, a0, _, _), (x1, y1, a1, n, note) in zip(path, path[1:], strict=False):
        for i in range(1, n + 1):
            t = i / n
            last = i == n
            jx = 0.0 if last else rng.uniform(-0.2, 0.2)
            jy = 0.0 if last else rng.uniform(-0.2, 0.2)
            x = lerp(x0, x1, t) + jx
            y = fx(lerp(y0, y1, t) + jy)
            a = fx(lerp(a0, a1, t))
            sc.step_nudged(lambda k, x=x, y=y, a=a: ((), (), [mv("ghost", [fx(x + nudge(k)), y], angle=a)]),
                           comment=note if last else None)


def story_rts_town():
    sc = Scenario(
        "rts_town.jsonl", 2, "rts-town",
        "An RTS town: static buildings (boxes, a rotated box, two L-shaped halls, a "
        "U-shaped stable), crossing roads and trees. The player drags a placement "
        "'ghost' (a box, rotating as it goes) across the town; expect lists the "
        "buildings and roads it overlaps each frame. Trees are category 4, which "
        "the ghost's mask (buildings|roads) leaves out. The ghost is dropped in the "
        "notch of the town hall (no overlap: placement accepted, it becomes house_3), "
        "then an L-shaped ghost is dragged until the player cancels it.",
        comment="categories: 1 building, 2 road, 4 tree, 8 ghost; every town body is "
                "static, so the town alone never reports anything (overlapping roads "
                "at the crossing included)",
    )
    rng = random.Random(1001)
    hall = [[-6, -4], [6, -4], [6, -1], [-2, -1], [-2, 4], [-6, 4]]
    barracks = [[-5, -5], [5, -5], [5, 5], [2, 5], [2, -2], [-5, -2]]
    stables = shift(u_shape(6, 6, 1.5), -3, -3)
    temple = regular_polygon(6, 3.0, phase=0.1)
    town = [
        body("road_main", box2(30, 1.5), [30, 20], static=True, category=ROAD),
        body("road_cross", box2(1.5, 20), [30, 20], static=True, category=ROAD),
        body("road_east", box2(12, 1.2), [47, 10], angle=0.5, static=True, category=ROAD),
        body("house_1", box2(3, 2.5), [8, 9], static=True, category=BUILDING),
        body("house_2", box2(2.5, 3), [17, 8], angle=0.25, static=True, category=BUILDING),
        body("hall", polygon(hall), [42, 30], static=True, category=BUILDING),
        body("barracks", polygon(barracks), [12, 31], static=True, category=BUILDING),
        body("market", box2(3, 2), [22, 30], angle=0.6, static=True, category=BUILDING),
        body("stables", polygon(stables), [55, 30], static=True, category=BUILDING),
        body("temple", polygon(temple), [52, 4], static=True, category=BUILDING),
        body("tree_1", circle(0.8), [25, 12], static=True, category=TREE),
        body("tree_2", circle(0.8), [26.5, 13.5], static=True, category=TREE),
        body("tree_3", circle(1.0), [36, 14], static=True, category=TREE),
        body("tree_4", circle(0.8), [5, 24], static=True, category=TREE),
    ]
    sc.step(add=town, comment="the town is built: all static, so no contacts")

    ghost = box2(2.5, 1.8)
    # waypoints (x, y, angle, frames to reach it, note)
    path = [
        (3.0, 14.0, 0.0, 0, "ghost appears near the west edge"),
        (8.0, 9.0, 0.5, 6, "over house_1"),
        (17.0, 8.5, 1.1, 6, "over the rotated house_2"),
        (25.5, 13.0, 1.6, 6, "over the trees: not reported (mask)"),
        (30.0, 20.0, 2.2, 6, "on the crossing: both roads"),
        (22.0, 29.5, 2.7, 7, "over the rotated market"),
        (12.0, 28.0, 3.0, 6, "over the barracks' foot"),
        (10.5, 32.5, math.pi, 5, "in the barracks' notch: inside its bounding box, no overlap"),
        (24.0, 37.0, 3.6, 6, "north of the market"),
        (37.0, 33.0, 4.2, 6, "over the hall's leg"),
        (44.5, 31.8, 2 * math.pi, 6, "in the hall's notch: clear, placement accepted"),
    ]
    x, y, a = path[0][:3]
    sc.step(add=[body("ghost", ghost, [x, y], angle=0.0, category=GHOST, mask=BUILDING | ROAD)],
            comment=path[0][4])
    drag_ghost(sc, rng, path)
    final = sc.peek("ghost")
    sc.step(remove=["ghost"],
            add=[body("house_3", ghost, final["position"], angle=final["angle"], static=True,
                      category=BUILDING)],
            comment="placement confirmed: the ghost becomes static house_3 (nothing to report)")
    for _ in range(3):
        sc.step(comment="idle town")

    # second ghost: an L-shaped guild hall, concave against concave
    guild = polygon(shift(l_shape(6, 5, 2), -3, -2.5))
    path2 = [
        (30.0, 4.0, 0.0, 0, "an L-shaped ghost appears on the south road"),
        (36.0, 10.0, 0.8, 6, "across the east road"),
        (45.0, 29.5, 1.6, 8, "over the hall's foot and house_3"),
        (55.0, 30.0, 2.0, 6, "over the U-shaped stables"),
        (58.0, 38.0, 2.4, 5, "north-east corner"),
        (52.0, 7.0, 3.3, 8, "over the temple"),
    ]
    x, y, a = path2[0][:3]
    sc.step(add=[body("ghost", guild, [x, y], angle=0.0, category=GHOST, mask=BUILDING | ROAD)],
            comment=path2[0][4])
    drag_ghost(sc, rng, path2)
    sc.step(remove=["ghost"], comment="the player cancels the placement")
    return sc
