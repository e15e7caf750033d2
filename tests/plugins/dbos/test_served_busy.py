"""A busy conversation on the durable engine across processes (PostgreSQL, server
processes and two workers on loopback): each busy policy, call and stream, with the
stored conversation checked after the fact; two servers racing on one conversation
start one turn; an enqueued message outlives the server that took it; and
``/v1/chat/completions`` on the engine (a call, a stream, a dropped stream cancelling
its turn)."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

import httpx
import pytest

from ostinato.durable import TurnStatus
from ostinato.testing.durable_engine import FakeModelServer, long_answer
from tests.plugins.dbos.scale import fresh_database_url
from tests.plugins.dbos.served import Servers, messages
from tests.plugins.dbos.workers import Workers
from tests.servers import PostgresServer

Cluster = tuple[Workers, Servers, str, str]


@pytest.fixture(scope="module")
def shared_model() -> Iterator[FakeModelServer]:
    with FakeModelServer(word_delay=0.02) as server:
        yield server


@pytest.fixture(scope="module")
def cluster(
    tmp_path_factory: pytest.TempPathFactory, shared_model: FakeModelServer
) -> Iterator[Cluster]:
    # One cluster for the module: its processes take most of the time.
    with PostgresServer() as postgres:
        tmp = tmp_path_factory.mktemp("busy")
        with Workers(tmp, shared_model, fresh_database_url(postgres)) as workers:
            workers.start("w1")
            workers.start("w2")
            with Servers(workers) as servers:
                _, a = servers.start()
                _, b = servers.start()
                yield workers, servers, a, b


def _wait(workers: Workers, what: str, done: Callable[[], bool]) -> None:
    """Wait until ``done()`` (a condition of the system, looked at every 50 ms)."""
    stop = threading.Event()
    for _ in range(int(workers.patience / 0.05)):
        if done():
            return
        stop.wait(0.05)
    raise AssertionError(f"{what} did not happen within {workers.patience} s")


def _post(url: str, body: dict[str, Any], stream: bool, patience: float) -> tuple[int, Any]:
    """``POST /api/turns``: the status and the SSE messages (stream) or the JSON body."""
    with httpx.Client(timeout=patience) as http:
        if not stream:
            response = http.post(f"{url}/api/turns", json={**body, "stream": False})
            return response.status_code, response.json()
        with http.stream("POST", f"{url}/api/turns", json=body) as response:
            if response.status_code != 200:
                response.read()
                return response.status_code, response.json()
            return 200, list(messages(response))


def _outcome(answer: tuple[int, Any], stream: bool) -> str:
    status, body = answer
    assert status == 200, body
    return str(body[-1][2]["reason"] if stream else body["outcome"])


def _status(url: str, turn_id: str) -> str:
    response = httpx.get(f"{url}/api/turns/{turn_id}", timeout=10)
    return str(response.json().get("status")) if response.status_code == 200 else "absent"


def _stored(url: str, conversation: str) -> list[tuple[str, str | None]]:
    """The stored conversation as (type, text or tool call ids), checked valid: every
    tool call answered by the next message, every result the answer of a call."""
    data = httpx.get(f"{url}/api/conversations/{conversation}", timeout=10).json()
    stored: list[tuple[str, str | None]] = []
    asked: set[str] = set()
    for message in data["messages"]:
        if message["type"] == "tool":
            ids = {r["id"] for r in message["responses"]}
            assert ids == asked, f"results {ids} for the calls {asked}: {data['messages']}"
            asked = set()
            stored.append(("tool", ",".join(sorted(ids))))
            continue
        assert not asked, f"the calls {asked} have no results: {data['messages']}"
        asked = {c["id"] for c in message.get("tool_calls", [])}
        text = ",".join(sorted(asked)) if asked else message.get("text")
        stored.append((message["type"], text))
    assert not asked, f"the calls {asked} have no results: {data['messages']}"
    return stored


def _first_turn(conversation: str) -> list[tuple[str, str | None]]:
    """What the gated first turn of ``conversation`` stores when it answers (its memory
    keeps the question and the answer, not the tool round between them)."""
    return [("user", f"{conversation} tool"), ("assistant", f"done {conversation}")]


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "call"])
@pytest.mark.parametrize("policy", ["reject", "enqueue", "interrupt", "steer"])
def test_a_busy_durable_conversation_follows_its_policy(
    cluster: Cluster, shared_model: FakeModelServer, policy: str, stream: bool
) -> None:
    workers, _, a, b = cluster
    conversation = f"{policy}{'s' if stream else 'c'}"
    gate = shared_model.gate(("count", conversation, 0))  # the first turn's tool call
    first_id, second_id = f"turn:{conversation}:1", f"turn:{conversation}:2"
    with ThreadPoolExecutor(2) as pool:
        body = {"message": f"{conversation} tool", "conversation_id": conversation}
        first = pool.submit(_post, a, body, stream, workers.patience)
        assert gate.arrived.wait(workers.patience)
        body = {"message": f"{conversation} plain", "conversation_id": conversation, "busy": policy}
        second: Future[tuple[int, Any]] = pool.submit(_post, b, body, stream, workers.patience)
        if policy in ("reject", "steer"):
            second.result(workers.patience)  # answered at once, the first still running
        elif policy == "enqueue":  # the second turn waits, inside the engine, for the first
            _wait(workers, "the enqueued turn", lambda: _status(b, second_id) != "absent")
            assert _status(b, second_id) == "running"
        else:
            _wait(workers, "the interrupt", lambda: _status(b, first_id) == "cancelled")
        gate.release.set()
        first_answer = first.result(workers.patience)
        first_outcome = _outcome(first_answer, stream)
        answered = second.result(workers.patience)
    stored = _stored(b, conversation)
    if policy == "reject":
        status, error = answered
        assert status == 409 and error["error"]["type"] == "conversation_busy"
        assert error["error"]["turn_id"] == first_id
        assert first_outcome == "answered"
        assert stored == _first_turn(conversation)
    elif policy == "steer":
        status, steered = answered
        assert status == 202 and steered == {
            "turn_id": first_id,
            "conversation_id": conversation,
            "steered": True,
        }
        assert first_outcome == "answered"
        # Recorded at the round boundary after the tool call: before the second round.
        question, answer = _first_turn(conversation)
        assert stored == [question, ("user", f"{conversation} plain"), answer]
        if stream:  # the second round's request: the tool round, then the steered message
            rounds = [data for kind, _, data in first_answer[1] if kind == "round_started"]
            sent = rounds[1]["messages"]
            assert [m["type"] for m in sent[-3:]] == ["assistant", "tool", "user"]
            assert sent[-1]["text"] == f"{conversation} plain"
    elif policy == "enqueue":
        assert first_outcome == "answered"
        assert _outcome(answered, stream) == "answered"
        second = [("user", f"{conversation} plain"), ("assistant", f"done {conversation}")]
        assert stored == [*_first_turn(conversation), *second]
    else:
        assert first_outcome == "cancelled"
        assert _outcome(answered, stream) == "answered"
        # The interrupted turn stored nothing (its memory is written when it answers).
        assert stored == [("user", f"{conversation} plain"), ("assistant", f"done {conversation}")]
    assert _status(b, first_id) == ("cancelled" if policy == "interrupt" else "succeeded")


def test_two_servers_racing_on_one_conversation_start_one_turn(
    cluster: Cluster, shared_model: FakeModelServer
) -> None:
    workers, _, a, b = cluster
    for n in range(3):
        conversation = f"race{n}"
        gate = shared_model.gate(("count", conversation, 0))
        ready = threading.Barrier(2)
        body = {"message": f"{conversation} tool", "conversation_id": conversation}

        def post(url: str, body: dict[str, Any] = body, ready: Any = ready) -> tuple[int, Any]:
            ready.wait(10)  # both requests leave at the same instant
            return _post(url, body, False, workers.patience)

        with ThreadPoolExecutor(2) as pool:
            answers = [pool.submit(post, a), pool.submit(post, b)]
            assert gate.arrived.wait(workers.patience)  # one turn runs, held at its tool
            done, _ = wait(answers, workers.patience, FIRST_COMPLETED)
            status, error = next(iter(done)).result()  # the other request, refused
            assert status == 409 and error["error"]["type"] == "conversation_busy"
            gate.release.set()
            results = [f.result(workers.patience) for f in answers]
        started = [r for r in results if r[0] == 200]
        assert len(started) == 1, results
        assert started[0][1]["turn_id"] == error["error"]["turn_id"] == f"turn:{conversation}:1"
        with workers.engine() as engine:
            assert engine.turn_ids(f"turn:{conversation}:") == [f"turn:{conversation}:1"]
        assert _stored(a, conversation) == _first_turn(conversation)


def test_an_enqueued_message_outlives_the_server_that_took_it(
    cluster: Cluster, shared_model: FakeModelServer
) -> None:
    workers, servers, a, b = cluster
    conversation = "restart"
    gate = shared_model.gate(("count", conversation, 0))
    server_c, c = servers.start()
    with ThreadPoolExecutor(2) as pool:
        body = {"message": f"{conversation} tool", "conversation_id": conversation}
        first = pool.submit(_post, a, body, False, workers.patience)
        assert gate.arrived.wait(workers.patience)
        body = {"message": "second", "conversation_id": conversation, "busy": "enqueue"}
        lost = pool.submit(_post, c, body, True, workers.patience)
        second_id = f"turn:{conversation}:2"
        _wait(workers, "the enqueued turn", lambda: _status(b, second_id) == "running")
        Workers.kill(server_c)  # the server that took the message dies while it waits
        with pytest.raises(httpx.HTTPError):
            lost.result(workers.patience)
        gate.release.set()
        assert _outcome(first.result(workers.patience), False) == "answered"
    _wait(workers, "the enqueued turn's end", lambda: _status(b, second_id) == "succeeded")
    assert _stored(b, conversation) == [
        *_first_turn(conversation),
        ("user", "second"),
        ("assistant", f"done {conversation}"),
    ]


def _chunks(response: httpx.Response) -> Iterator[dict[str, Any]]:
    """The completion chunks of a ``/v1/chat/completions`` stream, up to ``[DONE]``."""
    for line in response.iter_lines():
        if line == "data: [DONE]":
            return
        if line.startswith("data: "):
            yield json.loads(line[6:])


def test_chat_completions_run_on_the_engine(
    cluster: Cluster, shared_model: FakeModelServer
) -> None:
    workers, _, a, b = cluster
    with httpx.Client(timeout=workers.patience) as http:
        history = [
            {"role": "user", "content": "o1 plain"},
            {"role": "assistant", "content": "done o1"},
            {"role": "user", "content": "and again?"},
        ]
        called = http.post(f"{a}/v1/chat/completions", json={"model": "m", "messages": history})
        assert called.status_code == 200, called.text
        completion = called.json()
        assert completion["choices"][0]["message"]["content"] == "done o1"
        assert completion["id"].startswith("chatcmpl-")
        assert shared_model.started[("model", "o1", 2)] == 1  # the history reached the model
        with workers.engine() as engine:
            assert engine.turn(completion["id"]).status is TurnStatus.SUCCEEDED
        body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "o2 long"}]}
        with http.stream("POST", f"{b}/v1/chat/completions", json=body) as response:
            chunks = list(_chunks(response))
        text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
        assert text == long_answer("o2")
        assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
        body["messages"] = [{"role": "user", "content": "o3 long"}]
        with http.stream("POST", f"{a}/v1/chat/completions", json=body) as response:
            chunks = list(itertools.islice(_chunks(response), 4))  # then dropped
        turn_id = chunks[0]["id"]
    with workers.engine() as engine:
        handle = engine.turn(turn_id)
        _wait(workers, "the cancel", lambda: handle.status is TurnStatus.CANCELLED)
    assert shared_model.finished[("model", "o3", 1)] <= 1
