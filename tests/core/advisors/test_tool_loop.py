"""ToolLoopTurn: the one decision of the tool loop, made the same way for call and stream.

The turn is driven by hand here (no chain run), so each exit reason is reached by handing
``decide`` the response of a round.
"""

from __future__ import annotations

import pytest

from ostinato import ToolCallingAdvisor
from ostinato.advisors import (
    AdvisorChain,
    ChatClientRequest,
    ChatClientResponse,
    LoopExitReason,
    ToolLoopExitReason,
)
from ostinato.advisors._tool_loop import LoopExit, NextRound, ToolLoopTurn
from ostinato.context_keys import SENT_OPTIONS, TOOL_LOOP_ROUND
from ostinato.messages import SystemMessage, UserMessage
from ostinato.model import ChatResponse, FinishReason
from ostinato.prompt import Prompt, ToolCallingChatOptions
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato.tools import DefaultToolCallingManager, ToolCallLimits, tool_callbacks
from tests.core.advisors.fakes import ExitListener, HookRecorder, forecast, weather
from tests.core.advisors.loop_harness import chain_for

pytestmark = pytest.mark.parametrize("stream", [False, True], ids=["call", "stream"])


OPTIONS = ToolCallingChatOptions(tool_callbacks=tool_callbacks(weather, forecast))


async def start(
    stream: bool, advisor: ToolCallingAdvisor | None = None
) -> tuple[ToolLoopTurn, ExitListener]:
    advisor = advisor or ToolCallingAdvisor()
    listener = ExitListener()
    chain = chain_for(ScriptedChatModel(), advisor, listener)
    request = ChatClientRequest(Prompt([SystemMessage("sys"), UserMessage("Weather?")], OPTIONS))
    turn = await ToolLoopTurn.start(advisor, request, chain, OPTIONS, stream=stream)
    return turn, listener


def round_of(response: ChatResponse) -> ChatClientResponse:
    return ChatClientResponse(response, {SENT_OPTIONS: OPTIONS})


async def test_an_answer_ends_the_turn_as_answered(stream):
    turn, listener = await start(stream)
    request = await turn.begin_round()
    step = await turn.decide(request, round_of(text_response("Sunny", usage=(3, 2, 5))))
    assert isinstance(step, LoopExit)
    assert step.reason is LoopExitReason.ANSWERED
    assert step.response.chat_response is not None
    assert step.response.chat_response.text == "Sunny"
    assert SENT_OPTIONS not in step.response.context
    assert turn.rounds == 1
    assert listener.endings == []  # the advisors inside saw this answer go by


async def test_a_tool_round_goes_on_with_the_whole_turn(stream):
    turn, _ = await start(stream)
    request = await turn.begin_round()
    step = await turn.decide(request, round_of(tool_call_response(("weather", {"city": "Oslo"}))))
    assert isinstance(step, NextRound)
    texts = [m.text for m in step.instructions if hasattr(m, "text")]
    assert texts[:2] == ["sys", "Weather?"]
    assert step.instructions[-1].responses[0].response_data == "Oslo: 25C"  # type: ignore[union-attr]
    assert turn.instructions == step.instructions
    assert turn.history == step.instructions


async def test_return_direct_ends_the_turn_and_tells_the_listeners(stream):
    turn, listener = await start(stream)
    request = await turn.begin_round()
    step = await turn.decide(request, round_of(tool_call_response(("forecast", {"city": "Rome"}))))
    assert isinstance(step, LoopExit)
    assert step.reason is LoopExitReason.RETURN_DIRECT
    assert step.tool_responses is not None
    assert step.response.chat_response is not None
    [generation] = step.response.chat_response.generations
    assert generation.metadata.finish_reason == FinishReason.RETURN_DIRECT
    [ending] = listener.endings
    assert ending.reason is ToolLoopExitReason.RETURN_DIRECT
    assert ending.response == step.response


async def test_a_limit_breach_ends_the_turn_and_tells_the_listeners(stream):
    manager = DefaultToolCallingManager(limits=ToolCallLimits(per_tool={"weather": 1}))
    turn, listener = await start(stream, ToolCallingAdvisor(tool_calling_manager=manager))
    asking = tool_call_response(("weather", {"city": "Oslo"}), ("weather", {"city": "Rome"}))
    step = await turn.decide(await turn.begin_round(), round_of(asking))
    assert isinstance(step, LoopExit)
    assert step.reason is LoopExitReason.TOOL_CALL_LIMIT
    assert step.response.chat_response is not None
    [generation] = step.response.chat_response.generations
    assert generation.metadata.finish_reason == FinishReason.TOOL_CALL_LIMIT_EXCEEDED
    assert [e.reason for e in listener.endings] == [LoopExitReason.TOOL_CALL_LIMIT]


async def test_the_iteration_cap_ends_the_turn_without_running_tools(stream):
    turn, listener = await start(stream, ToolCallingAdvisor(max_iterations=2))
    asking = round_of(tool_call_response(("weather", {"city": "Oslo"})))
    assert isinstance(await turn.decide(await turn.begin_round(), asking), NextRound)
    history = turn.history
    step = await turn.decide(await turn.begin_round(), asking)
    assert isinstance(step, LoopExit)
    assert step.reason is LoopExitReason.MAX_ITERATIONS
    assert turn.history == history  # the capped round's calls did not run
    assert step.response.chat_response is not None
    assert "max_iterations=2" in (step.response.chat_response.text or "")
    [generation] = step.response.chat_response.generations
    assert generation.metadata.finish_reason == FinishReason.MAX_ITERATIONS_EXCEEDED
    assert [e.reason for e in listener.endings] == [LoopExitReason.MAX_ITERATIONS]


async def test_usage_of_every_round_is_on_the_answer(stream):
    turn, _ = await start(stream)
    asking = tool_call_response(("weather", {"city": "Oslo"}), usage=(10, 1, 11))
    await turn.decide(await turn.begin_round(), round_of(asking))
    step = await turn.decide(
        await turn.begin_round(), round_of(text_response("Sunny", usage=(20, 2, 22)))
    )
    assert isinstance(step, LoopExit)
    assert step.response.chat_response is not None
    assert step.response.chat_response.usage.total_tokens == 33


async def test_only_the_stream_stamps_an_early_answer_with_a_round_of_its_own(stream):
    turn, _ = await start(stream)
    step = await turn.decide(
        await turn.begin_round(), round_of(tool_call_response(("forecast", {"city": "Rome"})))
    )
    assert isinstance(step, LoopExit)
    if stream:
        assert step.response.context[TOOL_LOOP_ROUND] == 2
        assert turn.stream_tail(step) is step.response
    else:
        assert TOOL_LOOP_ROUND not in step.response.context


async def test_the_stream_tail_of_an_answer_is_a_usage_trailer_only_when_needed(stream):
    turn, _ = await start(stream)
    await turn.decide(
        await turn.begin_round(),
        round_of(tool_call_response(("weather", {"city": "Oslo"}), usage=(10, 1, 11))),
    )
    step = await turn.decide(await turn.begin_round(), round_of(text_response("Sunny")))
    assert isinstance(step, LoopExit)
    trailer = turn.stream_tail(step)
    assert trailer is not None and trailer.chat_response is not None
    assert trailer.chat_response.generations == ()
    assert trailer.chat_response.usage.total_tokens == 11
    assert trailer.context[TOOL_LOOP_ROUND] == 2


async def test_no_trailer_when_the_answer_carries_usage(stream):
    turn, _ = await start(stream)
    step = await turn.decide(
        await turn.begin_round(), round_of(text_response("Sunny", usage=(1, 1, 2)))
    )
    assert isinstance(step, LoopExit)
    assert turn.stream_tail(step) is None


async def test_the_hooks_of_the_path_run(stream):
    hooked = HookRecorder()
    turn, _ = await start(stream, hooked)
    await turn.decide(await turn.begin_round(), round_of(text_response("Sunny")))
    suffix = "stream" if stream else "call"
    assert hooked.calls == [f"initialize_{suffix}", f"before_{suffix}", f"after_{suffix}"]


async def test_options_set_before_a_round_are_carried_on(stream):
    extra = ToolCallingChatOptions(tool_callbacks=tool_callbacks(weather), model="other")

    class Switching(ToolCallingAdvisor):
        async def do_before_call(
            self, request: ChatClientRequest, chain: AdvisorChain
        ) -> ChatClientRequest:
            return request.copy(prompt=Prompt(request.prompt.messages, extra))

        do_before_stream = do_before_call

    turn, _ = await start(stream, Switching())
    request = await turn.begin_round()
    assert request.prompt.options is extra
    assert turn.options is extra


def test_the_old_name_of_the_exit_reason_is_the_same_enum(stream):
    # Its members and their values are checked with the events' schema.
    assert ToolLoopExitReason is LoopExitReason
