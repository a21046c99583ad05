"""Seeded benchmark scenes: bodies in a box, drifting and turning, bouncing off the walls.

A :class:`Scene` holds the shapes and initial poses; :meth:`Scene.frames`
yields, per frame, which bodies moved and their new poses. Every engine is fed
the same frames, so their pair sets can be compared frame by frame.

2D scenes mix circles, oriented boxes and convex polygons in thirds; 3D scenes
mix spheres and oriented boxes in halves. Sizes:

- circle / sphere radius ``U(0.3, 1.0)``
- box half extents ``U(0.2, 1.2)`` per axis
- polygon: 5-8 vertices on a circle of radius ``U(0.3, 1.0)`` at sorted random
  angles (so the polygon is convex), no angular gap below 0.15 rad or above pi
  (no sliver edges, the centre stays inside).

Motion per frame: a constant speed ``U(0.016, 0.08)`` in a random direction
and a constant turn rate ``U(-0.05, 0.05)`` rad (3D: about a random fixed axis,
applied as a unit quaternion ``[w, x, y, z]``). A body whose bounding circle
(sphere) would leave the box is reflected back in and its velocity component
flipped.

``moving_fraction`` < 1 picks a **fixed** random subset of the bodies (seeded)
that move every frame while the rest never move: the "most units idle" case of
a strategy game, where an incremental broadphase should only pay for the
movers. (A fresh random subset each frame would instead make every body move
now and then, which no incremental scheme can exploit less.)

Density is fixed (see :data:`BODIES_PER_AREA_2D`, :data:`BODIES_PER_VOLUME_3D`)
so every body overlaps about 2 others on average at any ``n``: the number of
pairs in contact is about ``n``.

Run ``python benchmarks/calibrate_density.py`` to re-measure the overlap per body.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "CIRCLE", "BOX", "POLYGON", "SPHERE", "CAPSULE", "SEGMENT", "HULL",
    "BODIES_PER_AREA_2D", "BODIES_PER_VOLUME_3D",
    "Frame", "Scene", "make_scene_2d", "make_scene_3d", "make_scene_2d_mixed", "make_scene_3d_mixed",
]

#: Shape kind codes in :attr:`Scene.kind`.
CIRCLE, BOX, POLYGON = 0, 1, 2
SPHERE = 0  # 3D: 0 sphere, 1 box
#: The mixed scenes' kinds (2D and 3D): capsules along the local x (2D) or z (3D)
#: axis, segments (2D, radius 0) and convex hulls (3D).
CAPSULE, SEGMENT, HULL = 3, 4, 5

# Calibrated once (``python benchmarks/calibrate_density.py``: n = 20,000, pairs counted
# by pymunk in 2D and fcl in 3D, 5 frames): 0.330 bodies per unit area gives
# 2.00 overlapping neighbours per body in 2D, and 0.098 bodies per unit volume
# gives 1.99 in 3D. Integral geometry agrees: the mean area of the Minkowski sum
# of two random shapes, E[A1 + A2 + P1 P2 / 2 pi], is 6.04 for this size mix,
# predicting 1.99 in 2D; in 3D, E[V1 + V2 + (M1 S2 + M2 S1) / 4 pi] (M the
# integrated mean curvature, S the surface area) is 19.1, predicting 1.87; the
# measured 1.99 is higher because centres stay a bounding radius away from the
# walls, which shrinks the usable cube more than the square. Smaller scenes
# run a little denser for the same reason (2D: 2.16 at n = 1,000, 2.05 at
# 10,000; 3D: 2.26 at 1,000, 2.11 at 5,000).
BODIES_PER_AREA_2D = 0.330
BODIES_PER_VOLUME_3D = 0.098

_SPEED = (0.016, 0.08)  # units per frame
_TURN = 0.05  # max rad per frame
_RADIUS = (0.3, 1.0)
_HALF = (0.2, 1.2)
_POLY_VERTS = (5, 8)
_POLY_MIN_GAP = 0.15  # rad between consecutive vertices: no sliver edges


class Frame(NamedTuple):
    """One frame of motion.

    Attributes
    ----------
    moved : ndarray of int64, shape (m,)
        Indices of the bodies that moved, ascending.
    positions : ndarray, shape (m, D)
        Their new positions.
    rotations : ndarray, shape (m,) in 2D or (m, 4) in 3D
        Their new angles (rad) or unit quaternions ``[w, x, y, z]``.
    """

    moved: NDArray[np.int64]
    positions: NDArray[np.float64]
    rotations: NDArray[np.float64]


@dataclass
class Scene:
    """A seeded scene: shapes, initial poses and the motion that follows.

    Attributes
    ----------
    name : str
    dim : {2, 3}
    n : int
    size : float
        Side of the square (cube) ``[0, size]^D`` holding the body centres.
    kind : ndarray of int8, shape (n,)
        2D: :data:`CIRCLE`, :data:`BOX` or :data:`POLYGON`; 3D: :data:`SPHERE`
        or :data:`BOX`.
    radius : ndarray, shape (n,)
        Circle/sphere radius (0 for the others).
    half_extents : ndarray, shape (n, D)
        Box half extents (0 for the others).
    polygons : dict of int to ndarray, shape (k, 2)
        Local convex polygon vertices, counter-clockwise, by body index.
    bound_radius : ndarray, shape (n,)
        Radius of the smallest centred disc (ball) holding the shape.
    positions : ndarray, shape (n, D)
        Initial positions.
    rotations : ndarray, shape (n,) or (n, 4)
        Initial angles or quaternions ``[w, x, y, z]``.
    moving : ndarray of int64, shape (m,)
        The bodies that move (a fixed subset when ``moving_fraction < 1``).
    """

    name: str
    dim: int
    n: int
    size: float
    kind: NDArray[np.int8]
    radius: NDArray[np.float64]
    half_extents: NDArray[np.float64]
    polygons: dict[int, NDArray[np.float64]]
    bound_radius: NDArray[np.float64]
    positions: NDArray[np.float64]
    rotations: NDArray[np.float64]
    moving: NDArray[np.int64]
    moving_fraction: float
    seed: int
    _velocity: NDArray[np.float64] = field(repr=False)
    _spin: NDArray[np.float64] = field(repr=False)  # 2D: rad/frame; 3D: (n, 4) per-frame quaternion
    #: Mixed scenes: half the core length of each capsule or segment (0 for the others),
    #: the core running from -h to h along local x (2D) or z (3D).
    half_length: NDArray[np.float64] | None = None
    #: Mixed 3D scenes: local hull points by body index.
    hulls: dict[int, NDArray[np.float64]] = field(default_factory=dict)

    def frames(self, count: int) -> Iterator[Frame]:
        """Yield ``count`` frames of motion from the initial poses (the scene is not changed).

        Every call replays the same frames.
        """
        pos = self.positions.copy()
        rot = self.rotations.copy()
        vel = self._velocity.copy()
        idx = self.moving
        lo = self.bound_radius[idx, None]
        hi = np.maximum(self.size - lo, lo)
        for _ in range(count):
            p = pos[idx] + vel[idx]
            v = vel[idx]
            # reflect off the walls: the bounding circle stays inside the box
            under, over = p < lo, p > hi
            p = np.where(under, 2 * lo - p, np.where(over, 2 * hi - p, p))
            p = np.clip(p, lo, hi)
            v = np.where(under, np.abs(v), np.where(over, -np.abs(v), v))
            pos[idx] = p
            vel[idx] = v
            if self.dim == 2:
                r = rot[idx] + self._spin[idx]
                rot[idx] = r
            else:
                r = _quat_mul(self._spin[idx], rot[idx])
                r /= np.linalg.norm(r, axis=1, keepdims=True)
                rot[idx] = r
            yield Frame(idx, p.copy(), r.copy())


def _quat_mul(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """Hamilton product ``a * b`` of quaternions ``[w, x, y, z]``, shape (n, 4)."""
    aw, ax, ay, az = a.T
    bw, bx, by, bz = b.T
    return np.stack([
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ], axis=1)


def _random_unit(rng: np.random.Generator, n: int, d: int) -> NDArray[np.float64]:
    v = rng.normal(size=(n, d))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _random_polygon(rng: np.random.Generator) -> NDArray[np.float64]:
    k = int(rng.integers(_POLY_VERTS[0], _POLY_VERTS[1] + 1))
    r = rng.uniform(*_RADIUS)
    while True:
        a = np.sort(rng.uniform(0.0, 2 * math.pi, k))
        gaps = np.diff(np.r_[a, a[0] + 2 * math.pi])
        if gaps.min() >= _POLY_MIN_GAP and gaps.max() < math.pi:
            return np.stack([r * np.cos(a), r * np.sin(a)], axis=1)


def _moving_subset(rng: np.random.Generator, n: int, fraction: float) -> NDArray[np.int64]:
    if not 0 < fraction <= 1:
        raise ValueError(f"moving_fraction must be in (0, 1], got {fraction!r}")
    if fraction == 1:
        return np.arange(n, dtype=np.int64)
    m = max(1, round(fraction * n))
    return np.sort(rng.choice(n, size=m, replace=False)).astype(np.int64)


def make_scene_2d(n: int, *, moving_fraction: float = 1.0, seed: int = 0,
                  density: float = BODIES_PER_AREA_2D) -> Scene:
    """Circles, boxes and convex polygons in thirds, in a square of ``n / density`` area."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n!r}")
    rng = np.random.default_rng(seed)
    size = math.sqrt(n / density)
    kind = (np.arange(n) % 3).astype(np.int8)
    rng.shuffle(kind)
    radius = np.where(kind == CIRCLE, rng.uniform(*_RADIUS, n), 0.0)
    half = np.where((kind == BOX)[:, None], rng.uniform(*_HALF, (n, 2)), 0.0)
    polygons = {int(i): _random_polygon(rng) for i in np.flatnonzero(kind == POLYGON)}
    bound = radius + np.hypot(half[:, 0], half[:, 1])
    for i, v in polygons.items():
        bound[i] = float(np.hypot(v[:, 0], v[:, 1]).max())
    positions = rng.uniform(bound[:, None], np.maximum(size - bound, bound)[:, None], (n, 2))
    angles = rng.uniform(-math.pi, math.pi, n)
    speed = rng.uniform(*_SPEED, n)
    velocity = _random_unit(rng, n, 2) * speed[:, None]
    spin = rng.uniform(-_TURN, _TURN, n)
    moving = _moving_subset(rng, n, moving_fraction)
    name = f"2d-n{n}" + ("" if moving_fraction == 1 else f"-moving{moving_fraction:g}")
    return Scene(name, 2, n, size, kind, radius, half, polygons, bound, positions, angles, moving,
                 moving_fraction, seed, velocity, spin)


def make_scene_3d(n: int, *, moving_fraction: float = 1.0, seed: int = 0,
                  density: float = BODIES_PER_VOLUME_3D) -> Scene:
    """Spheres and boxes in halves, in a cube of ``n / density`` volume."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n!r}")
    rng = np.random.default_rng(seed)
    size = (n / density) ** (1.0 / 3.0)
    kind = (np.arange(n) % 2).astype(np.int8)
    rng.shuffle(kind)
    radius = np.where(kind == SPHERE, rng.uniform(*_RADIUS, n), 0.0)
    half = np.where((kind == BOX)[:, None], rng.uniform(*_HALF, (n, 3)), 0.0)
    bound = radius + np.linalg.norm(half, axis=1)
    positions = rng.uniform(bound[:, None], np.maximum(size - bound, bound)[:, None], (n, 3))
    quats = _random_unit(rng, n, 4)
    speed = rng.uniform(*_SPEED, n)
    velocity = _random_unit(rng, n, 3) * speed[:, None]
    half_turn = 0.5 * rng.uniform(-_TURN, _TURN, n)
    spin = np.concatenate([np.cos(half_turn)[:, None], np.sin(half_turn)[:, None] * _random_unit(rng, n, 3)], axis=1)
    moving = _moving_subset(rng, n, moving_fraction)
    name = f"3d-n{n}" + ("" if moving_fraction == 1 else f"-moving{moving_fraction:g}")
    return Scene(name, 3, n, size, kind, radius, half, {}, bound, positions, quats, moving,
                 moving_fraction, seed, velocity, spin)


# -- mixed scenes: capsules, segments and hulls among the others ---------------------------

_CAPSULE_RADIUS = (0.15, 0.5)
_CAPSULE_HALF_LENGTH = (0.3, 0.9)
_HULL_POINTS = (8, 24)


def _random_hull(rng: np.random.Generator) -> NDArray[np.float64]:
    """8-24 points on an ellipsoid with semi-axes ``U(0.4, 1.0)``, turned at random (a rock)."""
    k = int(rng.integers(_HULL_POINTS[0], _HULL_POINTS[1] + 1))
    axes = rng.uniform(0.4, 1.0, 3)
    return np.asarray(_random_unit(rng, k, 3) * axes, dtype=np.float64)


def make_scene_2d_mixed(n: int, *, moving_fraction: float = 1.0, seed: int = 0,
                        density: float = BODIES_PER_AREA_2D) -> Scene:
    """Circles, boxes, convex polygons, capsules and segments in fifths.

    Capsules: radius ``U(0.15, 0.5)``, core ``U(0.3, 0.9)`` either side of the
    centre along local x; segments: the same cores, radius 0. The density is
    the all-moving scenes' (a segment has no area, so there are a little
    fewer pairs per body).
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n!r}")
    rng = np.random.default_rng(seed)
    size = math.sqrt(n / density)
    kind = np.array([CIRCLE, BOX, POLYGON, CAPSULE, SEGMENT], dtype=np.int8)[np.arange(n) % 5]
    rng.shuffle(kind)
    radius = np.where(kind == CIRCLE, rng.uniform(*_RADIUS, n),
                      np.where(kind == CAPSULE, rng.uniform(*_CAPSULE_RADIUS, n), 0.0))
    half = np.where((kind == BOX)[:, None], rng.uniform(*_HALF, (n, 2)), 0.0)
    half_length = np.where((kind == CAPSULE) | (kind == SEGMENT), rng.uniform(*_CAPSULE_HALF_LENGTH, n), 0.0)
    polygons = {int(i): _random_polygon(rng) for i in np.flatnonzero(kind == POLYGON)}
    bound = radius + np.hypot(half[:, 0], half[:, 1]) + half_length
    for i, v in polygons.items():
        bound[i] = float(np.hypot(v[:, 0], v[:, 1]).max())
    positions = rng.uniform(bound[:, None], np.maximum(size - bound, bound)[:, None], (n, 2))
    angles = rng.uniform(-math.pi, math.pi, n)
    speed = rng.uniform(*_SPEED, n)
    velocity = _random_unit(rng, n, 2) * speed[:, None]
    spin = rng.uniform(-_TURN, _TURN, n)
    moving = _moving_subset(rng, n, moving_fraction)
    name = f"2d-mixed-n{n}" + ("" if moving_fraction == 1 else f"-moving{moving_fraction:g}")
    return Scene(name, 2, n, size, kind, radius, half, polygons, bound, positions, angles, moving,
                 moving_fraction, seed, velocity, spin, half_length=half_length)


def make_scene_3d_mixed(n: int, *, moving_fraction: float = 1.0, seed: int = 0,
                        density: float = BODIES_PER_VOLUME_3D) -> Scene:
    """Spheres, boxes, capsules and convex hulls in quarters.

    Capsules: radius ``U(0.15, 0.5)``, core ``U(0.3, 0.9)`` either side of the
    centre along local z. Hulls: 8-24 points on an ellipsoid with semi-axes
    ``U(0.4, 1.0)`` (every point is a vertex).
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n!r}")
    rng = np.random.default_rng(seed)
    size = (n / density) ** (1.0 / 3.0)
    kind = np.array([SPHERE, BOX, CAPSULE, HULL], dtype=np.int8)[np.arange(n) % 4]
    rng.shuffle(kind)
    radius = np.where(kind == SPHERE, rng.uniform(*_RADIUS, n),
                      np.where(kind == CAPSULE, rng.uniform(*_CAPSULE_RADIUS, n), 0.0))
    half = np.where((kind == BOX)[:, None], rng.uniform(*_HALF, (n, 3)), 0.0)
    half_length = np.where(kind == CAPSULE, rng.uniform(*_CAPSULE_HALF_LENGTH, n), 0.0)
    hulls = {int(i): _random_hull(rng) for i in np.flatnonzero(kind == HULL)}
    bound = radius + np.linalg.norm(half, axis=1) + half_length
    for i, v in hulls.items():
        bound[i] = float(np.linalg.norm(v, axis=1).max())
    positions = rng.uniform(bound[:, None], np.maximum(size - bound, bound)[:, None], (n, 3))
    quats = _random_unit(rng, n, 4)
    speed = rng.uniform(*_SPEED, n)
    velocity = _random_unit(rng, n, 3) * speed[:, None]
    half_turn = 0.5 * rng.uniform(-_TURN, _TURN, n)
    spin = np.concatenate([np.cos(half_turn)[:, None], np.sin(half_turn)[:, None] * _random_unit(rng, n, 3)], axis=1)
    moving = _moving_subset(rng, n, moving_fraction)
    name = f"3d-mixed-n{n}" + ("" if moving_fraction == 1 else f"-moving{moving_fraction:g}")
    return Scene(name, 3, n, size, kind, radius, half, {}, bound, positions, quats, moving,
                 moving_fraction, seed, velocity, spin, half_length=half_length, hulls=hulls)
