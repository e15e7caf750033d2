"""ostinato-memory-postgres: conversation memory in PostgreSQL, for many processes and
machines.

:class:`PostgresChatMemoryRepository` keeps ostinato-memory's turn atomicity across
processes (each write is one transaction holding the conversation's lock). Registered as
the chat memory repository ``postgres``: ``OSTINATO_MEMORY_REPOSITORY=postgres`` with
``OSTINATO_MEMORY_POSTGRES_URL``. :class:`PostgresSessionLog` keeps session logs
(session memory) in the same database, searched with PostgreSQL's full-text search.
Everything is imported on first access (PEP 562), so loading the plugin does not import
psycopg.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_exports

if TYPE_CHECKING:
    from ostinato_memory_postgres._repository import PostgresChatMemoryRepository
    from ostinato_memory_postgres._schema import MIGRATIONS, SCHEMA_VERSION
    from ostinato_memory_postgres._session import PostgresSessionLog
    from ostinato_memory_postgres._settings import PostgresMemorySettings
    from ostinato_memory_postgres.plugin import create_postgres_repository

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "PostgresChatMemoryRepository",
    "PostgresMemorySettings",
    "PostgresSessionLog",
    "__version__",
    "create_postgres_repository",
]

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "MIGRATIONS": "ostinato_memory_postgres._schema",
        "SCHEMA_VERSION": "ostinato_memory_postgres._schema",
        "PostgresChatMemoryRepository": "ostinato_memory_postgres._repository",
        "PostgresMemorySettings": "ostinato_memory_postgres._settings",
        "PostgresSessionLog": "ostinato_memory_postgres._session",
        "create_postgres_repository": "ostinato_memory_postgres.plugin",
    },
)
