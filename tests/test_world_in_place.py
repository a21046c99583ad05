"""User data, changes in place, and selecting contacts (issue 12's world-side parts).

The stateful machine (test_world_stateful.py) checks changes in place against
the oracle step after step; these are the hand cases and the bad inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

import collideworld as cw
from collideworld import Box, Circle, HalfPlane, Plane, Polygon, Sphere, World


def _state(w: World) -> tuple:
    out = []
    for i in w.ids():
        b = w.body(i)
        out.append((i, repr(b.shape), None if b.position is None else b.position.tobytes(), b.angle,
                    None if b.quaternion is None else b.quaternion.tobytes(), b.static, b.category, b.mask,
                    id(b.data)))
    return tuple(out)


def test_data_is_returned_untouched() -> None:
    w = World(dim=2)
    payload = {"hp": 3, "tags": ["a"]}
    w.add(Circle(1.0), id="u", data=payload)
    ids = w.add_many(Circle(1.0), [[5, 0], [9, 0]], data=[(1, 2), [3, 4]])
    assert w.data("u") is payload and w.body("u").data is payload
    assert w.data(ids[0]) == (1, 2) and w.data(ids[1]) == [3, 4]  # sequences are not unpacked
    w.set_data("u", None)
    assert w.data("u") is None
    w.remove("u")
    with pytest.raises(cw.UnknownIdError):
        w.data("u")


def test_a_pair_touching_through_changes_in_place_is_neither_ended_nor_begun() -> None:
    w = World(dim=2)
    w.add(Box((1.0, 1.0)), id="a")
    w.add(Circle(1.0), position=(1.5, 0), id="b")
    w.add(HalfPlane((0.0, 1.0), -0.5), id="floor")
    first = w.step()
    assert first.pairs() == {("a", "b"), ("a", "floor"), ("b", "floor")}
    w.set_shape("b", Polygon([(-1, -1), (1, -1), (0, 1)]))  # still overlaps a and the floor
    w.set_filter("b", category=3)
    w.set_static("b", True)  # b static: its pair with the static floor goes; with a it stays
    w.move("floor", offset=-0.25)
    c = w.step()
    assert list(c.began) == [] and list(c.ended) == [("b", "floor")]
    assert c.pairs() == {("a", "b"), ("a", "floor")}
    w2 = World(dim=2)  # a world built in the final state gives the same contacts
    w2.add(Box((1.0, 1.0)), id="a")
    w2.add(Polygon([(-1, -1), (1, -1), (0, 1)]), position=(1.5, 0), id="b", category=3, static=True)
    w2.add(HalfPlane((0.0, 1.0), -0.25), id="floor")
    ref = w2.step()
    assert ref.pairs() == c.pairs()
    assert np.array_equal(ref.normal, c.normal) and np.array_equal(ref.depth, c.depth)


def test_set_static_ends_the_static_static_pair_on_that_step() -> None:
    w = World(dim=2)
    w.add(Circle(1.0), id="a", static=True)
    w.add(Circle(1.0), position=(1, 0), id="b")
    assert w.step().pairs() == {("a", "b")}
    w.set_static("b", True)
    c = w.step()
    assert c.pairs() == set() and list(c.ended) == [("a", "b")]
    w.set_static("b", False)
    c = w.step()
    assert list(c.began) == [("a", "b")]


def test_moving_a_plane_changes_its_contacts() -> None:
    w = World(dim=3)
    w.add(Plane((0, 0, 2.0), 0.0), id="ground")  # z <= 0 after normalising
    w.add(Sphere(1.0), position=(0, 0, 1.5), id="s")
    assert w.step().pairs() == set()
    w.move("ground", offset=0.75)
    c = w.step()
    assert c.pairs() == {("ground", "s")} and c.depth.tolist() == [0.25]
    w.move("ground", normal=(0, 0, -1), offset=-2.5)  # now the solid z >= 2.5: the sphere top is at 2.5
    c = w.step()
    assert c.pairs() == {("ground", "s")} and c.depth.tolist() == [0.0]
    assert c.normal.tolist() == [[0.0, 0.0, -1.0]]  # from the plane (a) towards the sphere: its normal


@pytest.mark.parametrize("call", [
    lambda w: w.set_static("a", 1),
    lambda w: w.set_static("ground", False),
    lambda w: w.set_static("ghost", True),
    lambda w: w.set_filter("a", category=-1),
    lambda w: w.set_filter("a", mask=2**32),
    lambda w: w.set_shape("a", Sphere(1.0)),
    lambda w: w.set_shape("a", HalfPlane((0, 1), 0.0)),
    lambda w: w.set_shape("ground", Circle(1.0)),
    lambda w: w.set_shape("a", "circle"),
    lambda w: w.move("ground", position=(0, 1)),
    lambda w: w.move("ground", normal=(0, 0)),
    lambda w: w.move("a", offset=1.0),
    lambda w: w.add_many(Circle(1.0), [[0, 0]], data=[1, 2]),
    lambda w: w.add_many(Circle(1.0), [[0, 0]], data="x"),
])
def test_rejected_changes_leave_the_world_as_it_was(call) -> None:
    w = World(dim=2)
    w.add(Box((1.0, 1.0)), id="a", data=["mine"])
    w.add(HalfPlane((0.0, 1.0), 0.0), id="ground")
    w.step()
    before = _state(w)
    with pytest.raises(cw.CollideWorldError):
        call(w)
    assert _state(w) == before
    w.validate()
    assert w.step().pairs() == {("a", "ground")}


# -- selecting contacts ------------------------------------------------------------------------


def _row_world() -> tuple[World, cw.Contacts]:
    w = World(dim=2)
    w.add_many(Circle(1.0), [[0, 0], [1.5, 0], [3.0, 0], [4.9, 0]])  # chain: 0-1, 1-2, 2-3 (depth 0.1)
    w.step()
    w.move(3, position=(4.0, 0))  # 2-3 deeper now; nothing begins
    w.add(Circle(1.0), position=(-1.5, 0), id="new")  # begins with 0
    w.remove(1)  # 0-1 and 1-2 end
    return w, w.step()


def test_contacts_of_one_body_has_its_rows_and_events() -> None:
    _, c = _row_world()
    assert c.pairs() == {(0, "new"), (2, 3)}
    of0 = c.of(0)
    assert of0.pairs() == {(0, "new")} and list(of0.began) == [(0, "new")] and list(of0.ended) == [(0, 1)]
    of2 = c.of(2)
    assert of2.pairs() == {(2, 3)} and list(of2.began) == [] and list(of2.ended) == [(1, 2)]
    assert len(c.of("nobody")) == 0


def test_slices_masks_and_rows_select_contacts() -> None:
    _, c = _row_world()
    rows = [(a, b) for a, b in zip(c.a.tolist(), c.b.tolist(), strict=True)]
    assert [(x.a, x.b) for x in c[1:]] == rows[1:]
    deep = c[c.depth > 0.6]
    assert deep.pairs() == {(a, b) for (a, b), d in zip(rows, c.depth.tolist(), strict=True) if d > 0.6}
    assert np.array_equal(deep.normal, c.normal[c.depth > 0.6])
    picked = c[np.array([1, 0])]
    assert [(x.a, x.b) for x in picked] == [rows[1], rows[0]]
    assert list(c[:].began) == list(c.began) and len(c[:].ended) == 0
    with pytest.raises(IndexError):
        c[np.zeros((1, 1), dtype=int)]
