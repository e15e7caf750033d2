"""ostinato-vector-pgvector: a vector store in PostgreSQL with the ``vector`` extension,
shared by many processes and machines.

* :class:`PgVectorStore`: documents, ``jsonb`` metadata and ``vector(n)`` embeddings in
  one table, searched by cosine distance, exact or through an HNSW index.

Everything is imported on first access (PEP 562); psycopg only when a store connects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_exports

if TYPE_CHECKING:
    from ostinato_vector_pgvector._store import DEFAULT_TABLE, PgVectorStore

__all__ = ["DEFAULT_TABLE", "PgVectorStore", "__version__"]

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "DEFAULT_TABLE": "ostinato_vector_pgvector._store",
        "PgVectorStore": "ostinato_vector_pgvector._store",
    },
)
