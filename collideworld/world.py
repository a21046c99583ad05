"""The World: bodies with poses, stepped into contacts and contact events.

This module is the front: it checks every argument and hands the work to
the parts behind it, one module each, in the order a step runs them:

1. :mod:`.registry` and :mod:`.bodies`: ids <-> slots, and every per-body
   column (shape, pose, filters, fat box) in one :class:`BodyStore`.
2. :mod:`.fat_boxes`: refresh the boxes of the bodies that moved; only a
   body whose tight box left its fat box touches the broadphase.
3. :mod:`.broadphase`: candidate pairs of overlapping fat boxes, half-spaces
   included (:class:`~.broadphase.halfspaces.HalfSpaceBroadphase`).
4. :mod:`.pair_cache`: filters, reuse of unmoved pairs, the narrowphase
   (:mod:`.narrowphase`, one batched kernel call per shape-kind pair), and
   began/ended by sorted set difference of int64 pair keys.
5. :mod:`.queries`: points, boxes, shapes and rays against the bodies.

Pairs are reported as ``(a, b)`` with ``a`` the body added first, sorted by
that order, so the same calls always give the same answers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .backend import compiled_available, resolve_backend
from .background import compiled_ready, note_switch
from .bodies import BodyStore, Kind, quat_product, split_parts
from .broadphase import Broadphase, SweepAndPrune
from .broadphase.batched_sweep import BatchedSweep
from .broadphase.halfspaces import HalfSpaceBroadphase
from .contacts import Contacts
from .errors import DuplicateIdError, InvalidArgumentError, InvalidPoseError, InvalidShapeError
from .fat_boxes import refresh_moved, set_fat_bounds, swept_bounds, tight_bounds
from .geometry.rotation import rotation_matrix_2d, rotation_matrix_3d
from .geometry.tolerance import touch_tolerance
from .pair_cache import PairCache
from .poses import check_pose_arrays, check_position, check_positions, collide_pose, plain_position
from .queries import (
    CastHit,
    NearHit,
    QueryIndex,
    RayHit,
    RayHitArrays,
    box_hits,
    box_probes,
    cast_hits,
    nearest,
    overlapping,
    point_ids,
    probe_bounds,
    ray_hits,
    ray_hits_many,
    release_probes,
    shape_hits,
    shape_probes,
    within,
)
from .registry import MAX_ADDS, IdRegistry, check_id, id_sequence
from .shapes import SHAPE_TYPES, Circle, Compound, HalfPlane, Plane, Shape, Sphere
from .world_checks import (
    as_array,
    bits_array,
    check_bits,
    check_count,
    check_dim,
    check_max_distance,
    check_max_distances,
    make_broadphase,
)
from .world_pickle import pickled_state, restore_world

__all__ = ["World", "Body", "RayHit", "RayHitArrays", "NearHit", "CastHit"]

_U32 = 0xFFFFFFFF
_IDENTITY_Q = np.array([1.0, 0.0, 0.0, 0.0])
_ZEROS3 = (0.0, 0.0, 0.0)
#: an angle the single query_shape reads directly (a numpy scalar included)
_FLOATS = (float, np.float64)


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
    data: Any = None


#: World.draw's renderer. The renderer sits above the world (it replays scenario files into worlds), so
#: it hands its drawing function down when imported (the package imports it) instead of the world
#: importing it: no import cycle (docs/architecture.md); matplotlib is loaded only for a picture.
_DRAWER: list[Any] = []


def set_drawer(draw: Any) -> None:
    """Give :meth:`World.draw` its renderer (:func:`collideworld.render.draw_world` does, when imported)."""
    _DRAWER[:] = [draw]


def _unpickle_world(fmt: Any, release: Any, payload: Any, cls: Any = None) -> World:
    """A World (or the subclass ``cls``) from the state ``World.__reduce__`` pickled; the format is checked
    before the state is read (:func:`.world_pickle.restore_world`)."""
    restored: World = restore_world(World if cls is None else cls, World, fmt, release, payload)
    return restored


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
    backend : {"auto", "compiled", "numpy"}
        Which kernels run. ``"compiled"``: the numba core (narrowphase
        kernels and the busy-step sweep). ``"numpy"``: the numpy
        implementation, which is also the reference the compiled one is
        tested against. ``"auto"`` (default): compiled when numba imports,
        else numpy with one warning per process; on a machine whose numba
        cache lacks the compiled kernels, numpy until a background build
        has them ready, then compiled from the next :meth:`step` on (see
        ``collideworld.background``), so that no call waits for the
        compiler. Both give the same pairs and events; normals and depths
        agree to rounding. The one running now is in ``World.backend``.
    fat_margin : float
        Fat boxes are the tight boxes grown by ``fat_margin`` times the
        body's bounding radius, so small moves do not touch the broadphase.
    manifolds : bool
        Also compute contact points (``Contacts.points``, ``point_count``,
        ``separations``, ``point_ids``): where each pair touches, up to 2
        points in 2D and 4 in 3D. Off by default: they cost a measured
        large share of a busy frame (see ``benchmarks/manifolds.py``).

    Notes
    -----
    A world pickles: ``pickle.dumps(world)``, ``copy.deepcopy(world)`` and
    handing it to a process pool give a world that answers exactly like
    this one from then on (pairs, events, normals, contact points and
    feature ids, queries, the next free id), on either backend. The pickle
    holds arrays, shapes and bookkeeping, no compiled code and no locks;
    a pickle of another layout (``World.PICKLE_FORMAT``) is refused with
    the release that wrote it.

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

    #: Bodies one world can take over its lifetime: contact keys pack two
    #: insertion serials into one int64.
    MAX_ADDS = MAX_ADDS

    #: ``step()`` compacts the store when its capacity is at least this and
    #: four times the live bodies (see :meth:`compact`).
    COMPACT_MIN_CAPACITY = 4096

    def __init__(self, dim: int = 2, *, broadphase: str | Broadphase = "auto", backend: str = "auto",
                 fat_margin: float = 0.1, manifolds: bool = False) -> None:
        dim = check_dim(dim)
        if not isinstance(manifolds, (bool, np.bool_)):
            raise InvalidArgumentError(f"manifolds must be True or False, got {manifolds!r}")
        self.backend = resolve_backend(backend)
        # "auto" while the compiled kernels are built in the background (collideworld.background): numpy
        # answers, and step() switches to the compiled kernels once they are loaded
        self._await_compiled = backend == "auto" and self.backend == "numpy" and compiled_available()
        self._retest_all = False  # set by the switch to the compiled kernels, for one step
        inner = make_broadphase(broadphase, dim, self.backend)
        # the margin is relative to each body's bounding radius; past 100 radii it only
        # adds candidates (and, with huge values, could overflow the fat boxes)
        if (isinstance(fat_margin, bool) or not isinstance(fat_margin, (int, float))
                or not 0 <= fat_margin <= 100):
            raise InvalidArgumentError(f"fat_margin must be a number in [0, 100] (body radii), got {fat_margin!r}")
        self.dim = dim
        self.fat_margin = float(fat_margin)
        self._store = BodyStore(dim, backend=self.backend)
        self._store.split_concave = True  # a concave polygon's contacts are per convex piece
        self._registry = IdRegistry(self._store)
        self._bp = HalfSpaceBroadphase(inner)
        self._pairs = PairCache(self._store, self._registry, self._bp, self.backend, bool(manifolds))
        self._changed_in_place: set[int] = set()  # slots changed by set_* since the last step
        self._index = QueryIndex(self._store, self.backend)  # the queries' grid, rebuilt lazily

    # -- pickling ---------------------------------------------------------------------------

    #: The layout of a pickled world's state (see ``World.__reduce__``). Bump it whenever an attribute of
    #: a pickled part (the world, its BodyStore, IdRegistry, broadphases, PairCache) is added, removed
    #: or changes meaning, and add the release that wrote the old one to ``world_pickle.PICKLE_WRITERS``.
    PICKLE_FORMAT = 1

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickle, deep-copy or send the world to another process.

        The state is the world's arrays, shapes and bookkeeping, nested in
        a pickle of its own behind a format number, so that a world pickled
        by another release is refused with the release it needs before
        any of it is read. No compiled code travels: the query index and
        every numba object are rebuilt on first use in the copy, and the
        pair cache finds its kernels again by the backend's name. The copy
        answers exactly like the original from that moment on: the same
        pairs, events, normals, depths, contact points and feature ids,
        the same query answers and the same next free id.

        Examples
        --------
        >>> import pickle
        >>> from collideworld import Circle, World
        >>> w = World(dim=2)
        >>> w.add_many(Circle(1.0), [[0, 0], [1.5, 0]])
        [0, 1]
        >>> _ = w.step()
        >>> twin = pickle.loads(pickle.dumps(w))
        >>> twin.move(1, position=(5, 0)); w.move(1, position=(5, 0))
        >>> list(twin.step().ended) == list(w.step().ended) == [(0, 1)]
        True
        """
        args: tuple[Any, ...] = pickled_state(self, self.PICKLE_FORMAT)
        # a subclass comes back as itself (named by reference, like any pickled class)
        return (_unpickle_world, args if type(self) is World else (*args, type(self)))

    def __setstate__(self, state: dict[str, Any]) -> None:
        """The world from a pickled state (``_unpickle_world``); its query index is built anew."""
        self.__dict__.update(state)
        if self.backend == "compiled":
            # fails with the backend's own message where numba is missing
            resolve_backend("compiled")
        self._index = QueryIndex(self._store, self.backend)

    # -- what is in the world -------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._registry)

    def __contains__(self, body_id: object) -> bool:
        return body_id in self._registry

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
        return self._registry.ids_in_add_order()

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
        s = self._registry.slot(body_id)
        st = self._store
        shape = st.shapes[s]
        assert shape is not None
        infinite = shape.is_infinite
        return Body(
            id=st.ids[s], shape=shape,
            position=None if infinite else st.position[s].copy(),
            angle=float(st.angle[s]) if self.dim == 2 and not infinite else None,
            quaternion=st.quaternion[s].copy() if self.dim == 3 and not infinite else None,
            static=bool(st.static[s]), category=int(st.category[s]), mask=int(st.mask[s]),
            data=st.data[s],
        )

    def poses(self, ids: Sequence[Any] | NDArray[Any]) -> tuple[NDArray[np.float64], NDArray[np.float64] | None,
                                                             NDArray[np.float64] | None]:
        """The poses of many bodies at once, as arrays in the order of ``ids``.

        Returns
        -------
        positions : ndarray of float64, shape (n, D)
        angles : ndarray of float64, shape (n,), or None in 3D
        quaternions : ndarray of float64, shape (n, 4), or None in 2D
            The values :meth:`body` gives, copied. A half-plane or plane has
            no pose: its rows are NaN.

        Raises
        ------
        UnknownIdError
            An id names no body.

        Examples
        --------
        >>> from collideworld import Circle, World
        >>> w = World(dim=2)
        >>> w.add_many(Circle(1.0), [[0, 0], [3, 4]], angles=[0.0, 0.5])
        [0, 1]
        >>> pos, ang, quat = w.poses([1, 0])
        >>> pos.tolist(), ang.tolist(), quat
        ([[3.0, 4.0], [0.0, 0.0]], [0.5, 0.0], None)
        """
        st = self._store
        slots = self._registry.slots_of(ids)
        pos = st.position.take(slots, axis=0)
        ang = st.angle.take(slots) if self.dim == 2 else None
        quat = st.quaternion.take(slots, axis=0) if self.dim == 3 else None
        planes = st.kind.take(slots) == Kind.HALFSPACE
        if planes.any():
            pos[planes] = np.nan
            if ang is not None:
                ang[planes] = np.nan
            if quat is not None:
                quat[planes] = np.nan
        return pos, ang, quat

    # -- adding ----------------------------------------------------------------------

    def _check_shape(self, shape: Any, what: str = "shape") -> Shape:
        if not isinstance(shape, SHAPE_TYPES):
            raise InvalidShapeError(f"{what} must be a collideworld shape (Circle, Box, ...), got {shape!r}")
        if shape.dim != self.dim:
            raise InvalidShapeError(f"{what} {shape!r} is {shape.dim}D, but this world is {self.dim}D")
        return shape

    def add(self, shape: Shape, position: ArrayLike | None = None, angle: float | None = None,
            quaternion: ArrayLike | None = None, *, static: bool = False, category: int = 1,
            mask: int = _U32, id: Any = None, data: Any = None) -> Any:
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
        data : object, optional
            Anything of yours to keep with the body (see :meth:`data`); never
            read by collideworld.

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
        if id is not None:
            id = check_id(id)
            if id in self._registry:
                raise DuplicateIdError(f"a body with id {id!r} is already in the world")
        if shape.is_infinite:
            given = [n for n, v in (("position", position), ("angle", angle), ("quaternion", quaternion))
                     if v is not None]
            if given:
                raise InvalidPoseError(f"a {shape.kind} has no pose, but {', '.join(given)} was given")
        pose = check_pose_arrays(self.dim, 1, position, angle, quaternion, single=True)
        if not isinstance(static, (bool, np.bool_)):
            raise InvalidArgumentError(f"static must be a bool, got {static!r}")
        cat = check_bits(category, "category")
        msk = check_bits(mask, "mask")
        [body_id] = self._add_checked([shape], pose, np.array([bool(static)]), np.array([cat], dtype=np.uint32),
                                      np.array([msk], dtype=np.uint32), None if id is None else [id],
                                      None if data is None else [data])
        return body_id

    def add_many(self, shapes: Shape | Sequence[Shape], positions: ArrayLike,
                 angles: ArrayLike | None = None, quaternions: ArrayLike | None = None, *,
                 static: bool | ArrayLike = False, category: int | ArrayLike = 1,
                 mask: int | ArrayLike = _U32, ids: Sequence[Any] | None = None,
                 data: Sequence[Any] | None = None) -> list[Any]:
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
        data : sequence of object, length n, optional
            One object of yours per body (see :meth:`data`).

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
        pose = check_pose_arrays(self.dim, n, positions, angles, quaternions)
        if isinstance(shapes, SHAPE_TYPES):
            shape_list = [self._check_shape(shapes)] * n
            to_check = shape_list[:1]
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
            to_check = shape_list
        for i, sh in enumerate(to_check):
            if sh.is_infinite:
                raise InvalidShapeError(f"shapes[{i}] is a {sh.kind}, which has no pose: add it with add()")
        st = as_array(static, "static")
        if st.dtype != bool or st.shape not in ((), (n,)):
            raise InvalidArgumentError(f"static must be a bool or {n} bools, got {static!r}")
        cats = bits_array(category, n, "category")
        masks = bits_array(mask, n, "mask")
        if data is not None:
            if isinstance(data, (str, bytes)) or not isinstance(data, Sequence | np.ndarray) or len(data) != n:
                raise InvalidArgumentError(f"data must be a sequence of {n} objects (one per body), got {data!r}")
            data = list(data)
        if ids is not None:
            ids = self._registry.new_ids(ids, n)
        return self._add_checked(shape_list, pose, np.broadcast_to(st, (n,)).copy(), cats, masks, ids, data)

    def _add_checked(self, shapes: list[Shape], pose: tuple[Any, Any, Any], static: NDArray[np.bool_],
                     cats: NDArray[np.uint32], masks: NDArray[np.uint32], ids: list[Any] | None,
                     data: list[Any] | None = None) -> list[Any]:
        """Add bodies whose every argument passed its check; the ids, if given, are new. Returns the ids."""
        n = len(shapes)
        # a compound's parts (a concave polygon's pieces) take serials too
        self._registry.check_room(n + sum(split_parts(s) for s in shapes))
        id_list = self._registry.new_ids(None, n) if ids is None else ids
        if n == 0:
            return id_list
        d = self.dim
        pos, ang, quat = pose
        pos = np.zeros((n, d)) if pos is None else pos
        if d == 2:
            ang = np.zeros(n) if ang is None else ang
        else:
            quat = np.tile(_IDENTITY_Q, (n, 1)) if quat is None else quat
        # nothing below may fail on user input
        st = self._store
        slots = st.allocate(n)
        st.set_shapes(slots, shapes)
        st.set_poses(slots, pos, ang, quat)
        self._registry.register(id_list, slots, auto=ids is None)
        infinite = np.array([sh.is_infinite for sh in shapes], dtype=bool)
        st.static[slots] = static | infinite
        st.category[slots] = cats
        st.mask[slots] = masks
        if st.n_compounds:
            self._number_parts(slots)
        st.moved[slots] = False
        if data is not None:
            # fromiter, not an array of ``data``: numpy would unpack data that are themselves sequences
            st.data[slots] = np.fromiter(data, dtype=object, count=n)
        planes = slots[infinite]
        if len(planes):
            self._bp.insert_halfspaces(planes, st.plane_normal[planes], st.plane_offset[planes])
        finite = slots[~infinite]
        if len(finite):
            lo, hi = set_fat_bounds(st, finite, self.fat_margin)
            self._bp.insert_many(finite, lo, hi, st.static[finite])
        return id_list

    # -- moving and removing ----------------------------------------------------------

    def move(self, body_id: Any, position: ArrayLike | None = None, angle: float | None = None,
             quaternion: ArrayLike | None = None, *, normal: ArrayLike | None = None,
             offset: float | None = None) -> None:
        """Set a body's pose; fields not given keep their value.

        A half-plane or plane has no pose; it moves by a new ``normal``
        and/or ``offset`` instead (validated and normalised as by its
        constructor).

        Raises
        ------
        UnknownIdError, InvalidPoseError
            The world is unchanged.

        Examples
        --------
        >>> from collideworld import Circle, HalfPlane, World
        >>> w = World(dim=2)
        >>> w.add(Circle(1.0), id="a"), w.add(Circle(1.0), position=(5, 0), id="b")
        ('a', 'b')
        >>> w.move("b", position=(2, 0))           # the angle keeps its value
        >>> w.step().pairs()
        {('a', 'b')}
        >>> w.add(HalfPlane((0, 1), -5.0), id="floor")  # y <= -5: far below
        'floor'
        >>> w.move("floor", offset=-0.5)
        >>> sorted(w.step().began)                   # a and b were added first
        [('a', 'floor'), ('b', 'floor')]
        """
        s = self._registry.slot(body_id)
        shape = self._store.shapes[s]
        assert shape is not None
        if shape.is_infinite:
            if position is not None or angle is not None or quaternion is not None:
                raise InvalidPoseError(f"body {body_id!r} is a {shape.kind}, which has no pose: move it by "
                                       f"normal and offset")
            if normal is None and offset is None:
                return
            assert isinstance(shape, (HalfPlane, Plane))
            moved = type(shape)(shape.normal if normal is None else normal,  # type: ignore[arg-type]
                                shape.offset if offset is None else offset)
            self._store.set_shapes(np.array([s], dtype=np.int64), [moved])
            self._rebox(s)
            return
        if normal is not None or offset is not None:
            raise InvalidPoseError(f"body {body_id!r} is a {shape.kind}: only a half-plane or plane moves by "
                                   f"normal and offset")
        pose = check_pose_arrays(self.dim, 1, position, angle, quaternion, single=True)
        self._move_checked(np.array([s], dtype=np.int64), pose)

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
        st = self._store
        slots = self._registry.slots_of(ids)
        n = len(slots)
        if n > 1:
            # an id twice would make the result depend on which pose came last
            seen = np.zeros(st.capacity, dtype=bool)
            seen[slots] = True
            if np.count_nonzero(seen) != n:
                twice = int(np.flatnonzero(np.bincount(slots) > 1)[0])
                raise InvalidArgumentError(f"move_many: id {st.ids[twice]!r} is given more than once")
        if n and np.any(st.kind[slots] == Kind.HALFSPACE):
            bad = st.ids[slots[st.kind[slots] == Kind.HALFSPACE][0]]
            raise InvalidPoseError(f"body {bad!r} is a half-plane/plane, which has no pose and cannot move")
        self._move_checked(slots, check_pose_arrays(self.dim, n, positions, angles, quaternions))

    def _move_checked(self, slots: NDArray[np.int64], pose: tuple[Any, Any, Any]) -> None:
        self._store.set_poses(slots, *pose)
        self._store.moved[slots] = True

    # -- changes in place ---------------------------------------------------------------
    #
    # A body keeps its id and serial through these, so a pair that touches
    # before and after a change is neither ended nor begun by it. Each change
    # marks the body as moved (its pairs go through the narrowphase again) and
    # as rebox'd (its broadphase pairs are asked for again on the next step).

    def data(self, body_id: Any) -> Any:
        """The data given with the body (``add(..., data=...)`` or :meth:`set_data`), untouched; None if none.

        Examples
        --------
        >>> from collideworld import Circle, World
        >>> w = World(dim=2)
        >>> unit = {"hp": 10}
        >>> w.add(Circle(1.0), id="orc", data=unit)
        'orc'
        >>> w.data("orc") is unit
        True
        """
        return self._store.data[self._registry.slot(body_id)]

    def set_data(self, body_id: Any, data: Any) -> None:
        """Replace the data kept with a body.

        Examples
        --------
        >>> from collideworld import Circle, World
        >>> w = World(dim=2)
        >>> w.add(Circle(1.0), id="orc")
        'orc'
        >>> w.set_data("orc", [1, 2]); w.data("orc")
        [1, 2]
        """
        self._store.data[self._registry.slot(body_id)] = data

    def _number_parts(self, slots: NDArray[np.int64], fresh: bool = True) -> None:
        """Serials and metadata for the part slots of the compounds among ``slots``.

        Each part slot has a serial of its own, so each pair of parts has a
        pair key of its own (contacts and events are per part pair). Bodies
        just added (``fresh``) are renumbered so that each compound's parts
        follow it: body, its parts, next body; a contact row's ``a`` is then
        the body added first, as for simple bodies. A compound given to a
        body by :meth:`set_shape` has its parts numbered after every body
        added so far, so in its pairs with those it counts as added then.
        """
        st = self._store
        reg = self._registry
        counts = st.n_parts[slots]
        if not counts.any():
            st.sync_parts(slots)
            return
        if fresh:
            sizes = 1 + counts
            base = int(st.serial[slots].min())
            st.serial[slots] = base + np.cumsum(sizes) - sizes
            reg.next_serial = base + int(sizes.sum())
        comp = slots[counts > 0]
        row, parts = st.compound_parts(comp)
        if fresh:
            st.serial[parts] = st.serial[comp][row] + 1 + st.part[parts]
        else:
            st.serial[parts] = reg.next_serial + np.arange(len(parts))
            reg.next_serial += len(parts)
        st.sync_parts(comp)

    def _rebox(self, s: int) -> None:
        """After a change in place: refit the body's box in the broadphase, and test its pairs again."""
        st = self._store
        st.moved[s] = True
        self._changed_in_place.add(s)
        if st.kind[s] == Kind.HALFSPACE:
            self._bp.update_halfspaces([s], st.plane_normal[s][None], st.plane_offset[s:s + 1])
            return
        slots = np.array([s], dtype=np.int64)
        lo, hi = set_fat_bounds(st, slots, self.fat_margin)
        self._bp.update_many(slots, lo, hi)

    def set_static(self, body_id: Any, static: bool) -> None:
        """Make a body static or dynamic in place. Half-planes and planes are always static.

        Examples
        --------
        Two static bodies are never in contact:

        >>> from collideworld import Circle, World
        >>> w = World(dim=2)
        >>> w.add(Circle(1.0), id="a", static=True), w.add(Circle(1.0), position=(1, 0), id="b")
        ('a', 'b')
        >>> w.step().pairs()
        {('a', 'b')}
        >>> w.set_static("b", True)
        >>> c = w.step(); c.pairs(), list(c.ended)
        (set(), [('a', 'b')])
        """
        s = self._registry.slot(body_id)
        if not isinstance(static, (bool, np.bool_)):
            raise InvalidArgumentError(f"static must be a bool, got {static!r}")
        st = self._store
        if st.kind[s] == Kind.HALFSPACE:
            if not static:
                raise InvalidArgumentError(f"body {body_id!r} is a half-plane/plane, which is always static")
            return
        if bool(st.static[s]) == bool(static):
            return
        st.static[s] = bool(static)
        slots = np.array([s], dtype=np.int64)
        # the broadphase keeps the static flag of each box: take it out and put it back
        self._bp.remove_many(slots)
        lo, hi = set_fat_bounds(st, slots, self.fat_margin)
        self._bp.insert_many(slots, lo, hi, st.static[slots])
        st.moved[s] = True
        self._changed_in_place.add(s)

    def set_filter(self, body_id: Any, *, category: int | None = None, mask: int | None = None) -> None:
        """Change a body's filtering bits in place (those not given keep their value).

        Examples
        --------
        >>> from collideworld import Circle, World
        >>> w = World(dim=2)
        >>> w.add(Circle(1.0), id="a"), w.add(Circle(1.0), position=(1, 0), id="b")
        ('a', 'b')
        >>> w.set_filter("b", mask=0)
        >>> w.step().pairs()
        set()
        """
        s = self._registry.slot(body_id)
        cat = None if category is None else check_bits(category, "category")
        msk = None if mask is None else check_bits(mask, "mask")
        st = self._store
        if cat is not None:
            st.category[s] = cat
        if msk is not None:
            st.mask[s] = msk
        st.sync_parts(np.array([s], dtype=np.int64))
        self._pairs.forget_layout()
        st.moved[s] = True
        self._changed_in_place.add(s)

    def set_shape(self, body_id: Any, shape: Shape) -> None:
        """Give a body a new shape in place, keeping its id, pose and flags.

        A finite body takes a finite shape; a half-plane or plane takes a
        half-plane or plane (that moves it: see also :meth:`move`'s
        ``normal`` and ``offset``).

        Examples
        --------
        >>> from collideworld import Box, Circle, World
        >>> w = World(dim=2)
        >>> w.add(Circle(1.0), id="a"), w.add(Circle(1.0), position=(3, 0), id="b")
        ('a', 'b')
        >>> w.set_shape("a", Box((2.5, 1.0)))
        >>> w.step().pairs()
        {('a', 'b')}
        """
        s = self._registry.slot(body_id)
        shape = self._check_shape(shape)
        st = self._store
        old = st.shapes[s]
        assert old is not None
        if old.is_infinite != shape.is_infinite:
            raise InvalidShapeError(f"body {body_id!r} is a {old.kind}; a {shape.kind} cannot replace it in place "
                                    f"(remove the body and add a new one)")
        if split_parts(shape):
            self._registry.check_room(split_parts(shape))
        slots = np.array([s], dtype=np.int64)
        had_parts = bool(st.n_parts[s])
        st.set_shapes(slots, [shape])
        if st.n_parts[s]:
            self._number_parts(slots, fresh=False)
        elif had_parts:
            # the old parts' slots are gone: spend a serial so that the pair cache
            # rebuilds its candidates (and ends the old parts' contacts) instead of patching
            self._registry.next_serial += 1
        if not shape.is_infinite:
            st.set_poses(slots, None)  # refresh derived vertices of the new shape at the kept pose
        self._rebox(s)

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
        id_list = id_sequence(ids, "ids")
        slots = self._registry.slots_of(id_list)
        if len(np.unique(slots)) != len(slots):
            raise InvalidArgumentError(f"remove_many: an id is given twice in {list(id_list)!r}")
        if not len(slots):
            return
        self._bp.remove_many(slots)
        self._registry.unregister(slots)
        self._store.release(slots)
        self._changed_in_place.difference_update(slots.tolist())

    def compact(self) -> None:
        """Give back the capacity of removed bodies: renumber the live ones into the lowest slots.

        A world's arrays grow with the most bodies it ever held; a world
        emptied after holding many would otherwise keep paying for that
        capacity in every step. :meth:`step` calls this by itself when the
        capacity is at least :attr:`COMPACT_MIN_CAPACITY` and four times the
        live bodies, so the cost (O(n) plus one broadphase rebuild) is
        amortised over the removals that made room. Answers do not change:
        contacts are keyed and ordered by add order, never by slot.

        Examples
        --------
        >>> import numpy as np
        >>> from collideworld import Circle, World
        >>> w = World(dim=2)
        >>> ids = w.add_many(Circle(0.1), np.random.default_rng(0).uniform(0, 100, (5000, 2)))
        >>> w.remove_many(ids[1:])
        >>> w.compact()                  # 5,016 slots down to 16
        >>> w.ids(), w.body(0).position.round(6).tolist()
        ([0], [63.696169, 26.978671])
        """
        st = self._store
        live = st.body_slots()
        self._bp.remove_many(live)
        new_slot = st.compact()
        self._registry.renumber(new_slot)
        self._pairs.renumber(new_slot)
        self._changed_in_place = {int(new_slot[s]) for s in self._changed_in_place}
        now = np.sort(new_slot[live])
        planes = now[st.kind[now] == Kind.HALFSPACE]
        if len(planes):
            self._bp.insert_halfspaces(planes, st.plane_normal[planes], st.plane_offset[planes])
        finite = now[st.kind[now] != Kind.HALFSPACE]
        if len(finite):
            self._bp.insert_many(finite, st.fat_lo[finite], st.fat_hi[finite], st.static[finite])

    # -- stepping ----------------------------------------------------------------------

    def step(self) -> Contacts:
        """Find every pair in contact now, with normals, depths and events.

        Pairs whose two bodies did not move since the last step keep last
        step's narrowphase result without being tested again.

        Returns
        -------
        Contacts
            Sorted by (first-added body, second-added body); with compounds,
            by (first-added body, its part, second-added body, its part).

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
        if self._await_compiled and compiled_ready():
            self._switch_to_compiled()
        st = self._store
        if st.capacity >= self.COMPACT_MIN_CAPACITY and 4 * (len(self) + st.n_part_slots) <= st.capacity:
            self.compact()
        moved, changed = refresh_moved(st, self._bp, self.fat_margin, self.backend)
        if getattr(self, "_retest_all", False):
            # The first step on the compiled kernels tests every pair again, as if every body
            # had moved: an answer kept from the numpy kernels may differ from the compiled
            # one by an ulp (and a hull pair's contact points by a point), and from this step
            # on the world answers exactly as one on the compiled kernels throughout.
            self._retest_all = False
            moved = st.body_slots()
        if self._changed_in_place:
            changed = np.union1d(changed, np.fromiter(self._changed_in_place, dtype=np.int64))
            self._changed_in_place.clear()
        contacts = self._pairs.step(moved, changed)
        self._index.follow_step()  # the queries' grid rides on the step: the next query finds it ready
        return contacts

    def _switch_to_compiled(self) -> None:
        """From the numpy kernels to the compiled ones (``backend="auto"``, between two steps).

        The parts keep their state (boxes, candidate pairs, last contacts),
        which both backends keep alike; only the kernels they call change.
        The queries' grid, whose compiled form is laid out differently, is
        built again on the next query.
        """
        self._await_compiled = False
        self._retest_all = True
        self.backend = "compiled"
        self._store.backend = "compiled"
        inner = self._bp.inner
        for sweep in (inner, getattr(inner, "_all", None), getattr(inner, "_sap", None)):
            if isinstance(sweep, (BatchedSweep, SweepAndPrune)):
                sweep.backend = "compiled"
        self._pairs.use_backend("compiled")
        self._index = QueryIndex(self._store, "compiled")
        note_switch("a World")

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
        return self._pairs.pairs()

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
        return self._pairs.last

    # -- queries -------------------------------------------------------------------------
    #
    # Every query goes through self._index (queries.QueryIndex): a grid over the
    # bodies' boxes, rebuilt on the first query after a body changed, so a
    # query touches only the bodies near it.

    def _batch_positions(self, value: Any, what: str) -> NDArray[np.float64]:
        arr = as_array(value, what)
        if arr.ndim != 2 or arr.shape[1] != self.dim:
            raise InvalidPoseError(f"{what} must have shape (n, {self.dim}), got shape {arr.shape}")
        return check_positions(value, arr.shape[0], self.dim, what)

    def _point_array(self, value: Any, what: str) -> NDArray[np.float64]:
        """A checked position (D,): common forms read directly, anything else by :func:`check_position`."""
        plain = plain_position(value, self.dim)
        return np.array(plain) if plain is not None else check_position(value, self.dim, what)

    def _filters(self, category: Any, mask: Any) -> tuple[int, int]:
        if type(category) is int and type(mask) is int and 0 <= category <= _U32 and 0 <= mask <= _U32:
            return category, mask  # the common case, without the checks' calls
        return check_bits(category, "category"), check_bits(mask, "mask")

    def _placed(self, shape: Any, pos: Any, ang: Any, quat: Any, n: int
                ) -> tuple[Shape, NDArray[np.float64], Any, Any]:
        """A checked query shape and its poses as arrays (n, ...), defaults filled in."""
        shape = self._check_shape(shape)
        if shape.is_infinite and (pos is not None or ang is not None or quat is not None):
            raise InvalidPoseError(f"a {shape.kind} has no pose")
        pos = np.zeros((n, self.dim)) if pos is None else pos
        if self.dim == 2:
            ang = np.zeros(n) if ang is None else ang
        else:
            quat = np.tile(_IDENTITY_Q, (n, 1)) if quat is None else quat
        return shape, pos, ang, quat

    def _shape_hits(self, shape: Shape, pos: NDArray[np.float64], ang: Any, quat: Any, cat: int,
                    msk: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        st = self._store
        if isinstance(shape, Compound):
            return self._compound_hits(shape, pos, ang, quat, cat, msk)
        if self._index.backend == "compiled" and not shape.is_infinite:
            found = shape_hits(st, self._index, shape, pos, ang, quat, cat, msk)
            if found is not None:
                return found
        probe = shape_probes(st, shape, pos, ang, quat, self._index.probe)
        if len(pos) <= 4:
            self._index.probe = probe
        try:
            return overlapping(st, self._index, probe, len(pos), cat, msk, self.backend)
        finally:
            release_probes(probe)

    def _compound_hits(self, shape: Compound, pos: NDArray[np.float64], ang: Any, quat: Any, cat: int,
                       msk: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """:meth:`_shape_hits` of a compound probe: the union of its parts' hits, each part at its composed pose."""
        rows, slots = [], []
        n = len(pos)
        for part, local_pos, local_rot in shape.parts:
            lp = np.asarray(local_pos, dtype=np.float64)
            if self.dim == 2:
                a = np.broadcast_to(np.asarray(ang, dtype=np.float64), (n,))
                rot = rotation_matrix_2d(a)
                p_ang, p_quat = a + local_rot, None
            else:
                q = np.broadcast_to(np.asarray(quat, dtype=np.float64), (n, 4))
                rot = rotation_matrix_3d(q)
                p_ang, p_quat = None, quat_product(q, np.tile(np.asarray(local_rot), (n, 1)))
            r, s = self._shape_hits(part, pos + np.einsum("nij,j->ni", rot, lp), p_ang, p_quat, cat, msk)
            rows.append(r)
            slots.append(s)
        r, s = np.concatenate(rows), np.concatenate(slots)
        key = np.unique(np.stack([r, self._store.serial[s], s], axis=1), axis=0)
        return key[:, 0], key[:, 2]

    def query_shape(self, shape: Shape, position: ArrayLike | None = None, angle: float | None = None,
                    quaternion: ArrayLike | None = None, *, category: int = _U32, mask: int = _U32) -> list[Any]:
        """Ids of the bodies a shape placed at a pose would touch (exact), in add order.

        The shape is not added to the world. This is the placement test
        ("can this building go here?"): an empty list means the spot is free.
        ``category``/``mask`` filter like a body's, both ways. Only the bodies
        near the shape are tested (see :meth:`query_shapes` for many
        placements at once).

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
        xy = plain_position(position, 2) if self.dim == 2 and quaternion is None else None
        if xy is not None and (angle is None or (type(angle) in _FLOATS and math.isfinite(angle))):
            # the common 2D call, read without the general checks (same arrays as they give)
            pose: tuple[Any, Any, Any] = (np.array([xy]), None if angle is None else np.array([float(angle)]), None)
        else:
            pose = check_pose_arrays(self.dim, 1, position, angle, quaternion, single=True)
        shape, pos, ang, quat = self._placed(shape, *pose, 1)
        cat, msk = self._filters(category, mask)
        _, slots = self._shape_hits(shape, pos, ang, quat, cat, msk)
        ids: list[Any] = self._store.ids[slots].tolist()
        return ids

    def query_shapes(self, shape: Shape, positions: ArrayLike, angles: ArrayLike | None = None,
                     quaternions: ArrayLike | None = None, *, category: int = _U32,
                     mask: int = _U32) -> tuple[NDArray[np.int64], NDArray[Any]]:
        """One shape at many placements: which bodies each placement would touch.

        Parameters
        ----------
        shape : Shape
            A finite shape of the world's dimension.
        positions : array_like, shape (m, D)
        angles : array_like, shape (m,), optional
            2D; default 0.
        quaternions : array_like, shape (m, 4) or (m, 3, 3), optional
            3D; default identity.
        category, mask : int
            Filter like a body's, both ways.

        Returns
        -------
        placement : ndarray of int64, shape (K,)
            Index of the placement, ascending.
        ids : ndarray of object, shape (K,)
            The body it touches; for one placement in add order. A placement
            that touches nothing does not appear.

        Notes
        -----
        After ``collideworld.set_threads(n)``, a batch of 2,048 or more on the
        compiled backend is split over up to ``n`` threads: the same
        answers, in the same order.

        Examples
        --------
        Where can a 1x1 building go along a row of candidate spots?

        >>> from collideworld import Box, World
        >>> w = World(dim=2)
        >>> w.add(Box((1.0, 1.0)), position=(0, 0), id="hall")
        'hall'
        >>> spot, ids = w.query_shapes(Box((0.5, 0.5)), [[1.0, 0], [2.0, 0], [-1.5, 0]])
        >>> spot.tolist(), ids.tolist()
        ([0, 2], ['hall', 'hall'])
        """
        shape = self._check_shape(shape)
        if shape.is_infinite:
            raise InvalidShapeError(f"query_shapes places a finite shape, got a {shape.kind} (use query_shape)")
        pos = self._batch_positions(positions, "positions")
        pose = check_pose_arrays(self.dim, len(pos), pos, angles, quaternions)
        shape, pos, ang, quat = self._placed(shape, *pose, len(pos))
        cat, msk = self._filters(category, mask)
        if not len(pos):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object)
        rows, slots = self._shape_hits(shape, pos, ang, quat, cat, msk)
        return rows, self._store.ids[slots]

    def _box_hits(self, center: NDArray[np.float64], half: NDArray[np.float64], ball: bool, cat: int,
                  msk: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        if self._index.backend == "compiled":
            return box_hits(self._store, self._index, center, half, ball, cat, msk)
        # the probes' boxes, widened by the touching tolerance like a body's tight box
        tol = touch_tolerance(np.abs(center).max(axis=1) + half.max(axis=1))[:, None]

        def make() -> BodyStore:
            probe = box_probes(self.dim, center, half, ball, self._store, self._index.probe)
            if len(center) <= 4:
                self._index.probe = probe
            return probe

        return overlapping(self._store, self._index, make, len(center), cat, msk, self.backend,
                           bounds=(center - half - tol, center + half + tol))

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
        if self._index.backend == "compiled":
            xyz = plain_position(point, self.dim) or tuple(check_position(point, self.dim, "point").tolist())
            if type(category) is int and type(mask) is int and category == _U32 and mask == _U32:
                return point_ids(self._store, self._index, xyz, _ZEROS3, True, _U32, _U32)  # no filter: no checks
            cat, msk = self._filters(category, mask)
            return point_ids(self._store, self._index, xyz, _ZEROS3, True, cat, msk)
        p = check_position(point, self.dim, "point")
        cat, msk = self._filters(category, mask)
        _, slots = self._box_hits(p[None], np.zeros((1, self.dim)), True, cat, msk)
        ids: list[Any] = self._store.ids[slots].tolist()
        return ids

    def query_points(self, points: ArrayLike, *, category: int = _U32,
                     mask: int = _U32) -> tuple[NDArray[np.int64], NDArray[Any]]:
        """Which bodies contain each of many points (boundary included).

        Parameters
        ----------
        points : array_like, shape (m, D)
        category, mask : int

        Returns
        -------
        point : ndarray of int64, shape (K,)
            Index of the point, ascending.
        ids : ndarray of object, shape (K,)
            A body containing it; for one point in add order.

        Notes
        -----
        After ``collideworld.set_threads(n)``, a batch of 2,048 or more on the
        compiled backend is split over up to ``n`` threads: the same
        answers, in the same order.

        Examples
        --------
        >>> from collideworld import Box, Circle, World
        >>> w = World(dim=2)
        >>> w.add(Circle(1.0), id="disc"), w.add(Box((1.0, 1.0)), position=(1, 0), id="box")
        ('disc', 'box')
        >>> point, ids = w.query_points([[1.0, 0.0], [5.0, 5.0], [2.0, 1.0]])
        >>> point.tolist(), ids.tolist()
        ([0, 0, 2], ['disc', 'box', 'box'])
        """
        p = self._batch_positions(points, "points")
        cat, msk = self._filters(category, mask)
        rows, slots = self._box_hits(p, np.zeros_like(p), True, cat, msk)
        return rows, self._store.ids[slots]

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
        if self._index.backend == "compiled":
            # Python floats throughout (a handful of numpy calls would cost more than the query)
            dim = self.dim
            a = plain_position(lo, dim) or tuple(check_position(lo, dim, "lo").tolist())
            b = plain_position(hi, dim) or tuple(check_position(hi, dim, "hi").tolist())
            if a[0] > b[0] or a[1] > b[1] or a[-1] > b[-1]:
                raise InvalidArgumentError(f"query_aabb needs lo <= hi on every axis, got lo={list(a)}, hi={list(b)}")
            cat, msk = self._filters(category, mask)
            # the numpy path's 0.5 * (lo + hi) and 0.5 * (hi - lo), per coordinate: the same floats
            # (in 2D the last coordinate repeats the second: the kernel does not read a third)
            center = (0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0.5 * (a[-1] + b[-1]))
            half = (0.5 * (b[0] - a[0]), 0.5 * (b[1] - a[1]), 0.5 * (b[-1] - a[-1]))
            return point_ids(self._store, self._index, center, half, False, cat, msk)
        lo_ = self._point_array(lo, "lo")
        hi_ = self._point_array(hi, "hi")
        if np.any(lo_ > hi_):
            raise InvalidArgumentError(
                f"query_aabb needs lo <= hi on every axis, got lo={lo_.tolist()}, hi={hi_.tolist()}")
        cat, msk = self._filters(category, mask)
        _, slots = self._box_hits((0.5 * (lo_ + hi_))[None], (0.5 * (hi_ - lo_))[None], False, cat, msk)
        ids: list[Any] = self._store.ids[slots].tolist()
        return ids

    def raycast(self, origin: ArrayLike, direction: ArrayLike, max_distance: float = math.inf, *,
                all_hits: bool = True, category: int = _U32, mask: int = _U32) -> list[RayHit]:
        """Bodies hit by a ray, nearest first.

        Parameters
        ----------
        origin : array_like, shape (D,)
        direction : array_like, shape (D,)
            Non-zero; normalised here, so distances are in world units.
        max_distance : float
            Hits farther than this are ignored (``inf`` by default).
        all_hits : bool
            True (default): every hit. False: the nearest only (ties: the
            body added first), a list of at most one; the compiled backend
            stops walking the grid once nothing nearer can be left.

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
        >>> [h.id for h in w.raycast((0, 0), (1, 0), all_hits=False)]
        ['disc']
        """
        dim = self.dim
        o = plain_position(origin, dim) or tuple(check_position(origin, dim, "origin").tolist())
        dv = plain_position(direction, dim) or tuple(check_position(direction, dim, "direction").tolist())
        # Python floats, summed in axis order: the same unit direction on both backends
        length = math.sqrt(dv[0] * dv[0] + dv[1] * dv[1] + (dv[2] * dv[2] if dim == 3 else 0.0))
        if not length > 0:
            raise InvalidArgumentError(f"direction must be non-zero, got {list(dv)}")
        unit = (dv[0] / length, dv[1] / length) if dim == 2 else (dv[0] / length, dv[1] / length, dv[2] / length)
        limit = (max_distance if type(max_distance) is float and max_distance >= 0.0
                 else check_max_distance(max_distance))
        if type(all_hits) is not bool:
            if not isinstance(all_hits, np.bool_):
                raise InvalidArgumentError(f"all_hits must be True or False, got {all_hits!r}")
            all_hits = bool(all_hits)
        first = not all_hits
        if type(category) is int and type(mask) is int and category == _U32 and mask == _U32:
            return ray_hits(self._store, self._index, o, unit, limit, _U32, _U32, first)  # no filter: no checks
        cat, msk = self._filters(category, mask)
        return ray_hits(self._store, self._index, o, unit, limit, cat, msk, first)

    def raycast_many(self, origins: ArrayLike, directions: ArrayLike, max_distance: float | ArrayLike = math.inf, *,
                     all_hits: bool = False, category: int = _U32, mask: int = _U32) -> RayHitArrays:
        """Many rays at once: the first hit of each (or every hit), as arrays.

        Parameters
        ----------
        origins : array_like, shape (m, D)
        directions : array_like, shape (m, D)
            Non-zero; normalised here, so distances are in world units.
        max_distance : float or array_like, shape (m,)
            One limit for every ray (``inf`` by default), or one per ray;
            each ``>= 0`` (``inf`` allowed, NaN not).
        all_hits : bool
            False (default): at most one row per ray, its nearest hit (ties:
            the body added first). True: every hit, like :meth:`raycast`.

        Returns
        -------
        RayHitArrays
            ``(ray, id, distance, point, normal)``, one row per hit, sorted
            by ray, then distance, then add order. Distances and normals
            agree with :meth:`raycast` to rounding (each ray is cast in its
            own frame).

        Notes
        -----
        After ``collideworld.set_threads(n)``, a batch of 2,048 or more on the
        compiled backend is split over up to ``n`` threads (first hits;
        every hit takes one thread): the same
        answers, in the same order.

        Examples
        --------
        >>> from collideworld import Box, Circle, World
        >>> w = World(dim=2)
        >>> w.add(Box((1.0, 1.0)), position=(10, 0), id="box"), w.add(Circle(1.0), position=(5, 0), id="disc")
        ('box', 'disc')
        >>> h = w.raycast_many([[0, 0], [10, 5]], [[1, 0], [0, -1]])
        >>> h.ray.tolist(), h.id.tolist(), h.distance.tolist(), h.normal.tolist()
        ([0, 1], ['disc', 'box'], [4.0, 4.0], [[-1.0, 0.0], [0.0, 1.0]])
        >>> w.raycast_many([[0, 0]], [[1, 0]], all_hits=True).id.tolist()
        ['disc', 'box']
        >>> w.raycast_many([[0, 0], [0, 0]], [[1, 0], [1, 0]], [3.0, 9.0], all_hits=True).id.tolist()
        ['disc', 'box']
        """
        o = self._batch_positions(origins, "origins")
        dvec = self._batch_positions(directions, "directions")
        if len(dvec) != len(o):
            raise InvalidArgumentError(f"origins and directions must have the same length, got {len(o)} "
                                       f"and {len(dvec)}")
        length = np.sqrt(np.einsum("nd,nd->n", dvec, dvec))
        if len(length) and not np.all(length > 0):
            k = int(np.flatnonzero(~(length > 0))[0])
            raise InvalidArgumentError(f"directions must be non-zero, got directions[{k}] = {dvec[k].tolist()}")
        limit = check_max_distances(max_distance, len(o))
        if not isinstance(all_hits, (bool, np.bool_)):
            raise InvalidArgumentError(f"all_hits must be True or False, got {all_hits!r}")
        cat, msk = self._filters(category, mask)
        return ray_hits_many(self._store, self._index, o, dvec / length[:, None], limit, cat, msk, bool(all_hits))

    # -- proximity queries -----------------------------------------------------------------

    def _posed(self, shape: Any, pose: Any, what: str) -> tuple[Shape, Any, NDArray[np.float64], NDArray[np.float64]]:
        """A checked finite shape, its pose as given, and its tight box ``(lo, hi)`` (D,) each."""
        shape = self._check_shape(shape)
        if shape.is_infinite:
            raise InvalidShapeError(f"{what} takes a finite shape, got a {shape.kind}")
        pos, ang, quat = collide_pose(shape, pose, "query")
        probe = shape_probes(self._store, shape, pos[None], ang, quat)
        try:
            lo, hi = probe_bounds(probe, 1)
        finally:
            release_probes(probe)
        return shape, pose, lo[0], hi[0]

    def query_nearest(self, shape_or_point: Shape | ArrayLike, pose: Any = None, k: int = 1,
                      max_distance: float = math.inf, *, category: int = _U32, mask: int = _U32) -> list[NearHit]:
        """The ``k`` bodies nearest a point or a posed shape, nearest first (then add order).

        Parameters
        ----------
        shape_or_point : Shape or array_like, shape (D,)
            A finite shape (then ``pose`` places it) or a point.
        pose : tuple or array_like, optional
            As for :func:`~collideworld.collide`: ``(position, angle)`` /
            ``(position, quaternion)``, ``(position, None)`` or a bare
            position; default the origin. Not given for a point.
        k : int
            How many bodies, ``>= 1`` (fewer if fewer are within reach).
        max_distance : float
            Bodies farther than this are not returned.

        Returns
        -------
        list of NearHit
            ``(id, distance, point, query_point)``; ``distance`` is negative
            for a body the shape overlaps (minus the depth). Found through
            the query grid: the search box grows until it holds ``k`` bodies
            nearer than its margin, so only nearby bodies are measured.

        Examples
        --------
        >>> from collideworld import Box, Circle, World
        >>> w = World(dim=2)
        >>> w.add_many(Circle(0.5), [[3, 0], [0, 6], [-10, 0]])
        [0, 1, 2]
        >>> [(h.id, round(h.distance, 6)) for h in w.query_nearest((0.0, 0.0), k=2)]
        [(0, 2.5), (1, 5.5)]
        >>> [h.id for h in w.query_nearest(Box((1.0, 1.0)), ((0, 4), 0.0))]
        [1]
        """
        count = check_count(k, "k")
        limit = check_max_distance(max_distance)
        cat, msk = self._filters(category, mask)
        if isinstance(shape_or_point, SHAPE_TYPES):
            shape, pose, lo, hi = self._posed(shape_or_point, pose, "query_nearest")
            return nearest(self._store, self._index, shape, pose, lo, hi, count, limit, cat, msk)
        if pose is not None:
            raise InvalidPoseError(f"a point query takes no pose, got pose={pose!r}")
        p = check_position(shape_or_point, self.dim, "point")
        # a point is a ball of a radius far below any tolerance the kernels use; the
        # distances are given back from the point itself (the radius added back)
        tiny = 1e-12 * max(1.0, float(np.abs(p).max()))
        ball = Circle(tiny) if self.dim == 2 else Sphere(tiny)
        hits = nearest(self._store, self._index, ball, (tuple(p.tolist()), None), p - tiny, p + tiny, count, limit,
                       cat, msk, pad=tiny)
        return [h._replace(query_point=p.copy()) for h in hits]

    def query_within(self, shape: Shape, pose: Any, distance: float, *, category: int = _U32,
                     mask: int = _U32) -> list[NearHit]:
        """Bodies no farther than ``distance`` from a posed shape (overlapping ones included), in add order.

        Examples
        --------
        >>> from collideworld import Circle, World
        >>> w = World(dim=2)
        >>> w.add_many(Circle(0.5), [[3, 0], [0, 6]])
        [0, 1]
        >>> [(h.id, round(h.distance, 6)) for h in w.query_within(Circle(1.0), (0.0, 0.0), 2.0)]
        [(0, 1.5)]
        """
        limit = check_max_distance(distance)
        cat, msk = self._filters(category, mask)
        shape, pose, lo, hi = self._posed(shape, pose, "query_within")
        return within(self._store, self._index, shape, pose, lo, hi, limit, cat, msk)

    def cast(self, shape: Shape, start_pose: Any, end_pose: Any, *, category: int = _U32,
             mask: int = _U32) -> list[CastHit]:
        """Every body a shape moving from ``start_pose`` to ``end_pose`` hits, by time of first touch.

        Motion as in :func:`~collideworld.time_of_impact` (linear
        position, angle linear in 2D, slerp in 3D). Candidates are the bodies
        in the swept box (the path of the shape's origin, not its box's
        centre, grown by its bounding radius about that origin), each then
        given to ``time_of_impact``.

        Returns
        -------
        list of CastHit
            ``(id, t, normal, point)``, ``t`` in [0, 1], sorted by ``t`` then
            add order; the normal points from the moving shape to the body.

        Raises
        ------
        UndecidedError
            As :func:`~collideworld.time_of_impact`, when a candidate's motion
            grazes it for so many turns that the search runs out of steps
            (split the motion into shorter casts).

        Examples
        --------
        >>> from collideworld import Box, Circle, World
        >>> w = World(dim=2)
        >>> w.add(Circle(1.0), position=(5, 0), id="disc"), w.add(Box((1.0, 1.0)), position=(9, 0), id="box")
        ('disc', 'box')
        >>> [(h.id, round(h.t, 6)) for h in w.cast(Circle(0.5), (0.0, 0.0), (10.0, 0.0))]
        [('disc', 0.35), ('box', 0.75)]
        """
        cat, msk = self._filters(category, mask)
        shape, start, lo0, hi0 = self._posed(shape, start_pose, "cast")
        _, end, lo1, hi1 = self._posed(shape, end_pose, "cast")
        p0, ang0, _ = collide_pose(shape, start, "query")
        p1, ang1, _ = collide_pose(shape, end, "query")
        r = shape.bounding_radius if hasattr(shape, "bounding_radius") else 0.0
        lo, hi = swept_bounds(p0, ang0, p1, ang1, r, lo0, hi0, lo1, hi1)
        return cast_hits(self._store, self._index, shape, start, end, lo, hi, cat, msk)

    # -- pictures ------------------------------------------------------------------------

    def draw(self, ax: Any = None, **options: Any) -> Any:
        """Draw the world into matplotlib axes (needs the ``render`` extra); see :func:`collideworld.render.draw_world`.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from collideworld import Circle, World
        >>> w = World(dim=2)
        >>> w.add(Circle(1.0), id="a")
        'a'
        >>> w.draw().get_aspect()
        1.0
        """
        return _DRAWER[0](self, ax, **options)

    # -- invariants ----------------------------------------------------------------------

    def validate(self) -> None:
        """Assert every internal invariant (for tests; O(n) plus the broadphase's own check).

        Examples
        --------
        >>> from collideworld import Circle, World
        >>> w = World(dim=2)
        >>> w.add(Circle(1.0))
        0
        >>> w.validate()
        """
        st = self._store
        self._registry.validate()
        st.check_compounds()
        live = st.body_slots()
        halfspaces = live[st.kind[live] == Kind.HALFSPACE]
        assert np.all(st.static[halfspaces])
        assert self._bp.halfspace_handles() == halfspaces.tolist()
        assert len(self._bp) == len(live)
        for s in live.tolist():
            assert s in self._bp
        finite = live[st.kind[live] != Kind.HALFSPACE]
        settled = finite[~st.moved[finite]]
        if len(settled):
            lo, hi = tight_bounds(st, settled)
            assert np.all(lo >= st.fat_lo[settled]) and np.all(hi <= st.fat_hi[settled])
        # every polygon and hull in use is counted once per live body or part, and only those are kept
        rows = np.flatnonzero(st.kind >= 0)  # compounds' polygon and hull parts hold theirs too
        users = np.bincount(st.poly[rows][st.poly[rows] >= 0], minlength=len(st.parts.shape_first_part))
        st.parts._check(users)
        st.hulls._check(np.bincount(st.hull[rows][st.hull[rows] >= 0], minlength=len(st.hulls.hulls)))
        self._bp.validate()
