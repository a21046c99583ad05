"""The compiled twins of the world's own stages (collideworld/compiled/) against their numpy modules."""

from __future__ import annotations

import numpy as np
import pytest

from collideworld import Box, Circle, HalfPlane, Polygon, Sphere, World
from collideworld.bodies import Kind
from collideworld.compiled import fat_boxes as compiled_fat_boxes
from collideworld.fat_boxes import tight_bounds


def test_kind_codes_agree_with_the_store() -> None:
    assert (compiled_fat_boxes.BALL, compiled_fat_boxes.BOX, compiled_fat_boxes.POLYGON,
            compiled_fat_boxes.CAPSULE) == (Kind.BALL, Kind.BOX, Kind.POLYGON, Kind.CAPSULE)


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
            live = st.body_slots()  # the concave L's pieces are part slots: in no broadphase, no fat box
            live = live[st.kind[live] != Kind.HALFSPACE]
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


# -- the pair cache's bookkeeping: both twins against Python sets ------------------------------


def _sorted_keys(rng: np.random.Generator, n: int, universe: int) -> np.ndarray:
    return np.sort(rng.choice(universe, size=min(n, universe), replace=False)).astype(np.int64)


def _key_cases() -> list[tuple[int, int, int, float]]:
    # (rows now, rows before, key universe, fraction moved): empty sides, all equal, disjoint, random
    return [(0, 0, 10, 0.5), (0, 6, 10, 0.5), (6, 0, 10, 0.5), (10, 10, 10, 0.0), (10, 10, 10, 1.0),
            (40, 40, 1000, 0.3), (300, 250, 600, 0.1), (300, 250, 400, 0.9)]


@pytest.mark.parametrize("case", range(len(_key_cases())))
def test_reuse_answers_copies_exactly_the_unmoved_old_pairs_on_both_backends(case: int) -> None:
    from collideworld import pair_cache as numpy_twin
    from collideworld.compiled import pair_cache as compiled_twin

    n, q, universe, frac = _key_cases()[case]
    rng = np.random.default_rng(case)
    keys, old_keys = _sorted_keys(rng, n, universe), _sorted_keys(rng, q, universe)
    a, b = rng.integers(0, 50, len(keys)), rng.integers(0, 50, len(keys))
    moved = rng.random(50) < frac
    old_hit, old_normal, old_depth = rng.random(len(old_keys)) < 0.5, rng.normal(size=(len(old_keys), 2)), \
        rng.normal(size=len(old_keys))
    where = {int(k): i for i, k in enumerate(old_keys)}
    expected_fresh = [r for r in range(len(keys)) if moved[a[r]] or moved[b[r]] or int(keys[r]) not in where]
    for twin in (numpy_twin, compiled_twin):
        hit, normal, depth = np.zeros(len(keys), dtype=bool), np.full((len(keys), 2), 7.0), np.full(len(keys), 7.0)
        fresh = twin.reuse_answers(keys, a, b, moved, old_keys, old_hit, old_normal, old_depth, hit, normal, depth)
        if twin is numpy_twin and not len(old_keys):
            assert fresh.tolist() == list(range(len(keys)))
            continue
        assert fresh.tolist() == expected_fresh
        for r in sorted(set(range(len(keys))) - set(expected_fresh)):
            i = where[int(keys[r])]
            assert (hit[r], normal[r].tolist(), depth[r]) == (old_hit[i], old_normal[i].tolist(), old_depth[i])
        assert np.all(normal[expected_fresh] == 7.0) and np.all(depth[expected_fresh] == 7.0)


@pytest.mark.parametrize("case", range(len(_key_cases())))
def test_contact_events_are_the_set_differences_on_both_backends(case: int) -> None:
    from collideworld import pair_cache as numpy_twin
    from collideworld.compiled import pair_cache as compiled_twin

    n, q, universe, frac = _key_cases()[case]
    rng = np.random.default_rng(100 + case)
    keys, prev = _sorted_keys(rng, n, universe), _sorted_keys(rng, q, universe)
    hit = rng.random(len(keys)) < 1.0 - frac
    now = {int(k) for k in keys[hit]}
    before = {int(k) for k in prev}
    for twin in (numpy_twin, compiled_twin):
        rows, began, ended = twin.contact_events(keys, hit, prev)
        assert rows.tolist() == [r for r in range(len(keys)) if hit[r]]
        assert [int(k) for k in keys[rows][began]] == sorted(now - before)
        assert [int(k) for k in prev[ended]] == sorted(before - now)
        assert ended.tolist() == sorted(ended.tolist())


@pytest.mark.parametrize("case", range(len(_key_cases())))
def test_merge_patched_keeps_unchanged_pairs_and_adds_the_new_ones_on_both_backends(case: int) -> None:
    from collideworld import pair_cache as numpy_twin
    from collideworld.compiled import pair_cache as compiled_twin

    n, q, universe, frac = _key_cases()[case]
    rng = np.random.default_rng(200 + case)
    cap = 40
    mark = rng.random(cap) < frac
    moved = mark | (rng.random(cap) < 0.2)
    # old pairs: keys derived from the slots, so the rule "a new key holds a changed slot" can hold
    pairs = sorted({(int(i), int(j)) for i, j in rng.integers(0, cap, (q + n, 2)) if i < j})
    rng.shuffle(pairs)
    old = sorted(pairs[: len(pairs) // 2])
    new = sorted(p for p in pairs[len(pairs) // 2:] if mark[p[0]] or mark[p[1]])
    key = lambda p: (p[0] << 32) | p[1]  # noqa: E731
    arr = lambda ps, k: np.array([x[k] for x in ps], dtype=np.int64)  # noqa: E731
    old_keys = np.array([key(p) for p in old], dtype=np.int64)
    new_keys = np.array([key(p) for p in new], dtype=np.int64)
    old_hit, old_normal, old_depth = rng.random(len(old)) < 0.5, rng.normal(size=(len(old), 3)), \
        rng.normal(size=len(old))
    kept = [p for p in old if not (mark[p[0]] or mark[p[1]])]
    merged = sorted(kept + new)
    for twin in (numpy_twin, compiled_twin):
        keys, a, b, hit, normal, depth, fresh = twin.merge_patched(
            old_keys, arr(old, 0), arr(old, 1), old_hit, old_normal, old_depth, mark, moved, new_keys,
            arr(new, 0), arr(new, 1))
        assert keys.tolist() == [key(p) for p in merged]
        assert list(zip(a.tolist(), b.tolist(), strict=True)) == merged
        assert fresh.tolist() == [r for r, p in enumerate(merged) if p in new or moved[p[0]] or moved[p[1]]]
        for r, p in enumerate(merged):
            if p in kept:
                i = old.index(p)
                assert (hit[r], normal[r].tolist(), depth[r]) == (old_hit[i], old_normal[i].tolist(), old_depth[i])
