"""A2A tasks on the durable engine: ``ostinato serve`` processes with the A2A routes and
``OSTINATO_SERVE_TURNS=durable``, a DBOS worker, the ``a2a-sdk``'s own client. A task is
a durable turn (its id is the turn's); it outlives the server process that started it:
a task waiting for approval is read and decided on a new process, and a task running
when its server was SIGKILLed is subscribed to on a new process and read to its end."""

from __future__ import annotations

import asyncio
from typing import Any

from a2a.types import GetTaskRequest, SubscribeToTaskRequest
from google.protobuf import json_format

from ostinato.testing.durable_engine import FakeModelServer
from tests.plugins.a2a.sdk import collect, plain, sdk_client, user_message
from tests.plugins.dbos.served import Servers
from tests.plugins.dbos.workers import Workers


def _state(response: dict[str, Any]) -> str | None:
    if "task" in response:
        return str(response["task"]["status"]["state"])
    if "statusUpdate" in response:
        return str(response["statusUpdate"]["status"]["state"])
    return None


def _task_id(responses: list[dict[str, Any]]) -> str:
    return str(responses[0]["task"]["id"])


def _answer(responses: list[dict[str, Any]]) -> str:
    """The ``answer`` artifact's last whole form (sent whole, or in a task)."""
    whole = []
    for response in responses:
        if "task" in response:
            whole.extend(a for a in response["task"].get("artifacts", ()) if a["name"] == "answer")
        elif "artifactUpdate" in response and not response["artifactUpdate"].get("append"):
            whole.append(response["artifactUpdate"]["artifact"])
    return "".join(p.get("text", "") for p in whole[-1]["parts"])


async def test_a_task_is_a_durable_turn_that_outlives_its_server(
    workers: Workers, model_server: FakeModelServer
) -> None:
    workers.start("w1")
    with Servers(workers) as servers:
        servers.env["OSTINATO_LOAD_PLUGINS"] += ",a2a"
        first, a = servers.start()

        # Waiting for approval, started on A.
        async with sdk_client(a) as client:
            stopped = await collect(client, user_message("p1 approval"))
        task_id = _task_id(stopped)
        assert task_id.startswith("turn:") and task_id.count(":") == 2
        assert _state(stopped[-1]) == "TASK_STATE_INPUT_REQUIRED"
        with workers.engine() as engine:  # the task's id is the turn's
            assert engine.turn(task_id).pending() is not None
        Workers.kill(first)

        # Read and decided on B, a new process.
        second, b = servers.start()
        async with sdk_client(b) as client:
            task = plain(await client.get_task(GetTaskRequest(id=task_id)))
            assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
            (call,) = task["metadata"]["ostinato/pending"]["pending_calls"]
            assert call["name"] == "pay"
            resumed = await collect(client, user_message("approve", task_id=task_id))
            assert _state(resumed[-1]) == "TASK_STATE_COMPLETED"
            assert _answer(resumed) == "done p1"
            finished = plain(await client.get_task(GetTaskRequest(id=task_id)))
            assert finished["status"]["state"] == "TASK_STATE_COMPLETED"
        assert model_server.started[("pay", "p1", 0)] == 1

        # Running (its tool call held) when B is SIGKILLed; subscribed to on C, where the
        # turn goes on and is read to its end.
        gate = model_server.gate(("count", "t1", 0))
        async with sdk_client(b) as client:
            async for event in client.send_message(user_message("t1 tool")):
                running = _task_id([json_format.MessageToDict(event)])
                break
        assert await asyncio.to_thread(gate.arrived.wait, workers.patience)
        Workers.kill(second)
        _, c = servers.start()
        rest: list[dict[str, Any]] = []
        async with sdk_client(c) as client:
            async for update in client.subscribe(SubscribeToTaskRequest(id=running)):
                rest.append(json_format.MessageToDict(update))
                gate.release.set()  # the subscription is there: let the turn go on
        assert rest[0]["task"]["id"] == running
        assert _state(rest[0]) == "TASK_STATE_WORKING"
        assert _state(rest[-1]) == "TASK_STATE_COMPLETED"
        assert _answer(rest) == "done t1"
        told = [
            r["statusUpdate"]["metadata"] for r in rest if "metadata" in r.get("statusUpdate", {})
        ]
        kinds = [m["ostinato/event"]["kind"] for m in told]
        assert kinds[-3:] == ["tool_finished", "round_finished", "loop_ended"]
        assert told[-1]["ostinato/usage"]["total_tokens"] == 30
        assert model_server.started[("count", "t1", 0)] == 1
