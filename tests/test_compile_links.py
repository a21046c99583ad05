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

import types
from typing import Any

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
    ``_contact_rest`` runs their routines (the capsule rows: ~15 s, the support rows' GJK/EPA: ~15 s of
    ``warm_up()``'s CPU cold, compiled once per entry point that links them)."""
    from collideworld.geometry.compiled import contact_pair as cp
    from collideworld.geometry.compiled.support_slots import support_pair_rows

    for entry in (cp._contact_many, cp._contact_table_pair, cp._contact_many_posed):
        reached = _reachable(entry)
        assert cp._capsule_rows not in reached, entry.py_func.__name__
        assert support_pair_rows not in reached, entry.py_func.__name__
    assert {cp._capsule_rows, support_pair_rows} <= _reachable(cp._contact_rest)


def test_warm_up_prepares_capsule_contacts_with_every_shape_only(monkeypatch: Any) -> None:
    """warm_up() calls the pair calls' capsule/support entry point only with every_shape=True; the full
    build's pair step calls it too (collide() on capsules)."""
    import collideworld
    from collideworld.build import full_build_steps
    from collideworld.geometry.compiled import contact_pair as cp

    real = cp._contact_rest
    calls: list[int] = []

    def spy(*args: Any) -> Any:
        calls.append(args[0])
        return real(*args)

    monkeypatch.setattr(cp, "_contact_rest", spy)
    collideworld.warm_up(dims=(2,))
    assert calls == []
    collideworld.warm_up(dims=(2,), every_shape=True)
    assert calls == [2]
    calls.clear()
    dict(full_build_steps(dims=(2,)))["2D collide, distance, time of impact"]()
    assert 2 in calls
