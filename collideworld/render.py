"""Draw the world of a scenario file after one frame (``collideworld render``).

Needs matplotlib, the ``render`` extra (``pip install 'collideworld[render]'``);
it is imported only when a picture is drawn, so the rest of collideworld
works without it.

What is drawn, to scale (equal axes):

* every body, filled grey (static bodies darker); bodies in contact after the
  step are red, with an arrow along each contact normal (from ``a`` to ``b``,
  drawn between the two bodies, or at the finite body for a plane);
* half-planes shaded and hatched over the visible area, their boundary drawn;
* with ``aabbs=True``, each finite body's axis-aligned bounding box, dashed;
* 3D: two views side by side, top (x-y, looking down z) and side (x-z,
  looking along y). Spheres and boxes are drawn as their exact silhouettes;
  a plane is drawn as its section through the middle of the scene (the
  view's missing coordinate at the centre of the bodies' bounds).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .errors import InvalidArgumentError, MissingExtraError

__all__ = ["render_frame", "RenderInfo", "label_text"]

_INSTALL_HINT = "install the render extra: pip install 'collideworld[render]'"

_COLOR_BODY = "#9aa5b1"
_COLOR_STATIC = "#52606d"
_COLOR_CONTACT = "#e12d39"
_COLOR_PLANE = "#7b93db"
_COLOR_AABB = "#3ebd93"


@dataclass(frozen=True)
class RenderInfo:
    """What :func:`render_frame` drew.

    Attributes
    ----------
    output : str
        The image file written.
    frame : int
        1-based number of the frame drawn.
    bodies : int
        Bodies alive after that frame, half-planes and planes included.
    contacts : int
        Contacts the frame's step returned.

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


def _check_image_suffix(output: str | os.PathLike[str], figure: Any) -> None:
    """An output suffix matplotlib can write (no suffix: its default, PNG)."""
    suffix = os.path.splitext(os.fspath(output))[1]
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


def _outline(body: Any, dim: int) -> tuple[str, Any]:
    """('circle', (center, radius)) or ('poly', world vertices (k, dim)) of a finite body."""
    shape = body.shape
    pos = np.asarray(body.position, dtype=float)
    if shape.kind in ("circle", "sphere"):
        return "circle", (pos, float(shape.radius))
    if dim == 2:
        rot = _rot2(body.angle)
        local = (_box_corners(shape.half_extents)[[0, 2, 3, 1]] if shape.kind == "box"
                 else np.asarray(shape.vertices, dtype=float))
    else:
        rot = _rot3(body.quaternion)
        local = _box_corners(shape.half_extents)
    return "poly", local @ rot.T + pos


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
# drawing
# --------------------------------------------------------------------------


def _draw_view(ax: Any, bodies: list[Any], dim: int, axes: tuple[int, int], contacts: Any,
               in_contact: set[Any], aabbs: bool, lo: np.ndarray, hi: np.ndarray,
               slice_at: float | None, missing_axis: int | None, labels: bool) -> None:
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Circle as CirclePatch
    from matplotlib.patches import FancyArrow, Rectangle
    from matplotlib.patches import Polygon as PolyPatch

    i, j = axes
    view_lo, view_hi = lo[[i, j]], hi[[i, j]]
    patches: list[Any] = []
    faces: list[str] = []
    edges: list[str] = []
    centers: dict[Any, np.ndarray] = {}
    for body in bodies:
        shape = body.shape
        if shape.is_infinite:
            n = np.asarray(shape.normal, dtype=float)
            d = float(shape.offset)
            if dim == 3:
                assert missing_axis is not None and slice_at is not None
                d -= n[missing_axis] * slice_at  # section through the scene's middle
            n2 = n[[i, j]]
            if np.linalg.norm(n2) < 1e-12:
                region = (_clip_halfplane(view_lo, view_hi, np.array([1.0, 0.0]), np.inf)
                          if d >= 0 else np.empty((0, 2)))
            else:
                region = _clip_halfplane(view_lo, view_hi, n2, d)
            if len(region) >= 3:
                hit = body.id in in_contact
                ax.add_patch(PolyPatch(region, closed=True, facecolor=_COLOR_PLANE, alpha=0.25,
                                       hatch="//", edgecolor=_COLOR_CONTACT if hit else _COLOR_PLANE,
                                       linewidth=1.5 if hit else 1.0, zorder=1))
            continue
        kind, geom = _outline(body, dim)
        if kind == "circle":
            c, r = geom
            patches.append(CirclePatch((c[i], c[j]), r))
            centers[body.id] = c
        else:
            pts = geom[:, [i, j]]
            patches.append(PolyPatch(_hull(pts) if dim == 3 else pts, closed=True))
            centers[body.id] = np.asarray(body.position, dtype=float)
        if body.id in in_contact:
            faces.append(_COLOR_CONTACT)
        else:
            faces.append(_COLOR_STATIC if body.static else _COLOR_BODY)
        edges.append("black")
        if aabbs:
            blo, bhi = _bounds(kind, geom)
            ax.add_patch(Rectangle((blo[i], blo[j]), bhi[i] - blo[i], bhi[j] - blo[j], fill=False,
                                   edgecolor=_COLOR_AABB, linestyle="--", linewidth=0.8, zorder=4))
        if kind == "circle" and dim == 2:
            # a radius shows the body's rotation
            c, r = geom
            d = _rot2(body.angle) @ np.array([r, 0.0])
            ax.plot([c[0], c[0] + d[0]], [c[1], c[1] + d[1]], color="black", linewidth=0.6, zorder=3)
    if patches:
        ax.add_collection(PatchCollection(patches, facecolors=faces, edgecolors=edges,
                                          linewidths=0.6, alpha=0.85, zorder=2, match_original=False))
    span = float(max(np.max(view_hi - view_lo), 1e-9))
    for k in range(len(contacts)):
        a, b = contacts.a[k], contacts.b[k]
        normal = np.asarray(contacts.normal[k], dtype=float)[[i, j]]
        if np.linalg.norm(normal) < 1e-9:
            continue  # normal along the view direction
        ca, cb = centers.get(a), centers.get(b)
        if ca is not None and cb is not None:
            start = 0.5 * (ca + cb)[[i, j]]
        else:
            # Half-spaces have no centre, but they are always static and two
            # static bodies are never in contact: the other body has one.
            only = ca if ca is not None else cb
            assert only is not None
            start = only[[i, j]]
        length = 0.06 * span
        ax.add_patch(FancyArrow(start[0], start[1], normal[0] * length, normal[1] * length,
                                width=0.004 * span, head_width=0.02 * span, head_length=0.02 * span,
                                length_includes_head=True, color="black", zorder=5))
    if labels:
        for body_id, c in centers.items():
            ax.annotate(label_text(body_id), (c[i], c[j]), fontsize=7, ha="center", va="center", zorder=6)
    ax.set_xlim(view_lo[0], view_hi[0])
    ax.set_ylim(view_lo[1], view_hi[1])
    ax.set_aspect("equal")
    names = "xyz"
    ax.set_xlabel(names[i])
    ax.set_ylabel(names[j])
    ax.grid(True, linewidth=0.3, alpha=0.5)


def _scene_bounds(bodies: list[Any], dim: int) -> tuple[np.ndarray, np.ndarray]:
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
    margin = 0.15 * size if size > 0 else 1.0
    return lo - margin, hi + margin


def render_frame(path: str | os.PathLike[str], frame: int | None = None, output: str = "frame.png",
                 aabbs: bool = False, *, world_factory: Callable[[int], Any] | None = None,
                 ignore_truncated_tail: bool = False, dpi: int = 120, **limits: int) -> RenderInfo:
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
    world_factory : callable, optional
        As in :func:`~collideworld.scenario.replay`.
    ignore_truncated_tail : bool
        As in :func:`~collideworld.scenario.read_scenario`.
    dpi : int
        Resolution of the image.
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
        ``frame`` is not a frame of the file, or ``output``'s suffix is not
        an image format matplotlib can write.
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
    RenderInfo(output='...frame.png', frame=1, bodies=2, contacts=1)
    """
    Figure = _matplotlib()
    from .scenario.replay import iter_replay

    if frame is not None and (isinstance(frame, bool) or not isinstance(frame, int) or frame < 1):
        raise InvalidArgumentError(f"frame must be a frame number >= 1, got {frame!r}")
    _check_image_suffix(output, Figure)  # before the replay, which may take long
    got = None
    count = 0
    for fr, world, contacts in iter_replay(path, world_factory,
                                           ignore_truncated_tail=ignore_truncated_tail, **limits):
        count += 1
        if frame is None or fr.number == frame:
            # Snapshot now: the world object goes on changing if we keep reading.
            got = (fr, [world.body(i) for i in world.ids()], contacts, world.dim)
            if frame is not None:
                break
    if got is None:
        if count == 0:
            raise InvalidArgumentError(f"{path} has no frames to render")
        raise InvalidArgumentError(f"frame {frame} is out of range: {path} has {count} frames")
    fr, bodies, contacts, dim = got
    in_contact = set(contacts.a.tolist()) | set(contacts.b.tolist())
    lo, hi = _scene_bounds(bodies, dim)
    finite = sum(1 for b in bodies if not b.shape.is_infinite)
    labels = finite <= 60

    title = f"{os.path.basename(os.fspath(path))}: frame {fr.number} (line {fr.line}), " \
            f"{len(bodies)} bodies, {len(contacts)} contacts"
    if fr.expect is not None:
        actual = {frozenset(p) for p in zip(contacts.a.tolist(), contacts.b.tolist(), strict=True)}
        if actual != fr.expect:
            title += (f"\nfile expects {len(fr.expect)} pairs: {len(fr.expect - actual)} missing, "
                      f"{len(actual - fr.expect)} extra")
    if dim == 2:
        fig = Figure(figsize=(8, 7), dpi=dpi, layout="constrained")
        ax = fig.add_subplot(1, 1, 1)
        _draw_view(ax, bodies, 2, (0, 1), contacts, in_contact, aabbs, lo, hi, None, None, labels)
    else:
        fig = Figure(figsize=(14, 7), dpi=dpi, layout="constrained")
        mid = 0.5 * (lo + hi)
        top = fig.add_subplot(1, 2, 1)
        _draw_view(top, bodies, 3, (0, 1), contacts, in_contact, aabbs, lo, hi, float(mid[2]), 2, labels)
        top.set_title(f"top (x-y); planes cut at z={mid[2]:.3g}", fontsize=9)
        side = fig.add_subplot(1, 2, 2)
        _draw_view(side, bodies, 3, (0, 2), contacts, in_contact, aabbs, lo, hi, float(mid[1]), 1, labels)
        side.set_title(f"side (x-z); planes cut at y={mid[1]:.3g}", fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.savefig(output)
    return RenderInfo(output=str(output), frame=fr.number, bodies=len(bodies), contacts=len(contacts))
