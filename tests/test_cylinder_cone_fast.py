"""Cylinders and cones on the compiled paths (issue 29's speed): the same answers as the numpy path.

``collide()`` and ``collide_many`` take a cylinder or cone pair in their one compiled call, and a
compiled World's step takes it in a compiled loop over slots (``geometry/compiled/support_slots``),
neither through the store and the grouped numpy dispatcher. The numpy backend is the reference:
it gathers each kind pair's support rows with numpy and runs the support-mapping kernel on them,
so the two must agree bit for bit. The answers themselves are checked against fcl, coal and closed
forms in tests/test_cylinder_cone.py.
"""

from __future__ import annotations

import importlib

import numpy as np

import collideworld as cw
from collideworld import Box, Capsule, Cone, Cylinder, Plane, Sphere, World
from collideworld.bodies import Kind
from collideworld.geometry import support_convex

KINDS = ("sphere", "box", "capsule", "cylinder", "cone")


def shape(rng, kind):
    r, h = rng.uniform(0.3, 1.2, 2)
    return {"sphere": lambda: Sphere(r), "box": lambda: Box(tuple(rng.uniform(0.3, 1.2, 3))),
            "capsule": lambda: Capsule((0, 0, -h), (0, 0, h), r), "cylinder": lambda: Cylinder(r, h),
            "cone": lambda: Cone(r, h)}[kind]()


def unit_quaternion(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def random_pairs(seed, n):
    """n pairs with a cylinder or cone on at least one side, about half of them touching, and
    planes (either side) against cylinders and cones."""
    rng = np.random.default_rng(seed)
    pairs = []
    for _ in range(n):
        a = shape(rng, KINDS[rng.integers(5)])
        b = shape(rng, KINDS[rng.integers(3, 5)])
        if rng.random() < 0.5:
            a, b = b, a
        pairs.append((a, (tuple(rng.uniform(-1, 1, 3)), tuple(unit_quaternion(rng))),
                      b, (tuple(rng.uniform(-1.5, 1.5, 3)), tuple(unit_quaternion(rng)))))
    for _ in range(n // 8):
        n_ = rng.normal(size=3)
        plane = Plane(tuple(n_ / np.linalg.norm(n_)), float(rng.uniform(-1, 1)))
        c = shape(rng, KINDS[rng.integers(3, 5)])
        pose = (tuple(rng.uniform(-1.5, 1.5, 3)), tuple(unit_quaternion(rng)))
        pairs += [(plane, None, c, pose), (c, pose, plane, None)]
    return pairs


def same(x, y):
    if x is None or y is None:
        return x is None and y is None
    return bool(np.array_equal(x.normal, y.normal)) and x.depth == y.depth


def test_kind_codes_agree_with_the_store():
    from collideworld.geometry.compiled import support_slots

    assert (support_slots.HALFSPACE, support_slots.BALL, support_slots.BOX, support_slots.CAPSULE,
            support_slots.CYLINDER, support_slots.CONE) == (Kind.HALFSPACE, Kind.BALL, Kind.BOX, Kind.CAPSULE,
                                                             Kind.CYLINDER, Kind.CONE)


def test_collide_compiled_matches_numpy_on_random_pairs(monkeypatch):
    pairs = random_pairs(29, 320)
    numpy_answers = [cw.collide(*p, backend="numpy") for p in pairs]
    # the compiled answers must come from the one call: no two-body store is built
    stores = []
    module = importlib.import_module("collideworld.collide")  # (the package's name is the function)
    real = module._collide_store

    def counting(*args, **kwargs):
        stores.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "_collide_store", counting)
    compiled_answers = [cw.collide(*p, backend="compiled") for p in pairs]
    hits = sum(c is not None for c in numpy_answers)
    agree = sum(same(x, y) for x, y in zip(compiled_answers, numpy_answers, strict=True))
    assert 100 < hits < len(pairs) - 100
    assert agree == len(pairs), (agree, len(pairs))
    assert not stores, f"{len(stores)} of {len(pairs)} compiled collide() calls built a store"


def test_collide_many_compiled_matches_numpy():
    pairs = [p for p in random_pairs(31, 300) if p[1] is not None and p[3] is not None]
    sa = [p[0] for p in pairs]
    sb = [p[2] for p in pairs]
    poses_a = (np.array([p[1][0] for p in pairs]), np.array([p[1][1] for p in pairs]))
    poses_b = (np.array([p[3][0] for p in pairs]), np.array([p[3][1] for p in pairs]))
    c = cw.collide_many(sa, poses_a, sb, poses_b, backend="compiled")
    r = cw.collide_many(sa, poses_a, sb, poses_b, backend="numpy")
    assert 100 < int(r.hit.sum()) < len(pairs) - 100
    assert np.array_equal(c.hit, r.hit)
    assert np.array_equal(c.normal[c.hit], r.normal[r.hit]) and np.array_equal(c.depth[c.hit], r.depth[r.hit])


def pile(backend, seed=7):
    """A pile of 120 shapes (over half of them cylinders and cones) in a 4-unit cube, and a floor."""
    rng = np.random.default_rng(seed)
    w = World(dim=3, backend=backend)
    shapes = [shape(rng, KINDS[rng.integers(5)] if rng.random() < 0.5 else KINDS[rng.integers(3, 5)])
              for _ in range(120)]
    pos = rng.uniform(-2, 2, (120, 3))
    ids = [w.add(s, position=tuple(p), quaternion=tuple(unit_quaternion(rng))) for s, p in zip(shapes, pos,
                                                                                                 strict=True)]
    w.add(Plane((0.0, 0.0, 1.0), -1.5))
    return w, ids, shapes, pos


def contacts(w):
    c = w.step()
    return {(a, b): (tuple(n), d) for a, b, n, d in zip(c.a.tolist(), c.b.tolist(), c.normal, c.depth.tolist(),
                                                        strict=True)}


def test_compiled_step_takes_cylinder_pairs_without_the_grouped_path(monkeypatch):
    calls = []
    for name in ("contact_support", "contact_halfspace_support"):
        real = getattr(support_convex, name)

        def counting(*args, _real=real, _name=name, **kwargs):
            calls.append((_name, len(args[2])))
            return _real(*args, **kwargs)

        monkeypatch.setattr(support_convex, name, counting)
    w, ids, shapes, pos = pile("compiled")
    first = contacts(w)
    curved = sum(1 for a, b in first if any(isinstance(shapes[i], (Cylinder, Cone)) for i in (a, b) if i in ids))
    assert curved > 60, curved
    # every body moved a little: every pair tested again
    w.move_many(ids, positions=pos + np.random.default_rng(1).uniform(-0.05, 0.05, pos.shape))
    assert contacts(w)
    assert calls == [], calls  # no support rows gathered: the compiled loop took every such pair


def test_compiled_step_matches_numpy_step():
    wc, ids_c, _, pos = pile("compiled")
    wn, ids_n, _, _ = pile("numpy")
    rng = np.random.default_rng(3)
    for _ in range(3):
        a = contacts(wc)
        b = contacts(wn)
        assert len(a) > 100
        assert a.keys() == b.keys()
        assert all(a[k] == b[k] for k in a)
        pos = pos + rng.uniform(-0.1, 0.1, pos.shape)
        wc.move_many(ids_c, positions=pos)
        wn.move_many(ids_n, positions=pos)
