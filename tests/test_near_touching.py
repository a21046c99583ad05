"""Near-touching contacts, judged in exact rational arithmetic (issue 17, items 1 and 2).

Families of configurations within 1e-15 .. 1e-6 of touching, for every
convex kernel where rounding decides the answer:

* a circle against a convex polygon and against a 2D box, a sphere against
  a 3D box: near every kind of feature (edge or face interior, edge,
  vertex / corner), with the ball's surface near the shape (a gap or
  overlap of g) or its centre near the shape's boundary (a deep overlap of
  r -+ g, where the normal is all that is hard);
* two 3D boxes with edges 1e-12 .. 1e-3 rad from parallel, touching
  edge to edge or face to face, then moved apart or together by 1e-12 ..
  1e-5 of their size, or tilted about a random axis.

Each case is checked against :mod:`tests.exact` (``fractions.Fraction``,
no rounding): outside the touching tolerance band the hit/miss decision must
match, and for every hit, moving b by ``depth * normal`` must leave the pair
touching within the band, neither overlapping nor apart, which a wrong
normal or depth fails; where the exact closest point is defined, the normal
must point at it. The band is 1.5 times ``touch_tolerance`` of the pair's
coordinates, the half extra leaving room for the few ulps of rounding that
blur the band's own edge (a pair apart by just under the tolerance is
reported touching with depth 0, and stays that far apart after the move).
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from collideworld import Box, Circle, Polygon, collide
from collideworld.geometry.contact_ball_box import contact_ball_box
from collideworld.geometry.contact_ball_polygon import contact_ball_polygon
from collideworld.geometry.contact_box_box_3d import contact_box_box_3d

from . import exact

REL = 1e-14  # the touching rule, restated: touch_tolerance(s) = 1e-14 * max(1, s)


def tol(scale: float) -> float:
    return REL * max(1.0, scale)


def gaps(rng, n, lo=-15, hi=-6):
    """Signed magnitudes 10^U(lo, hi), half of them negative (overlaps)."""
    return 10.0 ** rng.uniform(lo, hi, n) * rng.choice([-1.0, 1.0], n)


def assert_none_failed(failures, n):
    moved = [f for f in failures if "moved by" in f]
    assert not failures, (f"{len(failures)} of {n} failed ({len(moved)} by the move), e.g.\n"
                          + "\n".join((moved + failures)[:5]))


def unit(v):
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


# --- the two reproductions from the issue ----------------------------------------------------


def test_circle_centre_a_hair_outside_a_polygon_edge_gets_the_edge_normal():
    # The centre is on the hypotenuse 7x + 10y = 70 to rounding; the circle
    # (radius 1) must leave along the edge's outward normal (7, 10) / sqrt(149).
    r = collide(Polygon([(0, 0), (10, 0), (0, 7)]), ((0, 0), 0.0), Circle(1.0), ((0.44499999999999984, 6.6885), 0.0))
    assert r is not None
    assert np.allclose(r.normal, np.array([7.0, 10.0]) / math.sqrt(149.0), rtol=0, atol=1e-12)
    assert r.depth == pytest.approx(1.0, abs=1e-12)


def _issue_boxes(gap):
    c, s = math.cos(math.pi / 8), math.sin(math.pi / 8)
    th = 1e-6
    qa = [c, s, 0.0, 0.0]
    qb = [math.cos(th / 2) * c, math.cos(th / 2) * s, math.sin(th / 2) * s, math.sin(th / 2) * c]
    return (Box((1, 1, 1)), ((0, 0, 0), qa), Box((1, 1, 1)), ((0, 0, 2 * math.sqrt(2) + gap), qb))


def test_nearly_parallel_edges_1e8_apart_do_not_touch():
    # Two unit cubes, a's top edge and b's bottom edge 1e-6 rad apart, the
    # edges 1e-8 apart (python-fcl, an LP and exact SAT agree): no contact.
    assert collide(*_issue_boxes(1e-8)) is None
    # Pushed 1e-8 into each other instead, they overlap by ~1e-8 along z.
    r = collide(*_issue_boxes(-1e-8))
    assert r is not None and np.allclose(r.normal, [0.0, 0.0, 1.0], rtol=0, atol=1e-6)
    assert r.depth == pytest.approx(1e-8, rel=1e-6)


# --- ball families --------------------------------------------------------------------------


def _convex_polygons(rng, n):
    """n random convex counter-clockwise polygons (3 to 8 vertices on an ellipse), padded to 8."""
    out, sizes = [], []
    for _ in range(n):
        k = int(rng.integers(3, 9))
        theta = np.sort(rng.uniform(0, 2 * np.pi, k))
        while np.min(np.diff(np.r_[theta, theta[0] + 2 * np.pi])) < 0.05:
            theta = np.sort(rng.uniform(0, 2 * np.pi, k))
        axes = rng.uniform(0.2, 10.0, 2)
        centre = rng.uniform(-50, 50, 2)
        pts = centre + np.stack([np.cos(theta), np.sin(theta)], 1) * axes
        out.append(pts)
        sizes.append(k)
    return out


def _feature_placements(rng, vertices, n):
    """For each polygon (list of (K, 2)): a boundary point and a direction in its normal cone.

    Half on an edge's interior (direction: the edge's outward normal), half
    at a vertex (direction: between its two edges' outward normals).
    """
    base, direction, kinds = [], [], []
    for v in vertices:
        k = len(v)
        i = int(rng.integers(k))
        e = v[(i + 1) % k] - v[i]
        n_edge = unit([e[1], -e[0]])
        if rng.random() < 0.5:
            base.append(v[i] + rng.uniform(0.02, 0.98) * e)
            direction.append(n_edge)
            kinds.append("edge")
        else:
            e_prev = v[i] - v[i - 1]
            n_prev = unit([e_prev[1], -e_prev[0]])
            w = rng.uniform(0.02, 0.98)
            base.append(v[i])
            direction.append(unit((1 - w) * n_prev + w * n_edge))
            kinds.append("vertex")
    return np.array(base), np.array(direction), kinds


def _ball_centres(rng, base, direction, radius):
    """Centres near the shape: half with the surface g from it, half with the centre g from it."""
    n = len(base)
    g = gaps(rng, n)
    surface = rng.random(n) < 0.5
    offset = np.where(surface, radius + g, g)
    return base + offset[:, None] * direction, surface


def _check_ball(centre, radius, res, shape_query, scale, corner_rounding=False):
    """The exact verdicts for one ball result; returns a message or None.

    ``corner_rounding``: the shape is a box given by centre, rotation and half
    extents, whose corners are not floats: any computation of them is off by
    ~1e-16 of ``scale``, which turns the direction towards a corner a distance
    ``d`` away by up to ~1e-16 scale / d. (That is harmless: when ``d`` is that
    small, every direction in the corner's normal cone is a minimum
    translation to within ``d``, which the move above checks.) A polygon's
    vertices are floats, so its normals must be right to 1e-7 at any ``d``.
    """
    band = 1.5 * tol(scale)
    inside, d2, closest = shape_query(centre)
    verdict = exact.ball_gap(inside, d2, radius, band)
    if verdict == 1 and res.hit:
        return f"apart by more than {band:.1e} but reported hit (depth {res.depth:.3e})"
    if verdict == -1 and not res.hit:
        return f"overlapping by more than {band:.1e} but reported apart (depth {res.depth:.3e})"
    if not res.hit:
        return None
    # Moving b (the shape) by depth * normal is moving the ball by -depth * normal.
    moved = exact.sub(exact.q(centre), exact.scale(exact.q(res.normal), F(float(res.depth))))
    inside2, d2_moved, _ = shape_query(moved)
    if exact.ball_gap(inside2, d2_moved, radius, band) != 0:
        left = radius - math.sqrt(d2_moved) if not inside2 else radius + math.sqrt(d2_moved)
        return f"moved by depth x normal the pair is {left:.3e} from touching (normal {res.normal})"
    if closest is not None and d2 > 0:
        # Outside, the exact normal points from the centre to the exact closest point.
        want = np.array([float(x) for x in exact.sub(closest, exact.q(centre))])
        dist = np.linalg.norm(want)
        want /= dist
        slack = 64 * np.finfo(float).eps * scale / dist if corner_rounding else 0.0
        if not np.allclose(res.normal, want, rtol=0, atol=1e-7 + slack):
            return f"normal {res.normal} but the closest point is along {want}"
    return None


def test_circles_near_convex_polygon_edges_and_vertices():
    rng = np.random.default_rng(1701)
    n = 3000
    polys = _convex_polygons(rng, n)
    base, direction, kinds = _feature_placements(rng, polys, n)
    radius = rng.uniform(0.1, 5.0, n)
    centre, surface = _ball_centres(rng, base, direction, radius)
    padded = np.array([np.vstack([p, np.repeat(p[-1:], 8 - len(p), 0)]) for p in polys])
    res = contact_ball_polygon(centre, radius, padded)
    failures = []
    for i in range(n):
        scale = max(np.abs(centre[i]).max(), radius[i], np.abs(polys[i]).max())
        one = type(res)(res.hit[i], res.normal[i], res.depth[i])
        msg = _check_ball(centre[i], radius[i], one, lambda p, i=i: exact.point_polygon(p, polys[i]), scale)
        if msg:
            failures.append(f"#{i} ({kinds[i]}, {'surface' if surface[i] else 'centre'}): {msg}")
    assert_none_failed(failures, n)


def test_circles_near_2d_box_edges_and_corners():
    rng = np.random.default_rng(1702)
    n = 2000
    centre_b = rng.uniform(-50, 50, (n, 2))
    angle = rng.uniform(-np.pi, np.pi, n)
    rot = np.stack([np.stack([np.cos(angle), -np.sin(angle)], -1), np.stack([np.sin(angle), np.cos(angle)], -1)], 1)
    half = rng.uniform(0.05, 10.0, (n, 2))
    corners = [[tuple(float(x) for x in c) for c in exact.box_corners_2d(centre_b[i], rot[i], half[i])]
               for i in range(n)]
    base, direction, kinds = _feature_placements(rng, [np.array(c) for c in corners], n)
    radius = rng.uniform(0.1, 5.0, n)
    centre, surface = _ball_centres(rng, base, direction, radius)
    res = contact_ball_box(centre, radius, centre_b, rot, half)
    failures = []
    for i in range(n):
        scale = max(np.abs(centre[i]).max(), radius[i], np.abs(centre_b[i]).max(), half[i].max())
        exact_corners = exact.box_corners_2d(centre_b[i], rot[i], half[i])
        one = type(res)(res.hit[i], res.normal[i], res.depth[i])
        msg = _check_ball(centre[i], radius[i], one, lambda p, c=exact_corners: exact.point_polygon(p, c), scale,
                          corner_rounding=True)
        if msg:
            failures.append(f"#{i} ({kinds[i]}, {'surface' if surface[i] else 'centre'}): {msg}")
    assert_none_failed(failures, n)


def test_spheres_near_3d_box_faces_edges_and_corners():
    rng = np.random.default_rng(1703)
    n = 2000
    centre_b = rng.uniform(-50, 50, (n, 3))
    rot = Rotation.random(n, random_state=rng).as_matrix()
    half = rng.uniform(0.05, 10.0, (n, 3))
    # Local feature: how many coordinates sit on a face (1 face, 2 edge, 3 corner).
    on = rng.integers(1, 4, n)
    signs = rng.choice([-1.0, 1.0], (n, 3))
    order = np.argsort(rng.random((n, 3)), axis=1)
    pinned = np.zeros((n, 3), dtype=bool)
    for i in range(n):
        pinned[i, order[i, : on[i]]] = True
    local = np.where(pinned, signs * half, rng.uniform(-0.98, 0.98, (n, 3)) * half)
    # A direction in the feature's normal cone: a positive mix of its face normals.
    local_dir = unit(np.where(pinned, signs * rng.uniform(0.05, 1.0, (n, 3)), 0.0))
    base = centre_b + np.einsum("nij,nj->ni", rot, local)
    direction = np.einsum("nij,nj->ni", rot, local_dir)
    radius = rng.uniform(0.1, 5.0, n)
    centre, surface = _ball_centres(rng, base, direction, radius)
    res = contact_ball_box(centre, radius, centre_b, rot, half)
    failures = []
    for i in range(n):
        scale = max(np.abs(centre[i]).max(), radius[i], np.abs(centre_b[i]).max(), half[i].max())
        one = type(res)(res.hit[i], res.normal[i], res.depth[i])
        msg = _check_ball(centre[i], radius[i], one,
                          lambda p, i=i: exact.point_box_3d(p, centre_b[i], rot[i], half[i]), scale,
                          corner_rounding=True)
        if msg:
            feature = ("face", "edge", "corner")[on[i] - 1]
            failures.append(f"#{i} ({feature}, {'surface' if surface[i] else 'centre'}): {msg}")
    assert_none_failed(failures, n)


# --- two 3D boxes, edges nearly parallel ---------------------------------------------------------


def _rotation_about(axis, angle):
    return Rotation.from_rotvec(unit(axis) * angle).as_matrix()


def _near_parallel_boxes(rng, n):
    """Box pairs touching edge to edge or face to face, b turned by 1e-12 .. 1e-3 rad, then moved.

    Returns the kernel arrays and a label per pair. b first sits with its
    axes equal to a's, touching a at a point P (edges crossing, or faces
    overlapping); turning b about the contact normal through P keeps it
    touching (its contact edge or face stays in the separating plane); a
    third of the pairs are turned about a random axis instead. Then b moves
    by g = +-1e-12 .. 1e-5 of the box size along the contact normal.
    """
    ra = Rotation.random(n, random_state=rng).as_matrix()
    ha = rng.uniform(0.05, 5.0, (n, 3))
    hb = rng.uniform(0.05, 5.0, (n, 3))
    ca = rng.uniform(-20, 20, (n, 3))
    cb = np.empty((n, 3))
    rb = np.empty((n, 3, 3))
    labels = []
    angle = 10.0 ** rng.uniform(-12, -3, n)
    g = gaps(rng, n, -12, -5)
    for i in range(n):
        k, j1, j2 = rng.permutation(3)
        s1, s2 = rng.choice([-1.0, 1.0], 2)
        local = np.zeros(3)
        if rng.random() < 0.5:
            mode = "edge"
            # a's edge along axis k at (s1 ha_j1, s2 ha_j2); b's opposite edge on the same line
            local[j1], local[j2] = s1 * (ha[i, j1] + hb[i, j1]), s2 * (ha[i, j2] + hb[i, j2])
            local[k] = rng.uniform(-1, 1) * (ha[i, k] + hb[i, k])
            normal_local = np.zeros(3)
            normal_local[j1], normal_local[j2] = s1, s2
            contact_local = np.zeros(3)
            contact_local[j1], contact_local[j2] = s1 * ha[i, j1], s2 * ha[i, j2]
            contact_local[k] = (max(-ha[i, k], local[k] - hb[i, k]) + min(ha[i, k], local[k] + hb[i, k])) / 2
        else:
            mode = "face"
            local[j1] = s1 * (ha[i, j1] + hb[i, j1])
            for j in (k, j2):
                local[j] = rng.uniform(-1, 1) * (ha[i, j] + hb[i, j])
            normal_local = np.zeros(3)
            normal_local[j1] = s1
            contact_local = np.zeros(3)
            contact_local[j1] = s1 * ha[i, j1]
            for j in (k, j2):
                contact_local[j] = (max(-ha[i, j], local[j] - hb[i, j]) + min(ha[i, j], local[j] + hb[i, j])) / 2
        normal = ra[i] @ unit(normal_local)
        p = ca[i] + ra[i] @ contact_local
        centre = ca[i] + ra[i] @ local
        if rng.random() < 1 / 3:
            mode += ", tilted"
            turn = _rotation_about(rng.normal(size=3), angle[i])
        else:
            turn = _rotation_about(normal, angle[i])
        rb[i] = turn @ ra[i]
        cb[i] = p + turn @ (centre - p) + g[i] * max(ha[i].max(), hb[i].max()) * normal
        labels.append(f"{mode}, {angle[i]:.1e} rad, g {g[i]:+.1e}")
    return (ca, ra, ha, cb, rb, hb), labels


def test_boxes_with_nearly_parallel_edges_match_exact_sat():
    rng = np.random.default_rng(1704)
    n = 1000
    arrays, labels = _near_parallel_boxes(rng, n)
    res = contact_box_box_3d(*arrays)
    ca, ra, ha, cb, rb, hb = arrays
    failures = []
    decided = 0
    for i in range(n):
        scale = max(np.abs(ca[i]).max(), np.abs(cb[i]).max(), ha[i].max(), hb[i].max())
        band = 1.5 * tol(scale)
        verdict = exact.sat_verdict(exact.sat_boxes_3d(ca[i], ra[i], ha[i], cb[i], rb[i], hb[i]), band)
        decided += verdict != 0
        if verdict == 1 and res.hit[i]:
            failures.append(f"#{i} ({labels[i]}): apart but hit, depth {res.depth[i]:.2e}")
            continue
        if verdict == -1 and not res.hit[i]:
            failures.append(f"#{i} ({labels[i]}): overlapping but missed, depth {res.depth[i]:.2e}")
            continue
        if res.hit[i]:
            moved = exact.add(exact.q(cb[i]), exact.scale(exact.q(res.normal[i]), F(float(res.depth[i]))))
            after = exact.sat_verdict(exact.sat_boxes_3d(ca[i], ra[i], ha[i], moved, rb[i], hb[i]), band)
            if after != 0:
                failures.append(f"#{i} ({labels[i]}): moved by depth {res.depth[i]:.3e} along {res.normal[i]} "
                                f"the boxes {'overlap' if after < 0 else 'are apart'}")
    assert_none_failed(failures, n)
    assert decided > 0.8 * n  # the families are near touching, not inside the band
