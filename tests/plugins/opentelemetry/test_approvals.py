"""A turn that ends waiting for approval, and its resumption, as traces."""

from __future__ import annotations

from ostinato import ApprovalDecision, ChatClient, PendingToolCalls, tool
from ostinato.testing import ScriptedChatModel, tool_call, tool_call_response
from ostinato_opentelemetry import instrument
from tests.plugins.opentelemetry.conftest import Recorded
from tests.plugins.opentelemetry.spans import tree


@tool(requires_approval=True)
def send_money(amount: int, to: str) -> str:
    """Send money to someone."""
    return f"sent {amount} to {to}"


@tool
def balance() -> int:
    """The account's balance."""
    return 100


def test_an_approval_ending_traces_the_calls_that_ran_and_resuming_is_a_new_turn(
    recorded: Recorded,
) -> None:
    model = ScriptedChatModel(
        [
            tool_call_response(
                tool_call("balance", {}, id="b"),
                tool_call("send_money", {"amount": 50, "to": "Bob"}, id="s"),
            ),
            "Sent.",
        ]
    )
    client = instrument(ChatClient.builder(model), provider_name="openai").build()

    response = client.prompt("Pay Bob").tools(send_money, balance).call().chat_client_response()
    pending = PendingToolCalls.of(response)
    assert pending is not None

    assert tree(recorded.spans()) == [
        (
            "invoke_agent",
            "INTERNAL",
            [("chat", "CLIENT", []), ("execute_tool balance", "INTERNAL", [])],
        )
    ]
    recorded.exporter.clear()

    decisions = {call.id: ApprovalDecision.approve() for call in pending.calls}
    answer = client.prompt().tools(send_money, balance).resume(pending, decisions)
    assert answer.call().content() == "Sent."

    assert tree(recorded.spans()) == [
        (
            "invoke_agent",
            "INTERNAL",
            [("execute_tool send_money", "INTERNAL", []), ("chat", "CLIENT", [])],
        )
    ]
