"""Approvals, resuming a stopped turn, and cancelling one.

1. An approver decides inline: it approves one call and edits another's arguments.
2. Without an approver the turn stops; its ``PendingToolCalls`` go to JSON (a file, a
   database, a queue), and a later request resumes the turn with the decisions.
3. A ``CancelScope`` ends a turn from another thread; every call is still answered.

Run: ``uv run python examples/approvals.py``
"""

from __future__ import annotations

import threading

from ostinato import (
    ApprovalDecision,
    ApprovalRequest,
    CancelScope,
    ChatClient,
    PendingToolCalls,
    tool,
)
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response


@tool(requires_approval=True)
def send_money(amount: int, to: str) -> str:
    """Send money to someone."""
    return f"sent {amount} EUR to {to}"


@tool
def balance() -> int:
    """The account balance in EUR."""
    return 1200


def inline() -> None:
    model = ScriptedChatModel(
        [
            tool_call_response(("balance", {}), ("send_money", {"amount": 900, "to": "Ann"})),
            text_response("Sent 300 EUR to Ann; 900 EUR left."),
        ]
    )

    def approver(request: ApprovalRequest) -> ApprovalDecision:
        print(f"asked about {request.call.name}({request.arguments})")
        if request.arguments["amount"] > 500:
            return ApprovalDecision.edit({**request.arguments, "amount": 300})
        return ApprovalDecision.approve()

    answer = (
        ChatClient.create(model)
        .prompt("Pay Ann 900 EUR")
        .tools(send_money, balance)
        .approver(approver)
        .call()
        .content()
    )
    print(answer)


def stop_and_resume() -> None:
    model = ScriptedChatModel(
        [
            tool_call_response(("send_money", {"amount": 50, "to": "Bob"})),
            text_response("Done: 50 EUR went to Bob."),
        ]
    )
    client = ChatClient.create(model)
    stopped = client.prompt("Pay Bob 50 EUR").tools(send_money).call().chat_client_response()
    pending = PendingToolCalls.of(stopped)
    assert pending is not None
    print(f"waiting for: {[call.name for call in pending.calls]}")
    stored = pending.to_json()  # keep it anywhere; any process can resume from it

    decisions = {call.id: ApprovalDecision.approve() for call in pending.calls}
    answer = client.prompt().tools(send_money).resume(stored, decisions).call().content()
    print(answer)


@tool
def slow_report() -> str:
    """A report that takes a long time."""
    STARTED.set()
    threading.Event().wait(5)  # abandoned when the turn is cancelled
    return "report"


STARTED = threading.Event()


def cancel() -> None:
    model = ScriptedChatModel([tool_call_response(("slow_report", {}))])
    scope = CancelScope()

    def press_stop() -> None:
        STARTED.wait(5)
        scope.cancel("the user pressed stop")

    threading.Thread(target=press_stop).start()
    spec = ChatClient.create(model).prompt("Report").tools(slow_report).cancel_scope(scope)
    print(spec.call().content())


if __name__ == "__main__":
    inline()
    stop_and_resume()
    cancel()
