"""Exact rational geometry for near-touching tests (no collideworld inside).

Every float input is converted to a :class:`fractions.Fraction` without
rounding, and every comparison is made on squares, so no decision here
depends on rounding. Shapes are modelled from the same floats collideworld
receives: a polygon by its vertices, a 2D or 3D box by its centre, its
rotation matrix (whatever floats the caller built) and its half extents, i.e.
the exact parallelogram / parallelepiped ``c + R [-h, h]^D``.

The one approximation: for a point against a 3D box, local coordinates are
taken as ``R^T (p - c)``, exact only for an exactly orthonormal ``R``; a
float rotation is orthonormal to ~1e-16, which moves the answer by ~1e-16 of
the distances involved, far inside the touching tolerance (1e-14 relative)
that every test here leaves undecided.
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import numpy as np

Q = tuple  # a point or vector of Fractions


def q(v) -> tuple[F, ...]:
    """Exact rational copy of a float vector (a tuple of Fractions passes through)."""
    if isinstance(v, tuple) and v and isinstance(v[0], F):
        return v
    return tuple(F(float(x)) for x in np.asarray(v, dtype=float).ravel())


def dot(u, v) -> F:
    return sum((a * b for a, b in zip(u, v, strict=True)), F(0))


def sub(u, v) -> tuple[F, ...]:
    return tuple(a - b for a, b in zip(u, v, strict=True))


def add(u, v) -> tuple[F, ...]:
    return tuple(a + b for a, b in zip(u, v, strict=True))


def scale(u, s) -> tuple[F, ...]:
    return tuple(a * s for a in u)


def cross(u, v) -> tuple[F, ...]:
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


def box_corners_2d(center, rotation, half) -> list[tuple[F, F]]:
    """Counter-clockwise corners of the exact parallelogram ``c + R [-h, h]^2``."""
    c, h = q(center), q(half)
    r = [q(row) for row in np.asarray(rotation, dtype=float)]
    out = []
    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        lx, ly = sx * h[0], sy * h[1]
        out.append((c[0] + r[0][0] * lx + r[0][1] * ly, c[1] + r[1][0] * lx + r[1][1] * ly))
    return out


def point_polygon(p, vertices) -> tuple[bool, F, tuple[F, F] | None]:
    """(inside, squared distance to the boundary, closest boundary point if outside).

    ``vertices``: a convex polygon, counter-clockwise, exact or float.
    Inside (or on the boundary) the squared distance is that to the nearest
    edge line, and no closest point is returned.
    """
    p = q(p)
    vs = [q(v) if not isinstance(v, tuple) else tuple(F(x) for x in v) for v in vertices]
    inside = True
    best, best_point, inner = None, None, None
    for k, a in enumerate(vs):
        b = vs[(k + 1) % len(vs)]
        e = sub(b, a)
        l2 = dot(e, e)
        if l2 == 0:
            continue
        w = sub(p, a)
        cr = e[0] * w[1] - e[1] * w[0]  # > 0: p is left of the edge, inside
        if cr < 0:
            inside = False
        line2 = cr * cr / l2
        inner = line2 if inner is None else min(inner, line2)
        t = min(max(dot(w, e) / l2, F(0)), F(1))
        foot = add(a, scale(e, t))
        d = sub(foot, p)
        d2 = dot(d, d)
        if best is None or d2 < best:
            best, best_point = d2, foot
    if inside:
        return True, inner, None
    return False, best, best_point


def point_box_3d(p, center, rotation, half) -> tuple[bool, F, tuple[F, F, F] | None]:
    """(inside, squared distance to the boundary, closest point if outside) for a 3D box."""
    p, c, h = q(p), q(center), q(half)
    r = [q(col) for col in np.asarray(rotation, dtype=float).T]  # the box axes
    local = [dot(axis, sub(p, c)) for axis in r]
    clamped = [min(max(x, -hi), hi) for x, hi in zip(local, h, strict=True)]
    out = [x - y for x, y in zip(local, clamped, strict=True)]
    d2 = sum((o * o for o in out), F(0))
    if d2 == 0:
        gap = min(hi - abs(x) for x, hi in zip(local, h, strict=True))
        return True, gap * gap, None
    closest = c
    for axis, y in zip(r, clamped, strict=True):
        closest = add(closest, scale(axis, y))
    return False, d2, closest


def ball_gap(inside: bool, d2: F, radius: float, tol: float) -> int:
    """Sign of (distance from the centre to the shape) - radius, outside a band of +-tol.

    +1: apart by more than ``tol``; -1: overlapping by more than ``tol``;
    0: within ``tol`` of touching. ``d2`` as from :func:`point_polygon` or
    :func:`point_box_3d`.
    """
    r, t = F(radius), F(tol)
    if inside:  # the penetration is r + sqrt(d2)
        return -1 if r > t or d2 > (t - r) ** 2 else 0
    if d2 > (r + t) ** 2:
        return 1
    if r > t and d2 < (r - t) ** 2:
        return -1
    return 0


def box_axes_3d(rotation) -> list[tuple[F, F, F]]:
    return [q(col) for col in np.asarray(rotation, dtype=float).T]


def sat_boxes_3d(ca, ra, ha, cb, rb, hb) -> list[tuple[F, F, tuple[F, F, F]]]:
    """Exact separating-axis data for two 3D parallelepipeds ``c + R [-h, h]^3``.

    Returns ``(s, LL, L)`` for each of the 15 candidate axes that is not zero:
    ``s = |L . d| - r_a(L) - r_b(L)``, the gap along the unnormalised axis
    ``L`` (positive: the boxes are apart along it), and ``LL = L . L``. The
    axes are the face normals of both (cross products of two edge
    directions) and the cross products of an edge of each; for convex
    polyhedra these decide separation exactly, and when they overlap the
    least overlap over them is the exact minimum translation distance.
    """
    d = sub(q(cb), q(ca))
    aa, ab = box_axes_3d(ra), box_axes_3d(rb)
    ha_, hb_ = q(ha), q(hb)
    axes = [cross(aa[1], aa[2]), cross(aa[2], aa[0]), cross(aa[0], aa[1]),
            cross(ab[1], ab[2]), cross(ab[2], ab[0]), cross(ab[0], ab[1])]
    axes += [cross(x, y) for x, y in itertools.product(aa, ab)]
    out = []
    for axis in axes:
        ll = dot(axis, axis)
        if ll == 0:
            continue
        reach = sum((h * abs(dot(axis, e)) for h, e in zip(ha_, aa, strict=True)), F(0))
        reach += sum((h * abs(dot(axis, e)) for h, e in zip(hb_, ab, strict=True)), F(0))
        out.append((abs(dot(axis, d)) - reach, ll, axis))
    return out


def sat_verdict(axes, tol: float) -> int:
    """+1 apart by more than ``tol`` along some axis; -1 overlapping by more than ``tol``
    (along every axis, so the minimum translation exceeds it); 0 otherwise."""
    t2 = F(tol) ** 2
    if any(s > 0 and s * s > t2 * ll for s, ll, _ in axes):
        return 1
    if all(s < 0 and s * s > t2 * ll for s, ll, _ in axes):
        return -1
    return 0
