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
    from ostinato_retrieval._sqlite import DEFAULT_TABLE, SQLiteVectorStore

__all__ = [
    "DEFAULT_PROMPT_TEMPLATE",
    "DEFAULT_TABLE",
    "FILTER_EXPRESSION",
    "RETRIEVED_DOCUMENTS",
    "QuestionAnswerAdvisor",
    "SQLiteVectorStore",
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
        "DEFAULT_TABLE": "ostinato_retrieval._sqlite",
        "SQLiteVectorStore": "ostinato_retrieval._sqlite",
    },
)
