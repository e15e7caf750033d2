"""Driving the tool loop yourself: tool calling advisor off, a manager in your hands.

Useful when each round needs a human approval, a UI update, or custom persistence. Shown
blocking (``call()``) and streaming (``stream()`` with ``ChatClientMessageAggregator``).

Run: ``uv run python examples/user_controlled_loop.py``
"""

from __future__ import annotations

import asyncio

from ostinato import ChatClient, Prompt, UserMessage, tool
from ostinato.advisors import ChatClientMessageAggregator
from ostinato.client import AdvisorParams
from ostinato.prompt import ToolCallingChatOptions
from ostinato.testing import ScriptedChatModel, tool_call_response
from ostinato.tools import DefaultToolCallingManager, tool_callbacks


@tool
def square(x: int) -> int:
    """The square of x."""
    return x * x


OFF = AdvisorParams.tool_calling_advisor_auto_register(False)


def blocking(client: ChatClient, manager: DefaultToolCallingManager) -> str | None:
    options = ToolCallingChatOptions(tool_callbacks=tool_callbacks(square))
    history: list = [UserMessage("What is 7 squared?")]
    response = client.prompt(Prompt(history, options)).advisors(OFF).call().chat_response()
    while response is not None and response.has_tool_calls():
        result = asyncio.run(manager.execute_tool_calls(Prompt(history, options), response))
        history = list(result.conversation_history)
        print(f"ran tools; history now has {len(history)} messages")
        response = client.prompt(Prompt(history, options)).advisors(OFF).call().chat_response()
    return response.text if response else None


async def streaming(client: ChatClient, manager: DefaultToolCallingManager) -> str:
    options = ToolCallingChatOptions(tool_callbacks=tool_callbacks(square))
    history: list = [UserMessage("And 8 squared?")]
    shown: list[str] = []
    while True:
        aggregator = ChatClientMessageAggregator()
        stream = client.prompt(Prompt(history, options)).advisors(OFF).stream()
        async for chunk in stream.achat_client_responses():
            aggregator.add(chunk)
            if chunk.chat_response is not None and chunk.chat_response.text:
                shown.append(chunk.chat_response.text)
        final = aggregator.result()
        response = final.chat_response if final else None
        if response is None or not response.has_tool_calls():
            return "".join(shown)
        result = await manager.execute_tool_calls(Prompt(history, options), response)
        history = list(result.conversation_history)


def main() -> None:
    model = ScriptedChatModel(
        [
            tool_call_response(("square", {"x": 7})),
            "7 squared is 49.",
            tool_call_response(("square", {"x": 8})),
            "8 squared is 64.",
        ]
    )
    client = ChatClient.create(model)
    manager = DefaultToolCallingManager()
    print(blocking(client, manager))
    print(asyncio.run(streaming(client, manager)))


if __name__ == "__main__":
    main()
