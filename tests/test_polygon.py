"""Polygon validation, cleaning and convex decomposition.

Expected values come from shapely (validity, areas, unions, convex hulls) or
from hand calculation, never from collideworld itself.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from collideworld.errors import InvalidShapeError
from collideworld.geometry import polygon as poly
from collideworld.shapes import Polygon

from .strategies import skyline_polygons, star_polygon_arrays

# ---------------------------------------------------------------- fixtures

SQUARE = [(0, 0), (1, 0), (1, 1), (0, 1)]
L_SHAPE = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]
U_SHAPE = [(0, 0), (3, 0), (3, 3), (2, 3), (2, 1), (1, 1), (1, 3), (0, 3)]
COMB = [(0, 0), (7, 0), (7, 3)] + [
    p for x in (6, 4, 2) for p in [(x, 3), (x, 1), (x - 1, 1), (x - 1, 3)]
] + [(0, 3)]
ARROW = [(0, 0), (2, 1), (4, 0), (2, 4)]  # concave at (2, 1)
STAR5 = [
    (np.cos(a) * r, np.sin(a) * r)
    for i, a in enumerate(np.linspace(np.pi / 2, np.pi / 2 + 2 * np.pi, 10, endpoint=False))
    for r in [1.0 if i % 2 == 0 else 0.4]
]

NAMED = {"square": SQUARE, "L": L_SHAPE, "U": U_SHAPE, "comb": COMB, "arrow": ARROW, "star": STAR5}


def _rng_star(rng: np.random.Generator, k: int) -> np.ndarray:
    theta = np.sort(rng.uniform(0, 2 * np.pi, k))
    # keep every angular gap below pi (and distinct) so the polygon is simple
    theta = np.linspace(0, 2 * np.pi, k, endpoint=False) * 0.5 + theta * 0.5
    theta = np.sort(theta)
    r = rng.uniform(0.1, 3.0, k)
    return rng.uniform(-20, 20, 2) + r[:, None] * np.c_[np.cos(theta), np.sin(theta)]


def _random_simple_polygons(seed: int, count: int) -> list[np.ndarray]:
    """Star polygons and concave hulls of random point clouds (valid per shapely)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        if rng.random() < 0.5:
            out.append(_rng_star(rng, int(rng.integers(3, 40))))
        else:
            pts = rng.normal(size=(int(rng.integers(8, 60)), 2)) * rng.uniform(0.5, 10)
            hull = shapely.concave_hull(shapely.MultiPoint(pts), ratio=float(rng.uniform(0.05, 0.5)))
            if hull.geom_type != "Polygon" or not hull.is_valid or hull.area == 0:
                continue
            out.append(np.asarray(hull.exterior.coords)[:-1])
    return out


def _variants(v: np.ndarray, rng: np.random.Generator) -> list[np.ndarray]:
    """Same region written differently: winding, start, closing copy, repeats, collinear points."""
    v = np.asarray(v, dtype=float)
    out = [v, v[::-1], np.roll(v, int(rng.integers(len(v))), axis=0), np.vstack([v, v[:1]])]
    rep = np.repeat(v, rng.integers(1, 3, len(v)), axis=0)
    out.append(rep)
    # midpoints (exactly on the edge) of some edges
    mids = []
    for i in range(len(v)):
        mids.append(v[i])
        if rng.random() < 0.5:
            mids.append(0.5 * (v[i] + v[(i + 1) % len(v)]))
    out.append(np.array(mids))
    return out


def _shp(v) -> shapely.Polygon:
    return shapely.Polygon(np.asarray(v, dtype=float))


def _ccw_turns(v: np.ndarray) -> np.ndarray:
    """Cross product of consecutive edges at each vertex (> 0: left turn)."""
    e = np.roll(v, -1, axis=0) - v
    e_prev = np.roll(e, 1, axis=0)
    return e_prev[:, 0] * e[:, 1] - e_prev[:, 1] * e[:, 0]


def _check_decomposition(v, parts) -> None:
    """Every property the narrowphase relies on, judged by shapely."""
    target = _shp(v)
    area = target.area
    scale = max(1.0, area)
    assert len(parts) >= 1
    for p in parts:
        assert p.dtype == np.float64 and p.ndim == 2 and p.shape[1] == 2 and len(p) >= 3
        ring = shapely.LinearRing(p)
        assert ring.is_ccw, p
        sp = shapely.Polygon(p)
        assert sp.is_valid, p
        # convex: the piece fills its own hull
        assert sp.convex_hull.area == pytest.approx(sp.area, rel=1e-9, abs=1e-12 * scale)
        # clean: no repeated or collinear vertices (hand: every turn strictly left)
        assert np.all(_ccw_turns(p) > 0), p
    total = sum(shapely.Polygon(p).area for p in parts)
    assert total == pytest.approx(area, rel=1e-9)
    union = shapely.union_all([shapely.Polygon(p) for p in parts])
    assert union.symmetric_difference(target).area <= 1e-9 * scale
    for p, q in itertools.combinations(parts, 2):
        assert shapely.Polygon(p).intersection(shapely.Polygon(q)).area <= 1e-9 * scale


# ---------------------------------------------------------------- signed_area


def test_signed_area_hand_values():
    assert poly.signed_area(SQUARE) == 1.0
    assert poly.signed_area(SQUARE[::-1]) == -1.0
    assert poly.signed_area(L_SHAPE) == 3.0
    assert poly.signed_area([(0, 0), (4, 0), (0, 3)]) == 6.0
    assert poly.signed_area([(0, 0), (1, 0)]) == 0.0


def test_signed_area_matches_shapely():
    for v in _random_simple_polygons(1, 40):
        s = _shp(v)
        expected = s.area if shapely.LinearRing(v).is_ccw else -s.area
        assert poly.signed_area(v) == pytest.approx(expected, rel=1e-12)


def test_signed_area_far_from_origin():
    v = np.array(SQUARE, dtype=float) * 1e-3 + 1e6
    assert poly.signed_area(v) == pytest.approx(1e-6, rel=1e-6)


# ---------------------------------------------------------------- polygon_problem


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_shapes_are_valid(name):
    v = np.array(NAMED[name], dtype=float)
    assert _shp(v).is_valid
    rng = np.random.default_rng(0)
    for w in _variants(v, rng):
        assert poly.polygon_problem(w) is None, w


def test_random_simple_polygons_are_valid():
    rng = np.random.default_rng(2)
    for v in _random_simple_polygons(3, 60):
        assert _shp(v).is_valid
        for w in _variants(v, rng):
            assert poly.polygon_problem(w) is None


@pytest.mark.parametrize(
    "vertices, fragment",
    [
        ([(0, 0), (1, 1), (1, 0), (0, 1)], "edges 0-1 and 2-3 intersect"),  # bow-tie
        ([(0, 0), (1, 0), (0, 0)], "fewer than 3 distinct vertices (got 2)"),
        ([(0, 0), (1, 1)], "fewer than 3 distinct vertices (got 2)"),
        ([(0, 0)], "fewer than 3 distinct vertices (got 1)"),
        ([], "fewer than 3 distinct vertices (got 0)"),
        ([(0, 0), (1, 0), (2, 0)], "zero area"),
        ([(0, 0), (1, 1), (2, 2), (3, 3), (1, 1)], "zero area"),
        # vertex 3 touches the non-adjacent edge 0-1
        ([(0, 0), (2, 0), (2, 2), (1, 0), (0, 2)], "edges 0-1 and"),
        # two vertices coincide (the boundary pinches at a point)
        ([(0, 0), (4, 0), (2, 2), (4, 4), (0, 4), (2, 2)], "intersect"),
        # the boundary runs back along itself
        ([(0, 0), (2, 0), (2, 1), (3, 1), (1, 1), (0, 1)], "overlap"),
        # collinear overlap of non-adjacent edges
        ([(0, 0), (3, 0), (3, 1), (2, 1), (2, 0), (1, 0), (1, 1), (0, 1)], "intersect"),
        # pentagram: turns the same way everywhere, winds twice
        ([(np.cos(a), np.sin(a)) for a in np.arange(5) * 4 * np.pi / 5], "intersect"),
    ],
)
def test_invalid_polygons_are_named(vertices, fragment):
    v = np.array(vertices, dtype=float).reshape(-1, 2)
    if len(v) >= 3:
        assert not _shp(v).is_valid
    problem = poly.polygon_problem(v)
    assert problem is not None and fragment in problem, problem


def test_problem_indices_refer_to_the_input():
    # The repeated vertex 2 keeps its number: edge 0-1 runs (0,0)->(1,1) and
    # edge 3-4 runs (1,0)->(0,1); they cross at (0.5, 0.5), nothing else does.
    v = [(0, 0), (1, 1), (1, 1), (1, 0), (0, 1)]
    assert poly.polygon_problem(v) == "edges 0-1 and 3-4 intersect"


def test_problem_names_crossing_edges_by_hand():
    # A square whose closing path pokes through its right side (edge 1-2,
    # x = 4) twice: edge 3-4 at y = 2.4 and edge 4-5 at y = 1.8.
    v = [(0, 0), (4, 0), (4, 4), (0, 4), (5, 2), (0, 1)]
    assert not _shp(v).is_valid
    assert poly.polygon_problem(v) in ("edges 1-2 and 3-4 intersect", "edges 1-2 and 4-5 intersect")


def test_random_vertex_orders_match_shapely():
    """Random permutations of random points: often self-intersecting."""
    rng = np.random.default_rng(4)
    checked = {True: 0, False: 0}
    for _ in range(400):
        k = int(rng.integers(3, 9))
        v = rng.uniform(-10, 10, (k, 2))
        expected = bool(_shp(v).is_valid)
        assert (poly.polygon_problem(v) is None) == expected, v
        checked[expected] += 1
    assert min(checked.values()) > 20


def test_grid_polygons_match_shapely():
    """Small integer polygons: touching and collinear cases are exact here."""
    rng = np.random.default_rng(5)
    checked = {True: 0, False: 0}
    for _ in range(600):
        k = int(rng.integers(3, 8))
        v = rng.integers(0, 4, (k, 2)).astype(float)
        if len(np.unique(v, axis=0)) < 3:
            assert "fewer than 3 distinct" in poly.polygon_problem(v)
            continue
        s = _shp(v)
        # shapely accepts consecutive repeats too; both need a positive area
        expected = bool(s.is_valid) and s.area > 0
        assert (poly.polygon_problem(v) is None) == expected, (v.tolist(), poly.polygon_problem(v))
        checked[expected] += 1
    assert min(checked.values()) > 20


def test_large_polygon_is_fast_enough():
    rng = np.random.default_rng(6)
    v = _rng_star(rng, 2000)
    assert poly.polygon_problem(v) is None
    bad = v.copy()
    bad[[500, 1500]] = bad[[1500, 500]]
    assert not _shp(bad).is_valid
    assert "intersect" in poly.polygon_problem(bad)


@settings(max_examples=60, deadline=None)
@given(star_polygon_arrays(), st.integers(-1000, 1000), st.integers(-1000, 1000))
def test_validity_translation_invariance(v, dx, dy):
    assert poly.polygon_problem(v) is None
    assert poly.polygon_problem(v + [dx, dy]) is None
    assert poly.polygon_problem((v + [dx, dy])[::-1]) is None


@settings(max_examples=60, deadline=None)
@given(skyline_polygons())
def test_skyline_polygons_are_valid(v):
    assert _shp(v).is_valid
    assert poly.polygon_problem(v) is None


# ---------------------------------------------------------------- clean_polygon


def test_clean_polygon_hand_example():
    v = [(0, 0), (0, 1), (0, 1), (1, 1), (1, 0.5), (1, 0), (0.5, 0), (0, 0)]
    out = poly.clean_polygon(v)
    assert out.dtype == np.float64
    # counter-clockwise, the four corners only, starting anywhere
    corners = {(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)}
    assert {tuple(p) for p in out} == corners and len(out) == 4
    assert shapely.LinearRing(out).is_ccw


def test_clean_polygon_returns_a_new_array():
    v = np.array(SQUARE, dtype=float)
    out = poly.clean_polygon(v)
    out[0] = 99
    assert v[0, 0] == 0


def test_clean_polygon_preserves_region():
    rng = np.random.default_rng(7)
    polys = _random_simple_polygons(8, 30) + [np.array(p, dtype=float) for p in NAMED.values()]
    for v in polys:
        target = _shp(v)
        corners = {tuple(p) for p in v}
        for w in _variants(v, rng):
            out = poly.clean_polygon(w)
            assert shapely.LinearRing(out).is_ccw
            assert np.all(_ccw_turns(out) != 0)
            assert {tuple(p) for p in out} <= corners | {tuple(p) for p in w}
            assert _shp(out).symmetric_difference(target).area <= 1e-9 * max(1, target.area)


@settings(max_examples=60, deadline=None)
@given(skyline_polygons())
def test_clean_skyline_keeps_only_corners(v):
    out = poly.clean_polygon(v)
    # orthogonal outline: every remaining vertex is a right angle
    e = np.roll(out, -1, axis=0) - out
    e_prev = np.roll(e, 1, axis=0)
    assert np.all(np.sum(e * e_prev, axis=1) == 0)
    assert np.all(_ccw_turns(out) != 0)
    assert _shp(out).symmetric_difference(_shp(v)).area == 0
    assert shapely.LinearRing(out).is_ccw


# ---------------------------------------------------------------- is_convex


@pytest.mark.parametrize("name, convex", [("square", True), ("L", False), ("U", False), ("comb", False),
                                          ("arrow", False), ("star", False)])
def test_is_convex_named(name, convex):
    assert poly.is_convex(poly.clean_polygon(NAMED[name])) is convex


def test_is_convex_matches_hull_area():
    for v in _random_simple_polygons(9, 60):
        s = _shp(v)
        expected = s.convex_hull.area == pytest.approx(s.area, rel=1e-12)
        assert poly.is_convex(poly.clean_polygon(v)) == expected


def test_is_convex_regular_polygons_with_collinear_points():
    for k in (3, 4, 7, 50):
        th = np.linspace(0, 2 * np.pi, k, endpoint=False)
        v = np.c_[np.cos(th), np.sin(th)]
        assert poly.is_convex(poly.clean_polygon(v))
        assert poly.is_convex(poly.clean_polygon(v[::-1]))


# ---------------------------------------------------------------- convex_decomposition


@pytest.mark.parametrize("name", sorted(NAMED))
def test_decomposition_named(name):
    v = poly.clean_polygon(NAMED[name])
    parts = poly.convex_decomposition(v)
    _check_decomposition(NAMED[name], parts)
    if name == "square":
        assert len(parts) == 1


def test_decomposition_few_pieces_by_hand():
    # one reflex vertex: two pieces suffice, and Hertel-Mehlhorn finds two
    assert len(poly.convex_decomposition(poly.clean_polygon(L_SHAPE))) == 2
    assert len(poly.convex_decomposition(poly.clean_polygon(ARROW))) == 2
    # comb: 6 reflex vertices
    assert len(poly.convex_decomposition(poly.clean_polygon(COMB))) <= 2 * 6 + 1


def test_decomposition_random_polygons():
    for v in _random_simple_polygons(10, 60):
        clean = poly.clean_polygon(v)
        parts = poly.convex_decomposition(clean)
        _check_decomposition(v, parts)
        # Hertel-Mehlhorn bound: each kept diagonal is needed at a reflex
        # vertex, each reflex vertex needs at most two
        reflex = int(np.sum(_ccw_turns(clean) < 0))
        assert len(parts) <= 2 * reflex + 1
        # pieces only use the polygon's own corners
        corners = {tuple(p) for p in clean}
        assert all(tuple(p) in corners for part in parts for p in part)


def test_decomposition_of_convex_polygon_is_itself():
    th = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    v = np.c_[np.cos(th), np.sin(th)] * 3 + 7
    parts = poly.convex_decomposition(v)
    assert len(parts) == 1
    assert _shp(parts[0]).symmetric_difference(_shp(v)).area < 1e-12


def test_decomposition_with_collinear_diagonal_endpoints():
    # Merging across diagonals leaves straight vertices (e.g. on the comb's
    # baseline); the pieces must come back without them.
    v = poly.clean_polygon([(0, 0), (4, 0), (4, 2), (3, 2), (3, 1), (1, 1), (1, 2), (0, 2)])
    _check_decomposition(v, poly.convex_decomposition(v))


@settings(max_examples=80, deadline=None)
@given(star_polygon_arrays(max_vertices=30))
def test_decomposition_area_equals_polygon_area(v):
    parts = poly.convex_decomposition(poly.clean_polygon(v))
    _check_decomposition(v, parts)


@settings(max_examples=40, deadline=None)
@given(skyline_polygons())
def test_decomposition_of_skylines(v):
    parts = poly.convex_decomposition(poly.clean_polygon(v))
    _check_decomposition(v, parts)


def test_ear_clipping_fallback_triangulates():
    for v in _random_simple_polygons(11, 20) + [np.array(p, dtype=float) for p in NAMED.values()]:
        clean = poly.clean_polygon(v)
        tri = poly._ear_clip(clean)
        assert tri.shape == (len(clean) - 2, 3)
        pieces = [clean[t] for t in tri]
        assert all(shapely.LinearRing(p).is_ccw for p in pieces)
        union = shapely.union_all([shapely.Polygon(p) for p in pieces])
        assert union.symmetric_difference(_shp(v)).area <= 1e-9 * max(1.0, _shp(v).area)
        assert sum(shapely.Polygon(p).area for p in pieces) == pytest.approx(_shp(v).area, rel=1e-9)


def test_decomposition_survives_a_lossy_triangulator(monkeypatch):
    import mapbox_earcut

    real = mapbox_earcut.triangulate_float64

    def drop_last_triangle(verts, rings):
        return real(verts, rings)[:-3]

    monkeypatch.setattr(mapbox_earcut, "triangulate_float64", drop_last_triangle)
    for name in ("U", "comb", "star"):
        parts = poly.convex_decomposition(poly.clean_polygon(NAMED[name]))
        _check_decomposition(NAMED[name], parts)


# ---------------------------------------------------------------- shapes.Polygon


@pytest.mark.parametrize("name", sorted(NAMED))
def test_shape_polygon_builds(name):
    verts = NAMED[name]
    shape = Polygon(verts)
    assert shape.is_convex is (name == "square")
    if shape.is_convex:
        assert len(shape.parts) == 1
    _check_decomposition(verts, list(shape.parts))
    for p in shape.parts:
        assert not p.flags.writeable


def test_shape_polygon_accepts_clockwise_repeats_and_collinear():
    shape = Polygon([(0, 0), (0, 2), (0, 2), (2, 2), (2, 1), (2, 0), (0, 0)])
    assert shape.is_convex and len(shape.parts) == 1
    assert {tuple(p) for p in shape.parts[0]} == {(0, 0), (2, 0), (2, 2), (0, 2)}
    assert shapely.LinearRing(shape.parts[0]).is_ccw


@pytest.mark.parametrize(
    "vertices, fragment",
    [
        ([(0, 0), (1, 1), (1, 0), (0, 1)], "intersect"),
        ([(0, 0), (1, 0), (1, 0)], "fewer than 3 distinct vertices (got 2)"),
        ([(0, 0), (1, 0), (2, 0)], "zero area"),
        ([(0, 0), (2, 0), (2, 2), (1, 0), (0, 2)], "intersect"),
    ],
)
def test_shape_polygon_rejects_invalid(vertices, fragment):
    with pytest.raises(InvalidShapeError, match="Polygon is not valid") as info:
        Polygon(vertices)
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)
