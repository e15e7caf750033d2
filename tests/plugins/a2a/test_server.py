"""ostinato's A2A server on a real uvicorn on loopback, talked to by the a2a-sdk's own
client: the card, a message sent and streamed, a task waiting for approval and resumed,
a cancelled task, structured output as a data part, and the token."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from a2a.types import CancelTaskRequest, GetTaskRequest, TaskState

from ostinato import ChatClient
from ostinato.testing import ScriptedChatModel
from ostinato_a2a import EVENT_METADATA_KEY, create_a2a_app
from ostinato_serve import ServeSettings, create_app
from tests.plugins.a2a.sdk import collect, plain, sdk_client, send, user_message
from tests.plugins.serve.served import GatedModel, agent, pay, weather
from tests.uvicorn_loopback import serve_on_loopback

TOKEN = "a2a-token-0123456789"


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    """``ostinato serve``'s app (the A2A routes mounted as installed) behind a token."""
    app = create_app(agent(), tools=[weather, pay], settings=ServeSettings(token=TOKEN))
    with serve_on_loopback(app) as url:
        yield url


def _states(events: list[dict[str, Any]]) -> list[str]:
    return [e["statusUpdate"]["status"]["state"] for e in events if "statusUpdate" in e]


def _loop_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        e["statusUpdate"]["metadata"][EVENT_METADATA_KEY]
        for e in events
        if EVENT_METADATA_KEY in e.get("statusUpdate", {}).get("metadata", {})
    ]


def _answer(events: list[dict[str, Any]]) -> str:
    """The streamed chunks of the answer, checked against the whole answer sent last."""
    updates = [e["artifactUpdate"] for e in events if "artifactUpdate" in e]
    if not updates:
        return ""
    *chunks, whole = updates
    assert whole.get("lastChunk") and not whole.get("append"), whole
    text = whole["artifact"]["parts"][0]["text"]
    assert "".join(c["artifact"]["parts"][0]["text"] for c in chunks) == text
    return str(text)


async def test_the_card_names_the_agent_its_tools_and_the_token_scheme(served: str):
    async with httpx.AsyncClient() as http:
        card = (await http.get(f"{served}/.well-known/agent-card.json")).json()
    assert card["supportedInterfaces"] == [
        {"url": f"{served}/api/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ]
    assert [s["id"] for s in card["skills"]] == ["chat", "weather", "pay"]
    assert card["skills"][1]["description"] == "Current weather for a city"
    assert card["capabilities"] == {"streaming": True, "pushNotifications": True}
    assert card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"] == "Bearer"
    assert card["securityRequirements"] == [{"schemes": {"bearer": {}}}]
    assert TOKEN not in json.dumps(card)


async def test_a_call_without_the_token_is_refused(served: str):
    async with httpx.AsyncClient() as http:
        answer = await http.post(f"{served}/api/a2a", json={"jsonrpc": "2.0", "id": 1})
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == "Bearer"


async def test_a_streamed_task_is_a_turn_its_events_and_its_answer(served: str):
    events = await send(served, "weather in Paris?", TOKEN)
    assert events[0]["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
    assert _states(events)[0] == "TASK_STATE_WORKING"
    assert _states(events)[-1] == "TASK_STATE_COMPLETED"
    kinds = [e["kind"] for e in _loop_events(events)]
    assert kinds == [
        "round_finished",
        "tool_call_requested",
        "tool_started",
        "tool_finished",
        "round_finished",
        "loop_ended",
    ]
    finished = _loop_events(events)[3]
    assert finished["result"] == "Paris: 21C, sunny"
    assert _loop_events(events)[-1]["usage"]["total_tokens"] == 25
    assert _answer(events) == "Done: Paris: 21C, sunny."
    final = events[-1]["statusUpdate"]["status"]["message"]["parts"]
    assert final == [{"text": "Done: Paris: 21C, sunny."}]
    usage = events[-1]["statusUpdate"]["metadata"]["ostinato/usage"]
    assert (usage["prompt_tokens"], usage["total_tokens"]) == (18, 25)


async def test_a_message_sent_without_streaming_answers_the_completed_task(served: str):
    async with sdk_client(served, TOKEN, streaming=False) as client:
        (only,) = await collect(client, user_message("hello"))
    task = only["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert [a["name"] for a in task["artifacts"]] == ["answer"]
    assert task["artifacts"][0]["parts"] == [{"text": "You said: hello"}]


async def test_a_task_needing_approval_waits_then_resumes_with_the_next_message(served: str):
    async with sdk_client(served, TOKEN) as client:
        first = await collect(client, user_message("please pay Ann"))
        task_id = first[0]["task"]["id"]
        assert _states(first)[-1] == "TASK_STATE_INPUT_REQUIRED"
        assert _answer(first) == ""  # the waiting turn's words are the status, not an answer
        asking = first[-1]["statusUpdate"]["status"]["message"]["parts"]
        assert "pay(" in asking[0]["text"] and "approve" in asking[0]["text"]
        assert asking[1]["data"]["pending_calls"] == [
            {"id": "call_pay", "name": "pay", "arguments": {"amount": 5, "to": "Ann"}}
        ]
        unclear = await collect(client, user_message("maybe", task_id=task_id))
        assert _states(unclear) == ["TASK_STATE_INPUT_REQUIRED"]
        said = unclear[-1]["statusUpdate"]["status"]["message"]["parts"][0]["text"]
        assert said.startswith("the reply 'maybe' decides nothing")
        resumed = await collect(client, user_message("approve", task_id=task_id))
        assert _states(resumed)[-1] == "TASK_STATE_COMPLETED"
        contexts = {u["contextId"] for e in resumed for u in e.values()}
        assert contexts == {first[0]["task"]["contextId"]}
        assert "tool_started" in [e["kind"] for e in _loop_events(resumed)]
        assert _answer(resumed) == "Done: paid 5 to Ann."
        task = plain(await client.get_task(GetTaskRequest(id=task_id)))
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"


async def test_a_denial_as_a_data_part_is_what_the_model_reads(served: str):
    async with sdk_client(served, TOKEN) as client:
        first = await collect(client, user_message("pay Ann"))
        task_id = first[0]["task"]["id"]
        decisions = {"decisions": {"call_pay": {"decision": "deny", "reason": "too much"}}}
        resumed = await collect(client, user_message(task_id=task_id, data=decisions))
    assert "tool_started" not in [e["kind"] for e in _loop_events(resumed)]
    assert _answer(resumed) == "Done: Tool call 'pay' was not run: denied (too much).."
    assert _states(resumed)[-1] == "TASK_STATE_COMPLETED"


async def test_cancelling_a_task_cancels_its_turn():
    model = GatedModel()
    app = create_a2a_app(ChatClient.create(model), settings=ServeSettings())
    with serve_on_loopback(app) as url:
        async with sdk_client(url, streaming=True) as client:
            stream = client.send_message(user_message("hello"))
            first = plain(await anext(stream))
            task_id = first["task"]["id"]
            await asyncio.to_thread(model.entered.wait, 5)
            cancelled = plain(await client.cancel_task(CancelTaskRequest(id=task_id)))
            rest = [plain(e) async for e in stream]
        assert cancelled["status"]["state"] == "TASK_STATE_CANCELED"
        assert await asyncio.to_thread(model.cancelled.wait, 5)
        assert _states(rest)[-1] == "TASK_STATE_CANCELED"
        model.release()


async def test_a_json_answer_is_also_a_data_part():
    answer = '{"city": "Paris", "temperature": 21}'
    app = create_a2a_app(ChatClient.create(ScriptedChatModel([answer])))
    with serve_on_loopback(app) as url:
        async with sdk_client(url, streaming=False) as client:
            (only,) = await collect(client, user_message("as JSON"))
    (artifact,) = only["task"]["artifacts"]
    assert artifact["parts"][0] == {"text": answer}
    assert artifact["parts"][1]["data"] == {"city": "Paris", "temperature": 21}
    assert only["task"]["status"]["state"] == TaskState.Name(TaskState.TASK_STATE_COMPLETED)


async def test_a_failing_turn_fails_the_task_with_a_masked_message():
    model = ScriptedChatModel([RuntimeError("secret sk-abcdefghijklmnopqrstuvwx")])
    app = create_a2a_app(ChatClient.create(model))
    with serve_on_loopback(app) as url:
        events = await send(url, "hello")
    assert _states(events)[-1] == "TASK_STATE_FAILED"
    text = events[-1]["statusUpdate"]["status"]["message"]["parts"][0]["text"]
    assert "RuntimeError" in text and "sk-" not in text
