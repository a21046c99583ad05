"""Pickling a World: its state behind a format number, and the checks before a state is read.

Beside the front (:mod:`.world`), which keeps only ``World.__reduce__``,
``World.__setstate__`` and the module-level ``_unpickle_world`` that
pickles name (so that pickles written before this module stay readable).
"""

from __future__ import annotations

import sys
from typing import Any, cast

from .errors import InvalidArgumentError

__all__ = ["PICKLE_WRITERS", "pickled_state", "restore_world"]

#: which collideworld release wrote each world pickle format other than the current one (for the error)
PICKLE_WRITERS: dict[int, str] = {}


def pickled_state(world: Any, fmt: int) -> tuple[int, str, bytes]:
    """``(format, release, state bytes)``: the world's attributes but its query index, pickled.

    No compiled code travels: the query index and every numba object are
    rebuilt on first use in the copy (``World.__setstate__``).

    Examples
    --------
    >>> from collideworld import World
    >>> fmt, release, payload = pickled_state(World(dim=2), World.PICKLE_FORMAT)
    >>> fmt == World.PICKLE_FORMAT, type(payload)
    (True, <class 'bytes'>)
    """
    import pickle

    state = {k: v for k, v in world.__dict__.items() if k != "_index"}
    package = sys.modules.get(__package__ or "collideworld")
    release = str(getattr(package, "__version__", "?"))
    return fmt, release, pickle.dumps(state, pickle.HIGHEST_PROTOCOL)


def restore_world(cls: Any, base: Any, fmt: Any, release: Any, payload: Any) -> Any:
    """A ``cls`` (a subclass of ``base``, the World) from :func:`pickled_state`'s triple.

    The class and the format are checked before the state is read, so a
    pickle of another layout is refused with the release that wrote it.

    Examples
    --------
    >>> from collideworld import Circle, World
    >>> w = World(dim=2)
    >>> w.add(Circle(1.0), id="a")
    'a'
    >>> restore_world(World, World, *pickled_state(w, World.PICKLE_FORMAT)).ids()
    ['a']
    """
    import pickle

    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise InvalidArgumentError(f"not a pickled collideworld World: {cls!r} is not a World class")
    if (isinstance(fmt, bool) or not isinstance(fmt, int) or not isinstance(release, str)
            or not isinstance(payload, bytes)):
        raise InvalidArgumentError(f"not a pickled collideworld World: expected (format, release, state bytes), "
                                   f"got ({type(fmt).__name__}, {type(release).__name__}, "
                                   f"{type(payload).__name__})")
    current = base.PICKLE_FORMAT
    if fmt != current:
        writer = PICKLE_WRITERS.get(fmt, release)
        raise InvalidArgumentError(
            f"this World was pickled by collideworld {release} in world pickle format {fmt}; this collideworld "
            f"reads format {current} only: load it with collideworld {writer}")
    world = cast(Any, cls).__new__(cls)
    world.__setstate__(pickle.loads(payload))
    return world
