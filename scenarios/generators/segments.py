"""Independent geometry of the version 2 shapes (capsules, segments, convex hulls)
for the generators: nothing here imports collideworld.

* 2D segment distances in exact rational arithmetic (``fractions.Fraction``
  of the doubles written): exact orientation tests decide whether two
  segments cross; otherwise the distance is the smallest of the four
  end-point-to-segment distances, each a clamped projection done exactly.
  Contact is ``distance**2 <= (r1 + r2)**2``, compared exactly.
* 3D polytopes (boxes and hulls) in both representations: the vertices, and
  the face planes found by brute force over every triple of points (a plane
  is a face when no point lies outside it), with each face's points
  triangulated as a fan. Qhull, which collideworld uses, is not involved.
* 3D polytope-polytope and segment-polytope intersection by a linear program
  (scipy ``linprog``, HiGHS): the largest ``t`` such that a point, shrunk
  away from every face plane by ``t``, lies in both; they touch or overlap
  exactly when ``t >= 0``.
* 3D distances when apart, in closed form: point-segment (clamped
  projection), segment-segment (Ericson, RTCD 5.1.9, the clamped
  parametric minimum), point-triangle (projection inside, else the edges)
  and segment-triangle (the minimum over the end points and the three edges
  when they do not cross), the distance to a polytope being the smallest over
  its boundary triangles.
* python-fcl as a second opinion: every 3D pair involving a capsule, a
  segment or a hull that is clearly decided (more than ``FCL_CHECK_MARGIN``
  from flipping) is also run through ``fcl.collide``, and the generator stops
  if the two disagree.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
from scipy.optimize import linprog

#: Pairs at least this far from flipping are cross-checked with python-fcl
#: (its GJK works to about 1e-6; nearer pairs would test fcl, not the file).
FCL_CHECK_MARGIN = 1e-3


# ---------------------------------------------------------------------------
# 2D: exact segment distances
# ---------------------------------------------------------------------------


def _frac(p):
    return tuple(Fraction(float(v)) for v in p)


def _orient(a, b, c):
    """Sign of the cross product (b - a) x (c - a), exact."""
    v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return (v > 0) - (v < 0)


def _on_segment(a, b, p):
    """p, known collinear with a-b, lies within its bounding box."""
    return min(a[0], b[0]) <= p[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= p[1] <= max(a[1], b[1])


def segments_cross_exact(a, b, c, d):
    """Closed segments a-b and c-d share a point (2D, exact)."""
    o1, o2, o3, o4 = _orient(a, b, c), _orient(a, b, d), _orient(c, d, a), _orient(c, d, b)
    if o1 != o2 and o3 != o4 and o1 * o2 <= 0 and o3 * o4 <= 0:
        return True
    return ((o1 == 0 and _on_segment(a, b, c)) or (o2 == 0 and _on_segment(a, b, d))
            or (o3 == 0 and _on_segment(c, d, a)) or (o4 == 0 and _on_segment(c, d, b)))


def point_segment_dist2_exact(p, a, b):
    """Squared distance from p to the segment a-b, any dimension, exact (Fractions in, Fraction out)."""
    ab = [y - x for x, y in zip(a, b, strict=True)]
    ap = [y - x for x, y in zip(a, p, strict=True)]
    denom = sum(v * v for v in ab)
    t = Fraction(0) if denom == 0 else min(Fraction(1), max(Fraction(0), sum(u * v for u, v in zip(ap, ab,
                                                                                                  strict=True))
                                                             / denom))
    return sum((x + t * u - y) ** 2 for x, u, y in zip(a, ab, p, strict=True))


def segment_segment_dist2_exact(a, b, c, d):
    """Squared distance between the closed 2D segments a-b and c-d, exact."""
    a, b, c, d = _frac(a), _frac(b), _frac(c), _frac(d)
    if a != b and c != d and segments_cross_exact(a, b, c, d):
        return Fraction(0)
    if a == b and c == d:
        return sum((x - y) ** 2 for x, y in zip(a, c, strict=True))
    return min(point_segment_dist2_exact(a, c, d), point_segment_dist2_exact(b, c, d),
               point_segment_dist2_exact(c, a, b), point_segment_dist2_exact(d, a, b))


def gap_from_dist2(dist2, radius_sum):
    """(contact, margin) from an exact squared distance and the radii's sum.

    The margin is exactly 0 when the squared distance equals the squared sum
    exactly (a constructed touch)."""
    r = Fraction(float(radius_sum))
    if dist2 == r * r:
        return True, 0.0
    return dist2 < r * r, abs(math.sqrt(dist2) - float(r))


# ---------------------------------------------------------------------------
# 3D: closed-form distances
# ---------------------------------------------------------------------------


def closest_points_segments(p1, q1, p2, q2):
    """Closest points of segments p1-q1 and p2-q2 (3D floats; Ericson RTCD 5.1.9).

    Returns (c1, c2, distance)."""
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a, e, f = float(d1 @ d1), float(d2 @ d2), float(d2 @ r)
    if a <= 1e-300 and e <= 1e-300:
        return p1, p2, float(np.linalg.norm(p1 - p2))
    if a <= 1e-300:
        s, t = 0.0, min(1.0, max(0.0, f / e))
    else:
        c = float(d1 @ r)
        if e <= 1e-300:
            s, t = min(1.0, max(0.0, -c / a)), 0.0
        else:
            b = float(d1 @ d2)
            denom = a * e - b * b
            s = min(1.0, max(0.0, (b * f - c * e) / denom)) if denom > 0 else 0.0
            t = (b * s + f) / e
            if t < 0.0:
                t, s = 0.0, min(1.0, max(0.0, -c / a))
            elif t > 1.0:
                t, s = 1.0, min(1.0, max(0.0, (b - c) / a))
    c1, c2 = p1 + d1 * s, p2 + d2 * t
    return c1, c2, float(np.linalg.norm(c1 - c2))


def point_segment_closest(p, a, b):
    ab = b - a
    denom = float(ab @ ab)
    t = 0.0 if denom == 0 else min(1.0, max(0.0, float((p - a) @ ab) / denom))
    return a + t * ab


def point_triangle_dist(p, a, b, c):
    n = np.cross(b - a, c - a)
    n = n / np.linalg.norm(n)
    h = float((p - a) @ n)
    q = p - h * n  # the projection on the triangle's plane
    inside = all(float(np.cross(v1 - v0, q - v0) @ n) >= 0 for v0, v1 in ((a, b), (b, c), (c, a)))
    if inside:
        return abs(h)
    return min(float(np.linalg.norm(p - point_segment_closest(p, v0, v1))) for v0, v1 in ((a, b), (b, c), (c, a)))


def segment_crosses_triangle(p, q, a, b, c):
    n = np.cross(b - a, c - a)
    dp, dq = float((p - a) @ n), float((q - a) @ n)
    if dp * dq > 0 or dp == dq:
        return False
    x = p + (q - p) * (dp / (dp - dq))
    return all(float(np.cross(v1 - v0, x - v0) @ n) >= 0 for v0, v1 in ((a, b), (b, c), (c, a)))


def segment_triangle_dist(p, q, a, b, c):
    if segment_crosses_triangle(p, q, a, b, c):
        return 0.0
    best = min(point_triangle_dist(p, a, b, c), point_triangle_dist(q, a, b, c))
    for v0, v1 in ((a, b), (b, c), (c, a)):
        best = min(best, closest_points_segments(p, q, v0, v1)[2])
    return best


# ---------------------------------------------------------------------------
# 3D polytopes: planes by brute force, intersection by LP
# ---------------------------------------------------------------------------


class Polytope:
    """A convex polytope from its points (world coordinates): vertices, face
    planes ``normals @ x <= offsets`` (unit normals) and boundary triangles."""

    __slots__ = ("points", "normals", "offsets", "triangles", "vertices")

    def __init__(self, points):
        pts = np.asarray(points, dtype=float)
        scale = max(1.0, float(np.abs(pts).max()))
        eps = 1e-9 * scale
        planes = []
        for i, j, k in itertools.combinations(range(len(pts)), 3):
            n = np.cross(pts[j] - pts[i], pts[k] - pts[i])
            length = float(np.linalg.norm(n))
            if length <= 1e-12 * scale * scale:
                continue  # three points on one line: no plane
            n = n / length
            d = float(n @ pts[i])
            side = pts @ n - d
            if side.max() <= eps:
                pass
            elif side.min() >= -eps:
                n, d = -n, -d
            else:
                continue  # points on both sides: not a face
            if not any(float(m @ n) > 1 - 1e-9 and abs(e - d) <= eps for m, e in planes):
                planes.append((n, d))
        assert len(planes) >= 4, "the points have no volume"
        self.points = pts
        self.normals = np.array([n for n, _ in planes])
        self.offsets = np.array([d for _, d in planes])
        triangles = []
        on_any = set()
        for n, d in planes:
            face = [i for i in range(len(pts)) if abs(float(pts[i] @ n) - d) <= eps]
            on_any.update(face)
            centre = pts[face].mean(axis=0)
            u = pts[face[0]] - centre
            u = u / np.linalg.norm(u)
            v = np.cross(n, u)
            face.sort(key=lambda i: math.atan2(float((pts[i] - centre) @ v), float((pts[i] - centre) @ u)))
            # a point in the middle of an edge makes a flat fan triangle: dropped below
            for x in range(1, len(face) - 1):
                triangles.append((face[0], face[x], face[x + 1]))
        self.triangles = [(pts[a], pts[b], pts[c]) for a, b, c in triangles
                          if np.linalg.norm(np.cross(pts[b] - pts[a], pts[c] - pts[a])) > 1e-12 * scale * scale]
        self.vertices = pts[sorted(on_any)]

    def contains(self, p):
        """(inside, how deep): the largest signed slack ``min(offsets - normals @ p)``."""
        slack = float(np.min(self.offsets - self.normals @ p))
        return slack >= 0, slack

    def distance_to_segment(self, p, q):
        return min(segment_triangle_dist(p, q, *t) for t in self.triangles)


def lp_shrink(rows, rhs, bounds=None):
    """max t subject to ``rows @ [x..., t] <= rhs`` (t the last variable)."""
    n = len(rows[0])
    cost = [0.0] * (n - 1) + [-1.0]
    res = linprog(cost, A_ub=rows, b_ub=rhs, bounds=bounds or [(None, None)] * n, method="highs")
    if res.status != 0:
        raise AssertionError(f"LP failed: {res.message}")
    return float(res.x[-1])


def polytope_polytope_lp(pa: Polytope, pb: Polytope):
    """(contact, margin): the largest t such that a point lies t inside every face plane of both."""
    rows, rhs = [], []
    for poly in (pa, pb):
        for n, d in zip(poly.normals, poly.offsets, strict=True):
            rows.append([n[0], n[1], n[2], 1.0])
            rhs.append(d)
    t = lp_shrink(rows, rhs)
    return t >= 0, abs(t)


def segment_polytope_lp(p, q, poly: Polytope):
    """The largest t such that a point of the segment p-q lies t inside every face plane."""
    d = q - p
    rows, rhs = [], []
    for n, off in zip(poly.normals, poly.offsets, strict=True):
        rows.append([float(n @ d), 1.0])
        rhs.append(off - float(n @ p))
    return lp_shrink(rows, rhs, bounds=[(0.0, 1.0), (None, None)])


def capsule_polytope(p, q, radius, poly: Polytope):
    """(contact, margin) of the capsule (segment p-q, radius) and a polytope."""
    t = segment_polytope_lp(p, q, poly)
    if t >= 0:  # the core meets the polytope: at least the radius (or t) from flipping
        return True, max(radius, t) if radius > 0 else t
    dist = poly.distance_to_segment(p, q)
    return dist <= radius, abs(dist - radius)


def sphere_polytope(c, radius, poly: Polytope):
    inside, slack = poly.contains(c)
    if inside:
        return True, radius + slack
    dist = min(point_triangle_dist(c, *t) for t in poly.triangles)
    return dist <= radius, abs(dist - radius)


# ---------------------------------------------------------------------------
# python-fcl: the second opinion
# ---------------------------------------------------------------------------


def _rotation_z_to(v):
    """A rotation matrix taking +z to the unit vector v."""
    z = np.array([0.0, 0.0, 1.0])
    c = float(z @ v)
    if c > 1 - 1e-12:
        return np.eye(3)
    if c < -1 + 1e-12:
        return np.diag([1.0, -1.0, -1.0])
    axis = np.cross(z, v)
    s = float(np.linalg.norm(axis))
    k = axis / s
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + s * kx + (1 - c) * (kx @ kx)


def fcl_object(geom):
    """An fcl CollisionObject for a Geom3-like object (kind, and its world data)."""
    import fcl

    if geom.kind == "sphere":
        return fcl.CollisionObject(fcl.Sphere(geom.radius), fcl.Transform(np.eye(3), geom.center))
    if geom.kind == "capsule":
        axis = geom.p1 - geom.p0
        length = float(np.linalg.norm(axis))
        mid = (geom.p0 + geom.p1) / 2
        if length == 0:
            return fcl.CollisionObject(fcl.Sphere(geom.radius), fcl.Transform(np.eye(3), mid))
        return fcl.CollisionObject(fcl.Capsule(geom.radius, length),
                                   fcl.Transform(_rotation_z_to(axis / length), mid))
    if geom.kind == "box":
        return fcl.CollisionObject(fcl.Box(*(2 * geom.half).tolist()), fcl.Transform(geom.R, geom.center))
    poly = geom.poly
    index = {tuple(v): i for i, v in enumerate(poly.points.tolist())}
    faces = []
    for a, b, c in poly.triangles:
        faces += [3, index[tuple(a.tolist())], index[tuple(b.tolist())], index[tuple(c.tolist())]]
    return fcl.CollisionObject(fcl.Convex(poly.points, len(poly.triangles), np.array(faces)),
                               fcl.Transform(np.eye(3), np.zeros(3)))


def fcl_collide(ga, gb):
    import fcl

    return bool(fcl.collide(fcl_object(ga), fcl_object(gb), fcl.CollisionRequest(), fcl.CollisionResult()))
