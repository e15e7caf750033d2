"""ostinato-serve: an ostinato ``ChatClient`` as an HTTP service.

:func:`create_app` builds the ASGI app (Starlette) from any client: an OpenAI-compatible
``/v1/chat/completions``, the loop's events as server-sent events (``/api/turns``),
approvals, conversations and a web page. :class:`ServeSettings` reads
``OSTINATO_SERVE_*``. The plugin registers the command ``ostinato serve``.

Every name is imported on first access (PEP 562): loading the plugin module costs
nothing beyond ``ostinato.plugins``; Starlette is imported when the app is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_exports

if TYPE_CHECKING:
    from ostinato_serve._app import create_app, model_name_of
    from ostinato_serve._settings import (
        DEFAULT_HOST,
        DEFAULT_PORT,
        ServeSettings,
        check_bind_address,
        is_loopback,
    )

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "ServeSettings",
    "__version__",
    "check_bind_address",
    "create_app",
    "is_loopback",
    "model_name_of",
]

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "DEFAULT_HOST": "ostinato_serve._settings",
        "DEFAULT_PORT": "ostinato_serve._settings",
        "ServeSettings": "ostinato_serve._settings",
        "check_bind_address": "ostinato_serve._settings",
        "create_app": "ostinato_serve._app",
        "is_loopback": "ostinato_serve._settings",
        "model_name_of": "ostinato_serve._app",
    },
)
