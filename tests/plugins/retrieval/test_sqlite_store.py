"""The SQLite vector store passes the vector store conformance kit on every backend this
machine can run, says which one it uses, and keeps its file's dimensions."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from ostinato.errors import ConfigurationError
from ostinato.retrieval import Document, SearchRequest, VectorStoreError
from ostinato.testing import HashingEmbeddingModel
from ostinato.testing.vector_store_conformance import SAMPLES, VectorStoreConformance
from ostinato_retrieval import SQLiteVectorStore
from ostinato_retrieval._connect import python_cosine_distance

CAN_LOAD = hasattr(sqlite3.connect(":memory:"), "enable_load_extension")


class _OnFile(VectorStoreConformance):
    backend = "auto"

    @pytest.fixture(autouse=True)
    def _place(self, tmp_path: Path) -> None:
        self.path = tmp_path / "vectors.sqlite3"

    async def make_store(self, embedding_model):
        return SQLiteVectorStore(embedding_model, self.path, backend=self.backend)


@pytest.mark.skipif(not CAN_LOAD, reason="this Python's sqlite3 cannot load extensions")
class TestSqlite3Backend(_OnFile):
    backend = "sqlite3"


class TestSqleanBackend(_OnFile):
    backend = "sqlean"


class TestPythonBackend(_OnFile):
    backend = "python"


def test_auto_picks_sqlite_vec_where_it_loads_and_says_so(tmp_path, caplog):
    with caplog.at_level(logging.INFO, logger="ostinato.retrieval"):
        store = SQLiteVectorStore(HashingEmbeddingModel(), tmp_path / "v.db")
    assert store.search_backend == ("sqlite3" if CAN_LOAD else "sqlean")
    assert "sqlite-vec in" in caplog.text
    store.close()


def test_without_an_extension_loader_the_search_is_exact_in_python(tmp_path, caplog, monkeypatch):
    import ostinato_retrieval._connect as connect_module

    def refuse(path):
        raise ConfigurationError("cannot load extensions here")

    monkeypatch.setitem(connect_module._OPENERS, "sqlite3", refuse)
    monkeypatch.setitem(connect_module._OPENERS, "sqlean", refuse)
    with caplog.at_level(logging.INFO, logger="ostinato.retrieval"):
        store = SQLiteVectorStore(HashingEmbeddingModel(), tmp_path / "v.db")
    assert store.search_backend == "python"
    assert "exact search in Python" in caplog.text and "cannot load extensions here" in caplog.text
    store.add_sync(SAMPLES)
    assert store.similarity_search_sync(SearchRequest("sourdough flour", top_k=1))[0].id == "c"
    store.close()


@pytest.mark.skipif(CAN_LOAD, reason="this Python's sqlite3 can load extensions")
def test_insisting_on_sqlite3_without_a_loader_says_what_to_do(tmp_path):
    with pytest.raises(ConfigurationError, match=r"ostinato-retrieval\[sqlean\]"):
        SQLiteVectorStore(HashingEmbeddingModel(), tmp_path / "v.db", backend="sqlite3")


async def test_every_backend_scores_alike(tmp_path):
    results = {}
    for backend in ("sqlean", "python"):
        store = SQLiteVectorStore(
            HashingEmbeddingModel(), tmp_path / f"{backend}.db", backend=backend
        )
        await store.add(SAMPLES)
        found = await store.similarity_search(SearchRequest("bakery bread morning", top_k=5))
        results[backend] = [(d.id, round(d.score or 0, 5)) for d in found]
        await store.aclose()
    assert results["sqlean"] == results["python"]


def test_the_python_distance_matches_the_definition():
    from ostinato_retrieval._connect import pack

    assert python_cosine_distance(pack([1, 0]), pack([0, 1])) == pytest.approx(1.0)
    assert python_cosine_distance(pack([1, 1]), pack([2, 2])) == pytest.approx(0.0, abs=1e-6)
    assert python_cosine_distance(pack([0, 0]), pack([1, 1])) == 1.0


def test_tables_share_a_file_apart(tmp_path):
    one = SQLiteVectorStore(HashingEmbeddingModel(), tmp_path / "v.db", table="one")
    two = SQLiteVectorStore(HashingEmbeddingModel(32), tmp_path / "v.db", table="two")
    one.add_sync([Document("in one", {}, "1")])
    two.add_sync([Document("in two", {}, "2")])
    assert [d.id for d in one.similarity_search_sync("in")] == ["1"]
    assert [d.id for d in two.similarity_search_sync("in")] == ["2"]
    one.close()
    two.close()


@pytest.mark.parametrize("table", ["", "1abc", "a;drop", "a b"])
def test_a_bad_table_name_is_refused(tmp_path, table):
    with pytest.raises(ValueError, match="table must be"):
        SQLiteVectorStore(HashingEmbeddingModel(), tmp_path / "v.db", table=table)


def test_a_file_that_cannot_be_made_is_a_store_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(VectorStoreError, match="could not be opened"):
        SQLiteVectorStore(HashingEmbeddingModel(), blocker / "v.db")
