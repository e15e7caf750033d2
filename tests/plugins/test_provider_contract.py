"""What every HTTP provider plugin (openai, anthropic, ollama) promises, checked the same way.

Parametrised over the adapters: the README's examples, the entry point and the hooks (the provider and its
settings), auto-configuration, an import that stays light, the package's public names
(lazy, documented, with ``__all__`` in every module); their settings share the
connection variables of :class:`~ostinato.http.ProviderSettings` under their own prefix,
refuse a bad base URL when they load (naming the variable, a password masked), and their
factory passes every connection setting on to the model.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import inspect
import io
import json
import pkgutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from ostinato.config import load_settings
from ostinato.errors import ConfigurationError
from ostinato.http import HttpxChatModel, ProviderSettings
from ostinato.plugins import FactoryContext, PluginInfo, PluginManager, Registry, collect_registry
from ostinato.settings import Settings
from ostinato_anthropic import AnthropicSettings
from ostinato_anthropic import create_chat_model as anthropic_model
from ostinato_ollama import OllamaSettings
from ostinato_ollama import create_chat_model as ollama_model
from ostinato_openai import OpenAISettings
from ostinato_openai import create_chat_model as openai_model
from tests.docs.test_snippets import snippets
from tests.fakes.environment import clean_provider_environment
from tests.plugins.plugin_under_test import PluginUnderTest

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"


@dataclass(frozen=True)
class Provider(PluginUnderTest):
    """One provider plugin as the contract drives it."""

    settings: type[ProviderSettings]
    create: Callable[..., HttpxChatModel[Any]]
    fallbacks: tuple[str, ...]  # the ecosystem's variables it also reads
    model_class: str  # its chat model's name in the package
    model: str  # a model name to build it for
    public: frozenset[str]  # the package's ``__all__``
    #: Variables set to build a model; what the built model's ``base_url`` must be.
    environment: Mapping[str, str] = field(default_factory=dict)
    built_base_url: str | None = None
    #: Values the settings refuse, and what the error says besides the variable.
    bad_values: Mapping[str, str] = field(default_factory=dict)
    bad_explained: tuple[str, ...] = ()
    #: The header the API key travels in.
    key_header: str = "authorization"


PROVIDERS = [
    Provider(
        "openai",
        OpenAISettings,
        openai_model,
        ("OPENAI_BASE_URL", "OPENAI_API_KEY"),
        "OpenAIChatModel",
        "gpt-4.1-mini",
        frozenset(
            {
                "DEFAULT_BASE_URL",
                "OpenAIChatModel",
                "OpenAIChatOptions",
                "OpenAISettings",
                "OpenAIWireFormat",
                "RetryPolicy",
                "SystemRole",
                "__version__",
                "create_chat_model",
                "json_schema_response_format",
            }
        ),
        {"OSTINATO_OPENAI_API_KEY": "sk-x"},
        bad_values={"MAX_RETRIES": "-1", "TIMEOUT": "soon"},
    ),
    Provider(
        "anthropic",
        AnthropicSettings,
        anthropic_model,
        ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"),
        "AnthropicChatModel",
        "claude-haiku-4-5",
        frozenset(
            {
                "CACHE_CONTROL",
                "DEFAULT_API_VERSION",
                "DEFAULT_BASE_URL",
                "DEFAULT_MAX_TOKENS",
                "FINISH_REASON_RAW",
                "STOP_SEQUENCE",
                "THINKING_BLOCKS",
                "AnthropicChatModel",
                "AnthropicChatOptions",
                "AnthropicSettings",
                "AnthropicWireFormat",
                "__version__",
                "create_chat_model",
                "json_schema_output_config",
            }
        ),
        {"OSTINATO_ANTHROPIC_API_KEY": "sk-ant-x"},
        bad_values={"MAX_TOKENS": "0", "TEMPERATURE": "hot"},
        key_header="x-api-key",
    ),
    Provider(
        "ollama",
        OllamaSettings,
        ollama_model,
        ("OLLAMA_HOST", "OLLAMA_API_KEY"),
        "OllamaChatModel",
        "qwen3",
        frozenset(
            {
                "CREATED_AT",
                "DEFAULT_BASE_URL",
                "FINISH_REASON_RAW",
                "OllamaChatModel",
                "OllamaChatOptions",
                "OllamaSettings",
                "OllamaWireFormat",
                "__version__",
                "create_chat_model",
                "ollama_base_url",
            }
        ),
        {"OLLAMA_HOST": "0.0.0.0:11500"},
        "http://127.0.0.1:11500",
        bad_values={"THINK": "maybe", "NUM_CTX": "big"},
        bad_explained=("true, false, low, medium or high",),
    ),
]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    clean_provider_environment(monkeypatch, tmp_path)


@pytest.fixture(params=PROVIDERS, ids=[p.name for p in PROVIDERS])
def provider(request: pytest.FixtureRequest) -> Provider:
    return request.param  # type: ignore[no-any-return]


def registry(provider: Provider) -> Registry:
    manager = PluginManager(strict=True)
    manager.add_plugin(provider.plugin, PluginInfo(provider.name, value=provider.plugin.__name__))
    return collect_registry(manager)


def test_the_entry_point_is_declared(provider: Provider) -> None:
    (entry,) = [
        ep for ep in importlib.metadata.entry_points(group="ostinato") if ep.name == provider.name
    ]
    assert entry.value == f"ostinato_{provider.name}.plugin"
    assert entry.load() is provider.plugin


def test_hooks_register_the_provider_and_the_settings(
    provider: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ostinato.config import check_settings_class

    found = registry(provider)
    assert set(found.chat_models) == {provider.name}
    assert set(found.settings) == {provider.prefix}
    settings_class = found.settings[provider.prefix].value
    assert settings_class is provider.settings
    check_settings_class(provider.prefix, settings_class, provider.name)

    for name, value in provider.environment.items():
        monkeypatch.setenv(name, value)
    context = FactoryContext(registry=found, settings=Settings())
    model = found.chat_models[provider.name].value(context, provider.model)
    assert type(model) is getattr(provider.package, provider.model_class)
    assert model.default_options.model == provider.model
    if provider.built_base_url is not None:
        assert model.base_url == provider.built_base_url


def test_auto_configuration_builds_the_model(
    provider: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ostinato.config import Settings, create_chat_model

    monkeypatch.setenv("OSTINATO_MODEL", f"{provider.name}:{provider.model}")
    for name, value in provider.environment.items():
        monkeypatch.setenv(name, value)
    model = create_chat_model(Settings(), registry(provider))
    assert type(model) is getattr(provider.package, provider.model_class)
    assert model.default_options.model == provider.model


_PROBE = """
import json, sys
import ostinato_{name}.plugin
import ostinato_{name}
from ostinato_{name} import {options}
heavy = ("httpx", "pydantic_settings", "ostinato_{name}._model", "ostinato.http._model")
print(json.dumps(sorted(n for n in heavy if n in sys.modules)))
"""


def test_importing_the_plugin_and_package_stays_light(provider: Provider) -> None:
    options = provider.model_class.replace("Model", "Options")
    probe = _PROBE.format(name=provider.name, options=options)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_lazy_attributes(provider: Provider) -> None:
    package = provider.package
    assert set(package.__all__) == provider.public
    for name in package.__all__:
        assert getattr(package, name) is not None
    assert dir(package) == sorted(package.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        package.nope  # noqa: B018


def _modules() -> list[tuple[str, str]]:
    found = []
    for provider in PROVIDERS:
        package = provider.package
        found.append((provider.name, package.__name__))
        prefix = f"{package.__name__}."
        found.extend(
            (provider.name, i.name) for i in pkgutil.walk_packages(package.__path__, prefix)
        )
    return found


@pytest.mark.parametrize(("plugin", "name"), _modules())
def test_every_module_declares_all_and_documents_its_names(plugin: str, name: str) -> None:
    module = importlib.import_module(name)
    assert module.__doc__, f"{name} has no module docstring"
    assert isinstance(getattr(module, "__all__", None), list), f"{name} has no __all__"
    for export in module.__all__:
        value = getattr(module, export)
        if not (inspect.isclass(value) or inspect.isfunction(value)):
            continue
        if not value.__module__.startswith(f"ostinato_{plugin}"):
            continue
        assert inspect.getdoc(value), f"{name}.{export} has no docstring"
        for attr, member in vars(value).items() if inspect.isclass(value) else ():
            if attr.startswith("_"):
                continue
            if isinstance(member, staticmethod | classmethod):
                member = member.__func__
            if isinstance(member, property) or inspect.isfunction(member):
                assert inspect.getdoc(member), f"{name}.{export}.{attr} has no docstring"


@pytest.mark.parametrize("name", [p.name for p in PROVIDERS])
def test_readme_examples_run(name: str) -> None:
    # The plugin README's Python examples run and print what the README says.
    namespace: dict[str, object] = {"__name__": f"readme_{name}"}
    found = snippets((PLUGINS / name / "README.md").read_text(encoding="utf-8"))
    assert found
    for number, (code, expected) in enumerate(found, 1):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"README.md#snippet{number}", "exec"), namespace)
        if expected is not None:
            assert out.getvalue().strip() == expected.strip()


KEY_REQUIRED = [p for p in PROVIDERS if p.settings.key_required_at is not None]


@pytest.fixture(params=KEY_REQUIRED, ids=[p.name for p in KEY_REQUIRED])
def keyed(request: pytest.FixtureRequest) -> Provider:
    """A provider whose own API requires a key."""
    return request.param  # type: ignore[no-any-return]


def test_dotenv_is_read(provider: Provider, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(f"{provider.prefix}MODEL=from-dotenv\n")
    assert provider.settings().model == "from-dotenv"  # type: ignore[attr-defined]


def test_ostinato_variables_win_over_the_fallbacks(
    provider: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(provider.fallbacks[1], "key-from-the-ecosystem")
    monkeypatch.setenv(provider.prefix + "API_KEY", "key-from-ostinato")
    api_key = provider.settings().api_key
    assert api_key is not None
    assert api_key.get_secret_value() == "key-from-ostinato"


def test_a_bare_field_name_is_not_read(provider: Provider, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("API_KEY", "sk-wrong")
    monkeypatch.setenv("MODEL", "wrong")
    settings = provider.settings()
    assert settings.api_key is None
    assert settings.model == provider.settings.model_fields["model"].default  # type: ignore[attr-defined]


def test_a_bad_value_names_the_variable(
    provider: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in provider.bad_values.items():
        monkeypatch.setenv(provider.prefix + name, value)
    monkeypatch.setenv(provider.prefix + "API_KEY", "key-must-not-show")
    with pytest.raises(ConfigurationError) as caught:
        provider.create(provider.model)
    message = str(caught.value)
    for name, value in provider.bad_values.items():
        assert f"{provider.prefix}{name}={value!r}" in message
    for explanation in provider.bad_explained:
        assert explanation in message
    assert "key-must-not-show" not in message


def test_the_providers_own_api_without_a_key_is_a_configuration_error(keyed: Provider) -> None:
    with pytest.raises(ConfigurationError, match=f"{keyed.prefix}API_KEY"):
        keyed.create(keyed.model)


def test_a_local_server_needs_no_key(keyed: Provider, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(keyed.prefix + "BASE_URL", "http://127.0.0.1:8080/v1")
    model = keyed.create("local")
    assert model.default_options.model == "local"
    assert keyed.key_header not in model._headers


CONNECTION_VARIABLES = [
    "API_KEY",
    "BASE_URL",
    "TIMEOUT",
    "CONNECT_TIMEOUT",
    "MAX_RETRIES",
    "MAX_RETRY_TIME",
    "MAX_CONNECTIONS",
    "MAX_KEEPALIVE_CONNECTIONS",
    "EXTRA_HEADERS",
    "EXTRA_QUERY",
    "MAX_RESPONSE_BYTES",
    "CALL_DEADLINE",
    "FIRST_EVENT_TIMEOUT",
]


def test_the_settings_extend_provider_settings(provider: Provider) -> None:
    assert issubclass(provider.settings, ProviderSettings)
    assert provider.settings.model_config.get("env_prefix") == provider.prefix


@pytest.mark.parametrize("name", CONNECTION_VARIABLES)
def test_every_connection_variable_is_read(provider: Provider, name: str) -> None:
    from ostinato.config import setting_fields

    names = {n for f in setting_fields(provider.settings) for n in f.env_names}
    assert provider.prefix + name in names


@pytest.mark.parametrize("value", ["ftp://x", "http://host:port"])
def test_a_bad_base_url_is_refused_when_the_settings_load(
    provider: Provider, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(provider.prefix + "BASE_URL", value)
    with pytest.raises(ConfigurationError) as caught:
        load_settings(provider.settings)
    message = str(caught.value)
    assert f"expected http(s)://host[:port][/path] in {provider.prefix}BASE_URL" in message
    assert repr(value) in message


def test_the_fallback_base_url_is_checked_too_its_password_masked(
    provider: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(provider.fallbacks[0], "ftp://me:hunter2@host:21/v1")
    with pytest.raises(ConfigurationError) as caught:
        load_settings(provider.settings)
    assert "hunter2" not in str(caught.value)
    # Ollama reads OLLAMA_HOST as the ollama command does: without the userinfo.
    shown = "ftp://host:21/v1" if provider.name == "ollama" else "ftp://me:***@host:21/v1"
    assert repr(shown) in str(caught.value)


@pytest.mark.parametrize("value", ["not-a-url", "http://", "https://"])
def test_a_value_that_is_no_url_is_refused_except_by_ollama_which_reads_a_host(
    provider: Provider, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(provider.prefix + "BASE_URL", value)
    if provider.name == "ollama":
        # OLLAMA_HOST's rules: a bare name is a host, no host is this machine.
        assert load_settings(provider.settings).base_url.startswith("http://")
        return
    with pytest.raises(ConfigurationError, match=f"in {provider.prefix}BASE_URL, got {value!r}"):
        load_settings(provider.settings)


def test_the_model_refuses_a_bad_base_url_too(provider: Provider) -> None:
    settings = provider.settings.model_construct(base_url="ftp://x", api_key=None)
    with pytest.raises(ConfigurationError, match="base_url='ftp://x' is not a usable base URL"):
        provider.create("m", settings)


def test_the_factory_passes_every_connection_setting_on(
    provider: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    values = {
        "API_KEY": "sk-contract",
        "BASE_URL": "http://127.0.0.1:9/root",
        "TIMEOUT": "7",
        "CONNECT_TIMEOUT": "2",
        "MAX_RETRIES": "4",
        "MAX_RETRY_TIME": "9",
        "MAX_CONNECTIONS": "5",
        "MAX_KEEPALIVE_CONNECTIONS": "3",
        "EXTRA_HEADERS": '{"X-Team": "a"}',
        "EXTRA_QUERY": '{"v": "2"}',
        "MAX_RESPONSE_BYTES": "1000",
        "CALL_DEADLINE": "11",
        "FIRST_EVENT_TIMEOUT": "12",
    }
    for name, value in values.items():
        monkeypatch.setenv(provider.prefix + name, value)
    assert "sk-contract" not in repr(load_settings(provider.settings))
    model = provider.create("m")
    assert model.base_url == "http://127.0.0.1:9/root"
    assert model.retry_policy.max_retries == 4
    assert model.retry_policy.max_total_time == 9
    assert model.max_response_bytes == 1000
    assert model._timeout == httpx.Timeout(7, connect=2)
    assert (model._limits.max_connections, model._limits.max_keepalive_connections) == (5, 3)
    assert model._headers["x-team"] == "a"
    assert (model._limits.keepalive_expiry, model._timeout.read) == (30.0, 7)
    assert model._params == {"v": "2"}
    assert (model._call_deadline, model._first_event_timeout) == (11.0, 12.0)
    assert model._api_key == "sk-contract"
