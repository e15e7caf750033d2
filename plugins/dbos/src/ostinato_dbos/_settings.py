"""``OSTINATO_DBOS_*``: where the durable turns are kept and how workers consume them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import SettingsConfigDict

from ostinato.settings import PluginSettings

__all__ = ["ENV_PREFIX", "DbosSettings", "default_sqlite_path"]

#: The prefix of the plugin's settings.
ENV_PREFIX: Final = "OSTINATO_DBOS_"


def default_sqlite_path() -> Path:
    """``$XDG_STATE_HOME/ostinato/dbos.sqlite3``, else ``~/.local/state/ostinato/dbos.sqlite3``."""
    base = os.environ.get("XDG_STATE_HOME", "").strip()
    root = Path(base) if base else Path.home() / ".local" / "state"
    return root / "ostinato" / "dbos.sqlite3"


class DbosSettings(PluginSettings):
    """Durable turns on DBOS.

    Attributes:
        database_url: ``OSTINATO_DBOS_DATABASE_URL``: the DBOS system database, a
            ``postgresql://`` URL for many machines (default: SQLite, one machine, in
            :func:`default_sqlite_path`).
        queue: ``OSTINATO_DBOS_QUEUE``: the queue turns are submitted to and workers
            consume (default ``ostinato-turns``).
        worker_concurrency: ``OSTINATO_DBOS_WORKER_CONCURRENCY``: turns one worker runs
            at once (default 16).
        global_concurrency: ``OSTINATO_DBOS_GLOBAL_CONCURRENCY``: turns all workers run at
            once (default: no limit).
        executor_id: ``OSTINATO_DBOS_EXECUTOR_ID``: this worker's id (default: host name
            and process id, unique per worker process).
        heartbeat_seconds: ``OSTINATO_DBOS_HEARTBEAT_SECONDS``: how often a worker says it
            is alive (default 5).
        dead_after_seconds: ``OSTINATO_DBOS_DEAD_AFTER_SECONDS``: a worker silent for that
            long is dead; a live worker adopts its turns (default 30).
        shutdown_grace_seconds: ``OSTINATO_DBOS_SHUTDOWN_GRACE_SECONDS``: on SIGTERM, how
            long a worker lets its turns finish before handing them back (default 30).
        approval_timeout_seconds: ``OSTINATO_DBOS_APPROVAL_TIMEOUT_SECONDS``: how long a
            turn waits for decisions before it fails (default 7 days).
        app_version: ``OSTINATO_DBOS_APP_VERSION``: the version workers and submitters
            share; a worker runs and recovers only turns of its version (default
            ``ostinato-dbos-1``).
    """

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX)

    database_url: SecretStr | None = Field(
        default=None,
        description="DBOS system database: postgresql://... (default: SQLite in the state dir).",
    )
    queue: str = Field(default="ostinato-turns", min_length=1, description="The turns' queue.")
    worker_concurrency: int = Field(default=16, gt=0, description="Turns one worker runs at once.")
    global_concurrency: int | None = Field(
        default=None, gt=0, description="Turns all workers run at once (default: no limit)."
    )
    executor_id: str | None = Field(
        default=None, description="This worker's id (default: host name and process id)."
    )
    heartbeat_seconds: float = Field(default=5.0, gt=0, description="Worker heartbeat period.")
    dead_after_seconds: float = Field(
        default=30.0, gt=0, description="Silence after which a worker's turns are adopted."
    )
    shutdown_grace_seconds: float = Field(
        default=30.0, ge=0, description="On SIGTERM, time for in-flight turns to finish."
    )
    approval_timeout_seconds: float = Field(
        default=7 * 24 * 3600.0, gt=0, description="How long a turn waits for decisions."
    )
    app_version: str = Field(
        default="ostinato-dbos-1", min_length=1, description="Version shared by all workers."
    )

    @field_validator("database_url", "executor_id", "global_concurrency", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    def system_database_url(self) -> str:
        """The DBOS system database URL (the SQLite file's folder is created)."""
        if self.database_url is not None:
            return self.database_url.get_secret_value()
        path = default_sqlite_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{path}"
