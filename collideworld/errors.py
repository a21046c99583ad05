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
    "ScenarioFileError",
    "InvalidTypeError",
    "MissingExtraError",
    "UndecidedError",
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


class ScenarioFileError(CollideWorldError, OSError):
    """A scenario file cannot be created or written (missing folder, no permission).

    Also the ``OSError`` subclass the operating system raised
    (``FileNotFoundError``, ``PermissionError``, ...), with ``errno`` and
    ``filename`` set, so code that catches either keeps working.

    Examples
    --------
    >>> from collideworld.scenario import ScenarioWriter
    >>> try:
    ...     ScenarioWriter("/no/such/folder/scene.jsonl", dim=2)
    ... except FileNotFoundError as exc:
    ...     print(type(exc).__name__, "|", exc)
    ScenarioFileError | cannot create '/no/such/folder/scene.jsonl': folder '/no/such/folder' does not exist
    """

    def __str__(self) -> str:  # OSError prefixes "[Errno N]"; the message already says it
        return str(self.strerror)

    @classmethod
    def from_os_error(cls, exc: OSError, message: str) -> ScenarioFileError:
        """The error to raise for ``exc``: also an instance of ``type(exc)``."""
        kind = type(exc)
        sub = _FILE_ERROR_TYPES.get(kind)
        if sub is None:
            sub = cls if kind is OSError else type(cls.__name__, (cls, kind), {"__module__": __name__,
                                                                             "__doc__": cls.__doc__})
            _FILE_ERROR_TYPES[kind] = sub
        return sub(exc.errno, message, exc.filename)


_FILE_ERROR_TYPES: dict[type[OSError], type[ScenarioFileError]] = {}


class InvalidTypeError(CollideWorldError, TypeError):
    """An argument has the wrong type (e.g. ``None`` where a path is expected).

    Examples
    --------
    >>> from collideworld.scenario import read_scenario
    >>> read_scenario(None)
    Traceback (most recent call last):
    ...
    collideworld.errors.InvalidTypeError: path must be a str or os.PathLike naming a scenario file, got None
    """


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


class UndecidedError(CollideWorldError, RuntimeError):
    """A query ran out of its work budget before it could decide (not bad input).

    :func:`~collideworld.time_of_impact` (and :func:`~collideworld.check_trajectory`
    with ``continuous=True``) raise it when conservative advancement takes
    ``collideworld.geometry.time_of_impact.MAX_ADVANCE_STEPS`` steps without
    reaching a touch or the end of the motion: a near miss grazing for very
    many turns. It neither found a touch nor ruled one out; splitting the
    motion into shorter ones decides it.

    Examples
    --------
    >>> try:
    ...     raise UndecidedError("time_of_impact could not decide")
    ... except RuntimeError as exc:
    ...     print(exc)
    time_of_impact could not decide
    """
