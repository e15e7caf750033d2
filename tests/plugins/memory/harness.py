"""Shared pieces of the memory tests: a tool, scripted answers, and one turn run through
``call()`` or ``stream()`` of a real ``ChatClient``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ostinato import AdvisorParams, ChatClient, ToolCallingAdvisor, tool
from ostinato.advisors import Advisor
from ostinato.client import ChatClientRequestSpec
from ostinato.config import build_container
from ostinato.messages import AssistantMessage, ToolCall, UserMessage
from ostinato.model import ChatResponse
from ostinato.testing import ScriptedChatModel, tool_call_response

__all__ = [
    "INSIDE",
    "MODES",
    "answer_from_prompt",
    "ask",
    "check_an_auto_configured_client_remembers",
    "client_for",
    "weather",
    "weather_call",
]

MODES = ("call", "stream")

#: An order inside the tool loop (after the default tool advisor).
INSIDE = ToolCallingAdvisor.DEFAULT_ORDER + 1


@tool(description="Current weather for a city")
def weather(city: str) -> str:
    """The weather tool every tool turn uses."""
    return f"{city}: 25C"


def weather_call(city: str = "Paris", *, text: str | None = None) -> ChatResponse:
    """A model answer asking for the weather of ``city`` (call id ``call-<city>``)."""
    return tool_call_response(
        ToolCall(f"call-{city}", "weather", json.dumps({"city": city})), text=text
    )


def client_for(
    model: ScriptedChatModel,
    *advisors: Advisor,
    conversation_id: str | None = "c1",
    system: str | None = "S",
    **builder: Any,
) -> ChatClient:
    """A client with ``advisors`` and (unless ``None``) a default conversation id."""
    b = ChatClient.builder(model, **builder)
    if system is not None:
        b.default_system(system)
    b.default_advisors(*advisors)
    if conversation_id is not None:
        b.default_advisors(AdvisorParams.conversation_id(conversation_id))
    return b.build()


async def ask(spec: ChatClientRequestSpec, mode: str) -> str | None:
    """Run one turn of ``spec`` through ``call()`` or ``stream()``; the answer's text."""
    if mode == "call":
        return await spec.call().acontent()
    return "".join([piece async for piece in spec.stream().acontent()])


async def check_an_auto_configured_client_remembers(
    monkeypatch: pytest.MonkeyPatch, plugins: Any, mode: str
) -> ChatClient:
    """Memory enabled for conversation ``me`` (the store is the caller's to choose): a
    client built by ``build_container(plugins=...)`` sends turn one back with turn two.
    The client, for further checks."""
    monkeypatch.setenv("OSTINATO_MEMORY_ENABLED", "true")
    monkeypatch.setenv("OSTINATO_MEMORY_DEFAULT_CONVERSATION_ID", "me")
    model = ScriptedChatModel(["Hello Ada", "You are Ada"])
    client = build_container(plugins=plugins, chat_model=model).chat_client()
    await ask(client.prompt("I am Ada"), mode)
    await ask(client.prompt("Who am I?"), mode)
    assert list(model.prompts[1].messages) == [
        UserMessage("I am Ada"),
        AssistantMessage("Hello Ada"),
        UserMessage("Who am I?"),
    ]
    return client


def answer_from_prompt(prompt: Any) -> ChatResponse | str:
    """A model for concurrent tests: a user text ending in ``?`` gets a weather call
    first (call id ``call-<text>``), then, once the tool answered, ``answer to <text>``."""
    from ostinato.messages import SystemMessage, ToolResponseMessage, UserMessage

    messages = [m for m in prompt.messages if not isinstance(m, SystemMessage)]
    last = messages[-1]
    if isinstance(last, ToolResponseMessage):
        user = next(m for m in reversed(messages) if isinstance(m, UserMessage))
        return f"answer to {user.text}"
    assert isinstance(last, UserMessage), last
    if last.text.endswith("?"):
        return tool_call_response(
            ToolCall(f"call-{last.text}", "weather", json.dumps({"city": last.text}))
        )
    return f"answer to {last.text}"
