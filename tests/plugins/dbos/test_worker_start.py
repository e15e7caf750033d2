"""How ``ostinato worker`` starts: it refuses to without a usable model, and without an
explicit id it takes a stable one per project and host, so that a restarted worker
resumes its turns at once while a second worker beside it gets an id of its own."""

from __future__ import annotations

import socket

import pytest

from ostinato.testing.durable_engine import FakeModelServer
from tests.plugins.dbos.workers import PROJECT, Workers, submit_followed


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"OSTINATO_MODEL": None}, "no chat model is configured"),
        (
            {"OSTINATO_OPENAI_API_KEY": None, "OSTINATO_OPENAI_BASE_URL": None},
            "the openai provider needs an API key",
        ),
        ({"OSTINATO_MODEL": "nope:x"}, "names the provider 'nope'"),
    ],
    ids=["no-model", "no-key", "unknown-provider"],
)
def test_a_worker_without_a_usable_model_refuses_to_start(
    workers: Workers, changes: dict[str, str | None], said: str
) -> None:
    for name, value in changes.items():
        workers.env.pop(name, None)
        if value is not None:
            workers.env[name] = value
    workers.env.pop("OPENAI_API_KEY", None)
    workers.env.pop("OPENAI_BASE_URL", None)
    proc = workers.command("worker", "--poll", "0.05")
    assert proc.returncode == 2, proc
    assert "taking turns" not in proc.stdout
    first, *_ = proc.stderr.splitlines()
    assert first.startswith("ostinato: error: "), proc.stderr
    assert said in first.partition("; fix: ")[0] and "; fix: " in first
    assert not workers.database_path.exists()  # refused before it touched the database


def test_a_restarted_worker_takes_its_id_back_and_resumes_its_turn_at_once(
    workers: Workers, model_server: FakeModelServer
) -> None:
    # Adoption by a live worker would take ten minutes: only the restart can resume it.
    workers.env["OSTINATO_DBOS_DEAD_AFTER_SECONDS"] = "600"
    gate = model_server.gate(("model", "t6", 2))
    first, second = workers.start(None), workers.start(None)
    host = socket.gethostname().split(".")[0]
    ids = {workers.executor_of(first), workers.executor_of(second)}
    assert ids == {f"{host}-{PROJECT}-0", f"{host}-{PROJECT}-1"}  # side by side: two ids
    with workers.engine() as engine:
        handle, follower = submit_followed(engine, "t6", "tool")
        assert gate.arrived.wait(workers.patience)
        killed = workers.running(engine, handle.id)
        killed_id = workers.executor_of(killed)
        live = second if killed is first else first
        workers.kill(killed)  # in the second model round, after the tool ran
        gate.release.set()
        restarted = workers.start(None)
        assert workers.executor_of(restarted) == killed_id  # its slot, its id, its turns
        # Recovered as the restarted worker launched (back in the queue: either worker
        # may finish it), long before a live worker could presume the dead one dead.
        assert handle.result(timeout=workers.patience).text == "done t6"
        assert follower.kinds()[-1] == "loop_ended"
    assert live.poll() is None
    started = model_server.started
    assert started[("model", "t6", 1)] == 1  # completed before the crash: not repeated
    assert started[("count", "t6", 0)] == 1
    assert started[("model", "t6", 2)] == 2  # in flight at the crash: at most twice
