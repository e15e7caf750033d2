"""The AutoConfiguration container, wired from fake installed distributions."""

from __future__ import annotations

import warnings

import pytest
from dependency_injector import providers
from pydantic_settings import SettingsConfigDict

import ostinato
from ostinato.advisors import ToolCallingAdvisor
from ostinato.client import AdvisorParams, ChatClient
from ostinato.config import (
    AutoConfiguration,
    BadSettingWarning,
    PluginSettings,
    build_container,
    chat_client,
)
from ostinato.errors import ConfigurationError, PluginError
from ostinato.messages import ToolResponseMessage
from ostinato.plugins import PluginLoadWarning, hookimpl
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato.tools import tool


class AcmeRetrySettings(PluginSettings):
    """The acme plugin's one setting: ``OSTINATO_ACME_RETRIES``, an integer."""

    model_config = SettingsConfigDict(env_prefix="OSTINATO_ACME_")
    retries: int = 1


class AcmeWithRetries:
    """A plugin that registers only its settings (:class:`AcmeRetrySettings`)."""

    @hookimpl
    def register_settings(self, register):
        register("OSTINATO_ACME_", AcmeRetrySettings)


SCRIPTED_MODEL_PLUGIN = """
    from ostinato.plugins import hookimpl

    MODELS = []

    @hookimpl
    def register_chat_models(register):
        def factory(context, model_name):
            from ostinato.testing import ScriptedChatModel

            model = ScriptedChatModel(["answer from " + model_name])
            MODELS.append(model)
            return model

        register("scripted", factory)
"""

LOOP_PLUGIN = """
    from ostinato.plugins import hookimpl

    @hookimpl
    def register_tool_advisors(register):
        def factory(context, tool_calling_manager):
            from ostinato.advisors import ToolCallingAdvisor

            class {cls}(ToolCallingAdvisor):
                pass

            return {cls}(tool_calling_manager=tool_calling_manager)

        register("{name}", factory)
"""


def loop_plugin(fakes, name: str, cls: str) -> None:
    fakes.plugin(name, LOOP_PLUGIN.format(name=name, cls=cls))


class TestFromInstalledPlugins:
    def test_a_model_plugin_provides_the_model_of_the_client(self, fake_distributions, monkeypatch):
        fake_distributions.plugin("scripted", SCRIPTED_MODEL_PLUGIN)
        monkeypatch.setenv("OSTINATO_MODEL", "scripted:small-1")
        client = chat_client()
        assert isinstance(client, ChatClient)
        assert client.prompt("hi").call().content() == "answer from small-1"
        assert type(client.tool_advisor) is ToolCallingAdvisor

    def test_a_replacement_tool_advisor_takes_over_from_the_default(self, fake_distributions):
        loop_plugin(fake_distributions, "tool-search", "SearchLoop")
        container = build_container(chat_model=ScriptedChatModel())
        assert type(container.chat_client().tool_advisor).__name__ == "SearchLoop"
        choice = container.tool_advisor_choice()
        assert (choice.name, choice.plugin.distribution) == ("tool-search", "ostinato-tool-search")

    def test_two_replacements_need_the_setting(self, fake_distributions, monkeypatch):
        loop_plugin(fake_distributions, "tool-search", "SearchLoop")
        loop_plugin(fake_distributions, "other-loop", "OtherLoop")
        with pytest.raises(ConfigurationError) as caught:
            build_container(chat_model=ScriptedChatModel()).chat_client()
        assert "2 replacement tool advisors are installed" in str(caught.value)
        assert "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR" in str(caught.value)

        monkeypatch.setenv("OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR", "other-loop")
        client = build_container(chat_model=ScriptedChatModel()).chat_client()
        assert type(client.tool_advisor).__name__ == "OtherLoop"

        monkeypatch.setenv("OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR", "default")
        client = build_container(chat_model=ScriptedChatModel()).chat_client()
        assert type(client.tool_advisor) is ToolCallingAdvisor

    def test_a_broken_plugin_does_not_stop_the_others(self, fake_distributions, monkeypatch):
        fake_distributions.plugin("scripted", SCRIPTED_MODEL_PLUGIN)
        fake_distributions.plugin("broken", "raise ImportError('needs acme-sdk')\n")
        monkeypatch.setenv("OSTINATO_MODEL", "scripted:m")
        container = build_container()
        with pytest.warns(PluginLoadWarning, match="ostinato-broken"):
            client = container.chat_client()
        assert client.prompt("hi").call().content() == "answer from m"
        assert [f.plugin.name for f in container.plugin_manager().failures] == ["broken"]

    def test_strict_plugins_from_the_environment(self, fake_distributions, monkeypatch):
        fake_distributions.plugin("broken", "raise ImportError('needs acme-sdk')\n")
        monkeypatch.setenv("OSTINATO_STRICT_PLUGINS", "1")
        with pytest.raises(PluginError, match="needs acme-sdk"):
            build_container().plugin_manager()

    def test_allow_and_block_lists_from_the_environment(self, fake_distributions, monkeypatch):
        loop_plugin(fake_distributions, "tool-search", "SearchLoop")
        loop_plugin(fake_distributions, "other-loop", "OtherLoop")
        monkeypatch.setenv("OSTINATO_DISABLE_PLUGINS", "other-loop")
        client = build_container(chat_model=ScriptedChatModel()).chat_client()
        assert type(client.tool_advisor).__name__ == "SearchLoop"

        monkeypatch.delenv("OSTINATO_DISABLE_PLUGINS")
        monkeypatch.setenv("OSTINATO_LOAD_PLUGINS", "")
        client = build_container(chat_model=ScriptedChatModel()).chat_client()
        assert type(client.tool_advisor) is ToolCallingAdvisor

    def test_a_duplicate_name_is_an_error(self, fake_distributions):
        loop_plugin(fake_distributions, "loop", "A")
        fake_distributions.plugin(
            "other",
            LOOP_PLUGIN.format(name="loop", cls="B"),
            distribution="acme-loops",
        )
        with pytest.raises(PluginError, match="the tool advisor 'loop' is registered by two"):
            build_container().registry()

    def test_explicit_plugins_hide_the_installed_ones(self, fake_distributions):
        loop_plugin(fake_distributions, "tool-search", "SearchLoop")
        container = build_container(plugins=[], chat_model=ScriptedChatModel())
        assert type(container.chat_client().tool_advisor) is ToolCallingAdvisor
        both = build_container(plugins=[], entry_points=True, chat_model=ScriptedChatModel())
        assert type(both.chat_client().tool_advisor).__name__ == "SearchLoop"


class TestOverrides:
    def test_an_override_stays_in_its_container(self):
        model = ScriptedChatModel(["overridden"])
        first = build_container(plugins=[], chat_model=model)
        second = AutoConfiguration(plugins=providers.Object([]))
        assert first.chat_model() is model
        with pytest.raises(ConfigurationError, match="no chat model is configured"):
            second.chat_model()
        assert not AutoConfiguration.chat_model.overridden

    def test_overriding_an_instance_provider_directly(self):
        container = AutoConfiguration()
        container.plugins.override([])
        container.chat_model.override(ScriptedChatModel(["direct"]))
        assert container.chat_client().prompt("hi").call().content() == "direct"
        assert not AutoConfiguration.plugins.overridden

    def test_an_unknown_override_lists_the_providers(self):
        with pytest.raises(TypeError, match="not a provider of AutoConfiguration") as caught:
            build_container(chat_modle=ScriptedChatModel())
        assert "chat_model" in str(caught.value)

    def test_the_lazy_package_attributes(self):
        assert ostinato.AutoConfiguration is AutoConfiguration
        assert ostinato.chat_client is chat_client
        client = ostinato.chat_client(plugins=[], chat_model=ScriptedChatModel(["lazy"]))
        assert client.prompt("hi").call().content() == "lazy"

    def test_providers_are_singletons_per_container(self):
        container = build_container(plugins=[], chat_model=ScriptedChatModel())
        assert container.chat_client() is container.chat_client()
        assert container.registry() is container.registry()
        assert container.tool_advisor().tool_calling_manager is container.tool_calling_manager()


class TestSettingsReachThePieces:
    def test_max_iterations_reaches_the_default_tool_advisor(self, monkeypatch):
        monkeypatch.setenv("OSTINATO_TOOLS__MAX_ITERATIONS", "3")
        advisor = build_container(plugins=[]).tool_advisor()
        assert advisor.max_iterations == 3

    def test_the_loop_endings_reach_the_default_tool_advisor(self, monkeypatch):
        from ostinato.advisors import NoProgressAction, UsageLimits

        monkeypatch.setenv("OSTINATO_TOOLS__FINAL_ANSWER_ON_LIMIT", "true")
        monkeypatch.setenv("OSTINATO_TOOLS__NO_PROGRESS_REPEATS", "4")
        monkeypatch.setenv("OSTINATO_TOOLS__NO_PROGRESS_ACTION", "end")
        monkeypatch.setenv("OSTINATO_TOOLS__MAX_MODEL_REQUESTS", "9")
        monkeypatch.setenv("OSTINATO_TOOLS__MAX_TOTAL_TOKENS", "5000")
        settings = build_container(plugins=[]).tool_advisor().tool_calling_settings
        assert settings.final_answer_on_limit is True
        assert settings.no_progress_repeats == 4
        assert settings.no_progress_action is NoProgressAction.END
        assert settings.usage_limits == UsageLimits(model_requests=9, total_tokens=5000)

    def test_no_progress_detection_turns_off_and_usage_is_unlimited_by_default(self, monkeypatch):
        monkeypatch.setenv("OSTINATO_TOOLS__NO_PROGRESS_REPEATS", "off")
        settings = build_container(plugins=[]).tool_advisor().tool_calling_settings
        assert settings.no_progress_repeats is None
        assert settings.usage_limits is None
        assert settings.final_answer_on_limit is False

    def test_limits_reach_the_tool_calling_manager(self, monkeypatch):
        monkeypatch.setenv("OSTINATO_TOOLS__MAX_CALLS_PER_TOOL", "2")
        manager = build_container(plugins=[]).tool_calling_manager()
        assert manager.limits.max_calls_per_tool == 2

    def test_bad_plugin_settings_fail_before_any_factory_runs(self, monkeypatch):
        class Acme(AcmeWithRetries):
            @hookimpl
            def register_chat_models(self, register):
                register("acme", lambda context, name: pytest.fail("factory ran"))

        monkeypatch.setenv("OSTINATO_MODEL", "acme:x")
        monkeypatch.setenv("OSTINATO_ACME_RETRIES", "many")
        # Loading the plugins warns; the model's provider uses the settings, so it refuses.
        with (
            pytest.warns(BadSettingWarning, match="OSTINATO_ACME_RETRIES='many'"),
            pytest.raises(ConfigurationError) as caught,
        ):
            chat_client(plugins=[Acme()])
        assert str(caught.value).splitlines()[:2] == [
            "1 plugin setting has a bad value:",
            "  OSTINATO_ACME_RETRIES='many': expected a valid integer, unable to parse string "
            "as an integer",
        ]

    def test_bad_core_and_plugin_values_are_reported_together(self, monkeypatch):
        # One error listing every bad value, not the plugin's after the core's is fixed.
        monkeypatch.setenv("OSTINATO_TOOLS__MAX_ITERATIONS", "abc")
        monkeypatch.setenv("OSTINATO_ACME_RETRIES", "many")
        with pytest.raises(ConfigurationError) as caught:
            chat_client(plugins=[AcmeWithRetries()], chat_model=ScriptedChatModel(["hi"]))
        lines = str(caught.value).splitlines()
        assert lines[0] == "2 ostinato and plugin settings have bad values:"
        assert lines[1].startswith("  OSTINATO_TOOLS__MAX_ITERATIONS='abc': expected")
        assert lines[2].startswith("  OSTINATO_ACME_RETRIES='many': expected")
        assert lines[-1].startswith("fix: correct or unset these variables")

    def test_bad_core_values_alone_are_reported_as_before(self, monkeypatch):
        monkeypatch.setenv("OSTINATO_TOOLS__MAX_ITERATIONS", "abc")
        with pytest.raises(ConfigurationError) as caught:
            chat_client(plugins=[], chat_model=ScriptedChatModel(["hi"]))
        assert str(caught.value).splitlines()[0] == "1 ostinato setting has a bad value:"

    def test_a_settings_class_with_another_prefix_is_a_plugin_error(self):
        from pydantic_settings import BaseSettings, SettingsConfigDict

        class Wrong(BaseSettings):
            model_config = SettingsConfigDict(env_prefix="ACME_")

        class Acme:
            @hookimpl
            def register_settings(self, register):
                register("OSTINATO_ACME_", Wrong)

        with pytest.raises(PluginError, match="class reads the prefix 'ACME_'"):
            build_container(plugins=[Acme()]).registry()


@tool(description="Weather for a city")
def get_weather(city: str) -> str:
    return f"{city}: 25C"


def weather_model() -> ScriptedChatModel:
    return ScriptedChatModel(
        [tool_call_response(("get_weather", {"city": "Paris"})), text_response("Paris: 25C")]
    )


def answer(spec, mode: str) -> tuple[list[str], str]:
    """The names of the tool calls the caller received, and the text."""
    if mode == "call":
        response = spec.call().chat_response()
        return [
            c.name for c in response.result.output.tool_calls
        ], response.result.output.text or ""
    chunks = list(spec.stream().chat_responses())
    outputs = [g.output for r in chunks for g in r.generations]
    return [c.name for o in outputs for c in o.tool_calls if c.name], "".join(
        o.text or "" for o in outputs
    )


@pytest.mark.parametrize("mode", ["call", "stream"])
class TestToolCallingDisabled:
    def test_tool_calls_come_back_unexecuted(self, mode, monkeypatch):
        monkeypatch.setenv("OSTINATO_CHAT_CLIENT__TOOL_CALLING__ENABLED", "false")
        model = weather_model()
        client = chat_client(plugins=[], chat_model=model)
        calls, _ = answer(client.prompt("Weather in Paris?").tools(get_weather), mode)
        assert model.call_count == 1
        assert calls == ["get_weather"]
        assert not any(isinstance(m, ToolResponseMessage) for m in model.prompts[0].messages)
        assert model.prompts[0].options.tool_names == ("get_weather",)

    def test_a_call_can_turn_it_back_on(self, mode, monkeypatch):
        monkeypatch.setenv("OSTINATO_CHAT_CLIENT__TOOL_CALLING__ENABLED", "false")
        model = weather_model()
        client = chat_client(plugins=[], chat_model=model)
        spec = (
            client.prompt("Weather in Paris?")
            .tools(get_weather)
            .advisors(AdvisorParams.tool_calling_advisor_auto_register(True))
        )
        calls, text = answer(spec, mode)
        assert model.call_count == 2
        assert calls == []
        assert text == "Paris: 25C"

    def test_enabled_by_default(self, mode):
        model = weather_model()
        client = chat_client(plugins=[], chat_model=model)
        answer(client.prompt("Weather in Paris?").tools(get_weather), mode)
        assert model.call_count == 2


def test_enabled_tool_sets_become_default_tools(monkeypatch):
    class Weather:
        @hookimpl
        def register_tools(self, register):
            from ostinato.tools import tool_callbacks

            register("weather", lambda context: tool_callbacks(get_weather))

    monkeypatch.setenv("OSTINATO_TOOLS__ENABLED", "weather")
    model = weather_model()
    client = chat_client(plugins=[Weather()], chat_model=model)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert client.prompt("Weather in Paris?").call().content() == "Paris: 25C"
    assert model.call_count == 2
