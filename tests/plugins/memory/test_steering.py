"""Steered messages in memory: outside the loop they are stored between the turn's user
message and its answer (after the answer they followed, if any); inside the loop with the
round they joined. Either way the stored conversation is valid and reads in order."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ostinato import ChatClient, Steering, tool
from ostinato.advisors import ToolCallingAdvisor
from ostinato.client import AdvisorParams
from ostinato.messages import AssistantMessage, Message, ToolResponseMessage, UserMessage
from ostinato.prompt import Prompt
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato_memory import MessageChatMemoryAdvisor, MessageWindowChatMemory
from tests.core.approvals.faces import FACES, text
from tests.core.approvals.test_steering import assert_valid, kinds

INSIDE = ToolCallingAdvisor.DEFAULT_ORDER + 1


@tool
def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: sunny"


def _stored(script: list[Any], steering: Steering, face: str, order: int | None) -> list[Message]:
    memory = MessageWindowChatMemory()
    advisor = (
        MessageChatMemoryAdvisor(memory)
        if order is None
        else MessageChatMemoryAdvisor(memory, order=order)
    )
    model = ScriptedChatModel(script)
    client = ChatClient.builder(model).default_advisors(advisor).default_tools(lookup).build()
    spec = client.prompt("Paris?").steering(steering)
    text(spec.advisors(AdvisorParams.conversation_id("c")), face)
    return asyncio.run(memory.get("c"))


@pytest.mark.parametrize("order", [None, INSIDE], ids=["outside", "inside"])
@pytest.mark.parametrize("face", FACES)
def test_a_message_steered_into_a_tool_round_is_stored_valid(face: str, order: int | None) -> None:
    steering = Steering()

    def asks(prompt: Prompt) -> Any:
        steering.add("and Oslo?")
        return tool_call_response(("lookup", {"city": "Paris"}))

    stored = _stored([asks, "Both sunny."], steering, face, order)
    assert_valid(stored)
    assert stored[0] == UserMessage("Paris?")
    assert UserMessage("and Oslo?") in stored
    assert isinstance(stored[-1], AssistantMessage) and stored[-1].text == "Both sunny."
    if order is None:
        assert kinds(stored) == ["UserMessage", "UserMessage", "AssistantMessage"]
    else:
        assert kinds(stored) == [
            "UserMessage",
            "AssistantMessage",
            "ToolResponseMessage",
            "UserMessage",
            "AssistantMessage",
        ]
        assert isinstance(stored[2], ToolResponseMessage)


@pytest.mark.parametrize("order", [None, INSIDE], ids=["outside", "inside"])
@pytest.mark.parametrize("face", FACES)
def test_a_message_steered_into_an_answer_is_stored_after_it(face: str, order: int | None) -> None:
    steering = Steering()

    def answers(prompt: Prompt) -> Any:
        steering.add("shorter")
        return text_response("Long.")

    stored = _stored([answers, "Short."], steering, face, order)
    assert [(type(m).__name__, m.text) for m in stored] == [
        ("UserMessage", "Paris?"),
        ("AssistantMessage", "Long."),
        ("UserMessage", "shorter"),
        ("AssistantMessage", "Short."),
    ]
