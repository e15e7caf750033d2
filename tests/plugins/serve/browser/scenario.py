"""The served client the page is tried on: a scripted model and real tools.

``temperature`` runs at once; ``send_money`` needs approval; ``wait`` sets
:data:`STARTED` and runs until :data:`RELEASE` is set, however long that takes (a test
sets it, and the ``serve`` fixture does when the test ends: a time limit here would make
a slow machine's test read "timed out" instead). The model asks for ``temperature`` (twice) when the
question mentions the weather (in one round, or "one by one" in two rounds whose calls
have the same id), for ``send_money`` when it says "pay" (twice for "pay both"), for ``wait`` when it
says "slow", counts the user's messages for "count", answers with markup for "markup",
fails for "explode", and otherwise says hello; after tool results it answers with them.
Payments report usage: 317 tokens for the round asking, 381 for the round answering.
"""

from __future__ import annotations

import threading
from typing import Any

from ostinato import ChatClient, ToolResponseMessage, UserMessage, tool
from ostinato.testing import ScriptedChatModel, text_response, tool_call, tool_call_response

__all__ = ["RELEASE", "STARTED", "build_app", "send_money", "temperature", "wait"]

RELEASE = threading.Event()
"""Lets a running ``wait`` tool return."""

STARTED = threading.Event()
"""Set when a ``wait`` tool starts running (on the server)."""


@tool(description="Current temperature in a city, in °C")
def temperature(city: str) -> int:
    return {"Paris": 14, "Lisbon": 21}.get(city, 10)


@tool(requires_approval=True, description="Send money to someone")
def send_money(amount: int, to: str) -> str:
    return f"sent {amount} EUR to {to}"


@tool(description="Waits for a signal")
def wait() -> str:
    STARTED.set()
    RELEASE.wait()
    return "released"


def _answer(prompt: Any) -> Any:
    last = prompt.messages[-1]
    user = next(m for m in reversed(prompt.messages) if isinstance(m, UserMessage))
    if isinstance(last, ToolResponseMessage):
        if "one by one" in user.text and len(prompt.messages) < 5:
            # a second round asking again, with the same made-up call id
            return tool_call_response(tool_call("temperature", {"city": "Paris"}))
        results = "Results: " + "; ".join(r.response_data for r in last.responses)
        return text_response(results, usage=(300, 81, 381)) if "pay" in user.text else results
    text = last.text if isinstance(last, UserMessage) else ""
    if "one by one" in text:
        return tool_call_response(tool_call("temperature", {"city": "Lisbon"}))
    if "weather" in text:
        return tool_call_response(
            tool_call("temperature", {"city": "Lisbon"}, id="lisbon"),
            tool_call("temperature", {"city": "Paris"}, id="paris"),
        )
    if "pay both" in text:
        return tool_call_response(
            tool_call("send_money", {"amount": 50, "to": "Ann"}, id="ann"),
            tool_call("send_money", {"amount": 70, "to": "Bob"}, id="bob"),
        )
    if "pay" in text:
        call = tool_call("send_money", {"amount": 50, "to": "Ann"}, id="pay")
        return tool_call_response(call, usage=(290, 27, 317))
    if "slow" in text:
        return tool_call_response(tool_call("wait", {}, id="wait"))
    if "count" in text:
        said = sum(isinstance(m, UserMessage) for m in prompt.messages)
        return f"You said {said} thing(s) in this conversation."
    if "explode" in text:
        raise RuntimeError("the scripted model fails on purpose")
    if "markup" in text:
        return '<img src="x" onerror="document.title=\'owned\'"><b>bold?</b>'
    return "Hello."


def build_app(token: str | None = None, *, memory: bool = False) -> Any:
    """The real ``ostinato_serve`` app serving the scripted client and the tools; with
    ``memory``, the client keeps its conversations in an in-memory repository."""
    from ostinato_serve import ServeSettings, create_app

    builder = ChatClient.builder(ScriptedChatModel(responder=_answer))
    if memory:
        from ostinato_memory import MessageChatMemoryAdvisor, MessageWindowChatMemory

        builder.default_advisors(MessageChatMemoryAdvisor(MessageWindowChatMemory()))
    return create_app(
        builder.build(),
        tools=[temperature, send_money, wait],
        settings=ServeSettings(token=token),
        model_name="scripted:demo",
    )
