"""Generator of ``tumbling_3d.jsonl``: boxes and spheres falling onto a ground plane."""

from __future__ import annotations

import math

from .common import (
    Scenario,
    body,
    box3,
    fx,
    mv,
    nudge,
    plane,
    quat_axis_angle,
    sphere,
)

G_PER_FRAME = 9.81 * 0.05 * 0.05  # gravity in units per frame^2 (dt = 0.05 s)


class Faller:
    """A scripted body: free fall while tumbling, then resting flat (yaw only)."""

    def __init__(self, bid, shape, start, frame0, rest_z, *, axis=None, spin=0.0,
                 rest_yaw=0.0, rest_q=None, vel=(0.0, 0.0, 0.0)):
        self.bid, self.shape, self.frame0 = bid, shape, frame0
        self.p = list(start)
        self.v = list(vel)
        self.rest_z = rest_z
        self.axis, self.spin, self.rest_yaw = axis, spin, rest_yaw
        self.rest_q = rest_q
        self.angle = 0.0
        self.resting = False
        self.is_box = shape["type"] == "box"

    def quaternion(self):
        if not self.is_box:
            return None
        if self.resting:
            return self.rest_q or quat_axis_angle((0, 0, 1), self.rest_yaw)
        return quat_axis_angle(self.axis, self.angle) if self.axis else [1.0, 0.0, 0.0, 0.0]

    def advance(self):
        if self.resting:
            return
        self.v[2] -= G_PER_FRAME
        for i in range(3):
            self.p[i] += self.v[i]
        self.angle += self.spin
        if self.p[2] <= self.rest_z:
            self.p[2] = self.rest_z
            self.resting = True
            self.v = [0.0, 0.0, 0.0]

    def pose(self, nudge_x=0.0):
        pos = [fx(self.p[0] + nudge_x), fx(self.p[1]), fx(self.p[2])]
        return pos, self.quaternion()


def story_tumbling_3d():
    sc = Scenario(
        "tumbling_3d.jsonl", 3, "tumbling-3d",
        "Boxes tumble (changing quaternions) and spheres fall onto a ground plane "
        "(normal [0,0,1], offset 0: the solid is z <= 0). Each body comes to rest "
        "1 cm into the ground or into the body below it; a ball dropped on crate_a "
        "stays on it; crate_e lands on an edge (tilted 45 degrees); ball_b rolls along "
        "the ground 5 mm deep and bounces off "
        "crate_a; two crates thrown at each other collide mid-air, bounce apart and "
        "land; at the end a sphere is picked up (removed). expect is every pair in "
        "contact; expect_contacts (every 10th frame) gives the exact normal and "
        "depth for plane and sphere pairs.",
        comment="the script is kinematic: positions follow free fall with g = 9.81 and "
                "dt = 0.05 s; bounces are triggered by this generator's own contact test",
    )
    ground = body("ground", plane([0, 0, 1], 0))
    fallers = [
        Faller("crate_a", box3(0.5, 0.5, 0.5), (0.0, 0.0, 6.0), 1, 0.49, axis=(1, 1, 0),
               spin=0.3, rest_yaw=0.3),
        Faller("crate_b", box3(1.0, 0.4, 0.3), (3.0, 0.5, 8.0), 8, 0.29, axis=(0, 1, 1),
               spin=0.25, rest_yaw=-0.5),
        Faller("ball_a", sphere(0.4), (0.1, -0.05, 7.0), 20, 0.99 + 0.4 - 0.02),
        Faller("crate_c", box3(0.5, 0.5, 0.5), (-5.0, 4.0, 5.0), 30, 0.49, axis=(1, 0, 1),
               spin=0.2, rest_yaw=0.2, vel=(0.25, 0.0, 0.25)),
        Faller("crate_d", box3(0.6, 0.4, 0.4), (5.0, 4.0, 5.0), 30, 0.39, axis=(0, 1, 0.5),
               spin=-0.22, rest_yaw=1.0, vel=(-0.25, 0.0, 0.25)),
        Faller("crate_e", box3(0.4, 0.4, 0.4), (-3.0, -2.0, 6.0), 45,
               0.4 * math.sqrt(2) - 0.01, axis=(1, 0.2, 0), spin=0.15,
               rest_q=quat_axis_angle((1, 0, 0), math.pi / 4)),
        Faller("ball_c", sphere(0.3), (3.2, 0.4, 5.0), 62, 0.59 + 0.3 - 0.01),
    ]
    roller = {"id": "ball_b", "r": 0.6, "x": -6.0, "vx": 0.15, "z": 0.6 - 0.005}
    sc.step(add=[ground, body("ball_b", sphere(0.6), [roller["x"], 0.0, fx(roller["z"])])],
            comment="the ground and a ball rolling along it, 5 mm deep", details="all")
    bounced = set()
    last_contacts = set()
    nframes = 100
    for k in range(1, nframes):
        adds, moves, removes = [], [], []
        notes = []
        for f in fallers:
            if k < f.frame0:
                continue
            if k == f.frame0:
                pos, q = f.pose()
                adds.append(body(f.bid, f.shape, pos, quaternion=q))
                notes.append(f"{f.bid} is released")
                continue
            was = f.resting
            if f.bid in ("crate_c", "crate_d") and ("crate_c", "crate_d") in last_contacts \
                    and "cd" not in bounced:
                bounced.add("cd")
                for g in fallers:
                    if g.bid in ("crate_c", "crate_d"):
                        g.v[0] = -g.v[0]
                notes.append("crate_c and crate_d collided: they bounce apart")
            f.advance()
            if f.resting and was:
                continue
            if f.resting:
                notes.append(f"{f.bid} comes to rest")
            moves.append(f)
        # the roller bounces off whatever box it touched in the last frame
        if any("ball_b" in p and any(i.startswith("crate") for i in p) for p in last_contacts) \
                and roller["vx"] > 0:
            roller["vx"] = -roller["vx"]
            notes.append("ball_b bounced off a crate and rolls back")
        roller["x"] += roller["vx"]
        if k == 90:
            removes.append("ball_c")
            notes.append("ball_c is picked up")
            fallers = [f for f in fallers if f.bid != "ball_c"]
            moves = [f for f in moves if f.bid != "ball_c"]

        def build(kk, adds=adds, moves=moves, removes=removes):
            dx = nudge(kk, 0.002)
            out = []
            for f in moves:
                pos, q = f.pose(dx)
                out.append(mv(f.bid, pos, quaternion=q))
            out.append(mv("ball_b", [fx(roller["x"] + dx), 0.0, fx(roller["z"])]))
            return removes, adds, out

        last_contacts = sc.step_nudged(build, comment="; ".join(notes) or None,
                                       details="all" if k % 10 == 0 else None)
    return sc
