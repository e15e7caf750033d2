"""The ``vector-pgvector`` plugin module (entry point ``ostinato: vector-pgvector``).

It registers nothing in the configuration yet: the store is built by the application
(:class:`~ostinato_vector_pgvector.PgVectorStore`). Import-light: psycopg is imported
when a store is made.
"""

from __future__ import annotations

__all__: list[str] = []
