"""``OSTINATO_DBOS_*``: where the durable turns are kept and how workers consume them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import SettingsConfigDict

from ostinato.settings import PluginSettings
from ostinato_dbos._project import (
    default_queue,
    default_state_dir,
    project_directory,
    project_name,
)

__all__ = ["ENV_PREFIX", "SQLITE_FILE", "DbosSettings", "default_sqlite_path"]

#: The prefix of the plugin's settings.
ENV_PREFIX: Final = "OSTINATO_DBOS_"
#: The name of the SQLite system database in a project's state directory.
SQLITE_FILE: Final = "dbos.sqlite3"


def _found_project() -> str:
    return project_name(project_directory())


def _state_dir(data: dict[str, Any]) -> Path:
    directory = project_directory()
    found = project_name(directory)
    named = data.get("project", found)
    return default_state_dir(found, directory) if named == found else default_state_dir(named)


def _queue(data: dict[str, Any]) -> str:
    return default_queue(data.get("project") or _found_project())


def default_sqlite_path(state_dir: Path | None = None) -> Path:
    """The SQLite system database in ``state_dir`` (default: this project's state
    directory, ``$XDG_STATE_HOME/ostinato/dbos/<project>-<hash>/dbos.sqlite3``, see
    :class:`DbosSettings`)."""
    return (state_dir if state_dir is not None else _state_dir({})) / SQLITE_FILE


class DbosSettings(PluginSettings):
    """Durable turns on DBOS.

    Durable turns are kept per project (see :mod:`ostinato_dbos._project`): the project
    is the nearest directory from the working directory up holding ``pyproject.toml`` or
    ``.git`` (else the working directory), unless ``project`` names one; explicit
    ``database_url``, ``queue`` and ``executor_id`` win over what the project gives.

    Attributes:
        project: ``OSTINATO_DBOS_PROJECT``: the project's name (default: its directory's
            name, lower-cased); it names the queue and the workers.
        state_dir: ``OSTINATO_DBOS_STATE_DIR``: where the project's SQLite system
            database and its workers' identity locks are kept (default
            ``$XDG_STATE_HOME/ostinato/dbos/<project>-<hash of its directory>``, else
            under ``~/.local/state``; ``.../dbos/<project>`` for a named project).
        database_url: ``OSTINATO_DBOS_DATABASE_URL``: the DBOS system database, a
            ``postgresql://`` URL for many machines (default: SQLite, one machine,
            ``dbos.sqlite3`` in ``state_dir``).
        queue: ``OSTINATO_DBOS_QUEUE``: the queue turns are submitted to and workers
            consume (default ``ostinato-turns-<project>``).
        worker_concurrency: ``OSTINATO_DBOS_WORKER_CONCURRENCY``: turns one worker runs
            at once (default 16).
        global_concurrency: ``OSTINATO_DBOS_GLOBAL_CONCURRENCY``: turns all workers run at
            once (default: no limit).
        executor_id: ``OSTINATO_DBOS_EXECUTOR_ID``: this worker's id (default
            ``<host>-<project>-<slot>``, the first slot no running worker of this
            project on this host holds: a restarted worker gets its id back and resumes
            its turns at once).
        heartbeat_seconds: ``OSTINATO_DBOS_HEARTBEAT_SECONDS``: how often a worker says it
            is alive (default 5).
        dead_after_seconds: ``OSTINATO_DBOS_DEAD_AFTER_SECONDS``: a worker silent for that
            long is dead; a live worker adopts its turns (default 30).
        shutdown_grace_seconds: ``OSTINATO_DBOS_SHUTDOWN_GRACE_SECONDS``: on SIGTERM, how
            long a worker lets its turns finish before handing them back (default 30).
        approval_timeout_seconds: ``OSTINATO_DBOS_APPROVAL_TIMEOUT_SECONDS``: how long a
            turn waits for decisions before it fails (default 7 days).
        events_retention_seconds: ``OSTINATO_DBOS_EVENTS_RETENTION_SECONDS``: how long
            the events of a turn that is over stay readable (default 7 days); workers
            purge older ones (:meth:`DbosEngine.purge_events`) about once an hour.
        app_version: ``OSTINATO_DBOS_APP_VERSION``: the version workers and submitters
            share; a worker runs and recovers only turns of its version (default
            ``ostinato-dbos-1``).
    """

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_ignore_empty=True)

    project: str = Field(
        default_factory=_found_project,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$",
        description="The project (default: the name of its directory).",
    )
    state_dir: Path = Field(
        default_factory=_state_dir,
        description="The project's SQLite database and worker locks (default: per project).",
    )
    database_url: SecretStr | None = Field(
        default=None,
        description="DBOS system database: postgresql://... (default: SQLite in the state dir).",
    )
    queue: str = Field(
        default_factory=_queue, min_length=1, description="The turns' queue (default: per project)."
    )
    worker_concurrency: int = Field(default=16, gt=0, description="Turns one worker runs at once.")
    global_concurrency: int | None = Field(
        default=None, gt=0, description="Turns all workers run at once (default: no limit)."
    )
    executor_id: str | None = Field(
        default=None, description="This worker's id (default: host, project and a free slot)."
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
    events_retention_seconds: float = Field(
        default=7 * 24 * 3600.0,
        gt=0,
        description="How long a finished turn's events stay readable (DbosEngine.purge_events).",
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
        path = default_sqlite_path(self.state_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{path}"
