"""Spatial index for queries: a hashed uniform grid over the bodies' boxes.

:class:`~collideworld.spatial.grid.GridIndex` answers "which boxes meet this
box / this ray segment" touching only nearby boxes. It is kept beside the
broadphase, not inside it: the broadphase proposes pairs, the index serves
point, box, shape and ray queries. Like the broadphase it knows no shapes,
only boxes under integer handles.
"""

from .grid import GridIndex

__all__ = ["GridIndex"]
