"""The plugin's public surface is deliberate: every module has a docstring and ``__all__``,
every exported name exists and is documented, the package exports exactly these names,
and the README's example runs and prints what it says."""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import pkgutil
from pathlib import Path

import pytest

import ostinato_memory
from tests.docs.test_snippets import snippets

PACKAGE = {
    "DEFAULT_SYSTEM_PROMPT_TEMPLATE",
    "SCHEMA_VERSION",
    "ChatMemoryAdvisor",
    "ChatMemoryAdvisorBuilder",
    "ChatMemoryRepositoryError",
    "ChatMemoryStoreUnavailableError",
    "ConversationChange",
    "ConversationSummary",
    "DatabaseLockedError",
    "InMemoryChatMemoryRepository",
    "MemorySettings",
    "MessageChatMemoryAdvisor",
    "MessageWindowChatMemory",
    "MissingConversationIdError",
    "NewerSchemaError",
    "NotAMemoryDatabaseError",
    "PromptChatMemoryAdvisor",
    "RecentConversationsRepository",
    "SQLiteChatMemoryRepository",
    "UpdatableChatMemoryRepository",
    "__version__",
    "apply_window",
    "check_conversation_id",
    "check_messages",
    "create_chat_memory_repository",
    "create_memory_advisor",
    "decode_message",
    "default_sqlite_path",
    "encode_message",
    "load_memory_settings",
    "pair_tool_messages",
    "recent_conversations",
}

MODULES = sorted(
    ["ostinato_memory"]
    + [m.name for m in pkgutil.walk_packages(ostinato_memory.__path__, "ostinato_memory.")]
)
SOURCES = Path(ostinato_memory.__file__).parent
README = Path(__file__).resolve().parents[3] / "plugins" / "memory" / "README.md"


def test_the_package_exports_exactly_the_intended_names():
    assert set(ostinato_memory.__all__) == PACKAGE
    assert dir(ostinato_memory) == sorted(PACKAGE)
    for name in PACKAGE:
        assert getattr(ostinato_memory, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        ostinato_memory.Nope  # noqa: B018


@pytest.mark.parametrize("name", MODULES)
def test_every_module_documents_itself_and_its_exports(name):
    module = importlib.import_module(name)
    assert module.__doc__ and module.__doc__.strip(), f"{name} has no module docstring"
    assert isinstance(getattr(module, "__all__", None), list), f"{name} has no __all__ list"
    for export in module.__all__:
        value = getattr(module, export)
        if not (inspect.isclass(value) or inspect.isfunction(value)):
            continue
        if not getattr(value, "__module__", "").startswith("ostinato_memory"):
            continue
        assert inspect.getdoc(value), f"{name}.{export} has no docstring"
        if inspect.isclass(value):
            for attr, member in vars(value).items():
                if attr.startswith("_"):
                    continue
                if isinstance(member, staticmethod | classmethod):
                    member = member.__func__
                if isinstance(member, property) or inspect.isfunction(member):
                    assert member.__doc__, f"{name}.{export}.{attr} has no docstring"


@pytest.mark.parametrize("path", sorted(SOURCES.glob("*.py")), ids=lambda p: p.name)
def test_modules_stay_small(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) < 400


def test_the_readme_example_prints_what_it_says():
    namespace: dict[str, object] = {"__name__": "readme"}
    found = snippets(README.read_text(encoding="utf-8"))
    assert found, "the README has an example"
    for number, (code, expected) in enumerate(found, 1):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"README.md#snippet{number}", "exec"), namespace)
        if expected is not None:
            got = "\n".join(line.rstrip() for line in out.getvalue().strip().splitlines())
            assert got == expected.strip(), f"snippet {number}"
