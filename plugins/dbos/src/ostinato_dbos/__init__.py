"""Durable ostinato turns on DBOS: SQLite on one machine, Postgres and queues for many.

Installed, the plugin registers the ``dbos`` durable engine
(:func:`ostinato.durable.durable_engine`; the ``ostinato worker`` and ``ostinato approve``
commands use it) and its settings (``OSTINATO_DBOS_*``). Names load on first use, so
importing the package does not import DBOS.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_package

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

if TYPE_CHECKING:
    from ostinato_dbos._engine import DbosEngine as DbosEngine
    from ostinato_dbos._engine import DbosTurnHandle as DbosTurnHandle
    from ostinato_dbos._settings import DbosSettings as DbosSettings
    from ostinato_dbos._settings import default_sqlite_path as default_sqlite_path
    from ostinato_dbos._worker import Worker as Worker
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "DbosEngine": "ostinato_dbos._engine",
            "DbosTurnHandle": "ostinato_dbos._engine",
            "DbosSettings": "ostinato_dbos._settings",
            "default_sqlite_path": "ostinato_dbos._settings",
            "Worker": "ostinato_dbos._worker",
        },
    )
