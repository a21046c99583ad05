"""One adapter per engine, all with the same interface.

``setup(scene)`` builds the engine's world from a :class:`workloads.Scene`;
``frame(moved, positions, rotations)`` applies one frame of motion and returns
the set of index pairs ``(i, j)``, ``i < j``, in contact.

Only the engine's own work is timed (:attr:`Engine.last_seconds`): applying
the poses, finding the pairs and whatever contact data the engine computes
with them. Turning the engine's answer into a Python set of index pairs, used
only to cross-check the engines, happens after the timer stops.

How each engine is driven (the fastest exact way we found through its Python
API; see ``benchmarks/README.md`` for the alternatives measured):

collideworld
    ``World.move_many(moved, ...)`` then ``World.step()``: broadphase,
    narrowphase with normals and depths, began/ended events.
pymunk
    Kinematic bodies, poses written for all bodies at once with
    ``pymunk.batch.set_space_bodies`` from a numpy buffer, ``space.step``, and
    the touching pairs read with ``pymunk.batch.get_space_arbiters``.
    Chipmunk runs its narrowphase (contact points, normal, distance) for a
    kinematic-kinematic pair but never solves it. ``collision_slop = 0``, and
    ``collision_persistence = 1`` so that the arbiter cache holds exactly the
    pairs that touched in this step.
shapely
    Posed geometries rebuilt for the bodies that moved (vectorised
    ``shapely.polygons`` on rotated vertex arrays), an ``STRtree`` rebuilt over
    all of them every frame, then ``tree.query(polygons,
    predicate="intersects")`` for polygon-polygon and polygon-circle candidates
    (circles enter the tree as their bounding square), refined exactly for
    circles with ``shapely.dwithin(polygon, centre, radius)``; circle-circle
    pairs come from a second tree of the circles' squares and are refined by
    centre distance.
fcl (3D only)
    ``DynamicAABBTreeCollisionManager`` over ``CollisionObject`` s whose
    transforms are set for the bodies that moved, ``manager.update()``, then
    ``manager.collide`` with fcl's ``defaultCollisionCallback``, contacts on
    (normal, depth, like collideworld) and ``num_max_contacts`` large enough
    to never stop early. Contacts name their geometries, mapped back to bodies.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray
from workloads import BOX, CAPSULE, CIRCLE, HULL, SEGMENT, SPHERE, Scene

__all__ = ["Engine", "CollideWorldEngine", "CollideWorldNumpyEngine", "PymunkEngine", "ShapelyEngine", "FclEngine",
           "ENGINES", "pairs_from_arrays"]

Pairs = set[tuple[int, int]]


def pairs_from_arrays(i: NDArray[Any], j: NDArray[Any]) -> Pairs:
    """The set of ``(min, max)`` index pairs of two parallel integer arrays."""
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    return set(zip(lo.tolist(), hi.tolist(), strict=True))


class Engine:
    """The adapter interface. Subclasses implement ``setup``, ``_advance`` and ``_pairs``."""

    name: ClassVar[str] = "?"
    dims: ClassVar[tuple[int, ...]] = (2, 3)
    #: Seconds spent in the engine during the last :meth:`frame`.
    last_seconds: float = 0.0

    def setup(self, scene: Scene) -> None:
        raise NotImplementedError

    def _advance(self, moved: NDArray[np.int64], positions: NDArray[np.float64],
                 rotations: NDArray[np.float64]) -> Any:
        """Apply the frame and find the contacts; return the engine's raw answer (timed)."""
        raise NotImplementedError

    def _pairs(self, raw: Any) -> Pairs:
        """The raw answer as index pairs (not timed)."""
        raise NotImplementedError

    def frame(self, moved: NDArray[np.int64], positions: NDArray[np.float64],
              rotations: NDArray[np.float64]) -> Pairs:
        """Apply one frame; return the pairs in contact. Sets :attr:`last_seconds`.

        Parameters
        ----------
        moved : ndarray of int64, shape (m,)
        positions : ndarray, shape (m, D)
        rotations : ndarray, shape (m,) (angles) or (m, 4) (quaternions ``[w, x, y, z]``)
        """
        t0 = time.perf_counter()
        raw = self._advance(moved, positions, rotations)
        self.last_seconds = time.perf_counter() - t0
        return self._pairs(raw)


# -- collideworld -------------------------------------------------------------------------


class CollideWorldEngine(Engine):
    """collideworld on its compiled (numba) backend: the library as users get it."""

    name = "collideworld"
    backend = "compiled"

    def __init__(self, broadphase: str | None = None) -> None:
        self.broadphase = broadphase  # None: the World's default

    def setup(self, scene: Scene) -> None:
        import collideworld as cw

        shapes: list[Any] = []
        for i in range(scene.n):
            k = int(scene.kind[i])
            if k in (CAPSULE, SEGMENT, HULL):  # the mixed scenes
                shapes.append(_cw_mixed_shape(cw, scene, i))
            elif scene.dim == 2:
                if k == CIRCLE:
                    shapes.append(cw.Circle(float(scene.radius[i])))
                elif k == BOX:
                    shapes.append(cw.Box(tuple(scene.half_extents[i].tolist())))
                else:
                    shapes.append(cw.Polygon(scene.polygons[i].tolist()))
            elif k == SPHERE:
                shapes.append(cw.Sphere(float(scene.radius[i])))
            else:
                shapes.append(cw.Box(tuple(scene.half_extents[i].tolist())))
        options = {} if self.broadphase is None else {"broadphase": self.broadphase}
        if self.backend == "compiled":
            cw.warm_up()  # compile (or load from the cache) before anything is timed
        self.world = cw.World(dim=scene.dim, backend=self.backend, **options)
        self.dim = scene.dim
        # ids are the body indices: "a is the body added first" then means a < b
        if scene.dim == 2:
            self.world.add_many(shapes, scene.positions, angles=scene.rotations, ids=list(range(scene.n)))
        else:
            self.world.add_many(shapes, scene.positions, quaternions=scene.rotations, ids=list(range(scene.n)))

    def _advance(self, moved, positions, rotations):  # type: ignore[no-untyped-def]
        if self.dim == 2:
            self.world.move_many(moved, positions, angles=rotations)
        else:
            self.world.move_many(moved, positions, quaternions=rotations)
        return self.world.step()

    def _pairs(self, raw: Any) -> Pairs:
        return pairs_from_arrays(raw.a.astype(np.int64), raw.b.astype(np.int64))


def _cw_mixed_shape(cw: Any, scene: Scene, i: int) -> Any:
    """A mixed scene's capsule, segment or hull as a collideworld shape."""
    k = int(scene.kind[i])
    if k == HULL:
        return cw.ConvexHull(scene.hulls[i].tolist())
    assert scene.half_length is not None
    h = float(scene.half_length[i])
    p0, p1 = ((-h, 0.0), (h, 0.0)) if scene.dim == 2 else ((0.0, 0.0, -h), (0.0, 0.0, h))
    return cw.Segment(p0, p1) if k == SEGMENT else cw.Capsule(p0, p1, float(scene.radius[i]))


class CollideWorldNumpyEngine(CollideWorldEngine):
    """collideworld on its numpy backend: the fallback where numba cannot be imported."""

    name = "collideworld-numpy"
    backend = "numpy"


# -- pymunk ------------------------------------------------------------------------------


class PymunkEngine(Engine):
    name = "pymunk"
    dims = (2,)

    def setup(self, scene: Scene) -> None:
        import pymunk
        import pymunk.batch as pb

        if scene.dim != 2:
            raise ValueError(f"pymunk is 2D only, got a {scene.dim}D scene")
        self._pb = pb
        space = pymunk.Space()
        # no slop: report exactly the overlapping/touching pairs
        space.collision_slop = 0.0
        # arbiters not touching this step leave the cache at once, so the cache is the pair set
        space.collision_persistence = 1
        bodies = []
        for i in range(scene.n):
            body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
            body.position = tuple(scene.positions[i].tolist())
            body.angle = float(scene.rotations[i])
            k = int(scene.kind[i])
            if k == CIRCLE:
                shape: Any = pymunk.Circle(body, float(scene.radius[i]))
            elif k in (CAPSULE, SEGMENT):
                # a pymunk Segment has a radius: it is a capsule (radius 0: a segment)
                assert scene.half_length is not None
                h = float(scene.half_length[i])
                shape = pymunk.Segment(body, (-h, 0.0), (h, 0.0), float(scene.radius[i]))
            elif k == BOX:
                hx, hy = scene.half_extents[i].tolist()
                shape = pymunk.Poly(body, [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)])
            else:
                shape = pymunk.Poly(body, [tuple(v) for v in scene.polygons[i].tolist()])
            space.add(body, shape)
            bodies.append(body)
        self.space = space
        self._bodies = bodies
        # set_space_bodies walks the bodies in the space's order: check it is ours
        order = pb.Buffer()
        pb.get_space_bodies(space, pb.BodyFields.BODY_ID, order)
        got = np.frombuffer(bytes(order.int_buf()), dtype=np.uintp)
        want = np.array([b.id for b in bodies], dtype=np.uintp)
        if not np.array_equal(got, want):
            raise RuntimeError("pymunk iterates bodies in an unexpected order; cannot batch-set poses")
        self._id_sorted = np.sort(want)
        self._index_of_sorted = np.argsort(want)
        # x, y, angle per body, in space order; pymunk reads this buffer in place
        self._pose = np.ascontiguousarray(np.column_stack([scene.positions, scene.rotations]), dtype=np.float64)
        self._set_buf = pb.Buffer()
        self._set_buf.set_float_buf(self._pose)
        self._get_buf = pb.Buffer()
        self._fields_set = pb.BodyFields.POSITION | pb.BodyFields.ANGLE
        self._fields_get = pb.ArbiterFields.BODY_A_ID | pb.ArbiterFields.BODY_B_ID

    def _advance(self, moved, positions, rotations):  # type: ignore[no-untyped-def]
        pb = self._pb
        pose = self._pose
        pose[moved, :2] = positions
        pose[moved, 2] = rotations
        pb.set_space_bodies(self.space, self._fields_set, self._set_buf)
        self.space.step(1.0 / 60.0)  # kinematic bodies with zero velocity: dt moves nothing
        self._get_buf.clear()
        pb.get_space_arbiters(self.space, self._fields_get, self._get_buf)
        return np.frombuffer(self._get_buf.int_buf(), dtype=np.uintp).copy()

    def _pairs(self, raw: Any) -> Pairs:
        ids = raw.reshape(-1, 2)
        idx = self._index_of_sorted[np.searchsorted(self._id_sorted, ids)]
        return pairs_from_arrays(idx[:, 0], idx[:, 1])


# -- shapely -----------------------------------------------------------------------------


class ShapelyEngine(Engine):
    name = "shapely"
    dims = (2,)

    def setup(self, scene: Scene) -> None:
        import shapely

        if scene.dim != 2:
            raise ValueError(f"the shapely adapter is 2D only, got a {scene.dim}D scene")
        self._shapely = shapely
        n = scene.n
        self.n = n
        self.pos = scene.positions.copy()
        self.ang = scene.rotations.copy()
        self.is_circle = scene.kind == CIRCLE
        self.circles = np.flatnonzero(self.is_circle)
        self.polys = np.flatnonzero(~self.is_circle)
        self.radius = scene.radius
        # polygon-like bodies grouped by vertex count, so each group is one array op
        local: dict[int, list[tuple[int, NDArray[np.float64]]]] = {}
        for i in self.polys.tolist():
            if scene.kind[i] == BOX:
                hx, hy = scene.half_extents[i]
                v = np.array([(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)])
            else:
                v = scene.polygons[i]
            local.setdefault(len(v), []).append((i, v))
        self._groups = [(np.array([i for i, _ in g]), np.stack([v for _, v in g])) for g in local.values()]
        # where each body sits in its group (for rebuilding only the movers)
        self._group_of = np.full(n, -1)
        self._row_of = np.full(n, -1)
        for g, (idx, _) in enumerate(self._groups):
            self._group_of[idx] = g
            self._row_of[idx] = np.arange(len(idx))
        self.geoms = np.empty(n, dtype=object)  # polygons; circles as their bounding square
        self.points = np.empty(n, dtype=object)  # circle centres
        self._rebuild(np.arange(n))

    def _rebuild(self, which: NDArray[np.int64]) -> None:
        shapely = self._shapely
        pos, ang = self.pos, self.ang
        circ = which[self.is_circle[which]]
        if len(circ):
            r = self.radius[circ]
            c = pos[circ]
            self.geoms[circ] = shapely.box(c[:, 0] - r, c[:, 1] - r, c[:, 0] + r, c[:, 1] + r)
            self.points[circ] = shapely.points(c)
        grp = self._group_of[which]
        for g, (_, local) in enumerate(self._groups):
            sel = which[grp == g]
            if not len(sel):
                continue
            v = local[self._row_of[sel]]  # (m, k, 2)
            cs, sn = np.cos(ang[sel])[:, None], np.sin(ang[sel])[:, None]
            x = cs * v[:, :, 0] - sn * v[:, :, 1] + pos[sel, 0, None]
            y = sn * v[:, :, 0] + cs * v[:, :, 1] + pos[sel, 1, None]
            self.geoms[sel] = shapely.polygons(np.stack([x, y], axis=2))

    def _advance(self, moved, positions, rotations):  # type: ignore[no-untyped-def]
        shapely = self._shapely
        self.pos[moved] = positions
        self.ang[moved] = rotations
        self._rebuild(moved)
        geoms, polys, circles = self.geoms, self.polys, self.circles
        tree = shapely.STRtree(geoms)
        # polygon against anything: exact for polygon-polygon, a bounding-square
        # prefilter for polygon-circle
        q, t = tree.query(geoms[polys], predicate="intersects")
        i = polys[q]
        t_circle = self.is_circle[t]
        keep_pp = ~t_circle & (i < t)
        pi, pj = i[keep_pp], t[keep_pp]
        ci, cj = i[t_circle], t[t_circle]
        hit = shapely.dwithin(geoms[ci], self.points[cj], self.radius[cj])
        ci, cj = ci[hit], cj[hit]
        # circle-circle: squares, then centre distance
        ctree = shapely.STRtree(geoms[circles])
        a, b = ctree.query(geoms[circles])
        a, b = circles[a], circles[b]
        keep = a < b
        a, b = a[keep], b[keep]
        d = self.pos[a] - self.pos[b]
        rr = self.radius[a] + self.radius[b]
        close = np.einsum("ij,ij->i", d, d) <= rr * rr
        return np.concatenate([pi, ci, a[close]]), np.concatenate([pj, cj, b[close]])

    def _pairs(self, raw: Any) -> Pairs:
        return pairs_from_arrays(*raw)


# -- python-fcl --------------------------------------------------------------------------


class FclEngine(Engine):
    name = "fcl"
    dims = (3,)

    def setup(self, scene: Scene) -> None:
        import fcl

        if scene.dim != 3:
            raise ValueError(f"fcl is used for 3D scenes only, got a {scene.dim}D scene")
        self._fcl = fcl
        objs = []
        index_of: dict[int, int] = {}
        self._geoms = []
        for i in range(scene.n):
            if scene.kind[i] == SPHERE:
                g: Any = fcl.Sphere(float(scene.radius[i]))
            elif scene.kind[i] in (CAPSULE, HULL):
                g = fcl_mixed_geometry(scene, i)
            else:
                g = fcl.Box(*(2.0 * scene.half_extents[i]).tolist())  # fcl boxes take full side lengths
            self._geoms.append(g)  # keep alive: contacts are matched by geometry identity
            index_of[id(g)] = i
            objs.append(fcl.CollisionObject(g, fcl.Transform(scene.rotations[i], scene.positions[i])))
        self._index_of = index_of
        self.objs = objs
        self.manager = fcl.DynamicAABBTreeCollisionManager()
        self.manager.registerObjects(objs)
        self.manager.setup()
        # a contact limit that is never reached, so the default callback never stops early
        self._max_contacts = 1 << 30

    def _advance(self, moved, positions, rotations):  # type: ignore[no-untyped-def]
        fcl = self._fcl
        objs = self.objs
        Transform = fcl.Transform
        for k, i in enumerate(moved.tolist()):
            objs[i].setTransform(Transform(rotations[k], positions[k]))
        self.manager.update()
        req = fcl.CollisionRequest(num_max_contacts=self._max_contacts, enable_contact=True)
        data = fcl.CollisionData(req, fcl.CollisionResult())
        self.manager.collide(data, fcl.defaultCollisionCallback)
        return data.result.contacts

    def _pairs(self, raw: Any) -> Pairs:
        index_of = self._index_of
        return {(min(a, b), max(a, b)) for a, b in ((index_of[id(c.o1)], index_of[id(c.o2)]) for c in raw)}


def fcl_mixed_geometry(scene: Scene, i: int) -> Any:
    """A mixed 3D scene's capsule (``fcl.Capsule``: radius and full length, along z,
    centred, as the scene's) or hull (``fcl.Convex`` over scipy's hull of the points)."""
    import fcl
    from scipy.spatial import ConvexHull as Qhull

    if scene.kind[i] == CAPSULE:
        assert scene.half_length is not None
        return fcl.Capsule(float(scene.radius[i]), 2.0 * float(scene.half_length[i]))
    points = scene.hulls[i]
    hull = Qhull(points)
    tri = hull.simplices.copy()
    # counter-clockwise seen from outside
    a, b, c = points[tri[:, 0]], points[tri[:, 1]], points[tri[:, 2]]
    inward = np.einsum("fi,fi->f", np.cross(b - a, c - a), hull.equations[:, :3]) < 0
    tri[inward] = tri[inward][:, ::-1]
    faces = np.column_stack([np.full(len(tri), 3), tri]).ravel()
    return fcl.Convex(points, len(tri), faces)


ENGINES: dict[str, type[Engine]] = {
    e.name: e for e in (CollideWorldEngine, CollideWorldNumpyEngine, PymunkEngine, ShapelyEngine, FclEngine)
}
