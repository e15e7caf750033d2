"""Pre-retrieval modules: queries rewritten, translated, compressed or expanded by a chat
model (Spring AI's ``RewriteQueryTransformer``, ``TranslationQueryTransformer``,
``CompressionQueryTransformer`` and ``MultiQueryExpander``, templates word for word).

Each asks its :class:`~ostinato.ChatClient` once, with the template rendered as the user
message; an empty answer leaves the query as it was (logged at WARNING on
``ostinato.retrieval``). Give them a client whose model runs at a low temperature (0.0):
the transformation should be deterministic.
"""

from __future__ import annotations

import logging
from typing import Final

from ostinato.client import ChatClient, ChatClientBuilder
from ostinato.messages import AssistantMessage, UserMessage
from ostinato.runtime import run_sync
from ostinato_retrieval._rag_query import Query
from ostinato_retrieval._templates import check_template, render

__all__ = [
    "COMPRESSION_PROMPT_TEMPLATE",
    "MULTI_QUERY_PROMPT_TEMPLATE",
    "REWRITE_PROMPT_TEMPLATE",
    "TRANSLATION_PROMPT_TEMPLATE",
    "CompressionQueryTransformer",
    "MultiQueryExpander",
    "RewriteQueryTransformer",
    "TranslationQueryTransformer",
]

_log = logging.getLogger("ostinato.retrieval")

#: ``RewriteQueryTransformer``'s template (``{target}``, ``{query}``).
REWRITE_PROMPT_TEMPLATE: Final = (
    "Given a user query, rewrite it to provide better results when querying a {target}.\n"
    "Remove any irrelevant information, and ensure the query is concise and specific.\n\n"
    "Original query:\n{query}\n\n"
    "Rewritten query:\n"
)
#: ``TranslationQueryTransformer``'s template (``{targetLanguage}``, ``{query}``).
TRANSLATION_PROMPT_TEMPLATE: Final = (
    "Given a user query, translate it to {targetLanguage}.\n"
    "If the query is already in {targetLanguage}, return it unchanged.\n"
    "If you don't know the language of the query, return it unchanged.\n"
    "Do not add explanations nor any other text.\n\n"
    "Original query: {query}\n\n"
    "Translated query:\n"
)
#: ``CompressionQueryTransformer``'s template (``{history}``, ``{query}``).
COMPRESSION_PROMPT_TEMPLATE: Final = (
    "Given the following conversation history and a follow-up query, your task is to "
    "synthesize\n"
    "a concise, standalone query that incorporates the context from the history.\n"
    "Ensure the standalone query is clear, specific, and maintains the user's intent.\n\n"
    "Conversation history:\n{history}\n\n"
    "Follow-up query:\n{query}\n\n"
    "Standalone query:\n"
)
#: ``MultiQueryExpander``'s template (``{number}``, ``{query}``).
MULTI_QUERY_PROMPT_TEMPLATE: Final = (
    "You are an expert at information retrieval and search optimization.\n"
    "Your task is to generate {number} different versions of the given query.\n\n"
    "Each variant must cover different perspectives or aspects of the topic,\n"
    "while maintaining the core intent of the original query. The goal is to\n"
    "expand the search space and improve the chances of finding relevant information.\n\n"
    "Do not explain your choices or add any other text.\n"
    "Provide the query variants separated by newlines.\n\n"
    "Original query: {query}\n\n"
    "Query variants:\n"
)


def _client(chat_client: ChatClient | ChatClientBuilder) -> ChatClient:
    if isinstance(chat_client, ChatClientBuilder):
        return chat_client.build()
    if not isinstance(chat_client, ChatClient):
        raise TypeError(
            f"chat_client must be an ostinato ChatClient (or its builder), "
            f"got {type(chat_client).__name__}\nfix: ChatClient.builder(chat_model).build()"
        )
    return chat_client


async def _ask(client: ChatClient, template: str, values: dict[str, str]) -> str | None:
    return await client.prompt(render(template, values)).call().acontent()


class _ModelTransformer:
    """A query transformer asking a chat model once (the shared part of three)."""

    __slots__ = ("_client", "_template")

    _PLACEHOLDERS: tuple[str, ...] = ()

    def __init__(self, chat_client: ChatClient | ChatClientBuilder, template: str) -> None:
        self._client = _client(chat_client)
        self._template = check_template(template, self._PLACEHOLDERS, "prompt_template")

    @property
    def prompt_template(self) -> str:
        """The template sent to the model."""
        return self._template

    def _values(self, query: Query) -> dict[str, str]:
        raise NotImplementedError

    async def transform(self, query: Query) -> Query:
        """The model's answer as the query's text (the query unchanged if it is empty)."""
        text = await _ask(self._client, self._template, self._values(query))
        if text is None or not text.strip():
            _log.warning(
                "%s: the model's answer is empty; the query is left unchanged",
                type(self).__name__,
            )
            return query
        return query.copy(text=text)

    def transform_sync(self, query: Query) -> Query:
        """Blocking :meth:`transform`."""
        return run_sync(self.transform(query), async_name="transform")


class RewriteQueryTransformer(_ModelTransformer):
    """Rewrites a verbose or ambiguous query into a concise one for a search system.

    Args:
        chat_client: the client asked (low temperature recommended).
        prompt_template: holds ``{target}`` and ``{query}`` (default
            :data:`REWRITE_PROMPT_TEMPLATE`).
        target_search_system: what the query is for (default ``"vector store"``).
    """

    __slots__ = ("_target",)

    _PLACEHOLDERS = ("target", "query")

    def __init__(
        self,
        chat_client: ChatClient | ChatClientBuilder,
        *,
        prompt_template: str = REWRITE_PROMPT_TEMPLATE,
        target_search_system: str = "vector store",
    ) -> None:
        super().__init__(chat_client, prompt_template)
        self._target = target_search_system

    def _values(self, query: Query) -> dict[str, str]:
        return {"target": self._target, "query": query.text}


class TranslationQueryTransformer(_ModelTransformer):
    """Translates a query into the language the documents are embedded in.

    Args:
        chat_client: the client asked (low temperature recommended).
        target_language: the language to translate to (required, not blank).
        prompt_template: holds ``{targetLanguage}`` and ``{query}`` (default
            :data:`TRANSLATION_PROMPT_TEMPLATE`).
    """

    __slots__ = ("_language",)

    _PLACEHOLDERS = ("targetLanguage", "query")

    def __init__(
        self,
        chat_client: ChatClient | ChatClientBuilder,
        *,
        target_language: str,
        prompt_template: str = TRANSLATION_PROMPT_TEMPLATE,
    ) -> None:
        if not isinstance(target_language, str) or not target_language.strip():
            raise ValueError(
                f"target_language must be a non-blank str, got {target_language!r}\n"
                "fix: the language of your documents, e.g. target_language='english'"
            )
        super().__init__(chat_client, prompt_template)
        self._language = target_language

    def _values(self, query: Query) -> dict[str, str]:
        return {"targetLanguage": self._language, "query": query.text}


class CompressionQueryTransformer(_ModelTransformer):
    """Compresses the conversation and a follow-up query into one standalone query.

    The history is the query's user and assistant messages, one a line as
    ``USER: text`` / ``ASSISTANT: text`` (Spring's form).

    Args:
        chat_client: the client asked (low temperature recommended).
        prompt_template: holds ``{history}`` and ``{query}`` (default
            :data:`COMPRESSION_PROMPT_TEMPLATE`).
    """

    __slots__ = ()

    _PLACEHOLDERS = ("history", "query")

    def __init__(
        self,
        chat_client: ChatClient | ChatClientBuilder,
        *,
        prompt_template: str = COMPRESSION_PROMPT_TEMPLATE,
    ) -> None:
        super().__init__(chat_client, prompt_template)

    def _values(self, query: Query) -> dict[str, str]:
        lines = [
            f"{'USER' if isinstance(m, UserMessage) else 'ASSISTANT'}: {m.text or ''}"
            for m in query.history
            if isinstance(m, UserMessage | AssistantMessage)
        ]
        return {"history": "\n".join(lines), "query": query.text}


class MultiQueryExpander:
    """Asks a chat model for ``number_of_queries`` variants of a query.

    The answer is split into lines (trailing empty lines dropped); unless it holds
    exactly ``number_of_queries`` of them the query alone is returned (logged at
    WARNING). Blank variants are dropped; the original query comes first unless
    ``include_original`` is false. Each variant keeps the query's history and context.

    Args:
        chat_client: the client asked (low temperature recommended).
        prompt_template: holds ``{number}`` and ``{query}`` (default
            :data:`MULTI_QUERY_PROMPT_TEMPLATE`).
        include_original: whether the original query is in the result (default true).
        number_of_queries: how many variants to ask for (default 3).
    """

    __slots__ = ("_client", "_include", "_number", "_template")

    def __init__(
        self,
        chat_client: ChatClient | ChatClientBuilder,
        *,
        prompt_template: str = MULTI_QUERY_PROMPT_TEMPLATE,
        include_original: bool = True,
        number_of_queries: int = 3,
    ) -> None:
        if isinstance(number_of_queries, bool) or not isinstance(number_of_queries, int):
            raise TypeError(f"number_of_queries must be an int, got {number_of_queries!r}")
        if number_of_queries < 1:
            raise ValueError(f"number_of_queries must be positive, got {number_of_queries}")
        self._client = _client(chat_client)
        self._template = check_template(prompt_template, ("number", "query"), "prompt_template")
        self._include = include_original
        self._number = number_of_queries

    async def expand(self, query: Query) -> list[Query]:
        """The original query (first, unless excluded) and the model's variants."""
        answer = await _ask(
            self._client, self._template, {"number": str(self._number), "query": query.text}
        )
        if answer is None:
            _log.warning("MultiQueryExpander: no answer; the query is used alone")
            return [query]
        variants = answer.split("\n")
        while variants and not variants[-1]:
            variants.pop()
        if len(variants) != self._number:
            _log.warning(
                "MultiQueryExpander: %d variants in the answer, %d asked; the query is used alone",
                len(variants),
                self._number,
            )
            return [query]
        queries = [query.copy(text=v) for v in variants if v.strip()]
        return [query, *queries] if self._include else queries

    def expand_sync(self, query: Query) -> list[Query]:
        """Blocking :meth:`expand`."""
        return run_sync(self.expand(query), async_name="expand")
