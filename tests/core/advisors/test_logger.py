"""SimpleLoggerAdvisor: what it logs on the call and stream paths, and what it never logs."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

import pytest

from ostinato.advisors import (
    ChatClientRequest,
    SimpleLoggerAdvisor,
    ToolCallingAdvisor,
)
from ostinato.messages import AssistantMessage, SystemMessage, ToolCall, UserMessage
from ostinato.prompt import ToolCallingChatOptions
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato.tools import ToolDefinition, ToolMetadata
from tests.core.advisors.loop_harness import MODES, chain_for, request
from tests.fakes.managers import RecordingManager

LOGGER = "ostinato.advisors.logger"
SECRET = "sk-very-secret-value"


@dataclass
class NamedTool:
    """Just enough of a ToolCallback to be rendered."""

    name: str

    @property
    def tool_definition(self) -> ToolDefinition:
        return ToolDefinition(self.name, "a tool", "{}")

    @property
    def tool_metadata(self) -> ToolMetadata:
        return ToolMetadata()

    async def call(self, arguments: str, context: object = None) -> str:
        return "ok"


async def run(mode: str, model: ScriptedChatModel, req: ChatClientRequest, *advisors):
    chain = chain_for(model, *advisors)
    if mode == "call":
        return [await chain.next_call(req)]
    return [chunk async for chunk in chain.next_stream(req)]


def messages(caplog: pytest.LogCaptureFixture, logger: str = LOGGER) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == logger]


def test_defaults():
    advisor = SimpleLoggerAdvisor()
    assert advisor.name == "SimpleLoggerAdvisor"
    assert advisor.order == 0
    assert advisor.logger.name == LOGGER
    assert SimpleLoggerAdvisor(order=-5).order == -5


@pytest.mark.parametrize("mode", MODES)
async def test_logs_request_then_response_at_debug(mode, caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    model = ScriptedChatModel([text_response("Paris is sunny", usage=(3, 4, 7))])
    req = request(SystemMessage("be brief"), UserMessage("Weather in Paris?"))
    await run(mode, model, req, SimpleLoggerAdvisor())
    logged = messages(caplog)
    assert len(logged) == 2
    assert all(r.levelno == logging.DEBUG for r in caplog.records if r.name == LOGGER)
    assert logged[0].startswith("request: ")
    assert "[system] be brief" in logged[0]
    assert "[user] Weather in Paris?" in logged[0]
    assert logged[1].startswith("response: ")
    rendered = json.loads(logged[1].removeprefix("response: "))
    assert rendered["generations"][0]["output"]["text"] == "Paris is sunny"
    assert rendered["metadata"]["usage"]["total_tokens"] == 7


@pytest.mark.parametrize("mode", MODES)
async def test_passes_everything_through_unchanged(mode, caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    script = [text_response("a fairly long answer", usage=(1, 2, 3))]
    req = request()
    without = await run(mode, ScriptedChatModel(list(script)), req)
    with_logger = await run(mode, ScriptedChatModel(list(script)), req, SimpleLoggerAdvisor())
    assert with_logger == without
    if mode == "stream":
        assert len(with_logger) > 1  # really chunked


async def test_stream_logs_the_aggregate_once_at_the_end(caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    model = ScriptedChatModel([text_response("one two three four")], chunk_size=3)
    chain = chain_for(model, SimpleLoggerAdvisor())
    seen_before_end: list[int] = []
    async for _ in chain.next_stream(request()):
        seen_before_end.append(len(messages(caplog)))
    assert set(seen_before_end) == {1}  # only the request while chunks flow
    logged = messages(caplog)
    assert len(logged) == 2
    rendered = json.loads(logged[1].removeprefix("response: "))
    assert rendered["generations"][0]["output"]["text"] == "one two three four"


async def test_stream_closed_early_logs_no_response(caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    model = ScriptedChatModel([text_response("one two three four")], chunk_size=3)
    stream = chain_for(model, SimpleLoggerAdvisor()).next_stream(request())
    async for _ in stream:
        break
    await stream.aclose()  # type: ignore[attr-defined]
    assert [m.split(":")[0] for m in messages(caplog)] == ["request"]


@pytest.mark.parametrize("mode", MODES)
async def test_tool_context_values_are_never_logged(mode, caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    options = ToolCallingChatOptions(
        model="gpt-test",
        temperature=0.25,
        tool_callbacks=(NamedTool("weather"), NamedTool("stocks")),
        tool_context={"api_key": SECRET, "user_token": SECRET},
    )
    model = ScriptedChatModel([text_response("done")])
    await run(mode, model, request(options=options), SimpleLoggerAdvisor())
    text = "\n".join(messages(caplog))
    assert SECRET not in text
    assert "api_key" not in text
    first = messages(caplog)[0]
    assert "model='gpt-test'" in first
    assert "temperature=0.25" in first
    assert "tool_callbacks=[weather, stocks]" in first
    assert "tool_context=<2 entries, not logged>" in first
    assert "NamedTool" not in first  # tools by name only


def test_default_request_rendering_shows_tool_rounds_and_context_keys():
    from ostinato.advisors._logger import render_request
    from ostinato.messages import ToolResponse, ToolResponseMessage

    req = request(
        UserMessage("hi"),
        AssistantMessage(None, (ToolCall("c1", "weather", '{"city":"Paris"}'),)),
        ToolResponseMessage([ToolResponse("c1", "weather", "sunny")]),
    ).with_context(conversation_id="u-42")
    text = render_request(req)
    assert '[assistant] weather({"city":"Paris"}) id=c1' in text
    assert "[tool] weather id=c1: sunny" in text
    assert "context keys: ['conversation_id']" in text
    assert "u-42" not in text


@pytest.mark.parametrize("mode", MODES)
async def test_custom_renderers_logger_and_level(mode, caplog):
    caplog.set_level(logging.INFO, logger="my.audit")
    advisor = SimpleLoggerAdvisor(
        request_to_string=lambda r: f"{len(r.prompt.messages)} message(s)",
        response_to_string=lambda r: f"answer={r.text if r else None}",
        logger_name="my.audit",
        level=logging.INFO,
    )
    await run(mode, ScriptedChatModel(["ok"]), request(), advisor)
    logged = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "my.audit"]
    assert logged == [
        (logging.INFO, "request: 1 message(s)"),
        (logging.INFO, "response: answer=ok"),
    ]


@pytest.mark.parametrize("mode", MODES)
async def test_nothing_is_rendered_when_the_level_is_disabled(mode, caplog):
    caplog.set_level(logging.WARNING, logger=LOGGER)
    rendered: list[str] = []

    def spy(value: object) -> str:
        rendered.append("x")
        return "x"

    advisor = SimpleLoggerAdvisor(request_to_string=spy, response_to_string=spy)
    await run(mode, ScriptedChatModel(["ok"]), request(), advisor)
    assert rendered == []
    assert messages(caplog) == []


@pytest.mark.parametrize("mode", MODES)
async def test_outside_the_tool_loop_it_logs_once_with_the_final_answer(mode, caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    model = ScriptedChatModel([tool_call_response(("weather", {"city": "Paris"})), "sunny"])
    loop = ToolCallingAdvisor(tool_calling_manager=RecordingManager())
    await run(mode, model, request(), SimpleLoggerAdvisor(order=-(2**31) + 1), loop)
    logged = messages(caplog)
    assert len(logged) == 2
    rendered = json.loads(logged[1].removeprefix("response: "))
    assert rendered["generations"][0]["output"]["text"] == "sunny"


@pytest.mark.parametrize("mode", MODES)
async def test_inside_the_tool_loop_it_logs_every_round(mode, caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    model = ScriptedChatModel([tool_call_response(("weather", {"city": "Paris"})), "sunny"])
    loop = ToolCallingAdvisor(tool_calling_manager=RecordingManager())
    await run(mode, model, request(), loop, SimpleLoggerAdvisor())
    logged = messages(caplog)
    assert [m.split(":")[0] for m in logged] == ["request", "response", "request", "response"]
    assert "[tool] weather" in logged[2]
