"""collideworld: a collision world for Python.

Pipeline, one module each: shapes -> geometry (AABBs, batched kernels) ->
broadphase -> narrowphase -> world (contacts and events) -> scenario files.

>>> from collideworld import World, Circle
>>> w = World(dim=2)
>>> w.add(Circle(1.0), position=(0.0, 0.0))
0
>>> w.add(Circle(1.0), position=(2.0, 0.0))
1
>>> sorted(w.step().pairs())
[(0, 1)]
"""

from .collide import ContactResult, collide
from .contacts import Contact, Contacts, PairList
from .errors import (
    CollideWorldError,
    DuplicateIdError,
    InvalidArgumentError,
    InvalidPoseError,
    InvalidShapeError,
    MissingExtraError,
    ScenarioError,
    UnknownIdError,
    UnsupportedPairError,
)
from .geometry.culling import (
    Side,
    classify_aabb_plane,
    classify_box_plane,
    classify_box_planes,
    frustum_planes,
    frustum_planes_from_matrix,
)
from .shapes import Box, Circle, HalfPlane, Plane, Polygon, Shape, Sphere
from .world import Body, RayHit, World

__version__ = "0.2.0"

__all__ = [
    "World", "Body", "RayHit", "Contacts", "Contact", "PairList", "collide", "ContactResult",
    "Circle", "Box", "Polygon", "HalfPlane", "Sphere", "Plane", "Shape",
    "Side", "classify_box_plane", "classify_box_planes", "classify_aabb_plane", "frustum_planes",
    "frustum_planes_from_matrix",
    "CollideWorldError", "InvalidShapeError", "InvalidPoseError", "InvalidArgumentError",
    "UnsupportedPairError", "DuplicateIdError", "UnknownIdError", "ScenarioError", "MissingExtraError",
    "__version__",
]
