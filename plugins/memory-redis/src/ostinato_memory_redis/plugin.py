"""The ``memory-redis`` plugin (entry point ``ostinato: memory-redis``), declared as
``PLUGIN``.

Registers the chat memory repository ``redis`` (chosen with
``OSTINATO_MEMORY_REPOSITORY=redis``) and the settings under
``OSTINATO_MEMORY_REDIS_``. Import-light on purpose: redis-py and pydantic-settings are
imported only when a factory runs.
"""

from __future__ import annotations

from ostinato.plugins import store_plugin

#: The plugin, declared with :func:`~ostinato.plugins.store_plugin`.
PLUGIN = store_plugin(
    "redis",
    settings="ostinato_memory_redis._settings:RedisMemorySettings",
    repository_class="ostinato_memory_redis._repository:RedisChatMemoryRepository",
    options=("key_prefix", "ttl", "timeout", "max_connections"),
    url_example="redis://:password@host:6379/0",
)
__all__, __getattr__, __dir__ = PLUGIN.module_exports(__name__)
register_chat_memory_repositories = PLUGIN.register_chat_memory_repositories
register_settings = PLUGIN.register_settings
