"""Ray casts: one ray against N shapes of one kind, batched.

Every kernel takes one ray (``origin`` (D,), unit ``direction`` (D,),
``max_distance``) and N shapes in the array layout of this subpackage, and
returns :class:`RayHits` with no Python loop over shapes.

Conventions
-----------
* Shapes are closed and solid. A ray whose origin is inside a shape or on
  its boundary hits it at distance 0 with normal ``-direction`` (there is no
  surface crossing to take a normal from; ``-direction`` points back along
  the ray, which is what a caller that wants to step back out needs).
* Touching counts, as everywhere in :mod:`collideworld.geometry`: a ray hits
  when it meets the shape grown by :func:`~collideworld.geometry.tolerance.touch_tolerance`
  (of the magnitude of the coordinates involved). A ray tangent to a circle,
  grazing a box edge or corner, sliding along a polygon edge, or whose end
  point ``origin + max_distance * direction`` just touches the shape therefore
  hits. The reported distance is the exact entry distance into the shape
  itself when the ray meets it; a ray that only grazes reports where it
  first touches (the entry into the grown box or polygon, the closest
  approach to a ball). Either way it is clamped to ``[0, max_distance]``.
* ``max_distance`` may be ``inf``.
* ``scale`` (optional, one per shape): a floor under the magnitude the
  tolerance is taken of, for callers that pass coordinates moved out of the
  world frame (see ``_at_least``).
* Misses have ``distance = inf`` and ``normal = 0``.

Algorithms
----------
Boxes, convex polygons and half-spaces are intersections of half-spaces
``n_j . p <= c_j`` with unit ``n_j``, and all three go through one clipper
(Cyrus and Beck, 1978; Ericson, *Real-Time Collision Detection*, §5.3.8):
along ``p(t) = o + t d`` each face bounds ``t`` from below when the ray heads
into it (``n_j . d < 0``), from above when it heads away (``n_j . d > 0``),
and, when the ray is parallel to it, either not at all (origin on the inner
side) or empties the interval (origin outside). That last case is decided
from the origin alone, so a direction component that is zero never
divides; for boxes and polygons "parallel" includes ``|n_j . d|`` within
rounding noise of zero (see ``PARALLEL_RATE``), so a ray sliding along a
face of a rotated box still enters at the face's edge. The entry distance
is the largest lower bound and the face attaining it gives the normal. For a box, the two faces
of each axis, taken in the box frame, form that axis's slab (Kay and Kajiya,
1986), so this is the slab test. Balls use the quadratic in the stable form
of Haines et al., *Ray Tracing Gems*, ch. 7: the discriminant from the
squared distance between the centre and the line, and the near root as
``c / (-b + sqrt(disc))`` so no cancellation occurs when the hit is close to
the origin.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .tolerance import REL_TOUCH_TOL, touch_tolerance

__all__ = [
    "RayHits",
    "raycast_triangle",
    "raycast_ball",
    "raycast_box",
    "raycast_polygon",
    "raycast_halfspace",
    "raycast_capsule",
    "raycast_hull",
    "raycast_cylinder",
]


class RayHits(NamedTuple):
    """One ray against N shapes, as arrays.

    Attributes
    ----------
    hit : ndarray of bool, shape (N,)
        True where the ray meets the closed shape with
        ``0 <= distance <= max_distance`` (touching counts).
    distance : ndarray of float64, shape (N,)
        Where ``hit``: distance along the ray to its first point in the
        shape, 0 if the origin is inside. Elsewhere ``inf``.
    normal : ndarray of float64, shape (N, D)
        Where ``hit``: unit outward surface normal at the hit point, or
        ``-direction`` when the origin is inside. Elsewhere zeros.

    Examples
    --------
    A ray from the origin along +x against two unit circles: it enters the
    one at (3, 0) at x = 2 and passes under the one at (3, 5).

    >>> r = raycast_ball([0.0, 0.0], [1.0, 0.0], 10.0, [[3.0, 0.0], [3.0, 5.0]], [1.0, 1.0])
    >>> r.hit.tolist(), r.distance.tolist(), r.normal.tolist()
    ([True, False], [2.0, inf], [[-1.0, 0.0], [0.0, 0.0]])
    """

    hit: NDArray[np.bool_]
    distance: NDArray[np.float64]
    normal: NDArray[np.float64]


def _as_ray(origin: ArrayLike, direction: ArrayLike,
            max_distance: Any) -> tuple[NDArray[np.float64], NDArray[np.float64], Any]:
    # max_distance: one float, or one per shape (N,) (the batched queries' per-ray limits, ray by ray in its
    # own frame); every use below is elementwise
    limit = float(max_distance) if np.ndim(max_distance) == 0 else np.asarray(max_distance, dtype=np.float64)
    return np.asarray(origin, dtype=np.float64), np.asarray(direction, dtype=np.float64), limit


def _row_max_abs(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """Largest absolute value per row of an (N, ...) array, shape (N,)."""
    row_max: NDArray[np.float64] = np.abs(a).reshape(a.shape[0], int(np.prod(a.shape[1:]))).max(axis=1, initial=0.0)
    return row_max


def _at_least(own: ArrayLike, scale: ArrayLike | None) -> NDArray[np.float64]:
    """A kernel's own tolerance scale, raised to the caller's ``scale`` (N,) where one is given.

    A caller that moves rays into a frame of their own (origin 0, direction
    +x: ``queries.cast_rows``, many rays through one kernel call) passes the
    scale of the world coordinates: the rounding of that move is of their
    magnitude, and a ray that touches a shape in the world must still touch.
    """
    out: NDArray[np.float64] = np.asarray(own, dtype=np.float64)
    return out if scale is None else np.maximum(out, np.asarray(scale, dtype=np.float64))


#: ``|normal . direction|`` at or below which a face of a bounded shape
#: (box, polygon) counts as parallel to the ray. Any point where such a ray
#: can enter the shape is within ``t <= 8 max(1, scale)`` of its origin
#: (origin and shape both lie within ``scale`` of the world origin, per
#: coordinate, so within ``sqrt(3) scale`` in norm), and over that stretch
#: the ray drifts off the face's plane by at most ``touch_tolerance(scale)``.
#: Calling it parallel therefore changes nothing the touching rule can see,
#: while dividing by it would turn rounding noise (a 90-degree rotation
#: leaves ~6e-17 in the matrix) into a bogus entry far along a ray that
#: slides along the face.
PARALLEL_RATE = REL_TOUCH_TOL / 8


def _entry_bounds(signed: NDArray[np.float64], rate: NDArray[np.float64],
                  valid: NDArray[np.bool_], parallel: NDArray[np.bool_]
                  ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.intp]]:
    """Parameter interval of a ray inside intersections of half-spaces.

    Face j of shape n is ``signed[n, j] + t * rate[n, j] <= 0``: ``signed`` is
    the signed distance of the origin from the face plane (positive outside)
    and ``rate`` is ``normal_j . direction``. Faces marked ``parallel`` are
    decided from the origin alone: no bound if ``signed <= 0``, else empty.

    Returns
    -------
    lower, upper : ndarray, shape (N,)
        The ray is inside for ``lower <= t <= upper`` (empty if ``lower > upper``).
    face : ndarray of int, shape (N,)
        The face setting ``lower``; ties go to the lowest index.
    """
    crossing = valid & ~parallel
    toward = crossing & (rate < 0)
    away = crossing & (rate > 0)
    # Parallel to a face: inside its half-space for every t, or for none.
    # Deciding this from the origin alone avoids 0/0 and inf*0.
    parallel_out = valid & parallel & (signed > 0)
    safe_rate = np.where(toward | away, rate, 1.0)
    t = -signed / safe_rate
    lower = np.where(toward, t, -np.inf)
    lower = np.where(parallel_out, np.inf, lower)
    upper = np.where(away, t, np.inf)
    upper = np.where(parallel_out, -np.inf, upper)
    face = np.argmax(lower, axis=1)
    rows = np.arange(signed.shape[0])
    return lower[rows, face], upper.min(axis=1, initial=np.inf), face


def _clip_faces(signed: NDArray[np.float64], rate: NDArray[np.float64],
                valid: NDArray[np.bool_], tol: NDArray[np.float64],
                max_distance: float | NDArray[np.float64], parallel_rate: float
                ) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.float64], NDArray[np.intp]]:
    """Cyrus-Beck clipping with the touching rule.

    Parameters
    ----------
    signed, rate : ndarray, shape (N, J)
        See :func:`_entry_bounds`.
    valid : ndarray of bool, shape (N, J)
        False for faces to ignore (zero-length polygon edges).
    tol : ndarray, shape (N,)
        Touching tolerance: faces are pushed out by ``tol`` for the hit test.
    max_distance : float
    parallel_rate : float
        Faces with ``|rate| <= parallel_rate`` are parallel to the ray.

    Returns
    -------
    hit, inside : ndarray of bool, shape (N,)
    distance : ndarray, shape (N,)
        ``inf`` where not ``hit``, 0 where ``inside``.
    face : ndarray of int, shape (N,)
        Entry face (meaningful where ``hit & ~inside``).
    """
    parallel = np.abs(rate) <= parallel_rate
    inside = np.all((signed <= tol[:, None]) | ~valid, axis=1)
    lo, hi, face = _entry_bounds(signed, rate, valid, parallel)
    lo_grown, hi_grown, face_grown = _entry_bounds(signed - tol[:, None], rate, valid, parallel)
    # Overflowing -signed/rate (a face nearly parallel and far away) is a miss,
    # not a hit at infinity.
    hit = inside | ((lo_grown <= hi_grown) & (hi_grown >= 0.0)
                    & (lo_grown <= max_distance) & np.isfinite(lo_grown))
    # The exact shape gives the exact entry; only a ray that merely grazes
    # (meets the grown shape but not the shape) falls back on the grown one.
    exact = lo <= hi
    entry = np.where(exact, lo, lo_grown)
    face = np.where(exact, face, face_grown)
    distance = np.where(inside, 0.0, np.clip(entry, 0.0, max_distance))
    distance = np.where(hit, distance, np.inf)
    return hit, inside, distance, face


def _finish(hit: NDArray[np.bool_], inside: NDArray[np.bool_], distance: NDArray[np.float64],
            surface_normal: NDArray[np.float64], direction: NDArray[np.float64]) -> RayHits:
    normal = np.where(inside[:, None], -direction, surface_normal)
    normal = np.where(hit[:, None], normal, 0.0)
    # Adding 0.0 turns -0.0 into 0.0, so equal results print and compare alike.
    return RayHits(hit, distance, normal + 0.0)


def raycast_ball(origin: ArrayLike, direction: ArrayLike, max_distance: float | NDArray[np.float64],
                 center: ArrayLike, radius: ArrayLike, scale: ArrayLike | None = None) -> RayHits:
    """One ray against N balls (circles in 2D, spheres in 3D).

    Parameters
    ----------
    origin : array_like, shape (D,)
    direction : array_like, shape (D,)
        Unit length (not checked).
    max_distance : float or ndarray, shape (N,)
        ``>= 0``; may be ``inf``; one per shape as an array.
    center : array_like, shape (N, D)
    radius : array_like, shape (N,)

    Returns
    -------
    RayHits
        ``normal`` is ``(hit point - center) / radius``, normalised.

    Notes
    -----
    O(N D) time.

    Examples
    --------
    >>> r = raycast_ball([-5.0, 0.0], [1.0, 0.0], np.inf, [[0.0, 0.0]], [1.0])
    >>> bool(r.hit[0]), float(r.distance[0]), r.normal[0].tolist()
    (True, 4.0, [-1.0, 0.0])
    """
    o, d, max_distance = _as_ray(origin, direction, max_distance)
    c = np.asarray(center, dtype=np.float64)
    r = np.asarray(radius, dtype=np.float64)
    tol = touch_tolerance(_at_least(np.maximum(np.max(np.abs(o), initial=0.0), _row_max_abs(c) + r), scale))

    # Origin relative to the centre: large world offsets stay out of the
    # rounding of everything below.
    m = o - c
    b = np.einsum("nd,d->n", m, d)  # the line's closest approach to the centre is at t = -b
    dist_origin = np.sqrt(np.einsum("nd,nd->n", m, m))
    closest = m - b[:, None] * d
    miss_by = np.sqrt(np.einsum("nd,nd->n", closest, closest))

    inside = dist_origin <= r + tol
    r_grown = r + tol

    def near_root(rad: NDArray[np.float64]) -> NDArray[np.float64]:
        # (|m| - rad)(|m| + rad) and (rad - q)(rad + q) instead of differences
        # of squares: each factor is small only when it should be.
        c_term = (dist_origin - rad) * (dist_origin + rad)
        half_chord = np.sqrt(np.maximum((rad - miss_by) * (rad + miss_by), 0.0))
        denom = -b + half_chord
        safe = np.where(denom > 0, denom, 1.0)
        # -b - half_chord in exact arithmetic; never later than the closest
        # approach, which is where a grazing ray touches.
        root: NDArray[np.float64] = np.minimum(c_term / safe, -b)
        return root

    t_exact = near_root(r)
    t_grown = near_root(r_grown)
    heading_in = b < 0
    hit = inside | (heading_in & (miss_by <= r_grown) & (t_grown <= max_distance))
    # A ray that passes outside the ball by at most tol touches it where it
    # comes closest, t = -b: the exact entry tends to that point as the ray
    # approaches tangency, whereas the grown ball's entry would jump back by
    # sqrt(2 r tol) (~1e-5 at r = 4, scale 24).
    entry = np.where(miss_by <= r, t_exact, -b)
    distance = np.where(inside, 0.0, np.clip(entry, 0.0, max_distance))
    distance = np.where(hit, distance, np.inf)

    point = m + np.where(hit & ~inside, entry, 0.0)[:, None] * d
    length = np.sqrt(np.einsum("nd,nd->n", point, point))
    # Only a zero-radius ball puts the hit point on its centre; its "surface"
    # faces the ray.
    surface = np.where((length > 0)[:, None], point / np.where(length > 0, length, 1.0)[:, None], -d)
    return _finish(hit, inside, distance, surface, d)


def raycast_box(origin: ArrayLike, direction: ArrayLike, max_distance: float | NDArray[np.float64],
                center: ArrayLike, rotation: ArrayLike, half: ArrayLike, scale: ArrayLike | None = None) -> RayHits:
    """One ray against N oriented boxes, D = 2 or 3 (slab test in the box frame).

    Parameters
    ----------
    origin : array_like, shape (D,)
    direction : array_like, shape (D,)
        Unit length (not checked).
    max_distance : float or ndarray, shape (N,)
        ``>= 0``; may be ``inf``; one per shape as an array.
    center : array_like, shape (N, D)
    rotation : array_like, shape (N, D, D)
        Local-to-world; columns are the box axes.
    half : array_like, shape (N, D)
        Half extents, ``>= 0``.

    Returns
    -------
    RayHits
        ``normal`` is the outward normal of the face the ray enters through
        (a world-frame box axis, signed); at an edge or corner the face with
        the lowest index in (+x, +y, [+z,] -x, -y, [-z]) among those entered
        last.

    Notes
    -----
    O(N D^2) time. A direction component that is 0 in the box frame (or
    within rounding noise of it, see ``PARALLEL_RATE``) means the ray is
    parallel to that slab: inside it for every ``t`` iff the origin is, with
    no division.

    Examples
    --------
    >>> r = raycast_box([-5.0, 0.0], [1.0, 0.0], np.inf, [[0.0, 0.0]], [np.eye(2)], [[1.0, 2.0]])
    >>> bool(r.hit[0]), float(r.distance[0]), r.normal[0].tolist()
    (True, 4.0, [-1.0, 0.0])
    """
    o, d, max_distance = _as_ray(origin, direction, max_distance)
    c = np.asarray(center, dtype=np.float64)
    rot = np.asarray(rotation, dtype=np.float64)
    h = np.asarray(half, dtype=np.float64)
    dim = c.shape[1]
    tol = touch_tolerance(_at_least(np.maximum(np.max(np.abs(o), initial=0.0),
                                     _row_max_abs(c) + _row_max_abs(h)), scale))

    # Box frame: R^T (o - c) and R^T d; the box becomes |x_i| <= h_i.
    local_o = np.einsum("nji,nj->ni", rot, o - c)
    local_d = np.einsum("nji,j->ni", rot, d)
    # Faces +axis_i then -axis_i: x_i - h_i <= 0 and -x_i - h_i <= 0.
    signed = np.concatenate([local_o - h, -local_o - h], axis=1)
    rate = np.concatenate([local_d, -local_d], axis=1)
    valid = np.ones(signed.shape, dtype=bool)
    hit, inside, distance, face = _clip_faces(signed, rate, valid, tol, max_distance, PARALLEL_RATE)

    axis = face % dim
    sign = np.where(face < dim, 1.0, -1.0)
    surface = sign[:, None] * rot[np.arange(c.shape[0]), :, axis]
    return _finish(hit, inside, distance, surface, d)


def raycast_polygon(origin: ArrayLike, direction: ArrayLike, max_distance: float | NDArray[np.float64],
                    vertices: ArrayLike, scale: ArrayLike | None = None) -> RayHits:
    """One ray against N convex polygons, 2D (Cyrus-Beck clipping).

    Parameters
    ----------
    origin : array_like, shape (2,)
    direction : array_like, shape (2,)
        Unit length (not checked).
    max_distance : float or ndarray, shape (N,)
        ``>= 0``; may be ``inf``; one per shape as an array.
    vertices : array_like, shape (N, K, 2)
        Counter-clockwise convex polygons with nonzero area, padded to K by
        repeating the last vertex; zero-length edges are ignored.

    Returns
    -------
    RayHits
        ``normal`` is the outward unit normal of the edge the ray enters
        through; at a vertex, the lower-indexed of the edges entered last.

    Notes
    -----
    O(N K) time and memory.

    Examples
    --------
    >>> tri = [[[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]]]
    >>> r = raycast_polygon([-1.0, 1.0], [1.0, 0.0], np.inf, tri)
    >>> bool(r.hit[0]), float(r.distance[0]), r.normal[0].tolist()
    (True, 1.0, [-1.0, 0.0])
    """
    o, d, max_distance = _as_ray(origin, direction, max_distance)
    verts = np.asarray(vertices, dtype=np.float64)
    n = verts.shape[0]
    tol = touch_tolerance(_at_least(np.maximum(np.max(np.abs(o), initial=0.0), _row_max_abs(verts)), scale))

    v = verts - o  # origin at 0: signed distances come from small differences
    e = np.roll(v, -1, axis=1) - v
    length = np.sqrt(np.einsum("nkd,nkd->nk", e, e))
    valid = length > 0
    safe_length = np.where(valid, length, 1.0)
    # Right of a counter-clockwise edge is outside.
    outward = np.stack([e[..., 1], -e[..., 0]], axis=-1) / safe_length[..., None]
    signed = -np.einsum("nkd,nkd->nk", outward, v)
    rate = np.einsum("nkd,d->nk", outward, d)
    hit, inside, distance, face = _clip_faces(signed, rate, valid, tol, max_distance, PARALLEL_RATE)

    surface = outward[np.arange(n), face]
    return _finish(hit, inside, distance, surface, d)


def raycast_halfspace(origin: ArrayLike, direction: ArrayLike, max_distance: float | NDArray[np.float64],
                      normal: ArrayLike, offset: ArrayLike, scale: ArrayLike | None = None) -> RayHits:
    """One ray against N half-spaces ``normal . p <= offset``, D = 2 or 3.

    Parameters
    ----------
    origin : array_like, shape (D,)
    direction : array_like, shape (D,)
        Unit length (not checked).
    max_distance : float or ndarray, shape (N,)
        ``>= 0``; may be ``inf``; one per shape as an array.
    normal : array_like, shape (N, D)
        Unit outward normals.
    offset : array_like, shape (N,)

    Returns
    -------
    RayHits
        ``normal`` is the half-space's normal. A ray outside and parallel to
        the boundary, or heading away from it, misses.

    Notes
    -----
    O(N D) time.

    Examples
    --------
    >>> r = raycast_halfspace([0.0, 5.0], [0.0, -1.0], np.inf, [[0.0, 1.0]], [1.0])
    >>> bool(r.hit[0]), float(r.distance[0]), r.normal[0].tolist()
    (True, 4.0, [0.0, 1.0])
    """
    o, d, max_distance = _as_ray(origin, direction, max_distance)
    nrm = np.asarray(normal, dtype=np.float64)
    off = np.asarray(offset, dtype=np.float64)
    tol = touch_tolerance(_at_least(np.maximum(np.max(np.abs(o), initial=0.0), np.abs(off)), scale))

    signed = (np.einsum("nd,d->n", nrm, o) - off)[:, None]
    rate = np.einsum("nd,d->n", nrm, d)[:, None]
    valid = np.ones(signed.shape, dtype=bool)
    # Unbounded: no stretch of the ray is too far to matter, so only an
    # exact zero counts as parallel.
    hit, inside, distance, _ = _clip_faces(signed, rate, valid, tol, max_distance, 0.0)
    return _finish(hit, inside, distance, nrm, d)


def raycast_capsule(origin: ArrayLike, direction: ArrayLike, max_distance: float | NDArray[np.float64],
                    p0: ArrayLike, p1: ArrayLike, radius: ArrayLike, scale: ArrayLike | None = None) -> RayHits:
    """One ray against N capsules (segments for radius 0), 2D or 3D.

    A capsule is the union of the balls at its two end points and the
    cylinder (a strip in 2D) around its segment, so the ray's entry is the
    earliest entry into any of the three (Ericson, *Real-Time Collision
    Detection*, §5.3.7, without the end-cap planes: the balls cover them).
    The cylinder's entry solves the quadratic of the ray's distance to the
    axis line in the plane across the axis, in the form of
    :func:`raycast_ball`: the discriminant from the ray line's closest
    approach to the axis, the hit decided against the radius grown by the
    touching tolerance and the entry accepted where its axial coordinate lies
    on the segment.

    Parameters
    ----------
    origin, direction : array_like, shape (D,)
        ``direction`` of unit length.
    max_distance : float
    p0, p1 : array_like, shape (N, D)
        World end points of the core segments.
    radius : array_like, shape (N,)
        ``>= 0``.

    Returns
    -------
    RayHits

    Examples
    --------
    A ray along +x from the origin against a capsule standing from (3, -1)
    to (3, 1) with radius 0.5 enters its side at x = 2.5; one ending at
    (3, -0.3), below the ray, is entered through its top cap at x = 3 - 0.4:

    >>> r = raycast_capsule([0.0, 0.0], [1.0, 0.0], 10.0, [[3.0, -1.0], [3.0, -2.0]], [[3.0, 1.0], [3.0, -0.3]],
    ...                     [0.5, 0.5])
    >>> r.hit.tolist(), [round(x, 12) for x in r.distance.tolist()]
    ([True, True], [2.5, 2.6])
    """
    o, d, max_distance = _as_ray(origin, direction, max_distance)
    a = np.asarray(p0, dtype=np.float64)
    b = np.asarray(p1, dtype=np.float64)
    r = np.asarray(radius, dtype=np.float64)
    cap0 = raycast_ball(o, d, max_distance, a, r, scale=scale)
    cap1 = raycast_ball(o, d, max_distance, b, r, scale=scale)
    own = np.maximum(np.max(np.abs(o), initial=0.0), np.maximum(_row_max_abs(a), _row_max_abs(b)) + r)
    tol = touch_tolerance(_at_least(own, scale))
    axis = b - a
    length = np.sqrt(np.einsum("nd,nd->n", axis, axis))
    has_axis = length > 0
    u = axis / np.where(has_axis, length, 1.0)[:, None]
    m = o - a
    m_along = np.einsum("nd,nd->n", m, u)
    d_along = u @ d
    md = m - m_along[:, None] * u  # the origin across the axis
    dd = d - d_along[:, None] * u  # the direction across the axis
    rate = np.einsum("nd,nd->n", dd, dd)
    moving = rate > 0
    t_close = -np.einsum("nd,nd->n", md, dd) / np.where(moving, rate, 1.0)
    closest = md + t_close[:, None] * dd
    miss_by = np.sqrt(np.einsum("nd,nd->n", closest, closest))
    r_grown = r + tol
    half_chord = np.sqrt(np.maximum((r - miss_by) * (r + miss_by), 0.0) / np.where(moving, rate, 1.0))
    entry = np.where(miss_by <= r, t_close - half_chord, t_close)
    along = m_along + entry * d_along
    on_side = (has_axis & moving & (miss_by <= r_grown) & (entry >= 0.0) & (entry <= max_distance)
               & (along >= -tol) & (along <= length + tol))
    side_dist = np.where(on_side, entry, np.inf)
    radial = md + np.where(on_side, entry, 0.0)[:, None] * dd
    rl = np.sqrt(np.einsum("nd,nd->n", radial, radial))
    side_normal = np.where((rl > 0)[:, None], radial / np.where(rl > 0, rl, 1.0)[:, None], -d)
    # A core no thicker than the touching tolerance (a segment: radius 0) has the hit point on
    # its axis up to rounding, so ``radial`` is noise of the coordinates' last bits (for a ray
    # through a 2D segment, often along the segment). Its normal is instead the limit of a
    # thin capsule's as the radius goes to 0 for a ray that meets the axis: the direction
    # across the axis back along the ray, -dd / |dd| (in the plane of the axis and the ray;
    # in 2D the segment's face normal on the ray's side). A zero-radius end cap's surface
    # faces the ray: -d, as raycast_ball intends for a ball of radius 0.
    thin = r <= tol
    facing = -dd / np.sqrt(np.where(moving, rate, 1.0))[:, None]
    side_normal = np.where((thin & moving)[:, None], facing, side_normal)
    # inside the cylinder part: across within the radius and along within the segment
    across = np.sqrt(np.einsum("nd,nd->n", md, md))
    inside = cap0.hit & (cap0.distance == 0) | cap1.hit & (cap1.distance == 0)
    inside |= has_axis & (across <= r_grown) & (m_along >= -tol) & (m_along <= length + tol)
    dist = np.minimum(np.minimum(cap0.distance, cap1.distance), side_dist)
    cap_normal = np.where((dist == cap0.distance)[:, None], cap0.normal, cap1.normal)
    normal = np.where((dist == side_dist)[:, None], side_normal, np.where(thin[:, None], -d, cap_normal))
    hit = inside | np.isfinite(dist)
    distance = np.where(inside, 0.0, np.clip(dist, 0.0, max_distance))
    distance = np.where(hit, distance, np.inf)
    return _finish(hit, inside, distance, normal, d)


def raycast_hull(origin: ArrayLike, direction: ArrayLike, max_distance: float | NDArray[np.float64],
                 center: ArrayLike, rotation: ArrayLike, normals: ArrayLike, offsets: ArrayLike,
                 reach: ArrayLike, scale: ArrayLike | None = None) -> RayHits:
    """One ray against N convex hulls (3D): the Cyrus-Beck clip of :func:`raycast_box` over their faces.

    Parameters
    ----------
    origin, direction : array_like, shape (3,)
        ``direction`` of unit length.
    max_distance : float
    center : array_like, shape (N, 3)
    rotation : array_like, shape (N, 3, 3)
        Local-to-world rotations.
    normals : array_like, shape (N, F, 3)
        Unit outward face normals in the local frame (padding by repetition is harmless).
    offsets : array_like, shape (N, F)
        The hull is ``normals[f] . x <= offsets[f]`` in the local frame.
    reach : array_like, shape (N,)
        Bounding radius of each hull about its origin (for the touching tolerance's scale).

    Returns
    -------
    RayHits

    Examples
    --------
    The cube [-1, 1]^3 as a hull of six faces, 5 along +x:

    >>> import numpy as np
    >>> n = np.concatenate([np.eye(3), -np.eye(3)])[None]
    >>> r = raycast_hull([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], 10.0, [[5.0, 0.0, 0.0]], np.eye(3)[None], n,
    ...                  np.ones((1, 6)), [3 ** 0.5])
    >>> r.hit.tolist(), r.distance.tolist(), r.normal.tolist()
    ([True], [4.0], [[-1.0, 0.0, 0.0]])
    """
    o, d, max_distance = _as_ray(origin, direction, max_distance)
    c = np.asarray(center, dtype=np.float64)
    rot = np.asarray(rotation, dtype=np.float64)
    nrm = np.asarray(normals, dtype=np.float64)
    off = np.asarray(offsets, dtype=np.float64)
    own = np.maximum(np.max(np.abs(o), initial=0.0), _row_max_abs(c) + np.asarray(reach))
    tol = touch_tolerance(_at_least(own, scale))
    local_o = np.einsum("nji,nj->ni", rot, o - c)
    local_d = np.einsum("nji,j->ni", rot, d)
    signed = np.einsum("nfk,nk->nf", nrm, local_o) - off
    rate = np.einsum("nfk,nk->nf", nrm, local_d)
    valid = np.ones(signed.shape, dtype=bool)
    hit, inside, distance, face = _clip_faces(signed, rate, valid, tol, max_distance, PARALLEL_RATE)
    rows = np.arange(c.shape[0])
    surface = np.einsum("nij,nj->ni", rot, nrm[rows, face])
    return _finish(hit, inside, distance, surface, d)


def raycast_triangle(origin: ArrayLike, direction: ArrayLike, max_distance: float | NDArray[np.float64],
                     tri: ArrayLike, scale: ArrayLike | None = None) -> RayHits:
    """One ray against N triangles, 3D (Moller & Trumbore 1997), edges included (closed triangles).

    The barycentric tests are widened by the touching tolerance, so a ray
    through an edge or vertex hits. A ray lying in a triangle's plane meets
    it only along an edge line, a set the tests here do not decide: it
    misses (its neighbours across the edge, or the edge's other triangle,
    are not in the ray's plane unless the surface is flat there).

    Parameters
    ----------
    origin, direction : array_like, shape (3,)
        ``direction`` of unit length.
    max_distance : float or ndarray (N,)
    tri : array_like, shape (N, 3, 3)
        World vertices.

    Returns
    -------
    RayHits
        ``normal`` the face normal turned towards the ray's origin; ``-direction`` where the origin lies on it.

    Examples
    --------
    >>> r = raycast_triangle([0.2, 0.2, 5.0], [0.0, 0.0, -1.0], 10.0, [[[0, 0, 0], [1, 0, 0], [0, 1, 0]]])
    >>> r.hit.tolist(), r.distance.tolist(), r.normal.tolist()
    ([True], [5.0], [[0.0, 0.0, 1.0]])
    """
    o = np.asarray(origin, dtype=np.float64)
    d = np.asarray(direction, dtype=np.float64)
    t3 = np.asarray(tri, dtype=np.float64)
    n = len(t3)
    a = t3[:, 0]
    e1, e2 = t3[:, 1] - a, t3[:, 2] - a
    p = np.cross(d, e2)
    det = np.einsum("ni,ni->n", e1, p)
    tol = touch_tolerance(_at_least(np.abs(t3).max(axis=(1, 2)) + np.abs(o).max(), scale))
    face = np.cross(e1, e2)
    area = np.linalg.norm(face, axis=1)
    ok = np.abs(det) > 1e-14 * area
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    s = o - a
    u = np.einsum("ni,ni->n", s, p) * inv
    q = np.cross(s, e1)
    v = (q @ d) * inv
    t = np.einsum("ni,ni->n", e2, q) * inv
    # the barycentric slack: the tolerance over the edge lengths (a distance tolerance in the plane)
    slack = tol / np.maximum(np.sqrt(area), 1e-300)
    limit = np.broadcast_to(np.asarray(max_distance, dtype=np.float64), (n,))
    hit = ok & (u >= -slack) & (v >= -slack) & (u + v <= 1.0 + slack) & (t >= -tol) & (t <= limit)
    unit = face / np.where(area > 0, area, 1.0)[:, None]
    facing = np.where((unit @ d)[:, None] > 0, -unit, unit)
    on = hit & (t <= tol)
    normal = np.where(hit[:, None], np.where(on[:, None], -d, facing), 0.0) + 0.0
    return RayHits(hit, np.where(hit, np.maximum(t, 0.0), np.inf), normal)


def _interval_and(lo: NDArray[np.float64], hi: NDArray[np.float64], src: NDArray[np.int64],
                  lo2: NDArray[np.float64], hi2: NDArray[np.float64], which: int
                  ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """[lo, hi] and [lo2, hi2]; ``src`` names the constraint that gives the lower end (``which`` if the new one)."""
    src = np.where(lo2 > lo, which, src)
    return np.maximum(lo, lo2), np.minimum(hi, hi2), src


def _solid_of_revolution_entry(o: NDArray[np.float64], d: NDArray[np.float64], radius: NDArray[np.float64],
                               half: NDArray[np.float64], cone: NDArray[np.bool_]
                               ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """The interval [t_in, t_out] of a local ray ``o + t d`` (N, 3) in each cylinder or cone, and the
    constraint that bounds t_in (0: the side, 1: the bottom cap or base, 2: the top cap); t_in > t_out: a miss.

    Each solid is an intersection of convex sets, so the ray's interval in it is the intersection of
    its intervals in each (Kay & Kajiya 1986 for the slab; the quadric by its two roots, Haines et
    al., Ray Tracing Gems ch. 7's stable form): a cylinder is the slab |z| <= h and the infinite
    cylinder x^2 + y^2 <= r^2; a cone the half-space z >= -h and the nappe x^2 + y^2 <= k^2 w^2,
    w = h - z >= 0, k = r / 2h (its quadric also holds the opposite nappe, w <= 0, cut off by w >= 0).
    """
    n = len(o)
    inf = np.full(n, np.inf)
    lo, hi, src = -inf, inf.copy(), np.zeros(n, dtype=np.int64)
    ox, oy, oz = o[:, 0], o[:, 1], o[:, 2]
    dx, dy, dz = d[:, 0], d[:, 1], d[:, 2]
    moving_z = dz != 0.0
    safe_dz = np.where(moving_z, dz, 1.0)
    # the planes z = -h (below: lower cap or base) and z = +h (upper cap; a cone's apex plane)
    t_bottom = (-half - oz) / safe_dz
    t_top = (half - oz) / safe_dz
    below_ok = oz >= -half
    above_ok = oz <= half
    # z >= -h: entered at t_bottom going up, left there going down; z <= h the other way round
    up = moving_z & (dz > 0)
    down = moving_z & (dz < 0)
    lo, hi, src = _interval_and(lo, hi, src, np.where(up, t_bottom, np.where(moving_z | below_ok, -inf, inf)),
                                np.where(down, t_bottom, np.where(moving_z | below_ok, inf, -inf)), 1)
    lo, hi, src = _interval_and(lo, hi, src, np.where(down, t_top, np.where(moving_z | above_ok, -inf, inf)),
                                np.where(up, t_top, np.where(moving_z | above_ok, inf, -inf)), 2)
    # the quadric q(t) = a t^2 + 2 b t + c <= 0
    k2 = np.where(cone, (radius / (2.0 * half)) ** 2, 0.0)
    w0 = half - oz
    a = dx * dx + dy * dy - k2 * dz * dz
    b = ox * dx + oy * dy + k2 * w0 * dz
    c = ox * ox + oy * oy - np.where(cone, k2 * w0 * w0, radius * radius)
    disc = b * b - a * c
    sq = np.sqrt(np.maximum(disc, 0.0))
    # roots without cancellation: q = -(b + sign(b) sq); t = q / a and c / q
    qq = -(b + np.where(b >= 0, sq, -sq))
    r1 = np.where(a != 0, qq / np.where(a != 0, a, 1.0), np.inf)
    r2 = np.where(qq != 0, c / np.where(qq != 0, qq, 1.0), np.where(c <= 0, -np.inf, np.inf))
    t1, t2 = np.minimum(r1, r2), np.maximum(r1, r2)
    # a > 0: [t1, t2] (empty if disc < 0); a < 0: (-inf, t1] or [t2, inf), only one of them on the
    # nappe w >= 0 (already cut by the z <= h bound above), the whole line if disc < 0 (cone only);
    # a == 0: a half-line (a cone's ray parallel to a generator) or all/nothing (along a cylinder's axis)
    pos = a > 0
    neg = a < 0
    flat = a == 0
    qlo = np.where(pos, np.where(disc >= 0, t1, np.inf), -np.inf)
    qhi = np.where(pos, np.where(disc >= 0, t2, -np.inf), np.inf)
    # a < 0 with real roots: keep the piece that meets the interval so far (the right nappe)
    left_lo, left_hi = np.maximum(lo, -np.inf), np.minimum(hi, t1)
    right_lo, right_hi = np.maximum(lo, t2), hi
    use_left = (left_hi - left_lo) >= (right_hi - right_lo)
    two = neg & (disc >= 0)
    qlo = np.where(two, np.where(use_left, -np.inf, t2), qlo)
    qhi = np.where(two, np.where(use_left, t1, np.inf), qhi)
    # linear: 2 b t + c <= 0
    lin_lo = np.where(b < 0, -c / np.where(b != 0, 2 * b, 1.0), -np.inf)
    lin_hi = np.where(b > 0, -c / np.where(b != 0, 2 * b, 1.0), np.inf)
    none = (b == 0) & (c > 0)
    qlo = np.where(flat, np.where(none, np.inf, lin_lo), qlo)
    qhi = np.where(flat, np.where(none, -np.inf, lin_hi), qhi)
    lo, hi, src = _interval_and(lo, hi, src, qlo, qhi, 0)
    src = np.where(lo == qlo, 0, src)  # a tie (the ray enters at the rim): the side's normal
    return lo, hi, src


def raycast_cylinder(origin: ArrayLike, direction: ArrayLike, max_distance: float | NDArray[np.float64],
                     center: ArrayLike, rotation: ArrayLike, radius: ArrayLike, half_height: ArrayLike,
                     cone: ArrayLike) -> RayHits:
    """One ray against N cylinders or cones (3D), exactly: the quadric of the side and the cap planes.

    A cylinder is ``x^2 + y^2 <= r^2``, ``|z| <= h`` in its frame; a cone (``cone`` True) has its base
    disc of radius r at ``z = -h`` and its apex at ``z = +h``. The ray's entry is the largest of its
    entries into the convex sets whose intersection the solid is (see
    ``_solid_of_revolution_entry``); a ray that misses the solid but meets it grown by the
    touching tolerance (in radius and half height) hits where it enters the grown solid.

    Parameters
    ----------
    origin, direction : array_like, shape (3,)
        ``direction`` of unit length.
    max_distance : float
    center : array_like, shape (N, 3)
    rotation : array_like, shape (N, 3, 3)
        Local-to-world rotations.
    radius, half_height : array_like, shape (N,)
    cone : array_like of bool, shape (N,)

    Returns
    -------
    RayHits

    Examples
    --------
    A ray along +x from the origin against an upright cylinder (radius 1, half height 1) at x = 3
    enters its side at x = 2; one from (0, 0, 5) straight down meets a cone (radius 1, half height
    1) at the origin at its apex, z = 1:

    >>> import numpy as np
    >>> r = raycast_cylinder([0.0, 0, 0], [1.0, 0, 0], 10.0, [[3.0, 0, 0]], np.eye(3)[None], [1.0], [1.0], [False])
    >>> r.distance.tolist(), r.normal.tolist()
    ([2.0], [[-1.0, 0.0, 0.0]])
    >>> r = raycast_cylinder([0.0, 0, 5], [0.0, 0, -1], 10.0, [[0.0, 0, 0]], np.eye(3)[None], [1.0], [1.0], [True])
    >>> r.distance.tolist()
    [4.0]
    """
    o, d, max_distance = _as_ray(origin, direction, max_distance)
    centre = np.asarray(center, dtype=np.float64)
    rot = np.asarray(rotation, dtype=np.float64)
    r = np.asarray(radius, dtype=np.float64)
    h = np.asarray(half_height, dtype=np.float64)
    is_cone = np.asarray(cone, dtype=bool)
    local_o = np.einsum("nji,nj->ni", rot, o - centre)
    local_d = np.einsum("nji,j->ni", rot, d)
    tol = touch_tolerance(np.maximum(np.max(np.abs(o), initial=0.0), _row_max_abs(centre) + np.hypot(r, h)))
    lo, hi, src = _solid_of_revolution_entry(local_o, local_d, r, h, is_cone)
    exact = (lo <= hi) & (hi >= 0.0) & (lo <= max_distance)
    # a graze: the solid grown by the touching tolerance (a cone keeps its slope: apex and base move by tol)
    glo, ghi, gsrc = _solid_of_revolution_entry(local_o, local_d, r + tol, h + tol, is_cone)
    grazed = ~exact & (glo <= ghi) & (ghi >= 0.0) & (glo <= max_distance)
    hit = exact | grazed
    lo = np.where(exact, lo, glo)
    src = np.where(exact, src, gsrc)
    inside = hit & (lo <= 0.0)
    distance = np.where(hit, np.clip(lo, 0.0, max_distance), np.inf)
    p = local_o + np.where(hit, distance, 0.0)[:, None] * local_d
    k2 = np.where(is_cone, (r / (2.0 * h)) ** 2, 0.0)
    side = np.stack([p[:, 0], p[:, 1], k2 * (h - p[:, 2])], axis=1)
    length = np.sqrt(np.einsum("ni,ni->n", side, side))
    side = np.where((length > 0)[:, None], side / np.where(length > 0, length, 1.0)[:, None], -local_d)
    cap = np.zeros_like(p)
    cap[:, 2] = np.where(src == 1, -1.0, 1.0)
    local_n = np.where((src == 0)[:, None], side, cap)
    return _finish(hit, inside, distance, np.einsum("nij,nj->ni", rot, local_n), d)
