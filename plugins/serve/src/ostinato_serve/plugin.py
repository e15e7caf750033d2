"""The ``serve`` plugin's hook implementations (entry point ``ostinato: serve``).

Import-light on purpose: only ``ostinato.plugins`` is imported here; Starlette, uvicorn
and the plugin's own modules are imported when the command runs.
"""

from __future__ import annotations

from typing import Any, Final

from ostinato.plugins import hookimpl

__all__ = ["SETTINGS_PREFIX", "register_commands", "register_settings", "run_serve_command"]

#: The settings prefix this plugin reads.
SETTINGS_PREFIX: Final = "OSTINATO_SERVE_"


def run_serve_command(argv: list[str]) -> int:
    """``ostinato serve ...`` (see :mod:`ostinato_serve._command`)."""
    from ostinato_serve._command import main

    return main(argv)


@hookimpl
def register_settings(register: Any) -> None:
    """Register :class:`~ostinato_serve.ServeSettings` (``OSTINATO_SERVE_``)."""
    from ostinato_serve._settings import ServeSettings

    register(SETTINGS_PREFIX, ServeSettings)


@hookimpl
def register_commands(register: Any) -> None:
    """Register ``ostinato serve``."""
    register(
        "serve",
        "serve the configured client over HTTP: an OpenAI-compatible endpoint, the loop's "
        "events and a web page (ostinato serve --tools ...)",
        run_serve_command,
    )
