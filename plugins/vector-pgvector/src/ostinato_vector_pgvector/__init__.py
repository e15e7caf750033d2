"""ostinato-vector-pgvector: a vector store in PostgreSQL with the ``vector`` extension,
shared by many processes and machines.

* :class:`PgVectorStore`: documents, ``jsonb`` metadata and ``vector(n)`` embeddings in
  one table, searched by cosine distance, exact or through an HNSW index;
* :class:`PgVectorSettings`: ``OSTINATO_VECTOR_PGVECTOR_*``, read by auto-configuration.

Everything is imported on first access (PEP 562); psycopg only when a store connects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_package

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

if TYPE_CHECKING:
    from ostinato_vector_pgvector._settings import PgVectorSettings as PgVectorSettings
    from ostinato_vector_pgvector._store import DEFAULT_TABLE as DEFAULT_TABLE
    from ostinato_vector_pgvector._store import PgVectorStore as PgVectorStore
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "DEFAULT_TABLE": "ostinato_vector_pgvector._store",
            "PgVectorSettings": "ostinato_vector_pgvector._settings",
            "PgVectorStore": "ostinato_vector_pgvector._store",
        },
    )
