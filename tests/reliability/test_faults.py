"""The OpenAI adapter against a server that fails in every way the network and servers do.

Each fault is served over real loopback sockets by :class:`FaultServer`, for ``call()``
and ``stream()``. Expected: retried where the policy says (bounded in count and time),
otherwise a typed error that says what happened; a stream that delivered text is never
retried nor silently truncated; afterwards no connection, task or thread is left.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing

import httpx
import pytest

from ostinato.errors import (
    MalformedResponseError,
    ModelConnectionError,
    ModelError,
    ModelTimeoutError,
    RateLimitError,
    ServerError,
    StreamInterruptedError,
)
from ostinato.prompt import Prompt
from ostinato_openai import OpenAIChatModel, RetryPolicy
from tests.fakes.mock_model import FakeTime
from tests.reliability.faultserver import (
    FaultServer,
    closed_port,
    completion_body,
    html_page,
    oversized,
    reply,
    reset,
    reset_mid_stream,
    sse,
    stalled_stream,
    text_chunks,
)
from tests.reliability.resources import Snapshot, assert_nothing_left, finalised, snapshot

KEY = "sk-fault-test-0123456789"
READ_TIMEOUT = 0.3
MODES = ["call", "stream"]


def ok(mode: str, text: str = "hello") -> object:
    """A successful answer in the shape ``mode`` asks for."""
    if mode == "call":
        return reply(200, completion_body(text))
    return sse(text_chunks(*text))


def policy(**changes: float) -> RetryPolicy:
    """Quick retries: two of them, waits of 10-40 ms, no jitter."""
    settings = {"max_retries": 2, "initial_delay": 0.01, "max_delay": 0.04, "jitter": 0.0}
    settings.update(changes)
    return RetryPolicy(**settings)  # type: ignore[arg-type]


class WaitClock(FakeTime):
    """A retry policy's clock that moves only by the policy's waits, each also slept for
    real: the budget's decisions then do not depend on how fast a loaded machine runs
    the attempts, and :attr:`sleeps` records every wait that was started."""

    async def sleep(self, seconds: float) -> None:
        """Record the wait, move the clock, then wait for real."""
        await super().sleep(seconds)
        await asyncio.sleep(seconds)


class Run:
    """One model against one server; what the consumer saw, and how long it took."""

    def __init__(self, server: FaultServer, model: OpenAIChatModel) -> None:
        self.server = server
        self.model = model
        self.pieces: list[str] = []
        self.elapsed = 0.0

    async def __call__(self, mode: str) -> str:
        started = time.monotonic()
        self.pieces = []
        try:
            if mode == "call":
                response = await self.model.call(Prompt("hi"))
                return response.text or ""
            async with aclosing(self.model.stream(Prompt("hi"))) as chunks:
                async for chunk in chunks:
                    if chunk.text:
                        self.pieces.append(chunk.text)
            return "".join(self.pieces)
        finally:
            self.elapsed = time.monotonic() - started


@pytest.fixture
async def run_against(
    serve: Callable[..., FaultServer],
) -> AsyncIterator[Callable[..., Run]]:
    """Make a :class:`Run` for a script; close the model and check for leaks afterwards."""
    before: Snapshot = snapshot()
    runs: list[Run] = []

    def make(*script: object, retry: RetryPolicy | None = None, **model_args: object) -> Run:
        server = serve(list(script))
        base_url = model_args.pop("base_url", server.base_url)
        model = OpenAIChatModel(
            model="fault-model",
            api_key=KEY,
            base_url=str(base_url),
            timeout=httpx.Timeout(READ_TIMEOUT, connect=2.0),
            retry_policy=retry or policy(),
            **model_args,  # type: ignore[arg-type]
        )
        run = Run(server, model)
        runs.append(run)
        return run

    yield make
    for run in runs:
        await run.model.aclose()
        assert run.server.wait_idle(), "the server still has connections open"
        run.server.stop()
    await finalised()
    assert_nothing_left(before)


def check_error(error: ModelError) -> None:
    """Every error names its provider and never carries the key."""
    assert error.provider == "openai"
    assert KEY not in str(error) and KEY not in repr(error)


# -- retried: rate limits and server errors ------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_429_with_retry_after_waits_as_asked_then_succeeds(run_against, mode):
    run = run_against(
        reply(429, {"error": {"message": "slow down"}}, headers={"retry-after": "0.25"}),
        ok(mode),
    )
    assert await run(mode) == "hello"
    assert len(run.server.requests) == 2
    assert 0.25 <= run.elapsed < 2.0  # the server's wait was honoured, and nothing more


@pytest.mark.parametrize("mode", MODES)
async def test_429_without_retry_after_backs_off_then_succeeds(run_against, mode):
    run = run_against(reply(429, {"error": {"message": "slow down"}}), ok(mode))
    assert await run(mode) == "hello"
    assert len(run.server.requests) == 2
    assert run.elapsed < 1.0


@pytest.mark.parametrize("mode", MODES)
async def test_persistent_429_ends_in_a_typed_error_after_the_allowed_retries(run_against, mode):
    limited = reply(
        429,
        {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit"}},
        headers={"retry-after": "0.01", "x-request-id": "req-42"},
    )
    run = run_against(limited, limited, limited, limited)
    with pytest.raises(RateLimitError) as caught:
        await run(mode)
    assert len(run.server.requests) == 3  # the first attempt and two retries
    error = caught.value
    check_error(error)
    assert error.status == 429 and error.request_id == "req-42" and error.retry_after == 0.01
    assert "Rate limit reached" in str(error)


@pytest.mark.parametrize("mode", MODES)
async def test_429_asking_for_too_long_a_wait_is_raised_at_once(run_against, mode):
    run = run_against(
        reply(429, {"error": {"message": "come back later"}}, headers={"retry-after": "3600"}),
        ok(mode),
    )
    with pytest.raises(RateLimitError) as caught:
        await run(mode)
    assert len(run.server.requests) == 1
    assert caught.value.retry_after == 3600.0  # the caller learns how long to wait
    assert run.elapsed < 1.0


@pytest.mark.parametrize("status", [500, 502, 503])
@pytest.mark.parametrize("mode", MODES)
async def test_server_error_then_success_is_retried(run_against, mode, status):
    run = run_against(reply(status, {"error": {"message": "upstream"}}), ok(mode))
    assert await run(mode) == "hello"
    assert len(run.server.requests) == 2


@pytest.mark.parametrize("mode", MODES)
async def test_retries_stop_at_the_total_time_budget(run_against, mode):
    # Waits of 0.5 s, a budget of 0.8 s: one retry fits, the second would not. The
    # budget's clock counts the waits only, so the attempts' own time (scheduling on a
    # loaded machine) cannot change the outcome.
    failing = reply(503, {"error": {"message": "overloaded"}})
    clock = WaitClock()
    budget = policy(max_retries=10, initial_delay=0.5, max_delay=0.5, max_total_time=0.8)
    run = run_against(
        failing,
        failing,
        failing,
        retry=dataclasses.replace(budget, clock=clock.clock, sleep=clock.sleep),
    )
    with pytest.raises(ServerError) as caught:
        await run(mode)
    assert len(run.server.requests) == 2
    assert clock.sleeps == [0.5]  # the second wait was refused before it began
    assert run.elapsed >= 0.5  # the one wait was real
    check_error(caught.value)
    assert caught.value.status == 503


# -- the network ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_connection_refused_is_retried_then_typed(run_against, mode):
    port = closed_port()
    run = run_against(base_url=f"http://127.0.0.1:{port}/v1")
    with pytest.raises(ModelConnectionError) as caught:
        await run(mode)
    check_error(caught.value)
    assert f"127.0.0.1:{port}" in str(caught.value)
    assert "ConnectError" in str(caught.value)
    assert run.elapsed < 2.0


@pytest.mark.parametrize("mode", MODES)
async def test_reset_before_the_response_is_retried(run_against, mode):
    run = run_against(reset(), ok(mode))
    assert await run(mode) == "hello"
    assert len(run.server.requests) == 2


@pytest.mark.parametrize("mode", MODES)
async def test_persistent_reset_ends_in_a_connection_error(run_against, mode):
    run = run_against(reset(), reset(), reset())
    with pytest.raises(ModelConnectionError) as caught:
        await run(mode)
    assert len(run.server.requests) == 3
    check_error(caught.value)


async def test_reset_mid_stream_after_text_is_an_interruption_never_a_retry(run_against):
    run = run_against(reset_mid_stream(text_chunks("Hel", "lo")[:2]), ok("stream"))
    with pytest.raises(StreamInterruptedError) as caught:
        await run("stream")
    assert run.pieces == ["Hel", "lo"]  # what arrived was delivered...
    assert len(run.server.requests) == 1  # ...and never silently replayed
    check_error(caught.value)
    assert "broke after it had started" in str(caught.value)


async def test_reset_mid_stream_before_any_text_is_retried(run_against):
    run = run_against(reset_mid_stream([": keep-alive\n\n"]), ok("stream"))
    assert await run("stream") == "hello"
    assert len(run.server.requests) == 2


async def test_reset_in_the_middle_of_a_call_body_is_retried(run_against):
    half = reset_mid_stream(['{"id": "chatcmpl-fault", "choices": [{"index": 0, "mess'])
    run = run_against(half, ok("call"))
    assert await run("call") == "hello"
    assert len(run.server.requests) == 2


# -- stalls --------------------------------------------------------------------------------


async def test_a_stream_stalling_after_text_times_out_as_an_interruption(run_against):
    run = run_against(stalled_stream(text_chunks("Hel", "lo")[:2]))
    with pytest.raises(StreamInterruptedError) as caught:
        await run("stream")
    assert run.pieces == ["Hel", "lo"]
    assert len(run.server.requests) == 1
    assert isinstance(caught.value.__cause__, httpx.ReadTimeout)
    assert READ_TIMEOUT <= run.elapsed < READ_TIMEOUT + 1.5
    # The client gave up on the response: the server saw it hang up.
    assert run.server.wait_for(lambda s: s.hang_ups == 1)


@pytest.mark.parametrize("mode", MODES)
async def test_a_server_stalling_before_any_data_times_out_within_the_retry_budget(
    run_against, mode
):
    run = run_against(stalled_stream(), stalled_stream(), stalled_stream())
    with pytest.raises(ModelTimeoutError) as caught:
        await run(mode)
    assert len(run.server.requests) == 3
    check_error(caught.value)
    # Three attempts of one read timeout each, plus two short waits.
    assert 3 * READ_TIMEOUT <= run.elapsed < 3 * READ_TIMEOUT + 2.0


# -- broken bodies -------------------------------------------------------------------------


async def test_a_stream_ending_without_done_after_text_is_not_silently_truncated(run_against):
    run = run_against(sse(text_chunks("Hel", "lo")[:2], done=False), ok("stream"))
    with pytest.raises(StreamInterruptedError) as caught:
        await run("stream")
    assert run.pieces == ["Hel", "lo"]
    assert len(run.server.requests) == 1
    assert "without [DONE]" in str(caught.value)


async def test_a_malformed_event_is_a_typed_error_after_the_text_before_it(run_against):
    run = run_against(sse([*text_chunks("Hel")[:1], "data: {this is not json\n\n"]))
    with pytest.raises(MalformedResponseError) as caught:
        await run("stream")
    assert run.pieces == ["Hel"]
    assert "not JSON" in str(caught.value) and "{this is not json" in str(caught.value)
    assert len(run.server.requests) == 1


async def test_unknown_sse_fields_and_comments_are_ignored(run_against):
    noise = [": comment\n\n", "retry: 10\nfoo: bar\n\n", "event: ping\n\n"]
    run = run_against(sse([*noise, *text_chunks("he", "llo")]))
    assert await run("stream") == "hello"


@pytest.mark.parametrize("mode", MODES)
async def test_truncated_json_is_a_typed_error(run_against, mode):
    if mode == "call":
        body = '{"id": "chatcmpl-fault", "choices": [{"index": 0, "message": {"content": "he'
        run = run_against(reply(200, body, content_type="application/json"))
        with pytest.raises(MalformedResponseError) as caught:
            await run(mode)
        assert "not JSON" in str(caught.value)
    else:
        cut = 'data: {"id": "chatcmpl-fault", "choices": [{"index": 0, "delta": {"content'
        run = run_against(sse([*text_chunks("he")[:1], cut], done=False))
        with pytest.raises(StreamInterruptedError) as caught:
            await run(mode)
        assert run.pieces == ["he"]
    check_error(caught.value)
    assert len(run.server.requests) == 1


@pytest.mark.parametrize("mode", MODES)
async def test_a_200_with_an_html_page_is_a_typed_error_naming_it(run_against, mode):
    run = run_against(html_page(), ok(mode))
    with pytest.raises(MalformedResponseError) as caught:
        await run(mode)
    message = str(caught.value)
    assert "<!DOCTYPE html>" in message, message
    if mode == "stream":
        assert "text/html" in message and "not an event stream" in message
    assert len(run.server.requests) == 1
    check_error(caught.value)


@pytest.mark.parametrize("mode", MODES)
async def test_a_502_html_page_is_a_server_error_and_retried(run_against, mode):
    run = run_against(html_page(502), ok(mode))
    assert await run(mode) == "hello"
    assert len(run.server.requests) == 2


@pytest.mark.parametrize("mode", MODES)
async def test_an_oversized_response_is_refused_without_reading_it_all(run_against, mode):
    limit = 1 << 20
    run = run_against(oversized(32 * limit, stream=mode == "stream"), max_response_bytes=limit)
    with pytest.raises(MalformedResponseError) as caught:
        await run(mode)
    assert "max_response_bytes" in str(caught.value)
    assert len(run.server.requests) == 1
    # The client stopped reading: the server's writes failed long before 32 MiB.
    assert run.server.wait_for(lambda s: s.hang_ups == 1)


@pytest.mark.parametrize("mode", MODES)
async def test_a_huge_error_body_is_cut_not_held(run_against, mode):
    body = b'{"error": {"message": "' + b"e" * (16 << 20) + b'"}}'
    run = run_against(reply(400, body, content_type="application/json"))
    with pytest.raises(ModelError) as caught:
        await run(mode)
    assert caught.value.status == 400
    assert len(str(caught.value)) < 100_000  # the first 64 KiB at most, not 16 MiB
    assert run.elapsed < 2.0
    assert run.server.wait_for(lambda s: s.hang_ups == 1 or s.open_connections == 0)


def test_the_default_response_limit_is_generous_but_finite():
    model = OpenAIChatModel(model="m", api_key=KEY)
    assert 16 << 20 <= model.max_response_bytes < 1 << 32


def test_invalid_response_limits_are_refused():
    with pytest.raises(ValueError, match="max_response_bytes"):
        OpenAIChatModel(model="m", max_response_bytes=0)


# -- what is left afterwards -----------------------------------------------------------------


async def test_every_fault_in_turn_leaves_one_reused_pool_behind(run_against):
    """Many faults through one model: afterwards, only the pool's own connections."""
    script = [
        reset(),
        ok("call"),
        reply(500, {"error": {"message": "x"}}),
        ok("stream"),
        stalled_stream(),
        ok("call"),
        html_page(502),
        ok("stream"),
    ]
    run = run_against(*script)
    for mode in ("call", "stream", "call", "stream"):
        assert await run(mode) == "hello"
    assert len(run.server.requests) == 8
    assert run.server.open_connections <= 2  # only idle keep-alive connections remain
