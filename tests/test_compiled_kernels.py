"""The compiled (numba) kernels against their numpy twins, and the backend plumbing.

Differential tests: every kernel runs on both backends over the same inputs,
random and near-touching (gaps and overlaps from 1e-15 to 1e-6 of the pair's
size, exactly touching, rotated, up to 1e6 from the origin, convex parts of
concave polygons, padded polygons with zero-length edges). The hit arrays
must be identical; normals and depths agree within 1e-12, relative to the
pair's coordinate magnitude (the scale the touching rule uses). The numpy
kernels are the reference, tested against independent oracles elsewhere.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
from collections.abc import Callable

import numpy as np
import pytest

from collideworld import Box, Circle, HalfPlane, Plane, Polygon, Sphere, warm_up
from collideworld.backend import compiled_available, resolve_backend
from collideworld.bodies import BodyStore
from collideworld.errors import InvalidArgumentError
from collideworld.geometry import aabb as numpy_aabb
from collideworld.geometry.polygon import convex_decomposition
from collideworld.geometry.rotation import rotation_matrix_2d, rotation_matrix_3d
from collideworld.narrowphase import KERNEL_TWINS, contact_pairs, contact_pairs_exact, kernels_for

pytestmark = pytest.mark.skipif(not compiled_available(), reason="numba is not installed")

NUMPY = kernels_for("numpy")
COMPILED = kernels_for("compiled") if compiled_available() else NUMPY

#: Signed gaps (positive: apart) placed between near-touching pairs, times the pair's size.
GAPS = np.array([0.0] + [s * 10.0 ** -e for e in range(6, 16) for s in (1.0, -1.0)])
#: Distances from the origin at which pairs are placed.
FAR = np.array([0.0, 1.0, 1e3, 1e6])
N = 600


# -- comparison -------------------------------------------------------------------

def assert_same_contacts(ref, got, scale) -> None:
    """Identical hits; normals and depths within 1e-12 of the pair's scale."""
    ref_hit, ref_normal, ref_depth = ref
    hit, normal, depth = got
    assert hit.dtype == np.bool_ and hit.shape == ref_hit.shape
    assert normal.shape == ref_normal.shape and depth.shape == ref_depth.shape
    differ = np.flatnonzero(hit != ref_hit)
    assert len(differ) == 0, f"hit differs in rows {differ[:10].tolist()}: numpy {ref_hit[differ[:10]].tolist()}"
    np.testing.assert_allclose(normal, ref_normal, rtol=0.0, atol=1e-12)
    both_inf = np.isinf(ref_depth) & (depth == ref_depth)
    tol = 1e-12 * np.maximum(1.0, scale)
    with np.errstate(invalid="ignore"):  # inf - inf where both are inf
        bad = ~both_inf & ~(np.abs(depth - ref_depth) <= tol)
    assert not bad.any(), f"depth differs in rows {np.flatnonzero(bad)[:10].tolist()}: " \
        f"{depth[bad][:5].tolist()} vs numpy {ref_depth[bad][:5].tolist()}"


def row_scale(n: int, *arrays: np.ndarray) -> np.ndarray:
    """Largest absolute input per row; (K, n) coordinate planes count column-wise."""
    return np.max([np.abs(a).reshape(n, -1).max(axis=1) if a.shape[0] == n else np.abs(a).max(axis=0)
                   for a in arrays], axis=0)


def run_both(name: str, *args: np.ndarray) -> None:
    ref = getattr(NUMPY, name)(*args)
    got = getattr(COMPILED, name)(*args)
    if name.endswith("_hull") or name == "contact_polytope_triangle":
        assert_same_hull_contacts(name, ref, got, args)
        return
    assert_same_contacts(ref, got, row_scale(len(ref.hit), *args))


def _hull_pair_points(name: str, args: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a's core points (N, Ka, 3), b's hull vertices (N, V, 3), radius of a) of a hull kernel's arguments."""
    if name == "contact_ball_hull":
        return args[0][:, None, :], args[2], args[1]
    if name == "contact_capsule_hull":
        return np.stack([args[0], args[1]], axis=1), args[3], args[2]
    if name == "contact_box_hull":
        signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
        corners = args[0][:, None, :] + np.einsum("nij,ncj->nci", args[1], signs[None] * args[2][:, None, :])
        return corners, args[3], np.zeros(len(args[0]))
    if name == "contact_polytope_triangle":
        return args[0], args[4], args[3]
    return args[0], args[5], np.zeros(len(args[0]))


def assert_same_hull_contacts(name: str, ref, got, args: tuple[np.ndarray, ...]) -> None:
    """The hull kernels' twins: numpy by batched SAT, compiled by EPA (SAT where EPA gives up).

    Identical hits; depths within 1e-12 of the pair's scale. Normals within
    1e-12 of the scale (the world vertices, hence the edge directions, are
    rounded at that scale), except where two axes tie: touching pairs (a
    vertex on a vertex touches along a whole cone of axes) or symmetric
    ones. There the compiled normal must be as good as numpy's: the overlap
    of the two shapes along it, measured here by projecting every vertex, is
    numpy's depth (within the same tolerance).
    """
    pa, pb, radius = _hull_pair_points(name, args)
    scale = np.maximum(1.0, np.maximum(np.abs(pa).reshape(len(pa), -1).max(axis=1),
                                       np.abs(pb).reshape(len(pb), -1).max(axis=1)))
    differ = np.flatnonzero(got.hit != ref.hit)
    assert len(differ) == 0, f"hit differs in rows {differ[:10].tolist()}"
    bad = ~(np.abs(got.depth - ref.depth) <= 1e-12 * scale)
    # apart by a few 1e-9 of the size, GJK can stall short of the gap; both twins then report the
    # gap along a separating axis (a lower bound), and their axes may differ
    bad &= ~(~got.hit & (np.maximum(-got.depth, -ref.depth) <= 1e-7 * scale))
    assert not bad.any(), f"depth differs in rows {np.flatnonzero(bad)[:10].tolist()}: " \
        f"{got.depth[bad][:5].tolist()} vs numpy {ref.depth[bad][:5].tolist()}"
    np.testing.assert_allclose(np.linalg.norm(got.normal, axis=1), 1.0, rtol=0, atol=1e-12)
    off = np.abs(got.normal - ref.normal).max(axis=1) > 1e-12 * scale
    # along n from a to b: a's highest point minus b's lowest, plus a's radius
    overlap = (np.einsum("nkd,nd->nk", pa, got.normal).max(axis=1)
               - np.einsum("nkd,nd->nk", pb, got.normal).min(axis=1) + radius)
    tie = got.hit & (np.abs(overlap - ref.depth) <= 1e-10 * scale)
    # apart by ulps the axis is as ambiguous; apart by up to 1e-7 of the size, GJK may stop
    # without a proof of the gap and the twins' SATs then give separating axes that may differ
    near = ~got.hit & (np.abs(ref.depth) <= 1e-7 * scale)
    wrong = np.flatnonzero(off & ~tie & ~near)
    assert len(wrong) == 0, f"normal differs in rows {wrong[:10].tolist()}: {got.normal[wrong[:3]].tolist()} " \
        f"vs numpy {ref.normal[wrong[:3]].tolist()}"


# -- inputs -----------------------------------------------------------------------

def unit(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    v = rng.normal(size=(n, d))
    return v / np.linalg.norm(v, axis=1)[:, None]


def rotations(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """Random rotations; a third are exact multiples of 90 degrees (or the identity in 3D)."""
    if d == 2:
        angle = rng.uniform(-np.pi, np.pi, n)
        quarter = rng.random(n) < 1 / 3
        angle[quarter] = rng.integers(0, 4, quarter.sum()) * (np.pi / 2)
        return rotation_matrix_2d(angle)
    rot = rotation_matrix_3d(unit(rng, n, 4))
    rot[rng.random(n) < 1 / 3] = np.eye(3)
    return rot


def far_offsets(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    return unit(rng, n, d) * rng.choice(FAR, n)[:, None]


#: Set by the random test: gaps then spread over -1..1 of the pair's size instead.
NEAR = {"on": True}


def gaps(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.choice(GAPS, n) if NEAR["on"] else rng.uniform(-1.0, 1.0, n)


def convex_polygons(rng: np.random.Generator, n: int, k: int = 8, degenerate: bool = True) -> np.ndarray:
    """(n, k, 2) counter-clockwise convex polygons around the origin, padded by repeating the last vertex.

    Points at increasing angles on an axis-scaled circle are convex; with
    ``degenerate`` some get a repeated vertex inside (a zero-length edge).
    """
    out = np.empty((n, k, 2))
    for i in range(n):
        m = int(rng.integers(3, k))
        ang = np.sort(rng.uniform(0, 2 * np.pi, m))
        if np.diff(np.r_[ang, ang[0] + 2 * np.pi]).max() >= np.pi:  # keep the origin inside
            ang = np.linspace(0, 2 * np.pi, m, endpoint=False) + rng.uniform(0, 1)
        pts = np.stack([np.cos(ang), np.sin(ang)], axis=1) * rng.uniform(0.2, 2.0, 2)
        if degenerate and m < k - 1 and rng.random() < 0.3:
            j = int(rng.integers(0, m))
            pts = np.insert(pts, j, pts[j], axis=0)
        out[i, :len(pts)] = pts
        out[i, len(pts):] = pts[-1]
    return out


def concave_parts(rng: np.random.Generator, n: int, k: int = 8) -> np.ndarray:
    """(n, k, 2) convex parts of random star-shaped (mostly concave) polygons, padded."""
    parts: list[np.ndarray] = []
    while len(parts) < n:
        m = int(rng.integers(5, 10))
        ang = np.linspace(0, 2 * np.pi, m, endpoint=False) + rng.uniform(0, 0.3, m)
        star = np.stack([np.cos(ang), np.sin(ang)], axis=1) * rng.uniform(0.4, 2.0, m)[:, None]
        for part in convex_decomposition(star):
            if len(part) <= k:
                parts.append(np.concatenate([part, np.repeat(part[-1:], k - len(part), axis=0)]))
    return np.array(parts[:n])


def polygons(rng: np.random.Generator, n: int) -> np.ndarray:
    half = n // 2
    return np.concatenate([convex_polygons(rng, half), concave_parts(rng, n - half)])


def tie_rows(rng: np.random.Generator, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows whose every face axis ties: equal cubes, unrotated, offset equally on every axis.

    Returns (rows, centre offsets (T, d), half extents (T, d)) for the first
    tenth of the rows; which tied axis wins is the kernels' documented tie-break.
    """
    t = N // 10
    size = rng.uniform(0.5, 2.0, t)
    step = 2 * size * (1 + rng.choice(GAPS, t))
    return np.arange(t), step[:, None] * np.sign(rng.normal(size=(t, d))), np.repeat(size[:, None], d, axis=1)


def box_corners_2d(rot: np.ndarray, half: np.ndarray) -> np.ndarray:
    signs = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    return np.einsum("nij,nkj->nki", rot, signs[None] * half[:, None, :])


def place_apart(rng: np.random.Generator, va: np.ndarray, vb: np.ndarray, normal: np.ndarray) -> np.ndarray:
    """Translation of point set b so that along ``normal`` it starts ``gap * size`` past a's extreme."""
    n = len(va)
    reach_a = np.einsum("nkd,nd->nk", va, normal).max(axis=1)
    low_b = np.einsum("nkd,nd->nk", vb, normal).min(axis=1)
    size = np.abs(va).reshape(n, -1).max(axis=1) + np.abs(vb).reshape(n, -1).max(axis=1)
    slide = unit(rng, n, va.shape[2]) * rng.uniform(0, 0.5, n)[:, None]
    slide -= np.einsum("nd,nd->n", slide, normal)[:, None] * normal  # along the contact face
    return normal * (reach_a - low_b + gaps(rng, n) * size)[:, None] + slide


# -- one differential test per kernel ------------------------------------------------

def case_halfspace_halfspace(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    na, nb = unit(rng, N, d), unit(rng, N, d)
    oa = rng.normal(size=N) * rng.choice(FAR, N)
    ob = rng.normal(size=N)
    opposite = rng.random(N) < 0.6  # a slab whose thickness is a near-zero gap
    nb[opposite] = -na[opposite]
    ob[opposite] = -oa[opposite] - gaps(rng, int(opposite.sum())) * np.maximum(1.0, np.abs(oa[opposite]))
    return na, oa, nb, ob


def case_halfspace_ball(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    n = unit(rng, N, d)
    off = rng.normal(size=N) * rng.choice(FAR, N)
    r = rng.uniform(0.01, 3.0, N)
    c = far_offsets(rng, N, d)
    lowest = np.einsum("nd,nd->n", n, c) - r
    c += n * (off - lowest + gaps(rng, N) * np.maximum(1.0, np.abs(off)))[:, None]
    return n, off, c, r


def case_halfspace_box(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    n = unit(rng, N, d)
    n[: N // 4] = np.eye(d)[rng.integers(0, d, N // 4)]  # faces flush with the plane
    off = rng.normal(size=N) * rng.choice(FAR, N)
    rot = rotations(rng, N, d)
    half = rng.uniform(0.01, 3.0, (N, d))
    c = far_offsets(rng, N, d)
    lowest = np.einsum("nd,nd->n", n, c) - np.einsum("ni,ni->n", np.abs(np.einsum("nji,nj->ni", rot, n)), half)
    c += n * (off - lowest + gaps(rng, N) * np.maximum(1.0, np.abs(off)))[:, None]
    return n, off, c, rot, half


def case_halfspace_points(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    n = unit(rng, N, d)
    off = rng.normal(size=N) * rng.choice(FAR, N)
    if d == 2:
        v = polygons(rng, N)
    else:
        v = rng.normal(size=(N, 8, 3))
    v = v + far_offsets(rng, N, d)[:, None, :]
    lowest = np.einsum("nkd,nd->nk", v, n).min(axis=1)
    v += (n * (off - lowest + gaps(rng, N) * np.maximum(1.0, np.abs(off)))[:, None])[:, None, :]
    return n, off, v


def case_ball_ball(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    ca = far_offsets(rng, N, d)
    ra, rb = rng.uniform(0.01, 3.0, N), rng.uniform(0.01, 3.0, N)
    cb = ca + unit(rng, N, d) * (ra + rb + gaps(rng, N) * (ra + rb))[:, None]
    cb[: N // 20] = ca[: N // 20]  # concentric
    return ca, ra, cb, rb


def case_ball_box(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    cb = far_offsets(rng, N, d)
    rot = rotations(rng, N, d)
    half = rng.uniform(0.01, 3.0, (N, d))
    r = rng.uniform(0.01, 3.0, N)
    # a point on the box surface (a face, an edge or a corner), then outwards
    local = rng.uniform(-1, 1, (N, d)) * half
    axis = rng.integers(0, d, N)
    side = rng.choice([-1.0, 1.0], N)
    local[np.arange(N), axis] = side * half[np.arange(N), axis]
    corner = rng.random(N) < 0.3
    local[corner] = np.sign(rng.normal(size=(corner.sum(), d))) * half[corner]
    out_dir = np.zeros((N, d))
    out_dir[np.arange(N), axis] = side
    out_dir[corner] = np.sign(local[corner]) / np.sqrt(d)
    local += out_dir * (r + gaps(rng, N) * (r + half.max(axis=1)))[:, None]
    inside = rng.random(N) < 0.1  # centre inside, near a face
    local[inside] *= 0.5
    rows, step, cube = tie_rows(rng, d)  # centre inside a cube, as near to d faces as to one
    half[rows] = cube
    local[rows] = step * 0.25
    ca = cb + np.einsum("nij,nj->ni", rot, local)
    return ca, r, cb, rot, half


def case_box_box_2d(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    rot_a, rot_b = rotations(rng, N, 2), rotations(rng, N, 2)
    half_a, half_b = rng.uniform(0.01, 3.0, (N, 2)), rng.uniform(0.01, 3.0, (N, 2))
    ca = far_offsets(rng, N, 2)
    va, vb = box_corners_2d(rot_a, half_a), box_corners_2d(rot_b, half_b)
    face = rot_a[np.arange(N), :, rng.integers(0, 2, N)] * rng.choice([-1.0, 1.0], N)[:, None]
    cb = ca + place_apart(rng, va, vb, face)
    rows, step, half = tie_rows(rng, 2)
    rot_a[rows] = rot_b[rows] = np.eye(2)
    half_a[rows] = half_b[rows] = half
    cb[rows] = ca[rows] + step
    return ca, rot_a, half_a, cb, rot_b, half_b


def box_support_3d(rot: np.ndarray, half: np.ndarray, direction: np.ndarray) -> np.ndarray:
    return np.einsum("ni,ni->n", np.abs(np.einsum("nji,nj->ni", rot, direction)), half)


def case_box_box_3d(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    rot_a, rot_b = rotations(rng, N, 3), rotations(rng, N, 3)
    half_a, half_b = rng.uniform(0.01, 3.0, (N, 3)), rng.uniform(0.01, 3.0, (N, 3))
    ca = far_offsets(rng, N, 3)
    rows = np.arange(N)
    # separating direction: a face normal of a, or an edge-edge cross product
    direction = rot_a[rows, :, rng.integers(0, 3, N)]
    edge = rng.random(N) < 0.5
    cross = np.cross(rot_a[rows, :, rng.integers(0, 3, N)], rot_b[rows, :, rng.integers(0, 3, N)])
    length = np.linalg.norm(cross, axis=1)
    edge &= length > 1e-3
    direction[edge] = cross[edge] / length[edge, None]
    direction *= rng.choice([-1.0, 1.0], N)[:, None]
    reach = box_support_3d(rot_a, half_a, direction) + box_support_3d(rot_b, half_b, direction)
    size = half_a.max(axis=1) + half_b.max(axis=1)
    cb = ca + direction * (reach + gaps(rng, N) * size)[:, None]
    rows, step, half = tie_rows(rng, 3)
    rot_a[rows] = rot_b[rows] = np.eye(3)
    half_a[rows] = half_b[rows] = half
    cb[rows] = ca[rows] + step
    return ca, rot_a, half_a, cb, rot_b, half_b


def case_ball_polygon(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    v = polygons(rng, N)
    r = rng.uniform(0.01, 2.0, N)
    rows = np.arange(N)
    k = rng.integers(0, 8, N)
    p0, p1 = v[rows, k], v[rows, (k + 1) % 8]
    e = p1 - p0
    length = np.linalg.norm(e, axis=1)
    ok = length > 0
    outward = np.where(ok[:, None], np.stack([e[:, 1], -e[:, 0]], axis=1) / np.where(ok, length, 1.0)[:, None],
                       unit(rng, N, 2))
    t = rng.choice([0.0, 0.5, 1.0, 1e-12, 1.0 - 1e-12], N)[:, None]
    on_edge = p0 + t * e
    c = on_edge + outward * (r + gaps(rng, N) * (r + 2.0))[:, None]
    # centres within rounding of an edge (Box2D picks the feature by the separating edge there)
    grazing = rng.random(N) < 0.15
    c[grazing] = on_edge[grazing] + outward[grazing] * (gaps(rng, int(grazing.sum())) * 2.0)[:, None]
    inside = rng.random(N) < 0.1
    c[inside] = on_edge[inside] * 0.5
    rows, step, half = tie_rows(rng, 2)  # squares: centre on a diagonal, inside or beyond a corner
    v[rows] = np.concatenate([box_corners_2d(np.repeat(np.eye(2)[None], len(rows), 0), half),
                              np.repeat(half[:, None] * [[-1.0, 1.0]], 4, axis=1)], axis=1)
    c[rows] = step * rng.choice([0.25, 0.75], len(rows))[:, None]
    shift = far_offsets(rng, N, 2)
    return c + shift, r, v + shift[:, None, :]


def case_box_polygon(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    rot = rotations(rng, N, 2)
    half = rng.uniform(0.01, 3.0, (N, 2))
    vb = polygons(rng, N)
    ca = far_offsets(rng, N, 2)
    face = rot[np.arange(N), :, rng.integers(0, 2, N)] * rng.choice([-1.0, 1.0], N)[:, None]
    from_b = rng.random(N) < 0.5  # or along one of b's edge normals
    e = vb[:, 1] - vb[:, 0]
    ne = np.stack([-e[:, 1], e[:, 0]], axis=1)
    ln = np.linalg.norm(ne, axis=1)
    from_b &= ln > 0
    face[from_b] = ne[from_b] / ln[from_b, None]
    vb = vb + (ca + place_apart(rng, box_corners_2d(rot, half), vb, face))[:, None, :]
    rows, step, cube = tie_rows(rng, 2)
    rot[rows], half[rows] = np.eye(2), cube
    corners = box_corners_2d(rot[rows], cube)
    vb[rows] = np.concatenate([corners, np.repeat(corners[:, -1:], 4, axis=1)], axis=1) + (ca[rows] + step)[:, None]
    return ca, rot, half, vb


def case_polygon_polygon(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    va, vb = polygons(rng, N), polygons(rng, N)
    rot = rotations(rng, N, 2)
    vb = np.einsum("nij,nkj->nki", rot, vb)
    e = va[:, 1] - va[:, 0]
    ne = np.stack([e[:, 1], -e[:, 0]], axis=1)
    ln = np.linalg.norm(ne, axis=1)
    direction = np.where((ln > 0)[:, None], ne / np.where(ln > 0, ln, 1.0)[:, None], unit(rng, N, 2))
    shift = far_offsets(rng, N, 2)
    vb = vb + (shift + place_apart(rng, va, vb, direction))[:, None, :]
    va = va + shift[:, None, :]
    rows, step, half = tie_rows(rng, 2)
    square = box_corners_2d(np.repeat(np.eye(2)[None], len(rows), 0), half)
    square = np.concatenate([square, np.repeat(square[:, -1:], 4, axis=1)], axis=1)
    va[rows] = square + shift[rows, None]
    vb[rows] = square + (shift[rows] + step)[:, None]
    # a few polygons rounded onto a single point (every edge zero-length)
    va[-(N // 50):] = va[-(N // 50):, :1]
    return va, vb


def as_planes(args: tuple[np.ndarray, ...], first: int) -> tuple[np.ndarray, ...]:
    """``args`` with the (N, K, 2) vertex arrays from ``first`` on as (K, N) x and y planes."""
    out = list(args[:first])
    for v in args[first:]:
        p = np.ascontiguousarray(v.transpose(2, 1, 0))
        out += [p[0], p[1]]
    return tuple(out)


# -- capsules: random configurations, then b slid along the numpy kernel's own
# normal to a chosen gap (an MTD moves b to touching exactly, so these are near-touching)

def capsule_points(rng: np.random.Generator, d: int, shift: np.ndarray) -> tuple[np.ndarray, ...]:
    """Capsule end points around ``shift``: a tenth degenerate (p0 == p1), some axis-parallel; radii, a tenth 0."""
    p0 = rng.uniform(-1.5, 1.5, (N, d))
    p1 = p0 + rng.normal(size=(N, d)) * rng.uniform(0.0, 2.0, (N, 1))
    p1[: N // 10] = p0[: N // 10]
    flat = slice(N // 10, N // 5)
    p1[flat, 1:] = p0[flat, 1:]  # along the x axis
    r = rng.uniform(0.05, 1.0, N)
    r[-(N // 10):] = 0.0  # segments
    return p0 + shift, p1 + shift, r


def slide_near(rng: np.random.Generator, name: str, args: tuple[np.ndarray, ...], moving: tuple[int, ...]) -> None:
    """Move the arrays ``args[j]`` for ``j`` in ``moving`` (b's points) so that the pair is near touching."""
    res = getattr(NUMPY, name)(*args)
    size = row_scale(N, *args)
    step = (res.depth + gaps(rng, N) * np.minimum(size, 3.0))[:, None] * res.normal
    for j in moving:
        args[j][...] += step


def case_halfspace_capsule(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    normal = unit(rng, N, d)
    far = far_offsets(rng, N, d)
    p0, p1, r = capsule_points(rng, d, far)
    args = (normal, np.einsum("nd,nd->n", normal, far), p0, p1, r)
    slide_near(rng, "contact_halfspace_capsule", args, (2, 3))
    return args


def case_ball_capsule(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    far = far_offsets(rng, N, d)
    c = far + rng.uniform(-1, 1, (N, d))
    p0, p1, r = capsule_points(rng, d, far)
    args = (c, rng.uniform(0.05, 1.0, N), p0, p1, r)
    slide_near(rng, "contact_ball_capsule", args, (2, 3))
    return args


def case_capsule_capsule(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    far = far_offsets(rng, N, d)
    a0, a1, ra = capsule_points(rng, d, far)
    b0, b1, rb = capsule_points(rng, d, far)
    rb = rb[::-1].copy()
    args = (a0, a1, ra, b0, b1, rb)
    slide_near(rng, "contact_capsule_capsule", args, (3, 4))
    return args


def case_box_capsule_3d(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    far = far_offsets(rng, N, 3)
    p0, p1, r = capsule_points(rng, 3, far)
    args = (far.copy(), rotations(rng, N, 3), rng.uniform(0.05, 1.5, (N, 3)), p0, p1, r)
    slide_near(rng, "contact_box_capsule_3d", args, (3, 4))
    return args


def case_polygon_capsule(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    far = far_offsets(rng, N, 2)
    p0, p1, r = capsule_points(rng, 2, far)
    args = (polygons(rng, N) + far[:, None, :], p0, p1, r)
    slide_near(rng, "contact_polygon_capsule", args, (1, 2))
    return args


_HULL_POOL: list = []


def hull_rows(rng: np.random.Generator, far: np.ndarray, spread: float) -> tuple[np.ndarray, ...]:
    """N random hulls of 4 to 64 vertices (mixed, so rows are padded) at ``far`` plus up to ``spread``, as
    ``BodyStore.hull_arrays`` gives them."""
    from collideworld import ConvexHull

    if not _HULL_POOL:
        pool_rng = np.random.default_rng(2024)
        for k in range(40):
            m = (4, 8, 16, 32, 64)[k % 5]
            pts = pool_rng.normal(size=(m, 3))
            if k % 2:
                pts /= np.linalg.norm(pts, axis=1)[:, None]  # every point a vertex
            _HULL_POOL.append(ConvexHull([tuple(p) for p in pts * pool_rng.uniform(0.3, 1.0, 3)]))
    store = BodyStore(3)
    slots = store.allocate(N)
    store.set_shapes(slots, [_HULL_POOL[i] for i in rng.integers(0, len(_HULL_POOL), N)])
    store.set_poses(slots, far + rng.uniform(-spread, spread, (N, 3)), quaternion=unit(rng, N, 4))
    return store.hull_arrays(slots)


def slide_hull_near(rng: np.random.Generator, name: str, args: tuple[np.ndarray, ...], verts: int) -> None:
    """Move hull b (its vertices are ``args[verts]``) so that the pair is near touching."""
    res = getattr(NUMPY, name)(*args)
    size = row_scale(N, *args[:verts + 1])
    step = (res.depth + gaps(rng, N) * np.minimum(size, 3.0))[:, None] * res.normal
    args[verts][...] += step[:, None, :]


def case_ball_hull(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    far = far_offsets(rng, N, 3)
    args = (far + rng.uniform(-1, 1, (N, 3)), rng.uniform(0.05, 1.0, N), *hull_rows(rng, far, 1.0))
    slide_hull_near(rng, "contact_ball_hull", args, 2)
    return args


def case_box_hull(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    far = far_offsets(rng, N, 3)
    args = (far.copy(), rotations(rng, N, 3), rng.uniform(0.05, 1.5, (N, 3)), *hull_rows(rng, far, 1.0))
    slide_hull_near(rng, "contact_box_hull", args, 3)
    return args


def case_capsule_hull(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    far = far_offsets(rng, N, 3)
    p0, p1, r = capsule_points(rng, 3, far)
    args = (p0, p1, r, *hull_rows(rng, far, 1.0))
    slide_hull_near(rng, "contact_capsule_hull", args, 3)
    return args


def case_hull_hull(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    far = far_offsets(rng, N, 3)
    args = (*hull_rows(rng, far, 0.5), *hull_rows(rng, far, 0.5))
    slide_hull_near(rng, "contact_hull_hull", args, 5)
    return args


def case_polytope_triangle(rng: np.random.Generator, d: int) -> tuple[np.ndarray, ...]:
    """Boxes, spheres (a box's corners all at its centre) and capsules (4 corners at each end) against triangles.

    A quarter of the triangles' edges are inactive (the no-snag rule), the triangle slid to near touching.
    """
    far = far_offsets(rng, N, 3)
    rot = rotations(rng, N, 3)
    half = rng.uniform(0.05, 1.5, (N, 3))
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
    verts = far[:, None, :] + np.einsum("nij,ncj->nci", rot, signs[None] * half[:, None, :])
    normals = np.swapaxes(rot, 1, 2).copy()
    edges = normals.copy()
    radius = np.zeros(N)
    kind = rng.integers(0, 3, N)
    ball, capsule = kind == 1, kind == 2
    verts[ball] = far[ball, None, :]
    edges[ball] = 0.0
    p0, p1, r = capsule_points(rng, 3, far)
    verts[capsule] = np.concatenate([np.repeat(p0[:, None], 4, axis=1), np.repeat(p1[:, None], 4, axis=1)],
                                    axis=1)[capsule]
    normals[capsule] = 0.0
    edges[capsule] = 0.0
    edges[capsule, 0] = (p1 - p0)[capsule]
    radius[ball] = rng.uniform(0.05, 1.0, int(ball.sum()))
    radius[capsule] = r[capsule]
    tri = far[:, None, :] + rng.uniform(-1.5, 1.5, (N, 3, 3))
    active = rng.random((N, 3)) > 0.25
    args = (verts, normals, edges, radius, tri, active)
    slide_hull_near(rng, "contact_polytope_triangle", args, 4)
    return args


CASES: dict[str, tuple[tuple[int, ...], Callable[..., tuple[np.ndarray, ...]]]] = {
    "contact_halfspace_halfspace": ((2, 3), case_halfspace_halfspace),
    "contact_halfspace_ball": ((2, 3), case_halfspace_ball),
    "contact_halfspace_box": ((2, 3), case_halfspace_box),
    "contact_halfspace_points": ((2, 3), case_halfspace_points),
    "contact_ball_ball": ((2, 3), case_ball_ball),
    "contact_ball_box": ((2, 3), case_ball_box),
    "contact_ball_polygon": ((2,), case_ball_polygon),
    "contact_ball_polygon_planes": ((2,), lambda rng, d: as_planes(case_ball_polygon(rng, d), 2)),
    "contact_box_box_2d": ((2,), case_box_box_2d),
    "contact_box_box_3d": ((3,), case_box_box_3d),
    "contact_box_polygon": ((2,), case_box_polygon),
    "contact_box_convex_planes": ((2,), lambda rng, d: as_planes(case_box_polygon(rng, d), 3)),
    "contact_polygon_polygon": ((2,), case_polygon_polygon),
    "contact_convex_planes": ((2,), lambda rng, d: as_planes(case_polygon_polygon(rng, d), 0)),
    "contact_halfspace_capsule": ((2, 3), case_halfspace_capsule),
    "contact_ball_capsule": ((2, 3), case_ball_capsule),
    "contact_capsule_capsule": ((2, 3), case_capsule_capsule),
    "contact_box_capsule_3d": ((3,), case_box_capsule_3d),
    "contact_polygon_capsule": ((2,), case_polygon_capsule),
    "contact_ball_hull": ((3,), case_ball_hull),
    "contact_box_hull": ((3,), case_box_hull),
    "contact_capsule_hull": ((3,), case_capsule_hull),
    "contact_hull_hull": ((3,), case_hull_hull),
    "contact_polytope_triangle": ((3,), case_polytope_triangle),
}

PARAMS = [(name, d) for name, (dims, _) in CASES.items() for d in dims]


def test_every_kernel_has_a_case() -> None:
    assert set(CASES) == set(KERNEL_TWINS) == set(NUMPY._fields)


@pytest.mark.parametrize("name, dim", PARAMS)
@pytest.mark.parametrize("seed", range(4))
def test_compiled_matches_numpy_near_touching(name: str, dim: int, seed: int) -> None:
    rng = np.random.default_rng([seed, dim, sum(map(ord, name))])
    args = CASES[name][1](rng, dim)
    ref = getattr(NUMPY, name)(*args)
    # the inputs really are near-touching: both outcomes occur, many within 1e-6 of touching
    assert ref.hit.any() and (~ref.hit).any()
    assert (np.abs(ref.depth) <= 1e-6 * np.maximum(1.0, row_scale(N, *args))).mean() > 0.2
    run_both(name, *args)


@pytest.mark.parametrize("name, dim", PARAMS)
def test_compiled_matches_numpy_random(name: str, dim: int) -> None:
    rng = np.random.default_rng([99, dim, sum(map(ord, name))])
    NEAR["on"] = False
    try:
        args = CASES[name][1](rng, dim)
    finally:
        NEAR["on"] = True
    run_both(name, *args)


@pytest.mark.parametrize("name, dim", PARAMS)
def test_compiled_handles_zero_rows(name: str, dim: int) -> None:
    # (K, N) planes lose their columns, everything else its leading rows
    args = tuple(a[:, :0] if a.shape[0] != N else a[:0] for a in CASES[name][1](np.random.default_rng(0), dim))
    ref = getattr(NUMPY, name)(*args)
    got = getattr(COMPILED, name)(*args)
    assert got.hit.shape == ref.hit.shape == (0,)
    assert got.normal.shape == ref.normal.shape


def test_box_box_3d_single_pair_broadcasts_like_numpy() -> None:
    eye = np.eye(3)
    ref = NUMPY.contact_box_box_3d([0, 0, 0], eye, [1, 1, 1], [[1.5, 0, 0], [3.0, 0, 0]], eye, [1, 1, 1])
    got = COMPILED.contact_box_box_3d([0, 0, 0], eye, [1, 1, 1], [[1.5, 0, 0], [3.0, 0, 0]], eye, [1, 1, 1])
    assert got.hit.tolist() == ref.hit.tolist() == [True, False]
    assert got.normal.shape == (2, 3)
    one = COMPILED.contact_box_box_3d([0, 0, 0], eye, [1, 1, 1], [1.5, 0, 0], eye, [1, 1, 1])
    assert one.hit.shape == () and one.normal.shape == (3,) and float(one.depth) == 0.5


def test_twins_live_under_the_same_module_and_function_names() -> None:
    for name in NUMPY._fields:
        ref, twin = getattr(NUMPY, name), getattr(COMPILED, name)
        assert twin.__name__ == ref.__name__ == name
        assert twin.__module__ == ref.__module__.replace("collideworld.geometry.", "collideworld.geometry.compiled.")


@pytest.mark.parametrize("family", [
    "test_circles_near_convex_polygon_edges_and_vertices",
    "test_circles_near_2d_box_edges_and_corners",
    "test_spheres_near_3d_box_faces_edges_and_corners",
    "test_boxes_with_nearly_parallel_edges_match_exact_sat",
])
def test_compiled_twins_pass_the_exact_near_touching_families(monkeypatch: pytest.MonkeyPatch, family: str) -> None:
    """The exact-arithmetic (Fraction) oracle families of test_near_touching.py, run on the compiled twins."""
    from tests import test_near_touching as families

    for name in ("contact_ball_box", "contact_ball_polygon", "contact_box_box_3d"):
        monkeypatch.setattr(families, name, getattr(COMPILED, name))
    getattr(families, family)()


def test_touch_rule_reproduces_touch_tolerance() -> None:
    from collideworld.geometry.compiled.kernel_support import finish_row, touch_rule
    from collideworld.geometry.tolerance import touch_tolerance

    scales = np.array([0.0, 1e-300, 2.0**-50, 1e-16, 0.3, 1.0, 7.0, 1e6, 1e150])
    tol = touch_tolerance(scales)
    for sign in (-1.0, 1.0):
        for nudge in (0.5, 1.0, 2.0):  # inside, exactly at, and outside the tolerance
            signed = sign * tol * nudge
            hit, depth = np.empty(len(scales), dtype=bool), np.empty(len(scales))
            for i, (d, s) in enumerate(zip(signed, scales, strict=True)):
                finish_row(float(d), float(s), touch_rule(), i, hit, depth)
            assert hit.tolist() == (signed >= -tol).tolist()


# -- AABB twins ---------------------------------------------------------------------

@pytest.mark.parametrize("dim", [2, 3])
def test_compiled_aabbs_match_numpy(dim: int) -> None:
    compiled_aabb = importlib.import_module("collideworld.geometry.compiled.aabb")
    rng = np.random.default_rng(dim)
    c = far_offsets(rng, N, dim) + rng.normal(size=(N, dim))
    r = rng.uniform(0, 3, N)
    rot, half = rotations(rng, N, dim), rng.uniform(0, 3, (N, dim))
    pts = rng.normal(size=(N, 7, dim)) * 1e3
    for fn, args in (("aabb_ball", (c, r)), ("aabb_box", (c, rot, half)), ("aabb_points", (pts,))):
        (lo, hi), (lo2, hi2) = getattr(numpy_aabb, fn)(*args), getattr(compiled_aabb, fn)(*args)
        scale = np.maximum(1.0, np.abs(lo))
        assert np.all(np.abs(lo2 - lo) <= 1e-12 * scale) and np.all(np.abs(hi2 - hi) <= 1e-12 * scale)
        # a bounding box must still contain its shape: the twin never shrinks it by more than rounding
        assert np.all(lo2 <= hi2)


# -- contact_pairs: both backends over random worlds ---------------------------------

def random_store(rng: np.random.Generator, dim: int, kinds: str,
                 n: int = 40) -> tuple[BodyStore, np.ndarray, np.ndarray]:
    """A store of ``n`` random bodies of the given kinds, and every pair of their slots."""
    shapes = []
    for _ in range(n):
        k = rng.choice(list(kinds))
        if k == "h":
            normal = unit(rng, 1, dim)[0]
            shapes.append(HalfPlane(tuple(normal), float(rng.normal())) if dim == 2
                          else Plane(tuple(normal), float(rng.normal())))
        elif k == "c":
            shapes.append(Circle(float(rng.uniform(0.2, 1.5))) if dim == 2 else Sphere(float(rng.uniform(0.2, 1.5))))
        elif k == "b":
            shapes.append(Box(tuple(rng.uniform(0.2, 1.5, dim))))
        else:
            m = int(rng.integers(3, 9))
            ang = np.linspace(0, 2 * np.pi, m, endpoint=False) + rng.uniform(0, 0.4, m)
            rad = rng.uniform(0.4, 1.5, m) if rng.random() < 0.5 else np.full(m, rng.uniform(0.4, 1.5))
            shapes.append(Polygon(tuple(map(tuple, np.stack([np.cos(ang), np.sin(ang)], 1) * rad[:, None]))))
    store = BodyStore(dim)
    slots = store.allocate(n)
    store.set_shapes(slots, shapes)
    pos = rng.uniform(-3, 3, (n, dim)) + rng.choice([0.0, 1e6]) * unit(rng, 1, dim)
    if dim == 2:
        store.set_poses(slots, pos, rng.uniform(-np.pi, np.pi, n))
    else:
        store.set_poses(slots, pos, quaternion=unit(rng, n, 4))
    ia, ib = np.triu_indices(n, 1)
    return store, slots[ia], slots[ib]


KIND_MIXES = [(2, "hcbp"), (2, "cp"), (2, "bp"), (2, "p"), (2, "hp"), (2, "cb"), (3, "hcb"), (3, "b"), (3, "hc")]


@pytest.mark.parametrize("dim, kinds", KIND_MIXES)
@pytest.mark.parametrize("seed", range(3))
def test_contact_pairs_compiled_equals_numpy(dim: int, kinds: str, seed: int) -> None:
    rng = np.random.default_rng([seed, dim, len(kinds)])
    store, ia, ib = random_store(rng, dim, kinds)
    scale = np.abs(store.position).max() + 10.0
    for fn in (contact_pairs, contact_pairs_exact):
        ref = fn(store, ia, ib)
        got = fn(store, ia, ib, backend="compiled")
        assert_same_contacts(ref, got, np.full(len(ia), scale))
        if fn is contact_pairs:
            assert ref.hit.any()
        # and each pair the other way round, through the dispatcher's swap and flip
        assert_same_contacts(fn(store, ib, ia), fn(store, ib, ia, backend="compiled"), np.full(len(ia), scale))


def test_contact_pairs_auto_backend_runs_compiled() -> None:
    store, ia, ib = random_store(np.random.default_rng(5), 2, "hcbp")
    assert_same_contacts(contact_pairs(store, ia, ib), contact_pairs(store, ia, ib, backend="auto"),
                         np.full(len(ia), 20.0))


def test_contact_pairs_rejects_an_unknown_backend() -> None:
    store, ia, ib = random_store(np.random.default_rng(5), 2, "c")
    with pytest.raises(InvalidArgumentError, match="'cuda'"):
        contact_pairs(store, ia, ib, backend="cuda")


# -- backend selection ------------------------------------------------------------------

def test_resolve_backend() -> None:
    assert resolve_backend("numpy") == "numpy"
    assert resolve_backend("compiled") == "compiled"
    assert resolve_backend("auto") == "compiled"
    for bad in ("Numpy", "", "gpu"):
        with pytest.raises(InvalidArgumentError, match=repr(bad)):
            resolve_backend(bad)
    with pytest.raises(InvalidArgumentError, match="None"):
        resolve_backend(None)  # type: ignore[arg-type]


def test_warm_up_validates_dims_and_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bad arguments are refused before anything runs; good ones prepare exactly the dimensions asked for.

    What each dimension's preparation runs is recorded here, not run: running it (every kernel of a
    step, compiled on the CI's empty cache: ~45 s) is test_no_compilation_in_a_step_after_warm_up's
    job, once, in a fresh process that then checks a step compiles nothing more.
    """
    from collideworld.threads import parallel_possible

    warm_module = importlib.import_module("collideworld.warm")
    calls: list[tuple[object, ...]] = []
    monkeypatch.setattr(warm_module, "warm_dim", lambda d, every_shape=False: calls.append(("dim", d, every_shape)))
    monkeypatch.setattr(warm_module, "WARMERS", [lambda d: calls.append(("warmer", d))])
    with pytest.raises(InvalidArgumentError, match=r"\(4,\)"):
        warm_up(dims=(4,))
    with pytest.raises(InvalidArgumentError, match=r"\(2, 1\)"):
        warm_up(dims=(2, 1))
    with pytest.raises(InvalidArgumentError, match="every_shape.*'yes'"):
        warm_up(every_shape="yes")  # type: ignore[arg-type]
    assert calls == []  # refused before any preparation

    def expected(dims: tuple[int, ...], every: bool) -> list[tuple[object, ...]]:
        # each dimension's kernels, then their parallel builds where they can run, then the registered warmers
        return [c for d in dims for c in [("dim", d, every)] + [("dim", d, False)] * parallel_possible() + [
            ("warmer", d)]]

    warm_up(dims=[3])
    assert calls == expected((3,), False)
    calls.clear()
    warm_up()
    assert calls == expected((2, 3), False)
    calls.clear()
    warm_up(dims=(3, 2, 3), every_shape=True)
    assert calls == expected((2, 3), True)


NO_COMPILE_AFTER_WARM_UP = textwrap.dedent("""
    import importlib, pkgutil
    import numpy as np
    import collideworld
    from collideworld import World, Circle, Box, Polygon, HalfPlane, Plane, Sphere
    collideworld.warm_up()
    modules = ["collideworld.broadphase.compiled"] + [
        package + "." + m.name
        for package in ("collideworld.geometry.compiled", "collideworld.compiled")
        for m in pkgutil.iter_modules(importlib.import_module(package).__path__)]
    def signatures():
        found = {}
        for name in modules:
            for attr, obj in vars(importlib.import_module(name)).items():
                if hasattr(obj, "signatures") and hasattr(obj, "py_func"):
                    found[name + "." + attr] = len(obj.signatures)
        return found
    before = signatures()
    rng = np.random.default_rng(0)
    for dim in (2, 3):
        w = World(dim=dim, backend="compiled")
        w.add(HalfPlane((0.0, 1.0), 0.0) if dim == 2 else Plane((0.0, 0.0, 1.0), 0.0))
        for i in range(40):
            shapes = ([Circle(0.5), Box((0.5, 0.3)), Polygon(((0, 0), (1, 0), (0.5, 0.8))),
                       Polygon(((0, 0), (2, 0), (2, 2), (1, 0.5), (0, 2)))] if dim == 2
                      else [Sphere(0.5), Box((0.5, 0.3, 0.2))])
            w.add(shapes[i % len(shapes)], position=tuple(rng.uniform(0, 6, dim)))
        for _ in range(3):
            w.step()
            for body in range(1, 41, 3):  # move some bodies: the moved-body paths run too
                w.move(body, position=tuple(rng.uniform(0, 6, dim)))
    after = signatures()
    grown = {k: (before.get(k), v) for k, v in after.items() if v != before.get(k)}
    assert not grown, grown
    print("ok")
""")


def test_no_compilation_in_a_step_after_warm_up() -> None:
    # The suite's one full warm_up() of the default kinds (test_warm_up_validates_dims_and_runs records
    # its calls): on an empty cache it compiles, ~75 s of CPU, far longer in wall time on a loaded machine
    done = subprocess.run([sys.executable, "-c", NO_COMPILE_AFTER_WARM_UP], capture_output=True, text=True,
                          timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"


FALLBACK = textwrap.dedent("""
    import sys, warnings
    sys.modules["numba"] = None  # as if numba were not installed
    import collideworld
    from collideworld.backend import compiled_available, resolve_backend
    from collideworld.errors import InvalidArgumentError
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert resolve_backend("auto") == "numpy"
        assert resolve_backend("auto") == "numpy"
        assert resolve_backend("numpy") == "numpy"
    assert not compiled_available()
    assert len(caught) == 1, [str(w.message) for w in caught]
    message = str(caught[0].message)
    assert "numba" in message and "identical" in message and "slower" in message, message
    try:
        resolve_backend("compiled")
    except InvalidArgumentError as exc:
        assert "numba" in str(exc)
    else:
        raise AssertionError("compiled without numba did not raise")
    collideworld.warm_up()  # nothing to compile: does nothing
    w = collideworld.World(dim=2)
    w.add(collideworld.Circle(1.0), position=(0.0, 0.0))
    w.add(collideworld.Circle(1.0), position=(1.5, 0.0))
    assert sorted(w.step().pairs()) == [(0, 1)]
    print("ok")
""")


NO_COMPILE_AFTER_WARM_UP_EVERY_SHAPE = textwrap.dedent("""
    import importlib, pkgutil
    import numpy as np
    import collideworld
    from collideworld import World, Circle, Box, Polygon, HalfPlane, Plane, Sphere, Capsule, Segment, ConvexHull
    collideworld.warm_up(every_shape=True)
    modules = ["collideworld.broadphase.compiled"] + [
        package + "." + m.name
        for package in ("collideworld.geometry.compiled", "collideworld.compiled")
        for m in pkgutil.iter_modules(importlib.import_module(package).__path__)]
    def signatures():
        found = {}
        for name in modules:
            for attr, obj in vars(importlib.import_module(name)).items():
                if hasattr(obj, "signatures") and hasattr(obj, "py_func"):
                    found[name + "." + attr] = len(obj.signatures)
        return found
    before = signatures()
    rng = np.random.default_rng(1)
    for dim in (2, 3):
        w = World(dim=dim, backend="compiled")
        w.add(HalfPlane((0.0, 1.0), 0.0) if dim == 2 else Plane((0.0, 0.0, 1.0), 0.0))
        if dim == 2:
            shapes = [Circle(0.5), Box((0.5, 0.3)), Polygon(((0, 0), (1, 0), (0.5, 0.8))),
                      Capsule((0, 0), (1, 0), 0.3), Segment((0, 0), (0.5, 1))]
        else:
            hull = ConvexHull([tuple(p) for p in rng.normal(size=(12, 3))])
            shapes = [Sphere(0.5), Box((0.5, 0.3, 0.2)), Capsule((0, 0, 0), (1, 0, 0), 0.3),
                      Segment((0, 0, 0), (0.5, 1, 0)), hull]
        for i in range(60):
            w.add(shapes[i % len(shapes)], position=tuple(rng.uniform(0, 5, dim)))
        for _ in range(3):
            w.step()
            for body in range(1, 61, 3):
                w.move(body, position=tuple(rng.uniform(0, 5, dim)))
        # and the queries on these kinds (the capsule and hull tests: compiled.queries.settle_rows)
        pts = rng.uniform(0, 5, (20, dim))
        w.query_points(pts)
        w.query_point(tuple(pts[0].tolist()))
        w.query_shapes(shapes[0], pts)
        w.query_shapes(shapes[1], pts)
        # cylinders, cones and rounded shapes (compiled.query_round): queries and rays, no step
        from collideworld import Cone, Cylinder
        if dim == 2:
            kinds = [Box((0.5, 0.3), radius=0.1), Polygon(((0, 0), (1, 0), (0.5, 0.8)), radius=0.1)]
        else:
            kinds = [Cylinder(0.4, 0.3), Cone(0.4, 0.3), Box((0.5, 0.3, 0.2), radius=0.1),
                     ConvexHull([tuple(p) for p in rng.normal(size=(12, 3))], radius=0.1)]
        r = World(dim=dim, backend="compiled")
        for i in range(60):
            r.add(kinds[i % len(kinds)], position=tuple(rng.uniform(0, 5, dim)))
        r.query_points(pts)
        r.query_point(tuple(pts[0].tolist()))
        r.query_shapes(shapes[0], pts)
        r.query_shapes(shapes[1], pts)
        dirs = rng.normal(size=(20, dim))
        r.raycast_many(pts, dirs / np.linalg.norm(dirs, axis=1)[:, None], 5.0)
        r.raycast(tuple(pts[0].tolist()), tuple((dirs[0] / np.linalg.norm(dirs[0])).tolist()), 5.0)
    after = signatures()
    grown = {k: (before.get(k), v) for k, v in after.items() if v != before.get(k)}
    assert not grown, grown
    print("ok")
""")


def test_no_compilation_with_every_shape_after_warm_up_every_shape() -> None:
    done = subprocess.run([sys.executable, "-c", NO_COMPILE_AFTER_WARM_UP_EVERY_SHAPE], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"


def test_without_numba_everything_falls_back_to_numpy() -> None:
    done = subprocess.run([sys.executable, "-c", FALLBACK], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_import_does_not_import_numba() -> None:
    code = "import sys, collideworld; print('numba' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stderr
