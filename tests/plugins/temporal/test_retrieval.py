"""A retrieval in a Temporal turn is a local activity, rebuilt from its description on
the worker's own client (its retrieval advisor's store): a real worker killed in the
turn's model round, the store rewritten while no worker runs, and the restarted
worker's replay still sends the documents the first run retrieved, read from the turn's
history. The question-answer advisor on a SQLite vector store, hashing embeddings; turns
without tools (loading the kit's tool module in the workflow imports pytest there, which
a loaded machine's sandbox may take over Temporal's 2 s deadlock limit to do)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ostinato.durable import TurnRequest, durable_engine
from ostinato.retrieval import Document
from ostinato.testing import HashingEmbeddingModel
from ostinato.testing.durable_engine import FakeModelServer, Workers
from ostinato_retrieval import SQLiteVectorStore
from tests.plugins.temporal.conftest import temporal_environment, use_environment
from tests.servers import TemporalServer


def test_a_replayed_turn_sends_the_documents_its_first_run_retrieved(
    temporal_server: TemporalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vectors = tmp_path / "vectors.sqlite3"
    store = SQLiteVectorStore(HashingEmbeddingModel(), vectors)
    store.add_sync([Document("The first fact: alpha.", id="first")])
    with FakeModelServer() as server:
        env = {
            **temporal_environment(server, tmp_path / "memory.sqlite3", temporal_server, "rag"),
            "OSTINATO_LOAD_PLUGINS": "openai,memory,retrieval,temporal",
            "OSTINATO_RETRIEVAL_ADVISOR": "question-answer",
            "OSTINATO_RETRIEVAL_STORE": "sqlite",
            "OSTINATO_RETRIEVAL_PATH": str(vectors),
            "OSTINATO_RETRIEVAL_EMBEDDING": "hashing",
        }
        use_environment(monkeypatch, env)
        gate = server.gate(("model", "r1", 1))
        with Workers(env, ["--engine", "temporal"], Path.cwd()) as workers:
            engine = durable_engine("temporal")
            try:
                worker = workers.start()
                handle = engine.submit(TurnRequest("r1 plain", conversation_id="r1"))
                assert gate.arrived.wait(workers.patience)  # retrieved, in the model round
                workers.kill(worker)
                store.delete_sync(["first"])
                store.add_sync([Document("The second fact: beta.", id="second")])
                gate.release.set()
                workers.start()  # replays the turn from its history
                assert handle.result(timeout=workers.patience).text == "done r1"
                later = engine.submit(TurnRequest("r2 plain", conversation_id="r2"))
                assert later.result(timeout=workers.patience).text == "done r2"
            finally:
                engine.close()
    sent = server.user_texts[("model", "r1", 1)]
    assert len(sent) == 2  # in flight at the crash: sent again, from the recorded search
    for text in sent:
        assert text.startswith("r1 plain\n\nContext information is below")
        assert "The first fact: alpha." in text and "beta" not in text
    [fresh] = server.user_texts[("model", "r2", 1)]
    assert "The second fact: beta." in fresh and "alpha" not in fresh
