"""End to end: the bundled model drives the weather loop through an auto-configured client.

A real ``llama-server`` built by ``ostinato local setup`` runs the bundled
Qwen2.5-Coder-1.5B-Instruct. The test asks "What is the weather in Paris and in Tokyo?"
with a weather tool, on ``call()`` and on ``stream()``, and checks the protocol: the
tool ran for each city, the results went back to the model, and the turn ended with a
text answer, or (documented in the README) with the iteration cap, whose answer then
carries the small-model hint.

Without the server and the model this test fails, telling to run the setup, unless
``SKIP_LLAMACPP_E2E=1`` says to skip it: CI runs the setup first, so it never skips there
by accident.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from typing import Annotated, Any

import pytest

from ostinato import ChatClient, ChatClientRequestSpec, ToolCallingAdvisor, tool
from ostinato.advisors import AdvisorChain, BaseAdvisor, ChatClientRequest
from ostinato.messages import AssistantMessage, ToolResponseMessage
from ostinato.model import FinishReason
from ostinato_llamacpp import LlamaCppChatModel

pytestmark = pytest.mark.llamacpp_e2e

QUESTION = "What is the weather in Paris and in Tokyo?"
SKIP_VARIABLE = "SKIP_LLAMACPP_E2E"
FORECASTS = {
    "paris": {"temperature_c": 18, "sky": "cloudy"},
    "tokyo": {"temperature_c": 24, "sky": "sunny"},
}
# Read at import: the autouse fixtures clear OSTINATO_* variables for each test.
_LLAMACPP_ENVIRONMENT = {k: v for k, v in os.environ.items() if k.startswith("OSTINATO_LLAMACPP_")}


class RoundRecorder(BaseAdvisor):
    """Sits inside the tool loop and records the prompt of every model round."""

    def __init__(self) -> None:
        self.prompts: list[list[Any]] = []

    @property
    def order(self) -> int:
        """Just inside the tool advisor."""
        return ToolCallingAdvisor.DEFAULT_ORDER + 1

    async def before(self, request: ChatClientRequest, chain: AdvisorChain) -> ChatClientRequest:
        """Record, then go on."""
        self.prompts.append(list(request.prompt.messages))
        return request


@pytest.fixture(scope="module")
def client() -> Iterator[ChatClient]:
    """An auto-configured client on ``llamacpp:default`` (the model closed at the end)."""
    from ostinato.config import build_container
    from ostinato.errors import ConfigurationError

    with pytest.MonkeyPatch.context() as patch:
        for name in list(os.environ):
            if name.startswith("OSTINATO_"):
                patch.delenv(name)
        for name, value in _LLAMACPP_ENVIRONMENT.items():
            patch.setenv(name, value)
        patch.setenv("OSTINATO_MODEL", "llamacpp:default")
        patch.setenv("OSTINATO_LOAD_PLUGINS", "llamacpp")
        patch.setenv("OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR", "default")
        patch.setenv("OSTINATO_TOOLS__MAX_ITERATIONS", "4")
        container = build_container()
        try:
            built: ChatClient = container.chat_client()
        except ConfigurationError as exc:
            if os.environ.get(SKIP_VARIABLE) == "1":
                pytest.skip(f"{SKIP_VARIABLE}=1 and the local model is not set up: {exc}")
            pytest.fail(
                "the end-to-end test needs llama-server and the bundled model; run "
                f"`uv run ostinato local setup` first (or set {SKIP_VARIABLE}=1 to skip it)\n"
                f"{exc}",
                pytrace=False,
            )
        model = container.chat_model()
    assert isinstance(model, LlamaCppChatModel)
    model.start()  # load the model once, outside the timed turns
    try:
        yield built
    finally:
        model.close()


def weather_tool(called: list[str]) -> Any:
    @tool(description="Current weather for a city")
    def weather(city: Annotated[str, "The city, e.g. Paris"]) -> dict[str, Any]:
        """Today's forecast."""
        called.append(city)
        return {"city": city, **FORECASTS.get(city.strip().lower(), {"sky": "unknown"})}

    return weather


def weather_question(
    client: ChatClient, called: list[str], recorder: RoundRecorder
) -> ChatClientRequestSpec:
    """The question, with the weather tool (noting each city in ``called``) and ``recorder``."""
    return client.prompt().user(QUESTION).tools(weather_tool(called)).advisors(recorder)


def check_protocol(called: list[str], recorder: RoundRecorder, text: str, finish: str) -> None:
    cities = {city.strip().lower() for city in called}
    assert {"paris", "tokyo"} <= cities, f"the tool ran for {called}"
    sent_back = [
        json.loads(response.response_data)["city"].lower()
        for prompt in recorder.prompts[1:]
        for message in prompt
        if isinstance(message, ToolResponseMessage)
        for response in message.responses
    ]
    assert {"paris", "tokyo"} <= set(sent_back), "the results did not go back to the model"
    asked = [
        call.name
        for message in recorder.prompts[-1]
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls
    ]
    assert asked and set(asked) == {"weather"}
    if finish == FinishReason.MAX_ITERATIONS_EXCEEDED:  # documented: the model kept calling
        assert "Stopped after 4 model rounds" in text and "is small" in text
    else:
        assert finish.lower() == FinishReason.STOP and text.strip(), f"ended with {finish!r}"


def test_weather_loop_on_call(client: ChatClient) -> None:
    called: list[str] = []
    recorder = RoundRecorder()
    started = time.monotonic()
    response = weather_question(client, called, recorder).call().chat_response()
    elapsed = time.monotonic() - started
    assert response is not None and response.result is not None
    finish = response.result.finish_reason or ""
    check_protocol(called, recorder, response.text or "", finish)
    print(f"\ncall: {len(recorder.prompts)} rounds, {elapsed:.1f} s: {response.text!r}")


def test_weather_loop_on_stream(client: ChatClient) -> None:
    called: list[str] = []
    recorder = RoundRecorder()
    started = time.monotonic()
    responses = list(weather_question(client, called, recorder).stream().chat_client_responses())
    elapsed = time.monotonic() - started
    finishes = [
        g.finish_reason
        for r in responses
        if r.chat_response is not None
        for g in r.chat_response.generations
        if g.finish_reason
    ]
    text = "".join(r.chat_response.text or "" for r in responses if r.chat_response is not None)
    assert finishes, "the stream ended without a finish reason"
    check_protocol(called, recorder, text, finishes[-1])
    print(f"\nstream: {len(recorder.prompts)} rounds, {elapsed:.1f} s: {text!r}")
