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
    """Base class of every error raised by collideworld.

    Examples
    --------
    >>> from collideworld import Circle
    >>> try:
    ...     Circle(-1.0)
    ... except CollideWorldError as exc:
    ...     print(type(exc).__name__, "|", exc)
    InvalidShapeError | Circle radius must be > 0, got -1.0
    """


class InvalidShapeError(CollideWorldError, ValueError):
    """A shape's parameters are invalid (non-positive size, bad polygon, ...).

    Examples
    --------
    >>> from collideworld import Box
    >>> Box((1.0, 0.0))
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidShapeError: Box half_extents[1] must be > 0, got 0
    """


class InvalidPoseError(CollideWorldError, ValueError):
    """A position, angle, quaternion or rotation matrix is invalid.

    Examples
    --------
    >>> from collideworld.poses import check_angle
    >>> check_angle(float("nan"))
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidPoseError: angle must be finite, got nan
    """


class InvalidArgumentError(CollideWorldError, ValueError):
    """Any other invalid argument value (wrong shape of array, bad flag, ...).

    Examples
    --------
    >>> from collideworld import World
    >>> try:
    ...     World(dim=4)
    ... except ValueError as exc:          # also a ValueError
    ...     print(type(exc).__name__, "|", exc)
    InvalidArgumentError | dim must be 2 or 3, got 4
    """


class UnsupportedPairError(CollideWorldError, TypeError):
    """Two shapes that cannot be tested together (e.g. a 2D and a 3D shape).

    Examples
    --------
    >>> from collideworld import Circle, Sphere, collide
    >>> collide(Circle(1.0), ((0, 0), 0.0), Sphere(1.0), ((0, 0, 0), (1, 0, 0, 0)))
    Traceback (most recent call last):
    ...
    collideworld.errors.UnsupportedPairError: cannot collide a 2D circle with a 3D sphere
    """


class DuplicateIdError(CollideWorldError, KeyError):
    """An id is already used by a live body.

    Examples
    --------
    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add(Circle(1.0), id="a")
    'a'
    >>> try:
    ...     w.add(Circle(1.0), id="a")
    ... except KeyError as exc:            # also a KeyError, printed unquoted
    ...     print(type(exc).__name__, "|", exc)
    DuplicateIdError | a body with id 'a' is already in the world
    """

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else ""


class UnknownIdError(CollideWorldError, KeyError):
    """No live body has this id.

    Examples
    --------
    >>> from collideworld import World
    >>> World(dim=2).body("ghost")
    Traceback (most recent call last):
    ...
    collideworld.errors.UnknownIdError: no body with id 'ghost'
    """

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

    Examples
    --------
    >>> exc = ScenarioError("move: unknown id 'b4'", "scene.jsonl", 12)
    >>> str(exc)
    "scene.jsonl:12: move: unknown id 'b4'"
    >>> exc.line, exc.reason
    (12, "move: unknown id 'b4'")
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
    """An optional dependency is not installed; the message says which extra.

    Examples
    --------
    It is also an ``ImportError``, so code that already guards an optional
    import catches it:

    >>> try:
    ...     raise MissingExtraError("rendering needs matplotlib: pip install 'collideworld[render]'")
    ... except ImportError as exc:
    ...     print(exc)
    rendering needs matplotlib: pip install 'collideworld[render]'
    """
