"""Generator of ``filtering_static.jsonl``: category/mask filtering and static bodies."""

from __future__ import annotations

import numpy as np

from .common import (
    Scenario,
    body,
    box2,
    circle,
    fx,
    lerp,
    mv,
    nudge,
)

PLAYER, ENEMY, PBULLET, EBULLET, WALL, PICKUP, SENSOR = 1, 2, 4, 8, 16, 32, 64
HIGH_BIT = 2147483648  # bit 31: the top of the uint32 range


def story_filtering_static():
    sc = Scenario(
        "filtering_static.jsonl", 2, "filtering-and-static",
        "A top-down shooter level that exercises filtering and static bodies. "
        "Static walls cross each other and a static pillar overlaps both, a static "
        "pickup lies on a wall, and a static door slides through a wall: none of "
        "those static-static overlaps is ever reported. Categories: player 1, "
        "enemy 2, player bullet 4 (mask: enemies and walls), enemy bullet 8 (mask: "
        "player and walls), wall 16, pickup 32 (mask: player only), sensor 64. A "
        "trap sensor's mask wants enemies but the enemies' mask leaves out 64, so "
        "the filter fails one way and the pair is never reported, even while they "
        "overlap; a player bullet passing through the player is not reported either "
        "(its mask leaves out the player). A ghost with category 0 touches nothing. "
        "Two beacons use only bit 31 (2147483648). Static-dynamic pairs are "
        "reported as usual.",
        comment="expect lists only pairs that pass both filter directions and are not "
                "both static",
    )
    level = [
        body("wall_north", box2(10, 0.5), [0, 10], static=True, category=WALL),
        body("wall_east", box2(0.5, 10), [10, 0], static=True, category=WALL),
        body("wall_mid", box2(6, 0.5), [0, 0], angle=0.0, static=True, category=WALL),
        body("pillar", circle(1.2), [9.6, 9.6], static=True, category=WALL,
             _comment="overlaps both walls: static-static, never reported"),
        body("medkit", circle(0.4), [4, 0.3], static=True, category=PICKUP, mask=PLAYER,
             _comment="lies on wall_mid: static-static"),
        body("door", box2(0.4, 1.5), [6, 0], angle=0.0, static=True, category=WALL,
             _comment="a static door that slides (a static body may be moved)"),
        body("trap", box2(1.5, 1.5), [-4, 5], static=False, category=SENSOR, mask=ENEMY,
             _comment="wants enemies, but the enemies' mask leaves out 64: one-way"),
        body("ghost", circle(1.0), [-6, 6], category=0,
             _comment="category 0: no mask matches it"),
        body("beacon_a", circle(0.5), [-7.4, -7.4], category=HIGH_BIT, mask=HIGH_BIT),
        body("beacon_b", circle(0.5), [-8, -8], category=HIGH_BIT, mask=HIGH_BIT | PLAYER),
    ]
    actors = [
        body("player", box2(0.5, 0.5), [-8, 2], angle=0.0, category=PLAYER),
        body("enemy_1", circle(0.6), [5, 6], category=ENEMY, mask=PLAYER | ENEMY | PBULLET | WALL),
        body("enemy_2", circle(0.6), [-4, 8], category=ENEMY, mask=PLAYER | ENEMY | PBULLET | WALL),
    ]
    sc.step(add=level + actors, comment="the level: every static overlap is silent")

    # scripted tracks: frame -> position, linear between keys
    def track(keys, k):
        ks = sorted(keys)
        if k <= ks[0]:
            return keys[ks[0]]
        for a, b in zip(ks, ks[1:], strict=False):
            if a <= k <= b:
                t = (k - a) / (b - a)
                return [lerp(keys[a][0], keys[b][0], t), lerp(keys[a][1], keys[b][1], t)]
        return keys[ks[-1]]

    player_keys = {0: [-8, 2], 8: [-4, 4.5], 14: [-6, 6], 20: [-8, -7.2], 22: [-8, -7.2], 26: [-5, -0.8],
                   28: [-5, -0.8], 30: [-7, -1], 32: [-7, 1.5], 37: [4.0, 0.9], 39: [4.0, 0.9],
                   43: [6.8, 3], 50: [9.0, 8.8]}
    enemy1_keys = {0: [5, 6], 10: [-3, 6.5], 18: [-4, 4], 26: [1, 5], 40: [7, 8.6], 50: [7, 8.6]}
    enemy2_keys = {0: [-4, 8], 12: [-4, 8], 22: [-1.2, 6.4], 50: [-1.2, 6.4]}
    notes = {
        6: "the player walks over the trap: the trap's mask wants enemies only",
        12: "enemy_1 crosses the trap: the trap wants it, it does not want the trap",
        14: "the player stands in the category-0 ghost: never reported",
        20: "the player meets both beacons: beacon_b's mask has bit 1, beacon_a's has only bit 31",
        26: "the player bumps the static wall_mid from below: static-dynamic is reported",
        30: "the door slides into wall_east: static-static stays silent",
        32: "the player fires at enemy_2; the bullet flies through the player and the trap",
        37: "the player steps on the medkit (and leans on wall_mid)",
        39: "enemy_1 fires at the player",
    }
    bullets = {}  # id -> [x, y, vx, vy]
    hit = set()
    for k in range(1, 51):
        removes, adds, moves = [], [], []
        p = track(player_keys, k)
        moves.append(mv("player", [fx(p[0]), fx(p[1])], angle=0.0))
        moves.append(mv("enemy_1", [fx(v) for v in track(enemy1_keys, k)]))
        moves.append(mv("enemy_2", [fx(v) for v in track(enemy2_keys, k)]))
        for bid in sorted(bullets):
            if bid in hit:
                removes.append(bid)
                del bullets[bid]
                notes.setdefault(k, f"{bid} hit something and is removed")
            else:
                st = bullets[bid]
                st[0] += st[2]
                st[1] += st[3]
                moves.append(mv(bid, [fx(st[0]), fx(st[1])]))
        if k == 32:
            d = np.array(track(enemy2_keys, 40)) - np.array(p)
            v = 0.7 * d / np.linalg.norm(d)
            bullets["pbullet"] = [p[0] + 0.3, p[1] + 0.2, float(v[0]), float(v[1])]
            adds.append(body("pbullet", circle(0.15), [fx(p[0] + 0.3), fx(p[1] + 0.2)],
                             category=PBULLET, mask=ENEMY | WALL))
        if k == 39:
            src = track(enemy1_keys, 39)
            src = [src[0], src[1] - 0.7]
            d = np.array(track(player_keys, 44)) - np.array(src)
            v = d / 5
            bullets["ebullet"] = [src[0], src[1], float(v[0]), float(v[1])]
            adds.append(body("ebullet", circle(0.15), [fx(src[0]), fx(src[1])],
                             category=EBULLET, mask=PLAYER | WALL))
        if 28 <= k <= 38:
            moves.append(mv("door", [fx(6.0 + 0.4 * (k - 28)), 0.0], angle=0.0))
        if k == 40:
            removes.append("medkit")
            notes[k] = "the medkit is used up"

        def build(kk, removes=removes, adds=adds, moves=moves):
            if kk == 0:
                return removes, adds, moves
            out = []
            for m in moves:
                if m["id"] in ("player", "enemy_1", "enemy_2", "pbullet", "ebullet"):
                    m = dict(m, position=[fx(m["position"][0] + nudge(kk, 0.003)), m["position"][1]])
                out.append(m)
            return removes, adds, out

        got = sc.step_nudged(build, comment=notes.get(k), details="all" if k % 6 == 0 else None)
        hit = {b for pair in got for b in pair if b in bullets}
    return sc
