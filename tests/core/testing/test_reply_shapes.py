"""``ReplyShapes``: the kit answers every scenario with one of the three shapes a test
module writes, with the raw finish reasons it declares."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

import pytest

from ostinato.messages import ToolCall
from ostinato.testing.conformance import CannedResponse, Expectations, ReplyShapes, Scenario

EXP = Expectations()
CALLS = [EXP.weather_call, EXP.time_call]
CUT = ["The capital", " of"]


def shape(*parts: object) -> CannedResponse:
    """A reply whose body names the shape and what it was asked for."""
    return CannedResponse.text(repr(parts))


class Shapes(ReplyShapes):
    finish_reasons: ClassVar[Mapping[str, str | None]] = {
        "stop": "END",
        "tool_calls": "CALLS",
        "content_filter": None,
    }

    def whole_reply(
        self, text: str | None, calls: Sequence[ToolCall], finish: str
    ) -> CannedResponse:
        return shape("whole", text, list(calls), finish)

    def text_stream(self, pieces: Sequence[str], finish: str) -> CannedResponse:
        return shape("text stream", list(pieces), finish)

    def calls_stream(self, calls: Sequence[ToolCall], finish: str) -> CannedResponse:
        return shape("calls stream", list(calls), finish)


class Filtering(Shapes):
    finish_reasons: ClassVar[Mapping[str, str | None]] = {"content_filter": "F"}


SHAPES = {
    Scenario.TEXT: shape("whole", EXP.text, [], "END"),
    Scenario.TEXT_STREAM: shape(
        "text stream", [EXP.text[:10], EXP.text[10:27], EXP.text[27:]], "END"
    ),
    Scenario.TOOL_CALL: shape("whole", None, CALLS[:1], "CALLS"),
    Scenario.TOOL_CALL_STREAM: shape("calls stream", CALLS[:1], "CALLS"),
    Scenario.PARALLEL_TOOL_CALLS: shape("whole", None, CALLS, "CALLS"),
    Scenario.PARALLEL_TOOL_CALLS_STREAM: shape("calls stream", CALLS, "CALLS"),
    Scenario.TOOL_RESULT_FOLLOWUP: shape("whole", EXP.followup_text, [], "END"),
    Scenario.LENGTH: shape("whole", "The capital of", [], "length"),
    Scenario.LENGTH_STREAM: shape("text stream", CUT, "length"),
    Scenario.STRUCTURED_OUTPUT: shape("whole", '{"name": "John", "age": 30}', [], "END"),
    Scenario.CONTENT_FILTER: None,
    Scenario.STREAM_ERROR_EVENT: None,
}


@pytest.mark.parametrize("scenario", list(Scenario), ids=[s.value for s in Scenario])
def test_each_scenario_is_answered_by_its_shape(scenario: Scenario) -> None:
    assert Shapes().canned(scenario) == SHAPES[scenario]


def test_finish_reasons_not_renamed_are_sent_as_ostinato_names_them() -> None:
    assert Filtering().canned(Scenario.CONTENT_FILTER) == shape("whole", None, [], "F")
    assert Filtering().canned(Scenario.TEXT) == shape("whole", EXP.text, [], "stop")


def test_only_the_content_filter_may_be_missing() -> None:
    class NoLength(Shapes):
        finish_reasons: ClassVar[Mapping[str, str | None]] = {"length": None}

    with pytest.raises(NotImplementedError, match=r"NoLength.finish_reasons maps 'length' to"):
        NoLength().canned(Scenario.LENGTH)
