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

from typing import TYPE_CHECKING

from . import build as _build  # noqa: E402,F401  (registers what a background build compiles)
from . import render as _render  # noqa: E402,F401  (hands World.draw its renderer)
from .backend import get_threads, set_threads
from .collide import ContactResult, collide, collide_many
from .contacts import Contact, Contacts, PairList
from .culling import (
    Side,
    classify_aabb_plane,
    classify_box_plane,
    classify_box_planes,
    frustum_planes,
    frustum_planes_from_matrix,
)
from .errors import (
    CollideWorldError,
    DuplicateIdError,
    InvalidArgumentError,
    InvalidPoseError,
    InvalidShapeError,
    MissingExtraError,
    ScenarioError,
    UndecidedError,
    UnknownIdError,
    UnsupportedPairError,
)
from .shapes import (
    Box,
    Capsule,
    Chain,
    Circle,
    Compound,
    Cone,
    ConvexHull,
    Cylinder,
    HalfPlane,
    HeightField,
    Plane,
    Polygon,
    Segment,
    Shape,
    Sphere,
    TriangleMesh,
)
from .warm import warm_up
from .world import Body, CastHit, NearHit, RayHit, RayHitArrays, World

if TYPE_CHECKING:  # loaded lazily below; named here for type checkers
    from .proximity import (
        DistanceArrays,
        DistanceResult,
        ImpactArrays,
        ImpactResult,
        TrajectoryResult,
        check_trajectory,
        distance,
        distance_many,
        time_of_impact,
        time_of_impact_many,
    )

__version__ = "0.14.0"

# The proximity queries compile their kernels with numba when it imports; they
# are loaded on first use (PEP 562) so that ``import collideworld`` does not pay
# for numba's import (about 0.3 s) when they are not used.
_LAZY = {name: "proximity" for name in
         ("distance", "time_of_impact", "check_trajectory", "DistanceResult", "ImpactResult", "TrajectoryResult",
          "distance_many", "time_of_impact_many", "DistanceArrays", "ImpactArrays")}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

__all__ = [
    "World", "Body", "RayHit", "RayHitArrays", "NearHit", "CastHit", "Contacts", "Contact", "PairList",
    "collide", "collide_many", "ContactResult",
    "Circle", "Box", "Polygon", "HalfPlane", "Sphere", "Plane", "Capsule", "Segment", "ConvexHull", "Compound", "Shape",
    "TriangleMesh", "HeightField", "Chain", "Cylinder", "Cone",
    "Side", "classify_box_plane", "classify_box_planes", "classify_aabb_plane", "frustum_planes",
    "frustum_planes_from_matrix",
    "CollideWorldError", "InvalidShapeError", "InvalidPoseError", "InvalidArgumentError",
    "UnsupportedPairError", "DuplicateIdError", "UnknownIdError", "ScenarioError", "MissingExtraError",
    "UndecidedError",
    "distance", "time_of_impact", "check_trajectory", "DistanceResult", "ImpactResult", "TrajectoryResult",
    "distance_many", "time_of_impact_many", "DistanceArrays", "ImpactArrays",
    "warm_up", "set_threads", "get_threads", "__version__",
]
