"""Durable ostinato turns on DBOS: SQLite on one machine, Postgres and queues for many.

Installed, the plugin registers the ``dbos`` durable engine
(:func:`ostinato.durable.durable_engine`; the ``ostinato worker`` and ``ostinato approve``
commands use it) and its settings (``OSTINATO_DBOS_*``). Names load on first use, so
importing the package does not import DBOS.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_exports

if TYPE_CHECKING:
    from ostinato_dbos._engine import DbosEngine, DbosTurnHandle
    from ostinato_dbos._settings import DbosSettings, default_sqlite_path
    from ostinato_dbos._worker import Worker

__all__ = [
    "DbosEngine",
    "DbosSettings",
    "DbosTurnHandle",
    "Worker",
    "__version__",
    "default_sqlite_path",
]

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "DbosEngine": "ostinato_dbos._engine",
        "DbosTurnHandle": "ostinato_dbos._engine",
        "DbosSettings": "ostinato_dbos._settings",
        "default_sqlite_path": "ostinato_dbos._settings",
        "Worker": "ostinato_dbos._worker",
    },
)
