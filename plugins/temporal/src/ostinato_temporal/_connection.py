"""Connecting to the Temporal service the settings name, and the names every process
shares: the turn workflow's, its signals', the activities', the memo keys."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from ostinato.errors import ConfigurationError

if TYPE_CHECKING:
    from temporalio.client import Client

    from ostinato_temporal._settings import TemporalSettings

__all__ = [
    "DECIDE_SIGNAL",
    "EVENTS_MEMO",
    "FOLLOWS_MEMO",
    "FOLLOW_UP_ACTIVITY",
    "PENDING_MEMO",
    "STEER_SIGNAL",
    "UNIT_ACTIVITY",
    "WAIT_ACTIVITY",
    "WORKFLOW_NAME",
    "connect",
    "waits_queue",
]

#: The registered name of the turn workflow.
WORKFLOW_NAME: Final = "ostinato.turn"
#: The signal decisions are sent with.
DECIDE_SIGNAL: Final = "ostinato.decide"
#: The signal steered user messages are sent with (``{"texts": [...], "id": ...}``).
STEER_SIGNAL: Final = "ostinato.steer"
#: The activity running one unit (local for a memory read).
UNIT_ACTIVITY: Final = "ostinato.unit"
#: The activity a turn submitted ``after`` another waits in until that one has ended.
WAIT_ACTIVITY: Final = "ostinato.wait_for_turn"
#: The activity that submits a turn's follow-up (or steers its late messages onward).
FOLLOW_UP_ACTIVITY: Final = "ostinato.follow_up"
#: The memo key of the calls a waiting turn waits for (``""`` once decided).
PENDING_MEMO: Final = "ostinato.pending"
#: The memo key of the events told before the turn started waiting.
EVENTS_MEMO: Final = "ostinato.events"
#: The memo key of a follow-up: ``{"turn": <the turn it follows>, "key": <its batch>}``.
FOLLOWS_MEMO: Final = "ostinato.follows"


def waits_queue(task_queue: str) -> str:
    """The task queue of the waits of turns submitted ``after`` another on ``task_queue``
    (polled by the same workers, apart from the units: a wait holds no unit's slot)."""
    return f"{task_queue}.waits"


async def connect(settings: TemporalSettings) -> Client:
    """A client of the service ``settings`` name (TLS and the API key as set).

    Raises:
        ConfigurationError: the service cannot be reached (the message names the
            address and namespace, never the key).
    """
    from temporalio.client import Client
    from temporalio.service import TLSConfig

    tls: bool | TLSConfig = settings.uses_tls()
    if tls and (settings.tls_cert_path or settings.tls_ca_path):
        tls = TLSConfig(
            server_root_ca_cert=_read(settings.tls_ca_path),
            client_cert=_read(settings.tls_cert_path),
            client_private_key=_read(settings.tls_key_path),
        )
    api_key = settings.api_key.get_secret_value() if settings.api_key is not None else None
    try:
        return await Client.connect(
            settings.address,
            namespace=settings.namespace,
            api_key=api_key,
            tls=tls,
            identity=settings.identity,
        )
    except RuntimeError as error:
        raise ConfigurationError(
            f"cannot reach the Temporal service at {settings.address!r} "
            f"(namespace {settings.namespace!r}, TLS {'on' if tls else 'off'}): "
            f"{str(error).splitlines()[0]}\n"
            "fix: start it (temporal server start-dev), or set OSTINATO_TEMPORAL_ADDRESS, "
            "OSTINATO_TEMPORAL_NAMESPACE and, for a hosted cluster, OSTINATO_TEMPORAL_API_KEY"
        ) from None


def _read(path: object) -> bytes | None:
    from pathlib import Path

    return None if path is None else Path(str(path)).read_bytes()
