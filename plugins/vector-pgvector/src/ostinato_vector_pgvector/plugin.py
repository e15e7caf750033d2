"""The ``vector-pgvector`` plugin (entry point ``ostinato: vector-pgvector``).

Registers :class:`~ostinato_vector_pgvector._settings.PgVectorSettings` under
``OSTINATO_VECTOR_PGVECTOR_``; the retrieval plugin builds the store from them when
``OSTINATO_RETRIEVAL_STORE=pgvector``. Import-light on purpose: neither psycopg nor
pydantic-settings is imported until a hook runs.
"""

from __future__ import annotations

from typing import Any, Final

from ostinato.plugins import hookimpl

__all__ = ["SETTINGS_PREFIX", "register_settings"]

#: The settings prefix this plugin reads.
SETTINGS_PREFIX: Final = "OSTINATO_VECTOR_PGVECTOR_"


@hookimpl
def register_settings(register: Any) -> None:
    """Register the pgvector store's settings under ``OSTINATO_VECTOR_PGVECTOR_``."""
    from ostinato_vector_pgvector._settings import PgVectorSettings

    register(SETTINGS_PREFIX, PgVectorSettings)
