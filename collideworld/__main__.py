"""``python -m collideworld``: the same as the ``collideworld`` command."""

import sys

from .cli import main

# Nothing to import from here: this module only runs the command line
# (``python -m collideworld``); the entry point is ``collideworld.cli.main``.
__all__: list[str] = []

if __name__ == "__main__":
    sys.exit(main())
