"""The ``serve`` plugin's settings (``OSTINATO_SERVE_*``) and the rule for where to bind.

This module decides nothing about requests: it reads settings and checks the one rule
that must hold before a socket is opened (no token, no address beyond loopback).
"""

from __future__ import annotations

import ipaddress
from typing import Final, Literal

from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from ostinato.errors import ConfigurationError
from ostinato.settings import PluginSettings

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "ServeSettings", "check_bind_address", "is_loopback"]

#: Where ``ostinato serve`` listens unless told otherwise: this machine only.
DEFAULT_HOST: Final = "127.0.0.1"
#: The default port.
DEFAULT_PORT: Final = 8000


class ServeSettings(PluginSettings):
    """How the served client listens and what it accepts.

    Attributes:
        host: the address to bind (``OSTINATO_SERVE_HOST``; default ``127.0.0.1``).
            Anything but a loopback address needs :attr:`token`.
        port: the TCP port (``OSTINATO_SERVE_PORT``; default 8000).
        token: the bearer token every ``/api/*`` and ``/v1/*`` request must send
            (``OSTINATO_SERVE_TOKEN``; default none: no authentication).
        max_body_bytes: the largest request body accepted (``OSTINATO_SERVE_MAX_BODY_BYTES``;
            default 1 MiB); a larger one gets ``413``.
        max_concurrent_turns: turns running at once (``OSTINATO_SERVE_MAX_CONCURRENT_TURNS``;
            default 64); one more gets ``503`` with ``Retry-After``.
        max_pending: turns waiting for approval kept at once (``OSTINATO_SERVE_MAX_PENDING``;
            default 1000); the oldest is forgotten first.
        reattach_seconds: under ``on_disconnect=cancel``, how long a turn runs on with
            no connection reading it (``OSTINATO_SERVE_REATTACH_SECONDS``; default 5): a
            client that lost its connection reads on within that time (``GET
            /api/turns/<id>/events`` with ``Last-Event-ID``); then the turn is cancelled.
        turn_log_seconds: how long a turn's events stay readable after it ended
            (``OSTINATO_SERVE_TURN_LOG_SECONDS``; default 300).
        cors_origins: origins allowed to call from a browser, comma-separated
            (``OSTINATO_SERVE_CORS_ORIGINS``; default none: CORS off). ``*`` allows any.
        busy_policy: what a message for a conversation whose turn still runs does
            (``OSTINATO_SERVE_BUSY_POLICY``): ``reject`` (default, ``409``), ``enqueue``,
            ``interrupt`` or ``steer``; a request may choose its own (``"busy"``).
        on_disconnect: what a ``/api/turns`` turn does when its last reader goes away
            (``OSTINATO_SERVE_ON_DISCONNECT``): ``detach`` (default: it goes on, and can
            be read again by position) or ``cancel`` (cancelled unless a reader comes
            back within ``reattach_seconds``; under ``turns=durable``, back to the same
            server process, which cancels through the engine).
        openai_on_disconnect: what a ``/v1/chat/completions`` turn does when its stream
            is closed before it ended (``OSTINATO_SERVE_OPENAI_ON_DISCONNECT``):
            ``cancel`` (default: OpenAI clients expect a closed stream to stop the
            completion) or, under ``turns=durable`` only, ``detach`` (it runs on to its
            end on a worker, unread).
        keep_turns: turn logs kept readable at most (``OSTINATO_SERVE_KEEP_TURNS``; 1000).
        turns: where ``/api/turns`` runs its turns (``OSTINATO_SERVE_TURNS``):
            ``process`` (default: in this process) or ``durable`` (submitted to the
            installed durable engine; any server process serves any turn).
        durable_tools: under ``turns=durable``, the tool names every submitted turn
            offers, comma-separated (``OSTINATO_SERVE_DURABLE_TOOLS``; ``ostinato serve``
            takes its ``--tools`` when unset): names every worker resolves.
        durable_engine: which installed durable engine (``OSTINATO_SERVE_DURABLE_ENGINE``;
            default: the only one installed), e.g. ``dbos``.
    """

    model_config = SettingsConfigDict(env_prefix="OSTINATO_SERVE_")

    host: str = DEFAULT_HOST
    port: int = Field(default=DEFAULT_PORT, ge=0, le=65535)
    token: SecretStr | None = None
    max_body_bytes: int = Field(default=1024 * 1024, ge=1)
    max_concurrent_turns: int = Field(default=64, ge=1)
    max_pending: int = Field(default=1000, ge=1)
    reattach_seconds: float = Field(default=5.0, ge=0)
    turn_log_seconds: float = Field(default=300.0, ge=0)
    cors_origins: str = ""
    busy_policy: Literal["reject", "enqueue", "interrupt", "steer"] = "reject"
    on_disconnect: Literal["detach", "cancel"] = "detach"
    openai_on_disconnect: Literal["cancel", "detach"] = "cancel"
    keep_turns: int = Field(default=1000, ge=1)
    turns: Literal["process", "durable"] = "process"
    durable_tools: str = ""
    durable_engine: str = ""

    @property
    def origins(self) -> list[str]:
        """The origins of :attr:`cors_origins` (empty: CORS off)."""
        return [o.strip() for o in self.cors_origins.split(",") if o.strip()]

    @property
    def token_value(self) -> str | None:
        """The token's text (``None`` when there is none, or it is blank)."""
        if self.token is None:
            return None
        return self.token.get_secret_value().strip() or None


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only (``localhost``, ``127.x``, ``::1``)."""
    name = host.strip().strip("[]")
    if name.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind_address(host: str, token: str | None) -> None:
    """Refuse to listen beyond loopback without a token.

    Raises:
        ConfigurationError: ``host`` is not a loopback address and ``token`` is empty.
    """
    if token or is_loopback(host):
        return
    raise ConfigurationError(
        f"refusing to listen on {host!r} without a token: any machine that reaches it could "
        "run the agent and its tools\n"
        "fix: set OSTINATO_SERVE_TOKEN to a long random secret (clients send it as "
        "'Authorization: Bearer <token>'), or listen on 127.0.0.1"
    )
