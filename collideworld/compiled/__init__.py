"""Compiled (numba) twins of the world's own stages, beside their numpy modules.

Each module here has the name of the module whose work it compiles
(``fat_boxes``: the refit of moved bodies' boxes). The geometry kernels'
twins are in :mod:`collideworld.geometry.compiled`. Importing this package
imports numba: only the compiled backend does.
"""

__all__: list[str] = []
