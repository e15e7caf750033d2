"""No-progress detection: keys, streaks, told texts and the stand-in tool."""

from __future__ import annotations

import asyncio

import pytest

from ostinato.advisors import NoProgressAction, ToolCallingAdvisorSettings
from ostinato.advisors._no_progress import (
    NoProgressTracker,
    RepeatedCallAnswerer,
    call_key,
    no_progress_action,
)
from ostinato.messages import ToolCall, ToolResponse, ToolResponseMessage
from ostinato.tools import DefaultToolCallingManager, tool, tool_callbacks


def call(args: str, id: str = "c", name: str = "weather") -> ToolCall:
    return ToolCall(id, name, args)


def test_arguments_compare_as_json():
    assert call_key(call('{"a": 1, "b": 2}')) == call_key(call('{ "b":2,"a":1 }'))
    assert call_key(call("")) == call_key(call("{}"))
    assert call_key(call("not json")) == ("weather", "not json")


def test_a_key_repeated_in_consecutive_rounds_is_no_progress_at_the_third():
    tracker = NoProgressTracker(3)
    assert tracker.observe([call('{"city": "Paris"}', "1")]) is None
    tracker.record(
        [call('{"city": "Paris"}', "1")],
        ToolResponseMessage((ToolResponse("1", "weather", "sunny"),)),
    )
    assert tracker.observe([call('{"city": "Paris"}', "2")]) is None
    found = tracker.observe([call('{"city": "Paris"}', "3"), call('{"city": "Rome"}', "4")])
    assert found is not None
    assert [c.id for c in found.calls] == ["3"]
    [text] = found.told.values()
    assert text.startswith("You already called weather with these arguments")
    assert "2 times in a row; its result was: sunny." in text


def test_a_different_call_in_between_resets_the_streak():
    tracker = NoProgressTracker(2)
    assert tracker.observe([call("{}")]) is None
    assert tracker.observe([call("{}", name="other")]) is None
    assert tracker.observe([call("{}")]) is None


def test_the_stand_in_answers_repeated_arguments_and_runs_others():
    ran = []

    @tool(description="Weather", return_direct=True)
    def weather(city: str) -> str:
        ran.append(city)
        return city

    [real] = tool_callbacks(weather)
    stand_in = RepeatedCallAnswerer(real, {("weather", '{"city":"Paris"}'): "told"})
    assert stand_in.tool_definition == real.tool_definition
    assert stand_in.tool_metadata.return_direct is False
    assert asyncio.run(stand_in.call('{"city": "Paris"}')) == "told"
    assert asyncio.run(stand_in.call('{"city": "Rome"}')) == "Rome"
    assert ran == ["Rome"]


def test_the_action_and_the_repeats_are_checked():
    assert no_progress_action("end") is NoProgressAction.END
    with pytest.raises(ValueError, match="no_progress_action must be one of 'tell', 'end'"):
        no_progress_action("stop")
    manager = DefaultToolCallingManager()
    with pytest.raises(ValueError, match="no_progress_repeats must be an int of at least 2"):
        ToolCallingAdvisorSettings(manager, no_progress_repeats=1)
    assert ToolCallingAdvisorSettings(manager, no_progress_repeats=None).no_progress_repeats is None
