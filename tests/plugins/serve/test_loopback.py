"""ostinato-serve on a real uvicorn on a loopback port: the adapter's own conformance kit
(ostinato-openai pointed at the server), the tool loop on the server with a plain answer
to the caller, streams, client disconnects cancelling turns, and no credential anywhere."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ostinato import ChatClient
from ostinato.events import LoopEvent
from ostinato.model import ChatModel
from ostinato.testing.conformance import LiveConformance
from ostinato_memory import MessageChatMemoryAdvisor, MessageWindowChatMemory
from ostinato_openai import OpenAIChatModel
from ostinato_serve import ServeSettings, create_app
from tests.plugins.serve.served import (
    GatedModel,
    ObservedSlots,
    agent,
    read_sse,
    sse_messages,
    weather,
)
from tests.uvicorn_loopback import serve_on_loopback

TOKEN = "serve-token-0123456789"


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    """The scripted weather agent behind a token, on a loopback port."""
    app = create_app(agent(), tools=[weather], settings=ServeSettings(token=TOKEN))
    with serve_on_loopback(app) as url:
        yield url


def caller(url: str, api_key: str = TOKEN) -> OpenAIChatModel:
    return OpenAIChatModel(model="served", api_key=api_key, base_url=f"{url}/v1")


class TestServedConformance(LiveConformance):
    """The OpenAI adapter's live conformance checks, with ostinato-serve as the server."""

    provider = "openai"

    @pytest.fixture(autouse=True)
    def _server(self, served: str) -> None:
        self.url = served

    def live_model(self) -> ChatModel | None:
        return caller(self.url)


@pytest.mark.parametrize("stream", [False, True])
async def test_the_tool_loop_runs_on_the_server_and_the_caller_gets_the_answer(
    served: str, stream: bool
) -> None:
    model = caller(served)
    seen: list[LoopEvent] = []
    client = ChatClient.builder(model).listener(seen.append).build()
    try:
        spec = client.prompt("What is the weather in Paris?")
        if stream:
            text = "".join([piece async for piece in spec.stream().acontent()])
        else:
            text = await spec.call().acontent()
    finally:
        await model.aclose()
    assert text == "Done: Paris: 21C, sunny."
    kinds = [e.kind for e in seen]
    assert "tool_call_requested" not in kinds  # the caller saw a plain answer
    assert kinds.count("round_started") == 1


async def test_a_wrong_token_is_refused_over_the_wire(served: str) -> None:
    from ostinato.errors import AuthenticationError

    model = caller(served, api_key="wrong")
    try:
        with pytest.raises(AuthenticationError):
            await ChatClient.create(model).prompt("hi").call().acontent()
    finally:
        await model.aclose()


def test_turn_events_stream_over_the_wire(served: str) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    body = {"message": "weather in Paris?", "conversation_id": None}
    with (
        httpx.Client(base_url=served, headers=headers) as http,
        http.stream("POST", "/api/turns", json=body) as response,
    ):
        assert response.status_code == 200
        lines = "".join(response.iter_text())
    messages = read_sse(lines)
    assert messages[0][0] == "turn"
    assert messages[-1][0] == "loop_ended"
    assert messages[-1][1]["reason"] == "answered"


def _first_message(response: httpx.Response) -> str:
    """Read until the first whole SSE message."""
    text = ""
    for piece in response.iter_text():
        text += piece
        if "\n\n" in text:
            break
    return text


@pytest.mark.parametrize("endpoint", ["turns", "chat"])
def test_a_client_disconnecting_cancels_its_turn_and_the_conversation_stays_valid(
    endpoint: str,
) -> None:
    model = GatedModel()
    memory = MessageWindowChatMemory()
    client = ChatClient.builder(model).default_advisors(MessageChatMemoryAdvisor(memory)).build()
    # /api/turns detaches by default: this test asks it to cancel (after a short reattach
    # grace), as the OpenAI endpoint does by default.
    settings = ServeSettings(on_disconnect="cancel", reattach_seconds=0.2)
    app = create_app(client, settings=settings)
    slots = app.state.ostinato.slots = ObservedSlots(4)
    if endpoint == "turns":
        path, body = "/api/turns", {"message": "first question", "conversation_id": "c-1"}
    else:
        path = "/v1/chat/completions"
        body = {"messages": [{"role": "user", "content": "first question"}], "stream": True}
    with serve_on_loopback(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        with http.stream("POST", path, json=body) as response:
            assert response.status_code == 200
            assert _first_message(response)
            assert model.entered.wait(10), "the turn never reached the model"
        # The connection is closed: the server cancels the waiting model request.
        assert model.cancelled.wait(10), "closing the connection did not cancel the turn"
        assert slots.idle.wait(10), "the cancelled turn kept its slot"
        model.release()
        after = http.post(
            "/api/turns", json={"message": "second question", "conversation_id": "c-1"}
        )
        assert read_sse(after.text)[-1][1]["reason"] == "answered"
        assert slots.idle.wait(10), "the second turn kept its slot"
    last = model.inner.prompts[-1]
    # A turn cancelled through its scope ends with an answer saying so, remembered with
    # its question (the OpenAI endpoint remembers nothing).
    remembered = (
        ["first question", "The turn was cancelled: the client went away."]
        if endpoint == "turns"
        else []
    )
    assert [m.text for m in last.messages] == [*remembered, "second question"]
    assert [m.text for m in memory.get_sync("c-1")] == [
        *remembered,
        "second question",
        "You said: second question",
    ]


SECRET = "sk-proj-SECRET-KEY-0123456789abcdefghij"


def leaking_upstream() -> Starlette:
    """An OpenAI imitation refusing every key, echoing it in its error (as providers do)."""

    async def refuse(request: Request) -> JSONResponse:
        key = request.headers.get("authorization", "")
        error = {"message": f"Incorrect API key provided: {key}", "type": "invalid_request_error"}
        return JSONResponse({"error": error}, status_code=401)

    return Starlette(routes=[Route("/v1/chat/completions", refuse, methods=["POST"])])


def test_no_credential_reaches_an_event_an_error_or_the_page() -> None:
    with serve_on_loopback(
        create_app(agent(), tools=[weather], settings=ServeSettings(token=SECRET))
    ) as upstream:
        # The served agent's model is an OpenAI client whose key is SECRET.
        good = ChatClient.create(caller(upstream, api_key=SECRET))
        with serve_on_loopback(leaking_upstream()) as leaking:
            bad = ChatClient.create(caller(leaking, api_key=SECRET))
            outputs: list[str] = []
            for client in (good, bad):
                app = create_app(client, tools=[weather])
                with serve_on_loopback(app) as url, httpx.Client(base_url=url, timeout=10) as http:
                    turn = http.post("/api/turns", json={"message": "weather in Paris?"})
                    chat = http.post(
                        "/v1/chat/completions",
                        json={"messages": [{"role": "user", "content": "weather?"}]},
                    )
                    stream = http.post(
                        "/v1/chat/completions",
                        json={"messages": [{"role": "user", "content": "hi"}], "stream": True},
                    )
                    info = http.get("/api/info")
                    page = http.get("/")
                    outputs += [turn.text, chat.text, stream.text, info.text, page.text]
                    if client is bad:
                        assert chat.status_code == 502
                        assert read_sse(turn.text)[-1][0] == "error"
                        assert sse_messages(stream.text)[-1][0] == "error"
                    else:
                        assert read_sse(turn.text)[-1][1]["reason"] == "answered"
                        assert chat.status_code == 200
    everything = "\n".join(outputs)
    assert "Done: Paris" in everything  # the good agent answered through its upstream
    assert "Incorrect API key" in everything  # the bad one's error was shown, masked
    for form in (SECRET, SECRET[8:], json.dumps(SECRET)):
        assert form not in everything
