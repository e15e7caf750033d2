"""``GET /api/info`` (what the page shows before the first turn) and ``GET /healthz``.

Info names the model and the tools, never a setting's value: no credential reaches it.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ostinato_serve._state import ServeState

__all__ = ["healthz", "info"]


def _version() -> str:
    from ostinato_serve import __version__

    return __version__


async def info(request: Request) -> Response:
    """``{"name", "version", "model", "tools", "memory", "auth"}``."""
    state: ServeState = request.app.state.ostinato
    tools = [
        {"name": t.tool_definition.name, "description": t.tool_definition.description}
        for t in await state.tool_callbacks()
    ]
    return JSONResponse(
        {
            "name": "ostinato",
            "version": _version(),
            "model": state.model_name,
            "tools": tools,
            "memory": state.has_memory,
            "auth": state.settings.token_value is not None,
        }
    )


async def healthz(request: Request) -> Response:
    """``{"status": "ok"}``."""
    return JSONResponse({"status": "ok"})
