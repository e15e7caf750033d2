"""The conformance script: which exchanges an adapter must replay, and what they contain.

The kit is provider-neutral: it names each :class:`Scenario` and states, in
:class:`Expectations`, the facts its canned reply must encode (the answer text, the tool
calls, the usage). The adapter's test module writes those facts in its provider's wire
format; the kit then checks that the adapter turns them back into the same normalised
:class:`~ostinato.model.ChatResponse`.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ostinato.messages import ToolCall
from ostinato.tools import ToolContext, ToolDefinition, ToolMetadata

__all__ = [
    "CONFORMANCE_API_KEY",
    "TIME_TOOL",
    "WEATHER_TOOL",
    "Expectations",
    "KitTool",
    "Scenario",
]

#: The API key the kit asks ``build_model`` to use; it must never show in an error.
CONFORMANCE_API_KEY: Final = "sk-conformance-4f1d2c3b5a6978e0"


class Scenario(enum.StrEnum):
    """The exchanges the kit asks an adapter's test module to provide.

    Each value's documentation says what the canned reply holds (values from
    :class:`Expectations`). Streamed scenarios are the provider's streaming format,
    complete with its end-of-stream marker.
    """

    TEXT = "text"
    """Non-streamed: ``text``, finish reason stop, usage, ``response_id`` and ``model``."""
    TEXT_STREAM = "text_stream"
    """The same answer streamed in at least two text pieces, with usage."""
    TOOL_CALL = "tool_call"
    """Non-streamed: one call, ``weather_call``, finish reason tool calls, usage."""
    TOOL_CALL_STREAM = "tool_call_stream"
    """The same call streamed, its arguments split over at least two chunks."""
    PARALLEL_TOOL_CALLS = "parallel_tool_calls"
    """Non-streamed: ``weather_call`` then ``time_call``, finish reason tool calls."""
    PARALLEL_TOOL_CALLS_STREAM = "parallel_tool_calls_stream"
    """The same two calls streamed, arguments fragmented."""
    TOOL_RESULT_FOLLOWUP = "tool_result_followup"
    """Non-streamed: ``followup_text``, the answer after the tool result was sent."""
    LENGTH = "length"
    """Non-streamed: a non-empty answer cut by the token limit (finish reason length)."""
    LENGTH_STREAM = "length_stream"
    """The same, streamed."""
    STRUCTURED_OUTPUT = "structured_output"
    """Non-streamed: the JSON document ``structured`` as the answer's text."""
    CONTENT_FILTER = "content_filter"
    """Non-streamed: an answer stopped by the content filter (optional)."""
    STREAM_ERROR_EVENT = "stream_error_event"
    """A stream that delivers some text, then reports an error carrying ``error_message``
    with HTTP-like status 400 in the provider's in-stream error format (optional)."""


def _call(id: str, name: str, arguments: Mapping[str, Any]) -> ToolCall:
    return ToolCall(id, name, json.dumps(arguments))


@dataclass(frozen=True, slots=True)
class Expectations:
    """The facts canned replies encode; override fields a provider cannot express.

    Attributes:
        user_text: the question the kit asks.
        text: the answer of :attr:`Scenario.TEXT` and :attr:`Scenario.TEXT_STREAM`
            (with multi-byte characters, so split tests cut inside one).
        followup_text: the answer of :attr:`Scenario.TOOL_RESULT_FOLLOWUP`.
        prompt_tokens, completion_tokens, total_tokens: the usage every scenario reports.
        response_id: the response id replies carry (``""``: the provider has none).
        model: the model name replies carry (``""``: not checked).
        weather_call, time_call: the tool calls (ids unchecked when
            ``check_call_ids`` is false, for providers that send none).
        tool_result: what the kit's ``get_weather`` tool answered.
        structured: the JSON document of :attr:`Scenario.STRUCTURED_OUTPUT`.
        error_message: the message error replies carry.
        retry_after: the wait (seconds) a 429 reply asks for in its headers.
        check_call_ids: whether tool-call ids are compared and must be sent back.
    """

    user_text: str = "What is the capital of France?"
    text: str = "The capital of France is Paris — « la Ville Lumière »."
    followup_text: str = "It is 18°C and sunny in Paris."
    prompt_tokens: int = 12
    completion_tokens: int = 7
    total_tokens: int = 19
    response_id: str = "conformance-1"
    model: str = "conformance-model"
    weather_call: ToolCall = field(
        default_factory=lambda: _call("call_conf_1", "get_weather", {"city": "Paris"})
    )
    time_call: ToolCall = field(
        default_factory=lambda: _call("call_conf_2", "get_time", {"timezone": "Europe/Paris"})
    )
    tool_result: str = '{"temperature": 18, "sky": "sunny"}'
    structured: Mapping[str, Any] = field(default_factory=lambda: {"name": "John", "age": 30})
    error_message: str = "conformance: the request was rejected"
    retry_after: float = 7.0
    check_call_ids: bool = True

    @property
    def auth_error_message(self) -> str:
        """A 401 message echoing the key, as some servers do; adapters must mask it."""
        return f"Incorrect API key provided: {CONFORMANCE_API_KEY}"


@dataclass(frozen=True, slots=True)
class KitTool:
    """A tool the kit attaches to requests (never run: models do not run tools)."""

    name: str
    description: str
    parameters: Mapping[str, Any]

    @property
    def tool_definition(self) -> ToolDefinition:
        """Name, description and schema."""
        return ToolDefinition(self.name, self.description, json.dumps(self.parameters))

    @property
    def tool_metadata(self) -> ToolMetadata:
        """Default metadata."""
        return ToolMetadata()

    async def call(self, arguments: str, context: ToolContext | None = None) -> str:
        """Models never run tools; reaching this is a bug in the adapter."""
        raise AssertionError(f"a chat model ran the tool {self.name!r}")


#: The weather tool the kit attaches to tool requests.
WEATHER_TOOL = KitTool(
    "get_weather",
    "Current weather for a city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
#: The time tool the kit attaches beside it.
TIME_TOOL = KitTool(
    "get_time",
    "Current time in a time zone",
    {"type": "object", "properties": {"timezone": {"type": "string"}}, "required": ["timezone"]},
)
