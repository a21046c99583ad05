"""Generator of ``bullet_wall.jsonl`` (format version 2): a fast bullet and a thin wall.

A bullet (circle of radius 0.01) is fired at a wall 0.02 thick and 10 high
(a box at x = 100) from x = 0 to x = 200 in one step: at its start and end
poses it is far from the wall on either side, so only a time of impact sees
the hit (a step-by-step contact test tunnels through). Each frame puts the
bullet at a new start pose (``move``) and checks ``expect_impact`` for one
shot with its exact first-touch time: straight and angled face hits, a shot
over the top, one that clips the top corner, one fired away from the wall,
one that starts overlapping it, a ten times faster one, the wall itself moving
towards the bullet, a wider bullet (``set`` of its shape), the wall turned
off by its mask (``set``: no contact, yet the geometry still hits), and a
fall onto the ground, a half-plane that is then raised (``move`` by offset).
``expect_distance`` gives the gap and the closest points when apart.

All numbers come from :mod:`generators.exact2d` (exact rational arithmetic,
a 50-digit square root for the corner), ``expect`` from the shared
shapely-based contact test.
"""

from __future__ import annotations

from .common import Scenario, body, box2, circle, halfplane, mv
from .exact2d import (
    box_circle_distance,
    box_circle_overlap,
    circle_box_impact,
    circle_halfplane_impact,
    out,
)

R = 0.01
WALL = [100.0, 0.0]
WALL_H = [0.01, 5.0]


def _impact(pair, end_a, end_b, t):
    return {"pair": pair, "end_a": end_a, "end_b": end_b, "t": None if t is None else out(t)}


def _wall_checks(start, end, r=R, wall_end=None):
    """expect_distance and expect_impact of the bullet (at ``start``) against the still or moving wall."""
    wall_end = WALL if wall_end is None else wall_end

    def extra(bodies):
        assert bodies["bullet"]["position"] == start and bodies["bullet"]["shape"]["radius"] == r
        assert bodies["wall"]["position"] == WALL
        checks = {}
        inside = all(abs(start[i] - WALL[i]) < WALL_H[i] for i in range(2))
        if inside:
            checks["expect_distance"] = [{"pair": ["wall", "bullet"],
                                          "distance": out(box_circle_overlap(WALL, WALL_H, start, r))}]
        else:
            d, on_wall, on_bullet = box_circle_distance(WALL, WALL_H, start, r)
            entry = {"pair": ["wall", "bullet"], "distance": out(d)}
            if d > 0:  # apart: the closest points are unique (a circle against a box)
                entry["points"] = [[out(c) for c in on_wall], [out(c) for c in on_bullet]]
            checks["expect_distance"] = [entry]
        if wall_end is WALL:
            t = circle_box_impact(start, end, r, WALL, WALL_H)
        else:  # the wall moves too: in the wall's frame the bullet moves by the difference
            rel_end = [end[i] - (wall_end[i] - WALL[i]) for i in range(2)]
            t = circle_box_impact(start, rel_end, r, WALL, WALL_H)
        checks["expect_impact"] = [_impact(["wall", "bullet"], {"position": wall_end}, {"position": end}, t)]
        return checks

    return extra


def story_bullet_wall():
    sc = Scenario(
        "bullet_wall.jsonl", 2, "bullet-through-a-wall",
        "A bullet (circle r=0.01) fired 200 units in one step at a wall 0.02 thick (box at x=100): "
        "expect_impact gives the exact time it first touches the wall (or null), for straight, "
        "angled, over-the-top, corner-clipping, receding, overlapping, faster, moving-wall and "
        "wider-bullet shots; set turns the wall's mask off (no contact, same geometry); a drop "
        "onto the ground half-plane, then onto the ground raised by move.",
        version=2,
        comment="times from exact rational arithmetic on the written doubles (generators/exact2d.py)",
    )
    shots = [
        ("straight: front reaches x=99.98 at t=0.4999", [0.0, 0.0], [200.0, 0.0]),
        ("angled: y=-0.004 at the face", [0.0, -20.0], [200.0, 20.0]),
        ("over the top: 0.99 above the wall's corner", [0.0, 6.0], [200.0, 6.0]),
        ("clips the top corner (y=5.005 is within r of the corner, above the face)",
         [0.0, 5.005], [200.0, 5.005]),
        ("fired away from the wall, from behind it", [101.0, 0.0], [300.0, 0.0]),
        ("ten times faster: 10000 units in one step", [0.0, 1.0], [10000.0, 1.0]),
        ("descending steeply, hits near the bottom", [60.0, 35.0], [140.0, -45.0]),
    ]
    first = True
    for comment, start, end in shots:
        if first:
            sc.step(add=[body("wall", box2(*WALL_H), WALL, static=True), body("bullet", circle(R), start)],
                    comment=comment, extra=_wall_checks(start, end))
            first = False
        else:
            sc.step(move=[mv("bullet", start)], comment=comment, extra=_wall_checks(start, end))
    # overlapping at the start (by 0.005), fired away: it touches at once, t = 0
    start = [99.985, 2.0]
    sc.step(move=[mv("bullet", start)], comment="starts overlapping the face by 0.005, fired away: t = 0",
            extra=_wall_checks(start, [0.0, 2.0]))
    # the wall moves 10 towards the bullet during the same step
    start = [0.0, 0.0]
    sc.step(move=[mv("bullet", start)], comment="the wall moves 10 towards the bullet: t = 99.98/210",
            extra=_wall_checks(start, [200.0, 0.0], wall_end=[90.0, 0.0]))
    # a wider bullet (set of its shape)
    sc.step(set_=[{"id": "bullet", "shape": circle(0.05)}], comment="a wider bullet (r=0.05): t = 0.4997",
            extra=_wall_checks(start, [200.0, 0.0], r=0.05))
    # the wall's mask turned off: the bullet sits inside it, no contact, but the geometry still overlaps
    start = [100.005, 0.0]
    sc.step(set_=[{"id": "wall", "mask": 0}, {"id": "bullet", "shape": circle(R)}], move=[mv("bullet", start)],
            comment="wall mask 0: no contact although the bullet overlaps it by 0.015",
            extra=_wall_checks(start, [200.0, 0.0]))
    sc.step(set_=[{"id": "wall", "mask": 4294967295}], comment="wall mask back: the same overlap is a contact",
            extra=_wall_checks(start, [200.0, 0.0]))

    # the ground: y <= -30, the bullet dropped from (0, 0) to (0, -100)
    def ground_checks(offset, start, end):
        def extra(bodies):
            assert bodies["ground"]["shape"]["offset"] == offset
            t = circle_halfplane_impact(start, end, R, 1, 1, offset)
            t_wall = circle_box_impact(start, end, R, WALL, WALL_H)
            return {"expect_distance": [{"pair": ["ground", "bullet"], "distance": out(start[1] - R - offset)}],
                    "expect_impact": [_impact(["ground", "bullet"], {}, {"position": end}, t),
                                      _impact(["wall", "bullet"], {"position": WALL}, {"position": end}, t_wall)]}

        return extra

    start, end = [0.0, 0.0], [0.0, -100.0]
    sc.step(add=[body("ground", halfplane([0, 1], -30.0))], move=[mv("bullet", start)],
            comment="dropped onto the ground y <= -30: the bottom reaches it at y=-29.99, t = 0.2999",
            extra=ground_checks(-30.0, start, end))
    sc.step(move=[{"id": "ground", "offset": -20.0}], comment="the ground raised to y <= -20 (move by offset)",
            extra=ground_checks(-20.0, start, end))
    return sc
