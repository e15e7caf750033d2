"""A script exits as soon as it is done, even when a sync tool it abandoned still runs.

A sync tool abandoned at its timeout keeps its thread until it returns; the process must
not wait for it at exit. Each test runs a real Python script in a subprocess: its tool
sleeps for a minute, its timeout is 0.2 s, and the script must print the turn's answer and
exit within seconds — on the sync and the async face, through ``call()`` and ``stream()``.
Normal completion and ``fork`` keep working.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

TOOL_SLEEP = 60.0
EXIT_WITHIN = 15.0  # far below TOOL_SLEEP: the script did not wait for the tool

PRELUDE = textwrap.dedent(
    """
    import asyncio, os, sys, time
    from ostinato import ChatClient, tool
    from ostinato.messages import ToolCall, ToolResponseMessage
    from ostinato.testing import ScriptedChatModel, tool_call_response

    @tool(description="Sleeps for a minute", timeout=0.2)
    def slow() -> str:
        time.sleep(TOOL_SLEEP)
        return "late"

    @tool(description="Answers at once")
    def quick() -> str:
        return "quick"

    def respond(prompt):
        last = prompt.messages[-1]
        if isinstance(last, ToolResponseMessage):
            return "tool said: " + last.responses[0].response_data
        return tool_call_response(ToolCall("c1", TOOL, "{}"))

    client = ChatClient.builder(ScriptedChatModel(responder=respond)).default_tools(slow, quick).build()

    async def async_turn(mode):
        if mode == "call":
            return await client.prompt("go").call().acontent()
        return "".join([piece async for piece in client.prompt("go").stream().acontent()])

    def sync_turn(mode):
        if mode == "call":
            return client.prompt("go").call().content()
        return "".join(client.prompt("go").stream().content())
    """
)


def run_script(
    tmp_path: Path, body: str, tool: str
) -> tuple[subprocess.CompletedProcess[str], float]:
    script = tmp_path / "script.py"
    script.write_text(
        f"TOOL = {tool!r}\nTOOL_SLEEP = {TOOL_SLEEP}\n" + PRELUDE + textwrap.dedent(body)
    )
    started = time.monotonic()
    completed = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=TOOL_SLEEP - 5,  # a process waiting for the tool fails here, not later
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    return completed, time.monotonic() - started


@pytest.mark.parametrize("mode", ["call", "stream"])
@pytest.mark.parametrize("face", ["sync", "async"])
def test_a_script_exits_at_once_after_a_sync_tool_was_abandoned(tmp_path, face, mode):
    body = (
        f"print(sync_turn({mode!r}), flush=True)\n"
        if face == "sync"
        else f"print(asyncio.run(async_turn({mode!r})), flush=True)\n"
    )
    completed, elapsed = run_script(tmp_path, body, "slow")
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == "tool said: Error: tool 'slow' timed out after 0.2 s\n"
    assert completed.stderr == ""
    assert elapsed < EXIT_WITHIN


def test_a_script_whose_tools_finish_exits_normally(tmp_path):
    body = """
    for mode in ("call", "stream"):
        print(sync_turn(mode), flush=True)
        print(asyncio.run(async_turn(mode)), flush=True)
    """
    completed, elapsed = run_script(tmp_path, body, "quick")
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == "tool said: quick\n" * 4
    assert completed.stderr == ""
    assert elapsed < EXIT_WITHIN


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_runs_sync_tools_and_both_processes_exit(tmp_path):
    body = """
    print("parent:", sync_turn("call"), flush=True)
    pid = os.fork()
    if pid == 0:
        print("child:", sync_turn("call"), sync_turn("stream"), flush=True)
        sys.exit(0)
    _, status = os.waitpid(pid, 0)
    print("child exit:", os.waitstatus_to_exitcode(status), flush=True)
    print("parent again:", sync_turn("stream"), flush=True)
    """
    completed, elapsed = run_script(tmp_path, body, "quick")
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines() == [
        "parent: tool said: quick",
        "child: tool said: quick tool said: quick",
        "child exit: 0",
        "parent again: tool said: quick",
    ]
    assert elapsed < EXIT_WITHIN
