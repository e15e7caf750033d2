"""``QuestionAnswerAdvisor``: the user's question searched in a vector store, and what was
found added to the user message (Spring AI's advisor of the same name).

Before the model is called, the advisor searches its store with the text of the last user
message (its :class:`~ostinato.retrieval.SearchRequest` gives ``top_k``, the threshold and
a filter; a filter text under :data:`FILTER_EXPRESSION` in the advisor context replaces
the filter for one call), joins the documents' texts with newlines and renders the user
message from :data:`DEFAULT_PROMPT_TEMPLATE` (``{query}``: the user's text,
``{question_answer_context}``: the documents). With no match the context is empty and
the template's last sentence asks the model to say it cannot answer. The documents are
put under :data:`RETRIEVED_DOCUMENTS` in the advisor context and in the response's
metadata. The default order is 0, as in Spring AI. The search is a
:class:`~ostinato.units.Retrieval` unit of the chain's stack when a wrapper wraps
retrievals: a durable turn records it, and its replay sees the same documents.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from ostinato.advisors import BaseAdvisor, ChatClientRequest, ChatClientResponse
from ostinato.model import ChatResponse
from ostinato.retrieval import Document, SearchRequest, VectorStore, as_filter
from ostinato.units import search_documents
from ostinato_retrieval._templates import check_template, render

if TYPE_CHECKING:
    from ostinato.advisors import AdvisorChain

__all__ = [
    "DEFAULT_PROMPT_TEMPLATE",
    "FILTER_EXPRESSION",
    "RETRIEVED_DOCUMENTS",
    "QuestionAnswerAdvisor",
    "with_documents",
]

#: The context key (and response metadata key) of the documents found.
RETRIEVED_DOCUMENTS: Final = "qa_retrieved_documents"
#: The context key of a filter expression (text) replacing the request's for one call.
FILTER_EXPRESSION: Final = "qa_filter_expression"
#: Spring AI's template, word for word.
DEFAULT_PROMPT_TEMPLATE: Final = (
    "{query}\n\n"
    "Context information is below, surrounded by ---------------------\n\n"
    "---------------------\n"
    "{question_answer_context}\n"
    "---------------------\n\n"
    "Given the context and provided history information and not prior knowledge,\n"
    "reply to the user comment. If the answer is not in the context, inform\n"
    "the user that you can't answer the question.\n"
)


def with_documents(response: ChatClientResponse, key: str, documents: object) -> ChatClientResponse:
    """``response`` with ``documents`` under ``key`` in its context and in its chat
    response's metadata (an empty chat response is made when it has none)."""
    chat = response.chat_response or ChatResponse()
    metadata = chat.metadata
    chat = chat.copy(metadata=metadata.copy(metadata={**metadata.metadata, key: documents}))
    return response.copy(chat_response=chat).with_context({key: documents})


class QuestionAnswerAdvisor(BaseAdvisor):
    """Adds the documents a vector store finds for the user's question to the user message.

    Args:
        vector_store: where to search.
        search_request: ``top_k``, ``similarity_threshold`` and ``filter_expression`` of
            every search (its query is replaced by the user's text); default: 4
            documents, any similarity, no filter.
        prompt_template: the user message sent; must hold ``{query}`` and
            ``{question_answer_context}`` (default :data:`DEFAULT_PROMPT_TEMPLATE`).
        order: the advisor's place in the chain (default 0).
    """

    __slots__ = ("_order", "_request", "_store", "_template")

    DEFAULT_ORDER: Final = 0

    def __init__(
        self,
        vector_store: VectorStore,
        *,
        search_request: SearchRequest | None = None,
        prompt_template: str = DEFAULT_PROMPT_TEMPLATE,
        order: int = DEFAULT_ORDER,
    ) -> None:
        if not isinstance(vector_store, VectorStore):
            raise TypeError(
                f"vector_store must be an ostinato.retrieval.VectorStore, "
                f"got {type(vector_store).__name__}"
            )
        self._store = vector_store
        self._request = search_request or SearchRequest()
        self._template = check_template(
            prompt_template, ("query", "question_answer_context"), "prompt_template"
        )
        self._order = order

    @property
    def order(self) -> int:
        """The advisor's place in the chain."""
        return self._order

    @property
    def vector_store(self) -> VectorStore:
        """Where it searches."""
        return self._store

    @property
    def search_request(self) -> SearchRequest:
        """The request every search starts from."""
        return self._request

    async def before(self, request: ChatClientRequest, chain: AdvisorChain) -> ChatClientRequest:
        """Search with the user's text and render the user message with what was found."""
        user_text = request.prompt.user_message.text or ""
        search = self._request.copy(query=user_text)
        override = request.context.get(FILTER_EXPRESSION)
        if isinstance(override, str) and override.strip():
            search = search.copy(filter_expression=as_filter(override))
        documents: list[Document] = await search_documents(
            self._store, search, units=chain.units, turn=chain.turn
        )
        context = "\n".join(d.text for d in documents)
        text = render(self._template, {"query": user_text, "question_answer_context": context})
        prompt = request.prompt.augment_user_message(text)
        return request.copy(prompt=prompt).with_context({RETRIEVED_DOCUMENTS: tuple(documents)})

    async def after(self, response: ChatClientResponse, chain: AdvisorChain) -> ChatClientResponse:
        """The documents found, in the response's metadata and context."""
        documents = response.context.get(RETRIEVED_DOCUMENTS)
        return with_documents(response, RETRIEVED_DOCUMENTS, documents)
