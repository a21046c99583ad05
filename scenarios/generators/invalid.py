"""Generator of ``invalid/``: files that each break the format once, at a known line.

The reader must reject each at the line recorded in ``invalid/expected.json``
with a message containing the recorded words."""

from __future__ import annotations

from .common import (
    body,
    box2,
    box3,
    capsule,
    circle,
    convex_hull,
    dumps,
    halfplane,
    mv,
    plane,
    polygon,
    segment,
    sphere,
)


def invalid_files():
    """(filename, text, line the reader must report, substring its message must contain).

    The substring is matched case-insensitively and names what is wrong (the
    key, the value or the kind of problem), so any reader that follows the
    format's "name the file, the line and what is wrong" rule can pass.
    """

    def hdr(dim=2, version=1, **extra):
        h = {"collideworld_scenario": version, "dim": dim}
        h.update({"_" + k: v for k, v in extra.items()})
        return dumps(h)

    def lines(*objs):
        return "\n".join(o if isinstance(o, str) else dumps(o) for o in objs) + "\n"

    box_a = body("a", box2(1, 1), [0, 0])
    circ_b = body("b", circle(0.5), [3, 0])
    cube = body("a", box3(1, 1, 1), [0, 0, 0])
    out = []

    def add(name, text, line, contains):
        out.append((name, text, line, contains))

    add("unknown_id_move.jsonl",
        lines(hdr(comment="move of an id that was never added"), {"add": [box_a], "expect": []},
              {"move": [mv("a", [1, 0])], "expect": []}, {"move": [mv("ghost", [1, 0])]}),
        4, "unknown id")
    add("unknown_id_remove.jsonl",
        lines(hdr(comment="remove of an id that is no longer alive"), {"add": [box_a, circ_b]},
              {"remove": ["b"]}, {"remove": ["b"]}),
        4, "unknown id")
    add("unknown_id_move_after_remove.jsonl",
        lines(hdr(comment="the remove in the same frame happens first, so the move has no body"),
              {"add": [box_a]}, {"remove": ["a"], "move": [mv("a", [1, 0])]}),
        3, "unknown id")
    add("duplicate_id_add.jsonl",
        lines(hdr(comment="adding an id that is alive"), {"add": [box_a]}, {},
              {"add": [body("a", circle(1), [5, 5])]}),
        4, "duplicate")
    add("duplicate_id_same_frame.jsonl",
        lines(hdr(comment="the same id twice in one add list"),
              {"add": [box_a, body("a", circle(1), [5, 5])]}),
        2, "duplicate")
    add("shape_3d_in_2d.jsonl",
        lines(hdr(comment="a sphere in a 2D file"), {"add": [box_a]},
              {"add": [body("ball", sphere(1), [0, 0])]}),
        3, "sphere")
    add("shape_2d_in_3d.jsonl",
        lines(hdr(3, comment="a circle in a 3D file"), {"add": [body("disc", circle(1), [0, 0, 0])]}),
        2, "circle")
    add("negative_radius.jsonl",
        lines(hdr(comment="radius must be > 0"), {"add": [box_a]}, {},
              {"add": [body("b", circle(-0.5), [3, 0])]}),
        4, "radius")
    add("zero_half_extent.jsonl",
        lines(hdr(3, comment="half extents must be > 0"), {"add": [body("flat", box3(1, 0, 1), [0, 0, 0])]}),
        2, "half_extents")
    add("polygon_two_vertices.jsonl",
        lines(hdr(comment="three vertices, but only two distinct"),
              {"add": [body("p", polygon([[0, 0], [1, 0], [0, 0]]), [0, 0])]}),
        2, "polygon")
    add("polygon_bowtie.jsonl",
        lines(hdr(comment="a bow-tie: its edges cross"), {"add": [box_a]},
              {"add": [body("tie", polygon([[0, 0], [2, 2], [2, 0], [0, 2]]), [5, 5])]}),
        3, "polygon")
    add("nan_literal.jsonl",
        lines(hdr(comment="NaN is not JSON"), {"add": [box_a]},
              '{"move": [{"id": "a", "position": [NaN, 0.0]}]}'),
        3, "nan")
    add("infinity_literal.jsonl",
        lines(hdr(comment="Infinity is not JSON"),
              '{"add": [{"id": "c", "shape": {"type": "circle", "radius": Infinity}, "position": [0, 0]}]}'),
        2, "infinity")
    add("number_overflow.jsonl",
        lines(hdr(comment="1e999 is valid JSON syntax but not a finite number"), {"add": [box_a]},
              '{"move": [{"id": "a", "position": [1e999, 0]}]}'),
        3, "finite")
    add("truncated_last_line.jsonl",
        lines(hdr(comment="the last line stops mid-object, with no newline"), {"add": [box_a]},
              {"move": [mv("a", [1, 0])]}).rstrip("\n") + "\n" + '{"move": [{"id": "a", "position": [2, 0]',
        4, "truncated")
    add("blank_line.jsonl",
        lines(hdr(comment="blank lines are not allowed"), {"add": [box_a]}, "", {"move": [mv("a", [1, 0])]}),
        3, "blank")
    add("unknown_key_body.jsonl",
        lines(hdr(comment="'velocity' is not a body key (only _-keys are comments)"),
              {"add": [dict(box_a, velocity=[1, 0])]}),
        2, "velocity")
    add("unknown_key_frame.jsonl",
        lines(hdr(comment="'rotate' is not a frame key"), {"add": [box_a]}, {"rotate": [{"id": "a", "angle": 1}]}),
        3, "rotate")
    add("wrong_version.jsonl",
        lines({"collideworld_scenario": 4, "dim": 2}, {"add": [box_a]}),
        1, "version")
    add("missing_dim.jsonl",
        lines({"collideworld_scenario": 1, "name": "no dim"}, {"add": [box_a]}),
        1, "dim")
    add("bad_dim.jsonl",
        lines({"collideworld_scenario": 1, "dim": 4}, {}),
        1, "dim")
    add("header_not_object.jsonl",
        lines([1, 2], {}),
        1, "header")
    add("empty_file.jsonl", "", 1, "empty")
    add("halfplane_with_position.jsonl",
        lines(hdr(comment="a halfplane takes no pose"),
              {"add": [dict(body("floor", halfplane([0, 1], 0)), position=[0, 0])]}),
        2, "position")
    add("plane_with_quaternion.jsonl",
        lines(hdr(3, comment="a plane takes no pose"),
              {"add": [dict(body("ground", plane([0, 0, 1], 0)), quaternion=[1, 0, 0, 0])]}),
        2, "quaternion")
    add("move_halfplane.jsonl",
        lines(hdr(comment="a halfplane cannot be moved"), {"add": [body("floor", halfplane([0, 1], 0)), box_a]},
              {"move": [mv("a", [0, 2])]}, {"move": [mv("floor", [0, 1])]}),
        4, "floor")
    add("zero_normal.jsonl",
        lines(hdr(3, comment="a plane normal must be non-zero"), {"add": [body("ground", plane([0, 0, 0], 0))]}),
        2, "normal")
    add("quaternion_not_unit.jsonl",
        lines(hdr(3, comment="norm 1.1: not within 1e-6 of 1"), {"add": [cube]},
              {"move": [mv("a", quaternion=[1.1, 0, 0, 0])]}),
        3, "quaternion")
    add("angle_in_3d.jsonl",
        lines(hdr(3, comment="angle is a 2D pose field"), {"add": [dict(cube, angle=0.5)]}),
        2, "angle")
    add("wrong_position_length.jsonl",
        lines(hdr(comment="a 2D position has 2 numbers"), {"add": [box_a]},
              {"move": [mv("a", [1, 2, 3])]}),
        3, "position")
    add("missing_position.jsonl",
        lines(hdr(comment="a circle needs a position"),
              {"add": [{"id": "c", "shape": circle(1)}]}),
        2, "position")
    add("add_not_list.jsonl",
        lines(hdr(comment="add must be a list of bodies"), {"add": box_a}),
        2, "add")
    add("id_float.jsonl",
        lines(hdr(comment="ids are strings or integers"), {"add": [dict(box_a, id=1.5)]}),
        2, "1.5")
    add("id_bool.jsonl",
        lines(hdr(comment="true is not an integer id"), {"add": [box_a]},
              {"add": [dict(circ_b, id=True)]}),
        3, "true")
    add("category_out_of_range.jsonl",
        lines(hdr(comment="category must fit in 32 unsigned bits"), {"add": [box_a]},
              {"add": [dict(circ_b, category=4294967296)]}),
        3, "category")
    add("mask_negative.jsonl",
        lines(hdr(comment="mask must be an unsigned 32-bit integer"),
              {"add": [dict(circ_b, mask=-1)]}),
        2, "mask")

    # version 2 features: wrong in a version 1 file, or wrong in themselves
    floor = body("floor", halfplane([0, 1], 0))
    add("v1_uses_set.jsonl",
        lines(hdr(comment="set is a version 2 key"), {"add": [box_a]}, {"set": [{"id": "a", "static": True}]}),
        3, "version 2")
    add("v1_uses_expect_distance.jsonl",
        lines(hdr(comment="expect_distance is a version 2 key"), {"add": [box_a, circ_b]},
              {"expect_distance": [{"pair": ["a", "b"], "distance": 1.5}]}),
        3, "version 2")
    add("v1_contact_points.jsonl",
        lines(hdr(comment="contact points are version 2"), {"add": [box_a, floor]},
              {"expect": [["a", "floor"]], "expect_contacts": [
                  {"pair": ["floor", "a"], "normal": [0, 1], "depth": 1, "points": [[0, -0.5]]}]}),
        3, "points")
    add("v2_set_unknown_id.jsonl",
        lines(hdr(version=2, comment="set of an id no alive body has"), {"add": [box_a]},
              {"set": [{"id": "b", "mask": 0}]}),
        3, "unknown id")
    add("v2_set_halfplane_dynamic.jsonl",
        lines(hdr(version=2, comment="a halfplane is always static"), {"add": [box_a, floor]},
              {"set": [{"id": "floor", "static": False}]}),
        3, "static")
    add("v2_move_halfplane_position.jsonl",
        lines(hdr(version=2, comment="a halfplane moves by normal and offset, never by position"),
              {"add": [box_a, floor]}, {"move": [{"id": "floor", "position": [0, 1]}]}),
        3, "position")
    add("v2_parts_without_compound.jsonl",
        lines(hdr(version=2, comment="no body is a compound: only [-1, -1] is a valid parts value"),
              {"add": [box_a, floor]},
              {"expect": [["a", "floor"]], "expect_contacts": [
                  {"pair": ["floor", "a"], "normal": [0, 1], "depth": 1, "parts": [-1, 0]}]}),
        3, "parts")
    add("v2_impact_t_out_of_range.jsonl",
        lines(hdr(version=2, comment="t is a fraction of the motion, in [0, 1]"), {"add": [box_a, circ_b]},
              {"expect_impact": [{"pair": ["a", "b"], "end_a": {"position": [0, 0]},
                                  "end_b": {"position": [-3, 0]}, "t": 1.5}]}),
        3, "[0, 1]")
    add("v2_impact_pose_on_halfplane.jsonl",
        lines(hdr(version=2, comment="a halfplane's end pose is {}"), {"add": [box_a, floor]},
              {"expect_impact": [{"pair": ["floor", "a"], "end_a": {"position": [0, 0]},
                                  "end_b": {"position": [0, -3]}, "t": 0.0}]}),
        3, "end_a")
    # the version 2 shapes
    pill = body("pill", capsule([-1, 0], [1, 0], 0.5), [0, 3])
    add("v1_uses_capsule.jsonl",
        lines(hdr(comment="capsule is a version 2 shape"), {"add": [box_a]}, {"add": [pill]}),
        3, "shape type 'capsule' needs format version 2")
    add("v2_capsule_negative_radius.jsonl",
        lines(hdr(version=2, comment="a capsule's radius must be > 0"), {"add": [box_a]},
              {"add": [body("pill", capsule([-1, 0], [1, 0], -0.5), [0, 3])]}),
        3, "capsule radius must be > 0")
    add("v2_capsule_three_points.jsonl",
        lines(hdr(version=2, comment="a capsule has two points, p0 and p1"),
              {"add": [body("pill", {"type": "capsule", "points": [[0, 0], [1, 0], [2, 0]], "radius": 1},
                            [0, 3])]}),
        2, "two points")
    add("v2_segment_zero_length.jsonl",
        lines(hdr(version=2, comment="a segment's points must differ"), {"add": [box_a]},
              {"add": [body("s", segment([1, 1], [1, 1]), [0, 3])]}),
        3, "segment points must differ")
    add("v2_segment_3d_point_in_2d.jsonl",
        lines(hdr(version=2, comment="a 2D segment's points have 2 numbers"),
              {"add": [body("s", segment([0, 0, 0], [1, 0, 0]), [0, 3])]}),
        2, "must have 2 numbers in a 2D world")
    add("v2_hull_flat.jsonl",
        lines(hdr(dim=3, version=2, comment="four points on the plane z = 0 have no volume"), {"add": [cube]},
              {"add": [body("h", convex_hull([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]), [5, 0, 0])]}),
        3, "one plane")
    add("v2_hull_three_points.jsonl",
        lines(hdr(dim=3, version=2, comment="a hull needs at least 4 points"),
              {"add": [body("h", convex_hull([[0, 0, 0], [1, 0, 0], [0, 1, 0]]), [5, 0, 0])]}),
        2, "at least 4 points")
    add("v2_hull_in_2d.jsonl",
        lines(hdr(version=2, comment="convex_hull is 3D; a 2D convex hull is a polygon"),
              {"add": [body("h", convex_hull([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]), [5, 0])]}),
        2, "is 3D")
    return out
