"""``SmallModelHintAdvisor``: a turn stopped by the iteration cap explains itself."""

from __future__ import annotations

from ostinato import ChatClient, ToolCallingAdvisor, tool
from ostinato.model import FinishReason
from ostinato.testing import ScriptedChatModel, tool_call_response
from ostinato_llamacpp import SmallModelHintAdvisor

HINT = "note: the bundled model is small\nfix: point OSTINATO_MODEL at a stronger model"


@tool(description="Current weather for a city")
def weather(city: str) -> str:
    """A fixed forecast."""
    return f"sunny in {city}"


def looping_model(rounds: int) -> ScriptedChatModel:
    return ScriptedChatModel(
        [tool_call_response(("weather", {"city": "Paris"})) for _ in range(rounds)]
    )


def client(model: ScriptedChatModel) -> ChatClient:
    return (
        ChatClient.builder(model, tool_advisor=ToolCallingAdvisor(max_iterations=2))
        .default_advisors(SmallModelHintAdvisor(HINT))
        .build()
    )


def test_the_hint_follows_the_cap_message_on_call() -> None:
    response = client(looping_model(2)).prompt("weather?").tools(weather).call().chat_response()
    assert response is not None
    assert response.has_finish_reasons(FinishReason.MAX_ITERATIONS_EXCEEDED)
    text = response.text or ""
    assert text.startswith("Stopped after 2 model rounds") and text.endswith(HINT)


def test_the_hint_follows_the_cap_message_on_stream() -> None:
    pieces = list(client(looping_model(2)).prompt("weather?").tools(weather).stream().content())
    text = "".join(pieces)
    assert "Stopped after 2 model rounds" in text and text.endswith(HINT)


def test_other_answers_pass_unchanged() -> None:
    model = ScriptedChatModel(["plain answer", "plain answer"])
    assert client(model).prompt("hi").call().content() == "plain answer"
    assert "".join(client(model).prompt("hi").stream().content()) == "plain answer"


def test_it_sits_just_outside_the_tool_loop() -> None:
    advisor = SmallModelHintAdvisor(HINT)
    assert advisor.order == ToolCallingAdvisor.DEFAULT_ORDER - 1
    assert advisor.name == "llamacpp-hints" and advisor.hint == HINT
    assert SmallModelHintAdvisor(HINT, order=5).order == 5
