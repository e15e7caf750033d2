"""Long-running MCP calls as tasks (the tasks extension of 2026-07-28): a tool call the
server answers with a task handle is polled until the task ends, in a turn, and on a
handshake connection the server answers the plain way. (The durable case, a worker
killed while it polls, is in ``test_durable.py``.)"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from ostinato import ChatClient, ToolCallingAdvisor
from ostinato.messages import ToolResponseMessage
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato_mcp import McpServer
from tests.plugins.mcp.task_server import Board, serve_tasks

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def board() -> Board:
    return Board()


@pytest.fixture(scope="module")
def tasks_url(board: Board) -> Iterator[str]:
    with serve_tasks(board) as url:
        yield url


def echo(prompt):
    message = prompt.messages[-1]
    assert isinstance(message, ToolResponseMessage)
    return text_response(" | ".join(r.response_data for r in message.responses))


async def test_a_call_answered_with_a_task_is_polled_until_the_task_completes(
    board: Board, tasks_url: str
):
    server = McpServer(name="reports", url=tasks_url)
    try:
        tools = await server.list_tools()
        model = ScriptedChatModel(
            [
                tool_call_response(
                    ("report", {"turn": "t1", "polls": 3}), ("add", {"a": 1, "b": 2})
                ),
                echo,
            ]
        )
        client = ChatClient.builder(model, tool_advisor=ToolCallingAdvisor()).build()
        assert (
            await client.prompt("Report").tools(*tools).call().acontent()
            == "report for t1 ready | 3"
        )
    finally:
        await server.aclose()
    assert board.starts["t1"] == 1
    assert board.polls["t1"] == 3  # polled until it completed, not once more


async def test_a_call_given_up_on_cancels_its_task(board: Board, tasks_url: str):
    board.hold("t2")
    async with McpServer(name="reports", url=tasks_url, timeout=30) as server:
        call = asyncio.create_task(server.call_tool("report", {"turn": "t2"}))
        await asyncio.to_thread(board.polled["t2"].wait, 30)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
    assert board.starts["t2"] == 1
    assert len(board.cancelled) == 1


async def test_a_handshake_connection_gets_a_plain_answer(board: Board, tasks_url: str):
    async with McpServer(name="reports", url=tasks_url, protocol="legacy") as server:
        assert server.protocol_version == "2025-11-25"
        text = await server.call_tool("report", {"turn": "t3"})
    # The extension is offered on 2026-07-28 only; the server answers the plain way.
    assert text == "report for t3 ready, without a task"
    assert (board.starts["t3"], board.polls["t3"]) == (1, 0)
