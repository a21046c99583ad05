"""Generator of ``driving.jsonl``: an ego car on a curved road."""

from __future__ import annotations

import math

from .common import (
    Scenario,
    body,
    box2,
    circle,
    fx,
    mv,
    nudge,
)


def ego_pose(s, R=18.0, straight=48.0):
    """Pose on the road: east along y=0, a left quarter-turn of radius R, then north."""
    if s <= straight:
        return s, 0.0, 0.0
    arc = R * math.pi / 2
    if s <= straight + arc:
        phi = (s - straight) / R
        return straight + R * math.sin(phi), R - R * math.cos(phi), phi
    return straight + R, R + (s - straight - arc), math.pi / 2


def story_driving():
    sc = Scenario(
        "driving.jsonl", 2, "driving-curve",
        "An ego car (box 4.6 x 1.9) drives east past parked cars, takes a left "
        "quarter-turn of radius 18 and stops at a crosswalk. Near misses with a "
        "5 cm gap: two parked cars beside the lane, an oncoming truck riding the "
        "centre line, a cyclist alongside it in the curve, and the pedestrian it "
        "stops for. Real overlaps: a badly parked car whose corner juts into the "
        "lane (side-swipe) and a car cutting in from the merge lane. expect is "
        "every pair in contact, ego or not.",
        comment="ego pose = a point on the road centre line and the tangent heading; "
                "gaps of 0.05 are never within 1e-6 of touching",
    )
    EGO_H = (2.3, 0.95)
    CAR = box2(2.2, 0.9)
    # ego arc length per frame: cruise, slower in the curve, brake to a stop, wait, go
    R, straight = 18.0, 48.0
    arc = R * math.pi / 2
    crosswalk_y = 30.0
    # the ego stops with its front 0.05 short of the pedestrian (radius 0.3)
    s_stop = straight + arc + (crosswalk_y - 0.3 - 0.05 - EGO_H[0] - R)
    s_list = [0.0]
    v = 1.2
    while s_list[-1] < straight:
        s_list.append(s_list[-1] + v)
    while s_list[-1] < straight + arc:
        v = max(0.9, v - 0.02)
        s_list.append(s_list[-1] + v)
    # brake: constant deceleration so that the ego ends exactly at s_stop
    remaining = s_stop - s_list[-1]
    nbrake = max(3, int(round(2 * remaining / v)))
    s0 = s_list[-1]
    for i in range(1, nbrake + 1):
        t = i / nbrake
        s_list.append(s0 + remaining * (2 * t - t * t))
    stop_frame = len(s_list) - 1
    wait = 22
    s_list += [s_stop] * wait
    v = 0.0
    for _ in range(10):
        v += 0.15
        s_list.append(s_list[-1] + v)

    def ego_move(k):
        s = s_list[k]
        x, y, h = ego_pose(s, R, straight)
        if s >= straight + arc:
            x = straight + R  # exactly on the final straight
        return [fx(x), fx(y)], fx(h)

    parked = [
        body("parked_1", CAR, [14, -1.9], static=True, _comment="top edge at y=-1.0: 5 cm below the ego"),
        body("parked_2", CAR, [20, -1.9], static=True),
        body("parked_3", CAR, [30, -1.75], angle=0.12, static=True,
             _comment="badly parked: its front corner juts 0.4 into the lane"),
    ]
    # "_comment" inside a body object is allowed (keys starting with "_" are ignored)
    pos, h = ego_move(0)
    add0 = [body("ego", box2(*EGO_H), pos, angle=h)] + parked + [
        body("truck", box2(4, 1.2), [70, 2.2], angle=0.0, _comment="rides the centre line: 5 cm from the ego"),
        body("walker", circle(0.3), [5, -6]),
    ]
    sc.step(add=add0, comment="ego at the start; two parked cars leave 5 cm, a third juts out")

    alive_extra = {"truck": True, "walker": True}
    cutin_start = 14
    bike_on = False
    ped_on = False
    ped_x = None
    for k in range(1, len(s_list)):
        epos, eh = ego_move(k)
        s = s_list[k]
        removes, adds, moves = [], [], [mv("ego", epos, angle=eh)]
        note = None
        # oncoming truck: 1.5 per frame westbound, gone past x = -10
        if alive_extra.get("truck"):
            tx = 70 - 1.5 * k
            if tx < -10:
                removes.append("truck")
                alive_extra["truck"] = False
                note = "the truck leaves the scene"
            else:
                moves.append(mv("truck", [fx(tx), 2.2]))
        if alive_extra.get("walker"):
            moves.append(mv("walker", [fx(5 + 0.14 * k), -6.0]))
            if k == 60:
                removes.append("walker")
                moves.pop()
                alive_extra["walker"] = False
        # the cut-in car: appears in the merge lane, merges, clips the ego, speeds off
        if k == cutin_start:
            adds.append(body("cutin", CAR, [40.0, -3.6], angle=0.0))
            alive_extra["cutin"] = True
            note = "a car appears in the merge lane"
        elif alive_extra.get("cutin"):
            j = k - cutin_start
            cx = 40.0 + 0.3 * j if j <= 23 else 40.0 + 0.3 * 23 + 1.8 * (j - 23)
            if j == 13:
                note = "the cut-in car merges too early, towards the ego's lane"
            elif j == 24:
                note = "the cut-in driver speeds off"
            if j <= 12:
                cy, ca = -3.6, 0.0
            elif j <= 22:
                u = (j - 12) / 10
                cy = -3.6 + 2.6 * (1 - math.cos(math.pi * u)) / 2
                ca = 0.25 * math.sin(math.pi * u)
            else:
                cy, ca = -1.0, 0.0
            if cx > 75:
                removes.append("cutin")
                alive_extra["cutin"] = False
            else:
                moves.append(mv("cutin", [fx(cx), fx(cy)], angle=fx(ca)))
        # the cyclist: alongside the ego through the curve, 5 cm outside it
        if straight + 0.3 * R < s < straight + arc and not bike_on and "bike_done" not in alive_extra:
            phi = (s - straight) / R
            rb = R + EGO_H[1] + 0.05 + 0.5
            adds.append(body("bike", circle(0.5), [fx(straight + rb * math.sin(phi)), fx(R - rb * math.cos(phi))]))
            bike_on = True
            note = "a cyclist rides alongside in the curve, 5 cm away"
        elif bike_on:
            if s >= straight + arc:
                removes.append("bike")
                bike_on = False
                alive_extra["bike_done"] = True
            else:
                phi = (s - straight) / R
                rb = R + EGO_H[1] + 0.05 + 0.5
                moves.append(mv("bike", [fx(straight + rb * math.sin(phi)), fx(R - rb * math.cos(phi))]))
        # the pedestrian at the crosswalk
        if k == stop_frame - 4:
            ped_x = 70.0
            adds.append(body("pedestrian", circle(0.3), [ped_x, crosswalk_y]))
            ped_on = True
            note = "a pedestrian steps onto the crosswalk; the ego brakes"
        elif ped_on:
            ped_x -= 0.4
            if ped_x < 61:
                removes.append("pedestrian")
                ped_on = False
            else:
                moves.append(mv("pedestrian", [fx(ped_x), crosswalk_y]))
                if 65.0 < ped_x < 67.0:
                    note = "the pedestrian passes 5 cm in front of the stopped ego"
        if k == stop_frame:
            note = "the ego has stopped"

        def build(kk, removes=removes, adds=adds, moves=moves):
            if kk == 0:
                return removes, adds, moves
            # only the jittery merge can land near touching: nudge the cut-in
            out = []
            for m in moves:
                if m["id"] == "cutin":
                    m = mv("cutin", [fx(m["position"][0] + nudge(kk)), m["position"][1]], angle=m["angle"])
                out.append(m)
            return removes, adds, out

        sc.step_nudged(build, comment=note)
    return sc
