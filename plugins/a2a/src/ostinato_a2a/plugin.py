"""The ``a2a`` plugin's hook implementations (entry point ``ostinato: a2a``).

Import-light on purpose: only ``ostinato.plugins`` is imported here; the ``a2a-sdk`` and
the plugin's own modules are imported when a hook's factory runs. The server's routes are
found by ``ostinato serve`` through the entry point group ``ostinato_serve.routes``.
"""

from __future__ import annotations

from typing import Any, Final

from ostinato.plugins import hookimpl

__all__ = ["SETTINGS_PREFIX", "register_settings"]

#: The settings prefix this plugin reads.
SETTINGS_PREFIX: Final = "OSTINATO_A2A_"


@hookimpl
def register_settings(register: Any) -> None:
    """Register :class:`~ostinato_a2a.A2ASettings` (``OSTINATO_A2A_``)."""
    from ostinato_a2a._settings import A2ASettings

    register(SETTINGS_PREFIX, A2ASettings)
