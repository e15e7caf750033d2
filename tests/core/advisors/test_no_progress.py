"""No-progress detection: off by default (a polling tool runs every time it is asked);
keys, streaks, told texts and the stand-in tool once it is on."""

from __future__ import annotations

import asyncio

import pytest

from ostinato.advisors import NoProgressAction, ToolCallingAdvisor, ToolCallingAdvisorSettings
from ostinato.advisors._no_progress import (
    NoProgressTracker,
    RepeatedCallAnswerer,
    call_key,
    no_progress_action,
)
from ostinato.client import ChatClient
from ostinato.events import LoopEvent, ToolFinished
from ostinato.messages import ToolCall, ToolResponse, ToolResponseMessage
from ostinato.testing import ScriptedChatModel, tool_call, tool_call_response
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


class PollingJob:
    """A job whose status is polled: ``running`` twice, then ``done``."""

    def __init__(self) -> None:
        self.answers = ["running", "running", "done"]
        self.polls = 0

    @tool(description="The status of a job")
    def job_status(self, job: str) -> str:
        """Poll ``job``."""
        self.polls += 1
        return self.answers[min(self.polls, 3) - 1]


@pytest.mark.parametrize("path", ["call", "stream"])
def test_by_default_every_identical_poll_runs(path):
    polls = [
        tool_call_response(tool_call("job_status", {"job": "42"}, id=f"p{n}")) for n in range(3)
    ]
    model = ScriptedChatModel([*polls, "Job 42 is done."])
    job = PollingJob()
    events: list[LoopEvent] = []
    spec = ChatClient(model).prompt("Wait for job 42").tools(job).listener(events.append)
    text = spec.call().content() if path == "call" else "".join(spec.stream().content())
    assert text == "Job 42 is done."
    assert job.polls == 3
    results = [e.result for e in events if isinstance(e, ToolFinished)]
    assert results == ["running", "running", "done"]
    last = model.prompts[-1].messages[-1]
    assert isinstance(last, ToolResponseMessage)
    assert last.responses[0].response_data == "done"


def test_detection_is_off_by_default_and_on_when_either_setting_is_given():
    assert ToolCallingAdvisorSettings(DefaultToolCallingManager()).no_progress_repeats is None
    assert ToolCallingAdvisor().tool_calling_settings.no_progress_repeats is None
    assert ToolCallingAdvisor.builder().build().tool_calling_settings.no_progress_repeats is None
    ended = ToolCallingAdvisor(no_progress_action="end").tool_calling_settings
    assert (ended.no_progress_repeats, ended.no_progress_action) == (3, NoProgressAction.END)
    told = ToolCallingAdvisor(no_progress_repeats=4).tool_calling_settings
    assert (told.no_progress_repeats, told.no_progress_action) == (4, NoProgressAction.TELL)
    off = ToolCallingAdvisor(no_progress_action="end").copy(no_progress_repeats=None)
    assert off.tool_calling_settings.no_progress_repeats is None
