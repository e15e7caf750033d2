"""The ``mcpServers`` file: what it may hold, and one clear error for each mistake naming
the file, the server and what to change — never a secret."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ostinato_mcp import McpConfigError, McpServerConfig, load_mcp_config, parse_mcp_config


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_the_common_format_is_read_as_it_is(tmp_path):
    path = write(
        tmp_path,
        {
            "mcpServers": {
                "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}},
                "docs": {
                    "url": "https://docs.example/mcp",
                    "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"},
                    "requireApproval": ["delete_page"],
                    "toolPrefix": "docs_",
                    "allowedTools": ["search", "read_page", "delete_page"],
                },
                "legacy": {"type": "sse", "url": "https://old.example/sse"},
                "off": {"command": "nothing", "disabled": True},
            }
        },
    )
    config = load_mcp_config(path, environ={"DOCS_TOKEN": "s3cret-token-value"})
    time, docs, legacy = config.servers
    assert (time.command, time.args, dict(time.env), time.transport) == (
        "uvx",
        ("mcp-server-time",),
        {"TZ": "UTC"},
        "stdio",
    )
    assert docs.transport == "http" and docs.headers["Authorization"] == "Bearer s3cret-token-value"
    assert docs.require_approval == ("delete_page",) and docs.tool_prefix == "docs_"
    assert (
        docs.allowed_tools == ("search", "read_page", "delete_page") and time.allowed_tools is None
    )
    assert legacy.transport == "sse"
    assert config.disabled == ("off",) and not config.problems
    assert "s3cret" not in repr(docs) and "s3cret" not in repr(config)


def test_a_default_stands_in_for_an_unset_variable():
    config = parse_mcp_config(
        {"mcpServers": {"a": {"url": "http://${HOST:-localhost}:8000/mcp"}}}, environ={}
    )
    assert config.servers[0].url == "http://localhost:8000/mcp"


def test_a_missing_file_names_it_and_what_to_do(tmp_path):
    with pytest.raises(McpConfigError) as caught:
        load_mcp_config(tmp_path / "nope.json")
    assert str(tmp_path / "nope.json") in str(caught.value)
    assert "fix: create it" in str(caught.value)


def test_a_file_that_is_not_json_says_where(tmp_path):
    path = write(tmp_path, '{"mcpServers": {"a": {"command": "x",}}}')
    with pytest.raises(McpConfigError, match=r"not JSON: .* line 1, column") as caught:
        load_mcp_config(path)
    assert str(path) in str(caught.value)


def test_a_file_without_mcp_servers_shows_the_shape(tmp_path):
    with pytest.raises(McpConfigError, match=r"expected an object with the key 'mcpServers'"):
        load_mcp_config(write(tmp_path, {"servers": {}}))


def test_an_unknown_top_level_key_is_refused(tmp_path):
    with pytest.raises(McpConfigError, match=r"unknown key 'inputs'"):
        load_mcp_config(write(tmp_path, {"mcpServers": {}, "inputs": []}))


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        (
            {"command": "x", "argz": []},
            r"MCP server 'bad': unknown key 'argz'\nfix: use only command, args",
        ),
        (
            {"args": ["x"]},
            r"MCP server 'bad': has neither 'command' nor 'url'\nfix: give a stdio server",
        ),
        ({"command": "x", "url": "http://h"}, r"has both 'command' and 'url'"),
        ({"command": "x", "type": "http"}, r"'type' is 'http', which does not fit its command"),
        ({"command": "x", "args": "one"}, r"'args' must be a list of strings"),
        ({"command": "x", "timeout": 0}, r"'timeout' is 0\nfix: a number of seconds"),
        ({"command": "x", "requireApproval": "sometimes"}, r"'requireApproval' is 'sometimes'"),
        (
            {"command": "x", "env": {"KEY": "${UNSET_SECRET}"}},
            r"env KEY refers to \$\{UNSET_SECRET\}, which is not set\nfix: set the environment variable UNSET_SECRET",
        ),
    ],
)
def test_a_broken_server_is_reported_alone_with_its_file_and_fix(tmp_path, entry, expected):
    path = write(tmp_path, {"mcpServers": {"good": {"command": "ok"}, "bad": entry}})
    config = load_mcp_config(path, environ={})
    assert [s.name for s in config.servers] == ["good"], "the other servers stay usable"
    problem = config.problems["bad"]
    assert (problem.path, problem.server) == (path, "bad")
    assert str(path) in str(problem)
    assert __import__("re").search(expected, str(problem)), str(problem)
    with pytest.raises(McpConfigError, match="MCP server 'bad'"):
        config.check()


def test_secrets_in_env_and_headers_never_appear_in_errors(tmp_path):
    path = write(
        tmp_path,
        {
            "mcpServers": {
                "bad": {
                    "url": "http://h/mcp",
                    "headers": {"Authorization": "Bearer top-secret-value"},
                    "env": {"X": "also-secret"},
                    "oops": 1,
                }
            }
        },
    )
    problem = load_mcp_config(path).problems["bad"]
    assert "top-secret-value" not in str(problem) and "also-secret" not in str(problem)


def test_a_server_in_code_needs_a_command_or_a_url():
    with pytest.raises(McpConfigError, match="has neither of 'command' and 'url'"):
        McpServerConfig(name="x")
    assert McpServerConfig(name="x", url="https://u:pw@h/mcp?api_key=k").target == (
        "https://u:***@h/mcp?api_key=***"
    )
