"""The in-doubt guard of calls with effects (``run_guarded``) on an in-memory journal of
recorded steps that outlives a simulated crash: the engine-neutral half of what the DBOS
crash matrix checks with real worker processes."""

from __future__ import annotations

from typing import Any

import pytest

from ostinato import tool
from ostinato.errors import ToolInDoubtError
from ostinato.events import EventSink, ToolInDoubt, reset_event_sink, set_event_sink
from ostinato.messages import ToolCall
from ostinato.tools import FunctionToolCallback, InDoubtRule, ToolContext
from ostinato.units import ToolInvocation, durable_turn, in_doubt_rule, run_guarded


class Crash(BaseException):
    """The worker dies here."""


class Journal:
    """Recorded steps by position, kept across runs (what an engine's database keeps)."""

    def __init__(self, decision: bool | str = True) -> None:
        self.records: list[Any] = []
        self.decision = decision
        self.asked = 0

    def steps(self) -> Steps:
        return Steps(self)


class Steps:
    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.position = 0

    async def step(self, name: str, body: Any) -> tuple[Any, bool]:
        position, self.position = self.position, self.position + 1
        if position < len(self.journal.records):
            return self.journal.records[position], False
        result = await body()
        self.journal.records.append(result)
        return result, True

    async def ask(self, unit: ToolInvocation, key: str | None) -> bool | str:
        self.journal.asked += 1
        return self.journal.decision


def make(rule: str | None, crash_after_effect: list[bool], effects: list[str]) -> Any:
    def reconcile(arguments: str, key: str) -> str | None:
        return "paid (reconciled)" if key in effects else None

    @tool(effect="destructive", in_doubt=rule, reconcile=reconcile if rule == "reconcile" else None)
    def pay(amount: int) -> str:
        from ostinato.durable import idempotency_key

        effects.append(idempotency_key() or "")
        if crash_after_effect and crash_after_effect.pop():
            raise Crash
        return "paid"

    return FunctionToolCallback(pay)


async def run_once(callback: Any, journal: Journal, events: list[Any]) -> str:
    from ostinato.units._stack import _innermost

    sink = EventSink([events.append])
    token = set_event_sink(sink)
    try:
        with durable_turn("turn-1"):
            unit = ToolInvocation(
                ToolCall("c1", "pay", '{"amount": 5}'),
                callback,
                '{"amount": 5}',
                ToolContext(),
                effect=callback.tool_metadata.effect,
            )
            rule = in_doubt_rule(unit)
            assert rule is not None
            outcome = await run_guarded(unit, _innermost, journal.steps(), rule)
    finally:
        reset_event_sink(token)
    assert isinstance(outcome, str), outcome
    return outcome


async def crash_then_recover(rule: str | None, decision: bool | str = True) -> Any:
    effects: list[str] = []
    callback = make(rule, [True], effects)  # the first run dies right after the effect
    journal = Journal(decision)
    events: list[Any] = []
    with pytest.raises(Crash):
        await run_once(callback, journal, events)
    assert journal.records == ["started"]  # marked in doubt before it ran
    return callback, journal, events, effects


async def test_reconcile_answers_from_the_hook_and_never_runs_twice() -> None:
    callback, journal, events, effects = await crash_then_recover("reconcile")
    assert await run_once(callback, journal, events) == "paid (reconciled)"
    assert effects == ["turn-1/1"]
    [told] = [e for e in events if isinstance(e, ToolInDoubt)]
    assert (told.rule, told.effect, told.key) == ("reconcile", "destructive", "turn-1/1")
    # Replayed again: every step is recorded and nothing runs (the event is told again,
    # as a replayed turn tells all its events; a relay keeps each once).
    events.clear()
    assert await run_once(callback, journal, events) == "paid (reconciled)"
    assert effects == ["turn-1/1"] and [type(e) for e in events] == [ToolInDoubt]


async def test_approve_asks_and_a_denial_is_what_the_model_reads() -> None:
    callback, journal, events, effects = await crash_then_recover(None, decision="it went through")
    assert callback.tool_metadata.in_doubt_rule() is InDoubtRule.APPROVE  # the default
    text = await run_once(callback, journal, events)
    assert "was not run again" in text and "it went through" in text
    assert effects == ["turn-1/1"] and journal.asked == 1


async def test_approve_approved_runs_the_call_again_marked_again() -> None:
    callback, journal, events, effects = await crash_then_recover(None, decision=True)
    assert await run_once(callback, journal, events) == "paid"
    assert effects == ["turn-1/1", "turn-1/1"]  # a person decided it had not happened
    assert journal.records[-2:] == ["started", {"outcome": {"text": "paid"}}]


async def test_fail_fails_the_turn_with_a_clear_error() -> None:
    callback, journal, events, effects = await crash_then_recover("fail")
    with pytest.raises(ToolInDoubtError, match="in flight when its worker stopped") as caught:
        await run_once(callback, journal, events)
    assert (caught.value.tool_name, caught.value.key) == ("pay", "turn-1/1")
    assert effects == ["turn-1/1"]


async def test_a_call_that_finished_is_replayed_without_doubt() -> None:
    effects: list[str] = []
    callback, journal, events = make(None, [], effects), Journal(), []
    assert await run_once(callback, journal, events) == "paid"
    assert await run_once(callback, journal, events) == "paid"
    assert effects == ["turn-1/1"] and not [e for e in events if isinstance(e, ToolInDoubt)]
