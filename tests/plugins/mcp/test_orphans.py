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
