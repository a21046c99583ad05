"""Draw the world of a scenario file: one frame to an image, or an animation.

Needs matplotlib, the ``render`` extra (``pip install 'collideworld[render]'``);
it is imported only when a picture is drawn, so the rest of collideworld
works without it.

What is drawn, to scale (equal axes), with a legend under the picture:

* every finite body: red when it is in contact after the step, dark grey
  when static, light grey otherwise;
* an arrow along the normal of each contact between two finite bodies
  (from ``a`` to ``b``, at the middle of their centres), 1.5 times the
  smaller body's half-size long (within 1 % and 12 % of the view), so arrows
  never dwarf the bodies they point between.
  A contact with a half-plane or plane has no arrow: its normal is the
  plane's, which the hatching shows;
* when the world computes contact points (``World(manifolds=True)``; a
  replayed file whose expectations carry ``"points"``), each point as a
  small yellow dot ringed in black, drawn over the bodies and arrows
  (in 3D, in both views);
* a half-plane (2D) or a plane's section (3D) as its boundary line with a
  hatched band on the solid side (red when something touches it);
* body ids as labels, placed greedily from the largest body down; a label
  that would overlap one already drawn tries four nearby spots and is
  dropped if all are taken; ids the font cannot draw are escaped
  (:func:`label_text`);
* with ``aabbs=True``, each finite body's axis-aligned bounding box, dashed;
* 3D: two views side by side, top (x-y, looking down z) and side (x-z,
  looking along y). Spheres and boxes are drawn as their exact silhouettes;
  a plane is drawn as its section through the middle of the scene (the
  view's missing coordinate at the centre of the bodies' bounds).

The view fits the bodies drawn (all, or those named by ``ids``), or the
rectangle ``crop``; ``zoom`` then magnifies it about its centre.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .errors import InvalidArgumentError, MissingExtraError
from .world import set_drawer

__all__ = ["render_frame", "render_animation", "RenderInfo", "label_text"]

_INSTALL_HINT = "install the render extra: pip install 'collideworld[render]'"

_COLOR_BODY = "#b8c2cc"
_COLOR_STATIC = "#52606d"
_COLOR_CONTACT = "#e12d39"
_COLOR_PLANE = "#7b93db"
_COLOR_AABB = "#3ebd93"
_COLOR_POINT = "#ffd43b"  # contact points: yellow, ringed in black, readable on red and grey
_POINT_SIZE = 24.0  # marker area in points^2 (about 5 points across)
_LABEL_SIZE = 7.0
#: Most images in one animation (each frame's bodies are kept until the file is written).
MAX_ANIMATION_FRAMES = 2_000


@dataclass(frozen=True)
class RenderInfo:
    """What :func:`render_frame` or :func:`render_animation` drew.

    Attributes
    ----------
    output : str
        The file written.
    frame : int
        1-based number of the (last) frame drawn.
    bodies : int
        Bodies alive after that frame, half-planes and planes included.
    contacts : int
        Contacts that frame's step returned.
    images : int
        Frames drawn: 1 for a picture, more for an animation.
    first_frame : int
        1-based number of the first frame drawn.

    Examples
    --------
    The ``collideworld render`` command reports one like this:

    >>> info = RenderInfo(output="frame12.png", frame=12, bodies=40, contacts=3)
    >>> print(f"wrote {info.output} (frame {info.frame}, {info.bodies} bodies, {info.contacts} contacts)")
    wrote frame12.png (frame 12, 40 bodies, 3 contacts)
    """

    output: str
    frame: int
    bodies: int
    contacts: int
    images: int = 1
    first_frame: int = 0

    def __post_init__(self) -> None:
        if self.first_frame == 0:
            object.__setattr__(self, "first_frame", self.frame)


#: Longest label drawn; longer ids are cut with an ellipsis.
_LABEL_CHARS = 24
_drawable_chars: frozenset[int] | None = None


def _drawable() -> frozenset[int]:
    """Code points the default font has a glyph for (computed once)."""
    global _drawable_chars
    if _drawable_chars is None:
        from matplotlib import font_manager

        font = font_manager.get_font(font_manager.findfont(font_manager.FontProperties()))
        _drawable_chars = frozenset(font.get_charmap())
    return _drawable_chars


def label_text(body_id: Any) -> str:
    r"""A body id as text matplotlib can draw.

    A character the font has no glyph for (a lone surrogate, a control
    character, a script the font lacks) is written as its Python escape
    (``\ud800``); ``$`` is escaped so it never starts mathtext; an id
    longer than 24 characters is cut with an ellipsis.

    Parameters
    ----------
    body_id : str or int

    Returns
    -------
    str

    Examples
    --------
    >>> label_text("\ud800"), label_text("cost $5"), label_text(7)
    ('\\ud800', 'cost \\$5', '7')
    """
    text = str(body_id)
    if len(text) > _LABEL_CHARS:
        text = text[: _LABEL_CHARS - 1] + "\u2026"
    drawable = _drawable()
    out = []
    for ch in text:
        if ch == "$":
            out.append("\\$")
        elif ord(ch) in drawable and ch.isprintable():
            out.append(ch)
        else:
            out.append(ascii(ch)[1:-1])
    return "".join(out)


def _matplotlib() -> Any:
    try:
        # A bare Figure needs no GUI backend and leaves pyplot's state alone.
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingExtraError(f"rendering needs matplotlib: {_INSTALL_HINT}") from None
    return Figure


# --------------------------------------------------------------------------
# geometry of the drawing (plain numpy; nothing from the world's internals)
# --------------------------------------------------------------------------


def _check_suffix(output: str | os.PathLike[str], figure: Any, animation: bool) -> None:
    """An output suffix matplotlib can write (no suffix: its default, PNG)."""
    suffix = os.path.splitext(os.fspath(output))[1]
    if animation:
        if suffix.lower() != ".gif":
            raise InvalidArgumentError(
                f"cannot write {os.fspath(output)!r}: an animation is written as a .gif, got {suffix!r}")
        return
    supported = sorted(figure().canvas.get_supported_filetypes())
    if suffix and suffix[1:].lower() not in supported:
        raise InvalidArgumentError(
            f"cannot write {os.fspath(output)!r}: unsupported image format {suffix!r}; "
            f"supported: {', '.join('.' + s for s in supported)}")


def _rot2(angle: float | None) -> np.ndarray:
    a = float(angle or 0.0)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s], [s, c]])


def _rot3(quaternion: Any) -> np.ndarray:
    if quaternion is None:
        return np.eye(3)
    from .geometry.rotation import rotation_matrix_3d

    return rotation_matrix_3d(np.asarray(quaternion, dtype=float))


def _box_corners(half: Sequence[float]) -> NDArray[np.float64]:
    h = np.asarray(half, dtype=float)
    signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * len(h), indexing="ij")).reshape(len(h), -1).T
    corners: NDArray[np.float64] = signs * h
    return corners


def _hull(points: np.ndarray) -> np.ndarray:
    """Convex hull of 2D points, counter-clockwise (monotone chain)."""
    pts = sorted(set(map(tuple, np.round(points, 12))))
    if len(pts) <= 2:
        return np.array(pts)

    def cross(o: tuple[float, ...], a: tuple[float, ...], b: tuple[float, ...]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, ...]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[tuple[float, ...]] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])


@dataclass(frozen=True)
class _Part:
    """A compound's part posed in the world, drawn like a body of its own."""

    shape: Any
    position: Any
    angle: float | None
    quaternion: Any


def _parts(body: Any, dim: int) -> list[_Part]:
    """The parts of a compound body, each at the body's pose composed with its local pose."""
    pos = np.asarray(body.position, dtype=float)
    out = []
    for shape, local_pos, local_rot in body.shape.parts:
        if dim == 2:
            angle = float(body.angle or 0.0)
            out.append(_Part(shape, _rot2(angle) @ np.asarray(local_pos) + pos, angle + local_rot, None))
        else:
            q = np.asarray(body.quaternion if body.quaternion is not None else (1.0, 0.0, 0.0, 0.0), dtype=float)
            w1, x1, y1, z1 = q
            w2, x2, y2, z2 = local_rot
            qq = (w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                  w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2)
            out.append(_Part(shape, _rot3(q) @ np.asarray(local_pos) + pos, None, qq))
    return out


def _outline(body: Any, dim: int) -> tuple[str, Any]:
    """('circle', (center, radius)) or ('poly', world vertices (k, dim)) of a finite body.

    A compound's outline is its parts' points (for bounds; each part is drawn by itself).
    """
    shape = body.shape
    if shape.kind in ("compound", "chain"):
        pts = []
        for part in _parts(body, dim):
            kind, geom = _outline(part, dim)
            pts.append(np.array([geom[0] - geom[1], geom[0] + geom[1]]) if kind == "circle" else geom)
        return "poly", np.concatenate(pts)
    pos = np.asarray(body.position, dtype=float)
    if shape.kind in ("circle", "sphere"):
        return "circle", (pos, float(shape.radius))
    if shape.kind in ("capsule", "segment"):
        return "poly", _capsule_outline(body, dim)
    if shape.kind == "convex_hull":  # the view takes the hull of the projected vertices
        return "poly", _rounded(np.asarray(shape.vertices, dtype=float), shape.radius) @ _rot3(body.quaternion).T + pos
    if shape.kind in ("cylinder", "cone"):
        # the projection of a cylinder is the hull of its two rim circles' (a cone's: its base circle
        # and apex), so the view's hull of these points is its silhouette (to 64-gon accuracy)
        t = np.linspace(0.0, 2 * math.pi, 64, endpoint=False)
        r, h = float(shape.radius), float(shape.half_height)
        ring = np.stack([r * np.cos(t), r * np.sin(t), np.full_like(t, -h)], axis=1)
        top = ring + [0.0, 0.0, 2 * h] if shape.kind == "cylinder" else np.array([[0.0, 0.0, h]])
        return "poly", np.concatenate([ring, top]) @ _rot3(body.quaternion).T + pos
    if shape.kind in ("triangle_mesh", "heightfield"):
        # the view takes the hull of the projected vertices: a mesh or heightfield's silhouette
        return "poly", np.asarray(shape.vertices, dtype=float) @ _rot3(body.quaternion).T + pos
    if dim == 2:
        rot = _rot2(body.angle)
        local = (_box_corners(shape.half_extents)[[0, 2, 3, 1]] if shape.kind == "box"
                 else np.asarray(shape.vertices, dtype=float))
    else:
        rot = _rot3(body.quaternion)
        local = _box_corners(shape.half_extents)
    return "poly", _rounded(local, shape.radius, shape.kind == "box" or getattr(shape, "is_convex", True)) @ rot.T + pos


def _rounded(local: np.ndarray, radius: float, convex: bool = True) -> np.ndarray:
    """The outline of a rounded convex core: the hull of rings of ``radius`` about its vertices (in order in 2D).

    A concave rounded polygon is drawn by its core (the hull would fill its notches).
    """
    if not radius or not convex:
        return local
    t = np.linspace(0.0, 2 * math.pi, 24, endpoint=False)
    if local.shape[1] == 2:
        ring = np.stack([np.cos(t), np.sin(t)], axis=1) * radius
        pts = (local[:, None, :] + ring[None]).reshape(-1, 2)
        from scipy.spatial import ConvexHull as _Qhull
        return np.asarray(pts[_Qhull(pts).vertices])  # counter-clockwise
    c, sn, z = np.cos(t), np.sin(t), np.zeros_like(t)
    ball = np.concatenate([np.stack([c, sn, z], 1), np.stack([c, z, sn], 1), np.stack([z, c, sn], 1)]) * radius
    return np.asarray((local[:, None, :] + ball[None]).reshape(-1, 3))


def _capsule_outline(body: Any, dim: int) -> np.ndarray:
    """World points outlining a capsule: its stadium (2D, in order) or points on its end balls (3D).

    A segment (radius 0) is its two end points: drawn as a line.
    """
    shape = body.shape
    pos = np.asarray(body.position, dtype=float)
    rot = _rot2(body.angle) if dim == 2 else _rot3(body.quaternion)
    a = rot @ np.asarray(shape.p0, dtype=float) + pos
    b = rot @ np.asarray(shape.p1, dtype=float) + pos
    r = float(shape.radius)
    if r == 0.0:
        return np.array([a, b])
    if dim == 2:
        axis = b - a
        phi = math.atan2(axis[1], axis[0]) if np.any(axis) else 0.0
        half = np.linspace(-math.pi / 2, math.pi / 2, 17)
        ring_b = np.stack([np.cos(phi + half), np.sin(phi + half)], axis=1) * r + b
        ring_a = np.stack([np.cos(phi + math.pi + half), np.sin(phi + math.pi + half)], axis=1) * r + a
        return np.concatenate([ring_b, ring_a])
    t = np.linspace(0.0, 2 * math.pi, 24, endpoint=False)
    c, sn, z = np.cos(t), np.sin(t), np.zeros_like(t)
    circles = np.concatenate([np.stack([c, sn, z], 1), np.stack([c, z, sn], 1), np.stack([z, c, sn], 1)]) * r
    return np.concatenate([circles + a, circles + b])


def _bounds(kind: str, geom: Any) -> tuple[np.ndarray, np.ndarray]:
    if kind == "circle":
        c, r = geom
        return c - r, c + r
    return geom.min(axis=0), geom.max(axis=0)


def _clip_halfplane(rect_lo: np.ndarray, rect_hi: np.ndarray, normal: np.ndarray,
                    offset: float) -> np.ndarray:
    """The part of a rectangle where normal . p <= offset (Sutherland-Hodgman, one plane)."""
    x0, y0 = rect_lo
    x1, y1 = rect_hi
    poly = [np.array(p) for p in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
    out = []
    for i, p in enumerate(poly):
        q = poly[(i + 1) % len(poly)]
        dp, dq = normal @ p - offset, normal @ q - offset
        if dp <= 0:
            out.append(p)
        if (dp < 0 < dq) or (dq < 0 < dp):
            t = dp / (dp - dq)
            out.append(p + t * (q - p))
    return np.array(out) if out else np.empty((0, 2))


# --------------------------------------------------------------------------
# what one frame looks like: a snapshot, and the bodies to show
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Snapshot:
    """One frame's world, copied out of it (the world goes on changing)."""

    number: int
    line: int
    dim: int
    bodies: list[Any]
    pairs: list[tuple[Any, Any, NDArray[np.float64]]]  # (a, b, normal) per contact
    expect: frozenset[frozenset[Any]] | None
    points: NDArray[np.float64] | None = None  # every contact's used points, (m, D); None without manifolds

    @property
    def in_contact(self) -> set[Any]:
        return {a for a, _, _ in self.pairs} | {b for _, b, _ in self.pairs}


def _contact_points(contacts: Any, dim: int) -> NDArray[np.float64] | None:
    """The used contact points of all contacts, (m, D), or None when the contacts carry none."""
    if contacts is None or getattr(contacts, "points", None) is None:
        return None
    points = np.asarray(contacts.points, dtype=float).reshape(len(contacts), -1, dim)
    used = np.arange(points.shape[1])[None, :] < np.asarray(contacts.point_count)[:, None]
    out: NDArray[np.float64] = points[used]
    return out


def _snapshot(frame: Any, world: Any, contacts: Any) -> _Snapshot:
    normals = np.asarray(contacts.normal, dtype=float).reshape(len(contacts), world.dim)
    pairs = [(a, b, normals[k]) for k, (a, b) in
             enumerate(zip(contacts.a.tolist(), contacts.b.tolist(), strict=True))]
    return _Snapshot(frame.number, frame.line, world.dim, [world.body(i) for i in world.ids()], pairs,
                     frame.expect, _contact_points(contacts, world.dim))


def _select(bodies: list[Any], ids: Sequence[str] | None, frame: int) -> list[Any]:
    """The bodies named by ``ids`` (matched by their text: ``7`` names the id 7)."""
    if ids is None:
        return bodies
    by_text: dict[str, Any] = {}
    for body in bodies:
        by_text.setdefault(str(body.id), body)
    unknown = [i for i in ids if i not in by_text]
    if unknown:
        sample = ", ".join(repr(str(b.id)) for b in bodies[:8]) + (", ..." if len(bodies) > 8 else "")
        raise InvalidArgumentError(f"ids {unknown} are not alive after frame {frame} "
                                   f"(alive: {sample or 'none'})")
    return [by_text[i] for i in dict.fromkeys(ids)]


def _scene_bounds(bodies: Iterable[Any], dim: int) -> tuple[np.ndarray, np.ndarray]:
    los, his = [], []
    for body in bodies:
        if body.shape.is_infinite:
            continue
        blo, bhi = _bounds(*_outline(body, dim))
        los.append(blo)
        his.append(bhi)
    if not los:
        return np.full(dim, -5.0), np.full(dim, 5.0)
    lo, hi = np.min(los, axis=0), np.max(his, axis=0)
    size = float(np.max(hi - lo))
    margin = 0.08 * size if size > 0 else 1.0
    return lo - margin, hi + margin


def _view(lo: np.ndarray, hi: np.ndarray, crop: Sequence[float] | None, zoom: float
          ) -> tuple[np.ndarray, np.ndarray]:
    """The box shown: the bounds, or ``crop`` on x and y, magnified ``zoom`` times about its centre."""
    lo, hi = lo.astype(float).copy(), hi.astype(float).copy()
    if crop is not None:
        x0, y0, x1, y1 = (float(v) for v in crop)
        lo[0], hi[0] = x0, x1
        lo[1], hi[1] = y0, y1
    centre, half = 0.5 * (lo + hi), 0.5 * (hi - lo) / zoom
    return centre - half, centre + half


# --------------------------------------------------------------------------
# drawing one view
# --------------------------------------------------------------------------


def _plane_band(view_lo: np.ndarray, view_hi: np.ndarray, n: np.ndarray, d: float,
                width: float) -> tuple[np.ndarray, np.ndarray]:
    """The part of the view inside the solid within ``width`` of the boundary, and the
    boundary's segment in the view (``n`` unit length)."""
    band = _clip_polygon(_clip_halfplane(view_lo, view_hi, n, d), -n, -(d - width))
    edge = _clip_polygon(_clip_halfplane(view_lo, view_hi, n, d), -n, -d + 1e-12 * max(1.0, abs(d)))
    return band, edge


def _clip_polygon(poly: np.ndarray, normal: np.ndarray, offset: float) -> np.ndarray:
    """The part of a convex polygon where normal . p <= offset (Sutherland-Hodgman, one plane)."""
    out = []
    for k in range(len(poly)):
        p, q = poly[k], poly[(k + 1) % len(poly)]
        dp, dq = normal @ p - offset, normal @ q - offset
        if dp <= 0:
            out.append(p)
        if (dp < 0 < dq) or (dq < 0 < dp):
            out.append(p + dp / (dp - dq) * (q - p))
    return np.array(out) if out else np.empty((0, 2))


def _size(kind: str, geom: Any, i: int, j: int) -> float:
    """Half the smaller side of a body's box in this view: how big it looks."""
    blo, bhi = _bounds(kind, geom)
    return 0.5 * float(min(bhi[i] - blo[i], bhi[j] - blo[j]))


def _draw_view(ax: Any, bodies: list[Any], dim: int, axes: tuple[int, int], snap: _Snapshot,
               aabbs: bool, view_lo: np.ndarray, view_hi: np.ndarray,
               slice_at: float | None, missing_axis: int | None
               ) -> tuple[list[tuple[str, np.ndarray, float]], list[np.ndarray]]:
    """Draw bodies, planes, arrows and contact points; return label candidates (text, where, size)
    and each arrow's two ends, a contact point as both ends (labels keep off them)."""
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Circle as CirclePatch
    from matplotlib.patches import FancyArrow, Rectangle
    from matplotlib.patches import Polygon as PolyPatch

    i, j = axes
    in_contact = snap.in_contact
    span = float(max(np.max(view_hi - view_lo), 1e-300))
    patches: list[Any] = []
    faces: list[str] = []
    centers: dict[Any, tuple[np.ndarray, float]] = {}
    labels: list[tuple[str, np.ndarray, float]] = []
    arrows: list[np.ndarray] = []
    for body in bodies:
        shape = body.shape
        if shape.is_infinite:
            n = np.asarray(shape.normal, dtype=float)
            d = float(shape.offset)
            if dim == 3:
                assert missing_axis is not None and slice_at is not None
                d -= n[missing_axis] * slice_at  # section through the scene's middle
            n2 = n[[i, j]]
            length = float(np.linalg.norm(n2))
            if length < 1e-12:
                continue  # parallel to the view: the whole view is in or out; nothing to draw
            n2, d = n2 / length, d / length
            band, edge = _plane_band(view_lo, view_hi, n2, d, 0.035 * span)
            hit = body.id in in_contact
            color = _COLOR_CONTACT if hit else _COLOR_PLANE
            if len(band) >= 3:
                ax.add_patch(PolyPatch(band, closed=True, facecolor=_COLOR_PLANE, alpha=0.18,
                                       hatch="///", edgecolor=color, linewidth=0, zorder=1))
            on_line = edge[np.abs(edge @ n2 - d) <= 1e-9 * max(1.0, abs(d), span)] if len(edge) else edge
            if len(on_line) >= 2:
                ax.plot(on_line[:, 0], on_line[:, 1], color=color, linewidth=1.6 if hit else 1.1, zorder=1.5)
                mid = 0.5 * (on_line.min(axis=0) + on_line.max(axis=0)) - n2 * 0.05 * span
                labels.append((label_text(body.id), mid, 0.0))
            continue
        kind, geom = _outline(body, dim)
        if shape.kind in ("compound", "chain"):
            # every part its own patch, in the body's colour
            for part in _parts(body, dim):
                pk, pg = _outline(part, dim)
                if pk == "circle":
                    patches.append(CirclePatch((pg[0][i], pg[0][j]), pg[1]))
                else:
                    pts = pg[:, [i, j]]
                    patches.append(PolyPatch(_hull(pts) if dim == 3 else pts, closed=True))
                faces.append(_COLOR_CONTACT if body.id in in_contact
                             else _COLOR_STATIC if body.static else _COLOR_BODY)
            center = np.asarray(body.position, dtype=float)
            size = _size(kind, geom, i, j)
            centers[body.id] = (center, size)
            labels.append((label_text(body.id), center[[i, j]], size))
            if aabbs:
                blo, bhi = _bounds(kind, geom)
                ax.add_patch(Rectangle((blo[i], blo[j]), bhi[i] - blo[i], bhi[j] - blo[j], fill=False,
                                       edgecolor=_COLOR_AABB, linestyle="--", linewidth=0.8, zorder=4))
            continue
        if kind == "circle":
            c, r = geom
            patches.append(CirclePatch((c[i], c[j]), r))
            center = c
        else:
            pts = geom[:, [i, j]]
            patches.append(PolyPatch(_hull(pts) if dim == 3 else pts, closed=True))
            center = np.asarray(body.position, dtype=float)
        size = _size(kind, geom, i, j)
        centers[body.id] = (center, size)
        labels.append((label_text(body.id), center[[i, j]], size))
        if body.id in in_contact:
            faces.append(_COLOR_CONTACT)
        else:
            faces.append(_COLOR_STATIC if body.static else _COLOR_BODY)
        if aabbs:
            blo, bhi = _bounds(kind, geom)
            ax.add_patch(Rectangle((blo[i], blo[j]), bhi[i] - blo[i], bhi[j] - blo[j], fill=False,
                                   edgecolor=_COLOR_AABB, linestyle="--", linewidth=0.8, zorder=4))
        if kind == "circle" and dim == 2:
            # a radius shows the body's rotation
            c, r = geom
            d2 = _rot2(body.angle) @ np.array([r, 0.0])
            ax.plot([c[0], c[0] + d2[0]], [c[1], c[1] + d2[1]], color="black", linewidth=0.6, zorder=3)
    if patches:
        ax.add_collection(PatchCollection(patches, facecolors=faces, edgecolors="black",
                                          linewidths=0.6, alpha=0.9, zorder=2, match_original=False))
    for a, b, normal3 in snap.pairs:
        if a not in centers or b not in centers:
            continue  # a plane contact (its normal is the plane's), or a body not shown
        normal = normal3[[i, j]]
        if np.linalg.norm(normal) < 0.2:
            continue  # the normal points mostly along the view direction
        (ca, sa), (cb, sb) = centers[a], centers[b]
        start = 0.5 * (ca + cb)[[i, j]]
        # 1.5 x the smaller body's half-size: never dwarfs the bodies it points between;
        # but at least 1 % of the view (a few pixels: still an arrow) and at most 12 %
        length = min(max(1.5 * min(sa, sb), 0.01 * span), 0.12 * span)
        arrows.append(np.array([start, start + normal * length]))
        ax.add_patch(FancyArrow(start[0], start[1], normal[0] * length, normal[1] * length,
                                width=0.06 * length, head_width=0.3 * length, head_length=0.3 * length,
                                length_includes_head=True, color="black", zorder=5))
    if snap.points is not None and len(snap.points):
        # over bodies and arrows; a fixed size in points, so they stay visible at any scale
        ax.scatter(snap.points[:, i], snap.points[:, j], s=_POINT_SIZE, c=_COLOR_POINT, edgecolors="black",
                   linewidths=0.6, zorder=5.5, label="_contact points")
        # labels keep off the points as off the arrows: each is a zero-length arrow
        arrows.extend(np.repeat(snap.points[:, None, [i, j]], 2, axis=1))
    ax.set_xlim(view_lo[0], view_hi[0])
    ax.set_ylim(view_lo[1], view_hi[1])
    ax.set_aspect("equal")
    names = "xyz"
    ax.set_xlabel(names[i])
    ax.set_ylabel(names[j])
    ax.grid(True, linewidth=0.3, alpha=0.5)
    return labels, arrows


def _place_labels(ax: Any, labels: list[tuple[str, np.ndarray, float]], arrows: list[np.ndarray],
                  dpi: float) -> int:
    """Draw the labels that fit without overlapping; return how many were dropped.

    Greedy, largest body first (planes last): each label tries its body's
    centre, then just above, below, right and left of it, then two lines
    above and below; the first spot
    whose box (estimated from the font size) overlaps no placed label and
    lies inside the axes and off every arrow wins. A body smaller on screen than a third of the
    text's height gets no label (it would only hide its neighbours).
    """
    to_px = ax.transData.transform
    box = ax.get_window_extent()
    height = _LABEL_SIZE * 1.35 * dpi / 72.0
    placed: list[tuple[float, float, float, float]] = []
    for ends in arrows:
        (x0, y0), (x1, y1) = to_px(ends)
        pad = 3.0
        placed.append((min(x0, x1) - pad, min(y0, y1) - pad, max(x0, x1) + pad, max(y0, y1) + pad))
    dropped = 0
    order = sorted(range(len(labels)), key=lambda k: -labels[k][2] if labels[k][2] > 0 else math.inf)
    for k in order:
        text, where, size = labels[k]
        x, y = to_px(where)
        if not (box.x0 <= x <= box.x1 and box.y0 <= y <= box.y1):
            continue
        if size > 0 and (to_px(where + np.array([size, 0.0]))[0] - x) < height / 3:
            dropped += 1
            continue
        width = 0.62 * _LABEL_SIZE * len(text) * dpi / 72.0 + 4
        spot = None
        for dx, dy in ((0, 0), (0, height), (0, -height), (width * 0.6, 0), (-width * 0.6, 0),
                       (0, 2 * height), (0, -2 * height)):
            rect = (x + dx - width / 2, y + dy - height / 2, x + dx + width / 2, y + dy + height / 2)
            inside = rect[0] >= box.x0 and rect[2] <= box.x1 and rect[1] >= box.y0 and rect[3] <= box.y1
            if inside and all(rect[2] <= p[0] or p[2] <= rect[0] or rect[3] <= p[1] or p[3] <= rect[1]
                              for p in placed):
                spot = rect
                break
        if spot is None:
            dropped += 1
            continue
        placed.append(spot)
        cx, cy = ax.transData.inverted().transform(((spot[0] + spot[2]) / 2, (spot[1] + spot[3]) / 2))
        ax.text(cx, cy, text, fontsize=_LABEL_SIZE, ha="center", va="center", zorder=6,
                bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "alpha": 0.7, "linewidth": 0})
    return dropped


def _legend(fig: Any, dim: int, snaps: Sequence[_Snapshot], shown: Sequence[list[Any]]) -> None:
    """A legend of what the pictures hold (an entry for planes only if there is one)."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    bodies = [b for group in shown for b in group]
    static = any(b.static and not b.shape.is_infinite for b in bodies)
    planes = any(b.shape.is_infinite for b in bodies)
    finite = [{b.id for b in group if not b.shape.is_infinite} for group in shown]
    finite_pairs = any(a in ids and b in ids for s, ids in zip(snaps, finite, strict=True) for a, b, _ in s.pairs)
    plane = "half-plane" if dim == 2 else "plane (section)"
    handles: list[Any] = [
        Patch(facecolor=_COLOR_CONTACT, edgecolor="black", linewidth=0.6, label="in contact"),
        Patch(facecolor=_COLOR_BODY, edgecolor="black", linewidth=0.6, label="moving"),
    ]
    if static:
        handles.append(Patch(facecolor=_COLOR_STATIC, edgecolor="black", linewidth=0.6, label="static"))
    if planes:
        handles.append(Patch(facecolor=_COLOR_PLANE, alpha=0.4, hatch="///", edgecolor=_COLOR_PLANE,
                             label=f"{plane}: hatched on its solid side"))
    if finite_pairs:
        handles.append(Line2D([], [], color="black", marker=r"$\rightarrow$", markersize=14, linestyle="None",
                              label="contact normal a → b"))
    if any(s.points is not None and len(s.points) for s in snaps):
        handles.append(Line2D([], [], color=_COLOR_POINT, marker="o", markeredgecolor="black",
                              markeredgewidth=0.6, markersize=math.sqrt(_POINT_SIZE), linestyle="None",
                              label="contact point"))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8, frameon=False)


# --------------------------------------------------------------------------
# a whole picture
# --------------------------------------------------------------------------


def _title(path: str | os.PathLike[str], snap: _Snapshot, shown: int) -> str:
    bodies, contacts = len(snap.bodies), len(snap.pairs)
    title = (f"{os.path.basename(os.fspath(path))}: frame {snap.number} (line {snap.line}), "
             f"{bodies} {'body' if bodies == 1 else 'bodies'}"
             f"{f' ({shown} shown)' if shown != bodies else ''}, "
             f"{contacts} {'contact' if contacts == 1 else 'contacts'}")
    if snap.expect is not None:
        actual = {frozenset((a, b)) for a, b, _ in snap.pairs}
        if actual != snap.expect:
            title += (f"\nfile expects {len(snap.expect)} pairs: {len(snap.expect - actual)} missing, "
                      f"{len(actual - snap.expect)} extra")
    return title


class _Picture:
    """A figure with one view (2D) or two (3D), redrawn for each snapshot."""

    def __init__(self, figure: Any, dim: int, dpi: int, snaps: Sequence[_Snapshot],
                 shown: Sequence[list[Any]], lo: np.ndarray, hi: np.ndarray):
        self.dim = dim
        self.dpi = dpi
        # Size the figure to the view's proportions, so equal axes leave little blank paper.
        span = np.maximum(hi - lo, 1e-300)
        tall = float(max(span[1:]) / span[0]) if dim == 3 else float(span[1] / span[0])
        width = 8.0 if dim == 2 else 14.0
        height = min(max((width if dim == 2 else width / 2) * tall, 3.0), 9.0) + 1.3
        self.fig = figure(figsize=(width, height), dpi=dpi, layout="constrained")
        self.axes = [self.fig.add_subplot(1, 1 if dim == 2 else 2, k + 1) for k in range(1 if dim == 2 else 2)]
        _legend(self.fig, dim, snaps, shown)

    def draw(self, path: str | os.PathLike[str], snap: _Snapshot, bodies: list[Any], aabbs: bool,
             lo: np.ndarray, hi: np.ndarray) -> None:
        for ax in self.axes:
            ax.clear()
        views = [((0, 1), None, None, "")] if self.dim == 2 else [
            ((0, 1), 2, float(0.5 * (lo[2] + hi[2])), "top (x-y); planes cut at z={:.3g}"),
            ((0, 2), 1, float(0.5 * (lo[1] + hi[1])), "side (x-z); planes cut at y={:.3g}"),
        ]
        all_labels = []
        for ax, (axes, missing, at, name) in zip(self.axes, views, strict=True):
            labels, arrows = _draw_view(ax, bodies, self.dim, axes, snap, aabbs, lo[list(axes)], hi[list(axes)],
                                at, missing)
            if name:
                ax.set_title(name.format(at), fontsize=9)
            all_labels.append((labels, arrows))
        self.fig.suptitle(_title(path, snap, len(bodies)), fontsize=10)
        self.fig.draw_without_rendering()  # lay out, so label sizes in pixels are known
        for ax, (labels, arrows) in zip(self.axes, all_labels, strict=True):
            _place_labels(ax, labels, arrows, self.dpi)


def _frames(path: str | os.PathLike[str], wanted: Callable[[int], bool], last: int | None,
            world_factory: Callable[[int], Any] | None, ignore_truncated_tail: bool,
            on_frame: Callable[[int], None] | None, limits: Any) -> tuple[list[_Snapshot], int]:
    """Snapshots of the frames ``wanted`` (up to frame ``last``), and how many frames were read."""
    from .scenario.replay import iter_replay

    got: list[_Snapshot] = []
    count = 0
    for fr, world, contacts in iter_replay(path, world_factory, ignore_truncated_tail=ignore_truncated_tail,
                                           **limits):
        count += 1
        if on_frame is not None:
            on_frame(fr.number)
        if wanted(fr.number):
            if len(got) >= MAX_ANIMATION_FRAMES:
                raise InvalidArgumentError(
                    f"more than {MAX_ANIMATION_FRAMES} frames to draw; choose a shorter range or a step "
                    "(--frames A:B:S)")
            got.append(_snapshot(fr, world, contacts))
        if last is not None and fr.number >= last:
            break
    return got, count


def _check_common(crop: Sequence[float] | None, zoom: float, ids: Sequence[str] | None) -> None:
    if crop is not None:
        values = [float(v) for v in crop]
        if len(values) != 4 or not all(map(math.isfinite, values)) or not (
                values[0] < values[2] and values[1] < values[3]):
            raise InvalidArgumentError(f"crop must be (x0, y0, x1, y1) with x0 < x1 and y0 < y1, got {crop!r}")
    if isinstance(zoom, bool) or not isinstance(zoom, (int, float)) or not 0 < zoom < math.inf:
        raise InvalidArgumentError(f"zoom must be a number > 0, got {zoom!r}")
    if ids is not None and (isinstance(ids, str) or not all(isinstance(i, str) for i in ids)):
        raise InvalidArgumentError(f"ids must be a list of id texts, got {ids!r}")


def render_frame(path: str | os.PathLike[str], frame: int | None = None, output: str = "frame.png",
                 aabbs: bool = False, *, crop: Sequence[float] | None = None,
                 ids: Sequence[str] | None = None, zoom: float = 1.0,
                 world_factory: Callable[[int], Any] | None = None, ignore_truncated_tail: bool = False,
                 dpi: int = 120, on_frame: Callable[[int], None] | None = None,
                 **limits: int) -> RenderInfo:
    """Replay a scenario file up to ``frame`` and draw the world to ``output``.

    Parameters
    ----------
    path : str or path-like
        Scenario file (``.jsonl`` or ``.jsonl.gz``).
    frame : int, optional
        1-based frame number (frame N is on line N+1); default the last one.
    output : str
        Image path; matplotlib picks the format from the suffix.
    aabbs : bool
        Draw each finite body's axis-aligned bounding box.
    crop : (x0, y0, x1, y1), optional
        Show this rectangle of the world (3D: of the top view; the side view
        keeps ``x0..x1``) instead of fitting the bodies.
    ids : sequence of str, optional
        Draw only these bodies (an id is matched by its text, so ``"7"``
        names the integer id 7); the view fits them.
    zoom : float
        Magnify the view this many times about its centre.
    world_factory : callable, optional
        As in :func:`~collideworld.scenario.replay`.
    ignore_truncated_tail : bool
        As in :func:`~collideworld.scenario.read_scenario`.
    dpi : int
        Resolution of the image.
    on_frame : callable, optional
        Called with each frame number as the replay reaches it (a progress bar).
    **limits
        Reader limits, as in :func:`~collideworld.scenario.read_scenario`.

    Returns
    -------
    RenderInfo

    Raises
    ------
    MissingExtraError
        matplotlib is not installed.
    InvalidArgumentError
        ``frame`` is not a frame of the file, ``output``'s suffix is not an
        image format matplotlib can write, ``crop``/``zoom`` are not valid or
        an id of ``ids`` is not alive at that frame.
    ScenarioError
        The file is invalid up to that frame.

    Examples
    --------
    >>> import os, tempfile
    >>> from collideworld import Circle
    >>> from collideworld.scenario import BodySpec, ScenarioWriter
    >>> folder = tempfile.mkdtemp()
    >>> scene, image = os.path.join(folder, "scene.jsonl"), os.path.join(folder, "frame.png")
    >>> with ScenarioWriter(scene, dim=2) as w:    # two unit circles 1.5 apart: one contact
    ...     w.write_frame(add=[BodySpec("a", Circle(1.0), (0.0, 0.0)), BodySpec("b", Circle(1.0), (1.5, 0.0))])
    >>> render_frame(scene, output=image)  # doctest: +ELLIPSIS
    RenderInfo(output='...frame.png', frame=1, bodies=2, contacts=1, images=1, first_frame=1)
    >>> render_frame(scene, output=image, ids=["b"], zoom=2).bodies  # only "b" drawn; both alive
    2
    """
    Figure = _matplotlib()
    if frame is not None and (isinstance(frame, bool) or not isinstance(frame, int) or frame < 1):
        raise InvalidArgumentError(f"frame must be a frame number >= 1, got {frame!r}")
    _check_common(crop, zoom, ids)
    _check_suffix(output, Figure, animation=False)  # before the replay, which may take long
    if frame is None:
        # Keep only the latest snapshot: the last frame is not known until the end.
        latest: list[_Snapshot] = []
        count = 0
        from .scenario.replay import iter_replay

        for fr, world, contacts in iter_replay(path, world_factory,
                                               ignore_truncated_tail=ignore_truncated_tail, **limits):
            count += 1
            if on_frame is not None:
                on_frame(fr.number)
            latest[:] = [_snapshot(fr, world, contacts)]
        snaps = latest
    else:
        snaps, count = _frames(path, lambda n: n == frame, frame, world_factory, ignore_truncated_tail,
                               on_frame, limits)
    if not snaps:
        if count == 0:
            raise InvalidArgumentError(f"{path} has no frames to render")
        raise InvalidArgumentError(f"frame {frame} is out of range: {path} has {count} frames")
    snap = snaps[0]
    shown = _select(snap.bodies, ids, snap.number)
    lo, hi = _view(*_scene_bounds(shown, snap.dim), crop, zoom)
    picture = _Picture(Figure, snap.dim, dpi, [snap], [shown], lo, hi)
    picture.draw(path, snap, shown, aabbs, lo, hi)
    picture.fig.savefig(output)
    return RenderInfo(output=str(output), frame=snap.number, bodies=len(snap.bodies), contacts=len(snap.pairs))


def render_animation(path: str | os.PathLike[str], frames: tuple[int, int, int] = (1, 200, 1),
                     output: str = "scene.gif", aabbs: bool = False, *,
                     crop: Sequence[float] | None = None, ids: Sequence[str] | None = None,
                     zoom: float = 1.0, fps: int = 10, dpi: int = 80,
                     world_factory: Callable[[int], Any] | None = None, ignore_truncated_tail: bool = False,
                     on_frame: Callable[[int], None] | None = None, **limits: int) -> RenderInfo:
    """Replay a scenario file and write frames ``start..stop`` as an animated GIF.

    One view (fitting every frame drawn, or ``crop``) is kept for the whole
    animation, so bodies move across a still background. Written with
    matplotlib's ``PillowWriter``.

    Parameters
    ----------
    path : str or path-like
    frames : (start, stop, step)
        1-based frame numbers, ``start`` to ``stop`` inclusive, every
        ``step``-th; ``stop`` past the end stops at the last frame.
    output : str
        A ``.gif`` path.
    aabbs, crop, ids, zoom, world_factory, ignore_truncated_tail, on_frame, **limits
        As in :func:`render_frame` (``ids`` must be alive in every frame drawn).
    fps : int
        Frames per second of the GIF.
    dpi : int
        Resolution of each image.

    Returns
    -------
    RenderInfo
        ``frame`` is the last frame drawn, ``images`` how many were drawn.

    Raises
    ------
    InvalidArgumentError
        No frame of the file is in the range, more than
        ``MAX_ANIMATION_FRAMES`` would be drawn, or an argument is invalid.

    Examples
    --------
    >>> import os, tempfile
    >>> from collideworld import Circle
    >>> from collideworld.scenario import BodySpec, MoveSpec, ScenarioWriter
    >>> folder = tempfile.mkdtemp()
    >>> scene, movie = os.path.join(folder, "scene.jsonl"), os.path.join(folder, "scene.gif")
    >>> with ScenarioWriter(scene, dim=2) as w:    # "b" slides past "a"
    ...     w.write_frame(add=[BodySpec("a", Circle(1.0), (0.0, 0.0)), BodySpec("b", Circle(0.5), (-3.0, 1.0))])
    ...     for k in range(1, 4):
    ...         w.write_frame(move=[MoveSpec("b", position=(-3.0 + 2.0 * k, 1.0))])
    >>> info = render_animation(scene, frames=(1, 10, 1), output=movie)
    >>> info.images, info.first_frame, info.frame
    (4, 1, 4)
    """
    Figure = _matplotlib()
    start, stop, step = (int(v) for v in frames)
    if start < 1 or stop < start or step < 1:
        raise InvalidArgumentError(f"frames must be (start, stop, step) with 1 <= start <= stop and step >= 1, "
                                   f"got {frames!r}")
    if isinstance(fps, bool) or not isinstance(fps, int) or fps < 1:
        raise InvalidArgumentError(f"fps must be an integer >= 1, got {fps!r}")
    _check_common(crop, zoom, ids)
    _check_suffix(output, Figure, animation=True)
    snaps, count = _frames(path, lambda n: start <= n <= stop and (n - start) % step == 0, stop,
                           world_factory, ignore_truncated_tail, on_frame, limits)
    if not snaps:
        raise InvalidArgumentError(f"no frame in {start}:{stop}: {path} has {count} frames")
    from matplotlib.animation import PillowWriter

    shown = [_select(s.bodies, ids, s.number) for s in snaps]
    lo = np.min([_scene_bounds(b, s.dim)[0] for b, s in zip(shown, snaps, strict=True)], axis=0)
    hi = np.max([_scene_bounds(b, s.dim)[1] for b, s in zip(shown, snaps, strict=True)], axis=0)
    lo, hi = _view(lo, hi, crop, zoom)
    picture = _Picture(Figure, snaps[0].dim, dpi, snaps, shown, lo, hi)
    writer = PillowWriter(fps=fps)
    with writer.saving(picture.fig, os.fspath(output), dpi):
        for snap, bodies in zip(snaps, shown, strict=True):
            picture.draw(path, snap, bodies, aabbs, lo, hi)
            writer.grab_frame()
    last = snaps[-1]
    return RenderInfo(output=str(output), frame=last.number, bodies=len(last.bodies), contacts=len(last.pairs),
                      images=len(snaps), first_frame=snaps[0].number)


# --------------------------------------------------------------------------
# a live world
# --------------------------------------------------------------------------


def draw_world(world: Any, ax: Any = None, *, crop: Sequence[float] | None = None,
               ids: Sequence[str] | None = None, zoom: float = 1.0, aabbs: bool = False) -> Any:
    """Draw a live world into matplotlib axes: the debug draw of pymunk and Box2D.

    Bodies in contact after the last step are red, static bodies dark grey,
    half-planes and planes a hatched band on their solid side; contact
    normals are arrows scaled to the bodies; a world that computes contact
    points (``World(manifolds=True)``) shows them as yellow dots; labels that
    would overlap are dropped. A 3D world is drawn from the top (x-y), planes cut at the
    middle height of the bodies.

    Parameters
    ----------
    world : World
    ax : matplotlib Axes, optional
        Where to draw; a new figure's axes by default.
    crop, ids, zoom, aabbs
        As in :func:`render_frame`.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    MissingExtraError
        matplotlib is not installed.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from collideworld import Box, Circle, World
    >>> w = World(dim=2)
    >>> w.add(Box((1.0, 1.0)), id="crate"), w.add(Circle(0.5), position=(1.2, 0), id="ball")
    ('crate', 'ball')
    >>> _ = w.step()
    >>> ax = draw_world(w)
    >>> sorted(t.get_text() for t in ax.texts)
    ['ball', 'crate']
    """
    figure = _matplotlib()
    _check_common(crop, zoom, ids)
    contacts = world.last_contacts
    dim = world.dim
    pairs: list[tuple[Any, Any, NDArray[np.float64]]] = []
    if contacts is not None and len(contacts):
        normals = np.asarray(contacts.normal, dtype=float).reshape(len(contacts), dim)
        pairs = [(a, b, normals[k]) for k, (a, b) in
                 enumerate(zip(contacts.a.tolist(), contacts.b.tolist(), strict=True))]
    bodies = [world.body(i) for i in world.ids()]
    snap = _Snapshot(0, 0, dim, bodies, pairs, None, _contact_points(contacts, dim))
    shown = _select(bodies, ids, 0)
    lo, hi = _view(*_scene_bounds(shown, dim), crop, zoom)
    if ax is None:
        ax = figure(figsize=(8.0, 8.0), layout="constrained").add_subplot(1, 1, 1)
    at = None if dim == 2 else float(0.5 * (lo[2] + hi[2]))
    labels, arrows = _draw_view(ax, shown, dim, (0, 1), snap, aabbs, lo[[0, 1]], hi[[0, 1]], at,
                                None if dim == 2 else 2)
    ax.figure.draw_without_rendering()  # lay out, so label sizes in pixels are known
    _place_labels(ax, labels, arrows, ax.figure.dpi)
    return ax


set_drawer(draw_world)  # World.draw draws with it (the world may not import the renderer)
