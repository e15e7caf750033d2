"""The events' JSON form: every kind round-trips through JSON text, the version is
checked, and bad input fails with one clear ``EventSchemaError``."""

from __future__ import annotations

import json

import pytest

from ostinato.errors import EventSchemaError
from ostinato.events import (
    EVENT_KINDS,
    EVENT_SCHEMA_VERSION,
    ApprovalRequired,
    GuardActed,
    LoopEnded,
    LoopEvent,
    LoopExitReason,
    RoundAbandoned,
    RoundFinished,
    RoundStarted,
    TextDelta,
    ToolCallDelta,
    ToolCallRequested,
    ToolFailureKind,
    ToolFinished,
    ToolInDoubt,
    ToolProgress,
    ToolStarted,
    event_from_dict,
)
from ostinato.messages import AssistantMessage, ToolCall
from ostinato.model import (
    ChatGenerationMetadata,
    ChatResponse,
    ChatResponseMetadata,
    Generation,
    Usage,
)
from ostinato.prompt import Prompt
from ostinato.testing import every_message_type

CALL = ToolCall("c1", "weather", '{"city": "Paris"}')
RESPONSE = ChatResponse(
    [Generation(AssistantMessage("", tool_calls=(CALL,)), ChatGenerationMetadata("tool_calls"))],
    ChatResponseMetadata(id="r1", model="m", usage=Usage(3, 4)),
)

EVERY_KIND: list[LoopEvent] = [
    RoundStarted(
        1,
        every_message_type(),
        ("weather",),
        {"model": "m", "temperature": 0.2},
        prompt=Prompt("weather?"),
    ),
    TextDelta(2, "Sun"),
    ToolCallDelta(1, 0, "c1", "weather", '{"ci'),
    ToolCallDelta(1, None, "", "", 'ty": "Paris"}'),
    ToolCallRequested(1, CALL),
    ToolStarted(1, CALL),
    ToolStarted(1, CALL, "read_only"),
    ToolProgress(1, CALL, "page 2 of 4", {"page": 2, "seen": ["a"]}, 0.5),
    ToolProgress(1, CALL),
    ToolFinished(1, CALL, "sunny", 0.25),
    ToolFinished(1, CALL, "sunny", 0.25, effect="idempotent"),
    ToolInDoubt(1, CALL, "destructive", "approve", "turn-1/3"),
    ToolFinished(1, CALL, "Error: tool 'weather' failed", 0.5, "ToolExecutionError", True),
    ToolFinished(
        1,
        CALL,
        "Error: tool 'weather' failed: ValueError: no",
        0.5,
        "ValueError",
        failure=ToolFailureKind.RAISED,
    ),
    ToolFinished(
        1, CALL, "Cancelled: ...", 0.0, "CancelledError", failure=ToolFailureKind.CANCELLED
    ),
    RoundFinished(1, RESPONSE, Usage(3, 4)),
    RoundAbandoned(2, 7, turn_id="t-1", seq=9),
    ApprovalRequired(1, (CALL,)),
    ApprovalRequired(1, (CALL,), {"schema_version": 1, "calls": [CALL.to_dict()]}),
    LoopEnded(LoopExitReason.ANSWERED, RESPONSE, Usage(6, 8), 2),
    LoopEnded(LoopExitReason.CANCELLED, None, Usage(), 1),
    GuardActed(0, "Masking", "input", "rewrite", "an e-mail address"),
]


@pytest.mark.parametrize("event", EVERY_KIND, ids=lambda e: e.kind)
def test_every_event_round_trips_through_json_text(event):
    data = json.loads(json.dumps(event.to_dict()))
    assert data["schema_version"] == EVENT_SCHEMA_VERSION
    assert data["kind"] == event.kind
    assert LoopEvent.from_dict(data) == event
    assert type(event).from_dict(data) == event
    assert event_from_dict(data) == event


@pytest.mark.parametrize("event", EVERY_KIND, ids=lambda e: e.kind)
def test_the_place_in_the_turn_round_trips_and_older_events_read_without_it(event):
    placed = type(event).from_dict({**event.to_dict(), "turn_id": "t-9", "seq": 42})
    assert (placed.turn_id, placed.seq) == ("t-9", 42)
    assert placed.to_dict()["seq"] == 42
    older = {k: v for k, v in event.to_dict().items() if k not in ("turn_id", "seq")}
    read = LoopEvent.from_dict(older)
    assert (read.turn_id, read.seq) == (None, 0) and read == event
    # A newer writer's keys a reader does not know are ignored (the change is additive).
    assert LoopEvent.from_dict({**event.to_dict(), "some_later_key": 1}) == event


def test_every_kind_is_covered_and_named_once():
    assert {e.kind for e in EVERY_KIND} == set(EVENT_KINDS)
    assert all(EVENT_KINDS[kind].kind == kind for kind in EVENT_KINDS)


def test_the_in_process_prompt_is_left_out_of_the_json_form():
    event = EVERY_KIND[0]
    assert "prompt" not in event.to_dict()
    assert LoopEvent.from_dict(event.to_dict()).prompt is None  # type: ignore[attr-defined]


def test_the_reason_is_its_string_value_and_comes_back_as_the_enum():
    data = LoopEnded(LoopExitReason.NO_PROGRESS, None, Usage(), 3).to_dict()
    assert data["reason"] == "no_progress"
    assert LoopEvent.from_dict(data).reason is LoopExitReason.NO_PROGRESS  # type: ignore[attr-defined]


def test_events_are_frozen_and_slotted():
    event = TextDelta(1, "x")
    with pytest.raises(AttributeError):
        event.text = "y"  # type: ignore[misc]
    assert not hasattr(event, "__dict__")


def test_every_reason_the_loop_can_end_with_is_a_member_and_keeps_its_value():
    assert [r.value for r in LoopExitReason] == [
        "answered",
        "return_direct",
        "tool_call_limit",
        "max_iterations",
        "approval_required",
        "cancelled",
        "budget",
        "no_progress",
    ]


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ([1, 2], "is an object, got list"),
        ({"kind": "text_delta", "round": 1, "text": "x"}, "schema_version None"),
        ({"schema_version": 99, "kind": "text_delta"}, "schema_version 99 is not supported"),
        ({"schema_version": 1, "kind": "nope"}, "unknown event kind 'nope'; known kinds:"),
        ({"schema_version": 1, "kind": "text_delta", "round": 1}, "malformed 'text_delta'"),
        ({"schema_version": 1, "kind": "loop_ended", "reason": "bored"}, "malformed"),
    ],
)
def test_bad_input_fails_with_one_clear_error(data, words):
    with pytest.raises(EventSchemaError, match=words.replace("(", r"\(")):
        event_from_dict(data)


def test_reading_an_event_through_another_class_is_refused():
    with pytest.raises(EventSchemaError, match="expected a 'tool_started' event, got kind"):
        ToolStarted.from_dict(TextDelta(1, "x").to_dict())


def test_the_schema_error_is_a_value_error_too():
    assert issubclass(EventSchemaError, ValueError)


def test_the_failure_is_its_string_value_and_comes_back_as_the_enum():
    event = ToolFinished(2, CALL, "Error: ...", 1.0, "KeyError", failure=ToolFailureKind.RAISED)
    data = event.to_dict()
    assert (data["error"], data["failure"]) == ("KeyError", "raised")
    assert LoopEvent.from_dict(data).failure is ToolFailureKind.RAISED  # type: ignore[attr-defined]


def test_a_tool_finished_written_before_the_failure_field_still_reads():
    # Schema version 1 as first written: no "failure" key. The field is new, with a
    # default, so the version stays 1 and such events read with failure None.
    older = {
        "schema_version": 1,
        "kind": "tool_finished",
        "round": 1,
        "call": CALL.to_dict(),
        "result": "Error: tool 'weather' failed: ValueError: no",
        "duration": 0.5,
        "error": "ToolExecutionError",
        "return_direct": False,
    }
    event = LoopEvent.from_dict(older)
    assert isinstance(event, ToolFinished)
    assert event.failure is None
    assert EVENT_SCHEMA_VERSION == 1


def test_an_unknown_failure_kind_is_a_schema_error():
    data = ToolFinished(1, CALL, "x", 0.0, "E", failure=ToolFailureKind.RAISED).to_dict()
    data["failure"] = "exploded"
    with pytest.raises(EventSchemaError, match="malformed 'tool_finished' event"):
        LoopEvent.from_dict(data)
