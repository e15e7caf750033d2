"""The retrieval plugin's auto-configuration: its settings choose the embedding model,
the store and the advisor every client gets, and ``ostinato index`` fills the store."""

from __future__ import annotations

import pytest

from ostinato.errors import ConfigurationError
from ostinato.settings import load_settings
from ostinato.testing import HashingEmbeddingModel
from ostinato_retrieval import (
    QuestionAnswerAdvisor,
    RetrievalAugmentationAdvisor,
    SQLiteVectorStore,
)
from ostinato_retrieval._auto import advisor_from_settings, store_from_settings
from ostinato_retrieval._index_command import main
from ostinato_retrieval._settings import RetrievalSettings
from ostinato_retrieval.plugin import register_advisors, register_commands, register_settings


@pytest.fixture
def offline(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OSTINATO_RETRIEVAL_EMBEDDING", "hashing")
    monkeypatch.setenv("OSTINATO_RETRIEVAL_PATH", str(tmp_path / "v.sqlite3"))
    return tmp_path


def test_the_plugin_registers_its_settings_advisor_and_command():
    seen: list[tuple[str, ...]] = []
    register_settings(lambda prefix, cls: seen.append((prefix, cls.__name__)))
    register_advisors(lambda name, factory: seen.append((name,)))
    register_commands(lambda name, help, run: seen.append((name,)))
    assert seen == [("OSTINATO_RETRIEVAL_", "RetrievalSettings"), ("retrieval",), ("index",)]


def test_no_advisor_unless_one_is_named(offline, monkeypatch):
    assert advisor_from_settings(load_settings(RetrievalSettings)) is None
    monkeypatch.setenv("OSTINATO_RETRIEVAL_ADVISOR", "question-answer")
    monkeypatch.setenv("OSTINATO_RETRIEVAL_TOP_K", "2")
    advisor = advisor_from_settings(load_settings(RetrievalSettings))
    assert isinstance(advisor, QuestionAnswerAdvisor)
    assert advisor.search_request.top_k == 2
    monkeypatch.setenv("OSTINATO_RETRIEVAL_ADVISOR", "retrieval-augmentation")
    assert isinstance(
        advisor_from_settings(load_settings(RetrievalSettings)), RetrievalAugmentationAdvisor
    )


def test_pgvector_without_a_url_says_which_variable(offline, monkeypatch):
    monkeypatch.setenv("OSTINATO_RETRIEVAL_STORE", "pgvector")
    with pytest.raises(ConfigurationError, match="OSTINATO_VECTOR_PGVECTOR_URL"):
        store_from_settings(load_settings(RetrievalSettings), HashingEmbeddingModel())


def test_index_cuts_embeds_and_stores_files_and_a_search_finds_them(offline, capsys):
    docs = offline / "docs"
    docs.mkdir()
    (docs / "leave.md").write_text("Employees get 25 days of paid leave every year.")
    (docs / "bread.txt").write_text("Sourdough bread needs a starter, flour and water.")
    (docs / "image.png").write_bytes(b"\x89PNG")
    assert main([str(docs)]) == 0
    assert "indexed 2 file(s), 2 chunk(s) into sqlite" in capsys.readouterr().out
    assert main([str(docs / "leave.md")]) == 0  # again: replaced, not doubled
    store = SQLiteVectorStore(HashingEmbeddingModel(), offline / "v.sqlite3")
    found = store.similarity_search_sync("paid leave days")
    assert [d.metadata["source"] for d in found] == [
        str(docs / "leave.md"),
        str(docs / "bread.txt"),
    ]
    store.close()
    assert main([str(offline / "missing")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
