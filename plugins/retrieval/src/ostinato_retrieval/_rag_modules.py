"""Retrieval and generation modules: a vector store retriever, the concatenation joiner
and the contextual query augmenter (Spring AI's ``VectorStoreDocumentRetriever``,
``ConcatenationDocumentJoiner`` and ``ContextualQueryAugmenter``, templates word for
word)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Final

from ostinato.retrieval import (
    DEFAULT_TOP_K,
    SIMILARITY_THRESHOLD_ACCEPT_ALL,
    Document,
    Filter,
    SearchRequest,
    VectorStore,
    as_filter,
)
from ostinato.runtime import run_sync
from ostinato.units import search_documents
from ostinato_retrieval._rag_query import Query
from ostinato_retrieval._templates import check_template, render

__all__ = [
    "AUGMENTER_EMPTY_CONTEXT_TEMPLATE",
    "AUGMENTER_PROMPT_TEMPLATE",
    "RETRIEVER_FILTER_EXPRESSION",
    "ConcatenationDocumentJoiner",
    "ContextualQueryAugmenter",
    "VectorStoreDocumentRetriever",
]

_log = logging.getLogger("ostinato.retrieval")

#: The context key of a filter (a :class:`~ostinato.retrieval.Filter` or its text) that
#: replaces the retriever's for one request (Spring's ``FILTER_EXPRESSION``).
RETRIEVER_FILTER_EXPRESSION: Final = "vector_store_filter_expression"

#: ``ContextualQueryAugmenter``'s template (``{context}``, ``{query}``).
AUGMENTER_PROMPT_TEMPLATE: Final = (
    "Context information is below.\n\n"
    "---------------------\n"
    "{context}\n"
    "---------------------\n\n"
    "Given the context information and no prior knowledge, answer the query.\n\n"
    "Follow these rules:\n\n"
    "1. If the answer is not in the context, just say that you don't know.\n"
    '2. Avoid statements like "Based on the context..." or "The provided information...".\n\n'
    "Query: {query}\n\n"
    "Answer:\n"
)
#: What ``ContextualQueryAugmenter`` sends when nothing was retrieved (empty context not
#: allowed).
AUGMENTER_EMPTY_CONTEXT_TEMPLATE: Final = (
    "The user query is outside your knowledge base.\n"
    "Politely inform the user that you can't answer it.\n"
)

FilterSource = Filter | str | Callable[[], Filter | str | None] | None


class VectorStoreDocumentRetriever:
    """Searches a vector store with the query's text.

    Args:
        vector_store: where to search.
        similarity_threshold: only documents scoring at least this (default 0.0: any).
        top_k: at most this many documents (default 4).
        filter_expression: a :class:`~ostinato.retrieval.Filter`, its text, or a function
            returning one, called at each retrieval (a filter that depends on the current
            user or tenant); ``None`` for every document. A filter in the query's context
            under :data:`RETRIEVER_FILTER_EXPRESSION` replaces it.

    Raises:
        ValueError: a negative threshold or a ``top_k`` below 1.
    """

    __slots__ = ("_filter", "_store", "_threshold", "_top_k")

    def __init__(
        self,
        vector_store: VectorStore,
        *,
        similarity_threshold: float = SIMILARITY_THRESHOLD_ACCEPT_ALL,
        top_k: int = DEFAULT_TOP_K,
        filter_expression: FilterSource = None,
    ) -> None:
        if not isinstance(vector_store, VectorStore):
            raise TypeError(
                f"vector_store must be an ostinato.retrieval.VectorStore, "
                f"got {type(vector_store).__name__}"
            )
        if similarity_threshold < 0.0:
            raise ValueError(
                f"similarity_threshold must be equal to or greater than 0.0, "
                f"got {similarity_threshold}"
            )
        if top_k < 1:
            raise ValueError(f"top_k must be greater than 0, got {top_k}")
        self._store = vector_store
        self._threshold = similarity_threshold
        self._top_k = top_k
        self._filter = (
            as_filter(filter_expression)
            if isinstance(filter_expression, str)
            else filter_expression
        )

    def search_request(self, query: Query) -> SearchRequest:
        """The request :meth:`retrieve` sends for ``query``."""
        return SearchRequest(
            query.text,
            top_k=self._top_k,
            similarity_threshold=self._threshold,
            filter_expression=self._filter_for(query),
        )

    def _filter_for(self, query: Query) -> Filter | str | None:
        override = query.context.get(RETRIEVER_FILTER_EXPRESSION)
        if isinstance(override, Filter):
            return override
        if override is not None and str(override).strip():
            return str(override)
        if callable(self._filter) and not isinstance(self._filter, Filter):
            return self._filter()
        return self._filter

    @property
    def vector_store(self) -> VectorStore:
        """Where it searches."""
        return self._store

    async def retrieve(self, query: Query) -> list[Document]:
        """The store's documents closest to the query's text (a
        :class:`~ostinato.units.Retrieval` unit of the advisor chain's stack, when it
        wraps retrievals: recorded in a durable turn)."""
        return await search_documents(self._store, self.search_request(query))

    def retrieve_sync(self, query: Query) -> list[Document]:
        """Blocking :meth:`retrieve`."""
        return run_sync(self.retrieve(query), async_name="retrieve")


class ConcatenationDocumentJoiner:
    """Every query's documents in one list: duplicates (same id) kept once, the first
    seen, then sorted by score, highest first (a document without a score counts as 0.0;
    equal scores keep their order)."""

    __slots__ = ()

    async def join(
        self, documents_for_query: Mapping[Query, Sequence[Sequence[Document]]]
    ) -> list[Document]:
        """The joined, deduplicated, sorted documents."""
        unique: dict[str, Document] = {}
        for lists in documents_for_query.values():
            for documents in lists:
                for document in documents:
                    unique.setdefault(document.id, document)
        return sorted(
            unique.values(), key=lambda d: d.score if d.score is not None else 0.0, reverse=True
        )

    def join_sync(
        self, documents_for_query: Mapping[Query, Sequence[Sequence[Document]]]
    ) -> list[Document]:
        """Blocking :meth:`join`."""
        return run_sync(self.join(documents_for_query), async_name="join")


def _texts_joined(documents: Sequence[Document]) -> str:
    return "\n".join(d.text for d in documents)


class ContextualQueryAugmenter:
    """Puts the documents and the query into a template; with no document, either keeps
    the query (``allow_empty_context=True``) or sends the empty-context template, which
    asks the model to decline (the default).

    Args:
        prompt_template: holds ``{query}`` and ``{context}`` (default
            :data:`AUGMENTER_PROMPT_TEMPLATE`).
        empty_context_prompt_template: sent when nothing was retrieved (default
            :data:`AUGMENTER_EMPTY_CONTEXT_TEMPLATE`).
        allow_empty_context: with nothing retrieved, keep the user's query as it is
            (default false).
        document_formatter: documents to the ``{context}`` text (default: their texts,
            one a line).
    """

    __slots__ = ("_allow_empty", "_empty_template", "_formatter", "_template")

    def __init__(
        self,
        *,
        prompt_template: str = AUGMENTER_PROMPT_TEMPLATE,
        empty_context_prompt_template: str = AUGMENTER_EMPTY_CONTEXT_TEMPLATE,
        allow_empty_context: bool = False,
        document_formatter: Callable[[Sequence[Document]], str] = _texts_joined,
    ) -> None:
        self._template = check_template(prompt_template, ("query", "context"), "prompt_template")
        self._empty_template = check_template(
            empty_context_prompt_template, (), "empty_context_prompt_template"
        )
        self._allow_empty = allow_empty_context
        self._formatter = document_formatter

    @property
    def allow_empty_context(self) -> bool:
        """Whether the query is kept as it is when nothing was retrieved."""
        return self._allow_empty

    async def augment(self, query: Query, documents: Sequence[Document]) -> Query:
        """The query whose text is the user message to send."""
        if not documents:
            if self._allow_empty:
                _log.debug("empty context allowed: the query is sent as it is")
                return query
            return Query(render(self._empty_template, {}))
        context = self._formatter(documents)
        return Query(render(self._template, {"query": query.text, "context": context}))

    def augment_sync(self, query: Query, documents: Sequence[Document]) -> Query:
        """Blocking :meth:`augment`."""
        return run_sync(self.augment(query, documents), async_name="augment")
