"""Generator of ``driving_trajectory.jsonl`` (format version 2): clearances and first touches.

An ego car follows a planned path on a three-lane road: it cruises in the
middle lane behind a slow lead car, changes to the left lane, and passes
the lead car, while a fast car comes up from behind in the left lane and a
truck cruises in the right lane. Every car keeps its heading along the road
(angle 0: the boxes stay axis-aligned, so the geometry has closed forms).

Each frame checks, for the ego against every other car,

* ``expect_distance``: the signed clearance now, and
* ``expect_impact``: the look-ahead a planner checks its path with. The
  ego moves in a straight line to where its plan puts it ``HORIZON``
  frames later; the other car is predicted at its current velocity (its
  last frame's displacement, ``HORIZON`` times); the first time they would
  touch (null: never). It is not the future of the file: the chaser brakes,
  which the constant-velocity prediction does not know.

Both come from :mod:`generators.exact2d` (exact rational arithmetic on the
doubles written), ``expect`` from the shared shapely-based contact test.
"""

from __future__ import annotations

from .common import Scenario, body, box2, fx, mv
from .exact2d import AmbiguousImpact, box_box_distance, box_box_impact, out

HORIZON = 10
FRAMES = 48
EGO_H = (2.3, 0.95)
CAR_H = (2.2, 0.9)
TRUCK_H = (6.0, 1.25)
LANE = 3.5  # lane width: lanes at y = -3.5, 0, 3.5


def ego_plan(k: int):
    """Cruise at 1.2 m per frame in the middle lane, change lanes over frames 12..24, go on."""
    x = 1.2 * k
    if k <= 12:
        y = 0.0
    elif k < 24:
        u = (k - 12) / 12
        y = LANE * u * u * (3 - 2 * u)  # smoothstep: no lateral jump at either end
    else:
        y = LANE
    return [fx(x), fx(y)]


def lead_plan(k: int):
    """The slow lead car: middle lane, 0.2 m per frame."""
    return [fx(24.0 + 0.2 * k), 0.0]


def chaser_plan(k: int):
    """A fast car in the left lane, 2.3 m per frame, slowing to the ego's 1.2 once 2.5 m behind it."""
    if k <= 30:
        x = -40.0 + 2.3 * k
    else:
        x = -40.0 + 2.3 * 30 + 1.2 * (k - 30)
    return [fx(x), LANE]


def truck_plan(k: int):
    """A truck in the right lane, 0.9 m per frame."""
    return [fx(-5.0 + 0.9 * k), -LANE]


OBSTACLES = (
    ("chaser", CAR_H, chaser_plan),
    ("lead", CAR_H, lead_plan),
    ("truck", TRUCK_H, truck_plan),
)


def predicted(plan, k: int):
    """Where a car would be ``HORIZON`` frames after frame k at its current velocity."""
    before = plan(k - 1) if k > 0 else plan(0)
    after = plan(k) if k > 0 else plan(1)
    now = plan(k)
    return [fx(now[i] + HORIZON * (after[i] - before[i])) for i in range(2)]


def _checks(k: int):
    def extra(bodies):
        ego_now, ego_end = ego_plan(k), ego_plan(k + HORIZON)
        assert bodies["ego"]["position"] == ego_now
        distances, impacts = [], []
        for oid, half, plan in OBSTACLES:
            now, end = plan(k), predicted(plan, k)
            assert bodies[oid]["position"] == now
            distances.append({"pair": ["ego", oid],
                              "distance": out(box_box_distance(ego_now, EGO_H, now, half))})
            t = box_box_impact(ego_now, ego_end, EGO_H, now, end, half)
            impacts.append({"pair": ["ego", oid], "end_a": {"position": ego_end},
                            "end_b": {"position": end}, "t": None if t is None else out(t)})
        return {"expect_distance": distances, "expect_impact": impacts}

    return extra


def story_driving_trajectory():
    sc = Scenario(
        "driving_trajectory.jsonl", 2, "driving-trajectory",
        "An ego car (box 4.6 x 1.9) follows its planned path: middle lane behind a slow lead car, "
        "a lane change to the left over frames 12-24, then past the lead car, while a fast car "
        "closes in from behind in the left lane and a truck cruises in the right lane. Each frame "
        "checks the ego's signed clearance to every car (expect_distance) and, if ego and car "
        f"moved straight to their poses {HORIZON} frames later (the ego's planned pose, the car's "
        "predicted at its current velocity), when they would first touch (expect_impact).",
        version=2,
        comment="distances and times from exact rational arithmetic on the written doubles "
                "(generators/exact2d.py); cars keep angle 0",
    )
    for k in range(FRAMES):
        if k == 0:
            adds = [body("ego", box2(*EGO_H), ego_plan(0))]
            adds += [body(oid, box2(*half), plan(0)) for oid, half, plan in OBSTACLES]
            sc.step(add=adds, extra=_checks(0))
            continue
        moves = [mv("ego", ego_plan(k))] + [mv(oid, plan(k)) for oid, _, plan in OBSTACLES]
        try:
            sc.step(move=moves, extra=_checks(k))
        except AmbiguousImpact as exc:  # the plans are fixed: an ambiguous frame is a bug here
            raise AssertionError(f"driving_trajectory: frame {k + 1}: {exc}") from None
    return sc
