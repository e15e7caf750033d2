"""DefaultToolCallingManager: Spring AI's behaviour, with errors sent back to the model and
concurrent batches."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from typing import Any

import pytest

from ostinato.errors import (
    ConfigurationError,
    NoToolCallError,
    ToolArgumentsError,
    ToolExecutionError,
    ToolNotFoundError,
)
from ostinato.messages import AssistantMessage, ToolCall, ToolResponseMessage, UserMessage
from ostinato.model import ChatResponse, Generation
from ostinato.prompt import ChatOptions, Prompt, ToolCallingChatOptions
from ostinato.tools import (
    DefaultToolCallingManager,
    DefaultToolExecutionExceptionProcessor,
    FunctionToolCallback,
    LimitBehavior,
    StaticToolCallbackResolver,
    ToolCallingManager,
    ToolCallLimits,
    ToolContext,
    ToolExecutionResult,
    tool,
    tool_callbacks,
)
from tests.core.tools.fakes import (
    MISSION,
    RecordingCallback,
    calls,
    prompt_with,
    responses_of,
    tool_response,
)

trace_id: contextvars.ContextVar[str] = contextvars.ContextVar("trace_id", default="none")


async def run(
    callbacks: list[Any],
    *tool_calls: ToolCall,
    manager: DefaultToolCallingManager | None = None,
    context: dict[str, Any] | None = None,
) -> ToolExecutionResult:
    manager = manager or DefaultToolCallingManager()
    return await manager.execute_tool_calls(
        prompt_with(callbacks, context=context), tool_response(*tool_calls)
    )


# --- arguments and basics (67-69) -------------------------------------------------------


def test_it_implements_the_manager_protocol() -> None:
    assert isinstance(DefaultToolCallingManager(), ToolCallingManager)


async def test_none_arguments_are_value_errors() -> None:
    m = DefaultToolCallingManager()
    with pytest.raises(ValueError, match=r"^prompt must not be None$"):
        await m.execute_tool_calls(None, tool_response(*calls("a")))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^chat_response must not be None$"):
        await m.execute_tool_calls(Prompt("hi"), None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^options must not be None$"):
        m.resolve_tool_definitions(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "response",
    [ChatResponse([]), ChatResponse([Generation(AssistantMessage("just text"))])],
)
async def test_a_response_without_tool_calls_is_an_error(response: ChatResponse) -> None:
    with pytest.raises(NoToolCallError, match=r"^No tool call requested by the chat model$"):
        await DefaultToolCallingManager().execute_tool_calls(Prompt("hi"), response)


def test_resolve_tool_definitions_lists_the_attached_tools_in_order() -> None:
    a, b = RecordingCallback("toolA"), RecordingCallback("toolB")
    m = DefaultToolCallingManager(tool_callback_resolver=StaticToolCallbackResolver([b]))
    options = ToolCallingChatOptions(tool_callbacks=(a,))
    assert m.resolve_tool_definitions(options) == [a.tool_definition]
    assert m.resolve_tool_definitions(ToolCallingChatOptions()) == []
    assert m.resolve_tool_definitions(ChatOptions(model="m")) == []


# --- resolution (70-71) -----------------------------------------------------------------


async def test_without_fallback_an_unlisted_tool_is_reported_to_the_model() -> None:
    resolver_only = RecordingCallback("resolverOnlyTool")
    m = DefaultToolCallingManager(
        tool_callback_resolver=StaticToolCallbackResolver([resolver_only])
    )
    result = await run(
        [RecordingCallback("a"), RecordingCallback("b")], *calls("resolverOnlyTool"), manager=m
    )
    assert responses_of(result) == [
        (
            "resolverOnlyTool",
            "resolverOnlyTool",
            "Error: unknown tool 'resolverOnlyTool'; available tools: a, b",
        )
    ]
    assert resolver_only.calls == []
    assert result.return_direct is False


async def test_unknown_tool_with_no_tools_at_all() -> None:
    result = await run([], *calls("ghost"))
    assert responses_of(result) == [
        ("ghost", "ghost", "Error: unknown tool 'ghost'; no tools are available")
    ]


async def test_a_processor_can_make_an_unknown_tool_end_the_turn_like_the_reference() -> None:
    m = DefaultToolCallingManager(
        exception_processor=DefaultToolExecutionExceptionProcessor(rethrow=(ToolNotFoundError,))
    )
    known = RecordingCallback("a")
    with pytest.raises(ToolNotFoundError) as info:
        await run([known], *calls("a"), *calls("ghost"), manager=m)
    assert (info.value.tool_name, info.value.available) == ("ghost", ("a",))
    assert known.calls == [], "nothing runs when the batch fails on an unknown tool"


async def test_with_fallback_an_unlisted_tool_is_resolved() -> None:
    m = DefaultToolCallingManager(
        tool_callback_resolver=StaticToolCallbackResolver([RecordingCallback("resolverOnlyTool")]),
        resolution_fallback_enabled=True,
    )
    result = await run([], *calls("resolverOnlyTool"), manager=m)
    assert responses_of(result) == [("resolverOnlyTool", "resolverOnlyTool", MISSION)]


async def test_attached_tools_win_over_the_resolver() -> None:
    m = DefaultToolCallingManager(
        tool_callback_resolver=StaticToolCallbackResolver([RecordingCallback("t", "resolver")]),
        resolution_fallback_enabled=True,
    )
    result = await run([RecordingCallback("t", "attached")], *calls("t"), manager=m)
    assert responses_of(result) == [("t", "t", "attached")]


# --- results (72-76, 86) ----------------------------------------------------------------


async def test_responses_keep_call_order_in_one_message_after_the_assistant_message() -> None:
    prompt = prompt_with([RecordingCallback("toolA"), RecordingCallback("toolB")])
    response = tool_response(*calls("toolA", "toolB"), text="let me check", generations=2)
    result = await DefaultToolCallingManager().execute_tool_calls(prompt, response)
    history = result.conversation_history
    assert history[: len(prompt.messages)] == prompt.messages
    assert history[-2] is response.generations[0].output
    assert history[-2].text == "let me check"
    assert isinstance(history[-1], ToolResponseMessage)
    assert len(history) == len(prompt.messages) + 2
    assert responses_of(result) == [("toolA", "toolA", MISSION), ("toolB", "toolB", MISSION)]


async def test_the_first_generation_with_tool_calls_is_executed() -> None:
    a, b = RecordingCallback("a"), RecordingCallback("b")
    response = ChatResponse(
        [
            Generation(AssistantMessage("no tools")),
            Generation(AssistantMessage("", tool_calls=tuple(calls("a")))),
            Generation(AssistantMessage("", tool_calls=tuple(calls("b")))),
        ]
    )
    result = await DefaultToolCallingManager().execute_tool_calls(prompt_with([a, b]), response)
    assert responses_of(result) == [("a", "a", MISSION)]
    assert b.calls == []


@pytest.mark.parametrize(
    ("flags", "expected"),
    [((True,), True), ((True, True), True), ((True, False), False), ((False,), False)],
)
async def test_return_direct_is_the_and_of_executed_calls(
    flags: tuple[bool, ...], expected: bool
) -> None:
    callbacks = [RecordingCallback(f"t{i}", return_direct=f) for i, f in enumerate(flags)]
    result = await run(callbacks, *calls(*(cb.tool_definition.name for cb in callbacks)))
    assert result.return_direct is expected


async def test_return_direct_needs_every_call_of_the_batch_to_run_and_succeed() -> None:
    # The model must read an error response: an unknown tool, a failure or a limit in
    # the batch turns return-direct off (Spring AI ignores calls that did not run).
    direct = RecordingCallback("t", return_direct=True)
    assert (await run([direct], *calls("t", "ghost"))).return_direct is False
    assert (await run([], *calls("ghost"))).return_direct is False
    failing = RecordingCallback("f", return_direct=True)
    failing.result = ToolExecutionError("broke", tool_name="f")
    assert (await run([direct, failing], *calls("t", "f"))).return_direct is False
    limited = DefaultToolCallingManager(
        limits=ToolCallLimits(
            per_tool={"t": 1}, on_limit_exceeded=LimitBehavior.RETURN_ERROR_RESPONSE
        )
    )
    assert (await run([direct], *calls("t", "t"), manager=limited)).return_direct is False
    assert (await run([direct], *calls("t"))).return_direct is True


async def test_a_failing_tool_is_reported_and_the_batch_goes_on() -> None:
    failing = RecordingCallback("toolA")
    cause = RuntimeError("You failed this city!")
    error = ToolExecutionError("You failed this city!", tool_name="toolA")
    error.__cause__ = cause
    failing.result = error
    result = await run([failing, RecordingCallback("toolB")], *calls("toolA", "toolB"))
    assert responses_of(result) == [
        ("toolA", "toolA", "Error: tool 'toolA' failed: You failed this city!"),
        ("toolB", "toolB", MISSION),
    ]


@pytest.mark.parametrize("arguments", ["", "   "])
async def test_blank_arguments_become_an_empty_object(arguments: str) -> None:
    cb = RecordingCallback("t")
    await run([cb], ToolCall("1", "t", arguments))
    assert cb.calls[0][0] == "{}"


async def test_malformed_arguments_reach_a_custom_callback_verbatim() -> None:
    cb = RecordingCallback("t")
    await run([cb], ToolCall("1", "t", '{"city": "Par'))
    assert cb.calls[0][0] == '{"city": "Par'


async def test_a_none_result_from_a_custom_callback_is_empty_text() -> None:
    result = await run([RecordingCallback("t", None)], *calls("t"))
    assert responses_of(result) == [("t", "t", "")]


async def test_method_tools_with_and_without_context() -> None:
    class Tools:
        @tool
        def tool_a(self, text: str) -> dict[str, str]:
            return {"echo": text}

        @tool
        def tool_b(self, ctx: ToolContext) -> dict[str, Any]:
            return dict(ctx)

    result = await run(
        tool_callbacks(Tools()),
        ToolCall("1", "tool_a", '{"text": "hi"}'),
        ToolCall("2", "tool_b", "{}"),
        context={"key": "value"},
    )
    assert responses_of(result) == [
        ("1", "tool_a", '{"echo": "hi"}'),
        ("2", "tool_b", '{"key": "value"}'),
    ]


async def test_one_tool_context_instance_for_the_whole_batch() -> None:
    a, b = RecordingCallback("a"), RecordingCallback("b")
    await run([a, b], *calls("a", "b"), context={"user": "u-1"})
    ctx_a, ctx_b = a.calls[0][1], b.calls[0][1]
    assert ctx_a is ctx_b
    assert isinstance(ctx_a, ToolContext)
    assert ctx_a == {"user": "u-1"}


async def test_an_empty_tool_context_when_the_options_have_none() -> None:
    a = RecordingCallback("a")
    await run([a], *calls("a"))
    assert a.calls[0][1] == {}
    assert isinstance(a.calls[0][1], ToolContext)


async def test_options_that_cannot_carry_tools_know_no_tool() -> None:
    prompt = Prompt([UserMessage("hi")], ChatOptions(model="m"))
    result = await DefaultToolCallingManager().execute_tool_calls(
        prompt, tool_response(*calls("a"))
    )
    assert responses_of(result) == [("a", "a", "Error: unknown tool 'a'; no tools are available")]


# --- errors go back to the model, classified -------------------------------------------


@tool
def weather(city: str, days: int = 1) -> str:
    return f"{city}:{days}"


@tool
def explode() -> None:
    raise ValueError("boom")


@tool
def explode_quietly() -> None:
    raise ValueError


async def test_each_failure_reads_as_classified_text() -> None:
    result = await run(
        tool_callbacks(weather, explode, explode_quietly),
        ToolCall("1", "weather", '{"city": '),
        ToolCall("2", "weather", '{"days": "x"}'),
        ToolCall("3", "explode", "{}"),
        ToolCall("4", "explode_quietly", "{}"),
        ToolCall("5", "nope", "{}"),
        ToolCall("6", "weather", '{"city": "Rome"}'),
    )
    texts = [text for _, _, text in responses_of(result)]
    assert texts[0].startswith(
        "Error: invalid arguments for tool 'weather': the arguments are not valid JSON ("
    )
    assert texts[1] == (
        "Error: invalid arguments for tool 'weather': city: Field required; "
        "days: Input should be a valid integer, unable to parse string as an integer"
    )
    assert texts[2] == "Error: tool 'explode' failed: ValueError: boom"
    assert texts[3] == "Exception occurred in tool: explode_quietly (ValueError)"
    assert texts[4] == (
        "Error: unknown tool 'nope'; available tools: weather, explode, explode_quietly"
    )
    assert texts[5] == "Rome:1"


async def test_any_exception_from_a_custom_callback_is_wrapped_and_reported() -> None:
    result = await run([RecordingCallback("t", RuntimeError("socket closed"))], *calls("t"))
    assert responses_of(result) == [
        ("t", "t", "Error: tool 't' failed: RuntimeError: socket closed")
    ]


async def test_a_reported_error_without_tool_name_gets_the_calls_name() -> None:
    result = await run(
        [RecordingCallback("t", ToolArgumentsError("invalid arguments: no"))], *calls("t")
    )
    assert responses_of(result) == [("t", "t", "Error: invalid arguments: no")]


async def test_always_throw_fails_the_batch_with_the_tool_error() -> None:
    m = DefaultToolCallingManager(
        exception_processor=DefaultToolExecutionExceptionProcessor(always_throw=True)
    )
    with pytest.raises(ToolExecutionError, match=r"^ValueError: boom$") as info:
        await run(tool_callbacks(explode), *calls("explode"), manager=m)
    assert isinstance(info.value.__cause__, ValueError)


async def test_rethrow_raises_the_tools_own_exception() -> None:
    m = DefaultToolCallingManager(
        exception_processor=DefaultToolExecutionExceptionProcessor(rethrow=(ValueError,))
    )
    with pytest.raises(ValueError, match=r"^boom$"):
        await run(tool_callbacks(explode), *calls("explode"), manager=m)


async def test_a_base_exception_from_a_tool_is_never_turned_into_text() -> None:
    class Fatal(BaseException):
        pass

    async def fatal(arguments: str, context: ToolContext | None) -> str:
        raise Fatal

    with pytest.raises(Fatal):
        await run(
            [RecordingCallback("t", behaviour=fatal), RecordingCallback("u")], *calls("t", "u")
        )


# --- concurrency ---------------------------------------------------------------------------


async def test_calls_of_a_batch_run_concurrently_sync_and_async() -> None:
    delay = 0.2

    @tool
    def sync_a() -> str:
        time.sleep(delay)
        return "sa"

    @tool
    def sync_b() -> str:
        time.sleep(delay)
        return "sb"

    @tool
    async def async_a() -> str:
        await asyncio.sleep(delay)
        return "aa"

    @tool
    async def async_b() -> str:
        await asyncio.sleep(delay)
        return "ab"

    async def timed(manager: DefaultToolCallingManager) -> float:
        started = time.perf_counter()
        result = await run(
            tool_callbacks(sync_a, async_a, sync_b, async_b),
            *calls("sync_a", "async_a", "sync_b", "async_b"),
            manager=manager,
        )
        assert [text for _, _, text in responses_of(result)] == ["sa", "aa", "sb", "ab"]
        return time.perf_counter() - started

    # A ratio measured here, not an absolute bound: the same batch one call at a time is
    # the yardstick (four delays); concurrently it takes about one.
    one_at_a_time = await timed(DefaultToolCallingManager(max_concurrency=1))
    concurrent = await timed(DefaultToolCallingManager())
    assert concurrent < 0.5 * one_at_a_time, (
        f"{concurrent:.3f} s concurrently vs {one_at_a_time:.3f} s one at a time"
    )


async def test_results_keep_call_order_when_later_calls_finish_first() -> None:
    second_done = asyncio.Event()
    order: list[str] = []

    async def first(arguments: str, context: ToolContext | None) -> str:
        await second_done.wait()  # can only finish after the second call did
        order.append("first")
        return "1"

    async def second(arguments: str, context: ToolContext | None) -> str:
        order.append("second")
        second_done.set()
        return "2"

    result = await run(
        [
            RecordingCallback("first", behaviour=first),
            RecordingCallback("second", behaviour=second),
        ],
        *calls("first", "second"),
    )
    assert order == ["second", "first"]
    assert responses_of(result) == [("first", "first", "1"), ("second", "second", "2")]


def recorder(log: list[str], name: str, *, sequential: bool = False) -> RecordingCallback:
    async def behaviour(arguments: str, context: ToolContext | None) -> str:
        log.append(f"start {name}")
        for _ in range(5):  # yield a few times so that concurrent calls interleave
            await asyncio.sleep(0)
        log.append(f"end {name}")
        return name

    return RecordingCallback(name, behaviour=behaviour, sequential=sequential)


async def test_a_sequential_tool_runs_alone_between_the_calls_around_it() -> None:
    log: list[str] = []
    names = ["a", "b", "s", "c", "d"]
    callbacks = [recorder(log, n, sequential=(n == "s")) for n in names]
    result = await run(callbacks, *calls(*names))
    assert [text for _, _, text in responses_of(result)] == names
    assert log.index("end s") == log.index("start s") + 1, log  # nothing overlaps it
    assert log.index("start s") > max(log.index("end a"), log.index("end b"))
    assert log.index("end s") < min(log.index("start c"), log.index("start d"))
    assert log.index("start b") < log.index("end a"), "a and b overlap"
    assert log.index("start d") < log.index("end c"), "c and d overlap"


async def test_consecutive_sequential_tools_do_not_overlap_each_other() -> None:
    log: list[str] = []
    await run([recorder(log, n, sequential=True) for n in "xyz"], *calls("x", "y", "z"))
    assert log == ["start x", "end x", "start y", "end y", "start z", "end z"]


async def test_max_concurrency_caps_running_calls() -> None:
    active = 0
    peak = 0

    async def behaviour(arguments: str, context: ToolContext | None) -> str:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        for _ in range(5):
            await asyncio.sleep(0)
        active -= 1
        return "ok"

    names = [f"t{i}" for i in range(6)]
    callbacks = [RecordingCallback(n, behaviour=behaviour) for n in names]
    await run(callbacks, *calls(*names))
    assert peak == 6, "without a cap every call runs at once"
    peak = 0
    await run(callbacks, *calls(*names), manager=DefaultToolCallingManager(max_concurrency=2))
    assert peak == 2


async def test_a_slow_async_tool_times_out_and_is_cancelled() -> None:
    cancelled = asyncio.Event()

    async def slow(arguments: str, context: ToolContext | None) -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    result = await run(
        [RecordingCallback("slow", behaviour=slow, timeout=0.05), RecordingCallback("fast")],
        *calls("slow", "fast"),
    )
    assert responses_of(result) == [
        ("slow", "slow", "Error: tool 'slow' timed out after 0.05 s"),
        ("fast", "fast", MISSION),
    ]
    assert cancelled.is_set()


async def test_a_slow_sync_tool_times_out_and_its_late_result_is_dropped() -> None:
    release = threading.Event()
    finished = threading.Event()

    @tool(timeout=0.05)
    def blocking() -> str:
        release.wait(5)
        finished.set()
        return "late"

    try:
        result = await run(tool_callbacks(blocking), *calls("blocking"))
        assert responses_of(result) == [
            ("blocking", "blocking", "Error: tool 'blocking' timed out after 0.05 s")
        ]
    finally:
        release.set()
    assert await asyncio.to_thread(finished.wait, 5), "the thread finished on its own"


async def test_a_tools_own_timeout_error_is_a_failure_not_a_timeout() -> None:
    result = await run([RecordingCallback("t", TimeoutError("upstream"), timeout=10)], *calls("t"))
    assert responses_of(result) == [("t", "t", "Error: tool 't' failed: TimeoutError: upstream")]


async def test_context_variables_reach_sync_and_async_tools() -> None:
    @tool
    def sync_read() -> str:
        return trace_id.get()

    @tool
    async def async_read() -> str:
        return trace_id.get()

    token = trace_id.set("trace-7")
    try:
        result = await run(tool_callbacks(sync_read, async_read), *calls("sync_read", "async_read"))
    finally:
        trace_id.reset(token)
    assert [text for _, _, text in responses_of(result)] == ["trace-7", "trace-7"]


async def test_cancelling_the_caller_cancels_running_tools_and_leaves_no_task() -> None:
    started = asyncio.Event()
    saw_cancel: list[str] = []

    async def waiting(arguments: str, context: ToolContext | None) -> str:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            saw_cancel.append("cancelled")
            raise
        return "never"

    before = asyncio.all_tasks()
    task = asyncio.create_task(
        run(
            [
                RecordingCallback("w1", behaviour=waiting),
                RecordingCallback("w2", behaviour=waiting),
            ],
            *calls("w1", "w2"),
        )
    )
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert saw_cancel == ["cancelled", "cancelled"]
    assert asyncio.all_tasks() == before


# --- construction -------------------------------------------------------------------------


def test_settings_are_readable() -> None:
    resolver = StaticToolCallbackResolver()
    m = DefaultToolCallingManager(
        tool_callback_resolver=resolver, resolution_fallback_enabled=True, max_concurrency=3
    )
    assert m.tool_callback_resolver is resolver
    assert isinstance(m.exception_processor, DefaultToolExecutionExceptionProcessor)
    assert m.limits.max_calls_per_tool == 40
    assert (m.resolution_fallback_enabled, m.max_concurrency) == (True, 3)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_concurrency": 0}, "max_concurrency must be a positive number of calls"),
        ({"limits": 40}, "limits must be a ToolCallLimits"),
        ({"tool_callback_resolver": object()}, "must have a resolve"),
        ({"exception_processor": object()}, "must have a process"),
    ],
)
def test_invalid_settings_are_configuration_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        DefaultToolCallingManager(**kwargs)


async def test_function_tool_callbacks_work_end_to_end() -> None:
    cb = FunctionToolCallback(weather, name="forecast")
    result = await run([cb], ToolCall("c1", "forecast", '{"city": "Oslo", "days": 2}'))
    assert responses_of(result) == [("c1", "forecast", "Oslo:2")]
