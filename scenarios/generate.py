#!/usr/bin/env python3
"""Regenerate every scenario file in this folder, byte for byte.

    python scenarios/generate.py            # writes scenarios/*.jsonl and scenarios/invalid/
    python scenarios/generate.py --out DIR  # writes the same files under DIR instead

The files follow ``docs/scenario-format.md`` (version 1; the version 2
files are ``driving_trajectory.jsonl``, ``bullet_wall.jsonl``,
``compound_2d.jsonl``, ``compound_3d.jsonl``, ``capsules_2d.jsonl`` and
``hulls_3d.jsonl``; ``terrain_3d.jsonl``, ``robot_cell.jsonl`` and
``level_2d.jsonl`` are version 3, each decided as its generator module
says; capsules, segments and hulls are decided as
``generators/segments.py`` describes). Every
``expect``, ``expect_contacts``, ``expect_distance`` and ``expect_impact``
is computed here, by methods that share no code
with collideworld (this script never imports it):

* 2D: shapely 2.x on exact polygons (boxes and polygons are turned into
  shapely polygons from their pose); a circle is its centre point and radius,
  tested with ``shapely.distance(Point(centre), other) <= radius`` (never a
  buffered polygon); a half-plane by ``n.p`` over the other shape's vertices
  (``n.c - r`` for a circle).
* 3D: box-box by a linear program (scipy ``linprog``, HiGHS) that maximises
  how far both boxes can be shrunk and still share a point -- the boxes touch
  or overlap exactly when that optimum is >= 0; when both boxes are
  axis-aligned (rotation entries exactly 0 or +-1) the test is done in exact
  rational arithmetic instead. Sphere-box by the closest point of the box to
  the sphere's centre (in the box frame), anything-plane by the minimum of
  ``n.p`` over corners, sphere-plane by ``n.c - r``.

Contact rules of the format are applied on top: touching counts, a pair of
two static bodies is never reported, category/mask must match both ways, and
a body never contacts itself.

Random placements are checked for near-touching ambiguity: a pair whose
signed separation is within ``AMBIGUITY`` of zero (but not deliberately, exactly
zero) is nudged and re-tried, so a correct implementation cannot disagree with
a file because of rounding.

Each scenario's generator is its own module in ``generators/`` (one per
file, ``generators/invalid.py`` for ``invalid/``); the helpers they share are
in ``generators/common.py``. This script only runs them and writes the files.

Output is deterministic: seeded ``random.Random`` streams, numbers rounded
before they are written (and all geometry computed from the rounded values),
keys in a fixed order, no timestamps.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from generators import STORIES, invalid_files

HERE = Path(__file__).resolve().parent


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=HERE, help="output folder (default: this folder)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    for story in STORIES:
        t = time.perf_counter()
        sc = story()
        write(args.out / sc.filename, sc.render())
        nbodies = len({b["id"] for f in sc.frames for b in f.get("add", ())})
        print(f"{sc.filename:28s} {len(sc.frames):4d} frames {nbodies:4d} ids "
              f"{sum(len(h) for h in sc.history):6d} contacts {sc.nudges:3d} nudges "
              f"{time.perf_counter() - t:6.2f} s")
    expected = {}
    for name, text, line, contains in invalid_files():
        write(args.out / "invalid" / name, text)
        expected[name] = {"line": line, "contains": contains}
    write(args.out / "invalid" / "expected.json", json.dumps(expected, indent=2, sort_keys=True) + "\n")
    print(f"invalid/: {len(expected)} files + expected.json")
    print(f"total {time.perf_counter() - t0:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
