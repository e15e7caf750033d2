"""``ostinato chat --approve``: each tool call waits for y / n / edit typed at a terminal."""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.core.cli.cli_process import ROOT
from tests.core.cli.terminal import Terminal, ostinato_on_terminal
from tests.fakes.distributions import FakeDistributions
from tests.fakes.scripted_provider import WEATHER_ANSWER

WEATHER_PY = str(ROOT / "examples" / "weather.py")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")


@pytest.fixture
def approving(scripted: FakeDistributions, tmp_path: Path) -> Iterator[Terminal]:
    argv = ["chat", "-m", "scripted:weather", "--tools", WEATHER_PY, "--approve", "Weather?"]
    with ostinato_on_terminal(scripted, tmp_path, *argv) as terminal:
        yield terminal


def test_each_call_is_approved_denied_or_edited_at_the_terminal(approving: Terminal) -> None:
    approving.expect(r'approve get_weather\(city="Paris"\)\? \[y\]es / \[n\]o / \[e\]dit: ')
    approving.type("e\n")
    approving.expect(r"arguments \(a JSON object\): ")
    approving.type("not json\n")
    approving.expect(r"not JSON .*try again")
    approving.type('{"city": "Lyon"}\n')
    approving.expect(r'approve get_weather\(city="Tokyo"\)\? \[y\]es / \[n\]o / \[e\]dit: ')
    approving.type("n\n")
    approving.expect(r"why \(told to the model; Enter for no reason\): ")
    approving.type("\n")
    approving.expect(r'← get_weather\(city="Lyon"\) [0-9.]+ s: \{"city": "Lyon"')
    approving.expect(WEATHER_ANSWER[:20])
    approving.expect(r"usage: ")
    assert approving.process.wait(timeout=20) == 0


def test_a_denial_is_shown_like_the_tool_lines_and_takes_a_reason(approving: Terminal) -> None:
    approving.expect(r'approve get_weather\(city="Paris"\)\? \[y\]es / \[n\]o / \[e\]dit: ')
    approving.type("n\n")
    approving.expect(r"why \(told to the model; Enter for no reason\): ")
    approving.type("\n")
    approving.expect(r'\n✗ get_weather\(city="Paris"\) denied\n')
    between = approving.expect(
        r'approve get_weather\(city="Tokyo"\)\? \[y\]es / \[n\]o / \[e\]dit: '
    )
    assert "denied" not in between  # shown once
    approving.type("n\n")
    approving.expect(r"why \(told to the model; Enter for no reason\): ")
    approving.type("not Tokyo today\n")
    approving.expect(r'\n✗ get_weather\(city="Tokyo"\) denied: not Tokyo today\n')
    assert "denied" not in approving.expect(r"usage: ")  # shown once
    assert approving.process.wait(timeout=20) == 0


def test_the_model_reads_the_reason_of_a_denial() -> None:
    from ostinato.cli._approval_prompt import TerminalApprover
    from ostinato.cli._terminal import TerminalRenderer
    from ostinato.messages import ToolCall
    from ostinato.tools import ApprovalKind, ApprovalRequest

    err = io.StringIO()
    renderer = TerminalRenderer(io.StringIO(), err, progress=False)
    approver = TerminalApprover(renderer, io.StringIO("n\nit costs money\n"), err)
    call = ToolCall(id="c1", name="pay", arguments='{"amount": 5}')
    decision = asyncio.run(approver(ApprovalRequest(call=call, definition=None)))
    assert decision.kind is ApprovalKind.DENY
    assert decision.denial_text(call) == (
        "Tool call 'pay' was not run: denied (the user declined this call: it costs money)."
    )


def test_ctrl_c_at_a_question_leaves_the_next_line_to_the_chat_prompt(
    scripted: FakeDistributions, tmp_path: Path
) -> None:
    state = {"XDG_STATE_HOME": str(tmp_path / "state")}
    argv = ["chat", "-m", "scripted:weather", "--tools", WEATHER_PY, "--approve"]
    with ostinato_on_terminal(scripted, tmp_path, *argv, env=state) as terminal:
        terminal.expect(r"\n> ")
        terminal.type("Weather?\n")
        terminal.expect(r'approve get_weather\(city="Paris"\)\? \[y\]es / \[n\]o / \[e\]dit: ')
        terminal.interrupt()  # Ctrl-C while the question waits for a line
        terminal.expect(r"\ncancelled")
        terminal.expect(r"\n> ")
        # The abandoned question must not take this line: the prompt reads it and quits.
        terminal.type("/exit\n")
        assert terminal.process.wait(timeout=20) == 0
        assert "approve" not in terminal.screen
