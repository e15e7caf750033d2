"""Conformance tests of ``call()``: text, tool calls, follow-ups, finish reasons, JSON."""

from __future__ import annotations

import json

import pytest

from ostinato.model import FinishReason
from ostinato.prompt import ChatOptions
from ostinato.testing.conformance._base import ConformanceBase
from ostinato.testing.conformance._canned import body_strings
from ostinato.testing.conformance._checks import (
    check_metadata,
    check_text,
    check_tool_calls,
    check_usage,
)
from ostinato.testing.conformance._script import TIME_TOOL, WEATHER_TOOL, Scenario

__all__ = ["CallConformance"]


class CallConformance(ConformanceBase):
    """``call()`` turns each canned reply into the expected normalised response."""

    pytestmark = pytest.mark.asyncio

    async def test_text_call(self) -> None:
        """A plain answer: text, finish reason, usage, id and model."""
        exp = self.expectations
        async with self.replay(self.require(Scenario.TEXT)) as (model, replay):
            response = await model.call(self.prompt(model))
        check_text(response, exp.text)
        check_usage(response, exp)
        check_metadata(response, exp)
        assert replay.request_count == 1
        assert exp.user_text in body_strings(replay.body()), "the question was not sent"

    async def test_tool_call(self) -> None:
        """One tool call; the tools' names, descriptions and schemas reach the request."""
        exp = self.expectations
        async with self.replay(self.require(Scenario.TOOL_CALL)) as (model, replay):
            response = await model.call(self.tool_prompt(model))
        check_tool_calls(response, [exp.weather_call], exp)
        check_usage(response, exp)
        sent = body_strings(replay.body())
        for tool in (WEATHER_TOOL, TIME_TOOL):
            assert tool.name in sent, f"tool {tool.name!r} was not sent"
            assert tool.description in sent, f"the description of {tool.name!r} was not sent"
        assert "city" in sent, "the get_weather schema was not sent"
        assert "timezone" in sent, "the get_time schema was not sent"

    async def test_parallel_tool_calls(self) -> None:
        """Two tool calls in one answer, in order."""
        exp = self.expectations
        async with self.replay(self.require(Scenario.PARALLEL_TOOL_CALLS)) as (model, _):
            response = await model.call(self.tool_prompt(model))
        check_tool_calls(response, [exp.weather_call, exp.time_call], exp)

    async def test_tool_result_followup(self) -> None:
        """The assistant's call and the tool's result are sent back; the answer follows."""
        exp = self.expectations
        canned = self.require(Scenario.TOOL_RESULT_FOLLOWUP)
        async with self.replay(canned) as (model, replay):
            prompt = self.prompt(model, self.followup_messages(), tools=(WEATHER_TOOL, TIME_TOOL))
            response = await model.call(prompt)
        check_text(response, exp.followup_text)
        sent = body_strings(replay.body())
        call = exp.weather_call
        assert exp.tool_result in sent, f"the tool result {exp.tool_result!r} was not sent"
        assert call.name in sent, "the assistant's tool call was not sent back"
        assert "Paris" in sent, "the tool call's arguments were not sent back"
        if exp.check_call_ids:
            assert call.id in sent, f"the tool call id {call.id!r} was not sent back"

    async def test_length_finish_reason(self) -> None:
        """An answer cut by the token limit reports ``length``."""
        async with self.replay(self.require(Scenario.LENGTH)) as (model, _):
            response = await model.call(self.prompt(model))
        generation = response.result
        assert generation is not None
        assert generation.metadata.finish_reason == FinishReason.LENGTH
        assert generation.output.text, "a truncated answer keeps the text it has"

    async def test_content_filter_finish_reason(self) -> None:
        """An answer stopped by the content filter reports ``content_filter``."""
        async with self.replay(self.require(Scenario.CONTENT_FILTER)) as (model, _):
            response = await model.call(self.prompt(model))
        generation = response.result
        assert generation is not None
        assert generation.metadata.finish_reason == FinishReason.CONTENT_FILTER

    async def test_structured_output(self) -> None:
        """The schema reaches the request; the JSON answer comes back as text."""
        exp = self.expectations
        schema = {
            "type": "object",
            "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
            "required": ["name", "age"],
            "additionalProperties": False,
        }
        canned = self.require(Scenario.STRUCTURED_OUTPUT)
        async with self.replay(canned) as (model, replay):
            options = self.structured_output_options(schema)
            if options is None:
                pytest.skip(f"{type(self).__name__} has no structured output options")
            response = await model.call(self.prompt(model, options=options))
        sent = body_strings(replay.body())
        assert {"name", "age"} <= sent, "the JSON schema was not sent"
        assert response.text is not None
        assert json.loads(response.text) == dict(exp.structured)

    async def test_native_structured_output(self) -> None:
        """A model declaring ``native_structured_output`` sends ``output_schema``."""
        exp = self.expectations
        schema = {
            "type": "object",
            "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
            "required": ["name", "age"],
            "additionalProperties": False,
        }
        canned = self.require(Scenario.STRUCTURED_OUTPUT)
        async with self.replay(canned) as (model, replay):
            if getattr(model, "native_structured_output", False) is not True:
                pytest.skip(f"{type(model).__name__} has no native structured output")
            options = ChatOptions(output_schema=json.dumps(schema))
            response = await model.call(self.prompt(model, options=options))
        sent = body_strings(replay.body())
        assert {"name", "age", "additionalProperties"} <= sent, "output_schema was not sent"
        assert response.text is not None
        assert json.loads(response.text) == dict(exp.structured)
