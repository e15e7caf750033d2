"""ostinato-memory-redis: conversation memory in Redis, for many processes and machines.

:class:`RedisChatMemoryRepository` keeps ostinato-memory's turn atomicity across processes
(each write is one ``MULTI``/``EXEC`` transaction; ``update`` watches and retries), with an
optional time to live per conversation. Registered as the chat memory repository
``redis``: ``OSTINATO_MEMORY_REPOSITORY=redis`` with ``OSTINATO_MEMORY_REDIS_URL``.
Everything is imported on first access (PEP 562), so loading the plugin does not import
redis-py. :class:`RedisSessionLog` keeps session logs (session memory) on the same
server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_package

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

if TYPE_CHECKING:
    from ostinato_memory_redis._repository import DEFAULT_KEY_PREFIX as DEFAULT_KEY_PREFIX
    from ostinato_memory_redis._repository import (
        RedisChatMemoryRepository as RedisChatMemoryRepository,
    )
    from ostinato_memory_redis._session import RedisSessionLog as RedisSessionLog
    from ostinato_memory_redis._settings import RedisMemorySettings as RedisMemorySettings
    from ostinato_memory_redis.plugin import create_redis_repository as create_redis_repository
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "DEFAULT_KEY_PREFIX": "ostinato_memory_redis._repository",
            "RedisChatMemoryRepository": "ostinato_memory_redis._repository",
            "RedisMemorySettings": "ostinato_memory_redis._settings",
            "RedisSessionLog": "ostinato_memory_redis._session",
            "create_redis_repository": "ostinato_memory_redis.plugin",
        },
    )
