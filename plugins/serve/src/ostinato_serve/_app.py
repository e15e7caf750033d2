"""The ASGI app: :func:`create_app` builds it from any ``ChatClient``.

The stack, outermost first: Starlette's error middleware, CORS (only when origins are
configured), the :class:`~ostinato_serve._guard.Guard` (token, body size), the routes.
Every error, whichever layer raises it, has the body ``{"error": {"type", "message"}}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ostinato.client import ChatClient
from ostinato.errors import ConfigurationError
from ostinato.memory import ChatMemoryRepository
from ostinato.tools import tool_callbacks
from ostinato_serve._agui import run_agent
from ostinato_serve._conversations import list_conversations, running_turn, show_conversation
from ostinato_serve._durable_disconnect import DurableReaders
from ostinato_serve._durable_turns import DurableTurns
from ostinato_serve._guard import Guard
from ostinato_serve._info import healthz, info
from ostinato_serve._openai import chat_completions, list_models
from ostinato_serve._problems import ApiError, error_response
from ostinato_serve._running import Disconnect
from ostinato_serve._settings import ServeSettings
from ostinato_serve._state import ServeState
from ostinato_serve._static import PACKAGE_STATIC, index, static_file
from ostinato_serve._turns import (
    cancel_turn,
    resume_turn,
    show_turn,
    start_turn,
    turn_events,
)

__all__ = ["ROUTES_GROUP", "create_app", "installed_routes", "model_name_of"]

_STATUS_TYPES = {404: "not_found", 405: "method_not_allowed"}


def model_name_of(client: ChatClient) -> str:
    """The model's name as the server shows it: its default options' ``model``, else the
    model class's name."""
    options = getattr(client.model, "default_options", None)
    name = getattr(options, "model", None)
    return name if isinstance(name, str) and name else type(client.model).__name__


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    kind = _STATUS_TYPES.get(exc.status_code, "http_error")
    detail = f"{request.method} {request.url.path}: {exc.detail}"
    return error_response(ApiError(exc.status_code, kind, detail, exc.headers))


async def _internal_error(request: Request, exc: Exception) -> Response:
    message = f"the server failed ({type(exc).__name__}); see its log"
    return error_response(ApiError(500, "internal_error", message))


#: The entry point group of route factories: each a callable taking the
#: :class:`~ostinato_serve._state.ServeState` and returning Starlette routes, mounted
#: beside the server's own (``ostinato-a2a`` registers its A2A routes this way).
ROUTES_GROUP = "ostinato_serve.routes"


def installed_routes(state: ServeState) -> list[BaseRoute]:
    """The routes of every installed factory of :data:`ROUTES_GROUP`, in name order."""
    from importlib.metadata import entry_points

    routes: list[BaseRoute] = []
    for entry in sorted(entry_points(group=ROUTES_GROUP), key=lambda e: e.name):
        routes.extend(entry.load()(state))
    return routes


def _routes() -> list[BaseRoute]:
    return [
        Route("/", index, methods=["GET"]),
        Route("/static/{name}", static_file, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/api/info", info, methods=["GET"]),
        Route("/api/turns", start_turn, methods=["POST"]),
        Route("/api/turns/{turn_id}", show_turn, methods=["GET"]),
        Route("/api/turns/{turn_id}/events", turn_events, methods=["GET"]),
        Route("/api/turns/{turn_id}/cancel", cancel_turn, methods=["POST"]),
        Route("/api/approvals/{pending_id}", resume_turn, methods=["POST"]),
        Route("/api/ag-ui", run_agent, methods=["POST"]),
        Route("/api/conversations", list_conversations, methods=["GET"]),
        Route("/api/conversations/{conversation_id}", show_conversation, methods=["GET"]),
        Route("/api/conversations/{conversation_id}/turn", running_turn, methods=["GET"]),
        Route("/v1/models", list_models, methods=["GET"]),
        Route("/v1/chat/completions", chat_completions, methods=["POST"]),
    ]


def _durable(settings: ServeSettings, engine: Any) -> DurableTurns | None:
    if engine is None and settings.turns == "durable":
        from ostinato.durable import durable_engine

        engine = durable_engine(settings.durable_engine or None)
    if engine is None:
        if settings.openai_on_disconnect == "detach":
            raise ConfigurationError(
                "OSTINATO_SERVE_OPENAI_ON_DISCONNECT=detach needs durable turns: an "
                "in-process completion has nowhere to run once its stream is closed\n"
                "fix: set OSTINATO_SERVE_TURNS=durable (with a durable engine installed), "
                "or leave OSTINATO_SERVE_OPENAI_ON_DISCONNECT at cancel"
            )
        return None
    names = tuple(n.strip() for n in settings.durable_tools.split(",") if n.strip())
    readers = DurableReaders(Disconnect(settings.on_disconnect), settings.reattach_seconds)
    return DurableTurns(engine, names, readers)


def create_app(
    client: ChatClient,
    *,
    tools: Sequence[Any] = (),
    settings: ServeSettings | None = None,
    model_name: str | None = None,
    repository: ChatMemoryRepository | None = None,
    static_dir: str | Path | None = None,
    extra_routes: bool = True,
    engine: Any = None,
) -> Starlette:
    """The ASGI app serving ``client``: mount it in your own Starlette or FastAPI app
    (``app.mount("/agent", create_app(client))``) or run it with uvicorn.

    Args:
        client: the client every turn runs on (its advisors, memory, default tools).
        tools: tools every turn offers besides the client's defaults (``@tool``
            functions, objects with ``@tool`` methods, ``ToolCallback`` s).
        settings: token, limits and CORS origins (default: ``ServeSettings()``, read from
            ``OSTINATO_SERVE_*``). Host and port matter only to ``ostinato serve``.
        model_name: the name ``/api/info`` and ``/v1/models`` show (default: the model's
            default ``model`` option, else its class name).
        repository: where conversations are listed from (default: the repository of the
            client's memory advisor, when it has one).
        static_dir: a folder holding the page instead of the package's own.
        extra_routes: mount the routes of installed plugins (:data:`ROUTES_GROUP`: the
            A2A agent of ``ostinato-a2a``) beside the server's own.
        engine: the durable engine ``/api/turns`` submits turns to (default: under
            ``turns=durable``, ``durable_engine(settings.durable_engine or None)``;
            else none: turns run in this process).
    """
    settings = settings if settings is not None else ServeSettings()
    state = ServeState(
        client,
        tuple(tool_callbacks(*tools)) if tools else (),
        settings,
        model_name or model_name_of(client),
        repository=repository,
        durable=_durable(settings, engine),
    )
    middleware = []
    if settings.origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=settings.origins,
                allow_methods=["GET", "POST"],
                allow_headers=["Authorization", "Content-Type"],
                max_age=600,
            )
        )
    middleware.append(
        Middleware(Guard, token=settings.token_value, max_body_bytes=settings.max_body_bytes)
    )
    routes = _routes() + (installed_routes(state) if extra_routes else [])
    app = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={
            ApiError: _api_error,
            HTTPException: _http_error,
            Exception: _internal_error,
        },
    )
    app.state.ostinato = state
    app.state.ostinato_static = Path(static_dir) if static_dir is not None else PACKAGE_STATIC
    return app
