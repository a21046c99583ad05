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
    # points and boxes (_boxes_q), then a shape at several poses (_shapes_q)
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


def _layouts(sig: tuple[Any, ...]) -> str:
    return "".join(t.layout for t in sig if hasattr(t, "layout"))


def test_row_routines_compile_one_layout() -> None:
    """Each contact row routine is compiled for one array layout, whichever caller reaches it first.

    The World's step (contact_slots), the batched kernels the grouped path calls for a concave
    polygon's parts, and the compiled queries (their probes, and the bodies' packed rows, which
    are strided views) all pass strided ('A') rows; a caller passing C-contiguous ones compiled
    each routine a second (or third) time: ~7 s of CPU over the routines on a cold cache.
    """
    from collideworld.geometry.compiled import (
        contact_ball_ball,
        contact_ball_box,
        contact_ball_polygon,
        contact_box_box_2d,
        contact_box_box_3d,
        contact_box_polygon,
        contact_halfspace_ball,
        contact_halfspace_box,
        contact_polygon_polygon,
    )
    from collideworld.shapes import HalfPlane, Plane, Sphere

    tri = Polygon(((0.0, 0.0), (1.0, 0.0), (0.2, 0.8)))
    concave = Polygon(((0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (1.0, 0.5), (0.0, 2.0)))
    w = World(2, backend="compiled")
    w.add(HalfPlane((0.0, 1.0), 0.0))
    w.add_many([Circle(0.5), Box((0.4, 0.3)), tri, concave] * 3, np.arange(24, dtype=np.float64).reshape(12, 2) * 0.3)
    w.step()
    w.query_point((0.3, 0.3))
    w.query_aabb((0.0, 0.0), (0.5, 0.5))
    w.query_points(np.arange(40, dtype=np.float64).reshape(20, 2) * 0.2)
    for probe in (Circle(0.3), Box((0.2, 0.3)), tri):
        w.query_shape(probe, (0.4, 0.2), 0.3)
        w.query_shapes(probe, np.arange(20, dtype=np.float64).reshape(10, 2) * 0.3, np.zeros(10))
    w3 = World(3, backend="compiled")
    w3.add(Plane((0.0, 0.0, 1.0), 0.0))
    w3.add_many([Sphere(0.5), Box((0.4, 0.3, 0.2))] * 3, np.arange(18, dtype=np.float64).reshape(6, 3) * 0.2)
    w3.step()
    w3.query_point((0.1, 0.1, 0.1))
    w3.query_aabb((0.0, 0.0, 0.0), (0.5, 0.5, 0.5))
    for probe3 in (Sphere(0.3), Box((0.2, 0.2, 0.2))):
        w3.query_shapes(probe3, np.arange(30, dtype=np.float64).reshape(10, 3) * 0.1)
    routines = {m.__name__.rsplit(".", 1)[-1]: m.row
                for m in (contact_ball_ball, contact_ball_box, contact_ball_polygon, contact_box_box_2d,
                          contact_box_box_3d, contact_box_polygon, contact_halfspace_ball, contact_halfspace_box,
                          contact_polygon_polygon)}
    many = {name: [_layouts(s) for s in _cached_signatures(disp)] for name, disp in routines.items()}
    assert all(many.values()), f"a routine with no cached specialisation: the check would pass vacuously: {many}"
    # (one layout: a caller passing read-only arrays, if any test does, adds a read-only twin of the same layout)
    assert all(len(set(sigs)) == 1 for sigs in many.values()), f"array layouts each routine was compiled for: {many}"


def test_gjk_closest_compiled_without_literals() -> None:
    """Shape casts and times of impact reach gjk_closest with int64 indices only (one compile, not two)."""
    from collideworld import Sphere, time_of_impact
    from collideworld.geometry import gjk

    w = World(2, backend="compiled")
    w.add_many([Circle(0.5), Box((0.4, 0.3))] * 3, np.arange(12, dtype=np.float64).reshape(6, 2) * 0.9)
    w.cast(Circle(0.25), ((-5.0, 0.1), 0.0), ((9.0, 0.1), 0.0))
    w3 = World(3, backend="compiled")
    w3.add_many([Sphere(0.5), Box((0.4, 0.3, 0.2))] * 3, np.arange(18, dtype=np.float64).reshape(6, 3) * 0.5)
    w3.cast(Sphere(0.25), ((-5.0, 0.1, 0.0), None), ((9.0, 0.1, 0.0), None))
    q = (1.0, 0.0, 0.0, 0.0)
    time_of_impact(Box((0.5, 0.5, 0.5)), ((0.0, 0.0, 0.0), q), ((4.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)),
                   Sphere(0.5), ((3.0, 0.0, 0.0), q), ((3.0, 0.0, 0.0), q))
    # gjk_closest is gjk_pieces on two vertex hulls: neither may be compiled for literal arguments
    sigs = _cached_signatures(gjk.gjk_closest) + _cached_signatures(gjk.gjk_pieces)
    assert sigs, "no cached specialisation of gjk_pieces: the check would pass vacuously"
    assert all(_no_literals(s) for s in sigs), sigs


def test_refit_compiled_once_for_both_dims() -> None:
    """A step's compiled refit of moved fat boxes has one specialisation for 2D and 3D stores.

    A 2D store passes its posed polygon vertices (strided views); a 3D store passed an empty stand-in,
    which numpy flags contiguous, and the loop compiled a second time for it (~1 s of CPU on a cold cache).
    """
    from collideworld import Sphere
    from collideworld.compiled import fat_boxes

    for dim, shapes in ((2, [Circle(0.5), Box((0.4, 0.3)), Polygon(((0.0, 0.0), (1.0, 0.0), (0.2, 0.8)))]),
                        (3, [Sphere(0.5), Box((0.4, 0.3, 0.2))])):
        w = World(dim, backend="compiled")
        ids = w.add_many(shapes * 3, np.arange(3 * len(shapes) * dim, dtype=np.float64).reshape(-1, dim) * 0.7)
        w.step()
        for i in ids[::2]:  # moved far enough to leave their fat boxes: the refit runs
            w.move(i, position=tuple(np.full(dim, 3.0 + i)))
        w.step()
    sigs = _cached_signatures(fat_boxes._refit)
    assert len(sigs) == 1, f"_refit compiled for {len(sigs)} signatures: {[_layouts(s) for s in sigs]}"


def test_gjk_simplex_helpers_compiled_without_literals() -> None:
    """gjk_pieces' simplex helpers are compiled once: no literal face bound, no literal 0 indices.

    numba types a call as soon as it has met a variable's first assignment: ``i0 = 0`` then
    ``i0 = j`` in a loop compiled the callee for ``Literal[int](0)`` and then for int64.
    """
    from collideworld import Sphere, distance
    from collideworld.geometry import gjk

    q = (1.0, 0.0, 0.0, 0.0)
    distance(Box((0.5, 0.5, 0.5)), ((0.0, 0.0, 0.0), q), Sphere(0.5), ((3.0, 0.2, 0.1), q))
    distance(Box((0.5, 0.4)), ((0.0, 0.0), 0.3), Polygon(((0.0, 0.0), (1.0, 0.0), (0.2, 0.8))), ((2.5, 0.1), 0.0))
    for disp in (gjk._nearest_on_simplex, gjk._face_weights):
        sigs = _cached_signatures(disp)
        assert len(sigs) == 1 and _no_literals(sigs[0]), (disp.py_func.__name__, sigs)


def test_grid_walks_compile_their_helpers_without_literals() -> None:
    """The grid patch's _unlink and the single point query's box test compile for int64 indices only."""
    from collideworld.spatial import compiled as sc

    w = World(2, backend="compiled")
    ids = w.add_many([Circle(0.5), Box((0.4, 0.3))] * 20, np.arange(80, dtype=np.float64).reshape(40, 2) * 0.4)
    w.step()
    w.query_point((0.3, 0.3))
    w.move(ids[3], position=(5.0, 5.0))  # the grid is patched from the journal (_patch: _unlink)
    w.query_point((5.0, 5.0))
    unlink = _cached_signatures(sc._unlink)
    meet = _cached_signatures(sc.boxes_meet)
    assert unlink and meet, "no cached specialisation: the check would pass vacuously"
    assert len(unlink) == 1 and _no_literals(unlink[0]), unlink
    # (float32 bucket boxes and float64 body boxes: two on purpose, neither for a literal)
    assert all(_no_literals(s) for s in meet), meet


def test_ball_polygon_row_pass_is_a_called_function() -> None:
    """contact_ball_polygon.row calls its pass over the edges (twice: plain, then rescaled) as one compiled function.

    With ``inline="always"`` numba pasted the pass's IR into row twice and compiled both copies
    (~0.6 s of CPU on a cold cache, measured with benchmarks/cold_start.py's profile); as a called
    function it is compiled once, on its own, and so has an entry in its cache index.
    """
    from collideworld.geometry.compiled import contact_ball_polygon

    tri = Polygon(((0.0, 0.0), (1.0, 0.0), (0.2, 0.8)))
    collide(Circle(0.5), ((0.1, 0.9), 0.0), tri, ((0.0, 0.0), 0.2), backend="compiled")
    w = World(2, backend="compiled")
    w.add_many([Circle(0.5), tri] * 3, np.arange(12, dtype=np.float64).reshape(6, 2) * 0.3)
    w.step()
    sigs = _cached_signatures(contact_ball_polygon._row_at)
    assert len(sigs) == 1, f"_row_at compiled on its own for {len(sigs)} signatures (0: pasted into its caller)"


def test_buffer_growth_compiles_no_slice_assignment() -> None:
    """The growing buffers of the grid walks copy by a loop: no slice assignment, whose shape-mismatch
    error numba builds with a formatted message (str() of ints and its unicode helpers, ~2 s of CPU on
    a cold cache, compiled into every kernel linking it)."""
    from numba import njit

    from collideworld.broadphase import compiled as bc
    from collideworld.spatial import compiled as sc

    def no_slice_assignment(fresh: Any) -> None:
        (sig,) = fresh.signatures
        ir = fresh.inspect_llvm(sig)
        assert "@" in ir and "cannot assign slice" not in ir, fresh.py_func.__name__

    # each compiled here, not loaded from the cache: its LLVM IR is at hand
    for disp in (cq._grown, sc._grow):
        fresh = njit(disp.py_func)
        got = fresh(np.arange(5, dtype=np.int64), 3)
        assert got.shape[0] >= 10 and got[:3].tolist() == [0, 1, 2]
        no_slice_assignment(fresh)
    # the broadphase's join of its ranges' keys, and the big boxes' pairs after the walk's
    walk = njit(bc._banded_sweep_keys)
    keys = walk(np.array([0, 1, 2]), np.zeros(3, dtype=np.int64), np.array([0.0, 1.0, 5.0]),
                np.array([1.0, 2.0, 6.0]), np.zeros((1, 3)), np.ones((1, 3)), np.zeros((1, 3), dtype=np.int64),
                np.array([1]), np.zeros(3, dtype=np.bool_), np.zeros(0, dtype=np.bool_), False, 1.0, 2, 2)
    assert keys.tolist() == [(0 << 2) | 1]  # by hand: boxes 0 and 1 touch at x = 1, box 2 is apart
    no_slice_assignment(walk)
    big = njit(bc._with_big_pairs)
    lo = np.array([[0.0, 0.0], [0.5, 0.5], [9.0, 9.0]])
    both = big(np.array([7], dtype=np.int64), lo, lo + np.array([[3.0, 3.0], [1.0, 1.0], [1.0, 1.0]]),
               np.array([True, False, False]), np.zeros(3, dtype=np.bool_), np.zeros(0, dtype=np.bool_), False, 2)
    assert both.tolist() == [7, (0 << 2) | 1]  # the walk's key kept, then box 0 (big) meets box 1 only
    no_slice_assignment(big)
    # the single ray query's insertion of a hit into its rows (2-D: a row assignment was one too)
    from collideworld.queries import QueryIndex

    w = World(2, backend="compiled")
    w.add_many([Circle(0.5), Box((0.4, 0.3))] * 3, np.array([[2.0 * i, 0.05 * i] for i in range(6)]))
    index = QueryIndex(w._store, "compiled")
    index.refresh()
    ray = njit(cq._ray_one.py_func)
    count = ray(index.arrays, -5.0, 0.2, 0.0, 1.0, 0.0, 0.0, np.inf, 1, 1, 1e-300, False)
    rows = index.work[1][cq.RAY_ROWS][:count]
    # by hand: the line y = 0.2 crosses every body (centres at height 0.05 i <= 0.25, reach >= 0.3), nearest first
    assert count == 6 and rows[:, 0].tolist() == [0, 1, 2, 3, 4, 5], rows
    no_slice_assignment(ray)


def test_packed_tables_reach_the_kernels_read_only() -> None:
    # numba types a read-only array apart from a writable one: a single call's cached pack (read-only,
    # it is shared) and a batch's or a query's joined table once compiled GJK's shape_distance,
    # piece_distance and transform_shape twice each in warm_up() (issue 27). Every table is read-only.
    from collideworld.collide import ShapeArray
    from collideworld.proximity import PieceTable, _batch, _pack

    circle, box = Circle(0.5), Box((0.4, 0.3))
    poses = np.zeros((2, 2)), np.zeros(2)
    both = [("poses_a", poses, "a"), ("poses_b", poses, "b")]
    tables = {
        "single pair": _pack((circle, box)),
        "batch of shapes": _batch([circle, box], [box, box], both, "numpy")[4],
        "batch of a ShapeArray": _batch(ShapeArray.boxes(np.full((2, 2), 0.5)), [box, circle], both, "numpy")[4],
    }
    table = PieceTable()
    table.index_of(circle)
    tables["query table"] = table.with_query(box)[0]
    for name, packed in tables.items():
        writable = [field for field, arr in zip(packed._fields, packed, strict=True) if arr.flags.writeable]
        assert not writable, f"{name}: writable {writable}"
