"""An HTTP model adapter on an ``httpx.MockTransport`` serving hand-written replies.

Shared by the adapters' tests: :func:`mock_model` builds any
:class:`~ostinato.http.HttpxChatModel` whose requests are answered, in order, by the
given replies (a response, an exception to raise, or a function of the request), with a
retry policy on :class:`FakeTime` (sleeping only moves its clock). :func:`stream_chunks`
and :func:`aggregate` consume a stream the way callers do (under ``aclosing``).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import aclosing
from typing import Any, TypeVar

import httpx

from ostinato.model import ChatModel, ChatResponse, MessageAggregator
from ostinato.prompt import Prompt
from ostinato.transport import RetryPolicy

__all__ = ["FakeTime", "Reply", "aggregate", "mock_model", "mock_model_for", "stream_chunks"]

M = TypeVar("M")

#: What answers one request: a response, an exception raised, or a function of the request.
Reply = httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]


class FakeTime:
    """A clock and a sleep: sleeping only moves the clock forward and records the wait."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        """The current fake time."""
        return self.now

    async def sleep(self, seconds: float) -> None:
        """Record the wait and move the clock."""
        self.sleeps.append(seconds)
        self.now += seconds


def mock_model(
    model_class: Callable[..., M],
    *replies: Reply,
    time: FakeTime | None = None,
    max_retries: int = 0,
    max_total_time: float = 120.0,
    **kwargs: Any,
) -> tuple[M, list[httpx.Request]]:
    """A ``model_class`` answering each request with the next reply; the requests it sent."""
    sent: list[httpx.Request] = []
    pending = list(replies)

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        reply = pending.pop(0)
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, httpx.Response):
            return reply
        return reply(request)

    clock = time or FakeTime()
    model = model_class(
        retry_policy=RetryPolicy(
            max_retries=max_retries,
            max_total_time=max_total_time,
            sleep=clock.sleep,
            clock=clock.clock,
        ),
        http_client_factory=lambda: httpx.AsyncClient(transport=httpx.MockTransport(handler)),
        **kwargs,
    )
    return model, sent


def mock_model_for(
    model_class: Callable[..., M], **defaults: Any
) -> Callable[..., tuple[M, list[httpx.Request]]]:
    """An adapter's ``model_for(*replies, time=None, **kwargs)``: :func:`mock_model` of
    ``model_class`` with ``defaults`` (model, API key, base URL) unless a call names them
    (``max_retries``, ``max_total_time`` and model arguments pass through)."""

    def model_for(
        *replies: Reply, time: FakeTime | None = None, **kwargs: Any
    ) -> tuple[M, list[httpx.Request]]:
        """A model answering each request with the next reply; the requests it sent."""
        return mock_model(model_class, *replies, time=time, **{**defaults, **kwargs})

    return model_for


async def stream_chunks(model: ChatModel, prompt: Prompt | str = "hi") -> list[ChatResponse]:
    """Every chunk of a stream (consumed under aclosing)."""
    chunks = []
    async with aclosing(
        model.stream(prompt if isinstance(prompt, Prompt) else Prompt(prompt))
    ) as s:
        async for chunk in s:
            chunks.append(chunk)
    return chunks


async def aggregate(model: ChatModel, prompt: Prompt | str = "hi") -> ChatResponse:
    """The aggregate of a stream."""
    return MessageAggregator.aggregate(await stream_chunks(model, prompt))
