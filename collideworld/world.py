"""The World: bodies with poses, stepped into contacts and contact events.

Each :meth:`World.step` runs the pipeline in the order of the modules:

1. **AABBs** (:mod:`.geometry.aabb`): refresh the bounds of the bodies that
   moved; only a body whose tight box left its fat box touches the broadphase.
2. **Broadphase** (:mod:`.broadphase`): candidate pairs of overlapping fat
   boxes. Half-planes and planes are kept out of the sweep (their box is
   infinite) and paired here with every dynamic body whose fat box reaches
   them (n-vertex test).
3. **Filter**: never both static, category/mask both ways.
4. **Narrowphase** (:mod:`.narrowphase`): exact contact, normal and depth,
   one batched kernel call per shape-kind pair.
5. **Events**: began/ended by sorted set difference of int64 pair keys.

Pairs are reported as ``(a, b)`` with ``a`` the body added first, sorted by
that order, so the same calls always give the same answers.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .bodies import BodyStore, Kind
from .broadphase import Broadphase, BruteForceBroadphase, SweepAndPrune
from .broadphase.adaptive import AdaptiveBroadphase
from .broadphase.batched_sweep import BatchedSweep
from .contacts import Contacts, PairList
from .errors import (
    DuplicateIdError,
    InvalidArgumentError,
    InvalidPoseError,
    InvalidShapeError,
    UnknownIdError,
)
from .geometry.aabb import max_over_columns
from .geometry.contact_halfspace import lowest_box_support
from .geometry.tolerance import touch_tolerance
from .narrowphase import contact_pairs
from .poses import (
    check_angle,
    check_angles,
    check_position,
    check_positions,
    check_quaternion,
    check_quaternions,
)
from .shapes import SHAPE_TYPES, Shape

__all__ = ["World", "Body", "RayHit"]

BodyId = Hashable
_U32 = 0xFFFFFFFF
_IDENTITY_Q = np.array([1.0, 0.0, 0.0, 0.0])


class Body(NamedTuple):
    """A snapshot of one body (see :meth:`World.body`).

    Attributes
    ----------
    id : str or int
    shape : Shape
    position : ndarray of float64, shape (D,), or None
        A copy; None for a half-plane or plane.
    angle : float or None
        Radians, 2D only (None in 3D and for a half-plane).
    quaternion : ndarray of float64, shape (4,), or None
        ``[w, x, y, z]``, 3D only (None in 2D and for a plane).
    static : bool
    category, mask : int
        Collision filtering bits.

    Examples
    --------
    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add(Circle(1.0), position=(3, 4), angle=0.5, id="ball")
    'ball'
    >>> b = w.body("ball")
    >>> b.shape, b.position.tolist(), b.angle, b.quaternion, b.static
    (Circle(radius=1.0), [3.0, 4.0], 0.5, None, False)
    """

    id: Any
    shape: Shape
    position: NDArray[np.float64] | None
    angle: float | None
    quaternion: NDArray[np.float64] | None
    static: bool
    category: int
    mask: int


class RayHit(NamedTuple):
    """One body hit by :meth:`World.raycast`.

    Attributes
    ----------
    id : str or int
    point : ndarray of float64, shape (D,)
        Where the ray first meets the body (the origin if it starts inside).
    normal : ndarray of float64, shape (D,)
        Unit outward surface normal there (``-direction`` from inside).
    distance : float
        Along the ray, in world units.

    Examples
    --------
    A ray from the origin along +x enters the unit circle at (5, 0) at x = 4:

    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add(Circle(1.0), position=(5, 0), id="target")
    'target'
    >>> [hit] = w.raycast((0, 0), (1, 0))
    >>> hit.id, hit.point.tolist(), hit.normal.tolist(), hit.distance
    ('target', [4.0, 0.0], [-1.0, 0.0], 4.0)
    """

    id: Any
    point: NDArray[np.float64]
    normal: NDArray[np.float64]
    distance: float


def _check_id(value: Any, what: str = "id") -> int | str:
    if isinstance(value, (bool, np.bool_)):
        raise InvalidArgumentError(f"{what} must be a str or an int, got the bool {value!r}")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, str):
        return value
    raise InvalidArgumentError(f"{what} must be a str or an int, got {type(value).__name__} {value!r}")


def _lookup_key(value: Any) -> int | str | None:
    """The id that ``value`` names, or None when it cannot name one.

    Bools and floats are never ids (``add`` refuses them), yet ``True == 1``
    and ``1.0 == 1`` hash alike, so a plain dict lookup would let them find the
    body with id 1. Numpy integers name the int they hold.
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


def _id_sequence(ids: Any, what: str) -> list[Any] | NDArray[Any]:
    """``ids`` as a list, or as a 1-D array when it is one; a clear error for anything else."""
    if isinstance(ids, np.ndarray):
        if ids.ndim != 1:
            raise InvalidArgumentError(f"{what} must be a 1-D sequence of ids, got an array of shape {ids.shape}")
        return ids
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
        raise InvalidArgumentError(f"{what} must be a sequence of ids (str or int), got {ids!r}")
    return list(ids)


def _as_array(value: Any, what: str) -> NDArray[Any]:
    """``np.asarray(value)``, with ragged nested lists reported as our error, not numpy's."""
    try:
        return np.asarray(value)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{what} must be a scalar or a flat sequence, got {value!r}") from None


def _check_bits(value: Any, what: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidArgumentError(f"{what} must be an unsigned 32-bit int, got {value!r}")
    v = int(value)
    if not 0 <= v <= _U32:
        raise InvalidArgumentError(f"{what} must be in [0, {_U32}], got {v}")
    return v


class _Candidates(NamedTuple):
    """A step's candidate pairs, sorted by key, with their narrowphase answers."""

    keys: NDArray[np.int64]  # (serial_a << 32) | serial_b
    a: NDArray[np.int64]  # slots, a added first
    b: NDArray[np.int64]
    hit: NDArray[np.bool_]
    normal: NDArray[np.float64]
    depth: NDArray[np.float64]
    signature: tuple[int, int] | None  # World._signature() when built

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


class World:
    """A collision world of 2D or 3D bodies.

    Parameters
    ----------
    dim : {2, 3}
    broadphase : {"auto", "sap", "batched", "brute_force"}
        ``"auto"`` (default): each step asks whichever is measured cheaper,
        the incremental sweep-and-prune (few bodies left their fat boxes) or
        one batched banded sweep (many did).
        ``"sap"``: always the incremental sweep-and-prune. ``"batched"``:
        always the batched sweep. ``"brute_force"``: the O(n^2) reference,
        for testing. All four give identical results. A
        :class:`~collideworld.broadphase.Broadphase` instance (empty, of
        this dimension) may be passed instead, e.g. a tuned
        :class:`~collideworld.broadphase.adaptive.AdaptiveBroadphase`.
    fat_margin : float
        Fat boxes are the tight boxes grown by ``fat_margin`` times the
        body's bounding radius, so small moves do not touch the broadphase.

    Examples
    --------
    >>> from collideworld import World, Box, Circle
    >>> w = World(dim=2)
    >>> w.add(Box((1.0, 1.0)), position=(0.0, 0.0), id="crate")
    'crate'
    >>> w.add(Circle(0.5), position=(1.5, 0.0), id="ball")
    'ball'
    >>> contacts = w.step()
    >>> contacts.pairs()
    {('crate', 'ball')}
    >>> w.move("ball", position=(3.0, 0.0))
    >>> sorted(w.step().ended)
    [('crate', 'ball')]
    """

    _ids: NDArray[np.object_]
    _serial: NDArray[np.int64]
    _static: NDArray[np.bool_]
    _category: NDArray[np.uint32]
    _mask: NDArray[np.uint32]
    _moved: NDArray[np.bool_]
    _fat_lo: NDArray[np.float64]
    _fat_hi: NDArray[np.float64]

    def __init__(self, dim: int = 2, *, broadphase: str | Broadphase = "auto", fat_margin: float = 0.1) -> None:
        if isinstance(dim, bool) or dim not in (2, 3):
            raise InvalidArgumentError(f"dim must be 2 or 3, got {dim!r}")
        strategies = {"auto": AdaptiveBroadphase, "sap": SweepAndPrune, "batched": BatchedSweep,
                      "brute_force": BruteForceBroadphase}
        if isinstance(broadphase, Broadphase) and not isinstance(broadphase, str):
            if broadphase.dim != dim or len(broadphase):
                raise InvalidArgumentError(
                    f"a broadphase instance must be empty and {dim}D, got a {broadphase.dim}D one "
                    f"holding {len(broadphase)} boxes")
        elif broadphase not in strategies:
            raise InvalidArgumentError(f"broadphase must be one of {sorted(strategies)} or a Broadphase, "
                                       f"got {broadphase!r}")
        # the margin is relative to each body's bounding radius; past 100 radii it only
        # adds candidates (and, with huge values, could overflow the fat boxes)
        if (isinstance(fat_margin, bool) or not isinstance(fat_margin, (int, float))
                or not 0 <= fat_margin <= 100):
            raise InvalidArgumentError(f"fat_margin must be a number in [0, 100] (body radii), got {fat_margin!r}")
        self.dim = dim
        self.fat_margin = float(fat_margin)
        self._store = BodyStore(dim)
        self._bp: Broadphase = broadphase if isinstance(broadphase, Broadphase) else strategies[broadphase](dim)
        self._slot_of: dict[Any, int] = {}
        self._int_slot = np.full(0, -1, dtype=np.int64)  # small int id -> slot, -1 if none
        self._next_auto_id = 0
        self._next_serial = 0
        self._halfspaces: set[int] = set()
        self._cap = 0
        self._grow()
        self._prev_keys = np.empty(0, dtype=np.int64)
        self._cand = _Candidates.empty(dim)  # last step's candidate pairs and answers
        self._layout_cache: tuple[tuple[int, int], bool, bool] | None = None
        self._prev_a = np.empty(0, dtype=object)
        self._prev_b = np.empty(0, dtype=object)
        self._last: Contacts | None = None

    # -- storage ---------------------------------------------------------------------

    def _grow(self) -> None:
        cap = self._store.capacity
        old = self._cap
        if cap == old:
            return
        d = self.dim

        def grow(name: str, shape: tuple[int, ...], dtype: Any, fill: Any) -> None:
            arr = np.full((cap,) + shape, fill, dtype=dtype)
            if old:
                arr[:old] = getattr(self, name)
            setattr(self, name, arr)

        grow("_ids", (), object, None)
        grow("_serial", (), np.int64, -1)
        grow("_static", (), bool, False)
        grow("_category", (), np.uint32, 0)
        grow("_mask", (), np.uint32, 0)
        grow("_moved", (), bool, False)
        grow("_fat_lo", (d,), np.float64, 0.0)
        grow("_fat_hi", (d,), np.float64, 0.0)
        self._cap = cap

    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, body_id: object) -> bool:
        return _lookup_key(body_id) in self._slot_of

    def ids(self) -> list[Any]:
        """Ids of the live bodies, in the order they were added.

        Examples
        --------
        >>> from collideworld import Circle, World
        >>> w = World(dim=2)
        >>> w.add(Circle(1.0), id="b"), w.add(Circle(1.0), id="a"), w.add(Circle(1.0))
        ('b', 'a', 0)
        >>> w.ids()
        ['b', 'a', 0]
        """
        return sorted(self._slot_of, key=lambda i: self._serial[self._slot_of[i]])

    def body(self, body_id: Any) -> Body:
        """A snapshot of one body: shape, pose, flags.

        Examples
        --------
        >>> from collideworld import Box, World
        >>> w = World(dim=2)
        >>> w.add(Box((1.0, 2.0)), position=(3, 4), angle=0.5, static=True, id="crate")
        'crate'
        >>> b = w.body("crate")
        >>> b.position.tolist(), b.angle, b.static
        ([3.0, 4.0], 0.5, True)
        """
        s = self._slot(body_id)
        st = self._store
        shape = st.shapes[s]
        assert shape is not None
        infinite = shape.is_infinite
        return Body(
            id=self._ids[s], shape=shape,
            position=None if infinite else st.position[s].copy(),
            angle=float(st.angle[s]) if self.dim == 2 and not infinite else None,
            quaternion=st.quaternion[s].copy() if self.dim == 3 and not infinite else None,
            static=bool(self._static[s]), category=int(self._category[s]), mask=int(self._mask[s]),
        )

    def _slot(self, body_id: Any) -> int:
        slot = self._slot_of.get(_lookup_key(body_id), -1)
        if slot < 0:
            raise UnknownIdError(f"no body with id {body_id!r}")
        return slot

    # -- adding ----------------------------------------------------------------------

    def _check_shape(self, shape: Any, what: str = "shape") -> Shape:
        if not isinstance(shape, SHAPE_TYPES):
            raise InvalidShapeError(f"{what} must be a collideworld shape (Circle, Box, ...), got {shape!r}")
        if shape.dim != self.dim:
            raise InvalidShapeError(f"{what} {shape!r} is {shape.dim}D, but this world is {self.dim}D")
        return shape

    def _new_auto_ids(self, n: int, taken: set[Any]) -> list[int]:
        out: list[int] = []
        i = self._next_auto_id
        while len(out) < n:
            if i not in self._slot_of and i not in taken:
                out.append(i)
            i += 1
        return out

    def add(self, shape: Shape, position: ArrayLike | None = None, angle: float | None = None,
            quaternion: ArrayLike | None = None, *, static: bool = False, category: int = 1,
            mask: int = _U32, id: Any = None) -> Any:
        """Add a body; return its id.

        Parameters
        ----------
        shape : Shape
            Of the world's dimension.
        position : array_like, shape (D,), optional
            World position of the body origin; default the origin. Not allowed
            for a half-plane or plane, which has no pose.
        angle : float, optional
            2D rotation in radians, counter-clockwise; default 0.
        quaternion : array_like, shape (4,) or (3, 3), optional
            3D rotation as a unit quaternion ``[w, x, y, z]`` or a rotation
            matrix; default identity.
        static : bool
            Static bodies are never reported in contact with each other.
            Half-planes and planes are always static.
        category, mask : int
            Filtering bits: ``a`` and ``b`` can touch only if
            ``a.category & b.mask`` and ``b.category & a.mask`` are non-zero.
        id : str or int, optional
            The body's id; default the lowest unused int counting up.

        Raises
        ------
        InvalidShapeError, InvalidPoseError, InvalidArgumentError, DuplicateIdError
            The world is unchanged.

        Examples
        --------
        >>> from collideworld import Box, HalfPlane, Sphere, World
        >>> w = World(dim=2)
        >>> w.add(Box((1.0, 0.5)), position=(0, 0.5), angle=0.1, id="crate")
        'crate'
        >>> w.add(HalfPlane((0, 1), 0.0))          # no pose; the first free int id
        0
        >>> World(dim=3).add(Sphere(1.0), position=(0, 0, 2), quaternion=(1, 0, 0, 0), id=7)
        7
        """
        shape = self._check_shape(shape)
        if id is None:
            body_id: Any = self._new_auto_ids(1, set())[0]
        else:
            body_id = _check_id(id)
            if body_id in self._slot_of:
                raise DuplicateIdError(f"a body with id {body_id!r} is already in the world")
        pos, ang, quat = self._check_pose(shape, position, angle, quaternion)
        if not isinstance(static, (bool, np.bool_)):
            raise InvalidArgumentError(f"static must be a bool, got {static!r}")
        cat = _check_bits(category, "category")
        msk = _check_bits(mask, "mask")
        self._check_room(1)
        self._insert([shape], [body_id], pos[None], None if ang is None else np.array([ang]),
                     None if quat is None else quat[None], np.array([bool(static)]),
                     np.array([cat], dtype=np.uint32), np.array([msk], dtype=np.uint32))
        if id is None:
            self._next_auto_id = body_id + 1
        return body_id

    def _check_pose(self, shape: Shape, position: Any, angle: Any, quaternion: Any
                    ) -> tuple[NDArray[np.float64], float | None, NDArray[np.float64] | None]:
        d = self.dim
        if shape.is_infinite:
            given = [n for n, v in (("position", position), ("angle", angle), ("quaternion", quaternion))
                     if v is not None]
            if given:
                raise InvalidPoseError(f"a {shape.kind} has no pose, but {', '.join(given)} was given")
            return np.zeros(d), (0.0 if d == 2 else None), (_IDENTITY_Q.copy() if d == 3 else None)
        pos = np.zeros(d) if position is None else check_position(position, d)
        if d == 2:
            if quaternion is not None:
                raise InvalidPoseError("a 2D body takes an angle, not a quaternion")
            return pos, 0.0 if angle is None else check_angle(angle), None
        if angle is not None:
            raise InvalidPoseError("a 3D body takes a quaternion, not an angle")
        return pos, None, _IDENTITY_Q.copy() if quaternion is None else check_quaternion(quaternion)

    def add_many(self, shapes: Shape | Sequence[Shape], positions: ArrayLike,
                 angles: ArrayLike | None = None, quaternions: ArrayLike | None = None, *,
                 static: bool | ArrayLike = False, category: int | ArrayLike = 1,
                 mask: int | ArrayLike = _U32, ids: Sequence[Any] | None = None) -> list[Any]:
        """Add many finite bodies at once; return their ids.

        Parameters
        ----------
        shapes : Shape or sequence of Shape
            One shape for all, or one per body. Half-planes and planes must be
            added with :meth:`add`.
        positions : array_like, shape (n, D)
        angles : array_like, shape (n,) or scalar, optional (2D)
        quaternions : array_like, shape (n, 4) or (n, 3, 3), optional (3D)
        static, category, mask : scalar or array_like, shape (n,)
        ids : sequence of str or int, optional
            Default: the lowest unused ints.

        Raises
        ------
        CollideWorldError
            On any invalid entry; nothing is added.

        Examples
        --------
        Three unit circles on a line, 1.5 apart: neighbours overlap by 0.5.

        >>> import numpy as np
        >>> from collideworld import Circle, World
        >>> w = World(dim=2)
        >>> w.add_many(Circle(1.0), np.array([[0.0, 0.0], [1.5, 0.0], [3.0, 0.0]]))
        [0, 1, 2]
        >>> sorted(w.step().pairs()), w.step().depth.tolist()
        ([(0, 1), (1, 2)], [0.5, 0.5])
        """
        try:
            pos_arr = np.asarray(positions)
        except (TypeError, ValueError):
            raise InvalidPoseError(f"positions must be an array of shape (n, {self.dim}), got {positions!r}") from None
        if pos_arr.ndim == 1 and pos_arr.size == 0:  # [] adds nothing, like an empty (0, D) array
            pos_arr = positions = np.zeros((0, self.dim))
        if pos_arr.ndim != 2:
            raise InvalidPoseError(f"positions must have shape (n, {self.dim}), got shape {pos_arr.shape}")
        n = pos_arr.shape[0]
        pos = check_positions(positions, n, self.dim)
        if isinstance(shapes, SHAPE_TYPES):
            shape_list = [self._check_shape(shapes)] * n
        else:
            try:
                if isinstance(shapes, (str, bytes)):
                    raise TypeError
                shape_list = list(shapes)
            except TypeError:  # not iterable, or a 0-d array
                raise InvalidShapeError(f"shapes must be a shape or a sequence of {n} shapes, got {shapes!r}") from None
            if len(shape_list) != n:
                raise InvalidArgumentError(f"got {len(shape_list)} shapes for {n} positions")
            for i, sh in enumerate(shape_list):
                self._check_shape(sh, f"shapes[{i}]")
        for i, sh in enumerate(shape_list[:1] if isinstance(shapes, SHAPE_TYPES) else shape_list):
            if sh.is_infinite:
                raise InvalidShapeError(f"shapes[{i}] is a {sh.kind}, which has no pose: add it with add()")
        if self.dim == 2:
            if quaternions is not None:
                raise InvalidPoseError("2D bodies take angles, not quaternions")
            ang = np.zeros(n) if angles is None else check_angles(angles, n)
            quat = None
        else:
            if angles is not None:
                raise InvalidPoseError("3D bodies take quaternions, not angles")
            ang = None
            quat = np.tile(_IDENTITY_Q, (n, 1)) if quaternions is None else check_quaternions(quaternions, n)
        st = _as_array(static, "static")
        if st.dtype != bool or st.shape not in ((), (n,)):
            raise InvalidArgumentError(f"static must be a bool or {n} bools, got {static!r}")
        cats = self._bits_array(category, n, "category")
        masks = self._bits_array(mask, n, "mask")
        if ids is None:
            id_list: list[Any] = self._new_auto_ids(n, set())
        else:
            id_list = [_check_id(v, f"ids[{i}]") for i, v in enumerate(_id_sequence(ids, "ids"))]
            if len(id_list) != n:
                raise InvalidArgumentError(f"got {len(id_list)} ids for {n} positions")
            seen: set[Any] = set()
            for v in id_list:
                if v in self._slot_of or v in seen:
                    raise DuplicateIdError(f"id {v!r} is used twice or already in the world")
                seen.add(v)
        self._check_room(n)
        self._insert(shape_list, id_list, pos, ang, quat, np.broadcast_to(st, (n,)).copy(), cats, masks)
        if ids is None and n:
            self._next_auto_id = max(id_list) + 1
        return id_list

    @staticmethod
    def _bits_array(value: Any, n: int, what: str) -> NDArray[np.uint32]:
        arr = _as_array(value, what)
        if arr.dtype.kind not in "iu" or arr.shape not in ((), (n,)):
            raise InvalidArgumentError(f"{what} must be an int or {n} ints, got {value!r}")
        if arr.size and (arr.min() < 0 or arr.max() > _U32):
            raise InvalidArgumentError(f"{what} must be in [0, {_U32}], got {value!r}")
        bits: NDArray[np.uint32] = np.broadcast_to(arr.astype(np.uint32), (n,)).copy()
        return bits

    #: Bodies one world can take over its lifetime: contact keys pack two
    #: insertion serials into one int64.
    MAX_ADDS = 2**31 - 1

    def _check_room(self, n: int) -> None:
        if self._next_serial + n > self.MAX_ADDS:
            raise InvalidArgumentError(
                f"this world has taken {self._next_serial} bodies over its lifetime; adding {n} more would pass "
                f"the limit of {self.MAX_ADDS} (make a new World)")

    def _insert(self, shapes: list[Shape], ids: list[Any], pos: NDArray[np.float64],
                ang: NDArray[np.float64] | None, quat: NDArray[np.float64] | None,
                static: NDArray[np.bool_], cats: NDArray[np.uint32], masks: NDArray[np.uint32]) -> None:
        """Insert validated bodies. Nothing here may fail on user input."""
        n = len(ids)
        if n == 0:
            return
        slots = self._store.allocate(n)
        self._grow()
        self._store.set_shapes(slots, shapes)
        self._store.set_poses(slots, pos, ang, quat)
        infinite = np.array([sh.is_infinite for sh in shapes], dtype=bool)
        for s, i in zip(slots.tolist(), ids, strict=False):
            self._slot_of[i] = s
        self._index_int_ids(ids, slots)
        ids_arr = np.empty(n, dtype=object)
        ids_arr[:] = ids
        self._ids[slots] = ids_arr
        self._serial[slots] = np.arange(self._next_serial, self._next_serial + n)
        self._next_serial += n
        self._static[slots] = static | infinite
        self._category[slots] = cats
        self._mask[slots] = masks
        self._moved[slots] = False
        self._halfspaces.update(slots[infinite].tolist())
        finite = slots[~infinite]
        if len(finite):
            lo, hi = self._fat_bounds(finite)
            self._bp.insert_many(finite, lo, hi, self._static[finite])

    def _index_int_ids(self, ids: list[Any], slots: NDArray[np.int64]) -> None:
        """Record small non-negative int ids in the id -> slot table.

        The table only grows to a few times the number of bodies, so sparse
        huge ids stay in the dict alone (and take the dict path).
        """
        limit = 4 * self._cap + 1024
        for i, s in zip(ids, slots.tolist(), strict=False):
            if type(i) is int and 0 <= i < limit:
                if i >= len(self._int_slot):
                    grown = np.full(min(limit, max(2 * len(self._int_slot), i + 1)), -1, dtype=np.int64)
                    grown[: len(self._int_slot)] = self._int_slot
                    self._int_slot = grown
                self._int_slot[i] = s

    def _tight_bounds(self, slots: NDArray[np.int64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        lo, hi = self._store.aabbs(slots)
        # widen by the touching tolerance so the broadphase never drops a pair
        # the kernels would call touching
        tol = touch_tolerance(np.maximum(max_over_columns(np.abs(lo)), max_over_columns(np.abs(hi))))[:, None]
        return lo - tol, hi + tol

    def _fat_bounds(self, slots: NDArray[np.int64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        lo, hi = self._tight_bounds(slots)
        margin = np.where(self._static[slots], 0.0, self.fat_margin * self._store.bound_radius[slots])[:, None]
        lo -= margin
        hi += margin
        self._fat_lo[slots] = lo
        self._fat_hi[slots] = hi
        return lo, hi

    # -- moving and removing ----------------------------------------------------------

    def move(self, body_id: Any, position: ArrayLike | None = None, angle: float | None = None,
             quaternion: ArrayLike | None = None) -> None:
        """Set a body's pose; fields not given keep their value.

        Raises
        ------
        UnknownIdError, InvalidPoseError
            The world is unchanged.

        Examples
        --------
        >>> from collideworld import Circle, World
        >>> w = World(dim=2)
        >>> w.add(Circle(1.0), id="a"), w.add(Circle(1.0), position=(5, 0), id="b")
        ('a', 'b')
        >>> w.move("b", position=(2, 0))           # the angle keeps its value
        >>> w.step().pairs()
        {('a', 'b')}
        """
        s = self._slot(body_id)
        shape = self._store.shapes[s]
        assert shape is not None
        if shape.is_infinite:
            raise InvalidPoseError(f"body {body_id!r} is a {shape.kind}, which has no pose and cannot move")
        d = self.dim
        pos = None if position is None else check_position(position, d)
        ang = quat = None
        if d == 2:
            if quaternion is not None:
                raise InvalidPoseError("a 2D body takes an angle, not a quaternion")
            ang = None if angle is None else np.array([check_angle(angle)])
        else:
            if angle is not None:
                raise InvalidPoseError("a 3D body takes a quaternion, not an angle")
            quat = None if quaternion is None else check_quaternion(quaternion)[None]
        slots = np.array([s], dtype=np.int64)
        self._store.set_poses(slots, None if pos is None else pos[None], ang, quat)
        self._moved[s] = True

    def _slots_of(self, ids: Any, what: str = "ids") -> NDArray[np.int64]:
        ids = _id_sequence(ids, what)
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
        arr = np.array([get(i if type(i) is int or type(i) is str else _lookup_key(i), -1) for i in ids],
                       dtype=np.int64)
        if len(arr) and arr.min() < 0:
            bad = list(ids)[int(np.flatnonzero(arr < 0)[0])]
            raise UnknownIdError(f"{what}: no body with id {bad!r}")
        return arr

    def move_many(self, ids: Sequence[Any] | NDArray[Any], positions: ArrayLike | None = None,
                  angles: ArrayLike | None = None, quaternions: ArrayLike | None = None) -> None:
        """Set the poses of many bodies at once (arrays in the order of ``ids``).

        Parameters
        ----------
        ids : sequence of str or int, length n
        positions : array_like, shape (n, D), optional
        angles : array_like, shape (n,), optional (2D)
        quaternions : array_like, shape (n, 4) or (n, 3, 3), optional (3D)

        Raises
        ------
        UnknownIdError, InvalidPoseError
            The world is unchanged.

        Examples
        --------
        >>> import numpy as np
        >>> from collideworld import Box, World
        >>> w = World(dim=2)
        >>> w.add_many(Box((0.5, 0.5)), np.array([[0.0, 0.0], [5.0, 0.0], [9.0, 0.0]]))
        [0, 1, 2]
        >>> w.move_many(np.array([1, 2]), positions=np.array([[1.0, 0.0], [1.0, 1.0]]),
        ...             angles=np.array([0.0, 0.0]))
        >>> sorted(w.step().pairs())               # boxes 1 and 2 share an edge: touching counts
        [(0, 1), (0, 2), (1, 2)]
        """
        slots = self._slots_of(ids)
        n = len(slots)
        if n > 1:
            # an id twice would make the result depend on which pose came last
            seen = np.zeros(self._cap, dtype=bool)
            seen[slots] = True
            if np.count_nonzero(seen) != n:
                twice = int(np.flatnonzero(np.bincount(slots) > 1)[0])
                raise InvalidArgumentError(f"move_many: id {self._ids[twice]!r} is given more than once")
        if n and np.any(self._store.kind[slots] == Kind.HALFSPACE):
            bad = self._ids[slots[self._store.kind[slots] == Kind.HALFSPACE][0]]
            raise InvalidPoseError(f"body {bad!r} is a half-plane/plane, which has no pose and cannot move")
        pos = None if positions is None else check_positions(positions, n, self.dim)
        ang = quat = None
        if self.dim == 2:
            if quaternions is not None:
                raise InvalidPoseError("2D bodies take angles, not quaternions")
            ang = None if angles is None else check_angles(angles, n)
        else:
            if angles is not None:
                raise InvalidPoseError("3D bodies take quaternions, not angles")
            quat = None if quaternions is None else check_quaternions(quaternions, n)
        self._store.set_poses(slots, pos, ang, quat)
        self._moved[slots] = True

    def remove(self, body_id: Any) -> None:
        """Remove a body; its contacts appear in the next step's ``ended``.

        Examples
        --------
        >>> from collideworld import Circle, World
        >>> w = World(dim=2)
        >>> w.add(Circle(1.0), id="a"), w.add(Circle(1.0), position=(1, 0), id="b")
        ('a', 'b')
        >>> w.step().pairs()
        {('a', 'b')}
        >>> w.remove("b")
        >>> list(w.step().ended), "b" in w
        ([('a', 'b')], False)
        """
        self.remove_many([body_id])

    def remove_many(self, ids: Iterable[Any]) -> None:
        """Remove many bodies (all known, or nothing is removed).

        Examples
        --------
        >>> from collideworld import Circle, World
        >>> w = World(dim=2)
        >>> w.add(Circle(1.0), id="a"), w.add(Circle(1.0), id="b")
        ('a', 'b')
        >>> try:
        ...     w.remove_many(["a", "ghost"])
        ... except KeyError as exc:
        ...     print(exc)
        ids: no body with id 'ghost'
        >>> w.remove_many(["a", "b"]); len(w)      # the failed call removed nothing
        0
        """
        id_list = _id_sequence(ids, "ids")
        slots = self._slots_of(id_list)
        if len(np.unique(slots)) != len(slots):
            raise InvalidArgumentError(f"remove_many: an id is given twice in {list(id_list)!r}")
        if not len(slots):
            return
        infinite = self._store.kind[slots] == Kind.HALFSPACE
        finite = slots[~infinite]
        if len(finite):
            self._bp.remove_many(finite)
        self._halfspaces.difference_update(slots[infinite].tolist())
        for i in self._ids[slots].tolist():  # the ids as stored (np.int64(3) names 3)
            del self._slot_of[i]
            if type(i) is int and 0 <= i < len(self._int_slot):
                self._int_slot[i] = -1
        self._ids[slots] = None
        self._serial[slots] = -1
        self._moved[slots] = False
        self._store.release(slots)

    # -- stepping ----------------------------------------------------------------------

    def _refresh_bounds(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Refresh fat boxes of moved bodies; return (slots that moved, slots whose fat box changed)."""
        moved = np.flatnonzero(self._moved)
        if not len(moved):
            return moved, moved
        self._moved[moved] = False
        finite = moved[self._store.kind[moved] != Kind.HALFSPACE]
        lo, hi = self._tight_bounds(finite)
        fat_lo, fat_hi = self._fat_lo.take(finite, axis=0), self._fat_hi.take(finite, axis=0)
        escaped = (fat_lo[:, 0] > lo[:, 0]) | (hi[:, 0] > fat_hi[:, 0])
        for d in range(1, self.dim):
            escaped |= (fat_lo[:, d] > lo[:, d]) | (hi[:, d] > fat_hi[:, d])
        esc = finite[escaped]
        if len(esc):
            # the arithmetic of _fat_bounds, on the tight boxes already at hand
            lo, hi = lo[escaped], hi[escaped]
            margin = np.where(self._static[esc], 0.0, self.fat_margin * self._store.bound_radius[esc])[:, None]
            lo -= margin
            hi += margin
            self._fat_lo[esc] = lo
            self._fat_hi[esc] = hi
            self._bp.update_many(esc, lo, hi)
        return moved, esc

    def _halfspace_candidates(self, bodies: NDArray[np.int64] | None = None) -> NDArray[np.int64]:
        """Pairs (half-space slot, dynamic body slot) whose fat box reaches the half-space.

        ``bodies``: test only these slots (default every live body).
        """
        if not self._halfspaces:
            return np.empty((0, 2), dtype=np.int64)
        hs = np.array(sorted(self._halfspaces), dtype=np.int64)
        kind = self._store.kind
        if bodies is None:
            dyn = np.flatnonzero((kind >= 0) & (kind != Kind.HALFSPACE) & ~self._static[: len(kind)])
        else:
            dyn = bodies[(kind[bodies] != Kind.HALFSPACE) & ~self._static[bodies]]
        if not len(dyn):
            return np.empty((0, 2), dtype=np.int64)
        center = 0.5 * (self._fat_lo.take(dyn, axis=0) + self._fat_hi.take(dyn, axis=0))
        half = 0.5 * (self._fat_hi.take(dyn, axis=0) - self._fat_lo.take(dyn, axis=0))
        out = []
        for h in hs.tolist():  # one vectorised test per half-space (there are few)
            normal = np.broadcast_to(self._store.plane_normal[h], center.shape)
            lowest = lowest_box_support(normal, center, None, half)
            near = lowest <= self._store.plane_offset[h]
            out.append(np.stack([np.full(int(near.sum()), h), dyn[near]], axis=1))
        return np.concatenate(out).astype(np.int64)

    # -- candidate pairs ---------------------------------------------------------------
    #
    # The world keeps every candidate pair (fat boxes overlapping, filters
    # passed) of the last step in ``self._cand``, sorted by pair key, with its
    # narrowphase answer. A step either rebuilds the candidates from the
    # broadphase's full pair list, or, when few fat boxes changed and nothing
    # was added or removed, patches them: pairs of changed boxes are dropped
    # and queried again (``pairs_touching``), the rest stay. Either way only
    # pairs with a moved body go through the narrowphase again. Both give the
    # same candidates and, pair by pair, the same kernel calls, so the
    # answers are identical.

    #: Patch the candidates when at most this fraction of the boxes changed
    #: (and the broadphase can answer ``pairs_touching``); a broadphase's own
    #: ``incremental_fraction`` / ``incremental_minimum`` take precedence.
    INCREMENTAL_FRACTION = 0.2

    def _signature(self) -> tuple[int, int]:
        """Changes whenever a body was added or removed (serials only grow)."""
        return (self._next_serial, len(self._slot_of))

    def _layout(self) -> tuple[bool, bool]:
        """(every filter passes every pair, slot order is add order), cached per signature."""
        sig = self._signature()
        cached = self._layout_cache
        if cached is not None and cached[0] == sig:
            return cached[1], cached[2]
        live = np.flatnonzero(self._store.kind >= 0)
        all_pass = bool(np.all(self._mask[live] == _U32) and np.all(self._category[live] != 0))
        serial = self._serial[live]
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
        if not all_pass:
            cat, msk = self._category, self._mask
            keep = ((cat[i] & msk[j]) != 0) & ((cat[j] & msk[i]) != 0)
            i, j = i[keep], j[keep]
        # a is the body added first: a deterministic order independent of slots
        serial = self._serial
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
            res = contact_pairs(self._store, a, b)
            hit[:], normal[:], depth[:] = res
            return
        if len(rows):
            res = contact_pairs(self._store, a.take(rows), b.take(rows))
            hit[rows], normal[rows], depth[rows] = res

    def _candidates_full(self, moved: NDArray[np.bool_], n_moved: int) -> _Candidates:
        """Candidates from the broadphase's full pair list; cached answers for unmoved pairs.

        ``moved``: by slot, whether the body moved since the last step.
        """
        pairs = self._bp.pairs().reshape(-1, 2)
        hs = self._halfspace_candidates()
        cand = np.concatenate([pairs, hs]) if len(hs) else pairs
        keys, a, b = self._keyed(cand, presorted=not len(hs))
        n = len(keys)
        hit = np.empty(n, dtype=bool)
        normal = np.empty((n, self.dim))
        depth = np.empty(n)
        old = self._cand
        fresh = None
        if len(old.keys) and n_moved < len(self._slot_of):
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
        return _Candidates(keys, a, b, hit, normal, depth, self._signature())

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
        mark = np.zeros(self._cap, dtype=bool)
        mark[changed] = True
        kept = np.flatnonzero(~(mark[old.a] | mark[old.b]))
        query = self._bp.pairs_touching(changed).reshape(-1, 2)
        hs = self._halfspace_candidates(changed)
        qk, qa, qb = self._keyed(np.concatenate([query, hs]) if len(hs) else query, presorted=False)
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
        return _Candidates(keys, a, b, hit, normal, depth, self._signature()), fresh

    def _patchable(self, changed: NDArray[np.int64]) -> bool:
        if not hasattr(self._bp, "pairs_touching") or self._cand.signature != self._signature():
            return False
        fraction = getattr(self._bp, "incremental_fraction", self.INCREMENTAL_FRACTION)
        minimum = getattr(self._bp, "incremental_minimum", 0)
        return len(changed) <= max(minimum, fraction * len(self._bp))

    def step(self) -> Contacts:
        """Find every pair in contact now, with normals, depths and events.

        Pairs whose two bodies did not move since the last step keep last
        step's narrowphase result without being tested again.

        Returns
        -------
        Contacts
            Sorted by (first-added body, second-added body).

        Examples
        --------
        A unit circle resting 0.25 deep in the ground ``y <= 0``; the normal
        points from the ground (added first) towards the circle:

        >>> from collideworld import Circle, HalfPlane, World
        >>> w = World(dim=2)
        >>> w.add(HalfPlane((0, 1), 0.0), id="ground"), w.add(Circle(1.0), position=(0, 0.75), id="ball")
        ('ground', 'ball')
        >>> c = w.step()
        >>> [(x.a, x.b, x.normal.tolist(), x.depth) for x in c]
        [('ground', 'ball', [0.0, 1.0], 0.25)]
        >>> list(c.began), list(w.step().began)     # began once, then persisting
        ([('ground', 'ball')], [])
        """
        moved_slots, changed = self._refresh_bounds()
        moved = np.zeros(self._cap, dtype=bool)
        moved[moved_slots] = True
        old = self._cand
        fresh: NDArray[np.int64] | None = None
        if self._patchable(changed):
            cand, fresh = self._candidates_patched(moved, changed)
        else:
            cand = self._candidates_full(moved, len(moved_slots))
        self._cand = cand

        rows = np.flatnonzero(cand.hit)
        keys, a, b = cand.keys.take(rows), cand.a.take(rows), cand.b.take(rows)
        ids_a, ids_b = self._ids[a], self._ids[b]
        prev_keys = self._prev_keys
        if fresh is None:
            began = np.flatnonzero(~_member_of_sorted(keys, prev_keys))
            began_a, began_b = ids_a[began], ids_b[began]
            ended = np.flatnonzero(~_member_of_sorted(prev_keys, keys))
        else:
            # Patched: nothing was added or removed, so last step's contacts
            # are ``old``'s hit rows, and only rows with a moved body were
            # tested again. Only they can have begun, and only last step's
            # contacts with a moved body can have ended: both found without
            # a search over every contact.
            f = fresh[cand.hit.take(fresh)]
            f = f[~_member_of_sorted(cand.keys.take(f), prev_keys)]
            began_a, began_b = self._ids[cand.a.take(f)], self._ids[cand.b.take(f)]
            was = np.flatnonzero(old.hit)
            was = was[moved.take(old.a.take(was)) | moved.take(old.b.take(was))]
            gone_keys = old.keys.take(was)
            gone_keys = gone_keys[~_member_of_sorted(gone_keys, keys)]
            ended = np.searchsorted(prev_keys, gone_keys)
        contacts = Contacts(ids_a, ids_b, cand.normal.take(rows, axis=0), cand.depth.take(rows),
                            PairList(began_a, began_b),
                            PairList(self._prev_a[ended], self._prev_b[ended]))
        self._prev_keys, self._prev_a, self._prev_b = keys, ids_a, ids_b
        self._last = contacts
        return contacts

    def pairs(self) -> set[tuple[Any, Any]]:
        """The pairs in contact after the last :meth:`step` (empty before any step).

        Examples
        --------
        >>> from collideworld import Box, World
        >>> w = World(dim=2)
        >>> w.add(Box((1.0, 1.0)), id="a"), w.add(Box((1.0, 1.0)), position=(2, 0), id="b")
        ('a', 'b')
        >>> w.pairs(), w.step() and w.pairs()      # edge to edge: touching counts
        (set(), {('a', 'b')})
        """
        return set(zip(self._prev_a.tolist(), self._prev_b.tolist(), strict=False))

    @property
    def last_contacts(self) -> Contacts | None:
        """What the last :meth:`step` returned.

        Examples
        --------
        >>> from collideworld import World
        >>> w = World(dim=2)
        >>> w.last_contacts is None
        True
        >>> c = w.step()
        >>> w.last_contacts is c
        True
        """
        return self._last

    # -- queries -------------------------------------------------------------------------

    def _query_bounds(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Boxes that hold every body now: the fat boxes, with the tight box of each body moved since the step.

        Fat boxes are refreshed by :meth:`step` only, so a query between a
        move and the next step would miss a body that left its fat box.
        """
        moved = np.flatnonzero(self._moved)
        moved = moved[self._store.kind[moved] != Kind.HALFSPACE]
        if not len(moved):
            return self._fat_lo, self._fat_hi
        lo, hi = self._fat_lo.copy(), self._fat_hi.copy()
        lo[moved], hi[moved] = self._tight_bounds(moved)
        return lo, hi

    def _probe(self, setup: Any) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]:
        """Put a query shape into a scratch slot; return (slot array, tight lo, hi)."""
        slots = self._store.allocate(1)
        self._grow()
        try:
            setup(slots)
            lo, hi = self._tight_bounds(slots)
        except BaseException:
            self._store.release(slots)
            raise
        return slots, lo[0], hi[0]

    def _query(self, setup: Any, category: Any, mask: Any) -> list[Any]:
        cat = _check_bits(category, "category")
        msk = _check_bits(mask, "mask")
        probe, lo, hi = self._probe(setup)
        try:
            st = self._store
            live = (st.kind >= 0) & (np.arange(len(st.kind)) != probe[0])
            box_lo, box_hi = self._query_bounds()
            near = live & (((box_lo <= hi) & (lo <= box_hi)).all(axis=1) | (st.kind == Kind.HALFSPACE))
            near &= ((self._category & np.uint32(msk)) != 0) & ((np.uint32(cat) & self._mask) != 0)
            cand = np.flatnonzero(near)
            res = contact_pairs(st, np.full(len(cand), probe[0]), cand)
        finally:
            self._store.release(probe)
        found = cand[res.hit]
        found = found[np.argsort(self._serial[found], kind="stable")]
        ids: list[Any] = self._ids[found].tolist()
        return ids

    def query_shape(self, shape: Shape, position: ArrayLike | None = None, angle: float | None = None,
                    quaternion: ArrayLike | None = None, *, category: int = _U32, mask: int = _U32) -> list[Any]:
        """Ids of the bodies a shape placed at a pose would touch (exact), in add order.

        The shape is not added to the world. This is the placement test
        ("can this building go here?"): an empty list means the spot is free.
        ``category``/``mask`` filter like a body's, both ways.

        Examples
        --------
        >>> from collideworld import World, Box
        >>> w = World(dim=2)
        >>> w.add(Box((2.0, 1.0)), position=(0.0, 0.0), static=True, id="barracks")
        'barracks'
        >>> w.query_shape(Box((1.0, 1.0)), position=(2.5, 0.0), angle=0.3)
        ['barracks']
        >>> w.query_shape(Box((1.0, 1.0)), position=(5.0, 0.0))
        []
        """
        shape = self._check_shape(shape)
        pos, ang, quat = self._check_pose(shape, position, angle, quaternion)

        def setup(slots: NDArray[np.int64]) -> None:
            self._store.set_shapes(slots, [shape])
            self._store.set_poses(slots, pos[None], None if ang is None else np.array([ang]),
                                  None if quat is None else quat[None])

        return self._query(setup, category, mask)

    def _setup_point_box(self, center: NDArray[np.float64], half: NDArray[np.float64], ball: bool) -> Any:
        def setup(slots: NDArray[np.int64]) -> None:
            st = self._store
            s = int(slots[0])
            st.kind[s] = Kind.BALL if ball else Kind.BOX
            st.radius[s] = 0.0
            st.half[s] = half
            st.bound_radius[s] = float(np.linalg.norm(half))
            st.set_poses(slots, center[None], np.zeros(1) if self.dim == 2 else None,
                         None if self.dim == 2 else _IDENTITY_Q[None])
        return setup

    def query_point(self, point: ArrayLike, *, category: int = _U32, mask: int = _U32) -> list[Any]:
        """Ids of the bodies containing ``point`` (boundary included), in add order.

        Examples
        --------
        >>> from collideworld import Box, Circle, World
        >>> w = World(dim=2)
        >>> w.add(Circle(1.0), id="disc"), w.add(Box((1.0, 1.0)), position=(1, 0), id="box")
        ('disc', 'box')
        >>> w.query_point((1.0, 0.0)), w.query_point((2.0, 1.0)), w.query_point((5.0, 5.0))
        (['disc', 'box'], ['box'], [])
        """
        p = check_position(point, self.dim, "point")
        return self._query(self._setup_point_box(p, np.zeros(self.dim), ball=True), category, mask)

    def query_aabb(self, lo: ArrayLike, hi: ArrayLike, *, category: int = _U32, mask: int = _U32) -> list[Any]:
        """Ids of the bodies whose exact shape meets the box ``[lo, hi]``, in add order.

        Examples
        --------
        >>> from collideworld import Circle, World
        >>> w = World(dim=2)
        >>> w.add(Circle(1.0), position=(0, 0), id="near"), w.add(Circle(1.0), position=(3, 3), id="far")
        ('near', 'far')
        >>> w.query_aabb((0.5, 0.5), (1.5, 1.5))   # the corner (0.5, 0.5) is 0.71 from the centre
        ['near']
        """
        lo_ = check_position(lo, self.dim, "lo")
        hi_ = check_position(hi, self.dim, "hi")
        if np.any(lo_ > hi_):
            raise InvalidArgumentError(
                f"query_aabb needs lo <= hi on every axis, got lo={lo_.tolist()}, hi={hi_.tolist()}")
        return self._query(self._setup_point_box(0.5 * (lo_ + hi_), 0.5 * (hi_ - lo_), ball=False), category, mask)

    def raycast(self, origin: ArrayLike, direction: ArrayLike, max_distance: float = math.inf, *,
                category: int = _U32, mask: int = _U32) -> list[RayHit]:
        """Bodies hit by a ray, nearest first.

        Parameters
        ----------
        origin : array_like, shape (D,)
        direction : array_like, shape (D,)
            Non-zero; normalised here, so distances are in world units.
        max_distance : float
            Hits farther than this are ignored (``inf`` by default).

        Returns
        -------
        list of RayHit
            ``(id, point, normal, distance)`` sorted by distance, then add
            order. A ray that starts inside a body hits it at distance 0 with
            ``normal = -direction``.

        Examples
        --------
        >>> from collideworld import Box, Circle, World
        >>> w = World(dim=2)
        >>> w.add(Box((1.0, 1.0)), position=(10, 0), id="box"), w.add(Circle(1.0), position=(5, 0), id="disc")
        ('box', 'disc')
        >>> [(h.id, h.distance, h.point.tolist()) for h in w.raycast((0, 0), (1, 0))]
        [('disc', 4.0, [4.0, 0.0]), ('box', 9.0, [9.0, 0.0])]
        """
        from .geometry import raycast as rc

        o = check_position(origin, self.dim, "origin")
        dvec = check_position(direction, self.dim, "direction")
        length = float(np.linalg.norm(dvec))
        if not length > 0:
            raise InvalidArgumentError(f"direction must be non-zero, got {dvec.tolist()}")
        dvec = dvec / length
        real = (int, float, np.integer, np.floating)
        if (isinstance(max_distance, (bool, np.bool_)) or not isinstance(max_distance, real)
                or math.isnan(max_distance) or max_distance < 0):
            raise InvalidArgumentError(f"max_distance must be a number >= 0, got {max_distance!r}")
        max_distance = float(max_distance)
        cat = _check_bits(category, "category")
        msk = _check_bits(mask, "mask")
        st = self._store
        live = st.kind >= 0
        live &= ((self._category & np.uint32(msk)) != 0) & ((np.uint32(cat) & self._mask) != 0)
        # cull by the bodies' boxes with a slab test before the exact casts
        box_lo, box_hi = self._query_bounds()
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1.0 / dvec
            t1 = (box_lo - o) * inv
            t2 = (box_hi - o) * inv
        tmin = np.where(np.isnan(t1), -np.inf, np.minimum(t1, t2)).max(axis=1)
        tmax = np.where(np.isnan(t2), np.inf, np.maximum(t1, t2)).min(axis=1)
        parallel_out = ((dvec == 0) & ((o < box_lo) | (o > box_hi))).any(axis=1)
        near = live & (tmin <= tmax) & (tmax >= 0) & (tmin <= max_distance) & ~parallel_out
        near |= live & (st.kind == Kind.HALFSPACE)
        cand = np.flatnonzero(near)
        dist = np.full(len(cand), np.inf)
        normal = np.zeros((len(cand), self.dim))
        kinds = st.kind[cand]
        for kind in np.unique(kinds).tolist():
            idx = np.flatnonzero(kinds == kind)
            s = cand[idx]
            if kind == Kind.HALFSPACE:
                r = rc.raycast_halfspace(o, dvec, max_distance, *st.plane_rows(s))
            elif kind == Kind.BALL:
                r = rc.raycast_ball(o, dvec, max_distance, *st.ball_rows(s))
            elif kind == Kind.BOX:
                r = rc.raycast_box(o, dvec, max_distance, *st.box_rows(s))
            else:
                from .narrowphase import _parts_of

                row, part = _parts_of(st, s)
                pd = np.full(len(row), np.inf)
                pn = np.zeros((len(row), 2))
                bucket_of, _ = st.parts.part_arrays()
                sizes = bucket_of[part]
                for size in np.unique(sizes).tolist():
                    sel = np.flatnonzero(sizes == size)
                    [(_, verts)] = st.part_vertices_world(s[row[sel]], part[sel])
                    rp = rc.raycast_polygon(o, dvec, max_distance, verts)
                    pd[sel] = np.where(rp.hit, rp.distance, np.inf)
                    pn[sel] = rp.normal
                # the entry into the union of the parts is the nearest entry into any part
                order = np.lexsort((pd, row))
                firsts = order[np.r_[True, row[order][1:] != row[order][:-1]]]
                dist[idx] = pd[firsts]
                normal[idx] = pn[firsts]
                continue
            dist[idx] = np.where(r.hit, r.distance, np.inf)
            normal[idx] = r.normal
        ok = np.isfinite(dist)
        cand, dist, normal = cand[ok], dist[ok], normal[ok]
        order = np.lexsort((self._serial[cand], dist))
        return [RayHit(self._ids[cand[k]], o + dvec * dist[k], normal[k].copy(), float(dist[k]))
                for k in order.tolist()]

    # -- invariants ----------------------------------------------------------------------

    def _check(self) -> None:
        """Assert every internal invariant (for tests; O(n) plus the broadphase's check)."""
        st = self._store
        assert st.count == len(self._slot_of)
        live = np.flatnonzero(st.kind >= 0)
        assert len(live) == len(self._slot_of)
        for body_id, s in self._slot_of.items():
            assert self._ids[s] == body_id and type(self._ids[s]) is type(body_id)
            assert self._serial[s] >= 0
        for i, s in enumerate(self._int_slot.tolist()):
            assert s == -1 or self._slot_of.get(i) == s
        assert np.all(self._ids[st.kind < 0] == None)  # noqa: E711 - elementwise on an object array
        hs = set(np.flatnonzero(st.kind == Kind.HALFSPACE).tolist())
        assert hs == self._halfspaces
        assert np.all(self._static[list(hs)]) if hs else True
        finite = np.flatnonzero((st.kind >= 0) & (st.kind != Kind.HALFSPACE))
        assert len(self._bp) == len(finite)
        for s in finite.tolist():
            assert s in self._bp
        settled = finite[~self._moved[finite]]
        if len(settled):
            lo, hi = self._tight_bounds(settled)
            assert np.all(lo >= self._fat_lo[settled]) and np.all(hi <= self._fat_hi[settled])
        # every polygon in use is counted once per live body, and only those are kept
        users = np.bincount(st.poly[live][st.poly[live] >= 0], minlength=len(st.parts.shape_first_part))
        st.parts._check(users)
        self._bp.validate()
