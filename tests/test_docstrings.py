"""The documentation standard (issue 6), checked over the whole package.

Every module declares ``__all__``, and every public function and class (a
name in its module's ``__all__`` that is defined in that module, not
re-exported) has a numpydoc ``Examples`` section with a ``>>>`` example.
The examples themselves run as doctests (``--doctest-modules`` in
pyproject.toml); this only checks that they exist.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from types import ModuleType

import pytest

import collideworld

# A numpydoc section header: a title line, then a line of dashes.
_SECTION = re.compile(r"^(\S[^\n]*)\n-{3,}[ \t]*$", re.MULTILINE)


def _module_names() -> list[str]:
    walked = pkgutil.walk_packages(collideworld.__path__, prefix="collideworld.")
    return ["collideworld"] + sorted(info.name for info in walked)


MODULE_NAMES = _module_names()


def _public_objects(module: ModuleType) -> list[tuple[str, object]]:
    """("module.name", object) for each function or class the module defines and exports."""
    out = []
    for name in getattr(module, "__all__", ()):
        obj = getattr(module, name)
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module.__name__:
            out.append((f"{module.__name__}.{name}", obj))
    return out


def _all_public_objects() -> dict[str, object]:
    found: dict[str, object] = {}
    for module_name in MODULE_NAMES:
        found.update(_public_objects(importlib.import_module(module_name)))
    return found


PUBLIC = _all_public_objects()


def _examples_section(obj: object) -> str | None:
    """The body of the docstring's Examples section, or None without one.

    Reads ``__doc__`` itself, not ``inspect.getdoc``, which would hand a
    class without a docstring the docstring of its base class.
    """
    doc = inspect.cleandoc(getattr(obj, "__doc__", None) or "")
    headers = list(_SECTION.finditer(doc))
    for k, header in enumerate(headers):
        if header.group(1).strip() == "Examples":
            end = headers[k + 1].start() if k + 1 < len(headers) else len(doc)
            return doc[header.end():end]
    return None


def _has_example(obj: object) -> bool:
    section = _examples_section(obj)
    return section is not None and any(line.lstrip().startswith(">>>") for line in section.splitlines())


@pytest.mark.parametrize("module_name", MODULE_NAMES)
def test_every_module_declares_all(module_name: str) -> None:
    module = importlib.import_module(module_name)
    assert hasattr(module, "__all__"), f"{module_name} has no __all__"
    exported = module.__all__
    assert isinstance(exported, (list, tuple)) and all(isinstance(n, str) for n in exported), \
        f"{module_name}.__all__ must be a list of names, got {exported!r}"
    unknown = [n for n in exported if not hasattr(module, n)]
    assert not unknown, f"{module_name}.__all__ names what the module does not define: {unknown}"


@pytest.mark.parametrize("qualname", sorted(PUBLIC))
def test_public_object_has_example(qualname: str) -> None:
    obj = PUBLIC[qualname]
    assert _examples_section(obj) is not None, f"{qualname}: the docstring has no Examples section"
    assert _has_example(obj), f"{qualname}: the Examples section has no >>> example"


def test_examples_section_parsing() -> None:
    # The checker itself: a >>> outside the Examples section does not count.
    def documented() -> None:
        """Summary.

        Examples
        --------
        >>> 1 + 1
        2
        """

    def example_elsewhere() -> None:
        """Summary.

        Notes
        -----
        >>> 1 + 1
        2

        Examples
        --------
        Described in words only.

        See Also
        --------
        documented
        """

    assert _has_example(documented)
    assert _examples_section(example_elsewhere) is not None
    assert not _has_example(example_elsewhere)


def _world_methods() -> list[str]:
    from collideworld import World
    return sorted(name for name, m in vars(World).items()
                  if not name.startswith("_") and (inspect.isfunction(m) or isinstance(m, property)))


@pytest.mark.parametrize("name", _world_methods())
def test_world_method_has_example(name: str) -> None:
    # the World is what users call every frame: each of its methods shows how
    from collideworld import World
    member = vars(World)[name]
    obj = member.fget if isinstance(member, property) else member
    assert _has_example(obj), f"World.{name}: the docstring has no Examples section with a >>> example"
