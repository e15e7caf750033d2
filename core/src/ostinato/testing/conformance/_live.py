"""Conformance tests against a real server, run only when ``live_model()`` returns one."""

from __future__ import annotations

import pytest

from ostinato.messages import UserMessage
from ostinato.model import ChatModel, FinishReason, MessageAggregator
from ostinato.testing.conformance._base import ConformanceBase
from ostinato.testing.conformance._script import WEATHER_TOOL

__all__ = ["LiveConformance"]


class LiveConformance(ConformanceBase):
    """A few loose checks against a live server (skipped unless ``live_model()`` gives one)."""

    pytestmark = pytest.mark.asyncio

    def _live(self) -> ChatModel:
        model = self.live_model()
        if model is None:
            pytest.skip(f"{type(self).__name__} has no live model (live_model() returned None)")
        return model

    async def test_live_call_and_stream_answer(self) -> None:
        """A real server answers through ``call()`` and ``stream()`` with text and usage."""
        model = self._live()
        try:
            prompt = self.prompt(model, [UserMessage("Reply with the single word: pong")])
            called = await model.call(prompt)
            streamed = MessageAggregator.aggregate(await self.collect(model, prompt))
        finally:
            await self.close_model(model)
        for response in (called, streamed):
            assert response.text, f"no text in {response!r}"
            assert response.result is not None
            assert response.result.metadata.finish_reason in (
                FinishReason.STOP,
                FinishReason.LENGTH,
            )

    async def test_live_tool_call(self) -> None:
        """A real server asked to use a tool answers with a well-formed call."""
        model = self._live()
        try:
            prompt = self.prompt(
                model,
                [UserMessage("Use the get_weather tool to get the weather in Paris.")],
                tools=(WEATHER_TOOL,),
            )
            response = await model.call(prompt)
        finally:
            await self.close_model(model)
        assert response.has_tool_calls(), f"no tool call in {response!r}"
        call = response.result.output.tool_calls[0] if response.result else None
        assert call is not None
        assert call.name == WEATHER_TOOL.name
        assert call.id
