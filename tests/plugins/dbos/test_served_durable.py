"""``ostinato serve`` on the durable engine across processes: PostgreSQL, two server
processes and two workers on loopback. A turn started on server A and dropped is read to
its end on server B, nothing lost or repeated; an approval sent through B resumes a turn
started on A (and a second decision through A is refused); a worker SIGKILLed mid-turn
and a server SIGKILLed mid-stream lose nothing for a reader that reattaches elsewhere."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ostinato.events import LoopEvent, TextDelta, withdrawn
from ostinato.testing.durable_engine import FakeModelServer, long_answer
from tests.plugins.dbos.scale import fresh_database_url
from tests.plugins.dbos.served import Message, Servers, messages
from tests.plugins.dbos.workers import Workers
from tests.servers import PostgresServer

#: Seconds between two words of the streamed answer (40 words: about 2 s a turn).
WORD_DELAY = 0.05


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    with PostgresServer() as server:
        yield server


@pytest.fixture
def cluster(
    tmp_path: Path, model_server: FakeModelServer, postgres: PostgresServer
) -> Iterator[tuple[Workers, Servers]]:
    with Workers(tmp_path, model_server, fresh_database_url(postgres)) as workers:
        workers.start("w1")
        workers.start("w2")
        with Servers(workers) as servers:
            yield workers, servers


def _events(read: list[Message]) -> list[LoopEvent]:
    return [LoopEvent.from_dict(data) for _, ident, data in read if ident is not None]


def _check_whole(events: list[LoopEvent], turn: str) -> None:
    seqs = [e.seq for e in events]
    assert seqs == list(range(1, len(seqs) + 1)), f"lost or read twice: {seqs}"
    text = "".join(e.text for e in withdrawn(events) if isinstance(e, TextDelta))
    assert text == long_answer(turn)
    assert events[-1].kind == "loop_ended"


def _reattach(http: httpx.Client, url: str, turn_id: str, last: int) -> list[Message]:
    headers = {"Last-Event-ID": str(last)}
    with http.stream("GET", f"{url}/api/turns/{turn_id}/events", headers=headers) as response:
        assert response.status_code == 200, response.read()
        return list(messages(response))


def test_two_servers_and_two_workers_serve_any_turn_from_either_server(
    cluster: tuple[Workers, Servers], model_server: FakeModelServer
) -> None:
    # One cluster for every case: its processes take most of the time.
    workers, servers = cluster
    model_server.word_delay = WORD_DELAY
    server_a, a = servers.start()
    _, b = servers.start()
    with httpx.Client(timeout=workers.patience) as http:
        dropped_on_a_read_on_b(http, a, b)
        approval_through_b(http, a, b, model_server)
        killed_worker_and_server(http, workers, server_a, a, b)


def dropped_on_a_read_on_b(http: httpx.Client, a: str, b: str) -> None:
    """A turn started on A and dropped is read to its end on B."""
    # Dropped on A after a few events; read on from B after the last id read.
    body = {"message": "r1 long", "conversation_id": "r1"}
    with http.stream("POST", f"{a}/api/turns", json=body) as response:
        assert response.status_code == 200
        first = list(messages(response, lambda read: len(read) >= 6))
    kind, _, opened = first[0]
    assert kind == "turn" and opened["conversation_id"] == "r1"
    turn_id = opened["turn_id"]
    last = first[-1][1]
    assert last is not None
    rest = _reattach(http, b, turn_id, last)
    assert rest[0] == ("turn", None, opened)
    _check_whole(_events(first) + _events(rest), "r1")
    shown = http.get(f"{b}/api/turns/{turn_id}").json()
    assert shown["done"] is True and shown["status"] == "succeeded"
    past = http.get(f"{a}/api/turns/{turn_id}/events", headers={"Last-Event-ID": "999"})
    assert past.status_code == 416 and past.json()["error"]["type"] == "past_end"
    unknown = http.get(f"{a}/api/turns/turn:nobody:0/events")
    assert unknown.status_code == 404


def approval_through_b(http: httpx.Client, a: str, b: str, model_server: FakeModelServer) -> None:
    """An approval sent through B resumes a turn started on A; a second one is refused."""
    body = {"message": "p1 approval", "conversation_id": "p1"}
    with http.stream("POST", f"{a}/api/turns", json=body) as response:
        stopped = list(messages(response))
    kinds = [kind for kind, _, _ in stopped]
    assert kinds[-1] == "loop_ended" and stopped[-1][2]["reason"] == "approval_required"
    pending = stopped[kinds.index("pending")][2]
    (call,) = pending["calls"]
    busy = http.post(f"{b}/api/turns", json={"message": "p1 plain", "conversation_id": "p1"})
    assert busy.status_code == 409 and busy.json()["error"]["type"] == "conversation_busy"
    running = http.get(f"{b}/api/conversations/p1/turn").json()  # what a reloaded page asks
    assert running == {"conversation_id": "p1", "turn_id": stopped[0][2]["turn_id"]}
    decision = {"decisions": {call["id"]: {"decision": "approve"}}}
    url = f"/api/approvals/{pending['pending_id']}"
    with http.stream("POST", f"{b}{url}", json=decision) as response:
        assert response.status_code == 200
        resumed = list(messages(response))
    again = http.post(f"{a}{url}", json=decision)
    assert resumed[0][2]["turn_id"] == stopped[0][2]["turn_id"]
    finished = next(data for kind, _, data in resumed if kind == "tool_finished")
    assert finished["call"]["name"] == "pay"
    assert resumed[-1][2]["reason"] == "answered"
    seqs = [ident for _, ident, _ in stopped + resumed if ident is not None]
    assert seqs == list(range(1, len(seqs) + 1))  # nothing lost or repeated across both
    assert again.status_code == 409 and again.json()["error"]["type"] == "already_decided"
    assert model_server.started[("pay", "p1", 0)] == 1


def killed_worker_and_server(
    http: httpx.Client, workers: Workers, server_a: subprocess.Popen[str], a: str, b: str
) -> None:
    """A worker SIGKILLed mid-turn and a server SIGKILLed mid-stream lose nothing for a
    reader that reattaches on the other server."""
    body = {"message": "k1 long", "conversation_id": "k1"}
    with http.stream("POST", f"{a}/api/turns", json=body) as response:
        first = list(messages(response, lambda read: len(read) >= 5))
        Workers.kill(server_a)  # the server dies mid-stream
    turn_id = first[0][2]["turn_id"]
    last = first[-1][1]
    assert last is not None
    read = list(first)
    with (
        workers.engine() as engine,
        http.stream(
            "GET", f"{b}/api/turns/{turn_id}/events", headers={"Last-Event-ID": str(last)}
        ) as response,
    ):
        for n, message in enumerate(messages(response)):
            read.append(message)
            if n == 5:  # the worker dies mid-turn: the other one adopts it
                workers.kill(workers.running(engine, turn_id))
    _check_whole(_events(read), "k1")
