"""Generator of ``frustum_culling.jsonl``: six planes bound a view
frustum; boxes are "visible" when they touch all six."""

from __future__ import annotations

import math

import numpy as np

from .common import (
    Scenario,
    body,
    box3,
    fx,
    mv,
    nudge,
    plane,
)

FRUSTUM_PLANES = ("near", "far", "left", "right", "top", "bottom")


def frustum_planes(cam, yaw, near=1.0, far=40.0, side=1.0, up=0.5):
    """Six planes with normals pointing out of the view volume.

    Camera at ``cam`` looking along (cos yaw, sin yaw, 0). The view volume is
    the intersection of their solids (n.p <= d). Side planes have a horizontal
    half-angle of atan(side), top/bottom a vertical half-angle of atan(up).
    Normals are not unit length on purpose (the format normalises them).
    """
    c, s = math.cos(yaw), math.sin(yaw)
    fwd = np.array([c, s, 0.0])
    left = np.array([-s, c, 0.0])
    zup = np.array([0.0, 0.0, 1.0])
    cam = np.array(cam, dtype=float)
    normals = {
        "near": -fwd,
        "far": fwd,
        "left": left - side * fwd,
        "right": -left - side * fwd,
        "top": 2 * zup - 2 * up * fwd,
        "bottom": -2 * zup - 2 * up * fwd,
    }
    out = []
    for name in FRUSTUM_PLANES:
        n = [fx(v, 6) for v in normals[name]]
        n_arr = np.array(n)
        if name == "near":
            d = float(n_arr @ (cam + near * fwd))
        elif name == "far":
            d = float(n_arr @ (cam + far * fwd))
        else:
            d = float(n_arr @ cam)
        out.append(body(name, plane(n, fx(d, 6)), category=2, mask=1))
    return out


def story_frustum_culling():
    sc = Scenario(
        "frustum_culling.jsonl", 3, "frustum-culling",
        "View-frustum culling with contacts. Six static planes bound the camera's "
        "view volume; each normal points out of the volume, so each plane's solid "
        "(n.p <= d) is the side the visible region is on. A box is in contact with a "
        "plane when it reaches into that half-space, so a box is (conservatively) "
        "visible exactly when it contacts all six planes; a box beyond one plane "
        "lacks that plane. The planes are category 2 with mask 1 and the boxes "
        "category 1 with mask 2, so box-box pairs are never reported: expect only "
        "shows box-plane pairs. Crates in the field do not move but are dynamic "
        "(static: false), because a static crate and a static plane would never "
        "be reported, as the static 'monument' shows. Carts and a drone move "
        "through the view. From frame 27 (line 28) the camera pans left: planes cannot "
        "move, so each frame removes the six planes and adds them again.",
        comment="camera at (0, 0, 2), looking along +x, near 1, far 40, horizontal and "
                "vertical half-angles atan(1) and atan(0.5)",
    )
    cam = (0.0, 0.0, 2.0)
    crates = [
        body("crate_a", box3(1.0, 1.0, 1.0), [8.0, -5.0, 1.0], _comment="in view until late in the pan"),
        body("crate_b", box3(1.0, 1.0, 1.0), [20.0, 6.0, 1.0], _comment="in view throughout"),
        body("crate_c", box3(1.0, 1.0, 1.0), [12.0, 16.0, 1.0], _comment="left of the view; the pan brings it in"),
        body("crate_d", box3(1.0, 1.0, 1.0), [22.0, -26.0, 1.0], _comment="right of the view"),
    ]
    crates.append(body("crate_far", box3(2.0, 2.0, 2.0), [45.0, 3.0, 2.0],
                       _comment="beyond the far plane until the camera turns"))
    crates.append(body("crate_behind", box3(1.0, 1.0, 1.0), [-5.0, 0.5, 1.2],
                       _comment="behind the camera: only the planes facing away are touched"))
    monument = body("monument", box3(1.5, 1.5, 3.0), [15.0, 2.0, 3.0], static=True,
                    _comment="static: never reported against the static planes")
    for b in crates:
        b["category"] = 1
        b["mask"] = 2
    monument["category"] = 1
    monument["mask"] = 2
    planes = frustum_planes(cam, 0.0)
    sc.step(add=planes + crates + [monument],
            comment="planes, crates and the static monument", details=[("near", "crate_a"), ("bottom", "crate_b")])
    sc.frames[-1]["_visible"] = visible_boxes(sc.history[-1])

    movers = {
        "cart": (box3(1.5, 0.8, 0.7), lambda k: [12.0, fx(-30.0 + 1.2 * k), 0.7]),
        "drone": (box3(0.5, 0.5, 0.2), lambda k: [fx(10.0 + 0.05 * k), 3.0, fx(-1.0 + 0.35 * k)]),
        "truck": (box3(3.0, 1.2, 1.5), lambda k: [fx(55.0 - 1.4 * k), -2.0, 1.5]),
    }
    nframes = 50
    started = set()
    for k in range(1, nframes):
        removes, adds, moves = [], [], []
        note = None
        for name, (shape, where) in movers.items():
            pos = where(k)
            if name not in started:
                started.add(name)
                adds.append(body(name, shape, pos, category=1, mask=2))
            else:
                moves.append(mv(name, pos))
        if k == 1:
            note = "a cart, a drone and a truck join"
        if k > 25:
            yaw = fx(0.02 * (k - 25), 6)
            removes += list(FRUSTUM_PLANES)
            adds = frustum_planes(cam, yaw) + adds
            if k == 26:
                note = "the camera starts to pan left: the planes are replaced every frame"

        def build(kk, removes=removes, adds=adds, moves=moves):
            if kk == 0:
                return removes, adds, moves
            out = [mv(m["id"], [fx(m["position"][0] + nudge(kk, 0.002)), *m["position"][1:]])
                   for m in moves]
            return removes, adds, out

        got = sc.step_nudged(build, comment=note)
        sc.frames[-1]["_visible"] = visible_boxes(got)
    return sc


def visible_boxes(contacts):
    """Boxes touching all six frustum planes (a readable summary, a comment key)."""
    seen = {}
    for a, b in contacts:
        box_id = b if a in FRUSTUM_PLANES else a
        seen[box_id] = seen.get(box_id, 0) + 1
    return sorted(i for i, n in seen.items() if n == 6)
