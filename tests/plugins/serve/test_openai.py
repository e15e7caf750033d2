"""``/v1/chat/completions`` and ``/v1/models`` against the ASGI app: the server runs the
tools and answers in the Chat Completions format, called and streamed; the caller's
messages are the whole conversation; caller-declared tools pass through."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ostinato import ChatClient
from ostinato.errors import AuthenticationError
from ostinato.messages import AssistantMessage, SystemMessage, ToolResponseMessage, UserMessage
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato_memory import MessageChatMemoryAdvisor, MessageWindowChatMemory
from ostinato_serve import create_app
from tests.plugins.serve.served import agent, asgi_client, pay, sse_messages, weather

ASK = {"model": "anything", "messages": [{"role": "user", "content": "weather in Paris?"}]}


async def test_models_lists_the_served_model() -> None:
    async with asgi_client(create_app(agent(), model_name="scripted:agent")) as http:
        response = await http.get("/v1/models")
    assert response.status_code == 200
    assert response.json() == {
        "object": "list",
        "data": [{"id": "scripted:agent", "object": "model", "created": 0, "owned_by": "ostinato"}],
    }


async def test_a_call_runs_the_tools_on_the_server_and_answers() -> None:
    async with asgi_client(create_app(agent(), tools=[weather], model_name="m")) as http:
        response = await http.post("/v1/chat/completions", json=ASK)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["object"] == "chat.completion" and body["id"].startswith("chatcmpl-")
    assert body["model"] == "m" and isinstance(body["created"], int)
    (choice,) = body["choices"]
    assert choice["message"] == {"role": "assistant", "content": "Done: Paris: 21C, sunny."}
    assert choice["finish_reason"] == "stop"
    # Both rounds of the tool loop are counted.
    assert body["usage"] == {"prompt_tokens": 18, "completion_tokens": 7, "total_tokens": 25}


async def test_a_stream_sends_chunks_usage_and_done() -> None:
    body = {**ASK, "stream": True, "stream_options": {"include_usage": True}}
    async with asgi_client(create_app(agent(), tools=[weather], model_name="m")) as http:
        response = await http.post("/v1/chat/completions", json=body)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    messages = sse_messages(response.text)
    assert all(event is None for event, _ in messages)
    assert messages[-1][1] == "[DONE]"
    chunks = [json.loads(data) for _, data in messages[:-1]]
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert len({c["id"] for c in chunks}) == 1
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    assert text == "Done: Paris: 21C, sunny."
    finish = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]]
    assert finish[-1] == "stop" and set(finish[:-1]) == {None}
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"] == {"prompt_tokens": 18, "completion_tokens": 7, "total_tokens": 25}


async def test_without_include_usage_no_usage_chunk() -> None:
    async with asgi_client(create_app(agent())) as http:
        response = await http.post("/v1/chat/completions", json={**ASK, "stream": True})
    chunks = [json.loads(d) for _, d in sse_messages(response.text)[:-1]]
    assert all(c["choices"] for c in chunks)


async def test_the_callers_messages_are_the_whole_conversation() -> None:
    model = ScriptedChatModel(["Fine."])
    memory = MessageWindowChatMemory()
    advisor = MessageChatMemoryAdvisor(memory, default_conversation_id="default")
    client = ChatClient.builder(model).default_advisors(advisor).build()
    messages = [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [{"type": "text", "text": "Hi, "}, {"type": "text", "text": "I am Ada"}],
        },
        {"role": "assistant", "content": "Hello Ada."},
        {"role": "user", "content": "How are you?"},
    ]
    async with asgi_client(create_app(client)) as http:
        response = await http.post(
            "/v1/chat/completions",
            json={"messages": messages, "temperature": 0.2, "max_tokens": 50, "stop": "END"},
        )
    assert response.json()["choices"][0]["message"]["content"] == "Fine."
    (prompt,) = model.prompts
    assert prompt.messages == (
        SystemMessage("Be brief."),
        UserMessage("Hi, I am Ada"),
        AssistantMessage("Hello Ada."),
        UserMessage("How are you?"),
    )
    assert prompt.options.temperature == 0.2
    assert prompt.options.max_tokens == 50
    assert prompt.options.stop_sequences == ("END",)
    assert await memory.get("default") == []  # memory neither added nor stored anything


FUNCTION = {
    "type": "function",
    "function": {
        "name": "lookup",
        "description": "Look a word up",
        "parameters": {"type": "object", "properties": {"word": {"type": "string"}}},
    },
}


@pytest.mark.parametrize("stream", [False, True])
async def test_caller_declared_tools_are_returned_to_the_caller(stream: bool) -> None:
    model = ScriptedChatModel(
        [tool_call_response(("lookup", {"word": "ostinato"})), text_response("A repeated phrase.")]
    )
    first_body = {**ASK, "tools": [FUNCTION], "stream": stream}
    async with asgi_client(create_app(ChatClient.create(model), tools=[weather])) as http:
        first = await http.post("/v1/chat/completions", json=first_body)
        if stream:
            chunks = [json.loads(d) for _, d in sse_messages(first.text)[:-1]]
            deltas = [c["choices"][0] for c in chunks if c["choices"]]
            calls = next(d["delta"]["tool_calls"] for d in deltas if "tool_calls" in d["delta"])
            assert calls[0]["index"] == 0
            finish = deltas[-1]["finish_reason"]
        else:
            choice = first.json()["choices"][0]
            calls = choice["message"]["tool_calls"]
            finish = choice["finish_reason"]
        assert finish == "tool_calls"
        call = calls[0]
        assert call["function"] == {"name": "lookup", "arguments": '{"word": "ostinato"}'}
        history = [
            *ASK["messages"],
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call["id"], "content": "a repeated phrase"},
        ]
        second = await http.post(
            "/v1/chat/completions", json={"messages": history, "tools": [FUNCTION]}
        )
    assert second.json()["choices"][0]["message"]["content"] == "A repeated phrase."
    offered = model.prompts[0].options.tool_names
    assert offered == ("lookup",)  # the server's own tools are not offered then
    sent = model.prompts[1].messages[-1]
    assert isinstance(sent, ToolResponseMessage)
    assert sent.responses[0].name == "lookup"
    assert sent.responses[0].response_data == "a repeated phrase"


@pytest.mark.parametrize("stream", [False, True])
async def test_a_call_needing_approval_says_where_it_can_be_approved(stream: bool) -> None:
    body = {"messages": [{"role": "user", "content": "pay Ann"}], "stream": stream}
    async with asgi_client(create_app(agent(), tools=[pay])) as http:
        response = await http.post("/v1/chat/completions", json=body)
    assert response.status_code == 200, response.text
    if stream:
        chunks = [json.loads(d) for _, d in sse_messages(response.text)[:-1]]
        deltas = [c["choices"][0] for c in chunks if c["choices"]]
        text = "".join(d["delta"].get("content") or "" for d in deltas)
        finish = deltas[-1]["finish_reason"]
    else:
        choice = response.json()["choices"][0]
        text = choice["message"]["content"]
        finish = choice["finish_reason"]
    assert "Waiting" not in text  # nothing waits: no OpenAI client can approve
    assert text.startswith("Not run: the tool call pay needs approval")
    assert "http://testserver/" in text and "/api/approvals/" in text
    assert finish == "stop"


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({}, "messages"),
        ({"messages": []}, "messages"),
        ({"messages": [{"role": "robot", "content": "x"}]}, "role"),
        ({"messages": [{"role": "user", "content": 3}]}, "content"),
        (
            {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]},
            "image_url",
        ),
        ({"messages": [{"role": "tool", "content": "x"}]}, "tool_call_id"),
        ({**ASK, "n": 2}, "'n'"),
        ({**ASK, "stream": "yes"}, "'stream'"),
        ({**ASK, "temperature": "hot"}, "'temperature'"),
        ({**ASK, "max_tokens": 0}, "'max_tokens'"),
        ({**ASK, "stop": [1]}, "'stop'"),
        ({**ASK, "tools": [{"type": "function"}]}, "tools[0]"),
    ],
)
async def test_bad_requests_are_400_in_openais_shape(body: dict[str, Any], where: str) -> None:
    async with asgi_client(create_app(agent())) as http:
        response = await http.post("/v1/chat/completions", json=body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert where in error["message"]


SECRET = "sk-live-SECRET-abcdef0123456789"


def failing(prompt: Any) -> Any:
    raise AuthenticationError(
        f"the provider refused the key (api_key={SECRET})", provider="openai", status=401
    )


async def test_a_model_failure_is_502_and_shows_no_credential() -> None:
    client = ChatClient.create(ScriptedChatModel(responder=failing))
    async with asgi_client(create_app(client)) as http:
        called = await http.post("/v1/chat/completions", json=ASK)
        streamed = await http.post("/v1/chat/completions", json={**ASK, "stream": True})
    assert called.status_code == 502
    assert called.json()["error"]["type"] == "model_error"
    assert SECRET not in called.text
    assert streamed.status_code == 200
    event, data = sse_messages(streamed.text)[-1]
    assert event == "error"
    assert json.loads(data)["error"]["type"] == "model_error"
    assert SECRET not in streamed.text


def test_a_detached_completion_needs_durable_turns() -> None:
    from ostinato.errors import ConfigurationError
    from ostinato_serve import ServeSettings

    with pytest.raises(ConfigurationError, match="OSTINATO_SERVE_TURNS=durable"):
        create_app(agent(), settings=ServeSettings(openai_on_disconnect="detach"))
