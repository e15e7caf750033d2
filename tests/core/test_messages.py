"""Messages: immutability, value equality, reprs, and the JSON form."""

from __future__ import annotations

import json

import pytest

from ostinato.messages import (
    AssistantMessage,
    Media,
    SystemMessage,
    ToolCall,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
    message_from_dict,
)
from ostinato.testing import every_message_type

#: Every message type with every field set, and a tool result that is empty.
ALL = [*every_message_type(), ToolResponseMessage((ToolResponse("c2", "x", ""),))]


@pytest.mark.parametrize("message", ALL, ids=lambda m: type(m).__name__)
def test_json_form_round_trips_every_field(message):
    text = json.dumps(message.to_dict())
    assert message_from_dict(json.loads(text)) == message


def test_metadata_is_part_of_equality_and_immutable():
    assert UserMessage("a", metadata={"x": 1}) != UserMessage("a")
    m = UserMessage("a", metadata={"x": 1})
    with pytest.raises(TypeError):
        m.metadata["x"] = 2  # type: ignore[index]
    with pytest.raises(AttributeError):
        m.text = "b"  # type: ignore[misc]


def test_assistant_reasoning_lives_in_metadata_not_text():
    m = AssistantMessage("answer", metadata={"reasoning": "because"})
    assert m.text == "answer"
    assert m.reasoning == "because"
    assert not m.has_tool_calls


def test_tool_response_message_text_is_empty():
    assert ToolResponseMessage((ToolResponse("1", "t", "r"),)).text == ""


def test_unknown_type_in_json_form_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown message type 'robot'"):
        message_from_dict({"type": "robot", "text": "x"})


def test_media_needs_exactly_one_source():
    with pytest.raises(ValueError, match="exactly one of data= or url="):
        Media("image/png")


def test_reprs_are_short_and_readable():
    assert repr(UserMessage("hi")) == "UserMessage('hi')"
    assert "tool_calls" in repr(ALL[2])
    assert repr(UserMessage("x" * 100)).endswith("…')")


def test_tool_call_fragment_index_round_trips_and_whole_calls_omit_it():
    fragment = ToolCall("", "", '{"a"', index=2)
    assert fragment.to_dict()["index"] == 2
    assert ToolCall.from_dict(fragment.to_dict()) == fragment
    assert "index" not in ToolCall("c1", "t", "{}").to_dict()


def test_tool_call_from_dict_tolerates_missing_arguments():
    call = ToolCall.from_dict({"id": "c1", "name": "t", "arguments": None})
    assert call == ToolCall("c1", "t", "")
    assert call.type == "function"


@pytest.mark.parametrize("kind", [SystemMessage, UserMessage])
def test_system_and_user_text_must_be_a_string(kind):
    with pytest.raises(TypeError, match="text must be a str"):
        kind(None)
    with pytest.raises(TypeError, match="text must be a str"):
        kind(42)


def test_assistant_text_may_be_none_but_not_another_type():
    assert AssistantMessage().text is None
    with pytest.raises(TypeError, match="str or None"):
        AssistantMessage(42)  # type: ignore[arg-type]


def test_messages_are_hashable_values_even_with_unhashable_metadata():
    a = UserMessage("a", metadata={"tags": ["x"], "n": 1})
    b = UserMessage("a", metadata={"n": 1, "tags": ["x"]})
    assert a == b
    assert hash(a) == hash(b)
    assert len({*ALL, *ALL}) == len(ALL)


def test_collections_are_stored_as_tuples():
    m = AssistantMessage("x", [ToolCall("c", "t", "{}")], media=[Media("a/b", url="u")])  # type: ignore[arg-type]
    assert isinstance(m.tool_calls, tuple)
    assert isinstance(m.media, tuple)
    r = ToolResponseMessage([ToolResponse("c", "t", "r")])  # type: ignore[arg-type]
    assert isinstance(r.responses, tuple)


def test_message_types():
    values = [m.message_type.value for m in ALL]
    assert values == ["system", "user", "assistant", "tool", "assistant", "tool"]
    assert [m.to_dict()["type"] for m in ALL] == values


def test_missing_type_in_json_form_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown message type None"):
        message_from_dict({"text": "x"})
