"""Body ids: the checks an id must pass, and the map between ids and slots.

A body's id is what the user names it by (a ``str`` or an ``int``); its
*slot* is the row it occupies in the :class:`~collideworld.bodies.BodyStore`;
its *serial* is its insertion number, which only grows. Contacts are ordered
and keyed by serials, so answers never depend on which slot a body landed in.

The registry keeps ``id -> slot`` in a dict, plus a table for small
non-negative int ids so that a numpy batch of such ids maps to slots with
one gather (the hot path of ``move_many``). The slot -> id and slot -> serial
columns live in the store, grown with every other per-body column.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .bodies import BodyStore
from .errors import DuplicateIdError, InvalidArgumentError, UnknownIdError

__all__ = ["IdRegistry", "check_id", "lookup_key", "id_sequence", "MAX_ADDS"]

#: Bodies one world can take over its lifetime: contact keys pack two
#: insertion serials into one int64.
MAX_ADDS = 2**31 - 1


def check_id(value: Any, what: str = "id") -> int | str:
    """``value`` as an id (numpy ints name the int they hold), or a clear error.

    Examples
    --------
    >>> import numpy as np
    >>> check_id(np.int64(3)), check_id("crate")
    (3, 'crate')
    >>> check_id(True)
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidArgumentError: id must be a str or an int, got the bool True
    """
    if isinstance(value, (bool, np.bool_)):
        raise InvalidArgumentError(f"{what} must be a str or an int, got the bool {value!r}")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, str):
        return value
    raise InvalidArgumentError(f"{what} must be a str or an int, got {type(value).__name__} {value!r}")


def lookup_key(value: Any) -> int | str | None:
    """The id that ``value`` names, or None when it cannot name one.

    Bools and floats are never ids (``add`` refuses them), yet ``True == 1``
    and ``1.0 == 1`` hash alike, so a plain dict lookup would let them find the
    body with id 1. Numpy integers name the int they hold.

    Examples
    --------
    >>> lookup_key(1), lookup_key(True), lookup_key(1.0)
    (1, None, None)
    """
    if type(value) is int or type(value) is str:
        return value
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, str):
        return str(value)
    return None


def id_sequence(ids: Any, what: str) -> list[Any] | NDArray[Any]:
    """``ids`` as a list, or as a 1-D array when it is one; a clear error for anything else.

    Examples
    --------
    >>> id_sequence(("a", "b"), "ids")
    ['a', 'b']
    >>> id_sequence("ab", "ids")
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidArgumentError: ids must be a sequence of ids (str or int), got 'ab'
    """
    if isinstance(ids, np.ndarray):
        if ids.ndim != 1:
            raise InvalidArgumentError(f"{what} must be a 1-D sequence of ids, got an array of shape {ids.shape}")
        return ids
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
        raise InvalidArgumentError(f"{what} must be a sequence of ids (str or int), got {ids!r}")
    return list(ids)


class IdRegistry:
    """Ids <-> slots of one world, and the serial numbers of its bodies.

    Examples
    --------
    >>> import numpy as np
    >>> from collideworld.bodies import BodyStore
    >>> store = BodyStore(2)
    >>> reg = IdRegistry(store)
    >>> reg.register(["a", 7], store.allocate(2))
    >>> reg.slots_of(np.array([7])).tolist(), reg.slot("a"), len(reg)
    ([1], 0, 2)
    >>> reg.ids_in_add_order()
    ['a', 7]
    """

    def __init__(self, store: BodyStore) -> None:
        self._store = store
        self._slot_of: dict[Any, int] = {}
        self._int_slot = np.full(0, -1, dtype=np.int64)  # small int id -> slot, -1 if none
        self._slot_int: NDArray[np.int64] | None = None  # its inverse, built on demand (see slot_int_ids)
        self._next_auto_id = 0
        self.next_serial = 0

    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, body_id: object) -> bool:
        return lookup_key(body_id) in self._slot_of

    def ids_in_add_order(self) -> list[Any]:
        """Ids of the live bodies, in the order they were added."""
        serial = self._store.serial
        return sorted(self._slot_of, key=lambda i: serial[self._slot_of[i]])

    def signature(self) -> tuple[int, int]:
        """Changes whenever a body was added or removed (serials only grow)."""
        return (self.next_serial, len(self._slot_of))

    # -- lookups ------------------------------------------------------------------------

    def slot(self, body_id: Any) -> int:
        """The slot of one body; :class:`UnknownIdError` if there is none."""
        slot = self._slot_of.get(lookup_key(body_id), -1)
        if slot < 0:
            raise UnknownIdError(f"no body with id {body_id!r}")
        return slot

    def slots_of(self, ids: Any, what: str = "ids") -> NDArray[np.int64]:
        """Slots of a sequence of ids (all known, or :class:`UnknownIdError` naming the first unknown)."""
        ids = id_sequence(ids, what)
        if type(ids) is list and len(ids) and set(map(type, ids)) == {int}:
            # a list of plain ints (bools are not ints here: lookup_key): the table below, not a dict
            # lookup per id (0.11 -> 0.045 ms for 1,000 ids; benchmarks/results/meshes.md)
            try:
                ids = np.array(ids, dtype=np.int64)
            except OverflowError:
                pass
        if isinstance(ids, np.ndarray) and ids.dtype.kind in "iu":
            # integer ids: one table lookup for the whole batch instead of a
            # dict lookup per id (the hot path of move_many)
            table = self._int_slot
            if len(ids) == 0:
                return np.empty(0, dtype=np.int64)
            if ids.min() >= 0 and ids.max() < len(table):
                slots = table[ids]
                if slots.min() >= 0:
                    return slots
            ids = ids.tolist()
        get = self._slot_of.get
        arr = np.array([get(i if type(i) is int or type(i) is str else lookup_key(i), -1) for i in ids],
                       dtype=np.int64)
        if len(arr) and arr.min() < 0:
            bad = list(ids)[int(np.flatnonzero(arr < 0)[0])]
            raise UnknownIdError(f"{what}: no body with id {bad!r}")
        return arr

    # -- new ids ------------------------------------------------------------------------

    def new_ids(self, ids: Any, n: int, what: str = "ids") -> list[Any]:
        """Checked ids for ``n`` new bodies: ``ids`` (all unused, none twice), or the lowest unused ints."""
        if ids is None:
            out: list[Any] = []
            i = self._next_auto_id
            while len(out) < n:
                if i not in self._slot_of:
                    out.append(i)
                i += 1
            return out
        id_list = [check_id(v, f"{what}[{i}]") for i, v in enumerate(id_sequence(ids, what))]
        if len(id_list) != n:
            raise InvalidArgumentError(f"got {len(id_list)} ids for {n} positions")
        seen: set[Any] = set()
        for v in id_list:
            if v in self._slot_of or v in seen:
                raise DuplicateIdError(f"id {v!r} is used twice or already in the world")
            seen.add(v)
        return id_list

    def check_room(self, n: int) -> None:
        """Refuse ``n`` more bodies if the world would pass :data:`MAX_ADDS` over its lifetime."""
        if self.next_serial + n > MAX_ADDS:
            raise InvalidArgumentError(
                f"this world has taken {self.next_serial} bodies over its lifetime; adding {n} more would pass "
                f"the limit of {MAX_ADDS} (make a new World)")

    # -- changes (inputs already checked) --------------------------------------------------

    def register(self, ids: list[Any], slots: NDArray[np.int64], auto: bool = False) -> None:
        """Give ``slots`` the ids ``ids`` and the next serials. ``auto``: the ids were made by :meth:`new_ids`."""
        n = len(ids)
        st = self._store
        for s, i in zip(slots.tolist(), ids, strict=True):
            self._slot_of[i] = s
        self._index_int_ids(ids, slots)
        self._slot_int = None
        ids_arr = np.empty(n, dtype=object)
        ids_arr[:] = ids
        st.ids[slots] = ids_arr
        st.serial[slots] = np.arange(self.next_serial, self.next_serial + n)
        self.next_serial += n
        if auto and n:
            self._next_auto_id = max(ids) + 1

    def unregister(self, slots: NDArray[np.int64]) -> None:
        """Forget the ids of ``slots`` (the store frees the slots itself)."""
        self._slot_int = None
        for i in self._store.ids[slots].tolist():  # the ids as stored (np.int64(3) names 3)
            del self._slot_of[i]
            if type(i) is int and 0 <= i < len(self._int_slot):
                self._int_slot[i] = -1

    def renumber(self, new_slot: NDArray[np.int64]) -> None:
        """Follow the store's :meth:`~collideworld.bodies.BodyStore.compact` (``new_slot``: old slot -> new)."""
        self._slot_int = None
        for i, s in self._slot_of.items():
            self._slot_of[i] = int(new_slot[s])
        live = self._int_slot >= 0
        self._int_slot[live] = new_slot[self._int_slot[live]]
        self._int_slot = self._int_slot[: 4 * self._store.capacity + 1024].copy()

    def slot_int_ids(self) -> NDArray[np.int64] | None:
        """slot -> the int id of its body (-1 for a slot no body is registered at, e.g. a compound's
        part), when every body's id is a small non-negative int (all in the id -> slot table); else None.

        Rebuilt after ids change (one scatter over the table), so a loop that only moves bodies reads the
        same array each step: what turns a step's slot pairs into int id pairs with one ``take`` instead
        of a conversion of object ids (the Arrow recorder's expected pairs).

        Examples
        --------
        >>> from collideworld.bodies import BodyStore
        >>> store = BodyStore(2)
        >>> reg = IdRegistry(store)
        >>> reg.register([5, 2], store.allocate(2))
        >>> reg.slot_int_ids()[:2].tolist()
        [5, 2]
        >>> reg.register(["a"], store.allocate(1)); reg.slot_int_ids() is None
        True
        """
        inverse = getattr(self, "_slot_int", None)  # a pickle made before it existed: rebuilt here
        if inverse is None:
            table = self._int_slot
            held = np.flatnonzero(table >= 0)
            inverse = np.full(0 if len(held) != len(self._slot_of) else self._store.capacity, -1, dtype=np.int64)
            if len(inverse):
                inverse[table[held]] = held
            self._slot_int = inverse
        return inverse if len(inverse) or not self._slot_of else None

    def _index_int_ids(self, ids: list[Any], slots: NDArray[np.int64]) -> None:
        """Record small non-negative int ids in the id -> slot table.

        The table only grows to a few times the number of slots, so sparse
        huge ids stay in the dict alone (and take the dict path).
        """
        limit = 4 * self._store.capacity + 1024
        for i, s in zip(ids, slots.tolist(), strict=True):
            if type(i) is int and 0 <= i < limit:
                if i >= len(self._int_slot):
                    grown = np.full(min(limit, max(2 * len(self._int_slot), i + 1)), -1, dtype=np.int64)
                    grown[: len(self._int_slot)] = self._int_slot
                    self._int_slot = grown
                self._int_slot[i] = s

    def validate(self) -> None:
        """Assert every invariant between the registry and the store's id columns."""
        st = self._store
        assert st.count == len(self._slot_of)
        for body_id, s in self._slot_of.items():
            assert st.ids[s] == body_id and type(st.ids[s]) is type(body_id)
            assert st.serial[s] >= 0 and st.kind[s] >= 0
        for i, s in enumerate(self._int_slot.tolist()):
            assert s == -1 or self._slot_of.get(i) == s
        assert np.all(st.ids[st.kind < 0] == None)  # noqa: E711 - elementwise on an object array
