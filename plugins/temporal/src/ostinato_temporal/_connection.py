"""Connecting to the Temporal service the settings name, and the names every process
shares: the turn workflow's, its signal's, the unit activity's, the memo keys."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from ostinato.errors import ConfigurationError

if TYPE_CHECKING:
    from temporalio.client import Client

    from ostinato_temporal._settings import TemporalSettings

__all__ = [
    "DECIDE_SIGNAL",
    "EVENTS_MEMO",
    "PENDING_MEMO",
    "UNIT_ACTIVITY",
    "WORKFLOW_NAME",
    "connect",
]

#: The registered name of the turn workflow.
WORKFLOW_NAME: Final = "ostinato.turn"
#: The signal decisions are sent with.
DECIDE_SIGNAL: Final = "ostinato.decide"
#: The activity running one unit (local for a memory read).
UNIT_ACTIVITY: Final = "ostinato.unit"
#: The memo key of the calls a waiting turn waits for (``""`` once decided).
PENDING_MEMO: Final = "ostinato.pending"
#: The memo key of the events told before the turn started waiting.
EVENTS_MEMO: Final = "ostinato.events"


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
