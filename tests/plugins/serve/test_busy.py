"""A message for a conversation whose turn still runs, in process: each busy policy,
streamed and not, with the stored conversation checked afterwards; a turn outliving its
reader, read again by position; an explicit stop."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ostinato import ChatClient
from ostinato_memory import MessageChatMemoryAdvisor, MessageWindowChatMemory
from ostinato_serve import ServeSettings, create_app
from tests.plugins.serve.served import GatedModel, asgi_client, read_sse, sse_messages

CID = "c-busy"


def _app(model: GatedModel) -> tuple[Any, MessageWindowChatMemory]:
    memory = MessageWindowChatMemory()
    client = ChatClient.builder(model).default_advisors(MessageChatMemoryAdvisor(memory)).build()
    return create_app(client, settings=ServeSettings(max_concurrent_turns=8)), memory


async def _post(http: Any, message: str, stream: bool, busy: str | None = None) -> Any:
    body: dict[str, Any] = {"message": message, "conversation_id": CID, "stream": stream}
    if busy is not None:
        body["busy"] = busy
    return await http.post("/api/turns", json=body)


def _outcome(response: Any, stream: bool) -> str:
    assert response.status_code == 200, response.text
    if not stream:
        return str(response.json()["outcome"])
    return str(read_sse(response.text)[-1][1]["reason"])


async def _stored(memory: MessageWindowChatMemory) -> list[tuple[str, str | None]]:
    return [(type(m).__name__, m.text) for m in await memory.get(CID)]


async def _settle(app: Any) -> None:
    for turn in list(app.state.ostinato.turns._turns.values()):
        await asyncio.wait_for(turn.wait_done(), 10)


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "call"])
@pytest.mark.parametrize("policy", ["reject", "enqueue", "interrupt", "steer"])
async def test_each_busy_policy_leaves_a_valid_stored_conversation(
    policy: str, stream: bool
) -> None:
    model = GatedModel()
    app, memory = _app(model)
    async with asgi_client(app) as http:
        first = asyncio.ensure_future(_post(http, "first", stream))
        assert await asyncio.to_thread(model.entered.wait, 10)
        running = app.state.ostinato.turns.busy(CID)
        second = asyncio.ensure_future(_post(http, "second", stream, policy))
        if policy in ("reject", "steer"):
            answered = await second
        else:
            await asyncio.sleep(0.05)  # the second waits for the first
            assert not second.done()
        if policy == "interrupt":
            assert await asyncio.to_thread(model.cancelled.wait, 10)
        model.release()
        first_outcome = _outcome(await first, stream)
        if policy not in ("reject", "steer"):
            answered = await second
        await _settle(app)
    stored = await _stored(memory)
    if policy == "reject":
        assert answered.status_code == 409
        assert answered.json()["error"]["type"] == "conversation_busy"
        assert answered.json()["error"]["turn_id"] == running.id
        assert first_outcome == "answered"
        assert stored == [("UserMessage", "first"), ("AssistantMessage", "You said: first")]
    elif policy == "enqueue":
        assert first_outcome == "answered" and _outcome(answered, stream) == "answered"
        assert stored == [
            ("UserMessage", "first"),
            ("AssistantMessage", "You said: first"),
            ("UserMessage", "second"),
            ("AssistantMessage", "You said: second"),
        ]
    elif policy == "interrupt":
        assert first_outcome == "cancelled" and _outcome(answered, stream) == "answered"
        assert stored == [
            ("UserMessage", "first"),
            ("AssistantMessage", "The turn was cancelled: interrupted by a new message."),
            ("UserMessage", "second"),
            ("AssistantMessage", "You said: second"),
        ]
    else:
        assert answered.status_code == 202
        assert answered.json() == {"turn_id": running.id, "conversation_id": CID, "steered": True}
        assert first_outcome == "answered"
        assert stored == [
            ("UserMessage", "first"),
            ("AssistantMessage", "You said: first"),
            ("UserMessage", "second"),
            ("AssistantMessage", "You said: second"),
        ]


async def test_a_turn_outlives_its_reader_and_is_read_again_by_position() -> None:
    model = GatedModel()
    app, memory = _app(model)
    async with asgi_client(app) as http:
        started = asyncio.ensure_future(_post(http, "first", True))
        assert await asyncio.to_thread(model.entered.wait, 10)
        turn = app.state.ostinato.turns.busy(CID)
        started.cancel()  # the reader goes away
        await asyncio.gather(started, return_exceptions=True)
        model.release()
        await _settle(app)
        assert turn.outcome == "answered"
        whole = await http.get(f"/api/turns/{turn.id}/events")
        rest = await http.get(f"/api/turns/{turn.id}/events", headers={"Last-Event-ID": "2"})
        past = await http.get(f"/api/turns/{turn.id}/events?after=9999")
        shown = await http.get(f"/api/turns/{turn.id}")
        unknown = await http.get("/api/turns/turn-nope")
    ids = [line for line in whole.text.splitlines() if line.startswith("id: ")]
    assert ids == [f"id: {n}" for n in range(1, len(ids) + 1)]
    # Every read opens with the turn's "turn" message (no id); the events after 2 follow.
    opened, *events = sse_messages(whole.text)
    assert sse_messages(rest.text) == [opened, *events[2:]]
    assert past.status_code == 416 and past.json()["error"]["type"] == "past_end"
    assert shown.json()["outcome"] == "answered" and shown.json()["done"] is True
    assert unknown.status_code == 404 and unknown.json()["error"]["type"] == "unknown_turn"
    assert [m.text for m in await memory.get(CID)] == ["first", "You said: first"]


async def test_an_explicit_stop_cancels_the_turn() -> None:
    model = GatedModel()
    app, memory = _app(model)
    async with asgi_client(app) as http:
        started = asyncio.ensure_future(_post(http, "first", True))
        assert await asyncio.to_thread(model.entered.wait, 10)
        turn = app.state.ostinato.turns.busy(CID)
        stopped = await http.post(f"/api/turns/{turn.id}/cancel")
        response = await started
    assert stopped.status_code == 202
    assert read_sse(response.text)[-1][1]["reason"] == "cancelled"
    assert app.state.ostinato.slots.running == 0
    assert [m.text for m in await memory.get(CID)] == [
        "first",
        "The turn was cancelled: stopped by the user.",
    ]


async def test_the_conversation_s_running_turn_is_named_until_it_ends() -> None:
    # What a page reloaded while it sent a message (before the turn's id came back) asks.
    model = GatedModel()
    app, _ = _app(model)
    async with asgi_client(app) as http:
        before = await http.get(f"/api/conversations/{CID}/turn")
        first = asyncio.ensure_future(_post(http, "first", True))
        assert await asyncio.to_thread(model.entered.wait, 10)
        running = await http.get(f"/api/conversations/{CID}/turn")
        model.release()
        turn_id = read_sse((await first).text)[0][1]["turn_id"]
        await _settle(app)
        after = await http.get(f"/api/conversations/{CID}/turn")
    assert before.json() == {"conversation_id": CID, "turn_id": None}
    assert running.status_code == 200
    assert running.json() == {"conversation_id": CID, "turn_id": turn_id}
    assert after.json() == {"conversation_id": CID, "turn_id": None}
