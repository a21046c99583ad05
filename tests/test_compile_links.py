"""Big compiled routines are reached from few compiled entry points (issue 27: compile less).

numba links the LLVM code of every jitted callee into each jitted caller
and optimises it again there, so a large routine called from N compiled
functions is compiled ~N times on a cold cache. The capsule and hull tests
of the queries (``compiled.queries._capsule_hull_test``: the capsule row
kernels, GJK, EPA) were reached from the batch kernel ``_overlap``, its
two entry points, and the single point query's ``_probe_test`` ->
``_probe_body`` -> ``_point_one``: ~25 s of CPU of ``warm_up()``'s ~135 s
(``python -m benchmarks.cold_start --profile``, benchmarks/results/cold_start.md).

The check walks the names each jitted function's Python source calls
(its code object's globals, and attributes of the modules it names), as
numba resolves them, so it needs no compiling and fails as soon as a
caller links the routine again.
"""

from __future__ import annotations

import importlib
import types
from typing import Any

import pytest
from numba.core.registry import CPUDispatcher

from collideworld.compiled import queries as cq


def _names(code: types.CodeType) -> set[str]:
    found = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found |= _names(const)
    return found


def _reachable(entry: Any) -> set[Any]:
    """Every jitted function ``entry`` calls, directly or through other jitted functions (itself included)."""
    seen: set[Any] = set()
    todo = [entry]
    while todo:
        disp = todo.pop()
        if disp in seen:
            continue
        seen.add(disp)
        fn = disp.py_func
        names = _names(fn.__code__)
        for name in names:
            value = fn.__globals__.get(name)
            candidates = [value]
            if isinstance(value, types.ModuleType):
                candidates = [getattr(value, attr, None) for attr in names]
            todo.extend(c for c in candidates if isinstance(c, CPUDispatcher) and c not in seen)
    return seen


def test_reachable_sees_calls_through_aliases_and_modules() -> None:
    # the helper itself: _capsule_hull_test calls the hull rows through an alias (_ball_hull = contact_hull.ball_rows)
    from collideworld.geometry.compiled import contact_hull

    got = _reachable(cq._capsule_hull_test)
    assert contact_hull.ball_rows in got and cq._hull_planes in got


def test_capsule_and_hull_tests_linked_into_one_query_entry_point() -> None:
    """The query kernels leave capsules and hulls as "other" pairs; only settle_rows' kernel tests them."""
    for entry in (cq._overlap, cq._boxes_q, cq._shapes_q, cq._probe_test, cq._probe_body, cq._point_one):
        assert cq._capsule_hull_test not in _reachable(entry), entry.py_func.__name__
    assert cq._capsule_hull_test in _reachable(cq._settle_rows)


def test_warm_up_prepares_capsule_and_hull_queries_with_every_shape_only(monkeypatch: Any) -> None:
    """warm_up() leaves settle_rows (the capsule rows, GJK, EPA: ~25 s of CPU cold) to every_shape=True,
    as it leaves the step's kernels of these kinds; the full build runs it too."""
    import collideworld
    from collideworld.build import full_build_steps

    real = cq.settle_rows
    rows_seen: list[int] = []

    def spy(*args: Any) -> Any:
        rows_seen.append(len(args[-1]))
        return real(*args)

    monkeypatch.setattr(cq, "settle_rows", spy)
    collideworld.warm_up(dims=(2,))
    assert rows_seen == []
    collideworld.warm_up(dims=(2,), every_shape=True)
    assert rows_seen and min(rows_seen) > 0, rows_seen  # called on capsules and segments the probes touch
    assert "2D capsule and hull queries" in [label for label, _ in full_build_steps(dims=(2,))]


def test_capsule_and_support_rows_linked_into_one_contact_entry_point() -> None:
    """The pair calls' contact loop leaves capsule/segment and cylinder/cone rows flagged; only
    ``_contact_many_rest`` runs their routines (the capsule rows: ~15 s, the support rows' GJK/EPA: ~15 s of
    ``warm_up()``'s CPU cold, compiled once per entry point that links them)."""
    from collideworld.geometry.compiled import contact_pair as cp
    from collideworld.geometry.compiled.support_slots import support_pair_rows

    for entry in (cp._contact_many, cp._contact_table_pair, cp._contact_many_posed, cp._poses_of):
        reached = _reachable(entry)
        assert cp._capsule_rows not in reached, entry.py_func.__name__
        assert support_pair_rows not in reached, entry.py_func.__name__
    assert {cp._capsule_rows, support_pair_rows} <= _reachable(cp._contact_many_rest)


def _compiled_calls(monkeypatch: Any, names: tuple[str, ...]) -> list[str]:
    """Record the calls of contact_pair's compiled entries ``names``, through the dispatcher or through the
    entry points ``pair_entry`` looks up (which it then forgets, and collide() its pair tables)."""
    from collideworld.geometry.compiled import contact_pair as cp

    calls: list[str] = []

    def recording(name: str, fn: Any) -> Any:
        def call(*args: Any) -> Any:
            calls.append(name)
            return fn(*args)
        return call

    for name in names:
        real = getattr(cp, name)
        spy = recording(name, real)
        spy.overloads = real.overloads  # type: ignore[attr-defined]
        spy.typeof_pyval = real.typeof_pyval  # type: ignore[attr-defined]
        spy.__name__ = name
        monkeypatch.setattr(cp, name, spy)
    real_entry = cp._entry_point

    def entry_point(disp: Any, args: tuple[Any, ...]) -> Any:
        fn = real_entry(disp, args)
        return recording(disp.__name__, fn) if disp.__name__ in names else fn

    monkeypatch.setattr(cp, "_entry_point", entry_point)
    cp._PAIR_ENTRIES.clear()
    importlib.import_module("collideworld.collide")._PAIR_TABLES.clear()
    return calls


@pytest.mark.parametrize("dim", [2, 3])
def test_pair_calls_make_one_compiled_call_each(monkeypatch: Any, dim: int) -> None:
    """collide() and collide_many() make one compiled contact call per call, capsules included (contact4's
    split made a second call for a capsule row, +5 us a collide()); a capsule table runs the rest entry."""
    from collideworld import Box, Capsule, Circle, Sphere, collide, collide_many

    zero = (0.0,) * dim
    turn: Any = 0.0 if dim == 2 else (1.0, 0.0, 0.0, 0.0)
    ball = Circle(0.5) if dim == 2 else Sphere(0.5)
    box = Box((1.0,) * dim)
    capsule = Capsule(zero, (1.0,) + zero[1:], 0.5)
    near = ((0.5,) + zero[1:], turn)
    collide(ball, (zero, turn), box, near, backend="compiled")  # compiled (or loaded), entries looked up
    collide(capsule, (zero, turn), box, near, backend="compiled")
    calls = _compiled_calls(monkeypatch, ("_contact_table_pair", "_contact_many_rest", "_contact_many_posed",
                                          "_poses_of"))
    for shape, name in ((ball, "_contact_table_pair"), (capsule, "_contact_many_rest")):
        calls.clear()
        assert collide(shape, (zero, turn), box, near, backend="compiled") is not None
        first = list(calls)
        calls.clear()
        assert collide(shape, (zero, turn), box, near, backend="compiled") is not None
        # the first call looks the entry point up (one call through the dispatcher), then calls it
        assert first == [name, name] and calls == [name], (first, calls)
    calls.clear()
    far = (9.0,) + zero[1:]
    res = collide_many([capsule, capsule], ([zero, zero], [turn, turn]), [box, box], ([near[0], far], [turn, turn]),
                       backend="compiled")
    assert res.hit.tolist() == [True, False]
    assert calls == ["_poses_of", "_contact_many_rest"], calls
    calls.clear()
    collide_many([ball, ball], ([zero, zero], [turn, turn]), [box, box], ([near[0], near[0]], [turn, turn]),
                 backend="compiled")
    assert calls == ["_contact_many_posed"], calls


def test_warm_up_prepares_capsule_contacts_with_every_shape_only(monkeypatch: Any) -> None:
    """warm_up() calls the pair calls' capsule/support entry point only with every_shape=True; the full
    build's pair step calls it too (collide() on capsules)."""
    import collideworld
    from collideworld.build import full_build_steps
    from collideworld.geometry.compiled import contact_pair as cp

    calls = _compiled_calls(monkeypatch, ("_contact_many_rest",))
    collideworld.warm_up(dims=(2,))
    assert calls == []
    collideworld.warm_up(dims=(2,), every_shape=True)
    assert calls
    calls.clear()
    cp._PAIR_ENTRIES.clear()
    importlib.import_module("collideworld.collide")._PAIR_TABLES.clear()
    dict(full_build_steps(dims=(2,)))["2D collide, distance, time of impact"]()
    assert calls


def test_cylinder_cone_and_rounded_tests_linked_into_their_own_entry_points() -> None:
    """Issue 29: the query kernels leave cylinders, cones and rounded shapes as "other" pairs and rays;
    compiled.query_round's two entry points (support mappings, EPA, GJK) settle and cast them."""
    from collideworld.compiled import query_round as qr
    from collideworld.geometry import gjk
    from collideworld.geometry import support_convex as sc
    from collideworld.spatial import compiled as sp

    heavy = (qr._curved, qr._rounded, qr._ray_rounded, qr._ray_revolution, sc.support_contact_scratch,
             gjk.gjk_closest)
    entries = [cq._overlap, cq._boxes_q, cq._shapes_q, cq._probe_test, cq._probe_body, cq._point_one, cq._ray_one]
    if hasattr(sp, "_first_hits"):
        entries.append(sp._first_hits)
    for entry in entries:
        reach = _reachable(entry)
        for fn in heavy:
            assert fn not in reach, (entry.py_func.__name__, fn.py_func.__name__)
    # settle_rows (capsules and hulls: GJK already) does not link the support mappings either
    assert qr._curved not in _reachable(cq._settle_rows)
    assert sc.support_contact_scratch not in _reachable(cq._settle_rows)
    settle = _reachable(qr._settle_round_rows)
    assert qr._curved in settle and qr._rounded in settle and sc.support_contact_scratch in settle
    cast = _reachable(qr._cast_round_rows)
    assert qr._ray_rounded in cast and qr._ray_revolution in cast and gjk.gjk_closest in cast
    assert sc.support_contact_scratch not in cast
