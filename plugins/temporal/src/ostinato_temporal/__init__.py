"""Durable ostinato turns on Temporal: each turn a workflow, each unit an activity.

Installed, the plugin registers the ``temporal`` durable engine
(:func:`ostinato.durable.durable_engine`; the ``ostinato worker`` and ``ostinato approve``
commands use it with ``--engine temporal``), its settings (``OSTINATO_TEMPORAL_*``) and
the ``temporal`` unit wrapper. Names load on first use, so importing the package does not
import the Temporal SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_exports

if TYPE_CHECKING:
    from ostinato_temporal._engine import TemporalEngine
    from ostinato_temporal._handle import TemporalTurnHandle
    from ostinato_temporal._settings import TemporalSettings
    from ostinato_temporal._worker import Worker

__all__ = ["TemporalEngine", "TemporalSettings", "TemporalTurnHandle", "Worker", "__version__"]

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "TemporalEngine": "ostinato_temporal._engine",
        "TemporalTurnHandle": "ostinato_temporal._handle",
        "TemporalSettings": "ostinato_temporal._settings",
        "Worker": "ostinato_temporal._worker",
    },
)
