"""Random pairs of every primitive kind, shared by test_distance_many and test_time_of_impact_many (issue 28)."""

from __future__ import annotations

import math

import numpy as np

from collideworld import Box, Capsule, Circle, ConvexHull, HalfPlane, Plane, Polygon, Sphere

KINDS = {2: ("circle", "box", "polygon", "capsule", "halfplane"),
         3: ("sphere", "box", "capsule", "hull", "plane")}


def unit_exact(rng: np.random.Generator) -> np.ndarray:
    """A random unit quaternion whose norm (squares summed left to right) is 1.0 to the last bit.

    Normalising it again changes no bit, so a row renormalised once (the batch) and one renormalised
    twice (``collide()`` inside the scalar ``distance()``) hold the same numbers.
    """
    while True:
        q = rng.normal(size=4)
        for _ in range(6):
            n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
            if n == 1.0:
                return q
            q = q / n


def shape(kind: str, dim: int, rng: np.random.Generator):
    if kind in ("circle", "sphere"):
        return (Circle if dim == 2 else Sphere)(float(rng.uniform(0.2, 1.2)))
    if kind == "box":
        return Box(tuple(rng.uniform(0.2, 1.2, dim).tolist()))
    if kind == "polygon":
        k = int(rng.integers(3, 9))
        angles = np.linspace(0, 2 * np.pi, k, endpoint=False) + rng.uniform(0, 1)  # convex: points on a circle
        r = rng.uniform(0.3, 1.2)
        return Polygon([(float(r * np.cos(a)), float(r * np.sin(a))) for a in angles])
    if kind == "capsule":
        h = float(rng.uniform(0.1, 1.0))
        end = (0.0, h) if dim == 2 else (0.0, 0.0, h)
        return Capsule(tuple(-c for c in end), end, float(rng.uniform(0.1, 0.6)))
    if kind == "hull":
        return ConvexHull(rng.uniform(-0.8, 0.8, (8, 3)).tolist())
    n = rng.normal(size=dim)
    n /= np.linalg.norm(n)
    return (HalfPlane if dim == 2 else Plane)(tuple(n.tolist()), float(rng.uniform(-4, -2)))


def pairs(dim: int, n: int, seed: int, spread: float = 2.5):
    """n pairs cycling through every pair of kinds: shapes, positions (n, D) and rotations of each side.

    Two half-spaces never meet head on here (a pair of them is decided without any kernel).
    """
    rng = np.random.default_rng(seed)
    kinds = KINDS[dim]
    shapes_a, shapes_b = [], []
    for k in range(n):
        shapes_a.append(shape(kinds[k % len(kinds)], dim, rng))
        shapes_b.append(shape(kinds[(k // len(kinds)) % len(kinds)], dim, rng))
    pos_a, pos_b = rng.uniform(-spread, spread, (n, dim)), rng.uniform(-spread, spread, (n, dim))
    if dim == 2:
        rot_a, rot_b = rng.uniform(-7, 7, n), rng.uniform(-7, 7, n)
    else:
        rot_a = np.array([unit_exact(rng) for _ in range(n)])
        rot_b = np.array([unit_exact(rng) for _ in range(n)])
    return shapes_a, pos_a, rot_a, shapes_b, pos_b, rot_b


def pose(s, dim: int, pos: np.ndarray, rot) -> object:
    """Row k's pose as a user hands it to the scalar call (None for a half-space)."""
    if s.is_infinite:
        return None
    return tuple(pos.tolist()), (float(rot) if dim == 2 else tuple(np.asarray(rot).tolist()))
