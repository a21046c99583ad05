"""Compiled twins of the pair cache's per-step bookkeeping (numba).

The pair cache (:mod:`collideworld.pair_cache`) compares sorted key arrays
twice per step: this step's candidates against last step's, to reuse the
answers of pairs whose bodies did not move, and this step's contacts against
last step's, for the began/ended events. numpy does each with a binary search
per key (``searchsorted``) and a dozen temporary arrays; both arrays are
sorted, so one merge-like walk over the two (two pointers, O(n + m), reading
memory in order) answers the same question. At 10,000 bodies that is a few
tens of microseconds against several hundred.

Each function has a numpy twin of the same name and signature in
:mod:`collideworld.pair_cache`; a differential test runs both on random and
edge-case inputs. Keys are the cache's int64 pair keys, sorted ascending and
unique; nothing here depends on how a key is built, so a key that packs more
(a part number) works unchanged as long as it stays one sorted int64.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..bodies import Kind

__all__ = ["reuse_answers", "contact_events", "merge_patched", "expand_keys", "separated_rows"]

_BALL, _BOX, _CAPSULE, _HULL = int(Kind.BALL), int(Kind.BOX), int(Kind.CAPSULE), int(Kind.HULL)
#: The numpy twin's ``APART_MARGIN`` (a test checks they are equal; not imported: the numpy module
#: imports this one).
_APART_MARGIN = 1e-9


def _plain(x: NDArray[Any]) -> NDArray[Any]:
    """``x`` as a C-contiguous writeable array (a copy only if it is not one).

    numba compiles one specialisation per layout and writeable flag: column
    views of the broadphase's (read-only) pair array would otherwise compile
    new ones in the middle of a step, after ``warm_up``.
    """
    return x if x.flags.c_contiguous and x.flags.writeable else np.array(x)


@njit(cache=True)
def _reuse(keys: NDArray[np.int64], a: NDArray[np.int64], b: NDArray[np.int64], moved: NDArray[np.bool_],
           old_keys: NDArray[np.int64], old_hit: NDArray[np.bool_], old_normal: NDArray[np.float64],
           old_depth: NDArray[np.float64], hit: NDArray[np.bool_], normal: NDArray[np.float64],
           depth: NDArray[np.float64], fresh: NDArray[np.int64]) -> int:
    """The walk of :func:`reuse_answers`; returns how many rows of ``fresh`` it wrote."""
    dim = normal.shape[1]
    n_old = old_keys.shape[0]
    j = 0
    n_fresh = 0
    for r in range(keys.shape[0]):
        if moved[a[r]] or moved[b[r]]:
            fresh[n_fresh] = r
            n_fresh += 1
            continue
        k = keys[r]
        while j < n_old and old_keys[j] < k:
            j += 1
        if j < n_old and old_keys[j] == k:
            hit[r] = old_hit[j]
            for d in range(dim):
                normal[r, d] = old_normal[j, d]
            depth[r] = old_depth[j]
        else:
            fresh[n_fresh] = r
            n_fresh += 1
    return n_fresh


def reuse_answers(keys: NDArray[np.int64], a: NDArray[np.int64], b: NDArray[np.int64], moved: NDArray[np.bool_],
                  old_keys: NDArray[np.int64], old_hit: NDArray[np.bool_], old_normal: NDArray[np.float64],
                  old_depth: NDArray[np.float64], hit: NDArray[np.bool_], normal: NDArray[np.float64],
                  depth: NDArray[np.float64]) -> NDArray[np.int64]:
    """Copy last step's answers into the rows whose pair is old and unmoved; return the other rows.

    Parameters
    ----------
    keys : ndarray of int64, shape (P,)
        This step's candidate keys, sorted ascending, unique.
    a, b : ndarray of int64, shape (P,)
        Their slots.
    moved : ndarray of bool, shape (capacity,)
        By slot: the body moved since the last step.
    old_keys : ndarray of int64, shape (Q,)
        Last step's candidate keys, sorted ascending, unique.
    old_hit, old_normal, old_depth : ndarray, shapes (Q,), (Q, D), (Q,)
        Last step's answers, row for row with ``old_keys``.
    hit, normal, depth : ndarray, shapes (P,), (P, D), (P,)
        Written in the reused rows only.

    Returns
    -------
    ndarray of int64, shape (F,)
        The rows, ascending, that need the narrowphase: a body moved, or the
        pair was not a candidate last step.

    Examples
    --------
    >>> import numpy as np
    >>> hit, normal, depth = np.zeros(2, dtype=bool), np.zeros((2, 2)), np.zeros(2)
    >>> fresh = reuse_answers(np.array([1, 5]), np.array([0, 0]), np.array([1, 2]), np.array([False, False, True]),
    ...                       np.array([1, 3]), np.array([True, False]), np.array([[0.0, 1.0], [1.0, 0.0]]),
    ...                       np.array([0.5, -1.0]), hit, normal, depth)
    >>> fresh.tolist(), hit.tolist(), normal[0].tolist(), depth[0].item()
    ([1], [True, False], [0.0, 1.0], 0.5)
    """
    fresh = np.empty(len(keys), dtype=np.int64)
    n = _reuse(_plain(keys), _plain(a), _plain(b), _plain(moved), _plain(old_keys), _plain(old_hit), _plain(old_normal),
               _plain(old_depth), hit, normal, depth, fresh)
    return fresh[:n]


@njit(cache=True)
def _events(keys: NDArray[np.int64], hit: NDArray[np.bool_], prev_keys: NDArray[np.int64],
            rows: NDArray[np.int64], began: NDArray[np.bool_], ended: NDArray[np.int64]) -> tuple[int, int]:
    """The walk of :func:`contact_events`; returns (rows written, ended written)."""
    n_prev = prev_keys.shape[0]
    j = 0
    n_rows = 0
    n_ended = 0
    for r in range(keys.shape[0]):
        if not hit[r]:
            continue
        k = keys[r]
        # last step's contacts that sort before this one are not contacts now
        while j < n_prev and prev_keys[j] < k:
            ended[n_ended] = j
            n_ended += 1
            j += 1
        rows[n_rows] = r
        if j < n_prev and prev_keys[j] == k:
            began[n_rows] = False
            j += 1
        else:
            began[n_rows] = True
        n_rows += 1
    while j < n_prev:
        ended[n_ended] = j
        n_ended += 1
        j += 1
    return n_rows, n_ended


def contact_events(keys: NDArray[np.int64], hit: NDArray[np.bool_], prev_keys: NDArray[np.int64]
                   ) -> tuple[NDArray[np.int64], NDArray[np.bool_], NDArray[np.int64]]:
    """This step's contact rows, which of them began, and which of last step's contacts ended.

    Parameters
    ----------
    keys : ndarray of int64, shape (P,)
        This step's candidate keys, sorted ascending, unique.
    hit : ndarray of bool, shape (P,)
        Whether each candidate is in contact.
    prev_keys : ndarray of int64, shape (Q,)
        Last step's contact keys, sorted ascending, unique.

    Returns
    -------
    rows : ndarray of int64, shape (C,)
        The candidate rows in contact, ascending.
    began : ndarray of bool, shape (C,)
        Whether the contact of each such row is new (its key is not in ``prev_keys``).
    ended : ndarray of int64, shape (E,)
        Indices into ``prev_keys``, ascending, of the keys that are not contacts now.

    Examples
    --------
    >>> import numpy as np
    >>> rows, began, ended = contact_events(np.array([1, 4, 6]), np.array([True, False, True]), np.array([2, 6]))
    >>> rows.tolist(), began.tolist(), ended.tolist()
    ([0, 2], [True, False], [0])
    """
    rows = np.empty(len(keys), dtype=np.int64)
    began = np.empty(len(keys), dtype=np.bool_)
    ended = np.empty(len(prev_keys), dtype=np.int64)
    n_rows, n_ended = _events(_plain(keys), _plain(hit), _plain(prev_keys), rows, began, ended)
    return rows[:n_rows], began[:n_rows], ended[:n_ended]


@njit(cache=True)
def _merge(old_keys: NDArray[np.int64], old_a: NDArray[np.int64], old_b: NDArray[np.int64],
           old_hit: NDArray[np.bool_], old_normal: NDArray[np.float64], old_depth: NDArray[np.float64],
           mark: NDArray[np.bool_], moved: NDArray[np.bool_], new_keys: NDArray[np.int64],
           new_a: NDArray[np.int64], new_b: NDArray[np.int64], keys: NDArray[np.int64], a: NDArray[np.int64],
           b: NDArray[np.int64], hit: NDArray[np.bool_], normal: NDArray[np.float64], depth: NDArray[np.float64],
           fresh: NDArray[np.int64]) -> tuple[int, int]:
    """The walk of :func:`merge_patched`; returns (rows written, fresh rows written)."""
    dim = normal.shape[1]
    n_old = old_keys.shape[0]
    n_new = new_keys.shape[0]
    i = 0
    j = 0
    out = 0
    n_fresh = 0
    while True:
        while i < n_old and (mark[old_a[i]] or mark[old_b[i]]):
            i += 1  # a pair of a changed box: asked for again, among the new rows if still a candidate
        if i < n_old and (j >= n_new or old_keys[i] < new_keys[j]):
            keys[out] = old_keys[i]
            a[out] = old_a[i]
            b[out] = old_b[i]
            hit[out] = old_hit[i]
            for d in range(dim):
                normal[out, d] = old_normal[i, d]
            depth[out] = old_depth[i]
            if moved[a[out]] or moved[b[out]]:
                fresh[n_fresh] = out
                n_fresh += 1
            i += 1
        elif j < n_new:
            keys[out] = new_keys[j]
            a[out] = new_a[j]
            b[out] = new_b[j]
            hit[out] = False
            for d in range(dim):
                normal[out, d] = 0.0
            depth[out] = 0.0
            fresh[n_fresh] = out
            n_fresh += 1
            j += 1
        else:
            break
        out += 1
    return out, n_fresh


def merge_patched(old_keys: NDArray[np.int64], old_a: NDArray[np.int64], old_b: NDArray[np.int64],
                  old_hit: NDArray[np.bool_], old_normal: NDArray[np.float64], old_depth: NDArray[np.float64],
                  mark: NDArray[np.bool_], moved: NDArray[np.bool_], new_keys: NDArray[np.int64],
                  new_a: NDArray[np.int64], new_b: NDArray[np.int64]
                  ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.bool_],
                             NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """Last step's candidates without the pairs of changed boxes, merged with the pairs asked for again.

    Parameters
    ----------
    old_keys, old_a, old_b : ndarray of int64, shape (Q,)
        Last step's candidate keys (sorted ascending, unique) and slots.
    old_hit, old_normal, old_depth : ndarray, shapes (Q,), (Q, D), (Q,)
        Their answers.
    mark : ndarray of bool, shape (capacity,)
        By slot: the box changed; every old row holding one is dropped.
    moved : ndarray of bool, shape (capacity,)
        By slot: the body moved since the last step.
    new_keys, new_a, new_b : ndarray of int64, shape (N,)
        The pairs of the changed boxes now, keyed, sorted ascending; no key
        equals a kept old key (a new pair holds a changed box, a kept one does not).

    Returns
    -------
    keys, a, b, hit, normal, depth : ndarray, shapes (P,), (P,), (P,), (P,), (P, D), (P,)
        The merged candidates, sorted by key; new rows' answers are zero
        until the narrowphase fills them.
    fresh : ndarray of int64, shape (F,)
        The rows, ascending, that need the narrowphase: the new rows, and
        kept rows with a moved body.

    Examples
    --------
    >>> import numpy as np
    >>> changed = np.array([False, False, True])      # slot 2's box changed (and moved)
    >>> out = merge_patched(np.array([1, 3]), np.array([0, 1]), np.array([1, 2]), np.array([True, True]),
    ...                     np.zeros((2, 2)), np.ones(2), changed, changed, np.array([2]), np.array([0]), np.array([2]))
    >>> out[0].tolist(), out[3].tolist(), out[6].tolist()
    ([1, 2], [True, False], [1])
    """
    n = len(old_keys) + len(new_keys)
    keys = np.empty(n, dtype=np.int64)
    a = np.empty(n, dtype=np.int64)
    b = np.empty(n, dtype=np.int64)
    hit = np.empty(n, dtype=np.bool_)
    normal = np.empty((n, old_normal.shape[1]))
    depth = np.empty(n)
    fresh = np.empty(n, dtype=np.int64)
    m, f = _merge(_plain(old_keys), _plain(old_a), _plain(old_b), _plain(old_hit), _plain(old_normal),
                  _plain(old_depth), _plain(mark), _plain(moved), _plain(new_keys), _plain(new_a), _plain(new_b),
                  keys, a, b, hit, normal, depth, fresh)
    return keys[:m], a[:m], b[:m], hit[:m], normal[:m], depth[:m], fresh[:f]


@njit(cache=True)
def _expand(i: NDArray[np.int64], j: NDArray[np.int64], n_parts: NDArray[np.int64], parts_at: NDArray[np.int64],
            part_slots: NDArray[np.int64], serial: NDArray[np.int64]
            ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], bool]:
    """The walk of :func:`expand_keys`; the last value says whether the keys came out sorted."""
    m = i.shape[0]
    total = 0
    for r in range(m):
        total += max(n_parts[i[r]], 1) * max(n_parts[j[r]], 1)
    keys = np.empty(total, dtype=np.int64)
    a = np.empty(total, dtype=np.int64)
    b = np.empty(total, dtype=np.int64)
    # Rows come grouped by first slot (a broadphase's pairs, sorted by (i, j)). Within a group the
    # key order is (part of i, then j, then part of j) when serials follow slots and each compound's
    # part serials follow its own: writing each group in that order gives sorted keys with no sort.
    # Whether they came out sorted is checked below (any other layout is sorted by the caller).
    p = 0
    r0 = 0
    while r0 < m:
        s = i[r0]
        r1 = r0 + 1
        while r1 < m and i[r1] == s:
            r1 += 1
        na = n_parts[s]
        for ka in range(max(na, 1)):
            pa = part_slots[parts_at[s] + ka] if na > 0 else s
            sa = serial[pa]
            for r in range(r0, r1):
                t = j[r]
                nb = n_parts[t]
                for kb in range(max(nb, 1)):
                    pb = part_slots[parts_at[t] + kb] if nb > 0 else t
                    sb = serial[pb]
                    if sa > sb:
                        keys[p] = (sb << 32) | sa
                        a[p] = pb
                        b[p] = pa
                    else:
                        keys[p] = (sa << 32) | sb
                        a[p] = pa
                        b[p] = pb
                    p += 1
        r0 = r1
    for q in range(1, total):
        if keys[q] <= keys[q - 1]:
            return keys, a, b, False
    return keys, a, b, True


def expand_keys(i: NDArray[np.int64], j: NDArray[np.int64], n_parts: NDArray[np.int64],
                parts_at: NDArray[np.int64], part_slots: NDArray[np.int64], serial: NDArray[np.int64]
                ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Slot pairs with every compound replaced by its parts, keyed and sorted: ``(keys, a, b)``.

    Parameters
    ----------
    i, j : ndarray of int64, shape (P,)
        Slot pairs, ``i != j``.
    n_parts, parts_at : ndarray of int64, shape (capacity,)
        By slot: a compound's part count (0 for any other body) and its first row in ``part_slots``.
    part_slots : ndarray of int64
        The part slots of the compounds, each compound's in part order.
    serial : ndarray of int64, shape (capacity,)
        By slot: the add order (bodies and part slots).

    Returns
    -------
    keys, a, b : ndarray of int64, shape (K,)
        One row per pair of parts, keyed ``(serial_a << 32) | serial_b`` with
        ``a`` added first, sorted by key.

    Examples
    --------
    A circle (slot 0) against a compound (slot 1) of two part slots (2 and 3):

    >>> import numpy as np
    >>> keys, a, b = expand_keys(np.array([0]), np.array([1]), np.array([0, 2, 0, 0]), np.array([0, 0, 0, 0]),
    ...                          np.array([2, 3]), np.array([0, 1, 2, 3]))
    >>> (keys >> 32).tolist(), (keys & 0xFFFFFFFF).tolist(), a.tolist(), b.tolist()
    ([0, 0], [2, 3], [0, 0], [2, 3])
    """
    keys, a, b, ordered = _expand(_plain(i), _plain(j), _plain(n_parts), _plain(parts_at), _plain(part_slots),
                                  _plain(serial))
    if ordered:
        return keys, a, b
    # sorted by numpy, not in the compiled walk: numba's sort added ~3 s to warm_up's compile (issue 27);
    # keys are unique, so any sort gives the one order
    order = np.argsort(keys, kind="stable")
    return keys.take(order), a.take(order), b.take(order)


@njit(cache=True)
def _support(k: int, s: int, ux: float, uy: float, uz: float, position: NDArray[np.float64],
             rotation: NDArray[np.float64], radius: NDArray[np.float64], half: NDArray[np.float64],
             seg0: NDArray[np.float64], seg1: NDArray[np.float64], rounding: NDArray[np.float64],
             hull: NDArray[np.int64], hull_verts: NDArray[np.float64]) -> float:
    """max over body s (kind k) of x . u (the numpy twin's ``_support_along``, one row)."""
    r = rotation[s]
    # u in the body's frame: R^T u
    wx = r[0, 0] * ux + r[1, 0] * uy + r[2, 0] * uz
    wy = r[0, 1] * ux + r[1, 1] * uy + r[2, 1] * uz
    wz = r[0, 2] * ux + r[1, 2] * uy + r[2, 2] * uz
    out = position[s, 0] * ux + position[s, 1] * uy + position[s, 2] * uz
    extra = rounding[s]
    if k == _BALL:
        extra += radius[s]
    elif k == _BOX:
        extra += abs(wx) * half[s, 0] + abs(wy) * half[s, 1] + abs(wz) * half[s, 2]
    elif k == _CAPSULE:
        extra += radius[s] + max(seg0[s, 0] * wx + seg0[s, 1] * wy + seg0[s, 2] * wz,
                                 seg1[s, 0] * wx + seg1[s, 1] * wy + seg1[s, 2] * wz)
    else:
        v = hull_verts[hull[s]]
        top = -math.inf
        for j in range(v.shape[0]):
            top = max(top, v[j, 0] * wx + v[j, 1] * wy + v[j, 2] * wz)
        extra += top
    total: float = out + extra
    return total


@njit(cache=True)
def _separated(keys: NDArray[np.int64], a: NDArray[np.int64], b: NDArray[np.int64], rows: NDArray[np.int64],
               old_keys: NDArray[np.int64], old_hit: NDArray[np.bool_], old_normal: NDArray[np.float64],
               kind: NDArray[np.int64], position: NDArray[np.float64], rotation: NDArray[np.float64],
               radius: NDArray[np.float64], half: NDArray[np.float64], seg0: NDArray[np.float64],
               seg1: NDArray[np.float64], rounding: NDArray[np.float64], bound_radius: NDArray[np.float64],
               hull: NDArray[np.int64], hull_verts: NDArray[np.float64], margin: float, hit: NDArray[np.bool_],
               normal: NDArray[np.float64], depth: NDArray[np.float64], left: NDArray[np.int64]) -> int:
    """The walk of :func:`separated_rows`; returns how many rows of ``left`` it wrote."""
    n_old = old_keys.shape[0]
    j = 0
    n_left = 0
    for q in range(rows.shape[0]):
        r = rows[q]
        sa = a[r]
        sb = b[r]
        ka = kind[sa]
        kb = kind[sb]
        ok = ((ka == _HULL or kb == _HULL) and (ka == _BALL or ka == _BOX or ka == _CAPSULE or ka == _HULL)
              and (kb == _BALL or kb == _BOX or kb == _CAPSULE or kb == _HULL))
        if ok:
            k = keys[r]
            while j < n_old and old_keys[j] < k:
                j += 1
            ok = j < n_old and old_keys[j] == k and not old_hit[j]
        if ok:
            ux = old_normal[j, 0]
            uy = old_normal[j, 1]
            uz = old_normal[j, 2]
            gap = (-_support(kb, sb, -ux, -uy, -uz, position, rotation, radius, half, seg0, seg1, rounding, hull,
                             hull_verts)
                   - _support(ka, sa, ux, uy, uz, position, rotation, radius, half, seg0, seg1, rounding, hull,
                              hull_verts))
            size = (max(abs(position[sa, 0]), abs(position[sa, 1]), abs(position[sa, 2]))
                    + max(abs(position[sb, 0]), abs(position[sb, 1]), abs(position[sb, 2]))
                    + bound_radius[sa] + bound_radius[sb] + rounding[sa] + rounding[sb])
            if gap > margin * size:
                hit[r] = False
                normal[r, 0] = ux
                normal[r, 1] = uy
                normal[r, 2] = uz
                depth[r] = -gap
                continue
        left[n_left] = r
        n_left += 1
    return n_left


def separated_rows(keys: NDArray[np.int64], a: NDArray[np.int64], b: NDArray[np.int64], rows: NDArray[np.int64],
                   old_keys: NDArray[np.int64], old_hit: NDArray[np.bool_], old_normal: NDArray[np.float64],
                   kind: NDArray[np.integer[Any]], position: NDArray[np.float64], rotation: NDArray[np.float64],
                   radius: NDArray[np.float64], half: NDArray[np.float64], seg0: NDArray[np.float64],
                   seg1: NDArray[np.float64], rounding: NDArray[np.float64], bound_radius: NDArray[np.float64],
                   hull: NDArray[np.int64], hull_verts: NDArray[np.float64], hit: NDArray[np.bool_],
                   normal: NDArray[np.float64], depth: NDArray[np.float64]) -> NDArray[np.int64]:
    """Settle rows by last step's separating axis (3D pairs with a hull); return the rows still to test.

    The compiled twin of :func:`collideworld.pair_cache.separated_rows` (see
    there): one walk over ``rows`` beside ``old_keys`` (both ascending),
    each support computed in place, no temporaries.

    Examples
    --------
    >>> import itertools
    >>> import numpy as np
    >>> kind = np.array([Kind.HULL, Kind.BALL])
    >>> pos, rot = np.array([[0.0, 0, 0], [3.0, 0, 0]]), np.stack([np.eye(3)] * 2)
    >>> cube = np.array(list(itertools.product((-0.5, 0.5), repeat=3)))[None]
    >>> zero3, zero = np.zeros((2, 3)), np.zeros(2)
    >>> hit, normal, depth = np.ones(1, dtype=bool), np.zeros((1, 3)), np.zeros(1)
    >>> left = separated_rows(np.array([1]), np.array([0]), np.array([1]), np.array([0]), np.array([1]),
    ...                       np.array([False]), np.array([[1.0, 0, 0]]), kind, pos, rot, np.array([0.0, 1.0]),
    ...                       zero3, zero3, zero3, zero, np.array([0.9, 1.0]), np.array([0, 0]), cube,
    ...                       hit, normal, depth)
    >>> left.tolist(), hit.tolist(), normal[0].tolist(), depth.tolist()
    ([], [False], [1.0, 0.0, 0.0], [-1.5])
    """
    left = np.empty(len(rows), dtype=np.int64)
    if not len(old_keys) or not len(rows):
        return _plain(rows)
    n = _separated(_plain(keys), _plain(a), _plain(b), _plain(rows), _plain(old_keys), _plain(old_hit),
                   _plain(old_normal), _plain(kind), position, rotation, radius, half, seg0, seg1, rounding,
                   bound_radius, hull, hull_verts, _APART_MARGIN, hit, normal, depth, left)
    return left[:n]
