"""Tests of contact_box_box_3d against independent methods.

The oracles never call collideworld: whether two boxes meet is a linear
feasibility problem (a point x with |R^T (x - c)| <= h for both boxes,
12 inequalities) solved by scipy's HiGHS, and a proposed normal and depth are
judged by how far b can slide along the normal and still meet a (another
LP), or by projecting the 8 corners of each box.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import sparse
from scipy.optimize import linprog
from scipy.spatial.transform import Rotation

from collideworld.geometry.contact_box_box_3d import contact_box_box_3d
from collideworld.geometry.rotation import rotation_matrix_3d

from .strategies import box_pairs_3d, rotations_3d

# Pairs within this LP margin of touching are ambiguous for the oracle and
# are left to the hand-made exact cases.
AMBIGUOUS = 1e-9
# Tighter than HiGHS's defaults (1e-7), so that LP optima are good to ~1e-10.
_LP_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
_SIGNS = np.array(list(itertools.product([-1.0, 1.0], repeat=3)))


# --- independent oracles ---------------------------------------------------


def _box_rows(center, rotation, half):
    """Rows (A, b) of ``A x <= b`` describing the closed box."""
    rt = rotation.T
    rc = rt @ center
    return np.vstack([rt, -rt]), np.concatenate([half + rc, half - rc])


def _maximise_last(blocks):
    """Maximise the 4th unknown of each independent 12-row block, in one LP.

    The blocks share no unknown, so the optimum of their sum is each block's
    own optimum; one HiGHS call instead of hundreds keeps the tests fast.
    Returns the per-block optima, or None for a block that is infeasible.
    """
    if not blocks:
        return []
    a_ub = sparse.block_diag([a for a, _ in blocks], format="csr")
    b_ub = np.concatenate([b for _, b in blocks])
    res = linprog(np.tile([0.0, 0.0, 0.0, -1.0], len(blocks)), A_ub=a_ub, b_ub=b_ub,
                  bounds=[(None, None)] * 4 * len(blocks), method="highs", options=_LP_OPTIONS)
    if res.status == 2 and len(blocks) > 1:
        return [v for blk in blocks for v in _maximise_last([blk])]
    if res.status == 2:
        return [None]
    assert res.status == 0, res.message
    return list(res.x[3::4])


def lp_margins(pairs):
    """For each pair of boxes, the largest m such that both, each face pushed
    in by m, still share a point.

    Positive: the interiors meet; negative: apart (the gap is at least 2|m|).
    Each pair is first moved so that a's centre is at the origin, which keeps
    the LP well scaled.
    """
    blocks = []
    for box_a, box_b in pairs:
        shift = box_a[0]
        a_a, b_a = _box_rows(box_a[0] - shift, box_a[1], box_a[2])
        a_b, b_b = _box_rows(box_b[0] - shift, box_b[1], box_b[2])
        blocks.append((np.hstack([np.vstack([a_a, a_b]), np.ones((12, 1))]),
                       np.concatenate([b_a, b_b])))
    return np.array(_maximise_last(blocks), dtype=float)


def lp_reaches(pairs, directions):
    """For each pair, the largest s such that b translated by ``s * u`` still meets a.

    b moved by more than this is apart; by any amount in [0, s] (when the
    pair meets) it still meets a. None if no translation along the line
    makes them meet.
    """
    blocks = []
    for (box_a, box_b), u in zip(pairs, directions, strict=True):
        shift = box_a[0]
        a_a, b_a = _box_rows(box_a[0] - shift, box_a[1], box_a[2])
        rt = box_b[1].T
        rc = rt @ (box_b[0] - shift)
        ru = rt @ np.asarray(u, dtype=float)
        half = box_b[2]
        # R_b^T (x - c_b - s u) within +-h_b, with unknowns (x, s).
        a_b = np.vstack([np.hstack([rt, -ru[:, None]]), np.hstack([-rt, ru[:, None]])])
        b_b = np.concatenate([half + rc, half - rc])
        blocks.append((np.vstack([np.hstack([a_a, np.zeros((6, 1))]), a_b]),
                       np.concatenate([b_a, b_b])))
    return _maximise_last(blocks)


def lp_reach(box_a, box_b, direction):
    """:func:`lp_reaches` for one pair."""
    return lp_reaches([(box_a, box_b)], [direction])[0]


def corners(box):
    """The 8 corners (8, 3) of a box ``(center, rotation, half)``."""
    center, rotation, half = box
    return center + (_SIGNS * half) @ rotation.T


def overlap_along(box_a, box_b, u):
    """How far the projections of a and b on u overlap, with b on the +u side."""
    return np.max(corners(box_a) @ u) - np.min(corners(box_b) @ u)


def contact(box_a, box_b):
    """The kernel on one pair, as plain Python values."""
    c = contact_box_box_3d(*box_a, *box_b)
    return bool(c.hit), np.asarray(c.normal), float(c.depth)


def rot_axis(axis, angle):
    """Rotation by ``angle`` about a unit ``axis``, via scipy."""
    return Rotation.from_rotvec(np.asarray(axis, dtype=float) * angle).as_matrix()


def box(center, rotation=None, half=(1.0, 1.0, 1.0)):
    rotation = np.eye(3) if rotation is None else np.asarray(rotation, dtype=float)
    return np.asarray(center, dtype=float), rotation, np.asarray(half, dtype=float)


def signed_permutations():
    """The 24 rotations that map coordinate axes to coordinate axes, exactly."""
    out = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product([-1.0, 1.0], repeat=3):
            p = np.zeros((3, 3))
            p[range(3), perm] = signs
            if np.linalg.det(p) > 0:
                out.append(p)
    return np.array(out)


# --- random pairs against the LP oracle -----------------------------------


def _random_pairs(seed, n):
    """n pairs: a quarter with parallel edges (b = a turned by a signed
    permutation), an eighth with identical rotations, the rest general."""
    rng = np.random.default_rng(seed)
    ca = rng.uniform(-5.0, 5.0, (n, 3))
    cb = ca + rng.uniform(-2.5, 2.5, (n, 3))
    ra = Rotation.random(n, random_state=rng).as_matrix()
    rb = Rotation.random(n, random_state=rng).as_matrix()
    perms = signed_permutations()
    kind = rng.integers(0, 8, n)
    parallel = kind < 2
    rb[parallel] = ra[parallel] @ perms[rng.integers(0, 24, parallel.sum())]
    rb[kind == 2] = ra[kind == 2]
    ha = rng.uniform(0.05, 1.5, (n, 3))
    hb = rng.uniform(0.05, 1.5, (n, 3))
    return ca, ra, ha, cb, rb, hb


def _pairs(arrays, idx):
    ca, ra, ha, cb, rb, hb = arrays
    return [((ca[i], ra[i], ha[i]), (cb[i], rb[i], hb[i])) for i in idx]


@pytest.fixture(scope="module")
def random_batch():
    arrays = _random_pairs(seed=20240531, n=3000)
    margins = lp_margins(_pairs(arrays, range(len(arrays[0]))))
    return arrays, margins, contact_box_box_3d(*arrays)


def test_hit_matches_lp_oracle(random_batch):
    _, margins, result = random_batch
    clear = np.abs(margins) > AMBIGUOUS
    expected = margins > 0
    assert 0.2 < expected.mean() < 0.8  # both outcomes well represented
    wrong = np.flatnonzero(clear & (result.hit != expected))
    assert wrong.size == 0, [
        (i, margins[i], bool(result.hit[i]), float(result.depth[i])) for i in wrong[:5]
    ]


def test_normal_is_unit_and_depth_nonnegative(random_batch):
    _, _, result = random_batch
    np.testing.assert_allclose(np.linalg.norm(result.normal, axis=1), 1.0, atol=1e-12)
    assert np.all(result.depth[result.hit] >= 0.0)
    assert np.all(result.depth[~result.hit] < 0.0)


def test_moving_b_by_depth_along_normal_just_separates(random_batch):
    """The MTV check, with one LP per pair: b can slide exactly ``depth``
    along the normal before separating, so moving it by depth + 1e-7 separates
    and by depth - 1e-7 does not."""
    arrays, margins, result = random_batch
    idx = np.flatnonzero((margins > AMBIGUOUS) & (result.depth > 1e-6))[:800]
    assert idx.size > 400
    reach = np.array(lp_reaches(_pairs(arrays, idx), result.normal[idx]), dtype=float)
    far = np.flatnonzero(np.abs(reach - result.depth[idx]) >= 1e-7)
    assert far.size == 0, [(idx[k], reach[k], result.depth[idx[k]]) for k in far[:5]]


def test_depth_is_the_minimum_translation(random_batch):
    """No direction separates b from a with a shorter move than depth."""
    arrays, margins, result = random_batch
    rng = np.random.default_rng(7)
    idx = np.flatnonzero(margins > AMBIGUOUS)
    # Directions near the reported normal are the likeliest to beat it.
    dirs = np.concatenate([rng.normal(size=(idx.size, 3)),
                           result.normal[idx] + 0.3 * rng.normal(size=(idx.size, 3))])
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    both = np.concatenate([idx, idx])
    reach = np.array(lp_reaches(_pairs(arrays, both), dirs), dtype=float)
    short = np.flatnonzero(reach < result.depth[both] - 1e-7)
    assert short.size == 0, [(both[k], reach[k], result.depth[both[k]]) for k in short[:5]]


def test_near_touching_in_general_position_matches_lp_reach():
    """Put b's centre on a's, slide it along a random direction to where the
    LP says it just touches a (vertex-face, edge-edge or face contact in
    general position), then 1e-6 further (apart) or 1e-6 less (hit, with
    depth at most 1e-6)."""
    ca, ra, ha, _, rb, hb = _random_pairs(seed=99, n=400)
    rng = np.random.default_rng(3)
    dirs = rng.normal(size=(len(ca), 3))
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    reach = np.array(lp_reaches(_pairs((ca, ra, ha, ca, rb, hb), range(len(ca))), dirs))
    for delta, expect in ((1e-6, False), (-1e-6, True)):
        moved = ca + (reach + delta)[:, None] * dirs
        c = contact_box_box_3d(ca, ra, ha, moved, rb, hb)
        wrong = np.flatnonzero(c.hit != expect)
        assert wrong.size == 0, (delta, wrong[:5], c.depth[wrong[:5]])
        if expect:
            assert np.all(c.depth <= 1e-6 + 1e-9)


# --- hand-made exact cases -------------------------------------------------


def test_face_face_touching():
    a = box([0, 0, 0])
    hit, normal, depth = contact(a, box([2.0, 0.3, -0.5]))
    assert hit and depth == 0.0
    np.testing.assert_array_equal(normal, [1.0, 0.0, 0.0])
    assert not contact(a, box([2.0 + 1e-9, 0.3, -0.5]))[0]
    hit, normal, depth = contact(a, box([0.25, -1.5, 0.0]))
    assert hit and depth == 0.5
    np.testing.assert_array_equal(normal, [0.0, -1.0, 0.0])


def test_face_face_touching_after_quaternion_quarter_turn():
    # A quarter turn built from a quaternion leaves ~1e-16 where R has zeros.
    s = math.sqrt(0.5)
    quarter_z = rotation_matrix_3d([s, 0.0, 0.0, s])
    assert quarter_z[0, 0] != 0.0
    a = box([0, 0, 0])
    b_half = (1.0, 2.0, 3.0)  # turned: extends 2 along x
    hit, normal, depth = contact(a, box([3.0, 0.5, 0.0], quarter_z, b_half))
    assert hit and depth < 1e-12
    np.testing.assert_allclose(normal, [1.0, 0.0, 0.0], atol=1e-15)
    assert not contact(a, box([3.0 + 1e-9, 0.5, 0.0], quarter_z, b_half))[0]


def test_edge_edge_touching():
    # a turned 45 degrees about z has an edge along z at x = sqrt(2); b turned
    # 45 degrees about y has an edge along y at x = -sqrt(2) from its centre.
    a = box([0, 0, 0], rot_axis([0, 0, 1], math.pi / 4))
    by = rot_axis([0, 1, 0], math.pi / 4)
    gap0 = 2 * math.sqrt(2)
    hit, normal, depth = contact(a, box([gap0, 0.1, -0.2], by))
    assert hit and depth < 1e-12
    np.testing.assert_allclose(normal, [1.0, 0.0, 0.0], atol=1e-12)
    assert not contact(a, box([gap0 + 1e-9, 0.1, -0.2], by))[0]
    hit, normal, depth = contact(a, box([gap0 - 1e-3, 0.1, -0.2], by))
    assert hit and depth == pytest.approx(1e-3, abs=1e-12)
    np.testing.assert_allclose(normal, [1.0, 0.0, 0.0], atol=1e-12)


def test_corner_corner_touching():
    # Rows of a rotation whose first row is the diagonal (1, 1, 1)/sqrt(3):
    # it turns a cube so that a corner points along +x and one along -x.
    diag = np.array([[1, 1, 1] / np.sqrt(3), [1, -1, 0] / np.sqrt(2), [1, 1, -2] / np.sqrt(6)])
    # b additionally spun about x, which keeps its corners on the x axis but
    # makes no edge of b parallel to an edge of a.
    spun = rot_axis([1, 0, 0], 0.3) @ diag
    a = box([0, 0, 0], diag)
    gap0 = 2 * math.sqrt(3)
    hit, _, depth = contact(a, box([gap0, 0, 0], spun))
    assert hit and depth < 1e-12
    assert not contact(a, box([gap0 + 1e-9, 0, 0], spun))[0]
    hit, _, depth = contact(a, box([gap0 - 1e-6, 0, 0], spun))
    assert hit and 0.0 < depth <= 1e-6


@pytest.mark.parametrize("seed", range(4))
def test_parallel_edges_same_rotation(seed):
    r = Rotation.random(random_state=seed).as_matrix()
    a = box([0.5, -1.0, 2.0], r)

    def at(local):
        return box(a[0] + r @ np.asarray(local), r)

    for local in ([2, 0.5, 0.25], [2, 2, 0.5], [2, 2, 2], [-2, 1.5, -2]):
        hit, _, depth = contact(a, at(local))
        assert hit and depth < 1e-12, local
    for local in ([2 + 1e-9, 0.5, 0.25], [2 + 1e-9, 2 + 1e-9, 0.5], [2, 2 + 1e-9, 0.0],
                  [2, 2, 2 + 1e-9], [-2, 1.5, -2 - 1e-9]):
        assert not contact(a, at(local))[0], local


def test_parallel_edges_exact_quarter_turns():
    """All 24 axis-permuting rotations, on top of a generic rotation of both."""
    base = Rotation.random(random_state=11).as_matrix()
    half_a, half_b = np.array([1.0, 0.5, 0.25]), np.array([0.75, 1.25, 0.5])
    for p in signed_permutations():
        rb = base @ p
        ext_b = np.abs(p) @ half_b  # b's half extents along a's axes
        for k in range(3):
            local = np.array([0.1, -0.05, 0.02])
            local[k] = half_a[k] + ext_b[k]
            a = box([0, 0, 0], base, half_a)
            hit, normal, depth = contact(a, box(base @ local, rb, half_b))
            assert hit and depth < 1e-12
            np.testing.assert_allclose(normal, base[:, k], atol=1e-12)
            local[k] += 1e-9
            assert not contact(a, box(base @ local, rb, half_b))[0]


def test_parallel_edges_rotation_about_single_axis():
    # Rotating b about z keeps its z edges parallel to a's.
    a = box([0, 0, 0])
    for theta in (0.3, 1.0, math.pi / 4, 2.5):
        rz = rot_axis([0, 0, 1], theta)
        half_b = np.array([1.0, 0.5, 2.0])
        ext_x = abs(math.cos(theta)) * 1.0 + abs(math.sin(theta)) * 0.5
        hit, normal, depth = contact(a, box([1 + ext_x, 0.2, 0.7], rz, half_b))
        assert hit and depth < 1e-12
        np.testing.assert_allclose(normal, [1.0, 0.0, 0.0], atol=1e-12)
        assert not contact(a, box([1 + ext_x + 1e-9, 0.2, 0.7], rz, half_b))[0]
    # Both turned about z: a vertical edge of b on a face of a.
    r45 = rot_axis([0, 0, 1], math.pi / 4)
    hit, _, depth = contact(a, box([1 + math.sqrt(2), 0.0, 0.0], r45))
    assert hit and depth < 1e-12
    assert not contact(a, box([1 + math.sqrt(2) + 1e-9, 0.0, 0.0], r45))[0]


def test_box_inside_another():
    big = box([0, 0, 0], half=(3, 3, 3))
    hit, normal, depth = contact(big, box([0.2, 0, 0], half=(0.5, 0.5, 0.5)))
    # Leaving through +x takes 3 - 0.2 + 0.5, the shortest way out.
    assert hit and depth == pytest.approx(3.3, abs=1e-12)
    np.testing.assert_array_equal(normal, [1.0, 0.0, 0.0])
    # A turned box inside: the LP says how far it slides along the normal.
    small = box([0.2, -0.1, 0.3], Rotation.random(random_state=5).as_matrix(), (0.5, 1.0, 0.25))
    hit, normal, depth = contact(big, small)
    assert hit
    assert lp_reach(big, small, normal) == pytest.approx(depth, abs=1e-7)


def test_identical_boxes():
    r = Rotation.random(random_state=2).as_matrix()
    a = box([1.0, 2.0, 3.0], r, (1.0, 2.0, 3.0))
    hit, normal, depth = contact(a, a)
    # The cheapest way apart is across the thinnest dimension: 2 * 1.
    assert hit and depth == pytest.approx(2.0, abs=1e-12)
    assert abs(normal @ r[:, 0]) == pytest.approx(1.0, abs=1e-12)


def test_thin_boxes():
    plate = (1.0, 1.0, 1e-3)
    a = box([0, 0, 0], half=plate)
    hit, normal, depth = contact(a, box([0.3, 0.3, 2e-3], half=plate))
    assert hit and depth < 1e-15
    np.testing.assert_array_equal(normal, [0.0, 0.0, 1.0])
    assert not contact(a, box([0.3, 0.3, 2e-3 + 1e-9], half=plate))[0]
    hit, normal, depth = contact(a, box([0.3, 0.3, 1.5e-3], half=plate))
    assert hit and depth == pytest.approx(5e-4, abs=1e-15)
    # Crossed thin rods, stacked along z.
    rod_x, rod_y = box([0, 0, 0], half=(1, 1e-3, 1e-3)), (1e-3, 1, 1e-3)
    assert contact(rod_x, box([0.5, -0.3, 2e-3], half=rod_y))[0]
    assert not contact(rod_x, box([0.5, -0.3, 2e-3 + 1e-9], half=rod_y))[0]
    # Thin rods turned about a generic axis, touching side by side.
    r = Rotation.random(random_state=8).as_matrix()
    rod = (1.0, 1e-3, 1e-3)
    a = box([0, 0, 0], r, rod)
    assert contact(a, box(r @ [0.5, 2e-3, 0.0], r, rod))[0]
    assert not contact(a, box(r @ [0.5, 2e-3 + 1e-9, 0.0], r, rod))[0]


def test_large_offsets_touching():
    far = np.array([1e6, -1e6, 1e6])
    a = box(far)
    hit, _, depth = contact(a, box(far + [2.0, 0.5, 0.0]))
    assert hit and depth == 0.0
    s = math.sqrt(0.5)
    quarter = rotation_matrix_3d([s, s, 0.0, 0.0])
    hit, _, depth = contact(a, box(far + [0.0, 2.0, 0.5], quarter))
    assert hit and depth < 1e-9
    assert not contact(a, box(far + [2.0 + 1e-3, 0.5, 0.0]))[0]
    # Gaps under touch_tolerance(1e6) = 1e-8 count as touching; ten times that do not.
    assert contact(a, box(far + [2.0 + 2e-9, 0.5, 0.0]))[0]
    assert not contact(a, box(far + [2.0 + 1e-7, 0.5, 0.0]))[0]
    # Edge-edge at 1e6 (see test_edge_edge_touching).
    a = box(far, rot_axis([0, 0, 1], math.pi / 4))
    by = rot_axis([0, 1, 0], math.pi / 4)
    assert contact(a, box(far + [2 * math.sqrt(2), 0, 0], by))[0]
    assert not contact(a, box(far + [2 * math.sqrt(2) + 1e-4, 0, 0], by))[0]


def test_near_parallel_rotations():
    eps = 1e-9
    a = box([0, 0, 0])
    # Tilted about z, b's face dips 1e-9 into a at one end.
    tilt = rot_axis([0, 0, 1], eps)
    hit, _, depth = contact(a, box([2.0, 0.0, 0.0], tilt))
    assert hit and depth <= 2 * eps
    assert not contact(a, box([2.0 + 2 * eps, 0.0, 0.0], tilt))[0]
    # Spun about the contact normal, b's face stays on the plane x = 1.
    spin = rot_axis([1, 0, 0], eps)
    hit, _, depth = contact(a, box([2.0, 0.3, 0.0], spin))
    assert hit and depth < 1e-12
    assert not contact(a, box([2.0 + eps, 0.3, 0.0], spin))[0]
    # Nearly parallel edges: a's z edge at (1, 1) against b's tilted edge.
    hit, _, depth = contact(a, box([2.0, 2.0, 0.0], spin))
    assert hit and depth <= 2 * eps
    assert not contact(a, box([2.0 + 1e-8, 2.0, 0.0], spin))[0]
    # Generic orientation, b turned 1e-9 further about a random axis.
    r = Rotation.random(random_state=4).as_matrix()
    rb = r @ rot_axis(Rotation.random(random_state=6).as_rotvec() / 3, eps)
    a = box([0, 0, 0], r)
    assert contact(a, box(r @ [2.0 - 1e-6, 0.3, 0.1], rb))[0]
    assert not contact(a, box(r @ [2.0 + 1e-6, 0.3, 0.1], rb))[0]


@pytest.mark.parametrize("gap, expect_hit", [(-1e-6, True), (1e-6, False)])
def test_nearly_parallel_edges_edge_to_edge(gap, expect_hit):
    """Edge k of b tilted by 1e-15..1e-8 rad from edge k of a, the two edges
    in contact with 1e-6 overlap (or gap) in both other directions. The tilt
    moves b by at most 2 * 1e-8, so the expected answer is never in doubt;
    but the rounded edge-pair axis e_k x f_k is then a normalised rounding
    error: gaps along it must be measured along the axis actually used (radii
    included), or ~15% of these pairs are reported apart."""
    n = 20000
    rng = np.random.default_rng(12)
    ra = Rotation.random(n, random_state=rng).as_matrix()
    rows = np.arange(n)
    k = rng.integers(0, 3, n)
    j1, j2 = (k + 1) % 3, (k + 2) % 3
    angle = 10.0 ** rng.uniform(-15, -8, n)
    rb = Rotation.from_rotvec(ra[rows, :, j1] * angle[:, None]).as_matrix() @ ra
    ha = rng.uniform(0.01, 2.0, (n, 3))
    hb = rng.uniform(0.01, 2.0, (n, 3))
    local = np.zeros((n, 3))
    local[rows, k] = rng.uniform(-1, 1, n) * (ha[rows, k] + hb[rows, k])
    for j in (j1, j2):
        local[rows, j] = ha[rows, j] + hb[rows, j] + gap
    ca = rng.uniform(-1, 1, (n, 3))
    cb = ca + np.einsum("nij,nj->ni", ra, local)
    c = contact_box_box_3d(ca, ra, ha, cb, rb, hb)
    assert np.all(c.hit == expect_hit), np.flatnonzero(c.hit != expect_hit)[:5]


def test_empty_batch():
    e3, e33 = np.zeros((0, 3)), np.zeros((0, 3, 3))
    c = contact_box_box_3d(e3, e33, e3, e3, e33, e3)
    assert c.hit.shape == (0,) and c.normal.shape == (0, 3) and c.depth.shape == (0,)


def test_one_box_broadcasts_against_many():
    centers = np.array([[2.0, 0, 0], [0, 2.5, 0], [0, 0, -1.5]])
    c = contact_box_box_3d([0, 0, 0], np.eye(3), [1, 1, 1], centers, np.eye(3), [1, 1, 1])
    np.testing.assert_array_equal(c.hit, [True, False, True])
    np.testing.assert_array_equal(c.depth[[0, 2]], [0.0, 0.5])
    np.testing.assert_array_equal(c.normal[2], [0.0, 0.0, -1.0])


# --- properties ------------------------------------------------------------

_PROPS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _assert_mtv(box_a, box_b, normal, depth, atol=1e-9):
    """``depth`` is the overlap of the projections on ``normal`` (corners)."""
    assert overlap_along(box_a, box_b, normal) == pytest.approx(depth, abs=atol)


def _assert_same_contact(first, second, box_a, box_b, atol=1e-9):
    """Two results for one pair (as seen by ``box_a``, ``box_b``) agree.

    Away from touching the hit flags must match; depths agree to ``atol``;
    the normals either agree or (on a tie between axes) both are valid.
    """
    (hit1, n1, d1), (hit2, n2, d2) = first, second
    if not (hit1 or hit2) and d1 < -atol and d2 < -atol:
        # apart: depth is minus *a* lower bound of the gap (ContactArrays), the
        # gap along whichever separating axis won, which need not be invariant
        return
    assert d1 == pytest.approx(d2, abs=atol)
    if abs(d1) > atol:
        assert hit1 == hit2
    if hit1 and hit2 and not np.allclose(n1, n2, atol=1e-9):
        _assert_mtv(box_a, box_b, n2, d1, atol)


@_PROPS
@given(box_pairs_3d())
def test_symmetry(pair):
    a, b = pair
    ab, ba = contact(a, b), contact(b, a)
    hit, normal, depth = ba
    _assert_same_contact(ab, (hit, -normal, depth), a, b)
    if ab[0]:
        _assert_mtv(a, b, ab[1], ab[2])


@_PROPS
@given(box_pairs_3d(), st.tuples(*[st.floats(-1e3, 1e3)] * 3))
def test_translation_invariance(pair, shift):
    a, b = pair
    v = np.array(shift)
    moved_a, moved_b = (a[0] + v, a[1], a[2]), (b[0] + v, b[1], b[2])
    _assert_same_contact(contact(a, b), contact(moved_a, moved_b), a, b, atol=1e-9)


@_PROPS
@given(box_pairs_3d(), rotations_3d())
def test_rotation_invariance(pair, q):
    a, b = pair
    turned_a, turned_b = (q @ a[0], q @ a[1], a[2]), (q @ b[0], q @ b[1], b[2])
    hit, normal, depth = contact(turned_a, turned_b)
    _assert_same_contact(contact(a, b), (hit, q.T @ normal, depth), a, b)


def test_apart_depth_is_minus_a_lower_bound_of_the_gap_when_turned():
    """Found by hypothesis: cubes of half side 0.3 at the origin and at (0, 1, 1)
    (b turned 180 degrees about y, so their edges are parallel), all turned by
    the rotation q below. The gap is sqrt(0.4^2 + 0.4^2) (nearest edges, by
    hand); whichever axis the kernel settles on, turned or not, must report
    no hit and minus a gap no larger than that."""
    half = np.full(3, 0.3)
    a = (np.zeros(3), np.eye(3), half)
    b = (np.array([0.0, 1.0, 1.0]), rot_axis([0, 1, 0], np.pi), half)
    q = np.array([[-1, 2, 2], [2, -1, 2], [2, 2, -1]]) / 3.0
    gap = np.hypot(0.4, 0.4)
    for box_a, box_b in ((a, b), ((q @ a[0], q @ a[1], half), (q @ b[0], q @ b[1], half))):
        hit, _, depth = contact(box_a, box_b)
        assert not hit
        assert -gap - 1e-12 <= depth < 0


@_PROPS
@given(st.lists(box_pairs_3d(), min_size=1, max_size=4))
def test_scalar_matches_batched(pairs):
    arrays = [np.stack([p[s][k] for p in pairs]) for s in (0, 1) for k in range(3)]
    batched = contact_box_box_3d(*arrays)
    for i, (a, b) in enumerate(pairs):
        single = contact_box_box_3d(*a, *b)
        one_row = contact_box_box_3d(*[x[i:i + 1] for x in arrays])
        for c in (single, one_row):
            assert bool(np.ravel(c.hit)[0]) == bool(batched.hit[i])
            np.testing.assert_allclose(np.ravel(c.normal), batched.normal[i], rtol=0, atol=1e-15)
            np.testing.assert_allclose(np.ravel(c.depth)[0], batched.depth[i], rtol=0, atol=1e-15)
