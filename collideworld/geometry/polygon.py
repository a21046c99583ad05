"""Simple polygons: validation, cleaning and convex decomposition.

These run once per :class:`~collideworld.shapes.Polygon`, at construction,
so they favour robustness and clear error messages over speed; the
narrowphase only ever sees the convex pieces they produce.

Vertices are ``(K, 2)`` float arrays. A polygon is *simple* when its boundary
does not touch itself: consecutive repeated vertices (zero-length edges, the
closing copy of the first vertex included) and collinear vertices are
allowed, anything else that makes two edges share a point is not. "Share a
point" follows the library's touching rule (see
:mod:`collideworld.geometry.tolerance`): edges closer than
``touch_tolerance(scale)``, with ``scale`` the largest absolute coordinate,
touch.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .predicates import point_segment_distance, segments_intersect
from .tolerance import touch_tolerance

__all__ = [
    "clean_polygon",
    "convex_decomposition",
    "is_convex",
    "polygon_problem",
    "signed_area",
]

# Candidate edge pairs tested per vectorised block in polygon_problem: bounds
# memory to a few MB per temporary while keeping the Python loop short.
_PAIR_BLOCK = 1 << 18


def _as_vertices(vertices: ArrayLike) -> NDArray[np.float64]:
    return np.asarray(vertices, dtype=np.float64).reshape(-1, 2)


def _tol(v: NDArray[np.float64]) -> float:
    return float(touch_tolerance(np.max(np.abs(v), initial=0.0)))


def _cross2(u: NDArray[np.float64], v: NDArray[np.float64]) -> NDArray[np.float64]:
    return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]


def signed_area(vertices: ArrayLike) -> float:
    """Signed area by the shoelace formula: positive for counter-clockwise.

    Parameters
    ----------
    vertices : array_like, shape (K, 2)

    Returns
    -------
    float

    Examples
    --------
    >>> signed_area([(0, 0), (1, 0), (0, 1)])
    0.5
    """
    v = _as_vertices(vertices)
    if len(v) < 3:
        return 0.0
    # Relative to the first vertex: the products stay small for a polygon
    # far from the origin, so the sum loses less to cancellation.
    d = v - v[0]
    return 0.5 * float(np.sum(_cross2(d, np.roll(d, -1, axis=0))))


def _edges(v: NDArray[np.float64], tol: float) -> NDArray[np.intp]:
    """Indices k of the edges v[k] -> v[k+1] that are longer than ``tol``.

    Shorter edges are repeated vertices: they carry no direction, and their
    two neighbours, though not adjacent in the input, meet at them.
    """
    length = np.linalg.norm(np.roll(v, -1, axis=0) - v, axis=1)
    return np.flatnonzero(length > tol)


def _edge_name(k: int, n: int) -> str:
    return f"{k}-{(k + 1) % n}"


def _first_crossing(a: NDArray[np.float64], b: NDArray[np.float64], tol: float) -> tuple[int, int] | None:
    """Some pair (i, j), i < j, of non-adjacent edges ``a[i]-b[i]`` and ``a[j]-b[j]`` that touch.

    Sort-and-sweep on x: only pairs whose x-intervals (grown by ``tol``)
    overlap are candidates, found per edge with one ``searchsorted`` and
    expanded without a Python loop over pairs; the candidates are then
    filtered on y and given the full segment test, in blocks of at most
    ``_PAIR_BLOCK`` pairs. Worst case O(K^2) pairs (every edge spanning the
    same x range, e.g. a comb lying on its side); typical polygons with
    short edges give O(K log K).
    """
    m = len(a)
    lo = np.minimum(a, b) - tol
    hi = np.maximum(a, b) + tol
    order = np.argsort(lo[:, 0], kind="stable")
    lo_x = lo[order, 0]
    # sorted positions q > p with lo_x[q] <= hi_x of p are the x-overlaps of p
    end = np.searchsorted(lo_x, hi[order, 0], side="right")
    counts = np.maximum(end - np.arange(m) - 1, 0)
    cum = np.concatenate([[0], np.cumsum(counts)])
    best: tuple[int, int] | None = None
    start = 0
    while start < m:
        # as many sweep positions as fit in one block (at least one)
        stop = max(start + 1, int(np.searchsorted(cum, cum[start] + _PAIR_BLOCK, side="right")) - 1)
        stop = min(stop, m)
        c = counts[start:stop]
        total = int(c.sum())
        start_next = stop
        if total:
            p = np.repeat(np.arange(start, stop), c)
            offset = np.arange(total) - np.repeat(cum[start:stop] - cum[start], c)
            q = p + 1 + offset
            i, j = order[p], order[q]
            i, j = np.minimum(i, j), np.maximum(i, j)
            keep = (lo[i, 1] <= hi[j, 1]) & (lo[j, 1] <= hi[i, 1])
            # adjacent edges share a vertex; polygon_problem checks them apart
            keep &= (j - i != 1) & ~((i == 0) & (j == m - 1))
            i, j = i[keep], j[keep]
            hit = segments_intersect(a[i], b[i], a[j], b[j], tol=tol)
            if np.any(hit):
                # the lowest-numbered pair of this block, for a stable message
                h = np.lexsort((j[hit], i[hit]))[0]
                best = (int(i[hit][h]), int(j[hit][h]))
                break
        start = start_next
    return best


def polygon_problem(vertices: ArrayLike) -> str | None:
    """What, if anything, stops ``vertices`` from being a simple polygon.

    Parameters
    ----------
    vertices : array_like, shape (K, 2)
        Finite coordinates, either winding. Edge ``k`` joins vertex ``k`` to
        vertex ``k + 1`` (and the last to the first).

    Returns
    -------
    str or None
        None for a valid simple polygon; otherwise a short message naming
        the offending vertex or edge indices (in the input's numbering), e.g.
        ``"fewer than 3 distinct vertices (got 2)"``, ``"zero area (all
        vertices are collinear)"``, ``"edges 0-1 and 2-3 intersect"``,
        ``"edges 1-2 and 2-3 overlap (the boundary doubles back at vertex
        2)"``.

    Notes
    -----
    Edge pairs come from a sort-and-sweep on x, vectorised: close to
    O(K log K) for polygons with short edges, O(K^2) at worst; a few
    thousand vertices take well under a second. Runs once per shape.

    Examples
    --------
    >>> polygon_problem([(0, 0), (1, 0), (1, 1), (0, 1)]) is None
    True
    >>> polygon_problem([(0, 0), (1, 1), (1, 0), (0, 1)])
    'edges 0-1 and 2-3 intersect'
    """
    v = _as_vertices(vertices)
    n = len(v)
    if not np.all(np.isfinite(v)):
        bad = int(np.flatnonzero(~np.all(np.isfinite(v), axis=1))[0])
        return f"vertex {bad} is not finite"
    distinct = len(np.unique(v, axis=0)) if n else 0
    if distinct < 3:
        return f"fewer than 3 distinct vertices (got {distinct})"
    tol = _tol(v)
    edges = _edges(v, tol)
    m = len(edges)
    if m < 3:
        # Distinct in floating point, but closer than the touching tolerance.
        return f"fewer than 3 distinct vertices (got {m} after merging vertices closer than {tol:.3g})"

    a = v[edges]
    b = v[(edges + 1) % n]

    # All collinear: the direction from the first vertex to the farthest one
    # gives the line; every vertex within tol of it means no interior.
    far = a[np.argmax(np.linalg.norm(a - a[0], axis=1))]
    direction = far - a[0]
    off_line = np.abs(_cross2(direction, a - a[0])) / np.linalg.norm(direction)
    if np.all(off_line <= tol):
        return "zero area (all vertices are collinear)"

    # Adjacent edges share a vertex by construction; they only overlap when
    # the boundary folds back on itself, which leaves one edge's far end on
    # the other edge.
    nxt = np.roll(np.arange(m), -1)
    fold = (point_segment_distance(a, a[nxt], b[nxt]) <= tol) | (
        point_segment_distance(b[nxt], a, b) <= tol
    )
    if np.any(fold):
        i = int(np.flatnonzero(fold)[0])
        k1, k2 = int(edges[i]), int(edges[nxt[i]])
        return (
            f"edges {_edge_name(k1, n)} and {_edge_name(k2, n)} overlap "
            f"(the boundary doubles back at vertex {k2})"
        )

    crossing = _first_crossing(a, b, tol)
    if crossing is not None:
        k1, k2 = int(edges[crossing[0]]), int(edges[crossing[1]])
        return f"edges {_edge_name(k1, n)} and {_edge_name(k2, n)} intersect"

    # A simple polygon that is not all collinear has positive area; this
    # only catches slivers thinner than the touching tolerance.
    perimeter = float(np.sum(np.linalg.norm(b - a, axis=1)))
    if abs(signed_area(v)) <= tol * perimeter:
        return "zero area"
    return None


def _drop_collinear(v: NDArray[np.float64], tol: float) -> NDArray[np.float64]:
    """Remove vertices within ``tol`` of the straight line through their neighbours.

    Only straight-through vertices go (the neighbours on opposite sides); a
    vertex where the boundary turns back is a defect, not a redundancy.
    A single stack pass, then the seam: O(K), and each removal is judged
    against the vertices that survive, so a long straight run cannot drift.
    """

    def straight(p: NDArray[np.float64], q: NDArray[np.float64], r: NDArray[np.float64]) -> bool:
        chord = r - p
        length = float(np.hypot(chord[0], chord[1]))
        if length == 0.0:
            return False
        off = abs(float(_cross2(chord, q - p))) / length
        return off <= tol and float(np.dot(q - p, r - q)) > 0.0

    out: list[NDArray[np.float64]] = []
    for q in v:
        out.append(q)
        while len(out) >= 3 and straight(out[-3], out[-2], out[-1]):
            del out[-2]
    changed = True
    while changed and len(out) >= 3:
        changed = False
        if straight(out[-2], out[-1], out[0]):
            del out[-1]
            changed = True
        elif straight(out[-1], out[0], out[1]):
            del out[0]
            changed = True
    return np.array(out, dtype=np.float64).reshape(-1, 2)


def clean_polygon(vertices: ArrayLike) -> NDArray[np.float64]:
    """Counter-clockwise copy without repeated or collinear vertices.

    Parameters
    ----------
    vertices : array_like, shape (K, 2)
        A valid simple polygon (see :func:`polygon_problem`), either winding.

    Returns
    -------
    ndarray of float64, shape (k, 2)
        A new array, ``k <= K``: the same region, counter-clockwise, every
        vertex a real corner. Vertices closer than the touching tolerance
        to their predecessor count as repeats.

    Examples
    --------
    >>> clean_polygon([(0, 0), (0, 1), (1, 1), (1, 0.5), (1, 0), (0, 0)]).tolist()
    [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0]]
    """
    v: NDArray[np.float64] = _as_vertices(vertices).copy()
    if len(v) == 0:
        return v
    tol = _tol(v)
    v = v[_edges(v, tol)] if len(v) > 1 else v
    if signed_area(v) < 0:
        v = v[::-1].copy()
    return _drop_collinear(v, tol)


def is_convex(vertices: ArrayLike) -> bool:
    """Whether a clean counter-clockwise simple polygon is convex.

    Parameters
    ----------
    vertices : array_like, shape (K, 2)
        Output of :func:`clean_polygon`.

    Returns
    -------
    bool
        True when no vertex is reflex by more than the touching tolerance
        (distance from the chord of its neighbours).

    Notes
    -----
    Only the local turns are checked: that suffices because the polygon is
    simple, which rules out a star that turns left everywhere but winds
    twice.

    Examples
    --------
    >>> is_convex([(0, 0), (1, 0), (1, 1), (0, 1)])
    True
    >>> is_convex([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)])  # an L: reflex at (1, 1)
    False
    """
    v = _as_vertices(vertices)
    if len(v) < 3:
        return False
    prev, nxt = np.roll(v, 1, axis=0), np.roll(v, -1, axis=0)
    turn = _cross2(nxt - prev, v - prev)  # > 0 where v is right of prev->nxt: reflex for CCW
    chord = np.linalg.norm(nxt - prev, axis=1)
    return bool(np.all(turn <= _tol(v) * chord))


def _ear_clip(v: NDArray[np.float64]) -> NDArray[np.intp]:
    """Counter-clockwise triangles (T, 3) of a clean CCW simple polygon, by plain ear clipping.

    The fallback for :func:`_triangulate`: O(K^2) ear tests of O(K) each
    (vectorised), so slow for big polygons but dependent on nothing but the
    two-ears theorem (Meisters 1975: every simple polygon with more than
    three vertices has two non-overlapping ears). An ear is a strictly
    convex vertex whose triangle holds no other remaining vertex, boundary
    included; with no repeated or collinear vertices such an ear always
    exists, so the loop ends.
    """
    idx = list(range(len(v)))
    out: list[tuple[int, int, int]] = []
    k = 0
    misses = 0
    while len(idx) > 3:
        m = len(idx)
        i0, i1, i2 = idx[(k - 1) % m], idx[k % m], idx[(k + 1) % m]
        a, b, c = v[i0], v[i1], v[i2]
        ear = float(_cross2(b - a, c - b)) > 0.0
        if ear:
            others = v[[j for j in idx if j not in (i0, i1, i2)]]
            # closed triangle test: a vertex on the new diagonal blocks it too
            inside = (
                (_cross2(b - a, others - a) >= 0)
                & (_cross2(c - b, others - b) >= 0)
                & (_cross2(a - c, others - c) >= 0)
            )
            ear = not np.any(inside)
        if ear:
            out.append((i0, i1, i2))
            del idx[k % m]
            misses = 0
        else:
            k += 1
            misses += 1
            if misses > m:  # no ear: the input was not a clean simple polygon
                raise ValueError("ear clipping found no ear; is the polygon simple and clean?")
    out.append((idx[0], idx[1], idx[2]))
    return np.array(out, dtype=np.intp)


def _triangulate(v: NDArray[np.float64]) -> NDArray[np.intp]:
    """Counter-clockwise triangles (T, 3) of indices into a clean CCW polygon ``v``.

    mapbox_earcut is fast (z-order hashed ear tests) but drops degenerate
    triangles and, on inputs it considers self-touching, may cut corners.
    Any triangulation of a K-gon by its own vertices has K - 2 triangles of
    positive area summing to the polygon's area; anything else falls back to
    :func:`_ear_clip`.
    """
    import mapbox_earcut

    rings = np.array([len(v)], dtype=np.uint32)
    tri = mapbox_earcut.triangulate_float64(v, rings).astype(np.intp).reshape(-1, 3)
    # earcut's output winding is an implementation detail; normalise it.
    p, q, r = v[tri[:, 0]], v[tri[:, 1]], v[tri[:, 2]]
    area2 = _cross2(q - p, r - p)
    tri[area2 < 0] = tri[area2 < 0][:, ::-1]
    total = 0.5 * float(np.sum(np.abs(area2)))
    expected = signed_area(v)
    if len(tri) != len(v) - 2 or np.any(area2 == 0) or abs(total - expected) > 1e-9 * expected:
        return _ear_clip(v)
    return tri


def convex_decomposition(vertices: ArrayLike) -> list[NDArray[np.float64]]:
    """Split a clean counter-clockwise simple polygon into convex pieces.

    Parameters
    ----------
    vertices : array_like, shape (K, 2)
        Output of :func:`clean_polygon` for a valid polygon.

    Returns
    -------
    list of ndarray of float64, each shape (k_i, 2)
        Convex pieces, counter-clockwise, without repeated or collinear
        vertices, whose union is the polygon and whose interiors are
        disjoint. A convex input comes back as one piece.

    Notes
    -----
    Hertel and Mehlhorn (1983), as described in O'Rourke, *Computational
    Geometry in C*, §2.5: triangulate, then walk the diagonals and delete
    each one whose removal leaves both of its endpoints convex in the merged
    piece. The result has at most four times the minimum number of convex
    pieces, in O(K) merges after an O(K^2)-worst-case triangulation:

    1. triangulate by ear clipping (``mapbox_earcut``, checked, with a
       plain ear-clipping fallback);
    2. record, for each directed edge, the piece on its left;
    3. for each diagonal, longest first (long diagonals tend to separate
       the big pieces worth keeping whole): if the angles at both endpoints
       stay <= 180 degrees in the union of the two pieces, merge them;
    4. drop vertices left straight by a merge.

    Examples
    --------
    An L of area 2 * 2 - 1 = 3 needs at least two convex pieces:

    >>> pieces = convex_decomposition([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)])
    >>> len(pieces) >= 2, all(is_convex(p) for p in pieces), sum(signed_area(p) for p in pieces)
    (True, True, 3.0)
    """
    v = _as_vertices(vertices)
    n = len(v)
    if n < 3:
        return []
    tri = _triangulate(v)
    pieces: dict[int, list[int]] = {t: [int(x) for x in row] for t, row in enumerate(tri)}
    owner: dict[tuple[int, int], int] = {}
    for t, ring in pieces.items():
        for s in range(3):
            owner[(ring[s], ring[(s + 1) % 3])] = t
    # Diagonals are the inner edges: seen in both directions.
    diagonals = [(i, j) for (i, j) in owner if i < j and (j, i) in owner]
    diagonals.sort(key=lambda e: -float(np.hypot(*(v[e[1]] - v[e[0]]))))

    def convex_at(prev: int, here: int, nxt: int) -> bool:
        return float(_cross2(v[here] - v[prev], v[nxt] - v[here])) >= 0.0

    for i, j in diagonals:
        left, right = owner[(i, j)], owner[(j, i)]
        p1, p2 = pieces[left], pieces[right]
        # p1 runs ... i, j ...; rotate it to j ... i, and p2 to i ... j.
        s = p1.index(j)
        r1 = p1[s:] + p1[:s]
        s = p2.index(i)
        r2 = p2[s:] + p2[:s]
        # Merged ring: j ... i (from p1), then p2's vertices strictly between i and j.
        if not (convex_at(r1[-2], i, r2[1]) and convex_at(r2[-2], j, r1[1])):
            continue
        merged = r1 + r2[1:-1]
        del owner[(i, j)], owner[(j, i)]
        del pieces[right]
        pieces[left] = merged
        for s in range(len(r2) - 1):
            owner[(r2[s], r2[s + 1])] = left

    tol = _tol(v)
    out = []
    for ring in pieces.values():
        piece = _drop_collinear(v[ring], tol)
        if len(piece) >= 3:
            out.append(piece)
    return out
