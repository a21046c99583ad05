"""Closest points of convex pieces: GJK on support mappings, plus the plane closed form.

Every finite shape is a set of convex *pieces*, each the convex hull of a few
local vertices grown by a radius (Box2D's "proxy" idea, ``b2ShapeProxy``): a
circle or sphere is one vertex with its radius, a box its 4 or 8 corners, a
polygon one piece per convex part. A half-plane or plane is a piece of its
own kind whose single "vertex" row holds the outward unit normal and whose
radius holds the offset. Coordinates are always 3D: a 2D shape lies in
``z = 0`` and turns about z, so one GJK serves both dimensions.

The distance of two pieces is the distance of their vertex hulls (GJK) less
both radii; a plane against a piece is the closed form ``min n.v - r - offset``.

GJK here (Gilbert, Johnson & Keerthi 1988; Ericson, *Real-Time Collision
Detection*, §9.5; Box2D v3 ``distance.c``)::

    v = a0 - b0                       # any point of the Minkowski difference A - B
    repeat:
        w = support_A(-v) - support_B(v)
        stop if |v|^2 - v.w <= eps |v|^2   # v is within eps of the lower bound v.w/|v|
        add w to the simplex
        v = point of the simplex nearest the origin; drop the vertices it does not use
        stop if the simplex is a tetrahedron holding the origin, or |v| did not shrink
    answer |v| (from the simplex's face); ws[14, 0] = 0 when stopped by rounding
    before any v.w > 0 proved the pieces apart (nearly parallel faces can stall
    an overlapping pair 1e-9 of its size short of the origin)

The nearest point of a simplex of at most 4 vertices is found by trying each
of its (at most 15) faces: the affine projection of the origin with
barycentric weights all positive, nearest the origin, wins. That is slower
than Johnson's recursion but has no case analysis to get wrong and skips
degenerate faces (a zero Gram determinant) instead of dividing by them,
which is the robustness concern of Montanari, Petrinic & Barbieri (2017).

All functions are numba-compatible Python: compiled with ``@njit(cache=True)``
(never fastmath) when numba imports, run as plain Python otherwise.
:func:`python_twin` returns the plain-Python version of any of them, whose
callees are plain Python too, for differential tests.

NOTE: numba's on-disk cache checks only the source file of the function it
caches, and compiled callers carry their callees' code, so after editing
this file the cached kernels of :mod:`collideworld.geometry.time_of_impact`
are stale until that file changes too (or its ``__pycache__/*.nb[ic]`` are
removed). Installed packages are not affected.
"""

from __future__ import annotations

import importlib
import math
import types
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from .tolerance import REL_TOUCH_TOL

__all__ = ["COMPILED", "python_twin", "twin_jit", "gjk_closest", "gjk_pieces", "piece_support", "shape_distance",
           "posed_distance", "distance_measure", "pose_at", "closest_rows"]

F = TypeVar("F", bound=Callable[..., Any])

try:
    # imported by name so that mypy (numba ships no stubs) sees a plain module object
    _numba: Any = importlib.import_module("numba")
except ImportError:  # the same source then runs as plain Python
    _numba = None

#: True when the kernels below are compiled by numba.
COMPILED = _numba is not None

# name -> the plain-Python function, for python_twin
_PLAIN: dict[str, Callable[..., Any]] = {}


def twin_jit(fn: F) -> F:
    """``numba.njit(cache=True)`` of ``fn`` (``fn`` itself without numba), its plain form kept for
    :func:`python_twin`; the kernels here and in :mod:`.time_of_impact` are made with it.

    Examples
    --------
    >>> "gjk_closest" in _PLAIN      # made with it: its plain form kept for python_twin
    True
    """
    _PLAIN[fn.__name__] = fn
    if _numba is None:
        return fn
    compiled: F = _numba.njit(cache=True)(fn)
    return compiled


def python_twin(name: str) -> Callable[..., Any]:
    """The uncompiled version of kernel ``name``, calling uncompiled versions of its callees.

    Parameters
    ----------
    name : str
        Name of a kernel of this module or of :mod:`collideworld.geometry.time_of_impact`.

    Returns
    -------
    callable
        Same signature and results (to rounding) as the compiled kernel.

    Examples
    --------
    >>> import numpy as np
    >>> world = np.array([[0.0, 0.0, 0.0], [3.0, 4.0, 0.0]])
    >>> out = np.zeros(9)
    >>> python_twin("gjk_closest")(world, 0, 1, 1, 1, np.zeros((16, 4)), out)
    5.0
    """
    twins: dict[str, Callable[..., Any]] = {}
    namespaces: dict[int, dict[str, Any]] = {}
    for fname, fn in _PLAIN.items():
        g = fn.__globals__
        if id(g) not in namespaces:
            namespaces[id(g)] = dict(g)
        twins[fname] = types.FunctionType(fn.__code__, namespaces[id(g)], fname, fn.__defaults__, fn.__closure__)
    for ns in namespaces.values():
        ns.update(twins)
    return twins[name]


# -- poses -------------------------------------------------------------------------
#
# A pose is a row of 8 numbers: position (3), unit quaternion [w, x, y, z] (4)
# and, for 2D, the angle (1). 2D rotations use the angle, so a motion from 0 to
# 6 radians turns almost a full circle rather than taking the short way back.

@twin_jit
def rotation_into(pose: NDArray[np.float64], dim: int, rot: NDArray[np.float64]) -> None:
    """Write the (3, 3) rotation matrix of ``pose`` into ``rot``."""
    if dim == 2:
        c = math.cos(pose[7])
        s = math.sin(pose[7])
        rot[0, 0] = c
        rot[0, 1] = -s
        rot[0, 2] = 0.0
        rot[1, 0] = s
        rot[1, 1] = c
        rot[1, 2] = 0.0
        rot[2, 0] = 0.0
        rot[2, 1] = 0.0
        rot[2, 2] = 1.0
        return
    w = pose[3]
    x = pose[4]
    y = pose[5]
    z = pose[6]
    rot[0, 0] = 1.0 - 2.0 * (y * y + z * z)
    rot[0, 1] = 2.0 * (x * y - w * z)
    rot[0, 2] = 2.0 * (x * z + w * y)
    rot[1, 0] = 2.0 * (x * y + w * z)
    rot[1, 1] = 1.0 - 2.0 * (x * x + z * z)
    rot[1, 2] = 2.0 * (y * z - w * x)
    rot[2, 0] = 2.0 * (x * z - w * y)
    rot[2, 1] = 2.0 * (y * z + w * x)
    rot[2, 2] = 1.0 - 2.0 * (x * x + y * y)


@twin_jit
def transform_shape(verts: NDArray[np.float64], first: int, count: int, pose: NDArray[np.float64], dim: int,
                    rot: NDArray[np.float64], world: NDArray[np.float64]) -> None:
    """``world[k] = R @ verts[k] + position`` for ``k`` in ``first .. first + count - 1``."""
    rotation_into(pose, dim, rot)
    for k in range(first, first + count):
        x = verts[k, 0]
        y = verts[k, 1]
        z = verts[k, 2]
        for i in range(3):
            world[k, i] = rot[i, 0] * x + rot[i, 1] * y + rot[i, 2] * z + pose[i]


@twin_jit
def pose_at(p0: NDArray[np.float64], p1: NDArray[np.float64], t: float, dim: int, out: NDArray[np.float64]) -> None:
    """The pose a fraction ``t`` of the way from ``p0`` to ``p1``, into ``out`` (8,).

    Positions move linearly; a 2D angle linearly; a 3D rotation along the
    shortest arc at constant angular speed (slerp).

    Examples
    --------
    Half way through a quarter turn about z (from ``[1, 0, 0, 0]`` to
    ``[cos 45deg, 0, 0, sin 45deg]``) is an eighth of a turn:

    >>> import numpy as np
    >>> p0 = np.array([0.0, 0, 0, 1, 0, 0, 0, 0])
    >>> p1 = np.array([2.0, 0, 0, np.cos(np.pi / 4), 0, 0, np.sin(np.pi / 4), 0])
    >>> out = np.zeros(8)
    >>> pose_at(p0, p1, 0.5, 3, out)
    >>> float(out[0]), bool(np.allclose(out[3:7], [np.cos(np.pi / 8), 0, 0, np.sin(np.pi / 8)]))
    (1.0, True)
    """
    for i in range(3):
        out[i] = p0[i] + t * (p1[i] - p0[i])
    out[7] = p0[7] + t * (p1[7] - p0[7])
    if dim == 2:
        return
    d = p0[3] * p1[3] + p0[4] * p1[4] + p0[5] * p1[5] + p0[6] * p1[6]
    sign = 1.0
    if d < 0.0:  # q and -q are the same rotation: take the shorter way round
        sign = -1.0
        d = -d
    if d > 1.0 - 1e-12:
        # nearly equal: slerp's sin(theta) would vanish; linear blend, renormalised
        w0 = 1.0 - t
        w1 = t * sign
    else:
        theta = math.acos(d)
        st = math.sin(theta)
        w0 = math.sin((1.0 - t) * theta) / st
        w1 = math.sin(t * theta) / st * sign
    norm = 0.0
    for i in range(3, 7):
        out[i] = w0 * p0[i] + w1 * p1[i]
        norm += out[i] * out[i]
    norm = math.sqrt(norm)
    for i in range(3, 7):
        out[i] /= norm


@twin_jit
def angular_speed(p0: NDArray[np.float64], p1: NDArray[np.float64], dim: int) -> float:
    """Angle turned per unit of ``t`` between two poses, as :func:`pose_at` moves."""
    if dim == 2:
        return float(abs(p1[7] - p0[7]))
    d = abs(p0[3] * p1[3] + p0[4] * p1[4] + p0[5] * p1[5] + p0[6] * p1[6])
    return 2.0 * math.acos(min(1.0, d))


# -- GJK ---------------------------------------------------------------------------
#
# Scratch rows of ``ws`` (16, 4), xyz in the first 3 columns: 0-3 simplex
# points w = a - b, 4-7 their points on A, 8-11 on B; rows 12 and 13 hold 4
# barycentric weights each. Passing scratch in keeps the per-pair loops free
# of allocation.

@twin_jit
def _face_weights(ws: NDArray[np.float64], i0: int, i1: int, i2: int, i3: int, k: int,
                  lam: NDArray[np.float64]) -> bool:
    """Barycentric weights of the origin's projection on the face ``i0..i(k-1)``; False if not inside.

    ``lam`` (4,) receives the weights of the face's vertices in order.
    """
    if k == 1:
        lam[0] = 1.0
        return True
    p0x = ws[i0, 0]
    p0y = ws[i0, 1]
    p0z = ws[i0, 2]
    e1x = ws[i1, 0] - p0x
    e1y = ws[i1, 1] - p0y
    e1z = ws[i1, 2] - p0z
    a11 = e1x * e1x + e1y * e1y + e1z * e1z
    r1 = -(p0x * e1x + p0y * e1y + p0z * e1z)
    if k == 2:
        if not a11 > 0.0:
            return False
        t = r1 / a11
        if not (0.0 < t < 1.0):  # end points are faces of their own
            return False
        lam[0] = 1.0 - t
        lam[1] = t
        return True
    e2x = ws[i2, 0] - p0x
    e2y = ws[i2, 1] - p0y
    e2z = ws[i2, 2] - p0z
    a12 = e1x * e2x + e1y * e2y + e1z * e2z
    a22 = e2x * e2x + e2y * e2y + e2z * e2z
    r2 = -(p0x * e2x + p0y * e2y + p0z * e2z)
    if k == 3:
        det = a11 * a22 - a12 * a12
        # a sliver triangle: its edges answer instead (no division by ~0)
        if not det > 1e-12 * a11 * a22:
            return False
        m1 = (r1 * a22 - a12 * r2) / det
        m2 = (a11 * r2 - a12 * r1) / det
        m0 = 1.0 - m1 - m2
        if not (m0 > 0.0 and m1 > 0.0 and m2 > 0.0):
            return False
        lam[0] = m0
        lam[1] = m1
        lam[2] = m2
        return True
    e3x = ws[i3, 0] - p0x
    e3y = ws[i3, 1] - p0y
    e3z = ws[i3, 2] - p0z
    a13 = e1x * e3x + e1y * e3y + e1z * e3z
    a23 = e2x * e3x + e2y * e3y + e2z * e3z
    a33 = e3x * e3x + e3y * e3y + e3z * e3z
    r3 = -(p0x * e3x + p0y * e3y + p0z * e3z)
    c11 = a22 * a33 - a23 * a23
    c12 = a13 * a23 - a12 * a33
    c13 = a12 * a23 - a13 * a22
    det = a11 * c11 + a12 * c12 + a13 * c13
    if not det > 1e-12 * a11 * a22 * a33:  # flat tetrahedron (always in 2D)
        return False
    c22 = a11 * a33 - a13 * a13
    c23 = a12 * a13 - a11 * a23
    c33 = a11 * a22 - a12 * a12
    m1 = (c11 * r1 + c12 * r2 + c13 * r3) / det
    m2 = (c12 * r1 + c22 * r2 + c23 * r3) / det
    m3 = (c13 * r1 + c23 * r2 + c33 * r3) / det
    m0 = 1.0 - m1 - m2 - m3
    if not (m0 > 0.0 and m1 > 0.0 and m2 > 0.0 and m3 > 0.0):
        return False
    lam[0] = m0
    lam[1] = m1
    lam[2] = m2
    lam[3] = m3
    return True


@twin_jit
def _nearest_on_simplex(ws: NDArray[np.float64], m: int, best_lam: NDArray[np.float64],
                        lam: NDArray[np.float64], most: int) -> tuple[int, float]:
    """(mask of the face used, squared distance) of the simplex point nearest the origin.

    Only faces of at most ``most`` vertices are tried (3: the boundary of a
    tetrahedron). ``best_lam`` (4,) receives the weight of each simplex
    vertex (0 off the face).
    """
    best = math.inf
    best_mask = 0
    for mask in range(1, 1 << m):
        if mask == 15 and most < 4:
            continue
        # np.int64, not the literal 0: numba types the call below as soon as it has met the first
        # assignment, and a Literal[int](0) there compiled _face_weights a second time
        k = np.int64(0)
        i0 = np.int64(0)
        i1 = np.int64(0)
        i2 = np.int64(0)
        i3 = np.int64(0)
        for j in range(m):
            if (mask >> j) & 1:
                if k == 0:
                    i0 = j
                elif k == 1:
                    i1 = j
                elif k == 2:
                    i2 = j
                else:
                    i3 = j
                k += 1
        if not _face_weights(ws, i0, i1, i2, i3, k, lam):
            continue
        x = 0.0
        y = 0.0
        z = 0.0
        for q in range(k):
            i = i0 if q == 0 else (i1 if q == 1 else (i2 if q == 2 else i3))
            x += lam[q] * ws[i, 0]
            y += lam[q] * ws[i, 1]
            z += lam[q] * ws[i, 2]
        nn = x * x + y * y + z * z
        if nn < best:
            best = nn
            best_mask = mask
            for j in range(4):
                best_lam[j] = 0.0
            for q in range(k):
                i = i0 if q == 0 else (i1 if q == 1 else (i2 if q == 2 else i3))
                best_lam[i] = lam[q]
    return best_mask, best


@twin_jit
def _holds_origin(ws: NDArray[np.float64]) -> bool:
    """Whether the tetrahedron ``ws[0:4]`` holds the origin (closed), by signed volumes.

    For each face, the origin must lie on the same side as the opposite
    vertex, or on the face: the orientation tests of Ericson RTCD 5.1.6 on
    the points themselves, better conditioned than barycentric weights from
    the Gram matrix (whose determinant squares the volume).
    """
    for q in range(4):  # the face opposite vertex q
        i = 1 if q == 0 else 0
        j = 2 if q <= 1 else 1
        k = 3 if q <= 2 else 2
        e1x = ws[j, 0] - ws[i, 0]
        e1y = ws[j, 1] - ws[i, 1]
        e1z = ws[j, 2] - ws[i, 2]
        e2x = ws[k, 0] - ws[i, 0]
        e2y = ws[k, 1] - ws[i, 1]
        e2z = ws[k, 2] - ws[i, 2]
        nx = e1y * e2z - e1z * e2y
        ny = e1z * e2x - e1x * e2z
        nz = e1x * e2y - e1y * e2x
        apex = nx * (ws[q, 0] - ws[i, 0]) + ny * (ws[q, 1] - ws[i, 1]) + nz * (ws[q, 2] - ws[i, 2])
        origin = -(nx * ws[i, 0] + ny * ws[i, 1] + nz * ws[i, 2])
        if apex * origin < 0.0:
            return False
    return True


@twin_jit
def piece_support(world: NDArray[np.float64], first: int, count: int, kind: int, dx: float, dy: float,
                  dz: float) -> tuple[float, float, float]:
    """The point of piece ``world[first:first+count]`` farthest along ``d`` (the first of equals).

    ``kind`` 0: the hull of the rows (a vertex). ``kind`` 2 (a cylinder) or 3 (a
    cone): three rows, the bottom (base) centre ``b``, the top centre (apex)
    ``t`` and a point ``e`` of the bottom rim; the solid's support is that of
    its discs: a disc of radius r with unit axis u is farthest along d at
    ``centre + r d_perp / |d_perp|``, ``d_perp = d - (d.u) u`` (the rim point
    of the disc in the direction of d's part across the axis). A cylinder
    sweeps the bottom disc to the top one; a cone is the hull of the base disc
    and the apex.
    """
    if kind < 2:
        k = first
        best = -math.inf
        for i in range(first, first + count):
            s = world[i, 0] * dx + world[i, 1] * dy + world[i, 2] * dz
            if s > best:
                best = s
                k = i
        return world[k, 0], world[k, 1], world[k, 2]
    bx = world[first, 0]
    by = world[first, 1]
    bz = world[first, 2]
    ux = world[first + 1, 0] - bx
    uy = world[first + 1, 1] - by
    uz = world[first + 1, 2] - bz
    ex = world[first + 2, 0] - bx
    ey = world[first + 2, 1] - by
    ez = world[first + 2, 2] - bz
    r = math.sqrt(ex * ex + ey * ey + ez * ez)
    uu = ux * ux + uy * uy + uz * uz
    du = dx * ux + dy * uy + dz * uz
    px = dx - du / uu * ux
    py = dy - du / uu * uy
    pz = dz - du / uu * uz
    # once more: for d nearly along the axis the first projection leaves a rounding residue with an
    # axial part as large as its perpendicular part, which the scaling to length r would blow up
    # to a point off the disc's plane (Gram-Schmidt twice is enough: Giraud et al. 2005)
    again = (px * ux + py * uy + pz * uz) / uu
    px -= again * ux
    py -= again * uy
    pz -= again * uz
    q = math.sqrt(px * px + py * py + pz * pz)
    ox = 0.0
    oy = 0.0
    oz = 0.0
    if q > 0.0:
        ox = r * px / q
        oy = r * py / q
        oz = r * pz / q
    if kind == 2:
        if du >= 0.0:
            return bx + ux + ox, by + uy + oy, bz + uz + oz
        return bx + ox, by + oy, bz + oz
    # cone: the apex when it reaches at least as far as the base rim along d
    if du >= r * q:
        return bx + ux, by + uy, bz + uz
    return bx + ox, by + oy, bz + oz


@twin_jit
def gjk_closest(world: NDArray[np.float64], a0: int, na: int, b0: int, nb: int, ws: NDArray[np.float64],
                out: NDArray[np.float64]) -> float:
    """:func:`gjk_pieces` of two vertex hulls (kind 0 both)."""
    vertices = np.int64(0)  # piece kind 0, not a literal: with one, numba compiles gjk_pieces a second time
    return gjk_pieces(world, a0, na, vertices, b0, nb, vertices, ws, out)


@twin_jit
def gjk_pieces(world: NDArray[np.float64], a0: int, na: int, ka: int, b0: int, nb: int, kb: int,
               ws: NDArray[np.float64], out: NDArray[np.float64]) -> float:
    """Distance between pieces ``world[a0:a0+na]`` (kind ``ka``, see :func:`piece_support`) and
    ``world[b0:b0+nb]`` (kind ``kb``); 0 when they overlap.

    ``out[0:3]`` and ``out[3:6]`` receive the closest points on A and on B
    (when overlapping, unspecified), ``out[6:9]`` the unit direction from A
    to B (zero when overlapping).
    ``ws`` is (16, 4) scratch; on return ``ws[14, 0]`` is 1.0 when the answer
    is proved (GJK converged, or a direction separated the hulls), 0.0 when
    rounding stopped it first (then the hulls may overlap), and ``ws[14, 1]``
    the best proved lower bound of the distance (0 if none).

    Examples
    --------
    The triangle (0, 0), (2, 0), (0, 2) and the point (2, 2) are sqrt(2) apart,
    the nearest point of the triangle being (1, 1):

    >>> import numpy as np
    >>> world = np.array([[0, 0, 0], [2, 0, 0], [0, 2, 0], [2, 2, 0]], dtype=float)
    >>> out = np.zeros(9)
    >>> d = gjk_closest(world, 0, 3, 3, 1, np.zeros((16, 4)), out)
    >>> round(d ** 2, 12), out.round(12).tolist()[:6]
    (2.0, [1.0, 1.0, 0.0, 2.0, 2.0, 0.0])
    """
    tmp4 = ws[12]
    # simplex starts as the first vertex pair
    m = 1
    for i in range(3):
        ws[4, i] = world[a0, i]
        ws[8, i] = world[b0, i]
        ws[0, i] = world[a0, i] - world[b0, i]
    wts0 = 1.0
    wts1 = 0.0
    wts2 = 0.0
    wts3 = 0.0
    vx = ws[0, 0]
    vy = ws[0, 1]
    vz = ws[0, 2]
    vv = vx * vx + vy * vy + vz * vz
    # the best lower bound of the distance met so far: min over A - B of x . v / |v| = v . w / |v|
    # (Ericson 9.5.2); a positive one proves the pieces apart
    lower = 0.0
    converged = False
    for _ in range(64):
        if vv == 0.0:
            break
        # supports: A's farthest along -v, B's farthest along v
        sax, say, saz = piece_support(world, a0, na, ka, -vx, -vy, -vz)
        sbx, sby, sbz = piece_support(world, b0, nb, kb, vx, vy, vz)
        wx = sax - sbx
        wy = say - sby
        wz = saz - sbz
        # Ericson 9.5.2: v.w / |v| is a lower bound of the distance; stop when
        # |v| is within a relative 1e-14 of it
        vw = vx * wx + vy * wy + vz * wz
        if vw > 0.0:
            lower = max(lower, vw / math.sqrt(vv))
        if vv - vw <= 1e-14 * vv:
            converged = True
            break
        duplicate = False
        for j in range(m):
            if ws[j, 0] == wx and ws[j, 1] == wy and ws[j, 2] == wz:
                duplicate = True
        if duplicate:  # no new support point: v is as good as it gets
            break
        ws[m, 0] = wx
        ws[m, 1] = wy
        ws[m, 2] = wz
        ws[4 + m, 0] = sax
        ws[4 + m, 1] = say
        ws[4 + m, 2] = saz
        ws[8 + m, 0] = sbx
        ws[8 + m, 1] = sby
        ws[8 + m, 2] = sbz
        mask, nn = _nearest_on_simplex(ws, m + 1, tmp4, ws[13], np.int64(4))  # not literals: one compile
        if mask == 15 and not _holds_origin(ws):
            # The Gram-matrix weights of a thin tetrahedron (its apex w nearly in the plane of
            # the triangle, as where two faces are nearly parallel) carry errors of order
            # eps / height^2, enough to put an origin 1e-10 of the size outside inside.
            # The signed volumes (Ericson RTCD 9.5.2 via 5.1.6's orientation tests) err by
            # only eps * size^3: when they see the origin outside a face, the nearest point is
            # on the boundary, so the descent goes on from the best of the four triangles.
            # (Stopping at the previous simplex instead left flush boxes that touch with a v
            # a quarter of their size long, and distance() reported that as the gap.)
            mask, nn = _nearest_on_simplex(ws, m + 1, tmp4, ws[13], np.int64(3))
        if mask == 0 or not nn < vv:
            break  # rounding stalled the descent: keep the previous simplex and v
        # keep only the face used, with its weights, packed to the front
        k = 0
        for j in range(m + 1):
            if (mask >> j) & 1:
                w = tmp4[j]
                for i in range(3):
                    ws[k, i] = ws[j, i]
                    ws[4 + k, i] = ws[4 + j, i]
                    ws[8 + k, i] = ws[8 + j, i]
                if k == 0:
                    wts0 = w
                elif k == 1:
                    wts1 = w
                elif k == 2:
                    wts2 = w
                else:
                    wts3 = w
                k += 1
        m = k
        vx = 0.0
        vy = 0.0
        vz = 0.0
        for j in range(m):
            w = wts0 if j == 0 else (wts1 if j == 1 else (wts2 if j == 2 else wts3))
            vx += w * ws[j, 0]
            vy += w * ws[j, 1]
            vz += w * ws[j, 2]
        vv = vx * vx + vy * vy + vz * vz
        if m == 4:  # a tetrahedron holding the origin in its interior
            vv = 0.0
            break
    for i in range(6):
        out[i] = 0.0
    for j in range(m):
        w = wts0 if j == 0 else (wts1 if j == 1 else (wts2 if j == 2 else wts3))
        for i in range(3):
            out[i] += w * ws[4 + j, i]
            out[3 + i] += w * ws[8 + j, i]
    if vv == 0.0:
        out[6] = 0.0
        out[7] = 0.0
        out[8] = 0.0
        return 0.0
    # The direction from A to B. Near touching, v = sum(lambda w) is a tiny
    # difference of large numbers and its direction is noise; the simplex's
    # face is not: its normal (an edge's perpendicular in 2D, a triangle's
    # cross product in 3D) is well conditioned, and the distance is then the
    # origin's distance to that face (Box2D's b2ComputeSimplexSeparation does
    # the same for the 2D edge).
    nx = -vx
    ny = -vy
    nz = -vz
    flat = ka < 2 and kb < 2  # a 2D pair: every vertex in z = 0 (a cylinder or cone is 3D)
    for k in range(a0, a0 + na):
        flat = flat and world[k, 2] == 0.0
    for k in range(b0, b0 + nb):
        flat = flat and world[k, 2] == 0.0
    if m == 2 and flat:
        nx = -(ws[1, 1] - ws[0, 1])
        ny = ws[1, 0] - ws[0, 0]
        nz = 0.0
    elif m == 3:
        e1x = ws[1, 0] - ws[0, 0]
        e1y = ws[1, 1] - ws[0, 1]
        e1z = ws[1, 2] - ws[0, 2]
        e2x = ws[2, 0] - ws[0, 0]
        e2y = ws[2, 1] - ws[0, 1]
        e2z = ws[2, 2] - ws[0, 2]
        nx = e1y * e2z - e1z * e2y
        ny = e1z * e2x - e1x * e2z
        nz = e1x * e2y - e1y * e2x
    length = math.sqrt(nx * nx + ny * ny + nz * nz)
    if not length > 0.0:
        nx = -vx
        ny = -vy
        nz = -vz
        length = math.sqrt(vv)
    if nx * vx + ny * vy + nz * vz > 0.0:  # point from A to B, i.e. against v = a - b
        length = -length
    nx /= length
    ny /= length
    nz /= length
    vlen = math.sqrt(vv)
    dist = vlen
    if m > 1:
        # The origin's distance to the face's plane (or line) is at most |v|, v being a point
        # of that face, and equal to it in exact arithmetic. A larger one means the face's
        # normal is noise: a sliver face, or (an edge in 3D) the direction of a v that is
        # itself a rounding residue, as where two flush faces touch and v ~ 1e-17 made
        # v.w0 / |v| come out 0.8. Then only |v| (the witness points' own distance) is
        # trusted, along v; otherwise the face's value, better conditioned near touching.
        size = 0.0
        for j in range(m):
            for i in range(3):
                size = max(size, abs(ws[j, i]))
        face = max(0.0, -(nx * ws[0, 0] + ny * ws[0, 1] + nz * ws[0, 2]))
        if face <= vlen + 1e-12 * size:
            dist = min(face, vlen)
        else:
            nx = -vx / vlen
            ny = -vy / vlen
            nz = -vz / vlen
    out[6] = nx + 0.0  # + 0.0: no -0.0 components, whichever way the simplex ran
    out[7] = ny + 0.0
    out[8] = nz + 0.0
    # Stopped by rounding (no progress, a repeated support point, the iteration cap, a
    # tetrahedron whose weights and volumes disagree) with no separating direction met, |v|
    # only bounds the distance from above: near nearly parallel faces an overlapping pair can
    # stall 1e-9 of its size short of the origin. ws[14, 0] says whether the answer is proved
    # (converged, or some v.w > 0 showed a gap): callers deciding hits (the hull contacts)
    # read an unproved answer as 0; distance and time-of-impact callers keep |v|.
    ws[14, 0] = 1.0 if converged or lower > 0.0 else 0.0
    ws[14, 1] = lower  # the proved lower bound: the true distance is in [lower, dist]
    return float(dist)


@twin_jit
def piece_distance(world: NDArray[np.float64], pfirst: NDArray[np.int64], pcount: NDArray[np.int64],
                   prad: NDArray[np.float64], pplane: NDArray[np.int64], ia: int, ib: int,
                   ws: NDArray[np.float64], out: NDArray[np.float64]) -> float:
    """Signed distance of pieces ``ia`` and ``ib`` (vertices already in ``world``).

    Returns the gap (``<= 0`` when the pieces touch or overlap; when they
    overlap it is only an upper bound of minus the depth). ``out[0:3]``,
    ``out[3:6]``: closest points on a and b; ``out[6:9]``: unit normal from a
    to b (zero when the vertex hulls overlap). A plane piece's normal is its
    ``world`` row and its offset its radius; two planes are not handled here.
    """
    if pplane[ia] == 1 or pplane[ib] == 1:
        flip = pplane[ia] == 1
        pl = ia if flip else ib
        other = ib if flip else ia
        nx = world[pfirst[pl], 0]
        ny = world[pfirst[pl], 1]
        nz = world[pfirst[pl], 2]
        lx, ly, lz = piece_support(world, pfirst[other], pcount[other], pplane[other], -nx, -ny, -nz)
        best = lx * nx + ly * ny + lz * nz
        r = prad[other]
        gap = float(best - r - prad[pl])
        # deepest point of the piece, and its foot on the plane's boundary
        po = 3 if flip else 0
        pp = 0 if flip else 3
        sgn = 1.0 if flip else -1.0  # normal from a to b
        out[po] = lx - r * nx
        out[po + 1] = ly - r * ny
        out[po + 2] = lz - r * nz
        out[pp] = out[po] - gap * nx
        out[pp + 1] = out[po + 1] - gap * ny
        out[pp + 2] = out[po + 2] - gap * nz
        out[6] = sgn * nx + 0.0
        out[7] = sgn * ny + 0.0
        out[8] = sgn * nz + 0.0
        return gap
    core = gjk_pieces(world, pfirst[ia], pcount[ia], pplane[ia], pfirst[ib], pcount[ib], pplane[ib], ws, out)
    ra = prad[ia]
    rb = prad[ib]
    if core > 0.0:
        for i in range(3):
            n = out[6 + i]
            out[i] += ra * n
            out[3 + i] -= rb * n
    return float(core - ra - rb)


@twin_jit
def shape_distance(world: NDArray[np.float64], pfirst: NDArray[np.int64], pcount: NDArray[np.int64],
                   prad: NDArray[np.float64], pplane: NDArray[np.int64], a_first: int, a_count: int,
                   b_first: int, b_count: int, ws: NDArray[np.float64], out: NDArray[np.float64],
                   tmp: NDArray[np.float64]) -> float:
    """Minimum of :func:`piece_distance` over the piece pairs of two shapes.

    ``out`` (11,) receives the minimising pair's points and normal (as in
    :func:`piece_distance`) and, in ``out[9]``, ``out[10]``, its pieces;
    ``tmp`` (11,) is scratch.

    Examples
    --------
    A unit circle at the origin and a box of half extents (1, 1) centred at
    (4, 0) are 2 apart:

    >>> import numpy as np
    >>> world = np.array([[0, 0, 0], [3, -1, 0], [5, -1, 0], [5, 1, 0], [3, 1, 0]], dtype=float)
    >>> pfirst, pcount = np.array([0, 1]), np.array([1, 4])
    >>> prad, pplane = np.array([1.0, 0.0]), np.array([0, 0])
    >>> out = np.zeros(11)
    >>> shape_distance(world, pfirst, pcount, prad, pplane, 0, 1, 1, 1, np.zeros((16, 4)), out, np.zeros(11))
    2.0
    >>> out[:9].tolist()
    [1.0, 0.0, 0.0, 3.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    """
    best = math.inf
    for ia in range(a_first, a_first + a_count):
        for ib in range(b_first, b_first + b_count):
            d = piece_distance(world, pfirst, pcount, prad, pplane, ia, ib, ws, tmp)
            if d < best:
                best = d
                for i in range(9):
                    out[i] = tmp[i]
                out[9] = ia
                out[10] = ib
    return best


@twin_jit
def posed_distance(verts: NDArray[np.float64], pfirst: NDArray[np.int64], pcount: NDArray[np.int64],
                   prad: NDArray[np.float64], pplane: NDArray[np.int64], svfirst: NDArray[np.int64],
                   svcount: NDArray[np.int64], sfirst: NDArray[np.int64], scount: NDArray[np.int64],
                   pose_a: NDArray[np.float64], pose_b: NDArray[np.float64], dim: int, world: NDArray[np.float64],
                   out: NDArray[np.float64]) -> float:
    """:func:`shape_distance` of packed shapes 0 and 1 at poses (8,) ``pose_a`` and ``pose_b``, in one call.

    Writes the world vertices of both shapes into ``world`` (as ``verts``) and
    the result into ``out`` (11,). One compiled call instead of three keeps the
    per-call dispatch cost of the scalar :func:`collideworld.distance` low.

    Examples
    --------
    Unit circles (one vertex each, radius 1) at x = 0 and x = 5 are 3 apart:

    >>> import numpy as np
    >>> one, first = np.ones(2, dtype=np.int64), np.arange(2)
    >>> a, b = np.array([0.0, 0, 0, 1, 0, 0, 0, 0]), np.array([5.0, 0, 0, 1, 0, 0, 0, 0])
    >>> posed_distance(np.zeros((2, 3)), first, one, np.ones(2), 0 * one, first, one, first, one, a, b, 2,
    ...                np.zeros((2, 3)), np.zeros(11))
    3.0
    """
    ws = np.zeros((16, 4))
    tmp = np.zeros(11)
    rot = np.zeros((3, 3))
    transform_shape(verts, svfirst[0], svcount[0], pose_a, dim, rot, world)
    transform_shape(verts, svfirst[1], svcount[1], pose_b, dim, rot, world)
    return shape_distance(world, pfirst, pcount, prad, pplane, sfirst[0], scount[0], sfirst[1], scount[1],
                          ws, out, tmp)


@twin_jit
def distance_measure(verts: NDArray[np.float64], pfirst: NDArray[np.int64], pcount: NDArray[np.int64],
                     prad: NDArray[np.float64], pplane: NDArray[np.int64], svfirst: NDArray[np.int64],
                     svcount: NDArray[np.int64], sfirst: NDArray[np.int64], scount: NDArray[np.int64],
                     row_a: tuple[float, ...], row_b: tuple[float, ...], dim: int, reach_a: float, reach_b: float,
                     plane_scale: float) -> tuple[bool, float, NDArray[np.float64], NDArray[np.float64]]:
    """:func:`posed_distance` with its own scratch, and whether its gap stands: ``(apart, gap, out (11,), world)``.

    The scalar :func:`collideworld.distance` in one call: ``row_a``, ``row_b``
    are the poses' kernel rows (8 floats each). ``apart`` is True when the gap
    exceeds the touching tolerance ``tol`` of the pair (``REL_TOUCH_TOL`` times
    the largest pose coordinate plus the shape's reach, or ``plane_scale``) and
    the witness points are certainly no closer than ``gap - tol`` (distance()
    keeps the gap then): then ``gap`` and ``out`` are the answer. Otherwise the
    caller decides (touching, overlapping, or a gap the witness points may
    undercut) from ``gap``, ``out`` and ``world``.

    Examples
    --------
    >>> import numpy as np
    >>> one, first = np.ones(2, dtype=np.int64), np.arange(2)
    >>> a, b = (0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0), (5.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0)
    >>> apart, gap, out, world = distance_measure(np.zeros((2, 3)), first, one, np.ones(2), 0 * one, first, one,
    ...                                           first, one, a, b, 2, 1.0, 1.0, 0.0)
    >>> apart, gap, out[:9].tolist()
    (True, 3.0, [1.0, 0.0, 0.0, 4.0, 0.0, 0.0, 1.0, 0.0, 0.0])
    """
    pose_a = np.empty(8)
    pose_b = np.empty(8)
    for i in range(8):
        pose_a[i] = row_a[i]
        pose_b[i] = row_b[i]
    world = np.zeros((verts.shape[0], 3))
    out = np.zeros(11)
    gap = posed_distance(verts, pfirst, pcount, prad, pplane, svfirst, svcount, sfirst, scount, pose_a, pose_b, dim,
                         world, out)
    # the touching tolerance as distance() computes it on Python floats (the same maxima, sums and product)
    scale = max(max(abs(row_a[0]), abs(row_a[1]), abs(row_a[2])) + reach_a,
                max(abs(row_b[0]), abs(row_b[1]), abs(row_b[2])) + reach_b, plane_scale)
    tol = REL_TOUCH_TOL * abs(scale)
    if not gap > tol:
        return False, gap, out, world
    # distance() corrects the gap to the witness points' distance w (numpy's sqrt(span @ span)) only
    # when w < gap - tol. That w and this e differ only in the order the squares are summed (and
    # FMA): a relative 1e-15 at most (4.5 ulps). So the gap stands when e >= gap, or when even
    # e lowered by 4e-15 of itself is not under gap - tol; otherwise the caller decides with numpy.
    e2 = (out[3] - out[0]) * (out[3] - out[0]) + (out[4] - out[1]) * (out[4] - out[1])
    if dim == 3:
        e2 = e2 + (out[5] - out[2]) * (out[5] - out[2])
    e = math.sqrt(e2)
    return e >= gap or e * (1.0 - 4e-15) >= gap - tol, gap, out, world


@twin_jit
def closest_rows(va: NDArray[np.float64], na: NDArray[np.int64], vb: NDArray[np.float64], nb: NDArray[np.int64],
                 out: NDArray[np.float64]) -> NDArray[np.float64]:
    """:func:`gjk_closest` of many pairs: the hulls of ``va[i, :na[i]]`` and ``vb[i, :nb[i]]`` (3D rows).

    Returns the distances (m,); ``out`` (m, 9) receives each pair's closest
    points and unit direction as :func:`gjk_closest` writes them. The rounded
    shapes' contacts use it: their cores' distance, less the radii, is the gap.

    Examples
    --------
    >>> import numpy as np
    >>> va = np.array([[[0.0, 0, 0], [2, 0, 0], [0, 2, 0]]])
    >>> vb = np.array([[[2.0, 2, 0], [2, 2, 0], [2, 2, 0]]])
    >>> d = closest_rows(va, np.array([3]), vb, np.array([1]), np.zeros((1, 9)))
    >>> round(float(d[0]) ** 2, 12)
    2.0
    """
    m = va.shape[0]
    gaps = np.empty(m)
    world = np.zeros((va.shape[1] + vb.shape[1], 3))
    ws = np.zeros((16, 4))
    tmp = np.zeros(9)
    for i in range(m):
        a = na[i]
        b = nb[i]
        for k in range(a):
            for j in range(3):
                world[k, j] = va[i, k, j]
        for k in range(b):
            for j in range(3):
                world[a + k, j] = vb[i, k, j]
        gaps[i] = gjk_closest(world, np.int64(0), a, a, b, ws, tmp)  # not a literal 0: one compile
        for j in range(9):
            out[i, j] = tmp[j]
    return gaps
