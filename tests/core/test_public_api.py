"""The public surface is deliberate: every module declares ``__all__``, every exported
name exists and is documented, and the top-level package exports exactly these names."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import typing
from pathlib import Path

import pytest

import ostinato
from ostinato._lazy import lazy_names
from tests.fakes.public_api import public_members

# Every name ``ostinato`` exports, eager or lazy: which load on first use is the package's
# own map (``lazy_names``), checked below to be a part of these.
TOP_LEVEL = {
    "AutoConfiguration",
    "LoopEvent",
    "chat_client",
    "ToolLoopExitListener",
    "ToolLoopExit",
    "ToolCallingAdvisorSettings",
    "ToolCallingAdvisorBuilder",
    "StreamResponseSpec",
    "LoopExitReason",
    "ChatResponseMetadata",
    "ChatGenerationMetadata",
    "ChatClientResponse",
    "ChatClientRequestSpec",
    "ChatClientRequest",
    "ChatClientBuilder",
    "CallResponseSpec",
    "Advisor",
    "AdvisorChain",
    "AdvisorParams",
    "ApprovalDecision",
    "ApprovalPolicy",
    "ApprovalRequest",
    "Approver",
    "AssistantMessage",
    "BaseAdvisor",
    "CallAdvisor",
    "CancelScope",
    "ChatClient",
    "ChatModel",
    "ChatOptions",
    "ChatResponse",
    "DefaultToolCallingManager",
    "FinishReason",
    "Generation",
    "Media",
    "MemoryAdvisor",
    "MessageAggregator",
    "NoProgressAction",
    "Ordered",
    "OstinatoError",
    "PendingToolCalls",
    "Prompt",
    "PromptTemplate",
    "Steering",
    "StreamAdvisor",
    "SystemMessage",
    "ToolAdvisor",
    "ToolCall",
    "ToolCallback",
    "ToolCallingAdvisor",
    "ToolCallingChatOptions",
    "ToolCallingManager",
    "ToolContext",
    "ToolDefinition",
    "ToolExecutionResult",
    "ToolMetadata",
    "ToolResponse",
    "ToolResponseMessage",
    "Usage",
    "UnitStack",
    "UnitWrapper",
    "UsageLimits",
    "UserMessage",
    "__version__",
    "tool",
    "tool_callbacks",
}


def all_modules() -> list[str]:
    names = ["ostinato"]
    for info in pkgutil.walk_packages(ostinato.__path__, "ostinato."):
        if not info.name.endswith(".__main__"):  # running it is its whole point
            names.append(info.name)
    return sorted(names)


MODULES = all_modules()


def test_top_level_exports_exactly_the_intended_names():
    assert set(ostinato.__all__) == TOP_LEVEL
    assert set(lazy_names("ostinato")) < TOP_LEVEL


@pytest.mark.parametrize("name", MODULES)
def test_module_declares_all_and_documents_itself(name):
    module = importlib.import_module(name)
    assert module.__doc__ and module.__doc__.strip(), f"{name} has no module docstring"
    assert isinstance(getattr(module, "__all__", None), list), f"{name} has no __all__ list"
    assert len(set(module.__all__)) == len(module.__all__), f"{name}.__all__ repeats a name"


@pytest.mark.parametrize("name", MODULES)
def test_every_exported_name_exists_and_has_a_docstring(name):
    module = importlib.import_module(name)
    for export in module.__all__:
        value = getattr(module, export)  # raises if __all__ lies
        if not (inspect.isclass(value) or inspect.isfunction(value)):
            continue
        if not getattr(value, "__module__", "").startswith("ostinato"):
            continue
        assert inspect.getdoc(value), f"{name}.{export} has no docstring"
        if inspect.isclass(value):
            for attr, member in public_members(value):
                doc = member.__doc__ if isinstance(member, property) else inspect.getdoc(member)
                assert doc, f"{name}.{export}.{attr} has no docstring"


# -- rule 1: the top level exports every name user code types to use or extend the client


def _exported_namespace() -> dict[str, object]:
    """Every name any ostinato module exports (resolves annotations written for type
    checkers only)."""
    namespace: dict[str, object] = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for export in module.__all__:
            namespace.setdefault(export, getattr(module, export))
    return namespace


def _ostinato_classes(annotation: object) -> set[type]:
    found: set[type] = set()
    if isinstance(annotation, type):
        if annotation.__module__.startswith("ostinato"):
            found.add(annotation)
        return found
    origin = typing.get_origin(annotation)
    if isinstance(origin, type) and origin.__module__.startswith("ostinato"):
        found.add(origin)
    for argument in typing.get_args(annotation):
        found |= _ostinato_classes(argument)
    return found


# What user code touches to use or extend the client: these classes' public signatures.
SURFACE_ROOTS = (
    "ChatClient",
    "ChatClientBuilder",
    "ChatClientRequestSpec",
    "CallResponseSpec",
    "StreamResponseSpec",
    "Advisor",
    "CallAdvisor",
    "Steering",
    "StreamAdvisor",
    "BaseAdvisor",
    "ToolAdvisor",
    "MemoryAdvisor",
    "AdvisorChain",
    "ToolCallingAdvisor",
    "ToolLoopExitListener",
    "ChatModel",
)
# Named in those signatures, but owned by the framework and never typed by user code.
FRAMEWORK_OWNED = {
    "ChatModelCallAdvisor",  # the innermost advisors the client builds itself
    "ChatModelStreamAdvisor",
    "SpecState",  # the client's defaults, filled through the builder
    "OptionsCache",  # shared by a client's request specs
    "TurnScope",  # numbers a run's units: the chain's, made by the client
}


def _signature_classes() -> dict[str, set[str]]:
    namespace = _exported_namespace()
    seen: dict[str, set[str]] = {}
    for root_name in SURFACE_ROOTS:
        root = getattr(ostinato, root_name)
        for attr, value in vars(root).items():
            if attr.startswith("_") and attr != "__init__":
                continue
            if isinstance(value, property):
                value = value.fget
            if isinstance(value, staticmethod | classmethod):
                value = value.__func__
            if not callable(value):
                continue
            hints = typing.get_type_hints(value, localns=namespace)
            for annotation in hints.values():
                for cls in _ostinato_classes(annotation):
                    seen.setdefault(cls.__name__, set()).add(f"{root_name}.{attr}")
    return seen


def test_every_class_in_the_clients_public_signatures_is_at_top_level():
    missing = {
        name: sorted(where)
        for name, where in _signature_classes().items()
        if name not in FRAMEWORK_OWNED and name not in ostinato.__all__
    }
    assert missing == {}, f"export these from ostinato (or mark them framework-owned): {missing}"


def test_the_names_needed_to_extend_the_client_are_at_top_level():
    for name in (
        "AdvisorChain",
        "ChatClientRequest",
        "ChatClientResponse",
        "ChatGenerationMetadata",
        "ChatResponseMetadata",
        "FinishReason",
    ):
        assert name in ostinato.__all__, name


# -- rule 2: one home per name


def test_every_exported_name_has_one_home():
    objects: dict[str, dict[int, list[str]]] = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for export in module.__all__:
            value = getattr(module, export)
            if not (inspect.isclass(value) or inspect.isfunction(value)):
                continue
            objects.setdefault(export, {}).setdefault(id(value), []).append(name)
    redefined = {n: homes for n, homes in objects.items() if len(homes) > 1}
    assert redefined == {}, f"one name, several objects: {redefined}"


# -- rule 3: no private reach-ins across modules

SOURCE = Path(ostinato.__file__).parent


def _defined_private_names(tree: ast.AST) -> set[str]:
    """The ``_names`` a module defines: functions, classes, module and class attributes,
    attributes it sets on ``self``/``cls``, slots."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id in ("self", "cls")
        ):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Attribute):
            names.add(node.target.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)  # __slots__ entries
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


SOURCES = sorted(SOURCE.rglob("*.py"))
TREES = {path: ast.parse(path.read_text(encoding="utf-8")) for path in SOURCES}
DEFINED = {path: _defined_private_names(tree) for path, tree in TREES.items()}
DEFINED_ANYWHERE = set().union(*DEFINED.values())


def _is_ostinato(module: str) -> bool:
    """Whether ``module`` is ostinato's or a plugin's (``ostinato``, ``ostinato_*``)."""
    top = module.split(".")[0]
    return top == "ostinato" or top.startswith("ostinato_")


def _foreign_names(tree: ast.AST) -> set[str]:
    """The names a module binds by importing from outside ostinato (``import os``,
    ``from os import path``): their private attributes are other libraries' to judge."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not _is_ostinato(alias.name):
                    names.add(alias.asname or alias.name.split(".")[0])
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and node.module is not None
            and not _is_ostinato(node.module)
        ):
            names.update(alias.asname or alias.name for alias in node.names)
    return names


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _private_reads(tree: ast.AST, own: set[str]) -> list[str]:
    """``x._name`` reads in ``tree`` of private names ostinato defines, other than its
    ``own``, on ``self``/``cls`` or on what was imported from another library."""
    foreign = _foreign_names(tree)
    reach_ins = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        attr = node.attr
        if not attr.startswith("_") or attr.startswith("__") or attr in own:
            continue
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            continue
        if _root_name(node.value) in foreign:  # os._exit: not a name of ostinato's
            continue
        if attr in DEFINED_ANYWHERE:  # a private name of an ostinato module
            reach_ins.append(f"line {node.lineno}: {ast.unparse(node)}")
    return reach_ins


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(SOURCE)))
def test_no_module_reads_a_private_name_of_another(path):
    reach_ins = _private_reads(TREES[path], DEFINED[path])
    assert reach_ins == [], (
        f"{path.relative_to(SOURCE)} reads private names defined in other modules: "
        f"{reach_ins}; add a public or package-internal name for what it needs"
    )


# -- plugins use ostinato's public names only

PLUGINS = SOURCE.parents[2] / "plugins"
PLUGIN_SOURCES = sorted(PLUGINS.glob("*/src/**/*.py"))
PLUGIN_TREES = {path: ast.parse(path.read_text(encoding="utf-8")) for path in PLUGIN_SOURCES}


def _package_of(path: Path) -> Path:
    return path.relative_to(PLUGINS).parents[-3]  # plugins/<name>/src/<package>


PLUGIN_DEFINED = {
    package: set().union(
        *(_defined_private_names(t) for p, t in PLUGIN_TREES.items() if _package_of(p) == package)
    )
    for package in {_package_of(p) for p in PLUGIN_SOURCES}
}


def _private_imports(tree: ast.AST, package: str) -> list[str]:
    """Imports in ``tree`` of private modules or names of ostinato or of a plugin package
    other than ``package`` (its own private modules are its own)."""

    def judged(module: str) -> bool:
        return _is_ostinato(module) and module.split(".")[0] != package

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            parts = node.module.split(".")
            names = [alias.name for alias in node.names]
            if judged(node.module) and (
                any(p.startswith("_") for p in parts) or any(n.startswith("_") for n in names)
            ):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if judged(alias.name) and any(p.startswith("_") for p in parts):
                    found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("path", PLUGIN_SOURCES, ids=lambda p: str(p.relative_to(PLUGINS)))
def test_no_plugin_reaches_into_ostinato_private_names(path):
    tree = PLUGIN_TREES[path]
    reach_ins = _private_imports(tree, path.relative_to(PLUGINS).parts[2])  # <package>
    reach_ins += _private_reads(tree, PLUGIN_DEFINED[_package_of(path)])
    assert reach_ins == [], (
        f"plugins/{path.relative_to(PLUGINS)} reaches into ostinato's private names: "
        f"{reach_ins}; plugins import public names only (add a public one for what it needs)"
    )


# -- the reach-in checks themselves judge ostinato's names only


def test_the_reach_in_check_leaves_other_libraries_private_names_alone():
    assert "_exit" in DEFINED_ANYWHERE  # ostinato defines a private _exit too
    source = "import os\nimport os as system\nfrom os import path\nos._exit(1)\nsystem._exit(1)\n"
    assert _private_reads(ast.parse(source + "path._exit\n"), set()) == []
    assert _private_imports(ast.parse("from os import _exit as exit_at_once"), "ostinato_x") == []


def test_the_reach_in_check_flags_ostinato_private_names():
    source = (
        "import os\nfrom ostinato.advisors import ToolLoopTurn\nToolLoopTurn._exit\nturn._exit\n"
    )
    assert _private_reads(ast.parse(source), set()) == [
        "line 3: ToolLoopTurn._exit",
        "line 4: turn._exit",
    ]
    assert _private_reads(ast.parse(source), {"_exit"}) == []  # its own name
    imports = (
        "from ostinato.advisors._tool_loop import ToolLoopTurn\n"
        "import ostinato._lazy\n"
        "from ostinato_memory._resumed import x\n"
        "from ostinato_x._own import y\n"
    )
    assert _private_imports(ast.parse(imports), "ostinato_x") == [
        "line 1: from ostinato.advisors._tool_loop import ToolLoopTurn",
        "line 2: import ostinato._lazy",
        "line 3: from ostinato_memory._resumed import x",
    ]
