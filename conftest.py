"""Settings for the whole test run (tests/ and the package's doctests).

No background builder (collideworld.background): the suite's processes use
``backend="auto"`` and would each find the kernels unbuilt on a fresh
machine; compiling in the foreground, as before, keeps their answers on the
compiled kernels and starts no extra processes. Tests of the builder turn it
on in their own subprocesses. Export ``COLLIDEWORLD_BACKGROUND_BUILD=1`` to
run the suite with it.
"""

import os

os.environ.setdefault("COLLIDEWORLD_BACKGROUND_BUILD", "0")
