"""Relations every ``collide()`` result must satisfy, over every same-dimension kind pair.

Kinds: 2D circle, box, convex polygon, concave polygon, half-plane; 3D sphere,
box, plane. For each unordered pair of kinds (half-space pairs included):

* symmetry: ``collide(a, b)`` and ``collide(b, a)`` agree;
* translation and rotation invariance;
* the batched kernels give the same answer as ``collide()`` one pair at a time;
* for convex pairs, ``normal * depth`` is the minimum translation, judged by
  the independent oracle of ``tests/oracle.py`` (shapely / LP / closed forms);
* hit or miss agrees with that oracle.

Where two results may legitimately differ in their normal (a tie between
several minimal translations, e.g. identical concentric boxes), a differing
normal is accepted only if the oracle confirms it is also a minimal
translation: moving b along it by ``depth + 1e-7`` separates the pair.

Touching is decided with a tolerance relative to the coordinates
(:mod:`collideworld.geometry.tolerance`), so hit/miss is only compared where
the oracle says the pair is not within its 1e-9 of touching.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

import collideworld as cw
from collideworld.geometry.contact_ball_ball import contact_ball_ball
from collideworld.geometry.contact_ball_box import contact_ball_box
from collideworld.geometry.contact_ball_polygon import contact_ball_polygon
from collideworld.geometry.contact_box_box_2d import contact_box_box_2d
from collideworld.geometry.contact_box_box_3d import contact_box_box_3d
from collideworld.geometry.contact_box_polygon import contact_box_polygon
from collideworld.geometry.contact_halfspace_ball import contact_halfspace_ball
from collideworld.geometry.contact_halfspace_box import contact_halfspace_box
from collideworld.geometry.contact_halfspace_halfspace import contact_halfspace_halfspace
from collideworld.geometry.contact_halfspace_polygon import contact_halfspace_points
from collideworld.geometry.contact_polygon_polygon import contact_polygon_polygon
from collideworld.geometry.rotation import rotation_matrix_2d, rotation_matrix_3d
from collideworld.poses import check_quaternion

from . import oracle
from .strategies import angles, make_shape, unit_quaternions

PROPS = settings(max_examples=30, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

KINDS_2D = ["circle", "box", "convex", "concave", "halfplane"]
KINDS_3D = ["sphere", "box", "plane"]
PAIRS = ([(2, a, b) for a, b in itertools.combinations_with_replacement(KINDS_2D, 2)]
         + [(3, a, b) for a, b in itertools.combinations_with_replacement(KINDS_3D, 2)])
CONVEX_PAIRS = [p for p in PAIRS if "concave" not in p[1:]]
HALFSPACES = ("halfplane", "plane")
EPS = 1e-7  # the step beyond / short of the depth in the minimum-translation checks
# ... except for two 3D boxes: the oracle decides them with an LP (HiGHS, feasibility tolerance 1e-7),
# which cannot resolve an overlap of 1e-7 when the overlap region is a thin tilted sliver
EPS_BOX3 = 1e-5


def _ids(pairs):
    return [f"{d}d-{a}-{b}" for d, a, b in pairs]


# -- posed shapes as plain data ------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _make_shape(kind, params):
    """Shapes are immutable; a polygon costs ~1 ms to validate, and examples repeat them."""
    return make_shape(kind, params)


@dataclass(frozen=True)
class Posed:
    """A shape kind, its parameters and its pose, as plain data for collideworld and the oracle."""

    label: str  # one of KINDS_2D / KINDS_3D
    kind: str  # the kind make_shape and oracle.geometry take
    params: Any
    position: Any = None  # ndarray (D,), None for a half-space
    rotation: Any = None  # angle (2D) or quaternion [w, x, y, z] (3D)

    @property
    def infinite(self) -> bool:
        return self.kind in HALFSPACES

    @functools.cached_property
    def _shape(self):
        return _make_shape(self.kind, tuple(self.params) if self.kind == "polygon" else self.params)

    def shape(self):
        return self._shape

    def pose(self):
        return None if self.infinite else (tuple(self.position), self.rotation)

    @functools.cached_property
    def _geom(self):
        return oracle.geometry(self.kind, self.params, self.position, self.rotation)

    def geom(self):
        return self._geom

    def unit_plane(self):
        n = np.asarray(self.params[0], float)
        length = np.linalg.norm(n)
        return n / length, float(self.params[1]) / length

    def size(self) -> float:
        """Largest coordinate or size involved: the scale of the rounding in this shape's results."""
        if self.infinite:
            return abs(self.unit_plane()[1])
        extent = float(np.max(np.abs(np.asarray(self.params, float))))
        return float(np.max(np.abs(self.position))) + extent * math.sqrt(3)


def collide(a: Posed, b: Posed):
    return cw.collide(a.shape(), a.pose(), b.shape(), b.pose())


def scale_of(*items: Posed) -> float:
    return max(1.0, *(i.size() for i in items))


# strategies: positions on a 1/16 grid, so adding an integer shift up to 1e4 is exact
grid = st.integers(-40, 40).map(lambda i: i / 16)
sizes = st.floats(0.3, 2.0)


# Polygon details (angle gaps, radii) come from a drawn seed: far fewer draws than one float each,
# and a failing example still prints its vertices.
seeds = st.integers(0, 2**16)


@st.composite
def convex_vertices(draw):
    """Points on an axis-aligned ellipse around the origin, in order: always convex, either winding."""
    k = draw(st.integers(3, 7))
    gaps = np.random.default_rng(draw(seeds)).uniform(0.3, 1.0, k)
    theta = draw(angles) + np.concatenate([[0.0], np.cumsum(gaps[:-1])]) / gaps.sum() * 2 * np.pi
    ax, ay = draw(sizes), draw(sizes)
    pts = [(float(ax * math.cos(t)), float(ay * math.sin(t))) for t in theta]
    return pts[::-1] if draw(st.booleans()) else pts


@st.composite
def concave_vertices(draw):
    """Star-shaped polygons about the origin with a dent: concave (nearly always), either winding."""
    k = draw(st.integers(4, 8))
    rng = np.random.default_rng(draw(seeds))
    theta = (np.arange(k) + rng.uniform(-0.25, 0.25, k)) * (2 * np.pi / k)
    s = draw(sizes)
    radii = rng.uniform(0.6, 1.0, k) * s
    radii[rng.integers(k)] = 0.15 * s
    pts = [(float(r * math.cos(t)), float(r * math.sin(t))) for r, t in zip(radii, theta, strict=True)]
    if draw(st.booleans()):
        pts.reverse()
    return pts


@st.composite
def plane_params(draw, dim):
    n = [draw(st.floats(-1.0, 1.0)) for _ in range(dim)]
    if np.linalg.norm(n) < 0.2:  # no filter (slow): a too short normal becomes the last axis
        n = [0.0] * (dim - 1) + [1.0]
    return tuple(n), draw(grid)


@st.composite
def posed(draw, dim, label):
    if label in HALFSPACES:
        return Posed(label, label, draw(plane_params(dim)))
    position = np.array([draw(grid) for _ in range(dim)])
    rotation = draw(angles) if dim == 2 else draw(unit_quaternions())
    if label in ("circle", "sphere"):
        kind, params = label, draw(sizes)
    elif label == "box":
        kind, params = "box", tuple(draw(sizes) for _ in range(dim))
    elif label == "convex":
        kind, params = "polygon", draw(convex_vertices())
    else:
        kind, params = "polygon", draw(concave_vertices())
    item = Posed(label, kind, params, position, rotation)
    assume(label != "concave" or not item.shape().is_convex)
    return item


def draw_pair(data, dim, ka, kb):
    return data.draw(posed(dim, ka), label="a"), data.draw(posed(dim, kb), label="b")


# -- rigid motions of posed shapes, computed without collideworld --------------------------


def _moved(item: Posed, **changes) -> Posed:
    """``item`` with a new pose, sharing its (immutable, costly to validate) shape."""
    new = replace(item, **changes)
    if not item.infinite:
        new.__dict__["_shape"] = item.shape()
    return new


def shifted(item: Posed, shift) -> Posed:
    shift = np.asarray(shift, float)
    if item.infinite:
        n, d = item.unit_plane()
        return replace(item, params=(tuple(n), d + float(n @ shift)))
    return _moved(item, position=item.position + shift)


def _rot2(phi):
    c, s = math.cos(phi), math.sin(phi)
    return np.array([[c, -s], [s, c]])


def _rot3(q):
    w, x, y, z = q
    return Rotation.from_quat([x, y, z, w]).as_matrix()


def _qmul(p, q):
    """Hamilton product p q of quaternions [w, x, y, z]: rotate by q, then by p."""
    pw, pv = p[0], np.asarray(p[1:])
    qw, qv = q[0], np.asarray(q[1:])
    out = np.r_[pw * qw - pv @ qv, pw * qv + qw * pv + np.cross(pv, qv)]
    return out / np.linalg.norm(out)


def rotated(item: Posed, rot) -> Posed:
    """``item`` rotated about the world origin by angle ``rot`` (2D) or quaternion ``rot`` (3D)."""
    R = _rot2(rot) if np.ndim(rot) == 0 else _rot3(rot)
    if item.infinite:
        n, d = item.unit_plane()
        return replace(item, params=(tuple(R @ n), d))
    new_rot = item.rotation + rot if np.ndim(rot) == 0 else _qmul(rot, item.rotation)
    return _moved(item, position=R @ item.position, rotation=new_rot)


# -- checks ---------------------------------------------------------------------------------


def oracle_says(a: Posed, b: Posed, shift_b=None):
    return oracle.pair_touching(a.geom(), b.geom(), shift_b=shift_b)


def separates(a: Posed, b: Posed, normal, distance) -> bool:
    """Per the oracle: b moved by ``normal * distance`` no longer touches a (or is within 1e-9 of it)."""
    touching, ambiguous = oracle_says(a, b, np.asarray(normal) * distance)
    return not touching or ambiguous


def still_touches(a: Posed, b: Posed, normal, distance) -> bool:
    touching, ambiguous = oracle_says(a, b, np.asarray(normal) * distance)
    return touching or ambiguous


def has_finite_mtv(a: Posed, b: Posed) -> bool:
    """False for two half-spaces that no translation separates (not facing each other)."""
    if a.infinite and b.infinite:
        return bool(a.unit_plane()[0] @ b.unit_plane()[0] <= -1 + 1e-12)
    return True


def assert_same_depth(got, want, tol):
    if math.isinf(want) or math.isinf(got):
        assert got == want
    else:
        assert got == pytest.approx(want, rel=0, abs=tol)


def assert_normal_or_tie(a: Posed, b: Posed, got, want_normal, tol):
    """``got.normal`` equals ``want_normal``, or both are minimal translations of equal depth (a tie).

    ``a``/``b`` are the pair ``got`` was computed for; its depth must be
    finite. A differing normal must still separate the pair per the oracle.
    """
    if np.allclose(got.normal, want_normal, rtol=0, atol=tol):
        return
    assert separates(a, b, got.normal, got.depth + EPS), (
        f"normal {got.normal} differs from {want_normal} and is not a minimal translation")


# -- 1. symmetry ---------------------------------------------------------------------------


@pytest.mark.parametrize(("dim", "ka", "kb"), PAIRS, ids=_ids(PAIRS))
@PROPS
@given(data=st.data())
def test_collide_is_symmetric(dim, ka, kb, data):
    a, b = draw_pair(data, dim, ka, kb)
    ab, ba = collide(a, b), collide(b, a)
    assert (ab is None) == (ba is None)
    if ab is None or "concave" in (ka, kb):
        return  # concave: normal and depth are the deepest convex piece's; only hit must agree
    assert_same_depth(ba.depth, ab.depth, 1e-9 * max(1.0, abs(ab.depth)))
    if not has_finite_mtv(a, b):
        return  # two half-spaces that cross: each reports its own normal, no MTV exists
    if not np.allclose(ba.normal, -ab.normal, rtol=0, atol=1e-9):
        # not opposite: only allowed when the MTV is not unique, so both must be MTVs
        assert separates(a, b, ab.normal, ab.depth + EPS)
        assert separates(b, a, ba.normal, ba.depth + EPS)


# -- 2. translation invariance ---------------------------------------------------------------


@pytest.mark.parametrize(("dim", "ka", "kb"), PAIRS, ids=_ids(PAIRS))
@PROPS
@given(data=st.data())
def test_collide_is_translation_invariant(dim, ka, kb, data):
    a, b = draw_pair(data, dim, ka, kb)
    shift = np.array(data.draw(st.lists(st.integers(-10_000, 10_000), min_size=dim, max_size=dim), label="shift"),
                     dtype=float)
    a2, b2 = shifted(a, shift), shifted(b, shift)
    ref, got = collide(a, b), collide(a2, b2)
    tol = 1e-9 * max(scale_of(a, b), float(np.max(np.abs(shift))))
    if a.infinite and b.infinite and has_finite_mtv(a, b):
        # Normals within 1e-12 (in cosine) of opposite count as opposite, but unless they are exactly
        # opposite the half-spaces cross far away and the slab thickness offset_a + offset_b varies along
        # the slab: the shift adds (n_a + n_b) . shift to it, which is 0 only for exactly opposite normals.
        (na, da), (nb, db) = a.unit_plane(), b.unit_plane()
        slab = da + db + float((na + nb) @ shift)
        if abs(slab) > tol:
            assert (got is not None) == (slab > 0)
            if got is not None:
                assert got.depth == pytest.approx(slab, rel=0, abs=tol)
        return
    if oracle_says(a, b)[1]:
        return  # within 1e-9 of touching: the relative touching tolerance grows with the shift
    assert (ref is None) == (got is None)
    if ref is None:
        return
    assert_same_depth(got.depth, ref.depth, tol)
    if "concave" in (ka, kb) or not has_finite_mtv(a, b):
        return
    assert_normal_or_tie(a2, b2, got, ref.normal, tol)


# -- 3. rotation invariance ------------------------------------------------------------------


@pytest.mark.parametrize(("dim", "ka", "kb"), PAIRS, ids=_ids(PAIRS))
@PROPS
@given(data=st.data())
def test_collide_is_rotation_invariant(dim, ka, kb, data):
    a, b = draw_pair(data, dim, ka, kb)
    rot = data.draw(angles if dim == 2 else unit_quaternions(), label="rotation")
    R = _rot2(rot) if dim == 2 else _rot3(rot)
    a2, b2 = rotated(a, rot), rotated(b, rot)
    ref, got = collide(a, b), collide(a2, b2)
    if oracle_says(a, b)[1]:
        return  # within 1e-9 of touching: rounding in the rotation may decide either way
    assert (ref is None) == (got is None)
    if ref is None:
        return
    tol = 1e-9 * scale_of(a, b)
    assert_same_depth(got.depth, ref.depth, tol)
    if "concave" in (ka, kb) or not has_finite_mtv(a, b):
        return
    assert_normal_or_tie(a2, b2, got, R @ ref.normal, tol)


# -- 4. scalar collide() == batched kernels ----------------------------------------------------


def _ball_rows(items):
    return np.array([i.position for i in items]), np.array([float(i.params) for i in items])


def _rotations(items):
    if len(items[0].position) == 2:
        return rotation_matrix_2d(np.array([i.rotation for i in items]))
    # The quaternion as collide() takes it (checked and normalised), then the store's matrix: the axis
    # between two nearly parallel box edges turns by ~1e-16 / sin(angle) for an ulp of input, so rows
    # posed from the raw quaternion (one normalisation instead of two) can pick another of two SAT
    # axes whose depths differ by ~1e-9 (found by hypothesis: two coincident cubes)
    return rotation_matrix_3d(np.array([check_quaternion(i.rotation) for i in items]))


def _box_rows(items):
    return np.array([i.position for i in items]), _rotations(items), np.array([i.params for i in items])


def _plane_rows(items):
    shapes = [i.shape() for i in items]
    return np.array([s.normal for s in shapes]), np.array([s.offset for s in shapes])


def _posed_vertices(items, local_of):
    """World vertices (N, K, 2), padded by repeating the last one; the store's arithmetic."""
    rows = []
    for item, rot in zip(items, _rotations(items), strict=True):
        local = np.asarray(local_of(item.shape()), float)
        lx, ly = local[:, 0], local[:, 1]
        rows.append(np.c_[rot[0, 0] * lx + rot[0, 1] * ly + item.position[0],
                          rot[1, 0] * lx + rot[1, 1] * ly + item.position[1]])
    k = max(len(r) for r in rows)
    return (np.stack([np.concatenate([r, np.repeat(r[-1:], k - len(r), axis=0)]) for r in rows]),)


def _convex_rows(items):
    return _posed_vertices(items, lambda s: s.parts[0])


def _outline_rows(items):
    return _posed_vertices(items, lambda s: s.vertices)


# (dim, kind a, kind b) -> (kernel, rows of a, rows of b); a comes first in the canonical order
KERNELS = {
    (2, "halfplane", "halfplane"): (contact_halfspace_halfspace, _plane_rows, _plane_rows),
    (2, "halfplane", "circle"): (contact_halfspace_ball, _plane_rows, _ball_rows),
    (2, "halfplane", "box"): (contact_halfspace_box, _plane_rows, _box_rows),
    (2, "halfplane", "convex"): (contact_halfspace_points, _plane_rows, _outline_rows),
    (2, "halfplane", "concave"): (contact_halfspace_points, _plane_rows, _outline_rows),
    (2, "circle", "circle"): (contact_ball_ball, _ball_rows, _ball_rows),
    (2, "circle", "box"): (contact_ball_box, _ball_rows, _box_rows),
    (2, "circle", "convex"): (contact_ball_polygon, _ball_rows, _convex_rows),
    (2, "box", "box"): (contact_box_box_2d, _box_rows, _box_rows),
    (2, "box", "convex"): (contact_box_polygon, _box_rows, _convex_rows),
    (2, "convex", "convex"): (contact_polygon_polygon, _convex_rows, _convex_rows),
    (3, "plane", "plane"): (contact_halfspace_halfspace, _plane_rows, _plane_rows),
    (3, "plane", "sphere"): (contact_halfspace_ball, _plane_rows, _ball_rows),
    (3, "plane", "box"): (contact_halfspace_box, _plane_rows, _box_rows),
    (3, "sphere", "sphere"): (contact_ball_ball, _ball_rows, _ball_rows),
    (3, "sphere", "box"): (contact_ball_box, _ball_rows, _box_rows),
    (3, "box", "box"): (contact_box_box_3d, _box_rows, _box_rows),
}


@pytest.mark.parametrize("key", list(KERNELS), ids=[f"{d}d-{a}-{b}" for d, a, b in KERNELS])
@PROPS
@given(data=st.data())
def test_batched_kernel_equals_collide_pair_by_pair(key, data):
    dim, ka, kb = key
    kernel, rows_a, rows_b = KERNELS[key]
    pairs = data.draw(st.lists(st.tuples(posed(dim, ka), posed(dim, kb)), min_size=1, max_size=4), label="pairs")
    a_items, b_items = [p[0] for p in pairs], [p[1] for p in pairs]
    batch = kernel(*rows_a(a_items), *rows_b(b_items))
    assert batch.hit.shape == (len(pairs),)
    for k, (a, b) in enumerate(pairs):
        one = collide(a, b)
        assert bool(batch.hit[k]) == (one is not None), f"pair {k}"
        if one is not None:
            assert np.allclose(batch.normal[k], one.normal, rtol=0, atol=1e-12), f"pair {k}"
            assert_same_depth(float(batch.depth[k]), one.depth, 1e-12)


# -- 5. normal * depth is the minimum translation (convex pairs) --------------------------------


@pytest.mark.parametrize(("dim", "ka", "kb"), CONVEX_PAIRS, ids=_ids(CONVEX_PAIRS))
@PROPS
@given(data=st.data())
def test_normal_times_depth_is_the_minimum_translation(dim, ka, kb, data):
    a, b = draw_pair(data, dim, ka, kb)
    if data.draw(st.booleans(), label="swap"):
        a, b = b, a
    res = collide(a, b)
    if res is None:
        return
    assert np.linalg.norm(res.normal) == pytest.approx(1.0, abs=1e-12)
    assert res.depth >= 0
    if a.infinite:
        assert np.allclose(res.normal, a.unit_plane()[0], rtol=0, atol=1e-12)
    elif b.infinite:
        assert np.allclose(res.normal, -b.unit_plane()[0], rtol=0, atol=1e-12)
    if not has_finite_mtv(a, b):
        assert res.depth == math.inf
        return
    eps = EPS_BOX3 if a.kind == b.kind == "box" and dim == 3 else EPS
    assert separates(a, b, res.normal, res.depth + eps), "moving b by depth + eps along the normal still touches"
    if res.depth > 10 * eps:
        assert still_touches(a, b, res.normal, res.depth - eps), "moving b by depth - eps already separates"


# -- 6. hit or miss agrees with the oracle ------------------------------------------------------


@pytest.mark.parametrize(("dim", "ka", "kb"), PAIRS, ids=_ids(PAIRS))
@PROPS
@given(data=st.data())
def test_hit_agrees_with_oracle(dim, ka, kb, data):
    a, b = draw_pair(data, dim, ka, kb)
    if data.draw(st.booleans(), label="swap"):
        a, b = b, a
    touching, ambiguous = oracle_says(a, b)
    if ambiguous:
        return
    assert (collide(a, b) is not None) == touching
