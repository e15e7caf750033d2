"""``ReplyShapes``: :meth:`~ConformanceBase.canned` written once, from three reply shapes.

Most providers answer every scenario with one of three shapes: a whole reply (text, or
tool calls, and a finish reason), a stream of text pieces, and a stream of tool calls
whose arguments come in fragments. An adapter's test module writes those shapes in its
wire format and names its finish reasons; this class decides, for every
:class:`~ostinato.testing.conformance.Scenario`, which shape answers it and with what.
It must not hold any provider's format.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import ClassVar

from ostinato.messages import ToolCall
from ostinato.model import FinishReason
from ostinato.testing.conformance._base import ConformanceBase
from ostinato.testing.conformance._canned import CannedResponse
from ostinato.testing.conformance._script import Scenario

__all__ = ["ReplyShapes"]

#: The answer the token limit cuts in the length scenarios, and its streamed pieces.
_CUT = ("The capital", " of")


class ReplyShapes(ConformanceBase):
    """:meth:`canned` for every scenario, from the provider's three reply shapes.

    Implement :meth:`whole_reply`, :meth:`text_stream` and :meth:`calls_stream` (and
    :meth:`error_event` where the provider reports errors inside a stream); declare
    :attr:`finish_reasons` where the provider's names differ from ostinato's.

    Class attributes:
        finish_reasons: the provider's raw finish reason for each of ``"stop"``,
            ``"length"``, ``"tool_calls"`` and ``"content_filter"`` it names otherwise
            (one left out is sent as ostinato names it); ``None`` for a content filter the
            provider does not have, whose scenario is then skipped.
    """

    finish_reasons: ClassVar[Mapping[str, str | None]] = {}

    def whole_reply(
        self, text: str | None, calls: Sequence[ToolCall], finish: str
    ) -> CannedResponse:
        """A non-streamed reply: ``text`` (``None``: no text) or ``calls``, its raw finish
        reason ``finish``, the usage, ``response_id`` and ``model`` of the expectations."""
        raise NotImplementedError(f"{type(self).__name__} must implement whole_reply()")

    def text_stream(self, pieces: Sequence[str], finish: str) -> CannedResponse:
        """A stream of the text ``pieces``, then the raw finish reason ``finish``, the usage
        and the end-of-stream marker."""
        raise NotImplementedError(f"{type(self).__name__} must implement text_stream()")

    def calls_stream(self, calls: Sequence[ToolCall], finish: str) -> CannedResponse:
        """A stream of ``calls``, each one's arguments split over two chunks or more where
        the provider fragments them, then ``finish``, the usage and the end marker."""
        raise NotImplementedError(f"{type(self).__name__} must implement calls_stream()")

    def error_event(self) -> CannedResponse | None:
        """A stream delivering some text, then an error carrying ``error_message`` with
        status 400 in the provider's in-stream format; ``None`` (default) skips its test."""
        return None

    def finish(self, reason: FinishReason) -> str:
        """The provider's raw finish reason for ``reason`` (from :attr:`finish_reasons`, or
        ``reason`` itself)."""
        raw = self.finish_reasons.get(reason, reason.value)
        if raw is None:
            raise NotImplementedError(
                f"{type(self).__name__}.finish_reasons maps {reason.value!r} to None; only "
                "'content_filter' may be missing: name the provider's raw reason for it"
            )
        return raw

    def canned(self, scenario: Scenario) -> CannedResponse | None:
        """The shape answering ``scenario`` (``None`` for a content filter the provider
        does not have, or an error event it does not send)."""
        exp = self.expectations
        calls = [exp.weather_call, exp.time_call]
        stop = FinishReason.STOP
        match scenario:
            case Scenario.TEXT:
                return self.whole_reply(exp.text, (), self.finish(stop))
            case Scenario.TEXT_STREAM:
                text = exp.text
                return self.text_stream([text[:10], text[10:27], text[27:]], self.finish(stop))
            case Scenario.TOOL_CALL:
                return self.whole_reply(None, calls[:1], self.finish(FinishReason.TOOL_CALLS))
            case Scenario.TOOL_CALL_STREAM:
                return self.calls_stream(calls[:1], self.finish(FinishReason.TOOL_CALLS))
            case Scenario.PARALLEL_TOOL_CALLS:
                return self.whole_reply(None, calls, self.finish(FinishReason.TOOL_CALLS))
            case Scenario.PARALLEL_TOOL_CALLS_STREAM:
                return self.calls_stream(calls, self.finish(FinishReason.TOOL_CALLS))
            case Scenario.TOOL_RESULT_FOLLOWUP:
                return self.whole_reply(exp.followup_text, (), self.finish(stop))
            case Scenario.LENGTH:
                return self.whole_reply("".join(_CUT), (), self.finish(FinishReason.LENGTH))
            case Scenario.LENGTH_STREAM:
                return self.text_stream(_CUT, self.finish(FinishReason.LENGTH))
            case Scenario.STRUCTURED_OUTPUT:
                return self.whole_reply(json.dumps(exp.structured), (), self.finish(stop))
            case Scenario.CONTENT_FILTER:
                if self.finish_reasons.get(FinishReason.CONTENT_FILTER, "") is None:
                    return None
                return self.whole_reply(None, (), self.finish(FinishReason.CONTENT_FILTER))
            case Scenario.STREAM_ERROR_EVENT:
                return self.error_event()
