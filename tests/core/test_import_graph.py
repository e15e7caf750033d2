"""The import graph of core runs one way: ``errors`` ← ``messages`` ← ``prompt`` ← ``model``
← ``events`` ← ``tools`` ← ``advisors`` ← ``client``. A module imports (at run time) only from its own
layer, the layers below it, and the leaves every layer may use. Imports made for type
checkers only (under ``if TYPE_CHECKING:``) are not counted: they never run."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ostinato

SOURCE = Path(ostinato.__file__).parent

# Modules that import nothing of ostinato themselves; any layer may use them.
LEAVES = {"ostinato._frozen", "ostinato._aio", "ostinato.context_keys"}
LAYERS = ("errors", "messages", "prompt", "model", "events", "tools", "advisors", "client")
# Beside the layers: the private runtime serves tools and client (its sync faces).
BESIDE = {"runtime": "tools"}


def layer_of(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) < 2 or parts[0] != "ostinato":
        return None
    top = BESIDE.get(parts[1], parts[1])
    return LAYERS.index(top) if top in LAYERS else None


def module_name(path: Path) -> str:
    relative = path.relative_to(SOURCE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_block(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Name | ast.Attribute)
        and ast.unparse(node.test).endswith("TYPE_CHECKING")
    )


def runtime_imports(path: Path) -> set[str]:
    """Every ``ostinato`` module ``path`` imports when it runs (function bodies included)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if _type_checking_block(node):
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("ostinato"))
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").startswith("ostinato")
        ):
            found.add(node.module or "")
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


LAYERED = sorted(
    p
    for p in SOURCE.rglob("*.py")
    if layer_of(module_name(p)) is not None and "runtime" not in p.parts
)


@pytest.mark.parametrize("path", LAYERED, ids=lambda p: module_name(p))
def test_no_module_imports_a_layer_above_its_own(path):
    name = module_name(path)
    own = layer_of(name)
    assert own is not None
    upward = sorted(
        imported
        for imported in runtime_imports(path) - LEAVES
        if (layer := layer_of(imported)) is not None and layer > own
    )
    assert upward == [], (
        f"{name} (layer {LAYERS[own]!r}) imports {', '.join(upward)} from a layer above it; "
        f"the order is {' <- '.join(LAYERS)}: move the code that needs it up, or the name down"
    )


@pytest.mark.parametrize("name", ["ostinato.errors", "ostinato.context_keys"])
def test_the_bottom_imports_nothing_of_ostinato(name):
    path = SOURCE.joinpath(*name.split(".")[1:]).with_suffix(".py")
    assert runtime_imports(path) == set()


def test_messages_import_only_the_leaves():
    assert runtime_imports(SOURCE / "messages.py") <= LEAVES


@pytest.mark.parametrize("name", sorted(LEAVES))
def test_the_leaves_import_nothing_of_ostinato(name):
    path = SOURCE.joinpath(*name.split(".")[1:]).with_suffix(".py")
    assert runtime_imports(path) == set()
