"""One compiled specialisation per kernel: callers pass one argument type, never a literal.

numba compiles a jitted callee once per distinct argument type tuple its
callers pass, and a constant argument (``f(x, 0)``) is typed
``Literal[int](0)``, not ``int64``: a second full compile of the callee (and
of every callee it passes that argument on to) for the same machine code.
For the query batch kernel ``_overlap`` that cost ~5 s of CPU on a cold cache
(``python -m benchmarks.cold_start --profile``), the range loop of the
contact rows ~1.5 s.

The check reads numba's on-disk cache index of each kernel (every
signature it was compiled for with today's source), after running the
calls that compile it; reading the index costs nothing on a warm cache.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from collideworld import Box, Circle, Polygon, World, collide
from collideworld.compiled import queries as cq
from collideworld.geometry.compiled import contact_slots


def _cached_signatures(disp: Any) -> list[tuple[Any, ...]]:
    """The argument type tuples in the kernel's cache index (this source only: a stale index reads empty)."""
    cache = disp._cache._cache_file  # numba's IndexDataCacheFile: {(signature, machine, bytecode): file}
    return [key[0] for key in cache._load_index()]


def _no_literals(sig: tuple[Any, ...]) -> bool:
    return not any("Literal" in str(t) or "omitted" in str(t) for t in sig)


def test_batch_queries_compile_one_overlap() -> None:
    w = World(2, backend="compiled")
    w.add_many([Circle(0.5), Box((0.4, 0.3)), Polygon(((0.0, 0.0), (1.0, 0.0), (0.2, 0.8)))] * 4,
               np.arange(24, dtype=np.float64).reshape(12, 2) * 0.3)
    # points and boxes (_overlap_boxes), then a shape at several poses (_overlap_shapes -> _overlap_probes)
    w.query_points(np.arange(40, dtype=np.float64).reshape(20, 2) * 0.2)
    w.query_shapes(Polygon(((0.0, 0.0), (0.5, 0.0), (0.0, 0.5))), np.arange(20, dtype=np.float64).reshape(10, 2) * 0.3,
                   np.zeros(10))
    sigs = _cached_signatures(cq._overlap)
    assert len(sigs) == 1, f"_overlap compiled for {len(sigs)} signatures: {sigs}"
    assert _no_literals(sigs[0]), sigs[0]


def test_contact_range_compiled_without_literals() -> None:
    # collide() runs contact_rows (one thread); World.step runs the range itself
    collide(Circle(1.0), ((0.0, 0.0), 0.0), Box((0.5, 0.5)), ((1.2, 0.0), 0.3), backend="compiled")
    w = World(2, backend="compiled")
    w.add_many([Circle(0.5), Box((0.4, 0.3))] * 3, np.arange(12, dtype=np.float64).reshape(6, 2) * 0.2)
    w.step()
    sigs = _cached_signatures(contact_slots._contact_range)
    assert sigs, "no cached specialisation of _contact_range: the check would pass vacuously"
    assert all(_no_literals(s) for s in sigs), sigs


def test_queries_3d_box_rows_compiled_without_literals() -> None:
    from collideworld.geometry.compiled import contact_box_box_3d

    w = World(3, backend="compiled")
    w.add_many([Box((0.4, 0.3, 0.2))] * 6, np.arange(18, dtype=np.float64).reshape(6, 3) * 0.1)
    w.query_aabb((0.0, 0.0, 0.0), (0.5, 0.5, 0.5))  # one probe (_probe_test)
    w.query_shapes(Box((0.2, 0.2, 0.2)), np.arange(30, dtype=np.float64).reshape(10, 3) * 0.1)  # a batch
    sigs = _cached_signatures(contact_box_box_3d.row)
    assert sigs and all(_no_literals(s) for s in sigs), sigs
