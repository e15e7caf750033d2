"""ChatClient: auto-registration of the tool advisor and the single-ToolAdvisor invariant
(as Spring AI does), through ``call()`` and ``stream()``."""

from __future__ import annotations

import pytest

from ostinato import ChatClient, tool
from ostinato.advisors import (
    BaseAdvisor,
    CallAdvisor,
    MemoryAdvisor,
    StreamAdvisor,
    ToolAdvisor,
    ToolCallingAdvisor,
)
from ostinato.client import TOOL_CALLING_ADVISOR_AUTO_REGISTER, AdvisorParams
from ostinato.errors import AdvisorChainError
from ostinato.messages import SystemMessage, ToolResponseMessage
from ostinato.prompt import ChatOptions, ToolCallingChatOptions
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato.tools import tool_callbacks
from tests.fakes.managers import RecordingManager

pytestmark = pytest.mark.parametrize("mode", ["call", "stream"])

ORDER = ToolCallingAdvisor.DEFAULT_ORDER


@tool(description="Weather for a city")
def get_weather(city: str) -> str:
    return f"{city}: 25C"


WEATHER = tool_callbacks(get_weather)[0]


class Counter(BaseAdvisor):
    """Counts how often the chain passes through it (inside the loop at ORDER+100)."""

    def __init__(self, order: int = ORDER + 100) -> None:
        self.count = 0
        self._order = order
        self.requests: list = []

    @property
    def order(self) -> int:
        return self._order

    async def before(self, request, chain):
        self.count += 1
        self.requests.append(request)
        return request


def weather_model(**kwargs) -> ScriptedChatModel:
    return ScriptedChatModel(
        [tool_call_response(("get_weather", {"city": "Paris"})), text_response("Paris: 25C")],
        **kwargs,
    )


def answer(spec, mode: str) -> str:
    if mode == "call":
        return spec.call().content() or ""
    return "".join(spec.stream().content())


def test_registers_when_tools_are_present(mode):
    model, counter = weather_model(), Counter()
    client = ChatClient.builder(model).default_advisors(counter).build()
    text = answer(client.prompt("Weather in Paris?").tools(get_weather), mode)
    assert text.strip()
    assert counter.count >= 2
    assert model.call_count == 2
    assert isinstance(counter.requests[1].prompt.messages[-1], ToolResponseMessage)


@pytest.mark.parametrize(
    "params",
    [
        AdvisorParams.tool_calling_advisor_auto_register(False),
        AdvisorParams.param(TOOL_CALLING_ADVISOR_AUTO_REGISTER, False),
    ],
)
def test_auto_register_false_runs_the_chain_once(mode, params):
    model, counter = (
        ScriptedChatModel([tool_call_response(("get_weather", {"city": "Paris"}))]),
        Counter(),
    )
    client = ChatClient.builder(model).default_advisors(counter).build()
    spec = client.prompt("Weather?").tools(get_weather).advisors(params)
    if mode == "call":
        response = spec.call().chat_response()
        assert response.has_tool_calls()  # handed back raw
    else:
        list(spec.stream().chat_responses())
    assert counter.count == 1
    assert model.call_count == 1
    assert model.prompts[0].options.tool_names == ("get_weather",)  # still sent


def test_only_boolean_false_disables(mode):
    model = weather_model()
    client = ChatClient.create(model)
    spec = (
        client.prompt("x")
        .tools(get_weather)
        .advisors(AdvisorParams.param(TOOL_CALLING_ADVISOR_AUTO_REGISTER, "false"))
    )
    answer(spec, mode)
    assert model.call_count == 2


def test_a_call_can_re_enable_what_defaults_disabled(mode):
    model = weather_model()
    client = (
        ChatClient.builder(model)
        .default_advisor_params(AdvisorParams.tool_calling_advisor_auto_register(False))
        .build()
    )
    spec = (
        client.prompt("x")
        .tools(get_weather)
        .advisors(AdvisorParams.tool_calling_advisor_auto_register(True))
    )
    answer(spec, mode)
    assert model.call_count == 2


def test_single_pass_without_tools(mode):
    model, counter = ScriptedChatModel(["hi"]), Counter()
    client = ChatClient.builder(model).default_advisors(counter).build()
    assert answer(client.prompt("hello"), mode) == "hi"
    assert (counter.count, model.call_count) == (1, 1)


def test_tools_injected_by_an_outer_advisor_are_run(mode):
    class Injector(BaseAdvisor):
        order = ORDER - 10

        async def before(self, request, chain):
            options = request.prompt.options.with_tool_callbacks([WEATHER])
            return request.copy(prompt=request.prompt.copy(options=options))

    model, counter = weather_model(), Counter()
    client = ChatClient.builder(model).default_advisors(Injector(), counter).build()
    answer(client.prompt("Weather?"), mode)
    assert counter.count >= 2
    assert model.call_count == 2


def test_tools_from_model_default_options(mode):
    model = weather_model(default_options=ToolCallingChatOptions(tool_callbacks=[WEATHER]))
    answer(ChatClient.create(model).prompt("Weather?"), mode)
    assert model.call_count == 2


def test_tools_from_request_options(mode):
    model = weather_model()
    spec = (
        ChatClient.create(model)
        .prompt("Weather?")
        .options(ToolCallingChatOptions(tool_callbacks=[WEATHER]))
    )
    answer(spec, mode)
    assert model.call_count == 2


def test_tools_from_request_options_survive_plain_default_options(mode):
    # The client's defaults are plain ChatOptions; the request's ToolCallingChatOptions
    # must keep their tools (and the defaults' values) instead of being cut to ChatOptions.
    model = weather_model()
    client = ChatClient.builder(model).default_options(ChatOptions(temperature=0.3)).build()
    spec = client.prompt("Weather?").options(ToolCallingChatOptions(tool_callbacks=[WEATHER]))
    answer(spec, mode)
    assert model.call_count == 2
    sent = model.prompts[0].options
    assert isinstance(sent, ToolCallingChatOptions)
    assert sent.temperature == 0.3 and sent.tool_names == (WEATHER.tool_definition.name,)


def test_explicit_tool_advisor_suppresses_auto_registration(mode):
    model = weather_model()
    manager = RecordingManager()
    spec = ChatClient.create(model).prompt("Weather?").tools(get_weather)
    spec.advisors(ToolCallingAdvisor(tool_calling_manager=manager))
    answer(spec, mode)
    assert model.call_count == 2
    assert manager.calls == 1


def test_auto_registered_advisor_uses_the_prototype_manager(mode):
    model = weather_model()
    manager = RecordingManager()
    client = ChatClient.builder(
        model, tool_advisor=ToolCallingAdvisor(tool_calling_manager=manager)
    ).build()
    answer(client.prompt("Weather?").tools(get_weather), mode)
    assert manager.calls == 1
    assert model.call_count == 2


def test_two_tool_advisors_fail_before_any_model_call(mode):
    model = weather_model()
    spec = (
        ChatClient.create(model)
        .prompt("Weather?")
        .advisors(ToolCallingAdvisor(), ToolCallingAdvisor(advisor_order=ORDER + 1))
    )
    with pytest.raises(AdvisorChainError) as info:
        answer(spec, mode)
    message = str(info.value)
    assert "At most one ToolAdvisor is allowed in the advisor chain, but found 2" in message
    assert f"Tool Calling Advisor (order={ORDER})" in message
    assert f"Tool Calling Advisor (order={ORDER + 1})" in message
    assert model.call_count == 0


def test_a_custom_tool_advisor_prevents_auto_registration(mode):
    class NoOp(CallAdvisor, StreamAdvisor, ToolAdvisor):
        order = ORDER

        async def advise_call(self, request, chain):
            return await chain.next_call(request)

        async def advise_stream(self, request, chain):
            async for chunk in chain.next_stream(request):
                yield chunk

    model, counter = ScriptedChatModel(["done"]), Counter()
    client = ChatClient.builder(model).default_advisors(NoOp(), counter).build()
    answer(client.prompt("x").tools(get_weather), mode)
    assert (counter.count, model.call_count) == (1, 1)


def test_the_same_spec_can_run_twice(mode):
    model = ScriptedChatModel(["one", "two"])
    spec = ChatClient.create(model).prompt("x")
    assert answer(spec, mode) == "one"
    assert answer(spec, mode) == "two"
    assert model.call_count == 2


def test_memory_inside_the_loop_turns_internal_history_off(mode):
    class Memory(BaseAdvisor, MemoryAdvisor):
        order = ORDER + 50

    model = weather_model()
    client = ChatClient.builder(model).default_advisors(Memory()).build()
    answer(client.prompt("Weather?").tools(get_weather), mode)
    second = model.prompts[1].messages
    assert [type(m) for m in second] == [SystemMessage, ToolResponseMessage]


def test_memory_outside_the_loop_keeps_internal_history(mode):
    class Memory(BaseAdvisor, MemoryAdvisor):
        order = ORDER  # equal order does not count as inside

    model = weather_model()
    client = ChatClient.builder(model).default_advisors(Memory()).build()
    answer(client.prompt("Weather?").tools(get_weather), mode)
    assert len(model.prompts[1].messages) == 3


def test_no_prototype_means_no_tool_loop(mode):
    model = ScriptedChatModel([tool_call_response(("get_weather", {"city": "Paris"}))])
    client = ChatClient.builder(model).tool_advisor(None).build()
    spec = client.prompt("x").tools(get_weather)
    if mode == "call":
        assert spec.call().chat_response().has_tool_calls()
    else:
        list(spec.stream().chat_responses())
    assert model.call_count == 1
