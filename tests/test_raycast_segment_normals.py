"""Ray normals on segments: the face across the segment that faces the ray, not rounding noise.

A segment has no thickness, so the offset of the hit point from its line,
from which a capsule's normal is taken, is rounding noise there (for a ray
through a 2D segment it points along the segment about as often as not).
The normal must be the limit of a thin capsule's: perpendicular to the
segment, in the plane of the segment and the ray, on the ray's side.

Oracle, by hand: with ``u`` the unit segment direction and ``d`` the ray's,
the normal is ``-(u x (d x u)) / |u x (d x u)|`` in 3D (the part of ``-d``
across the segment); in 2D the perpendicular ``(-u_y, u_x)`` with its sign
chosen so that it points back along the ray. Rays are aimed at a point on
the segment, so the distance is also known.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from collideworld import Capsule, Segment, World

BACKENDS = ["numpy", "compiled"]
#: Segments lie within 9 of their cells' centres and rays within 17: each ray meets its own segment
#: only. The cells are packed about the world origin: a ray aimed at a point of a segment misses it
#: by the rounding of the coordinates, which must stay well under the touching tolerance of the
#: batched rays' frames (see the note at the end).
SPACING = 30.0


def _face_normal(u, d):
    if len(u) == 2:
        n = np.array([-u[1], u[0]])
        return n if n @ d < 0 else -n
    n = -np.cross(u, np.cross(d, u))
    return n / np.linalg.norm(n)


def _segments_and_rays(rng, dim, count):
    """Segments (local ends, pose) and one ray per segment aimed at a point on it."""
    out = []
    side = math.ceil(count ** (1 / dim))
    for k in range(count):
        a = rng.uniform(-3.0, 3.0, dim)
        v = rng.normal(size=dim)
        b = a + v / np.linalg.norm(v) * rng.uniform(0.5, 4.0)
        cell = np.array([(k // side**j) % side for j in range(dim)], dtype=float)
        centre = SPACING * (cell - (side - 1) / 2)
        pos = centre + rng.uniform(-2.0, 2.0, dim)
        if dim == 2:
            ang = float(rng.uniform(-np.pi, np.pi))
            c, s = math.cos(ang), math.sin(ang)
            rot = np.array([[c, -s], [s, c]])
            pose_rot: object = ang
        else:
            r = Rotation.random(random_state=int(rng.integers(2**31)))
            rot = r.as_matrix()
            x, y, z, w = r.as_quat()
            pose_rot = (w, x, y, z)
        wa, wb = rot @ a + pos, rot @ b + pos
        u = (wb - wa) / np.linalg.norm(wb - wa)
        while True:  # a direction at least ~10 degrees off the segment
            d = rng.normal(size=dim)
            d /= np.linalg.norm(d)
            if abs(d @ u) < 0.98:
                break
        hit = wa + rng.uniform(0.05, 0.95) * (wb - wa)
        length = float(rng.uniform(0.5, 8.0))
        out.append((tuple(a.tolist()), tuple(b.tolist()), pos, pose_rot, hit - length * d, d, length,
                    _face_normal(u, d)))
    return out


def _world(backend, dim, cases, thickness=None):
    w = World(dim, backend=backend)
    for k, (a, b, pos, rot, *_rest) in enumerate(cases):
        shape = Segment(a, b) if thickness is None else Capsule(a, b, thickness)
        if dim == 2:
            w.add(shape, tuple(pos.tolist()), angle=rot, id=k)
        else:
            w.add(shape, tuple(pos.tolist()), quaternion=rot, id=k)
    return w


def test_segment_normal_issue_example():
    for backend in BACKENDS:
        w = World(2, backend=backend)
        w.add(Segment((-1, -1), (1, 1)), id="s")
        want = [math.sqrt(0.5), -math.sqrt(0.5)]
        [hit] = w.raycast((5.0, 0.0), (-1.0, 0.0))
        np.testing.assert_allclose(hit.normal, want, atol=1e-12)
        batch = w.raycast_many([(5.0, 0.0)], [(-1.0, 0.0)])
        np.testing.assert_allclose(batch.normal, [want], atol=1e-12)
        # the thin capsule's answer, of which the segment's is the limit
        t = World(2, backend=backend)
        t.add(Capsule((-1, -1), (1, 1), 1e-9), id="c")
        np.testing.assert_allclose(t.raycast((5.0, 0.0), (-1.0, 0.0))[0].normal, want, atol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dim", [2, 3])
def test_segment_ray_normals_are_the_facing_normal(backend, dim):
    rng = np.random.default_rng(1025 + dim)
    cases = _segments_and_rays(rng, dim, 150)
    w = _world(backend, dim, cases)
    origins = np.array([c[4] for c in cases])
    dirs = np.array([c[5] for c in cases])
    lengths = np.array([c[6] for c in cases])
    want = np.array([c[7] for c in cases])
    # single rays, every hit and the first only
    for k, (*_, o, d, length, n) in enumerate(cases):
        for all_hits in (True, False):
            hits = w.raycast(o, d, all_hits=all_hits)
            assert hits[0].id == k  # (past it, a ray may go on to others)
            np.testing.assert_allclose(hits[0].normal, n, atol=1e-9, err_msg=f"ray {k}")
            assert hits[0].distance == pytest.approx(length, abs=1e-9)
    # batched rays: first hits and all hits
    for all_hits in (False, True):
        got = w.raycast_many(origins, dirs, all_hits=all_hits)
        own = got.id.astype(np.int64) == got.ray
        assert got.ray[own].tolist() == list(range(len(cases)))
        np.testing.assert_allclose(got.normal[own], want, atol=1e-9)
        np.testing.assert_allclose(got.distance[own], lengths, atol=1e-9)


@pytest.mark.parametrize("dim", [2, 3])
def test_thin_capsule_normals_tend_to_the_segment_normal(dim):
    # radius 1e-6: the capsule's side normal (from its hit point) is the facing normal to ~1e-6
    rng = np.random.default_rng(1125 + dim)
    cases = _segments_and_rays(rng, dim, 60)
    for backend in BACKENDS:
        w = _world(backend, dim, cases, thickness=1e-6)
        got = w.raycast_many(np.array([c[4] for c in cases]), np.array([c[5] for c in cases]))
        np.testing.assert_allclose(got.normal, np.array([c[7] for c in cases]), atol=1e-4)


# Note: raycast_many moves each ray into a frame of its own (origin 0) before the kernels decide
# touching, at the tolerance of the coordinates in that frame, while raycast decides it at the
# world coordinates' tolerance. A ray aimed at a segment 1000 units from the world origin misses
# it by the rounding of those coordinates, ~1e-13: inside raycast's tolerance, outside the
# frame's; such rays hit on raycast and miss on raycast_many. Left for its own fix.
