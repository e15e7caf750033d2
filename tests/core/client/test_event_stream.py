"""``stream().events()`` / ``aevents()``: bounded, closable, and errors raised where read."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from ostinato import ChatClient
from ostinato.client._event_stream import EVENT_BUFFER
from ostinato.errors import ServerError
from ostinato.events import LoopEnded, LoopExitReason, RoundStarted, TextDelta
from ostinato.model import ChatResponse
from ostinato.prompt import ChatOptions, Prompt, ToolCallingChatOptions
from ostinato.testing import ScriptedChatModel, ScriptedStream, text_response


class EndlessModel:
    """Streams one-character chunks until closed; remembers that it was closed."""

    def __init__(self) -> None:
        self.closed = asyncio.Event()
        self.sent = 0

    @property
    def default_options(self) -> ChatOptions:
        return ToolCallingChatOptions()

    async def call(self, prompt: Prompt) -> ChatResponse:
        raise NotImplementedError

    async def stream(self, prompt: Prompt) -> AsyncIterator[ChatResponse]:
        try:
            while True:
                self.sent += 1
                yield text_response("x", finish_reason=None)
                await asyncio.sleep(0)
        finally:
            self.closed.set()


async def test_a_long_stream_is_never_held_whole():
    chunks = [text_response("x", finish_reason=None) for _ in range(2000)]
    model = ScriptedChatModel([ScriptedStream(chunks)])
    emitted = 0

    def count(event):
        nonlocal emitted
        emitted += 1

    read = 0
    worst = 0
    spec = ChatClient.create(model).prompt("go").listener(count)
    async for _ in spec.stream().aevents():
        read += 1
        worst = max(worst, emitted - read)
        await asyncio.sleep(0)  # a reader slower than the loop
    assert read == emitted > 2000
    assert worst <= EVENT_BUFFER + 1  # the loop waits for the reader


async def test_closing_the_iterator_early_cancels_the_turn():
    model = EndlessModel()
    events = ChatClient.create(model).prompt("go").stream().aevents()
    async for event in events:
        if isinstance(event, TextDelta):
            break
    await events.aclose()  # type: ignore[attr-defined]
    assert model.closed.is_set()
    sent = model.sent
    await asyncio.sleep(0.01)
    assert model.sent == sent  # nothing runs after the reader left


def test_the_sync_face_closes_too():
    model = EndlessModel()
    events = ChatClient.create(model).prompt("go").stream().events()
    first = next(iter(events))
    assert isinstance(first, RoundStarted)
    events.close()  # type: ignore[attr-defined]
    assert model.closed.is_set()


async def test_an_error_of_the_turn_is_raised_from_the_iterator():
    model = ScriptedChatModel([ServerError("down", provider="scripted", status=503)])
    seen = []
    with pytest.raises(ServerError, match="down"):
        async for event in ChatClient.create(model).prompt("go").stream().aevents():
            seen.append(event)
    assert [type(e) for e in seen] == [RoundStarted]


async def test_the_requests_listeners_hear_the_events_too():
    heard = []
    model = ScriptedChatModel(["hello"])
    spec = ChatClient.builder(model).listener(heard.append).build().prompt("go")
    read = [event async for event in spec.stream().aevents()]
    assert heard == read
    assert isinstance(read[-1], LoopEnded)


async def test_a_reader_leaving_a_full_buffer_still_lets_the_turn_end_for_listeners():
    model = EndlessModel()
    heard = []
    full = asyncio.Event()

    def listen(event):
        heard.append(event)
        if len(heard) >= EVENT_BUFFER + 2:  # the buffer is full: the loop waits for us
            full.set()

    events = ChatClient.create(model).prompt("go").listener(listen).stream().aevents()
    await anext(events)
    await full.wait()
    async with asyncio.timeout(5):  # the cancelled turn's ending must not wait for a reader
        await events.aclose()  # type: ignore[attr-defined]
    assert model.closed.is_set()
    ended = heard[-1]
    assert isinstance(ended, LoopEnded)
    assert ended.reason is LoopExitReason.CANCELLED


@pytest.mark.parametrize("face", ["content", "chat_client_responses"])
async def test_leaving_a_stream_early_ends_the_turn_for_listeners(face: str):
    # The stream is read in the reader's own task: leaving closes the loop's generator.
    model = EndlessModel()
    heard = []
    stream = ChatClient.create(model).prompt("go").listener(heard.append).stream()
    chunks = stream.acontent() if face == "content" else stream.achat_client_responses()
    async for _ in chunks:
        break
    await chunks.aclose()  # type: ignore[attr-defined]
    assert model.closed.is_set()
    ended = heard[-1]
    assert isinstance(ended, LoopEnded)
    assert (ended.reason, ended.rounds, ended.response) == (LoopExitReason.CANCELLED, 1, None)
