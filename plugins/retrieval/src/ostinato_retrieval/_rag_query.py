"""The modular pipeline's query and the contracts of its modules (Spring AI's
``org.springframework.ai.rag``).

A :class:`Query` is the user's text with the conversation and the request's context.
Each stage of :class:`~ostinato_retrieval.RetrievalAugmentationAdvisor` is a small
protocol with one async method:

* :class:`QueryTransformer` — ``transform(query) -> Query`` (rewrite, translate,
  compress);
* :class:`QueryExpander` — ``expand(query) -> list[Query]`` (several queries);
* :class:`DocumentRetriever` — ``retrieve(query) -> list[Document]``;
* :class:`DocumentJoiner` — ``join({query: [documents, ...]}) -> list[Document]``;
* :class:`DocumentPostProcessor` — ``process(query, documents) -> list[Document]``
  (re-rank, drop, compress);
* :class:`QueryAugmenter` — ``augment(query, documents) -> Query`` (the user message sent).

Each built-in module also has a blocking ``*_sync`` face of its async method.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, Self, runtime_checkable

from ostinato.messages import Message
from ostinato.retrieval import Document

__all__ = [
    "DocumentJoiner",
    "DocumentPostProcessor",
    "DocumentRetriever",
    "Query",
    "QueryAugmenter",
    "QueryExpander",
    "QueryTransformer",
]


@dataclass(frozen=True, slots=True)
class Query:
    """What a pipeline retrieves for: a text, the conversation so far and a context.

    Args:
        text: the query (not blank).
        history: the messages of the request (the user's last message included).
        context: the request's advisor context (read-only here), where a retriever finds
            a filter expression, for example.

    Raises:
        ValueError: ``text`` is blank.

    Two queries are equal when their text, history and context are; the hash is the
    text's, so a query can key a mapping (a joiner's input).
    """

    text: str
    history: tuple[Message, ...] = ()
    context: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text.strip():
            raise ValueError(
                f"a Query needs a non-blank text, got {self.text!r}\n"
                "fix: retrieve for a prompt that has a user message with text"
            )
        object.__setattr__(self, "history", tuple(self.history))

    def __hash__(self) -> int:
        return hash(self.text)

    def copy(self, **changes: Any) -> Self:
        """A copy with the given fields replaced (Spring's ``mutate()``)."""
        return dataclasses.replace(self, **changes)


@runtime_checkable
class QueryTransformer(Protocol):
    """Turns a query into a better one for retrieval."""

    async def transform(self, query: Query) -> Query:
        """The transformed query."""
        ...


@runtime_checkable
class QueryExpander(Protocol):
    """Turns a query into several, each retrieved for."""

    async def expand(self, query: Query) -> list[Query]:
        """The queries to retrieve for."""
        ...


@runtime_checkable
class DocumentRetriever(Protocol):
    """Finds the documents relevant to a query (in a vector store, a search engine...)."""

    async def retrieve(self, query: Query) -> list[Document]:
        """The documents found, most relevant first."""
        ...


@runtime_checkable
class DocumentJoiner(Protocol):
    """Combines the documents retrieved for several queries into one list."""

    async def join(
        self, documents_for_query: Mapping[Query, Sequence[Sequence[Document]]]
    ) -> list[Document]:
        """One list from every query's lists of documents."""
        ...


@runtime_checkable
class DocumentPostProcessor(Protocol):
    """Changes the retrieved documents before they reach the prompt."""

    async def process(self, query: Query, documents: Sequence[Document]) -> list[Document]:
        """The documents to keep, in the order to show them."""
        ...


@runtime_checkable
class QueryAugmenter(Protocol):
    """Writes the user message from the query and the documents."""

    async def augment(self, query: Query, documents: Sequence[Document]) -> Query:
        """The query whose text replaces the user message."""
        ...
