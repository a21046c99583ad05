"""One module per scenario file, each with the function that builds it.

``STORIES`` lists the scenario generators in the order ``generate.py`` runs
them; :func:`invalid_files` builds the files of ``invalid/``. Shared helpers
(rounding, shape dictionaries, the independent contact tests, the
:class:`~generators.common.Scenario` writer) live in :mod:`generators.common`.
No module here imports collideworld.
"""

from __future__ import annotations

from .bullet_wall import story_bullet_wall
from .capsules_2d import story_capsules_2d
from .compound_2d import story_compound_2d
from .compound_3d import story_compound_3d
from .driving import story_driving
from .driving_trajectory import story_driving_trajectory
from .filtering_static import story_filtering_static
from .frustum_culling import story_frustum_culling
from .hulls_3d import story_hulls_3d
from .id_reuse import story_id_reuse
from .invalid import invalid_files
from .level_2d import story_level_2d
from .mixed_2d import story_mixed_2d
from .robot_cell import story_robot_cell
from .rts_town import story_rts_town
from .terrain_3d import story_terrain_3d
from .touching_edges_2d import story_touching_edges_2d
from .touching_edges_3d import story_touching_edges_3d
from .tumbling_3d import story_tumbling_3d

__all__ = ["STORIES", "invalid_files"]

STORIES = [
    story_rts_town,
    story_driving,
    story_tumbling_3d,
    story_frustum_culling,
    story_mixed_2d,
    story_filtering_static,
    story_id_reuse,
    story_touching_edges_2d,
    story_touching_edges_3d,
    story_driving_trajectory,
    story_bullet_wall,
    story_compound_2d,
    story_compound_3d,
    story_capsules_2d,
    story_hulls_3d,
    story_terrain_3d,
    story_robot_cell,
    story_level_2d,
]
