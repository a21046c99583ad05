"""The package's layers import only downhill (docs/architecture.md).

Every import statement of every module is read with ``ast`` (imports inside
functions too), resolved to a module of the package, and checked against the
rules below. A new module lands in a layer by its path, so a new file cannot
slip past the rules.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "collideworld"

# The layers, bottom up. A module may import from its own layer and the ones below
# it, never from a layer above. ``errors`` is the floor every layer may use.
LAYERS = [
    {"errors"},
    {"geometry"},  # pure kernels over arrays
    {"shapes", "poses"},  # validated inputs
    {"bodies", "broadphase", "spatial"},  # posed shapes; boxes -> pairs; boxes -> query hits (no shapes)
    # kernels dispatched over the store / over shapes; which kernels run, built where
    {"narrowphase", "collide", "proximity", "culling", "backend", "background"},
    {"registry", "fat_boxes", "contacts", "pair_cache", "queries", "compiled"},  # the world's parts
    {"world"},  # the front
    {"scenario", "render"},  # files and pictures of worlds
    {"cli", "__main__", "__init__", "build"},  # the command, the package's face
]

# Finer rules the layer order alone does not state (the issue that split World asked for them).
FORBIDDEN = {
    "geometry": {"shapes", "poses", "bodies", "broadphase", "narrowphase", "world", "scenario", "cli", "render"},
    "broadphase": {"world", "narrowphase", "bodies", "shapes", "pair_cache", "queries", "scenario", "cli"},
    "spatial": {"world", "narrowphase", "bodies", "shapes", "pair_cache", "queries", "scenario", "cli"},
    "world": {"scenario", "cli", "render"},
}


def _top(module: str) -> str:
    """The first component below the package: ``collideworld.geometry.aabb`` -> ``geometry``."""
    return module.split(".")[1] if module.count(".") else "__init__"


def _is_module(dotted: str, package_dir: Path) -> bool:
    where = package_dir.parent.joinpath(*dotted.split("."))
    return where.with_suffix(".py").exists() or where.is_dir()


def _imports(path: Path, package_dir: Path = PACKAGE) -> list[str]:
    """Package modules imported by ``path``, as dotted names."""
    rel = path.relative_to(package_dir.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    package = parts if path.name == "__init__.py" else parts[:-1]
    out: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # ``from . import x``: x is a module, or else a name of the package itself
            names = ([f"{target}.{a.name}" if _is_module(f"{target}.{a.name}", package_dir) else target
                      for a in node.names] if not node.module else [target])
            out.extend(n for n in names if n.startswith("collideworld"))
        elif isinstance(node, ast.Import):
            out.extend(a.name for a in node.names if a.name.startswith("collideworld"))
    return out


def _layer(top: str) -> int:
    for i, layer in enumerate(LAYERS):
        if top in layer:
            return i
    raise AssertionError(f"module group {top!r} is in no layer: add it to LAYERS in {__file__}")


# The one uphill import allowed: World.draw loads the renderer (and matplotlib, an
# optional extra) inside the method, only when a picture is asked for.
ALLOWED = {("world", "collideworld.render")}


def _violations(path: Path, package_dir: Path = PACKAGE) -> list[str]:
    me = _top(".".join(("collideworld",) + path.relative_to(package_dir).with_suffix("").parts))
    found = []
    for target in _imports(path, package_dir):
        other = _top(target)
        if other == me or target == "collideworld" or (me, target) in ALLOWED:
            continue
        if other in FORBIDDEN.get(me, set()):
            found.append(f"{path.name} ({me}) imports {target}: forbidden")
        elif _layer(other) > _layer(me):
            found.append(f"{path.name} ({me}, layer {_layer(me)}) imports {target} (layer {_layer(other)}): uphill")
    return found


MODULES = sorted(p for p in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
def test_imports_run_downhill(path: Path) -> None:
    assert _violations(path) == []


@pytest.mark.parametrize(("where", "line", "caught"), [
    ("geometry/bad.py", "from ..world import World", True),
    ("geometry/bad.py", "from .tolerance import touch_tolerance", False),
    ("broadphase/bad.py", "from ..narrowphase import contact_pairs", True),
    ("broadphase/bad.py", "def f():\n    from collideworld.bodies import BodyStore", True),
    ("world.py", "from .scenario import reader", True),
    ("pair_cache.py", "from .narrowphase import contact_pairs", False),
])
def test_the_checker_catches_uphill_imports(tmp_path: Path, where: str, line: str, caught: bool) -> None:
    package = tmp_path / "collideworld"
    module = package / where
    module.parent.mkdir(parents=True, exist_ok=True)
    module.write_text(line + "\n", encoding="utf-8")
    assert bool(_violations(module, package)) is caught
