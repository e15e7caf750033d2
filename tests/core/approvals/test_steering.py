"""Steering a running turn: messages added to its ``Steering`` join the conversation at
the next round boundary (after the tool responses, or after an answer, the turn then
going on), on every face; the requests the model receives stay valid; a message added
from another thread while a tool runs is taken; one added too late stays waiting."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from ostinato import ChatClient, Steering, tool
from ostinato.advisors import ToolCallingAdvisor
from ostinato.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.prompt import Prompt
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from tests.core.approvals.faces import FACES, text

ADDED = threading.Event()


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: sunny"


@tool
def waits_for_steering(city: str) -> str:
    """Look a city up, once a message was steered in (from another thread)."""
    assert ADDED.wait(10)
    return f"{city}: rain"


def kinds(messages: tuple[Message, ...] | list[Message]) -> list[str]:
    return [type(m).__name__ for m in messages]


def assert_valid(messages: tuple[Message, ...] | list[Message]) -> None:
    """Every tool call answered by the next message; no response without its call."""
    asked: set[str] = set()
    for i, message in enumerate(messages):
        if isinstance(message, AssistantMessage) and message.tool_calls:
            following = messages[i + 1] if i + 1 < len(messages) else None
            assert isinstance(following, ToolResponseMessage), kinds(messages)
            ids = {c.id for c in message.tool_calls}
            assert {r.id for r in following.responses} == ids
            asked |= ids
        if isinstance(message, ToolResponseMessage):
            assert {r.id for r in message.responses} <= asked


@pytest.mark.parametrize("face", FACES)
def test_a_message_steered_during_a_tool_round_follows_its_tool_responses(face: str) -> None:
    steering = Steering()

    def asks_for_tools(prompt: Prompt) -> Any:
        steering.add("and in Oslo?")  # while the turn runs
        return tool_call_response(("lookup", {"city": "Paris"}))

    model = ScriptedChatModel([asks_for_tools, "Paris is sunny; Oslo too."])
    client = ChatClient.builder(model).default_tools(lookup).build()
    answer = text(client.prompt().user("Weather in Paris?").steering(steering), face)

    assert answer == "Paris is sunny; Oslo too."
    second = model.prompts[1].messages
    assert kinds(second) == [
        "UserMessage",
        "AssistantMessage",
        "ToolResponseMessage",
        "UserMessage",
    ]
    assert second[-1] == UserMessage("and in Oslo?")
    assert_valid(second)
    assert steering.joined == (UserMessage("and in Oslo?"),)
    assert steering.waiting == 0


@pytest.mark.parametrize("face", FACES)
def test_a_message_steered_during_an_answer_gets_one_more_round(face: str) -> None:
    steering = Steering()

    def answers(prompt: Prompt) -> Any:
        steering.add("shorter, please")
        return text_response("A long answer.")

    model = ScriptedChatModel([answers, "Short."])
    client = ChatClient.builder(model).build()
    answer = text(client.prompt().system("Be kind.").user("Tell me").steering(steering), face)

    assert answer.endswith("Short.")
    second = model.prompts[1].messages
    assert second == (
        SystemMessage("Be kind."),
        UserMessage("Tell me"),
        AssistantMessage("A long answer."),
        UserMessage("shorter, please"),
    )
    assert steering.joined == (AssistantMessage("A long answer."), UserMessage("shorter, please"))


def test_a_message_added_from_another_thread_while_a_tool_runs_is_taken() -> None:
    ADDED.clear()
    steering = Steering()
    model = ScriptedChatModel([tool_call_response(("waits_for_steering", {"city": "Rome"})), "ok"])
    client = ChatClient.builder(model).default_tools(waits_for_steering).build()

    def steer() -> None:
        steering.add(UserMessage("also Milan"))
        ADDED.set()

    thread = threading.Thread(target=steer)
    thread.start()
    assert client.prompt("Rome?").steering(steering).call().content() == "ok"
    thread.join()
    assert model.prompts[1].messages[-1] == UserMessage("also Milan")


def test_without_steered_messages_the_turn_is_unchanged() -> None:
    steering = Steering()
    model = ScriptedChatModel([tool_call_response(("lookup", {"city": "Paris"})), "done"])
    client = ChatClient.builder(model).default_tools(lookup).build()
    assert client.prompt("Paris?").steering(steering).call().content() == "done"
    assert model.call_count == 2
    assert steering.joined == ()


def test_a_message_added_after_the_last_boundary_stays_waiting() -> None:
    steering = Steering()
    model = ScriptedChatModel(["done"])
    client = ChatClient.builder(model).build()
    assert client.prompt("hi").steering(steering).call().content() == "done"
    steering.add("too late")
    assert steering.waiting == 1
    assert steering.drain() == [UserMessage("too late")]
    assert steering.waiting == 0


def test_at_the_iteration_cap_an_answer_is_not_continued() -> None:
    steering = Steering()

    def answers(prompt: Prompt) -> Any:
        steering.add("more")
        return text_response("final")

    model = ScriptedChatModel([answers])
    advisor = ToolCallingAdvisor(max_iterations=1)
    client = ChatClient.builder(model).default_advisors(advisor).build()
    assert client.prompt("hi").steering(steering).call().content() == "final"
    assert steering.waiting == 1


def test_steering_checks_what_it_is_given() -> None:
    steering = Steering()
    with pytest.raises(ValueError, match="blank"):
        steering.add("  ")
    with pytest.raises(TypeError, match="UserMessage"):
        steering.add(AssistantMessage("no"))  # type: ignore[arg-type]
    model = ScriptedChatModel(["x"])
    with pytest.raises(TypeError, match="Steering"):
        ChatClient.builder(model).build().prompt("x").steering(object())  # type: ignore[arg-type]
