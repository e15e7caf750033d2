"""Open tool rounds: held by conversation and tool-call ids until a request brings the
tool responses to those calls."""

from __future__ import annotations

from ostinato.messages import AssistantMessage, SystemMessage, ToolResponseMessage, UserMessage
from ostinato_memory._open_rounds import OpenRounds
from tests.fakes.conversations import tool_calls, tool_results

U = UserMessage("u")
CALLS = tool_calls("a", "b")


def test_a_round_completes_with_responses_to_its_calls_once():
    rounds = OpenRounds()
    rounds.open("c", [U, CALLS], ["a", "b"])
    t = tool_results("b", "a")
    assert rounds.take("c", [SystemMessage("S"), t, SystemMessage("late")]) == (U, CALLS, t)
    assert len(rounds) == 0
    assert rounds.take("c", [t]) is None


def test_requests_not_answering_the_calls_find_nothing():
    rounds = OpenRounds()
    rounds.open("c", [U, CALLS], ["a", "b"])
    assert rounds.take("c", [UserMessage("something else")]) is None
    assert rounds.take("c", [tool_results("a")]) is None  # not every call answered
    assert rounds.take("c", [tool_results("zzz")]) is None
    assert rounds.take("c", [ToolResponseMessage([])]) is None
    assert rounds.take("other", [tool_results("a", "b")]) is None
    assert len(rounds) == 1


def test_concurrent_turns_of_one_conversation_do_not_mix():
    rounds = OpenRounds()
    first, second = (
        AssistantMessage("1", CALLS.tool_calls[:1]),
        AssistantMessage("2", CALLS.tool_calls[1:]),
    )
    rounds.open("c", [UserMessage("one"), first], ["a"])
    rounds.open("c", [UserMessage("two"), second], ["b"])
    assert rounds.take("c", [tool_results("b")]) == (UserMessage("two"), second, tool_results("b"))
    assert rounds.take("c", [tool_results("a")]) == (UserMessage("one"), first, tool_results("a"))


def test_the_newest_round_wins_and_the_number_of_rounds_is_bounded():
    rounds = OpenRounds(capacity=2)
    rounds.open("c", [U, CALLS], ["a", "b"])
    rounds.open("c", [CALLS], ["a", "b"])
    assert rounds.take("c", [tool_results("a", "b")]) == (CALLS, tool_results("a", "b"))
    for name in ("x", "y", "z"):
        rounds.open(name, [CALLS], ["a"])
    assert len(rounds) == 2
    assert rounds.take("x", [tool_results("a")]) is None  # the oldest was forgotten
    assert rounds.take("z", [tool_results("a")]) == (CALLS, tool_results("a"))
