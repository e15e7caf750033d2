"""``OSTINATO_TEMPORAL_*``: which Temporal service holds the turns, and how workers run them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import SettingsConfigDict

from ostinato.settings import PluginSettings

__all__ = ["DEFAULT_TASK_QUEUE", "ENV_PREFIX", "TemporalSettings"]

#: The prefix of the plugin's settings.
ENV_PREFIX: Final = "OSTINATO_TEMPORAL_"
#: The task queue turns go to when none is set.
DEFAULT_TASK_QUEUE: Final = "ostinato-turns"


class TemporalSettings(PluginSettings):
    """Durable turns on Temporal.

    Attributes:
        address: ``OSTINATO_TEMPORAL_ADDRESS``: the frontend, ``host:port`` (default
            ``localhost:7233``, the development server's).
        namespace: ``OSTINATO_TEMPORAL_NAMESPACE``: the namespace (default ``default``).
        task_queue: ``OSTINATO_TEMPORAL_TASK_QUEUE``: the queue turns are submitted to and
            workers poll (default ``ostinato-turns``).
        api_key: ``OSTINATO_TEMPORAL_API_KEY``: an API key for a hosted cluster (never
            shown unmasked); it turns TLS on.
        tls: ``OSTINATO_TEMPORAL_TLS``: connect over TLS (default: when an API key or a
            client certificate is set).
        tls_cert_path / tls_key_path: ``OSTINATO_TEMPORAL_TLS_CERT_PATH`` and
            ``..._TLS_KEY_PATH``: a client certificate and its key (mTLS).
        tls_ca_path: ``OSTINATO_TEMPORAL_TLS_CA_PATH``: the server's CA (default: the
            system's).
        identity: ``OSTINATO_TEMPORAL_IDENTITY``: this worker's identity (default: the
            SDK's, ``<pid>@<host>``).
        worker_concurrency: ``OSTINATO_TEMPORAL_WORKER_CONCURRENCY``: units (activities)
            and turn steps (workflow tasks) one worker runs at once (default 16).
        unit_timeout_seconds: ``OSTINATO_TEMPORAL_UNIT_TIMEOUT_SECONDS``: the longest one
            unit (a model round, a tool call) may run (default 600).
        heartbeat_seconds: ``OSTINATO_TEMPORAL_HEARTBEAT_SECONDS``: a unit whose worker
            is silent this long is run again elsewhere (default 30).
        approval_timeout_seconds: ``OSTINATO_TEMPORAL_APPROVAL_TIMEOUT_SECONDS``: how
            long a turn waits for decisions before it fails (default 7 days).
        shutdown_grace_seconds: ``OSTINATO_TEMPORAL_SHUTDOWN_GRACE_SECONDS``: on SIGTERM,
            how long a worker lets its units finish (default 30).
    """

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_ignore_empty=True)

    address: str = Field(default="localhost:7233", min_length=1, description="host:port.")
    namespace: str = Field(default="default", min_length=1, description="The namespace.")
    task_queue: str = Field(
        default=DEFAULT_TASK_QUEUE, min_length=1, description="The turns' task queue."
    )
    api_key: SecretStr | None = Field(default=None, description="API key (hosted cluster).")
    tls: bool | None = Field(default=None, description="TLS (default: with a key or a cert).")
    tls_cert_path: Path | None = Field(default=None, description="mTLS client certificate.")
    tls_key_path: Path | None = Field(default=None, description="mTLS client key.")
    tls_ca_path: Path | None = Field(default=None, description="The server's CA.")
    identity: str | None = Field(default=None, description="This worker's identity.")
    worker_concurrency: int = Field(default=16, gt=0, description="Units run at once.")
    unit_timeout_seconds: float = Field(default=600.0, gt=0, description="Longest unit.")
    heartbeat_seconds: float = Field(
        default=30.0, gt=0, description="Silence after which a unit runs again elsewhere."
    )
    approval_timeout_seconds: float = Field(
        default=7 * 24 * 3600.0, gt=0, description="How long a turn waits for decisions."
    )
    shutdown_grace_seconds: float = Field(
        default=30.0, ge=0, description="On SIGTERM, time for units in flight to finish."
    )

    @field_validator(
        "api_key", "identity", "tls_cert_path", "tls_key_path", "tls_ca_path", mode="before"
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    def uses_tls(self) -> bool:
        """Whether the connection is TLS (set, else with an API key or a certificate)."""
        if self.tls is not None:
            return self.tls
        return self.api_key is not None or self.tls_cert_path is not None
