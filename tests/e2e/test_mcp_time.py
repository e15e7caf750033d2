"""MCP end to end: the real local model answers "what time is it in Tokyo?" through the
real ``mcp-server-time`` tool, with ``ostinato chat --mcp``. Like the main job it needs the
local model (``ostinato local setup``), so it runs only when ``E2E_MAIN_JOB=1``, as
``make demo-check`` sets it.
"""

from __future__ import annotations

import json
import os
import sys

from tests.e2e.local_model import answered_calls, needs_local_model, run_to_success

pytestmark = needs_local_model


def test_the_local_model_tells_the_time_in_tokyo_through_the_time_server(tmp_path):
    config = tmp_path / "mcp.json"
    server = {
        "allowedTools": ["get_current_time"],  # a small model otherwise converts made-up times
        "command": sys.executable,
        "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
    }
    config.write_text(json.dumps({"mcpServers": {"time": server}}))
    env = {k: v for k, v in os.environ.items() if k not in {"E2E_MAIN_JOB", "OSTINATO_MODEL"}}
    # The default tool advisor, even in an environment where a replacement was added.
    env["OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR"] = "default"
    argv = [sys.executable, "-m", "ostinato.cli", "chat", "What time is it in Tokyo?"]
    argv += ["--mcp", str(config), "--model", "llamacpp:default"]
    proc, report = run_to_success(argv, env)
    answered = answered_calls("get_current_time", proc.stderr)
    assert any("asia/tokyo" in arguments.lower() for arguments, _ in answered), report
    assert any("+09:00" in result for _, result in answered), report
