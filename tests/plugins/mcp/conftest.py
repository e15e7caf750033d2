"""Real MCP servers for the tests: ``mcp-server-time`` (from the package registry) and
the suite's own demo server, over stdio, and the demo server over streamable HTTP on a
loopback port. Servers are started once per module where tests can share them."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ostinato_mcp import McpServerConfig
from tests.plugins.mcp.demo_server import serve_http

DEMO = str(Path(__file__).with_name("demo_server.py"))


def time_server_config(name: str = "time") -> McpServerConfig:
    """``mcp-server-time`` over stdio, in this interpreter (installed with the dev group)."""
    return McpServerConfig(
        name=name, command=sys.executable, args=("-m", "mcp_server_time", "--local-timezone", "UTC")
    )


def demo_stdio_config(name: str = "demo", *extra: str) -> McpServerConfig:
    """The demo server over stdio."""
    return McpServerConfig(name=name, command=sys.executable, args=(DEMO, *extra), timeout=30)


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    """The URL of a demo server over streamable HTTP, shared by a module's tests."""
    with serve_http() as url:
        yield url
