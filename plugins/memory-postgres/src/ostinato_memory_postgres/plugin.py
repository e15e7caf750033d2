"""The ``memory-postgres`` plugin (entry point ``ostinato: memory-postgres``), declared as
``PLUGIN``.

Registers the chat memory repository ``postgres`` (chosen with
``OSTINATO_MEMORY_REPOSITORY=postgres``) and the settings under
``OSTINATO_MEMORY_POSTGRES_``. Import-light on purpose: psycopg and pydantic-settings are
imported only when a factory runs.
"""

from __future__ import annotations

from ostinato.plugins import store_plugin

#: The plugin, declared with :func:`~ostinato.plugins.store_plugin`.
PLUGIN = store_plugin(
    "postgres",
    settings="ostinato_memory_postgres._settings:PostgresMemorySettings",
    repository_class="ostinato_memory_postgres._repository:PostgresChatMemoryRepository",
    options=("pool_min_size", "pool_max_size", "timeout"),
    url_example="postgresql://user:password@host:5432/db",
)
__all__, __getattr__, __dir__ = PLUGIN.module_exports(__name__)
register_chat_memory_repositories = PLUGIN.register_chat_memory_repositories
register_settings = PLUGIN.register_settings
