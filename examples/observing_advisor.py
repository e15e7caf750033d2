"""An observing advisor inside the tool loop: it sees every model round.

Ordered after the tool advisor (``order`` above ``ToolCallingAdvisor.DEFAULT_ORDER``), it
runs once per round, so it can show what the model was sent and what it asked for.

Run: ``uv run python examples/observing_advisor.py``
"""

from __future__ import annotations

from ostinato import ChatClient, tool
from ostinato.advisors import BaseAdvisor, ToolCallingAdvisor
from ostinato.testing import ScriptedChatModel, tool_call_response


class RoundObserver(BaseAdvisor):
    """Prints one line per model round."""

    order = ToolCallingAdvisor.DEFAULT_ORDER + 100

    def __init__(self) -> None:
        self.rounds = 0

    async def before(self, request, chain):
        self.rounds += 1
        print(f"round {self.rounds}: sending {len(request.prompt.messages)} message(s)")
        return request

    async def after(self, response, chain):
        message = response.chat_response.result.output if response.chat_response else None
        if message is not None and message.tool_calls:
            names = ", ".join(call.name for call in message.tool_calls)
            print(f"round {self.rounds}: model asks for {names}")
        else:
            print(f"round {self.rounds}: model answers")
        return response


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def main() -> None:
    model = ScriptedChatModel(
        [
            tool_call_response(("add", {"a": 2, "b": 3})),
            tool_call_response(("add", {"a": 5, "b": 10})),
            "2 + 3 + 10 = 15",
        ]
    )
    client = ChatClient.builder(model).default_advisors(RoundObserver()).build()
    print(client.prompt("What is 2 + 3 + 10?").tools(add).call().content())


if __name__ == "__main__":
    main()
