"""Building placement in a real-time-strategy town, with ``World.query_shape``.

The town is a 2D world of static bodies: boxes and a concave L-shaped hall
for buildings, a circular well, thin boxes for roads, small circles for trees.
The player drags a rotated "ghost" of the next building across the grid; at
every candidate spot ``world.query_shape`` says what the ghost would touch.
An empty list means the spot is free. The ghost itself is never added to the
world, so dragging it costs no bookkeeping.

Two rules from the library matter here:

* **Touching counts.** Shapes are closed sets, so a ghost flush against a
  wall is *blocked* (contact with depth 0). A hair's breadth away it is free.
* **Exact shapes.** The L-shaped hall blocks only where it is, not its
  bounding box: a ghost tucked into the L's notch is free.

Filtering decides what may block a building: the ghost asks only for
buildings and roads (``mask``), so trees, which the builders clear, never
block.

Run from the repository root::

    python examples/rts_building_placement.py
"""

from __future__ import annotations

import math

from collideworld import Box, Circle, Polygon, World

# Category bits: what each body is. The ghost's mask says what may block it.
BUILDING, ROAD, TREE, GHOST = 1, 2, 4, 8
BLOCKS_PLACEMENT = BUILDING | ROAD

WIDTH, HEIGHT = 24, 14  # the map, in grid cells of 1 x 1 world units


def build_town() -> World:
    """The town: every body static, since buildings and roads never move."""
    world = World(dim=2)

    def building(shape, position, angle=0.0, *, id):
        world.add(shape, position=position, angle=angle, static=True, category=BUILDING, id=id)

    # x in [2, 6], y in [8.5, 11.5]
    building(Box((2.0, 1.5)), (4.0, 10.0), id="town_hall")
    # a barracks turned by 0.4 rad
    building(Box((2.0, 1.0)), (20.0, 11.0), 0.4, id="barracks")
    # An L-shaped hall, concave: a 6 x 2 bar along the bottom and a 2 x 5 bar
    # up the left side. In world units (position (2, 0.5)) it covers
    # x in [2, 8], y in [0.5, 2.5] and x in [2, 4], y in [0.5, 5.5]; its notch
    # x in [4, 8], y in [2.5, 5.5] lies inside its bounding box but is free.
    building(Polygon([(0, 0), (6, 0), (6, 2), (2, 2), (2, 5), (0, 5)]), (2.0, 0.5), id="great_hall")
    building(Circle(1.0), (11.0, 3.0), id="well")

    # Roads are thin boxes, y in [6, 7] and x in [16, 17]. They overlap at the
    # crossing, which is fine: two static bodies are never reported together.
    world.add(Box((12.0, 0.5)), position=(12.0, 6.5), static=True, category=ROAD, id="east_west_road")
    world.add(Box((0.5, 7.0)), position=(16.5, 7.0), static=True, category=ROAD, id="north_south_road")

    for k, (x, y) in enumerate([(9.5, 11.5), (12.0, 12.5), (21.0, 2.5), (13.5, 9.5)]):
        world.add(Circle(0.4), position=(x, y), static=True, category=TREE, id=f"tree_{k}")
    return world


def placement(world: World, ghost: Box, position, angle: float) -> list:
    """What the ghost at this pose would touch; ``[]`` means the spot is free."""
    return world.query_shape(ghost, position=position, angle=angle, category=GHOST, mask=BLOCKS_PLACEMENT)


def town_map(world: World) -> list[str]:
    """What stands at each cell centre: B building, = road, T tree, blank ground."""
    rows = []
    for j in reversed(range(HEIGHT)):  # north at the top
        row = ""
        for i in range(WIDTH):
            ids = world.query_point((i + 0.5, j + 0.5))
            cats = {world.body(b).category for b in ids}
            row += "B" if BUILDING in cats else "=" if ROAD in cats else "T" if TREE in cats else " "
        rows.append(row)
    return rows


def placement_map(world: World, ghost: Box, angle: float) -> tuple[list[str], int]:
    """Drag the ghost across every cell centre: '.' free, '#' blocked."""
    rows, free = [], 0
    for j in reversed(range(HEIGHT)):
        row = ""
        for i in range(WIDTH):
            # NOTE: one query per spot. There is no batched query_shape, so a
            # grid of candidate spots is a Python loop (fast enough here:
            # a few hundred spots take well under a second).
            blocked = placement(world, ghost, (i + 0.5, j + 0.5), angle)
            row += "#" if blocked else "."
            free += not blocked
        rows.append(row)
    return rows, free


def main() -> None:
    world = build_town()
    house = Box((1.0, 0.5))  # the ghost: a 2 x 1 house
    drag_angle = math.radians(30)  # the player turned it with the mouse wheel

    town = town_map(world)
    spots, free = placement_map(world, house, drag_angle)
    print(f"town ({WIDTH} x {HEIGHT})".ljust(WIDTH + 4) + "2x1 house at 30 deg: '.' free, '#' blocked")
    for left, right in zip(town, spots, strict=True):
        print(f"|{left}|  |{right}|")
    print(f"{free} of {WIDTH * HEIGHT} spots are free for the turned house")
    print()

    # Key facts, each worked out by hand from the coordinates above.
    checks = []

    def check(what: str, got: list, expected: list) -> None:
        checks.append((what, got, expected))
        print(f"  {what:<58} -> {got if got else 'free'}")
        assert got == expected, f"{what}: expected {expected}, got {got}"

    print("hand-checked spots:")
    # The house (half extents 1 x 0.5, angle 0) at x = 7 spans x in [6, 8]:
    # its left edge lies exactly on the town hall's right wall, x = 6.
    check("flush against the town hall's east wall (touching)",
          placement(world, house, (7.0, 10.0), 0.0), ["town_hall"])
    # A nanometre further east there is a real gap: free.
    check("1e-9 further east",
          placement(world, house, (7.0 + 1e-9, 10.0), 0.0), [])
    # Turned 45 degrees, the house reaches (1 + 0.5) / sqrt(2) to the west of
    # its centre, at one corner. Centred that far from the wall, the corner
    # touches it. sin/cos round, but far below the touching tolerance.
    reach = 1.5 / math.sqrt(2.0)
    check("turned 45 deg, one corner on the town hall's wall",
          placement(world, house, (6.0 + reach, 10.0), math.radians(45)), ["town_hall"])
    # Turned 90 degrees the house is 1 wide and 2 tall. At (9, 7 + 1) its
    # bottom edge rests exactly on the road's north edge, y = 7. (cos 90 deg
    # is 6e-17 in floating point, not 0: touching still holds, by tolerance.)
    check("turned 90 deg, standing on the road's edge",
          placement(world, house, (9.0, 8.0), math.radians(90)), ["east_west_road"])
    # In the notch of the L: x in [5, 7], y in [3.5, 4.5], within the hall's
    # bounding box [2, 8] x [0.5, 5.5] but clear of both of its bars.
    check("tucked into the great hall's notch",
          placement(world, house, (6.0, 4.0), 0.0), [])
    # Pushed 1 unit west, the house's left edge (x = 4) touches the L's inner
    # wall and its right edge is still 2 short of the well (x = 10).
    check("notch, pushed against the hall's inner wall",
          placement(world, house, (5.0, 4.0), 0.0), ["great_hall"])
    # On a tree: trees do not block placement (not in the mask) ...
    check("on top of a tree", placement(world, house, (9.5, 11.5), 0.0), [])
    # ... but without the mask the same query does see the tree.
    got = world.query_shape(house, position=(9.5, 11.5), angle=0.0)
    check("same spot, unfiltered query", got, ["tree_0"])
    # Across the road crossing, both roads are under the house.
    check("on the crossing", placement(world, house, (16.5, 6.5), 0.0),
          ["east_west_road", "north_south_road"])

    # The player drops the house in the notch: it becomes a building, and the
    # spot it took is no longer free.
    world.add(house, position=(6.0, 4.0), angle=0.0, static=True, category=BUILDING, id="house_1")
    check("the notch, after house_1 was built there",
          placement(world, house, (6.0, 4.0), 0.0), ["house_1"])

    # The map itself: the spots under the buildings' interiors must be blocked
    # whatever the angle, and an open meadow must be free.
    assert spots[HEIGHT - 1 - 10][4] == "#", "the town hall's centre cell must be blocked"
    assert spots[HEIGHT - 1 - 6][1] == "#", "a cell on the road must be blocked"
    assert spots[HEIGHT - 1 - 4][22] == ".", "the meadow in the east must be free"
    assert 0 < free < WIDTH * HEIGHT
    print(f"all {len(checks)} placement checks passed")


if __name__ == "__main__":
    main()
