"""Compiled (numba) twins of the geometry kernels, one module per numpy module.

Each function here has the name, signature and return type of its numpy twin
in :mod:`collideworld.geometry` (``contact_ball_box`` in
``compiled/contact_ball_box.py`` twins ``geometry/contact_ball_box.py``), runs
one loop over rows with ``@njit(cache=True)`` (never ``fastmath``, which would
reorder arithmetic and break the touching rule), and gives the same hit
decisions; normals and depths agree to rounding (tests/test_compiled_kernels.py).

Importing this package imports numba; :mod:`collideworld.narrowphase` imports it
only when the compiled backend is asked for.
"""

__all__: list[str] = []
