"""Conformance tests of failures: typed errors, secrets kept out, retries and their bounds."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import httpx
import pytest

from ostinato.errors import (
    AuthenticationError,
    BadRequestError,
    ModelConnectionError,
    ModelError,
    ModelTimeoutError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
)
from ostinato.model import ChatModel
from ostinato.prompt import Prompt
from ostinato.testing.conformance._base import ConformanceBase
from ostinato.testing.conformance._canned import CannedResponse
from ostinato.testing.conformance._checks import check_text
from ostinato.testing.conformance._script import CONFORMANCE_API_KEY, Scenario

__all__ = ["ErrorConformance"]

_STATUSES: list[tuple[int, type[ModelError]]] = [
    (400, BadRequestError),
    (401, AuthenticationError),
    (403, PermissionDeniedError),
    (404, NotFoundError),
    (422, BadRequestError),
    (429, RateLimitError),
    (500, ServerError),
    (503, ServerError),
]
_MODES = ("call", "stream")
#: Retries must not really wait: a test taking longer than this slept for real.
_NO_SLEEP_BUDGET = 3.0


class ErrorConformance(ConformanceBase):
    """Failures become the typed errors of ``ostinato.errors``; retries are bounded."""

    pytestmark = pytest.mark.asyncio

    def _error(self, status: int) -> CannedResponse:
        exp = self.expectations
        headers = {"retry-after": f"{exp.retry_after:g}"} if status == 429 else {}
        message = exp.auth_error_message if status == 401 else exp.error_message
        return self.canned_error(status, message, headers)

    def _success(self, mode: str) -> CannedResponse:
        return self.require(Scenario.TEXT if mode == "call" else Scenario.TEXT_STREAM)

    async def _run(self, model: ChatModel, prompt: Prompt, mode: str) -> None:
        if mode == "call":
            await model.call(prompt)
        else:
            await self.collect(model, prompt)

    def _check_no_secret(self, error: BaseException) -> None:
        for text in (str(error), repr(error), *map(str, error.args)):
            assert CONFORMANCE_API_KEY not in text, f"the API key leaked into {text!r}"

    @pytest.mark.parametrize("mode", _MODES)
    @pytest.mark.parametrize(
        ("status", "error_class"), _STATUSES, ids=[str(s) for s, _ in _STATUSES]
    )
    async def test_http_error_is_typed(
        self, status: int, error_class: type[ModelError], mode: str
    ) -> None:
        """Each status raises its error class with what the server said, never the key."""
        exp = self.expectations
        async with self.replay(self._error(status)) as (model, replay):
            with pytest.raises(error_class) as caught:
                await self._run(model, self.prompt(model), mode)
        error = caught.value
        assert error.status == status, f"status: got {error.status!r}, expected {status}"
        assert error.provider == self.provider, f"provider: got {error.provider!r}"
        shown = "Incorrect API key provided" if status == 401 else exp.error_message
        assert shown in str(error), f"the server's message is missing from {str(error)!r}"
        self._check_no_secret(error)
        if status == 429:
            assert error.retry_after == exp.retry_after, f"retry_after: {error.retry_after!r}"
        assert replay.request_count == 1, "retried although max_retries=0"

    @pytest.mark.parametrize("mode", _MODES)
    @pytest.mark.parametrize(
        ("exception", "error_class"),
        [
            (httpx.ReadTimeout, ModelTimeoutError),
            (httpx.ConnectTimeout, ModelTimeoutError),
            (httpx.ConnectError, ModelConnectionError),
        ],
        ids=["read-timeout", "connect-timeout", "connect-error"],
    )
    async def test_transport_failure_is_typed(
        self, exception: type[httpx.TransportError], error_class: type[ModelError], mode: str
    ) -> None:
        """Timeouts and connection failures raise their typed errors."""
        async with self.replay(exception("the network failed")) as (model, _):
            with pytest.raises(error_class) as caught:
                await self._run(model, self.prompt(model), mode)
        assert caught.value.provider == self.provider
        self._check_no_secret(caught.value)

    @pytest.mark.parametrize("mode", _MODES)
    @pytest.mark.parametrize("status", [408, 429, 500, 502, 503])
    async def test_retryable_status_is_retried(self, status: int, mode: str) -> None:
        """A retryable status is retried and the next attempt's answer returned."""
        await self._within_budget(lambda: self._retried(self._error(status), mode))

    @pytest.mark.parametrize("mode", _MODES)
    async def test_connection_error_is_retried(self, mode: str) -> None:
        """A connection failure is retried."""
        failure = httpx.ConnectError("connection refused")
        await self._within_budget(lambda: self._retried(failure, mode))

    async def _retried(self, first: CannedResponse | Exception, mode: str) -> None:
        async with self.replay(first, self._success(mode), max_retries=2) as (model, replay):
            prompt = self.prompt(model)
            if mode == "call":
                response = await model.call(prompt)
            else:
                response = await self.aggregate(model, prompt)
        check_text(response, self.expectations.text)
        assert replay.request_count == 2

    async def _within_budget(self, run: Callable[[], Awaitable[None]]) -> None:
        started = time.monotonic()
        await run()
        elapsed = time.monotonic() - started
        assert elapsed < _NO_SLEEP_BUDGET, (
            f"retrying took {elapsed:.1f} s: build_model() must inject a sleep that returns at once"
        )

    @pytest.mark.parametrize("mode", _MODES)
    @pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
    async def test_client_error_is_not_retried(self, status: int, mode: str) -> None:
        """A request the server rejected is not sent again."""
        async with self.replay(self._error(status), self._success(mode), max_retries=2) as (
            model,
            replay,
        ):
            with pytest.raises(ModelError):
                await self._run(model, self.prompt(model), mode)
        assert replay.request_count == 1

    @pytest.mark.parametrize("mode", _MODES)
    async def test_retries_are_bounded(self, mode: str) -> None:
        """After ``max_retries`` retries the last error is raised."""
        replies = [self._error(503) for _ in range(3)]
        async with self.replay(*replies, max_retries=2) as (model, replay):
            with pytest.raises(ServerError):
                await self._run(model, self.prompt(model), mode)
        assert replay.request_count == 3
