"""``every_message_type``: the sample conversation holds every message type and sets every
field, so a round trip through it checks them all; each call builds it afresh."""

from __future__ import annotations

import dataclasses

import pytest

from ostinato.messages import (
    AssistantMessage,
    Media,
    Message,
    MessageType,
    ToolCall,
    ToolResponse,
    ToolResponseMessage,
)
from ostinato.testing import every_message_type, memory_conformance

#: Fields a whole message never sets: the call type is "function" for every provider, and
#: the index belongs to streamed fragments only.
NEVER_SET = {(ToolCall, "type"), (ToolCall, "index")}


def parts(messages: list[Message]) -> list[object]:
    """The messages and everything they hold: media, tool calls, tool responses."""
    found: list[object] = []
    for message in messages:
        found.append(message)
        for attribute in ("media", "tool_calls", "responses"):
            found.extend(getattr(message, attribute, ()))
    return found


#: The classes of every message in the sample and of everything they hold.
KINDS = sorted({type(p) for p in parts(every_message_type())}, key=lambda kind: kind.__name__)


def test_it_holds_every_message_type_in_the_order_of_a_tool_round():
    assert [m.message_type for m in every_message_type()] == [
        MessageType.SYSTEM,
        MessageType.USER,
        MessageType.ASSISTANT,
        MessageType.TOOL,
        MessageType.ASSISTANT,
    ]
    assert {m.message_type for m in every_message_type()} == set(MessageType)
    assert {Media, ToolCall, ToolResponse} <= set(KINDS)


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.__name__)
def test_every_field_is_set_somewhere(kind):
    instances = [p for p in parts(every_message_type()) if type(p) is kind]
    for field in dataclasses.fields(kind):
        if (kind, field.name) in NEVER_SET:
            continue
        values = [getattr(p, field.name) for p in instances]
        default = field.default if field.default is not dataclasses.MISSING else None
        assert any(v not in (default, "", (), {}) for v in values), f"{kind.__name__}.{field.name}"


def test_the_answer_to_each_call_is_in_the_sample():
    _, _, calls, responses, _ = every_message_type()
    assert isinstance(calls, AssistantMessage) and isinstance(responses, ToolResponseMessage)
    assert [c.id for c in calls.tool_calls] == [r.id for r in responses.responses]


def texts(messages: list[Message]) -> list[str]:
    return [m.text for m in messages if m.text]


def test_each_call_builds_it_afresh_and_the_tag_tells_two_apart():
    first, second = every_message_type(), every_message_type()
    assert first == second
    assert first is not second
    assert texts(every_message_type(" #2")) == [f"{text} #2" for text in texts(first)]


def test_the_memory_conformance_kit_stores_the_same_sample():
    assert memory_conformance.every_message_type is every_message_type
