"""Exception hierarchy.

Every error collideworld raises on bad input is a :class:`CollideWorldError`,
and also an instance of the built-in exception a Python user would catch for
that mistake (``ValueError`` for a bad value, ``KeyError`` for an unknown id,
``TypeError`` for a wrong type), so both ``except CollideWorldError`` and
``except ValueError`` work.
"""

from __future__ import annotations

__all__ = [
    "CollideWorldError",
    "InvalidShapeError",
    "InvalidPoseError",
    "InvalidArgumentError",
    "UnsupportedPairError",
    "DuplicateIdError",
    "UnknownIdError",
    "ScenarioError",
    "MissingExtraError",
]


class CollideWorldError(Exception):
    """Base class of every error raised by collideworld."""


class InvalidShapeError(CollideWorldError, ValueError):
    """A shape's parameters are invalid (non-positive size, bad polygon, ...)."""


class InvalidPoseError(CollideWorldError, ValueError):
    """A position, angle, quaternion or rotation matrix is invalid."""


class InvalidArgumentError(CollideWorldError, ValueError):
    """Any other invalid argument value (wrong shape of array, bad flag, ...)."""


class UnsupportedPairError(CollideWorldError, TypeError):
    """Two shapes that cannot be tested together (e.g. a 2D and a 3D shape)."""


class DuplicateIdError(CollideWorldError, KeyError):
    """An id is already used by a live body."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else ""


class UnknownIdError(CollideWorldError, KeyError):
    """No live body has this id."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class ScenarioError(CollideWorldError, ValueError):
    """A scenario file breaks the format; the message names file and line.

    Attributes
    ----------
    path : str or None
        The file, as given.
    line : int or None
        1-based line number of the offending line.
    reason : str
        What is wrong, without the location prefix.
    """

    def __init__(self, reason: str, path: str | None = None, line: int | None = None):
        self.path = path
        self.line = line
        self.reason = reason
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(f"{where}{reason}")


class MissingExtraError(CollideWorldError, ImportError):
    """An optional dependency is not installed; the message says which extra."""
