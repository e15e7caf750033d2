"""Retrieval end to end on the real local model's embeddings: the bundled GGUF served by
a second ``llama-server`` in embedding mode indexes three documents in the SQLite store,
and ``RetrievalAugmentationAdvisor`` puts the one answering the question into the prompt.
Like the main job it needs the local model (``ostinato local setup``), so it runs only
when ``E2E_MAIN_JOB=1``, as ``make demo-check`` sets it.
"""

from __future__ import annotations

from ostinato import ChatClient
from ostinato.retrieval import Document
from ostinato.testing import ScriptedChatModel
from ostinato_llamacpp.embedding import LlamaCppEmbeddingModel
from ostinato_retrieval import (
    DOCUMENT_CONTEXT,
    RetrievalAugmentationAdvisor,
    SQLiteVectorStore,
    VectorStoreDocumentRetriever,
)
from tests.e2e.local_model import needs_local_model

pytestmark = needs_local_model

HANDBOOK = (
    Document("Employees get 25 days of paid leave every year.", {"topic": "leave"}, "leave"),
    Document("Sourdough bread needs a starter, flour, water and patience.", {}, "bread"),
    Document("The lighthouse keeper climbed the spiral stairs at dusk.", {}, "lighthouse"),
)


def test_the_local_embeddings_retrieve_the_document_that_answers(tmp_path):
    embeddings = LlamaCppEmbeddingModel()
    try:
        store = SQLiteVectorStore(embeddings, tmp_path / "vectors.sqlite3")
        store.add_sync(HANDBOOK)
        assert embeddings.dimensions_sync() == 1536  # Qwen2.5 1.5B's hidden size
        model = ScriptedChatModel(["You get 25 days."])
        retriever = VectorStoreDocumentRetriever(store, top_k=1)
        client = (
            ChatClient.builder(model)
            .default_advisors(RetrievalAugmentationAdvisor(retriever))
            .build()
        )
        response = client.prompt("How many vacation days do I have?").call().chat_response()
        (found,) = response.metadata.get(DOCUMENT_CONTEXT)
        assert found.id == "leave", found
        assert "25 days of paid leave" in model.prompts[0].messages[-1].text
        store.close()
    finally:
        embeddings.close()
