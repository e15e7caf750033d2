"""The public surface is deliberate: every module declares ``__all__``, every exported
name exists and is documented, and the top-level package exports exactly these names."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import ostinato

TOP_LEVEL = {
    "Advisor",
    "AdvisorParams",
    "ApprovalDecision",
    "AssistantMessage",
    "BaseAdvisor",
    "CallAdvisor",
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
    "Ordered",
    "OstinatoError",
    "PendingToolCalls",
    "Prompt",
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
    "UserMessage",
    "__version__",
    "tool",
    "tool_callbacks",
}
LAZY_TOP_LEVEL = {"AutoConfiguration", "chat_client"}


def all_modules() -> list[str]:
    names = ["ostinato"]
    for info in pkgutil.walk_packages(ostinato.__path__, "ostinato."):
        if not info.name.endswith(".__main__"):  # running it is its whole point
            names.append(info.name)
    return sorted(names)


MODULES = all_modules()


def test_top_level_exports_exactly_the_intended_names():
    assert set(ostinato.__all__) - LAZY_TOP_LEVEL == TOP_LEVEL


@pytest.mark.parametrize("name", MODULES)
def test_module_declares_all_and_documents_itself(name):
    module = importlib.import_module(name)
    assert module.__doc__ and module.__doc__.strip(), f"{name} has no module docstring"
    assert isinstance(getattr(module, "__all__", None), list), f"{name} has no __all__ list"
    assert len(set(module.__all__)) == len(module.__all__), f"{name}.__all__ repeats a name"


def _public_members(obj: type) -> list[tuple[str, object]]:
    members = []
    for attr, value in vars(obj).items():
        if attr.startswith("_"):
            continue
        if isinstance(value, staticmethod | classmethod):
            value = value.__func__
        if isinstance(value, property) or inspect.isfunction(value):
            members.append((attr, value))
    return members


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
            for attr, member in _public_members(value):
                doc = member.__doc__ if isinstance(member, property) else inspect.getdoc(member)
                assert doc, f"{name}.{export}.{attr} has no docstring"
