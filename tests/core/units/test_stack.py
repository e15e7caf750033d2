"""The unit stack: its order, its listing, what each wrapper sees, the fast path, and where
wrappers come from (the builder, the ``register_unit_wrappers`` hook)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from ostinato import ChatClient, tool
from ostinato.config import build_container
from ostinato.errors import ConfigurationError, PluginError
from ostinato.plugins import hookimpl
from ostinato.testing import ScriptedChatModel, tool_call_response
from ostinato.units import (
    ModelStream,
    Unit,
    UnitKind,
    UnitOrder,
    UnitStack,
    UnitWrapper,
    current_unit,
    durable_turn,
    idempotency_key,
)

ALL = frozenset(UnitKind) - {UnitKind.TURN}


def recorder(name: str, order: int, seen: list[str], kinds: frozenset[UnitKind] = ALL):
    async def around(unit: Unit[Any], next: Callable[[Unit[Any]], Awaitable[Any]]) -> Any:
        seen.append(f"{name}>{unit.kind.value}")
        result = await next(unit)
        seen.append(f"{name}<{unit.kind.value}")
        return result

    async def around_stream(
        unit: ModelStream, next: Callable[[ModelStream], AsyncIterator[Any]]
    ) -> AsyncIterator[Any]:
        seen.append(f"{name}>stream")
        async for chunk in next(unit):
            seen.append(f"{name}:chunk")
            yield chunk
        seen.append(f"{name}<stream")

    return UnitWrapper(name, order, kinds, around, around_stream)


@tool(description="The weather of a city")
def weather(city: str) -> str:
    return f"{city}: sunny"


def script() -> list[object]:
    return [tool_call_response(("weather", {"city": "Paris"})), "Sunny."]


def test_wrappers_are_ordered_by_order_and_stable_for_equal_orders() -> None:
    seen: list[str] = []
    stack = UnitStack([recorder("b", 10, seen), recorder("a", 5, seen), recorder("c", 10, seen)])
    assert [w.name for w in stack.wrappers] == ["a", "b", "c"]
    assert stack.for_kind(UnitKind.TOOL_CALL) == stack.tool_call == stack.wrappers
    assert stack.describe().splitlines()[1:] == [
        f"   5  a <{'/'.join(k.value for k in UnitKind if k in ALL)}>",
        f"  10  b <{'/'.join(k.value for k in UnitKind if k in ALL)}>",
        f"  10  c <{'/'.join(k.value for k in UnitKind if k in ALL)}>",
    ]


def test_a_clients_stack_lists_cores_wrappers_and_its_own_in_order() -> None:
    seen: list[str] = []
    extra = recorder("trace", UnitOrder.TRACING, seen, frozenset({UnitKind.TOOL_CALL}))
    client = ChatClient.builder(ScriptedChatModel([])).unit_wrappers(extra).build()
    assert client.units.describe() == "\n".join(
        [
            "unit stack, outer to inner:",
            "  1000  tool-concurrency <tool_call>",
            "  2000  tool-events <tool_call>",
            "  3500  tool-retry <tool_call>",
            "  4000  trace <tool_call>",
            "  5000  tool-timeout <tool_call>",
        ]
    )
    assert [w.name for w in client.mutate().build().units.wrappers] == [
        w.name for w in client.units.wrappers
    ]


@pytest.mark.parametrize("mode", ["call", "stream", "sync"])
def test_every_unit_of_a_turn_runs_through_its_wrappers_outer_first(mode: str) -> None:
    seen: list[str] = []
    outer = recorder("outer", UnitOrder.TOOL_EVENTS + 1, seen)
    inner = recorder("inner", UnitOrder.TRACING, seen)
    client = ChatClient.builder(ScriptedChatModel(script())).unit_wrappers(inner, outer).build()
    spec = client.prompt("Weather?").tools(weather)
    answer = "".join(spec.stream().content()) if mode == "stream" else spec.call().content()
    assert answer == "Sunny."
    if mode == "stream":
        round_ = ["outer>stream", "inner>stream", "inner:chunk", "outer:chunk"]
        assert seen[:4] == round_
        assert "outer>tool_call" in seen and seen.count("outer<stream") == 2
    else:
        assert seen == [
            *("outer>model_call", "inner>model_call", "inner<model_call", "outer<model_call"),
            *("outer>tool_call", "inner>tool_call", "inner<tool_call", "outer<tool_call"),
            *("outer>model_call", "inner>model_call", "inner<model_call", "outer<model_call"),
        ]


async def test_without_a_wrapper_of_a_kind_no_unit_is_made(monkeypatch) -> None:
    made: list[str] = []
    import ostinato.units._values as values

    original = values.ModelCall.__init__

    def counting(self: Any, *args: Any) -> None:
        made.append("model_call")
        original(self, *args)

    monkeypatch.setattr(values.ModelCall, "__init__", counting)
    client = ChatClient.create(ScriptedChatModel(script()))
    assert client.units.model_call == ()
    assert await client.prompt("Weather?").tools(weather).call().acontent() == "Sunny."
    assert made == []


async def test_a_wrapper_may_answer_without_running_the_unit() -> None:
    calls: list[str] = []

    @tool(description="Counts its calls")
    def counted() -> str:
        calls.append("ran")
        return "ran"

    async def stub(unit: Unit[Any], next: Callable[[Unit[Any]], Awaitable[Any]]) -> Any:
        return "stubbed"

    wrapper = UnitWrapper("stub", UnitOrder.TRACING, frozenset({UnitKind.TOOL_CALL}), stub)
    model = ScriptedChatModel([tool_call_response(("counted", {})), "Done."])
    client = ChatClient.builder(model).unit_wrappers(wrapper).build()
    assert await client.prompt("Go").tools(counted).call().acontent() == "Done."
    assert calls == []
    assert model.prompts[-1].messages[-1].responses[0].response_data == "stubbed"


async def test_code_inside_a_unit_sees_it_and_numbers_its_own_units_apart() -> None:
    keys: list[tuple[str | None, int | None]] = []

    @tool(description="Runs a turn of its own")
    async def nested() -> str:
        unit = current_unit()
        keys.append((idempotency_key(), unit.sequence if unit else None))
        inner = ChatClient.create(ScriptedChatModel([tool_call_response(("leaf", {})), "ok"]))
        return await inner.prompt("inner").tools(leaf).call().acontent() or ""

    @tool(description="A leaf")
    def leaf() -> str:
        keys.append((idempotency_key(), None))
        return "leaf"

    model = ScriptedChatModel([tool_call_response(("nested", {})), "Done."])
    seen: list[str] = []
    client = ChatClient.builder(model).unit_wrappers(recorder("r", 3000, seen)).build()
    with durable_turn("t-9"):
        assert await client.prompt("Go").tools(nested).call().acontent() == "Done."
    # The outer turn: model round 1, the nested tool 2; the inner turn numbers from 1
    # inside it (its model round is not a unit: the inner client wraps only tools).
    assert keys == [("t-9/2", 2), ("t-9/2/1", None)]


def test_a_stack_refuses_duplicate_names_and_two_durable_engines() -> None:
    seen: list[str] = []
    with pytest.raises(ConfigurationError, match="two unit wrappers are named 'x'"):
        UnitStack([recorder("x", 1, seen), recorder("x", 2, seen)])
    with pytest.raises(ConfigurationError, match="one durable engine per process"):
        UnitStack([recorder("a", UnitOrder.DURABLE, seen), recorder("b", UnitOrder.DURABLE, seen)])


def test_a_wrapper_names_the_functions_its_kinds_need() -> None:
    with pytest.raises(ConfigurationError, match="without around_stream"):
        UnitWrapper("s", 1, frozenset({UnitKind.MODEL_STREAM}), around=None)
    with pytest.raises(ConfigurationError, match="without around"):
        UnitWrapper("c", 1, frozenset({UnitKind.MODEL_CALL}))
    with pytest.raises(ConfigurationError, match="expected: one or more of"):
        UnitWrapper("t", 1, frozenset({UnitKind.TURN}))


class _Plugin:
    def __init__(self) -> None:
        self.seen: list[str] = []

    @hookimpl
    def register_unit_wrappers(self, register: Any) -> None:
        register("audit", lambda context: recorder("audit", UnitOrder.TRACING, self.seen))
        register("off", lambda context: None)


def test_auto_configuration_builds_the_registered_wrappers_into_the_stack() -> None:
    plugin = _Plugin()
    container = build_container(plugins=[plugin], chat_model=ScriptedChatModel(["Hi."]))
    client = container.chat_client()
    assert [w.name for w in client.units.wrappers] == [
        "tool-concurrency",
        "tool-events",
        "tool-retry",
        "audit",
        "tool-timeout",
    ]
    assert client.prompt("Hello").call().content() == "Hi."
    assert plugin.seen == ["audit>model_call", "audit<model_call"]


def test_a_factory_returning_something_else_is_a_plugin_error() -> None:
    class Broken:
        @hookimpl
        def register_unit_wrappers(self, register: Any) -> None:
            register("broken", lambda context: "not a wrapper")

    container = build_container(plugins=[Broken()], chat_model=ScriptedChatModel([]))
    with pytest.raises(PluginError, match=r"expected: an ostinato\.units\.UnitWrapper"):
        container.chat_client()


async def test_a_caller_may_leave_out_the_wrappers_acting_on_what_its_units_lack() -> None:
    seen: list[str] = []
    acting = recorder("cap", 1, seen, frozenset({UnitKind.TOOL_CALL}))
    acting = UnitWrapper(acting.name, acting.order, acting.kinds, acting.around, acts_on="cap")
    plain = recorder("plain", 2, seen, frozenset({UnitKind.TOOL_CALL}))
    stack = UnitStack([acting, plain])
    lean = stack.step(UnitKind.TOOL_CALL, frozenset({"cap"}))
    assert lean is stack.step(UnitKind.TOOL_CALL, frozenset({"cap"}))  # composed once
    assert stack.step(UnitKind.TOOL_CALL) is not lean
    from ostinato import tool_callbacks
    from ostinato.testing import tool_call
    from ostinato.tools import ToolContext
    from ostinato.units import ToolInvocation

    (callback,) = tool_callbacks(weather)

    assert (
        await lean(
            ToolInvocation(
                tool_call("weather", {"city": "Rome"}), callback, '{"city": "Rome"}', ToolContext()
            )
        )
        == "Rome: sunny"
    )
    assert seen == ["plain>tool_call", "plain<tool_call"]
