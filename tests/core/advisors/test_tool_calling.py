"""ToolCallingAdvisor: construction, the call path and the stream path.

Every loop scenario runs on both paths (``mode``); the deliberate differences from Spring
AI have their own tests at the end.
"""

from __future__ import annotations

from collections import Counter

import pytest

from ostinato.advisors import (
    BaseAdvisor,
    CallAdvisor,
    ChatClientRequest,
    ChatClientResponse,
    Ordered,
    StreamAdvisor,
    ToolCallingAdvisor,
)
from ostinato.errors import ToolCallLimitExceeded
from ostinato.messages import (
    AssistantMessage,
    SystemMessage,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.model import ChatResponse, Generation, Usage
from ostinato.prompt import ChatOptions, Prompt
from ostinato.testing import ScriptedChatModel, ScriptedStream, text_response
from ostinato.tools import ToolExecutionResult
from tests.core.advisors.fakes import HookRecorder
from tests.core.advisors.loop_harness import MODES, chain_for, final, request, run, tc
from tests.fakes.managers import RecordingManager, default_result

pytestmark = pytest.mark.parametrize("mode", MODES)

HIGHEST = Ordered.HIGHEST_PRECEDENCE
LOWEST = Ordered.LOWEST_PRECEDENCE


def direct_result(text: str = "Tool result data") -> ToolExecutionResult:
    return ToolExecutionResult(
        [
            UserMessage("test message"),
            AssistantMessage("response"),
            ToolResponseMessage([ToolResponse("tool-1", "testTool", text)]),
        ],
        True,
    )


# -- 10.1 construction --------------------------------------------------------------------


class TestConstruction:
    def test_none_manager_is_rejected(self, mode):
        with pytest.raises(ValueError, match="tool_calling_manager must not be None"):
            ToolCallingAdvisor(tool_calling_manager=None)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="tool_calling_manager must not be None"):
            ToolCallingAdvisor.builder().tool_calling_manager(None).build()  # type: ignore[arg-type]

    @pytest.mark.parametrize("order", [HIGHEST, LOWEST, HIGHEST - 1, LOWEST + 1])
    def test_order_must_lie_strictly_between_the_precedence_bounds(self, mode, order):
        with pytest.raises(ValueError, match="between HIGHEST_PRECEDENCE and LOWEST_PRECEDENCE"):
            ToolCallingAdvisor(advisor_order=order)

    def test_defaults(self, mode):
        advisor = ToolCallingAdvisor()
        assert advisor.order == HIGHEST + 300 == ToolCallingAdvisor.DEFAULT_ORDER
        assert advisor.name == "Tool Calling Advisor"
        assert advisor.conversation_history_enabled is True
        assert advisor.max_iterations == 25

    @pytest.mark.parametrize("order", [HIGHEST + 400, HIGHEST + 500])
    def test_configured_order_is_reported(self, mode, order):
        assert ToolCallingAdvisor.builder().advisor_order(order).build().order == order

    def test_none_checker_is_rejected(self, mode):
        with pytest.raises(ValueError, match="tool_execution_eligibility_checker must not be None"):
            ToolCallingAdvisor(tool_execution_eligibility_checker=None)  # type: ignore[arg-type]

    def test_builder_reports_what_it_was_given(self, mode):
        manager = RecordingManager()
        builder = ToolCallingAdvisor.builder().tool_calling_manager(manager).advisor_order(7)
        assert builder.get("tool_calling_manager") is manager
        assert builder.get("advisor_order") == 7
        advisor = builder.build()
        assert advisor.tool_calling_manager is manager
        assert advisor.order == 7

    def test_max_iterations_must_be_positive(self, mode):
        with pytest.raises(ValueError, match="max_iterations must be a positive int"):
            ToolCallingAdvisor(max_iterations=0)

    def test_copy_keeps_class_and_settings_and_applies_changes(self, mode):
        class Audited(ToolCallingAdvisor):
            pass

        manager = RecordingManager()
        original = Audited(tool_calling_manager=manager, advisor_order=5)
        copied = original.copy(conversation_history_enabled=False)
        assert type(copied) is Audited
        assert copied.tool_calling_manager is manager
        assert copied.order == 5
        assert copied.conversation_history_enabled is False
        assert original.conversation_history_enabled is True
        with pytest.raises(TypeError, match="unknown setting"):
            original.copy(colour="blue")
        with pytest.raises(ValueError, match="between"):
            original.copy(advisor_order=LOWEST)


# -- 10.2 / 10.3 argument checks and pass-through ----------------------------------------------


async def test_none_arguments_are_rejected_at_once(mode):
    advisor = ToolCallingAdvisor(tool_calling_manager=RecordingManager())
    chain = chain_for(ScriptedChatModel())
    method = advisor.advise_call if mode == "call" else advisor.advise_stream
    with pytest.raises(ValueError, match="request"):
        result = method(None, chain)  # type: ignore[arg-type]
        if mode == "call":
            await result  # type: ignore[misc]
    with pytest.raises(ValueError, match="chain"):
        result = method(request(), None)  # type: ignore[arg-type]
        if mode == "call":
            await result  # type: ignore[misc]


@pytest.mark.parametrize("options", [None, ChatOptions(model="plain")])
async def test_options_that_cannot_carry_tools_pass_straight_through(mode, options):
    seen: list[ChatClientRequest] = []

    class Spy(CallAdvisor, StreamAdvisor):
        order = 0

        async def advise_call(self, req, chain):
            seen.append(req)
            return await chain.next_call(req)

        async def advise_stream(self, req, chain):
            seen.append(req)
            async for c in chain.next_stream(req):
                yield c

    model = ScriptedChatModel([tc()])
    manager = RecordingManager()
    req = ChatClientRequest(Prompt("hi", options))
    out = await run(mode, ToolCallingAdvisor(tool_calling_manager=manager), model, req, [Spy()])
    assert seen == [req] and seen[0] is req
    assert model.call_count == 1
    assert manager.calls == 0
    assert out.response.has_tool_calls()


# -- 10.2 / 10.3 the loop ----------------------------------------------------------------------


async def test_answer_without_tool_calls_is_returned_as_is(mode):
    answer = final()
    model = ScriptedChatModel([answer])
    manager = RecordingManager()
    out = await run(mode, ToolCallingAdvisor(tool_calling_manager=manager), model)
    assert manager.calls == 0
    assert out.response == answer
    if mode == "call":
        assert out.last.chat_response is answer
    else:
        assert len(out.emitted) == len(model.chunk(answer))


async def test_one_tool_round_then_answer(mode):
    answer = final("Paris: 25C")
    model = ScriptedChatModel([tc(), answer])
    manager = RecordingManager()
    out = await run(mode, ToolCallingAdvisor(tool_calling_manager=manager), model)
    assert model.call_count == 2
    assert manager.calls == 1
    assert out.response == answer
    if mode == "call":
        assert out.last.chat_response is answer  # the last model response itself
    assert not any(c.chat_response and c.chat_response.has_tool_calls() for c in out.emitted)


async def test_two_tool_rounds_then_answer(mode):
    model = ScriptedChatModel([tc(), tc(), final()])
    manager = RecordingManager()
    out = await run(mode, ToolCallingAdvisor(tool_calling_manager=manager), model)
    assert (model.call_count, manager.calls) == (3, 2)
    assert out.text == "response"


async def test_checker_saying_no_suppresses_execution(mode):
    model = ScriptedChatModel([ScriptedStream([tc()]) if mode == "stream" else tc()])
    manager = RecordingManager()
    advisor = ToolCallingAdvisor(
        tool_calling_manager=manager, tool_execution_eligibility_checker=lambda r: False
    )
    out = await run(mode, advisor, model)
    assert manager.calls == 0
    assert len(out.emitted) == 1
    assert out.response.has_tool_calls()


async def test_checker_saying_yes_forces_execution(mode):
    model = ScriptedChatModel([final("force me"), final()])
    manager = RecordingManager(lambda p, r: ToolExecutionResult([*p.messages], False))
    advisor = ToolCallingAdvisor(
        tool_calling_manager=manager,
        tool_execution_eligibility_checker=lambda r: r.text == "force me",
    )
    out = await run(mode, advisor, model)
    assert (model.call_count, manager.calls) == (2, 1)
    assert out.text == "response"


async def test_null_chat_response_is_returned_without_execution(mode):
    class Empty(CallAdvisor, StreamAdvisor):
        order = 0

        async def advise_call(self, req, chain):
            return ChatClientResponse(None, req.context)

        async def advise_stream(self, req, chain):
            yield ChatClientResponse(None, req.context)

    manager = RecordingManager()
    out = await run(
        mode, ToolCallingAdvisor(tool_calling_manager=manager), ScriptedChatModel(), inner=[Empty()]
    )
    assert manager.calls == 0
    assert [c.chat_response for c in out.emitted] == [None]


# -- usage ----------------------------------------------------------------------------------


async def test_usage_is_summed_over_rounds(mode):
    model = ScriptedChatModel([tc((10, 20, 30)), final(usage=(1, 2, 3))])
    out = await run(mode, ToolCallingAdvisor(tool_calling_manager=RecordingManager()), model)
    assert out.response.usage == Usage(11, 22, 33)
    assert out.text == "response"


async def test_cache_counts_are_summed_and_native_usage_dropped(mode):
    first = tc(Usage(10, 20, 30, 100, 5, {"raw": 1}))  # type: ignore[arg-type]
    second = final(usage=Usage(1, 2, 3, 200, 0, {"raw": 2}))  # type: ignore[arg-type]
    model = ScriptedChatModel([first, second])
    out = await run(mode, ToolCallingAdvisor(tool_calling_manager=RecordingManager()), model)
    usage = out.response.usage
    assert (usage.total_tokens, usage.cache_read_input_tokens, usage.cache_write_input_tokens) == (
        33,
        300,
        5,
    )
    assert usage.native_usage is None


async def test_single_round_usage_is_untouched(mode):
    model = ScriptedChatModel([final(usage=(1, 2, 3))])
    out = await run(mode, ToolCallingAdvisor(tool_calling_manager=RecordingManager()), model)
    assert out.response.usage == Usage(1, 2, 3)


async def test_stream_adds_previous_usage_only_to_usage_bearing_chunks(mode):
    if mode == "call":
        pytest.skip("a stream-only behaviour: per-chunk usage")
    chunks = [
        text_response("Hello ", usage=None),
        text_response("world", usage=(1, 2, 3)),
        text_response("!"),
    ]
    model = ScriptedChatModel([ScriptedStream([tc((10, 20, 30))]), ScriptedStream(chunks)])
    out = await run(mode, ToolCallingAdvisor(tool_calling_manager=RecordingManager()), model)
    assert [c.chat_response.text for c in out.emitted] == ["Hello ", "world", "!"]
    assert [c.chat_response.usage.total_tokens for c in out.emitted] == [0, 33, 0]


async def test_stream_emits_usage_trailer_when_final_round_reports_none(mode):
    model = ScriptedChatModel([tc((10, 20, 30)), final()])
    out = await run(mode, ToolCallingAdvisor(tool_calling_manager=RecordingManager()), model)
    assert out.response.usage == Usage(10, 20, 30)
    if mode == "stream":
        trailer = out.emitted[-1].chat_response
        assert trailer.generations == ()
        assert trailer.usage == Usage(10, 20, 30)


async def test_each_run_of_one_stream_advisor_keeps_its_own_usage(mode):
    model = ScriptedChatModel([tc((10, 20, 30)), final(usage=(1, 2, 3))] * 2)
    manager = RecordingManager()
    advisor = ToolCallingAdvisor(tool_calling_manager=manager)
    first = await run(mode, advisor, model)
    second = await run(mode, advisor, model)
    assert first.response.usage == second.response.usage == Usage(11, 22, 33)
    assert (model.call_count, manager.calls) == (4, 2)


# -- return-direct and limits -------------------------------------------------------------------


async def test_return_direct_ends_the_turn_with_the_tool_results(mode):
    model = ScriptedChatModel([ScriptedStream([tc()]) if mode == "stream" else tc()])
    manager = RecordingManager(direct_result())
    out = await run(mode, ToolCallingAdvisor(tool_calling_manager=manager), model)
    assert (model.call_count, manager.calls) == (1, 1)
    response = out.response
    assert len(response.generations) == 1
    assert response.text == "Tool result data"
    assert response.result.metadata.finish_reason == "returnDirect"
    assert response.result.metadata.get("toolName") == "testTool"
    if mode == "stream":
        assert len(out.emitted) == 1


async def test_return_direct_keeps_the_accumulated_usage(mode):
    model = ScriptedChatModel([tc((10, 20, 30)), tc((1, 2, 3))])
    manager = RecordingManager(default_result, direct_result())
    out = await run(mode, ToolCallingAdvisor(tool_calling_manager=manager), model)
    assert (model.call_count, manager.calls) == (2, 2)
    assert out.response.usage == Usage(11, 22, 33)
    assert [g.text for g in out.response.generations] == ["Tool result data"]


async def test_limit_breach_ends_the_turn_with_the_breach_text(mode):
    ok = ToolResponse("tool-1", "testTool", "successful result")
    breach = ToolResponse("tool-2", "testTool", "Tool call limit (1) exceeded for tool 'testTool'.")
    partial = ToolExecutionResult(
        [UserMessage("test message"), AssistantMessage("x"), ToolResponseMessage([ok, breach])]
    )
    error = ToolCallLimitExceeded("limit", tool_name="testTool", limit=1, partial_result=partial)
    model = ScriptedChatModel([ScriptedStream([tc((10, 20, 30))])])
    manager = RecordingManager(error)
    out = await run(mode, ToolCallingAdvisor(tool_calling_manager=manager), model)
    assert (model.call_count, manager.calls) == (1, 1)
    response = out.response
    assert [g.text for g in response.generations] == [breach.response_data]
    assert response.result.metadata.finish_reason == "toolCallLimitExceeded"
    assert response.result.metadata.get("partialToolResponses") == [ok]
    assert response.usage == Usage(10, 20, 30)
    if mode == "stream":
        assert len(out.emitted) == 1


async def test_other_manager_errors_propagate(mode):
    model = ScriptedChatModel([tc()])
    advisor = ToolCallingAdvisor(tool_calling_manager=RecordingManager(RuntimeError("boom")))
    with pytest.raises(RuntimeError, match="boom"):
        await run(mode, advisor, model)


# -- history ------------------------------------------------------------------------------------


async def test_history_enabled_forwards_the_whole_turn(mode):
    model = ScriptedChatModel([tc(), tc(), final()])
    req = request(SystemMessage("S"), UserMessage("U"))
    await run(mode, ToolCallingAdvisor(tool_calling_manager=RecordingManager()), model, req)
    kinds = [[type(m).__name__[0] for m in p.messages] for p in model.prompts]
    assert kinds == [["S", "U"], ["S", "U", "A", "T"], ["S", "U", "A", "T", "A", "T"]]


async def test_history_disabled_forwards_system_and_last_tool_response(mode):
    model = ScriptedChatModel([tc(), final()])
    advisor = (
        ToolCallingAdvisor.builder()
        .tool_calling_manager(RecordingManager())
        .disable_internal_conversation_history()
        .build()
    )
    req = request(SystemMessage("You are a helpful assistant"), UserMessage("test message"))
    out = await run(mode, advisor, model, req)
    second = model.prompts[1].messages
    assert [type(m) for m in second] == [SystemMessage, ToolResponseMessage]
    assert second[0].text == "You are a helpful assistant"
    assert out.text == "response"


async def test_history_disabled_without_system_message_sends_an_empty_one(mode):
    model = ScriptedChatModel([tc(), final()])
    advisor = ToolCallingAdvisor(
        tool_calling_manager=RecordingManager(), conversation_history_enabled=False
    )
    await run(mode, advisor, model)
    assert model.prompts[1].messages[0] == SystemMessage("")


async def test_manager_always_sees_the_full_turn(mode):
    model = ScriptedChatModel([tc(), tc(), final()])
    manager = RecordingManager()
    advisor = ToolCallingAdvisor(tool_calling_manager=manager, conversation_history_enabled=False)
    await run(mode, advisor, model)
    first, second = manager.prompts
    assert len(first.messages) == 1
    assert len(second.messages) == 3
    assert [type(m) for m in second.messages] == [
        UserMessage,
        AssistantMessage,
        ToolResponseMessage,
    ]


# -- hooks --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ([final()], {"initialize": 1, "before": 1, "after": 1, "finalize": 1}),
        ([tc(), final()], {"initialize": 1, "before": 2, "after": 2, "finalize": 1}),
    ],
)
async def test_hooks_run_the_expected_number_of_times(mode, script, expected):
    advisor = HookRecorder(tool_calling_manager=RecordingManager())
    await run(mode, advisor, ScriptedChatModel(script))
    assert Counter(call.split("_")[0] for call in advisor.calls) == expected
    assert {call.split("_")[1] for call in advisor.calls} == {mode}  # only the run's path


async def test_options_set_by_before_hook_are_used_to_run_tools(mode):
    injected = object()

    class Injecting(ToolCallingAdvisor):
        async def do_before_call(self, request, chain):
            return self._inject(request)

        async def do_before_stream(self, request, chain):
            return self._inject(request)

        def _inject(self, request):
            options = request.prompt.options.copy(tool_context={"injected": injected})
            return request.copy(prompt=request.prompt.copy(options=options))

    manager = RecordingManager()
    await run(mode, Injecting(tool_calling_manager=manager), ScriptedChatModel([tc(), final()]))
    assert manager.prompts[0].options.tool_context["injected"] is injected


# -- deliberate differences from Spring AI -------------------------------------------------------


async def test_finalize_stream_hook_sees_the_whole_stream_on_every_exit(mode):
    if mode == "call":
        pytest.skip("stream-only hook")
    seen: list[str] = []

    class Shouting(ToolCallingAdvisor):
        async def do_finalize_loop_stream(self, stream, chain):
            async for chunk in stream:
                seen.append(chunk.chat_response.text or "")
                resp = chunk.chat_response
                gens = [
                    g.__class__(AssistantMessage((g.text or "").upper()), g.metadata)
                    for g in resp.generations
                ]
                yield chunk.copy(chat_response=resp.copy(generations=gens))

    normal = await run(
        mode,
        Shouting(tool_calling_manager=RecordingManager()),
        ScriptedChatModel([tc(), final("done")]),
    )
    assert normal.text == "DONE"
    direct = await run(
        mode,
        Shouting(tool_calling_manager=RecordingManager(direct_result())),
        ScriptedChatModel([tc()]),
    )
    assert direct.text == "TOOL RESULT DATA"
    assert "Tool result data" in seen


async def test_tools_injected_by_an_inner_advisor_are_executable(mode):
    class Injector(BaseAdvisor):
        order = 0

        async def before(self, request, chain):
            options = request.prompt.options.copy(tool_context={"from": "inner"})
            return request.copy(prompt=request.prompt.copy(options=options))

    manager = RecordingManager()
    await run(
        mode,
        ToolCallingAdvisor(tool_calling_manager=manager),
        ScriptedChatModel([tc(), final()]),
        inner=[Injector()],
    )
    assert manager.prompts[0].options.tool_context == {"from": "inner"}


async def test_iteration_cap_ends_the_turn(mode):
    model = ScriptedChatModel([tc((1, 1, 2))] * 3)
    manager = RecordingManager()
    out = await run(mode, ToolCallingAdvisor(tool_calling_manager=manager, max_iterations=3), model)
    assert (model.call_count, manager.calls) == (3, 2)
    response = out.response
    assert response.result.metadata.finish_reason == "maxIterationsExceeded"
    assert "max_iterations=3" in response.text
    assert response.usage == Usage(3, 3, 6)


async def test_intermediate_round_text_reaches_stream_consumers(mode):
    base = tc().result
    thinking = ChatResponse(
        [Generation(AssistantMessage("Let me check.", base.output.tool_calls), base.metadata)]
    )
    model = ScriptedChatModel([thinking, final("Sunny")])
    out = await run(mode, ToolCallingAdvisor(tool_calling_manager=RecordingManager()), model)
    if mode == "stream":
        texts = "".join(c.chat_response.text or "" for c in out.emitted)
        assert texts == "Let me check.Sunny"
    else:
        assert out.text == "Sunny"
