"""``OSTINATO_SERVE_ON_DISCONNECT=cancel`` on the durable engine (SQLite, one server
process, one worker on loopback): a client that goes away from a streamed or a
non-streamed ``/api/turns`` turn, or from the stream of an approved turn, held in a tool
call cancels it, the turn's events end with the call's cancelled result and the
conversation stays valid (its next message is answered); a reader of a turn waiting for
approval leaving cancels nothing; a client that goes away while another reader of the
turn reads on (a reattached ``GET /api/turns/<id>/events``) leaves it running to its
answer. Under the
default ``detach`` a dropped turn goes on: ``test_served_durable`` reads one to its end."""

from __future__ import annotations

import json
import socket
import time
from typing import Any

import httpx

from ostinato.testing.durable_engine import FakeModelServer
from tests.plugins.dbos.served import Servers, messages
from tests.plugins.dbos.workers import Workers


def _send(url: str, method: str, path: str, body: dict[str, Any] | None = None) -> socket.socket:
    """A request sent on a socket of its own, left open (the test closes it: the client
    going away)."""
    host, _, port = url.removeprefix("http://").partition(":")
    payload = json.dumps(body).encode() if body is not None else b""
    head = (
        f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
    )
    connection = socket.create_connection((host, int(port)), timeout=30)
    connection.sendall(head.encode() + payload)
    return connection


def _status(http: httpx.Client, url: str, turn_id: str) -> str:
    return str(http.get(f"{url}/api/turns/{turn_id}").json()["status"])


def _wait_status(http: httpx.Client, workers: Workers, url: str, turn_id: str, want: str) -> None:
    deadline = time.monotonic() + workers.patience
    while (status := _status(http, url, turn_id)) != want:
        assert time.monotonic() < deadline, f"{turn_id} is {status}, expected {want}"
        time.sleep(0.05)


def _check_cancelled(http: httpx.Client, url: str, conversation: str) -> None:
    """The turn's events end cancelled, every call with its result; the conversation
    holds nothing of it and answers its next message."""
    turn_id = f"turn:{conversation}:1"
    read: list[tuple[str, dict[str, Any]]] = []
    while not read or read[-1][1].get("reason") == "approval_required":  # read past a stop
        after = read[-1][1]["seq"] if read else 0
        with http.stream("GET", f"{url}/api/turns/{turn_id}/events?after={after}") as response:
            read += [(kind, data) for kind, ident, data in messages(response) if ident]
    requested = {d["call"]["id"] for kind, d in read if kind == "tool_call_requested"}
    finished = {d["call"]["id"] for kind, d in read if kind == "tool_finished"}
    assert requested == finished == {f"call-{conversation}"}, " ".join(k for k, _ in read)
    assert read[-1][0] == "loop_ended" and read[-1][1]["reason"] == "cancelled", read[-1]
    unknown = http.get(f"{url}/api/conversations/{conversation}")  # memory is written
    assert unknown.status_code == 404, unknown.text  # when a turn answers: nothing yet
    body = {"message": f"{conversation} plain", "conversation_id": conversation}
    answered = http.post(f"{url}/api/turns", json={**body, "stream": False}).json()
    assert answered["outcome"] == "answered" and answered["turn_id"] == f"turn:{conversation}:2"
    stored = http.get(f"{url}/api/conversations/{conversation}").json()["messages"]
    assert [(m["type"], m["text"]) for m in stored] == [
        ("user", f"{conversation} plain"),
        ("assistant", f"done {conversation}"),
    ]


def test_a_client_going_away_cancels_its_durable_turn_under_cancel(
    workers: Workers, model_server: FakeModelServer
) -> None:
    workers.start("w1")
    with Servers(workers) as servers, httpx.Client(timeout=workers.patience) as http:
        servers.env["OSTINATO_SERVE_ON_DISCONNECT"] = "cancel"
        servers.env["OSTINATO_SERVE_REATTACH_SECONDS"] = "0"
        _, url = servers.start()
        for conversation, stream in (("dcs", True), ("dcc", False)):
            gate = model_server.gate(("count", conversation, 0))
            body = {"message": f"{conversation} tool", "conversation_id": conversation}
            client = _send(url, "POST", "/api/turns", {**body, "stream": stream})
            assert gate.arrived.wait(workers.patience)  # the turn is in its tool call
            client.close()  # the client goes away
            _wait_status(http, workers, url, f"turn:{conversation}:1", "cancelled")
            gate.release.set()
            _check_cancelled(http, url, conversation)

        # A turn stopped for approval: its reader leaving cancels nothing (the turn has
        # stopped); the reader of the approved turn leaving mid-call cancels it.
        gate = model_server.gate(("pay", "dca", 0))
        body = {"message": "dca approval", "conversation_id": "dca"}
        with http.stream("POST", f"{url}/api/turns", json=body) as response:
            stopped = list(messages(response))
        pending = next(data for kind, _, data in stopped if kind == "pending")
        waiting = _send(url, "GET", f"/api/turns/turn:dca:1/events?after={stopped[-1][1]}")
        assert waiting.recv(1024).startswith(b"HTTP/1.1 200")
        waiting.close()
        time.sleep(0.5)  # a cancel would have been sent by now
        assert _status(http, url, "turn:dca:1") == "waiting_for_approval"
        decision = {"decisions": {pending["calls"][0]["id"]: {"decision": "approve"}}}
        client = _send(url, "POST", f"/api/approvals/{pending['pending_id']}", decision)
        assert gate.arrived.wait(workers.patience)  # the approved call runs
        client.close()
        _wait_status(http, workers, url, "turn:dca:1", "cancelled")
        gate.release.set()
        _check_cancelled(http, url, "dca")

        # Two readers: the first going away leaves the turn to the other.
        gate = model_server.gate(("count", "dcr", 0))
        body = {"message": "dcr tool", "conversation_id": "dcr"}
        first = _send(url, "POST", "/api/turns", body)
        assert gate.arrived.wait(workers.patience)
        with http.stream("GET", f"{url}/api/turns/turn:dcr:1/events") as response:
            read = messages(response)
            assert next(read)[0] == "turn"  # the second reader is counted
            first.close()
            time.sleep(0.5)  # a cancel would have been sent by now
            assert _status(http, url, "turn:dcr:1") == "running"
            gate.release.set()
            rest = list(read)
        assert rest[-1][0] == "loop_ended" and rest[-1][2]["reason"] == "answered"
        assert _status(http, url, "turn:dcr:1") == "succeeded"
