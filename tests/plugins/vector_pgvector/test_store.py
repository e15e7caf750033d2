"""The pgvector store passes the vector store conformance kit against a real PostgreSQL
server with the ``vector`` extension, exact and with an HNSW index, and keeps the table's
dimensions."""

from __future__ import annotations

import pytest

from ostinato.retrieval import Document, SearchRequest, VectorStoreError
from ostinato.testing import HashingEmbeddingModel
from ostinato.testing.vector_store_conformance import SAMPLES, VectorStoreConformance
from ostinato_vector_pgvector import PgVectorStore


class TestExactSearch(VectorStoreConformance):
    index = "none"

    @pytest.fixture(autouse=True)
    def _place(self, pgvector_url: str) -> None:
        self.url = pgvector_url

    async def make_store(self, embedding_model):
        return PgVectorStore(embedding_model, self.url, index=self.index)


class TestHnswIndex(TestExactSearch):
    index = "hnsw"


async def test_the_table_records_the_dimensions_and_the_index(pgvector_url):
    import psycopg

    store = PgVectorStore(HashingEmbeddingModel(48), pgvector_url, table="docs", index="hnsw")
    await store.add(SAMPLES)
    await store.aclose()
    with psycopg.connect(pgvector_url) as connection:
        (kind,) = connection.execute(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
            "WHERE attrelid = 'docs'::regclass AND attname = 'embedding'"
        ).fetchone()
        indexes = {
            r[0]
            for r in connection.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'docs'")
        }
    assert kind == "vector(48)"
    assert "docs_hnsw" in indexes
    again = PgVectorStore(HashingEmbeddingModel(48), pgvector_url, table="docs")
    found = await again.similarity_search(SearchRequest("sourdough starter", top_k=1))
    assert [d.id for d in found] == ["c"]
    again.close()


def test_bad_arguments_and_an_unreachable_server_are_clear():
    model = HashingEmbeddingModel()
    with pytest.raises(ValueError, match="table must be"):
        PgVectorStore(model, "postgresql://x/y", table="bad name")
    with pytest.raises(ValueError, match="index must be"):
        PgVectorStore(model, "postgresql://x/y", index="ivf")  # type: ignore[arg-type]
    store = PgVectorStore(model, "postgresql://nobody@127.0.0.1:9/none", timeout=1)
    with pytest.raises(VectorStoreError, match="cannot connect to PostgreSQL"):
        store.add_sync([Document("x")])
