"""Broadphase: overlapping pairs of axis-aligned boxes, by integer handle.

:class:`SweepAndPrune` is the incremental broadphase the World uses;
:class:`BruteForceBroadphase` is the O(n^2) reference behind the same
:class:`Broadphase` interface. Both treat boxes as closed (touching counts)
and never report a pair of two static boxes.
"""

from .base import Broadphase
from .brute_force import BruteForceBroadphase
from .sweep_and_prune import SweepAndPrune

__all__ = ["Broadphase", "BruteForceBroadphase", "SweepAndPrune"]
