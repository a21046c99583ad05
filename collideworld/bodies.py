"""Body storage: the posed shapes of a world as a struct of numpy arrays.

A :class:`BodyStore` holds one row ("slot") per body: its kind, pose and the
parameters of its shape, in arrays that the narrowphase gathers from with
fancy indexing, so that a group of N pairs of one kind costs a handful of
numpy calls and no Python loop over pairs. It knows nothing of ids, filters,
events or the broadphase: the world keeps those.

Polygons are stored as convex parts in :class:`PartTable`, shared by every
body that uses the same (immutable) polygon.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from enum import IntEnum
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .geometry.aabb import aabb_ball, aabb_box, aabb_capsule, aabb_cylinder, aabb_points
from .geometry.mesh_bvh import reuse_rows
from .geometry.rotation import rotation_matrix_2d, rotation_matrix_3d
from .shapes import (
    Box,
    Capsule,
    Chain,
    Circle,
    Compound,
    Cone,
    ConvexHull,
    Cylinder,
    HalfPlane,
    HeightField,
    Plane,
    Polygon,
    Segment,
    Shape,
    Sphere,
    Triangle,
    TriangleMesh,
    mesh_triangles,
)

__all__ = ["Kind", "kind_of", "split_parts", "PartTable", "HullTable", "BodyStore"]


class Kind(IntEnum):
    """Shape kinds in the canonical pair order of the narrowphase.

    The narrowphase puts each pair in this order (half-space first, polygon
    last) and flips the normal of the pairs it swapped, so a kernel exists
    for one order only.

    Examples
    --------
    >>> [k.name for k in sorted(Kind)]  # doctest: +NORMALIZE_WHITESPACE
    ['HALFSPACE', 'BALL', 'BOX', 'POLYGON', 'CAPSULE', 'HULL', 'COMPOUND', 'CYLINDER', 'CONE',
     'MESH', 'HEIGHTFIELD', 'TRIANGLE']

    ``COMPOUND`` never reaches a kernel: a compound body's parts sit in
    slots of their own (see :class:`BodyStore`) and pairs are expanded into
    part pairs first (:meth:`BodyStore.expand_pairs`).
    """

    HALFSPACE = 0  # HalfPlane (2D) or Plane (3D)
    BALL = 1  # Circle (2D) or Sphere (3D)
    BOX = 2
    POLYGON = 3  # 2D only
    CAPSULE = 4  # Capsule or Segment (radius 0), 2D or 3D
    HULL = 5  # ConvexHull, 3D only
    COMPOUND = 6  # Compound: its parts are rows of their own
    CYLINDER = 7  # Cylinder, 3D only: radius in ``radius``, half height in ``half[2]``
    CONE = 8  # Cone, 3D only: as a cylinder
    MESH = 11  # TriangleMesh: stored as a compound of TRIANGLE part slots
    HEIGHTFIELD = 12  # HeightField: the same
    TRIANGLE = 13  # one triangle of a mesh or heightfield (a part slot)


def kind_of(shape: Shape) -> Kind:
    """The :class:`Kind` of a shape instance.

    Examples
    --------
    >>> from collideworld import Circle, Plane
    >>> kind_of(Circle(1.0)).name, kind_of(Plane((0, 0, 1), 0.0)).name
    ('BALL', 'HALFSPACE')
    """
    if isinstance(shape, (HalfPlane, Plane)):
        return Kind.HALFSPACE
    if isinstance(shape, (Circle, Sphere)):
        return Kind.BALL
    if isinstance(shape, Box):
        return Kind.BOX
    if isinstance(shape, Polygon):
        return Kind.POLYGON
    if isinstance(shape, (Capsule, Segment)):
        return Kind.CAPSULE
    if isinstance(shape, ConvexHull):
        return Kind.HULL
    if isinstance(shape, Cylinder):
        return Kind.CYLINDER
    if isinstance(shape, Cone):
        return Kind.CONE
    if isinstance(shape, Compound):
        return Kind.COMPOUND
    if isinstance(shape, TriangleMesh):
        return Kind.MESH
    if isinstance(shape, HeightField):
        return Kind.HEIGHTFIELD
    raise TypeError(f"not a collideworld shape: {shape!r}")


def split_parts(shape: Shape) -> int:
    """How many part slots a store that splits concave polygons gives ``shape`` (0: none, one row).

    A :class:`~collideworld.shapes.Compound` has one per part, a concave
    polygon one per convex piece.

    Examples
    --------
    >>> from collideworld import Circle, Polygon
    >>> split_parts(Circle(1.0)), split_parts(Polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]))
    (0, 2)
    """
    if isinstance(shape, Compound) or (isinstance(shape, Polygon) and not shape.is_convex):
        return len(shape.parts)
    if isinstance(shape, (TriangleMesh, HeightField)):
        return len(shape.triangles)
    return 0


class _NearMemo(NamedTuple):
    """One surface's last ``nearby`` call (:meth:`BodyStore._near_triangles`), by the other body's slot."""

    shape: Any  # the surface shape asked (compared by identity)
    pose: tuple[bytes, bytes]  # its position and rotation, as bytes
    backend: str
    others: NDArray[np.int64]  # slots, sorted
    lo: NDArray[np.float64]  # their boxes (in the surface's frame), row for row
    hi: NDArray[np.float64]
    counts: NDArray[np.int64]  # how many triangles each box got
    starts: NDArray[np.int64]  # where its run starts in tris
    tris: NDArray[np.int64]


def _bucket_size(k: int) -> int:
    """Vertex capacity of the bucket a k-vertex part goes to (a power of two >= 4).

    Parts are padded only to their bucket's size, so one 1000-vertex polygon
    does not make every 5-vertex polygon cost 1000 vertices.
    """
    size = 4
    while size < k:
        size *= 2
    return size


#: Vertex capacity of the posed-vertex cache: convex polygons with at most
#: this many vertices keep their world vertices per slot (see BodyStore).
SIMPLE_POLYGON_VERTICES = 8

#: What a free slot holds in the columns whose free value is not zero.
_FREE_FILL: dict[str, Any] = {"kind": -1, "poly": -1, "hull": -1, "serial": -1, "ids": None, "data": None,
                              "owner": -1, "part": -1, "parts_at": -1}


class HullTable:
    """Convex hulls' local geometry, padded to common sizes so pairs gather it with one index.

    ``verts`` (H, V, 3) pads by repeating the last vertex, ``normals`` (H, F, 3)
    and ``offsets`` (H, F) by repeating the last face, ``edges`` (H, E, 3)
    (edge vectors) and ``adjacent`` (H, E, 2, 3) (the normals of the faces
    beside each edge) with zero rows, which the kernels skip. The same
    geometry as indices, for the kernels that work per row: ``face_vertex``
    (H, F) a vertex of each face, ``edge_ends`` (H, E, 2) each edge's two
    vertices and ``edge_faces`` (H, E, 2) its two faces (padding: ``(0, 0)``,
    a zero edge). Hulls are interned by value; adding one larger than any
    before re-pads the table.

    Entries are reference-counted like :class:`PartTable`'s: :meth:`release`
    frees a hull's row when its last body (or query probe) goes, a later hull
    reuses the row, and :meth:`compact` drops free rows and shrinks the
    padding.

    Examples
    --------
    >>> import itertools
    >>> from collideworld import ConvexHull
    >>> table = HullTable()
    >>> cube = ConvexHull(list(itertools.product((-1, 1), repeat=3)))
    >>> table.intern(cube), table.intern(ConvexHull(list(itertools.product((-1, 1), repeat=3))))
    (0, 0)
    >>> table.verts.shape, table.edges.shape
    ((1, 8, 3), (1, 18, 3))
    >>> table.release(0); table.live_hulls
    1
    >>> table.release(0); table.live_hulls
    0
    """

    def __init__(self) -> None:
        self._index: dict[ConvexHull, int] = {}
        self.hulls: list[ConvexHull | None] = []
        self._refs: list[int] = []
        self._free: list[int] = []
        self.verts = np.zeros((0, 1, 3))
        self.normals = np.zeros((0, 1, 3))
        self.offsets = np.zeros((0, 1))
        self.edges = np.zeros((0, 1, 3))
        self.adjacent = np.zeros((0, 1, 2, 3))
        self.reach = np.zeros(0)
        self.face_vertex = np.zeros((0, 1), dtype=np.int64)
        self.edge_ends = np.zeros((0, 1, 2), dtype=np.int64)
        self.edge_faces = np.zeros((0, 1, 2), dtype=np.int64)

    @property
    def live_hulls(self) -> int:
        """Number of distinct hulls in use."""
        return len(self._index)

    def intern(self, hull: ConvexHull) -> int:
        """The row of ``hull``, adding it if new; counts one more user."""
        found = self._index.get(hull)
        if found is not None:
            self._refs[found] += 1
            return found
        if self._free:
            row = heapq.heappop(self._free)
            self.hulls[row] = hull
            self._refs[row] = 1
        else:
            row = len(self.hulls)
            self.hulls.append(hull)
            self._refs.append(1)
        self._index[hull] = row
        self._repad()
        return row

    def release(self, row: int) -> None:
        """One user of hull ``row`` is gone; free the row when it was the last."""
        self._refs[row] -= 1
        if self._refs[row]:
            return
        hull = self.hulls[row]
        assert hull is not None
        del self._index[hull]
        self.hulls[row] = None
        heapq.heappush(self._free, row)

    def compact(self) -> NDArray[np.int64]:
        """Drop the free rows and re-pad to the live hulls; returns ``new_row`` of every old row (-1: freed).

        Examples
        --------
        >>> import itertools
        >>> from collideworld import ConvexHull
        >>> table = HullTable()
        >>> small = ConvexHull([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)])
        >>> big = ConvexHull(list(itertools.product((-1, 1), repeat=3)))
        >>> table.intern(big), table.intern(small)
        (0, 1)
        >>> table.release(0)
        >>> table.compact().tolist(), table.verts.shape
        ([-1, 0], (1, 4, 3))
        """
        live = [i for i, h in enumerate(self.hulls) if h is not None]
        new_row = np.full(len(self.hulls), -1, dtype=np.int64)
        new_row[live] = np.arange(len(live))
        self.hulls = [self.hulls[i] for i in live]
        self._refs = [self._refs[i] for i in live]
        self._free = []
        self._index = {h: i for i, h in enumerate(self.hulls) if h is not None}
        self._repad()
        return new_row

    def _check(self, users: NDArray[np.int64]) -> None:
        """Assert the table's invariants; ``users[i]``: live bodies using hull row ``i``."""
        assert list(users) == self._refs, f"hull reference counts {self._refs} differ from users {list(users)}"
        assert sorted(self._index.values()) == [i for i, r in enumerate(self._refs) if r]
        assert sorted(self._free) == [i for i, r in enumerate(self._refs) if not r]

    def _repad(self) -> None:
        # a free row keeps a stand-in (the first live hull) so that every row has valid geometry
        live = [h for h in self.hulls if h is not None]
        if not live:
            return  # nothing uses any row: the arrays may keep their old contents
        hs = [h if h is not None else live[0] for h in self.hulls]
        nv = max(len(h.vertices) for h in hs)
        nf = max(len(h.normals) for h in hs)
        ne = max(len(h.edges) for h in hs)
        self.verts = np.stack([np.concatenate([h.vertices, np.repeat(h.vertices[-1:], nv - len(h.vertices), 0)])
                               for h in hs])
        self.normals = np.stack([np.concatenate([h.normals, np.repeat(h.normals[-1:], nf - len(h.normals), 0)])
                                 for h in hs])
        self.offsets = np.stack([np.concatenate([h.offsets, np.repeat(h.offsets[-1:], nf - len(h.offsets))])
                                 for h in hs])
        self.edges = np.stack([np.concatenate([h.vertices[h.edges[:, 1]] - h.vertices[h.edges[:, 0]],
                                               np.zeros((ne - len(h.edges), 3))]) for h in hs])
        self.adjacent = np.stack([np.concatenate([h.normals[h.edge_faces], np.zeros((ne - len(h.edges), 2, 3))])
                                  for h in hs])
        self.reach = np.array([h.bounding_radius for h in hs])
        self.face_vertex = np.stack([np.concatenate([h.faces[:, 0], np.repeat(h.faces[-1:, 0], nf - len(h.faces))])
                                     for h in hs]).astype(np.int64)
        self.edge_ends = np.stack([np.concatenate([h.edges, np.zeros((ne - len(h.edges), 2), dtype=np.int64)])
                                   for h in hs]).astype(np.int64)
        self.edge_faces = np.stack([np.concatenate([h.edge_faces, np.zeros((ne - len(h.edges), 2), dtype=np.int64)])
                                    for h in hs]).astype(np.int64)


class PartTable:
    """Convex parts of polygons in local coordinates, bucketed by vertex count.

    Each part lives in one bucket (vertex capacity 4, 8, 16, ...) as a row of
    a padded ``(rows, K, 2)`` array, padded by repeating its last vertex as
    the kernels expect. Each polygon shape gets a contiguous block of part ids:
    its convex parts, then, for a concave polygon, one extra "outline" part
    (all its vertices, used for AABBs and half-plane tests; for a convex
    polygon the outline is its single part).

    Shapes are interned by value and reference-counted: adding the same
    polygon twice reuses its parts, and :meth:`release` frees them when the
    last body (or query probe) using them goes, so a long run that keeps
    making new polygons does not grow the table. Freed blocks and bucket rows
    are reused by later shapes.

    Examples
    --------
    >>> from collideworld import Polygon
    >>> table = PartTable()
    >>> L = Polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)])   # concave: 2 parts + outline
    >>> i = table.intern(L)
    >>> first, count, outline = table.shape_arrays()
    >>> int(count[i]), int(outline[i]) == int(first[i]) + 2
    (2, True)
    >>> table.intern(L) == i            # the same polygon again: shared, now used twice
    True
    >>> table.release(i); table.release(i)
    >>> table.live_shapes
    0
    """

    def __init__(self) -> None:
        # bucket size -> its rows, (capacity, size, 2), grown by doubling; rows in use: _bucket_len
        # (one array per bucket, not one per part: an array object costs more than an 8-vertex part)
        self._buckets: dict[int, NDArray[np.float64]] = {}
        self._bucket_len: dict[int, int] = {}
        self._free_rows: dict[int, list[int]] = {}  # bucket size -> free rows
        self.part_bucket: list[int] = []
        self.part_row: list[int] = []
        self._free_blocks: dict[int, list[int]] = {}  # block length -> first part ids
        self._shape_index: dict[Polygon, int] = {}
        self._shape_of_index: list[Polygon | None] = []
        self._refs: list[int] = []
        self._free_shapes: list[int] = []
        self.shape_first_part: list[int] = []
        self.shape_part_count: list[int] = []
        self.shape_outline: list[int] = []
        # simple polygons' single part by shape index, in the (vertex, shape)
        # layout the posing arithmetic reads: per shape, not per body, so that
        # bodies cost nothing here (a quarter of the store's bytes per slot
        # when this was per slot)
        self.simple_x = np.zeros((SIMPLE_POLYGON_VERTICES, 16))
        self.simple_y = np.zeros((SIMPLE_POLYGON_VERTICES, 16))
        # how many of a simple polygon's SIMPLE_POLYGON_VERTICES columns are its own
        # vertices (the rest repeat the last): loops over vertices may stop there
        self.simple_n = np.zeros(16, dtype=np.int64)
        self._arrays_cache: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None
        self._shape_cache: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]] | None = None

    @property
    def live_shapes(self) -> int:
        """Number of distinct polygons in use."""
        return len(self._shape_index)

    def _store_part(self, pid: int, verts: NDArray[np.float64]) -> None:
        """Write part ``pid``'s padded vertices into a row of its bucket."""
        size = _bucket_size(len(verts))
        free = self._free_rows.get(size)
        if free:
            row = free.pop()
        else:
            row = self._bucket_len.get(size, 0)
            self._bucket_len[size] = row + 1
            rows = self._buckets.get(size)
            if rows is None or row == len(rows):
                grown = np.empty((max(16, 2 * row), size, 2))
                if rows is not None:
                    grown[:row] = rows
                self._buckets[size] = grown
        padded = self._buckets[size][row]
        padded[: len(verts)] = verts
        padded[len(verts):] = verts[-1]
        self.part_bucket[pid] = size
        self.part_row[pid] = row
        self._arrays_cache = None

    def intern(self, shape: Polygon) -> int:
        """Index of ``shape`` in the table, adding its parts on first sight; counts one more user."""
        idx = self._shape_index.get(shape)
        if idx is not None:
            self._refs[idx] += 1
            return idx
        pieces = [np.asarray(p, dtype=np.float64) for p in shape.parts]
        if not shape.is_convex:
            pieces.append(_outline(shape))
        blocks = self._free_blocks.get(len(pieces))
        if blocks:
            first = blocks.pop()
        else:
            first = len(self.part_bucket)
            self.part_bucket.extend([0] * len(pieces))
            self.part_row.extend([0] * len(pieces))
        for k, verts in enumerate(pieces):
            self._store_part(first + k, verts)
        outline = first if shape.is_convex else first + len(shape.parts)
        if self._free_shapes:
            idx = self._free_shapes.pop()
            self.shape_first_part[idx] = first
            self.shape_part_count[idx] = len(shape.parts)
            self.shape_outline[idx] = outline
            self._shape_of_index[idx] = shape
            self._refs[idx] = 1
        else:
            idx = len(self.shape_first_part)
            self.shape_first_part.append(first)
            self.shape_part_count.append(len(shape.parts))
            self.shape_outline.append(outline)
            self._shape_of_index.append(shape)
            self._refs.append(1)
        self._shape_index[shape] = idx
        self._shape_cache = None
        if shape.is_convex and len(pieces[0]) <= SIMPLE_POLYGON_VERTICES:
            if idx >= self.simple_x.shape[1]:
                grow = max(16, self.simple_x.shape[1])
                self.simple_x = np.concatenate([self.simple_x, np.zeros((SIMPLE_POLYGON_VERTICES, grow))], axis=1)
                self.simple_y = np.concatenate([self.simple_y, np.zeros((SIMPLE_POLYGON_VERTICES, grow))], axis=1)
                self.simple_n = np.concatenate([self.simple_n, np.zeros(grow, dtype=np.int64)])
            # padded by the last vertex, as the part buckets are
            local = pieces[0]
            k = len(local)
            self.simple_x[:k, idx], self.simple_y[:k, idx] = local[:, 0], local[:, 1]
            self.simple_x[k:, idx], self.simple_y[k:, idx] = local[-1, 0], local[-1, 1]
            self.simple_n[idx] = k
        return idx

    def reserve(self, shapes: Sequence[Polygon]) -> None:
        """Make room for the parts of ``shapes`` before they are interned one by one.

        The arrays grow by doubling as shapes come; a batch of 33,334 new
        polygons would leave 65,536 columns with half of them unused. Room
        is made for the convex polygons' parts (their one part's bucket)
        and every new polygon's ``simple_*`` column; the rest grows as usual.
        """
        fresh = [shape for shape in set(shapes) if shape not in self._shape_index]
        if len(fresh) < 16:
            return
        top = len(self.shape_first_part) + max(0, len(fresh) - len(self._free_shapes))
        have = self.simple_x.shape[1]
        if top > have:
            more = np.zeros((SIMPLE_POLYGON_VERTICES, top - have))
            self.simple_x = np.concatenate([self.simple_x, more], axis=1)
            self.simple_y = np.concatenate([self.simple_y, more], axis=1)
            self.simple_n = np.concatenate([self.simple_n, np.zeros(top - have, dtype=np.int64)])
        counts: dict[int, int] = {}
        for shape in fresh:
            if shape.is_convex:
                size = _bucket_size(len(shape.parts[0]))
                counts[size] = counts.get(size, 0) + 1
        for size, count in counts.items():
            used = self._bucket_len.get(size, 0)
            want = used + max(0, count - len(self._free_rows.get(size, [])))
            rows = self._buckets.get(size)
            if rows is None or len(rows) < want:
                grown = np.empty((want, size, 2))
                if rows is not None:
                    grown[:used] = rows[:used]
                self._buckets[size] = grown

    def release(self, idx: int) -> None:
        """One user of shape ``idx`` is gone; free its parts when it was the last."""
        self._refs[idx] -= 1
        if self._refs[idx]:
            return
        shape = self._shape_of_index[idx]
        assert shape is not None
        del self._shape_index[shape]
        self._shape_of_index[idx] = None
        first, count = self.shape_first_part[idx], self.shape_part_count[idx]
        length = count + (0 if self.shape_outline[idx] == first else 1)
        for pid in range(first, first + length):
            self._free_rows.setdefault(self.part_bucket[pid], []).append(self.part_row[pid])
        self._free_blocks.setdefault(length, []).append(first)
        self._free_shapes.append(idx)

    def _check(self, users: NDArray[np.int64]) -> None:
        """Assert the table's invariants; ``users[i]``: live bodies using shape ``i``."""
        assert list(users) == self._refs, f"reference counts {self._refs} differ from users {list(users)}"
        assert sorted(self._shape_index.values()) == [i for i, r in enumerate(self._refs) if r]
        assert sorted(self._free_shapes) == [i for i, r in enumerate(self._refs) if not r]
        for shape, i in self._shape_index.items():
            assert self._shape_of_index[i] is shape

    def bucket(self, size: int) -> NDArray[np.float64]:
        """The padded ``(rows, size, 2)`` array of one bucket (a view: read it before the table changes)."""
        return self._buckets[size][: self._bucket_len[size]]

    def part_arrays(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``(bucket_size, row)`` of every part, as arrays indexed by part id."""
        if self._arrays_cache is None:
            self._arrays_cache = (np.array(self.part_bucket, dtype=np.int64),
                                  np.array(self.part_row, dtype=np.int64))
        return self._arrays_cache

    def shape_arrays(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """``(first_part, part_count, outline_part)`` indexed by shape index."""
        if self._shape_cache is None:
            self._shape_cache = (np.array(self.shape_first_part, dtype=np.int64),
                                 np.array(self.shape_part_count, dtype=np.int64),
                                 np.array(self.shape_outline, dtype=np.int64))
        return self._shape_cache


def _pose_points_2d(rotation: NDArray[np.float64], position: NDArray[np.float64],
                    local: NDArray[np.float64]) -> NDArray[np.float64]:
    """``R @ p + t`` for (m, K, 2) local points, written out per component.

    numpy's einsum and matmul are many times slower than plain broadcasting
    on 2x2 matrices times a handful of points.
    """
    lx, ly = local[..., 0], local[..., 1]
    out = np.empty(local.shape)
    out[..., 0] = rotation[:, 0, 0, None] * lx + rotation[:, 0, 1, None] * ly + position[:, 0, None]
    out[..., 1] = rotation[:, 1, 0, None] * lx + rotation[:, 1, 1, None] * ly + position[:, 1, None]
    return out




def quat_product(p: NDArray[np.float64], q: NDArray[np.float64]) -> NDArray[np.float64]:
    """Hamilton products ``p q`` of (m, 4) quaternions ``[w, x, y, z]``: rotate by q, then by p."""
    pw, px, py, pz = p[:, 0], p[:, 1], p[:, 2], p[:, 3]
    qw, qx, qy, qz = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    return np.stack([pw * qw - px * qx - py * qy - pz * qz,
                     pw * qx + px * qw + py * qz - pz * qy,
                     pw * qy - px * qz + py * qw + pz * qx,
                     pw * qz + px * qy - py * qx + pz * qw], axis=1)


def _outline(shape: Polygon) -> NDArray[np.float64]:
    verts = np.array(shape.vertices, dtype=np.float64)
    # drop a closing vertex equal to the first, harmless otherwise
    return verts


#: the convex pieces of the concave polygons split by any store, by id (an entry keeps its polygon alive,
#: so the id is not reused while listed); shapes are immutable, so the pieces never go stale, and adding a
#: polygon again finds the same pieces (their part-table entries are shared, not made again)
_SHARED_PIECES: dict[int, tuple[Polygon, list[Polygon]]] = {}


class BodyStore:
    """Posed shapes in slots (rows of parallel arrays), grown by doubling.

    Attributes (all indexed by slot)
    --------------------------------
    kind : int8 (cap,)           :class:`Kind` code; -1 for a free slot
    position : (cap, D)          world position of the body origin
    angle : (cap,)               2D only
    quaternion : (cap, 4)        3D only, ``[w, x, y, z]``
    rotation : (cap, D, D)       local-to-world rotation matrices
    radius : (cap,)              ball radius
    half : (cap, D)              box half extents
    plane_normal : (cap, D)      half-space unit normal
    plane_offset : (cap,)        half-space offset
    poly : int64 (cap,)          polygon shape index in :attr:`parts`, else -1
    bound_radius : (cap,)        radius of a disc/ball about the origin containing the shape
    simple : bool (cap,)         convex polygon of at most :data:`SIMPLE_POLYGON_VERTICES` vertices
    world_xy : (cap, 8, 2)       simple polygons' vertices posed (padded by repeating the last
                                 one), slot-major, refreshed by :meth:`set_poses` from the part
                                 table's ``simple_x``, ``simple_y``: one polygon is two cache
                                 lines
    world_x, world_y : (8, cap)  views of ``world_xy``'s x and y in the (vertex, slot) layout
                                 (strided, not copies: the posed vertices are kept once)

    Per-body metadata of the world, in the same slots (grown with them):

    ids : object (cap,)          the body's id; None for a free slot
    serial : int64 (cap,)        insertion serial number (add order); -1 for a free slot
    static : bool (cap,)         static bodies never contact each other
    category, mask : uint32      filtering bits
    moved : bool (cap,)          posed since the last step
    fat_lo, fat_hi : (cap, D)    the fat box the broadphase holds for the body
    data : object (cap,)         the user's data, returned untouched

    Compound bodies (:class:`~collideworld.shapes.Compound`): the body's slot
    has kind ``COMPOUND``, its pose and its shape; each part has a slot of its
    own (a *part slot*), posed by the body's pose composed with the part's
    local pose whenever the body is posed, so the kernels see parts as any
    other shape. Part slots are no bodies: they are in no broadphase, the
    world's registry does not know them and :attr:`count` does not count
    them; :meth:`body_slots` lists the live slots that are bodies.

    owner : int64 (cap,)         a part slot's compound body slot; -1 for a body
    part : int64 (cap,)          a part slot's index in its compound's ``parts``; -1 for a body
    n_parts : int64 (cap,)       a compound body's number of parts; 0 otherwise
    parts_at : int64 (cap,)      where a compound's part slots start in :attr:`part_slots`; -1 otherwise

    Beside :attr:`part_slots` (one row per part slot, not per slot, so
    that bodies of other shapes pay nothing for them):

    part_local_pos : (P, D)      the part's position in its body's frame
    part_local_rot : (P,) or (P, 4)  its angle (2D) or quaternion (3D) in its body's frame

    The posed vertices of simple polygons (every convex polygon of a typical
    scene) are computed once per pose change, in the (vertex, slot) layout the
    kernels reduce over, instead of once per kind pair they appear in. Other
    polygons (concave, or with more vertices) are posed per query from
    :attr:`parts`, with the same arithmetic, so both give the same bits.

    Examples
    --------
    A 2x1 box turned a quarter turn about its centre at (3, 0) spans
    x in [2, 4] and y in [-2, 2]:

    >>> import numpy as np
    >>> from collideworld import Box
    >>> store = BodyStore(2)
    >>> slots = store.allocate(1)
    >>> store.set_shapes(slots, [Box((2.0, 1.0))])
    >>> store.set_poses(slots, np.array([[3.0, 0.0]]), np.array([np.pi / 2]))
    >>> lo, hi = store.aabbs(slots)
    >>> np.round(lo, 12).tolist(), np.round(hi, 12).tolist()
    ([[2.0, -2.0]], [[4.0, 2.0]])
    """

    kind: NDArray[np.int8]
    position: NDArray[np.float64]
    angle: NDArray[np.float64]
    quaternion: NDArray[np.float64]
    rotation: NDArray[np.float64]
    radius: NDArray[np.float64]
    half: NDArray[np.float64]
    plane_normal: NDArray[np.float64]
    plane_offset: NDArray[np.float64]
    seg0: NDArray[np.float64]
    seg1: NDArray[np.float64]
    poly: NDArray[np.int64]
    hull: NDArray[np.int64]
    tri: NDArray[np.float64]  # 3D stores only
    tri_active: NDArray[np.bool_]  # 3D stores only
    surface: NDArray[np.bool_]
    bound_radius: NDArray[np.float64]
    simple: NDArray[np.bool_]
    world_x: NDArray[np.float64]
    world_y: NDArray[np.float64]
    world_xy: NDArray[np.float64]
    ids: NDArray[np.object_]
    serial: NDArray[np.int64]
    static: NDArray[np.bool_]
    category: NDArray[np.uint32]
    mask: NDArray[np.uint32]
    moved: NDArray[np.bool_]
    fat_lo: NDArray[np.float64]
    fat_hi: NDArray[np.float64]
    data: NDArray[np.object_]
    owner: NDArray[np.int64]
    part: NDArray[np.int64]
    n_parts: NDArray[np.int64]
    parts_at: NDArray[np.int64]
    straight: NDArray[np.int8]
    chain_body: NDArray[np.bool_]
    rounding: NDArray[np.float64]
    part_local_pos: NDArray[np.float64]
    part_local_rot: NDArray[np.float64]

    #: inside :meth:`frame` (a class default: scratch stores made with ``__new__`` have no instance value)
    _in_frame = False

    def __init__(self, dim: int, capacity: int = 16, backend: str = "numpy") -> None:
        if dim not in (2, 3):
            raise ValueError(f"dim must be 2 or 3, got {dim!r}")
        self.dim = dim
        #: ``"compiled"``: :meth:`set_poses` runs its compiled twin
        #: (:mod:`collideworld.geometry.compiled.posing`); the same bits either way.
        self.backend = backend
        self.capacity = 0
        self.parts = PartTable()
        self.hulls = HullTable()
        self.shapes: list[Shape | None] = []
        self._free: list[int] = []
        self.count = 0
        #: bumped by every change of a body's geometry or of which slots are live
        #: (set_shapes, set_poses, release, compact): the query index rebuilds when it differs
        self.version = 0
        #: the change journal: the slots of every change that bumps ``version`` since :meth:`take_changes`
        #: last read it (None: more than a quarter of the store, or slots renumbered: read everything)
        self._journal: list[NDArray[np.int64]] | None = []
        self._journaled = 0
        #: part slots of every compound, each compound's contiguous from its ``parts_at``
        #: (entries of released compounds stay behind as garbage until :meth:`compact`)
        self.part_slots = np.zeros(0, dtype=np.int64)
        self.part_local_pos = np.zeros((0, dim))
        self.part_local_rot = np.zeros(0) if dim == 2 else np.zeros((0, 4))
        #: live compound bodies: every compound-only path is skipped while 0
        self.n_compounds = 0
        self.n_chains = 0  # Chain bodies: the narrowphase applies the no-snag rule only when there are some
        self._chain_grids: dict[int, tuple[Chain, Any]] = {}  # id(chain) -> (chain, grid of its segments' boxes)
        #: surface slot -> _NearMemo: the triangles each box near it was given last time (_near_triangles)
        self._near_memo: dict[int, _NearMemo] = {}
        #: inside :meth:`frame` (the pair cache's step, where no pose changes): the world rows of every
        #: capsule and hull, made on first use (:meth:`_posed_rows`) and shared by every kernel group
        self._frame_rows: dict[str, tuple[NDArray[np.int64], tuple[NDArray[Any], ...]]] = {}
        self._frame_asked: dict[str, int] = {}  # rows asked in this frame before posing all paid
        self.n_rounded = 0  # slots with a rounding radius > 0: the narrowphase grows their contacts only then
        #: live part slots (rows that are no bodies)
        self.n_part_slots = 0
        #: True: a concave polygon is stored as a compound of its convex pieces (one part slot per
        #: piece, at the body's pose), so its contacts, reuse and events are per piece, as a
        #: compound's are per part. A World's store and collide()'s set it; the one-row stores
        #: (collide_many, query probes) keep a concave polygon in one row
        self.split_concave = False
        self._alloc(max(4, capacity))

    def _note(self, slots: NDArray[np.int64]) -> None:
        """Journal a change of ``slots`` (their geometry, or whether they are live), and bump ``version``."""
        self.version += 1
        if self._in_frame:
            self._frame_rows.clear()
            self._frame_asked.clear()
        journal = self._journal
        if journal is not None:
            journal.append(np.array(slots, dtype=np.int64))  # a copy: the caller's array may change
            self._journaled += len(slots)
            if self._journaled > max(256, self.capacity // 4):
                self._journal = None  # nobody read it for long: a reader compares everything instead

    def take_changes(self) -> NDArray[np.int64] | None:
        """The slots changed since the last call (sorted, unique), and a fresh journal.

        None when the journal gave up: more than a quarter of the store (at
        least 256 slots) changed, or slots were renumbered (:meth:`compact`)
        or added (the arrays grew). The query index patches its grid from
        it in O(changed) (``queries.QueryIndex``); there is one reader.

        Examples
        --------
        >>> import numpy as np
        >>> from collideworld import Circle
        >>> store = BodyStore(2)
        >>> s = store.allocate(3)
        >>> store.set_shapes(s, [Circle(1.0)] * 3)
        >>> _ = store.take_changes()
        >>> store.set_poses(s[[2, 0]], np.zeros((2, 2)), np.zeros(2))
        >>> store.take_changes().tolist(), store.take_changes().tolist()
        ([0, 2], [])
        """
        journal = self._journal
        self._journal = []
        self._journaled = 0
        if journal is None:
            return None
        if not journal:
            return np.zeros(0, dtype=np.int64)
        out: NDArray[np.int64] = np.unique(np.concatenate(journal)) if len(journal) > 1 else np.unique(journal[0])
        return out

    def _alloc(self, capacity: int) -> None:
        d = self.dim
        old = self.capacity
        self._journal = None  # the arrays are new: readers start over

        def grow(name: str, shape: tuple[int, ...], dtype: Any, fill: Any) -> None:
            arr: NDArray[Any] = np.full((capacity,) + shape, fill, dtype=dtype)
            if old:
                arr[:old] = getattr(self, name)
            setattr(self, name, arr)

        grow("kind", (), np.int8, -1)
        grow("position", (d,), np.float64, 0.0)
        if d == 2:
            grow("angle", (), np.float64, 0.0)
        else:
            grow("quaternion", (4,), np.float64, 0.0)
        grow("rotation", (d, d), np.float64, 0.0)
        grow("radius", (), np.float64, 0.0)
        grow("half", (d,), np.float64, 0.0)
        grow("plane_normal", (d,), np.float64, 0.0)
        grow("plane_offset", (), np.float64, 0.0)
        # a capsule's (or segment's) core segment in the local frame; its radius is in ``radius``
        grow("seg0", (d,), np.float64, 0.0)
        grow("seg1", (d,), np.float64, 0.0)
        grow("poly", (), np.int64, -1)
        grow("hull", (), np.int64, -1)  # row of a ConvexHull in ``hulls``
        grow("bound_radius", (), np.float64, 0.0)
        grow("simple", (), np.bool_, False)
        # per-body metadata the world keeps beside the geometry: one place grows every column
        grow("ids", (), object, None)
        grow("serial", (), np.int64, -1)
        grow("static", (), np.bool_, False)
        grow("category", (), np.uint32, 0)
        grow("mask", (), np.uint32, 0)
        grow("moved", (), np.bool_, False)
        grow("fat_lo", (d,), np.float64, 0.0)
        grow("fat_hi", (d,), np.float64, 0.0)
        grow("data", (), object, None)  # the user's, returned untouched; never read here
        grow("owner", (), np.int64, -1)
        grow("part", (), np.int64, -1)
        grow("n_parts", (), np.int64, 0)
        grow("parts_at", (), np.int64, -1)
        # a chain's segment part: bit 0 its start, bit 1 its end continues straight into the neighbour
        grow("straight", (), np.int8, 0)
        # a rounded box, polygon or hull: its core (the kernels' shape) grown by this radius
        grow("rounding", (), np.float64, 0.0)
        grow("chain_body", (), np.bool_, False)  # a Chain's body slot (its parts are its segments)
        if d == 2:
            grow("world_xy", (SIMPLE_POLYGON_VERTICES, 2), np.float64, 0.0)
            self._plane_views()
        else:
            # a TRIANGLE part slot's vertices about its centroid (its slot's position) and its edges' no-snag flags
            grow("tri", (3, 3), np.float64, 0.0)
            grow("tri_active", (3,), np.bool_, True)
        grow("surface", (), np.bool_, False)  # a TriangleMesh or HeightField body (a compound of triangles)
        self.shapes.extend([None] * (capacity - old))
        # appending larger slots keeps a valid min-heap: every new slot exceeds every old one
        self._free.extend(range(old, capacity))
        self.capacity = capacity

    def allocate(self, n: int) -> NDArray[np.int64]:
        """Reserve ``n`` free slots (lowest first) and return them."""
        if n > len(self._free):
            self._alloc(max(2 * self.capacity, self.capacity + n))
        if n > 64:
            # many at once (a mesh's part slots): one sort, not n heap pops; a sorted list is a valid min-heap
            free = np.sort(np.array(self._free, dtype=np.int64))
            self._free = free[n:].tolist()
            self.count += n
            return free[:n]
        pop = heapq.heappop
        slots = [pop(self._free) for _ in range(n)]
        self.count += n
        return np.array(slots, dtype=np.int64)

    def release(self, slots: NDArray[np.int64]) -> None:
        """Free slots; their rows are reset so stale data cannot leak. A compound's part slots go with it."""
        self._note(slots)
        if self.n_compounds:
            comp = slots[self.kind[slots] == Kind.COMPOUND]
            if len(comp):
                parts = self.compound_parts(comp)[1]
                self.n_chains -= sum(isinstance(self.shapes[c], Chain) for c in comp.tolist())
                self.n_compounds -= len(comp)
                self.n_part_slots -= len(parts)
                self.n_parts[comp] = 0
                self.parts_at[comp] = -1
                self.count += len(parts)  # part slots are not counted; the release below uncounts them
                self.release(parts)
        self.owner[slots] = -1
        self.part[slots] = -1
        self.straight[slots] = 0
        self.chain_body[slots] = False
        self.n_rounded -= int(np.count_nonzero(self.rounding[slots] > 0))
        self.rounding[slots] = 0.0
        for shape_index in self.poly[slots].tolist():
            if shape_index >= 0:
                self.parts.release(shape_index)
        for hull_row in self.hull[slots].tolist():
            if hull_row >= 0:
                self.hulls.release(hull_row)
        self.kind[slots] = -1
        self.poly[slots] = -1
        self.hull[slots] = -1
        self.simple[slots] = False
        self.surface[slots] = False
        self.ids[slots] = None
        self.serial[slots] = -1
        self.static[slots] = False
        self.moved[slots] = False
        self.data[slots] = None
        for s in slots.tolist():
            self.shapes[s] = None
        # the free slots are a min-heap, so the lowest is taken first and slot
        # assignment is deterministic for a given sequence of calls, in O(log cap)
        # a slot (a sorted list cost O(cap) per release: a world emptied after
        # 100,000 bodies paid it on every remove)
        push = heapq.heappush
        for s in slots.tolist():
            push(self._free, s)
        self.count -= len(slots)

    def __getstate__(self) -> dict[str, Any]:
        # world_x / world_y are views of world_xy: pickled apart they would be copies that no longer follow it
        state = self.__dict__.copy()
        state.pop("world_x", None)
        state.pop("world_y", None)
        state.pop("_near_memo", None)  # a cache: made again by the next step
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._near_memo = {}
        if "world_xy" in state:
            self._plane_views()

    def _plane_views(self) -> None:
        """Point ``world_x`` / ``world_y`` at the x and y of ``world_xy``: one copy of the posed vertices."""
        self.world_x = self.world_xy[:, :, 0].T
        self.world_y = self.world_xy[:, :, 1].T

    #: Row columns of shape (cap, ...); world_x / world_y are views of world_xy.
    _COLUMNS = ("kind", "position", "angle", "quaternion", "rotation", "radius", "half", "plane_normal",
                "plane_offset", "seg0", "seg1", "poly", "hull",
                "bound_radius", "simple", "ids", "serial", "static", "category",
                "mask", "moved", "fat_lo", "fat_hi", "data", "world_xy",
                "owner", "part", "n_parts", "parts_at", "tri", "tri_active", "surface", "straight", "rounding",
                "chain_body")

    def compact(self, capacity: int | None = None) -> NDArray[np.int64]:
        """Move the live bodies to slots ``0 .. count - 1`` in add order and shrink the arrays.

        Returns ``new_slot``, of the old capacity: the new slot of every old
        slot (-1 for a free one), so that callers holding slots (the
        broadphase, the pair cache) can renumber theirs. ``capacity`` (default:
        twice the live count, at least 16) must hold the live bodies.
        """
        self.version += 1
        self._journal = None  # every slot renumbered
        live = np.flatnonzero(self.kind >= 0)
        live = live[np.argsort(self.serial[live], kind="stable")]
        n = len(live)
        cap = max(16, 2 * n) if capacity is None else capacity
        assert cap >= n
        new_slot = np.full(self.capacity, -1, dtype=np.int64)
        new_slot[live] = np.arange(n)
        for name in self._COLUMNS:
            if not hasattr(self, name):  # angle, world_xy (2D) or quaternion (3D) only
                continue
            old: NDArray[Any] = getattr(self, name)
            arr = np.empty((cap,) + old.shape[1:], dtype=old.dtype)
            arr[:n] = old[live]
            arr[n:] = _FREE_FILL.get(name, 0)
            setattr(self, name, arr)
        if self.dim == 2:
            self._plane_views()
        self.shapes = [self.shapes[s] for s in live.tolist()] + [None] * (cap - n)
        # part slots and their owners moved too: follow them
        owner = self.owner[:n]
        self.owner[:n] = np.where(owner >= 0, new_slot.take(np.maximum(owner, 0)), -1)
        if self.n_compounds:
            comp = np.flatnonzero(self.kind[:n] == Kind.COMPOUND)
            _, at = self._part_index(self.parts_at[comp], self.n_parts[comp])
            self.part_slots = new_slot.take(self.part_slots.take(at))
            self.part_local_pos = self.part_local_pos.take(at, axis=0)
            self.part_local_rot = self.part_local_rot.take(at, axis=0)
            self.parts_at[comp] = np.cumsum(self.n_parts[comp]) - self.n_parts[comp]
        else:
            self.part_slots = np.zeros(0, dtype=np.int64)
            self.part_local_pos = self.part_local_pos[:0]
            self.part_local_rot = self.part_local_rot[:0]
        # the hull table drops its free rows too (the padding may shrink with them)
        new_row = self.hulls.compact()
        used = self.hull[:n] >= 0
        self.hull[:n][used] = new_row[self.hull[:n][used]]
        self._free = list(range(n, cap))
        self.capacity = cap
        return new_slot

    def set_shapes(self, slots: NDArray[np.int64], shapes: Sequence[Shape]) -> None:
        """Write shape parameters of ``shapes`` into ``slots`` (one shape each), replacing any there."""
        self._note(slots)
        if self.dim == 2 and len(shapes) > 16:
            self.parts.reserve([shape for shape in shapes if isinstance(shape, Polygon)])
        for s, shape in zip(slots.tolist(), shapes, strict=False):
            if self.poly[s] >= 0:  # a polygon replaced in place: drop its hold on the part table
                self.parts.release(int(self.poly[s]))
                self.poly[s] = -1
            if self.hull[s] >= 0:  # the same for a hull
                self.hulls.release(int(self.hull[s]))
                self.hull[s] = -1
            if self.kind[s] == Kind.COMPOUND:  # a compound replaced in place: its part slots go
                self.n_chains -= isinstance(self.shapes[s], Chain)
                self.chain_body[s] = False
                self._drop_parts(s)
            self.surface[s] = isinstance(shape, (TriangleMesh, HeightField))
            if self.rounding[s] > 0:
                self.n_rounded -= 1
                self.rounding[s] = 0.0
            if isinstance(shape, Compound):
                self._add_parts(s, shape, shape.parts)
                continue
            if isinstance(shape, (TriangleMesh, HeightField)):
                # one part slot per triangle, posed at its centroid: the bounding-ball reject then
                # sees each triangle's own small ball, not the whole mesh's
                self._add_parts(s, shape, ())
                continue
            if isinstance(shape, Triangle):
                self.kind[s] = Kind.TRIANGLE
                self.shapes[s] = shape
                self.simple[s] = False
                self.tri[s] = shape.points
                self.tri_active[s] = shape.active
                self.bound_radius[s] = shape.bounding_radius
                continue
            if self.split_concave and isinstance(shape, Polygon) and not shape.is_convex:
                self._add_parts(s, shape, [(piece, self._origin, self._no_turn) for piece in self._pieces_of(shape)])
                continue
            self.kind[s] = kind_of(shape)
            self.shapes[s] = shape
            self.simple[s] = False
            if isinstance(shape, (Box, Polygon, ConvexHull)) and shape.radius > 0:
                self.rounding[s] = shape.radius
                self.n_rounded += 1
            if isinstance(shape, (Circle, Sphere)):
                self.radius[s] = shape.radius
                self.bound_radius[s] = shape.radius
            elif isinstance(shape, Box):
                self.half[s] = shape.half_extents
                self.bound_radius[s] = shape.bounding_radius
            elif isinstance(shape, Polygon):
                self.poly[s] = self.parts.intern(shape)
                self.bound_radius[s] = shape.bounding_radius
                # its single part is in the part table's simple_x / simple_y
                self.simple[s] = shape.is_convex and len(shape.parts[0]) <= SIMPLE_POLYGON_VERTICES
            elif isinstance(shape, ConvexHull):
                self.hull[s] = self.hulls.intern(shape)
                self.bound_radius[s] = shape.bounding_radius
            elif isinstance(shape, (Cylinder, Cone)):
                self.radius[s] = shape.radius
                self.half[s] = (shape.radius, shape.radius, shape.half_height)
                self.bound_radius[s] = shape.bounding_radius
            elif isinstance(shape, (Capsule, Segment)):
                self.seg0[s] = shape.p0
                self.seg1[s] = shape.p1
                self.radius[s] = shape.radius
                self.bound_radius[s] = shape.bounding_radius
            else:
                self.plane_normal[s] = shape.normal
                self.plane_offset[s] = shape.offset
                self.bound_radius[s] = np.inf
        if self.dim == 2:
            posed = slots[self.simple[slots]]
            if len(posed):  # keep the cache valid even before the first set_poses
                self.pose_simple(posed)

    # -- compounds -------------------------------------------------------------------

    @property
    def _origin(self) -> tuple[float, ...]:
        return (0.0,) * self.dim

    @property
    def _no_turn(self) -> Any:
        return 0.0 if self.dim == 2 else (1.0, 0.0, 0.0, 0.0)

    def _pieces_of(self, shape: Polygon) -> list[Polygon]:
        """The convex pieces of a concave polygon as polygons (vertices as :attr:`Polygon.parts` has them)."""
        # one cache for every store: collide() makes a store per call, and each piece is a validated
        # Polygon (~0.1 ms apiece), so the pieces are made once per polygon, not once per call
        entry = _SHARED_PIECES.get(id(shape))
        if entry is None or entry[0] is not shape:
            # a piece is counter-clockwise and clean, so the polygon keeps its vertices as its one part:
            # the piece's vertex k is the part's vertex k (feature ids do not change)
            entry = (shape, [Polygon(piece.tolist(), shape.radius) for piece in shape.parts])
            if len(_SHARED_PIECES) >= 4096:
                _SHARED_PIECES.clear()
            _SHARED_PIECES[id(shape)] = entry
        return entry[1]

    def _add_parts(self, s: int, shape: Compound | Polygon | TriangleMesh | HeightField,
                   shape_parts: Sequence[tuple[Any, Any, Any]]) -> None:
        """Make ``s`` a compound of ``shape_parts`` (a Compound's parts, or a concave polygon's pieces).

        The parts get slots of their own, posed by :meth:`set_poses`.
        """
        triangles: list[Any] = []
        if isinstance(shape, (TriangleMesh, HeightField)):
            # one part slot per triangle, posed at its centroid, the columns written from the mesh's arrays
            centroids, triangles[:] = mesh_triangles(shape)
            k = len(triangles)
        else:
            k = len(shape_parts)
        self.kind[s] = Kind.COMPOUND
        self.shapes[s] = shape
        self.simple[s] = False
        self.bound_radius[s] = shape.bounding_radius
        parts = self.allocate(k)
        self.count -= k  # part slots are no bodies
        if isinstance(shape, (TriangleMesh, HeightField)):
            # every part a triangle: the columns written at once, not one set_shapes row at a time
            self._note(parts)
            corners = shape.vertices[shape.triangles]
            local = corners - centroids[:, None, :]
            self.kind[parts] = Kind.TRIANGLE
            self.simple[parts] = False
            self.tri[parts] = local
            self.tri_active[parts] = shape.active
            self.bound_radius[parts] = np.sqrt(np.einsum("tvi,tvi->tv", local, local).max(axis=1))
            first = int(parts[0])
            if int(parts[-1]) - first == k - 1:  # allocate gives them sorted: consecutive slots are one slice
                self.shapes[first:first + k] = triangles
            else:
                for slot, triangle in zip(parts.tolist(), triangles, strict=True):
                    self.shapes[slot] = triangle
            local_pos = centroids
            local_rot = np.tile(np.array(self._no_turn, dtype=np.float64), (k, 1))
        else:
            split, self.split_concave = self.split_concave, False  # a compound's concave part stays one part
            try:
                self.set_shapes(parts, [p[0] for p in shape_parts])
            finally:
                self.split_concave = split
            local_pos = np.array([p[1] for p in shape_parts], dtype=np.float64).reshape(k, self.dim)
            local_rot = np.array([p[2] for p in shape_parts], dtype=np.float64).reshape(
                (k, *self.part_local_rot.shape[1:]))
        self.owner[parts] = s
        self.part[parts] = np.arange(k)
        self.n_parts[s] = k
        self.parts_at[s] = len(self.part_slots)
        self.part_slots = np.concatenate([self.part_slots, parts])
        self.part_local_pos = np.concatenate([self.part_local_pos, local_pos])
        self.part_local_rot = np.concatenate([self.part_local_rot, local_rot])
        self.n_compounds += 1
        self.n_part_slots += k
        if isinstance(shape, Chain):
            self.straight[parts] = shape.straight_ends
            self.chain_body[s] = True
            self.n_chains += 1

    def _drop_parts(self, s: int) -> None:
        """Free the part slots of compound ``s`` (its shape is being replaced)."""
        one = np.array([s], dtype=np.int64)
        parts = self.compound_parts(one)[1]
        self.n_compounds -= 1
        self.n_part_slots -= len(parts)
        self.n_parts[s] = 0
        self.parts_at[s] = -1
        self.count += len(parts)
        self.release(parts)

    def compound_parts_of(self, comp: NDArray[np.int64], at: NDArray[np.int64], counts: NDArray[np.int64]
                          ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(row into ``comp``, part slot) of every part, given where each compound's parts start and their count."""
        row, index = self._part_index(at, counts)
        return row, self.part_slots.take(index)

    @staticmethod
    def _part_index(at: NDArray[np.int64], counts: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(row into the compounds, index into :attr:`part_slots`) of every part of compounds starting at ``at``."""
        row = np.repeat(np.arange(len(at)), counts)
        child = np.arange(int(counts.sum())) - (np.cumsum(counts) - counts)[row]
        return row, at.take(row) + child

    def compound_parts(self, comp: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Part slots of compound bodies ``comp``: ``(row into comp, part slot)``, in part order.

        Examples
        --------
        >>> from collideworld import Box, Circle, Compound
        >>> store = BodyStore(2)
        >>> s = store.allocate(1)
        >>> store.set_shapes(s, [Compound([(Box((1, 1)), (0, 0)), (Circle(1.0), (2, 0))])])
        >>> row, parts = store.compound_parts(s)
        >>> row.tolist(), store.part[parts].tolist(), store.count
        ([0, 0], [0, 1], 1)
        """
        return self.compound_parts_of(comp, self.parts_at.take(comp), self.n_parts.take(comp))

    def check_compounds(self) -> None:
        """Assert the invariants of compound bodies and their part slots (for ``World.validate``)."""
        live = self.kind >= 0
        comp = np.flatnonzero(live & (self.kind == Kind.COMPOUND))
        assert len(comp) == self.n_compounds
        row, parts = self.compound_parts(comp)
        assert len(parts) == self.n_part_slots == int(np.count_nonzero(live & (self.owner >= 0)))
        assert np.all(live[parts]) and np.all(self.owner[parts] == comp[row])
        assert np.all(self.kind[parts] != Kind.COMPOUND) and np.all(self.owner[comp] == -1)
        assert np.array_equal(self.part[parts], np.arange(len(parts)) - (np.cumsum(self.n_parts[comp])
                                                                          - self.n_parts[comp])[row])
        assert all(self.ids[p] == self.ids[c] for p, c in zip(parts.tolist(), comp[row].tolist(), strict=True))

    def body_slots(self) -> NDArray[np.int64]:
        """The live slots that are bodies (part slots of compounds left out), ascending."""
        live = self.kind >= 0
        if self.n_compounds:
            live &= self.owner < 0
        return np.flatnonzero(live)

    def expand_pairs(self, a: NDArray[np.int64], b: NDArray[np.int64]
                     ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """Slot pairs with each compound replaced by its parts: ``(row, a', b')``, every part pair once.

        ``row`` is the input pair each output row comes from, in order; pairs
        of simple bodies come back as they are.

        Examples
        --------
        >>> import numpy as np
        >>> from collideworld import Circle, Compound
        >>> store = BodyStore(2)
        >>> s = store.allocate(2)
        >>> store.set_shapes(s, [Circle(1.0), Compound([(Circle(1.0), (0, 0)), (Circle(1.0), (2, 0))])])
        >>> row, a, b = store.expand_pairs(s[:1], s[1:])
        >>> row.tolist(), (a == s[0]).tolist(), store.part[b].tolist()
        ([0, 0], [True, True], [0, 1])
        """
        if not self.n_compounds:
            return np.arange(len(a)), a, b
        ca, cb = self.kind.take(a) == Kind.COMPOUND, self.kind.take(b) == Kind.COMPOUND
        if not (ca.any() or cb.any()):
            return np.arange(len(a)), a, b
        # a mesh or heightfield against a simple body: only its triangles near the body (a moving
        # surface is pruned in its own frame at its pose now; the pair cache queries its pairs again
        # whenever it moves)
        sa = self.surface.take(a) & ~cb
        sb = self.surface.take(b) & ~ca
        near = sa | sb
        if near.any():
            return self._expand_near(a, b, sa, sb)
        if self.n_chains:
            # a chain against a finite simple body: only the segments whose boxes meet the body's box
            on_a, on_b = self.chain_body.take(a), self.chain_body.take(b)
            ka, kb = self.kind.take(a), self.kind.take(b)
            pick = (on_a & ~cb & (kb != Kind.HALFSPACE)) | (on_b & ~ca & (ka != Kind.HALFSPACE))
            if pick.any():
                rest, sel = np.flatnonzero(~pick), np.flatnonzero(pick)
                r0, a0, b0 = self._expand_all(a.take(rest), b.take(rest), ca.take(rest), cb.take(rest))
                r1, a1, b1 = self._expand_chains(a.take(sel), b.take(sel), on_a.take(sel))
                row = np.concatenate([rest.take(r0), sel.take(r1)])
                pa, pb = np.concatenate([a0, a1]), np.concatenate([b0, b1])
                order = np.lexsort((self.part.take(pb), self.part.take(pa), row))  # input order, then part order
                return row.take(order), pa.take(order), pb.take(order)
        return self._expand_all(a, b, ca, cb)

    def _expand_near(self, a: NDArray[np.int64], b: NDArray[np.int64], sa: NDArray[np.bool_], sb: NDArray[np.bool_]
                     ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """:meth:`expand_pairs` where pairs ``sa | sb`` get only their surface's triangles near the other body.

        The other body's box is the union of its tight box now and its fat box:
        the pair cache keeps a pair's rows while the fat box holds the body, so
        the triangles near the fat box are the ones it can touch until then.
        A moving surface moves the query, not its tree: the box is seen in the
        surface's frame at its pose now, so its rows hold only until it moves
        (``PairCache.step`` queries a moved surface's pairs again).
        """
        near = np.flatnonzero(sa | sb)
        rest = np.flatnonzero(~(sa | sb))
        rows, outs_a, outs_b = [], [], []
        if len(rest):
            r, pa, pb = self._expand_all(a[rest], b[rest], self.kind.take(a[rest]) == Kind.COMPOUND,
                                         self.kind.take(b[rest]) == Kind.COMPOUND)
            rows.append(rest[r])
            outs_a.append(pa)
            outs_b.append(pb)
        surf = np.where(sa[near], a[near], b[near])
        other = np.where(sa[near], b[near], a[near])
        lo, hi = self.tight_boxes(other)
        lo = np.minimum(lo, self.fat_lo.take(other, axis=0))
        hi = np.maximum(hi, self.fat_hi.take(other, axis=0))
        # a relative slack: the kernels call shapes within rounding of touching touching
        pad = 1e-9 * (np.abs(lo).max(axis=1) + np.abs(hi).max(axis=1)) + 1e-300
        lo -= pad[:, None]
        hi += pad[:, None]
        for body in np.unique(surf).tolist():
            k = np.flatnonzero(surf == body)
            rot = self.rotation[body]
            # the world box in the surface's local frame, and the box around that: centre R^T (c - p),
            # half extents |R^T| h (Arvo 1990), the box of its eight corners in closed form
            centre = (0.5 * (lo[k] + hi[k]) - self.position[body]) @ rot
            half = (0.5 * (hi[k] - lo[k])) @ np.abs(rot)
            # rounding in that sum: widened by the same relative slack as the world box
            half += 1e-9 * (np.abs(centre).max(axis=1) + half.max(axis=1))[:, None]
            q, tri = self._near_triangles(body, other[k], centre - half, centre + half)
            part = self.part_slots.take(self.parts_at[body] + tri)
            rows.append(near[k[q]])
            on_a = sa[near[k[q]]]
            o = other[k[q]]
            outs_a.append(np.where(on_a, part, o))
            outs_b.append(np.where(on_a, o, part))
        row = np.concatenate(rows)
        order = np.argsort(row, kind="stable")
        return row[order], np.concatenate(outs_a)[order], np.concatenate(outs_b)[order]


    def _near_triangles(self, body: int, others: NDArray[np.int64], lo: NDArray[np.float64],
                        hi: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``shapes[body].nearby(lo, hi)``: the (box, triangle) rows, with last call's answers reused.

        The answer depends only on the surface (shape, pose), the backend and
        the box, so a box equal bit for bit to the one the same other body
        (``others``, slots) asked for last time, the surface unchanged, gets
        last time's triangles, in the order the tree gave them. A body at
        rest in its fat box asks the same box frame after frame (the fat box,
        which holds its tight box), so a frame of many moving bodies queries
        the tree only for those whose fat box changed.
        """
        shape = self.shapes[body]
        assert isinstance(shape, (TriangleMesh, HeightField))
        pose = (self.position[body].tobytes(), self.rotation[body].tobytes())
        memo = self._near_memo.get(body)
        if memo is None or memo.shape is not shape or memo.pose != pose or memo.backend != self.backend:
            # an empty memo; its columns writable like a real memo's (numba types a read-only array apart:
            # one more compile of the compiled query)
            none = np.zeros(0, dtype=np.int64)
            memo = _NearMemo(shape, pose, self.backend, none, lo[:0], hi[:0], none, none, none)
        others = np.ascontiguousarray(others, dtype=np.int64)
        memo_args = (others, memo.others, memo.lo, memo.hi, memo.counts, memo.starts, memo.tris)
        if isinstance(shape, TriangleMesh):
            # the memo lookup, the tree walk and the gather in one call on the compiled backend
            q, tri, counts, _ = shape.bvh.query_reusing(lo, hi, *memo_args, backend=self.backend)
        else:
            backend = self.backend
            q, tri, counts, _ = reuse_rows(lambda a, b: shape.nearby(a, b, backend), lo, hi, *memo_args)
        by_other = np.argsort(others, kind="stable")
        self._near_memo[body] = _NearMemo(shape, pose, self.backend, others.take(by_other),
                                          lo.take(by_other, axis=0), hi.take(by_other, axis=0),
                                          counts.take(by_other), (np.cumsum(counts) - counts).take(by_other), tri)
        return q, tri

    def _chain_grid(self, chain: Chain) -> Any:
        """A grid over the local boxes of ``chain``'s segments (built once per chain shape)."""
        entry = self._chain_grids.get(id(chain))
        if entry is not None and entry[0] is chain:
            return entry[1]
        from .spatial.grid import GridIndex

        if len(self._chain_grids) >= 256:
            self._chain_grids.clear()
        pts = np.array(chain.points, dtype=np.float64)
        ends = np.roll(pts, -1, axis=0)[:len(chain.parts)]
        starts = pts[:len(chain.parts)]
        # the store's backend: a compiled lookup halved a 1,000-body level's frame (benchmarks/chains.py)
        grid = GridIndex(np.minimum(starts, ends), np.maximum(starts, ends), np.arange(len(chain.parts)),
                         self.backend)
        self._chain_grids[id(chain)] = (chain, grid)
        return grid

    def _expand_chains(self, a: NDArray[np.int64], b: NDArray[np.int64], chain_is_a: NDArray[np.bool_]
                       ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """``(row, a', b')`` of pairs of a chain and a finite simple body: the segments near the body.

        The body's box, widened by a touching slack and seen in the chain's
        frame, is looked up in the chain's segment grid (one batched lookup
        per chain body, not per pair), so a long chain costs the segments
        near each body, not all of them.
        """
        chain = np.where(chain_is_a, a, b)
        other = np.where(chain_is_a, b, a)
        lo, hi = self.aabbs(other)
        slack = 1e-9 * (1.0 + np.maximum(np.abs(lo).max(axis=1), np.abs(hi).max(axis=1)))[:, None]
        rows, segs = [], []
        for c in np.unique(chain).tolist():
            idx = np.flatnonzero(chain == c)
            rot = self.rotation[c]
            centre = (0.5 * (lo[idx] + hi[idx]) - self.position[c]) @ rot  # R^T (x - p), row-wise
            half = (0.5 * (hi[idx] - lo[idx]) + slack[idx]) @ np.abs(rot)
            qi, seg = self._chain_grid(self.shapes[c]).query_boxes(centre - half, centre + half)
            rows.append(idx.take(qi))
            segs.append(seg)
        row = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        seg = np.concatenate(segs) if segs else np.zeros(0, dtype=np.int64)
        part = self.part_slots.take(self.parts_at.take(chain.take(row)) + seg)
        on_a = chain_is_a.take(row)
        return row, np.where(on_a, part, a.take(row)), np.where(on_a, b.take(row), part)

    def _expand_all(self, a: NDArray[np.int64], b: NDArray[np.int64], ca: NDArray[np.bool_], cb: NDArray[np.bool_]
                    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """Every part pair of every input pair (compounds ``ca`` / ``cb``)."""
        na = np.maximum(self.n_parts.take(a), 1)
        nb = np.maximum(self.n_parts.take(b), 1)
        counts = na * nb
        row = np.repeat(np.arange(len(a)), counts)
        child = np.arange(int(counts.sum())) - (np.cumsum(counts) - counts)[row]
        nbr = nb.take(row)
        ka, kb = child // nbr, child % nbr
        ar, br = a.take(row), b.take(row)
        ca, cb = ca.take(row), cb.take(row)
        pa = np.where(ca, self.part_slots.take(np.where(ca, self.parts_at.take(ar) + ka, 0), mode="clip"), ar)
        pb = np.where(cb, self.part_slots.take(np.where(cb, self.parts_at.take(br) + kb, 0), mode="clip"), br)
        return row, pa, pb

    def spread_to_parts(self, flags: NDArray[np.bool_]) -> None:
        """Give every part slot its owner's flag in ``flags`` (indexed by slot), in place."""
        if not self.n_compounds:
            return
        # written: the part slots flagged now (cleared) and the parts of the flagged bodies (set), not
        # every part slot (a static 100,000-triangle mesh has 100,000: 0.36 ms a step, gathered each step)
        flags[flags & (self.owner >= 0)] = False
        comp = np.flatnonzero(flags & (self.n_parts > 0))
        if len(comp):
            flags[self.compound_parts(comp)[1]] = True

    def sync_parts(self, slots: NDArray[np.int64]) -> None:
        """Copy the per-body metadata (id, filters, static flag) of compounds ``slots`` to their part slots."""
        if not self.n_compounds:
            return
        comp = slots[self.kind[slots] == Kind.COMPOUND]
        if not len(comp):
            return
        row, parts = self.compound_parts(comp)
        owners = comp[row]
        for name in ("ids", "static", "category", "mask"):
            column = getattr(self, name)
            column[parts] = column[owners]

    def _pose_parts(self, comp: NDArray[np.int64]) -> None:
        """Pose the part slots of compounds ``comp`` from their bodies' poses: body pose o local pose."""
        row, index = self._part_index(self.parts_at.take(comp), self.n_parts.take(comp))
        parts = self.part_slots.take(index)
        owners = comp.take(row)
        rot = self.rotation.take(owners, axis=0)
        local = self.part_local_pos.take(index, axis=0)
        pos = self.position.take(owners, axis=0) + np.einsum("mij,mj->mi", rot, local)
        if self.dim == 2:
            self._set_rows(parts, pos, self.angle.take(owners) + self.part_local_rot.take(index))
        else:
            self._set_rows(parts, pos, quaternion=quat_product(self.quaternion.take(owners, axis=0),
                                                                self.part_local_rot.take(index, axis=0)))

    def set_poses(self, slots: NDArray[np.int64], position: NDArray[np.float64] | None,
                  angle: NDArray[np.float64] | None = None,
                  quaternion: NDArray[np.float64] | None = None) -> None:
        """Write poses (already validated) and refresh rotation matrices; compounds' parts follow."""
        self._set_rows(slots, position, angle, quaternion)
        if self.n_compounds:
            comp = slots[self.kind[slots] == Kind.COMPOUND]
            if len(comp):
                self._pose_parts(comp)

    def _set_rows(self, slots: NDArray[np.int64], position: NDArray[np.float64] | None,
                  angle: NDArray[np.float64] | None = None,
                  quaternion: NDArray[np.float64] | None = None) -> None:
        """:meth:`set_poses` for the rows ``slots`` themselves."""
        self._note(slots)
        if self.backend == "compiled":
            from .geometry.compiled.posing import set_poses_2d, set_poses_3d

            if self.dim == 2:
                set_poses_2d(slots, position, angle, self.position, self.angle, self.rotation, self.simple, self.poly,
                             self.parts.simple_x, self.parts.simple_y, self.world_xy)
            else:
                set_poses_3d(slots, position, quaternion, self.position, self.quaternion, self.rotation)
            return
        if position is not None:
            self.position[slots] = position
        if self.dim == 2:
            if angle is not None:
                self.angle[slots] = angle
                self.rotation[slots] = rotation_matrix_2d(angle)
            posed = slots[self.simple[slots]]
            if len(posed):
                self.pose_simple(posed)
        elif quaternion is not None:
            self.quaternion[slots] = quaternion
            self.rotation[slots] = rotation_matrix_3d(quaternion)

    def pose_simple(self, slots: NDArray[np.int64]) -> None:
        """Refresh the posed vertices of simple polygons (the arithmetic of :func:`_pose_points_2d`)."""
        rot = self.rotation.take(slots, axis=0)
        pos = self.position.take(slots, axis=0)
        # np.take, not [:, slots]: fancy indexing on the second axis returns a
        # Fortran-ordered array, on which every later reduction over the
        # vertex axis runs along a short contiguous axis, ~20x slower
        shape = self.poly.take(slots)
        lx, ly = np.take(self.parts.simple_x, shape, axis=1), np.take(self.parts.simple_y, shape, axis=1)
        wx = rot[:, 0, 0] * lx + rot[:, 0, 1] * ly + pos[:, 0]
        wy = rot[:, 1, 0] * lx + rot[:, 1, 1] * ly + pos[:, 1]
        self.world_xy[slots, :, 0] = wx.T
        self.world_xy[slots, :, 1] = wy.T

    # -- geometry gathered per slot -------------------------------------------------
    #
    # Gathers use ``take(..., axis=0)``: for (n, D) and (n, D, D) arrays numpy's
    # fancy indexing is an order of magnitude slower (measured with numpy 2.4:
    # 144 us against 7 us for 10,000 rows of an (n, 2) array).

    def ball_rows(self, slots: NDArray[np.int64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(position (m, D), radius (m,)) of balls ``slots``, as the ball kernels take them."""
        return self.position.take(slots, axis=0), self.radius.take(slots)

    def box_rows(self, slots: NDArray[np.int64]
                 ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """(position (m, D), rotation (m, D, D), half extents (m, D)) of boxes ``slots``."""
        return self.position.take(slots, axis=0), self.rotation.take(slots, axis=0), self.half.take(slots, axis=0)

    def capsule_rows(self, slots: NDArray[np.int64]
                     ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """(world p0 (m, D), world p1 (m, D), radius (m,)) of capsules and segments ``slots``."""
        posed = self._posed_rows("capsule", self._posed_capsules, len(slots)) if self._in_frame else None
        if posed is not None:
            row, (p0, p1) = posed
            r = row.take(slots)
            if len(r) and r.min() >= 0:
                return p0.take(r, axis=0), p1.take(r, axis=0), self.radius.take(slots)
        return self._posed_capsules(slots)

    def _posed_capsules(self, slots: NDArray[np.int64]
                        ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        pos = self.position.take(slots, axis=0)
        rot = self.rotation.take(slots, axis=0)
        p0 = pos + np.einsum("mij,mj->mi", rot, self.seg0.take(slots, axis=0))
        p1 = pos + np.einsum("mij,mj->mi", rot, self.seg1.take(slots, axis=0))
        return p0, p1, self.radius.take(slots)

    def hull_rows(self, slots: NDArray[np.int64]
                  ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """(world vertices (m, V, 3), world face normals (m, F, 3), world edge vectors (m, E, 3)) of hulls ``slots``."""
        h = self.hull.take(slots)
        rot = self.rotation.take(slots, axis=0)
        verts = self.hull_vertices(slots)
        normals = np.einsum("mij,mfj->mfi", rot, self.hulls.normals[h])
        edges = np.einsum("mij,mej->mei", rot, self.hulls.edges[h])
        return verts, normals, edges

    def hull_vertices(self, slots: NDArray[np.int64]) -> NDArray[np.float64]:
        """World vertices (m, V, 3) of hulls ``slots``: :meth:`hull_rows`' first array, to the bit.

        For the callers that read only the vertices (boxes, extents, the
        half-space contact): the two einsums of the normals and edges cost 3x
        the vertices' (a pile of 100 hulls: ~0.5 ms a step in its boxes alone).
        """
        h = self.hull.take(slots)
        pos = self.position.take(slots, axis=0)
        rot = self.rotation.take(slots, axis=0)
        verts: NDArray[np.float64] = np.einsum("mij,mvj->mvi", rot, self.hulls.verts[h]) + pos[:, None, :]
        return verts

    def hull_arrays(self, slots: NDArray[np.int64]
                    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64], NDArray[np.int64],
                               NDArray[np.int64]]:
        """Hulls ``slots`` as the ``contact_*_hull`` kernels take them.

        Returns world vertices (m, V, 3), world face normals (m, F, 3), a vertex
        of each face (m, F), each edge's two vertices (m, E, 2) and its two
        faces (m, E, 2); the index arrays count within each hull's own rows.
        """
        h = self.hull.take(slots)
        posed = self._posed_rows("hull", self._posed_hulls, len(slots)) if self._in_frame else None
        if posed is not None:
            row, (all_verts, all_normals) = posed
            r = row.take(slots)
            if len(r) and r.min() >= 0:
                verts, normals = all_verts.take(r, axis=0), all_normals.take(r, axis=0)
            else:
                verts, normals = self._posed_hulls(slots)
        else:
            verts, normals = self._posed_hulls(slots)
        return verts, normals, self.hulls.face_vertex[h], self.hulls.edge_ends[h], self.hulls.edge_faces[h]

    def _posed_hulls(self, slots: NDArray[np.int64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        h = self.hull.take(slots)
        pos = self.position.take(slots, axis=0)
        rot_t = np.swapaxes(self.rotation.take(slots, axis=0), 1, 2)
        # batched matmul (local rows times R^T): ~10x faster here than the equivalent einsum
        verts = np.matmul(self.hulls.verts[h], rot_t) + pos[:, None, :]
        normals = np.matmul(self.hulls.normals[h], rot_t)
        return verts, normals

    @contextmanager
    def frame(self) -> Iterator[None]:
        """A context in which no pose or shape changes: :meth:`capsule_rows` and :meth:`hull_arrays` then
        pose every capsule and hull once (as soon as the rows asked add up to their number) and give
        later calls rows of that.

        The pair cache's step asks the kernels of up to a dozen kind pairs (contacts, then contact
        points) for the same bodies' world rows; a pile of 1,000 bodies with 100 hulls posed ~1,000
        hull rows and ~2,700 capsule rows a step, each of its 100 hulls and 325 capsules about ten
        times. Each row is the same expression on that row alone (numpy's batched matmul and einsum
        loop over the leading axis), so the rows are the bits a call on ``slots`` alone makes
        (tests/test_store_frame.py). Any journaled change (:meth:`_note`) drops them.
        """
        # fresh per frame, and set here rather than only in __init__: scratch stores made with
        # BodyStore.__new__ (queries._combined) and stores unpickled from older versions lack them
        self._frame_rows = {}
        self._frame_asked = {}
        # 3D only: the pile is where kind groups share bodies' rows (issue 28); 2D steps are untouched
        self._in_frame = self.dim == 3
        try:
            yield
        finally:
            self._in_frame = False
            self._frame_rows = {}
            self._frame_asked = {}

    def _posed_rows(self, what: str, make: Any, asked: int
                    ) -> tuple[NDArray[np.int64], tuple[NDArray[Any], ...]] | None:
        """The frame's rows of every capsule (``what="capsule"``) or hull, or None while posing them all
        would cost more than the rows asked so far (``asked`` more now): a step that tests a few pairs
        (most bodies resting) poses only those, as without the frame."""
        got = self._frame_rows.get(what)
        if got is None:
            code = Kind.CAPSULE if what == "capsule" else Kind.HULL
            slots = np.flatnonzero(self.kind == code)
            total = self._frame_asked.get(what, 0) + asked
            if total < len(slots):
                self._frame_asked[what] = total
                return None
            row = np.full(self.capacity, -1, dtype=np.int64)  # -1: not posed here (the caller poses it itself)
            row[slots] = np.arange(len(slots))
            got = self._frame_rows[what] = (row, tuple(make(slots)[:2]))
        return got

    def hull_adjacent(self, slots: NDArray[np.int64]) -> NDArray[np.float64]:
        """World normals of the two faces beside each edge of hulls ``slots``, (m, E, 2, 3)."""
        rot = self.rotation.take(slots, axis=0)
        adjacent: NDArray[np.float64] = np.einsum("mij,mekj->meki", rot, self.hulls.adjacent[self.hull.take(slots)])
        return adjacent

    def support_arrays(self, slots: NDArray[np.int64]
                       ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64],
                                  NDArray[np.float64]]:
        """Finite 3D bodies ``slots`` as :mod:`collideworld.geometry.support_convex` takes them.

        Returns the kind codes (m,), positions (m, 3), rotations (m, 3, 3), the
        parameters (m, 8) and the hulls' world vertices (rows named by the
        parameters of each hull row; (1, 3) zeros when there is none). A
        triangle part slot comes back as a hull of its three vertices.
        """
        kind = self.kind.take(slots).astype(np.int64)
        pos = self.position.take(slots, axis=0)
        rot = self.rotation.take(slots, axis=0)
        prm = np.zeros((len(slots), 8))
        rad = self.radius.take(slots)
        half = self.half.take(slots, axis=0)
        ball = kind == Kind.BALL
        prm[ball, 0] = rad[ball]
        box = kind == Kind.BOX
        prm[box, :3] = half[box]
        cap = kind == Kind.CAPSULE
        prm[cap, 0:3] = self.seg0.take(slots[cap], axis=0)
        prm[cap, 3:6] = self.seg1.take(slots[cap], axis=0)
        prm[cap, 6] = rad[cap]
        round_ = (kind == Kind.CYLINDER) | (kind == Kind.CONE)
        prm[round_, 0] = rad[round_]
        prm[round_, 1] = half[round_, 2]
        hull = np.flatnonzero(kind == Kind.HULL)
        verts = np.zeros((1, 3))
        if len(hull):
            world = self.hull_vertices(slots[hull])
            nv = world.shape[1]
            verts = world.reshape(-1, 3)
            prm[hull, 0] = np.arange(len(hull)) * nv
            prm[hull, 1] = nv
        tri = np.flatnonzero(kind == Kind.TRIANGLE)
        if len(tri):
            # a mesh's or heightfield's triangle is a flat hull of its three world vertices (code HULL)
            first = len(verts) if len(hull) else 0
            tv = self.triangle_rows(slots[tri]).reshape(-1, 3)
            verts = np.concatenate([verts, tv]) if len(hull) else tv
            prm[tri, 0] = first + 3 * np.arange(len(tri))
            prm[tri, 1] = 3
            kind[tri] = Kind.HULL
        return kind, pos, rot, prm, verts

    def triangle_rows(self, slots: NDArray[np.int64]) -> NDArray[np.float64]:
        """World vertices (m, 3, 3) of the triangle part slots ``slots``."""
        rot_t = np.swapaxes(self.rotation.take(slots, axis=0), 1, 2)
        out: NDArray[np.float64] = np.matmul(self.tri.take(slots, axis=0), rot_t)
        return out + self.position.take(slots, axis=0)[:, None, :]

    def plane_rows(self, slots: NDArray[np.int64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(unit normal (m, D), offset (m,)) of half-spaces ``slots``."""
        return self.plane_normal.take(slots, axis=0), self.plane_offset.take(slots)

    def polygon_planes(self, slots: NDArray[np.int64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """World vertices of simple polygons ``slots`` as x and y planes, each (8, len(slots))."""
        # gathered slot-major (contiguous rows), then made C-ordered: reductions over the
        # vertex axis of a strided (8, m) view run several times slower
        xy = self.world_xy.take(slots, axis=0)
        return np.ascontiguousarray(xy[:, :, 0].T), np.ascontiguousarray(xy[:, :, 1].T)

    def polygon_outline_world(self, slots: NDArray[np.int64]) -> list[tuple[NDArray[np.int64], NDArray[np.float64]]]:
        """World vertices of the outlines of polygon bodies, grouped by bucket.

        Returns a list of ``(index_into_slots, vertices (m, K, 2))``.
        """
        first, count, outline = self.parts.shape_arrays()
        part_ids = outline[self.poly[slots]]
        return self.part_vertices_world(slots, part_ids)

    def part_vertices_world(self, slots: NDArray[np.int64], part_ids: NDArray[np.int64]
                            ) -> list[tuple[NDArray[np.int64], NDArray[np.float64]]]:
        """World vertices of parts ``part_ids`` posed by bodies ``slots`` (same length).

        Returns a list of ``(index, vertices (m, K, 2))``, one per bucket
        present, where ``index`` selects the entries of this bucket.
        """
        bucket_of, row_of = self.parts.part_arrays()
        sizes = bucket_of[part_ids]
        out = []
        for size in np.unique(sizes).tolist():
            idx = np.flatnonzero(sizes == size)
            local = self.parts.bucket(size)[row_of[part_ids[idx]]]
            s = slots[idx]
            out.append((idx, _pose_points_2d(self.rotation.take(s, axis=0), self.position.take(s, axis=0), local)))
        return out

    def core_points(self, slots: NDArray[np.int64]
                    ) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.float64]]:
        """Each finite convex slot as GJK sees it: (world vertices (m, K, 3), count (m,), radius (m,)).

        A ball is its centre, a capsule its two ends (both grown by their
        radius), a box its corners, a polygon, hull or triangle its vertices
        (the rounding radius is not in ``radius``: it is the caller's).
        """
        m, d = len(slots), self.dim
        kinds = self.kind[slots]
        groups: list[tuple[NDArray[np.int64], NDArray[np.float64]]] = []
        count = np.zeros(m, dtype=np.int64)
        radius = np.zeros(m)
        sel = np.flatnonzero(kinds == Kind.BALL)
        groups.append((sel, self.position.take(slots[sel], axis=0)[:, None, :]))
        radius[sel] = self.radius.take(slots[sel])
        sel = np.flatnonzero(kinds == Kind.CAPSULE)
        p0, p1, r = self.capsule_rows(slots[sel])
        groups.append((sel, np.stack([p0, p1], axis=1)))
        radius[sel] = r
        sel = np.flatnonzero(kinds == Kind.BOX)
        if len(sel):
            pos, rot, half = self.box_rows(slots[sel])
            signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * d, indexing="ij")).reshape(d, -1).T
            groups.append((sel, np.einsum("mij,mkj->mki", rot, signs[None] * half[:, None, :]) + pos[:, None, :]))
        sel = np.flatnonzero(kinds == Kind.POLYGON)
        if len(sel):
            groups.extend((sel[idx], verts) for idx, verts in self.polygon_outline_world(slots[sel]))
        sel = np.flatnonzero(kinds == Kind.HULL)
        if len(sel):
            groups.append((sel, self.hull_vertices(slots[sel])))
        sel = np.flatnonzero(kinds == Kind.TRIANGLE)  # a mesh's or heightfield's triangle part slot
        if len(sel):
            groups.append((sel, self.triangle_rows(slots[sel])))
        width = max([v.shape[1] for _, v in groups] + [1])
        out = np.zeros((m, width, 3))
        for sel, verts in groups:
            out[sel, :verts.shape[1], :d] = verts
            count[sel] = verts.shape[1]
        return out, count, radius

    def support(self, slots: NDArray[np.int64], d: NDArray[np.float64]) -> NDArray[np.float64]:
        """``max over x in body slots[k] of d[k] . x`` for finite convex bodies, their rounding included.

        Examples
        --------
        >>> from collideworld import Box
        >>> store = BodyStore(2)
        >>> s = store.allocate(1)
        >>> store.set_shapes(s, [Box((1.0, 2.0))])
        >>> store.set_poses(s, np.array([[3.0, 0.0]]), np.zeros(1))
        >>> store.support(s, np.array([[1.0, 0.0]])).tolist()
        [4.0]
        """
        out = np.full(len(slots), np.inf)
        kinds = self.kind[slots]
        pos = self.position.take(slots, axis=0)
        base = np.sum(pos * d, axis=1)
        sel = np.flatnonzero(kinds == Kind.BALL)
        out[sel] = base[sel] + self.radius[slots[sel]]
        sel = np.flatnonzero(kinds == Kind.BOX)
        if len(sel):
            s = slots[sel]
            local = np.einsum("mji,mj->mi", self.rotation.take(s, axis=0), d[sel])
            out[sel] = base[sel] + np.sum(np.abs(local) * self.half.take(s, axis=0), axis=1)
        sel = np.flatnonzero(kinds == Kind.CAPSULE)
        if len(sel):
            p0, p1, r = self.capsule_rows(slots[sel])
            out[sel] = np.maximum(np.sum(p0 * d[sel], axis=1), np.sum(p1 * d[sel], axis=1)) + r
        sel = np.flatnonzero(kinds == Kind.POLYGON)
        if len(sel):
            for idx, verts in self.polygon_outline_world(slots[sel]):
                out[sel[idx]] = np.max(np.einsum("mkj,mj->mk", verts, d[sel[idx]]), axis=1)
        sel = np.flatnonzero(kinds == Kind.HULL)
        if len(sel):
            out[sel] = np.max(np.einsum("mkj,mj->mk", self.hull_vertices(slots[sel]), d[sel]), axis=1)
        grown: NDArray[np.float64] = out + self.rounding.take(slots)
        return grown

    def tight_boxes(self, slots: NDArray[np.int64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """:meth:`aabbs`, the balls, boxes and capsules in one compiled loop on the compiled backend.

        The same boxes to rounding (a capsule's end points are summed in
        another order); for callers that pad them (the mesh expansion's
        query boxes), where :meth:`aabbs`' kind-by-kind numpy calls cost
        more than the work (0.6 ms for 1,000 bodies a step).
        """
        if self.backend != "compiled":
            return self.aabbs(slots)
        from .geometry.compiled.aabb import slot_bounds

        lo, hi, rest = slot_bounds(slots, self.kind, self.position, self.rotation, self.radius, self.half,
                                   self.seg0, self.seg1, self.rounding)
        if rest.any():
            at = np.flatnonzero(rest)
            lo[at], hi[at] = self.aabbs(slots.take(at))
        return lo, hi

    def aabbs(self, slots: NDArray[np.int64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Tight world AABBs ``(lo, hi)`` of finite bodies, each (len(slots), D).

        Half-spaces get ``-inf``/``+inf`` bounds on the unbounded axes (all
        axes, conservatively).
        """
        n = len(slots)
        d = self.dim
        lo = np.empty((n, d))
        hi = np.empty((n, d))
        kinds = self.kind[slots]
        sel = np.flatnonzero(kinds == Kind.BALL)
        if len(sel):
            s = slots[sel]
            lo[sel], hi[sel] = aabb_ball(*self.ball_rows(s))
        sel = np.flatnonzero(kinds == Kind.BOX)
        if len(sel):
            s = slots[sel]
            lo[sel], hi[sel] = aabb_box(*self.box_rows(s))
        sel = np.flatnonzero(kinds == Kind.POLYGON)
        if len(sel):
            simple = self.simple[slots[sel]]
            fast = sel[simple]
            if len(fast):
                # min and max over the leading vertex axis of the posed planes
                s = slots[fast]
                for axis, plane in enumerate(self.polygon_planes(s)):
                    lo[fast, axis] = plane.min(axis=0)
                    hi[fast, axis] = plane.max(axis=0)
            rest = sel[~simple]
            if len(rest):
                for idx, verts in self.polygon_outline_world(slots[rest]):
                    lo[rest[idx]], hi[rest[idx]] = aabb_points(verts)
        sel = np.flatnonzero(kinds == Kind.CAPSULE)
        if len(sel):
            lo[sel], hi[sel] = aabb_capsule(*self.capsule_rows(slots[sel]))
        sel = np.flatnonzero(kinds == Kind.HULL)
        if len(sel):
            lo[sel], hi[sel] = aabb_points(self.hull_vertices(slots[sel]))
        sel = np.flatnonzero((kinds == Kind.CYLINDER) | (kinds == Kind.CONE))
        if len(sel):
            s = slots[sel]
            lo[sel], hi[sel] = aabb_cylinder(self.position.take(s, axis=0), self.rotation.take(s, axis=0),
                                             self.radius.take(s), self.half.take(s, axis=0)[:, 2],
                                             cone=kinds[sel] == Kind.CONE)
        sel = np.flatnonzero(kinds == Kind.TRIANGLE)
        if len(sel):
            lo[sel], hi[sel] = aabb_points(self.triangle_rows(slots[sel]))
        sel = np.flatnonzero(kinds == Kind.HALFSPACE)
        if len(sel):
            lo[sel] = -np.inf
            hi[sel] = np.inf
        sel = np.flatnonzero(kinds == Kind.COMPOUND)
        if len(sel):
            # the union of the posed parts' boxes; each compound's parts are one run of rows
            counts = self.n_parts.take(slots[sel])
            _, parts = self.compound_parts(slots[sel])
            plo, phi = self.aabbs(parts)
            starts = np.cumsum(counts) - counts
            lo[sel] = np.minimum.reduceat(plo, starts, axis=0)
            hi[sel] = np.maximum.reduceat(phi, starts, axis=0)
        if self.n_rounded:
            grown = self.rounding.take(slots)[:, None]  # 0 for compounds: their parts' boxes are grown already
            lo -= grown
            hi += grown
        return lo, hi
