"""A custom tool advisor: a ToolCallingAdvisor subclass overriding one hook.

It audits every tool call the model asks for (``do_after_call``) and is installed as the
client's tool-advisor prototype, so every request uses it.

Run: ``uv run python examples/custom_tool_advisor.py``
"""

from __future__ import annotations

from ostinato import ChatClient, tool
from ostinato.advisors import ToolCallingAdvisor
from ostinato.testing import ScriptedChatModel, tool_call_response


class AuditingToolAdvisor(ToolCallingAdvisor):
    """Records each tool-call intent before the tools run."""

    def __init__(self, **settings) -> None:
        super().__init__(**settings)
        self.intents: list[str] = []

    async def do_after_call(self, response, chain):
        if response.chat_response is not None:
            for generation in response.chat_response.generations:
                self.intents.extend(
                    f"{call.name}({call.arguments})" for call in generation.output.tool_calls
                )
        return response


@tool
def lookup_order(order_id: str) -> dict[str, str]:
    """Find an order by id."""
    return {"order_id": order_id, "status": "shipped"}


def main() -> None:
    model = ScriptedChatModel(
        [tool_call_response(("lookup_order", {"order_id": "A-17"})), "Order A-17 has shipped."]
    )
    auditor = AuditingToolAdvisor(max_iterations=5)
    client = ChatClient.builder(model, tool_advisor=auditor).default_tools(lookup_order).build()
    print(client.prompt("Where is my order A-17?").call().content())
    print("audit:", auditor.intents)


if __name__ == "__main__":
    main()
