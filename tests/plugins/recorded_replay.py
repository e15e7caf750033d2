"""Recorded exchanges (``tests/wire``) replayed through an adapter, and its reply checked.

The corpus is part of the repository (``tests/wire``); a missing file fails the test. Each
adapter's ``wire.py`` rebuilds, from a recorded request body, the prompt and options that
should make the adapter send exactly that body, and makes its ``replay_model`` with
:func:`replaying_model_for`; its ``expect.py`` makes a :class:`ReplayDriver`, which replays an
exchange through ``call()`` or ``stream()`` and checks that the adapter sent the recorded
request. :func:`expect_response` asserts every normalised field of a reply; a
:class:`RecordedReply` holds those fields for one recording, with that reply's own checks,
and a :class:`RecordedError` what a recorded error reply raises.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from ostinato.errors import ModelError
from ostinato.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.model import ChatResponse
from ostinato.prompt import Prompt
from ostinato.transport import RetryPolicy
from tests.fakes.replay import answer, stream_all
from tests.fakes.wire import Exchange, no_sleep

__all__ = [
    "RecordedConversation",
    "RecordedError",
    "RecordedReply",
    "ReplayDriver",
    "expect_response",
    "replaying_client",
    "replaying_model_for",
    "reply",
]

M = TypeVar("M")
E = TypeVar("E", bound=Exchange)


def replaying_client(
    exchange: Exchange, piece_size: int | None = None
) -> tuple[Callable[[], httpx.AsyncClient], list[httpx.Request]]:
    """A client factory whose every request gets the recorded response (its body served in
    pieces of ``piece_size`` bytes), and the list of the requests sent through it."""
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return exchange.response_for(piece_size)

    return lambda: httpx.AsyncClient(transport=httpx.MockTransport(handler)), sent


def replaying_model_for(
    model_class: Callable[..., M], connection: Callable[[E], Mapping[str, Any]]
) -> Callable[..., tuple[M, list[httpx.Request]]]:
    """An adapter's ``replay_model(exchange, *, piece_size=None, max_retries=0)``: a
    ``model_class`` built with ``connection(exchange)`` (its base URL, key, query) on
    :func:`replaying_client`, retrying ``max_retries`` times without waiting."""

    def replay_model(
        exchange: E, *, piece_size: int | None = None, max_retries: int = 0
    ) -> tuple[M, list[httpx.Request]]:
        """A model whose every request gets the recorded response; the requests it sent."""
        client_factory, sent = replaying_client(exchange, piece_size)
        model = model_class(
            retry_policy=RetryPolicy(max_retries=max_retries, sleep=no_sleep),
            http_client_factory=client_factory,
            **connection(exchange),
        )
        return model, sent

    return replay_model


class RecordedConversation:
    """The messages of a recorded request, rebuilt in order by an adapter's ``wire.py``.

    A run of tool results becomes one tool response message, as one tool round sends
    them; a result's tool name is its call's, unless the recording names it.
    """

    def __init__(self) -> None:
        self._messages: list[Message] = []
        self._names: dict[str, str] = {}
        self._results: list[ToolResponse] = []

    def _add(self, message: Message) -> None:
        self._end_results()
        self._messages.append(message)

    def _end_results(self) -> None:
        if self._results:
            self._messages.append(ToolResponseMessage(tuple(self._results)))
            self._results = []

    def system(self, text: str) -> None:
        """A system message."""
        self._add(SystemMessage(text))

    def user(self, text: str) -> None:
        """A user message."""
        self._add(UserMessage(text))

    def assistant(self, text: str | None, calls: Iterable[tuple[str, ...]] = ()) -> None:
        """An assistant message; each call is (id, name, arguments as JSON[, type])."""
        tool_calls = tuple(ToolCall(*call) for call in calls)
        self._names.update({call.id: call.name for call in tool_calls})
        self._add(AssistantMessage(text, tool_calls))

    def tool_result(self, call_id: str, content: str, name: str | None = None) -> None:
        """One tool's result, joining the run of results it belongs to."""
        tool = self._names.get(call_id, "") if name is None else name
        self._results.append(ToolResponse(call_id, tool, content))

    @property
    def messages(self) -> list[Message]:
        """The messages so far."""
        self._end_results()
        return list(self._messages)


def recorded_body(exchange: Exchange) -> dict[str, Any]:
    """The body the adapter must send: the recorded one."""
    return dict(exchange.request["body"])


@dataclass(frozen=True)
class ReplayDriver:
    """Replays an adapter's recorded exchanges and checks the request it sent.

    Attributes:
        replay_model: ``(exchange, *, piece_size) -> (model, sent requests)``.
        recorded_prompt: the prompt and options that make the adapter send a body.
        check_protocol: asserts what the adapter's protocol adds to a request (its
            authentication and version headers).
        expected_body: the body the adapter must send for an exchange (the recorded one).
    """

    replay_model: Callable[..., tuple[Any, list[httpx.Request]]]
    recorded_prompt: Callable[[Mapping[str, Any]], Prompt]
    check_protocol: Callable[[Exchange, httpx.Request], None]
    expected_body: Callable[[Any], dict[str, Any]] = recorded_body

    async def replay(
        self, exchange: Exchange, *, piece_size: int | None = None, mode: str | None = None
    ) -> ChatResponse:
        """Replay through ``stream()`` or ``call()`` (as recorded, unless ``mode`` says
        ``"stream"`` or ``"call"``); check the request sent. It must be exactly the
        recorded one (``stream`` aside, when ``mode`` asks for the other way)."""
        model, sent = self.replay_model(exchange, piece_size=piece_size)
        stream = exchange.is_stream if mode is None else mode == "stream"
        try:
            return await answer(
                model, self.recorded_prompt(exchange.request["body"]), stream=stream
            )
        finally:
            if sent:
                self.check_request(exchange, sent[0], stream=None if mode is None else stream)

    async def replay_chunks(
        self, exchange: Exchange, *, piece_size: int | None = None
    ) -> tuple[list[ChatResponse], Any]:
        """Stream the recorded exchange; the chunks and the body the adapter sent (the one
        request, checked)."""
        model, sent = self.replay_model(exchange, piece_size=piece_size)
        chunks = await stream_all(model, self.recorded_prompt(exchange.request["body"]))
        assert len(sent) == 1
        self.check_request(exchange, sent[0])
        return chunks, json.loads(sent[0].content)

    def check_request(
        self, exchange: Exchange, request: httpx.Request, *, stream: bool | None = None
    ) -> None:
        """The adapter sent the expected body (``stream`` replaced when given) as JSON to
        the recorded path and query, with its protocol's headers."""
        expected = self.expected_body(exchange)
        if stream is not None:
            expected["stream"] = stream
        assert json.loads(request.content) == expected
        assert request.method == "POST"
        assert request.url.path == exchange.request["path"].split("?")[0]
        assert dict(request.url.params) == exchange.query
        assert request.headers["content-type"] == "application/json"
        self.check_protocol(exchange, request)


def expect_response(
    response: ChatResponse,
    *,
    text: str | None,
    calls: Sequence[tuple[str, str, Any]] = (),
    finish: str,
    raw_finish: str,
    usage: tuple[int, int, int] | tuple[int, int, int, int | None, int | None],
    model: str,
    id: str = "",
    metadata: Mapping[str, Any] | None = None,
    generation_metadata: Mapping[str, Any] | None = None,
    rate_limit: Mapping[str, Any] | None = None,
    reasoning: str | None = None,
    message_metadata: Mapping[str, Any] | None = None,
    native_usage: Mapping[str, Any] | None = None,
) -> None:
    """Assert every normalised field of a one-generation response.

    ``usage`` is (prompt, completion, total[, cache read, cache write]); left out, the
    cache counts must be ``None``. The message's metadata is ``message_metadata`` when
    given, else only the ``reasoning`` (none when it is ``None``). ``metadata``,
    ``generation_metadata`` and ``rate_limit`` left out must be empty (the generation's
    holding only ``finish_reason_raw``).
    """
    assert len(response.generations) == 1
    generation = response.generations[0]
    output = generation.output
    assert output.text == text
    got_calls = [(c.id, c.name, json.loads(c.arguments)) for c in output.tool_calls]
    assert got_calls == [(i, n, a) for i, n, a in calls]
    assert all(c.type == "function" and c.index is None for c in output.tool_calls)
    if message_metadata is not None:
        assert dict(output.metadata) == dict(message_metadata)
    else:
        assert output.reasoning == reasoning
        assert dict(output.metadata) == ({"reasoning": reasoning} if reasoning is not None else {})
    assert generation.metadata.finish_reason == finish
    assert dict(generation.metadata.metadata) == {
        "finish_reason_raw": raw_finish,
        **(generation_metadata or {}),
    }
    assert generation.metadata.content_filters == frozenset()
    u = response.usage
    expected_usage = (*usage, None, None) if len(usage) == 3 else usage
    assert (
        u.prompt_tokens,
        u.completion_tokens,
        u.total_tokens,
        u.cache_read_input_tokens,
        u.cache_write_input_tokens,
    ) == expected_usage
    if native_usage is not None:
        assert u.native_usage == native_usage
    assert response.metadata.id == id
    assert response.metadata.model == model
    assert dict(response.metadata.metadata) == dict(metadata or {})
    assert dict(response.metadata.rate_limit) == dict(rate_limit or {})


#: A reply's own checks beyond its fields: the exchange, and the response parsed from it.
FurtherChecks = Callable[[Exchange, ChatResponse], Awaitable[None]]


@dataclass(frozen=True)
class RecordedReply:
    """What one recorded reply parses to: :func:`expect_response`'s fields, then more checks.

    A field given as a callable is computed from the exchange (a value the recording holds).
    """

    fields: Mapping[str, Any]
    then: FurtherChecks | None = None

    async def check(
        self,
        exchange: Exchange,
        response: ChatResponse,
        expect: Callable[..., None] = expect_response,
        **defaults: Any,
    ) -> None:
        """Asserts the fields of ``response`` with ``expect`` (``defaults`` where none is
        given), then runs the further checks."""
        given = {**defaults, **self.fields}
        expect(response, **{k: v(exchange) if callable(v) else v for k, v in given.items()})
        if self.then is not None:
            await self.then(exchange, response)


def reply(then: FurtherChecks | None = None, **fields: Any) -> RecordedReply:
    """A :class:`RecordedReply` of these fields (and these further checks)."""
    return RecordedReply(fields, then)


@dataclass(frozen=True)
class RecordedError:
    """What replaying one recorded error reply raises.

    ``message`` is the error's whole message, or (a tuple) pieces of it.
    """

    raises: type[ModelError]
    status: int
    error_type: str | None
    code: str | None
    message: str | tuple[str, ...]
    retry_after: float | None = None
    request_id: str | None = None

    def check(self, error: ModelError, *, provider: str, key: str) -> None:
        """Asserts every field of ``error``, raised by ``provider``'s model holding the API
        key ``key`` (which it never shows)."""
        assert type(error) is self.raises
        assert (error.provider, error.status, error.error_type, error.code) == (
            provider,
            self.status,
            self.error_type,
            self.code,
        )
        assert (error.retry_after, error.request_id) == (self.retry_after, self.request_id)
        if isinstance(self.message, str):
            assert str(error) == self.message
        else:
            for piece in self.message:
                assert piece in str(error)
        assert key not in repr(error)
