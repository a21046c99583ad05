"""distance() of boxes whose faces are flush or nearly so, in general orientations (issue 25, item 2).

Two equal cubes with the same orientation, b shifted from a by ``1 + gap``
along one of a's face normals and by less than a side across it: the faces
overlap, so the exact distance is ``gap`` along that face normal (a hand
calculation from the construction). python-fcl's GJK distance is checked
against the same number as a second, independent oracle. The witness points
must satisfy ``point_b - point_a == distance * normal`` and lie on the faces.

GJK used to return, for some of these, the distance to the plane of a face
whose normal was rounding noise: up to 1.4 apart while its own witness
points coincided.
"""

from __future__ import annotations

import fcl
import numpy as np
import pytest

from collideworld import Box, collide, distance
from collideworld.geometry.rotation import rotation_matrix_3d

HALF = 0.5


def _quaternion(rng: np.random.Generator) -> np.ndarray:
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def _fcl_distance(pa, qa, pb, qb) -> float:
    objs = [fcl.CollisionObject(fcl.Box(1.0, 1.0, 1.0),
                                fcl.Transform(rotation_matrix_3d(np.asarray(q)[None])[0], np.asarray(p)))
            for p, q in ((pa, qa), (pb, qb))]
    return float(fcl.distance(objs[0], objs[1], fcl.DistanceRequest(), fcl.DistanceResult()))


def _flush_pair(rng: np.random.Generator, gap: float):
    q = _quaternion(rng)
    rot = rotation_matrix_3d(q[None])[0]
    k = int(rng.integers(3))
    sign = 1.0 if rng.random() < 0.5 else -1.0
    local = rng.uniform(-0.9, 0.9, 3)  # across the face: less than a side, so the faces overlap
    local[k] = sign * (2 * HALF + gap)
    pa = rng.uniform(-1.0, 1.0, 3)
    pb = pa + rot @ local
    return q, pa, pb, sign * rot[:, k]


def _on_face(point, centre, rot, k, side) -> bool:
    local = rot.T @ (point - centre)
    return abs(local[k] - side * HALF) < 1e-9 and bool(np.all(np.abs(local) <= HALF + 1e-9))


@pytest.mark.parametrize("gap", [0.0, 1e-12, 1e-6, "random"])
def test_flush_boxes_distance_is_the_construction_gap(gap) -> None:
    rng = np.random.default_rng([25, 2, 0 if gap == "random" else int(-np.log10(gap)) if gap else 99])
    cube = Box((HALF, HALF, HALF))
    for i in range(300):
        g = float(rng.uniform(1e-3, 1.5)) if gap == "random" else float(gap)
        q, pa, pb, normal = _flush_pair(rng, g)
        fcl_d = _fcl_distance(pa, q, pb, q)
        # the two oracles agree (fcl answers -1 for shapes it finds in contact)
        assert abs(fcl_d - g) < 1e-6 or (g < 1e-9 and fcl_d == -1.0), (i, fcl_d, g)
        r = distance(cube, (pa, q), cube, (pb, q))
        assert r is not None
        assert abs(r.distance - g) <= 1e-9, (i, g, r, fcl_d)
        assert np.allclose(r.point_b - r.point_a, r.distance * r.normal, atol=1e-9), (i, r)
        rot = rotation_matrix_3d(q[None])[0]
        k = int(np.argmax(np.abs(rot.T @ normal)))
        side = float(np.sign((rot.T @ normal)[k]))
        assert _on_face(r.point_a, pa, rot, k, side), (i, r)
        assert _on_face(r.point_b, pb, rot, k, -side), (i, r)
        if g > 1e-9:  # a gap the normal is meaningful for
            assert np.allclose(r.normal, normal, atol=1e-9), (i, r.normal, normal)
        if g == 0.0:  # collide() says touching, and distance() says the same
            c = collide(cube, (pa, q), cube, (pb, q))
            assert c is not None and c.depth <= 1e-12  # construction rounding: 2e-16 deep at most


def test_issue_kissing_boxes() -> None:
    """The reported pair: touching by construction, fcl and collide() agree; distance() said 0.81."""
    q = (0.9800665778412416, 0.1147017916142513, 0.11470179161425141, 0.11470179161425141)
    pb = (-0.19851778276023893, 0.9473739960019234, 0.25114378675831556)
    cube = Box((HALF, HALF, HALF))
    assert _fcl_distance((0, 0, 0), q, pb, q) in (-1.0, 0.0)  # fcl: in contact
    r = distance(cube, ((0, 0, 0), q), cube, (pb, q))
    assert r is not None and abs(r.distance) <= 1e-12
    assert np.allclose(r.point_b - r.point_a, r.distance * r.normal, atol=1e-12)
