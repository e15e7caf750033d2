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
from typing import Any, Final, NoReturn, Protocol

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
from ostinato_openai._chunks import ChunkParser
from ostinato_openai._clients import LoopClients
from ostinato_openai._completion import parse_completion
from ostinato_openai._errors import (
    REQUEST_ID_HEADERS,
    error_from_payload,
    error_from_response,
    error_from_transport,
)
from ostinato_openai._normalise import rate_limit
from ostinato_openai._options import OpenAIChatOptions
from ostinato_openai._request import build_request_body
from ostinato_openai._retry import RetryPolicy
from ostinato_openai._sse import SSEDecoder

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_LIMITS",
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


class _Secret(Protocol):
    def get_secret_value(self) -> str: ...


class _Failure(Exception):
    """Internal: an attempt failed with ``error``; ``headers`` may say whether to retry."""

    def __init__(self, error: ModelError, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.headers = headers or {}


def _secret_text(api_key: str | _Secret | None) -> str | None:
    if api_key is None or isinstance(api_key, str):
        return api_key or None
    return api_key.get_secret_value() or None


def _timeout(timeout: float | httpx.Timeout | None) -> httpx.Timeout:
    if timeout is None:
        return DEFAULT_TIMEOUT
    if isinstance(timeout, httpx.Timeout):
        return timeout
    return httpx.Timeout(timeout, connect=min(timeout, DEFAULT_TIMEOUT.connect or timeout))


def _raise(error: ModelError) -> NoReturn:
    raise error from error.__cause__


class OpenAIChatModel:
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
    """

    def __init__(
        self,
        *,
        model: str | None = None,
        default_options: OpenAIChatOptions | None = None,
        api_key: str | _Secret | None = None,
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
    ) -> None:
        options = default_options or OpenAIChatOptions()
        if model:
            options = options.copy(model=model)
        self._default_options = options
        self._api_key = _secret_text(api_key)
        self._base_url = base_url.rstrip("/")
        self._url = f"{self._base_url}/chat/completions"
        self._timeout = _timeout(timeout)
        self._retry = retry_policy or RetryPolicy()
        self._params = dict(extra_query or {})
        self._limits = limits or DEFAULT_LIMITS
        self._provider = provider
        headers = {"user-agent": _USER_AGENT, "content-type": "application/json"}
        if self._api_key:
            headers["authorization"] = f"Bearer {self._api_key}"
        if organization:
            headers["openai-organization"] = organization
        if project:
            headers["openai-project"] = project
        headers.update({k.lower(): v for k, v in (extra_headers or {}).items()})
        self._headers = headers
        self._clients = LoopClients(http_client_factory or self._make_client)

    def _make_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=self._timeout, limits=self._limits)

    def __repr__(self) -> str:
        return (
            f"OpenAIChatModel(model={self._default_options.model!r}, base_url={self._base_url!r})"
        )

    @property
    def default_options(self) -> OpenAIChatOptions:
        """The options requests start from."""
        return self._default_options

    @property
    def base_url(self) -> str:
        """The API root requests go to."""
        return self._base_url

    @property
    def retry_policy(self) -> RetryPolicy:
        """How failed requests are retried."""
        return self._retry

    def options_for(self, prompt: Prompt) -> OpenAIChatOptions:
        """The options a request for ``prompt`` is sent with (unset fields from the defaults)."""
        if prompt.options is None:
            return self._default_options
        return OpenAIChatOptions.from_options(prompt.options).filled_from(self._default_options)

    def request_body(self, prompt: Prompt, *, stream: bool = False) -> dict[str, Any]:
        """The JSON body this model would send for ``prompt``."""
        return build_request_body(prompt, self.options_for(prompt), stream=stream)

    # -- lifecycle ---------------------------------------------------------------------

    async def aclose(self) -> None:
        """Close every HTTP client this model made (it makes new ones if used again)."""
        await self._clients.aclose()

    async def __aenter__(self) -> OpenAIChatModel:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- requests ----------------------------------------------------------------------

    def _post_arguments(self, body: Mapping[str, Any], *, accept: str) -> dict[str, Any]:
        return {
            "content": json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode(),
            "headers": {**self._headers, "accept": accept},
            "params": self._params,
            "timeout": self._timeout,
        }

    def _metadata(self, response: httpx.Response) -> tuple[dict[str, Any], str | None]:
        headers = response.headers
        request_id = next((headers[h] for h in REQUEST_ID_HEADERS if h in headers), None)
        return rate_limit(headers), request_id

    def _parse(self, payload: Any, response: httpx.Response) -> ChatResponse:
        if isinstance(payload, Mapping) and payload.get("error") and "choices" not in payload:
            raise _Failure(
                error_from_payload(
                    payload,
                    status=None,
                    provider=self._provider,
                    headers=response.headers,
                    secret=self._api_key,
                ),
                response.headers,
            )
        limits, request_id = self._metadata(response)
        parsed = parse_completion(payload, provider=self._provider, rate_limit=limits)
        if request_id is None:
            return parsed
        meta = parsed.metadata
        return parsed.copy(metadata=meta.copy(metadata={**meta.metadata, "request_id": request_id}))

    async def _error(self, response: httpx.Response) -> _Failure:
        content = await response.aread()
        error = error_from_response(
            response.status_code,
            response.headers,
            content,
            provider=self._provider,
            secret=self._api_key,
        )
        return _Failure(error, response.headers)

    def _json(self, content: bytes) -> Any:
        try:
            return json.loads(content)
        except ValueError:
            raise _Failure(
                MalformedResponseError(
                    f"{self._provider}: the reply is not JSON: {content[:200]!r}",
                    provider=self._provider,
                )
            ) from None

    async def _call_once(self, body: Mapping[str, Any]) -> ChatResponse:
        client = self._clients.get()
        try:
            response = await client.post(
                self._url, **self._post_arguments(body, accept="application/json")
            )
        except httpx.RequestError as exc:
            raise _Failure(
                error_from_transport(exc, provider=self._provider, url=self._url)
            ) from exc
        if response.status_code >= 400:
            raise await self._error(response)
        return self._parse(self._json(response.content), response)

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
        arguments = self._post_arguments(body, accept="text/event-stream")
        try:
            async with client.stream("POST", self._url, **arguments) as response:
                if response.status_code >= 400:
                    raise await self._error(response)
                content_type = response.headers.get("content-type", "")
                if "json" in content_type and "event-stream" not in content_type:
                    # A server that ignored "stream": the whole completion at once.
                    yield self._parse(self._json(await response.aread()), response)
                    return
                limits, request_id = self._metadata(response)
                parser = ChunkParser(
                    provider=self._provider,
                    rate_limit=limits,
                    secret=self._api_key,
                    request_id=request_id,
                )
                decoder = SSEDecoder()
                async for piece in response.aiter_bytes():
                    for event in decoder.feed(piece):
                        chunk = parser.event(event)
                        if chunk is not None:
                            yield chunk
                        if parser.done:
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
                error_from_transport(exc, provider=self._provider, url=self._url)
            ) from exc
