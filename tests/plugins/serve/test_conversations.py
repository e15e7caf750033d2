"""``GET /api/conversations`` and ``/api/conversations/<id>`` with and without memory, and
turns continuing a remembered conversation."""

from __future__ import annotations

from ostinato import ChatClient
from ostinato.messages import message_from_dict
from ostinato.testing import ScriptedChatModel
from ostinato_memory import MessageChatMemoryAdvisor, MessageWindowChatMemory
from ostinato_serve import create_app
from tests.plugins.serve.served import agent, asgi_client, read_sse


def remembering(model: ScriptedChatModel) -> tuple[ChatClient, MessageWindowChatMemory]:
    memory = MessageWindowChatMemory()
    client = ChatClient.builder(model).default_advisors(MessageChatMemoryAdvisor(memory)).build()
    return client, memory


async def test_turns_are_remembered_and_listed() -> None:
    model = ScriptedChatModel(["Hello Ada!", "You are Ada."])
    client, _ = remembering(model)
    async with asgi_client(create_app(client)) as http:
        info = (await http.get("/api/info")).json()
        first = await http.post(
            "/api/turns", json={"message": "I am Ada.", "conversation_id": "u-1"}
        )
        second = await http.post(
            "/api/turns", json={"message": "Who am I?", "conversation_id": "u-1"}
        )
        listed = await http.get("/api/conversations")
        shown = await http.get("/api/conversations/u-1")
        unknown = await http.get("/api/conversations/nobody")
    assert info["memory"] is True
    kind, opened = read_sse(first.text)[0]
    assert kind == "turn" and opened["conversation_id"] == "u-1"
    assert opened["turn_id"].startswith("turn-")
    assert read_sse(second.text)[-1][1]["reason"] == "answered"
    assert [m.text for m in model.prompts[1].messages] == ["I am Ada.", "Hello Ada!", "Who am I?"]
    assert listed.status_code == 200
    assert listed.json() == {"conversations": [{"id": "u-1", "messages": 4}]}
    assert shown.status_code == 200
    body = shown.json()
    assert body["id"] == "u-1"
    texts = [message_from_dict(m).text for m in body["messages"]]
    assert texts == ["I am Ada.", "Hello Ada!", "Who am I?", "You are Ada."]
    assert unknown.status_code == 404
    assert unknown.json()["error"]["type"] == "unknown_conversation"


async def test_a_turn_without_a_conversation_id_gets_a_new_one_in_memory() -> None:
    client, memory = remembering(ScriptedChatModel(["one"]))
    async with asgi_client(create_app(client)) as http:
        response = await http.post("/api/turns", json={"message": "hi"})
    conversation = read_sse(response.text)[0][1]["conversation_id"]
    assert [m.text for m in await memory.get(conversation)] == ["hi", "one"]


async def test_without_memory_the_list_is_404() -> None:
    async with asgi_client(create_app(agent())) as http:
        listed = await http.get("/api/conversations")
    assert listed.status_code == 404
    assert listed.json()["error"]["type"] == "memory_not_configured"
    assert "OSTINATO_MEMORY_ENABLED" in listed.json()["error"]["message"]


async def test_without_memory_a_conversation_is_shown_from_what_the_server_keeps() -> None:
    model = ScriptedChatModel(["first answer", "second answer"])
    async with asgi_client(create_app(ChatClient.create(model))) as http:
        await http.post("/api/turns", json={"message": "one", "conversation_id": "c-1"})
        await http.post("/api/turns", json={"message": "two", "conversation_id": "c-1"})
        shown = await http.get("/api/conversations/c-1")
        unknown = await http.get("/api/conversations/x")
    assert shown.status_code == 200
    body = shown.json()
    assert body["id"] == "c-1"
    texts = [message_from_dict(m).text for m in body["messages"]]
    assert texts == ["one", "first answer", "two", "second answer"]
    assert unknown.status_code == 404
    assert unknown.json()["error"]["type"] == "unknown_conversation"
    assert "'x'" in unknown.json()["error"]["message"]
