"""A tool call that asks for the user's input while it runs: the turn stops with the
request (``PendingToolCalls.inputs``), the answer is checked against the request's
schema, and the call runs again with it (``input_answer()``), after a JSON round trip."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from ostinato import ChatClient
from ostinato.errors import ResumeError
from ostinato.messages import ToolResponseMessage
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato.tools import (
    ApprovalDecision,
    ApprovalKind,
    InputRequest,
    PendingToolCalls,
    ToolContext,
    ToolDefinition,
    ToolInputRequired,
    ToolMetadata,
    input_answer,
)

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 2},
        "nights": {"type": "integer", "minimum": 1, "maximum": 30},
        "pets": {"type": "boolean"},
        "room": {"type": "string", "enum": ["single", "double"]},
    },
    "required": ["city"],
}


class AskingMetadata(ToolMetadata):
    """Metadata of a tool whose calls may ask for input."""

    may_ask_input = True


class Hotel:
    """Books a room; asks where on its first run."""

    def __init__(self) -> None:
        self.runs: list[Any] = []

    @property
    def tool_definition(self) -> ToolDefinition:
        return ToolDefinition("hotel", "Book a hotel", json.dumps({"type": "object"}))

    @property
    def tool_metadata(self) -> ToolMetadata:
        return AskingMetadata()

    async def call(self, arguments: str, context: ToolContext | None = None) -> str:
        answer = input_answer()
        self.runs.append(None if answer is None else dict(answer.fields))
        if answer is None:
            raise ToolInputRequired(InputRequest("Where to?", SCHEMA, {"step": 1}))
        assert answer.request.state == {"step": 1}
        return f"booked in {answer.fields['city']}"


def echo(prompt):
    message = prompt.messages[-1]
    assert isinstance(message, ToolResponseMessage)
    return text_response(message.responses[0].response_data)


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"city": "Rome", "nights": 2, "pets": False, "room": "double"}, None),
        ({"nights": 2}, "lacks the required field(s) city"),
        ({"city": "Rome", "floor": 3}, "field(s) floor the request does not ask for"),
        ({"city": "R"}, "at least 2 characters"),
        ({"city": "Rome", "nights": True}, "expected an integer"),
        ({"city": "Rome", "nights": 31}, "at most 30"),
        ({"city": "Rome", "room": "suite"}, "one of 'single', 'double'"),
        ([("city", "Rome")], "must be an object"),
    ],
)
def test_an_answer_is_checked_against_the_schema(fields, problem):
    request = InputRequest("Where to?", SCHEMA)
    if problem is None:
        assert request.check(fields) == fields
    else:
        with pytest.raises(ValueError, match=re.escape(problem)):
            request.check(fields)


async def test_the_turn_stops_for_input_and_the_answer_runs_the_call_again():
    hotel = Hotel()
    model = ScriptedChatModel([tool_call_response(("hotel", {})), echo])
    client = ChatClient.builder(model).build()
    response = await client.prompt("book").tools(hotel).call().achat_client_response()
    pending = PendingToolCalls.of(response)
    assert pending is not None and hotel.runs == [None]
    [call_id] = pending.awaiting
    assert pending.inputs[call_id].message == "Where to?"

    stored = PendingToolCalls.from_json(pending.to_json())
    assert stored.inputs[call_id] == pending.inputs[call_id]
    decision = ApprovalDecision.from_dict(
        ApprovalDecision.answer({"city": "Oslo", "nights": 1}).to_dict()
    )
    assert decision.kind is ApprovalKind.INPUT
    spec = client.prompt().tools(hotel)
    with pytest.raises(ResumeError, match="does not fit what it asked for"):
        spec.resume(stored, {call_id: ApprovalDecision.answer({"city": 7})})
    text = await client.prompt().tools(hotel).resume(stored, {call_id: decision}).call().acontent()
    assert text == "booked in Oslo"
    assert hotel.runs == [None, {"city": "Oslo", "nights": 1}]


def test_a_stored_value_without_inputs_reads_as_before():
    model = ScriptedChatModel([tool_call_response(("hotel", {}))])
    client = ChatClient.builder(model).build()
    pending = PendingToolCalls.of(
        client.prompt("book").tools(Hotel()).call().chat_client_response()
    )
    assert pending is not None
    data = pending.to_dict()
    del data["inputs"]
    assert PendingToolCalls.from_dict(data).inputs == {}
    data["inputs"] = {"nope": {"message": "x", "schema": {}}}
    with pytest.raises(ResumeError, match="'inputs' must map awaited call ids"):
        PendingToolCalls.from_dict(data)
