"""What :meth:`World.step` returns: contacts as arrays, events as pair lists.

Everything here stays numpy arrays until the user iterates; :class:`Contact`
objects are created lazily, one per item asked for, never on the hot path.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from typing import Any, overload

import numpy as np
from numpy.typing import NDArray

from .geometry.manifold_support import ManifoldArrays

__all__ = ["BodyId", "Contact", "PairList", "Contacts"]

BodyId = Hashable


@dataclass(frozen=True)
class Contact:
    """One contact: bodies ``a`` and ``b`` touch.

    Attributes
    ----------
    a, b : str or int
        Body ids; ``a`` is the body added to the world first.
    normal : ndarray, shape (D,)
        Unit vector from ``a`` towards ``b``: moving ``b`` by ``normal * depth``
        ends the penetration.
    depth : float
        Penetration depth, ``>= 0`` (0 when only touching).
    points : ndarray, shape (P, D), or None
        Where the bodies touch (1 or 2 points in 2D, 1 to 4 in 3D), when the
        world computes manifolds (``World(manifolds=True)``), else None.
    separations : ndarray, shape (P,), or None
        Each point's signed separation along ``normal`` (<= 0 when penetrating).
    point_ids : ndarray of int64, shape (P,), or None
        Feature ids of the points, the same while the same features touch.
    part_a, part_b : int
        Which part of a compound body ``a`` (``b``) touches: its index in
        the compound's ``parts`` (for a concave polygon, the convex piece's
        index in its ``parts``); -1 for a body of one simple shape.

    Examples
    --------
    Indexing the result of a step gives a Contact. Unit circles whose centres
    are 1.5 apart along x overlap by 0.5:

    >>> from collideworld import World, Circle
    >>> w = World(dim=2)
    >>> w.add(Circle(1.0), position=(0, 0), id="a"), w.add(Circle(1.0), position=(1.5, 0), id="b")
    ('a', 'b')
    >>> c = w.step()[0]
    >>> c.a, c.b, c.normal.tolist(), c.depth
    ('a', 'b', [1.0, 0.0], 0.5)
    """

    a: Any
    b: Any
    normal: NDArray[np.float64]
    depth: float
    points: NDArray[np.float64] | None = None
    separations: NDArray[np.float64] | None = None
    point_ids: NDArray[np.int64] | None = None
    part_a: int = -1
    part_b: int = -1


def _no_parts(n: int) -> NDArray[np.int64]:
    return np.full(n, -1, dtype=np.int64)


class PairList:
    """A list of body-id pairs ``(a, b)``, backed by two object arrays.

    Iterating yields ``(a, b)`` tuples; ``in`` accepts a pair in either order.
    A compound body's events are per pair of parts, so the same ``(a, b)``
    may appear once per part pair; ``part_a`` / ``part_b`` tell them apart.

    Parameters
    ----------
    a, b : ndarray of object, shape (N,)
        Body ids: pair i is ``(a[i], b[i])``.
    part_a, part_b : ndarray of int64, shape (N,), optional
        Part indices of compound bodies, -1 for simple ones (the default).

    Examples
    --------
    >>> import numpy as np
    >>> p = PairList(np.array(["a", "c"], dtype=object), np.array(["b", "d"], dtype=object))
    >>> len(p), list(p)
    (2, [('a', 'b'), ('c', 'd')])
    >>> ("b", "a") in p, ("a", "d") in p
    (True, False)
    """

    __slots__ = ("a", "b", "part_a", "part_b")

    def __init__(self, a: NDArray[Any], b: NDArray[Any], part_a: NDArray[np.int64] | None = None,
                 part_b: NDArray[np.int64] | None = None) -> None:
        self.a = a
        self.b = b
        self.part_a = _no_parts(len(a)) if part_a is None else part_a
        self.part_b = _no_parts(len(b)) if part_b is None else part_b

    def rows(self) -> list[tuple[Any, Any, int, int]]:
        """The events as ``(a, b, part_a, part_b)`` tuples (parts -1 for simple bodies).

        Examples
        --------
        >>> import numpy as np
        >>> p = PairList(np.array(["car"], dtype=object), np.array(["ground"], dtype=object),
        ...              np.array([2]), np.array([-1]))
        >>> p.rows()
        [('car', 'ground', 2, -1)]
        """
        return list(zip(self.a.tolist(), self.b.tolist(), self.part_a.tolist(), self.part_b.tolist(), strict=True))

    def __len__(self) -> int:
        return len(self.a)

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        return zip(self.a.tolist(), self.b.tolist(), strict=True)

    def __contains__(self, pair: object) -> bool:
        if not isinstance(pair, tuple) or len(pair) != 2:
            return False
        return pair in self.to_set() or (pair[1], pair[0]) in self.to_set()

    def to_set(self) -> set[tuple[Any, Any]]:
        """The pairs as a set of ``(a, b)`` tuples."""
        return set(self)

    def __repr__(self) -> str:
        shown = list(self)[:6]
        more = f", ... ({len(self)} pairs)" if len(self) > 6 else ""
        return f"PairList({shown}{more})"


class Contacts:
    """Every pair in contact after a step, sorted deterministically.

    Attributes
    ----------
    a, b : ndarray of object, shape (N,)
        Body ids of each pair; ``a`` is the body added first.
    normal : ndarray, shape (N, D)
        Unit normals from ``a`` towards ``b``.
    depth : ndarray, shape (N,)
        Penetration depths, ``>= 0``.
    began : PairList
        Pairs in contact now that were not after the previous step.
    ended : PairList
        Pairs in contact after the previous step that are not now (including
        pairs of bodies removed since).
    points : ndarray, shape (N, K, D), or None
        Contact points (K = 2 in 2D, 4 in 3D; NaN in unused slots) when the
        world computes manifolds (``World(manifolds=True)``), else None.
    point_count : ndarray of int64, shape (N,), or None
        Points in use per contact (the first ``point_count`` slots).
    separations : ndarray, shape (N, K), or None
        Each point's signed separation along the normal (<= 0 when
        penetrating), NaN in unused slots.
    point_ids : ndarray of int64, shape (N, K), or None
        Feature ids of the points (-1 in unused slots): the same on the next
        step while the same features touch, for warm starting a solver.
    part_a, part_b : ndarray of int64, shape (N,)
        For a compound body, which of its parts touches (index into its
        ``parts``; for a concave polygon, which convex piece of its
        ``parts``); -1 for a simple body. A compound's pair with another body
        gives one row per touching pair of parts: a row is identified by
        ``(a, b, part_a, part_b)``, and so are the rows of ``began`` and
        ``ended``.

    Indexing with an int gives one :class:`Contact`; with a slice, a boolean
    mask of length N or an array of row numbers, a new ``Contacts`` of those
    rows, whose ``began`` holds the began pairs among them and whose
    ``ended`` is empty (an ended pair is no row). :meth:`of` selects the
    contacts of one body and keeps its ended pairs too.

    Examples
    --------
    >>> from collideworld import World, Circle
    >>> w = World(dim=2)
    >>> w.add(Circle(1.0), position=(0, 0), id="a")
    'a'
    >>> w.add(Circle(1.0), position=(1.5, 0), id="b")
    'b'
    >>> c = w.step()
    >>> len(c), [(x.a, x.b, round(x.depth, 6)) for x in c]
    (1, [('a', 'b', 0.5)])
    >>> list(c.began), list(c.ended)
    ([('a', 'b')], [])
    >>> c[c.depth > 0.4].pairs(), c[1:].pairs()
    ({('a', 'b')}, set())
    """

    __slots__ = ("a", "b", "normal", "depth", "began", "ended", "_began_rows", "points", "point_count",
                 "separations", "point_ids", "part_a", "part_b", "_int_rows")

    def __init__(self, a: NDArray[Any], b: NDArray[Any], normal: NDArray[np.float64],
                 depth: NDArray[np.float64], began: PairList, ended: PairList,
                 began_rows: NDArray[np.bool_] | None = None, manifold: ManifoldArrays | None = None,
                 part_a: NDArray[np.int64] | None = None, part_b: NDArray[np.int64] | None = None) -> None:
        self.part_a = _no_parts(len(a)) if part_a is None else part_a
        self.part_b = _no_parts(len(b)) if part_b is None else part_b
        self.points = None if manifold is None else manifold.points
        self.point_count = None if manifold is None else manifold.count
        self.separations = None if manifold is None else manifold.separations
        self.point_ids = None if manifold is None else manifold.ids
        self.a = a
        self.b = b
        self.normal = normal
        self.depth = depth
        self.began = began
        self.ended = ended
        # which rows began this step (None: worked out from ``began`` when needed)
        self._began_rows = began_rows
        self._int_rows: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]] | None = None

    def set_int_rows(self, int_ids: NDArray[np.int64], slot_a: NDArray[np.int64], slot_b: NDArray[np.int64]) -> None:
        """Attach the rows' slots and the slot -> int id table they were made with (by the step, when
        every id is a small int; the table is never changed in place): see :meth:`int_pairs`."""
        self._int_rows = (int_ids, slot_a, slot_b)

    def int_pairs(self) -> NDArray[np.int64] | None:
        """``a`` and ``b`` as an (n, 2) int64 array when the step made them as one (every body's id a
        small non-negative int, and no compound in the world), else None: the same ids without
        converting the object arrays.

        Examples
        --------
        >>> from collideworld import World, Circle
        >>> w = World(dim=2)
        >>> w.add_many(Circle(1.0), [[0, 0], [1.5, 0], [3, 0]])
        [0, 1, 2]
        >>> w.step().int_pairs().tolist()
        [[0, 1], [1, 2]]
        """
        rows = getattr(self, "_int_rows", None)  # a pickle made before it existed has none
        if rows is None:
            return None
        int_ids, a, b = rows
        # one take per side when asked (a step does not pay for it)
        pairs = np.empty((len(a), 2), dtype=np.int64)
        try:
            pairs[:, 0] = int_ids.take(a)
            pairs[:, 1] = int_ids.take(b)
        except IndexError:  # a slot past the table (not made so by a step; kept safe all the same)
            return None
        return pairs

    def __len__(self) -> int:
        return len(self.a)

    @overload
    def __getitem__(self, i: int | np.integer[Any]) -> Contact: ...

    @overload
    def __getitem__(self, i: slice | NDArray[Any] | list[Any]) -> Contacts: ...

    def __getitem__(self, i: Any) -> Contact | Contacts:
        if isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_)):
            pa, pb = int(self.part_a[i]), int(self.part_b[i])
            if self.points is None or self.point_count is None or self.separations is None or self.point_ids is None:
                return Contact(self.a[i], self.b[i], self.normal[i].copy(), float(self.depth[i]), part_a=pa,
                               part_b=pb)
            used = int(self.point_count[i])
            return Contact(self.a[i], self.b[i], self.normal[i].copy(), float(self.depth[i]),
                           self.points[i, :used].copy(), self.separations[i, :used].copy(),
                           self.point_ids[i, :used].copy(), pa, pb)
        rows = np.arange(len(self.a))[i]
        if rows.ndim != 1:
            raise IndexError(f"Contacts takes an int, a slice, a boolean mask of length {len(self)} "
                             f"or a 1-D array of rows, got {i!r}")
        return self._select(rows, PairList(np.empty(0, dtype=object), np.empty(0, dtype=object)))

    def _rows_began(self) -> NDArray[np.bool_]:
        if self._began_rows is None:
            began = set(self.began.rows())
            self._began_rows = np.array([p in began for p in zip(self.a.tolist(), self.b.tolist(),
                                                                 self.part_a.tolist(), self.part_b.tolist(),
                                                                 strict=True)], dtype=bool)
        return self._began_rows

    def _select(self, rows: NDArray[np.intp], ended: PairList) -> Contacts:
        new = self._rows_began().take(rows)
        a, b = self.a.take(rows), self.b.take(rows)
        m = self.manifold()
        if m is not None:
            m = ManifoldArrays(m.points.take(rows, axis=0), m.separations.take(rows, axis=0),
                               m.ids.take(rows, axis=0), m.count.take(rows))
        pa, pb = self.part_a.take(rows), self.part_b.take(rows)
        return Contacts(a, b, self.normal.take(rows, axis=0), self.depth.take(rows),
                        PairList(a[new], b[new], pa[new], pb[new]), ended, new, m, pa, pb)

    def manifold(self) -> ManifoldArrays | None:
        """The contact points as one :class:`~collideworld.geometry.manifold_support.ManifoldArrays`, or None.

        Examples
        --------
        >>> from collideworld import World, Box
        >>> w = World(dim=2, manifolds=True)
        >>> w.add(Box((2.0, 1.0)), id="floor"), w.add(Box((1.0, 1.0)), position=(0.5, 2.0), id="crate")
        ('floor', 'crate')
        >>> m = w.step().manifold()
        >>> m.count.tolist(), sorted(m.points[0].tolist())
        ([2], [[-0.5, 1.0], [1.5, 1.0]])
        """
        if self.points is None or self.point_count is None or self.separations is None or self.point_ids is None:
            return None
        return ManifoldArrays(self.points, self.separations, self.point_ids, self.point_count)

    def of(self, body_id: Any) -> Contacts:
        """The contacts of one body (as ``a`` or ``b``), with its began and ended pairs.

        Examples
        --------
        >>> from collideworld import World, Circle
        >>> w = World(dim=2)
        >>> w.add_many(Circle(1.0), [[0, 0], [1.5, 0], [3, 0]])
        [0, 1, 2]
        >>> sorted(w.step().of(2).pairs())
        [(1, 2)]
        """
        rows = np.flatnonzero((self.a == body_id) | (self.b == body_id))
        gone = (self.ended.a == body_id) | (self.ended.b == body_id)
        return self._select(rows, PairList(self.ended.a[gone], self.ended.b[gone], self.ended.part_a[gone],
                                           self.ended.part_b[gone]))

    def __iter__(self) -> Iterator[Contact]:
        for i in range(len(self.a)):
            yield self[i]

    def pairs(self) -> set[tuple[Any, Any]]:
        """The contact pairs as a set of ``(a, b)`` tuples."""
        return set(zip(self.a.tolist(), self.b.tolist(), strict=True))

    def __repr__(self) -> str:
        return f"Contacts({len(self)} contacts, {len(self.began)} began, {len(self.ended)} ended)"
