"""``HttpxChatModel``: the base of every httpx-backed chat model; it holds its wire format.

The base owns the plumbing: the API key checked for a header, the user agent and the
headers of every request, timeouts and pool limits, one ``httpx.AsyncClient`` per event
loop, the call and stream drivers (retries, the size limit, the deadlines), redirects and
the mapping of failures to typed errors. What the bytes mean is the
:class:`~ostinato.http.WireFormat` it holds (:attr:`~HttpxChatModel.wire_format`). Streams
are read under ``async with client.stream(...)``, so closing or cancelling the consumer
closes the HTTP response at once. Each attempt runs inside the model attempt scopes
(:mod:`ostinato.instrumentation`), when any are registered. A call's whole reply must
arrive within ``call_deadline``, a stream's first event within ``first_event_timeout``.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack, aclosing
from functools import partial
from typing import Any, ClassVar, TypeVar

import httpx

from ostinato.errors import StreamInterruptedError
from ostinato.http._declaration import ModelDeclaration
from ostinato.http._read_loop import read_stream
from ostinato.http._replies import ReplyHandling
from ostinato.http._settings import DEFAULT_CALL_DEADLINE, DEFAULT_FIRST_EVENT_TIMEOUT
from ostinato.http._wire_format import (
    ErrorBody,
    UndeclaredWireFormat,
    WireContext,
    WireFormat,
    WireFormatClass,
)
from ostinato.instrumentation import (
    _MODEL_ATTEMPT_SCOPES,
    ModelAttempt,
    ModelAttemptScope,
    ModelAttemptStatusReport,
    entered_model_attempt_scopes,
)
from ostinato.model import ChatResponse
from ostinato.prompt import ChatOptions, Prompt
from ostinato.redaction import Redactor, mask_url
from ostinato.transport import (
    DEFAULT_LIMITS,
    DEFAULT_MAX_RESPONSE_BYTES,
    LoopClients,
    NDJSONFraming,
    RetryPolicy,
    SecretLike,
    SSEFraming,
    check_base_url,
    excerpt,
    header_api_key,
    header_value,
    httpx_timeout,
    make_client,
    read_error_body,
    retry_call,
    retry_stream,
    split_userinfo,
)
from ostinato.transport._bounds import check_bound, within
from ostinato.transport._client import encode_body
from ostinato.transport._engine import check_engine

__all__ = ["HttpxChatModel"]

OptionsT = TypeVar("OptionsT", bound=ChatOptions)
T = TypeVar("T")


class HttpxChatModel(ModelDeclaration, ReplyHandling[OptionsT]):
    """A chat model behind an HTTP JSON API, over httpx.

    A subclass sets the class attributes below (:attr:`wire_format` first) and
    :class:`ModelDeclaration`'s. One that declares :attr:`provider` and
    :attr:`default_base_url` needs no constructor of its own; one with arguments of its
    own takes the others as ``**arguments: Unpack[ModelArguments[MyOptions]]`` and passes
    them on.

    Args:
        model: the default model name (shortcut for ``default_options.model``).
        default_options: the options every request starts from (default: an
            :attr:`options_type` made without arguments).
        base_url: the API root; requests go to ``<base_url><path>`` (default:
            :attr:`default_base_url`).
        provider: the name errors carry (default: :attr:`provider`).
        headers: the provider's own headers of every request (``anthropic-version``).
        api_key: checked for a header and sent as :meth:`_auth_headers` says (bearer).
        timeout: seconds, or an ``httpx.Timeout``; applied to every request, also on
            clients from ``http_client_factory``.
        retry_policy: backoff and bounds of retries (``RetryPolicy(max_retries=0)`` for
            none).
        extra_headers: headers added to every request (checked; never shown in errors).
        extra_query: query parameters added to every request (Azure's ``api-version``).
        limits: the pool limits of clients this model makes itself.
        http_client_factory: makes the ``httpx.AsyncClient`` for each event loop (tests
            pass one built on ``httpx.MockTransport``); the model closes what it made.
        http_engine: what moves the bytes of the clients the model makes itself:
            ``"httpx"`` or ``"aiohttp"`` (``pip install 'ostinato[aiohttp]'``); ``None``:
            ``OSTINATO_HTTP_ENGINE``, else ``"httpx"``. The API stays httpx's either way.
        max_response_bytes: the most bytes one reply may carry (a call's body or a whole
            stream, 64 MiB by default); past it reading stops with
            :class:`~ostinato.errors.MalformedResponseError`.
        call_deadline: the most seconds :meth:`call` may take, retries included (default
            1200; ``None``: no bound); past it :class:`~ostinato.errors.ModelTimeoutError`.
        first_event_timeout: the most seconds :meth:`stream` may wait for its first
            partial response, retries included (default 600; ``None``: no bound).

    Raises:
        TypeError: ``default_options`` or ``base_url`` is missing and the class declares
            no default for it.
        ConfigurationError: the base URL is not ``http(s)://host...``, the API key or an
            extra header holds a character a header cannot carry (not shown), a limit
            is not positive, or the engine is unknown or not installed.
    """

    #: Makes the wire format the model holds, from its :class:`~ostinato.http.WireContext`
    #: (a wire format class whose constructor takes the context).
    wire_format: ClassVar[WireFormatClass | None] = None
    #: Whether the wire format can carry ``ChatOptions.output_schema`` (the provider
    #: enforces the JSON schema); adapters whose request builder sends it say ``True``.
    native_structured_output: ClassVar[bool] = False
    #: How a stream's bytes split into items.
    stream_format: ClassVar[type[SSEFraming] | type[NDJSONFraming]] = SSEFraming
    #: The ``accept`` header of a stream.
    stream_accept: ClassVar[str] = "text/event-stream"
    #: What a stream that stopped early did (``ended without [DONE]``).
    stream_end: ClassVar[str] = "ended without its last event"

    def __init__(
        self,
        *,
        model: str | None = None,
        default_options: OptionsT | None = None,
        base_url: str | None = None,
        provider: str | None = None,
        headers: Mapping[str, str] | None = None,
        api_key: str | SecretLike | None = None,
        timeout: float | httpx.Timeout | None = None,
        retry_policy: RetryPolicy | None = None,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, str] | None = None,
        limits: httpx.Limits | None = None,
        http_client_factory: Callable[[], httpx.AsyncClient] | None = None,
        http_engine: str | None = None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        call_deadline: float | None = DEFAULT_CALL_DEADLINE,
        first_event_timeout: float | None = DEFAULT_FIRST_EVENT_TIMEOUT,
    ) -> None:
        if default_options is None:
            default_options = self._declared("options_type", "default_options")()
        options = default_options.copy(model=model) if model else default_options
        base_url = self._declared("default_base_url", "base_url") if base_url is None else base_url
        provider = provider or type(self).provider
        root, userinfo = split_userinfo(check_base_url(base_url, variable="base_url").rstrip("/"))
        self._api_key = header_api_key(api_key, provider=provider)
        self._timeout = httpx_timeout(timeout)
        self._limits = limits or DEFAULT_LIMITS
        self._engine = check_engine(http_engine) if http_client_factory is None else "httpx"
        self._params = dict(extra_query or {})
        self._call_deadline = check_bound(call_deadline, "call_deadline")
        self._first_event_timeout = check_bound(first_event_timeout, "first_event_timeout")
        sent = {"user-agent": self.user_agent, "content-type": "application/json"}
        if self._api_key:
            sent.update(self._auth_headers(self._api_key))
        sent.update({k.lower(): v for k, v in (headers or {}).items()})
        sent.update(
            {
                k.lower(): header_value(v, what=f"the {provider} extra header {k!r}")
                for k, v in (extra_headers or {}).items()
            }
        )
        if userinfo:  # as httpx would send it, but out of the URL it logs
            sent["authorization"] = userinfo
        self._headers = sent
        # Built once: httpx copies them into each request anyway.
        self._call_headers = {**sent, "accept": "application/json"}
        self._stream_headers = {**sent, "accept": self.stream_accept}
        self._init_transport(
            default_options=options,
            base_url=root,
            url=f"{root}{self.path}",
            provider=provider,
            retry_policy=retry_policy,
            max_response_bytes=max_response_bytes,
            clients=LoopClients(http_client_factory or self._make_client, httpx.AsyncClient),
            redactor=Redactor.for_request(
                api_key=self._api_key, headers=sent, url=base_url, params=self._params
            ),
        )
        self._context = WireContext(provider, options, self._url, self._redactor)
        make = type(self).wire_format
        self._wire = UndeclaredWireFormat(type(self)) if make is None else make(self._context)

    # -- what a subclass may override ----------------------------------------------------

    def _auth_headers(self, api_key: str) -> dict[str, str]:
        """The headers carrying ``api_key`` (``Authorization: Bearer`` unless overridden)."""
        return {"authorization": f"Bearer {api_key}"}

    def _request_headers(self, prompt: Prompt, *, stream: bool) -> Mapping[str, str]:
        """The headers of a request for ``prompt`` (the same for every request unless
        overridden)."""
        return self._stream_headers if stream else self._call_headers

    # -- shared by every adapter ---------------------------------------------------------

    @property
    def wire(self) -> WireFormat:
        """The wire format this model speaks (what its bytes mean)."""
        return self._wire

    def request_body(self, prompt: Prompt, *, stream: bool = False) -> dict[str, Any]:
        """The JSON body this model would send for ``prompt``."""
        return self._wire.request_body(prompt, stream=stream)

    def options_for(self, prompt: Prompt) -> OptionsT:
        """The options a request for ``prompt`` is sent with (unset fields from the defaults)."""
        return self._context.options_for(prompt)

    def _make_client(self) -> httpx.AsyncClient:
        return make_client(self._timeout, self._limits, self._engine)

    def _post_arguments(self, prompt: Prompt, body: Mapping[str, Any], *, stream: bool) -> Any:
        arguments: dict[str, Any] = {
            "content": encode_body(body),
            "headers": self._request_headers(prompt, stream=stream),
            "timeout": self._timeout,
        }
        if self._params:  # an empty mapping still makes httpx re-parse the URL
            arguments["params"] = self._params
        return arguments

    # -- the drivers -------------------------------------------------------------------

    async def call(self, prompt: Prompt) -> ChatResponse:
        """Answer ``prompt`` in one response (retrying failures the policy allows).

        Raises:
            ModelTimeoutError: the whole reply did not arrive within ``call_deadline``.
            ModelError: the typed error of the last attempt.
        """
        body = self._wire.request_body(prompt, stream=False)
        arguments = self._post_arguments(prompt, body, stream=False)
        sent = itertools.count()

        def attempt() -> Awaitable[ChatResponse]:
            # A plain function handing back the attempt's coroutine: one frame less on the
            # await stack of every read of the reply.
            resend_count = next(sent)
            scopes = _MODEL_ATTEMPT_SCOPES.scopes
            if not scopes:
                return self._call_once(body, arguments, None)
            return self._scoped_call_once(scopes, resend_count, body, arguments)

        deadline = self._call_deadline
        if deadline is None:
            return await retry_call(attempt, self._retry)
        return await within(
            asyncio.get_running_loop().time() + deadline,
            retry_call(attempt, self._retry),
            lambda: self._bound_hit("call_deadline", deadline, "the whole reply did not arrive"),
        )

    async def _scoped_call_once(
        self,
        scopes: tuple[ModelAttemptScope, ...],
        resend_count: int,
        body: Mapping[str, Any],
        arguments: Mapping[str, Any],
    ) -> ChatResponse:
        with entered_model_attempt_scopes(scopes, self._attempt(resend_count, False)) as told:
            return await self._call_once(body, arguments, told)

    async def _call_once(
        self,
        body: Mapping[str, Any],
        arguments: Mapping[str, Any],
        told: ModelAttemptStatusReport | None,
    ) -> ChatResponse:
        client = self._clients.get()
        try:
            # Read as a stream, so that an oversized body is refused, not held.
            async with client.stream("POST", self._url, **arguments) as response:
                if told is not None:
                    told(response.status_code)
                if response.status_code >= 300:
                    raise await self._failure(response, body)
                content = await self._body(response)
        except httpx.RequestError as exc:
            raise self._transport_failure(exc) from exc
        try:
            return self._wire.reply(content, response.headers, body)
        except ErrorBody as exc:
            raise self._error_in_reply(exc.payload, response) from None

    def _attempt(self, resend_count: int, stream: bool) -> ModelAttempt:
        """What the model attempt scopes are told about one attempt."""
        return ModelAttempt(self._provider, "POST", mask_url(self._url), resend_count, stream)

    async def stream(self, prompt: Prompt) -> AsyncIterator[ChatResponse]:
        """Answer ``prompt`` as partial responses read as they arrive.

        Raises :class:`~ostinato.errors.StreamInterruptedError` when the stream breaks or
        ends without its last event after it started, the typed error of an error event,
        :class:`~ostinato.errors.ModelTimeoutError` when no partial response arrived
        within ``first_event_timeout``, and retries only failures that came before the
        first chunk.
        """
        body = self._wire.request_body(prompt, stream=True)
        arguments = self._post_arguments(prompt, body, stream=True)
        first_by = None
        if self._first_event_timeout is not None:
            first_by = asyncio.get_running_loop().time() + self._first_event_timeout
        sent = itertools.count()

        def attempt() -> AsyncGenerator[ChatResponse, None]:
            resend_count = next(sent)
            scopes = _MODEL_ATTEMPT_SCOPES.scopes
            if not scopes:
                return self._stream_once(body, arguments, first_by, None)
            return self._scoped_stream_once(scopes, resend_count, body, arguments, first_by)

        chunks = retry_stream(attempt, self._retry, provider=self._provider)
        async with aclosing(chunks):
            async for chunk in chunks:
                yield chunk

    async def _scoped_stream_once(
        self,
        scopes: tuple[ModelAttemptScope, ...],
        resend_count: int,
        body: Mapping[str, Any],
        arguments: Mapping[str, Any],
        first_by: float | None,
    ) -> AsyncGenerator[ChatResponse, None]:
        with entered_model_attempt_scopes(scopes, self._attempt(resend_count, True)) as told:
            async with aclosing(self._stream_once(body, arguments, first_by, told)) as chunks:
                async for chunk in chunks:
                    yield chunk

    async def _stream_once(
        self,
        body: Mapping[str, Any],
        arguments: Mapping[str, Any],
        first_by: float | None,
        told: ModelAttemptStatusReport | None,
    ) -> AsyncGenerator[ChatResponse, None]:
        client = self._clients.get()
        try:
            async with AsyncExitStack() as stack:
                exchange = client.stream("POST", self._url, **arguments)
                response = await self._before(first_by, stack.enter_async_context(exchange))
                if told is not None:
                    told(response.status_code)
                if response.status_code >= 300:
                    raise await self._failure(response, body)
                if self.stream_format is SSEFraming:
                    content_type = response.headers.get("content-type", "")
                    if "json" in content_type and "event-stream" not in content_type:
                        # A server that ignored "stream": the whole reply at once.
                        content = await self._before(first_by, self._body(response))
                        try:
                            yield self._wire.reply(content, response.headers, body)
                        except ErrorBody as exc:
                            raise self._error_in_reply(exc.payload, response) from None
                        return
                    if "html" in content_type:
                        # A proxy's or portal's page where the API should be.
                        page = await read_error_body(self._pieces(response))
                        raise self._malformed(
                            f"the reply from {self._url} is not an event stream but "
                            f"{content_type}: {excerpt(page, self._redactor)}"
                        )
                chunks = read_stream(
                    self._pieces(response),
                    parser=self._wire.stream_events(response.headers, body),
                    framing=self.stream_format(provider=self._provider, secret=self._redactor),
                    budget=self._budget(),
                    first=None if first_by is None else partial(self._before, first_by),
                    unfinished=lambda: StreamInterruptedError(
                        f"{self._provider}: the stream from {self._url} {self.stream_end}",
                        provider=self._provider,
                    ),
                )
                async with aclosing(chunks):
                    async for chunk in chunks:
                        yield chunk
        except httpx.RequestError as exc:
            raise self._transport_failure(exc) from exc
