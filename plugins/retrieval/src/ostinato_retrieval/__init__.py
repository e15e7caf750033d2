"""ostinato-retrieval: Spring AI's retrieval advisors and a SQLite vector store.

* :class:`QuestionAnswerAdvisor`: searches a vector store with the user's question and
  adds what it finds to the user message.
* :class:`RetrievalAugmentationAdvisor`: the modular pipeline — query transformers, a
  query expander, a document retriever, a joiner, post-processors and a query augmenter.
* :class:`SQLiteVectorStore`: the embedded store (sqlite-vec, or exact search in Python
  where no SQLite here can load it).

Everything is imported on first access (PEP 562).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_exports

if TYPE_CHECKING:
    from ostinato_retrieval._question_answer import (
        DEFAULT_PROMPT_TEMPLATE,
        FILTER_EXPRESSION,
        RETRIEVED_DOCUMENTS,
        QuestionAnswerAdvisor,
    )
    from ostinato_retrieval._rag_advisor import (
        DOCUMENT_CONTEXT,
        RetrievalAugmentationAdvisor,
    )
    from ostinato_retrieval._rag_modules import (
        AUGMENTER_EMPTY_CONTEXT_TEMPLATE,
        AUGMENTER_PROMPT_TEMPLATE,
        RETRIEVER_FILTER_EXPRESSION,
        ConcatenationDocumentJoiner,
        ContextualQueryAugmenter,
        VectorStoreDocumentRetriever,
    )
    from ostinato_retrieval._rag_pre import (
        COMPRESSION_PROMPT_TEMPLATE,
        MULTI_QUERY_PROMPT_TEMPLATE,
        REWRITE_PROMPT_TEMPLATE,
        TRANSLATION_PROMPT_TEMPLATE,
        CompressionQueryTransformer,
        MultiQueryExpander,
        RewriteQueryTransformer,
        TranslationQueryTransformer,
    )
    from ostinato_retrieval._rag_query import (
        DocumentJoiner,
        DocumentPostProcessor,
        DocumentRetriever,
        Query,
        QueryAugmenter,
        QueryExpander,
        QueryTransformer,
    )
    from ostinato_retrieval._sqlite import DEFAULT_TABLE, SQLiteVectorStore

__all__ = [
    "AUGMENTER_EMPTY_CONTEXT_TEMPLATE",
    "AUGMENTER_PROMPT_TEMPLATE",
    "COMPRESSION_PROMPT_TEMPLATE",
    "DEFAULT_PROMPT_TEMPLATE",
    "DEFAULT_TABLE",
    "DOCUMENT_CONTEXT",
    "FILTER_EXPRESSION",
    "MULTI_QUERY_PROMPT_TEMPLATE",
    "RETRIEVED_DOCUMENTS",
    "RETRIEVER_FILTER_EXPRESSION",
    "REWRITE_PROMPT_TEMPLATE",
    "TRANSLATION_PROMPT_TEMPLATE",
    "CompressionQueryTransformer",
    "ConcatenationDocumentJoiner",
    "ContextualQueryAugmenter",
    "DocumentJoiner",
    "DocumentPostProcessor",
    "DocumentRetriever",
    "MultiQueryExpander",
    "Query",
    "QueryAugmenter",
    "QueryExpander",
    "QueryTransformer",
    "QuestionAnswerAdvisor",
    "RetrievalAugmentationAdvisor",
    "RewriteQueryTransformer",
    "SQLiteVectorStore",
    "TranslationQueryTransformer",
    "VectorStoreDocumentRetriever",
    "__version__",
]

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "DEFAULT_PROMPT_TEMPLATE": "ostinato_retrieval._question_answer",
        "FILTER_EXPRESSION": "ostinato_retrieval._question_answer",
        "RETRIEVED_DOCUMENTS": "ostinato_retrieval._question_answer",
        "QuestionAnswerAdvisor": "ostinato_retrieval._question_answer",
        "DocumentJoiner": "ostinato_retrieval._rag_query",
        "DocumentPostProcessor": "ostinato_retrieval._rag_query",
        "DocumentRetriever": "ostinato_retrieval._rag_query",
        "Query": "ostinato_retrieval._rag_query",
        "QueryAugmenter": "ostinato_retrieval._rag_query",
        "QueryExpander": "ostinato_retrieval._rag_query",
        "QueryTransformer": "ostinato_retrieval._rag_query",
        "COMPRESSION_PROMPT_TEMPLATE": "ostinato_retrieval._rag_pre",
        "MULTI_QUERY_PROMPT_TEMPLATE": "ostinato_retrieval._rag_pre",
        "REWRITE_PROMPT_TEMPLATE": "ostinato_retrieval._rag_pre",
        "TRANSLATION_PROMPT_TEMPLATE": "ostinato_retrieval._rag_pre",
        "CompressionQueryTransformer": "ostinato_retrieval._rag_pre",
        "MultiQueryExpander": "ostinato_retrieval._rag_pre",
        "RewriteQueryTransformer": "ostinato_retrieval._rag_pre",
        "TranslationQueryTransformer": "ostinato_retrieval._rag_pre",
        "AUGMENTER_EMPTY_CONTEXT_TEMPLATE": "ostinato_retrieval._rag_modules",
        "AUGMENTER_PROMPT_TEMPLATE": "ostinato_retrieval._rag_modules",
        "RETRIEVER_FILTER_EXPRESSION": "ostinato_retrieval._rag_modules",
        "ConcatenationDocumentJoiner": "ostinato_retrieval._rag_modules",
        "ContextualQueryAugmenter": "ostinato_retrieval._rag_modules",
        "VectorStoreDocumentRetriever": "ostinato_retrieval._rag_modules",
        "DOCUMENT_CONTEXT": "ostinato_retrieval._rag_advisor",
        "RetrievalAugmentationAdvisor": "ostinato_retrieval._rag_advisor",
        "DEFAULT_TABLE": "ostinato_retrieval._sqlite",
        "SQLiteVectorStore": "ostinato_retrieval._sqlite",
    },
)
