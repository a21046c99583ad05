"""Streaming reader of scenario files (``.jsonl`` and ``.jsonl.gz``): the public face.

The format is ``docs/scenario-format.md`` (versions 1 and 2). The reader never
loads a whole file: it reads one line at a time (a ``.jsonl.gz`` file is
decompressed incrementally), validates it completely and yields it as a
:class:`Frame`. Memory therefore stays bounded by the longest line plus the
set of ids alive at that moment, whatever the file size.

Every line is checked against the contract, and anything wrong is a
:class:`~collideworld.errors.ScenarioError` whose message names the file, the
line and the problem, e.g. ``scene.jsonl:12: move: unknown id 'b4'``. To do
that the reader tracks the set of alive ids itself, applying each frame's
``remove`` list, then ``add``, then ``set``, then ``move``, exactly as a world would.

The work is split in three modules, one per layer, and this one
re-exports their public names:

* :mod:`.source`: bytes to JSON values, one per line (gzip, limits on bytes
  and lines, truncated last lines);
* :mod:`.schema`: what each value must look like (header, shapes, bodies,
  moves, keys) and the records built from it;
* :mod:`.frames`: what a frame means in context (alive ids, remove/add/move
  order, expectations) and the entry points :func:`read_scenario` and
  :func:`iter_frames`.

Limits (line length, polygon vertices, alive bodies, decompressed size) are
checked *before* the work they bound is done; their defaults are generous and
each can be changed with a keyword argument of :func:`read_scenario`.

Examples
--------
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "scene.jsonl")
>>> from collideworld.shapes import Circle
>>> from collideworld.scenario import BodySpec, ScenarioWriter
>>> with ScenarioWriter(path, dim=2) as w:
...     w.write_frame(add=[BodySpec("a", Circle(1.0), (0.0, 0.0))], expect=[])
>>> scenario = read_scenario(path)
>>> scenario.header.dim
2
>>> for frame in scenario:
...     print(frame.number, len(frame.add), frame.expect)
1 1 frozenset()
"""

from __future__ import annotations

from .frames import Frame, FrameIterator, Scenario, iter_frames, read_scenario
from .schema import (
    DEFAULT_TOLERANCE,
    FORMAT_VERSION,
    QUATERNION_NORM_TOLERANCE,
    SUPPORTED_VERSIONS,
    UINT32_MAX,
    BodyId,
    BodySpec,
    ExpectedContact,
    ExpectedDistance,
    ExpectedImpact,
    Header,
    MoveSpec,
    PoseSpec,
    SetSpec,
)
from .source import ReaderLimits

__all__ = [
    "FORMAT_VERSION",
    "SUPPORTED_VERSIONS",
    "DEFAULT_TOLERANCE",
    "QUATERNION_NORM_TOLERANCE",
    "UINT32_MAX",
    "BodyId",
    "Header",
    "BodySpec",
    "MoveSpec",
    "ExpectedContact",
    "ExpectedDistance",
    "ExpectedImpact",
    "PoseSpec",
    "SetSpec",
    "Frame",
    "ReaderLimits",
    "Scenario",
    "read_scenario",
    "iter_frames",
    "FrameIterator",
]
