"""Check an autonomous car's planned trajectory against predicted traffic.

The planner gives the ego car's footprint (an oriented box) at each future
time step, along a road that runs straight and then turns left. A prediction
module gives every other road user's footprint at the same steps: parked
cars, an oncoming truck, a car cutting in, pedestrians (circles). For each
step we put all of them in one World (adding road users as they appear,
moving them, removing them when they leave) and ``step()`` it.

* A **collision** is a contact of the ego footprint with anyone: touching
  counts (depth 0), so a plan that merely grazes another car is rejected.
* A **near miss** is a contact of a second, grown footprint, the ego box
  enlarged by a safety margin on every side, without a collision.

The World reports contacts, not distances. For near misses we measure the
clearance with ``collideworld.collide`` on that one pair: bisect the growth
margin at which the grown ego box starts to touch. Across a face this is the
true gap; at a corner it is smaller (a grown box has square corners), so it
never overstates the clearance.

NOTE: the check runs at the planner's time steps only. Something that passes
through the ego between two steps is not seen; a real checker samples finer
or sweeps the footprints.

Run from the repository root::

    python examples/driving_trajectory_check.py
"""

from __future__ import annotations

import math

import numpy as np

from collideworld import Box, Circle, World, collide

DT = 0.25            # s between planned poses
STEPS = 30
SPEED = 8.0          # m/s, so 2 m per step
STRAIGHT = 30.0      # m of straight road before the curve
RADIUS = 20.0        # m, the left turn
SAFETY = 0.25        # m: closer than this is a near miss

EGO_HALF = (2.3, 0.95)  # a 4.6 x 1.9 m car
CAR_HALF = (2.2, 0.9)

# Filtering: the ego and its safety box touch other road users, never each
# other, and other road users are not checked against each other.
EGO, EGO_SAFETY, OTHER = 1, 2, 4


def ego_pose(k: int) -> tuple[np.ndarray, float]:
    """Planned pose at step k: straight east along y = 0, then a left arc."""
    s = SPEED * DT * k
    if s <= STRAIGHT:
        return np.array([s, 0.0]), 0.0
    phi = (s - STRAIGHT) / RADIUS
    return np.array([STRAIGHT + RADIUS * math.sin(phi), RADIUS * (1.0 - math.cos(phi))]), phi


def in_ego_frame(k: int, forward: float, left: float) -> tuple[np.ndarray, float]:
    """The world pose ``forward`` ahead of and ``left`` of the ego at step k, same heading."""
    p, h = ego_pose(k)
    c, s = math.cos(h), math.sin(h)
    return p + forward * np.array([c, s]) + left * np.array([-s, c]), h


CUT_IN_STEP = 22  # on the curve


def predictions() -> dict[str, tuple[object, dict[int, tuple[np.ndarray, float]]]]:
    """Each road user's shape and its pose at the steps it is in the scene."""
    return {
        # Parked beside the straight: its top edge at y = -1.0, 5 cm below
        # the ego's right side (y = -0.95). A near miss, never a collision.
        "parked_car": (Box(CAR_HALF), {k: (np.array([12.0, -1.9]), 0.0) for k in range(STEPS)}),
        # Oncoming in the other lane, its right side 20 cm from the ego's
        # left side: centre y = 0.95 + 0.20 + 1.2. It passes around step 10.
        "oncoming_truck": (Box((4.0, 1.2)),
                           {k: (np.array([50.0 - 3.0 * k, 2.35]), math.pi) for k in range(21)}),
        # Waiting on the curb, 15 cm below the ego's right side.
        "pedestrian_curb": (Circle(0.3), {k: (np.array([5.0, -1.4]), 0.0) for k in range(STEPS)}),
        # Crossing at x = 28 and already on the far side when the ego gets
        # there: at step 13 (ego at x in [23.7, 28.3]) they are at y = 1.9.
        "pedestrian_crossing": (Circle(0.3),
                                {k: (np.array([28.0, -2.0 + 0.3 * k]), 0.0) for k in range(28)}),
        # Cuts in from the right, 4.2 m ahead (the two cars overlap 0.3 m
        # lengthwise), moving 1.5 m to the left per step. The sides first
        # overlap when |left| <= 0.95 + 0.9 = 1.85, which happens at
        # CUT_IN_STEP (left = -0.5); one step earlier (left = -2.0) the gap
        # is 0.15 m. Predicted relative to the plan to make this easy to
        # check by hand.
        "cut_in_car": (Box(CAR_HALF), {
            k: in_ego_frame(k, 4.2, -0.5 - 1.5 * max(CUT_IN_STEP - k, 0))
            for k in range(CUT_IN_STEP - 3, STEPS)}),
    }


def clearance(ego_at: tuple[np.ndarray, float], shape, pose) -> float:
    """Growth margin in [0, SAFETY] at which the ego box starts touching (bisection)."""
    lo, hi = 0.0, SAFETY
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        grown = Box((EGO_HALF[0] + mid, EGO_HALF[1] + mid))
        if collide(grown, ego_at, shape, pose) is None:
            lo = mid
        else:
            hi = mid
    return hi


def _same_pose(p: tuple[np.ndarray, float], q: tuple[np.ndarray, float]) -> bool:
    return bool(np.array_equal(p[0], q[0])) and p[1] == q[1]


def check_plan() -> dict:
    """Run the plan through a World; return what was found."""
    world = World(dim=2)
    # The ego and its safety box first: a pair's ``a`` is the body added
    # first, so every contact normal points from the ego to the other body.
    world.add(Box(EGO_HALF), position=ego_pose(0)[0], category=EGO, mask=OTHER, id="ego")
    world.add(Box((EGO_HALF[0] + SAFETY, EGO_HALF[1] + SAFETY)), position=ego_pose(0)[0],
              category=EGO_SAFETY, mask=OTHER, id="ego_safety")
    others = predictions()
    collisions: list[tuple[int, str, float, np.ndarray]] = []
    near_misses: list[tuple[int, str, float]] = []

    for k in range(STEPS):
        p, h = ego_pose(k)
        world.move_many(["ego", "ego_safety"], positions=[p, p], angles=[h, h])
        for name, (shape, track) in others.items():
            if k not in track:
                if name in world:  # left the scene
                    world.remove(name)
            elif name not in world:  # entered the scene
                world.add(shape, position=track[k][0], angle=track[k][1], static=name.startswith("parked"),
                          category=OTHER, mask=EGO | EGO_SAFETY, id=name)
            elif not _same_pose(track[k], track[k - 1]):
                # Move only what moved: a pair in which neither body moved
                # keeps last step's answer without being tested again.
                world.move(name, position=track[k][0], angle=track[k][1])
        contacts = world.step()

        hit = {}
        for c in contacts:
            if c.a == "ego":
                hit[c.b] = c
        for name, c in hit.items():
            collisions.append((k, name, c.depth, c.normal))
        for c in contacts:
            if c.a == "ego_safety" and c.b not in hit:
                shape, track = others[c.b]
                near_misses.append((k, c.b, clearance((p, h), shape, track[k])))

    return {"collisions": collisions, "near_misses": near_misses}


def main() -> None:
    found = check_plan()
    collisions, near_misses = found["collisions"], found["near_misses"]

    print(f"plan: {STEPS} poses, dt {DT} s, {SPEED:g} m/s, straight {STRAIGHT:g} m then a left turn "
          f"of radius {RADIUS:g} m; safety margin {SAFETY} m")
    # One line per run of consecutive steps with the same event.
    events = sorted([(n, "COLLISION", k, round(d, 3)) for k, n, d, _ in collisions]
                    + [(n, "near miss", k, round(g, 3)) for k, n, g in near_misses],
                    key=lambda e: (e[2], e[0]))
    runs: list[list] = []
    for name, what, k, value in events:
        for run in runs:
            if run[:2] == [name, what] and run[3] == k - 1 and run[4] == value:
                run[3] = k
                break
        else:
            runs.append([name, what, k, k, value])
    print("steps    t (s)        road user            event       depth / clearance (m)")
    for name, what, k1, k2, value in runs:
        print(f"{k1:2d}-{k2:<2d}    {k1 * DT:4.2f}-{k2 * DT:4.2f}    {name:<20} {what:<11} {value:.3f}")

    first = min(collisions, key=lambda e: e[0])
    k0, name0, depth0, normal0 = first
    closest = min(near_misses, key=lambda e: (round(e[2], 9), e[0]))
    print(f"first collision: step {k0} (t = {k0 * DT:.2f} s) with {name0}, depth {depth0:.3f} m")
    print(f"minimum clearance without collision: {closest[2]:.3f} m ({closest[1]} at step {closest[0]})")

    # Key facts, worked out by hand in predictions().
    assert (k0, name0) == (CUT_IN_STEP, "cut_in_car"), first
    assert math.isclose(depth0, 0.3, abs_tol=1e-9), depth0
    heading = ego_pose(CUT_IN_STEP)[1]
    # normal from the ego towards the car ahead of it: the ego's heading
    assert np.allclose(normal0, [math.cos(heading), math.sin(heading)], atol=1e-9), normal0
    assert {n for _, n, _, _ in collisions} == {"cut_in_car"}, "only the cut-in is a collision"
    assert [k for k, _, _, _ in collisions] == list(range(CUT_IN_STEP, STEPS))
    gaps = {}
    for _, name, gap in near_misses:
        gaps[name] = min(gap, gaps.get(name, math.inf))
    assert set(gaps) == {"parked_car", "oncoming_truck", "pedestrian_curb", "cut_in_car"}, gaps
    for name, expected in [("parked_car", 0.05), ("oncoming_truck", 0.20),
                           ("pedestrian_curb", 0.15), ("cut_in_car", 0.15)]:
        assert math.isclose(gaps[name], expected, abs_tol=1e-6), (name, gaps[name], expected)
    # the steps at which each one is alongside (worked out from the x ranges)
    for name, steps in [("pedestrian_curb", [2, 3]), ("parked_car", [4, 5, 6, 7, 8]),
                        ("oncoming_truck", [9, 10, 11]), ("cut_in_car", [CUT_IN_STEP - 1])]:
        assert [k for k, n, _ in near_misses if n == name] == steps, (name, near_misses)
    print("all trajectory checks passed")


if __name__ == "__main__":
    main()
