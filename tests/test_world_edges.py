"""Edges of the World found by an adversarial pass (issue 17 items 5, 9, 11) and rotations from scipy.

Each test states the rule it checks; the expected answers come from the
rule itself, a twin world, or scipy, never from the world under test alone.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import collideworld as cw
from collideworld import Box, Circle, HalfPlane, Sphere, World, collide
from collideworld.broadphase import SweepAndPrune


def _state(w: World) -> tuple:
    bodies = []
    for i in w.ids():
        b = w.body(i)
        bodies.append((i, repr(b.shape), None if b.position is None else b.position.tobytes(),
                       b.angle, None if b.quaternion is None else b.quaternion.tobytes(), b.static))
    return tuple(bodies)


# -- foreign exceptions become the library's (item 5) -----------------------------------------


@pytest.mark.parametrize("call", [
    lambda w: w.add(Circle(1.0), angle=10**400),
    lambda w: w.move("a", angle=10**400),
    lambda w: w.move_many(["a"], angles=[10**400]),
    lambda w: w.add(Circle(1.0), position=(10**400, 0)),
])
def test_huge_ints_in_poses_are_pose_errors_and_change_nothing(call) -> None:
    w = World(dim=2)
    w.add(Circle(1.0), id="a")
    before = _state(w)
    with pytest.raises(cw.InvalidPoseError):
        call(w)
    assert _state(w) == before
    w.validate()


def test_collide_with_a_huge_int_angle_is_a_pose_error() -> None:
    with pytest.raises(cw.InvalidPoseError, match="finite"):
        collide(Circle(1.0), ((0, 0), 10**400), Circle(1.0), ((1, 0), 0.0))


def test_a_huge_int_max_distance_is_an_unlimited_ray() -> None:
    # 10**400 exceeds every float: it is farther than anything, so the answer is the one for inf
    w = World(dim=2)
    w.add(Circle(1.0), position=(1e100, 0), id="far")
    hits = w.raycast((0, 0), (1, 0), 10**400)
    assert [h.id for h in hits] == [h.id for h in w.raycast((0, 0), (1, 0))] == ["far"]


@pytest.mark.parametrize("dim", [2.0, np.float64(3), Fraction(2), Decimal(2), "2", None, True])
def test_dim_must_be_an_int(dim) -> None:
    with pytest.raises(cw.InvalidArgumentError, match="dim must be"):
        World(dim=dim)


def test_numpy_int_dims_are_ints() -> None:
    assert World(dim=np.int64(3)).dim == 3 and type(World(dim=np.int32(2)).dim) is int


@pytest.mark.parametrize("bp", [["sap"], SweepAndPrune, 3.5, {"sap"}])
def test_broadphase_must_be_a_name_or_an_instance(bp) -> None:
    with pytest.raises(cw.InvalidArgumentError, match="broadphase must be"):
        World(dim=2, broadphase=bp)


# -- one quaternion normalisation (item 9) -------------------------------------------------------


def test_single_and_batched_poses_store_the_same_bits() -> None:
    rng = np.random.default_rng(17)
    q = rng.normal(size=(400, 4))
    q /= np.linalg.norm(q, axis=1)[:, None]
    q *= 1.0 + rng.uniform(-5e-7, 5e-7, size=(400, 1))  # within the accepted 1e-6 of unit norm
    single, batched, added = World(dim=3), World(dim=3), World(dim=3)
    ids = list(range(400))
    for w in (single, batched):
        w.add_many(Sphere(1.0), np.zeros((400, 3)), ids=ids)
    for i in ids:
        single.move(i, quaternion=q[i])
        added.add(Box((1.0, 2.0, 0.5)), quaternion=q[i], id=i)
    batched.move_many(ids, quaternions=q)
    for i in ids:
        a, b, c = single.body(i).quaternion, batched.body(i).quaternion, added.body(i).quaternion
        assert a.tobytes() == b.tobytes() == c.tobytes()
        # and the normalisation is a normalisation: unit within rounding
        assert abs(np.linalg.norm(a) - 1.0) < 4e-16


# -- rotations from scipy (issue 16) ---------------------------------------------------------------


def test_a_scipy_rotation_is_its_quaternion_in_w_x_y_z_order() -> None:
    r = Rotation.from_euler("xyz", [0.3, -1.1, 2.0])
    x, y, z, w_ = r.as_quat()  # scipy's order
    world = World(dim=3)
    world.add(Box((1.0, 1.0, 1.0)), quaternion=r, id="a")
    world.add(Box((1.0, 1.0, 1.0)), quaternion=[w_, x, y, z], id="b")
    assert np.allclose(world.body("a").quaternion, world.body("b").quaternion, atol=1e-15)
    # the stored rotation turns vectors as scipy's does
    from collideworld.geometry.rotation import rotation_matrix_3d
    assert np.allclose(rotation_matrix_3d(world.body("a").quaternion[None])[0], r.as_matrix(), atol=1e-12)
    world.move_many(["a", "b"], quaternions=Rotation.from_euler("z", [[0.5], [0.5]]))
    assert np.allclose(world.body("a").quaternion, [np.cos(0.25), 0, 0, np.sin(0.25)], atol=1e-15)
    hit = collide(Box((1.0, 1.0, 1.0)), ((0, 0, 0), r), Sphere(1.0), ((0, 0, 0.5), None))
    assert hit is not None


# -- capacity is given back (item 11) -------------------------------------------------------------


def test_an_emptied_world_shrinks_and_answers_as_before() -> None:
    rng = np.random.default_rng(3)
    big = World(dim=2)
    twin = World(dim=2)
    twin.COMPACT_MIN_CAPACITY = 1 << 40  # never compacts: the reference
    for w in (big, twin):
        w.add(HalfPlane((0.0, 1.0), 0.0), id="ground")
    pos = rng.uniform(0, 200, (20_000, 2))
    for w in (big, twin):
        ids = w.add_many(Circle(0.5), pos)
        w.step()
        w.remove_many(ids[100:])
    grown = big._store.capacity
    ca, cb = big.step(), twin.step()
    assert big._store.capacity <= 2 * 101 < grown // 50  # given back on the step
    assert twin._store.capacity == grown
    for _ in range(5):
        moved = rng.choice(ids[:100], 30, replace=False)
        new = rng.uniform(0, 20, (30, 2))
        for w in (big, twin):
            w.move_many(moved, positions=new)
        ca, cb = big.step(), twin.step()
        assert ca.pairs() == cb.pairs()
        assert set(ca.began) == set(cb.began) and set(ca.ended) == set(cb.ended)
        assert np.array_equal(ca.normal, cb.normal) and np.array_equal(ca.depth, cb.depth)
        big.validate()
    # ids and int lookups still work after renumbering
    assert big.ids() == twin.ids()
    assert [big.body(i).position.tolist() for i in ids[:100]] == [twin.body(i).position.tolist() for i in ids[:100]]


# -- the touching rule is relative all the way down (item 8) -------------------------------------


@pytest.mark.parametrize("scale", [1e-20, 1e-16, 1e-8, 1.0, 1e8, 1e20])
def test_contact_decisions_do_not_depend_on_the_scene_scale(scale: float) -> None:
    # unit circles, 2 apart centre to centre, then pushed apart by gaps relative to their size;
    # the whole scene is scaled by powers of ten, which are exact for the gaps' powers of two
    # only approximately, so gaps well outside the 1e-14 band are used
    for gap, touching in ((0.0, True), (-1e-9, True), (1e-12, False), (24 * 2.0, False)):
        w = World(dim=2)
        w.add(Circle(scale), position=(0, 0), id="a")
        w.add(Circle(scale), position=((2 + gap) * scale, 0), id="b")
        assert (w.step().pairs() == {("a", "b")}) is touching, (scale, gap)


def test_two_specks_far_apart_relative_to_their_size_are_apart() -> None:
    # the case the old absolute floor of 1e-14 got wrong: radius 1e-16, gap 24 diameters
    assert collide(Circle(1e-16), (0.0, 0.0), Circle(1e-16), (2e-16 + 48e-16, 0.0)) is None
    assert collide(Circle(1e-16), (0.0, 0.0), Circle(1e-16), (2e-16, 0.0)) is not None


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
@pytest.mark.parametrize("bad", [np.array([]), np.array([1, 2]), np.uint64(1) << np.uint64(40), 1.5, True])
def test_single_queries_reject_bad_filters_with_our_error(backend, bad):
    """A filter that is no 32-bit int (an empty array among them, found by hypothesis) is an
    InvalidArgumentError, never numpy's ambiguous-truth ValueError, on the fast path's checks."""
    from collideworld import Circle, InvalidArgumentError, World

    w = World(dim=2, backend=backend)
    for kw in ({"category": bad}, {"mask": bad}):
        with pytest.raises(InvalidArgumentError):
            w.query_point((0.0, 0.0), **kw)
        with pytest.raises(InvalidArgumentError):
            w.raycast((0.0, 0.0), (1.0, 0.0), **kw)
    w.add(Circle(1.0), id="c")
    assert w.query_point((0.0, 0.0)) == ["c"]
