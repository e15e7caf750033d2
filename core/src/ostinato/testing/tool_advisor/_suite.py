"""``ToolAdvisorConformance``: the tests every tool advisor passes.

Each test runs a scripted turn on the ways it concerns (call and stream, sync and async)
and checks the events contract (:func:`check_turn`), call/stream parity, text deltas, and
every ending: answered, return-direct, tool-call limit, iteration cap, a last round
without tools, repeated calls and no progress, usage limits, a failing tool, a raising
listener. Its bases check approvals and resume (``ApprovalConformance``), failed or
cancelled calls (``CancellationConformance``), effects (``EffectConformance``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, ClassVar

import pytest

from ostinato.advisors import ToolAdvisor, UsageLimits
from ostinato.client import ChatClient, ChatClientRequestSpec
from ostinato.errors import UsageLimitExceeded
from ostinato.events import (
    LoopExitReason,
    RoundStarted,
    TextDelta,
    ToolCallDelta,
    ToolFailureKind,
    ToolFinished,
)
from ostinato.messages import UserMessage
from ostinato.model import ChatResponse, FinishReason
from ostinato.testing._scripted import (
    ScriptedChatModel,
    text_response,
    tool_call,
    tool_call_response,
)
from ostinato.testing.tool_advisor._approvals import ApprovalConformance
from ostinato.testing.tool_advisor._cancellation import CancellationConformance
from ostinato.testing.tool_advisor._checks import check_turn
from ostinato.testing.tool_advisor._effects import EffectConformance
from ostinato.testing.tool_advisor._harness import PATHS, WAYS, Run, comparable, run_way
from ostinato.tools import DefaultToolCallingManager, ToolCallLimits, tool

__all__ = ["KitTools", "ToolAdvisorConformance"]

_ways = pytest.mark.parametrize(("path", "face"), WAYS)


class KitTools:
    """The tools of the kit's turns; counts how often each really ran."""

    NAMES: ClassVar[tuple[str, ...]] = ("weather", "lookup", "fails")

    def __init__(self) -> None:
        self.ran: Counter[str] = Counter()

    @tool(description="Current weather for a city")
    def weather(self, city: str) -> str:
        """Say the weather in ``city``."""
        self.ran["weather"] += 1
        return f"sunny in {city}"

    @tool(description="Look up a topic; the result is the answer", return_direct=True)
    def lookup(self, topic: str) -> str:
        """Answer about ``topic`` directly."""
        self.ran["lookup"] += 1
        return f"all about {topic}"

    @tool(description="A tool that always fails")
    def fails(self) -> str:
        """Raise."""
        self.ran["fails"] += 1
        raise RuntimeError("broken tool")


def _weather(city: str, n: int, usage: tuple[int, int, int] | None = (1, 2, 3)) -> ChatResponse:
    return tool_call_response(tool_call("weather", {"city": city}, id=f"w{n}"), usage=usage)


class ToolAdvisorConformance(ApprovalConformance, CancellationConformance, EffectConformance):
    """Subclass it in a tool advisor's tests and implement :meth:`make_advisor` (and
    :meth:`discovery` when the model must find tools before it can call them)::

        class TestMyAdvisorConformance(ToolAdvisorConformance):
            def make_advisor(self, **settings):
                return MyToolAdvisor(**settings)

    ``settings`` are :class:`~ostinato.advisors.ToolCallingAdvisor` settings
    (``max_iterations``, ``final_answer_on_limit``, ``no_progress_repeats``,
    ``no_progress_action``, ``usage_limits``, ``tool_calling_manager``).
    """

    # -- hooks ---------------------------------------------------------------------------

    def make_advisor(self, **settings: Any) -> ToolAdvisor:
        """The tool advisor under test, with ``settings``."""
        raise NotImplementedError("a ToolAdvisorConformance subclass implements make_advisor")

    def discovery(self, tool_names: Sequence[str]) -> list[ChatResponse]:
        """Model responses that come first in every turn so that ``tool_names`` can be
        called (a tool-search advisor: a search finding them). Default: none."""
        return []

    # -- helpers -------------------------------------------------------------------------

    @property
    def offset(self) -> int:
        """Rounds :meth:`discovery` adds before the kit's own."""
        return len(self.discovery(KitTools.NAMES))

    def turn(
        self, path: str, face: str, script: Sequence[Any], **settings: Any
    ) -> tuple[Run, KitTools]:
        """Run one turn of ``script`` (after the discovery rounds) on one way."""
        tools = KitTools()
        model = ScriptedChatModel([*self.discovery(KitTools.NAMES), *script])
        client = ChatClient.builder(model, tool_advisor=self.make_advisor(**settings)).build()
        run = run_way(path, face, lambda c: self._spec(c, tools), client)
        return run, tools

    def _spec(self, client: ChatClient, tools: KitTools) -> ChatClientRequestSpec:
        return client.prompt().system("You are the kit.").user("Weather?").tools(tools)

    # -- events --------------------------------------------------------------------------

    @_ways
    def test_a_tool_round_then_an_answer(self, path: str, face: str) -> None:
        """Every event of a tool round and an answer, in order, with results and usage."""
        script = [_weather("Paris", 1), text_response("It is sunny.", usage=(4, 5, 9))]
        run, tools = self.turn(path, face, script)
        assert run.error is None, run.error
        check_turn(run)
        ended = run.ended
        assert ended.reason is LoopExitReason.ANSWERED
        assert ended.rounds == self.offset + 2
        assert ended.response is not None
        assert ended.response.text == "It is sunny."
        assert run.text == "It is sunny."
        finished = [e for e in run.of(ToolFinished) if e.call.name == "weather"]
        assert [(e.result, e.error, e.return_direct) for e in finished] == [
            ("sunny in Paris", None, False)
        ]
        assert tools.ran["weather"] == 1
        started = run.of(RoundStarted)
        assert isinstance(started[0].messages[-1], UserMessage)
        assert "weather" in started[-1].tool_names
        if path == "stream":
            deltas = [d for d in run.of(ToolCallDelta) if d.round == self.offset + 1]
            assert "".join(d.arguments for d in deltas) == '{"city": "Paris"}'

    def test_call_and_stream_emit_the_same_events_but_the_deltas(self) -> None:
        """Call and stream emit equal events once the deltas are left out."""
        script = [_weather("Paris", 1), _weather("Rome", 2), text_response("Both sunny.")]
        call, _ = self.turn("call", "async", script)
        stream, _ = self.turn("stream", "async", script)
        assert call.error is None
        assert stream.error is None
        assert comparable(call.events) == comparable(stream.events)

    @pytest.mark.parametrize("face", ["sync", "async"])
    def test_text_deltas_concatenated_equal_the_streamed_content(self, face: str) -> None:
        """The text deltas, joined, are what ``stream().content()`` yields."""
        script = [_weather("Paris", 1), text_response("It is sunny in Paris today.")]
        run, _ = self.turn("stream", face, script)
        model = ScriptedChatModel([*self.discovery(KitTools.NAMES), *script])
        client = ChatClient.builder(model, tool_advisor=self.make_advisor()).build()
        content = "".join(self._spec(client, KitTools()).stream().content())
        assert run.text == content == "It is sunny in Paris today."
        assert all(d.text for d in run.of(TextDelta))

    @pytest.mark.parametrize("path", PATHS)
    def test_a_raising_listener_never_breaks_the_turn(self, path: str) -> None:
        """A listener that raises leaves the turn's answer as it would be."""

        def broken(event: object) -> None:
            raise RuntimeError("listener bug")

        model = ScriptedChatModel(
            [*self.discovery(KitTools.NAMES), _weather("Paris", 1), "It is sunny."]
        )
        client = ChatClient.builder(model, tool_advisor=self.make_advisor()).build()
        spec = self._spec(client, KitTools()).listener(broken)
        if path == "call":
            assert spec.call().content() == "It is sunny."
        else:
            assert "".join(spec.stream().content()) == "It is sunny."

    @_ways
    def test_a_failing_tool_is_a_tool_finished_with_its_error_class(
        self, path: str, face: str
    ) -> None:
        """A tool that raises finishes with the class it raised (not ostinato's wrapper),
        the failure kind ``raised`` and the error text."""
        script = [tool_call_response(tool_call("fails", {}, id="f1")), "It broke."]
        run, _ = self.turn(path, face, script)
        assert run.error is None, run.error
        check_turn(run)
        [finished] = [e for e in run.of(ToolFinished) if e.call.name == "fails"]
        assert finished.error == "RuntimeError"
        assert finished.failure is ToolFailureKind.RAISED
        assert finished.result.startswith("Error:")
        assert "broken tool" in finished.result

    # -- endings -------------------------------------------------------------------------

    @_ways
    def test_return_direct(self, path: str, face: str) -> None:
        """Return-direct tools end the loop with their result as the answer."""
        script = [tool_call_response(tool_call("lookup", {"topic": "rain"}, id="l1"))]
        run, _ = self.turn(path, face, script)
        assert run.error is None, run.error
        check_turn(run)
        assert run.ended.reason is LoopExitReason.RETURN_DIRECT
        assert run.text == "all about rain"
        [finished] = [e for e in run.of(ToolFinished) if e.call.name == "lookup"]
        assert finished.return_direct is True

    @_ways
    def test_a_tool_call_limit(self, path: str, face: str) -> None:
        """A per-tool limit breach ends the loop with reason ``tool_call_limit``."""
        manager = DefaultToolCallingManager(limits=ToolCallLimits(per_tool={"weather": 1}))
        script = [_weather("Paris", 1), _weather("Rome", 2)]
        run, tools = self.turn(path, face, script, tool_calling_manager=manager)
        assert run.error is None, run.error
        check_turn(run)
        assert run.ended.reason is LoopExitReason.TOOL_CALL_LIMIT
        assert run.ended.response is not None
        assert run.ended.response.has_finish_reasons(FinishReason.TOOL_CALL_LIMIT_EXCEEDED)
        assert "limit" in (run.text or "").lower()
        assert tools.ran["weather"] == 1

    @_ways
    def test_the_iteration_cap(self, path: str, face: str) -> None:
        """The iteration cap ends the loop with reason ``max_iterations``."""
        cap = self.offset + 2
        script = [_weather("Paris", 1), _weather("Rome", 2)]
        run, tools = self.turn(path, face, script, max_iterations=cap)
        assert run.error is None, run.error
        check_turn(run)
        assert run.ended.reason is LoopExitReason.MAX_ITERATIONS
        assert f"max_iterations={cap}" in (run.text or "")
        assert tools.ran["weather"] == 1

    @_ways
    def test_one_last_round_without_tools_at_the_cap(self, path: str, face: str) -> None:
        """With ``final_answer_on_limit`` the model answers once more, without tools."""
        cap = self.offset + 1
        script = [_weather("Paris", 1), text_response("Probably sunny.")]
        run, tools = self.turn(path, face, script, max_iterations=cap, final_answer_on_limit=True)
        assert run.error is None, run.error
        check_turn(run)
        assert run.ended.reason is LoopExitReason.MAX_ITERATIONS
        assert run.ended.rounds == cap + 1
        assert run.text == "Probably sunny."
        assert tools.ran["weather"] == 0
        last = run.of(RoundStarted)[-1]
        note = last.messages[-1]
        assert isinstance(note, UserMessage)
        assert "Do not call any more tools" in note.text

    @_ways
    def test_every_repeated_call_runs_by_default(self, path: str, face: str) -> None:
        """No-progress detection is off unless asked for: three identical calls all run."""
        script = [_weather("Paris", 1), _weather("Paris", 2), _weather("Paris", 3), "Sunny."]
        run, tools = self.turn(path, face, script)
        assert run.error is None, run.error
        check_turn(run)
        assert run.ended.reason is LoopExitReason.ANSWERED
        assert tools.ran["weather"] == 3
        results = [e.result for e in run.of(ToolFinished) if e.call.name == "weather"]
        assert results == ["sunny in Paris"] * 3

    @_ways
    def test_no_progress_is_told_to_the_model(self, path: str, face: str) -> None:
        """With ``no_progress_repeats=3`` a call repeated three times in a row is answered
        with its earlier result."""
        script = [_weather("Paris", 1), _weather("Paris", 2), _weather("Paris", 3), "Sunny."]
        run, tools = self.turn(path, face, script, no_progress_repeats=3)
        assert run.error is None, run.error
        check_turn(run)
        assert run.ended.reason is LoopExitReason.ANSWERED
        assert tools.ran["weather"] == 2
        told = [e for e in run.of(ToolFinished) if e.call.id == "w3"]
        assert len(told) == 1
        assert told[0].result.startswith("You already called weather")
        assert "sunny in Paris" in told[0].result

    @_ways
    def test_no_progress_ends_the_turn_when_asked(self, path: str, face: str) -> None:
        """With ``no_progress_action='end'`` (detecting from 3) a repeated call ends the
        loop."""
        script = [_weather("Paris", 1), _weather("Paris", 2), _weather("Paris", 3)]
        run, tools = self.turn(path, face, script, no_progress_action="end")
        assert run.error is None, run.error
        check_turn(run)
        assert run.ended.reason is LoopExitReason.NO_PROGRESS
        assert run.ended.response is not None
        assert run.ended.response.has_finish_reasons(FinishReason.NO_PROGRESS)
        assert tools.ran["weather"] == 2

    @pytest.mark.parametrize("path", PATHS)
    def test_no_progress_detection_can_be_turned_off(self, path: str) -> None:
        """``no_progress_repeats=None`` runs every repeated call."""
        script = [_weather("Paris", 1), _weather("Paris", 2), _weather("Paris", 3), "Sunny."]
        run, tools = self.turn(path, "sync", script, no_progress_repeats=None)
        assert run.error is None
        assert run.ended.reason is LoopExitReason.ANSWERED
        assert tools.ran["weather"] == 3

    @_ways
    def test_a_model_request_limit(self, path: str, face: str) -> None:
        """A model-request limit ends the loop with reason ``budget``."""
        limits = UsageLimits(model_requests=self.offset + 1)
        run, tools = self.turn(path, face, [_weather("Paris", 1)], usage_limits=limits)
        assert run.error is None, run.error
        check_turn(run)
        assert run.ended.reason is LoopExitReason.BUDGET
        assert run.ended.limit == "model_requests"
        assert f"model_requests={self.offset + 1}" in (run.text or "")
        assert tools.ran["weather"] == 0

    @_ways
    def test_a_token_limit_on_the_summed_usage(self, path: str, face: str) -> None:
        """A token limit applies to the usage of every round summed."""
        limits = UsageLimits(total_tokens=10)
        script = [_weather("Paris", 1, (2, 3, 5)), _weather("Rome", 2, (3, 3, 6))]
        run, tools = self.turn(path, face, script, usage_limits=limits)
        assert run.error is None, run.error
        check_turn(run)
        assert run.ended.reason is LoopExitReason.BUDGET
        assert run.ended.usage.total_tokens >= 11
        assert run.ended.limit == "total_tokens"
        assert "total_tokens=10" in (run.text or "")
        assert tools.ran["weather"] == 1

    @_ways
    def test_a_tool_call_budget(self, path: str, face: str) -> None:
        """A tool-call budget stops a round whose calls would go past it."""
        limits = UsageLimits(tool_calls=self.offset + 1)
        script = [_weather("Paris", 1), _weather("Rome", 2)]
        run, tools = self.turn(path, face, script, usage_limits=limits)
        assert run.error is None, run.error
        check_turn(run)
        assert run.ended.reason is LoopExitReason.BUDGET
        assert run.ended.limit == "tool_calls"
        assert tools.ran["weather"] == 1

    @pytest.mark.parametrize("limit", ["model_requests", "total_tokens", "tool_calls"])
    @_ways
    def test_one_last_round_without_tools_at_a_usage_limit(
        self, path: str, face: str, limit: str
    ) -> None:
        """With ``final_answer_on_limit`` a usage limit, like the cap, ends with one last
        answer without tools; ``LoopEnded`` says the reason (``budget``) and which limit."""
        value = 10 if limit == "total_tokens" else self.offset + 1
        rounds = [_weather("Paris", 1, (2, 3, 5)), _weather("Rome", 2, (3, 3, 6))]
        reached = 1 if limit == "model_requests" else 2  # the round reaching the limit
        script = [*rounds[:reached], text_response("Probably sunny.")]
        limits = UsageLimits(
            model_requests=value if limit == "model_requests" else None,
            total_tokens=value if limit == "total_tokens" else None,
            tool_calls=value if limit == "tool_calls" else None,
        )
        run, tools = self.turn(path, face, script, usage_limits=limits, final_answer_on_limit=True)
        assert run.error is None, run.error
        check_turn(run)
        assert (run.ended.reason, run.ended.limit) == (LoopExitReason.BUDGET, limit)
        assert run.text == "Probably sunny."
        assert tools.ran["weather"] == reached - 1
        note = run.of(RoundStarted)[-1].messages[-1]
        assert isinstance(note, UserMessage)
        assert f"{limit}={value}" in note.text
        assert "Do not call any more tools" in note.text

    @_ways
    def test_a_usage_limit_raises_when_asked(self, path: str, face: str) -> None:
        """``raise_error=True`` raises ``UsageLimitExceeded`` after ``LoopEnded``."""
        limits = UsageLimits(model_requests=self.offset + 1, raise_error=True)
        run, tools = self.turn(path, face, [_weather("Paris", 1)], usage_limits=limits)
        assert isinstance(run.error, UsageLimitExceeded), run.error
        assert run.error.limit_name == "model_requests"
        check_turn(run)
        assert run.ended.reason is LoopExitReason.BUDGET
        assert run.ended.response is None
        assert tools.ran["weather"] == 0

    @pytest.mark.parametrize("path", PATHS)
    def test_a_requests_usage_limits_win_over_the_advisors(self, path: str) -> None:
        """A request's usage limits replace the advisor's."""
        model = ScriptedChatModel(
            [*self.discovery(KitTools.NAMES), _weather("Paris", 1), _weather("Rome", 2), "ok"]
        )
        advisor = self.make_advisor(usage_limits=UsageLimits(model_requests=1))
        client = ChatClient.builder(model, tool_advisor=advisor).build()
        spec = self._spec(client, KitTools()).usage_limits(UsageLimits(model_requests=50))
        text = spec.call().content() if path == "call" else "".join(spec.stream().content())
        assert text == "ok"
