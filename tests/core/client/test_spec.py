"""ChatClientRequestSpec: how one ``client.prompt(...)`` becomes a request and a chain
(request assembly), and what it refuses."""

from __future__ import annotations

import pytest

from ostinato import ChatClient, Prompt, ToolCallingAdvisor, tool
from ostinato.advisors import BaseAdvisor, MemoryAdvisor
from ostinato.client import AdvisorParams
from ostinato.errors import AdvisorChainError, ConfigurationError
from ostinato.memory import CONVERSATION_ID
from ostinato.messages import AssistantMessage, SystemMessage, UserMessage
from ostinato.prompt import ChatOptions, ToolCallingChatOptions
from ostinato.testing import ScriptedChatModel, tool_call_response
from ostinato.tools import ToolContext
from tests.core.client.fakes import T1, built, tool1, tool2

MODES = ("call", "stream")


def run(spec, mode: str) -> str | None:
    if mode == "call":
        return spec.call().content()
    return "".join(spec.stream().content())


def test_messages_are_system_then_explicit_then_user():
    client = ChatClient.builder(ScriptedChatModel()).default_system("S").build()
    spec = client.prompt().messages(UserMessage("earlier"), AssistantMessage("reply")).user("now")
    assert [m.text for m in built(spec).messages] == ["S", "earlier", "reply", "now"]


def test_request_tools_replace_tools_from_options():
    spec = ChatClient.create(ScriptedChatModel()).prompt("x")
    spec.options(ToolCallingChatOptions(tool_callbacks=[T1])).tools(tool2)
    assert built(spec).options.tool_names == ("tool2",)


def test_tool_context_from_options_and_request_merge():
    spec = ChatClient.create(ScriptedChatModel()).prompt("x")
    spec.options(ToolCallingChatOptions(tool_context={"key1": "value1"})).tool_context(
        key2="value2"
    )
    assert dict(built(spec).options.tool_context) == {"key1": "value1", "key2": "value2"}


def test_plain_options_on_a_tool_model_keep_tool_options():
    spec = (
        ChatClient.create(ScriptedChatModel())
        .prompt("x")
        .options(ChatOptions(temperature=0.1))
        .tools(tool1)
    )
    options = built(spec).options
    assert isinstance(options, ToolCallingChatOptions)
    assert options.tool_names == ("tool1",)
    assert options.temperature == 0.1


def test_tool_providers_are_evaluated_lazily():
    calls = []

    class Provider:
        def get_tool_callbacks(self):
            calls.append(1)
            return [T1]

    model = ScriptedChatModel(["ok"])
    spec = ChatClient.create(model).prompt("x").tools(Provider())
    assert calls == []
    spec.call().content()
    assert calls == [1]
    assert model.prompts[0].options.tool_names == ("tool1",)


def test_duplicate_tool_names_fail_at_call_time():
    spec = ChatClient.create(ScriptedChatModel(["x"])).prompt("x").tools(T1, T1)
    with pytest.raises(ConfigurationError, match=r"Multiple tools with the same name \(tool1\)"):
        spec.call().content()


def test_defaults_and_request_settings_accumulate_without_leaking():
    model = ScriptedChatModel(["a", "b"])
    client = (
        ChatClient.builder(model)
        .default_tools(tool1)
        .default_tool_context(tenant="acme", user="default")
        .default_advisor_params(AdvisorParams.conversation_id("c-1"))
        .build()
    )
    spec = (
        client.prompt("x")
        .tools(tool2)
        .tool_context(user="u-7")
        .advisors(AdvisorParams.param("k", "v"))
    )
    request = spec.build_request()
    assert request.prompt.options.tool_names == ("tool1", "tool2")
    assert dict(request.prompt.options.tool_context) == {"tenant": "acme", "user": "u-7"}
    assert request.context[CONVERSATION_ID] == "c-1" and request.context["k"] == "v"
    fresh = client.prompt("y").build_request()
    assert fresh.prompt.options.tool_names == ("tool1",)
    assert "k" not in fresh.context


def test_prompt_object_supplies_messages_and_options():
    spec = ChatClient.create(ScriptedChatModel()).prompt(
        Prompt([SystemMessage("S"), UserMessage("U")], ChatOptions(temperature=0.5))
    )
    prompt = built(spec)
    assert [m.text for m in prompt.messages] == ["S", "U"]
    assert prompt.options.temperature == 0.5


def test_bad_arguments_are_clear():
    client = ChatClient.create(ScriptedChatModel())
    with pytest.raises(TypeError, match="prompt\\(\\) takes a str or a Prompt"):
        client.prompt(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="advisors\\(\\) takes Advisor instances"):
        client.prompt("x").advisors("nope")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tool context keys must be non-blank"):
        client.prompt("x").tool_context({" ": 1})
    with pytest.raises(ValueError, match="model must not be None"):
        ChatClient.create(None)  # type: ignore[arg-type]


def test_tool_context_reaches_tools_and_never_the_model():
    seen = {}

    @tool
    def whoami(ctx: ToolContext) -> str:
        """Who is asking."""
        seen.update(ctx)
        return "ok"

    model = ScriptedChatModel([tool_call_response(("whoami", {})), "done"])
    ChatClient.create(model).prompt("x").tools(whoami).tool_context(user="u-1").call().content()
    assert seen == {"user": "u-1"}
    assert "u-1" not in repr(model.prompts[0].messages)


# -- unhappy paths, on both paths ---------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_duplicate_tool_names_fail_on_both_paths_before_the_model_is_called(mode):
    model = ScriptedChatModel(["x"])
    spec = ChatClient.create(model).prompt("x").tools(T1, T1)
    with pytest.raises(ConfigurationError, match=r"Multiple tools with the same name \(tool1\)"):
        run(spec, mode)
    assert model.call_count == 0


@pytest.mark.parametrize("mode", MODES)
def test_two_tool_advisors_fail_on_both_paths_naming_both(mode):
    mine = ToolCallingAdvisor(advisor_order=10)
    spec = ChatClient.create(ScriptedChatModel(["x"])).prompt("x").advisors(mine)
    spec.advisors(ToolCallingAdvisor(advisor_order=20))
    with pytest.raises(AdvisorChainError, match=r"found 2: \[Tool Calling Advisor \(order=10\)"):
        run(spec, mode)


def test_a_users_tool_advisor_suppresses_auto_registration():
    mine = ToolCallingAdvisor(advisor_order=10)
    advisors = ChatClient.create(ScriptedChatModel()).prompt("x").advisors(mine)
    assert [a for a in advisors.effective_advisors() if isinstance(a, ToolCallingAdvisor)] == [mine]


def test_auto_registration_can_be_turned_off_per_call():
    spec = ChatClient.create(ScriptedChatModel()).prompt("x")
    spec.advisors(AdvisorParams.tool_calling_advisor_auto_register(False))
    assert not any(isinstance(a, ToolCallingAdvisor) for a in spec.effective_advisors())


def test_the_tool_advisor_copy_keeps_history_unless_memory_is_inside():
    class Memory(BaseAdvisor, MemoryAdvisor):
        order = ToolCallingAdvisor.DEFAULT_ORDER + 1

    client = ChatClient.create(ScriptedChatModel())
    [outside] = [
        a for a in client.prompt("x").effective_advisors() if isinstance(a, ToolCallingAdvisor)
    ]
    [inside] = [
        a
        for a in client.prompt("x").advisors(Memory()).effective_advisors()
        if isinstance(a, ToolCallingAdvisor)
    ]
    assert outside.conversation_history_enabled is True
    assert inside.conversation_history_enabled is False
    assert client.tool_advisor is not None and client.tool_advisor.conversation_history_enabled


def test_bad_texts_and_options_are_refused_with_what_was_given():
    spec = ChatClient.create(ScriptedChatModel()).prompt()
    with pytest.raises(TypeError, match="system text must be a str or a PromptTemplate, got int"):
        spec.system(42)  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match="user text must be a str or a PromptTemplate, got NoneType"
    ):
        spec.user(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="options must be ChatOptions, got dict"):
        spec.options({"temperature": 0.1})  # type: ignore[arg-type]


# -- the options cache --------------------------------------------------------------------


def test_requests_with_the_same_settings_share_one_options_object():
    client = ChatClient.builder(ScriptedChatModel()).default_tools(tool1).build()
    first, second = built(client.prompt("a")), built(client.prompt("b"))
    assert first.options is second.options


def test_different_tools_or_options_or_a_tool_context_are_not_served_from_the_cache():
    client = ChatClient.builder(ScriptedChatModel()).default_tools(tool1).build()
    plain = built(client.prompt("a")).options
    more = built(client.prompt("a").tools(tool2)).options
    assert more is not plain and more.tool_names == ("tool1", "tool2")
    warmer = built(client.prompt("a").options(ChatOptions(temperature=0.9))).options
    assert warmer.temperature == 0.9 and warmer is not plain
    with_context = built(client.prompt("a").tool_context(user="u")).options
    assert dict(with_context.tool_context) == {"user": "u"}
    assert built(client.prompt("a")).options.tool_context == {}


def test_the_cache_is_per_client():
    model = ScriptedChatModel()
    one = ChatClient.builder(model).default_tools(tool1).build()
    two = ChatClient.builder(model).default_tools(tool1).build()
    assert built(one.prompt("a")).options is not built(two.prompt("a")).options


# -- prompt templates ---------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_user_and_system_templates_are_rendered_with_their_parameters(mode):
    model = ScriptedChatModel(["ok"])
    spec = (
        ChatClient.create(model)
        .prompt()
        .system("You are {role}.", role="a pirate")
        .user("Tell me about {topic} ({{briefly}})", topic="owls")
    )
    assert run(spec, mode) == "ok"
    assert [m.text for m in model.prompts[0].messages] == [
        "You are a pirate.",
        "Tell me about owls ({briefly})",
    ]


@pytest.mark.parametrize("mode", MODES)
def test_default_templates_take_parameters_from_the_builder_and_the_request(mode):
    model = ScriptedChatModel(["ok"])
    client = (
        ChatClient.builder(model)
        .default_system("Answer as {persona}, in {language}.", persona="a poet", language="English")
        .default_user("Describe {thing}.")
        .build()
    )
    assert run(client.prompt().system(language="French").user(thing="the sea"), mode) == "ok"
    assert [m.text for m in model.prompts[0].messages] == [
        "Answer as a poet, in French.",
        "Describe the sea.",
    ]


def test_a_new_text_replaces_the_parameters_of_the_old_one():
    client = (
        ChatClient.builder(ScriptedChatModel()).default_system("Be {tone}.", tone="kind").build()
    )
    assert (
        built(client.prompt().system("Be brief {{now}}.")).messages[0].text == "Be brief {{now}}."
    )
    assert built(client.prompt("q")).messages[0].text == "Be kind."


def test_plain_text_without_parameters_is_sent_as_written():
    spec = ChatClient.create(ScriptedChatModel()).prompt().user('Reply as {"ok": true} {{x}}')
    assert built(spec).messages[-1].text == 'Reply as {"ok": true} {{x}}'


def test_a_prompt_template_value_is_reused_and_always_rendered():
    from ostinato import PromptTemplate
    from ostinato.errors import PromptTemplateError

    ask = PromptTemplate("Tell me about {topic}")
    client = ChatClient.create(ScriptedChatModel())
    assert built(client.prompt().user(ask, topic="owls")).messages[-1].text == "Tell me about owls"
    assert built(client.prompt().user(ask, topic="bats")).messages[-1].text == "Tell me about bats"
    with pytest.raises(PromptTemplateError, match="missing parameter\\(s\\): topic"):
        built(client.prompt().user(ask))


def test_parameters_alone_keep_the_text_and_its_media():
    from ostinato.messages import Media

    image = Media("image/png", b"1")
    spec = ChatClient.create(ScriptedChatModel()).prompt().user("Describe {what}", image)
    spec.user(what="it")
    message = built(spec).messages[-1]
    assert (message.text, message.media) == ("Describe it", (image,))


@pytest.mark.parametrize("mode", MODES)
def test_a_template_mismatch_fails_before_the_model_is_called(mode):
    from ostinato.errors import PromptTemplateError

    model = ScriptedChatModel(["never"])
    spec = ChatClient.create(model).prompt().user("Tell me about {topic}", topik="owls")
    with pytest.raises(PromptTemplateError) as caught:
        run(spec, mode)
    assert "missing parameter(s): topic" in str(caught.value)
    assert "unused parameter(s): topik" in str(caught.value)
    assert model.prompts == []


def test_unsafe_placeholders_are_refused():
    from ostinato.errors import PromptTemplateError

    spec = ChatClient.create(ScriptedChatModel()).prompt().user("{x.__class__}", x=1)
    with pytest.raises(PromptTemplateError, match=r"has the placeholder \{x\.__class__\}"):
        built(spec)


def test_text_of_another_type_is_refused_at_once():
    with pytest.raises(TypeError, match="user text must be a str or a PromptTemplate, got int"):
        ChatClient.create(ScriptedChatModel()).prompt().user(3)  # type: ignore[arg-type]
