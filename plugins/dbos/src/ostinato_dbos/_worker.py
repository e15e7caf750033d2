"""A worker process: runs the durable turns it takes from the queue, adopts the turns of
dead workers, and on shutdown finishes or hands back its own.

:class:`Worker` is what ``ostinato worker`` runs; a program may start one itself (one per
process: DBOS is a process-wide singleton). Its turns run on DBOS's event loop, on one
auto-configured client built from the worker's environment.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import threading
from typing import TYPE_CHECKING, Any, Final

from ostinato_dbos._settings import DbosSettings

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ostinato.config import AutoConfiguration
    from ostinato.events import EventListener
    from ostinato_dbos._heartbeats import Heartbeats

__all__ = ["APP_NAME", "Worker"]

#: The DBOS application name of every worker and submitter.
APP_NAME: Final = "ostinato"

_log = logging.getLogger("ostinato_dbos")


class Worker:
    """One worker: :meth:`start`, then :meth:`stop` (or :meth:`run` until a signal).

    Args:
        settings: the plugin's settings (default: read from the environment).
        container: the auto-configuration its turns' client is built from (default:
            from the environment).
        poll_seconds: how often it looks at the queue for new turns and, on a database
            without notifications (SQLite), for the decisions its waiting turns wait for.
        listeners: listeners of every turn's loop events, called in this worker (a
            turn replayed after a crash emits its events again).
    """

    def __init__(
        self,
        settings: DbosSettings | None = None,
        *,
        container: AutoConfiguration | None = None,
        poll_seconds: float = 1.0,
        listeners: Sequence[EventListener] = (),
    ) -> None:
        self.settings = settings if settings is not None else DbosSettings()
        self.executor_id = self.settings.executor_id or f"{socket.gethostname()}-{os.getpid()}"
        self._container = container
        self._listeners = tuple(listeners)
        self._poll_seconds = poll_seconds
        self._url = ""
        self._heartbeats: Heartbeats | None = None
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._uninstall: Any = None

    def start(self) -> None:
        """Launch DBOS with this worker's executor id, register the queue, and start the
        heartbeat (which also adopts dead workers' turns)."""
        from dbos import DBOS

        from ostinato.durable import TurnRunner, set_unit_interceptor
        from ostinato_dbos._heartbeats import Heartbeats
        from ostinato_dbos._relay import relay_event
        from ostinato_dbos._workflow import configure_worker, dbos_unit

        settings = self.settings
        self._url = settings.system_database_url()
        DBOS.migrate(self._url)
        self._heartbeats = Heartbeats(self._url, self.executor_id)
        self._heartbeats.beat()
        runner = TurnRunner(self._container, listeners=(*self._listeners, relay_event))
        configure_worker(runner, settings.approval_timeout_seconds)
        self._uninstall = set_unit_interceptor(dbos_unit)
        DBOS(
            config={
                "name": APP_NAME,
                "system_database_url": self._url,
                "application_version": settings.app_version,
                "executor_id": self.executor_id,
                "log_level": "WARNING",
                "notification_listener_polling_interval_sec": self._poll_seconds,
            }
        )
        DBOS.launch()
        DBOS.register_queue(
            settings.queue,
            worker_concurrency=settings.worker_concurrency,
            global_concurrency=settings.global_concurrency,
            polling_interval_sec=self._poll_seconds,
        )
        self._thread = threading.Thread(
            target=self._keep_alive, name="ostinato-dbos-heartbeat", daemon=True
        )
        self._thread.start()

    def _keep_alive(self) -> None:
        heartbeats = self._heartbeats
        assert heartbeats is not None
        while not self._stopping.wait(self.settings.heartbeat_seconds):
            try:
                heartbeats.beat()
                for dead in heartbeats.claim_dead(self.settings.dead_after_seconds):
                    self.adopt(dead)
            except Exception:  # a database hiccup: try again at the next beat
                _log.exception("heartbeat of worker %s failed", self.executor_id)

    def adopt(self, executor_id: str) -> list[str]:
        """Queue again the turns ``executor_id`` left running (it is dead); their
        completed units are replayed, not run again. Returns their ids."""
        from dbos import DBOS

        from ostinato_dbos._workflow import WORKFLOW_NAME

        turns = DBOS.list_workflows(
            status="PENDING",
            executor_id=executor_id,
            name=WORKFLOW_NAME,
            load_input=False,
            load_output=False,
        )
        adopted = [t.workflow_id for t in turns]
        for turn_id in adopted:
            DBOS.resume_workflow(turn_id, queue_name=self.settings.queue)
        if adopted:
            _log.warning("adopted %d turn(s) of dead worker %s", len(adopted), executor_id)
        return adopted

    def _running(self) -> list[str]:
        from dbos import DBOS

        from ostinato_dbos._workflow import WORKFLOW_NAME

        turns = DBOS.list_workflows(
            status="PENDING",
            executor_id=self.executor_id,
            name=WORKFLOW_NAME,
            load_input=False,
            load_output=False,
        )
        return [t.workflow_id for t in turns]

    def _only_waiting(self) -> bool:
        """Whether every turn this worker runs waits for a decision (none would finish
        within a grace period)."""
        from dbos import DBOS

        from ostinato_dbos._workflow import PENDING_EVENT

        return all(
            DBOS.get_event(turn_id, PENDING_EVENT, timeout_seconds=0) for turn_id in self._running()
        )

    def stop(self, grace_seconds: float | None = None) -> list[str]:
        """Stop taking turns, let the running ones finish for ``grace_seconds`` (default:
        the setting), then hand the others back to the queue. Returns their ids."""
        from dbos import DBOS, DBOSClient

        from ostinato_dbos._workflow import WORKFLOW_NAME

        grace = self.settings.shutdown_grace_seconds if grace_seconds is None else grace_seconds
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()
        if grace > 0 and self._only_waiting():
            grace = 0  # nothing would finish: a waiting turn waits for a person, not for us
        DBOS.destroy(workflow_completion_timeout_sec=math.ceil(grace))
        if self._uninstall is not None:
            self._uninstall()
        client = DBOSClient(system_database_url=self._url, application_name=APP_NAME)
        try:
            left = client.list_workflows(
                status="PENDING",
                executor_id=self.executor_id,
                name=WORKFLOW_NAME,
                load_input=False,
                load_output=False,
            )
            handed = [t.workflow_id for t in left]
            for turn_id in handed:
                client.resume_workflow(turn_id, queue_name=self.settings.queue)
        finally:
            client.destroy()
        if self._heartbeats is not None:
            self._heartbeats.forget()
            self._heartbeats.close()
        return handed
