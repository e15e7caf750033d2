"""Running one request's attempts under a :class:`RetryPolicy`, for calls and for streams.

An adapter writes one attempt (send, read, parse) and raises :class:`AttemptFailed` (the
typed error plus the response headers, which may say ``x-should-retry``) or a plain
:class:`~ostinato.errors.ModelError`; :func:`retry_call` and :func:`retry_stream` decide
whether to wait and try again. A stream is retried only before it delivered its first
item: afterwards a lost connection becomes
:class:`~ostinato.errors.StreamInterruptedError` and any other error is raised as it is.
The inner stream is consumed under ``contextlib.aclosing``, so closing the outer one
closes the HTTP response at once.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from contextlib import aclosing
from typing import NoReturn, TypeVar

from ostinato.errors import (
    ModelConnectionError,
    ModelError,
    ModelTimeoutError,
    StreamInterruptedError,
)
from ostinato.transport._retry import RetryPolicy

__all__ = ["AttemptFailed", "raise_model_error", "retry_call", "retry_stream"]

T = TypeVar("T")


class AttemptFailed(Exception):
    """One attempt failed with :attr:`error`; :attr:`headers` may say whether to retry.

    Raise it from an attempt when the response headers are known (an HTTP error status);
    a plain :class:`~ostinato.errors.ModelError` raised from an attempt counts as a
    failure without headers.
    """

    def __init__(self, error: ModelError, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.headers: Mapping[str, str] = headers or {}


def raise_model_error(error: ModelError) -> NoReturn:
    """Raise ``error`` keeping its own cause (not the failure that carried it).

    A context its raiser hid (``raise ... from None``) is dropped, not only hidden: it may
    hold the reply unmasked (a ``JSONDecodeError`` keeps the whole document).
    """
    if error.__suppress_context__:
        error.__context__ = None
    raise error from error.__cause__


def _failure(exc: Exception) -> tuple[ModelError, Mapping[str, str]]:
    if isinstance(exc, AttemptFailed):
        return exc.error, exc.headers
    assert isinstance(exc, ModelError)
    return exc, {}


async def retry_call(attempt: Callable[[], Awaitable[T]], policy: RetryPolicy) -> T:
    """The result of the first attempt that succeeds; the last error when retries end.

    Raises:
        ModelError: the error of the last attempt, when it may not or need not be retried.
    """
    state = policy.start()
    while True:
        try:
            return await attempt()
        except (AttemptFailed, ModelError) as exc:
            error, headers = _failure(exc)
        delay = state.next_delay(error, headers)
        if delay is None:
            raise_model_error(error)
        await state.wait(delay)


async def retry_stream(
    attempt: Callable[[], AsyncGenerator[T, None]], policy: RetryPolicy, *, provider: str
) -> AsyncGenerator[T, None]:
    """The items of the first attempt that delivers; retried only before the first item.

    Raises:
        StreamInterruptedError: the connection broke or timed out after items arrived.
        ModelError: any other failure (an error event, a truncated stream, an HTTP error
            that may not be retried, or the last one when retries end).
    """
    state = policy.start()
    while True:
        delivered = False
        try:
            async with aclosing(attempt()) as items:
                async for item in items:
                    delivered = True
                    yield item
            return
        except (AttemptFailed, ModelError) as exc:
            error, headers = _failure(exc)
        if delivered:
            if not isinstance(error, ModelConnectionError | ModelTimeoutError):
                raise_model_error(error)
            interrupted = StreamInterruptedError(
                f"{provider}: the stream broke after it had started ({error})",
                provider=provider,
            )
            interrupted.__cause__ = error.__cause__ or error
            raise_model_error(interrupted)
        delay = state.next_delay(error, headers)
        if delay is None:
            raise_model_error(error)
        await state.wait(delay)
