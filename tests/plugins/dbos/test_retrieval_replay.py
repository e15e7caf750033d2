"""A retrieval in a durable turn is a recorded unit: a real worker killed after the
turn's retrieval, the store changed while no worker runs, and the restarted worker's
replay still sends the documents the first run retrieved (a new turn sees the new ones).
SQLite system database, the retrieval plugin's question-answer advisor on a SQLite
vector store, the deterministic hashing embedding model."""

from __future__ import annotations

from pathlib import Path

from ostinato.retrieval import Document
from ostinato.testing import HashingEmbeddingModel
from ostinato.testing.durable_engine import FakeModelServer
from ostinato_retrieval import SQLiteVectorStore
from tests.plugins.dbos.workers import Workers, turn_request


def test_a_replayed_turn_sends_the_documents_its_first_run_retrieved(
    workers: Workers, model_server: FakeModelServer, tmp_path: Path
) -> None:
    vectors = tmp_path / "vectors.sqlite3"
    store = SQLiteVectorStore(HashingEmbeddingModel(), vectors)
    store.add_sync([Document("The first fact: alpha.", id="first")])
    workers.env.update(
        {
            "OSTINATO_LOAD_PLUGINS": "openai,memory,dbos,retrieval",
            "OSTINATO_RETRIEVAL_ADVISOR": "question-answer",
            "OSTINATO_RETRIEVAL_STORE": "sqlite",
            "OSTINATO_RETRIEVAL_PATH": str(vectors),
            "OSTINATO_RETRIEVAL_EMBEDDING": "hashing",
        }
    )
    gate = model_server.gate(("model", "t1", 2))
    worker = workers.start("w1")
    with workers.engine() as engine:
        handle = engine.submit(turn_request("t1", "tool"))
        assert gate.arrived.wait(workers.patience)  # retrieved, round 1 and the tool ran
        workers.kill(worker)
        store.delete_sync(["first"])
        store.add_sync([Document("The second fact: beta.", id="second")])
        gate.release.set()
        workers.start("w1")  # replays the turn: its retrieval is read from the record
        assert handle.result(timeout=workers.patience).text == "done t1"
        later = engine.submit(turn_request("t2", "tool"))
        assert later.result(timeout=workers.patience).text == "done t2"
    first_run, replay = model_server.user_texts[("model", "t1", 2)]
    for sent in (first_run, replay):
        assert sent.startswith("t1 tool\n\nContext information is below")
        assert "The first fact: alpha." in sent and "beta" not in sent
    assert model_server.started[("model", "t1", 1)] == 1  # recorded: not sent again
    [fresh] = model_server.user_texts[("model", "t2", 1)]
    assert "The second fact: beta." in fresh and "alpha" not in fresh
