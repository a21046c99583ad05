"""Sphinx configuration of the API reference (built by tests/test_docs.py).

Build by hand: ``python -m sphinx -W -n -b html docs docs/_build``.
The reference pages (reference/*.rst) name each public object; its text
comes from the numpydoc docstrings in the package.
"""

import os
import sys

sys.path.insert(0, os.path.abspath(".."))  # this checkout's collideworld, not an installed one

import collideworld  # noqa: E402

project = "collideworld"
author = "the collideworld authors"
copyright = "2026, the collideworld authors"
version = release = collideworld.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
]

# The Markdown pages are not Sphinx sources; they are copied next to the HTML
# and linked from the index as they are.
exclude_patterns = ["_build", "*.md"]
html_extra_path = ["architecture.md", "scenario-format.md"]
html_theme = "alabaster"
html_static_path: list[str] = []

# Types are documented in the numpydoc Parameters/Returns sections, with
# array shapes; annotations in the signatures would repeat them, less clearly.
autodoc_typehints = "none"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
# The pages list every object explicitly: nothing is generated into the source tree.
autosummary_generate = False

numpydoc_show_class_members = False  # members are documented by autodoc, not as numpydoc tables
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# Every cross-reference must resolve (nitpicky): a renamed or removed object
# named in a docstring or a page fails the build. Only names from other
# projects are let through, as there is no network for intersphinx.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|typing|collections|os|enum|abc)\..*"),
    (r"py:.*", r"(int|float|str|bool|bytes|object|tuple|list|dict|set|frozenset|None|Any|ValueError|KeyError|"
               r"TypeError|Exception|FileNotFoundError|OSError|IntEnum|NamedTuple|ndarray|Iterator)"),
]
