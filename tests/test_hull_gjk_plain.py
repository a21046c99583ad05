"""The numpy hull kernels' GJK driver waits for no compiler while a background build runs.

Until ``backend="auto"`` may run compiled kernels (``collideworld.background``),
``geometry.contact_hull.hull_gjk_rows`` is the plain-Python driver over
``gjk.python_twin("gjk_closest")``: compiling it in the foreground cost ~5 s
of CPU in the first step of a 3D world with hulls (``benchmarks/cold_start.py``).
The plain driver must answer as the compiled one does, bit for bit (a world
switches between them at a step boundary), and both as an independent
minimiser does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numba.core import event
from scipy.optimize import minimize

from collideworld.geometry import contact_hull


class _Count(event.Listener):
    def __init__(self) -> None:
        self.n = 0

    def on_start(self, ev: Any) -> None:
        self.n += 1

    def on_end(self, ev: Any) -> None:
        pass


def _polytope_distance(a: np.ndarray, b: np.ndarray) -> float:
    """min |sum wa_i a_i - sum wb_j b_j| over convex weights (SLSQP), the oracle."""
    na = len(a)

    def f(w: np.ndarray) -> float:
        d = w[:na] @ a - w[na:] @ b
        return float(d @ d)

    w0 = np.concatenate([np.full(na, 1.0 / na), np.full(len(b), 1.0 / len(b))])
    cons = [{"type": "eq", "fun": lambda w: w[:na].sum() - 1.0}, {"type": "eq", "fun": lambda w: w[na:].sum() - 1.0}]
    res = minimize(f, w0, method="SLSQP", bounds=[(0.0, 1.0)] * len(w0), constraints=cons,
                   options={"ftol": 1e-14, "maxiter": 500})
    return float(np.sqrt(max(res.fun, 0.0)))


def _pairs(seed: int, n: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    na, nb = 8, 6
    va = rng.normal(size=(n, na, 3)) * 0.5
    vb = rng.normal(size=(n, nb, 3)) * 0.5 + rng.uniform(-2.5, 2.5, (n, 1, 3))
    world = np.ascontiguousarray(np.concatenate([va.reshape(-1, 3), vb.reshape(-1, 3)]))
    idx = np.arange(n, dtype=np.int64)
    return world, idx * na, np.full(n, na, dtype=np.int64), n * na + idx * nb, np.full(n, nb, dtype=np.int64)


def test_plain_driver_while_building_compiles_nothing_and_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    args = _pairs(27, 300)
    n = len(args[1])
    # the compiled driver (compile allowed: the suite has no background builder)
    monkeypatch.setattr(contact_hull, "_GJK_ROWS", [])
    monkeypatch.setattr(contact_hull, "_COMPILE_GATE", [lambda: True])
    d_c, p_c = np.empty(n), np.empty((n, 9))
    contact_hull.hull_gjk_rows()(*args, d_c, p_c)
    # while a builder runs: nothing may compile
    monkeypatch.setattr(contact_hull, "_GJK_ROWS", [])
    contact_hull.set_compile_gate(lambda: False)
    d_p, p_p = np.empty(n), np.empty((n, 9))
    counter = _Count()
    with event.install_listener("numba:compile", counter):
        contact_hull.hull_gjk_rows()(*args, d_p, p_p)
    assert counter.n == 0
    assert not contact_hull._GJK_ROWS  # the compiled driver is still built once the gate opens
    assert np.array_equal(d_p, d_c) and np.array_equal(p_p, p_c)
    # the distances against an independent minimiser (apart pairs; 0 where GJK finds no gap)
    world, a0, ac, b0, bc = args
    apart = 0
    for i in range(n):
        ref = _polytope_distance(world[a0[i]:a0[i] + ac[i]], world[b0[i]:b0[i] + bc[i]])
        if d_p[i] > 0.0:
            apart += 1
            assert d_p[i] == pytest.approx(ref, abs=1e-6), i
        else:
            assert ref < 1e-6, i
    assert apart > 100
