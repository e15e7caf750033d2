"""``ReplayedTurnLog``: a durable turn's events keep their positions across a replay,
nothing is written twice, and a streamed round cut short is withdrawn, not doubled."""

from __future__ import annotations

from collections import Counter

from ostinato import ChatClient
from ostinato.durable import ReplayedTurnLog
from ostinato.events import LoopEvent, RoundAbandoned, TextDelta, withdrawn
from ostinato.testing import ScriptedChatModel, tool_call, tool_call_response
from ostinato.tools import tool


@tool(description="Adds")
def add(a: int, b: int) -> int:
    return a + b


class ListLog(ReplayedTurnLog):
    """The store is a list."""

    def __init__(self, stored: list[LoopEvent]) -> None:
        super().__init__("turn-1", stored)
        self.written: list[LoopEvent] = []

    def write(self, event: LoopEvent) -> None:
        self.written.append(event)


def run(log: ListLog, answer: str) -> list[LoopEvent]:
    """One run of the turn's code (a tool round, then ``answer`` streamed); what every
    listener heard."""
    heard: list[LoopEvent] = []
    model = ScriptedChatModel([tool_call_response(tool_call("add", {"a": 1, "b": 2})), answer])
    spec = ChatClient.create(model).prompt("1+2?").tools(add).listener(log).listener(heard.append)
    assert "".join(spec.stream().content()) == answer
    return heard


def text(events: list[LoopEvent]) -> str:
    return "".join(e.text for e in withdrawn(events) if isinstance(e, TextDelta))


def assert_exactly_once(log: list[LoopEvent]) -> None:
    assert [e.seq for e in log] == list(range(1, len(log) + 1))
    kept = withdrawn(log)
    once = Counter(
        (e.kind, getattr(e, "round", 0), getattr(getattr(e, "call", None), "id", ""))
        for e in kept
        if e.kind not in ("text_delta", "tool_call_delta")
    )
    assert max(once.values()) == 1, once


def test_a_first_run_writes_every_event_in_order():
    log = ListLog([])
    heard = run(log, "Three it is")
    assert log.written == heard
    assert [e.seq for e in heard] == list(range(1, len(heard) + 1))
    assert {e.turn_id for e in heard} == {"turn-1"}


def test_a_round_cut_short_is_withdrawn_and_streamed_again_once():
    first = ListLog([])
    run(first, "Hello there friend")
    cut = next(i for i, e in enumerate(first.written) if isinstance(e, TextDelta)) + 2
    stored = first.written[:cut]  # the worker died after two pieces of the answer

    second = ListLog(stored)
    heard = run(second, "Goodbye now")  # the round runs again, and says something else
    whole = stored + second.written
    assert_exactly_once(whole)
    abandoned = [e for e in whole if isinstance(e, RoundAbandoned)]
    assert len(abandoned) == 1 and abandoned[0].first == stored[cut - 2].seq
    assert text(whole) == "Goodbye now"
    # The events of the replayed part kept their positions.
    assert [e.seq for e in heard[: cut - 2]] == [e.seq for e in stored[: cut - 2]]

    # And once more, dying in the middle of the second attempt.
    again = whole[: len(whole) - 2]
    third = ListLog(again)
    run(third, "Bye")
    final = again + third.written
    assert_exactly_once(final)
    assert text(final) == "Bye"


def test_a_replay_of_a_finished_round_writes_nothing_twice():
    first = ListLog([])
    run(first, "Three it is")
    ended = next(i for i, e in enumerate(first.written) if e.kind == "loop_ended")
    stored = first.written[:ended]  # everything but the last event reached the store

    second = ListLog(stored)
    run(second, "Three it is")  # a replay: the pieces come again (here, the same)
    assert [e.kind for e in second.written] == ["loop_ended"]
    assert second.written[0].seq == len(stored) + 1
    assert text(stored + second.written) == "Three it is"

    complete = ListLog(stored + second.written)
    run(complete, "Three it is")
    assert complete.written == []


@tool(description="Pays", requires_approval=True)
def pay(amount: int) -> str:
    return "paid"


def stop_for_approval(log: ListLog) -> list[LoopEvent]:
    """One run of a turn that stops for approval: its round, then the loop's own text
    saying the call waits (a piece emitted after the round finished)."""
    heard: list[LoopEvent] = []
    model = ScriptedChatModel([tool_call_response(tool_call("pay", {"amount": 5}))])
    spec = ChatClient.create(model).prompt("Pay").tools(pay).listener(log).listener(heard.append)
    list(spec.stream().content())
    return heard


def test_the_loops_own_text_after_a_finished_round_is_written_by_the_run_that_tells_it():
    """The text the loop builds itself after a round (a stop for approval says what
    waits) is no piece of that round's stream: a worker that died after the round's end
    reached the store, before that text did, leaves it to the replay — which writes it
    (it was taken for a replayed piece of the finished round, and lost)."""
    first = ListLog([])
    heard = stop_for_approval(first)
    kinds = [e.kind for e in heard]
    waiting = kinds.index("approval_required") + 1
    assert kinds[waiting:] == ["text_delta", "loop_ended"]
    for cut in (waiting, waiting + 1):  # died before the text; before the loop's end
        second = ListLog(first.written[:cut])
        stop_for_approval(second)
        whole = first.written[:cut] + second.written
        assert [e.kind for e in whole] == kinds
        assert_exactly_once(whole)
        assert text(whole) == text(first.written) != ""

    complete = ListLog(first.written)
    stop_for_approval(complete)
    assert complete.written == []
