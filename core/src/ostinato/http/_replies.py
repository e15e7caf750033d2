"""Reading a reply's body and naming what went wrong, for :class:`~ostinato.http.HttpxChatModel`.

The half of the base that turns bodies, statuses and network failures into typed
errors: a compressed body undone in bounded pieces, a 3xx refused, a 4xx or 5xx read
with the wire format's ``error``, a network failure, a reply that is not JSON, a bound
that was hit. Each failure carries the headers that say whether to retry.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Mapping
from typing import Any, ClassVar, Final, TypeVar

import httpx

from ostinato.errors import MalformedResponseError, ModelError, ModelTimeoutError
from ostinato.http._error_report import model_error
from ostinato.http._model_base import HttpChatModelBase
from ostinato.http._wire_format import WireFormat
from ostinato.prompt import ChatOptions
from ostinato.transport import (
    AttemptFailed,
    can_decompress,
    decompressed,
    error_from_transport,
    error_payload,
    read_body,
    read_error_body,
    reason_phrase,
    redirect_error,
)
from ostinato.transport._bounds import bound_hit, within

__all__ = ["FINAL", "ReplyHandling"]

OptionsT = TypeVar("OptionsT", bound=ChatOptions)
T = TypeVar("T")

#: Headers of a failure the retry policy must not retry (a bound the user set was hit).
FINAL: Final[Mapping[str, str]] = {"x-should-retry": "false"}


class ReplyHandling(HttpChatModelBase[OptionsT]):
    """Replies read and failures typed; :class:`~ostinato.http.HttpxChatModel` extends it."""

    #: Appended to the base URL to make the endpoint (``/chat/completions``).
    path: ClassVar[str] = ""
    #: The prefix of the provider's settings, named in errors (``OSTINATO_OPENAI_``).
    env_prefix: ClassVar[str] = "OSTINATO_"
    #: Appended to a timeout's and a failed connection's message.
    timeout_hint: ClassVar[str] = ""
    connect_hint: ClassVar[str] = ""
    #: What the provider's bytes mean (set by :class:`~ostinato.http.HttpxChatModel`).
    _wire: WireFormat
    #: The most seconds a stream may wait for its first event (``None``: no bound).
    _first_event_timeout: float | None

    def _error_from_payload(
        self,
        payload: Any,
        *,
        status: int | None,
        headers: Mapping[str, str],
        fallback_message: str | None,
        body: Mapping[str, Any],
    ) -> ModelError:
        report = self._wire.error(payload, status, headers, fallback_message, body)
        return model_error(report, provider=self._provider, headers=headers, secret=self._redactor)

    def _error_in_reply(self, payload: Any, response: httpx.Response) -> AttemptFailed:
        """The failure of an error body a gateway sent with a 2xx status."""
        error = self._error_from_payload(
            payload, status=None, headers=response.headers, fallback_message=None, body={}
        )
        return AttemptFailed(error, response.headers)

    def _pieces(self, response: httpx.Response) -> AsyncIterator[bytes]:
        """The body's bytes; gzip and deflate undone in bounded pieces (httpx would undo
        each network read whole, a thousandfold for a compression bomb)."""
        if response.is_stream_consumed:  # held already
            return response.aiter_bytes()
        encoding = response.headers.get("content-encoding")
        if not encoding:  # the usual case: the bytes as received, with no layer between
            return response.aiter_raw()
        if can_decompress(encoding):
            return decompressed(response.aiter_raw(), encoding, provider=self._provider)
        return response.aiter_bytes()

    async def _body(self, response: httpx.Response) -> bytes:
        length = response.headers.get("content-length")
        return await read_body(self._pieces(response), self._budget(), length)

    async def _failure(self, response: httpx.Response, body: Mapping[str, Any]) -> AttemptFailed:
        """The failure of a reply with a 3xx, 4xx or 5xx status."""
        status = response.status_code
        if status < 400:
            error = redirect_error(
                response,
                provider=self._provider,
                path=self.path,
                variable=f"{self.env_prefix}BASE_URL",
            )
            return AttemptFailed(error, FINAL)
        content = await read_error_body(self._pieces(response))
        error = self._error_from_payload(
            error_payload(content, self._redactor),
            status=status,
            headers=response.headers,
            fallback_message=reason_phrase(status),
            body=body,
        )
        return AttemptFailed(error, response.headers)

    def _transport_failure(self, exc: httpx.RequestError) -> AttemptFailed:
        return AttemptFailed(
            error_from_transport(
                exc,
                provider=self._provider,
                url=self._url,
                secret=self._redactor,
                timeout_hint=self.timeout_hint,
                connect_hint=self.connect_hint,
            )
        )

    def _malformed(self, what: str) -> MalformedResponseError:
        """A reply that does not say what the protocol says, described by ``what``."""
        return MalformedResponseError(f"{self._provider}: {what}", provider=self._provider)

    def _bound_hit(self, setting: str, seconds: float, what: str) -> ModelTimeoutError:
        return bound_hit(
            provider=self._provider,
            url=self._url,
            setting=setting,
            seconds=seconds,
            what=what,
            env_prefix=self.env_prefix,
        )

    async def _before(self, first_by: float | None, step: Awaitable[T]) -> T:
        """``step``, failed (not to be retried) once the wait for the first event is over."""
        if first_by is None:
            return await step
        seconds = self._first_event_timeout or 0.0
        error = lambda: AttemptFailed(  # noqa: E731 - built only if the bound is hit
            self._bound_hit("first_event_timeout", seconds, "no event arrived"), FINAL
        )
        return await within(first_by, step, error)
