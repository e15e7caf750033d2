"""``OllamaChatModel``: the :class:`~ostinato.model.ChatModel` speaking Ollama's native chat API.

It talks to ``POST <base>/api/chat`` over httpx only, a local server or ollama.com. It
owns one ``httpx.AsyncClient`` per event loop (made by ``http_client_factory`` when
given) and closes them in :meth:`OllamaChatModel.aclose`. Streams are NDJSON whatever
the content type says (ollama.com labels them ``application/json``); a call reads its
reply through the same parser, so a server that streams anyway is understood too.
Failures before any data reached the caller are retried by the
:class:`~ostinato.transport.RetryPolicy`; a stream that has delivered a chunk is never
retried. Streams are read under ``async with client.stream(...)``, so closing or
cancelling the consumer closes the HTTP response at once.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from contextlib import aclosing
from typing import Any, Final

import httpx

from ostinato.errors import MalformedResponseError, StreamInterruptedError
from ostinato.model import ChatResponse, MessageAggregator
from ostinato.prompt import Prompt
from ostinato.redaction import Redactor
from ostinato.transport import (
    DEFAULT_MAX_RESPONSE_BYTES,
    AttemptFailed,
    HttpChatModelBase,
    LoopClients,
    NDJSONDecoder,
    NDJSONError,
    RetryPolicy,
    SecretLike,
    excerpt,
    header_api_key,
    header_value,
    read_body,
    read_error_body,
    retry_call,
    retry_stream,
    split_userinfo,
)
from ostinato_ollama._errors import error_from_response, error_from_transport
from ostinato_ollama._options import OllamaChatOptions
from ostinato_ollama._reply import ReplyParser
from ostinato_ollama._request import build_request_body
from ostinato_ollama._settings import DEFAULT_BASE_URL

__all__ = ["DEFAULT_LIMITS", "DEFAULT_TIMEOUT", "OllamaChatModel"]

#: Loading a model can take minutes: ten minutes per read, ten seconds to connect.
DEFAULT_TIMEOUT: Final = httpx.Timeout(600.0, connect=10.0)
#: Sized for hundreds of concurrent conversations (httpx's default is 100 connections).
DEFAULT_LIMITS: Final = httpx.Limits(
    max_connections=1000, max_keepalive_connections=200, keepalive_expiry=30.0
)
_USER_AGENT: Final = "ostinato-ollama/0.1.0"


def _timeout(timeout: float | httpx.Timeout | None) -> httpx.Timeout:
    if timeout is None:
        return DEFAULT_TIMEOUT
    if isinstance(timeout, httpx.Timeout):
        return timeout
    return httpx.Timeout(timeout, connect=min(timeout, DEFAULT_TIMEOUT.connect or timeout))


class OllamaChatModel(HttpChatModelBase[OllamaChatOptions]):
    """A model served by Ollama, through its native ``/api/chat``.

    Args:
        model: the default model name (shortcut for ``default_options.model``).
        default_options: the options every request starts from.
        base_url: the server's root (``http://localhost:11434``, ``https://ollama.com``);
            requests go to ``<base>/api/chat``.
        api_key: sent as ``Authorization: Bearer`` (ollama.com); a local server needs none.
        timeout: seconds, or an ``httpx.Timeout``; applied to every request, also on
            clients from ``http_client_factory``.
        retry_policy: backoff and bounds of retries (``RetryPolicy(max_retries=0)`` for
            none).
        extra_headers: headers added to every request.
        limits: the pool limits of clients this model makes itself.
        http_client_factory: makes the ``httpx.AsyncClient`` for each event loop (tests
            pass one built on ``httpx.MockTransport``); the model closes what it made.
        provider: the name errors carry (``"ollama"``).
        max_response_bytes: the most bytes one reply may carry (a call's body or a whole
            stream, 64 MiB by default); past it reading stops with
            :class:`~ostinato.errors.MalformedResponseError`.
    """

    def __init__(
        self,
        *,
        model: str | None = None,
        default_options: OllamaChatOptions | None = None,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | SecretLike | None = None,
        timeout: float | httpx.Timeout | None = None,
        retry_policy: RetryPolicy | None = None,
        extra_headers: Mapping[str, str] | None = None,
        limits: httpx.Limits | None = None,
        http_client_factory: Callable[[], httpx.AsyncClient] | None = None,
        provider: str = "ollama",
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    ) -> None:
        options = default_options or OllamaChatOptions()
        if model:
            options = options.copy(model=model)
        self._api_key = header_api_key(api_key, provider=provider)
        root, userinfo = split_userinfo(base_url.rstrip("/"))
        self._timeout = _timeout(timeout)
        self._limits = limits or DEFAULT_LIMITS
        headers = {"user-agent": _USER_AGENT, "content-type": "application/json"}
        if self._api_key:
            headers["authorization"] = f"Bearer {self._api_key}"
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
            url=f"{root}/api/chat",
            provider=provider,
            retry_policy=retry_policy,
            max_response_bytes=max_response_bytes,
            clients=LoopClients(http_client_factory or self._make_client, httpx.AsyncClient),
            redactor=Redactor.for_request(
                api_key=self._api_key, headers=headers, url=base_url, params=None
            ),
        )

    def _make_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=self._timeout, limits=self._limits)

    def options_for(self, prompt: Prompt) -> OllamaChatOptions:
        """The options a request for ``prompt`` is sent with (unset fields from the defaults)."""
        if prompt.options is None:
            return self._default_options
        return OllamaChatOptions.from_options(prompt.options).filled_from(self._default_options)

    def request_body(self, prompt: Prompt, *, stream: bool = False) -> dict[str, Any]:
        """The JSON body this model would send for ``prompt``."""
        return build_request_body(prompt, self.options_for(prompt), stream=stream)

    # -- requests ----------------------------------------------------------------------

    def _post_arguments(self, body: Mapping[str, Any], *, stream: bool) -> dict[str, Any]:
        accept = "application/x-ndjson" if stream else "application/json"
        return {
            "content": json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode(),
            "headers": {**self._headers, "accept": accept},
            "timeout": self._timeout,
        }

    def _parser(self, body: Mapping[str, Any]) -> ReplyParser:
        return ReplyParser(provider=self._provider, model=body.get("model"), secret=self._redactor)

    async def _failure(self, response: httpx.Response, body: Mapping[str, Any]) -> AttemptFailed:
        content = await read_error_body(response.aiter_bytes())
        error = error_from_response(
            response.status_code,
            response.headers,
            content,
            provider=self._provider,
            secret=self._redactor,
            model=body.get("model"),
        )
        return AttemptFailed(error, response.headers)

    def _transport_failure(self, exc: httpx.RequestError) -> AttemptFailed:
        return AttemptFailed(
            error_from_transport(exc, provider=self._provider, url=self._url, secret=self._redactor)
        )

    def _malformed(self, what: str) -> MalformedResponseError:
        return MalformedResponseError(f"{self._provider}: {what}", provider=self._provider)

    async def call(self, prompt: Prompt) -> ChatResponse:
        """Answer ``prompt`` in one response (retrying failures the policy allows)."""
        body = self.request_body(prompt, stream=False)
        arguments = self._post_arguments(body, stream=False)

        async def attempt() -> ChatResponse:
            client = self._clients.get()
            try:
                # Read as a stream, so that an oversized body is refused, not held.
                async with client.stream("POST", self._url, **arguments) as response:
                    if response.status_code >= 400:
                        raise await self._failure(response, body)
                    length = response.headers.get("content-length")
                    content = await read_body(response.aiter_bytes(), self._budget(), length)
            except httpx.RequestError as exc:
                raise self._transport_failure(exc) from exc
            parser = self._parser(body)
            aggregator = MessageAggregator()
            decoder = NDJSONDecoder()
            try:
                for obj in decoder.feed(content) + decoder.close():
                    chunk = parser.reply(obj)
                    if chunk is not None:
                        aggregator.add(chunk)
            except NDJSONError as exc:
                raise self._malformed(
                    f"the reply is not JSON: {excerpt(exc.line, self._redactor)}"
                ) from None
            if not parser.done:
                raise self._malformed("the reply ended before its final object (done: true)")
            return aggregator.result()

        return await retry_call(attempt, self._retry)

    async def stream(self, prompt: Prompt) -> AsyncIterator[ChatResponse]:
        """Answer ``prompt`` as partial responses read from NDJSON lines.

        Raises :class:`~ostinato.errors.StreamInterruptedError` when the stream breaks or
        ends without its final object after it started, the typed error of an error line,
        and retries only failures that came before the first chunk.
        """
        body = self.request_body(prompt, stream=True)
        arguments = self._post_arguments(body, stream=True)
        chunks = retry_stream(
            lambda: self._stream_once(body, arguments), self._retry, provider=self._provider
        )
        async with aclosing(chunks):
            async for chunk in chunks:
                yield chunk

    async def _stream_once(
        self, body: Mapping[str, Any], arguments: Mapping[str, Any]
    ) -> AsyncGenerator[ChatResponse, None]:
        client = self._clients.get()
        try:
            async with client.stream("POST", self._url, **arguments) as response:
                if response.status_code >= 400:
                    raise await self._failure(response, body)
                parser = self._parser(body)
                decoder = NDJSONDecoder()
                budget = self._budget()
                async for piece in response.aiter_bytes():
                    try:
                        objs = decoder.feed(budget.add(piece))
                    except NDJSONError as exc:
                        raise self._malformed(
                            f"a stream line is not JSON: {excerpt(exc.line, self._redactor)}"
                        ) from None
                    for obj in objs:
                        chunk = parser.reply(obj)
                        if chunk is not None:
                            yield chunk
                        if parser.done:
                            return
                try:
                    tail = decoder.close()
                except NDJSONError:
                    tail = []  # a truncated last line
                for obj in tail:
                    chunk = parser.reply(obj)
                    if chunk is not None:
                        yield chunk
                if not parser.done:
                    raise StreamInterruptedError(
                        f"{self._provider}: the stream from {self._url} ended before its final "
                        "object (done: true)",
                        provider=self._provider,
                    )
        except httpx.RequestError as exc:
            raise self._transport_failure(exc) from exc
