"""The compiled fat-box refit handles capsules and segments itself: their boxes hold them, exactly by hand.

A frame of a mesh world moves hundreds of capsules; the compiled refit loop
used to hand them back to the numpy path (``tight_bounds``: about 0.75 ms a
frame for 333 capsules in ``benchmarks/meshes.py``). Oracle: each capsule's
world end points from scipy's rotation of its quaternion, the box of those
grown by the radius (by hand, independent of the store's arithmetic); the fat
box must hold it and be no wider than the fat margin (plus the touching
tolerance) allows.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from collideworld import Capsule, Segment, World
from collideworld.compiled.fat_boxes import refit_moved
from collideworld.fat_boxes import _NO_PLANES  # noqa: PLC2701


def oracle_box(p0: np.ndarray, p1: np.ndarray, r: float, pos: np.ndarray, rot: np.ndarray | None):
    if rot is not None:
        p0, p1 = rot @ p0, rot @ p1
    e0, e1 = pos + p0, pos + p1
    return np.minimum(e0, e1) - r, np.maximum(e0, e1) + r


@pytest.mark.parametrize("dim", [2, 3])
def test_compiled_refit_boxes_capsules_and_segments_and_they_hold_them(dim: int) -> None:
    rng = np.random.default_rng(40 + dim)
    n = 120
    w = World(dim=dim, backend="compiled")
    shapes, ends = [], []
    for k in range(n):
        p0, p1 = rng.normal(size=dim), rng.normal(size=dim)
        r = 0.0 if k % 4 == 0 else float(rng.uniform(0.05, 0.8))
        shapes.append(Segment(tuple(p0), tuple(p1)) if r == 0.0 else Capsule(tuple(p0), tuple(p1), r))
        ends.append((p0, p1, r))
    ids = w.add_many(shapes, rng.uniform(-20, 20, (n, dim)))
    w.step()
    st = w._store
    checked = 0
    for _ in range(4):
        pos = rng.uniform(-20, 20, (n, dim)) * (1.0 if _ < 3 else 1e5)
        if dim == 2:
            ang = rng.uniform(-3, 3, n)
            w.move_many(ids, positions=pos, angles=ang)
            rots = [np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) for a in ang]
        else:
            q = rng.normal(size=(n, 4))
            q /= np.linalg.norm(q, axis=1)[:, None]
            w.move_many(ids, positions=pos, quaternions=q)
            rots = list(Rotation.from_quat(q[:, [1, 2, 3, 0]]).as_matrix())  # scipy: scalar last
        slots = st.body_slots()
        assert st.ids[slots].tolist() == ids
        planes_x = st.world_x if dim == 2 else _NO_PLANES
        planes_y = st.world_y if dim == 2 else _NO_PLANES
        escaped, other = refit_moved(slots, st.kind, st.simple, st.position, st.rotation, st.radius, st.half,
                                     st.seg0, st.seg1, planes_x, planes_y, st.static, st.bound_radius,
                                     st.rounding, st.fat_lo.copy(), st.fat_hi.copy(), 0.1, 1e-12)
        assert not other.any()  # handled by the compiled loop, not handed back to numpy
        assert escaped.all()  # moved far: every fat box refitted
        w.step()  # the world's own refit (compiled backend)
        for k, s in enumerate(slots.tolist()):
            p0, p1, r = ends[k]
            lo, hi = oracle_box(p0, p1, r, pos[k], rots[k])
            # holds the capsule (its tight box, by hand), and no wider than the margin and tolerances allow
            slack = 0.1 * st.bound_radius[s] + 1e-9 * (np.abs(lo).max() + np.abs(hi).max() + 1.0)
            assert np.all(st.fat_lo[s] <= lo) and np.all(hi <= st.fat_hi[s]), (k, lo, st.fat_lo[s])
            assert np.all(lo - st.fat_lo[s] <= slack) and np.all(st.fat_hi[s] - hi <= slack)
            checked += 1
        w.validate()
    assert checked == 4 * n
