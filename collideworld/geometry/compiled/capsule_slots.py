"""3D pairs of a capsule with a ball, box or capsule, read by slot: the compiled narrowphase's path for them.

The grouped path (``narrowphase._contact_pairs_exact``) sorts the pairs by
kind pair, gathers each group's rows (``BodyStore.ball_rows``, ``box_rows``,
``capsule_rows``) with ``take`` and calls the compiled kernel of each group:
some thirty array calls a step, ~0.75 ms for the few hundred capsule pairs
of ``benchmarks/meshes.py``, nearly all of it numpy's fixed costs. This loop
does the same in one call: the lower kind first (ball < box < capsule), the
same rows gathered into one block per kind pair, the same row routine
(``rows`` of ``compiled/contact_ball_capsule``, ``contact_box_capsule_3d``,
``contact_capsule_capsule``) once per block, and the dispatcher's flip
(``normal * (-1 or 1) + 0.0``), so every pair gets the grouped path's bits.
The capsules' world ends are made here as ``BodyStore.capsule_rows`` makes
them (the same sums in the same order, see ``_ends``); other kind pairs come
back flagged.

NOTE: numba's on-disk cache of this loop is checked against this file only;
after editing the row routines, delete the caches
(``find collideworld -name '*.nbi' -delete -o -name '*.nbc' -delete``).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from . import contact_ball_capsule as _bc
from . import contact_box_capsule_3d as _xc
from . import contact_capsule_capsule as _cc
from .kernel_support import touch_rule

__all__ = ["capsule_slots"]

Floats = NDArray[np.float64]

# Kind codes of collideworld.bodies.Kind (this package may not import it; tests/test_step_slot_loops.py
# checks they agree).
BALL, BOX, CAPSULE = 1, 2, 4

_ball_capsule = _bc.rows
_box_capsule = _xc.rows
_capsule_capsule = _cc.rows


@njit(cache=True)
def _ends(s: int, position: Floats, rotation: Floats, seg0: Floats, seg1: Floats, e0: Floats, e1: Floats,
          j: int) -> None:
    """Row ``j`` of ``e0``, ``e1``: the world ends of capsule slot ``s``, t + R p.

    ``BodyStore.capsule_rows`` makes them with ``np.einsum("mij,mj->mi", R, p)``, whose sums numpy's
    loop takes as (x0 + x2) + x1 (numpy 2.4; measured, not documented): the same order here gives its
    bits (left to right differs in the last place in ~30% of rows). tests/test_step_slot_loops.py
    checks them against ``capsule_rows`` and the grouped path, so a numpy that sums otherwise fails
    there, not silently.
    """
    for d in range(3):
        e0[j, d] = position[s, d] + ((rotation[s, d, 0] * seg0[s, 0] + rotation[s, d, 2] * seg0[s, 2])
                                     + rotation[s, d, 1] * seg0[s, 1])
        e1[j, d] = position[s, d] + ((rotation[s, d, 0] * seg1[s, 0] + rotation[s, d, 2] * seg1[s, 2])
                                     + rotation[s, d, 1] * seg1[s, 1])


@njit(cache=True)
def _capsule_rows(rows: NDArray[np.int64], ia: NDArray[np.int64], ib: NDArray[np.int64], kind: NDArray[np.int8],
                  position: Floats, rotation: Floats, radius: Floats, half: Floats, seg0: Floats, seg1: Floats,
                  rule: tuple[float, float], hit: NDArray[np.bool_], normal: Floats, depth: Floats,
                  other: NDArray[np.bool_]) -> None:
    n = rows.shape[0]
    # which block each pair goes to (0 ball-capsule, 1 box-capsule, 2 capsule-capsule, -1 other)
    block = np.empty(n, dtype=np.int64)
    count = np.zeros(3, dtype=np.int64)
    for i in range(n):
        ka, kb = kind[ia[rows[i]]], kind[ib[rows[i]]]
        lo, hi = min(ka, kb), max(ka, kb)
        g = -1
        if hi == CAPSULE:
            g = 0 if lo == BALL else 1 if lo == BOX else 2 if lo == CAPSULE else -1
        block[i] = g
        other[i] = g < 0
        if g >= 0:
            count[g] += 1
    # each block's rows, in pair order (the grouped path's stable sort keeps that order too): the
    # lower kind's rows (x*), then the capsule's ends and radius (e0*, e1*, rb*)
    at = np.empty(n, dtype=np.int64)
    xc0, xr0 = np.empty((count[0], 3)), np.empty(count[0])
    xc1, xrot1, xh1 = np.empty((count[1], 3)), np.empty((count[1], 3, 3)), np.empty((count[1], 3))
    xa0, xa1, xr2 = np.empty((count[2], 3)), np.empty((count[2], 3)), np.empty(count[2])
    e00, e10, rb0 = np.empty((count[0], 3)), np.empty((count[0], 3)), np.empty(count[0])
    e01, e11, rb1 = np.empty((count[1], 3)), np.empty((count[1], 3)), np.empty(count[1])
    e02, e12, rb2 = np.empty((count[2], 3)), np.empty((count[2], 3)), np.empty(count[2])
    fill = np.zeros(3, dtype=np.int64)
    for i in range(n):
        g = block[i]
        if g < 0:
            continue
        j = fill[g]
        fill[g] += 1
        at[i] = j
        a, b = ia[rows[i]], ib[rows[i]]
        if kind[a] > kind[b]:
            a, b = b, a
        if g == 0:
            for k in range(3):
                xc0[j, k] = position[a, k]
            _ends(b, position, rotation, seg0, seg1, e00, e10, j)
            xr0[j] = radius[a]
            rb0[j] = radius[b]
        elif g == 1:
            for k in range(3):
                xc1[j, k] = position[a, k]
                xh1[j, k] = half[a, k]
                for m in range(3):
                    xrot1[j, k, m] = rotation[a, k, m]
            _ends(b, position, rotation, seg0, seg1, e01, e11, j)
            rb1[j] = radius[b]
        else:
            _ends(a, position, rotation, seg0, seg1, xa0, xa1, j)
            _ends(b, position, rotation, seg0, seg1, e02, e12, j)
            xr2[j] = radius[a]
            rb2[j] = radius[b]
    # each block's outputs in arrays of their own (C-contiguous, the batched entries' types: the row
    # routines compile once for both)
    h0, n0, d0 = np.empty(count[0], dtype=np.bool_), np.empty((count[0], 3)), np.empty(count[0])
    h1, n1, d1 = np.empty(count[1], dtype=np.bool_), np.empty((count[1], 3)), np.empty(count[1])
    h2, n2, d2 = np.empty(count[2], dtype=np.bool_), np.empty((count[2], 3)), np.empty(count[2])
    _ball_capsule(xc0, xr0, e00, e10, rb0, rule, h0, n0, d0)
    _box_capsule(xc1, xrot1, xh1, e01, e11, rb1, rule, h1, n1, d1)
    _capsule_capsule(xa0, xa1, xr2, e02, e12, rb2, rule, h2, n2, d2)
    for i in range(n):
        g = block[i]
        if g < 0:
            continue
        j = at[i]
        hh, nn, dd = (h0, n0, d0) if g == 0 else (h1, n1, d1) if g == 1 else (h2, n2, d2)
        r = rows[i]
        hit[r] = hh[j]
        depth[r] = dd[j]
        # as the grouped dispatcher: normal * (-1 or 1) + 0.0
        sign = -1.0 if kind[ia[r]] > kind[ib[r]] else 1.0
        for k in range(3):
            normal[r, k] = nn[j, k] * sign + 0.0


def capsule_slots(rows: NDArray[np.int64], ia: NDArray[np.int64], ib: NDArray[np.int64], kind: NDArray[np.int8],
                  position: Floats, rotation: Floats, radius: Floats, half: Floats, seg0: Floats, seg1: Floats,
                  hit: NDArray[np.bool_], normal: Floats, depth: Floats) -> NDArray[np.bool_]:
    """Contacts of 3D store slots ``ia[r]``, ``ib[r]`` (``r`` in ``rows``) where one is a capsule and the other a
    ball, box or capsule, written in place in rows ``rows`` of ``hit``, ``normal`` (from ``ia`` towards ``ib``)
    and ``depth``.

    Parameters
    ----------
    rows : ndarray of int64, shape (M,)
        The pairs to answer: rows of ``ia``, ``ib`` and of the outputs.
    ia, ib : ndarray of int64, shape (N,)
        Slots of the columns below.
    kind, position, rotation, radius, half, seg0, seg1 : ndarray
        The store's columns (``BodyStore.kind`` ... ``seg1``), 3D.
    hit, normal, depth : ndarray, shapes (N,), (N, 3), (N,)
        Written in rows ``rows`` not flagged ``other``.

    Returns
    -------
    other : ndarray of bool, shape (M,)
        Pairs of other kinds, left to the grouped path (their rows untouched).

    Examples
    --------
    A unit sphere (kind 1) at x = 1.5 and a capsule (kind 4) along z through the origin, radius 1: they
    overlap by 0.5, the normal from the capsule towards the sphere; a box pair (kind 2) is not taken:

    >>> import numpy as np
    >>> kind = np.array([1, 4, 2], dtype=np.int8)
    >>> pos, rot = np.array([[1.5, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 5.0]]), np.tile(np.eye(3), (3, 1, 1))
    >>> seg0, seg1 = np.array([[0.0, 0, 0], [0, 0, -1], [0, 0, 0]]), np.array([[0.0, 0, 0], [0, 0, 1], [0, 0, 0]])
    >>> hit, normal, depth = np.zeros(2, dtype=bool), np.zeros((2, 3)), np.zeros(2)
    >>> other = capsule_slots(np.array([0, 1]), np.array([1, 0]), np.array([0, 2]), kind, pos, rot, np.ones(3),
    ...                       np.ones((3, 3)), seg0, seg1, hit, normal, depth)
    >>> other.tolist(), bool(hit[0]), float(depth[0]), normal[0].tolist()
    ([False, True], True, 0.5, [1.0, 0.0, 0.0])
    """
    other = np.empty(len(rows), dtype=np.bool_)
    if len(rows):
        _capsule_rows(np.ascontiguousarray(rows, dtype=np.int64), np.ascontiguousarray(ia, dtype=np.int64),
                      np.ascontiguousarray(ib, dtype=np.int64), kind, position, rotation, radius, half, seg0, seg1,
                      touch_rule(), hit, normal, depth, other)
    return other
