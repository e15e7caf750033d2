"""MCP end to end: the real local model answers "what time is it in Tokyo?" through the
real ``mcp-server-time`` tool, with ``ostinato chat --mcp``. Like the main job it needs the
local model (``ostinato local setup``), so it runs only when ``E2E_MAIN_JOB=1``, as
``make demo-check`` sets it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    os.environ.get("E2E_MAIN_JOB") != "1",
    reason="runs the real local model; `make demo-check` runs it",
)


def test_the_local_model_tells_the_time_in_tokyo_through_the_time_server(tmp_path):
    config = tmp_path / "mcp.json"
    server = {
        "allowedTools": ["get_current_time"],  # a small model otherwise converts made-up times
        "command": sys.executable,
        "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
    }
    config.write_text(json.dumps({"mcpServers": {"time": server}}))
    env = {k: v for k, v in os.environ.items() if k not in {"E2E_MAIN_JOB", "OSTINATO_MODEL"}}
    env["OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR"] = "default"  # as `make demo` pins it
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ostinato.cli",
            "chat",
            "What time is it in Tokyo?",
            "--mcp",
            str(config),
            "--model",
            "llamacpp:default",
        ],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    report = f"exit code {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    print(report)
    assert proc.returncode == 0, report
    answered = re.findall(
        r"^← get_current_time\((.*)\) [0-9.]+ s: (.*)$", proc.stderr, re.MULTILINE
    )
    assert any("asia/tokyo" in arguments.lower() for arguments, _ in answered), report
    assert any("+09:00" in result for _, result in answered), report
    assert re.search(r"^usage: .* tokens; \d+ model rounds", proc.stderr, re.MULTILINE), report
    assert proc.stdout.strip(), report
