"""The ``memory`` plugin: its hooks, settings and factories, the installed entry point, and
auto-configured clients that remember (``OSTINATO_MEMORY_ENABLED=true``)."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import warnings

import pytest

import ostinato_memory.plugin as memory_plugin
from ostinato import AdvisorParams
from ostinato.config import (
    BadSettingWarning,
    Settings,
    build_container,
    create_plugin_manager,
    create_registry,
)
from ostinato.errors import ConfigurationError, PluginError
from ostinato.messages import AssistantMessage, UserMessage
from ostinato.plugins import FactoryContext, hookimpl
from ostinato.testing import ScriptedChatModel
from ostinato_memory import (
    InMemoryChatMemoryRepository,
    MemorySettings,
    MessageChatMemoryAdvisor,
    MessageWindowChatMemory,
    SQLiteChatMemoryRepository,
    create_chat_memory_repository,
    create_memory_advisor,
    load_memory_settings,
)
from tests.plugins.memory.harness import MODES, check_an_auto_configured_client_remembers


def registry_with_plugin():
    return create_registry(create_plugin_manager(Settings(), plugins=[memory_plugin]))


def test_the_entry_point_is_installed():
    found = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="ostinato")}
    assert found["memory"] == "ostinato_memory.plugin"


def test_the_hooks_register_repositories_settings_and_the_advisor():
    registry = registry_with_plugin()
    assert sorted(registry.chat_memory_repositories) == ["in-memory", "sqlite"]
    assert registry.settings["OSTINATO_MEMORY_"].value is MemorySettings
    assert "memory" in registry.advisors
    context = FactoryContext(registry=registry, settings=Settings())
    assert registry.advisors["memory"].value(context) is None  # not enabled
    assert isinstance(
        registry.chat_memory_repositories["in-memory"].value(context),
        InMemoryChatMemoryRepository,
    )
    assert isinstance(
        registry.chat_memory_repositories["sqlite"].value(context), SQLiteChatMemoryRepository
    )
    # Called without a context, as in earlier releases, they read the environment.
    assert registry.advisors["memory"].value() is None
    assert isinstance(
        registry.chat_memory_repositories["in-memory"].value(), InMemoryChatMemoryRepository
    )
    assert isinstance(
        registry.chat_memory_repositories["sqlite"].value(), SQLiteChatMemoryRepository
    )


def test_settings_defaults_and_variables(monkeypatch, tmp_path):
    defaults = load_memory_settings()
    assert (defaults.enabled, defaults.repository, defaults.sqlite_path) == (
        False,
        "in-memory",
        None,
    )
    assert (defaults.max_messages, defaults.default_conversation_id) == (20, None)
    monkeypatch.setenv("OSTINATO_MEMORY_ENABLED", "true")
    monkeypatch.setenv("OSTINATO_MEMORY_REPOSITORY", " SQLite ")
    monkeypatch.setenv("OSTINATO_MEMORY_SQLITE_PATH", str(tmp_path / "m.sqlite3"))
    monkeypatch.setenv("OSTINATO_MEMORY_MAX_MESSAGES", "6")
    monkeypatch.setenv("OSTINATO_MEMORY_DEFAULT_CONVERSATION_ID", "me")
    settings = load_memory_settings()
    assert settings.enabled and settings.repository == "sqlite"
    assert settings.sqlite_path == tmp_path / "m.sqlite3"
    assert (settings.max_messages, settings.default_conversation_id) == (6, "me")
    monkeypatch.setenv("OSTINATO_MEMORY_DEFAULT_CONVERSATION_ID", "  ")
    monkeypatch.setenv("OSTINATO_MEMORY_SQLITE_PATH", "")
    blank = load_memory_settings()
    assert blank.default_conversation_id is None and blank.sqlite_path is None


def test_bad_values_name_their_variables(monkeypatch):
    monkeypatch.setenv("OSTINATO_MEMORY_MAX_MESSAGES", "0")
    monkeypatch.setenv("OSTINATO_MEMORY_ENABLED", "perhaps")
    with pytest.raises(ConfigurationError) as error:
        load_memory_settings()
    message = str(error.value)
    assert "OSTINATO_MEMORY_MAX_MESSAGES='0'" in message
    assert "OSTINATO_MEMORY_ENABLED='perhaps'" in message
    # Loading the plugins warns; building the memory advisor, which reads them, refuses.
    with pytest.warns(BadSettingWarning, match="OSTINATO_MEMORY_MAX_MESSAGES"):
        registry_with_plugin()
    with (
        pytest.warns(BadSettingWarning),
        pytest.raises(ConfigurationError, match="OSTINATO_MEMORY_MAX_MESSAGES"),
    ):
        build_container(plugins=[memory_plugin], chat_model=ScriptedChatModel()).chat_client()


def test_a_misspelled_variable_gets_a_warning_naming_the_right_one(monkeypatch):
    monkeypatch.setenv("OSTINATO_MEMORY_ENABLE", "true")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        registry_with_plugin()
    assert any("did you mean OSTINATO_MEMORY_ENABLED" in str(w.message) for w in caught)


def test_the_advisor_is_built_from_the_settings(monkeypatch, tmp_path):
    assert create_memory_advisor() is None
    path = tmp_path / "db" / "m.sqlite3"
    monkeypatch.setenv("OSTINATO_MEMORY_ENABLED", "1")
    monkeypatch.setenv("OSTINATO_MEMORY_REPOSITORY", "sqlite")
    monkeypatch.setenv("OSTINATO_MEMORY_SQLITE_PATH", str(path))
    monkeypatch.setenv("OSTINATO_MEMORY_MAX_MESSAGES", "4")
    monkeypatch.setenv("OSTINATO_MEMORY_DEFAULT_CONVERSATION_ID", "me")
    advisor = create_memory_advisor()
    assert isinstance(advisor, MessageChatMemoryAdvisor)
    assert advisor.order == MessageChatMemoryAdvisor.DEFAULT_ORDER
    assert advisor.default_conversation_id == "me"
    memory = advisor.chat_memory
    assert isinstance(memory, MessageWindowChatMemory) and memory.max_messages == 4
    repository = memory.repository
    assert isinstance(repository, SQLiteChatMemoryRepository) and repository.path == path
    assert not path.exists()  # created on first use only


def test_repositories_by_name(monkeypatch):
    with pytest.raises(ConfigurationError) as error:
        create_chat_memory_repository("redis")
    assert "OSTINATO_MEMORY_REPOSITORY='redis'" in str(error.value)
    assert "in-memory, sqlite" in str(error.value)

    class Registration:
        def __init__(self, value):
            self.value = value

    class Registry:
        def __init__(self):
            self.chat_memory_repositories = {
                "redis": Registration(InMemoryChatMemoryRepository),
                "junk": Registration(lambda: "not a repository"),
            }

    found = create_chat_memory_repository("redis", registry=Registry())
    assert isinstance(found, InMemoryChatMemoryRepository)
    with pytest.raises(PluginError, match="returned str"):
        create_chat_memory_repository("junk", registry=Registry())
    with pytest.raises(ConfigurationError, match="installed: in-memory, junk, redis, sqlite"):
        create_chat_memory_repository("nope", registry=Registry())


class RepositoryPlugin:
    """Another plugin contributing a repository the memory plugin can be told to use."""

    def __init__(self) -> None:
        self.repository = InMemoryChatMemoryRepository()

    @hookimpl
    def register_chat_memory_repositories(self, register):  # type: ignore[no-untyped-def]
        register("elsewhere", lambda: self.repository)


def test_auto_configuration_finds_other_plugins_repositories(monkeypatch):
    monkeypatch.setenv("OSTINATO_MEMORY_ENABLED", "true")
    monkeypatch.setenv("OSTINATO_MEMORY_REPOSITORY", "elsewhere")
    other = RepositoryPlugin()
    model = ScriptedChatModel(["noted"])
    container = build_container(plugins={"memory": memory_plugin, "other": other}, chat_model=model)
    client = container.chat_client()
    client.prompt("remember me").advisors(AdvisorParams.conversation_id("x")).call().content()
    assert other.repository.find_by_conversation_id_sync("x") == [
        UserMessage("remember me"),
        AssistantMessage("noted"),
    ]


@pytest.mark.parametrize("mode", MODES)
async def test_an_auto_configured_client_remembers(monkeypatch, tmp_path, mode):
    monkeypatch.setenv("OSTINATO_MEMORY_REPOSITORY", "sqlite")
    monkeypatch.setenv("OSTINATO_MEMORY_SQLITE_PATH", str(tmp_path / "m.sqlite3"))
    client = await check_an_auto_configured_client_remembers(monkeypatch, [memory_plugin], mode)
    assert "MessageChatMemoryAdvisor [memory]" in client.prompt("x").describe()
    with SQLiteChatMemoryRepository(tmp_path / "m.sqlite3") as repository:
        assert len(repository.find_by_conversation_id_sync("me")) == 4


def test_loading_the_plugin_is_cheap():
    code = (
        "import sys, ostinato, ostinato.plugins\n"
        "before = set(sys.modules)\n"
        "import ostinato_memory.plugin\n"
        "new = set(sys.modules) - before\n"
        "heavy = {'sqlite3', 'pydantic_settings', 'ostinato_memory._sqlite',\n"
        "         'ostinato_memory._settings', 'ostinato_memory._factories', 'ostinato.config'}\n"
        "print(sorted(new & heavy))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_the_advisor_factory_still_takes_the_registry_and_settings_of_earlier_releases():
    registry = registry_with_plugin()
    enabled = MemorySettings(enabled=True)
    by_position = memory_plugin.memory_advisor(registry, enabled)
    by_keyword = memory_plugin.memory_advisor(registry=registry, plugin_settings=enabled)
    assert isinstance(by_position, MessageChatMemoryAdvisor)
    assert isinstance(by_keyword, MessageChatMemoryAdvisor)
