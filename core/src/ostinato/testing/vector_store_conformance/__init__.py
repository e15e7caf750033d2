"""The vector store conformance kit: one test suite every vector store subclasses.

A store's test module subclasses :class:`VectorStoreConformance` and says how to make a
store on a fresh place; the kit then checks the contract retrieval relies on: search
ranks closest first with cosine scores, documents come back whole (metadata types
included), ``top_k`` and the threshold bound the results, every filter operator selects
what :func:`~ostinato.retrieval.matches` says (missing keys and mixed types included),
adding an id again replaces it, deletes by id and by filter, vectors of another length
refused with :class:`~ostinato.retrieval.DimensionMismatchError` (also by a store made
again on stored data), the blocking faces agree, and concurrent writers lose nothing::

    from ostinato.testing.vector_store_conformance import VectorStoreConformance

    class TestAcmeStore(VectorStoreConformance):
        @pytest.fixture(autouse=True)
        def _place(self, tmp_path):
            self.path = tmp_path / "vectors.db"

        async def make_store(self, embedding_model):
            return AcmeVectorStore(embedding_model, path=self.path)

The tests are ``async`` (pytest-asyncio). This package imports pytest, so it is not
re-exported by :mod:`ostinato.testing`. See ``docs/retrieval.md``.
"""

from ostinato.testing.vector_store_conformance._base import (
    ResizableEmbeddingModel,
    VectorStoreConformanceBase,
)
from ostinato.testing.vector_store_conformance._contract import VectorStoreContractConformance
from ostinato.testing.vector_store_conformance._samples import FILTER_CASES, SAMPLES

__all__ = [
    "FILTER_CASES",
    "SAMPLES",
    "ResizableEmbeddingModel",
    "VectorStoreConformance",
    "VectorStoreConformanceBase",
    "VectorStoreContractConformance",
]


class VectorStoreConformance(VectorStoreContractConformance):
    """Every check of the kit."""
