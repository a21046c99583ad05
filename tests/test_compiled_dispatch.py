"""The compiled narrowphase dispatch (one loop over all pairs) against the numpy narrowphase.

``contact_pairs(..., backend="compiled")`` runs
:func:`collideworld.geometry.compiled.contact_slots.contact_slots` and sends
only pairs with non-simple polygons through the grouped path. Expected values
come from the numpy backend (an independent implementation of every kernel
and of the dispatch), on random worlds and on worlds moved to near-touching.
"""

from __future__ import annotations

import numpy as np
import pytest

from collideworld.backend import compiled_available
from collideworld.bodies import BodyStore, Kind
from collideworld.narrowphase import contact_pairs, contact_pairs_exact

from .test_compiled_kernels import KIND_MIXES, assert_same_contacts, random_store

pytestmark = pytest.mark.skipif(not compiled_available(), reason="numba is not installed")


def test_kind_codes_agree_with_the_store() -> None:
    from collideworld.geometry.compiled import contact_slots as cs
    assert (cs.HALFSPACE, cs.BALL, cs.BOX, cs.POLYGON) == (Kind.HALFSPACE, Kind.BALL, Kind.BOX, Kind.POLYGON)


def _check(store: BodyStore, ia: np.ndarray, ib: np.ndarray) -> None:
    scale = np.full(len(ia), np.abs(store.position).max() + 10.0)
    for fn in (contact_pairs, contact_pairs_exact):
        for a, b in ((ia, ib), (ib, ia)):  # both orders: the loop's swap and flip
            ref = fn(store, a, b, backend="numpy")
            got = fn(store, a, b, backend="compiled")
            assert_same_contacts(ref, got, scale)
            # zero components print the same on both backends (no -0.0)
            assert np.array_equal(np.signbit(got.normal[got.normal == 0]), np.signbit(ref.normal[ref.normal == 0]))


@pytest.mark.parametrize("dim, kinds", KIND_MIXES + [(2, "hcb"), (2, "h")])
@pytest.mark.parametrize("seed", range(4))
def test_one_loop_matches_numpy_on_random_worlds(dim: int, kinds: str, seed: int) -> None:
    rng = np.random.default_rng([seed, dim, len(kinds), 11])
    store, ia, ib = random_store(rng, dim, kinds)
    _check(store, ia, ib)


def _touching_world(rng: np.random.Generator, dim: int, kinds: str) -> tuple[BodyStore, np.ndarray, np.ndarray]:
    """A random world whose pairs are each moved (b along the numpy normal by the numpy depth) to touch.

    Each pair is copied into its own two fresh bodies, so moving one pair's
    body does not move another's; the result is a batch of pairs within
    rounding of touching, on both sides of the touching tolerance.
    """
    store, ia, ib = random_store(rng, dim, kinds, n=24)
    ref = contact_pairs_exact(store, ia, ib, backend="numpy")
    finite = (store.kind[ia] != Kind.HALFSPACE) | (store.kind[ib] != Kind.HALFSPACE)
    keep = np.flatnonzero(finite & np.isfinite(ref.depth))
    keep = keep[store.kind[ib[keep]] != Kind.HALFSPACE]  # b is the body that moves
    ia, ib = ia[keep], ib[keep]
    shift = (ref.normal[keep] * ref.depth[keep, None])
    # and a few ulps either way of touching
    shift *= 1.0 + rng.choice([-4, -1, 0, 1, 4], len(keep))[:, None] * np.finfo(float).eps
    out = BodyStore(dim)
    sa, sb = out.allocate(len(keep)), out.allocate(len(keep))
    out.set_shapes(sa, [store.shapes[s] for s in ia.tolist()])
    out.set_shapes(sb, [store.shapes[s] for s in ib.tolist()])
    pos_a, pos_b = store.position[ia], store.position[ib] + shift
    if dim == 2:
        out.set_poses(sa, pos_a, store.angle[ia])
        out.set_poses(sb, pos_b, store.angle[ib])
    else:
        out.set_poses(sa, pos_a, quaternion=store.quaternion[ia])
        out.set_poses(sb, pos_b, quaternion=store.quaternion[ib])
    return out, sa, sb


@pytest.mark.parametrize("dim, kinds", KIND_MIXES)
@pytest.mark.parametrize("seed", range(3))
def test_one_loop_matches_numpy_near_touching(dim: int, kinds: str, seed: int) -> None:
    rng = np.random.default_rng([seed, dim, len(kinds), 12])
    store, ia, ib = _touching_world(rng, dim, kinds)
    assert len(ia)
    _check(store, ia, ib)


def test_far_pairs_are_settled_by_the_reject_like_numpy() -> None:
    from collideworld import Box, Circle
    store = BodyStore(2)
    s = store.allocate(3)
    store.set_shapes(s, [Circle(1.0), Box((0.5, 0.5)), Circle(1.0)])
    store.set_poses(s, np.array([[0.0, 0.0], [50.0, 0.0], [2.0, 0.0]]), np.zeros(3))
    got = contact_pairs(store, s[[0, 1, 0]], s[[1, 0, 2]], backend="compiled")
    # by hand: the first two pairs are 48.5 apart (rejected: normal +x, depth -inf); the last touch at x = 1
    assert got.hit.tolist() == [False, False, True]
    assert got.normal.tolist() == [[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]]
    assert got.depth.tolist() == [-np.inf, -np.inf, 0.0]
