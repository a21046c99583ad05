"""The pair cache: candidate pairs between steps, their narrowphase answers, and contact events.

The cache keeps every candidate pair of the last step (fat boxes overlapping,
filters passed), sorted by pair key, with its narrowphase answer. A step
either rebuilds the candidates from the broadphase's full pair list, or,
when few fat boxes changed and nothing was added or removed, *patches* them:
pairs of changed boxes are dropped and asked for again
(``pairs_touching``), the rest stay. Either way only pairs with a moved body
go through the narrowphase again. Both give the same candidates and, pair by
pair, the same kernel calls, so the answers are identical.

Pair keys are ``(serial_a << 32) | serial_b`` with ``a`` the body added
first, so the order of contacts is the add order whatever slots the bodies
occupy. Began/ended events are sorted set differences of successive keys
(Box2D's begin/end touch events, computed after the step).

Compound bodies: a candidate pair with a compound is expanded into one row
per pair of parts (``BodyStore.expand_pairs``) before it is keyed, and each
part slot has a serial of its own (given by the world), so a row, its
answer, its reuse and its began/ended events are per *part pair*: a contact
row is identified by ``(id_a, id_b, part_a, part_b)``, and so are began and
ended rows, so a solver can warm-start per part pair.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from .bodies import BodyStore
from .broadphase import Broadphase
from .contacts import Contacts, PairList
from .geometry.manifold_support import ManifoldArrays, empty_manifold
from .narrowphase import contact_pairs, manifold_pairs
from .registry import IdRegistry

__all__ = ["PairCache"]

_U32 = 0xFFFFFFFF


class _Candidates(NamedTuple):
    """A step's candidate pairs, sorted by key, with their narrowphase answers."""

    keys: NDArray[np.int64]  # (serial_a << 32) | serial_b
    a: NDArray[np.int64]  # slots, a added first
    b: NDArray[np.int64]
    hit: NDArray[np.bool_]
    normal: NDArray[np.float64]
    depth: NDArray[np.float64]
    signature: tuple[int, int] | None  # IdRegistry.signature() when built
    manifold: ManifoldArrays | None = None  # contact points per row (hit rows only), when the world wants them

    @staticmethod
    def empty(dim: int) -> _Candidates:
        none = np.empty(0, dtype=np.int64)
        return _Candidates(none, none, none, np.empty(0, dtype=bool), np.empty((0, dim)), np.empty(0), None)


def _member_of_sorted(keys: NDArray[np.int64], sorted_keys: NDArray[np.int64]) -> NDArray[np.bool_]:
    """``np.isin`` for a sorted second argument, by one binary search per key."""
    if not len(sorted_keys):
        return np.zeros(len(keys), dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    found: NDArray[np.bool_] = sorted_keys[pos] == keys
    return found


class PairCache:
    """Candidates, reuse of unmoved pairs, patching, and began/ended, for one world.

    Parameters
    ----------
    store : BodyStore
    registry : IdRegistry
    broadphase : Broadphase
        Holds every body (half-spaces included) under its slot.
    backend : {"numpy", "compiled"}
        Which kernels the narrowphase runs.
    manifolds : bool
        Also compute contact points (for the rows that hit and were tested
        this step; unmoved pairs keep theirs).

    Examples
    --------
    The cache is the World's; :meth:`World.step` drives it:

    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add_many(Circle(1.0), [[0.0, 0.0], [1.5, 0.0]])
    [0, 1]
    >>> [(c.a, c.b) for c in w.step()], list(w.step().began)
    ([(0, 1)], [])
    """

    def __init__(self, store: BodyStore, registry: IdRegistry, broadphase: Broadphase,
                 backend: str = "numpy", manifolds: bool = False) -> None:
        self._store = store
        self._backend = backend
        self.manifolds = manifolds
        self._registry = registry
        self._bp = broadphase
        self.dim = store.dim
        self._cand = _Candidates.empty(self.dim)
        self._layout_cache: tuple[tuple[int, int], bool, bool] | None = None
        self._prev_keys = np.empty(0, dtype=np.int64)
        self._prev_a = np.empty(0, dtype=object)
        self._prev_b = np.empty(0, dtype=object)
        self._prev_part_a = np.empty(0, dtype=np.int64)
        self._prev_part_b = np.empty(0, dtype=np.int64)
        self.last: Contacts | None = None

    def pairs(self) -> set[tuple[object, object]]:
        """Id pairs in contact after the last step."""
        return set(zip(self._prev_a.tolist(), self._prev_b.tolist(), strict=True))

    def forget_layout(self) -> None:
        """Filters changed in place: work out again whether every filter passes."""
        self._layout_cache = None

    def renumber(self, new_slot: NDArray[np.int64]) -> None:
        """Follow a compaction of the store (``new_slot``: old slot -> new); keys and answers stay."""
        c = self._cand
        self._cand = c._replace(a=new_slot.take(c.a), b=new_slot.take(c.b))
        self._layout_cache = None

    # -- candidates -------------------------------------------------------------------------

    def _layout(self) -> tuple[bool, bool]:
        """(every filter passes every pair, slot order is add order), cached per signature."""
        sig = self._registry.signature()
        cached = self._layout_cache
        if cached is not None and cached[0] == sig:
            return cached[1], cached[2]
        st = self._store
        live = np.flatnonzero(st.kind >= 0)
        all_pass = bool(np.all(st.mask[live] == _U32) and np.all(st.category[live] != 0))
        serial = st.serial[live]
        in_order = bool(np.all(serial[1:] > serial[:-1]))
        self._layout_cache = (sig, all_pass, in_order)
        return all_pass, in_order

    def _keyed(self, cand: NDArray[np.int64], presorted: bool
               ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """Filter slot pairs and key them: (keys, a, b) sorted by key, ``a`` added first.

        ``presorted``: rows are sorted lexicographically by slot, with i < j.
        """
        i, j = cand[:, 0], cand[:, 1]
        all_pass, in_order = self._layout()
        st = self._store
        if not all_pass:
            cat, msk = st.category, st.mask
            keep = ((cat[i] & msk[j]) != 0) & ((cat[j] & msk[i]) != 0)
            i, j = i[keep], j[keep]
        if st.n_compounds:  # one row per pair of parts (filters were the bodies')
            _, i, j = st.expand_pairs(i, j)
            presorted = False
        serial = st.serial
        si, sj = serial[i], serial[j]
        if presorted and in_order:
            # slots in add order: (i, j) is (a, b) and slot order is key order
            return (si << 32) | sj, i, j
        swap = si > sj
        a = np.where(swap, j, i)
        b = np.where(swap, i, j)
        keys = (np.minimum(si, sj) << 32) | np.maximum(si, sj)
        order = np.argsort(keys)
        return keys[order], a[order], b[order]

    def _narrow(self, a: NDArray[np.int64], b: NDArray[np.int64], rows: NDArray[np.int64] | None,
                hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64]) -> None:
        """Fill hit/normal/depth by the narrowphase on ``rows`` (None: all rows)."""
        if rows is None:
            res = contact_pairs(self._store, a, b, self._backend)
            hit[:], normal[:], depth[:] = res
            return
        if len(rows):
            res = contact_pairs(self._store, a.take(rows), b.take(rows), self._backend)
            hit[rows], normal[rows], depth[rows] = res

    def _candidates_full(self, moved: NDArray[np.bool_], n_moved: int) -> _Candidates:
        """Candidates from the broadphase's full pair list; cached answers for unmoved pairs.

        ``moved``: by slot, whether the body moved since the last step.
        """
        keys, a, b = self._keyed(self._bp.pairs().reshape(-1, 2), presorted=True)
        n = len(keys)
        hit = np.empty(n, dtype=bool)
        normal = np.empty((n, self.dim))
        depth = np.empty(n)
        old = self._cand
        fresh = None
        if len(old.keys) and n_moved < len(self._registry):
            # reuse last step's answer for pairs in which neither body moved
            stale = moved.take(a) | moved.take(b)
            rows = np.flatnonzero(~stale)
            pos = np.minimum(np.searchsorted(old.keys, keys[rows]), len(old.keys) - 1)
            found = old.keys[pos] == keys[rows]
            rows, pos = rows[found], pos[found]
            hit[rows], normal[rows], depth[rows] = old.hit[pos], old.normal[pos], old.depth[pos]
            stale_rows = np.ones(n, dtype=bool)
            stale_rows[rows] = False
            fresh = np.flatnonzero(stale_rows)
        self._narrow(a, b, fresh, hit, normal, depth)
        cand = _Candidates(keys, a, b, hit, normal, depth, self._registry.signature())
        return self._with_manifolds(cand, old, fresh)

    def _with_manifolds(self, cand: _Candidates, old: _Candidates, fresh: NDArray[np.int64] | None) -> _Candidates:
        """``cand`` with contact points: old ones for hit rows not tested again, new ones for ``fresh`` hit rows."""
        if not self.manifolds:
            return cand
        n = len(cand.keys)
        out = empty_manifold(n, self.dim)
        tested = np.ones(n, dtype=bool)
        if fresh is not None:
            tested[:] = False
            tested[fresh] = True
            kept = np.flatnonzero(~tested & cand.hit)
            if len(kept) and old.manifold is not None:
                pos = np.searchsorted(old.keys, cand.keys.take(kept))
                om = old.manifold
                out.points[kept], out.separations[kept] = om.points.take(pos, axis=0), om.separations.take(pos, axis=0)
                out.ids[kept], out.count[kept] = om.ids.take(pos, axis=0), om.count.take(pos)
        rows = np.flatnonzero(tested & cand.hit)
        if len(rows):
            m = manifold_pairs(self._store, cand.a.take(rows), cand.b.take(rows), cand.normal.take(rows, axis=0),
                               cand.depth.take(rows), self._backend)
            out.points[rows], out.separations[rows], out.ids[rows], out.count[rows] = m
        return cand._replace(manifold=out)

    def _candidates_patched(self, moved: NDArray[np.bool_], changed: NDArray[np.int64]
                            ) -> tuple[_Candidates, NDArray[np.int64]]:
        """Last step's candidates with the pairs of the ``changed`` fat boxes queried again.

        ``moved``: by slot, whether the body moved since the last step.
        Returns the candidates and the rows that went through the narrowphase
        (those with a moved body). Rows are merged by ``take`` with one index
        array per step: fancy and boolean indexing of (P, D) arrays cost
        several times more.
        """
        old = self._cand
        mark = np.zeros(self._store.capacity, dtype=bool)
        mark[changed] = True
        self._store.spread_to_parts(mark)
        kept = np.flatnonzero(~(mark[old.a] | mark[old.b]))
        qk, qa, qb = self._keyed(self._bp.pairs_touching(changed).reshape(-1, 2), presorted=False)
        k0 = old.keys.take(kept)
        # merged rows: kept row i lands after the new rows that sort before it
        # (np.insert's placement), new row j at searchsorted(k0, qk[j]) + j
        at = np.searchsorted(k0, qk)
        n_kept, n_new = len(kept), len(qk)
        new_rows = at + np.arange(n_new)
        src = np.zeros(n_kept + n_new, dtype=np.int64)
        src[np.arange(n_kept) + np.searchsorted(at, np.arange(n_kept), side="right")] = kept
        if len(old.keys):
            keys, a, b = old.keys.take(src), old.a.take(src), old.b.take(src)
            hit, depth, normal = old.hit.take(src), old.depth.take(src), old.normal.take(src, axis=0)
        else:  # nothing to take from; every row is new
            keys, a, b = np.empty_like(src), np.empty_like(src), np.empty_like(src)
            hit, depth, normal = np.zeros(n_new, dtype=bool), np.zeros(n_new), np.zeros((n_new, self.dim))
        keys[new_rows], a[new_rows], b[new_rows] = qk, qa, qb
        # every new row has a changed body, and changed bodies moved
        fresh = np.flatnonzero(moved.take(a) | moved.take(b))
        self._narrow(a, b, fresh, hit, normal, depth)
        cand = _Candidates(keys, a, b, hit, normal, depth, self._registry.signature())
        return self._with_manifolds(cand, old, fresh), fresh

    def _patchable(self, changed: NDArray[np.int64]) -> bool:
        if self._cand.signature != self._registry.signature():
            return False
        return self._bp.prefers_incremental(len(changed))

    # -- the step ------------------------------------------------------------------------

    def step(self, moved_slots: NDArray[np.int64], changed: NDArray[np.int64]) -> Contacts:
        """Contacts now, given the slots posed since the last step and those whose fat box changed."""
        st = self._store
        moved = np.zeros(st.capacity, dtype=bool)
        moved[moved_slots] = True
        st.spread_to_parts(moved)
        old = self._cand
        fresh: NDArray[np.int64] | None = None
        if self._patchable(changed):
            cand, fresh = self._candidates_patched(moved, changed)
        else:
            cand = self._candidates_full(moved, len(moved_slots))
        self._cand = cand

        rows = np.flatnonzero(cand.hit)
        keys, a, b = cand.keys.take(rows), cand.a.take(rows), cand.b.take(rows)
        ids = st.ids
        ids_a, ids_b = ids[a], ids[b]
        part_a, part_b = st.part.take(a), st.part.take(b)
        prev_keys = self._prev_keys
        if fresh is None:
            began_rows = ~_member_of_sorted(keys, prev_keys)
            began_a, began_b = ids_a[began_rows], ids_b[began_rows]
            began_pa, began_pb = part_a[began_rows], part_b[began_rows]
            ended = np.flatnonzero(~_member_of_sorted(prev_keys, keys))
        else:
            # Patched: nothing was added or removed, so last step's contacts
            # are ``old``'s hit rows, and only rows with a moved body were
            # tested again. Only they can have begun, and only last step's
            # contacts with a moved body can have ended: both found without
            # a search over every contact.
            f = fresh[cand.hit.take(fresh)]
            f = f[~_member_of_sorted(cand.keys.take(f), prev_keys)]
            began_a, began_b = ids[cand.a.take(f)], ids[cand.b.take(f)]
            began_pa, began_pb = st.part.take(cand.a.take(f)), st.part.take(cand.b.take(f))
            began_rows = np.zeros(len(rows), dtype=bool)
            began_rows[np.searchsorted(rows, f)] = True
            was = np.flatnonzero(old.hit)
            was = was[moved.take(old.a.take(was)) | moved.take(old.b.take(was))]
            gone_keys = old.keys.take(was)
            gone_keys = gone_keys[~_member_of_sorted(gone_keys, keys)]
            ended = np.searchsorted(prev_keys, gone_keys)
        m = cand.manifold
        if m is not None:
            m = ManifoldArrays(m.points.take(rows, axis=0), m.separations.take(rows, axis=0), m.ids.take(rows, axis=0),
                               m.count.take(rows))
        contacts = Contacts(ids_a, ids_b, cand.normal.take(rows, axis=0), cand.depth.take(rows),
                            PairList(began_a, began_b, began_pa, began_pb),
                            PairList(self._prev_a[ended], self._prev_b[ended], self._prev_part_a[ended],
                                     self._prev_part_b[ended]), began_rows, m, part_a, part_b)
        self._prev_keys, self._prev_a, self._prev_b = keys, ids_a, ids_b
        self._prev_part_a, self._prev_part_b = part_a, part_b
        self.last = contacts
        return contacts
