"""``OpenAIChatModel``: the :class:`~ostinato.model.ChatModel` speaking Chat Completions.

It talks to OpenAI and to every server imitating it, over httpx only. It owns one
``httpx.AsyncClient`` per event loop (made by ``http_client_factory`` when given) and
closes them in :meth:`OpenAIChatModel.aclose`. Every request carries explicit timeouts.
Failures before any data reached the caller are retried by the :class:`RetryPolicy`;
a stream that has delivered a chunk is never retried. Streams are read under
``async with client.stream(...)``, so closing or cancelling the consumer closes the HTTP
response at once.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from contextlib import aclosing
from typing import Any, Final, NoReturn

import httpx

from ostinato.errors import (
    MalformedResponseError,
    ModelConnectionError,
    ModelError,
    ModelTimeoutError,
    StreamInterruptedError,
)
from ostinato.model import ChatResponse
from ostinato.prompt import Prompt
from ostinato.redaction import Redactor
from ostinato.transport import (
    DEFAULT_MAX_RESPONSE_BYTES,
    HttpChatModelBase,
    LoopClients,
    RetryPolicy,
    SecretLike,
    SSEDecoder,
    excerpt,
    header_api_key,
    header_value,
    read_body,
    read_error_body,
    split_userinfo,
)
from ostinato_openai._chunks import ChunkParser
from ostinato_openai._completion import parse_completion
from ostinato_openai._errors import (
    REQUEST_ID_HEADERS,
    error_from_payload,
    error_from_response,
    error_from_transport,
)
from ostinato_openai._normalise import RATE_LIMIT_HEADERS, rate_limit
from ostinato_openai._options import OpenAIChatOptions
from ostinato_openai._pool import use_linear_pool
from ostinato_openai._request import BodyTemplate, PayloadCache

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_LIMITS",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_TIMEOUT",
    "OpenAIChatModel",
]

#: OpenAI's API root; imitators are reached by changing it.
DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"
#: Models are slow: ten minutes per read, ten seconds to connect (httpx's 5 s is too short).
DEFAULT_TIMEOUT: Final = httpx.Timeout(600.0, connect=10.0)
#: Sized for hundreds of concurrent conversations (httpx's default is 100 connections).
DEFAULT_LIMITS: Final = httpx.Limits(
    max_connections=1000, max_keepalive_connections=200, keepalive_expiry=30.0
)
_USER_AGENT: Final = "ostinato-openai/0.1.0"
#: How many options objects a model remembers what it derived from (see ``_Prepared``).
_PREPARED_CACHE_SIZE: Final = 64


_METADATA_HEADERS: Final = frozenset((*REQUEST_ID_HEADERS, *RATE_LIMIT_HEADERS))


class _Failure(Exception):
    """Internal: an attempt failed with ``error``; ``headers`` may say whether to retry."""

    def __init__(self, error: ModelError, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.headers = headers or {}


def _timeout(timeout: float | httpx.Timeout | None) -> httpx.Timeout:
    if timeout is None:
        return DEFAULT_TIMEOUT
    if isinstance(timeout, httpx.Timeout):
        return timeout
    return httpx.Timeout(timeout, connect=min(timeout, DEFAULT_TIMEOUT.connect or timeout))


def _raise(error: ModelError) -> NoReturn:
    raise error from error.__cause__


class _Prepared:
    """What a model derives from one options object: the options it sends (unset fields
    filled from its defaults) and the body templates. Options are immutable, so this is
    computed once per options object — a tool loop sends the same options every round."""

    __slots__ = ("options", "sent", "templates")

    def __init__(self, options: object, sent: OpenAIChatOptions) -> None:
        self.options = options  # keeps the key's object alive, so its id stays unique
        self.sent = sent
        self.templates: dict[bool, BodyTemplate] = {}

    def template(self, stream: bool) -> BodyTemplate:
        template = self.templates.get(stream)
        if template is None:
            template = self.templates[stream] = BodyTemplate(self.sent, stream=stream)
        return template


class OpenAIChatModel(HttpChatModelBase[OpenAIChatOptions]):
    """A chat model behind a Chat Completions endpoint (OpenAI or an imitator).

    Args:
        model: the default model name (shortcut for ``default_options.model``).
        default_options: the options every request starts from.
        api_key: sent as ``Authorization: Bearer``; optional for local servers.
        base_url: the API root, e.g. ``http://localhost:11434/v1`` for Ollama.
        organization, project: OpenAI's ``OpenAI-Organization`` / ``OpenAI-Project``.
        timeout: seconds, or an ``httpx.Timeout``; applied to every request, also on
            clients from ``http_client_factory``.
        retry_policy: backoff and bounds of retries (``RetryPolicy(max_retries=0)`` for
            none).
        extra_headers: headers added to every request.
        extra_query: query parameters added to every request (Azure's ``api-version``).
        limits: the pool limits of clients this model makes itself.
        http_client_factory: makes the ``httpx.AsyncClient`` for each event loop (tests
            pass one built on ``httpx.MockTransport``); the model closes what it made.
        provider: the name errors carry (``"openai"``).
        max_response_bytes: the most bytes one reply may carry (a call's body or a whole
            stream); a longer one fails with
            :class:`~ostinato.errors.MalformedResponseError` (default 64 MiB).

    Raises:
        ConfigurationError: the API key holds a character an HTTP header cannot carry
            (the message does not show the key), or ``max_response_bytes`` is not positive.
    """

    def __init__(
        self,
        *,
        model: str | None = None,
        default_options: OpenAIChatOptions | None = None,
        api_key: str | SecretLike | None = None,
        base_url: str = DEFAULT_BASE_URL,
        organization: str | None = None,
        project: str | None = None,
        timeout: float | httpx.Timeout | None = None,
        retry_policy: RetryPolicy | None = None,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, str] | None = None,
        limits: httpx.Limits | None = None,
        http_client_factory: Callable[[], httpx.AsyncClient] | None = None,
        provider: str = "openai",
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    ) -> None:
        options = default_options or OpenAIChatOptions()
        if model:
            options = options.copy(model=model)
        self._api_key = header_api_key(api_key, provider=provider)
        root, userinfo = split_userinfo(base_url.rstrip("/"))
        self._timeout = _timeout(timeout)
        self._params = dict(extra_query or {})
        self._limits = limits or DEFAULT_LIMITS
        headers = {"user-agent": _USER_AGENT, "content-type": "application/json"}
        if self._api_key:
            headers["authorization"] = f"Bearer {self._api_key}"
        if organization:
            headers["openai-organization"] = organization
        if project:
            headers["openai-project"] = project
        headers.update(
            {
                k.lower(): header_value(v, what=f"the {provider} extra header {k!r}")
                for k, v in (extra_headers or {}).items()
            }
        )
        if userinfo:  # as httpx would send it, but out of the URL it logs
            headers["authorization"] = userinfo
        self._headers = headers
        # Built once: httpx copies them into each request anyway.
        self._call_headers = {**headers, "accept": "application/json"}
        self._stream_headers = {**headers, "accept": "text/event-stream"}
        self._prepared: dict[int, _Prepared] = {}
        self._payloads = PayloadCache()
        self._init_transport(
            default_options=options,
            base_url=root,
            url=f"{root}/chat/completions",
            provider=provider,
            retry_policy=retry_policy,
            max_response_bytes=max_response_bytes,
            clients=LoopClients(http_client_factory or self._make_client, httpx.AsyncClient),
            redactor=Redactor.for_request(
                api_key=self._api_key, headers=headers, url=base_url, params=self._params
            ),
        )

    def _make_client(self) -> httpx.AsyncClient:
        transport = httpx.AsyncHTTPTransport(limits=self._limits, trust_env=True)
        use_linear_pool(transport)  # httpcore's own pool is O(n²) per request in n connections
        return httpx.AsyncClient(timeout=self._timeout, limits=self._limits, transport=transport)

    def _prepare(self, prompt: Prompt) -> _Prepared:
        options = prompt.options
        key = id(options)
        prepared = self._prepared.get(key)
        if prepared is not None and prepared.options is options:
            return prepared
        if options is None:
            sent = self._default_options
        else:
            sent = OpenAIChatOptions.from_options(options).filled_from(self._default_options)
        prepared = _Prepared(options, sent)
        cache = self._prepared
        if len(cache) >= _PREPARED_CACHE_SIZE:
            cache.clear()  # bounded: a long-lived model must not keep every options object
        cache[key] = prepared
        return prepared

    def options_for(self, prompt: Prompt) -> OpenAIChatOptions:
        """The options a request for ``prompt`` is sent with (unset fields from the defaults)."""
        return self._prepare(prompt).sent

    def request_body(self, prompt: Prompt, *, stream: bool = False) -> dict[str, Any]:
        """The JSON body this model would send for ``prompt``."""
        return self._prepare(prompt).template(stream).body(prompt.messages, self._payloads)

    # -- requests ----------------------------------------------------------------------

    def _post_arguments(self, body: Mapping[str, Any], *, stream: bool) -> dict[str, Any]:
        try:
            content = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
        except UnicodeEncodeError:
            # A lone surrogate (a tool echoed "\ud800" from its JSON arguments) has no
            # UTF-8 form; escaped, it is valid JSON.
            content = json.dumps(body, separators=(",", ":")).encode()
        arguments = {
            "content": content,
            "headers": self._stream_headers if stream else self._call_headers,
            "timeout": self._timeout,
        }
        if self._params:  # an empty mapping still makes httpx re-parse the URL
            arguments["params"] = self._params
        return arguments

    def _metadata(self, response: httpx.Response) -> tuple[dict[str, Any], str | None]:
        # One pass over the headers: each httpx ``headers.get`` scans them all.
        wanted: dict[str, str] = {}
        for key, value in response.headers.multi_items():
            if key in _METADATA_HEADERS:
                # Repeated headers join with commas, as ``headers[key]`` does.
                wanted[key] = f"{wanted[key]}, {value}" if key in wanted else value
        if not wanted:
            return {}, None
        request_id = next((wanted[h] for h in REQUEST_ID_HEADERS if h in wanted), None)
        return rate_limit(wanted), request_id

    def _parse(self, payload: Any, response: httpx.Response) -> ChatResponse:
        if isinstance(payload, Mapping) and payload.get("error") and "choices" not in payload:
            raise _Failure(
                error_from_payload(
                    payload,
                    status=None,
                    provider=self._provider,
                    headers=response.headers,
                    secret=self._redactor,
                ),
                response.headers,
            )
        limits, request_id = self._metadata(response)
        parsed = parse_completion(payload, provider=self._provider, rate_limit=limits)
        if not parsed.generations:
            raise self._no_answer(f": {excerpt(json.dumps(payload), self._redactor)}")
        if request_id is None:
            return parsed
        meta = parsed.metadata
        return parsed.copy(metadata=meta.copy(metadata={**meta.metadata, "request_id": request_id}))

    def _no_answer(self, detail: str = "") -> _Failure:
        """An empty reply: reported, never taken for an answer of no words."""
        return _Failure(
            MalformedResponseError(
                f"{self._provider}: the reply from {self._url} holds no answer (no choice){detail}",
                provider=self._provider,
            )
        )

    async def _error(self, response: httpx.Response) -> _Failure:
        content = await read_error_body(response.aiter_bytes())
        error = error_from_response(
            response.status_code,
            response.headers,
            content,
            provider=self._provider,
            secret=self._redactor,
        )
        return _Failure(error, response.headers)

    def _json(self, content: bytes) -> Any:
        try:
            return json.loads(content)
        except ValueError:
            pass
        # Raised outside the except block: the decoding error (which holds the whole
        # body, key echoes included) does not ride along as the error's context.
        raise _Failure(
            MalformedResponseError(
                f"{self._provider}: the reply is not JSON: {excerpt(content, self._redactor)}",
                provider=self._provider,
            )
        )

    async def _call_once(self, body: Mapping[str, Any]) -> ChatResponse:
        client = self._clients.get()
        try:
            # Read as a stream, so that an oversized body is refused, not held.
            async with client.stream(
                "POST", self._url, **self._post_arguments(body, stream=False)
            ) as response:
                if response.status_code >= 400:
                    raise await self._error(response)
                content = await read_body(
                    response.aiter_bytes(),
                    self._budget(),
                    response.headers.get("content-length"),
                )
        except httpx.RequestError as exc:
            raise _Failure(
                error_from_transport(
                    exc, provider=self._provider, url=self._url, secret=self._redactor
                )
            ) from exc
        return self._parse(self._json(content), response)

    async def call(self, prompt: Prompt) -> ChatResponse:
        """Answer ``prompt`` in one response (retrying failures the policy allows)."""
        body = self.request_body(prompt, stream=False)
        state = self._retry.start()
        while True:
            try:
                return await self._call_once(body)
            except _Failure as failure:
                delay = state.next_delay(failure.error, failure.headers)
                if delay is None:
                    _raise(failure.error)
            await state.wait(delay)

    async def stream(self, prompt: Prompt) -> AsyncIterator[ChatResponse]:
        """Answer ``prompt`` as partial responses read from server-sent events.

        Raises :class:`~ostinato.errors.StreamInterruptedError` when the stream breaks or
        ends without ``[DONE]`` after it started, the typed error of an error event, and
        retries only failures that came before the first chunk.
        """
        body = self.request_body(prompt, stream=True)
        state = self._retry.start()
        while True:
            delivered = False
            try:
                async with aclosing(self._stream_once(body)) as chunks:
                    async for chunk in chunks:
                        delivered = True
                        yield chunk
                return
            except _Failure as failure:
                error, headers = failure.error, failure.headers
            except ModelError as exc:
                error, headers = exc, {}
            if delivered:
                if not isinstance(error, ModelConnectionError | ModelTimeoutError):
                    _raise(error)
                interrupted = StreamInterruptedError(
                    f"{self._provider}: the stream broke after it had started ({error})",
                    provider=self._provider,
                )
                interrupted.__cause__ = error.__cause__ or error
                _raise(interrupted)
            delay = state.next_delay(error, headers)
            if delay is None:
                _raise(error)
            await state.wait(delay)

    async def _stream_once(self, body: Mapping[str, Any]) -> AsyncGenerator[ChatResponse, None]:
        client = self._clients.get()
        arguments = self._post_arguments(body, stream=True)
        try:
            async with client.stream("POST", self._url, **arguments) as response:
                if response.status_code >= 400:
                    raise await self._error(response)
                content_type = response.headers.get("content-type", "")
                if "json" in content_type and "event-stream" not in content_type:
                    # A server that ignored "stream": the whole completion at once.
                    content = await read_body(
                        response.aiter_bytes(),
                        self._budget(),
                        response.headers.get("content-length"),
                    )
                    yield self._parse(self._json(content), response)
                    return
                if "html" in content_type:
                    # A proxy's or portal's page where the API should be.
                    page = await read_error_body(response.aiter_bytes())
                    raise _Failure(
                        MalformedResponseError(
                            f"{self._provider}: the reply from {self._url} is not an event "
                            f"stream but {content_type}: {excerpt(page, self._redactor)}",
                            provider=self._provider,
                        )
                    )
                limits, request_id = self._metadata(response)
                parser = ChunkParser(
                    provider=self._provider,
                    rate_limit=limits,
                    secret=self._redactor,
                    request_id=request_id,
                )
                decoder = SSEDecoder()
                budget = self._budget()
                answered = False
                async for piece in response.aiter_bytes():
                    for event in decoder.feed(budget.add(piece)):
                        chunk = parser.event(event)
                        if chunk is not None:
                            answered = answered or bool(chunk.generations)
                            yield chunk
                        if parser.done:
                            if not answered:
                                raise self._no_answer(": the stream ended before any choice")
                            return
                for event in decoder.close():
                    try:
                        chunk = parser.event(event)
                    except MalformedResponseError:
                        break  # a truncated last event
                    if chunk is not None:
                        yield chunk
                if not parser.done:
                    raise StreamInterruptedError(
                        f"{self._provider}: the stream from {self._url} ended without [DONE]",
                        provider=self._provider,
                    )
        except httpx.RequestError as exc:
            raise _Failure(
                error_from_transport(
                    exc, provider=self._provider, url=self._url, secret=self._redactor
                )
            ) from exc
