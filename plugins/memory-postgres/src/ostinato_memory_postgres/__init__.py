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
from ostinato.plugins import lazy_package

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

if TYPE_CHECKING:
    from ostinato_memory_postgres._repository import (
        PostgresChatMemoryRepository as PostgresChatMemoryRepository,
    )
    from ostinato_memory_postgres._schema import MIGRATIONS as MIGRATIONS
    from ostinato_memory_postgres._schema import SCHEMA_VERSION as SCHEMA_VERSION
    from ostinato_memory_postgres._session import PostgresSessionLog as PostgresSessionLog
    from ostinato_memory_postgres._settings import PostgresMemorySettings as PostgresMemorySettings
    from ostinato_memory_postgres.plugin import (
        create_postgres_repository as create_postgres_repository,
    )
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "MIGRATIONS": "ostinato_memory_postgres._schema",
            "SCHEMA_VERSION": "ostinato_memory_postgres._schema",
            "PostgresChatMemoryRepository": "ostinato_memory_postgres._repository",
            "PostgresMemorySettings": "ostinato_memory_postgres._settings",
            "PostgresSessionLog": "ostinato_memory_postgres._session",
            "create_postgres_repository": "ostinato_memory_postgres.plugin",
        },
    )
