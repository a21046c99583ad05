"""Scenario files: read, write, record and replay (``docs/scenario-format.md``)."""

from .reader import (
    DEFAULT_TOLERANCE,
    FORMAT_VERSION,
    BodySpec,
    ExpectedContact,
    Frame,
    FrameIterator,
    Header,
    MoveSpec,
    ReaderLimits,
    Scenario,
    iter_frames,
    read_scenario,
)
from .recorder import Recorder
from .replay import ContactMismatch, FrameMismatch, ReplayReport, iter_replay, replay
from .writer import MoveBatch, ScenarioWriter

__all__ = [
    "DEFAULT_TOLERANCE",
    "FORMAT_VERSION",
    "BodySpec",
    "ExpectedContact",
    "Frame",
    "FrameIterator",
    "Header",
    "MoveSpec",
    "ReaderLimits",
    "Scenario",
    "iter_frames",
    "read_scenario",
    "ScenarioWriter",
    "MoveBatch",
    "Recorder",
    "replay",
    "iter_replay",
    "ReplayReport",
    "FrameMismatch",
    "ContactMismatch",
]
