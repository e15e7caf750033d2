"""``POST /api/ag-ui``: a turn as an AG-UI run, every event read back with the
``ag-ui-protocol`` package's own types: a tool turn, a turn stopped for approval and
resumed through AG-UI's interrupts, a conversation's history, and the errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ag_ui.core import Event, EventType, RunAgentInput
from pydantic import TypeAdapter

from ostinato import ChatClient
from ostinato.testing import ScriptedChatModel
from ostinato_serve import ServeSettings, create_app
from tests.plugins.serve.served import (
    agent,
    asgi_client,
    pay,
    sse_messages,
    weather,
    weather_progress,
)

EVENTS: TypeAdapter[Any] = TypeAdapter(Event)
TOKEN = "agui-token-0123456789"


def _input(text: str | None = None, **fields: Any) -> dict[str, Any]:
    """A ``RunAgentInput`` as a browser sends it (checked against the package's type)."""
    body: dict[str, Any] = {
        "threadId": "thread-1",
        "runId": "run-1",
        "state": None,
        "messages": [] if text is None else [{"id": "u1", "role": "user", "content": text}],
        "tools": [],
        "context": [],
        "forwardedProps": None,
        **fields,
    }
    RunAgentInput.model_validate(body)
    return body


def _events(body: str) -> list[Any]:
    """Each ``data:`` line, validated as an AG-UI event by the protocol's types."""
    return [EVENTS.validate_json(data) for _, data in sse_messages(body)]


async def _run(app: Any, body: dict[str, Any], token: str | None = TOKEN) -> list[Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with asgi_client(app, headers=headers) as http:
        answer = await http.post("/api/ag-ui", json=body)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/event-stream")
    return _events(answer.text)


def _app() -> Any:
    return create_app(agent(), tools=[weather, pay], settings=ServeSettings(token=TOKEN))


async def test_a_tool_turn_is_a_run_of_steps_text_and_tool_calls():
    events = await _run(_app(), _input("weather in Paris?"))
    assert [e.type for e in events] == [
        EventType.RUN_STARTED,
        EventType.STEP_STARTED,
        EventType.STEP_FINISHED,
        EventType.TOOL_CALL_START,
        EventType.TOOL_CALL_ARGS,
        EventType.TOOL_CALL_END,
        EventType.TOOL_CALL_RESULT,
        EventType.STEP_STARTED,
        *[EventType.TEXT_MESSAGE_START],
        *[EventType.TEXT_MESSAGE_CONTENT] * 6,
        EventType.TEXT_MESSAGE_END,
        EventType.STEP_FINISHED,
        EventType.RUN_FINISHED,
    ]
    started, first_step = events[0], events[1]
    assert (started.thread_id, started.run_id) == ("thread-1", "run-1")
    assert first_step.step_name == "round 1"
    call_start, args, _, result = events[3:7]
    assert (call_start.tool_call_name, call_start.tool_call_id) == ("weather", "call_weather")
    assert json.loads(args.delta) == {"city": "Paris"}
    assert (result.tool_call_id, result.content) == ("call_weather", "Paris: 21C, sunny")
    assert result.metadata["ostinato"]["duration"] >= 0
    text = "".join(e.delta for e in events if e.type == EventType.TEXT_MESSAGE_CONTENT)
    assert text == "Done: Paris: 21C, sunny."
    finished = events[-1]
    assert finished.outcome.type == "success"
    assert finished.result == "Done: Paris: 21C, sunny."
    assert finished.usage[0].total_tokens == 25
    assert finished.metadata["ostinato"] == {"reason": "answered", "rounds": 2}


async def test_a_tool_s_progress_is_a_custom_event_before_its_result():
    app = create_app(agent(), tools=[weather_progress], settings=ServeSettings(token=TOKEN))
    events = await _run(app, _input("weather in Paris?"))
    types = [e.type for e in events]
    assert types.index(EventType.TOOL_CALL_END) < types.index(EventType.CUSTOM)
    assert types.index(EventType.CUSTOM) < types.index(EventType.TOOL_CALL_RESULT)
    custom = next(e for e in events if e.type == EventType.CUSTOM)
    assert custom.name == "ostinato.tool_progress"
    assert custom.value == {
        "toolCallId": "call_weather_progress",
        "text": "asking the station in Paris",
        "data": {"city": "Paris"},
        "fraction": 0.5,
    }


async def test_an_approval_ends_the_run_with_interrupts_and_a_resume_runs_the_call():
    app = _app()
    first = await _run(app, _input("please pay Ann"))
    finished = first[-1]
    assert finished.type == EventType.RUN_FINISHED
    assert finished.outcome.type == "interrupt"
    (interrupt,) = finished.outcome.interrupts
    assert interrupt.reason == "tool_approval" and interrupt.tool_call_id == "call_pay"
    assert interrupt.response_schema["required"] == ["decision"]
    assert EventType.TEXT_MESSAGE_CONTENT not in [e.type for e in first]
    resume = [
        {"interruptId": interrupt.id, "status": "resolved", "payload": {"decision": "approve"}}
    ]
    second = await _run(app, _input(resume=resume, runId="run-2"))
    results = [e for e in second if e.type == EventType.TOOL_CALL_RESULT]
    assert [r.content for r in results] == ["paid 5 to Ann"]
    assert second[-1].outcome.type == "success"
    assert second[-1].result == "Done: paid 5 to Ann."
    again = await _run_raw(app, _input(resume=resume, runId="run-3"))
    assert again.status_code == 409  # decided once: a second decision is refused
    assert again.json()["error"]["type"] == "already_decided"


async def _run_raw(app: Any, body: dict[str, Any]) -> Any:
    async with asgi_client(app, headers={"Authorization": f"Bearer {TOKEN}"}) as http:
        return await http.post("/api/ag-ui", json=body)


async def test_a_cancelled_interrupt_denies_the_call():
    app = _app()
    first = await _run(app, _input("pay Ann"))
    (interrupt,) = first[-1].outcome.interrupts
    resume = [{"interruptId": interrupt.id, "status": "cancelled"}]
    second = await _run(app, _input(resume=resume))
    assert "denied" in second[-1].result


async def test_earlier_messages_are_the_history():
    model = ScriptedChatModel(["fine"])
    app = create_app(ChatClient.create(model))
    body = _input()
    body["messages"] = [
        {"id": "1", "role": "user", "content": "hi"},
        {"id": "2", "role": "assistant", "content": "hello"},
        {"id": "3", "role": "user", "content": [{"type": "text", "text": "how are you?"}]},
    ]
    RunAgentInput.model_validate(body)
    await _run(app, body, token=None)
    assert [m.text for m in model.prompts[0].messages] == ["hi", "hello", "how are you?"]


async def test_a_failing_turn_ends_with_run_error():
    app = create_app(ChatClient.create(ScriptedChatModel([RuntimeError("boom")])))
    events = await _run(app, _input("hello"), token=None)
    assert events[-1].type == EventType.RUN_ERROR
    assert events[-1].code == "internal_error" and "boom" not in events[-1].message


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ({"threadId": "t", "runId": "r", "messages": []}, "invalid_request"),
        ({"threadId": "t", "runId": "r", "resume": [{"interruptId": "x"}]}, "unknown_interrupt"),
        ({"runId": "r", "messages": []}, "invalid_request"),
    ],
)
async def test_malformed_input_is_refused(body: dict[str, Any], kind: str):
    async with asgi_client(_app(), headers={"Authorization": f"Bearer {TOKEN}"}) as http:
        answer = await http.post("/api/ag-ui", json=body)
    assert answer.status_code == 422 and answer.json()["error"]["type"] == kind


async def test_the_endpoint_needs_the_token():
    async with asgi_client(_app()) as http:
        answer = await http.post("/api/ag-ui", json=_input("hi"))
    assert answer.status_code == 401
