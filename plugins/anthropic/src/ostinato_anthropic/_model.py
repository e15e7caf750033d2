"""``AnthropicChatModel``: the :class:`~ostinato.model.ChatModel` speaking the Messages API.

It talks to ``POST <base>/v1/messages`` over httpx only. It owns one
``httpx.AsyncClient`` per event loop (made by ``http_client_factory`` when given) and
closes them in :meth:`AnthropicChatModel.aclose`. Every request carries explicit
timeouts. Failures before any data reached the caller are retried by the
:class:`~ostinato.transport.RetryPolicy` (``x-should-retry`` and ``retry-after``
honoured); a stream that has delivered a chunk is never retried. Streams are read under
``async with client.stream(...)``, so closing or cancelling the consumer closes the HTTP
response at once.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Mapping
from contextlib import aclosing
from typing import Any, Final

import httpx

from ostinato.errors import MalformedResponseError, StreamInterruptedError
from ostinato.model import ChatResponse
from ostinato.prompt import Prompt
from ostinato.redaction import Redactor
from ostinato.transport import (
    DEFAULT_MAX_RESPONSE_BYTES,
    AttemptFailed,
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
    retry_call,
    retry_stream,
    split_userinfo,
)
from ostinato_anthropic._errors import (
    error_from_payload,
    error_from_response,
    error_from_transport,
)
from ostinato_anthropic._events import EventParser
from ostinato_anthropic._normalise import rate_limit, request_id
from ostinato_anthropic._options import AnthropicChatOptions
from ostinato_anthropic._reply import parse_message
from ostinato_anthropic._request import build_request_body
from ostinato_anthropic._settings import DEFAULT_API_VERSION, DEFAULT_BASE_URL

__all__ = ["DEFAULT_LIMITS", "DEFAULT_TIMEOUT", "AnthropicChatModel"]

#: Models are slow: ten minutes per read, ten seconds to connect (httpx's 5 s is too short).
DEFAULT_TIMEOUT: Final = httpx.Timeout(600.0, connect=10.0)
#: Sized for hundreds of concurrent conversations (httpx's default is 100 connections).
DEFAULT_LIMITS: Final = httpx.Limits(
    max_connections=1000, max_keepalive_connections=200, keepalive_expiry=30.0
)
_USER_AGENT: Final = "ostinato-anthropic/0.1.0"


def _timeout(timeout: float | httpx.Timeout | None) -> httpx.Timeout:
    if timeout is None:
        return DEFAULT_TIMEOUT
    if isinstance(timeout, httpx.Timeout):
        return timeout
    return httpx.Timeout(timeout, connect=min(timeout, DEFAULT_TIMEOUT.connect or timeout))


class AnthropicChatModel(HttpChatModelBase[AnthropicChatOptions]):
    """A Claude model behind the Messages API.

    Args:
        model: the default model name (shortcut for ``default_options.model``).
        default_options: the options every request starts from.
        api_key: sent as ``x-api-key``.
        base_url: the API root (``https://api.anthropic.com``; a trailing ``/v1`` is
            allowed); requests go to ``<base>/v1/messages``.
        api_version: the ``anthropic-version`` header.
        betas: beta features for the ``anthropic-beta`` header of every request (a
            request's ``AnthropicChatOptions.betas`` are added).
        timeout: seconds, or an ``httpx.Timeout``; applied to every request, also on
            clients from ``http_client_factory``.
        retry_policy: backoff and bounds of retries (``RetryPolicy(max_retries=0)`` for
            none).
        extra_headers: headers added to every request.
        extra_query: query parameters added to every request.
        limits: the pool limits of clients this model makes itself.
        http_client_factory: makes the ``httpx.AsyncClient`` for each event loop (tests
            pass one built on ``httpx.MockTransport``); the model closes what it made.
        provider: the name errors carry (``"anthropic"``).
        max_response_bytes: the most bytes one reply may carry (a call's body or a whole
            stream, 64 MiB by default); past it reading stops with
            :class:`~ostinato.errors.MalformedResponseError`.
    """

    def __init__(
        self,
        *,
        model: str | None = None,
        default_options: AnthropicChatOptions | None = None,
        api_key: str | SecretLike | None = None,
        base_url: str = DEFAULT_BASE_URL,
        api_version: str = DEFAULT_API_VERSION,
        betas: Iterable[str] = (),
        timeout: float | httpx.Timeout | None = None,
        retry_policy: RetryPolicy | None = None,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, str] | None = None,
        limits: httpx.Limits | None = None,
        http_client_factory: Callable[[], httpx.AsyncClient] | None = None,
        provider: str = "anthropic",
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    ) -> None:
        options = default_options or AnthropicChatOptions()
        if model:
            options = options.copy(model=model)
        self._api_key = header_api_key(api_key, provider=provider)
        root, userinfo = split_userinfo(base_url.rstrip("/").removesuffix("/v1"))
        self._timeout = _timeout(timeout)
        self._params = dict(extra_query or {})
        self._limits = limits or DEFAULT_LIMITS
        self._betas = tuple(betas)
        headers = {
            "user-agent": _USER_AGENT,
            "content-type": "application/json",
            "anthropic-version": api_version,
        }
        if self._api_key:
            headers["x-api-key"] = self._api_key
        headers.update(
            {
                k.lower(): header_value(v, what=f"the {provider} extra header {k!r}")
                for k, v in (extra_headers or {}).items()
            }
        )
        if userinfo:  # as httpx would send it, but out of the URL it logs
            headers["authorization"] = userinfo
        self._headers = headers
        self._init_transport(
            default_options=options,
            base_url=root,
            url=f"{root}/v1/messages",
            provider=provider,
            retry_policy=retry_policy,
            max_response_bytes=max_response_bytes,
            clients=LoopClients(http_client_factory or self._make_client, httpx.AsyncClient),
            redactor=Redactor.for_request(
                api_key=self._api_key, headers=headers, url=base_url, params=self._params
            ),
        )

    def _make_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=self._timeout, limits=self._limits)

    def options_for(self, prompt: Prompt) -> AnthropicChatOptions:
        """The options a request for ``prompt`` is sent with (unset fields from the defaults)."""
        if prompt.options is None:
            return self._default_options
        return AnthropicChatOptions.from_options(prompt.options).filled_from(self._default_options)

    def request_body(self, prompt: Prompt, *, stream: bool = False) -> dict[str, Any]:
        """The JSON body this model would send for ``prompt``."""
        return build_request_body(prompt, self.options_for(prompt), stream=stream)

    # -- requests ----------------------------------------------------------------------

    def _post_arguments(self, prompt: Prompt, *, stream: bool) -> dict[str, Any]:
        options = self.options_for(prompt)
        body = build_request_body(prompt, options, stream=stream)
        headers = {**self._headers, "accept": "text/event-stream" if stream else "application/json"}
        betas = list(dict.fromkeys((*self._betas, *(options.betas or ()))))
        if betas:
            headers["anthropic-beta"] = ",".join(betas)
        return {
            "content": json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode(),
            "headers": headers,
            "params": self._params,
            "timeout": self._timeout,
        }

    def _parse(self, content: bytes, response: httpx.Response) -> ChatResponse:
        try:
            payload = json.loads(content)
        except ValueError:
            raise MalformedResponseError(
                f"{self._provider}: the reply is not JSON: {excerpt(content, self._redactor)}",
                provider=self._provider,
            ) from None
        if isinstance(payload, Mapping) and payload.get("type") == "error":
            # An error body sent with a 2xx status (some gateways do).
            raise AttemptFailed(
                error_from_payload(
                    payload,
                    status=None,
                    provider=self._provider,
                    headers=response.headers,
                    secret=self._redactor,
                ),
                response.headers,
            )
        return parse_message(
            payload,
            provider=self._provider,
            rate_limit=rate_limit(response.headers),
            request_id=request_id(response.headers),
        )

    async def _body(self, response: httpx.Response) -> bytes:
        length = response.headers.get("content-length")
        return await read_body(response.aiter_bytes(), self._budget(), length)

    async def _failure(self, response: httpx.Response) -> AttemptFailed:
        content = await read_error_body(response.aiter_bytes())
        error = error_from_response(
            response.status_code,
            response.headers,
            content,
            provider=self._provider,
            secret=self._redactor,
        )
        return AttemptFailed(error, response.headers)

    def _transport_failure(self, exc: httpx.RequestError) -> AttemptFailed:
        return AttemptFailed(
            error_from_transport(exc, provider=self._provider, url=self._url, secret=self._redactor)
        )

    async def call(self, prompt: Prompt) -> ChatResponse:
        """Answer ``prompt`` in one response (retrying failures the policy allows)."""
        arguments = self._post_arguments(prompt, stream=False)

        async def attempt() -> ChatResponse:
            client = self._clients.get()
            try:
                # Read as a stream, so that an oversized body is refused, not held.
                async with client.stream("POST", self._url, **arguments) as response:
                    if response.status_code >= 400:
                        raise await self._failure(response)
                    content = await self._body(response)
            except httpx.RequestError as exc:
                raise self._transport_failure(exc) from exc
            return self._parse(content, response)

        return await retry_call(attempt, self._retry)

    async def stream(self, prompt: Prompt) -> AsyncIterator[ChatResponse]:
        """Answer ``prompt`` as partial responses read from server-sent events.

        Raises :class:`~ostinato.errors.StreamInterruptedError` when the stream breaks or
        ends without ``message_stop`` after it started, the typed error of an ``error``
        event, and retries only failures that came before the first chunk.
        """
        arguments = self._post_arguments(prompt, stream=True)
        chunks = retry_stream(
            lambda: self._stream_once(arguments), self._retry, provider=self._provider
        )
        async with aclosing(chunks):
            async for chunk in chunks:
                yield chunk

    async def _stream_once(
        self, arguments: Mapping[str, Any]
    ) -> AsyncGenerator[ChatResponse, None]:
        client = self._clients.get()
        try:
            async with client.stream("POST", self._url, **arguments) as response:
                if response.status_code >= 400:
                    raise await self._failure(response)
                content_type = response.headers.get("content-type", "")
                if "json" in content_type and "event-stream" not in content_type:
                    # A server that ignored "stream": the whole message at once.
                    yield self._parse(await self._body(response), response)
                    return
                parser = EventParser(
                    provider=self._provider,
                    rate_limit=rate_limit(response.headers),
                    secret=self._redactor,
                    request_id=request_id(response.headers),
                )
                decoder = SSEDecoder()
                budget = self._budget()
                async for piece in response.aiter_bytes():
                    for event in decoder.feed(budget.add(piece)):
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
                        f"{self._provider}: the stream from {self._url} ended without message_stop",
                        provider=self._provider,
                    )
        except httpx.RequestError as exc:
            raise self._transport_failure(exc) from exc
