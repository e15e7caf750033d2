"""A durable turn's follow-up: its id and its request (the turn that runs the messages
steered to a turn after its last round boundary)."""

from __future__ import annotations

import pytest

from ostinato.durable import TurnRequest, follow_up_id, follow_up_request
from ostinato.messages import AssistantMessage, SystemMessage, UserMessage


@pytest.mark.parametrize(
    ("turn_id", "expected"),
    [
        ("turn:c1:3", "turn:c1:4"),
        ("turn:c1:9", "turn:c1:10"),
        ("turn:a:b:1", "turn:a:b:2"),
        ("a1b2", "a1b2:1"),
        ("a1b2:1", "a1b2:2"),
        ("job:", "job::1"),
        (":7", ":7:1"),
        ("turn:c:٣", "turn:c:٣:1"),  # not an ASCII number: not a series
    ],
)
def test_a_follow_up_continues_the_turn_s_series(turn_id: str, expected: str) -> None:
    assert follow_up_id(turn_id) == expected


def test_a_follow_up_takes_the_turn_s_settings_and_names_the_turn() -> None:
    request = TurnRequest(
        "first", system="be brief", conversation_id="c1", tools=("pkg:tools",), remember=True
    )
    follow = follow_up_request(request, ["late one", "late two"], turn_id="turn:c1:1")
    assert follow == TurnRequest(
        "late one\n\nlate two",
        system="be brief",
        conversation_id="c1",
        tools=("pkg:tools",),
        follows="turn:c1:1",
    )
    assert TurnRequest.from_json(follow.to_json()) == follow
    assert "follows" not in request.to_dict()  # written only when set


def test_a_turn_that_carries_its_history_passes_it_on_with_what_it_added() -> None:
    request = TurnRequest("q", history=(SystemMessage("s"), UserMessage("earlier")), remember=False)
    joined = (AssistantMessage("first answer"), UserMessage("steered in time"))
    follow = follow_up_request(
        request, ["too late"], turn_id="t", joined=joined, answer="final answer"
    )
    assert [(m.message_type.value, m.text) for m in follow.history] == [
        ("system", "s"),
        ("user", "earlier"),
        ("user", "q"),
        ("assistant", "first answer"),
        ("user", "steered in time"),
        ("assistant", "final answer"),
    ]
    assert follow.user == "too late"
    assert follow.remember is False
    # A turn that ended without an answer (an error) adds no answer.
    failed = follow_up_request(request, ["too late"], turn_id="t")
    assert [m.text for m in failed.history] == ["s", "earlier", "q"]


def test_a_follow_up_needs_a_message() -> None:
    with pytest.raises(ValueError, match="at least one message"):
        follow_up_request(TurnRequest("q"), [], turn_id="t")
