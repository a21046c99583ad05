"""What the capsule and hull tests cost the compiled point queries since they left the query kernels (issue 27).

The query kernels leave capsules (segments) and hulls past the reject as
"other" pairs for one compiled call of their own
(``collideworld.compiled.queries.settle_rows``), which costs a Python
round trip per query. Run it on two checkouts (``PYTHONPATH`` set to each)
and compare: CPU time of single ``query_point`` calls (mean over 3,000
points, best of 5) and of one ``query_points`` batch of 20,000 points, in a
world of 3,000 bodies (2D: capsules and circles; 3D: capsules and hulls).

    PYTHONPATH=. python benchmarks/settle_cost.py
"""

from __future__ import annotations

import time

import numpy as np

import collideworld as cw
from collideworld import Capsule, Circle, ConvexHull, World


def main() -> None:
    out = {}
    for dim in (2, 3):
        rng = np.random.default_rng(5)
        w = World(dim, backend="compiled")
        n = 3000
        if dim == 2:
            shapes = [Capsule((0, 0), (1, 0), 0.3), Circle(0.4)]
            w.add_many([shapes[i % 2] for i in range(n)], rng.uniform(0, 60, (n, 2)), rng.uniform(0, 6, n))
        else:
            hull = ConvexHull(rng.normal(size=(12, 3)) * 0.4)
            shapes = [Capsule((0, 0, 0), (1, 0, 0), 0.3), hull]
            q = rng.normal(size=(n, 4))
            q /= np.linalg.norm(q, axis=1)[:, None]
            w.add_many([shapes[i % 2] for i in range(n)], rng.uniform(0, 25, (n, 3)), quaternions=q)
        w.step()
        pts = rng.uniform(0, 60 if dim == 2 else 25, (20000, dim))
        w.query_points(pts[:10])  # compile or load first
        w.query_point(tuple(pts[0]))
        singles = [tuple(p) for p in pts[:3000]]
        one = batch = np.inf
        for _ in range(5):
            c = time.process_time()
            hits = sum(len(w.query_point(p)) for p in singles)
            one = min(one, (time.process_time() - c) / len(singles))
            c = time.process_time()
            rows, _ = w.query_points(pts)
            batch = min(batch, time.process_time() - c)
        out[dim] = f"single {one * 1e6:.2f} us ({hits} hits), batch of 20,000 {batch * 1e3:.2f} ms ({len(rows)} hits)"
    print(cw.__file__)
    for dim, text in out.items():
        print(f"{dim}D: {text}")


if __name__ == "__main__":
    main()
