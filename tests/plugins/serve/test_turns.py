"""``POST /api/turns`` and ``POST /api/approvals/<id>`` against the ASGI app: the loop's
events as SSE in their JSON form, approvals, conversations kept, and the unhappy paths."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import pytest

from ostinato import ChatClient
from ostinato.events import LoopEvent
from ostinato.testing import ScriptedChatModel
from ostinato_serve import ServeSettings, create_app
from tests.plugins.serve.served import (
    GatedModel,
    agent,
    asgi_client,
    pay,
    read_sse,
    weather,
    weather_progress,
)

KINDS = {
    "round_started",
    "text_delta",
    "tool_call_delta",
    "round_finished",
    "tool_call_requested",
    "tool_started",
    "tool_finished",
    "approval_required",
    "loop_ended",
}


async def turn(http: Any, message: str, conversation_id: str | None = None) -> list[Any]:
    response = await http.post(
        "/api/turns", json={"message": message, "conversation_id": conversation_id}
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["cache-control"] == "no-cache"
    return read_sse(response.text)


async def test_a_turn_streams_its_events_in_their_json_form() -> None:
    async with asgi_client(create_app(agent(), tools=[weather])) as http:
        messages = await turn(http, "What is the weather in Paris?")
    first_event, first = messages[0]
    assert first_event == "turn" and first["conversation_id"].startswith("conv-")
    events = messages[1:]
    assert {kind for kind, _ in events} <= KINDS
    for kind, data in events:
        assert data["kind"] == kind and data["schema_version"] == 1
        assert LoopEvent.from_dict(data).kind == kind  # the documented JSON form
    kinds = [kind for kind, _ in events if kind not in ("text_delta", "tool_call_delta")]
    assert kinds == [
        "round_started",
        "round_finished",
        "tool_call_requested",
        "tool_started",
        "tool_finished",
        "round_started",
        "round_finished",
        "loop_ended",
    ]
    finished = next(data for kind, data in events if kind == "tool_finished")
    assert finished["call"]["name"] == "weather"
    assert finished["result"] == "Paris: 21C, sunny"
    assert finished["duration"] >= 0
    ended = events[-1][1]
    assert ended["reason"] == "answered"
    texts = "".join(data["text"] for kind, data in events if kind == "text_delta")
    assert texts == "Done: Paris: 21C, sunny."


async def test_a_tool_s_progress_streams_between_its_start_and_finish() -> None:
    async with asgi_client(create_app(agent(), tools=[weather_progress])) as http:
        messages = await turn(http, "What is the weather in Paris?")
    kinds = [kind for kind, _ in messages[1:]]
    assert kinds.index("tool_started") < kinds.index("tool_progress") < kinds.index("tool_finished")
    progress = next(data for kind, data in messages[1:] if kind == "tool_progress")
    assert progress["text"] == "asking the station in Paris"
    assert (progress["data"], progress["fraction"]) == ({"city": "Paris"}, 0.5)
    assert progress["call"]["name"] == "weather_progress" and progress["seq"] > 0


async def test_the_server_keeps_the_conversation_without_memory() -> None:
    model = ScriptedChatModel(["first answer", "second answer"])
    async with asgi_client(create_app(ChatClient.create(model))) as http:
        first = await turn(http, "one")
        conversation = first[0][1]["conversation_id"]
        second = await turn(http, "two", conversation)
        other = await turn(http, "three", "another")
    assert second[0][1]["conversation_id"] == conversation
    assert other[0][1]["conversation_id"] == "another"
    assert second[0][1]["turn_id"] != first[0][1]["turn_id"]
    sent = [[m.text for m in prompt.messages] for prompt in model.prompts]
    assert sent[1] == ["one", "first answer", "two"]
    assert sent[2] == ["three"]


async def approve_flow(http: Any, decision: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    stopped = await turn(http, "Please pay Ann")
    kinds = [kind for kind, _ in stopped]
    at = kinds.index("approval_required")
    assert kinds[at + 1] == "pending" and kinds[-1] == "loop_ended"
    assert stopped[-1][1]["reason"] == "approval_required"
    pending = stopped[at + 1][1]
    (call,) = pending["calls"]
    assert call["name"] == "pay"
    resumed = await http.post(
        f"/api/approvals/{pending['pending_id']}", json={"decisions": {call["id"]: decision}}
    )
    assert resumed.status_code == 200, resumed.text
    again = await http.post(
        f"/api/approvals/{pending['pending_id']}",
        json={"decisions": {call["id"]: {"decision": "approve"}}},
    )
    assert again.status_code == 409  # a second decision for the same calls is refused
    assert again.json()["error"]["type"] == "already_decided"
    return stopped, read_sse(resumed.text)


async def test_approve_runs_the_call_and_the_turn_goes_on() -> None:
    async with asgi_client(create_app(agent(), tools=[pay])) as http:
        stopped, resumed = await approve_flow(http, {"decision": "approve"})
    assert resumed[0][0] == "turn"
    assert resumed[0][1]["conversation_id"] == stopped[0][1]["conversation_id"]
    assert resumed[0][1]["turn_id"] != stopped[0][1]["turn_id"]  # a resumed turn: a new log
    finished = next(data for kind, data in resumed if kind == "tool_finished")
    assert finished["result"] == "paid 5 to Ann"
    assert resumed[-1][1]["reason"] == "answered"
    assert resumed[-1][1]["response"]["generations"][0]["output"]["text"] == "Done: paid 5 to Ann."


async def test_an_approved_turn_reports_the_usage_of_every_round() -> None:
    async with asgi_client(create_app(agent(), tools=[pay])) as http:
        stopped, resumed = await approve_flow(http, {"decision": "approve"})
    required = next(data for kind, data in stopped if kind == "approval_required")
    assert required["pending"]["usage"]["total_tokens"] == 10  # the round that asked
    assert stopped[-1][1]["usage"]["total_tokens"] == 10
    # the resumed turn counts on from the stop: the asking round and the answering one
    usage = resumed[-1][1]["usage"]
    counts = ("prompt_tokens", "completion_tokens", "total_tokens")
    assert [usage[count] for count in counts] == [18, 7, 25]


async def test_deny_and_edit_reach_the_model() -> None:
    async with asgi_client(create_app(agent(), tools=[pay])) as http:
        _, denied = await approve_flow(http, {"decision": "deny", "reason": "too much"})
        _, edited = await approve_flow(
            http, {"decision": "edit", "arguments": {"amount": 1, "to": "Ann"}}
        )
    answer = denied[-1][1]["response"]["generations"][0]["output"]["text"]
    assert "denied (too much)" in answer
    assert "paid" not in answer
    finished = next(data for kind, data in edited if kind == "tool_finished")
    assert finished["result"] == "paid 1 to Ann"


@pytest.mark.parametrize(
    ("decisions", "kind"),
    [
        ({}, "missing_decision"),
        ({"nope": {"decision": "approve"}}, "missing_decision"),
        ("yes", "invalid_request"),
        ("CALL", "unknown_call"),
        ({"CALL": {"decision": "maybe"}}, "invalid_decision"),
        ({"CALL": {"decision": "edit"}}, "invalid_decision"),
        ({"CALL": {"decision": "deny", "reason": 3}}, "invalid_decision"),
    ],
)
async def test_bad_decisions_are_422_and_keep_the_pending_turn(decisions: Any, kind: str) -> None:
    async with asgi_client(create_app(agent(), tools=[pay])) as http:
        stopped = await turn(http, "pay Ann")
        pending = next(data for k, data in stopped if k == "pending")
        call_id = pending["calls"][0]["id"]
        if decisions == "CALL":
            decisions = {call_id: {"decision": "approve"}, "other": {"decision": "approve"}}
        elif isinstance(decisions, dict) and "CALL" in decisions:
            decisions = {call_id: decisions["CALL"]}
        url = f"/api/approvals/{pending['pending_id']}"
        refused = await http.post(url, json={"decisions": decisions})
        assert refused.status_code == 422
        assert refused.json()["error"]["type"] == kind
        accepted = await http.post(url, json={"decisions": {call_id: {"decision": "approve"}}})
        assert accepted.status_code == 200


async def test_unknown_pending_id_is_404() -> None:
    async with asgi_client(create_app(agent())) as http:
        response = await http.post("/api/approvals/pending-nope", json={"decisions": {}})
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "unknown_pending"


@pytest.mark.parametrize(
    ("body", "status", "kind"),
    [
        (b"not json", 400, "invalid_json"),
        (b"[1, 2]", 400, "invalid_json"),
        (b"{}", 422, "invalid_request"),
        (b'{"message": "  "}', 422, "invalid_request"),
        (b'{"message": 3}', 422, "invalid_request"),
        (b'{"message": "hi", "conversation_id": 4}', 422, "invalid_request"),
    ],
)
async def test_bad_turn_requests(body: bytes, status: int, kind: str) -> None:
    async with asgi_client(create_app(agent())) as http:
        response = await http.post(
            "/api/turns", content=body, headers={"Content-Type": "application/json"}
        )
    assert response.status_code == status
    assert response.json()["error"]["type"] == kind
    assert response.json()["error"]["message"]


async def test_a_failure_inside_the_turn_is_an_error_event() -> None:
    secret = "sk-test-SECRET-0123456789abcdef"
    model = ScriptedChatModel(responder=lambda prompt: f"{len(prompt.messages)} message(s)")

    def broken(prompt: Any) -> Any:
        raise RuntimeError(f"boom with api_key={secret}")

    model_failing = ScriptedChatModel(responder=broken)
    app = create_app(ChatClient.create(model_failing))
    async with asgi_client(app) as http:
        messages = await turn(http, "hi", "c-1")
    kinds = [kind for kind, _ in messages]
    assert kinds[0] == "turn" and kinds[-1] == "error"
    error = messages[-1][1]["error"]
    assert error["type"] == "internal_error"
    assert "RuntimeError" in error["message"]
    assert secret not in str(messages)
    # The failed turn left nothing in the conversation: the next one starts clean.
    app.state.ostinato.client = ChatClient.create(model)
    async with asgi_client(app) as http:
        after = await turn(http, "again", "c-1")
    assert after[-1][1]["response"]["generations"][0]["output"]["text"] == "1 message(s)"


async def test_more_turns_than_the_limit_get_503() -> None:
    model = GatedModel()
    app = create_app(ChatClient.create(model), settings=ServeSettings(max_concurrent_turns=1))
    async with asgi_client(app) as http:
        first = asyncio.ensure_future(http.post("/api/turns", json={"message": "one"}))
        assert await asyncio.to_thread(model.entered.wait, 10)
        busy = await http.post("/api/turns", json={"message": "two"})
        chat = await http.post(
            "/v1/chat/completions", json={"messages": [{"role": "user", "content": "x"}]}
        )
        model.release()
        done = await first
        after = await http.post("/api/turns", json={"message": "three"})
    for refused in (busy, chat):
        assert refused.status_code == 503
        assert refused.json()["error"]["type"] == "server_busy"
        assert "OSTINATO_SERVE_MAX_CONCURRENT_TURNS" in refused.json()["error"]["message"]
        assert refused.headers["retry-after"] == "1"
    assert done.status_code == 200 and after.status_code == 200
    assert app.state.ostinato.slots.running == 0


@pytest.mark.parametrize("path", ["/api/turns", "/v1/chat/completions"])
async def test_a_client_gone_before_the_stream_starts_gives_its_slot_back(path: str) -> None:
    app = create_app(agent(), settings=ServeSettings(max_concurrent_turns=1))
    body = {"message": "hi", "messages": [{"role": "user", "content": "hi"}], "stream": True}
    raw = json.dumps(body).encode()
    received = [{"type": "http.request", "body": raw, "more_body": False}]

    async def receive() -> dict[str, Any]:
        return received.pop(0) if received else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            raise OSError("the client is gone")

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": "POST",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "scheme": "http",
        "query_string": b"",
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(raw)).encode()),
        ],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    with contextlib.suppress(Exception):
        await app(scope, receive, send)
    # A /api/turns turn goes on without its reader (detach) and gives its slot back
    # when it ends.
    for served in list(app.state.ostinato.turns._turns.values()):
        await asyncio.wait_for(served.wait_done(), 10)
    assert app.state.ostinato.slots.running == 0


async def test_two_requests_deciding_at_once_resume_the_turn_once() -> None:
    app = create_app(agent(), tools=[pay], settings=ServeSettings(max_concurrent_turns=4))
    async with asgi_client(app) as http:
        stopped = await turn(http, "pay Ann")
        pending = next(data for k, data in stopped if k == "pending")
        url = f"/api/approvals/{pending['pending_id']}"
        body = {"decisions": {pending["calls"][0]["id"]: {"decision": "approve"}}}
        first, second = await asyncio.gather(http.post(url, json=body), http.post(url, json=body))
    statuses = sorted([first.status_code, second.status_code])
    assert statuses == [200, 409]
    assert app.state.ostinato.slots.running == 0
