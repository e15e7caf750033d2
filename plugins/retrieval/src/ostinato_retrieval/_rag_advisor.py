"""``RetrievalAugmentationAdvisor``: Spring AI's modular retrieval pipeline as an advisor.

Before the model is called:

0. a :class:`~ostinato_retrieval.Query` is made of the last user message's text, the
   prompt's messages (its history) and the request's advisor context;
1. each query transformer, in order, transforms it;
2. the query expander (if any) turns it into several queries;
3. the document retriever runs for each query, concurrently;
4. the joiner combines the documents of every query;
5. each post-processor, in order, processes them (given the ORIGINAL query);
6. the documents go into the context under :data:`DOCUMENT_CONTEXT`, and the query
   augmenter writes the user message from the original query and the documents.

After the model, the documents are put in the response's metadata under
:data:`DOCUMENT_CONTEXT`. On the stream path the pipeline runs once, before the first
chunk, and the documents are on the chunk ending the answer. The default order is 0, as
in Spring AI. While the pipeline runs, the chain's unit stack is current
(:func:`~ostinato.units.using_unit_stack`): a retriever that searches with
:func:`~ostinato.units.search_documents` (the built-in one does) makes each search a
unit, recorded in a durable turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

from ostinato.advisors import BaseAdvisor, ChatClientRequest, ChatClientResponse
from ostinato.retrieval import Document, VectorStore
from ostinato.units import using_unit_stack
from ostinato_retrieval._question_answer import with_documents
from ostinato_retrieval._rag_modules import ConcatenationDocumentJoiner, ContextualQueryAugmenter
from ostinato_retrieval._rag_query import (
    DocumentJoiner,
    DocumentPostProcessor,
    DocumentRetriever,
    Query,
    QueryAugmenter,
    QueryExpander,
    QueryTransformer,
)

if TYPE_CHECKING:
    from ostinato.advisors import AdvisorChain

__all__ = ["DOCUMENT_CONTEXT", "RetrievalAugmentationAdvisor"]

#: The context key (and response metadata key) of the documents retrieved.
DOCUMENT_CONTEXT: Final = "rag_document_context"


def _checked(value: object, kind: type, what: str, method: str) -> None:
    if not isinstance(value, kind):
        raise TypeError(
            f"{what} must be a {kind.__name__} (an object with an async {method}()), "
            f"got {type(value).__name__}"
        )


class RetrievalAugmentationAdvisor(BaseAdvisor):
    """Retrieves documents through a configurable pipeline and adds them to the prompt.

    Args:
        document_retriever: finds the documents for a query (required), e.g.
            :class:`~ostinato_retrieval.VectorStoreDocumentRetriever`.
        query_transformers: applied in order to the user's query first.
        query_expander: turns the query into several (default: none, the query alone).
        document_joiner: combines every query's documents (default
            :class:`~ostinato_retrieval.ConcatenationDocumentJoiner`).
        document_post_processors: applied in order to the joined documents.
        query_augmenter: writes the user message (default
            :class:`~ostinato_retrieval.ContextualQueryAugmenter`: no document means the
            model is asked to decline).
        order: the advisor's place in the chain (default 0).

    Raises:
        ValueError: at a request whose prompt has no user text to retrieve with.
    """

    __slots__ = (
        "_augmenter",
        "_expander",
        "_joiner",
        "_order",
        "_post_processors",
        "_retriever",
        "_transformers",
    )

    DEFAULT_ORDER: Final = 0

    def __init__(
        self,
        document_retriever: DocumentRetriever,
        *,
        query_transformers: Iterable[QueryTransformer] = (),
        query_expander: QueryExpander | None = None,
        document_joiner: DocumentJoiner | None = None,
        document_post_processors: Iterable[DocumentPostProcessor] = (),
        query_augmenter: QueryAugmenter | None = None,
        order: int = DEFAULT_ORDER,
    ) -> None:
        _checked(document_retriever, DocumentRetriever, "document_retriever", "retrieve")
        self._retriever = document_retriever
        self._transformers = tuple(query_transformers)
        for i, transformer in enumerate(self._transformers):
            _checked(transformer, QueryTransformer, f"query_transformers[{i}]", "transform")
        if query_expander is not None:
            _checked(query_expander, QueryExpander, "query_expander", "expand")
        self._expander = query_expander
        self._joiner = document_joiner or ConcatenationDocumentJoiner()
        _checked(self._joiner, DocumentJoiner, "document_joiner", "join")
        self._post_processors = tuple(document_post_processors)
        for i, processor in enumerate(self._post_processors):
            _checked(processor, DocumentPostProcessor, f"document_post_processors[{i}]", "process")
        self._augmenter = query_augmenter or ContextualQueryAugmenter()
        _checked(self._augmenter, QueryAugmenter, "query_augmenter", "augment")
        self._order = order

    @property
    def order(self) -> int:
        """The advisor's place in the chain."""
        return self._order

    @property
    def document_retriever(self) -> DocumentRetriever:
        """What finds the documents."""
        return self._retriever

    @property
    def vector_store(self) -> VectorStore | None:
        """The store its retriever searches, if it says (``vector_store``), else ``None``."""
        store = getattr(self._retriever, "vector_store", None)
        return store if isinstance(store, VectorStore) else None

    async def retrieve(self, query: Query) -> list[Document]:
        """Steps 1 to 5 for ``query``: the documents the pipeline finds for it."""
        transformed = query
        for transformer in self._transformers:
            transformed = await transformer.transform(transformed)
        queries = (
            await self._expander.expand(transformed)
            if self._expander is not None
            else [transformed]
        )
        found = await asyncio.gather(*(self._retriever.retrieve(q) for q in queries))
        per_query: dict[Query, list[list[Document]]] = {}
        for q, documents in zip(queries, found, strict=True):
            per_query.setdefault(q, []).append(list(documents))
        documents = await self._joiner.join(per_query)
        for processor in self._post_processors:
            documents = await processor.process(query, documents)
        return list(documents)

    async def before(self, request: ChatClientRequest, chain: AdvisorChain) -> ChatClientRequest:
        """Run the pipeline and write the user message from what it found."""
        original = Query(
            request.prompt.user_message.text or "",
            request.prompt.messages,
            dict(request.context),
        )
        with using_unit_stack(chain.units, chain.turn):  # the retrievals are its units
            documents = await self.retrieve(original)
        augmented = await self._augmenter.augment(original, documents)
        prompt = request.prompt.augment_user_message(augmented.text)
        return request.copy(prompt=prompt).with_context({DOCUMENT_CONTEXT: tuple(documents)})

    async def after(self, response: ChatClientResponse, chain: AdvisorChain) -> ChatClientResponse:
        """The documents retrieved, in the response's metadata."""
        documents = response.context.get(DOCUMENT_CONTEXT)
        if documents is None:
            return response
        return with_documents(response, DOCUMENT_CONTEXT, documents)
