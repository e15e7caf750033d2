"""A2A tasks on the durable engine: ``ostinato serve`` processes with the A2A routes and
``OSTINATO_SERVE_TURNS=durable``, a DBOS worker, the ``a2a-sdk``'s own client. A task is
a durable turn (its id is the turn's); it outlives the server process that started it:
a task waiting for approval is read and decided on a new process, and a task streaming
when its server was SIGKILLed is subscribed to on a new process and read to its end."""

from __future__ import annotations

from typing import Any

from a2a.types import GetTaskRequest, SubscribeToTaskRequest
from google.protobuf import json_format

from tests.plugins.a2a.sdk import collect, plain, sdk_client, user_message
from tests.plugins.dbos.fake_model import FakeModelServer, long_answer
from tests.plugins.dbos.served import Servers
from tests.plugins.dbos.workers import Workers

#: Seconds between two words of the streamed answer (40 words: about 10 s a turn, so that
#: the streamed turn usually still runs when a new server subscribes to it; either way,
#: what the subscription reads is checked).
WORD_DELAY = 0.25


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
    model_server.word_delay = WORD_DELAY
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

        # Streaming on B when B is SIGKILLed; subscribed to on C, read to its end.
        async with sdk_client(b) as client:
            read: list[dict[str, Any]] = []
            async for event in client.send_message(user_message("l1 long")):
                read.append(json_format.MessageToDict(event))
                if sum("artifactUpdate" in r for r in read) >= 3:
                    break
        streaming = _task_id(read)
        Workers.kill(second)
        _, c = servers.start()
        async with sdk_client(c) as client:
            request = SubscribeToTaskRequest(id=streaming)
            rest = [json_format.MessageToDict(e) async for e in client.subscribe(request)]
        assert rest[0]["task"]["id"] == streaming
        assert _state(rest[-1]) == "TASK_STATE_COMPLETED"
        assert _answer(rest) == long_answer("l1")
        if _state(rest[0]) == "TASK_STATE_WORKING":  # followed on C: its updates came
            told = [r for r in rest if "statusUpdate" in r and "metadata" in r["statusUpdate"]]
            kinds = [r["statusUpdate"]["metadata"]["ostinato/event"]["kind"] for r in told]
            assert kinds[-1] == "loop_ended"
            assert told[-1]["statusUpdate"]["metadata"]["ostinato/usage"]["total_tokens"] > 0
