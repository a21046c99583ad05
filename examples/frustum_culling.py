"""View-frustum culling of a field of 3D boxes, batched.

A camera looks over a field of crates. Which crates must be drawn? Each box is
classified against the six planes of the camera's view frustum, all boxes in
one call of ``classify_box_planes``:

* ``OUTSIDE``: entirely outside one of the planes; skip it.
* ``INSIDE``: inside all six; draw it, no clipping needed.
* ``INTERSECTING``: everything else; draw it and let the GPU clip.

Touching counts, as everywhere in collideworld: a crate whose face lies
exactly on the far plane is INTERSECTING, not OUTSIDE.

NOTE: the test is the usual conservative one. A crate just beyond an edge or
corner of the frustum can be outside it yet outside no single plane; it is
then reported INTERSECTING (drawn for nothing), never wrongly OUTSIDE. The
example builds such a crate on purpose.

The second half does the same with a World: the six planes become ``Plane``
bodies, the crates boxes, and a crate is visible when it is in contact with
all six planes. That answers "visible or not" only; INSIDE vs INTERSECTING
needs ``classify_box_planes``.

Run from the repository root::

    python examples/frustum_culling.py
"""

from __future__ import annotations

import math
import time

import numpy as np

from collideworld import Box, Plane, Side, World, classify_box_planes
from collideworld.culling import frustum_planes

N_FIELD = 1500
RNG = np.random.default_rng(7)

# The camera: 2 m above the ground at the origin, looking east (+x).
EYE = np.array([0.0, 0.0, 2.0])
FORWARD, UP = np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])
FOV_Y, ASPECT, NEAR, FAR = math.radians(60), 16 / 9, 0.5, 100.0


def yaw_matrices(yaw: np.ndarray) -> np.ndarray:
    """Rotations about the vertical axis, shape (N, 3, 3), columns = box axes."""
    c, s = np.cos(yaw), np.sin(yaw)
    rot = np.zeros((len(yaw), 3, 3))
    rot[:, 0, 0], rot[:, 0, 1], rot[:, 1, 0], rot[:, 1, 1], rot[:, 2, 2] = c, -s, s, c, 1.0
    return rot


def hand_placed(normals: np.ndarray, offsets: np.ndarray) -> dict[str, tuple[list, list, float, Side]]:
    """Crates whose side we know by hand: name -> (centre, half extents, yaw, expected side)."""
    far_x = EYE @ FORWARD + FAR  # the far plane is x = 100
    # The conservative case: a 10 m crate beyond the edge where the far and
    # left planes meet. Push it out from the edge along the bisector b of the
    # two outward normals, by t = 2 h. Per plane, a box reaches the plane when
    # its centre is within its projected radius of it; here (fov 60 deg,
    # aspect 16/9) that holds for both planes, so neither plane alone rejects
    # it. But the plane through the edge with normal b touches the frustum
    # without entering it, and the crate lies entirely beyond that plane.
    n_far, n_left = normals[1], normals[2]
    edge_point = np.linalg.solve(np.stack([n_far, n_left, UP]), [offsets[1], offsets[2], EYE[2]])
    b = (n_far + n_left) / np.linalg.norm(n_far + n_left)
    h = 5.0
    corner_crate = edge_point + 2.0 * h * b
    # the crate's lowest point along b is beyond the edge: it is invisible
    assert b @ corner_crate - h * np.abs(b).sum() > b @ edge_point
    return {
        "ahead": ([20.0, 0.0, 1.0], [1.0, 1.0, 1.0], 0.3, Side.INSIDE),
        "behind_camera": ([-10.0, 0.0, 1.0], [1.0, 1.0, 1.0], 0.0, Side.OUTSIDE),
        "across_near_plane": ([0.5, 0.0, 2.0], [0.2, 0.2, 0.2], 0.0, Side.INTERSECTING),
        "across_far_plane": ([far_x, 0.0, 1.0], [1.0, 1.0, 1.0], 0.0, Side.INTERSECTING),
        # its west face lies exactly on the far plane: touching counts
        "touching_far_plane": ([far_x + 1.0, 0.0, 1.0], [1.0, 1.0, 1.0], 0.0, Side.INTERSECTING),
        "1e-9_beyond_far": ([far_x + 1.0 + 1e-9, 0.0, 1.0], [1.0, 1.0, 1.0], 0.0, Side.OUTSIDE),
        "beyond_far_left_edge": (corner_crate.tolist(), [h, h, h], 0.0, Side.INTERSECTING),
    }


def main() -> None:
    # Outward normals, order near, far, left, right, bottom, top; the frustum
    # is normals @ p <= offsets.
    normals, offsets = frustum_planes(EYE, FORWARD, UP, FOV_Y, ASPECT, NEAR, FAR)
    known = hand_placed(normals, offsets)

    # The field: random crates standing on the ground, turned about the vertical.
    half = RNG.uniform(0.3, 2.5, size=(N_FIELD, 3))
    center = np.column_stack([RNG.uniform(-60, 160, N_FIELD), RNG.uniform(-120, 120, N_FIELD), half[:, 2]])
    yaw = RNG.uniform(0, 2 * math.pi, N_FIELD)
    # the hand-placed crates go first, so crate i < len(known) is known[i]
    names = list(known)
    center = np.vstack([[v[0] for v in known.values()], center])
    half = np.vstack([[v[1] for v in known.values()], half])
    yaw = np.concatenate([[v[2] for v in known.values()], yaw])
    rot = yaw_matrices(yaw)
    n = len(center)

    # -- 1. one batched call ----------------------------------------------------
    started = time.perf_counter()
    side = classify_box_planes(center, rot, half, normals, offsets)  # (n,) int8
    ms = 1e3 * (time.perf_counter() - started)
    counts = {s.name: int(np.sum(side == s)) for s in Side}
    print(f"camera at {EYE.tolist()} looking +x, fov {math.degrees(FOV_Y):.0f} deg, "
          f"near {NEAR}, far {FAR}: {n} crates classified in one call ({ms:.1f} ms)")
    print("  " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    print("hand-placed crates:")
    for i, name in enumerate(names):
        expected = known[name][3]
        print(f"  {name:<22} {Side(side[i]).name:<13} (expected {expected.name})")
        assert side[i] == expected, f"{name}: expected {expected.name}, got {Side(side[i]).name}"
    assert sum(counts.values()) == n
    assert all(counts[s.name] > 0 for s in Side), counts

    # -- 2. the same with a World of Plane bodies -------------------------------
    # Planes are always static, and two static bodies are never reported, so
    # the crates must be dynamic here even though they do not move.
    # Category bits keep crate-crate overlaps out of the answer.
    CRATE, FRUSTUM = 1, 2
    world = World(dim=3)
    for name, nrm, off in zip(["near", "far", "left", "right", "bottom", "top"], normals, offsets, strict=True):
        world.add(Plane(tuple(nrm), float(off)), category=FRUSTUM, mask=CRATE, id=f"plane_{name}")
    crate_ids = world.add_many([Box(tuple(h)) for h in half],
                               center, quaternions=rot, category=CRATE, mask=FRUSTUM)
    contacts = world.step()
    # A crate is in contact with a plane body when it reaches into that
    # plane's solid side, the frustum's side: so visible = all six planes.
    planes_touched = dict.fromkeys(crate_ids, 0)
    for a, b in contacts.pairs():
        crate = b if isinstance(a, str) else a  # planes have str ids, crates int ids
        planes_touched[crate] += 1
    visible = {c for c, k in planes_touched.items() if k == 6}
    print(f"World with 6 Plane bodies: {len(contacts)} crate-plane contacts, "
          f"{len(visible)} crates touch all six planes")

    # The two answers agree crate by crate: visible <=> not OUTSIDE.
    not_outside = {crate_ids[i] for i in np.flatnonzero(side != Side.OUTSIDE)}
    assert visible == not_outside, (sorted(visible ^ not_outside)[:10], "differ")
    print("the World and classify_box_planes agree on every crate")


if __name__ == "__main__":
    main()
