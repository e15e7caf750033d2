"""MCP calls in durable turns (DBOS, real ``ostinato worker`` processes, SQLite): a task
a worker was polling when it was SIGKILLed is polled again by the worker that takes the
turn over, and the tool's work started once; an elicitation answered after every worker
was restarted resumes the call. The MCP server runs in the test process on loopback, so
it outlives the workers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from ostinato.durable import TurnRequest, TurnStatus
from ostinato.testing.durable_engine import FakeModelServer
from ostinato.tools import ApprovalDecision
from tests.plugins.dbos.workers import Workers
from tests.plugins.mcp.task_server import Board, serve_tasks


@pytest.fixture
def board() -> Board:
    return Board()


@pytest.fixture
def workers(tmp_path: Path, board: Board) -> Iterator[Workers]:
    """Workers whose auto-configured clients have the tools of the test's MCP server."""
    with FakeModelServer() as model, serve_tasks(board) as url:
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"reports": {"url": url}}}))
        with Workers(tmp_path, model, f"sqlite:///{tmp_path / 'dbos.sqlite3'}") as started:
            started.env["OSTINATO_LOAD_PLUGINS"] = "openai,memory,dbos,mcp"
            started.env["OSTINATO_TOOLS__ENABLED"] = "mcp"
            started.env["OSTINATO_MCP_CONFIG"] = str(config)
            yield started


def test_a_task_polled_when_its_worker_was_killed_is_polled_again_not_called_again(
    workers: Workers, board: Board
) -> None:
    board.hold("d1")
    worker = workers.start("w1")
    with workers.engine() as engine:
        handle = engine.submit(TurnRequest("d1 call:report", conversation_id="d1"))
        assert board.polled["d1"].wait(workers.patience)  # w1 polls the task
        workers.kill(worker)
        board.polled["d1"].clear()
        workers.start("w2")  # takes the turn over
        assert board.polled["d1"].wait(workers.patience)  # and polls the same task
        board.release("d1")
        assert handle.result(timeout=workers.patience).text == "done d1"
        assert handle.status is TurnStatus.SUCCEEDED
    assert board.starts["d1"] == 1  # the work started once: the call was not made again


def test_an_elicitation_answered_after_the_workers_restarted_resumes_the_call(
    workers: Workers, board: Board
) -> None:
    worker = workers.start("w1")
    with workers.engine() as engine:
        handle = engine.submit(TurnRequest("d2 call:reserve", conversation_id="d2"))
        pending = handle.wait_for_pending(workers.patience)
        assert pending is not None
        [call] = pending.calls
        assert pending.inputs[call.id].message == "Who are the seats for, and how many?"
        workers.kill(worker)
        workers.start("w2")  # a new worker adopts the turn: it waits again
        handle.decide({call.id: ApprovalDecision.answer({"name": "Ada", "count": 2})})
        assert handle.result(timeout=workers.patience).text == "done d2"
    assert board.starts["d2"] == 1
