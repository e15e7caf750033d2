"""A turn stopped in this process resumes in another one, from the JSON alone."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from ostinato import ChatClient
from ostinato.testing import ScriptedChatModel, tool_call_response
from ostinato.tools import PendingToolCalls, tool


@tool(requires_approval=True)
def transfer(amount: int, to: str) -> str:
    """Transfer money."""
    raise AssertionError("must not run in the first process")


RESUMER = textwrap.dedent(
    """
    import json, sys
    from ostinato import ApprovalDecision, ChatClient, tool
    from ostinato.testing import ScriptedChatModel, text_response

    @tool(requires_approval=True)
    def transfer(amount: int, to: str) -> str:
        \"\"\"Transfer money.\"\"\"
        return f"sent {amount} to {to}"

    model = ScriptedChatModel([text_response("Transferred 50 to Ann.")])
    pending = open(sys.argv[1]).read()
    answer = (
        ChatClient.create(model)
        .prompt()
        .tools(transfer)
        .resume(pending, {"call_transfer": ApprovalDecision.edit({"amount": 50, "to": "Ann"})})
        .call()
        .content()
    )
    sent = model.prompts[0].messages
    print(json.dumps({"answer": answer, "tool": sent[-1].responses[0].response_data,
                      "user": sent[0].text}))
    """
)


def test_a_second_process_resumes_from_the_json(tmp_path: Path) -> None:
    model = ScriptedChatModel([tool_call_response(("transfer", {"amount": 500, "to": "Ann"}))])
    response = ChatClient.create(model).prompt("pay Ann").tools(transfer).call()
    pending = PendingToolCalls.of(response.chat_client_response())
    assert pending is not None
    path = tmp_path / "pending.json"
    path.write_text(pending.to_json())

    done = subprocess.run(
        [sys.executable, "-c", RESUMER, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == (
        '{"answer": "Transferred 50 to Ann.", "tool": "sent 50 to Ann", "user": "pay Ann"}'
    )
