"""``GuardAdvisor``: an application's guards refuse or rewrite the user's text and the
answer, on the call and the stream path, plain or ``async``, and each time one acts a
``GuardActed`` event tells it."""

from __future__ import annotations

from typing import Any

import pytest

from ostinato import ChatClient
from ostinato.advisors import (
    DEFAULT_GUARD_RESPONSE,
    ChatClientRequest,
    ChatClientResponse,
    Guard,
    GuardAdvisor,
    GuardDecision,
    SafeGuardAdvisor,
)
from ostinato.events import GuardActed, LoopEvent
from ostinato.testing import ScriptedChatModel

MODES = ("call", "stream")


class Masking(Guard):
    """Rewrites an e-mail address in the user's text (plain method)."""

    def check_input(self, text: str, request: ChatClientRequest) -> GuardDecision:
        if "@" in text:
            return GuardDecision.rewrite(text.replace("ann@example.com", "[email]"), "e-mail")
        return GuardDecision.allow()


class AsyncMasking(Guard):
    """The same, as an ``async`` method."""

    async def check_input(self, text: str, request: ChatClientRequest) -> GuardDecision:
        return Masking().check_input(text, request)


class NoWeather(Guard):
    """Refuses questions about the weather (plain), with its own response."""

    def check_input(self, text: str, request: ChatClientRequest) -> GuardDecision:
        if "weather" in text:
            return GuardDecision.refuse("off topic", "I only talk about bread.")
        return GuardDecision.allow()


class Redact(Guard):
    """Rewrites a secret number in the answer (``async``)."""

    async def check_output(self, text: str, response: ChatClientResponse) -> GuardDecision:
        if "4242" in text:
            return GuardDecision.rewrite(text.replace("4242", "****"), "card number")
        return GuardDecision.allow()


class NoInsults(Guard):
    """Refuses an answer holding an insult (plain), with the advisor's response."""

    def check_output(self, text: str, response: ChatClientResponse) -> GuardDecision:
        return GuardDecision.refuse("insult") if "idiot" in text else GuardDecision.allow()


async def turn(client: ChatClient, text: str, mode: str) -> tuple[str, list[LoopEvent], int]:
    """The answer's text, the events heard, and how many chunks the stream gave."""
    events: list[LoopEvent] = []
    spec = client.prompt(text).listener(events.append)
    if mode == "call":
        return await spec.call().acontent() or "", events, 1
    pieces = [piece async for piece in spec.stream().acontent()]
    return "".join(pieces), events, len(pieces)


def acted(events: list[LoopEvent]) -> list[tuple[Any, ...]]:
    return [
        (e.round, e.guard, e.stage, e.action, e.detail) for e in events if isinstance(e, GuardActed)
    ]


def client_of(model: ScriptedChatModel, *guards: Guard) -> ChatClient:
    return ChatClient.builder(model).default_advisors(GuardAdvisor(guards)).build()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("masking", [Masking, AsyncMasking])
async def test_an_input_rewrite_sends_the_new_text_and_is_told(mode: str, masking: type) -> None:
    model = ScriptedChatModel(["Noted."])
    client = client_of(model, masking())
    text, events, _ = await turn(client, "Write to ann@example.com please", mode)
    assert text == "Noted."
    (prompt,) = model.prompts
    assert prompt.messages[-1].text == "Write to [email] please"
    assert acted(events) == [(0, masking.__name__, "input", "rewrite", "e-mail")]
    assert events[0].kind == "guard_acted"  # before the first round


@pytest.mark.parametrize("mode", MODES)
async def test_an_input_refusal_answers_without_calling_the_model(mode: str) -> None:
    model = ScriptedChatModel(["never sent"])
    client = client_of(model, Masking(), NoWeather())
    text, events, chunks = await turn(client, "How is the weather at ann@example.com?", mode)
    assert text == "I only talk about bread." and chunks == 1
    assert model.call_count == 0
    assert acted(events) == [
        (0, "Masking", "input", "rewrite", "e-mail"),
        (0, "NoWeather", "input", "refuse", "off topic"),
    ]


@pytest.mark.parametrize("mode", MODES)
async def test_an_output_rewrite_replaces_the_answer(mode: str) -> None:
    model = ScriptedChatModel(["Your card is 4242, keep it safe."], chunk_size=4)
    client = client_of(model, Redact())
    text, events, chunks = await turn(client, "What is my card?", mode)
    assert text == "Your card is ****, keep it safe."
    assert chunks == 1  # held back, then given as one chunk of the new text
    assert acted(events) == [(1, "Redact", "output", "rewrite", "card number")]


@pytest.mark.parametrize("mode", MODES)
async def test_an_output_refusal_gives_the_failure_response(mode: str) -> None:
    model = ScriptedChatModel(["You idiot."])
    client = client_of(model, NoInsults())
    text, events, _ = await turn(client, "Hello", mode)
    assert text == DEFAULT_GUARD_RESPONSE
    assert acted(events) == [(1, "NoInsults", "output", "refuse", "insult")]


@pytest.mark.parametrize("mode", MODES)
async def test_allowed_text_goes_through_unchanged_and_nothing_is_told(mode: str) -> None:
    model = ScriptedChatModel(["A plain answer."], chunk_size=3)
    client = client_of(model, Masking(), Redact())
    text, events, chunks = await turn(client, "Hello", mode)
    assert text == "A plain answer."
    assert acted(events) == []
    if mode == "stream":
        assert chunks > 1  # held back for the output guard, then given as it came


async def test_without_output_guards_the_stream_is_not_held_back() -> None:
    model = ScriptedChatModel(["A plain answer."], chunk_size=3)
    client = client_of(model, NoWeather())
    text, _, chunks = await turn(client, "Hello", "stream")
    assert text == "A plain answer." and chunks == 5


async def test_a_guard_returning_something_else_is_an_error_naming_it() -> None:
    class Sloppy(Guard):
        def check_input(self, text: str, request: ChatClientRequest) -> Any:
            return True

    client = client_of(ScriptedChatModel(["-"]), Sloppy())
    with pytest.raises(TypeError, match="the guard 'Sloppy' returned True from check_input"):
        await client.prompt("x").call().acontent()


def test_guards_and_decisions_are_checked() -> None:
    with pytest.raises(TypeError, match=r"expected: an ostinato\.advisors\.Guard"):
        GuardAdvisor([object()])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="a rewrite needs the new text"):
        GuardDecision("rewrite")  # type: ignore[arg-type]
    assert GuardDecision.allow() is GuardDecision.allow()
    assert not Masking().checks_output() and Redact().checks_output()


@pytest.mark.parametrize("mode", MODES)
async def test_the_safeguard_advisor_tells_its_refusal_as_a_guard_event(mode: str) -> None:
    client = (
        ChatClient.builder(ScriptedChatModel(["-"]))
        .default_advisors(SafeGuardAdvisor(["password"]))
        .build()
    )
    text, events, _ = await turn(client, "the admin password", mode)
    assert text == DEFAULT_GUARD_RESPONSE
    # At Spring's order 0 it runs inside the tool loop: in round 1, before the model.
    assert acted(events) == [(1, "SensitiveWordsGuard", "input", "refuse", "a sensitive word")]
    [event] = [e for e in events if isinstance(e, GuardActed)]
    assert GuardActed.from_dict(event.to_dict()) == event
