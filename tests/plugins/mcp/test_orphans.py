"""No orphan server processes: when the process that started a stdio server is killed
(no cleanup runs at all), the server sees its input end and exits."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap

from tests.plugins.mcp.conftest import DEMO

PARENT = textwrap.dedent(
    f"""
    import asyncio, sys
    from ostinato_mcp import McpServer

    async def main():
        server = McpServer(name="demo", command=sys.executable, args=[{DEMO!r}])
        print(await server.call_tool("pid", {{}}), flush=True)
        await server.call_tool("wait", {{}})  # killed while this call runs

    asyncio.run(main())
    """
)


def test_killing_the_calling_process_leaves_no_server_behind():
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        server_pid = int(parent.stdout.readline())
        server = os.pidfd_open(server_pid)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
    try:
        # The descriptor becomes readable when the server process ends.
        readable, _, _ = select.select([server], [], [], 20)
        assert readable, f"the MCP server {server_pid} outlived the process that started it"
    finally:
        os.close(server)


EXITING = textwrap.dedent(
    f"""
    import json, os, sys, tempfile
    import ostinato_mcp.plugin
    from ostinato.config import build_container
    from ostinato.testing import ScriptedChatModel, tool_call_response

    path = os.path.join(tempfile.mkdtemp(), "mcp.json")
    server = {{"command": sys.executable, "args": [{DEMO!r}]}}
    json.dump({{"mcpServers": {{"demo": server}}}}, open(path, "w"))
    os.environ.update(OSTINATO_TOOLS__ENABLED="mcp", OSTINATO_MCP_CONFIG=path)
    model = ScriptedChatModel([tool_call_response(("pid", {{}})), lambda p: p.messages[-1].responses[0].response_data])
    client = build_container(plugins=[ostinato_mcp.plugin], chat_model=model).chat_client()
    print(client.prompt("pid?").call().content(), flush=True)
    """
)


def test_an_auto_configured_client_closes_its_servers_when_the_interpreter_exits():
    proc = subprocess.run(
        [sys.executable, "-c", EXITING], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    try:
        server = os.pidfd_open(int(proc.stdout))
    except ProcessLookupError:
        pass  # already gone
    else:
        try:
            readable, _, _ = select.select([server], [], [], 20)
            assert readable, "the MCP server outlived the interpreter"
        finally:
            os.close(server)
    assert "error occurred during closing" not in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
