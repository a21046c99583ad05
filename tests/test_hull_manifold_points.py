"""Hull contact points lie on both shapes, and a hull lies flat by the documented 0.57 degrees (issue 25, item 3).

Seeded random families around the two failing configurations of the issue:
random hulls (20 points, and thin plates of 8 points 0.5 to 3 % as thick as
wide) whose face is tilted a little (0 to 2 degrees) from the contact plane,
sunk 1 cm into planes, boxes and other hulls, and random overlaps with boxes,
hulls, spheres, capsules and segments. Two properties are checked on both
backends against independent oracles:

- every contact point lies within its own |separation| (plus 1e-9 of the
  pair's size) of both shapes, the distance from the point to a hull or box
  measured on the boundary triangles of scipy's Qhull of its world corners
  (faces, edges and corners tried in turn, Ericson RTCD 5.1), to a sphere,
  capsule, segment or plane in closed form;
- against a plane, the points are the hull's vertices that lie flat with its
  lowest one, by hand: the segment from the lowest vertex to each is tilted
  from the plane by at most asin(0.01) = 0.573 degrees (README: "a face or
  segment counts as lying flat while it is tilted by less than about 0.57
  degrees"), at most four of them.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.spatial import ConvexHull as Qhull
from scipy.spatial.transform import Rotation

from collideworld import Box, Capsule, ConvexHull, Plane, Segment, Sphere, collide
from collideworld.backend import compiled_available

BACKENDS = ["numpy"] + (["compiled"] if compiled_available() else [])
#: The README's lying-flat cut-off, asin(0.01) in degrees.
FLAT_DEGREES = math.degrees(math.asin(0.01))
LOW = 0xFFFFFFFF
CORNERS = np.array(list(itertools.product((-1.0, 1.0), repeat=3)))


# -- the oracle: distances from a point to each shape, not collideworld's geometry -----------------

def _segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distances from p to segments a[i]-b[i] (the clamped projection)."""
    e = b - a
    ee = (e * e).sum(-1)
    s = np.clip(((p - a) * e).sum(-1) / np.where(ee > 0, ee, 1.0), 0.0, 1.0)
    d: np.ndarray = np.linalg.norm(p - (a + s[..., None] * e), axis=-1)
    return d


class Polytope:
    """A convex polytope from its world corners, by scipy's Qhull: distance by brute force on its boundary."""

    def __init__(self, corners: np.ndarray) -> None:
        q = Qhull(corners)
        self.eq = q.equations
        tri = corners[q.simplices]  # (T, 3, 3)
        self.a, self.b, self.c = tri[:, 0], tri[:, 1], tri[:, 2]
        self.corners = corners
        self.size = float(np.abs(corners).max())

    def distance(self, p: np.ndarray) -> float:
        """0 inside; else the least distance to a face (where the foot falls in it), an edge or a corner."""
        if (self.eq[:, :3] @ p + self.eq[:, 3] <= 0.0).all():
            return 0.0
        a, b, c = self.a, self.b, self.c
        n = np.cross(b - a, c - a)
        n /= np.linalg.norm(n, axis=1)[:, None]
        h = ((p - a) * n).sum(-1)
        foot = p - h[:, None] * n
        # the foot is in the triangle when it is on the inner side of all three edges
        inside = np.ones(len(a), dtype=bool)
        for u, v in ((a, b), (b, c), (c, a)):
            inside &= (np.cross(v - u, foot - u) * n).sum(-1) >= 0
        best = np.min(np.where(inside, np.abs(h), np.inf))
        for u, v in ((a, b), (b, c), (c, a)):
            best = min(best, float(_segment_distance(p, u, v).min()))
        return float(best)


def _oracle(shape, pose):
    """(distance function of a point, size) of a posed shape, computed without collideworld."""
    if isinstance(shape, Plane):
        n = np.asarray(shape.normal, dtype=float)
        n = n / np.linalg.norm(n)
        return (lambda p: max(0.0, float(n @ p) - shape.offset)), abs(shape.offset)
    pos, rot = np.asarray(pose[0], dtype=float), np.asarray(pose[1], dtype=float)
    if isinstance(shape, Sphere):
        return (lambda p: max(0.0, float(np.linalg.norm(p - pos)) - shape.radius)), float(np.abs(pos).max())
    if isinstance(shape, Capsule | Segment):
        a = rot @ np.asarray(shape.p0, dtype=float) + pos
        b = rot @ np.asarray(shape.p1, dtype=float) + pos
        return ((lambda p: max(0.0, float(_segment_distance(p, a, b)) - shape.radius)),
                float(max(np.abs(a).max(), np.abs(b).max())))
    local = CORNERS * shape.half_extents if isinstance(shape, Box) else np.asarray(shape.vertices)
    poly = Polytope(local @ rot.T + pos)
    return poly.distance, poly.size


def _check_on_both(sa, pa, sb, pb, r) -> None:
    """Each point within its own |separation| + 1e-9 * (the pair's size) of both shapes."""
    (da, size_a), (db, size_b) = _oracle(sa, pa), _oracle(sb, pb)
    tol = 1e-9 * max(size_a, size_b, 1.0)
    assert 1 <= len(r.points) <= 4
    for p, s in zip(r.points, r.separations, strict=True):
        off_a, off_b = da(p), db(p)
        assert off_a <= abs(s) + tol and off_b <= abs(s) + tol, (
            f"point {p.tolist()} separation {s}: {off_a} from {type(sa).__name__}, {off_b} from {type(sb).__name__}")


# -- configurations ---------------------------------------------------------------------------

def _random_hull(rng, plate: bool) -> ConvexHull:
    """20 points of a squashed normal cloud, or a thin plate: 8 points on two faces 0.5-3 % as thick as wide."""
    if plate:
        width = rng.uniform(0.5, 2.0, 2)
        thick = rng.uniform(0.005, 0.03) * width.max()
        pts = rng.uniform(-1, 1, (8, 3)) * [width[0], width[1], 1.0]
        pts[:, 2] = np.where(np.arange(8) % 2 == 0, 0.5, -0.5) * thick
    else:
        pts = rng.normal(size=(20, 3)) * rng.uniform(0.3, 1.0, 3)
    return ConvexHull([tuple(p) for p in pts])


def _face_down(rng, hull: ConvexHull, max_tilt: float) -> np.ndarray:
    """A rotation turning a random face of the hull (by Qhull) to face -z, then tilting it by 0 to max_tilt degrees."""
    eq = Qhull(np.asarray(hull.vertices)).equations
    f = eq[rng.integers(len(eq)), :3]
    down, _ = Rotation.align_vectors([[0.0, 0.0, -1.0]], [f])
    spin = Rotation.from_euler("z", rng.uniform(0, 360), degrees=True)
    axis = np.array([*rng.normal(size=2), 0.0])
    tilt = Rotation.from_rotvec(np.radians(rng.uniform(0, max_tilt)) * axis / np.linalg.norm(axis))
    rot: np.ndarray = (tilt * spin * down).as_matrix()
    return rot


def _sunk_on(rng, hull: ConvexHull, top: float, depth: float = 0.01):
    """A pose of ``hull`` nearly flat (0-2 degrees) with its lowest vertex ``depth`` under height ``top``."""
    rot = _face_down(rng, hull, 2.0)
    world = np.asarray(hull.vertices) @ rot.T
    pos = np.array([*rng.uniform(-0.3, 0.3, 2), top - depth - world[:, 2].min()])
    return pos, rot


def _flat_vertices(world: np.ndarray) -> tuple[set[int], bool]:
    """By hand: the vertices lying flat with the lowest (tilt from the lowest at most FLAT_DEGREES); near the cut?"""
    low = int(np.argmin(world[:, 2]))
    rel = world - world[low]
    dist = np.linalg.norm(rel, axis=1)
    tilt = np.degrees(np.arcsin(np.clip(rel[:, 2] / np.where(dist > 0, dist, 1.0), -1.0, 1.0)))
    flat = {int(i) for i in np.flatnonzero(tilt <= FLAT_DEGREES)} | {low}
    near = bool((np.abs(tilt - FLAT_DEGREES) < 1e-6).any())
    return flat, near


# -- the families ---------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_hull_on_a_plane_keeps_the_vertices_lying_flat_by_hand(backend: str) -> None:
    """Hulls (20 points, and thin plates) tilted 0-2 degrees from flat, sunk 1 cm into the floor z <= 0."""
    rng = np.random.default_rng(2501)
    floor = Plane((0.0, 0.0, 1.0), 0.0)
    checked = tilted_out = 0
    for k in range(300):
        hull = _random_hull(rng, plate=k % 3 == 0)
        pose = _sunk_on(rng, hull, 0.0)
        world = np.asarray(hull.vertices) @ pose[1].T + pose[0]
        flat, near = _flat_vertices(world)
        if near:
            continue
        r = collide(floor, None, hull, pose, backend=backend)
        assert r is not None
        _check_on_both(floor, None, hull, pose, r)
        ids = {int(i) & LOW for i in r.point_ids}
        assert ids <= flat, (k, sorted(ids - flat))
        assert len(ids) == min(4, len(flat)), (k, sorted(ids), sorted(flat))
        checked += 1
        # cases where a slop of 1 % of the hull's size (the old rule) admits a vertex tilted past 0.57 degrees
        size = np.linalg.norm(np.ptp(world, axis=0))
        tilted_out += len(flat) < int((world[:, 2] <= world[:, 2].min() + 0.01 * size).sum())
    assert checked >= 280
    assert tilted_out >= 20


@pytest.mark.parametrize("backend", BACKENDS)
def test_thin_plates_on_boxes_touch_both(backend: str) -> None:
    """Thin plate hulls against boxes: random overlaps, and plates lying 0-2 degrees from flat on the box, sunk 1 cm."""
    rng = np.random.default_rng(2502)
    hits = 0
    for k in range(300):
        plate = _random_hull(rng, plate=True)
        box = Box(tuple(rng.uniform(0.2, 1.0, 3)))
        if k % 2:
            pb = (rng.uniform(-0.6, 0.6, 3), Rotation.random(random_state=rng).as_matrix())
            pa = ((0.0, 0.0, 0.0), Rotation.random(random_state=rng).as_matrix())
        else:
            pa = ((0.0, 0.0, 0.0), np.eye(3))
            pb = _sunk_on(rng, plate, box.half_extents[2])
        r = collide(box, pa, plate, pb, backend=backend)
        if r is None:
            continue
        hits += 1
        _check_on_both(box, pa, plate, pb, r)
        s = collide(plate, pb, box, pa, backend=backend)
        _check_on_both(plate, pb, box, pa, s)
    assert hits >= 200


@pytest.mark.parametrize("backend", BACKENDS)
def test_hulls_on_hulls_touch_both(backend: str) -> None:
    """Hulls and plates lying 0-2 degrees from flat on another hull's top face, sunk 1 cm, and random overlaps."""
    rng = np.random.default_rng(2503)
    hits = 0
    for k in range(300):
        a = _random_hull(rng, plate=k % 4 == 0)
        b = _random_hull(rng, plate=k % 3 == 0)
        if k % 2:
            pa = ((0.0, 0.0, 0.0), Rotation.random(random_state=rng).as_matrix())
            pb = (rng.uniform(-0.8, 0.8, 3), Rotation.random(random_state=rng).as_matrix())
        else:
            rot = np.diag([1.0, -1.0, -1.0]) @ _face_down(rng, a, 0.0)  # a's face up: turned over
            world = np.asarray(a.vertices) @ rot.T
            top = world[:, 2].max()
            # the top face's middle over the origin, where b comes down
            pa = (-world[world[:, 2] >= top - 1e-9].mean(axis=0) * [1.0, 1.0, 0.0], rot)
            pb = _sunk_on(rng, b, top)
        r = collide(a, pa, b, pb, backend=backend)
        if r is None:
            continue
        hits += 1
        _check_on_both(a, pa, b, pb, r)
    assert hits >= 200


@pytest.mark.parametrize("backend", BACKENDS)
def test_hulls_against_round_shapes_touch_both(backend: str) -> None:
    """Hulls and plates against spheres, capsules and segments: random overlaps, and ones lying nearly flat."""
    rng = np.random.default_rng(2504)
    hits = 0
    for k in range(300):
        hull = _random_hull(rng, plate=k % 3 == 0)
        kind = k % 3
        if kind == 0:
            other = Sphere(rng.uniform(0.2, 1.0))
        else:
            half = rng.uniform(0.3, 1.5)
            other = Capsule((-half, 0.0, 0.0), (half, 0.0, 0.0), rng.uniform(0.05, 0.5)) if kind == 1 else \
                Segment((-half, 0.0, 0.0), (half, 0.0, 0.0))
        if k % 2:
            po = ((0.0, 0.0, 0.0), Rotation.random(random_state=rng).as_matrix())
            ph = (rng.uniform(-0.8, 0.8, 3), Rotation.random(random_state=rng).as_matrix())
        else:  # the round shape lying (nearly) flat under the hull's face
            tilt = Rotation.from_euler("y", rng.uniform(-2, 2), degrees=True).as_matrix()
            po = ((0.0, 0.0, 0.0), tilt)
            ph = _sunk_on(rng, hull, other.radius)
        r = collide(other, po, hull, ph, backend=backend)
        if r is None:
            continue
        hits += 1
        _check_on_both(other, po, hull, ph, r)
    assert hits >= 150
