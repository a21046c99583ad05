"""The compiled twins of the world's own stages (collideworld/compiled/) against their numpy modules."""

from __future__ import annotations

import numpy as np
import pytest

from collideworld import Box, Circle, HalfPlane, Polygon, Sphere, World
from collideworld.bodies import Kind
from collideworld.compiled import fat_boxes as compiled_fat_boxes
from collideworld.fat_boxes import tight_bounds


def test_kind_codes_agree_with_the_store() -> None:
    assert (compiled_fat_boxes.BALL, compiled_fat_boxes.BOX, compiled_fat_boxes.POLYGON) == (
        Kind.BALL, Kind.BOX, Kind.POLYGON)


def _world(dim: int, backend: str, rng: np.random.Generator, n: int = 300) -> tuple[World, list[int]]:
    w = World(dim=dim, backend=backend)
    if dim == 2:
        w.add(HalfPlane((0.0, 1.0), -50.0))
        shapes = [Circle(0.7), Box((1.0, 0.3)), Polygon([(0, 0), (1, 0), (0, 1)]),
                  Polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]),  # concave: the numpy path
                  Polygon([(np.cos(t), np.sin(t)) for t in np.linspace(0, 2 * np.pi, 12, endpoint=False)])]
    else:
        shapes = [Sphere(0.7), Box((1.0, 0.3, 0.5))]
    pick = rng.integers(0, len(shapes), n)
    ids = w.add_many([shapes[k] for k in pick], rng.uniform(-40, 40, (n, dim)),
                     static=rng.random(n) < 0.2)
    return w, ids


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("scale", [1.0, 1e6])
def test_refit_keeps_every_body_inside_its_box_and_answers_like_numpy(dim: int, scale: float) -> None:
    rng = np.random.default_rng(dim)
    worlds = {b: _world(dim, b, np.random.default_rng(7)) for b in ("compiled", "numpy")}
    for _ in range(6):
        ids = worlds["numpy"][1]
        moved = rng.choice(ids, 150, replace=False)
        pos = rng.uniform(-40, 40, (150, dim)) + (0.0 if scale == 1 else scale)  # far out: 1e6
        rot = {"angles": rng.uniform(-3, 3, 150)} if dim == 2 else {
            "quaternions": (q := rng.normal(size=(150, 4))) / np.linalg.norm(q, axis=1)[:, None]}
        out = {}
        for b, (w, _) in worlds.items():
            w.move_many(moved, positions=pos, **rot)
            out[b] = w.step()
            st = w._store
            live = np.flatnonzero((st.kind >= 0) & (st.kind != Kind.HALFSPACE))
            lo, hi = tight_bounds(st, live)  # the numpy tight boxes, tolerance included
            assert np.all(lo >= st.fat_lo[live]) and np.all(hi <= st.fat_hi[live])
            w.validate()
        c, n = out["compiled"], out["numpy"]
        assert c.a.tolist() == n.a.tolist() and c.b.tolist() == n.b.tolist()
        assert list(c.began) == list(n.began) and list(c.ended) == list(n.ended)
        np.testing.assert_allclose(c.depth, n.depth, rtol=1e-12, atol=1e-12 * scale)


@pytest.mark.parametrize("dim", [2, 3])
def test_capsules_segments_and_hulls_answer_alike_on_both_backends(dim: int) -> None:
    from collideworld import Capsule, ConvexHull, Segment

    rng = np.random.default_rng(11 + dim)
    if dim == 2:
        shapes = [Capsule((0, 0), (1.5, 0), 0.4), Segment((-1, 0), (1, 0.5)), Circle(0.6), Box((0.7, 0.3)),
                  Polygon([(0, 0), (1, 0), (0, 1)])]
    else:
        cube = [(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]
        shapes = [Capsule((0, 0, 0), (1.5, 0, 0), 0.4), Segment((-1, 0, 0), (1, 0.5, 0)), Sphere(0.6),
                  Box((0.7, 0.3, 0.5)), ConvexHull(cube + [(0.0, 0.0, 0.9)])]
    n = 150
    pick = rng.integers(0, len(shapes), n)
    pos = rng.uniform(0, 12, (n, dim))
    rot = {"angles": rng.uniform(-3, 3, n)} if dim == 2 else {
        "quaternions": (q := rng.normal(size=(n, 4))) / np.linalg.norm(q, axis=1)[:, None]}
    out = {}
    for b in ("compiled", "numpy"):
        w = World(dim=dim, backend=b)
        w.add_many([shapes[k] for k in pick], pos, **rot)
        out[b] = w.step()
    c, num = out["compiled"], out["numpy"]
    assert len(num) > 20  # a dense enough scene to mean something
    assert c.a.tolist() == num.a.tolist() and c.b.tolist() == num.b.tolist()
    np.testing.assert_allclose(c.depth, num.depth, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(c.normal, num.normal, rtol=0, atol=1e-9)
