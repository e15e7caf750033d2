"""Rebuilding a unit from its description on a client: what the rebuilt unit holds, and
the errors that say what was wrong with a description (the round trip through another
process is ``test_rebuild_elsewhere``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ostinato import ChatClient
from ostinato.durable import arebuild_unit, durable_turn, rebuild_unit
from ostinato.errors import (
    ConfigurationError,
    ToolExecutionError,
    ToolResolutionError,
    UnitRebuildError,
)
from ostinato.messages import SystemMessage, ToolCall, UserMessage
from ostinato.prompt import Prompt, ToolCallingChatOptions
from ostinato.testing import ScriptedChatModel
from ostinato.tools import tool_callbacks
from ostinato.units import ModelCall, ModelStream, ToolInvocation, Unit
from tests.fakes.unit_worker_plugin import add, answer, divide, key


def _client() -> ChatClient:
    model = ScriptedChatModel(responder=answer, default_options=ToolCallingChatOptions(top_p=0.5))
    return (
        ChatClient.builder(model)
        .default_tools(add, divide, key)
        .default_tool_context({"tenant": "acme"})
        .build()
    )


def _described(unit: Unit[Any]) -> dict[str, Any]:
    """The unit's description as another process reads it: through JSON."""
    loaded: dict[str, Any] = json.loads(json.dumps(unit.describe()))
    return loaded


def _round(kind: type[ModelCall] | type[ModelStream], client: ChatClient) -> Unit[Any]:
    options = ToolCallingChatOptions(
        temperature=0.3, max_tokens=50, stop_sequences=("END",), tool_callbacks=tool_callbacks(add)
    )
    prompt = Prompt([SystemMessage("Be brief."), UserMessage("Hi")], options)
    return kind(prompt, client.model)


@pytest.mark.parametrize("kind", [ModelCall, ModelStream])
async def test_a_model_round_is_rebuilt_with_its_messages_options_and_tools(
    kind: type[ModelCall] | type[ModelStream],
) -> None:
    client = _client()
    unit = _round(kind, client)

    rebuilt = rebuild_unit(unit.kind, unit.name, _described(unit), client)

    assert type(rebuilt) is kind
    assert rebuilt.prompt.messages == unit.prompt.messages  # type: ignore[attr-defined]
    options = rebuilt.prompt.options  # type: ignore[attr-defined]
    assert (options.temperature, options.max_tokens, options.stop_sequences) == (
        0.3,
        50,
        ("END",),
    )
    assert options.top_p == 0.5  # the client's default, under the recorded options
    assert options.tool_names == ("add",)  # offered as recorded, not the client's three
    assert rebuilt.model is client.model  # type: ignore[attr-defined]
    assert await client.units.run(rebuilt) == await client.units.run(unit)


async def test_an_offered_tool_is_a_definition_that_never_runs() -> None:
    client = _client()
    unit = _round(ModelCall, client)

    rebuilt = rebuild_unit("model_call", unit.name, _described(unit), client)

    [offered] = rebuilt.prompt.options.tool_callbacks  # type: ignore[attr-defined]
    [real] = tool_callbacks(add)
    assert offered.tool_definition == real.tool_definition
    with pytest.raises(ToolExecutionError, match="its definition alone"):
        await offered.call("{}")


async def test_a_tool_call_runs_the_clients_tool_of_that_name_with_its_tool_context() -> None:
    client = _client()
    call = ToolCall("c1", "add", '{"a": 2, "b": 40}')

    rebuilt = await arebuild_unit("tool_call", "add", {"call": call.to_dict()}, client)

    assert isinstance(rebuilt, ToolInvocation)
    assert rebuilt.call == call
    assert rebuilt.callback.tool_definition.name == "add"
    assert dict(rebuilt.context) == {"tenant": "acme"}
    assert await client.units.run(rebuilt) == "42"


async def test_a_rebuilt_unit_takes_its_sequence_so_a_tool_reads_its_turns_key() -> None:
    client = _client()
    description = {"call": ToolCall("c1", "key", "").to_dict()}

    with durable_turn("turn-9"):
        rebuilt = rebuild_unit("tool_call", "key", description, client, sequence=7)
        assert await client.units.run(rebuilt) == "turn-9/7"
    assert rebuilt.sequence == 7


def test_an_unknown_tool_names_the_tools_the_client_has() -> None:
    description = {"call": ToolCall("c1", "fly", '{"to": "Mars"}').to_dict()}

    with pytest.raises(ToolResolutionError) as raised:
        rebuild_unit("tool_call", "fly", description, _client())

    assert str(raised.value).splitlines() == [
        "the tool_call unit calls the tool 'fly', which this client does not have",
        "  its tools: add, divide, key",
        "fix: give the client that tool (OSTINATO_TOOLS__ENABLED naming the tool set "
        "holding it, or default_tools(...) on its builder)",
    ]
    assert raised.value.source == "fly"


def test_memory_units_need_the_clients_chat_memory() -> None:
    with pytest.raises(ConfigurationError, match="the client has none") as raised:
        rebuild_unit("memory_read", "c1", {"conversation_id": "c1"}, _client())

    assert "OSTINATO_MEMORY_ENABLED=true" in str(raised.value)


_ROUND = {"messages": [], "options": {}, "tools": []}


@pytest.mark.parametrize(
    ("kind", "name", "description", "lines"),
    [
        (
            "turn",
            "t",
            {},
            [
                "cannot rebuild a unit of kind 'turn'",
                "  expected one of: model_call, model_stream, tool_call, memory_read, memory_write, "
                "retrieval",
            ],
        ),
        (
            "model_call",
            "m",
            ["not", "an", "object"],
            [
                "the model_call unit's description is ['not', 'an', 'object']",
                "  expected: a JSON object with messages, options, tools",
            ],
        ),
        (
            "memory_write",
            "c1",
            {"conversation_id": "c1"},
            [
                "the memory_write unit's description lacks messages (it has: conversation_id)",
                "  expected: a JSON object with conversation_id, messages",
            ],
        ),
        (
            "model_stream",
            "m",
            {**_ROUND, "messages": [{"type": "robot", "text": "hi"}]},
            [
                "the model_stream unit's description holds messages = [{'type': 'robot', 'text': "
                "'hi'}]"
            ],
        ),
        (
            "model_call",
            "m",
            {**_ROUND, "options": {"temperature": "hot"}},
            [
                "the model_call unit's description holds options.temperature = 'hot'",
                "  expected: int or float",
            ],
        ),
        (
            "model_call",
            "m",
            {**_ROUND, "options": {"seed": 7}},
            [
                "the model_call unit's description holds options.seed = 7",
                "  expected: only the options model, temperature, max_tokens, top_p, top_k, "
                "stop_sequences, frequency_penalty, presence_penalty",
            ],
        ),
        (
            "model_call",
            "m",
            {**_ROUND, "tools": [{"name": "add"}]},
            ["the model_call unit's description holds tools[0] = {'name': 'add'}"],
        ),
        (
            "tool_call",
            "add",
            {"call": "add(2, 40)"},
            ["the tool_call unit's description holds call = 'add(2, 40)'"],
        ),
        (
            "tool_call",
            "divide",
            {"call": ToolCall("c1", "add", "{}").to_dict()},
            [
                "the tool_call unit's description holds call.name = 'add'",
                "  expected: the unit's name, 'divide' (the tool's name)",
            ],
        ),
        (
            "memory_read",
            "c1",
            {"conversation_id": ""},
            [
                "the memory_read unit's description holds conversation_id = ''",
                "  expected: a non-blank string",
            ],
        ),
    ],
    ids=[
        "unknown-kind",
        "not-an-object",
        "missing-field",
        "bad-message",
        "bad-option-type",
        "unknown-option",
        "bad-tool-definition",
        "bad-call",
        "name-mismatch",
        "blank-conversation",
    ],
)
def test_a_malformed_description_says_what_was_found_and_expected(
    kind: str, name: str, description: Any, lines: list[str]
) -> None:
    with pytest.raises(UnitRebuildError) as raised:
        rebuild_unit(kind, name, description, _client())

    message = str(raised.value).splitlines()
    assert message[: len(lines)] == lines
    assert message[-1].startswith("fix: pass ")
