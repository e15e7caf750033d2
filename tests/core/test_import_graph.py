"""The import graph of core runs one way. Bottom to top, the layers are::

    errors ← settings ← messages ← prompt ← model ← events ← tools ← advisors ← client
        ← config ← cli

and beside them, at the height of the layer named:

- ``prompt``: ``prompt_template`` (the template that renders a prompt's text) and
  ``_tool_contract`` (the tool callback protocol and tool definition, public from
  ``ostinato.tools``, which prompt options carry);
- ``settings``: ``transport`` (the bytes of one HTTP exchange: clients, retries,
  framing, body limits; it knows nothing of messages, prompts or responses);
- ``model``: ``http`` (the model contract over HTTP, on ``transport``) and
  ``instrumentation`` (the scope registries that adapters and the advisor chain
  read);
- ``tools``: ``runtime`` (the private loop behind the sync faces of tools and client),
  ``memory`` (conversation memory), ``retrieval`` (documents, embedding models, vector
  stores: the sync faces run on ``runtime``, the HTTP embedding base on ``http``) and
  ``units`` (model rounds, tool calls and memory reads and writes as values, and the
  wrapper stack they run through: tools, the model advisors and memory advisors use it);
- ``config``: ``plugins`` (plugin discovery and registration) and ``durable`` (the
  engine-neutral face of durable turns: the turn runner and engines, which build clients
  from the configuration);
- ``cli``: ``testing`` (the test kit, built on the whole client).

``settings`` sits just above ``errors``: the typed environment settings, which the HTTP
adapters, plugins and configuration read. ``events`` sits above ``model``: loop events
name responses and messages, and tools and advisors emit them.

A module imports only from its own layer, the layers below it, and the leaves every
layer may use. Every import counts: at module level, inside a function (a lazy import
runs too, only later), and under ``if TYPE_CHECKING:`` (a type-level import ties the
layers together for a reader and a type checker just as much). The root package
``ostinato`` is the public facade above everything and is not layered; reading
``ostinato.__version__`` from it is allowed anywhere. An import that climbs on purpose is
listed in :data:`EXCEPTIONS` with its reason; the list is checked to stay exact.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ostinato

SOURCE = Path(ostinato.__file__).parent

# Modules that import nothing of ostinato themselves; any layer may use them.
LEAVES = {
    "ostinato._frozen",
    "ostinato._aio",
    "ostinato._lazy",
    "ostinato.context_keys",
    "ostinato.redaction",
    "ostinato._usage_limits",
}
LAYERS = (
    "errors",
    "settings",
    "messages",
    "prompt",
    "model",
    "events",
    "tools",
    "advisors",
    "client",
    "config",
    "cli",
)
# Packages and modules at the height of a layer (the longest matching name wins).
BESIDE = {
    "ostinato.prompt_template": "prompt",
    "ostinato._tool_contract": "prompt",
    "ostinato.transport": "settings",
    "ostinato.http": "model",
    "ostinato.instrumentation": "model",
    "ostinato.runtime": "tools",
    "ostinato.memory": "tools",
    "ostinato.retrieval": "tools",
    "ostinato.durable": "config",
    "ostinato.units": "tools",
    "ostinato.plugins": "config",
    "ostinato.testing": "cli",
}
# (importer, imported) pairs that climb on purpose, with why. None do today.
EXCEPTIONS: dict[tuple[str, str], str] = {}


def layer_of(module: str) -> int | None:
    """The layer index of ``module``, or None for names outside the layers (the root)."""
    parts = module.split(".")
    if len(parts) < 2 or parts[0] != "ostinato":
        return None
    for end in range(len(parts), 1, -1):
        if (beside := BESIDE.get(".".join(parts[:end]))) is not None:
            return LAYERS.index(beside)
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else None


def module_name(path: Path) -> str:
    relative = path.relative_to(SOURCE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every ``ostinato`` module ``path`` imports: at module level, in function bodies and
    under ``if TYPE_CHECKING:`` (``from ostinato import x`` counts as ``ostinato.x``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("ostinato"))
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            module = node.module or ""
            if module == "ostinato":
                found.update(f"ostinato.{a.name}" for a in node.names)
            elif module.startswith("ostinato."):
                found.add(module)
    return found


MODULES = sorted(SOURCE.rglob("*.py"))
LAYERED = [p for p in MODULES if layer_of(module_name(p)) is not None]


def climbs(path: Path) -> list[str]:
    name = module_name(path)
    own = layer_of(name)
    assert own is not None
    return sorted(
        imported
        for imported in imports_of(path) - LEAVES
        if (layer := layer_of(imported)) is not None
        and layer > own
        and (name, imported) not in EXCEPTIONS
    )


def test_every_module_of_core_is_layered_or_a_leaf():
    outside = [
        name
        for p in MODULES
        if (name := module_name(p)) != "ostinato" and name not in LEAVES and layer_of(name) is None
    ]
    assert outside == [], f"{outside}: give each a layer (LAYERS or BESIDE) or make it a leaf"


@pytest.mark.parametrize("path", LAYERED, ids=lambda p: module_name(p))
def test_no_module_imports_a_layer_above_its_own(path):
    name = module_name(path)
    upward = climbs(path)
    assert upward == [], (
        f"{name} (layer {LAYERS[layer_of(name) or 0]!r}) imports {', '.join(upward)} from "
        f"a layer above it; the order is {' <- '.join(LAYERS)}: move the code that needs it "
        "up, the name it needs down, or type it with a protocol of its own layer"
    )


def test_every_exception_still_climbs():
    by_name = {module_name(p): p for p in MODULES}
    stale = [
        pair
        for pair in EXCEPTIONS
        if pair[1] not in imports_of(by_name[pair[0]])
        or (layer_of(pair[1]) or 0) <= (layer_of(pair[0]) or 0)
    ]
    assert stale == [], f"{stale} no longer climb: remove them from EXCEPTIONS"


BOTTOM = sorted([SOURCE / "context_keys.py", *SOURCE.joinpath("errors").glob("*.py")], key=str)


@pytest.mark.parametrize("path", BOTTOM, ids=lambda p: module_name(p))
def test_the_bottom_imports_nothing_of_ostinato(path):
    # The errors package imports only its own modules.
    own = {m for m in imports_of(path) if m.startswith("ostinato.errors.")}
    assert imports_of(path) - own == set()


def test_messages_import_only_the_leaves():
    assert imports_of(SOURCE / "messages.py") <= LEAVES


@pytest.mark.parametrize("name", sorted(LEAVES))
def test_the_leaves_import_nothing_of_ostinato(name):
    path = SOURCE.joinpath(*name.split(".")[1:]).with_suffix(".py")
    assert imports_of(path) == set()
