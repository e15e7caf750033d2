"""CallResponseSpec and StreamResponseSpec: lazy results, one chain run per call spec and
per stream iteration, the sync faces, and failures on both paths."""

from __future__ import annotations

import asyncio
import gc
import threading

import pytest

from ostinato import ChatClient
from ostinato.advisors import BaseAdvisor, CallAdvisor, ChatClientRequest, ChatClientResponse
from ostinato.context_keys import SENT_OPTIONS
from ostinato.errors import RateLimitError, StreamInterruptedError
from ostinato.model import Usage
from ostinato.testing import ScriptedChatModel, ScriptedStream, text_response


def test_results_of_one_call_spec_share_one_model_call():
    model = ScriptedChatModel([text_response("hi", usage=(1, 2, 3))])
    call = ChatClient.create(model).prompt("x").call()
    assert call.content() == "hi"
    assert call.chat_response().usage == Usage(1, 2, 3)
    assert call.chat_client_response().chat_response.text == "hi"
    assert model.call_count == 1


async def test_async_twins():
    model = ScriptedChatModel(["hi", "streamed answer"])
    client = ChatClient.create(model)
    assert await client.prompt("x").call().acontent() == "hi"
    pieces = [p async for p in client.prompt("y").stream().acontent()]
    assert "".join(pieces) == "streamed answer"
    assert len(pieces) > 1


def test_stream_views():
    model = ScriptedChatModel([text_response("hello", usage=(1, 2, 3))] * 3, chunk_size=2)
    client = ChatClient.create(model)
    assert list(client.prompt("x").stream().content()) == ["he", "ll", "o"]
    responses = list(client.prompt("x").stream().chat_responses())
    assert responses[-1].usage == Usage(1, 2, 3)
    wrapped = list(client.prompt("x").stream().chat_client_responses())
    assert all("ostinato.model.sent_options" not in c.context for c in wrapped)


def test_stream_content_skips_empty_and_usage_only_chunks():
    chunks = [text_response(""), text_response("a"), text_response(None, usage=(1, 1, 2))]
    model = ScriptedChatModel([ScriptedStream(chunks)])
    assert list(ChatClient.create(model).prompt("x").stream().content()) == ["a"]


class Endless(ScriptedChatModel):
    """Streams "x" for ever; ``closed`` is set once its stream is closed."""

    def __init__(self) -> None:
        super().__init__()
        self.closed = threading.Event()

    async def stream(self, prompt):
        try:
            while True:
                await asyncio.sleep(0)
                yield text_response("x")
        finally:
            self.closed.set()


def test_abandoning_a_sync_stream_closes_the_model_stream():
    model = Endless()
    stream = ChatClient.create(model).prompt("x").stream().content()
    assert next(iter(stream)) == "x"
    del stream
    gc.collect()
    assert model.closed.wait(5)


def test_breaking_out_of_a_sync_stream_closes_it():
    model = Endless()
    with ChatClient.create(model).prompt("x").stream().content() as stream:
        for _ in stream:
            break
    assert model.closed.wait(5)


def test_nothing_runs_until_a_result_is_asked_for():
    model = ScriptedChatModel(["a"])
    spec = ChatClient.create(model).prompt("x")
    call, stream = spec.call(), spec.stream()
    assert model.call_count == 0
    del call, stream


def test_each_stream_iteration_runs_the_chain_again():
    model = ScriptedChatModel(["one", "two"])
    stream = ChatClient.create(model).prompt("x").stream()
    assert "".join(stream.content()) == "one"
    assert "".join(stream.content()) == "two"
    assert model.call_count == 2


def test_the_call_result_carries_the_advisor_context_without_the_sent_options():
    model = ScriptedChatModel(["hi"])
    spec = ChatClient.create(model).prompt("x").advisors(_Tagging())
    response = spec.call().chat_client_response()
    assert response.context["tag"] == "seen"
    assert SENT_OPTIONS not in response.context


class _Tagging(BaseAdvisor):
    async def after(self, response, chain):  # type: ignore[no-untyped-def]
        return response.with_context(tag="seen")


class _Silent(CallAdvisor):
    """Answers without calling the model and without a chat response."""

    async def advise_call(self, request: ChatClientRequest, chain) -> ChatClientResponse:  # type: ignore[no-untyped-def]
        return ChatClientResponse(None, request.context)


def test_an_advisor_returning_no_response_gives_none_not_an_error():
    spec = ChatClient.create(ScriptedChatModel()).prompt("x").advisors(_Silent())
    call = spec.call()
    assert call.content() is None
    assert call.chat_response() is None


# -- failures, call and stream --------------------------------------------------------------


class _Failing(ScriptedChatModel):
    async def call(self, prompt):  # type: ignore[no-untyped-def]
        raise RateLimitError("slow down", provider="test", status=429, retry_after=2.0)

    async def stream(self, prompt):  # type: ignore[no-untyped-def]
        raise RateLimitError("slow down", provider="test", status=429, retry_after=2.0)
        yield  # an async generator


def test_a_model_error_reaches_the_caller_on_the_call_path_and_is_not_kept():
    call = ChatClient.create(_Failing()).prompt("x").call()
    for _ in range(2):  # a failed run is not remembered: the next ask runs again
        with pytest.raises(RateLimitError) as info:
            call.content()
        assert info.value.retry_after == 2.0


async def test_a_model_error_reaches_the_caller_on_the_async_faces():
    spec = ChatClient.create(_Failing()).prompt("x")
    with pytest.raises(RateLimitError):
        await spec.call().acontent()
    with pytest.raises(RateLimitError):
        [p async for p in spec.stream().acontent()]


def test_a_model_error_reaches_the_caller_on_the_sync_stream():
    with pytest.raises(RateLimitError):
        list(ChatClient.create(_Failing()).prompt("x").stream().content())


def test_a_stream_broken_midway_delivers_what_came_then_raises():
    class Breaking(ScriptedChatModel):
        async def stream(self, prompt):  # type: ignore[no-untyped-def]
            yield text_response("first ")
            raise StreamInterruptedError("connection reset", provider="test")

    pieces: list[str] = []
    with pytest.raises(StreamInterruptedError, match="connection reset"):
        for piece in ChatClient.create(Breaking()).prompt("x").stream().content():
            pieces.append(piece)
    assert pieces == ["first "]
