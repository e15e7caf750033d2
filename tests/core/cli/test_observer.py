"""``ToolCallListener``: model rounds and tool calls reported from the loop's events."""

from __future__ import annotations

import asyncio

import pytest

from ostinato import ChatClient, tool
from ostinato.cli._observer import ToolCallEvent, ToolCallListener
from ostinato.testing import ScriptedChatModel, tool_call_response
from ostinato.tools import tool_callbacks


class Recorder:
    def __init__(self) -> None:
        self.events: list[object] = []

    def model_started(self, round_number: int) -> None:
        self.events.append(("model", round_number))

    def tool_started(self, name: str, arguments: str, effect: str | None = None) -> None:
        self.events.append(
            ("start", name, arguments) if effect is None else ("start", name, effect)
        )

    def tool_finished(self, event: ToolCallEvent) -> None:
        self.events.append(event)

    def finished(self) -> list[ToolCallEvent]:
        return [e for e in self.events if isinstance(e, ToolCallEvent)]


@tool(description="Double a number")
def double(x: int) -> int:
    return 2 * x


@tool(description="Always fails")
def broken() -> str:
    raise ValueError("boom")


@tool(description="Too slow", timeout=0.05)
async def sluggish() -> str:
    await asyncio.sleep(5)
    return "late"


async def run(
    model: ScriptedChatModel,
    recorder: Recorder,
    mode: str,
    *tools: object,
    listener: ToolCallListener | None = None,
) -> str:
    listener = listener or ToolCallListener(recorder)
    spec = ChatClient.create(model).prompt("go").tools(*tools).listener(listener)
    if mode == "call":
        answer = await spec.call().acontent()
    else:
        answer = "".join([piece async for piece in spec.stream().acontent()])
    assert listener.rounds == model.call_count
    return answer or ""


@pytest.fixture(params=["call", "stream"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_rounds_and_calls_are_reported_in_order(mode):
    model = ScriptedChatModel(
        [tool_call_response(("double", {"x": 2}), ("double", {"x": 5})), "4 and 10"]
    )
    recorder = Recorder()
    assert await run(model, recorder, mode, double) == "4 and 10"
    assert recorder.events[:3] == [
        ("model", 1),
        ("start", "double", '{"x": 2}'),
        ("start", "double", '{"x": 5}'),
    ]
    assert recorder.events[-1] == ("model", 2)
    finished = recorder.finished()
    assert recorder.events[3:-1] == finished  # every call ends before the next round
    # The two calls run concurrently on two threads: either may end first.
    assert sorted((e.name, e.arguments, e.result, e.error) for e in finished) == [
        ("double", '{"x": 2}', "4", None),
        ("double", '{"x": 5}', "10", None),
    ]
    assert all(e.duration is not None and e.duration >= 0 for e in finished)


async def test_the_model_sees_the_same_tools_and_results(mode):
    model = ScriptedChatModel([tool_call_response(("double", {"x": 3})), "6"])
    plain = ScriptedChatModel([tool_call_response(("double", {"x": 3})), "6"])
    await run(model, Recorder(), mode, double)
    await ChatClient.create(plain).prompt("go").tools(double).call().acontent()
    assert [p.messages for p in model.prompts] == [p.messages for p in plain.prompts]
    sent = model.prompts[0].options.tool_callbacks
    [original] = tool_callbacks(double)
    assert [type(cb) for cb in sent] == [type(original)]
    assert sent[0].tool_definition == original.tool_definition


async def test_failures_timeouts_and_unknown_tools(mode):
    model = ScriptedChatModel(
        [
            tool_call_response(("broken", {}), ("sluggish", {}), ("teleport", {"to": "Mars"})),
            "sorry",
        ]
    )
    recorder = Recorder()
    assert await run(model, recorder, mode, broken, sluggish) == "sorry"
    events = {e.name: e for e in recorder.finished()}
    assert events["broken"].error == "tool 'broken' failed: ValueError: boom"
    assert events["sluggish"].error == "timed out after 0.05 s"
    assert events["teleport"].duration is None
    assert events["teleport"].error == "unknown tool 'teleport'; available tools: broken, sluggish"
    assert ("start", "teleport", '{"to": "Mars"}') not in recorder.events


async def test_a_cancelled_turn_reports_running_tools_as_cancelled():
    started = asyncio.Event()

    @tool(description="Waits")
    async def wait() -> str:
        started.set()
        await asyncio.sleep(10)
        return "done"

    model = ScriptedChatModel([tool_call_response(("wait", {})), "never"])
    recorder = Recorder()
    listener = ToolCallListener(recorder)
    task = asyncio.create_task(run(model, recorder, "call", wait, listener=listener))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    listener.cancel_running()  # what the chat session does when a turn is cancelled
    assert [e.error for e in recorder.finished()] == ["cancelled"]
    listener.cancel_running()
    assert len(recorder.finished()) == 1  # reported once


def test_it_adds_no_advisor_to_the_chain():
    client = ChatClient.create(ScriptedChatModel())
    plain = client.prompt("hi").describe()
    assert client.prompt("hi").listener(ToolCallListener(Recorder())).describe() == plain


class RaisesItsOwnCancelledError:
    """A tool callback (not a function tool) that raises ``CancelledError`` itself."""

    tool_definition = tool_callbacks(double)[0].tool_definition
    tool_metadata = tool_callbacks(double)[0].tool_metadata

    async def call(self, arguments: str, context: object = None) -> str:
        raise asyncio.CancelledError("the tool's own")


async def test_a_tools_own_cancelled_error_is_reported_as_its_error_not_as_cancelled(mode):
    model = ScriptedChatModel([tool_call_response(("double", {"x": 1})), "noted"])
    recorder = Recorder()
    async with asyncio.timeout(10):
        assert await run(model, recorder, mode, RaisesItsOwnCancelledError()) == "noted"
    # Reported as the model reads it (the tool failed), never as "cancelled".
    assert [e.error for e in recorder.finished()] == [
        "tool 'double' failed: CancelledError: the tool's own"
    ]
    said = model.prompts[1].messages[-1].responses[0].response_data
    assert said == "Error: tool 'double' failed: CancelledError: the tool's own"


@tool(description="Delete a file", effect="destructive")
def remove(path: str) -> str:
    return f"removed {path}"


@pytest.mark.parametrize("mode", ["call", "stream"])
async def test_a_call_shows_its_effect_class(mode: str) -> None:
    recorder = Recorder()
    model = ScriptedChatModel([tool_call_response(("remove", {"path": "a"})), "ok"])
    await run(model, recorder, mode, remove)
    assert ("start", "remove", "destructive") in recorder.events


class ProgressRecorder(Recorder):
    def tool_progress(self, name: str, text: str, fraction: float | None) -> None:
        self.events.append(("progress", name, text, fraction))


@tool(description="Reports its progress")
def steps() -> str:
    from ostinato.tools import report_progress

    report_progress("half way", fraction=0.5)
    return "done"


async def test_a_tools_progress_is_reported_to_a_renderer_that_shows_it(mode):
    model = ScriptedChatModel([tool_call_response(("steps", {})), "ok"])
    recorder = ProgressRecorder()
    await run(model, recorder, mode, steps)
    assert recorder.events[1:3] == [
        ("start", "steps", "{}"),
        ("progress", "steps", "half way", 0.5),
    ]
    # A renderer without tool_progress is not told (it is optional).
    await run(ScriptedChatModel([tool_call_response(("steps", {})), "ok"]), Recorder(), mode, steps)


async def test_a_denied_call_is_reported_as_denied_with_its_reason():
    from ostinato.tools import ApprovalDecision

    @tool(description="Pay", requires_approval=True)
    def pay(amount: int) -> str:
        raise AssertionError("a denied call must not run")

    model = ScriptedChatModel([tool_call_response(("pay", {"amount": 5})), "ok"])
    recorder = Recorder()
    spec = ChatClient.create(model).prompt("go").tools(pay).listener(ToolCallListener(recorder))
    spec.approver(lambda request: ApprovalDecision.deny("too much"))
    assert await spec.call().acontent() == "ok"
    [finished] = recorder.finished()
    assert (finished.name, finished.duration, finished.error) == ("pay", None, "denied: too much")
    assert ("start", "pay", '{"amount": 5}') not in recorder.events
