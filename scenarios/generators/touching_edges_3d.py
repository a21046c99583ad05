"""Generator of ``touching_edges_3d.jsonl``: exact touching and containment in 3D."""

from __future__ import annotations

from .common import (
    Scenario,
    body,
    box3,
    plane,
    run_cases,
    sphere,
)


def story_touching_edges_3d():
    sc = Scenario(
        "touching_edges_3d.jsonl", 3, "touching-edges-3d",
        "Exact touching and containment in 3D, one case per frame. Coordinates are "
        "small integers and halves; rotations are the identity or 180-degree turns "
        "([0, 0, 0, 1], [0, 1, 0, 0]) whose matrices are exact. Cases: box faces, "
        "edges and corners touching; a sphere tangent to a plane (unit and non-unit "
        "normals, a ceiling), to a box face, edge and corner (Pythagorean distances "
        "3 and 5), tangent spheres; a box resting on a plane and a cube's corner on "
        "a diagonal plane; containment and identical shapes; static-static and "
        "filtered pairs that are not reported.",
        comment="box-box pairs here are decided in exact rational arithmetic",
    )
    C = box3(1, 1, 1)
    ground = plane([0, 0, 1], 0)
    Z180 = [0.0, 0.0, 0.0, 1.0]
    X180 = [0.0, 1.0, 0.0, 0.0]
    cases = [
        ("box-box, face on face", [body("a", C, [0, 0, 0]), body("b", C, [2, 0, 0])],
         [("a", "b")], [("a", "b")]),
        ("box-box, faces overlapping partly (offset in y and z)",
         [body("a", C, [0, 0, 0]), body("b", C, [2, 0.5, -0.5])], [("a", "b")], [("a", "b")]),
        ("box-box, edge on edge", [body("a", C, [0, 0, 0]), body("b", C, [2, 2, 0])],
         [("a", "b")], None),
        ("box-box, corner on corner", [body("a", C, [0, 0, 0]), body("b", C, [2, 2, 2])],
         [("a", "b")], None),
        ("box-box, corner on corner along (-, +, -)", [body("a", C, [0, 0, 0]), body("b", C, [-2, 2, -2])],
         [("a", "b")], None),
        ("box-box, 0.5 apart: no contact", [body("a", C, [0, 0, 0]), body("b", C, [2.5, 0, 0])], [], None),
        ("box-box overlapping by 0.25 along -z: depth 0.25, normal -z",
         [body("a", C, [0, 0, 0]), body("b", C, [0.5, -0.5, -1.75])], [("a", "b")], [("a", "b")]),
        ("box-box, edge on edge with different sizes",
         [body("a", box3(1, 2, 3), [0, 0, 0]), body("b", box3(0.5, 0.5, 0.5), [1.5, 2.5, 0])],
         [("a", "b")], None),
        ("box-box, corner of a small box on the middle of a big face",
         [body("a", box3(3, 3, 1), [0, 0, 0]), body("b", C, [1, 1, 2])], [("a", "b")], [("a", "b")]),
        ("box turned 180 degrees about z, face on face at x = 1",
         [body("a", C, [0, 0, 0]), body("b", box3(2, 1, 1), [3, 0, 0], quaternion=Z180)],
         [("a", "b")], [("a", "b")]),
        ("box turned 180 degrees about x, face on face at z = 1",
         [body("a", C, [0, 0, 0]), body("b", box3(1, 1, 0.5), [0, 0, 1.5], quaternion=X180)],
         [("a", "b")], [("a", "b")]),
        ("sphere tangent to the ground plane", [body("g", ground), body("b", sphere(1), [0, 0, 1])],
         [("g", "b")], [("g", "b")]),
        ("sphere 0.5 above the ground: no contact", [body("g", ground), body("b", sphere(1), [0, 0, 1.5])],
         [], None),
        ("sphere deep below the ground plane (inside its solid)",
         [body("g", ground), body("b", sphere(1), [0, 0, -5])], [("g", "b")], [("g", "b")]),
        ("plane with normal [0, 0, 4] and offset 8 (z <= 2) and a tangent sphere",
         [body("g", plane([0, 0, 4], 8)), body("b", sphere(1), [3, 3, 3])], [("g", "b")], [("g", "b")]),
        ("ceiling plane: normal [0, 0, -1], offset -10 (solid z >= 10), tangent sphere below",
         [body("g", plane([0, 0, -1], -10)), body("b", sphere(1), [0, 0, 9])], [("g", "b")], [("g", "b")]),
        ("box resting on the ground plane (bottom face on z = 0)",
         [body("g", ground), body("b", C, [0, 0, 1])], [("g", "b")], [("g", "b")]),
        ("box on a plane with normal [0, 0, 2] and offset 0",
         [body("g", plane([0, 0, 2], 0)), body("b", C, [5, -5, 1])], [("g", "b")], [("g", "b")]),
        ("diagonal plane x + y + z <= 0 touched by a cube's corner at the origin",
         [body("g", plane([1, 1, 1], 0)), body("b", C, [1, 1, 1])], [("g", "b")], [("g", "b")]),
        ("diagonal plane x + y + z <= 0 and a cube whose nearest corner is (0.5, 0, 0): no contact",
         [body("g", plane([1, 1, 1], 0)), body("b", C, [1.5, 1, 1])], [], None),
        ("sphere tangent to a box face",
         [body("a", sphere(1), [0, 0, 0]), body("b", C, [2, 0, 0])], [("a", "b")], [("a", "b")]),
        ("sphere tangent to a box corner: r 3, corner at (1, 2, 2)",
         [body("a", sphere(3), [0, 0, 0]), body("b", C, [2, 3, 3])], [("a", "b")], [("a", "b")]),
        ("sphere tangent to a box edge: r 5, edge through (3, 4, z)",
         [body("a", sphere(5), [0, 0, 0]), body("b", C, [4, 5, 0])], [("a", "b")], [("a", "b")]),
        ("sphere near a box corner, bounding boxes overlap, no contact",
         [body("a", sphere(3), [0, 0, 0]), body("b", C, [2.5, 3, 3])], [], None),
        ("sphere-sphere tangent: r 1 and r 2, centres 3 apart along (1, 2, 2)",
         [body("a", sphere(1), [0, 0, 0]), body("b", sphere(2), [1, 2, 2])], [("a", "b")], [("a", "b")]),
        ("sphere-sphere 0.5 apart: no contact",
         [body("a", sphere(1), [0, 0, 0]), body("b", sphere(1.5), [1, 2, 2])], [], None),
        ("small box inside a big box",
         [body("a", box3(4, 4, 4), [0, 0, 0]), body("b", C, [1, 0, 0])], [("a", "b")], [("a", "b")]),
        ("sphere inside a box", [body("a", box3(3, 3, 3), [0, 0, 0]), body("b", sphere(1), [0.5, 0, 0])],
         [("a", "b")], None),
        ("box inside a sphere", [body("a", sphere(5), [0, 0, 0]), body("b", C, [0, 0, 0])],
         [("a", "b")], None),
        ("sphere inside a sphere, touching it from inside",
         [body("a", sphere(1), [0, 0, 2]), body("b", sphere(3), [0, 0, 0])], [("a", "b")], None),
        ("identical boxes at the same pose", [body("a", C, [1, 2, 3]), body("b", C, [1, 2, 3])],
         [("a", "b")], None),
        ("identical spheres at the same place",
         [body("a", sphere(2), [0, 0, 0]), body("b", sphere(2), [0, 0, 0])], [("a", "b")], None),
        ("static box touching a dynamic box: reported",
         [body("a", C, [0, 0, 0], static=True), body("b", C, [0, 0, 2])], [("a", "b")], [("a", "b")]),
        ("static box resting on the ground plane: static-static, never reported",
         [body("g", ground), body("b", C, [0, 0, 1], static=True)], [], None),
        ("touching boxes filtered out one way",
         [body("a", C, [0, 0, 0], category=4, mask=4), body("b", C, [2, 0, 0], category=8, mask=4)],
         [], None),
        ("a stack: ground, box, box, sphere, each resting exactly on the one below",
         [body("g", ground), body("a", C, [0, 0, 1]), body("b", C, [0, 0, 3]),
          body("c", sphere(1), [0, 0, 5])], [("g", "a"), ("a", "b"), ("b", "c")], None),
    ]
    run_cases(sc, cases)
    return sc
