"""What ``collideworld render`` draws: arrows scaled to bodies, labels that never
overlap, a legend of what is shown. Expected sizes are worked out by hand from the
documented rules (see ``collideworld/render.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import FancyArrow  # noqa: E402

from collideworld.render import _frames, _Picture, _scene_bounds, _view  # noqa: E402

H2 = '{"collideworld_scenario": 1, "dim": 2}\n'


def _circle(bid: str, x: float, r: float, y: float = 0.0) -> str:
    return f'{{"id": "{bid}", "shape": {{"type": "circle", "radius": {r}}}, "position": [{x}, {y}]}}'


def _picture(path: Path) -> tuple[_Picture, list]:
    snaps, _ = _frames(path, lambda n: True, None, None, False, None, {})
    snap = snaps[-1]
    lo, hi = _view(*_scene_bounds(snap.bodies, 2), None, 1.0)
    picture = _Picture(Figure, 2, 100, [snap], [snap.bodies], lo, hi)
    picture.draw(path, snap, snap.bodies, False, lo, hi)
    return picture, snap.bodies


def _arrow_lengths(picture: _Picture) -> list[float]:
    """Extent along x of each arrow's outline (every normal here is +x)."""
    out = []
    for patch in picture.axes[0].patches:
        if isinstance(patch, FancyArrow):
            xs = patch.get_path().vertices[:, 0]
            out.append(float(xs.max() - xs.min()))
    return sorted(out)


def test_arrows_are_scaled_to_the_bodies(tmp_path: Path) -> None:
    """Two overlapping pairs along x: radii 0.5 and 2. The scene spans x in
    [-0.5, 25.5], y in [-2, 2]: 26 wide, plus 8 % margins each side, so the view is
    26 * 1.16 = 30.16 wide. Arrow = 1.5 x the smaller radius, kept within
    [1 %, 12 %] of the view ([0.30, 3.62]): big pair 3.0, small pair 0.75."""
    path = tmp_path / "two_pairs.jsonl"
    path.write_text(H2 + '{"add": [' + ", ".join([
        _circle("s1", 0.0, 0.5), _circle("s2", 0.8, 0.5), _circle("b1", 20.0, 2.0), _circle("b2", 23.5, 2.0),
    ]) + "]}\n")
    picture, _ = _picture(path)
    span = 26.0 * 1.16
    small, big = _arrow_lengths(picture)
    assert big == pytest.approx(3.0, rel=1e-9)
    assert small == pytest.approx(0.75, rel=1e-9)
    assert 0.01 * span < small < big < 0.12 * span
    # the old rule drew both at 6 % of the scene: 1.9 here, longer than the small discs are wide
    assert small < 1.0 < big


def test_labels_never_overlap_and_crowded_ones_are_dropped(tmp_path: Path) -> None:
    """30 discs on one spot: a few labels fit around it, the rest are dropped,
    and no two drawn labels overlap on the image."""
    bodies = [_circle(f"body-{k:02d}", 0.01 * k, 1.0) for k in range(30)]
    path = tmp_path / "crowd.jsonl"
    path.write_text(H2 + '{"add": [' + ", ".join(bodies) + "]}\n")
    picture, _ = _picture(path)
    texts = picture.axes[0].texts
    assert 1 <= len(texts) <= 15  # most of the 30 are dropped
    boxes = [t.get_window_extent() for t in texts]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            assert not boxes[i].overlaps(boxes[j]), (texts[i].get_text(), texts[j].get_text())


def test_legend_names_what_is_shown(tmp_path: Path) -> None:
    path = tmp_path / "legend.jsonl"
    path.write_text(H2 + '{"add": [' + _circle("a", 0, 1) + ", " + _circle("b", 1.5, 1)
                    + ', {"id": "floor", "shape": {"type": "halfplane", "normal": [0, 1], "offset": -0.9}}]}\n')
    picture, _ = _picture(path)
    labels = [t.get_text() for t in picture.fig.legends[0].get_texts()]
    assert labels == ["in contact", "moving", "half-plane: hatched on its solid side", "contact normal a → b"]
    # The half-plane y <= -0.9 is a hatched band under its boundary 3.5 % of the
    # view deep, not a fill of the whole solid: the view is x in [-1.28, 2.78]
    # (bodies' x in [-1, 2.5] plus 8 % of 3.5 each side), 4.06 wide.
    hatched = [p for p in picture.axes[0].patches if p.get_hatch()]
    assert len(hatched) == 1
    ys = hatched[0].get_path().vertices[:, 1]
    assert ys.max() == pytest.approx(-0.9) and ys.min() == pytest.approx(-0.9 - 0.035 * 4.06)
