"""The pair cache's expansion of compound pairs into keyed part pairs (``expand_keys``), both twins.

Oracle: a plain Python loop over every pair and every pair of parts, keyed
by the definition (``(serial of the one added first) << 32 | serial of the
other``) and sorted as tuples; and whole steps of a world of compounds,
whose contacts must equal those of the store's own expansion
(``BodyStore.expand_pairs``), the path the pair cache took before.
"""

from __future__ import annotations

import numpy as np
import pytest


def _layout(rng: np.random.Generator, n_bodies: int, in_order: bool
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """A store-like layout: bodies, some compounds of 1-4 part slots, serials in add order or shuffled."""
    n_parts = np.zeros(n_bodies, dtype=np.int64)
    comp = rng.random(n_bodies) < 0.4
    n_parts[comp] = rng.integers(1, 5, int(comp.sum()))
    total = int(n_parts.sum())
    cap = n_bodies + total
    n_parts = np.concatenate([n_parts, np.zeros(total, dtype=np.int64)])
    parts_at = np.zeros(cap, dtype=np.int64)
    parts_at[:n_bodies] = np.cumsum(n_parts[:n_bodies]) - n_parts[:n_bodies]
    part_slots = n_bodies + rng.permutation(total) if not in_order else n_bodies + np.arange(total)
    serial = np.empty(cap, dtype=np.int64)
    if in_order:
        # the world's numbering: body, its parts, next body (World._number_parts); slots in add order
        s = 0
        for body in range(n_bodies):
            serial[body] = s
            s += 1
            for k in range(int(n_parts[body])):
                serial[part_slots[parts_at[body] + k]] = s
                s += 1
    else:
        serial[:] = rng.permutation(cap) * 3 + 1
    return n_parts, parts_at, part_slots.astype(np.int64), serial, n_bodies


def _expected(i: np.ndarray, j: np.ndarray, n_parts: np.ndarray, parts_at: np.ndarray, part_slots: np.ndarray,
              serial: np.ndarray) -> list[tuple[int, int, int]]:
    rows = []
    for x, y in zip(i.tolist(), j.tolist(), strict=True):
        px = [int(part_slots[parts_at[x] + k]) for k in range(n_parts[x])] or [x]
        py = [int(part_slots[parts_at[y] + k]) for k in range(n_parts[y])] or [y]
        for p in px:
            for q in py:
                a, b = (p, q) if serial[p] < serial[q] else (q, p)
                rows.append(((int(serial[a]) << 32) | int(serial[b]), a, b))
    return sorted(rows)


@pytest.mark.parametrize("seed", range(12))
def test_expand_keys_equals_the_brute_force_expansion_on_both_backends(seed: int) -> None:
    from collideworld import pair_cache as numpy_twin
    from collideworld.compiled import pair_cache as compiled_twin

    rng = np.random.default_rng(seed)
    n_bodies = int(rng.integers(2, 60))
    n_parts, parts_at, part_slots, serial, n = _layout(rng, n_bodies, in_order=seed % 3 != 2)
    pairs = {(int(x), int(y)) for x, y in rng.integers(0, n, (int(rng.integers(0, 4 * n)), 2)) if x != y}
    pairs = {(min(p), max(p)) for p in pairs}
    rows = sorted(pairs) if seed % 2 == 0 else list(pairs)  # the full list (sorted) or a patch's (any order)
    i = np.array([p[0] for p in rows], dtype=np.int64)
    j = np.array([p[1] for p in rows], dtype=np.int64)
    expected = _expected(i, j, n_parts, parts_at, part_slots, serial)
    for twin in (numpy_twin, compiled_twin):
        keys, a, b = twin.expand_keys(i, j, n_parts, parts_at, part_slots, serial)
        assert list(zip(keys.tolist(), a.tolist(), b.tolist(), strict=True)) == expected, twin.__name__


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_steps_with_compounds_give_the_contacts_of_the_stores_expansion(backend: str) -> None:
    from collideworld import Box, Circle, Compound, Polygon, World
    from collideworld.pair_cache import PairCache

    def run(expand_in_store: bool) -> list[tuple]:
        rng = np.random.default_rng(7)
        w = World(dim=2, backend=backend, manifolds=True)
        pos = rng.uniform(0, 25, (150, 2))
        for k in range(150):
            r = float(rng.uniform(0.3, 0.8))
            parts = int(rng.integers(1, 4))
            shape = Circle(r) if parts == 1 else Compound([(Circle(r), (1.5 * r * q, 0.0)) for q in range(parts)])
            w.add(shape, pos[k], angle=float(rng.uniform(-3, 3)), id=k)
        for _ in range(10):
            w.add(Box((1.0, 0.6)), rng.uniform(0, 25, 2), angle=float(rng.uniform(-3, 3)), static=True)
            s = float(rng.uniform(1, 2))
            w.add(Polygon([(0, 0), (2 * s, 0), (2 * s, s), (s, s), (s, 2 * s), (0, 2 * s)]), rng.uniform(0, 25, 2),
                  static=True)
        if expand_in_store:
            # a free slot flagged as a surface: the pair cache then takes the store's expansion (its
            # path for meshes), which no pair meets (the slot holds no body)
            assert w._store.kind[-1] < 0
            w._store.surface[-1] = True
        out = []
        for _ in range(6):
            pos = pos + rng.normal(0, 0.3, pos.shape)
            w.move_many(np.arange(150), pos, rng.uniform(-3, 3, 150))
            c = w.step()
            # floats by their bytes: the same to the bit (unused point rows hold NaN)
            out.append((c.a.tolist(), c.b.tolist(), c.part_a.tolist(), c.part_b.tolist(), c.normal.tobytes(),
                        c.depth.tobytes(), c.began.rows(), c.ended.rows(), c.points.tobytes(), c.point_ids.tolist(),
                        c.separations.tobytes(), c.point_count.tolist()))
        assert isinstance(w._pairs, PairCache)
        return out

    assert run(False) == run(True)
