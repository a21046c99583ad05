"""Contact points in pictures: ``render`` and ``draw_world`` draw them, and the
CLI replays files whose expectations carry points in a world that computes them.

Expected points are worked out by hand (a box sunk into the floor touches
halfway between its bottom corners and the floor; see ``docs/scenario-format.md``).
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib  # noqa: E402
import numpy as np

matplotlib.use("Agg")

from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from collideworld import Box, Capsule, Plane, Sphere, World  # noqa: E402
from collideworld.cli import main  # noqa: E402
from collideworld.render import _frames, _Picture, _scene_bounds, _view, draw_world, render_frame  # noqa: E402

YELLOW = np.array([0xFF, 0xD4, 0x3B])  # the points' face colour (render._COLOR_POINT)

# A box of half extents (1, 0.5) centred at (0, 0.25) sinks 0.25 into the
# floor y <= 0: it touches at (+-1, -0.125), halfway between its bottom
# corners (+-1, -0.25) and the floor under them.
FLOOR = {"id": "floor", "shape": {"type": "halfplane", "normal": [0, 1], "offset": 0}}
BOX = {"id": "box", "shape": {"type": "box", "half_extents": [1, 0.5]}, "position": [0, 0.25]}
POINTS = [[1.0, -0.125], [-1.0, -0.125]]


def _write(tmp_path: Path, points: bool) -> Path:
    entry: dict = {"pair": ["floor", "box"], "normal": [0, 1], "depth": 0.25}
    if points:
        entry["points"] = POINTS
    frame = {"add": [FLOOR, BOX], "expect": [["box", "floor"]], "expect_contacts": [entry]}
    path = tmp_path / ("points.jsonl" if points else "plain.jsonl")
    path.write_text('{"collideworld_scenario": 2, "dim": 2}\n' + json.dumps(frame) + "\n", encoding="utf-8")
    return path


def _picture(path: Path) -> _Picture:
    snaps, _ = _frames(path, lambda n: True, None, None, False, None, {})
    snap = snaps[-1]
    lo, hi = _view(*_scene_bounds(snap.bodies, 2), None, 1.0)
    picture = _Picture(Figure, 2, 100, [snap], [snap.bodies], lo, hi)
    picture.draw(path, snap, snap.bodies, False, lo, hi)
    return picture


def _markers(ax) -> np.ndarray:
    dots = [c for c in ax.collections if isinstance(c, PathCollection)]
    return np.concatenate([np.asarray(c.get_offsets()) for c in dots]) if dots else np.zeros((0, 2))


def _pixel(fig, ax, point) -> np.ndarray:
    """The RGB colour of the rendered image at a data point."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    rgba = np.asarray(fig.canvas.buffer_rgba())
    x, y = ax.transData.transform(point)
    return rgba[int(round(rgba.shape[0] - y)), int(round(x)), :3].astype(int)


def test_render_draws_the_files_contact_points(tmp_path: Path) -> None:
    picture = _picture(_write(tmp_path, points=True))
    ax = picture.axes[0]
    np.testing.assert_allclose(sorted(_markers(ax).tolist()), sorted(POINTS), atol=1e-12)
    labels = [t.get_text() for t in picture.fig.legends[0].get_texts()]
    assert labels[-1] == "contact point"
    # and they are on the image: the pixel at each point is the markers' yellow
    for p in POINTS:
        assert np.abs(_pixel(picture.fig, ax, p) - YELLOW).max() <= 40, p


def test_render_draws_no_points_when_the_world_has_none(tmp_path: Path) -> None:
    picture = _picture(_write(tmp_path, points=False))
    assert len(_markers(picture.axes[0])) == 0
    assert "contact point" not in [t.get_text() for t in picture.fig.legends[0].get_texts()]


def test_cli_render_and_replay_a_file_with_points(tmp_path: Path, capsys) -> None:
    path = _write(tmp_path, points=True)
    out = tmp_path / "frame.png"
    assert main(["render", str(path), "-o", str(out)]) == 0
    assert out.stat().st_size > 1000
    # replay checks the points: the world it builds computes them
    assert main(["replay", str(path)]) == 0, capsys.readouterr().out
    info = render_frame(path, output=str(tmp_path / "again.png"))
    assert info.contacts == 1


def test_draw_world_draws_a_live_worlds_points_in_3d() -> None:
    # from the top: the crate's four bottom corners, the log's two ends, the ball's lowest point
    w = World(dim=3, manifolds=True)
    w.add(Plane((0, 0, 1), 0.0), id="ground")
    w.add(Box((1.0, 0.5, 0.5)), position=(0, 0, 0.45), id="crate")
    w.add(Capsule((-1, 0, 0), (1, 0, 0), 0.4), position=(4, 0, 0.35), id="log")
    w.add(Sphere(0.5), position=(0, 3, 0.45), id="ball")
    w.step()
    ax = draw_world(w)
    expect = [[x, y] for x in (-1, 1) for y in (-0.5, 0.5)] + [[3, 0], [5, 0], [0, 3]]
    np.testing.assert_allclose(sorted(_markers(ax).tolist()), sorted(expect), atol=1e-12)
    for p in ([3.0, 0.0], [0.0, 3.0]):
        assert np.abs(_pixel(ax.figure, ax, p) - YELLOW).max() <= 40, p
    # a world without manifolds: no markers
    w2 = World(dim=3)
    w2.add(Plane((0, 0, 1), 0.0))
    w2.add(Sphere(0.5), position=(0, 0, 0.45))
    w2.step()
    assert len(_markers(draw_world(w2))) == 0
