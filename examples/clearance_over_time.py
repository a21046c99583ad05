"""Plot a body's clearance over time from a recording in the Arrow form.

A ball rolls past a crate and over a second one. The run is recorded with
``Recorder(world, "run.arrows")``; afterwards ``frames_table`` gives every
body's pose at every frame as one ``pyarrow.Table``, and the clearance of the
ball from the crate (the gap between a disc and a box, worked out here from
the table with numpy) is plotted against the frame number. The contacts per
frame come from ``contacts_table``.

    python examples/clearance_over_time.py          # writes clearance.png in a temporary folder
    python examples/clearance_over_time.py out.png  # or where you say

Needs pyarrow (``pip install 'collideworld[arrow]'``) and, for the picture,
matplotlib.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from collideworld import Box, Circle, World  # noqa: E402
from collideworld.scenario import Recorder  # noqa: E402
from collideworld.scenario.arrow import contacts_table, frames_table  # noqa: E402

RADIUS, HALF = 0.5, (1.0, 0.5)


def record(path: str) -> None:
    """The ball passes 1.5 above the crate's centre (clearance 0.5), then rolls onto a second crate."""
    with Recorder(World(dim=2), path) as rec:
        rec.add(Box(HALF), position=(0.0, 0.0), id="crate")
        rec.add(Box(HALF), position=(6.0, 0.0), id="crate-2")
        rec.add(Circle(RADIUS), position=(-5.0, 1.5), id="ball")
        rec.step()
        for x in np.linspace(-5.0, 6.0, 111)[1:]:
            y = 1.5 if x < 4.0 else 1.5 - (x - 4.0) * 0.25  # dips after x = 4, onto crate-2
            rec.move("ball", position=(x, y))
            rec.step()


def clearance_disc_box(centres: np.ndarray, box_centre: np.ndarray) -> np.ndarray:
    """Gap between discs at ``centres`` and an axis-aligned box: distance to the box minus the radius."""
    outside = np.maximum(np.abs(centres - box_centre) - np.array(HALF), 0.0)
    return np.hypot(outside[:, 0], outside[:, 1]) - RADIUS


def main() -> None:
    folder = tempfile.mkdtemp()
    recording = os.path.join(folder, "run.arrows")
    record(recording)
    table = frames_table(recording)
    print(f"{recording}: {table.num_rows} rows ({', '.join(table.column_names)})")

    ball = table.filter(table["id"].to_numpy(zero_copy_only=False) == "ball")
    crate = table.filter(table["id"].to_numpy(zero_copy_only=False) == "crate")
    frames = ball["frame"].to_numpy()
    centres = np.array(ball["position"].to_pylist())
    crate_centre = np.array(crate["position"].to_pylist()[0])
    clearance = clearance_disc_box(centres, crate_centre)
    best = int(np.argmin(clearance))
    print(f"closest to the crate at frame {frames[best]}: clearance {clearance[best]:.3f}")
    assert abs(clearance[best] - 0.5) < 1e-12  # 1.5 above the centre: 1.0 above the top, minus the radius

    contacts = contacts_table(recording).to_pydict()
    touching = sorted({f for f, a, b in zip(contacts["frame"], contacts["a"], contacts["b"], strict=True)
                       if {a, b} == {"crate-2", "ball"}})
    print(f"the ball touches crate-2 from frame {touching[0]} on ({len(touching)} frames)")
    assert touching and touching[-1] == frames[-1]

    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(folder, "clearance.png")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no picture")
    else:
        fig, ax = plt.subplots(figsize=(6, 3))
        ax.plot(frames, clearance)
        ax.axhline(0.0, color="grey", linewidth=0.5)
        ax.set_xlabel("frame")
        ax.set_ylabel("clearance from the crate")
        fig.tight_layout()
        fig.savefig(out)
        print(f"wrote {out}")
    print("clearance example passed")


if __name__ == "__main__":
    main()
