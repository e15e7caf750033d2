"""The A2A server: routes serving a client as an A2A agent, mounted by ``ostinato serve``
when this plugin is installed, or on any Starlette app.

Two routes: ``GET /.well-known/agent-card.json`` (the Agent Card, open to anyone, as A2A
wants) and ``POST /api/a2a`` (JSON-RPC 2.0: ``SendMessage``, ``SendStreamingMessage``,
``GetTask``, ``CancelTask``, ``SubscribeToTask``...), which needs the server's token like
every ``/api/*`` route of ``ostinato serve``. The request handling is the ``a2a-sdk``'s;
tasks are turns (:class:`~ostinato_a2a._executor.TurnExecutor`), kept in this process,
or, when the server runs turns on a durable engine, durable turns
(:mod:`ostinato_a2a._durable`) that outlive the process.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.server.routes import create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ostinato.client import ChatClient
from ostinato.tools import tool_callbacks
from ostinato_a2a._card import agent_card
from ostinato_a2a._executor import TurnExecutor
from ostinato_serve import ServeSettings, model_name_of
from ostinato_serve.extending import Guard, ServeState

__all__ = ["A2A_PATH", "create_a2a_app", "create_a2a_routes", "push_handling", "serve_routes"]

#: Where the JSON-RPC endpoint is, below the app's root.
A2A_PATH: Final = "/api/a2a"


def _version() -> str:
    from ostinato_a2a import __version__

    return __version__


def create_a2a_routes(
    state: ServeState,
    *,
    name: str | None = None,
    description: str | None = None,
    path: str = A2A_PATH,
    push: str = "public",
) -> list[BaseRoute]:
    """The A2A routes for the client ``state`` serves (see the module).

    Args:
        state: the served client, its tools and settings (``ostinato serve``'s).
        name: the agent's name in its card (default: ``ostinato`` and the model's name).
        description: its description (default: one naming the model and the tools).
        path: where the JSON-RPC endpoint is (keep it below ``/api/`` to need the token).
        push: push notifications: ``public``, ``any`` or ``off`` (see
            :func:`push_handling`).
    """
    shown_name = name or f"ostinato ({state.model_name})"

    async def card(request: Request) -> Response:
        tools = await state.tool_callbacks()
        names = ", ".join(t.tool_definition.name for t in tools) or "none"
        base = str(request.base_url).rstrip("/")
        built = agent_card(
            name=shown_name,
            description=description
            or f"An ostinato agent on {state.model_name}; its tools: {names}.",
            version=_version(),
            url=base + path,
            tools=tools,
            token=state.settings.token_value is not None,
            push=push != "off",
        )
        return JSONResponse(agent_card_to_dict(built))

    base_card = agent_card(
        name=shown_name,
        description=description or "an ostinato agent",
        version=_version(),
        url=path,
        token=state.settings.token_value is not None,
        push=push != "off",
    )
    pushing = push_handling(push)
    if state.durable is not None:  # tasks are durable turns
        from ostinato_a2a._durable import DurableTurnExecutor, durable_handler

        executor = DurableTurnExecutor(state)
        handler: DefaultRequestHandler = durable_handler(executor, base_card, **pushing)
    else:
        handler = DefaultRequestHandler(
            agent_executor=TurnExecutor(state),
            task_store=InMemoryTaskStore(),
            agent_card=base_card,
            **pushing,
        )
    return [
        Route(AGENT_CARD_WELL_KNOWN_PATH, card, methods=["GET"]),
        *create_jsonrpc_routes(handler, rpc_url=path),
    ]


def push_handling(push: str) -> dict[str, Any]:
    """The request handler's push notification parts for ``push``: ``public`` sends task
    updates to webhooks on public addresses only (the ``a2a-sdk``'s URL screening: no
    loopback, private, link-local or metadata addresses, checked when a webhook is set
    and before each send), ``any`` to any http(s) webhook, ``off`` none.

    Raises:
        ValueError: ``push`` is none of these.
    """
    if push == "off":
        return {}
    if push not in ("public", "any"):
        raise ValueError(
            f"OSTINATO_A2A_PUSH is {push!r}; expected 'public' (webhooks on public "
            "addresses), 'any' (any webhook: a trusted network) or 'off'"
        )
    import httpx
    from a2a.server.tasks import BasePushNotificationSender, InMemoryPushNotificationConfigStore
    from a2a.utils.push_url_validator import validate_push_notification_url

    screen = validate_push_notification_url if push == "public" else None
    store = InMemoryPushNotificationConfigStore()
    sender = BasePushNotificationSender(
        httpx.AsyncClient(timeout=30), store, push_url_validator=screen
    )
    return {"push_config_store": store, "push_sender": sender, "push_url_validator": screen}


def serve_routes(state: ServeState) -> list[BaseRoute]:
    """The routes ``ostinato serve`` mounts (entry point ``ostinato_serve.routes``), the
    card named by ``OSTINATO_A2A_NAME`` / ``_DESCRIPTION`` when they are set, push
    notifications as ``OSTINATO_A2A_PUSH`` says."""
    from ostinato.settings import load_settings
    from ostinato_a2a._settings import A2ASettings

    settings = load_settings(A2ASettings)
    return create_a2a_routes(
        state,
        name=settings.name or None,
        description=settings.description or None,
        push=settings.push,
    )


def create_a2a_app(
    client: ChatClient,
    *,
    tools: Sequence[Any] = (),
    settings: ServeSettings | None = None,
    name: str | None = None,
    description: str | None = None,
    push: str = "public",
) -> Starlette:
    """An ASGI app serving ``client`` over A2A only (the routes of
    :func:`create_a2a_routes` behind ``ostinato serve``'s token check and body limit).

    Args:
        client: the client every task's turn runs on.
        tools: tools every turn offers besides the client's defaults.
        settings: token and limits (default: ``ServeSettings()``, read from
            ``OSTINATO_SERVE_*``).
        name: the agent's name in its card.
        description: its description.
        push: push notifications: ``public``, ``any`` or ``off``.
    """
    settings = settings if settings is not None else ServeSettings()
    state = ServeState(
        client,
        tuple(tool_callbacks(*tools)) if tools else (),
        settings,
        model_name_of(client),
    )
    guard = Middleware(Guard, token=settings.token_value, max_body_bytes=settings.max_body_bytes)
    return Starlette(
        routes=create_a2a_routes(state, name=name, description=description, push=push),
        middleware=[guard],
    )
