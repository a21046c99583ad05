"""Generator of ``id_reuse.jsonl``: ids removed and re-added, integers and strings."""

from __future__ import annotations

from .common import (
    Scenario,
    body,
    box2,
    circle,
    fx,
    l_shape,
    mv,
    polygon,
)


def story_id_reuse():
    sc = Scenario(
        "id_reuse.jsonl", 2, "id-reuse-warehouse",
        "A warehouse where slots are emptied and refilled, so ids come back with "
        "other shapes: integer ids (0, 1, 7, -3, 123456789) and string ids ('crate', "
        "'forklift', 'Kiste-\u00e4'). Some frames remove and add the same id: the "
        "remove happens first, so the new body replaces the old one, and a move in "
        "the same frame applies to the new body. A replacement can end a contact "
        "the old shape had, start one it did not, or keep one at the same place. "
        "A static wall id is reused for a dynamic body, which then reports its "
        "overlap with another static wall. The integer 1 and the string '1' are "
        "never alive at the same time.",
        comment="every frame's expect follows from the bodies alive after remove, add, move",
    )
    forklift = box2(1.2, 0.6)
    sc.step(add=[
        body(1, box2(1, 1), [0, 0], angle=0.0),
        body("a", circle(0.6), [1.5, 0]),
        body(0, circle(1.0), [10, 0]),
        body(-3, box2(0.8, 0.8), [20, 0], angle=0.0),
        body("crate", box2(0.5, 0.5), [5, 0], angle=0.0),
        body(7, polygon(l_shape(2, 2, 0.6)), [14, -1]),
        body("wall", box2(15, 0.3), [10, -3], static=True),
        body("shelf", box2(0.3, 2), [24, 0], static=True),
        body("forklift", forklift, [-6, 3], angle=0.0),
    ], comment="body 1 (a box) touches body 'a' (a circle); the wall and shelf are static",
        details=[(1, "a")])

    script = [
        ({"remove": [1]}, "body 1 is removed: its contact with 'a' ends"),
        ({"add": [body(1, circle(0.3), [0, 0])]}, "id 1 is back as a small circle: no contact with 'a'"),
        ({"remove": [1], "add": [body(1, box2(2, 2), [0, 0], angle=0.0)]},
         "remove and add of id 1 in one frame: now a big box, in contact with 'a' again"),
        ({"remove": ["a"], "add": [body("a", polygon([[0, 0], [2, 0], [1, 1.5]]), [30, 5])]},
         "'a' is replaced by a triangle far away: the contact ends"),
        ({"move": [mv(1, [30.5, 6.0], angle=0.3)]}, "body 1 moves onto the triangle 'a'"),
        ({"remove": [1, "crate"], "add": [body("crate", box2(1, 1), [30, 4.5], angle=0.0),
                                          body(1, circle(0.5), [5, 0])]},
         "1 and 'crate' swap places with new shapes: 1 in crate's old slot, crate on the triangle"),
        ({"remove": [0], "add": [body("0", circle(1.0), [10, 0])]},
         "integer 0 is replaced by the string '0' at the same place"),
        ({"move": [mv("0", [11.2, 0])]}, "'0' drifts towards 7, the L"),
        ({"move": [mv("0", [12.6, 0])]}, "'0' stops 0.4 short of the L's leg: no contact"),
        ({"move": [mv("0", [13.1, 0])]}, "'0' reaches the L's leg"),
        ({"remove": ["0"], "add": [body(0, box2(0.5, 0.5), [13.1, 0], angle=0.0)]},
         "the string '0' gives way to the integer 0 again, now a small box"),
        ({"remove": [-3], "add": [body(-3, box2(0.8, 0.8), [20, 0], angle=0.0)]},
         "-3 is removed and re-added unchanged: nothing to report either way"),
        ({"remove": [-3], "add": [body(-3, box2(2.5, 0.8), [22, 0], angle=0.0)]},
         "-3 is re-added wider and reaches the static shelf"),
        ({"remove": ["wall"], "add": [body("wall", box2(2, 0.3), [24, -2.2])]},
         "the id 'wall' is reused for a dynamic plank that overlaps the static shelf"),
        ({"remove": ["wall"], "add": [body("wall", box2(2, 0.3), [24, -2.2])],
          "move": [mv("wall", [24, -4])]},
         "remove, add and move of 'wall' in one frame: the move applies to the new body"),
        ({"add": [body(123456789, circle(0.4), [-6, 3.5])]}, "a large integer id appears on the forklift"),
        ({"add": [body("Kiste-\u00e4", box2(0.4, 0.4), [-3, 3], angle=0.0)]}, "a non-ASCII string id"),
    ]
    for op, note in script:
        sc.step(op.get("remove", ()), op.get("add", ()), op.get("move", ()), comment=note)

    # the forklift drives along the aisle carrying 123456789, pushing through the crates
    for k in range(1, 22):
        x = fx(-6 + 0.8 * k)
        ops = {"move": [mv("forklift", [x, 3.0], angle=0.0), mv(123456789, [x, 3.5])]}
        note = None
        if k == 2:
            note = "the forklift reaches 'Kiste-\u00e4'"
        if k == 8:
            ops["remove"] = ["Kiste-\u00e4"]
            ops["add"] = [body("Kiste-\u00e4", circle(0.3), [0, 6])]
            note = "'Kiste-\u00e4' is re-added as a barrel on the top shelf"
        if k == 12:
            ops["remove"] = [7]
            ops["add"] = [body(7, box2(1, 1), [fx(x + 2.0), 3.0], angle=0.0)]
            note = "id 7 (the L) is re-added as a box right in front of the forklift"
        if k == 16:
            ops["remove"] = [7, 123456789]
            ops["add"] = [body(7, circle(0.5), [fx(x), 3.5])]
            note = "the load 123456789 is unloaded; id 7 comes back as a ball on the forklift"
            ops["move"] = [m for m in ops["move"] if m["id"] != 123456789]
        if k > 16:
            ops["move"] = [m for m in ops["move"] if m["id"] != 123456789]
            ops["move"].append(mv(7, [x, 3.5]))
        sc.step(ops.get("remove", ()), ops.get("add", ()), ops.get("move", ()), comment=note)
    sc.step(remove=["forklift", 7, 1, "crate", "a", "Kiste-\u00e4"],
            comment="end of shift: most bodies are removed")
    sc.step(add=[body("1", circle(0.5), [0, 0]), body("forklift", forklift, [24, 2.5], angle=0.0)],
            comment="the string '1' takes the place of the removed integer 1; the forklift "
                    "returns and parks against the shelf")
    return sc
