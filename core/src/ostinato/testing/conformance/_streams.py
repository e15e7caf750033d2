"""Conformance tests of ``stream()``: deltas, fragments, splits, agreement, closing."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from ostinato.errors import ModelError, StreamInterruptedError
from ostinato.model import ChatModel, ChatResponse, FinishReason, MessageAggregator
from ostinato.testing.conformance._base import ConformanceBase
from ostinato.testing.conformance._canned import BrokenStream, GatedStream, cut_at_line
from ostinato.testing.conformance._checks import (
    check_metadata,
    check_same_answer,
    check_stream_chunks,
    check_text,
    check_tool_calls,
    check_usage,
)
from ostinato.testing.conformance._script import Scenario

__all__ = ["StreamConformance"]

#: Piece sizes bodies are also served in: inside lines, inside multi-byte characters.
PIECE_SIZES = (1, 3, 7, 64)

_AGREEING = [
    (Scenario.TEXT, Scenario.TEXT_STREAM),
    (Scenario.TOOL_CALL, Scenario.TOOL_CALL_STREAM),
    (Scenario.PARALLEL_TOOL_CALLS, Scenario.PARALLEL_TOOL_CALLS_STREAM),
    (Scenario.LENGTH, Scenario.LENGTH_STREAM),
]
_TOOLS = (Scenario.TOOL_CALL, Scenario.TOOL_CALL_STREAM)


class StreamConformance(ConformanceBase):
    """``stream()`` yields deltas whose aggregate is the answer ``call()`` gives."""

    pytestmark = pytest.mark.asyncio

    async def test_text_stream(self) -> None:
        """Text arrives in pieces; the aggregate has the answer, usage, id and model."""
        exp = self.expectations
        async with self.replay(self.require(Scenario.TEXT_STREAM)) as (model, _):
            chunks = await self.collect(model, self.prompt(model))
        check_stream_chunks(chunks)
        pieces = [c.text for c in chunks if c.text]
        assert len(pieces) >= 2, f"expected the text in several chunks, got {pieces!r}"
        result = MessageAggregator.aggregate(chunks)
        check_text(result, exp.text)
        check_usage(result, exp)
        check_metadata(result, exp)

    @pytest.mark.parametrize("piece_size", PIECE_SIZES)
    async def test_text_stream_split_anywhere(self, piece_size: int) -> None:
        """The body split at awkward byte boundaries gives the same answer."""
        canned = self.require(Scenario.TEXT_STREAM)
        async with self.replay(canned, piece_size=piece_size) as (model, _):
            result = await self.aggregate(model, self.prompt(model))
        check_text(result, self.expectations.text)
        check_usage(result, self.expectations)

    async def test_tool_call_stream(self) -> None:
        """Fragmented arguments are merged into the one call ``call()`` would return."""
        exp = self.expectations
        async with self.replay(self.require(Scenario.TOOL_CALL_STREAM)) as (model, _):
            chunks = await self.collect(model, self.tool_prompt(model))
        check_stream_chunks(chunks)
        result = MessageAggregator.aggregate(chunks)
        check_tool_calls(result, [exp.weather_call], exp)
        check_usage(result, exp)

    @pytest.mark.parametrize("piece_size", PIECE_SIZES)
    async def test_tool_call_stream_split_anywhere(self, piece_size: int) -> None:
        """Tool-call streams survive any split too."""
        exp = self.expectations
        canned = self.require(Scenario.TOOL_CALL_STREAM)
        async with self.replay(canned, piece_size=piece_size) as (model, _):
            result = await self.aggregate(model, self.tool_prompt(model))
        check_tool_calls(result, [exp.weather_call], exp)

    async def test_parallel_tool_calls_stream(self) -> None:
        """Two streamed calls stay apart and in order."""
        exp = self.expectations
        canned = self.require(Scenario.PARALLEL_TOOL_CALLS_STREAM)
        async with self.replay(canned) as (model, _):
            chunks = await self.collect(model, self.tool_prompt(model))
        check_stream_chunks(chunks)
        check_tool_calls(
            MessageAggregator.aggregate(chunks), [exp.weather_call, exp.time_call], exp
        )

    async def test_length_stream(self) -> None:
        """A streamed answer cut by the token limit reports ``length``."""
        async with self.replay(self.require(Scenario.LENGTH_STREAM)) as (model, _):
            result = await self.aggregate(model, self.prompt(model))
        assert result.result is not None
        assert result.result.metadata.finish_reason == FinishReason.LENGTH

    @pytest.mark.parametrize(("called", "streamed"), _AGREEING, ids=[s.value for s, _ in _AGREEING])
    async def test_call_and_stream_agree(self, called: Scenario, streamed: Scenario) -> None:
        """The same exchange through ``call()`` and ``stream()`` gives the same answer."""
        one, other = self.require(called), self.require(streamed)
        async with self.replay(one, other) as (model, _):
            prompt = self.tool_prompt(model) if called in _TOOLS else self.prompt(model)
            response = await model.call(prompt)
            aggregate = await self.aggregate(model, prompt)
        check_same_answer(response, aggregate)

    async def test_truncated_stream_raises(self) -> None:
        """A stream that ends before its end marker raises :class:`StreamInterruptedError`."""
        canned = self.require(Scenario.TEXT_STREAM)
        truncated = type(canned)(canned.status, canned.headers, cut_at_line(canned.body, 0.6))
        async with self.replay(truncated) as (model, replay):
            with pytest.raises(StreamInterruptedError) as caught:
                await self.collect(model, self.prompt(model))
        assert caught.value.provider == self.provider
        assert replay.request_count == 1

    async def test_broken_connection_after_data_is_not_retried(self) -> None:
        """A connection lost mid-stream raises :class:`StreamInterruptedError` at once."""
        canned = self.require(Scenario.TEXT_STREAM)
        broken = canned.to_httpx(BrokenStream(cut_at_line(canned.body, 0.75)))
        delivered: list[ChatResponse] = []

        async def consume(model: ChatModel) -> None:
            async with contextlib.aclosing(model.stream(self.prompt(model))) as stream:  # type: ignore[type-var]  # an async generator
                async for chunk in stream:
                    delivered.append(chunk)

        async with self.replay(broken, canned, max_retries=2) as (model, replay):
            with pytest.raises(StreamInterruptedError):
                await consume(model)
        assert delivered, "no chunk arrived before the break; make the reply longer"
        assert replay.request_count == 1, "a stream that delivered data was retried"

    async def test_error_event_mid_stream(self) -> None:
        """An error reported inside a stream raises its typed error, not a silent end."""
        exp = self.expectations
        async with self.replay(self.require(Scenario.STREAM_ERROR_EVENT), max_retries=2) as (
            model,
            replay,
        ):
            with pytest.raises(ModelError) as caught:
                await self.collect(model, self.prompt(model))
        error = caught.value
        assert not isinstance(error, StreamInterruptedError), f"got {error!r}"
        assert exp.error_message in str(error), f"{exp.error_message!r} not in {str(error)!r}"
        assert error.status == 400
        assert replay.request_count == 1

    async def test_break_closes_the_response(self) -> None:
        """Leaving the stream early closes the HTTP response at once."""
        canned = self.require(Scenario.TEXT_STREAM)
        body = GatedStream(canned.body)
        async with self.replay(canned.to_httpx(body)) as (model, _), asyncio.timeout(10):
            async with contextlib.aclosing(model.stream(self.prompt(model))) as stream:  # type: ignore[type-var]  # an async generator
                async for _chunk in stream:
                    body.gate.set()
                    break
            assert body.closed, "the response body was not closed when the stream was"

    async def test_cancel_closes_the_response(self) -> None:
        """Cancelling the consuming task closes the HTTP response."""
        canned = self.require(Scenario.TEXT_STREAM)
        body = GatedStream(canned.body)

        async with self.replay(canned.to_httpx(body)) as (model, _):

            async def consume() -> None:
                async with contextlib.aclosing(model.stream(self.prompt(model))) as stream:  # type: ignore[type-var]  # an async generator
                    async for _chunk in stream:
                        body.gate.set()

            task = asyncio.create_task(consume())
            async with asyncio.timeout(10):
                await body.gate.wait()
                for _ in range(5):
                    await asyncio.sleep(0)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
            assert body.closed, "the response body was not closed when the task was cancelled"
