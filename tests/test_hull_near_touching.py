"""Hull contacts a hair from touching: both backends against the gap known by construction.

Hulls of 8 to 64 vertices (and boxes, capsules, segments, spheres) are
placed at a signed gap of 1e-12 to 1e-6 of their size from touching, built
so that the answer is known without collideworld:

- any facet: scipy's Qhull of the Minkowski difference ``M = A - B`` of the
  posed vertices gives a facet with unit normal ``n``; B moved by
  ``D = p + (r + g) n`` (``p`` a point of the facet, ``r`` the radius of a)
  is at distance exactly ``g`` from a, since ``n`` is in the normal cone of
  ``M`` at ``p``; ``g > 0`` is apart, ``g < 0`` overlaps;
- nearly parallel faces (the case that made GJK stall, issue 15): B turned
  so that one of its faces is 1e-9 to 1e-3 radians from facing one of a's,
  then moved so that its lowest point along a's face normal ``na`` is ``g``
  above a's top along ``na``. ``g > 0``: ``na`` separates them. ``g < 0``:
  they overlap where that lowest vertex is inside every face plane of a by
  a margin (checked here by plain dot products; other rows are only
  compared between backends).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import ConvexHull as Qhull
from scipy.spatial.transform import Rotation

from collideworld import ConvexHull
from collideworld.backend import compiled_available
from collideworld.bodies import BodyStore
from collideworld.geometry import contact_hull as numpy_kernels

pytestmark = pytest.mark.skipif(not compiled_available(), reason="compares the compiled twin with numpy")

CORNERS = np.array([[x, y, z] for x in (-1.0, 1.0) for y in (-1.0, 1.0) for z in (-1.0, 1.0)])


def _sphere_hull(rng: np.random.Generator, n: int) -> ConvexHull:
    while True:
        p = rng.normal(size=(n, 3))
        p /= np.linalg.norm(p, axis=1)[:, None]
        hull = ConvexHull([tuple(x) for x in p * rng.uniform(0.4, 1.0, 3)])
        if len(hull.vertices) == n:
            return hull


def _hulls(rng: np.random.Generator, n: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Hull arrays (as the store gives them) of n posed hulls a and n hulls b, all at the origin."""
    pool = [_sphere_hull(rng, int(v)) for v in rng.integers(8, 65, 10)]
    store = BodyStore(3)
    slots = store.allocate(2 * n)
    store.set_shapes(slots, [pool[i] for i in rng.integers(0, len(pool), 2 * n)])
    q = rng.normal(size=(2 * n, 4))
    store.set_poses(slots, np.zeros((2 * n, 3)), quaternion=q / np.linalg.norm(q, axis=1)[:, None])
    return list(store.hull_arrays(slots[:n])), list(store.hull_arrays(slots[n:]))


def _core(kind: str, rng: np.random.Generator, a: list[np.ndarray], n: int) -> dict[str, np.ndarray]:
    """Shape a of each row: its polytope's vertices ``core`` (n, K, 3) and radius ``r``, plus the kernel's inputs."""
    if kind == "box":
        half = rng.uniform(0.2, 0.8, (n, 3))
        rot = Rotation.from_quat(rng.normal(size=(n, 4))).as_matrix()
        core = np.einsum("nij,ncj->nci", rot, CORNERS[None] * half[:, None, :])
        faces = np.concatenate([np.swapaxes(rot, 1, 2), -np.swapaxes(rot, 1, 2)], axis=1)
        return {"core": core, "r": np.zeros(n), "rot": rot, "half": half, "faces": faces}
    if kind == "capsule":  # one row in five a bare segment
        core = np.stack([rng.normal(size=(n, 3)) * 0.5, rng.normal(size=(n, 3)) * 0.5], axis=1)
        return {"core": core, "r": rng.uniform(0.0, 0.5, n) * (rng.random(n) < 0.8)}
    if kind == "ball":
        return {"core": rng.normal(size=(n, 1, 3)) * 0.3, "r": rng.uniform(0.01, 0.8, n)}
    return {"core": a[0], "r": np.zeros(n), "faces": a[1]}


def _contacts(kind: str, kernels, shape: dict[str, np.ndarray], a: list[np.ndarray], b: list[np.ndarray]):
    n = len(shape["r"])
    if kind == "box":
        return kernels.contact_box_hull(np.zeros((n, 3)), shape["rot"], shape["half"], *b)
    if kind == "capsule":
        return kernels.contact_capsule_hull(shape["core"][:, 0], shape["core"][:, 1], shape["r"], *b)
    if kind == "ball":
        return kernels.contact_ball_hull(shape["core"][:, 0], shape["r"], *b)
    return kernels.contact_hull_hull(*a, *b)


def _check(kind: str, shape, a, b, gap: np.ndarray, known: np.ndarray) -> None:
    from collideworld.geometry.compiled import contact_hull as compiled_kernels

    got = {name: _contacts(kind, k, shape, a, b) for name, k in (("numpy", numpy_kernels),
                                                                  ("compiled", compiled_kernels))}
    for name, c in got.items():
        wrong = known & (c.hit != (gap < 0.0))
        assert not wrong.any(), (name, gap[wrong][:5], c.depth[wrong][:5])
    c0, c1 = got["numpy"], got["compiled"]
    assert np.array_equal(c0.hit, c1.hit), gap[c0.hit != c1.hit]
    scale = 2.0  # every shape here lies within 2 of the origin
    assert np.abs(c0.depth - c1.depth).max() <= 1e-12 * scale
    both = c0.hit & c1.hit
    assert np.abs(c0.normal - c1.normal)[both].max(initial=0.0) <= 1e-12


@pytest.mark.parametrize("kind", ["hull", "box", "capsule", "ball"])
def test_any_facet_a_hair_from_touching(kind: str) -> None:
    n = 300
    rng = np.random.default_rng({"hull": 1, "box": 2, "capsule": 3, "ball": 4}[kind])
    a, b = _hulls(rng, n)
    shape = _core(kind, rng, a, n)
    gap = rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(-12, -6, n)
    for i in range(n):
        m = (shape["core"][i][:, None, :] - b[0][i][None, :, :]).reshape(-1, 3)
        q = Qhull(m)
        f = rng.integers(len(q.simplices))
        p = rng.dirichlet([0.5] * 3) @ m[q.simplices[f]]  # often near an edge or a vertex of M
        # differences a - (b + D) = M - D: B moved by D is apart by (D's distance to M) - r
        b[0][i] = b[0][i] + (p + (shape["r"][i] + gap[i]) * q.equations[f, :3])
    _check(kind, shape, a, b, gap, np.ones(n, dtype=bool))


@pytest.mark.parametrize("kind", ["hull", "box"])
def test_nearly_parallel_faces_a_hair_from_touching(kind: str) -> None:
    n = 500
    rng = np.random.default_rng({"hull": 5, "box": 6}[kind])
    a, b = _hulls(rng, n)
    shape = _core(kind, rng, a, n)
    va, fa = shape["core"], shape["faces"]
    gap = rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(-12, -6, n)
    known = gap > 0.0
    for i in range(n):
        na = fa[i][rng.integers(len(fa[i]))]
        nb = b[1][i][rng.integers(len(b[1][i]))]
        target = -na + 10.0 ** rng.uniform(-9, -3) * np.cross(na, rng.normal(size=3))
        target /= np.linalg.norm(target)
        axis = np.cross(nb, target)
        turn = Rotation.from_rotvec(axis / np.linalg.norm(axis) * np.arctan2(np.linalg.norm(axis), nb @ target))
        vb = b[0][i] @ turn.as_matrix().T
        b[1][i] = b[1][i] @ turn.as_matrix().T
        pa = va[i] @ na
        top, low = pa.max(), (vb @ na).min()
        # the two near faces centred on each other, then b lifted to gap g along na
        ca = va[i][pa > top - 1e-3].mean(axis=0)
        cb = vb[vb @ na < low + 1e-3].mean(axis=0)
        side = (ca - cb) - ((ca - cb) @ na) * na
        b[0][i] = vb + side + (top - low + gap[i]) * na
        if gap[i] < 0.0:
            lowest = b[0][i][np.argmin(b[0][i] @ na)]
            margin = (va[i][:, None, :] * fa[i][None]).sum(-1).max(axis=0) - fa[i] @ lowest
            known[i] = margin.min() > 1e-13
    assert known[gap < 0].sum() >= 20  # some overlapping rows are checked against the truth
    _check(kind, shape, a, b, gap, known)
