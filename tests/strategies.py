"""Hypothesis strategies shared by the test suite.

Several areas add sections here; keep each section self-contained.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

# --- common ---------------------------------------------------------------

coords = st.floats(min_value=-50.0, max_value=50.0, allow_nan=False, allow_infinity=False)
sizes = st.floats(min_value=0.05, max_value=10.0, allow_nan=False, allow_infinity=False)
angles = st.floats(min_value=-np.pi, max_value=np.pi, allow_nan=False, allow_infinity=False)


@st.composite
def unit_quaternions(draw):
    """Uniform-ish random unit quaternions [w, x, y, z]."""
    v = draw(st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=4, max_size=4))
    q = np.array(v, dtype=float)
    n = np.linalg.norm(q)
    if n < 1e-3:
        q = np.array([1.0, 0.0, 0.0, 0.0])
    else:
        q /= n
    return q

# --- simple polygons (tests/test_polygon.py, tests/test_predicates.py) ------


@st.composite
def star_polygon_arrays(draw, min_vertices=3, max_vertices=24):
    """Simple star-shaped polygons (K, 2), counter-clockwise, around a random centre.

    Vertices sit at strictly increasing angles with every gap below pi, so
    the centre sees the whole boundary and the polygon is simple whatever
    the radii; random radii make it concave.
    """
    k = draw(st.integers(min_vertices, max_vertices))
    gaps = np.array(draw(st.lists(st.floats(0.2, 1.0), min_size=k, max_size=k)))
    theta = np.cumsum(gaps / gaps.sum() * 2 * np.pi)
    if np.max(np.diff(np.concatenate([[theta[-1] - 2 * np.pi], theta]))) >= 0.95 * np.pi:
        theta = np.linspace(0, 2 * np.pi, k, endpoint=False)
    radii = np.array(draw(st.lists(st.floats(0.2, 5.0), min_size=k, max_size=k)))
    centre = np.array([draw(coords), draw(coords)])
    return centre + radii[:, None] * np.c_[np.cos(theta), np.sin(theta)]


@st.composite
def skyline_polygons(draw, max_columns=10):
    """Orthogonal x-monotone polygons (K, 2) on an integer grid, counter-clockwise.

    Each unit column spans a random integer interval (bottom, top) that
    overlaps its neighbour's, so the outline is one simple polygon; equal
    neighbouring heights leave collinear vertices.
    """
    n = draw(st.integers(1, max_columns))
    bottom, top = [], []
    for i in range(n):
        if i == 0:
            lo = draw(st.integers(-5, 5))
        else:
            lo = draw(st.integers(bottom[-1] - 3, top[-1] - 1))
        lo_min = lo + 1 if i == 0 else max(lo + 1, bottom[-1] + 1)
        hi = draw(st.integers(lo_min, lo_min + 5))
        bottom.append(lo)
        top.append(hi)
    verts = []
    for i in range(n):  # bottom outline, left to right
        verts += [(i, bottom[i]), (i + 1, bottom[i])]
    for i in reversed(range(n)):  # top outline, right to left
        verts += [(i + 1, top[i]), (i, top[i])]
    return np.array(verts, dtype=float)


# --- 2D contact kernels (tests/test_contact_2d.py) ----------------------------

near_coords = st.floats(min_value=-6.0, max_value=6.0, allow_nan=False, allow_infinity=False)
"""Centres drawn close together, so that pairs of shapes often overlap."""


@st.composite
def balls(draw, dim=2, centres=near_coords):
    """A ball as ``(center (dim,), radius)``."""
    return np.array([draw(centres) for _ in range(dim)]), draw(sizes)


@st.composite
def boxes_2d(draw, centres=near_coords):
    """An oriented rectangle as ``(center (2,), angle, half (2,))``."""
    return np.array([draw(centres), draw(centres)]), draw(angles), np.array([draw(sizes), draw(sizes)])


@st.composite
def convex_polygons_2d(draw, max_vertices=6, centres=near_coords):
    """Counter-clockwise convex polygon, vertices (max_vertices, 2).

    Points on a rotated ellipse at increasing angles (so the polygon is
    convex); a polygon with fewer vertices is padded to ``max_vertices`` by
    repeating its last vertex, as the kernels expect.
    """
    k = draw(st.integers(3, max_vertices))
    gaps = np.array(draw(st.lists(st.floats(0.2, 1.0), min_size=k, max_size=k)))
    theta = draw(angles) + np.concatenate([[0.0], np.cumsum(gaps[:-1])]) / gaps.sum() * 2 * np.pi
    ax, ay = draw(sizes), draw(sizes)
    tilt = draw(angles)
    x, y = ax * np.cos(theta), ay * np.sin(theta)
    c, s = np.cos(tilt), np.sin(tilt)
    centre = np.array([draw(centres), draw(centres)])
    verts = centre + np.c_[c * x - s * y, s * x + c * y]
    return np.concatenate([verts, np.repeat(verts[-1:], max_vertices - k, axis=0)])


# --- world: shapes as plain data, for both collideworld and the oracle ---

@st.composite
def star_polygons(draw, scale=1.0):
    """Simple polygons, star-shaped about the origin: convex or concave, either winding."""
    n = draw(st.integers(3, 9))
    gaps = draw(st.lists(st.floats(0.3, 1.0), min_size=n, max_size=n))
    ang = np.cumsum(gaps)
    ang = ang / ang[-1] * 2 * np.pi  # strictly increasing, every gap < pi for n >= 3 ... mostly
    if np.max(np.diff(np.r_[0.0, ang])) >= np.pi * 0.95:
        ang = np.linspace(0, 2 * np.pi, n, endpoint=False) + 0.1
    radii = draw(st.lists(st.floats(0.4, 1.0), min_size=n, max_size=n))
    pts = [(float(r * scale * np.cos(a)), float(r * scale * np.sin(a))) for r, a in zip(radii, ang, strict=True)]
    if draw(st.booleans()):
        pts.reverse()
    return pts


@st.composite
def shape_data(draw, dim):
    """(kind, params) for a finite shape of the given dimension."""
    size = draw(st.floats(0.2, 2.0))
    if dim == 2:
        kind = draw(st.sampled_from(["circle", "box", "polygon"]))
        if kind == "circle":
            return ("circle", size)
        if kind == "box":
            return ("box", (size, draw(st.floats(0.2, 2.0))))
        return ("polygon", draw(star_polygons(scale=size * 1.5)))
    kind = draw(st.sampled_from(["sphere", "box"]))
    if kind == "sphere":
        return ("sphere", size)
    return ("box", (size, draw(st.floats(0.2, 2.0)), draw(st.floats(0.2, 2.0))))


def make_shape(kind, params):
    """The collideworld shape for (kind, params) from :func:`shape_data`."""
    import collideworld as cw

    return {
        "circle": lambda: cw.Circle(params),
        "sphere": lambda: cw.Sphere(params),
        "box": lambda: cw.Box(tuple(params)),
        "polygon": lambda: cw.Polygon(params),
        "halfplane": lambda: cw.HalfPlane(*params),
        "plane": lambda: cw.Plane(*params),
    }[kind]()


world_coords = st.floats(-6.0, 6.0, allow_nan=False)
categories = st.sampled_from([1, 1, 1, 2, 3])
masks = st.sampled_from([0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 1, 2, 0])


# --- 3D boxes (tests/test_contact_box_3d.py, test_culling.py, test_contact_sphere_3d.py)


@st.composite
def rotations_3d(draw):
    """Rotation matrices (3, 3) from random unit quaternions, via scipy (not collideworld)."""
    from scipy.spatial.transform import Rotation

    w, x, y, z = draw(unit_quaternions())
    return Rotation.from_quat([x, y, z, w]).as_matrix()


@st.composite
def box_pairs_3d(draw, reach=4.0):
    """Two oriented boxes ``(center, rotation, half)`` whose centres are within ``reach``
    per coordinate, so that hits, touches and misses all occur."""
    centre_a = np.array([draw(coords) for _ in range(3)])
    offset = np.array([draw(st.floats(-reach, reach, allow_nan=False)) for _ in range(3)])
    half_a = np.array([draw(sizes) for _ in range(3)]) * 0.3
    half_b = np.array([draw(sizes) for _ in range(3)]) * 0.3
    return (centre_a, draw(rotations_3d()), half_a), (centre_a + offset, draw(rotations_3d()), half_b)


# --- broadphase ------------------------------------------------------------
# Box corners on a coarse grid, so exact touching and equal endpoints are
# common; a few off-grid values and -0.0 (which must equal +0.0) mixed in.

grid_coords = st.integers(-6, 6).map(lambda i: i / 2)
aabb_coords = st.one_of(grid_coords, grid_coords, st.just(-0.0), st.floats(-3.0, 3.0))
aabb_widths = st.one_of(st.sampled_from([0.0, 0.5, 1.0, 2.0]), st.floats(0.0, 3.0))


@st.composite
def grid_aabbs(draw, dim):
    """An axis-aligned box ``(lo, hi)`` as two tuples of ``dim`` floats.

    A zero width keeps ``hi = lo`` exactly (so ``-0.0`` survives).
    """
    lo = tuple(draw(aabb_coords) for _ in range(dim))
    hi = tuple(x + w if w else x for x, w in zip(lo, (draw(aabb_widths) for _ in range(dim)), strict=True))
    return lo, hi


# --- near-touching convex pairs (tests/test_collide_near_touching.py) ------------------------
# Two posed convex shapes placed to touch at one point P with a known separating
# direction u (u is an outward normal of a at P and b lies beyond the plane through
# P normal to u), then b moved by g * u, g = +-1e-15 .. 1e-6: apart by exactly g for
# g > 0 (before rounding), pushed together for g < 0. Built with numpy and math only.

NEAR_KINDS_2D = ["circle", "box", "convex", "halfplane"]
NEAR_KINDS_3D = ["sphere", "box", "plane"]
near_gaps = st.builds(lambda e, s: s * 10.0 ** e, st.floats(-15.0, -6.0), st.sampled_from([-1.0, 1.0]))


def rotation_of(dim, rotation):
    """Rotation matrix of an angle (2D) or a unit quaternion [w, x, y, z] (3D), by the textbook formulas."""
    if dim == 2:
        c, s = np.cos(rotation), np.sin(rotation)
        return np.array([[c, -s], [s, c]])
    w, x, y, z = rotation
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def _unit(v):
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def ccw(points):
    """The polygon's vertices (K, 2), counter-clockwise."""
    p = np.asarray(points, dtype=float)
    area = np.sum(p[:, 0] * np.roll(p[:, 1], -1) - np.roll(p[:, 0], -1) * p[:, 1])
    return p if area > 0 else p[::-1]


def polytope_world(item):
    """World vertices of a posed box or convex polygon, as float arrays (K, D)."""
    dim = len(item["position"])
    r = rotation_of(dim, item["rotation"])
    if item["kind"] == "box":
        h = np.asarray(item["params"], dtype=float)
        if dim == 2:
            signs = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
        else:
            signs = np.array([[x, y, z] for x in (-1.0, 1.0) for y in (-1.0, 1.0) for z in (-1.0, 1.0)])
        return item["position"] + (signs * h) @ r.T
    return item["position"] + ccw(item["params"]) @ r.T


def _faces(item):
    """(outward unit normal, vertices of that face) of a posed box or polygon."""
    dim = len(item["position"])
    v = polytope_world(item)
    if dim == 2:
        out = []
        for k in range(len(v)):
            e = v[(k + 1) % len(v)] - v[k]
            out.append((_unit([e[1], -e[0]]), v[[k, (k + 1) % len(v)]]))
        return out
    r = rotation_of(3, item["rotation"])
    h = np.asarray(item["params"], dtype=float)
    local = v - item["position"]
    out = []
    for i in range(3):
        for s in (-1.0, 1.0):
            on = np.isclose((local @ r)[:, i], s * h[i])
            out.append((s * r[:, i], v[on]))
    return out


def _support(item, u, rng, core=False):
    """A point of the posed convex shape that is furthest along u (a random one on a face).

    ``core``: for a ball, its centre, so that the ball's centre lands near the
    other shape's boundary (a deep overlap, where the normal is the hard part).
    """
    if item["kind"] in ("circle", "sphere"):
        return item["position"] + (0.0 if core else item["params"]) * _unit(u)
    v = polytope_world(item)
    along = v @ u
    top = v[along >= along.max() - 1e-12 * max(1.0, np.abs(along).max())]
    w = rng.dirichlet(np.ones(len(top)))
    return w @ top


@st.composite
def near_touching_pairs(draw, dim, ka, kb):
    """Two posed convex shapes of kinds ka, kb (plain dicts) within +-1e-15 .. 1e-6 of touching.

    (Or, half the time, with a ball's centre that near the other shape, a
    deep overlap by about the radius.)

    Each dict has ``kind``, ``params``, ``position`` and ``rotation`` (None
    for a half-space, whose ``params`` are ``(normal, offset)``). Half the
    time the separating direction is a face normal of one of the shapes
    (face contacts, with nearly parallel edges), otherwise a random one.
    """
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    g = draw(near_gaps)

    def make(kind):
        if kind in ("halfplane", "plane"):
            return {"kind": kind, "params": None, "position": None, "rotation": None}
        position = rng.uniform(-20, 20, dim)
        rotation = rng.uniform(-np.pi, np.pi) if dim == 2 else _unit(rng.normal(size=4))
        if kind in ("circle", "sphere"):
            params = float(rng.uniform(0.1, 5.0))
        elif kind == "box":
            params = tuple(float(x) for x in rng.uniform(0.05, 5.0, dim))
        else:
            k = int(rng.integers(3, 8))
            theta = np.sort(rng.uniform(0, 2 * np.pi, k))
            if np.min(np.diff(np.r_[theta, theta[0] + 2 * np.pi])) < 0.1:
                theta = np.linspace(0, 2 * np.pi, k, endpoint=False) + theta[0]
            axes = rng.uniform(0.2, 5.0, 2)
            params = [(float(axes[0] * np.cos(t)), float(axes[1] * np.sin(t))) for t in theta]
        return {"kind": kind, "params": params, "position": position, "rotation": rotation}

    a, b = make(ka), make(kb)
    core = draw(st.booleans())
    u = _unit(rng.normal(size=dim))
    choice = rng.random()
    if a["position"] is not None and a["kind"] in ("box", "convex") and choice < 0.25:
        faces = _faces(a)
        u = faces[rng.integers(len(faces))][0]
    elif b["position"] is not None and b["kind"] in ("box", "convex") and choice < 0.5:
        faces = _faces(b)
        u = -faces[rng.integers(len(faces))][0]
    if a["position"] is None:
        # a half-space {p: u.p <= offset}: b's lowest point along u is g beyond its boundary
        a["params"] = (tuple(u), float(u @ _support(b, -u, rng, core)) - g)
    elif b["position"] is None:
        # a half-space {p: -u.p <= offset}: a's highest point along u is g short of its boundary
        b["params"] = (tuple(-u), float(-u @ _support(a, u, rng, core)) - g)
    else:
        b["position"] = b["position"] + (_support(a, u, rng, core) - _support(b, -u, rng, core)) + g * u
    return a, b
