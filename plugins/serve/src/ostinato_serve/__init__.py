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
from ostinato.plugins import lazy_package

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

if TYPE_CHECKING:
    from ostinato_serve._app import create_app as create_app
    from ostinato_serve._app import model_name_of as model_name_of
    from ostinato_serve._settings import DEFAULT_HOST as DEFAULT_HOST
    from ostinato_serve._settings import DEFAULT_PORT as DEFAULT_PORT
    from ostinato_serve._settings import ServeSettings as ServeSettings
    from ostinato_serve._settings import check_bind_address as check_bind_address
    from ostinato_serve._settings import is_loopback as is_loopback
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
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
